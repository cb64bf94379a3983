/* riv-window-load.c
 * Copyright 2026 The Rivulet authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The window's Load mode, beside Burst: virtual users (RivLoadRun, the engine
 * rivulet-cli load uses) against the selected endpoint with the form's
 * inputs, for a duration or k6-style stages, with a think time. Each sample
 * (one a second) goes into the live charts (RivChart), which queue one
 * redraw; "Save Report" writes the HTML of rivulet-cli load --report.
 */
#include "config.h"

#include <glib/gi18n.h>
#include <math.h>

#include "riv-a11y.h"
#include "riv-file-chooser.h"
#include "riv-form.h"
#include "riv-json.h"
#include "riv-output-view.h"
#include "riv-window-load.h"
#include "riv-window-private.h"

struct _RivWindowLoad
{
  GtkStack         *mode_stack;     /* "burst" | "load" (settings, left) */
  GtkStack         *view_stack;     /* "output" | "charts" (right) */
  GtkSpinButton    *users;
  GtkSpinButton    *duration;
  GtkSpinButton    *think;
  AdwEntryRow      *stages;
  GtkButton        *button;         /* Start / Stop, beside Burst's */
  GtkButton        *save_button;
  GtkLabel         *summary;
  RivChart         *charts[RIV_LOAD_N_CHARTS];
  GtkGrid          *chart_grid;
  RivLoadRun       *run;            /* nullable: the newest run */
  RivMetrics       *metrics;        /* owned, nullable: the newest run's /metrics, kept after it */
};

/* GNOME palette (blue 3, red 3, green 4, orange 3, purple 3). */
#define COLOR_BLUE   "#3584e4"
#define COLOR_RED    "#e01b24"
#define COLOR_GREEN  "#2ec27e"
#define COLOR_ORANGE "#ff7800"
#define COLOR_PURPLE "#9141ac"

static void
update_button (RivWindow *self)
{
  RivWindowLoad *load = self->load;
  gboolean running = load->run != NULL && riv_load_run_is_running (load->run);
  const char *label = running ? _("St_op Load") : _("Start _Load");

  gtk_button_set_label (load->button, label);
  riv_a11y_set_name (GTK_WIDGET (load->button), label);
  gtk_actionable_set_action_name (GTK_ACTIONABLE (load->button),
                                  running ? "win.stop-load" : "win.load");
  if (running)
    gtk_widget_add_css_class (GTK_WIDGET (load->button), "destructive-action");
  else
    gtk_widget_remove_css_class (GTK_WIDGET (load->button), "destructive-action");
}

static void
update_summary (RivWindow           *self,
                const RivLoadSample *sample)
{
  RivWindowLoad *load = self->load;
  RivLoadRun *run = load->run;
  double elapsed = riv_load_run_get_elapsed (run);
  guint64 completed = riv_load_run_get_completed (run);
  g_autofree char *text = NULL;

  /* TRANSLATORS: the Load mode's live summary: seconds, users, jobs, jobs a second */
  text = g_strdup_printf (_("%.0f s · %u users · %llu completed · %llu failed · %llu lost · "
                            "%.1f jobs/s"),
                          elapsed, sample != NULL ? sample->users : riv_load_run_get_active_users (run),
                          (unsigned long long) completed,
                          (unsigned long long) riv_load_run_get_failed (run),
                          (unsigned long long) riv_load_run_get_lost (run),
                          elapsed > 0 ? completed / elapsed : 0);
  gtk_label_set_label (load->summary, text);
}

static void
update_batches (RivWindow *self)
{
  RivWindowLoad *load = self->load;
  guint max_size = 0;
  g_autofree guint64 *counts = riv_load_run_dup_batch_sizes (load->run, &max_size);
  g_autofree double *values = NULL;

  if (max_size == 0)
    return;
  values = g_new0 (double, max_size);
  for (guint s = 1; s <= max_size; s++)
    values[s - 1] = (double) counts[s];
  riv_chart_set_bars (load->charts[RIV_LOAD_CHART_BATCHES], values, max_size, 1);
}

