/* riv-load-series.c
 * Copyright 2026 The Rivulet authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "config.h"

#include <math.h>

#include "riv-load-series.h"
#include "riv-outcomes.h"

#define MAX_SERIES_S (7 * 24 * 3600)

typedef struct
{
  RivOutcomes ends;        /* the jobs that ended in it */
  double      updates;     /* each job's updates spread over its run */
  guint       started;
  int         flight;      /* +1 where a job's time in flight begins, -1 where it ends */
  int         queued;
  guint       stalls;      /* of the jobs that ended in it */
  gboolean    lost_after;  /* a job lost in it was submitted before it */
  gboolean    closed;
  RivSketch  *latency;     /* until closed: the completed jobs' latencies */
  RivSketch  *first;       /* and their times to first update */
  double      p50, p95, p99, first_p50, first_p95;   /* once closed; < 0: none */
} Slot;

typedef struct
{
  double   first;
  double   last;
  gboolean to_end;   /* a job of the user did not end */
} UserSpan;

struct _RivLoadSeries
{
  double      origin;
  gboolean    close_behind;
  GArray     *slots;      /* Slot */
  guint       n_closed;   /* slots[0 .. n_closed) are closed */
  GHashTable *spans;      /* user → UserSpan */
  GArray     *unended;    /* RivLoadSeriesJob: jobs that did not end */
};

static void
slot_clear (gpointer data)
{
  Slot *slot = data;

  g_clear_pointer (&slot->latency, riv_sketch_free);
  g_clear_pointer (&slot->first, riv_sketch_free);
}

RivLoadSeries *
riv_load_series_new (double   origin,
                     gboolean close_behind)
{
  RivLoadSeries *self = g_new0 (RivLoadSeries, 1);

  self->origin = origin;
  self->close_behind = close_behind;
  self->slots = g_array_new (FALSE, TRUE, sizeof (Slot));
  g_array_set_clear_func (self->slots, slot_clear);
  self->spans = g_hash_table_new_full (NULL, NULL, NULL, g_free);
  self->unended = g_array_new (FALSE, FALSE, sizeof (RivLoadSeriesJob));
  return self;
}

void
riv_load_series_free (RivLoadSeries *self)
{
  if (self == NULL)
    return;
  g_array_unref (self->slots);
  g_hash_table_unref (self->spans);
  g_array_unref (self->unended);
  g_free (self);
}

double
riv_load_series_get_origin (RivLoadSeries *self)
{
  return self->origin;
}

static guint
second_of (RivLoadSeries *self,
           double         t)
{
  double b = floor (t - self->origin);

  if (!(b > 0))
    return 0;
  return (guint) MIN (b, (double) (MAX_SERIES_S - 1));
}

static Slot *
slot_at (RivLoadSeries *self,
         guint          b)
{
  if (b >= self->slots->len)
    g_array_set_size (self->slots, b + 1);
  return &g_array_index (self->slots, Slot, b);
}

static double
quantile_or_none (const RivSketch *sketch,
                  double           q)
{
  return riv_sketch_get_count (sketch) > 0 ? riv_sketch_quantile (sketch, q) : -1;
}

static void
slot_close (Slot *slot)
{
  slot->p50 = quantile_or_none (slot->latency, 0.50);
  slot->p95 = quantile_or_none (slot->latency, 0.95);
  slot->p99 = quantile_or_none (slot->latency, 0.99);
  slot->first_p50 = quantile_or_none (slot->first, 0.50);
  slot->first_p95 = quantile_or_none (slot->first, 0.95);
  slot_clear (slot);
  slot->closed = TRUE;
}

/* The seconds far enough behind `newest` that no job is expected in them. */
static void
close_behind (RivLoadSeries *self,
              guint          newest)
{
  while (self->n_closed + RIV_LOAD_SERIES_LAG_S < newest && self->n_closed < self->slots->len)
    slot_close (&g_array_index (self->slots, Slot, self->n_closed++));
}

static void
add_user (RivLoadSeries          *self,
          const RivLoadSeriesJob *job)
{
  UserSpan *span = g_hash_table_lookup (self->spans, GUINT_TO_POINTER (job->user));
  double until = job->ended >= 0 ? job->ended : job->submitted_at;

  if (span == NULL)
    {
      span = g_new0 (UserSpan, 1);
      span->first = job->submitted_at;
      span->last = until;
      g_hash_table_insert (self->spans, GUINT_TO_POINTER (job->user), span);
    }
  span->first = MIN (span->first, job->submitted_at);
  span->last = MAX (span->last, until);
  span->to_end |= job->ended < 0;
}

