/* riv-batch-infer.h
 * Copyright 2026 The Rivulet authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Batches inferred from runs of process_starts, for servers that name none
 * (real Gradio). One per client; not thread-safe.
 */
#pragma once

#include "riv-config.h"
#include "riv-job.h"

G_BEGIN_DECLS

typedef struct _RivBatchRun RivBatchRun;

typedef struct
{
  RivBatchRun *run;          /* the open run (consecutive process_starts), nullable */
  double       run_time;     /* arrival of its last process_starts */
  GHashTable  *pending;      /* event id → RivBatchRun (ref): members no join reply named yet */
  GQueue       pending_order;/* PendingMember (owned), oldest first */
  guint        counter;      /* runs so far: ids "~1", "~2", … */
  guint64      start_seq;    /* process_starts seen */
  GHashTable  *calls;        /* fingerprint → BatchCall (owned): batches told by their completions */
  GQueue       call_order;   /* BatchCall (owned by calls), oldest first */
} RivBatchInfer;

/* Members waiting for their join reply are kept at most this many. */
#define RIV_BATCH_INFER_MAX_PENDING 4096
#define RIV_BATCH_INFER_MAX_CALLS   4

void riv_batch_infer_init   (RivBatchInfer *self);
void riv_batch_infer_clear  (RivBatchInfer *self);
/* A process_starts without a batch field, in stream order. job is NULL when
 * no join reply has named event_id yet (the message goes to the early
 * buffer); endpoint is then unknown too. max_any bounds a run whose members
 * are all unknown (the largest max_batch_size of the app's batch endpoints,
 * 0 none). A known job of an endpoint that is not batched ends the run. */
void riv_batch_infer_starts (RivBatchInfer *self,
                             const char    *event_id,
                             RivJob        *job,
                             RivEndpoint   *endpoint,
                             gint64         max_any,
                             double         expiry);
/* The join reply named event_id for job: a member seen before it gets its
 * batch now (or leaves its run when its endpoint is not batched). */
void riv_batch_infer_claim  (RivBatchInfer *self,
                             const char    *event_id,
                             RivJob        *job,
                             RivEndpoint   *endpoint);
void riv_batch_infer_completed (RivBatchInfer *self,
                                RivJob        *job,
                                RivEndpoint   *endpoint,
                                double         duration,
                                double         average_duration);
void _riv_batch_infer_end   (RivBatchInfer *self);

/* Ends the open run: called for every other message on the ingest path, hence inline. */
static inline void
riv_batch_infer_break (RivBatchInfer *self)
{
  if (G_UNLIKELY (self->run != NULL))
    _riv_batch_infer_end (self);
}

G_END_DECLS
