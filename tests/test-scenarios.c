/* test-scenarios.c
 * Copyright 2026 The Rivulet authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Scenarios (issue 40, item 2): the scenario file read strictly
 * (riv-load-scenario.h), k6's tagged thresholds, the seeded draws and
 * think-time distributions, then rivulet-cli load --scenarios against the
 * embedded server: jobs spread over the scenarios by weight, each record
 * naming its scenario, each scenario's figures and thresholds, the think
 * time its users take, conversations of several turns in a session of their
 * own (a gr.State kept), scenarios with users of their own, --until-break
 * naming a scenario's threshold, and every bad file refused before a job
 * is sent.
 */
#include "config.h"

#include <math.h>
#include <string.h>

#include "riv-json.h"
#include "riv-load-run.h"
#include "riv-load-scenario.h"
#include "riv-metrics.h"
#include "riv-server-test.h"
#include "riv-test-served.h"
#include "riv-test-util.h"

typedef RivTestServed Fixture;

static RivLoadScenarios *
parse_ok (const char *text)
{
  g_autoptr(GError) error = NULL;
  RivLoadScenarios *file = riv_load_scenarios_parse (text, -1, &error);

  g_assert_no_error (error);
  g_assert_nonnull (file);
  return file;
}

static void
test_parse (void)
{
  g_autoptr(RivLoadScenarios) file = parse_ok (
    "{\"users\": 5, \"duration\": \"1m\", \"seed\": 9, \"think\": 0.5,"
    " \"stages\": [{\"duration\": \"10s\", \"target\": 5}, {\"duration\": 20, \"target\": 0}],"
    " \"thresholds\": [\"failed==0\"],"
    " \"scenarios\": {"
    "  \"echo\": {\"endpoint\": \"batch_echo\", \"data\": [\"hi {i}\", 0], \"weight\": 3,"
    "            \"think\": {\"exponential\": 0.2}},"
    "  \"story\": {\"endpoint\": 1, \"think\": {\"uniform\": [0.1, 0.5]}, \"users\": 4,"
    "             \"turns\": 3,"
    "             \"thresholds\": [\"p95 < 2s\"]},"
    "  \"ex\": {\"endpoint\": \"/batch_echo\", \"examples\": true, \"weight\": 0.5}}}");
  RivLoadScenario *echo, *story, *ex;
  const RivLoadStage *stage;
  const char *value;

  g_assert_cmpint (file->users, ==, 5);
  g_assert_cmpfloat (file->duration, ==, 60);
  g_assert_true (file->has_seed);
  g_assert_cmpuint (file->seed, ==, 9);
  g_assert_true (file->has_think);
  g_assert_cmpint (file->think.kind, ==, RIV_THINK_CONSTANT);
  g_assert_cmpfloat (file->think.a, ==, 0.5);
  g_assert_cmpuint (file->stages->len, ==, 2);
  stage = &g_array_index (file->stages, RivLoadStage, 1);
  g_assert_cmpfloat (stage->seconds, ==, 20);
  g_assert_cmpuint (stage->target, ==, 0);
  g_assert_cmpuint (file->thresholds->len, ==, 1);
  g_assert_null (riv_load_threshold_get_tag (g_ptr_array_index (file->thresholds, 0), NULL));

  /* The file's order. */
  g_assert_cmpuint (file->scenarios->len, ==, 3);
  echo = g_ptr_array_index (file->scenarios, 0);
  story = g_ptr_array_index (file->scenarios, 1);
  ex = g_ptr_array_index (file->scenarios, 2);
  g_assert_cmpstr (echo->name, ==, "echo");
  g_assert_cmpstr (echo->endpoint, ==, "batch_echo");
  g_assert_cmpfloat (echo->weight, ==, 3);
  g_assert_cmpint (echo->think.kind, ==, RIV_THINK_EXPONENTIAL);
  g_assert_cmpfloat (echo->think.a, ==, 0.2);
  g_assert_true (JSON_NODE_HOLDS_ARRAY (echo->data));
  g_assert_cmpstr (story->endpoint, ==, "1");
  g_assert_cmpuint (story->users, ==, 4);
  g_assert_cmpuint (story->turns, ==, 3);
  g_assert_cmpuint (echo->users, ==, 0);
  g_assert_cmpuint (echo->turns, ==, 0);
  g_assert_null (story->data);
  g_assert_cmpfloat (story->weight, ==, 1);
  g_assert_cmpint (story->think.kind, ==, RIV_THINK_UNIFORM);
  g_assert_cmpfloat (story->think.b, ==, 0.5);
  /* A scenario's own threshold is tagged with it. */
  g_assert_cmpuint (story->thresholds->len, ==, 1);
  g_assert_cmpstr (riv_load_threshold_get_tag (g_ptr_array_index (story->thresholds, 0), &value),
                   ==, "scenario");
  g_assert_cmpstr (value, ==, "story");
  g_assert_cmpstr (riv_load_threshold_get_text (g_ptr_array_index (story->thresholds, 0)), ==,
                   "p95{scenario:story} < 2s");
  g_assert_true (ex->examples);
  g_assert_false (ex->has_think);
}

