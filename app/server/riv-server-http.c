/* riv-server-http.c
 * Copyright 2026 The Rivulet authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * HTTP plumbing shared by the routes: JSON replies and error details, CORS
 * headers, request bodies and their size limits (413 as soon as the headers
 * or the chunks pass them), and the sweep that closes connections their
 * client closed, or that are slow to send headers or idle too long.
 */
#include "config.h"

#include <string.h>

#include "riv-compat.h"
#include "riv-json.h"
#include "riv-server-private.h"
#include "riv-wire.h"

#define JSON_MAX_DEPTH      32
#define REFUSAL_DRAIN_MAX   (8 * 1024 * 1024)
#define REFUSAL_DRAIN_S     5.0

typedef struct
{
  gsize    limit;
  gsize    received;
  gboolean rejected;
} BodyLimit;

/* What the connection sweep knows of a client connection (self->sockets). */
typedef enum
{
  CONN_WAITING,     /* for a request's headers, since "since" */
  CONN_BUSY,        /* a request is read, handled or answered (or streamed) */
  CONN_IDLE,        /* kept alive between requests, since "since" */
  CONN_CLOSING,     /* shut down by the sweep */
} ConnPhase;

typedef struct
{
  ConnPhase phase;
  double    since;
  guint     eof_sightings;
} ConnState;

/* A request refused before its body was read: the reply written on the
 * connection taken from libsoup, then whatever the client still sends read
 * and dropped for a while (bounded) before closing. */
typedef struct
{
  GIOStream    *io;          /* owned */
  GCancellable *cancellable; /* owned */
  GSource      *timer;       /* owned */
  char         *out;         /* owned: the reply */
  gsize         len;
  gsize         drained;
  char          scratch[16384];
} Refusal;

void
_riv_server_reply_take (SoupServerMessage *msg,
                        guint              status,
                        const char        *content_type,
                        char              *body,
                        gsize              len)
{
  soup_server_message_set_status (msg, status, NULL);
  soup_server_message_set_response (msg, content_type, SOUP_MEMORY_TAKE, body, len);
}

void
_riv_server_reply_text_json (SoupServerMessage *msg,
                             char              *json)
{
  _riv_server_reply_take (msg, SOUP_STATUS_OK, "application/json", json, strlen (json));
}

static void
reply_node (SoupServerMessage *msg,
            guint              status,
            JsonNode          *node)
{
  gsize len;
  char *json = riv_json_to_string (node, &len);

  _riv_server_reply_take (msg, status, "application/json", json, len);
}

void
_riv_server_reply_bytes (SoupServerMessage *msg,
                         guint              status,
                         GBytes            *json)
{
  soup_server_message_set_status (msg, status, NULL);
  soup_server_message_set_response (msg, "application/json", SOUP_MEMORY_COPY,
                                    g_bytes_get_data (json, NULL), g_bytes_get_size (json));
}

void
_riv_server_reply_detail (SoupServerMessage *msg,
                          guint              status,
                          const char        *detail)
{
  GString *out = g_string_new ("{\"detail\":");

  riv_wire_append_string (out, detail, -1);
  g_string_append_c (out, '}');
  {
    gsize len = out->len;
    _riv_server_reply_take (msg, status, "application/json", g_string_free (out, FALSE), len);
  }
}

void
_riv_server_reply_detail_list (SoupServerMessage *msg,
                               guint              status,
                               JsonNode          *list)
{
  g_autoptr(JsonBuilder) b = json_builder_new_immutable ();
  g_autoptr(JsonNode) root = NULL;

  json_builder_begin_object (b);
  json_builder_set_member_name (b, "detail");
  json_builder_add_value (b, json_node_ref (list));
  json_builder_end_object (b);
  root = json_builder_get_root (b);
  reply_node (msg, status, root);
}

void
_riv_server_reply_problem (SoupServerMessage *msg,
                           guint              status,
                           const char        *parameter,
                           const char        *message)
{
  g_autoptr(JsonNode) list = json_node_new (JSON_NODE_ARRAY);
  JsonArray *array = json_array_new ();
  JsonObject *problem = json_object_new ();

  json_object_set_boolean_member (problem, "is_valid", FALSE);
  json_object_set_string_member (problem, "message", message);
  if (parameter != NULL)
    json_object_set_string_member (problem, "parameter_name", parameter);
  else
    json_object_set_null_member (problem, "parameter_name");
  json_array_add_object_element (array, problem);
  json_node_take_array (list, array);
  _riv_server_reply_detail_list (msg, status, list);
}

