/* riv-window-actions.c
 * Copyright 2026 The Rivulet authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The win.* actions of RivWindow and their keyboard shortcuts.
 */
#include "config.h"

#include <glib/gi18n.h>

#include "riv-compat.h"
#include "riv-file-chooser.h"
#include "riv-window-private.h"

static gboolean
riv_window_can_submit (RivWindow *self)
{
  return riv_window_get_client (self) != NULL && riv_form_get_endpoint (self->form) != NULL &&
         !riv_form_get_busy (self->form);
}

void
_riv_window_update_actions (RivWindow *self)
{
  GtkWidget *widget = GTK_WIDGET (self);
  gboolean can_submit = riv_window_can_submit (self);
  gboolean bursting = riv_burst_controller_is_running (self->bursts);
  RivJob *shown = riv_output_view_get_job (self->output_view);
  RivJob *selected = riv_job_panel_get_selected_job (self->job_panel);

  gtk_widget_action_set_enabled (widget, "win.submit", can_submit);
  gtk_widget_action_set_enabled (widget, "win.burst", can_submit && !bursting);
  gtk_widget_action_set_enabled (widget, "win.stop-burst", bursting);
  gtk_widget_action_set_enabled (widget, "win.cancel-selected",
                                 riv_window_get_client (self) != NULL &&
                                 ((selected != NULL && !riv_job_is_finished (selected)) ||
                                  (shown != NULL && !riv_job_is_finished (shown))));
  gtk_widget_action_set_enabled (widget, "win.cancel-all", riv_window_get_client (self) != NULL);
  gtk_widget_action_set_enabled (widget, "win.clear-finished", riv_window_get_client (self) != NULL);
  gtk_widget_action_set_enabled (widget, "win.export", riv_window_get_client (self) != NULL);
  gtk_widget_action_set_enabled (widget, "win.reconnect",
                                 riv_connection_get_url (self->connection) != NULL || self->embedded != NULL);
  gtk_widget_action_set_enabled (widget, "win.copy-text",
                                 riv_output_view_has_text (self->output_view));
  gtk_widget_action_set_enabled (widget, "win.copy-image",
                                 riv_output_view_get_texture (self->output_view) != NULL);
  gtk_widget_action_set_enabled (widget, "win.save-image",
                                 riv_output_view_get_texture (self->output_view) != NULL);
  _riv_window_load_update_actions (self);
}

/* An input whose value cannot be sent blocks submitting, said in a toast
 * (the field itself says why). */
static gboolean
riv_window_check_form (RivWindow *self)
{
  g_autoptr(GError) error = NULL;

  if (riv_form_check (self->form, &error))
    return TRUE;

  {
    g_autofree char *text = g_strdup_printf (_("Could not submit: %s"), error->message);

    _riv_window_report (self, RIV_REPORT_SUBMIT, text);
  }
  return FALSE;
}

void
_riv_window_submit (RivWindow *self)
{
  g_autoptr(JsonNode) data = NULL;
  g_autoptr(RivJob) job = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *endpoint = NULL;

  if (!riv_window_can_submit (self) || !riv_window_check_form (self))
    return;

  endpoint = _riv_window_dup_endpoint_name (self);
  data = riv_form_dup_data (self->form);
  job = riv_client_submit (riv_window_get_client (self), endpoint, data, &error);
  if (job == NULL)
    {
      g_autofree char *text = g_strdup_printf (_("Could not submit: %s"), error->message);

      _riv_window_report (self, RIV_REPORT_SUBMIT, text);
      return;
    }

  riv_job_panel_unselect (self->job_panel);
  _riv_window_follow_job (self, job);
}

void
_riv_window_start_burst (RivWindow *self)
{
  g_autoptr(JsonNode) data = NULL;
  g_autoptr(GPtrArray) examples = NULL;
  g_autofree char *endpoint = NULL;
  guint count;
  double rate;

  if (!riv_window_can_submit (self) || riv_burst_controller_is_running (self->bursts) ||
      !riv_window_check_form (self))
    return;

  count = riv_burst_settings_get_count (self->burst_settings);
  rate = riv_burst_settings_get_rate (self->burst_settings);
  endpoint = _riv_window_dup_endpoint_name (self);
  data = riv_form_dup_data (self->form);
  examples = riv_form_dup_examples (self->form);

  if (self->stall_monitor != NULL)
    {
      g_autofree char *label = g_strdup_printf ("burst of %u on /%s", count, endpoint);

      riv_stall_monitor_mark (self->stall_monitor, label);
    }
  riv_job_panel_unselect (self->job_panel);
  riv_burst_controller_start (self->bursts, riv_window_get_client (self), endpoint, data, examples,
                              count, rate);
  _riv_window_update_actions (self);
}

