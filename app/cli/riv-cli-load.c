/* riv-cli-load.c
 * Copyright 2026 The Rivulet authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * rivulet-cli load: load-tests one endpoint of any Gradio server, open loop
 * (a burst of --count jobs, or --rate jobs a second, in one session) or
 * closed loop (--users virtual users, each with its own session: submit, wait
 * for the end, think, repeat), then prints a summary and writes per-job
 * records, a time series and an HTML report.
 */
#include "config.h"

#include <errno.h>
#include <math.h>
#include <signal.h>
#include <string.h>
#include <unistd.h>

#include <glib-unix.h>

#include "riv-cli-load.h"
#include "riv-cli-record.h"
#include "riv-cli-tls.h"
#include "riv-cli.h"
#include "riv-compat.h"
#include "riv-job-record.h"
#include "riv-json.h"
#include "riv-listen.h"
#include "riv-stream-quality.h"

#define TRACE_ATTEMPTS     5      /* fetches of the server's timings after the run */
#define TRACE_RETRY_MS     200

static gboolean
interrupt_cb (gpointer user_data)
{
  LoadRun *run = user_data;

  riv_load_run_stop (run->engine, TRUE);
  return G_SOURCE_CONTINUE;
}

static void
finished_cb (RivLoadRun *engine,
             gpointer    user_data)
{
  LoadRun *run = user_data;

  g_main_loop_quit (run->loop);
}

static void
user_started_cb (RivLoadRun *engine,
                 RivClient  *client,
                 gpointer    user_data)
{
  riv_cli_record_add_client (client);
}

static void
connect_done_cb (GObject      *object,
                 GAsyncResult *result,
                 gpointer      user_data)
{
  GAsyncResult **slot = user_data;

  *slot = g_object_ref (result);
}

/* Iterates the main context until connect_done_cb () has filled *slot. */
static void
wait_for_result (GAsyncResult **slot)
{
  while (*slot == NULL)
    g_main_context_iteration (NULL, TRUE);
}

static void
flag_cb (gpointer user_data)
{
  *(gboolean *) user_data = TRUE;
}

/* GET {P}/profiling/traces (the last last_n, 0: all), waited for; NULL when
 * the server offers none (error unset) or it failed. */
static JsonNode *
load_fetch_traces (RivClient  *client,
                   guint       last_n,
                   GError    **error)
{
  g_autoptr(GAsyncResult) result = NULL;
  g_autoptr(GError) local = NULL;
  JsonNode *traces;

  riv_client_fetch_server_traces_async (client, last_n, NULL, connect_done_cb, &result);
  wait_for_result (&result);
  traces = riv_client_fetch_server_traces_finish (client, result, &local);
  if (traces == NULL && !g_error_matches (local, G_IO_ERROR, G_IO_ERROR_NOT_SUPPORTED))
    g_propagate_error (error, g_steal_pointer (&local));
  return traces;
}

/* /call/v2 is Gradio 6.13's, for named, queued endpoints whose parameters /info names. */
static gboolean
call_route_offered (RivConfig    *config,
                    RivEndpoint  *endpoint,
                    GError      **error)
{
  const char *version = riv_config_get_version (config);
  guint64 major = 0, minor = 0;
  g_auto(GStrv) parts = g_strsplit (version != NULL ? version : "", ".", 3);

  if (g_strv_length (parts) < 2 ||
      !g_ascii_string_to_unsigned (parts[0], 10, 0, 1000, &major, NULL) ||
      !g_ascii_string_to_unsigned (parts[1], 10, 0, 1000, &minor, NULL) ||
      major < 6 || (major == 6 && minor < 13))
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_NOT_SUPPORTED,
                   "the server (version %s) has no /call/v2 route (Gradio 6.13 and later)",
                   version != NULL ? version : "not given");
      return FALSE;
    }
  if (endpoint->api_name == NULL || !endpoint->queue || endpoint->parameters == NULL)
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_NOT_SUPPORTED,
                   "the endpoint is not a named, queued one whose parameters the server's "
                   "/info names");
      return FALSE;
    }
  return TRUE;
}

static gboolean
parse_shard (const char  *text,
             guint       *shard,
             guint       *n_shards,
             GError     **error)
{
  guint64 i, n;
  g_auto(GStrv) parts = g_strsplit (text, "/", -1);

  if (g_strv_length (parts) != 2 ||
      !g_ascii_string_to_unsigned (parts[0], 10, 0, G_MAXUINT32, &i, NULL) ||
      !g_ascii_string_to_unsigned (parts[1], 10, 1, 100000, &n, NULL) || i >= n)
    {
      g_set_error (error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
                   "--shard \"%s\": expected I/N with 0 <= I < N, e.g. 0/4 "
                   "(I as in $JOB_COMPLETION_INDEX)", text);
      return FALSE;
    }
  *shard = (guint) i;
  *n_shards = (guint) n;
  return TRUE;
}

/* What the command line asks for: filled and checked by load_options_parse ()
 * before anything connects. */
typedef struct
{
  char         *url;
  char         *endpoint_name;
  char         *data_text;
  char         *token;
  char         *auth;
  char         *output_path;
  char         *timeseries_path;
  char         *report_path;
  char         *stages_text;
  char         *shard_text;
  char         *transport;
  char         *metrics_address;
  char         *threads_text;
  char         *arrival_stages_text;
  char        **threshold_texts;
  char         *scenarios_path;
  char         *seed_text;
  gint          count;             /* -1: not given */
  gint          users;
  gint          iterations;
  double        rate;
  double        timeout;           /* -1: not given */
  double        stall;
  double        think;
  double        duration;
  char         *arrival_rate_text;
  gint          max_users;         /* -1: not given */
  gboolean      poisson;
  gboolean      json;
  gboolean      until_break;
  gboolean      examples;          /* --examples: each job an example of the endpoint's */
  char         *processes_text;    /* --processes N or auto */
  gboolean      worker;            /* --worker: one of them (riv-cli-load-processes.c) */
  gboolean      worker_brief;      /* --worker-brief: its jobs as brief records */
  gboolean      worker_lint;       /* --worker-lint: the live lint on, its findings at the end */

  /* From the above */
  gboolean      count_given;
  gboolean      call;              /* --transport call */
  guint         shard;
  guint         n_shards;
  gint          processes;         /* --processes N; G_MININT: not given; 0: auto */
  GArray       *stages;            /* RivLoadStage, nullable */
  RivArrivals  *arrivals;          /* --arrival-rate, --arrival-stages: nullable */
  GPtrArray    *thresholds;        /* RivLoadThreshold, until the run takes them */
  char         *normalized_url;  /* NULL for a Space until it is resolved */
  char         *space_id;        /* nullable: --url named a Hugging Face Space */
  JsonNode     *given;             /* --data, nullable */
  RivLoadScenarios *scenarios;     /* --scenarios, nullable */
  guint64       seed;              /* of the scenarios' draws */
  gint          own_users;         /* the scenarios' users of their own (in users) */
} LoadOptions;

#define LOAD_OPTIONS_INIT { .count = -1, .timeout = -1, .n_shards = 1, .processes = G_MININT, \
                            .stall = RIV_STREAM_STALL_DEFAULT_S, .max_users = -1 }
/* The arrival-rate load's pool of users when --max-users is not given. */
#define LOAD_DEFAULT_MAX_USERS 1000