void
_riv_server_add_cors_headers (SoupServerMessage *msg)
{
  SoupMessageHeaders *response = soup_server_message_get_response_headers (msg);
  const char *origin = g_object_get_data (G_OBJECT (msg), "riv-cors-origin");

  /* Set only for an allowed Origin (riv-server-origin.c). */
  if (origin == NULL)
    return;
  soup_message_headers_replace (response, "Access-Control-Allow-Origin", origin);
  soup_message_headers_replace (response, "Access-Control-Allow-Credentials", "true");
  soup_message_headers_append (response, "Vary", "Origin");
}

GBytes *
_riv_server_request_body (SoupServerMessage *msg)
{
  SoupMessageBody *body = soup_server_message_get_request_body (msg);

  return soup_message_body_flatten (body);
}

/* Parses a request body as a JSON object. On failure, replies and returns NULL. */
JsonObject *
_riv_server_parse_object_body (SoupServerMessage  *msg,
                               JsonNode          **root_out)
{
  g_autoptr(GBytes) body = _riv_server_request_body (msg);
  g_autoptr(GError) error = NULL;
  JsonNode *root;

  root = riv_json_parse (NULL, g_bytes_get_data (body, NULL), g_bytes_get_size (body),
                         JSON_MAX_DEPTH, &error);
  if (root == NULL)
    {
      g_autofree char *detail = g_strdup_printf ("Invalid JSON body: %s", error->message);
      _riv_server_reply_detail (msg, SOUP_STATUS_BAD_REQUEST, detail);
      return NULL;
    }
  if (!JSON_NODE_HOLDS_OBJECT (root))
    {
      json_node_unref (root);
      _riv_server_reply_detail (msg, SOUP_STATUS_BAD_REQUEST,
                                "The request body must be a JSON object.");
      return NULL;
    }
  *root_out = root;
  return json_node_get_object (root);
}

/* Request body limits: checked when the headers arrive and as the body
 * does, so an oversized request is answered 413 at once and never kept in
 * memory. */

/* Refusals */

static void
refusal_free (Refusal *refusal)
{
  _riv_server_clear_source (&refusal->timer);
  g_io_stream_close (refusal->io, NULL, NULL);
  g_object_unref (refusal->io);
  g_object_unref (refusal->cancellable);
  g_free (refusal->out);
  g_free (refusal);
}

static gboolean
refusal_timeout_cb (gpointer user_data)
{
  Refusal *refusal = user_data;

  g_cancellable_cancel (refusal->cancellable);
  return G_SOURCE_CONTINUE;
}

static void refusal_drain (Refusal *refusal);

static void
refusal_read_cb (GObject      *object,
                 GAsyncResult *result,
                 gpointer      user_data)
{
  Refusal *refusal = user_data;
  gssize n = g_input_stream_read_finish (G_INPUT_STREAM (object), result, NULL);

  if (n <= 0 || (refusal->drained += n) >= REFUSAL_DRAIN_MAX)
    refusal_free (refusal);
  else
    refusal_drain (refusal);
}

static void
refusal_drain (Refusal *refusal)
{
  g_input_stream_read_async (g_io_stream_get_input_stream (refusal->io), refusal->scratch,
                             sizeof refusal->scratch, G_PRIORITY_DEFAULT, refusal->cancellable,
                             refusal_read_cb, refusal);
}

static void
refusal_wrote_cb (GObject      *object,
                  GAsyncResult *result,
                  gpointer      user_data)
{
  Refusal *refusal = user_data;
  GSocket *socket = g_object_get_data (G_OBJECT (refusal->io), "GSocket");

  if (!g_output_stream_write_all_finish (G_OUTPUT_STREAM (object), result, NULL, NULL) ||
      socket == NULL)
    {
      refusal_free (refusal);
      return;
    }
  /* Closing with the client's body unread would reset the connection, and a
   * reset can make the client drop the reply before it reads it. */
  g_socket_shutdown (socket, FALSE, TRUE, NULL);
  refusal_drain (refusal);
}

/* The reply set on msg, as bytes on the wire, with "Connection: close". */
static char *
reply_to_text (SoupServerMessage *msg,
               gsize             *len)
{
  SoupMessageHeaders *headers = soup_server_message_get_response_headers (msg);
  g_autoptr(GBytes) body = soup_message_body_flatten (soup_server_message_get_response_body (msg));
  guint status = soup_server_message_get_status (msg);
  GString *out = g_string_new (NULL);
  SoupMessageHeadersIter iter;
  const char *name, *value;

  g_string_append_printf (out, "HTTP/1.1 %u %s\r\n", status, soup_status_get_phrase (status));
  soup_message_headers_iter_init (&iter, headers);
  while (soup_message_headers_iter_next (&iter, &name, &value))
    if (g_ascii_strcasecmp (name, "Content-Length") != 0 &&
        g_ascii_strcasecmp (name, "Transfer-Encoding") != 0 &&
        g_ascii_strcasecmp (name, "Connection") != 0)
      g_string_append_printf (out, "%s: %s\r\n", name, value);
  g_string_append_printf (out, "Connection: close\r\nContent-Length: %" G_GSIZE_FORMAT "\r\n\r\n",
                          g_bytes_get_size (body));
  g_string_append_len (out, g_bytes_get_data (body, NULL), g_bytes_get_size (body));
  *len = out->len;
  return g_string_free (out, FALSE);
}

