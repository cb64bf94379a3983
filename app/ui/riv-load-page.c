/* riv-load-page.c
 * Copyright 2026 The Rivulet authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Virtual users (RivLoadRun, the engine rivulet-cli load uses) against an
 * endpoint with the form's inputs, for a duration or k6-style stages, with a
 * think time. Each sample (one a second) goes into the live charts
 * (RivChart), which queue one redraw; "Save Report" writes the HTML of
 * rivulet-cli load --report. The run before stays beside the newest: its
 * lines dashed in the charts, and each result with its change from it and
 * whether the change is beyond the runs' noise (riv-compare.h, as
 * rivulet-cli report compare judges it).
 */
#include "config.h"

#include <glib/gi18n.h>
#include <math.h>
#include <string.h>

#include "riv-a11y.h"
#include "riv-file-chooser.h"
#include "riv-format.h"
#include "riv-load-page.h"
#include "riv-settings.h"

struct _RivLoadPage
{
  AdwBin            parent_instance;

  /* Template widgets */
  GtkLabel         *summary;
  GtkButton        *save_button;
  GtkGrid          *chart_grid;
  GtkFlowBox       *results;
  RivChart         *throughput_chart;
  RivChart         *latency_chart;
  RivChart         *in_flight_chart;
  RivChart         *users_chart;
  RivChart         *batches_chart;
  RivChart         *first_chart;
  RivChart         *charts[RIV_LOAD_N_CHARTS];   /* the six above, by RivLoadChart */

  /* The latest of the run's per-second figures, for the summary line: a
   * second in which no job finished has none, the one before still holds. */
  double            last_p95;
  double            last_first_p95;
  guint64           stalls;

  /* Owned references */
  RivClient        *client;         /* nullable */
  RivLoadSettings  *settings;       /* nullable */
  GSettings        *gsettings;      /* the app's: metrics-address */
  RivLoadRun       *run;            /* nullable: the newest run */
  RivMetrics       *metrics;        /* nullable: the newest run's /metrics, kept after it */
  RivCompare       *compare;        /* the run before (A) and the newest (B), as jobs end */
  GPtrArray        *examples;       /* nullable: the next run's jobs take these in turn */
  RivLoadSummary    shown;          /* the results shown last (have_shown) … */
  RivLoadSummary    previous;       /* … and those of the run before (have_previous) */
  gboolean          have_shown;
  gboolean          have_previous;
  GCancellable     *cancellable;    /* cancelled on dispose */
};

enum
{
  PROP_0,
  PROP_CLIENT,
  PROP_SETTINGS,
  PROP_RUNNING,
  N_PROPS
};

enum
{
  SIGNAL_TOAST,
  N_SIGNALS
};

G_DEFINE_FINAL_TYPE (RivLoadPage, riv_load_page, ADW_TYPE_BIN)

static GParamSpec *properties[N_PROPS];
static guint signals[N_SIGNALS];

/* GNOME palette (blue 3, red 3, green 4, orange 3, purple 3). */
#define COLOR_BLUE   "#3584e4"
#define COLOR_RED    "#e01b24"
#define COLOR_GREEN  "#2ec27e"
#define COLOR_ORANGE "#ff7800"
#define COLOR_PURPLE "#9141ac"

static void
toast (RivLoadPage *self,
       const char  *message)
{
  g_signal_emit (self, signals[SIGNAL_TOAST], 0, message);
}

static void
update_summary (RivLoadPage         *self,
                const RivLoadSample *sample)
{
  RivLoadRun *run = self->run;
  double elapsed = riv_load_run_get_elapsed (run);
  guint64 completed = riv_load_run_get_completed (run);
  g_autofree char *text = NULL;

  g_autofree char *p95 = NULL;
  g_autofree char *first = NULL;

  if (sample != NULL)
    {
      if (sample->p95 >= 0)
        self->last_p95 = sample->p95;
      if (sample->first_p95 >= 0)
        self->last_first_p95 = sample->first_p95;
      self->stalls += sample->stalls;
    }
  p95 = self->last_p95 >= 0 ? g_strdup_printf ("%.2f s", self->last_p95) : g_strdup ("—");
  first = self->last_first_p95 >= 0 ? g_strdup_printf ("%.2f s", self->last_first_p95)
                                    : g_strdup ("—");
  /* TRANSLATORS: the Load mode's live summary: seconds, users, jobs, jobs a second, the
   * latency's and the time to first update's 95th percentiles, the stalls (gaps between
   * streamed updates over a second) */
  text = g_strdup_printf (_("%.0f s · %u users · %llu completed · %llu failed · %llu lost · "
                            "%.1f jobs/s · p95 %s · first update p95 %s · %llu stalls"),
                          elapsed, sample != NULL ? sample->users : riv_load_run_get_active_users (run),
                          (unsigned long long) completed,
                          (unsigned long long) riv_load_run_get_failed (run),
                          (unsigned long long) riv_load_run_get_lost (run),
                          elapsed > 0 ? completed / elapsed : 0, p95, first,
                          (unsigned long long) self->stalls);
  gtk_label_set_label (self->summary, text);
}

