/* test-streaming.c
 * Copyright 2026 The Rivulet authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The streaming figures (app/docs/streaming.md) as rivulet-cli load reports
 * them, on the demo server's paced_text, whose schedule is known: a wait
 * before the first token, even gaps, one pause. Every figure is checked
 * against that schedule in the records, the summary, --json, the time
 * series, the report, report merge, the thresholds and --until-break.
 */
#include "config.h"

#include <math.h>
#include <string.h>

#include <glib/gstdio.h>

#include "riv-json.h"
#include "riv-server.h"
#include "riv-sketch.h"
#include "riv-test-served.h"
#include "riv-test-util.h"

#if defined(__SANITIZE_ADDRESS__)
# define HANG_GUARD 240.0
/* Under the sanitizers the client and the in-process server run several
 * times slower: the medians get more room there. */
# define NEAR_FIRST_S 0.05
# define NEAR_GAP_S   0.02
#else
# define HANG_GUARD 120.0
# define NEAR_FIRST_S 0.02
# define NEAR_GAP_S   0.01
#endif

/* paced_text's schedule in the runs below: 12 tokens, the first 0.3 s after
 * the start, 0.04 s apart, and 1.2 s more after the 6th. */
#define TOKENS       12
#define FIRST_S      0.3
#define GAP_S        0.04
#define PAUSE_S      1.2
#define PACED_DATA   "[12, 0.3, 0.04, 6, 1.2]"
#define USERS        3
#define ITERATIONS   2
#define JOBS         (USERS * ITERATIONS)

typedef RivTestServed Fixture;

static void
fixture_setup (Fixture       *fx,
               gconstpointer  data)
{
  RivServer *server = riv_server_new ();
  guint concurrency = GPOINTER_TO_UINT (data);

  g_object_set (server, "stamp", TRUE, NULL);
  if (concurrency > 0)
    g_object_set (server, "concurrency", concurrency, NULL);
  riv_test_served_start (fx, server, "riv-test-streaming");
}

static void
fixture_teardown (Fixture       *fx,
                  gconstpointer  data)
{
  riv_test_served_stop (fx);
}

static JsonNode *
parse (const char *text)
{
  g_autoptr(GError) error = NULL;
  JsonNode *node = riv_json_parse (NULL, text, -1, 0, &error);

  g_assert_no_error (error);
  g_assert_true (JSON_NODE_HOLDS_OBJECT (node));
  return node;
}

static double
member_at (JsonObject *object,
           const char *path)
{
  g_auto(GStrv) parts = g_strsplit (path, ".", -1);
  guint n = g_strv_length (parts);

  for (guint i = 0; i + 1 < n; i++)
    {
      g_assert_true (json_object_has_member (object, parts[i]));
      object = json_object_get_object_member (object, parts[i]);
      g_assert_nonnull (object);
    }
  if (!json_object_has_member (object, parts[n - 1]))
    g_error ("no member %s", path);
  return json_object_get_double_member (object, parts[n - 1]);
}

static void
assert_near (double      value,
             double      want,
             double      within,
             const char *what)
{
  if (!(fabs (value - want) <= within))
    g_error ("%s: %.4f, not within %.4f of %.4f", what, value, within, want);
}

static char *
path_in (Fixture    *fx,
         const char *name)
{
  return g_build_filename (fx->dir, name, NULL);
}

