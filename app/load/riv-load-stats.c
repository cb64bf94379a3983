/* riv-load-stats.c
 * Copyright 2026 The Rivulet authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "config.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "riv-job.h"
#include "riv-job-record.h"
#include "riv-json.h"
#include "riv-load-stats.h"
#include "riv-outcomes.h"
#include "riv-stream-quality.h"

#define MAX_ERROR_KINDS  1000    /* distinct texts kept; the rest count as "other errors" */
#define OTHER_ERRORS     "(other errors)"
#define MAX_SERIES_S     (7 * 24 * 3600)

/* One job: 56 bytes, so a million jobs stay within 56 MB. */
typedef struct
{
  double   submitted_at;   /* wall clock, Unix seconds */
  float    queued_s;       /* < 0: never started */
  float    run_s;          /* < 0: unknown */
  float    latency_s;      /* < 0: did not end */
  float    first_s;        /* submit → first update, < 0: none */
  float    first_start_s;  /* process_starts → first update, < 0: unknown */
  float    gap_max;        /* its longest gap, < 0: it did not stream */
  guint32  updates;
  guint32  user;
  guint32  error;          /* 0 none, else 1 + index in error_texts */
  guint32  stalls;
  guint16  batch_size;
  guint8   status;
  guint8   clumped : 1;    /* riv_stream_clumped () against the server's stamps */
} Entry;

struct _RivLoadStats
{
  GArray     *entries;       /* Entry */
  GPtrArray  *error_texts;   /* char *, owned */
  GArray     *error_counts;  /* guint64, parallel to error_texts */
  GHashTable *error_index;   /* text (borrowed) → index + 1 */
  GArray     *latencies;     /* double, completed jobs; sorted lazily */
  gboolean    sorted;
  double      end_at;        /* 0: the last job's end */
  GHashTable *logs;          /* level (owned) → count (gsize) */
  GArray     *batch_members; /* guint64: jobs by batch size (index 0: not batched) */
  guint64     uploads;       /* jobs that sent files */
  double      upload_total;
  double      upload_max;
  guint64     cached;
  GArray     *server_s;      /* double: server time of the jobs with one */
  GArray     *rest_s;        /* double: their latency minus it */
  /* Streaming, of the completed jobs: every gap, the server's stamped gaps
   * and delays, pooled; the text rates' sums. */
  double      stall_s;
  RivSketch  *gaps;
  RivSketch  *sent_gaps;
  RivSketch  *delays;
  RivSketch  *holds;
  guint64     text_jobs;
  double      chars_per_s_sum;
  double      words_per_s_sum;
};

RivLoadStats *
riv_load_stats_new (void)
{
  RivLoadStats *self = g_new0 (RivLoadStats, 1);

  self->entries = g_array_new (FALSE, FALSE, sizeof (Entry));
  self->error_texts = g_ptr_array_new_with_free_func (g_free);
  self->error_counts = g_array_new (FALSE, TRUE, sizeof (guint64));
  self->error_index = g_hash_table_new (g_str_hash, g_str_equal);
  self->latencies = g_array_new (FALSE, FALSE, sizeof (double));
  self->sorted = TRUE;
  self->logs = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  self->batch_members = g_array_new (FALSE, TRUE, sizeof (guint64));
  self->server_s = g_array_new (FALSE, FALSE, sizeof (double));
  self->rest_s = g_array_new (FALSE, FALSE, sizeof (double));
  self->stall_s = RIV_STREAM_STALL_DEFAULT_S;
  self->gaps = riv_sketch_new ();
  self->sent_gaps = riv_sketch_new ();
  self->delays = riv_sketch_new ();
  self->holds = riv_sketch_new ();
  return self;
}

void
riv_load_stats_free (RivLoadStats *self)
{
  if (self == NULL)
    return;
  g_array_unref (self->entries);
  g_hash_table_unref (self->error_index);
  g_ptr_array_unref (self->error_texts);
  g_array_unref (self->error_counts);
  g_array_unref (self->latencies);
  g_hash_table_unref (self->logs);
  g_array_unref (self->batch_members);
  g_array_unref (self->server_s);
  g_array_unref (self->rest_s);
  riv_sketch_free (self->gaps);
  riv_sketch_free (self->sent_gaps);
  riv_sketch_free (self->delays);
  riv_sketch_free (self->holds);
  g_free (self);
}

static guint32
intern_error (RivLoadStats *self,
              const char   *text)
{
  guint index;

  if (text == NULL)
    return 0;
  if (*text == '\0')
    text = "(no message)";

  index = GPOINTER_TO_UINT (g_hash_table_lookup (self->error_index, text));
  if (index == 0)
    {
      char *copy;

      if (self->error_texts->len >= MAX_ERROR_KINDS)
        text = OTHER_ERRORS;
      index = GPOINTER_TO_UINT (g_hash_table_lookup (self->error_index, text));
      if (index == 0)
        {
          guint64 zero = 0;

          copy = g_strdup (text);
          g_ptr_array_add (self->error_texts, copy);
          g_array_append_val (self->error_counts, zero);
          index = self->error_texts->len;
          g_hash_table_insert (self->error_index, copy, GUINT_TO_POINTER (index));
        }
    }
  g_array_index (self->error_counts, guint64, index - 1)++;
  return index;
}

