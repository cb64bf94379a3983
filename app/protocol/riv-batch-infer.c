/* riv-batch-infer.c
 * Copyright 2026 The Rivulet authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Batch inference for servers that send no batch field (real Gradio): all
 * members of a batch get process_starts at the same instant, back to back in
 * the session's FIFO. So a run of consecutive process_starts, with no other
 * message between them and arriving in the same read or reads a few
 * milliseconds apart, is taken as one batch (at most max_batch_size jobs,
 * one endpoint).
 *
 * In a burst, a batch often starts before the join replies of some of its
 * members came back: their process_starts wait in the early buffer. They
 * are members all the same, in stream order; they get their batch when the
 * join reply names them (riv_batch_infer_claim). So the members of a run
 * share its id and size, and their indices are 0..size-1 in start order.
 *
 * Starts only suggest batches: on a busy Gradio 5.49 server a batch's
 * process_starts can come far enough apart to split the run. Completions
 * settle it. Gradio runs a batch as one call and sends every member the
 * call's output.duration and output.average_duration (the endpoint's mean
 * over all its calls so far, which changes with every call), so members
 * whose completions carry the same pair were one batch, whatever their
 * starts suggested; they take one id, the call's size, and indices in the
 * order of their process_starts in the stream. Gradio queues a call's completions in one loop, back to back in
 * the session's stream, so only the last few calls are remembered
 * (RIV_BATCH_INFER_MAX_CALLS): a virtual user that runs thousands of jobs
 * keeps no more than that.
 */
#include "config.h"

#include "riv-batch-infer.h"
#include "riv-compat.h"
#include "riv-job-private.h"

#define BATCH_RUN_GAP_S 0.05

typedef struct
{
  char   *event_id;
  RivJob *job;        /* ref; NULL until a join reply names event_id */
} Member;

struct _RivBatchRun
{
  guint      ref_count;
  char      *id;
  GPtrArray *members; /* Member (owned), in start order */
  gint64     fn;      /* fn_index of its known members; -1 none known yet */
  gint64     max;     /* at most this many members; 0 no bound known */
};

/* The members of one call of a batch function, told by their completions. */
typedef struct
{
  GList      link;        /* in call_order; data points to this entry */
  char      *key;         /* the key in self->calls */
  char      *id;
  GPtrArray *jobs;        /* RivJob (ref), in completion order */
} BatchCall;

/* A member whose job is not known yet (the value in self->pending). */
typedef struct
{
  GList        link;      /* in pending_order; data points to this entry */
  char        *event_id;  /* the key in self->pending */
  RivBatchRun *run;       /* ref */
  double       time;
  guint64      seq;       /* its place among process_starts */
} PendingMember;

static GQuark
start_seq_quark (void)
{
  static GQuark quark;

  if (G_UNLIKELY (quark == 0))
    quark = g_quark_from_static_string ("riv-batch-start-seq");
  return quark;
}

static void
member_free (gpointer data)
{
  Member *member = data;

  g_clear_object (&member->job);
  g_free (member->event_id);
  g_free (member);
}

static RivBatchRun *
run_new (RivBatchInfer *self)
{
  RivBatchRun *run = g_new0 (RivBatchRun, 1);

  run->ref_count = 1;
  run->id = g_strdup_printf ("~%u", ++self->counter);
  run->members = g_ptr_array_new_with_free_func (member_free);
  run->fn = -1;
  return run;
}

static RivBatchRun *
run_ref (RivBatchRun *run)
{
  run->ref_count++;
  return run;
}

static void
run_unref (RivBatchRun *run)
{
  if (--run->ref_count > 0)
    return;
  g_ptr_array_unref (run->members);
  g_free (run->id);
  g_free (run);
}

/* Tells every known member its place in the run as it now is. */
static void
run_publish (RivBatchRun *run)
{
  for (guint i = 0; i < run->members->len; i++)
    {
      Member *member = g_ptr_array_index (run->members, i);

      if (member->job != NULL)
        _riv_job_set_batch (member->job, run->id, run->members->len, i, TRUE);
    }
}

