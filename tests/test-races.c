/* test-races.c
 * Copyright 2026 The Rivulet authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The client against a scriptable fake Gradio server living in this process,
 * so that each test decides exactly what is written to the stream, and when,
 * relative to the join replies. These are the races of protocol.md §8a, §8c
 * and §8d; each main test says how a naive client fails it. (Checked by
 * mutating riv-client.c: dropping early messages, not reopening after
 * close_stream or EOF, one diff state per stream. A naive client's job never
 * completes; with this client's liveness watchdog it ends "lost" instead of
 * hanging, so the status assertions fail either way.)
 */
#include "config.h"

#include <string.h>

#include <libsoup/soup.h>

#include "riv-burst.h"
#include "riv-client-private.h"
#include "riv-load-run.h"
#include "riv-test-util.h"

#define HANG_GUARD 60.0   /* only stops a hang; generous for sanitizer builds */

/* Fake server ---------------------------------------------------------------------------- */

typedef struct _FakeServer FakeServer;
typedef struct _FakeJoin FakeJoin;

typedef struct
{
  FakeServer        *fake;
  char              *hash;
  GQueue             fifo;       /* char* frames waiting for a GET */
  SoupServerMessage *stream;     /* attached GET, nullable */
  gulong             finished_id;
} FakeSession;

struct _FakeJoin
{
  FakeServer        *fake;
  SoupServerMessage *msg;        /* paused until replied */
  FakeSession       *session;
  char              *event_id;
  char              *input;      /* data[0] when it is a string */
  gint64             fn_index;
};

typedef enum
{
  JOIN_AUTO_ECHO,     /* reply at once; estimation, starts, completed "echo: <input>" */
  JOIN_REPLY_ONLY,    /* reply at once; the test writes the messages */
  JOIN_HOLD,          /* keep the reply back; the test replies with fake_reply_join() */
  JOIN_STATUS,        /* answer with join_status / join_body */
} JoinMode;

struct _FakeServer
{
  SoupServer  *server;
  char        *url;
  GHashTable  *sessions;         /* hash → FakeSession */
  GPtrArray   *held;             /* FakeJoin* waiting for a reply */
  GPtrArray   *cancels;          /* event ids received on /cancel */
  JoinMode     join_mode;
  guint        join_status;
  char        *join_body;
  guint        n_joins;
  guint        n_gets;
  char        *last_authorization;   /* of the last join */
  char        *last_gradio_user;
  guint        next_event;
  gboolean     cancel_sends_completion;   /* answer /cancel with Gradio's output:{} */
};

static char *
frame_from_json (const char *json)
{
  return g_strdup_printf ("data: %s\n\n", json);
}

static void
session_stream_finished_cb (SoupServerMessage *msg,
                            gpointer           user_data)
{
  FakeSession *session = user_data;

  if (session->stream == msg)
    {
      g_signal_handler_disconnect (msg, session->finished_id);
      session->finished_id = 0;
      g_clear_object (&session->stream);
    }
}

static void
session_detach (FakeSession *session)
{
  if (session->stream != NULL)
    {
      g_signal_handler_disconnect (session->stream, session->finished_id);
      session->finished_id = 0;
      g_clear_object (&session->stream);
    }
}

/* Writes the FIFO to the attached stream, if any. */
static void
session_flush (FakeSession *session)
{
  SoupMessageBody *body;
  gboolean wrote = FALSE;

  if (session->stream == NULL)
    return;

  body = soup_server_message_get_response_body (session->stream);
  while (!g_queue_is_empty (&session->fifo))
    {
      char *frame = g_queue_pop_head (&session->fifo);

      soup_message_body_append (body, SOUP_MEMORY_TAKE, frame, strlen (frame));
      wrote = TRUE;
    }
  if (wrote)
    soup_server_message_unpause (session->stream);
}

static void
fake_push (FakeSession *session,
           const char  *json)
{
  g_queue_push_tail (&session->fifo, frame_from_json (json));
  session_flush (session);
}

G_GNUC_PRINTF (2, 3) static void
fake_pushf (FakeSession *session,
            const char  *format,
            ...)
{
  g_autofree char *json = NULL;
  va_list args;

  va_start (args, format);
  json = g_strdup_vprintf (format, args);
  va_end (args);
  fake_push (session, json);
}

/* Ends the attached response, optionally with close_stream first. Frames
 * pushed afterwards wait in the FIFO for the next GET. */
static void
fake_end_stream (FakeSession *session,
                 gboolean     with_close_stream)
{
  SoupServerMessage *msg = session->stream;

  g_assert_nonnull (msg);
  if (with_close_stream)
    fake_push (session, "{\"msg\":\"close_stream\",\"event_id\":null}");
  g_object_ref (msg);
  session_detach (session);
  soup_message_body_complete (soup_server_message_get_response_body (msg));
  soup_server_message_unpause (msg);
  g_object_unref (msg);
}

static FakeSession *
fake_get_session (FakeServer *fake,
                  const char *hash)
{
  FakeSession *session = g_hash_table_lookup (fake->sessions, hash);

  if (session == NULL)
    {
      session = g_new0 (FakeSession, 1);
      session->fake = fake;
      session->hash = g_strdup (hash);
      g_queue_init (&session->fifo);
      g_hash_table_insert (fake->sessions, session->hash, session);
    }
  return session;
}

static FakeSession *
fake_the_session (FakeServer *fake)
{
  GHashTableIter iter;
  gpointer value = NULL;

  g_assert_cmpuint (g_hash_table_size (fake->sessions), ==, 1);
  g_hash_table_iter_init (&iter, fake->sessions);
  g_hash_table_iter_next (&iter, NULL, &value);
  return value;
}

static void
fake_session_free (gpointer data)
{
  FakeSession *session = data;

  session_detach (session);
  g_queue_clear_full (&session->fifo, g_free);
  g_free (session->hash);
  g_free (session);
}

static void
fake_join_free (FakeJoin *join)
{
  g_clear_object (&join->msg);
  g_free (join->event_id);
  g_free (join->input);
  g_free (join);
}

static void
fake_reply_join (FakeJoin *join)
{
  g_autofree char *body = g_strdup_printf ("{\"event_id\":\"%s\"}", join->event_id);

  riv_test_reply_json (join->msg, 200, body);
  soup_server_message_unpause (join->msg);
}

static void
fake_auto_echo (FakeJoin *join)
{
  fake_pushf (join->session, "{\"msg\":\"estimation\",\"event_id\":\"%s\",\"rank\":0,"
              "\"queue_size\":1,\"rank_eta\":null}", join->event_id);
  fake_pushf (join->session, "{\"msg\":\"process_starts\",\"event_id\":\"%s\",\"eta\":null}",
              join->event_id);
  fake_pushf (join->session, "{\"msg\":\"process_completed\",\"event_id\":\"%s\",\"success\":true,"
              "\"output\":{\"data\":[\"echo: %s\"],\"is_generating\":false}}",
              join->event_id, join->input ? join->input : "");
}

static void
handle_config (SoupServer        *server,
               SoupServerMessage *msg,
               const char        *path,
               GHashTable        *query,
               gpointer           user_data)
{
  static const char config[] =
    "{\"version\":\"5.0.0\",\"protocol\":\"sse_v3\",\"api_prefix\":\"/gradio_api\","
    "\"enable_queue\":true,\"components\":["
    "{\"id\":1,\"type\":\"textbox\",\"props\":{\"label\":\"prompt\"}},"
    "{\"id\":2,\"type\":\"textbox\",\"props\":{\"label\":\"output\"}},"
    "{\"id\":3,\"type\":\"textbox\",\"props\":{\"label\":\"batch output\"}}],"
    "\"dependencies\":["
    "{\"id\":0,\"api_name\":\"echo\",\"inputs\":[1],\"outputs\":[2],\"queue\":true,"
    "\"types\":{\"generator\":true,\"cancel\":false},\"batch\":false,\"max_batch_size\":4},"
    "{\"id\":1,\"api_name\":\"batched\",\"inputs\":[1],\"outputs\":[3],\"queue\":true,"
    "\"types\":{\"generator\":false,\"cancel\":false},\"batch\":true,\"max_batch_size\":16}]}";

  riv_test_reply_json (msg, 200, config);
}

static void
handle_info (SoupServer        *server,
             SoupServerMessage *msg,
             const char        *path,
             GHashTable        *query,
             gpointer           user_data)
{
  riv_test_reply_json (msg, 200, "{\"named_endpoints\":{},\"unnamed_endpoints\":{}}");
}

static JsonObject *
parse_body (SoupServerMessage *msg,
            JsonNode         **root_out)
{
  SoupMessageBody *body = soup_server_message_get_request_body (msg);
  g_autoptr(GBytes) bytes = soup_message_body_flatten (body);
  JsonNode *root = json_from_string (g_bytes_get_data (bytes, NULL), NULL);

  *root_out = root;
  if (root == NULL || !JSON_NODE_HOLDS_OBJECT (root))
    return NULL;
  return json_node_get_object (root);
}

