/* test-cli.c
 * Copyright 2026 The Rivulet authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * rivulet-cli as a user runs it: the built program (RIVULET_CLI) against the
 * embedded demo server started in this process on a free loopback port.
 */
#include "config.h"

#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

#include <gdk-pixbuf/gdk-pixbuf.h>
#include <glib/gstdio.h>
#include <libsoup/soup.h>

#include "riv-json.h"
#include "riv-listen.h"
#include "riv-server-test.h"
#include "riv-test-served.h"
#include "riv-test-util.h"

#if defined(__SANITIZE_ADDRESS__)
# define HANG_GUARD 240.0
#else
# define HANG_GUARD 60.0
#endif

typedef RivTestServed Fixture;

typedef RivTestCliRun CliRun;

static void
fixture_setup (Fixture       *fx,
               gconstpointer  data)
{
  riv_test_served_start (fx, NULL, "riv-test-cli");
}

static void
fixture_teardown (Fixture       *fx,
                  gconstpointer  data)
{
  riv_test_served_stop (fx);
}

static char *
path_in (Fixture    *fx,
         const char *name)
{
  return g_build_filename (fx->dir, name, NULL);
}

/* Runs rivulet-cli with the arguments (NULL-terminated) while this process's
 * main context keeps serving. */
static void
run_cli (CliRun     *run,
         const char *first,
         ...)
{
  g_autoptr(GPtrArray) args = g_ptr_array_new ();
  g_autoptr(GSubprocess) process = NULL;
  g_autoptr(GAsyncResult) result = NULL;
  g_autoptr(GError) error = NULL;
  const char *cli = g_getenv ("RIVULET_CLI");
  va_list ap;

  g_assert_nonnull (cli);
  g_ptr_array_add (args, (char *) cli);
  va_start (ap, first);
  for (const char *arg = first; arg != NULL; arg = va_arg (ap, const char *))
    g_ptr_array_add (args, (char *) arg);
  va_end (ap);
  g_ptr_array_add (args, NULL);

  process = g_subprocess_newv ((const char * const *) args->pdata,
                               G_SUBPROCESS_FLAGS_STDOUT_PIPE | G_SUBPROCESS_FLAGS_STDERR_PIPE,
                               &error);
  g_assert_no_error (error);
  g_subprocess_communicate_utf8_async (process, NULL, NULL, riv_test_async_result_cb, &result);
  riv_test_wait_result (&result, HANG_GUARD * 2);
  g_subprocess_communicate_utf8_finish (process, result, &run->out, &run->err, &error);
  g_assert_no_error (error);
  g_subprocess_wait (process, NULL, &error);
  g_assert_no_error (error);
  g_assert_true (g_subprocess_get_if_exited (process));
  run->status = g_subprocess_get_exit_status (process);
}

typedef struct
{
  GSubprocess  *process;
  GAsyncResult *result;
} Running;

/* Starts rivulet-cli without waiting, with one variable of its environment
 * set (name NULL: none); finish with finish_cli(). */
static void
start_cli_with (Running            *running,
                const char * const *args,
                const char         *name,
                const char         *value)
{
  g_autoptr(GSubprocessLauncher) launcher =
    g_subprocess_launcher_new (G_SUBPROCESS_FLAGS_STDOUT_PIPE | G_SUBPROCESS_FLAGS_STDERR_PIPE);
  g_autoptr(GPtrArray) argv = g_ptr_array_new ();
  g_autoptr(GError) error = NULL;

  if (name != NULL)
    g_subprocess_launcher_setenv (launcher, name, value, TRUE);
  g_ptr_array_add (argv, (char *) g_getenv ("RIVULET_CLI"));
  for (guint i = 0; args[i] != NULL; i++)
    g_ptr_array_add (argv, (char *) args[i]);
  g_ptr_array_add (argv, NULL);
  running->process = g_subprocess_launcher_spawnv (launcher, (const char * const *) argv->pdata,
                                                   &error);
  g_assert_no_error (error);
  g_subprocess_communicate_utf8_async (running->process, NULL, NULL,
                                       riv_test_async_result_cb, &running->result);
}

static void
start_cli (Running            *running,
           const char * const *args)
{
  start_cli_with (running, args, NULL, NULL);
}

static void
finish_cli (Running *running,
            CliRun  *run)
{
  g_autoptr(GError) error = NULL;

  riv_test_wait_result (&running->result, HANG_GUARD * 2);
  g_subprocess_communicate_utf8_finish (running->process, running->result,
                                        &run->out, &run->err, &error);
  g_assert_no_error (error);
  g_subprocess_wait (running->process, NULL, &error);
  g_assert_no_error (error);
  g_assert_true (g_subprocess_get_if_exited (running->process));
  run->status = g_subprocess_get_exit_status (running->process);
  g_clear_object (&running->result);
  g_clear_object (&running->process);
}

/* Parses JSON Lines into an array of objects; every line must be one object. */
static GPtrArray *
parse_lines (const char *text)
{
  g_auto(GStrv) lines = g_strsplit (text, "\n", -1);
  GPtrArray *records = g_ptr_array_new_with_free_func ((GDestroyNotify) json_node_unref);

  for (guint i = 0; lines[i] != NULL; i++)
    {
      g_autoptr(GError) error = NULL;
      JsonNode *node;

      if (lines[i][0] == '\0')
        {
          g_assert_null (lines[i + 1]);   /* only the final newline */
          break;
        }
      node = json_from_string (lines[i], &error);
      g_assert_no_error (error);
      g_assert_true (JSON_NODE_HOLDS_OBJECT (node));
      g_ptr_array_add (records, node);
    }
  return records;
}

static GPtrArray *
read_records (const char *path)
{
  g_autofree char *text = NULL;
  g_autoptr(GError) error = NULL;

  g_file_get_contents (path, &text, NULL, &error);
  g_assert_no_error (error);
  return parse_lines (text);
}

static JsonObject *
record_at (GPtrArray *records,
           guint      i)
{
  return json_node_get_object (g_ptr_array_index (records, i));
}

static int
compare_record_index (gconstpointer a,
                      gconstpointer b)
{
  JsonObject *x = json_node_get_object (*(JsonNode * const *) a);
  JsonObject *y = json_node_get_object (*(JsonNode * const *) b);
  gint64 i = json_object_get_int_member (x, "index"), j = json_object_get_int_member (y, "index");

  return (i > j) - (i < j);
}

/* --output's lines come in the order the jobs were counted (as they ended):
 * sorted here by job number, each number once. */
static GPtrArray *
in_job_order (GPtrArray *records)
{
  g_ptr_array_sort (records, compare_record_index);
  for (guint i = 1; i < records->len; i++)
    g_assert_cmpint (json_object_get_int_member (record_at (records, i - 1), "index"), <,
                     json_object_get_int_member (record_at (records, i), "index"));
  return records;
}

/* The keys every record has, with their types. */
static void
assert_record_shape (JsonObject *record)
{
  static const char *const keys[] = {
    "index", "endpoint", "status", "error", "outputs", "logs", "batch",
    "queued_s", "run_s", "latency_s", "updates", "upload_s", "cache", "rendered", "event_id",
  };

  for (guint i = 0; i < G_N_ELEMENTS (keys); i++)
    if (!json_object_has_member (record, keys[i]))
      g_error ("record has no \"%s\"", keys[i]);
  g_assert_true (JSON_NODE_HOLDS_ARRAY (json_object_get_member (record, "logs")));
  /* The demo's endpoints render no components. */
  g_assert_true (JSON_NODE_HOLDS_NULL (json_object_get_member (record, "rendered")));
}

static const char *
first_output (JsonObject *record)
{
  JsonArray *outputs = json_object_get_array_member (record, "outputs");

  g_assert_nonnull (outputs);
  g_assert_cmpuint (json_array_get_length (outputs), >=, 1);
  return json_array_get_string_element (outputs, 0);
}

static void
test_output_batch (Fixture       *fx,
                   gconstpointer  data)
{
  g_auto(RivTestCliRun) run = { 0 };
  g_autofree char *path = path_in (fx, "jobs.jsonl");
  g_autoptr(GPtrArray) records = NULL;
  g_autoptr(GHashTable) batches = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  guint n = 60;

  run_cli (&run, "load", "--url", fx->url, "--endpoint", "batch_echo", "--count", "60",
           "--data", "[\"job {i}\", 0.05]", "--output", path, NULL);
  g_assert_cmpint (run.status, ==, 0);
  g_assert_nonnull (strstr (run.out, "completed  60"));

  records = in_job_order (read_records (path));
  g_assert_cmpuint (records->len, ==, n);
  for (guint i = 0; i < n; i++)
    {
      JsonObject *record = record_at (records, i);
      JsonObject *batch;
      g_autofree char *expected = g_strdup_printf ("job %u", i + 1);
      gint64 size, index;

      assert_record_shape (record);
      g_assert_cmpint (json_object_get_int_member (record, "index"), ==, i + 1);
      g_assert_cmpstr (json_object_get_string_member (record, "endpoint"), ==, "/batch_echo");
      g_assert_cmpstr (json_object_get_string_member (record, "status"), ==, "completed");
      g_assert_true (json_object_get_null_member (record, "error"));
      g_assert_cmpstr (first_output (record), ==, expected);
      g_assert_cmpint (json_object_get_int_member (record, "updates"), ==, 1);

      /* The demo sleeps 0.05 s per call, so no job ended sooner than that. */
      g_assert_cmpfloat (json_object_get_double_member (record, "latency_s"), >=, 0.05);
      g_assert_cmpfloat (json_object_get_double_member (record, "run_s"), >=, 0);
      g_assert_cmpfloat (json_object_get_double_member (record, "latency_s"), >=,
                         json_object_get_double_member (record, "run_s"));
      g_assert_cmpfloat (json_object_get_double_member (record, "queued_s"), >=, 0);

      batch = json_object_get_object_member (record, "batch");
      g_assert_nonnull (batch);
      size = json_object_get_int_member (batch, "size");
      index = json_object_get_int_member (batch, "index");
      g_assert_cmpint (size, >=, 1);
      g_assert_cmpint (size, <=, 16);
      g_assert_cmpint (index, >=, 1);
      g_assert_cmpint (index, <=, size);
      g_assert_false (json_object_get_boolean_member (batch, "inferred"));
      g_hash_table_insert (batches, g_strdup (json_object_get_string_member (batch, "id")),
                           GINT_TO_POINTER ((int) size));
    }

  /* A burst of 60 to a batch endpoint is batched: fewer calls than jobs. */
  g_assert_cmpuint (g_hash_table_size (batches), <, n);
}

static void
test_output_stream_stdout (Fixture       *fx,
                           gconstpointer  data)
{
  g_auto(RivTestCliRun) run = { 0 };
  g_autoptr(GPtrArray) records = NULL;

  run_cli (&run, "load", "--url", fx->url, "--endpoint", "/stream_text", "--count", "3",
           "--data", "[\"p{i}\", 12, 0.005]", "--output", "-", NULL);
  g_assert_cmpint (run.status, ==, 0);

  /* Standard output holds only the records; the summary went to standard error. */
  records = in_job_order (parse_lines (run.out));
  g_assert_cmpuint (records->len, ==, 3);
  g_assert_nonnull (strstr (run.err, "completed  3"));

  for (guint i = 0; i < records->len; i++)
    {
      JsonObject *record = record_at (records, i);
      g_auto(GStrv) words = NULL;

      assert_record_shape (record);
      g_assert_cmpint (json_object_get_int_member (record, "index"), ==, i + 1);
      g_assert_cmpstr (json_object_get_string_member (record, "status"), ==, "completed");
      /* The final text, every appended token applied: 12 words. */
      words = g_strsplit (first_output (record), " ", -1);
      g_assert_cmpuint (g_strv_length (words), ==, 12);
      g_assert_cmpint (json_object_get_int_member (record, "updates"), >=, 12);
      g_assert_true (json_object_get_null_member (record, "batch"));
    }
}

static void
test_output_failed (Fixture       *fx,
                    gconstpointer  data)
{
  g_auto(RivTestCliRun) run = { 0 };
  g_autofree char *path = path_in (fx, "failed.jsonl");
  g_autoptr(GPtrArray) records = NULL;

  /* steps must be 1..50: the server refuses each join (HTTP 422). */
  run_cli (&run, "load", "--url", fx->url, "--endpoint", "fake_diffusion", "--count", "3",
           "--data", "[99, 0]", "--output", path, NULL);
  g_assert_cmpint (run.status, ==, 1);

  records = read_records (path);
  g_assert_cmpuint (records->len, ==, 3);
  for (guint i = 0; i < records->len; i++)
    {
      JsonObject *record = record_at (records, i);

      assert_record_shape (record);
      g_assert_cmpstr (json_object_get_string_member (record, "status"), ==, "failed");
      g_assert_nonnull (strstr (json_object_get_string_member (record, "error"), "steps"));
      g_assert_true (json_object_get_null_member (record, "outputs"));
      g_assert_true (json_object_get_null_member (record, "latency_s") ||
                     json_object_get_double_member (record, "latency_s") >= 0);
    }
}

static void
test_output_lost (Fixture       *fx,
                  gconstpointer  data)
{
  g_auto(RivTestCliRun) run = { 0 };
  g_autofree char *path = path_in (fx, "lost.jsonl");
  g_autoptr(GPtrArray) records = NULL;

  /* 20 steps of 1 s cannot end within a 1 s timeout. */
  run_cli (&run, "load", "--url", fx->url, "--endpoint", "fake_diffusion", "--count", "2",
           "--data", "[20, 1]", "--timeout", "1", "--output", path, NULL);
  g_assert_cmpint (run.status, ==, 1);
  g_assert_nonnull (strstr (run.out, "lost       2"));

  records = in_job_order (read_records (path));
  g_assert_cmpuint (records->len, ==, 2);
  for (guint i = 0; i < records->len; i++)
    {
      JsonObject *record = record_at (records, i);

      assert_record_shape (record);
      g_assert_cmpint (json_object_get_int_member (record, "index"), ==, i + 1);
      g_assert_cmpstr (json_object_get_string_member (record, "status"), ==, "lost");
      g_assert_nonnull (strstr (json_object_get_string_member (record, "error"), "timed out"));
      g_assert_true (json_object_get_null_member (record, "latency_s"));
    }
}

static void
test_output_unwritable (Fixture       *fx,
                        gconstpointer  data)
{
  g_auto(RivTestCliRun) run = { 0 };
  g_autofree char *path = path_in (fx, "no-such-dir/jobs.jsonl");

  run_cli (&run, "load", "--url", fx->url, "--endpoint", "batch_echo",
           "--output", path, NULL);
  g_assert_cmpint (run.status, ==, 2);
  g_assert_nonnull (strstr (run.err, "--output"));
  g_assert_nonnull (strstr (run.err, "no-such-dir"));
  g_assert_cmpuint (riv_server_get_n_completed (fx->server), ==, 0);
}