static void
update_batches (RivLoadPage *self)
{
  guint max_size = 0;
  g_autofree guint64 *counts = riv_load_run_dup_batch_sizes (self->run, &max_size);
  g_autofree double *values = NULL;

  if (max_size == 0)
    return;
  values = g_new0 (double, max_size);
  for (guint s = 1; s <= max_size; s++)
    values[s - 1] = (double) counts[s];
  riv_chart_set_bars (self->charts[RIV_LOAD_CHART_BATCHES], values, max_size, 1);
}

static double
latency_or_none (double seconds)
{
  return seconds >= 0 ? seconds : NAN;
}

static void
sample_cb (RivLoadPage         *self,
           const RivLoadSample *sample,
           RivLoadRun          *run)
{
  double throughput[] = { sample->completed, sample->failed };
  double latency[] = { latency_or_none (sample->p50), latency_or_none (sample->p95) };
  double first[] = { latency_or_none (sample->first_p50), latency_or_none (sample->first_p95) };
  double in_flight[] = { sample->in_flight, sample->queued };
  double users[] = { sample->users };
  double span = sample->t - floor (sample->t - 1e-9);

  if (run != self->run)
    return;
  /* A last partial second counts per second like the others. */
  if (span > 0 && span < 1)
    {
      throughput[0] /= span;
      throughput[1] /= span;
    }

  /* Each push queues a redraw: GTK draws the charts once in the next frame. */
  riv_chart_push (self->charts[RIV_LOAD_CHART_THROUGHPUT], sample->t, throughput);
  riv_chart_push (self->charts[RIV_LOAD_CHART_LATENCY], sample->t, latency);
  riv_chart_push (self->charts[RIV_LOAD_CHART_FIRST], sample->t, first);
  riv_chart_push (self->charts[RIV_LOAD_CHART_IN_FLIGHT], sample->t, in_flight);
  riv_chart_push (self->charts[RIV_LOAD_CHART_USERS], sample->t, users);
  update_batches (self);
  update_summary (self, sample);
}

static void
update_actions (RivLoadPage *self)
{
  gtk_widget_action_set_enabled (GTK_WIDGET (self), "load-page.save-report",
                                 self->run != NULL && riv_load_run_is_finished (self->run));
}

/* The figure of the comparison with the run before named name, or NULL
 * when there was no run before. */
static const RivCompareFigure *
compared_figure (RivLoadPage *self,
                 const char  *name)
{
  const RivCompareFigure *figures;
  guint n = 0;

  if (name == NULL || self->compare == NULL || riv_compare_get_jobs (self->compare, 0, 0) == 0)
    return NULL;
  figures = riv_compare_get_figures (self->compare, 0, &n);
  for (guint i = 0; i < n; i++)
    if (strcmp (figures[i].name, name) == 0)
      return figures[i].known[0] && figures[i].known[1] ? &figures[i] : NULL;
  return NULL;
}

/* A result's change from the run before: "+12 % vs previous", coloured
 * when it is beyond noise (red worse, green better), dim when it is not. */