static void
load_options_clear (LoadOptions *options)
{
  g_clear_pointer (&options->url, g_free);
  g_clear_pointer (&options->endpoint_name, g_free);
  g_clear_pointer (&options->data_text, g_free);
  g_clear_pointer (&options->token, g_free);
  g_clear_pointer (&options->auth, g_free);
  g_clear_pointer (&options->output_path, g_free);
  g_clear_pointer (&options->timeseries_path, g_free);
  g_clear_pointer (&options->report_path, g_free);
  g_clear_pointer (&options->stages_text, g_free);
  g_clear_pointer (&options->shard_text, g_free);
  g_clear_pointer (&options->transport, g_free);
  g_clear_pointer (&options->metrics_address, g_free);
  g_clear_pointer (&options->threads_text, g_free);
  g_clear_pointer (&options->processes_text, g_free);
  g_clear_pointer (&options->arrival_stages_text, g_free);
  g_clear_pointer (&options->arrival_rate_text, g_free);
  g_clear_pointer (&options->arrivals, riv_arrivals_free);
  g_clear_pointer (&options->threshold_texts, g_strfreev);
  g_clear_pointer (&options->stages, g_array_unref);
  g_clear_pointer (&options->thresholds, g_ptr_array_unref);
  g_clear_pointer (&options->normalized_url, g_free);
  g_clear_pointer (&options->space_id, g_free);
  g_clear_pointer (&options->given, json_node_unref);
  g_clear_pointer (&options->scenarios_path, g_free);
  g_clear_pointer (&options->seed_text, g_free);
  g_clear_pointer (&options->scenarios, riv_load_scenarios_free);
}

G_DEFINE_AUTO_CLEANUP_CLEAR_FUNC (LoadOptions, load_options_clear)

/* Every way out of riv_cli_load () passes here: the recording ends too. */
static void
load_run_clear (LoadRun *run)
{
  riv_cli_record_finish ();
  if (run->output != NULL && run->output != stdout)
    fclose (run->output);
  run->output = NULL;
  if (run->engine != NULL)
    g_signal_handlers_disconnect_by_data (run->engine, run);
  g_clear_object (&run->engine);
  if (run->client != NULL)
    riv_client_close (run->client);
  g_clear_object (&run->client);
  g_clear_handle_id (&run->sigint_id, g_source_remove);
  g_clear_handle_id (&run->sigterm_id, g_source_remove);
  g_clear_pointer (&run->loop, g_main_loop_unref);
  g_clear_pointer (&run->config, riv_config_unref);
  g_clear_pointer (&run->thresholds, g_ptr_array_unref);
  g_clear_pointer (&run->endpoint_key, g_free);
  g_clear_pointer (&run->metrics, riv_metrics_unref);
  g_clear_pointer (&run->local_files, g_ptr_array_unref);
  g_clear_pointer (&run->processes, load_processes_free);
}

G_DEFINE_AUTO_CLEANUP_CLEAR_FUNC (LoadRun, load_run_clear)

/* Sets a bad-value error (a usage error to the caller) and returns FALSE. */
static gboolean
option_error (GError     **error,
              const char  *format,
              ...) G_GNUC_PRINTF (2, 3);

static gboolean
option_error (GError     **error,
              const char  *format,
              ...)
{
  va_list args;

  va_start (args, format);
  g_propagate_error (error, g_error_new_valist (G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
                                                format, args));
  va_end (args);
  return FALSE;
}

static gboolean
metrics_linger_cb (gpointer user_data)
{
  LoadRun *run = user_data;

  if (!riv_metrics_final_scraped (run->metrics) && riv_now () < run->metrics_until)
    return G_SOURCE_CONTINUE;
  g_main_loop_quit (run->loop);
  return G_SOURCE_REMOVE;
}

/* The live lint's findings on --metrics: the run's, with its ended workers'. */
static void
load_feed_lint_metrics (LoadRun *run)
{
  g_autoptr(JsonArray) workers = run->processes != NULL
    ? load_processes_dup_lint (run->processes) : NULL;

  riv_cli_record_feed_metrics (run->metrics, workers);
}

/* The run's last values wait for the scraper's next visit (bounded by its own pace). */
static void
metrics_linger (LoadRun *run)
{
  double linger;

  if (run->metrics == NULL)
    return;
  load_feed_lint_metrics (run);
  linger = riv_metrics_set_final (run->metrics);
  if (linger <= 0)
    return;
  run->metrics_until = riv_now () + linger;
  g_timeout_add (50, metrics_linger_cb, run);
  g_main_loop_run (run->loop);
}

static void
metrics_sample_cb (RivLoadRun          *engine,
                   const RivLoadSample *sample,
                   gpointer             user_data)
{
  LoadRun *run = user_data;

  load_feed_lint_metrics (run);
}

void
load_record_line (const char *line,
                  gpointer    user_data)
{
  LoadRun *run = user_data;
  gboolean failed;

  flockfile (run->output);
  failed = fputs (line, run->output) < 0 || fputc ('\n', run->output) < 0;
  funlockfile (run->output);
  if (failed)
    g_atomic_int_compare_and_exchange (&run->output_errno, 0, errno != 0 ? errno : EIO);
}

static gboolean
write_records (GPtrArray   *records,
               FILE        *out,
               GError     **error)
{
  for (guint i = 0; records != NULL && i < records->len; i++)
    {
      const char *line = g_ptr_array_index (records, i);

      if (line != NULL && (fputs (line, out) < 0 || fputc ('\n', out) < 0))
        break;
    }
  if (fflush (out) != 0 || ferror (out))
    {
      g_set_error (error, G_FILE_ERROR, g_file_error_from_errno (errno),
                   "cannot write the job records: %s", g_strerror (errno));
      return FALSE;
    }
  return TRUE;
}

/* Checks that a file can be created where the run will write it, before the run. */
static gboolean
check_writable (const char  *option,
                const char  *path,
                GError     **error)
{
  FILE *file;

  /* "-" is standard output (load_write_file ()), never a file of that name. */
  if (path == NULL || strcmp (path, "-") == 0)
    return TRUE;
  file = fopen (path, "a");
  if (file == NULL)
    {
      g_set_error (error, G_FILE_ERROR, g_file_error_from_errno (errno),
                   "%s: cannot write %s: %s", option, path, g_strerror (errno));
      return FALSE;
    }
  fclose (file);
  return TRUE;
}

