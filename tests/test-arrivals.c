/* test-arrivals.c
 * Copyright 2026 The Rivulet authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The arrival-rate load (issue 40): the schedule's arithmetic (riv-arrivals.h)
 * for constant rates, ramps, shares and Poisson arrivals, then rivulet-cli
 * load --arrival-rate / --arrival-stages against the embedded server: the
 * jobs the schedule asks for, started at their times on a pool of users'
 * sessions, and the ones that could not start counted and said.
 */
#include "config.h"

#include <math.h>
#include <string.h>

#include "riv-arrivals.h"
#include "riv-json.h"
#include "riv-server.h"
#include "riv-test-served.h"
#include "riv-test-util.h"

/* Every time the schedule gives, in order. */
static GArray *
walk (RivArrivals *schedule)
{
  GArray *times = g_array_new (FALSE, FALSE, sizeof (double));
  double t;

  while ((t = riv_arrivals_next (schedule)) >= 0)
    g_array_append_val (times, t);
  return times;
}

static GArray *
parse_stages (const char *text)
{
  g_autoptr(GError) error = NULL;
  GArray *stages = NULL;

  g_assert_true (riv_arrivals_parse_stages (text, &stages, &error));
  g_assert_no_error (error);
  return stages;
}

static void
test_constant (void)
{
  RivArrivals *schedule = riv_arrivals_new_constant (20, 5);
  g_autoptr(GArray) times = NULL;

  g_assert_cmpfloat_with_epsilon (riv_arrivals_expected (schedule, 5), 100, 1e-9);
  g_assert_cmpfloat_with_epsilon (riv_arrivals_expected (schedule, 2.5), 50, 1e-9);
  g_assert_cmpfloat_with_epsilon (riv_arrivals_rate_at (schedule, 1), 20, 1e-9);
  g_assert_cmpfloat (riv_arrivals_rate_at (schedule, 5), ==, 0);
  g_assert_false (riv_arrivals_is_poisson (schedule));
  times = walk (schedule);
  /* Job k at (k − 1) / 20: the first at the start, the last before the end. */
  g_assert_cmpuint (times->len, ==, 100);
  for (guint k = 0; k < times->len; k++)
    g_assert_cmpfloat_with_epsilon (g_array_index (times, double, k), k * 0.05, 1e-9);
  riv_arrivals_free (schedule);
}

static void
test_ramps (void)
{
  /* From 0 up to 40 jobs/s over 2 s (the integral 10 t²), held for 1 s,
   * down to 0 over 2 s, nothing for 1 s, then 10 jobs/s for 1 s. */
  RivArrivals *schedule = riv_arrivals_new_stages (0, parse_stages ("2s:40, 1s:40, 2s:0, 1s:0, "
                                                                    "0s:10, 1s:10"));
  g_autoptr(GArray) times = NULL;
  guint in_pause = 0;

  g_assert_cmpfloat_with_epsilon (riv_arrivals_get_duration (schedule), 7, 1e-9);
  g_assert_cmpfloat_with_epsilon (riv_arrivals_expected (schedule, 2), 40, 1e-9);
  g_assert_cmpfloat_with_epsilon (riv_arrivals_expected (schedule, 3), 80, 1e-9);
  g_assert_cmpfloat_with_epsilon (riv_arrivals_expected (schedule, 7), 130, 1e-9);
  g_assert_cmpfloat_with_epsilon (riv_arrivals_rate_at (schedule, 1), 20, 1e-9);
  g_assert_cmpfloat_with_epsilon (riv_arrivals_rate_at (schedule, 4), 20, 1e-9);
  g_assert_cmpfloat_with_epsilon (riv_arrivals_get_peak_rate (schedule), 40, 1e-9);
  times = walk (schedule);
  g_assert_cmpuint (times->len, ==, 130);
  for (guint k = 0; k < 40; k++)
    g_assert_cmpfloat_with_epsilon (g_array_index (times, double, k), sqrt (k / 10.0), 1e-9);
  for (guint k = 1; k < times->len; k++)
    g_assert_cmpfloat (g_array_index (times, double, k), >=, g_array_index (times, double, k - 1));
  for (guint k = 0; k < times->len; k++)
    {
      double t = g_array_index (times, double, k);

      in_pause += t > 5 + 1e-9 && t < 6 - 1e-9;
    }
  g_assert_cmpuint (in_pause, ==, 0);
  /* The 121st when the down ramp ends, the 122nd a tenth into the last stage. */
  g_assert_cmpfloat_with_epsilon (g_array_index (times, double, 120), 5, 1e-9);
  g_assert_cmpfloat_with_epsilon (g_array_index (times, double, 121), 6.1, 1e-9);
  riv_arrivals_free (schedule);
}

