/* riv-load-run.c
 * Copyright 2026 The Rivulet authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The load engine shared by rivulet-cli load and the window: open loop (jobs
 * in the connected client's session, sent by a RivBurst) or virtual users
 * (one RivClient each, sharing the config the connected client loaded),
 * stages, per-job statistics and records, and one sample a second.
 */
#include "config.h"

#include <math.h>
#include <string.h>

#include "riv-compat.h"
#include "riv-job-record.h"
#include "riv-json.h"
#include "riv-load-run-private.h"
#include "riv-process.h"

guint _riv_load_run_signals[N_SIGNALS];

G_DEFINE_FINAL_TYPE (RivLoadRun, riv_load_run, G_TYPE_OBJECT)

static GQuark
sequence_quark (void)
{
  static GQuark quark;

  if (G_UNLIKELY (quark == 0))
    quark = g_quark_from_static_string ("riv-load-sequence");
  return quark;
}

/* The job's LoadScenario (the run's, borrowed), when the run has scenarios. */
static GQuark
scenario_quark (void)
{
  static GQuark quark;

  if (quark == 0)
    quark = g_quark_from_static_string ("riv-load-run-scenario");
  return quark;
}

/* A conversation's job: its turn (1-based) and the session it went in. */
typedef struct
{
  guint turn;
  char  session[];   /* its session_hash */
} Turn;

static GQuark
turn_quark (void)
{
  static GQuark quark;

  if (G_UNLIKELY (quark == 0))
    quark = g_quark_from_static_string ("riv-load-turn");
  return quark;
}

LoadScenario *
_riv_load_run_job_scenario (RivJob *job)
{
  return g_object_get_qdata (G_OBJECT (job), scenario_quark ());
}

static GQuark
user_quark (void)
{
  static GQuark quark;

  if (G_UNLIKELY (quark == 0))
    quark = g_quark_from_static_string ("riv-load-user");
  return quark;
}

/* Active users and sessions when the job was submitted (breakpoint tests). */
GQuark
_riv_load_run_load_at_quark (void)
{
  static GQuark quark;

  if (G_UNLIKELY (quark == 0))
    quark = g_quark_from_static_string ("riv-load-at");
  return quark;
}

static void post (RivLoadRun *self, const RivLoadSample *sample, gboolean finished);

/* ---- sources ---- */

GSource *
_riv_load_run_add_source (RivLoadRun  *self,
                          GSource     *source,
                          GSourceFunc  func,
                          gpointer     data)
{
  g_source_set_callback (source, func, data, NULL);
  g_source_attach (source, self->context);
  return source;
}

GSource *
_riv_load_run_add_timeout (RivLoadRun  *self,
                           double       seconds,
                           GSourceFunc  func)
{
  return _riv_load_run_add_source (self, g_timeout_source_new ((guint) (seconds * 1000)), func, self);
}

void
_riv_load_run_destroy_source (GSource **source)
{
  if (*source != NULL)
    {
      g_source_destroy (*source);
      g_clear_pointer (source, g_source_unref);
    }
}

/* ---- jobs ---- */

double
_riv_load_run_elapsed (RivLoadRun *self)
{
  if (self->counts.start <= 0)
    return 0;
  return (self->counts.end > 0 ? self->counts.end : riv_now ()) - self->counts.start;
}

guint64
_riv_load_run_global_index (RivLoadRun *self,
                            guint64     sequence)
{
  return (sequence - 1) * self->params.n_shards + self->params.shard + 1;
}

guint64
_riv_load_run_job_index (RivLoadRun *self,
                         RivJob     *job)
{
  return _riv_load_run_global_index (
    self, GPOINTER_TO_SIZE (g_object_get_qdata (G_OBJECT (job), sequence_quark ())));
}

RivJob *
_riv_load_run_submit (RivLoadRun    *self,
                      RivClient     *client,
                      guint          user,
                      LoadScenario  *scenario,
                      guint          turn,
                      GError       **error)
{
  guint64 sequence = self->counts.submitted + 1;
  guint64 index = _riv_load_run_global_index (self, sequence);
  GPtrArray *templates;
  const char *endpoint_name;
  JsonNode *template;
  g_autoptr(JsonNode) data = NULL;
  RivJob *job;

  if (scenario == NULL)
    scenario = _riv_load_run_scenario_for (self, index);
  templates = scenario != NULL ? scenario->templates : self->params.templates;
  endpoint_name = scenario != NULL ? scenario->endpoint_name : self->params.endpoint_name;
  /* A conversation's turn k takes its scenario's template k (its examples
   * in turn, a script); any other job, the one of its number. */
  template = templates == NULL ? self->params.template
    : g_ptr_array_index (templates, (turn > 0 ? turn - 1 : index - 1) % templates->len);
  data = riv_json_substitute_index_user (template, index, user);
  job = self->params.upload_files
          ? riv_client_submit_uploading (client, endpoint_name, data, error)
          : riv_client_submit (client, endpoint_name, data, error);
  if (job == NULL)
    {
      if (scenario != NULL)
        g_prefix_error (error, "scenario \"%s\": ", scenario->name);
      return NULL;
    }
  if (scenario != NULL)
    g_object_set_qdata (G_OBJECT (job), scenario_quark (), scenario);
  if (turn > 0)
    {
      const char *hash = riv_client_get_session_hash (client);
      Turn *mark = g_malloc (sizeof (Turn) + strlen (hash) + 1);

      mark->turn = turn;
      strcpy (mark->session, hash);
      g_object_set_qdata_full (G_OBJECT (job), turn_quark (), mark, g_free);
    }

  g_object_set_qdata (G_OBJECT (job), sequence_quark (), GSIZE_TO_POINTER ((gsize) sequence));
  g_object_set_qdata (G_OBJECT (job), user_quark (), GUINT_TO_POINTER (user));
  if (self->brk.until_break)
    {
      LoadAt *at = g_new0 (LoadAt, 1);
      double t = _riv_load_run_elapsed (self);

      at->t = t;
      at->rate = t > self->brk.before_last_t
        ? (self->counts.submitted - self->brk.before_last_started) /
          (t - self->brk.before_last_t)
        : 0;
      at->p95 = self->brk.last_p95;
      at->users = self->counts.active_users;
      at->sessions = self->params.users > 0 || self->params.stages != NULL ? self->brk.sessions : 1;
      g_object_set_qdata_full (G_OBJECT (job), _riv_load_run_load_at_quark (), at, g_free);
    }
  if (self->counts.start <= 0)
    {
      self->counts.start = riv_job_get_submitted_at (job);
      self->counts.start_wall = g_get_real_time () / (double) G_USEC_PER_SEC -
                                (riv_now () - self->counts.start);
    }
  if (!self->start_declared)
    {
      /* The series' first second: this job's submitted_at as account_job ()
       * counts it. */
      double start_at = self->counts.start_wall +
                        (riv_job_get_submitted_at (job) - self->counts.start);

      self->start_declared = TRUE;
      riv_load_stats_set_start (self->stats, start_at);
      _riv_load_run_scenarios_stats_set (self, riv_load_stats_set_start, start_at);
    }
  g_hash_table_add (self->in_flight, g_object_ref (job));
  self->counts.submitted++;
  if (self->params.metrics != NULL)
    riv_metrics_add_submitted (self->params.metrics, scenario != NULL ? scenario->number : 0);
  return job;
}