/* The summary's streaming object against the schedule. */
static void
check_streaming (JsonObject *streaming)
{
  assert_near (member_at (streaming, "first_after_start_s.p50"), FIRST_S, NEAR_FIRST_S,
               "first update after start p50");
  assert_near (member_at (streaming, "gap_s.p50"), GAP_S, NEAR_GAP_S, "gap p50");
  assert_near (member_at (streaming, "gap_s.max"), GAP_S + PAUSE_S, 0.1, "gap max");
  assert_near (member_at (streaming, "job_max_gap_s.p50"), GAP_S + PAUSE_S, 0.1,
               "each job's longest gap p50");
  g_assert_cmpint (json_object_get_int_member (streaming, "streamed_jobs"), ==, JOBS);
  g_assert_cmpint (json_object_get_int_member (streaming, "single_update_jobs"), ==, 0);
  g_assert_cmpint (json_object_get_int_member (streaming, "gaps"), ==, JOBS * (TOKENS - 1));
  /* Exactly one stall a job, where the pause is. */
  g_assert_cmpint (json_object_get_int_member (streaming, "stalls"), ==, JOBS);
  g_assert_cmpint (json_object_get_int_member (streaming, "stalled_jobs"), ==, JOBS);
  g_assert_cmpfloat (member_at (streaming, "text.chars_per_s"), >, 0);
}

static void
check_records (const char *path)
{
  g_autofree char *text = NULL;
  g_auto(GStrv) lines = NULL;
  g_autoptr(GError) error = NULL;
  guint n = 0;

  g_file_get_contents (path, &text, NULL, &error);
  g_assert_no_error (error);
  lines = g_strsplit (text, "\n", -1);
  for (guint i = 0; lines[i] != NULL && lines[i][0] != '\0'; i++, n++)
    {
      g_autoptr(JsonNode) node = parse (lines[i]);
      JsonObject *record = json_node_get_object (node);
      JsonArray *hist = json_object_get_array_member (record, "gap_hist_us");
      gint64 in_hist = 0;

      g_assert_cmpint (json_object_get_int_member (record, "gaps"), ==, TOKENS - 1);
      g_assert_cmpint (json_object_get_int_member (record, "stalls"), ==, 1);
      /* Each job's own figures with room for a busy machine (a process_starts
       * handled late makes it shorter, a first update handled late longer);
       * the run's medians (check_streaming ()) are held to the schedule. */
      assert_near (member_at (record, "first_after_start_s"), FIRST_S + 0.075, 0.225,
                   "a record's first update after start");
      g_assert_cmpfloat (member_at (record, "first_update_s"), >=,
                         member_at (record, "first_after_start_s"));
      assert_near (member_at (record, "gap_s.max"), GAP_S + PAUSE_S, 0.1, "a record's max gap");
      assert_near (member_at (record, "gap_s.p50"), GAP_S, 0.03, "a record's gap p50");
      for (guint k = 0; k < json_array_get_length (hist); k++)
        in_hist += json_array_get_int_element (json_array_get_array_element (hist, k), 1);
      g_assert_cmpint (in_hist, ==, TOKENS - 1);
      g_assert_true (json_object_has_member (record, "stamps"));
    }
  g_assert_cmpuint (n, ==, JOBS);
}

/* The time series: the stalls column adds up, the first-update columns are there. */
static void
check_timeseries (const char *path)
{
  g_autofree char *text = NULL;
  g_auto(GStrv) lines = NULL;
  g_auto(GStrv) header = NULL;
  g_autoptr(GError) error = NULL;
  int stalls_col = -1, first_col = -1;
  guint stalls = 0, seconds_with_first = 0;

  g_file_get_contents (path, &text, NULL, &error);
  g_assert_no_error (error);
  lines = g_strsplit (text, "\n", -1);
  header = g_strsplit (lines[0], ",", -1);
  for (int i = 0; header[i] != NULL; i++)
    {
      if (strcmp (header[i], "stalls") == 0)
        stalls_col = i;
      if (strcmp (header[i], "first_update_p50_s") == 0)
        first_col = i;
    }
  g_assert_cmpint (stalls_col, >=, 0);
  g_assert_cmpint (first_col, >=, 0);
  for (guint i = 1; lines[i] != NULL && lines[i][0] != '\0'; i++)
    {
      g_auto(GStrv) cells = g_strsplit (lines[i], ",", -1);

      stalls += (guint) g_ascii_strtoull (cells[stalls_col], NULL, 10);
      if (cells[first_col][0] != '\0')
        {
          g_assert_cmpfloat (g_ascii_strtod (cells[first_col], NULL), >=, FIRST_S - 0.02);
          seconds_with_first++;
        }
    }
  g_assert_cmpuint (stalls, ==, JOBS);
  g_assert_cmpuint (seconds_with_first, >=, 1);
}

