/* test-record.c
 * Copyright 2026 The Rivulet authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Recording what Rivulet's client sees (its tap): a session with the
 * embedded server is recorded without credentials and lints clean, live and
 * from the file; record → replay → record again gives the same server-side
 * frames; and rivulet-cli load --record / --json, lint and --record-max as a
 * user runs them.
 */
#include "config.h"

#include <string.h>

#include <glib/gstdio.h>

#include "riv-client.h"
#include "riv-compat.h"
#include "riv-json.h"
#include "riv-lint.h"
#include "riv-replay.h"
#include "riv-server.h"
#include "riv-test-served.h"
#include "riv-test-util.h"
#include "riv-transcript.h"

#if defined(__SANITIZE_ADDRESS__)
# define HANG_GUARD 240.0
#else
# define HANG_GUARD 60.0
#endif

#define SECRET "tok-SECRET-4242"

typedef RivTestServed Fixture;

static void
fixture_setup (Fixture       *fx,
               gconstpointer  data)
{
  riv_test_served_start (fx, NULL, "riv-test-record");
}

static void
fixture_teardown (Fixture       *fx,
                  gconstpointer  data)
{
  riv_test_served_stop (fx);
}

/* What a tap feeds: a writer and a lint, either may be NULL. */
typedef struct
{
  RivTranscriptWriter *writer;
  RivLint             *lint;
} Tap;

static void
tap_cb (const RivTapEvent *event,
        gpointer                  user_data)
{
  Tap *tap = user_data;

  if (tap->writer != NULL)
    riv_transcript_writer_add (tap->writer, event);
  if (tap->lint != NULL)
    riv_lint_feed (tap->lint, event);
}

static RivClient *
connect_client (const char *url,
                Tap        *tap)
{
  g_autoptr(GAsyncResult) result = NULL;
  g_autoptr(GError) error = NULL;
  RivClient *client = riv_client_new (url);

  riv_client_set_download_images (client, FALSE);
  riv_client_set_token (client, SECRET);
  riv_client_set_tap (client, tap_cb, tap);
  riv_client_connect_async (client, NULL, riv_test_async_result_cb, &result);
  riv_test_wait_result (&result, HANG_GUARD);
  g_assert_true (riv_client_connect_finish (client, result, &error));
  g_assert_no_error (error);
  return client;
}

static gboolean
no_pending (gpointer client)
{
  return riv_client_get_n_pending (client) == 0;
}

/* Submits each (endpoint, data) pair in order and waits for every job. */
static void
run_jobs (RivClient          *client,
          const char * const *jobs)
{
  g_autoptr(GPtrArray) submitted = g_ptr_array_new_with_free_func (g_object_unref);

  for (guint i = 0; jobs[i] != NULL; i += 2)
    {
      g_autoptr(JsonNode) data = riv_json_parse (NULL, jobs[i + 1], -1, 0, NULL);
      g_autoptr(GError) error = NULL;
      RivJob *job = riv_client_submit (client, jobs[i], data, &error);

      g_assert_no_error (error);
      g_ptr_array_add (submitted, job);
    }
  g_assert_true (riv_test_wait_until (no_pending, client, HANG_GUARD));
  for (guint i = 0; i < submitted->len; i++)
    g_assert_cmpint (riv_job_get_status (submitted->pdata[i]), ==, RIV_JOB_STATUS_COMPLETED);
}

static void
close_client (RivClient *client)
{
  riv_client_close (client);
  riv_test_drain ();
  riv_client_set_tap (client, NULL, NULL);
  g_assert_finalize_object (client);
}

static void
assert_no_findings (RivLint    *lint,
                    const char *what)
{
  GPtrArray *findings = riv_lint_get_findings (lint);

  for (guint i = 0; i < findings->len; i++)
    {
      RivLintFinding *f = findings->pdata[i];

      g_printerr ("%s: %.3f %s %s: %s\n", what, f->t, f->rule, f->event_id, f->message);
    }
  g_assert_cmpuint (findings->len, ==, 0);
}

/* Records one session of jobs against url into path, linting it live. */
static void
record_session (const char         *url,
                const char         *path,
                const char * const *jobs)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(RivLint) lint = riv_lint_new ();
  Tap tap = { NULL, lint };
  RivClient *client;

  tap.writer = riv_transcript_writer_new (path, 0, &error);
  g_assert_no_error (error);
  riv_lint_set_origin (lint, riv_now ());
  client = connect_client (url, &tap);
  run_jobs (client, jobs);
  close_client (client);
  riv_lint_finish (lint, riv_now ());
  assert_no_findings (lint, "live");
  g_assert_true (riv_transcript_writer_close (tap.writer, &error));
  g_assert_no_error (error);
}