static GtkWidget *
change_label (const RivCompareFigure *f)
{
  double ratio = 1;
  gboolean worse = FALSE;
  g_autofree char *text = NULL;
  const char *verdict;
  GtkWidget *label;

  if (!riv_compare_figure_ratio (f, &ratio))
    return NULL;
  worse = (f->value[1] > f->value[0]) == (f->sense == RIV_COMPARE_LOWER_IS_BETTER);
  /* TRANSLATORS: under a load test's result: its change from the run before, in percent */
  text = g_strdup_printf (_("%+.0f %% vs previous"), (ratio - 1) * 100);
  if (!f->tested)
    verdict = _("Too few jobs to tell a change from noise");
  else if (!f->beyond_noise)
    verdict = _("Within the runs' own noise");
  else
    verdict = worse ? _("Worse, beyond the runs' own noise")
                    : _("Better, beyond the runs' own noise");
  label = gtk_label_new (text);
  gtk_widget_set_tooltip_text (label, verdict);
  gtk_accessible_update_property (GTK_ACCESSIBLE (label), GTK_ACCESSIBLE_PROPERTY_DESCRIPTION,
                                  verdict, -1);
  gtk_widget_add_css_class (label, "caption");
  gtk_widget_add_css_class (label, "numeric");
  if (f->tested && f->beyond_noise)
    gtk_widget_add_css_class (label, worse ? "error" : "success");
  else
    gtk_widget_add_css_class (label, "dim-label");
  return label;
}

/* One figure of the results: its value large, what it is below, and below
 * that, after a run before, its change from it (figure: riv-compare.h's
 * name), or for a count its value then (was: the count then). */
static void
add_result (RivLoadPage *self,
            const char  *what,
            char        *value,
            const char  *style,
            const char  *figure,
            guint64      was)
{
  GtkWidget *box = gtk_box_new (GTK_ORIENTATION_VERTICAL, 2);
  GtkWidget *number = gtk_label_new (value);
  GtkWidget *label = gtk_label_new (what);
  const RivCompareFigure *compared = compared_figure (self, figure);
  GtkWidget *change = compared != NULL ? change_label (compared) : NULL;

  /* Every tile has the line when one has: the tiles stay alike. */
  if (change == NULL && self->have_previous)
    {
      g_autofree char *then = figure == NULL
        /* TRANSLATORS: under a count of a load test's results: the count in the run before */
        ? g_strdup_printf (_("was %llu"), (unsigned long long) was)
        /* TRANSLATORS: under a load test's result that the run before did not measure */
        : g_strdup (_("not measured before"));

      change = gtk_label_new (then);
      gtk_widget_add_css_class (change, "caption");
      gtk_widget_add_css_class (change, "dim-label");
    }

  gtk_widget_add_css_class (box, "card");
  gtk_widget_set_margin_top (number, 6);
  gtk_widget_set_margin_bottom (label, 6);
  gtk_widget_set_margin_start (box, 0);
  gtk_widget_add_css_class (number, "title-3");
  gtk_widget_add_css_class (number, "numeric");
  if (style != NULL)
    gtk_widget_add_css_class (number, style);
  gtk_widget_add_css_class (label, "caption");
  gtk_widget_add_css_class (label, "dim-label");
  gtk_box_append (GTK_BOX (box), number);
  gtk_box_append (GTK_BOX (box), label);
  if (change != NULL)
    {
      gtk_widget_set_margin_bottom (change, 6);
      gtk_widget_set_margin_bottom (label, 0);
      gtk_box_append (GTK_BOX (box), change);
    }
  gtk_flow_box_append (self->results, box);
  g_free (value);
}

static char *
seconds_or_none (double   seconds,
                 gboolean measured)
{
  return measured ? riv_format_duration (seconds) : g_strdup ("—");
}

