/* riv-cli-report.c
 * Copyright 2026 The Rivulet authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * rivulet-cli report merge A.jsonl B.jsonl …: the per-job records of several
 * shards (rivulet-cli load --shard I/N --output) as one run: summary, time
 * series and HTML report, computed exactly as a single run computes them.
 * rivulet-cli report compare A.jsonl B.jsonl: two runs side by side
 * (riv-compare.h), with thresholds on the change.
 */
#include "config.h"

#include <math.h>

#include <stdio.h>
#include <string.h>

#include "riv-cli.h"
#include "riv-cli-load.h"
#include "riv-compare.h"
#include "riv-json.h"
#include "riv-load-stats.h"
#include "riv-report.h"
#include "riv-stream-quality.h"

typedef gboolean (*AddRecord) (JsonObject  *record,
                               gpointer     user_data,
                               GError     **error);

/* Reads one JSON Lines file, each record to add; FALSE naming the file and
 * line. */
static gboolean
read_records (const char  *path,
              AddRecord    add,
              gpointer     user_data,
              GError     **error)
{
  g_autoptr(GFile) file = g_file_new_for_commandline_arg (path);
  g_autoptr(GFileInputStream) input = NULL;
  g_autoptr(GDataInputStream) data = NULL;
  g_autoptr(JsonParser) parser = json_parser_new_immutable ();
  guint line_number = 0;

  input = g_file_read (file, NULL, error);
  if (input == NULL)
    return FALSE;
  data = g_data_input_stream_new (G_INPUT_STREAM (input));

  for (;;)
    {
      g_autofree char *line = NULL;
      g_autoptr(GError) local = NULL;
      g_autoptr(JsonNode) node = NULL;

      line = g_data_input_stream_read_line_utf8 (data, NULL, NULL, &local);
      if (local != NULL)
        {
          g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA, "%s:%u: %s",
                       path, line_number + 1, local->message);
          return FALSE;
        }
      if (line == NULL)
        break;
      line_number++;
      if (*g_strstrip (line) == '\0')
        continue;

      node = riv_json_parse (parser, line, -1, 64, &local);
      if (node == NULL || !JSON_NODE_HOLDS_OBJECT (node))
        {
          g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA,
                       "%s:%u: not a job record: %s", path, line_number,
                       local != NULL ? local->message : "not a JSON object");
          return FALSE;
        }
      if (!add (json_node_get_object (node), user_data, &local))
        {
          g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA,
                       "%s:%u: not a job record: %s", path, line_number, local->message);
          return FALSE;
        }
    }
  return TRUE;
}

/* Writes an output file; FALSE having said why. */
static gboolean
write_output (const char *option,
              const char *path,
              const char *text)
{
  g_autoptr(GError) error = NULL;

  if (g_file_set_contents (path, text, -1, &error))
    return TRUE;
  g_printerr ("rivulet-cli report: %s: %s\n", option, riv_cli_safe (error->message));
  return FALSE;
}

/* The most scenarios a merge keeps figures for (as many as a file may name). */
#define MERGE_MAX_SCENARIOS 1000

/* What report merge reads the records into: the run's statistics and, for
 * records of load --scenarios, each scenario's, in the order first seen. */
typedef struct
{
  RivLoadStats *stats;
  double        stall;
  double        end;          /* the latest job's end, Unix seconds */
  GPtrArray    *names;        /* char *, owned */
  GPtrArray    *endpoints;    /* char *: each one's first record's endpoint, nullable */
  GPtrArray    *by_scenario;  /* RivLoadStats, in names' order */
} Merge;

static void
merge_clear (Merge *merge)
{
  g_clear_pointer (&merge->stats, riv_load_stats_free);
  g_clear_pointer (&merge->names, g_ptr_array_unref);
  g_clear_pointer (&merge->endpoints, g_ptr_array_unref);
  g_clear_pointer (&merge->by_scenario, g_ptr_array_unref);
}

