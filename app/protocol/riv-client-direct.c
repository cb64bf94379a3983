/* riv-client-direct.c
 * Copyright 2026 The Rivulet authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Requests written by hand, replies read by riv-http-reply.c: what a
 * virtual user sends most (its joins and its event stream) to a server on
 * this machine, without libsoup's message I/O. libsoup keeps a header buffer
 * of 16 KiB, a filter stream's 8 KiB and a splice buffer of 8 KiB for each
 * message in flight, and runs several objects and signals a request; here a
 * request is a connection, its bytes and a 4 KiB read buffer.
 *
 * Only a plain-HTTP server on a loopback address is reached so: no proxy
 * stands between (the session has no resolver then, riv-client.c), no TLS,
 * and a fresh connection per request, closed once its reply is read. Every
 * request keeps its SoupMessage as the description of what is sent (method,
 * URL, headers), so the tap and the callers read it as before; the status of
 * a reply read here is kept on the message (_riv_client_reply_status ()).
 */
#include "config.h"

#include <string.h>

#include "riv-client-private.h"
#include "riv-listen.h"

#define DIRECT_READ_SIZE (4 * 1024)

static GQuark
direct_status_quark (void)
{
  static GQuark quark;

  if (G_UNLIKELY (quark == 0))
    quark = g_quark_from_static_string ("riv-direct-status");
  return quark;
}

/* Whether msg may be sent by hand (the client asked for it). */
gboolean
_riv_client_direct_possible (RivClient   *self,
                             SoupMessage *msg)
{
  GUri *uri = soup_message_get_uri (msg);

  return self->sse.direct && g_strcmp0 (g_uri_get_scheme (uri), "http") == 0 &&
         soup_session_get_proxy_resolver (self->session) == NULL &&
         riv_host_is_loopback (g_uri_get_host (uri));
}

/* msg's reply status: libsoup's, or the one a direct exchange read. */
guint
_riv_client_reply_status (SoupMessage *msg)
{
  gpointer direct = g_object_get_qdata (G_OBJECT (msg), direct_status_quark ());

  return direct != NULL ? GPOINTER_TO_UINT (direct) : soup_message_get_status (msg);
}

void
_riv_client_set_reply_status (SoupMessage *msg,
                              guint        status)
{
  g_object_set_qdata (G_OBJECT (msg), direct_status_quark (), GUINT_TO_POINTER (status));
}

/* The request as libsoup would write it: msg's method, path and headers, a
 * Host, the body with its type and length, and "Connection: close" (a direct
 * connection carries one request). */
GBytes *
_riv_client_direct_request (SoupMessage *msg,
                            const char  *body,
                            gsize        len)
{
  GUri *uri = soup_message_get_uri (msg);
  const char *host = g_uri_get_host (uri);
  const char *path = g_uri_get_path (uri);
  const char *query = g_uri_get_query (uri);
  gboolean v6 = strchr (host, ':') != NULL;
  int port = g_uri_get_port (uri);
  GString *text = g_string_new (soup_message_get_method (msg));
  SoupMessageHeadersIter iter;
  const char *name, *value;

  g_string_append_printf (text, " %s%s%s HTTP/1.1\r\nHost: %s%s%s", *path != '\0' ? path : "/",
                          query != NULL ? "?" : "", query != NULL ? query : "",
                          v6 ? "[" : "", host, v6 ? "]" : "");
  if (port > 0 && port != 80)
    g_string_append_printf (text, ":%d", port);
  g_string_append (text, "\r\nUser-Agent: rivulet/" PACKAGE_VERSION "\r\nConnection: close\r\n");
  soup_message_headers_iter_init (&iter, soup_message_get_request_headers (msg));
  while (soup_message_headers_iter_next (&iter, &name, &value))
    if (g_ascii_strcasecmp (name, "Connection") != 0 &&
        g_ascii_strcasecmp (name, "Content-Length") != 0 &&
        (body == NULL || g_ascii_strcasecmp (name, "Content-Type") != 0))
      g_string_append_printf (text, "%s: %s\r\n", name, value);
  if (body != NULL)
    g_string_append_printf (text, "Content-Type: application/json\r\n"
                                  "Content-Length: %" G_GSIZE_FORMAT "\r\n", len);
  g_string_append (text, "\r\n");
  if (body != NULL)
    g_string_append_len (text, body, (gssize) len);
  return g_string_free_to_bytes (text);
}

/* Opening: a connection with the request written ------------------------------------ */

typedef struct
{
  GSocketConnection *conn;
  GBytes            *request;
  int                io_priority;
} Opening;

static void
opening_free (Opening *op)
{
  g_clear_object (&op->conn);
  g_clear_pointer (&op->request, g_bytes_unref);
  g_free (op);
}

