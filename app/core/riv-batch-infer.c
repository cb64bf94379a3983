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
 */
#include "config.h"

#include "riv-batch-infer.h"
#include "riv-job-private.h"
#include "riv-util.h"

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

/* A member whose job is not known yet (the value in self->pending). */
typedef struct
{
  GList        link;      /* in pending_order; data points to this entry */
  char        *event_id;  /* the key in self->pending */
  RivBatchRun *run;       /* ref */
  double       time;
} PendingMember;

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
  g_hash_table_insert (self->pending, pm->event_id, pm);
  g_queue_push_tail_link (&self->pending_order, &pm->link);
}

void
riv_batch_infer_init (RivBatchInfer *self)
{
  self->run = NULL;
  self->run_time = 0;
  self->pending = g_hash_table_new_full (g_str_hash, g_str_equal, NULL, pending_free);
  g_queue_init (&self->pending_order);
  self->counter = 0;
}

void
riv_batch_infer_clear (RivBatchInfer *self)
{
  riv_batch_infer_break (self);
  /* The queue links live in the entries. */
  g_clear_pointer (&self->pending, g_hash_table_unref);
  g_queue_init (&self->pending_order);
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

  if (job == NULL)
    pending_add (self, event_id, run, now, expiry);
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
