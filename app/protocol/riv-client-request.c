/* riv-client-request.c
 * Copyright 2026 The Rivulet authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * What every request of RivClient shares: timers on the client's context,
 * cancellation (by the caller, by close, by a timeout), the operation record
 * whose callback may outlive the client, headers, one-shot requests
 * (_riv_client_send () and _riv_client_read_reply (): every request but the
 * streams), and the server's explanation in an error body.
 */
#include "config.h"

#include <string.h>

#include "riv-client-private.h"
#include "riv-json.h"

GSource *
_riv_client_attach_timeout (RivClient   *self,
                            double       seconds,
                            GSourceFunc  func,
                            gpointer     data)
{
  GSource *source = g_timeout_source_new ((guint) MAX (0, seconds * 1000 + 0.5));

  g_source_set_callback (source, func, data, NULL);
  g_source_attach (source, self->context);
  return source;
}

void
_riv_client_clear_source (GSource **source)
{
  if (*source != NULL)
    {
      g_source_destroy (*source);
      g_clear_pointer (source, g_source_unref);
    }
}

static void
cancel_cb (GCancellable *cancellable,
           gpointer      user_data)
{
  g_cancellable_cancel (user_data);
}

static gboolean
op_cancel_timeout_cb (gpointer user_data)
{
  RivOpCancel *oc = user_data;

  oc->timed_out = TRUE;
  g_cancellable_cancel (oc->cancellable);
  g_clear_pointer (&oc->timeout, g_source_unref);
  return G_SOURCE_REMOVE;
}

RivOpCancel *
_riv_client_op_cancel_new (RivClient    *self,
                           GCancellable *user,
                           double        timeout_s)
{
  RivOpCancel *oc = g_new0 (RivOpCancel, 1);

  oc->cancellable = g_cancellable_new ();
  if (user != NULL)
    {
      oc->user = g_object_ref (user);
      oc->user_handler = g_cancellable_connect (user, G_CALLBACK (cancel_cb),
                                                oc->cancellable, NULL);
    }
  oc->client = g_object_ref (self->cancellable);
  oc->client_handler = g_cancellable_connect (self->cancellable, G_CALLBACK (cancel_cb),
                                              oc->cancellable, NULL);
  if (timeout_s > 0)
    oc->timeout = _riv_client_attach_timeout (self, timeout_s, op_cancel_timeout_cb, oc);

  return oc;
}

void
_riv_client_op_cancel_free (RivOpCancel *oc)
{
  if (oc == NULL)
    return;

  _riv_client_clear_source (&oc->timeout);
  if (oc->user != NULL)
    g_cancellable_disconnect (oc->user, oc->user_handler);
  g_cancellable_disconnect (oc->client, oc->client_handler);
  g_clear_object (&oc->user);
  g_clear_object (&oc->client);
  g_clear_object (&oc->cancellable);
  g_free (oc);
}

RivClientOp *
_riv_client_op_new (RivClient   *self,
                    RivJob      *job,
                    SoupMessage *msg)
{
  RivClientOp *op = g_new0 (RivClientOp, 1);

  op->link.data = op;
  op->client = self;
  op->client_cancellable = g_object_ref (self->cancellable);
  op->job = job ? g_object_ref (job) : NULL;
  op->msg = msg ? g_object_ref (msg) : NULL;
  return op;
}

void
_riv_client_op_free (RivClientOp *op)
{
  if (op->msg != NULL)
    g_signal_handlers_disconnect_by_data (op->msg, op);
  g_clear_object (&op->cancellable);
  g_clear_object (&op->client_cancellable);
  g_clear_object (&op->job);
  g_clear_object (&op->msg);
  g_free (op->url);
  g_free (op);
}

/* TRUE when the client behind op is gone or closed: the callback must return
 * without touching it. */
gboolean
_riv_client_op_client_gone (RivClientOp *op)
{
  return g_cancellable_is_cancelled (op->client_cancellable);
}

/* op's client, or NULL when it is gone or closed. */
RivClient *
_riv_client_op_get_client (RivClientOp *op)
{
  return _riv_client_op_client_gone (op) ? NULL : op->client;
}

static int
port_of (GUri *uri)
{
  int port = g_uri_get_port (uri);

  if (port > 0)
    return port;
  return g_ascii_strcasecmp (g_uri_get_scheme (uri), "https") == 0 ? 443 : 80;
}