/* What the jobs are: the server, the endpoint, the inputs, the scenarios. */
static void
add_target_entries (GOptionContext *context,
                   LoadOptions    *o)
{
  const GOptionEntry entries[] = {
    { "url", 'u', 0, G_OPTION_ARG_STRING, &o->url, "Server base URL, or a Hugging Face Space as OWNER/SPACE (required)", "URL" },
    { "endpoint", 'e', 0, G_OPTION_ARG_STRING, &o->endpoint_name,
      "Endpoint api_name (or fn_index) to call (required, unless --scenarios)", "NAME" },
    { "examples", 0, 0, G_OPTION_ARG_NONE, &o->examples,
      "Each job's inputs from the endpoint's examples (gr.Examples) in turn: job i takes "
      "example i mod N, \"{i}\" and \"{u}\" replaced in them as in --data", NULL },
    /* Bytes as given: load_options_parse_target () converts them, naming --data. */
    { "data", 'd', 0, G_OPTION_ARG_FILENAME, &o->data_text,
      "Input values as a JSON array, or an object of parameters by name (from the "
      "server's /info); missing ones take the inputs' defaults; in strings "
      "\"{i}\" becomes the job number (1…) and \"{u}\" the user number. A file is "
      "{\"path\": \"cat.png\", \"meta\": {\"_type\": \"gradio.FileData\"}} (as gradio_client's "
      "handle_file() writes it, also inside lists): uploaded before the job, once per session "
      "and path (once for all --count jobs, once per user with --users) and then reused, the "
      "time in each record's upload_s; a missing, empty or unreadable file stops the run "
      "before any job",
      "JSON_ARRAY" },
    { "scenarios", 0, 0, G_OPTION_ARG_FILENAME, &o->scenarios_path,
      "Several endpoints in one run, from a JSON file: {\"scenarios\": {NAME: {\"endpoint\", "
      "\"data\" or \"examples\", \"weight\", \"users\", \"turns\", \"think\", \"thresholds\"}, "
      "…}} and the run's \"users\", \"duration\", \"iterations\", \"stages\", \"think\", "
      "\"seed\", \"thresholds\" (the options given here win); each job takes a scenario by "
      "weight, and the summary, --json and --output give each scenario's figures (instead of "
      "--endpoint, --data and --examples). \"turns\": N makes a scenario a conversation: N "
      "jobs in a row in a new session (a gr.State kept across them). A scenario's own "
      "\"users\": N run only it, besides the run's users, which draw by weight", "FILE" },
    { "seed", 0, 0, G_OPTION_ARG_STRING, &o->seed_text,
      "Scenarios: the seed of the picks and think times, the same again for the same seed "
      "(default: the file's \"seed\", else a random one, which the summary gives)", "N" },
    { NULL }
  };

  /* The entries are copied: the array may go, the places they fill stay in *o. */
  g_option_context_add_main_entries (context, entries, NULL);
}

/* How the jobs go out: open loop, users, arrival rate, stages, shards, threads, limits. */
static void
add_shape_entries (GOptionContext *context,
                  LoadOptions    *o)
{
  const GOptionEntry entries[] = {
    { "count", 'n', 0, G_OPTION_ARG_INT, &o->count,
      "Open loop: submit N jobs in one session (default 1)", "N" },
    { "rate", 'r', 0, G_OPTION_ARG_DOUBLE, &o->rate,
      "Open loop: submit at most this many jobs per second (default: all at once)", "JOBS_PER_S" },
    { "users", 'U', 0, G_OPTION_ARG_INT, &o->users,
      "Closed loop: N virtual users, each with its own session: submit, wait for the end, "
      "think, repeat", "N" },
    { "think", 0, 0, G_OPTION_ARG_DOUBLE, &o->think,
      "Users: pause between a job's end and the next submit (default 0)", "S" },
    { "duration", 0, 0, G_OPTION_ARG_DOUBLE, &o->duration,
      "Users: submit for this many seconds", "S" },
    { "iterations", 0, 0, G_OPTION_ARG_INT, &o->iterations,
      "Users: jobs per user (default 1 without --duration or --stages)", "K" },
    { "arrival-rate", 0, 0, G_OPTION_ARG_STRING, &o->arrival_rate_text,
      "Arrival rate (an open model): start R jobs a second for --duration S, each on an "
      "idle virtual user's session (a pool that grows up to --max-users); with "
      "--arrival-stages, the rate the stages start from (default 0)", "R" },
    { "arrival-stages", 0, 0, G_OPTION_ARG_STRING, &o->arrival_stages_text,
      "Arrival rate in stages, k6's ramping-arrival-rate: DURATION:RATE,… e.g. "
      "\"10s:50,1m:50,10s:0\" (linear ramps of jobs a second)", "STAGES" },
    { "poisson", 0, 0, G_OPTION_ARG_NONE, &o->poisson,
      "Arrival rate: jobs arrive as a Poisson process (random gaps, the rate on average) "
      "instead of evenly spaced", NULL },
    { "max-users", 0, 0, G_OPTION_ARG_INT, &o->max_users,
      "Arrival rate: the most users (sessions) the pool may open (default 1000); a job due "
      "while every one is busy is dropped, and the summary counts it", "N" },
    { "stages", 0, 0, G_OPTION_ARG_STRING, &o->stages_text,
      "Users: ramp the number of users, k6 style: DURATION:TARGET,… e.g. "
      "\"10s:50,30s:50,10s:0\" (linear ramps)", "STAGES" },
    { "shard", 0, 0, G_OPTION_ARG_STRING, &o->shard_text,
      "Run shard I of N (0 <= I < N): its share of the users or jobs and of the job "
      "numbers; merge the shards' --output with \"rivulet-cli report merge\"", "I/N" },
    { "processes", 0, 0, G_OPTION_ARG_STRING, &o->processes_text,
      "Users: run them in N worker processes (each shard I of N) and merge their jobs into "
      "one run: records, status line, --metrics, --until-break, summary, --report, "
      "--timeseries and exit status as one run's; \"auto\": one a core, one fewer when the "
      "server is on this machine's loopback (default: 1, this process); the workers run "
      "this program, or the one $RIVULET_WORKER_PROGRAM names (for valgrind "
      "--trace-children)", "N|auto" },
    /* Retired (one way to use every core is enough): said so, not silently unknown. */
    { "threads", 0, G_OPTION_FLAG_HIDDEN, G_OPTION_ARG_STRING, &o->threads_text, NULL, NULL },
    { "worker", 0, G_OPTION_FLAG_HIDDEN, G_OPTION_ARG_NONE, &o->worker, NULL, NULL },
    { "worker-brief", 0, G_OPTION_FLAG_HIDDEN, G_OPTION_ARG_NONE, &o->worker_brief, NULL, NULL },
    { "worker-lint", 0, G_OPTION_FLAG_HIDDEN, G_OPTION_ARG_NONE, &o->worker_lint, NULL, NULL },
    { "timeout", 't', 0, G_OPTION_ARG_DOUBLE, &o->timeout,
      "Give up after this many seconds (after the schedule with --duration or --stages); "
      "unfinished jobs count as lost (default 600); also the longest the connect and each "
      "fetch of the server's timings may take (default 30 s there)", "S" },
    { "stall", 0, 0, G_OPTION_ARG_DOUBLE, &o->stall,
      "A gap this long between two of a job's streamed updates is a stall (default 1)", "S" },
    { NULL }
  };

  /* The entries are copied: the array may go, the places they fill stay in *o. */
  g_option_context_add_main_entries (context, entries, NULL);
}