static void
handle_join (SoupServer        *server,
             SoupServerMessage *msg,
             const char        *path,
             GHashTable        *query,
             gpointer           user_data)
{
  FakeServer *fake = user_data;
  g_autoptr(JsonNode) root = NULL;
  JsonObject *object = parse_body (msg, &root);
  JsonArray *data;
  FakeJoin *join;

  g_assert_nonnull (object);
  fake->n_joins++;
  {
    SoupMessageHeaders *headers = soup_server_message_get_request_headers (msg);

    g_free (fake->last_authorization);
    fake->last_authorization = g_strdup (soup_message_headers_get_one (headers, "Authorization"));
    g_free (fake->last_gradio_user);
    fake->last_gradio_user = g_strdup (soup_message_headers_get_one (headers, "x-gradio-user"));
  }

  if (fake->join_mode == JOIN_STATUS)
    {
      riv_test_reply_json (msg, fake->join_status, fake->join_body);
      return;
    }

  /* What the protocol requires of the body. */
  g_assert_true (json_object_has_member (object, "fn_index"));
  g_assert_true (json_object_has_member (object, "event_data"));
  g_assert_true (json_object_has_member (object, "trigger_id"));
  data = json_object_get_array_member (object, "data");
  g_assert_nonnull (data);
  g_assert_cmpuint (json_array_get_length (data), ==, 1);

  join = g_new0 (FakeJoin, 1);
  join->fake = fake;
  join->msg = g_object_ref (msg);
  join->session = fake_get_session (fake, json_object_get_string_member (object, "session_hash"));
  join->event_id = g_strdup_printf ("E%u", ++fake->next_event);
  join->fn_index = json_object_get_int_member (object, "fn_index");
  if (JSON_NODE_HOLDS_VALUE (json_array_get_element (data, 0)))
    join->input = g_strdup (json_array_get_string_element (data, 0));

  switch (fake->join_mode)
    {
    case JOIN_AUTO_ECHO:
      /* Like Gradio: the first messages are queued before the reply. */
      fake_auto_echo (join);
      fake_reply_join (join);
      fake_join_free (join);
      break;

    case JOIN_REPLY_ONLY:
      fake_reply_join (join);
      g_ptr_array_add (fake->held, join);   /* kept for its event id; already replied */
      g_clear_object (&join->msg);
      break;

    case JOIN_HOLD:
      soup_server_message_pause (msg);
      g_ptr_array_add (fake->held, join);
      break;

    case JOIN_STATUS:
    default:
      g_assert_not_reached ();
    }
}

static void
handle_data (SoupServer        *server,
             SoupServerMessage *msg,
             const char        *path,
             GHashTable        *query,
             gpointer           user_data)
{
  FakeServer *fake = user_data;
  const char *hash = query ? g_hash_table_lookup (query, "session_hash") : NULL;
  SoupMessageHeaders *headers = soup_server_message_get_response_headers (msg);
  SoupMessageBody *body = soup_server_message_get_response_body (msg);
  FakeSession *session;

  fake->n_gets++;

  soup_server_message_set_status (msg, 200, NULL);
  soup_message_headers_set_content_type (headers, "text/event-stream", NULL);
  soup_message_headers_replace (headers, "Cache-Control", "no-cache");
  soup_message_headers_set_encoding (headers, SOUP_ENCODING_CHUNKED);
  soup_message_body_set_accumulate (body, FALSE);

  if (hash == NULL || (session = g_hash_table_lookup (fake->sessions, hash)) == NULL)
    {
      static const char frames[] =
        "data: {\"msg\":\"unexpected_error\",\"event_id\":null,\"message\":\"404: Not Found\","
        "\"session_not_found\":true,\"success\":false}\n\n"
        "data: {\"msg\":\"close_stream\",\"event_id\":null}\n\n";

      soup_message_body_append (body, SOUP_MEMORY_STATIC, frames, strlen (frames));
      soup_message_body_complete (body);
      return;
    }

  /* A second GET for the same session replaces the first (never both). */
  if (session->stream != NULL)
    fake_end_stream (session, FALSE);

  session->stream = g_object_ref (msg);
  session->finished_id = g_signal_connect (msg, "finished",
                                           G_CALLBACK (session_stream_finished_cb), session);
  session_flush (session);
}

static void
handle_cancel (SoupServer        *server,
               SoupServerMessage *msg,
               const char        *path,
               GHashTable        *query,
               gpointer           user_data)
{
  FakeServer *fake = user_data;
  g_autoptr(JsonNode) root = NULL;
  JsonObject *object = parse_body (msg, &root);
  const char *event_id;

  g_assert_nonnull (object);
  event_id = json_object_get_string_member (object, "event_id");
  g_assert_nonnull (event_id);
  g_assert_true (json_object_has_member (object, "session_hash"));
  g_assert_true (json_object_has_member (object, "fn_index"));
  g_ptr_array_add (fake->cancels, g_strdup (event_id));

  if (fake->cancel_sends_completion)
    {
      FakeSession *session = fake_get_session (fake, json_object_get_string_member (object,
                                                                                   "session_hash"));

      fake_pushf (session, "{\"msg\":\"process_completed\",\"event_id\":\"%s\",\"output\":{},"
                  "\"success\":true}", event_id);
    }

  riv_test_reply_json (msg, 200, "{\"success\":true}");
}

static void
handle_reset (SoupServer        *server,
              SoupServerMessage *msg,
              const char        *path,
              GHashTable        *query,
              gpointer           user_data)
{
  riv_test_reply_json (msg, 200, "{\"success\":true}");
}

static FakeServer *
fake_server_new (void)
{
  FakeServer *fake = g_new0 (FakeServer, 1);
  g_autoptr(GError) error = NULL;
  GSList *uris;

  fake->server = soup_server_new (NULL, NULL);
  fake->sessions = g_hash_table_new_full (g_str_hash, g_str_equal, NULL, fake_session_free);
  fake->held = g_ptr_array_new_with_free_func ((GDestroyNotify) fake_join_free);
  fake->cancels = g_ptr_array_new_with_free_func (g_free);
  fake->join_mode = JOIN_AUTO_ECHO;

  soup_server_add_handler (fake->server, "/config", handle_config, fake, NULL);
  soup_server_add_handler (fake->server, "/gradio_api/info", handle_info, fake, NULL);
  soup_server_add_handler (fake->server, "/gradio_api/queue/join", handle_join, fake, NULL);
  soup_server_add_handler (fake->server, "/gradio_api/queue/data", handle_data, fake, NULL);
  soup_server_add_handler (fake->server, "/gradio_api/cancel", handle_cancel, fake, NULL);
  soup_server_add_handler (fake->server, "/gradio_api/reset", handle_reset, fake, NULL);

  soup_server_listen_local (fake->server, 0, SOUP_SERVER_LISTEN_IPV4_ONLY, &error);
  g_assert_no_error (error);

  uris = soup_server_get_uris (fake->server);
  fake->url = g_strdup_printf ("http://127.0.0.1:%d", g_uri_get_port (uris->data));
  g_slist_free_full (uris, (GDestroyNotify) g_uri_unref);

  return fake;
}

static void
fake_server_free (FakeServer *fake)
{
  /* Held joins are paused server messages: answer them before disconnecting. */
  for (guint i = 0; i < fake->held->len; i++)
    {
      FakeJoin *join = g_ptr_array_index (fake->held, i);

      if (join->msg != NULL)
        {
          riv_test_reply_json (join->msg, 503, "{\"detail\":\"shutting down\"}");
          soup_server_message_unpause (join->msg);
        }
    }
  g_hash_table_remove_all (fake->sessions);
  soup_server_disconnect (fake->server);
  g_clear_object (&fake->server);
  g_clear_pointer (&fake->sessions, g_hash_table_unref);
  g_clear_pointer (&fake->held, g_ptr_array_unref);
  g_clear_pointer (&fake->cancels, g_ptr_array_unref);
  g_free (fake->join_body);
  g_free (fake->last_authorization);
  g_free (fake->last_gradio_user);
  g_free (fake->url);
  g_free (fake);
}

/* Fixture ------------------------------------------------------------------------------- */

typedef struct
{
  FakeServer *fake;
  RivClient  *client;
  GPtrArray  *stream_errors;
} Fixture;

static void
stream_error_cb (RivClient  *client,
                 const char *message,
                 gpointer    user_data)
{
  Fixture *fx = user_data;

  g_ptr_array_add (fx->stream_errors, g_strdup (message));
}

static void
fixture_setup (Fixture       *fx,
               gconstpointer  data)
{
  g_autoptr(GAsyncResult) result = NULL;
  g_autoptr(GError) error = NULL;

  fx->fake = fake_server_new ();
  fx->client = riv_client_new (fx->fake->url);
  fx->stream_errors = g_ptr_array_new_with_free_func (g_free);
  g_signal_connect (fx->client, "stream-error", G_CALLBACK (stream_error_cb), fx);

  riv_client_connect_async (fx->client, NULL, riv_test_async_result_cb, &result);
  riv_test_wait_result (&result, HANG_GUARD);
  riv_client_connect_finish (fx->client, result, &error);
  g_assert_no_error (error);
}

