/* test-server.c
 * Copyright 2026 The Rivulet authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The embedded demo server over real HTTP on 127.0.0.1 (port 0), spoken to
 * with a bare SoupSession. SSE frames are parsed here strictly (exactly one
 * "data: <json>" line per frame, LF only) so that framing mistakes fail.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <glib/gstdio.h>
#include <json-glib/json-glib.h>
#include <libsoup/soup.h>

#include "riv-clock.h"
#include "riv-demo.h"
#include "riv-server-test.h"
#include "riv-test-util.h"
#include "riv-wire.h"

#define WAIT_S 30.0

typedef struct
{
  RivServer   *server;
  char        *url;
  SoupSession *session;
  GPtrArray   *streams;     /* Sse, owned */
  guint        batch_sizes; /* sum of batch-done sizes */
  guint64      batch_total; /* last total_items seen */
  guint        n_batches;
} Fixture;

typedef struct
{
  Fixture      *f;
  SoupMessage  *msg;
  GInputStream *in;
  GCancellable *cancellable;
  GString      *buf;
  GPtrArray    *frames;     /* JsonNode, owned */
  JsonParser   *parser;
  gboolean      light;      /* count process_generating frames without parsing them */
  guint         n_light;
  guint         status;
  gboolean      eof;
  gboolean      failed;
  gboolean      bad_framing;
} Sse;

/* Fixture */

static void
batch_done_cb (RivServer  *server,
               const char *api_name,
               guint       size,
               guint64     total,
               Fixture    *f)
{
  g_assert_cmpstr (api_name, ==, "batch_echo");
  f->batch_sizes += size;
  f->batch_total = total;
  f->n_batches++;
}

static void
fixture_setup (Fixture       *f,
               gconstpointer  data)
{
  f->server = riv_server_new ();
  f->session = soup_session_new_with_options ("timeout", 0,
                                              "max-conns", 256,
                                              "max-conns-per-host", 256,
                                              NULL);
  f->streams = g_ptr_array_new ();
  /* Short by default to keep the tests quick; the linger test sets its own. */
  g_object_set (f->server, "close-linger", 0.1, NULL);
  g_signal_connect (f->server, "batch-done", G_CALLBACK (batch_done_cb), f);
}

static void
start (Fixture    *f,
       const char *first_property,
       ...)
{
  g_autoptr(GError) error = NULL;
  va_list args;

  if (first_property != NULL)
    {
      va_start (args, first_property);
      g_object_set_valist (G_OBJECT (f->server), first_property, args);
      va_end (args);
    }
  g_assert_true (riv_server_listen (f->server, NULL, 0, &error));
  g_assert_no_error (error);
  g_assert_cmpuint (riv_server_get_port (f->server), >, 0);
  f->url = riv_server_dup_url (f->server);
  g_assert_true (g_str_has_prefix (f->url, "http://127.0.0.1:"));
}

static void sse_free (Sse *sse);

static void
fixture_teardown (Fixture       *f,
                  gconstpointer  data)
{
  riv_server_shutdown (f->server);
  for (guint i = 0; i < f->streams->len; i++)
    sse_free (g_ptr_array_index (f->streams, i));
  g_ptr_array_unref (f->streams);
  soup_session_abort (f->session);
  g_object_unref (f->session);
  g_assert_finalize_object (f->server);
  g_free (f->url);
  /* Let the session's sources finish before the next test. */
  while (g_main_context_iteration (NULL, FALSE))
    ;
}

/* Plain requests */

typedef struct
{
  guint               status;
  GBytes             *body;
  SoupMessageHeaders *headers;
} Reply;

static void
reply_free (Reply *reply)
{
  g_clear_pointer (&reply->body, g_bytes_unref);
  g_clear_pointer (&reply->headers, soup_message_headers_unref);
  g_free (reply);
}

G_DEFINE_AUTOPTR_CLEANUP_FUNC (Reply, reply_free)

static SoupMessage *
new_message (Fixture    *f,
             const char *method,
             const char *path)
{
  g_autofree char *uri = g_strconcat (f->url, path, NULL);
  SoupMessage *msg = soup_message_new (method, uri);

  g_assert_nonnull (msg);
  return msg;
}

static Reply *
http_full (Fixture            *f,
           const char         *method,
           const char         *path,
           const char         *content_type,
           GBytes             *body,
           const char * const *headers)
{
  g_autoptr(SoupMessage) msg = new_message (f, method, path);
  g_autoptr(GAsyncResult) result = NULL;
  g_autoptr(GError) error = NULL;
  Reply *reply = g_new0 (Reply, 1);

  if (body != NULL)
    soup_message_set_request_body_from_bytes (msg, content_type, body);
  for (guint i = 0; headers != NULL && headers[i] != NULL; i += 2)
    soup_message_headers_replace (soup_message_get_request_headers (msg),
                                  headers[i], headers[i + 1]);

  soup_session_send_and_read_async (f->session, msg, G_PRIORITY_DEFAULT, NULL,
                                    riv_test_async_result_cb, &result);
  riv_test_wait_result (&result, WAIT_S);
  reply->body = soup_session_send_and_read_finish (f->session, result, &error);
  g_assert_no_error (error);
  reply->status = soup_message_get_status (msg);
  reply->headers = soup_message_headers_ref (soup_message_get_response_headers (msg));
  return reply;
}

static Reply *
http_get (Fixture    *f,
          const char *path)
{
  return http_full (f, "GET", path, NULL, NULL, NULL);
}

static Reply *
http_post (Fixture    *f,
           const char *path,
           const char *json)
{
  g_autoptr(GBytes) body = g_bytes_new (json, strlen (json));

  return http_full (f, "POST", path, "application/json", body, NULL);
}

static JsonNode *
reply_json (Reply *reply)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonParser) parser = json_parser_new ();
  const char *type = soup_message_headers_get_content_type (reply->headers, NULL);

  g_assert_cmpstr (type, ==, "application/json");
  json_parser_load_from_data (parser, g_bytes_get_data (reply->body, NULL),
                              g_bytes_get_size (reply->body), &error);
  g_assert_no_error (error);
  return json_node_ref (json_parser_get_root (parser));
}

/* Asserts a 4xx/5xx JSON reply with a "detail" member; returns the detail. */
static JsonNode *
assert_error_reply (Reply *reply,
                    guint  status)
{
  g_autoptr(JsonNode) root = NULL;
  JsonObject *object;

  g_assert_cmpuint (reply->status, ==, status);
  root = reply_json (reply);
  g_assert_true (JSON_NODE_HOLDS_OBJECT (root));
  object = json_node_get_object (root);
  g_assert_true (json_object_has_member (object, "detail"));
  return json_node_copy (json_object_get_member (object, "detail"));
}

static char *
join (Fixture    *f,
      guint       fn_index,
      const char *data_json,
      const char *session_hash)
{
  g_autofree char *body = g_strdup_printf ("{\"data\":%s,\"event_data\":null,\"fn_index\":%u,"
                                           "\"trigger_id\":null,\"session_hash\":\"%s\"}",
                                           data_json, fn_index, session_hash);
  g_autoptr(Reply) reply = http_post (f, "/gradio_api/queue/join", body);
  g_autoptr(JsonNode) root = NULL;
  const char *event_id;

  g_assert_cmpuint (reply->status, ==, 200);
  root = reply_json (reply);
  event_id = json_object_get_string_member (json_node_get_object (root), "event_id");
  g_assert_nonnull (event_id);
  g_assert_cmpuint (strlen (event_id), ==, 32);
  for (const char *p = event_id; *p; p++)
    g_assert_true (g_ascii_isxdigit (*p) && !g_ascii_isupper (*p));
  return g_strdup (event_id);
}

/* SSE */

static void sse_read (Sse *sse);

static void
sse_parse (Sse *sse)
{
  gsize pos = 0;
  char *end;

  while ((end = strstr (sse->buf->str + pos, "\n\n")) != NULL)
    {
      char *frame = sse->buf->str + pos;
      gsize len = end - frame;
      g_autoptr(GError) error = NULL;
      JsonObject *object;

      *end = '\0';
      pos += len + 2;

      /* One "data: " line, no CR, no other fields or comments. */
      if (!g_str_has_prefix (frame, "data: ") || strchr (frame, '\n') != NULL ||
          strchr (frame, '\r') != NULL)
        {
          g_test_message ("bad frame: %s", frame);
          sse->bad_framing = TRUE;
          continue;
        }
      if (sse->light && g_str_has_prefix (frame, "data: {\"msg\":\"process_generating\","))
        {
          sse->n_light++;
          continue;
        }
      json_parser_load_from_data (sse->parser, frame + 6, len - 6, &error);
      g_assert_no_error (error);
      g_assert_true (JSON_NODE_HOLDS_OBJECT (json_parser_get_root (sse->parser)));
      object = json_node_get_object (json_parser_get_root (sse->parser));
      g_assert_true (json_object_has_member (object, "msg"));
      g_assert_true (json_object_has_member (object, "event_id"));
      g_ptr_array_add (sse->frames, json_node_ref (json_parser_get_root (sse->parser)));
    }
  g_string_erase (sse->buf, 0, pos);
}

