/* riv-server-http.c
 * Copyright 2026 The Rivulet authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * HTTP plumbing shared by the routes: JSON replies and error details, CORS
 * headers, request bodies and their size limits (413 as the body arrives),
 * and the sweep that closes connections their client closed.
 */
#include "config.h"

#include <string.h>

#include "riv-json.h"
#include "riv-server-private.h"
#include "riv-wire.h"

#define JSON_MAX_DEPTH      32

typedef struct
{
  gsize    limit;
  gsize    received;
  gboolean rejected;
} BodyLimit;

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
  SoupMessageHeaders *request = soup_server_message_get_request_headers (msg);
  SoupMessageHeaders *response = soup_server_message_get_response_headers (msg);
  const char *origin = soup_message_headers_get_one (request, "Origin");

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

/* Request body limits: checked as the body arrives, so an oversized request
 * is answered 413 without being kept in memory. */

static void
reject_body (SoupServerMessage *msg,
             BodyLimit         *limit)
{
  SoupMessageBody *body = soup_server_message_get_request_body (msg);
  g_autofree char *detail = g_strdup_printf ("Request body too large (limit %" G_GSIZE_FORMAT
                                             " bytes).", limit->limit);

  limit->rejected = TRUE;
  soup_message_body_set_accumulate (body, FALSE);
  soup_message_body_truncate (body);
  _riv_server_add_cors_headers (msg);
  soup_message_headers_replace (soup_server_message_get_response_headers (msg),
                                "Connection", "close");
  _riv_server_reply_detail (msg, SOUP_STATUS_REQUEST_ENTITY_TOO_LARGE, detail);
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

static void
got_headers_cb (SoupServerMessage *msg,
                gpointer           user_data)
{
  RivServer *self = user_data;
  SoupMessageHeaders *headers = soup_server_message_get_request_headers (msg);
  const char *path = g_uri_get_path (soup_server_message_get_uri (msg));
  BodyLimit *limit = g_new0 (BodyLimit, 1);

  limit->limit = g_strcmp0 (path, API_PREFIX "/upload") == 0 ? self->max_upload : self->max_body;
  g_object_set_data_full (G_OBJECT (msg), "riv-body-limit", limit, g_free);
  take_range_header (msg);

  if (soup_server_message_get_status (msg) != 0)
    return;
  if (soup_message_headers_get_encoding (headers) == SOUP_ENCODING_CONTENT_LENGTH &&
      soup_message_headers_get_content_length (headers) > (goffset) limit->limit)
    reject_body (msg, limit);
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
    reject_body (msg, limit);
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

gboolean
_riv_server_conn_sweep_cb (gpointer user_data)
{
  RivServer *self = user_data;
  GHashTableIter iter;
  gpointer key, value;

  g_hash_table_iter_init (&iter, self->sockets);
  while (g_hash_table_iter_next (&iter, &key, &value))
    {
      GSocket *socket = key;

      if (g_socket_is_closed (socket))
        g_hash_table_iter_remove (&iter);
      else if (!socket_at_eof (socket))
        g_hash_table_iter_replace (&iter, GUINT_TO_POINTER (0));
      else if (GPOINTER_TO_UINT (value) == 0)
        g_hash_table_iter_replace (&iter, GUINT_TO_POINTER (1));
      else
        {
          g_socket_close (socket, NULL);
          g_hash_table_iter_remove (&iter);
        }
    }
  return G_SOURCE_CONTINUE;
}

void
_riv_server_request_started_cb (SoupServer        *server,
                                SoupServerMessage *msg,
                                gpointer           user_data)
{
  RivServer *self = user_data;
  GSocket *socket = soup_server_message_get_socket (msg);

  g_signal_connect (msg, "got-headers", G_CALLBACK (got_headers_cb), user_data);
  g_signal_connect (msg, "got-chunk", G_CALLBACK (got_chunk_cb), user_data);

  if (socket != NULL && !self->shut_down)
    g_hash_table_insert (self->sockets, g_object_ref (socket), GUINT_TO_POINTER (0));
}