static void
fixture_teardown (Fixture       *fx,
                  gconstpointer  data)
{
  riv_client_close (fx->client);
  /* Let the aborted requests' callbacks run before the objects go away. */
  for (guint i = 0; i < 50 && g_main_context_iteration (NULL, FALSE); i++)
    ;
  g_assert_finalize_object (fx->client);
  fake_server_free (fx->fake);
  for (guint i = 0; i < 50 && g_main_context_iteration (NULL, FALSE); i++)
    ;
  g_clear_pointer (&fx->stream_errors, g_ptr_array_unref);
}

static RivJob *
submit (Fixture    *fx,
        const char *endpoint,
        const char *input)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonNode) data = json_node_new (JSON_NODE_ARRAY);
  JsonArray *array = json_array_new ();
  RivJob *job;

  json_array_add_string_element (array, input);
  json_node_take_array (data, array);
  job = riv_client_submit (fx->client, endpoint, data, &error);
  g_assert_no_error (error);
  g_assert_nonnull (job);
  return job;
}

static gboolean
job_finished (gpointer job)
{
  return riv_job_is_finished (job);
}

static gboolean
job_joined (gpointer job)
{
  return riv_job_get_event_id (job) != NULL;
}

static void
wait_finished (RivJob *job)
{
  riv_test_wait_until (job_finished, job, HANG_GUARD);
  if (!riv_job_is_finished (job))
    g_error ("job %u still %s after %g s", riv_job_get_number (job),
             riv_job_status_to_string (riv_job_get_status (job)), HANG_GUARD);
}

static void
wait_joined (RivJob *job)
{
  g_assert_true (riv_test_wait_until (job_joined, job, HANG_GUARD));
}

typedef struct
{
  FakeServer *fake;
  guint       n;
} Count;

static gboolean
held_at_least (gpointer data)
{
  Count *count = data;

  return count->fake->held->len >= count->n;
}

static void
wait_held (FakeServer *fake,
           guint       n)
{
  Count count = { fake, n };

  g_assert_true (riv_test_wait_until (held_at_least, &count, HANG_GUARD));
}

static gboolean
session_has_stream (gpointer data)
{
  FakeServer *fake = data;
  FakeSession *session;

  return g_hash_table_size (fake->sessions) == 1 &&
         (session = fake_the_session (fake))->stream != NULL;
}

static void
wait_stream (FakeServer *fake)
{
  g_assert_true (riv_test_wait_until (session_has_stream, fake, HANG_GUARD));
}

typedef struct
{
  RivClient *client;
  guint64    n;
} MessageCount;

static gboolean
messages_at_least (gpointer data)
{
  MessageCount *count = data;

  return riv_client_get_n_messages (count->client) >= count->n;
}

/* Waits until the client has received n more frames than when "before" was taken. */
static void
wait_messages (RivClient *client,
               guint64    before,
               guint      n)
{
  MessageCount count = { client, before + n };

  g_assert_true (riv_test_wait_until (messages_at_least, &count, HANG_GUARD));
}

static FakeJoin *
held_join (FakeServer *fake,
           guint       i)
{
  return g_ptr_array_index (fake->held, i);
}

/* Tests --------------------------------------------------------------------------------- */

static void
test_echo_smoke (Fixture       *fx,
                 gconstpointer  data)
{
  g_autoptr(RivJob) job = submit (fx, "/echo", "hi");

  wait_finished (job);
  g_assert_cmpint (riv_job_get_status (job), ==, RIV_JOB_STATUS_COMPLETED);
  g_assert_cmpstr (riv_job_get_output_text (job), ==, "echo: hi");
  g_assert_cmpuint (riv_client_get_n_pending (fx->client), ==, 0);
}

/* (1) Early messages. The stream is open (job A keeps it busy). Job B's join
 * reply is held back until B's whole life — estimation to process_completed —
 * has been written to the stream and received by the client. A naive client
 * that drops (or routes nowhere) messages for event ids it does not know yet
 * never sees B's completion: B stays "queued" and never completes. */
static void
test_early_messages (Fixture       *fx,
                     gconstpointer  data)
{
  g_autoptr(RivJob) a = NULL;
  g_autoptr(RivJob) b = NULL;
  FakeSession *session;
  FakeJoin *join_b;
  guint64 before;

  fx->fake->join_mode = JOIN_REPLY_ONLY;
  a = submit (fx, "/echo", "a");
  wait_joined (a);
  wait_stream (fx->fake);
  session = fake_the_session (fx->fake);

  fx->fake->join_mode = JOIN_HOLD;
  b = submit (fx, "/echo", "b");
  wait_held (fx->fake, 2);
  join_b = held_join (fx->fake, 1);
  before = riv_client_get_n_messages (fx->client);

  fake_pushf (session, "{\"msg\":\"estimation\",\"event_id\":\"%s\",\"rank\":0,\"queue_size\":1,"
              "\"rank_eta\":1.5}", join_b->event_id);
  fake_pushf (session, "{\"msg\":\"process_starts\",\"event_id\":\"%s\",\"eta\":1.0}",
              join_b->event_id);
  fake_pushf (session, "{\"msg\":\"process_generating\",\"event_id\":\"%s\",\"success\":true,"
              "\"output\":{\"data\":[\"B\"],\"is_generating\":true}}", join_b->event_id);
  fake_pushf (session, "{\"msg\":\"process_generating\",\"event_id\":\"%s\",\"success\":true,"
              "\"output\":{\"data\":[[[\"append\",[],\"-b\"]]],\"is_generating\":true}}",
              join_b->event_id);
  fake_pushf (session, "{\"msg\":\"process_completed\",\"event_id\":\"%s\",\"success\":true,"
              "\"output\":{\"data\":[\"B-b!\"],\"is_generating\":false}}", join_b->event_id);

  /* All five have reached the client before it learns the id. */
  wait_messages (fx->client, before, 5);
  g_assert_cmpint (riv_job_get_status (b), ==, RIV_JOB_STATUS_JOINING);

  fake_reply_join (join_b);
  g_clear_object (&join_b->msg);
  wait_finished (b);

  g_assert_cmpint (riv_job_get_status (b), ==, RIV_JOB_STATUS_COMPLETED);
  g_assert_cmpstr (riv_job_get_output_text (b), ==, "B-b!");
  /* Replayed in order: both yields and the completion were applied. */
  g_assert_cmpuint (riv_job_get_n_updates (b), ==, 3);
  g_assert_cmpuint (riv_job_get_n_events (b), ==, 5);
  g_assert_cmpfloat (riv_job_get_started_at (b), >, 0);
  g_assert_cmpuint (_riv_client_get_n_early (fx->client), ==, 0);

  /* A is unaffected and still served. */
  g_assert_false (riv_job_is_finished (a));
  fake_pushf (session, "{\"msg\":\"process_completed\",\"event_id\":\"%s\",\"success\":true,"
              "\"output\":{\"data\":[\"A\"]}}", held_join (fx->fake, 0)->event_id);
  wait_finished (a);
  g_assert_cmpstr (riv_job_get_output_text (a), ==, "A");
}

/* Real Gradio names no batch, and starts a batch's members back to back,
 * often before the join replies of some of them came back. Every member
 * belongs to the inferred batch: one id, one size, indices in start order;
 * the run time is what the server measured (output.duration). */
