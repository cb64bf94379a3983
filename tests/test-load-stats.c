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

#include "riv-job-record.h"
#include "riv-json.h"
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

static gboolean
append_bucket (guint64  start_us,
               guint64  count,
               gpointer user_data)
{
  g_string_append_printf (user_data, "%" G_GUINT64_FORMAT ":%" G_GUINT64_FORMAT " ", start_us, count);
  return TRUE;
}

/* The buckets of a sketch as text (NULL and empty alike: none). */
static char *
sketch_text (const RivSketch *sketch)
{
  GString *out = g_string_new (NULL);

  riv_sketch_foreach (sketch, append_bucket, out);
  return g_string_free (out, FALSE);
}

/* Records of every kind: streamed with the server's stamps, with logs and an
 * error that hold every character a brief escapes, batched, uploaded,
 * cached, with the server's time, lost with no latency, stalls without gaps. */
static const char *const brief_records[] = {
  ("{\"status\":\"completed\",\"error\":null,\"logs\":[],\"batch\":null,\"queued_s\":0.011481999999887194,"
   "\"run_s\":2.8470170000000508,\"latency_s\":2.858498999999938,\"updates\":21,\"upload_s\":null,"
   "\"cache\":null,\"user\":1,\"submitted_at\":1796467623.401499,\"first_update_s\":0.40878199999997378,"
   "\"first_after_start_s\":0.39730000000008658,\"gaps\":19,\"gap_s\":{\"p50\":0.05,\"p99\":1.55,"
   "\"max\":1.5504039999996166},\"stalls\":1,\"chars_per_s\":45.31196676795566,\"words_per_s\":7.75,"
   "\"gap_hist_us\":[[49152,1],[49408,1],[49664,6],[49920,6],[50176,4],[1548288,1]],"
   "\"stamps\":{\"delay_hist_us\":[[274,1],[282,1],[620,1],[668,1]],\"sent_gap_hist_us\":[[49408,1],"
   "[49664,3],[1548288,1]],\"hold_hist_us\":[[12,4]],\"clumped\":true}}"),
  ("{\"status\":\"failed\",\"error\":\"bad \\\\ input,\\n\\ttab\\r and ünïcode \\\\s\",\"logs\":["
   "{\"level\":\"info\",\"message\":\"a\"},{\"level\":\"warn ing,\\\\x\",\"message\":\"b\"},"
   "{\"level\":\"\",\"message\":\"c\"},{\"message\":\"no level\"},\"not an object\"],"
   "\"batch\":{\"id\":\"b1\",\"size\":4,\"index\":2},\"queued_s\":0.5,\"run_s\":0.25,\"latency_s\":0.75,"
   "\"updates\":2,\"upload_s\":0.125,\"cache\":{\"used\":\"full\"},\"server\":{\"total_s\":0.5},\"user\":7,"
   "\"submitted_at\":1796467623.5,\"first_update_s\":null,\"gaps\":0,\"stalls\":0,\"gap_hist_us\":[]}"),
  ("{\"status\":\"completed\",\"error\":\"\",\"logs\":[{\"level\":\"\"}],\"batch\":{\"id\":\"b2\",\"size\":3},"
   "\"queued_s\":0.125,\"run_s\":0.5,\"latency_s\":0.625,\"updates\":1,\"upload_s\":0.25,"
   "\"cache\":{\"used\":\"partial\",\"duration_s\":0.1},\"server\":{\"total_s\":0.5},"
   "\"submitted_at\":1796467624.25,\"first_update_s\":0.625,\"first_after_start_s\":0.5,\"gaps\":0,"
   "\"stalls\":0,\"gap_hist_us\":[]}"),
  ("{\"status\":\"lost\",\"error\":\"-\",\"queued_s\":null,\"run_s\":null,\"latency_s\":null,"
   "\"updates\":0,\"submitted_at\":-12.5,\"stalls\":3}"),
};

