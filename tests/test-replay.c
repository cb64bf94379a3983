/* test-replay.c
 * Copyright 2026 The Rivulet authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * RivReplay serving recorded sessions to Rivulet's own client: the three seed
 * races of tests/data/seeds lose nothing (every job completes with the output
 * the recording gave it), the recorded timing is kept (scaled by the speed),
 * and what a client sees of a replay lints the same as the recording.
 */
#include "config.h"

#include <string.h>

#include <libsoup/soup.h>

#include "riv-client.h"
#include "riv-compat.h"
#include "riv-json.h"
#include "riv-lint.h"
#include "riv-replay.h"
#include "riv-test-util.h"
#include "riv-transcript.h"

#define HANG_GUARD 60.0

static GPtrArray *
load (const char *dir,
      const char *name)
{
  g_autofree char *path = g_test_build_filename (G_TEST_DIST, "data", dir, name, NULL);
  g_autoptr(GError) error = NULL;
  GPtrArray *events = riv_transcript_load (path, &error);

  g_assert_no_error (error);
  return events;
}

static RivReplay *
start_replay (GPtrArray *events,
              double     speed)
{
  g_autoptr(GError) error = NULL;
  RivReplay *replay = riv_replay_new (events, &error);

  g_assert_no_error (error);
  riv_replay_set_speed (replay, speed);
  g_assert_true (riv_replay_listen (replay, NULL, 0, &error));
  g_assert_no_error (error);
  return replay;
}

static RivClient *
connect_client (const char *url,
                RivLint    *lint)
{
  g_autoptr(GAsyncResult) result = NULL;
  g_autoptr(GError) error = NULL;
  RivClient *client = riv_client_new (url);

  /* Lint sees what the client sees, live. */
  riv_client_set_tap (client, riv_lint_tap, lint);
  riv_client_connect_async (client, NULL, riv_test_async_result_cb, &result);
  riv_test_wait_result (&result, HANG_GUARD);
  g_assert_true (riv_client_connect_finish (client, result, &error));
  g_assert_no_error (error);
  return client;
}

static void
close_client (RivClient *client)
{
  riv_client_close (client);
  riv_test_drain ();
  riv_client_set_tap (client, NULL, NULL);
  g_assert_finalize_object (client);
}

/* The recorded joins, in order: fn_index and the final output (the first
 * value of the completion's output.data, as text). */
typedef struct
{
  char   *session;
  gint64  fn_index;
  char   *event_id;
  char   *output;     /* nullable until the completion is found */
} Expected;

static void
expected_free (gpointer data)
{
  Expected *e = data;

  g_free (e->session);
  g_free (e->event_id);
  g_free (e->output);
  g_free (e);
}

static JsonObject *
object_of (const char  *text,
           JsonNode   **holder)
{
  *holder = riv_json_parse (NULL, text, -1, 0, NULL);
  g_assert_nonnull (*holder);
  return json_node_get_object (*holder);
}

