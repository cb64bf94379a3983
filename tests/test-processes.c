/* test-processes.c
 * Copyright 2026 The Rivulet authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * rivulet-cli load --processes N against the embedded server: the jobs of
 * the worker processes counted as one run's (the summary's counts those of
 * one process, each job number once in --output), each scenario's figures,
 * a failing threshold, --until-break naming the breakpoint with the users of
 * every process, --metrics served by the parent with the merged count, a
 * worker killed mid-run failing the run instead of hanging it, the live
 * lint's findings of the workers' sessions in the summary, the workers
 * started on the parent's allocator or by the program RIVULET_WORKER_PROGRAM
 * names, a run with its workers under valgrind's memcheck, and bad values
 * refused.
 */
#include "config.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <glib/gstdio.h>
#include <libsoup/soup.h>

#include "riv-json.h"
#include "riv-replay.h"
#include "riv-test-served.h"
#include "riv-test-util.h"

typedef RivTestServed Fixture;

static gint64
member_int (JsonNode   *summary,
            const char *name)
{
  g_assert_nonnull (summary);
  return json_object_get_int_member (json_node_get_object (summary), name);
}

/* 8 users, 5 jobs each, in 2 processes: 40 jobs counted once, the records
 * numbered 1..40 each once, the counts those of one process. */
static void
test_counts (Fixture       *fx,
             gconstpointer  data)
{
  g_autofree char *path = g_build_filename (fx->dir, "jobs.jsonl", NULL);
  const char *args[] = { "--endpoint", "batch_echo", "--users", "8", "--iterations", "5",
                         "--processes", "2", "--json", "--output", path, NULL };
  const char *one[] = { "--endpoint", "batch_echo", "--users", "8", "--iterations", "5",
                        "--processes", "1", "--json", NULL };
  g_autoptr(JsonNode) summary = NULL;
  g_autoptr(JsonNode) single = NULL;
  g_autofree char *err = NULL, *err1 = NULL, *text = NULL;
  g_auto(GStrv) lines = NULL;
  gboolean seen[41] = { FALSE };
  guint n = 0;

  g_assert_cmpint (riv_test_served_load (fx, args, &summary, &err), ==, 0);
  g_assert_cmpint (member_int (summary, "submitted"), ==, 40);
  g_assert_cmpint (member_int (summary, "completed"), ==, 40);
  g_assert_cmpint (member_int (summary, "users"), ==, 8);
  g_assert_cmpint (member_int (summary, "processes"), ==, 2);

  g_assert_true (g_file_get_contents (path, &text, NULL, NULL));
  lines = g_strsplit (text, "\n", -1);
  for (guint i = 0; lines[i] != NULL; i++)
    {
      g_autoptr(JsonNode) record = NULL;
      gint64 index;

      if (*lines[i] == '\0')
        continue;
      record = riv_json_parse (NULL, lines[i], -1, 0, NULL);
      g_assert_nonnull (record);
      index = json_object_get_int_member (json_node_get_object (record), "index");
      g_assert_cmpint (index, >=, 1);
      g_assert_cmpint (index, <=, 40);
      g_assert_false (seen[index]);
      seen[index] = TRUE;
      n++;
    }
  g_assert_cmpuint (n, ==, 40);

  g_assert_cmpint (riv_test_served_load (fx, one, &single, &err1), ==, 0);
  g_assert_cmpint (member_int (single, "submitted"), ==, member_int (summary, "submitted"));
  g_assert_cmpint (member_int (single, "completed"), ==, member_int (summary, "completed"));
  g_assert_cmpint (member_int (single, "users"), ==, member_int (summary, "users"));
  g_assert_cmpint (member_int (single, "processes"), ==, 1);
}