static void
test_share (void)
{
  RivArrivals *schedule = riv_arrivals_new_constant (20, 5);
  g_autoptr(GArray) times = NULL;

  /* One shard of two: half the rate. */
  riv_arrivals_set_share (schedule, 0.5);
  g_assert_cmpfloat_with_epsilon (riv_arrivals_expected (schedule, 5), 50, 1e-9);
  g_assert_cmpfloat_with_epsilon (riv_arrivals_get_peak_rate (schedule), 10, 1e-9);
  times = walk (schedule);
  g_assert_cmpuint (times->len, ==, 50);
  g_assert_cmpfloat_with_epsilon (g_array_index (times, double, 1), 0.1, 1e-9);
  riv_arrivals_free (schedule);
}

/* Poisson arrivals, 20 fixed seeds of 200 jobs/s for 10 s: each count is
 * within six standard deviations of 2,000, their mean within 1.5 %, and the
 * gaps are exponential (their coefficient of variation near 1; evenly
 * spaced it is 0). */
static void
test_poisson (void)
{
  double total = 0;

  for (guint seed = 1; seed <= 20; seed++)
    {
      RivArrivals *schedule = riv_arrivals_new_constant (200, 10);
      g_autoptr(GArray) times = NULL;
      double sum = 0, sum2 = 0, mean, sd;
      guint n;

      riv_arrivals_set_poisson (schedule, seed);
      g_assert_true (riv_arrivals_is_poisson (schedule));
      times = walk (schedule);
      g_assert_cmpfloat (fabs (times->len - 2000.0), <, 6 * sqrt (2000));
      total += times->len;
      for (guint k = 1; k < times->len; k++)
        {
          double gap = g_array_index (times, double, k) - g_array_index (times, double, k - 1);

          g_assert_cmpfloat (gap, >=, 0);
          sum += gap;
          sum2 += gap * gap;
        }
      n = times->len - 1;
      mean = sum / n;
      sd = sqrt (sum2 / n - mean * mean);
      g_assert_cmpfloat (mean, >, 0.0045);
      g_assert_cmpfloat (mean, <, 0.0055);
      g_assert_cmpfloat (sd / mean, >, 0.85);
      g_assert_cmpfloat (sd / mean, <, 1.15);
      riv_arrivals_free (schedule);
    }
  g_assert_cmpfloat (fabs (total / 20 - 2000), <, 30);
}

static void
test_parse (void)
{
  g_autoptr(GArray) stages = parse_stages ("500ms:0.5, 1m:50,2h:0");
  const struct { const char *text; const char *says; } bad[] = {
    { "10s", "is not DURATION:TARGET" },
    { "10s:20:30", "is not DURATION:TARGET" },
    { "soon:20", "\"soon\" is not a duration" },
    { "-1s:20", "is not a duration" },
    { "10s:-5", "\"-5\" is not a rate in jobs a second" },
    { "10s:fast", "\"fast\" is not a rate" },
    { "10s:1e9", "is not a rate" },
    { "10s:nan", "is not a rate" },
    { "10s:20,", "stage 2 \"\"" },
  };

  g_assert_cmpuint (stages->len, ==, 3);
  g_assert_cmpfloat_with_epsilon (g_array_index (stages, RivRateStage, 0).seconds, 0.5, 1e-12);
  g_assert_cmpfloat_with_epsilon (g_array_index (stages, RivRateStage, 0).rate, 0.5, 1e-12);
  g_assert_cmpfloat_with_epsilon (g_array_index (stages, RivRateStage, 1).seconds, 60, 1e-12);
  g_assert_cmpfloat_with_epsilon (g_array_index (stages, RivRateStage, 2).seconds, 7200, 1e-12);
  for (guint i = 0; i < G_N_ELEMENTS (bad); i++)
    {
      g_autoptr(GError) error = NULL;
      GArray *none = NULL;

      g_assert_false (riv_arrivals_parse_stages (bad[i].text, &none, &error));
      g_assert_null (none);
      g_assert_nonnull (error);
      g_test_message ("%s: %s", bad[i].text, error->message);
      g_assert_true (g_str_has_prefix (error->message, "--arrival-stages: "));
      g_assert_nonnull (strstr (error->message, bad[i].says));
    }
}

