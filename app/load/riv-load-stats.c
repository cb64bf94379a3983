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
#include "riv-load-series.h"
#include "riv-load-stats.h"
#include "riv-outcomes.h"
#include "riv-stream-quality.h"

#define MAX_ERROR_KINDS  1000    /* distinct texts kept; the rest count as "other errors" */
#define OTHER_ERRORS     "(other errors)"

/* The job riv_load_stats_add () added, until its streaming figures come
 * (riv_load_stats_add_stream ()) or the next job does. */
typedef struct
{
  RivLoadSeriesJob job;
  double           first_start_s;  /* process_starts → first update, < 0: unknown */
  double           gap_max;        /* its longest gap, < 0: it did not stream */
  gboolean         clumped;        /* riv_stream_clumped () against the server's stamps */
} Entry;

struct _RivLoadStats
{
  GRecMutex      lock;
  gint           ref_count;
  guint64        n_jobs;
  RivOutcomes    outcomes;
  guint64        updates;
  double         batches;       /* each batched job counts 1/size of its batch */
  guint64        batched;
  double         first_submit;  /* INFINITY: no job yet */
  double         last_end;      /* the latest end (or submit) of a job */
  double         start;         /* the run's first submit, declared; < 0: none */
  gboolean       has_pending;
  Entry          pending;
  RivLoadSeries *series;        /* NULL until the origin is known */
  GArray        *unplaced;      /* RivLoadSeriesJob: counted before it was */
  GPtrArray     *error_texts;   /* char *, owned */
  GArray        *error_counts;  /* guint64, parallel to error_texts */
  GHashTable    *error_index;   /* text (borrowed) → index + 1 */
  double         end_at;        /* 0: the last job's end */
  GHashTable    *logs;          /* level (owned) → count (gsize) */
  GArray        *batch_members; /* guint64: jobs by batch size (index 0: not batched) */
  guint64        uploads;       /* jobs that sent files */
  double         upload_total;
  double         upload_max;
  guint64        cached;
  guint64        dropped;       /* arrival rate: jobs due but not started */
  /* Completed jobs: latency, time to first update (from submit and from
   * process_starts), each streamed job's longest gap; exact sums and max. */
  RivSketch     *latency;
  double         latency_sum;
  double         latency_max;
  RivSketch     *first;
  RivSketch     *first_start;
  RivSketch     *job_gap_max;
  guint64        stalls;
  guint64        stalled_jobs;
  guint64        clumped;
  /* Server time of the jobs with one, and the rest of their latency (which
   * can be below 0: negated in rest_below). */
  RivSketch     *server_s;
  double         server_sum;
  RivSketch     *rest_s;
  RivSketch     *rest_below;
  double         rest_sum;
  /* Streaming, of the completed jobs: every gap, the server's stamped gaps
   * and delays, pooled; the text rates' sums. */
  double         stall_s;
  RivSketch     *gaps;
  RivSketch     *sent_gaps;
  RivSketch     *delays;
  RivSketch     *holds;
  guint64        text_jobs;
  double         chars_per_s_sum;
  double         words_per_s_sum;
};

RivLoadStats *
riv_load_stats_new (void)
{
  RivLoadStats *self = g_new0 (RivLoadStats, 1);

  g_rec_mutex_init (&self->lock);
  self->ref_count = 1;
  self->first_submit = INFINITY;
  self->start = -1;
  self->unplaced = g_array_new (FALSE, FALSE, sizeof (RivLoadSeriesJob));
  self->error_texts = g_ptr_array_new_with_free_func (g_free);
  self->error_counts = g_array_new (FALSE, TRUE, sizeof (guint64));
  self->error_index = g_hash_table_new (g_str_hash, g_str_equal);
  self->logs = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  self->batch_members = g_array_new (FALSE, TRUE, sizeof (guint64));
  self->latency = riv_sketch_new ();
  self->first = riv_sketch_new ();
  self->first_start = riv_sketch_new ();
  self->job_gap_max = riv_sketch_new ();
  self->server_s = riv_sketch_new ();
  self->rest_s = riv_sketch_new ();
  self->rest_below = riv_sketch_new ();
  self->stall_s = RIV_STREAM_STALL_DEFAULT_S;
  self->gaps = riv_sketch_new ();
  self->sent_gaps = riv_sketch_new ();
  self->delays = riv_sketch_new ();
  self->holds = riv_sketch_new ();
  return self;
}

