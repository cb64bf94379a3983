/* riv-load-stats.h
 * Copyright 2026 The Rivulet authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The statistics of a load run, computed from its jobs alone (what a per-job
 * record holds), so that a live run, a run read back from its records and
 * several shards merged give the same numbers. Nothing is kept per job once
 * it is counted: counts and sums are exact, percentiles come from sketches
 * (riv-sketch.h, within RIV_SKETCH_RELATIVE_ERROR of the exact ones), and
 * the per-second series is kept one slot a second (riv-load-series.h).
 * Summary, per-second time series, histograms, errors grouped by text, and
 * k6-style thresholds. No GTK: the CLI and the window share it. Every call
 * locks it: a run working on a thread of its own and its owner share it.
 */
#pragma once

#include <json-glib/json-glib.h>

#include "riv-job.h"
#include "riv-sketch.h"
#include "riv-types.h"

G_BEGIN_DECLS

typedef struct _RivLoadStats RivLoadStats;

typedef struct
{
  guint64 submitted;
  guint64 completed;
  guint64 failed;
  guint64 cancelled;
  guint64 lost;
  guint64 dropped;           /* arrival rate: jobs due but not started (every user busy) */
  double  duration_s;        /* first submit → end of the run */
  double  throughput_per_s;  /* completed / duration_s */
  /* Latency (submit → end) of the completed jobs, seconds; 0 when none.
   * Every percentile here and in RivLoadSample is within
   * RIV_SKETCH_RELATIVE_ERROR of the exact one; max and mean are exact. */
  double  p50, p90, p95, p99, max, mean;
  guint64 updates;
  guint   users;             /* peak of the users series */
  guint64 batches;           /* batches the jobs belonged to (0 for no batching) */
  double  mean_batch_size;
  guint64 error_kinds;       /* distinct error texts */
  /* Jobs that sent files (handle_file() inputs): their upload time. */
  guint64 uploads;
  double  upload_mean, upload_max, upload_total;
  guint64 cached;            /* completed from the server's cache (@gr.cache) */
  /* Completed jobs with the server's own timings (GRADIO_PROFILING): server
   * time (queue wait + processing) and the rest of their latency, the
   * network and the client (latency − server time); means and medians. */
  guint64 server_timed;
  double  server_mean, server_p50;
  double  rest_mean, rest_p50;
  /* Streaming (app/docs/streaming.md), of the completed jobs. Time to first
   * update (submit → first output update) of first_n jobs, and from
   * process_starts; 0 when none. */
  guint64 first_n;
  double  first_p50, first_p90, first_p95, first_p99, first_max;
  double  first_start_p50, first_start_p95;
  /* streamed: jobs with at least two generating updates, whose gaps are
   * pooled (gaps of them); the rest answered in one go. */
  guint64 streamed;
  guint64 gaps;
  double  gap_p50, gap_p99, gap_max;
  double  job_gap_max_p50, job_gap_max_p99;   /* each streamed job's longest gap */
  guint64 stalls;                             /* gaps over stall_s, all jobs */
  guint64 stalled_jobs;
  double  stall_s;
  guint64 text_jobs;                          /* text outputs that grew while streaming */
  double  chars_per_s, words_per_s;           /* their mean rates */
  /* With the server's stamps (serve --stamp): updates stamped, the delay
   * from their write to their handling here, the gaps the server wrote them
   * at, how long it held them between making and writing them, and the
   * streamed jobs whose updates arrived in a clump (riv_stream_clumped ()). */
  guint64 stamped;
  double  delay_p50, delay_p99, delay_max;
  double  sent_gap_p50, sent_gap_p99, sent_gap_max;
  double  hold_p50, hold_p99, hold_max;       /* made → written, in the server */
  guint64 clumped;
} RivLoadSummary;

/* One job's streaming figures (riv_load_stream_from_job ()); sketches
 * borrowed from the job. */
