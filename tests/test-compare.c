/* test-compare.c
 * Copyright 2026 The Rivulet authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Two runs compared (riv-compare.h, rivulet-cli report compare): a change
 * made on purpose is found, two runs of the same thing are not told apart,
 * thresholds gate on the change, and bad input is refused by name.
 */
#include "config.h"

#include <math.h>
#include <string.h>

#include "riv-compare.h"
#include "riv-json.h"
#include "riv-server.h"
#include "riv-test-served.h"
#include "riv-test-util.h"

/* Jobs of a made-up run: latencies drawn around base (log-normal-ish, from
 * a fixed seed), n of them over span seconds, error_every-th failing (0:
 * none). Each block of the run gets a slowdown of its own of up to ±drift,
 * as a real machine's busy and quiet moments give. */
static void
add_run (RivCompare *compare,
         guint       run,
         GRand      *rand,
         guint       n,
         double      base,
         double      drift,
         guint       error_every,
         const char *endpoint)
{
  const double span = 60;
  double block_factor[10];

  riv_compare_set_span (compare, run, 1000, 1000 + span);
  for (guint b = 0; b < 10; b++)
    block_factor[b] = 1 + g_rand_double_range (rand, -drift, drift);
  for (guint i = 0; i < n; i++)
    {
      double submitted = 1000 + span * i / n;
      guint block = MIN (i * 10 / n, 9);
      double latency = base * block_factor[block] *
                       exp (0.3 * (g_rand_double (rand) + g_rand_double (rand) - 1));
      gboolean failed = error_every > 0 && i % error_every == 0;

      riv_compare_add_job (compare, run, endpoint, failed ? "failed" : "completed",
                           latency, latency / 2, submitted, submitted + latency,
                           failed ? "boom" : NULL);
    }
}

static const RivCompareFigure *
figure (RivCompare *compare,
        guint       group,
        const char *name)
{
  guint n = 0;
  const RivCompareFigure *figures = riv_compare_get_figures (compare, group, &n);

  for (guint i = 0; i < n; i++)
    if (strcmp (figures[i].name, name) == 0)
      return &figures[i];
  g_assert_not_reached ();
}

static void
test_same_not_found (void)
{
  g_autoptr(GRand) rand = g_rand_new_with_seed (7);

  /* Ten pairs of runs of the same made-up server: no figure of any is
   * called a change (each run with its own ±3 % drift per block). */
  for (guint pair = 0; pair < 10; pair++)
    {
      g_autoptr(RivCompare) compare = riv_compare_new ();
      guint n = 0;
      const RivCompareFigure *figures;

      add_run (compare, 0, rand, 2000, 0.2, 0.03, 0, "/echo");
      add_run (compare, 1, rand, 2000, 0.2, 0.03, 0, "/echo");
      figures = riv_compare_get_figures (compare, 0, &n);
      g_assert_cmpuint (n, ==, 9);
      for (guint i = 0; i < n; i++)
        {
          g_test_message ("pair %u: %s %.4f → %.4f, p %.3g", pair, figures[i].name,
                          figures[i].value[0], figures[i].value[1], figures[i].p_value);
          g_assert_true (figures[i].tested || strcmp (figures[i].name, "error_rate") == 0);
          g_assert_false (figures[i].beyond_noise);
        }
    }
}

static void
test_slowed_found (void)
{
  g_autoptr(GRand) rand = g_rand_new_with_seed (11);
  g_autoptr(RivCompare) compare = riv_compare_new ();
  static const char *const slower[] = { "p50", "p90", "p95", "p99", "ttfu_p50", "ttfu_p95" };
  double ratio = 0;

  add_run (compare, 0, rand, 2000, 0.2, 0.03, 0, "/echo");
  add_run (compare, 1, rand, 2000, 0.26, 0.03, 0, "/echo");   /* 30 % slower */
  for (guint i = 0; i < G_N_ELEMENTS (slower); i++)
    {
      const RivCompareFigure *f = figure (compare, 0, slower[i]);

      g_assert_true (f->tested);
      g_assert_true (f->beyond_noise);
      g_assert_true (riv_compare_figure_ratio (f, &ratio));
      g_assert_cmpfloat (ratio, >, 1.2);
      g_assert_cmpfloat (ratio, <, 1.4);
    }
  /* Same number of jobs over the same span: throughput did not change. */
  g_assert_false (figure (compare, 0, "throughput")->beyond_noise);
}

