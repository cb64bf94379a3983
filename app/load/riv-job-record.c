/* riv-job-record.c
 * Copyright 2026 The Rivulet authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "config.h"

#include <math.h>
#include <string.h>

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
/* gr.render: what the job's completion put on the page, or null. */
static JsonNode *
rendered_node (RivJob *job)
{
  const char * const *rendered = riv_job_get_rendered (job);
  JsonArray *list;
  JsonNode *node;

  if (rendered == NULL)
    return json_node_new (JSON_NODE_NULL);
  list = json_array_new ();
  for (guint i = 0; rendered[i] != NULL; i++)
    json_array_add_string_element (list, rendered[i]);
  node = json_node_new (JSON_NODE_ARRAY);
  json_node_take_array (node, list);
  return node;
}

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

/* Monotonic submit time → wall clock, so shards' records line up. */
double
riv_job_record_submitted_wall (RivJob *job)
{
  return g_get_real_time () / (double) G_USEC_PER_SEC - (riv_now () - riv_job_get_submitted_at (job));
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
  json_object_set_member (record, "rendered", rendered_node (job));
  if (riv_job_get_event_id (job) != NULL)
    json_object_set_string_member (record, "event_id", riv_job_get_event_id (job));
  else
    json_object_set_null_member (record, "event_id");
  if (user > 0)
    json_object_set_int_member (record, "user", user);
  else
    json_object_set_null_member (record, "user");

  json_object_set_double_member (record, "submitted_at", riv_job_record_submitted_wall (job));

  node = json_node_new (JSON_NODE_OBJECT);
  json_node_take_object (node, record);
  return node;
}

static gboolean
add_bucket (guint64  start_us,
            guint64  count,
            gpointer user_data)
{
  JsonArray *pair = json_array_sized_new (2);

  json_array_add_int_element (pair, (gint64) start_us);
  json_array_add_int_element (pair, (gint64) count);
  json_array_add_array_element (user_data, pair);
  return TRUE;
}

static JsonArray *
hist_array (const RivSketch *sketch)
{
  JsonArray *hist = json_array_new ();

  riv_sketch_foreach (sketch, add_bucket, hist);
  return hist;
}

static void
set_known (JsonObject *object,
           const char *member,
           double      value)
{
  if (value >= 0)
    json_object_set_double_member (object, member, value);
  else
    json_object_set_null_member (object, member);
}

void
riv_job_record_add_stream (JsonNode            *node,
                           const RivLoadStream *stream)
{
  JsonObject *record;

  g_return_if_fail (node != NULL && JSON_NODE_HOLDS_OBJECT (node));
  g_return_if_fail (stream != NULL);

  record = json_node_get_object (node);
  set_known (record, "first_update_s", stream->first_s);
  set_known (record, "first_after_start_s", stream->first_start_s);
  json_object_set_int_member (record, "gaps", stream->n_gaps);
  if (stream->n_gaps > 0)
    {
      JsonObject *gap = json_object_new ();

      json_object_set_double_member (gap, "p50", stream->gap_p50);
      json_object_set_double_member (gap, "p99", stream->gap_p99);
      json_object_set_double_member (gap, "max", stream->gap_max);
      json_object_set_object_member (record, "gap_s", gap);
    }
  else
    json_object_set_null_member (record, "gap_s");
  json_object_set_int_member (record, "stalls", stream->stalls);
  set_known (record, "chars_per_s", stream->chars_per_s);
  set_known (record, "words_per_s", stream->words_per_s);
  json_object_set_array_member (record, "gap_hist_us", hist_array (stream->gaps));
  if (riv_sketch_get_count (stream->delays) > 0)
    {
      JsonObject *stamps = json_object_new ();

      json_object_set_array_member (stamps, "delay_hist_us", hist_array (stream->delays));
      json_object_set_array_member (stamps, "sent_gap_hist_us", hist_array (stream->sent_gaps));
      json_object_set_array_member (stamps, "hold_hist_us", hist_array (stream->holds));
      json_object_set_boolean_member (stamps, "clumped", stream->clumped);
      json_object_set_object_member (record, "stamps", stamps);
    }
}

