/* riv-client-jobs.c
 * Copyright 2026 The Rivulet authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The client's side of a job that is not terminal yet (RivJobCtx, the job's
 * owner data), as pure state: applying each message to it, handing streamed
 * outputs to the job at most once per publish interval, and ending it with
 * its counts. It calls no transport and announces nothing: each function
 * says what changed (RivJobUpdate, RivJobEnded, a boolean) and the caller
 * acts on it (riv-client-stream.c: an image fetched, the publish timer, the
 * liveness watchdog, notifications and job-finished).
 */
#include "config.h"

#include <string.h>

#include "riv-client-private.h"
#include "riv-compat.h"

static void
values_clear (RivJobCtx *ctx)
{
  for (guint i = 0; i < ctx->n_values; i++)
    riv_diff_value_free (ctx->values[i]);
  if (ctx->values != ctx->values_inline)
    g_free (ctx->values);
  ctx->values = NULL;
  ctx->n_values = 0;
  ctx->has_values = FALSE;
}

/* Room for n values (the first n_values kept). */
static void
values_reserve (RivJobCtx *ctx,
                guint      n)
{
  RivDiffValue **values;

  if (n <= G_N_ELEMENTS (ctx->values_inline))
    values = ctx->values_inline;
  else if (ctx->values != ctx->values_inline)
    values = g_renew (RivDiffValue *, ctx->values, n);
  else
    values = g_new (RivDiffValue *, n);

  if (values != ctx->values && ctx->n_values > 0)
    memcpy (values, ctx->values, ctx->n_values * sizeof *values);
  ctx->values = values;
}

void
_riv_client_job_ctx_free (gpointer data)
{
  RivJobCtx *ctx = data;

  _riv_client_clear_source (&ctx->cancel_grace);
  values_clear (ctx);
  g_clear_pointer (&ctx->config, riv_config_unref);
  g_free (ctx);
}

/* The job's join request has its answer, or no longer needs one: TRUE when
 * that took it off "n-joining" (the caller notifies). */
gboolean
_riv_client_joining_done (RivClient *self,
                          RivJobCtx *ctx)
{
  if (ctx == NULL || !ctx->counted_joining)
    return FALSE;

  ctx->counted_joining = FALSE;
  g_assert (self->join.n_joining > 0);
  self->join.n_joining--;
  return TRUE;
}

static gboolean publish_outputs (RivClient *self,
                                 RivJobCtx *ctx);

/* A job that ends mid-stream keeps the last outputs it was sent: hands them
 * over now. TRUE when it did (the caller fetches their image). */
gboolean
_riv_client_job_publish_pending (RivClient *self,
                                 RivJob    *job)
{
  RivJobCtx *ctx = _riv_client_job_ctx (job);

  if (ctx == NULL || !ctx->unpublished || self->closed ||
      RIV_JOB_STATUS_IS_TERMINAL (riv_job_get_status (job)))
    return FALSE;
  return publish_outputs (self, ctx);
}

/* Ends a job that is not terminal yet, and counts it: its client-side state
 * goes. What the caller acts on (liveness, notifications, job-finished):
 * 0 when the job was terminal already. */
RivJobEnded
_riv_client_job_end (RivClient    *self,
                     RivJob       *job,
                     RivJobStatus  status,
                     const char   *error)
{
  RivJobCtx *ctx;
  RivJobEnded ended = RIV_JOB_ENDED;
  gboolean was_joined = FALSE;

  _riv_job_freeze (job);
  if (!_riv_job_finish (job, status, error))
    {
      _riv_job_thaw (job);
      return 0;
    }
  if (error != NULL)
    riv_job_add_timeline (job, "%s: %s", riv_job_status_to_string (status), error);
  else
    riv_job_add_timeline (job, "%s", riv_job_status_to_string (status));
  _riv_job_thaw (job);

  if ((ctx = _riv_client_job_ctx (job)) != NULL)
    {
      was_joined = ctx->joined;
      /* Finished (cancelled) while its join request is still in flight. */
      if (_riv_client_joining_done (self, ctx))
        ended |= RIV_JOB_ENDED_JOINING;
      _riv_job_set_owner_data (job, NULL, NULL);
    }

  _riv_job_trim (job);

  g_assert (self->jobs.n_pending > 0);
  self->jobs.n_pending--;
  if (was_joined)
    {
      g_assert (self->jobs.n_joined > 0);
      self->jobs.n_joined--;
    }
  return ended;
}

