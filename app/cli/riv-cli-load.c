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

#include "riv-cli.h"
#include "riv-cli-record.h"
#include "riv-cli-load.h"
#include "riv-job-record.h"
#include "riv-util.h"

#define SUBMIT_CHUNK       200    /* jobs per main-loop turn when there is no --rate */

static GQuark
sequence_quark (void)
{
  static GQuark quark;

  if (G_UNLIKELY (quark == 0))
    quark = g_quark_from_static_string ("riv-load-sequence");
  return quark;
}

static GQuark
user_quark (void)
{
  static GQuark quark;

  if (G_UNLIKELY (quark == 0))
    quark = g_quark_from_static_string ("riv-load-user");
  return quark;
}

int
load_usage_error (const char *format,
                  ...)
{
  g_autofree char *message = NULL;
  va_list args;

  va_start (args, format);
  message = g_strdup_vprintf (format, args);
  va_end (args);

  g_printerr ("rivulet-cli load: %s\nTry \"rivulet-cli load --help\".\n", message);
  return 2;
}

double
load_elapsed (LoadRun *run)
{
  return run->start > 0 ? riv_now () - run->start : 0;
}

guint64
load_global_index (LoadRun *run,
                   guint64  sequence)
{
  return (sequence - 1) * run->n_shards + run->shard + 1;
}

void
load_maybe_done (LoadRun *run)
{
  if (run->stopped || (run->submitting_done && run->finished == run->submitted &&
                       run->active_users == 0))
    {
      if (run->end <= 0)
        run->end = riv_now ();
      g_main_loop_quit (run->loop);
    }
}

RivJob *
load_submit (LoadRun     *run,
             RivClient   *client,
             guint        user,
             GError     **error)
{
  guint64 sequence = run->submitted + 1;
  g_autoptr(JsonNode) data = riv_json_substitute_index_user (run->template,
                                                             load_global_index (run, sequence),
                                                             user);
  RivJob *job;

  job = riv_client_submit (client, run->endpoint_name, data, error);
  if (job == NULL)
    return NULL;

  g_object_set_qdata (G_OBJECT (job), sequence_quark (), GSIZE_TO_POINTER ((gsize) sequence));
  g_object_set_qdata (G_OBJECT (job), user_quark (), GUINT_TO_POINTER (user));
  if (run->start <= 0)
    {
      run->start = riv_job_get_submitted_at (job);
      run->start_wall = g_get_real_time () / (double) G_USEC_PER_SEC - (riv_now () - run->start);
    }
  run->submitted++;
  return job;
}

/* Counts the job, keeps its statistics and its record. lost_error: the run
 * stopped before the job ended, it counts as lost with that text. */