/* [[start_us, count], …] into a new sketch; NULL (no error) when absent. */
static gboolean
read_hist (JsonObject  *object,
           const char  *member,
           RivSketch  **out,
           GError     **error)
{
  JsonNode *node = json_object_get_member (object, member);
  JsonArray *hist;

  *out = NULL;
  if (node == NULL || JSON_NODE_HOLDS_NULL (node))
    return TRUE;
  if (!JSON_NODE_HOLDS_ARRAY (node))
    goto bad;
  hist = json_node_get_array (node);
  *out = riv_sketch_new ();
  for (guint i = 0; i < json_array_get_length (hist); i++)
    {
      JsonNode *pair = json_array_get_element (hist, i);
      JsonArray *array;
      JsonNode *start, *count;

      if (!JSON_NODE_HOLDS_ARRAY (pair) || json_array_get_length (array = json_node_get_array (pair)) != 2)
        goto bad;
      start = json_array_get_element (array, 0);
      count = json_array_get_element (array, 1);
      if (json_node_get_value_type (start) != G_TYPE_INT64 ||
          json_node_get_value_type (count) != G_TYPE_INT64 ||
          json_node_get_int (start) < 0 || json_node_get_int (count) < 0)
        goto bad;
      riv_sketch_add_bucket (*out, (guint64) json_node_get_int (start),
                             (guint64) json_node_get_int (count));
    }
  return TRUE;

bad:
  g_clear_pointer (out, riv_sketch_free);
  g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA,
               "\"%s\" is not a list of [bucket start µs, count] pairs", member);
  return FALSE;
}

static gboolean
status_from_string (const char   *text,
                    RivJobStatus *status)
{
  static const RivJobStatus terminal[] = {
    RIV_JOB_STATUS_COMPLETED, RIV_JOB_STATUS_FAILED,
    RIV_JOB_STATUS_CANCELLED, RIV_JOB_STATUS_LOST,
  };

  for (guint i = 0; text != NULL && i < G_N_ELEMENTS (terminal); i++)
    if (strcmp (text, riv_job_status_to_string (terminal[i])) == 0)
      {
        *status = terminal[i];
        return TRUE;
      }
  return FALSE;
}

/* A member that is a number (≥ 0 unless any_sign), or null / missing (then
 * -1); FALSE naming the member otherwise. */
static gboolean
read_number (JsonObject  *object,
             const char  *member,
             gboolean     any_sign,
             double      *out,
             GError     **error)
{
  JsonNode *node = json_object_get_member (object, member);

  *out = -1;
  if (node == NULL || JSON_NODE_HOLDS_NULL (node))
    return TRUE;
  if (!riv_json_get_double (object, member, out) || !isfinite (*out) || (!any_sign && *out < 0))
    {
      *out = -1;
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA,
                   any_sign ? "\"%s\" is not a number" : "\"%s\" is not a number of seconds",
                   member);
      return FALSE;
    }
  return TRUE;
}

static gboolean
get_seconds (JsonObject  *record,
             const char  *member,
             double      *out,
             GError     **error)
{
  return read_number (record, member, TRUE, out, error);
}

gboolean
riv_job_record_read_times (JsonObject  *record,
                           double      *queued_s,
                           double      *run_s,
                           double      *latency_s,
                           GError     **error)
{
  return get_seconds (record, "queued_s", queued_s, error) &&
         get_seconds (record, "run_s", run_s, error) &&
         get_seconds (record, "latency_s", latency_s, error);
}

gboolean
riv_job_record_read_outcome (JsonObject    *record,
                             RivJobStatus  *status,
                             double        *submitted_at,
                             GError       **error)
{
  g_return_val_if_fail (record != NULL && status != NULL && submitted_at != NULL, FALSE);

  if (!status_from_string (riv_json_get_string (record, "status"), status))
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA,
                   "\"status\" is not completed, failed, cancelled or lost");
      return FALSE;
    }
  if (!riv_json_get_double (record, "submitted_at", submitted_at) || !isfinite (*submitted_at))
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA,
                   "\"submitted_at\" is missing (records from rivulet-cli load --output)");
      return FALSE;
    }
  return TRUE;
}

static gboolean
read_seconds (JsonObject  *object,
              const char  *member,
              double      *out,
              GError     **error)
{
  return read_number (object, member, FALSE, out, error);
}

