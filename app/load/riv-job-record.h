/* riv-job-record.h
 * Copyright 2026 The Rivulet authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * One job as a per-job record: the lines of `rivulet-cli load --output` and
 * the jobs of the window's JSON export. The keys (app/docs/cli.md, rivulet-cli):
 *   index       job number, 1-based
 *   endpoint    "/batch_echo"
 *   status      "completed" | "failed" | "cancelled" | "lost"
 *               (a job that is not terminal yet reads as its current status)
 *   error       text or null
 *   outputs     the job's final output values as the server sent them after
 *               every diff (FileData objects as received), or null
 *   logs        [{level, title, message}]
 *   batch       null or {id, size, index (1-based, null when unknown), inferred}
 *   queued_s    submit → start, null when the job never started
 *   run_s       start → end, null when unknown
 *   latency_s   submit → end, null when the job has not ended
 *   updates     outputs received (generator yields and the completion)
 *   upload_s    seconds its files took to upload before the join (0: reused from
 *               earlier in the session), null when it sent none
 *   cache       null, or {used: "full"|"partial", duration_s} when the server
 *               answered from its cache (Gradio 6.12 @gr.cache)
 *   rendered    null, or what a gr.render endpoint's job put on the page: each
 *               component "type" or "type “label”" (riv_job_get_rendered ())
 *   event_id    the server's event id, null when it never joined
 *   server      (only after riv_load_run_add_server_traces()) the server's own
 *               timings of the job: queue_wait_s, preprocess_s, fn_call_s,
 *               postprocess_s, streaming_diff_s, process_s, iterations,
 *               total_s (queue wait + process) and client_network_s
 *               (latency_s − total_s: the network and the client)
 *   user        virtual user (1-based) or null
 *   submitted_at  wall-clock submit time, Unix seconds (for merging shards)
 * and, from riv_job_record_add_stream () (app/docs/streaming.md):
 *   first_update_s       submit → the first output update (a generating message
 *                        with data, else the completion), null when none
 *   first_after_start_s  process_starts → that update, null when unknown
 *   gaps                 gaps between consecutive generating updates
 *   gap_s                null, or {p50, p99, max} of those gaps
 *   stalls               gaps over the run's stall limit (load --stall)
 *   chars_per_s, words_per_s  what a growing output text gained per second
 *                        from its first update to its last, null otherwise
 *   gap_hist_us          [[bucket start, count], …]: the gaps at 1/128 of a
 *                        power of two (RivSketch), for pooling across records
 *   stamps               only with the server's stamps (serve --stamp):
 *                        {delay_hist_us, sent_gap_hist_us, hold_hist_us,
 *                        clumped}: each update's delay from its write to its
 *                        handling here, the gaps the server wrote them at,
 *                        how long the server held each between making and
 *                        writing it, and whether the updates arrived in a
 *                        clump (riv_stream_clumped ())
 */
#pragma once

#include <json-glib/json-glib.h>

#include "riv-job.h"
#include "riv-load-stats.h"

G_BEGIN_DECLS

/* A new JSON object node. user is the virtual user, 0 for none. */
JsonNode *riv_job_record_new (RivJob  *job,
                              guint64  index,
                              guint    user);

/* The job's submit time on the wall clock (Unix seconds): submitted_at. */
double    riv_job_record_submitted_wall (RivJob *job);

/* Adds the streaming members above to record (an object node). */
void      riv_job_record_add_stream (JsonNode            *record,
                                     const RivLoadStream *stream);
/* Reads a record's streaming members back into stream, with sketches made
 * for it (freed by riv_job_record_stream_clear ()); stalls are counted again
 * against stall_s where the record has its gaps. FALSE, naming the member,
 * when one is malformed. */
gboolean  riv_job_record_read_stream (JsonObject         *record,
                                      double              stall_s,
                                      RivLoadStream      *stream,
                                      GError            **error);
void      riv_job_record_stream_clear (RivLoadStream     *stream);
/* A record's status (an end: completed, failed, cancelled or lost) and
 * submitted_at, which every record has; FALSE naming what is wrong. */
gboolean  riv_job_record_read_outcome (JsonObject        *record,
                                       RivJobStatus      *status,
                                       double            *submitted_at,
                                       GError           **error);
/* queued_s, run_s and latency_s: each a number, or null / missing (then
 * -1); FALSE naming the first that is neither. */
gboolean  riv_job_record_read_times   (JsonObject        *record,
                                       double            *queued_s,
                                       double            *run_s,
                                       double            *latency_s,
                                       GError           **error);

/* A brief record: what riv_load_record_read () takes from a record, in one
 * line that starts "#job " (no newline), for a load worker process to send
 * its parent (riv-cli-load-processes.c): every number exact (a double's 64
 * bits in hexadecimal, a count in decimal; "-" for a record's null), the
 * histograms' buckets as a record has them, its logs' levels, its error, and
 * scenario, the run's scenario number (0: none). Read back, it counts as the
 * record would (the same sketches, stalls against stall_s). Private between
 * a parent and its workers, the same program: the format may change with it.
 * r's status must be an end. */
void      riv_load_record_write_brief (GString             *out,
                                       const RivLoadRecord *r,
                                       guint                scenario);
/* Reads a brief back, cutting line up in place: out's strings are line's
 * (it must outlive out); clear out with riv_load_record_clear (). FALSE,
 * naming the first field that is wrong, when line is not a brief (nothing
 * to clear then). */
gboolean  riv_load_record_read_brief  (RivLoadRecord       *out,
                                       char                *line,
                                       double               stall_s,
                                       guint               *scenario,
                                       GError             **error);

/* The "server" object of a record from one trace of Gradio's
 * {P}/profiling/traces (milliseconds → seconds); *server_s gets its total_s.
 * NULL when the trace lacks a finite queue_wait_ms or total_ms. latency: the
 * job's latency_s (< 0: unknown, no client_network_s). */
JsonNode *riv_job_record_server_timing (JsonObject *trace,
                                        double      latency,
                                        double     *server_s);

G_END_DECLS
