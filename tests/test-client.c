/* test-client.c
 * Copyright 2026 The Rivulet authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * RivClient end to end against the embedded demo server (RivServer on a free
 * loopback port in this process), plus the connection errors a user sees
 * (bad URL, refused connection, a server that is not Gradio).
 */
#include "config.h"

#include <malloc.h>
#include <string.h>

#include <glib/gstdio.h>
#include <libsoup/soup.h>

#include "riv-client-private.h"
#include "riv-compat.h"
#include "riv-demo.h"
#include "riv-json.h"
#include "riv-server.h"
#include "riv-sse-reader.h"
#include "riv-test-util.h"

/* Sanitizer builds (with the slow, exact unwinding the asan setup asks for)
 * allocate about thirty times slower: the big bursts are scaled down there,
 * and the hang guard (never a timing claim) is wider. */
#if defined(__SANITIZE_ADDRESS__)
# define RIV_SANITIZED 1
# define HANG_GUARD 240.0
#else
# define RIV_SANITIZED 0
# define HANG_GUARD 60.0
#endif

typedef struct
{
  RivServer *server;
  RivClient *client;
  char      *url;
} Fixture;

static JsonNode *
json (const char *text)
{
  g_autoptr(GError) error = NULL;
  JsonNode *node = json_from_string (text, &error);

  g_assert_no_error (error);
  return node;
}

static void
start_server (Fixture    *fx,
              const char *first_property,
              ...)
{
  g_autoptr(GError) error = NULL;
  va_list args;

  fx->server = riv_server_new ();
  va_start (args, first_property);
  if (first_property != NULL)
    g_object_set_valist (G_OBJECT (fx->server), first_property, args);
  va_end (args);

  riv_server_listen (fx->server, NULL, 0, &error);
  g_assert_no_error (error);
  fx->url = riv_server_dup_url (fx->server);
}

static void
connect_client (Fixture *fx)
{
  g_autoptr(GAsyncResult) result = NULL;
  g_autoptr(GError) error = NULL;

  fx->client = riv_client_new (fx->url);
  riv_client_connect_async (fx->client, NULL, riv_test_async_result_cb, &result);
  riv_test_wait_result (&result, HANG_GUARD);
  g_assert_true (riv_client_connect_finish (fx->client, result, &error));
  g_assert_no_error (error);
}

static void
fixture_setup (Fixture       *fx,
               gconstpointer  data)
{
  start_server (fx, NULL);
  connect_client (fx);
}

static void
fixture_teardown (Fixture       *fx,
                  gconstpointer  data)
{
  if (fx->client != NULL)
    {
      riv_client_close (fx->client);
      riv_test_drain ();
      g_assert_finalize_object (fx->client);
    }
  if (fx->server != NULL)
    {
      riv_server_shutdown (fx->server);
      riv_test_drain ();
      g_clear_object (&fx->server);
    }
  g_clear_pointer (&fx->url, g_free);
}

static RivJob *
submit (Fixture    *fx,
        const char *endpoint,
        const char *data)
{
  g_autoptr(JsonNode) node = json (data);
  g_autoptr(GError) error = NULL;
  RivJob *job;

  job = riv_client_submit (fx->client, endpoint, node, &error);
  g_assert_no_error (error);
  g_assert_nonnull (job);
  return job;
}

static gboolean
job_finished (gpointer job)
{
  return riv_job_is_finished (job);
}

static void
wait_finished (RivJob *job)
{
  riv_test_wait_until (job_finished, job, HANG_GUARD);
  if (!riv_job_is_finished (job))
    g_error ("job %u still %s", riv_job_get_number (job),
             riv_job_status_to_string (riv_job_get_status (job)));
}

static gboolean
no_pending (gpointer client)
{
  return riv_client_get_n_pending (client) == 0;
}

static void
wait_no_pending (RivClient *client)
{
  GListModel *jobs = riv_client_get_jobs (client);

  riv_test_wait_until (no_pending, client, HANG_GUARD);

  /* On a hang, say what the stragglers were doing. */
  for (guint i = 0; i < g_list_model_get_n_items (jobs); i++)
    {
      g_autoptr(RivJob) job = g_list_model_get_item (jobs, i);

      if (riv_job_is_finished (job))
        continue;
      g_printerr ("job %u (%s) still %s, event id %s, stream %d\n", riv_job_get_number (job),
                  riv_job_get_endpoint (job), riv_job_status_to_string (riv_job_get_status (job)),
                  riv_job_get_event_id (job) ? riv_job_get_event_id (job) : "none",
                  riv_client_get_stream_state (client));
      for (guint k = 0; k < riv_job_get_timeline_length (job); k++)
        g_printerr ("  %.3f %s\n", riv_job_get_timeline_event (job, k)->time,
                    riv_job_get_timeline_event (job, k)->what);
    }
  g_assert_cmpuint (riv_client_get_n_pending (client), ==, 0);
}

/* URL validation ---------------------------------------------------------------------- */

static void
test_normalize_url (void)
{
  static const struct {
    const char *in;
    const char *out;   /* NULL: error */
  } cases[] = {
    { "http://127.0.0.1:7860", "http://127.0.0.1:7860" },
    { "http://127.0.0.1:7860/", "http://127.0.0.1:7860" },
    { "  localhost:7860 ", "http://localhost:7860" },
    { "example.com", "http://example.com" },
    { "HTTPS://Example.com/app/", "https://example.com/app" },
    { "https://host/sub/path//", "https://host/sub/path" },
    { "http://[::1]:8000", "http://[::1]:8000" },
    { "http://host:7860/?view=api", "http://host:7860" },
    { "", NULL },
    { "   ", NULL },
    { "http://exa mple.com", NULL },
    { "ftp://example.com", NULL },
    { "file:///etc/passwd", NULL },
    { "ws://host:7860", NULL },
    { "http://", NULL },
    { "http:///path", NULL },
    { "http://host/#frag", NULL },
    { "http://user:pw@host", NULL },
    { "http://host:notaport", NULL },
  };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autoptr(GError) error = NULL;
      g_autofree char *out = riv_client_normalize_url (cases[i].in, &error);

      if (cases[i].out != NULL)
        {
          g_assert_no_error (error);
          g_assert_cmpstr (out, ==, cases[i].out);
        }
      else
        {
          g_assert_null (out);
          g_assert_error (error, RIV_CLIENT_ERROR, RIV_CLIENT_ERROR_BAD_URL);
          g_assert_cmpuint (strlen (error->message), >, 10);
        }
    }
}

static GError *
connect_error (const char *url)
{
  g_autoptr(RivClient) client = riv_client_new (url);
  g_autoptr(GAsyncResult) result = NULL;
  GError *error = NULL;

  riv_client_connect_async (client, NULL, riv_test_async_result_cb, &result);
  riv_test_wait_result (&result, HANG_GUARD);
  g_assert_false (riv_client_connect_finish (client, result, &error));
  g_assert_null (riv_client_get_config (client));
  riv_client_close (client);
  riv_test_drain ();
  return error;
}

static void
test_bad_url (void)
{
  g_autoptr(GError) error = connect_error ("gopher://example.com");

  g_assert_error (error, RIV_CLIENT_ERROR, RIV_CLIENT_ERROR_BAD_URL);
  g_assert_nonnull (strstr (error->message, "gopher"));
}

static void
test_connection_refused (void)
{
  g_autoptr(SoupServer) server = soup_server_new (NULL, NULL);
  g_autoptr(GError) listen_error = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *url = NULL;
  GSList *uris;

  /* The port of a listener that was just closed: nothing accepts there. */
  soup_server_listen_local (server, 0, SOUP_SERVER_LISTEN_IPV4_ONLY, &listen_error);
  g_assert_no_error (listen_error);
  uris = soup_server_get_uris (server);
  url = g_strdup_printf ("http://127.0.0.1:%d", g_uri_get_port (uris->data));
  g_slist_free_full (uris, (GDestroyNotify) g_uri_unref);
  soup_server_disconnect (server);

  error = connect_error (url);
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_CONNECTION_REFUSED);
  g_assert_true (g_str_has_prefix (error->message, "Could not connect to "));
  g_assert_nonnull (strstr (error->message, url));
}

/* The client's stream code fed by hand (riv-client-private.h): what the
 * ingest benchmark measures must behave like a network stream. */
static const char local_config[] =
  "{\"version\":\"5.0.0\",\"protocol\":\"sse_v3\",\"api_prefix\":\"/gradio_api\","
  "\"enable_queue\":true,\"components\":["
  "{\"id\":1,\"type\":\"textbox\",\"props\":{\"label\":\"prompt\"}},"
  "{\"id\":2,\"type\":\"textbox\",\"props\":{\"label\":\"text\"}}],"
  "\"dependencies\":[{\"id\":0,\"api_name\":\"predict\",\"inputs\":[1],\"outputs\":[2],"
  "\"queue\":true,\"types\":{\"generator\":true}}]}";

static gboolean
feed (RivClient  *client,
      const char *text)
{
  return _riv_client_feed_stream_for_testing (client, text, strlen (text));
}

static RivClient *
local_client (void)
{
  RivClient *client = riv_client_new ("http://127.0.0.1:9");
  g_autoptr(RivConfig) config = NULL;
  g_autoptr(GError) error = NULL;

  config = riv_config_new_from_data (local_config, -1, "http://127.0.0.1:9", &error);
  g_assert_no_error (error);
  _riv_client_connect_local_for_testing (client, config);
  riv_client_set_publish_interval (client, 0);
  return client;
}