static void
sse_read_cb (GObject      *object,
             GAsyncResult *result,
             gpointer      user_data)
{
  Sse *sse = user_data;
  g_autoptr(GError) error = NULL;
  g_autoptr(GBytes) bytes = NULL;

  bytes = g_input_stream_read_bytes_finish (G_INPUT_STREAM (object), result, &error);

  if (bytes == NULL)
    {
      if (!g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
        sse->failed = TRUE;
      sse->eof = TRUE;
      return;
    }
  if (g_bytes_get_size (bytes) == 0)
    {
      sse->eof = TRUE;
      return;
    }
  g_string_append_len (sse->buf, g_bytes_get_data (bytes, NULL), g_bytes_get_size (bytes));
  sse_parse (sse);
  sse_read (sse);
}

static void
sse_read (Sse *sse)
{
  g_input_stream_read_bytes_async (sse->in, 65536, G_PRIORITY_DEFAULT, sse->cancellable,
                                   sse_read_cb, sse);
}

static void
sse_send_cb (GObject      *object,
             GAsyncResult *result,
             gpointer      user_data)
{
  Sse *sse = user_data;
  g_autoptr(GError) error = NULL;

  sse->in = soup_session_send_finish (SOUP_SESSION (object), result, &error);
  if (sse->in == NULL)
    {
      sse->failed = TRUE;
      sse->eof = TRUE;
      return;
    }
  sse->status = soup_message_get_status (sse->msg);
  sse_read (sse);
}

static Sse *
sse_open_path (Fixture    *f,
               const char *path)
{
  Sse *sse = g_new0 (Sse, 1);

  sse->f = f;
  sse->msg = new_message (f, "GET", path);
  /* What fetch-event-stream sends, even on a GET. */
  {
    SoupMessageHeaders *headers = soup_message_get_request_headers (sse->msg);

    soup_message_headers_replace (headers, "Accept", "text/event-stream");
    soup_message_headers_replace (headers, "Content-Type", "application/json");
  }
  sse->cancellable = g_cancellable_new ();
  sse->buf = g_string_new (NULL);
  sse->frames = g_ptr_array_new_with_free_func ((GDestroyNotify) json_node_unref);
  sse->parser = json_parser_new_immutable ();
  soup_session_send_async (f->session, sse->msg, G_PRIORITY_DEFAULT, sse->cancellable,
                           sse_send_cb, sse);
  g_ptr_array_add (f->streams, sse);
  return sse;
}

static Sse *
sse_open (Fixture    *f,
          const char *session_hash)
{
  g_autofree char *path = g_strdup_printf ("/gradio_api/queue/data?session_hash=%s", session_hash);

  return sse_open_path (f, path);
}

static void
sse_free (Sse *sse)
{
  g_cancellable_cancel (sse->cancellable);
  /* Let the cancelled read report back before freeing what it points to. */
  while (sse->in != NULL && !sse->eof)
    g_main_context_iteration (NULL, TRUE);
  while (sse->in == NULL && !sse->eof)
    g_main_context_iteration (NULL, TRUE);
  if (sse->in != NULL)
    g_input_stream_close (sse->in, NULL, NULL);
  g_clear_object (&sse->in);
  g_clear_object (&sse->msg);
  g_clear_object (&sse->cancellable);
  g_string_free (sse->buf, TRUE);
  g_ptr_array_unref (sse->frames);
  g_object_unref (sse->parser);
  g_free (sse);
}

/* Closes the connection from the client side (a client going away). */
static void
sse_drop (Sse *sse)
{
  g_ptr_array_remove (sse->f->streams, sse);
  sse_free (sse);
}

static const char *
frame_msg (JsonNode *frame)
{
  return json_object_get_string_member (json_node_get_object (frame), "msg");
}

static const char *
frame_event (JsonNode *frame)
{
  JsonNode *id = json_object_get_member (json_node_get_object (frame), "event_id");

  return JSON_NODE_HOLDS_NULL (id) ? NULL : json_node_get_string (id);
}

static JsonObject *
frame_output (JsonNode *frame)
{
  return json_object_get_object_member (json_node_get_object (frame), "output");
}

static const char *
last_msg (GPtrArray *frames)
{
  g_assert_cmpuint (frames->len, >, 0);
  return frame_msg (g_ptr_array_index (frames, frames->len - 1));
}

static gboolean
frame_success (JsonNode *frame)
{
  return json_object_get_boolean_member (json_node_get_object (frame), "success");
}

/* output.data[i] of a frame, as a string. */
static const char *
output_string (JsonNode *frame,
               guint     i)
{
  JsonArray *data = json_object_get_array_member (frame_output (frame), "data");

  return json_array_get_string_element (data, i);
}

static gboolean
sse_eof (gpointer data)
{
  return ((Sse *) data)->eof;
}

static void
sse_wait_eof (Sse *sse)
{
  g_assert_true (riv_test_wait_until (sse_eof, sse, WAIT_S));
  g_assert_false (sse->failed);
  g_assert_false (sse->bad_framing);
  g_assert_cmpuint (sse->status, ==, 200);
  g_assert_cmpuint (sse->buf->len, ==, 0);
}

typedef struct
{
  Sse        *sse;
  const char *msg;
  const char *event_id;
  guint       count;
} WaitMsg;

static guint
count_frames (GPtrArray  *frames,
              const char *msg,
              const char *event_id)
{
  guint n = 0;

  for (guint i = 0; i < frames->len; i++)
    {
      JsonNode *frame = g_ptr_array_index (frames, i);

      if ((msg == NULL || g_str_equal (frame_msg (frame), msg)) &&
          (event_id == NULL || g_strcmp0 (frame_event (frame), event_id) == 0))
        n++;
    }
  return n;
}

static gboolean
has_msg (gpointer data)
{
  WaitMsg *w = data;

  return count_frames (w->sse->frames, w->msg, w->event_id) >= w->count || w->sse->eof;
}

static void
sse_wait_msg (Sse        *sse,
              const char *msg,
              const char *event_id,
              guint       count)
{
  WaitMsg w = { sse, msg, event_id, count };

  riv_test_wait_until (has_msg, &w, WAIT_S);
  g_assert_cmpuint (count_frames (sse->frames, msg, event_id), >=, count);
}

/* Frames of one event, in order (borrowed). */
static GPtrArray *
frames_of (GPtrArray  *frames,
           const char *event_id)
{
  GPtrArray *out = g_ptr_array_new ();

  for (guint i = 0; i < frames->len; i++)
    if (g_strcmp0 (frame_event (g_ptr_array_index (frames, i)), event_id) == 0)
      g_ptr_array_add (out, g_ptr_array_index (frames, i));
  return out;
}

static JsonNode *
completion_of (GPtrArray  *frames,
               const char *event_id)
{
  JsonNode *found = NULL;

  for (guint i = 0; i < frames->len; i++)
    {
      JsonNode *frame = g_ptr_array_index (frames, i);

      if (g_str_equal (frame_msg (frame), "process_completed") &&
          g_strcmp0 (frame_event (frame), event_id) == 0)
        {
          g_assert_null (found);   /* exactly one */
          found = frame;
        }
    }
  g_assert_nonnull (found);
  return found;
}

static gboolean
set_flag_cb (gpointer data)
{
  *(gboolean *) data = TRUE;
  return G_SOURCE_REMOVE;
}

/* Runs the main loop (the server included) for a while. */
static void
sleep_loop (double seconds)
{
  gboolean done = FALSE;

  g_timeout_add ((guint) (seconds * 1000), set_flag_cb, &done);
  while (!done)
    g_main_context_iteration (NULL, TRUE);
}

/* Applies a one-output text edit list (["append"|"replace", [], v]…). */
static void
apply_text_edits (GString  *text,
                  JsonNode *edits)
{
  JsonArray *list = json_node_get_array (edits);

  for (guint i = 0; i < json_array_get_length (list); i++)
    {
      JsonArray *edit = json_array_get_array_element (list, i);
      const char *op = json_array_get_string_element (edit, 0);

      g_assert_cmpuint (json_array_get_length (json_array_get_array_element (edit, 1)), ==, 0);
      if (g_str_equal (op, "append"))
        g_string_append (text, json_array_get_string_element (edit, 2));
      else if (g_str_equal (op, "replace"))
        g_string_assign (text, json_array_get_string_element (edit, 2));
      else
        g_assert_not_reached ();
    }
}

/* The text a one-output stream's updates build into text (from its first
 * update's full value and the edits after it); how many updates it has. */
static guint
streamed_text (GPtrArray *frames,
               GString   *text)
{
  guint generating = 0;

  for (guint i = 0; i < frames->len; i++)
    {
      JsonNode *frame = g_ptr_array_index (frames, i);
      JsonArray *values;

      if (!g_str_equal (frame_msg (frame), "process_generating"))
        continue;
      values = json_object_get_array_member (frame_output (frame), "data");
      if (generating++ == 0)
        g_string_assign (text, json_array_get_string_element (values, 0));
      else
        apply_text_edits (text, json_array_get_element (values, 0));
    }
  return generating;
}

/* Tests */

static void
test_config (Fixture       *f,
             gconstpointer  data)
{
  static const char * const names[] = {
    "fake_diffusion", "stream_text", "batch_echo", "rapid_generation", "chat", "gallery",
    "mixed", "logs", "shapes_update", "shapes_plot", "shapes_five", "shapes_chat", "shapes_text",
    "shapes_fail", "paced_text", "session_chat",
  };
  static const char * const json_get[] = { "Content-Type", "application/json", NULL };
  g_autoptr(Reply) reply = NULL;
  g_autoptr(JsonNode) root = NULL;
  g_autoptr(GHashTable) ids = g_hash_table_new (NULL, NULL);
  JsonObject *config;
  JsonArray *components, *deps;

  start (f, NULL);

  /* A GET with a JSON content type and a bare "?" still works. */
  reply = http_full (f, "GET", "/config?", NULL, NULL, json_get);
  g_assert_cmpuint (reply->status, ==, 200);
  root = reply_json (reply);
  config = json_node_get_object (root);

  g_assert_cmpstr (json_object_get_string_member (config, "protocol"), ==, "sse_v3");
  g_assert_cmpstr (json_object_get_string_member (config, "api_prefix"), ==, "/gradio_api");
  g_assert_false (json_object_has_member (config, "root"));
  g_assert_cmpint (atoi (json_object_get_string_member (config, "version")), >=, 5);
  g_assert_true (json_object_get_boolean_member (config, "enable_queue"));
  g_assert_false (json_object_get_boolean_member (config, "connect_heartbeat"));
  g_assert_cmpint (json_object_get_int_member (config, "app_id"), >, 0);

  components = json_object_get_array_member (config, "components");
  for (guint i = 0; i < json_array_get_length (components); i++)
    {
      JsonObject *c = json_array_get_object_element (components, i);
      JsonObject *props = json_object_get_object_member (c, "props");

      g_hash_table_add (ids, GINT_TO_POINTER ((int) json_object_get_int_member (c, "id")));
      g_assert_nonnull (json_object_get_string_member (c, "type"));
      g_assert_nonnull (json_object_get_string_member (props, "label"));
      /* Only a State is left out of the API, as in Gradio. */
      g_assert_true (json_object_has_member (c, "skip_api"));
      g_assert_cmpint (json_object_get_boolean_member (c, "skip_api"), ==,
                       g_str_equal (json_object_get_string_member (c, "type"), "state"));
      g_assert_nonnull (json_object_get_object_member (c, "api_info"));
      if (g_str_equal (json_object_get_string_member (c, "type"), "slider"))
        {
          g_assert_cmpfloat (json_object_get_double_member (props, "minimum"), ==, 1);
          g_assert_cmpfloat (json_object_get_double_member (props, "maximum"), ==, 50);
          g_assert_cmpint (json_object_get_int_member (props, "value"), ==, 10);
          g_assert_true (json_object_has_member (props, "step"));
        }
      if (g_str_equal (json_object_get_string_member (c, "type"), "textbox"))
        g_assert_cmpint (json_object_get_int_member (props, "lines"), >=, 1);
    }
  g_assert_cmpuint (g_hash_table_size (ids), ==, json_array_get_length (components));

  deps = json_object_get_array_member (config, "dependencies");
  g_assert_cmpuint (json_array_get_length (deps), ==, G_N_ELEMENTS (names));
  for (guint i = 0; i < json_array_get_length (deps); i++)
    {
      JsonObject *dep = json_array_get_object_element (deps, i);
      JsonObject *types = json_object_get_object_member (dep, "types");
      gboolean is_batch = g_str_equal (names[i], "batch_echo");
      JsonArray *inputs = json_object_get_array_member (dep, "inputs");
      JsonArray *outputs = json_object_get_array_member (dep, "outputs");

      g_assert_cmpint (json_object_get_int_member (dep, "id"), ==, i);
      g_assert_cmpstr (json_object_get_string_member (dep, "api_name"), ==, names[i]);
      g_assert_true (json_object_get_boolean_member (dep, "queue"));
      g_assert_true (json_object_get_boolean_member (dep, "backend_fn"));
      g_assert_cmpstr (json_object_get_string_member (dep, "connection"), ==, "sse");
      g_assert_cmpstr (json_object_get_string_member (dep, "api_visibility"), ==, "public");
      g_assert_cmpuint (json_array_get_length (json_object_get_array_member (dep, "targets")),
                        ==, 0);
      g_assert_cmpint (json_object_get_boolean_member (types, "generator"), ==,
                       riv_demo_get (i)->generator);
      g_assert_false (json_object_get_boolean_member (types, "cancel"));
      g_assert_cmpint (json_object_get_boolean_member (dep, "batch"), ==, is_batch);
      if (is_batch)
        g_assert_cmpint (json_object_get_int_member (dep, "max_batch_size"), ==, 16);
      g_assert_cmpuint (json_array_get_length (inputs), >, 0);
      g_assert_cmpuint (json_array_get_length (outputs), >, 0);
      for (guint k = 0; k < json_array_get_length (inputs); k++)
        {
          gint64 id = json_array_get_int_element (inputs, k);
          g_assert_true (g_hash_table_contains (ids, GINT_TO_POINTER ((int) id)));
        }
      for (guint k = 0; k < json_array_get_length (outputs); k++)
        {
          gint64 id = json_array_get_int_element (outputs, k);
          g_assert_true (g_hash_table_contains (ids, GINT_TO_POINTER ((int) id)));
        }
    }
}

static void
test_info (Fixture       *f,
           gconstpointer  data)
{
  g_autoptr(Reply) reply = NULL;
  g_autoptr(JsonNode) root = NULL;
  JsonObject *named, *endpoint;
  JsonArray *params;

  start (f, NULL);
  reply = http_get (f, "/gradio_api/info?serialize=False");
  g_assert_cmpuint (reply->status, ==, 200);
  root = reply_json (reply);
  g_assert_nonnull (json_object_get_object_member (json_node_get_object (root),
                                                   "unnamed_endpoints"));
  named = json_object_get_object_member (json_node_get_object (root), "named_endpoints");
  g_assert_cmpuint (json_object_get_size (named), ==, riv_demo_get_count ());
  g_assert_true (json_object_has_member (named, "/stream_text"));
  g_assert_true (json_object_has_member (named, "/chat"));
  g_assert_true (json_object_has_member (named, "/mixed"));
  g_assert_true (json_object_has_member (named, "/batch_echo"));
  g_assert_true (json_object_has_member (named, "/rapid_generation"));

  endpoint = json_object_get_object_member (named, "/fake_diffusion");
  params = json_object_get_array_member (endpoint, "parameters");
  g_assert_cmpuint (json_array_get_length (params), ==, 2);
  for (guint i = 0; i < 2; i++)
    {
      JsonObject *p = json_array_get_object_element (params, i);

      g_assert_nonnull (json_object_get_string_member (p, "parameter_name"));
      g_assert_nonnull (json_object_get_string_member (p, "label"));
      g_assert_true (json_object_get_boolean_member (p, "parameter_has_default"));
      g_assert_true (json_object_has_member (p, "parameter_default"));
      g_assert_nonnull (json_object_get_object_member (p, "type"));
      g_assert_nonnull (json_object_get_object_member (p, "python_type"));
      g_assert_nonnull (json_object_get_string_member (p, "component"));
    }
  {
    JsonObject *steps = json_array_get_object_element (params, 0);

    g_assert_cmpstr (json_object_get_string_member (steps, "parameter_name"), ==, "steps");
    g_assert_cmpint (json_object_get_int_member (steps, "parameter_default"), ==, 10);
  }
  params = json_object_get_array_member (endpoint, "returns");
  g_assert_cmpuint (json_array_get_length (params), ==, 2);
  g_assert_cmpstr (json_object_get_string_member (json_array_get_object_element (params, 0),
                                                  "component"), ==, "Image");

  /* A State output is not among an endpoint's returns, as in Gradio. */
  endpoint = json_object_get_object_member (named, "/shapes_chat");
  params = json_object_get_array_member (endpoint, "returns");
  g_assert_cmpuint (json_array_get_length (params), ==, 1);
  g_assert_cmpstr (json_object_get_string_member (json_array_get_object_element (params, 0),
                                                  "component"), ==, "JSON");
}

static void
test_routes_and_cors (Fixture       *f,
                      gconstpointer  data)
{
  static const char * const preflight[] = {
    "Origin", "http://example.test",
    "Access-Control-Request-Method", "POST",
    "Access-Control-Request-Headers", "content-type,x-gradio-user",
    NULL
  };
  static const char * const with_origin[] = { "Origin", "http://example.test", NULL };
  g_autoptr(Reply) reply = NULL;
  g_autoptr(JsonNode) detail = NULL;
  const char *allowed;
  const char * const origins[] = { "http://example.test", NULL };

  /* A page of another origin is served only when named (see origin-and-host). */
  start (f, "allow-origins", origins, NULL);

  reply = http_get (f, "/no/such/route");
  detail = assert_error_reply (reply, 404);
  g_assert_cmpstr (json_node_get_string (detail), ==, "Not Found");
  g_clear_pointer (&reply, reply_free);
  g_clear_pointer (&detail, json_node_unref);

  reply = http_get (f, "/gradio_api/queue/join");
  detail = assert_error_reply (reply, 405);
  g_clear_pointer (&reply, reply_free);
  g_clear_pointer (&detail, json_node_unref);

  reply = http_full (f, "OPTIONS", "/gradio_api/queue/join", NULL, NULL, preflight);
  g_assert_cmpuint (reply->status, ==, 200);
  g_assert_cmpstr (soup_message_headers_get_one (reply->headers, "Access-Control-Allow-Origin"),
                   ==, "http://example.test");
  g_assert_cmpstr (soup_message_headers_get_one (reply->headers,
                                                 "Access-Control-Allow-Credentials"), ==, "true");
  allowed = soup_message_headers_get_one (reply->headers, "Access-Control-Allow-Headers");
  g_assert_nonnull (strstr (allowed, "content-type"));
  g_assert_nonnull (strstr (allowed, "x-gradio-user"));
  g_assert_nonnull (strstr (allowed, "authorization"));
  allowed = soup_message_headers_get_one (reply->headers, "Access-Control-Allow-Methods");
  g_assert_nonnull (strstr (allowed, "POST"));
  g_clear_pointer (&reply, reply_free);

  reply = http_full (f, "GET", "/config", NULL, NULL, with_origin);
  g_assert_cmpuint (reply->status, ==, 200);
  g_assert_cmpstr (soup_message_headers_get_one (reply->headers, "Access-Control-Allow-Origin"),
                   ==, "http://example.test");
  g_clear_pointer (&reply, reply_free);

  /* No Origin, no CORS headers. */
  reply = http_get (f, "/gradio_api/info");
  g_assert_null (soup_message_headers_get_one (reply->headers, "Access-Control-Allow-Origin"));
  g_clear_pointer (&reply, reply_free);

  reply = http_get (f, "/gradio_api/app_id");
  g_assert_cmpuint (reply->status, ==, 200);
  g_clear_pointer (&reply, reply_free);

  reply = http_post (f, "/gradio_api/reset", "{\"event_id\":\"x\"}");
  g_assert_cmpuint (reply->status, ==, 200);
  g_assert_cmpmem (g_bytes_get_data (reply->body, NULL), g_bytes_get_size (reply->body),
                   "{\"success\":true}", 16);
}

static void
assert_png_reply (Reply *reply)
{
  static const guint8 magic[] = { 0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n' };

  g_assert_cmpuint (reply->status, ==, 200);
  g_assert_cmpstr (soup_message_headers_get_content_type (reply->headers, NULL), ==, "image/png");
  g_assert_cmpuint (g_bytes_get_size (reply->body), >, sizeof magic);
  g_assert_cmpmem (g_bytes_get_data (reply->body, NULL), sizeof magic, magic, sizeof magic);
}

static const char *
url_path (const char *url,
          Fixture    *f)
{
  g_assert_true (g_str_has_prefix (url, f->url));
  return url + strlen (f->url);
}

static void
test_fake_diffusion (Fixture       *f,
                     gconstpointer  data)
{
  static const char * const expected[] = {
    "estimation", "process_starts",
    "progress", "process_generating", "progress", "process_generating",
    "progress", "process_generating", "process_completed", "close_stream",
  };
  g_autofree char *id = NULL;
  g_autoptr(GPtrArray) mine = NULL;
  g_autoptr(Reply) reply = NULL;
  JsonObject *output, *file, *progress;
  JsonArray *values;
  Sse *sse;
  const char *path;

  start (f, NULL);
  id = join (f, 0, "[3, 0.01]", "fd");
  sse = sse_open (f, "fd");
  sse_wait_eof (sse);

  {
    SoupMessageHeaders *headers = soup_message_get_response_headers (sse->msg);

    g_assert_cmpstr (soup_message_headers_get_content_type (headers, NULL),
                     ==, "text/event-stream");
    g_assert_cmpstr (soup_message_headers_get_one (headers, "Cache-Control"), ==, "no-cache");
    g_assert_cmpstr (soup_message_headers_get_one (headers, "X-Accel-Buffering"), ==, "no");
  }

  g_assert_cmpuint (sse->frames->len, ==, G_N_ELEMENTS (expected));
  for (guint i = 0; i < sse->frames->len; i++)
    {
      JsonNode *frame = g_ptr_array_index (sse->frames, i);

      g_assert_cmpstr (frame_msg (frame), ==, expected[i]);
      if (i + 1 < sse->frames->len)
        g_assert_cmpstr (frame_event (frame), ==, id);
      else
        g_assert_null (frame_event (frame));
    }

  /* Progress: index / length in steps. */
  progress = json_array_get_object_element (
    json_object_get_array_member (json_node_get_object (g_ptr_array_index (sse->frames, 6)),
                                  "progress_data"), 0);
  g_assert_cmpint (json_object_get_int_member (progress, "index"), ==, 3);
  g_assert_cmpint (json_object_get_int_member (progress, "length"), ==, 3);
  g_assert_cmpstr (json_object_get_string_member (progress, "unit"), ==, "steps");

  /* First yield: full values; later yields: replace edits. */
  values = json_object_get_array_member (frame_output (g_ptr_array_index (sse->frames, 3)), "data");
  g_assert_cmpuint (json_array_get_length (values), ==, 2);
  g_assert_nonnull (json_object_get_string_member (json_array_get_object_element (values, 0),
                                                   "path"));
  g_assert_cmpstr (json_array_get_string_element (values, 1), ==, "step 1/3");
  values = json_object_get_array_member (frame_output (g_ptr_array_index (sse->frames, 5)), "data");
  {
    JsonArray *edit = json_array_get_array_element (json_array_get_array_element (values, 1), 0);

    g_assert_cmpstr (json_array_get_string_element (edit, 0), ==, "replace");
    g_assert_cmpstr (json_array_get_string_element (edit, 2), ==, "step 2/3");
  }

  /* Completion: full final values, one per output. */
  output = frame_output (g_ptr_array_index (sse->frames, 8));
  g_assert_true (frame_success (g_ptr_array_index (sse->frames, 8)));
  g_assert_false (json_object_get_boolean_member (output, "is_generating"));
  g_assert_true (json_object_has_member (output, "duration"));
  g_assert_true (json_object_has_member (output, "average_duration"));
  values = json_object_get_array_member (output, "data");
  g_assert_cmpuint (json_array_get_length (values), ==, 2);
  g_assert_cmpstr (json_array_get_string_element (values, 1), ==, "step 3/3");
  file = json_array_get_object_element (values, 0);
  g_assert_cmpstr (json_object_get_string_member (json_object_get_object_member (file, "meta"),
                                                  "_type"), ==, "gradio.FileData");
  g_assert_cmpstr (json_object_get_string_member (file, "mime_type"), ==, "image/png");
  g_assert_cmpstr (json_object_get_string_member (file, "orig_name"), ==, "image.png");
  g_assert_false (json_object_get_boolean_member (file, "is_stream"));
  path = json_object_get_string_member (file, "path");
  g_assert_true (g_str_has_prefix (path, riv_server_get_temp_dir (f->server)));
  g_assert_true (g_str_has_suffix (json_object_get_string_member (file, "url"), path));

  /* /file= serves it, as a PNG; HEAD too. */
  reply = http_get (f, url_path (json_object_get_string_member (file, "url"), f));
  assert_png_reply (reply);
  g_assert_cmpint (json_object_get_int_member (file, "size"), ==, g_bytes_get_size (reply->body));
  g_clear_pointer (&reply, reply_free);
  reply = http_full (f, "HEAD", url_path (json_object_get_string_member (file, "url"), f),
                     NULL, NULL, NULL);
  g_assert_cmpuint (reply->status, ==, 200);
  g_assert_cmpint (soup_message_headers_get_content_length (reply->headers), ==,
                   json_object_get_int_member (file, "size"));

  mine = frames_of (sse->frames, id);
  g_assert_cmpuint (mine->len, ==, G_N_ELEMENTS (expected) - 1);
}

static void
test_stream_text (Fixture       *f,
                  gconstpointer  data)
{
  g_autofree char *id = NULL;
  g_autoptr(GString) text = g_string_new (NULL);
  JsonNode *done;
  guint generating = 0;
  Sse *sse;

  start (f, NULL);
  id = join (f, 1, "[\"a quiet river\", 20, 0]", "st");
  sse = sse_open (f, "st");
  sse_wait_eof (sse);

  for (guint i = 0; i < sse->frames->len; i++)
    {
      JsonNode *frame = g_ptr_array_index (sse->frames, i);
      JsonArray *values;

      if (!g_str_equal (frame_msg (frame), "process_generating"))
        continue;
      values = json_object_get_array_member (frame_output (frame), "data");
      g_assert_cmpuint (json_array_get_length (values), ==, 1);
      if (generating++ == 0)
        g_string_assign (text, json_array_get_string_element (values, 0));
      else
        {
          JsonArray *edits = json_array_get_array_element (values, 0);

          g_assert_cmpstr (json_array_get_string_element (json_array_get_array_element (edits, 0),
                                                          0), ==, "append");
          apply_text_edits (text, json_array_get_element (values, 0));
        }
    }
  g_assert_cmpuint (generating, ==, 20);

  done = completion_of (sse->frames, id);
  g_assert_cmpstr (output_string (done, 0),
                   ==, text->str);
  {
    g_auto(GStrv) words = g_strsplit (text->str, " ", -1);
    g_assert_cmpuint (g_strv_length (words), ==, 20);
  }
  g_assert_cmpstr (last_msg (sse->frames), ==, "close_stream");
}

/* light: for very long runs, count the yields instead of parsing each one
 * (the full check runs on the shorter ones). */
static void
check_rapid (Fixture  *f,
             guint     count,
             gboolean  light)
{
  g_autofree char *hash = g_strdup_printf ("rapid%u", count);
  g_autofree char *data = g_strdup_printf ("[%u]", count);
  g_autofree char *id = join (f, 3, data, hash);
  g_autoptr(GString) expected = g_string_new (NULL);
  g_autoptr(GString) text = g_string_new (NULL);
  guint generating = 0;
  JsonNode *done;
  Sse *sse;

  for (guint i = 1; i <= count; i++)
    g_string_append_printf (expected, i == 1 ? "%u" : "\n%u", i);

  sse = sse_open (f, hash);
  sse->light = light;
  sse_wait_eof (sse);

  generating = streamed_text (sse->frames, text);
  if (light)
    g_assert_cmpuint (sse->n_light, ==, count);
  else
    {
      g_assert_cmpuint (generating, ==, count);
      g_assert_true (g_string_equal (text, expected));
    }

  done = completion_of (sse->frames, id);
  g_assert_cmpstr (output_string (done, 0),
                   ==, expected->str);
  g_assert_cmpstr (last_msg (sse->frames), ==, "close_stream");
  sse_drop (sse);
}

static void
test_rapid_generation (Fixture       *f,
                       gconstpointer  data)
{
  /* No heartbeat to wake a stream that stopped moving. */
  start (f, "heartbeat-interval", 3600.0, NULL);
  check_rapid (f, 0, FALSE);
  check_rapid (f, 3, FALSE);
  check_rapid (f, 5000, FALSE);
  check_rapid (f, 100000, TRUE);
}

/* Burst of joins */

typedef struct
{
  Fixture    *f;
  GPtrArray  *ids;       /* char *, index = submission order */
  guint       replies;
  guint       failures;
  GHashTable *text_of;   /* event id → expected text (borrowed keys) */
} Burst;

typedef struct
{
  Burst       *burst;
  SoupMessage *msg;
  guint        index;
} BurstJoin;

static void
burst_join_cb (GObject      *object,
               GAsyncResult *result,
               gpointer      user_data)
{
  BurstJoin *bj = user_data;
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonParser) parser = json_parser_new ();
  g_autoptr(GBytes) body = NULL;

  body = soup_session_send_and_read_finish (SOUP_SESSION (object), result, &error);

  bj->burst->replies++;
  if (body == NULL)
    g_test_message ("join %u: %s", bj->index, error->message);
  else if (soup_message_get_status (bj->msg) != 200)
    g_test_message ("join %u: HTTP %u", bj->index, soup_message_get_status (bj->msg));
  if (body == NULL || soup_message_get_status (bj->msg) != 200 ||
      !json_parser_load_from_data (parser, g_bytes_get_data (body, NULL), g_bytes_get_size (body),
                                   NULL))
    bj->burst->failures++;
  else
    {
      JsonObject *reply = json_node_get_object (json_parser_get_root (parser));
      const char *id = json_object_get_string_member (reply, "event_id");
      g_ptr_array_index (bj->burst->ids, bj->index) = g_strdup (id);
    }
  g_object_unref (bj->msg);
  g_free (bj);
}

static gboolean
burst_replied (gpointer data)
{
  Burst *burst = data;

  return burst->replies == burst->ids->len;
}

/* Sends n joins at once ("%u" in body_format becomes the index) and waits
 * for every reply; returns the event ids in submission order. */
static GPtrArray *
join_burst (Fixture    *f,
            guint       n,
            const char *body_format)
{
  Burst burst = { f, g_ptr_array_new_full (n, g_free), 0, 0, NULL };

  g_ptr_array_set_size (burst.ids, n);
  for (guint i = 0; i < n; i++)
    {
      BurstJoin *bj = g_new0 (BurstJoin, 1);
      g_autoptr(GString) body = g_string_new (body_format);
      char index[16];

      g_snprintf (index, sizeof index, "%u", i);
      g_string_replace (body, "%u", index, 0);
      g_autoptr(GBytes) bytes = g_bytes_new (body->str, body->len);

      bj->burst = &burst;
      bj->index = i;
      bj->msg = new_message (f, "POST", "/gradio_api/queue/join");
      soup_message_set_request_body_from_bytes (bj->msg, "application/json", bytes);
      soup_session_send_and_read_async (f->session, bj->msg, G_PRIORITY_DEFAULT, NULL,
                                        burst_join_cb, bj);
    }
  g_assert_true (riv_test_wait_until (burst_replied, &burst, WAIT_S));
  g_assert_cmpuint (burst.failures, ==, 0);
  return burst.ids;
}

static void
test_batch_burst (Fixture       *f,
                  gconstpointer  data)
{
  const guint n = 200;
  g_autoptr(GPtrArray) ids = NULL;
  g_autoptr(GHashTable) batches = g_hash_table_new_full (g_int64_hash, g_int64_equal, g_free,
                                                         (GDestroyNotify) g_hash_table_unref);
  g_autoptr(GPtrArray) all = g_ptr_array_new ();
  gint64 max_size = 0;
  guint opened = 0;

  /* One slot: the first event runs alone, the rest queue up into batches. */
  start (f, "concurrency", 1, "close-linger", 0.2, NULL);
  ids = join_burst (f, n, "{\"data\":[\"item-%u\",0.05],\"fn_index\":2,"
                          "\"session_hash\":\"burst\"}");

  /* Read like a correct client: reopen after close_stream while anything is
   * still incomplete. */
  while (TRUE)
    {
      Sse *sse = sse_open (f, "burst");
      guint complete = 0;

      opened++;
      sse_wait_eof (sse);
      g_assert_cmpstr (last_msg (sse->frames), ==, "close_stream");
      for (guint i = 0; i < sse->frames->len; i++)
        g_ptr_array_add (all, g_ptr_array_index (sse->frames, i));
      complete = count_frames (all, "process_completed", NULL);
      if (complete >= n)
        break;
      g_assert_cmpuint (opened, <, 50);
    }

  for (guint i = 0; i < n; i++)
    {
      const char *id = g_ptr_array_index (ids, i);
      g_autofree char *text = g_strdup_printf ("item-%u", i);
      JsonNode *done = completion_of (all, id);
      JsonObject *obj = json_node_get_object (done);
      JsonObject *batch = json_object_get_object_member (obj, "batch");
      gint64 batch_id, size, index;
      GHashTable *members;

      g_assert_true (json_object_get_boolean_member (obj, "success"));
      g_assert_cmpstr (output_string (done, 0),
                       ==, text);
      g_assert_nonnull (batch);
      batch_id = json_object_get_int_member (batch, "id");
      size = json_object_get_int_member (batch, "size");
      index = json_object_get_int_member (batch, "index");
      g_assert_cmpint (size, >=, 1);
      g_assert_cmpint (size, <=, 16);
      g_assert_cmpint (index, >=, 0);
      g_assert_cmpint (index, <, size);
      max_size = MAX (max_size, size);

      members = g_hash_table_lookup (batches, &batch_id);
      if (members == NULL)
        {
          members = g_hash_table_new (NULL, NULL);
          g_hash_table_insert (batches, g_memdup2 (&batch_id, sizeof batch_id), members);
          g_hash_table_insert (members, GINT_TO_POINTER (0), GINT_TO_POINTER ((int) size));
        }
      /* Same size for every member; each index once. */
      g_assert_cmpint (GPOINTER_TO_INT (g_hash_table_lookup (members, GINT_TO_POINTER (0))),
                       ==, size);
      g_assert_false (g_hash_table_contains (members, GINT_TO_POINTER ((int) index + 1)));
      g_hash_table_add (members, GINT_TO_POINTER ((int) index + 1));

      /* process_starts carries the same batch. */
      {
        g_autoptr(GPtrArray) mine = frames_of (all, id);
        JsonNode *starts = NULL;

        for (guint k = 0; k < mine->len; k++)
          if (g_str_equal (frame_msg (g_ptr_array_index (mine, k)), "process_starts"))
            starts = g_ptr_array_index (mine, k);
        g_assert_nonnull (starts);
        JsonObject *starts_batch = json_object_get_object_member (json_node_get_object (starts),
                                                                  "batch");

        g_assert_cmpint (json_object_get_int_member (starts_batch, "id"), ==, batch_id);
        g_assert_cmpstr (last_msg (mine), ==, "process_completed");
      }
    }

  /* Every batch was seen whole. */
  {
    GHashTableIter iter;
    gpointer value;

    g_hash_table_iter_init (&iter, batches);
    while (g_hash_table_iter_next (&iter, NULL, &value))
      {
        GHashTable *members = value;
        g_assert_cmpuint (g_hash_table_size (members) - 1, ==,
                          GPOINTER_TO_INT (g_hash_table_lookup (members, GINT_TO_POINTER (0))));
      }
  }
  g_assert_cmpint (max_size, >, 1);
  g_assert_cmpuint (f->batch_sizes, ==, n);
  g_assert_cmpuint (f->batch_total, ==, n);
  g_assert_cmpuint (f->n_batches, ==, g_hash_table_size (batches));
  g_assert_cmpuint (riv_server_get_n_pending (f->server), ==, 0);
  g_test_message ("%u batches for %u events, largest %" G_GINT64_FORMAT ", %u stream(s)",
                  f->n_batches, n, max_size, opened);
}

static void
test_files (Fixture       *f,
            gconstpointer  data)
{
  static const char content[] = "\x89PNG\r\n\x1a\nnot really";
  g_autofree char *id = NULL;
  g_autofree char *inside = NULL;
  g_autofree char *encoded = NULL;
  g_autofree char *upload_path = NULL;
  g_autofree char *outside = NULL;
  g_autoptr(Reply) reply = NULL;
  g_autoptr(JsonNode) detail = NULL;
  g_autoptr(JsonNode) root = NULL;
  Sse *sse;

  start (f, NULL);
  id = join (f, 0, "[1, 0]", "files");
  sse = sse_open (f, "files");
  sse_wait_eof (sse);

  /* Not made by the server: 403 JSON, whatever the spelling. */
  reply = http_get (f, "/gradio_api/file=/etc/passwd");
  detail = assert_error_reply (reply, 403);
  g_clear_pointer (&reply, reply_free);
  g_clear_pointer (&detail, json_node_unref);

  encoded = g_strdup_printf ("/gradio_api/file=%s/outputs/..%%2F..%%2F..%%2F..%%2Fetc%%2Fpasswd",
                             riv_server_get_temp_dir (f->server));
  reply = http_get (f, encoded);
  detail = assert_error_reply (reply, 403);
  g_clear_pointer (&reply, reply_free);
  g_clear_pointer (&detail, json_node_unref);

  inside = g_strdup_printf ("/gradio_api/file=%s/outputs/unknown.png",
                            riv_server_get_temp_dir (f->server));
  reply = http_get (f, inside);
  detail = assert_error_reply (reply, 403);
  g_clear_pointer (&reply, reply_free);
  g_clear_pointer (&detail, json_node_unref);

  /* A file planted in the private directory is not served either. */
  outside = g_build_filename (riv_server_get_temp_dir (f->server), "outputs", "planted.png", NULL);
  g_assert_true (g_file_set_contents (outside, "x", 1, NULL));
  g_free (inside);
  inside = g_strdup_printf ("/gradio_api/file=%s", outside);
  reply = http_get (f, inside);
  detail = assert_error_reply (reply, 403);
  g_clear_pointer (&reply, reply_free);
  g_clear_pointer (&detail, json_node_unref);

  /* Uploads are stored privately and then served. */
  {
    g_autoptr(SoupMultipart) multipart = soup_multipart_new ("multipart/form-data");
    g_autoptr(GBytes) part = g_bytes_new_static (content, sizeof content - 1);
    g_autoptr(SoupMessageHeaders) headers = soup_message_headers_new (SOUP_MESSAGE_HEADERS_REQUEST);
    g_autoptr(GBytes) body = NULL;
    g_autofree char *path = NULL;

    soup_multipart_append_form_file (multipart, "files", "../../cat.png", "image/png", part);
    soup_multipart_to_message (multipart, headers, &body);
    reply = http_full (f, "POST", "/gradio_api/upload",
                       soup_message_headers_get_one (headers, "Content-Type"), body, NULL);
    g_assert_cmpuint (reply->status, ==, 200);
    root = reply_json (reply);
    g_assert_cmpuint (json_array_get_length (json_node_get_array (root)), ==, 1);
    upload_path = g_strdup (json_array_get_string_element (json_node_get_array (root), 0));
    g_assert_true (g_str_has_prefix (upload_path, riv_server_get_temp_dir (f->server)));
    g_assert_true (g_str_has_suffix (upload_path, "/cat.png"));
    g_assert_null (strstr (upload_path, ".."));
    g_clear_pointer (&reply, reply_free);

    path = g_strdup_printf ("/gradio_api/file=%s", upload_path);
    reply = http_get (f, path);
    assert_png_reply (reply);
    g_assert_cmpmem (g_bytes_get_data (reply->body, NULL), g_bytes_get_size (reply->body),
                     content, sizeof content - 1);
    g_clear_pointer (&reply, reply_free);

    /* Replaced by a symlink behind the server's back: refused. */
    g_assert_cmpint (g_unlink (upload_path), ==, 0);
    g_assert_cmpint (symlink ("/etc/passwd", upload_path), ==, 0);
    reply = http_get (f, path);
    g_assert_cmpuint (reply->status, !=, 200);
    detail = assert_error_reply (reply, reply->status);
    g_clear_pointer (&reply, reply_free);
    g_clear_pointer (&detail, json_node_unref);
  }

  /* Still serving. */
  reply = http_get (f, "/config");
  g_assert_cmpuint (reply->status, ==, 200);
}

static void
test_files_bounded (Fixture       *f,
                    gconstpointer  data)
{
  g_autofree char *id = NULL;
  g_autoptr(Reply) reply = NULL;
  JsonObject *first = NULL, *last;
  JsonNode *done;
  Sse *sse;

  start (f, "max-files", 3, NULL);
  id = join (f, 0, "[8, 0]", "bounded");
  sse = sse_open (f, "bounded");
  sse_wait_eof (sse);

  for (guint i = 0; i < sse->frames->len && first == NULL; i++)
    if (g_str_equal (frame_msg (g_ptr_array_index (sse->frames, i)), "process_generating"))
      first = json_array_get_object_element (
        json_object_get_array_member (frame_output (g_ptr_array_index (sse->frames, i)), "data"),
        0);
  g_assert_nonnull (first);
  done = completion_of (sse->frames, id);
  last = json_array_get_object_element (json_object_get_array_member (frame_output (done), "data"),
                                        0);

  /* Eight images were written; at most three are kept, the newest. */
  g_assert_cmpuint (riv_server_get_n_files (f->server), <=, 3);
  reply = http_get (f, url_path (json_object_get_string_member (last, "url"), f));
  assert_png_reply (reply);
  g_clear_pointer (&reply, reply_free);
  reply = http_get (f, url_path (json_object_get_string_member (first, "url"), f));
  g_assert_cmpuint (reply->status, ==, 403);
  g_clear_pointer (&reply, reply_free);

  /* And deleted from disk (the deletion runs off the main loop). */
  {
    const char *path = json_object_get_string_member (first, "path");
    for (guint i = 0; i < 200 && g_file_test (path, G_FILE_TEST_EXISTS); i++)
      sleep_loop (0.01);
    g_assert_false (g_file_test (path, G_FILE_TEST_EXISTS));
  }
}

/* Uploads n_parts copies of content named name, for session (nullable: none
 * named); the status, and the first path stored in *path when 200. */
static guint
upload_parts (Fixture     *f,
              const char  *session,
              const char  *name,
              GBytes      *content,
              guint        n_parts,
              char       **path)
{
  g_autoptr(SoupMultipart) multipart = soup_multipart_new ("multipart/form-data");
  g_autoptr(SoupMessageHeaders) headers = soup_message_headers_new (SOUP_MESSAGE_HEADERS_REQUEST);
  g_autoptr(GBytes) body = NULL;
  g_autoptr(Reply) reply = NULL;
  g_autoptr(JsonNode) root = NULL;
  g_autofree char *route = session != NULL
                           ? g_strdup_printf ("/gradio_api/upload?session_hash=%s", session)
                           : g_strdup ("/gradio_api/upload");

  for (guint i = 0; i < n_parts; i++)
    soup_multipart_append_form_file (multipart, "files", name, "application/octet-stream",
                                     content);
  soup_multipart_to_message (multipart, headers, &body);
  reply = http_full (f, "POST", route,
                     soup_message_headers_get_one (headers, "Content-Type"), body, NULL);
  if (reply->status != 200)
    return reply->status;
  root = reply_json (reply);
  g_assert_cmpuint (json_array_get_length (json_node_get_array (root)), ==, n_parts);
  *path = g_strdup (json_array_get_string_element (json_node_get_array (root), 0));
  return reply->status;
}

static char *
upload (Fixture    *f,
        const char *name,
        GBytes     *content)
{
  char *path = NULL;

  g_assert_cmpuint (upload_parts (f, NULL, name, content, 1, &path), ==, 200);
  return path;
}

static void
test_files_bytes (Fixture       *f,
                  gconstpointer  data)
{
  g_autofree guint8 *buf = g_malloc0 (800);
  g_autoptr(GBytes) a = NULL, b = NULL;
  g_autofree char *path_a = NULL, *path_b = NULL, *get_a = NULL, *get_b = NULL;
  g_autoptr(Reply) reply = NULL;

  start (f, "max-session-upload-bytes", (guint64) 1024, NULL);
  buf[0] = 'a';
  a = g_bytes_new (buf, 800);
  buf[0] = 'b';
  b = g_bytes_new (buf, 800);
  path_a = upload (f, "a.bin", a);
  path_b = upload (f, "b.bin", b);
  get_a = g_strdup_printf ("/gradio_api/file=%s", path_a);
  get_b = g_strdup_printf ("/gradio_api/file=%s", path_b);

  /* 1600 bytes do not fit in one session's 1024: its older file went. */
  g_assert_cmpuint (riv_server_get_n_files (f->server), ==, 1);
  reply = http_get (f, get_a);
  g_assert_cmpuint (reply->status, ==, 403);
  g_clear_pointer (&reply, reply_free);
  reply = http_get (f, get_b);
  g_assert_cmpuint (reply->status, ==, 200);
  g_assert_cmpstr (soup_message_headers_get_one (reply->headers, "Content-Disposition"),
                   ==, "attachment");
  g_assert_true (g_bytes_equal (reply->body, b));
}

static void
assert_cancelled (GPtrArray  *frames,
                  const char *id,
                  guint       n_outputs)
{
  JsonNode *done = completion_of (frames, id);
  JsonObject *output = frame_output (done);
  JsonArray *values = json_object_get_array_member (output, "data");

  g_assert_true (json_object_get_boolean_member (json_node_get_object (done), "success"));
  g_assert_true (json_object_get_boolean_member (output, "cancelled"));
  g_assert_cmpuint (json_array_get_length (values), ==, n_outputs);
  for (guint i = 0; i < n_outputs; i++)
    g_assert_true (JSON_NODE_HOLDS_NULL (json_array_get_element (values, i)));
}

static void
test_cancel (Fixture       *f,
             gconstpointer  data)
{
  g_autofree char *running = NULL;
  g_autofree char *waiting = NULL;
  g_autofree char *body = NULL;
  g_autoptr(Reply) reply = NULL;
  g_autoptr(JsonNode) detail = NULL;
  g_autoptr(GPtrArray) mine = NULL;
  gint64 started;
  Sse *sse;

  start (f, "concurrency", 1, NULL);
  running = join (f, 0, "[50, 0.1]", "cancel");   /* five seconds if not stopped */
  sse = sse_open (f, "cancel");
  sse_wait_msg (sse, "process_generating", running, 1);
  waiting = join (f, 0, "[2, 0]", "cancel");
  sse_wait_msg (sse, "estimation", waiting, 1);

  /* Missing fields: 422. */
  reply = http_post (f, "/gradio_api/cancel", "{\"event_id\":\"x\"}");
  detail = assert_error_reply (reply, 422);
  g_clear_pointer (&reply, reply_free);
  g_clear_pointer (&detail, json_node_unref);

  /* Another session cannot cancel it. */
  body = g_strdup_printf ("{\"event_id\":\"%s\",\"session_hash\":\"intruder\","
                          "\"fn_index\":0}", waiting);
  reply = http_post (f, "/gradio_api/cancel", body);
  g_assert_cmpuint (reply->status, ==, 200);
  g_clear_pointer (&reply, reply_free);
  g_free (body);

  /* The waiting one. */
  body = g_strdup_printf ("{\"event_id\":\"%s\",\"session_hash\":\"cancel\","
                          "\"fn_index\":0}", waiting);
  reply = http_post (f, "/gradio_api/cancel", body);
  g_assert_cmpuint (reply->status, ==, 200);
  g_clear_pointer (&reply, reply_free);
  g_free (body);
  sse_wait_msg (sse, "process_completed", waiting, 1);
  assert_cancelled (sse->frames, waiting, 2);
  g_assert_cmpuint (count_frames (sse->frames, "process_starts", waiting), ==, 0);

  /* The running one stops at its next step. */
  started = g_get_monotonic_time ();
  body = g_strdup_printf ("{\"event_id\":\"%s\",\"session_hash\":\"cancel\","
                          "\"fn_index\":0}", running);
  reply = http_post (f, "/gradio_api/cancel", body);
  g_assert_cmpuint (reply->status, ==, 200);
  g_clear_pointer (&reply, reply_free);
  sse_wait_eof (sse);
  assert_cancelled (sse->frames, running, 2);
  /* Hang guard only: five seconds of steps were left. */
  g_assert_cmpint (g_get_monotonic_time () - started, <, 4 * G_USEC_PER_SEC);

  /* Nothing after the completion for that id, and the stream closed cleanly. */
  mine = frames_of (sse->frames, running);
  g_assert_cmpstr (last_msg (mine), ==, "process_completed");
  g_assert_cmpstr (last_msg (sse->frames), ==, "close_stream");

  /* A second cancel is a no-op; no second completion shows up later. */
  reply = http_post (f, "/gradio_api/cancel", body);
  g_assert_cmpuint (reply->status, ==, 200);
  g_clear_pointer (&reply, reply_free);
  sleep_loop (0.3);
  sse = sse_open (f, "cancel");
  sse_wait_eof (sse);
  g_assert_cmpuint (count_frames (sse->frames, "process_completed", NULL), ==, 0);
  g_assert_cmpuint (riv_server_get_n_pending (f->server), ==, 0);
}

static void
test_queue_full (Fixture       *f,
                 gconstpointer  data)
{
  g_autofree char *a = NULL, *b = NULL, *c = NULL, *d = NULL, *e = NULL, *body = NULL;
  g_autoptr(Reply) reply = NULL;
  g_autoptr(JsonNode) detail = NULL;
  Sse *sse;

  start (f, "concurrency", 1, "max-queue", 2, NULL);
  a = join (f, 0, "[50, 0.1]", "full");
  sse = sse_open (f, "full");
  sse_wait_msg (sse, "process_starts", a, 1);
  /* Running events do not count, only waiting ones. */
  b = join (f, 1, "[\"x\", 40, 0.1]", "full");
  sse_wait_msg (sse, "process_starts", b, 1);
  c = join (f, 0, "[1, 0]", "full");
  d = join (f, 1, "[\"y\", 1, 0]", "full");

  reply = http_post (f, "/gradio_api/queue/join",
                     "{\"data\":[1,0],\"fn_index\":0,\"session_hash\":\"other\"}");
  detail = assert_error_reply (reply, 503);
  g_assert_cmpstr (json_node_get_string (detail),
                   ==, "Queue is full. Max size is 2 and size is 2.");
  g_clear_pointer (&reply, reply_free);
  g_clear_pointer (&detail, json_node_unref);

  /* A free place is taken again at once. */
  body = g_strdup_printf ("{\"event_id\":\"%s\",\"session_hash\":\"full\",\"fn_index\":0}", c);
  reply = http_post (f, "/gradio_api/cancel", body);
  g_assert_cmpuint (reply->status, ==, 200);
  sse_wait_msg (sse, "process_completed", c, 1);
  e = join (f, 0, "[1, 0]", "other");
  g_assert_cmpuint (riv_server_get_n_pending (f->server), ==, 4);
}

static void
test_malformed (Fixture       *f,
                gconstpointer  data)
{
  static const struct { const char *body; guint status; } cases[] = {
    { "{", 400 },
    { "[1,2]", 400 },
    { "\"text\"", 400 },
    { "{\"data\":[1],\"session_hash\":\"m\"}", 400 },
    { "{\"data\":[1],\"fn_index\":null,\"session_hash\":\"m\"}", 400 },
    { "{\"data\":[1],\"fn_index\":3}", 400 },
    { "{\"data\":[1],\"fn_index\":3,\"session_hash\":7}", 400 },
    { "{\"data\":[1],\"fn_index\":42,\"session_hash\":\"m\"}", 404 },
    { "{\"data\":[1],\"fn_index\":-1,\"session_hash\":\"m\"}", 404 },
    { "{\"data\":[1],\"fn_index\":\"3\",\"session_hash\":\"m\"}", 422 },
    { "{\"fn_index\":3,\"session_hash\":\"m\"}", 422 },
    { "{\"data\":{},\"fn_index\":3,\"session_hash\":\"m\"}", 422 },
    { "{\"data\":[1,2],\"fn_index\":3,\"session_hash\":\"m\"}", 422 },
    { "{\"data\":[\"many\"],\"fn_index\":3,\"session_hash\":\"m\"}", 422 },
    { "{\"data\":[true],\"fn_index\":3,\"session_hash\":\"m\"}", 422 },
    { "{\"data\":[1.5],\"fn_index\":3,\"session_hash\":\"m\"}", 422 },
    { "{\"data\":[2000000],\"fn_index\":3,\"session_hash\":\"m\"}", 422 },
    { "{\"data\":[0,0.5],\"fn_index\":0,\"session_hash\":\"m\"}", 422 },
    { "{\"data\":[51,0.5],\"fn_index\":0,\"session_hash\":\"m\"}", 422 },
    { "{\"data\":[5,11],\"fn_index\":0,\"session_hash\":\"m\"}", 422 },
    { "{\"data\":[5,-1],\"fn_index\":0,\"session_hash\":\"m\"}", 422 },
    { "{\"data\":[3,\"fast\"],\"fn_index\":0,\"session_hash\":\"m\"}", 422 },
    { "{\"data\":[7,0.1],\"fn_index\":1,\"session_hash\":\"m\"}", 422 },
    { "{\"data\":[\"p\",100001,0],\"fn_index\":1,\"session_hash\":\"m\"}", 422 },
    { "{\"data\":[{\"a\":1},0.1],\"fn_index\":2,\"session_hash\":\"m\"}", 422 },
  };
  g_autoptr(GString) deep = g_string_new ("{\"data\":");
  g_autoptr(GString) huge = g_string_new ("{\"data\":[\"");
  g_autoptr(Reply) reply = NULL;
  g_autoptr(JsonNode) detail = NULL;
  g_autofree char *id = NULL;
  Sse *sse;

  start (f, "max-body", 65536, NULL);

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_test_message ("case %u: %s", i, cases[i].body);
      reply = http_post (f, "/gradio_api/queue/join", cases[i].body);
      detail = assert_error_reply (reply, cases[i].status);
      if (cases[i].status == 422)
        {
          JsonObject *first;

          g_assert_true (JSON_NODE_HOLDS_ARRAY (detail));
          first = json_array_get_object_element (json_node_get_array (detail), 0);
          g_assert_false (json_object_get_boolean_member (first, "is_valid"));
          g_assert_nonnull (json_object_get_string_member (first, "message"));
        }
      g_clear_pointer (&reply, reply_free);
      g_clear_pointer (&detail, json_node_unref);
    }

  /* Deep nesting is refused before it is parsed. */
  for (guint i = 0; i < 5000; i++)
    g_string_append_c (deep, '[');
  for (guint i = 0; i < 5000; i++)
    g_string_append_c (deep, ']');
  g_string_append (deep, ",\"fn_index\":3,\"session_hash\":\"m\"}");
  reply = http_post (f, "/gradio_api/queue/join", deep->str);
  detail = assert_error_reply (reply, 400);
  g_clear_pointer (&reply, reply_free);
  g_clear_pointer (&detail, json_node_unref);

  /* A body over the limit: 413, with Content-Length and chunked. */
  for (guint i = 0; i < 200000; i++)
    g_string_append_c (huge, 'x');
  g_string_append (huge, "\",0],\"fn_index\":2,\"session_hash\":\"m\"}");
  reply = http_post (f, "/gradio_api/queue/join", huge->str);
  detail = assert_error_reply (reply, 413);
  g_clear_pointer (&reply, reply_free);
  g_clear_pointer (&detail, json_node_unref);
  {
    g_autoptr(SoupMessage) msg = new_message (f, "POST", "/gradio_api/queue/join");
    g_autoptr(GInputStream) in = g_memory_input_stream_new_from_data (huge->str, huge->len, NULL);
    g_autoptr(GAsyncResult) result = NULL;
    g_autoptr(GBytes) body = NULL;
    g_autoptr(GError) error = NULL;

    soup_message_set_request_body (msg, "application/json", in, -1);
    soup_session_send_and_read_async (f->session, msg, G_PRIORITY_DEFAULT, NULL,
                                      riv_test_async_result_cb, &result);
    riv_test_wait_result (&result, WAIT_S);
    body = soup_session_send_and_read_finish (f->session, result, &error);
    /* The server may close before reading everything; either way no 200. */
    if (body != NULL)
      g_assert_cmpuint (soup_message_get_status (msg), ==, 413);
  }

  /* Cancel with a bad body. */
  reply = http_post (f, "/gradio_api/cancel", "not json");
  detail = assert_error_reply (reply, 400);
  g_clear_pointer (&reply, reply_free);
  g_clear_pointer (&detail, json_node_unref);

  /* Nothing of the above left a trace, and the server still works. */
  g_assert_cmpuint (riv_server_get_n_pending (f->server), ==, 0);
  id = join (f, 3, "[2]", "m");
  sse = sse_open (f, "m");
  sse_wait_eof (sse);
  g_assert_true (frame_success (completion_of (sse->frames, id)));
}