/* rivulet-cli load --arrival-rate against the embedded server. */

typedef RivTestServed Fixture;

/* Runs load with the schedule's flags on /batch_echo (delay_s a batch):
 * the summary's JSON, and each job's submit time after the first, in job
 * order, in *offsets. */
static JsonObject *
arrival_load (Fixture            *fx,
              const char * const *flags,
              const char         *delay_s,
              GArray            **offsets)
{
  g_autofree char *data = g_strdup_printf ("[\"arrival {i}\", %s]", delay_s);
  g_autofree char *records = g_build_filename (fx->dir, "records.jsonl", NULL);
  g_autofree char *out = NULL;
  g_autofree char *err = NULL;
  g_autofree char *lines = NULL;
  g_auto(GStrv) each = NULL;
  g_autoptr(GPtrArray) args = g_ptr_array_new ();
  g_autoptr(JsonNode) root = NULL;
  g_autoptr(GError) error = NULL;
  const char *common[] = { "load", "--url", fx->url, "--endpoint", "batch_echo", "--data", data,
                           "--json", "--output", records };
  double first = -1;

  for (guint i = 0; i < G_N_ELEMENTS (common); i++)
    g_ptr_array_add (args, (char *) common[i]);
  for (guint i = 0; flags[i] != NULL; i++)
    g_ptr_array_add (args, (char *) flags[i]);
  g_ptr_array_add (args, NULL);

  g_assert_cmpint (riv_test_run_cli ((const char * const *) args->pdata, &out, &err, 120), ==, 0);
  g_test_message ("%s", out);
  root = riv_json_parse (NULL, out, -1, 0, &error);
  g_assert_no_error (error);

  *offsets = g_array_new (FALSE, FALSE, sizeof (double));
  g_assert_true (g_file_get_contents (records, &lines, NULL, NULL));
  each = g_strsplit (lines, "\n", -1);
  for (guint i = 0; each[i] != NULL && *each[i] != '\0'; i++)
    {
      g_autoptr(JsonNode) record = riv_json_parse (NULL, each[i], -1, 0, &error);
      double at;

      g_assert_no_error (error);
      at = json_object_get_double_member (json_node_get_object (record), "submitted_at");
      if (first < 0)
        first = at;
      at -= first;
      g_array_append_val (*offsets, at);
    }
  return json_object_ref (json_node_get_object (root));
}

static double
median_gap (GArray *offsets)
{
  g_autoptr(GArray) gaps = g_array_new (FALSE, FALSE, sizeof (double));

  for (guint i = 1; i < offsets->len; i++)
    {
      double gap = g_array_index (offsets, double, i) - g_array_index (offsets, double, i - 1);

      g_array_append_val (gaps, gap);
    }
  g_array_sort (gaps, riv_test_compare_doubles);
  return g_array_index (gaps, double, gaps->len / 2);
}