/* A job that finished in a batch Rivulet inferred (real Gradio names none)
 * is counted a little later: its batch is settled by the completions of its
 * batch-mates (riv-batch-infer.c), which come back to back but may come after
 * its own. SETTLE_S is far longer than that took in any measured burst. */
#define SETTLE_S   1.0
#define SETTLE_MAX 4096

typedef struct
{
  RivJob *job;    /* owned */
  double  at;
} Settling;

static void account_job (RivLoadRun *self,
                         RivJob     *job,
                         const char *lost_error);

/* Counts the settling jobs that are old enough (all of them with all). */
static void
settle (RivLoadRun *self,
        gboolean    all)
{
  double now = riv_now ();
  Settling *head;

  while ((head = g_queue_peek_head (&self->settling)) != NULL &&
         (all || now - head->at >= SETTLE_S || self->settling.length > SETTLE_MAX))
    {
      g_queue_pop_head (&self->settling);
      account_job (self, head->job, NULL);
      g_object_unref (head->job);
      g_free (head);
    }
}

/* The job into stats (the run's, or its scenario's): this job's calls
 * together, under their lock. */
static void
count_job (RivLoadRun          *self,
           RivLoadStats        *stats,
           RivJob              *job,
           RivJobStatus         status,
           double               latency,
           const char          *error,
           guint                user,
           const RivLoadStream *stream,
           gboolean             lost)
{
  riv_load_stats_lock (stats);
  riv_load_stats_add (stats,
                      self->counts.start_wall +
                      (riv_job_get_submitted_at (job) - self->counts.start),
                      riv_job_get_wait_time (job),
                      lost ? -1 : riv_job_get_run_time (job),
                      latency, status, riv_job_get_n_updates (job), user,
                      riv_job_get_batch_id (job) != NULL
                        ? (guint) MAX (riv_job_get_batch_size (job), 1) : 0,
                      error);
  riv_load_stats_add_stream (stats, stream);
  for (guint i = 0; i < riv_job_get_n_logs (job); i++)
    riv_load_stats_count_log (stats, riv_job_get_log (job, i)->level);
  riv_load_stats_add_upload (stats, riv_job_get_upload_time (job));
  if (riv_job_get_used_cache (job) != NULL && status == RIV_JOB_STATUS_COMPLETED)
    riv_load_stats_count_cached (stats);
  riv_load_stats_unlock (stats);
}

/* Whether jobs go into the statistics: unless nobody reads them
 * (riv_load_run_set_counting ()), and always for thresholds judged live. */
static gboolean
counts_stats (RivLoadRun *self)
{
  return !self->not_counting ||
         (self->brk.break_thresholds != NULL && self->brk.break_thresholds->len > 0);
}

/* The job's brief record, as its JSON record would read (riv-job-record.h):
 * status is the record's, the job's own or lost. */
static void
send_brief (RivLoadRun          *self,
            RivJob              *job,
            RivJobStatus         status,
            const char          *error,
            guint                user,
            guint                scenario,
            const RivLoadStream *stream)
{
  g_autoptr(GString) line = g_string_sized_new (256);
  g_autoptr(GPtrArray) levels = NULL;
  RivLoadRecord brief = {
    .status = status,
    .submitted_at = riv_job_record_submitted_wall (job),
    .queued_s = riv_job_get_wait_time (job),
    .run_s = riv_job_get_run_time (job),
    .latency_s = riv_job_get_total_time (job),
    .updates = riv_job_get_n_updates (job),
    .user = user,
    .batch_size = riv_job_get_batch_id (job) != NULL
                  ? (guint) CLAMP (riv_job_get_batch_size (job), 0, G_MAXUINT16) : 0,
    .upload_s = riv_job_get_upload_time (job),
    .cached = riv_job_get_used_cache (job) != NULL && status == RIV_JOB_STATUS_COMPLETED,
    .server_s = -1,
    .error = error,
    .stream = *stream,
  };

  if (riv_job_get_n_logs (job) > 0)
    {
      levels = g_ptr_array_new ();
      for (guint i = 0; i < riv_job_get_n_logs (job); i++)
        g_ptr_array_add (levels, (gpointer) riv_job_get_log (job, i)->level);
      brief.levels = levels;
    }
  riv_load_record_write_brief (line, &brief, scenario);
  self->brief_func (line->str, self->brief_data);
}

/* Counts the job, keeps its statistics and its record. lost_error: the run
 * stopped before the job ended, it counts as lost with that text. */
