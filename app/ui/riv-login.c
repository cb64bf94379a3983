/* riv-login.c
 * Copyright 2026 The Rivulet authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "config.h"

#include <adwaita.h>
#include <glib/gi18n.h>
#include <libsecret/secret.h>
#include <string.h>

#include "riv-login.h"

void
riv_login_free (RivLogin *login)
{
  if (login == NULL)
    return;
  g_free (login->user);
  if (login->password != NULL)
    {
      explicit_bzero (login->password, strlen (login->password));
      g_free (login->password);
    }
  g_free (login);
}

static RivLogin *
login_new (const char *user,
           const char *password,
           gboolean    remember)
{
  RivLogin *login = g_new0 (RivLogin, 1);

  login->user = g_strdup (user);
  login->password = g_strdup (password);
  login->remember = remember;
  return login;
}

/* The dialog ------------------------------------------------------------------------ */

/* AdwAlertDialog on libadwaita 1.5 and later, AdwMessageDialog before: the same calls. */
#if ADW_CHECK_VERSION (1, 5, 0)
typedef AdwAlertDialog RivAlert;
#define RIV_ALERT(w)        ADW_ALERT_DIALOG (w)
#define RIV_ALERT_CALL(f)   adw_alert_dialog_##f
#else
typedef AdwMessageDialog RivAlert;
#define RIV_ALERT(w)        ADW_MESSAGE_DIALOG (w)
#define RIV_ALERT_CALL(f)   adw_message_dialog_##f
#endif

typedef struct
{
  GtkEditable *user;
  GtkEditable *password;
  GtkCheckButton *remember;
} Prompt;

static void
prompt_entries_changed_cb (GtkEditable *editable,
                           gpointer     user_data)
{
  RivAlert *dialog = user_data;
  Prompt *prompt = g_object_get_data (G_OBJECT (dialog), "riv-prompt");

  RIV_ALERT_CALL (set_response_enabled) (dialog, "log-in",
                                         *gtk_editable_get_text (prompt->user) != '\0');
}

static void
prompt_response_cb (RivAlert   *dialog,
                    const char *response,
                    gpointer    user_data)
{
  g_autoptr(GTask) task = user_data;
  Prompt *prompt = g_object_get_data (G_OBJECT (dialog), "riv-prompt");

  /* One answer: closing the dialog afterwards is no second one. */
  g_signal_handlers_disconnect_by_func (dialog, prompt_response_cb, user_data);
  if (g_strcmp0 (response, "log-in") == 0)
    g_task_return_pointer (task,
                           login_new (gtk_editable_get_text (prompt->user),
                                      gtk_editable_get_text (prompt->password),
                                      gtk_check_button_get_active (prompt->remember)),
                           (GDestroyNotify) riv_login_free);
  else
    g_task_return_pointer (task, NULL, NULL);
}

static void
prompt_cancelled_cb (GCancellable *cancellable,
                     gpointer      user_data)
{
#if ADW_CHECK_VERSION (1, 5, 0)
  adw_dialog_force_close (ADW_DIALOG (user_data));
#else
  gtk_window_close (GTK_WINDOW (user_data));
#endif
}