/* Scenarios in 3 processes: each scenario's figures, summing to the run's. */
static void
test_scenarios (Fixture       *fx,
                gconstpointer  data)
{
  g_autofree char *file = g_build_filename (fx->dir, "s.json", NULL);
  const char *args[] = { "--scenarios", file, "--processes", "3", "--json", NULL };
  g_autoptr(JsonNode) summary = NULL;
  g_autofree char *err = NULL;
  JsonObject *scenarios;
  gint64 a, b;

  g_assert_true (g_file_set_contents (file,
    "{\"users\": 6, \"iterations\": 4, \"scenarios\": {"
    " \"a\": {\"endpoint\": \"batch_echo\", \"data\": [\"a {i}\", 0]},"
    " \"b\": {\"endpoint\": \"batch_echo\", \"data\": [\"b {i}\", 0]}}}", -1, NULL));
  g_assert_cmpint (riv_test_served_load (fx, args, &summary, &err), ==, 0);
  g_assert_cmpint (member_int (summary, "completed"), ==, 24);
  scenarios = json_object_get_object_member (json_node_get_object (summary), "scenarios");
  g_assert_nonnull (scenarios);
  a = json_object_get_int_member (json_object_get_object_member (scenarios, "a"), "completed");
  b = json_object_get_int_member (json_object_get_object_member (scenarios, "b"), "completed");
  g_assert_cmpint (a + b, ==, 24);
  g_assert_cmpint (a, >, 0);
  g_assert_cmpint (b, >, 0);
}

/* A threshold that cannot hold: exit 1, named in the summary. */
static void
test_threshold (Fixture       *fx,
                gconstpointer  data)
{
  const char *args[] = { "--endpoint", "batch_echo", "--users", "4", "--iterations", "2",
                         "--processes", "2", "--threshold", "completed>=100", NULL };
  g_autofree char *out = NULL, *err = NULL;
  const char *argv[] = { "load", "--url", fx->url, args[0], args[1], args[2], args[3],
                         args[4], args[5], args[6], args[7], args[8], args[9], NULL };
  int status = riv_test_run_cli (argv, &out, &err, 120);

  g_test_message ("%s%s", out, err);
  g_assert_cmpint (status, ==, 1);
  g_assert_nonnull (strstr (out, "✗ completed>=100"));
  g_assert_nonnull (strstr (out, "completed  8\n"));
}

/* --until-break: 2.5 s jobs against p95<1s break as the first ones end,
 * with 5 to 8 users on the ramp, more than either process had. */
static void
test_until_break (Fixture       *fx,
                  gconstpointer  data)
{
  const char *args[] = { "--endpoint", "stream_text", "--data", "[\"s\", 5, 0.5]",
                         "--stages", "4s:8,20s:8", "--until-break", "--threshold", "p95<1s",
                         "--processes", "2", "--json", NULL };
  g_autoptr(JsonNode) summary = NULL;
  g_autofree char *err = NULL;
  JsonObject *bp;

  g_assert_cmpint (riv_test_served_load (fx, args, &summary, &err), ==, 0);
  g_assert_nonnull (summary);
  bp = json_object_get_object_member (json_node_get_object (summary), "breakpoint");
  g_assert_nonnull (bp);
  g_assert_true (g_str_has_prefix (json_object_get_string_member (bp, "reason"),
                                   "latency p95 went over 1.000s"));
  g_assert_cmpint (json_object_get_int_member (bp, "users"), >=, 5);
  g_assert_cmpint (json_object_get_int_member (bp, "users"), <=, 8);
  g_assert_cmpfloat (json_object_get_double_member (bp, "t_s"), <, 15);
}

/* A rivulet-cli running on its own while the test's main context turns. */
typedef struct
{
  GSubprocess *process;
  GString     *err;
  gboolean     done;
  char        *metrics_url;
} Running;

static void
err_line_cb (GObject      *object,
             GAsyncResult *result,
             gpointer      user_data)
{
  Running *running = user_data;
  gsize length;
  char *line = g_data_input_stream_read_line_finish_utf8 (G_DATA_INPUT_STREAM (object), result,
                                                          &length, NULL);
  const char *at;

  if (line == NULL)
    {
      running->done = TRUE;
      return;
    }
  g_string_append_printf (running->err, "%s\n", line);
  if ((at = strstr (line, "metrics at ")) != NULL && running->metrics_url == NULL)
    running->metrics_url = g_strdup (at + strlen ("metrics at "));
  g_free (line);
  g_data_input_stream_read_line_async (G_DATA_INPUT_STREAM (object), G_PRIORITY_DEFAULT, NULL,
                                       err_line_cb, running);
}

