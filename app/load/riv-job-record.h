/* riv-job-record.h
 * Copyright 2026 The Rivulet authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * One job as a per-job record: the lines of `rivulet-cli load --output` and
 * the jobs of the window's JSON export. The keys (README, rivulet-cli):
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
 *   user        virtual user (1-based) or null
 *   submitted_at  wall-clock submit time, Unix seconds (for merging shards)
 */
#pragma once

#include <json-glib/json-glib.h>

#include "riv-job.h"

G_BEGIN_DECLS

/* A new JSON object node. user is the virtual user, 0 for none. */
JsonNode *riv_job_record_new (RivJob  *job,
                              guint64  index,
                              guint    user);

G_END_DECLS