/* The headline figures of a run that ended, from its statistics. */
static void
show_results (RivLoadPage *self,
              RivLoadRun  *run)
{
  RivLoadSummary s;
  GtkWidget *child;

  /* Shown before its tiles change: GTK 4.8's flow box keeps the sizes of
   * tiles replaced while it was hidden, and taller tiles overflowed. */
  gtk_widget_set_visible (GTK_WIDGET (self->results), TRUE);
  while ((child = gtk_widget_get_first_child (GTK_WIDGET (self->results))) != NULL)
    gtk_flow_box_remove (self->results, child);
  riv_load_stats_summarize (riv_load_run_get_stats (run), &s);
  add_result (self, _("completed"), g_strdup_printf ("%" G_GUINT64_FORMAT, s.completed), NULL,
              NULL, self->previous.completed);
  add_result (self, _("failed"), g_strdup_printf ("%" G_GUINT64_FORMAT, s.failed),
              s.failed > 0 ? "error" : NULL, NULL, self->previous.failed);
  add_result (self, _("lost"), g_strdup_printf ("%" G_GUINT64_FORMAT, s.lost),
              s.lost > 0 ? "error" : NULL, NULL, self->previous.lost);
  add_result (self, _("jobs per second"), g_strdup_printf ("%.1f", s.throughput_per_s), NULL,
              "throughput", 0);
  add_result (self, _("latency p50"), seconds_or_none (s.p50, s.completed > 0), NULL, "p50", 0);
  add_result (self, _("latency p95"), seconds_or_none (s.p95, s.completed > 0), NULL, "p95", 0);
  add_result (self, _("latency p99"), seconds_or_none (s.p99, s.completed > 0), NULL, "p99", 0);
  add_result (self, _("first update p50"), seconds_or_none (s.first_p50, s.first_n > 0), NULL,
              "ttfu_p50", 0);
  add_result (self, _("first update p95"), seconds_or_none (s.first_p95, s.first_n > 0), NULL,
              "ttfu_p95", 0);
  add_result (self, _("stalls"), g_strdup_printf ("%" G_GUINT64_FORMAT, s.stalls),
              s.stalls > 0 ? "warning" : NULL, NULL, self->previous.stalls);
  self->shown = s;
  self->have_shown = TRUE;
}

static void
finished_cb (RivLoadPage *self,
             RivLoadRun  *run)
{
  g_autofree char *text = NULL;

  if (run != self->run)
    return;
  update_summary (self, NULL);
  show_results (self, run);
  update_actions (self);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_RUNNING]);
  text = g_strdup_printf (_("Load test finished: %llu completed, %llu failed, %llu lost"),
                          (unsigned long long) riv_load_run_get_completed (run),
                          (unsigned long long) riv_load_run_get_failed (run),
                          (unsigned long long) riv_load_run_get_lost (run));
  toast (self, text);
}

/* Prometheus metrics from the preferences (metrics-address), as load --metrics;
 * kept after the run so that its last values can be scraped. */
static void
start_metrics (RivLoadPage *self)
{
  g_autofree char *address = g_strstrip (g_settings_get_string (self->gsettings, "metrics-address"));
  g_autoptr(GError) error = NULL;

  g_clear_pointer (&self->metrics, riv_metrics_unref);
  if (*address == '\0')
    return;
  self->metrics = riv_metrics_new ();
  if (riv_metrics_listen (self->metrics, address, &error))
    {
      riv_load_run_set_metrics (self->run, self->metrics);
      return;
    }
  {
    g_autofree char *text = g_strdup_printf (_("Metrics not served: %s"), error->message);

    toast (self, text);
  }
  g_clear_pointer (&self->metrics, riv_metrics_unref);
}

static void
drop_run (RivLoadPage *self)
{
  if (self->run == NULL)
    return;
  g_signal_handlers_disconnect_by_data (self->run, self);
  g_clear_object (&self->run);
}

gboolean
riv_load_page_start (RivLoadPage *self,
                     const char  *endpoint_name,
                     JsonNode    *data)
{
  g_autoptr(GArray) stages = NULL;
  g_autoptr(GError) error = NULL;

  g_return_val_if_fail (RIV_IS_LOAD_PAGE (self), FALSE);

  if (self->client == NULL || self->settings == NULL || riv_load_page_get_running (self))
    return FALSE;
  if (!riv_load_settings_get_stages (self->settings, &stages, &error))
    {
      toast (self, _("Stages are DURATION:USERS pairs, e.g. 10s:50, 30s:50, 10s:0"));
      return FALSE;
    }
  if (endpoint_name == NULL || data == NULL || !JSON_NODE_HOLDS_ARRAY (data))
    return FALSE;

  drop_run (self);
  self->run = riv_load_run_new (self->client, endpoint_name, data);
  /* Stages ramp from 0 users (as rivulet-cli load --stages does) and set the length. */
  riv_load_run_set_users (self->run,
                          stages != NULL ? 0 : riv_load_settings_get_users (self->settings),
                          riv_load_settings_get_think (self->settings),
                          stages != NULL ? 0 : riv_load_settings_get_duration (self->settings), 0);
  riv_load_run_set_stages (self->run, g_steal_pointer (&stages));
  start_metrics (self);
  /* The newest run with jobs becomes the one before this one. */
  if (self->compare == NULL)
    self->compare = riv_compare_new ();
  else if (riv_compare_get_jobs (self->compare, 0, 1) > 0)
    {
      riv_compare_shift (self->compare);
      self->previous = self->shown;
      self->have_previous = self->have_shown;
    }
  riv_load_run_set_compare (self->run, self->compare, 1);
  riv_load_run_set_templates (self->run, self->examples);
  /* Thousands of users' streams and replies are handled on the run's own
   * thread: the main loop only gets one sample a second to draw. */
  riv_load_run_set_threaded (self->run, TRUE);
  g_signal_connect_object (self->run, "sample", G_CALLBACK (sample_cb), self, G_CONNECT_SWAPPED);
  g_signal_connect_object (self->run, "finished", G_CALLBACK (finished_cb), self,
                           G_CONNECT_SWAPPED);

  for (guint i = 0; i < RIV_LOAD_N_CHARTS; i++)
    riv_chart_clear_to_previous (self->charts[i]);
  self->last_p95 = self->last_first_p95 = -1;
  self->stalls = 0;
  gtk_widget_set_visible (GTK_WIDGET (self->results), FALSE);
  if (!riv_load_run_start (self->run, &error))
    {
      g_autofree char *text = g_strdup_printf (_("Could not start the load test: %s"),
                                               error->message);

      toast (self, text);
      g_clear_object (&self->run);
      return FALSE;
    }

  update_summary (self, NULL);
  update_actions (self);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_RUNNING]);
  return TRUE;
}