/* Updates spread evenly over the seconds from..to of values. */
static void
spread_updates (double *values,
                guint   from,
                guint   to,
                guint   updates)
{
  double share = (double) updates / (to - from + 1);

  for (guint b = from; b <= to; b++)
    values[b] += share;
}

void
riv_load_series_add (RivLoadSeries          *self,
                     const RivLoadSeriesJob *job)
{
  guint b_submit = second_of (self, job->submitted_at);
  guint b_end, b_from;
  Slot *end;

  if (job->user > 0)
    add_user (self, job);
  if (job->ended < 0)
    {
      /* Placed once the run's end is known (riv_load_series_samples ()). */
      slot_at (self, b_submit)->started++;
      g_array_append_val (self->unended, *job);
      return;
    }

  b_end = second_of (self, job->ended);
  slot_at (self, b_end);
  slot_at (self, b_submit)->started++;
  end = slot_at (self, b_end);
  if (riv_outcomes_add (&end->ends, job->status) == RIV_JOB_STATUS_COMPLETED &&
      !end->closed)
    {
      if (end->latency == NULL)
        end->latency = riv_sketch_new ();
      riv_sketch_add (end->latency, job->latency_s);
      if (job->first_s >= 0)
        {
          if (end->first == NULL)
            end->first = riv_sketch_new ();
          riv_sketch_add (end->first, job->first_s);
        }
    }
  end->stalls += job->stalls;
  end->lost_after |= job->status == RIV_JOB_STATUS_LOST && b_submit < b_end;
  /* Counted at a second's end: a span covers the seconds that end inside it. */
  if (b_submit < b_end)
    {
      slot_at (self, b_submit)->flight++;
      slot_at (self, b_end)->flight--;
    }
  b_from = job->began >= 0 ? second_of (self, job->began) : b_end;
  if (b_submit < b_from)
    {
      slot_at (self, b_submit)->queued++;
      slot_at (self, b_from)->queued--;
    }
  if (job->updates > 0)
    {
      guint from = job->began >= 0 ? b_from : b_submit;

      for (guint b = from; b <= b_end; b++)
        slot_at (self, b)->updates += (double) job->updates / (b_end - from + 1);
    }
  if (self->close_behind)
    close_behind (self, b_end);
}

/* The counts of the slots, folded into n seconds (the last takes the rest). */
static void
fill_counts (RivLoadSeries *self,
             GArray        *series,
             int           *flight,
             int           *queued,
             double        *updates,
             RivSketch    **latency,
             RivSketch    **first)
{
  guint n = series->len;

  for (guint i = 0; i < self->slots->len; i++)
    {
      const Slot *slot = &g_array_index (self->slots, Slot, i);
      guint b = MIN (i, n - 1);
      RivLoadSample *sample = &g_array_index (series, RivLoadSample, b);

      sample->started += slot->started;
      sample->completed += (guint) slot->ends.completed;
      sample->failed += (guint) slot->ends.failed;
      sample->cancelled += (guint) slot->ends.cancelled;
      sample->lost += (guint) slot->ends.lost;
      sample->stalls += slot->stalls;
      flight[b] += slot->flight;
      queued[b] += slot->queued;
      updates[b] += slot->updates;
      if (slot->closed)
        {
          sample->p50 = slot->p50;
          sample->p95 = slot->p95;
          sample->p99 = slot->p99;
          sample->first_p50 = slot->first_p50;
          sample->first_p95 = slot->first_p95;
          continue;
        }
      if (latency[b] == NULL)
        latency[b] = riv_sketch_new ();
      if (first[b] == NULL)
        first[b] = riv_sketch_new ();
      riv_sketch_merge (latency[b], slot->latency);
      riv_sketch_merge (first[b], slot->first);
    }
}

/* The jobs that did not end: in flight (and queued, and their user active)
 * to the run's end, counted in its last second. */
static void
fill_unended (RivLoadSeries *self,
              GArray        *series,
              int           *flight,
              int           *queued,
              double        *updates)
{
  guint n = series->len;

  for (guint i = 0; i < self->unended->len; i++)
    {
      const RivLoadSeriesJob *job = &g_array_index (self->unended, RivLoadSeriesJob, i);
      guint b_submit = MIN (second_of (self, job->submitted_at), n - 1);
      guint b_began = job->began >= 0 ? MIN (second_of (self, job->began), n - 1) : n;
      RivLoadSample *last = &g_array_index (series, RivLoadSample, n - 1);

      switch (riv_outcomes_add (&(RivOutcomes) { 0 }, job->status))
        {
        case RIV_JOB_STATUS_COMPLETED: last->completed++; break;
        case RIV_JOB_STATUS_FAILED: last->failed++; break;
        case RIV_JOB_STATUS_CANCELLED: last->cancelled++; break;
        default: last->lost++; break;
        }
      last->stalls += job->stalls;
      flight[b_submit]++;
      flight[n]--;
      if (b_submit < b_began)
        {
          queued[b_submit]++;
          queued[b_began]--;
        }
      if (job->updates > 0)
        spread_updates (updates, job->began >= 0 ? b_began : b_submit, n - 1, job->updates);
    }
}

