/* riv-job-record.c
 * Copyright 2026 The Rivulet authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "config.h"

#include <math.h>

#include "riv-compat.h"
#include "riv-job-record.h"
#include "riv-json.h"

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

/* null, or {"used": "full"|"partial", "duration_s": seconds or null}. */
static JsonNode *
cache_node (RivJob *job)
{
  JsonObject *cache;
  JsonNode *node;

  if (riv_job_get_used_cache (job) == NULL)
    return json_node_new (JSON_NODE_NULL);
  cache = json_object_new ();
  json_object_set_string_member (cache, "used", riv_job_get_used_cache (job));
  set_seconds (cache, "duration_s", riv_job_get_cache_duration (job));
  node = json_node_new (JSON_NODE_OBJECT);
  json_node_take_object (node, cache);
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
  set_seconds (record, "upload_s", riv_job_get_upload_time (job));
  json_object_set_member (record, "cache", cache_node (job));
  if (riv_job_get_event_id (job) != NULL)
    json_object_set_string_member (record, "event_id", riv_job_get_event_id (job));
  else
    json_object_set_null_member (record, "event_id");
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

/* A trace's phase in milliseconds: a finite number >= 0. */
static gboolean
trace_ms (JsonObject *trace,
          const char *member,
          double     *ms)
{
  return riv_json_get_double (trace, member, ms) && isfinite (*ms) && *ms >= 0;
}

JsonNode *
riv_job_record_server_timing (JsonObject *trace,
                              double      latency,
                              double     *server_s)
{
  static const struct { const char *trace; const char *record; } phases[] = {
    { "queue_wait_ms", "queue_wait_s" },
    { "preprocess_ms", "preprocess_s" },
    { "fn_call_ms", "fn_call_s" },
    { "postprocess_ms", "postprocess_s" },
    { "streaming_diff_ms", "streaming_diff_s" },
    { "total_ms", "process_s" },
  };
  g_autoptr(JsonObject) server = NULL;
  double queue_ms, total_ms, ms;
  gint64 iterations;
  JsonNode *node;

  g_return_val_if_fail (trace != NULL, NULL);

  /* Without these two there is nothing to split the latency with. */
  if (!trace_ms (trace, "queue_wait_ms", &queue_ms) || !trace_ms (trace, "total_ms", &total_ms))
    return NULL;

  server = json_object_new ();
  for (guint i = 0; i < G_N_ELEMENTS (phases); i++)
    if (trace_ms (trace, phases[i].trace, &ms))
      json_object_set_double_member (server, phases[i].record, ms / 1000);
  if (riv_json_get_int (trace, "n_iterations", &iterations) && iterations >= 0)
    json_object_set_int_member (server, "iterations", iterations);
  *server_s = (queue_ms + total_ms) / 1000;
  json_object_set_double_member (server, "total_s", *server_s);
  if (latency >= 0)
    json_object_set_double_member (server, "client_network_s", latency - *server_s);

  node = json_node_new (JSON_NODE_OBJECT);
  json_node_set_object (node, server);
  return node;
}