void
riv_login_prompt_async (GtkWindow           *parent,
                        const char          *url,
                        const char          *user,
                        gboolean             failed,
                        GCancellable        *cancellable,
                        GAsyncReadyCallback  callback,
                        gpointer             user_data)
{
  GTask *task = g_task_new (NULL, cancellable, callback, user_data);
  g_autoptr(GUri) uri = g_uri_parse (url, G_URI_FLAGS_NONE, NULL);
  const char *host = uri != NULL && g_uri_get_host (uri) != NULL ? g_uri_get_host (uri) : url;
  GtkWidget *dialog, *list, *box, *user_row, *password_row, *remember;
  Prompt *prompt = g_new0 (Prompt, 1);
  g_autofree char *heading = g_strdup_printf (_("Log In to %s"), host);
  const char *body;

  g_task_set_source_tag (task, riv_login_prompt_async);

  body = failed ? _("The server did not accept the user name and password. Try again.")
                : _("This Gradio app asks for a user name and password.");
#if ADW_CHECK_VERSION (1, 5, 0)
  dialog = GTK_WIDGET (adw_alert_dialog_new (heading, body));
#else
  dialog = adw_message_dialog_new (parent, heading, body);
#endif
  RIV_ALERT_CALL (add_responses) (RIV_ALERT (dialog),
                                  "cancel", _("_Cancel"),
                                  "log-in", _("_Log In"),
                                  NULL);
  RIV_ALERT_CALL (set_response_appearance) (RIV_ALERT (dialog), "log-in", ADW_RESPONSE_SUGGESTED);
  RIV_ALERT_CALL (set_default_response) (RIV_ALERT (dialog), "log-in");
  RIV_ALERT_CALL (set_close_response) (RIV_ALERT (dialog), "cancel");

  box = gtk_box_new (GTK_ORIENTATION_VERTICAL, 12);
  list = gtk_list_box_new ();
  gtk_list_box_set_selection_mode (GTK_LIST_BOX (list), GTK_SELECTION_NONE);
  gtk_widget_add_css_class (list, "boxed-list");
  user_row = adw_entry_row_new ();
  adw_preferences_row_set_title (ADW_PREFERENCES_ROW (user_row), _("User Name"));
  gtk_editable_set_text (GTK_EDITABLE (user_row), user != NULL ? user : "");
  password_row = adw_password_entry_row_new ();
  adw_preferences_row_set_title (ADW_PREFERENCES_ROW (password_row), _("Password"));
  adw_entry_row_set_activates_default (ADW_ENTRY_ROW (password_row), TRUE);
  gtk_list_box_append (GTK_LIST_BOX (list), user_row);
  gtk_list_box_append (GTK_LIST_BOX (list), password_row);
  remember = gtk_check_button_new_with_mnemonic (_("_Remember the password"));
  gtk_widget_set_tooltip_text (remember, _("Kept in your keyring for this server"));
  gtk_box_append (GTK_BOX (box), list);
  gtk_box_append (GTK_BOX (box), remember);
  RIV_ALERT_CALL (set_extra_child) (RIV_ALERT (dialog), box);

  prompt->user = GTK_EDITABLE (user_row);
  prompt->password = GTK_EDITABLE (password_row);
  prompt->remember = GTK_CHECK_BUTTON (remember);
  g_object_set_data_full (G_OBJECT (dialog), "riv-prompt", prompt, g_free);
  g_signal_connect (user_row, "changed", G_CALLBACK (prompt_entries_changed_cb), dialog);
  prompt_entries_changed_cb (prompt->user, dialog);

  g_signal_connect (dialog, "response", G_CALLBACK (prompt_response_cb), task);
  if (cancellable != NULL)
    g_signal_connect_object (cancellable, "cancelled", G_CALLBACK (prompt_cancelled_cb), dialog,
                             0);
#if ADW_CHECK_VERSION (1, 5, 0)
  adw_dialog_set_focus (ADW_DIALOG (dialog), user != NULL && *user != '\0' ? password_row : user_row);
  adw_dialog_present (ADW_DIALOG (dialog), parent != NULL ? GTK_WIDGET (parent) : NULL);
#else
  gtk_widget_grab_focus (user != NULL && *user != '\0' ? password_row : user_row);
  gtk_window_present (GTK_WINDOW (dialog));
#endif
}

RivLogin *
riv_login_prompt_finish (GAsyncResult  *result,
                         GError       **error)
{
  g_return_val_if_fail (g_task_is_valid (result, NULL), NULL);

  return g_task_propagate_pointer (G_TASK (result), error);
}

/* The keyring ----------------------------------------------------------------------- */

static const SecretSchema *
login_schema (void)
{
  static const SecretSchema schema = {
    "io.github.rivulet.Rivulet.Login", SECRET_SCHEMA_NONE,
    {
      { "server", SECRET_SCHEMA_ATTRIBUTE_STRING },
      { "user", SECRET_SCHEMA_ATTRIBUTE_STRING },
      { NULL, 0 },
    },
    0, NULL, NULL, NULL, NULL, NULL, NULL, NULL
  };

  return &schema;
}

