/* test-load-stats.c
 * Copyright 2026 The Rivulet authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * RivLoadStats keeps nothing per job (issue 37): its percentiles (the
 * summary's, each second's, the server's share) against the exact
 * nearest-rank ones of the same jobs, within 1 % (the sketch's stated
 * RIV_SKETCH_RELATIVE_ERROR, 1/256); max, mean and counts exact; its memory
 * flat in the number of jobs; and a live run's series (its seconds closed as
 * the run passes them) the same as the one made from the same jobs read
 * back at the end.
 */
#include "config.h"

#include <math.h>
#include <string.h>

#include "riv-load-stats.h"
#include "riv-report.h"
#include "riv-test-util.h"

#define ORIGIN 1700000000.0

static double
exact (GArray *values,
       double  q)
{
  g_array_sort (values, riv_test_compare_doubles);
  return riv_load_percentile ((const double *) (gpointer) values->data, values->len, q);
}

/* Within 1 % (and within the sketch's own bound, plus its 1 µs rounding). */
static void
assert_close (const char *what,
              double      got,
              double      want)
{
  double error = fabs (got - want);

  if (error > want * RIV_SKETCH_RELATIVE_ERROR + 1e-6 || error > want * 0.01 + 1e-6)
    g_error ("%s: %.9f, exact %.9f (%.3f %%)", what, got, want, 100 * error / want);
}

/* A latency from 1 ms to about 20 s, log-normal-ish, with a slow tail. */
static double
draw_latency (GRand *rand)
{
  double u = g_rand_double (rand), v = g_rand_double (rand);
  double normal = sqrt (-2 * log (MAX (u, 1e-12))) * cos (2 * G_PI * v);
  double latency = 0.05 * exp (0.8 * normal);

  if (g_rand_int_range (rand, 0, 100) == 0)
    latency *= 20;
  return CLAMP (latency, 0.001, 20);
}

typedef struct
{
  GArray *latency;    /* double, per second of the end */
  GArray *first;
} Second;

static void
second_clear (gpointer data)
{
  Second *second = data;

  g_clear_pointer (&second->latency, g_array_unref);
  g_clear_pointer (&second->first, g_array_unref);
}

/* n jobs at `rate` a second from job first_job on, into stats; the exact values into the arrays. */
static void
add_jobs (RivLoadStats *stats,
          GRand        *rand,
          guint         first_job,
          guint         n,
          double        rate,
          GArray       *latencies,
          GArray       *firsts,
          GArray       *seconds)
{
  for (guint i = 0; i < n; i++)
    {
      double submitted = ORIGIN + (first_job + i) / rate;
      double latency = draw_latency (rand);
      double first = latency * g_rand_double_range (rand, 0.1, 0.9);
      gboolean failed = g_rand_int_range (rand, 0, 50) == 0;
      RivLoadStream stream = { 0 };
      guint s = (guint) floor (submitted + latency - ORIGIN);
      Second *second;

      stream.first_s = failed ? -1 : first;
      stream.first_start_s = -1;
      riv_load_stats_add (stats, submitted, latency / 10, latency * 0.9, latency,
                          failed ? RIV_JOB_STATUS_FAILED : RIV_JOB_STATUS_COMPLETED,
                          1, 1 + i % 100, 0, failed ? "no" : NULL);
      riv_load_stats_add_stream (stats, &stream);
      if (failed || latencies == NULL)
        continue;
      g_array_append_val (latencies, latency);
      g_array_append_val (firsts, first);
      if (s >= seconds->len)
        g_array_set_size (seconds, s + 1);
      second = &g_array_index (seconds, Second, s);
      if (second->latency == NULL)
        {
          second->latency = g_array_new (FALSE, FALSE, sizeof (double));
          second->first = g_array_new (FALSE, FALSE, sizeof (double));
        }
      g_array_append_val (second->latency, latency);
      g_array_append_val (second->first, first);
    }
}

static void
check_seconds (RivLoadStats *stats,
               GArray       *seconds)
{
  g_autoptr(GArray) series = riv_load_stats_timeseries (stats);
  guint checked = 0;

  g_assert_cmpuint (series->len, >=, seconds->len);
  for (guint s = 0; s < seconds->len; s++)
    {
      Second *second = &g_array_index (seconds, Second, s);
      const RivLoadSample *sample = &g_array_index (series, RivLoadSample, s);

      if (second->latency == NULL)
        {
          g_assert_cmpfloat (sample->p50, <, 0);
          continue;
        }
      g_assert_cmpuint (sample->completed, ==, second->latency->len);
      assert_close ("second's p50", sample->p50, exact (second->latency, 0.50));
      assert_close ("second's p95", sample->p95, exact (second->latency, 0.95));
      assert_close ("second's p99", sample->p99, exact (second->latency, 0.99));
      assert_close ("second's first p50", sample->first_p50, exact (second->first, 0.50));
      assert_close ("second's first p95", sample->first_p95, exact (second->first, 0.95));
      checked++;
    }
  g_assert_cmpuint (checked, >, 50);
}