typedef struct
{
  double           first_s;        /* < 0: none */
  double           first_start_s;  /* < 0: unknown */
  guint            n_gaps;
  double           gap_p50, gap_p99, gap_max;   /* < 0 when n_gaps is 0 */
  guint            stalls;
  double           chars_per_s, words_per_s;    /* < 0: no growing text */
  gboolean         clumped;
  const RivSketch *gaps;            /* nullable */
  const RivSketch *sent_gaps;       /* nullable */
  const RivSketch *delays;          /* nullable */
  const RivSketch *holds;           /* nullable */
} RivLoadStream;

/* One second of a run. Jobs are counted in the second they were submitted
 * (started) or ended; in_flight, queued (submitted, not started yet) and
 * users (from a user's first submit to its last job's end) at the second's
 * end; latency percentiles of the jobs that completed in it (< 0: none). */
typedef struct
{
  double t;                  /* seconds since the run's first submit */
  guint  started;
  guint  completed;
  guint  failed;
  guint  cancelled;
  guint  lost;
  guint  in_flight;
  guint  queued;
  guint  users;
  double p50, p95, p99;
  double updates_per_s;      /* each job's updates spread over its run */
  /* Time to first update of the jobs that completed in it (< 0: none), and
   * the stalls of the jobs that ended in it. */
  double first_p50, first_p95;
  guint  stalls;
} RivLoadSample;

typedef struct
{
  const char *text;
  guint64     count;
} RivLoadError;

RivLoadStats *riv_load_stats_new          (void);
RivLoadStats *riv_load_stats_ref          (RivLoadStats       *self);
/* Drops a reference (the last frees it). */
void          riv_load_stats_free         (RivLoadStats       *self);
/* Held around riv_load_stats_add () and riv_load_stats_add_stream () (and
 * what else belongs to that job) when another thread may read the same stats. */
void          riv_load_stats_lock         (RivLoadStats       *self);
void          riv_load_stats_unlock       (RivLoadStats       *self);
/* The run's first submit (wall clock), declared before its jobs are counted
 * so that each second of the series is closed once the run is past it
 * (riv-load-series.h); the earliest of several calls made before the first
 * job is counted. Without it (records read back) the series is made once
 * every job is in, from their earliest submit. */
void          riv_load_stats_set_start    (RivLoadStats       *self,
                                           double              start_at);

/* One job that ended (or did not: latency_s < 0, lost at the end of the run).
 * submitted_at is wall-clock Unix seconds; durations < 0 are unknown.
 * user 0: none; batch_size 0: no batch. */
void          riv_load_stats_add          (RivLoadStats       *self,
                                           double              submitted_at,
                                           double              queued_s,
                                           double              run_s,
                                           double              latency_s,
                                           RivJobStatus        status,
                                           guint               updates,
                                           guint               user,
                                           guint               batch_size,
                                           const char         *error);
/* The streaming figures of the job riv_load_stats_add () added last. */
void          riv_load_stats_add_stream   (RivLoadStats       *self,
                                           const RivLoadStream *stream);
void          riv_load_stream_from_job    (RivJob             *job,
                                           double              stall_s,
                                           RivLoadStream      *stream);
/* An arrival-rate job that was due but not started (every user busy). */
void          riv_load_stats_add_dropped  (RivLoadStats       *self);
/* The stall limit the summary names (the run's --stall); the stalls
 * themselves are counted per job as it is added. */
void          riv_load_stats_set_stall    (RivLoadStats       *self,
                                           double              stall_s);
double        riv_load_stats_get_stall    (RivLoadStats       *self);
/* Pooled, of the completed jobs; borrowed. */
const RivSketch *riv_load_stats_get_gaps  (RivLoadStats       *self);
/* One per-job record (riv-job-record.h). FALSE, naming what is wrong, when
 * the record is not one. */
gboolean      riv_load_stats_add_record   (RivLoadStats       *self,
                                           JsonObject         *record,
                                           GError            **error);