static void
account_job (LoadRun    *run,
             RivJob     *job,
             const char *lost_error)
{
  guint64 sequence = GPOINTER_TO_SIZE (g_object_get_qdata (G_OBJECT (job), sequence_quark ()));
  guint user = GPOINTER_TO_UINT (g_object_get_qdata (G_OBJECT (job), user_quark ()));
  RivJobStatus status = lost_error != NULL ? RIV_JOB_STATUS_LOST : riv_job_get_status (job);
  const char *error = lost_error != NULL ? lost_error : riv_job_get_error (job);
  double latency = lost_error != NULL ? -1 : riv_job_get_total_time (job);

  g_assert (sequence > 0);

  switch (status)
    {
    case RIV_JOB_STATUS_COMPLETED:
      run->completed++;
      g_array_append_val (run->window, latency);
      break;
    case RIV_JOB_STATUS_FAILED:
      run->failed++;
      break;
    case RIV_JOB_STATUS_CANCELLED:
      run->cancelled++;
      break;
    case RIV_JOB_STATUS_LOST:
    case RIV_JOB_STATUS_PENDING:
    case RIV_JOB_STATUS_JOINING:
    case RIV_JOB_STATUS_QUEUED:
    case RIV_JOB_STATUS_RUNNING:
    case RIV_JOB_STATUS_STREAMING:
    default:
      status = RIV_JOB_STATUS_LOST;
      run->lost++;
      break;
    }

  riv_load_stats_add (run->stats,
                      run->start_wall + (riv_job_get_submitted_at (job) - run->start),
                      riv_job_get_wait_time (job),
                      lost_error != NULL ? -1 : riv_job_get_run_time (job),
                      latency, status, riv_job_get_n_updates (job), user,
                      riv_job_get_batch_id (job) != NULL
                        ? (guint) MAX (riv_job_get_batch_size (job), 1) : 0,
                      error);

  for (guint i = 0; i < riv_job_get_n_logs (job); i++)
    riv_load_stats_count_log (run->stats, riv_job_get_log (job, i)->level);

  if (run->records != NULL)
    {
      g_autoptr(JsonNode) record = riv_job_record_new (job, load_global_index (run, sequence), user);
      guint slot = sequence - 1;

      if (lost_error != NULL)
        {
          JsonObject *object = json_node_get_object (record);

          json_object_set_string_member (object, "status", riv_job_status_to_string (status));
          json_object_set_string_member (object, "error", lost_error);
        }
      if (slot >= run->records->len)
        g_ptr_array_set_size (run->records, slot + 1);
      g_free (g_ptr_array_index (run->records, slot));
      g_ptr_array_index (run->records, slot) = riv_json_to_string (record, NULL);
    }
}

void
load_job_finished (LoadRun *run,
                   RivJob  *job)
{
  run->finished++;
  account_job (run, job, NULL);
}

static void
open_loop_finished_cb (RivClient *client,
                       RivJob    *job,
                       gpointer   user_data)
{
  LoadRun *run = user_data;

  load_job_finished (run, job);
  load_maybe_done (run);
}

static void
account_lost (LoadRun *run,
              RivJob  *job)
{
  account_job (run, job, run->interrupted ? "interrupted before the job ended"
                                          : "timed out before the job ended");
}

/* Jobs still in flight when the run stopped count as lost. */
static void
account_unfinished (LoadRun *run)
{
  GListModel *jobs = riv_client_get_jobs (run->client);

  for (guint i = 0; i < g_list_model_get_n_items (jobs); i++)
    {
      g_autoptr(RivJob) job = g_list_model_get_item (jobs, i);

      if (!riv_job_is_finished (job) &&
          g_object_get_qdata (G_OBJECT (job), sequence_quark ()) != NULL)
        account_lost (run, job);
    }
  load_users_foreach_job (run, account_lost);
}

static gboolean
submit_tick_cb (gpointer user_data)
{
  LoadRun *run = user_data;
  guint64 target;

  if (run->rate > 0)
    {
      double elapsed = load_elapsed (run);

      target = MIN (run->count, (guint64) floor (elapsed * run->rate) + 1);
    }
  else
    target = MIN (run->count, run->submitted + SUBMIT_CHUNK);

  while (run->submitted < target)
    {
      g_autoptr(GError) error = NULL;
      g_autoptr(RivJob) job = load_submit (run, run->client, 0, &error);

      if (job == NULL)
        {
          /* The first job was validated before the loop started. */
          g_printerr ("rivulet-cli load: %s\n", error->message);
          run->count = run->submitted;
          break;
        }
    }

  if (run->submitted < run->count)
    return G_SOURCE_CONTINUE;

  g_clear_pointer (&run->submit_source, g_source_unref);
  run->submitting_done = TRUE;
  load_maybe_done (run);
  return G_SOURCE_REMOVE;
}

static gboolean
stop_cb (gpointer user_data)
{
  LoadRun *run = user_data;

  run->stopped = TRUE;
  load_maybe_done (run);
  return G_SOURCE_CONTINUE;
}

static gboolean
timeout_cb (gpointer user_data)
{
  LoadRun *run = user_data;

  g_clear_pointer (&run->timeout_source, g_source_unref);
  stop_cb (run);
  return G_SOURCE_REMOVE;
}