static void
test_inferred_batch_burst (Fixture       *fx,
                           gconstpointer  data)
{
  static const guint order[8] = { 5, 0, 3, 1, 7, 2, 6, 4 };   /* the server's start order */
  RivJob *jobs[8];
  FakeSession *session;
  guint64 before;

  fx->fake->join_mode = JOIN_REPLY_ONLY;
  for (guint i = 0; i < 3; i++)
    {
      jobs[i] = submit (fx, "/batched", "x");
      wait_joined (jobs[i]);
    }
  wait_stream (fx->fake);
  session = fake_the_session (fx->fake);

  fx->fake->join_mode = JOIN_HOLD;
  for (guint i = 3; i < 8; i++)
    jobs[i] = submit (fx, "/batched", "x");
  wait_held (fx->fake, 8);

  /* One flush, as Gradio's worker sends a batch's process_starts. */
  before = riv_client_get_n_messages (fx->client);
  for (guint k = 0; k < 8; k++)
    g_queue_push_tail (&session->fifo,
                       g_strdup_printf ("data: {\"msg\":\"process_starts\",\"event_id\":\"%s\","
                                        "\"eta\":null}\n\n", held_join (fx->fake, order[k])->event_id));
  session_flush (session);
  wait_messages (fx->client, before, 8);

  for (guint i = 3; i < 8; i++)
    {
      fake_reply_join (held_join (fx->fake, i));
      g_clear_object (&held_join (fx->fake, i)->msg);
      wait_joined (jobs[i]);
    }
  for (guint i = 0; i < 8; i++)
    fake_pushf (session, "{\"msg\":\"process_completed\",\"event_id\":\"%s\",\"success\":true,"
                "\"output\":{\"data\":[\"x\"],\"is_generating\":false,\"duration\":0.05,"
                "\"average_duration\":0.05}}", held_join (fx->fake, i)->event_id);
  for (guint i = 0; i < 8; i++)
    wait_finished (jobs[i]);

  for (guint k = 0; k < 8; k++)
    {
      RivJob *job = jobs[order[k]];

      g_assert_cmpint (riv_job_get_status (job), ==, RIV_JOB_STATUS_COMPLETED);
      g_assert_cmpstr (riv_job_get_batch_id (job), ==, riv_job_get_batch_id (jobs[0]));
      g_assert_cmpint (riv_job_get_batch_size (job), ==, 8);
      g_assert_cmpint (riv_job_get_batch_index (job), ==, k);
      g_assert_true (riv_job_get_batch_inferred (job));
      g_assert_cmpfloat_with_epsilon (riv_job_get_run_time (job), 0.05, 1e-9);
    }
  g_assert_nonnull (riv_job_get_batch_id (jobs[0]));

  for (guint i = 0; i < 8; i++)
    g_object_unref (jobs[i]);
}

/* (2a) close_stream crossing a join. Job B's join reply is handled while the
 * stream is still open; only then does the server write A's completion with
 * close_stream right behind it and end the response. B's messages wait in
 * the server's FIFO for the next GET. A naive client that opens the stream
 * only on a join reply when it believes none is open (JS 2.7.0) never opens
 * another one: B never completes. */
static void
test_close_stream_after_join (Fixture       *fx,
                              gconstpointer  data)
{
  g_autoptr(RivJob) a = NULL;
  g_autoptr(RivJob) b = NULL;
  FakeSession *session;
  guint gets_before;

  fx->fake->join_mode = JOIN_REPLY_ONLY;
  a = submit (fx, "/echo", "a");
  wait_joined (a);
  wait_stream (fx->fake);
  session = fake_the_session (fx->fake);

  b = submit (fx, "/echo", "b");
  wait_joined (b);
  gets_before = fx->fake->n_gets;

  fake_pushf (session, "{\"msg\":\"process_completed\",\"event_id\":\"%s\",\"success\":true,"
              "\"output\":{\"data\":[\"A\"]}}", held_join (fx->fake, 0)->event_id);
  fake_end_stream (session, TRUE);
  /* B runs on the server while no stream is attached. */
  fake_pushf (session, "{\"msg\":\"process_starts\",\"event_id\":\"%s\",\"eta\":null}",
              held_join (fx->fake, 1)->event_id);
  fake_pushf (session, "{\"msg\":\"process_completed\",\"event_id\":\"%s\",\"success\":true,"
              "\"output\":{\"data\":[\"B\"]}}", held_join (fx->fake, 1)->event_id);

  wait_finished (a);
  wait_finished (b);
  g_assert_cmpint (riv_job_get_status (a), ==, RIV_JOB_STATUS_COMPLETED);
  g_assert_cmpint (riv_job_get_status (b), ==, RIV_JOB_STATUS_COMPLETED);
  g_assert_cmpstr (riv_job_get_output_text (b), ==, "B");
  g_assert_cmpuint (fx->fake->n_gets, ==, gets_before + 1);
  g_assert_cmpuint (fx->stream_errors->len, ==, 0);
}

/* (2b) The other ordering: B's join is still in flight when A's completion
 * and close_stream arrive. The client must reopen at once (B is in flight),
 * take B's messages from the FIFO as early messages, and finish B when the
 * join reply comes. A naive client that treats close_stream as "stream done,
 * nothing registered is pending" and only reopens later on demand still
 * works here — but one that drops the early messages on the new stream
 * hangs B; and one that ends everything on close_stream (§8a) fails A. */
static void
test_close_stream_during_join (Fixture       *fx,
                               gconstpointer  data)
{
  g_autoptr(RivJob) a = NULL;
  g_autoptr(RivJob) b = NULL;
  FakeSession *session;
  FakeJoin *join_b;
  guint64 before;

  fx->fake->join_mode = JOIN_REPLY_ONLY;
  a = submit (fx, "/echo", "a");
  wait_joined (a);
  wait_stream (fx->fake);
  session = fake_the_session (fx->fake);

  fx->fake->join_mode = JOIN_HOLD;
  b = submit (fx, "/echo", "b");
  wait_held (fx->fake, 2);
  join_b = held_join (fx->fake, 1);
  before = riv_client_get_n_messages (fx->client);

  /* The last completion with close_stream right behind it, in one write. */
  fake_pushf (session, "{\"msg\":\"process_generating\",\"event_id\":\"%s\",\"success\":true,"
              "\"output\":{\"data\":[\"A\"],\"is_generating\":true}}",
              held_join (fx->fake, 0)->event_id);
  fake_pushf (session, "{\"msg\":\"process_completed\",\"event_id\":\"%s\",\"success\":true,"
              "\"output\":{\"data\":[\"A!\"]}}", held_join (fx->fake, 0)->event_id);
  fake_end_stream (session, TRUE);
  fake_pushf (session, "{\"msg\":\"process_completed\",\"event_id\":\"%s\",\"success\":true,"
              "\"output\":{\"data\":[\"B\"]}}", join_b->event_id);

  wait_finished (a);
  g_assert_cmpstr (riv_job_get_output_text (a), ==, "A!");

  /* The client reopened while B's join is in flight and got B's completion
   * (after A's two frames and close_stream). */
  wait_messages (fx->client, before, 4);
  g_assert_false (riv_job_is_finished (b));

  fake_reply_join (join_b);
  g_clear_object (&join_b->msg);
  wait_finished (b);
  g_assert_cmpint (riv_job_get_status (b), ==, RIV_JOB_STATUS_COMPLETED);
  g_assert_cmpstr (riv_job_get_output_text (b), ==, "B");
}

/* (2c) EOF without close_stream while a job is pending. A naive client that
 * waits for close_stream to reopen (or keeps an "open" flag, JS 2.7.0)
 * never issues another GET; the job's completion sits in the server FIFO
 * and it never completes. */
static void
test_eof_reopens (Fixture       *fx,
                  gconstpointer  data)
{
  g_autoptr(RivJob) a = NULL;
  FakeSession *session;
  guint gets_before;

  fx->fake->join_mode = JOIN_REPLY_ONLY;
  a = submit (fx, "/echo", "a");
  wait_joined (a);
  wait_stream (fx->fake);
  session = fake_the_session (fx->fake);
  gets_before = fx->fake->n_gets;

  fake_pushf (session, "{\"msg\":\"process_starts\",\"event_id\":\"%s\",\"eta\":null}",
              held_join (fx->fake, 0)->event_id);
  fake_end_stream (session, FALSE);
  fake_pushf (session, "{\"msg\":\"process_completed\",\"event_id\":\"%s\",\"success\":true,"
              "\"output\":{\"data\":[\"after EOF\"]}}", held_join (fx->fake, 0)->event_id);

  wait_finished (a);
  g_assert_cmpint (riv_job_get_status (a), ==, RIV_JOB_STATUS_COMPLETED);
  g_assert_cmpstr (riv_job_get_output_text (a), ==, "after EOF");
  g_assert_cmpuint (fx->fake->n_gets, >, gets_before);
}

/* (3) Two generators interleaving yield by yield on one stream, with append
 * diffs. A naive client that keeps one diff state per stream (or per
 * endpoint) instead of per event, or that defers some messages, garbles one
 * text or both, and the exact comparisons fail. */
