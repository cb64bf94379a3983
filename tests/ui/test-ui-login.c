/* test-ui-login.c
 * Copyright 2026 The Rivulet authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * A Gradio app launched with auth= (a scripted server, tests/riv-test-auth-
 * server.c): connecting the window asks for a login in a dialog (no keyring
 * on the test's private bus: nothing kept), a refused password asks again and
 * says so, the right one connects and a job runs; cancelling the dialog
 * leaves the connect popover saying the server asks for a login.
 */
#include "config.h"

#include <adwaita.h>

#include "riv-test-auth-server.h"
#include "riv-test-util.h"
#include "riv-ui-test-util.h"
#include "riv-window-test.h"

#define HANG_GUARD 60.0

typedef struct
{
  RivWindow  *window;
  AuthServer  as;
} Fixture;

static void
fixture_setup (Fixture       *fixture,
               gconstpointer  user_data)
{
  auth_server_start (&fixture->as);
  fixture->window = riv_window_new (NULL, NULL);
  g_object_add_weak_pointer (G_OBJECT (fixture->window), (gpointer *) &fixture->window);
  gtk_window_present (GTK_WINDOW (fixture->window));
}

static void
fixture_teardown (Fixture       *fixture,
                  gconstpointer  user_data)
{
  riv_ui_test_window_destroy (&fixture->window);
  auth_server_stop (&fixture->as);
}

/* The login dialog is an AdwAlertDialog inside the window on libadwaita 1.5 and
 * later, an AdwMessageDialog window before; the test asks both the same. */
#if ADW_CHECK_VERSION (1, 5, 0)
typedef AdwAlertDialog LoginDialog;
#define LOGIN_DIALOG_CALL(f) adw_alert_dialog_##f

static LoginDialog *
find_in (GtkWidget *widget)
{
  if (ADW_IS_ALERT_DIALOG (widget) && gtk_widget_get_mapped (widget))
    return ADW_ALERT_DIALOG (widget);
  for (GtkWidget *child = gtk_widget_get_first_child (widget); child != NULL;
       child = gtk_widget_get_next_sibling (child))
    {
      LoginDialog *found = find_in (child);

      if (found != NULL)
        return found;
    }
  return NULL;
}
#else
typedef AdwMessageDialog LoginDialog;
#define LOGIN_DIALOG_CALL(f) adw_message_dialog_##f
#endif

/* The login dialog showing over the window, or NULL. */
static LoginDialog *
find_dialog (void)
{
  GListModel *toplevels = gtk_window_get_toplevels ();   /* owned by GTK */

  for (guint i = 0; i < g_list_model_get_n_items (toplevels); i++)
    {
      g_autoptr(GObject) window = g_list_model_get_item (toplevels, i);

#if ADW_CHECK_VERSION (1, 5, 0)
      LoginDialog *found = find_in (GTK_WIDGET (window));

      if (found != NULL)
        return found;
#else
      if (ADW_IS_MESSAGE_DIALOG (window) && gtk_widget_get_visible (GTK_WIDGET (window)))
        return ADW_MESSAGE_DIALOG (window);
#endif
    }
  return NULL;
}

static gboolean
dialog_shown (gpointer user_data)
{
  return find_dialog () != NULL;
}

/* The entry rows of the dialog: [0] user name, [1] password. */
static void
find_rows (GtkWidget  *widget,
           GPtrArray  *rows)
{
  if (ADW_IS_ENTRY_ROW (widget))
    g_ptr_array_add (rows, widget);
  for (GtkWidget *child = gtk_widget_get_first_child (widget); child != NULL;
       child = gtk_widget_get_next_sibling (child))
    find_rows (child, rows);
}

