/* test-ui-app.c
 * Copyright 2026 The Rivulet authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The GNOME integration of the app: the shortcuts window lists every
 * accelerator the app installs, the primary menu, preferences bound to
 * GSettings (recent servers cleared), the About window and its debug info,
 * window size persistence, copy/save/drag of outputs, and the decision to
 * send one summarising notification per burst while in the background.
 */
#include "config.h"

#include <adwaita.h>
#include <glib/gstdio.h>

#include "riv-about.h"
#include "riv-application-test.h"
#include "riv-json.h"
#include "riv-notification.h"
#include "riv-preferences-window-test.h"
#include "riv-test-util.h"
#include "riv-ui-test-util.h"
#include "riv-window-private.h"

/* Helpers */

static void
collect_widgets (GtkWidget  *widget,
                 GType       type,
                 GPtrArray  *out)
{
  if (G_TYPE_CHECK_INSTANCE_TYPE (widget, type))
    g_ptr_array_add (out, widget);
  for (GtkWidget *child = gtk_widget_get_first_child (widget); child != NULL;
       child = gtk_widget_get_next_sibling (child))
    collect_widgets (child, type, out);
}

static GtkWidget *
find_button_for_action (GtkWidget  *root,
                        const char *action_name)
{
  g_autoptr(GPtrArray) buttons = g_ptr_array_new ();

  collect_widgets (root, GTK_TYPE_BUTTON, buttons);
  for (guint i = 0; i < buttons->len; i++)
    if (g_strcmp0 (gtk_actionable_get_action_name (buttons->pdata[i]), action_name) == 0)
      return buttons->pdata[i];
  return NULL;
}

static gboolean
pointer_is_null (gpointer user_data)
{
  return *(gpointer *) user_data == NULL;
}

static gboolean
pointer_is_set (gpointer user_data)
{
  return *(gpointer *) user_data != NULL;
}

static void
destroy_window (GtkWindow *window)
{
  gpointer weak = window;

  g_object_add_weak_pointer (G_OBJECT (window), &weak);
  gtk_window_close (window);
  if (weak != NULL)
    gtk_window_destroy (window);
  g_assert_true (riv_test_wait_until (pointer_is_null, &weak, 30));
}

typedef struct
{
  guint keyval;
  GdkModifierType mods;
} Accel;

static Accel
parse_accel (const char *text)
{
  Accel accel = { 0, 0 };

  g_assert_true (gtk_accelerator_parse (text, &accel.keyval, &accel.mods));
  return accel;
}

static gboolean
accel_in (Accel        accel,
          const char  *const *texts)
{
  for (guint i = 0; texts != NULL && texts[i] != NULL; i++)
    {
      Accel other = parse_accel (texts[i]);

      if (other.keyval == accel.keyval && other.mods == accel.mods)
        return TRUE;
    }
  return FALSE;
}

/* An application that is registered (startup ran: accelerators, help
 * overlay, styles, icons) but never runs a command line. One per process:
 * it stays exported on the session bus. */
static RivApplication *
get_registered_application (void)
{
  static RivApplication *app;

  if (app == NULL)
    {
      g_autoptr(GError) error = NULL;

      app = riv_application_new ();
      g_application_set_flags (G_APPLICATION (app),
                               G_APPLICATION_HANDLES_COMMAND_LINE | G_APPLICATION_NON_UNIQUE);
      g_application_register (G_APPLICATION (app), NULL, &error);
      g_assert_no_error (error);
    }
  return app;
}

/* Shortcuts window and menu */

/* Each shortcut the app lists, as (action name or NULL, accelerator or NULL)
 * pairs in out: the AdwShortcutsDialog's items on libadwaita 1.8 and later,
 * else the window's GtkShortcutsWindow. */
static void
collect_listed_shortcuts (RivWindow *window,
                          GPtrArray *out)
{
#if ADW_CHECK_VERSION (1, 8, 0)
  g_autoptr(GtkBuilder) builder =
    gtk_builder_new_from_resource ("/io/github/rivulet/Rivulet/shortcuts-dialog.ui");
  g_autoptr(GSList) objects = gtk_builder_get_objects (builder);

  g_assert_true (ADW_IS_SHORTCUTS_DIALOG (gtk_builder_get_object (builder, "shortcuts_dialog")));
  g_assert_null (gtk_application_window_get_help_overlay (GTK_APPLICATION_WINDOW (window)));
  for (GSList *l = objects; l != NULL; l = l->next)
    if (ADW_IS_SHORTCUTS_ITEM (l->data))
      {
        /* An item reads "" for what it was not given. */
        const char *action = adw_shortcuts_item_get_action_name (l->data);
        const char *accelerator = adw_shortcuts_item_get_accelerator (l->data);

        g_ptr_array_add (out, action != NULL && *action != '\0' ? g_strdup (action) : NULL);
        g_ptr_array_add (out, accelerator != NULL && *accelerator != '\0'
                              ? g_strdup (accelerator) : NULL);
      }
#else
  GtkShortcutsWindow *overlay =
    gtk_application_window_get_help_overlay (GTK_APPLICATION_WINDOW (window));
  g_autoptr(GPtrArray) shortcuts = g_ptr_array_new ();

  g_assert_nonnull (overlay);
  collect_widgets (GTK_WIDGET (overlay), GTK_TYPE_SHORTCUTS_SHORTCUT, shortcuts);
  for (guint i = 0; i < shortcuts->len; i++)
    {
      char *action = NULL;
      char *accelerator = NULL;

      g_object_get (shortcuts->pdata[i], "action-name", &action, "accelerator", &accelerator, NULL);
      g_ptr_array_add (out, action);
      g_ptr_array_add (out, accelerator);
    }
#endif
}