static void
opening_written_cb (GObject      *object,
                    GAsyncResult *result,
                    gpointer      user_data)
{
  g_autoptr(GTask) task = user_data;
  Opening *op = g_task_get_task_data (task);
  g_autoptr(GError) error = NULL;

  if (!g_output_stream_write_all_finish (G_OUTPUT_STREAM (object), result, NULL, &error))
    g_task_return_error (task, g_steal_pointer (&error));
  else
    g_task_return_pointer (task, g_steal_pointer (&op->conn), g_object_unref);
}

static void
opening_connected_cb (GObject      *object,
                      GAsyncResult *result,
                      gpointer      user_data)
{
  g_autoptr(GTask) task = user_data;
  Opening *op = g_task_get_task_data (task);
  g_autoptr(GError) error = NULL;
  GCancellable *cancellable;
  const char *bytes;
  gsize len;

  op->conn = g_socket_client_connect_to_host_finish (G_SOCKET_CLIENT (object), result, &error);
  if (op->conn == NULL)
    {
      g_task_return_error (task, g_steal_pointer (&error));
      return;
    }
  bytes = g_bytes_get_data (op->request, &len);
  cancellable = g_task_get_cancellable (task);
  g_output_stream_write_all_async (g_io_stream_get_output_stream (G_IO_STREAM (op->conn)), bytes,
                                   len, op->io_priority, cancellable, opening_written_cb,
                                   g_steal_pointer (&task));
}

/* Connects to msg's host and writes the request (takes it); callback gets
 * the connection from _riv_client_direct_open_finish (). */
void
_riv_client_direct_open (RivClient           *self,
                         SoupMessage         *msg,
                         GBytes              *request,
                         GCancellable        *cancellable,
                         GAsyncReadyCallback  callback,
                         gpointer             user_data)
{
  GTask *task = g_task_new (NULL, cancellable, callback, user_data);
  Opening *op = g_new0 (Opening, 1);
  GUri *uri = soup_message_get_uri (msg);
  int port = g_uri_get_port (uri);

  op->request = request;
  op->io_priority = self->io_priority;
  g_task_set_task_data (task, op, (GDestroyNotify) opening_free);
  if (self->sse.socket_client == NULL)
    {
      self->sse.socket_client = g_socket_client_new ();
      g_socket_client_set_enable_proxy (self->sse.socket_client, FALSE);
    }
  /* The host as it stands, an IPv6 literal without brackets, and the port apart. */
  g_socket_client_connect_to_host_async (self->sse.socket_client, g_uri_get_host (uri),
                                         port > 0 ? (guint16) port : 80, cancellable,
                                         opening_connected_cb, task);
}

GSocketConnection *
_riv_client_direct_open_finish (GAsyncResult  *result,
                                GError       **error)
{
  return g_task_propagate_pointer (G_TASK (result), error);
}

/* A one-shot exchange --------------------------------------------------------------- */

typedef struct
{
  SoupMessage       *msg;
  GSocketConnection *conn;
  RivHttpReply      *reply;
  GByteArray        *data;
  guint8            *buffer;
  GCancellable      *cancellable;  /* ours: cancelled by the caller's and by close */
  GCancellable      *caller;       /* nullable */
  GCancellable      *client;       /* the client's, cancelled when it closes */
  gulong             caller_handler;
  gulong             client_handler;
  gsize              max_bytes;
  int                io_priority;
} Exchange;

static void
cancel_cb (GCancellable *cancellable,
           gpointer      user_data)
{
  g_cancellable_cancel (user_data);
}

static void
exchange_free (Exchange *ex)
{
  if (ex->caller != NULL)
    g_cancellable_disconnect (ex->caller, ex->caller_handler);
  g_cancellable_disconnect (ex->client, ex->client_handler);
  g_clear_object (&ex->caller);
  g_clear_object (&ex->client);
  g_clear_object (&ex->msg);
  g_clear_object (&ex->conn);
  g_clear_pointer (&ex->reply, riv_http_reply_free);
  g_clear_pointer (&ex->data, g_byte_array_unref);
  g_free (ex->buffer);
  g_clear_object (&ex->cancellable);
  g_free (ex);
}

static void exchange_read_cb (GObject      *object,
                              GAsyncResult *result,
                              gpointer      user_data);

/* Takes task. */
static void
exchange_read_next (GTask *task)
{
  Exchange *ex = g_task_get_task_data (task);

  g_input_stream_read_async (g_io_stream_get_input_stream (G_IO_STREAM (ex->conn)), ex->buffer,
                             DIRECT_READ_SIZE, ex->io_priority, ex->cancellable,
                             exchange_read_cb, task);
}

