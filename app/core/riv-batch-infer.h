/* riv-batch-infer.h
 * Copyright 2026 The Rivulet authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Batches inferred from runs of process_starts, for servers that name none
 * (real Gradio). One per stream; not thread-safe.
 */
#pragma once

#include "riv-config.h"
#include "riv-job.h"

G_BEGIN_DECLS

typedef struct
{
  GPtrArray *run;       /* RivJob refs: the current run of process_starts (inferred batch) */
  char      *run_id;    /* nullable */
  gint64     run_fn;
  double     run_time;
} RivBatchInfer;

void riv_batch_infer_init  (RivBatchInfer *self);
void riv_batch_infer_clear (RivBatchInfer *self);
/* A process_starts of a batch endpoint that named no batch: joins the
 * current run or starts a new one (numbered from *counter). */
void riv_batch_infer_add   (RivBatchInfer *self,
                            RivJob        *job,
                            RivEndpoint   *endpoint,
                            guint         *counter);

/* Ends the current run. Called for every message on the ingest path, hence inline. */
static inline void
riv_batch_infer_break (RivBatchInfer *self)
{
  if (self->run->len > 0)
    g_ptr_array_set_size (self->run, 0);
  g_clear_pointer (&self->run_id, g_free);
}

G_END_DECLS