G_DEFINE_AUTO_CLEANUP_CLEAR_FUNC (Merge, merge_clear)

/* The statistics of the record's scenario (made on first sight); NULL with
 * an error past MERGE_MAX_SCENARIOS. */
static RivLoadStats *
merge_scenario_stats (Merge       *merge,
                      const char  *name,
                      JsonObject  *record,
                      GError     **error)
{
  RivLoadStats *stats;

  for (guint i = 0; i < merge->names->len; i++)
    if (strcmp (g_ptr_array_index (merge->names, i), name) == 0)
      return g_ptr_array_index (merge->by_scenario, i);
  if (merge->names->len >= MERGE_MAX_SCENARIOS)
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA, "more than %d scenarios",
                   MERGE_MAX_SCENARIOS);
      return NULL;
    }
  stats = riv_load_stats_new ();
  riv_load_stats_set_stall (stats, merge->stall);
  g_ptr_array_add (merge->names, g_strdup (name));
  g_ptr_array_add (merge->endpoints, g_strdup (riv_json_get_string (record, "endpoint")));
  g_ptr_array_add (merge->by_scenario, stats);
  return stats;
}

static gboolean
add_to_stats (JsonObject  *record,
              gpointer     user_data,
              GError     **error)
{
  Merge *merge = user_data;
  const char *scenario = riv_json_get_string (record, "scenario");
  RivLoadRecord read;
  RivLoadStats *stats = NULL;

  if (!riv_load_record_read (&read, record, merge->stall, error))
    return FALSE;
  riv_load_stats_add_read (merge->stats, &read);
  if (isfinite (read.submitted_at) && isfinite (read.latency_s) && read.latency_s >= 0)
    merge->end = MAX (merge->end, read.submitted_at + read.latency_s);
  if (scenario != NULL && (stats = merge_scenario_stats (merge, scenario, record, error)) != NULL)
    riv_load_stats_add_read (stats, &read);
  riv_load_record_clear (&read);
  return scenario == NULL || stats != NULL;
}

/* Each scenario's figures, over the span of the whole run (as load gives them). */
static void
merge_summarize (Merge          *merge,
                 RivLoadSummary *summaries)
{
  for (guint i = 0; i < merge->names->len; i++)
    {
      RivLoadStats *stats = g_ptr_array_index (merge->by_scenario, i);

      if (merge->end > 0)
        riv_load_stats_set_end (stats, merge->end);
      riv_load_stats_summarize (stats, &summaries[i]);
    }
}

static JsonNode *
outage_json (RivLoadStats *stats)
{
  g_autoptr(JsonBuilder) builder = json_builder_new ();
  double start = 0, end = -1;
  gboolean outage = riv_load_stats_find_outage (stats, &start, &end);

  /* A builder takes no value outside an object or array: null as a node of its own. */
  if (!outage)
    return json_node_new (JSON_NODE_NULL);
  riv_cli_outage_add_json (builder, outage, start, end);
  return json_builder_get_root (builder);
}

/* The "streaming" member alone. */
static JsonNode *
streaming_json (const RivLoadSummary *s)
{
  g_autoptr(JsonBuilder) builder = json_builder_new ();
  g_autoptr(JsonNode) root = NULL;

  json_builder_begin_object (builder);
  riv_cli_streaming_add_json (builder, s);
  json_builder_end_object (builder);
  root = json_builder_get_root (builder);
  return json_node_copy (json_object_get_member (json_node_get_object (root), "streaming"));
}

/* The "scenarios" member alone. */
static JsonNode *
scenarios_json (Merge                *merge,
                const RivLoadSummary *summaries)
{
  g_autoptr(JsonBuilder) builder = json_builder_new ();

  json_builder_begin_object (builder);
  for (guint i = 0; i < merge->names->len; i++)
    {
      RivCliScenario scenario = { g_ptr_array_index (merge->names, i),
                                  g_ptr_array_index (merge->endpoints, i), 0, 0, 0 };

      riv_cli_scenario_add_json (builder, &scenario, &summaries[i]);
    }
  json_builder_end_object (builder);
  return json_builder_get_root (builder);
}