static void
test_small_change_below_min (void)
{
  g_autoptr(GRand) rand = g_rand_new_with_seed (3);
  g_autoptr(RivCompare) compare = riv_compare_new ();

  /* 3 % slower with no drift: the blocks are apart, but under 5 %. */
  add_run (compare, 0, rand, 4000, 0.2, 0, 0, "/echo");
  add_run (compare, 1, rand, 4000, 0.206, 0, 0, "/echo");
  g_assert_cmpfloat (figure (compare, 0, "p50")->p_value, <, 0.05);
  g_assert_false (figure (compare, 0, "p50")->beyond_noise);
  riv_compare_set_min_change (compare, 0.01);
  g_assert_true (figure (compare, 0, "p50")->beyond_noise);
}

static void
test_throughput_and_errors (void)
{
  g_autoptr(GRand) rand = g_rand_new_with_seed (5);
  g_autoptr(RivCompare) compare = riv_compare_new ();
  g_autoptr(GArray) errors = NULL;
  const RivCompareFigure *f;

  add_run (compare, 0, rand, 3000, 0.1, 0.02, 0, "/echo");
  add_run (compare, 1, rand, 1500, 0.1, 0.02, 10, "/echo");   /* half the jobs, 10 % failing */

  f = figure (compare, 0, "throughput");
  g_assert_cmpfloat_with_epsilon (f->value[0], 50, 0.01);
  g_assert_cmpfloat_with_epsilon (f->value[1], 1350.0 / 60, 0.01);
  g_assert_true (f->beyond_noise);
  g_assert_true (f->sense == RIV_COMPARE_HIGHER_IS_BETTER);

  f = figure (compare, 0, "error_rate");
  g_assert_cmpfloat_with_epsilon (f->value[0], 0, 1e-12);
  g_assert_cmpfloat_with_epsilon (f->value[1], 0.1, 1e-12);
  g_assert_true (f->beyond_noise);

  errors = riv_compare_get_errors (compare, 0);
  g_assert_cmpuint (errors->len, ==, 1);
  g_assert_cmpstr (g_array_index (errors, RivCompareError, 0).text, ==, "failed: boom");
  g_assert_cmpuint (g_array_index (errors, RivCompareError, 0).count[0], ==, 0);
  g_assert_cmpuint (g_array_index (errors, RivCompareError, 0).count[1], ==, 150);
}

static void
test_groups_and_too_few (void)
{
  g_autoptr(RivCompare) compare = riv_compare_new ();
  double p_slower = 0, p = 0;

  riv_compare_set_span (compare, 0, 0, 10);
  riv_compare_set_span (compare, 1, 0, 10);
  for (guint i = 0; i < 30; i++)
    {
      riv_compare_add_job (compare, 0, "/b", "completed", 1 + i * 0.01, -1, i * 0.3, i * 0.3 + 1, NULL);
      riv_compare_add_job (compare, 1, "/b", "completed", 2 + i * 0.01, -1, i * 0.3, i * 0.3 + 2, NULL);
    }
  for (guint i = 0; i < 10; i++)
    riv_compare_add_job (compare, 0, "/a", "completed", 0.1, -1, i, i + 0.1, NULL);

  g_assert_cmpuint (riv_compare_get_n_groups (compare), ==, 3);
  g_assert_null (riv_compare_get_group_name (compare, 0));
  g_assert_cmpstr (riv_compare_get_group_name (compare, 1), ==, "/a");
  g_assert_cmpstr (riv_compare_get_group_name (compare, 2), ==, "/b");
  g_assert_cmpuint (riv_compare_get_jobs (compare, 1, 0), ==, 10);
  g_assert_cmpuint (riv_compare_get_jobs (compare, 1, 1), ==, 0);

  /* /a: nothing in B to compare with. */
  g_assert_false (figure (compare, 1, "p50")->known[1]);
  g_assert_false (figure (compare, 1, "p50")->tested);
  /* /b: 30 jobs a run, 3 a block: too few to test, though every job of B
   * took longer than every job of A (the job-against-job test says so). */
  g_assert_false (figure (compare, 2, "p50")->tested);
  g_assert_false (figure (compare, 2, "p50")->beyond_noise);
  g_assert_true (riv_compare_rank_test (compare, 2, &p_slower, &p));
  g_assert_cmpfloat (p_slower, ==, 1);
  g_assert_cmpfloat (p, <, 1e-6);
  g_assert_false (riv_compare_rank_test (compare, 1, &p_slower, &p));
}