/* Waits for the dialog, checks what it says, types the login and answers. */
static void
answer_dialog (const char *user,
               const char *password,
               gboolean    expect_refused,
               const char *response)
{
  LoginDialog *dialog;
  g_autoptr(GPtrArray) rows = g_ptr_array_new ();

  g_assert_true (riv_test_wait_until (dialog_shown, NULL, HANG_GUARD));
  dialog = find_dialog ();
  g_assert_nonnull (strstr (LOGIN_DIALOG_CALL (get_heading) (dialog), "127.0.0.1"));
  g_assert_cmpint (strstr (LOGIN_DIALOG_CALL (get_body) (dialog), "did not accept") != NULL, ==,
                   expect_refused);
  find_rows (GTK_WIDGET (dialog), rows);
  g_assert_cmpuint (rows->len, ==, 2);
  g_assert_true (ADW_IS_PASSWORD_ENTRY_ROW (rows->pdata[1]));
  if (expect_refused)
    /* The user name stays; only the password is asked again. */
    g_assert_cmpstr (gtk_editable_get_text (rows->pdata[0]), ==, user);
  gtk_editable_set_text (rows->pdata[0], user);
  gtk_editable_set_text (rows->pdata[1], password);
  g_assert_true (LOGIN_DIALOG_CALL (get_response_enabled) (dialog, "log-in"));
  /* What a click on the button does: the response, then the dialog closes. */
  g_object_add_weak_pointer (G_OBJECT (dialog), (gpointer *) &dialog);
#if ADW_CHECK_VERSION (1, 5, 0)
  g_signal_emit_by_name (dialog, "response", response);
  adw_dialog_force_close (ADW_DIALOG (dialog));
#else
  adw_message_dialog_response (dialog, response);
  gtk_window_close (GTK_WINDOW (dialog));
#endif
  g_assert_true (riv_test_wait_until (riv_ui_test_gone, &dialog, HANG_GUARD));
}

static gboolean
has_client (gpointer user_data)
{
  return riv_window_get_client (user_data) != NULL;
}

static gboolean
job_done (gpointer data)
{
  return riv_job_is_finished (data);
}

static void
test_login (Fixture       *fixture,
            gconstpointer  user_data)
{
  g_autoptr(JsonNode) inputs = json_from_string ("[\"x\"]", NULL);
  g_autoptr(RivJob) job = NULL;
  g_autoptr(GError) error = NULL;

  riv_window_connect_to_url (fixture->window, fixture->as.url, NULL);

  /* A wrong password first: refused, and the dialog asks again, saying so. */
  answer_dialog (USER, "wrong", FALSE, "log-in");
  answer_dialog (USER, PASSWORD, TRUE, "log-in");
  g_assert_true (riv_test_wait_until (has_client, fixture->window, HANG_GUARD));
  g_assert_cmpuint (fixture->as.n_logins, ==, 2);

  job = riv_client_submit (riv_window_get_client (fixture->window), "predict", inputs, &error);
  g_assert_no_error (error);
  g_assert_true (riv_test_wait_until (job_done, job, HANG_GUARD));
  g_assert_cmpint (riv_job_get_status (job), ==, RIV_JOB_STATUS_COMPLETED);
  g_assert_cmpstr (riv_job_get_output_text (job), ==, "hello");
  g_assert_cmpuint (fixture->as.n_joins, ==, 1);
}

static gboolean
has_error (gpointer user_data)
{
  return riv_connect_popover_get_error_kind (riv_window_get_connect_popover (user_data)) !=
         RIV_CONNECT_ERROR_NONE;
}

static void
test_cancel (Fixture       *fixture,
             gconstpointer  user_data)
{
  RivConnectPopover *popover = riv_window_get_connect_popover (fixture->window);

  riv_window_connect_to_url (fixture->window, fixture->as.url, NULL);
  answer_dialog (USER, "", FALSE, "cancel");
  g_assert_true (riv_test_wait_until (has_error, fixture->window, HANG_GUARD));
  g_assert_nonnull (strstr (riv_connect_popover_get_error_text (popover), "login"));
  g_assert_null (riv_window_get_client (fixture->window));
  g_assert_cmpuint (fixture->as.n_logins, ==, 0);
  g_assert_cmpuint (fixture->as.n_joins, ==, 0);
}

int
main (int   argc,
      char *argv[])
{
  riv_ui_test_init (&argc, &argv);

  g_test_add ("/ui/login/dialog", Fixture, NULL, fixture_setup, test_login, fixture_teardown);
  g_test_add ("/ui/login/cancel", Fixture, NULL, fixture_setup, test_cancel, fixture_teardown);

  return g_test_run ();
}