static void
check_report (const char *path)
{
  g_autofree char *html = NULL;
  g_autoptr(GError) error = NULL;

  g_file_get_contents (path, &html, NULL, &error);
  g_assert_no_error (error);
  g_assert_nonnull (strstr (html, "id=\"first-update\""));
  g_assert_nonnull (strstr (html, "id=\"gap-histogram\""));
  g_assert_nonnull (strstr (html, "id=\"stamps\""));
  g_assert_nonnull (strstr (html, "<span>stalls</span>"));
  /* (A second standing alone drawn as a dot: test-load-stats, on jobs whose
   * ends are placed; here they move with the machine's load.) */
}

/* The thresholds' verdicts, in order: ttfu_p95<5s holds, stalls==0 does
 * not, gap_p50<100ms holds. */
static void
check_thresholds (JsonObject *summary)
{
  JsonArray *thresholds = json_object_get_array_member (summary, "thresholds");
  static const gboolean want[] = { TRUE, FALSE, TRUE };

  g_assert_cmpuint (json_array_get_length (thresholds), ==, G_N_ELEMENTS (want));
  for (guint i = 0; i < G_N_ELEMENTS (want); i++)
    g_assert_cmpint (json_object_get_boolean_member (json_array_get_object_element (thresholds, i),
                                                     "ok"), ==, want[i]);
  assert_near (member_at (json_array_get_object_element (thresholds, 1), "value"), JOBS, 0,
               "stalls threshold's value");
}

/* Splits the records into two shards and merges them back. */
static JsonNode *
merge_halves (Fixture    *fx,
              const char *records,
              const char *stall)
{
  g_autofree char *text = NULL;
  g_autofree char *a = path_in (fx, "a.jsonl");
  g_autofree char *b = path_in (fx, "b.jsonl");
  g_autofree char *out = NULL;
  g_autofree char *err = NULL;
  g_auto(GStrv) lines = NULL;
  g_autoptr(GString) first = g_string_new (NULL);
  g_autoptr(GString) second = g_string_new (NULL);
  const char *args[] = { "report", "merge", "--json", "--stall", stall, a, b, NULL };

  g_assert_true (g_file_get_contents (records, &text, NULL, NULL));
  lines = g_strsplit (text, "\n", -1);
  for (guint i = 0; lines[i] != NULL && lines[i][0] != '\0'; i++)
    g_string_append_printf (i % 2 == 0 ? first : second, "%s\n", lines[i]);
  g_assert_true (g_file_set_contents (a, first->str, -1, NULL));
  g_assert_true (g_file_set_contents (b, second->str, -1, NULL));
  g_assert_cmpint (riv_test_run_cli (args, &out, &err, HANG_GUARD), ==, 0);
  return parse (out);
}

