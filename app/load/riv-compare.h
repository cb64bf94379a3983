/* riv-compare.h
 * Copyright 2026 The Rivulet authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Two load runs compared (rivulet-cli report compare A.jsonl B.jsonl, and the
 * window's previous run beside the new one): each run's headline figures,
 * overall and per endpoint, side by side with the change from A to B and
 * whether that change is beyond the runs' own noise.
 *
 * Noise, as stated in every output. Jobs of one run are not independent
 * (a slow second slows every job in it), so a test over jobs would find
 * "changes" between two runs of the same server. Each run's span is cut
 * into 10 blocks by submit time (5 when a block would hold under 20 jobs;
 * the jobs are kept in 40 slots of time, 0.25 s wide or wider)
 * and every figure is also computed per block; a change is beyond noise
 * when a Mann–Whitney rank test finds B's block values apart from A's
 * (p < 0.05) and the change is at least the least change asked for
 * (5 % of A by default; for the error rate, one point). Under five blocks a
 * run: "not enough jobs to say". Besides, the whole latency distributions
 * are rank-tested job against job: P(B > A), the chance that a job of B
 * took longer than one of A, with its p (informative, not a verdict).
 *
 * Not thread-safe: one thread adds at a time (a load run adds under its
 * statistics' lock) and figures are read once the adding is done.
 *
 * Memory is bounded in the number of jobs: the values are kept in sketches
 * (RivSketch, 1/256 relative error) and per-second counts.
 */
#pragma once

#include <json-glib/json-glib.h>

#include "riv-sketch.h"

G_BEGIN_DECLS

typedef struct _RivCompare RivCompare;

typedef enum
{
  RIV_COMPARE_LOWER_IS_BETTER,   /* latencies, errors */
  RIV_COMPARE_HIGHER_IS_BETTER,  /* throughput */
} RivCompareSense;

/* One figure of one group, both runs. */
typedef struct
{
  const char     *name;          /* "p95", "ttfu_p50", "throughput", "error_rate" */
  const char     *label;         /* "latency p95" */
  const char     *unit;          /* "s", "/s", "" */
  RivCompareSense sense;
  gboolean        known[2];      /* whether run A / B has this figure */
  double          value[2];
  gboolean        tested;        /* both runs had enough blocks to test */
  double          p_value;       /* the blocks' rank test, 1 when untested */
  gboolean        beyond_noise;
} RivCompareFigure;

typedef struct
{
  const char *text;
  guint64     count[2];
} RivCompareError;

/* The least relative change called beyond noise, by default. */
#define RIV_COMPARE_MIN_CHANGE_DEFAULT 0.05

RivCompare *riv_compare_new            (void);
RivCompare *riv_compare_ref            (RivCompare  *self);
void        riv_compare_unref          (RivCompare  *self);
/* Each run's span (first submit, last end, on the records' clock), before
 * its first job is added: the blocks are cut from it. Without it, the
 * blocks are cut from the time between the first job's submit and the
 * last's, whatever order jobs come in (a job submitted before the first
 * one added counts in the first block). */
void        riv_compare_set_span       (RivCompare  *self,
                                        guint        run,
                                        double       start,
                                        double       end);
/* Run B becomes run A and B is empty again: the window's newest run
 * becomes the previous one when the next starts. */
void        riv_compare_shift          (RivCompare  *self);
/* The least relative change (0.05 is 5 %) called beyond noise. */
void        riv_compare_set_min_change (RivCompare  *self,
                                        double       min_change);

/* Adds one per-job record (rivulet-cli load --output) of run 0 (A) or 1 (B).
 * FALSE with an error for a record that lacks what a record must have. */
gboolean    riv_compare_add_record     (RivCompare  *self,
                                        guint        run,
                                        JsonObject  *record,
                                        GError     **error);
/* Adds one job without a record (the window's runs). endpoint nullable;
 * status: "completed", "failed", "cancelled" or "lost"; latency_s and
 * first_update_s < 0 when unknown; ended_at: when it ended, seconds on any
 * clock shared by the run's jobs. */
void        riv_compare_add_job        (RivCompare  *self,
                                        guint        run,
                                        const char  *endpoint,
                                        const char  *status,
                                        double       latency_s,
                                        double       first_update_s,
                                        double       submitted_at,
                                        double       ended_at,
                                        const char  *error_text);

/* The groups: 0 is every endpoint together, then one per endpoint in
 * either run, sorted by name. */
guint       riv_compare_get_n_groups   (RivCompare  *self);
/* NULL for group 0. */
const char *riv_compare_get_group_name (RivCompare  *self,
                                        guint        group);
guint64     riv_compare_get_jobs       (RivCompare  *self,
                                        guint        group,
                                        guint        run);
/* The group's figures (riv_compare_get_n_groups () first), owned by self. */
const RivCompareFigure *riv_compare_get_figures (RivCompare *self,
                                                 guint       group,
                                                 guint      *n_figures);
/* The Mann–Whitney test of the group's latencies: P(B > A) (ties count one
 * half) and the two-sided p. FALSE when a run has no completed job. */
gboolean    riv_compare_rank_test      (RivCompare  *self,
                                        guint        group,
                                        double      *p_b_slower,
                                        double      *p_value);
/* The group's errors by text, most frequent (A + B) first; free the array. */
GArray     *riv_compare_get_errors     (RivCompare  *self,
                                        guint        group);
/* The group's latencies of one run (for charts). */
const RivSketch *riv_compare_get_latencies (RivCompare *self,
                                            guint       group,
                                            guint       run);

/* "worse, beyond noise", "better, beyond noise", "within noise" or "not
 * enough jobs to say". */
const char *riv_compare_figure_verdict (const RivCompareFigure *figure);
/* How noise was judged, in one paragraph (for every output). */
char       *riv_compare_describe_method (RivCompare *self);

/* The change of a figure from A to B: B/A for ratio, B − A for diff.
 * FALSE when it cannot be said (a run lacks it, or A is 0 for a ratio). */
gboolean    riv_compare_figure_ratio   (const RivCompareFigure *figure,
                                        double                 *ratio);

/* A gate on the change: "p95 ratio<1.10", "throughput ratio>=0.9",
 * "error_rate diff<0.01", "ttfu_p95{endpoint:/chat} ratio<1.2". */
typedef struct _RivCompareThreshold RivCompareThreshold;

RivCompareThreshold *riv_compare_threshold_parse (const char  *text,
                                                  GError     **error);
void        riv_compare_threshold_free (RivCompareThreshold *self);
const char *riv_compare_threshold_get_text (const RivCompareThreshold *self);
/* Whether the threshold holds on self; measured gets the change (NaN when
 * it could not be measured, which fails). */
gboolean    riv_compare_threshold_check (const RivCompareThreshold *self,
                                         RivCompare                *compare,
                                         double                    *measured);

/* The page: both runs' figures per group, their latency distributions drawn
 * over each other, errors by text, thresholds. names: how A and B are called
 * (file names). measured/held: n_thresholds of each. */
char       *riv_compare_html           (RivCompare                 *self,
                                        const char                 *name_a,
                                        const char                 *name_b,
                                        RivCompareThreshold * const *thresholds,
                                        const double               *measured,
                                        const gboolean             *held,
                                        guint                       n_thresholds);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (RivCompare, riv_compare_unref)
G_DEFINE_AUTOPTR_CLEANUP_FUNC (RivCompareThreshold, riv_compare_threshold_free)

G_END_DECLS
