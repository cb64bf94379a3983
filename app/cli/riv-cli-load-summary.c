/* riv-cli-load-summary.c
 * Copyright 2026 The Rivulet authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * What rivulet-cli load shows and writes: the status line on a terminal, the
 * summary (text or JSON) with each threshold, and the HTML report.
 */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include "riv-cli-load.h"
#include "riv-cli-record.h"
#include "riv-report.h"
#include "riv-util.h"

#define MAX_ERRORS_SHOWN 10

static int
compare_doubles (gconstpointer a,
                 gconstpointer b)
{
  double x = *(const double *) a;
  double y = *(const double *) b;

  return (x > y) - (x < y);
}

static gboolean
status_cb (gpointer data)
{
  LoadRun *run = data;
  double p95 = -1;
  guint64 done = run->completed - run->completed_at_last_status;

  if (run->window->len > 0)
    {
      guint rank;

      g_array_sort (run->window, compare_doubles);
      rank = (guint) MAX (1, (guint) (0.95 * run->window->len + 0.999999));
      p95 = g_array_index (run->window, double, MIN (rank, run->window->len) - 1);
    }
  g_array_set_size (run->window, 0);
  run->completed_at_last_status = run->completed;

  g_printerr ("\r\033[K%5.0fs  users %u  completed %" G_GUINT64_FORMAT " (%" G_GUINT64_FORMAT
              "/s)  p95 %s%.3fs  failed %" G_GUINT64_FORMAT "  lost %" G_GUINT64_FORMAT
              "  in flight %" G_GUINT64_FORMAT,
              load_elapsed (run), run->active_users, run->completed, done,
              p95 < 0 ? "—" : "", p95 < 0 ? 0 : p95, run->failed, run->lost,
              run->submitted - run->finished);
  return G_SOURCE_CONTINUE;
}

void
load_status_start (LoadRun *run)
{
  if (!run->status_line)
    return;
  run->status_source = g_timeout_source_new_seconds (1);
  g_source_set_callback (run->status_source, status_cb, run, NULL);
  g_source_attach (run->status_source, NULL);
}

void
load_status_clear (LoadRun *run)
{
  if (run->status_source == NULL)
    return;
  g_source_destroy (run->status_source);
  g_clear_pointer (&run->status_source, g_source_unref);
  g_printerr ("\r\033[K");
}

static guint64
count_events (LoadRun *run)
{
  return riv_client_get_n_messages (run->client) + run->user_events;
}

static void
add_int (JsonBuilder *builder,
         const char  *name,
         gint64       value)
{
  json_builder_set_member_name (builder, name);
  json_builder_add_int_value (builder, value);
}

static void
add_double (JsonBuilder *builder,
            const char  *name,
            double       value)
{
  json_builder_set_member_name (builder, name);
  json_builder_add_double_value (builder, value);
}