static gboolean
same_origin (GUri       *uri,
             const char *base_url)
{
  g_autoptr(GUri) base = base_url != NULL ? g_uri_parse (base_url, G_URI_FLAGS_NONE, NULL) : NULL;

  return base != NULL && uri != NULL &&
         g_ascii_strcasecmp (g_uri_get_scheme (uri), g_uri_get_scheme (base)) == 0 &&
         g_uri_get_host (uri) != NULL && g_uri_get_host (base) != NULL &&
         g_ascii_strcasecmp (g_uri_get_host (uri), g_uri_get_host (base)) == 0 &&
         port_of (uri) == port_of (base);
}

gboolean
riv_url_same_origin (const char *a,
                     const char *b)
{
  g_autoptr(GUri) uri = a != NULL ? g_uri_parse (a, G_URI_FLAGS_NONE, NULL) : NULL;

  return same_origin (uri, b);
}

/* Every request's headers. The credentials (the login's cookie, the token)
 * go only to the origin the user named (the client's URL): never to a root
 * the server's config names elsewhere (riv_client_set_follow_root ()). */
void
_riv_client_prepare_message (RivClient   *self,
                             SoupMessage *msg)
{
  SoupMessageHeaders *headers = soup_message_get_request_headers (msg);

  soup_message_headers_replace (headers, "x-gradio-user", "api");
  _riv_client_tls_prepare_message (self, msg);
  if (!same_origin (soup_message_get_uri (msg), self->access.url))
    return;
  if (self->access.auth_cookie != NULL)
    soup_message_headers_replace (headers, "Cookie", self->access.auth_cookie);
  if (self->access.token != NULL && *self->access.token != '\0')
    {
      g_autofree char *value = g_strconcat ("Bearer ", self->access.token, NULL);

      soup_message_headers_replace (headers, "Authorization", value);
    }
  if (self->access.hf_token != NULL)
    {
      g_autofree char *value = g_strconcat ("Bearer ", self->access.hf_token, NULL);

      soup_message_headers_replace (headers, "x-hf-authorization", value);
    }
}

void
riv_client_authorize_request (RivClient   *self,
                              SoupMessage *msg)
{
  g_return_if_fail (RIV_IS_CLIENT (self));
  g_return_if_fail (SOUP_IS_MESSAGE (msg));

  /* Credentials only ever go to the server the user named. */
  if (self->config != NULL)
    _riv_client_prepare_message (self, msg);
}

/* A reply read whole, up to a bound --------------------------------------------------- */

/* A reply is read in chunks of its own length when the server gave one (a
 * join's answer is a few dozen bytes), else from READ_CHUNK_FIRST doubling
 * to READ_CHUNK: every read holds a buffer of the chunk's size until the
 * bytes come, and a load run has thousands of replies on their way at once. */
#define READ_CHUNK_FIRST (4 * 1024)
#define READ_CHUNK       (64 * 1024)

typedef struct
{
  SoupMessage  *msg;
  GInputStream *input;         /* nullable until the reply's headers came */
  GCancellable *cancellable;   /* ours: cancelled to drop a reply that is too large */
  GCancellable *caller;        /* nullable */
  gulong        caller_handler;
  GByteArray   *data;
  gsize         max_bytes;
  gsize         chunk;         /* the next read's size */
  int           io_priority;
} BoundedRead;

static void
bounded_read_free (BoundedRead *br)
{
  if (br->caller != NULL)
    g_cancellable_disconnect (br->caller, br->caller_handler);
  g_clear_object (&br->caller);
  /* A reply dropped half-read: the cancellation makes libsoup close its
   * connection instead of reading the rest to reuse it. */
  if (br->input != NULL && !g_input_stream_is_closed (br->input))
    g_cancellable_cancel (br->cancellable);
  g_clear_object (&br->input);
  g_clear_object (&br->cancellable);
  g_clear_object (&br->msg);
  g_clear_pointer (&br->data, g_byte_array_unref);
  g_free (br);
}

static void
bounded_read_too_large (GTask *task)
{
  BoundedRead *br = g_task_get_task_data (task);

  g_cancellable_cancel (br->cancellable);
  g_task_return_new_error (task, RIV_CLIENT_ERROR, RIV_CLIENT_ERROR_PROTOCOL,
                           "the server's reply to %s is larger than %" G_GSIZE_FORMAT " MiB, "
                           "the client's limit for it",
                           g_uri_get_path (soup_message_get_uri (br->msg)),
                           br->max_bytes / (1024 * 1024));
}

static void bounded_read_next (GTask *task);