/* What is checked and written: thresholds, the breakpoint, metrics, outputs, credentials. */
static void
add_check_entries (GOptionContext *context,
                  LoadOptions    *o)
{
  const GOptionEntry entries[] = {
    { "threshold", 0, 0, G_OPTION_ARG_STRING_ARRAY, &o->threshold_texts,
      "Pass/fail criterion, k6 style, repeatable: p95<2s, p99<=500ms, failed==0, lost==0, "
      "throughput>=100, error_rate<0.01, dropped==0 (arrival rate); streaming: ttfu_p95<1s (time to first update), "
      "gap_p99<200ms (gaps between updates), stalls==0, delay_p99<10ms (with serve --stamp); "
      "k6's tags check it on some jobs: p95{scenario:NAME}<2s, p95{endpoint:/chat}<2s; "
      "exit 0 only if every one holds", "EXPR" },
    { "until-break", 0, 0, G_OPTION_ARG_NONE, &o->until_break,
      "Breakpoint test: ramp (--stages; --users N or --rate R with --duration S: from 0 to N "
      "users or R jobs/s over S) until the first failed, lost or timed-out job (a join "
      "unanswered for 30 s) or a failing --threshold (a tagged one on the jobs it names, "
      "with --scenarios), then stop the ramp, let the jobs in flight end and name the "
      "breaking point", NULL },
    { "metrics", 0, 0, G_OPTION_ARG_STRING, &o->metrics_address,
      "Serve live Prometheus metrics at http://ADDR:PORT/metrics while the run goes "
      "(e.g. 127.0.0.1:9464; a port alone means 127.0.0.1; port 0 picks a free one)",
      "ADDR:PORT" },
    { "json", 0, 0, G_OPTION_ARG_NONE, &o->json, "Print the summary as one JSON object", NULL },
    { "output", 'o', 0, G_OPTION_ARG_FILENAME, &o->output_path,
      "Write one JSON record per job (JSON Lines) to FILE as each job is counted, in the order "
      "jobs ended (at the end, in job order, when the server's timings are joined); \"-\" is "
      "standard output (the summary then goes to standard error)", "FILE" },
    { "timeseries", 0, 0, G_OPTION_ARG_FILENAME, &o->timeseries_path,
      "Write one CSV line per second of the run to FILE (with --scenarios, a first column "
      "\"scenario\": the run's lines as \"(all)\", then each scenario's)", "FILE" },
    { "report", 0, 0, G_OPTION_ARG_FILENAME, &o->report_path,
      "Write a self-contained HTML report (charts, histograms, errors) to FILE", "FILE" },
    { "transport", 0, 0, G_OPTION_ARG_STRING, &o->transport,
      "How jobs are submitted: \"queue\" (queue/join and the session's stream, as the "
      "official clients do; default) or \"call\" (Gradio 6.13+'s /call/v2/ENDPOINT with "
      "keyword arguments and one result stream per job; no wait or run time, no "
      "--record), to compare the two", "queue|call" },
    { "token", 0, 0, G_OPTION_ARG_STRING, &o->token,
      "Bearer token for the server (default: $RIVULET_TOKEN; --token-file keeps it out of "
      "the process list)", "TOKEN" },
    { "auth", 0, 0, G_OPTION_ARG_STRING, &o->auth,
      "Log in to a Gradio app launched with auth= (default: $RIVULET_AUTH)", "USER:PASSWORD" },
    { NULL }
  };

  /* The entries are copied: the array may go, the places they fill stay in *o. */
  g_option_context_add_main_entries (context, entries, NULL);
}

static GOptionContext *
load_option_context_new (LoadOptions *o)
{
  GOptionContext *context = g_option_context_new ("— load-test one endpoint and summarise");

  g_option_context_set_summary (context,
    "Connects to a Gradio server (or rivulet-cli serve) and sends jobs to one\n"
    "endpoint (or to several by weight, --scenarios FILE): open loop (--count\n"
    "jobs, at --rate per second, in one session), closed loop (--users, each with\n"
    "its own session, for --duration, --iterations or --stages) or arrival rate\n"
    "(--arrival-rate, --arrival-stages: jobs started on a schedule, each on an\n"
    "idle user's session). Prints how many jobs completed, failed, were cancelled\n"
    "or lost, with latency percentiles (and each scenario's). Exits 0\n"
    "only if every job completed (with --threshold: if every threshold held),\n"
    "1 otherwise, 2 for bad arguments.");
  add_target_entries (context, o);
  add_shape_entries (context, o);
  add_check_entries (context, o);
  g_option_context_add_main_entries (context, riv_cli_record_get_entries (), NULL);
  g_option_context_add_main_entries (context, riv_cli_tls_get_entries (), NULL);
  return context;
}

/* The connection flags a run cannot go without. */
static gboolean
load_options_check_required (LoadOptions  *o,
                             GError      **error)
{
  if (o->url == NULL)
    return option_error (error, "--url is required");
  if (o->scenarios_path != NULL)
    {
      if (o->endpoint_name != NULL || o->data_text != NULL || o->examples)
        return option_error (error, "--scenarios names each scenario's endpoint and data: "
                             "leave out --endpoint, --data and --examples");
      return TRUE;
    }
  if (o->endpoint_name == NULL || *o->endpoint_name == '\0')
    return option_error (error, "--endpoint is required (or --scenarios FILE)");
  return TRUE;
}

/* --scenarios: the file read and checked, and the run's options it gives
 * where the command line does not. */
static gboolean
load_options_read_scenarios (LoadOptions  *o,
                             GError      **error)
{
  g_autofree char *text = NULL;
  gsize length;
  RivLoadScenarios *file;

  if (o->scenarios_path == NULL)
    return o->seed_text == NULL ? TRUE : option_error (error, "--seed is for --scenarios");
  if (!g_file_get_contents (o->scenarios_path, &text, &length, error))
    {
      g_prefix_error (error, "--scenarios: ");
      return FALSE;
    }
  o->scenarios = riv_load_scenarios_parse (text, (gssize) length, error);
  if (o->scenarios == NULL)
    {
      g_prefix_error (error, "--scenarios %s: ", o->scenarios_path);
      return FALSE;
    }
  file = o->scenarios;
  if (o->users == 0 && file->users > 0)
    o->users = file->users;
  if (o->duration == 0 && file->duration > 0)
    o->duration = file->duration;
  if (o->iterations == 0 && file->iterations > 0)
    o->iterations = file->iterations;
  if (o->stages_text == NULL && file->stages != NULL)
    o->stages_text = riv_load_format_stages (file->stages);
  /* Users of a scenario's own come besides the run's, which draw by weight. */
  for (guint i = 0; i < file->scenarios->len; i++)
    o->own_users += ((RivLoadScenario *) g_ptr_array_index (file->scenarios, i))->users;
  if (o->own_users > 0 && o->users >= 0)
    o->users += o->own_users;
  o->seed = file->has_seed ? file->seed : g_random_int ();
  if (o->seed_text != NULL &&
      !g_ascii_string_to_unsigned (o->seed_text, 10, 0, G_MAXINT64, &o->seed, NULL))
    return option_error (error, "--seed: expected a whole number, 0 or more, not “%s”",
                         o->seed_text);
  return TRUE;
}

/* --timeout and --stall. */
static gboolean
load_options_check_limits (LoadOptions  *o,
                           GError      **error)
{
  if (o->timeout != -1 && !(o->timeout > 0))
    return option_error (error, "--timeout must be positive");
  if (!(o->stall > 0) || !isfinite (o->stall))
    return option_error (error, "--stall must be a positive number of seconds");
  return TRUE;
}

static gboolean
arrivals_requested (const LoadOptions *o)
{
  return o->arrival_rate_text != NULL || o->arrival_stages_text != NULL;
}