static void
print_summary (Merge    *merge,
               gboolean  json)
{
  RivLoadStats *stats = merge->stats;
  RivLoadSummary s;
  g_autofree RivLoadSummary *summaries = g_new0 (RivLoadSummary, merge->names->len + 1);
  double outage_start = 0, outage_end = -1;

  riv_load_stats_summarize (stats, &s);
  merge_summarize (merge, summaries);
  if (json)
    {
      g_autoptr(JsonObject) object = json_object_new ();
      g_autoptr(JsonObject) latency = json_object_new ();
      g_autoptr(JsonNode) node = json_node_new (JSON_NODE_OBJECT);
      g_autofree char *text = NULL;

      json_object_set_int_member (object, "submitted", s.submitted);
      json_object_set_int_member (object, "completed", s.completed);
      json_object_set_int_member (object, "failed", s.failed);
      json_object_set_int_member (object, "cancelled", s.cancelled);
      json_object_set_int_member (object, "lost", s.lost);
      json_object_set_int_member (object, "users", s.users);
      json_object_set_double_member (object, "duration_s", s.duration_s);
      json_object_set_double_member (object, "throughput_per_s", s.throughput_per_s);
      json_object_set_double_member (latency, "p50", s.p50);
      json_object_set_double_member (latency, "p90", s.p90);
      json_object_set_double_member (latency, "p95", s.p95);
      json_object_set_double_member (latency, "p99", s.p99);
      json_object_set_double_member (latency, "max", s.max);
      json_object_set_double_member (latency, "mean", s.mean);
      json_object_set_object_member (object, "latency_s", json_object_ref (latency));
      json_object_set_int_member (object, "updates", s.updates);
      json_object_set_member (object, "outage", outage_json (stats));
      json_object_set_member (object, "streaming", streaming_json (&s));
      if (merge->names->len > 0)
        json_object_set_member (object, "scenarios", scenarios_json (merge, summaries));
      json_node_set_object (node, object);
      text = riv_json_to_string (node, NULL);
      printf ("%s\n", text);
      return;
    }

  printf ("submitted  %" G_GUINT64_FORMAT "\n", s.submitted);
  printf ("completed  %" G_GUINT64_FORMAT "\n", s.completed);
  printf ("failed     %" G_GUINT64_FORMAT "\n", s.failed);
  printf ("cancelled  %" G_GUINT64_FORMAT "\n", s.cancelled);
  printf ("lost       %" G_GUINT64_FORMAT "\n", s.lost);
  if (riv_load_stats_find_outage (stats, &outage_start, &outage_end))
    riv_cli_outage_print (stdout, outage_start, outage_end);
  if (s.users > 0)
    printf ("users      %u (peak)\n", s.users);
  printf ("wall time  %.3f s\n", s.duration_s);
  printf ("throughput %.1f jobs/s\n", s.throughput_per_s);
  if (s.completed > 0)
    printf ("latency    p50 %.3f s  p95 %.3f s  p99 %.3f s  max %.3f s\n",
            s.p50, s.p95, s.p99, s.max);
  riv_cli_streaming_print (stdout, &s);
  for (guint i = 0; i < merge->names->len; i++)
    {
      RivCliScenario scenario = { g_ptr_array_index (merge->names, i),
                                  g_ptr_array_index (merge->endpoints, i), 0, 0, 0 };

      riv_cli_scenario_print (stdout, &scenario, &summaries[i]);
    }
}