static void
test_interleaved_generators (Fixture       *fx,
                             gconstpointer  data)
{
  g_autoptr(RivJob) a = NULL;
  g_autoptr(RivJob) b = NULL;
  g_autoptr(GString) text_a = g_string_new ("A0");
  g_autoptr(GString) text_b = g_string_new ("B0");
  const char *ea, *eb;
  FakeSession *session;
  const guint steps = 200;
  guint64 before;
  guint n_frames = 4;

  fx->fake->join_mode = JOIN_REPLY_ONLY;
  /* Every yield handed to its job as it arrives, so each step can be checked. */
  riv_client_set_publish_interval (fx->client, 0);
  a = submit (fx, "/echo", "a");
  b = submit (fx, "/echo", "b");
  wait_joined (a);
  wait_joined (b);
  wait_stream (fx->fake);
  session = fake_the_session (fx->fake);
  ea = riv_job_get_event_id (a);
  eb = riv_job_get_event_id (b);
  before = riv_client_get_n_messages (fx->client);

  fake_pushf (session, "{\"msg\":\"process_starts\",\"event_id\":\"%s\",\"eta\":null}", ea);
  fake_pushf (session, "{\"msg\":\"process_starts\",\"event_id\":\"%s\",\"eta\":null}", eb);
  fake_pushf (session, "{\"msg\":\"process_generating\",\"event_id\":\"%s\",\"success\":true,"
              "\"output\":{\"data\":[\"A0\"],\"is_generating\":true}}", ea);
  fake_pushf (session, "{\"msg\":\"process_generating\",\"event_id\":\"%s\",\"success\":true,"
              "\"output\":{\"data\":[\"B0\"],\"is_generating\":true}}", eb);
  for (guint i = 1; i < steps; i++)
    {
      g_string_append_printf (text_a, " a%u", i);
      fake_pushf (session, "{\"msg\":\"process_generating\",\"event_id\":\"%s\",\"success\":true,"
                  "\"output\":{\"data\":[[[\"append\",[],\" a%u\"]]],\"is_generating\":true}}",
                  ea, i);
      n_frames++;
      /* B skips some steps, so the two streams are not in lock-step. */
      if (i % 7 == 3)
        continue;
      g_string_append_printf (text_b, " b%u", i);
      fake_pushf (session, "{\"msg\":\"process_generating\",\"event_id\":\"%s\",\"success\":true,"
                  "\"output\":{\"data\":[[[\"append\",[],\" b%u\"]]],\"is_generating\":true}}",
                  eb, i);
      n_frames++;
    }

  /* Every frame received, then the streamed texts are checked before the
   * completions (which carry full values) replace them. */
  wait_messages (fx->client, before, n_frames);
  g_assert_cmpstr (riv_job_get_output_text (a), ==, text_a->str);
  g_assert_cmpstr (riv_job_get_output_text (b), ==, text_b->str);
  g_assert_cmpint (riv_job_get_status (a), ==, RIV_JOB_STATUS_STREAMING);
  g_assert_cmpuint (riv_job_get_n_updates (a), ==, steps);

  fake_pushf (session, "{\"msg\":\"process_completed\",\"event_id\":\"%s\",\"success\":true,"
              "\"output\":{\"data\":[\"%s\"]}}", eb, text_b->str);
  fake_pushf (session, "{\"msg\":\"process_completed\",\"event_id\":\"%s\",\"success\":true,"
              "\"output\":{\"data\":[\"%s\"]}}", ea, text_a->str);
  wait_finished (a);
  wait_finished (b);
  g_assert_cmpstr (riv_job_get_output_text (a), ==, text_a->str);
  g_assert_cmpstr (riv_job_get_output_text (b), ==, text_b->str);
  g_assert_cmpint (riv_job_get_status (a), ==, RIV_JOB_STATUS_COMPLETED);
  g_assert_cmpint (riv_job_get_status (b), ==, RIV_JOB_STATUS_COMPLETED);
}

/* progress can trail process_completed (Gradio's 10 ms progress loop); it
 * must neither resurrect the job nor land in the early buffer. */
static void
test_progress_after_completion (Fixture       *fx,
                                gconstpointer  data)
{
  g_autoptr(RivJob) a = NULL;
  FakeSession *session;
  const char *ea;
  guint n_events;
  guint64 before;

  fx->fake->join_mode = JOIN_REPLY_ONLY;
  a = submit (fx, "/echo", "a");
  wait_joined (a);
  wait_stream (fx->fake);
  session = fake_the_session (fx->fake);
  ea = riv_job_get_event_id (a);
  before = riv_client_get_n_messages (fx->client);

  fake_pushf (session, "{\"msg\":\"progress\",\"event_id\":\"%s\",\"progress_data\":[{\"index\":"
              "1,\"length\":4,\"unit\":\"steps\",\"progress\":null,\"desc\":null}]}", ea);
  fake_pushf (session, "{\"msg\":\"process_completed\",\"event_id\":\"%s\",\"success\":true,"
              "\"output\":{\"data\":[\"done\"]}}", ea);
  fake_pushf (session, "{\"msg\":\"progress\",\"event_id\":\"%s\",\"progress_data\":[{\"index\":"
              "3,\"length\":4,\"unit\":\"steps\",\"progress\":null,\"desc\":null}]}", ea);
  fake_push (session, "{\"msg\":\"heartbeat\",\"event_id\":null}");
  wait_finished (a);
  n_events = riv_job_get_n_events (a);
  /* All four frames, the trailing progress included, have been received. */
  wait_messages (fx->client, before, 4);

  g_assert_cmpint (riv_job_get_status (a), ==, RIV_JOB_STATUS_COMPLETED);
  g_assert_cmpfloat (riv_job_get_progress (a), ==, 0.25);
  g_assert_cmpint (riv_job_get_progress_index (a), ==, 1);
  g_assert_cmpuint (riv_job_get_n_events (a), ==, n_events);
  g_assert_cmpuint (_riv_client_get_n_early (fx->client), ==, 0);
}

/* Gradio answers /cancel with process_completed {"output":{}}; a completion
 * racing the cancel may follow. The first decides, the second is ignored. */
static void
test_duplicate_completion_after_cancel (Fixture       *fx,
                                        gconstpointer  data)
{
  g_autoptr(RivJob) a = NULL;
  g_autoptr(RivJob) b = NULL;
  FakeSession *session;
  const char *ea, *eb;
  guint64 before;

  fx->fake->join_mode = JOIN_REPLY_ONLY;
  fx->fake->cancel_sends_completion = TRUE;
  a = submit (fx, "/echo", "a");
  b = submit (fx, "/echo", "b");
  wait_joined (a);
  wait_joined (b);
  wait_stream (fx->fake);
  session = fake_the_session (fx->fake);
  ea = riv_job_get_event_id (a);
  eb = riv_job_get_event_id (b);

  fake_pushf (session, "{\"msg\":\"process_starts\",\"event_id\":\"%s\",\"eta\":null}", ea);
  fake_pushf (session, "{\"msg\":\"process_generating\",\"event_id\":\"%s\",\"success\":true,"
              "\"output\":{\"data\":[\"partial\"],\"is_generating\":true}}", ea);

  /* A: cancelled while running; the real completion comes after the cancel's. */
  riv_client_cancel (fx->client, a);
  g_assert_false (riv_job_is_finished (a));   /* only when the server says so */
  wait_finished (a);
  g_assert_cmpint (riv_job_get_status (a), ==, RIV_JOB_STATUS_CANCELLED);
  g_assert_cmpuint (fx->fake->cancels->len, ==, 1);
  g_assert_cmpstr (g_ptr_array_index (fx->fake->cancels, 0), ==, ea);
  fake_pushf (session, "{\"msg\":\"process_completed\",\"event_id\":\"%s\",\"success\":true,"
              "\"output\":{\"data\":[\"too late\"]}}", ea);

  /* B: completes, then the user's cancel crosses it; it stays completed. */
  fake_pushf (session, "{\"msg\":\"process_completed\",\"event_id\":\"%s\",\"success\":true,"
              "\"output\":{\"data\":[\"B done\"]}}", eb);
  wait_finished (b);
  riv_client_cancel (fx->client, b);
  before = riv_client_get_n_messages (fx->client);
  fake_pushf (session, "{\"msg\":\"process_completed\",\"event_id\":\"%s\",\"output\":{},"
              "\"success\":true}", eb);
  fake_push (session, "{\"msg\":\"heartbeat\",\"event_id\":null}");
  wait_messages (fx->client, before, 2);

  g_assert_cmpint (riv_job_get_status (a), ==, RIV_JOB_STATUS_CANCELLED);
  g_assert_cmpstr (riv_job_get_output_text (a), ==, "partial");
  g_assert_cmpint (riv_job_get_status (b), ==, RIV_JOB_STATUS_COMPLETED);
  g_assert_cmpstr (riv_job_get_output_text (b), ==, "B done");
  g_assert_cmpuint (riv_client_get_n_pending (fx->client), ==, 0);
}

static gboolean
has_cancel (gpointer data)
{
  FakeServer *fake = data;

  return fake->cancels->len > 0;
}

/* A cancel before the join reply: cancelled at once locally, and the server
 * is told as soon as the id is known. */
static void
test_cancel_before_join (Fixture       *fx,
                         gconstpointer  data)
{
  g_autoptr(RivJob) a = NULL;
  FakeJoin *join;

  fx->fake->join_mode = JOIN_HOLD;
  a = submit (fx, "/echo", "a");
  wait_held (fx->fake, 1);
  riv_client_cancel (fx->client, a);
  g_assert_cmpint (riv_job_get_status (a), ==, RIV_JOB_STATUS_CANCELLED);
  g_assert_cmpuint (riv_client_get_n_pending (fx->client), ==, 0);

  join = held_join (fx->fake, 0);
  fake_reply_join (join);
  g_clear_object (&join->msg);
  g_assert_true (riv_test_wait_until (has_cancel, fx->fake, HANG_GUARD));
  g_assert_cmpstr (g_ptr_array_index (fx->fake->cancels, 0), ==, join->event_id);
  g_assert_cmpint (riv_job_get_status (a), ==, RIV_JOB_STATUS_CANCELLED);
}