RivLoadStats *
riv_load_stats_ref (RivLoadStats *self)
{
  g_return_val_if_fail (self != NULL, NULL);
  g_atomic_int_inc (&self->ref_count);
  return self;
}

void
riv_load_stats_free (RivLoadStats *self)
{
  if (self == NULL || !g_atomic_int_dec_and_test (&self->ref_count))
    return;
  riv_load_series_free (self->series);
  g_array_unref (self->unplaced);
  g_hash_table_unref (self->error_index);
  g_ptr_array_unref (self->error_texts);
  g_array_unref (self->error_counts);
  g_hash_table_unref (self->logs);
  g_array_unref (self->batch_members);
  riv_sketch_free (self->latency);
  riv_sketch_free (self->first);
  riv_sketch_free (self->first_start);
  riv_sketch_free (self->job_gap_max);
  riv_sketch_free (self->server_s);
  riv_sketch_free (self->rest_s);
  riv_sketch_free (self->rest_below);
  riv_sketch_free (self->gaps);
  riv_sketch_free (self->sent_gaps);
  riv_sketch_free (self->delays);
  riv_sketch_free (self->holds);
  g_rec_mutex_clear (&self->lock);
  g_free (self);
}

void
riv_load_stats_lock (RivLoadStats *self)
{
  g_rec_mutex_lock (&self->lock);
}

