/* bench-util.c
 * Copyright 2026 The Rivulet authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "bench-util.h"

double
bench_now (void)
{
  return g_get_monotonic_time () / (double) G_USEC_PER_SEC;
}

static double
clock_seconds (clockid_t clock)
{
  struct timespec ts;

  if (clock_gettime (clock, &ts) != 0)
    return 0;
  return ts.tv_sec + ts.tv_nsec / 1e9;
}

double
bench_thread_cpu (void)
{
  return clock_seconds (CLOCK_THREAD_CPUTIME_ID);
}

double
bench_process_cpu (void)
{
  return clock_seconds (CLOCK_PROCESS_CPUTIME_ID);
}

static int
compare_doubles (gconstpointer a,
                 gconstpointer b)
{
  double x = *(const double *) a;
  double y = *(const double *) b;

  return (x > y) - (x < y);
}

double
bench_percentile (const double *values,
                  guint         n,
                  double        p)
{
  g_autofree double *copy = NULL;
  double rank;
  guint index;

  if (n == 0)
    return 0;

  copy = g_memdup2 (values, n * sizeof (double));
  qsort (copy, n, sizeof (double), compare_doubles);

  /* Nearest rank: the smallest value with at least p% of the values at or below it. */
  rank = ceil (p / 100.0 * n);
  index = rank < 1 ? 0 : (guint) rank - 1;
  return copy[MIN (index, n - 1)];
}

double
bench_median (const double *values,
              guint         n)
{
  g_autofree double *copy = NULL;

  if (n == 0)
    return 0;

  copy = g_memdup2 (values, n * sizeof (double));
  qsort (copy, n, sizeof (double), compare_doubles);
  if (n % 2 == 1)
    return copy[n / 2];
  return (copy[n / 2 - 1] + copy[n / 2]) / 2;
}

gsize
bench_self_rss (void)
{
  unsigned long size = 0, resident = 0;
  FILE *file = fopen ("/proc/self/statm", "r");

  if (file == NULL)
    return 0;
  if (fscanf (file, "%lu %lu", &size, &resident) != 2)
    resident = 0;
  fclose (file);
  return (gsize) resident * (gsize) sysconf (_SC_PAGESIZE);
}

gsize
bench_process_status_bytes (int         pid,
                            const char *field)
{
  g_autofree char *path = g_strdup_printf ("/proc/%d/status", pid);
  g_autofree char *contents = NULL;
  g_autofree char *key = g_strdup_printf ("\n%s:", field);
  const char *line;

  if (!g_file_get_contents (path, &contents, NULL, NULL))
    return 0;
  line = strstr (contents, key);
  if (line == NULL)
    return 0;
  return (gsize) g_ascii_strtoull (line + strlen (key), NULL, 10) * 1024;
}

static gboolean
wakeup_cb (gpointer user_data)
{
  return G_SOURCE_CONTINUE;
}

gboolean
bench_wait_until (gboolean (*func) (gpointer user_data),
                  gpointer   user_data,
                  double     timeout_s)
{
  GMainContext *context = g_main_context_get_thread_default ();
  double deadline = bench_now () + timeout_s;
  GSource *wakeup;
  gboolean done;

  /* A periodic wakeup so that the deadline is checked even when nothing happens. */
  wakeup = g_timeout_source_new (100);
  g_source_set_callback (wakeup, wakeup_cb, NULL, NULL);
  g_source_attach (wakeup, context);

  while (!(done = func (user_data)) && bench_now () < deadline)
    g_main_context_iteration (context, TRUE);

  g_source_destroy (wakeup);
  g_source_unref (wakeup);
  return done;
}

char *
bench_json_array (const double *values,
                  guint         n)
{
  GString *text = g_string_new ("[");

  for (guint i = 0; i < n; i++)
    {
      char number[G_ASCII_DTOSTR_BUF_SIZE];

      if (i > 0)
        g_string_append_c (text, ',');
      g_string_append (text, g_ascii_formatd (number, sizeof number, "%.6g", values[i]));
    }
  g_string_append_c (text, ']');
  return g_string_free (text, FALSE);
}

double
bench_thread_cpu_wait_ms (void)
{
  g_autofree char *text = NULL;
  const char *space;

  if (!g_file_get_contents ("/proc/thread-self/schedstat", &text, NULL, NULL) ||
      (space = strchr (text, ' ')) == NULL)
    return 0;
  return g_ascii_strtod (space + 1, NULL) / 1e6;
}

double
bench_array_max (GArray *values)
{
  double m = 0;

  for (guint i = 0; i < values->len; i++)
    m = MAX (m, g_array_index (values, double, i));
  return m;
}

guint
bench_array_count_over (GArray *values,
                        double  limit)
{
  guint n = 0;

  for (guint i = 0; i < values->len; i++)
    n += g_array_index (values, double, i) > limit;
  return n;
}