static double
latency_or_none (double seconds)
{
  return seconds >= 0 ? seconds : NAN;
}

static void
sample_cb (RivWindow           *self,
           const RivLoadSample *sample,
           RivLoadRun          *run)
{
  RivWindowLoad *load = self->load;
  double throughput[] = { sample->completed, sample->failed };
  double latency[] = { latency_or_none (sample->p50), latency_or_none (sample->p95) };
  double in_flight[] = { sample->in_flight, sample->queued };
  double users[] = { sample->users };
  double span = sample->t - floor (sample->t - 1e-9);

  if (run != load->run)
    return;
  /* A last partial second counts per second like the others. */
  if (span > 0 && span < 1)
    {
      throughput[0] /= span;
      throughput[1] /= span;
    }

  /* Each push queues a redraw: GTK draws the charts once in the next frame. */
  riv_chart_push (load->charts[RIV_LOAD_CHART_THROUGHPUT], sample->t, throughput);
  riv_chart_push (load->charts[RIV_LOAD_CHART_LATENCY], sample->t, latency);
  riv_chart_push (load->charts[RIV_LOAD_CHART_IN_FLIGHT], sample->t, in_flight);
  riv_chart_push (load->charts[RIV_LOAD_CHART_USERS], sample->t, users);
  update_batches (self);
  update_summary (self, sample);
}

static void
finished_cb (RivWindow  *self,
             RivLoadRun *run)
{
  RivWindowLoad *load = self->load;
  g_autofree char *text = NULL;

  if (run != load->run)
    return;
  update_button (self);
  update_summary (self, NULL);
  _riv_window_update_actions (self);
  text = g_strdup_printf (_("Load test finished: %llu completed, %llu failed, %llu lost"),
                          (unsigned long long) riv_load_run_get_completed (run),
                          (unsigned long long) riv_load_run_get_failed (run),
                          (unsigned long long) riv_load_run_get_lost (run));
  _riv_window_toast (self, text);
}

static gboolean
can_start (RivWindow *self)
{
  return self->client != NULL && riv_form_get_endpoint (self->form) != NULL &&
         !riv_form_get_busy (self->form) &&
         (self->load->run == NULL || !riv_load_run_is_running (self->load->run));
}

/* Prometheus metrics from the preferences (metrics-address), as load --metrics;
 * kept after the run so that its last values can be scraped. */
static void
start_metrics (RivWindow *self)
{
  RivWindowLoad *load = self->load;
  g_autofree char *address = g_strstrip (g_settings_get_string (self->settings, "metrics-address"));
  g_autoptr(GError) error = NULL;

  g_clear_pointer (&load->metrics, riv_metrics_unref);
  if (*address == '\0')
    return;
  load->metrics = riv_metrics_new ();
  if (riv_metrics_listen (load->metrics, address, &error))
    {
      riv_load_run_set_metrics (load->run, load->metrics);
      return;
    }
  {
    g_autofree char *text = g_strdup_printf (_("Metrics not served: %s"), error->message);

    _riv_window_toast (self, text);
  }
  g_clear_pointer (&load->metrics, riv_metrics_unref);
}