static void
running_start (Running            *running,
               Fixture            *fx,
               const char * const *args)
{
  g_autoptr(GPtrArray) argv = riv_test_load_argv (g_getenv ("RIVULET_CLI"), fx->url, args);
  g_autoptr(GSubprocessLauncher) launcher =
    g_subprocess_launcher_new (G_SUBPROCESS_FLAGS_STDERR_PIPE);
  g_autofree char *out = g_build_filename (fx->dir, "out.txt", NULL);
  GDataInputStream *err;

  g_subprocess_launcher_set_stdout_file_path (launcher, out);
  running->err = g_string_new (NULL);
  running->process = g_subprocess_launcher_spawnv (launcher,
                                                   (const char * const *) argv->pdata, NULL);
  g_assert_nonnull (running->process);
  err = g_data_input_stream_new (g_subprocess_get_stderr_pipe (running->process));
  g_data_input_stream_read_line_async (err, G_PRIORITY_DEFAULT, NULL, err_line_cb, running);
  g_object_unref (err);
}

static void
flag_cb (gpointer user_data)
{
  *(gboolean *) user_data = TRUE;
}

/* Turns the main context until *flag or the time is up; FALSE: it was up. */
static gboolean
iterate_until (gboolean *flag,
               double    seconds)
{
  gboolean late = FALSE;
  guint id = g_timeout_add_once ((guint) (seconds * 1000), flag_cb, &late);

  while (!*flag && !late)
    g_main_context_iteration (NULL, TRUE);
  if (!late)
    g_source_remove (id);
  return *flag;
}

/* Waits for the process's end (and its standard error's); its exit status. */
static int
running_finish (Running *running,
                double   seconds)
{
  int status;

  g_assert_true (iterate_until (&running->done, seconds));
  g_assert_true (g_subprocess_wait (running->process, NULL, NULL));
  g_test_message ("%s", running->err->str);
  status = g_subprocess_get_exit_status (running->process);
  g_clear_object (&running->process);
  return status;
}

static void
running_clear (Running *running)
{
  if (running->process != NULL)
    g_subprocess_force_exit (running->process);
  g_clear_object (&running->process);
  if (running->err != NULL)
    g_string_free (running->err, TRUE);
  g_free (running->metrics_url);
}

static void
got_cb (GObject      *object,
        GAsyncResult *result,
        gpointer      user_data)
{
  GBytes **slot = user_data;

  *slot = soup_session_send_and_read_finish (SOUP_SESSION (object), result, NULL);
  if (*slot == NULL)
    *slot = g_bytes_new (NULL, 0);
}

/* One scrape of the metrics page (empty when the request failed). */
static GBytes *
scrape (const char *url)
{
  g_autoptr(SoupSession) session = soup_session_new ();
  g_autoptr(SoupMessage) message = soup_message_new ("GET", url);
  GBytes *body = NULL;

  soup_session_send_and_read_async (session, message, G_PRIORITY_DEFAULT, NULL, got_cb, &body);
  while (body == NULL)
    g_main_context_iteration (NULL, TRUE);
  return body;
}

/* A value of one scrape's body, -1 when it has none. */
static double
metric (GBytes     *body,
        const char *name)
{
  g_autofree char *text = g_strndup (g_bytes_get_data (body, NULL), g_bytes_get_size (body));
  g_auto(GStrv) lines = g_strsplit (text != NULL ? text : "", "\n", -1);

  for (guint i = 0; lines[i] != NULL; i++)
    if (g_str_has_prefix (lines[i], name) && lines[i][strlen (name)] == ' ')
      return g_ascii_strtod (lines[i] + strlen (name) + 1, NULL);
  return -1;
}

#define COMPLETED "rivulet_jobs_finished_total{outcome=\"completed\"}"

/* --metrics from the parent: the jobs of both processes in its count, live
 * while the run goes, and all 40 of them at the end, with the messages and
 * bytes both processes' streams received (at least two messages a job) and
 * no stream left open. */