static JsonObject *
parse_summary (const char *text)
{
  g_autoptr(GError) error = NULL;
  JsonNode *node = json_from_string (text, &error);

  g_assert_no_error (error);
  g_assert_true (JSON_NODE_HOLDS_OBJECT (node));
  /* The object lives as long as the test: kept in the node's last reference. */
  g_test_queue_destroy ((GDestroyNotify) json_node_unref, node);
  return json_node_get_object (node);
}

/* Closed loop: 6 users × 4 jobs, each user its own session; {u} and {i}. */
static void
test_users_iterations (Fixture       *fx,
                       gconstpointer  data)
{
  g_auto(RivTestCliRun) run = { 0 };
  g_autofree char *path = path_in (fx, "users.jsonl");
  g_autoptr(GPtrArray) records = NULL;
  guint per_user[7] = { 0 };
  JsonObject *summary;

  run_cli (&run, "load", "--url", fx->url, "--endpoint", "batch_echo", "--users", "6",
           "--iterations", "4", "--data", "[\"u{u} i{i}\", 0.01]", "--output", path,
           "--json", NULL);
  g_assert_cmpint (run.status, ==, 0);
  summary = parse_summary (run.out);
  g_assert_cmpint (json_object_get_int_member (summary, "submitted"), ==, 24);
  g_assert_cmpint (json_object_get_int_member (summary, "completed"), ==, 24);
  g_assert_cmpint (json_object_get_int_member (summary, "users"), ==, 6);
  g_assert_cmpfloat (json_object_get_double_member (summary, "duration_s"), >, 0);
  g_assert_cmpfloat (json_object_get_double_member (summary, "throughput_per_s"), >, 0);

  /* One session per user (the server keeps them after their streams end). */
  g_assert_cmpuint (riv_server_get_n_sessions (fx->server), ==, 6);

  records = in_job_order (read_records (path));
  g_assert_cmpuint (records->len, ==, 24);
  for (guint i = 0; i < records->len; i++)
    {
      JsonObject *record = record_at (records, i);
      gint64 user = json_object_get_int_member (record, "user");
      g_autofree char *expected = NULL;

      assert_record_shape (record);
      g_assert_cmpint (json_object_get_int_member (record, "index"), ==, i + 1);
      g_assert_cmpint (user, >=, 1);
      g_assert_cmpint (user, <=, 6);
      per_user[user]++;
      expected = g_strdup_printf ("u%" G_GINT64_FORMAT " i%u", user, i + 1);
      g_assert_cmpstr (first_output (record), ==, expected);
      g_assert_cmpstr (json_object_get_string_member (record, "status"), ==, "completed");
    }
  for (guint u = 1; u <= 6; u++)
    g_assert_cmpuint (per_user[u], ==, 4);
}

/* Closed loop for a duration with think time: a user never has two jobs at
 * once and pauses between them. */
static void
test_users_duration_think (Fixture       *fx,
                           gconstpointer  data)
{
  g_auto(RivTestCliRun) run = { 0 };
  g_autofree char *path = path_in (fx, "think.jsonl");
  g_autoptr(GPtrArray) records = NULL;
  g_autoptr(GHashTable) last_end = g_hash_table_new_full (NULL, NULL, NULL, g_free);
  guint per_user[4] = { 0 };

  run_cli (&run, "load", "--url", fx->url, "--endpoint", "batch_echo", "--users", "3",
           "--duration", "1.5", "--think", "0.3", "--data", "[\"x\", 0.01]",
           "--output", path, NULL);
  g_assert_cmpint (run.status, ==, 0);

  records = read_records (path);
  for (guint i = 0; i < records->len; i++)
    {
      JsonObject *record = record_at (records, i);
      gint64 user = json_object_get_int_member (record, "user");
      double submitted = json_object_get_double_member (record, "submitted_at");
      double *previous_end = g_hash_table_lookup (last_end, GINT_TO_POINTER ((int) user));

      g_assert_cmpstr (json_object_get_string_member (record, "status"), ==, "completed");
      per_user[user]++;
      if (previous_end != NULL)
        g_assert_cmpfloat (submitted - *previous_end, >=, 0.25);
      else
        g_hash_table_insert (last_end, GINT_TO_POINTER ((int) user),
                             previous_end = g_new (double, 1));
      *previous_end = submitted + json_object_get_double_member (record, "latency_s");
    }
  /* 1.5 s of 0.3 s pauses: between 2 and 6 jobs per user. */
  for (guint u = 1; u <= 3; u++)
    {
      g_assert_cmpuint (per_user[u], >=, 2);
      g_assert_cmpuint (per_user[u], <=, 6);
    }
}

static guint
csv_column (const char *header,
            const char *name)
{
  g_auto(GStrv) columns = g_strsplit (header, ",", -1);

  for (guint i = 0; columns[i] != NULL; i++)
    if (strcmp (columns[i], name) == 0)
      return i;
  g_error ("no column %s in %s", name, header);
}

/* --stages ramps users up and down; the time series adds up to the summary. */
static void
test_stages_timeseries (Fixture       *fx,
                        gconstpointer  data)
{
  g_auto(RivTestCliRun) run = { 0 };
  g_autofree char *csv_path = path_in (fx, "series.csv");
  g_autofree char *csv = NULL;
  g_auto(GStrv) lines = NULL;
  g_autoptr(GError) error = NULL;
  JsonObject *summary;
  guint started = 0, completed = 0, max_users = 0;
  guint c_started, c_completed, c_users;

  run_cli (&run, "load", "--url", fx->url, "--endpoint", "stream_text",
           "--stages", "1s:5,1s:5,1s:0", "--data", "[\"u{u}\", 5, 0.02]",
           "--timeseries", csv_path, "--json", NULL);
  g_assert_cmpint (run.status, ==, 0);
  summary = parse_summary (run.out);
  g_assert_cmpint (json_object_get_int_member (summary, "users"), ==, 5);
  g_assert_cmpint (json_object_get_int_member (summary, "completed"), ==,
                   json_object_get_int_member (summary, "submitted"));
  g_assert_cmpint (json_object_get_int_member (summary, "submitted"), >=, 5);

  g_file_get_contents (csv_path, &csv, NULL, &error);
  g_assert_no_error (error);
  lines = g_strsplit (csv, "\n", -1);
  c_started = csv_column (lines[0], "started");
  c_completed = csv_column (lines[0], "completed");
  c_users = csv_column (lines[0], "users");
  g_assert_cmpuint (csv_column (lines[0], "p95_s"), >, 0);
  g_assert_cmpuint (g_strv_length (lines), >=, 4);   /* header, 2+ seconds, final newline */
  for (guint i = 1; lines[i] != NULL && lines[i][0] != '\0'; i++)
    {
      g_auto(GStrv) cells = g_strsplit (lines[i], ",", -1);

      started += atoi (cells[c_started]);
      completed += atoi (cells[c_completed]);
      max_users = MAX (max_users, (guint) atoi (cells[c_users]));
    }
  g_assert_cmpint (started, ==, json_object_get_int_member (summary, "submitted"));
  g_assert_cmpint (completed, ==, json_object_get_int_member (summary, "completed"));
  g_assert_cmpuint (max_users, ==, 5);
}

static void
test_thresholds (Fixture       *fx,
                 gconstpointer  data)
{
  g_auto(RivTestCliRun) pass = { 0 };
  g_auto(RivTestCliRun) fail = { 0 };
  g_auto(RivTestCliRun) json = { 0 };
  JsonObject *summary;
  JsonArray *thresholds;

  run_cli (&pass, "load", "--url", fx->url, "--endpoint", "batch_echo", "--count", "10",
           "--data", "[\"x\", 0.05]", "--threshold", "failed==0", "--threshold", "p95<60s",
           "--threshold", "throughput>0", NULL);
  g_assert_cmpint (pass.status, ==, 0);
  g_assert_nonnull (strstr (pass.out, "✓ failed==0"));
  g_assert_nonnull (strstr (pass.out, "✓ p95<60s"));

  /* Every job sleeps 50 ms: a 1 ms p99 cannot hold, and the exit status says so. */
  run_cli (&fail, "load", "--url", fx->url, "--endpoint", "batch_echo", "--count", "10",
           "--data", "[\"x\", 0.05]", "--threshold", "failed==0", "--threshold", "p99<=1ms",
           NULL);
  g_assert_cmpint (fail.status, ==, 1);
  g_assert_nonnull (strstr (fail.out, "✓ failed==0"));
  g_assert_nonnull (strstr (fail.out, "✗ p99<=1ms"));

  run_cli (&json, "load", "--url", fx->url, "--endpoint", "batch_echo", "--count", "4",
           "--data", "[\"x\", 0.05]", "--threshold", "p(95) < 10ms", "--json", NULL);
  g_assert_cmpint (json.status, ==, 1);
  summary = parse_summary (json.out);
  thresholds = json_object_get_array_member (summary, "thresholds");
  g_assert_cmpuint (json_array_get_length (thresholds), ==, 1);
  g_assert_false (json_object_get_boolean_member (json_array_get_object_element (thresholds, 0),
                                                  "ok"));
  g_assert_cmpfloat (json_object_get_double_member (json_array_get_object_element (thresholds, 0),
                                                    "value"), >=, 0.05);
}

/* A burst of thousands from one session (the open loop the window's Burst
 * shares, its joins bounded): every job completes, none is lost. */
static void
test_burst_none_lost (Fixture       *fx,
                      gconstpointer  data)
{
  g_auto(RivTestCliRun) run = { 0 };
  JsonObject *summary;

  run_cli (&run, "load", "--url", fx->url, "--endpoint", "batch_echo", "--count", "2000",
           "--data", "[\"b{i}\", 0]", "--json", NULL);
  g_assert_cmpint (run.status, ==, 0);
  summary = parse_summary (run.out);
  g_assert_cmpint (json_object_get_int_member (summary, "submitted"), ==, 2000);
  g_assert_cmpint (json_object_get_int_member (summary, "completed"), ==, 2000);
  g_assert_cmpint (json_object_get_int_member (summary, "failed"), ==, 0);
  g_assert_cmpint (json_object_get_int_member (summary, "lost"), ==, 0);
}

/* Bad flags exit 2 with a message that names the offending part, before any job. */
static void
test_bad_flags (Fixture       *fx,
                gconstpointer  data)
{
  static const struct
  {
    const char *flag;
    const char *value;
    const char *named;
  } cases[] = {
    { "--stages", "10s:50,3x:5", "\"3x\"" },
    { "--stages", "10s:50,10s", "stage 2" },
    { "--stages", "10s:many", "\"many\"" },
    { "--threshold", "p95<2parsecs", "\"parsecs\"" },
    { "--threshold", "bogus>1", "\"bogus\"" },
    { "--threshold", "p95=>1s", "\"=>\"" },
    { "--threshold", "failed==zero", "\"zero\"" },
    { "--threshold", "p95", "METRIC OP VALUE" },
    { "--shard", "4/4", "--shard" },
    { "--threads", "2", "--threads is retired: give --processes N (or --processes auto" },
    { "--processes", "two", "--processes two: expected a number of processes from 1 to 256, or auto" },
    { "--processes", "Auto", "--processes Auto: expected" },
    { "--data", "[\"x\", 0.05", "--data is not valid JSON" },
    { "--data", "[\"caf\\351\", 0.05]", "invalid escape \"\\3\"" },
    { "--data", "{\"x\": 1}",
      "--data for /batch_echo: unknown parameter \"x\" (the parameters are: text, delay)" },
    { "--data", "\"x\"", "--data must be a JSON array (one value per input) or an object" },
    { "--transport", "bogus", "\"bogus\": expected queue or call" },
    /* The demo server is no Gradio 6.13: it has no /call/v2. */
    { "--transport", "call", "has no /call/v2 route" },
  };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_auto(RivTestCliRun) run = { 0 };

      run_cli (&run, "load", "--url", fx->url, "--endpoint", "batch_echo", "--users", "2",
               cases[i].flag, cases[i].value, NULL);
      g_assert_cmpint (run.status, ==, 2);
      if (strstr (run.err, cases[i].named) == NULL)
        g_error ("%s %s: the error does not name %s:\n%s", cases[i].flag, cases[i].value,
                 cases[i].named, run.err);
    }

  {
    g_auto(RivTestCliRun) run = { 0 };

    run_cli (&run, "load", "--url", fx->url, "--endpoint", "batch_echo", "--users", "5",
             "--count", "10", NULL);
    g_assert_cmpint (run.status, ==, 2);
    g_assert_nonnull (strstr (run.err, "--users"));
    g_assert_nonnull (strstr (run.err, "--count"));
    g_assert_nonnull (strstr (run.err, "use --count N"));
  }
  g_assert_cmpuint (riv_server_get_n_completed (fx->server), ==, 0);
}

static char *
file_data (const char *path)
{
  return g_strdup_printf ("[{\"path\": \"%s\", \"meta\": {\"_type\": \"gradio.FileData\"}}]", path);
}

/* Files to upload (handle_file() inputs) that cannot be: exit 2 before any
 * job, naming the job and the path; "{i}" checked for every job that will
 * run, in every load mode. */
