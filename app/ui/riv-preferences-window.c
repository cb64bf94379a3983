/* riv-preferences-window.c
 * Copyright 2026 The Rivulet authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "config.h"

#include <glib/gi18n.h>

#include "riv-preferences-window-test.h"
#include "riv-settings.h"

/* The page: every setting, from the template. */
#define RIV_TYPE_PREFERENCES_PAGE (riv_preferences_page_get_type ())
G_DECLARE_FINAL_TYPE (RivPreferencesPage, riv_preferences_page, RIV, PREFERENCES_PAGE,
                      AdwPreferencesPage)

struct _RivPreferencesPage
{
  AdwPreferencesPage    parent_instance;

  /* Template widgets */
  GtkSwitch            *embedded_switch;
  AdwEntryRow          *last_server_row;
  AdwEntryRow          *metrics_row;
  AdwPreferencesGroup  *recent_group;
  GtkListBox           *recent_list;
  GtkSpinButton        *burst_count;
  GtkSpinButton        *burst_rate;
  GtkSwitch            *notifications_switch;

  /* Owned references */
  GSettings            *settings;

  guint                 n_recent;
};

G_DEFINE_FINAL_TYPE (RivPreferencesPage, riv_preferences_page, ADW_TYPE_PREFERENCES_PAGE)

/* The window or dialog that holds it. */
struct _RivPreferencesWindow
{
#if ADW_CHECK_VERSION (1, 5, 0)
  AdwPreferencesDialog  parent_instance;
#else
  AdwPreferencesWindow  parent_instance;
#endif

  RivPreferencesPage   *page;    /* borrowed: a child */
};

#if ADW_CHECK_VERSION (1, 5, 0)
G_DEFINE_FINAL_TYPE (RivPreferencesWindow, riv_preferences_window, ADW_TYPE_PREFERENCES_DIALOG)
#else
G_DEFINE_FINAL_TYPE (RivPreferencesWindow, riv_preferences_window, ADW_TYPE_PREFERENCES_WINDOW)
#endif

static void
riv_preferences_page_update_recent (RivPreferencesPage *self)
{
  g_auto(GStrv) urls = g_settings_get_strv (self->settings, "recent-urls");
  GtkListBoxRow *row;

  /* Rows only: the placeholder is a child of the list too. */
  while ((row = gtk_list_box_get_row_at_index (self->recent_list, 0)) != NULL)
    gtk_list_box_remove (self->recent_list, GTK_WIDGET (row));

  self->n_recent = g_strv_length (urls);
  for (guint i = 0; urls[i] != NULL; i++)
    {
      GtkWidget *url_row = adw_action_row_new ();

      adw_preferences_row_set_title (ADW_PREFERENCES_ROW (url_row), urls[i]);
      /* A URL is not markup. */
      adw_preferences_row_set_use_markup (ADW_PREFERENCES_ROW (url_row), FALSE);
      gtk_list_box_append (self->recent_list, url_row);
    }

  gtk_widget_action_set_enabled (GTK_WIDGET (self), "preferences.clear-recent-servers",
                                 self->n_recent > 0);
}

static void
riv_preferences_page_settings_changed_cb (RivPreferencesPage *self,
                                          const char         *key,
                                          GSettings          *settings)
{
  if (g_strcmp0 (key, "recent-urls") == 0)
    riv_preferences_page_update_recent (self);
  else if (g_strcmp0 (key, "last-server-url") == 0)
    {
      g_autofree char *url = g_settings_get_string (settings, "last-server-url");

      if (g_strcmp0 (gtk_editable_get_text (GTK_EDITABLE (self->last_server_row)), url) != 0)
        gtk_editable_set_text (GTK_EDITABLE (self->last_server_row), url);
    }
}

static void
riv_preferences_page_last_server_apply_cb (RivPreferencesPage *self)
{
  g_autofree char *url =
    g_strstrip (g_strdup (gtk_editable_get_text (GTK_EDITABLE (self->last_server_row))));

  g_settings_set_string (self->settings, "last-server-url", url);
}