static void
account_job (RivLoadRun *self,
             RivJob     *job,
             const char *lost_error)
{
  guint64 sequence = GPOINTER_TO_SIZE (g_object_get_qdata (G_OBJECT (job), sequence_quark ()));
  guint user = GPOINTER_TO_UINT (g_object_get_qdata (G_OBJECT (job), user_quark ()));
  LoadScenario *scenario = g_object_get_qdata (G_OBJECT (job), scenario_quark ());
  const Turn *mark = g_object_get_qdata (G_OBJECT (job), turn_quark ());
  RivJobStatus status = lost_error != NULL ? RIV_JOB_STATUS_LOST : riv_job_get_status (job);
  const char *error = lost_error != NULL ? lost_error : riv_job_get_error (job);
  double latency = lost_error != NULL ? -1 : riv_job_get_total_time (job);
  RivLoadStream stream;
  RivJobStatus record_status;

  g_assert (sequence > 0);

  record_status = status;
  status = riv_outcomes_add (&self->counts.outcomes, status);
  if (status == RIV_JOB_STATUS_COMPLETED)
    g_array_append_val (self->window.latencies, latency);
  self->window.updates += riv_job_get_n_updates (job);
  riv_load_stream_from_job (job, riv_load_stats_get_stall (self->stats), &stream);
  if (status == RIV_JOB_STATUS_COMPLETED && stream.first_s >= 0)
    g_array_append_val (self->window.firsts, stream.first_s);
  self->window.window_stalls += stream.stalls;
  if (self->params.metrics != NULL)
    {
      guint number = scenario != NULL ? scenario->number : 0;

      riv_metrics_add_job (self->params.metrics, number, status, riv_job_get_wait_time (job),
                           latency);
      riv_metrics_add_stream (self->params.metrics, number, status, stream.first_s, stream.gaps,
                              stream.stalls);
    }

  if (counts_stats (self))
    {
      count_job (self, self->stats, job, status, latency, error, user, &stream,
                 lost_error != NULL);
      if (scenario != NULL)
        count_job (self, scenario->stats, job, status, latency, error, user, &stream,
                   lost_error != NULL);
      if (scenario != NULL && scenario->endpoint_stats != NULL)
        count_job (self, scenario->endpoint_stats, job, status, latency, error, user, &stream,
                   lost_error != NULL);
    }
  if (self->params.compare != NULL)
    riv_compare_add_job (self->params.compare, self->params.compare_run, riv_job_get_endpoint (job),
                         riv_job_status_to_string (status), latency, stream.first_s,
                         riv_job_get_submitted_at (job),
                         latency >= 0 ? riv_job_get_submitted_at (job) + latency : NAN, error);
  if (self->events != NULL && riv_job_get_event_id (job) != NULL &&
      status == RIV_JOB_STATUS_COMPLETED)
    {
      EventJob *entry = g_new (EventJob, 1);

      entry->slot = sequence - 1;
      entry->latency = latency;
      g_hash_table_insert (self->events, g_strdup (riv_job_get_event_id (job)), entry);
    }

  if (self->brief_func != NULL)
    send_brief (self, job, record_status, error, user, scenario != NULL ? scenario->number : 0,
                &stream);
  if (self->records != NULL || self->record_func != NULL)
    {
      g_autoptr(JsonNode) record = riv_job_record_new (job, _riv_load_run_global_index (self, sequence), user);
      guint slot = sequence - 1;

      riv_job_record_add_stream (record, &stream);
      if (scenario != NULL)
        json_object_set_string_member (json_node_get_object (record), "scenario",
                                       scenario->name);
      if (mark != NULL)
        {
          json_object_set_int_member (json_node_get_object (record), "turn", mark->turn);
          json_object_set_string_member (json_node_get_object (record), "session", mark->session);
        }

      if (lost_error != NULL)
        {
          JsonObject *object = json_node_get_object (record);

          json_object_set_string_member (object, "status", riv_job_status_to_string (status));
          json_object_set_string_member (object, "error", lost_error);
        }
      if (self->record_func != NULL)
        {
          g_autofree char *line = riv_json_to_string (record, NULL);

          self->record_func (line, self->record_data);
          return;
        }
      if (slot >= self->records->len)
        g_ptr_array_set_size (self->records, slot + 1);
      g_free (g_ptr_array_index (self->records, slot));
      g_ptr_array_index (self->records, slot) = riv_json_to_string (record, NULL);
    }
}

void
_riv_load_run_job_finished (RivLoadRun *self,
                            RivJob     *job)
{
  RivJobStatus status;

  if (!g_hash_table_remove (self->in_flight, job))
    return;   /* not one of the run's jobs, or already counted */
  self->counts.finished++;
  status = riv_job_get_status (job);
  if (status == RIV_JOB_STATUS_FAILED || status == RIV_JOB_STATUS_LOST)
    _riv_load_run_break_at (self, _riv_load_break_classify (status, riv_job_get_error (job)),
              riv_job_get_error (job), job);
  if (riv_job_get_batch_inferred (job))
    {
      Settling *entry = g_new (Settling, 1);

      entry->job = g_object_ref (job);
      entry->at = riv_now ();
      g_queue_push_tail (&self->settling, entry);
      settle (self, FALSE);
    }
  else
    account_job (self, job, NULL);
}

static void
open_loop_finished_cb (RivClient *client,
                       RivJob    *job,
                       gpointer   user_data)
{
  RivLoadRun *self = user_data;

  _riv_load_run_job_finished (self, job);
  _riv_load_run_maybe_done (self);
}

/* The open loop's jobs go out the way the window's Burst sends them
 * (riv-burst.h): time-boxed chunks from an idle, or a timer at the rate.
 *
 * As fast as possible (--count), at most RIV_BURST_MAX_JOINING joins are in
 * flight, as in the window: over HTTP/1.1 the client has at most 12
 * connections to a server, so a join more than that only waits in libsoup's
 * queue, a RivJob and a request held from the start (thousands of them for a
 * burst of thousands); held back here, it goes out as a reply frees its
 * place. The window's 32 is what the CLI needs too: a burst of 10,000 to the
 * demo server (make bench's burst, release build, medians of 6 runs taking
 * turns against one server) took 1.6 s and 1.2 s of CPU with 32, 1.4 s and
 * 1.1 s with 64, 1.7 s and 1.2 s with 128, 2.8 s and 2.5 s with no bound,
 * and 4.1 s and 3.7 s before the bound (200 jobs a turn, none held back).
 *
 * At a rate (--rate, and its ramp in a breakpoint test) joins are not
 * bounded: an open loop keeps its schedule whatever the server does, or a
 * server slow to answer joins would be measured at a lower rate than the one
 * asked for, and the wait for a place would fall outside every job's
 * latency. */
static RivJob *
open_loop_submit (gpointer   user_data,
                  guint      index,
                  GError   **error)
{
  RivLoadRun *self = user_data;

  return _riv_load_run_submit (self, self->params.client, 0, NULL, 0, error);
}

static void
open_loop_failed_cb (RivBurst     *burst,
                     const GError *error,
                     RivLoadRun   *self)
{
  /* The first job was validated when the run started. */
  g_warning ("load: %s", error->message);
}

