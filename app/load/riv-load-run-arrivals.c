/* riv-load-run-arrivals.c
 * Copyright 2026 The Rivulet authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The arrival-rate load (the open model beside the virtual users' closed
 * one): a source ready at each job's time (riv-arrivals.h) starts the job on
 * an idle user's session; with none idle a new user joins the pool, up to
 * the run's users; past that the job is dropped and counted. A job's wait
 * past its time (the run's own loop running late) is tallied too.
 */
#include "config.h"

#include "riv-compat.h"
#include "riv-load-run-private.h"

/* Starts one job that was due lag_s ago, or drops it. */
static void
arrive (RivLoadRun *self,
        double      lag_s)
{
  ArrivalLoad *arrival = self->users.arrival;
  LoadUser *user = g_queue_pop_head (&arrival->idle);

  if (user == NULL && self->users.all_users->len >= self->params.users)
    {
      riv_arrivals_tally_drop (&arrival->tally);
      riv_load_stats_add_dropped (self->stats);
      return;
    }
  riv_arrivals_tally_start (&arrival->tally, lag_s);
  if (user == NULL)
    {
      _riv_load_run_user_start (self, _riv_load_run_user_add (self));
      return;
    }
  /* The client and all it starts belong to the user's context. */
  g_main_context_push_thread_default (user->context);
  _riv_load_run_user_next (user);
  g_main_context_pop_thread_default (user->context);
  g_main_context_wakeup (user->context);
}

/* The schedule is over: idle users stop now, busy ones after their job. */
static void
arrivals_over (RivLoadRun *self)
{
  LoadUser *user;

  self->schedule_over = TRUE;
  self->submitting_done = TRUE;
  if (self->brk.ramp_end <= 0)
    self->brk.ramp_end = riv_now ();
  while ((user = g_queue_pop_head (&self->users.arrival->idle)) != NULL)
    _riv_load_run_user_stop (user);
}

static gboolean
arrival_cb (gpointer data)
{
  RivLoadRun *self = data;
  ArrivalLoad *arrival = self->users.arrival;
  double now = _riv_load_run_elapsed (self);

  while (arrival->due >= 0 && arrival->due <= now && !self->stopped)
    {
      arrive (self, now - arrival->due);
      arrival->due = riv_arrivals_next (arrival->schedule);
    }
  if (arrival->due < 0 || self->stopped)
    {
      g_clear_pointer (&arrival->source, g_source_unref);
      arrivals_over (self);
      _riv_load_run_maybe_done (self);
      return G_SOURCE_REMOVE;
    }
  g_source_set_ready_time (arrival->source,
                           (gint64) ((self->counts.start + arrival->due) * G_USEC_PER_SEC));
  return G_SOURCE_CONTINUE;
}

static gboolean
arrival_dispatch (GSource     *source,
                  GSourceFunc  callback,
                  gpointer     data)
{
  return callback (data);
}

static GSourceFuncs arrival_funcs = { NULL, NULL, arrival_dispatch, NULL, NULL, NULL };

void
_riv_load_run_arrivals_start (RivLoadRun *self)
{
  ArrivalLoad *arrival = self->users.arrival;

  arrival->due = riv_arrivals_next (arrival->schedule);
  arrival->source = g_source_new (&arrival_funcs, sizeof (GSource));
  /* Ahead of the users' replies: a job starts on time when it can. */
  g_source_set_priority (arrival->source, G_PRIORITY_DEFAULT - 10);
  g_source_set_ready_time (arrival->source, 0);
  _riv_load_run_add_source (self, arrival->source, arrival_cb, self);
}

void
_riv_load_run_arrivals_user_idle (LoadUser *user)
{
  RivLoadRun *self = user->run;

  g_clear_object (&user->job);
  if (user->client == NULL)
    return;
  if (self->schedule_over || self->stopped)
    _riv_load_run_user_stop (user);
  else
    g_queue_push_head (&self->users.arrival->idle, user);
}

void
_riv_load_run_arrivals_free (RivLoadRun *self)
{
  if (self->users.arrival == NULL)
    return;
  _riv_load_run_destroy_source (&self->users.arrival->source);
  g_queue_clear (&self->users.arrival->idle);
}