static void
riv_window_submit_action (GtkWidget  *widget,
                          const char *action_name,
                          GVariant   *param)
{
  _riv_window_submit (RIV_WINDOW (widget));
  _riv_window_show_jobs (RIV_WINDOW (widget));
}

static void
riv_window_burst_action (GtkWidget  *widget,
                         const char *action_name,
                         GVariant   *param)
{
  _riv_window_start_burst (RIV_WINDOW (widget));
  _riv_window_show_jobs (RIV_WINDOW (widget));
}

static void
riv_window_stop_burst_action (GtkWidget  *widget,
                              const char *action_name,
                              GVariant   *param)
{
  riv_burst_controller_stop (RIV_WINDOW (widget)->bursts);
}

static void
riv_window_cancel_selected_action (GtkWidget  *widget,
                                   const char *action_name,
                                   GVariant   *param)
{
  RivWindow *self = RIV_WINDOW (widget);
  RivJob *job = riv_job_panel_get_selected_job (self->job_panel);

  if (job == NULL)
    job = riv_output_view_get_job (self->output_view);
  if (job == NULL || riv_window_get_client (self) == NULL || riv_job_is_finished (job))
    return;

  riv_client_cancel (riv_window_get_client (self), job);
}

static void
riv_window_cancel_all_action (GtkWidget  *widget,
                              const char *action_name,
                              GVariant   *param)
{
  RivWindow *self = RIV_WINDOW (widget);

  riv_burst_controller_stop (self->bursts);
  if (riv_window_get_client (self) != NULL)
    riv_client_cancel_all (riv_window_get_client (self));
}

static void
riv_window_clear_finished_action (GtkWidget  *widget,
                                  const char *action_name,
                                  GVariant   *param)
{
  RivWindow *self = RIV_WINDOW (widget);
  RivJob *shown = riv_output_view_get_job (self->output_view);
  g_autofree char *text = NULL;
  guint n;

  if (riv_window_get_client (self) == NULL)
    return;

  n = riv_client_clear_finished (riv_window_get_client (self));
  if (shown != NULL && riv_job_is_finished (shown))
    riv_output_view_set_job (self->output_view, NULL, NULL);

  text = g_strdup_printf (g_dngettext (GETTEXT_PACKAGE, "Removed %u finished job",
                                       "Removed %u finished jobs", n), n);
  _riv_window_toast (self, text);
  _riv_window_update_actions (self);
}

typedef struct
{
  RivWindow *self;     /* owned */
  GFile     *file;     /* owned */
  guint      n_jobs;
} ExportData;

static void
export_data_free (ExportData *data)
{
  g_clear_object (&data->self);
  g_clear_object (&data->file);
  g_free (data);
}

G_DEFINE_AUTOPTR_CLEANUP_FUNC (ExportData, export_data_free)

