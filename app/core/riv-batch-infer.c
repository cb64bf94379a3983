/* riv-batch-infer.c
 * Copyright 2026 The Rivulet authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Batch inference for servers that send no batch field (real Gradio): all
 * members of a batch get process_starts at the same instant, back to back in
 * the session's FIFO. So a run of consecutive process_starts for one batch
 * endpoint, with no other message between them and arriving in the same read
 * or reads a few milliseconds apart, is taken as one batch (at most
 * max_batch_size jobs).
 */
#include "config.h"

#include "riv-batch-infer.h"
#include "riv-job-private.h"
#include "riv-util.h"

#define BATCH_RUN_GAP_S 0.05

void
riv_batch_infer_init (RivBatchInfer *self)
{
  self->run = g_ptr_array_new_with_free_func (g_object_unref);
  self->run_id = NULL;
  self->run_fn = 0;
  self->run_time = 0;
}

void
riv_batch_infer_clear (RivBatchInfer *self)
{
  g_clear_pointer (&self->run, g_ptr_array_unref);
  g_clear_pointer (&self->run_id, g_free);
}

void
riv_batch_infer_add (RivBatchInfer *self,
                     RivJob        *job,
                     RivEndpoint   *endpoint,
                     guint         *counter)
{
  double now = riv_now ();

  if (self->run->len == 0 || self->run_fn != endpoint->fn_index ||
      (endpoint->max_batch_size > 0 && self->run->len >= (guint) endpoint->max_batch_size) ||
      now - self->run_time > BATCH_RUN_GAP_S)
    {
      riv_batch_infer_break (self);
      self->run_fn = endpoint->fn_index;
      self->run_id = g_strdup_printf ("~%u", ++*counter);
    }

  g_ptr_array_add (self->run, g_object_ref (job));
  self->run_time = now;
  for (guint i = 0; i < self->run->len; i++)
    _riv_job_set_batch (g_ptr_array_index (self->run, i), self->run_id, self->run->len, i, TRUE);
}
