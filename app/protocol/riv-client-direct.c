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

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

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

/* Whether msg may be sent by hand: the client asked for it, the server is on
 * this machine over plain HTTP, and the context's poller can wait for the
 * connection. */
gboolean
_riv_client_direct_possible (RivClient   *self,
                             SoupMessage *msg)
{
  GUri *uri = soup_message_get_uri (msg);

  if (!self->sse.direct || g_strcmp0 (g_uri_get_scheme (uri), "http") != 0 ||
      soup_session_get_proxy_resolver (self->session) != NULL ||
      !riv_host_is_loopback (g_uri_get_host (uri)))
    return FALSE;
  if (self->sse.poller == NULL)
    self->sse.poller = riv_poller_get (self->context, self->io_priority);
  return self->sse.poller != NULL;
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

/* A connection of the request's own ----------------------------------------------- */

/* The literal of a loopback host's attempt-th address (_riv_client_direct_possible ()
 * allowed only loopback hosts): the host itself, or localhost's, IPv4's first and
 * then IPv6's; NULL after the last. */
static const char *
direct_literal (const char *host,
                guint       attempt)
{
  if (g_ascii_strcasecmp (host, "localhost") == 0)
    return attempt == 0 ? "127.0.0.1" : attempt == 1 ? "::1" : NULL;
  return attempt == 0 ? host : NULL;
}

static gboolean
direct_address (const char              *literal,
                int                      port,
                struct sockaddr_storage *address,
                socklen_t               *len)
{
  struct sockaddr_in *in = (struct sockaddr_in *) address;
  struct sockaddr_in6 *in6 = (struct sockaddr_in6 *) address;

  memset (address, 0, sizeof *address);
  if (inet_pton (AF_INET, literal, &in->sin_addr) == 1)
    {
      in->sin_family = AF_INET;
      in->sin_port = g_htons ((guint16) port);
      *len = sizeof *in;
      return TRUE;
    }
  if (inet_pton (AF_INET6, literal, &in6->sin6_addr) == 1)
    {
      in6->sin6_family = AF_INET6;
      in6->sin6_port = g_htons ((guint16) port);
      *len = sizeof *in6;
      return TRUE;
    }
  return FALSE;
}

/* Keeps the failure saved (an errno) of connecting, or of sending the
 * request, for the owner's next write. */
static void
conn_fail (RivDirectConn *c,
           int            saved,
           gboolean       connecting)
{
  c->error = g_error_new (G_IO_ERROR, g_io_error_from_errno (saved), "Could not %s %s port %d: %s",
                          connecting ? "connect to" : "send the request to", c->host, c->port,
                          g_strerror (saved));
}

static void
conn_close (RivDirectConn *c)
{
  /* The watch first: it leaves epoll while its number is still this socket. */
  g_clear_pointer (&c->watch, riv_poller_watch_free);
  if (c->fd >= 0)
    close (c->fd);
  c->fd = -1;
}

/* A socket for the next address, its connection under way. A failure is
 * kept for the owner's first _riv_direct_conn_write (), and its watch is
 * called soon so that it comes. */
static void
conn_connect (RivDirectConn *c)
{
  const char *literal = direct_literal (c->host, c->attempt);
  struct sockaddr_storage address;
  socklen_t len = 0;
  int saved = 0;
  int fd = -1;

  if (literal == NULL || !direct_address (literal, c->port, &address, &len))
    saved = EADDRNOTAVAIL;
  else if ((fd = socket (address.ss_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0)) < 0)
    saved = errno;
  else if (connect (fd, (struct sockaddr *) &address, len) < 0 && errno != EINPROGRESS)
    {
      saved = errno;
      close (fd);
      fd = -1;
    }

  c->fd = fd;
  /* The watch is freed before the socket is closed (conn_close ()). */
  c->watch = riv_poller_watch_new_owned (c->poller, fd, c->func, c->user_data);
  if (saved != 0)
    {
      conn_fail (c, saved, TRUE);
      riv_poller_watch_soon (c->watch);
    }
}

/* Starts connecting to msg's host for request (taken): func (user_data) is
 * called on the client's context when there is news, as the watch's
 * callback; until _riv_direct_conn_write () says the request is written,
 * it calls that. */
void
_riv_direct_conn_open (RivDirectConn *c,
                       RivClient     *self,
                       SoupMessage   *msg,
                       GBytes        *request,
                       RivPollerFunc  func,
                       gpointer       user_data)
{
  GUri *uri = soup_message_get_uri (msg);
  int port = g_uri_get_port (uri);

  memset (c, 0, sizeof *c);
  c->fd = -1;
  c->request = request;
  c->host = g_strdup (g_uri_get_host (uri));
  c->port = port > 0 ? port : 80;
  c->poller = riv_poller_ref (self->sse.poller);
  c->func = func;
  c->user_data = user_data;
  conn_connect (c);
}

/* Writes what it can of the request: 1 once it is all written, 0 while it
 * waits (the watch is called again when the socket can take more), -1 and
 * error when the connection failed. */
int
_riv_direct_conn_write (RivDirectConn  *c,
                        GError        **error)
{
  const char *data;
  gsize len;

  if (c->request == NULL)
    return 1;
  data = g_bytes_get_data (c->request, &len);
  while (c->error == NULL && c->written < len)
    {
      gssize n = send (c->fd, data + c->written, len - c->written, MSG_NOSIGNAL | MSG_DONTWAIT);
      int saved;

      if (n >= 0)
        {
          c->written += (gsize) n;
          continue;
        }
      saved = errno;
      if (saved == EINTR)
        continue;
      /* Still connecting, or the send buffer full. */
      if (saved == EAGAIN || saved == EWOULDBLOCK)
        {
          if (riv_poller_watch_writable (c->watch, &c->error))
            return 0;
          break;
        }
      /* localhost's next address. */
      if (saved == ECONNREFUSED && c->written == 0 &&
          direct_literal (c->host, c->attempt + 1) != NULL)
        {
          conn_close (c);
          c->attempt++;
          conn_connect (c);
          continue;
        }
      /* A failed connect shows at the first send. */
      conn_fail (c, saved, c->written == 0 && (saved == ECONNREFUSED || saved == ETIMEDOUT ||
                                               saved == EHOSTUNREACH || saved == ENETUNREACH));
    }
  if (c->error != NULL)
    {
      g_propagate_error (error, g_steal_pointer (&c->error));
      return -1;
    }
  g_clear_pointer (&c->request, g_bytes_unref);
  return 1;
}

/* Closes the connection and forgets the request. */
void
_riv_direct_conn_clear (RivDirectConn *c)
{
  conn_close (c);
  g_clear_pointer (&c->request, g_bytes_unref);
  g_clear_pointer (&c->host, g_free);
  g_clear_pointer (&c->poller, riv_poller_unref);
  g_clear_error (&c->error);
}

/* A one-shot exchange --------------------------------------------------------------- */

typedef struct
{
  SoupMessage   *msg;
  GTask         *task;         /* nullable: ours until the reply (or its failure) is returned */
  RivDirectConn  conn;
  RivHttpReply  *reply;
  GByteArray    *data;
  guint8        *buffer;
  GCancellable  *caller;       /* nullable */
  GCancellable  *client;       /* the client's, cancelled when it closes */
  gulong         caller_handler;
  gulong         client_handler;
  gsize          max_bytes;
  gboolean       cancelled;
} Exchange;

static void
exchange_free (Exchange *ex)
{
  _riv_direct_conn_clear (&ex->conn);
  g_clear_object (&ex->msg);
  g_clear_pointer (&ex->reply, riv_http_reply_free);
  g_clear_pointer (&ex->data, g_byte_array_unref);
  g_free (ex->buffer);
  g_free (ex);
}

/* Runs on the client's thread (a client is used from one): the exchange
 * notices at its watch's next call. */
static void
exchange_cancel_cb (GCancellable *cancellable,
                    gpointer      user_data)
{
  Exchange *ex = user_data;

  ex->cancelled = TRUE;
  riv_poller_watch_soon (ex->conn.watch);
  /* Cancelled from outside the context's own dispatch (a load run's
   * context closing its users): the context looks again. */
  g_main_context_wakeup (riv_poller_get_context (ex->conn.poller));
}

/* Hands the reply (or error) to the task: the connection is closed now, the
 * rest goes with the task. */
static void
exchange_return (Exchange *ex,
                 GError   *error)
{
  GTask *task = g_steal_pointer (&ex->task);

  if (ex->caller != NULL)
    g_cancellable_disconnect (ex->caller, ex->caller_handler);
  g_cancellable_disconnect (ex->client, ex->client_handler);
  g_clear_object (&ex->caller);
  g_clear_object (&ex->client);
  _riv_direct_conn_clear (&ex->conn);

  if (error != NULL)
    g_task_return_error (task, error);
  else
    {
      _riv_client_set_reply_status (ex->msg, riv_http_reply_get_status (ex->reply));
      g_task_return_pointer (task, g_byte_array_free_to_bytes (g_steal_pointer (&ex->data)),
                             (GDestroyNotify) g_bytes_unref);
    }
  g_object_unref (task);
}

/* Reads what has come; TRUE once the reply ended (or failed: *error). */
static gboolean
exchange_read (Exchange  *ex,
               GError   **error)
{
  for (;;)
    {
      gssize n = recv (ex->conn.fd, ex->buffer, DIRECT_READ_SIZE, MSG_DONTWAIT);
      gssize body;

      if (n < 0)
        {
          int saved = errno;

          if (saved == EINTR)
            continue;
          if (saved == EAGAIN || saved == EWOULDBLOCK)
            return !riv_poller_watch_readable (ex->conn.watch, error);
          g_set_error (error, G_IO_ERROR, g_io_error_from_errno (saved),
                       "Could not read the reply: %s", g_strerror (saved));
          return TRUE;
        }
      if (n == 0)
        {
          /* The connection's end: the reply's, or a cut. */
          if (riv_http_reply_get_status (ex->reply) == 0 ||
              !riv_http_reply_ends_at_eof (ex->reply))
            g_set_error_literal (error, G_IO_ERROR, G_IO_ERROR_CONNECTION_CLOSED,
                                 "the server closed the connection before its reply ended");
          return TRUE;
        }

      body = riv_http_reply_feed (ex->reply, (char *) ex->buffer, (gsize) n, error);
      if (body < 0)
        return TRUE;
      /* A length announced beyond the bound fails before its bytes come. */
      if (ex->data->len + (gsize) body > ex->max_bytes ||
          (guint64) MAX (riv_http_reply_get_length (ex->reply), 0) >
            ex->max_bytes - ex->data->len - (gsize) body)
        {
          g_set_error (error, RIV_CLIENT_ERROR, RIV_CLIENT_ERROR_PROTOCOL,
                       "the server's reply to %s is larger than %" G_GSIZE_FORMAT " MiB, "
                       "the client's limit for it",
                       g_uri_get_path (soup_message_get_uri (ex->msg)),
                       ex->max_bytes / (1024 * 1024));
          return TRUE;
        }
      g_byte_array_append (ex->data, ex->buffer, (guint) body);
      if (riv_http_reply_get_state (ex->reply) == RIV_HTTP_REPLY_END)
        return TRUE;
    }
}

/* The watch's callback: the connection's news, or a cancellation. */
static void
exchange_cb (gpointer user_data)
{
  Exchange *ex = user_data;
  GError *error = NULL;
  int written;

  if (ex->cancelled)
    {
      exchange_return (ex, g_error_new_literal (G_IO_ERROR, G_IO_ERROR_CANCELLED,
                                                "Operation was cancelled"));
      return;
    }
  written = _riv_direct_conn_write (&ex->conn, &error);
  if (written < 0)
    {
      exchange_return (ex, error);
      return;
    }
  if (written == 0)
    return;
  if (ex->buffer == NULL)
    {
      /* Written just now: the reply comes later. */
      ex->buffer = g_malloc (DIRECT_READ_SIZE);
      if (!riv_poller_watch_readable (ex->conn.watch, &error))
        exchange_return (ex, error);
      return;
    }
  if (exchange_read (ex, &error))
    exchange_return (ex, error);
}

/* Sends msg (its body, if any, in body) by hand and reads its reply whole,
 * up to max_bytes, as _riv_client_send () does with libsoup: task returns
 * the body, and msg then carries the status (_riv_client_reply_status ()).
 * cancellable ends it, and so does closing the client. Takes task. */
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
  ex->task = task;
  ex->reply = riv_http_reply_new ();
  ex->data = g_byte_array_new ();
  ex->max_bytes = max_bytes;
  g_task_set_task_data (task, ex, (GDestroyNotify) exchange_free);
  _riv_direct_conn_open (&ex->conn, self, msg, _riv_client_direct_request (msg, text, len),
                         exchange_cb, ex);
  /* libsoup's joins end with the session's abort when the client closes;
   * these with the client's cancellable. */
  ex->client = g_object_ref (self->cancellable);
  ex->client_handler = g_cancellable_connect (ex->client, G_CALLBACK (exchange_cancel_cb), ex,
                                              NULL);
  if (cancellable != NULL)
    {
      ex->caller = g_object_ref (cancellable);
      ex->caller_handler = g_cancellable_connect (cancellable, G_CALLBACK (exchange_cancel_cb),
                                                  ex, NULL);
    }
  /* On this machine the connection is usually made by now: the request is
   * written at once, and its watch waits for the reply. */
  if (!ex->cancelled)
    exchange_cb (ex);
}