static void
test_unknown_session (Fixture       *f,
                      gconstpointer  data)
{
  Sse *sse;
  JsonObject *error;

  start (f, NULL);
  sse = sse_open (f, "never-joined");
  sse_wait_eof (sse);
  g_assert_cmpuint (sse->frames->len, ==, 2);
  g_assert_cmpstr (frame_msg (g_ptr_array_index (sse->frames, 0)), ==, "unexpected_error");
  error = json_node_get_object (g_ptr_array_index (sse->frames, 0));
  g_assert_true (json_object_get_boolean_member (error, "session_not_found"));
  g_assert_false (json_object_get_boolean_member (error, "success"));
  g_assert_null (frame_event (g_ptr_array_index (sse->frames, 0)));
  g_assert_cmpstr (frame_msg (g_ptr_array_index (sse->frames, 1)), ==, "close_stream");

  /* Without session_hash: 422 and FastAPI's "missing" entry, as Gradio answers
   * (a client sees a failed request, not a stream). */
  for (guint i = 0; i < 2; i++)
    {
      const char *path = i == 0 ? "/gradio_api/queue/data" : "/gradio_api/queue/data?other=1";
      g_autoptr(Reply) reply = http_get (f, path);
      g_autoptr(JsonNode) detail = assert_error_reply (reply, 422);
      JsonObject *missing;
      JsonArray *loc;

      g_assert_true (JSON_NODE_HOLDS_ARRAY (detail));
      g_assert_cmpuint (json_array_get_length (json_node_get_array (detail)), ==, 1);
      missing = json_array_get_object_element (json_node_get_array (detail), 0);
      g_assert_cmpstr (json_object_get_string_member (missing, "type"), ==, "missing");
      g_assert_cmpstr (json_object_get_string_member (missing, "msg"), ==, "Field required");
      g_assert_true (json_object_get_null_member (missing, "input"));
      loc = json_object_get_array_member (missing, "loc");
      g_assert_cmpuint (json_array_get_length (loc), ==, 2);
      g_assert_cmpstr (json_array_get_string_element (loc, 0), ==, "query");
      g_assert_cmpstr (json_array_get_string_element (loc, 1), ==, "session_hash");
    }

  /* An empty session_hash is a value: a stream that names no session. */
  sse = sse_open_path (f, "/gradio_api/queue/data?session_hash=");
  sse_wait_eof (sse);
  g_assert_cmpuint (sse->frames->len, ==, 2);
  g_assert_cmpstr (frame_msg (g_ptr_array_index (sse->frames, 0)), ==, "unexpected_error");
  g_assert_cmpstr (frame_msg (g_ptr_array_index (sse->frames, 1)), ==, "close_stream");
}