static void
test_parse_bad (void)
{
  const struct { const char *text; const char *says; } cases[] = {
    { "[1, 2]", "expected an object" },
    { "{\"scenarios\": {\"a\": {\"endpoint\": \"x\"}", "not valid JSON" },
    { "{\"users\": 2}", "\"scenarios\": expected an object of one or more" },
    { "{\"scenarios\": {}}", "\"scenarios\": expected an object of one or more" },
    { "{\"scenarios\": {\"a\": {\"endpoint\": \"x\"}}, \"vus\": 3}", "\"vus\": unknown key" },
    { "{\"scenarios\": {\"a\": {\"endpoint\": \"x\", \"exec\": 1}}}",
      "scenario \"a\": \"exec\": unknown key" },
    { "{\"scenarios\": {\"a\": {\"data\": []}}}", "scenario \"a\": \"endpoint\": missing" },
    { "{\"scenarios\": {\"a\": {\"endpoint\": \"\"}}}", "scenario \"a\": \"endpoint\"" },
    { "{\"scenarios\": {\"a\": 3}}", "scenario \"a\": expected an object" },
    { "{\"scenarios\": {\"a b\": {\"endpoint\": \"x\"}}}", "scenario \"a b\": a name is" },
    { "{\"scenarios\": {\"a\": {\"endpoint\": \"x\", \"weight\": 0}}}",
      "scenario \"a\": \"weight\": expected a number above 0" },
    { "{\"scenarios\": {\"a\": {\"endpoint\": \"x\", \"weight\": -2}}}",
      "scenario \"a\": \"weight\"" },
    { "{\"scenarios\": {\"a\": {\"endpoint\": \"x\", \"weight\": \"3\"}}}",
      "scenario \"a\": \"weight\"" },
    { "{\"scenarios\": {\"a\": {\"endpoint\": \"x\", \"think\": {\"gauss\": 1}}}}",
      "scenario \"a\": \"think\": expected seconds" },
    { "{\"scenarios\": {\"a\": {\"endpoint\": \"x\", \"think\": -1}}}",
      "scenario \"a\": \"think\"" },
    { "{\"scenarios\": {\"a\": {\"endpoint\": \"x\", \"think\": {\"uniform\": [2, 1]}}}}",
      "scenario \"a\": \"think\": \"uniform\" takes [MIN, MAX]" },
    { "{\"scenarios\": {\"a\": {\"endpoint\": \"x\", \"think\": {\"exponential\": 0}}}}",
      "scenario \"a\": \"think\": \"exponential\" takes a mean above 0" },
    { "{\"scenarios\": {\"a\": {\"endpoint\": \"x\", \"think\": {\"constant\": 1, \"uniform\": "
      "[0, 1]}}}}", "scenario \"a\": \"think\"" },
    { "{\"scenarios\": {\"a\": {\"endpoint\": \"x\", \"data\": \"hi\"}}}",
      "scenario \"a\": \"data\": expected an array" },
    { "{\"scenarios\": {\"a\": {\"endpoint\": \"x\", \"data\": [1e999]}}}",
      "scenario \"a\": \"data\"" },
    { "{\"scenarios\": {\"a\": {\"endpoint\": \"x\", \"data\": [], \"examples\": true}}}",
      "scenario \"a\": \"data\": \"data\" and \"examples\"" },
    { "{\"scenarios\": {\"a\": {\"endpoint\": \"x\", \"thresholds\": [\"p95<soon\"]}}}",
      "scenario \"a\": \"thresholds\"" },
    { "{\"scenarios\": {\"a\": {\"endpoint\": \"x\", \"thresholds\": [\"p95{scenario:a}<1s\"]}}}",
      "leave out the tag" },
    { "{\"scenarios\": {\"a\": {\"endpoint\": \"x\"}}, \"users\": 0}", "\"users\": expected" },
    { "{\"scenarios\": {\"a\": {\"endpoint\": \"x\"}}, \"duration\": \"soon\"}",
      "\"duration\": expected" },
    { "{\"scenarios\": {\"a\": {\"endpoint\": \"x\"}}, \"stages\": [{\"target\": 3}]}",
      "\"stages\": stage 1" },
    { "{\"scenarios\": {\"a\": {\"endpoint\": \"x\"}}, \"stages\": \"10s:x\"}", "\"stages\"" },
    { "{\"scenarios\": {\"a\": {\"endpoint\": \"x\"}}, \"seed\": -1}", "\"seed\": expected" },
    { "{\"scenarios\": {\"a\": {\"endpoint\": \"x\", \"users\": 0}}}",
      "scenario \"a\": \"users\": expected a whole number from 1 to 1000000" },
    { "{\"scenarios\": {\"a\": {\"endpoint\": \"x\", \"turns\": 0}}}",
      "scenario \"a\": \"turns\": expected a whole number from 1 to 10000" },
    { "{\"scenarios\": {\"a\": {\"endpoint\": \"x\", \"turns\": 2.5}}}",
      "scenario \"a\": \"turns\"" },
    { "{\"scenarios\": {\"a\": {\"endpoint\": \"x\", \"turns\": 10001}}}",
      "scenario \"a\": \"turns\"" },
  };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autoptr(GError) error = NULL;
      g_autoptr(RivLoadScenarios) file = riv_load_scenarios_parse (cases[i].text, -1, &error);

      g_test_message ("%s → %s", cases[i].text, error != NULL ? error->message : "(accepted)");
      g_assert_null (file);
      g_assert_error (error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE);
      g_assert_nonnull (strstr (error->message, cases[i].says));
    }
}

static void
test_tags (void)
{
  const char *bad[] = { "p95{scenario}<1s", "p95{host:a}<1s", "p95{scenario:}<1s",
                        "p95{scenario:a<1s", "p95{scenario:a}{endpoint:b}<1s", "{scenario:a}<1s" };
  g_autoptr(RivLoadThreshold) scenario = riv_load_threshold_parse ("p95{scenario:story}<2s", NULL);
  g_autoptr(RivLoadThreshold) endpoint = riv_load_threshold_parse ("p(99){endpoint:/chat}<=500ms",
                                                                   NULL);
  g_autoptr(RivLoadThreshold) plain = riv_load_threshold_parse ("failed==0", NULL);
  RivLoadSummary summary = { .completed = 10, .p95 = 1.5, .p99 = 0.6 };
  const char *value = NULL;

  g_assert_nonnull (scenario);
  g_assert_cmpstr (riv_load_threshold_get_tag (scenario, &value), ==, "scenario");
  g_assert_cmpstr (value, ==, "story");
  g_assert_cmpstr (riv_load_threshold_get_text (scenario), ==, "p95{scenario:story}<2s");
  g_assert_true (riv_load_threshold_check (scenario, &summary, NULL));
  g_assert_cmpstr (riv_load_threshold_get_tag (endpoint, &value), ==, "endpoint");
  g_assert_cmpstr (value, ==, "/chat");
  /* The metric is read as without the tag: p(99) is p99, in ms. */
  g_assert_false (riv_load_threshold_check (endpoint, &summary, NULL));
  g_assert_null (riv_load_threshold_get_tag (plain, NULL));
  for (guint i = 0; i < G_N_ELEMENTS (bad); i++)
    {
      g_autoptr(GError) error = NULL;
      g_autoptr(RivLoadThreshold) t = riv_load_threshold_parse (bad[i], &error);

      g_test_message ("%s → %s", bad[i], error != NULL ? error->message : "(accepted)");
      g_assert_null (t);
      g_assert_error (error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE);
    }
}

/* The draws: uniform (their mean near 1/2), the same again for the same
 * seed, others for another; picks follow the weights; each think-time
 * distribution has its mean and range. 100,000 draws: the standard error of
 * a mean of uniform draws is 0.29 / 316 ≈ 0.001, the bounds are 5 of it. */
static void
test_draws (void)
{
  const double cumulative[] = { 3, 4 };
  const RivThink exponential = { RIV_THINK_EXPONENTIAL, 0.2, 0 };
  const RivThink uniform = { RIV_THINK_UNIFORM, 0.1, 0.5 };
  const RivThink constant = { RIV_THINK_CONSTANT, 0.25, 0 };
  const guint n = 100000;
  double sum = 0, sum_exp = 0, sum_uni = 0;
  guint first = 0, differ = 0;

  for (guint64 i = 1; i <= n; i++)
    {
      double u = riv_load_draw (42, i, 0);
      double e = riv_think_sample (&exponential, riv_load_draw (42, i, 1));
      double w = riv_think_sample (&uniform, riv_load_draw (42, i, 1));

      g_assert_cmpfloat (u, >=, 0);
      g_assert_cmpfloat (u, <, 1);
      g_assert_cmpfloat (u, ==, riv_load_draw (42, i, 0));
      differ += u != riv_load_draw (43, i, 0);
      sum += u;
      first += riv_load_scenarios_pick (cumulative, 2, u) == 0;
      g_assert_cmpfloat (e, >=, 0);
      g_assert_cmpfloat (w, >=, 0.1);
      g_assert_cmpfloat (w, <=, 0.5);
      sum_exp += e;
      sum_uni += w;
      g_assert_cmpfloat (riv_think_sample (&constant, u), ==, 0.25);
    }
  g_assert_cmpuint (differ, >, n - 10);
  g_assert_cmpfloat (fabs (sum / n - 0.5), <, 0.005);
  /* 3:1, binomial: sd sqrt (n · 3/4 · 1/4) ≈ 137; 5 sd. */
  g_assert_cmpfloat (fabs (first - 0.75 * n), <, 5 * sqrt (n * 0.75 * 0.25));
  /* Exponential, mean 0.2 and sd 0.2: standard error 0.0006. */
  g_assert_cmpfloat (fabs (sum_exp / n - 0.2), <, 0.004);
  g_assert_cmpfloat (fabs (sum_uni / n - 0.3), <, 0.003);
  g_assert_cmpfloat (riv_think_mean (&uniform), ==, 0.3);
  g_assert_cmpfloat (riv_think_mean (&exponential), ==, 0.2);
  g_assert_cmpuint (riv_load_scenarios_pick (cumulative, 2, 0), ==, 0);
  g_assert_cmpuint (riv_load_scenarios_pick (cumulative, 2, 0.7499), ==, 0);
  g_assert_cmpuint (riv_load_scenarios_pick (cumulative, 2, 0.75), ==, 1);
  g_assert_cmpuint (riv_load_scenarios_pick (cumulative, 2, 0.9999), ==, 1);
}