static void
open_loop_submitted_cb (RivBurst   *burst,
                        RivLoadRun *self)
{
  /* A ramp that was not stopped ended by itself. */
  if (self->params.rate_ramp > 0 && _riv_load_run_elapsed (self) >= self->params.rate_ramp)
    self->brk.ramp_end = riv_now ();
  self->params.count = (guint) MIN (self->counts.submitted, G_MAXUINT);
  self->submitting_done = TRUE;
  _riv_load_run_maybe_done (self);
}

/* Submits the first job at once (FALSE with error when the client refused
 * it), the rest from the burst. */
static gboolean
open_loop_start (RivLoadRun  *self,
                 GError     **error)
{
  self->open_loop = riv_burst_new_with_func (self->params.client, self->params.count,
                                             self->params.rate, open_loop_submit, self);
  riv_burst_set_max_joining (self->open_loop, self->params.rate > 0 ? 0 : RIV_BURST_MAX_JOINING);
  if (self->params.rate_ramp > 0)
    riv_burst_set_rate_ramp (self->open_loop, self->params.rate_ramp);
  g_signal_connect (self->open_loop, "failed", G_CALLBACK (open_loop_failed_cb), self);
  g_signal_connect (self->open_loop, "finished", G_CALLBACK (open_loop_submitted_cb), self);
  if (!riv_burst_start_checked (self->open_loop, error))
    {
      g_clear_object (&self->open_loop);
      return FALSE;
    }
  return TRUE;
}

/* No more open-loop jobs (the run or its ramp stopped); nothing said. */
void
_riv_load_run_open_loop_stop (RivLoadRun *self)
{
  if (self->open_loop == NULL)
    return;
  g_signal_handlers_disconnect_by_data (self->open_loop, self);
  riv_burst_stop (self->open_loop);
  g_clear_object (&self->open_loop);
}

static gboolean
trim_cb (gpointer user_data)
{
  RivLoadRun *self = user_data;

  riv_client_clear_finished (self->params.client);
  return G_SOURCE_CONTINUE;
}

/* ---- samples ---- */

/* A percentile of sorted latencies; -1 when there are none. */
static double
window_percentile (GArray *sorted,
                                 double  q)
{
  return sorted->len > 0 ? riv_load_percentile ((const double *) (gpointer) sorted->data,
                                                sorted->len, q) : -1;
}

/* The second (or, at the end, part of a second) since the previous sample. */
static void
emit_sample (RivLoadRun *self,
             double      t)
{
  RivLoadSample sample = { 0 };
  GHashTableIter iter;
  gpointer key;
  double span = MAX (t - self->window.last.t, 1e-3);

  sample.t = t;
  sample.started = (guint) (self->counts.submitted - self->window.last.started);
  sample.completed = (guint) (self->counts.outcomes.completed - self->window.sampled.completed);
  sample.failed = (guint) (self->counts.outcomes.failed - self->window.sampled.failed);
  sample.cancelled = (guint) (self->counts.outcomes.cancelled - self->window.sampled.cancelled);
  sample.lost = (guint) (self->counts.outcomes.lost - self->window.sampled.lost);
  sample.in_flight = (guint) (self->counts.submitted - self->counts.finished);
  g_hash_table_iter_init (&iter, self->in_flight);
  while (g_hash_table_iter_next (&iter, &key, NULL))
    if (riv_job_get_status (key) < RIV_JOB_STATUS_RUNNING)
      sample.queued++;
  sample.users = self->counts.active_users;
  g_array_sort (self->window.latencies, riv_load_compare_doubles);
  sample.p50 = window_percentile (self->window.latencies, 0.50);
  sample.p95 = window_percentile (self->window.latencies, 0.95);
  sample.p99 = window_percentile (self->window.latencies, 0.99);
  g_array_sort (self->window.firsts, riv_load_compare_doubles);
  sample.first_p50 = window_percentile (self->window.firsts, 0.50);
  sample.first_p95 = window_percentile (self->window.firsts, 0.95);
  sample.stalls = self->window.window_stalls;
  sample.updates_per_s = self->window.updates / span;
  /* The window just before a breakpoint is this one and the one before. */
  g_array_set_size (self->brk.prev_latencies, 0);
  g_array_append_vals (self->brk.prev_latencies, self->window.latencies->data,
                       self->window.latencies->len);
  g_array_set_size (self->window.latencies, 0);
  if (sample.p95 >= 0)
    self->brk.last_p95 = sample.p95;
  self->brk.before_last_t = self->window.last.t;
  self->brk.before_last_started = self->window.last.started;
  self->window.updates = 0;

  /* "last" keeps running totals in the counters it shares with a sample. */
  self->window.last.t = t;
  self->window.last.started = (guint) self->counts.submitted;
  self->window.sampled = self->counts.outcomes;
  self->window.n_samples++;

  post (self, &sample, FALSE);
  g_array_set_size (self->window.firsts, 0);
  self->window.window_stalls = 0;
}

/* The gauges and totals of /metrics, once a second and at the end. */
static void
metrics_update (RivLoadRun *self)
{
  guint streams;
  guint64 bytes;

  if (self->params.metrics == NULL)
    return;
  riv_load_run_get_streams (self, &streams, &bytes);
  riv_metrics_set_gauges (self->params.metrics, self->counts.active_users,
                          (guint) (self->counts.submitted - self->counts.finished), streams);
  riv_metrics_set_received (self->params.metrics, _riv_load_run_count_events (self), bytes);
}

static gboolean
sample_cb (gpointer data)
{
  RivLoadRun *self = data;

  settle (self, FALSE);
  _riv_load_run_break_check_thresholds (self);
  _riv_load_run_break_check_stalls (self);
  metrics_update (self);
  emit_sample (self, self->window.n_samples + 1.0);
  return G_SOURCE_CONTINUE;
}

/* ---- the end ---- */

static void
stop_sources (RivLoadRun *self)
{
  _riv_load_run_open_loop_stop (self);
  _riv_load_run_destroy_source (&self->sources.timeout_source);
  _riv_load_run_destroy_source (&self->sources.trim_source);
  _riv_load_run_destroy_source (&self->sources.tick_source);
  _riv_load_run_destroy_source (&self->sources.sample_source);
  _riv_load_run_destroy_source (&self->sources.finish_source);
  if (self->finished_handler != 0)
    g_clear_signal_handler (&self->finished_handler, self->params.client);
}