static guint
count_kind (GPtrArray         *events,
            RivTapKind         kind,
            const char        *path_suffix)
{
  guint n = 0;

  for (guint i = 0; i < events->len; i++)
    {
      RivTapEvent *event = events->pdata[i];

      if (event->kind == kind && (path_suffix == NULL || g_str_has_suffix (event->path, path_suffix)))
        n++;
    }
  return n;
}

static const char * const every_demo[] = {
  "stream_text", "[\"hello there\", 6, 0.01]",
  "fake_diffusion", "[2, 0.01]",
  "rapid_generation", "[300]",
  "batch_echo", "[\"b1\", 0.05]",
  "batch_echo", "[\"b2\", 0.05]",
  "batch_echo", "[\"b3\", 0.05]",
  "batch_echo", "[\"b4\", 0.05]",
  "batch_echo", "[\"b5\", 0.05]",
  "batch_echo", "[\"b6\", 0.05]",
  NULL,
};

/* The embedded server follows every rule: lint is silent, live and on the
 * file; the file holds the session and no credential. */
static void
test_embedded_clean (Fixture       *fx,
                     gconstpointer  data)
{
  g_autofree char *path = g_build_filename (fx->dir, "embedded.jsonl", NULL);
  g_autofree char *contents = NULL;
  g_autoptr(GPtrArray) events = NULL;
  g_autoptr(RivLint) lint = NULL;
  g_autoptr(GError) error = NULL;

  record_session (fx->url, path, every_demo);

  g_assert_true (g_file_get_contents (path, &contents, NULL, &error));
  g_assert_null (strstr (contents, SECRET));
  events = riv_transcript_load (path, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (count_kind (events, RIV_TAP_RESPONSE, "/config"), ==, 1);
  g_assert_cmpuint (count_kind (events, RIV_TAP_RESPONSE, "/queue/join"), ==, 9);
  g_assert_cmpuint (count_kind (events, RIV_TAP_SSE, NULL), >, 300);
  g_assert_cmpuint (count_kind (events, RIV_TAP_SSE_END, NULL), >=, 1);
  /* Every stream that carried frames has its end in the file, whether the
   * server ended it (close_stream) or the client did, however slow the run. */
  {
    g_autoptr(GHashTable) ended = g_hash_table_new (NULL, NULL);

    for (guint i = 0; i < events->len; i++)
      {
        RivTapEvent *event = events->pdata[i];

        if (event->kind == RIV_TAP_SSE_END)
          {
            g_assert_false (g_hash_table_contains (ended, GUINT_TO_POINTER (event->stream)));
            g_hash_table_add (ended, GUINT_TO_POINTER (event->stream));
          }
      }
    for (guint i = 0; i < events->len; i++)
      {
        RivTapEvent *event = events->pdata[i];

        if (event->kind == RIV_TAP_SSE)
          g_assert_true (g_hash_table_contains (ended, GUINT_TO_POINTER (event->stream)));
      }
  }

  lint = riv_lint_run_transcript (events, 0);
  assert_no_findings (lint, "file");
}

static int
compare_strings (gconstpointer a,
                 gconstpointer b)
{
  return g_strcmp0 (*(const char * const *) a, *(const char * const *) b);
}

/* The data of every frame but heartbeats, in order; then the join replies,
 * sorted (concurrent joins may be answered in any order). */
static GPtrArray *
server_frames (GPtrArray *events)
{
  GPtrArray *frames = g_ptr_array_new ();
  g_autoptr(GPtrArray) replies = g_ptr_array_new ();

  for (guint i = 0; i < events->len; i++)
    {
      RivTapEvent *event = events->pdata[i];

      if (event->kind == RIV_TAP_SSE && strstr (event->text, "\"heartbeat\"") == NULL)
        g_ptr_array_add (frames, (char *) event->text);
      else if (event->kind == RIV_TAP_RESPONSE && g_str_has_suffix (event->path, "/queue/join"))
        g_ptr_array_add (replies, (char *) event->text);
    }
  g_ptr_array_sort (replies, compare_strings);
  g_ptr_array_extend (frames, replies, NULL, NULL);
  return frames;
}

/* Record → replay → record again: the same join replies and frames. */
static void
test_round_trip (Fixture       *fx,
                 gconstpointer  data)
{
  static const char * const jobs[] = {
    "stream_text", "[\"one\", 5, 0.01]",
    "stream_text", "[\"two\", 5, 0.01]",
    "batch_echo", "[\"b1\", 0.05]",
    "batch_echo", "[\"b2\", 0.05]",
    "batch_echo", "[\"b3\", 0.05]",
    NULL,
  };
  g_autofree char *first_path = g_build_filename (fx->dir, "first.jsonl", NULL);
  g_autofree char *second_path = g_build_filename (fx->dir, "second.jsonl", NULL);
  g_autoptr(GPtrArray) first = NULL;
  g_autoptr(GPtrArray) second = NULL;
  g_autoptr(GPtrArray) a = NULL;
  g_autoptr(GPtrArray) b = NULL;
  g_autoptr(RivReplay) replay = NULL;
  g_autofree char *replay_url = NULL;
  g_autoptr(GError) error = NULL;

  record_session (fx->url, first_path, jobs);
  first = riv_transcript_load (first_path, &error);
  g_assert_no_error (error);

  replay = riv_replay_new (first, &error);
  g_assert_no_error (error);
  riv_replay_set_speed (replay, 0);
  g_assert_true (riv_replay_listen (replay, NULL, 0, &error));
  replay_url = riv_replay_dup_url (replay);
  record_session (replay_url, second_path, jobs);
  riv_replay_shutdown (replay);
  riv_test_drain ();

  second = riv_transcript_load (second_path, &error);
  g_assert_no_error (error);
  a = server_frames (first);
  b = server_frames (second);
  g_assert_cmpuint (a->len, >, 10);
  g_assert_cmpuint (a->len, ==, b->len);
  for (guint i = 0; i < a->len; i++)
    g_assert_cmpstr (a->pdata[i], ==, b->pdata[i]);
}

/* rivulet-cli as a user runs it */

typedef RivTestCliRun CliRun;

static void
cli (CliRun             *run,
     const char * const *args)
{
  run->status = riv_test_run_cli (args, &run->out, &run->err, HANG_GUARD * 2);
  g_test_message ("exit %d\nstdout: %s\nstderr: %s", run->status, run->out, run->err);
}

static void
test_cli_load_record (Fixture       *fx,
                      gconstpointer  data)
{
  g_autofree char *path = g_build_filename (fx->dir, "load.jsonl", NULL);
  const char * const args[] = {
    "load", "--url", fx->url, "--endpoint", "batch_echo", "--count", "6",
    "--data", "[\"x{i}\", 0.01]", "--json", "--record", path, "--token", SECRET, NULL,
  };
  g_auto(RivTestCliRun) run = { 0 };
  g_autoptr(JsonNode) summary = NULL;
  g_autoptr(GPtrArray) events = NULL;
  g_autofree char *contents = NULL;
  g_autoptr(GError) error = NULL;
  JsonArray *lint;

  cli (&run, args);
  g_assert_cmpint (run.status, ==, 0);
  summary = json_from_string (run.out, &error);
  g_assert_no_error (error);
  lint = json_object_get_array_member (json_node_get_object (summary), "lint");
  g_assert_nonnull (lint);
  g_assert_cmpuint (json_array_get_length (lint), ==, 0);

  g_assert_true (g_file_get_contents (path, &contents, NULL, &error));
  g_assert_null (strstr (contents, SECRET));
  events = riv_transcript_load (path, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (count_kind (events, RIV_TAP_RESPONSE, "/queue/join"), ==, 6);
}

/* Virtual users: each one's session is in the same file, its numbers apart. */
static void
test_cli_users (Fixture       *fx,
                gconstpointer  data)
{
  g_autofree char *path = g_build_filename (fx->dir, "users.jsonl", NULL);
  const char * const args[] = {
    "load", "--url", fx->url, "--endpoint", "batch_echo", "--users", "3", "--iterations", "2",
    "--data", "[\"u{u} x{i}\", 0.01]", "--json", "--record", path, NULL,
  };
  g_auto(RivTestCliRun) run = { 0 };
  g_autoptr(JsonNode) summary = NULL;
  g_autoptr(GPtrArray) events = NULL;
  g_autoptr(GHashTable) sessions = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  g_autoptr(GHashTable) streams = g_hash_table_new (NULL, NULL);
  g_autoptr(RivLint) lint = NULL;
  g_autoptr(GError) error = NULL;

  cli (&run, args);
  g_assert_cmpint (run.status, ==, 0);
  summary = json_from_string (run.out, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (json_array_get_length (json_object_get_array_member (json_node_get_object (summary),
                                                                         "lint")), ==, 0);
  events = riv_transcript_load (path, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (count_kind (events, RIV_TAP_RESPONSE, "/queue/join"), ==, 6);
  for (guint i = 0; i < events->len; i++)
    {
      RivTapEvent *event = events->pdata[i];
      const char *query;

      if (event->kind == RIV_TAP_REQUEST && event->stream > 0 &&
          (query = strstr (event->path, "session_hash=")) != NULL)
        {
          g_hash_table_add (sessions, g_strdup (query));
          g_assert_false (g_hash_table_contains (streams, GUINT_TO_POINTER (event->stream)));
          g_hash_table_add (streams, GUINT_TO_POINTER (event->stream));
        }
    }
  g_assert_cmpuint (g_hash_table_size (sessions), ==, 3);
  lint = riv_lint_run_transcript (events, 0);
  assert_no_findings (lint, "users");
}

static void
test_cli_record_max (Fixture       *fx,
                     gconstpointer  data)
{
  g_autofree char *path = g_build_filename (fx->dir, "cut.jsonl", NULL);
  const char * const args[] = {
    "load", "--url", fx->url, "--endpoint", "batch_echo", "--count", "40",
    "--data", "[\"x{i}\", 0.01]", "--record", path, "--record-max", "0.004", NULL,
  };
  const char * const bad[] = {
    "load", "--url", fx->url, "--endpoint", "batch_echo", "--record", "/nonexistent-dir/x.jsonl", NULL,
  };
  g_auto(RivTestCliRun) run = { 0 };
  g_auto(RivTestCliRun) bad_run = { 0 };
  g_autoptr(GPtrArray) events = NULL;
  g_autoptr(GError) error = NULL;
  GStatBuf st;

  cli (&run, args);
  g_assert_cmpint (run.status, ==, 0);
  g_assert_nonnull (strstr (run.err, "--record-max"));
  g_assert_cmpint (g_stat (path, &st), ==, 0);
  g_assert_cmpint (st.st_size, <=, 0.004 * 1024 * 1024);
  events = riv_transcript_load (path, &error);
  g_assert_no_error (error);
  g_assert_cmpint (((RivTapEvent *) events->pdata[events->len - 1])->kind, ==,
                   RIV_TAP_TRUNCATED);

  cli (&bad_run, bad);
  g_assert_cmpint (bad_run.status, ==, 2);
  g_assert_nonnull (strstr (bad_run.err, "/nonexistent-dir/x.jsonl"));
}

static void
test_cli_lint (Fixture       *fx,
               gconstpointer  data)
{
  g_autofree char *seed = g_test_build_filename (G_TEST_DIST, "data", "seeds", "early-close.jsonl", NULL);
  const char * const clean[] = {
    "lint", "--url", fx->url, "--endpoint", "stream_text", "--data", "[\"hi\", 3, 0.01]", "--strict", NULL,
  };
  g_autoptr(RivReplay) replay = NULL;
  g_autofree char *replay_url = NULL;
  g_autoptr(GError) error = NULL;
  g_auto(RivTestCliRun) run = { 0 };
  g_auto(RivTestCliRun) strict = { 0 };
  g_auto(RivTestCliRun) lenient = { 0 };

  cli (&run, clean);
  g_assert_cmpint (run.status, ==, 0);
  g_assert_nonnull (strstr (run.out, "0 findings"));
  g_assert_nonnull (strstr (run.err, "completed  8"));

  /* A server that sends close_stream while jobs are pending (#7921). */
  replay = riv_replay_new_from_file (seed, &error);
  g_assert_no_error (error);
  riv_replay_set_speed (replay, 0);
  g_assert_true (riv_replay_listen (replay, NULL, 0, &error));
  replay_url = riv_replay_dup_url (replay);
  {
    const char * const args[] = {
      "lint", "--url", replay_url, "--endpoint", "generate", "--count", "3", "--strict", NULL,
    };

    cli (&strict, args);
    g_assert_cmpint (strict.status, ==, 1);
    g_assert_nonnull (strstr (strict.out, "close-while-pending"));
  }
  riv_replay_shutdown (replay);
  g_clear_object (&replay);

  /* Without --strict a finding alone does not fail the run. */
  replay = riv_replay_new_from_file (seed, &error);
  g_assert_no_error (error);
  riv_replay_set_speed (replay, 0);
  g_assert_true (riv_replay_listen (replay, NULL, 0, &error));
  g_free (replay_url);
  replay_url = riv_replay_dup_url (replay);
  {
    const char * const args[] = {
      "lint", "--url", replay_url, "--endpoint", "generate", "--count", "3", NULL,
    };

    cli (&lenient, args);
    g_assert_cmpint (lenient.status, ==, 0);
    g_assert_nonnull (strstr (lenient.out, "1 finding\n"));
  }
  riv_replay_shutdown (replay);
  riv_test_drain ();
}

/* rivulet-cli lint --file: a recorded session, no network. */
static void
test_cli_lint_file (Fixture       *fx,
                    gconstpointer  data)
{
  g_autofree char *broken = g_test_build_filename (G_TEST_DIST, "data", "lint", "duplicate-completion.jsonl", NULL);
  g_autofree char *clean = g_test_build_filename (G_TEST_DIST, "data", "lint", "clean.jsonl", NULL);
  g_autofree char *bad = g_build_filename (fx->dir, "bad.jsonl", NULL);
  const char * const strict_args[] = { "lint", "--file", broken, "--strict", NULL };
  const char * const lenient_args[] = { "lint", "--file", broken, NULL };
  const char * const clean_args[] = { "lint", "--strict", "--file", clean, NULL };
  const char * const bad_args[] = { "lint", "--file", bad, NULL };
  const char * const mixed_args[] = { "lint", "--file", clean, "--url", fx->url, NULL };
  g_autoptr(GError) error = NULL;
  g_auto(RivTestCliRun) strict = { 0 };
  g_auto(RivTestCliRun) lenient = { 0 };
  g_auto(RivTestCliRun) silent = { 0 };
  g_auto(RivTestCliRun) unreadable = { 0 };
  g_auto(RivTestCliRun) mixed = { 0 };

  cli (&strict, strict_args);
  g_assert_cmpint (strict.status, ==, 1);
  g_assert_nonnull (strstr (strict.out, "duplicate-completion"));
  g_assert_nonnull (strstr (strict.out, "000000000000000000000000e0000001"));
  g_assert_nonnull (strstr (strict.out, "1 finding\n"));

  cli (&lenient, lenient_args);
  g_assert_cmpint (lenient.status, ==, 0);
  g_assert_cmpstr (lenient.out, ==, strict.out);

  cli (&silent, clean_args);
  g_assert_cmpint (silent.status, ==, 0);
  g_assert_cmpstr (silent.out, ==, "0 findings\n");

  /* A bad file: its bad line named, exit 2. */
  g_file_set_contents (bad, "{\"t\":0,\"kind\":\"sse\",\"stream\":1,\"data\":\"{}\"}\n[1]\n", -1, &error);
  g_assert_no_error (error);
  cli (&unreadable, bad_args);
  g_assert_cmpint (unreadable.status, ==, 2);
  g_assert_nonnull (strstr (unreadable.err, "line 2"));

  cli (&mixed, mixed_args);
  g_assert_cmpint (mixed.status, ==, 2);
  g_assert_nonnull (strstr (mixed.err, "--file takes no load option"));
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);

  g_test_add ("/record/embedded-clean", Fixture, NULL, fixture_setup, test_embedded_clean,
              fixture_teardown);
  g_test_add ("/record/round-trip", Fixture, NULL, fixture_setup, test_round_trip,
              fixture_teardown);
  g_test_add ("/record/cli-load-record", Fixture, NULL, fixture_setup, test_cli_load_record,
              fixture_teardown);
  g_test_add ("/record/cli-users", Fixture, NULL, fixture_setup, test_cli_users,
              fixture_teardown);
  g_test_add ("/record/cli-record-max", Fixture, NULL, fixture_setup, test_cli_record_max,
              fixture_teardown);
  g_test_add ("/record/cli-lint", Fixture, NULL, fixture_setup, test_cli_lint,
              fixture_teardown);
  g_test_add ("/record/cli-lint-file", Fixture, NULL, fixture_setup, test_cli_lint_file,
              fixture_teardown);

  return g_test_run ();
}