static void
test_bad_files (Fixture       *fx,
                gconstpointer  data)
{
  g_autofree char *empty = path_in (fx, "empty.png");
  g_autofree char *sub = path_in (fx, "sub");
  g_autofree char *missing = path_in (fx, "none.png");
  g_autofree char *numbered = path_in (fx, "f{i}.txt");
  g_autofree char *per_user = path_in (fx, "f{u}.txt");
  struct
  {
    const char *path;
    const char *mode[5];
    const char *named[2];
  } cases[] = {
    { missing, { "--count", "2" }, { "none.png", "no such file" } },
    { sub, { "--users", "2" }, { "sub", "is a directory" } },
    { empty, { "--count", "1" }, { "empty.png", "is empty (0 bytes)" } },
    /* f1.txt and f2.txt exist: the third job runs out. */
    { numbered, { "--count", "3" }, { "job 3's file", "f3.txt" } },
    { numbered, { "--users", "2", "--iterations", "2" }, { "job 3's file", "f3.txt" } },
    { numbered, { "--count", "4", "--shard", "1/2" }, { "job 4's file", "f4.txt" } },
    { per_user, { "--stages", "1s:3" }, { "f3.txt", "no such file" } },
  };

  g_assert_true (g_file_set_contents (empty, "", 0, NULL));
  g_assert_cmpint (g_mkdir (sub, 0700), ==, 0);
  for (guint i = 1; i <= 2; i++)
    {
      g_autofree char *name = g_strdup_printf ("f%u.txt", i);
      g_autofree char *path = path_in (fx, name);

      g_assert_true (g_file_set_contents (path, "some bytes", -1, NULL));
    }

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_auto(RivTestCliRun) run = { 0 };
      g_autofree char *json = file_data (cases[i].path);

      run_cli (&run, "load", "--url", fx->url, "--endpoint", "batch_echo", "--data", json,
               cases[i].mode[0], cases[i].mode[1], cases[i].mode[2], cases[i].mode[3], NULL);
      if (run.status != 2)
        g_error ("%s %s: exit %d, not 2:\n%s", cases[i].path, cases[i].mode[0], run.status,
                 run.err);
      for (guint k = 0; k < G_N_ELEMENTS (cases[i].named); k++)
        if (strstr (run.err, cases[i].named[k]) == NULL)
          g_error ("%s %s: the error does not name %s:\n%s", cases[i].path, cases[i].mode[0],
                   cases[i].named[k], run.err);
    }
  /* Nothing reached the server. */
  g_assert_cmpuint (riv_server_get_n_completed (fx->server), ==, 0);

  /* Files that are there: each job's own is uploaded (upload_s in its
   * record); the demo then refuses a file for its text, on the server. */
  {
    g_auto(RivTestCliRun) run = { 0 };
    g_autofree char *out = path_in (fx, "files.jsonl");
    g_autofree char *json = file_data (numbered);
    g_autoptr(GPtrArray) records = NULL;

    g_autofree char *rec = path_in (fx, "files-session.jsonl");
    g_autoptr(GPtrArray) events = NULL;
    guint uploads = 0;

    run_cli (&run, "load", "--url", fx->url, "--endpoint", "batch_echo", "--data", json,
             "--count", "2", "--output", out, "--record", rec, NULL);
    g_assert_cmpint (run.status, ==, 1);
    g_assert_nonnull (strstr (run.out, "uploads    2 jobs sent files"));
    /* Recorded as requests, without the files' bytes. */
    events = read_records (rec);
    for (guint i = 0; i < events->len; i++)
      {
        JsonObject *event = record_at (events, i);

        if (g_strcmp0 (json_object_get_string_member_with_default (event, "kind", ""), "request") == 0 &&
            g_str_has_suffix (json_object_get_string_member_with_default (event, "path", ""), "/upload"))
          {
            g_assert_false (json_object_has_member (event, "body"));
            uploads++;
          }
      }
    g_assert_cmpuint (uploads, ==, 2);
    records = read_records (out);
    g_assert_cmpuint (records->len, ==, 2);
    for (guint i = 0; i < records->len; i++)
      {
        JsonObject *record = record_at (records, i);

        assert_record_shape (record);
        g_assert_cmpfloat (json_object_get_double_member (record, "upload_s"), >=, 0);
        g_assert_cmpstr (json_object_get_string_member (record, "error"), ==,
                         "text: text must be a string");
      }
  }
}

/* Records with uploads, cache answers and the server's timings, merged: the
 * report counts each and splits latency into the server's and the rest. */
static void
test_merge_client_server (Fixture       *fx,
                          gconstpointer  data)
{
  g_autofree char *path = path_in (fx, "cs.jsonl");
  g_autofree char *report = path_in (fx, "cs.html");
  g_autofree char *html = NULL;
  g_autoptr(GString) lines = g_string_new (NULL);
  g_auto(RivTestCliRun) run = { 0 };

  for (guint i = 1; i <= 4; i++)
    g_string_append_printf (lines,
      "{\"index\":%u,\"endpoint\":\"/f\",\"status\":\"completed\",\"error\":null,"
      "\"outputs\":[1],\"logs\":[],\"batch\":null,\"queued_s\":0.1,\"run_s\":0.2,"
      "\"latency_s\":1.0,\"updates\":1,\"user\":null,\"submitted_at\":%u,"
      "\"upload_s\":%s,\"cache\":%s,\"event_id\":\"e%u\",\"server\":%s}\n",
      i, 1700000000 + i, i <= 2 ? "0.25" : "null",
      i == 4 ? "{\"used\":\"full\",\"duration_s\":0.01}" : "null", i,
      i <= 3 ? "{\"total_s\":0.75,\"client_network_s\":0.25}" : "null");
  g_assert_true (g_file_set_contents (path, lines->str, -1, NULL));

  run_cli (&run, "report", "merge", path, "--report", report, NULL);
  g_assert_cmpint (run.status, ==, 0);
  g_assert_true (g_file_get_contents (report, &html, NULL, NULL));
  g_assert_nonnull (strstr (html, "<th>jobs that sent files</th><td class=\"n\">2</td>"));
  g_assert_nonnull (strstr (html, "<th>answered from the server's cache</th><td class=\"n\">1</td>"));
  g_assert_nonnull (strstr (html, "<th>jobs timed by the server</th><td class=\"n\">3</td>"));
  /* 0.75 s of 1 s: the server's three quarters. */
  g_assert_nonnull (strstr (html, "server (blue) 75%, network + client (yellow) 25%"));

  /* No outage: --json says null, and nothing on standard error. */
  riv_test_cli_run_clear (&run);
  run_cli (&run, "report", "merge", path, "--json", NULL);
  g_assert_cmpint (run.status, ==, 0);
  g_assert_cmpstr (run.err, ==, "");
  g_assert_nonnull (strstr (run.out, "\"outage\":null"));
}

/* A server that refuses joins (a full queue, HTTP 503) is counted, never a crash. */
static void
test_queue_full (Fixture       *fx,
                 gconstpointer  data)
{
  g_auto(RivTestCliRun) run = { 0 };
  g_autoptr(GError) error = NULL;
  g_autofree char *report = path_in (fx, "full.html");
  g_autofree char *html = NULL;
  JsonObject *summary;
  JsonArray *errors;

  riv_server_shutdown (fx->server);
  g_clear_object (&fx->server);
  g_clear_pointer (&fx->url, g_free);
  fx->server = riv_server_new ();
  g_object_set (fx->server, "concurrency", 1, "max-queue", 2, NULL);
  riv_server_listen (fx->server, NULL, 0, &error);
  g_assert_no_error (error);
  fx->url = riv_server_dup_url (fx->server);

  run_cli (&run, "load", "--url", fx->url, "--endpoint", "fake_diffusion", "--users", "8",
           "--iterations", "2", "--data", "[2, 0.1]", "--report", report, "--json", NULL);
  g_assert_cmpint (run.status, ==, 1);
  summary = parse_summary (run.out);
  g_assert_cmpint (json_object_get_int_member (summary, "submitted"), ==, 16);
  g_assert_cmpint (json_object_get_int_member (summary, "failed"), >, 0);
  g_assert_cmpint (json_object_get_int_member (summary, "completed"), >, 0);
  g_assert_cmpint (json_object_get_int_member (summary, "completed") +
                   json_object_get_int_member (summary, "failed"), ==, 16);
  errors = json_object_get_array_member (summary, "errors");
  g_assert_cmpuint (json_array_get_length (errors), >=, 1);

  g_file_get_contents (report, &html, NULL, &error);
  g_assert_no_error (error);
  g_assert_nonnull (strstr (html, json_object_get_string_member (
                              json_array_get_object_element (errors, 0), "error")));
}

/* N shards as N processes at once, merged, add up to one unsharded run. */
static void
run_shards_and_merge (Fixture            *fx,
                      const char * const *load_args,
                      guint               n_shards,
                      guint               expected_jobs)
{
  g_autoptr(GPtrArray) paths = g_ptr_array_new_with_free_func (g_free);
  g_autoptr(GHashTable) users = g_hash_table_new (NULL, NULL);
  g_autofree gboolean *seen = g_new0 (gboolean, expected_jobs + 1);
  g_autofree char *single_path = path_in (fx, "single.jsonl");
  g_autofree char *report = path_in (fx, "merged.html");
  g_autofree char *series = path_in (fx, "merged.csv");
  Running *running = g_new0 (Running, n_shards + 1);
  g_auto(RivTestCliRun) single = { 0 };
  g_auto(RivTestCliRun) merged = { 0 };
  g_autoptr(GPtrArray) merge_args = g_ptr_array_new ();
  JsonObject *single_summary, *merged_summary;
  static const char *const totals[] = { "submitted", "completed", "failed", "cancelled", "lost" };

  /* Shard I of N, and one process for the whole run, all at once. */
  for (guint i = 0; i <= n_shards; i++)
    {
      g_autoptr(GPtrArray) args = g_ptr_array_new_with_free_func (g_free);
      char *path = g_strdup_printf ("%s/shard-%u.jsonl", fx->dir, i);

      g_ptr_array_add (args, g_strdup ("load"));
      g_ptr_array_add (args, g_strdup ("--url"));
      g_ptr_array_add (args, g_strdup (fx->url));
      for (guint k = 0; load_args[k] != NULL; k++)
        g_ptr_array_add (args, g_strdup (load_args[k]));
      g_ptr_array_add (args, g_strdup ("--output"));
      if (i < n_shards)
        {
          g_ptr_array_add (args, path);
          g_ptr_array_add (paths, g_strdup (path));
          g_ptr_array_add (args, g_strdup ("--shard"));
          g_ptr_array_add (args, g_strdup_printf ("%u/%u", i, n_shards));
        }
      else
        {
          g_free (path);
          g_ptr_array_add (args, g_strdup (single_path));
          g_ptr_array_add (args, g_strdup ("--json"));
        }
      g_ptr_array_add (args, NULL);
      start_cli (&running[i], (const char * const *) args->pdata);
    }
  for (guint i = 0; i < n_shards; i++)
    {
      g_auto(RivTestCliRun) shard = { 0 };
      g_autoptr(GPtrArray) records = NULL;

      finish_cli (&running[i], &shard);
      g_assert_cmpint (shard.status, ==, 0);
      records = read_records (g_ptr_array_index (paths, i));
      g_assert_cmpuint (records->len, >, 0);
      g_assert_cmpuint (records->len, <, expected_jobs);
      for (guint k = 0; k < records->len; k++)
        {
          JsonObject *record = record_at (records, k);
          gint64 index = json_object_get_int_member (record, "index");

          /* Job numbers are the shard's share: no two shards use one. */
          g_assert_cmpint (index, >=, 1);
          g_assert_cmpint (index, <=, expected_jobs);
          g_assert_false (seen[index]);
          seen[index] = TRUE;
          g_assert_cmpint ((index - 1) % n_shards, ==, i);
          if (!json_object_get_null_member (record, "user"))
            g_hash_table_add (users, GINT_TO_POINTER (
                                (int) json_object_get_int_member (record, "user")));
        }
    }
  finish_cli (&running[n_shards], &single);
  g_assert_cmpint (single.status, ==, 0);
  single_summary = parse_summary (single.out);
  g_free (running);
  for (guint i = 1; i <= expected_jobs; i++)
    g_assert_true (seen[i]);

  g_ptr_array_add (merge_args, "report");
  g_ptr_array_add (merge_args, "merge");
  for (guint i = 0; i < paths->len; i++)
    g_ptr_array_add (merge_args, g_ptr_array_index (paths, i));
  g_ptr_array_add (merge_args, "--report");
  g_ptr_array_add (merge_args, report);
  g_ptr_array_add (merge_args, "--timeseries");
  g_ptr_array_add (merge_args, series);
  g_ptr_array_add (merge_args, "--json");
  g_ptr_array_add (merge_args, NULL);
  {
    Running r = { 0 };

    start_cli (&r, (const char * const *) merge_args->pdata);
    finish_cli (&r, &merged);
  }
  g_assert_cmpint (merged.status, ==, 0);
  merged_summary = parse_summary (merged.out);

  for (guint i = 0; i < G_N_ELEMENTS (totals); i++)
    g_assert_cmpint (json_object_get_int_member (merged_summary, totals[i]), ==,
                     json_object_get_int_member (single_summary, totals[i]));
  g_assert_cmpint (json_object_get_int_member (merged_summary, "submitted"), ==, expected_jobs);
  g_assert_cmpint (json_object_get_int_member (merged_summary, "completed"), ==, expected_jobs);
  g_assert_true (g_file_test (report, G_FILE_TEST_IS_REGULAR));
  g_assert_true (g_file_test (series, G_FILE_TEST_IS_REGULAR));
  if (g_hash_table_size (users) > 0)
    g_assert_cmpint (g_hash_table_size (users), ==,
                     json_object_get_int_member (single_summary, "users"));
}

static void
test_shards_count (Fixture       *fx,
                   gconstpointer  data)
{
  const char *const args[] = {
    "--endpoint", "batch_echo", "--count", "30", "--data", "[\"job {i}\", 0.02]", NULL
  };

  run_shards_and_merge (fx, args, 3, 30);
}

static void
test_shards_users (Fixture       *fx,
                   gconstpointer  data)
{
  const char *const args[] = {
    "--endpoint", "batch_echo", "--users", "6", "--iterations", "3",
    "--data", "[\"u{u} {i}\", 0.02]", NULL
  };

  run_shards_and_merge (fx, args, 3, 18);
}

/* The records of a users run with --processes N, checked: job numbers are
 * the shard's share of 1..n_jobs once each, each job's inputs after {i} and
 * {u} its own, each user's jobs all there; returns the numbers seen. */
static GHashTable *
run_processes (Fixture    *fx,
               const char *processes,
             const char *shard,
             guint       users,
             guint       iterations)
{
  g_auto(RivTestCliRun) run = { 0 };
  g_autofree char *name = g_strdup_printf ("processes-%s-%c.jsonl", processes, shard[0]);
  g_autofree char *path = path_in (fx, name);
  g_autofree char *users_text = g_strdup_printf ("%u", users);
  g_autofree char *iterations_text = g_strdup_printf ("%u", iterations);
  g_autoptr(GPtrArray) records = NULL;
  g_autoptr(GHashTable) per_user = g_hash_table_new (NULL, NULL);
  GHashTable *numbers = g_hash_table_new (NULL, NULL);

  run_cli (&run, "load", "--url", fx->url, "--endpoint", "batch_echo", "--users", users_text,
           "--iterations", iterations_text, "--data", "[\"u{u} j{i}\", 0.01]",
           "--processes", processes, "--shard", shard, "--output", path, NULL);
  g_assert_cmpint (run.status, ==, 0);
  records = read_records (path);
  for (guint k = 0; k < records->len; k++)
    {
      JsonObject *record = record_at (records, k);
      gint64 index = json_object_get_int_member (record, "index");
      gint64 user = json_object_get_int_member (record, "user");
      g_autofree char *expected = g_strdup_printf ("u%" G_GINT64_FORMAT " j%" G_GINT64_FORMAT,
                                                   user, index);

      g_assert_cmpstr (json_object_get_string_member (record, "status"), ==, "completed");
      g_assert_cmpstr (json_array_get_string_element (
                         json_object_get_array_member (record, "outputs"), 0), ==, expected);
      g_assert_false (g_hash_table_contains (numbers, GINT_TO_POINTER ((int) index)));
      g_hash_table_add (numbers, GINT_TO_POINTER ((int) index));
      g_hash_table_insert (per_user, GINT_TO_POINTER ((int) user), GUINT_TO_POINTER (
                             GPOINTER_TO_UINT (g_hash_table_lookup (per_user,
                                                                    GINT_TO_POINTER ((int) user))) + 1));
    }
  {
    GHashTableIter iter;
    gpointer value;

    g_hash_table_iter_init (&iter, per_user);
    while (g_hash_table_iter_next (&iter, NULL, &value))
      g_assert_cmpuint (GPOINTER_TO_UINT (value), ==, iterations);
  }
  return numbers;
}