static void
test_cli_constant (Fixture       *fx,
                   gconstpointer  data)
{
  g_autofree char *page = g_build_filename (fx->dir, "report.html", NULL);
  const char *flags[] = { "--arrival-rate", "20", "--duration", "3", "--report", page, NULL };
  g_autoptr(GArray) offsets = NULL;
  g_autoptr(JsonObject) summary = arrival_load (fx, flags, "0.05", &offsets);
  JsonObject *arrivals = json_object_get_object_member (summary, "arrivals");
  g_autofree char *html = NULL;
  double last;

  /* The 60 jobs the schedule asks for, each started. */
  g_assert_cmpint (json_object_get_int_member (summary, "submitted"), ==, 60);
  g_assert_cmpint (json_object_get_int_member (summary, "completed"), ==, 60);
  g_assert_cmpint (json_object_get_int_member (arrivals, "due"), ==, 60);
  g_assert_cmpint (json_object_get_int_member (arrivals, "started"), ==, 60);
  g_assert_cmpint (json_object_get_int_member (arrivals, "dropped"), ==, 0);
  /* On a pool of a few sessions, reused (a job takes 50 ms, one arrives
   * every 50 ms), not one session a job. */
  g_assert_cmpint (json_object_get_int_member (summary, "users"), >=, 1);
  g_assert_cmpint (json_object_get_int_member (summary, "users"), <, 20);
  /* Spread over the three seconds at their times, not sent at once (the
   * bounds only guard against a hang: make bench measures). */
  g_assert_cmpuint (offsets->len, ==, 60);
  last = g_array_index (offsets, double, 59);
  g_assert_cmpfloat (last, >, 2.5);
  g_assert_cmpfloat (last, <, 4);
  g_assert_cmpfloat (median_gap (offsets), >, 0.03);
  g_assert_cmpfloat (median_gap (offsets), <, 0.07);
  for (guint k = 0; k < offsets->len; k++)
    g_assert_cmpfloat (fabs (g_array_index (offsets, double, k) - k * 0.05), <, 0.5);

  g_assert_true (g_file_get_contents (page, &html, NULL, NULL));
  g_assert_nonnull (strstr (html, "evenly spaced, peak 20 jobs/s, 60 jobs expected over 3 s"));
}

static void
test_cli_stages (Fixture       *fx,
                 gconstpointer  data)
{
  /* 0 → 30 jobs/s over 2 s (30 jobs), then 30 jobs/s for 2 s (60 jobs). */
  const char *flags[] = { "--arrival-stages", "2s:30,2s:30", NULL };
  g_autoptr(GArray) offsets = NULL;
  g_autoptr(JsonObject) summary = arrival_load (fx, flags, "0.02", &offsets);
  guint first_half = 0;

  g_assert_cmpint (json_object_get_int_member (summary, "submitted"), ==, 90);
  g_assert_cmpint (json_object_get_int_member (json_object_get_object_member (summary, "arrivals"),
                                               "dropped"), ==, 0);
  for (guint k = 0; k < offsets->len; k++)
    first_half += g_array_index (offsets, double, k) < 2;
  /* The ramp's 30 in its two seconds, the plateau's 60 in the next two. */
  g_assert_cmpuint (first_half, >, 20);
  g_assert_cmpuint (first_half, <, 40);
}

static void
test_cli_poisson (Fixture       *fx,
                  gconstpointer  data)
{
  const char *flags[] = { "--arrival-rate", "40", "--duration", "3", "--poisson", NULL };
  g_autoptr(GArray) offsets = NULL;
  g_autoptr(JsonObject) summary = arrival_load (fx, flags, "0.02", &offsets);
  gint64 n = json_object_get_int_member (summary, "submitted");
  double sum = 0, sum2 = 0, mean;

  /* 120 on average (a standard deviation of 11). */
  g_assert_cmpint (n, >, 60);
  g_assert_cmpint (n, <, 180);
  for (guint k = 1; k < offsets->len; k++)
    {
      double gap = g_array_index (offsets, double, k) - g_array_index (offsets, double, k - 1);

      sum += gap;
      sum2 += gap * gap;
    }
  mean = sum / (offsets->len - 1);
  /* Random gaps: their spread is near their mean (evenly spaced: near 0). */
  g_assert_cmpfloat (sqrt (sum2 / (offsets->len - 1) - mean * mean) / mean, >, 0.5);
}