static void
test_interleave (Fixture       *f,
                 gconstpointer  data)
{
  const guint n = 8;
  g_autofree char *single_id = NULL;
  g_autoptr(GPtrArray) ids = NULL;
  g_autoptr(GHashTable) first = g_hash_table_new (g_str_hash, g_str_equal);
  g_autoptr(GHashTable) last = g_hash_table_new (g_str_hash, g_str_equal);
  gint64 t0, single, together;
  guint latest_first = 0, earliest_last = G_MAXUINT, k = 0;
  Sse *sse;

  start (f, "close-linger", 0.05, NULL);

  t0 = g_get_monotonic_time ();
  single_id = join (f, 1, "[\"x\", 5, 0.4]", "one");
  sse = sse_open (f, "one");
  sse_wait_eof (sse);
  single = g_get_monotonic_time () - t0;

  t0 = g_get_monotonic_time ();
  ids = join_burst (f, n, "{\"data\":[\"x\",5,0.4],\"fn_index\":1,\"session_hash\":\"many\"}");
  sse = sse_open (f, "many");
  sse_wait_eof (sse);
  together = g_get_monotonic_time () - t0;

  /* One session: frame order on the stream is the order the server
   * produced the yields in. */
  for (guint i = 0; i < sse->frames->len; i++)
    {
      JsonNode *frame = g_ptr_array_index (sse->frames, i);
      const char *id = frame_event (frame);

      if (!g_str_equal (frame_msg (frame), "process_generating"))
        continue;
      k++;
      if (!g_hash_table_contains (first, id))
        g_hash_table_insert (first, (char *) id, GUINT_TO_POINTER (k));
      g_hash_table_insert (last, (char *) id, GUINT_TO_POINTER (k));
    }
  g_assert_cmpuint (k, ==, 5 * n);
  g_assert_cmpuint (g_hash_table_size (first), ==, n);
  for (guint i = 0; i < n; i++)
    {
      const char *id = g_ptr_array_index (ids, i);

      latest_first = MAX (latest_first, GPOINTER_TO_UINT (g_hash_table_lookup (first, id)));
      earliest_last = MIN (earliest_last, GPOINTER_TO_UINT (g_hash_table_lookup (last, id)));
      g_assert_true (frame_success (completion_of (sse->frames, id)));
    }

  /* Interleaved: every job yielded before any job yielded its last step.
   * Steps are cheap text tokens 0.4 s apart (not PNGs, whose encoding under
   * valgrind took as long as a step), so the eight jobs have 1.6 s to all
   * start: a server that ran them in series would fail by 0.4 s per job.
   * That is the property; how much faster together is than in series is a
   * timing claim, measured by `make bench` (server scaling), not here. */
  g_assert_cmpuint (latest_first, <, earliest_last);
  g_test_message ("one job %.2f s, %u jobs together %.2f s", single / 1e6, n, together / 1e6);
}