static void
test_local_stream (void)
{
  g_autoptr(RivClient) client = local_client ();
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonNode) data = json ("[\"hi\"]");
  g_autoptr(RivJob) a = NULL;
  g_autoptr(RivJob) b = NULL;

  /* No job joined: no stream to feed. */
  g_assert_false (feed (client, "data: {\"msg\":\"heartbeat\"}\n\n"));
  g_assert_null (_riv_client_submit_joined_for_testing (client, "nope", data, "x", &error));
  g_assert_error (error, RIV_CLIENT_ERROR, RIV_CLIENT_ERROR_NO_ENDPOINT);
  g_clear_error (&error);

  a = _riv_client_submit_joined_for_testing (client, "predict", data, "aaa", &error);
  g_assert_no_error (error);
  g_assert_cmpstr (riv_job_get_event_id (a), ==, "aaa");
  g_assert_cmpint (riv_job_get_status (a), ==, RIV_JOB_STATUS_QUEUED);
  g_assert_cmpuint (_riv_client_get_n_streams (client), ==, 1);
  g_assert_cmpint (riv_client_get_stream_state (client), ==, RIV_STREAM_STATE_CONNECTED);

  /* A frame split across two reads; one for an id no join named yet. */
  g_assert_true (feed (client, "data: {\"msg\":\"process_starts\",\"event_id\":\"bbb\"}\n\n"
                               "data: {\"msg\":\"estimation\",\"event_id\":\"aaa\",\"rank\":2,"
                               "\"queue_size\":5}\n\ndata: {\"msg\":\"process_gen"));
  g_assert_cmpint (riv_job_get_rank (a), ==, 2);
  g_assert_cmpuint (_riv_client_get_n_early (client), ==, 1);
  g_assert_true (feed (client, "erating\",\"event_id\":\"aaa\",\"output\":{\"data\":[\"Hel\"]},"
                               "\"success\":true}\n\ndata: not json\n\n"
                               "data: {\"msg\":\"process_generating\",\"event_id\":\"aaa\","
                               "\"output\":{\"data\":[[[\"append\",[],\"lo\"]]]},\"success\":true}\n\n"));
  g_assert_cmpint (riv_job_get_status (a), ==, RIV_JOB_STATUS_STREAMING);
  g_assert_cmpstr (riv_job_get_output_text (a), ==, "Hello");
  g_assert_cmpuint (riv_job_get_n_updates (a), ==, 2);

  /* The join reply for bbb replays its early message. */
  b = _riv_client_submit_joined_for_testing (client, "predict", data, "bbb", &error);
  g_assert_no_error (error);
  g_assert_cmpint (riv_job_get_status (b), ==, RIV_JOB_STATUS_RUNNING);
  g_assert_cmpuint (_riv_client_get_n_early (client), ==, 0);

  /* close_stream ends the stream; jobs are in flight, so another one opens. */
  g_assert_true (feed (client, "data: {\"msg\":\"close_stream\",\"event_id\":null}\n\n"));
  g_assert_cmpuint (_riv_client_get_n_streams (client), ==, 2);
  g_assert_true (feed (client, "data: {\"msg\":\"process_completed\",\"event_id\":\"aaa\","
                               "\"output\":{\"data\":[\"Hello!\"]},\"success\":true}\n\n"
                               "data: {\"msg\":\"process_completed\",\"event_id\":\"bbb\","
                               "\"output\":{\"error\":\"Boom\"},\"success\":false}\n\n"));
  g_assert_cmpint (riv_job_get_status (a), ==, RIV_JOB_STATUS_COMPLETED);
  g_assert_cmpstr (riv_job_get_output_text (a), ==, "Hello!");
  g_assert_cmpint (riv_job_get_status (b), ==, RIV_JOB_STATUS_FAILED);
  g_assert_cmpstr (riv_job_get_error (b), ==, "Boom");
  g_assert_cmpuint (riv_client_get_n_pending (client), ==, 0);
  g_assert_cmpuint (riv_client_get_n_messages (client), ==, 8);

  /* Outputs that appear mid-run start from null; a first value of one
   * output grows to three. */
  {
    g_autoptr(RivJob) d = _riv_client_submit_joined_for_testing (client, "predict", data, "ddd",
                                                                 &error);
    g_autofree char *outputs = NULL;

    g_assert_no_error (error);
    g_assert_true (feed (client, "data: {\"msg\":\"process_generating\",\"event_id\":\"ddd\","
                                 "\"output\":{\"data\":[\"a\"]},\"success\":true}\n\n"
                                 "data: {\"msg\":\"process_generating\",\"event_id\":\"ddd\","
                                 "\"output\":{\"data\":[[[\"append\",[],\"b\"]],[[\"replace\",[],\"x\"]],"
                                 "[[\"replace\",[],[1,{\"k\":\"v\"}]]]]},\"success\":true}\n\n"));
    outputs = riv_json_to_string (riv_job_get_outputs (d), NULL);
    g_assert_cmpstr (outputs, ==, "[\"ab\",\"x\",[1,{\"k\":\"v\"}]]");
    g_assert_cmpint (riv_job_get_status (d), ==, RIV_JOB_STATUS_STREAMING);
  }

  /* A frame over the reader's bound fails the stream like a network one. */
  {
    g_autoptr(RivJob) c = _riv_client_submit_joined_for_testing (client, "predict", data, "ccc",
                                                                 &error);
    g_autofree char *huge = g_strnfill (RIV_SSE_DEFAULT_MAX_FRAME + 16, 'x');

    g_assert_no_error (error);
    g_assert_true (feed (client, "data: "));
    g_assert_true (feed (client, huge));
    g_assert_cmpuint (_riv_client_get_n_streams (client), ==, 3);
    g_assert_false (riv_job_is_finished (c));
  }

  riv_client_close (client);
  g_assert_false (feed (client, "data: {\"msg\":\"heartbeat\"}\n\n"));
}

static RivJob *
local_job (RivClient  *client,
           const char *event_id)
{
  g_autoptr(JsonNode) data = json ("[\"hi\"]");
  g_autoptr(GError) error = NULL;
  RivJob *job = _riv_client_submit_joined_for_testing (client, "predict", data, event_id, &error);

  g_assert_no_error (error);
  return job;
}

static gboolean
timeline_has (RivJob     *job,
              const char *what)
{
  for (guint i = 0; i < riv_job_get_timeline_length (job); i++)
    if (g_strcmp0 (riv_job_get_timeline_event (job, i)->what, what) == 0)
      return TRUE;
  return FALSE;
}

/* A job's run time is what the server measured (output.duration) when it
 * says, even when the start and the end arrive in one read; arrival times
 * otherwise. */
static void
test_run_time (void)
{
  g_autoptr(RivClient) client = local_client ();
  g_autoptr(RivJob) a = local_job (client, "aaa");
  g_autoptr(RivJob) b = local_job (client, "bbb");
  g_autoptr(RivJob) c = local_job (client, "ccc");

  g_assert_cmpfloat (riv_job_get_run_time (a), <, 0);

  /* A batch of two that ran 50 ms: its messages arrive together. */
  g_assert_true (feed (client, "data: {\"msg\":\"process_starts\",\"event_id\":\"aaa\"}\n\n"
                               "data: {\"msg\":\"process_starts\",\"event_id\":\"bbb\"}\n\n"
                               "data: {\"msg\":\"process_completed\",\"event_id\":\"aaa\","
                               "\"output\":{\"data\":[\"x\"],\"duration\":0.05,"
                               "\"average_duration\":0.2},\"success\":true}\n\n"
                               "data: {\"msg\":\"process_completed\",\"event_id\":\"bbb\","
                               "\"output\":{\"data\":[\"y\"],\"duration\":0.05},"
                               "\"success\":true}\n\n"));
  g_assert_cmpint (riv_job_get_status (a), ==, RIV_JOB_STATUS_COMPLETED);
  g_assert_cmpfloat_with_epsilon (riv_job_get_run_time (a), 0.05, 1e-9);
  g_assert_cmpfloat_with_epsilon (riv_job_get_run_time (b), 0.05, 1e-9);

  /* No duration: from the arrival of process_starts to the completion. */
  g_assert_true (feed (client, "data: {\"msg\":\"process_starts\",\"event_id\":\"ccc\"}\n\n"));
  g_usleep (30 * 1000);
  g_assert_true (feed (client, "data: {\"msg\":\"process_completed\",\"event_id\":\"ccc\","
                               "\"output\":{\"data\":[\"z\"]},\"success\":true}\n\n"));
  g_assert_cmpint (riv_job_get_status (c), ==, RIV_JOB_STATUS_COMPLETED);
  g_assert_cmpfloat (riv_job_get_run_time (c), >=, 0.03);
  g_assert_cmpfloat (riv_job_get_run_time (c), <=, riv_job_get_total_time (c));

  /* A generator: Gradio's duration is that of its last iteration only; the
   * job ran from its start to its completion. */
  {
    g_autoptr(RivJob) e = local_job (client, "eee");

    g_assert_true (feed (client, "data: {\"msg\":\"process_starts\",\"event_id\":\"eee\"}\n\n"
                                 "data: {\"msg\":\"process_generating\",\"event_id\":\"eee\","
                                 "\"output\":{\"data\":[\"a\"],\"duration\":0.0002},"
                                 "\"success\":true}\n\n"));
    g_usleep (30 * 1000);
    g_assert_true (feed (client, "data: {\"msg\":\"process_completed\",\"event_id\":\"eee\","
                                 "\"output\":{\"data\":[\"ab\"],\"duration\":0.0003},"
                                 "\"success\":true}\n\n"));
    g_assert_cmpint (riv_job_get_status (e), ==, RIV_JOB_STATUS_COMPLETED);
    g_assert_cmpfloat (riv_job_get_run_time (e), >=, 0.03);
    g_assert_cmpfloat (riv_job_get_run_time (e), <=, riv_job_get_total_time (e));
  }

  /* No duration, and both ends came before the join reply: the times are
   * those of their arrival, not of their replay. */
  {
    g_autoptr(RivJob) f = NULL;

    g_assert_true (feed (client, "data: {\"msg\":\"process_starts\",\"event_id\":\"fff\"}\n\n"));
    g_usleep (30 * 1000);
    g_assert_true (feed (client, "data: {\"msg\":\"process_completed\",\"event_id\":\"fff\","
                                 "\"output\":{\"data\":[\"z\"]},\"success\":true}\n\n"));
    g_usleep (30 * 1000);
    f = local_job (client, "fff");
    g_assert_cmpint (riv_job_get_status (f), ==, RIV_JOB_STATUS_COMPLETED);
    g_assert_cmpfloat (riv_job_get_run_time (f), >=, 0.03);
    g_assert_cmpfloat (riv_job_get_finished_at (f), <, riv_job_get_joined_at (f));
  }

  /* A bad duration is not a run time. */
  {
    g_autoptr(RivJob) d = local_job (client, "ddd");

    g_assert_true (feed (client, "data: {\"msg\":\"process_starts\",\"event_id\":\"ddd\"}\n\n"
                                 "data: {\"msg\":\"process_completed\",\"event_id\":\"ddd\","
                                 "\"output\":{\"data\":[\"z\"],\"duration\":-3},"
                                 "\"success\":true}\n\n"));
    g_assert_cmpfloat (riv_job_get_run_time (d), >=, 0);
    g_assert_cmpfloat (riv_job_get_run_time (d), <, 3);
  }
}