static gboolean
finish_cb (gpointer data)
{
  RivLoadRun *self = data;
  g_autoptr(GPtrArray) unfinished = g_ptr_array_new_with_free_func (g_object_unref);
  GHashTableIter iter;
  gpointer key;
  const char *lost_error = self->interrupted ? "interrupted before the job ended"
                                             : "timed out before the job ended";

  g_clear_pointer (&self->sources.finish_source, g_source_unref);
  stop_sources (self);
  settle (self, TRUE);

  /* Whatever did not finish in time is lost; closing cancels it quietly. */
  g_hash_table_iter_init (&iter, self->in_flight);
  while (g_hash_table_iter_next (&iter, &key, NULL))
    g_ptr_array_add (unfinished, g_object_ref (key));
  g_hash_table_remove_all (self->in_flight);
  for (guint i = 0; i < unfinished->len; i++)
    account_job (self, g_ptr_array_index (unfinished, i), lost_error);
  riv_load_stats_set_end (self->stats,
                          self->counts.start_wall + (self->counts.end - self->counts.start));
  _riv_load_run_scenarios_stats_set (self, riv_load_stats_set_end,
                                     self->counts.start_wall + (self->counts.end - self->counts.start));
  _riv_load_run_users_free (self);
  /* What closing the clients left to do runs in their contexts (riv-mux.h). */
  riv_mux_wake_all (self->users.mux);
  metrics_update (self);
  _riv_load_run_break_name (self);
  if (self->counts.start > 0 && self->counts.end - self->counts.start > self->window.last.t + 1e-3)
    emit_sample (self, self->counts.end - self->counts.start);

  self->over = TRUE;
  if (!self->threads.threaded)
    post (self, NULL, TRUE);   /* on its own thread, the thread posts it as it ends */
  return G_SOURCE_REMOVE;
}

void
_riv_load_run_maybe_done (RivLoadRun *self)
{
  if (self->sources.finish_source != NULL || self->over || !self->started)
    return;
  if (self->stopped || (self->submitting_done && self->counts.finished == self->counts.submitted &&
                        self->counts.active_users == 0))
    {
      self->counts.end = riv_now ();
      /* Not from inside a client's signal: clients are closed there. */
      self->sources.finish_source = g_idle_source_new ();
      g_source_set_priority (self->sources.finish_source, G_PRIORITY_HIGH_IDLE);
      _riv_load_run_add_source (self, self->sources.finish_source, finish_cb, self);
    }
}

static gboolean
timeout_cb (gpointer data)
{
  RivLoadRun *self = data;

  g_clear_pointer (&self->sources.timeout_source, g_source_unref);
  self->stopped = TRUE;
  _riv_load_run_maybe_done (self);
  return G_SOURCE_REMOVE;
}

/* ---- the owner's side ---- */

typedef struct
{
  RivLoadRun    *self;        /* owned */
  RivLoadSample  sample;
  Snapshot       snapshot;
  guint64       *batches;     /* owned */
  guint          batch_max;
  gboolean       has_sample;
  gboolean       finished;
} Message;

static void
message_free (gpointer data)
{
  Message *message = data;

  g_object_unref (message->self);
  g_free (message->batches);
  g_free (message);
}

static gboolean
deliver_cb (gpointer data)
{
  Message *message = data;
  RivLoadRun *self = message->self;

  self->threads.shown = message->snapshot;
  g_free (self->threads.shown_batches);
  self->threads.shown_batches = g_steal_pointer (&message->batches);
  self->threads.shown_batch_max = message->batch_max;
  if (message->finished)
    {
      g_thread_join (g_steal_pointer (&self->threads.thread));
      self->done = TRUE;
    }
  if (message->has_sample)
    g_signal_emit (self, _riv_load_run_signals[SIGNAL_SAMPLE], 0, &message->sample);
  if (message->finished)
    g_signal_emit (self, _riv_load_run_signals[SIGNAL_FINISHED], 0);
  if (message->finished)
    g_object_unref (self);   /* the thread's reference */
  return G_SOURCE_REMOVE;
}

/* A sample, or the end of the run, for the owner: at once on the same
 * context; from the run's own thread, a copy of the counters with it. */
static void
post (RivLoadRun          *self,
      const RivLoadSample *sample,
      gboolean             finished)
{
  Message *message;
  GSource *source;

  if (!self->threads.threaded)
    {
      if (sample != NULL)
        g_signal_emit (self, _riv_load_run_signals[SIGNAL_SAMPLE], 0, sample);
      if (finished)
        {
          self->done = TRUE;
          g_signal_emit (self, _riv_load_run_signals[SIGNAL_FINISHED], 0);
        }
      return;
    }

  message = g_new0 (Message, 1);
  message->self = g_object_ref (self);
  if (sample != NULL)
    {
      message->sample = *sample;
      message->has_sample = TRUE;
    }
  message->finished = finished;
  message->snapshot.submitted = self->counts.submitted;
  message->snapshot.finished = self->counts.finished;
  message->snapshot.outcomes = self->counts.outcomes;
  message->snapshot.events = _riv_load_run_count_events (self);
  message->snapshot.active_users = self->counts.active_users;
  message->snapshot.peak_users = self->counts.peak_users;
  message->snapshot.elapsed = _riv_load_run_elapsed (self);
  message->batches = riv_load_stats_batch_sizes (self->stats, &message->batch_max);
  /* Always through the owner's loop: g_main_context_invoke() would run it
   * right here when this thread can acquire the owner's context (the last
   * post comes after the run's own context is popped, and the owner's is
   * the global default), and deliver_cb() then joined its own thread. */
  source = g_idle_source_new ();
  g_source_set_priority (source, G_PRIORITY_DEFAULT);
  g_source_set_callback (source, deliver_cb, message, message_free);
  g_source_attach (source, self->owner);
  g_source_unref (source);
}

static void
start_users_work (RivLoadRun *self)
{
  self->sources.timeout_source =
    _riv_load_run_add_timeout (self, riv_load_run_get_schedule (self) + self->params.timeout,
                               timeout_cb);
  _riv_load_run_users_start (self);
  self->sources.sample_source = _riv_load_run_add_timeout (self, 1.0, sample_cb);
  _riv_load_run_maybe_done (self);
}