/* The action that shows the keyboard shortcuts. */
#if ADW_CHECK_VERSION (1, 8, 0)
#define SHORTCUTS_ACTION "app.shortcuts"
#else
#define SHORTCUTS_ACTION "win.show-help-overlay"
#endif

static void
test_shortcuts_complete (void)
{
  RivApplication *app = get_registered_application ();
  RivWindow *window = riv_window_new (GTK_APPLICATION (app), NULL);
  g_auto(GStrv) described = gtk_application_list_action_descriptions (GTK_APPLICATION (app));
  g_autoptr(GPtrArray) listed = g_ptr_array_new_with_free_func (g_free);
  g_autoptr(GPtrArray) overlay_actions = g_ptr_array_new_with_free_func (g_free);
  g_autoptr(GStrvBuilder) overlay_accels_builder = g_strv_builder_new ();
  g_auto(GStrv) overlay_accels = NULL;
  g_autoptr(GListModel) controllers = NULL;
  guint n_bindings = 0;

  collect_listed_shortcuts (window, listed);
  g_assert_cmpuint (listed->len / 2, >=, 10);
  for (guint i = 0; i < listed->len; i += 2)
    {
      const char *action = listed->pdata[i];
      const char *accelerator = listed->pdata[i + 1];

      if (action != NULL)
        {
          g_auto(GStrv) accels = gtk_application_get_accels_for_action (GTK_APPLICATION (app),
                                                                          action);

          /* A shortcut named by action shows that action's accelerators: it has some. */
          g_test_message ("listed: %s", action);
          g_assert_cmpuint (g_strv_length (accels), >, 0);
          g_ptr_array_add (overlay_actions, g_strdup (action));
        }
      else
        {
          g_auto(GStrv) parts = NULL;

          g_assert_nonnull (accelerator);
          parts = g_strsplit (accelerator, " ", -1);
          for (guint j = 0; parts[j] != NULL; j++)
            g_strv_builder_add (overlay_accels_builder, parts[j]);
        }
    }
  g_ptr_array_add (overlay_actions, NULL);
  overlay_accels = g_strv_builder_end (overlay_accels_builder);

  /* Every application accelerator is listed. */
  for (guint i = 0; described[i] != NULL; i++)
    {
      g_auto(GStrv) accels = gtk_application_get_accels_for_action (GTK_APPLICATION (app),
                                                                      described[i]);

      if (accels[0] == NULL)
        continue;
      g_test_message ("application accelerator for %s: %s", described[i], accels[0]);
      g_assert_true (g_strv_contains ((const char * const *) overlay_actions->pdata, described[i]));
    }

  /* Every key binding of the window class is listed, either through its
   * action's accelerators or by the accelerator itself. */
  controllers = gtk_widget_observe_controllers (GTK_WIDGET (window));
  for (guint i = 0; i < g_list_model_get_n_items (controllers); i++)
    {
      g_autoptr(GObject) controller = g_list_model_get_item (controllers, i);

      if (!GTK_IS_SHORTCUT_CONTROLLER (controller))
        continue;
      for (guint j = 0; j < g_list_model_get_n_items (G_LIST_MODEL (controller)); j++)
        {
          g_autoptr(GtkShortcut) shortcut = g_list_model_get_item (G_LIST_MODEL (controller), j);
          GtkShortcutAction *action = gtk_shortcut_get_action (shortcut);
          GtkShortcutTrigger *trigger = gtk_shortcut_get_trigger (shortcut);
          const char *name;
          g_auto(GStrv) accels = NULL;
          g_autofree char *trigger_text = NULL;
          Accel accel;

          if (!GTK_IS_NAMED_ACTION (action) || !GTK_IS_KEYVAL_TRIGGER (trigger))
            continue;
          name = gtk_named_action_get_action_name (GTK_NAMED_ACTION (action));
          if (!g_str_has_prefix (name, "win."))
            continue;

          accel.keyval = gtk_keyval_trigger_get_keyval (GTK_KEYVAL_TRIGGER (trigger));
          /* Newer GTK (4.24 here) binds the keypad's keys beside each Return
           * and Delete binding (KP_Enter, ISO_Enter, KP_Delete): the same keys
           * as the ones listed. */
          if (accel.keyval == GDK_KEY_ISO_Enter || accel.keyval == GDK_KEY_KP_Enter)
            accel.keyval = GDK_KEY_Return;
          else if (accel.keyval == GDK_KEY_KP_Delete)
            accel.keyval = GDK_KEY_Delete;
          accel.mods = gtk_keyval_trigger_get_modifiers (GTK_KEYVAL_TRIGGER (trigger));
          accels = gtk_application_get_accels_for_action (GTK_APPLICATION (app), name);
          trigger_text = gtk_shortcut_trigger_to_string (trigger);
          g_test_message ("binding %s → %s", trigger_text, name);
          n_bindings++;

          if (accel_in (accel, (const char * const *) accels))
            g_assert_true (g_strv_contains ((const char * const *) overlay_actions->pdata, name));
          else
            g_assert_true (accel_in (accel, (const char * const *) overlay_accels));
        }
    }
  g_assert_cmpuint (n_bindings, >=, 10);

  /* The GNOME standard ones. */
  {
    struct { const char *action; const char *accel; } expected[] = {
      { "app.preferences", "<Control>comma" },
      { SHORTCUTS_ACTION, "<Control>question" },
      { "app.quit", "<Control>q" },
      { "window.close", "<Control>w" },
    };

    for (guint i = 0; i < G_N_ELEMENTS (expected); i++)
      {
        g_auto(GStrv) accels = gtk_application_get_accels_for_action (GTK_APPLICATION (app),
                                                                        expected[i].action);

        g_assert_true (accel_in (parse_accel (expected[i].accel), (const char * const *) accels));
      }
  }

  destroy_window (GTK_WINDOW (window));
}