static void
test_metrics (Fixture       *fx,
              gconstpointer  data)
{
  const char *args[] = { "--endpoint", "batch_echo", "--data", "[\"x\", 0.05]", "--users", "4",
                         "--iterations", "10", "--think", "0.2", "--processes", "2",
                         "--metrics", "127.0.0.1:0", NULL };
  Running running = { 0 };
  double live = -1, last = -1, messages = -1, bytes = -1, open = -1;
  gboolean never = FALSE;

  running_start (&running, fx, args);
  while (running.metrics_url == NULL && !running.done)
    g_main_context_iteration (NULL, TRUE);
  g_assert_nonnull (running.metrics_url);
  /* Both processes' jobs come in as the run goes. */
  for (guint i = 0; i < 40 && !running.done && !(live > 4 && live < 40); i++)
    {
      g_autoptr(GBytes) body = NULL;

      iterate_until (&never, 0.25);
      body = scrape (running.metrics_url);
      live = metric (body, COMPLETED);
    }
  g_assert_cmpfloat (live, >, 4);
  g_assert_cmpfloat (live, <, 40);
  while (!running.done)
    {
      /* One scrape for all of them: the last one may be the server's last answer. */
      g_autoptr(GBytes) body = scrape (running.metrics_url);
      double value = metric (body, COMPLETED);

      if (value >= 0)
        {
          last = value;
          messages = metric (body, "rivulet_stream_messages_total");
          bytes = metric (body, "rivulet_stream_received_bytes_total");
          open = metric (body, "rivulet_open_streams");
        }
      iterate_until (&never, 0.2);
    }
  g_assert_cmpint (running_finish (&running, 60), ==, 0);
  g_assert_cmpfloat (last, ==, 40);
  g_assert_cmpfloat (messages, >=, 80);
  g_assert_cmpfloat (bytes, >, messages * 20);
  g_assert_cmpfloat (open, ==, 0);
  running_clear (&running);
}

static GArray *
children_of (GPid parent)
{
  GArray *pids = g_array_new (FALSE, FALSE, sizeof (GPid));
  g_autoptr(GDir) dir = g_dir_open ("/proc", 0, NULL);
  const char *name;

  while (dir != NULL && (name = g_dir_read_name (dir)) != NULL)
    {
      g_autofree char *path = g_build_filename ("/proc", name, "stat", NULL);
      g_autofree char *stat = NULL;
      const char *close;
      int ppid = 0;

      if (!g_ascii_isdigit (*name) || !g_file_get_contents (path, &stat, NULL, NULL))
        continue;
      close = strrchr (stat, ')');
      if (close != NULL && sscanf (close + 2, "%*c %d", &ppid) == 1 && ppid == parent)
        {
          GPid pid = atoi (name);

          g_array_append_val (pids, pid);
        }
    }
  return pids;
}

/* The running process's n workers, once they are all there. */
static GArray *
workers_of (Running *running,
            guint    n)
{
  GPid parent = atoi (g_subprocess_get_identifier (running->process));
  GArray *pids = NULL;
  gboolean never = FALSE;

  for (guint i = 0; i < 100; i++)
    {
      g_clear_pointer (&pids, g_array_unref);
      pids = children_of (parent);
      if (pids->len == n)
        break;
      iterate_until (&never, 0.1);
    }
  g_assert_cmpuint (pids->len, ==, n);
  return pids;
}

/* A worker killed mid-run: the run ends soon, fails and says which. */
static void
test_killed_worker (Fixture       *fx,
                    gconstpointer  data)
{
  const char *args[] = { "--endpoint", "batch_echo", "--data", "[\"x\", 0.1]", "--users", "4",
                         "--duration", "30", "--processes", "2", NULL };
  Running running = { 0 };
  g_autoptr(GArray) pids = NULL;
  gboolean never = FALSE;
  double start;

  running_start (&running, fx, args);
  pids = workers_of (&running, 2);
  iterate_until (&never, 1.5);
  start = g_get_monotonic_time () / 1e6;
  g_assert_cmpint (kill (g_array_index (pids, GPid, 0), SIGKILL), ==, 0);
  g_assert_cmpint (running_finish (&running, 20), ==, 1);
  g_assert_cmpfloat (g_get_monotonic_time () / 1e6 - start, <, 15);
  g_assert_nonnull (strstr (running.err->str, "was killed by signal 9"));
  running_clear (&running);
}