/* An app with a batch endpoint (at most 4 a batch) and a plain one. */
static const char batch_config[] =
  "{\"version\":\"6.25.0\",\"protocol\":\"sse_v3\",\"api_prefix\":\"/gradio_api\","
  "\"enable_queue\":true,\"components\":["
  "{\"id\":1,\"type\":\"textbox\",\"props\":{\"label\":\"in\"}},"
  "{\"id\":2,\"type\":\"textbox\",\"props\":{\"label\":\"out\"}}],"
  "\"dependencies\":[{\"id\":0,\"api_name\":\"batch\",\"inputs\":[1],\"outputs\":[2],"
  "\"queue\":true,\"batch\":true,\"max_batch_size\":4},"
  "{\"id\":1,\"api_name\":\"plain\",\"inputs\":[1],\"outputs\":[2],\"queue\":true}]}";

static RivJob *
batch_job (RivClient  *client,
           const char *endpoint,
           const char *event_id)
{
  g_autoptr(JsonNode) data = json ("[\"x\"]");
  g_autoptr(GError) error = NULL;
  RivJob *job = _riv_client_submit_joined_for_testing (client, endpoint, data, event_id, &error);

  g_assert_no_error (error);
  return job;
}

/* Gradio-like process_starts of one batch, back to back, for these ids. */
static void
feed_starts (RivClient  *client,
             const char *first,
             ...)
{
  g_autoptr(GString) text = g_string_new (NULL);
  va_list ap;

  va_start (ap, first);
  for (const char *id = first; id != NULL; id = va_arg (ap, const char *))
    g_string_append_printf (text, "data: {\"msg\":\"process_starts\",\"event_id\":\"%s\","
                                  "\"eta\":null}\n\n", id);
  va_end (ap);
  g_assert_true (feed (client, text->str));
}

static void
assert_batch (RivJob     *job,
              const char *id,
              gint64      size,
              gint64      index)
{
  g_assert_cmpstr (riv_job_get_batch_id (job), ==, id);
  g_assert_cmpint (riv_job_get_batch_size (job), ==, size);
  g_assert_cmpint (riv_job_get_batch_index (job), ==, index);
  g_assert_true (riv_job_get_batch_inferred (job));
}

/* Real Gradio names no batch: consecutive process_starts are one. Members
 * whose join reply comes after their process_starts (common in a burst)
 * belong to it all the same, in start order; they share its id and size. */
static void
test_inferred_batches (void)
{
  g_autoptr(RivClient) client = riv_client_new ("http://127.0.0.1:9");
  g_autoptr(RivConfig) config = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(GPtrArray) jobs = g_ptr_array_new_with_free_func (g_object_unref);
  g_autofree char *first = NULL;
  RivJob *a, *b, *c, *d, *e, *f, *g, *p, *q;

  config = riv_config_new_from_data (batch_config, -1, "http://127.0.0.1:9", &error);
  g_assert_no_error (error);
  _riv_client_connect_local_for_testing (client, config);

  /* a and b joined; c and d not yet (their join replies come later). */
  g_ptr_array_add (jobs, a = batch_job (client, "batch", "a"));
  g_ptr_array_add (jobs, b = batch_job (client, "batch", "b"));
  feed_starts (client, "c", "a", "d", "b", NULL);
  g_assert_cmpint (riv_job_get_status (a), ==, RIV_JOB_STATUS_RUNNING);
  first = g_strdup (riv_job_get_batch_id (a));
  g_assert_nonnull (first);
  assert_batch (a, first, 4, 1);
  assert_batch (b, first, 4, 3);

  /* Over max_batch_size: the fifth starts the next batch. */
  feed_starts (client, "e", NULL);
  g_ptr_array_add (jobs, d = batch_job (client, "batch", "d"));
  g_ptr_array_add (jobs, c = batch_job (client, "batch", "c"));
  g_ptr_array_add (jobs, e = batch_job (client, "batch", "e"));
  g_assert_cmpint (riv_job_get_status (c), ==, RIV_JOB_STATUS_RUNNING);
  assert_batch (c, first, 4, 0);
  assert_batch (d, first, 4, 2);
  assert_batch (e, riv_job_get_batch_id (e), 1, 0);
  g_assert_cmpstr (riv_job_get_batch_id (e), !=, first);

  /* Any other message ends a batch; so does a plain endpoint's start. */
  g_ptr_array_add (jobs, f = batch_job (client, "batch", "f"));
  g_ptr_array_add (jobs, p = batch_job (client, "plain", "p"));
  g_assert_true (feed (client, "data: {\"msg\":\"estimation\",\"event_id\":\"f\",\"rank\":0,"
                               "\"queue_size\":1}\n\n"));
  feed_starts (client, "f", "p", "g", "q", NULL);
  g_assert_cmpstr (riv_job_get_batch_id (f), !=, riv_job_get_batch_id (e));
  assert_batch (f, riv_job_get_batch_id (f), 1, 0);
  g_assert_null (riv_job_get_batch_id (p));
  /* g and q: one batch until q's join reply says it is the plain endpoint's. */
  g_ptr_array_add (jobs, q = batch_job (client, "plain", "q"));
  g_ptr_array_add (jobs, g = batch_job (client, "batch", "g"));
  g_assert_null (riv_job_get_batch_id (q));
  assert_batch (g, riv_job_get_batch_id (g), 1, 0);
  g_assert_cmpstr (riv_job_get_batch_id (g), !=, riv_job_get_batch_id (f));

  /* Starts far apart are separate batches. */
  {
    RivJob *h = batch_job (client, "batch", "h");
    RivJob *i = batch_job (client, "batch", "i");

    g_ptr_array_add (jobs, h);
    g_ptr_array_add (jobs, i);
    g_assert_true (feed (client, "data: {\"msg\":\"heartbeat\"}\n\n"));
    feed_starts (client, "h", NULL);
    g_usleep (120 * 1000);
    feed_starts (client, "i", NULL);
    assert_batch (h, riv_job_get_batch_id (h), 1, 0);
    assert_batch (i, riv_job_get_batch_id (i), 1, 0);
    g_assert_cmpstr (riv_job_get_batch_id (h), !=, riv_job_get_batch_id (i));
  }

  /* Every job of the batch endpoint that started belongs to a batch. */
  for (guint n = 0; n < jobs->len; n++)
    {
      RivJob *job = g_ptr_array_index (jobs, n);

      if (g_strcmp0 (riv_job_get_endpoint (job), "/batch") == 0)
        g_assert_nonnull (riv_job_get_batch_id (job));
    }
}

/* A server on this machine is reached directly, never through a proxy
 * (and without asking the system's proxy resolver for every connection). */
static void
test_loopback_no_proxy (void)
{
  static const char * const local[] = { "http://127.0.0.1:9", "http://127.1.2.3:9/app",
                                        "http://localhost:9", "http://LOCALHOST:9",
                                        "http://[::1]:9" };
  static const char * const remote[] = { "http://example.invalid:9", "http://10.0.0.1:9",
                                         "http://localhost.example:9" };

  for (guint i = 0; i < G_N_ELEMENTS (local); i++)
    {
      g_autoptr(RivClient) client = riv_client_new (local[i]);

      g_test_message ("%s", local[i]);
      g_assert_null (soup_session_get_proxy_resolver (client->session));
    }
  for (guint i = 0; i < G_N_ELEMENTS (remote); i++)
    {
      g_autoptr(RivClient) client = riv_client_new (remote[i]);

      g_test_message ("%s", remote[i]);
      g_assert_nonnull (soup_session_get_proxy_resolver (client->session));
    }
}

/* Gradio completion of a batch member: the call's duration and the
 * endpoint's average, the same for every member of one call. */
static void
feed_completed (RivClient  *client,
                const char *event_id,
                const char *duration,
                const char *average)
{
  g_autofree char *text = g_strdup_printf ("data: {\"msg\":\"process_completed\",\"event_id\":\"%s\","
                                           "\"output\":{\"data\":[\"x\"],\"duration\":%s,"
                                           "\"average_duration\":%s},\"success\":true}\n\n",
                                           event_id, duration, average);

  g_assert_true (feed (client, text));
}

/* Starts only suggest batches (on a busy Gradio 5.49 a batch's starts came
 * far enough apart to split it); the completions settle them: members that
 * report the same call (duration and average) were one batch, members of
 * one run of starts that report different calls were not. */
static void
test_inferred_batches_completions (void)
{
  g_autoptr(RivClient) client = riv_client_new ("http://127.0.0.1:9");
  g_autoptr(RivConfig) config = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(RivJob) h = NULL, i = NULL, j = NULL, k = NULL, m = NULL;

  config = riv_config_new_from_data (batch_config, -1, "http://127.0.0.1:9", &error);
  g_assert_no_error (error);
  _riv_client_connect_local_for_testing (client, config);

  h = batch_job (client, "batch", "h");
  i = batch_job (client, "batch", "i");
  feed_starts (client, "h", NULL);
  g_usleep (120 * 1000);
  feed_starts (client, "i", NULL);
  g_assert_cmpstr (riv_job_get_batch_id (h), !=, riv_job_get_batch_id (i));

  feed_completed (client, "h", "0.0123", "0.0456");
  feed_completed (client, "i", "0.0123", "0.0456");
  g_assert_cmpint (riv_job_get_status (i), ==, RIV_JOB_STATUS_COMPLETED);
  assert_batch (h, riv_job_get_batch_id (h), 2, 0);
  assert_batch (i, riv_job_get_batch_id (h), 2, 1);

  /* One run of starts, two calls (a server running two batches at once). */
  j = batch_job (client, "batch", "j");
  k = batch_job (client, "batch", "k");
  m = batch_job (client, "batch", "m");
  feed_starts (client, "j", "k", "m", NULL);
  assert_batch (k, riv_job_get_batch_id (j), 3, 1);
  feed_completed (client, "j", "0.02", "0.03");
  feed_completed (client, "k", "0.02", "0.0325");
  feed_completed (client, "m", "0.02", "0.03");
  assert_batch (j, riv_job_get_batch_id (j), 2, 0);
  assert_batch (m, riv_job_get_batch_id (j), 2, 1);
  assert_batch (k, riv_job_get_batch_id (k), 1, 0);
  g_assert_cmpstr (riv_job_get_batch_id (k), !=, riv_job_get_batch_id (j));
  g_assert_cmpstr (riv_job_get_batch_id (j), !=, riv_job_get_batch_id (h));
}

static guint n_logs_notified;

static void
n_logs_cb (GObject    *object,
           GParamSpec *pspec,
           gpointer    user_data)
{
  n_logs_notified++;
}

/* log messages (gr.Info / gr.Warning; Gradio 5 and 6 add a title) are kept
 * per job, each with a timeline entry; a flood keeps the first ones. */