static void
collect_menu_actions (GMenuModel *model,
                      GPtrArray  *out)
{
  for (int i = 0; i < g_menu_model_get_n_items (model); i++)
    {
      g_autofree char *action = NULL;
      g_autoptr(GMenuModel) section = NULL;

      if (g_menu_model_get_item_attribute (model, i, G_MENU_ATTRIBUTE_ACTION, "s", &action))
        g_ptr_array_add (out, g_steal_pointer (&action));
      if ((section = g_menu_model_get_item_link (model, i, G_MENU_LINK_SECTION)) != NULL)
        collect_menu_actions (section, out);
    }
}

static void
test_primary_menu (void)
{
  RivWindow *window = riv_window_new (NULL, NULL);
  g_autoptr(GPtrArray) buttons = g_ptr_array_new ();
  g_autoptr(GPtrArray) actions = g_ptr_array_new_with_free_func (g_free);
  GtkMenuButton *primary = NULL;

  collect_widgets (GTK_WIDGET (window), GTK_TYPE_MENU_BUTTON, buttons);
  for (guint i = 0; i < buttons->len; i++)
    if (gtk_menu_button_get_primary (buttons->pdata[i]))
      primary = buttons->pdata[i];
  g_assert_nonnull (primary);
  g_assert_nonnull (gtk_menu_button_get_menu_model (primary));

  collect_menu_actions (gtk_menu_button_get_menu_model (primary), actions);
  g_ptr_array_add (actions, NULL);
  for (guint i = 0; i < 4; i++)
    {
      const char *expected[] = { "app.preferences", SHORTCUTS_ACTION, "app.about",
                                 "win.export" };

      g_assert_true (g_strv_contains ((const char * const *) actions->pdata, expected[i]));
    }

  destroy_window (GTK_WINDOW (window));
}

/* High contrast: riv-high-contrast.css goes on top of the app's style when
 * the desktop asks for it (libadwaita's ADW_DEBUG_HIGH_CONTRAST stands in for
 * the setting; it is read once, at adw_init (), so the case with it on runs
 * in a process of its own). */
static void
test_high_contrast (void)
{
  if (g_test_subprocess ())
    {
      g_assert_true (adw_style_manager_get_high_contrast (adw_style_manager_get_default ()));
      g_assert_true (riv_application_is_high_contrast_styled (get_registered_application ()));
      return;
    }

  g_assert_false (riv_application_is_high_contrast_styled (get_registered_application ()));
  g_setenv ("ADW_DEBUG_HIGH_CONTRAST", "1", TRUE);
  g_test_trap_subprocess (NULL, 30 * G_USEC_PER_SEC, G_TEST_SUBPROCESS_DEFAULT);
  g_unsetenv ("ADW_DEBUG_HIGH_CONTRAST");
  g_test_trap_assert_passed ();
}

/* Preferences */

