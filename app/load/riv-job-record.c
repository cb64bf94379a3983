/* riv-job-record.c
 * Copyright 2026 The Rivulet authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "config.h"

#include "riv-compat.h"
#include "riv-job-record.h"

static void
set_seconds (JsonObject *object,
             const char *member,
             double      seconds)
{
  if (seconds < 0)
    json_object_set_null_member (object, member);
  else
    json_object_set_double_member (object, member, seconds);
}

static JsonNode *
batch_node (RivJob *job)
{
  const char *id = riv_job_get_batch_id (job);
  JsonObject *batch;
  JsonNode *node;

  if (id == NULL)
    return json_node_new (JSON_NODE_NULL);

  batch = json_object_new ();
  json_object_set_string_member (batch, "id", id);
  json_object_set_int_member (batch, "size", riv_job_get_batch_size (job));
  /* 1-based, as the job panel shows it (the protocol's index is 0-based). */
  if (riv_job_get_batch_index (job) >= 0)
    json_object_set_int_member (batch, "index", riv_job_get_batch_index (job) + 1);
  else
    json_object_set_null_member (batch, "index");
  json_object_set_boolean_member (batch, "inferred", riv_job_get_batch_inferred (job));

  node = json_node_new (JSON_NODE_OBJECT);
  json_node_take_object (node, batch);
  return node;
}

static JsonArray *
logs_array (RivJob *job)
{
  JsonArray *logs = json_array_new ();

  for (guint i = 0; i < riv_job_get_n_logs (job); i++)
    {
      const RivJobLog *log = riv_job_get_log (job, i);
      JsonObject *entry = json_object_new ();

      json_object_set_string_member (entry, "level", log->level);
      if (log->title != NULL)
        json_object_set_string_member (entry, "title", log->title);
      else
        json_object_set_null_member (entry, "title");
      json_object_set_string_member (entry, "message", log->message);
      json_array_add_object_element (logs, entry);
    }
  return logs;
}

JsonNode *
riv_job_record_new (RivJob  *job,
                    guint64  index,
                    guint    user)
{
  JsonObject *record;
  JsonNode *node;
  JsonNode *outputs;
  const char *error;
  double submitted_wall;

  g_return_val_if_fail (RIV_IS_JOB (job), NULL);

  record = json_object_new ();
  json_object_set_int_member (record, "index", (gint64) index);
  json_object_set_string_member (record, "endpoint", riv_job_get_endpoint (job));
  json_object_set_string_member (record, "status",
                                 riv_job_status_to_string (riv_job_get_status (job)));
  error = riv_job_get_error (job);
  if (error != NULL)
    json_object_set_string_member (record, "error", error);
  else
    json_object_set_null_member (record, "error");

  outputs = riv_job_get_outputs (job);
  json_object_set_member (record, "outputs",
                          outputs != NULL ? json_node_copy (outputs) : json_node_new (JSON_NODE_NULL));
  json_object_set_array_member (record, "logs", logs_array (job));
  json_object_set_member (record, "batch", batch_node (job));
  set_seconds (record, "queued_s", riv_job_get_wait_time (job));
  set_seconds (record, "run_s", riv_job_get_run_time (job));
  set_seconds (record, "latency_s", riv_job_get_total_time (job));
  json_object_set_int_member (record, "updates", riv_job_get_n_updates (job));
  if (user > 0)
    json_object_set_int_member (record, "user", user);
  else
    json_object_set_null_member (record, "user");

  /* Monotonic submit time → wall clock, so shards' records line up. */
  submitted_wall = g_get_real_time () / (double) G_USEC_PER_SEC
                   - (riv_now () - riv_job_get_submitted_at (job));
  json_object_set_double_member (record, "submitted_at", submitted_wall);

  node = json_node_new (JSON_NODE_OBJECT);
  json_node_take_object (node, record);
  return node;
}