static gboolean
interrupt_cb (gpointer user_data)
{
  LoadRun *run = user_data;

  run->interrupted = TRUE;
  return stop_cb (run);
}

/* Finished open-loop jobs are only counted: dropping them keeps memory flat. */
static gboolean
trim_cb (gpointer user_data)
{
  LoadRun *run = user_data;

  riv_client_clear_finished (run->client);
  return G_SOURCE_CONTINUE;
}

static GSource *
add_timeout (double       seconds,
             GSourceFunc  func,
             gpointer     data)
{
  GSource *source = g_timeout_source_new ((guint) (seconds * 1000));

  g_source_set_callback (source, func, data, NULL);
  g_source_attach (source, NULL);
  return source;
}

static void
destroy_source (GSource **source)
{
  if (*source != NULL)
    {
      g_source_destroy (*source);
      g_clear_pointer (source, g_source_unref);
    }
}

static void
connect_done_cb (GObject      *object,
                 GAsyncResult *result,
                 gpointer      user_data)
{
  GAsyncResult **slot = user_data;

  *slot = g_object_ref (result);
}

/* One value per input: what --data gives, then the inputs' defaults. */
static JsonNode *
build_template (RivEndpoint  *endpoint,
                JsonNode     *given,
                GError      **error)
{
  JsonArray *given_array = given ? json_node_get_array (given) : NULL;
  guint n_given = given_array ? json_array_get_length (given_array) : 0;
  guint n_inputs = endpoint->inputs->len;
  JsonArray *array;
  JsonNode *node;

  if (n_given > n_inputs)
    {
      g_set_error (error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
                   "--data has %u values but the endpoint takes %u input(s)", n_given, n_inputs);
      return NULL;
    }

  array = json_array_sized_new (n_inputs);
  for (guint i = 0; i < n_inputs; i++)
    {
      RivComponent *component = g_ptr_array_index (endpoint->inputs, i);

      if (i < n_given)
        json_array_add_element (array, json_node_copy (json_array_get_element (given_array, i)));
      else if (component != NULL && component->value != NULL && !component->is_state)
        json_array_add_element (array, json_node_copy (component->value));
      else
        json_array_add_null_element (array);
    }

  node = json_node_new (JSON_NODE_ARRAY);
  json_node_take_array (node, array);
  return node;
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

/* This shard's share of n things numbered 1..n: those with (k - 1) % N == I. */
static guint
shard_share (LoadRun *run,
             guint    n)
{
  return n > run->shard ? (n - run->shard - 1) / run->n_shards + 1 : 0;
}

static void
load_run_clear (LoadRun *run)
{
  if (run->client != NULL && run->finished_handler != 0 &&
      g_signal_handler_is_connected (run->client, run->finished_handler))
    g_signal_handler_disconnect (run->client, run->finished_handler);
  load_users_free (run);
  if (run->client != NULL)
    riv_client_close (run->client);
  g_clear_object (&run->client);
  destroy_source (&run->submit_source);
  destroy_source (&run->timeout_source);
  destroy_source (&run->trim_source);
  destroy_source (&run->tick_source);
  destroy_source (&run->status_source);
  g_clear_handle_id (&run->sigint_id, g_source_remove);
  g_clear_handle_id (&run->sigterm_id, g_source_remove);
  g_clear_pointer (&run->loop, g_main_loop_unref);
  g_clear_pointer (&run->template, json_node_unref);
  g_clear_pointer (&run->config, riv_config_unref);
  g_clear_pointer (&run->stats, riv_load_stats_free);
  g_clear_pointer (&run->records, g_ptr_array_unref);
  g_clear_pointer (&run->window, g_array_unref);
  g_clear_pointer (&run->stages, g_array_unref);
  g_clear_pointer (&run->thresholds, g_ptr_array_unref);
  g_clear_pointer (&run->url, g_free);
  g_clear_pointer (&run->token, g_free);
  g_clear_pointer (&run->endpoint_name, g_free);
  g_clear_pointer (&run->usage_failed, g_free);
}

static gboolean
write_records (LoadRun     *run,
               FILE        *out,
               GError     **error)
{
  for (guint i = 0; i < run->records->len; i++)
    {
      const char *line = g_ptr_array_index (run->records, i);

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

static void
close_output (FILE *output)
{
  /* Every way out after the client exists passes here: end the recording too. */
  riv_cli_record_finish ();
  if (output != NULL && output != stdout)
    fclose (output);
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

int
riv_cli_load (int    argc,
              char **argv)
{
  g_autofree char *url = NULL;
  g_autofree char *endpoint_name = NULL;
  g_autofree char *data_text = NULL;
  g_autofree char *token = NULL;
  g_autofree char *auth = NULL;
  g_autofree char *output_path = NULL;
  g_autofree char *timeseries_path = NULL;
  g_autofree char *report_path = NULL;
  g_autofree char *stages_text = NULL;
  g_autofree char *shard_text = NULL;
  g_auto(GStrv) threshold_texts = NULL;
  gint count = -1;
  gint users = 0;
  gint iterations = 0;
  double rate = 0;
  double timeout = -1;
  double think = 0;
  double duration = 0;
  gboolean json = FALSE;
  const GOptionEntry entries[] = {
    { "url", 'u', 0, G_OPTION_ARG_STRING, &url, "Server base URL (required)", "URL" },
    { "endpoint", 'e', 0, G_OPTION_ARG_STRING, &endpoint_name,
      "Endpoint api_name (or fn_index) to call (required)", "NAME" },
    { "data", 'd', 0, G_OPTION_ARG_STRING, &data_text,
      "Input values as a JSON array; missing ones take the inputs' defaults; in strings "
      "\"{i}\" becomes the job number (1…) and \"{u}\" the user number", "JSON_ARRAY" },
    { "count", 'n', 0, G_OPTION_ARG_INT, &count,
      "Open loop: submit N jobs in one session (default 1)", "N" },
    { "rate", 'r', 0, G_OPTION_ARG_DOUBLE, &rate,
      "Open loop: submit at most this many jobs per second (default: all at once)", "JOBS_PER_S" },
    { "users", 'U', 0, G_OPTION_ARG_INT, &users,
      "Closed loop: N virtual users, each with its own session: submit, wait for the end, "
      "think, repeat", "N" },
    { "think", 0, 0, G_OPTION_ARG_DOUBLE, &think,
      "Users: pause between a job's end and the next submit (default 0)", "S" },
    { "duration", 0, 0, G_OPTION_ARG_DOUBLE, &duration,
      "Users: submit for this many seconds", "S" },
    { "iterations", 0, 0, G_OPTION_ARG_INT, &iterations,
      "Users: jobs per user (default 1 without --duration or --stages)", "K" },
    { "stages", 0, 0, G_OPTION_ARG_STRING, &stages_text,
      "Users: ramp the number of users, k6 style: DURATION:TARGET,… e.g. "
      "\"10s:50,30s:50,10s:0\" (linear ramps)", "STAGES" },
    { "shard", 0, 0, G_OPTION_ARG_STRING, &shard_text,
      "Run shard I of N (0 <= I < N): its share of the users or jobs and of the job "
      "numbers; merge the shards' --output with \"rivulet-cli report merge\"", "I/N" },
    { "timeout", 't', 0, G_OPTION_ARG_DOUBLE, &timeout,
      "Give up after this many seconds (after the schedule with --duration or --stages); "
      "unfinished jobs count as lost (default 600)", "S" },
    { "threshold", 0, 0, G_OPTION_ARG_STRING_ARRAY, &threshold_texts,
      "Pass/fail criterion, k6 style, repeatable: p95<2s, p99<=500ms, failed==0, lost==0, "
      "throughput>=100, error_rate<0.01; exit 0 only if every one holds", "EXPR" },
    { "json", 0, 0, G_OPTION_ARG_NONE, &json, "Print the summary as one JSON object", NULL },
    { "output", 'o', 0, G_OPTION_ARG_FILENAME, &output_path,
      "Write one JSON record per job (JSON Lines, in job order) to FILE when the run ends; "
      "\"-\" is standard output (the summary then goes to standard error)", "FILE" },
    { "timeseries", 0, 0, G_OPTION_ARG_FILENAME, &timeseries_path,
      "Write one CSV line per second of the run to FILE", "FILE" },
    { "report", 0, 0, G_OPTION_ARG_FILENAME, &report_path,
      "Write a self-contained HTML report (charts, histograms, errors) to FILE", "FILE" },
    { "token", 0, 0, G_OPTION_ARG_STRING, &token, "Bearer token for the server", "TOKEN" },
    { "auth", 0, 0, G_OPTION_ARG_STRING, &auth,
      "Log in to a Gradio app launched with auth= (default: $RIVULET_AUTH)", "USER:PASSWORD" },
    { NULL }
  };
  g_autoptr(GOptionContext) context = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonNode) given = NULL;
  g_autoptr(GAsyncResult) result = NULL;
  g_autofree char *normalized = NULL;
  LoadRun run = { 0 };
  RivEndpoint *endpoint;
  FILE *output = NULL;
  FILE *summary_out = stdout;
  gboolean thresholds_ok;
  gboolean count_given;
  int status;

  context = g_option_context_new ("— load-test one endpoint and summarise");
  g_option_context_set_summary (context,
    "Connects to a Gradio server (or rivulet-cli serve) and sends jobs to one\n"
    "endpoint: open loop (--count jobs, at --rate per second, in one session) or\n"
    "closed loop (--users, each with its own session, for --duration, --iterations\n"
    "or --stages). Prints how many jobs completed, failed, were cancelled or lost,\n"
    "with latency percentiles. Exits 0 only if every job completed (with\n"
    "--threshold: if every threshold held), 1 otherwise, 2 for bad arguments.");
  g_option_context_add_main_entries (context, entries, NULL);
  g_option_context_add_main_entries (context, riv_cli_record_get_entries (), NULL);
  if (!g_option_context_parse (context, &argc, &argv, &error))
    return load_usage_error ("%s", error->message);
  if (argc > 1)
    return load_usage_error ("unexpected argument \"%s\"", argv[1]);
  if (url == NULL)
    return load_usage_error ("--url is required");
  if (endpoint_name == NULL || *endpoint_name == '\0')
    return load_usage_error ("--endpoint is required");
  count_given = count != -1;
  if (users > 0 && count_given)
    return load_usage_error ("--users and --count do not go together: use --count N for a "
                             "burst of N jobs in one session, or --users N with --iterations K "
                             "for N users submitting K jobs each");
  if (users > 0 && rate > 0)
    return load_usage_error ("--users and --rate do not go together: --rate is the open loop "
                             "(one session), --users the closed loop (use --think to pace users)");
  if (users < 0)
    return load_usage_error ("--users must be at least 1");
  if (count == -1)
    count = 1;
  if (count < 1)
    return load_usage_error ("--count must be at least 1");
  if (rate < 0 || isnan (rate))
    return load_usage_error ("--rate must be positive");
  if (!(think >= 0) || !(duration >= 0) || iterations < 0)
    return load_usage_error ("--think, --duration and --iterations cannot be negative");
  if (timeout != -1 && !(timeout > 0))
    return load_usage_error ("--timeout must be positive");
  if (users == 0 && stages_text == NULL && (think > 0 || duration > 0 || iterations > 0))
    return load_usage_error ("--think, --duration and --iterations are for virtual users: "
                             "add --users N (or --stages)");

  run.n_shards = 1;
  if (shard_text != NULL && !parse_shard (shard_text, &run.shard, &run.n_shards, &error))
    return load_usage_error ("%s", error->message);
  if (stages_text != NULL)
    {
      if (count_given || rate > 0)
        return load_usage_error ("--stages ramps virtual users; it does not go with %s",
                                 count_given ? "--count" : "--rate");
      if (!load_parse_stages (stages_text, &run.stages, &error))
        return load_usage_error ("%s", error->message);
      if (duration > 0)
        return load_usage_error ("--stages sets the run's length; leave out --duration");
    }

  run.thresholds = g_ptr_array_new_with_free_func ((GDestroyNotify) riv_load_threshold_free);
  for (guint i = 0; threshold_texts != NULL && threshold_texts[i] != NULL; i++)
    {
      RivLoadThreshold *threshold = riv_load_threshold_parse (threshold_texts[i], &error);

      if (threshold == NULL)
        {
          load_run_clear (&run);
          return load_usage_error ("%s", error->message);
        }
      g_ptr_array_add (run.thresholds, threshold);
    }

  normalized = riv_client_normalize_url (url, &error);
  if (normalized == NULL)
    {
      load_run_clear (&run);
      return load_usage_error ("%s", error->message);
    }

  if (data_text != NULL)
    {
      given = json_from_string (data_text, &error);
      if (given == NULL || !JSON_NODE_HOLDS_ARRAY (given))
        {
          load_run_clear (&run);
          if (given == NULL)
            return load_usage_error ("--data is not valid JSON: %s", error->message);
          return load_usage_error ("--data must be a JSON array (one value per input)");
        }
    }

  if (!check_writable ("--timeseries", timeseries_path, &error) ||
      !check_writable ("--report", report_path, &error))
    {
      load_run_clear (&run);
      return load_usage_error ("%s", error->message);
    }

  /* Opened before the run, so a path that cannot be written is a usage error. */
  if (output_path != NULL && strcmp (output_path, "-") == 0)
    {
      output = stdout;
      summary_out = stderr;
    }
  else if (output_path != NULL && (output = fopen (output_path, "w")) == NULL)
    {
      load_run_clear (&run);
      return load_usage_error ("--output: cannot write %s: %s", output_path, g_strerror (errno));
    }

  run.url = g_steal_pointer (&normalized);
  run.token = g_steal_pointer (&token);
  run.endpoint_name = g_steal_pointer (&endpoint_name);
  run.json = json;
  run.rate = run.n_shards > 1 ? rate / run.n_shards : rate;
  run.think = think;
  run.duration = duration;
  run.iterations = (guint) iterations;
  if (users > 0 || run.stages != NULL)
    {
      run.users = (guint) users;
      if (run.iterations == 0 && run.duration == 0 && run.stages == NULL)
        run.iterations = 1;
    }
  else
    run.count = shard_share (&run, (guint) count);
  run.timeout = timeout > 0 ? timeout : 600;
  run.status_line = isatty (STDERR_FILENO) && !(output == stdout && summary_out == stderr);

  /* Two descriptors per virtual user (its stream and its joins). */
  riv_raise_fd_limit ();

  run.client = riv_client_new (run.url);
  riv_client_set_download_images (run.client, FALSE);
  if (run.token != NULL)
    riv_client_set_token (run.client, run.token);
  if (auth == NULL)
    auth = g_strdup (g_getenv ("RIVULET_AUTH"));
  if (auth != NULL && !riv_client_set_auth_string (run.client, auth, &error))
    {
      close_output (output);
      load_run_clear (&run);
      return load_usage_error ("--auth: %s", error->message);
    }
  summary_out = riv_cli_record_summary_out (summary_out);
  if (!riv_cli_record_attach (run.client, json, &error))
    {
      close_output (output);
      load_run_clear (&run);
      return load_usage_error ("%s", error->message);
    }

  riv_client_connect_async (run.client, NULL, connect_done_cb, &result);
  while (result == NULL)
    g_main_context_iteration (NULL, TRUE);
  if (!riv_client_connect_finish (run.client, result, &error))
    {
      g_printerr ("rivulet-cli load: %s\n", error->message);
      close_output (output);
      load_run_clear (&run);
      return 1;
    }
  run.config = riv_config_ref (riv_client_get_config (run.client));

  endpoint = riv_config_find_endpoint (run.config, run.endpoint_name);
  if (endpoint == NULL)
    {
      close_output (output);
      status = load_usage_error ("the server has no endpoint \"%s\" (see rivulet-cli inspect)",
                                 run.endpoint_name);
      load_run_clear (&run);
      return status;
    }

  run.template = build_template (endpoint, given, &error);
  if (run.template == NULL)
    {
      close_output (output);
      load_run_clear (&run);
      return load_usage_error ("%s", error->message);
    }

  run.loop = g_main_loop_new (NULL, FALSE);
  run.stats = riv_load_stats_new ();
  run.window = g_array_new (FALSE, FALSE, sizeof (double));
  if (output != NULL)
    run.records = g_ptr_array_new_with_free_func (g_free);

  if (run.users == 0 && run.stages == NULL)
    {
      g_autoptr(RivJob) first = NULL;

      run.finished_handler = g_signal_connect (run.client, "job-finished",
                                               G_CALLBACK (open_loop_finished_cb), &run);
      /* The first submit validates the inputs: a bad value is a usage error. */
      if (run.count > 0 && (first = load_submit (&run, run.client, 0, &error)) == NULL)
        {
          close_output (output);
          load_run_clear (&run);
          return load_usage_error ("%s", error->message);
        }
      if (run.submitted < run.count)
        {
          if (run.rate > 0)
            run.submit_source = add_timeout (MIN (0.01, 1.0 / run.rate), submit_tick_cb, &run);
          else
            {
              run.submit_source = g_idle_source_new ();
              g_source_set_callback (run.submit_source, submit_tick_cb, &run, NULL);
              g_source_attach (run.submit_source, NULL);
            }
        }
      else
        run.submitting_done = TRUE;
      run.timeout_source = add_timeout (run.timeout, timeout_cb, &run);
      run.trim_source = add_timeout (0.5, trim_cb, &run);
    }
  else
    {
      run.timeout_source = add_timeout (load_users_schedule (&run) + run.timeout, timeout_cb, &run);
      load_users_start (&run);
    }

  run.sigint_id = g_unix_signal_add (SIGINT, interrupt_cb, &run);
  run.sigterm_id = g_unix_signal_add (SIGTERM, interrupt_cb, &run);
  load_status_start (&run);

  load_maybe_done (&run);
  if (run.end <= 0)
    g_main_loop_run (run.loop);
  load_status_clear (&run);

  /* Whatever did not finish in time is lost; closing cancels it quietly. */
  if (run.finished_handler != 0)
    g_clear_signal_handler (&run.finished_handler, run.client);
  account_unfinished (&run);
  riv_load_stats_set_end (run.stats, run.start_wall + (run.end - run.start));
  load_users_free (&run);
  riv_client_close (run.client);
  riv_cli_record_finish ();

  if (run.usage_failed != NULL)
    {
      close_output (output);
      status = load_usage_error ("%s", run.usage_failed);
      load_run_clear (&run);
      return status;
    }

  thresholds_ok = load_print_summary (&run, summary_out);
  if (run.thresholds->len > 0)
    status = thresholds_ok ? 0 : 1;
  else
    status = run.completed == run.submitted && run.submitted > 0 && !run.stopped ? 0 : 1;
  if (!riv_cli_record_ok ())
    status = 1;

  if (run.records != NULL && !write_records (&run, output, &error))
    {
      g_printerr ("rivulet-cli load: %s\n", error->message);
      g_clear_error (&error);
      status = 1;
    }
  if (timeseries_path != NULL)
    {
      g_autofree char *csv = riv_load_stats_timeseries_csv (run.stats);

      if (!load_write_file (timeseries_path, csv, strlen (csv), &error))
        {
          g_printerr ("rivulet-cli load: --timeseries: %s\n", error->message);
          g_clear_error (&error);
          status = 1;
        }
    }
  if (report_path != NULL && !load_write_report (&run, report_path, &error))
    {
      g_printerr ("rivulet-cli load: --report: %s\n", error->message);
      g_clear_error (&error);
      status = 1;
    }

  close_output (output);
  load_run_clear (&run);
  return status;
}