static gpointer
run_thread (gpointer data)
{
  RivLoadRun *self = data;   /* the thread's reference, dropped by deliver_cb () */

  g_main_context_push_thread_default (self->context);
  start_users_work (self);
  while (!self->over)
    g_main_context_iteration (self->context, TRUE);
  /* What closing the users' clients still has to do (bounded). */
  for (guint i = 0; i < 10000 && g_main_context_iteration (self->context, FALSE); i++)
    ;
  g_main_context_pop_thread_default (self->context);
  post (self, NULL, TRUE);
  return NULL;
}

static gboolean
stop_request_cb (gpointer data)
{
  RivLoadRun *self = data;

  if (!self->over && self->sources.finish_source == NULL)
    {
      self->stopped = TRUE;
      self->interrupted = g_atomic_int_get (&self->threads.stop_request) == 2;
      _riv_load_run_maybe_done (self);
    }
  return G_SOURCE_REMOVE;
}

/* ---- GObject ---- */

static void
riv_load_run_dispose (GObject *object)
{
  RivLoadRun *self = RIV_LOAD_RUN (object);

  stop_sources (self);
  _riv_load_run_users_free (self);
  /* After the users' clients: what their closing still has to do ran on it. */
  g_clear_pointer (&self->users.mux, riv_mux_free);
  g_clear_pointer (&self->users.user_contexts, g_ptr_array_unref);
  g_clear_object (&self->params.client);
  g_clear_object (&self->threads.seed);

  G_OBJECT_CLASS (riv_load_run_parent_class)->dispose (object);
}

static void
arrival_free (ArrivalLoad *arrival)
{
  if (arrival == NULL)
    return;
  g_assert (arrival->source == NULL && g_queue_is_empty (&arrival->idle));
  riv_arrivals_free (arrival->schedule);
  g_free (arrival);
}

static void
riv_load_run_finalize (GObject *object)
{
  RivLoadRun *self = RIV_LOAD_RUN (object);

  g_clear_pointer (&self->params.endpoint_name, g_free);
  g_clear_pointer (&self->params.template, json_node_unref);
  g_clear_pointer (&self->params.templates, g_ptr_array_unref);
  _riv_load_run_scenarios_free (self);
  g_clear_pointer (&self->params.stages, g_array_unref);
  g_clear_pointer (&self->users.arrival, arrival_free);
  g_clear_pointer (&self->stats, riv_load_stats_free);
  g_clear_pointer (&self->records, g_ptr_array_unref);
  g_clear_pointer (&self->events, g_hash_table_unref);
  g_clear_pointer (&self->in_flight, g_hash_table_unref);
  while (!g_queue_is_empty (&self->settling))
    {
      Settling *entry = g_queue_pop_head (&self->settling);

      g_object_unref (entry->job);
      g_free (entry);
    }
  g_clear_pointer (&self->window.latencies, g_array_unref);
  g_clear_pointer (&self->brk.prev_latencies, g_array_unref);
  g_clear_pointer (&self->window.firsts, g_array_unref);
  g_clear_pointer (&self->brk.break_thresholds, g_ptr_array_unref);
  g_clear_pointer (&self->brk.breakpoint, _riv_load_run_breakpoint_free);
  g_clear_pointer (&self->params.metrics, riv_metrics_unref);
  g_clear_pointer (&self->params.compare, riv_compare_unref);
  g_clear_pointer (&self->usage_error, g_free);
  g_clear_pointer (&self->threads.shown_batches, g_free);
  g_clear_pointer (&self->context, g_main_context_unref);
  g_clear_pointer (&self->owner, g_main_context_unref);

  G_OBJECT_CLASS (riv_load_run_parent_class)->finalize (object);
}

static void
riv_load_run_class_init (RivLoadRunClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->dispose = riv_load_run_dispose;
  object_class->finalize = riv_load_run_finalize;

  /* sample (const RivLoadSample *): once a second while the run goes, and
   * for the last part of a second when it ends; counters are that span's. */
  _riv_load_run_signals[SIGNAL_SAMPLE] =
    g_signal_new ("sample", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0,
                  NULL, NULL, NULL, G_TYPE_NONE, 1, G_TYPE_POINTER);
  /* user-started (RivClient *): a virtual user's new client (e.g. to record it). */
  _riv_load_run_signals[SIGNAL_USER_STARTED] =
    g_signal_new ("user-started", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0,
                  NULL, NULL, NULL, G_TYPE_NONE, 1, RIV_TYPE_CLIENT);
  _riv_load_run_signals[SIGNAL_FINISHED] =
    g_signal_new ("finished", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0,
                  NULL, NULL, NULL, G_TYPE_NONE, 0);
}

static void
riv_load_run_init (RivLoadRun *self)
{
  self->params.n_shards = 1;
  self->params.timeout = 600;
  self->stats = riv_load_stats_new ();
  self->in_flight = g_hash_table_new_full (NULL, NULL, g_object_unref, NULL);
  self->window.latencies = g_array_new (FALSE, FALSE, sizeof (double));
  self->brk.prev_latencies = g_array_new (FALSE, FALSE, sizeof (double));
  self->window.firsts = g_array_new (FALSE, FALSE, sizeof (double));
  self->brk.last_p95 = -1;
  self->users.all_users = g_ptr_array_new ();
  self->users.retired = g_ptr_array_new_with_free_func (g_object_unref);
}

/* ---- public ---- */

RivLoadRun *
riv_load_run_new (RivClient  *client,
                  const char *endpoint_name,
                  JsonNode   *template)
{
  RivLoadRun *self;

  g_return_val_if_fail (RIV_IS_CLIENT (client), NULL);
  g_return_val_if_fail (endpoint_name != NULL, NULL);
  g_return_val_if_fail (template != NULL && JSON_NODE_HOLDS_ARRAY (template), NULL);

  self = g_object_new (RIV_TYPE_LOAD_RUN, NULL);
  self->owner = g_main_context_ref_thread_default ();
  self->params.client = g_object_ref (client);
  self->params.endpoint_name = g_strdup (endpoint_name);
  self->params.template = json_node_copy (template);
  self->params.count = 1;
  return self;
}