static void
test_logs (void)
{
  g_autoptr(RivClient) client = local_client ();
  g_autoptr(RivJob) a = local_job (client, "aaa");
  g_autoptr(RivJob) b = local_job (client, "bbb");
  g_autoptr(GString) flood = g_string_new (NULL);
  const RivJobLog *log;

  g_signal_connect (a, "notify::n-logs", G_CALLBACK (n_logs_cb), NULL);
  n_logs_notified = 0;
  g_assert_cmpuint (riv_job_get_n_logs (a), ==, 0);

  g_assert_true (feed (client, "data: {\"msg\":\"process_starts\",\"event_id\":\"aaa\"}\n\n"
                               "data: {\"msg\":\"log\",\"event_id\":\"aaa\",\"log\":\"Halfway\","
                               "\"level\":\"info\",\"duration\":10,\"visible\":true,"
                               "\"title\":\"Info\"}\n\n"
                               "data: {\"msg\":\"log\",\"event_id\":\"aaa\","
                               "\"log\":\"Low on memory\",\"level\":\"warning\"}\n\n"
                               "data: {\"msg\":\"log\",\"event_id\":\"aaa\","
                               "\"log\":\"Bad input\",\"level\":\"error\",\"title\":\"Oops\"}\n\n"
                               "data: {\"msg\":\"log\",\"event_id\":\"aaa\"}\n\n"
                               "data: {\"msg\":\"process_completed\",\"event_id\":\"aaa\","
                               "\"output\":{\"data\":[\"x\"]},\"success\":true}\n\n"
                               "data: {\"msg\":\"log\",\"event_id\":\"aaa\",\"log\":\"late\","
                               "\"level\":\"info\"}\n\n"));
  g_assert_cmpint (riv_job_get_status (a), ==, RIV_JOB_STATUS_COMPLETED);
  g_assert_cmpuint (riv_job_get_n_logs (a), ==, 4);
  g_assert_cmpuint (n_logs_notified, ==, 4);

  log = riv_job_get_log (a, 0);
  g_assert_cmpstr (log->level, ==, "info");
  g_assert_cmpstr (log->title, ==, "Info");
  g_assert_cmpstr (log->message, ==, "Halfway");
  g_assert_cmpfloat (log->time, >=, 0);
  log = riv_job_get_log (a, 1);
  g_assert_cmpstr (log->level, ==, "warning");
  g_assert_null (log->title);
  g_assert_cmpstr (log->message, ==, "Low on memory");
  log = riv_job_get_log (a, 2);
  g_assert_cmpstr (log->level, ==, "error");
  g_assert_cmpstr (log->title, ==, "Oops");
  g_assert_cmpstr (log->message, ==, "Bad input");
  /* Neither level nor text: still a log, plainly an info with no text. */
  log = riv_job_get_log (a, 3);
  g_assert_cmpstr (log->level, ==, "info");
  g_assert_cmpstr (log->message, ==, "");
  g_assert_true (timeline_has (a, "info: Halfway"));
  g_assert_true (timeline_has (a, "warning: Low on memory"));
  g_assert_cmpuint (riv_job_get_logs_dropped (a), ==, 0);

  for (guint i = 0; i < RIV_JOB_LOGS_MAX + 44; i++)
    g_string_append_printf (flood, "data: {\"msg\":\"log\",\"event_id\":\"bbb\",\"log\":\"n%u\","
                                   "\"level\":\"info\",\"title\":\"Info\"}\n\n", i);
  g_assert_true (feed (client, flood->str));
  g_assert_cmpuint (riv_job_get_n_logs (b), ==, RIV_JOB_LOGS_MAX);
  g_assert_cmpuint (riv_job_get_logs_dropped (b), ==, 44);
  g_assert_cmpstr (riv_job_get_log (b, RIV_JOB_LOGS_MAX - 1)->message, ==, "n255");
  g_assert_false (riv_job_is_finished (b));
}

/* A tiny server that answers /config with whatever the test says. */
typedef struct
{
  guint       status;
  const char *content_type;
  const char *body;
} ConfigReply;

static void
config_handler (SoupServer        *server,
                SoupServerMessage *msg,
                const char        *path,
                GHashTable        *query,
                gpointer           user_data)
{
  const ConfigReply *reply = user_data;

  soup_server_message_set_status (msg, reply->status, NULL);
  soup_server_message_set_response (msg, reply->content_type, SOUP_MEMORY_STATIC,
                                    reply->body, strlen (reply->body));
}

static GError *
connect_error_with (const ConfigReply *reply)
{
  g_autoptr(SoupServer) server = soup_server_new (NULL, NULL);
  g_autoptr(GError) listen_error = NULL;
  g_autofree char *url = NULL;
  GSList *uris;
  GError *error;

  soup_server_add_handler (server, NULL, config_handler, (gpointer) reply, NULL);
  soup_server_listen_local (server, 0, SOUP_SERVER_LISTEN_IPV4_ONLY, &listen_error);
  g_assert_no_error (listen_error);
  uris = soup_server_get_uris (server);
  url = g_strdup_printf ("http://127.0.0.1:%d", g_uri_get_port (uris->data));
  g_slist_free_full (uris, (GDestroyNotify) g_uri_unref);

  error = connect_error (url);
  soup_server_disconnect (server);
  return error;
}

static void
test_not_gradio (void)
{
  static const ConfigReply html = {
    200, "text/html", "<!doctype html><html><body>Hello, I am a blog</body></html>"
  };
  static const ConfigReply not_found = { 404, "text/html", "<h1>Not Found</h1>" };
  static const ConfigReply json_other = { 200, "application/json", "{\"name\":\"not gradio\"}" };
  static const ConfigReply ws = {
    200, "application/json", "{\"version\":\"3.50.2\",\"components\":[],\"dependencies\":[]}"
  };
  static const ConfigReply v4 = {
    200, "application/json",
    "{\"version\":\"4.5.0\",\"protocol\":\"sse\",\"components\":[],\"dependencies\":[]}"
  };
  g_autoptr(GError) e1 = connect_error_with (&html);
  g_autoptr(GError) e2 = connect_error_with (&not_found);
  g_autoptr(GError) e3 = connect_error_with (&json_other);
  g_autoptr(GError) e4 = connect_error_with (&ws);
  g_autoptr(GError) e5 = connect_error_with (&v4);

  g_assert_error (e1, RIV_CLIENT_ERROR, RIV_CLIENT_ERROR_NOT_GRADIO);
  g_assert_nonnull (strstr (e1->message, "does not look like a Gradio app"));
  g_assert_error (e2, RIV_CLIENT_ERROR, RIV_CLIENT_ERROR_NOT_GRADIO);
  g_assert_cmpstr (e2->message, ==, "Could not load the server's config (HTTP 404)");
  g_assert_error (e3, RIV_CLIENT_ERROR, RIV_CLIENT_ERROR_NOT_GRADIO);
  g_assert_error (e4, RIV_CLIENT_ERROR, RIV_CLIENT_ERROR_UNSUPPORTED);
  g_assert_nonnull (strstr (e4->message, "ws"));
  g_assert_error (e5, RIV_CLIENT_ERROR, RIV_CLIENT_ERROR_UNSUPPORTED);
  g_assert_nonnull (strstr (e5->message, "\"sse\""));
}

/* Behind nginx as Gradio's guide sets it up ("Host $host", the app under
 * /app with root_path), on a port other than 80: /config names a root
 * without the port. The client keeps the root's path but uses the host:port
 * it connected to, as Gradio's own page does, and says so; a root on another
 * host is left alone. */
typedef struct
{
  const char *root;
  guint       n_info;     /* GET /app/gradio_api/info that reached this server */
} ProxiedApp;

static void
proxied_app_handler (SoupServer        *server,
                     SoupServerMessage *msg,
                     const char        *path,
                     GHashTable        *query,
                     gpointer           user_data)
{
  ProxiedApp *app = user_data;

  if (g_strcmp0 (path, "/app/config") == 0)
    {
      char *body = g_strdup_printf ("{\"version\":\"6.25.0\",\"protocol\":\"sse_v3\","
                                    "\"api_prefix\":\"/gradio_api\",\"root\":\"%s\","
                                    "\"components\":[],\"dependencies\":[]}", app->root);

      soup_server_message_set_status (msg, 200, NULL);
      soup_server_message_set_response (msg, "application/json", SOUP_MEMORY_TAKE,
                                        body, strlen (body));
      return;
    }
  if (g_strcmp0 (path, "/app/gradio_api/info") == 0)
    {
      app->n_info++;
      soup_server_message_set_status (msg, 200, NULL);
      soup_server_message_set_response (msg, "application/json", SOUP_MEMORY_STATIC, "{}", 2);
      return;
    }
  soup_server_message_set_status (msg, 404, NULL);
}

static RivConfig *
connect_proxied (ProxiedApp *app,
                 gboolean    follow_root,
                 char      **url_out)
{
  g_autoptr(SoupServer) server = soup_server_new (NULL, NULL);
  g_autoptr(GError) error = NULL;
  g_autoptr(RivClient) client = NULL;
  g_autoptr(GAsyncResult) result = NULL;
  RivConfig *config;
  GSList *uris;

  soup_server_add_handler (server, NULL, proxied_app_handler, app, NULL);
  soup_server_listen_local (server, 0, SOUP_SERVER_LISTEN_IPV4_ONLY, &error);
  g_assert_no_error (error);
  uris = soup_server_get_uris (server);
  *url_out = g_strdup_printf ("http://127.0.0.1:%d/app", g_uri_get_port (uris->data));
  g_slist_free_full (uris, (GDestroyNotify) g_uri_unref);

  client = riv_client_new (*url_out);
  riv_client_set_follow_root (client, follow_root);
  riv_client_connect_async (client, NULL, riv_test_async_result_cb, &result);
  riv_test_wait_result (&result, HANG_GUARD);
  g_assert_true (riv_client_connect_finish (client, result, &error));
  g_assert_no_error (error);
  config = riv_config_ref (riv_client_get_config (client));
  riv_client_close (client);
  riv_test_drain ();
  soup_server_disconnect (server);
  return config;
}