static void
test_linger (Fixture       *f,
             gconstpointer  data)
{
  g_autofree char *one = NULL, *two = NULL;
  guint done_one = 0, done_two = 0, close_at = 0;
  Sse *sse;

  start (f, "close-linger", 0.5, NULL);
  one = join (f, 2, "[\"first\", 0]", "linger");
  sse = sse_open (f, "linger");
  sse_wait_msg (sse, "process_completed", one, 1);
  /* Inside the linger window: the same stream carries the next job, which
   * outlasts the window (the first job's timer must not close it). */
  two = join (f, 2, "[\"second\", 0.8]", "linger");
  sse_wait_eof (sse);

  for (guint i = 0; i < sse->frames->len; i++)
    {
      JsonNode *frame = g_ptr_array_index (sse->frames, i);

      if (g_str_equal (frame_msg (frame), "close_stream"))
        {
          g_assert_cmpuint (close_at, ==, 0);
          close_at = i + 1;
        }
      else if (g_str_equal (frame_msg (frame), "process_completed"))
        {
          if (g_strcmp0 (frame_event (frame), one) == 0)
            done_one = i + 1;
          else if (g_strcmp0 (frame_event (frame), two) == 0)
            done_two = i + 1;
        }
    }
  g_assert_cmpuint (done_one, >, 0);
  g_assert_cmpuint (done_two, >, done_one);
  g_assert_cmpuint (close_at, ==, sse->frames->len);
}

static void
test_buffer_across_connections (Fixture       *f,
                                gconstpointer  data)
{
  g_autofree char *id = NULL;
  g_autofree char *slow = NULL;
  static const char * const expected[] = { "estimation", "process_starts", "process_completed" };
  Sse *sse;
  guint before;

  start (f, "close-linger", 0.05, NULL);

  /* Frames produced before any stream is open wait in the session. */
  id = join (f, 2, "[\"kept\", 0]", "later");
  sleep_loop (0.3);
  sse = sse_open (f, "later");
  sse_wait_eof (sse);
  g_assert_cmpuint (sse->frames->len, ==, G_N_ELEMENTS (expected) + 1);
  for (guint i = 0; i < G_N_ELEMENTS (expected); i++)
    g_assert_cmpstr (frame_msg (g_ptr_array_index (sse->frames, i)), ==, expected[i]);

  /* A client that drops its connection mid-job gets the rest on reconnect,
   * with nothing lost or repeated. */
  slow = join (f, 1, "[\"x\", 30, 0.02]", "later");
  sse = sse_open (f, "later");
  sse_wait_msg (sse, "process_generating", slow, 3);
  before = count_frames (sse->frames, "process_generating", slow);
  sse_drop (sse);
  sleep_loop (0.2);
  sse = sse_open (f, "later");
  sse_wait_eof (sse);
  /* The dropped connection may have had frames in flight; the rest arrive once. */
  g_assert_cmpuint (count_frames (sse->frames, "process_generating", slow) + before, <=, 30);
  g_assert_cmpuint (count_frames (sse->frames, "process_completed", slow), ==, 1);
  g_assert_cmpuint (count_frames (sse->frames, "process_starts", slow), ==, 0);
}

/* A backlog many times the stream's window, all of it made before the
 * reader came: every frame reaches the reader, with nothing but the writes
 * themselves to move the rest along (no heartbeat, no new frame). */
static void
test_backlog (Fixture       *f,
              gconstpointer  data)
{
  g_autofree char *id = NULL;
  guint generating = 0;
  Sse *sse;

  start (f, "heartbeat-interval", 3600.0, NULL);
  id = join (f, 3, "[5000]", "backlog");
  sleep_loop (0.5);
  sse = sse_open (f, "backlog");
  sse_wait_eof (sse);
  for (guint i = 0; i < sse->frames->len; i++)
    generating += g_str_equal (frame_msg (g_ptr_array_index (sse->frames, i)),
                               "process_generating");
  g_assert_cmpuint (generating, ==, 5000);
  completion_of (sse->frames, id);
  g_assert_cmpstr (last_msg (sse->frames), ==, "close_stream");
}

static void
test_takeover (Fixture       *f,
               gconstpointer  data)
{
  g_autofree char *id = NULL;
  Sse *old, *new;
  guint gen_old, gen_new;

  start (f, NULL);
  id = join (f, 1, "[\"x\", 25, 0.02]", "twice");
  old = sse_open (f, "twice");
  sse_wait_msg (old, "process_generating", id, 2);
  new = sse_open (f, "twice");
  sse_wait_eof (old);
  g_assert_cmpstr (last_msg (old->frames), ==, "close_stream");
  sse_wait_eof (new);

  /* Each frame went to exactly one of them, in order. */
  gen_old = count_frames (old->frames, "process_generating", id);
  gen_new = count_frames (new->frames, "process_generating", id);
  g_assert_cmpuint (gen_old + gen_new, ==, 25);
  g_assert_cmpuint (count_frames (old->frames, "process_completed", NULL) +
                    count_frames (new->frames, "process_completed", NULL), ==, 1);
  completion_of (new->frames, id);
}

static void
test_heartbeat (Fixture       *f,
                gconstpointer  data)
{
  g_autofree char *id = NULL;
  Sse *sse, *alive;

  start (f, "heartbeat-interval", 0.05, NULL);
  id = join (f, 0, "[10, 0.05]", "beat");
  sse = sse_open (f, "beat");
  sse_wait_msg (sse, "heartbeat", NULL, 3);
  for (guint i = 0; i < sse->frames->len; i++)
    if (g_str_equal (frame_msg (g_ptr_array_index (sse->frames, i)), "heartbeat"))
      g_assert_null (frame_event (g_ptr_array_index (sse->frames, i)));

  alive = sse_open_path (f, "/gradio_api/heartbeat/beat");
  sse_wait_msg (alive, "heartbeat", NULL, 2);
  g_assert_false (alive->eof);
  sse_wait_eof (sse);
  completion_of (sse->frames, id);
}

static gboolean
sessions_at_most_3 (gpointer server)
{
  return riv_server_get_n_sessions (server) <= 3;
}

static void
test_sessions_evicted (Fixture       *f,
                       gconstpointer  data)
{
  start (f, "max-sessions", 3, "close-linger", 0.01, "session-timeout", 0.5, NULL);

  for (guint i = 0; i < 6; i++)
    {
      g_autofree char *hash = g_strdup_printf ("evict%u", i);
      g_autofree char *id = join (f, 3, "[1]", hash);
      Sse *sse = sse_open (f, hash);

      sse_wait_eof (sse);
      completion_of (sse->frames, id);
      sse_drop (sse);
    }
  g_assert_true (riv_test_wait_until (sessions_at_most_3, f->server, WAIT_S));

  /* A session that never reads is dropped after the timeout, pending jobs
   * included. */
  {
    g_autofree char *id = join (f, 0, "[50, 0.1]", "absent");
    gint64 until = g_get_monotonic_time () + 10 * G_USEC_PER_SEC;
    Sse *sse;

    g_assert_nonnull (id);
    while (riv_server_get_n_pending (f->server) > 0 && g_get_monotonic_time () < until)
      sleep_loop (0.05);
    g_assert_cmpuint (riv_server_get_n_pending (f->server), ==, 0);
    g_assert_cmpuint (riv_server_get_n_sessions (f->server), ==, 0);
    sse = sse_open (f, "absent");
    sse_wait_eof (sse);
    g_assert_cmpstr (frame_msg (g_ptr_array_index (sse->frames, 0)), ==, "unexpected_error");
  }
}

/* Job id's stream of updates: n of them, none lost or reordered: the text
 * they build is the completion's. */
