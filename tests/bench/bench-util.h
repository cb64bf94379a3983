/* bench-util.h
 * Copyright 2026 The Rivulet authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Small helpers shared by the benchmark programs (not tests: they print
 * measurements as one JSON object per line and never assert on timing).
 */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* Monotonic seconds. */
double  bench_now             (void);
/* CPU seconds used by the calling thread (immune to other load on the machine). */
double  bench_thread_cpu      (void);
/* CPU seconds used by the whole process (user + system). */
double  bench_process_cpu     (void);
/* Median of n values (sorts a copy); 0 for n == 0. */
double  bench_median          (const double *values,
                               guint         n);
/* The p-th percentile (0..100, nearest rank) of n values; 0 for n == 0. */
double  bench_percentile      (const double *values,
                               guint         n,
                               double        p);
/* Resident set size of this process in bytes, from /proc/self/statm. */
gsize   bench_self_rss        (void);
/* A "Name:   N kB" line of /proc/PID/status (VmRSS, RssAnon, RssFile…), in
 * bytes; 0 if absent. */
gsize   bench_process_status_bytes (int         pid,
                                    const char *field);
/* Iterates the thread-default context until func returns TRUE or timeout_s
 * passes (a hang guard, not a timing claim). Returns the last func result. */
gboolean bench_wait_until     (gboolean   (*func) (gpointer user_data),
                               gpointer     user_data,
                               double       timeout_s);
/* The calling thread's total time spent runnable but not running, in ms
 * (/proc/thread-self/schedstat); 0 when unknown. */
double  bench_thread_cpu_wait_ms (void);
/* The largest of an array of doubles (0 when empty). */
double  bench_array_max       (GArray       *values);
/* How many of an array of doubles are above limit. */
guint   bench_array_count_over (GArray      *values,
                                double       limit);
/* "a,b,c" → JSON array text of the doubles, for the per-repetition values. */
char   *bench_json_array      (const double *values,
                               guint         n);

G_END_DECLS