static GtkWidget *
recent_placeholder_new (void)
{
  GtkWidget *label = gtk_label_new (_("No recent servers"));

  gtk_widget_add_css_class (label, "dim-label");
  gtk_widget_set_margin_top (label, 12);
  gtk_widget_set_margin_bottom (label, 12);
  return label;
}

static void
riv_preferences_page_clear_recent_action (GtkWidget  *widget,
                                          const char *action_name,
                                          GVariant   *param)
{
  RivPreferencesPage *self = RIV_PREFERENCES_PAGE (widget);
#if ADW_CHECK_VERSION (1, 5, 0)
  GtkWidget *holder = gtk_widget_get_ancestor (widget, ADW_TYPE_PREFERENCES_DIALOG);
#else
  GtkWidget *holder = gtk_widget_get_ancestor (widget, ADW_TYPE_PREFERENCES_WINDOW);
#endif

  g_settings_set_strv (self->settings, "recent-urls", NULL);
  if (holder == NULL)
    return;
#if ADW_CHECK_VERSION (1, 5, 0)
  adw_preferences_dialog_add_toast (ADW_PREFERENCES_DIALOG (holder),
                                    adw_toast_new (_("Recent servers cleared")));
#else
  adw_preferences_window_add_toast (ADW_PREFERENCES_WINDOW (holder),
                                    adw_toast_new (_("Recent servers cleared")));
#endif
}

static void
riv_preferences_page_dispose (GObject *object)
{
  RivPreferencesPage *self = RIV_PREFERENCES_PAGE (object);

  gtk_widget_dispose_template (GTK_WIDGET (self), RIV_TYPE_PREFERENCES_PAGE);
  g_clear_object (&self->settings);

  G_OBJECT_CLASS (riv_preferences_page_parent_class)->dispose (object);
}

static void
riv_preferences_page_class_init (RivPreferencesPageClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->dispose = riv_preferences_page_dispose;

  gtk_widget_class_set_template_from_resource (widget_class,
                                               RIV_RESOURCE_PATH "/ui/riv-preferences-window.ui");
  gtk_widget_class_bind_template_child (widget_class, RivPreferencesPage, embedded_switch);
  gtk_widget_class_bind_template_child (widget_class, RivPreferencesPage, last_server_row);
  gtk_widget_class_bind_template_child (widget_class, RivPreferencesPage, metrics_row);
  gtk_widget_class_bind_template_child (widget_class, RivPreferencesPage, recent_group);
  gtk_widget_class_bind_template_child (widget_class, RivPreferencesPage, recent_list);
  gtk_widget_class_bind_template_child (widget_class, RivPreferencesPage, burst_count);
  gtk_widget_class_bind_template_child (widget_class, RivPreferencesPage, burst_rate);
  gtk_widget_class_bind_template_child (widget_class, RivPreferencesPage, notifications_switch);
  gtk_widget_class_bind_template_callback (widget_class, riv_preferences_page_last_server_apply_cb);

  gtk_widget_class_install_action (widget_class, "preferences.clear-recent-servers", NULL,
                                   riv_preferences_page_clear_recent_action);
}