static void
assert_whole_text (Sse        *sse,
                   const char *id,
                   guint       n)
{
  g_autoptr(GString) text = g_string_new (NULL);

  g_assert_cmpuint (streamed_text (sse->frames, text), ==, n);
  g_assert_cmpstr (text->str, ==,
                   json_array_get_string_element (json_object_get_array_member (
                     frame_output (completion_of (sse->frames, id)), "data"), 0));
}

static void
test_slow_reader (Fixture       *f,
                  gconstpointer  data)
{
  /* A tiny session buffer: the generator has to wait for the reader, and
   * nothing may be lost or reordered on the way. */
  start (f, "session-buffer-max", 4096, NULL);
  sleep_loop (0.01);
  {
    g_autofree char *id = join (f, 3, "[5000]", "slowpoke");
    Sse *sse;

    sleep_loop (0.3);   /* nobody reading yet */
    g_assert_cmpuint (riv_server_get_n_pending (f->server), ==, 1);
    sse = sse_open (f, "slowpoke");
    sse_wait_eof (sse);
    assert_whole_text (sse, id, 5000);
  }
}

/* A demo in steps (stream_text) waits for a reader that is behind as a
 * demo on a thread does: with nobody reading, its steps stop once the
 * session's buffer is full; read later, nothing is lost or reordered. */
static void
test_steps_reader_behind (Fixture       *f,
                          gconstpointer  data)
{
  g_autofree char *id = NULL;
  Sse *sse;

  start (f, "session-buffer-max", 4096, NULL);
  sleep_loop (0.01);
  /* 20,000 words with no wait: some 4 MB of frames, made in well under a
   * second if nothing held them back. */
  id = join (f, 1, "[\"x\", 20000, 0]", "behind");
  sleep_loop (0.5);   /* nobody reading yet */
  g_assert_cmpuint (riv_server_get_n_pending (f->server), ==, 1);
  g_assert_cmpuint (riv_server_get_buffered_bytes (f->server), <, 512 * 1024);

  sse = sse_open (f, "behind");
  sse_wait_eof (sse);
  assert_whole_text (sse, id, 20000);
}

static gboolean
no_runs (gpointer data)
{
  Fixture *f = data;

  return riv_server_get_n_running (f->server) == 0;
}

/* A demo in steps that waits between two stops as it is cancelled, and as
 * the server shuts down, not when its next step was due (10 s later). */
static void
test_steps_stop_between (Fixture       *f,
                         gconstpointer  data)
{
  g_autofree char *first = NULL, *second = NULL, *body = NULL;
  g_autoptr(Reply) reply = NULL;
  JsonNode *done;
  gint64 began;
  Sse *sse;

  start (f, NULL);
  first = join (f, 1, "[\"x\", 3, 10]", "between");
  sse = sse_open (f, "between");
  sse_wait_msg (sse, "process_starts", first, 1);

  began = g_get_monotonic_time ();
  body = g_strdup_printf ("{\"event_id\":\"%s\",\"session_hash\":\"between\","
                          "\"fn_index\":1}", first);
  reply = http_post (f, "/gradio_api/cancel", body);
  g_assert_cmpuint (reply->status, ==, 200);
  sse_wait_msg (sse, "process_completed", first, 1);
  assert_cancelled (sse->frames, first, 1);
  /* The run itself has ended (its slot is free), well before its step. */
  g_assert_true (riv_test_wait_until (no_runs, f, 8.0));
  g_assert_cmpint (g_get_monotonic_time () - began, <, 8 * G_USEC_PER_SEC);

  second = join (f, 1, "[\"y\", 3, 10]", "between");
  sse_wait_msg (sse, "process_starts", second, 1);
  began = g_get_monotonic_time ();
  riv_server_shutdown (f->server);
  sse_wait_eof (sse);
  g_assert_cmpint (g_get_monotonic_time () - began, <, 8 * G_USEC_PER_SEC);
  done = completion_of (sse->frames, second);
  g_assert_false (frame_success (done));
  g_assert_cmpstr (json_object_get_string_member (frame_output (done), "error"),
                   ==, "Server shutting down");
}

/* The clock behind the demos in steps: entries come due in the order of
 * their times, a moved entry at its new time, and what is left when the
 * clock is freed at once. */
typedef struct
{
  GAsyncQueue *called;
} ClockTest;

static void
clock_test_due (RivClockEntry *entry,
                gpointer       user_data)
{
  ClockTest *t = user_data;

  g_async_queue_push (t->called, entry);
}

static void
test_clock (void)
{
  ClockTest t = { g_async_queue_new () };
  RivClockEntry e[6];
  RivClock *clock = riv_clock_new ("test-clock", clock_test_due, &t);
  gint64 now = g_get_monotonic_time ();
  /* Times in ms from now; e[5] is not due for an hour. */
  const gint64 ms[] = { 300, 100, 500, 200, 400, 3600 * 1000 };
  /* After the moves below: e[0] at 150 ms, e[1] 160, e[3] 170, e[2] 250, e[4] 270. */
  const guint taken[] = { 0, 1, 3, 2, 4 };

  for (guint i = 0; i < G_N_ELEMENTS (e); i++)
    {
      e[i] = (RivClockEntry) RIV_CLOCK_ENTRY_INIT;
      riv_clock_set (clock, &e[i], now + ms[i] * 1000);
    }
  g_assert_cmpuint (riv_clock_get_n (clock), ==, 6);
  riv_clock_set (clock, &e[2], now + 250 * 1000);   /* set again: moved, not added */
  g_assert_cmpuint (riv_clock_get_n (clock), ==, 6);
  g_assert_true (riv_clock_move (clock, &e[0], now + 150 * 1000));
  g_assert_true (riv_clock_move (clock, &e[1], now + 160 * 1000));
  g_assert_true (riv_clock_move (clock, &e[3], now + 170 * 1000));
  g_assert_true (riv_clock_move (clock, &e[4], now + 270 * 1000));

  for (guint i = 0; i < G_N_ELEMENTS (taken); i++)
    {
      RivClockEntry *got = g_async_queue_timeout_pop (t.called, 30 * G_USEC_PER_SEC);

      g_assert_true (got == &e[taken[i]]);
      g_assert_cmpint (g_get_monotonic_time (), >=, got->at);   /* never early */
      g_assert_cmpuint (got->index, ==, RIV_CLOCK_NONE);
      /* Out of the clock: not moved back in. */
      g_assert_false (riv_clock_move (clock, got, now));
    }
  g_assert_cmpuint (riv_clock_get_n (clock), ==, 1);

  /* Freed, the clock calls the hour-long entry at once. */
  riv_clock_free (clock);
  g_assert_true (g_async_queue_try_pop (t.called) == &e[5]);
  g_assert_null (g_async_queue_try_pop (t.called));
  g_async_queue_unref (t.called);
}

/* The error text of a failed completion (borrowed). */
static const char *
completion_error (JsonNode *frame)
{
  g_assert_false (frame_success (frame));
  return json_object_get_string_member (frame_output (frame), "error");
}

/* Finding 2 of the hardening issue: clients that join and never read held
 * the endpoint's workers (their generators wait on a full buffer) until the
 * session timeout. Jobs nobody reads for the reader timeout fail, their
 * workers go to the next job, and a reader that comes back late gets one
 * completion for each, without the steps before it. */
static void
test_reader_gone (Fixture       *f,
                  gconstpointer  data)
{
  const char *hashes[] = { "gone-a", "gone-b" };
  char *ids[G_N_ELEMENTS (hashes)];
  g_autofree char *present = NULL;
  Sse *sse;

  start (f, "concurrency", 2, "reader-timeout", 0.5, "session-buffer-max", 256 * 1024, NULL);
  for (guint i = 0; i < G_N_ELEMENTS (hashes); i++)
    ids[i] = join (f, 3, "[1000000]", hashes[i]);
  present = join (f, 3, "[10]", "present");
  sse = sse_open (f, "present");
  sse_wait_eof (sse);
  g_assert_true (frame_success (completion_of (sse->frames, present)));

  for (guint i = 0; i < G_N_ELEMENTS (hashes); i++)
    {
      Sse *late = sse_open (f, hashes[i]);

      sse_wait_eof (late);
      g_assert_nonnull (strstr (completion_error (completion_of (late->frames, ids[i])),
                                "nothing read this session's stream"));
      g_assert_cmpuint (count_frames (late->frames, "process_generating", NULL), ==, 0);
      g_free (ids[i]);
    }
  g_assert_cmpuint (riv_server_get_n_pending (f->server), ==, 0);
  g_assert_cmpuint (riv_server_get_buffered_bytes (f->server), ==, 0);
}

/* Gradio's clients join before they open the stream: a job keeps the whole
 * reader timeout from its join, even in a session whose last reader left
 * longer ago than that; and a reader that is there (here idle between the
 * tokens) is not gone, however long the job runs. */
static void
test_reader_grace (Fixture       *f,
                   gconstpointer  data)
{
  g_autofree char *first = NULL, *second = NULL;
  Sse *sse;

  start (f, "reader-timeout", 2.0, NULL);
  first = join (f, 3, "[3]", "grace");
  sse = sse_open (f, "grace");
  sse_wait_eof (sse);
  sleep_loop (2.5);   /* the reader has been gone for longer than the timeout */

  /* Longer than the timeout; its reader comes after more than a sweep. */
  second = join (f, 1, "[\"x\", 30, 0.1]", "grace");
  sleep_loop (0.8);
  sse = sse_open (f, "grace");
  sse_wait_eof (sse);
  g_assert_true (frame_success (completion_of (sse->frames, second)));
  g_assert_cmpuint (count_frames (sse->frames, "process_generating", second), ==, 30);
}

/* A frame counts its text as allocated and its overhead (the struct, the
 * list node, the allocations), not only the bytes it will write. */
static void
test_frame_size (Fixture       *f,
                 gconstpointer  data)
{
  GString *out = g_string_sized_new (64 * 1024);
  RivFrame *frame;

  frame = riv_frame_new_take (g_strdup ("data: {}\n\n"), 10);
  g_assert_cmpuint (riv_frame_get_size (frame), >=, 11 + sizeof (RivFrame) + sizeof (GList));
  riv_frame_free (frame);

  /* A string's unused room is given back rather than held unseen. */
  g_string_append (out, "data: {}\n\n");
  frame = riv_frame_new_string (out);
  g_assert_cmpuint (frame->alloc, <, 1024);
  g_assert_cmpuint (riv_frame_get_size (frame), >=, frame->alloc + sizeof (RivFrame));
  riv_frame_free (frame);

  frame = riv_frame_new_estimation ("0123456789abcdef0123456789abcdef", 1, 2, -1);
  g_assert_cmpuint (riv_frame_get_size (frame), >=, RIV_FRAME_ESTIMATION_SIZE + sizeof (RivFrame));
  riv_frame_free (frame);
}

static gboolean
buffers_over (gpointer data)
{
  Fixture *f = data;

  return riv_server_get_buffered_bytes (f->server) > 1024 * 1024;
}

/* Every session's buffers together stay under "buffer-max": the sessions
 * that are behind pause once it is full, a session whose reader keeps up
 * goes on. */
static void
test_buffer_budget (Fixture       *f,
                    gconstpointer  data)
{
  const char *hashes[] = { "behind-a", "behind-b", "behind-c" };
  g_autofree char *present = NULL;
  Sse *sse;

  start (f, "buffer-max", (guint64) 1024 * 1024, NULL);
  for (guint i = 0; i < G_N_ELEMENTS (hashes); i++)
    g_free (join (f, 3, "[1000000]", hashes[i]));
  g_assert_true (riv_test_wait_until (buffers_over, f, WAIT_S));

  present = join (f, 3, "[20000]", "keeps-up");
  sse = sse_open (f, "keeps-up");
  sse->light = TRUE;
  sse_wait_eof (sse);
  g_assert_cmpuint (sse->n_light, ==, 20000);
  g_assert_true (frame_success (completion_of (sse->frames, present)));

  /* Past the budget, each generator that is behind adds at most the two
   * outboxes (256 KiB each) it had filled before it was told to wait. */
  g_assert_cmpuint (riv_server_get_buffered_bytes (f->server), <,
                    1024 * 1024 + G_N_ELEMENTS (hashes) * 768 * 1024);
}

/* A join of input to session hash is refused as a full queue, naming which
 * budget it is over. */
static void
assert_inputs_full (Fixture    *f,
                    const char *input,
                    const char *hash,
                    const char *which)
{
  g_autofree char *body = g_strdup_printf ("{\"data\":%s,\"fn_index\":1,\"session_hash\":\"%s\"}",
                                           input, hash);
  g_autoptr(Reply) reply = http_post (f, "/gradio_api/queue/join", body);
  g_autoptr(JsonNode) detail = assert_error_reply (reply, 503);

  g_assert_true (g_str_has_prefix (json_node_get_string (detail), "Queue is full. "));
  g_assert_nonnull (strstr (json_node_get_string (detail), which));
}

/* Finding 3: the inputs of live jobs have a budget per session and in all;
 * a join over either is refused as a full queue is, saying which, and a job
 * that ends gives its share back. */
static void
test_input_budget (Fixture       *f,
                   gconstpointer  data)
{
  const gsize big = 256 * 1024;
  g_autofree char *text = g_strnfill (big, 'x');
  g_autofree char *input = g_strdup_printf ("[\"%s\", 100, 10]", text);
  g_autofree char *a1 = NULL, *a2 = NULL, *b1 = NULL, *c1 = NULL, *cancel = NULL;
  g_autoptr(Reply) reply = NULL;
  Sse *sse;

  start (f, "concurrency", 1, "session-input-max", (guint64) 2 * big + 4096,
         "input-max", (guint64) 3 * big + 8192, NULL);
  a1 = join (f, 1, input, "a");
  a2 = join (f, 1, input, "a");
  g_assert_cmpuint (riv_server_get_input_bytes (f->server), >, 2 * big);

  /* A third in the same session is over the session's budget. */
  assert_inputs_full (f, input, "a", "in one session");

  /* Another session fits once; the next is over the budget of all. */
  b1 = join (f, 1, input, "b");
  assert_inputs_full (f, input, "c", "together");

  /* A cancelled job gives its inputs back: the same join now fits. */
  cancel = g_strdup_printf ("{\"event_id\":\"%s\",\"session_hash\":\"b\",\"fn_index\":1}", b1);
  reply = http_post (f, "/gradio_api/cancel", cancel);
  g_assert_cmpuint (reply->status, ==, 200);
  sse = sse_open (f, "b");
  sse_wait_eof (sse);
  completion_of (sse->frames, b1);
  c1 = join (f, 1, input, "c");
}

static void
test_estimations (Fixture       *f,
                  gconstpointer  data)
{
  g_autoptr(GPtrArray) ids = g_ptr_array_new_with_free_func (g_free);
  Sse *sse;

  start (f, "concurrency", 1, "close-linger", 0.05, NULL);
  /* The first job runs long enough (3 s) that the other three are all
   * joined while it runs, however slowly this process joins (valgrind). */
  for (guint i = 0; i < 4; i++)
    g_ptr_array_add (ids, join (f, 1, i == 0 ? "[\"e\", 6, 0.5]" : "[\"e\", 3, 0.05]", "est"));
  sse = sse_open (f, "est");
  sse_wait_eof (sse);

  for (guint i = 0; i < ids->len; i++)
    {
      const char *id = g_ptr_array_index (ids, i);
      g_autoptr(GPtrArray) mine = frames_of (sse->frames, id);
      JsonObject *est = json_node_get_object (g_ptr_array_index (mine, 0));
      gboolean started = FALSE;
      gint64 prev_rank = G_MAXINT64;

      /* estimation+ → process_starts → generating → completed */
      g_assert_cmpstr (frame_msg (g_ptr_array_index (mine, 0)), ==, "estimation");
      g_assert_true (json_object_has_member (est, "rank"));
      g_assert_true (json_object_has_member (est, "queue_size"));
      g_assert_true (json_object_has_member (est, "rank_eta"));
      for (guint k = 0; k < mine->len; k++)
        {
          JsonNode *frame = g_ptr_array_index (mine, k);

          if (g_str_equal (frame_msg (frame), "estimation"))
            {
              gint64 rank = json_object_get_int_member (json_node_get_object (frame), "rank");

              g_assert_false (started);
              g_assert_cmpint (rank, <=, prev_rank);  /* ranks only go down */
              g_assert_cmpint (rank, <, json_object_get_int_member (json_node_get_object (frame),
                                                                    "queue_size"));
              prev_rank = rank;
            }
          else if (g_str_equal (frame_msg (frame), "process_starts"))
            started = TRUE;
        }
      g_assert_true (started);
      g_assert_cmpstr (last_msg (mine), ==, "process_completed");
    }

  /* The last one waited behind three others and was told so, then moved up. */
  {
    g_autoptr(GPtrArray) mine = frames_of (sse->frames, g_ptr_array_index (ids, 3));
    JsonObject *first = json_node_get_object (g_ptr_array_index (mine, 0));

    g_assert_cmpint (json_object_get_int_member (first, "rank"), >=, 2);
    g_assert_cmpuint (count_frames (mine, "estimation", NULL), >=, 2);
  }
}