/* Non-terminal joined jobs, as new references (safe against handlers that
 * change the job list while we walk it). */
GPtrArray *
_riv_client_collect_joined_jobs (RivClient *self)
{
  GPtrArray *jobs = g_ptr_array_new_with_free_func (g_object_unref);
  GHashTableIter iter;
  gpointer value;

  g_hash_table_iter_init (&iter, self->jobs.by_event);
  while (g_hash_table_iter_next (&iter, NULL, &value))
    {
      RivJob *job = value;
      RivJobCtx *ctx;

      if (riv_job_is_finished (job) || (ctx = _riv_client_job_ctx (job)) == NULL || !ctx->joined)
        continue;
      g_ptr_array_add (jobs, g_object_ref (job));
    }

  return jobs;
}

/* Applying messages -------------------------------------------------------------------- */

/* Replaces the job's outputs: full values (first yield, completion, or no diffs
 * in this protocol), or edit lists applied to the previous values. Nodes are
 * shared, never copied: riv_diff_apply() copies along the edited path only. */
/* Streamed outputs reach the job at most every "publish-interval" (default
 * 20 ms): a generator may yield 100,000 times a second, and turning a long
 * text into a JsonNode for every yield is quadratic. Every yield is still
 * counted at once, and full values (first yield, completion) go out at once. */

/* Hands the current output values to the job; FALSE when it has none yet. */
static gboolean
publish_outputs (RivClient *self,
                 RivJobCtx *ctx)
{
  JsonArray *outputs;
  JsonNode *node;

  if (!ctx->has_values)
    return FALSE;

  outputs = json_array_sized_new (ctx->n_values);
  for (guint i = 0; i < ctx->n_values; i++)
    json_array_add_element (outputs, riv_diff_value_dup_node (ctx->values[i]));

  node = json_node_new (JSON_NODE_ARRAY);
  json_node_take_array (node, outputs);
  ctx->unpublished = FALSE;
  ctx->published_at = riv_now ();
  _riv_job_publish_outputs (ctx->job, node);
  return TRUE;
}

/* Seconds until ctx may publish again (0: now). */
static double
publish_wait (RivClient *self,
              RivJobCtx *ctx,
              double     now)
{
  double wait = ctx->published_at + self->jobs.publish_interval - now;

  return wait > 0 ? wait : 0;
}

/* ctx's values wait for their turn, in self->jobs.unpublished; the caller
 * runs the timer (update->publish_in). */
static void
publish_later (RivClient    *self,
               RivJobCtx    *ctx,
               double        wait,
               RivJobUpdate *update)
{
  if (!ctx->unpublished)
    {
      ctx->unpublished = TRUE;
      if (self->jobs.unpublished == NULL)
        self->jobs.unpublished = g_ptr_array_new_with_free_func (g_object_unref);
      g_ptr_array_add (self->jobs.unpublished, g_object_ref (ctx->job));
    }
  update->publish_in = wait;
}

/* The publish timer fired for job (taken from self->jobs.unpublished): its
 * values go out now, or, when it published meanwhile, wait again. */
