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
 *   bench-client raw --url URL --count N --jobs J [--parse-reps R]
 *     Issue #7 item 3, the ceilings: the same J x rapid_generation(N) stream
 *     read by a raw byte-draining reader (plain libsoup, one session, no JSON:
 *     it only splits frames at "\n\n" and counts them), which gives the
 *     server's emission rate that no client can beat; then json-glib alone
 *     (a reused JsonParser) parsing the very frames it recorded, R times, on
 *     one core (thread CPU time): the most a client that parses every frame
 *     with json-glib on one thread can deliver.
 *   bench-client memory --url URL --count N [--server-pid PID]
 *     Issue #7 item 5: RSS of this process before and after a burst of N
 *     batch_echo jobs with empty text (so outputs weigh nothing), after
 *     malloc_trim(), divided by N: the client's memory per finished job. With
 *     --server-pid it also samples the server's VmRSS before the burst and
 *     while it goes idle afterwards, split into RssAnon (its own heap,
 *     stacks, anonymous maps) and RssFile (library pages it has touched);
 *     with --server-log (the server's stderr) and gdb, also glibc's count of
 *     the server's heap in use at the same two moments.
 *
 * Not a test: timing is reported, never asserted.
 */
#include "config.h"

#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <libsoup/soup.h>

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

/* raw ------------------------------------------------------------------------------------ */

typedef struct
{
  gsize offset;   /* of the JSON text, after "data: " */
  gsize len;
} FrameSpan;

static JsonNode *
http_get_json (SoupSession *session,
               const char  *uri,
               GError     **error)
{
  g_autoptr(SoupMessage) msg = soup_message_new ("GET", uri);
  g_autoptr(GBytes) body = NULL;
  g_autoptr(JsonParser) parser = json_parser_new ();

  if (msg == NULL)
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT, "bad URI %s", uri);
      return NULL;
    }
  body = soup_session_send_and_read (session, msg, NULL, error);
  if (body == NULL)
    return NULL;
  if (soup_message_get_status (msg) != SOUP_STATUS_OK)
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_FAILED, "GET %s: HTTP %u", uri,
                   soup_message_get_status (msg));
      return NULL;
    }
  if (!json_parser_load_from_data (parser, g_bytes_get_data (body, NULL), g_bytes_get_size (body),
                                   error))
    return NULL;
  return json_parser_steal_root (parser);
}

/* POST …/queue/join; TRUE on 200. */
static gboolean
raw_join (SoupSession *session,
          const char  *uri,
          const char  *body_json,
          GError     **error)
{
  g_autoptr(SoupMessage) msg = soup_message_new ("POST", uri);
  g_autoptr(GBytes) request = g_bytes_new (body_json, strlen (body_json));
  g_autoptr(GBytes) reply = NULL;

  soup_message_set_request_body_from_bytes (msg, "application/json", request);
  reply = soup_session_send_and_read (session, msg, NULL, error);
  if (reply == NULL)
    return FALSE;
  if (soup_message_get_status (msg) != SOUP_STATUS_OK)
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_FAILED, "join: HTTP %u",
                   soup_message_get_status (msg));
      return FALSE;
    }
  return TRUE;
}

/* The first "\n\n" in [p, p + len), or NULL. */
static const char *
find_blank_line (const char *p,
                 gsize       len)
{
  const char *end = p + len;

  while (p < end && (p = memchr (p, '\n', end - p)) != NULL)
    {
      if (p + 1 < end && p[1] == '\n')
        return p;
      p++;
    }
  return NULL;
}

static gboolean
frame_is (const char *frame,
          gsize       len,
          const char *msg)
{
  /* The server writes "msg" first (protocol.md §3.3); look a little further
   * in case another server does not. msg is a "\"msg\":\"…\"" literal. */
  return g_strstr_len (frame, MIN (len, 96), msg) != NULL;
}

/* Parses every recorded frame once with one reused parser; CPU seconds of this thread. */
static double
parse_pass (const GString *record,
            GArray        *spans,
            gboolean       immutable)
{
  g_autoptr(JsonParser) parser = immutable ? json_parser_new_immutable () : json_parser_new ();
  double cpu = bench_thread_cpu ();

  for (guint i = 0; i < spans->len; i++)
    {
      const FrameSpan *span = &g_array_index (spans, FrameSpan, i);
      g_autoptr(GError) error = NULL;

      if (!json_parser_load_from_data (parser, record->str + span->offset, span->len, &error))
        {
          g_printerr ("bench-client: recorded frame %u does not parse: %s\n", i, error->message);
          exit (1);
        }
    }
  return bench_thread_cpu () - cpu;
}