void
riv_load_stats_add (RivLoadStats *self,
                    double        submitted_at,
                    double        queued_s,
                    double        run_s,
                    double        latency_s,
                    RivJobStatus  status,
                    guint         updates,
                    guint         user,
                    guint         batch_size,
                    const char   *error)
{
  Entry entry = { 0 };

  g_return_if_fail (self != NULL);
  g_return_if_fail (RIV_JOB_STATUS_IS_TERMINAL (status));

  entry.submitted_at = submitted_at;
  entry.queued_s = queued_s >= 0 ? (float) queued_s : -1;
  entry.run_s = run_s >= 0 ? (float) run_s : -1;
  entry.latency_s = latency_s >= 0 ? (float) latency_s : -1;
  entry.first_s = entry.first_start_s = entry.gap_max = -1;
  entry.updates = updates;
  entry.user = user;
  entry.batch_size = (guint16) MIN (batch_size, G_MAXUINT16);
  entry.status = status;
  entry.error = intern_error (self, error);
  g_array_append_val (self->entries, entry);
  if (entry.batch_size >= self->batch_members->len)
    g_array_set_size (self->batch_members, entry.batch_size + 1);
  g_array_index (self->batch_members, guint64, entry.batch_size)++;

  if (status == RIV_JOB_STATUS_COMPLETED && latency_s >= 0)
    {
      g_array_append_val (self->latencies, latency_s);
      self->sorted = FALSE;
    }
}

void
riv_load_stats_merge (RivLoadStats *self,
                      RivLoadStats *other)
{
  GHashTableIter iter;
  gpointer key, value;

  g_return_if_fail (self != NULL && other != NULL && self != other);

  for (guint i = 0; i < other->entries->len; i++)
    {
      Entry entry = g_array_index (other->entries, Entry, i);

      entry.error = entry.error > 0
        ? intern_error (self, g_ptr_array_index (other->error_texts, entry.error - 1)) : 0;
      g_array_append_val (self->entries, entry);
    }
  if (other->batch_members->len > self->batch_members->len)
    g_array_set_size (self->batch_members, other->batch_members->len);
  for (guint s = 0; s < other->batch_members->len; s++)
    g_array_index (self->batch_members, guint64, s) += g_array_index (other->batch_members, guint64, s);
  g_array_append_vals (self->latencies, other->latencies->data, other->latencies->len);
  self->sorted = self->sorted && other->latencies->len == 0;
  self->end_at = MAX (self->end_at, other->end_at);
  g_hash_table_iter_init (&iter, other->logs);
  while (g_hash_table_iter_next (&iter, &key, &value))
    {
      gsize count = GPOINTER_TO_SIZE (g_hash_table_lookup (self->logs, key));

      g_hash_table_insert (self->logs, g_strdup (key),
                           GSIZE_TO_POINTER (count + GPOINTER_TO_SIZE (value)));
    }
  self->uploads += other->uploads;
  self->upload_total += other->upload_total;
  self->upload_max = MAX (self->upload_max, other->upload_max);
  self->cached += other->cached;
  g_array_append_vals (self->server_s, other->server_s->data, other->server_s->len);
  g_array_append_vals (self->rest_s, other->rest_s->data, other->rest_s->len);
  riv_sketch_merge (self->gaps, other->gaps);
  riv_sketch_merge (self->sent_gaps, other->sent_gaps);
  riv_sketch_merge (self->delays, other->delays);
  riv_sketch_merge (self->holds, other->holds);
  self->text_jobs += other->text_jobs;
  self->chars_per_s_sum += other->chars_per_s_sum;
  self->words_per_s_sum += other->words_per_s_sum;
}

void
riv_load_stream_from_job (RivJob        *job,
                          double         stall_s,
                          RivLoadStream *stream)
{
  const RivSketch *gaps = riv_job_get_gaps (job);
  const RivSketch *sent = riv_job_get_sent_gaps (job);

  memset (stream, 0, sizeof *stream);
  stream->first_s = riv_job_get_first_update_time (job);
  stream->first_start_s = riv_job_get_first_after_start (job);
  stream->gaps = gaps;
  stream->sent_gaps = sent;
  stream->delays = riv_job_get_delays (job);
  stream->holds = riv_job_get_holds (job);
  stream->n_gaps = riv_job_get_n_gaps (job);
  stream->gap_p50 = stream->n_gaps > 0 ? riv_sketch_quantile (gaps, 0.50) : -1;
  stream->gap_p99 = stream->n_gaps > 0 ? riv_sketch_quantile (gaps, 0.99) : -1;
  stream->gap_max = riv_job_get_max_gap (job);
  stream->stalls = riv_job_count_stalls (job, stall_s);
  riv_job_get_text_rate (job, &stream->chars_per_s, &stream->words_per_s);
  stream->clumped = riv_sketch_get_count (sent) > 0 &&
    riv_stream_clumped (stream->n_gaps + 1, riv_sketch_get_sum (sent), riv_sketch_get_sum (gaps));
}