static GPtrArray *
expected_jobs (GPtrArray *events)
{
  GPtrArray *jobs = g_ptr_array_new_with_free_func (expected_free);
  g_autoptr(GHashTable) bodies = g_hash_table_new (g_int64_hash, g_int64_equal);

  for (guint i = 0; i < events->len; i++)
    {
      RivTapEvent *event = events->pdata[i];
      g_autoptr(JsonNode) holder = NULL;
      g_autoptr(JsonNode) request_holder = NULL;

      if (event->kind == RIV_TAP_REQUEST && g_str_has_suffix (event->path, "/queue/join"))
        g_hash_table_insert (bodies, &event->id, event);
      else if (event->kind == RIV_TAP_RESPONSE && g_str_has_suffix (event->path, "/queue/join"))
        {
          RivTapEvent *request = g_hash_table_lookup (bodies, &event->id);
          JsonObject *body = object_of (request->text, &request_holder);
          Expected *e = g_new0 (Expected, 1);

          e->session = g_strdup (riv_json_get_string (body, "session_hash"));
          g_assert_true (riv_json_get_int (body, "fn_index", &e->fn_index));
          e->event_id = g_strdup (riv_json_get_string (object_of (event->text, &holder), "event_id"));
          g_ptr_array_add (jobs, e);
        }
    }

  /* Completions may come before their join's reply: a second pass. */
  for (guint i = 0; i < events->len; i++)
    {
      RivTapEvent *event = events->pdata[i];
      g_autoptr(JsonNode) holder = NULL;
      JsonObject *msg, *output;

      if (event->kind != RIV_TAP_SSE || strstr (event->text, "process_completed") == NULL)
        continue;
      msg = object_of (event->text, &holder);
      output = json_object_get_object_member (msg, "output");
      for (guint j = 0; j < jobs->len; j++)
        {
          Expected *e = jobs->pdata[j];

          if (g_strcmp0 (e->event_id, riv_json_get_string (msg, "event_id")) == 0 && e->output == NULL)
            e->output = g_strdup (json_array_get_string_element (json_object_get_array_member (output, "data"), 0));
        }
    }
  return jobs;
}

static gboolean
clients_done (gpointer data)
{
  GPtrArray *clients = data;

  for (guint i = 0; i < clients->len; i++)
    if (riv_client_get_n_pending (clients->pdata[i]) > 0)
      return FALSE;
  return TRUE;
}

/* Replays a transcript to one Rivulet client per recorded session, each
 * submitting that session's jobs in recorded order; checks that every job
 * completes with the recorded output, and that the lint of what the clients
 * saw names rule (when not NULL). */
static void
replay_to_clients (GPtrArray  *events,
                   double      speed,
                   const char *rule)
{
  g_autoptr(RivReplay) replay = start_replay (events, speed);
  g_autofree char *url = riv_replay_dup_url (replay);
  g_autoptr(GPtrArray) expected = expected_jobs (events);
  g_autoptr(GPtrArray) clients = g_ptr_array_new ();
  g_autoptr(GPtrArray) jobs = g_ptr_array_new_with_free_func (g_object_unref);
  g_autoptr(GHashTable) by_session = g_hash_table_new (g_str_hash, g_str_equal);
  g_autoptr(GPtrArray) lints = g_ptr_array_new_with_free_func ((GDestroyNotify) riv_lint_free);
  gboolean named = FALSE;

  g_assert_cmpuint (expected->len, >, 0);
  for (guint i = 0; i < expected->len; i++)
    {
      Expected *e = expected->pdata[i];
      RivClient *client = g_hash_table_lookup (by_session, e->session);
      g_autofree char *endpoint = g_strdup_printf ("%" G_GINT64_FORMAT, e->fn_index);
      g_autoptr(JsonNode) data = riv_json_parse (NULL, "[\"replayed\"]", -1, 0, NULL);
      g_autoptr(GError) error = NULL;
      RivJob *job;

      if (client == NULL)
        {
          g_ptr_array_add (lints, riv_lint_new ());
          client = connect_client (url, g_ptr_array_index (lints, lints->len - 1));
          g_ptr_array_add (clients, client);
          g_hash_table_insert (by_session, e->session, client);
        }
      job = riv_client_submit (client, endpoint, data, &error);
      g_assert_no_error (error);
      g_ptr_array_add (jobs, job);
      /* The replay maps joins in the order it receives them. */
      while (riv_replay_get_n_joins (replay) < i + 1 && !riv_job_is_finished (job))
        g_main_context_iteration (NULL, TRUE);
    }

  g_assert_true (riv_test_wait_until (clients_done, clients, HANG_GUARD));
  for (guint i = 0; i < jobs->len; i++)
    {
      RivJob *job = jobs->pdata[i];
      Expected *e = expected->pdata[i];
      JsonNode *outputs = riv_job_get_outputs (job);
      g_autofree char *text = outputs != NULL ? riv_json_to_string (outputs, NULL) : NULL;

      g_test_message ("job %u: %s %s", i, riv_job_status_to_string (riv_job_get_status (job)), text);
      g_assert_cmpint (riv_job_get_status (job), ==, RIV_JOB_STATUS_COMPLETED);
      g_assert_nonnull (outputs);
      g_assert_cmpstr (json_array_get_string_element (json_node_get_array (outputs), 0), ==, e->output);
    }

  g_ptr_array_set_size (jobs, 0);
  for (guint i = 0; i < clients->len; i++)
    close_client (clients->pdata[i]);
  riv_replay_shutdown (replay);
  riv_test_drain ();

  for (guint i = 0; i < lints->len; i++)
    {
      GPtrArray *findings;

      riv_lint_finish (lints->pdata[i], riv_now ());
      findings = riv_lint_get_findings (lints->pdata[i]);
      for (guint j = 0; j < findings->len; j++)
        {
          RivLintFinding *f = findings->pdata[j];

          g_test_message ("client %u: %s %s: %s", i, f->rule, f->event_id, f->message);
          named |= g_strcmp0 (f->rule, rule) == 0;
        }
    }
  if (rule != NULL)
    g_assert_true (named);
}

