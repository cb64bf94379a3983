/* riv-sketch.h
 * Copyright 2026 The Rivulet authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * RivSketch: a bounded histogram of durations (seconds) whose percentiles
 * are within RIV_SKETCH_RELATIVE_ERROR of the exact ones. Values are kept in
 * microseconds, exactly below 256 µs and above that in buckets 1/128 of a
 * power of two wide (log-linear, as HDR histograms do), so a bucket's middle
 * is within 1/256 of every value in it. Only the buckets in use are stored:
 * the gaps of one steady stream take a few dozen, a whole run's a few
 * hundred, whatever the number of values. Count, sum, min and max are exact.
 * Not thread-safe; merge sketches made on other threads on one.
 */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* The largest relative difference between a reported percentile and the
 * value of that rank (values under 256 µs are exact). */
#define RIV_SKETCH_RELATIVE_ERROR (1.0 / 256)

typedef struct _RivSketch RivSketch;

RivSketch *riv_sketch_new          (void);
void       riv_sketch_free         (RivSketch       *self);
/* Negative and non-finite values are ignored; values over about two years
 * are counted as two years. */
void       riv_sketch_add          (RivSketch       *self,
                                    double           seconds);
/* Adds other's values to self's (other unchanged, may be NULL). */
void       riv_sketch_merge        (RivSketch       *self,
                                    const RivSketch *other);
guint64    riv_sketch_get_count    (const RivSketch *self);
double     riv_sketch_get_sum      (const RivSketch *self);
/* Exact; 0 when empty. */
double     riv_sketch_get_min      (const RivSketch *self);
double     riv_sketch_get_max      (const RivSketch *self);
/* The nearest-rank percentile (q in 0..1), within the relative error, and
 * never outside min..max; 0 when empty. q = 1 is the exact max. */
double     riv_sketch_quantile     (const RivSketch *self,
                                    double           q);
/* How many values are over limit, at the sketch's resolution (a value in the
 * bucket that holds limit counts when the bucket's middle is over it). */
guint64    riv_sketch_count_over   (const RivSketch *self,
                                    double           limit);
/* Memory the sketch holds, bytes. */
gsize      riv_sketch_get_size     (const RivSketch *self);

/* The buckets in use, in ascending order: each bucket's first value in
 * microseconds and its count. Adding each start count times to an empty
 * sketch gives back the same buckets (riv_sketch_add_bucket ()). */
typedef gboolean (*RivSketchForeach) (guint64  start_us,
                                      guint64  count,
                                      gpointer user_data);
void       riv_sketch_foreach      (const RivSketch *self,
                                    RivSketchForeach func,
                                    gpointer         user_data);
/* count values of the bucket that holds start_us (min and max become the
 * bucket's middle where no exact value is known). */
void       riv_sketch_add_bucket   (RivSketch       *self,
                                    guint64          start_us,
                                    guint64          count);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (RivSketch, riv_sketch_free)

G_END_DECLS