static void
assert_same_read (const RivLoadRecord *a,
                  const RivLoadRecord *b)
{
  const RivLoadStream *x = &a->stream, *y = &b->stream;
  guint n = 0;

  g_assert_cmpint (a->status, ==, b->status);
  g_assert_cmpfloat (a->submitted_at, ==, b->submitted_at);
  g_assert_cmpfloat (a->queued_s, ==, b->queued_s);
  g_assert_cmpfloat (a->run_s, ==, b->run_s);
  g_assert_cmpfloat (a->latency_s, ==, b->latency_s);
  g_assert_cmpuint (a->updates, ==, b->updates);
  g_assert_cmpuint (a->user, ==, b->user);
  g_assert_cmpuint (a->batch_size, ==, b->batch_size);
  g_assert_cmpfloat (a->upload_s, ==, b->upload_s);
  g_assert_cmpint (a->cached, ==, b->cached);
  g_assert_cmpfloat (a->server_s, ==, b->server_s);
  g_assert_cmpstr (a->error, ==, b->error);
  /* The levels of the record's logs (objects only), in order. */
  for (guint i = 0; a->logs != NULL && i < json_array_get_length (a->logs); i++)
    {
      JsonNode *log = json_array_get_element (a->logs, i);

      if (!JSON_NODE_HOLDS_OBJECT (log))
        continue;
      g_assert_nonnull (b->levels);
      g_assert_cmpuint (n, <, b->levels->len);
      g_assert_cmpstr (g_ptr_array_index (b->levels, n), ==,
                       riv_json_get_string (json_node_get_object (log), "level") != NULL
                       ? riv_json_get_string (json_node_get_object (log), "level") : "");
      n++;
    }
  g_assert_cmpuint (n, ==, b->levels != NULL ? b->levels->len : 0);

  g_assert_cmpfloat (x->first_s, ==, y->first_s);
  g_assert_cmpfloat (x->first_start_s, ==, y->first_start_s);
  g_assert_cmpuint (x->n_gaps, ==, y->n_gaps);
  g_assert_cmpfloat (x->gap_p50, ==, y->gap_p50);
  g_assert_cmpfloat (x->gap_p99, ==, y->gap_p99);
  g_assert_cmpfloat (x->gap_max, ==, y->gap_max);
  g_assert_cmpuint (x->stalls, ==, y->stalls);
  g_assert_cmpfloat (x->chars_per_s, ==, y->chars_per_s);
  g_assert_cmpfloat (x->words_per_s, ==, y->words_per_s);
  g_assert_cmpint (x->clumped, ==, y->clumped);
  {
    const RivSketch *sa[] = { x->gaps, x->sent_gaps, x->delays, x->holds };
    const RivSketch *sb[] = { y->gaps, y->sent_gaps, y->delays, y->holds };

    for (guint i = 0; i < G_N_ELEMENTS (sa); i++)
      {
        g_autofree char *ta = sketch_text (sa[i]);
        g_autofree char *tb = sketch_text (sb[i]);

        g_assert_cmpstr (ta, ==, tb);
      }
  }
}

/* A load worker's brief record (riv-job-record.h) reads back as the JSON
 * record it stands for: every figure the same to the last bit, and two
 * statistics, one fed the records and one their briefs, summarize alike. */
static void
test_brief_as_record (void)
{
  g_autoptr(RivLoadStats) by_records = riv_load_stats_new ();
  g_autoptr(RivLoadStats) by_briefs = riv_load_stats_new ();
  g_autofree char *logs_a = NULL, *logs_b = NULL;
  RivLoadSummary a, b;

  for (guint i = 0; i < G_N_ELEMENTS (brief_records); i++)
    {
      g_autoptr(JsonNode) node = riv_json_parse (NULL, brief_records[i], -1, 64, NULL);
      g_autoptr(GString) line = g_string_new (NULL);
      g_autoptr(GError) error = NULL;
      RivLoadRecord record, brief;
      guint scenario = 99;

      g_assert_nonnull (node);
      g_assert_true (riv_load_record_read (&record, json_node_get_object (node), 0.5, &error));
      riv_load_record_write_brief (line, &record, i);
      g_test_message ("%s", line->str);
      g_assert_null (strchr (line->str, '\n'));
      g_assert_true (riv_load_record_read_brief (&brief, line->str, 0.5, &scenario, &error));
      g_assert_no_error (error);
      g_assert_cmpuint (scenario, ==, i);
      assert_same_read (&record, &brief);
      riv_load_stats_add_read (by_records, &record);
      riv_load_stats_add_read (by_briefs, &brief);
      riv_load_record_clear (&record);
      riv_load_record_clear (&brief);
    }
  riv_load_stats_summarize (by_records, &a);
  riv_load_stats_summarize (by_briefs, &b);
  g_assert_cmpuint (a.submitted, ==, G_N_ELEMENTS (brief_records));
  g_assert_cmpuint (a.stamped, >, 0);
  g_assert_cmpmem (&a, sizeof a, &b, sizeof b);
  {
    g_autoptr(GArray) errors_a = riv_load_stats_errors (by_records);
    g_autoptr(GArray) errors_b = riv_load_stats_errors (by_briefs);

    g_assert_cmpuint (errors_a->len, ==, 3);
    g_assert_cmpuint (errors_b->len, ==, errors_a->len);
    for (guint i = 0; i < errors_a->len; i++)
      {
        g_assert_cmpstr (g_array_index (errors_a, RivLoadError, i).text, ==,
                         g_array_index (errors_b, RivLoadError, i).text);
        g_assert_cmpuint (g_array_index (errors_a, RivLoadError, i).count, ==,
                          g_array_index (errors_b, RivLoadError, i).count);
      }
  }
  logs_a = riv_load_stats_format_logs (by_records);
  logs_b = riv_load_stats_format_logs (by_briefs);
  g_assert_nonnull (strstr (logs_a, "warn ing,\\x"));
  g_assert_cmpstr (logs_a, ==, logs_b);
}