static void
bounded_read_cb (GObject      *object,
                 GAsyncResult *result,
                 gpointer      user_data)
{
  g_autoptr(GTask) task = user_data;
  BoundedRead *br = g_task_get_task_data (task);
  g_autoptr(GError) error = NULL;
  g_autoptr(GBytes) chunk = g_input_stream_read_bytes_finish (br->input, result, &error);

  if (chunk == NULL)
    {
      g_task_return_error (task, g_steal_pointer (&error));
      return;
    }
  if (g_bytes_get_size (chunk) == 0)
    {
      /* The whole reply: the stream is at its end, closing it cannot block. */
      g_input_stream_close (br->input, NULL, NULL);
      g_task_return_pointer (task, g_byte_array_free_to_bytes (g_steal_pointer (&br->data)),
                             (GDestroyNotify) g_bytes_unref);
      return;
    }
  if (br->data->len + g_bytes_get_size (chunk) > br->max_bytes)
    {
      bounded_read_too_large (task);
      return;
    }
  if (g_bytes_get_size (chunk) == br->chunk)
    br->chunk = MIN (br->chunk * 2, READ_CHUNK);
  g_byte_array_append (br->data, g_bytes_get_data (chunk, NULL), g_bytes_get_size (chunk));
  bounded_read_next (g_steal_pointer (&task));
}

/* Takes task. */
static void
bounded_read_next (GTask *task)
{
  BoundedRead *br = g_task_get_task_data (task);

  g_input_stream_read_bytes_async (br->input, br->chunk, br->io_priority, br->cancellable,
                                   bounded_read_cb, task);
}

static void
bounded_send_cb (GObject      *object,
                 GAsyncResult *result,
                 gpointer      user_data)
{
  g_autoptr(GTask) task = user_data;
  BoundedRead *br = g_task_get_task_data (task);
  g_autoptr(GError) error = NULL;
  goffset length;

  br->input = soup_session_send_finish (SOUP_SESSION (object), result, &error);
  if (br->input == NULL)
    {
      g_task_return_error (task, g_steal_pointer (&error));
      return;
    }
  length = soup_message_headers_get_content_length (soup_message_get_response_headers (br->msg));
  if (length > 0 && (guint64) length > br->max_bytes)
    {
      bounded_read_too_large (task);
      return;
    }
  /* One more byte than announced: the end is then seen by the read after. */
  br->chunk = length > 0 ? (gsize) MIN ((guint64) length + 1, READ_CHUNK) : READ_CHUNK_FIRST;
  bounded_read_next (g_steal_pointer (&task));
}

/* Sends a one-shot request and reads its reply whole, up to max_bytes. */
void
_riv_client_send (RivClient           *self,
                  SoupMessage         *msg,
                  JsonNode            *json,
                  gsize                max_bytes,
                  RivClientSendFlags   flags,
                  GCancellable        *cancellable,
                  GAsyncReadyCallback  callback,
                  gpointer             user_data)
{
  GTask *task = g_task_new (self->session, NULL, callback, user_data);
  BoundedRead *br;
  g_autoptr(GBytes) bytes = NULL;
  char *text = NULL;
  gsize len = 0;

  if (json != NULL)
    {
      text = riv_json_to_string (json, &len);
      bytes = g_bytes_new_take (text, len);
      soup_message_set_request_body_from_bytes (msg, "application/json", bytes);
      /* libsoup opens a new connection for every non-idempotent request
       * unless told otherwise: a burst of 1,000 joins would cost 1,000 TCP
       * connections. The flag only allows reusing a kept-alive connection;
       * libsoup still never re-sends a POST (its restart logic looks at the
       * method). */
      soup_message_add_flags (msg, SOUP_MESSAGE_IDEMPOTENT);
    }
  _riv_client_prepare_message (self, msg);
  if (RIV_CLIENT_TAPPED (self) && !(flags & RIV_CLIENT_SEND_UNTAPPED))
    _riv_client_tap_request (self, msg, 0, text, len);

  if ((flags & RIV_CLIENT_SEND_DIRECT) && _riv_client_direct_possible (self, msg))
    {
      _riv_client_direct_send (self, msg, bytes, max_bytes, cancellable, task);
      return;
    }

  br = g_new0 (BoundedRead, 1);
  br->msg = g_object_ref (msg);
  br->cancellable = g_cancellable_new ();
  if (cancellable != NULL)
    {
      br->caller = g_object_ref (cancellable);
      br->caller_handler = g_cancellable_connect (cancellable, G_CALLBACK (cancel_cb),
                                                  br->cancellable, NULL);
    }
  br->data = g_byte_array_new ();
  br->max_bytes = max_bytes;
  br->io_priority = self->io_priority;
  g_task_set_task_data (task, br, (GDestroyNotify) bounded_read_free);
  soup_session_send_async (self->session, msg, self->io_priority, br->cancellable,
                           bounded_send_cb, task);
}

