/* riv-load-run.h
 * Copyright 2026 The Rivulet authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * One load run against one endpoint: the engine rivulet-cli load and the
 * window's Load mode share. Open loop (a burst of jobs, or jobs at a rate, in
 * the connected client's session, sent by a RivBurst as the window's Burst
 * sends them: riv-burst.h) or closed loop (virtual users, each one
 * RivClient with its own session and SSE stream: submit, wait for the end,
 * think, repeat), with k6-style stages, or the arrival-rate load (jobs
 * started on a schedule, each on an idle user's session). It keeps the run's RivLoadStats, and
 * once a second on the main context emits "sample" with that second's
 * RivLoadSample; "finished" when the run is over. No GTK.
 */
#pragma once

#include "riv-arrivals.h"
#include "riv-client.h"
#include "riv-compare.h"
#include "riv-load-scenario.h"
#include "riv-load-stats.h"
#include "riv-metrics.h"

G_BEGIN_DECLS

typedef struct
{
  double seconds;   /* how long the ramp takes */
  guint  target;    /* users at its end */
} RivLoadStage;

/* Where a run stopped with riv_load_run_set_until_break() (riv-load-break.c). */
typedef struct
{
  double  t;              /* seconds after the start */
  guint   users;          /* active users then (0: open loop) */
  guint64 sessions;       /* sessions the run had opened by then */
  double  rate_per_s;     /* jobs submitted a second, over the second or two before */
  double  p95_s_before;   /* p95 latency of the jobs completed just before; < 0: none */
  char   *reason;         /* the failure class in plain words */
  char   *error;          /* the first failure's own text, or the threshold; nullable */
} RivLoadBreakpoint;

#define RIV_TYPE_LOAD_RUN (riv_load_run_get_type ())
G_DECLARE_FINAL_TYPE (RivLoadRun, riv_load_run, RIV, LOAD_RUN, GObject)

/* "DURATION:TARGET,…" (durations in ms, s, m or h; seconds without a unit).
 * The error names the stage it could not read. */
gboolean      riv_load_parse_stages          (const char        *text,
                                              GArray           **stages,
                                              GError           **error);
/* A duration as the stages write it: "500ms", "30s", "2m", "1h", or seconds
 * without a unit; FALSE when it is not one (or negative). */
gboolean      riv_load_parse_duration        (const char        *text,
                                              double            *seconds);
/* The stages back in their notation ("10s:50,30s:50"). */
char         *riv_load_format_stages         (GArray            *stages);

/* client: connected (its config is used by every user). template: a JSON
 * array, one value per input; "{i}" and "{u}" in strings become the job's
 * and the user's number. */
RivLoadRun   *riv_load_run_new               (RivClient         *client,
                                              const char        *endpoint_name,
                                              JsonNode          *template);
/* Closed loop. iterations 0: no limit (with duration or stages). */
void          riv_load_run_set_users         (RivLoadRun        *self,
                                              guint              users,
                                              double             think,
                                              double             duration,
                                              guint              iterations);
/* Ramps the users (takes the array, RivLoadStage); replaces the duration. */
void          riv_load_run_set_stages        (RivLoadRun        *self,
                                              GArray            *stages);
/* Open loop: count jobs in the client's session, rate per second (0: at once). */
void          riv_load_run_set_open_loop     (RivLoadRun        *self,
                                              guint              count,
                                              double             rate);
void          riv_load_run_set_shard         (RivLoadRun        *self,
                                              guint              shard,
                                              guint              n_shards);
/* Seconds after the schedule (or the start, open loop) before the jobs in
 * flight count as lost. Default 600. */
/* A gap between a job's updates longer than this is a stall (default
 * RIV_STREAM_STALL_DEFAULT_S). Before the run starts. */
void          riv_load_run_set_stall         (RivLoadRun        *self,
                                              double             stall_s);
void          riv_load_run_set_timeout       (RivLoadRun        *self,
                                              double             timeout);
/* Virtual users work on a thread of their own (a GMainContext of its own):
 * a GUI's main loop then only receives the samples and "finished", on the
 * context that created the run. While it runs, the counters and the batch
 * sizes read there are those of the last sample; the statistics, records and
 * report are for after "finished". "user-started" is emitted on that
 * thread. Ignored by the open loop, which submits in the caller's client. */