void
riv_load_stats_add_stream (RivLoadStats        *self,
                           const RivLoadStream *stream)
{
  Entry *entry;

  g_return_if_fail (self != NULL && stream != NULL);
  g_return_if_fail (self->entries->len > 0);

  entry = &g_array_index (self->entries, Entry, self->entries->len - 1);
  entry->first_s = stream->first_s >= 0 ? (float) stream->first_s : -1;
  entry->first_start_s = stream->first_start_s >= 0 ? (float) stream->first_start_s : -1;
  entry->gap_max = stream->n_gaps > 0 ? (float) stream->gap_max : -1;
  entry->stalls = stream->stalls;
  entry->clumped = stream->clumped;
  /* Pooled over the completed jobs, as the latencies are. */
  if (entry->status != RIV_JOB_STATUS_COMPLETED)
    return;
  riv_sketch_merge (self->gaps, stream->gaps);
  riv_sketch_merge (self->sent_gaps, stream->sent_gaps);
  riv_sketch_merge (self->delays, stream->delays);
  riv_sketch_merge (self->holds, stream->holds);
  if (stream->chars_per_s >= 0)
    {
      self->text_jobs++;
      self->chars_per_s_sum += stream->chars_per_s;
      self->words_per_s_sum += MAX (stream->words_per_s, 0);
    }
}

void
riv_load_stats_set_stall (RivLoadStats *self,
                          double        stall_s)
{
  g_return_if_fail (self != NULL);
  self->stall_s = stall_s;
}

double
riv_load_stats_get_stall (RivLoadStats *self)
{
  g_return_val_if_fail (self != NULL, RIV_STREAM_STALL_DEFAULT_S);
  return self->stall_s;
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

/* A member that is a number, or null / missing (then -1). */
static gboolean
get_seconds (JsonObject  *record,
             const char  *member,
             double      *out,
             GError     **error)
{
  JsonNode *node = json_object_get_member (record, member);

  *out = -1;
  if (node == NULL || JSON_NODE_HOLDS_NULL (node))
    return TRUE;
  if (!riv_json_get_double (record, member, out) || !isfinite (*out))
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA,
                   "\"%s\" is not a number", member);
      return FALSE;
    }
  return TRUE;
}

gboolean
riv_load_stats_add_record (RivLoadStats  *self,
                           JsonObject    *record,
                           GError       **error)
{
  RivJobStatus status;
  double submitted_at, queued_s, run_s, latency_s;
  gint64 updates = 0, user = 0, batch_size = 0;
  double upload_s, server_s;
  JsonNode *batch;
  JsonNode *logs;
  JsonNode *cache;
  JsonNode *server;
  RivLoadStream stream;

  g_return_val_if_fail (self != NULL, FALSE);
  g_return_val_if_fail (record != NULL, FALSE);

  if (!status_from_string (riv_json_get_string (record, "status"), &status))
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA,
                   "\"status\" is not completed, failed, cancelled or lost");
      return FALSE;
    }
  if (!riv_json_get_double (record, "submitted_at", &submitted_at) || !isfinite (submitted_at))
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA,
                   "\"submitted_at\" is missing (records from rivulet-cli load --output)");
      return FALSE;
    }
  if (!get_seconds (record, "queued_s", &queued_s, error) ||
      !get_seconds (record, "run_s", &run_s, error) ||
      !get_seconds (record, "latency_s", &latency_s, error))
    return FALSE;
  /* Read before anything is counted: a malformed record adds nothing. */
  if (!riv_job_record_read_stream (record, self->stall_s, &stream, error))
    return FALSE;
  riv_json_get_int (record, "updates", &updates);
  riv_json_get_int (record, "user", &user);
  batch = json_object_get_member (record, "batch");
  if (batch != NULL && JSON_NODE_HOLDS_OBJECT (batch))
    riv_json_get_int (json_node_get_object (batch), "size", &batch_size);

  if (riv_json_get_double (record, "upload_s", &upload_s) && isfinite (upload_s))
    riv_load_stats_add_upload (self, upload_s);
  cache = json_object_get_member (record, "cache");
  if (status == RIV_JOB_STATUS_COMPLETED && cache != NULL && JSON_NODE_HOLDS_OBJECT (cache))
    riv_load_stats_count_cached (self);
  server = json_object_get_member (record, "server");
  if (status == RIV_JOB_STATUS_COMPLETED && server != NULL && JSON_NODE_HOLDS_OBJECT (server) &&
      riv_json_get_double (json_node_get_object (server), "total_s", &server_s) &&
      isfinite (server_s) && server_s >= 0 && latency_s >= 0)
    riv_load_stats_add_server_time (self, server_s, latency_s);

  logs = json_object_get_member (record, "logs");
  if (logs != NULL && JSON_NODE_HOLDS_ARRAY (logs))
    {
      JsonArray *array = json_node_get_array (logs);

      for (guint i = 0; i < json_array_get_length (array); i++)
        {
          JsonNode *log = json_array_get_element (array, i);

          if (JSON_NODE_HOLDS_OBJECT (log))
            riv_load_stats_count_log (self, riv_json_get_string (json_node_get_object (log),
                                                                 "level"));
        }
    }

  riv_load_stats_add (self, submitted_at, queued_s, run_s, latency_s, status,
                      (guint) CLAMP (updates, 0, G_MAXUINT32),
                      (guint) CLAMP (user, 0, G_MAXUINT32),
                      (guint) CLAMP (batch_size, 0, G_MAXUINT16),
                      riv_json_get_string (record, "error"));
  riv_load_stats_add_stream (self, &stream);
  riv_job_record_stream_clear (&stream);
  return TRUE;
}

static int
compare_strings (const void *a,
                 const void *b)
{
  return g_strcmp0 (*(const char * const *) a, *(const char * const *) b);
}