/* A per-job record read once, to be added to several statistics (the run's
 * and its scenario's): riv_load_stats_add_record () is riv_load_record_read
 * (), riv_load_stats_add_read () and riv_load_record_clear (). The strings and
 * logs are the record's (borrowed); the stream's sketches are its own. */
typedef struct
{
  RivJobStatus   status;
  double         submitted_at;
  double         queued_s, run_s, latency_s;   /* < 0: unknown */
  guint          updates, user, batch_size;
  double         upload_s;                     /* < 0: sent no file */
  gboolean       cached;
  double         server_s;                     /* < 0: none */
  JsonArray     *logs;                         /* nullable */
  GPtrArray     *levels;                       /* nullable: its logs' levels, from a brief */
  const char    *error;                        /* nullable */
  RivLoadStream  stream;
} RivLoadRecord;

/* FALSE, naming what is wrong, when the record is not one (nothing to clear
 * then); stalls counted against stall_s. */
gboolean      riv_load_record_read        (RivLoadRecord      *out,
                                           JsonObject         *record,
                                           double              stall_s,
                                           GError            **error);
void          riv_load_record_clear       (RivLoadRecord      *record);
void          riv_load_stats_add_read     (RivLoadStats        *self,
                                           const RivLoadRecord *record);
/* Counts one log message of the given level ("info", "warning", …). */
void          riv_load_stats_count_log    (RivLoadStats       *self,
                                           const char         *level);
/* A job's upload time (riv_job_get_upload_time ()); < 0 (sent no file) is ignored. */
void          riv_load_stats_add_upload   (RivLoadStats       *self,
                                           double              upload_s);
/* One completed job answered from the server's cache. */
void          riv_load_stats_count_cached (RivLoadStats       *self);
/* One completed job's server time (queue wait + processing, seconds) and its
 * client latency. */
void          riv_load_stats_add_server_time (RivLoadStats    *self,
                                           double              server_s,
                                           double              latency_s);
/* "2 info, 1 warning" (levels by name), or NULL when no job logged. */
char         *riv_load_stats_format_logs  (RivLoadStats       *self);
/* level → count (GUINT64 in a pointer-sized box: use the values as gsize). Borrowed. */
GHashTable   *riv_load_stats_get_log_counts (RivLoadStats     *self);
/* The run's end, wall clock; without it, the last job's end. */
void          riv_load_stats_set_end      (RivLoadStats       *self,
                                           double              end_at);
guint64       riv_load_stats_get_n_jobs   (RivLoadStats       *self);

void          riv_load_stats_summarize    (RivLoadStats       *self,
                                           RivLoadSummary     *summary);
/* RivLoadSample, one per second from the first submit to the end. */
GArray       *riv_load_stats_timeseries   (RivLoadStats       *self);
/* The time series as CSV with a header line. */
char         *riv_load_stats_timeseries_csv (RivLoadStats     *self);
/* The outage: the longest stretch of whole seconds in which no job completed
 * and jobs failed or were lost, or at whose end jobs in flight through it were
 * lost, with jobs completing at some other time: a server that went away.
 * *end_s is the second completions came back, -1 when they did not by the
 * run's end. FALSE when there is none. */
gboolean      riv_load_stats_find_outage  (RivLoadStats       *self,
                                           double             *start_s,
                                           double             *end_s);
/* The completed jobs' latencies; borrowed. */
const RivSketch *riv_load_stats_get_latencies (RivLoadStats   *self);
/* Memory the statistics hold, bytes (flat in the number of jobs). */
gsize         riv_load_stats_get_size     (RivLoadStats       *self);
/* counts[s] = batches of size s, s in 1..*max_size (counts[0] unused); free with g_free. */
guint64      *riv_load_stats_batch_sizes  (RivLoadStats       *self,
                                           guint              *max_size);