static int *
count_users (RivLoadSeries *self,
             guint          n)
{
  int *users = g_new0 (int, n + 1);
  GHashTableIter iter;
  gpointer value;

  g_hash_table_iter_init (&iter, self->spans);
  while (g_hash_table_iter_next (&iter, NULL, &value))
    {
      const UserSpan *span = value;
      guint from = MIN (second_of (self, span->first), n - 1);
      guint to = span->to_end ? n - 1 : MIN (second_of (self, span->last), n - 1);

      /* A user counts in every second it was active in, at least its first. */
      users[from]++;
      users[MAX (to, from + 1)]--;
    }
  return users;
}

static void
take_percentiles (RivLoadSample   *sample,
                  const RivSketch *latency,
                  const RivSketch *first)
{
  if (latency == NULL)
    return;   /* a closed second's, already taken */
  sample->p50 = quantile_or_none (latency, 0.50);
  sample->p95 = quantile_or_none (latency, 0.95);
  sample->p99 = quantile_or_none (latency, 0.99);
  sample->first_p50 = quantile_or_none (first, 0.50);
  sample->first_p95 = quantile_or_none (first, 0.95);
}

GArray *
riv_load_series_samples (RivLoadSeries *self,
                         double         end)
{
  GArray *series = g_array_new (FALSE, TRUE, sizeof (RivLoadSample));
  guint n = (guint) MIN (ceil (end - self->origin), MAX_SERIES_S);
  g_autofree int *flight = NULL;
  g_autofree int *queued = NULL;
  g_autofree int *users = NULL;
  g_autofree double *updates = NULL;
  g_autofree RivSketch **latency = NULL;
  g_autofree RivSketch **first = NULL;
  int in_flight = 0, waiting = 0, active = 0;

  n = MAX (n, 1);
  g_array_set_size (series, n);
  flight = g_new0 (int, n + 1);
  queued = g_new0 (int, n + 1);
  updates = g_new0 (double, n);
  latency = g_new0 (RivSketch *, n);
  first = g_new0 (RivSketch *, n);
  for (guint b = 0; b < n; b++)
    {
      RivLoadSample *sample = &g_array_index (series, RivLoadSample, b);

      sample->t = b;
      sample->p50 = sample->p95 = sample->p99 = sample->first_p50 = sample->first_p95 = -1;
    }
  fill_counts (self, series, flight, queued, updates, latency, first);
  fill_unended (self, series, flight, queued, updates);
  users = count_users (self, n);
  for (guint b = 0; b < n; b++)
    {
      RivLoadSample *sample = &g_array_index (series, RivLoadSample, b);

      in_flight += flight[b];
      waiting += queued[b];
      active += users[b];
      sample->in_flight = (guint) MAX (in_flight, 0);
      sample->queued = (guint) MAX (waiting, 0);
      sample->users = (guint) MAX (active, 0);
      sample->updates_per_s = updates[b];
      take_percentiles (sample, latency[b], first[b]);
      riv_sketch_free (latency[b]);
      riv_sketch_free (first[b]);
    }
  return series;
}

gboolean *
riv_load_series_lost_after (RivLoadSeries *self,
                            guint          n)
{
  gboolean *marks = g_new0 (gboolean, MAX (n, 1));

  for (guint i = 0; n > 0 && i < self->slots->len; i++)
    marks[MIN (i, n - 1)] |= g_array_index (self->slots, Slot, i).lost_after;
  return marks;
}

gsize
riv_load_series_get_size (RivLoadSeries *self)
{
  gsize size = sizeof *self + self->slots->len * sizeof (Slot) +
               g_hash_table_size (self->spans) * (sizeof (UserSpan) + 32) +
               self->unended->len * sizeof (RivLoadSeriesJob);

  for (guint i = self->n_closed; i < self->slots->len; i++)
    {
      const Slot *slot = &g_array_index (self->slots, Slot, i);

      size += riv_sketch_get_size (slot->latency) + riv_sketch_get_size (slot->first);
    }
  return size;
}