static int
report_merge (int    argc,
              char **argv)
{
  g_autofree char *report_path = NULL;
  g_autofree char *timeseries_path = NULL;
  gboolean json = FALSE;
  double stall = RIV_STREAM_STALL_DEFAULT_S;
  const GOptionEntry entries[] = {
    { "stall", 0, 0, G_OPTION_ARG_DOUBLE, &stall,
      "Count gaps between streamed updates longer than S as stalls (default 1)", "S" },
    { "report", 0, 0, G_OPTION_ARG_FILENAME, &report_path,
      "Write the merged HTML report to FILE", "FILE" },
    { "timeseries", 0, 0, G_OPTION_ARG_FILENAME, &timeseries_path,
      "Write the merged per-second time series (CSV) to FILE", "FILE" },
    { "json", 0, 0, G_OPTION_ARG_NONE, &json, "Print the summary as one JSON object", NULL },
    { NULL }
  };
  g_autoptr(GOptionContext) context = NULL;
  g_autoptr(GError) error = NULL;
  g_auto(Merge) merge = { 0 };
  RivLoadStats *stats;
  g_autoptr(GPtrArray) params = g_ptr_array_new_with_free_func (g_free);

  context = g_option_context_new ("A.jsonl B.jsonl … — merge shards' job records");
  g_option_context_set_summary (context,
    "Reads the per-job records that rivulet-cli load --output wrote (one file per\n"
    "shard, from --shard I/N runs) and summarises them as one run (and each\n"
    "scenario of load --scenarios); --report and --timeseries write the merged\n"
    "report and time series.");
  g_option_context_add_main_entries (context, entries, NULL);
  if (!g_option_context_parse (context, &argc, &argv, &error))
    return riv_cli_usage_error ("report", "%s", error->message);
  if (argc < 2)
    return riv_cli_usage_error ("report",
                                "name at least one records file (rivulet-cli load --output)");
  if (!(stall > 0) || !isfinite (stall))
    return riv_cli_usage_error ("report", "--stall must be a positive number of seconds");
  merge.stats = stats = riv_load_stats_new ();
  merge.stall = stall;
  merge.names = g_ptr_array_new_with_free_func (g_free);
  merge.endpoints = g_ptr_array_new_with_free_func (g_free);
  merge.by_scenario = g_ptr_array_new_with_free_func ((GDestroyNotify) riv_load_stats_free);
  riv_load_stats_set_stall (stats, stall);

  for (int i = 1; i < argc; i++)
    {
      if (!read_records (argv[i], add_to_stats, &merge, &error))
        {
          g_printerr ("rivulet-cli report: %s\n", riv_cli_safe (error->message));
          return 1;
        }
      g_ptr_array_add (params, g_strdup ("records"));
      g_ptr_array_add (params, g_strdup (argv[i]));
    }
  g_ptr_array_add (params, NULL);

  print_summary (&merge, json);

  if (timeseries_path != NULL)
    {
      g_autofree char *csv = riv_load_stats_timeseries_csv (stats);

      if (!write_output ("--timeseries", timeseries_path, csv))
        return 1;
    }
  if (report_path != NULL)
    {
      g_autofree char *html = riv_report_html (stats, NULL, (const char * const *) params->pdata,
                                               NULL, 0);

      if (!write_output ("--report", report_path, html))
        return 1;
    }
  return 0;
}

/* report compare */

typedef struct
{
  RivCompare *compare;
  guint       run;
  double      start, end;    /* the span, read first */
} CompareTarget;

/* The first pass over a run's records: its span. */
static gboolean
add_to_span (JsonObject  *record,
             gpointer     user_data,
             GError     **error)
{
  CompareTarget *target = user_data;
  double submitted_at, latency_s;

  if (riv_json_get_double (record, "submitted_at", &submitted_at) && isfinite (submitted_at))
    {
      target->start = MIN (target->start, submitted_at);
      target->end = MAX (target->end, submitted_at);
      if (riv_json_get_double (record, "latency_s", &latency_s) && isfinite (latency_s) &&
          latency_s >= 0)
        target->end = MAX (target->end, submitted_at + latency_s);
    }
  return TRUE;
}