/* A brief that is not one is refused, naming its field, and counts nothing:
 * every one cut short, one with a field too many, and each field wrong
 * (numbers: the bits of a double in hexadecimal, 3ff0000000000000 is 1). */
static void
test_brief_refused (void)
{
#define GOOD_HEAD "#job completed 0 3ff0000000000000 - - - 0 0 0 - 0 - - - - - - 0 "
  static const struct { const char *line, *error; } bad[] = {
    { "", "not a brief record" },
    { "#job", "not a brief record" },
    { "#job ", "no scenario" },
    { "{\"status\":\"completed\"}", "not a brief record" },
    { "#job running 0 3ff0000000000000 - - - 0 0 0 - 0 - - - - - - 0 . - - -", "its status is not one" },
    { "#job completed 0 - - - - 0 0 0 - 0 - - - - - - 0 . - - -", "its submitted_at is not one" },
    /* NaN, an infinity, a negative time where there is none */
    { "#job completed 0 7ff8000000000000 - - - 0 0 0 - 0 - - - - - - 0 . - - -", "its submitted_at is not one" },
    { "#job completed 0 3ff0000000000000 7ff0000000000000 - - 0 0 0 - 0 - - - - - - 0 . - - -", "its queued_s is not one" },
    { "#job completed 0 3ff0000000000000 - - fff0000000000000 0 0 0 - 0 - - - - - - 0 . - - -", "its latency_s is not one" },
    { "#job completed 0 3ff0000000000000 - - - 0 0 0 - 0 - bff0000000000000 - - - - 0 . - - -", "its first_update_s is not one" },
    { "#job completed 0 3ff0000000000000 - - - 0 0 0 - 0 bff0000000000000 - - - - - 0 . - - -", "its server time is not one" },
    /* numbers not as the writer writes them: a hexadecimal float, upper case,
     * 17 digits, a sign, decimal, none */
    { "#job completed 0 0x1p+0 - - - 0 0 0 - 0 - - - - - - 0 . - - -", "its submitted_at is not one" },
    { "#job completed 0 3FF0000000000000 - - - 0 0 0 - 0 - - - - - - 0 . - - -", "its submitted_at is not one" },
    { "#job completed 0 03ff0000000000000 - - - 0 0 0 - 0 - - - - - - 0 . - - -", "its submitted_at is not one" },
    { "#job completed 0 3ff0000000000000 -1 - - 0 0 0 - 0 - - - - - - 0 . - - -", "its queued_s is not one" },
    { "#job completed 0 3ff0000000000000 - 0.5 - 0 0 0 - 0 - - - - - - 0 . - - -", "its run_s is not one" },
    { "#job completed 0 3ff0000000000000 - - - 0 0 0 - 0 - - - 3ff0000000000000x - - 0 . - - -", "its chars_per_s is not one" },
    { "#job completed  3ff0000000000000 - - - 0 0 0 - 0 - - - - - - 0 . - - -", "its scenario is not one" },
    /* counts over their field's largest, signed, not decimal */
    { "#job completed 4294967296 3ff0000000000000 - - - 0 0 0 - 0 - - - - - - 0 . - - -", "its scenario is not one" },
    { "#job completed 0 3ff0000000000000 - - - 4294967296 0 0 - 0 - - - - - - 0 . - - -", "its updates is not one" },
    { "#job completed 0 3ff0000000000000 - - - 0 0 65536 - 0 - - - - - - 0 . - - -", "its batch size is not one" },
    { "#job completed 0 3ff0000000000000 - - - -1 0 0 - 0 - - - - - - 0 . - - -", "its updates is not one" },
    { "#job completed 0 3ff0000000000000 - - - 0 +1 0 - 0 - - - - - - 0 . - - -", "its user is not one" },
    { "#job completed 0 3ff0000000000000 - - - 0 0 0 - 0 - - - - - - 0x1 . - - -", "its stalls is not one" },
    { "#job completed 0 3ff0000000000000 - - - 0 0 0 - 2 - - - - - - 0 . - - -", "its cache is not one" },
    { GOOD_HEAD "1:2, - - -", "its gaps is not one" },
    { GOOD_HEAD "1: - - -", "its gaps is not one" },
    { GOOD_HEAD ":1 - - -", "its gaps is not one" },
    { GOOD_HEAD "9223372036854775808:1 - - -", "its gaps is not one" },
    { GOOD_HEAD "1:18446744073709551616 - - -", "its gaps is not one" },
    { GOOD_HEAD "1:99999999999999999999999 - - -", "its gaps is not one" },
    { GOOD_HEAD ". 2;.;.;. - -", "its stamps is not one" },
    { GOOD_HEAD ". 1;.;. - -", "its stamps is not one" },
    { GOOD_HEAD ". 1;.;.;.;. - -", "its stamps is not one" },
    { GOOD_HEAD ". 1;x;.;. - -", "its stamps is not one" },
    { GOOD_HEAD ". 1;.;1:a;. - -", "its stamps is not one" },
    { GOOD_HEAD ". - a\\q -", "its log levels is not one" },
    { GOOD_HEAD ". - - text", "its error is not one" },
    { GOOD_HEAD ". - - =a\\", "its error is not one" },
    { GOOD_HEAD ". - - =\xff", "its error is not one" },
    { GOOD_HEAD ". - - - extra", "more than a brief record" },
    { GOOD_HEAD ". - - - ", "more than a brief record" },
  };
  g_autoptr(JsonNode) node = riv_json_parse (NULL, brief_records[0], -1, 64, NULL);
  g_autoptr(GString) good = g_string_new (NULL);
  RivLoadRecord record;
  guint scenario;

  for (guint i = 0; i < G_N_ELEMENTS (bad); i++)
    {
      g_autofree char *line = g_strdup (bad[i].line);
      g_autoptr(GError) error = NULL;

      g_test_message ("%s", bad[i].line);
      g_assert_false (riv_load_record_read_brief (&record, line, 1, &scenario, &error));
      g_assert_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA);
      g_assert_cmpstr (error->message, ==, bad[i].error);
    }

  /* The good one, then every cut of it at a space. */
  g_assert_true (riv_load_record_read (&record, json_node_get_object (node), 1, NULL));
  riv_load_record_write_brief (good, &record, 3);
  riv_load_record_clear (&record);
  for (const char *space = strchr (good->str, ' '); space != NULL; space = strchr (space + 1, ' '))
    {
      g_autofree char *line = g_strndup (good->str, space - good->str);
      g_autoptr(GError) error = NULL;

      g_assert_false (riv_load_record_read_brief (&record, line, 1, &scenario, &error));
      g_assert_nonnull (error);
    }
  {
    g_autofree char *line = g_strdup (good->str);

    g_assert_true (riv_load_record_read_brief (&record, line, 1, &scenario, NULL));
    riv_load_record_clear (&record);
  }
  /* The bad ones' good fields are good. */
  {
    g_autofree char *line = g_strdup (GOOD_HEAD ". - - -");

    g_assert_true (riv_load_record_read_brief (&record, line, 1, &scenario, NULL));
    g_assert_cmpfloat (record.submitted_at, ==, 1);
    riv_load_record_clear (&record);
  }