static void
lookup_secret_cb (GObject      *object,
                  GAsyncResult *result,
                  gpointer      user_data)
{
  g_autoptr(GTask) task = user_data;
  g_autoptr(GError) error = NULL;
  g_autoptr(SecretValue) value = secret_retrievable_retrieve_secret_finish (
    SECRET_RETRIEVABLE (object), result, &error);
  g_autoptr(GHashTable) attributes = secret_retrievable_get_attributes (SECRET_RETRIEVABLE (object));
  const char *password = value != NULL ? secret_value_get_text (value) : NULL;

  if (password == NULL)
    {
      g_debug ("No login kept: %s", error != NULL ? error->message : "not text");
      g_task_return_pointer (task, NULL, NULL);
      return;
    }
  g_task_return_pointer (task, login_new (g_hash_table_lookup (attributes, "user"), password, TRUE),
                         (GDestroyNotify) riv_login_free);
}

static void
lookup_search_cb (GObject      *object,
                  GAsyncResult *result,
                  gpointer      user_data)
{
  g_autoptr(GTask) task = user_data;
  g_autoptr(GError) error = NULL;
  GList *found = secret_password_search_finish (result, &error);

  if (found == NULL)
    {
      /* No keyring (no Secret Service on the bus) reads as nothing kept. */
      if (error != NULL)
        g_debug ("No keyring for logins: %s", error->message);
      g_task_return_pointer (task, NULL, NULL);
      return;
    }
  secret_retrievable_retrieve_secret (found->data, g_task_get_cancellable (task),
                                      lookup_secret_cb, g_steal_pointer (&task));
  g_list_free_full (found, g_object_unref);
}

void
riv_login_lookup_async (const char          *url,
                        GCancellable        *cancellable,
                        GAsyncReadyCallback  callback,
                        gpointer             user_data)
{
  GTask *task = g_task_new (NULL, cancellable, callback, user_data);

  g_task_set_source_tag (task, riv_login_lookup_async);
  secret_password_search (login_schema (), SECRET_SEARCH_UNLOCK, cancellable, lookup_search_cb,
                          task, "server", url, NULL);
}

RivLogin *
riv_login_lookup_finish (GAsyncResult  *result,
                         GError       **error)
{
  g_return_val_if_fail (g_task_is_valid (result, NULL), NULL);

  return g_task_propagate_pointer (G_TASK (result), error);
}

static void
store_cb (GObject      *object,
          GAsyncResult *result,
          gpointer      user_data)
{
  g_autoptr(GTask) task = user_data;
  GError *error = NULL;

  if (secret_password_store_finish (result, &error))
    g_task_return_boolean (task, TRUE);
  else
    g_task_return_error (task, error);
}

static void
clear_cb (GObject      *object,
          GAsyncResult *result,
          gpointer      user_data)
{
  g_autoptr(GTask) task = user_data;
  const RivLogin *login = g_task_get_task_data (task);
  g_autofree char *label = NULL;
  const char *url = g_object_get_data (G_OBJECT (task), "riv-url");

  /* One login per server: what was kept before is replaced. */
  secret_password_clear_finish (result, NULL);
  label = g_strdup_printf (_("Rivulet login for %s at %s"), login->user, url);
  secret_password_store (login_schema (), SECRET_COLLECTION_DEFAULT, label, login->password,
                         g_task_get_cancellable (task), store_cb, g_object_ref (task),
                         "server", url, "user", login->user, NULL);
}

void
riv_login_store_async (const char          *url,
                       const RivLogin      *login,
                       GCancellable        *cancellable,
                       GAsyncReadyCallback  callback,
                       gpointer             user_data)
{
  GTask *task = g_task_new (NULL, cancellable, callback, user_data);

  g_task_set_source_tag (task, riv_login_store_async);
  g_task_set_task_data (task, login_new (login->user, login->password, TRUE),
                        (GDestroyNotify) riv_login_free);
  g_object_set_data_full (G_OBJECT (task), "riv-url", g_strdup (url), g_free);
  secret_password_clear (login_schema (), cancellable, clear_cb, task, "server", url, NULL);
}

gboolean
riv_login_store_finish (GAsyncResult  *result,
                        GError       **error)
{
  g_return_val_if_fail (g_task_is_valid (result, NULL), FALSE);

  return g_task_propagate_boolean (G_TASK (result), error);
}
