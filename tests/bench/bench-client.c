/* bench-client.c
 * Copyright 2026 The Rivulet authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The real RivClient, in this process, against a server in another process
 * (rivulet-cli serve, started by tests/bench/run). Prints one JSON object.
 *
 *   bench-client stream --url URL --count N --jobs J
 *     Issue #7 item 3: J concurrent rapid_generation(N) jobs; updates
 *     delivered per second from the first submit to the last completion, and
 *     every final text checked against "1\n2\n…\nN".
 *   bench-client memory --url URL --count N [--server-pid PID]
 *     Issue #7 item 5: RSS of this process before and after a burst of N
 *     batch_echo jobs with empty text (so outputs weigh nothing), after
 *     malloc_trim(), divided by N: the client's memory per finished job. With
 *     --server-pid it also samples the server's VmRSS before the burst and
 *     while it goes idle afterwards.
 *
 * Not a test: timing is reported, never asserted.
 */
#include "config.h"

#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench-util.h"
#include "riv-client-private.h"

typedef struct
{
  RivClient    *client;
  GAsyncResult *result;
  guint         n_target;
  guint         n_finished;
  guint         n_completed;
  double        last_finished_at;
} Run;

static void
connect_cb (GObject      *object,
            GAsyncResult *result,
            gpointer      user_data)
{
  Run *run = user_data;

  run->result = g_object_ref (result);
}

static gboolean
connected (gpointer user_data)
{
  return ((Run *) user_data)->result != NULL;
}

static gboolean
all_finished (gpointer user_data)
{
  Run *run = user_data;

  return run->n_finished >= run->n_target;
}

static void
job_finished_cb (RivClient *client,
                 RivJob    *job,
                 gpointer   user_data)
{
  Run *run = user_data;

  run->n_finished++;
  if (riv_job_get_status (job) == RIV_JOB_STATUS_COMPLETED)
    run->n_completed++;
  run->last_finished_at = bench_now ();
}

static RivClient *
connect_client (const char *url,
                Run        *run)
{
  g_autoptr(RivClient) client = riv_client_new (url);
  g_autoptr(GError) error = NULL;

  riv_client_set_download_images (client, FALSE);
  riv_client_connect_async (client, NULL, connect_cb, run);
  bench_wait_until (connected, run, 30);
  if (run->result == NULL || !riv_client_connect_finish (client, run->result, &error))
    {
      g_printerr ("bench-client: cannot connect to %s: %s\n", url,
                  error ? error->message : "no answer within 30 s");
      exit (1);
    }
  g_clear_object (&run->result);
  g_signal_connect (client, "job-finished", G_CALLBACK (job_finished_cb), run);
  run->client = client;
  return g_steal_pointer (&client);
}

/* Waits until every submitted job has finished; on the hang guard, says where
 * the jobs are stuck (a count per status) and returns FALSE. */
static gboolean
wait_all (Run    *run,
          double  timeout)
{
  GListModel *jobs;
  guint counts[RIV_JOB_STATUS_LOST + 1] = { 0 };

  if (bench_wait_until (all_finished, run, timeout))
    return TRUE;

  jobs = riv_client_get_jobs (run->client);
  for (guint i = 0; i < g_list_model_get_n_items (jobs); i++)
    {
      g_autoptr(RivJob) job = g_list_model_get_item (jobs, i);
      RivJobStatus status = riv_job_get_status (job);

      if (status <= RIV_JOB_STATUS_LOST)
        counts[status]++;
    }
  g_printerr ("bench-client: only %u of %u jobs finished after %g s; the client's list holds:",
              run->n_finished, run->n_target, timeout);
  for (guint s = 0; s <= RIV_JOB_STATUS_LOST; s++)
    if (counts[s] > 0)
      g_printerr (" %u %s", counts[s], riv_job_status_to_string (s));
  g_printerr ("; stream state %d, %u SSE GETs, %u early messages held\n",
              riv_client_get_stream_state (run->client), _riv_client_get_n_streams (run->client),
              _riv_client_get_n_early (run->client));
  return FALSE;
}

#define SUBMIT_CHUNK 200   /* jobs per main-loop turn, as rivulet-cli load submits them */

typedef struct
{
  Run        *run;
  JsonNode   *data;
  const char *endpoint;
  GPtrArray  *jobs;       /* borrowed: the caller's array */
  guint       count;
} Submitter;

static gboolean
submit_chunk_cb (gpointer user_data)
{
  Submitter *sub = user_data;
  guint target = MIN (sub->count, sub->jobs->len + SUBMIT_CHUNK);

  while (sub->jobs->len < target)
    {
      g_autoptr(GError) error = NULL;
      RivJob *job = riv_client_submit (sub->run->client, sub->endpoint, sub->data, &error);

      if (job == NULL)
        {
          g_printerr ("bench-client: submit to %s: %s\n", sub->endpoint, error->message);
          exit (1);
        }
      g_ptr_array_add (sub->jobs, job);
    }
  return sub->jobs->len < sub->count ? G_SOURCE_CONTINUE : G_SOURCE_REMOVE;
}