static void
test_preferences (void)
{
  g_autoptr(GSettings) settings = g_settings_new (APP_ID);
  const char *urls[] = { "http://127.0.0.1:7860/", "https://example.org/app/", NULL };
  RivPreferencesWindow *prefs;
#if ADW_CHECK_VERSION (1, 5, 0)
  GtkWidget *host;
#endif
  g_autoptr(GPtrArray) widgets = g_ptr_array_new ();
  GtkWidget *clear_button;
  GtkSwitch *notifications = NULL;
  AdwEntryRow *last_row = NULL;
  AdwEntryRow *metrics_row = NULL;
  GtkWidget *placeholder = NULL;

  g_settings_set_strv (settings, "recent-urls", urls);
  g_settings_set_boolean (settings, "notifications", TRUE);
  g_settings_set_boolean (settings, "start-embedded-server", TRUE);

  prefs = RIV_PREFERENCES_WINDOW (riv_preferences_window_new (NULL));
#if ADW_CHECK_VERSION (1, 5, 0)
  /* The dialog shows over a window (AdwPreferencesDialog, libadwaita 1.5+). */
  host = gtk_window_new ();
  gtk_window_present (GTK_WINDOW (host));
  riv_dialog_present (GTK_WIDGET (prefs), GTK_WINDOW (host));
#else
  gtk_window_present (GTK_WINDOW (prefs));
#endif
  g_assert_cmpuint (riv_preferences_window_get_n_recent (prefs), ==, 2);

  /* Clearing the recent servers empties the setting and the list. */
  clear_button = find_button_for_action (GTK_WIDGET (prefs), "preferences.clear-recent-servers");
  g_assert_nonnull (clear_button);
  g_assert_true (gtk_widget_is_sensitive (clear_button));
  /* Clicked, as a user does. */
  g_signal_emit_by_name (clear_button, "clicked");
  {
    g_auto(GStrv) now = g_settings_get_strv (settings, "recent-urls");

    g_assert_cmpuint (g_strv_length (now), ==, 0);
  }
  g_assert_cmpuint (riv_preferences_window_get_n_recent (prefs), ==, 0);
  g_assert_false (gtk_widget_is_sensitive (clear_button));
  /* The empty list says so. */
  collect_widgets (GTK_WIDGET (prefs), GTK_TYPE_LABEL, widgets);
  for (guint i = 0; i < widgets->len; i++)
    if (g_strcmp0 (gtk_label_get_text (widgets->pdata[i]), "No recent servers") == 0)
      placeholder = widgets->pdata[i];
  g_assert_nonnull (placeholder);
  g_assert_true (gtk_widget_get_mapped (placeholder));
  g_ptr_array_set_size (widgets, 0);

  /* A server remembered elsewhere shows up. */
  g_settings_set_strv (settings, "recent-urls", urls);
  g_assert_cmpuint (riv_preferences_window_get_n_recent (prefs), ==, 2);

  /* The switches write their keys. */
  collect_widgets (GTK_WIDGET (prefs), GTK_TYPE_SWITCH, widgets);
  g_assert_cmpuint (widgets->len, ==, 2);
  for (guint i = 0; i < widgets->len; i++)
    {
      GtkWidget *row = gtk_widget_get_ancestor (widgets->pdata[i], ADW_TYPE_ACTION_ROW);

      if (g_str_has_prefix (adw_preferences_row_get_title (ADW_PREFERENCES_ROW (row)), "_Notify"))
        notifications = widgets->pdata[i];
    }
  g_assert_nonnull (notifications);
  g_assert_true (gtk_switch_get_active (notifications));
  gtk_switch_set_active (notifications, FALSE);
  g_assert_false (g_settings_get_boolean (settings, "notifications"));
  g_settings_set_boolean (settings, "notifications", TRUE);
  g_assert_true (gtk_switch_get_active (notifications));

  /* The last server is only used without the embedded one. */
  g_ptr_array_set_size (widgets, 0);
  collect_widgets (GTK_WIDGET (prefs), ADW_TYPE_ENTRY_ROW, widgets);
  g_assert_cmpuint (widgets->len, ==, 2);
  for (guint i = 0; i < widgets->len; i++)
    {
      const char *title = adw_preferences_row_get_title (widgets->pdata[i]);

      if (g_str_has_prefix (title, "_Last"))
        last_row = widgets->pdata[i];
      else if (strstr (title, "Metrics") != NULL)
        metrics_row = widgets->pdata[i];
    }
  g_assert_nonnull (last_row);
  /* The Load Test's metrics address (load --metrics) is written as typed. */
  g_assert_nonnull (metrics_row);
  gtk_editable_set_text (GTK_EDITABLE (metrics_row), "127.0.0.1:9464");
  {
    g_autofree char *address = g_settings_get_string (settings, "metrics-address");

    g_assert_cmpstr (address, ==, "127.0.0.1:9464");
  }
  g_settings_reset (settings, "metrics-address");
  g_assert_false (gtk_widget_get_sensitive (GTK_WIDGET (last_row)));
  g_settings_set_boolean (settings, "start-embedded-server", FALSE);
  g_assert_true (gtk_widget_get_sensitive (GTK_WIDGET (last_row)));
  gtk_editable_set_text (GTK_EDITABLE (last_row), "  http://10.0.0.2:7860/ ");
  g_signal_emit_by_name (last_row, "apply");
  {
    g_autofree char *last = g_settings_get_string (settings, "last-server-url");

    g_assert_cmpstr (last, ==, "http://10.0.0.2:7860/");
  }

  /* Burst defaults: the preferences and the window's controls share the key. */
  g_ptr_array_set_size (widgets, 0);
  collect_widgets (GTK_WIDGET (prefs), GTK_TYPE_SPIN_BUTTON, widgets);
  g_assert_cmpuint (widgets->len, ==, 2);
  for (guint i = 0; i < widgets->len; i++)
    if (gtk_spin_button_get_digits (widgets->pdata[i]) == 0)
      gtk_spin_button_set_value (widgets->pdata[i], 250);
  g_assert_cmpint (g_settings_get_int (settings, "burst-count"), ==, 250);

  g_settings_set_boolean (settings, "start-embedded-server", TRUE);
  g_settings_set_string (settings, "last-server-url", "");
  g_settings_reset (settings, "burst-count");
#if ADW_CHECK_VERSION (1, 5, 0)
  {
    gpointer weak = prefs;

    g_object_add_weak_pointer (G_OBJECT (prefs), &weak);
    adw_dialog_force_close (ADW_DIALOG (prefs));
    g_assert_true (riv_test_wait_until (pointer_is_null, &weak, 30));
  }
  destroy_window (GTK_WINDOW (host));
#else
  destroy_window (GTK_WINDOW (prefs));
#endif
}