/* The arrival-rate load: its schedule, built here, and what does not go with it. */
static gboolean
load_options_check_arrivals (LoadOptions  *o,
                             GError      **error)
{
  GArray *stages = NULL;
  double rate = 0;
  char *end = NULL;

  if (!arrivals_requested (o))
    {
      if (o->poisson || o->max_users != -1)
        return option_error (error, "--poisson and --max-users are for the arrival rate: add "
                             "--arrival-rate R (or --arrival-stages)");
      return TRUE;
    }
  if (o->users > 0 || o->count != -1 || o->rate > 0 || o->stages_text != NULL ||
      o->think > 0 || o->iterations > 0 || o->until_break)
    return option_error (error, "--arrival-rate and --arrival-stages start jobs on a schedule "
                         "of their own: leave out --users, --count, --rate, --stages, --think, "
                         "--iterations and --until-break");
  if (o->arrival_rate_text != NULL)
    rate = g_ascii_strtod (o->arrival_rate_text, &end);
  if (o->arrival_rate_text != NULL &&
      (end == o->arrival_rate_text || *end != '\0' || !(rate >= 0 && rate <= 100000)))
    return option_error (error, "--arrival-rate \"%s\": expected a rate from 0 to 100000 jobs "
                         "a second", o->arrival_rate_text);
  if (o->max_users != -1 && !(o->max_users >= 1 && o->max_users <= 1000000))
    return option_error (error, "--max-users must be from 1 to 1000000");
  if (o->arrival_stages_text != NULL)
    {
      if (o->duration > 0)
        return option_error (error, "--arrival-stages sets the run's length; leave out "
                             "--duration");
      if (!riv_arrivals_parse_stages (o->arrival_stages_text, &stages, error))
        return FALSE;
      o->arrivals = riv_arrivals_new_stages (rate, stages);
    }
  else
    {
      if (!(o->duration > 0) || !(rate > 0))
        return option_error (error, "--arrival-rate R needs a rate above 0 and --duration S "
                             "(or --arrival-stages to ramp it)");
      o->arrivals = riv_arrivals_new_constant (rate, o->duration);
    }
  if (riv_arrivals_expected (o->arrivals, riv_arrivals_get_duration (o->arrivals)) < 1)
    return option_error (error, "the arrival schedule starts no job: give it a rate above 0 "
                         "for long enough");
  if (o->poisson)
    riv_arrivals_set_poisson (o->arrivals, g_random_int ());
  return TRUE;
}

/* The workload: a burst, a rate, virtual users or a breakpoint ramp, and its limits. */
/* A scenario's turns are a virtual user's conversation (not the open loop's
 * one session, nor the arrival rate's jobs); its own users run the whole
 * run, and the run's others have scenarios to draw, and those users. */
static gboolean
load_options_check_scenario_users (const LoadOptions  *o,
                                   GError            **error)
{
  GPtrArray *scenarios = o->scenarios != NULL ? o->scenarios->scenarios : NULL;
  RivLoadScenario *drawn = NULL;

  for (guint i = 0; scenarios != NULL && i < scenarios->len; i++)
    {
      RivLoadScenario *scenario = g_ptr_array_index (scenarios, i);

      if (scenario->turns > 0 &&
          (arrivals_requested (o) || (o->users == 0 && o->stages_text == NULL)))
        return option_error (error, "scenario \"%s\": \"turns\" is a virtual user's "
                             "conversation: give users (\"users\", --users or --stages), not %s",
                             scenario->name, arrivals_requested (o)
                               ? "the arrival rate" : "the open loop (--count, --rate)");
      if (drawn == NULL && scenario->users == 0)
        drawn = scenario;
    }
  if (o->own_users == 0)
    return TRUE;
  if (o->stages_text != NULL || arrivals_requested (o) || o->until_break)
    return option_error (error, "a scenario's own \"users\" run the whole run: give "
                         "\"duration\" or \"iterations\", not stages, the arrival rate or "
                         "--until-break");
  if (drawn != NULL && o->users == o->own_users)
    return option_error (error, "scenario \"%s\" has no users of its own, and the run has "
                         "none to draw it by weight: give the run's \"users\" (or --users)",
                         drawn->name);
  if (drawn == NULL && o->users > o->own_users)
    return option_error (error, "the run's %d users have no scenario to draw: every scenario "
                         "has \"users\" of its own", o->users - o->own_users);
  return TRUE;
}

static gboolean
load_options_check_workload (LoadOptions  *o,
                             GError      **error)
{
  if (!load_options_check_scenario_users (o, error))
    return FALSE;
  if (arrivals_requested (o))
    return load_options_check_arrivals (o, error) && load_options_check_limits (o, error);
  o->count_given = o->count != -1;
  if (!load_options_check_arrivals (o, error))
    return FALSE;
  if (o->users > 0 && o->count_given)
    return option_error (error, "--users and --count do not go together: use --count N for a "
                         "burst of N jobs in one session, or --users N with --iterations K "
                         "for N users submitting K jobs each");
  if (o->until_break && o->stages_text == NULL &&
      !(o->duration > 0 && (o->users > 0 || o->rate > 0)))
    return option_error (error, "--until-break needs a ramp to climb: --stages, --users N with "
                         "--duration S (0 to N users over S seconds), or --rate R with "
                         "--duration S (0 to R jobs/s over S seconds)");
  if (o->until_break && o->count_given)
    return option_error (error, "--until-break ramps until something breaks; --count is a "
                         "fixed burst: leave it out");
  if (o->users > 0 && o->rate > 0)
    return option_error (error, "--users and --rate do not go together: --rate is the open "
                         "loop (one session), --users the closed loop (use --think to pace "
                         "users)");
  if (o->users < 0)
    return option_error (error, "--users must be at least 1");
  if (o->count == -1)
    o->count = 1;
  if (o->count < 1)
    return option_error (error, "--count must be at least 1");
  if (o->rate < 0 || isnan (o->rate))
    return option_error (error, "--rate must be positive");
  if (!(o->think >= 0) || !(o->duration >= 0) || o->iterations < 0)
    return option_error (error, "--think, --duration and --iterations cannot be negative");
  if (!load_options_check_limits (o, error))
    return FALSE;
  if (o->users == 0 && o->stages_text == NULL &&
      (o->think > 0 || o->iterations > 0 ||
       (o->duration > 0 && !(o->until_break && o->rate > 0))))
    return option_error (error, "--think, --duration and --iterations are for virtual users: "
                         "add --users N (or --stages)");
  return TRUE;
}

static gboolean
load_options_check_transport (LoadOptions  *o,
                              GError      **error)
{
  if (o->transport != NULL && strcmp (o->transport, "queue") != 0 &&
      strcmp (o->transport, "call") != 0)
    return option_error (error, "--transport \"%s\": expected queue or call", o->transport);
  o->call = g_strcmp0 (o->transport, "call") == 0;
  if (o->call && riv_cli_record_requested ())
    return option_error (error, "--transport call does not go with --record: its result "
                         "streams are not recorded");
  return TRUE;
}

/* The scenario file's thresholds (the run's, then each scenario's own) after
 * the command line's; a {scenario:NAME} tag must name one of its scenarios. */
static gboolean
load_options_take_scenario_thresholds (LoadOptions  *o,
                                       GError      **error)
{
  GPtrArray *scenarios = o->scenarios->scenarios;

  g_ptr_array_extend_and_steal (o->thresholds, g_steal_pointer (&o->scenarios->thresholds));
  for (guint i = 0; i < scenarios->len; i++)
    {
      RivLoadScenario *scenario = g_ptr_array_index (scenarios, i);

      while (scenario->thresholds->len > 0)
        g_ptr_array_add (o->thresholds, g_ptr_array_steal_index (scenario->thresholds, 0));
    }
  for (guint i = 0; i < o->thresholds->len; i++)
    {
      RivLoadThreshold *threshold = g_ptr_array_index (o->thresholds, i);
      const char *value;
      const char *key = riv_load_threshold_get_tag (threshold, &value);
      gboolean found = FALSE;

      if (g_strcmp0 (key, "scenario") != 0)
        continue;
      for (guint k = 0; k < scenarios->len && !found; k++)
        found = strcmp (((RivLoadScenario *) g_ptr_array_index (scenarios, k))->name, value) == 0;
      if (!found)
        return option_error (error, "threshold \"%s\": the file has no scenario \"%s\"",
                             riv_load_threshold_get_text (threshold), value);
    }
  return TRUE;
}

/* The most users the run has at once: --users, the stages' highest target,
 * the arrival rate's pool (0: the open loop). */