static void
test_root_behind_proxy (void)
{
  ProxiedApp portless = { "http://127.0.0.1/app/", 0 };
  ProxiedApp other_host = { "http://gradio.invalid/app", 0 };
  ProxiedApp followed = { "http://localhost:1/app", 0 };
  g_autofree char *url1 = NULL;
  g_autofree char *url2 = NULL;
  g_autofree char *url3 = NULL;
  g_autoptr(RivConfig) c1 = connect_proxied (&portless, FALSE, &url1);
  g_autoptr(RivConfig) c2 = connect_proxied (&other_host, FALSE, &url2);
  g_autoptr(RivConfig) c3 = connect_proxied (&followed, TRUE, &url3);

  /* Corrected, and the requests after /config went there. */
  g_assert_cmpstr (riv_config_get_root (c1), ==, url1);
  g_assert_cmpstr (riv_config_get_reported_root (c1), ==, "http://127.0.0.1/app");
  g_assert_cmpuint (portless.n_info, ==, 1);
  /* Another host's root is not followed: the requests stay on the URL. */
  g_assert_cmpstr (riv_config_get_root (c2), ==, url2);
  g_assert_cmpstr (riv_config_get_reported_root (c2), ==, "http://gradio.invalid/app");
  g_assert_cmpuint (other_host.n_info, ==, 1);
  /* Unless the client is told to follow it (nothing listens there: /info
   * fails, which only logs). */
  g_assert_cmpstr (riv_config_get_root (c3), ==, "http://localhost:1/app");
  g_assert_null (riv_config_get_reported_root (c3));
  g_assert_cmpuint (followed.n_info, ==, 0);
}

/* Embedded server ------------------------------------------------------------------------ */

static void
test_connect (Fixture       *fx,
              gconstpointer  data)
{
  RivConfig *config = riv_client_get_config (fx->client);
  RivEndpoint *endpoint;

  g_assert_nonnull (config);
  g_assert_cmpstr (riv_config_get_protocol (config), ==, "sse_v3");
  g_assert_cmpstr (riv_config_get_api_prefix (config), ==, "/gradio_api");
  g_assert_cmpuint (riv_config_get_n_endpoints (config), ==, riv_demo_get_count ());
  endpoint = riv_config_find_endpoint (config, "batch_echo");
  g_assert_nonnull (endpoint);
  g_assert_true (endpoint->batch);
  g_assert_cmpint (endpoint->max_batch_size, ==, 16);
  g_assert_true (riv_config_find_endpoint (config, "rapid_generation")->generator);

  g_assert_cmpstr (riv_client_get_url (fx->client), ==, fx->url);
  g_assert_cmpuint (strlen (riv_client_get_session_hash (fx->client)), >=, 8);
  g_assert_cmpint (riv_client_get_stream_state (fx->client), ==, RIV_STREAM_STATE_IDLE);
  g_assert_cmpuint (g_list_model_get_n_items (riv_client_get_jobs (fx->client)), ==, 0);
}

static void
test_submit_errors (Fixture       *fx,
                    gconstpointer  data)
{
  g_autoptr(RivClient) unconnected = riv_client_new (fx->url);
  g_autoptr(JsonNode) object = json ("{\"text\":\"x\"}");
  g_autoptr(JsonNode) too_many = json ("[\"a\", 0, 1]");
  g_autoptr(GError) e1 = NULL;
  g_autoptr(GError) e2 = NULL;
  g_autoptr(GError) e3 = NULL;
  g_autoptr(GError) e4 = NULL;

  g_assert_null (riv_client_submit (unconnected, "batch_echo", NULL, &e1));
  g_assert_error (e1, RIV_CLIENT_ERROR, RIV_CLIENT_ERROR_NOT_CONNECTED);
  g_assert_null (riv_client_submit (fx->client, "/no_such_thing", NULL, &e2));
  g_assert_error (e2, RIV_CLIENT_ERROR, RIV_CLIENT_ERROR_NO_ENDPOINT);
  g_assert_null (riv_client_submit (fx->client, "batch_echo", object, &e3));
  g_assert_error (e3, RIV_CLIENT_ERROR, RIV_CLIENT_ERROR_BAD_INPUT);
  g_assert_null (riv_client_submit (fx->client, "batch_echo", too_many, &e4));
  g_assert_error (e4, RIV_CLIENT_ERROR, RIV_CLIENT_ERROR_BAD_INPUT);
  g_assert_cmpuint (g_list_model_get_n_items (riv_client_get_jobs (fx->client)), ==, 0);
}

static void
test_rapid_generation (Fixture       *fx,
                       gconstpointer  data)
{
  g_autoptr(RivJob) job = submit (fx, "/rapid_generation", "[3000]");
  g_autoptr(GString) expected = g_string_new (NULL);

  /* The job is returned at once, already joining, and listed. */
  g_assert_cmpint (riv_job_get_status (job), ==, RIV_JOB_STATUS_JOINING);
  g_assert_cmpuint (riv_job_get_number (job), ==, 1);
  g_assert_cmpstr (riv_job_get_endpoint (job), ==, "/rapid_generation");
  g_assert_cmpuint (g_list_model_get_n_items (riv_client_get_jobs (fx->client)), ==, 1);
  g_assert_cmpuint (riv_client_get_n_pending (fx->client), ==, 1);

  wait_finished (job);

  for (guint i = 1; i <= 3000; i++)
    g_string_append_printf (expected, i == 1 ? "%u" : "\n%u", i);
  g_assert_cmpint (riv_job_get_status (job), ==, RIV_JOB_STATUS_COMPLETED);
  g_assert_cmpstr (riv_job_get_output_text (job), ==, expected->str);
  g_assert_null (riv_job_get_error (job));
  g_assert_cmpuint (riv_job_get_n_updates (job), >=, 2);
  g_assert_cmpfloat (riv_job_get_first_output_at (job), >, 0);
  g_assert_cmpfloat (riv_job_get_total_time (job), >=, 0);
  g_assert_null (riv_job_get_inputs (job));   /* trimmed once finished */
  g_assert_cmpuint (riv_client_get_n_pending (fx->client), ==, 0);
  g_assert_cmpuint (riv_client_get_n_messages (fx->client), >=, 3000);
}

typedef struct
{
  guint    n_changes;
  gboolean grew;       /* every text started with the previous one */
  char    *last;
} TextWatch;

static void
output_text_cb (RivJob     *job,
                GParamSpec *pspec,
                TextWatch  *watch)
{
  const char *text = riv_job_get_output_text (job);

  watch->n_changes++;
  if (watch->last != NULL && (text == NULL || !g_str_has_prefix (text, watch->last)))
    watch->grew = FALSE;
  g_free (watch->last);
  watch->last = g_strdup (text);
}

static void
test_stream_text (Fixture       *fx,
                  gconstpointer  data)
{
  g_autoptr(RivJob) job = NULL;
  g_auto(GStrv) words = NULL;
  TextWatch watch = { 0, TRUE, NULL };

  /* Every yield handed to the job as it arrives (no publish interval). */
  riv_client_set_publish_interval (fx->client, 0);
  job = submit (fx, "/stream_text", "[\"A tale\", 40, 0.001]");
  g_signal_connect (job, "notify::output-text", G_CALLBACK (output_text_cb), &watch);
  wait_finished (job);

  g_assert_cmpint (riv_job_get_status (job), ==, RIV_JOB_STATUS_COMPLETED);
  words = g_strsplit (riv_job_get_output_text (job), " ", -1);
  g_assert_cmpuint (g_strv_length (words), ==, 40);
  /* It streamed: one text per token, each extending the one before. */
  g_assert_cmpuint (watch.n_changes, ==, 40);
  g_assert_true (watch.grew);
  g_assert_cmpuint (riv_job_get_n_updates (job), ==, 41);
  g_signal_handlers_disconnect_by_data (job, &watch);
  g_free (watch.last);
}

static gboolean
job_has_image (gpointer job)
{
  return riv_job_is_finished (job) && riv_job_get_image (job) != NULL;
}