/* --processes 2 and 3 make the jobs one process makes, numbered apart:
 * each job number once (worker k of N numbering k + 1, k + 1 + N, …: not
 * 1..n when the users do not split evenly), its inputs its own, every
 * user's jobs; inside a --shard, the shard's numbers (run_processes ()
 * checks each record). */
static void
test_processes_same_jobs (Fixture       *fx,
                          gconstpointer  data)
{
  g_autoptr(GHashTable) one = run_processes (fx, "1", "0/1", 7, 3);
  g_autoptr(GHashTable) two = run_processes (fx, "2", "0/1", 7, 3);
  g_autoptr(GHashTable) three = run_processes (fx, "3", "0/1", 7, 3);
  g_autoptr(GHashTable) shard_one = run_processes (fx, "1", "1/2", 9, 2);
  g_autoptr(GHashTable) shard_two = run_processes (fx, "2", "1/2", 9, 2);
  GHashTable *shards[] = { shard_one, shard_two };

  g_assert_cmpuint (g_hash_table_size (one), ==, 21);
  for (int i = 1; i <= 21; i++)
    g_assert_true (g_hash_table_contains (one, GINT_TO_POINTER (i)));
  g_assert_cmpuint (g_hash_table_size (two), ==, 21);
  g_assert_cmpuint (g_hash_table_size (three), ==, 21);

  /* Shard 1 of 2: users 2, 4, 6, 8, their 8 jobs, every number even. */
  for (guint k = 0; k < G_N_ELEMENTS (shards); k++)
    {
      GHashTableIter iter;
      gpointer key;

      g_assert_cmpuint (g_hash_table_size (shards[k]), ==, 8);
      g_hash_table_iter_init (&iter, shards[k]);
      while (g_hash_table_iter_next (&iter, &key, NULL))
        g_assert_cmpint (GPOINTER_TO_INT (key) % 2, ==, 0);
    }
}

/* A load run that exited 0 with completed jobs in processes processes. */
static void
assert_run_processes (const RivTestCliRun *run,
                      gint64               completed,
                      gint64               processes)
{
  JsonObject *summary;

  g_assert_cmpint (run->status, ==, 0);
  summary = parse_summary (run->out);
  g_assert_cmpint (json_object_get_int_member (summary, "completed"), ==, completed);
  g_assert_cmpint (json_object_get_int_member (summary, "processes"), ==, processes);
}

/* --processes auto: one process a core, one fewer for a server on this
 * machine's loopback (as every test server is), no more than the users; one
 * for what one process must run (the open loop). Without --processes, one.
 * The summary says how many. */
static void
test_processes_auto (Fixture       *fx,
                     gconstpointer  data)
{
  g_auto(RivTestCliRun) plain = { 0 };
  g_auto(RivTestCliRun) spread = { 0 };
  g_auto(RivTestCliRun) few = { 0 };
  g_auto(RivTestCliRun) burst = { 0 };
  guint cores = g_get_num_processors ();

  run_cli (&plain, "load", "--url", fx->url, "--endpoint", "batch_echo", "--users", "12",
           "--iterations", "2", "--data", "[\"u{u} j{i}\", 0]", "--json", NULL);
  assert_run_processes (&plain, 24, 1);
  run_cli (&spread, "load", "--url", fx->url, "--endpoint", "batch_echo", "--users", "12",
           "--iterations", "2", "--data", "[\"u{u} j{i}\", 0]", "--processes", "auto", "--json",
           NULL);
  assert_run_processes (&spread, 24, MIN (cores > 1 ? cores - 1 : 1, 12));
  run_cli (&few, "load", "--url", fx->url, "--endpoint", "batch_echo", "--users", "1",
           "--iterations", "3", "--processes", "auto", "--json", NULL);
  assert_run_processes (&few, 3, 1);
  run_cli (&burst, "load", "--url", fx->url, "--endpoint", "batch_echo", "--count", "4",
           "--processes", "auto", "--json", NULL);
  assert_run_processes (&burst, 4, 1);
}

/* Ctrl+C during a run over processes stops every worker: the run ends at
 * once, not after its --duration, with every job submitted in the records
 * (each number once) and those in flight lost as interrupted. */
static void
test_processes_interrupt (Fixture       *fx,
                          gconstpointer  data)
{
  g_autofree char *path = path_in (fx, "interrupted.jsonl");
  const char *args[] = { "load", "--url", fx->url, "--endpoint", "batch_echo",
                         "--users", "6", "--duration", "3600", "--processes", "2",
                         "--data", "[\"i{i}\", 0.3]", "--output", path, NULL };
  g_auto(RivTestCliRun) run = { 0 };
  g_autoptr(GPtrArray) records = NULL;
  Running running = { 0 };
  gboolean never = FALSE;
  guint lost = 0;

  start_cli (&running, args);
  riv_test_wait_for (&never, 2.0);
  g_subprocess_send_signal (running.process, SIGINT);
  finish_cli (&running, &run);

  g_assert_cmpint (run.status, ==, 1);
  g_assert_nonnull (strstr (run.err, "interrupted"));
  records = in_job_order (read_records (path));
  g_assert_cmpuint (records->len, >, 6);
  for (guint k = 0; k < records->len; k++)
    {
      JsonObject *record = record_at (records, k);

      if (g_strcmp0 (json_object_get_string_member (record, "status"), "lost") == 0)
        {
          g_assert_cmpstr (json_object_get_string_member (record, "error"), ==,
                           "interrupted before the job ended");
          lost++;
        }
      else
        g_assert_cmpstr (json_object_get_string_member (record, "status"), ==, "completed");
    }
  /* Users of both processes had a job of 0.3 s in flight. */
  g_assert_cmpuint (lost, >=, 2);
}

/* A file that is not job records is refused, naming the file and line. */
static void
test_merge_bad_records (Fixture       *fx,
                        gconstpointer  data)
{
  g_auto(RivTestCliRun) run = { 0 };
  g_autofree char *path = path_in (fx, "bad.jsonl");
  g_autoptr(GError) error = NULL;

  g_file_set_contents (path, "{\"index\":1,\"status\":\"completed\",\"submitted_at\":1}\n"
                             "{\"index\":2,\"status\":\"exploded\",\"submitted_at\":2}\n",
                       -1, &error);
  g_assert_no_error (error);
  run_cli (&run, "report", "merge", path, NULL);
  g_assert_cmpint (run.status, ==, 1);
  g_assert_nonnull (strstr (run.err, "bad.jsonl:2"));
  g_assert_nonnull (strstr (run.err, "status"));
}

/* Runs headless Chromium on a page with extra arguments; its standard output. */
static char *
run_chromium (const char *chromium,
              const char *profile,
              const char *extra,
              const char *url)
{
  g_autoptr(GSubprocess) process = NULL;
  g_autoptr(GAsyncResult) result = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *profile_arg = g_strdup_printf ("--user-data-dir=%s", profile);
  char *out = NULL;
  const char *argv[] = {
    chromium, "--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
    "--disable-component-update", "--disable-sync", "--no-first-run", "--hide-scrollbars",
    profile_arg, "--window-size=900,1500", extra, url, NULL
  };

  process = g_subprocess_newv (argv, G_SUBPROCESS_FLAGS_STDOUT_PIPE |
                                     G_SUBPROCESS_FLAGS_STDERR_SILENCE, &error);
  g_assert_no_error (error);
  g_subprocess_communicate_utf8_async (process, NULL, NULL, riv_test_async_result_cb, &result);
  riv_test_wait_result (&result, HANG_GUARD * 2);
  g_subprocess_communicate_utf8_finish (process, result, &out, NULL, &error);
  g_assert_no_error (error);
  return out;
}

/* Pixels near a colour (the chart's series colours). */
static guint
count_pixels_near (GdkPixbuf *pixbuf,
                   guint      rgb)
{
  int n_channels = gdk_pixbuf_get_n_channels (pixbuf);
  int stride = gdk_pixbuf_get_rowstride (pixbuf);
  const guint8 *pixels = gdk_pixbuf_read_pixels (pixbuf);
  int r = (rgb >> 16) & 0xff, g = (rgb >> 8) & 0xff, b = rgb & 0xff;
  guint count = 0;

  for (int y = 0; y < gdk_pixbuf_get_height (pixbuf); y++)
    for (int x = 0; x < gdk_pixbuf_get_width (pixbuf); x++)
      {
        const guint8 *p = pixels + y * stride + x * n_channels;

        if (ABS (p[0] - r) < 24 && ABS (p[1] - g) < 24 && ABS (p[2] - b) < 24)
          count++;
      }
  return count;
}

/* The HTML report opened in a real browser: the charts are drawn. */
static void
test_report_in_browser (Fixture       *fx,
                        gconstpointer  data)
{
  g_auto(RivTestCliRun) run = { 0 };
  g_autofree char *report = path_in (fx, "report.html");
  g_autofree char *shot = path_in (fx, "report.png");
  g_autofree char *shot_arg = g_strdup_printf ("--screenshot=%s", shot);
  g_autofree char *profile = path_in (fx, "chromium-profile");
  g_autofree char *chromium = g_find_program_in_path ("chromium");
  g_autofree char *url = NULL;
  g_autofree char *dom = NULL;
  g_autofree char *html = NULL;
  g_autofree char *out = NULL;
  g_autoptr(GdkPixbuf) pixbuf = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(GRegex) path_re = NULL;
  g_autoptr(GMatchInfo) match = NULL;
  guint drawn = 0;

  if (chromium == NULL)
    {
      g_printerr ("# SKIPPING the report's browser test: chromium is not installed "
                  "(make deps installs it)\n");
      g_test_skip ("chromium is not installed (make deps installs it)");
      return;
    }

  run_cli (&run, "load", "--url", fx->url, "--endpoint", "stream_text",
           "--stages", "1s:6,1s:6,1s:0", "--data", "[\"u{u}\", 5, 0.02]",
           "--report", report, "--threshold", "failed==0", NULL);
  g_assert_cmpint (run.status, ==, 0);

  /* Self-contained: no script and nothing fetched from anywhere. */
  g_file_get_contents (report, &html, NULL, &error);
  g_assert_no_error (error);
  g_assert_null (strstr (html, "<script"));
  g_assert_null (strstr (html, "src="));
  g_assert_null (strstr (html, "href="));

  url = g_filename_to_uri (report, NULL, &error);
  g_assert_no_error (error);
  dom = run_chromium (chromium, profile, "--dump-dom", url);

  /* The DOM the browser built holds every chart with its data. */
  g_assert_nonnull (strstr (dom, "id=\"throughput\""));
  g_assert_nonnull (strstr (dom, "id=\"latency\""));
  g_assert_nonnull (strstr (dom, "id=\"inflight\""));
  g_assert_nonnull (strstr (dom, "id=\"users\""));
  g_assert_nonnull (strstr (dom, "id=\"latency-histogram\""));
  g_assert_nonnull (strstr (dom, "class=\"bar\""));
  g_assert_nonnull (strstr (dom, "failed==0"));
  path_re = g_regex_new ("<path class=\"line\" data-series=\"([^\"]+)\"[^>]* d=\"M[0-9.]+,[0-9.]+L",
                         0, 0, &error);
  g_assert_no_error (error);
  g_regex_match (path_re, dom, 0, &match);
  while (g_match_info_matches (match))
    {
      drawn++;
      g_match_info_next (match, NULL);
    }
  /* Lines with at least two points: throughput (3), latency (3), in flight (2), users, updates. */
  g_assert_cmpuint (drawn, >=, 8);

  /* The screenshot is not blank: the completed/s line's green and the bars' blue are on it. */
  out = run_chromium (chromium, profile, shot_arg, url);
  pixbuf = gdk_pixbuf_new_from_file (shot, &error);
  g_assert_no_error (error);
  g_assert_cmpint (gdk_pixbuf_get_width (pixbuf), >=, 800);
  g_assert_cmpuint (count_pixels_near (pixbuf, 0x26a269), >, 200);
  g_assert_cmpuint (count_pixels_near (pixbuf, 0x3584e4), >, 200);
  g_assert_cmpuint (count_pixels_near (pixbuf, 0xff7800), >, 100);
}

/* rivulet-cli serve --port 0 EXTRA… started by launcher; *url is where it
 * listens, read from the first line it prints. */
static GSubprocess *
spawn_serve (GSubprocessLauncher  *launcher,
             const char * const   *extra,
             char                **url)
{
  g_autoptr(GDataInputStream) out = NULL;
  g_autoptr(GAsyncResult) result = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(GPtrArray) argv = g_ptr_array_new ();
  g_autofree char *line = NULL;
  GSubprocess *process;

  g_ptr_array_add (argv, (char *) g_getenv ("RIVULET_CLI"));
  g_ptr_array_add (argv, "serve");
  g_ptr_array_add (argv, "--port");
  g_ptr_array_add (argv, "0");
  for (guint i = 0; extra != NULL && extra[i] != NULL; i++)
    g_ptr_array_add (argv, (char *) extra[i]);
  g_ptr_array_add (argv, NULL);
  process = g_subprocess_launcher_spawnv (launcher, (const char * const *) argv->pdata, &error);
  g_assert_no_error (error);
  out = g_data_input_stream_new (g_subprocess_get_stdout_pipe (process));
  g_data_input_stream_read_line_async (out, G_PRIORITY_DEFAULT, NULL,
                                       riv_test_async_result_cb, &result);
  riv_test_wait_result (&result, HANG_GUARD);
  line = g_data_input_stream_read_line_finish (out, result, NULL, &error);
  g_assert_no_error (error);
  g_assert_nonnull (line);
  g_assert_nonnull (strstr (line, "http://127.0.0.1:"));
  *url = g_strdup (strstr (line, "http://127.0.0.1:"));
  return process;
}