static int
run_raw (const char *url,
         guint       count,
         guint       n_jobs,
         guint       parse_reps,
         double      timeout)
{
  g_autoptr(SoupSession) session = NULL;
  g_autoptr(JsonNode) config = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(SoupMessage) stream_msg = NULL;
  g_autoptr(GInputStream) stream = NULL;
  g_autoptr(GString) record = NULL;
  g_autoptr(GArray) spans = g_array_new (FALSE, FALSE, sizeof (FrameSpan));
  g_autofree char *base = g_strdup (url);
  g_autofree char *join_uri = NULL;
  g_autofree char *data_uri = NULL;
  g_autofree char *join_body = NULL;
  g_autofree double *parse_cpu = g_new0 (double, MAX (parse_reps, 1));
  g_autofree double *parse_imm_cpu = g_new0 (double, MAX (parse_reps, 1));
  g_autofree char *parse_json = NULL;
  g_autofree char *parse_imm_json = NULL;
  char session_hash[12];
  const char *prefix = "";
  JsonObject *root;
  JsonArray *deps;
  gint64 fn_index = -1;
  guint64 generating = 0, completed = 0;
  gsize scan = 0;
  double start, end = 0, deadline, parse_med, parse_imm_med;
  guint64 updates = (guint64) count * n_jobs;

  g_strchomp (base);
  while (g_str_has_suffix (base, "/"))
    base[strlen (base) - 1] = '\0';

  /* Plain libsoup, used synchronously: no main loop, nothing but the socket. */
  session = soup_session_new_with_options ("timeout", 0, "max-conns-per-host", 16, NULL);

  {
    g_autofree char *uri = g_strconcat (base, "/config", NULL);

    config = http_get_json (session, uri, &error);
  }
  if (config == NULL || !JSON_NODE_HOLDS_OBJECT (config))
    {
      g_printerr ("bench-client: raw: no config: %s\n", error ? error->message : "not an object");
      return 1;
    }
  root = json_node_get_object (config);
  prefix = json_object_get_string_member_with_default (root, "api_prefix", "");
  if (prefix == NULL)
    prefix = "";
  deps = json_object_has_member (root, "dependencies") ?
    json_object_get_array_member (root, "dependencies") : NULL;
  for (guint i = 0; deps != NULL && i < json_array_get_length (deps); i++)
    {
      JsonObject *dep = json_array_get_object_element (deps, i);

      if (dep != NULL && g_strcmp0 (json_object_get_string_member_with_default (dep, "api_name", ""),
                                    "rapid_generation") == 0)
        fn_index = json_object_get_int_member_with_default (dep, "id", i);
    }
  if (fn_index < 0)
    {
      g_printerr ("bench-client: raw: the server has no rapid_generation endpoint\n");
      return 1;
    }

  for (guint i = 0; i < sizeof session_hash - 1; i++)
    session_hash[i] = "abcdefghijklmnopqrstuvwxyz0123456789"[g_random_int_range (0, 36)];
  session_hash[sizeof session_hash - 1] = '\0';
  join_uri = g_strconcat (base, prefix, "/queue/join", NULL);
  data_uri = g_strdup_printf ("%s%s/queue/data?session_hash=%s", base, prefix, session_hash);
  join_body = g_strdup_printf ("{\"data\":[%u],\"fn_index\":%" G_GINT64_FORMAT
                               ",\"session_hash\":\"%s\"}", count, fn_index, session_hash);
  /* About 300 bytes per update frame; the record grows if needed. */
  record = g_string_sized_new (MIN (updates * 320 + 65536, (guint64) 256 * 1024 * 1024));

  /* As the official client does: the first join, then the stream, then the rest. */
  start = bench_now ();
  deadline = start + timeout;
  if (!raw_join (session, join_uri, join_body, &error))
    {
      g_printerr ("bench-client: raw: %s\n", error->message);
      return 1;
    }
  stream_msg = soup_message_new ("GET", data_uri);
  soup_message_headers_replace (soup_message_get_request_headers (stream_msg), "Accept",
                                "text/event-stream");
  stream = soup_session_send (session, stream_msg, NULL, &error);
  if (stream == NULL || soup_message_get_status (stream_msg) != SOUP_STATUS_OK)
    {
      g_printerr ("bench-client: raw: stream: %s\n",
                  error ? error->message : soup_message_get_reason_phrase (stream_msg));
      return 1;
    }
  for (guint j = 1; j < n_jobs; j++)
    if (!raw_join (session, join_uri, join_body, &error))
      {
        g_printerr ("bench-client: raw: %s\n", error->message);
        return 1;
      }

  /* Drain: split at "\n\n", classify by the "msg" key, no JSON parsing. */
  while (completed < n_jobs)
    {
      const gsize chunk = 64 * 1024;
      gssize n;
      const char *blank;

      if (bench_now () > deadline)
        {
          g_printerr ("bench-client: raw: only %" G_GUINT64_FORMAT " of %u jobs completed after %g s\n",
                      completed, n_jobs, timeout);
          break;
        }
      g_string_set_size (record, record->len + chunk);
      n = g_input_stream_read (stream, record->str + record->len - chunk, chunk, NULL, &error);
      g_string_set_size (record, record->len - chunk + MAX (n, 0));
      if (n <= 0)
        {
          g_printerr ("bench-client: raw: the stream ended after %" G_GUINT64_FORMAT
                      " completions: %s\n", completed, error ? error->message : "EOF");
          break;
        }
      while ((blank = find_blank_line (record->str + scan, record->len - scan)) != NULL)
        {
          const char *frame = record->str + scan;
          gsize len = blank - frame;

          if (len > 6 && strncmp (frame, "data: ", 6) == 0)
            {
              FrameSpan span = { scan + 6, len - 6 };

              g_array_append_val (spans, span);
              if (frame_is (frame, len, "\"msg\":\"process_generating\""))
                generating++;
              else if (frame_is (frame, len, "\"msg\":\"process_completed\""))
                completed++;
            }
          scan = blank - record->str + 2;
        }
      end = bench_now ();
    }
  g_input_stream_close (stream, NULL, NULL);

  /* json-glib alone over the same frames, one core. */
  for (guint r = 0; r < parse_reps; r++)
    {
      parse_cpu[r] = parse_pass (record, spans, FALSE);
      parse_imm_cpu[r] = parse_pass (record, spans, TRUE);
    }
  parse_med = bench_median (parse_cpu, parse_reps);
  parse_imm_med = bench_median (parse_imm_cpu, parse_reps);
  parse_json = bench_json_array (parse_cpu, parse_reps);
  parse_imm_json = bench_json_array (parse_imm_cpu, parse_reps);

  g_print ("{\"bench\":\"raw\",\"count\":%u,\"jobs\":%u,\"frames\":%u,\"generating\":%"
           G_GUINT64_FORMAT ",\"completed\":%" G_GUINT64_FORMAT ",\"complete\":%s,\"bytes\":%"
           G_GSIZE_FORMAT ",\"wall_s\":%.4f,\"frames_per_s\":%.0f,\"updates_per_s\":%.0f,"
           "\"parse_reps\":%u,\"parse_cpu_s\":%s,\"parse_immutable_cpu_s\":%s,"
           "\"parse_fps\":%.0f,\"parse_updates_per_s\":%.0f,\"parse_immutable_updates_per_s\":%.0f}\n",
           count, n_jobs, spans->len, generating, completed,
           completed == n_jobs && generating == updates ? "true" : "false", scan,
           end - start, end > start ? spans->len / (end - start) : 0,
           end > start && completed == n_jobs ? updates / (end - start) : 0, parse_reps, parse_json,
           parse_imm_json, parse_med > 0 ? spans->len / parse_med : 0,
           parse_med > 0 ? updates / parse_med : 0, parse_imm_med > 0 ? updates / parse_imm_med : 0);
  return completed == n_jobs && generating == updates ? 0 : 1;
}