void
riv_load_stats_unlock (RivLoadStats *self)
{
  g_rec_mutex_unlock (&self->lock);
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
  else if (riv_load_error_class (text) != NULL)
    text = riv_load_error_class (text);

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

/* Places the unplaced jobs once the origin is known. */
static void
place (RivLoadStats *self,
       double        origin,
       gboolean      live)
{
  self->series = riv_load_series_new (origin, live);
  for (guint i = 0; i < self->unplaced->len; i++)
    riv_load_series_add (self->series, &g_array_index (self->unplaced, RivLoadSeriesJob, i));
  g_array_set_size (self->unplaced, 0);
}

/* The pending job's streaming figures and its place in the series: nothing
 * of it is kept but what it added to the counts and sketches. */
static void
commit (RivLoadStats *self)
{
  const Entry *entry = &self->pending;

  if (!self->has_pending)
    return;
  self->has_pending = FALSE;
  self->stalls += entry->job.stalls;
  self->stalled_jobs += entry->job.stalls > 0;
  if (entry->job.status == RIV_JOB_STATUS_COMPLETED)
    {
      riv_sketch_add (self->first, entry->job.first_s);
      riv_sketch_add (self->first_start, entry->first_start_s);
      riv_sketch_add (self->job_gap_max, entry->gap_max);
      self->clumped += entry->clumped;
    }
  if (self->series == NULL && self->start >= 0)
    place (self, self->start, TRUE);
  if (self->series != NULL)
    riv_load_series_add (self->series, &entry->job);
  else
    g_array_append_val (self->unplaced, entry->job);
}

void
riv_load_stats_set_start (RivLoadStats *self,
                          double        start_at)
{
  g_return_if_fail (self != NULL);

  g_rec_mutex_lock (&self->lock);
  if (self->series == NULL && isfinite (start_at))
    self->start = self->start >= 0 ? MIN (self->start, start_at) : start_at;
  g_rec_mutex_unlock (&self->lock);
}

void
riv_load_stats_add_dropped (RivLoadStats *self)
{
  g_return_if_fail (self != NULL);

  g_rec_mutex_lock (&self->lock);
  self->dropped++;
  g_rec_mutex_unlock (&self->lock);
}

static double
run_end (RivLoadStats *self)
{
  return MAX (self->last_end, self->end_at);
}

/* Every job counted, in the series. */
static RivLoadSeries *
get_series (RivLoadStats *self)
{
  commit (self);
  if (self->series == NULL)
    place (self, self->start >= 0 ? MIN (self->start, self->first_submit) : self->first_submit,
           FALSE);
  return self->series;
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
  Entry *entry;
  double ended;

  g_return_if_fail (self != NULL);
  g_return_if_fail (RIV_JOB_STATUS_IS_TERMINAL (status));

  g_rec_mutex_lock (&self->lock);
  commit (self);
  entry = &self->pending;
  memset (entry, 0, sizeof *entry);
  ended = latency_s >= 0 ? submitted_at + latency_s : -1;
  entry->job.submitted_at = submitted_at;
  entry->job.began = queued_s >= 0 ? submitted_at + queued_s : -1;
  entry->job.ended = ended;
  entry->job.latency_s = latency_s >= 0 ? latency_s : -1;
  entry->job.first_s = entry->first_start_s = entry->gap_max = -1;
  entry->job.status = status;
  entry->job.updates = updates;
  entry->job.user = user;
  self->has_pending = TRUE;

  self->n_jobs++;
  riv_outcomes_add (&self->outcomes, status);
  self->updates += updates;
  batch_size = MIN (batch_size, G_MAXUINT16);
  if (batch_size > 0)
    {
      self->batches += 1.0 / batch_size;
      self->batched++;
    }
  if (batch_size >= self->batch_members->len)
    g_array_set_size (self->batch_members, batch_size + 1);
  g_array_index (self->batch_members, guint64, batch_size)++;
  intern_error (self, error);
  self->first_submit = MIN (self->first_submit, submitted_at);
  self->last_end = MAX (self->last_end, MAX (ended, submitted_at));
  if (status == RIV_JOB_STATUS_COMPLETED && latency_s >= 0)
    {
      riv_sketch_add (self->latency, latency_s);
      self->latency_sum += latency_s;
      self->latency_max = MAX (self->latency_max, latency_s);
    }
  g_rec_mutex_unlock (&self->lock);
  (void) run_s;
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
  Entry *entry = &self->pending;

  g_return_if_fail (self != NULL && stream != NULL);

  g_rec_mutex_lock (&self->lock);
  if (!self->has_pending)
    {
      g_rec_mutex_unlock (&self->lock);
      g_return_if_reached ();
    }
  entry->job.first_s = stream->first_s >= 0 ? stream->first_s : -1;
  entry->first_start_s = stream->first_start_s >= 0 ? stream->first_start_s : -1;
  entry->gap_max = stream->n_gaps > 0 ? stream->gap_max : -1;
  entry->job.stalls = stream->stalls;
  entry->clumped = stream->clumped;
  /* Pooled over the completed jobs, as the latencies are. */
  if (entry->job.status == RIV_JOB_STATUS_COMPLETED)
    {
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
  commit (self);
  g_rec_mutex_unlock (&self->lock);
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


gboolean
riv_load_record_read (RivLoadRecord  *out,
                      JsonObject     *record,
                      double          stall_s,
                      GError        **error)
{
  gint64 updates = 0, user = 0, batch_size = 0;
  JsonNode *batch, *logs, *cache, *server;

  g_return_val_if_fail (out != NULL, FALSE);
  g_return_val_if_fail (record != NULL, FALSE);

  *out = (RivLoadRecord) { .upload_s = -1, .server_s = -1 };
  if (!riv_job_record_read_outcome (record, &out->status, &out->submitted_at, error) ||
      !riv_job_record_read_times (record, &out->queued_s, &out->run_s, &out->latency_s, error) ||
      /* Read before anything is counted: a malformed record adds nothing. */
      !riv_job_record_read_stream (record, stall_s, &out->stream, error))
    return FALSE;
  riv_json_get_int (record, "updates", &updates);
  riv_json_get_int (record, "user", &user);
  batch = json_object_get_member (record, "batch");
  if (batch != NULL && JSON_NODE_HOLDS_OBJECT (batch))
    riv_json_get_int (json_node_get_object (batch), "size", &batch_size);
  out->updates = (guint) CLAMP (updates, 0, G_MAXUINT32);
  out->user = (guint) CLAMP (user, 0, G_MAXUINT32);
  out->batch_size = (guint) CLAMP (batch_size, 0, G_MAXUINT16);

  if (!riv_json_get_double (record, "upload_s", &out->upload_s) || !isfinite (out->upload_s))
    out->upload_s = -1;
  cache = json_object_get_member (record, "cache");
  out->cached = out->status == RIV_JOB_STATUS_COMPLETED && cache != NULL &&
                JSON_NODE_HOLDS_OBJECT (cache);
  server = json_object_get_member (record, "server");
  if (out->status != RIV_JOB_STATUS_COMPLETED || server == NULL ||
      !JSON_NODE_HOLDS_OBJECT (server) ||
      !riv_json_get_double (json_node_get_object (server), "total_s", &out->server_s) ||
      !isfinite (out->server_s) || out->server_s < 0 || out->latency_s < 0)
    out->server_s = -1;
  logs = json_object_get_member (record, "logs");
  out->logs = logs != NULL && JSON_NODE_HOLDS_ARRAY (logs) ? json_node_get_array (logs) : NULL;
  out->error = riv_json_get_string (record, "error");
  return TRUE;
}

void
riv_load_record_clear (RivLoadRecord *record)
{
  riv_job_record_stream_clear (&record->stream);
  g_clear_pointer (&record->levels, g_ptr_array_unref);
}

void
riv_load_stats_add_read (RivLoadStats        *self,
                         const RivLoadRecord *r)
{
  g_return_if_fail (self != NULL);
  g_return_if_fail (r != NULL);

  if (r->upload_s >= 0)
    riv_load_stats_add_upload (self, r->upload_s);
  if (r->cached)
    riv_load_stats_count_cached (self);
  if (r->server_s >= 0)
    riv_load_stats_add_server_time (self, r->server_s, r->latency_s);
  for (guint i = 0; r->logs != NULL && i < json_array_get_length (r->logs); i++)
    {
      JsonNode *log = json_array_get_element (r->logs, i);

      if (JSON_NODE_HOLDS_OBJECT (log))
        riv_load_stats_count_log (self, riv_json_get_string (json_node_get_object (log),
                                                             "level"));
    }
  for (guint i = 0; r->levels != NULL && i < r->levels->len; i++)
    riv_load_stats_count_log (self, g_ptr_array_index (r->levels, i));
  riv_load_stats_add (self, r->submitted_at, r->queued_s, r->run_s, r->latency_s, r->status,
                      r->updates, r->user, r->batch_size, r->error);
  riv_load_stats_add_stream (self, &r->stream);
}

gboolean
riv_load_stats_add_record (RivLoadStats  *self,
                           JsonObject    *record,
                           GError       **error)
{
  RivLoadRecord read;

  g_return_val_if_fail (self != NULL, FALSE);
  g_return_val_if_fail (record != NULL, FALSE);

  if (!riv_load_record_read (&read, record, self->stall_s, error))
    return FALSE;
  riv_load_stats_add_read (self, &read);
  riv_load_record_clear (&read);
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
  g_rec_mutex_lock (&self->lock);
  self->uploads++;
  self->upload_total += upload_s;
  self->upload_max = MAX (self->upload_max, upload_s);
  g_rec_mutex_unlock (&self->lock);
}

void
riv_load_stats_count_cached (RivLoadStats *self)
{
  g_return_if_fail (self != NULL);
  g_rec_mutex_lock (&self->lock);
  self->cached++;
  g_rec_mutex_unlock (&self->lock);
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
  g_rec_mutex_lock (&self->lock);
  riv_sketch_add (self->server_s, server_s);
  self->server_sum += server_s;
  riv_sketch_add (rest >= 0 ? self->rest_s : self->rest_below, fabs (rest));
  self->rest_sum += rest;
  g_rec_mutex_unlock (&self->lock);
}

/* The median of the values in above (≥ 0) and the negated ones in below. */
static double
signed_median (const RivSketch *above,
               const RivSketch *below)
{
  guint64 n_below = riv_sketch_get_count (below);
  guint64 n = n_below + riv_sketch_get_count (above);
  guint64 rank = (guint64) ceil (0.5 * (double) n);

  if (n == 0)
    return 0;
  rank = CLAMP (rank, 1, n);
  if (rank > n_below)
    return riv_sketch_quantile (above, (rank - n_below - 0.5) / (double) (n - n_below));
  /* The rank-th smallest is the (n_below - rank + 1)-th of below's, from the top. */
  return -riv_sketch_quantile (below, (n_below - rank + 0.5) / (double) n_below);
}


void
riv_load_stats_count_log (RivLoadStats *self,
                          const char   *level)
{
  gpointer key, value;

  g_return_if_fail (self != NULL);

  if (level == NULL || *level == '\0')
    level = "info";
  g_rec_mutex_lock (&self->lock);
  if (g_hash_table_lookup_extended (self->logs, level, &key, &value))
    g_hash_table_insert (self->logs, g_strdup (level),
                         GSIZE_TO_POINTER (GPOINTER_TO_SIZE (value) + 1));
  else
    g_hash_table_insert (self->logs, g_strdup (level), GSIZE_TO_POINTER (1));
  g_rec_mutex_unlock (&self->lock);
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
  g_rec_mutex_lock (&self->lock);
  self->end_at = end_at;
  g_rec_mutex_unlock (&self->lock);
}

guint64
riv_load_stats_get_n_jobs (RivLoadStats *self)
{
  g_return_val_if_fail (self != NULL, 0);
  return self->n_jobs;
}

int
riv_load_compare_doubles (gconstpointer a,
                          gconstpointer b)
{
  double x = *(const double *) a;
  double y = *(const double *) b;

  return (x > y) - (x < y);
}

const RivSketch *
riv_load_stats_get_latencies (RivLoadStats *self)
{
  g_return_val_if_fail (self != NULL, NULL);
  return self->latency;
}

gsize
riv_load_stats_get_size (RivLoadStats *self)
{
  const RivSketch *sketches[] = {
    self->latency, self->first, self->first_start, self->job_gap_max, self->server_s,
    self->rest_s, self->rest_below, self->gaps, self->sent_gaps, self->delays, self->holds,
  };
  gsize size;

  g_return_val_if_fail (self != NULL, 0);

  g_rec_mutex_lock (&self->lock);
  size = sizeof *self + self->unplaced->len * sizeof (RivLoadSeriesJob) +
         (self->series != NULL ? riv_load_series_get_size (self->series) : 0);
  for (guint i = 0; i < G_N_ELEMENTS (sketches); i++)
    size += riv_sketch_get_size (sketches[i]);
  g_rec_mutex_unlock (&self->lock);
  return size;
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

static void
summarize_streaming (RivLoadStats   *self,
                     RivLoadSummary *s)
{
  s->stalls = self->stalls;
  s->stalled_jobs = self->stalled_jobs;
  s->clumped = self->clumped;
  s->first_n = riv_sketch_get_count (self->first);
  s->first_p50 = riv_sketch_quantile (self->first, 0.50);
  s->first_p90 = riv_sketch_quantile (self->first, 0.90);
  s->first_p95 = riv_sketch_quantile (self->first, 0.95);
  s->first_p99 = riv_sketch_quantile (self->first, 0.99);
  s->first_max = riv_sketch_get_max (self->first);
  s->first_start_p50 = riv_sketch_quantile (self->first_start, 0.50);
  s->first_start_p95 = riv_sketch_quantile (self->first_start, 0.95);
  s->streamed = riv_sketch_get_count (self->job_gap_max);
  s->job_gap_max_p50 = riv_sketch_quantile (self->job_gap_max, 0.50);
  s->job_gap_max_p99 = riv_sketch_quantile (self->job_gap_max, 0.99);

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
  guint64 n;
  g_autoptr(GArray) series = NULL;

  g_return_if_fail (self != NULL);
  g_return_if_fail (summary != NULL);

  g_rec_mutex_lock (&self->lock);
  commit (self);
  memset (summary, 0, sizeof *summary);
  summary->submitted = self->n_jobs;
  summary->updates = self->updates;
  summary->completed = self->outcomes.completed;
  summary->failed = self->outcomes.failed;
  summary->cancelled = self->outcomes.cancelled;
  summary->lost = self->outcomes.lost;
  summary->dropped = self->dropped;

  if (self->n_jobs > 0)
    summary->duration_s = MAX (0, run_end (self) - self->first_submit);
  if (summary->duration_s > 0)
    summary->throughput_per_s = summary->completed / summary->duration_s;

  n = riv_sketch_get_count (self->latency);
  summary->p50 = riv_sketch_quantile (self->latency, 0.50);
  summary->p90 = riv_sketch_quantile (self->latency, 0.90);
  summary->p95 = riv_sketch_quantile (self->latency, 0.95);
  summary->p99 = riv_sketch_quantile (self->latency, 0.99);
  summary->max = n > 0 ? self->latency_max : 0;
  summary->mean = n > 0 ? self->latency_sum / n : 0;

  /* A batch of size s has s members, each counting 1/s of it. */
  summary->batches = (guint64) llround (self->batches);
  summary->mean_batch_size = summary->batches > 0 ? (double) self->batched / summary->batches : 0;
  summary->error_kinds = self->error_texts->len;
  summary->uploads = self->uploads;
  summary->upload_total = self->upload_total;
  summary->upload_max = self->upload_max;
  summary->upload_mean = self->uploads > 0 ? self->upload_total / self->uploads : 0;
  summary->cached = self->cached;
  summary->server_timed = riv_sketch_get_count (self->server_s);
  if (summary->server_timed > 0)
    {
      summary->server_mean = self->server_sum / summary->server_timed;
      summary->server_p50 = riv_sketch_quantile (self->server_s, 0.50);
      summary->rest_mean = self->rest_sum / summary->server_timed;
      summary->rest_p50 = signed_median (self->rest_s, self->rest_below);
    }

  summarize_streaming (self, summary);

  series = riv_load_stats_timeseries (self);
  for (guint i = 0; i < series->len; i++)
    summary->users = MAX (summary->users, g_array_index (series, RivLoadSample, i).users);
  g_rec_mutex_unlock (&self->lock);
}

const RivSketch *
riv_load_stats_get_gaps (RivLoadStats *self)
{
  g_return_val_if_fail (self != NULL, NULL);
  return self->gaps;
}

GArray *
riv_load_stats_timeseries (RivLoadStats *self)
{
  GArray *series;

  g_return_val_if_fail (self != NULL, NULL);

  g_rec_mutex_lock (&self->lock);
  commit (self);
  if (self->n_jobs == 0)
    series = g_array_new (FALSE, TRUE, sizeof (RivLoadSample));
  else
    series = riv_load_series_samples (get_series (self), run_end (self));
  g_rec_mutex_unlock (&self->lock);
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

  g_rec_mutex_lock (&self->lock);
  lost_after = riv_load_series_lost_after (get_series (self), series->len);
  g_rec_mutex_unlock (&self->lock);
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
  g_rec_mutex_lock (&self->lock);
  members = (const guint64 *) self->batch_members->data;
  top = self->batch_members->len > 0 ? self->batch_members->len - 1 : 0;
  counts = g_new0 (guint64, top + 1);
  for (guint s = 1; s <= top; s++)
    counts[s] = (members[s] + s - 1) / s;   /* a batch of s has s members */
  g_rec_mutex_unlock (&self->lock);

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

  g_rec_mutex_lock (&self->lock);
  for (guint i = 0; i < self->error_texts->len; i++)
    {
      RivLoadError error = {
        g_ptr_array_index (self->error_texts, i),
        g_array_index (self->error_counts, guint64, i),
      };

      g_array_append_val (errors, error);
    }
  g_rec_mutex_unlock (&self->lock);
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