/* unexpected_error, then the connection drops (Gradio's error path): the
 * jobs that stream served fail with the message; later submits still work. */
static void
test_unexpected_error (Fixture       *fx,
                       gconstpointer  data)
{
  g_autoptr(RivJob) a = NULL;
  g_autoptr(RivJob) b = NULL;
  g_autoptr(RivJob) c = NULL;
  FakeSession *session;

  fx->fake->join_mode = JOIN_REPLY_ONLY;
  a = submit (fx, "/echo", "a");
  b = submit (fx, "/echo", "b");
  wait_joined (a);
  wait_joined (b);
  wait_stream (fx->fake);
  session = fake_the_session (fx->fake);

  fake_push (session, "{\"msg\":\"unexpected_error\",\"event_id\":null,\"message\":"
             "\"Server stopped unexpectedly.\",\"success\":false}");
  fake_end_stream (session, FALSE);

  wait_finished (a);
  wait_finished (b);
  g_assert_cmpint (riv_job_get_status (a), ==, RIV_JOB_STATUS_FAILED);
  g_assert_cmpint (riv_job_get_status (b), ==, RIV_JOB_STATUS_FAILED);
  g_assert_nonnull (strstr (riv_job_get_error (a), "Server stopped unexpectedly."));
  g_assert_cmpuint (fx->stream_errors->len, >=, 1);

  fx->fake->join_mode = JOIN_AUTO_ECHO;
  c = submit (fx, "/echo", "again");
  wait_finished (c);
  g_assert_cmpint (riv_job_get_status (c), ==, RIV_JOB_STATUS_COMPLETED);
  g_assert_cmpstr (riv_job_get_output_text (c), ==, "echo: again");
}

/* The server forgot the session: the stream's jobs are lost, not failed. */
static void
test_session_not_found (Fixture       *fx,
                        gconstpointer  data)
{
  g_autoptr(RivJob) a = NULL;
  g_autoptr(RivJob) c = NULL;
  FakeSession *session;

  fx->fake->join_mode = JOIN_REPLY_ONLY;
  a = submit (fx, "/echo", "a");
  wait_joined (a);
  wait_stream (fx->fake);
  session = fake_the_session (fx->fake);

  fake_push (session, "{\"msg\":\"unexpected_error\",\"event_id\":null,\"message\":\"404: Not "
             "Found\",\"session_not_found\":true,\"success\":false}");
  fake_end_stream (session, TRUE);
  wait_finished (a);
  g_assert_cmpint (riv_job_get_status (a), ==, RIV_JOB_STATUS_LOST);

  fx->fake->join_mode = JOIN_AUTO_ECHO;
  c = submit (fx, "/echo", "c");
  wait_finished (c);
  g_assert_cmpint (riv_job_get_status (c), ==, RIV_JOB_STATUS_COMPLETED);
}

/* Liveness: a stream that stays open but goes silent while a job is in
 * flight. The job must end as lost within the bound, not hang. */
static void
test_liveness_silent (Fixture       *fx,
                      gconstpointer  data)
{
  g_autoptr(RivJob) a = NULL;
  FakeSession *session;

  riv_client_set_liveness_timeout (fx->client, 0.5);
  fx->fake->join_mode = JOIN_REPLY_ONLY;
  a = submit (fx, "/echo", "a");
  wait_joined (a);
  wait_stream (fx->fake);
  session = fake_the_session (fx->fake);
  fake_push (session, "{\"msg\":\"heartbeat\",\"event_id\":null}");

  wait_finished (a);
  g_assert_cmpint (riv_job_get_status (a), ==, RIV_JOB_STATUS_LOST);
  g_assert_cmpstr (riv_job_get_error (a), ==, "No data from the server for 0.5 s");
  g_assert_cmpint (riv_client_get_stream_state (fx->client), ==, RIV_STREAM_STATE_DISCONNECTED);
  g_assert_cmpuint (fx->stream_errors->len, ==, 1);
}

typedef struct
{
  FakeSession *session;
  guint        n_left;
  guint        id;
} Beats;

static gboolean
beat_cb (gpointer data)
{
  Beats *beats = data;

  if (beats->session->stream != NULL)
    fake_push (beats->session, "{\"msg\":\"heartbeat\",\"event_id\":null}");
  if (beats->n_left > 0 && --beats->n_left > 0)
    return G_SOURCE_CONTINUE;
  beats->id = 0;
  return G_SOURCE_REMOVE;
}

/* Heartbeats only, but regular: the job is alive however long it takes. */
static void
test_liveness_heartbeats (Fixture       *fx,
                          gconstpointer  data)
{
  g_autoptr(RivJob) a = NULL;
  Beats beats;

  riv_client_set_liveness_timeout (fx->client, 0.6);
  fx->fake->join_mode = JOIN_REPLY_ONLY;
  a = submit (fx, "/echo", "a");
  wait_joined (a);
  wait_stream (fx->fake);

  beats.session = fake_the_session (fx->fake);
  beats.n_left = 36;
  beats.id = g_timeout_add (50, beat_cb, &beats);

  /* About 1.8 s of heartbeats: three times the liveness timeout. */
  while (beats.n_left > 0)
    g_main_context_iteration (NULL, TRUE);
  g_assert_false (riv_job_is_finished (a));

  fake_pushf (beats.session, "{\"msg\":\"process_completed\",\"event_id\":\"%s\",\"success\":true,"
              "\"output\":{\"data\":[\"slow\"]}}", riv_job_get_event_id (a));
  wait_finished (a);
  g_assert_cmpint (riv_job_get_status (a), ==, RIV_JOB_STATUS_COMPLETED);
  g_clear_handle_id (&beats.id, g_source_remove);
}

/* A flood of messages for ids no join will ever name: the early buffer stays
 * within its bounds, and a real job still completes afterwards. */
static void
test_unknown_id_flood (Fixture       *fx,
                       gconstpointer  data)
{
  g_autoptr(RivJob) a = NULL;
  g_autoptr(RivJob) b = NULL;
  FakeSession *session;
  const guint n_ids = RIV_CLIENT_EARLY_MAX_IDS + 500;
  const guint per_id = 2;

  fx->fake->join_mode = JOIN_REPLY_ONLY;
  a = submit (fx, "/echo", "a");
  wait_joined (a);
  wait_stream (fx->fake);
  session = fake_the_session (fx->fake);

  for (guint i = 0; i < n_ids; i++)
    for (guint j = 0; j < per_id; j++)
      fake_pushf (session, "{\"msg\":\"process_generating\",\"event_id\":\"ghost-%u\",\"success\""
                  ":true,\"output\":{\"data\":[\"%0200u\"],\"is_generating\":true}}", i, j);
  fake_pushf (session, "{\"msg\":\"process_completed\",\"event_id\":\"%s\",\"success\":true,"
              "\"output\":{\"data\":[\"survived\"]}}", riv_job_get_event_id (a));

  wait_finished (a);
  g_assert_cmpstr (riv_job_get_output_text (a), ==, "survived");
  g_assert_cmpuint (_riv_client_get_n_early (fx->client), <=, RIV_CLIENT_EARLY_MAX_MESSAGES);
  g_assert_cmpuint (_riv_client_get_early_bytes (fx->client), <=, RIV_CLIENT_EARLY_MAX_BYTES);
  /* More ids than the id bound: some were dropped. */
  g_assert_cmpuint (_riv_client_get_n_early_dropped (fx->client), >, 0);
  g_assert_cmpuint (_riv_client_get_n_early (fx->client) +
                    _riv_client_get_n_early_dropped (fx->client), ==, n_ids * per_id);

  fx->fake->join_mode = JOIN_AUTO_ECHO;
  b = submit (fx, "/echo", "b");
  wait_finished (b);
  g_assert_cmpint (riv_job_get_status (b), ==, RIV_JOB_STATUS_COMPLETED);
}

/* Batch members without Rivulet's batch field (real Gradio): those that
 * start in one chunk get one inferred batch. */
