/* riv-load-run-state.c
 * Copyright 2026 The Rivulet authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * What the owner reads of a RivLoadRun while it works and after: whether it
 * runs, how it ended, its counts and figures. A run on its own thread (or on
 * several) answers from the snapshot its last sample brought; a run on the
 * owner's thread from its own state.
 */
#include "config.h"

#include "riv-load-run-private.h"

/* A counter as the owner may read it: while the run works on its own thread,
 * as of the last message from there. */
#define SHOWN(self, field) \
  ((self)->threads.thread != NULL ? (self)->threads.shown.field : (self)->counts.field)

/* Messages received by the run's clients (its users' and the connected one). */
guint64
_riv_load_run_count_events (RivLoadRun *self)
{
  guint64 events = riv_client_get_n_messages (self->params.client) + self->counts.user_events;

  for (guint i = 0; self->users.all_users != NULL && i < self->users.all_users->len; i++)
    {
      LoadUser *user = g_ptr_array_index (self->users.all_users, i);

      if (user->client != NULL)
        events += riv_client_get_n_messages (user->client);
    }
  return events;
}

gboolean
riv_load_run_is_running (RivLoadRun *self)
{
  g_return_val_if_fail (RIV_IS_LOAD_RUN (self), FALSE);

  return self->started && !self->done;
}

gboolean
riv_load_run_is_finished (RivLoadRun *self)
{
  g_return_val_if_fail (RIV_IS_LOAD_RUN (self), FALSE);

  return self->done;
}

gboolean
riv_load_run_was_stopped (RivLoadRun *self)
{
  g_return_val_if_fail (RIV_IS_LOAD_RUN (self), FALSE);

  return self->stopped;
}

gboolean
riv_load_run_was_interrupted (RivLoadRun *self)
{
  g_return_val_if_fail (RIV_IS_LOAD_RUN (self), FALSE);

  return self->interrupted;
}

const char *
riv_load_run_get_usage_error (RivLoadRun *self)
{
  g_return_val_if_fail (RIV_IS_LOAD_RUN (self), NULL);

  return self->usage_error;
}

RivLoadStats *
riv_load_run_get_stats (RivLoadRun *self)
{
  g_return_val_if_fail (RIV_IS_LOAD_RUN (self), NULL);

  return self->stats;
}

GPtrArray *
riv_load_run_get_records (RivLoadRun *self)
{
  g_return_val_if_fail (RIV_IS_LOAD_RUN (self), NULL);

  return self->records;
}

double
riv_load_run_get_elapsed (RivLoadRun *self)
{
  g_return_val_if_fail (RIV_IS_LOAD_RUN (self), 0);

  return self->threads.thread != NULL ? self->threads.shown.elapsed : _riv_load_run_elapsed (self);
}

guint64
riv_load_run_get_submitted (RivLoadRun *self)
{
  g_return_val_if_fail (RIV_IS_LOAD_RUN (self), 0);

  return SHOWN (self, submitted);
}

guint64
riv_load_run_get_finished (RivLoadRun *self)
{
  g_return_val_if_fail (RIV_IS_LOAD_RUN (self), 0);

  return SHOWN (self, finished);
}

guint64
riv_load_run_get_completed (RivLoadRun *self)
{
  g_return_val_if_fail (RIV_IS_LOAD_RUN (self), 0);

  return SHOWN (self, outcomes.completed);
}

guint64
riv_load_run_get_failed (RivLoadRun *self)
{
  g_return_val_if_fail (RIV_IS_LOAD_RUN (self), 0);

  return SHOWN (self, outcomes.failed);
}

guint64
riv_load_run_get_lost (RivLoadRun *self)
{
  g_return_val_if_fail (RIV_IS_LOAD_RUN (self), 0);

  return SHOWN (self, outcomes.lost);
}

guint
riv_load_run_get_active_users (RivLoadRun *self)
{
  g_return_val_if_fail (RIV_IS_LOAD_RUN (self), 0);

  return SHOWN (self, active_users);
}

guint
riv_load_run_get_peak_users (RivLoadRun *self)
{
  g_return_val_if_fail (RIV_IS_LOAD_RUN (self), 0);

  return SHOWN (self, peak_users);
}

guint
riv_load_run_get_target_users (RivLoadRun *self)
{
  guint target;

  g_return_val_if_fail (RIV_IS_LOAD_RUN (self), 0);

  target = self->params.users;
  for (guint i = 0; self->params.stages != NULL && i < self->params.stages->len; i++)
    target = MAX (target, g_array_index (self->params.stages, RivLoadStage, i).target);
  return _riv_load_run_shard_share (self, target);
}

guint64
riv_load_run_get_n_events (RivLoadRun *self)
{
  g_return_val_if_fail (RIV_IS_LOAD_RUN (self), 0);

  return self->threads.thread != NULL ? self->threads.shown.events
                                      : _riv_load_run_count_events (self);
}

void
riv_load_run_get_streams (RivLoadRun *self,
                          guint      *open,
                          guint64    *bytes)
{
  guint64 received;
  guint streams;

  g_return_if_fail (RIV_IS_LOAD_RUN (self));
  received = riv_client_get_n_stream_bytes (self->params.client) + self->counts.user_bytes;
  streams = riv_client_get_stream_state (self->params.client) == RIV_STREAM_STATE_CONNECTED;
  for (guint i = 0; self->users.all_users != NULL && i < self->users.all_users->len; i++)
    {
      LoadUser *user = g_ptr_array_index (self->users.all_users, i);

      if (user->client == NULL)
        continue;
      received += riv_client_get_n_stream_bytes (user->client);
      streams += riv_client_get_stream_state (user->client) == RIV_STREAM_STATE_CONNECTED;
    }
  *open = streams;
  *bytes = received;
}

guint64 *
riv_load_run_dup_batch_sizes (RivLoadRun *self,
                              guint      *max_size)
{
  g_return_val_if_fail (RIV_IS_LOAD_RUN (self), NULL);
  g_return_val_if_fail (max_size != NULL, NULL);

  if (self->threads.thread == NULL)
    return riv_load_stats_batch_sizes (self->stats, max_size);
  *max_size = self->threads.shown_batch_max;
  return self->threads.shown_batches != NULL
    ? g_memdup2 (self->threads.shown_batches,
                 (self->threads.shown_batch_max + 1) * sizeof (guint64))
    : g_new0 (guint64, 1);
}

double
riv_load_run_get_schedule (RivLoadRun *self)
{
  double total = 0;

  g_return_val_if_fail (RIV_IS_LOAD_RUN (self), 0);

  if (self->params.stages == NULL)
    return self->params.duration;
  for (guint i = 0; i < self->params.stages->len; i++)
    total += g_array_index (self->params.stages, RivLoadStage, i).seconds;
  return total;
}