typedef struct
{
  const char *file;
  const char *rule;
  gboolean    timed_rule;   /* the rule shows only with the recorded timing */
} Seed;

static void
test_seed (gconstpointer data)
{
  const Seed *seed = data;
  g_autoptr(GPtrArray) events = load ("seeds", seed->file);

  replay_to_clients (events, 0, seed->timed_rule ? NULL : seed->rule);
}

static void
test_seed_timed (gconstpointer data)
{
  const Seed *seed = data;
  g_autoptr(GPtrArray) events = load ("seeds", seed->file);

  replay_to_clients (events, 4, seed->rule);
}

/* The recorded gaps are kept, divided by the speed: a lower bound only (a
 * loaded machine can only make it slower). */
static void
test_speed (void)
{
  g_autoptr(GPtrArray) events = load ("lint", "heartbeat-gap.jsonl");
  RivTapEvent *last = events->pdata[events->len - 1];
  double start = riv_now ();

  replay_to_clients (events, 2, "heartbeat-gap");
  g_assert_cmpfloat (riv_now () - start, >=, last->t / 2 * 0.9);
}

/* Joins reach the replay in any order (a client sends them at once, on several
 * connections): a join gets the recorded reply of the join that asked the
 * same, so each job still gets its own id and output. Here the 20 jobs of a
 * burst are submitted in reverse order, each after the previous one's reply. */
static void
test_join_order (void)
{
  g_autoptr(GPtrArray) events = load ("seeds", "lost-completions.jsonl");
  g_autoptr(GPtrArray) expected = expected_jobs (events);
  g_autoptr(RivReplay) replay = start_replay (events, 0);
  g_autofree char *url = riv_replay_dup_url (replay);
  g_autoptr(RivLint) lint = riv_lint_new ();
  g_autoptr(GPtrArray) jobs = g_ptr_array_new_with_free_func (g_object_unref);
  g_autoptr(GPtrArray) clients = g_ptr_array_new ();
  RivClient *client = connect_client (url, lint);

  g_ptr_array_add (clients, client);
  for (guint n = expected->len; n > 0; n--)
    {
      Expected *e = expected->pdata[n - 1];
      g_autofree char *endpoint = g_strdup_printf ("%" G_GINT64_FORMAT, e->fn_index);
      g_autofree char *json = g_strdup_printf ("[\"job %u\"]", n - 1);
      g_autoptr(JsonNode) data = riv_json_parse (NULL, json, -1, 0, NULL);
      g_autoptr(GError) error = NULL;
      RivJob *job = riv_client_submit (client, endpoint, data, &error);

      g_assert_no_error (error);
      g_ptr_array_add (jobs, job);
      while (riv_job_get_event_id (job) == NULL && !riv_job_is_finished (job))
        g_main_context_iteration (NULL, TRUE);
    }
  g_assert_true (riv_test_wait_until (clients_done, clients, HANG_GUARD));

  for (guint i = 0; i < jobs->len; i++)
    {
      RivJob *job = jobs->pdata[i];
      Expected *e = expected->pdata[expected->len - 1 - i];
      JsonNode *outputs = riv_job_get_outputs (job);

      g_assert_cmpint (riv_job_get_status (job), ==, RIV_JOB_STATUS_COMPLETED);
      g_assert_cmpstr (riv_job_get_event_id (job), ==, e->event_id);
      g_assert_nonnull (outputs);
      g_assert_cmpstr (json_array_get_string_element (json_node_get_array (outputs), 0), ==, e->output);
    }
  g_ptr_array_set_size (jobs, 0);
  close_client (client);
  riv_replay_shutdown (replay);
  riv_test_drain ();
}

