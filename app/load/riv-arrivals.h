/* riv-arrivals.h
 * Copyright 2026 The Rivulet authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The arrival-rate load's schedule (k6's constant- and ramping-arrival-rate,
 * the serving benchmarks' Poisson arrivals): when each job is due, and what
 * became of the jobs that were due. The rate starts at a given value and
 * follows stages (each a linear ramp to its target rate over its duration),
 * or stays constant for a duration. Arrivals are evenly spaced (job k is due
 * when the integral of the rate reaches k) or a Poisson process (the
 * integral's steps between two jobs are exponential with mean 1). Pure
 * arithmetic: the load run (riv-load-run-users.c) keeps the clock.
 */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

typedef struct
{
  double seconds;   /* how long the ramp takes */
  double rate;      /* jobs a second at its end */
} RivRateStage;

typedef struct _RivArrivals RivArrivals;

/* "DURATION:RATE,…" (durations as --stages takes them; rates in jobs a
 * second, decimals allowed, up to 100,000). The error names the stage. */
gboolean      riv_arrivals_parse_stages  (const char   *text,
                                          GArray      **stages,
                                          GError      **error);

/* rate jobs a second from 0 for duration seconds. */
RivArrivals  *riv_arrivals_new_constant  (double        rate,
                                          double        duration);
/* From start_rate, through stages (RivRateStage; taken). */
RivArrivals  *riv_arrivals_new_stages    (double        start_rate,
                                          GArray       *stages);
void          riv_arrivals_free          (RivArrivals  *self);
/* Before the first riv_arrivals_next (): a Poisson process drawn from seed. */
void          riv_arrivals_set_poisson   (RivArrivals  *self,
                                          guint32       seed);
/* Before the first riv_arrivals_next (): this share of every rate (a shard
 * of a run split N ways takes 1/N). */
void          riv_arrivals_set_share     (RivArrivals  *self,
                                          double        share);

/* The time (seconds from the start) the next job is due, or a negative
 * number when the schedule ends before another. Each call moves on by one. */
double        riv_arrivals_next          (RivArrivals  *self);
/* The schedule's length in seconds. */
double        riv_arrivals_get_duration  (RivArrivals  *self);
/* The rate at t seconds (with the share). */
double        riv_arrivals_rate_at       (RivArrivals  *self,
                                          double        t);
/* The jobs the schedule asks for up to t: the rate's integral (with the
 * share). */
double        riv_arrivals_expected      (RivArrivals  *self,
                                          double        t);
gboolean      riv_arrivals_is_poisson    (RivArrivals  *self);
/* The peak rate of the schedule (with the share). */
double        riv_arrivals_get_peak_rate (RivArrivals  *self);

/* What became of the jobs that were due. */
typedef struct
{
  guint64 due;          /* arrivals whose time came */
  guint64 started;      /* submitted on a user's session */
  guint64 dropped;      /* not started: every user busy and the pool at its limit */
  guint64 late;         /* started more than RIV_ARRIVALS_LATE_S after their time */
  double  max_lag_s;    /* the longest a started job waited past its time */
} RivArrivalsTally;

/* A job started this long after its time was not started on time. */
#define RIV_ARRIVALS_LATE_S 0.1

void          riv_arrivals_tally_start   (RivArrivalsTally *tally,
                                          double            lag_s);
void          riv_arrivals_tally_drop    (RivArrivalsTally *tally);

G_END_DECLS