static gboolean
add_to_compare (JsonObject  *record,
                gpointer     user_data,
                GError     **error)
{
  CompareTarget *target = user_data;

  return riv_compare_add_record (target->compare, target->run, record, error);
}

static void
format_figure (char                   *buf,
               gsize                   size,
               const RivCompareFigure *f,
               guint                   run)
{
  if (!f->known[run])
    g_strlcpy (buf, "—", size);
  else if (strcmp (f->unit, "s") == 0)
    g_snprintf (buf, size, "%.3f s", f->value[run]);
  else if (strcmp (f->unit, "/s") == 0)
    g_snprintf (buf, size, "%.1f /s", f->value[run]);
  else
    g_snprintf (buf, size, "%.2f %%", f->value[run] * 100);
}

static void
format_change (char                   *buf,
               gsize                   size,
               const RivCompareFigure *f)
{
  double ratio;

  if (strcmp (f->name, "error_rate") == 0 && f->known[0] && f->known[1])
    g_snprintf (buf, size, "%+.2f pt", (f->value[1] - f->value[0]) * 100);
  else if (riv_compare_figure_ratio (f, &ratio))
    g_snprintf (buf, size, "%+.1f %%", (ratio - 1) * 100);
  else
    g_strlcpy (buf, "—", size);
}

static void
print_compare_group (RivCompare *compare,
                     guint       group)
{
  const char *name = riv_compare_get_group_name (compare, group);
  guint n_figures = 0;
  const RivCompareFigure *figures = riv_compare_get_figures (compare, group, &n_figures);
  g_autoptr(GArray) errors = riv_compare_get_errors (compare, group);
  double p_slower, p_value;

  printf ("\n%s (%" G_GUINT64_FORMAT " jobs in A, %" G_GUINT64_FORMAT " in B)\n",
          name != NULL ? riv_cli_safe (name) : "every endpoint",
          riv_compare_get_jobs (compare, group, 0), riv_compare_get_jobs (compare, group, 1));
  printf ("  %-18s %12s %12s %10s  %s\n", "figure", "A", "B", "change", "noise");
  for (guint i = 0; i < n_figures; i++)
    {
      char a[64], b[64], change[64];

      format_figure (a, sizeof a, &figures[i], 0);
      format_figure (b, sizeof b, &figures[i], 1);
      format_change (change, sizeof change, &figures[i]);
      printf ("  %-18s %12s %12s %10s  %s\n", figures[i].label, a, b, change,
              riv_compare_figure_verdict (&figures[i]));
    }
  if (riv_compare_rank_test (compare, group, &p_slower, &p_value))
    printf ("  a job of B took longer than a job of A in %.0f %% of pairs "
            "(job against job, p = %.2g)\n", p_slower * 100, p_value);
  for (guint i = 0; i < errors->len; i++)
    {
      const RivCompareError *e = &g_array_index (errors, RivCompareError, i);

      if (i == 0)
        printf ("  %-42s %8s %8s\n", "errors", "A", "B");
      printf ("  %-42s %8" G_GUINT64_FORMAT " %8" G_GUINT64_FORMAT "\n",
              riv_cli_safe (e->text), e->count[0], e->count[1]);
    }
}

static void
add_number_or_null (JsonBuilder *builder,
                    const char  *name,
                    gboolean     known,
                    double       value)
{
  json_builder_set_member_name (builder, name);
  if (known && isfinite (value))
    json_builder_add_double_value (builder, value);
  else
    json_builder_add_null_value (builder);
}