/* Stops a serve spawned by spawn_serve(); it must exit normally. */
static void
stop_serve (GSubprocess *serve)
{
  g_autoptr(GAsyncResult) result = NULL;

  g_subprocess_send_signal (serve, SIGTERM);
  g_subprocess_wait_async (serve, NULL, riv_test_async_result_cb, &result);
  riv_test_wait_result (&result, HANG_GUARD);
  g_assert_true (g_subprocess_get_if_exited (serve));
  g_assert_cmpint (g_subprocess_get_exit_status (serve), ==, 0);
}

/* Whether glibc advised the heap of a running `rivulet-cli serve`, started with
 * GLIBC_TUNABLES given (NULL: none), for transparent huge pages: the "hg" flag
 * of its [heap] mapping, read once it serves. */
static gboolean
serve_heap_advised (const char *given)
{
  g_autoptr(GSubprocessLauncher) launcher =
    g_subprocess_launcher_new (G_SUBPROCESS_FLAGS_STDOUT_PIPE | G_SUBPROCESS_FLAGS_STDERR_SILENCE);
  g_autoptr(GSubprocess) process = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *url = NULL;
  g_autofree char *smaps_path = NULL;
  g_autofree char *smaps = NULL;
  g_auto(GStrv) lines = NULL;
  gboolean in_heap = FALSE;
  gboolean advised = FALSE;

  if (given != NULL)
    g_subprocess_launcher_setenv (launcher, "GLIBC_TUNABLES", given, TRUE);
  else
    g_subprocess_launcher_unsetenv (launcher, "GLIBC_TUNABLES");
  process = spawn_serve (launcher, NULL, &url);

  /* The same process (execv keeps the pid), now serving. */
  smaps_path = g_strdup_printf ("/proc/%s/smaps", g_subprocess_get_identifier (process));
  g_file_get_contents (smaps_path, &smaps, NULL, &error);
  g_assert_no_error (error);
  lines = g_strsplit (smaps, "\n", -1);
  for (guint i = 0; lines[i] != NULL; i++)
    {
      if (g_str_has_suffix (lines[i], "[heap]"))
        in_heap = TRUE;
      else if (in_heap && g_str_has_prefix (lines[i], "VmFlags:"))
        {
          advised = strstr (lines[i], " hg") != NULL;
          break;
        }
    }

  g_subprocess_force_exit (process);
  g_subprocess_wait (process, NULL, NULL);
  return advised;
}

/* rivulet-cli runs glibc's malloc on transparent huge pages (where the kernel
 * gives them on request), unless the user's GLIBC_TUNABLES says otherwise. */
static void
test_huge_pages (void)
{
  g_autofree char *mode = NULL;

#if defined(__SANITIZE_ADDRESS__)
  g_test_skip ("AddressSanitizer's allocator stands in for glibc's malloc");
  return;
#endif
  if (!g_file_get_contents ("/sys/kernel/mm/transparent_hugepage/enabled", &mode, NULL, NULL) ||
      strstr (mode, "[madvise]") == NULL)
    {
      g_test_skip ("transparent huge pages are not in madvise mode here: glibc advises none");
      return;
    }
  g_assert_true (serve_heap_advised (NULL));
  g_assert_true (serve_heap_advised ("glibc.malloc.arena_max=2"));
  g_assert_false (serve_heap_advised ("glibc.malloc.hugetlb=0"));
}

/* serve's budgets: in its help, and refused out of range. */
static void
test_serve_budget_options (void)
{
  static const char *const options[] = {
    "--session-buffer=MIB", "--total-buffer=MIB", "--session-inputs=MIB", "--total-inputs=MIB",
    "--reader-timeout=SECONDS",
  };
  static const char *const bad[][2] = {
    { "--session-buffer", "0" }, { "--total-buffer", "-1" }, { "--session-inputs", "-1" },
    { "--total-inputs", "-1" }, { "--reader-timeout", "0" },
  };
  g_auto(RivTestCliRun) help = { 0 };

  run_cli (&help, "serve", "--help", NULL);
  g_assert_cmpint (help.status, ==, 0);
  for (guint i = 0; i < G_N_ELEMENTS (options); i++)
    if (strstr (help.out, options[i]) == NULL)
      g_error ("\"serve --help\" does not list %s:\n%s", options[i], help.out);
  for (guint i = 0; i < G_N_ELEMENTS (bad); i++)
    {
      g_auto(RivTestCliRun) run = { 0 };

      run_cli (&run, "serve", "--port", "0", bad[i][0], bad[i][1], NULL);
      g_assert_cmpint (run.status, ==, 2);
      g_assert_nonnull (strstr (run.err, bad[i][0]));
    }
}

#define AS_LIMIT (G_GUINT64_CONSTANT (2) << 30)
#define N_STALLED 8

/* serve under a 2 GiB address-space limit: the child's limit is set between
 * fork and exec. */
static void
limit_address_space (gpointer data)
{
  struct rlimit limit = { AS_LIMIT, AS_LIMIT };

  setrlimit (RLIMIT_AS, &limit);
}

static SoupMessage *
serve_join (const char *url,
            const char *data_json,
            const char *hash)
{
  g_autofree char *uri = g_strconcat (url, "/gradio_api/queue/join", NULL);
  g_autofree char *body = g_strdup_printf ("{\"data\":%s,\"fn_index\":3,\"session_hash\":\"%s\"}",
                                           data_json, hash);
  SoupMessage *msg = soup_message_new ("POST", uri);
  g_autoptr(GBytes) bytes = g_bytes_new (body, strlen (body));

  soup_message_set_request_body_from_bytes (msg, "application/json", bytes);
  return msg;
}

/* msg sent on session, waited for; its body. */
static GBytes *
soup_send (SoupSession *session,
           SoupMessage *msg)
{
  g_autoptr(GAsyncResult) result = NULL;
  g_autoptr(GError) error = NULL;
  GBytes *body;

  soup_session_send_and_read_async (session, msg, G_PRIORITY_DEFAULT, NULL,
                                    riv_test_async_result_cb, &result);
  riv_test_wait_result (&result, HANG_GUARD);
  body = soup_session_send_and_read_finish (session, result, &error);
  g_assert_no_error (error);
  return body;
}

/* The request of msg on session, answered 200; its body. */
static GBytes *
serve_send (SoupSession *session,
            SoupMessage *msg)
{
  GBytes *body = soup_send (session, msg);

  g_assert_cmpuint (soup_message_get_status (msg), ==, 200);
  return body;
}

/* Findings 2 and 3 of the hardening issue, end to end: `serve` in 2 GiB of
 * address space survives eight sessions that stall on rapid_generation with
 * a million updates each (half never open their stream, half open it and
 * never read), and a job of a reader that is there then runs to its end. */
static void
test_serve_stalled_readers (void)
{
  g_autoptr(GSubprocessLauncher) launcher =
    g_subprocess_launcher_new (G_SUBPROCESS_FLAGS_STDOUT_PIPE | G_SUBPROCESS_FLAGS_STDERR_PIPE);
  g_autoptr(SoupSession) session = soup_session_new_with_options ("timeout", 0, NULL);
  g_autoptr(GSocketClient) client = g_socket_client_new ();
  g_autoptr(GPtrArray) stalled = g_ptr_array_new_with_free_func (g_object_unref);
  g_autoptr(GSubprocess) process = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *url = NULL;
  g_autofree char *status_path = NULL;
  g_autofree char *status = NULL;
  const char *peak;

#if defined(__SANITIZE_ADDRESS__)
  g_test_skip ("AddressSanitizer reserves far more than 2 GiB of address space");
  return;
#endif
  g_subprocess_launcher_set_child_setup (launcher, limit_address_space, NULL, NULL);
  process = spawn_serve (launcher, (const char * const[]) { "--reader-timeout", "5", NULL }, &url);

  for (guint i = 0; i < N_STALLED; i++)
    {
      g_autofree char *hash = g_strdup_printf ("stalled%u", i);
      g_autoptr(SoupMessage) msg = serve_join (url, "[1000000]", hash);
      g_autoptr(GBytes) reply = serve_send (session, msg);

      g_assert_cmpuint (g_bytes_get_size (reply), >, 0);   /* the join's event id */
      if (i % 2 == 1)
        {
          g_autoptr(GSocketConnection) connection =
            g_socket_client_connect_to_uri (client, url, 80, NULL, &error);
          g_autofree char *request =
            g_strdup_printf ("GET /gradio_api/queue/data?session_hash=%s HTTP/1.1\r\n"
                             "Host: 127.0.0.1\r\n\r\n", hash);

          g_assert_no_error (error);
          g_output_stream_write_all (g_io_stream_get_output_stream (G_IO_STREAM (connection)),
                                     request, strlen (request), NULL, NULL, &error);
          g_assert_no_error (error);
          g_ptr_array_add (stalled, g_steal_pointer (&connection));
        }
    }

  {
    g_autoptr(SoupMessage) join = serve_join (url, "[10]", "present");
    g_autoptr(GBytes) reply = serve_send (session, join);
    g_autofree char *uri = g_strconcat (url, "/gradio_api/queue/data?session_hash=present", NULL);
    g_autoptr(SoupMessage) get = soup_message_new ("GET", uri);
    g_autoptr(GBytes) stream = serve_send (session, get);
    g_autofree char *text = g_strndup (g_bytes_get_data (stream, NULL), g_bytes_get_size (stream));

    g_assert_cmpuint (g_bytes_get_size (reply), >, 0);
    g_assert_nonnull (strstr (text, "\"msg\":\"process_completed\""));
    g_assert_nonnull (strstr (text, "1\\n2\\n3\\n4\\n5\\n6\\n7\\n8\\n9\\n10"));
  }

  status_path = g_strdup_printf ("/proc/%s/status", g_subprocess_get_identifier (process));
  g_file_get_contents (status_path, &status, NULL, &error);
  g_assert_no_error (error);
  peak = strstr (status, "VmHWM:");
  g_assert_nonnull (peak);
  g_test_message ("serve's peak resident memory: %.*s", (int) strcspn (peak, "\n"), peak);

  stop_serve (process);
}

/* The server goes away during a user load and comes back on its port: the
 * summary gives the outage, between the jobs that completed before and after;
 * `report merge` finds the same one in the run's records. */
static void
test_outage (Fixture       *fx,
             gconstpointer  data)
{
  g_autofree char *records = path_in (fx, "outage.jsonl");
  const char *args[] = { "load", "--url", fx->url, "--endpoint", "batch_echo", "--users", "3",
                         "--duration", "7", "--think", "0.05", "--data", "[\"u{u}\", 0.02]",
                         "--json", "--output", records, NULL };
  g_auto(RivTestCliRun) run = { 0 };
  g_auto(RivTestCliRun) merged = { 0 };
  g_auto(RivTestCliRun) merged_text = { 0 };
  g_autofree char *line = NULL;
  JsonObject *merged_outage;
  g_autoptr(GError) error = NULL;
  Running running = { 0 };
  gboolean never = FALSE;
  guint port = riv_server_get_port (fx->server);
  JsonObject *summary;
  JsonObject *outage;
  double start, end;

  start_cli (&running, args);
  riv_test_wait_for (&never, 2.0);
  riv_server_shutdown (fx->server);
  g_clear_object (&fx->server);
  riv_test_wait_for (&never, 2.0);
  fx->server = riv_server_new ();
  riv_server_listen (fx->server, NULL, port, &error);
  g_assert_no_error (error);
  finish_cli (&running, &run);

  summary = parse_summary (run.out);
  g_assert_cmpint (json_object_get_int_member (summary, "completed"), >, 0);
  g_assert_cmpint (json_object_get_int_member (summary, "failed") +
                   json_object_get_int_member (summary, "lost"), >, 0);
  g_assert_true (json_object_has_member (summary, "outage"));
  outage = json_object_get_object_member (summary, "outage");
  g_assert_nonnull (outage);
  start = json_object_get_double_member (outage, "start_s");
  g_assert_false (json_object_get_null_member (outage, "end_s"));
  end = json_object_get_double_member (outage, "end_s");
  g_test_message ("outage %.0f s to %.0f s", start, end);
  /* Away from about 2 s to about 4 s (whole seconds, loosely: a loaded machine). */
  g_assert_cmpfloat (start, >=, 1);
  g_assert_cmpfloat (start, <=, 3);
  g_assert_cmpfloat (end, >=, start + 1);
  g_assert_cmpfloat (end, <=, 7);

  run_cli (&merged, "report", "merge", records, "--json", NULL);
  g_assert_cmpint (merged.status, ==, 0);
  merged_outage = json_object_get_object_member (parse_summary (merged.out), "outage");
  g_assert_nonnull (merged_outage);
  g_assert_cmpfloat (json_object_get_double_member (merged_outage, "start_s"), ==, start);
  g_assert_cmpfloat (json_object_get_double_member (merged_outage, "end_s"), ==, end);
  run_cli (&merged_text, "report", "merge", records, NULL);
  g_assert_cmpint (merged_text.status, ==, 0);
  line = g_strdup_printf ("outage     %.0f s to %.0f s into the run (%.0f s)", start, end,
                          end - start);
  g_assert_nonnull (strstr (merged_text.out, line));
}

#ifdef RIV_JEMALLOC
/* Whether the running process has a library whose name holds lib mapped. */
static gboolean
process_maps (GSubprocess *process,
              const char  *lib)
{
  g_autofree char *path = g_strdup_printf ("/proc/%s/maps",
                                           g_subprocess_get_identifier (process));
  g_autofree char *maps = NULL;
  g_autoptr(GError) error = NULL;

  g_file_get_contents (path, &maps, NULL, &error);
  g_assert_no_error (error);
  return strstr (maps, lib) != NULL;
}

/* A user load on its own, and one under a preload of the user's: what
 * rivulet-cli runs on, read while it runs; both complete their jobs. */
static gboolean
load_runs_on (Fixture    *fx,
              const char *preload,
              const char *lib)
{
  const char *args[] = { "load", "--url", fx->url, "--endpoint", "batch_echo", "--users", "2",
                         "--duration", "2", "--think", "0.05", "--data", "[\"u{u}\", 0.02]",
                         "--json", NULL };
  g_auto(RivTestCliRun) run = { 0 };
  Running running = { 0 };
  gboolean never = FALSE;
  gboolean found;

  start_cli_with (&running, args, preload != NULL ? "LD_PRELOAD" : NULL, preload);
  riv_test_wait_for (&never, 1.0);
  found = process_maps (running.process, lib);
  finish_cli (&running, &run);
  g_assert_cmpint (run.status, ==, 0);
  g_assert_cmpint (json_object_get_int_member (parse_summary (run.out), "completed"), >, 0);
  return found;
}
#endif