void
_riv_client_job_publish_due (RivClient    *self,
                             RivJob       *job,
                             double        now,
                             RivJobUpdate *update)
{
  RivJobCtx *ctx = _riv_client_job_ctx (job);
  double wait;

  if (ctx == NULL || !ctx->unpublished)
    return;
  /* Published meanwhile (a full value, or an edit once the interval had
   * passed): this one waits for its own interval to end. */
  wait = publish_wait (self, ctx, now);
  if (wait > 0)
    {
      ctx->unpublished = FALSE;
      publish_later (self, ctx, wait, update);
    }
  else
    update->published = publish_outputs (self, ctx);
}

/* Applies msg's edit lists to ctx's values, from output first on. */
static gboolean
apply_edit_lists (RivJobCtx   *ctx,
                  RivMessage  *msg,
                  guint        first,
                  GError     **error)
{
  JsonArray *data = json_node_get_array (riv_message_get_data (msg));
  guint n = json_array_get_length (data);

  for (guint i = first; i < n; i++)
    {
      /* An output that appears mid-run starts from null. */
      if (i >= ctx->n_values)
        {
          values_reserve (ctx, i + 1);
          ctx->values[ctx->n_values++] = riv_diff_value_new (NULL);
        }

      if (!riv_diff_value_apply (ctx->values[i], json_array_get_element (data, i), error))
        {
          g_prefix_error (error, "output %u: ", i);
          return FALSE;
        }
    }
  return TRUE;
}

/* Applies one generating or completed message's outputs: full values, or
 * edit lists against the previous values (protocol.md §4). */
static gboolean
apply_outputs (RivClient     *self,
               RivJobCtx     *ctx,
               RivMessage    *msg,
               gboolean       full,
               RivJobUpdate  *update,
               GError       **error)
{
  double wait;

  /* Without an output.data list there is nothing to apply. */
  if (msg->data == NULL && msg->data_text == NULL)
    return TRUE;

  if (full || !ctx->has_values)
    {
      JsonArray *data = json_node_get_array (riv_message_get_data (msg));
      guint n = json_array_get_length (data);

      /* Full values are kept past this frame, shared and never copied:
       * sealed, they can never change. Sealing just them costs much less
       * than an immutable parser, which seals (and hashes) every frame whole;
       * a sealed string is not even hashed. (What an edit list leaves in a
       * value is copied unless it is sealed: both are right.) */
      for (guint i = 0; i < n; i++)
        json_node_seal (json_array_get_element (data, i));

      values_clear (ctx);
      values_reserve (ctx, n);
      for (guint i = 0; i < n; i++)
        ctx->values[i] = riv_diff_value_new (json_array_get_element (data, i));
      ctx->n_values = n;
      ctx->has_values = TRUE;
    }
  else
    {
      guint i = 0;

      /* A streamed text: what each output gains, without its edit list built. */
      if (msg->appends != NULL)
        while (msg->appends[i] != NULL && i < ctx->n_values &&
               riv_diff_value_append_root (ctx->values[i], msg->appends[i]))
          i++;
      if ((msg->appends == NULL || msg->appends[i] != NULL) &&
          !apply_edit_lists (ctx, msg, i, error))
        return FALSE;
    }

  _riv_job_count_update (ctx->job, msg->kind != RIV_MESSAGE_PROCESS_COMPLETED, msg->made_at,
                         msg->sent_at);

  /* Full values go out at once; streamed edits at most once per publish
   * interval, the last of a run by a timer at the end of its interval. */
  wait = full ? 0 : publish_wait (self, ctx, riv_now ());
  if (wait == 0)
    update->published = publish_outputs (self, ctx);
  else
    publish_later (self, ctx, wait, update);

  return TRUE;
}

static char *
completion_error_text (RivMessage *msg)
{
  if (msg->error != NULL && *msg->error != '\0')
    return g_strdup (msg->error);
  if (msg->title != NULL && *msg->title != '\0')
    return g_strdup_printf ("The server reported an error (%s)", msg->title);
  return g_strdup ("The server reported an error");
}