GBytes *
_riv_client_read_reply (RivClient     *self,
                        SoupMessage   *msg,
                        GAsyncResult  *result,
                        GError       **error)
{
  GBytes *body = g_task_propagate_pointer (G_TASK (result), error);

  if (self != NULL && RIV_CLIENT_TAPPED (self))
    _riv_client_tap_response (self, msg, 0, body);
  return body;
}

/* The server's explanation in a FastAPI-style error body: "detail" as a string,
 * Gradio's 422 list of {"message"} (or pydantic {"msg"}) objects, or "error". */
char *
_riv_client_extract_detail (GBytes *body)
{
  g_autoptr(JsonNode) root = NULL;
  JsonObject *object;
  JsonNode *detail;
  const char *data;
  gsize len = 0;

  if (body == NULL || (data = g_bytes_get_data (body, &len)) == NULL || len == 0)
    return NULL;

  root = riv_json_parse (NULL, data, len, 64, NULL);
  if (root == NULL || !JSON_NODE_HOLDS_OBJECT (root))
    return NULL;

  object = json_node_get_object (root);
  detail = json_object_get_member (object, "detail");
  if (detail != NULL && JSON_NODE_HOLDS_VALUE (detail) &&
      json_node_get_value_type (detail) == G_TYPE_STRING)
    return g_strdup (json_node_get_string (detail));

  if (detail != NULL && JSON_NODE_HOLDS_ARRAY (detail))
    {
      JsonArray *array = json_node_get_array (detail);
      g_autoptr(GString) text = g_string_new (NULL);

      for (guint i = 0; i < json_array_get_length (array); i++)
        {
          JsonNode *item = json_array_get_element (array, i);
          const char *message = NULL;
          const char *param = NULL;

          if (JSON_NODE_HOLDS_OBJECT (item))
            {
              JsonObject *item_object = json_node_get_object (item);

              message = riv_json_get_string (item_object, "message");
              if (message == NULL)
                message = riv_json_get_string (item_object, "msg");
              param = riv_json_get_string (item_object, "parameter_name");
            }
          else if (JSON_NODE_HOLDS_VALUE (item) && json_node_get_value_type (item) == G_TYPE_STRING)
            message = json_node_get_string (item);

          if (message == NULL)
            continue;
          if (text->len > 0)
            g_string_append (text, "; ");
          if (param != NULL)
            g_string_append_printf (text, "%s: ", param);
          g_string_append (text, message);
        }
      if (text->len > 0)
        return g_string_free (g_steal_pointer (&text), FALSE);
    }

  if (detail != NULL && JSON_NODE_HOLDS_OBJECT (detail))
    {
      const char *message = riv_json_get_string (json_node_get_object (detail), "auth_message");

      if (message == NULL)
        message = riv_json_get_string (json_node_get_object (detail), "message");
      if (message != NULL)
        return g_strdup (message);
    }

  if (riv_json_get_string (object, "error") != NULL)
    return g_strdup (riv_json_get_string (object, "error"));

  return NULL;
}

/* "PREFIX: DETAIL", or DETAIL alone when it already says PREFIX (Gradio's 503
 * reads "Queue is full. Max size is …"), or PREFIX alone when there is no
 * DETAIL: one prefix per error text. */
/* What a proxy's own answers mean: Gradio itself never sends these. */
const char *
_riv_client_gateway_text (guint status)
{
  if (status == SOUP_STATUS_BAD_GATEWAY)
    return "the proxy in front of the server got no answer from it: the server went away "
           "or is restarting (HTTP 502 Bad Gateway)";
  if (status == SOUP_STATUS_GATEWAY_TIMEOUT)
    return "the proxy in front of the server gave up waiting for it (HTTP 504 Gateway Timeout)";
  return NULL;
}

char *
_riv_client_error_text (const char *prefix,
                        const char *detail)
{
  gsize len = strlen (prefix);

  if (detail == NULL || *detail == '\0')
    return g_strdup (prefix);
  if (g_ascii_strncasecmp (detail, prefix, len) == 0 &&
      (detail[len] == '\0' || !g_ascii_isalnum (detail[len])))
    return g_strdup (detail);
  return g_strdup_printf ("%s: %s", prefix, detail);
}

void
_riv_client_task_data_free (RivClientTaskData *cd)
{
  g_clear_object (&cd->msg);
  g_clear_pointer (&cd->cancel, _riv_client_op_cancel_free);
  g_clear_pointer (&cd->config, riv_config_unref);
  g_free (cd);
}