static void
test_fake_diffusion (Fixture       *fx,
                     gconstpointer  data)
{
  g_autoptr(RivJob) job = submit (fx, "/fake_diffusion", "[4, 0.01]");
  static const guint8 png_magic[] = { 0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n' };
  GBytes *image;
  gsize size;
  const guint8 *bytes;

  wait_finished (job);
  g_assert_cmpint (riv_job_get_status (job), ==, RIV_JOB_STATUS_COMPLETED);

  /* Completion is not delayed by downloads; the last picture lands after. */
  g_assert_true (riv_test_wait_until (job_has_image, job, HANG_GUARD));
  image = riv_job_get_image (job);
  bytes = g_bytes_get_data (image, &size);
  g_assert_cmpuint (size, >, sizeof png_magic);
  g_assert_cmpmem (bytes, sizeof png_magic, png_magic, sizeof png_magic);
  g_assert_cmpuint (riv_job_get_n_images (job), >=, 1);
  g_assert_nonnull (strstr (riv_job_get_output_text (job), "4/4"));
  g_assert_cmpint (riv_job_get_progress_length (job), ==, 4);
  g_assert_cmpuint (riv_job_get_n_updates (job), ==, 5);
}

static void
test_download_disabled (Fixture       *fx,
                        gconstpointer  data)
{
  g_autoptr(RivJob) job = NULL;

  riv_client_set_download_images (fx->client, FALSE);
  job = submit (fx, "/fake_diffusion", "[2, 0.01]");
  wait_finished (job);
  riv_test_drain ();
  g_assert_cmpint (riv_job_get_status (job), ==, RIV_JOB_STATUS_COMPLETED);
  g_assert_null (riv_job_get_image (job));
  g_assert_cmpuint (riv_job_get_n_images (job), ==, 0);
}

typedef struct
{
  guint n_finished;
} FinishCount;

static void
job_finished_cb (RivClient   *client,
                 RivJob      *job,
                 FinishCount *count)
{
  g_assert_true (riv_job_is_finished (job));
  count->n_finished++;
}

/* Issue #9968's scenario: a fast burst to a batch endpoint. Every job must
 * complete with its own input, round after round on the same client. */
static void
test_batch_burst (Fixture       *fx,
                  gconstpointer  data)
{
  const guint n_jobs = RIV_SANITIZED ? 500 : 1000;
  const guint n_rounds = RIV_SANITIZED ? 1 : 5;
  FinishCount count = { 0 };

  g_signal_connect (fx->client, "job-finished", G_CALLBACK (job_finished_cb), &count);

  for (guint round = 0; round < n_rounds; round++)
    {
      g_autoptr(GPtrArray) jobs = g_ptr_array_new_with_free_func (g_object_unref);
      g_autoptr(GHashTable) batches = g_hash_table_new (g_str_hash, g_str_equal);

      for (guint i = 0; i < n_jobs; i++)
        {
          g_autofree char *input = g_strdup_printf ("[\"round %u job %u\", 0]", round, i);

          g_ptr_array_add (jobs, submit (fx, "batch_echo", input));
        }
      wait_no_pending (fx->client);

      for (guint i = 0; i < n_jobs; i++)
        {
          RivJob *job = g_ptr_array_index (jobs, i);
          g_autofree char *expected = g_strdup_printf ("round %u job %u", round, i);

          g_assert_cmpint (riv_job_get_status (job), ==, RIV_JOB_STATUS_COMPLETED);
          g_assert_cmpstr (riv_job_get_output_text (job), ==, expected);
          /* The server names every batch; the size is the batch's, not 0. */
          g_assert_nonnull (riv_job_get_batch_id (job));
          g_assert_cmpint (riv_job_get_batch_size (job), >=, 1);
          g_assert_cmpint (riv_job_get_batch_size (job), <=, 16);
          g_assert_cmpint (riv_job_get_batch_index (job), <, riv_job_get_batch_size (job));
          g_hash_table_add (batches, (gpointer) riv_job_get_batch_id (job));
        }
      g_assert_cmpuint (count.n_finished, ==, (round + 1) * n_jobs);
      g_test_message ("round %u: %u batches for %u jobs", round, g_hash_table_size (batches),
                      n_jobs);

      g_assert_cmpuint (riv_client_clear_finished (fx->client), ==, n_jobs);
      g_assert_cmpuint (g_list_model_get_n_items (riv_client_get_jobs (fx->client)), ==, 0);
    }

  g_assert_cmpuint (_riv_client_get_n_early (fx->client), ==, 0);
  g_signal_handlers_disconnect_by_data (fx->client, &count);
}

static gboolean
job_is_running (gpointer job)
{
  RivJobStatus status = riv_job_get_status (job);

  return status == RIV_JOB_STATUS_RUNNING || status == RIV_JOB_STATUS_STREAMING;
}

static gboolean
job_is_queued (gpointer job)
{
  return riv_job_get_status (job) == RIV_JOB_STATUS_QUEUED;
}

static void
test_cancel (Fixture       *fx,
             gconstpointer  data)
{
  g_autoptr(RivJob) running = NULL;
  g_autoptr(RivJob) queued = NULL;
  g_autoptr(RivJob) after = NULL;

  /* One at a time: the second job waits behind the first (40 × 0.25 s). */
  fixture_teardown (fx, NULL);
  start_server (fx, "concurrency", 1, NULL);
  connect_client (fx);

  running = submit (fx, "/fake_diffusion", "[40, 0.25]");
  g_assert_true (riv_test_wait_until (job_is_running, running, HANG_GUARD));
  queued = submit (fx, "/fake_diffusion", "[40, 0.25]");
  g_assert_true (riv_test_wait_until (job_is_queued, queued, HANG_GUARD));

  riv_client_cancel (fx->client, queued);
  wait_finished (queued);
  g_assert_cmpint (riv_job_get_status (queued), ==, RIV_JOB_STATUS_CANCELLED);
  g_assert_false (riv_job_is_finished (running));

  riv_client_cancel (fx->client, running);
  wait_finished (running);
  g_assert_cmpint (riv_job_get_status (running), ==, RIV_JOB_STATUS_CANCELLED);
  g_assert_cmpuint (riv_client_get_n_pending (fx->client), ==, 0);

  /* The stream and the session survive a cancel. */
  after = submit (fx, "/batch_echo", "[\"still here\", 0]");
  wait_finished (after);
  g_assert_cmpstr (riv_job_get_output_text (after), ==, "still here");
}

static void
test_cancel_all (Fixture       *fx,
                 gconstpointer  data)
{
  g_autoptr(GPtrArray) jobs = g_ptr_array_new_with_free_func (g_object_unref);

  for (guint i = 0; i < 10; i++)
    g_ptr_array_add (jobs, submit (fx, "/stream_text", "[\"x\", 1000, 0.05]"));
  riv_client_cancel_all (fx->client);
  wait_no_pending (fx->client);
  for (guint i = 0; i < jobs->len; i++)
    g_assert_cmpint (riv_job_get_status (g_ptr_array_index (jobs, i)), ==,
                     RIV_JOB_STATUS_CANCELLED);
}

static void
test_queue_full (Fixture       *fx,
                 gconstpointer  data)
{
  g_autoptr(GPtrArray) jobs = g_ptr_array_new_with_free_func (g_object_unref);
  guint completed = 0, full = 0;

  fixture_teardown (fx, NULL);
  start_server (fx, "concurrency", 1, "max-queue", 3, NULL);
  connect_client (fx);

  for (guint i = 0; i < 30; i++)
    g_ptr_array_add (jobs, submit (fx, "/stream_text", "[\"x\", 5, 0.01]"));
  wait_no_pending (fx->client);

  for (guint i = 0; i < jobs->len; i++)
    {
      RivJob *job = g_ptr_array_index (jobs, i);

      if (riv_job_get_status (job) == RIV_JOB_STATUS_COMPLETED)
        completed++;
      else
        {
          g_assert_cmpint (riv_job_get_status (job), ==, RIV_JOB_STATUS_FAILED);
          /* One clear text: the server's own words, not "Queue is full: Queue is full. …". */
          g_assert_cmpstr (riv_job_get_error (job), ==, "Queue is full. Max size is 3 and size is 3.");
          full++;
        }
    }
  g_test_message ("%u completed, %u refused", completed, full);
  g_assert_cmpuint (completed, >=, 1);
  g_assert_cmpuint (full, >=, 1);
  g_assert_cmpuint (completed + full, ==, jobs->len);
}

static gboolean
some_streaming (gpointer data)
{
  GPtrArray *jobs = data;

  for (guint i = 0; i < jobs->len; i++)
    if (riv_job_get_status (g_ptr_array_index (jobs, i)) == RIV_JOB_STATUS_STREAMING)
      return TRUE;
  return FALSE;
}

static gboolean
client_is_disconnected (gpointer user_data)
{
  return riv_client_get_stream_state (user_data) == RIV_STREAM_STATE_DISCONNECTED;
}

/* The server goes away mid-stream: every job ends, none stays pending. */
static void
test_server_shutdown (Fixture       *fx,
                      gconstpointer  data)
{
  g_autoptr(GPtrArray) jobs = g_ptr_array_new_with_free_func (g_object_unref);

  for (guint i = 0; i < 20; i++)
    g_ptr_array_add (jobs, submit (fx, "/stream_text", "[\"x\", 10000, 0.02]"));
  g_assert_true (riv_test_wait_until (some_streaming, jobs, HANG_GUARD));

  riv_server_shutdown (fx->server);
  wait_no_pending (fx->client);

  for (guint i = 0; i < jobs->len; i++)
    {
      RivJob *job = g_ptr_array_index (jobs, i);
      RivJobStatus status = riv_job_get_status (job);

      g_assert_true (status == RIV_JOB_STATUS_FAILED || status == RIV_JOB_STATUS_LOST);
      g_assert_nonnull (riv_job_get_error (job));
    }

  /* With the server gone, a new submission fails and the client no longer
   * looks healthy: a window would otherwise keep saying "connected". */
  {
    g_autoptr(RivJob) late = submit (fx, "/batch_echo", "[\"late\", 0]");

    wait_no_pending (fx->client);
    g_assert_cmpint (riv_job_get_status (late), ==, RIV_JOB_STATUS_FAILED);
    g_assert_nonnull (strstr (riv_job_get_error (late), "Could not join"));
    /* A stream attempt may still be on its way to failing. */
    riv_test_wait_until (client_is_disconnected, fx->client, HANG_GUARD);
    g_assert_cmpint (riv_client_get_stream_state (fx->client), ==, RIV_STREAM_STATE_DISCONNECTED);
  }
}

/* With the default publish interval a fast generator's text reaches the job
 * far fewer times than it yields, always growing, and complete at the end;
 * every yield is still counted. */
static void
test_stream_throttled (Fixture       *fx,
                       gconstpointer  data)
{
  g_autoptr(RivJob) job = NULL;
  g_autoptr(GString) expected = g_string_new (NULL);
  TextWatch watch = { 0, TRUE, NULL };
  double interval = 0.02;
  double started, elapsed;

  g_object_get (fx->client, "publish-interval", &interval, NULL);
  started = riv_now ();
  job = submit (fx, "/rapid_generation", "[20000]");
  g_signal_connect (job, "notify::output-text", G_CALLBACK (output_text_cb), &watch);
  wait_finished (job);
  elapsed = riv_now () - started;

  for (guint i = 1; i <= 20000; i++)
    g_string_append_printf (expected, i == 1 ? "%u" : "\n%u", i);
  g_assert_cmpint (riv_job_get_status (job), ==, RIV_JOB_STATUS_COMPLETED);
  g_assert_cmpstr (riv_job_get_output_text (job), ==, expected->str);
  g_assert_cmpuint (riv_job_get_n_updates (job), ==, 20001);
  g_assert_true (watch.grew);
  g_assert_cmpuint (watch.n_changes, >=, 1);
  /* At most one publication per interval, plus the first yield and the
   * completion, which go out at once: far fewer than the 20,000 yields on
   * any machine that streams them within minutes (under ASan with slow
   * unwinding the stream alone takes about 40 s). */
  g_assert_cmpfloat (watch.n_changes, <=, elapsed / interval + 3);
  g_signal_handlers_disconnect_by_data (job, &watch);
  g_free (watch.last);
}

static void
test_upload (Fixture       *fx,
             gconstpointer  data)
{
  g_autoptr(GBytes) contents = g_bytes_new_static ("hello upload", 12);
  g_autoptr(GAsyncResult) result = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *path = NULL;

  riv_client_upload_async (fx->client, contents, "hello.txt", NULL, riv_test_async_result_cb,
                           &result);
  riv_test_wait_result (&result, HANG_GUARD);
  path = riv_client_upload_finish (fx->client, result, &error);
  g_assert_no_error (error);
  g_assert_nonnull (path);
  g_assert_true (g_str_has_suffix (path, "hello.txt"));
}

/* What the client sent, seen through its tap: uploads and join bodies. */
typedef struct
{
  guint      uploads;
  GPtrArray *joins;   /* char *: join request bodies */
} UploadTap;

static void
upload_tap_cb (const RivTapEvent *event,
               gpointer           user_data)
{
  UploadTap *tap = user_data;

  if (event->kind != RIV_TAP_REQUEST || g_strcmp0 (event->method, "POST") != 0)
    return;
  if (g_str_has_suffix (event->path, "/upload"))
    {
      /* Recorded without the file's bytes. */
      g_assert_null (event->text);
      tap->uploads++;
    }
  else if (g_str_has_suffix (event->path, "/queue/join"))
    g_ptr_array_add (tap->joins, g_strndup (event->text, event->text_len));
}

static gboolean
jobs_finished (gpointer data)
{
  GPtrArray *jobs = data;

  for (guint i = 0; i < jobs->len; i++)
    if (!riv_job_is_finished (g_ptr_array_index (jobs, i)))
      return FALSE;
  return TRUE;
}

static char *
file_input (const char *path)
{
  return g_strdup_printf ("[{\"path\": \"%s\", \"meta\": {\"_type\": \"gradio.FileData\"}}]", path);
}

/* handle_file() inputs: uploaded before the join, once per path in the
 * session, replaced by the server's path; an unreadable file fails its job
 * before any join. (The demos take no files: the server refuses the joins'
 * values, which is after what is tested here.) */
static void
test_submit_uploading (Fixture       *fx,
                       gconstpointer  data)
{
  g_autofree char *dir = g_dir_make_tmp ("riv-upload-XXXXXX", NULL);
  g_autofree char *a = g_build_filename (dir, "a.txt", NULL);
  g_autofree char *b = g_build_filename (dir, "b.txt", NULL);
  g_autofree char *missing = g_build_filename (dir, "missing.png", NULL);
  g_autoptr(GPtrArray) jobs = g_ptr_array_new_with_free_func (g_object_unref);
  UploadTap tap = { 0, g_ptr_array_new_with_free_func (g_free) };
  const char *inputs[] = { a, a, b, a, missing };
  g_autoptr(GPtrArray) listed = NULL;
  g_autoptr(JsonNode) nested = NULL;

  g_assert_true (g_file_set_contents (a, "alpha", -1, NULL));
  g_assert_true (g_file_set_contents (b, "beta", -1, NULL));
  riv_client_set_tap (fx->client, upload_tap_cb, &tap);

  /* Found at any depth, each once; URLs are not local files. */
  nested = json ("[{\"text\": \"hi\", \"files\": [{\"path\": \"/x/1.png\", \"meta\": "
                 "{\"_type\": \"gradio.FileData\"}}, {\"path\": \"/x/1.png\", \"meta\": "
                 "{\"_type\": \"gradio.FileData\"}}, {\"path\": \"https://e.org/2.png\", \"meta\": "
                 "{\"_type\": \"gradio.FileData\"}}, {\"path\": \"/x/3.png\"}]}]");
  listed = riv_client_list_local_files (nested);
  g_assert_cmpuint (listed->len, ==, 1);
  g_assert_cmpstr (g_ptr_array_index (listed, 0), ==, "/x/1.png");

  for (guint i = 0; i < G_N_ELEMENTS (inputs); i++)
    {
      g_autofree char *text = file_input (inputs[i]);
      g_autoptr(JsonNode) node = json (text);
      g_autoptr(GError) error = NULL;
      RivJob *job = riv_client_submit_uploading (fx->client, "batch_echo", node, &error);

      g_assert_no_error (error);
      g_ptr_array_add (jobs, job);
    }
  g_assert_true (riv_test_wait_until (jobs_finished, jobs, HANG_GUARD));

  /* a and b went up once each; the missing file never did. */
  g_assert_cmpuint (tap.uploads, ==, 2);
  /* Every job with a file reached the join, with the server's path. */
  g_assert_cmpuint (tap.joins->len, ==, 4);
  for (guint i = 0; i < tap.joins->len; i++)
    {
      const char *body = g_ptr_array_index (tap.joins, i);

      g_assert_null (strstr (body, dir));
      g_assert_nonnull (strstr (body, "\"orig_name\":\"a.txt\"") != NULL
                        ? body : strstr (body, "\"orig_name\":\"b.txt\""));
    }
  for (guint i = 0; i < 4; i++)
    g_assert_cmpfloat (riv_job_get_upload_time (g_ptr_array_index (jobs, i)), >=, 0);

  /* The missing file: failed here, with its path, never joined. */
  g_assert_cmpint (riv_job_get_status (g_ptr_array_index (jobs, 4)), ==, RIV_JOB_STATUS_FAILED);
  g_assert_nonnull (strstr (riv_job_get_error (g_ptr_array_index (jobs, 4)), missing));
  g_assert_null (riv_job_get_event_id (g_ptr_array_index (jobs, 4)));

  riv_client_set_tap (fx->client, NULL, NULL);
  g_ptr_array_unref (tap.joins);
  g_unlink (a);
  g_unlink (b);
  g_rmdir (dir);
}

/* A Gradio 6.13+ app's /call/v2 route, scripted: a generator job and a failing one. */
typedef struct
{
  GPtrArray *posts;       /* char *: bodies of POST /call/v2/echo */
  guint      queue_gets;  /* GET queue/data: must stay 0 */
} CallServer;

static void
call_server_cb (SoupServer        *server,
                SoupServerMessage *msg,
                const char        *path,
                GHashTable        *query,
                gpointer           user_data)
{
  CallServer *cs = user_data;
  const char *json = NULL;
  const char *sse = NULL;

  if (strcmp (path, "/config") == 0)
    json = "{\"version\":\"6.25.0\",\"protocol\":\"sse_v3\",\"api_prefix\":\"/gradio_api\","
           "\"components\":[{\"id\":1,\"type\":\"textbox\",\"props\":{}},"
           "{\"id\":2,\"type\":\"textbox\",\"props\":{}}],\"dependencies\":[{\"id\":0,"
           "\"api_name\":\"echo\",\"inputs\":[1],\"outputs\":[2],\"queue\":true,"
           "\"types\":{\"generator\":true}}]}";
  else if (strcmp (path, "/gradio_api/info") == 0)
    json = "{\"named_endpoints\":{\"/echo\":{\"parameters\":[{\"parameter_name\":\"text\"}]}},"
           "\"unnamed_endpoints\":{}}";
  else if (strcmp (path, "/gradio_api/call/v2/echo") == 0)
    {
      SoupMessageBody *body = soup_server_message_get_request_body (msg);
      g_autoptr(GBytes) bytes = soup_message_body_flatten (body);

      char *text = g_strndup (g_bytes_get_data (bytes, NULL), g_bytes_get_size (bytes));

      g_ptr_array_add (cs->posts, text);
      /* By what was sent: the two joins may arrive in either order. */
      json = strstr (text, "fail") == NULL ? "{\"event_id\":\"E1\"}" : "{\"event_id\":\"E2\"}";
    }
  else if (strcmp (path, "/gradio_api/call/v2/echo/E1") == 0)
    sse = "event: generating\ndata: [\"a\"]\n\nevent: heartbeat\ndata: null\n\n"
          "event: generating\ndata: [\"a b\"]\n\nevent: complete\ndata: [\"a b c\"]\n\n";
  else if (strcmp (path, "/gradio_api/call/v2/echo/E2") == 0)
    sse = "event: error\ndata: \"boom\"\n\n";
  else if (g_str_has_suffix (path, "/queue/data"))
    cs->queue_gets++;

  if (json == NULL && sse == NULL)
    {
      soup_server_message_set_status (msg, SOUP_STATUS_NOT_FOUND, NULL);
      return;
    }
  soup_server_message_set_status (msg, SOUP_STATUS_OK, NULL);
  soup_server_message_set_response (msg, json ? "application/json" : "text/event-stream",
                                    SOUP_MEMORY_STATIC, json ? json : sse,
                                    strlen (json ? json : sse));
}

/* --transport call: keyword arguments named by /info, one result stream per
 * job, its frames applied as the queue's messages; never the session stream. */
static void
test_call_transport (void)
{
  g_autoptr(SoupServer) server = soup_server_new (NULL, NULL);
  g_autoptr(GError) error = NULL;
  g_autoptr(RivClient) client = NULL;
  g_autoptr(GAsyncResult) result = NULL;
  g_autoptr(GPtrArray) jobs = g_ptr_array_new_with_free_func (g_object_unref);
  g_autoptr(GSList) uris = NULL;
  g_autofree char *url = NULL;
  CallServer cs = { g_ptr_array_new_with_free_func (g_free), 0 };
  JsonArray *outputs;

  soup_server_add_handler (server, NULL, call_server_cb, &cs, NULL);
  g_assert_true (soup_server_listen_local (server, 0, SOUP_SERVER_LISTEN_IPV4_ONLY, &error));
  g_assert_no_error (error);
  uris = soup_server_get_uris (server);
  url = g_uri_to_string (uris->data);
  g_slist_free_full (g_steal_pointer (&uris), (GDestroyNotify) g_uri_unref);

  client = riv_client_new (url);
  riv_client_connect_async (client, NULL, riv_test_async_result_cb, &result);
  riv_test_wait_result (&result, HANG_GUARD);
  g_assert_true (riv_client_connect_finish (client, result, &error));
  riv_client_set_call_transport (client, TRUE);

  for (guint i = 0; i < 2; i++)
    {
      g_autoptr(JsonNode) data = json (i == 0 ? "[\"hello\"]" : "[\"fail\"]");

      g_ptr_array_add (jobs, riv_client_submit (client, "echo", data, &error));
      g_assert_no_error (error);
    }
  g_assert_true (riv_test_wait_until (jobs_finished, jobs, HANG_GUARD));

  g_assert_cmpuint (cs.posts->len, ==, 2);
  g_assert_true (g_ptr_array_find_with_equal_func (cs.posts, "{\"text\":\"hello\"}", g_str_equal,
                                                   NULL));
  g_assert_cmpuint (cs.queue_gets, ==, 0);

  /* Full values each time: the last one stands, every yield counted. */
  g_assert_cmpint (riv_job_get_status (g_ptr_array_index (jobs, 0)), ==, RIV_JOB_STATUS_COMPLETED);
  g_assert_cmpstr (riv_job_get_event_id (g_ptr_array_index (jobs, 0)), ==, "E1");
  outputs = json_node_get_array (riv_job_get_outputs (g_ptr_array_index (jobs, 0)));
  g_assert_cmpstr (json_array_get_string_element (outputs, 0), ==, "a b c");
  g_assert_cmpuint (riv_job_get_n_updates (g_ptr_array_index (jobs, 0)), ==, 3);

  g_assert_cmpint (riv_job_get_status (g_ptr_array_index (jobs, 1)), ==, RIV_JOB_STATUS_FAILED);
  g_assert_cmpstr (riv_job_get_error (g_ptr_array_index (jobs, 1)), ==, "boom");

  riv_client_close (client);
  riv_test_drain ();
  g_ptr_array_unref (cs.posts);
}

static size_t
heap_in_use (void)
{
  struct mallinfo2 info = mallinfo2 ();

  return info.uordblks + info.hblkhd;
}

/* Memory per finished job with thousands of jobs: the client's whole cost
 * (RivJob, its outputs, the job list and the event-id index) after the jobs
 * are done. The server shares the process; what it keeps per finished job
 * (nothing, when the connections are reused) would be counted too, so the
 * figure is an upper bound for the client. */
static void
test_memory_per_job (Fixture       *fx,
                     gconstpointer  data)
{
  const guint n_rounds = 5;
  const guint n_jobs = 1000;
  g_autoptr(GPtrArray) jobs = g_ptr_array_new_with_free_func (g_object_unref);
  size_t before, after;
  double per_job;

  /* mallinfo2() means nothing when a sanitizer or valgrind replaces malloc
   * (valgrind's reports zero). */
  if (RIV_SANITIZED || heap_in_use () == 0)
    {
      g_test_skip ("malloc statistics unavailable (sanitizer build or valgrind)");
      return;
    }

  /* Warm up pools, connections and the server's per-session state. */
  for (guint i = 0; i < n_jobs; i++)
    g_ptr_array_add (jobs, submit (fx, "batch_echo", "[\"warm\", 0]"));
  wait_no_pending (fx->client);
  riv_client_clear_finished (fx->client);
  g_ptr_array_set_size (jobs, 0);
  riv_test_drain ();

  before = heap_in_use ();
  for (guint round = 0; round < n_rounds; round++)
    {
      for (guint i = 0; i < n_jobs; i++)
        {
          g_autofree char *input = g_strdup_printf ("[\"m%05u\", 0]", round * n_jobs + i);
          G_GNUC_UNUSED g_autoptr(RivJob) job = submit (fx, "batch_echo", input);
        }
      wait_no_pending (fx->client);
    }
  /* Let the last completions' stream end and idle connections settle. */
  riv_test_drain ();
  after = heap_in_use ();

  per_job = after > before ? (double) (after - before) / (n_rounds * n_jobs) : 0;
  g_test_message ("memory per finished job (client, %u jobs, outputs included): %.0f bytes",
                  n_rounds * n_jobs, per_job);
  if (g_getenv ("RIV_TEST_PRINT_MEMORY"))
    g_printerr ("memory per finished job (client, %u jobs, outputs included): %.0f bytes\n",
                n_rounds * n_jobs, per_job);

  g_assert_cmpuint (g_list_model_get_n_items (riv_client_get_jobs (fx->client)),
                    ==, n_rounds * n_jobs);

  g_assert_cmpuint (after, >, 0);
  /* The goal is 4 KiB excluding outputs; today it is well under 1 KiB including them. */
  g_assert_cmpfloat (per_job, <=, 2048);
}

/* A job's client is closed: in-flight jobs are cancelled, never left pending. */
static void
test_close_in_flight (Fixture       *fx,
                      gconstpointer  data)
{
  g_autoptr(RivJob) job = submit (fx, "/stream_text", "[\"x\", 1000, 0.05]");

  g_assert_true (riv_test_wait_until (job_is_running, job, HANG_GUARD));
  riv_client_close (fx->client);
  g_assert_cmpint (riv_job_get_status (job), ==, RIV_JOB_STATUS_CANCELLED);
  g_assert_cmpuint (riv_client_get_n_pending (fx->client), ==, 0);
  riv_client_close (fx->client);   /* idempotent */
}

/* rivulet-cli ------------------------------------------------------------------------- */

typedef struct
{
  char *out;
  char *err;
  int   status;
  gboolean done;
} CliRun;

static void
cli_done_cb (GObject      *object,
             GAsyncResult *result,
             gpointer      user_data)
{
  CliRun *run = user_data;
  g_autoptr(GError) error = NULL;

  g_subprocess_communicate_utf8_finish (G_SUBPROCESS (object), result, &run->out, &run->err,
                                        &error);
  g_assert_no_error (error);
  run->status = g_subprocess_get_exit_status (G_SUBPROCESS (object));
  run->done = TRUE;
}

/* Runs rivulet-cli while this process's main loop keeps serving. */
static gboolean
run_cli (CliRun            *run,
         const char * const *args)
{
  g_autofree char *cli = g_test_build_filename (G_TEST_BUILT, "..", "app", "cli", "rivulet-cli",
                                                NULL);
  g_autoptr(GPtrArray) argv = g_ptr_array_new ();
  g_autoptr(GSubprocess) process = NULL;
  g_autoptr(GError) error = NULL;

  if (!g_file_test (cli, G_FILE_TEST_IS_EXECUTABLE))
    {
      g_test_skip ("rivulet-cli is not built");
      return FALSE;
    }

  g_ptr_array_add (argv, cli);
  for (guint i = 0; args[i] != NULL; i++)
    g_ptr_array_add (argv, (gpointer) args[i]);
  g_ptr_array_add (argv, NULL);

  process = g_subprocess_newv ((const char * const *) argv->pdata,
                               G_SUBPROCESS_FLAGS_STDOUT_PIPE | G_SUBPROCESS_FLAGS_STDERR_PIPE,
                               &error);
  g_assert_no_error (error);
  g_subprocess_communicate_utf8_async (process, NULL, NULL, cli_done_cb, run);
  g_assert_true (riv_test_wait_for (&run->done, HANG_GUARD));
  return TRUE;
}

static void
cli_run_clear (CliRun *run)
{
  g_clear_pointer (&run->out, g_free);
  g_clear_pointer (&run->err, g_free);
  run->done = FALSE;
}

static void
test_cli_load (Fixture       *fx,
               gconstpointer  data)
{
  const char *args[] = { "load", "--url", fx->url, "--endpoint", "batch_echo", "--count", "200",
                         "--data", "[\"job {i}\", 0]", "--json", NULL };
  const char *bad_url[] = { "load", "--url", "ftp://example.com", "--endpoint", "x", NULL };
  const char *bad_endpoint[] = { "load", "--url", fx->url, "--endpoint", "nope", NULL };
  const char *no_endpoint[] = { "load", "--url", fx->url, NULL };
  g_autoptr(JsonNode) report = NULL;
  JsonObject *object;
  CliRun run = { 0 };

  if (!run_cli (&run, args))
    return;
  g_assert_cmpint (run.status, ==, 0);
  report = json (run.out);
  object = json_node_get_object (report);
  g_assert_cmpint (json_object_get_int_member (object, "submitted"), ==, 200);
  g_assert_cmpint (json_object_get_int_member (object, "completed"), ==, 200);
  g_assert_cmpint (json_object_get_int_member (object, "failed"), ==, 0);
  g_assert_cmpint (json_object_get_int_member (object, "lost"), ==, 0);
  g_assert_cmpint (json_object_get_int_member (object, "cancelled"), ==, 0);
  g_assert_cmpint (json_object_get_int_member (object, "events"), >=, 200);
  g_assert_true (json_object_has_member (object, "wall_s"));
  g_assert_true (json_object_has_member (json_object_get_object_member (object, "latency_s"),
                                         "p99"));
  g_assert_cmpint (json_object_get_int_member (json_object_get_object_member (object, "batches"),
                                               "count"), >=, 1);
  cli_run_clear (&run);

  run_cli (&run, bad_url);
  g_assert_cmpint (run.status, ==, 2);
  g_assert_nonnull (strstr (run.err, "ftp"));
  cli_run_clear (&run);

  run_cli (&run, bad_endpoint);
  g_assert_cmpint (run.status, ==, 2);
  g_assert_nonnull (strstr (run.err, "nope"));
  cli_run_clear (&run);

  run_cli (&run, no_endpoint);
  g_assert_cmpint (run.status, ==, 2);
  cli_run_clear (&run);
}

/* A job that cannot complete makes the exit status non-zero. */
static void
test_cli_load_failures (Fixture       *fx,
                        gconstpointer  data)
{
  const char *args[] = { "load", "--url", fx->url, "--endpoint", "stream_text", "--count", "3",
                         "--data", "[\"x\", 100000, 1]", "--timeout", "0.5", NULL };
  CliRun run = { 0 };

  if (!run_cli (&run, args))
    return;
  g_assert_cmpint (run.status, ==, 1);
  g_assert_nonnull (strstr (run.out, "submitted  3\n"));
  g_assert_nonnull (strstr (run.out, "lost       3\n"));
  g_assert_nonnull (strstr (run.err, "timed out"));
  cli_run_clear (&run);
}

static void
test_cli_inspect (Fixture       *fx,
                  gconstpointer  data)
{
  const char *args[] = { "inspect", "--url", fx->url, NULL };
  CliRun run = { 0 };

  if (!run_cli (&run, args))
    return;
  g_assert_cmpint (run.status, ==, 0);
  g_assert_nonnull (strstr (run.out, "Protocol  sse_v3"));
  g_assert_nonnull (strstr (run.out, "/batch_echo  (fn_index 2)  batch ×16, queued"));
  g_assert_nonnull (strstr (run.out, "/rapid_generation  (fn_index 3)  generator, queued"));
  g_assert_nonnull (strstr (run.out, "slider     \"steps\"              range 1–50 step 1, "
                                     "default 10"));
  cli_run_clear (&run);
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/client/normalize-url", test_normalize_url);
  g_test_add_func ("/client/bad-url", test_bad_url);
  g_test_add_func ("/client/connection-refused", test_connection_refused);
  g_test_add_func ("/client/not-gradio", test_not_gradio);
  g_test_add_func ("/client/root-behind-proxy", test_root_behind_proxy);
  g_test_add_func ("/client/local-stream", test_local_stream);
  g_test_add_func ("/client/run-time", test_run_time);
  g_test_add_func ("/client/logs", test_logs);
  g_test_add_func ("/client/inferred-batches", test_inferred_batches);
  g_test_add_func ("/client/inferred-batches-completions", test_inferred_batches_completions);
  g_test_add_func ("/client/loopback-no-proxy", test_loopback_no_proxy);
  g_test_add_func ("/client/call-transport", test_call_transport);

#define ADD(path, func) \
  g_test_add ("/client/" path, Fixture, NULL, fixture_setup, func, fixture_teardown)

  ADD ("connect", test_connect);
  ADD ("submit-errors", test_submit_errors);
  ADD ("rapid-generation", test_rapid_generation);
  ADD ("stream-text", test_stream_text);
  ADD ("fake-diffusion", test_fake_diffusion);
  ADD ("download-disabled", test_download_disabled);
  ADD ("batch-burst", test_batch_burst);
  ADD ("cancel", test_cancel);
  ADD ("cancel-all", test_cancel_all);
  ADD ("queue-full", test_queue_full);
  ADD ("server-shutdown", test_server_shutdown);
  ADD ("stream-throttled", test_stream_throttled);
  ADD ("upload", test_upload);
  ADD ("submit-uploading", test_submit_uploading);
  ADD ("memory-per-job", test_memory_per_job);
  ADD ("close-in-flight", test_close_in_flight);
  ADD ("cli-load", test_cli_load);
  ADD ("cli-load-failures", test_cli_load_failures);
  ADD ("cli-inspect", test_cli_inspect);

#undef ADD

  return g_test_run ();
}