/* The window's way: no span set, jobs as they end, one run after the other
 * (riv_compare_shift ()); a long run outgrows its slots and is still cut
 * into ten blocks. */
static void
test_live_and_shift (void)
{
  g_autoptr(RivCompare) compare = riv_compare_new ();
  g_autoptr(GRand) rand = g_rand_new_with_seed (21);
  double base[] = { 0.2, 0.2, 0.3 };
  guint n = 0;

  for (guint r = 0; r < G_N_ELEMENTS (base); r++)
    {
      const RivCompareFigure *f;

      if (r > 0)
        riv_compare_shift (compare);
      g_assert_cmpuint (riv_compare_get_jobs (compare, 0, 1), ==, 0);
      /* 3,000 jobs over 600 s: 40 slots of a second would hold 40 s. */
      for (guint i = 0; i < 3000; i++)
        {
          double submitted = 5000 + r * 1000 + i * 0.2;
          double latency = base[r] * exp (0.2 * (g_rand_double (rand) - 0.5));

          riv_compare_add_job (compare, 1, r == 2 ? "/new" : "/echo", "completed", latency, -1,
                               submitted, submitted + latency, NULL);
        }
      f = figure (compare, 0, "p50");
      if (r == 0)
        {
          g_assert_false (f->known[0]);
          continue;
        }
      g_assert_true (f->tested);
      g_assert_cmpint (f->beyond_noise, ==, r == 2);
      g_assert_true (figure (compare, 0, "throughput")->tested);
      g_assert_false (figure (compare, 0, "throughput")->beyond_noise);
    }
  riv_compare_get_figures (compare, 0, &n);
  g_assert_cmpuint (riv_compare_get_n_groups (compare), ==, 3);
  /* /echo was only in the runs before: the next shift drops it with them. */
  riv_compare_shift (compare);
  g_assert_cmpuint (riv_compare_get_n_groups (compare), ==, 2);
  g_assert_cmpstr (riv_compare_get_group_name (compare, 1), ==, "/new");
  g_assert_cmpuint (riv_compare_get_jobs (compare, 1, 0), ==, 3000);
  g_assert_cmpuint (riv_compare_get_jobs (compare, 1, 1), ==, 0);
}