static void
test_inferred_batch (Fixture       *fx,
                     gconstpointer  data)
{
  RivJob *jobs[4];
  g_autoptr(GString) frames = g_string_new (NULL);
  FakeSession *session;

  fx->fake->join_mode = JOIN_REPLY_ONLY;
  for (guint i = 0; i < G_N_ELEMENTS (jobs); i++)
    jobs[i] = submit (fx, "/batched", "x");
  for (guint i = 0; i < G_N_ELEMENTS (jobs); i++)
    wait_joined (jobs[i]);
  wait_stream (fx->fake);
  session = fake_the_session (fx->fake);

  /* The first three start together (one write), the fourth later. */
  for (guint i = 0; i < 3; i++)
    g_string_append_printf (frames, "data: {\"msg\":\"process_starts\",\"event_id\":\"%s\"}\n\n",
                            riv_job_get_event_id (jobs[i]));
  g_queue_push_tail (&session->fifo, g_string_free (g_steal_pointer (&frames), FALSE));
  session_flush (session);
  for (guint i = 0; i < 3; i++)
    fake_pushf (session, "{\"msg\":\"process_completed\",\"event_id\":\"%s\",\"success\":true,"
                "\"output\":{\"data\":[\"ok\"]}}", riv_job_get_event_id (jobs[i]));
  for (guint i = 0; i < 3; i++)
    wait_finished (jobs[i]);
  fake_pushf (session, "{\"msg\":\"process_starts\",\"event_id\":\"%s\"}",
              riv_job_get_event_id (jobs[3]));
  fake_pushf (session, "{\"msg\":\"process_completed\",\"event_id\":\"%s\",\"success\":true,"
              "\"output\":{\"data\":[\"ok\"]}}", riv_job_get_event_id (jobs[3]));
  wait_finished (jobs[3]);

  g_assert_nonnull (riv_job_get_batch_id (jobs[0]));
  g_assert_true (riv_job_get_batch_inferred (jobs[0]));
  for (guint i = 0; i < 3; i++)
    {
      g_assert_cmpstr (riv_job_get_batch_id (jobs[i]), ==, riv_job_get_batch_id (jobs[0]));
      g_assert_cmpint (riv_job_get_batch_size (jobs[i]), ==, 3);
      g_assert_cmpint (riv_job_get_batch_index (jobs[i]), ==, i);
    }
  g_assert_cmpstr (riv_job_get_batch_id (jobs[3]), !=, riv_job_get_batch_id (jobs[0]));
  g_assert_cmpint (riv_job_get_batch_size (jobs[3]), ==, 1);

  for (guint i = 0; i < G_N_ELEMENTS (jobs); i++)
    g_object_unref (jobs[i]);
}

/* Rivulet's batch field is taken as is. */
static void
test_batch_field (Fixture       *fx,
                  gconstpointer  data)
{
  g_autoptr(RivJob) a = NULL;
  FakeSession *session;

  fx->fake->join_mode = JOIN_REPLY_ONLY;
  a = submit (fx, "/batched", "x");
  wait_joined (a);
  wait_stream (fx->fake);
  session = fake_the_session (fx->fake);
  fake_pushf (session, "{\"msg\":\"process_starts\",\"event_id\":\"%s\",\"batch\":{\"id\":7,"
              "\"size\":5,\"index\":2}}", riv_job_get_event_id (a));
  fake_pushf (session, "{\"msg\":\"process_completed\",\"event_id\":\"%s\",\"success\":true,"
              "\"output\":{\"data\":[\"ok\"]},\"batch\":{\"id\":7,\"size\":5,\"index\":2}}",
              riv_job_get_event_id (a));
  wait_finished (a);
  g_assert_cmpstr (riv_job_get_batch_id (a), ==, "7");
  g_assert_cmpint (riv_job_get_batch_size (a), ==, 5);
  g_assert_cmpint (riv_job_get_batch_index (a), ==, 2);
  g_assert_false (riv_job_get_batch_inferred (a));
}

/* Join replies the client must turn into clear failures. */
typedef struct
{
  guint       status;
  const char *body;
  const char *error;
} JoinCase;

static void
test_join_errors (Fixture       *fx,
                  gconstpointer  data)
{
  static const JoinCase cases[] = {
    { 503, "{\"detail\":\"Queue is full. Max size is 2 and size is 2.\"}",
      "Queue is full. Max size is 2 and size is 2." },
    { 503, "{\"detail\":\"busy, try later\"}", "Queue is full: busy, try later" },
    { 503, "", "Queue is full" },
    /* Gradio 6's answer once its queue task ended (after 2,000 sessions, say):
     * not a full queue. */
    { 503, "{\"detail\":\"Queue is stopped.\"}", "Queue is stopped: the server is not taking jobs" },
    { 422, "{\"detail\":[{\"is_valid\":false,\"message\":\"too short\","
      "\"parameter_name\":\"prompt\"}]}", "prompt: too short" },
    { 400, "{\"detail\":\"Session hash not found.\"}", "Session hash not found." },
    { 404, "not json", "The server rejected the job (HTTP 404)" },
    { 500, "Internal Server Error", "Server error (HTTP 500)" },
    { 200, "{\"no_event_id\":1}",
      "The server's join reply does not match the protocol (no event_id)" },
    { 200, "<html>", "The server's join reply does not match the protocol (no event_id)" },
  };

  fx->fake->join_mode = JOIN_STATUS;
  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autoptr(RivJob) job = NULL;

      fx->fake->join_status = cases[i].status;
      g_free (fx->fake->join_body);
      fx->fake->join_body = g_strdup (cases[i].body);
      job = submit (fx, "/echo", "x");
      wait_finished (job);
      g_assert_cmpint (riv_job_get_status (job), ==, RIV_JOB_STATUS_FAILED);
      g_assert_cmpstr (riv_job_get_error (job), ==, cases[i].error);
    }
  g_assert_cmpuint (riv_client_get_n_pending (fx->client), ==, 0);
  g_assert_cmpint (riv_client_get_stream_state (fx->client), ==, RIV_STREAM_STATE_IDLE);
}

/* A join the server never answers ends as failed after join-timeout. */
static void
test_join_timeout (Fixture       *fx,
                   gconstpointer  data)
{
  g_autoptr(RivJob) job = NULL;

  riv_client_set_join_timeout (fx->client, 0.3);
  fx->fake->join_mode = JOIN_HOLD;
  job = submit (fx, "/echo", "x");
  wait_finished (job);
  g_assert_cmpint (riv_job_get_status (job), ==, RIV_JOB_STATUS_FAILED);
  g_assert_cmpstr (riv_job_get_error (job), ==,
                   "The server did not answer the join request within 0.3 s");
}

/* A stream that keeps failing: the jobs it served end as lost. */
static void
test_reconnect_gives_up (Fixture       *fx,
                         gconstpointer  data)
{
  g_autoptr(RivJob) a = NULL;

  fx->fake->join_mode = JOIN_REPLY_ONLY;
  a = submit (fx, "/echo", "a");
  wait_joined (a);
  wait_stream (fx->fake);

  /* Every GET from now on is answered and ended at once, without close_stream. */
  while (!riv_job_is_finished (a))
    {
      FakeSession *session = fake_the_session (fx->fake);

      if (session->stream != NULL)
        fake_end_stream (session, FALSE);
      g_main_context_iteration (NULL, TRUE);
    }

  g_assert_cmpint (riv_job_get_status (a), ==, RIV_JOB_STATUS_LOST);
  g_assert_true (g_str_has_prefix (riv_job_get_error (a), "Connection to the server was lost: "));
  g_assert_cmpuint (fx->fake->n_gets, >=, 2);
  g_assert_cmpint (riv_client_get_stream_state (fx->client), ==, RIV_STREAM_STATE_DISCONNECTED);
}

/* A server that answers every GET with close_stream has forgotten the job:
 * it ends as lost after a bounded number of rounds, not in a busy loop. */
static void
test_endless_close_stream (Fixture       *fx,
                           gconstpointer  data)
{
  g_autoptr(RivJob) a = NULL;

  fx->fake->join_mode = JOIN_REPLY_ONLY;
  a = submit (fx, "/echo", "a");
  wait_joined (a);

  while (!riv_job_is_finished (a))
    {
      FakeSession *session = fake_the_session (fx->fake);

      if (session->stream != NULL)
        fake_end_stream (session, TRUE);
      g_main_context_iteration (NULL, TRUE);
    }

  g_assert_cmpint (riv_job_get_status (a), ==, RIV_JOB_STATUS_LOST);
  g_assert_nonnull (strstr (riv_job_get_error (a), "without news of this job"));
  g_assert_cmpuint (fx->fake->n_gets, >, 2);
  g_assert_cmpuint (fx->fake->n_gets, <, 100);
}

/* close() ends everything: in-flight jobs cancelled, nothing pending. */
static void
test_close_cancels (Fixture       *fx,
                    gconstpointer  data)
{
  g_autoptr(RivJob) a = NULL;
  g_autoptr(RivJob) b = NULL;

  fx->fake->join_mode = JOIN_REPLY_ONLY;
  a = submit (fx, "/echo", "a");
  wait_joined (a);
  fx->fake->join_mode = JOIN_HOLD;
  b = submit (fx, "/echo", "b");
  wait_held (fx->fake, 2);

  riv_client_close (fx->client);
  g_assert_cmpint (riv_job_get_status (a), ==, RIV_JOB_STATUS_CANCELLED);
  g_assert_cmpint (riv_job_get_status (b), ==, RIV_JOB_STATUS_CANCELLED);
  g_assert_cmpuint (riv_client_get_n_pending (fx->client), ==, 0);
  g_assert_null (riv_client_submit (fx->client, "/echo", NULL, NULL));
}

/* A bad diff fails its own job with a clear error, not the stream: the
 * other job on it completes. Error completions read the server's text. */