/* memory --------------------------------------------------------------------------------- */

static gsize
process_rss (int pid)
{
  return bench_process_status_bytes (pid, "VmRSS");
}

/* glibc's heap in use (all arenas) in the server: gdb makes it call
 * malloc_stats(), which writes to its stderr, the file log_path; the last
 * "Total" block there is read back. 0 if gdb or the log is missing. */
static gsize
server_heap_in_use (int         pid,
                    const char *log_path)
{
  g_autofree char *pid_text = g_strdup_printf ("%d", pid);
  const char *argv[] = { "gdb", "-p", pid_text, "-batch", "-ex", "call (void) malloc_stats()", NULL };
  g_autofree char *contents = NULL;
  const char *total, *next, *in_use;
  int status = 0;

  if (log_path == NULL ||
      !g_spawn_sync (NULL, (char **) argv, NULL,
                     G_SPAWN_SEARCH_PATH | G_SPAWN_STDOUT_TO_DEV_NULL | G_SPAWN_STDERR_TO_DEV_NULL,
                     NULL, NULL, NULL, NULL, &status, NULL) ||
      !g_spawn_check_wait_status (status, NULL) ||
      !g_file_get_contents (log_path, &contents, NULL, NULL))
    return 0;
  total = NULL;
  for (next = contents; (next = strstr (next, "Total (incl. mmap):")) != NULL; next++)
    total = next;
  if (total == NULL || (in_use = strstr (total, "in use bytes")) == NULL ||
      (in_use = strchr (in_use, '=')) == NULL)
    return 0;
  return (gsize) g_ascii_strtoull (in_use + 1, NULL, 10);
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
            const char *server_log,
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
  gsize server_anon_before = 0, server_file_before = 0, server_anon_after = 0, server_file_after = 0;
  gsize server_heap_before = 0, server_heap_after = 0;
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
    {
      server_before = process_rss (server_pid);
      server_anon_before = bench_process_status_bytes (server_pid, "RssAnon");
      server_file_before = bench_process_status_bytes (server_pid, "RssFile");
      server_heap_before = server_heap_in_use (server_pid, server_log);
    }

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
          server_anon_after = bench_process_status_bytes (server_pid, "RssAnon");
          server_file_after = bench_process_status_bytes (server_pid, "RssFile");
          g_string_append_printf (server_samples, "%s%" G_GSIZE_FORMAT,
                                  server_samples->len > 1 ? "," : "", server_after / 1024);
        }
    }
  g_string_append_c (server_samples, ']');
  if (server_pid > 0)
    server_heap_after = server_heap_in_use (server_pid, server_log);

  g_print ("{\"bench\":\"memory\",\"count\":%u,\"finished\":%u,\"completed\":%u,\"kept_jobs\":%u,"
           "\"wall_s\":%.3f,\"client_rss_before\":%" G_GSIZE_FORMAT ",\"client_rss_after\":%"
           G_GSIZE_FORMAT ",\"client_rss_cleared\":%" G_GSIZE_FORMAT ",\"client_bytes_per_job\":%.0f,"
           "\"server_rss_before\":%" G_GSIZE_FORMAT ",\"server_rss_peak\":%" G_GSIZE_FORMAT
           ",\"server_rss_after\":%" G_GSIZE_FORMAT ",\"server_rss_anon_before\":%" G_GSIZE_FORMAT
           ",\"server_rss_anon_after\":%" G_GSIZE_FORMAT ",\"server_rss_file_before\":%" G_GSIZE_FORMAT
           ",\"server_rss_file_after\":%" G_GSIZE_FORMAT ",\"server_heap_in_use_before\":%" G_GSIZE_FORMAT
           ",\"server_heap_in_use_after\":%" G_GSIZE_FORMAT ",\"server_after_samples_kib\":%s}\n",
           count, run.n_finished - 200, run.n_completed - 200, n_items, wall, rss_before, rss_after,
           rss_cleared, ((double) rss_after - (double) rss_before) / count, server_before,
           server_peak, server_after, server_anon_before, server_anon_after, server_file_before,
           server_file_after, server_heap_before, server_heap_after, server_samples->str);
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
  int parse_reps = 3;
  g_autofree char *server_log = NULL;
  double idle_s = 5;
  double timeout = 600;
  const GOptionEntry entries[] = {
    { "url", 'u', 0, G_OPTION_ARG_STRING, &url, "Server base URL", "URL" },
    { "count", 'n', 0, G_OPTION_ARG_INT, &count, "stream, raw: updates per job; memory: jobs", "N" },
    { "jobs", 'j', 0, G_OPTION_ARG_INT, &jobs, "stream, raw: concurrent jobs (default 1)", "J" },
    { "parse-reps", 0, 0, G_OPTION_ARG_INT, &parse_reps, "raw: json-glib passes over the frames (default 3)", "R" },
    { "server-pid", 0, 0, G_OPTION_ARG_INT, &server_pid, "memory: sample this server's VmRSS", "PID" },
    { "server-log", 0, 0, G_OPTION_ARG_FILENAME, &server_log,
      "memory: the server's stderr, for its heap in use (through gdb)", "PATH" },
    { "idle", 0, 0, G_OPTION_ARG_DOUBLE, &idle_s, "memory: seconds to watch the idle server (default 5)", "S" },
    { "timeout", 't', 0, G_OPTION_ARG_DOUBLE, &timeout, "Hang guard in seconds (default 600)", "S" },
    { NULL }
  };

  context = g_option_context_new ("stream|raw|memory — RivClient benchmarks (issue #7 items 3, 5)");
  g_option_context_add_main_entries (context, entries, NULL);
  if (!g_option_context_parse (context, &argc, &argv, &error) || argc != 2 || url == NULL)
    {
      g_printerr ("bench-client: %s\n", error ? error->message : "need stream|raw|memory and --url");
      return 2;
    }

  if (strcmp (argv[1], "stream") == 0)
    return run_stream (url, MAX (count, 1), MAX (jobs, 1), timeout);
  if (strcmp (argv[1], "raw") == 0)
    return run_raw (url, MAX (count, 1), MAX (jobs, 1), MAX (parse_reps, 1), timeout);
  if (strcmp (argv[1], "memory") == 0)
    return run_memory (url, MAX (count, 1), server_pid, server_log, idle_s, timeout);

  g_printerr ("bench-client: unknown mode \"%s\"\n", argv[1]);
  return 2;
}