static void
test_thresholds (void)
{
  static const struct { const char *text; gboolean held; } cases[] = {
    { "p95 ratio<1.10", FALSE },
    { "p95 ratio<1.5", TRUE },
    { "p(95) ratio <= 1.5", TRUE },
    { "throughput ratio>0.9", TRUE },
    { "error_rate diff<0.01", TRUE },
    { "p50{endpoint:/echo} ratio>1.2", TRUE },
    { "p50{endpoint:echo} ratio>1.2", TRUE },
    { "p50{endpoint:/nowhere} ratio>1.2", FALSE },   /* not measured: fails */
  };
  static const char *const bad[] = {
    "", "p95", "p95 ratio", "p95 ratio<", "p95 ratio<x", "latency ratio<1", "p95 ratio=1",
    "p95 ratio<1 more", "p95{endpoint:/a ratio<1", "p95{user:1} ratio<1", "p95 times<1",
  };
  g_autoptr(GRand) rand = g_rand_new_with_seed (13);
  g_autoptr(RivCompare) compare = riv_compare_new ();

  add_run (compare, 0, rand, 2000, 0.2, 0.02, 0, "/echo");
  add_run (compare, 1, rand, 2000, 0.26, 0.02, 0, "/echo");
  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autoptr(GError) error = NULL;
      g_autoptr(RivCompareThreshold) t = riv_compare_threshold_parse (cases[i].text, &error);
      double measured = 0;

      g_assert_no_error (error);
      g_assert_cmpstr (riv_compare_threshold_get_text (t), ==, cases[i].text);
      g_assert_cmpint (riv_compare_threshold_check (t, compare, &measured), ==, cases[i].held);
      if (strstr (cases[i].text, "nowhere") != NULL)
        g_assert_true (isnan (measured));
      else
        g_assert_false (isnan (measured));
    }
  for (guint i = 0; i < G_N_ELEMENTS (bad); i++)
    {
      g_autoptr(GError) error = NULL;
      g_autoptr(RivCompareThreshold) t = riv_compare_threshold_parse (bad[i], &error);

      g_assert_null (t);
      g_assert_error (error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE);
      g_assert_nonnull (strstr (error->message, "--threshold"));
    }
}

static void
test_html (void)
{
  g_autoptr(GRand) rand = g_rand_new_with_seed (17);
  g_autoptr(RivCompare) compare = riv_compare_new ();
  g_autoptr(RivCompareThreshold) t = riv_compare_threshold_parse ("p95 ratio<1.1", NULL);
  double measured = 0;
  gboolean held;
  g_autofree char *html = NULL;

  add_run (compare, 0, rand, 2000, 0.2, 0.02, 0, "/echo");
  add_run (compare, 1, rand, 2000, 0.26, 0.02, 20, "/echo<script>");
  held = riv_compare_threshold_check (t, compare, &measured);
  html = riv_compare_html (compare, "a&b.jsonl", "new.jsonl",
                           (RivCompareThreshold * const *) &t, &measured, &held, 1);
  g_assert_nonnull (strstr (html, "<title>Rivulet: two runs compared</title>"));
  g_assert_nonnull (strstr (html, "a&amp;b.jsonl"));
  g_assert_null (strstr (html, "<script>"));
  g_assert_nonnull (strstr (html, "/echo&lt;script&gt;"));
  g_assert_nonnull (strstr (html, "<tr data-figure=\"p95\"><td>latency p95</td>"));
  g_assert_nonnull (strstr (html, "worse, beyond noise"));
  g_assert_nonnull (strstr (html, "data-series=\"A\""));
  g_assert_nonnull (strstr (html, "data-series=\"B\""));
  g_assert_nonnull (strstr (html, "failed: boom"));
  g_assert_nonnull (strstr (html, "<td class=\"fail\">failed</td>"));
  g_assert_nonnull (strstr (html, "How noise is judged"));
}

/* rivulet-cli report compare on real runs. */

typedef RivTestServed Fixture;

/* One load run of /batch_echo that sleeps delay_s a batch; its records'
 * path. An open loop, 300 jobs at 30 a second: each of the ten blocks of the
 * comparison holds 30. (Virtual users all start together and move in waves,
 * so that a block held one wave or two.) Sleeps of a second, so that a job's
 * time is the sleep, not the machine's CPU: under ASan a job costs 10 to
 * 60 ms, which set two alike runs of 0.3 s sleeps 6 % apart. */
static char *
load_run (Fixture    *fx,
          const char *name,
          const char *delay_s)
{
  g_autofree char *data = g_strdup_printf ("[\"compare {i}\", %s]", delay_s);
  char *records = g_build_filename (fx->dir, name, NULL);
  g_autofree char *out = NULL;
  g_autofree char *err = NULL;
  const char *args[] = { "load", "--url", fx->url, "--endpoint", "batch_echo",
                         "--count", "300", "--rate", "30", "--data", data,
                         "--output", records, NULL };

  g_assert_cmpint (riv_test_run_cli (args, &out, &err, 120), ==, 0);
  return records;
}