void
riv_load_run_set_users (RivLoadRun *self,
                        guint       users,
                        double      think,
                        double      duration,
                        guint       iterations)
{
  g_return_if_fail (RIV_IS_LOAD_RUN (self));
  g_return_if_fail (!self->started);

  self->params.users = users;
  self->params.think = MAX (think, 0);
  self->params.duration = MAX (duration, 0);
  self->params.iterations = iterations;
  self->params.count = 0;
  self->params.rate = 0;
}

void
riv_load_run_set_stages (RivLoadRun *self,
                         GArray     *stages)
{
  g_return_if_fail (RIV_IS_LOAD_RUN (self));
  g_return_if_fail (!self->started);

  g_clear_pointer (&self->params.stages, g_array_unref);
  self->params.stages = stages;
  if (stages != NULL)
    {
      self->params.count = 0;
      self->params.rate = 0;
    }
}

void
riv_load_run_set_open_loop (RivLoadRun *self,
                            guint       count,
                            double      rate)
{
  g_return_if_fail (RIV_IS_LOAD_RUN (self));
  g_return_if_fail (!self->started);

  self->params.users = 0;
  g_clear_pointer (&self->params.stages, g_array_unref);
  self->params.count = _riv_load_run_shard_share (self, count);
  self->params.rate = self->params.n_shards > 1 ? rate / self->params.n_shards : rate;
}

void
riv_load_run_set_arrivals (RivLoadRun  *self,
                           RivArrivals *schedule,
                           guint        max_users)
{
  g_return_if_fail (RIV_IS_LOAD_RUN (self));
  g_return_if_fail (!self->started);
  g_return_if_fail (schedule != NULL && max_users > 0);

  arrival_free (self->users.arrival);
  self->users.arrival = g_new0 (ArrivalLoad, 1);
  self->users.arrival->schedule = schedule;
  if (self->params.n_shards > 1)
    riv_arrivals_set_share (schedule, 1.0 / self->params.n_shards);
  /* Users with no schedule of their own: the arrivals start their jobs. */
  riv_load_run_set_users (self, _riv_load_run_shard_share (self, max_users), 0,
                          riv_arrivals_get_duration (schedule), 0);
  g_clear_pointer (&self->params.stages, g_array_unref);
}

gboolean
riv_load_run_get_arrivals (RivLoadRun       *self,
                           RivArrivalsTally *tally)
{
  g_return_val_if_fail (RIV_IS_LOAD_RUN (self), FALSE);

  if (self->users.arrival == NULL)
    return FALSE;
  *tally = self->users.arrival->tally;
  return TRUE;
}

void
riv_load_run_set_rate_ramp (RivLoadRun *self,
                            double      rate,
                            double      seconds)
{
  g_return_if_fail (RIV_IS_LOAD_RUN (self));
  g_return_if_fail (!self->started);
  g_return_if_fail (rate > 0 && seconds > 0);

  riv_load_run_set_open_loop (self, G_MAXUINT, rate);
  self->params.rate_ramp = seconds;
}

void
riv_load_run_set_metrics (RivLoadRun *self,
                          RivMetrics *metrics)
{
  g_return_if_fail (RIV_IS_LOAD_RUN (self));
  g_return_if_fail (!self->started);

  g_clear_pointer (&self->params.metrics, riv_metrics_unref);
  if (metrics != NULL)
    self->params.metrics = riv_metrics_ref (metrics);
}

void
riv_load_run_set_templates (RivLoadRun *self,
                            GPtrArray  *templates)
{
  g_return_if_fail (RIV_IS_LOAD_RUN (self));
  g_return_if_fail (!self->started);

  g_clear_pointer (&self->params.templates, g_ptr_array_unref);
  if (templates != NULL && templates->len > 0)
    self->params.templates = g_ptr_array_ref (templates);
}

void
riv_load_run_set_compare (RivLoadRun *self,
                          RivCompare *compare,
                          guint       run)
{
  g_return_if_fail (RIV_IS_LOAD_RUN (self));
  g_return_if_fail (!self->started && run < 2);

  g_clear_pointer (&self->params.compare, riv_compare_unref);
  if (compare != NULL)
    self->params.compare = riv_compare_ref (compare);
  self->params.compare_run = run;
}

void
riv_load_run_set_shard (RivLoadRun *self,
                        guint       shard,
                        guint       n_shards)
{
  g_return_if_fail (RIV_IS_LOAD_RUN (self));
  g_return_if_fail (n_shards > 0 && shard < n_shards);
  g_return_if_fail (!self->started);

  self->params.shard = shard;
  self->params.n_shards = n_shards;
}

void
riv_load_run_set_stall (RivLoadRun *self,
                        double      stall_s)
{
  g_return_if_fail (RIV_IS_LOAD_RUN (self));
  g_return_if_fail (stall_s > 0);

  riv_load_stats_set_stall (self->stats, stall_s);
  _riv_load_run_scenarios_stats_set (self, riv_load_stats_set_stall, stall_s);
}

void
riv_load_run_set_timeout (RivLoadRun *self,
                          double      timeout)
{
  g_return_if_fail (RIV_IS_LOAD_RUN (self));
  g_return_if_fail (timeout > 0);

  self->params.timeout = timeout;
}

void
riv_load_run_set_threaded (RivLoadRun *self,
                           gboolean    threaded)
{
  g_return_if_fail (RIV_IS_LOAD_RUN (self));
  g_return_if_fail (!self->started);

  self->threads.threaded = threaded;
}

void
riv_load_run_set_keep_records (RivLoadRun *self,
                               gboolean    keep)
{
  g_return_if_fail (RIV_IS_LOAD_RUN (self));

  if (keep && self->records == NULL)
    self->records = g_ptr_array_new_with_free_func (g_free);
  else if (!keep)
    g_clear_pointer (&self->records, g_ptr_array_unref);
}

void
riv_load_run_set_record_func (RivLoadRun        *self,
                              RivLoadRecordFunc  func,
                              gpointer           user_data)
{
  g_return_if_fail (RIV_IS_LOAD_RUN (self));
  g_return_if_fail (!self->started);

  self->record_func = func;
  self->record_data = user_data;
}

void
riv_load_run_set_brief_func (RivLoadRun        *self,
                             RivLoadRecordFunc  func,
                             gpointer           user_data)
{
  g_return_if_fail (RIV_IS_LOAD_RUN (self));
  g_return_if_fail (!self->started);

  self->brief_func = func;
  self->brief_data = user_data;
}

