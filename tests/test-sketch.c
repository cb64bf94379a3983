/* test-sketch.c
 * Copyright 2026 The Rivulet authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * RivSketch against exact nearest-rank percentiles of the same values.
 */
#include "config.h"

#include <math.h>

#include "riv-sketch.h"
#include "riv-test-util.h"

static int
compare_doubles (gconstpointer a,
                 gconstpointer b)
{
  double x = *(const double *) a, y = *(const double *) b;

  return x < y ? -1 : x > y;
}

/* Nearest rank of sorted values, rounded to the microsecond as the sketch keeps them. */
static double
exact (GArray *sorted,
       double  q)
{
  guint64 rank = (guint64) ceil (q * sorted->len);

  rank = CLAMP (rank, 1, sorted->len);
  return round (g_array_index (sorted, double, rank - 1) * 1e6) / 1e6;
}

static void
check_quantiles (RivSketch *sketch,
                 GArray    *values)
{
  static const double qs[] = { 0.01, 0.1, 0.25, 0.5, 0.75, 0.9, 0.95, 0.99, 0.999, 1.0 };

  g_array_sort (values, compare_doubles);
  g_assert_cmpuint (riv_sketch_get_count (sketch), ==, values->len);
  for (guint i = 0; i < G_N_ELEMENTS (qs); i++)
    {
      double want = exact (values, qs[i]);
      double got = riv_sketch_quantile (sketch, qs[i]);

      /* 1 µs of slack for the rounding of values under 256 µs. */
      if (fabs (got - want) > want * RIV_SKETCH_RELATIVE_ERROR + 1e-6)
        g_error ("q %.3f: sketch %.9f, exact %.9f (%.4f %%)", qs[i], got, want,
                 100 * fabs (got - want) / want);
    }
  g_assert_cmpfloat (riv_sketch_get_max (sketch), ==, exact (values, 1.0));
  g_assert_cmpfloat (riv_sketch_get_min (sketch), ==, exact (values, 0.0));
}

/* Values spread over eight decades, log-uniform: every bucket width is hit. */
static void
test_sketch_log_uniform (void)
{
  g_autoptr(RivSketch) sketch = riv_sketch_new ();
  g_autoptr(GArray) values = g_array_new (FALSE, FALSE, sizeof (double));
  g_autoptr(GRand) rand = g_rand_new_with_seed (7);

  for (guint i = 0; i < 200000; i++)
    {
      double v = pow (10, g_rand_double_range (rand, -6, 3));

      riv_sketch_add (sketch, v);
      g_array_append_val (values, v);
    }
  check_quantiles (sketch, values);
  /* Bounded: the buckets over nine decades, not the values. */
  g_assert_cmpuint (riv_sketch_get_size (sketch), <, 128 * 1024);
}

/* A stream's gaps: 50 ms with jitter and a few stalls, as a job sees them. */
static void
test_sketch_stream_gaps (void)
{
  g_autoptr(RivSketch) sketch = riv_sketch_new ();
  g_autoptr(GArray) values = g_array_new (FALSE, FALSE, sizeof (double));
  g_autoptr(GRand) rand = g_rand_new_with_seed (11);

  for (guint i = 0; i < 5000; i++)
    {
      double v = i % 1000 == 999 ? 1.5 : 0.050 + g_rand_double_range (rand, -0.004, 0.004);

      riv_sketch_add (sketch, v);
      g_array_append_val (values, v);
    }
  check_quantiles (sketch, values);
  g_assert_cmpuint (riv_sketch_count_over (sketch, 1.0), ==, 5);
  g_assert_cmpuint (riv_sketch_count_over (sketch, 0.1), ==, 5);
  g_assert_cmpuint (riv_sketch_count_over (sketch, 2.0), ==, 0);
  /* A steady stream takes few buckets. */
  g_assert_cmpuint (riv_sketch_get_size (sketch), <, 4096);
}

/* Merged sketches give the percentiles of all the values; so do buckets
 * written out and read back (a record's gap histogram). */
static gboolean
copy_bucket (guint64  start_us,
             guint64  count,
             gpointer user_data)
{
  riv_sketch_add_bucket (user_data, start_us, count);
  return TRUE;
}

static void
test_sketch_merge (void)
{
  g_autoptr(RivSketch) all = riv_sketch_new ();
  g_autoptr(RivSketch) copy = riv_sketch_new ();
  g_autoptr(GArray) values = g_array_new (FALSE, FALSE, sizeof (double));
  g_autoptr(GRand) rand = g_rand_new_with_seed (3);

  for (guint part = 0; part < 10; part++)
    {
      g_autoptr(RivSketch) one = riv_sketch_new ();

      for (guint i = 0; i < 1000; i++)
        {
          double v = g_rand_double_range (rand, 0, 0.2 * (part + 1));

          riv_sketch_add (one, v);
          g_array_append_val (values, v);
        }
      riv_sketch_merge (all, one);
    }
  check_quantiles (all, values);

  riv_sketch_foreach (all, copy_bucket, copy);
  g_assert_cmpuint (riv_sketch_get_count (copy), ==, values->len);
  for (double q = 0.05; q < 1; q += 0.05)
    g_assert_cmpfloat (riv_sketch_quantile (copy, q), ==, riv_sketch_quantile (all, q));
}

static void
test_sketch_edges (void)
{
  g_autoptr(RivSketch) sketch = riv_sketch_new ();

  g_assert_cmpfloat (riv_sketch_quantile (sketch, 0.5), ==, 0);
  g_assert_cmpuint (riv_sketch_count_over (sketch, 0), ==, 0);
  riv_sketch_add (sketch, -1);
  riv_sketch_add (sketch, NAN);
  riv_sketch_add (sketch, INFINITY);
  g_assert_cmpuint (riv_sketch_get_count (sketch), ==, 0);
  riv_sketch_add (sketch, 0);
  riv_sketch_add (sketch, 1e12);   /* counted at the top bucket */
  g_assert_cmpuint (riv_sketch_get_count (sketch), ==, 2);
  g_assert_cmpfloat (riv_sketch_quantile (sketch, 0.5), ==, 0);
  g_assert_cmpfloat (riv_sketch_quantile (sketch, 1), >, 6e7);
  riv_sketch_merge (sketch, NULL);
  g_assert_cmpuint (riv_sketch_get_count (sketch), ==, 2);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/sketch/log-uniform", test_sketch_log_uniform);
  g_test_add_func ("/sketch/stream-gaps", test_sketch_stream_gaps);
  g_test_add_func ("/sketch/merge", test_sketch_merge);
  g_test_add_func ("/sketch/edges", test_sketch_edges);
  return g_test_run ();
}