static JsonObject *
figure_json (JsonNode   *root,
             const char *name)
{
  JsonArray *groups = json_object_get_array_member (json_node_get_object (root), "groups");
  JsonArray *figures = json_object_get_array_member (json_array_get_object_element (groups, 0),
                                                     "figures");

  for (guint i = 0; i < json_array_get_length (figures); i++)
    {
      JsonObject *f = json_array_get_object_element (figures, i);

      if (g_strcmp0 (riv_json_get_string (f, "figure"), name) == 0)
        return f;
    }
  g_assert_not_reached ();
}

static JsonNode *
compare_json (const char *a,
              const char *b,
              int         expect_status)
{
  g_autofree char *out = NULL;
  g_autofree char *err = NULL;
  g_autoptr(JsonParser) parser = json_parser_new ();
  g_autoptr(GError) error = NULL;
  const char *args[] = { "report", "compare", "--json", a, b, NULL };

  g_assert_cmpint (riv_test_run_cli (args, &out, &err, 60), ==, expect_status);
  g_test_message ("%s", out);
  json_parser_load_from_data (parser, out, -1, &error);
  g_assert_no_error (error);
  return json_node_ref (json_parser_get_root (parser));
}

static void
test_cli_runs (Fixture       *fx,
               gconstpointer  data)
{
  g_autofree char *a = load_run (fx, "a.jsonl", "1.0");
  g_autofree char *same = load_run (fx, "same.jsonl", "1.0");
  g_autofree char *slow = load_run (fx, "slow.jsonl", "1.5");
  g_autoptr(JsonNode) same_root = compare_json (a, same, 0);
  g_autoptr(JsonNode) slow_root = compare_json (a, slow, 0);
  static const char *const latencies[] = { "p50", "p90", "p95", "ttfu_p50", "ttfu_p95" };

  /* The same server twice: nothing beyond noise. */
  for (guint i = 0; i < G_N_ELEMENTS (latencies); i++)
    {
      JsonObject *f = figure_json (same_root, latencies[i]);

      g_assert_true (json_object_get_boolean_member (f, "tested"));
      g_assert_false (json_object_get_boolean_member (f, "beyond_noise"));
      g_assert_cmpstr (riv_json_get_string (f, "verdict"), ==, "within noise");
    }
  g_assert_false (json_object_get_boolean_member (figure_json (same_root, "throughput"),
                                                  "beyond_noise"));
  /* Each job half a second slower (half the sleep): found, and worse. */
  for (guint i = 0; i < G_N_ELEMENTS (latencies); i++)
    {
      JsonObject *f = figure_json (slow_root, latencies[i]);

      g_assert_true (json_object_get_boolean_member (f, "beyond_noise"));
      g_assert_cmpstr (riv_json_get_string (f, "verdict"), ==, "worse, beyond noise");
      g_assert_cmpfloat (json_object_get_double_member (f, "ratio"), >, 1.2);
    }
  /* Jobs arrive at the same rate in all three: so do they leave. */
  g_assert_false (json_object_get_boolean_member (figure_json (slow_root, "throughput"),
                                                  "beyond_noise"));

  /* The gate, the text and the page. */
  {
    g_autofree char *page = g_build_filename (fx->dir, "compare.html", NULL);
    g_autofree char *out = NULL;
    g_autofree char *err = NULL;
    g_autofree char *html = NULL;
    const char *gate[] = { "report", "compare", "--threshold", "p95 ratio<1.10",
                           "--threshold", "error_rate diff<0.01", "--report", page, a, slow, NULL };
    /* A run against itself: a ratio of exactly 1 holds (two alike runs can
     * differ by more than 10 % on a busy machine under ASan). */
    const char *pass[] = { "report", "compare", "--threshold", "p95 ratio<1.10", a, a, NULL };

    g_assert_cmpint (riv_test_run_cli (gate, &out, &err, 60), ==, 1);
    g_assert_nonnull (strstr (out, "latency p95"));
    g_assert_nonnull (strstr (out, "worse, beyond noise"));
    g_assert_nonnull (strstr (out, "p95 ratio<1.10"));
    g_assert_nonnull (strstr (out, "FAILED"));
    g_assert_true (g_file_get_contents (page, &html, NULL, NULL));
    g_assert_nonnull (strstr (html, "<td class=\"fail\">failed</td>"));
    g_assert_nonnull (strstr (html, "<td class=\"ok\">held</td>"));
    g_clear_pointer (&out, g_free);
    g_clear_pointer (&err, g_free);
    g_assert_cmpint (riv_test_run_cli (pass, &out, &err, 60), ==, 0);
    g_assert_nonnull (strstr (out, "held"));
  }
}