static void
test_known_timings (Fixture       *fx,
                    gconstpointer  data)
{
  g_autofree char *records = path_in (fx, "records.jsonl");
  g_autofree char *series = path_in (fx, "series.csv");
  g_autofree char *report = path_in (fx, "report.html");
  g_autofree char *out = NULL;
  g_autofree char *err = NULL;
  g_autoptr(JsonNode) summary = NULL;
  g_autoptr(JsonNode) merged = NULL;
  g_autoptr(JsonNode) merged_2s = NULL;
  JsonObject *streaming, *merged_streaming, *stamps;
  static const char *const pooled[] = {
    "gap_s.p50", "gap_s.p99", "stamps.delay_s.p50", "stamps.delay_s.p99", "stamps.sent_gap_s.p50",
    "stamps.server_hold_s.p99",
  };
  const char *args[] = {
    "load", "--url", fx->url, "--endpoint", "/paced_text", "--data", PACED_DATA,
    "--users", G_STRINGIFY (USERS), "--iterations", G_STRINGIFY (ITERATIONS),
    "--json", "--output", records, "--timeseries", series, "--report", report,
    "--threshold", "ttfu_p95<5s", "--threshold", "stalls==0", "--threshold", "gap_p50<100ms",
    NULL,
  };

  /* stalls==0 fails, so the run exits 1. */
  g_assert_cmpint (riv_test_run_cli (args, &out, &err, HANG_GUARD), ==, 1);
  summary = parse (out);
  g_assert_cmpint (json_object_get_int_member (json_node_get_object (summary), "completed"), ==,
                   JOBS);
  streaming = json_object_get_object_member (json_node_get_object (summary), "streaming");
  check_streaming (streaming);
  check_thresholds (json_node_get_object (summary));

  /* The server's stamps: it sent at the schedule, and Rivulet saw each
   * update well within a second of its stamp. */
  stamps = json_object_get_object_member (streaming, "stamps");
  g_assert_nonnull (stamps);
  g_assert_cmpint (json_object_get_int_member (stamps, "updates"), ==, JOBS * TOKENS);
  assert_near (member_at (stamps, "sent_gap_s.p50"), GAP_S, NEAR_GAP_S, "the server's gap p50");
  g_assert_cmpfloat (member_at (stamps, "delay_s.p99"), <, 1.0);
  g_assert_cmpint (json_object_get_int_member (stamps, "clumped_jobs"), ==, 0);
  /* Made and written within a second of each other, on a server doing so little. */
  g_assert_cmpfloat (member_at (stamps, "server_hold_s.max"), <, 1.0);
  g_assert_cmpfloat (member_at (stamps, "server_hold_s.p50"), >=, 0);

  check_records (records);
  check_timeseries (series);
  check_report (report);

  /* Shards merged give the same figures; --stall counts again from the gaps. */
  merged = merge_halves (fx, records, "1");
  merged_streaming = json_object_get_object_member (json_node_get_object (merged), "streaming");
  check_streaming (merged_streaming);
  /* Pooled from the records' histograms: the same within the sketch's
   * resolution (a live run knows its exact min and max, a record its buckets). */
  for (guint i = 0; i < G_N_ELEMENTS (pooled); i++)
    assert_near (member_at (merged_streaming, pooled[i]), member_at (streaming, pooled[i]),
                 member_at (streaming, pooled[i]) * RIV_SKETCH_RELATIVE_ERROR + 1e-6, pooled[i]);
  g_assert_cmpfloat (member_at (merged_streaming, "first_update_s.p95"), ==,
                     member_at (streaming, "first_update_s.p95"));
  merged_2s = merge_halves (fx, records, "2");
  g_assert_cmpint (json_object_get_int_member (
                     json_object_get_object_member (json_node_get_object (merged_2s), "streaming"),
                     "stalls"), ==, 0);
}

/* The text summary names the figures a person looks for. */
static void
test_text_summary (Fixture       *fx,
                   gconstpointer  data)
{
  g_autofree char *out = NULL;
  g_autofree char *err = NULL;
  const char *args[] = {
    "load", "--url", fx->url, "--endpoint", "/paced_text", "--data", "[4, 0.2, 0.05, 2, 1.1]",
    "--count", "2", NULL,
  };
  const char *echo_args[] = {
    "load", "--url", fx->url, "--endpoint", "/batch_echo", "--count", "5", NULL,
  };
  g_autofree char *echo_out = NULL;
  g_autofree char *echo_err = NULL;

  g_assert_cmpint (riv_test_run_cli (args, &out, &err, HANG_GUARD), ==, 0);
  g_assert_nonnull (strstr (out, "\nfirst upd  p50 "));
  g_assert_nonnull (strstr (out, "\ngaps       p50 "));
  g_assert_nonnull (strstr (out, "\nstalls     2 gaps over 1 s, in 2 jobs\n"));
  g_assert_nonnull (strstr (out, "\nown delay  p50 "));

  /* Jobs that never stream are said to be so, not mixed into the gaps. */
  g_assert_cmpint (riv_test_run_cli (echo_args, &echo_out, &echo_err, HANG_GUARD), ==, 0);
  g_assert_nonnull (strstr (echo_out, "\none update 5 jobs answered in one go (no gaps)\n"));
  g_assert_null (strstr (echo_out, "\ngaps "));
}