gboolean
load_print_summary (LoadRun *run,
                    FILE    *out)
{
  RivLoadSummary s;
  guint64 events = count_events (run);
  g_autoptr(GArray) errors = riv_load_stats_errors (run->stats);
  gboolean all_ok = TRUE;
  double *measured = g_newa (double, run->thresholds->len + 1);
  gboolean *held = g_newa (gboolean, run->thresholds->len + 1);
  g_autofree char *logs = riv_load_stats_format_logs (run->stats);
  GHashTableIter iter;
  gpointer key, value;

  riv_load_stats_summarize (run->stats, &s);
  s.users = MAX (s.users, run->peak_users);

  for (guint i = 0; i < run->thresholds->len; i++)
    {
      held[i] = riv_load_threshold_check (g_ptr_array_index (run->thresholds, i), &s, &measured[i]);
      all_ok = all_ok && held[i];
    }

  if (run->json)
    {
      g_autoptr(JsonBuilder) builder = json_builder_new ();
      g_autoptr(JsonNode) root = NULL;
      g_autofree char *text = NULL;

      json_builder_begin_object (builder);
      add_int (builder, "submitted", s.submitted);
      add_int (builder, "completed", s.completed);
      add_int (builder, "failed", s.failed);
      add_int (builder, "cancelled", s.cancelled);
      add_int (builder, "lost", s.lost);
      add_int (builder, "users", s.users);
      add_double (builder, "wall_s", s.duration_s);
      add_double (builder, "duration_s", s.duration_s);
      add_double (builder, "throughput_per_s", s.throughput_per_s);
      json_builder_set_member_name (builder, "latency_s");
      json_builder_begin_object (builder);
      add_double (builder, "p50", s.p50);
      add_double (builder, "p90", s.p90);
      add_double (builder, "p95", s.p95);
      add_double (builder, "p99", s.p99);
      add_double (builder, "max", s.max);
      add_double (builder, "mean", s.mean);
      json_builder_end_object (builder);
      add_int (builder, "events", (gint64) events);
      add_int (builder, "updates", (gint64) s.updates);
      json_builder_set_member_name (builder, "batches");
      json_builder_begin_object (builder);
      add_int (builder, "count", (gint64) s.batches);
      add_double (builder, "mean_size", s.mean_batch_size);
      json_builder_end_object (builder);
      json_builder_set_member_name (builder, "logs");
      json_builder_begin_object (builder);
      g_hash_table_iter_init (&iter, riv_load_stats_get_log_counts (run->stats));
      while (g_hash_table_iter_next (&iter, &key, &value))
        add_int (builder, key, (gint64) GPOINTER_TO_SIZE (value));
      json_builder_end_object (builder);
      json_builder_set_member_name (builder, "errors");
      json_builder_begin_array (builder);
      for (guint i = 0; i < errors->len; i++)
        {
          const RivLoadError *e = &g_array_index (errors, RivLoadError, i);

          json_builder_begin_object (builder);
          json_builder_set_member_name (builder, "error");
          json_builder_add_string_value (builder, e->text);
          add_int (builder, "count", (gint64) e->count);
          json_builder_end_object (builder);
        }
      json_builder_end_array (builder);
      json_builder_set_member_name (builder, "thresholds");
      json_builder_begin_array (builder);
      for (guint i = 0; i < run->thresholds->len; i++)
        {
          json_builder_begin_object (builder);
          json_builder_set_member_name (builder, "threshold");
          json_builder_add_string_value (builder,
            riv_load_threshold_get_text (g_ptr_array_index (run->thresholds, i)));
          add_double (builder, "value", measured[i]);
          json_builder_set_member_name (builder, "ok");
          json_builder_add_boolean_value (builder, held[i]);
          json_builder_end_object (builder);
        }
      json_builder_end_array (builder);
      riv_cli_record_add_lint (builder);
      json_builder_end_object (builder);

      root = json_builder_get_root (builder);
      text = riv_json_to_string (root, NULL);
      fprintf (out, "%s\n", text);
    }
  else
    {
      fprintf (out, "submitted  %" G_GUINT64_FORMAT "\n", s.submitted);
      fprintf (out, "completed  %" G_GUINT64_FORMAT "\n", s.completed);
      fprintf (out, "failed     %" G_GUINT64_FORMAT "\n", s.failed);
      fprintf (out, "cancelled  %" G_GUINT64_FORMAT "\n", s.cancelled);
      fprintf (out, "lost       %" G_GUINT64_FORMAT "\n", s.lost);
      if (s.users > 0)
        fprintf (out, "users      %u (peak)\n", s.users);
      fprintf (out, "wall time  %.3f s\n", s.duration_s);
      fprintf (out, "throughput %.1f jobs/s\n", s.throughput_per_s);
      if (s.completed > 0)
        fprintf (out, "latency    p50 %.3f s  p95 %.3f s  p99 %.3f s  max %.3f s\n",
                 s.p50, s.p95, s.p99, s.max);
      else
        fprintf (out, "latency    (no completed jobs)\n");
      fprintf (out, "events     %" G_GUINT64_FORMAT " (%.0f/s)\n", events,
               s.duration_s > 0 ? events / s.duration_s : 0);
      if (s.batches > 0)
        fprintf (out, "batches    %" G_GUINT64_FORMAT ", mean size %.1f\n",
                 s.batches, s.mean_batch_size);
      else
        fprintf (out, "batches    0\n");
      if (logs != NULL)
        fprintf (out, "logs       %s\n", logs);
      if (run->thresholds->len > 0)
        fprintf (out, "thresholds\n");
      for (guint i = 0; i < run->thresholds->len; i++)
        {
          RivLoadThreshold *t = g_ptr_array_index (run->thresholds, i);
          g_autofree char *value = riv_load_threshold_format_value (t, measured[i]);

          fprintf (out, "  %s %-22s measured %s\n", held[i] ? "✓" : "✗",
                   riv_load_threshold_get_text (t), value);
        }
    }

  if (run->stopped && run->finished < run->submitted)
    g_printerr ("rivulet-cli load: %s with %" G_GUINT64_FORMAT " job(s) unfinished; "
                "counted as lost\n", run->interrupted ? "interrupted" : "timed out",
                run->submitted - run->finished);

  for (guint i = 0; i < MIN (errors->len, MAX_ERRORS_SHOWN); i++)
    {
      const RivLoadError *e = &g_array_index (errors, RivLoadError, i);

      g_printerr ("rivulet-cli load: %" G_GUINT64_FORMAT " job(s): %s\n", e->count, e->text);
    }
  if (errors->len > MAX_ERRORS_SHOWN)
    g_printerr ("rivulet-cli load: … and %u other error text(s) (see --report)\n",
                errors->len - MAX_ERRORS_SHOWN);

  return all_ok;
}