/* --json's live lint watches the workers' sessions too: a replayed server
 * whose one recorded stream carries a bad frame (tests/data/lint), two users
 * in two processes, one of them getting that stream (the other is refused:
 * the recording has no second join). The summary's lint has the finding,
 * which only a worker's session saw. */
static void
test_lint (Fixture       *fx,
           gconstpointer  data)
{
  g_autofree char *path = g_test_build_filename (G_TEST_DIST, "data", "lint", "bad-frame.jsonl",
                                                 NULL);
  g_autoptr(GError) error = NULL;
  g_autoptr(RivReplay) replay = riv_replay_new_from_file (path, &error);
  g_autofree char *url = NULL;
  g_autofree char *out = NULL;
  g_autofree char *err = NULL;
  g_autoptr(JsonNode) summary = NULL;
  JsonArray *lint;
  guint bad_frames = 0;

  g_assert_no_error (error);
  riv_replay_set_speed (replay, 0);
  g_assert_true (riv_replay_listen (replay, NULL, 0, &error));
  g_assert_no_error (error);
  url = riv_replay_dup_url (replay);
  {
    const char *args[] = { "load", "--url", url, "--endpoint", "generate", "--users", "2",
                           "--iterations", "1", "--processes", "2", "--json", NULL };

    /* One job refused: exit 1. */
    g_assert_cmpint (riv_test_run_cli (args, &out, &err, 120), ==, 1);
  }
  g_test_message ("%s%s", out, err);
  summary = riv_json_parse (NULL, out, -1, 0, NULL);
  g_assert_nonnull (summary);
  g_assert_cmpint (member_int (summary, "processes"), ==, 2);
  g_assert_cmpint (member_int (summary, "completed"), ==, 1);
  lint = json_object_get_array_member (json_node_get_object (summary), "lint");
  g_assert_nonnull (lint);
  for (guint i = 0; i < json_array_get_length (lint); i++)
    {
      JsonObject *finding = json_array_get_object_element (lint, i);

      g_assert_nonnull (json_object_get_string_member (finding, "message"));
      bad_frames += g_strcmp0 (json_object_get_string_member (finding, "rule"), "bad-frame") == 0;
    }
  g_assert_cmpuint (bad_frames, ==, 1);
  riv_replay_shutdown (replay);
}

/* Bad values exit 2 with one line naming the option. */
static void
test_bad_values (Fixture       *fx,
                 gconstpointer  data)
{
  static const struct { const char *value; const char *extra; const char *says; } cases[] = {
    { "0", NULL, "--processes 0: expected a number of processes from 1 to 256" },
    { "-3", NULL, "--processes -3: expected" },
    { "5", NULL, "--processes 5 with at most 4 users" },
    { "x", NULL, "--processes" },
    { "2", "--threads=2", "--threads is retired: give --processes N" },
    { "auto ", NULL, "--processes auto : expected" },
  };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      const char *args[] = { "--endpoint", "batch_echo", "--users", "4", "--processes",
                             cases[i].value, cases[i].extra, NULL };
      g_autofree char *err = NULL;

      g_assert_cmpint (riv_test_served_load (fx, args, NULL, &err), ==, 2);
      if (strstr (err, cases[i].says) == NULL)
        g_error ("--processes %s: the error does not say %s:\n%s", cases[i].value,
                 cases[i].says, err);
    }
  {
    const char *args[] = { "--endpoint", "batch_echo", "--count", "4", "--processes", "2",
                           NULL };
    g_autofree char *err = NULL;

    g_assert_cmpint (riv_test_served_load (fx, args, NULL, &err), ==, 2);
    g_assert_nonnull (strstr (err, "the open loop (--count, --rate) sends its jobs in one"));
  }
}

/* The member at a dotted path of the summary, as JSON text ("null" when
 * it is not there). */
static char *
member_text (JsonNode   *summary,
             const char *path)
{
  g_auto(GStrv) names = g_strsplit (path, ".", -1);
  JsonNode *node = summary;

  for (guint i = 0; names[i] != NULL; i++)
    {
      if (!JSON_NODE_HOLDS_OBJECT (node) ||
          !json_object_has_member (json_node_get_object (node), names[i]))
        return g_strdup ("null");
      node = json_object_get_member (json_node_get_object (node), names[i]);
    }
  return riv_json_to_string (node, NULL);
}

