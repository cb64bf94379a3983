/* riv-cli-load.c
 * Copyright 2026 The Rivulet authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * rivulet-cli load: submits a burst of jobs to one endpoint of any Gradio
 * server, waits until every job is terminal and prints a summary.
 */
#include "config.h"

#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>

#include <glib-unix.h>

#include "riv-cli.h"
#include "riv-util.h"
#include "riv-client.h"
#include "riv-job-record.h"

#define SUBMIT_CHUNK       200    /* jobs per main-loop turn when there is no --rate */
#define MAX_ERROR_KINDS    64     /* distinct error texts remembered for the report */

typedef struct
{
  RivClient    *client;
  GMainLoop    *loop;
  RivEndpoint  *endpoint;
  const char   *endpoint_name;  /* as given on the command line */
  JsonNode     *template;       /* JSON array, one value per input */
  GArray       *latencies;      /* double, seconds, completed jobs */
  GHashTable   *batches;        /* batch id → size */
  GHashTable   *errors;         /* error text → count */
  GPtrArray    *records;        /* --output: one JSON line per job (index - 1), NULL until it ends */
  GSource      *submit_source;
  GSource      *timeout_source;
  GSource      *trim_source;
  guint         sigint_id;
  guint         sigterm_id;
  gulong        finished_handler;

  double        rate;
  double        timeout;
  double        start;
  double        end;
  guint         count;
  guint         submitted;
  guint         finished;
  guint         completed;
  guint         failed;
  guint         cancelled;
  guint         lost;
  gboolean      stopped;        /* timeout or signal */
  gboolean      interrupted;
} LoadState;

static int
usage_error (const char *format,
             ...) G_GNUC_PRINTF (1, 2);