/* `load` runs on jemalloc when the build found it (riv-cli-malloc.c), unless
 * the user preloads a library of their own: an empty LD_PRELOAD is none. */
static void
test_jemalloc (Fixture       *fx,
               gconstpointer  data)
{
#ifndef RIV_JEMALLOC
  g_test_skip ("built without jemalloc (libjemalloc-dev, see .ci/deps)");
#else
  if (!g_file_test (RIV_JEMALLOC, G_FILE_TEST_EXISTS))
    {
      g_test_skip ("built with jemalloc, but " RIV_JEMALLOC " is gone");
      return;
    }
  g_assert_true (load_runs_on (fx, NULL, "libjemalloc"));
  /* Set but empty, as valgrind hands it to the programs it starts. */
  g_assert_true (load_runs_on (fx, "", "libjemalloc"));
  g_assert_false (load_runs_on (fx, "libc.so.6", "libjemalloc"));
#endif
}

/* An HTTPS server with a certificate for 127.0.0.1 signed by a CA of the
 * test's own (made with openssl), answering /config as a Gradio app. */
static const char tls_config[] =
  "{\"version\":\"6.25.0\",\"protocol\":\"sse_v3\",\"api_prefix\":\"/gradio_api\","
  "\"components\":[],\"dependencies\":[]}";

static void
tls_handler (SoupServer        *server,
             SoupServerMessage *msg,
             const char        *path,
             GHashTable        *query,
             gpointer           user_data)
{
  soup_server_message_set_status (msg, 200, NULL);
  soup_server_message_set_response (msg, "application/json", SOUP_MEMORY_STATIC,
                                    g_str_has_suffix (path, "/config") ? tls_config : "{}",
                                    g_str_has_suffix (path, "/config") ? strlen (tls_config) : 2);
}

static gboolean
openssl (Fixture    *fx,
         const char *command)
{
  g_autofree char *line = g_strdup_printf ("sh -c 'cd \"%s\" && %s'", fx->dir, command);
  g_autoptr(GError) error = NULL;
  int status = 0;

  if (!g_spawn_command_line_sync (line, NULL, NULL, &status, &error) ||
      !g_spawn_check_wait_status (status, NULL))
    g_error ("%s failed: %s", command, error ? error->message : "exit status");
  return TRUE;
}

static void
test_tls (Fixture       *fx,
          gconstpointer  data)
{
  g_autoptr(SoupServer) server = NULL;
  g_autoptr(GTlsCertificate) certificate = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *ca = path_in (fx, "ca.pem");
  g_autofree char *chain = path_in (fx, "chain.pem");
  g_autofree char *key = path_in (fx, "server.key");
  g_autofree char *not_pem = path_in (fx, "notes.txt");
  g_autofree char *missing = path_in (fx, "no-such.pem");
  g_autofree char *url = NULL;
  g_autofree char *openssl_path = g_find_program_in_path ("openssl");
  GSList *uris;

  if (openssl_path == NULL)
    {
      g_test_skip ("no openssl to make a certificate with");
      return;
    }
  openssl (fx, "openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes "
               "-keyout ca.key -out ca.pem -days 2 -subj /CN=test-ca "
               "-addext basicConstraints=critical,CA:TRUE 2>/dev/null");
  openssl (fx, "openssl req -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes "
               "-keyout server.key -out server.csr -subj /CN=127.0.0.1 2>/dev/null && "
               "printf \"subjectAltName=IP:127.0.0.1\\n\" >san.ext && "
               "openssl x509 -req -in server.csr -CA ca.pem -CAkey ca.key -CAcreateserial "
               "-out server.pem -days 2 -extfile san.ext 2>/dev/null && cat server.pem >chain.pem");
  certificate = g_tls_certificate_new_from_files (chain, key, &error);
  g_assert_no_error (error);
  server = soup_server_new ("tls-certificate", certificate, NULL);
  soup_server_add_handler (server, NULL, tls_handler, NULL, NULL);
  soup_server_listen_local (server, 0, SOUP_SERVER_LISTEN_IPV4_ONLY | SOUP_SERVER_LISTEN_HTTPS,
                            &error);
  g_assert_no_error (error);
  uris = soup_server_get_uris (server);
  url = g_strdup_printf ("https://127.0.0.1:%d", g_uri_get_port (uris->data));
  g_slist_free_full (uris, (GDestroyNotify) g_uri_unref);
  g_assert_true (g_file_set_contents (not_pem, "just some notes\n", -1, NULL));

  {
    g_auto(RivTestCliRun) untrusted = { 0 };
    g_auto(RivTestCliRun) trusted = { 0 };
    g_auto(RivTestCliRun) insecure = { 0 };

    /* Not trusted: said, with both ways out. */
    run_cli (&untrusted, "inspect", "--url", url, NULL);
    g_assert_cmpint (untrusted.status, ==, 1);
    g_assert_nonnull (strstr (untrusted.err, "TLS certificate is not trusted"));
    g_assert_nonnull (strstr (untrusted.err, "authority"));
    g_assert_nonnull (strstr (untrusted.err, "--ca-file"));
    g_assert_nonnull (strstr (untrusted.err, "--insecure"));
    run_cli (&trusted, "inspect", "--url", url, "--ca-file", ca, NULL);
    g_assert_cmpint (trusted.status, ==, 0);
    g_assert_nonnull (strstr (trusted.out, "Version   6.25.0"));
    g_assert_null (strstr (trusted.out, "NOT checked"));
    run_cli (&insecure, "inspect", "--url", url, "--insecure", NULL);
    g_assert_cmpint (insecure.status, ==, 0);
    g_assert_nonnull (strstr (insecure.out, "certificate NOT checked (--insecure)"));
  }

  /* Bad input, in both commands that connect: a usage error naming it. */
  {
    const struct
    {
      const char *file;
      gboolean    insecure;
      const char *named;
    } bad[] = {
      { missing, FALSE, "--ca-file: Cannot read the CA file" },
      { not_pem, FALSE, "notes.txt is not a PEM certificate" },
      { ca, TRUE, "--ca-file and --insecure do not go together" },
    };

    for (guint i = 0; i < G_N_ELEMENTS (bad); i++)
      {
        g_auto(RivTestCliRun) load = { 0 };
        g_auto(RivTestCliRun) inspect = { 0 };
        const char *last = bad[i].insecure ? "--insecure" : NULL;

        run_cli (&load, "load", "--url", url, "--endpoint", "x", "--ca-file", bad[i].file, last, NULL);
        run_cli (&inspect, "inspect", "--url", url, "--ca-file", bad[i].file, last, NULL);
        g_assert_cmpint (load.status, ==, 2);
        g_assert_cmpint (inspect.status, ==, 2);
        if (strstr (load.err, bad[i].named) == NULL || strstr (inspect.err, bad[i].named) == NULL)
          g_error ("--ca-file %s: the error does not say \"%s\":\n%s%s", bad[i].file, bad[i].named,
                   load.err, inspect.err);
      }
  }
  soup_server_disconnect (server);
}

/* Each command's help names the command in its usage line. */
static void
test_help_names_command (void)
{
  static const char *const commands[] = { "serve", "load", "inspect" };

  for (guint i = 0; i < G_N_ELEMENTS (commands); i++)
    {
      g_auto(RivTestCliRun) run = { 0 };
      g_autofree char *usage = g_strdup_printf ("rivulet-cli %s [OPTION…]", commands[i]);

      run_cli (&run, commands[i], "--help", NULL);
      g_assert_cmpint (run.status, ==, 0);
      g_assert_true (g_str_has_prefix (run.out, "Usage:"));
      if (strstr (run.out, usage) == NULL)
        g_error ("\"%s --help\" does not say \"%s\":\n%s", commands[i], usage, run.out);
      /* The commands that connect take the TLS options. */
      if (i > 0 && (strstr (run.out, "--ca-file=PEM") == NULL || strstr (run.out, "--insecure") == NULL))
        g_error ("\"%s --help\" does not list --ca-file and --insecure:\n%s", commands[i], run.out);
    }
}

/* ---- load --until-break (breakpoint tests) ---- */

/* Restarts the fixture's server with a small queue: concurrency jobs run at
 * once, max_queue wait, the next join is refused (HTTP 503). */
static void
restart_with_queue (Fixture *fx,
                    guint    concurrency,
                    guint    max_queue)
{
  g_autoptr(GError) error = NULL;

  riv_server_shutdown (fx->server);
  g_clear_object (&fx->server);
  g_clear_pointer (&fx->url, g_free);
  fx->server = riv_server_new ();
  g_object_set (fx->server, "concurrency", concurrency, "max-queue", max_queue, NULL);
  riv_server_listen (fx->server, NULL, 0, &error);
  g_assert_no_error (error);
  fx->url = riv_server_dup_url (fx->server);
}

/* Users ramp from 0 to 60 against a server that runs 2 jobs and queues 10: a
 * user's job is always in the queue or running, so the 13th user is the
 * first who can be refused. The run stops there, names it, and still counts
 * every job. */
static void
test_until_break_queue_full (Fixture       *fx,
                             gconstpointer  data)
{
  g_auto(RivTestCliRun) run = { 0 };
  g_auto(RivTestCliRun) text = { 0 };
  g_autofree char *report = path_in (fx, "break.html");
  g_autofree char *html = NULL;
  JsonObject *summary, *bp;

  restart_with_queue (fx, 2, 10);
  run_cli (&run, "load", "--url", fx->url, "--endpoint", "stream_text", "--users", "60",
           "--duration", "15", "--until-break", "--data", "[\"u{u}\", 5, 0.05]",
           "--report", report, "--json", NULL);
  g_assert_cmpint (run.status, ==, 0);
  summary = parse_summary (run.out);
  bp = json_object_get_object_member (summary, "breakpoint");
  g_assert_nonnull (bp);
  g_assert_cmpstr (json_object_get_string_member (bp, "reason"), ==, "queue full");
  g_assert_cmpint (json_object_get_int_member (bp, "users"), >=, 13);
  g_assert_cmpint (json_object_get_int_member (bp, "users"), <, 60);
  g_assert_cmpint (json_object_get_int_member (bp, "sessions"), >=,
                   json_object_get_int_member (bp, "users"));
  g_assert_cmpfloat (json_object_get_double_member (bp, "rate_per_s"), >, 0);
  g_assert_cmpfloat (json_object_get_double_member (bp, "p95_s_before"), >=, 0.25);
  g_assert_nonnull (strstr (json_object_get_string_member (bp, "error"), "Queue is full"));
  /* The ramp stopped: nowhere near 60 users, and every job is accounted for. */
  g_assert_cmpint (json_object_get_int_member (summary, "users"), <, 60);
  g_assert_cmpint (json_object_get_int_member (summary, "lost"), ==, 0);
  g_assert_cmpint (json_object_get_int_member (summary, "completed") +
                   json_object_get_int_member (summary, "failed"), ==,
                   json_object_get_int_member (summary, "submitted"));

  g_file_get_contents (report, &html, NULL, NULL);
  g_assert_nonnull (html);
  g_assert_nonnull (strstr (html, "breaking point"));
  g_assert_nonnull (strstr (html, ": queue full"));

  run_cli (&text, "load", "--url", fx->url, "--endpoint", "stream_text", "--users", "60",
           "--duration", "15", "--until-break", "--data", "[\"u{u}\", 5, 0.05]", NULL);
  g_assert_cmpint (text.status, ==, 0);
  g_assert_nonnull (strstr (text.out, "\nbreakpoint after "));
  g_assert_nonnull (strstr (text.out, "): queue full\n"));
}

/* An arrival rate ramped in one session (open loop) breaks the same queue;
 * one session, no users. */
static void
test_until_break_rate (Fixture       *fx,
                       gconstpointer  data)
{
  g_auto(RivTestCliRun) run = { 0 };
  JsonObject *summary, *bp;

  restart_with_queue (fx, 1, 5);
  run_cli (&run, "load", "--url", fx->url, "--endpoint", "stream_text", "--rate", "40",
           "--duration", "10", "--until-break", "--data", "[\"r{i}\", 5, 0.05]", "--json", NULL);
  g_assert_cmpint (run.status, ==, 0);
  summary = parse_summary (run.out);
  bp = json_object_get_object_member (summary, "breakpoint");
  g_assert_nonnull (bp);
  g_assert_cmpstr (json_object_get_string_member (bp, "reason"), ==, "queue full");
  g_assert_cmpint (json_object_get_int_member (bp, "sessions"), ==, 1);
  g_assert_cmpint (json_object_get_int_member (bp, "users"), ==, 0);
  /* 0 → 40 jobs/s over 10 s is 200 jobs; the ramp stopped well before. */
  g_assert_cmpint (json_object_get_int_member (summary, "submitted"), <, 200);
  g_assert_cmpint (json_object_get_int_member (summary, "submitted"), >=, 7);
}

/* Nothing breaks: "breakpoint" is null and the run ends with its ramp. A
 * threshold that fails while the run goes is a breaking point of its own. */
static void
test_until_break_none_and_threshold (Fixture       *fx,
                                     gconstpointer  data)
{
  g_auto(RivTestCliRun) none = { 0 };
  g_auto(RivTestCliRun) slow = { 0 };
  JsonObject *summary, *bp;

  run_cli (&none, "load", "--url", fx->url, "--endpoint", "batch_echo", "--stages", "2s:4",
           "--until-break", "--data", "[\"x\", 0.01]", "--json", NULL);
  g_assert_cmpint (none.status, ==, 0);
  summary = parse_summary (none.out);
  g_assert_true (json_object_has_member (summary, "breakpoint"));
  g_assert_true (JSON_NODE_HOLDS_NULL (json_object_get_member (summary, "breakpoint")));
  g_assert_cmpint (json_object_get_int_member (summary, "completed"), >, 0);
  g_assert_cmpint (json_object_get_int_member (summary, "failed"), ==, 0);

  /* Every job takes 0.25 s: p95 < 100 ms cannot hold once one completed. */
  run_cli (&slow, "load", "--url", fx->url, "--endpoint", "stream_text", "--stages", "20s:20",
           "--until-break", "--threshold", "p95<100ms", "--threshold", "completed>=100000",
           "--data", "[\"s\", 5, 0.05]", "--json", NULL);
  g_assert_cmpint (slow.status, ==, 0);
  summary = parse_summary (slow.out);
  bp = json_object_get_object_member (summary, "breakpoint");
  g_assert_nonnull (bp);
  g_assert_true (g_str_has_prefix (json_object_get_string_member (bp, "reason"),
                                   "latency p95 went over 100.0ms (threshold p95<100ms, "
                                   "measured "));
  g_assert_cmpfloat (json_object_get_double_member (bp, "t_s"), <, 10);
}