static gboolean
has_event_id (gpointer data)
{
  return riv_job_get_event_id (data) != NULL || riv_job_is_finished (data);
}

/* A join's reply comes after the recorded delay, divided by the speed (a lower
 * bound only: a loaded machine can only make it later). The clean recording's
 * join is answered 0.6 s after its request here. */
static void
test_join_delay (void)
{
  g_autoptr(GPtrArray) events = load ("lint", "clean.jsonl");
  RivTapEvent *request = NULL;
  g_autoptr(RivReplay) replay = NULL;
  g_autofree char *url = NULL;
  g_autoptr(RivLint) lint = riv_lint_new ();
  g_autoptr(GPtrArray) clients = g_ptr_array_new ();
  g_autoptr(RivJob) job = NULL;
  g_autoptr(JsonNode) data = riv_json_parse (NULL, "[\"hi\"]", -1, 0, NULL);
  g_autoptr(GError) error = NULL;
  RivClient *client;
  double start;

  for (guint i = 0; i < events->len; i++)
    {
      RivTapEvent *event = events->pdata[i];

      if (event->kind == RIV_TAP_REQUEST && g_str_has_suffix (event->path, "/queue/join"))
        request = event;
      else if (event->kind == RIV_TAP_RESPONSE && request != NULL && event->id == request->id)
        event->t = request->t + 0.6;
    }
  g_assert_nonnull (request);

  replay = start_replay (events, 2);
  url = riv_replay_dup_url (replay);
  client = connect_client (url, lint);
  g_ptr_array_add (clients, client);
  start = riv_now ();
  job = riv_client_submit (client, "0", data, &error);
  g_assert_no_error (error);
  g_assert_true (riv_test_wait_until (has_event_id, job, HANG_GUARD));
  g_assert_nonnull (riv_job_get_event_id (job));
  g_assert_cmpfloat (riv_now () - start, >=, 0.6 / 2 * 0.9);
  g_assert_true (riv_test_wait_until (clients_done, clients, HANG_GUARD));
  g_assert_cmpint (riv_job_get_status (job), ==, RIV_JOB_STATUS_COMPLETED);

  g_clear_object (&job);
  close_client (client);
  riv_replay_shutdown (replay);
  riv_test_drain ();
}

/* /config is served with its root moved to the replay; a bad or unreplayable
 * file is a clear error. */