static void
apply_estimation (RivJob     *job,
                  RivJobCtx  *ctx,
                  RivMessage *msg)
{
  _riv_job_set_queue (job,
                      msg->has_rank ? msg->rank : -1,
                      msg->has_queue_size ? msg->queue_size : -1,
                      msg->has_rank_eta ? msg->rank_eta : -1);
  _riv_job_set_status (job, RIV_JOB_STATUS_QUEUED);
  /* Estimations are re-broadcast whenever a job starts: note the first. */
  if (!ctx->saw_estimation)
    {
      ctx->saw_estimation = TRUE;
      if (msg->has_rank && msg->has_queue_size)
        riv_job_add_timeline (job, "queued: position %" G_GINT64_FORMAT
                               " of %" G_GINT64_FORMAT, msg->rank + 1, msg->queue_size);
      else
        riv_job_add_timeline (job, "queued");
    }
}

static void
apply_start (RivJob     *job,
             RivMessage *msg)
{
  _riv_job_set_queue (job, -1, -1, msg->has_eta ? msg->eta : -1);
  if (!_riv_job_set_status (job, RIV_JOB_STATUS_RUNNING))
    return;
  if (msg->has_batch)
    riv_job_add_timeline (job, "started (batch %s, %" G_GINT64_FORMAT
                           " of %" G_GINT64_FORMAT ")",
                           msg->batch_id ? msg->batch_id : "?",
                           msg->batch_index + 1, msg->batch_size);
  else
    riv_job_add_timeline (job, "started");
}

static void
apply_progress (RivJob     *job,
                RivMessage *msg)
{
  RivProgressUnit *unit;
  double fraction = -1;

  if (msg->progress == NULL || msg->progress->len == 0)
    return;

  unit = &g_array_index (msg->progress, RivProgressUnit, 0);
  if (unit->has_progress)
    fraction = unit->progress;
  else if (unit->has_index && unit->has_length && unit->length > 0)
    fraction = (double) unit->index / (double) unit->length;
  _riv_job_set_progress (job, fraction,
                         unit->has_index ? unit->index : -1,
                         unit->has_length ? unit->length : -1,
                         unit->unit);
}

/* A generating or streaming message: the job's final status (PENDING while
 * it goes on) and, for a failure, its text. */
static RivJobStatus
apply_generating (RivClient     *self,
                  RivJob        *job,
                  RivJobCtx     *ctx,
                  RivMessage    *msg,
                  RivJobUpdate  *update,
                  char         **fail_text)
{
  g_autoptr(GError) error = NULL;
  gboolean full;

  if (!msg->success)
    {
      *fail_text = completion_error_text (msg);
      return RIV_JOB_STATUS_FAILED;
    }

  full = msg->kind == RIV_MESSAGE_PROCESS_STREAMING ||
         !riv_config_uses_diffs (ctx->config) ||
         (ctx->endpoint != NULL && g_strcmp0 (ctx->endpoint->connection, "stream") == 0);
  if (!apply_outputs (self, ctx, msg, full, update, &error))
    {
      *fail_text = g_strdup_printf ("Could not apply the server's update: %s", error->message);
      return RIV_JOB_STATUS_FAILED;
    }
  if (_riv_job_set_status (job, RIV_JOB_STATUS_STREAMING))
    riv_job_add_timeline (job, "first output");
  return RIV_JOB_STATUS_PENDING;
}