/* Without --output the workers send each job's figures in a brief record
 * (riv-job-record.h) rather than its JSON record: the same jobs of the same
 * scenarios (one seed) count the same in both runs: each scenario's ends,
 * the logs by level, the errors by text, the updates, the gaps and the jobs
 * that streamed (not the jobs with a text rate: a job whose updates all come
 * at once has none, as a slow machine may have it). */
static void
test_brief (Fixture       *fx,
            gconstpointer  data)
{
  static const char *const same[] = {
    "completed", "failed", "updates", "logs", "errors", "streaming.jobs_with_first_update",
    "streaming.streamed_jobs", "streaming.gaps",
    "scenarios.logs.completed", "scenarios.fail.failed", "scenarios.text.completed",
  };
  g_autofree char *file = g_build_filename (fx->dir, "s.json", NULL);
  g_autofree char *path = g_build_filename (fx->dir, "jobs.jsonl", NULL);
  const char *records[] = { "--scenarios", file, "--processes", "2", "--seed", "7", "--json",
                            "--output", path, NULL };
  const char *briefs[] = { "--scenarios", file, "--processes", "2", "--seed", "7", "--json",
                           NULL };
  g_autoptr(JsonNode) by_records = NULL;
  g_autoptr(JsonNode) by_briefs = NULL;
  g_autofree char *err = NULL, *err2 = NULL;

  g_assert_true (g_file_set_contents (file,
    "{\"users\": 6, \"iterations\": 4, \"scenarios\": {"
    " \"logs\": {\"endpoint\": \"logs\", \"data\": [6, 0]},"
    " \"fail\": {\"endpoint\": \"shapes_fail\", \"data\": [0]},"
    " \"text\": {\"endpoint\": \"stream_text\", \"data\": [\"s {u} {i}\", 5, 0.01]}}}",
    -1, NULL));
  /* The failing scenario's jobs fail the run (exit 1) in both. */
  g_assert_cmpint (riv_test_served_load (fx, records, &by_records, &err), ==, 1);
  g_assert_cmpint (riv_test_served_load (fx, briefs, &by_briefs, &err2), ==, 1);
  g_assert_cmpint (member_int (by_records, "submitted"), ==, 24);
  g_assert_cmpint (member_int (by_briefs, "submitted"), ==, 24);
  /* Each kind of job is there, so that each figure below is one. */
  g_assert_cmpint (member_int (by_briefs, "failed"), >, 0);
  g_assert_cmpint (member_int (by_briefs, "updates"), >, 24);
  for (guint i = 0; i < G_N_ELEMENTS (same); i++)
    {
      g_autofree char *a = member_text (by_records, same[i]);
      g_autofree char *b = member_text (by_briefs, same[i]);

      g_test_message ("%s: %s", same[i], b);
      g_assert_cmpstr (b, !=, "null");
      g_assert_cmpstr (b, !=, "0");
      g_assert_cmpstr (b, !=, "{}");
      g_assert_cmpstr (b, ==, a);
    }
}

/* The value of name in the environment process pid was started with (by
 * its last exec), NULL when it had none. */
static char *
started_with (GPid        pid,
              const char *name)
{
  g_autofree char *path = g_strdup_printf ("/proc/%d/environ", (int) pid);
  g_autofree char *text = NULL;
  gsize length = 0;

  if (!g_file_get_contents (path, &text, &length, NULL))
    return NULL;
  for (gsize at = 0; at < length; at += strlen (text + at) + 1)
    if (g_str_has_prefix (text + at, name) && text[at + strlen (name)] == '=')
      return g_strdup (text + at + strlen (name) + 1);
  return NULL;
}

/* The workers start on the allocator their parent was re-executed with
 * (riv-malloc.c), its mark saying so: a worker that re-executed itself
 * would have been started again with a mark of its own. */