static int
usage_error (const char *format,
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


static void
record_error (LoadState  *state,
              const char *error)
{
  guint n;

  if (error == NULL)
    error = "(no message)";
  n = GPOINTER_TO_UINT (g_hash_table_lookup (state->errors, error));
  if (n == 0 && g_hash_table_size (state->errors) >= MAX_ERROR_KINDS)
    return;
  g_hash_table_insert (state->errors, g_strdup (error), GUINT_TO_POINTER (n + 1));
}

/* The job's record as one line, in its slot (job numbers are 1-based). A job
 * still in flight when the run stopped is written as lost with lost_error. */
static void
keep_record (LoadState  *state,
             RivJob     *job,
             const char *lost_error)
{
  g_autoptr(JsonNode) record = riv_job_record_new (job, riv_job_get_number (job), 0);
  guint slot = riv_job_get_number (job) - 1;

  if (lost_error != NULL)
    {
      JsonObject *object = json_node_get_object (record);

      json_object_set_string_member (object, "status",
                                     riv_job_status_to_string (RIV_JOB_STATUS_LOST));
      json_object_set_string_member (object, "error", lost_error);
    }

  if (slot >= state->records->len)
    g_ptr_array_set_size (state->records, slot + 1);
  g_free (g_ptr_array_index (state->records, slot));
  g_ptr_array_index (state->records, slot) = riv_json_to_string (record, NULL);
}

/* Records of the jobs that did not end before the run stopped. */
static void
keep_unfinished_records (LoadState *state)
{
  GListModel *jobs = riv_client_get_jobs (state->client);
  const char *why = state->interrupted ? "interrupted before the job ended"
                                       : "timed out before the job ended";

  for (guint i = 0; i < g_list_model_get_n_items (jobs); i++)
    {
      g_autoptr(RivJob) job = g_list_model_get_item (jobs, i);

      if (!riv_job_is_finished (job))
        keep_record (state, job, why);
    }
}

static gboolean
write_records (LoadState  *state,
               FILE       *out,
               GError    **error)
{
  for (guint i = 0; i < state->records->len; i++)
    {
      const char *line = g_ptr_array_index (state->records, i);

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
maybe_done (LoadState *state)
{
  if (state->stopped || (state->submitted == state->count && state->finished == state->submitted))
    {
      if (state->end <= 0)
        state->end = g_get_monotonic_time () / (double) G_USEC_PER_SEC;
      g_main_loop_quit (state->loop);
    }
}

static void
job_finished_cb (RivClient *client,
                 RivJob    *job,
                 gpointer   user_data)
{
  LoadState *state = user_data;
  const char *batch_id;

  state->finished++;

  switch (riv_job_get_status (job))
    {
    case RIV_JOB_STATUS_COMPLETED:
      {
        double latency = riv_job_get_total_time (job);

        state->completed++;
        g_array_append_val (state->latencies, latency);
      }
      break;
    case RIV_JOB_STATUS_FAILED:
      state->failed++;
      record_error (state, riv_job_get_error (job));
      break;
    case RIV_JOB_STATUS_CANCELLED:
      state->cancelled++;
      break;
    case RIV_JOB_STATUS_LOST:
      state->lost++;
      record_error (state, riv_job_get_error (job));
      break;
    case RIV_JOB_STATUS_PENDING:
    case RIV_JOB_STATUS_JOINING:
    case RIV_JOB_STATUS_QUEUED:
    case RIV_JOB_STATUS_RUNNING:
    case RIV_JOB_STATUS_STREAMING:
    default:
      g_assert_not_reached ();
    }

  batch_id = riv_job_get_batch_id (job);
  if (batch_id != NULL && !g_hash_table_contains (state->batches, batch_id))
    g_hash_table_insert (state->batches, g_strdup (batch_id),
                         GINT_TO_POINTER ((int) MAX (riv_job_get_batch_size (job), 1)));

  if (state->records != NULL)
    keep_record (state, job, NULL);

  maybe_done (state);
}

static gboolean
submit_one (LoadState  *state,
            GError    **error)
{
  g_autoptr(JsonNode) data = riv_json_substitute_index (state->template, state->submitted + 1);
  g_autoptr(RivJob) job = NULL;

  job = riv_client_submit (state->client, state->endpoint_name, data, error);
  if (job == NULL)
    return FALSE;

  if (state->submitted == 0)
    state->start = riv_job_get_submitted_at (job);
  state->submitted++;
  return TRUE;
}

static gboolean
submit_tick_cb (gpointer user_data)
{
  LoadState *state = user_data;
  guint target;

  if (state->rate > 0)
    {
      double now = g_get_monotonic_time () / (double) G_USEC_PER_SEC;
      double elapsed = state->submitted > 0 ? now - state->start : 0;

      target = MIN (state->count, (guint) floor (elapsed * state->rate) + 1);
    }
  else
    target = MIN (state->count, state->submitted + SUBMIT_CHUNK);

  while (state->submitted < target)
    {
      g_autoptr(GError) error = NULL;

      if (!submit_one (state, &error))
        {
          /* The first job was validated before the loop started. */
          g_printerr ("rivulet-cli load: %s\n", error->message);
          state->count = state->submitted;
          break;
        }
    }

  if (state->submitted < state->count)
    return G_SOURCE_CONTINUE;

  g_clear_pointer (&state->submit_source, g_source_unref);
  maybe_done (state);
  return G_SOURCE_REMOVE;
}

static gboolean
stop_cb (gpointer user_data)
{
  LoadState *state = user_data;

  state->stopped = TRUE;
  maybe_done (state);
  return G_SOURCE_CONTINUE;
}

static gboolean
timeout_cb (gpointer user_data)
{
  LoadState *state = user_data;

  g_clear_pointer (&state->timeout_source, g_source_unref);
  stop_cb (state);
  return G_SOURCE_REMOVE;
}

static gboolean
interrupt_cb (gpointer user_data)
{
  LoadState *state = user_data;

  state->interrupted = TRUE;
  return stop_cb (state);
}

/* Finished jobs are only counted: dropping them keeps memory flat in long runs. */
static gboolean
trim_cb (gpointer user_data)
{
  LoadState *state = user_data;

  riv_client_clear_finished (state->client);
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

static int
compare_doubles (gconstpointer a,
                 gconstpointer b)
{
  double x = *(const double *) a;
  double y = *(const double *) b;

  return (x > y) - (x < y);
}

/* Nearest-rank percentile of a sorted array. */
static double
percentile (GArray *sorted,
            double  q)
{
  guint rank;

  if (sorted->len == 0)
    return 0;
  rank = (guint) ceil (q * sorted->len);
  rank = CLAMP (rank, 1, sorted->len);
  return g_array_index (sorted, double, rank - 1);
}

static void
print_report (LoadState *state,
              gboolean   json,
              FILE      *out)
{
  double wall = state->submitted > 0 ? MAX (0, state->end - state->start) : 0;
  double p50, p95, p99, max;
  double mean_batch = 0;
  guint64 events = riv_client_get_n_messages (state->client);
  guint n_batches = g_hash_table_size (state->batches);
  GHashTableIter iter;
  gpointer key, value;

  g_array_sort (state->latencies, compare_doubles);
  p50 = percentile (state->latencies, 0.50);
  p95 = percentile (state->latencies, 0.95);
  p99 = percentile (state->latencies, 0.99);
  max = state->latencies->len > 0 ? g_array_index (state->latencies, double,
                                                   state->latencies->len - 1) : 0;

  if (n_batches > 0)
    {
      guint64 total = 0;

      g_hash_table_iter_init (&iter, state->batches);
      while (g_hash_table_iter_next (&iter, NULL, &value))
        total += GPOINTER_TO_INT (value);
      mean_batch = (double) total / n_batches;
    }

  if (json)
    {
      g_autoptr(JsonBuilder) builder = json_builder_new ();
      g_autoptr(JsonGenerator) generator = json_generator_new ();
      g_autoptr(JsonNode) root = NULL;
      g_autofree char *text = NULL;

      json_builder_begin_object (builder);
      json_builder_set_member_name (builder, "submitted");
      json_builder_add_int_value (builder, state->submitted);
      json_builder_set_member_name (builder, "completed");
      json_builder_add_int_value (builder, state->completed);
      json_builder_set_member_name (builder, "failed");
      json_builder_add_int_value (builder, state->failed);
      json_builder_set_member_name (builder, "cancelled");
      json_builder_add_int_value (builder, state->cancelled);
      json_builder_set_member_name (builder, "lost");
      json_builder_add_int_value (builder, state->lost);
      json_builder_set_member_name (builder, "wall_s");
      json_builder_add_double_value (builder, wall);
      json_builder_set_member_name (builder, "latency_s");
      json_builder_begin_object (builder);
      json_builder_set_member_name (builder, "p50");
      json_builder_add_double_value (builder, p50);
      json_builder_set_member_name (builder, "p95");
      json_builder_add_double_value (builder, p95);
      json_builder_set_member_name (builder, "p99");
      json_builder_add_double_value (builder, p99);
      json_builder_set_member_name (builder, "max");
      json_builder_add_double_value (builder, max);
      json_builder_end_object (builder);
      json_builder_set_member_name (builder, "events");
      json_builder_add_int_value (builder, (gint64) events);
      json_builder_set_member_name (builder, "batches");
      json_builder_begin_object (builder);
      json_builder_set_member_name (builder, "count");
      json_builder_add_int_value (builder, n_batches);
      json_builder_set_member_name (builder, "mean_size");
      json_builder_add_double_value (builder, mean_batch);
      json_builder_end_object (builder);
      json_builder_end_object (builder);

      root = json_builder_get_root (builder);
      json_generator_set_root (generator, root);
      text = json_generator_to_data (generator, NULL);
      fprintf (out, "%s\n", text);
    }
  else
    {
      fprintf (out, "submitted  %u\n", state->submitted);
      fprintf (out, "completed  %u\n", state->completed);
      fprintf (out, "failed     %u\n", state->failed);
      fprintf (out, "cancelled  %u\n", state->cancelled);
      fprintf (out, "lost       %u\n", state->lost);
      fprintf (out, "wall time  %.3f s\n", wall);
      if (state->latencies->len > 0)
        fprintf (out, "latency    p50 %.3f s  p95 %.3f s  p99 %.3f s  max %.3f s\n", p50, p95, p99, max);
      else
        fprintf (out, "latency    (no completed jobs)\n");
      fprintf (out, "events     %" G_GUINT64_FORMAT " (%.0f/s)\n", events, wall > 0 ? events / wall : 0);
      if (n_batches > 0)
        fprintf (out, "batches    %u, mean size %.1f\n", n_batches, mean_batch);
      else
        fprintf (out, "batches    0\n");
    }

  if (state->stopped && state->finished < state->submitted)
    g_printerr ("rivulet-cli load: %s with %u job(s) unfinished; counted as lost\n",
                state->interrupted ? "interrupted" : "timed out",
                state->submitted - state->finished);

  g_hash_table_iter_init (&iter, state->errors);
  while (g_hash_table_iter_next (&iter, &key, &value))
    g_printerr ("rivulet-cli load: %u job(s): %s\n", GPOINTER_TO_UINT (value), (const char *) key);
}

static void
close_output (FILE *output)
{
  if (output != NULL && output != stdout)
    fclose (output);
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

int
riv_cli_load (int    argc,
              char **argv)
{
  g_autofree char *url = NULL;
  g_autofree char *endpoint_name = NULL;
  g_autofree char *data_text = NULL;
  g_autofree char *token = NULL;
  g_autofree char *auth = NULL;
  g_autofree char *normalized = NULL;
  g_autofree char *output_path = NULL;
  gint count = 1;
  double rate = 0;
  double timeout = 600;
  gboolean json = FALSE;
  const GOptionEntry entries[] = {
    { "url", 'u', 0, G_OPTION_ARG_STRING, &url, "Server base URL (required)", "URL" },
    { "endpoint", 'e', 0, G_OPTION_ARG_STRING, &endpoint_name,
      "Endpoint api_name (or fn_index) to call (required)", "NAME" },
    { "count", 'n', 0, G_OPTION_ARG_INT, &count, "Number of jobs (default 1)", "N" },
    { "data", 'd', 0, G_OPTION_ARG_STRING, &data_text,
      "Input values as a JSON array; missing ones take the inputs' defaults; "
      "\"{i}\" in strings becomes the job number (1…N)", "JSON_ARRAY" },
    { "rate", 'r', 0, G_OPTION_ARG_DOUBLE, &rate,
      "Submit at most this many jobs per second (default: all at once)", "JOBS_PER_S" },
    { "timeout", 't', 0, G_OPTION_ARG_DOUBLE, &timeout,
      "Give up after this many seconds; unfinished jobs count as lost (default 600)", "S" },
    { "json", 0, 0, G_OPTION_ARG_NONE, &json, "Print the summary as one JSON object", NULL },
    { "output", 'o', 0, G_OPTION_ARG_FILENAME, &output_path,
      "Write one JSON record per job (JSON Lines, in job order) to FILE when the run ends; "
      "\"-\" is standard output (the summary then goes to standard error)", "FILE" },
    { "token", 0, 0, G_OPTION_ARG_STRING, &token, "Bearer token for the server", "TOKEN" },
    { "auth", 0, 0, G_OPTION_ARG_STRING, &auth,
      "Log in to a Gradio app launched with auth= (default: $RIVULET_AUTH)", "USER:PASSWORD" },
    { NULL }
  };
  g_autoptr(GOptionContext) context = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonNode) given = NULL;
  g_autoptr(GAsyncResult) result = NULL;
  g_autoptr(RivClient) client = NULL;
  LoadState state = { 0 };
  FILE *output = NULL;
  FILE *summary_out = stdout;
  int status;

  context = g_option_context_new ("— submit a burst of jobs and summarise");
  g_option_context_set_summary (context,
    "Connects to a Gradio server (or rivulet-cli serve), submits COUNT jobs to\n"
    "one endpoint, waits until every job has finished, and prints how many\n"
    "completed, failed, were cancelled or lost, with latency percentiles.\n"
    "Exits 0 only if every job completed; 2 for bad arguments.");
  g_option_context_add_main_entries (context, entries, NULL);
  if (!g_option_context_parse (context, &argc, &argv, &error))
    return usage_error ("%s", error->message);
  if (argc > 1)
    return usage_error ("unexpected argument \"%s\"", argv[1]);
  if (url == NULL)
    return usage_error ("--url is required");
  if (endpoint_name == NULL || *endpoint_name == '\0')
    return usage_error ("--endpoint is required");
  if (count < 1)
    return usage_error ("--count must be at least 1");
  if (rate < 0 || isnan (rate))
    return usage_error ("--rate must be positive");
  if (!(timeout > 0))
    return usage_error ("--timeout must be positive");

  normalized = riv_client_normalize_url (url, &error);
  if (normalized == NULL)
    return usage_error ("%s", error->message);

  if (data_text != NULL)
    {
      given = json_from_string (data_text, &error);
      if (given == NULL)
        return usage_error ("--data is not valid JSON: %s", error->message);
      if (!JSON_NODE_HOLDS_ARRAY (given))
        return usage_error ("--data must be a JSON array (one value per input)");
    }

  /* Opened before the run, so a path that cannot be written is a usage error. */
  if (output_path != NULL && strcmp (output_path, "-") == 0)
    {
      output = stdout;
      summary_out = stderr;
    }
  else if (output_path != NULL && (output = fopen (output_path, "w")) == NULL)
    return usage_error ("--output: cannot write %s: %s", output_path, g_strerror (errno));

  client = riv_client_new (normalized);
  riv_client_set_download_images (client, FALSE);
  if (token != NULL)
    riv_client_set_token (client, token);
  if (auth == NULL)
    auth = g_strdup (g_getenv ("RIVULET_AUTH"));
  if (auth != NULL && !riv_client_set_auth_string (client, auth, &error))
    {
      close_output (output);
      return usage_error ("--auth: %s", error->message);
    }

  riv_client_connect_async (client, NULL, connect_done_cb, &result);
  while (result == NULL)
    g_main_context_iteration (NULL, TRUE);
  if (!riv_client_connect_finish (client, result, &error))
    {
      g_printerr ("rivulet-cli load: %s\n", error->message);
      close_output (output);
      return 1;
    }

  state.endpoint = riv_config_find_endpoint (riv_client_get_config (client), endpoint_name);
  if (state.endpoint == NULL)
    {
      close_output (output);
      return usage_error ("the server has no endpoint \"%s\" (see rivulet-cli inspect)",
                          endpoint_name);
    }

  state.template = build_template (state.endpoint, given, &error);
  if (state.template == NULL)
    {
      close_output (output);
      return usage_error ("%s", error->message);
    }

  state.client = client;
  state.endpoint_name = endpoint_name;
  state.loop = g_main_loop_new (NULL, FALSE);
  state.count = count;
  state.rate = rate;
  state.timeout = timeout;
  state.latencies = g_array_new (FALSE, FALSE, sizeof (double));
  state.batches = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  state.errors = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  if (output != NULL)
    state.records = g_ptr_array_new_with_free_func (g_free);
  state.finished_handler = g_signal_connect (client, "job-finished",
                                             G_CALLBACK (job_finished_cb), &state);

  /* The first submit validates the inputs: a bad value is a usage error. */
  if (!submit_one (&state, &error))
    status = usage_error ("%s", error->message);
  else
    {
      if (state.submitted < state.count)
        {
          if (rate > 0)
            state.submit_source = add_timeout (MIN (0.01, 1.0 / rate), submit_tick_cb, &state);
          else
            {
              state.submit_source = g_idle_source_new ();
              g_source_set_callback (state.submit_source, submit_tick_cb, &state, NULL);
              g_source_attach (state.submit_source, NULL);
            }
        }
      state.timeout_source = add_timeout (timeout, timeout_cb, &state);
      state.trim_source = add_timeout (0.5, trim_cb, &state);
      state.sigint_id = g_unix_signal_add (SIGINT, interrupt_cb, &state);
      state.sigterm_id = g_unix_signal_add (SIGTERM, interrupt_cb, &state);

      maybe_done (&state);
      if (!(state.submitted == state.count && state.finished == state.submitted))
        g_main_loop_run (state.loop);

      /* Whatever did not finish in time is lost; closing cancels it quietly. */
      g_signal_handler_disconnect (client, state.finished_handler);
      state.lost += state.submitted - state.finished;
      if (state.records != NULL)
        keep_unfinished_records (&state);
      riv_client_close (client);

      print_report (&state, json, summary_out);
      status = (state.completed == state.count && state.submitted == state.count) ? 0 : 1;
      if (state.records != NULL && !write_records (&state, output, &error))
        {
          g_printerr ("rivulet-cli load: %s\n", error->message);
          status = 1;
        }
    }

  if (state.finished_handler != 0 && g_signal_handler_is_connected (client, state.finished_handler))
    g_signal_handler_disconnect (client, state.finished_handler);
  riv_client_close (client);
  destroy_source (&state.submit_source);
  destroy_source (&state.timeout_source);
  destroy_source (&state.trim_source);
  g_clear_handle_id (&state.sigint_id, g_source_remove);
  g_clear_handle_id (&state.sigterm_id, g_source_remove);
  g_clear_pointer (&state.loop, g_main_loop_unref);
  g_clear_pointer (&state.template, json_node_unref);
  g_clear_pointer (&state.latencies, g_array_unref);
  g_clear_pointer (&state.batches, g_hash_table_unref);
  g_clear_pointer (&state.errors, g_hash_table_unref);
  g_clear_pointer (&state.records, g_ptr_array_unref);
  close_output (output);

  return status;
}
