/* riv-load-series.h
 * Copyright 2026 The Rivulet authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The per-second series of a load run (RivLoadSample, riv-load-stats.h),
 * kept as its jobs are counted rather than from a list of every job: one
 * slot a second since the run's first submit, holding the second's counts,
 * the +1/-1 ends of the spans (in flight, queued) that begin or end in it,
 * and sketches (riv-sketch.h) of the latencies and times to first update of
 * the jobs that completed in it. With close_behind, a second more than
 * RIV_LOAD_SERIES_LAG_S behind the latest end counted is closed: its
 * percentiles are taken and its sketches freed, so a run holds a few dozen
 * bytes a second whatever its rate. Jobs that did not end (lost when the run
 * stopped) are kept until the samples are made: they last to the run's end.
 * No locking: RivLoadStats locks around it.
 */
#pragma once

#include "riv-load-stats.h"

G_BEGIN_DECLS

/* Seconds behind the latest end a second stays open for late jobs. */
#define RIV_LOAD_SERIES_LAG_S 30

typedef struct _RivLoadSeries RivLoadSeries;

/* One job as the series counts it (wall clock, Unix seconds). */
typedef struct
{
  double       submitted_at;
  double       began;       /* < 0: never started */
  double       ended;       /* < 0: did not end */
  double       latency_s;
  double       first_s;     /* < 0: none */
  RivJobStatus status;
  guint        updates;
  guint        user;        /* 0: none */
  guint        stalls;
} RivLoadSeriesJob;

/* origin: the run's first submit; seconds are counted from it. */
RivLoadSeries *riv_load_series_new      (double                  origin,
                                         gboolean                close_behind);
void           riv_load_series_free     (RivLoadSeries          *self);
double         riv_load_series_get_origin (RivLoadSeries        *self);
void           riv_load_series_add      (RivLoadSeries          *self,
                                         const RivLoadSeriesJob *job);
/* RivLoadSample, one a second from the origin to end (the run's end). */
GArray        *riv_load_series_samples  (RivLoadSeries          *self,
                                         double                  end);
/* Per second of samples (n of them): whether a job lost in it was submitted
 * in an earlier second. Free with g_free. */
gboolean      *riv_load_series_lost_after (RivLoadSeries        *self,
                                           guint                 n);
/* Memory held, bytes (for the tests). */
gsize          riv_load_series_get_size (RivLoadSeries          *self);

G_END_DECLS