static void
riv_preferences_page_init (RivPreferencesPage *self)
{
  g_autofree char *last_url = NULL;

  gtk_widget_init_template (GTK_WIDGET (self));

  self->settings = riv_settings_new ();

  g_settings_bind (self->settings, "start-embedded-server", self->embedded_switch, "active",
                   G_SETTINGS_BIND_DEFAULT);
  /* The last server is used at launch only when the embedded one does not start. */
  g_settings_bind (self->settings, "start-embedded-server", self->last_server_row, "sensitive",
                   G_SETTINGS_BIND_GET | G_SETTINGS_BIND_INVERT_BOOLEAN);
  g_settings_bind (self->settings, "burst-count",
                   gtk_spin_button_get_adjustment (self->burst_count), "value",
                   G_SETTINGS_BIND_DEFAULT);
  g_settings_bind (self->settings, "burst-rate",
                   gtk_spin_button_get_adjustment (self->burst_rate), "value",
                   G_SETTINGS_BIND_DEFAULT);
  g_settings_bind (self->settings, "notifications", self->notifications_switch, "active",
                   G_SETTINGS_BIND_DEFAULT);
  g_settings_bind (self->settings, "metrics-address", self->metrics_row, "text",
                   G_SETTINGS_BIND_DEFAULT);

  /* Connected before the keys are read, so that changes made elsewhere (a
   * window connecting to a new server) are always signalled. */
  g_signal_connect_object (self->settings, "changed",
                           G_CALLBACK (riv_preferences_page_settings_changed_cb), self,
                           G_CONNECT_SWAPPED);
  last_url = g_settings_get_string (self->settings, "last-server-url");
  gtk_editable_set_text (GTK_EDITABLE (self->last_server_row), last_url);

  gtk_list_box_set_placeholder (self->recent_list, recent_placeholder_new ());
  riv_preferences_page_update_recent (self);
}

/* The window or dialog */

#if ADW_CHECK_VERSION (1, 5, 0)
/* Ctrl+W closes the dialog, as it closed the window. */
static gboolean
riv_preferences_window_close_cb (GtkWidget *widget,
                                 GVariant  *args,
                                 gpointer   user_data)
{
  return adw_dialog_close (ADW_DIALOG (widget));
}
#endif

static void
riv_preferences_window_class_init (RivPreferencesWindowClass *klass)
{
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

#if ADW_CHECK_VERSION (1, 5, 0)
  gtk_widget_class_add_binding (widget_class, GDK_KEY_w, GDK_CONTROL_MASK,
                                riv_preferences_window_close_cb, NULL);
#else
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_w, GDK_CONTROL_MASK,
                                       "window.close", NULL);
#endif
}

static void
riv_preferences_window_init (RivPreferencesWindow *self)
{
  self->page = g_object_new (RIV_TYPE_PREFERENCES_PAGE, NULL);
#if ADW_CHECK_VERSION (1, 5, 0)
  adw_dialog_set_title (ADW_DIALOG (self), _("Preferences"));
  adw_dialog_set_content_width (ADW_DIALOG (self), 600);
  adw_dialog_set_content_height (ADW_DIALOG (self), 640);
  adw_preferences_dialog_set_search_enabled (ADW_PREFERENCES_DIALOG (self), FALSE);
  adw_preferences_dialog_add (ADW_PREFERENCES_DIALOG (self), ADW_PREFERENCES_PAGE (self->page));
#else
  gtk_window_set_title (GTK_WINDOW (self), _("Preferences"));
  gtk_window_set_default_size (GTK_WINDOW (self), 600, 640);
  adw_preferences_window_set_search_enabled (ADW_PREFERENCES_WINDOW (self), FALSE);
  adw_preferences_window_add (ADW_PREFERENCES_WINDOW (self), ADW_PREFERENCES_PAGE (self->page));
#endif
}

GtkWidget *
riv_preferences_window_new (GtkWindow *parent)
{
  g_return_val_if_fail (parent == NULL || GTK_IS_WINDOW (parent), NULL);

#if ADW_CHECK_VERSION (1, 5, 0)
  return g_object_new (RIV_TYPE_PREFERENCES_WINDOW, NULL);
#else
  return g_object_new (RIV_TYPE_PREFERENCES_WINDOW,
                       "transient-for", parent,
                       "modal", parent != NULL,
                       NULL);
#endif
}

guint
riv_preferences_window_get_n_recent (RivPreferencesWindow *self)
{
  guint n = 0;

  g_return_val_if_fail (RIV_IS_PREFERENCES_WINDOW (self), 0);

  while (gtk_list_box_get_row_at_index (self->page->recent_list, (int) n) != NULL)
    n++;
  return n;
}