/* A completion: the job's final status and, for a failure, its text. */
static RivJobStatus
apply_completion (RivClient     *self,
                  RivJob        *job,
                  RivJobCtx     *ctx,
                  RivMessage    *msg,
                  RivJobUpdate  *update,
                  char         **fail_text)
{
  g_autoptr(GError) error = NULL;
  RivJobStatus final = RIV_JOB_STATUS_COMPLETED;
  gboolean streamed;

  /* Gradio answers /cancel with success and output {}; a failure with an
   * empty output is still a failure. */
  if (msg->cancelled && msg->success)
    return RIV_JOB_STATUS_CANCELLED;
  if (!msg->success)
    {
      *fail_text = completion_error_text (msg);
      return RIV_JOB_STATUS_FAILED;
    }

  /* A generator's output.duration times its last iteration only, so a job
   * that streamed is timed by the arrival of its messages. */
  streamed = riv_job_get_n_updates (job) > 0;

  /* Completion values are always full, never a diff. */
  if (!apply_outputs (self, ctx, msg, TRUE, update, &error))
    {
      final = RIV_JOB_STATUS_FAILED;
      *fail_text = g_strdup (error->message);
    }
  if (msg->render_config != NULL)
    {
      GStrv rendered = riv_config_describe_render (msg->render_config);

      riv_job_add_timeline (job, "rendered %u components", rendered != NULL ? g_strv_length (rendered) : 0);
      _riv_job_take_rendered (job, rendered);
    }
  if (msg->used_cache != NULL)
    {
      _riv_job_set_cache (job, msg->used_cache, msg->cache_duration);
      riv_job_add_timeline (job, "answered from the server's cache (%s)", msg->used_cache);
    }
  if (msg->has_duration && !streamed)
    _riv_job_set_run_duration (job, msg->duration);
  if (msg->has_duration && msg->has_average_duration && !streamed)
    riv_batch_infer_completed (&self->jobs.batch, job, ctx->endpoint,
                               msg->duration, msg->average_duration);
  return final;
}

/* Applies one message to a non-terminal job (from the stream, or replayed
 * from the early buffer): the job's own state only. What else it calls for
 * (an image to fetch, a publish timer, the job's end) is in update, for the
 * caller to act on (_riv_client_apply_message () in riv-client-stream.c). */
void
_riv_client_job_apply (RivClient    *self,
                       RivJob       *job,
                       RivMessage   *msg,
                       RivJobUpdate *update)
{
  RivJobCtx *ctx = _riv_client_job_ctx (job);

  if (ctx == NULL || riv_job_is_finished (job))
    return;

  _riv_job_freeze (job);
  _riv_job_count_event (job);

  if (msg->has_batch)
    _riv_job_set_batch (job, msg->batch_id, msg->batch_size, msg->batch_index, FALSE);

  switch (msg->kind)
    {
    case RIV_MESSAGE_ESTIMATION:
      apply_estimation (job, ctx, msg);
      break;

    case RIV_MESSAGE_PROCESS_STARTS:
      apply_start (job, msg);
      break;

    case RIV_MESSAGE_PROGRESS:
      apply_progress (job, msg);
      break;

    case RIV_MESSAGE_LOG:
      _riv_job_add_log (job, msg->level, msg->title, msg->log);
      riv_job_add_timeline (job, "%s: %s", msg->level ? msg->level : "log",
                             msg->log ? msg->log : "");
      break;

    case RIV_MESSAGE_PROCESS_GENERATING:
    case RIV_MESSAGE_PROCESS_STREAMING:
      update->final = apply_generating (self, job, ctx, msg, update, &update->fail_text);
      break;

    case RIV_MESSAGE_PROCESS_COMPLETED:
      update->final = apply_completion (self, job, ctx, msg, update, &update->fail_text);
      break;

    case RIV_MESSAGE_QUEUE_FULL:
      update->final = RIV_JOB_STATUS_FAILED;
      update->fail_text = g_strdup ("Queue is full");
      break;

    case RIV_MESSAGE_UNKNOWN:
    case RIV_MESSAGE_HEARTBEAT:
    case RIV_MESSAGE_CLOSE_STREAM:
    case RIV_MESSAGE_UNEXPECTED_ERROR:
    case RIV_MESSAGE_SEND_HASH:
    case RIV_MESSAGE_SEND_DATA:
    default:
      break;
    }

  _riv_job_thaw (job);
}
