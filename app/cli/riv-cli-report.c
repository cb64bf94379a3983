/* riv-cli-report.c
 * Copyright 2026 The Rivulet authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * rivulet-cli report merge A.jsonl B.jsonl …: the per-job records of several
 * shards (rivulet-cli load --shard I/N --output) as one run: summary, time
 * series and HTML report, computed exactly as a single run computes them.
 */
#include "config.h"

#include <math.h>

#include <stdio.h>
#include <string.h>

#include "riv-cli.h"
#include "riv-cli-load.h"
#include "riv-json.h"
#include "riv-load-stats.h"
#include "riv-report.h"
#include "riv-stream-quality.h"

/* Reads one JSON Lines file into stats; FALSE naming the file and line. */
static gboolean
read_records (RivLoadStats  *stats,
              const char    *path,
              GError       **error)
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
      if (!riv_load_stats_add_record (stats, json_node_get_object (node), &local))
        {
          g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA,
                       "%s:%u: not a job record: %s", path, line_number, local->message);
          return FALSE;
        }
    }
  return TRUE;
}

static JsonNode *
outage_json (RivLoadStats *stats)
{
  g_autoptr(JsonBuilder) builder = json_builder_new ();
  double start = 0, end = -1;
  gboolean outage = riv_load_stats_find_outage (stats, &start, &end);

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

static void
print_summary (RivLoadStats *stats,
               gboolean      json)
{
  RivLoadSummary s;
  double outage_start = 0, outage_end = -1;

  riv_load_stats_summarize (stats, &s);
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
  g_autoptr(RivLoadStats) stats = riv_load_stats_new ();
  g_autoptr(GPtrArray) params = g_ptr_array_new_with_free_func (g_free);

  context = g_option_context_new ("A.jsonl B.jsonl … — merge shards' job records");
  g_option_context_set_summary (context,
    "Reads the per-job records that rivulet-cli load --output wrote (one file per\n"
    "shard, from --shard I/N runs) and summarises them as one run; --report and\n"
    "--timeseries write the merged report and time series.");
  g_option_context_add_main_entries (context, entries, NULL);
  if (!g_option_context_parse (context, &argc, &argv, &error))
    return riv_cli_usage_error ("report", "%s", error->message);
  if (argc < 2)
    return riv_cli_usage_error ("report",
                                "name at least one records file (rivulet-cli load --output)");
  if (!(stall > 0) || !isfinite (stall))
    return riv_cli_usage_error ("report", "--stall must be a positive number of seconds");
  riv_load_stats_set_stall (stats, stall);

  for (int i = 1; i < argc; i++)
    {
      if (!read_records (stats, argv[i], &error))
        {
          g_printerr ("rivulet-cli report: %s\n", riv_cli_safe (error->message));
          return 1;
        }
      g_ptr_array_add (params, g_strdup ("records"));
      g_ptr_array_add (params, g_strdup (argv[i]));
    }
  g_ptr_array_add (params, NULL);

  print_summary (stats, json);

  if (timeseries_path != NULL)
    {
      g_autofree char *csv = riv_load_stats_timeseries_csv (stats);

      if (!g_file_set_contents (timeseries_path, csv, -1, &error))
        {
          g_printerr ("rivulet-cli report: --timeseries: %s\n", error->message);
          return 1;
        }
    }
  if (report_path != NULL)
    {
      g_autofree char *html = riv_report_html (stats, NULL, (const char * const *) params->pdata,
                                               NULL, 0);

      if (!g_file_set_contents (report_path, html, -1, &error))
        {
          g_printerr ("rivulet-cli report: --report: %s\n", error->message);
          return 1;
        }
    }
  return 0;
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
  if (argc >= 2 && (strcmp (argv[1], "--help") == 0 || strcmp (argv[1], "-h") == 0))
    {
      printf ("Usage:\n  rivulet-cli report merge [OPTION…] A.jsonl B.jsonl …\n\n"
              "Merges the per-job records of load shards into one summary, report and "
              "time series.\n");
      return 0;
    }
  return riv_cli_usage_error ("report", "%s",
                              argc >= 2 ? "unknown report command (the one there is: merge)"
                                        : "expected a command: merge");
}
