/* riv-load-run-break.c
 * Copyright 2026 The Rivulet authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Breakpoint tests (--until-break): the first failed, lost or stalled job, or a
 * live threshold that fails (on the jobs its tag names: a scenario's, an
 * endpoint's), stops the ramp and keeps where the run was.
 */
#include "config.h"

#include "riv-compat.h"
#include "riv-load-run-private.h"

/* ---- breakpoint ---- */

/* The first failure of a breakpoint test of a job sent while the ramp went
 * (job NULL: now): keeps where the run was and stops the ramp; the jobs in
 * flight end as they will. Later failures only add their class. A timeout
 * shows late: the load is then taken as it was when the job was sent. */
void
_riv_load_run_break_at (RivLoadRun   *self,
                        RivBreakKind  kind,
                        const char   *error,
                        RivJob       *job)
{
  RivJob *stalled = kind == RIV_BREAK_TIMEOUT ? job : NULL;

  g_autoptr(GArray) recent = NULL;
  RivLoadBreakpoint *bp;
  double span;

  if (!self->brk.until_break)
    return;
  if (self->brk.breakpoint != NULL)
    {
      self->brk.break_seen |= 1u << kind;
      return;
    }
  if (self->stopped || (self->submitting_done &&
                         (job == NULL || self->brk.ramp_end <= 0 ||
                          riv_job_get_submitted_at (job) > self->brk.ramp_end)))
    return;   /* sent after the ramp ended: nothing broke during it */

  bp = g_new0 (RivLoadBreakpoint, 1);
  bp->t = _riv_load_run_elapsed (self);
  bp->users = self->counts.active_users;
  bp->sessions = self->params.users > 0 || self->params.stages != NULL ? self->brk.sessions : 1;
  span = bp->t - self->brk.before_last_t;
  bp->rate_per_s = span > 0 ? (self->counts.submitted - self->brk.before_last_started) / span : 0;
  recent = g_array_copy (self->brk.prev_latencies);
  g_array_append_vals (recent, self->window.latencies->data, self->window.latencies->len);
  g_array_sort (recent, riv_load_compare_doubles);
  /* Nothing completed in the last second or two (a queue that stopped): the
   * last window that had completions. */
  bp->p95_s_before = recent->len > 0
    ? riv_load_percentile ((const double *) (gpointer) recent->data, recent->len, 0.95)
    : self->brk.last_p95;
  if (stalled != NULL && g_object_get_qdata (G_OBJECT (stalled), _riv_load_run_load_at_quark ()) != NULL)
    {
      const LoadAt *at = g_object_get_qdata (G_OBJECT (stalled), _riv_load_run_load_at_quark ());

      bp->t = at->t;
      bp->rate_per_s = at->rate;
      bp->p95_s_before = at->p95;
      bp->users = at->users;
      bp->sessions = at->sessions;
    }
  bp->error = g_strdup (error);
  self->brk.breakpoint = bp;
  self->brk.break_kind = kind;

  /* Stop the ramp: no new user, no new open-loop job; users stop after
   * their job in flight. */
  self->schedule_over = TRUE;
  self->submitting_done = TRUE;
  self->params.count = (guint) MIN (self->counts.submitted, G_MAXUINT);
  _riv_load_run_destroy_source (&self->sources.tick_source);
  _riv_load_run_open_loop_stop (self);
}

/* A breakpoint test does not wait for the client's own join timeout (a
 * minute) to see a server that stopped answering: a join unanswered this
 * long counts as timed out. Real Gradio on 2 busy cores took over 10 s to
 * answer joins long before its limit. */
#define BREAK_JOIN_STALL_S 30.0

void
_riv_load_run_break_check_stalls (RivLoadRun *self)
{
  GHashTableIter iter;
  gpointer key;
  RivJob *oldest = NULL;
  double now = riv_now ();
  g_autofree char *text = NULL;

  if (!self->brk.until_break || self->brk.breakpoint != NULL || self->stopped)
    return;
  /* The check runs once a second, so several joins may have gone past the
   * stall since the last one: the load is the one of the first sent. */
  g_hash_table_iter_init (&iter, self->in_flight);
  while (g_hash_table_iter_next (&iter, &key, NULL))
    if (riv_job_get_status (key) <= RIV_JOB_STATUS_JOINING &&
        now - riv_job_get_submitted_at (key) > BREAK_JOIN_STALL_S &&
        (oldest == NULL || riv_job_get_submitted_at (key) < riv_job_get_submitted_at (oldest)))
      oldest = key;
  if (oldest == NULL)
    return;
  text = g_strdup_printf ("The server did not answer a join request within %g s",
                          BREAK_JOIN_STALL_S);
  _riv_load_run_break_at (self, RIV_BREAK_TIMEOUT, text, oldest);
}