/* --metrics with scenarios: the jobs' series carry a scenario label, one
 * series a scenario (the run's figures are their sums); without, the run's
 * series alone, unlabelled, as before. */
static void
test_metrics (void)
{
  const char *names[] = { "echo", "story", NULL };
  g_autoptr(RivMetrics) metrics = riv_metrics_new ();
  g_autoptr(RivMetrics) plain = riv_metrics_new ();
  g_autofree char *page = NULL;
  g_autofree char *plain_page = NULL;

  riv_metrics_set_scenarios (metrics, names);
  riv_metrics_add_submitted (metrics, 1);
  riv_metrics_add_submitted (metrics, 2);
  riv_metrics_add_submitted (metrics, 2);
  riv_metrics_add_job (metrics, 1, RIV_JOB_STATUS_COMPLETED, 0.001, 0.02);
  riv_metrics_add_job (metrics, 2, RIV_JOB_STATUS_FAILED, 0.001, -1);
  riv_metrics_add_stream (metrics, 2, RIV_JOB_STATUS_COMPLETED, 0.3, NULL, 2);
  page = riv_metrics_render (metrics, FALSE);
  g_test_message ("%s", page);
  g_assert_nonnull (strstr (page, "\nrivulet_jobs_submitted_total{scenario=\"echo\"} 1\n"));
  g_assert_nonnull (strstr (page, "\nrivulet_jobs_submitted_total{scenario=\"story\"} 2\n"));
  g_assert_null (strstr (page, "\nrivulet_jobs_submitted_total 3"));
  g_assert_nonnull (strstr (page, "rivulet_jobs_finished_total{scenario=\"echo\","
                                  "outcome=\"completed\"} 1\n"));
  g_assert_nonnull (strstr (page, "rivulet_jobs_finished_total{scenario=\"story\","
                                  "outcome=\"failed\"} 1\n"));
  g_assert_nonnull (strstr (page, "rivulet_job_latency_seconds_bucket{scenario=\"echo\","
                                  "le=\"0.025\"} 1\n"));
  g_assert_nonnull (strstr (page, "rivulet_job_latency_seconds_count{scenario=\"story\"} 0\n"));
  g_assert_nonnull (strstr (page, "rivulet_job_first_update_seconds_count{scenario=\"story\"} "
                                  "1\n"));
  g_assert_nonnull (strstr (page, "rivulet_stream_stalls_total{scenario=\"story\"} 2\n"));
  /* Each family described once. */
  g_assert_true (strstr (page, "# TYPE rivulet_jobs_submitted_total counter") ==
                 g_strrstr (page, "# TYPE rivulet_jobs_submitted_total counter"));

  riv_metrics_add_submitted (plain, 0);
  riv_metrics_add_job (plain, 0, RIV_JOB_STATUS_COMPLETED, 0.001, 0.02);
  plain_page = riv_metrics_render (plain, FALSE);
  g_assert_nonnull (strstr (plain_page, "\nrivulet_jobs_submitted_total 1\n"));
  g_assert_nonnull (strstr (plain_page, "rivulet_jobs_finished_total{outcome=\"completed\"} 1\n"));
  g_assert_nonnull (strstr (plain_page, "rivulet_job_latency_seconds_bucket{le=\"0.025\"} 1\n"));
  g_assert_null (strstr (plain_page, "scenario="));
}

/* Writes the scenario file into the fixture's folder; returns its path. */
static char *
write_file (Fixture    *fx,
            const char *name,
            const char *text)
{
  char *path = g_build_filename (fx->dir, name, NULL);
  g_autoptr(GError) error = NULL;

  g_file_set_contents (path, text, -1, &error);
  g_assert_no_error (error);
  return path;
}

static JsonObject *
scenario_object (JsonNode   *summary,
                 const char *name)
{
  JsonObject *scenarios = json_object_get_object_member (json_node_get_object (summary),
                                                         "scenarios");

  g_assert_nonnull (scenarios);
  g_assert_true (json_object_has_member (scenarios, name));
  return json_object_get_object_member (scenarios, name);
}

/* The records of a --output file, one object each. */
static GPtrArray *
read_records (const char *path)
{
  g_autofree char *text = NULL;
  g_auto(GStrv) lines = NULL;
  GPtrArray *records = g_ptr_array_new_with_free_func ((GDestroyNotify) json_node_unref);

  g_assert_true (g_file_get_contents (path, &text, NULL, NULL));
  lines = g_strsplit (text, "\n", -1);
  for (guint i = 0; lines[i] != NULL; i++)
    if (*lines[i] != '\0')
      {
        JsonNode *record = riv_json_parse (NULL, lines[i], -1, 0, NULL);

        g_assert_nonnull (record);
        g_ptr_array_add (records, record);
      }
  return records;
}

#define WEIGHTED_FILE \
  "{\"users\": 4, \"iterations\": 100, \"seed\": %s, \"scenarios\": {" \
  " \"echo\": {\"endpoint\": \"batch_echo\", \"data\": [\"echo {i}\", 0], \"weight\": 3}," \
  " \"story\": {\"endpoint\": \"/stream_text\", \"data\": [\"story {i}\", 2, 0], \"weight\": 1}}}"

/* 400 jobs, 3:1 by weight. The picks are independent draws, so the echo
 * jobs are binomial (n 400, p 3/4): sd sqrt (400 · 3/4 · 1/4) ≈ 8.7; they
 * must be within 4 sd (35 jobs) of 300. Both scenarios' counts agree with
 * their records, each record names its scenario and its endpoint is that
 * scenario's; and the same seed in two processes picks the same jobs. */
