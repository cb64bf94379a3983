/* riv-job-private.h
 * Copyright 2026 The Rivulet authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Setters only app/protocol calls. Each notifies only when the value changes.
 */
#pragma once

#include "riv-job.h"
#include "riv-message.h"

G_BEGIN_DECLS

RivJob   *_riv_job_new               (guint         number,
                                      const char   *endpoint,
                                      gint64        fn_index,
                                      JsonNode     *inputs);
/* Returns FALSE (and changes nothing) when the move would go backwards or the job is terminal. */
gboolean  _riv_job_set_status        (RivJob       *self,
                                      RivJobStatus  status);
/* Terminal helper: sets error text and status in one go. */
gboolean  _riv_job_finish            (RivJob       *self,
                                      RivJobStatus  status,
                                      const char   *error);
void      _riv_job_set_event_id      (RivJob       *self,
                                      const char   *event_id);
void      _riv_job_set_queue         (RivJob       *self,
                                      gint64        rank,
                                      gint64        queue_size,
                                      double        eta);
void      _riv_job_set_progress      (RivJob       *self,
                                      double        fraction,
                                      gint64        index,
                                      gint64        length,
                                      const char   *unit);
void      _riv_job_set_batch         (RivJob       *self,
                                      const char   *batch_id,
                                      gint64        size,
                                      gint64        index,
                                      gboolean      inferred);
/* Takes ownership of outputs (a JSON array) and counts one update. */
void      _riv_job_take_outputs      (RivJob       *self,
                                      JsonNode     *outputs);
/* The two halves of _riv_job_take_outputs: the client counts every update at
 * once but hands streamed outputs over at most once per interval. */
void      _riv_job_publish_outputs   (RivJob       *self,
                                      JsonNode     *outputs);
/* One output update: generating (a step of a generator, gaps are measured
 * between those) or the completion; made_at and sent_at, the server's
 * stamps (wall clock, Unix seconds), 0 when it sent none. */
void      _riv_job_count_update      (RivJob       *self,
                                      gboolean      generating,
                                      double        made_at,
                                      double        sent_at);
void      _riv_job_set_image         (RivJob       *self,
                                      GBytes       *image);
void      _riv_job_count_event       (RivJob       *self);
/* Drops what a finished job no longer needs (input copy, intermediate state). */
void      _riv_job_add_log           (RivJob       *self,
                                      const char   *level,
                                      const char   *title,
                                      const char   *message);
/* Dates self's status changes, timeline entries and logs at time (riv_now ()
 * of the past) instead of now, until called again with 0: for messages
 * replayed after they waited for the join reply. */
void      _riv_job_set_replay_time   (RivJob       *self,
                                      double        time);
/* The run time the server measured (process_completed output.duration). */
void      _riv_job_set_run_duration  (RivJob       *self,
                                      double        seconds);
void      _riv_job_set_upload_time   (RivJob       *self,
                                      double        seconds);
/* used_cache: "full"/"partial" or NULL (no cache). */
void      _riv_job_set_cache         (RivJob       *self,
                                      const char   *used_cache,
                                      double        duration);
/* gr.render: what the completion rendered (riv_config_describe_render ()); taken. */
void      _riv_job_take_rendered     (RivJob       *self,
                                      GStrv         rendered);
void      _riv_job_trim              (RivJob       *self);

/* One pointer of owner state (the client's per-job context), read for every
 * message: cheaper than qdata, which takes a lock. destroy is called on it
 * when it is replaced and when the job is finalized. */
void      _riv_job_set_owner_data    (RivJob         *self,
                                      gpointer        data,
                                      GDestroyNotify  destroy);
gpointer  _riv_job_get_owner_data    (RivJob         *self);

/* Freeze/thaw property notifications around a burst of updates from one message. */
void      _riv_job_freeze            (RivJob       *self);
void      _riv_job_thaw              (RivJob       *self);

G_END_DECLS