/* --until-break stops on a first-update threshold and says so in words. One
 * job at a time on the server: the first update of each job waits behind
 * the others, longer as users are added. */
static void
test_until_break_first_update (Fixture       *fx,
                               gconstpointer  data)
{
  g_autofree char *out = NULL;
  g_autofree char *err = NULL;
  g_autoptr(JsonNode) summary = NULL;
  JsonObject *bp;
  const char *args[] = {
    "load", "--url", fx->url, "--endpoint", "/paced_text", "--data", "[2, 0.1, 0.05, 0, 0]",
    "--stages", "20s:12", "--until-break", "--threshold", "ttfu_p95<600ms", "--json", NULL,
  };

  g_assert_cmpint (riv_test_run_cli (args, &out, &err, HANG_GUARD), ==, 0);
  summary = parse (out);
  bp = json_object_get_object_member (json_node_get_object (summary), "breakpoint");
  g_assert_nonnull (bp);
  if (!g_str_has_prefix (json_object_get_string_member (bp, "reason"),
                         "time to first update p95 went over 600.0ms (threshold ttfu_p95<600ms, "
                         "measured "))
    g_error ("breakpoint: %s", json_object_get_string_member (bp, "reason"));
  /* Found on the way up, long before the ramp's end. */
  g_assert_cmpint (json_object_get_int_member (bp, "users"), <, 12);
}

/* Records whose streaming members are malformed are refused by name, and
 * nothing of them is counted. */
static void
test_merge_bad_streaming (Fixture       *fx,
                          gconstpointer  data)
{
  g_autofree char *path = path_in (fx, "bad.jsonl");
  g_autofree char *out = NULL;
  g_autofree char *err = NULL;
  const char *args[] = { "report", "merge", path, NULL };
  static const char *const bad[] = {
    "\"gap_hist_us\":[[1000]]",
    "\"gap_hist_us\":[[1000,-1]]",
    "\"gap_hist_us\":{\"a\":1}",
    "\"first_update_s\":\"soon\"",
    "\"stamps\":{\"delay_hist_us\":[[\"x\",1]]}",
  };
  static const char *const named[] = {
    "gap_hist_us", "gap_hist_us", "gap_hist_us", "first_update_s", "delay_hist_us",
  };

  for (guint i = 0; i < G_N_ELEMENTS (bad); i++)
    {
      g_autofree char *line = g_strdup_printf (
        "{\"index\":1,\"status\":\"completed\",\"submitted_at\":1700000000,\"latency_s\":1,"
        "\"queued_s\":0,\"run_s\":1,%s}\n", bad[i]);

      g_clear_pointer (&out, g_free);
      g_clear_pointer (&err, g_free);
      g_assert_true (g_file_set_contents (path, line, -1, NULL));
      g_assert_cmpint (riv_test_run_cli (args, &out, &err, HANG_GUARD), !=, 0);
      if (strstr (err, named[i]) == NULL)
        g_error ("%s: the error does not name %s: %s", bad[i], named[i], err);
    }
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
#define ADD(path, func, data) \
  g_test_add (path, Fixture, GUINT_TO_POINTER (data), fixture_setup, func, fixture_teardown)
  ADD ("/streaming/cli/known-timings", test_known_timings, 0);
  ADD ("/streaming/cli/text-summary", test_text_summary, 0);
  ADD ("/streaming/cli/until-break-first-update", test_until_break_first_update, 1);
  ADD ("/streaming/cli/merge-bad-streaming", test_merge_bad_streaming, 0);
#undef ADD
  return g_test_run ();
}