static void
test_worker_allocator (Fixture       *fx,
                       gconstpointer  data)
{
  const char *args[] = { "--endpoint", "batch_echo", "--data", "[\"x\", 0.1]", "--users", "2",
                         "--duration", "3", "--processes", "2", NULL };
  Running running = { 0 };
  g_autoptr(GArray) pids = NULL;
  g_autofree char *parent_mark = NULL;
  gboolean never = FALSE;

  running_start (&running, fx, args);
  pids = workers_of (&running, 2);
  parent_mark = started_with (atoi (g_subprocess_get_identifier (running.process)),
                              "RIVULET_REEXECUTED");
  if (parent_mark == NULL)
    {
      /* RIVULET_NO_REEXEC=1, or nothing to change on this system. */
      g_test_skip ("the parent did not re-execute itself for its allocator");
      g_assert_cmpint (running_finish (&running, 30), ==, 0);
      running_clear (&running);
      return;
    }
  for (guint k = 0; k < pids->len; k++)
    {
      g_autofree char *mark = NULL;

      /* Between its fork and its exec, it has its parent's environment. */
      for (guint i = 0; i < 50 && mark == NULL; i++)
        {
          mark = started_with (g_array_index (pids, GPid, k), "RIVULET_REEXECUTED");
          if (mark == NULL)
            iterate_until (&never, 0.05);
        }
      g_test_message ("parent: %s; worker %u: %s", parent_mark, k + 1, mark);
      g_assert_nonnull (mark);
      g_assert_nonnull (strstr (mark, "parent"));
      g_assert_true (g_str_has_prefix (mark, parent_mark));
    }
  g_assert_cmpint (running_finish (&running, 30), ==, 0);
  running_clear (&running);
}

/* RIVULET_WORKER_PROGRAM: the workers run the program it names (here a
 * script that notes each start, then runs rivulet-cli), and a value that is
 * no program to run is a usage error before any worker starts. */
static void
test_worker_program (Fixture       *fx,
                     gconstpointer  data)
{
  g_autofree char *script = g_build_filename (fx->dir, "worker.sh", NULL);
  g_autofree char *starts = g_build_filename (fx->dir, "starts.txt", NULL);
  g_autofree char *cli = g_canonicalize_filename (g_getenv ("RIVULET_CLI"), NULL);
  g_autofree char *text = g_strdup_printf ("#!/bin/sh\necho \"$1\" >>'%s'\nexec '%s' \"$@\"\n",
                                           starts, cli);
  g_autofree char *env = g_strdup_printf ("RIVULET_WORKER_PROGRAM=%s", script);
  const char *argv[] = { "load", "--url", fx->url, "--endpoint", "batch_echo", "--users", "4",
                         "--iterations", "2", "--processes", "2", "--json", NULL };
  const char *bad[] = { "RIVULET_WORKER_PROGRAM=worker.sh", "RIVULET_WORKER_PROGRAM=/",
                        "RIVULET_WORKER_PROGRAM=/nonexistent/rivulet-cli" };
  g_autofree char *out = NULL, *err = NULL, *started = NULL;
  g_autoptr(JsonNode) summary = NULL;
  g_auto(GStrv) lines = NULL;

  g_assert_true (g_file_set_contents (script, text, -1, NULL));
  g_assert_cmpint (g_chmod (script, 0755), ==, 0);
  g_assert_cmpint (riv_test_run_cli_env (env, argv, &out, &err, 120), ==, 0);
  g_test_message ("%s", err);
  summary = riv_json_parse (NULL, out, -1, 0, NULL);
  g_assert_cmpint (member_int (summary, "completed"), ==, 8);
  g_assert_cmpint (member_int (summary, "processes"), ==, 2);
  /* Each worker was started by way of the script, with load's arguments. */
  g_assert_true (g_file_get_contents (starts, &started, NULL, NULL));
  lines = g_strsplit (started, "\n", -1);
  g_assert_cmpuint (g_strv_length (lines), ==, 3);
  g_assert_cmpstr (lines[0], ==, "load");
  g_assert_cmpstr (lines[1], ==, "load");

  for (guint i = 0; i < G_N_ELEMENTS (bad); i++)
    {
      g_autofree char *out2 = NULL, *err2 = NULL, *again = NULL;

      g_assert_cmpint (riv_test_run_cli_env (bad[i], argv, &out2, &err2, 120), ==, 2);
      g_test_message ("%s: %s", bad[i], err2);
      g_assert_nonnull (strstr (err2, "RIVULET_WORKER_PROGRAM"));
      g_assert_nonnull (strstr (err2, "absolute path"));
      /* No worker started: the script saw no more starts. */
      g_assert_true (g_file_get_contents (starts, &again, NULL, NULL));
      g_assert_cmpstr (again, ==, started);
    }
}