/* 200,000 jobs over 100 s, the series closed as the run goes: every
 * percentile reported within 1 % of the exact one. */
static void
test_percentiles (void)
{
  g_autoptr(RivLoadStats) stats = riv_load_stats_new ();
  g_autoptr(GRand) rand = g_rand_new_with_seed (37);
  g_autoptr(GArray) latencies = g_array_new (FALSE, FALSE, sizeof (double));
  g_autoptr(GArray) firsts = g_array_new (FALSE, FALSE, sizeof (double));
  g_autoptr(GArray) seconds = g_array_new (FALSE, TRUE, sizeof (Second));
  RivLoadSummary s;
  double total = 0;

  g_array_set_clear_func (seconds, second_clear);
  riv_load_stats_set_start (stats, ORIGIN);
  add_jobs (stats, rand, 0, 200000, 2000, latencies, firsts, seconds);
  riv_load_stats_summarize (stats, &s);

  g_assert_cmpuint (s.submitted, ==, 200000);
  g_assert_cmpuint (s.completed, ==, latencies->len);
  g_assert_cmpuint (s.failed, ==, 200000 - latencies->len);
  assert_close ("p50", s.p50, exact (latencies, 0.50));
  assert_close ("p90", s.p90, exact (latencies, 0.90));
  assert_close ("p95", s.p95, exact (latencies, 0.95));
  assert_close ("p99", s.p99, exact (latencies, 0.99));
  g_assert_cmpfloat (s.max, ==, exact (latencies, 1.0));
  for (guint i = 0; i < latencies->len; i++)
    total += g_array_index (latencies, double, i);
  g_assert_cmpfloat_with_epsilon (s.mean, total / latencies->len, 1e-9);
  g_assert_cmpuint (s.first_n, ==, firsts->len);
  assert_close ("first p50", s.first_p50, exact (firsts, 0.50));
  assert_close ("first p90", s.first_p90, exact (firsts, 0.90));
  assert_close ("first p95", s.first_p95, exact (firsts, 0.95));
  assert_close ("first p99", s.first_p99, exact (firsts, 0.99));
  assert_close ("first max", s.first_max, exact (firsts, 1.0));
  g_assert_cmpuint (s.users, ==, 100);
  check_seconds (stats, seconds);
}

/* The server's time and the rest of the latency (below 0 for some jobs:
 * the two clocks differ): mean exact, median within 1 %. */
static void
test_server_share (void)
{
  g_autoptr(RivLoadStats) stats = riv_load_stats_new ();
  g_autoptr(GRand) rand = g_rand_new_with_seed (7);
  g_autoptr(GArray) server = g_array_new (FALSE, FALSE, sizeof (double));
  g_autoptr(GArray) rest = g_array_new (FALSE, FALSE, sizeof (double));
  double server_total = 0, rest_total = 0;
  RivLoadSummary s;

  for (guint i = 0; i < 20001; i++)
    {
      double latency = draw_latency (rand);
      double server_s = latency * g_rand_double_range (rand, 0.8, 1.6);
      double r = latency - server_s;

      riv_load_stats_add_server_time (stats, server_s, latency);
      g_array_append_val (server, server_s);
      g_array_append_val (rest, r);
      server_total += server_s;
      rest_total += r;
    }
  riv_load_stats_summarize (stats, &s);
  g_assert_cmpuint (s.server_timed, ==, 20001);
  g_assert_cmpfloat_with_epsilon (s.server_mean, server_total / 20001, 1e-9);
  g_assert_cmpfloat_with_epsilon (s.rest_mean, rest_total / 20001, 1e-9);
  assert_close ("server p50", s.server_p50, exact (server, 0.5));
  /* Below 0 here: the median of the rest is one of the negative values. */
  g_assert_cmpfloat (exact (rest, 0.5), <, 0);
  assert_close ("rest p50 (negated)", -s.rest_p50, -exact (rest, 0.5));
}