void
riv_load_stats_add_upload (RivLoadStats *self,
                           double        upload_s)
{
  g_return_if_fail (self != NULL);

  if (!(upload_s >= 0))
    return;
  self->uploads++;
  self->upload_total += upload_s;
  self->upload_max = MAX (self->upload_max, upload_s);
}

void
riv_load_stats_count_cached (RivLoadStats *self)
{
  g_return_if_fail (self != NULL);
  self->cached++;
}

void
riv_load_stats_add_server_time (RivLoadStats *self,
                                double        server_s,
                                double        latency_s)
{
  double rest = latency_s - server_s;

  g_return_if_fail (self != NULL);

  if (!(server_s >= 0) || !(latency_s >= 0))
    return;
  g_array_append_val (self->server_s, server_s);
  g_array_append_val (self->rest_s, rest);
}

/* Mean and median of values (sorted in place). */
static void
mean_median (GArray *values,
             double *mean,
             double *median)
{
  double total = 0;

  *mean = *median = 0;
  if (values->len == 0)
    return;
  g_array_sort (values, riv_load_compare_doubles);
  for (guint i = 0; i < values->len; i++)
    total += g_array_index (values, double, i);
  *mean = total / values->len;
  *median = riv_load_percentile ((const double *) (gpointer) values->data, values->len, 0.5);
}

void
riv_load_stats_count_log (RivLoadStats *self,
                          const char   *level)
{
  gpointer key, value;

  g_return_if_fail (self != NULL);

  if (level == NULL || *level == '\0')
    level = "info";
  if (g_hash_table_lookup_extended (self->logs, level, &key, &value))
    g_hash_table_insert (self->logs, g_strdup (level),
                         GSIZE_TO_POINTER (GPOINTER_TO_SIZE (value) + 1));
  else
    g_hash_table_insert (self->logs, g_strdup (level), GSIZE_TO_POINTER (1));
}

char *
riv_load_stats_format_logs (RivLoadStats *self)
{
  g_autofree gpointer *levels = NULL;
  GString *text;
  guint n;

  g_return_val_if_fail (self != NULL, NULL);

  if (g_hash_table_size (self->logs) == 0)
    return NULL;
  levels = g_hash_table_get_keys_as_array (self->logs, &n);
  qsort (levels, n, sizeof (gpointer), compare_strings);
  text = g_string_new (NULL);
  for (guint i = 0; i < n; i++)
    g_string_append_printf (text, "%s%" G_GSIZE_FORMAT " %s", i > 0 ? ", " : "",
                            GPOINTER_TO_SIZE (g_hash_table_lookup (self->logs, levels[i])),
                            (const char *) levels[i]);
  return g_string_free (text, FALSE);
}

GHashTable *
riv_load_stats_get_log_counts (RivLoadStats *self)
{
  g_return_val_if_fail (self != NULL, NULL);
  return self->logs;
}

void
riv_load_stats_set_end (RivLoadStats *self,
                        double        end_at)
{
  g_return_if_fail (self != NULL);
  self->end_at = end_at;
}

guint64
riv_load_stats_get_n_jobs (RivLoadStats *self)
{
  g_return_val_if_fail (self != NULL, 0);
  return self->entries->len;
}

int
riv_load_compare_doubles (gconstpointer a,
                          gconstpointer b)
{
  double x = *(const double *) a;
  double y = *(const double *) b;

  return (x > y) - (x < y);
}

const double *
riv_load_stats_get_latencies (RivLoadStats *self,
                              guint        *n)
{
  g_return_val_if_fail (self != NULL, NULL);

  if (!self->sorted)
    {
      g_array_sort (self->latencies, riv_load_compare_doubles);
      self->sorted = TRUE;
    }
  *n = self->latencies->len;
  return (const double *) (gpointer) self->latencies->data;
}

double
riv_load_percentile (const double *sorted,
                     guint         n,
                     double        q)
{
  guint rank;

  if (n == 0)
    return 0;
  rank = (guint) ceil (q * n);
  rank = CLAMP (rank, 1, n);
  return sorted[rank - 1];
}

static double
first_submit (RivLoadStats *self)
{
  double start = INFINITY;

  for (guint i = 0; i < self->entries->len; i++)
    start = MIN (start, g_array_index (self->entries, Entry, i).submitted_at);
  return isfinite (start) ? start : 0;
}

static double
entry_end (const Entry *entry)
{
  return entry->latency_s >= 0 ? entry->submitted_at + entry->latency_s : -1;
}

static double
run_end (RivLoadStats *self)
{
  double end = 0;

  for (guint i = 0; i < self->entries->len; i++)
    {
      const Entry *entry = &g_array_index (self->entries, Entry, i);

      end = MAX (end, MAX (entry_end (entry), entry->submitted_at));
    }
  return MAX (end, self->end_at);
}

/* Sorts values and takes its percentiles (q in qs) into out. */
static void
sorted_percentiles (GArray       *values,
                    const double *qs,
                    double      **out,
                    guint         n_qs)
{
  g_array_sort (values, riv_load_compare_doubles);
  for (guint i = 0; i < n_qs; i++)
    *out[i] = riv_load_percentile ((const double *) values->data, values->len, qs[i]);
}

/* A value that is known (not < 0). */
static void
append_known (GArray *values,
              double  value)
{
  if (value >= 0)
    g_array_append_val (values, value);
}