/* A run in two processes under valgrind's memcheck, the parent and both
 * workers (RIVULET_WORKER_PROGRAM lets valgrind follow them): a streaming
 * endpoint with --output and the live lint, no error in any process (one
 * with an error exits 1, and a worker that does fails the run), every job
 * counted and written. */
static void
test_under_valgrind (Fixture       *fx,
                     gconstpointer  data)
{
#if defined(__SANITIZE_ADDRESS__)
  g_test_skip ("built with AddressSanitizer, whose programs valgrind cannot run");
#else
  g_autofree char *valgrind = g_find_program_in_path ("valgrind");
  g_autofree char *cli = g_canonicalize_filename (g_getenv ("RIVULET_CLI"), NULL);
  g_autofree char *records = g_build_filename (fx->dir, "jobs.jsonl", NULL);
  g_autofree char *glib_supp = g_strdup ("--suppressions=/usr/share/glib-2.0/valgrind/glib.supp");
  g_autofree char *own_supp = g_strconcat ("--suppressions=",
                                           g_test_get_filename (G_TEST_DIST, "valgrind.supp", NULL),
                                           NULL);
  g_autofree char *output = g_strconcat ("--output=", records, NULL);
  g_autofree char *env = g_strdup_printf ("RIVULET_WORKER_PROGRAM=%s\nG_SLICE=always-malloc", cli);
  g_autofree char *out = NULL, *err = NULL, *text = NULL;
  g_autoptr(JsonNode) summary = NULL;
  g_auto(GStrv) lines = NULL;
  guint n = 0;

  if (valgrind == NULL)
    {
      g_test_skip ("valgrind is not installed (.ci/deps installs it for the tests)");
      return;
    }
  {
    const char *argv[] = { valgrind, "--trace-children=yes", "--error-exitcode=1", "--quiet",
                           glib_supp, own_supp, cli, "load", "--url", fx->url,
                           "--endpoint", "stream_text", "--data", "[\"story\", 6, 0.01]",
                           "--users", "6", "--iterations", "3", "--processes", "2", "--json",
                           output, NULL };

    g_assert_cmpint (riv_test_run_env (env, argv, &out, &err, 120), ==, 0);
  }
  g_test_message ("%s", err);
  summary = riv_json_parse (NULL, out, -1, 0, NULL);
  g_assert_cmpint (member_int (summary, "completed"), ==, 18);
  g_assert_cmpint (member_int (summary, "processes"), ==, 2);
  g_assert_cmpint (member_int (summary, "updates"), >=, 18 * 6);
  g_assert_true (g_file_get_contents (records, &text, NULL, NULL));
  lines = g_strsplit (text, "\n", -1);
  for (guint i = 0; lines[i] != NULL; i++)
    n += *lines[i] != '\0';
  g_assert_cmpuint (n, ==, 18);
#endif
}

int
main (int    argc,
      char **argv)
{
  g_test_init (&argc, &argv, NULL);

#define ADD(path, func) \
  g_test_add (path, Fixture, "riv-test-processes", riv_test_served_setup, func, \
              riv_test_served_teardown)
  ADD ("/processes/counts", test_counts);
  ADD ("/processes/scenarios", test_scenarios);
  ADD ("/processes/threshold", test_threshold);
  ADD ("/processes/until-break", test_until_break);
  ADD ("/processes/metrics", test_metrics);
  ADD ("/processes/killed-worker", test_killed_worker);
  ADD ("/processes/bad-values", test_bad_values);
  ADD ("/processes/brief", test_brief);
  ADD ("/processes/lint", test_lint);
  ADD ("/processes/worker-allocator", test_worker_allocator);
  ADD ("/processes/worker-program", test_worker_program);
  ADD ("/processes/under-valgrind", test_under_valgrind);
#undef ADD
  return g_test_run ();
}
