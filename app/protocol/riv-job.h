/* riv-job.h
 * Copyright 2026 The Rivulet authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * One submission. Every field below is a notify-able property of the same
 * kebab-case name. Status is monotonic and a terminal status is final.
 */
#pragma once

#include <gio/gio.h>
#include <json-glib/json-glib.h>

#include "riv-core-enums.h"
#include "riv-sketch.h"
#include "riv-types.h"

G_BEGIN_DECLS

#define RIV_TYPE_JOB (riv_job_get_type ())
G_DECLARE_FINAL_TYPE (RivJob, riv_job, RIV, JOB, GObject)

#define RIV_JOB_TIMELINE_MAX 32
#define RIV_JOB_LOGS_MAX     256

typedef struct
{
  double  time;   /* seconds since the job's submit time */
  char   *what;   /* short text, e.g. "estimation rank 3/17" */
} RivJobEvent;

/* One log message of a job, as the server sent it. */
typedef struct
{
  double      time;     /* seconds since the job's submit time */
  const char *level;    /* "info", "warning", "success", "error", …; "info" when absent */
  char       *title;    /* nullable (Gradio 4 sends none) */
  char       *message;  /* never NULL */
} RivJobLog;

guint         riv_job_get_number          (RivJob *self);   /* 1-based, per client */
const char   *riv_job_get_endpoint        (RivJob *self);   /* display name, "/batch_echo" */
gint64        riv_job_get_fn_index        (RivJob *self);
const char   *riv_job_get_event_id        (RivJob *self);   /* nullable until joined */
RivJobStatus  riv_job_get_status          (RivJob *self);
gboolean      riv_job_is_finished         (RivJob *self);
gint64        riv_job_get_rank            (RivJob *self);   /* -1 unknown */
gint64        riv_job_get_queue_size      (RivJob *self);   /* -1 unknown */
double        riv_job_get_eta             (RivJob *self);   /* seconds, < 0 unknown */
/* Progress: fraction 0..1 or < 0 unknown; step/length -1 when unknown; unit nullable. */
double        riv_job_get_progress        (RivJob *self);
gint64        riv_job_get_progress_index  (RivJob *self);
gint64        riv_job_get_progress_length (RivJob *self);
const char   *riv_job_get_progress_unit   (RivJob *self);
const char   *riv_job_get_batch_id        (RivJob *self);   /* nullable */
gint64        riv_job_get_batch_size      (RivJob *self);   /* 0 none */
gint64        riv_job_get_batch_index     (RivJob *self);   /* -1 none */
gboolean      riv_job_get_batch_inferred  (RivJob *self);
guint         riv_job_get_n_updates       (RivJob *self);   /* generating/completed outputs received */
guint         riv_job_get_n_events        (RivJob *self);   /* every message received for it */
/* Latest output values (a JSON array, one per endpoint output); nullable. */
JsonNode     *riv_job_get_outputs         (RivJob *self);
/* Text of the first string output, or NULL. */
const char   *riv_job_get_output_text     (RivJob *self);
/* Bytes of the latest downloaded image output, nullable. */
GBytes       *riv_job_get_image           (RivJob *self);
guint         riv_job_get_n_images        (RivJob *self);   /* image frames downloaded */
const char   *riv_job_get_error           (RivJob *self);   /* nullable */
/* Timestamps, monotonic seconds (riv_now()); 0 when not reached. */
double        riv_job_get_submitted_at    (RivJob *self);
double        riv_job_get_joined_at       (RivJob *self);
double        riv_job_get_started_at      (RivJob *self);
double        riv_job_get_first_output_at (RivJob *self);
double        riv_job_get_finished_at     (RivJob *self);
/* Streaming figures (app/docs/streaming.md). Time to first update: submit →
 * the first output update (a generating message with data, else the
 * completion), < 0 before it; first after start: process_starts → that
 * update (< 0 unknown). Gaps are between consecutive generating updates, as
 * they were handled here; max gap < 0 with none. Stalls: gaps over limit. */
double        riv_job_get_first_update_time (RivJob *self);
double        riv_job_get_first_after_start (RivJob *self);
guint         riv_job_get_n_gaps          (RivJob *self);
double        riv_job_get_max_gap         (RivJob *self);
guint         riv_job_count_stalls        (RivJob *self,
                                           double  limit);
double        riv_job_get_last_update_at  (RivJob *self);
/* Borrowed, nullable: the gaps; with the server's stamps, the gaps it wrote
 * the updates at, each update's delay from its write to its handling here,
 * and how long the server held it between making (the generator's yield)
 * and writing it. */
const RivSketch *riv_job_get_gaps         (RivJob *self);
const RivSketch *riv_job_get_sent_gaps    (RivJob *self);
const RivSketch *riv_job_get_delays       (RivJob *self);
const RivSketch *riv_job_get_holds        (RivJob *self);
/* Characters and words the output text gained per second from its first
 * update to its last; FALSE (and -1) when it did not grow while streaming. */
gboolean      riv_job_get_text_rate       (RivJob *self,
                                           double *chars_per_s,
                                           double *words_per_s);
/* Wait (submit→start), run (start→finish), total (submit→finish); < 0 when unknown. */
double        riv_job_get_wait_time       (RivJob *self);
double        riv_job_get_run_time        (RivJob *self);
double        riv_job_get_total_time      (RivJob *self);
/* Seconds its files took to upload before the join (handle_file() inputs,
 * riv_client_submit_uploading()); 0 when every file was uploaded already in
 * the session; < 0 when the job had none. Part of the wait and total times. */
double        riv_job_get_upload_time     (RivJob *self);
/* Gradio 6.12 @gr.cache: "full" or "partial" when the server answered from its
 * cache, else NULL; the cache_duration it sent (seconds, < 0 none). */
const char   *riv_job_get_used_cache      (RivJob *self);
/* gr.render: the components a render endpoint's completion put on the page,
 * each "type" or "type “label”" (riv_config_describe_render ()); NULL when it
 * rendered none or the endpoint does not render. */
const char * const *riv_job_get_rendered  (RivJob *self);
double        riv_job_get_cache_duration  (RivJob *self);
/* The bounded timeline: at most RIV_JOB_TIMELINE_MAX entries (the first few and
 * the latest are kept; dropped ones are counted). */
guint         riv_job_get_timeline_length (RivJob *self);
const RivJobEvent *riv_job_get_timeline_event (RivJob *self,
                                               guint   position);
guint         riv_job_get_timeline_dropped (RivJob *self);
/* Adds an entry to the timeline at the current time: what the client saw, and
 * what a program showing the job found out about it (a picture that did not
 * decode, a lint finding). */
void          riv_job_add_timeline        (RivJob     *self,
                                           const char *format,
                                           ...) G_GNUC_PRINTF (2, 3);
/* log messages (gr.Info, gr.Warning, …), in arrival order; the first
 * RIV_JOB_LOGS_MAX are kept, later ones only counted. "n-logs" is notified
 * for each one kept. */
guint            riv_job_get_n_logs       (RivJob *self);
const RivJobLog *riv_job_get_log          (RivJob *self,
                                           guint   position);
guint            riv_job_get_logs_dropped (RivJob *self);
/* Input values that were submitted (JSON array). */
JsonNode     *riv_job_get_inputs          (RivJob *self);

const char   *riv_job_status_to_string    (RivJobStatus status);

G_END_DECLS