static guint
load_options_most_users (const LoadOptions *o)
{
  guint most = o->users > 0 ? (guint) o->users : 0;

  for (guint i = 0; o->stages != NULL && i < o->stages->len; i++)
    most = MAX (most, g_array_index (o->stages, RivLoadStage, i).target);
  if (o->arrivals != NULL)
    most = o->max_users > 0 ? (guint) o->max_users : LOAD_DEFAULT_MAX_USERS;
  return most;
}

/* The run's share (--shard), its shape (--stages: a ramp of virtual users)
 * and its pass/fail criteria (--threshold). */
static gboolean
load_options_parse_schedule (LoadOptions  *o,
                           GError      **error)
{
  if (o->shard_text != NULL && !parse_shard (o->shard_text, &o->shard, &o->n_shards, error))
    return FALSE;
  if (o->threads_text != NULL)
    return option_error (error, "--threads is retired: give --processes N (or --processes auto, "
                         "one a core) to spread the users over the cores");
  if (o->processes_text != NULL && strcmp (o->processes_text, "auto") == 0)
    o->processes = 0;
  else if (o->processes_text != NULL && !load_processes_parse (o->processes_text, &o->processes,
                                                               error))
    return FALSE;
  if (o->stages_text != NULL)
    {
      if (o->count_given || o->rate > 0)
        return option_error (error, "--stages ramps virtual users; it does not go with %s",
                             o->count_given ? "--count" : "--rate");
      if (!riv_load_parse_stages (o->stages_text, &o->stages, error))
        return FALSE;
      if (o->duration > 0)
        return option_error (error, "--stages sets the run's length; leave out --duration");
    }

  o->thresholds = g_ptr_array_new_with_free_func ((GDestroyNotify) riv_load_threshold_free);
  for (guint i = 0; o->threshold_texts != NULL && o->threshold_texts[i] != NULL; i++)
    {
      RivLoadThreshold *threshold = riv_load_threshold_parse (o->threshold_texts[i], error);

      if (threshold == NULL)
        return FALSE;
      g_ptr_array_add (o->thresholds, threshold);
    }
  if (o->processes > 0 &&
      !load_processes_check ((guint) o->processes, load_options_most_users (o), error))
    return FALSE;
  return o->scenarios == NULL || load_options_take_scenario_thresholds (o, error);
}

/* A number that is not finite: JSON has no infinity, and a value like 1e999
 * would go out as "Infinity", which is not JSON. */
static gboolean
is_non_finite (JsonNode *value)
{
  return json_node_get_value_type (value) == G_TYPE_DOUBLE &&
         !isfinite (json_node_get_double (value));
}

/* The server's URL and the --data values. */
static gboolean
load_options_parse_target (LoadOptions  *o,
                           GError      **error)
{
  g_autofree char *data = NULL;

  if (!riv_cli_target_parse (o->url, &o->normalized_url, &o->space_id, error))
    return FALSE;
  if (o->examples && o->data_text != NULL)
    return option_error (error, "--examples and --data: say one of them");
  if (o->data_text == NULL)
    return TRUE;
  data = g_locale_to_utf8 (o->data_text, -1, NULL, NULL, error);
  if (data == NULL)
    {
      const char *charset;

      g_get_charset (&charset);
      g_prefix_error (error, "--data is not valid %s: ", charset);
      return FALSE;
    }
  o->given = riv_json_parse (NULL, data, -1, 0, error);
  if (o->given == NULL)
    {
      g_prefix_error (error, "--data is not valid JSON: ");
      return FALSE;
    }
  if (!JSON_NODE_HOLDS_ARRAY (o->given) && !JSON_NODE_HOLDS_OBJECT (o->given))
    return option_error (error, "--data must be a JSON array (one value per input) or an "
                         "object of the endpoint's parameters by name");
  if (riv_json_find_value (o->given, is_non_finite))
    return option_error (error, "--data holds a number too large for a double (such as "
                         "1e999); JSON has no infinity");
  return TRUE;
}

/* Fills *o from the command line and checks it, in this order; FALSE: a usage error. */
static gboolean
load_options_parse (LoadOptions   *o,
                    int            argc,
                    char         **argv,
                    GError       **error)
{
  g_autoptr(GOptionContext) context = load_option_context_new (o);

  if (!g_option_context_parse (context, &argc, &argv, error))
    return FALSE;
  if (argc > 1)
    return option_error (error, "unexpected argument \"%s\"", argv[1]);
  return load_options_check_required (o, error) &&
         load_options_read_scenarios (o, error) &&
         load_options_check_workload (o, error) &&
         load_options_check_transport (o, error) &&
         load_options_parse_schedule (o, error) &&
         load_options_parse_target (o, error) &&
         check_writable ("--timeseries", o->timeseries_path, error) &&
         check_writable ("--report", o->report_path, error);
}

/* --output and --metrics, opened and bound before the run, so a path that
 * cannot be written or a port that is taken is a usage error. */
static gboolean
load_open_outputs (LoadRun            *run,
                   const LoadOptions  *o,
                   GError            **error)
{
  run->summary_out = stdout;
  if (o->output_path != NULL && strcmp (o->output_path, "-") == 0)
    {
      run->output = stdout;
      run->summary_out = stderr;
    }
  else if (o->output_path != NULL && (run->output = fopen (o->output_path, "w")) == NULL)
    return option_error (error, "--output: cannot write %s: %s", o->output_path,
                         g_strerror (errno));

  if (o->metrics_address == NULL)
    return TRUE;
  run->metrics = riv_metrics_new ();
  if (!riv_metrics_listen (run->metrics, o->metrics_address, error))
    {
      g_prefix_error (error, "--metrics: ");
      return FALSE;
    }
  if (!riv_metrics_is_loopback (run->metrics))
    g_printerr ("rivulet-cli load: warning: --metrics listens on %s, which is not a loopback "
                "address\n", o->metrics_address);
  g_printerr ("rivulet-cli load: metrics at %s\n", riv_metrics_get_url (run->metrics));
  load_feed_lint_metrics (run);
  return TRUE;
}

/* The first client, with the token, --auth, TLS and the recording; not yet connected. */
static gboolean
load_client_new (LoadRun            *run,
                 const LoadOptions  *o,
                 GError            **error)
{
  run->json = o->json;
  run->status_line = isatty (STDERR_FILENO) &&
                     !(run->output == stdout && run->summary_out == stderr);

  run->client = riv_cli_client_new (o->normalized_url, o->token, o->auth, error);
  if (run->client == NULL)
    return FALSE;
  riv_client_set_download_images (run->client, FALSE);
  /* --timeout bounds the connect and the fetches of the server's timings too. */
  if (o->timeout > 0)
    riv_client_set_request_timeout (run->client, o->timeout);
  run->summary_out = riv_cli_record_summary_out (run->summary_out);
  /* The live lint reads the queue protocol; /call/v2's streams are not tapped. */
  return riv_cli_record_attach (run->client,
                                (o->json || run->metrics != NULL || o->worker_lint) && !o->call,
                                error);
}

/* The endpoint the options name, as the server offers it. */
static RivEndpoint *
load_find_endpoint (LoadRun            *run,
                    const LoadOptions  *o,
                    const char         *name,
                    GError            **error)
{
  RivEndpoint *endpoint = riv_config_find_endpoint (run->config, name);

  if (endpoint == NULL)
    {
      option_error (error, "the server has no endpoint \"%s\" (see rivulet-cli inspect)",
                    name);
      return NULL;
    }
  /* A render endpoint (gr.render) is hidden from the API on Gradio 4 and 5,
   * yet the app's page calls it as any other. */
  if (!endpoint->is_public && !endpoint->renders)
    {
      option_error (error, "endpoint \"%s\" is private (api_visibility \"private\"): the app "
                    "keeps it for its own page and does not offer it to API clients", name);
      return NULL;
    }
  if (o->call && !call_route_offered (run->config, endpoint, error))
    {
      g_prefix_error (error, "--transport call: ");
      return NULL;
    }
  return endpoint;
}