static void
test_cli_dropped (Fixture       *fx,
                  gconstpointer  data)
{
  g_autofree char *out = NULL;
  g_autofree char *err = NULL;
  const char *args[] = { "load", "--url", fx->url, "--endpoint", "batch_echo",
                         "--data", "[\"slow {i}\", 1]", "--arrival-rate", "10", "--duration", "2",
                         "--max-users", "2", "--threshold", "dropped==0", NULL };

  /* Two users, each busy for a second: of 20 jobs due, at most 2 start each
   * second; the rest are dropped, the summary says why, and a threshold on
   * them fails the run. */
  g_assert_cmpint (riv_test_run_cli (args, &out, &err, 120), ==, 1);
  g_test_message ("%s", out);
  g_assert_nonnull (strstr (out, "users      2 (peak)"));
  g_assert_nonnull (strstr (out, "arrivals   20 due, "));
  g_assert_nonnull (strstr (out, "jobs not started: all 2 users were busy"));
  g_assert_nonnull (strstr (out, "raise --max-users"));
  g_assert_nonnull (strstr (out, "✗ dropped==0"));
}

static void
test_cli_bad_input (Fixture       *fx,
                    gconstpointer  data)
{
  const struct { const char *args[8]; const char *says; } cases[] = {
    { { "--arrival-rate", "10", NULL }, "needs a rate above 0 and --duration" },
    { { "--arrival-rate", "-1", "--duration", "2", NULL }, "--arrival-rate \"-1\"" },
    { { "--arrival-rate", "fast", "--duration", "2", NULL }, "--arrival-rate \"fast\"" },
    { { "--arrival-rate", "1e6", "--duration", "2", NULL }, "from 0 to 100000" },
    { { "--arrival-stages", "2s:abc", NULL }, "\"abc\" is not a rate" },
    { { "--arrival-stages", "2s:0", NULL }, "starts no job" },
    { { "--arrival-stages", "2s:10", "--duration", "3", NULL }, "leave out --duration" },
    { { "--arrival-rate", "5", "--duration", "2", "--users", "3", NULL }, "leave out --users" },
    { { "--arrival-rate", "5", "--duration", "2", "--max-users", "0", NULL }, "--max-users" },
    { { "--poisson", NULL }, "are for the arrival rate" },
    { { "--max-users", "5", "--count", "2", NULL }, "are for the arrival rate" },
  };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autoptr(GPtrArray) args = g_ptr_array_new ();
      g_autofree char *out = NULL;
      g_autofree char *err = NULL;
      const char *common[] = { "load", "--url", fx->url, "--endpoint", "batch_echo" };

      for (guint j = 0; j < G_N_ELEMENTS (common); j++)
        g_ptr_array_add (args, (char *) common[j]);
      for (guint j = 0; cases[i].args[j] != NULL; j++)
        g_ptr_array_add (args, (char *) cases[i].args[j]);
      g_ptr_array_add (args, NULL);
      g_assert_cmpint (riv_test_run_cli ((const char * const *) args->pdata, &out, &err, 60),
                       ==, 2);
      g_test_message ("%s", err);
      g_assert_nonnull (strstr (err, cases[i].says));
    }
}

int
main (int    argc,
      char **argv)
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/arrivals/constant", test_constant);
  g_test_add_func ("/arrivals/ramps", test_ramps);
  g_test_add_func ("/arrivals/share", test_share);
  g_test_add_func ("/arrivals/poisson", test_poisson);
  g_test_add_func ("/arrivals/parse", test_parse);
  g_test_add ("/arrivals/cli/constant", Fixture, "riv-test-arrivals", riv_test_served_setup,
              test_cli_constant, riv_test_served_teardown);
  g_test_add ("/arrivals/cli/stages", Fixture, "riv-test-arrivals", riv_test_served_setup,
              test_cli_stages, riv_test_served_teardown);
  g_test_add ("/arrivals/cli/poisson", Fixture, "riv-test-arrivals", riv_test_served_setup,
              test_cli_poisson, riv_test_served_teardown);
  g_test_add ("/arrivals/cli/dropped", Fixture, "riv-test-arrivals", riv_test_served_setup,
              test_cli_dropped, riv_test_served_teardown);
  g_test_add ("/arrivals/cli/bad-input", Fixture, "riv-test-arrivals", riv_test_served_setup,
              test_cli_bad_input, riv_test_served_teardown);
  return g_test_run ();
}