static void
test_job_errors (Fixture       *fx,
                 gconstpointer  data)
{
  g_autoptr(RivJob) a = NULL;
  g_autoptr(RivJob) b = NULL;
  g_autoptr(RivJob) c = NULL;
  g_autoptr(RivJob) d = NULL;
  FakeSession *session;

  fx->fake->join_mode = JOIN_REPLY_ONLY;
  a = submit (fx, "/echo", "a");
  b = submit (fx, "/echo", "b");
  c = submit (fx, "/echo", "c");
  d = submit (fx, "/echo", "d");
  wait_joined (a);
  wait_joined (b);
  wait_joined (c);
  wait_joined (d);
  wait_stream (fx->fake);
  session = fake_the_session (fx->fake);

  /* a: "append" addressed inside a string. */
  fake_pushf (session, "{\"msg\":\"process_generating\",\"event_id\":\"%s\",\"success\":true,"
              "\"output\":{\"data\":[\"x\"],\"is_generating\":true}}", riv_job_get_event_id (a));
  fake_pushf (session, "{\"msg\":\"process_generating\",\"event_id\":\"%s\",\"success\":true,"
              "\"output\":{\"data\":[[[\"append\",[0],\"y\"]]],\"is_generating\":true}}",
              riv_job_get_event_id (a));
  /* b: a generator that raised. */
  fake_pushf (session, "{\"msg\":\"process_generating\",\"event_id\":\"%s\",\"success\":false,"
              "\"output\":{\"error\":\"boom\",\"title\":\"Error\"}}", riv_job_get_event_id (b));
  /* c: failure without an "error" key (what JS 2.7.0 swallows). */
  fake_pushf (session, "{\"msg\":\"process_completed\",\"event_id\":\"%s\",\"success\":false,"
              "\"output\":{},\"title\":\"ValueError\"}", riv_job_get_event_id (c));
  /* d: unaffected. */
  fake_pushf (session, "{\"msg\":\"process_completed\",\"event_id\":\"%s\",\"success\":true,"
              "\"output\":{\"data\":[\"fine\"]}}", riv_job_get_event_id (d));

  wait_finished (a);
  wait_finished (b);
  wait_finished (c);
  wait_finished (d);
  g_assert_cmpint (riv_job_get_status (a), ==, RIV_JOB_STATUS_FAILED);
  g_assert_true (g_str_has_prefix (riv_job_get_error (a),
                                   "Could not apply the server's update: output 0: "));
  g_assert_cmpstr (riv_job_get_output_text (a), ==, "x");
  g_assert_cmpint (riv_job_get_status (b), ==, RIV_JOB_STATUS_FAILED);
  g_assert_cmpstr (riv_job_get_error (b), ==, "boom");
  g_assert_cmpint (riv_job_get_status (c), ==, RIV_JOB_STATUS_FAILED);
  g_assert_cmpstr (riv_job_get_error (c), ==, "The server reported an error (ValueError)");
  g_assert_cmpint (riv_job_get_status (d), ==, RIV_JOB_STATUS_COMPLETED);
  g_assert_cmpstr (riv_job_get_output_text (d), ==, "fine");
  g_assert_cmpint (riv_client_get_stream_state (fx->client), ==, RIV_STREAM_STATE_CONNECTED);
  g_assert_cmpuint (fx->stream_errors->len, ==, 0);
}

static void
test_headers (Fixture       *fx,
              gconstpointer  data)
{
  g_autoptr(RivJob) a = NULL;
  g_autoptr(RivJob) b = NULL;

  a = submit (fx, "/echo", "a");
  wait_finished (a);
  g_assert_null (fx->fake->last_authorization);
  g_assert_cmpstr (fx->fake->last_gradio_user, ==, "api");

  riv_client_set_token (fx->client, "hf_secret");
  b = submit (fx, "/echo", "b");
  wait_finished (b);
  g_assert_cmpstr (fx->fake->last_authorization, ==, "Bearer hf_secret");
}

static gboolean
state_is (gpointer data)
{
  gpointer *args = data;

  return (int) riv_client_get_stream_state (args[0]) == GPOINTER_TO_INT (args[1]);
}

static void
wait_state (RivClient      *client,
            RivStreamState  state)
{
  gpointer args[2] = { client, GINT_TO_POINTER (state) };

  g_assert_true (riv_test_wait_until (state_is, args, HANG_GUARD));
}

/* The stream-state property follows the stream for the UI. */
static void
test_stream_state (Fixture       *fx,
                   gconstpointer  data)
{
  g_autoptr(RivJob) a = NULL;
  FakeSession *session;

  g_assert_cmpint (riv_client_get_stream_state (fx->client), ==, RIV_STREAM_STATE_IDLE);
  fx->fake->join_mode = JOIN_REPLY_ONLY;
  a = submit (fx, "/echo", "a");
  wait_joined (a);
  wait_state (fx->client, RIV_STREAM_STATE_CONNECTED);
  wait_stream (fx->fake);
  session = fake_the_session (fx->fake);

  fake_pushf (session, "{\"msg\":\"process_completed\",\"event_id\":\"%s\",\"success\":true,"
              "\"output\":{\"data\":[\"A\"]}}", riv_job_get_event_id (a));
  fake_end_stream (session, TRUE);
  wait_finished (a);
  /* Nothing in flight after close_stream: no new GET, the stream is idle. */
  wait_state (fx->client, RIV_STREAM_STATE_IDLE);
  g_assert_cmpuint (fx->fake->n_gets, ==, 1);
  g_assert_cmpuint (_riv_client_get_n_streams (fx->client), ==, 1);
}

static gboolean
run_submitted_all (gpointer run)
{
  return riv_load_run_get_submitted (run) == 2 * RIV_BURST_MAX_JOINING;
}

static gboolean
run_finished (gpointer run)
{
  return riv_load_run_is_finished (run);
}

/* The open loop at a rate (load --rate) keeps its schedule whatever the
 * server does: with no join answered, every job still goes out, past the
 * bound on joins in flight that a burst as fast as possible keeps
 * (test-load); the run stopped then counts them lost. */
static void
test_open_loop_rate_unbounded (Fixture       *fx,
                               gconstpointer  data)
{
  g_autoptr(JsonNode) input = json_from_string ("[\"r{i}\"]", NULL);
  g_autoptr(RivLoadRun) run = riv_load_run_new (fx->client, "echo", input);
  g_autoptr(GError) error = NULL;

  fx->fake->join_mode = JOIN_HOLD;
  riv_load_run_set_open_loop (run, 2 * RIV_BURST_MAX_JOINING, 1000);
  g_assert_true (riv_load_run_start (run, &error));
  g_assert_no_error (error);
  g_assert_true (riv_test_wait_until (run_submitted_all, run, HANG_GUARD));
  g_assert_cmpuint (riv_client_get_n_joining (fx->client), ==, 2 * RIV_BURST_MAX_JOINING);
  g_assert_cmpuint (riv_load_run_get_finished (run), ==, 0);

  riv_load_run_stop (run, TRUE);
  g_assert_true (riv_test_wait_until (run_finished, run, HANG_GUARD));
  g_assert_cmpuint (riv_load_run_get_lost (run), ==, 2 * RIV_BURST_MAX_JOINING);
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);

#define ADD(path, func) \
  g_test_add ("/races/" path, Fixture, NULL, fixture_setup, func, fixture_teardown)

  ADD ("smoke", test_echo_smoke);
  ADD ("early-messages", test_early_messages);
  ADD ("close-stream-after-join", test_close_stream_after_join);
  ADD ("close-stream-during-join", test_close_stream_during_join);
  ADD ("eof-reopens", test_eof_reopens);
  ADD ("interleaved-generators", test_interleaved_generators);
  ADD ("progress-after-completion", test_progress_after_completion);
  ADD ("duplicate-completion-after-cancel", test_duplicate_completion_after_cancel);
  ADD ("cancel-before-join", test_cancel_before_join);
  ADD ("unexpected-error", test_unexpected_error);
  ADD ("session-not-found", test_session_not_found);
  ADD ("liveness-silent", test_liveness_silent);
  ADD ("liveness-heartbeats", test_liveness_heartbeats);
  ADD ("unknown-id-flood", test_unknown_id_flood);
  ADD ("inferred-batch", test_inferred_batch);
  ADD ("batch-field", test_batch_field);
  ADD ("join-errors", test_join_errors);
  ADD ("join-timeout", test_join_timeout);
  ADD ("reconnect-gives-up", test_reconnect_gives_up);
  ADD ("close-cancels", test_close_cancels);
  ADD ("endless-close-stream", test_endless_close_stream);
  ADD ("job-errors", test_job_errors);
  ADD ("headers", test_headers);
  ADD ("stream-state", test_stream_state);
  ADD ("inferred-batch-burst", test_inferred_batch_burst);
  ADD ("open-loop-rate-unbounded", test_open_loop_rate_unbounded);

#undef ADD

  return g_test_run ();
}