/* The open loop (--count, --rate), the closed loop (--users, --stages), the
 * arrival rate or the breakpoint ramp, as the options ask. */
static void
load_engine_set_workload (LoadRun     *run,
                          LoadOptions *o)
{
  run->until_break = o->until_break;
  if (o->until_break && o->stages == NULL && o->users > 0)
    {
      /* The ramp built for the user: 0 to N users over the duration. */
      RivLoadStage ramp = { o->duration, (guint) o->users };

      o->stages = g_array_new (FALSE, FALSE, sizeof (RivLoadStage));
      g_array_append_val (o->stages, ramp);
      o->users = 0;
      o->duration = 0;
    }
  if (o->until_break)
    riv_load_run_set_until_break (run->engine, run->thresholds);
  if (o->arrivals != NULL)
    riv_load_run_set_arrivals (run->engine, g_steal_pointer (&o->arrivals),
                               o->max_users > 0 ? (guint) o->max_users : LOAD_DEFAULT_MAX_USERS);
  else if (o->until_break && o->stages == NULL)
    riv_load_run_set_rate_ramp (run->engine, o->rate, o->duration);
  else if (o->users > 0 || o->stages != NULL)
    {
      riv_load_run_set_users (run->engine, (guint) o->users, o->think, o->duration,
                              (guint) o->iterations);
      riv_load_run_set_stages (run->engine, g_steal_pointer (&o->stages));
    }
  else
    riv_load_run_set_open_loop (run->engine, (guint) o->count, o->rate);
  riv_load_run_set_timeout (run->engine, o->timeout > 0 ? o->timeout : 600);
  riv_load_run_set_stall (run->engine, o->stall);
}

/* The engine's signals, and the server's own timings when it offers them
 * (GRADIO_PROFILING=1). */
static void
load_engine_watch (LoadRun *run)
{
  g_autoptr(JsonNode) probe = load_fetch_traces (run->client, 1, NULL);

  run->server_traces = probe != NULL;
  riv_load_run_set_track_events (run->engine, run->server_traces);
  /* Each record as its job is counted, unless the server's timings are to
   * be joined into them after the run: then they are kept until then. */
  run->streaming = run->output != NULL && !run->server_traces;
  riv_load_run_set_keep_records (run->engine, run->output != NULL && !run->streaming);
  if (run->streaming)
    riv_load_run_set_record_func (run->engine, load_record_line, run);

  if (run->metrics != NULL)
    {
      riv_load_run_set_metrics (run->engine, run->metrics);
      g_signal_connect (run->engine, "sample", G_CALLBACK (metrics_sample_cb), run);
    }
  g_signal_connect (run->engine, "finished", G_CALLBACK (finished_cb), run);
  g_signal_connect (run->engine, "user-started", G_CALLBACK (user_started_cb), run);
  run->loop = g_main_loop_new (NULL, FALSE);
}

/* --scenarios: each scenario's endpoint found and its inputs built (a bad
 * one is an error naming the scenario and the key), and the engine made
 * with them. */
static gboolean
load_engine_add_scenarios (LoadRun      *run,
                           LoadOptions  *o,
                           GError      **error)
{
  GPtrArray *scenarios = o->scenarios->scenarios;
  RivThink default_think = { RIV_THINK_CONSTANT, o->think, 0 };

  /* --think given here wins over the file's. */
  if (o->scenarios->has_think && !(o->think > 0))
    default_think = o->scenarios->think;
  for (guint i = 0; i < scenarios->len; i++)
    {
      RivLoadScenario *scenario = g_ptr_array_index (scenarios, i);
      g_autofree char *what = g_strdup_printf ("scenario \"%s\": \"data\"", scenario->name);
      g_autofree char *key = NULL;
      g_autoptr(GPtrArray) templates = NULL;
      RivEndpoint *endpoint = load_find_endpoint (run, o, scenario->endpoint, error);

      if (endpoint == NULL)
        {
          g_prefix_error (error, "scenario \"%s\": \"endpoint\": ", scenario->name);
          return FALSE;
        }
      if (scenario->examples)
        {
          g_autofree char *examples_what = g_strdup_printf ("scenario \"%s\": \"examples\"",
                                                            scenario->name);

          templates = load_endpoint_examples (endpoint, examples_what, error);
          if (templates == NULL)
            return FALSE;
        }
      else
        {
          JsonNode *template = load_build_template (endpoint, scenario->data, what, error);

          if (template == NULL)
            return FALSE;
          templates = g_ptr_array_new_with_free_func ((GDestroyNotify) json_node_unref);
          g_ptr_array_add (templates, template);
        }
      if (run->engine == NULL)
        run->engine = riv_load_run_new (run->client, scenario->endpoint,
                                        g_ptr_array_index (templates, 0));
      key = riv_endpoint_dup_display_name (endpoint);
      riv_load_run_add_scenario (run->engine, scenario, key, templates,
                                 scenario->has_think ? &scenario->think : &default_think);
    }
  riv_load_run_set_seed (run->engine, o->seed);
  return TRUE;
}

/* Each tagged threshold names jobs of the run: {scenario:NAME} one of its
 * scenarios (checked with the file), {endpoint:NAME} an endpoint one of
 * them sends to. Without scenarios the run is one scenario, "default" (as
 * k6 names it), sending to --endpoint. */
static gboolean
load_check_tags (LoadRun  *run,
                 GError  **error)
{
  for (guint i = 0; i < run->thresholds->len; i++)
    {
      RivLoadThreshold *threshold = g_ptr_array_index (run->thresholds, i);
      const char *value;
      const char *key = riv_load_threshold_get_tag (threshold, &value);

      if (key != NULL && load_threshold_stats (run, threshold) == NULL)
        return option_error (error, "threshold \"%s\": the run has no %s \"%s\"",
                             riv_load_threshold_get_text (threshold), key, value);
    }
  return TRUE;
}

/* The engine for the connected client, ready to start; FALSE: a usage error. */
static gboolean
load_engine_new (LoadRun      *run,
                 LoadOptions  *o,
                 GError      **error)
{
  g_autoptr(GAsyncResult) result = NULL;
  g_autoptr(JsonNode) template = NULL;
  RivEndpoint *endpoint;

  riv_client_set_call_transport (run->client, o->call);
  if (o->scenarios != NULL)
    {
      if (!load_engine_add_scenarios (run, o, error))
        return FALSE;
    }
  else
    {
      endpoint = load_find_endpoint (run, o, o->endpoint_name, error);
      if (endpoint == NULL)
        return FALSE;
      template = load_build_template (endpoint, o->given, "--data", error);
      if (template == NULL)
        return FALSE;
      run->endpoint_key = riv_endpoint_dup_display_name (endpoint);
      run->engine = riv_load_run_new (run->client, o->endpoint_name, template);
      if (o->examples)
        {
          g_autoptr(GPtrArray) examples = load_endpoint_examples (endpoint, "--examples", error);

          if (examples == NULL)
            return FALSE;
          riv_load_run_set_templates (run->engine, examples);
        }
    }
  if (!load_check_tags (run, error))
    return FALSE;
  riv_load_run_set_shard (run->engine, o->shard, o->n_shards);
  load_engine_set_workload (run, o);
  riv_load_run_set_keep_records (run->engine, run->output != NULL);
  riv_load_run_set_upload_files (run->engine, TRUE);

  /* Every file the jobs will upload, checked before the first job. */
  riv_load_run_check_files_async (run->engine, NULL, connect_done_cb, &result);
  wait_for_result (&result);
  if (!riv_load_run_check_files_finish (run->engine, result, &run->local_files, error))
    {
      g_prefix_error (error, o->scenarios != NULL ? "--scenarios: " : "--data: ");
      return FALSE;
    }
  load_engine_watch (run);
  return TRUE;
}