/* What a stream read back (its sketches made) takes from them: its gaps,
 * their percentiles and stalls against stall_s, and the exact longest gap
 * where the record had it (exact_max, < 0 or not finite: none). A record
 * without gaps keeps the stalls it says. */
static void
stream_derive (RivLoadStream *stream,
               double         exact_max,
               gint64         stalls,
               double         stall_s)
{
  const RivSketch *gaps = stream->gaps;

  stream->n_gaps = (guint) MIN (riv_sketch_get_count (gaps), G_MAXUINT);
  if (stream->n_gaps > 0)
    {
      stream->gap_p50 = riv_sketch_quantile (gaps, 0.50);
      stream->gap_p99 = riv_sketch_quantile (gaps, 0.99);
      stream->gap_max = riv_sketch_get_max (gaps);
      if (isfinite (exact_max) && exact_max >= 0)
        stream->gap_max = exact_max;
      stream->stalls = (guint) riv_sketch_count_over (gaps, stall_s);
    }
  else
    stream->stalls = (guint) CLAMP (stalls, 0, G_MAXUINT32);
}

gboolean
riv_job_record_read_stream (JsonObject     *record,
                            double          stall_s,
                            RivLoadStream  *stream,
                            GError        **error)
{
  JsonNode *stamps, *gap;
  gint64 stalls = 0;
  double max;
  RivSketch *gaps = NULL, *sent = NULL, *delays = NULL, *holds = NULL;

  g_return_val_if_fail (record != NULL && stream != NULL, FALSE);

  memset (stream, 0, sizeof *stream);
  stream->gap_p50 = stream->gap_p99 = stream->gap_max = -1;
  if (!read_seconds (record, "first_update_s", &stream->first_s, error) ||
      !read_seconds (record, "first_after_start_s", &stream->first_start_s, error) ||
      !read_seconds (record, "chars_per_s", &stream->chars_per_s, error) ||
      !read_seconds (record, "words_per_s", &stream->words_per_s, error) ||
      !read_hist (record, "gap_hist_us", &gaps, error))
    return FALSE;
  stream->gaps = gaps;
  stamps = json_object_get_member (record, "stamps");
  if (stamps != NULL && JSON_NODE_HOLDS_OBJECT (stamps))
    {
      JsonObject *object = json_node_get_object (stamps);

      if (!read_hist (object, "delay_hist_us", &delays, error) ||
          !read_hist (object, "sent_gap_hist_us", &sent, error) ||
          !read_hist (object, "hold_hist_us", &holds, error))
        {
          riv_job_record_stream_clear (stream);
          riv_sketch_free (delays);
          riv_sketch_free (sent);
          return FALSE;
        }
      stream->delays = delays;
      stream->sent_gaps = sent;
      stream->holds = holds;
      stream->clumped = riv_json_get_bool (object, "clumped", FALSE);
    }

  gap = json_object_get_member (record, "gap_s");
  if (gap == NULL || !JSON_NODE_HOLDS_OBJECT (gap) ||
      !riv_json_get_double (json_node_get_object (gap), "max", &max))
    max = -1;
  riv_json_get_int (record, "stalls", &stalls);
  stream_derive (stream, max, stalls, stall_s);
  return TRUE;
}

