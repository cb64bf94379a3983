/* riv-queue.h
 * Copyright 2026 The Rivulet authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The job queue of the embedded server (protocol.md §5, §6): waiting events
 * per endpoint in FIFO order across sessions, a per-endpoint concurrency
 * limit, a global limit on waiting events, ETA estimations, batching, cancel,
 * and the worker pool that runs the endpoints' functions (given by whoever
 * makes the queue: the server gives the demos, riv_demo_get_run_endpoints ()).
 *
 * Everything here runs on the server's GMainContext; the worker side of a
 * run (what the demos call) is riv-run.h, implemented in riv-queue.c.
 * The queue knows nothing about HTTP: it hands frames to the server through
 * RivQueueCallbacks, keyed by an opaque session pointer.
 */
#pragma once

#include <glib.h>

#include "riv-inbox.h"
#include "riv-run.h"
#include "riv-wire.h"

G_BEGIN_DECLS

typedef struct
{
  /* Appends a frame to the session's FIFO (takes ownership). */
  void     (*emit)          (gpointer    session,
                             RivFrame   *frame,
                             gpointer    user_data);
  /* TRUE while the session's buffer is over its cap: generators of that
   * session pause until riv_queue_session_drained() is called. */
  gboolean (*congested)     (gpointer    session,
                             gpointer    user_data);
  gpointer (*session_ref)   (gpointer    session);
  void     (*session_unref) (gpointer    session);
  /* A demo wrote a file that /file= may serve (path owned by the callee). */
  void     (*file_created)  (char       *path,
                             gsize       size,
                             gpointer    user_data);
  /* A file is no longer referenced by its job and may be deleted. */
  void     (*file_expired)  (const char *path,
                             gpointer    user_data);
  /* A batched run finished. */
  void     (*batch_done)    (const char *api_name,
                             guint       size,
                             guint64     total_items,
                             gpointer    user_data);
  /* A gr.State output's new value (JSON text) for the session, from a
   * completed event of endpoint fn_index (nullable: no State to keep). */
  void     (*keep_state)    (gpointer    session,
                             guint       fn_index,
                             guint       output,
                             const char *value_json,
                             gpointer    user_data);
} RivQueueCallbacks;

typedef struct _RivQueue RivQueue;

typedef enum
{
  RIV_QUEUE_OK,
  RIV_QUEUE_FULL,
  RIV_QUEUE_INPUTS_FULL,
  RIV_QUEUE_STOPPED,
} RivQueueStatus;

/* endpoints: what to run for each fn_index (n_endpoints of them), borrowed
 * for the queue's life. */
RivQueue       *riv_queue_new              (GMainContext            *context,
                                            RivInbox                *inbox,
                                            const RivRunEndpoint    *endpoints,
                                            guint                    n_endpoints,
                                            const RivQueueCallbacks *callbacks,
                                            gpointer                 user_data);
void            riv_queue_free             (RivQueue                *self);

void            riv_queue_set_concurrency  (RivQueue                *self,
                                            guint                    concurrency);
void            riv_queue_set_max_waiting  (RivQueue                *self,
                                            guint                    max_waiting);
/* Output messages (generating and completed) carry the stamps of riv_wire_append_stamps (). */
void            riv_queue_set_stamp        (RivQueue                *self,
                                            gboolean                 stamp);
gboolean        riv_queue_get_stamp        (RivQueue                *self);
/* Bytes of inputs the live events may hold (riv_demo_params_get_size()),
 * together and in one session; 0: no limit. */
void            riv_queue_set_input_limits (RivQueue                *self,
                                            guint64                  session_max,
                                            guint64                  total_max);
void            riv_queue_set_verbose      (RivQueue                *self,
                                            gboolean                 verbose);
/* Where demos write files and the URL prefix of the server ("http://h:p"). */
void            riv_queue_set_output       (RivQueue                *self,
                                            const char              *output_dir,
                                            const char              *base_url);

/* Adds an event (takes params) and emits its first estimation to the session.
 * event_id must be fresh. Returns FULL (with the sizes for the 503 detail),
 * INPUTS_FULL (the inputs would go over a limit of riv_queue_set_input_limits())
 * or STOPPED without taking params. */
RivQueueStatus  riv_queue_push             (RivQueue                *self,
                                            guint                    fn_index,
                                            const char              *event_id,
                                            RivDemoParams           *params,
                                            gpointer                 session,
                                            guint                   *max_size,
                                            guint                   *size);
/* TRUE when event_id is live (waiting or running). */
gboolean        riv_queue_has_event        (RivQueue                *self,
                                            const char              *event_id);
/* Cancels a waiting or running event of this session: emits its cancelled
 * process_completed (exactly once) and stops its generator at the next step.
 * FALSE if the event is not live or belongs to another session. */
gboolean        riv_queue_cancel           (RivQueue                *self,
                                            const char              *event_id,
                                            gpointer                 session);
/* Drops every live event of a session that is going away, without frames. */
void            riv_queue_drop_session     (RivQueue                *self,
                                            gpointer                 session);
/* Fails the session's live events joined before joined_before (monotonic µs)
 * with message (one process_completed each) and stops their runs at their
 * next step. Returns how many it failed. */
guint           riv_queue_fail_unread      (RivQueue                *self,
                                            gpointer                 session,
                                            gint64                   joined_before,
                                            const char              *message);
/* TRUE while the session has a live event. */
gboolean        riv_queue_session_has_events (RivQueue              *self,
                                              gpointer               session);
/* Bytes of inputs the live events hold: every session's, or one session's. */
guint64         riv_queue_get_input_bytes  (RivQueue                *self,
                                            gpointer                 session);
/* The session's buffer went back under its cap: resume its generators. */
void            riv_queue_session_drained  (RivQueue                *self,
                                            gpointer                 session);
/* Fails every live event with "Server shutting down", stops the runs and
 * joins the worker threads. Idempotent. */
void            riv_queue_shutdown         (RivQueue                *self);

guint           riv_queue_get_n_waiting    (RivQueue                *self);
guint           riv_queue_get_n_live       (RivQueue                *self);
/* Runs started and not yet ended: a cancelled run counts until it has
 * stopped. */
guint           riv_queue_get_n_running    (RivQueue                *self);
guint64         riv_queue_get_batch_items  (RivQueue                *self);

G_END_DECLS