gboolean
riv_window_start_load (RivWindow *self)
{
  RivWindowLoad *load;
  g_autoptr(JsonNode) data = NULL;
  g_autoptr(GArray) stages = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *endpoint = NULL;
  g_autofree char *stages_text = NULL;

  g_return_val_if_fail (RIV_IS_WINDOW (self), FALSE);

  load = self->load;
  if (!can_start (self))
    return FALSE;

  stages_text = g_strstrip (g_strdup (gtk_editable_get_text (GTK_EDITABLE (load->stages))));
  if (*stages_text != '\0' && !riv_load_parse_stages (stages_text, &stages, &error))
    {
      gtk_widget_add_css_class (GTK_WIDGET (load->stages), "error");
      _riv_window_toast (self, _("Stages are DURATION:USERS pairs, e.g. 10s:50, 30s:50, 10s:0"));
      return FALSE;
    }

  endpoint = _riv_window_dup_endpoint_name (self);
  data = riv_form_dup_data (self->form);
  if (endpoint == NULL || data == NULL || !JSON_NODE_HOLDS_ARRAY (data))
    return FALSE;

  if (load->run != NULL)
    g_signal_handlers_disconnect_by_data (load->run, self);
  g_clear_object (&load->run);
  load->run = riv_load_run_new (self->client, endpoint, data);
  /* Stages ramp from 0 users (as rivulet-cli load --stages does) and set the length. */
  riv_load_run_set_users (load->run,
                          stages != NULL ? 0 : (guint) gtk_spin_button_get_value_as_int (load->users),
                          gtk_spin_button_get_value (load->think),
                          stages != NULL ? 0 : gtk_spin_button_get_value (load->duration), 0);
  riv_load_run_set_stages (load->run, g_steal_pointer (&stages));
  start_metrics (self);
  /* Thousands of users' streams and replies are handled on the run's own
   * thread: the window's main loop only gets one sample a second to draw. */
  riv_load_run_set_threaded (load->run, TRUE);
  g_signal_connect_object (load->run, "sample", G_CALLBACK (sample_cb), self, G_CONNECT_SWAPPED);
  g_signal_connect_object (load->run, "finished", G_CALLBACK (finished_cb), self,
                           G_CONNECT_SWAPPED);

  for (guint i = 0; i < RIV_LOAD_N_CHARTS; i++)
    riv_chart_clear (load->charts[i]);
  if (!riv_load_run_start (load->run, &error))
    {
      g_autofree char *text = g_strdup_printf (_("Could not start the load test: %s"),
                                               error->message);

      _riv_window_toast (self, text);
      g_clear_object (&load->run);
      return FALSE;
    }

  if (self->stall_monitor != NULL)
    {
      g_autofree char *label = g_strdup_printf ("load test on /%s", endpoint);

      riv_stall_monitor_mark (self->stall_monitor, label);
    }
  gtk_stack_set_visible_child_name (load->view_stack, "charts");
  update_summary (self, NULL);
  update_button (self);
  _riv_window_update_actions (self);
  return TRUE;
}

void
riv_window_stop_load (RivWindow *self)
{
  g_return_if_fail (RIV_IS_WINDOW (self));

  if (self->load->run != NULL)
    riv_load_run_stop (self->load->run, TRUE);
}

static void
load_action (GtkWidget  *widget,
             const char *action_name,
             GVariant   *param)
{
  riv_window_start_load (RIV_WINDOW (widget));
}

static void
stop_load_action (GtkWidget  *widget,
                  const char *action_name,
                  GVariant   *param)
{
  riv_window_stop_load (RIV_WINDOW (widget));
}

/* Saving the report */

static void
report_written_cb (GObject      *object,
                   GAsyncResult *result,
                   gpointer      user_data)
{
  g_autoptr(GTask) task = user_data;
  g_autoptr(GError) error = NULL;

  if (!g_file_replace_contents_finish (G_FILE (object), result, NULL, &error))
    g_task_return_error (task, g_steal_pointer (&error));
  else
    g_task_return_boolean (task, TRUE);
}

void
riv_window_save_load_report_async (RivWindow           *self,
                                   GFile               *file,
                                   GAsyncReadyCallback  callback,
                                   gpointer             user_data)
{
  g_autoptr(GTask) task = NULL;
  g_autoptr(GBytes) bytes = NULL;
  char *html;

  g_return_if_fail (RIV_IS_WINDOW (self));
  g_return_if_fail (G_IS_FILE (file));

  task = g_task_new (self, self->cancellable, callback, user_data);
  g_task_set_source_tag (task, riv_window_save_load_report_async);
  if (self->load->run == NULL)
    {
      g_task_return_new_error (task, G_IO_ERROR, G_IO_ERROR_NOT_FOUND,
                               _("No load test has run yet"));
      return;
    }

  /* The page is built on the main thread from the run's statistics (they
   * change while it runs); the writing is async. */
  html = riv_load_run_dup_report (self->load->run, NULL, 0);
  bytes = g_bytes_new_take (html, strlen (html));
  g_file_replace_contents_bytes_async (file, bytes, NULL, FALSE,
                                       G_FILE_CREATE_REPLACE_DESTINATION, self->cancellable,
                                       report_written_cb, g_steal_pointer (&task));
}