#undef GOOD_HEAD
}

static gboolean
same_bits (double a,
           double b)
{
  return memcmp (&a, &b, sizeof a) == 0;
}

/* Every number of a brief comes back to the bit, written and read by hand
 * (riv-job-record.c): zeros of both signs, subnormals, 2^53 and its
 * neighbours, the largest, negatives where a field may be negative, an
 * unknown ("-") as unknown; counts up to each field's largest. */
static void
test_brief_numbers (void)
{
  static const double values[] = {
    0.0, -0.0, 4.9406564584124654e-324, 2.2250738585072009e-308, 2.2250738585072014e-308,
    1.0, 0.1, 1.0 / 3, 9007199254740992.0, 9007199254740994.0, 9007199254740991.0,
    1.7976931348623157e308, 1796467623.401499, -1.0, -0.5, -4.9406564584124654e-324,
    -1.7976931348623157e308, NAN, INFINITY, -INFINITY,
  };

  for (guint i = 0; i < G_N_ELEMENTS (values); i++)
    {
      double v = values[i];
      /* What a field that may be negative reads back, and one that may not. */
      double any = isfinite (v) ? v : -1, seconds = isfinite (v) && v >= 0 ? v : -1;
      g_autoptr(RivSketch) gaps = riv_sketch_new ();
      g_autoptr(GString) line = g_string_new (NULL);
      g_autoptr(GError) error = NULL;
      RivLoadRecord r = {
        .status = RIV_JOB_STATUS_COMPLETED, .submitted_at = v, .queued_s = v, .run_s = v,
        .latency_s = v, .updates = G_MAXUINT32, .user = G_MAXUINT32 - 1, .batch_size = G_MAXUINT16,
        .upload_s = v, .server_s = v, .stream = { .first_s = v, .first_start_s = v,
        .chars_per_s = v, .words_per_s = v, .gaps = gaps, .stalls = 9 },
      };
      RivLoadRecord back;
      guint scenario = 0;

      /* Buckets as far as a sketch goes, counts as far as a brief takes. */
      riv_sketch_add_bucket (gaps, 0, 1);
      riv_sketch_add_bucket (gaps, 255, 10);
      riv_sketch_add_bucket (gaps, G_GUINT64_CONSTANT (1) << 46, G_MAXINT64 / 2);
      r.stream.n_gaps = G_MAXUINT;
      r.stream.gap_max = v;
      riv_load_record_write_brief (line, &r, G_MAXUINT);
      g_test_message ("%g: %s", v, line->str);
      g_assert_true (riv_load_record_read_brief (&back, line->str, 1, &scenario, &error));
      g_assert_no_error (error);

      g_assert_true (same_bits (back.submitted_at, isfinite (v) ? v : 0));
      g_assert_true (same_bits (back.queued_s, any));
      g_assert_true (same_bits (back.run_s, any));
      g_assert_true (same_bits (back.latency_s, any));
      g_assert_true (same_bits (back.upload_s, any));
      /* The server's time only with a latency, as a record's. */
      g_assert_true (same_bits (back.server_s, seconds));
      g_assert_true (same_bits (back.stream.first_s, seconds));
      g_assert_true (same_bits (back.stream.first_start_s, seconds));
      g_assert_true (same_bits (back.stream.chars_per_s, seconds));
      g_assert_true (same_bits (back.stream.words_per_s, seconds));
      g_assert_true (same_bits (back.stream.gap_max, seconds >= 0 ? seconds
                                                     : riv_sketch_get_max (gaps)));
      g_assert_cmpuint (scenario, ==, G_MAXUINT);
      g_assert_cmpuint (back.updates, ==, G_MAXUINT32);
      g_assert_cmpuint (back.user, ==, G_MAXUINT32 - 1);
      g_assert_cmpuint (back.batch_size, ==, G_MAXUINT16);
      {
        g_autofree char *a = sketch_text (gaps);
        g_autofree char *b = sketch_text (back.stream.gaps);

        g_assert_cmpstr (a, ==, b);
      }
      riv_load_record_clear (&back);
    }

  /* The format itself: 1, 0 and -0, the unknown. */
  {
    g_autoptr(GString) line = g_string_new (NULL);
    RivLoadRecord r = {
      .status = RIV_JOB_STATUS_LOST, .submitted_at = 1, .queued_s = 0, .run_s = -0.0,
      .latency_s = NAN, .upload_s = -1, .server_s = -1,
      .stream = { .first_s = -1, .first_start_s = -1, .chars_per_s = -1, .words_per_s = -1 },
    };

    riv_load_record_write_brief (line, &r, 0);
    g_assert_cmpstr (line->str, ==, "#job lost 0 3ff0000000000000 0 8000000000000000 - 0 0 0 "
                                    "bff0000000000000 0 - - - - - - 0 . - - -");
  }
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
  g_test_add_func ("/load-stats/brief-as-record", test_brief_as_record);
  g_test_add_func ("/load-stats/brief-refused", test_brief_refused);
  g_test_add_func ("/load-stats/brief-numbers", test_brief_numbers);
  return g_test_run ();
}