static void
pending_free (gpointer data)
{
  PendingMember *pm = data;

  run_unref (pm->run);
  g_free (pm->event_id);
  g_free (pm);
}

static void
pending_remove (RivBatchInfer *self,
                PendingMember *pm)
{
  g_queue_unlink (&self->pending_order, &pm->link);
  g_hash_table_remove (self->pending, pm->event_id);
}

/* A member whose join reply never came stays in its run, unknown. */
static void
pending_add (RivBatchInfer *self,
             const char    *event_id,
             RivBatchRun   *run,
             guint64        seq,
             double         now,
             double         expiry)
{
  PendingMember *pm;

  while (self->pending_order.head != NULL)
    {
      PendingMember *oldest = self->pending_order.head->data;

      if (now - oldest->time < expiry &&
          self->pending_order.length < RIV_BATCH_INFER_MAX_PENDING)
        break;
      pending_remove (self, oldest);
    }

  if ((pm = g_hash_table_lookup (self->pending, event_id)) != NULL)
    pending_remove (self, pm);

  pm = g_new0 (PendingMember, 1);
  pm->link.data = pm;
  pm->event_id = g_strdup (event_id);
  pm->run = run_ref (run);
  pm->time = now;
  pm->seq = seq;
  g_hash_table_insert (self->pending, pm->event_id, pm);
  g_queue_push_tail_link (&self->pending_order, &pm->link);
}

static void
call_free (gpointer data)
{
  BatchCall *call = data;

  g_ptr_array_unref (call->jobs);
  g_free (call->id);
  g_free (call->key);
  g_free (call);
}

void
riv_batch_infer_init (RivBatchInfer *self)
{
  self->run = NULL;
  self->run_time = 0;
  self->pending = g_hash_table_new_full (g_str_hash, g_str_equal, NULL, pending_free);
  g_queue_init (&self->pending_order);
  self->counter = 0;
  self->start_seq = 0;
  self->calls = g_hash_table_new_full (g_str_hash, g_str_equal, NULL, call_free);
  g_queue_init (&self->call_order);
}

void
riv_batch_infer_clear (RivBatchInfer *self)
{
  riv_batch_infer_break (self);
  /* The queue links live in the entries. */
  g_clear_pointer (&self->pending, g_hash_table_unref);
  g_queue_init (&self->pending_order);
  g_clear_pointer (&self->calls, g_hash_table_unref);
  g_queue_init (&self->call_order);
}

void
_riv_batch_infer_end (RivBatchInfer *self)
{
  g_clear_pointer (&self->run, run_unref);
}

void
riv_batch_infer_starts (RivBatchInfer *self,
                        const char    *event_id,
                        RivJob        *job,
                        RivEndpoint   *endpoint,
                        gint64         max_any,
                        double         expiry)
{
  double now = riv_now ();
  RivBatchRun *run = self->run;
  gint64 fn = -1;
  gint64 max = max_any;
  Member *member;

  if (job != NULL)
    {
      if (endpoint == NULL || !endpoint->batch)
        {
          riv_batch_infer_break (self);
          return;
        }
      fn = endpoint->fn_index;
      max = endpoint->max_batch_size;
    }

  if (run != NULL &&
      (now - self->run_time > BATCH_RUN_GAP_S ||
       (fn >= 0 && run->fn >= 0 && run->fn != fn) ||
       (max > 0 && run->members->len >= (guint) max) ||
       (run->max > 0 && run->members->len >= (guint) run->max)))
    {
      _riv_batch_infer_end (self);
      run = NULL;
    }
  if (run == NULL)
    run = self->run = run_new (self);

  if (fn >= 0 && run->fn < 0)
    run->fn = fn;
  if (max > 0 && (run->max == 0 || max < run->max))
    run->max = max;

  member = g_new0 (Member, 1);
  member->event_id = g_strdup (event_id);
  member->job = job != NULL ? g_object_ref (job) : NULL;
  g_ptr_array_add (run->members, member);
  self->run_time = now;

  self->start_seq++;
  if (job != NULL)
    g_object_set_qdata (G_OBJECT (job), start_seq_quark (), GSIZE_TO_POINTER (self->start_seq));
  else
    pending_add (self, event_id, run, self->start_seq, now, expiry);
  run_publish (run);
}