void          riv_load_run_set_threaded      (RivLoadRun        *self,
                                              gboolean           threaded);
/* Breakpoint test: the ramp (stages, users over the duration, or a rate
 * ramp) stops at the first failed or lost job, or when one of thresholds
 * that can be judged while the run goes (latencies, failures, error rate)
 * fails; the jobs in flight then end. thresholds: RivLoadThreshold, nullable. */
void          riv_load_run_set_until_break   (RivLoadRun        *self,
                                              GPtrArray         *thresholds);
/* Arrival rate (k6's constant- and ramping-arrival-rate): each job starts
 * at its time in schedule (riv-arrivals.h; taken) on an idle virtual user's
 * session; the pool of users grows as needed up to max_users (all shards),
 * and a job due while every one is busy is dropped and counted. Replaces
 * the users, stages and open loop; on one thread. */
void          riv_load_run_set_arrivals      (RivLoadRun        *self,
                                              RivArrivals       *schedule,
                                              guint              max_users);
/* What became of the arrivals; FALSE when the run is not an arrival-rate
 * run. Final after "finished". */
gboolean      riv_load_run_get_arrivals      (RivLoadRun        *self,
                                              RivArrivalsTally  *tally);
/* Open loop: the arrival rate grows linearly from 0 to rate over seconds
 * (replaces the count). */
void          riv_load_run_set_rate_ramp     (RivLoadRun        *self,
                                              double             rate,
                                              double             seconds);
/* Where the run broke, or NULL (not a breakpoint test, or nothing broke
 * before the ramp ended). After "finished". */
/* A breakpoint test broken from outside (load --processes: another process
 * broke, or a threshold on the processes' merged jobs failed): the ramp
 * stops as at a breakpoint of its own, which why names; the jobs in flight
 * end as they will. Nothing when the ramp is over or it broke already. */
void          riv_load_run_break_now         (RivLoadRun        *self,
                                              const char        *why);
/* It broke (while it runs too; the breakpoint is named at the end). */
gboolean      riv_load_run_has_broken        (RivLoadRun        *self);
const RivLoadBreakpoint *riv_load_run_get_breakpoint (RivLoadRun  *self);
/* The breakpoint as one sentence ("at 2,013 users (2,013 sessions, 180.2
 * jobs/s, p95 before 1.204 s): the server stopped its queue …"). */
char         *riv_load_breakpoint_describe   (const RivLoadBreakpoint *breakpoint);

/* Feeds metrics (riv-metrics.h) while the run goes: counters as jobs are
 * submitted and end, gauges once a second. Holds a reference. */
void          riv_load_run_set_metrics       (RivLoadRun        *self,
                                              RivMetrics        *metrics);
/* Each job's data from templates (JsonNode * arrays) in turn instead of the
 * one given to riv_load_run_new (): job i takes template (i - 1) mod n,
 * "{i}" and "{u}" replaced as ever (the endpoint's examples). Holds a
 * reference; NULL or empty: the one template. */
void          riv_load_run_set_templates     (RivLoadRun        *self,
                                              GPtrArray         *templates);
/* Scenarios (riv-load-scenario.h): each job takes one of them, drawn by
 * weight from the seed and its job number (so the same seed makes the same
 * choices, in any number of processes), and goes to its endpoint with its
 * templates (JsonNode * arrays, job i takes (i - 1) mod n; held); its user
 * then thinks as think says (the scenario's, or the run's default).
 * endpoint_key: how {endpoint:…} names the endpoint ("/chat"). Each
 * scenario's jobs are counted into statistics of its own besides the run's.
 * Before the run starts; the endpoint and template given to
 * riv_load_run_new () are then not used. From spec: its name, endpoint,
 * weight, turns and users:
 * - turns > 0 makes the scenario a conversation (virtual users only): once
 *   any scenario has turns, each user draws a scenario per conversation
 *   (from the seed, its number and how many it has had) instead of per job,
 *   sends a conversation's turns jobs in a row in a new session of their own
 *   (a new client: its gr.State starts empty), and after one, takes a new
 *   session again; a scenario without turns is a conversation of one job.
 * - users > 0 gives it virtual users of its own, that run only it: the
 *   lowest user numbers, in the order the scenarios are added (the run's
 *   users, riv_load_run_set_users (), count them too); the users above them
 *   draw by weight among the scenarios without users of their own. */