static void
test_cli_bad_input (Fixture       *fx,
                    gconstpointer  data)
{
  g_autofree char *good = g_build_filename (fx->dir, "good.jsonl", NULL);
  g_autofree char *broken = g_build_filename (fx->dir, "broken.jsonl", NULL);
  g_autofree char *missing = g_build_filename (fx->dir, "missing.jsonl", NULL);
  static const char good_text[] =
    "{\"index\":1,\"endpoint\":\"/x\",\"status\":\"completed\",\"latency_s\":0.1,"
    "\"submitted_at\":100}\n";
  static const char broken_text[] =
    "{\"index\":1,\"endpoint\":\"/x\",\"status\":\"completed\",\"latency_s\":0.1,"
    "\"submitted_at\":100}\n{\"status\":\"completed\",\"latency_s\":\"soon\",\"submitted_at\":1}\n";
  const struct { const char *args[8]; int status; const char *says; } cases[] = {
    { { "report", "compare", good, NULL }, 2, "two records files" },
    { { "report", "compare", good, good, good, NULL }, 2, "two records files" },
    { { "report", "compare", "--threshold", "p95 ratio", good, good, NULL }, 2, "--threshold" },
    { { "report", "compare", "--min-change", "-1", good, good, NULL }, 2, "--min-change" },
    { { "report", "compare", good, broken, NULL }, 1, ":2: not a job record" },
    { { "report", "compare", missing, good, NULL }, 1, "missing.jsonl" },
    { { "report", "nothing", NULL }, 2, "merge or compare" },
  };

  g_assert_true (g_file_set_contents (good, good_text, -1, NULL));
  g_assert_true (g_file_set_contents (broken, broken_text, -1, NULL));
  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autofree char *out = NULL;
      g_autofree char *err = NULL;

      g_assert_cmpint (riv_test_run_cli (cases[i].args, &out, &err, 60), ==, cases[i].status);
      g_test_message ("%s", err);
      g_assert_nonnull (strstr (err, cases[i].says));
    }
}

int
main (int    argc,
      char **argv)
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/compare/same-not-found", test_same_not_found);
  g_test_add_func ("/compare/slowed-found", test_slowed_found);
  g_test_add_func ("/compare/small-change-below-min", test_small_change_below_min);
  g_test_add_func ("/compare/throughput-and-errors", test_throughput_and_errors);
  g_test_add_func ("/compare/groups-and-too-few", test_groups_and_too_few);
  g_test_add_func ("/compare/live-and-shift", test_live_and_shift);
  g_test_add_func ("/compare/thresholds", test_thresholds);
  g_test_add_func ("/compare/html", test_html);
  g_test_add ("/compare/cli/runs", Fixture, "riv-test-compare", riv_test_served_setup,
              test_cli_runs, riv_test_served_teardown);
  g_test_add ("/compare/cli/bad-input", Fixture, "riv-test-compare", riv_test_served_setup,
              test_cli_bad_input, riv_test_served_teardown);
  return g_test_run ();
}