static void
add_compare_figure_json (JsonBuilder            *builder,
                         const RivCompareFigure *f)
{
  double ratio;
  gboolean has_ratio = riv_compare_figure_ratio (f, &ratio);

  json_builder_begin_object (builder);
  json_builder_set_member_name (builder, "figure");
  json_builder_add_string_value (builder, f->name);
  add_number_or_null (builder, "a", f->known[0], f->value[0]);
  add_number_or_null (builder, "b", f->known[1], f->value[1]);
  add_number_or_null (builder, "ratio", has_ratio, ratio);
  add_number_or_null (builder, "diff", f->known[0] && f->known[1], f->value[1] - f->value[0]);
  add_number_or_null (builder, "p_value", f->tested, f->p_value);
  json_builder_set_member_name (builder, "tested");
  json_builder_add_boolean_value (builder, f->tested);
  json_builder_set_member_name (builder, "beyond_noise");
  json_builder_add_boolean_value (builder, f->beyond_noise);
  json_builder_set_member_name (builder, "verdict");
  json_builder_add_string_value (builder, riv_compare_figure_verdict (f));
  json_builder_end_object (builder);
}

static void
add_compare_group_json (JsonBuilder *builder,
                        RivCompare  *compare,
                        guint        group)
{
  const char *name = riv_compare_get_group_name (compare, group);
  guint n_figures = 0;
  const RivCompareFigure *figures = riv_compare_get_figures (compare, group, &n_figures);
  g_autoptr(GArray) errors = riv_compare_get_errors (compare, group);
  double p_slower, p_value;

  json_builder_begin_object (builder);
  json_builder_set_member_name (builder, "endpoint");
  if (name != NULL)
    json_builder_add_string_value (builder, name);
  else
    json_builder_add_null_value (builder);
  json_builder_set_member_name (builder, "jobs");
  json_builder_begin_array (builder);
  json_builder_add_int_value (builder, riv_compare_get_jobs (compare, group, 0));
  json_builder_add_int_value (builder, riv_compare_get_jobs (compare, group, 1));
  json_builder_end_array (builder);
  json_builder_set_member_name (builder, "figures");
  json_builder_begin_array (builder);
  for (guint i = 0; i < n_figures; i++)
    add_compare_figure_json (builder, &figures[i]);
  json_builder_end_array (builder);
  json_builder_set_member_name (builder, "rank_test");
  if (riv_compare_rank_test (compare, group, &p_slower, &p_value))
    {
      json_builder_begin_object (builder);
      json_builder_set_member_name (builder, "p_b_slower");
      json_builder_add_double_value (builder, p_slower);
      json_builder_set_member_name (builder, "p_value");
      json_builder_add_double_value (builder, p_value);
      json_builder_end_object (builder);
    }
  else
    json_builder_add_null_value (builder);
  json_builder_set_member_name (builder, "errors");
  json_builder_begin_array (builder);
  for (guint i = 0; i < errors->len; i++)
    {
      const RivCompareError *e = &g_array_index (errors, RivCompareError, i);

      json_builder_begin_object (builder);
      json_builder_set_member_name (builder, "class");
      json_builder_add_string_value (builder, e->text);
      json_builder_set_member_name (builder, "a");
      json_builder_add_int_value (builder, e->count[0]);
      json_builder_set_member_name (builder, "b");
      json_builder_add_int_value (builder, e->count[1]);
      json_builder_end_object (builder);
    }
  json_builder_end_array (builder);
  json_builder_end_object (builder);
}

static void
print_compare_json (RivCompare     *compare,
                    char          **paths,
                    GPtrArray      *thresholds,
                    const double   *measured,
                    const gboolean *held)
{
  g_autofree char *method = riv_compare_describe_method (compare);
  g_autoptr(JsonBuilder) builder = json_builder_new ();
  g_autoptr(JsonNode) root = NULL;
  g_autofree char *text = NULL;

  json_builder_begin_object (builder);
  for (guint run = 0; run < 2; run++)
    {
      json_builder_set_member_name (builder, run == 0 ? "a" : "b");
      json_builder_add_string_value (builder, paths[run]);
    }
  json_builder_set_member_name (builder, "method");
  json_builder_add_string_value (builder, method);
  json_builder_set_member_name (builder, "groups");
  json_builder_begin_array (builder);
  for (guint i = 0; i < riv_compare_get_n_groups (compare); i++)
    add_compare_group_json (builder, compare, i);
  json_builder_end_array (builder);
  json_builder_set_member_name (builder, "thresholds");
  json_builder_begin_array (builder);
  for (guint i = 0; i < thresholds->len; i++)
    {
      json_builder_begin_object (builder);
      json_builder_set_member_name (builder, "threshold");
      json_builder_add_string_value (builder,
        riv_compare_threshold_get_text (g_ptr_array_index (thresholds, i)));
      add_number_or_null (builder, "measured", TRUE, measured[i]);
      json_builder_set_member_name (builder, "held");
      json_builder_add_boolean_value (builder, held[i]);
      json_builder_end_object (builder);
    }
  json_builder_end_array (builder);
  json_builder_end_object (builder);
  root = json_builder_get_root (builder);
  text = riv_json_to_string (root, NULL);
  printf ("%s\n", text);
}