/* The class an error text is counted under instead of itself, or NULL: a
 * Hugging Face ZeroGPU Space's quota and limit errors, whose texts differ
 * by the seconds asked and left, are RIV_LOAD_ERROR_ZEROGPU_QUOTA
 * (riv-load-break.c). */
#define RIV_LOAD_ERROR_ZEROGPU_QUOTA "ZeroGPU quota exceeded"
const char   *riv_load_error_class        (const char         *text);
/* RivLoadError (texts borrowed from self), most frequent first; a text with
 * a class (riv_load_error_class ()) counted under its class. */
GArray       *riv_load_stats_errors       (RivLoadStats       *self);

/* A threshold, k6 style: METRIC OP VALUE, e.g. "p95<2s", "p99<=500ms",
 * "failed==0", "throughput>=100". Metrics: p50 p90 p95 p99 max mean (also
 * p(95), avg; latency, seconds unless ms/s/m follows), ttfu_p50 … ttfu_max
 * (time to first update), gap_p50 gap_p99 gap_max (gaps between updates,
 * pooled), delay_p50 delay_p99 delay_max (the server's stamp to handling
 * here), completed failed cancelled lost submitted (jobs), stalls,
 * error_rate ((failed + lost) / submitted, 0..1), throughput (completed jobs
 * per second), users. */
typedef struct _RivLoadThreshold RivLoadThreshold;

RivLoadThreshold *riv_load_threshold_parse (const char          *text,
                                            GError             **error);
void          riv_load_threshold_free     (RivLoadThreshold   *self);
const char   *riv_load_threshold_get_text (const RivLoadThreshold *self);
/* k6's tag: "p95{scenario:chat}<2s" names the jobs it is checked on. Returns
 * the key ("scenario" or "endpoint"; NULL: untagged, the whole run), and its
 * value in *value. */
const char   *riv_load_threshold_get_tag  (const RivLoadThreshold  *self,
                                           const char             **value);
/* A threshold written without a tag, given one (a scenario's own thresholds):
 * "p95<2s" with scenario, chat reads as "p95{scenario:chat}<2s". A tag in the
 * text is an error. */
RivLoadThreshold *riv_load_threshold_parse_tagged (const char  *text,
                                                   const char  *key,
                                                   const char  *value,
                                                   GError     **error);
/* Whether the summary meets it; *measured gets the metric's value (in
 * seconds for latencies). */
gboolean      riv_load_threshold_check    (const RivLoadThreshold *self,
                                           const RivLoadSummary   *summary,
                                           double                 *measured);
/* Whether it can be judged on a run still going (load --until-break): a
 * latency once a job completed, failures, losses, cancellations and the
 * error rate; not the totals (completed, submitted, throughput, users). */
gboolean      riv_load_threshold_is_live  (const RivLoadThreshold *self,
                                           const RivLoadSummary   *summary);
/* A threshold that failed, in words: "time to first update p95 went over
 * 1s (threshold ttfu_p95<1s, measured 1.204s)". */
char         *riv_load_threshold_describe_failure (const RivLoadThreshold *self,
                                                   double                  measured);
/* The measured value as the threshold's own unit would show it ("1.52s", "0", "98.5"). */
char         *riv_load_threshold_format_value (const RivLoadThreshold *self,
                                               double                  value);

/* Nearest-rank percentile (q in 0..1) of n sorted values; 0 when n is 0. */
double        riv_load_percentile         (const double       *sorted,
                                           guint               n,
                                           double              q);
/* For sorting doubles ascending (g_array_sort, qsort). */
int           riv_load_compare_doubles    (gconstpointer       a,
                                           gconstpointer       b);

/* 1, 2 or 5 times a power of ten, at least value (1 when value ≤ 0): the top
 * of a chart's scale (the report's and the window's). */
double    riv_load_nice_ceiling (double value);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (RivLoadStats, riv_load_stats_free)
G_DEFINE_AUTOPTR_CLEANUP_FUNC (RivLoadThreshold, riv_load_threshold_free)

G_END_DECLS