void
riv_load_run_set_counting (RivLoadRun *self,
                           gboolean    counting)
{
  g_return_if_fail (RIV_IS_LOAD_RUN (self));
  g_return_if_fail (!self->started);

  self->not_counting = !counting;
}

gboolean
riv_load_run_start (RivLoadRun  *self,
                    GError     **error)
{
  g_return_val_if_fail (RIV_IS_LOAD_RUN (self), FALSE);
  g_return_val_if_fail (!self->started, FALSE);

  _riv_load_run_scenarios_name_metrics (self);
  if (self->params.users == 0 && self->params.stages == NULL)
    self->threads.threaded = FALSE;   /* the open loop submits in the caller's client */
  if (!self->threads.threaded)
    self->context = g_main_context_ref_thread_default ();

  if (self->params.users == 0 && self->params.stages == NULL)
    {
      self->finished_handler = g_signal_connect (self->params.client, "job-finished",
                                                 G_CALLBACK (open_loop_finished_cb), self);
      /* The first job validates the inputs. */
      if (!open_loop_start (self, error))
        {
          g_clear_signal_handler (&self->finished_handler, self->params.client);
          return FALSE;
        }
      self->started = TRUE;
      if (self->counts.start <= 0)
        {
          self->counts.start = riv_now ();
          self->counts.start_wall = g_get_real_time () / (double) G_USEC_PER_SEC;
        }
      self->sources.timeout_source =
        _riv_load_run_add_timeout (self, self->params.rate_ramp + self->params.timeout,
                                   timeout_cb);
      self->sources.trim_source = _riv_load_run_add_timeout (self, TRIM_S, trim_cb);
    }
  else
    {
      if (self->params.iterations == 0 && self->params.duration == 0 && self->params.stages == NULL)
        self->params.iterations = 1;
      self->started = TRUE;
      if (self->threads.threaded)
        {
          /* Users copy their connection from a copy the thread alone reads. */
          self->threads.seed = riv_client_new (riv_client_get_url (self->params.client));
          riv_client_connect_like (self->threads.seed, self->params.client);
          self->context = g_main_context_new ();
          self->threads.thread = g_thread_new ("riv-load", run_thread, g_object_ref (self));
        }
      else
        start_users_work (self);
      return TRUE;
    }

  self->sources.sample_source = _riv_load_run_add_timeout (self, 1.0, sample_cb);
  _riv_load_run_maybe_done (self);
  return TRUE;
}

void
riv_load_run_stop (RivLoadRun *self,
                   gboolean    interrupted)
{
  g_return_if_fail (RIV_IS_LOAD_RUN (self));

  if (!self->started || self->done)
    return;
  if (self->threads.threaded)
    {
      g_atomic_int_set (&self->threads.stop_request, interrupted ? 2 : 1);
      g_main_context_invoke (self->context, stop_request_cb, self);
      return;
    }
  if (self->sources.finish_source != NULL)
    return;
  self->stopped = TRUE;
  self->interrupted = interrupted;
  _riv_load_run_maybe_done (self);
}

char *
riv_load_run_dup_report (RivLoadRun              *self,
                         RivLoadThreshold * const *thresholds,
                         guint                    n_thresholds)
{
  g_autoptr(GPtrArray) params = g_ptr_array_new_with_free_func (g_free);
  g_autofree char *data = NULL;

  g_return_val_if_fail (RIV_IS_LOAD_RUN (self), NULL);

#define PARAM(name, ...) \
  G_STMT_START { \
    g_ptr_array_add (params, g_strdup (name)); \
    g_ptr_array_add (params, g_strdup_printf (__VA_ARGS__)); \
  } G_STMT_END
  PARAM ("server", "%s", riv_client_get_url (self->params.client));
  if (self->params.scenarios != NULL)
    _riv_load_run_scenarios_add_params (self, params);
  else
    {
      PARAM ("endpoint", "%s", self->params.endpoint_name);
      data = riv_json_to_string (self->params.template, NULL);
      PARAM ("data", "%s", data);
    }
  if (self->params.users > 0 || self->params.stages != NULL)
    {
      if (self->users.arrival != NULL)
        {
          RivArrivals *schedule = self->users.arrival->schedule;

          PARAM ("arrivals", "%s, peak %g jobs/s, %.0f jobs expected over %g s",
                 riv_arrivals_is_poisson (schedule) ? "Poisson" : "evenly spaced",
                 riv_arrivals_get_peak_rate (schedule),
                 riv_arrivals_expected (schedule, riv_arrivals_get_duration (schedule)),
                 riv_arrivals_get_duration (schedule));
          PARAM ("users", "a pool of at most %u", self->params.users);
        }
      else if (self->params.users > 0)
        PARAM ("users", "%u", self->params.users);
      if (self->params.stages != NULL)
        {
          g_autofree char *stages = riv_load_format_stages (self->params.stages);

          PARAM ("stages", "%s", stages);
        }
      if (self->params.duration > 0)
        PARAM ("duration", "%g s", self->params.duration);
      if (self->params.iterations > 0)
        PARAM ("iterations", "%u per user", self->params.iterations);
      if (self->params.scenarios == NULL)
        PARAM ("think", "%g s", self->params.think);
    }
  else
    {
      if (self->params.rate_ramp > 0)
        PARAM ("rate", "0 → %g jobs/s over %g s", self->params.rate, self->params.rate_ramp);
      else
        {
          PARAM ("count", "%u", self->params.count);
          if (self->params.rate > 0)
            PARAM ("rate", "%g jobs/s", self->params.rate);
        }
    }
  if (self->params.n_shards > 1)
    PARAM ("shard", "%u/%u", self->params.shard, self->params.n_shards);
  PARAM ("timeout", "%g s", self->params.timeout);
  if (self->brk.until_break)
    {
      g_autofree char *text = self->brk.breakpoint != NULL
        ? riv_load_breakpoint_describe (self->brk.breakpoint)
        : g_strdup ("none: nothing broke before the ramp ended");

      PARAM ("breaking point", "%s", text);
    }
  for (guint i = 0; i < n_thresholds; i++)
    PARAM ("threshold", "%s", riv_load_threshold_get_text (thresholds[i]));
#undef PARAM
  g_ptr_array_add (params, NULL);

  return _riv_load_run_report (self, (const char * const *) params->pdata, thresholds,
                               n_thresholds);
}
