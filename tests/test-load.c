/* test-load.c
 * Copyright 2026 The Rivulet authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The load engine in this process: what became of jobs counted one way
 * (RivOutcomes).
 */
#include "config.h"

#include "riv-outcomes.h"

/* Every end is counted as itself; a job counted before it ended is lost. */
static void
test_outcomes (void)
{
  RivOutcomes outcomes = { 0 };
  const RivJobStatus unfinished[] = {
    RIV_JOB_STATUS_PENDING, RIV_JOB_STATUS_JOINING, RIV_JOB_STATUS_QUEUED,
    RIV_JOB_STATUS_RUNNING, RIV_JOB_STATUS_STREAMING,
  };

  g_assert_cmpuint (riv_outcomes_finished (&outcomes), ==, 0);

  for (guint i = 0; i < 3; i++)
    g_assert_cmpint (riv_outcomes_add (&outcomes, RIV_JOB_STATUS_COMPLETED), ==,
                     RIV_JOB_STATUS_COMPLETED);
  g_assert_cmpint (riv_outcomes_add (&outcomes, RIV_JOB_STATUS_FAILED), ==, RIV_JOB_STATUS_FAILED);
  g_assert_cmpint (riv_outcomes_add (&outcomes, RIV_JOB_STATUS_CANCELLED), ==,
                   RIV_JOB_STATUS_CANCELLED);
  g_assert_cmpint (riv_outcomes_add (&outcomes, RIV_JOB_STATUS_LOST), ==, RIV_JOB_STATUS_LOST);
  for (guint i = 0; i < G_N_ELEMENTS (unfinished); i++)
    g_assert_cmpint (riv_outcomes_add (&outcomes, unfinished[i]), ==, RIV_JOB_STATUS_LOST);

  g_assert_cmpuint (outcomes.completed, ==, 3);
  g_assert_cmpuint (outcomes.failed, ==, 1);
  g_assert_cmpuint (outcomes.cancelled, ==, 1);
  g_assert_cmpuint (outcomes.lost, ==, 1 + G_N_ELEMENTS (unfinished));
  g_assert_cmpuint (riv_outcomes_finished (&outcomes), ==, 6 + G_N_ELEMENTS (unfinished));
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/load/outcomes", test_outcomes);

  return g_test_run ();
}