static void
submitter_free (gpointer data)
{
  Submitter *sub = data;

  json_node_unref (sub->data);
  g_free (sub);
}

/* Submits n jobs, SUBMIT_CHUNK per main-loop turn (the way rivulet-cli load and
 * the app's burst do it; handing libsoup thousands of joins in one turn is a
 * different, much slower, case — see the report). Returns the array the jobs
 * (new references) are added to as they are submitted. */
static GPtrArray *
submit (Run        *run,
        const char *endpoint,
        const char *data_json,
        guint       n)
{
  Submitter *sub = g_new0 (Submitter, 1);
  GPtrArray *jobs = g_ptr_array_new_full (n, g_object_unref);

  sub->run = run;
  sub->data = json_from_string (data_json, NULL);
  sub->endpoint = endpoint;
  sub->jobs = jobs;
  sub->count = n;
  run->n_target += n;

  /* The first chunk at once; the rest from the main loop. */
  if (submit_chunk_cb (sub))
    g_idle_add_full (G_PRIORITY_DEFAULT_IDLE, submit_chunk_cb, sub, submitter_free);
  else
    submitter_free (sub);
  return jobs;
}

/* stream --------------------------------------------------------------------------------- */

static int
run_stream (const char *url,
            guint       count,
            guint       n_jobs,
            double      timeout)
{
  g_autoptr(RivClient) client = NULL;
  g_autoptr(GPtrArray) jobs = NULL;
  g_autoptr(GString) expected = g_string_new (NULL);
  g_autofree char *data = g_strdup_printf ("[%u]", count);
  Run run = { 0 };
  guint verified = 0;
  guint64 messages;
  double start, wall, cpu;

  for (guint i = 1; i <= count; i++)
    g_string_append_printf (expected, i == 1 ? "%u" : "\n%u", i);

  client = connect_client (url, &run);
  start = bench_now ();
  cpu = bench_process_cpu ();
  jobs = submit (&run, "rapid_generation", data, n_jobs);
  wait_all (&run, timeout);
  wall = run.last_finished_at - start;
  cpu = bench_process_cpu () - cpu;
  messages = riv_client_get_n_messages (client);

  for (guint i = 0; i < jobs->len; i++)
    {
      RivJob *job = g_ptr_array_index (jobs, i);
      const char *text = riv_job_get_output_text (job);

      if (riv_job_get_status (job) == RIV_JOB_STATUS_COMPLETED && text != NULL &&
          strcmp (text, expected->str) == 0)
        verified++;
      else if (i < 3)
        g_printerr ("bench-client: job %u ended %s with %zu bytes of text (expected %zu)\n", i,
                    riv_job_status_to_string (riv_job_get_status (job)), text ? strlen (text) : 0,
                    expected->len);
    }

  g_print ("{\"bench\":\"stream\",\"count\":%u,\"jobs\":%u,\"finished\":%u,\"completed\":%u,"
           "\"verified\":%u,\"messages\":%" G_GUINT64_FORMAT ",\"updates\":%" G_GUINT64_FORMAT
           ",\"wall_s\":%.4f,\"updates_per_s\":%.0f,\"client_cpu_s\":%.3f}\n",
           count, n_jobs, run.n_finished, run.n_completed, verified, messages,
           (guint64) count * n_jobs, wall, run.n_finished ? (double) count * n_jobs / wall : 0, cpu);

  riv_client_close (client);
  return verified == n_jobs ? 0 : 1;
}

/* memory --------------------------------------------------------------------------------- */

static gsize
process_rss (int pid)
{
  g_autofree char *path = g_strdup_printf ("/proc/%d/status", pid);
  g_autofree char *contents = NULL;
  const char *line;

  if (!g_file_get_contents (path, &contents, NULL, NULL))
    return 0;
  line = strstr (contents, "\nVmRSS:");
  if (line == NULL)
    return 0;
  return (gsize) g_ascii_strtoull (line + strlen ("\nVmRSS:"), NULL, 10) * 1024;
}

static gboolean
never (gpointer user_data)
{
  return FALSE;
}

/* Lets the main loop run for seconds (timers, stream ends, idle callbacks). */
static void
idle_for (double seconds)
{
  bench_wait_until (never, NULL, seconds);
}