static void
test_failure (Fixture       *f,
              gconstpointer  data)
{
  g_autofree char *outputs = NULL, *moved = NULL, *id = NULL;
  JsonObject *done, *output;
  Sse *sse;

  start (f, NULL);
  /* Make the demo's image write fail (even as root): "outputs" becomes a file. */
  outputs = g_build_filename (riv_server_get_temp_dir (f->server), "outputs", NULL);
  moved = g_strconcat (outputs, ".moved", NULL);
  g_assert_cmpint (g_rename (outputs, moved), ==, 0);
  g_assert_true (g_file_set_contents (outputs, "not a directory", -1, NULL));

  id = join (f, 0, "[3, 0]", "fail");
  sse = sse_open (f, "fail");
  sse_wait_eof (sse);

  done = json_node_get_object (completion_of (sse->frames, id));
  output = json_object_get_object_member (done, "output");
  g_assert_false (json_object_get_boolean_member (done, "success"));
  g_assert_cmpstr (json_object_get_string_member (done, "title"), ==, "Error");
  g_assert_true (g_str_has_prefix (json_object_get_string_member (output, "error"),
                                   "Could not write the image"));
  g_assert_cmpstr (json_object_get_string_member (output, "title"), ==, "Error");
  g_assert_true (json_object_get_boolean_member (output, "visible"));
  g_assert_true (json_object_has_member (output, "duration"));
  g_assert_cmpuint (count_frames (sse->frames, "process_generating", id), ==, 0);
  g_assert_cmpstr (last_msg (sse->frames), ==, "close_stream");

  /* The endpoint still works once the directory is back. */
  g_assert_cmpint (g_unlink (outputs), ==, 0);
  g_assert_cmpint (g_rename (moved, outputs), ==, 0);
  g_free (id);
  id = join (f, 0, "[1, 0]", "fail");
  sse = sse_open (f, "fail");
  sse_wait_eof (sse);
  g_assert_true (frame_success (completion_of (sse->frames, id)));
}

/* A stream's body is written by the server itself once libsoup has sent the
 * headers (an open stream then costs the main loop nothing): read from a
 * plain socket, the response must be valid chunked HTTP/1.1 that says and
 * does "Connection: close", with the job's frames and close_stream last. */
typedef struct
{
  GInputStream *input;
  GString      *bytes;
  char          buffer[4096];
  gboolean      eof;
  gboolean      failed;
} RawRead;

static void
raw_read_cb (GObject      *object,
             GAsyncResult *result,
             gpointer      user_data)
{
  RawRead *raw = user_data;
  g_autoptr(GError) error = NULL;
  gssize n = g_input_stream_read_finish (G_INPUT_STREAM (object), result, &error);

  if (n < 0)
    raw->failed = TRUE;
  if (n <= 0)
    {
      raw->eof = TRUE;
      return;
    }
  g_string_append_len (raw->bytes, raw->buffer, n);
  g_input_stream_read_async (raw->input, raw->buffer, sizeof raw->buffer, G_PRIORITY_DEFAULT,
                             NULL, raw_read_cb, raw);
}

static gboolean
raw_at_eof (gpointer user_data)
{
  return ((RawRead *) user_data)->eof;
}

/* Decodes a chunked body that must end exactly with its last chunk. */
static GString *
dechunk (const char *body,
         gsize       len)
{
  GString *out = g_string_new (NULL);
  const char *p = body, *end = body + len;

  for (;;)
    {
      char *after = NULL;
      guint64 size = g_ascii_strtoull (p, &after, 16);

      g_assert_true (after > p && after + 2 <= end);
      g_assert_true (after[0] == '\r' && after[1] == '\n');
      p = after + 2;
      if (size == 0)
        break;
      g_assert_true (p + size + 2 <= end);
      g_string_append_len (out, p, size);
      p += size;
      g_assert_true (p[0] == '\r' && p[1] == '\n');
      p += 2;
    }
  g_assert_true (p + 2 == end && p[0] == '\r' && p[1] == '\n');
  return out;
}

static void
test_stream_connection (Fixture       *f,
                        gconstpointer  data)
{
  g_autoptr(GSocketClient) socket_client = g_socket_client_new ();
  g_autoptr(GSocketConnection) conn = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *id = NULL;
  g_autofree char *request = NULL;
  g_autofree char *head = NULL;
  g_autoptr(GString) body = NULL;
  g_auto(GStrv) head_lines = NULL;
  g_auto(GStrv) events = NULL;
  RawRead raw = { 0 };
  const char *split;
  gboolean says_close = FALSE, chunked = FALSE, completed = FALSE;
  const char *last_msg = NULL;
  g_autoptr(JsonNode) last = NULL;

  start (f, NULL);
  id = join (f, 1, "[\"x\", 3, 0]", "raw");

  conn = g_socket_client_connect_to_host (socket_client, "127.0.0.1",
                                          riv_server_get_port (f->server), NULL, &error);
  g_assert_no_error (error);
  request = g_strdup ("GET /gradio_api/queue/data?session_hash=raw HTTP/1.1\r\n"
                      "Host: 127.0.0.1\r\nAccept: text/event-stream\r\n\r\n");
  g_assert_true (g_output_stream_write_all (g_io_stream_get_output_stream (G_IO_STREAM (conn)),
                                            request, strlen (request), NULL, NULL, &error));
  g_assert_no_error (error);

  raw.input = g_io_stream_get_input_stream (G_IO_STREAM (conn));
  raw.bytes = g_string_new (NULL);
  g_input_stream_read_async (raw.input, raw.buffer, sizeof raw.buffer, G_PRIORITY_DEFAULT,
                             NULL, raw_read_cb, &raw);
  /* The server closes the connection after close_stream. */
  g_assert_true (riv_test_wait_until (raw_at_eof, &raw, WAIT_S));
  g_assert_false (raw.failed);

  split = strstr (raw.bytes->str, "\r\n\r\n");
  g_assert_nonnull (split);
  head = g_strndup (raw.bytes->str, split - raw.bytes->str);
  head_lines = g_strsplit (head, "\r\n", -1);
  g_assert_cmpstr (head_lines[0], ==, "HTTP/1.1 200 OK");
  for (guint i = 1; head_lines[i] != NULL; i++)
    {
      says_close |= g_ascii_strcasecmp (head_lines[i], "Connection: close") == 0;
      chunked |= g_ascii_strcasecmp (head_lines[i], "Transfer-Encoding: chunked") == 0;
    }
  g_assert_true (says_close);
  g_assert_true (chunked);

  body = dechunk (split + 4, raw.bytes->len - (split + 4 - raw.bytes->str));
  events = g_strsplit (body->str, "\n\n", -1);
  for (guint i = 0; events[i] != NULL; i++)
    {
      g_autoptr(JsonNode) node = NULL;

      if (*events[i] == '\0')
        continue;
      g_assert_true (g_str_has_prefix (events[i], "data: "));
      node = json_from_string (events[i] + 6, &error);
      g_assert_no_error (error);
      if (g_strcmp0 (frame_msg (node), "process_completed") == 0)
        {
          g_assert_cmpstr (frame_event (node), ==, id);
          g_assert_true (frame_success (node));
          completed = TRUE;
        }
      g_clear_pointer (&last, json_node_unref);
      last = g_steal_pointer (&node);
    }
  g_assert_true (completed);
  last_msg = frame_msg (last);
  g_assert_cmpstr (last_msg, ==, "close_stream");
  g_string_free (raw.bytes, TRUE);
}

/* Connections a client closes while they wait for their next request are
 * released: a client that opens many (as @gradio/client's fetch does in a
 * burst) must not leave the server one descriptor each until it can accept
 * no more (libsoup 3.2 leaves them open by itself). */
static guint
count_fds (void)
{
  g_autoptr(GDir) dir = g_dir_open ("/proc/self/fd", 0, NULL);
  guint n = 0;

  g_assert_nonnull (dir);
  while (g_dir_read_name (dir) != NULL)
    n++;
  return n;
}

typedef struct
{
  guint n_done;
  guint n_ok;
} ConnCount;

static void
conn_reply_cb (GObject      *object,
               GAsyncResult *result,
               gpointer      user_data)
{
  ConnCount *count = user_data;
  g_autoptr(GBytes) body = soup_session_send_and_read_finish (SOUP_SESSION (object), result, NULL);

  count->n_done++;
  count->n_ok += body != NULL;
}

static gboolean
conns_done (gpointer user_data)
{
  return ((ConnCount *) user_data)->n_done == 40;
}

static gboolean
fds_back (gpointer user_data)
{
  return count_fds () <= GPOINTER_TO_UINT (user_data);
}

static void
test_closed_connections (Fixture       *f,
                         gconstpointer  data)
{
  g_autoptr(SoupSession) clients = soup_session_new_with_options ("max-conns", 64,
                                                                  "max-conns-per-host", 64,
                                                                  NULL);
  g_autofree char *uri = NULL;
  ConnCount count = { 0, 0 };
  guint before;

  start (f, NULL);
  uri = g_strconcat (f->url, "/config", NULL);
  before = count_fds ();

  /* 40 requests at once: a connection each, or nearly (some are reused as
   * soon as they are answered), kept alive. */
  for (guint i = 0; i < 40; i++)
    {
      g_autoptr(SoupMessage) msg = soup_message_new ("GET", uri);

      soup_session_send_and_read_async (clients, msg, G_PRIORITY_DEFAULT, NULL,
                                        conn_reply_cb, &count);
    }
  g_assert_true (riv_test_wait_until (conns_done, &count, WAIT_S));
  g_assert_cmpuint (count.n_ok, ==, 40);
  /* Both ends of each connection are in this process. */
  g_assert_cmpuint (count_fds (), >=, before + 20);

  /* The client closes every one of them; the server's ends go too. */
  soup_session_abort (clients);
  g_assert_true (riv_test_wait_until (fds_back, GUINT_TO_POINTER (before + 2), WAIT_S));

  /* And the server still answers. */
  {
    g_autoptr(Reply) reply = http_get (f, "/config");

    g_assert_cmpuint (reply->status, ==, 200);
  }
}

static void
test_shutdown (Fixture       *f,
               gconstpointer  data)
{
  g_autofree char *running = NULL, *waiting = NULL;
  g_autofree char *dir = NULL;
  JsonNode *done;
  Sse *sse;

  start (f, "concurrency", 1, NULL);
  dir = g_strdup (riv_server_get_temp_dir (f->server));
  running = join (f, 0, "[50, 0.1]", "bye");
  waiting = join (f, 0, "[50, 0.1]", "bye");
  sse = sse_open (f, "bye");
  sse_wait_msg (sse, "process_generating", running, 1);

  riv_server_shutdown (f->server);
  sse_wait_eof (sse);

  /* Both pending jobs fail, then close_stream ends the stream. */
  done = completion_of (sse->frames, running);
  g_assert_false (json_object_get_boolean_member (json_node_get_object (done), "success"));
  g_assert_cmpstr (json_object_get_string_member (frame_output (done), "error"),
                   ==, "Server shutting down");
  g_assert_cmpstr (json_object_get_string_member (json_node_get_object (done), "title"),
                   ==, "Error");
  done = completion_of (sse->frames, waiting);
  g_assert_false (json_object_get_boolean_member (json_node_get_object (done), "success"));
  g_assert_cmpstr (last_msg (sse->frames), ==, "close_stream");

  /* The private directory is gone; the server no longer listens. */
  g_assert_false (g_file_test (dir, G_FILE_TEST_EXISTS));
  riv_server_shutdown (f->server);   /* idempotent */
  {
    g_autoptr(SoupMessage) msg = new_message (f, "GET", "/config");
    g_autoptr(GAsyncResult) result = NULL;
    g_autoptr(GBytes) body = NULL;
    g_autoptr(GError) error = NULL;

    soup_session_send_and_read_async (f->session, msg, G_PRIORITY_DEFAULT, NULL,
                                      riv_test_async_result_cb, &result);
    riv_test_wait_result (&result, WAIT_S);
    body = soup_session_send_and_read_finish (f->session, result, &error);
    g_assert_null (body);
    g_assert_nonnull (error);
  }
}

/* Range requests are answered by the server (riv-range.c), never by
 * libsoup's own multi-range reply, which holds every range in one buffer:
 * a few ranges that do not overlap get 206, anything else the whole file. */
static Reply *
http_get_range (Fixture    *f,
                const char *path,
                const char *range)
{
  const char *headers[] = { "Range", range, NULL };

  return http_full (f, "GET", path, NULL, NULL, headers);
}

static void
assert_whole (Reply  *reply,
              GBytes *content)
{
  g_assert_cmpuint (reply->status, ==, 200);
  g_assert_null (soup_message_headers_get_one (reply->headers, "Content-Range"));
  g_assert_true (g_bytes_equal (reply->body, content));
}

static void
test_ranges (Fixture       *f,
             gconstpointer  data)
{
  g_autofree guint8 *buf = g_malloc (1000);
  g_autoptr(GBytes) content = NULL;
  g_autofree char *stored = NULL, *path = NULL;
  g_autoptr(GString) hostile = g_string_new ("bytes=");
  g_autoptr(Reply) reply = NULL;
  const char *type;

  for (guint i = 0; i < 1000; i++)
    buf[i] = 'a' + i % 26;
  content = g_bytes_new (buf, 1000);
  start (f, NULL);
  stored = upload (f, "data.bin", content);
  path = g_strdup_printf ("/gradio_api/file=%s", stored);

  /* One range, a suffix, two apart. */
  reply = http_get_range (f, path, "bytes=10-19");
  g_assert_cmpuint (reply->status, ==, 206);
  g_assert_cmpstr (soup_message_headers_get_one (reply->headers, "Content-Range"), ==,
                   "bytes 10-19/1000");
  g_assert_cmpmem (g_bytes_get_data (reply->body, NULL), g_bytes_get_size (reply->body),
                   buf + 10, 10);
  g_clear_pointer (&reply, reply_free);
  reply = http_get_range (f, path, "bytes=-5");
  g_assert_cmpuint (reply->status, ==, 206);
  g_assert_cmpmem (g_bytes_get_data (reply->body, NULL), g_bytes_get_size (reply->body),
                   buf + 995, 5);
  g_clear_pointer (&reply, reply_free);
  reply = http_get_range (f, path, "bytes=0-1, 26-27");
  g_assert_cmpuint (reply->status, ==, 206);
  type = soup_message_headers_get_one (reply->headers, "Content-Type");
  g_assert_true (g_str_has_prefix (type, "multipart/byteranges; boundary="));
  {
    g_autoptr(SoupMultipart) parts = soup_multipart_new_from_message (reply->headers, reply->body);
    SoupMessageHeaders *part_headers;
    GBytes *part;

    g_assert_nonnull (parts);
    g_assert_cmpint (soup_multipart_get_length (parts), ==, 2);
    g_assert_true (soup_multipart_get_part (parts, 1, &part_headers, &part));
    g_assert_cmpstr (soup_message_headers_get_one (part_headers, "Content-Range"), ==,
                     "bytes 26-27/1000");
    g_assert_cmpmem (g_bytes_get_data (part, NULL), g_bytes_get_size (part), "ab", 2);
  }
  g_clear_pointer (&reply, reply_free);

  /* Past the end: 416, naming the size. */
  reply = http_get_range (f, path, "bytes=1000-");
  g_assert_cmpuint (reply->status, ==, 416);
  g_assert_cmpstr (soup_message_headers_get_one (reply->headers, "Content-Range"), ==,
                   "bytes */1000");
  g_clear_pointer (&reply, reply_free);

  /* Overlapping ranges, more than max-ranges, or nonsense: the whole file. */
  reply = http_get_range (f, path, "bytes=0-,0-");
  assert_whole (reply, content);
  g_clear_pointer (&reply, reply_free);
  reply = http_get_range (f, path, "bytes=0-0,2-2,4-4,6-6,8-8,10-10,12-12,14-14,16-16");
  assert_whole (reply, content);
  g_clear_pointer (&reply, reply_free);
  reply = http_get_range (f, path, "bytes=5-2");
  assert_whole (reply, content);
  g_clear_pointer (&reply, reply_free);

  /* The finding: 15,000 ranges of the whole file were one 206 reply of
   * 15,000 copies. Now one copy. */
  for (guint i = 0; i < 15000; i++)
    g_string_append (hostile, i == 0 ? "0-" : ",0-");
  reply = http_get_range (f, path, hostile->str);
  assert_whole (reply, content);
  g_clear_pointer (&reply, reply_free);

  /* Other routes never answer a range. */
  reply = http_get_range (f, "/config", "bytes=0-1");
  g_assert_cmpuint (reply->status, ==, 200);
  g_assert_cmpuint (g_bytes_get_size (reply->body), >, 2);
}