static void
print_compare_text (RivCompare     *compare,
                    char          **paths,
                    GPtrArray      *thresholds,
                    const double   *measured,
                    const gboolean *held)
{
  guint n_groups = riv_compare_get_n_groups (compare);
  g_autofree char *method = riv_compare_describe_method (compare);

  printf ("A  %s  (%" G_GUINT64_FORMAT " jobs)\n", riv_cli_safe (paths[0]),
          riv_compare_get_jobs (compare, 0, 0));
  printf ("B  %s  (%" G_GUINT64_FORMAT " jobs)\n", riv_cli_safe (paths[1]),
          riv_compare_get_jobs (compare, 0, 1));
  /* With one endpoint, its own group would say it all again. */
  for (guint i = 0; i < (n_groups == 2 ? 1 : n_groups); i++)
    print_compare_group (compare, i);
  if (thresholds->len > 0)
    printf ("\nthresholds\n");
  for (guint i = 0; i < thresholds->len; i++)
    {
      char value[64];

      if (isnan (measured[i]))
        g_strlcpy (value, "not measured", sizeof value);
      else
        g_snprintf (value, sizeof value, "%.4g", measured[i]);
      printf ("  %-32s %-14s %s\n",
              riv_cli_safe (riv_compare_threshold_get_text (g_ptr_array_index (thresholds, i))),
              value, held[i] ? "held" : "FAILED");
    }
  printf ("\nnoise: %s\n", method);
}