static void
exchange_done (GTask *task)
{
  Exchange *ex = g_task_get_task_data (task);

  _riv_client_set_reply_status (ex->msg, riv_http_reply_get_status (ex->reply));
  g_task_return_pointer (task, g_byte_array_free_to_bytes (g_steal_pointer (&ex->data)),
                         (GDestroyNotify) g_bytes_unref);
}

static void
exchange_read_cb (GObject      *object,
                  GAsyncResult *result,
                  gpointer      user_data)
{
  g_autoptr(GTask) task = user_data;
  Exchange *ex = g_task_get_task_data (task);
  g_autoptr(GError) error = NULL;
  gssize n = g_input_stream_read_finish (G_INPUT_STREAM (object), result, &error);
  gssize body;

  if (n < 0)
    {
      g_task_return_error (task, g_steal_pointer (&error));
      return;
    }
  if (n == 0)
    {
      /* The connection's end: the reply's, or a cut. */
      if (riv_http_reply_get_status (ex->reply) != 0 && riv_http_reply_ends_at_eof (ex->reply))
        exchange_done (task);
      else
        g_task_return_new_error (task, G_IO_ERROR, G_IO_ERROR_CONNECTION_CLOSED,
                                 "the server closed the connection before its reply ended");
      return;
    }

  body = riv_http_reply_feed (ex->reply, (char *) ex->buffer, (gsize) n, &error);
  if (body < 0)
    {
      g_task_return_error (task, g_steal_pointer (&error));
      return;
    }
  /* A length announced beyond the bound fails before its bytes come. */
  if (ex->data->len + (gsize) body > ex->max_bytes ||
      (guint64) MAX (riv_http_reply_get_length (ex->reply), 0) > ex->max_bytes - ex->data->len -
                                                               (gsize) body)
    {
      g_task_return_new_error (task, RIV_CLIENT_ERROR, RIV_CLIENT_ERROR_PROTOCOL,
                               "the server's reply to %s is larger than %" G_GSIZE_FORMAT " MiB, "
                               "the client's limit for it",
                               g_uri_get_path (soup_message_get_uri (ex->msg)),
                               ex->max_bytes / (1024 * 1024));
      return;
    }
  g_byte_array_append (ex->data, ex->buffer, (guint) body);
  if (riv_http_reply_get_state (ex->reply) == RIV_HTTP_REPLY_END)
    exchange_done (task);
  else
    exchange_read_next (g_steal_pointer (&task));
}

static void
exchange_opened_cb (GObject      *object,
                    GAsyncResult *result,
                    gpointer      user_data)
{
  g_autoptr(GTask) task = user_data;
  Exchange *ex = g_task_get_task_data (task);
  g_autoptr(GError) error = NULL;

  ex->conn = _riv_client_direct_open_finish (result, &error);
  if (ex->conn == NULL)
    {
      g_task_return_error (task, g_steal_pointer (&error));
      return;
    }
  ex->buffer = g_malloc (DIRECT_READ_SIZE);
  exchange_read_next (g_steal_pointer (&task));
}

/* Sends msg (its body, if any, in body) by hand and reads its reply whole,
 * up to max_bytes, as _riv_client_send () does with libsoup: task returns
 * the body, and msg then carries the status (_riv_client_reply_status ()).
 * cancellable ends it. Takes task, whose data this sets. */
void
_riv_client_direct_send (RivClient    *self,
                         SoupMessage  *msg,
                         GBytes       *body,
                         gsize         max_bytes,
                         GCancellable *cancellable,
                         GTask        *task)
{
  Exchange *ex = g_new0 (Exchange, 1);
  gsize len = 0;
  const char *text = body != NULL ? g_bytes_get_data (body, &len) : NULL;

  ex->msg = g_object_ref (msg);
  ex->reply = riv_http_reply_new ();
  ex->data = g_byte_array_new ();
  ex->max_bytes = max_bytes;
  ex->io_priority = self->io_priority;
  /* libsoup's joins end with the session's abort when the client closes;
   * these end with the client's cancellable. */
  ex->cancellable = g_cancellable_new ();
  ex->client = g_object_ref (self->cancellable);
  ex->client_handler = g_cancellable_connect (ex->client, G_CALLBACK (cancel_cb),
                                              ex->cancellable, NULL);
  if (cancellable != NULL)
    {
      ex->caller = g_object_ref (cancellable);
      ex->caller_handler = g_cancellable_connect (cancellable, G_CALLBACK (cancel_cb),
                                                  ex->cancellable, NULL);
    }
  g_task_set_task_data (task, ex, (GDestroyNotify) exchange_free);
  _riv_client_direct_open (self, msg, _riv_client_direct_request (msg, text, len),
                           ex->cancellable, exchange_opened_cb, task);
}