static void
test_window_size_persisted (void)
{
  g_autoptr(GSettings) settings = g_settings_new (APP_ID);
  RivWindow *window = riv_window_new (NULL, NULL);
  int width, height;

  gtk_window_set_default_size (GTK_WINDOW (window), 1111, 777);
  gtk_window_present (GTK_WINDOW (window));
  destroy_window (GTK_WINDOW (window));

  g_assert_cmpint (g_settings_get_int (settings, "window-width"), ==, 1111);
  g_assert_cmpint (g_settings_get_int (settings, "window-height"), ==, 777);
  g_assert_false (g_settings_get_boolean (settings, "window-maximized"));

  /* The next window opens at that size. */
  window = riv_window_new (NULL, NULL);
  gtk_window_get_default_size (GTK_WINDOW (window), &width, &height);
  g_assert_cmpint (width, ==, 1111);
  g_assert_cmpint (height, ==, 777);
  destroy_window (GTK_WINDOW (window));

  g_settings_reset (settings, "window-width");
  g_settings_reset (settings, "window-height");
}

/* Notifications: the decision, without a notification daemon */

static void
test_notice_burst_decision (void)
{
  RivBurstTally tally = { 0 };
  g_autoptr(RivNotice) notice = NULL;

  tally.n_submitted = 500;
  for (guint i = 0; i < 498; i++)
    riv_outcomes_add (&tally.outcomes, RIV_JOB_STATUS_COMPLETED);
  riv_outcomes_add (&tally.outcomes, RIV_JOB_STATUS_FAILED);

  /* 499 of 500 finished: not yet. */
  g_assert_null (riv_notice_for_burst (&tally, FALSE, TRUE, FALSE));
  riv_outcomes_add (&tally.outcomes, RIV_JOB_STATUS_FAILED);
  g_assert_cmpuint (riv_outcomes_finished (&tally.outcomes), ==, 500);

  /* Still submitting, notifications off, or the window in front: none. */
  g_assert_null (riv_notice_for_burst (&tally, TRUE, TRUE, FALSE));
  g_assert_null (riv_notice_for_burst (&tally, FALSE, FALSE, FALSE));
  g_assert_null (riv_notice_for_burst (&tally, FALSE, TRUE, TRUE));

  notice = riv_notice_for_burst (&tally, FALSE, TRUE, FALSE);
  g_assert_nonnull (notice);
  g_assert_cmpstr (notice->id, ==, "burst-finished");
  g_assert_cmpstr (notice->title, ==, "Burst of 500 jobs finished");
  g_assert_cmpstr (notice->body, ==, "498 done, 2 failed");

  /* Every outcome is named; zero counts other than "done" are left out. */
  {
    RivBurstTally mixed = { 4, { 1, 0, 2, 1 } };
    g_autoptr(RivNotice) other = riv_notice_for_burst (&mixed, FALSE, TRUE, FALSE);
    g_autoptr(GNotification) notification = NULL;

    g_assert_cmpstr (other->body, ==, "1 done, 2 cancelled, 1 lost");
    notification = riv_notice_to_notification (other);
    g_assert_true (G_IS_NOTIFICATION (notification));
  }

  /* An empty burst (refused at once) says nothing. */
  {
    RivBurstTally empty = { 0 };

    g_assert_null (riv_notice_for_burst (&empty, FALSE, TRUE, FALSE));
  }
}

static void
test_notice_job_decision (void)
{
  g_autoptr(RivNotice) done = NULL;
  g_autoptr(RivNotice) failed = NULL;

  /* Short jobs, jobs of a burst, cancelled ones, or in front: none. */
  g_assert_null (riv_notice_for_job (3, "/fake_diffusion", RIV_JOB_STATUS_COMPLETED, NULL,
                                     9.5, FALSE, TRUE, FALSE));
  g_assert_null (riv_notice_for_job (3, "/fake_diffusion", RIV_JOB_STATUS_COMPLETED, NULL,
                                     30, TRUE, TRUE, FALSE));
  g_assert_null (riv_notice_for_job (3, "/fake_diffusion", RIV_JOB_STATUS_CANCELLED, NULL,
                                     30, FALSE, TRUE, FALSE));
  g_assert_null (riv_notice_for_job (3, "/fake_diffusion", RIV_JOB_STATUS_COMPLETED, NULL,
                                     30, FALSE, TRUE, TRUE));
  g_assert_null (riv_notice_for_job (3, "/fake_diffusion", RIV_JOB_STATUS_COMPLETED, NULL,
                                     30, FALSE, FALSE, FALSE));
  g_assert_null (riv_notice_for_job (3, "/fake_diffusion", RIV_JOB_STATUS_RUNNING, NULL,
                                     30, FALSE, TRUE, FALSE));

  done = riv_notice_for_job (3, "/fake_diffusion", RIV_JOB_STATUS_COMPLETED, NULL,
                             12.34, FALSE, TRUE, FALSE);
  g_assert_cmpstr (done->id, ==, "job-finished");
  g_assert_cmpstr (done->title, ==, "Job #3 finished");
  g_assert_cmpstr (done->body, ==, "/fake_diffusion completed in 12.3 s");

  failed = riv_notice_for_job (4, "/stream_text", RIV_JOB_STATUS_FAILED, "out of memory",
                               11, FALSE, TRUE, FALSE);
  g_assert_cmpstr (failed->title, ==, "Job #4 failed");
  g_assert_cmpstr (failed->body, ==, "/stream_text: out of memory");
}

