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

#define TRACE_ATTEMPTS     5      /* fetches of the server's timings after the run */
#define TRACE_RETRY_MS     200

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
  while (result == NULL)
    g_main_context_iteration (NULL, TRUE);
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

static void
load_run_clear (LoadRun *run)
{
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
  g_clear_pointer (&run->metrics, riv_metrics_unref);
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

/* The run's last values wait for the scraper's next visit (bounded by its own pace). */
static void
metrics_linger (LoadRun *run)
{
  double linger;

  if (run->metrics == NULL)
    return;
  riv_cli_record_feed_metrics (run->metrics);
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

  riv_cli_record_feed_metrics (run->metrics);
}

static gboolean
write_records (GPtrArray   *records,
               FILE        *out,
               GError     **error)
{
  for (guint i = 0; i < records->len; i++)
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
  g_autofree char *transport = NULL;
  g_autofree char *metrics_address = NULL;
  g_auto(GStrv) threshold_texts = NULL;
  gint count = -1;
  gint users = 0;
  gint iterations = 0;
  double rate = 0;
  double timeout = -1;
  double think = 0;
  double duration = 0;
  gboolean json = FALSE;
  gboolean call = FALSE;
  gboolean until_break = FALSE;
  const GOptionEntry entries[] = {
    { "url", 'u', 0, G_OPTION_ARG_STRING, &url, "Server base URL (required)", "URL" },
    { "endpoint", 'e', 0, G_OPTION_ARG_STRING, &endpoint_name,
      "Endpoint api_name (or fn_index) to call (required)", "NAME" },
    { "data", 'd', 0, G_OPTION_ARG_STRING, &data_text,
      "Input values as a JSON array; missing ones take the inputs' defaults; in strings "
      "\"{i}\" becomes the job number (1…) and \"{u}\" the user number. A file is "
      "{\"path\": \"cat.png\", \"meta\": {\"_type\": \"gradio.FileData\"}} (as gradio_client's "
      "handle_file() writes it, also inside lists): uploaded before the job, once per session "
      "and path (once for all --count jobs, once per user with --users) and then reused, the "
      "time in each record's upload_s; a missing, empty or unreadable file stops the run "
      "before any job",
      "JSON_ARRAY" },
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
    { "until-break", 0, 0, G_OPTION_ARG_NONE, &until_break,
      "Breakpoint test: ramp (--stages; --users N or --rate R with --duration S: from 0 to N "
      "users or R jobs/s over S) until the first failed, lost or timed-out job (a join "
      "unanswered for 30 s) or a failing --threshold, "
      "then stop the ramp, let the jobs in flight end and name the breaking point", NULL },
    { "metrics", 0, 0, G_OPTION_ARG_STRING, &metrics_address,
      "Serve live Prometheus metrics at http://ADDR:PORT/metrics while the run goes "
      "(e.g. 127.0.0.1:9464; a port alone means 127.0.0.1; port 0 picks a free one)",
      "ADDR:PORT" },
    { "json", 0, 0, G_OPTION_ARG_NONE, &json, "Print the summary as one JSON object", NULL },
    { "output", 'o', 0, G_OPTION_ARG_FILENAME, &output_path,
      "Write one JSON record per job (JSON Lines, in job order) to FILE when the run ends; "
      "\"-\" is standard output (the summary then goes to standard error)", "FILE" },
    { "timeseries", 0, 0, G_OPTION_ARG_FILENAME, &timeseries_path,
      "Write one CSV line per second of the run to FILE", "FILE" },
    { "report", 0, 0, G_OPTION_ARG_FILENAME, &report_path,
      "Write a self-contained HTML report (charts, histograms, errors) to FILE", "FILE" },
    { "transport", 0, 0, G_OPTION_ARG_STRING, &transport,
      "How jobs are submitted: \"queue\" (queue/join and the session's stream, as the "
      "official clients do; default) or \"call\" (Gradio 6.13+'s /call/v2/ENDPOINT with "
      "keyword arguments and one result stream per job; no wait or run time, no "
      "--record), to compare the two", "queue|call" },
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
  g_autoptr(GArray) stages = NULL;
  g_autoptr(JsonNode) template = NULL;
  guint shard = 0;
  guint n_shards = 1;
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
  g_option_context_add_main_entries (context, riv_cli_tls_get_entries (), NULL);
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
  if (until_break && stages_text == NULL && !(duration > 0 && (users > 0 || rate > 0)))
    return load_usage_error ("--until-break needs a ramp to climb: --stages, --users N with "
                             "--duration S (0 to N users over S seconds), or --rate R with "
                             "--duration S (0 to R jobs/s over S seconds)");
  if (until_break && count_given)
    return load_usage_error ("--until-break ramps until something breaks; --count is a fixed "
                             "burst: leave it out");
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
  if (users == 0 && stages_text == NULL && (think > 0 || iterations > 0 ||
                                            (duration > 0 && !(until_break && rate > 0))))
    return load_usage_error ("--think, --duration and --iterations are for virtual users: "
                             "add --users N (or --stages)");

  if (transport != NULL && strcmp (transport, "queue") != 0 && strcmp (transport, "call") != 0)
    return load_usage_error ("--transport \"%s\": expected queue or call", transport);
  call = g_strcmp0 (transport, "call") == 0;
  if (call && riv_cli_record_requested ())
    return load_usage_error ("--transport call does not go with --record: its result streams "
                             "are not recorded");
  if (shard_text != NULL && !parse_shard (shard_text, &shard, &n_shards, &error))
    return load_usage_error ("%s", error->message);
  if (stages_text != NULL)
    {
      if (count_given || rate > 0)
        return load_usage_error ("--stages ramps virtual users; it does not go with %s",
                                 count_given ? "--count" : "--rate");
      if (!riv_load_parse_stages (stages_text, &stages, &error))
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
      given = riv_json_parse (NULL, data_text, -1, 0, &error);
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

  /* Bound before the run, so a port that is taken is a usage error. */
  if (metrics_address != NULL)
    {
      run.metrics = riv_metrics_new ();
      if (!riv_metrics_listen (run.metrics, metrics_address, &error))
        {
          close_output (output);
          load_run_clear (&run);
          return load_usage_error ("--metrics: %s", error->message);
        }
      if (!riv_metrics_is_loopback (run.metrics))
        g_printerr ("rivulet-cli load: warning: --metrics listens on %s, which is not a loopback "
                    "address\n", metrics_address);
      g_printerr ("rivulet-cli load: metrics at %s\n", riv_metrics_get_url (run.metrics));
      riv_cli_record_feed_metrics (run.metrics);
    }

  run.json = json;
  run.status_line = isatty (STDERR_FILENO) && !(output == stdout && summary_out == stderr);

  run.client = riv_client_new (normalized);
  riv_client_set_download_images (run.client, FALSE);
  if (token != NULL)
    riv_client_set_token (run.client, token);
  if (auth == NULL)
    auth = g_strdup (g_getenv ("RIVULET_AUTH"));
  if (auth != NULL && !riv_client_set_auth_string (run.client, auth, &error))
    {
      close_output (output);
      load_run_clear (&run);
      return load_usage_error ("--auth: %s", error->message);
    }
  if (!riv_cli_tls_apply (run.client, &error))
    {
      close_output (output);
      load_run_clear (&run);
      return load_usage_error ("%s", error->message);
    }
  summary_out = riv_cli_record_summary_out (summary_out);
  /* The live lint reads the queue protocol; /call/v2's streams are not tapped. */
  if (!riv_cli_record_attach (run.client, (json || run.metrics != NULL) && !call, &error))
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

  endpoint = riv_config_find_endpoint (run.config, endpoint_name);
  if (endpoint == NULL)
    {
      close_output (output);
      status = load_usage_error ("the server has no endpoint \"%s\" (see rivulet-cli inspect)",
                                 endpoint_name);
      load_run_clear (&run);
      return status;
    }

  if (!endpoint->is_public)
    {
      close_output (output);
      status = load_usage_error ("endpoint \"%s\" is private (api_visibility \"private\"): "
                                 "the app keeps it for its own page and does not offer it to "
                                 "API clients", endpoint_name);
      load_run_clear (&run);
      return status;
    }

  if (call && !call_route_offered (run.config, endpoint, &error))
    {
      close_output (output);
      load_run_clear (&run);
      return load_usage_error ("--transport call: %s", error->message);
    }
  riv_client_set_call_transport (run.client, call);

  template = build_template (endpoint, given, &error);
  if (template == NULL)
    {
      close_output (output);
      load_run_clear (&run);
      return load_usage_error ("%s", error->message);
    }

  run.engine = riv_load_run_new (run.client, endpoint_name, template);
  riv_load_run_set_shard (run.engine, shard, n_shards);
  run.until_break = until_break;
  if (until_break && stages == NULL && users > 0)
    {
      /* The ramp built for the user: 0 to N users over the duration. */
      RivLoadStage ramp = { duration, (guint) users };

      stages = g_array_new (FALSE, FALSE, sizeof (RivLoadStage));
      g_array_append_val (stages, ramp);
      users = 0;
      duration = 0;
    }
  if (until_break)
    riv_load_run_set_until_break (run.engine, run.thresholds);
  if (until_break && stages == NULL)
    riv_load_run_set_rate_ramp (run.engine, rate, duration);
  else if (users > 0 || stages != NULL)
    {
      riv_load_run_set_users (run.engine, (guint) users, think, duration, (guint) iterations);
      riv_load_run_set_stages (run.engine, g_steal_pointer (&stages));
    }
  else
    riv_load_run_set_open_loop (run.engine, (guint) count, rate);
  riv_load_run_set_timeout (run.engine, timeout > 0 ? timeout : 600);
  riv_load_run_set_keep_records (run.engine, output != NULL);
  riv_load_run_set_upload_files (run.engine, TRUE);

  /* Every file the jobs will upload, checked before the first job. */
  g_clear_object (&result);
  riv_load_run_check_files_async (run.engine, NULL, connect_done_cb, &result);
  while (result == NULL)
    g_main_context_iteration (NULL, TRUE);
  if (!riv_load_run_check_files_finish (run.engine, result, &error))
    {
      close_output (output);
      load_run_clear (&run);
      return load_usage_error ("--data: %s", error->message);
    }

  /* The server's own timings, when it offers them (GRADIO_PROFILING=1). */
  {
    g_autoptr(JsonNode) probe = load_fetch_traces (run.client, 1, NULL);

    run.server_traces = probe != NULL;
  }
  riv_load_run_set_track_events (run.engine, run.server_traces);

  if (run.metrics != NULL)
    {
      riv_load_run_set_metrics (run.engine, run.metrics);
      g_signal_connect (run.engine, "sample", G_CALLBACK (metrics_sample_cb), &run);
    }
  g_signal_connect (run.engine, "finished", G_CALLBACK (finished_cb), &run);
  g_signal_connect (run.engine, "user-started", G_CALLBACK (user_started_cb), &run);
  run.loop = g_main_loop_new (NULL, FALSE);

  if (!riv_load_run_start (run.engine, &error))
    {
      /* The first submit validates the inputs: a bad value is a usage error. */
      close_output (output);
      load_run_clear (&run);
      return load_usage_error ("%s", error->message);
    }

  run.sigint_id = g_unix_signal_add (SIGINT, interrupt_cb, &run);
  run.sigterm_id = g_unix_signal_add (SIGTERM, interrupt_cb, &run);
  load_status_start (&run);

  if (!riv_load_run_is_finished (run.engine))
    g_main_loop_run (run.loop);
  load_status_clear (&run);
  metrics_linger (&run);

  if (riv_load_run_get_usage_error (run.engine) != NULL)
    {
      riv_client_close (run.client);
      close_output (output);
      status = load_usage_error ("%s", riv_load_run_get_usage_error (run.engine));
      load_run_clear (&run);
      return status;
    }

  if (run.server_traces)
    {
      /* Gradio files an event's trace just after its completion went out:
       * the last jobs' may need a moment. */
      for (guint attempt = 0; attempt < TRACE_ATTEMPTS; attempt++)
        {
          g_autoptr(JsonNode) traces = NULL;
          gboolean waited = FALSE;

          if (attempt > 0)
            {
              g_timeout_add_once (TRACE_RETRY_MS, flag_cb, &waited);
              while (!waited)
                g_main_context_iteration (NULL, TRUE);
            }
          traces = load_fetch_traces (run.client, 0, &error);
          if (traces == NULL)
            {
              if (error != NULL)
                g_printerr ("rivulet-cli load: the server's timings: %s\n", error->message);
              g_clear_error (&error);
              break;
            }
          run.server_joined += riv_load_run_add_server_traces (run.engine, traces);
          if (riv_load_run_get_n_untimed (run.engine) == 0)
            break;
        }
    }
  riv_client_close (run.client);
  riv_cli_record_finish ();

  thresholds_ok = load_print_summary (&run, summary_out);
  if (until_break)
    status = riv_load_run_was_stopped (run.engine) ? 1 : 0;
  else if (run.thresholds->len > 0)
    status = thresholds_ok ? 0 : 1;
  else
    status = riv_load_run_get_completed (run.engine) == riv_load_run_get_submitted (run.engine) &&
             riv_load_run_get_submitted (run.engine) > 0 &&
             !riv_load_run_was_stopped (run.engine) ? 0 : 1;
  if (!riv_cli_record_ok ())
    status = 1;

  if (output != NULL && !write_records (riv_load_run_get_records (run.engine), output, &error))
    {
      g_printerr ("rivulet-cli load: %s\n", error->message);
      g_clear_error (&error);
      status = 1;
    }
  if (timeseries_path != NULL)
    {
      g_autofree char *csv = riv_load_stats_timeseries_csv (riv_load_run_get_stats (run.engine));

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