/* --until-break needs something to ramp. */
static void
test_until_break_bad_flags (Fixture       *fx,
                            gconstpointer  data)
{
  static const char *const cases[][8] = {
    { "--users", "5", NULL },
    { "--users", "5", "--iterations", "2", NULL },
    { "--rate", "10", NULL },
    { "--count", "10", NULL },
    { NULL },
  };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_auto(RivTestCliRun) run = { 0 };
      const char *const *c = cases[i];

      run_cli (&run, "load", "--url", fx->url, "--endpoint", "batch_echo", "--until-break",
               c[0], c[0] ? c[1] : NULL, c[0] && c[1] ? c[2] : NULL,
               c[0] && c[1] && c[2] ? c[3] : NULL, NULL);
      g_assert_cmpint (run.status, ==, 2);
      if (strstr (run.err, "--until-break needs a ramp") == NULL)
        g_error ("--until-break %s: no clear error:\n%s", c[0] ? c[0] : "", run.err);
    }
  {
    g_auto(RivTestCliRun) run = { 0 };

    run_cli (&run, "load", "--url", fx->url, "--endpoint", "batch_echo", "--until-break",
             "--stages", "5s:5", "--count", "10", NULL);
    g_assert_cmpint (run.status, ==, 2);
    g_assert_nonnull (strstr (run.err, "--count"));
  }
  g_assert_cmpuint (riv_server_get_n_completed (fx->server), ==, 0);
}

/* The embedded server out of file descriptors (a hard limit of 64) stops
 * answering joins: the breakpoint is "timeouts", placed at the users there
 * were when the first unanswered join was sent, below the limit. */
static void
test_until_break_fd_limit (void)
{
  g_autoptr(GSubprocess) serve = NULL;
  g_autoptr(GDataInputStream) lines = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *line = NULL;
  g_autofree char *prlimit = g_find_program_in_path ("prlimit");
  g_auto(RivTestCliRun) run = { 0 };
  const char *url;
  JsonObject *summary, *bp;

  if (prlimit == NULL)
    {
      g_test_skip ("no prlimit (util-linux) to give the server a file descriptor limit");
      return;
    }
  serve = g_subprocess_new (G_SUBPROCESS_FLAGS_STDOUT_PIPE | G_SUBPROCESS_FLAGS_STDERR_SILENCE,
                            &error, prlimit, "--nofile=64:64", g_getenv ("RIVULET_CLI"), "serve",
                            "--port", "0", NULL);
  g_assert_no_error (error);
  lines = g_data_input_stream_new (g_subprocess_get_stdout_pipe (serve));
  line = g_data_input_stream_read_line (lines, NULL, NULL, &error);
  g_assert_no_error (error);
  g_assert_nonnull (line);
  url = strstr (line, "http://");
  g_assert_nonnull (url);

  /* 0 → 200 users over 10 s; the first join left unanswered is seen 30 s later.
   * Each job streams for 8 s. The 64th user starts 3.2 s in, before the
   * first user's first job has ended, so every user started holds a stream
   * (a descriptor) when the limit is reached, however slowly the client
   * turns its jobs around (a user between two jobs holds none: with 2.5 s
   * jobs, a client slowed by ASan let 68 and 76 users through). */
  run_cli (&run, "load", "--url", url, "--endpoint", "stream_text", "--users", "200",
           "--duration", "10", "--until-break", "--timeout", "40",
           "--data", "[\"u{u}\", 16, 0.5]", "--json", NULL);
  g_subprocess_force_exit (serve);
  summary = parse_summary (run.out);
  bp = json_object_get_object_member (summary, "breakpoint");
  g_assert_nonnull (bp);
  g_assert_cmpstr (json_object_get_string_member (bp, "reason"), ==, "timeouts");
  g_assert_cmpint (json_object_get_int_member (bp, "users"), <, 64);
  g_assert_cmpint (json_object_get_int_member (bp, "users"), >=, 10);
  g_assert_nonnull (strstr (json_object_get_string_member (bp, "error"), "join"));
}

/* --metrics: a port that is taken, or an address that is not one, exits 2
 * naming it, before any job. */
static void
test_metrics_bad_address (Fixture       *fx,
                          gconstpointer  data)
{
  g_autoptr(GSocketAddress) any = NULL;
  g_autoptr(GSocket) taken = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *address = NULL;
  guint port = 0;
  static const struct
  {
    const char *address;
    const char *named;
  } cases[] = {
    { "127.0.0.1:99999", "\"99999\" is not a port" },
    { "example.org:9464", "\"example.org\" is not an IP address" },
    { "127.0.0.1:", "\"\" is not a port" },
  };

  any = g_inet_socket_address_new_from_string ("127.0.0.1", 0);
  taken = riv_listen_socket (any, 0, &port, &error);
  g_assert_no_error (error);
  address = g_strdup_printf ("127.0.0.1:%u", port);
  {
    g_auto(RivTestCliRun) run = { 0 };

    run_cli (&run, "load", "--url", fx->url, "--endpoint", "batch_echo", "--count", "3",
             "--metrics", address, NULL);
    g_assert_cmpint (run.status, ==, 2);
    g_assert_nonnull (strstr (run.err, "--metrics: cannot listen on"));
    g_assert_nonnull (strstr (run.err, address));
  }
  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_auto(RivTestCliRun) run = { 0 };

      run_cli (&run, "load", "--url", fx->url, "--endpoint", "batch_echo", "--count", "3",
               "--metrics", cases[i].address, NULL);
      g_assert_cmpint (run.status, ==, 2);
      if (strstr (run.err, cases[i].named) == NULL)
        g_error ("--metrics %s: the error does not name %s:\n%s", cases[i].address,
                 cases[i].named, run.err);
    }
  g_assert_cmpuint (riv_server_get_n_completed (fx->server), ==, 0);
}

/* POSTs n_parts parts of content, each named name, to serve's /upload; the
 * HTTP status, and on 200 the download URL of the first file in *file_url. */
static guint
serve_upload (SoupSession  *session,
              const char   *url,
              const char   *name,
              GBytes       *content,
              guint         n_parts,
              char        **file_url)
{
  g_autoptr(SoupMultipart) multipart = soup_multipart_new ("multipart/form-data");
  g_autofree char *target = g_strconcat (url, "/gradio_api/upload", NULL);
  g_autoptr(SoupMessage) msg = NULL;
  g_autoptr(GBytes) body = NULL;
  g_autoptr(JsonNode) paths = NULL;
  g_autoptr(GError) error = NULL;

  for (guint i = 0; i < n_parts; i++)
    soup_multipart_append_form_file (multipart, "files", name, "application/octet-stream",
                                     content);
  msg = soup_message_new_from_multipart (target, multipart);
  body = soup_send (session, msg);
  if (soup_message_get_status (msg) != 200)
    return soup_message_get_status (msg);
  paths = riv_json_parse (NULL, g_bytes_get_data (body, NULL), g_bytes_get_size (body), 8, &error);
  g_assert_no_error (error);
  *file_url = g_strdup_printf ("%s/gradio_api/file=%s", url,
                               json_array_get_string_element (json_node_get_array (paths), 0));
  return 200;
}

/* The finding: 15,000 ranges of "0-" on a 1 MB upload made serve build a
 * 7.9 GB reply in memory and abort under a 4 GB limit. Under 2 GiB it now
 * answers with the file once and goes on serving. */
static void
test_serve_hostile_ranges (void)
{
  g_autoptr(GSubprocessLauncher) launcher =
    g_subprocess_launcher_new (G_SUBPROCESS_FLAGS_STDOUT_PIPE | G_SUBPROCESS_FLAGS_STDERR_SILENCE);
  g_autoptr(GSubprocess) serve = NULL;
  g_autoptr(SoupSession) session = soup_session_new_with_options ("timeout", 0, NULL);
  g_autoptr(SoupMessage) msg = NULL;
  g_autoptr(GBytes) content = NULL;
  g_autoptr(GBytes) body = NULL;
  g_autoptr(GString) range = g_string_new ("bytes=");
  g_autofree char *url = NULL;
  g_autofree char *uri = NULL;
  g_autofree guint8 *buf = g_malloc (1000 * 1000);

#if defined(__SANITIZE_ADDRESS__)
  g_test_skip ("AddressSanitizer reserves more address space than the limit");
  return;
#endif

  g_subprocess_launcher_set_child_setup (launcher, limit_address_space, NULL, NULL);
  serve = spawn_serve (launcher, NULL, &url);

  for (gsize i = 0; i < 1000 * 1000; i++)
    buf[i] = i % 251;
  content = g_bytes_new (buf, 1000 * 1000);
  g_assert_cmpuint (serve_upload (session, url, "big.bin", content, 1, &uri), ==, 200);

  for (guint i = 0; i < 15000; i++)
    g_string_append (range, i == 0 ? "0-" : ",0-");
  msg = soup_message_new ("GET", uri);
  soup_message_headers_replace (soup_message_get_request_headers (msg), "Range", range->str);
  body = soup_send (session, msg);
  g_assert_cmpuint (soup_message_get_status (msg), ==, 200);
  g_assert_true (g_bytes_equal (body, content));
  g_clear_object (&msg);
  g_clear_pointer (&body, g_bytes_unref);
  g_free (uri);

  /* Still serving, and it stops as asked. */
  uri = g_strconcat (url, "/config", NULL);
  msg = soup_message_new ("GET", uri);
  body = soup_send (session, msg);
  g_assert_cmpuint (soup_message_get_status (msg), ==, 200);
  stop_serve (serve);
}

/* GET url/config with one header; the status, and the CORS origin in
 * *allowed (nullable). */
static guint
get_config_with (SoupSession  *session,
                 const char   *url,
                 const char   *name,
                 const char   *value,
                 char        **allowed)
{
  g_autofree char *uri = g_strconcat (url, "/config", NULL);
  g_autoptr(SoupMessage) msg = soup_message_new ("GET", uri);
  g_autoptr(GBytes) body = NULL;

  soup_message_headers_replace (soup_message_get_request_headers (msg), name, value);
  body = soup_send (session, msg);
  if (allowed != NULL)
    *allowed = g_strdup (soup_message_headers_get_one (soup_message_get_response_headers (msg),
                                                       "Access-Control-Allow-Origin"));
  return soup_message_get_status (msg);
}

/* serve --allow-host and --allow-origin reach the server: a proxy's Host
 * name and a page's origin given are served, others refused. */
static void
test_serve_allow_host_origin (void)
{
  static const char * const extra[] = {
    "--allow-host", "proxy.example.test", "--allow-host", "other.example.test",
    "--allow-origin", "https://app.example.test", NULL
  };
  g_autoptr(GSubprocessLauncher) launcher =
    g_subprocess_launcher_new (G_SUBPROCESS_FLAGS_STDOUT_PIPE | G_SUBPROCESS_FLAGS_STDERR_SILENCE);
  g_autoptr(GSubprocess) serve = NULL;
  g_autoptr(SoupSession) session = soup_session_new_with_options ("timeout", 0, NULL);
  g_autofree char *url = NULL;
  g_autofree char *allowed = NULL;

  serve = spawn_serve (launcher, extra, &url);
  g_assert_cmpuint (get_config_with (session, url, "Host", "proxy.example.test", NULL), ==, 200);
  g_assert_cmpuint (get_config_with (session, url, "Host", "other.example.test:8080", NULL), ==,
                    200);
  g_assert_cmpuint (get_config_with (session, url, "Host", "rebind.example.test", NULL), ==, 403);
  g_assert_cmpuint (get_config_with (session, url, "Origin", "https://app.example.test", &allowed),
                    ==, 200);
  g_assert_cmpstr (allowed, ==, "https://app.example.test");
  g_clear_pointer (&allowed, g_free);
  g_assert_cmpuint (get_config_with (session, url, "Origin", "https://evil.example.test", &allowed),
                    ==, 403);
  g_assert_null (allowed);
  stop_serve (serve);
}

/* The limits of serve's options reach the server: --max-ranges,
 * --max-upload-parts, --max-session-uploads, --header-timeout (a connection
 * that sends nothing is closed). */
static void
test_serve_limits (void)
{
  static const char * const extra[] = {
    "--max-ranges", "1", "--max-upload-parts", "2", "--max-session-uploads", "1",
    "--max-session-upload-bytes", "4096", "--header-timeout", "0.2", "--idle-timeout", "0.2",
    NULL
  };
  g_autoptr(GSubprocessLauncher) launcher =
    g_subprocess_launcher_new (G_SUBPROCESS_FLAGS_STDOUT_PIPE | G_SUBPROCESS_FLAGS_STDERR_SILENCE);
  g_autoptr(GSubprocess) serve = NULL;
  g_autoptr(SoupSession) session = soup_session_new_with_options ("timeout", 0, NULL);
  g_autoptr(GBytes) content = g_bytes_new_static ("0123456789", 10);
  g_autoptr(GBytes) body = NULL;
  g_autoptr(SoupMessage) msg = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(GSocketClient) socket_client = g_socket_client_new ();
  g_autoptr(GSocketConnection) conn = NULL;
  g_autoptr(GAsyncResult) result = NULL;
  g_autoptr(GUri) uri = NULL;
  g_autofree char *url = NULL;
  g_autofree char *target = NULL;
  char byte;

  serve = spawn_serve (launcher, extra, &url);

  /* Three parts, two allowed; one part kept, and a byte range of it. */
  g_assert_cmpuint (serve_upload (session, url, "d.bin", content, 3, &target), ==, 413);
  g_assert_cmpuint (serve_upload (session, url, "d.bin", content, 1, &target), ==, 200);
  msg = soup_message_new ("GET", target);
  soup_message_headers_replace (soup_message_get_request_headers (msg), "Range", "bytes=1-2");
  body = soup_send (session, msg);
  g_assert_cmpuint (soup_message_get_status (msg), ==, 206);
  g_clear_object (&msg);
  g_clear_pointer (&body, g_bytes_unref);
  /* Two ranges, one allowed: the whole file. */
  msg = soup_message_new ("GET", target);
  soup_message_headers_replace (soup_message_get_request_headers (msg), "Range", "bytes=1-2,4-5");
  body = soup_send (session, msg);
  g_assert_cmpuint (soup_message_get_status (msg), ==, 200);
  g_assert_true (g_bytes_equal (body, content));

  /* A connection that sends nothing is closed. */
  uri = g_uri_parse (url, G_URI_FLAGS_NONE, &error);
  g_assert_no_error (error);
  conn = g_socket_client_connect_to_host (socket_client, "127.0.0.1", g_uri_get_port (uri), NULL,
                                          &error);
  g_assert_no_error (error);
  g_input_stream_read_async (g_io_stream_get_input_stream (G_IO_STREAM (conn)), &byte, 1,
                             G_PRIORITY_DEFAULT, NULL, riv_test_async_result_cb, &result);
  riv_test_wait_result (&result, HANG_GUARD);
  g_assert_cmpint (g_input_stream_read_finish (g_io_stream_get_input_stream (G_IO_STREAM (conn)),
                                               result, NULL), ==, 0);
  stop_serve (serve);
}