/* A plain connection to the server that has sent request (may be empty or
 * partial); its reply is read into raw->bytes until the server closes. */
static GSocketConnection *
raw_send (Fixture    *f,
          const char *request,
          RawRead    *raw)
{
  g_autoptr(GSocketClient) socket_client = g_socket_client_new ();
  g_autoptr(GError) error = NULL;
  GSocketConnection *conn;

  conn = g_socket_client_connect_to_host (socket_client, "127.0.0.1",
                                          riv_server_get_port (f->server), NULL, &error);
  g_assert_no_error (error);
  g_assert_true (g_output_stream_write_all (g_io_stream_get_output_stream (G_IO_STREAM (conn)),
                                            request, strlen (request), NULL, NULL, &error));
  g_assert_no_error (error);
  raw->input = g_io_stream_get_input_stream (G_IO_STREAM (conn));
  raw->bytes = g_string_new (NULL);
  g_input_stream_read_async (raw->input, raw->buffer, sizeof raw->buffer, G_PRIORITY_DEFAULT,
                             NULL, raw_read_cb, raw);
  return conn;
}

/* The reply to request, read until the server closes the connection. */
static GString *
raw_exchange (Fixture    *f,
              const char *request)
{
  g_autoptr(GSocketConnection) conn = NULL;
  RawRead raw = { 0 };

  conn = raw_send (f, request, &raw);
  g_assert_true (riv_test_wait_until (raw_at_eof, &raw, WAIT_S));
  return raw.bytes;
}

/* POST path on a plain connection: Host, then rest (the other headers, the
 * blank line, and whatever body is to be sent); the reply until close. */
static GString *
raw_post (Fixture    *f,
          const char *path,
          const char *rest)
{
  g_autofree char *request = g_strdup_printf ("POST %s HTTP/1.1\r\nHost: 127.0.0.1:%u\r\n%s",
                                              path, riv_server_get_port (f->server), rest);

  return raw_exchange (f, request);
}

/* A body over the limit is refused as soon as the headers say so, or as
 * soon as its chunks pass the limit: the reply comes while the client has
 * sent nothing more, and the connection is closed. */
static void
test_body_refused_early (Fixture       *f,
                         gconstpointer  data)
{
  g_autoptr(GString) reply = NULL;
  g_autoptr(GString) chunked = g_string_new (NULL);
  g_autoptr(Reply) config = NULL;

  start (f, "max-body", 1024, NULL);

  /* 10 GB declared, none sent. */
  reply = raw_post (f, "/gradio_api/queue/join", "Content-Type: application/json\r\n"
                    "Content-Length: 10737418240\r\n\r\n");
  g_assert_true (g_str_has_prefix (reply->str, "HTTP/1.1 413 "));
  g_assert_nonnull (strstr (reply->str, "Request body too large (limit 1024 bytes)."));
  g_string_free (g_steal_pointer (&reply), TRUE);

  /* Chunked: one chunk of 2048 bytes, and the body never ends. */
  g_string_append (chunked, "Content-Type: application/json\r\n"
                   "Transfer-Encoding: chunked\r\n\r\n800\r\n");
  for (guint i = 0; i < 2048; i++)
    g_string_append_c (chunked, 'x');
  g_string_append (chunked, "\r\n");
  reply = raw_post (f, "/gradio_api/queue/join", chunked->str);
  g_assert_true (g_str_has_prefix (reply->str, "HTTP/1.1 413 "));

  /* And the server goes on. */
  config = http_get (f, "/config");
  g_assert_cmpuint (config->status, ==, 200);
}

/* Connections that do nothing are closed: one that sends nothing, one whose
 * headers never end ("header-timeout"), one kept alive after its reply
 * ("idle-timeout"); a stream longer than both is not cut. */
static void
test_connection_timeouts (Fixture       *f,
                          gconstpointer  data)
{
  g_autoptr(GString) reply = NULL;
  g_autofree char *request = NULL;
  g_autofree char *id = NULL;
  Sse *sse;

  start (f, "header-timeout", 0.2, "idle-timeout", 0.2, NULL);

  reply = raw_exchange (f, "");
  g_assert_cmpuint (reply->len, ==, 0);
  g_string_free (g_steal_pointer (&reply), TRUE);

  reply = raw_exchange (f, "GET /config HTTP/1.1\r\nHost: 127.0.0.1\r\n");
  g_assert_null (strstr (reply->str, "HTTP/1.1 200"));
  g_string_free (g_steal_pointer (&reply), TRUE);

  request = g_strdup_printf ("GET /config HTTP/1.1\r\nHost: 127.0.0.1:%u\r\n\r\n",
                             riv_server_get_port (f->server));
  reply = raw_exchange (f, request);
  g_assert_true (g_str_has_prefix (reply->str, "HTTP/1.1 200 OK"));
  g_assert_null (strstr (reply->str, "Connection: close"));

  id = join (f, 1, "[\"abc\", 3, 0.6]", "slow");
  sse = sse_open (f, "slow");
  sse_wait_eof (sse);
  g_assert_true (frame_success (completion_of (sse->frames, id)));
}

/* Only loopback origins and those given get CORS, and any other origin is
 * refused outright (a page could still make the request, just not read the
 * reply); the Host must name the server, so that a page whose own host
 * name resolves to 127.0.0.1 (DNS rebinding) is refused too. */
static Reply *
http_get_with (Fixture    *f,
               const char *path,
               const char *name,
               const char *value)
{
  const char *headers[] = { name, value, NULL };

  return http_full (f, "GET", path, NULL, NULL, headers);
}

static void
assert_cors (Reply      *reply,
             const char *origin)
{
  g_assert_cmpuint (reply->status, ==, origin != NULL ? 200 : 403);
  g_assert_cmpstr (soup_message_headers_get_one (reply->headers, "Access-Control-Allow-Origin"),
                   ==, origin);
}

static void
test_origin_and_host (Fixture       *f,
                      gconstpointer  data)
{
  static const char * const loopback[] = {
    "http://localhost:3000", "https://127.0.0.1", "http://127.1.2.3:8080", "http://[::1]:7860",
    "http://app.localhost:5173",
  };
  static const char * const foreign[] = {
    "http://example.test", "null", "http://localhost.example.test", "http://10.0.0.1:7860",
    "file://", "http://127.0.0.1.example.test",
  };
  const char * const origins[] = { "https://ok.example.test", NULL };
  const char * const hosts[] = { "proxy.example.test", NULL };
  g_autoptr(JsonNode) detail = NULL;
  g_autoptr(GString) raw = NULL;

  start (f, "allow-origins", origins, "allow-hosts", hosts, NULL);

  for (guint i = 0; i < G_N_ELEMENTS (loopback); i++)
    {
      g_autoptr(Reply) reply = http_get_with (f, "/config", "Origin", loopback[i]);

      assert_cors (reply, loopback[i]);
    }
  for (guint i = 0; i < G_N_ELEMENTS (foreign); i++)
    {
      g_autoptr(Reply) reply = http_get_with (f, "/config", "Origin", foreign[i]);

      assert_cors (reply, NULL);
      g_clear_pointer (&detail, json_node_unref);
      detail = assert_error_reply (reply, 403);
      g_assert_nonnull (strstr (json_node_get_string (detail), "--allow-origin"));
    }
  {
    g_autoptr(Reply) reply = http_get_with (f, "/config", "Origin", "https://ok.example.test");

    assert_cors (reply, "https://ok.example.test");
  }

  /* A form on a foreign page needs no preflight: its upload never runs. */
  raw = raw_post (f, "/gradio_api/upload", "Origin: http://example.test\r\nContent-Length: 5\r\n"
                  "Content-Type: multipart/form-data; boundary=b\r\n\r\n");
  g_assert_true (g_str_has_prefix (raw->str, "HTTP/1.1 403 "));
  g_assert_cmpuint (riv_server_get_n_files (f->server), ==, 0);

  /* Host: the server's own address, localhost names, and the names given. */
  {
    static const char * const served[] = {
      "localhost", "LOCALHOST:7860", "127.0.0.1", "[::1]:80", "proxy.example.test",
    };

    for (guint i = 0; i < G_N_ELEMENTS (served); i++)
      {
        g_autoptr(Reply) reply = http_get_with (f, "/config", "Host", served[i]);

        g_assert_cmpuint (reply->status, ==, 200);
      }
  }
  {
    static const char * const refused[] = {
      "rebind.example.test", "rebind.example.test:7860", "192.0.2.1", "localhost.example.test",
    };

    for (guint i = 0; i < G_N_ELEMENTS (refused); i++)
      {
        g_autoptr(Reply) reply = http_get_with (f, "/config", "Host", refused[i]);

        g_clear_pointer (&detail, json_node_unref);
        detail = assert_error_reply (reply, 403);
        g_assert_nonnull (strstr (json_node_get_string (detail), "--allow-host"));
      }
  }
}

/* Uploads are bounded per request (parts) and per session (files, bytes:
 * past them the session's own oldest go), and a full store refuses an
 * upload rather than delete another session's files. Folders go with their
 * files. The finding: one upload of 20,000 parts left 20,006 folders and
 * evicted every other client's files. */
static guint
count_upload_folders (Fixture *f)
{
  g_autofree char *dir = g_build_filename (riv_server_get_temp_dir (f->server), "uploads", NULL);
  g_autoptr(GDir) listing = g_dir_open (dir, 0, NULL);
  guint n = 0;

  g_assert_nonnull (listing);
  while (g_dir_read_name (listing) != NULL)
    n++;
  return n;
}

typedef struct
{
  Fixture *f;
  guint    expected;
} FolderCount;

static gboolean
folders_are (gpointer user_data)
{
  FolderCount *count = user_data;

  return count_upload_folders (count->f) == count->expected;
}

static void
assert_served (Fixture    *f,
               const char *stored,
               guint       status)
{
  g_autofree char *path = g_strdup_printf ("/gradio_api/file=%s", stored);
  g_autoptr(Reply) reply = http_get (f, path);

  g_assert_cmpuint (reply->status, ==, status);
}

static void
test_upload_bounds (Fixture       *f,
                    gconstpointer  data)
{
  g_autofree char *kept = NULL, *first = NULL, *refused = NULL;
  g_autoptr(GBytes) a = g_bytes_new_static ("a", 1);
  FolderCount count = { f, 0 };

  start (f, "max-upload-parts", 5, "max-session-uploads", 3, "max-files", 6, NULL);

  /* Too many parts: refused whole, nothing written. */
  g_assert_cmpuint (upload_parts (f, "flood", "x.bin", a, 6, &refused), ==, 413);
  g_assert_cmpuint (riv_server_get_n_files (f->server), ==, 0);
  g_assert_cmpuint (count_upload_folders (f), ==, 0);

  /* Session "kept" keeps its file whatever "flood" uploads: past its three,
   * flood's own oldest go. */
  g_assert_cmpuint (upload_parts (f, "kept", "kept.bin", a, 1, &kept), ==, 200);
  for (guint i = 0; i < 10; i++)
    {
      g_autofree char *name = g_strdup_printf ("f%u.bin", i);
      g_autoptr(GBytes) content = g_bytes_new (name, strlen (name));
      g_autofree char *path = NULL;

      g_assert_cmpuint (upload_parts (f, "flood", name, content, 1, &path), ==, 200);
      if (i == 0)
        first = g_steal_pointer (&path);
    }
  assert_served (f, kept, 200);
  assert_served (f, first, 403);
  g_assert_cmpuint (riv_server_get_n_files (f->server), ==, 4);
  /* One folder per file kept: the others went with their files. */
  count.expected = 4;
  g_assert_true (riv_test_wait_until (folders_are, &count, WAIT_S));

  /* Six uploads in all fill the store: a seventh is refused (507), the
   * files of the others stay. */
  g_assert_cmpuint (upload_parts (f, "other", "o1.bin", a, 1, &refused), ==, 200);
  g_clear_pointer (&refused, g_free);
  g_assert_cmpuint (upload_parts (f, "other", "o2.bin", a, 1, &refused), ==, 200);
  g_clear_pointer (&refused, g_free);
  g_assert_cmpuint (upload_parts (f, "third", "t.bin", a, 1, &refused), ==, 507);
  assert_served (f, kept, 200);
  g_assert_cmpuint (riv_server_get_n_files (f->server), ==, 6);
}

int
main (int    argc,
      char **argv)
{
  g_test_init (&argc, &argv, NULL);

#define ADD(path, func) \
  g_test_add ("/server/" path, Fixture, NULL, fixture_setup, func, fixture_teardown)

  ADD ("config", test_config);
  ADD ("info", test_info);
  ADD ("routes-and-cors", test_routes_and_cors);
  ADD ("fake-diffusion", test_fake_diffusion);
  ADD ("stream-text", test_stream_text);
  ADD ("rapid-generation", test_rapid_generation);
  ADD ("batch-burst", test_batch_burst);
  ADD ("files", test_files);
  ADD ("files-bounded", test_files_bounded);
  ADD ("files-bytes", test_files_bytes);
  ADD ("cancel", test_cancel);
  ADD ("queue-full", test_queue_full);
  ADD ("malformed", test_malformed);
  ADD ("unknown-session", test_unknown_session);
  ADD ("estimations", test_estimations);
  ADD ("interleave", test_interleave);
  ADD ("stream-connection", test_stream_connection);
  ADD ("linger", test_linger);
  ADD ("buffer-across-connections", test_buffer_across_connections);
  ADD ("backlog", test_backlog);
  ADD ("takeover", test_takeover);
  ADD ("heartbeat", test_heartbeat);
  ADD ("sessions-evicted", test_sessions_evicted);
  ADD ("slow-reader", test_slow_reader);
  ADD ("steps-reader-behind", test_steps_reader_behind);
  ADD ("steps-stop-between", test_steps_stop_between);
  ADD ("reader-gone", test_reader_gone);
  ADD ("reader-grace", test_reader_grace);
  ADD ("frame-size", test_frame_size);
  ADD ("buffer-budget", test_buffer_budget);
  ADD ("input-budget", test_input_budget);
  ADD ("failure", test_failure);
  ADD ("shutdown", test_shutdown);
  ADD ("closed-connections", test_closed_connections);
  ADD ("ranges", test_ranges);
  ADD ("body-refused-early", test_body_refused_early);
  ADD ("connection-timeouts", test_connection_timeouts);
  ADD ("origin-and-host", test_origin_and_host);
  ADD ("upload-bounds", test_upload_bounds);
  g_test_add_func ("/server/clock", test_clock);

  return g_test_run ();
}
