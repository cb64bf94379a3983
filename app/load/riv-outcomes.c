/* riv-outcomes.c
 * Copyright 2026 The Rivulet authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "config.h"

#include "riv-outcomes.h"

RivJobStatus
riv_outcomes_add (RivOutcomes  *outcomes,
                  RivJobStatus  status)
{
  g_return_val_if_fail (outcomes != NULL, status);

  switch (status)
    {
    case RIV_JOB_STATUS_COMPLETED:
      outcomes->completed++;
      return status;
    case RIV_JOB_STATUS_FAILED:
      outcomes->failed++;
      return status;
    case RIV_JOB_STATUS_CANCELLED:
      outcomes->cancelled++;
      return status;
    case RIV_JOB_STATUS_LOST:
    case RIV_JOB_STATUS_PENDING:
    case RIV_JOB_STATUS_JOINING:
    case RIV_JOB_STATUS_QUEUED:
    case RIV_JOB_STATUS_RUNNING:
    case RIV_JOB_STATUS_STREAMING:
    default:
      outcomes->lost++;
      return RIV_JOB_STATUS_LOST;
    }
}

guint64
riv_outcomes_finished (const RivOutcomes *outcomes)
{
  g_return_val_if_fail (outcomes != NULL, 0);

  return outcomes->completed + outcomes->failed + outcomes->cancelled + outcomes->lost;
}

void
riv_outcomes_merge (RivOutcomes       *outcomes,
                    const RivOutcomes *other)
{
  g_return_if_fail (outcomes != NULL && other != NULL);

  outcomes->completed += other->completed;
  outcomes->failed += other->failed;
  outcomes->cancelled += other->cancelled;
  outcomes->lost += other->lost;
}