void
riv_job_record_stream_clear (RivLoadStream *stream)
{
  riv_sketch_free ((RivSketch *) stream->gaps);
  riv_sketch_free ((RivSketch *) stream->sent_gaps);
  riv_sketch_free ((RivSketch *) stream->delays);
  riv_sketch_free ((RivSketch *) stream->holds);
  stream->gaps = stream->sent_gaps = stream->delays = stream->holds = NULL;
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

/* ---- brief records ---- */

#define BRIEF_PREFIX "#job "

/* The fields before the gaps' buckets, at most: the prefix, a status, five
 * counts and eleven numbers each after a space (at most 20 and 16 digits),
 * the cache flag and the space after them. */
#define BRIEF_HEAD_BYTES (sizeof BRIEF_PREFIX + 16 + 5 * 21 + 11 * 17 + 2 + 1)

/* A brief's numbers are written and read here by hand, not with printf and
 * strtod: a worker writes some twenty a job and the parent reads them all,
 * and with printf's "%a" and strtod they were most of what the brief cost. */

/* A count in decimal at at; returns the end. */
static char *
brief_put_uint (char    *at,
                guint64  value)
{
  char digits[20];
  guint n = sizeof digits;

  do
    digits[--n] = (char) ('0' + value % 10);
  while ((value /= 10) != 0);
  memcpy (at, digits + n, sizeof digits - n);
  return at + (sizeof digits - n);
}

/* A double exactly: its 64 bits (IEEE 754, the sign first) in lower-case
 * hexadecimal without leading zeros, so 1 is 3ff0000000000000, 0 is 0 and
 * -0 is 8000000000000000. Returns the end. */
static char *
brief_put_bits (char   *at,
                double  value)
{
  static const char hex[] = "0123456789abcdef";
  char digits[16];
  guint n = sizeof digits;
  guint64 bits;

  memcpy (&bits, &value, sizeof bits);
  do
    digits[--n] = hex[bits & 0xf];
  while ((bits >>= 4) != 0);
  memcpy (at, digits + n, sizeof digits - n);
  return at + (sizeof digits - n);
}

static char *
brief_put_unknown (char *at)
{
  *at++ = ' ';
  *at++ = '-';
  return at;
}

/* Seconds, exactly; "-" for unknown (< 0), as a JSON record's null. */
static char *
brief_put_seconds (char   *at,
                   double  value)
{
  if (!(isfinite (value) && value >= 0))
    return brief_put_unknown (at);
  *at++ = ' ';
  return brief_put_bits (at, value);
}

/* Any finite number, exactly ("-" otherwise: a record's null). */
static char *
brief_put_number (char   *at,
                  double  value)
{
  if (!isfinite (value))
    return brief_put_unknown (at);
  *at++ = ' ';
  return brief_put_bits (at, value);
}

static char *
brief_put_count (char    *at,
                 guint64  value)
{
  *at++ = ' ';
  return brief_put_uint (at, value);
}

/* Text in a brief field: no space, comma, line break or tab of its own. */
static void
brief_put_text (GString    *out,
                const char *text)
{
  for (const char *p = text; *p != '\0'; p++)
    switch (*p)
      {
      case '\\': g_string_append (out, "\\\\"); break;
      case ' ':  g_string_append (out, "\\s"); break;
      case ',':  g_string_append (out, "\\c"); break;
      case '\n': g_string_append (out, "\\n"); break;
      case '\r': g_string_append (out, "\\r"); break;
      case '\t': g_string_append (out, "\\t"); break;
      default:   g_string_append_c (out, *p); break;
      }
}

static gboolean
brief_put_bucket (guint64  start_us,
                  guint64  count,
                  gpointer user_data)
{
  GString *out = user_data;
  char pair[2 * 20 + 2], *at = pair;

  if (out->str[out->len - 1] != ' ' && out->str[out->len - 1] != ';')
    *at++ = ',';
  at = brief_put_uint (at, start_us);
  *at++ = ':';
  at = brief_put_uint (at, count);
  g_string_append_len (out, pair, at - pair);
  return TRUE;
}

/* A sketch's buckets, "." when it has none. */
static void
brief_put_sketch (GString         *out,
                  const RivSketch *sketch)
{
  gsize before = out->len;

  riv_sketch_foreach (sketch, brief_put_bucket, out);
  if (out->len == before)
    g_string_append_c (out, '.');
}

static void
brief_put_level (GString    *out,
                 const char *level,
                 gboolean    first)
{
  if (!first)
    g_string_append_c (out, ',');
  brief_put_text (out, level != NULL ? level : "");
}

void
riv_load_record_write_brief (GString             *out,
                             const RivLoadRecord *r,
                             guint                scenario)
{
  const RivLoadStream *s;
  const char *status;
  char head[BRIEF_HEAD_BYTES], *at = head;
  guint n_levels = 0;

  g_return_if_fail (out != NULL && r != NULL);
  g_return_if_fail (RIV_JOB_STATUS_IS_TERMINAL (r->status));

  s = &r->stream;
  status = riv_job_status_to_string (r->status);
  g_assert (strlen (status) <= 16);

  /* The fields with a bounded length, in head, then added in one go. */
  at = stpcpy (at, BRIEF_PREFIX);
  at = stpcpy (at, status);
  at = brief_put_count (at, scenario);
  *at++ = ' ';
  at = brief_put_bits (at, isfinite (r->submitted_at) ? r->submitted_at : 0);
  at = brief_put_number (at, r->queued_s);
  at = brief_put_number (at, r->run_s);
  at = brief_put_number (at, r->latency_s);
  at = brief_put_count (at, r->updates);
  at = brief_put_count (at, r->user);
  at = brief_put_count (at, r->batch_size);
  at = brief_put_number (at, r->upload_s);
  at = stpcpy (at, r->cached ? " 1" : " 0");
  at = brief_put_seconds (at, r->server_s);
  at = brief_put_seconds (at, s->first_s);
  at = brief_put_seconds (at, s->first_start_s);
  at = brief_put_seconds (at, s->chars_per_s);
  at = brief_put_seconds (at, s->words_per_s);
  at = brief_put_seconds (at, s->n_gaps > 0 ? s->gap_max : -1);
  at = brief_put_count (at, s->stalls);
  *at++ = ' ';
  g_assert ((gsize) (at - head) <= sizeof head);
  g_string_append_len (out, head, at - head);

  brief_put_sketch (out, s->gaps);
  /* The server's stamps, when the job (or the record read) has them. */
  if (s->delays != NULL || s->sent_gaps != NULL || s->holds != NULL || s->clumped)
    {
      g_string_append (out, s->clumped ? " 1;" : " 0;");
      brief_put_sketch (out, s->delays);
      g_string_append_c (out, ';');
      brief_put_sketch (out, s->sent_gaps);
      g_string_append_c (out, ';');
      brief_put_sketch (out, s->holds);
    }
  else
    g_string_append (out, " -");

  /* The levels of its logs (a record's logs, or levels of their own). */
  g_string_append_c (out, ' ');
  for (guint i = 0; r->levels != NULL && i < r->levels->len; i++)
    brief_put_level (out, g_ptr_array_index (r->levels, i), n_levels++ == 0);
  for (guint i = 0; r->levels == NULL && r->logs != NULL && i < json_array_get_length (r->logs); i++)
    {
      JsonNode *log = json_array_get_element (r->logs, i);

      if (JSON_NODE_HOLDS_OBJECT (log))
        brief_put_level (out, riv_json_get_string (json_node_get_object (log), "level"),
                         n_levels++ == 0);
    }
  if (n_levels == 0)
    g_string_append_c (out, '-');
  else if (out->str[out->len - 1] == ' ')
    g_string_append (out, "\\e");   /* one empty level: the field is not empty */

  if (r->error != NULL)
    {
      g_string_append (out, " =");
      brief_put_text (out, r->error);
    }
  else
    g_string_append (out, " -");
}

/* The next field of a brief, cut out of *rest; NULL when there is none.
 * (Fields are short: a plain loop finds their end sooner than strchr ().) */
static char *
brief_field (char **rest)
{
  char *field = *rest, *end;

  if (field == NULL)
    return NULL;
  for (end = field; *end != ' ' && *end != '\0'; end++)
    ;
  if (*end == ' ')
    *end++ = '\0';
  else
    end = NULL;
  *rest = end;
  return field;
}

/* Undoes brief_put_text () in place; FALSE for an escape it never makes or
 * text that is not UTF-8. */
static gboolean
brief_unescape (char *text)
{
  char *to = text;

  for (const char *p = text; *p != '\0'; p++)
    {
      if (*p != '\\')
        {
          *to++ = *p;
          continue;
        }
      switch (*++p)
        {
        case '\\': *to++ = '\\'; break;
        case 's':  *to++ = ' '; break;
        case 'c':  *to++ = ','; break;
        case 'n':  *to++ = '\n'; break;
        case 'r':  *to++ = '\r'; break;
        case 't':  *to++ = '\t'; break;
        case 'e':  break;
        default:   return FALSE;
        }
    }
  *to = '\0';
  return g_utf8_validate (text, -1, NULL);
}

/* A count brief_put_uint () wrote: decimal digits only, at most most. */
static gboolean
brief_uint (const char *field,
            guint64     most,
            guint64    *out)
{
  guint64 value = 0;

  if (field == NULL || *field == '\0')
    return FALSE;
  for (const char *p = field; *p != '\0'; p++)
    {
      guint digit = (guint) (*p - '0');

      if (digit > 9 || value > (most - digit) / 10)
        return FALSE;
      value = value * 10 + digit;
    }
  *out = value;
  return TRUE;
}

/* A double brief_put_bits () wrote: 1 to 16 lower-case hexadecimal digits. */
static gboolean
brief_bits (const char *field,
            double     *out)
{
  guint64 bits = 0;
  guint n = 0;

  for (const char *p = field; *p != '\0'; p++, n++)
    {
      guint digit;

      if (*p >= '0' && *p <= '9')
        digit = (guint) (*p - '0');
      else if (*p >= 'a' && *p <= 'f')
        digit = (guint) (*p - 'a' + 10);
      else
        return FALSE;
      if (n == 16)
        return FALSE;
      bits = bits << 4 | digit;
    }
  if (n == 0)
    return FALSE;
  memcpy (out, &bits, sizeof *out);
  return TRUE;
}

/* A number of seconds: finite, at least 0 unless any_sign; "-" is -1. */
static gboolean
brief_seconds (const char *field,
               gboolean    any_sign,
               double     *out)
{
  *out = -1;
  if (field == NULL)
    return FALSE;
  if (strcmp (field, "-") == 0)
    return TRUE;
  return brief_bits (field, out) && isfinite (*out) && (any_sign || *out >= 0);
}

/* "start:count,…" into a new sketch; "." (no buckets) into none, NULL, which
 * every reader of a stream takes as empty: most jobs have no gaps, and the
 * parent reads one a job. */
static gboolean
brief_sketch (char       *field,
              RivSketch **out)
{
  *out = NULL;
  if (strcmp (field, ".") == 0)
    return TRUE;
  *out = riv_sketch_new ();
  for (char *pair = field; pair != NULL; )
    {
      char *next = strchr (pair, ',');
      char *colon;
      guint64 start, count;

      if (next != NULL)
        *next++ = '\0';
      colon = strchr (pair, ':');
      if (colon == NULL)
        return FALSE;
      *colon = '\0';
      if (!brief_uint (pair, G_MAXINT64, &start) || !brief_uint (colon + 1, G_MAXINT64, &count))
        return FALSE;
      riv_sketch_add_bucket (*out, start, count);
      pair = next;
    }
  return TRUE;
}

/* The stamps field: "-", or "clumped;delays;sent gaps;holds". */
static gboolean
brief_stamps (char          *field,
              RivLoadStream *stream)
{
  RivSketch *delays = NULL, *sent = NULL, *holds = NULL;
  char *parts[4];
  gboolean ok;

  if (strcmp (field, "-") == 0)
    return TRUE;
  for (guint i = 0; i < 4; i++)
    {
      parts[i] = field;
      field = field != NULL ? strchr (field, ';') : NULL;
      if (field != NULL)
        *field++ = '\0';
      if (parts[i] == NULL)
        return FALSE;
    }
  if (field != NULL || (strcmp (parts[0], "0") != 0 && strcmp (parts[0], "1") != 0))
    return FALSE;
  ok = brief_sketch (parts[1], &delays) && brief_sketch (parts[2], &sent) &&
       brief_sketch (parts[3], &holds);
  stream->delays = delays;
  stream->sent_gaps = sent;
  stream->holds = holds;
  stream->clumped = parts[0][0] == '1';
  return ok;
}

static gboolean
brief_levels (char           *field,
              RivLoadRecord  *out)
{
  if (strcmp (field, "-") == 0)
    return TRUE;
  out->levels = g_ptr_array_new ();
  for (char *level = field; level != NULL; )
    {
      char *next = strchr (level, ',');

      if (next != NULL)
        *next++ = '\0';
      if (!brief_unescape (level))
        return FALSE;
      g_ptr_array_add (out->levels, level);
      level = next;
    }
  return TRUE;
}

gboolean
riv_load_record_read_brief (RivLoadRecord  *out,
                            char           *line,
                            double          stall_s,
                            guint          *scenario,
                            GError        **error)
{
  static const char *const names[] = {
    "status", "scenario", "submitted_at", "queued_s", "run_s", "latency_s", "updates", "user",
    "batch size", "upload_s", "cache", "server time", "first_update_s", "first_after_start_s",
    "chars_per_s", "words_per_s", "longest gap", "stalls", "gaps", "stamps", "log levels",
    "error",
  };
  char *fields[G_N_ELEMENTS (names)];
  char *rest;
  guint64 scenario_n, updates, user, batch, stalls;
  RivSketch *gaps = NULL;
  double max;
  guint bad = 0;

  g_return_val_if_fail (out != NULL && line != NULL && scenario != NULL, FALSE);

  *out = (RivLoadRecord) { .upload_s = -1, .server_s = -1 };
  out->stream.gap_p50 = out->stream.gap_p99 = out->stream.gap_max = -1;
  if (!g_str_has_prefix (line, BRIEF_PREFIX))
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA, "not a brief record");
      return FALSE;
    }
  rest = line + strlen (BRIEF_PREFIX);
  for (guint i = 0; i < G_N_ELEMENTS (fields); i++)
    if ((fields[i] = brief_field (&rest)) == NULL)
      {
        g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA, "no %s", names[i]);
        return FALSE;
      }

  /* Each field in turn: bad is the first that is not what it should be. */
  if (!status_from_string (fields[bad], &out->status) ||
      !brief_uint (fields[++bad], G_MAXUINT, &scenario_n) ||
      strcmp (fields[++bad], "-") == 0 || !brief_seconds (fields[bad], TRUE, &out->submitted_at) ||
      !brief_seconds (fields[++bad], TRUE, &out->queued_s) ||
      !brief_seconds (fields[++bad], TRUE, &out->run_s) ||
      !brief_seconds (fields[++bad], TRUE, &out->latency_s) ||
      !brief_uint (fields[++bad], G_MAXUINT32, &updates) ||
      !brief_uint (fields[++bad], G_MAXUINT32, &user) ||
      !brief_uint (fields[++bad], G_MAXUINT16, &batch) ||
      !brief_seconds (fields[++bad], TRUE, &out->upload_s) ||
      (strcmp (fields[++bad], "0") != 0 && strcmp (fields[bad], "1") != 0) ||
      !brief_seconds (fields[++bad], FALSE, &out->server_s) ||
      !brief_seconds (fields[++bad], FALSE, &out->stream.first_s) ||
      !brief_seconds (fields[++bad], FALSE, &out->stream.first_start_s) ||
      !brief_seconds (fields[++bad], FALSE, &out->stream.chars_per_s) ||
      !brief_seconds (fields[++bad], FALSE, &out->stream.words_per_s) ||
      !brief_seconds (fields[++bad], FALSE, &max) ||
      !brief_uint (fields[++bad], G_MAXUINT32, &stalls) ||
      (++bad, !brief_sketch (fields[bad], &gaps)) ||
      (out->stream.gaps = gaps, !brief_stamps (fields[++bad], &out->stream)) ||
      !brief_levels (fields[++bad], out) ||
      (strcmp (fields[++bad], "-") != 0 && (fields[bad][0] != '=' || !brief_unescape (fields[bad] + 1))))
    goto fail;
  if (rest != NULL)
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA, "more than a brief record");
      riv_load_record_clear (out);
      return FALSE;
    }

  *scenario = (guint) scenario_n;
  out->updates = (guint) updates;
  out->user = (guint) user;
  out->batch_size = (guint) batch;
  out->cached = out->status == RIV_JOB_STATUS_COMPLETED && fields[10][0] == '1';
  if (out->status != RIV_JOB_STATUS_COMPLETED || out->latency_s < 0)
    out->server_s = -1;
  out->error = fields[G_N_ELEMENTS (fields) - 1][0] == '=' ? fields[G_N_ELEMENTS (fields) - 1] + 1
                                                           : NULL;
  stream_derive (&out->stream, max, (gint64) stalls, stall_s);
  return TRUE;

fail:
  if (gaps != NULL && out->stream.gaps == NULL)
    riv_sketch_free (gaps);
  riv_load_record_clear (out);
  g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA, "its %s is not one", names[bad]);
  return FALSE;
}