static void
test_cli_weights (Fixture       *fx,
                  gconstpointer  data)
{
  g_autofree char *text = g_strdup_printf (WEIGHTED_FILE, "11");
  g_autofree char *file = write_file (fx, "weighted.json", text);
  g_autofree char *records_path = g_build_filename (fx->dir, "jobs.jsonl", NULL);
  const char *args[] = { "--scenarios", file, "--json", "--output", records_path, NULL };
  g_autofree char *threaded_path = g_build_filename (fx->dir, "threaded.jsonl", NULL);
  const char *threaded[] = { "--scenarios", file, "--processes", "2", "--output", threaded_path,
                             NULL };
  g_autoptr(GPtrArray) threaded_records = NULL;
  g_autoptr(GHashTable) picks = g_hash_table_new_full (NULL, NULL, NULL, g_free);
  g_autoptr(JsonNode) summary = NULL;
  g_autoptr(GPtrArray) records = NULL;
  g_autofree char *err = NULL;
  g_autofree char *err2 = NULL;
  JsonObject *echo, *story;
  gint64 n_echo, n_story;
  guint records_echo = 0, records_story = 0;

  g_assert_cmpint (riv_test_served_load (fx, args, &summary, &err), ==, 0);
  g_assert_nonnull (summary);
  g_assert_cmpint (json_object_get_int_member (json_node_get_object (summary), "completed"), ==,
                   400);
  echo = scenario_object (summary, "echo");
  story = scenario_object (summary, "story");
  n_echo = json_object_get_int_member (echo, "completed");
  n_story = json_object_get_int_member (story, "completed");
  g_test_message ("echo %" G_GINT64_FORMAT ", story %" G_GINT64_FORMAT, n_echo, n_story);
  g_assert_cmpint (n_echo + n_story, ==, 400);
  g_assert_cmpfloat (fabs (n_echo - 300.0), <=, 4 * sqrt (400 * 0.75 * 0.25));
  g_assert_cmpint (json_object_get_int_member (echo, "submitted"), ==, n_echo);
  g_assert_cmpstr (json_object_get_string_member (echo, "endpoint"), ==, "/batch_echo");
  g_assert_cmpstr (json_object_get_string_member (story, "endpoint"), ==, "/stream_text");
  g_assert_cmpfloat (json_object_get_double_member (echo, "weight"), ==, 3);
  g_assert_cmpfloat (json_object_get_double_member (
                       json_object_get_object_member (story, "latency_s"), "p95"), >, 0);
  /* stream_text streams: its first update is timed. */
  g_assert_nonnull (json_object_get_object_member (story, "first_update_s"));

  records = read_records (records_path);
  g_assert_cmpuint (records->len, ==, 400);
  for (guint i = 0; i < records->len; i++)
    {
      JsonObject *record = json_node_get_object (g_ptr_array_index (records, i));
      const char *scenario = json_object_get_string_member (record, "scenario");
      const char *endpoint = json_object_get_string_member (record, "endpoint");
      JsonArray *outputs = json_object_get_array_member (record, "outputs");
      g_autofree char *expected = NULL;

      g_assert_nonnull (scenario);
      g_hash_table_insert (picks,
                           GSIZE_TO_POINTER ((gsize) json_object_get_int_member (record, "index")),
                           g_strdup (scenario));
      if (strcmp (scenario, "echo") == 0)
        {
          records_echo++;
          g_assert_cmpstr (endpoint, ==, "/batch_echo");
          /* Its own data, {i} its job number. */
          expected = g_strdup_printf ("echo %" G_GINT64_FORMAT,
                                      json_object_get_int_member (record, "index"));
          g_assert_cmpstr (json_array_get_string_element (outputs, 0), ==, expected);
        }
      else
        {
          g_assert_cmpstr (scenario, ==, "story");
          g_assert_cmpstr (endpoint, ==, "/stream_text");
          records_story++;
        }
    }
  g_assert_cmpuint (records_echo, ==, n_echo);
  g_assert_cmpuint (records_story, ==, n_story);

  /* The picks hang on the seed and the job numbers, not on the processes. */
  g_assert_cmpint (riv_test_served_load (fx, threaded, NULL, &err2), ==, 0);
  threaded_records = read_records (threaded_path);
  g_assert_cmpuint (threaded_records->len, ==, 400);
  for (guint i = 0; i < threaded_records->len; i++)
    {
      JsonObject *record = json_node_get_object (g_ptr_array_index (threaded_records, i));
      gsize index = (gsize) json_object_get_int_member (record, "index");

      g_assert_cmpstr (json_object_get_string_member (record, "scenario"), ==,
                       g_hash_table_lookup (picks, GSIZE_TO_POINTER (index)));
    }
}

/* A slow scenario (a 0.3 s sleep) and a fast one: p95{scenario:slow}<0.2s
 * fails, the fast one's and the slow one's own "min" bound hold, the run
 * exits 1; the text summary has a block per scenario. */
static void
test_cli_thresholds (Fixture       *fx,
                     gconstpointer  data)
{
  g_autofree char *file = write_file (fx, "slow.json",
    "{\"users\": 2, \"iterations\": 5, \"seed\": 3, \"scenarios\": {"
    " \"slow\": {\"endpoint\": \"batch_echo\", \"data\": [\"slow {i}\", 0.3],"
    "           \"thresholds\": [\"p50>=0.3s\"]},"
    " \"fast\": {\"endpoint\": \"stream_text\", \"data\": [\"fast\", 1, 0]}}}");
  const char *json_args[] = { "--scenarios", file, "--json",
                              "--threshold", "p95{scenario:slow}<0.2s",
                              "--threshold", "p95{scenario:fast}<0.2s",
                              "--threshold", "p95{endpoint:/batch_echo}>0.25s",
                              "--threshold", "failed==0", NULL };
  const char *text_args[] = { "--scenarios", file, "--threshold", "p95{scenario:slow}<0.2s",
                              NULL };
  g_autoptr(JsonNode) summary = NULL;
  g_autofree char *err = NULL;
  g_autofree char *err2 = NULL;
  g_autoptr(JsonNode) none = NULL;
  JsonArray *thresholds;
  const struct { const char *text; gboolean ok; } expected[] = {
    { "p95{scenario:slow}<0.2s", FALSE },
    { "p95{scenario:fast}<0.2s", TRUE },
    { "p95{endpoint:/batch_echo}>0.25s", TRUE },
    { "failed==0", TRUE },
    { "p50{scenario:slow}>=0.3s", TRUE },
  };

  g_assert_cmpint (riv_test_served_load (fx, json_args, &summary, &err), ==, 1);
  thresholds = json_object_get_array_member (json_node_get_object (summary), "thresholds");
  g_assert_cmpuint (json_array_get_length (thresholds), ==, G_N_ELEMENTS (expected));
  for (guint i = 0; i < G_N_ELEMENTS (expected); i++)
    {
      JsonObject *t = json_array_get_object_element (thresholds, i);

      g_assert_cmpstr (json_object_get_string_member (t, "threshold"), ==, expected[i].text);
      g_assert_cmpint (json_object_get_boolean_member (t, "ok"), ==, expected[i].ok);
    }
  /* The slow one's p95 is its own (≥ 0.3 s), not the run's. */
  g_assert_cmpfloat (json_object_get_double_member (json_array_get_object_element (thresholds, 0),
                                                    "value"), >=, 0.3);

  g_assert_cmpint (riv_test_served_load (fx, text_args, &none, &err2), ==, 1);
}

/* The text summary: a block per scenario after the run's lines, and the
 * thresholds with their tags. */
static void
test_cli_text (Fixture       *fx,
               gconstpointer  data)
{
  g_autofree char *file = write_file (fx, "text.json",
    "{\"users\": 1, \"iterations\": 4, \"seed\": 5, \"scenarios\": {"
    " \"a\": {\"endpoint\": \"batch_echo\", \"data\": [\"a\", 0], \"weight\": 2},"
    " \"b\": {\"endpoint\": \"batch_echo\", \"data\": [\"b\", 0]}}}");
  g_autofree char *out = NULL;
  g_autofree char *err = NULL;
  const char *args[] = { "load", "--url", fx->url, "--scenarios", file,
                         "--threshold", "completed{endpoint:batch_echo}==4", NULL };
  const char *latency, *block_a, *block_b;

  g_assert_cmpint (riv_test_run_cli (args, &out, &err, 120), ==, 0);
  g_test_message ("%s%s", out, err);
  latency = strstr (out, "\nlatency    p50");
  block_a = strstr (out, "\nscenario   a (/batch_echo, weight 2): ");
  block_b = strstr (out, "\nscenario   b (/batch_echo, weight 1): ");
  g_assert_nonnull (latency);
  g_assert_nonnull (block_a);
  g_assert_nonnull (block_b);
  g_assert_true (latency < block_a && block_a < block_b);
  /* Both scenarios send to one endpoint: its threshold counts them together. */
  g_assert_nonnull (strstr (out, "✓ completed{endpoint:batch_echo}==4"));
}

/* Gaps between a user's jobs: the think time after each job is its
 * scenario's. "wait" thinks uniform 0.2–0.3 s (every gap at least 0.2 s, a
 * mean near 0.25 s), "quick" exponential with mean 0.05 s (a mean well under
 * "wait"'s). The bounds leave room for the machine's delays. */