gboolean
load_write_file (const char  *path,
                 const char  *contents,
                 gsize        length,
                 GError     **error)
{
  if (strcmp (path, "-") == 0)
    {
      if (fwrite (contents, 1, length, stdout) != length || fflush (stdout) != 0)
        {
          g_set_error (error, G_IO_ERROR, G_IO_ERROR_FAILED, "cannot write to standard output");
          return FALSE;
        }
      return TRUE;
    }
  return g_file_set_contents (path, contents, length, error);
}

gboolean
load_write_report (LoadRun     *run,
                   const char  *path,
                   GError     **error)
{
  g_autoptr(GPtrArray) params = g_ptr_array_new_with_free_func (g_free);
  g_autofree char *html = NULL;

#define PARAM(name, ...) \
  G_STMT_START { \
    g_ptr_array_add (params, g_strdup (name)); \
    g_ptr_array_add (params, g_strdup_printf (__VA_ARGS__)); \
  } G_STMT_END
  PARAM ("server", "%s", run->url);
  PARAM ("endpoint", "%s", run->endpoint_name);
  {
    g_autofree char *data = riv_json_to_string (run->template, NULL);

    PARAM ("data", "%s", data);
  }
  if (run->users > 0 || run->stages != NULL)
    {
      if (run->users > 0)
        PARAM ("users", "%u", run->users);
      if (run->stages != NULL)
        {
          g_autoptr(GString) text = g_string_new (NULL);

          for (guint i = 0; i < run->stages->len; i++)
            {
              const LoadStage *stage = &g_array_index (run->stages, LoadStage, i);

              g_string_append_printf (text, "%s%gs:%u", i > 0 ? "," : "", stage->seconds,
                                      stage->target);
            }
          PARAM ("stages", "%s", text->str);
        }
      if (run->duration > 0)
        PARAM ("duration", "%g s", run->duration);
      if (run->iterations > 0)
        PARAM ("iterations", "%u per user", run->iterations);
      PARAM ("think", "%g s", run->think);
    }
  else
    {
      PARAM ("count", "%u", run->count);
      if (run->rate > 0)
        PARAM ("rate", "%g jobs/s", run->rate);
    }
  if (run->n_shards > 1)
    PARAM ("shard", "%u/%u", run->shard, run->n_shards);
  PARAM ("timeout", "%g s", run->timeout);
  for (guint i = 0; i < run->thresholds->len; i++)
    PARAM ("threshold", "%s", riv_load_threshold_get_text (g_ptr_array_index (run->thresholds, i)));
#undef PARAM
  g_ptr_array_add (params, NULL);

  html = riv_report_html (run->stats, riv_config_get_version (run->config),
                          (const char * const *) params->pdata,
                          (RivLoadThreshold * const *) run->thresholds->pdata,
                          run->thresholds->len);
  return load_write_file (path, html, strlen (html), error);
}
