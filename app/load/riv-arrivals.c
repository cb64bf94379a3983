/* riv-arrivals.c
 * Copyright 2026 The Rivulet authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The arrival-rate schedule: the rate as linear segments, its integral, and
 * the time each job is due (riv-arrivals.h). The stages' notation is read in
 * riv-load-stages.c, beside --stages.
 */
#include "config.h"

#include <math.h>

#include "riv-arrivals.h"

/* The rate going linearly from r0 to r1 over [t0, t0 + seconds). */
typedef struct
{
  double t0;
  double seconds;
  double r0;
  double r1;
  double before;     /* the integral of the rate up to t0 */
} Segment;

struct _RivArrivals
{
  GArray *segments;  /* Segment, in time order */
  double  duration;
  double  share;     /* of every rate */
  GRand  *rand;      /* Poisson process; NULL: evenly spaced */
  double  target;    /* the integral at which the next job is due */
  guint   segment;   /* where the last job was due */
  guint64 n_given;   /* jobs riv_arrivals_next () returned */
};

static RivArrivals *
arrivals_new (void)
{
  RivArrivals *self = g_new0 (RivArrivals, 1);

  self->segments = g_array_new (FALSE, FALSE, sizeof (Segment));
  self->share = 1;
  return self;
}

static void
add_segment (RivArrivals *self,
             double       seconds,
             double       r0,
             double       r1)
{
  Segment segment = { self->duration, seconds, r0, r1, 0 };

  if (self->segments->len > 0)
    {
      const Segment *last = &g_array_index (self->segments, Segment, self->segments->len - 1);

      segment.before = last->before + (last->r0 + last->r1) / 2 * last->seconds;
    }
  g_array_append_val (self->segments, segment);
  self->duration += seconds;
}

RivArrivals *
riv_arrivals_new_constant (double rate,
                           double duration)
{
  RivArrivals *self = arrivals_new ();

  add_segment (self, MAX (duration, 0), MAX (rate, 0), MAX (rate, 0));
  return self;
}

RivArrivals *
riv_arrivals_new_stages (double  start_rate,
                         GArray *stages)
{
  RivArrivals *self = arrivals_new ();
  double from = MAX (start_rate, 0);

  for (guint i = 0; stages != NULL && i < stages->len; i++)
    {
      const RivRateStage *stage = &g_array_index (stages, RivRateStage, i);

      add_segment (self, stage->seconds, from, stage->rate);
      from = stage->rate;
    }
  if (stages != NULL)
    g_array_unref (stages);
  return self;
}

void
riv_arrivals_free (RivArrivals *self)
{
  if (self == NULL)
    return;
  g_array_unref (self->segments);
  g_clear_pointer (&self->rand, g_rand_free);
  g_free (self);
}

void
riv_arrivals_set_poisson (RivArrivals *self,
                          guint32      seed)
{
  g_clear_pointer (&self->rand, g_rand_free);
  self->rand = g_rand_new_with_seed (seed);
}

void
riv_arrivals_set_share (RivArrivals *self,
                        double       share)
{
  self->share = share > 0 ? share : 1;
}

gboolean
riv_arrivals_is_poisson (RivArrivals *self)
{
  return self->rand != NULL;
}

double
riv_arrivals_get_duration (RivArrivals *self)
{
  return self->duration;
}

/* The segment holding t (the last one from its end on). */
static const Segment *
segment_at (RivArrivals *self,
            double       t)
{
  const Segment *found = NULL;

  for (guint i = 0; i < self->segments->len; i++)
    {
      found = &g_array_index (self->segments, Segment, i);
      if (t < found->t0 + found->seconds)
        break;
    }
  return found;
}

double
riv_arrivals_rate_at (RivArrivals *self,
                      double       t)
{
  const Segment *s = segment_at (self, t);
  double into;

  if (s == NULL || t < 0 || t >= self->duration)
    return 0;
  into = t - s->t0;
  return self->share * (s->seconds > 0 ? s->r0 + (s->r1 - s->r0) * into / s->seconds : s->r1);
}

double
riv_arrivals_expected (RivArrivals *self,
                       double       t)
{
  const Segment *s = segment_at (self, t);
  double into;

  if (s == NULL || t <= 0)
    return 0;
  into = CLAMP (t - s->t0, 0, s->seconds);
  if (s->seconds <= 0)
    return self->share * s->before;
  return self->share * (s->before + s->r0 * into +
                        (s->r1 - s->r0) * into * into / (2 * s->seconds));
}

double
riv_arrivals_get_peak_rate (RivArrivals *self)
{
  double peak = 0;

  for (guint i = 0; i < self->segments->len; i++)
    {
      const Segment *s = &g_array_index (self->segments, Segment, i);

      if (s->seconds > 0)
        peak = MAX (peak, MAX (s->r0, s->r1));
    }
  return self->share * peak;
}

/* The time the (unshared) integral reaches target, from segment *index on;
 * negative past the end. */
static double
solve (RivArrivals *self,
       double       target,
       guint       *index)
{
  for (; *index < self->segments->len; (*index)++)
    {
      const Segment *s = &g_array_index (self->segments, Segment, *index);
      double total = (s->r0 + s->r1) / 2 * s->seconds;
      double c = target - s->before;
      double a, b, root, into;

      if (s->seconds <= 0 || c > total)
        continue;
      if (c <= 0)
        return s->t0;
      /* r0·x + (r1 − r0)·x²/(2T) = c, the root in [0, T], in the form that
       * stays exact when the rate is constant (a = 0) or starts at 0 (b = 0). */
      a = (s->r1 - s->r0) / (2 * s->seconds);
      b = s->r0;
      root = b * b + 4 * a * c;
      if (root < 0 || b + sqrt (root) <= 0)
        continue;
      into = 2 * c / (b + sqrt (root));
      return s->t0 + MIN (into, s->seconds);
    }
  return -1;
}

double
riv_arrivals_next (RivArrivals *self)
{
  double t;

  /* Job k is due when the integral reaches k − 1 (the first at the start),
   * or at the next step of a unit-mean exponential walk. */
  if (self->rand != NULL)
    self->target += -log (1 - g_rand_double (self->rand));
  else if (self->n_given > 0)
    self->target += 1;
  t = solve (self, self->target / self->share, &self->segment);
  if (t < 0 || t >= self->duration - 1e-9)
    return -1;
  self->n_given++;
  return t;
}

void
riv_arrivals_tally_start (RivArrivalsTally *tally,
                          double            lag_s)
{
  tally->due++;
  tally->started++;
  if (lag_s > RIV_ARRIVALS_LATE_S)
    tally->late++;
  tally->max_lag_s = MAX (tally->max_lag_s, lag_s);
}

void
riv_arrivals_tally_drop (RivArrivalsTally *tally)
{
  tally->due++;
  tally->dropped++;
}