void          riv_load_run_add_scenario      (RivLoadRun            *self,
                                              const RivLoadScenario *spec,
                                              const char            *endpoint_key,
                                              GPtrArray             *templates,
                                              const RivThink        *think);
void          riv_load_run_set_seed          (RivLoadRun        *self,
                                              guint64            seed);
guint64       riv_load_run_get_seed          (RivLoadRun        *self);
guint         riv_load_run_get_n_scenarios   (RivLoadRun        *self);
/* Scenario i's name, and its endpoint as {endpoint:…} names it. */
const char   *riv_load_run_get_scenario      (RivLoadRun        *self,
                                              guint              i,
                                              const char       **endpoint_key,
                                              double            *weight);
/* Scenario i's users of its own and turns (0: none). */
void          riv_load_run_get_scenario_counts (RivLoadRun     *self,
                                                guint           i,
                                                guint          *users,
                                                guint          *turns);
/* Its statistics (final after "finished"), or NULL when i is out of range. */
RivLoadStats *riv_load_run_get_scenario_stats (RivLoadRun       *self,
                                               guint             i);
/* The statistics of the jobs sent to an endpoint (key as {endpoint:…} names
 * it, with or without its "/"), or NULL when no scenario sends to it. */
RivLoadStats *riv_load_run_get_endpoint_stats (RivLoadRun       *self,
                                               const char       *endpoint_key);
/* The statistics a threshold tagged key:value names ({scenario:NAME}: that
 * scenario's, {endpoint:/chat}: riv_load_run_get_endpoint_stats ()), or
 * NULL when no scenario is so named; key NULL: the run's. */
RivLoadStats *riv_load_run_get_tagged_stats  (RivLoadRun       *self,
                                              const char       *key,
                                              const char       *value);

/* Adds every job to compare as a job of run (0 or 1), as it is counted: the
 * window keeps its previous run beside the new one. Holds a reference. */
void          riv_load_run_set_compare       (RivLoadRun        *self,
                                              RivCompare        *compare,
                                              guint              run);
/* Keep one JSON record per job (riv-job-record.h), for --output. */
void          riv_load_run_set_keep_records  (RivLoadRun        *self,
                                              gboolean           keep);
/* Each job's record (one JSON line, no newline) as the job is counted, in
 * that order, instead of keeping it: --output without the server's timings.
 * On a run of its own thread (riv_load_run_set_threaded ()) it is called from
 * that thread. NULL: none. */
typedef void (*RivLoadRecordFunc) (const char *line,
                                   gpointer    user_data);
void          riv_load_run_set_record_func   (RivLoadRun        *self,
                                              RivLoadRecordFunc  func,
                                              gpointer           user_data);
/* Each job's brief record (riv_load_record_write_brief (), with its
 * scenario's number) as the job is counted: the figures a record's reader
 * takes, without the JSON (a load worker's lines to its parent process).
 * Called as riv_load_run_set_record_func ()'s func is. NULL: none. */
void          riv_load_run_set_brief_func    (RivLoadRun        *self,
                                              RivLoadRecordFunc  func,
                                              gpointer           user_data);
/* Whether each job is counted into the run's, its scenario's and its
 * endpoint's statistics (TRUE by default). FALSE for a run whose statistics
 * nobody reads, its jobs counted elsewhere from its records (a load worker:
 * its parent counts them): riv_load_run_get_stats () and the others then
 * hold no jobs. A run that judges thresholds while it goes
 * (riv_load_run_set_until_break ()) counts them all the same. */
void          riv_load_run_set_counting      (RivLoadRun        *self,
                                              gboolean           counting);

/* handle_file() values in the inputs are uploaded before each job
 * (riv_client_submit_uploading()), once per path and session. Off by
 * default: the window's form uploads its files itself. */
void          riv_load_run_set_upload_files  (RivLoadRun        *self,
                                              gboolean           upload);
/* Checks, on a worker thread, the local files the run's jobs will upload:
 * each a readable regular file of at least one byte. With "{i}" or "{u}" in
 * a path, the paths of every job and user the schedule has (open loop, users
 * with iterations); a run with no job count (duration, stages) checks its
 * first job's. The error names the job and the path. Nothing to check when
 * riv_load_run_set_upload_files() is off. files (nullable): the paths
 * checked, each once, in the order the jobs name them (a new array). */