/* Tests on the real window, connected to the embedded server */

typedef struct
{
  RivEmbeddedServer *server;
  RivWindow         *window;
} Fixture;

static gboolean
is_connected (gpointer user_data)
{
  Fixture *fixture = user_data;

  return riv_window_get_client (fixture->window) != NULL;
}

static void
fixture_setup (Fixture       *fixture,
               gconstpointer  user_data)
{
  fixture->server = riv_embedded_server_new ();
  riv_embedded_server_set_concurrency (fixture->server, 1);
  fixture->window = riv_window_new (NULL, fixture->server);
  gtk_window_present (GTK_WINDOW (fixture->window));

  riv_window_connect_embedded (fixture->window);
  g_assert_true (riv_test_wait_until (is_connected, fixture, 60));
}

static void
fixture_teardown (Fixture       *fixture,
                  gconstpointer  user_data)
{
  destroy_window (GTK_WINDOW (fixture->window));
  riv_embedded_server_stop (fixture->server);
  g_assert_finalize_object (fixture->server);
}

static void
set_data (RivWindow  *window,
          const char *json)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonNode) data = riv_json_parse (NULL, json, -1, 0, &error);

  g_assert_no_error (error);
  riv_form_set_data (riv_window_get_form (window), data, &error);
  g_assert_no_error (error);
}

static void
test_about_debug_info (Fixture       *fixture,
                       gconstpointer  user_data)
{
  RivClient *client = riv_window_get_client (fixture->window);
  RivConfig *config = riv_client_get_config (client);
  g_autofree char *info = riv_about_dup_debug_info (client);
  g_autofree char *offline = riv_about_dup_debug_info (NULL);
  g_autofree char *gtk_line = g_strdup_printf ("GTK %u.%u.%u", gtk_get_major_version (),
                                               gtk_get_minor_version (), gtk_get_micro_version ());
  g_autofree char *adw_line = g_strdup_printf ("libadwaita %u.%u.%u", adw_get_major_version (),
                                               adw_get_minor_version (), adw_get_micro_version ());
  g_autofree char *url_line = g_strdup_printf ("URL: %s", riv_client_get_url (client));
  g_autofree char *protocol_line = g_strdup_printf ("Protocol: %s",
                                                    riv_config_get_protocol (config));
  g_autofree char *version_line = NULL;
  GtkWidget *about;

  g_test_message ("%s", info);
  g_assert_nonnull (strstr (info, "Rivulet " PACKAGE_VERSION));
  g_assert_nonnull (strstr (info, gtk_line));
  g_assert_nonnull (strstr (info, adw_line));
  g_assert_nonnull (strstr (info, "libsoup 3."));
  g_assert_nonnull (strstr (info, "json-glib 1."));
  g_assert_nonnull (strstr (info, "GLib 2."));
  g_assert_nonnull (strstr (info, url_line));
  g_assert_nonnull (strstr (info, protocol_line));
  g_assert_nonnull (riv_config_get_version (config));
  version_line = g_strdup_printf ("Gradio version: %s", riv_config_get_version (config));
  g_assert_nonnull (strstr (info, version_line));
  g_assert_nonnull (strstr (offline, "not connected"));
  g_assert_null (strstr (offline, "URL: "));

  about = riv_about_window_new (GTK_WINDOW (fixture->window), client);
  /* The same checks on AdwAboutDialog (libadwaita 1.5+) and AdwAboutWindow. */
#if ADW_CHECK_VERSION (1, 5, 0)
#define ABOUT_GET(f) adw_about_dialog_get_##f (ADW_ABOUT_DIALOG (about))
  g_assert_true (ADW_IS_ABOUT_DIALOG (about));
#else
#define ABOUT_GET(f) adw_about_window_get_##f (ADW_ABOUT_WINDOW (about))
  g_assert_true (ADW_IS_ABOUT_WINDOW (about));
#endif
  g_assert_cmpstr (ABOUT_GET (application_icon), ==, APP_ID);
  g_assert_cmpstr (ABOUT_GET (version), ==, PACKAGE_VERSION);
  g_assert_cmpint (ABOUT_GET (license_type), ==, GTK_LICENSE_GPL_3_0);
  g_assert_cmpstr (ABOUT_GET (website), ==, RIV_WEBSITE);
  g_assert_cmpstr (ABOUT_GET (issue_url), ==, RIV_ISSUE_URL);
  g_assert_cmpstr (ABOUT_GET (debug_info), ==, info);
#undef ABOUT_GET
#if ADW_CHECK_VERSION (1, 5, 0)
  {
    gpointer weak = about;

    riv_dialog_present (about, GTK_WINDOW (fixture->window));
    g_assert_true (gtk_widget_get_mapped (about));
    g_object_add_weak_pointer (G_OBJECT (about), &weak);
    adw_dialog_force_close (ADW_DIALOG (about));
    g_assert_true (riv_test_wait_until (pointer_is_null, &weak, 30));
  }
#else
  riv_dialog_present (about, GTK_WINDOW (fixture->window));
  destroy_window (GTK_WINDOW (about));
#endif
}

