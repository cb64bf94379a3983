/* riv-sketch.c
 * Copyright 2026 The Rivulet authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "config.h"

#include <math.h>
#include <string.h>

#include "riv-sketch.h"

/* Values below EXACT_US have a bucket each; above, a power of two is cut in
 * SUB buckets. */
#define SUB_BITS  7
#define SUB       (1u << SUB_BITS)
#define EXACT_US  (2u * SUB)
#define MAX_US    (G_GUINT64_CONSTANT (1) << 46)   /* about 2.2 years */

typedef struct
{
  guint32 index;
  guint64 count;
} Bucket;

struct _RivSketch
{
  Bucket  *buckets;   /* in ascending index order */
  guint    n;
  guint    cap;
  guint    last;      /* the bucket the last value went to: streams repeat */
  guint64  count;
  double   sum;
  double   min;
  double   max;
};

RivSketch *
riv_sketch_new (void)
{
  return g_new0 (RivSketch, 1);
}

void
riv_sketch_free (RivSketch *self)
{
  if (self == NULL)
    return;
  g_free (self->buckets);
  g_free (self);
}

static guint32
index_of (guint64 us)
{
  guint e;

  if (us < EXACT_US)
    return (guint32) us;
  us = MIN (us, MAX_US);
  e = 63 - (guint) __builtin_clzll (us);   /* 2^e <= us, e >= SUB_BITS + 1 */
  return EXACT_US + (e - SUB_BITS - 1) * SUB + (guint32) ((us >> (e - SUB_BITS)) - SUB);
}

static guint64
start_of (guint32 index)
{
  guint e;

  if (index < EXACT_US)
    return index;
  e = (index - EXACT_US) / SUB + SUB_BITS + 1;
  return (guint64) (SUB + (index - EXACT_US) % SUB) << (e - SUB_BITS);
}

static guint64
width_of (guint32 index)
{
  if (index < EXACT_US)
    return 1;
  return G_GUINT64_CONSTANT (1) << ((index - EXACT_US) / SUB + 1);
}

/* The bucket's middle, seconds. */
static double
middle_of (guint32 index)
{
  return ((double) start_of (index) + (double) (width_of (index) - 1) / 2) / G_USEC_PER_SEC;
}

static Bucket *
bucket_for (RivSketch *self,
            guint32    index)
{
  guint lo = 0, hi = self->n;

  if (self->last < self->n && self->buckets[self->last].index == index)
    return &self->buckets[self->last];

  while (lo < hi)
    {
      guint mid = (lo + hi) / 2;

      if (self->buckets[mid].index < index)
        lo = mid + 1;
      else
        hi = mid;
    }
  if (lo == self->n || self->buckets[lo].index != index)
    {
      if (self->n == self->cap)
        {
          self->cap = self->cap == 0 ? 4 : self->cap * 2;
          self->buckets = g_renew (Bucket, self->buckets, self->cap);
        }
      memmove (&self->buckets[lo + 1], &self->buckets[lo], (self->n - lo) * sizeof (Bucket));
      self->buckets[lo].index = index;
      self->buckets[lo].count = 0;
      self->n++;
    }
  self->last = lo;
  return &self->buckets[lo];
}

static void
count_value (RivSketch *self,
             double     seconds,
             guint64    count)
{
  if (self->count == 0 || seconds < self->min)
    self->min = seconds;
  if (self->count == 0 || seconds > self->max)
    self->max = seconds;
  self->count += count;
  self->sum += seconds * (double) count;
}

void
riv_sketch_add (RivSketch *self,
                double     seconds)
{
  double us;

  g_return_if_fail (self != NULL);

  if (!isfinite (seconds) || seconds < 0)
    return;
  us = MIN (round (seconds * G_USEC_PER_SEC), (double) MAX_US);
  bucket_for (self, index_of ((guint64) us))->count++;
  count_value (self, us / G_USEC_PER_SEC, 1);
}

void
riv_sketch_add_bucket (RivSketch *self,
                       guint64    start_us,
                       guint64    count)
{
  guint32 index;

  g_return_if_fail (self != NULL);

  if (count == 0)
    return;
  index = index_of (start_us);
  bucket_for (self, index)->count += count;
  count_value (self, middle_of (index), count);
}

void
riv_sketch_merge (RivSketch       *self,
                  const RivSketch *other)
{
  g_return_if_fail (self != NULL);

  if (other == NULL || other->count == 0)
    return;
  for (guint i = 0; i < other->n; i++)
    bucket_for (self, other->buckets[i].index)->count += other->buckets[i].count;
  if (self->count == 0 || other->min < self->min)
    self->min = other->min;
  if (self->count == 0 || other->max > self->max)
    self->max = other->max;
  self->count += other->count;
  self->sum += other->sum;
}

guint64
riv_sketch_get_count (const RivSketch *self)
{
  return self != NULL ? self->count : 0;
}

double
riv_sketch_get_sum (const RivSketch *self)
{
  return self != NULL ? self->sum : 0;
}

double
riv_sketch_get_min (const RivSketch *self)
{
  return self != NULL && self->count > 0 ? self->min : 0;
}

double
riv_sketch_get_max (const RivSketch *self)
{
  return self != NULL && self->count > 0 ? self->max : 0;
}

double
riv_sketch_quantile (const RivSketch *self,
                     double           q)
{
  guint64 rank, seen = 0;

  if (self == NULL || self->count == 0)
    return 0;
  if (!(q < 1))
    return self->max;
  if (!(q > 0))
    return self->min;

  /* Nearest rank, as riv_load_percentile () takes it from sorted values. */
  rank = (guint64) ceil (q * (double) self->count);
  rank = CLAMP (rank, 1, self->count);
  for (guint i = 0; i < self->n; i++)
    {
      seen += self->buckets[i].count;
      if (seen >= rank)
        return CLAMP (middle_of (self->buckets[i].index), self->min, self->max);
    }
  return self->max;
}

guint64
riv_sketch_count_over (const RivSketch *self,
                       double           limit)
{
  guint64 over = 0;

  if (self == NULL)
    return 0;
  for (guint i = self->n; i > 0; i--)
    {
      if (!(middle_of (self->buckets[i - 1].index) > limit))
        break;
      over += self->buckets[i - 1].count;
    }
  return over;
}

gsize
riv_sketch_get_size (const RivSketch *self)
{
  return self != NULL ? sizeof (RivSketch) + self->cap * sizeof (Bucket) : 0;
}

void
riv_sketch_foreach (const RivSketch  *self,
                    RivSketchForeach  func,
                    gpointer          user_data)
{
  g_return_if_fail (func != NULL);

  for (guint i = 0; self != NULL && i < self->n; i++)
    if (!func (start_of (self->buckets[i].index), self->buckets[i].count, user_data))
      break;
}