static void
test_cli_think (Fixture       *fx,
                gconstpointer  data)
{
  g_autofree char *file = write_file (fx, "think.json",
    "{\"users\": 2, \"iterations\": 30, \"seed\": 17, \"scenarios\": {"
    " \"wait\": {\"endpoint\": \"batch_echo\", \"data\": [\"w\", 0],"
    "           \"think\": {\"uniform\": [0.2, 0.3]}},"
    " \"quick\": {\"endpoint\": \"stream_text\", \"data\": [\"q\", 1, 0],"
    "            \"think\": {\"exponential\": 0.05}}}}");
  g_autofree char *records_path = g_build_filename (fx->dir, "think.jsonl", NULL);
  const char *args[] = { "--scenarios", file, "--output", records_path, NULL };
  g_autoptr(GPtrArray) records = NULL;
  g_autofree char *err = NULL;
  double sum[2] = { 0 }, min_wait = G_MAXDOUBLE;
  guint n[2] = { 0 };

  g_assert_cmpint (riv_test_served_load (fx, args, NULL, &err), ==, 0);
  records = read_records (records_path);
  g_assert_cmpuint (records->len, ==, 60);
  for (guint i = 0; i < records->len; i++)
    {
      JsonObject *a = json_node_get_object (g_ptr_array_index (records, i));
      double start = json_object_get_double_member (a, "submitted_at");
      double end = start + json_object_get_double_member (a, "latency_s");
      double next = G_MAXDOUBLE;
      guint kind = strcmp (json_object_get_string_member (a, "scenario"), "wait") == 0 ? 0 : 1;

      /* The same user's next job (a user's jobs go one after another). */
      for (guint k = 0; k < records->len; k++)
        {
          JsonObject *b = json_node_get_object (g_ptr_array_index (records, k));
          double at = json_object_get_double_member (b, "submitted_at");

          if (json_object_get_int_member (b, "user") == json_object_get_int_member (a, "user") &&
              at > start && at < next)
            next = at;
        }
      if (next == G_MAXDOUBLE)
        continue;
      sum[kind] += next - end;
      n[kind]++;
      if (kind == 0)
        min_wait = MIN (min_wait, next - end);
    }
  g_test_message ("wait: %u gaps, mean %.3f s, min %.3f s; quick: %u gaps, mean %.3f s",
                  n[0], sum[0] / MAX (n[0], 1), min_wait, n[1], sum[1] / MAX (n[1], 1));
  g_assert_cmpuint (n[0], >, 5);
  g_assert_cmpuint (n[1], >, 5);
  g_assert_cmpfloat (min_wait, >=, 0.19);
  g_assert_cmpfloat (sum[0] / n[0], >=, 0.2);
  g_assert_cmpfloat (sum[0] / n[0], <, 0.5);
  g_assert_cmpfloat (sum[1] / n[1], <, sum[0] / n[0] - 0.05);
}

/* The column "completed" of the --timeseries lines labelled label, summed. */
static guint
sum_completed (char      **lines,
               const char *label)
{
  guint sum = 0;

  for (guint i = 1; lines[i] != NULL; i++)
    {
      g_auto(GStrv) fields = g_strsplit (lines[i], ",", -1);

      if (*lines[i] != '\0' && strcmp (fields[0], label) == 0)
        sum += (guint) g_ascii_strtoull (fields[3], NULL, 10);
    }
  return sum;
}

/* --timeseries with scenarios: a first column "scenario", the run's seconds
 * as "(all)" and each scenario's, whose completions add up to the run's;
 * --report lists each scenario with what it sends and its figures, draws
 * each one's throughput and p95 over time, one line a scenario, and checks
 * a tagged threshold on its scenario's jobs (echo's quick p95, not the
 * run's, which story's jobs (a second each) make). */
static void
test_cli_outputs (Fixture       *fx,
                  gconstpointer  data)
{
  g_autofree char *file = write_file (fx, "outputs.json",
    "{\"users\": 2, \"iterations\": 10, \"seed\": 8, \"scenarios\": {"
    " \"echo\": {\"endpoint\": \"batch_echo\", \"data\": [\"e\", 0], \"weight\": 2},"
    " \"story\": {\"endpoint\": \"stream_text\", \"data\": [\"s\", 2, 0.5],"
    "            \"think\": {\"uniform\": [0, 0.01]}}}}");
  g_autofree char *csv_path = g_build_filename (fx->dir, "series.csv", NULL);
  g_autofree char *report_path = g_build_filename (fx->dir, "report.html", NULL);
  const char *args[] = { "--scenarios", file, "--json", "--timeseries", csv_path,
                         "--report", report_path, "--threshold", "p95{scenario:echo}<1s", NULL };
  g_autofree char *measured = NULL;
  double echo_p95, run_p95;
  g_autoptr(JsonNode) summary = NULL;
  g_autofree char *err = NULL;
  g_autofree char *csv = NULL;
  g_autofree char *report = NULL;
  g_auto(GStrv) lines = NULL;
  gint64 n_echo;

  g_assert_cmpint (riv_test_served_load (fx, args, &summary, &err), ==, 0);
  n_echo = json_object_get_int_member (scenario_object (summary, "echo"), "completed");
  g_assert_true (g_file_get_contents (csv_path, &csv, NULL, NULL));
  lines = g_strsplit (csv, "\n", -1);
  g_assert_true (g_str_has_prefix (lines[0], "scenario,t_s,started,completed,"));
  g_assert_cmpuint (sum_completed (lines, "(all)"), ==, 20);
  g_assert_cmpuint (sum_completed (lines, "echo"), ==, n_echo);
  g_assert_cmpuint (sum_completed (lines, "echo") + sum_completed (lines, "story"), ==, 20);

  g_assert_true (g_file_get_contents (report_path, &report, NULL, NULL));
  g_assert_nonnull (strstr (report, "scenario echo"));
  g_assert_nonnull (strstr (report, "/stream_text, weight 1, think uniform 0–0.01 s"));
  g_assert_nonnull (strstr (report, "story: jobs"));
  /* A line a scenario in each chart by scenario, and the table. */
  g_assert_nonnull (strstr (report, "id=\"scenario-throughput\""));
  g_assert_nonnull (strstr (strstr (report, "id=\"scenario-throughput\""),
                            "data-series=\"story\""));
  g_assert_nonnull (strstr (strstr (report, "id=\"scenario-latency\""), "data-series=\"echo\""));
  g_assert_nonnull (strstr (strstr (report, "id=\"scenario-latency\""), "data-series=\"story\""));
  g_assert_nonnull (strstr (report, "id=\"scenarios\""));
  /* The tagged threshold's measured value is echo's p95. */
  echo_p95 = json_object_get_double_member (
    json_object_get_object_member (scenario_object (summary, "echo"), "latency_s"), "p95");
  run_p95 = json_object_get_double_member (
    json_object_get_object_member (json_node_get_object (summary), "latency_s"), "p95");
  g_assert_cmpfloat (run_p95, >, echo_p95 + 0.01);
  measured = g_strdup_printf ("p95{scenario:echo}&lt;1s</code></td><td class=\"n\">%.3fs</td>",
                              echo_p95);
  g_assert_nonnull (strstr (report, measured));
}

/* Two shards of a run with scenarios, merged by report merge: each
 * scenario's jobs are the sum of the shards', with its endpoint, in --json
 * and in the text summary. */