static int
report_compare (int    argc,
                char **argv)
{
  g_autofree char *report_path = NULL;
  g_auto(GStrv) threshold_texts = NULL;
  gboolean json = FALSE;
  double min_change = RIV_COMPARE_MIN_CHANGE_DEFAULT * 100;
  const GOptionEntry entries[] = {
    { "min-change", 0, 0, G_OPTION_ARG_DOUBLE, &min_change,
      "Call a change beyond noise only when it is at least PCT percent of A (default 5)",
      "PCT" },
    { "threshold", 0, 0, G_OPTION_ARG_STRING_ARRAY, &threshold_texts,
      "Fail (exit 1) unless the change holds, e.g. \"p95 ratio<1.10\", \"throughput "
      "ratio>0.9\", \"error_rate diff<0.01\", \"ttfu_p95{endpoint:/chat} ratio<1.2\" "
      "(repeatable)", "EXPR" },
    { "report", 0, 0, G_OPTION_ARG_FILENAME, &report_path,
      "Write the comparison as an HTML page to FILE", "FILE" },
    { "json", 0, 0, G_OPTION_ARG_NONE, &json, "Print the comparison as one JSON object", NULL },
    { NULL }
  };
  g_autoptr(GOptionContext) context = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(RivCompare) compare = riv_compare_new ();
  g_autoptr(GPtrArray) thresholds =
    g_ptr_array_new_with_free_func ((GDestroyNotify) riv_compare_threshold_free);
  g_autofree double *measured = NULL;
  g_autofree gboolean *held = NULL;
  gboolean all_held = TRUE;

  context = g_option_context_new ("A.jsonl B.jsonl — compare two runs");
  g_option_context_set_summary (context,
    "Reads the per-job records of two runs (rivulet-cli load --output): two servers,\n"
    "two versions of an app, before and after a change. Prints each run's throughput,\n"
    "latency and first-update percentiles and error rate, overall and per endpoint,\n"
    "with the change from A to B and whether it is beyond the runs' own noise.\n"
    "Exit status: 0, or 1 when a --threshold failed or a file could not be read,\n"
    "2 for bad arguments.");
  g_option_context_add_main_entries (context, entries, NULL);
  if (!g_option_context_parse (context, &argc, &argv, &error))
    return riv_cli_usage_error ("report", "%s", error->message);
  if (argc != 3)
    return riv_cli_usage_error ("report", "compare takes two records files, A and B "
                                "(rivulet-cli load --output)");
  if (!(min_change >= 0) || !(min_change < 1e6))
    return riv_cli_usage_error ("report", "--min-change must be a percentage, 0 or more");
  riv_compare_set_min_change (compare, min_change / 100);
  for (guint i = 0; threshold_texts != NULL && threshold_texts[i] != NULL; i++)
    {
      RivCompareThreshold *t = riv_compare_threshold_parse (threshold_texts[i], &error);

      if (t == NULL)
        return riv_cli_usage_error ("report", "%s", error->message);
      g_ptr_array_add (thresholds, t);
    }

  for (guint run = 0; run < 2; run++)
    {
      CompareTarget target = { compare, run, INFINITY, -INFINITY };

      /* Twice: the span first, then the jobs into the blocks it is cut in. */
      if (read_records (argv[1 + run], add_to_span, &target, &error))
        riv_compare_set_span (compare, run, target.start, target.end);
      if (error != NULL || !read_records (argv[1 + run], add_to_compare, &target, &error))
        {
          g_printerr ("rivulet-cli report: %s\n", riv_cli_safe (error->message));
          return 1;
        }
    }

  measured = g_new0 (double, thresholds->len + 1);
  held = g_new0 (gboolean, thresholds->len + 1);
  for (guint i = 0; i < thresholds->len; i++)
    {
      held[i] = riv_compare_threshold_check (g_ptr_array_index (thresholds, i), compare,
                                             &measured[i]);
      all_held = all_held && held[i];
    }

  if (json)
    print_compare_json (compare, argv + 1, thresholds, measured, held);
  else
    print_compare_text (compare, argv + 1, thresholds, measured, held);

  if (report_path != NULL)
    {
      g_autofree char *html = riv_compare_html (compare, argv[1], argv[2],
                                                (RivCompareThreshold * const *) thresholds->pdata,
                                                measured, held, thresholds->len);

      if (!write_output ("--report", report_path, html))
        return 1;
    }
  return all_held ? 0 : 1;
}

int
riv_cli_report (int    argc,
                char **argv)
{
  if (argc >= 2 && strcmp (argv[1], "merge") == 0)
    {
      g_set_prgname ("rivulet-cli report merge");
      return report_merge (argc - 1, argv + 1);
    }
  if (argc >= 2 && strcmp (argv[1], "compare") == 0)
    {
      g_set_prgname ("rivulet-cli report compare");
      return report_compare (argc - 1, argv + 1);
    }
  if (argc >= 2 && (strcmp (argv[1], "--help") == 0 || strcmp (argv[1], "-h") == 0))
    {
      printf ("Usage:\n  rivulet-cli report merge [OPTION…] A.jsonl B.jsonl …\n"
              "  rivulet-cli report compare [OPTION…] A.jsonl B.jsonl\n\n"
              "merge: the per-job records of load shards as one summary, report and "
              "time series.\n"
              "compare: two runs side by side, with the change and whether it is beyond "
              "noise.\n");
      return 0;
    }
  return riv_cli_usage_error ("report", "%s",
                              argc >= 2 ? "unknown report command (merge or compare)"
                                        : "expected a command: merge or compare");
}