/* Sends the reply already set on msg at once, without reading the rest of
 * the request: libsoup 3.2 writes no reply before it has read the whole
 * body, however large it says it is. The connection is taken from libsoup
 * (msg may be gone after this) and closed once the reply is out. */
void
_riv_server_refuse_now (RivServer         *self,
                        SoupServerMessage *msg)
{
  Refusal *refusal = g_new0 (Refusal, 1);

  refusal->out = reply_to_text (msg, &refusal->len);
  refusal->io = soup_server_message_steal_connection (msg);
  if (refusal->io == NULL)
    {
      g_free (refusal->out);
      g_free (refusal);
      return;
    }
  refusal->cancellable = g_cancellable_new ();
  refusal->timer = _riv_server_add_timeout (self, REFUSAL_DRAIN_S, refusal_timeout_cb, refusal,
                                            "[rivulet] refusal");
  g_output_stream_write_all_async (g_io_stream_get_output_stream (refusal->io), refusal->out,
                                   refusal->len, G_PRIORITY_DEFAULT, refusal->cancellable,
                                   refusal_wrote_cb, refusal);
}

/* Answers status with detail at once, the body unread. */
static void
refuse (RivServer         *self,
        SoupServerMessage *msg,
        guint              status,
        const char        *detail)
{
  SoupMessageBody *body = soup_server_message_get_request_body (msg);

  soup_message_body_set_accumulate (body, FALSE);
  soup_message_body_truncate (body);
  _riv_server_add_cors_headers (msg);
  _riv_server_reply_detail (msg, status, detail);
  _riv_server_refuse_now (self, msg);
}

static void
reject_body (RivServer         *self,
             SoupServerMessage *msg,
             BodyLimit         *limit)
{
  g_autofree char *detail = g_strdup_printf ("Request body too large (limit %" G_GSIZE_FORMAT
                                             " bytes).", limit->limit);

  limit->rejected = TRUE;
  refuse (self, msg, SOUP_STATUS_REQUEST_ENTITY_TOO_LARGE, detail);
}

/* libsoup 3.2 answers any 200 GET that carries a Range header itself, and
 * builds a multi-range reply in one buffer however many ranges are asked
 * (riv-range.c). So the header is taken off every request before libsoup
 * sees it again; /file= reads it from the message's "riv-range" data. With
 * If-Range the client wants ranges only of a version it knows, and this
 * server names no versions (no ETag, no Last-Modified): the whole file. */
static void
take_range_header (SoupServerMessage *msg)
{
  SoupMessageHeaders *headers = soup_server_message_get_request_headers (msg);
  const char *range = soup_message_headers_get_one (headers, "Range");

  if (range == NULL)
    return;
  if (soup_message_headers_get_one (headers, "If-Range") == NULL)
    g_object_set_data_full (G_OBJECT (msg), "riv-range", g_strdup (range), g_free);
  soup_message_headers_remove (headers, "Range");
}

static void conn_set_phase (RivServer         *self,
                            SoupServerMessage *msg,
                            ConnPhase          phase);

static void
got_headers_cb (SoupServerMessage *msg,
                gpointer           user_data)
{
  RivServer *self = user_data;
  SoupMessageHeaders *headers = soup_server_message_get_request_headers (msg);
  const char *path = g_uri_get_path (soup_server_message_get_uri (msg));
  BodyLimit *limit = g_new0 (BodyLimit, 1);
  g_autofree char *refused = NULL;

  limit->limit = g_strcmp0 (path, API_PREFIX "/upload") == 0 ? self->max_upload : self->max_body;
  g_object_set_data_full (G_OBJECT (msg), "riv-body-limit", limit, g_free);
  conn_set_phase (self, msg, CONN_BUSY);
  take_range_header (msg);

  if (soup_server_message_get_status (msg) != 0)
    return;
  if ((refused = _riv_server_check_origin_and_host (self, msg)) != NULL)
    {
      limit->rejected = TRUE;
      refuse (self, msg, SOUP_STATUS_FORBIDDEN, refused);
      return;
    }
  if (soup_message_headers_get_encoding (headers) == SOUP_ENCODING_CONTENT_LENGTH &&
      soup_message_headers_get_content_length (headers) > (goffset) limit->limit)
    reject_body (self, msg, limit);
}