static void
test_cli_merge (Fixture       *fx,
                gconstpointer  data)
{
  g_autofree char *file = write_file (fx, "merge.json",
    "{\"users\": 4, \"iterations\": 10, \"seed\": 21, \"scenarios\": {"
    " \"echo\": {\"endpoint\": \"batch_echo\", \"data\": [\"e\", 0], \"weight\": 3},"
    " \"story\": {\"endpoint\": \"stream_text\", \"data\": [\"s\", 2, 0]}}}");
  g_autofree char *path0 = g_build_filename (fx->dir, "shard0.jsonl", NULL);
  g_autofree char *path1 = g_build_filename (fx->dir, "shard1.jsonl", NULL);
  const char *shard0[] = { "--scenarios", file, "--shard", "0/2", "--json", "-o", path0, NULL };
  const char *shard1[] = { "--scenarios", file, "--shard", "1/2", "--json", "-o", path1, NULL };
  const char *merge_json[] = { "report", "merge", "--json", path0, path1, NULL };
  const char *merge_text[] = { "report", "merge", path0, path1, NULL };
  g_autoptr(JsonNode) summary0 = NULL;
  g_autoptr(JsonNode) summary1 = NULL;
  g_autoptr(JsonNode) merged = NULL;
  g_autofree char *err0 = NULL, *err1 = NULL, *out = NULL, *err = NULL;
  g_autofree char *text = NULL, *text_err = NULL;
  const char *names[] = { "echo", "story" };

  g_assert_cmpint (riv_test_served_load (fx, shard0, &summary0, &err0), ==, 0);
  g_assert_cmpint (riv_test_served_load (fx, shard1, &summary1, &err1), ==, 0);
  g_assert_cmpint (riv_test_run_cli (merge_json, &out, &err, 60), ==, 0);
  g_test_message ("%s%s", out, err);
  g_assert_cmpstr (err, ==, "");
  merged = riv_json_parse (NULL, out, -1, 0, NULL);
  g_assert_nonnull (merged);
  g_assert_cmpint (json_object_get_int_member (json_node_get_object (merged), "completed"), ==,
                   40);
  for (guint i = 0; i < G_N_ELEMENTS (names); i++)
    {
      JsonObject *m = scenario_object (merged, names[i]);

      g_assert_cmpint (json_object_get_int_member (m, "completed"), ==,
                       json_object_get_int_member (scenario_object (summary0, names[i]),
                                                   "completed") +
                       json_object_get_int_member (scenario_object (summary1, names[i]),
                                                   "completed"));
      g_assert_cmpstr (json_object_get_string_member (m, "endpoint"), ==,
                       i == 0 ? "/batch_echo" : "/stream_text");
    }
  g_assert_cmpint (riv_test_run_cli (merge_text, &text, &text_err, 60), ==, 0);
  g_assert_nonnull (strstr (text, "\nscenario   echo (/batch_echo): "));
  g_assert_nonnull (strstr (text, "\nscenario   story (/stream_text): "));
}

/* Runs load --scenarios with the file text (written as name.json), which
 * must exit 0; *summary its --json summary, *records its --output records. */
static void
run_recorded (Fixture     *fx,
              const char  *name,
              const char  *text,
              JsonNode   **summary,
              GPtrArray  **records)
{
  g_autofree char *base = g_strconcat (name, ".json", NULL);
  g_autofree char *lines = g_strconcat (name, ".jsonl", NULL);
  g_autofree char *file = write_file (fx, base, text);
  g_autofree char *records_path = g_build_filename (fx->dir, lines, NULL);
  const char *args[] = { "--scenarios", file, "--json", "--output", records_path, NULL };
  g_autofree char *err = NULL;

  g_assert_cmpint (riv_test_served_load (fx, args, summary, &err), ==, 0);
  g_assert_nonnull (*summary);
  *records = read_records (records_path);
}

#define SESSION_FILE \
  "{\"users\": 3, \"iterations\": 12, \"seed\": 21, \"scenarios\": {" \
  " \"talk\": {\"endpoint\": \"session_chat\", \"data\": [\"user {u} job {i}\"], \"turns\": 3}," \
  " \"echo\": {\"endpoint\": \"batch_echo\", \"data\": [\"echo {i}\", 0]}}}"

/* A conversation of three turns with session_chat, whose gr.State the
 * server keeps per session: users draw "talk" or "echo" by weight per
 * conversation. Each talk job's reply names its turn and the message of the
 * turn before it in its session, the user's own (so a conversation kept its
 * state, and no user saw another's); its State output comes back as null;
 * its three turns share one session, and every conversation has a session
 * no other job had. */
static void
test_cli_session (Fixture       *fx,
                  gconstpointer  data)
{
  g_autoptr(GHashTable) sessions = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  g_autoptr(JsonNode) summary = NULL;
  g_autoptr(GPtrArray) records = NULL;
  guint talk = 0, talk_jobs = 0, full = 0;

  run_recorded (fx, "session", SESSION_FILE, &summary, &records);
  talk_jobs = json_object_get_int_member (scenario_object (summary, "talk"), "completed");
  g_assert_cmpint (json_object_get_int_member (scenario_object (summary, "talk"), "turns"), ==, 3);
  g_assert_cmpuint (records->len, ==, 36);

  /* Each user's jobs in the order it sent them (one at a time). */
  for (gint64 u = 1; u <= 3; u++)
    {
      g_autofree char *previous = NULL;
      g_autofree char *session = NULL;
      gint64 last_index = 0;
      guint expected_turn = 1;

      for (;;)
        {
          JsonObject *next = NULL;
          const char *scenario, *reply, *record_session;
          g_autofree char *message = NULL;
          g_autofree char *expected = NULL;
          JsonArray *outputs;

          /* The user's next job: the lowest index above the last. */
          for (guint i = 0; i < records->len; i++)
            {
              JsonObject *record = json_node_get_object (g_ptr_array_index (records, i));
              gint64 index = json_object_get_int_member (record, "index");

              if (json_object_get_int_member (record, "user") == u && index > last_index &&
                  (next == NULL || index < json_object_get_int_member (next, "index")))
                next = record;
            }
          if (next == NULL)
            break;
          last_index = json_object_get_int_member (next, "index");
          g_assert_cmpstr (json_object_get_string_member (next, "status"), ==, "completed");
          scenario = json_object_get_string_member (next, "scenario");
          if (strcmp (scenario, "echo") == 0)
            {
              g_assert_false (json_object_has_member (next, "turn"));
              /* A conversation that ended gave its session up. */
              g_assert_cmpuint (expected_turn, ==, 1);
              g_clear_pointer (&previous, g_free);
              continue;
            }
          g_assert_cmpstr (scenario, ==, "talk");
          talk++;
          g_assert_cmpint (json_object_get_int_member (next, "turn"), ==, expected_turn);
          record_session = json_object_get_string_member (next, "session");
          g_assert_nonnull (record_session);
          if (expected_turn == 1)
            {
              /* A new conversation: a session no job had before. */
              g_assert_false (g_hash_table_contains (sessions, record_session));
              g_hash_table_add (sessions, g_strdup (record_session));
              g_free (session);
              session = g_strdup (record_session);
              g_clear_pointer (&previous, g_free);
            }
          else
            g_assert_cmpstr (record_session, ==, session);

          message = g_strdup_printf ("user %" G_GINT64_FORMAT " job %" G_GINT64_FORMAT, u,
                                     last_index);
          expected = previous != NULL
            ? g_strdup_printf ("Turn %u of this session. You said “%s”; before that, “%s”.",
                               expected_turn, message, previous)
            : g_strdup_printf ("Turn %u of this session. You said “%s”; nothing before.",
                               expected_turn, message);
          outputs = json_object_get_array_member (next, "outputs");
          reply = json_array_get_string_element (outputs, 0);
          g_assert_cmpstr (reply, ==, expected);
          /* The State stays on the server. */
          g_assert_true (JSON_NODE_HOLDS_NULL (json_array_get_element (outputs, 1)));
          g_free (previous);
          previous = g_steal_pointer (&message);
          full += expected_turn == 3;
          expected_turn = expected_turn % 3 + 1;
        }
    }
  g_assert_cmpuint (talk, ==, talk_jobs);
  /* Seed 21 gives each kind some conversations; and at least one talk ran
   * all three turns. */
  g_assert_cmpuint (talk, >, 0);
  g_assert_cmpuint (talk, <, 36);
  g_assert_cmpuint (full, >, 0);
}