/* Scripted servers ------------------------------------------------------------------------ */

/* /config is never answered. */
static void
silent_handler (SoupServer        *server,
                SoupServerMessage *msg,
                const char        *path,
                GHashTable        *query,
                gpointer           user_data)
{
  soup_server_message_pause (msg);
}

/* --timeout bounds the connect too: a server that never answers /config
 * ends the run well before the client's own 30 s. */
static void
test_connect_timeout (void)
{
  g_autofree char *url = NULL;
  SoupServer *server = riv_test_server_new (silent_handler, NULL, &url, NULL);
  g_auto(RivTestCliRun) run = { 0 };
  double start = g_get_monotonic_time () / 1e6;
  double took;

  run_cli (&run, "load", "--url", url, "--endpoint", "predict", "--timeout", "2", NULL);
  took = g_get_monotonic_time () / 1e6 - start;
  g_test_message ("exit %d after %.1f s: %s", run.status, took, run.err);
  g_assert_cmpint (run.status, ==, 1);
  g_assert_nonnull (strstr (run.err, "no answer within 2 s"));
  /* A hang guard, not a timing claim: the client's own bound is 30 s. */
  g_assert_cmpfloat (took, <, 25);
  riv_test_server_free (server);
}

/* Control characters a server put in its config and its errors: a title
 * that sets the terminal's title and rings, a version that erases the line,
 * a C1 CSI, an error whose CR and newline would forge a "completed" line. */
#define HOSTILE_CONFIG \
  "{\"version\":\"6.0.0\\u001b[2K\",\"protocol\":\"sse_v3\",\"api_prefix\":\"/gradio_api\"," \
  "\"title\":\"\\u001b]0;owned\\u0007Demo\\u009b31m\",\"enable_queue\":true," \
  "\"components\":[{\"id\":1,\"type\":\"textbox\",\"props\":{\"label\":\"in\\u001b[8m\"}}," \
  "{\"id\":2,\"type\":\"textbox\",\"props\":{\"label\":\"out\"}}]," \
  "\"dependencies\":[{\"id\":0,\"api_name\":\"predict\",\"inputs\":[1],\"outputs\":[2]," \
  "\"queue\":true}]}"

static void
hostile_handler (SoupServer        *server,
                 SoupServerMessage *msg,
                 const char        *path,
                 GHashTable        *query,
                 gpointer           user_data)
{
  if (g_str_equal (path, "/config"))
    riv_test_reply_json (msg, 200, HOSTILE_CONFIG);
  else if (g_str_equal (path, "/gradio_api/info"))
    riv_test_reply_json (msg, 200, "{\"named_endpoints\":{},\"unnamed_endpoints\":{}}");
  else if (g_str_equal (path, "/gradio_api/queue/join"))
    riv_test_reply_json (msg, 500, "{\"detail\":\"boom\\u001b[2K\\r\\ncompleted  10\\n"
                         "\\u009b1A\"}");
  else
    riv_test_reply_json (msg, 404, "{\"detail\":\"Not Found\"}");
}

/* Nothing of it reaches the terminal as it is: escaped, in inspect, in
 * load's errors and in the summary. */
static void
test_server_text_escaped (void)
{
  g_autofree char *url = NULL;
  SoupServer *server = riv_test_server_new (hostile_handler, NULL, &url, NULL);
  g_auto(RivTestCliRun) inspect = { 0 };
  g_auto(RivTestCliRun) load = { 0 };
  const char *outputs[4];

  run_cli (&inspect, "inspect", "--url", url, NULL);
  g_assert_cmpint (inspect.status, ==, 0);
  g_assert_nonnull (strstr (inspect.out, "Title     \\x1b]0;owned\\x07Demo\\u009b31m\n"));
  g_assert_nonnull (strstr (inspect.out, "Version   6.0.0\\x1b[2K\n"));
  run_cli (&load, "load", "--url", url, "--endpoint", "predict", "--data", "[\"x\"]", NULL);
  g_assert_cmpint (load.status, ==, 1);
  g_test_message ("%s", load.err);
  g_assert_nonnull (strstr (load.err, "boom\\x1b[2K\\x0d\\x0acompleted  10\\x0a\\u009b1A"));
  g_assert_nonnull (strstr (load.out, "completed  0\n"));
  g_assert_null (strstr (load.out, "completed  10"));

  outputs[0] = inspect.out;
  outputs[1] = inspect.err;
  outputs[2] = load.out;
  outputs[3] = load.err;
  for (guint i = 0; i < G_N_ELEMENTS (outputs); i++)
    {
      g_assert_null (strchr (outputs[i], '\033'));
      g_assert_null (strchr (outputs[i], '\a'));
      g_assert_null (strchr (outputs[i], '\r'));
      g_assert_null (strstr (outputs[i], "\xc2\x9b"));
    }
  riv_test_server_free (server);
}

/* --data that is not JSON the server can read: a usage error naming --data,
 * before anything is sent. */
static void
test_data_errors (Fixture       *fx,
                  gconstpointer  data)
{
  const char *cases[][2] = {
    { "[1e999]", "1e999" },
    { "[\"a\", {\"b\": [-1e400]}]", "no infinity" },
    { "[\"\xff\"]", "not valid" },
    { "[\"x\"", "not valid JSON" },
  };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_auto(RivTestCliRun) run = { 0 };

      run_cli (&run, "load", "--url", fx->url, "--endpoint", "batch_echo", "--data", cases[i][0],
               NULL);
      g_test_message ("%s", run.err);
      g_assert_cmpint (run.status, ==, 2);
      g_assert_nonnull (strstr (run.err, "--data"));
      g_assert_nonnull (strstr (run.err, cases[i][1]));
    }
  g_assert_cmpuint (riv_server_get_n_completed (fx->server), ==, 0);
}

/* --data as the official clients' keyword arguments: by parameter name,
 * in any order, the others taking their defaults. */
static void
test_data_keywords (Fixture       *fx,
                    gconstpointer  data)
{
  g_auto(RivTestCliRun) run = { 0 };
  g_autofree char *records = path_in (fx, "keywords.jsonl");
  g_autofree char *text = NULL;
  g_auto(GStrv) lines = NULL;
  guint n = 0;

  run_cli (&run, "load", "--url", fx->url, "--endpoint", "batch_echo", "--count", "3",
           "--data", "{\"delay\": 0, \"text\": \"kw {i}\"}", "--output", records, NULL);
  g_assert_cmpint (run.status, ==, 0);
  g_assert_true (g_file_get_contents (records, &text, NULL, NULL));
  lines = g_strsplit (text, "\n", -1);
  for (guint i = 0; lines[i] != NULL; i++)
    if (*lines[i] != '\0')
      {
        g_autoptr(JsonNode) record = riv_json_parse (NULL, lines[i], -1, 0, NULL);
        JsonObject *object = json_node_get_object (record);
        gint64 index = 0;
        g_autofree char *expected = NULL;
        JsonArray *outputs = json_object_get_array_member (object, "outputs");

        riv_json_get_int (object, "index", &index);
        expected = g_strdup_printf ("kw %" G_GINT64_FORMAT, index);
        g_assert_cmpstr (riv_json_get_string (object, "status"), ==, "completed");
        g_assert_cmpstr (json_array_get_string_element (outputs, 0), ==, expected);
        n++;
      }
  g_assert_cmpuint (n, ==, 3);
}

/* A password in a URL is never printed back. */
static void
test_url_password (void)
{
  const char *urls[] = {
    "http://ada:s3cret@127.0.0.1:1",
    "ada:s3cret@127.0.0.1:1",
    "http://ada:s3cret@127.0.0.1:1/app#x",
    "http://ada:s3cret@127.0.0.1:1/a b",
  };

  for (guint i = 0; i < G_N_ELEMENTS (urls); i++)
    {
      g_auto(RivTestCliRun) inspect = { 0 };
      g_auto(RivTestCliRun) load = { 0 };

      run_cli (&inspect, "inspect", "--url", urls[i], NULL);
      run_cli (&load, "load", "--url", urls[i], "--endpoint", "predict", NULL);
      g_test_message ("%s", inspect.err);
      g_assert_cmpint (inspect.status, ==, 2);
      g_assert_cmpint (load.status, ==, 2);
      g_assert_null (strstr (inspect.err, "s3cret"));
      g_assert_null (strstr (load.err, "s3cret"));
      g_assert_nonnull (strstr (inspect.err, "ada:***@127.0.0.1"));
    }
}

/* Every local file the jobs upload is named once in the summary, whatever
 * the endpoint's input (batch_echo's is a textbox: the server then refuses
 * the value, after the upload). */
static void
test_uploaded_files_named (Fixture       *fx,
                           gconstpointer  data)
{
  g_autofree char *a = path_in (fx, "a.txt");
  g_autofree char *b = path_in (fx, "b.wav");
  g_autofree char *numbered = path_in (fx, "f{i}.txt");
  g_autofree char *f1 = path_in (fx, "f1.txt");
  g_autofree char *f2 = path_in (fx, "f2.txt");
  g_autofree char *two = g_strdup_printf ("[[{\"path\": \"%s\", \"meta\": {\"_type\": "
                                          "\"gradio.FileData\"}}, {\"path\": \"%s\", \"meta\": "
                                          "{\"_type\": \"gradio.FileData\"}}]]", a, b);
  g_autofree char *each = file_data (numbered);
  g_autofree char *line1 = g_strdup_printf ("uploaded   2 files: %s, %s\n", a, b);
  g_autofree char *line2 = g_strdup_printf ("uploaded   2 files: %s, %s\n", f1, f2);
  g_auto(RivTestCliRun) run1 = { 0 };
  g_auto(RivTestCliRun) run2 = { 0 };
  g_auto(RivTestCliRun) run3 = { 0 };

  g_assert_true (g_file_set_contents (a, "text", -1, NULL));
  g_assert_true (g_file_set_contents (b, "RIFF", -1, NULL));
  g_assert_true (g_file_set_contents (f1, "one", -1, NULL));
  g_assert_true (g_file_set_contents (f2, "two", -1, NULL));

  run_cli (&run1, "load", "--url", fx->url, "--endpoint", "batch_echo", "--data", two,
           "--count", "3", NULL);
  g_assert_cmpint (run1.status, ==, 1);
  g_assert_nonnull (strstr (run1.out, line1));
  run_cli (&run2, "load", "--url", fx->url, "--endpoint", "batch_echo", "--data", each,
           "--count", "2", NULL);
  g_assert_nonnull (strstr (run2.out, line2));
  /* No file, no line. */
  run_cli (&run3, "load", "--url", fx->url, "--endpoint", "batch_echo", "--data", "[\"x\"]",
           NULL);
  g_assert_cmpint (run3.status, ==, 0);
  g_assert_null (strstr (run3.out, "uploaded "));
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);

#define ADD(path, func) \
  g_test_add (path, Fixture, NULL, fixture_setup, func, fixture_teardown)
  ADD ("/cli/load/output/batch", test_output_batch);
  ADD ("/cli/load/output/stream-stdout", test_output_stream_stdout);
  ADD ("/cli/load/output/failed", test_output_failed);
  ADD ("/cli/load/output/lost", test_output_lost);
  ADD ("/cli/load/output/unwritable", test_output_unwritable);
  ADD ("/cli/load/users/iterations", test_users_iterations);
  ADD ("/cli/load/users/duration-think", test_users_duration_think);
  ADD ("/cli/load/users/stages-timeseries", test_stages_timeseries);
  ADD ("/cli/load/thresholds", test_thresholds);
  ADD ("/cli/load/burst-none-lost", test_burst_none_lost);
  ADD ("/cli/load/bad-flags", test_bad_flags);
  ADD ("/cli/load/bad-files", test_bad_files);
  ADD ("/cli/tls", test_tls);
  ADD ("/cli/load/outage", test_outage);
  ADD ("/cli/jemalloc", test_jemalloc);
  ADD ("/cli/load/users/queue-full", test_queue_full);
  ADD ("/cli/load/shards/count", test_shards_count);
  ADD ("/cli/load/shards/users", test_shards_users);
  ADD ("/cli/load/processes/same-jobs", test_processes_same_jobs);
  ADD ("/cli/load/processes/auto", test_processes_auto);
  ADD ("/cli/load/processes/interrupt", test_processes_interrupt);
  ADD ("/cli/report/merge-bad-records", test_merge_bad_records);
  ADD ("/cli/report/merge-client-server", test_merge_client_server);
  ADD ("/cli/report/in-browser", test_report_in_browser);
  ADD ("/cli/load/until-break/queue-full", test_until_break_queue_full);
  ADD ("/cli/load/until-break/rate", test_until_break_rate);
  ADD ("/cli/load/until-break/none-and-threshold", test_until_break_none_and_threshold);
  ADD ("/cli/load/until-break/bad-flags", test_until_break_bad_flags);
  ADD ("/cli/load/metrics/bad-address", test_metrics_bad_address);
  ADD ("/cli/load/data-errors", test_data_errors);
  ADD ("/cli/load/data-keywords", test_data_keywords);
  ADD ("/cli/load/uploaded-files-named", test_uploaded_files_named);
#undef ADD
  g_test_add_func ("/cli/help-names-command", test_help_names_command);
  g_test_add_func ("/cli/huge-pages", test_huge_pages);
  g_test_add_func ("/cli/serve/budget-options", test_serve_budget_options);
  g_test_add_func ("/cli/serve/stalled-readers", test_serve_stalled_readers);
  g_test_add_func ("/cli/load/until-break/fd-limit", test_until_break_fd_limit);
  g_test_add_func ("/cli/serve/hostile-ranges", test_serve_hostile_ranges);
  g_test_add_func ("/cli/serve/allow-host-origin", test_serve_allow_host_origin);
  g_test_add_func ("/cli/serve/limits", test_serve_limits);
  g_test_add_func ("/cli/load/connect-timeout", test_connect_timeout);
  g_test_add_func ("/cli/server-text-escaped", test_server_text_escaped);
  g_test_add_func ("/cli/url-password", test_url_password);

  return g_test_run ();
}