void          riv_load_run_check_files_async (RivLoadRun        *self,
                                              GCancellable      *cancellable,
                                              GAsyncReadyCallback callback,
                                              gpointer           user_data);
gboolean      riv_load_run_check_files_finish (RivLoadRun       *self,
                                              GAsyncResult      *result,
                                              GPtrArray        **files,
                                              GError           **error);
/* Keep each completed job's event id, for riv_load_run_add_server_traces(). */
void          riv_load_run_set_track_events  (RivLoadRun        *self,
                                              gboolean           track);
/* After the run: the server's per-event timings (Gradio's
 * {P}/profiling/traces, riv_client_fetch_server_traces_async()) joined to the
 * run's completed jobs by event id: a "server" object in each record
 * (riv_job_record_server_timing()) and the client/server split in the
 * statistics. Traces of other events are ignored. Returns the jobs joined. */
guint         riv_load_run_add_server_traces (RivLoadRun        *self,
                                              JsonNode          *traces);
/* Completed jobs (tracked) that no trace has timed yet. */
guint         riv_load_run_get_n_untimed     (RivLoadRun        *self);

/* Starts the run. Open loop, the first job is submitted now: FALSE when the
 * inputs are refused (the error says why). */
gboolean      riv_load_run_start             (RivLoadRun        *self,
                                              GError           **error);
/* Stops it: jobs in flight count as lost ("interrupted" or "timed out"). */
void          riv_load_run_stop              (RivLoadRun        *self,
                                              gboolean           interrupted);

gboolean      riv_load_run_is_running        (RivLoadRun        *self);
gboolean      riv_load_run_is_finished       (RivLoadRun        *self);
/* Stopped before every job ended (riv_load_run_stop() or the timeout). */
gboolean      riv_load_run_was_stopped       (RivLoadRun        *self);
gboolean      riv_load_run_was_interrupted   (RivLoadRun        *self);
/* A user's submit refused the inputs (the run stopped), or NULL. */
const char   *riv_load_run_get_usage_error   (RivLoadRun        *self);

RivLoadStats *riv_load_run_get_stats         (RivLoadRun        *self);
/* One JSON line per job in job order (NULL holes for jobs that never ended);
 * NULL without riv_load_run_set_keep_records(). */
GPtrArray    *riv_load_run_get_records       (RivLoadRun        *self);
double        riv_load_run_get_elapsed       (RivLoadRun        *self);
guint64       riv_load_run_get_submitted     (RivLoadRun        *self);
guint64       riv_load_run_get_finished      (RivLoadRun        *self);
guint64       riv_load_run_get_completed     (RivLoadRun        *self);
guint64       riv_load_run_get_failed        (RivLoadRun        *self);
guint64       riv_load_run_get_lost          (RivLoadRun        *self);
guint         riv_load_run_get_active_users  (RivLoadRun        *self);
guint         riv_load_run_get_peak_users    (RivLoadRun        *self);
/* The target of the schedule: users, or the highest stage target. */
guint         riv_load_run_get_target_users  (RivLoadRun        *self);
/* counts[s] = batches of size s, s in 1..*max_size (riv_load_stats_batch_sizes);
 * free with g_free. */
guint64      *riv_load_run_dup_batch_sizes   (RivLoadRun        *self,
                                              guint             *max_size);
/* Messages received by every client of the run. */
guint64       riv_load_run_get_n_events      (RivLoadRun        *self);
/* The streams open now and the bytes every stream of the run has received
 * (on one thread, the run's own users). */
void          riv_load_run_get_streams       (RivLoadRun        *self,
                                              guint             *open,
                                              guint64           *bytes);
/* Seconds the users' schedule lasts (stages or duration); 0 when open-ended. */
double        riv_load_run_get_schedule      (RivLoadRun        *self);

/* The HTML report (riv-report.h) with the run's parameters; thresholds
 * nullable when n_thresholds is 0. */
char         *riv_load_run_dup_report        (RivLoadRun              *self,
                                              RivLoadThreshold * const *thresholds,
                                              guint                    n_thresholds);

G_END_DECLS
