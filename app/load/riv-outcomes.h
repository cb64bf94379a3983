/* riv-outcomes.h
 * Copyright 2026 The Rivulet authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * What became of jobs, counted the one way everything that counts them
 * does (the load run, its statistics and samples, /metrics, the window's
 * burst summary): completed, failed, cancelled or lost. A job counted before
 * it reached an end (the run stopped first) counts as lost.
 */
#pragma once

#include "riv-job.h"

G_BEGIN_DECLS

typedef struct
{
  guint64 completed;
  guint64 failed;
  guint64 cancelled;
  guint64 lost;
} RivOutcomes;

/* Counts one job that ended with status; returns the status it was counted
 * as (RIV_JOB_STATUS_LOST for any status that is not an end). */
RivJobStatus riv_outcomes_add      (RivOutcomes       *outcomes,
                                    RivJobStatus       status);
/* The jobs counted, whatever their outcome. */
guint64      riv_outcomes_finished (const RivOutcomes *outcomes);
/* Adds other's counts to outcomes' (the threads of one run). */
void         riv_outcomes_merge    (RivOutcomes       *outcomes,
                                    const RivOutcomes *other);

G_END_DECLS