/* 1,000 jobs a second: the memory held after 120 s and after 600 s differs
 * by the series' few bytes a second, nothing a job. */
static void
test_flat (void)
{
  g_autoptr(RivLoadStats) stats = riv_load_stats_new ();
  g_autoptr(GRand) rand = g_rand_new_with_seed (1);
  gsize early, late;
  double per_second, per_job;

  riv_load_stats_set_start (stats, ORIGIN);
  add_jobs (stats, rand, 0, 120000, 1000, NULL, NULL, NULL);
  early = riv_load_stats_get_size (stats);
  add_jobs (stats, rand, 120000, 480000, 1000, NULL, NULL, NULL);
  late = riv_load_stats_get_size (stats);
  per_second = ((double) late - (double) early) / 480;
  per_job = ((double) late - (double) early) / 480000;
  g_test_message ("stats: %" G_GSIZE_FORMAT " bytes at 120 s, %" G_GSIZE_FORMAT
                  " at 600 s: %.0f bytes a second, %.2f a job", early, late, per_second, per_job);
  /* One slot a second (about 150 bytes) and nothing a job: 56 bytes a job
   * was the cost of the list this replaced. */
  g_assert_cmpfloat (per_second, <, 400);
  g_assert_cmpfloat (per_job, <, 1);
}

/* The same jobs counted live (each second closed once the run is 30 s past
 * it) and read back at the end (the series made once all are in): the same
 * summary and the same series, to the last digit of the CSV. */
static void
test_live_equals_read_back (void)
{
  g_autoptr(RivLoadStats) live = riv_load_stats_new ();
  g_autoptr(RivLoadStats) read_back = riv_load_stats_new ();
  g_autoptr(GRand) rand_a = g_rand_new_with_seed (99);
  g_autoptr(GRand) rand_b = g_rand_new_with_seed (99);
  g_autofree char *csv_live = NULL;
  g_autofree char *csv_read = NULL;
  RivLoadSummary a, b;

  riv_load_stats_set_start (live, ORIGIN);
  add_jobs (live, rand_a, 0, 100000, 500, NULL, NULL, NULL);
  add_jobs (read_back, rand_b, 0, 100000, 500, NULL, NULL, NULL);
  riv_load_stats_set_end (live, ORIGIN + 230);
  riv_load_stats_set_end (read_back, ORIGIN + 230);
  csv_live = riv_load_stats_timeseries_csv (live);
  csv_read = riv_load_stats_timeseries_csv (read_back);
  g_assert_cmpuint (strlen (csv_live), >, 200 * 40);
  g_assert_cmpstr (csv_live, ==, csv_read);
  riv_load_stats_summarize (live, &a);
  riv_load_stats_summarize (read_back, &b);
  g_assert_cmpmem (&a, sizeof a, &b, sizeof b);
}

/* The report draws a second that stands alone (no neighbour with a value)
 * as a dot: jobs that end in waves, here at 0 s and 4 s. */
static void
test_report_isolated_second (void)
{
  g_autoptr(RivLoadStats) stats = riv_load_stats_new ();
  g_autofree char *html = NULL;
  const char *latency;
  guint dots = 0;

  for (guint wave = 0; wave < 2; wave++)
    for (guint i = 0; i < 3; i++)
      {
        RivLoadStream stream = { 0 };

        stream.first_s = 0.2;
        stream.first_start_s = -1;
        riv_load_stats_add (stats, ORIGIN + wave * 4.0, 0.05, 0.4, 0.5, RIV_JOB_STATUS_COMPLETED,
                            1, 1 + wave * 3 + i, 0, NULL);
        riv_load_stats_add_stream (stats, &stream);
      }
  html = riv_report_html (stats, NULL, NULL, NULL, 0);
  latency = strstr (html, "id=\"latency\"");
  g_assert_nonnull (latency);
  for (const char *p = strstr (latency, "l0,0"); p != NULL && p < strstr (latency, "</section>");
       p = strstr (p + 1, "l0,0"))
    dots++;
  /* Two lone seconds in each of the latency chart's lines (p50, p95, p99). */
  g_assert_cmpuint (dots, ==, 6);
}

int
main (int    argc,
      char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/load-stats/percentiles", test_percentiles);
  g_test_add_func ("/load-stats/server-share", test_server_share);
  g_test_add_func ("/load-stats/flat", test_flat);
  g_test_add_func ("/load-stats/live-equals-read-back", test_live_equals_read_back);
  g_test_add_func ("/load-stats/report-isolated-second", test_report_isolated_second);
  return g_test_run ();
}