static void
summarize_streaming (RivLoadStats   *self,
                     RivLoadSummary *s)
{
  static const double first_qs[] = { 0.50, 0.90, 0.95, 0.99, 1.0 };
  static const double two_qs[] = { 0.50, 0.95 };
  static const double max_qs[] = { 0.50, 0.99 };
  g_autoptr(GArray) firsts = g_array_new (FALSE, FALSE, sizeof (double));
  g_autoptr(GArray) from_start = g_array_new (FALSE, FALSE, sizeof (double));
  g_autoptr(GArray) job_max = g_array_new (FALSE, FALSE, sizeof (double));

  for (guint i = 0; i < self->entries->len; i++)
    {
      const Entry *entry = &g_array_index (self->entries, Entry, i);

      s->stalls += entry->stalls;
      s->stalled_jobs += entry->stalls > 0;
      if (entry->status != RIV_JOB_STATUS_COMPLETED)
        continue;
      append_known (firsts, entry->first_s);
      append_known (from_start, entry->first_start_s);
      append_known (job_max, entry->gap_max);
      s->clumped += entry->clumped;
    }

  s->first_n = firsts->len;
  sorted_percentiles (firsts, first_qs,
                      (double *[]) { &s->first_p50, &s->first_p90, &s->first_p95, &s->first_p99,
                                     &s->first_max }, G_N_ELEMENTS (first_qs));
  sorted_percentiles (from_start, two_qs,
                      (double *[]) { &s->first_start_p50, &s->first_start_p95 },
                      G_N_ELEMENTS (two_qs));
  s->streamed = job_max->len;
  sorted_percentiles (job_max, max_qs,
                      (double *[]) { &s->job_gap_max_p50, &s->job_gap_max_p99 },
                      G_N_ELEMENTS (max_qs));

  s->gaps = riv_sketch_get_count (self->gaps);
  s->gap_p50 = riv_sketch_quantile (self->gaps, 0.50);
  s->gap_p99 = riv_sketch_quantile (self->gaps, 0.99);
  s->gap_max = riv_sketch_get_max (self->gaps);
  s->stall_s = self->stall_s;
  s->text_jobs = self->text_jobs;
  if (self->text_jobs > 0)
    {
      s->chars_per_s = self->chars_per_s_sum / self->text_jobs;
      s->words_per_s = self->words_per_s_sum / self->text_jobs;
    }
  s->stamped = riv_sketch_get_count (self->delays);
  s->delay_p50 = riv_sketch_quantile (self->delays, 0.50);
  s->delay_p99 = riv_sketch_quantile (self->delays, 0.99);
  s->delay_max = riv_sketch_get_max (self->delays);
  s->sent_gap_p50 = riv_sketch_quantile (self->sent_gaps, 0.50);
  s->sent_gap_p99 = riv_sketch_quantile (self->sent_gaps, 0.99);
  s->sent_gap_max = riv_sketch_get_max (self->sent_gaps);
  s->hold_p50 = riv_sketch_quantile (self->holds, 0.50);
  s->hold_p99 = riv_sketch_quantile (self->holds, 0.99);
  s->hold_max = riv_sketch_get_max (self->holds);
}

void
riv_load_stats_summarize (RivLoadStats   *self,
                          RivLoadSummary *summary)
{
  const double *sorted;
  guint n;
  double total = 0;
  double batches = 0;
  guint64 batched = 0;
  RivOutcomes outcomes = { 0 };
  g_autoptr(GArray) series = NULL;

  g_return_if_fail (self != NULL);
  g_return_if_fail (summary != NULL);

  memset (summary, 0, sizeof *summary);
  for (guint i = 0; i < self->entries->len; i++)
    {
      const Entry *entry = &g_array_index (self->entries, Entry, i);

      summary->submitted++;
      riv_outcomes_add (&outcomes, (RivJobStatus) entry->status);
      summary->updates += entry->updates;
      if (entry->batch_size > 0)
        {
          batches += 1.0 / entry->batch_size;
          batched++;
        }
    }

  summary->completed = outcomes.completed;
  summary->failed = outcomes.failed;
  summary->cancelled = outcomes.cancelled;
  summary->lost = outcomes.lost;

  if (self->entries->len > 0)
    summary->duration_s = MAX (0, run_end (self) - first_submit (self));
  if (summary->duration_s > 0)
    summary->throughput_per_s = summary->completed / summary->duration_s;

  sorted = riv_load_stats_get_latencies (self, &n);
  for (guint i = 0; i < n; i++)
    total += sorted[i];
  summary->p50 = riv_load_percentile (sorted, n, 0.50);
  summary->p90 = riv_load_percentile (sorted, n, 0.90);
  summary->p95 = riv_load_percentile (sorted, n, 0.95);
  summary->p99 = riv_load_percentile (sorted, n, 0.99);
  summary->max = n > 0 ? sorted[n - 1] : 0;
  summary->mean = n > 0 ? total / n : 0;

  /* A batch of size s has s members, each counting 1/s of it. */
  summary->batches = (guint64) llround (batches);
  summary->mean_batch_size = summary->batches > 0 ? (double) batched / summary->batches : 0;
  summary->error_kinds = self->error_texts->len;
  summary->uploads = self->uploads;
  summary->upload_total = self->upload_total;
  summary->upload_max = self->upload_max;
  summary->upload_mean = self->uploads > 0 ? self->upload_total / self->uploads : 0;
  summary->cached = self->cached;
  summary->server_timed = self->server_s->len;
  mean_median (self->server_s, &summary->server_mean, &summary->server_p50);
  mean_median (self->rest_s, &summary->rest_mean, &summary->rest_p50);

  summarize_streaming (self, summary);

  series = riv_load_stats_timeseries (self);
  for (guint i = 0; i < series->len; i++)
    summary->users = MAX (summary->users, g_array_index (series, RivLoadSample, i).users);
}