#define OWN_USERS_FILE \
  "{\"users\": 2, \"iterations\": 6, \"seed\": 3, \"scenarios\": {" \
  " \"own\": {\"endpoint\": \"batch_echo\", \"data\": [\"own {i}\", 0], \"users\": 3}," \
  " \"a\": {\"endpoint\": \"batch_echo\", \"data\": [\"a {i}\", 0]}," \
  " \"b\": {\"endpoint\": \"stream_text\", \"data\": [\"b\", 2, 0]}}}"

/* A scenario with users of its own: "own" has 3, besides the run's 2, which
 * draw "a" or "b". The run has 5 users; users 1 to 3 send only own's jobs
 * (6 each), users 4 and 5 never. */
static void
test_cli_own_users (Fixture       *fx,
                    gconstpointer  data)
{
  g_autoptr(JsonNode) summary = NULL;
  g_autoptr(GPtrArray) records = NULL;

  run_recorded (fx, "own", OWN_USERS_FILE, &summary, &records);
  g_assert_cmpint (json_object_get_int_member (json_node_get_object (summary), "users"), ==, 5);
  g_assert_cmpint (json_object_get_int_member (json_node_get_object (summary), "completed"), ==,
                   30);
  g_assert_cmpint (json_object_get_int_member (scenario_object (summary, "own"), "completed"), ==,
                   18);
  /* Its users, not a weight: it is not drawn. */
  g_assert_cmpint (json_object_get_int_member (scenario_object (summary, "own"), "users"), ==, 3);
  g_assert_false (json_object_has_member (scenario_object (summary, "own"), "weight"));
  g_assert_cmpfloat (json_object_get_double_member (scenario_object (summary, "a"), "weight"), ==,
                     1);
  g_assert_cmpint (json_object_get_int_member (scenario_object (summary, "a"), "completed") +
                   json_object_get_int_member (scenario_object (summary, "b"), "completed"), ==,
                   12);
  g_assert_cmpuint (records->len, ==, 30);
  for (guint i = 0; i < records->len; i++)
    {
      JsonObject *record = json_node_get_object (g_ptr_array_index (records, i));
      gint64 user = json_object_get_int_member (record, "user");
      const char *scenario = json_object_get_string_member (record, "scenario");

      g_assert_cmpint (user, >=, 1);
      g_assert_cmpint (user, <=, 5);
      g_assert_cmpint (strcmp (scenario, "own") == 0, ==, user <= 3);
    }
}

/* --until-break with scenarios: "slow" (a tenth of the jobs, each 2.5 s)
 * has its own p50<1s, which its jobs fail from the first one while the
 * run's p50 (mostly "fast", batch_echo without delay) stays far under it.
 * The ramp stops there, and the breakpoint names slow's threshold. */
static void
test_cli_until_break (Fixture       *fx,
                      gconstpointer  data)
{
  g_autofree char *file = write_file (fx, "break.json",
    "{\"stages\": \"20s:10\", \"seed\": 5, \"scenarios\": {"
    " \"fast\": {\"endpoint\": \"batch_echo\", \"data\": [\"f {i}\", 0], \"weight\": 9,"
    "           \"thresholds\": [\"p95<5s\"]},"
    " \"slow\": {\"endpoint\": \"stream_text\", \"data\": [\"s\", 5, 0.5],"
    "           \"thresholds\": [\"p50<1s\"]}}}");
  const char *args[] = { "--scenarios", file, "--until-break", "--json", NULL };
  g_autoptr(JsonNode) summary = NULL;
  g_autofree char *err = NULL;
  JsonObject *bp;
  const char *reason;

  g_assert_cmpint (riv_test_served_load (fx, args, &summary, &err), ==, 0);
  g_assert_nonnull (summary);
  bp = json_object_get_object_member (json_node_get_object (summary), "breakpoint");
  g_assert_nonnull (bp);
  reason = json_object_get_string_member (bp, "reason");
  g_assert_true (g_str_has_prefix (reason, "scenario slow: latency p50 went over 1.000s "
                                           "(threshold p50{scenario:slow}<1s, measured "));
  g_assert_cmpfloat (json_object_get_double_member (bp, "t_s"), <, 15);
  /* The run's p50, all jobs together, was under that bound. */
  g_assert_cmpfloat (json_object_get_double_member (
                       json_object_get_object_member (json_node_get_object (summary), "latency_s"),
                       "p50"), <, 1);
  g_assert_cmpint (json_object_get_int_member (scenario_object (summary, "fast"), "completed"),
                   >, 0);
}

/* A seed whose draws give the first four jobs (one per user, all sent at
 * the start) both of the example's scenarios, echo (weight 3) and story
 * (weight 1), as the run draws them. */
static guint64
example_seed (void)
{
  const double cumulative[] = { 3, 4 };

  for (guint64 seed = 1;; seed++)
    {
      guint picked[2] = { 0, 0 };

      for (guint64 index = 1; index <= 4; index++)
        picked[riv_load_scenarios_pick (cumulative, 2,
                                        riv_load_draw (seed, index, RIV_LOAD_DRAW_SCENARIO))]++;
      if (picked[0] > 0 && picked[1] > 0)
        return seed;
    }
}

/* The documented example (tests/data/scenarios.json, app/docs/cli.md) runs
 * as it is, shortened by the command line's --users and --duration, which
 * win over the file's: both scenarios' jobs go out, and its thresholds (the
 * run's and story's own) hold. --seed makes the draws (with a random seed,
 * 4 users in 2 s could all draw story), and the summary gives it back. */
static void
test_cli_example (Fixture       *fx,
                  gconstpointer  data)
{
  g_autofree char *file = g_test_build_filename (G_TEST_DIST, "data", "scenarios.json", NULL);
  g_autofree char *seed = g_strdup_printf ("%" G_GUINT64_FORMAT, example_seed ());
  const char *args[] = { "--scenarios", file, "--users", "4", "--duration", "2", "--json",
                         "--seed", seed, NULL };
  g_autoptr(JsonNode) summary = NULL;
  g_autofree char *err = NULL;
  JsonArray *thresholds;

  g_assert_cmpint (riv_test_served_load (fx, args, &summary, &err), ==, 0);
  g_assert_cmpint (json_object_get_int_member (json_node_get_object (summary), "users"), ==, 4);
  g_assert_cmpint (json_object_get_int_member (json_node_get_object (summary), "seed"), ==,
                   example_seed ());
  g_assert_cmpint (json_object_get_int_member (scenario_object (summary, "echo"), "completed"),
                   >, 0);
  g_assert_cmpint (json_object_get_int_member (scenario_object (summary, "story"), "completed"),
                   >, 0);
  thresholds = json_object_get_array_member (json_node_get_object (summary), "thresholds");
  g_assert_cmpuint (json_array_get_length (thresholds), ==, 3);
  g_assert_cmpstr (json_object_get_string_member (json_array_get_object_element (thresholds, 2),
                                                  "threshold"), ==, "ttfu_p95{scenario:story}<500ms");
}

/* Every bad file, or a file with the wrong options, exits 2 with its error
 * and sends no job (the server counts none). */