static void
test_app_icon_in_resources (void)
{
  g_autoptr(GBytes) svg = NULL;
  GtkIconTheme *theme = gtk_icon_theme_get_for_display (gdk_display_get_default ());

  /* Startup of a registered application adds the resource icons. */
  g_assert_nonnull (get_registered_application ());

  svg = g_resources_lookup_data (RIV_RESOURCE_PATH "/icons/scalable/apps/" APP_ID ".svg", 0, NULL);
  g_assert_nonnull (svg);
  g_assert_cmpuint (g_bytes_get_size (svg), >, 100);
  /* GtkApplication put the resource path on the icon theme at startup. */
  g_assert_true (gtk_icon_theme_has_icon (theme, APP_ID));
}

typedef struct
{
  RivJobPanel *panel;
  guint        expected;
} PanelWait;

static gboolean
panel_all_finished (gpointer user_data)
{
  PanelWait *wait = user_data;

  riv_job_panel_flush (wait->panel);
  return riv_job_panel_get_count (wait->panel, RIV_BUCKET_DONE) +
         riv_job_panel_get_count (wait->panel, RIV_BUCKET_FAILED) +
         riv_job_panel_get_count (wait->panel, RIV_BUCKET_CANCELLED) +
         riv_job_panel_get_count (wait->panel, RIV_BUCKET_LOST) == wait->expected;
}

static void
test_burst_notification (Fixture       *fixture,
                         gconstpointer  user_data)
{
  RivWindow *window = fixture->window;
  PanelWait wait = { riv_window_get_job_panel (window), 12 };
  const RivNotice *notice;

  /* In the background: a burst of 12 gives exactly one notification. */
  riv_window_set_active_override (window, 0);
  g_assert_true (riv_window_select_endpoint (window, "batch_echo"));
  set_data (window, "[\"job {i}\", 0.02]");
  riv_window_set_burst (window, 12, 0);
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (window), "win.burst", NULL));
  g_assert_true (riv_test_wait_until (panel_all_finished, &wait, 120));

  g_assert_cmpuint (riv_window_get_n_notices (window), ==, 1);
  notice = riv_window_get_last_notice (window);
  g_assert_cmpstr (notice->title, ==, "Burst of 12 jobs finished");
  g_assert_cmpstr (notice->body, ==, "12 done");

  /* A short single job says nothing. */
  wait.expected = 13;
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (window), "win.submit", NULL));
  g_assert_true (riv_test_wait_until (panel_all_finished, &wait, 120));
  g_assert_cmpuint (riv_window_get_n_notices (window), ==, 1);

  /* In front, the next burst does not notify. */
  riv_window_set_active_override (window, 1);
  riv_window_set_burst (window, 5, 0);
  wait.expected = 18;
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (window), "win.burst", NULL));
  g_assert_true (riv_test_wait_until (panel_all_finished, &wait, 120));
  g_assert_false (riv_window_is_bursting (window));
  g_assert_cmpuint (riv_window_get_n_notices (window), ==, 1);
}

/* Copy, save and drag outputs */

static gboolean
shown_image_final (gpointer user_data)
{
  RivOutputView *view = user_data;
  RivJob *job = riv_output_view_get_job (view);

  if (job == NULL || !riv_job_is_finished (job))
    return FALSE;
  /* The last frame may still be downloading when the job completes. */
  riv_output_view_flush (view);
  return riv_job_get_image (job) != NULL && riv_output_view_get_texture (view) != NULL &&
         riv_output_view_has_text (view);
}

static void
texture_read_cb (GObject      *object,
                 GAsyncResult *result,
                 gpointer      user_data)
{
  GdkTexture **out = user_data;
  g_autoptr(GError) error = NULL;

  *out = gdk_clipboard_read_texture_finish (GDK_CLIPBOARD (object), result, &error);
  g_assert_no_error (error);
}

typedef struct
{
  const char *path;
  gsize       size;
} FileWait;

static gboolean
file_written (gpointer user_data)
{
  FileWait *wait = user_data;
  GStatBuf st;

  return g_stat (wait->path, &st) == 0 && (gsize) st.st_size == wait->size;
}