const RivSketch *
riv_load_stats_get_gaps (RivLoadStats *self)
{
  g_return_val_if_fail (self != NULL, NULL);
  return self->gaps;
}

typedef struct
{
  guint  bucket;
  double latency;   /* or time to first update, in Timeline.firsts */
} Finished;

static int
compare_finished (gconstpointer a,
                  gconstpointer b)
{
  const Finished *x = a, *y = b;

  if (x->bucket != y->bucket)
    return x->bucket < y->bucket ? -1 : 1;
  return (x->latency > y->latency) - (x->latency < y->latency);
}

typedef struct
{
  double first;
  double last;
} UserSpan;

static guint
bucket_of (double t,
           double start,
           guint  n_buckets)
{
  double b = floor (t - start);

  if (!(b > 0))
    return 0;
  return (guint) MIN (b, (double) (n_buckets - 1));
}

/* delta[b] += 1 from bucket `from` (inclusive) to `to` (exclusive); -1 marks the end. */
static void
add_span (int   *delta,
          guint  from,
          guint  to)
{
  if (to <= from)
    return;
  delta[from]++;
  delta[to]--;
}

/* The per-second counts of a time series while its jobs are added: spans
 * (in flight, queued, users) as +1/-1 where they begin and end, summed up
 * once every job is in. Each array has one more slot than there are seconds:
 * spans that last to the end close there. */
typedef struct
{
  double       start;
  double       end;
  guint        n_buckets;
  int         *in_flight;
  int         *queued;
  int         *users;
  double      *updates;
  RivOutcomes *ends;       /* the jobs that ended in each second */
  GArray      *finished;   /* Finished: the completed jobs' latencies */
  GArray      *firsts;     /* Finished: their times to first update */
  guint       *stalls;     /* of the jobs that ended in each second */
  GHashTable  *spans;      /* user → UserSpan */
} Timeline;

static void
timeline_init (Timeline     *tl,
               RivLoadStats *self)
{
  tl->start = first_submit (self);
  tl->end = run_end (self);
  tl->n_buckets = (guint) MIN (ceil (tl->end - tl->start), MAX_SERIES_S);
  tl->n_buckets = MAX (tl->n_buckets, 1);
  tl->in_flight = g_new0 (int, tl->n_buckets + 1);
  tl->queued = g_new0 (int, tl->n_buckets + 1);
  tl->users = g_new0 (int, tl->n_buckets + 1);
  tl->updates = g_new0 (double, tl->n_buckets);
  tl->ends = g_new0 (RivOutcomes, tl->n_buckets);
  tl->finished = g_array_new (FALSE, FALSE, sizeof (Finished));
  tl->firsts = g_array_new (FALSE, FALSE, sizeof (Finished));
  tl->stalls = g_new0 (guint, tl->n_buckets);
  tl->spans = g_hash_table_new_full (NULL, NULL, NULL, g_free);
}

static void
timeline_clear (Timeline *tl)
{
  g_clear_pointer (&tl->in_flight, g_free);
  g_clear_pointer (&tl->queued, g_free);
  g_clear_pointer (&tl->users, g_free);
  g_clear_pointer (&tl->updates, g_free);
  g_clear_pointer (&tl->ends, g_free);
  g_clear_pointer (&tl->finished, g_array_unref);
  g_clear_pointer (&tl->firsts, g_array_unref);
  g_clear_pointer (&tl->stalls, g_free);
  g_clear_pointer (&tl->spans, g_hash_table_unref);
}

G_DEFINE_AUTO_CLEANUP_CLEAR_FUNC (Timeline, timeline_clear)

/* Updates spread evenly over the job's run (or its whole life). */
static void
timeline_add_updates (Timeline    *tl,
                      const Entry *entry,
                      double       began,
                      double       until)
{
  double from = began >= 0 ? began : entry->submitted_at;
  guint b_from = bucket_of (from, tl->start, tl->n_buckets);
  guint b_to = bucket_of (until, tl->start, tl->n_buckets);
  double share = (double) entry->updates / (b_to - b_from + 1);

  for (guint b = b_from; b <= b_to; b++)
    tl->updates[b] += share;
}

/* The first submission and the last end of the user's jobs. */
static void
timeline_add_user (Timeline    *tl,
                   const Entry *entry,
                   double       until)
{
  UserSpan *span = g_hash_table_lookup (tl->spans, GUINT_TO_POINTER (entry->user));

  if (span == NULL)
    {
      span = g_new (UserSpan, 1);
      span->first = entry->submitted_at;
      span->last = until;
      g_hash_table_insert (tl->spans, GUINT_TO_POINTER (entry->user), span);
    }
  span->first = MIN (span->first, entry->submitted_at);
  span->last = MAX (span->last, until);
}

/* One job: started in its submission's second, ended (with its outcome) in
 * its end's; in flight and queued over the seconds between. */