static void
riv_window_export_written_cb (GObject      *object,
                              GAsyncResult *result,
                              gpointer      user_data)
{
  g_autoptr(ExportData) data = user_data;
  g_autoptr(GError) error = NULL;
  g_autofree char *name = g_file_get_basename (data->file);
  g_autofree char *text = NULL;

  if (!g_file_replace_contents_finish (G_FILE (object), result, NULL, &error))
    {
      if (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
        return;
      text = g_strdup_printf (_("Could not export to %s: %s"), name, error->message);
    }
  else
    text = g_strdup_printf (g_dngettext (GETTEXT_PACKAGE, "Exported %u job to %s",
                                         "Exported %u jobs to %s", data->n_jobs),
                            data->n_jobs, name);

  _riv_window_toast (data->self, text);
}

static void
riv_window_export_chosen_cb (GFile         *file,
                             GtkFileFilter *filter,
                             gpointer       user_data)
{
  RivWindow *self = user_data;
  g_autofree char *name = g_file_get_basename (file);
  gboolean json = g_str_has_suffix (name, ".json") ||
                  (!g_str_has_suffix (name, ".csv") && filter != NULL &&
                   g_strcmp0 (gtk_file_filter_get_name (filter), _("JSON")) == 0);
  g_autoptr(GBytes) bytes = riv_job_panel_export (self->job_panel,
                                                  json ? RIV_EXPORT_JSON : RIV_EXPORT_CSV);
  ExportData *data = g_new0 (ExportData, 1);

  data->self = g_object_ref (self);
  data->file = g_object_ref (file);
  data->n_jobs = riv_job_panel_get_n_jobs (self->job_panel);

  /* The bytes are built on the main thread (cheap); the writing is async. */
  g_file_replace_contents_bytes_async (file, bytes, NULL, FALSE,
                                       G_FILE_CREATE_REPLACE_DESTINATION,
                                       self->cancellable,
                                       riv_window_export_written_cb, data);
}

static void
riv_window_export_action (GtkWidget  *widget,
                          const char *action_name,
                          GVariant   *param)
{
  const RivFileChooserSpec spec = {
    _("Export Jobs"), _("_Export"), RIV_FILE_CHOOSER_SAVE, "rivulet-jobs.csv"
  };
  g_autoptr(GtkFileFilter) csv = riv_file_filter_new (_("CSV"), "csv", "text/csv");
  g_autoptr(GtkFileFilter) json = riv_file_filter_new (_("JSON"), "json", "application/json");
  GtkFileFilter *filters[] = { csv, json, NULL };

  riv_file_chooser_show (widget, &spec, filters, riv_window_export_chosen_cb,
                         g_object_ref (widget), g_object_unref);
}

/* Copying and saving the output */

static void
riv_window_copy_text_action (GtkWidget  *widget,
                             const char *action_name,
                             GVariant   *param)
{
  RivWindow *self = RIV_WINDOW (widget);
  g_autofree char *text = NULL;

  if (!riv_output_view_has_text (self->output_view))
    return;

  text = riv_output_view_dup_text (self->output_view);
  gdk_clipboard_set_text (gtk_widget_get_clipboard (widget), text);
  _riv_window_toast (self, _("Text copied"));
}

static void
riv_window_copy_image_action (GtkWidget  *widget,
                              const char *action_name,
                              GVariant   *param)
{
  RivWindow *self = RIV_WINDOW (widget);
  GdkTexture *texture = riv_output_view_get_texture (self->output_view);

  if (texture == NULL)
    return;

  gdk_clipboard_set_texture (gtk_widget_get_clipboard (widget), texture);
  _riv_window_toast (self, _("Image copied"));
}

static void
riv_window_image_saved_cb (GObject      *object,
                           GAsyncResult *result,
                           gpointer      user_data)
{
  g_autoptr(RivWindow) self = user_data;
  g_autoptr(GError) error = NULL;
  g_autofree char *name = g_file_get_basename (G_FILE (object));
  g_autofree char *text = NULL;

  if (!g_file_replace_contents_finish (G_FILE (object), result, NULL, &error))
    {
      if (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
        return;
      text = g_strdup_printf (_("Could not save the image to %s: %s"), name, error->message);
    }
  else
    text = g_strdup_printf (_("Saved the image to %s"), name);

  _riv_window_toast (self, text);
}

void
_riv_window_save_image_to (RivWindow *self,
                           GFile     *file)
{
  g_autoptr(GBytes) png = riv_output_view_dup_png_bytes (self->output_view);

  if (png == NULL)
    return;

  /* The bytes are at hand; only the writing takes time, off the main loop. */
  g_file_replace_contents_bytes_async (file, png, NULL, FALSE,
                                       G_FILE_CREATE_REPLACE_DESTINATION, self->cancellable,
                                       riv_window_image_saved_cb, g_object_ref (self));
}

static void
riv_window_save_image_chosen_cb (GFile         *file,
                                 GtkFileFilter *filter,
                                 gpointer       user_data)
{
  _riv_window_save_image_to (user_data, file);
}

static void
riv_window_save_image_action (GtkWidget  *widget,
                              const char *action_name,
                              GVariant   *param)
{
  RivWindow *self = RIV_WINDOW (widget);
  RivJob *job = riv_output_view_get_job (self->output_view);
  g_autoptr(GtkFileFilter) png = NULL;
  g_autofree char *name = NULL;

  if (riv_output_view_get_texture (self->output_view) == NULL)
    return;

  png = riv_file_filter_new (_("PNG image"), "png", "image/png");
  name = g_strdup_printf ("rivulet-job-%u.png", job != NULL ? riv_job_get_number (job) : 0);
  {
    const RivFileChooserSpec spec = { _("Save Image"), _("_Save"), RIV_FILE_CHOOSER_SAVE, name };
    GtkFileFilter *filters[] = { png, NULL };

    riv_file_chooser_show (widget, &spec, filters, riv_window_save_image_chosen_cb,
                           g_object_ref (self), g_object_unref);
  }
}

static void
riv_window_connect_action (GtkWidget  *widget,
                           const char *action_name,
                           GVariant   *param)
{
  RivWindow *self = RIV_WINDOW (widget);

  gtk_menu_button_popup (self->connect_button);
}

static void
riv_window_reconnect_action (GtkWidget  *widget,
                             const char *action_name,
                             GVariant   *param)
{
  RivWindow *self = RIV_WINDOW (widget);
  g_autofree char *url = g_strdup (riv_connection_get_url (self->connection));
  g_autofree char *token = g_strdup (riv_connection_get_token (self->connection));

  if (riv_connection_get_embedded (self->connection) || url == NULL)
    riv_window_connect_embedded (self);
  else if (riv_connection_get_space_id (self->connection) != NULL)
    {
      /* A Space by its name again: the Hub may move it, and its app wants the token. */
      g_autofree char *space = g_strdup (riv_connection_get_space_id (self->connection));
      g_autofree char *hf_token = g_strdup (riv_connection_get_hf_token (self->connection));

      riv_window_connect_to_url (self, space, hf_token);
    }
  else
    riv_window_connect_to_url (self, url, token);
}

static void
riv_window_focus_search_action (GtkWidget  *widget,
                                const char *action_name,
                                GVariant   *param)
{
  riv_job_panel_focus_search (RIV_WINDOW (widget)->job_panel);
}

void
_riv_window_class_actions_init (GtkWidgetClass *widget_class)
{
  gtk_widget_class_install_action (widget_class, "win.submit", NULL, riv_window_submit_action);
  gtk_widget_class_install_action (widget_class, "win.burst", NULL, riv_window_burst_action);
  gtk_widget_class_install_action (widget_class, "win.stop-burst", NULL,
                                   riv_window_stop_burst_action);
  gtk_widget_class_install_action (widget_class, "win.cancel-selected", NULL,
                                   riv_window_cancel_selected_action);
  gtk_widget_class_install_action (widget_class, "win.cancel-all", NULL,
                                   riv_window_cancel_all_action);
  gtk_widget_class_install_action (widget_class, "win.clear-finished", NULL,
                                   riv_window_clear_finished_action);
  gtk_widget_class_install_action (widget_class, "win.export", NULL, riv_window_export_action);
  gtk_widget_class_install_action (widget_class, "win.connect", NULL, riv_window_connect_action);
  gtk_widget_class_install_action (widget_class, "win.reconnect", NULL,
                                   riv_window_reconnect_action);
  gtk_widget_class_install_action (widget_class, "win.focus-search", NULL,
                                   riv_window_focus_search_action);
  gtk_widget_class_install_action (widget_class, "win.copy-text", NULL,
                                   riv_window_copy_text_action);
  gtk_widget_class_install_action (widget_class, "win.copy-image", NULL,
                                   riv_window_copy_image_action);
  gtk_widget_class_install_action (widget_class, "win.save-image", NULL,
                                   riv_window_save_image_action);

  /* The application also sets the Ctrl shortcuts as accels (they then work
   * inside text inputs too); these bindings cover windows without one.
   * Escape and Delete bubble up only when the focused widget did not use them. */
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_Return, GDK_CONTROL_MASK,
                                       "win.submit", NULL);
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_KP_Enter, GDK_CONTROL_MASK,
                                       "win.submit", NULL);
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_Return,
                                       GDK_CONTROL_MASK | GDK_SHIFT_MASK, "win.burst", NULL);
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_l, GDK_CONTROL_MASK,
                                       "win.connect", NULL);
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_e, GDK_CONTROL_MASK,
                                       "win.export", NULL);
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_f, GDK_CONTROL_MASK,
                                       "win.focus-search", NULL);
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_c, GDK_CONTROL_MASK | GDK_SHIFT_MASK,
                                       "win.copy-text", NULL);
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_c, GDK_CONTROL_MASK | GDK_ALT_MASK,
                                       "win.copy-image", NULL);
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_s, GDK_CONTROL_MASK,
                                       "win.save-image", NULL);
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_Escape, 0,
                                       "win.cancel-selected", NULL);
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_Delete, 0,
                                       "win.cancel-selected", NULL);
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_Delete,
                                       GDK_CONTROL_MASK | GDK_SHIFT_MASK, "win.cancel-all", NULL);
}