/* Thresholds that can be judged while the run goes, on the run so far. */
void
_riv_load_run_break_check_thresholds (RivLoadRun *self)
{
  RivLoadSummary summary;

  if (!self->brk.until_break || self->brk.break_thresholds == NULL ||
      self->brk.breakpoint != NULL || self->submitting_done)
    return;
  for (guint i = 0; i < self->brk.break_thresholds->len; i++)
    {
      RivLoadThreshold *threshold = g_ptr_array_index (self->brk.break_thresholds, i);
      const char *value;
      const char *key = riv_load_threshold_get_tag (threshold, &value);
      /* A tag names some jobs: a scenario's, or an endpoint's (the caller
       * checked it names the run's; without scenarios, its one). */
      RivLoadStats *stats = riv_load_run_get_tagged_stats (self, key, value);
      g_autofree char *text = NULL;
      g_autofree char *failure = NULL;
      double measured;

      riv_load_stats_summarize (stats != NULL ? stats : self->stats, &summary);
      if (!riv_load_threshold_is_live (threshold, &summary) ||
          riv_load_threshold_check (threshold, &summary, &measured))
        continue;
      failure = riv_load_threshold_describe_failure (threshold, measured);
      text = key != NULL ? g_strdup_printf ("%s %s: %s", key, value, failure)
                         : g_steal_pointer (&failure);
      _riv_load_run_break_at (self, RIV_BREAK_THRESHOLD, text, NULL);
      return;
    }
}

/* At the end: the breakpoint named by its first failure, or by a later one
 * that says more when the first was a bare failure or loss. */
void
_riv_load_run_break_name (RivLoadRun *self)
{
  RivBreakKind kind = self->brk.break_kind;

  if (self->brk.breakpoint == NULL)
    return;
  if (kind == RIV_BREAK_FAILED || kind == RIV_BREAK_LOST)
    for (guint k = RIV_BREAK_N_KINDS; k-- > RIV_BREAK_THRESHOLD;)
      if (self->brk.break_seen & (1u << k))
        {
          kind = k;
          break;
        }
  g_free (self->brk.breakpoint->reason);
  self->brk.breakpoint->reason = _riv_load_break_reason (kind, self->brk.breakpoint,
                                                     self->brk.breakpoint->error);
}

void
_riv_load_run_breakpoint_free (RivLoadBreakpoint *bp)
{
  g_free (bp->reason);
  g_free (bp->error);
  g_free (bp);
}

void
riv_load_run_set_until_break (RivLoadRun *self,
                              GPtrArray  *thresholds)
{
  g_return_if_fail (RIV_IS_LOAD_RUN (self));
  g_return_if_fail (!self->started);

  self->brk.until_break = TRUE;
  g_clear_pointer (&self->brk.break_thresholds, g_ptr_array_unref);
  if (thresholds != NULL)
    self->brk.break_thresholds = g_ptr_array_ref (thresholds);
}

void
riv_load_run_break_now (RivLoadRun *self,
                        const char *why)
{
  g_return_if_fail (RIV_IS_LOAD_RUN (self));
  g_return_if_fail (why != NULL);

  _riv_load_run_break_at (self, RIV_BREAK_THRESHOLD, why, NULL);
}

gboolean
riv_load_run_has_broken (RivLoadRun *self)
{
  g_return_val_if_fail (RIV_IS_LOAD_RUN (self), FALSE);

  return self->brk.breakpoint != NULL;
}

const RivLoadBreakpoint *
riv_load_run_get_breakpoint (RivLoadRun *self)
{
  g_return_val_if_fail (RIV_IS_LOAD_RUN (self), NULL);

  return self->done ? self->brk.breakpoint : NULL;
}