static int
run_memory (const char *url,
            guint       count,
            int         server_pid,
            double      idle_s,
            double      timeout)
{
  g_autoptr(RivClient) client = NULL;
  g_autoptr(GPtrArray) warm = NULL;
  g_autoptr(GPtrArray) jobs = NULL;
  g_autoptr(GString) server_samples = g_string_new ("[");
  Run run = { 0 };
  gsize rss_before, rss_after, rss_cleared;
  gsize server_before = 0, server_peak = 0, server_after = 0;
  double start, wall;
  guint n_items;

  client = connect_client (url, &run);

  /* Warm up: the session, its connections, type classes and caches exist
   * before the baseline is taken. */
  warm = submit (&run, "batch_echo", "[\"\", 0]", 200);
  wait_all (&run, timeout);
  g_clear_pointer (&warm, g_ptr_array_unref);
  riv_client_clear_finished (client);
  idle_for (1.0);
  malloc_trim (0);
  rss_before = bench_self_rss ();
  if (server_pid > 0)
    server_before = process_rss (server_pid);

  start = bench_now ();
  jobs = submit (&run, "batch_echo", "[\"\", 0]", count);
  wait_all (&run, timeout);
  wall = run.last_finished_at - start;
  if (server_pid > 0)
    server_peak = process_rss (server_pid);

  /* Our references are not what is measured: the client's list keeps the jobs. */
  g_clear_pointer (&jobs, g_ptr_array_unref);
  n_items = g_list_model_get_n_items (riv_client_get_jobs (client));
  idle_for (1.0);
  malloc_trim (0);
  rss_after = bench_self_rss ();

  riv_client_clear_finished (client);
  idle_for (0.2);
  malloc_trim (0);
  rss_cleared = bench_self_rss ();

  /* The server: its session's stream ends after the close linger; sample its
   * RSS for idle_s seconds and keep the last value. */
  riv_client_close (client);
  g_clear_object (&client);
  if (server_pid > 0)
    {
      double until = bench_now () + idle_s;

      while (bench_now () < until)
        {
          idle_for (0.5);
          server_after = process_rss (server_pid);
          g_string_append_printf (server_samples, "%s%" G_GSIZE_FORMAT,
                                  server_samples->len > 1 ? "," : "", server_after / 1024);
        }
    }
  g_string_append_c (server_samples, ']');

  g_print ("{\"bench\":\"memory\",\"count\":%u,\"finished\":%u,\"completed\":%u,\"kept_jobs\":%u,"
           "\"wall_s\":%.3f,\"client_rss_before\":%" G_GSIZE_FORMAT ",\"client_rss_after\":%"
           G_GSIZE_FORMAT ",\"client_rss_cleared\":%" G_GSIZE_FORMAT ",\"client_bytes_per_job\":%.0f,"
           "\"server_rss_before\":%" G_GSIZE_FORMAT ",\"server_rss_peak\":%" G_GSIZE_FORMAT
           ",\"server_rss_after\":%" G_GSIZE_FORMAT ",\"server_after_samples_kib\":%s}\n",
           count, run.n_finished - 200, run.n_completed - 200, n_items, wall, rss_before, rss_after,
           rss_cleared, ((double) rss_after - (double) rss_before) / count, server_before,
           server_peak, server_after, server_samples->str);
  return run.n_completed == run.n_target ? 0 : 1;
}

int
main (int   argc,
      char *argv[])
{
  g_autoptr(GOptionContext) context = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *url = NULL;
  int count = 1000;
  int jobs = 1;
  int server_pid = 0;
  double idle_s = 5;
  double timeout = 600;
  const GOptionEntry entries[] = {
    { "url", 'u', 0, G_OPTION_ARG_STRING, &url, "Server base URL", "URL" },
    { "count", 'n', 0, G_OPTION_ARG_INT, &count, "stream: updates per job; memory: jobs", "N" },
    { "jobs", 'j', 0, G_OPTION_ARG_INT, &jobs, "stream: concurrent jobs (default 1)", "J" },
    { "server-pid", 0, 0, G_OPTION_ARG_INT, &server_pid, "memory: sample this server's VmRSS", "PID" },
    { "idle", 0, 0, G_OPTION_ARG_DOUBLE, &idle_s, "memory: seconds to watch the idle server (default 5)", "S" },
    { "timeout", 't', 0, G_OPTION_ARG_DOUBLE, &timeout, "Hang guard in seconds (default 600)", "S" },
    { NULL }
  };

  context = g_option_context_new ("stream|memory — RivClient benchmarks (issue #7 items 3, 5)");
  g_option_context_add_main_entries (context, entries, NULL);
  if (!g_option_context_parse (context, &argc, &argv, &error) || argc != 2 || url == NULL)
    {
      g_printerr ("bench-client: %s\n", error ? error->message : "need stream|memory and --url");
      return 2;
    }

  if (strcmp (argv[1], "stream") == 0)
    return run_stream (url, MAX (count, 1), MAX (jobs, 1), timeout);
  if (strcmp (argv[1], "memory") == 0)
    return run_memory (url, MAX (count, 1), server_pid, idle_s, timeout);

  g_printerr ("bench-client: unknown mode \"%s\"\n", argv[1]);
  return 2;
}