/* Runs the engine to its end, an interrupt or the timeout; FALSE: a usage
 * error that the first submit (which checks the inputs) or the run found. */
static gboolean
load_run_engine (LoadRun  *run,
                 GError  **error)
{
  if (run->processes != NULL && !load_processes_run (run->processes, error))
    return FALSE;
  if (run->processes != NULL)
    return metrics_linger (run), TRUE;
  if (!riv_load_run_start (run->engine, error))
    return FALSE;

  run->sigint_id = g_unix_signal_add (SIGINT, interrupt_cb, run);
  run->sigterm_id = g_unix_signal_add (SIGTERM, interrupt_cb, run);
  load_status_start (run);

  if (!riv_load_run_is_finished (run->engine))
    g_main_loop_run (run->loop);
  load_status_clear (run);
  metrics_linger (run);

  if (riv_load_run_get_usage_error (run->engine) != NULL)
    {
      riv_client_close (run->client);
      return option_error (error, "%s", riv_load_run_get_usage_error (run->engine));
    }
  return TRUE;
}

/* Joins the server's timings to the jobs. Gradio files an event's trace just
 * after its completion went out: the last jobs' may need a moment. */
static void
load_join_server_traces (LoadRun *run)
{
  if (!run->server_traces)
    return;
  for (guint attempt = 0; attempt < TRACE_ATTEMPTS; attempt++)
    {
      g_autoptr(JsonNode) traces = NULL;
      g_autoptr(GError) error = NULL;
      gboolean waited = FALSE;

      if (attempt > 0)
        {
          g_timeout_add_once (TRACE_RETRY_MS, flag_cb, &waited);
          while (!waited)
            g_main_context_iteration (NULL, TRUE);
        }
      traces = load_fetch_traces (run->client, 0, &error);
      if (traces == NULL)
        {
          if (error != NULL)
            g_printerr ("rivulet-cli load: the server's timings: %s\n",
                        riv_cli_safe (error->message));
          break;
        }
      run->server_joined += riv_load_run_add_server_traces (run->engine, traces);
      if (riv_load_run_get_n_untimed (run->engine) == 0)
        break;
    }
}

/* 0 when the run did what was asked: every job completed (or, with
 * --threshold, every threshold held; with --until-break, the ramp ran out
 * before anything broke). */
static int
load_exit_status (LoadRun  *run,
                  gboolean  thresholds_ok)
{
  LoadCounts c;
  RivLoadSummary s;
  int status;

  load_get_counts (run, &c);
  riv_load_stats_summarize (riv_load_run_get_stats (run->engine), &s);
  if (run->until_break)
    status = c.stopped ? 1 : 0;
  else if (run->thresholds->len > 0)
    status = thresholds_ok ? 0 : 1;
  else
    status = s.completed == c.submitted && c.submitted > 0 && !c.stopped ? 0 : 1;
  if (!riv_cli_record_ok () || c.worker_failed)
    status = 1;
  return status;
}

/* --output, --timeseries and --report; FALSE (each failure said) when one
 * could not be written. */
static gboolean
load_write_outputs (LoadRun           *run,
                    const LoadOptions *o)
{
  g_autoptr(GError) error = NULL;
  gboolean ok = TRUE;

  if (run->streaming && g_atomic_int_get (&run->output_errno) != 0)
    {
      int code = g_atomic_int_get (&run->output_errno);

      g_set_error (&error, G_FILE_ERROR, g_file_error_from_errno (code),
                   "cannot write the job records: %s", g_strerror (code));
    }
  if (error == NULL && run->output != NULL &&
      !write_records (run->streaming ? NULL : riv_load_run_get_records (run->engine),
                      run->output, &error))
    {
      g_printerr ("rivulet-cli load: %s\n", error->message);
      g_clear_error (&error);
      ok = FALSE;
    }
  if (o->timeseries_path != NULL)
    {
      g_autofree char *csv = load_timeseries_csv (run);

      if (!load_write_file (o->timeseries_path, csv, strlen (csv), &error))
        {
          g_printerr ("rivulet-cli load: --timeseries: %s\n", error->message);
          g_clear_error (&error);
          ok = FALSE;
        }
    }
  if (o->report_path != NULL && !load_write_report (run, o->report_path, &error))
    {
      g_printerr ("rivulet-cli load: --report: %s\n", error->message);
      ok = FALSE;
    }
  return ok;
}

int
riv_cli_load (int    argc,
              char **argv)
{
  g_auto(LoadOptions) options = LOAD_OPTIONS_INIT;
  g_auto(LoadRun) run = { 0 };
  g_autoptr(GError) error = NULL;
  g_auto(GStrv) args = load_processes_copy_args (argc, argv);
  gboolean thresholds_ok;
  int status;

  if (!load_options_parse (&options, argc, argv, &error))
    return riv_cli_usage_error ("load", "%s", error->message);
  if (options.space_id != NULL &&
      (options.normalized_url = riv_cli_space_resolve (options.space_id, &error)) == NULL)
    {
      g_printerr ("rivulet-cli load: %s\n", riv_cli_safe (error->message));
      return 1;
    }
  if (options.processes == 0)
    options.processes = (gint) load_processes_auto (load_options_most_users (&options),
                                                    riv_url_is_loopback (options.normalized_url));
  run.thresholds = g_steal_pointer (&options.thresholds);
  if (!load_open_outputs (&run, &options, &error) ||
      !load_client_new (&run, &options, &error))
    return riv_cli_usage_error ("load", "%s", error->message);

  if (!riv_cli_client_connect (run.client, &error))
    {
      g_printerr ("rivulet-cli load: %s\n", riv_cli_safe (error->message));
      return 1;
    }
  run.config = riv_config_ref (riv_client_get_config (run.client));
  if (options.worker)
    g_ptr_array_set_size (run.thresholds, 0);   /* the parent judges them */
  if (load_engine_new (&run, &options, &error) && options.processes > 1)
    run.processes = load_processes_new (&run, &(LoadProcessesSpec) {
      (guint) options.processes, args, options.shard, options.n_shards, options.seed,
      options.scenarios != NULL, options.until_break });
  if (error == NULL && options.worker)
    load_worker_watch (&run, options.worker_brief);
  if (error != NULL || !load_run_engine (&run, &error))
    {
      /* The recording ends (in lint mode, its findings print) before the error. */
      riv_cli_record_finish ();
      if (options.worker)
        return load_worker_end (&run, error);
      return riv_cli_usage_error ("load", "%s", error->message);
    }

  load_join_server_traces (&run);
  riv_client_close (run.client);
  riv_cli_record_finish ();
  if (options.worker && load_write_outputs (&run, &options))
    return load_worker_end (&run, NULL);

  thresholds_ok = load_print_summary (&run, run.summary_out);
  status = load_exit_status (&run, thresholds_ok);
  if (!load_write_outputs (&run, &options))
    status = 1;
  return status;
}