static void
timeline_add_entry (Timeline    *tl,
                    GArray      *series,
                    const Entry *entry)
{
  double ended = entry_end (entry);
  double began = entry->queued_s >= 0 ? entry->submitted_at + entry->queued_s : -1;
  double until = ended >= 0 ? ended : tl->end;
  guint b_submit = bucket_of (entry->submitted_at, tl->start, tl->n_buckets);
  guint b_end = ended >= 0 ? bucket_of (ended, tl->start, tl->n_buckets) : tl->n_buckets - 1;
  /* Counted at a second's end: a span covers the seconds that end inside it. */
  guint s_from = b_submit;
  guint s_to = ended >= 0 ? b_end : tl->n_buckets;

  g_array_index (series, RivLoadSample, b_submit).started++;
  if (riv_outcomes_add (&tl->ends[b_end], (RivJobStatus) entry->status) == RIV_JOB_STATUS_COMPLETED)
    {
      Finished f = { b_end, entry->latency_s };
      Finished first = { b_end, entry->first_s };

      if (entry->first_s >= 0)
        g_array_append_val (tl->firsts, first);

      g_array_append_val (tl->finished, f);
    }

  tl->stalls[b_end] += entry->stalls;
  add_span (tl->in_flight, s_from, s_to);
  add_span (tl->queued, s_from, began >= 0 ? bucket_of (began, tl->start, tl->n_buckets) : s_to);
  if (entry->updates > 0)
    timeline_add_updates (tl, entry, began, until);
  if (entry->user > 0)
    timeline_add_user (tl, entry, until);
}

/* Every second: the running sums of the spans, updates and outcomes. */
static void
timeline_fill (Timeline *tl,
               GArray   *series)
{
  GHashTableIter iter;
  gpointer value;
  int flight = 0, waiting = 0, active = 0;

  g_hash_table_iter_init (&iter, tl->spans);
  while (g_hash_table_iter_next (&iter, NULL, &value))
    {
      UserSpan *span = value;
      guint from = bucket_of (span->first, tl->start, tl->n_buckets);
      guint to = bucket_of (span->last, tl->start, tl->n_buckets);

      /* A user counts in every second it was active in, at least its first. */
      add_span (tl->users, from, MAX (to, from + 1));
    }

  for (guint b = 0; b < tl->n_buckets; b++)
    {
      RivLoadSample *sample = &g_array_index (series, RivLoadSample, b);

      flight += tl->in_flight[b];
      waiting += tl->queued[b];
      active += tl->users[b];
      sample->in_flight = (guint) MAX (flight, 0);
      sample->queued = (guint) MAX (waiting, 0);
      sample->users = (guint) MAX (active, 0);
      sample->updates_per_s = tl->updates[b];
      sample->completed = (guint) tl->ends[b].completed;
      sample->failed = (guint) tl->ends[b].failed;
      sample->cancelled = (guint) tl->ends[b].cancelled;
      sample->lost = (guint) tl->ends[b].lost;
      sample->p50 = sample->p95 = sample->p99 = -1;
      sample->first_p50 = sample->first_p95 = -1;
      sample->stalls = tl->stalls[b];
    }
}

/* Each second's latency (or with firsts, time to first update)
 * percentiles, of the jobs that completed in it. */
static void
timeline_fill_percentiles (GArray   *finished,
                           GArray   *series,
                           gboolean  firsts)
{
  g_array_sort (finished, compare_finished);
  for (guint i = 0; i < finished->len;)
    {
      guint bucket = g_array_index (finished, Finished, i).bucket;
      guint j = i;
      g_autofree double *values = NULL;
      RivLoadSample *sample = &g_array_index (series, RivLoadSample, bucket);

      while (j < finished->len && g_array_index (finished, Finished, j).bucket == bucket)
        j++;
      values = g_new (double, j - i);
      for (guint k = i; k < j; k++)
        values[k - i] = g_array_index (finished, Finished, k).latency;
      if (firsts)
        {
          sample->first_p50 = riv_load_percentile (values, j - i, 0.50);
          sample->first_p95 = riv_load_percentile (values, j - i, 0.95);
        }
      else
        {
          sample->p50 = riv_load_percentile (values, j - i, 0.50);
          sample->p95 = riv_load_percentile (values, j - i, 0.95);
          sample->p99 = riv_load_percentile (values, j - i, 0.99);
        }
      i = j;
    }
}

GArray *
riv_load_stats_timeseries (RivLoadStats *self)
{
  GArray *series;
  g_auto(Timeline) tl = { 0 };

  g_return_val_if_fail (self != NULL, NULL);

  series = g_array_new (FALSE, TRUE, sizeof (RivLoadSample));
  if (self->entries->len == 0)
    return series;

  timeline_init (&tl, self);
  g_array_set_size (series, tl.n_buckets);
  for (guint i = 0; i < tl.n_buckets; i++)
    g_array_index (series, RivLoadSample, i).t = i;

  for (guint i = 0; i < self->entries->len; i++)
    timeline_add_entry (&tl, series, &g_array_index (self->entries, Entry, i));
  timeline_fill (&tl, series);
  timeline_fill_percentiles (tl.finished, series, FALSE);
  timeline_fill_percentiles (tl.firsts, series, TRUE);

  return series;
}

static void
append_latency (GString *csv,
                double   value)
{
  if (value >= 0)
    g_string_append_printf (csv, ",%.4f", value);
  else
    g_string_append_c (csv, ',');
}