void
riv_load_page_stop (RivLoadPage *self)
{
  g_return_if_fail (RIV_IS_LOAD_PAGE (self));

  if (self->run != NULL)
    riv_load_run_stop (self->run, TRUE);
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
riv_load_page_save_report_async (RivLoadPage         *self,
                                 GFile               *file,
                                 GAsyncReadyCallback  callback,
                                 gpointer             user_data)
{
  g_autoptr(GTask) task = NULL;
  g_autoptr(GBytes) bytes = NULL;
  char *html;

  g_return_if_fail (RIV_IS_LOAD_PAGE (self));
  g_return_if_fail (G_IS_FILE (file));

  task = g_task_new (self, self->cancellable, callback, user_data);
  g_task_set_source_tag (task, riv_load_page_save_report_async);
  if (self->run == NULL)
    {
      g_task_return_new_error (task, G_IO_ERROR, G_IO_ERROR_NOT_FOUND,
                               _("No load test has run yet"));
      return;
    }

  /* The page is built on the main thread from the run's statistics (they
   * change while it runs); the writing is async. */
  html = riv_load_run_dup_report (self->run, NULL, 0);
  bytes = g_bytes_new_take (html, strlen (html));
  g_file_replace_contents_bytes_async (file, bytes, NULL, FALSE,
                                       G_FILE_CREATE_REPLACE_DESTINATION, self->cancellable,
                                       report_written_cb, g_steal_pointer (&task));
}

gboolean
riv_load_page_save_report_finish (RivLoadPage   *self,
                                  GAsyncResult  *result,
                                  GError       **error)
{
  g_return_val_if_fail (g_task_is_valid (result, self), FALSE);

  return g_task_propagate_boolean (G_TASK (result), error);
}

typedef struct
{
  RivLoadPage *self;   /* owned */
  GFile       *file;   /* owned */
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

  if (!riv_load_page_save_report_finish (data->self, result, &error))
    {
      if (!g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
        text = g_strdup_printf (_("Could not save the report to %s: %s"), name, error->message);
    }
  else
    text = g_strdup_printf (_("Saved the report to %s"), name);
  if (text != NULL)
    toast (data->self, text);
  save_data_free (data);
}

static void
save_chosen_cb (GFile         *file,
                GtkFileFilter *filter,
                gpointer       user_data)
{
  RivLoadPage *self = user_data;
  SaveData *data = g_new0 (SaveData, 1);

  data->self = g_object_ref (self);
  data->file = g_object_ref (file);
  riv_load_page_save_report_async (self, file, save_done_cb, data);
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

/* The charts */

/* Where each chart goes: two columns on a wide window, one on a narrow one. */
static const struct {
  int column, row, width;
} chart_places[2][RIV_LOAD_N_CHARTS] = {
  { [RIV_LOAD_CHART_THROUGHPUT] = { 0, 0, 1 }, [RIV_LOAD_CHART_LATENCY] = { 1, 0, 1 },
    [RIV_LOAD_CHART_FIRST] = { 0, 1, 1 }, [RIV_LOAD_CHART_IN_FLIGHT] = { 1, 1, 1 },
    [RIV_LOAD_CHART_USERS] = { 0, 2, 1 }, [RIV_LOAD_CHART_BATCHES] = { 1, 2, 1 } },
  { [RIV_LOAD_CHART_THROUGHPUT] = { 0, 0, 1 }, [RIV_LOAD_CHART_LATENCY] = { 0, 1, 1 },
    [RIV_LOAD_CHART_FIRST] = { 0, 2, 1 }, [RIV_LOAD_CHART_IN_FLIGHT] = { 0, 3, 1 },
    [RIV_LOAD_CHART_USERS] = { 0, 4, 1 }, [RIV_LOAD_CHART_BATCHES] = { 0, 5, 1 } },
};

void
riv_load_page_set_narrow (RivLoadPage *self,
                          gboolean     narrow)
{
  GtkLayoutManager *layout;

  g_return_if_fail (RIV_IS_LOAD_PAGE (self));

  layout = gtk_widget_get_layout_manager (GTK_WIDGET (self->chart_grid));
  for (guint i = 0; i < RIV_LOAD_N_CHARTS; i++)
    {
      GtkGridLayoutChild *child = GTK_GRID_LAYOUT_CHILD (
        gtk_layout_manager_get_layout_child (layout, GTK_WIDGET (self->charts[i])));

      gtk_grid_layout_child_set_column (child, chart_places[!!narrow][i].column);
      gtk_grid_layout_child_set_row (child, chart_places[!!narrow][i].row);
      gtk_grid_layout_child_set_column_span (child, chart_places[!!narrow][i].width);
    }
}

/* The series and their colours; the charts themselves are in the template. */
static void
add_series (RivLoadPage *self)
{
  RivChart **charts = self->charts;

  charts[RIV_LOAD_CHART_THROUGHPUT] = self->throughput_chart;
  charts[RIV_LOAD_CHART_LATENCY] = self->latency_chart;
  charts[RIV_LOAD_CHART_IN_FLIGHT] = self->in_flight_chart;
  charts[RIV_LOAD_CHART_USERS] = self->users_chart;
  charts[RIV_LOAD_CHART_BATCHES] = self->batches_chart;
  charts[RIV_LOAD_CHART_FIRST] = self->first_chart;
  riv_chart_add_series (charts[RIV_LOAD_CHART_THROUGHPUT], _("completed"), COLOR_BLUE);
  riv_chart_add_series (charts[RIV_LOAD_CHART_THROUGHPUT], _("failed"), COLOR_RED);
  riv_chart_add_series (charts[RIV_LOAD_CHART_LATENCY], "p50", COLOR_GREEN);
  riv_chart_add_series (charts[RIV_LOAD_CHART_LATENCY], "p95", COLOR_ORANGE);
  riv_chart_add_series (charts[RIV_LOAD_CHART_IN_FLIGHT], _("in flight"), COLOR_BLUE);
  riv_chart_add_series (charts[RIV_LOAD_CHART_IN_FLIGHT], _("queued"), COLOR_PURPLE);
  riv_chart_add_series (charts[RIV_LOAD_CHART_USERS], _("active"), COLOR_GREEN);
  riv_chart_add_series (charts[RIV_LOAD_CHART_BATCHES], _("batches"), COLOR_PURPLE);
  riv_chart_add_series (charts[RIV_LOAD_CHART_FIRST], "p50", COLOR_GREEN);
  riv_chart_add_series (charts[RIV_LOAD_CHART_FIRST], "p95", COLOR_ORANGE);
}

/* Life cycle */

static void
riv_load_page_dispose (GObject *object)
{
  RivLoadPage *self = (RivLoadPage *) object;

  g_cancellable_cancel (self->cancellable);
  if (self->run != NULL)
    {
      g_signal_handlers_disconnect_by_data (self->run, self);
      /* Its thread stops the users, closes their clients and lets go of it. */
      riv_load_run_stop (self->run, TRUE);
    }
  g_clear_object (&self->run);
  g_clear_pointer (&self->metrics, riv_metrics_unref);
  g_clear_object (&self->client);
  g_clear_object (&self->settings);
  g_clear_object (&self->gsettings);
  g_clear_pointer (&self->compare, riv_compare_unref);
  g_clear_pointer (&self->examples, g_ptr_array_unref);
  memset (self->charts, 0, sizeof self->charts);
  /* AdwBin unparents its child itself; let it go before the template does. */
  adw_bin_set_child (ADW_BIN (self), NULL);
  gtk_widget_dispose_template (GTK_WIDGET (self), RIV_TYPE_LOAD_PAGE);

  G_OBJECT_CLASS (riv_load_page_parent_class)->dispose (object);
}

static void
riv_load_page_finalize (GObject *object)
{
  RivLoadPage *self = (RivLoadPage *) object;

  g_clear_object (&self->cancellable);

  G_OBJECT_CLASS (riv_load_page_parent_class)->finalize (object);
}

static void
riv_load_page_get_property (GObject    *object,
                            guint       prop_id,
                            GValue     *value,
                            GParamSpec *pspec)
{
  RivLoadPage *self = RIV_LOAD_PAGE (object);

  switch (prop_id)
    {
    case PROP_CLIENT:
      g_value_set_object (value, riv_load_page_get_client (self));
      break;
    case PROP_SETTINGS:
      g_value_set_object (value, riv_load_page_get_settings (self));
      break;
    case PROP_RUNNING:
      g_value_set_boolean (value, riv_load_page_get_running (self));
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
riv_load_page_set_property (GObject      *object,
                            guint         prop_id,
                            const GValue *value,
                            GParamSpec   *pspec)
{
  RivLoadPage *self = RIV_LOAD_PAGE (object);

  switch (prop_id)
    {
    case PROP_CLIENT:
      riv_load_page_set_client (self, g_value_get_object (value));
      break;
    case PROP_SETTINGS:
      riv_load_page_set_settings (self, g_value_get_object (value));
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
riv_load_page_class_init (RivLoadPageClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->dispose = riv_load_page_dispose;
  object_class->finalize = riv_load_page_finalize;
  object_class->get_property = riv_load_page_get_property;
  object_class->set_property = riv_load_page_set_property;

  properties[PROP_CLIENT] =
    g_param_spec_object ("client", NULL, NULL, RIV_TYPE_CLIENT,
                         G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  properties[PROP_SETTINGS] =
    g_param_spec_object ("settings", NULL, NULL, RIV_TYPE_LOAD_SETTINGS,
                         G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  properties[PROP_RUNNING] =
    g_param_spec_boolean ("running", NULL, NULL, FALSE,
                          G_PARAM_READABLE | G_PARAM_STATIC_STRINGS);
  g_object_class_install_properties (object_class, N_PROPS, properties);

  signals[SIGNAL_TOAST] =
    g_signal_new ("toast", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL,
                  G_TYPE_NONE, 1, G_TYPE_STRING);

  g_type_ensure (RIV_TYPE_CHART);
  gtk_widget_class_set_template_from_resource (widget_class,
                                               RIV_RESOURCE_PATH "/ui/riv-load-page.ui");
  gtk_widget_class_bind_template_child (widget_class, RivLoadPage, summary);
  gtk_widget_class_bind_template_child (widget_class, RivLoadPage, save_button);
  gtk_widget_class_bind_template_child (widget_class, RivLoadPage, chart_grid);
  gtk_widget_class_bind_template_child (widget_class, RivLoadPage, throughput_chart);
  gtk_widget_class_bind_template_child (widget_class, RivLoadPage, latency_chart);
  gtk_widget_class_bind_template_child (widget_class, RivLoadPage, in_flight_chart);
  gtk_widget_class_bind_template_child (widget_class, RivLoadPage, users_chart);
  gtk_widget_class_bind_template_child (widget_class, RivLoadPage, batches_chart);
  gtk_widget_class_bind_template_child (widget_class, RivLoadPage, first_chart);
  gtk_widget_class_bind_template_child (widget_class, RivLoadPage, results);

  gtk_widget_class_install_action (widget_class, "load-page.save-report", NULL,
                                   save_report_action);
}

static void
riv_load_page_init (RivLoadPage *self)
{
  gtk_widget_init_template (GTK_WIDGET (self));
  riv_a11y_set_name (GTK_WIDGET (self->save_button), _("Save _Report…"));
  add_series (self);
  self->last_p95 = self->last_first_p95 = -1;

  self->cancellable = g_cancellable_new ();
  self->gsettings = riv_settings_new ();
  update_actions (self);
}

/* Public */

GtkWidget *
riv_load_page_new (void)
{
  return g_object_new (RIV_TYPE_LOAD_PAGE, NULL);
}

void
riv_load_page_set_client (RivLoadPage *self,
                          RivClient   *client)
{
  g_return_if_fail (RIV_IS_LOAD_PAGE (self));
  g_return_if_fail (client == NULL || RIV_IS_CLIENT (client));

  if (g_set_object (&self->client, client))
    g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_CLIENT]);
}

RivClient *
riv_load_page_get_client (RivLoadPage *self)
{
  g_return_val_if_fail (RIV_IS_LOAD_PAGE (self), NULL);

  return self->client;
}

void
riv_load_page_set_settings (RivLoadPage     *self,
                            RivLoadSettings *settings)
{
  g_return_if_fail (RIV_IS_LOAD_PAGE (self));
  g_return_if_fail (settings == NULL || RIV_IS_LOAD_SETTINGS (settings));

  if (g_set_object (&self->settings, settings))
    g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_SETTINGS]);
}

RivLoadSettings *
riv_load_page_get_settings (RivLoadPage *self)
{
  g_return_val_if_fail (RIV_IS_LOAD_PAGE (self), NULL);

  return self->settings;
}

gboolean
riv_load_page_get_running (RivLoadPage *self)
{
  g_return_val_if_fail (RIV_IS_LOAD_PAGE (self), FALSE);

  return self->run != NULL && riv_load_run_is_running (self->run);
}

RivLoadRun *
riv_load_page_get_run (RivLoadPage *self)
{
  g_return_val_if_fail (RIV_IS_LOAD_PAGE (self), NULL);

  return self->run;
}

RivMetrics *
riv_load_page_get_metrics (RivLoadPage *self)
{
  g_return_val_if_fail (RIV_IS_LOAD_PAGE (self), NULL);

  return self->metrics;
}

RivChart *
riv_load_page_get_chart (RivLoadPage  *self,
                         RivLoadChart  chart)
{
  g_return_val_if_fail (RIV_IS_LOAD_PAGE (self), NULL);
  g_return_val_if_fail (chart < RIV_LOAD_N_CHARTS, NULL);

  return self->charts[chart];
}

char *
riv_load_page_dup_results (RivLoadPage *self)
{
  GString *text = g_string_new (NULL);

  g_return_val_if_fail (RIV_IS_LOAD_PAGE (self), NULL);

  if (!gtk_widget_get_visible (GTK_WIDGET (self->results)))
    return g_string_free (text, FALSE);
  for (GtkWidget *tile = gtk_widget_get_first_child (GTK_WIDGET (self->results)); tile != NULL;
       tile = gtk_widget_get_next_sibling (tile))
    {
      GtkWidget *box = gtk_flow_box_child_get_child (GTK_FLOW_BOX_CHILD (tile));
      GtkWidget *value = gtk_widget_get_first_child (box);
      GtkWidget *what = gtk_widget_get_next_sibling (value);
      GtkWidget *change = gtk_widget_get_next_sibling (what);

      g_string_append_printf (text, "%s%s %s", text->len > 0 ? "\n" : "",
                              gtk_label_get_label (GTK_LABEL (what)),
                              gtk_label_get_label (GTK_LABEL (value)));
      if (change != NULL && gtk_widget_get_tooltip_text (change) != NULL)
        g_string_append_printf (text, " (%s: %s)", gtk_label_get_label (GTK_LABEL (change)),
                                gtk_widget_get_tooltip_text (change));
      else if (change != NULL)
        g_string_append_printf (text, " (%s)", gtk_label_get_label (GTK_LABEL (change)));
    }
  return g_string_free (text, FALSE);
}

void
riv_load_page_set_examples (RivLoadPage *self,
                            GPtrArray   *examples)
{
  g_return_if_fail (RIV_IS_LOAD_PAGE (self));

  g_clear_pointer (&self->examples, g_ptr_array_unref);
  if (examples != NULL && examples->len > 0)
    self->examples = g_ptr_array_ref (examples);
}

const char *
riv_load_page_get_summary (RivLoadPage *self)
{
  g_return_val_if_fail (RIV_IS_LOAD_PAGE (self), NULL);

  return gtk_label_get_label (self->summary);
}