void
riv_batch_infer_claim (RivBatchInfer *self,
                       const char    *event_id,
                       RivJob        *job,
                       RivEndpoint   *endpoint)
{
  PendingMember *pm = g_hash_table_lookup (self->pending, event_id);
  RivBatchRun *run;

  if (pm == NULL)
    return;

  run = run_ref (pm->run);
  g_object_set_qdata (G_OBJECT (job), start_seq_quark (), GSIZE_TO_POINTER (pm->seq));
  pending_remove (self, pm);

  for (guint i = 0; i < run->members->len; i++)
    {
      Member *member = g_ptr_array_index (run->members, i);

      if (member->job != NULL || g_strcmp0 (member->event_id, event_id) != 0)
        continue;

      /* Not a batch endpoint after all: its mates close ranks. */
      if (endpoint == NULL || !endpoint->batch ||
          (run->fn >= 0 && run->fn != endpoint->fn_index))
        g_ptr_array_remove_index (run->members, i);
      else
        {
          member->job = g_object_ref (job);
          if (run->fn < 0)
            run->fn = endpoint->fn_index;
        }
      run_publish (run);
      break;
    }

  run_unref (run);
}

/* Stream order of the members' process_starts (a member whose start was
 * not seen comes last, in job order). */
static gint
compare_start (gconstpointer a,
               gconstpointer b)
{
  RivJob *x = *(RivJob **) a;
  RivJob *y = *(RivJob **) b;
  guint64 sx = GPOINTER_TO_SIZE (g_object_get_qdata (G_OBJECT (x), start_seq_quark ()));
  guint64 sy = GPOINTER_TO_SIZE (g_object_get_qdata (G_OBJECT (y), start_seq_quark ()));

  if (sx == 0)
    sx = G_MAXUINT64;
  if (sy == 0)
    sy = G_MAXUINT64;
  if (sx != sy)
    return sx < sy ? -1 : 1;
  return (riv_job_get_number (x) > riv_job_get_number (y)) -
         (riv_job_get_number (x) < riv_job_get_number (y));
}

void
riv_batch_infer_completed (RivBatchInfer *self,
                           RivJob        *job,
                           RivEndpoint   *endpoint,
                           double         duration,
                           double         average_duration)
{
  g_autofree char *key = NULL;
  BatchCall *call;

  /* Only batches Rivulet inferred: a server that names its batches knows. */
  if (endpoint == NULL || !endpoint->batch ||
      (riv_job_get_batch_id (job) != NULL && !riv_job_get_batch_inferred (job)))
    return;

  key = g_strdup_printf ("%" G_GINT64_FORMAT " %.17g %.17g", endpoint->fn_index,
                         duration, average_duration);
  call = g_hash_table_lookup (self->calls, key);
  if (call == NULL)
    {
      if (self->call_order.length >= RIV_BATCH_INFER_MAX_CALLS)
        {
          BatchCall *oldest = self->call_order.head->data;

          g_queue_unlink (&self->call_order, &oldest->link);
          g_hash_table_remove (self->calls, oldest->key);
        }
      call = g_new0 (BatchCall, 1);
      call->link.data = call;
      call->key = g_steal_pointer (&key);
      call->id = g_strdup_printf ("~%u", ++self->counter);
      call->jobs = g_ptr_array_new_with_free_func (g_object_unref);
      g_hash_table_insert (self->calls, call->key, call);
      g_queue_push_tail_link (&self->call_order, &call->link);
    }
  if (!g_ptr_array_find (call->jobs, job, NULL))
    g_ptr_array_add (call->jobs, g_object_ref (job));
  g_ptr_array_sort (call->jobs, compare_start);

  for (guint i = 0; i < call->jobs->len; i++)
    _riv_job_set_batch (g_ptr_array_index (call->jobs, i), call->id, call->jobs->len, i, TRUE);
}