gboolean
riv_window_save_load_report_finish (RivWindow     *self,
                                    GAsyncResult  *result,
                                    GError       **error)
{
  g_return_val_if_fail (g_task_is_valid (result, self), FALSE);

  return g_task_propagate_boolean (G_TASK (result), error);
}

typedef struct
{
  RivWindow *self;   /* owned */
  GFile     *file;   /* owned */
} SaveData;

static void
save_data_free (SaveData *data)
{
  g_object_unref (data->self);
  g_object_unref (data->file);
  g_free (data);
}

static void
save_done_cb (GObject      *object,
              GAsyncResult *result,
              gpointer      user_data)
{
  SaveData *data = user_data;
  g_autoptr(GError) error = NULL;
  g_autofree char *name = g_file_get_basename (data->file);
  g_autofree char *text = NULL;

  if (!riv_window_save_load_report_finish (data->self, result, &error))
    {
      if (!g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
        text = g_strdup_printf (_("Could not save the report to %s: %s"), name, error->message);
    }
  else
    text = g_strdup_printf (_("Saved the report to %s"), name);
  if (text != NULL)
    _riv_window_toast (data->self, text);
  save_data_free (data);
}

static void
save_chosen_cb (GFile         *file,
                GtkFileFilter *filter,
                gpointer       user_data)
{
  RivWindow *self = user_data;
  SaveData *data = g_new0 (SaveData, 1);

  data->self = g_object_ref (self);
  data->file = g_object_ref (file);
  riv_window_save_load_report_async (self, file, save_done_cb, data);
}

static void
save_report_action (GtkWidget  *widget,
                    const char *action_name,
                    GVariant   *param)
{
  const RivFileChooserSpec spec = {
    _("Save Report"), _("_Save"), RIV_FILE_CHOOSER_SAVE, "rivulet-load-report.html"
  };
  g_autoptr(GtkFileFilter) html = riv_file_filter_new (_("HTML"), "html", "text/html");
  GtkFileFilter *filters[] = { html, NULL };

  riv_file_chooser_show (widget, &spec, filters, save_chosen_cb,
                         g_object_ref (widget), g_object_unref);
}

/* Building the mode */

static GtkSpinButton *
add_spin_row (AdwPreferencesGroup *group,
              const char          *title,
              const char          *subtitle,
              double               lower,
              double               upper,
              double               value,
              guint                digits)
{
  GtkWidget *row = adw_action_row_new ();
  GtkWidget *spin = gtk_spin_button_new_with_range (lower, upper, digits > 0 ? 0.5 : 1);

  gtk_spin_button_set_digits (GTK_SPIN_BUTTON (spin), digits);
  gtk_spin_button_set_value (GTK_SPIN_BUTTON (spin), value);
  gtk_spin_button_set_numeric (GTK_SPIN_BUTTON (spin), TRUE);
  gtk_widget_set_valign (spin, GTK_ALIGN_CENTER);
  adw_preferences_row_set_title (ADW_PREFERENCES_ROW (row), title);
  adw_preferences_row_set_use_underline (ADW_PREFERENCES_ROW (row), TRUE);
  if (subtitle != NULL)
    adw_action_row_set_subtitle (ADW_ACTION_ROW (row), subtitle);
  adw_action_row_add_suffix (ADW_ACTION_ROW (row), spin);
  adw_action_row_set_activatable_widget (ADW_ACTION_ROW (row), spin);
  riv_a11y_set_name (spin, title);
  adw_preferences_group_add (group, row);
  return GTK_SPIN_BUTTON (spin);
}

/* Stages replace Users and Duration: those rows say so by greying out. */
static void
stages_changed_cb (RivWindow   *self,
                   GtkEditable *editable)
{
  RivWindowLoad *load = self->load;
  g_autofree char *text = g_strstrip (g_strdup (gtk_editable_get_text (editable)));
  gboolean staged = *text != '\0';

  gtk_widget_set_sensitive (gtk_widget_get_ancestor (GTK_WIDGET (load->users), ADW_TYPE_ACTION_ROW),
                            !staged);
  gtk_widget_set_sensitive (gtk_widget_get_ancestor (GTK_WIDGET (load->duration),
                                                     ADW_TYPE_ACTION_ROW), !staged);
  gtk_widget_remove_css_class (GTK_WIDGET (editable), "error");
}

static GtkWidget *
build_settings (RivWindow *self)
{
  RivWindowLoad *load = self->load;
  GtkWidget *group = adw_preferences_group_new ();

  adw_preferences_group_set_title (ADW_PREFERENCES_GROUP (group), _("Load Test"));
  adw_preferences_group_set_description (ADW_PREFERENCES_GROUP (group),
    _("Virtual users, each with its own session: submit, wait for the result, think, repeat. "
      "“{u}” in a text input becomes the user’s number, “{i}” the job’s."));
  load->users = add_spin_row (ADW_PREFERENCES_GROUP (group), _("_Users"), NULL,
                              1, 10000, 20, 0);
  load->duration = add_spin_row (ADW_PREFERENCES_GROUP (group), _("_Duration"),
                                 _("Seconds"), 1, 86400, 30, 0);
  load->think = add_spin_row (ADW_PREFERENCES_GROUP (group), _("_Think Time"),
                              _("Seconds between a result and the user’s next job"),
                              0, 3600, 0, 1);
  load->stages = ADW_ENTRY_ROW (adw_entry_row_new ());
  adw_preferences_row_set_title (ADW_PREFERENCES_ROW (load->stages),
                                 _("Sta_ges, e.g. 10s:50, 30s:50, 10s:0"));
  adw_preferences_row_set_use_underline (ADW_PREFERENCES_ROW (load->stages), TRUE);
  gtk_widget_set_tooltip_text (GTK_WIDGET (load->stages),
                               _("Ramps the number of users (duration:users, linear); "
                                 "replaces Users and Duration"));
  riv_a11y_set_name (GTK_WIDGET (load->stages), _("Stages"));
  adw_preferences_group_add (ADW_PREFERENCES_GROUP (group), GTK_WIDGET (load->stages));
  g_signal_connect_object (load->stages, "changed", G_CALLBACK (stages_changed_cb), self,
                           G_CONNECT_SWAPPED);
  return group;
}

/* Where each chart goes: two columns on a wide window, one on a narrow one. */
static const struct {
  int column, row, width;
} chart_places[2][RIV_LOAD_N_CHARTS] = {
  { [RIV_LOAD_CHART_THROUGHPUT] = { 0, 0, 1 }, [RIV_LOAD_CHART_LATENCY] = { 1, 0, 1 },
    [RIV_LOAD_CHART_IN_FLIGHT] = { 0, 1, 1 }, [RIV_LOAD_CHART_USERS] = { 1, 1, 1 },
    [RIV_LOAD_CHART_BATCHES] = { 0, 2, 2 } },
  { [RIV_LOAD_CHART_THROUGHPUT] = { 0, 0, 1 }, [RIV_LOAD_CHART_LATENCY] = { 0, 1, 1 },
    [RIV_LOAD_CHART_IN_FLIGHT] = { 0, 2, 1 }, [RIV_LOAD_CHART_USERS] = { 0, 3, 1 },
    [RIV_LOAD_CHART_BATCHES] = { 0, 4, 1 } },
};

static void
place_charts (RivWindowLoad *load,
              gboolean       narrow)
{
  GtkLayoutManager *layout = gtk_widget_get_layout_manager (GTK_WIDGET (load->chart_grid));

  for (guint i = 0; i < RIV_LOAD_N_CHARTS; i++)
    {
      GtkGridLayoutChild *child = GTK_GRID_LAYOUT_CHILD (
        gtk_layout_manager_get_layout_child (layout, GTK_WIDGET (load->charts[i])));

      gtk_grid_layout_child_set_column (child, chart_places[narrow][i].column);
      gtk_grid_layout_child_set_row (child, chart_places[narrow][i].row);
      gtk_grid_layout_child_set_column_span (child, chart_places[narrow][i].width);
    }
}

static RivChart *
add_chart (RivWindowLoad *load,
           guint          which,
           const char    *title,
           const char    *unit)
{
  GtkWidget *chart = riv_chart_new (title, unit);

  gtk_widget_set_hexpand (chart, TRUE);
  gtk_widget_set_vexpand (chart, TRUE);
  gtk_grid_attach (load->chart_grid, chart, chart_places[0][which].column,
                   chart_places[0][which].row, chart_places[0][which].width, 1);
  load->charts[which] = RIV_CHART (chart);
  return RIV_CHART (chart);
}

void
_riv_window_load_set_narrow (RivWindow *self,
                             gboolean   narrow)
{
  place_charts (self->load, narrow);
}

static GtkWidget *
build_charts (RivWindow *self)
{
  RivWindowLoad *load = self->load;
  GtkWidget *box = gtk_box_new (GTK_ORIENTATION_VERTICAL, 12);
  GtkWidget *header = gtk_box_new (GTK_ORIENTATION_HORIZONTAL, 12);
  GtkWidget *grid = gtk_grid_new ();
  GtkWidget *scrolled = gtk_scrolled_window_new ();
  RivChart **charts = load->charts;

  gtk_widget_set_margin_start (box, 18);
  gtk_widget_set_margin_end (box, 18);
  gtk_widget_set_margin_top (box, 12);
  gtk_widget_set_margin_bottom (box, 12);

  load->summary = GTK_LABEL (gtk_label_new (_("Start a load test to see its charts here")));
  gtk_label_set_xalign (load->summary, 0);
  gtk_label_set_wrap (load->summary, TRUE);
  gtk_widget_set_hexpand (GTK_WIDGET (load->summary), TRUE);
  gtk_widget_add_css_class (GTK_WIDGET (load->summary), "numeric");
  gtk_box_append (GTK_BOX (header), GTK_WIDGET (load->summary));
  load->save_button = GTK_BUTTON (gtk_button_new_with_mnemonic (_("Save _Report…")));
  gtk_actionable_set_action_name (GTK_ACTIONABLE (load->save_button), "win.save-load-report");
  gtk_widget_set_tooltip_text (GTK_WIDGET (load->save_button),
                               _("Save the load test as an HTML report with its charts"));
  riv_a11y_set_name (GTK_WIDGET (load->save_button), _("Save _Report…"));
  gtk_widget_set_valign (GTK_WIDGET (load->save_button), GTK_ALIGN_CENTER);
  gtk_box_append (GTK_BOX (header), GTK_WIDGET (load->save_button));
  gtk_box_append (GTK_BOX (box), header);

  load->chart_grid = GTK_GRID (grid);
  gtk_grid_set_row_spacing (GTK_GRID (grid), 18);
  gtk_grid_set_column_spacing (GTK_GRID (grid), 18);
  gtk_grid_set_column_homogeneous (GTK_GRID (grid), TRUE);
  riv_chart_add_series (add_chart (load, RIV_LOAD_CHART_THROUGHPUT, _("Throughput"), "/s"),
                        _("completed"), COLOR_BLUE);
  riv_chart_add_series (charts[RIV_LOAD_CHART_THROUGHPUT], _("failed"), COLOR_RED);
  riv_chart_add_series (add_chart (load, RIV_LOAD_CHART_LATENCY, _("Latency"), "s"),
                        "p50", COLOR_GREEN);
  riv_chart_add_series (charts[RIV_LOAD_CHART_LATENCY], "p95", COLOR_ORANGE);
  riv_chart_add_series (add_chart (load, RIV_LOAD_CHART_IN_FLIGHT, _("Jobs"), NULL),
                        _("in flight"), COLOR_BLUE);
  riv_chart_add_series (charts[RIV_LOAD_CHART_IN_FLIGHT], _("queued"), COLOR_PURPLE);
  riv_chart_add_series (add_chart (load, RIV_LOAD_CHART_USERS, _("Users"), NULL),
                        _("active"), COLOR_GREEN);
  riv_chart_add_series (add_chart (load, RIV_LOAD_CHART_BATCHES, _("Batch Sizes"), NULL),
                        _("batches"), COLOR_PURPLE);
  gtk_box_append (GTK_BOX (box), grid);

  gtk_scrolled_window_set_policy (GTK_SCROLLED_WINDOW (scrolled), GTK_POLICY_NEVER,
                                  GTK_POLICY_AUTOMATIC);
  gtk_scrolled_window_set_child (GTK_SCROLLED_WINDOW (scrolled), box);
  return scrolled;
}

static void
mode_changed_cb (RivWindow  *self,
                 GParamSpec *pspec,
                 GtkStack   *stack)
{
  RivWindowLoad *load = self->load;
  gboolean loading = g_strcmp0 (gtk_stack_get_visible_child_name (stack), "load") == 0;

  gtk_widget_set_visible (GTK_WIDGET (self->burst_button), !loading);
  gtk_widget_set_visible (GTK_WIDGET (load->button), loading);
  gtk_stack_set_visible_child_name (load->view_stack, loading ? "charts" : "output");
  /* The users' jobs are not the window's: the charts take the job panel's room. */
  gtk_widget_set_visible (GTK_WIDGET (self->job_panel), !loading);
}

void
riv_window_set_load_mode (RivWindow *self,
                          gboolean   loading)
{
  g_return_if_fail (RIV_IS_WINDOW (self));

  gtk_stack_set_visible_child_name (self->load->mode_stack, loading ? "load" : "burst");
}

void
riv_window_set_load (RivWindow  *self,
                     guint       users,
                     double      duration,
                     double      think,
                     const char *stages)
{
  g_return_if_fail (RIV_IS_WINDOW (self));

  gtk_spin_button_set_value (self->load->users, users);
  gtk_spin_button_set_value (self->load->duration, duration);
  gtk_spin_button_set_value (self->load->think, think);
  gtk_editable_set_text (GTK_EDITABLE (self->load->stages), stages != NULL ? stages : "");
}

RivLoadRun *
riv_window_get_load_run (RivWindow *self)
{
  g_return_val_if_fail (RIV_IS_WINDOW (self), NULL);

  return self->load->run;
}

RivMetrics *
riv_window_get_load_metrics (RivWindow *self)
{
  g_return_val_if_fail (RIV_IS_WINDOW (self), NULL);

  return self->load->metrics;
}

RivChart *
riv_window_get_load_chart (RivWindow    *self,
                           RivLoadChart  chart)
{
  g_return_val_if_fail (RIV_IS_WINDOW (self), NULL);
  g_return_val_if_fail (chart < RIV_LOAD_N_CHARTS, NULL);

  return self->load->charts[chart];
}

void
_riv_window_load_update_actions (RivWindow *self)
{
  RivWindowLoad *load = self->load;
  gboolean running = load != NULL && load->run != NULL && riv_load_run_is_running (load->run);

  if (load == NULL)
    return;
  gtk_widget_action_set_enabled (GTK_WIDGET (self), "win.load", can_start (self));
  gtk_widget_action_set_enabled (GTK_WIDGET (self), "win.stop-load", running);
  gtk_widget_action_set_enabled (GTK_WIDGET (self), "win.save-load-report",
                                 load->run != NULL && riv_load_run_is_finished (load->run));
}

void
_riv_window_class_load_init (GtkWidgetClass *widget_class)
{
  gtk_widget_class_install_action (widget_class, "win.load", NULL, load_action);
  gtk_widget_class_install_action (widget_class, "win.stop-load", NULL, stop_load_action);
  gtk_widget_class_install_action (widget_class, "win.save-load-report", NULL,
                                   save_report_action);
  g_type_ensure (RIV_TYPE_CHART);
}

void
_riv_window_load_init (RivWindow *self)
{
  RivWindowLoad *load = g_new0 (RivWindowLoad, 1);
  GtkWidget *burst_group = gtk_widget_get_ancestor (GTK_WIDGET (self->burst_count),
                                                    ADW_TYPE_PREFERENCES_GROUP);
  GtkWidget *column = gtk_widget_get_parent (burst_group);
  GtkWidget *output = GTK_WIDGET (self->output_view);
  GtkPaned *paned = GTK_PANED (gtk_widget_get_parent (output));
  GtkWidget *switcher = gtk_stack_switcher_new ();
  GtkWidget *button_box = gtk_widget_get_parent (GTK_WIDGET (self->burst_button));

  self->load = load;

  /* Left: Burst | Load, the existing Burst settings as the first page. */
  load->mode_stack = GTK_STACK (gtk_stack_new ());
  g_object_ref (burst_group);
  gtk_box_remove (GTK_BOX (column), burst_group);
  gtk_stack_add_titled (load->mode_stack, burst_group, "burst", _("Burst"));
  g_object_unref (burst_group);
  gtk_stack_add_titled (load->mode_stack, build_settings (self), "load", _("Load Test"));
  gtk_stack_switcher_set_stack (GTK_STACK_SWITCHER (switcher), load->mode_stack);
  riv_a11y_set_name (switcher, _("Mode"));
  gtk_box_append (GTK_BOX (column), switcher);
  gtk_box_append (GTK_BOX (column), GTK_WIDGET (load->mode_stack));

  /* Right: the output view, or the charts. */
  load->view_stack = GTK_STACK (gtk_stack_new ());
  g_object_ref (output);
  gtk_paned_set_start_child (paned, NULL);
  gtk_stack_add_named (load->view_stack, output, "output");
  g_object_unref (output);
  gtk_stack_add_named (load->view_stack, build_charts (self), "charts");
  gtk_paned_set_start_child (paned, GTK_WIDGET (load->view_stack));

  /* Bottom: Start Load takes Burst's place in Load mode. */
  load->button = GTK_BUTTON (gtk_button_new ());
  gtk_button_set_use_underline (load->button, TRUE);
  gtk_widget_set_hexpand (GTK_WIDGET (load->button), TRUE);
  gtk_widget_add_css_class (GTK_WIDGET (load->button), "pill");
  gtk_widget_set_tooltip_text (GTK_WIDGET (load->button),
                               _("Start or stop the load test (virtual users)"));
  gtk_box_insert_child_after (GTK_BOX (button_box), GTK_WIDGET (load->button),
                              GTK_WIDGET (self->burst_button));
  update_button (self);

  g_signal_connect_object (load->mode_stack, "notify::visible-child-name",
                           G_CALLBACK (mode_changed_cb), self, G_CONNECT_SWAPPED);
  mode_changed_cb (self, NULL, load->mode_stack);
}

void
_riv_window_load_dispose (RivWindow *self)
{
  RivWindowLoad *load = self->load;

  if (load == NULL)
    return;
  if (load->run != NULL)
    {
      g_signal_handlers_disconnect_by_data (load->run, self);
      /* Its thread stops the users, closes their clients and lets go of it. */
      riv_load_run_stop (load->run, TRUE);
    }
  g_clear_object (&load->run);
  g_clear_pointer (&load->metrics, riv_metrics_unref);
  g_clear_pointer (&self->load, g_free);
}