static void
got_chunk_cb (SoupServerMessage *msg,
              GBytes            *chunk,
              gpointer           user_data)
{
  BodyLimit *limit = g_object_get_data (G_OBJECT (msg), "riv-body-limit");

  if (limit == NULL || limit->rejected)
    return;
  limit->received += g_bytes_get_size (chunk);
  if (limit->received > limit->limit)
    reject_body (user_data, msg, limit);
}

/* Connections the client closed. libsoup 3.2 never disconnects a kept-alive
 * connection whose client closes it while it waits for the next request
 * (fixed in libsoup 3.3): the socket stays open in CLOSE-WAIT for good. A
 * client that opens a connection per request (@gradio/client's fetch does,
 * for a burst of joins) then leaves one descriptor behind per job, 10,000
 * after a 10,000-job burst, until the server cannot accept any more. So the
 * server remembers every client socket and, once a second, closes those at
 * end of file on two sweeps in a row: libsoup reads a readable socket within
 * one main-loop iteration, so by then it has nothing left to do with it (a
 * connection it still serves, e.g. a stream, fails its next write and ends
 * as a dropped client would). */

static gboolean
socket_at_eof (GSocket *socket)
{
  g_autoptr(GError) error = NULL;
  char byte;
  GInputVector vector = { &byte, 1 };
  int flags = G_SOCKET_MSG_PEEK;
  gssize n;

  if (!(g_socket_condition_check (socket, G_IO_IN | G_IO_HUP | G_IO_ERR) &
        (G_IO_IN | G_IO_HUP | G_IO_ERR)))
    return FALSE;
  n = g_socket_receive_message (socket, NULL, &vector, 1, NULL, NULL, &flags, NULL, &error);
  return n == 0 ||
         (n < 0 && !g_error_matches (error, G_IO_ERROR, G_IO_ERROR_WOULD_BLOCK));
}

/* Connections that hold a descriptor and do nothing: a request whose
 * headers do not all arrive within "header-timeout" (a connection that sends
 * nothing at all included), or a kept-alive connection with no next request
 * within "idle-timeout", is shut down; libsoup then reads its end and lets
 * it go. A request being read, handled, answered or streamed is never cut
 * here. */
static gboolean
conn_timed_out (RivServer       *self,
                const ConnState *state,
                double           now)
{
  if (state->phase == CONN_WAITING)
    return now - state->since > self->header_timeout;
  if (state->phase == CONN_IDLE)
    return now - state->since > self->idle_timeout;
  return FALSE;
}

gboolean
_riv_server_conn_sweep_cb (gpointer user_data)
{
  RivServer *self = user_data;
  GHashTableIter iter;
  gpointer key, value;
  double now = riv_now ();

  g_hash_table_iter_init (&iter, self->sockets);
  while (g_hash_table_iter_next (&iter, &key, &value))
    {
      GSocket *socket = key;
      ConnState *state = value;

      if (g_socket_is_closed (socket))
        g_hash_table_iter_remove (&iter);
      else if (!socket_at_eof (socket))
        {
          state->eof_sightings = 0;
          if (conn_timed_out (self, state, now))
            {
              state->phase = CONN_CLOSING;
              g_socket_shutdown (socket, TRUE, TRUE, NULL);
            }
        }
      else if (state->eof_sightings++ > 0)
        {
          g_socket_close (socket, NULL);
          g_hash_table_iter_remove (&iter);
        }
    }
  return G_SOURCE_CONTINUE;
}

static void
conn_set_phase (RivServer         *self,
                SoupServerMessage *msg,
                ConnPhase          phase)
{
  GSocket *socket = soup_server_message_get_socket (msg);
  ConnState *state;

  if (socket == NULL || self->shut_down)
    return;
  state = g_hash_table_lookup (self->sockets, socket);
  if (state == NULL)
    {
      state = g_new0 (ConnState, 1);
      g_hash_table_insert (self->sockets, g_object_ref (socket), state);
    }
  if (state->phase != CONN_CLOSING)
    state->phase = phase;
  state->since = riv_now ();
}

/* Emitted when a connection is accepted (for its first request) and when
 * the first bytes of each next request arrive. */
void
_riv_server_request_started_cb (SoupServer        *server,
                                SoupServerMessage *msg,
                                gpointer           user_data)
{
  g_signal_connect (msg, "got-headers", G_CALLBACK (got_headers_cb), user_data);
  g_signal_connect (msg, "got-chunk", G_CALLBACK (got_chunk_cb), user_data);
  conn_set_phase (user_data, msg, CONN_WAITING);
}

/* "request-finished" and "request-aborted": the connection waits for its
 * next request, if it stays open. */
void
_riv_server_request_done_cb (SoupServer        *server,
                             SoupServerMessage *msg,
                             gpointer           user_data)
{
  conn_set_phase (user_data, msg, CONN_IDLE);
}