static void
test_copy_save_drag_image (Fixture       *fixture,
                           gconstpointer  user_data)
{
  RivWindow *window = fixture->window;
  RivOutputView *view = riv_window_get_output_view (window);
  GdkClipboard *clipboard = gtk_widget_get_clipboard (GTK_WIDGET (window));
  GtkWidget *copy_image = find_button_for_action (GTK_WIDGET (view), "win.copy-image");
  GtkWidget *save_image = find_button_for_action (GTK_WIDGET (view), "win.save-image");
  GtkWidget *copy_text = find_button_for_action (GTK_WIDGET (view), "win.copy-text");
  GdkTexture *texture = NULL;
  char *text = NULL;
  GtkDragSource *drag_source = NULL;
  g_autoptr(GdkContentProvider) provider = NULL;
  g_autoptr(GListModel) controllers = NULL;
  g_autoptr(GBytes) png = NULL;
  g_autofree char *dir = NULL;
  g_autofree char *path = NULL;
  g_autofree char *saved = NULL;
  gsize saved_len;
  RivJob *job;

  g_assert_nonnull (copy_image);
  g_assert_nonnull (save_image);
  g_assert_nonnull (copy_text);
  /* Keyboard users reach them, and screen readers name them. */
  g_assert_true (gtk_widget_get_focusable (copy_image));
  g_assert_nonnull (gtk_widget_get_tooltip_text (copy_image));

  g_assert_true (riv_window_select_endpoint (window, "fake_diffusion"));
  set_data (window, "[4, 0.02]");
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (window), "win.submit", NULL));
  g_assert_true (riv_test_wait_until (shown_image_final, view, 120));
  job = riv_output_view_get_job (view);
  g_assert_cmpint (riv_job_get_status (job), ==, RIV_JOB_STATUS_COMPLETED);

  g_assert_nonnull (riv_output_view_get_texture (view));
  g_assert_true (gtk_widget_get_visible (copy_image));
  g_assert_true (gtk_widget_is_sensitive (copy_image));
  g_assert_true (gtk_widget_is_sensitive (save_image));

  /* Copy image: the clipboard holds the texture shown. */
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (window), "win.copy-image", NULL));
  gdk_clipboard_read_texture_async (clipboard, NULL, texture_read_cb, &texture);
  g_assert_true (riv_test_wait_until (pointer_is_set, &texture, 30));
  g_assert_cmpint (gdk_texture_get_width (texture), ==,
                   gdk_texture_get_width (riv_output_view_get_texture (view)));
  g_assert_cmpint (gdk_texture_get_height (texture), ==,
                   gdk_texture_get_height (riv_output_view_get_texture (view)));
  g_clear_object (&texture);

  /* Copy text: the text output ("step 4/4"). */
  g_assert_true (riv_output_view_has_text (view));
  g_assert_true (gtk_widget_is_sensitive (copy_text));
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (window), "win.copy-text", NULL));
  text = riv_ui_test_read_clipboard (GTK_WIDGET (window));
  g_assert_cmpstr (text, ==, riv_job_get_output_text (job));
  g_free (text);

  /* Save: the server's PNG, byte for byte, written off the main loop. */
  riv_output_view_flush (view);
  png = riv_output_view_dup_png_bytes (view);
  g_assert_true (g_bytes_equal (png, riv_job_get_image (job)));
  dir = g_dir_make_tmp ("riv-save-XXXXXX", NULL);
  path = g_build_filename (dir, "out.png", NULL);
  {
    g_autoptr(GFile) file = g_file_new_for_path (path);
    FileWait wait = { path, g_bytes_get_size (png) };

    _riv_window_save_image_to (window, file);
    g_assert_true (riv_test_wait_until (file_written, &wait, 30));
  }
  g_assert_true (g_file_get_contents (path, &saved, &saved_len, NULL));
  g_assert_cmpmem (saved, saved_len, g_bytes_get_data (png, NULL), g_bytes_get_size (png));
  g_unlink (path);
  g_rmdir (dir);

  /* Drag: the picture offers the texture. */
  controllers = gtk_widget_observe_controllers (GTK_WIDGET (riv_output_view_get_picture (view)));
  for (guint i = 0; i < g_list_model_get_n_items (controllers); i++)
    {
      g_autoptr(GObject) controller = g_list_model_get_item (controllers, i);

      if (GTK_IS_DRAG_SOURCE (controller))
        drag_source = GTK_DRAG_SOURCE (controller);
    }
  g_assert_nonnull (drag_source);
  g_signal_emit_by_name (drag_source, "prepare", 10.0, 10.0, &provider);
  g_assert_nonnull (provider);
  {
    g_autoptr(GdkContentFormats) formats = gdk_content_provider_ref_formats (provider);

    g_assert_true (gdk_content_formats_contain_gtype (formats, GDK_TYPE_TEXTURE));
  }

  /* Nothing to copy once no job is shown. */
  riv_output_view_set_job (view, NULL, NULL);
  riv_output_view_flush (view);
  g_assert_false (gtk_widget_is_sensitive (copy_image));
  g_assert_false (gtk_widget_is_sensitive (copy_text));
}

int
main (int   argc,
      char *argv[])
{
  riv_ui_test_init (&argc, &argv);

  g_test_add_func ("/ui/app/shortcuts-complete", test_shortcuts_complete);
  g_test_add_func ("/ui/app/primary-menu", test_primary_menu);
  g_test_add_func ("/ui/app/high-contrast", test_high_contrast);
  g_test_add_func ("/ui/app/preferences", test_preferences);
  g_test_add_func ("/ui/app/window-size-persisted", test_window_size_persisted);
  g_test_add_func ("/ui/app/icon-in-resources", test_app_icon_in_resources);
  g_test_add_func ("/ui/app/notice-burst-decision", test_notice_burst_decision);
  g_test_add_func ("/ui/app/notice-job-decision", test_notice_job_decision);
  g_test_add ("/ui/app/about-debug-info", Fixture, NULL, fixture_setup,
              test_about_debug_info, fixture_teardown);
  g_test_add ("/ui/app/burst-notification", Fixture, NULL, fixture_setup,
              test_burst_notification, fixture_teardown);
  g_test_add ("/ui/app/copy-save-drag-image", Fixture, NULL, fixture_setup,
              test_copy_save_drag_image, fixture_teardown);

  return g_test_run ();
}