static void
test_cli_bad_file (Fixture       *fx,
                   gconstpointer  data)
{
  /* option and value: one more on the command line (after the file). */
  const struct { const char *text; const char *option; const char *value; const char *says; }
  cases[] = {
    { "{\"scenarios\": {\"a\": {\"endpoint\": \"batch_echo\", \"wieght\": 2}}}", NULL, NULL,
      "scenario \"a\": \"wieght\": unknown key" },
    { "{\"scenarios\": {\"a\": {\"endpoint\": \"batch_echo\"}}, \"vus\": 2}", NULL, NULL,
      "\"vus\": unknown key" },
    { "{\"scenarios\": {\"a\": {\"endpoint\": \"batch_echo\"}, \"b\": {\"endpoint\": \"nope\"}}}",
      NULL, NULL, "scenario \"b\": \"endpoint\": the server has no endpoint \"nope\"" },
    { "{\"scenarios\": {\"a\": {\"endpoint\": \"batch_echo\", \"weight\": 0}}}", NULL, NULL,
      "scenario \"a\": \"weight\"" },
    { "{\"scenarios\": {\"a\": {\"endpoint\": \"batch_echo\", \"think\": {\"normal\": 1}}}}",
      NULL, NULL, "scenario \"a\": \"think\"" },
    { "{\"scenarios\": {\"a\": {\"endpoint\": \"batch_echo\", \"data\": [\"x\", 0, 1]}}}",
      NULL, NULL,
      "scenario \"a\": \"data\" has 3 values but the endpoint takes 2" },
    { "{\"scenarios\": {\"a\": {\"endpoint\": \"batch_echo\", \"data\": {\"txt\": \"x\"}}}}",
      NULL, NULL, "scenario \"a\": \"data\" for /batch_echo: unknown parameter \"txt\"" },
    { "{\"scenarios\": {\"a\": {\"endpoint\": \"chat\", \"examples\": true}}}", NULL, NULL,
      "scenario \"a\": \"examples\": /chat has no examples" },
    { "{\"scenarios\": {\"a\": {\"endpoint\": \"batch_echo\"}}}", "--endpoint", "batch_echo",
      "leave out --endpoint, --data and --examples" },
    { "{\"scenarios\": {\"a\": {\"endpoint\": \"batch_echo\"}}}", "--data", "[\"x\"]",
      "leave out --endpoint, --data and --examples" },
    { "{\"scenarios\": {\"a\": {\"endpoint\": \"batch_echo\"}}}", "--threshold",
      "p95{scenario:b}<1s",
      "threshold \"p95{scenario:b}<1s\": the file has no scenario \"b\"" },
    { "{\"scenarios\": {\"a\": {\"endpoint\": \"batch_echo\"}}}", "--threshold",
      "p95{endpoint:/chat}<1s",
      "threshold \"p95{endpoint:/chat}<1s\": the run has no endpoint \"/chat\"" },
    { "{\"scenarios\": [1]}", NULL, NULL, "\"scenarios\": expected an object" },
    { "{\"users\": 2, \"duration\": 1, \"scenarios\": {\"a\": {\"endpoint\": \"batch_echo\", "
      "\"users\": 2}}}", NULL, NULL, "the run's 2 users have no scenario to draw" },
    { "{\"duration\": 1, \"scenarios\": {\"a\": {\"endpoint\": \"batch_echo\", \"users\": 2}, "
      "\"b\": {\"endpoint\": \"batch_echo\"}}}", NULL, NULL,
      "scenario \"b\" has no users of its own, and the run has none to draw it" },
    { "{\"stages\": \"2s:2\", \"scenarios\": {\"a\": {\"endpoint\": \"batch_echo\", "
      "\"users\": 2}}}", NULL, NULL, "a scenario's own \"users\" run the whole run" },
    { "{\"scenarios\": {\"a\": {\"endpoint\": \"session_chat\", \"turns\": 3}}}", NULL, NULL,
      "scenario \"a\": \"turns\" is a virtual user's conversation: give users" },
    /* A file in one scenario's data is checked before any job, whichever jobs take it. */
    { "{\"users\": 2, \"duration\": 2, \"scenarios\": {\"a\": {\"endpoint\": \"batch_echo\"}, "
      "\"b\": {\"endpoint\": \"batch_echo\", \"weight\": 0.001, \"data\": [{\"path\": "
      "\"/nonexistent/cat{u}.png\", \"meta\": {\"_type\": \"gradio.FileData\"}}, 0]}}}",
      NULL, NULL,
      "--scenarios: scenario \"b\": job 1's file /nonexistent/cat1.png: no such file" },
    { "{\"scenarios\": {\"a\": {\"endpoint\": \"batch_echo\"}}}", "--seed", "-3",
      "--seed: expected a whole number, 0 or more, not “-3”" },
    /* No --scenarios (the file left out): a seed would draw nothing. */
    { NULL, "--seed", "7", "--seed is for --scenarios" },
  };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autofree char *file = cases[i].text != NULL ? write_file (fx, "bad.json", cases[i].text)
                                                    : NULL;
      g_autofree char *err = NULL;
      const char *args[] = { "--scenarios", file, cases[i].option, cases[i].value, NULL };

      if (cases[i].text == NULL)
        {
          args[0] = "--endpoint";
          args[1] = "batch_echo";
        }
      g_assert_cmpint (riv_test_served_load (fx, args, NULL, &err), ==, 2);
      g_assert_nonnull (strstr (err, cases[i].says));
      /* One line says it (then the hint to --help). */
      g_assert_true (g_str_has_prefix (err, "rivulet-cli load: "));
      g_assert_cmpuint (riv_server_get_n_completed (fx->server) +
                        riv_server_get_n_pending (fx->server), ==, 0);
    }
}

int
main (int    argc,
      char **argv)
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/scenarios/parse", test_parse);
  g_test_add_func ("/scenarios/parse-bad", test_parse_bad);
  g_test_add_func ("/scenarios/tags", test_tags);
  g_test_add_func ("/scenarios/draws", test_draws);
  g_test_add_func ("/scenarios/metrics", test_metrics);
  g_test_add ("/scenarios/cli/weights", Fixture, "riv-test-scenarios", riv_test_served_setup,
              test_cli_weights, riv_test_served_teardown);
  g_test_add ("/scenarios/cli/thresholds", Fixture, "riv-test-scenarios", riv_test_served_setup,
              test_cli_thresholds, riv_test_served_teardown);
  g_test_add ("/scenarios/cli/text", Fixture, "riv-test-scenarios", riv_test_served_setup,
              test_cli_text, riv_test_served_teardown);
  g_test_add ("/scenarios/cli/think", Fixture, "riv-test-scenarios", riv_test_served_setup,
              test_cli_think, riv_test_served_teardown);
  g_test_add ("/scenarios/cli/outputs", Fixture, "riv-test-scenarios", riv_test_served_setup,
              test_cli_outputs, riv_test_served_teardown);
  g_test_add ("/scenarios/cli/merge", Fixture, "riv-test-scenarios", riv_test_served_setup,
              test_cli_merge, riv_test_served_teardown);
  g_test_add ("/scenarios/cli/session", Fixture, "riv-test-scenarios", riv_test_served_setup,
              test_cli_session, riv_test_served_teardown);
  g_test_add ("/scenarios/cli/own-users", Fixture, "riv-test-scenarios", riv_test_served_setup,
              test_cli_own_users, riv_test_served_teardown);
  g_test_add ("/scenarios/cli/until-break", Fixture, "riv-test-scenarios", riv_test_served_setup,
              test_cli_until_break, riv_test_served_teardown);
  g_test_add ("/scenarios/cli/example", Fixture, "riv-test-scenarios", riv_test_served_setup,
              test_cli_example, riv_test_served_teardown);
  g_test_add ("/scenarios/cli/bad-file", Fixture, "riv-test-scenarios", riv_test_served_setup,
              test_cli_bad_file, riv_test_served_teardown);
  return g_test_run ();
}