static void
test_config_and_errors (void)
{
  const char *text =
    "{\"t\":0,\"kind\":\"request\",\"id\":1,\"method\":\"GET\",\"path\":\"/config\"}\n"
    "{\"t\":0.1,\"kind\":\"response\",\"id\":1,\"method\":\"GET\",\"path\":\"/config\",\"status\":200,"
    "\"body\":{\"protocol\":\"sse_v3\",\"root\":\"http://10.1.2.3:7860/app\",\"components\":[],\"dependencies\":[]}}\n";
  g_autoptr(GError) error = NULL;
  g_autoptr(GPtrArray) events = riv_transcript_parse (text, strlen (text), &error);
  g_autoptr(GPtrArray) no_config = riv_transcript_parse (text, strchr (text, '\n') - text, &error);
  g_autoptr(RivReplay) replay = NULL;
  g_autoptr(RivReplay) missing = NULL;
  g_autoptr(SoupSession) session = soup_session_new ();
  g_autoptr(SoupMessage) msg = NULL;
  g_autoptr(GAsyncResult) result = NULL;
  g_autoptr(GBytes) body = NULL;
  g_autofree char *url = NULL;
  g_autofree char *config_url = NULL;
  g_autofree char *expected_root = NULL;
  g_autoptr(JsonNode) holder = NULL;

  g_assert_no_error (error);
  missing = riv_replay_new (no_config, &error);
  g_assert_null (missing);
  g_assert_error (error, RIV_REPLAY_ERROR, RIV_REPLAY_ERROR_NO_CONFIG);
  g_clear_error (&error);
  g_assert_null (riv_replay_new_from_file ("/nonexistent/recording.jsonl", &error));
  g_assert_nonnull (error);
  g_clear_error (&error);

  replay = start_replay (events, 0);
  url = riv_replay_dup_url (replay);
  config_url = g_strconcat (url, "/app/config", NULL);
  msg = soup_message_new ("GET", config_url);
  soup_session_send_and_read_async (session, msg, G_PRIORITY_DEFAULT, NULL, riv_test_async_result_cb, &result);
  riv_test_wait_result (&result, HANG_GUARD);
  body = soup_session_send_and_read_finish (session, result, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (soup_message_get_status (msg), ==, 200);
  expected_root = g_strconcat (url, "/app", NULL);
  holder = riv_json_parse (NULL, g_bytes_get_data (body, NULL), g_bytes_get_size (body), 0, &error);
  g_assert_no_error (error);
  g_assert_cmpstr (riv_json_get_string (json_node_get_object (holder), "root"), ==, expected_root);

  /* A Range of many overlapping ranges gets the reply once (libsoup would
   * answer with a copy of it per range). */
  {
    g_autoptr(SoupMessage) ranged = soup_message_new ("GET", config_url);
    g_autoptr(GBytes) again = NULL;

    soup_message_headers_replace (soup_message_get_request_headers (ranged), "Range",
                                  "bytes=0-,0-,0-");
    g_clear_object (&result);
    soup_session_send_and_read_async (session, ranged, G_PRIORITY_DEFAULT, NULL,
                                      riv_test_async_result_cb, &result);
    riv_test_wait_result (&result, HANG_GUARD);
    again = soup_session_send_and_read_finish (session, result, &error);
    g_assert_no_error (error);
    g_assert_cmpuint (soup_message_get_status (ranged), ==, 200);
    g_assert_true (g_bytes_equal (again, body));
  }
  riv_replay_shutdown (replay);
  riv_test_drain ();
}

int
main (int   argc,
      char *argv[])
{
  static const Seed seeds[] = {
    { "early-close.jsonl", "close-while-pending", FALSE },
    { "blocking-generator.jsonl", "heartbeat-gap", TRUE },
    { "lost-completions.jsonl", "close-while-pending", FALSE },
  };

  g_test_init (&argc, &argv, NULL);

  for (guint i = 0; i < G_N_ELEMENTS (seeds); i++)
    {
      g_autofree char *path = g_strdup_printf ("/replay/seed/%s", seeds[i].file);
      g_autofree char *timed = g_strdup_printf ("/replay/seed-timed/%s", seeds[i].file);

      g_test_add_data_func (path, &seeds[i], test_seed);
      g_test_add_data_func (timed, &seeds[i], test_seed_timed);
    }
  g_test_add_func ("/replay/speed", test_speed);
  g_test_add_func ("/replay/join-order", test_join_order);
  g_test_add_func ("/replay/join-delay", test_join_delay);
  g_test_add_func ("/replay/config-and-errors", test_config_and_errors);

  return g_test_run ();
}