char *
riv_load_stats_timeseries_csv (RivLoadStats *self)
{
  g_autoptr(GArray) series = riv_load_stats_timeseries (self);
  GString *csv = g_string_new ("t_s,started,completed,failed,cancelled,lost,in_flight,queued,"
                               "p50_s,p95_s,p99_s,updates_per_s,users,"
                               "first_update_p50_s,first_update_p95_s,stalls\n");

  for (guint i = 0; i < series->len; i++)
    {
      const RivLoadSample *s = &g_array_index (series, RivLoadSample, i);

      g_string_append_printf (csv, "%.0f,%u,%u,%u,%u,%u,%u,%u", s->t, s->started, s->completed,
                              s->failed, s->cancelled, s->lost, s->in_flight, s->queued);
      append_latency (csv, s->p50);
      append_latency (csv, s->p95);
      append_latency (csv, s->p99);
      g_string_append_printf (csv, ",%.1f,%u", s->updates_per_s, s->users);
      append_latency (csv, s->first_p50);
      append_latency (csv, s->first_p95);
      g_string_append_printf (csv, ",%u\n", s->stalls);
    }
  return g_string_free (csv, FALSE);
}

/* Whether second b ends a stretch of seconds without completions that a job
 * lost in b was in flight through (submitted before b): with a proxy in
 * front, a job waits out its stream's reconnects and is counted lost only
 * when those are used up, which can be after the server is back. */
static gboolean *
lost_after_silence (RivLoadStats *self,
                    guint         n_buckets)
{
  gboolean *marks = g_new0 (gboolean, n_buckets);
  double start = first_submit (self);

  for (guint i = 0; i < self->entries->len; i++)
    {
      const Entry *entry = &g_array_index (self->entries, Entry, i);
      double ended = entry_end (entry);
      guint b_end;

      if (entry->status != RIV_JOB_STATUS_LOST || ended < 0)
        continue;
      b_end = bucket_of (ended, start, n_buckets);
      if (bucket_of (entry->submitted_at, start, n_buckets) < b_end)
        marks[b_end] = TRUE;
    }
  return marks;
}

gboolean
riv_load_stats_find_outage (RivLoadStats *self,
                            double       *start_s,
                            double       *end_s)
{
  g_autoptr(GArray) series = NULL;
  g_autofree gboolean *lost_after = NULL;
  guint best_from = 0, best_len = 0;
  gboolean any_completed = FALSE;

  g_return_val_if_fail (self != NULL, FALSE);

  series = riv_load_stats_timeseries (self);
  for (guint i = 0; i < series->len; i++)
    any_completed |= g_array_index (series, RivLoadSample, i).completed > 0;
  if (!any_completed)
    return FALSE;

  lost_after = lost_after_silence (self, series->len);
  for (guint i = 0; i < series->len;)
    {
      guint j = i;
      gboolean bad = FALSE;

      while (j < series->len && g_array_index (series, RivLoadSample, j).completed == 0)
        {
          const RivLoadSample *sample = &g_array_index (series, RivLoadSample, j);

          bad |= sample->failed + sample->lost > 0;
          j++;
        }
      bad |= j > i && j < series->len && lost_after[j];
      if (bad && j - i > best_len)
        {
          best_from = i;
          best_len = j - i;
        }
      i = MAX (j, i + 1);
    }
  if (best_len == 0)
    return FALSE;
  if (start_s != NULL)
    *start_s = g_array_index (series, RivLoadSample, best_from).t;
  if (end_s != NULL)
    *end_s = best_from + best_len < series->len
           ? g_array_index (series, RivLoadSample, best_from + best_len).t : -1;
  return TRUE;
}

guint64 *
riv_load_stats_batch_sizes (RivLoadStats *self,
                            guint        *max_size)
{
  const guint64 *members;
  guint64 *counts;
  guint top;

  g_return_val_if_fail (self != NULL, NULL);

  /* Kept as jobs are added: the cost follows the largest size, not the run. */
  members = (const guint64 *) self->batch_members->data;
  top = self->batch_members->len > 0 ? self->batch_members->len - 1 : 0;
  counts = g_new0 (guint64, top + 1);
  for (guint s = 1; s <= top; s++)
    counts[s] = (members[s] + s - 1) / s;   /* a batch of s has s members */

  *max_size = top;
  return counts;
}

static int
compare_errors (gconstpointer a,
                gconstpointer b)
{
  const RivLoadError *x = a, *y = b;

  if (x->count != y->count)
    return x->count > y->count ? -1 : 1;
  return strcmp (x->text, y->text);
}

GArray *
riv_load_stats_errors (RivLoadStats *self)
{
  GArray *errors = g_array_new (FALSE, FALSE, sizeof (RivLoadError));

  g_return_val_if_fail (self != NULL, errors);

  for (guint i = 0; i < self->error_texts->len; i++)
    {
      RivLoadError error = {
        g_ptr_array_index (self->error_texts, i),
        g_array_index (self->error_counts, guint64, i),
      };

      g_array_append_val (errors, error);
    }
  g_array_sort (errors, compare_errors);
  return errors;
}

double
riv_load_nice_ceiling (double value)
{
  double power, fraction;

  if (!(value > 0))
    return 1;
  power = pow (10, floor (log10 (value)));
  fraction = value / power;
  if (fraction <= 1)
    return power;
  if (fraction <= 2)
    return 2 * power;
  if (fraction <= 5)
    return 5 * power;
  return 10 * power;
}
