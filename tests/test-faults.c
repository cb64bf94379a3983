/* test-faults.c
 * Copyright 2026 The Rivulet authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * RivClient against servers that misbehave at the byte level: a raw HTTP/1.1
 * server on a GSocketService (127.0.0.1, port 0) that the test scripts byte by
 * byte, because SoupServer cannot cut a frame in half, drip a stream one byte
 * at a time or leave a request unanswered on a connection the client reuses.
 * The server restart also runs against the real RivServer.
 *
 * Every case checks what a user would notice: no crash, every job reaches a
 * terminal state (the waits are hang guards only, never timing claims),
 * nothing is left pending, and a failed job's error says what happened.
 */
#include "config.h"

#include <string.h>

#include "riv-client-private.h"
#include "riv-server.h"
#include "riv-test-util.h"

#if defined(__SANITIZE_ADDRESS__)
# define RIV_SANITIZED 1
# define HANG_GUARD 240.0
#else
# define RIV_SANITIZED 0
# define HANG_GUARD 60.0
#endif

/* Raw HTTP server ---------------------------------------------------------------------- */

typedef struct _Raw Raw;
typedef struct _Conn Conn;

typedef enum
{
  JOIN_OK,      /* 200 {"event_id": …} at once */
  JOIN_HOLD,    /* read the request, answer only when the test says so (maybe never) */
  JOIN_CUT,     /* headers and half the body, then close the connection */
} JoinMode;

typedef enum
{
  DATA_SSE,     /* SSE response headers at once; the test writes the frames */
  DATA_HOLD,    /* never answer the GET */
  DATA_EOF,     /* SSE without chunks: "Connection: close", the body ends at EOF */
  DATA_500,     /* answer the GET with HTTP 500 */
} DataMode;

typedef enum
{
  CONFIG_OK,       /* the fake config */
  CONFIG_ENDLESS,  /* a chunked body that goes on (up to ENDLESS_BOUND, then silence) */
  CONFIG_HUGE,     /* Content-Length: 2 GB, then a byte */
} ConfigMode;

/* Where an endless body stops if the client never does: keeps a failing test's
 * memory bounded. */
#define ENDLESS_BOUND (128 * 1024 * 1024)

/* Writes more bytes when the connection's write queue runs dry. */
typedef void (*ConnRefill) (Conn *conn, gpointer user_data);
/* Called when a GET for the stream got its SSE headers. */
typedef void (*StreamFunc) (Raw *raw, Conn *conn, gpointer user_data);

struct _Conn
{
  int                 ref_count;
  Raw                *raw;          /* borrowed; NULL once the server is gone */
  GSocketConnection  *connection;
  GDataInputStream   *in;
  GOutputStream      *out;          /* borrowed from connection */
  GCancellable       *cancellable;
  GQueue              writes;       /* GBytes waiting to be written */
  GBytes             *writing;      /* in flight, nullable */
  ConnRefill          refill;
  gpointer            refill_data;
  gboolean            close_after;  /* close once the queue is empty */
  gboolean            closed;
  gboolean            peer_closed;  /* the client closed (EOF or error on read) */
  gboolean            eof_body;     /* SSE body not chunked: it ends when we close */

  /* The request being read. */
  char               *method;
  char               *path;
  gsize               content_length;
  guint8             *body;

  /* A held join. */
  char               *event_id;

  /* A drip: one byte of drip_bytes per tick, each in its own chunk. */
  GSource            *drip_source;
  GBytes             *drip_bytes;
  gsize               drip_pos;
};

struct _Raw
{
  GSocketService *service;
  guint16         port;
  char           *url;
  char           *prefix;        /* of event ids, distinct per server incarnation */
  GPtrArray      *conns;         /* Conn refs, open ones */
  JoinMode        join_mode;
  ConfigMode      config_mode;
  Conn           *config_conn;   /* ref: the latest GET /config, nullable */
  gsize           config_sent;   /* bytes of an endless config written */
  GQueue          join_replies;  /* char* full HTTP responses for the next joins ("": drop) */
  DataMode        data_mode;
  StreamFunc      on_stream;
  gpointer        on_stream_data;
  Conn           *stream;        /* ref: the latest SSE response, nullable */
  GPtrArray      *held;          /* Conn refs of held joins (event_id set) */
  GPtrArray      *held_gets;     /* Conn refs of unanswered GETs */
  GPtrArray      *events;        /* char* event ids handed out, in order */
  GHashTable     *sessions;      /* session hashes that joined (unknown → session_not_found) */
  guint           next_event;
  guint           n_joins;
  guint           n_gets;
};

static void conn_pump      (Conn *conn);
static void conn_read_line (Conn *conn);

static Conn *
conn_ref (Conn *conn)
{
  conn->ref_count++;
  return conn;
}

static void
conn_unref (Conn *conn)
{
  g_assert (conn->ref_count > 0);
  if (--conn->ref_count > 0)
    return;

  g_assert (conn->closed);
  g_assert (conn->drip_source == NULL);
  g_queue_clear_full (&conn->writes, (GDestroyNotify) g_bytes_unref);
  g_clear_pointer (&conn->drip_bytes, g_bytes_unref);
  g_clear_object (&conn->in);
  g_clear_object (&conn->connection);
  g_clear_object (&conn->cancellable);
  g_free (conn->method);
  g_free (conn->path);
  g_free (conn->body);
  g_free (conn->event_id);
  g_free (conn);
}

G_DEFINE_AUTOPTR_CLEANUP_FUNC (Conn, conn_unref)

/* Closes at once (a crash, from the client's point of view: FIN, no more bytes). */
static void
conn_close (Conn *conn)
{
  Raw *raw = conn->raw;

  if (conn->closed)
    return;

  conn->closed = TRUE;
  g_cancellable_cancel (conn->cancellable);
  if (conn->drip_source != NULL)
    {
      g_source_destroy (conn->drip_source);
      g_clear_pointer (&conn->drip_source, g_source_unref);
    }
  g_queue_clear_full (&conn->writes, (GDestroyNotify) g_bytes_unref);
  g_socket_close (g_socket_connection_get_socket (conn->connection), NULL);

  if (raw != NULL)
    g_ptr_array_remove (raw->conns, conn);   /* may drop the last reference */
}

/* The client went away (EOF or an error on read, EPIPE or a reset on write). */
static void
conn_peer_gone (Conn *conn)
{
  conn->peer_closed = TRUE;
  conn_close (conn);
}

static void
conn_write_bytes (Conn   *conn,
                  GBytes *bytes)
{
  if (conn->closed)
    return;
  g_queue_push_tail (&conn->writes, g_bytes_ref (bytes));
  conn_pump (conn);
}

static void
conn_write (Conn       *conn,
            const char *data,
            gssize      len)
{
  g_autoptr(GBytes) bytes = g_bytes_new (data, len < 0 ? strlen (data) : (gsize) len);

  conn_write_bytes (conn, bytes);
}

static void
conn_close_after_writes (Conn *conn)
{
  conn->close_after = TRUE;
  conn_pump (conn);
}

static void
conn_write_cb (GObject      *object,
               GAsyncResult *result,
               gpointer      user_data)
{
  g_autoptr(Conn) conn = user_data;
  gboolean ok;

  ok = g_output_stream_write_all_finish (G_OUTPUT_STREAM (object), result, NULL, NULL);
  g_clear_pointer (&conn->writing, g_bytes_unref);
  if (conn->closed)
    return;
  if (!ok)
    conn_peer_gone (conn);
  else
    conn_pump (conn);
}

static void
conn_pump (Conn *conn)
{
  gsize size;
  const void *data;

  if (conn->writing != NULL || conn->closed)
    return;

  if (g_queue_is_empty (&conn->writes) && conn->refill != NULL)
    {
      /* The refill writes, which pumps already. */
      conn->refill (conn, conn->refill_data);
      if (conn->writing != NULL || conn->closed)
        return;
    }

  if (g_queue_is_empty (&conn->writes))
    {
      if (conn->close_after)
        conn_close (conn);
      return;
    }

  conn->writing = g_queue_pop_head (&conn->writes);
  data = g_bytes_get_data (conn->writing, &size);
  g_output_stream_write_all_async (conn->out, data, size, G_PRIORITY_DEFAULT,
                                   conn->cancellable, conn_write_cb, conn_ref (conn));
}

/* HTTP helpers */

static void
conn_reply (Conn       *conn,
            guint       status,
            const char *reason,
            const char *content_type,
            const char *body)
{
  g_autofree char *text = NULL;

  text = g_strdup_printf ("HTTP/1.1 %u %s\r\nContent-Type: %s\r\nContent-Length: %zu\r\n\r\n%s",
                          status, reason, content_type, strlen (body), body);
  conn_write (conn, text, -1);
}

static void
conn_reply_json (Conn       *conn,
                 const char *json)
{
  conn_reply (conn, 200, "OK", "application/json", json);
}

/* One chunk of a chunked body. */
static void
sse_chunk (Conn       *conn,
           const char *data,
           gsize       len)
{
  g_autoptr(GByteArray) array = g_byte_array_sized_new (len + 16);
  char head[32];
  int n;

  g_assert (len > 0);
  if (conn->eof_body)
    {
      conn_write (conn, data, len);
      return;
    }
  n = g_snprintf (head, sizeof head, "%zx\r\n", len);
  g_byte_array_append (array, (const guint8 *) head, n);
  g_byte_array_append (array, (const guint8 *) data, len);
  g_byte_array_append (array, (const guint8 *) "\r\n", 2);
  {
    g_autoptr(GBytes) bytes = g_byte_array_free_to_bytes (g_steal_pointer (&array));

    conn_write_bytes (conn, bytes);
  }
}

static void
sse_text (Conn       *conn,
          const char *text)
{
  sse_chunk (conn, text, strlen (text));
}

G_GNUC_PRINTF (2, 3) static void
sse_frame (Conn       *conn,
           const char *format,
           ...)
{
  g_autofree char *json = NULL;
  g_autofree char *frame = NULL;
  va_list args;

  va_start (args, format);
  json = g_strdup_vprintf (format, args);
  va_end (args);
  frame = g_strdup_printf ("data: %s\n\n", json);
  sse_text (conn, frame);
}

/* The last chunk: the response ends properly and the connection can be reused. */
static void
sse_end (Conn *conn)
{
  if (conn->eof_body)
    conn_close_after_writes (conn);
  else
    conn_write (conn, "0\r\n\r\n", -1);
}

/* What a server does once nothing is pending for the session. */
static void
sse_close_stream (Conn *conn)
{
  sse_text (conn, "data: {\"msg\":\"close_stream\",\"event_id\":null}\n\n");
  sse_end (conn);
}

static gboolean
conn_drip_cb (gpointer user_data)
{
  Conn *conn = user_data;
  gsize size;
  const char *data = g_bytes_get_data (conn->drip_bytes, &size);

  sse_chunk (conn, data + conn->drip_pos, 1);
  if (++conn->drip_pos < size)
    return G_SOURCE_CONTINUE;

  g_clear_pointer (&conn->drip_source, g_source_unref);
  g_clear_pointer (&conn->drip_bytes, g_bytes_unref);
  return G_SOURCE_REMOVE;
}

static void
sse_drip (Conn       *conn,
          const char *text,
          guint       interval_ms)
{
  g_assert (conn->drip_source == NULL);
  conn->drip_bytes = g_bytes_new (text, strlen (text));
  conn->drip_pos = 0;
  conn->drip_source = g_timeout_source_new (interval_ms);
  g_source_set_callback (conn->drip_source, conn_drip_cb, conn, NULL);
  g_source_attach (conn->drip_source, NULL);
}

static const char fake_config[] =
  "{\"version\":\"5.0.0\",\"protocol\":\"sse_v3\",\"api_prefix\":\"/gradio_api\","
  "\"enable_queue\":true,\"components\":["
  "{\"id\":1,\"type\":\"textbox\",\"props\":{\"label\":\"prompt\"}},"
  "{\"id\":2,\"type\":\"textbox\",\"props\":{\"label\":\"output\"}}],"
  "\"dependencies\":["
  "{\"id\":0,\"api_name\":\"echo\",\"inputs\":[1],\"outputs\":[2],\"queue\":true,"
  "\"types\":{\"generator\":true,\"cancel\":false},\"batch\":false,\"max_batch_size\":4}]}";

static char *
body_session_hash (const guint8 *body,
                   gsize         len)
{
  g_autoptr(JsonNode) root = NULL;
  const char *hash;

  if (body == NULL || (root = json_from_string ((const char *) body, NULL)) == NULL ||
      !JSON_NODE_HOLDS_OBJECT (root))
    return NULL;
  hash = json_object_get_string_member_with_default (json_node_get_object (root),
                                                    "session_hash", NULL);
  return g_strdup (hash);
}

static void
handle_join (Raw  *raw,
             Conn *conn)
{
  g_autofree char *hash = body_session_hash (conn->body, conn->content_length);
  g_autofree char *body = NULL;
  char *canned;

  raw->n_joins++;
  if (hash != NULL)
    g_hash_table_add (raw->sessions, g_steal_pointer (&hash));

  /* Canned answers first; "" closes the connection without a byte. */
  if ((canned = g_queue_pop_head (&raw->join_replies)) != NULL)
    {
      if (*canned == '\0')
        conn_close (conn);
      else
        conn_write (conn, canned, -1);
      g_free (canned);
      return;
    }

  switch (raw->join_mode)
    {
    case JOIN_OK:
      g_free (conn->event_id);   /* a kept-alive connection may carry a second join */
      conn->event_id = g_strdup_printf ("%s%u", raw->prefix, ++raw->next_event);
      g_ptr_array_add (raw->events, g_strdup (conn->event_id));
      body = g_strdup_printf ("{\"event_id\":\"%s\"}", conn->event_id);
      conn_reply_json (conn, body);
      break;

    case JOIN_HOLD:
      g_free (conn->event_id);   /* a kept-alive connection may carry a second join */
      conn->event_id = g_strdup_printf ("%s%u", raw->prefix, ++raw->next_event);
      g_ptr_array_add (raw->events, g_strdup (conn->event_id));
      g_ptr_array_add (raw->held, conn_ref (conn));
      break;

    case JOIN_CUT:
      conn_write (conn, "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n"
                  "Content-Length: 40\r\n\r\n{\"event_id\":", -1);
      conn_close_after_writes (conn);
      break;

    default:
      g_assert_not_reached ();
    }
}

/* Answers a held join. */
static void
raw_release (Raw  *raw,
             guint i)
{
  Conn *conn = g_ptr_array_index (raw->held, i);
  g_autofree char *body = g_strdup_printf ("{\"event_id\":\"%s\"}", conn->event_id);

  g_assert_false (conn->closed);
  conn_reply_json (conn, body);
}

static void
handle_data (Raw        *raw,
             Conn       *conn,
             const char *query)
{
  g_autofree char *hash = NULL;

  raw->n_gets++;
  switch (raw->data_mode)
    {
    case DATA_HOLD:
      g_ptr_array_add (raw->held_gets, conn_ref (conn));
      return;
    case DATA_500:
      conn_reply (conn, 500, "Internal Server Error", "application/json",
                  "{\"detail\":\"stream broken\"}");
      return;
    case DATA_EOF:
      conn_write (conn, "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\n"
                  "Connection: close\r\n\r\n", -1);
      conn->eof_body = TRUE;
      break;
    case DATA_SSE:
    default:
      conn_write (conn, "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\n"
                  "Cache-Control: no-cache\r\nTransfer-Encoding: chunked\r\n\r\n", -1);
      break;
    }

  if (raw->stream != NULL)
    conn_unref (raw->stream);
  raw->stream = conn_ref (conn);

  if (query != NULL && g_str_has_prefix (query, "session_hash="))
    hash = g_uri_unescape_string (query + strlen ("session_hash="), NULL);

  /* Like Gradio and RivServer: a session this server never saw. */
  if (hash == NULL || !g_hash_table_contains (raw->sessions, hash))
    {
      sse_frame (conn, "{\"msg\":\"unexpected_error\",\"event_id\":null,"
                 "\"message\":\"Session not found.\",\"session_not_found\":true,"
                 "\"success\":false}");
      sse_frame (conn, "{\"msg\":\"close_stream\",\"event_id\":null}");
      sse_end (conn);
      return;
    }

  if (raw->on_stream != NULL)
    raw->on_stream (raw, conn, raw->on_stream_data);
}

static void
endless_refill (Conn     *conn,
                gpointer  user_data)
{
  static char block[64 * 1024];
  Raw *raw = conn->raw;

  if (raw == NULL || raw->config_sent >= ENDLESS_BOUND)
    {
      conn->refill = NULL;
      return;
    }
  memset (block, ' ', sizeof block);
  raw->config_sent += sizeof block;
  sse_chunk (conn, block, sizeof block);
}

static void
handle_config (Raw  *raw,
               Conn *conn)
{
  if (raw->config_conn != NULL)
    conn_unref (raw->config_conn);
  raw->config_conn = conn_ref (conn);
  switch (raw->config_mode)
    {
    case CONFIG_ENDLESS:
      conn_write (conn, "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n"
                  "Transfer-Encoding: chunked\r\n\r\n", -1);
      conn->refill = endless_refill;
      conn_pump (conn);
      break;
    case CONFIG_HUGE:
      conn_write (conn, "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n"
                  "Content-Length: 2000000000\r\n\r\n{", -1);
      break;
    case CONFIG_OK:
    default:
      conn_reply_json (conn, fake_config);
      break;
    }
}

static void
conn_dispatch (Conn *conn)
{
  Raw *raw = conn->raw;
  g_autofree char *path = g_strdup (conn->path);
  char *query = strchr (path, '?');

  if (query != NULL)
    *query++ = '\0';

  if (g_str_equal (conn->method, "GET") && g_str_equal (path, "/config"))
    handle_config (raw, conn);
  else if (g_str_equal (conn->method, "GET") && g_str_equal (path, "/gradio_api/info"))
    conn_reply_json (conn, "{\"named_endpoints\":{},\"unnamed_endpoints\":{}}");
  else if (g_str_equal (conn->method, "POST") && g_str_equal (path, "/gradio_api/queue/join"))
    handle_join (raw, conn);
  else if (g_str_equal (conn->method, "GET") && g_str_equal (path, "/gradio_api/queue/data"))
    handle_data (raw, conn, query);
  else if (g_str_equal (conn->method, "POST") &&
           (g_str_equal (path, "/gradio_api/cancel") || g_str_equal (path, "/gradio_api/reset")))
    conn_reply_json (conn, "{\"success\":true}");
  else
    conn_reply (conn, 404, "Not Found", "application/json", "{\"detail\":\"Not Found\"}");
}

static void
conn_request_done (Conn *conn)
{
  if (conn->raw != NULL && !conn->closed)
    conn_dispatch (conn);

  g_clear_pointer (&conn->method, g_free);
  g_clear_pointer (&conn->path, g_free);
  g_clear_pointer (&conn->body, g_free);
  conn->content_length = 0;

  /* Read on: the next request, or the EOF that says the client closed. */
  if (!conn->closed)
    conn_read_line (conn);
}

static void
conn_body_cb (GObject      *object,
              GAsyncResult *result,
              gpointer      user_data)
{
  g_autoptr(Conn) conn = user_data;
  gsize n = 0;

  if (!g_input_stream_read_all_finish (G_INPUT_STREAM (object), result, &n, NULL) ||
      n < conn->content_length)
    {
      if (!conn->closed)
        conn_peer_gone (conn);
      return;
    }
  if (conn->closed)
    return;
  conn_request_done (conn);
}

static void
conn_line_cb (GObject      *object,
              GAsyncResult *result,
              gpointer      user_data)
{
  g_autoptr(Conn) conn = user_data;
  g_autofree char *line = NULL;
  gsize len = 0;

  line = g_data_input_stream_read_line_finish (G_DATA_INPUT_STREAM (object), result, &len, NULL);
  if (conn->closed)
    return;
  if (line == NULL)
    {
      conn_peer_gone (conn);
      return;
    }
  g_strchomp (line);

  if (conn->method == NULL)
    {
      g_auto(GStrv) parts = g_strsplit (line, " ", 3);

      if (*line == '\0')   /* stray blank line between requests */
        {
          conn_read_line (conn);
          return;
        }
      g_assert_cmpuint (g_strv_length (parts), ==, 3);
      conn->method = g_strdup (parts[0]);
      conn->path = g_strdup (parts[1]);
      conn_read_line (conn);
      return;
    }

  if (*line != '\0')
    {
      if (g_ascii_strncasecmp (line, "Content-Length:", 15) == 0)
        conn->content_length = g_ascii_strtoull (line + 15, NULL, 10);
      conn_read_line (conn);
      return;
    }

  /* End of the headers. */
  if (conn->content_length > 0)
    {
      conn->body = g_malloc0 (conn->content_length + 1);
      g_input_stream_read_all_async (G_INPUT_STREAM (conn->in), conn->body, conn->content_length,
                                     G_PRIORITY_DEFAULT, conn->cancellable, conn_body_cb,
                                     conn_ref (conn));
      return;
    }

  conn_request_done (conn);
}

static void
conn_read_line (Conn *conn)
{
  g_data_input_stream_read_line_async (conn->in, G_PRIORITY_DEFAULT, conn->cancellable,
                                       conn_line_cb, conn_ref (conn));
}

static gboolean
raw_incoming_cb (GSocketService    *service,
                 GSocketConnection *connection,
                 GObject           *source,
                 gpointer           user_data)
{
  Raw *raw = user_data;
  Conn *conn = g_new0 (Conn, 1);

  conn->ref_count = 1;
  conn->raw = raw;
  conn->connection = g_object_ref (connection);
  conn->cancellable = g_cancellable_new ();
  conn->in = g_data_input_stream_new (g_io_stream_get_input_stream (G_IO_STREAM (connection)));
  g_data_input_stream_set_newline_type (conn->in, G_DATA_STREAM_NEWLINE_TYPE_LF);
  conn->out = g_io_stream_get_output_stream (G_IO_STREAM (connection));
  g_queue_init (&conn->writes);
  g_ptr_array_add (raw->conns, conn);
  conn_read_line (conn);
  return TRUE;
}

/* On family's loopback address (IPv6's: named localhost in the URL); port
 * 0 picks a free one. NULL and error when it cannot listen there. */
static Raw *
raw_new_on (GSocketFamily   family,
            guint16         port,
            const char     *prefix,
            GError        **error)
{
  Raw *raw;
  g_autoptr(GInetAddress) loopback = g_inet_address_new_loopback (family);
  g_autoptr(GSocketAddress) address = g_inet_socket_address_new (loopback, port);
  g_autoptr(GSocketAddress) effective = NULL;
  GSocketService *service = g_socket_service_new ();

  if (!g_socket_listener_add_address (G_SOCKET_LISTENER (service), address,
                                      G_SOCKET_TYPE_STREAM, G_SOCKET_PROTOCOL_TCP, NULL,
                                      &effective, error))
    {
      g_object_unref (service);
      return NULL;
    }
  raw = g_new0 (Raw, 1);
  raw->service = service;
  raw->port = g_inet_socket_address_get_port (G_INET_SOCKET_ADDRESS (effective));
  raw->url = family == G_SOCKET_FAMILY_IPV6 ? g_strdup_printf ("http://localhost:%u", raw->port)
                                            : g_strdup_printf ("http://127.0.0.1:%u", raw->port);
  raw->prefix = g_strdup (prefix);
  raw->conns = g_ptr_array_new_with_free_func ((GDestroyNotify) conn_unref);
  raw->held = g_ptr_array_new_with_free_func ((GDestroyNotify) conn_unref);
  raw->held_gets = g_ptr_array_new_with_free_func ((GDestroyNotify) conn_unref);
  raw->events = g_ptr_array_new_with_free_func (g_free);
  raw->sessions = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  g_queue_init (&raw->join_replies);
  g_signal_connect (raw->service, "incoming", G_CALLBACK (raw_incoming_cb), raw);
  g_socket_service_start (raw->service);
  return raw;
}

static Raw *
raw_new (guint16     port,
         const char *prefix)
{
  g_autoptr(GError) error = NULL;
  Raw *raw = raw_new_on (G_SOCKET_FAMILY_IPV4, port, prefix, &error);

  g_assert_no_error (error);
  return raw;
}

/* Stops listening and closes every connection without another byte: to the
 * client this is a server that crashed. */
static void
raw_free (Raw *raw)
{
  g_autoptr(GPtrArray) conns = NULL;

  g_socket_service_stop (raw->service);
  g_socket_listener_close (G_SOCKET_LISTENER (raw->service));
  g_signal_handlers_disconnect_by_data (raw->service, raw);
  g_clear_object (&raw->service);

  conns = g_steal_pointer (&raw->conns);
  raw->conns = NULL;
  for (guint i = 0; i < conns->len; i++)
    {
      Conn *conn = g_ptr_array_index (conns, i);

      conn->raw = NULL;
      conn_close (conn);
    }
  g_clear_pointer (&raw->stream, conn_unref);
  g_clear_pointer (&raw->config_conn, conn_unref);
  for (guint i = 0; i < raw->held->len; i++)
    {
      Conn *conn = g_ptr_array_index (raw->held, i);

      conn->raw = NULL;
      conn_close (conn);
    }
  for (guint i = 0; i < raw->held_gets->len; i++)
    {
      Conn *conn = g_ptr_array_index (raw->held_gets, i);

      conn->raw = NULL;
      conn_close (conn);
    }
  g_ptr_array_unref (raw->held);
  g_ptr_array_unref (raw->held_gets);
  g_ptr_array_unref (raw->events);
  g_hash_table_unref (raw->sessions);
  g_queue_clear_full (&raw->join_replies, g_free);
  g_free (raw->url);
  g_free (raw->prefix);
  g_free (raw);
}

G_DEFINE_AUTOPTR_CLEANUP_FUNC (Raw, raw_free)

/* Waiting ------------------------------------------------------------------------------ */

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
    g_error ("job %u still %s after %g s", riv_job_get_number (job),
             riv_job_status_to_string (riv_job_get_status (job)), HANG_GUARD);
}

static gboolean
job_joined (gpointer job)
{
  return riv_job_get_event_id (job) != NULL;
}

static gboolean
job_joined_or_finished (gpointer job)
{
  return job_joined (job) || riv_job_is_finished (job);
}

static void
wait_joined (RivJob *job)
{
  g_assert_true (riv_test_wait_until (job_joined, job, HANG_GUARD));
}

typedef struct
{
  Raw   *raw;
  guint  n;
} RawCount;

static gboolean
raw_has_gets (gpointer data)
{
  RawCount *c = data;

  return c->raw->n_gets >= c->n && (c->raw->data_mode == DATA_HOLD || c->raw->stream != NULL);
}

/* Waits for the n-th GET of the stream (1-based) and returns its connection. */
static Conn *
wait_get (Raw   *raw,
          guint  n)
{
  RawCount c = { raw, n };

  g_assert_true (riv_test_wait_until (raw_has_gets, &c, HANG_GUARD));
  return raw->stream;
}

static gboolean
raw_has_held (gpointer data)
{
  RawCount *c = data;

  return c->raw->held->len >= c->n;
}

static void
wait_held (Raw   *raw,
           guint  n)
{
  RawCount c = { raw, n };

  g_assert_true (riv_test_wait_until (raw_has_held, &c, HANG_GUARD));
}

static gboolean
conn_is_peer_closed (gpointer conn)
{
  return ((Conn *) conn)->peer_closed;
}

static gboolean
client_idle (gpointer client)
{
  return riv_client_get_n_pending (client) == 0;
}

static void
wait_client_idle (RivClient *client)
{
  g_assert_true (riv_test_wait_until (client_idle, client, HANG_GUARD));
  g_assert_cmpuint (riv_client_get_n_pending (client), ==, 0);
}

/* Client ------------------------------------------------------------------------------- */

typedef struct
{
  RivClient *client;
  GPtrArray *stream_errors;
} Client;

static void
stream_error_cb (RivClient  *client,
                 const char *message,
                 gpointer    user_data)
{
  g_ptr_array_add (user_data, g_strdup (message));
}

static void
client_connect (Client     *c,
                const char *url)
{
  g_autoptr(GAsyncResult) result = NULL;
  g_autoptr(GError) error = NULL;

  c->client = riv_client_new (url);
  /* These tests check each streamed value as it lands: no publish interval
   * (test-client checks the default, throttled hand-over). */
  riv_client_set_publish_interval (c->client, 0);
  c->stream_errors = g_ptr_array_new_with_free_func (g_free);
  g_signal_connect (c->client, "stream-error", G_CALLBACK (stream_error_cb), c->stream_errors);
  riv_client_connect_async (c->client, NULL, riv_test_async_result_cb, &result);
  riv_test_wait_result (&result, HANG_GUARD);
  g_assert_true (riv_client_connect_finish (c->client, result, &error));
  g_assert_no_error (error);
}

static void
client_clear (Client *c)
{
  riv_client_close (c->client);
  riv_test_drain ();
  g_assert_finalize_object (c->client);
  c->client = NULL;
  g_clear_pointer (&c->stream_errors, g_ptr_array_unref);
}

static RivJob *
submit (RivClient  *client,
        const char *endpoint,
        const char *json)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonNode) data = json_from_string (json, &error);
  RivJob *job;

  g_assert_no_error (error);
  job = riv_client_submit (client, endpoint, data, &error);
  g_assert_no_error (error);
  g_assert_nonnull (job);
  return job;
}

static RivJob *
submit_echo (RivClient  *client,
             const char *input)
{
  g_autofree char *json = g_strdup_printf ("[\"%s\"]", input);

  return submit (client, "/echo", json);
}

static void
assert_error_has (RivJob     *job,
                  const char *words)
{
  const char *error = riv_job_get_error (job);

  if (error == NULL || strstr (error, words) == NULL)
    g_error ("job %u (%s): error \"%s\" does not say \"%s\"", riv_job_get_number (job),
             riv_job_status_to_string (riv_job_get_status (job)), error ? error : "(none)", words);
}

/* Records every output text a job shows, in order. */
static void
record_text_cb (RivJob     *job,
                GParamSpec *pspec,
                gpointer    user_data)
{
  const char *text = riv_job_get_output_text (job);

  g_ptr_array_add (user_data, g_strdup (text ? text : "(null)"));
}

/* A job on a fresh fake server that completes normally. */
static void
assert_new_job_completes (RivClient  *client,
                          Raw        *raw,
                          const char *input)
{
  g_autoptr(RivJob) job = NULL;
  guint gets;
  Conn *conn;

  raw->join_mode = JOIN_OK;
  raw->data_mode = DATA_SSE;
  raw->on_stream = NULL;
  gets = raw->n_gets;
  job = submit_echo (client, input);
  wait_joined (job);
  conn = wait_get (raw, gets + 1);
  sse_frame (conn, "{\"msg\":\"process_completed\",\"event_id\":\"%s\",\"success\":true,"
             "\"output\":{\"data\":[\"echo: %s\"]}}", riv_job_get_event_id (job), input);
  sse_close_stream (conn);
  wait_finished (job);
  g_assert_cmpint (riv_job_get_status (job), ==, RIV_JOB_STATUS_COMPLETED);
  g_assert_true (g_str_has_prefix (riv_job_get_output_text (job), "echo: "));
  g_assert_cmpstr (riv_job_get_output_text (job) + strlen ("echo: "), ==, input);
}

/* Log capture -------------------------------------------------------------------------- */

/* The client's log lines (domain riv-core) while a test records them: a
 * handler of that domain, installed by main(), which records and then passes
 * each line on as GLib would have. (A log writer would not do: GLib 2.84's
 * g_test_init() prints g_message() lines through a default handler of its own
 * that never reaches the writer.) */
static GPtrArray *recorded_logs;   /* char*, "LEVEL message", while recording */

static void
log_handler (const char     *log_domain,
             GLogLevelFlags  log_level,
             const char     *message,
             gpointer        user_data)
{
  if (recorded_logs != NULL && message != NULL)
    g_ptr_array_add (recorded_logs,
                     g_strdup_printf ("%s %s",
                                      (log_level & G_LOG_LEVEL_DEBUG) ? "DEBUG" :
                                      (log_level & G_LOG_LEVEL_INFO) ? "INFO" :
                                      (log_level & G_LOG_LEVEL_MESSAGE) ? "MESSAGE" : "OTHER",
                                      message));
  g_log_default_handler (log_domain, log_level, message, user_data);
}

/* Fixture ------------------------------------------------------------------------------ */

typedef struct
{
  Raw    *raw;
  Client  c;
} Fixture;

static void
fixture_setup (Fixture       *fx,
               gconstpointer  data)
{
  fx->raw = raw_new (0, "E");
  client_connect (&fx->c, fx->raw->url);
  /* The /faults/direct/ cases: the same faults on streams read straight off
   * their sockets, as virtual users read them. */
  riv_client_set_direct (fx->c.client, GPOINTER_TO_INT (data));
}

static void
fixture_teardown (Fixture       *fx,
                  gconstpointer  data)
{
  /* Whatever happened, nothing may be left in flight. */
  g_assert_cmpuint (riv_client_get_n_pending (fx->c.client), ==, 0);
  client_clear (&fx->c);
  g_clear_pointer (&fx->raw, raw_free);
  riv_test_drain ();
}

#define PUSH_COMPLETED(conn, id, text) \
  sse_frame ((conn), "{\"msg\":\"process_completed\",\"event_id\":\"%s\",\"success\":true," \
             "\"output\":{\"data\":[\"%s\"],\"is_generating\":false}}", (id), (text))
#define PUSH_GENERATING(conn, id, text) \
  sse_frame ((conn), "{\"msg\":\"process_generating\",\"event_id\":\"%s\",\"success\":true," \
             "\"output\":{\"data\":[\"%s\"],\"is_generating\":true}}", (id), (text))
#define PUSH_REPLACE(conn, id, text) \
  sse_frame ((conn), "{\"msg\":\"process_generating\",\"event_id\":\"%s\",\"success\":true," \
             "\"output\":{\"data\":[[[\"replace\",[],\"%s\"]]],\"is_generating\":true}}", \
             (id), (text))
#define PUSH_APPEND(conn, id, text) \
  sse_frame ((conn), "{\"msg\":\"process_generating\",\"event_id\":\"%s\",\"success\":true," \
             "\"output\":{\"data\":[[[\"append\",[],\"%s\"]]],\"is_generating\":true}}", \
             (id), (text))

static gboolean
job_has_updates (gpointer data)
{
  RivJob **job = data;

  return riv_job_get_n_updates (job[0]) >= GPOINTER_TO_UINT (job[1]);
}

static void
wait_updates (RivJob *job,
              guint   n)
{
  gpointer data[2] = { job, GUINT_TO_POINTER (n) };

  g_assert_true (riv_test_wait_until (job_has_updates, data, HANG_GUARD));
}

/* Mid-frame drops ---------------------------------------------------------------------- */

/* Writes half of a frame, cutting the chunk itself in two, then closes. */
static void
drop_mid_frame (Conn       *conn,
                const char *frame)
{
  gsize len = strlen (frame);
  g_autofree char *head = g_strdup_printf ("%zx\r\n", len);

  conn_write (conn, head, -1);
  conn_write (conn, frame, len / 2);
  conn_close_after_writes (conn);
}

/* The connection dies in the middle of a frame (and of its HTTP chunk). The
 * client reconnects at once; the half frame is never applied, and the job
 * completes from what the new stream carries. */
static void
test_drop_mid_frame (Fixture       *fx,
                     gconstpointer  data)
{
  g_autoptr(RivJob) job = NULL;
  g_autoptr(GPtrArray) texts = g_ptr_array_new_with_free_func (g_free);
  g_autofree char *partial = NULL;
  const char *id;
  Conn *conn;

  job = submit_echo (fx->c.client, "a");
  g_signal_connect (job, "notify::output-text", G_CALLBACK (record_text_cb), texts);
  wait_joined (job);
  id = riv_job_get_event_id (job);

  conn = wait_get (fx->raw, 1);
  sse_frame (conn, "{\"msg\":\"estimation\",\"event_id\":\"%s\",\"rank\":0,\"queue_size\":1,"
             "\"rank_eta\":null}", id);
  PUSH_GENERATING (conn, id, "first");
  partial = g_strdup_printf ("data: {\"msg\":\"process_generating\",\"event_id\":\"%s\","
                             "\"success\":true,\"output\":{\"data\":[[[\"append\",[],"
                             "\" PARTIAL\"]]]}}\n\n", id);
  drop_mid_frame (conn, partial);

  /* The server lost what it was writing; it goes on from there. This time
   * the body is not chunked and ends at EOF: its last frame lacks the blank
   * line that would dispatch it, so it must not be applied either. */
  fx->raw->data_mode = DATA_EOF;
  conn = wait_get (fx->raw, 2);
  PUSH_APPEND (conn, id, " second");
  wait_updates (job, 2);
  fx->raw->data_mode = DATA_SSE;
  sse_text (conn, "data: {\"msg\":\"process_generating\",\"event_id\":\"");
  sse_text (conn, id);
  sse_text (conn, "\",\"success\":true,\"output\":{\"data\":[[[\"append\",[],"
            "\" UNTERMINATED\"]]]}}\n");
  sse_end (conn);

  conn = wait_get (fx->raw, 3);
  PUSH_COMPLETED (conn, id, "first second");
  wait_finished (job);

  g_assert_cmpint (riv_job_get_status (job), ==, RIV_JOB_STATUS_COMPLETED);
  g_assert_cmpstr (riv_job_get_output_text (job), ==, "first second");
  g_assert_cmpuint (texts->len, ==, 2);
  g_assert_cmpstr (g_ptr_array_index (texts, 0), ==, "first");
  g_assert_cmpstr (g_ptr_array_index (texts, 1), ==, "first second");
  g_assert_cmpuint (riv_job_get_n_updates (job), ==, 3);
  g_assert_cmpuint (fx->raw->n_gets, ==, 3);
  /* A reconnect that worked is not an error the user hears about. */
  g_assert_cmpuint (fx->c.stream_errors->len, ==, 0);
  wait_client_idle (fx->c.client);
}

static void
drop_every_stream (Raw      *raw,
                   Conn     *conn,
                   gpointer  user_data)
{
  const char *id = g_ptr_array_index (raw->events, raw->events->len - 1);
  g_autofree char *frame = NULL;

  frame = g_strdup_printf ("data: {\"msg\":\"process_completed\",\"event_id\":\"%s\","
                           "\"success\":true,\"output\":{\"data\":[\"never\"]}}\n\n", id);
  drop_mid_frame (conn, frame);
}

/* Every stream dies mid-frame: after a bounded number of attempts the job is
 * lost with an error that says the connection was lost, and the next job on a
 * healthy server works. */
static void
test_drop_mid_frame_forever (Fixture       *fx,
                             gconstpointer  data)
{
  g_autoptr(RivJob) job = NULL;

  fx->raw->on_stream = drop_every_stream;
  job = submit_echo (fx->c.client, "a");
  wait_finished (job);

  g_assert_cmpint (riv_job_get_status (job), ==, RIV_JOB_STATUS_LOST);
  assert_error_has (job, "Connection to the server was lost");
  g_assert_null (riv_job_get_output_text (job));
  g_assert_cmpuint (fx->raw->n_gets, >=, 2);
  g_assert_cmpuint (fx->raw->n_gets, <=, 20);
  g_assert_cmpuint (fx->c.stream_errors->len, ==, 1);
  g_assert_cmpint (riv_client_get_stream_state (fx->c.client), ==,
                   RIV_STREAM_STATE_DISCONNECTED);
  wait_client_idle (fx->c.client);

  assert_new_job_completes (fx->c.client, fx->raw, "again");
}

/* The join reply is cut in the middle of its body: the job fails, saying it
 * could not join, and the join was sent once (a second POST would be a second
 * job on the server). */
static void
test_join_reply_cut (Fixture       *fx,
                     gconstpointer  data)
{
  g_autoptr(RivJob) job = NULL;

  fx->raw->join_mode = JOIN_CUT;
  job = submit_echo (fx->c.client, "a");
  wait_finished (job);
  g_assert_cmpint (riv_job_get_status (job), ==, RIV_JOB_STATUS_FAILED);
  assert_error_has (job, "Could not join the queue");
  g_assert_cmpuint (fx->raw->n_joins, ==, 1);
  wait_client_idle (fx->c.client);

  assert_new_job_completes (fx->c.client, fx->raw, "again");
}

/* Stalls ------------------------------------------------------------------------------- */

/* The stream stops in the middle of a frame and stays open without a byte or
 * a heartbeat: with a 1 s liveness timeout the job is lost, the client closes
 * the dead connection, and the next job gets a new stream. */
static void
test_stall (Fixture       *fx,
            gconstpointer  data)
{
  g_autoptr(RivJob) job = NULL;
  g_autoptr(Conn) stalled = NULL;
  const char *id;

  riv_client_set_liveness_timeout (fx->c.client, 1.0);
  job = submit_echo (fx->c.client, "a");
  wait_joined (job);
  id = riv_job_get_event_id (job);
  stalled = conn_ref (wait_get (fx->raw, 1));
  sse_frame (stalled, "{\"msg\":\"process_starts\",\"event_id\":\"%s\",\"eta\":null}", id);
  PUSH_GENERATING (stalled, id, "half");
  conn_write (stalled, "40\r\ndata: {\"msg\":\"process_gen", -1);

  wait_finished (job);
  g_assert_cmpint (riv_job_get_status (job), ==, RIV_JOB_STATUS_LOST);
  assert_error_has (job, "No data from the server for 1 s");
  g_assert_cmpstr (riv_job_get_output_text (job), ==, "half");
  g_assert_cmpuint (fx->c.stream_errors->len, ==, 1);
  g_assert_true (riv_test_wait_until (conn_is_peer_closed, stalled, HANG_GUARD));
  wait_client_idle (fx->c.client);

  assert_new_job_completes (fx->c.client, fx->raw, "again");
}

/* The stream request itself is never answered: the same bound applies. */
static void
test_stream_request_hangs (Fixture       *fx,
                           gconstpointer  data)
{
  g_autoptr(RivJob) job = NULL;

  riv_client_set_liveness_timeout (fx->c.client, 1.0);
  fx->raw->data_mode = DATA_HOLD;
  job = submit_echo (fx->c.client, "a");
  wait_finished (job);
  g_assert_cmpint (riv_job_get_status (job), ==, RIV_JOB_STATUS_LOST);
  assert_error_has (job, "No data from the server for 1 s");
  g_assert_cmpuint (fx->raw->held_gets->len, >=, 1);
  g_assert_true (riv_test_wait_until (conn_is_peer_closed,
                                      g_ptr_array_index (fx->raw->held_gets, 0), HANG_GUARD));
  wait_client_idle (fx->c.client);

  assert_new_job_completes (fx->c.client, fx->raw, "again");
}

/* Every stream request is answered with HTTP 500: a bounded number of
 * attempts, then the job is lost and the error gives the status. */
static void
test_stream_request_500 (Fixture       *fx,
                         gconstpointer  data)
{
  g_autoptr(RivJob) job = NULL;

  fx->raw->data_mode = DATA_500;
  job = submit_echo (fx->c.client, "a");
  wait_finished (job);
  g_assert_cmpint (riv_job_get_status (job), ==, RIV_JOB_STATUS_LOST);
  assert_error_has (job, "Connection to the server was lost");
  assert_error_has (job, "HTTP 500");
  g_assert_cmpuint (fx->raw->n_gets, >=, 2);
  g_assert_cmpuint (fx->raw->n_gets, <=, 20);
  wait_client_idle (fx->c.client);

  assert_new_job_completes (fx->c.client, fx->raw, "again");
}

/* Drip --------------------------------------------------------------------------------- */

static void
drip_stream (Raw      *raw,
             Conn     *conn,
             gpointer  user_data)
{
  const char *id = g_ptr_array_index (raw->events, raw->events->len - 1);
  g_autofree char *frames = NULL;

  /* CRLF line ends, so a CR and its LF arrive in separate reads too. */
  frames = g_strdup_printf ("data:{\"msg\":\"process_generating\",\"event_id\":\"%s\","
                            "\"output\":{\"data\":[\"dr\"]}}\r\n\r\n"
                            "data:{\"msg\":\"process_completed\",\"event_id\":\"%s\","
                            "\"output\":{\"data\":[\"drip\"]}}\r\n\r\n", id, id);
  sse_drip (conn, frames, 100);
}

/* One byte (one HTTP chunk) every 100 ms, with a 1 s liveness timeout: slow
 * is not dead. The job completes with the right values, on one stream. */
static void
test_drip (Fixture       *fx,
           gconstpointer  data)
{
  g_autoptr(RivJob) job = NULL;
  g_autoptr(GPtrArray) texts = g_ptr_array_new_with_free_func (g_free);

  riv_client_set_liveness_timeout (fx->c.client, 1.0);
  fx->raw->on_stream = drip_stream;
  job = submit_echo (fx->c.client, "a");
  g_signal_connect (job, "notify::output-text", G_CALLBACK (record_text_cb), texts);
  wait_finished (job);

  g_assert_cmpint (riv_job_get_status (job), ==, RIV_JOB_STATUS_COMPLETED);
  g_assert_cmpstr (riv_job_get_output_text (job), ==, "drip");
  g_assert_cmpuint (riv_job_get_n_updates (job), ==, 2);
  g_assert_cmpuint (texts->len, ==, 2);
  g_assert_cmpstr (g_ptr_array_index (texts, 0), ==, "dr");
  g_assert_cmpstr (g_ptr_array_index (texts, 1), ==, "drip");
  g_assert_cmpuint (fx->raw->n_gets, ==, 1);
  g_assert_cmpuint (fx->c.stream_errors->len, ==, 0);
  wait_client_idle (fx->c.client);
}

/* Oversized frames --------------------------------------------------------------------- */

#define BIG_FRAME_SIZE (17 * 1024 * 1024)   /* RIV_SSE_DEFAULT_MAX_FRAME is 16 MiB */

/* A frame of 17 MiB, written in 1 MiB chunks (a well-formed frame otherwise). */
static void
push_big_frame (Conn       *conn,
                const char *id)
{
  g_autofree char *head = g_strdup_printf ("data: {\"msg\":\"process_generating\","
                                           "\"event_id\":\"%s\",\"success\":true,"
                                           "\"output\":{\"data\":[\"", id);
  const char tail[] = "\"]}}\n\n";
  g_autofree char *piece = g_malloc (1024 * 1024);

  memset (piece, 'x', 1024 * 1024);
  sse_text (conn, head);
  for (gsize sent = 0; sent < BIG_FRAME_SIZE; sent += 1024 * 1024)
    sse_chunk (conn, piece, 1024 * 1024);
  sse_text (conn, tail);
}

static void
big_every_stream (Raw      *raw,
                  Conn     *conn,
                  gpointer  user_data)
{
  push_big_frame (conn, g_ptr_array_index (raw->events, raw->events->len - 1));
}

/* A frame past the client's 16 MiB limit ends that stream (it is never
 * applied); the job goes on on the next stream. A server that sends nothing
 * else loses the job, and the error names the cause. */
static void
test_oversized_frame (Fixture       *fx,
                      gconstpointer  data)
{
  g_autoptr(RivJob) a = NULL;
  g_autoptr(RivJob) b = NULL;
  const char *id;
  Conn *conn;

  a = submit_echo (fx->c.client, "a");
  wait_joined (a);
  id = riv_job_get_event_id (a);
  conn = wait_get (fx->raw, 1);
  PUSH_GENERATING (conn, id, "small");
  push_big_frame (conn, id);

  conn = wait_get (fx->raw, 2);
  PUSH_COMPLETED (conn, id, "small done");
  sse_close_stream (conn);
  wait_finished (a);
  g_assert_cmpint (riv_job_get_status (a), ==, RIV_JOB_STATUS_COMPLETED);
  g_assert_cmpstr (riv_job_get_output_text (a), ==, "small done");
  g_assert_cmpuint (riv_job_get_n_updates (a), ==, 2);
  g_assert_cmpuint (fx->c.stream_errors->len, ==, 0);

  fx->raw->on_stream = big_every_stream;
  b = submit_echo (fx->c.client, "b");
  wait_finished (b);
  g_assert_cmpint (riv_job_get_status (b), ==, RIV_JOB_STATUS_LOST);
  assert_error_has (b, "Connection to the server was lost");
  assert_error_has (b, "larger than");
  g_assert_null (riv_job_get_output_text (b));
  wait_client_idle (fx->c.client);

  assert_new_job_completes (fx->c.client, fx->raw, "again");
}

/* Invalid frames ----------------------------------------------------------------------- */

/* Frames that are not valid messages are skipped: the stream goes on, the job
 * they name keeps its state, and the frames after them apply. */
static void
test_invalid_frames (Fixture       *fx,
                     gconstpointer  data)
{
  g_autoptr(RivJob) job = NULL;
  g_autoptr(GPtrArray) texts = g_ptr_array_new_with_free_func (g_free);
  g_autofree char *bad_utf8 = NULL;
  g_autofree char *two_values = NULL;
  const char *id;
  Conn *conn;

  job = submit_echo (fx->c.client, "a");
  g_signal_connect (job, "notify::output-text", G_CALLBACK (record_text_cb), texts);
  wait_joined (job);
  id = riv_job_get_event_id (job);
  conn = wait_get (fx->raw, 1);
  PUSH_GENERATING (conn, id, "first");

  /* Invalid UTF-8 inside a JSON string, and as a whole data line. */
  bad_utf8 = g_strdup_printf ("data: {\"msg\":\"process_generating\",\"event_id\":\"%s\","
                              "\"success\":true,\"output\":{\"data\":[[[\"append\",[],"
                              "\" \xff\xfe bad\"]]]}}\n\n", id);
  sse_text (conn, bad_utf8);
  sse_text (conn, "data: \xc3\x28\xa0\xa1\n\n");
  /* Not JSON, truncated JSON, not an object, no "msg". */
  sse_text (conn, "data: ALIVE\n\n");
  sse_frame (conn, "{\"msg\":\"process_generating\",\"event_id\":\"%s\",\"output\":{\"data\":"
             "[[[\"append\",[],\" cut", id);
  sse_text (conn, "data: [1,2,3]\n\n");
  sse_frame (conn, "{\"event_id\":\"%s\",\"output\":{\"data\":[\"no msg\"]}}", id);
  /* Two values in one frame (json-glib alone would keep the second). */
  two_values = g_strdup_printf ("data: {\"msg\":\"heartbeat\",\"event_id\":null} "
                                "{\"msg\":\"process_completed\",\"event_id\":\"%s\","
                                "\"success\":true,\"output\":{\"data\":[\"smuggled\"]}}\n\n", id);
  sse_text (conn, two_values);
  /* Field lines without data, and a comment: no message at all. */
  sse_text (conn, "event: ping\nid: 7\nretry: 10\n\n: comment\n\n");

  PUSH_APPEND (conn, id, " second");
  wait_updates (job, 2);
  g_assert_false (riv_job_is_finished (job));
  g_assert_cmpstr (riv_job_get_output_text (job), ==, "first second");

  PUSH_COMPLETED (conn, id, "first second");
  wait_finished (job);
  g_assert_cmpint (riv_job_get_status (job), ==, RIV_JOB_STATUS_COMPLETED);
  g_assert_cmpstr (riv_job_get_output_text (job), ==, "first second");
  g_assert_cmpuint (texts->len, ==, 2);
  g_assert_cmpstr (g_ptr_array_index (texts, 0), ==, "first");
  g_assert_cmpstr (g_ptr_array_index (texts, 1), ==, "first second");
  /* One stream throughout. */
  g_assert_cmpuint (fx->raw->n_gets, ==, 1);
  g_assert_cmpuint (_riv_client_get_n_streams (fx->c.client), ==, 1);
  g_assert_cmpuint (fx->c.stream_errors->len, ==, 0);
  wait_client_idle (fx->c.client);
}

/* Flood of unknown event ids ----------------------------------------------------------- */

typedef struct
{
  const char *tag;      /* event ids are TAG-N */
  guint       total;    /* frames */
  guint       per_id;   /* consecutive frames per id */
  gsize       pad;      /* payload bytes per frame */
  guint       next;
  gboolean    done;
} Flood;

/* Writes the flood 256 KiB at a time, so that the fake server never holds it. */
static void
flood_refill (Conn     *conn,
              gpointer  user_data)
{
  Flood *flood = user_data;
  g_autoptr(GString) block = g_string_sized_new (256 * 1024 + flood->pad + 256);
  g_autofree char *pad = g_strnfill (flood->pad, 'p');

  if (flood->next >= flood->total)
    {
      conn->refill = NULL;
      flood->done = TRUE;
      return;
    }

  while (block->len < 256 * 1024 && flood->next < flood->total)
    {
      g_string_append_printf (block, "data: {\"msg\":\"process_generating\",\"event_id\":"
                              "\"%s-%u\",\"success\":true,\"output\":{\"data\":[\"%s\"],"
                              "\"is_generating\":true}}\n\n",
                              flood->tag, flood->next / flood->per_id, pad);
      flood->next++;
    }
  sse_chunk (conn, block->str, block->len);
}

static gboolean
flood_done (gpointer data)
{
  return ((Flood *) data)->done;
}

/* Writes the flood and waits until the client has read all of it (a marker
 * update for marker_job after the flood has been applied). */
static void
run_flood (Conn   *conn,
           Flood  *flood,
           RivJob *marker_job)
{
  guint updates = riv_job_get_n_updates (marker_job);
  g_autofree char *text = g_strdup_printf ("after %s", flood->tag);

  conn->refill = flood_refill;
  conn->refill_data = flood;
  conn_pump (conn);
  g_assert_true (riv_test_wait_until (flood_done, flood, HANG_GUARD));
  PUSH_REPLACE (conn, riv_job_get_event_id (marker_job), text);
  wait_updates (marker_job, updates + 1);
  g_assert_cmpstr (riv_job_get_output_text (marker_job), ==, text);
}

static gboolean
running_on_valgrind (void)
{
  const char *preload = g_getenv ("LD_PRELOAD");

  return preload != NULL && strstr (preload, "vgpreload") != NULL;
}

/* Resident set size, or with peak the high-water mark, in KiB (0 if unknown). */
static guint64
read_rss_kib (gboolean peak)
{
  g_autofree char *status = NULL;
  const char *key = peak ? "VmHWM:" : "VmRSS:";
  const char *line;

  if (!g_file_get_contents ("/proc/self/status", &status, NULL, NULL) ||
      (line = strstr (status, key)) == NULL)
    return 0;
  return g_ascii_strtoull (line + strlen (key), NULL, 10);
}

/* Resets the high-water mark to the current RSS (Linux: "5" to clear_refs). */
static gboolean
reset_peak_rss (void)
{
  return g_file_set_contents ("/proc/self/clear_refs", "5", 1, NULL);
}

static guint
count_logs (GPtrArray  *logs,
            const char *level,
            const char *words)
{
  guint n = 0;

  for (guint i = 0; i < logs->len; i++)
    {
      const char *line = g_ptr_array_index (logs, i);

      if (g_str_has_prefix (line, level) && strstr (line, words) != NULL)
        n++;
    }
  return n;
}

/* A flood of messages for event ids no join names. The early buffer keeps
 * within its bounds (counted by the client, and in resident memory), says in
 * the log what it dropped without logging every message, and a job whose
 * early messages were pushed out fails with a clear error instead of hanging.
 * The stream survives: the joined job completes afterwards. */
static void
test_unknown_id_flood (Fixture       *fx,
                       gconstpointer  data)
{
  g_autoptr(RivJob) a = NULL;
  g_autoptr(RivJob) p = NULL;
  g_autoptr(GPtrArray) logs = g_ptr_array_new_with_free_func (g_free);
  Flood by_count = { "ghost-count", 24000, 400, 8, 0, FALSE };
  gboolean heavy = RIV_SANITIZED || running_on_valgrind ();
  Flood by_bytes = { "ghost-bytes", heavy ? 4096 : 32768, 1, 8000, 0, FALSE };
  const char *p_id;
  guint64 rss_before = 0, rss_peak = 0;
  gboolean measure_rss;
  Conn *conn;
  guint64 dropped;

  /* P's join is held through the whole flood, which can take minutes
   * under sanitizers on a loaded machine: the join must not time out first
   * (join timeouts have tests of their own). */
  riv_client_set_join_timeout (fx->c.client, 3600);
  a = submit_echo (fx->c.client, "a");
  wait_joined (a);
  conn = wait_get (fx->raw, 1);

  /* P's join reply is held back while its whole life arrives on the stream. */
  fx->raw->join_mode = JOIN_HOLD;
  p = submit_echo (fx->c.client, "p");
  wait_held (fx->raw, 1);
  p_id = fx->raw->events->pdata[fx->raw->events->len - 1];
  sse_frame (conn, "{\"msg\":\"estimation\",\"event_id\":\"%s\",\"rank\":0,\"queue_size\":1,"
             "\"rank_eta\":null}", p_id);
  sse_frame (conn, "{\"msg\":\"process_starts\",\"event_id\":\"%s\",\"eta\":null}", p_id);
  PUSH_COMPLETED (conn, p_id, "never seen");
  PUSH_GENERATING (conn, riv_job_get_event_id (a), "before");
  wait_updates (a, 1);
  g_assert_cmpuint (_riv_client_get_n_early (fx->c.client), ==, 3);

  recorded_logs = logs;

  /* More messages than the count bound, few ids. */
  run_flood (conn, &by_count, a);
  g_assert_cmpuint (_riv_client_get_n_early (fx->c.client), <=, RIV_CLIENT_EARLY_MAX_MESSAGES);
  g_assert_cmpuint (_riv_client_get_n_early_dropped (fx->c.client), >=,
                    3 + by_count.total - RIV_CLIENT_EARLY_MAX_MESSAGES);

  /* P's early messages were the oldest: dropped. It fails, saying so. */
  raw_release (fx->raw, 0);
  wait_finished (p);
  g_assert_cmpint (riv_job_get_status (p), ==, RIV_JOB_STATUS_FAILED);
  assert_error_has (p, "arrived before its join reply and were dropped");

  /* Far more bytes than the byte bound (and more ids than the id bound). */
  /* Sanitizers and valgrind keep freed memory around: no RSS figure there. */
  measure_rss = !heavy && reset_peak_rss ();
  rss_before = read_rss_kib (FALSE);
  run_flood (conn, &by_bytes, a);
  rss_peak = read_rss_kib (TRUE);

  recorded_logs = NULL;

  g_assert_cmpuint (_riv_client_get_n_early (fx->c.client), <=, RIV_CLIENT_EARLY_MAX_MESSAGES);
  g_assert_cmpuint (_riv_client_get_early_bytes (fx->c.client), <=, RIV_CLIENT_EARLY_MAX_BYTES);
  dropped = _riv_client_get_n_early_dropped (fx->c.client);
  /* Every message is either still held or counted as dropped. */
  g_assert_cmpuint (_riv_client_get_n_early (fx->c.client) + dropped, ==,
                    3 + by_count.total + by_bytes.total);
  g_assert_cmpuint (dropped, >, by_bytes.total / 2);

  g_test_message ("flood: %u + %u frames (%.0f MiB), %" G_GUINT64_FORMAT " dropped, %u held "
                  "(%.1f MiB estimated); RSS %.1f MiB before, peak %.1f MiB",
                  by_count.total, by_bytes.total,
                  by_bytes.total * (by_bytes.pad + 120.0) / (1024 * 1024), dropped,
                  _riv_client_get_n_early (fx->c.client),
                  _riv_client_get_early_bytes (fx->c.client) / (1024.0 * 1024),
                  rss_before / 1024.0, rss_peak / 1024.0);
  if (measure_rss)
    {
      double flood_mib = by_bytes.total * (double) by_bytes.pad / (1024 * 1024);

      g_assert_cmpuint (rss_peak, >=, rss_before);
      /* The buffer is bounded at 16 MiB (estimated); the flood is 250 MiB.
       * Grown by the flood rather than held: it would be over 200 MiB. */
      g_assert_cmpfloat ((rss_peak - rss_before) / 1024.0, <, MIN (96.0, flood_mib / 2));
    }

  /* The drops were logged, at message level, a line per thousand rather than
   * one per message. */
  g_assert_cmpuint (count_logs (logs, "MESSAGE", "unknown event id"), >=, 1);
  g_assert_cmpuint (count_logs (logs, "MESSAGE", "early buffer full"), >=, 1);
  g_assert_cmpuint (count_logs (logs, "MESSAGE", "unknown event id"), <=, dropped / 1000 + 1);

  PUSH_COMPLETED (conn, riv_job_get_event_id (a), "survived");
  sse_close_stream (conn);
  wait_finished (a);
  g_assert_cmpint (riv_job_get_status (a), ==, RIV_JOB_STATUS_COMPLETED);
  g_assert_cmpstr (riv_job_get_output_text (a), ==, "survived");
  g_assert_cmpuint (fx->raw->n_gets, ==, 1);
  wait_client_idle (fx->c.client);

  fx->raw->join_mode = JOIN_OK;
  assert_new_job_completes (fx->c.client, fx->raw, "again");
}

/* Server restarts ---------------------------------------------------------------------- */

/* The server crashes (connections closed, port closed) with jobs in flight:
 * the client retries a bounded number of times, then the jobs are lost with a
 * clear error. A server on the same port afterwards serves new jobs. Then the
 * crash again, but the new server is up at once: it does not know the
 * session, and the job in flight is lost with the server's reason. */
static void
test_server_crash (Fixture       *fx,
                   gconstpointer  data)
{
  g_autoptr(RivJob) a = NULL;
  g_autoptr(RivJob) b = NULL;
  g_autoptr(RivJob) c = NULL;
  g_autoptr(RivJob) refused = NULL;
  guint16 port = fx->raw->port;
  guint gets;
  Conn *conn;

  a = submit_echo (fx->c.client, "a");
  b = submit_echo (fx->c.client, "b");
  wait_joined (a);
  wait_joined (b);
  conn = wait_get (fx->raw, 1);
  PUSH_GENERATING (conn, riv_job_get_event_id (a), "a1");
  wait_updates (a, 1);

  g_clear_pointer (&fx->raw, raw_free);

  /* Submitted while nothing listens. */
  refused = submit_echo (fx->c.client, "refused");
  wait_finished (refused);
  wait_finished (a);
  wait_finished (b);
  g_assert_cmpint (riv_job_get_status (refused), ==, RIV_JOB_STATUS_FAILED);
  assert_error_has (refused, "Could not join the queue");
  for (guint i = 0; i < 2; i++)
    {
      RivJob *job = i == 0 ? a : b;

      g_assert_cmpint (riv_job_get_status (job), ==, RIV_JOB_STATUS_LOST);
      assert_error_has (job, "Connection to the server was lost");
    }
  g_assert_cmpstr (riv_job_get_output_text (a), ==, "a1");
  g_assert_cmpuint (fx->c.stream_errors->len, >=, 1);
  g_assert_cmpint (riv_client_get_stream_state (fx->c.client), ==,
                   RIV_STREAM_STATE_DISCONNECTED);
  wait_client_idle (fx->c.client);

  fx->raw = raw_new (port, "R");
  g_assert_cmpuint (fx->raw->port, ==, port);
  assert_new_job_completes (fx->c.client, fx->raw, "after restart");

  /* Crash and instant restart. */
  gets = fx->raw->n_gets;
  c = submit_echo (fx->c.client, "c");
  wait_joined (c);
  conn = wait_get (fx->raw, gets + 1);
  PUSH_GENERATING (conn, riv_job_get_event_id (c), "c1");
  wait_updates (c, 1);
  g_clear_pointer (&fx->raw, raw_free);
  fx->raw = raw_new (port, "S");

  wait_finished (c);
  g_assert_cmpint (riv_job_get_status (c), ==, RIV_JOB_STATUS_LOST);
  assert_error_has (c, "Session not found");
  /* Its stream broke first: the error names the restart. */
  assert_error_has (c, "went away and came back");
  g_assert_cmpuint (fx->raw->n_gets, >=, 1);
  wait_client_idle (fx->c.client);

  assert_new_job_completes (fx->c.client, fx->raw, "after second restart");
}

/* A server on IPv6's loopback only, named localhost: reached (a direct
 * request tries IPv4's loopback first, and IPv6's when that is refused). */
static void
test_localhost_ipv6 (Fixture       *fx,
                     gconstpointer  data)
{
  g_autoptr(GError) error = NULL;
  Raw *raw = raw_new_on (G_SOCKET_FAMILY_IPV6, 0, "L", &error);
  g_autoptr(RivJob) job = NULL;
  Client c = { 0 };

  if (raw == NULL)
    {
      g_test_skip_printf ("this machine has no IPv6 loopback: %s", error->message);
      return;
    }
  client_connect (&c, raw->url);
  riv_client_set_direct (c.client, GPOINTER_TO_INT (data));
  /* A join that could not connect fails the job at once: said so. */
  job = submit_echo (c.client, "first");
  g_assert_true (riv_test_wait_until (job_joined_or_finished, job, HANG_GUARD));
  g_assert_cmpstr (riv_job_get_error (job), ==, NULL);
  g_assert_nonnull (riv_job_get_event_id (job));
  assert_new_job_completes (c.client, raw, "over IPv6");
  assert_new_job_completes (c.client, raw, "again");
  client_clear (&c);
  raw_free (raw);
}

static gboolean
job_running (gpointer job)
{
  return riv_job_get_status (job) >= RIV_JOB_STATUS_RUNNING;
}

/* The real RivServer is shut down with jobs queued and running, and a new
 * one listens on the same port: the old jobs end with the server's reason, a
 * job submitted meanwhile fails saying it could not join, and all four demos
 * work against the new server through the same client. */
static void
test_real_server_restart (void)
{
  g_autoptr(RivServer) server = riv_server_new ();
  g_autoptr(GError) error = NULL;
  g_autofree char *url = NULL;
  Client c = { NULL, NULL };
  RivJob *old[4];
  RivJob *fresh[4];
  g_autoptr(RivJob) refused = NULL;
  guint port;

  g_object_set (server, "concurrency", 1, NULL);
  riv_server_listen (server, NULL, 0, &error);
  g_assert_no_error (error);
  port = riv_server_get_port (server);
  url = riv_server_dup_url (server);
  client_connect (&c, url);

  /* Long runs: the first one runs, the others wait behind it. */
  old[0] = submit (c.client, "/stream_text", "[\"old\", 100000, 0.05]");
  old[1] = submit (c.client, "/stream_text", "[\"old\", 100000, 0.05]");
  old[2] = submit (c.client, "/fake_diffusion", "[50, 1.0]");
  old[3] = submit (c.client, "/batch_echo", "[\"old\", 10]");
  g_assert_true (riv_test_wait_until (job_running, old[0], HANG_GUARD));
  g_assert_true (riv_test_wait_until (job_running, old[2], HANG_GUARD));
  for (guint i = 0; i < G_N_ELEMENTS (old); i++)
    wait_joined (old[i]);

  riv_server_shutdown (server);
  g_clear_object (&server);

  refused = submit (c.client, "/batch_echo", "[\"refused\", 0]");
  for (guint i = 0; i < G_N_ELEMENTS (old); i++)
    {
      wait_finished (old[i]);
      g_test_message ("old job %u: %s: %s", i,
                      riv_job_status_to_string (riv_job_get_status (old[i])),
                      riv_job_get_error (old[i]));
      g_assert_true (riv_job_get_status (old[i]) == RIV_JOB_STATUS_FAILED ||
                     riv_job_get_status (old[i]) == RIV_JOB_STATUS_LOST);
      g_assert_nonnull (riv_job_get_error (old[i]));
      g_assert_true (strstr (riv_job_get_error (old[i]), "shutting down") != NULL ||
                     strstr (riv_job_get_error (old[i]), "lost") != NULL);
    }
  wait_finished (refused);
  g_assert_cmpint (riv_job_get_status (refused), ==, RIV_JOB_STATUS_FAILED);
  assert_error_has (refused, "Could not join the queue");
  wait_client_idle (c.client);

  server = riv_server_new ();
  riv_server_listen (server, NULL, port, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (riv_server_get_port (server), ==, port);

  fresh[0] = submit (c.client, "/fake_diffusion", "[2, 0]");
  fresh[1] = submit (c.client, "/stream_text", "[\"new\", 5, 0]");
  fresh[2] = submit (c.client, "/batch_echo", "[\"new\", 0]");
  fresh[3] = submit (c.client, "/rapid_generation", "[50]");
  for (guint i = 0; i < G_N_ELEMENTS (fresh); i++)
    {
      wait_finished (fresh[i]);
      if (riv_job_get_status (fresh[i]) != RIV_JOB_STATUS_COMPLETED)
        g_error ("new job %u: %s: %s", i, riv_job_status_to_string (riv_job_get_status (fresh[i])),
                 riv_job_get_error (fresh[i]));
    }
  g_assert_cmpstr (riv_job_get_output_text (fresh[0]), ==, "step 2/2");
  g_assert_cmpstr (riv_job_get_output_text (fresh[2]), ==, "new");
  g_assert_true (g_str_has_suffix (riv_job_get_output_text (fresh[3]), "\n49\n50"));
  g_assert_cmpuint (riv_client_get_n_pending (c.client), ==, 0);

  for (guint i = 0; i < G_N_ELEMENTS (old); i++)
    g_object_unref (old[i]);
  for (guint i = 0; i < G_N_ELEMENTS (fresh); i++)
    g_object_unref (fresh[i]);
  client_clear (&c);
  riv_server_shutdown (server);
  riv_test_drain ();
}

/* Join failures ------------------------------------------------------------------------ */

typedef struct
{
  const char *status;    /* "503 Service Unavailable" */
  const char *headers;   /* extra header lines, each ending in CRLF */
  const char *body;
  const char *words[2];
} JoinCase;


/* A job whose join gets reply (a whole HTTP response; "" closes the
 * connection instead), run to its end: it failed. */
static RivJob *
submit_failing_join (Fixture    *fx,
                     const char *reply,
                     const char *text)
{
  RivJob *job;

  g_queue_push_tail (&fx->raw->join_replies, g_strdup (reply));
  job = submit_echo (fx->c.client, text);
  wait_finished (job);
  g_assert_cmpint (riv_job_get_status (job), ==, RIV_JOB_STATUS_FAILED);
  return job;
}

/* 503 and other 5xx answers to a join fail that job with the status and the
 * server's reason; a job already streaming is not disturbed, and the stream
 * stays the same one. */
static void
test_join_5xx (Fixture       *fx,
               gconstpointer  data)
{
  static const JoinCase cases[] = {
    { "503 Service Unavailable", "Content-Type: application/json\r\n",
      "{\"detail\":\"Queue is full. Max size is 1.\"}", { "Queue is full", "Max size is 1" } },
    { "503 Service Unavailable", "Retry-After: 5\r\n", "", { "Queue is full", NULL } },
    { "500 Internal Server Error", "Content-Type: text/plain\r\n", "Internal Server Error",
      { "Server error", "500" } },
    { "502 Bad Gateway", "Content-Type: text/html\r\n", "<html><h1>Bad Gateway</h1></html>",
      { "server went away", "502" } },
    { "504 Gateway Timeout", "Content-Type: application/json\r\n",
      "{\"error\":\"upstream timeout\"}", { "504", "upstream timeout" } },
  };
  g_autoptr(RivJob) a = NULL;
  Conn *conn;

  a = submit_echo (fx->c.client, "a");
  wait_joined (a);
  conn = wait_get (fx->raw, 1);
  PUSH_GENERATING (conn, riv_job_get_event_id (a), "a1");
  wait_updates (a, 1);

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autofree char *reply = g_strdup_printf ("HTTP/1.1 %s\r\n%sContent-Length: %zu\r\n\r\n%s",
                                                cases[i].status, cases[i].headers,
                                                strlen (cases[i].body), cases[i].body);
      g_autoptr(RivJob) job = submit_failing_join (fx, reply, "x");

      for (guint j = 0; j < G_N_ELEMENTS (cases[i].words) && cases[i].words[j]; j++)
        assert_error_has (job, cases[i].words[j]);
    }

  g_assert_false (riv_job_is_finished (a));
  PUSH_COMPLETED (conn, riv_job_get_event_id (a), "a done");
  sse_close_stream (conn);
  wait_finished (a);
  g_assert_cmpint (riv_job_get_status (a), ==, RIV_JOB_STATUS_COMPLETED);
  g_assert_cmpuint (fx->raw->n_gets, ==, 1);
  g_assert_cmpuint (fx->c.stream_errors->len, ==, 0);
  wait_client_idle (fx->c.client);

  assert_new_job_completes (fx->c.client, fx->raw, "again");
}

static gboolean
held_all_closed (gpointer data)
{
  Raw *raw = data;

  for (guint i = 0; i < raw->held->len; i++)
    if (!((Conn *) g_ptr_array_index (raw->held, i))->peer_closed)
      return FALSE;
  return TRUE;
}

/* Closing the client while the server holds its joins unanswered: the jobs
 * end cancelled at once and the client lets go of every held connection
 * (libsoup's joins by the session's abort, direct ones by their own
 * cancellation), rather than keep them until the server answers. */
static void
test_close_with_joins_held (Fixture       *fx,
                            gconstpointer  data)
{
  RivJob *held[3];

  fx->raw->join_mode = JOIN_HOLD;
  for (guint i = 0; i < G_N_ELEMENTS (held); i++)
    held[i] = submit_echo (fx->c.client, "held");
  wait_held (fx->raw, G_N_ELEMENTS (held));
  riv_client_close (fx->c.client);
  for (guint i = 0; i < G_N_ELEMENTS (held); i++)
    {
      g_assert_cmpint (riv_job_get_status (held[i]), ==, RIV_JOB_STATUS_CANCELLED);
      g_object_unref (held[i]);
    }
  g_assert_true (riv_test_wait_until (held_all_closed, fx->raw, HANG_GUARD));
}

/* Joins the server reads and never answers, more of them than the client has
 * connections: with a 1 s join timeout every one fails saying so, the client
 * lets go of the hung connections, the job already streaming is not
 * disturbed, and a new job still gets through. */
static void
test_join_hangs (Fixture       *fx,
                 gconstpointer  data)
{
  g_autoptr(RivJob) a = NULL;
  RivJob *hung[20];
  Conn *conn;

  riv_client_set_join_timeout (fx->c.client, 1.0);
  a = submit_echo (fx->c.client, "a");
  wait_joined (a);
  conn = wait_get (fx->raw, 1);
  PUSH_GENERATING (conn, riv_job_get_event_id (a), "a1");

  fx->raw->join_mode = JOIN_HOLD;
  for (guint i = 0; i < G_N_ELEMENTS (hung); i++)
    hung[i] = submit_echo (fx->c.client, "hung");
  for (guint i = 0; i < G_N_ELEMENTS (hung); i++)
    {
      wait_finished (hung[i]);
      g_assert_cmpint (riv_job_get_status (hung[i]), ==, RIV_JOB_STATUS_FAILED);
      assert_error_has (hung[i], "did not answer the join request within 1 s");
      g_object_unref (hung[i]);
    }
  g_assert_cmpuint (fx->raw->held->len, >=, 1);
  g_assert_cmpuint (fx->raw->held->len, <=, G_N_ELEMENTS (hung));
  g_assert_true (riv_test_wait_until (held_all_closed, fx->raw, HANG_GUARD));

  /* An answer that stops in the middle of its body is bounded the same way. */
  {
    g_autoptr(RivJob) job = submit_failing_join (fx, "HTTP/1.1 200 OK\r\nContent-Type: "
                                                 "application/json\r\nContent-Length: 40\r\n"
                                                 "\r\n{\"event_id\":", "half");

    assert_error_has (job, "did not answer the join request within 1 s");
  }

  g_assert_false (riv_job_is_finished (a));
  PUSH_COMPLETED (conn, riv_job_get_event_id (a), "a done");
  sse_close_stream (conn);
  wait_finished (a);
  g_assert_cmpint (riv_job_get_status (a), ==, RIV_JOB_STATUS_COMPLETED);
  wait_client_idle (fx->c.client);

  assert_new_job_completes (fx->c.client, fx->raw, "again");
}

/* A join whose connection is closed before any answer (a reused keep-alive
 * connection the server dropped): the job fails or joins, but the server must
 * not get the same join twice. */
static void
test_join_dropped (Fixture       *fx,
                   gconstpointer  data)
{
  g_autoptr(RivJob) job = submit_failing_join (fx, "", "a");

  assert_error_has (job, "Could not join the queue");
  g_assert_cmpuint (fx->raw->n_joins, ==, 1);
  wait_client_idle (fx->c.client);

  assert_new_job_completes (fx->c.client, fx->raw, "again");
}

/* A \u escape of a lone UTF-16 surrogate is valid JSON syntax that json-glib
 * 1.6 decodes into bytes that are not UTF-8. Such a frame is refused like
 * invalid JSON: nothing invalid reaches a job's text or error (GTK refuses it),
 * and the frames after it still apply. */
static void
test_lone_surrogate (Fixture       *fx,
                     gconstpointer  data)
{
  g_autoptr(RivJob) job = NULL;
  g_autoptr(RivJob) failed = NULL;
  gboolean text_valid;
  const char *id;
  Conn *conn;

  job = submit_echo (fx->c.client, "a");
  failed = submit_echo (fx->c.client, "b");
  wait_joined (job);
  wait_joined (failed);
  id = riv_job_get_event_id (job);
  conn = wait_get (fx->raw, 1);
  PUSH_GENERATING (conn, id, "first");
  sse_frame (conn, "{\"msg\":\"process_generating\",\"event_id\":\"%s\",\"success\":true,"
             "\"output\":{\"data\":[[[\"append\",[],\" \\udc00 bad\"]]]}}", id);
  PUSH_APPEND (conn, id, " second");
  sse_frame (conn, "{\"msg\":\"process_completed\",\"event_id\":\"%s\",\"success\":false,"
             "\"output\":{\"error\":\"bad \\ud800 error\"}}", riv_job_get_event_id (failed));
  /* Both frames are refused as invalid JSON; the stream goes on. */
  sse_frame (conn, "{\"msg\":\"process_completed\",\"event_id\":\"%s\",\"success\":false,"
             "\"output\":{\"error\":\"plain error\"}}", riv_job_get_event_id (failed));
  wait_finished (failed);
  g_assert_cmpint (riv_job_get_status (failed), ==, RIV_JOB_STATUS_FAILED);
  g_assert_cmpstr (riv_job_get_error (failed), ==, "plain error");
  wait_updates (job, 2);
  text_valid = g_utf8_validate (riv_job_get_output_text (job), -1, NULL);
  g_assert_cmpstr (riv_job_get_output_text (job), ==, "first second");

  PUSH_COMPLETED (conn, id, "done");
  sse_close_stream (conn);
  wait_finished (job);
  g_assert_cmpint (riv_job_get_status (job), ==, RIV_JOB_STATUS_COMPLETED);
  wait_client_idle (fx->c.client);
  if (!text_valid || !g_utf8_validate (riv_job_get_error (failed), -1, NULL))
    g_error ("invalid UTF-8 reached the jobs: output text %s, error %s",
             text_valid ? "valid" : "INVALID",
             g_utf8_validate (riv_job_get_error (failed), -1, NULL) ? "valid" : "INVALID");
}

/* A job whose early messages were dropped must fail when its join reply
 * names it, however many other ids were dropped meanwhile: otherwise it
 * waits forever on a live stream. */
static void
test_poison_forgotten (Fixture       *fx,
                       gconstpointer  data)
{
  g_autoptr(RivJob) a = NULL;
  g_autoptr(RivJob) p = NULL;
  Flood ids = { "ghost-id", RIV_CLIENT_EARLY_MAX_IDS + 2000, 1, 8, 0, FALSE };
  const char *p_id;
  Conn *conn;

  /* P's join is held through the whole flood, which can take minutes
   * under sanitizers on a loaded machine: the join must not time out first
   * (join timeouts have tests of their own). */
  riv_client_set_join_timeout (fx->c.client, 3600);
  a = submit_echo (fx->c.client, "a");
  wait_joined (a);
  conn = wait_get (fx->raw, 1);
  PUSH_GENERATING (conn, riv_job_get_event_id (a), "before");
  wait_updates (a, 1);

  fx->raw->join_mode = JOIN_HOLD;
  p = submit_echo (fx->c.client, "p");
  wait_held (fx->raw, 1);
  p_id = fx->raw->events->pdata[fx->raw->events->len - 1];
  PUSH_COMPLETED (conn, p_id, "never seen");

  /* More ids than the early buffer holds: P's goes first, then over a
   * thousand more. */
  run_flood (conn, &ids, a);
  g_assert_cmpuint (_riv_client_get_n_early_dropped (fx->c.client), >, 1024 + 1);

  raw_release (fx->raw, 0);
  wait_joined (p);
  riv_test_drain ();
  /* The server still sends heartbeats: nothing else will ever end P. */
  sse_frame (conn, "{\"msg\":\"heartbeat\",\"event_id\":null}");
  riv_test_drain ();
  if (!riv_job_is_finished (p))
    g_error ("job P is %s after its join reply, with its early messages dropped",
             riv_job_status_to_string (riv_job_get_status (p)));
  g_assert_cmpint (riv_job_get_status (p), ==, RIV_JOB_STATUS_FAILED);

  PUSH_COMPLETED (conn, riv_job_get_event_id (a), "a done");
  sse_close_stream (conn);
  wait_finished (a);
}

/* A /config larger than the client reads (one that goes on and on, or one
 * that announces 2 GB): the connect fails at once, saying so, and the
 * connection is dropped rather than read to its end. */
static void
test_config_too_large (gconstpointer data)
{
  g_autoptr(Raw) raw = raw_new (0, "E");
  g_autoptr(RivClient) client = NULL;
  g_autoptr(GAsyncResult) result = NULL;
  g_autoptr(GError) error = NULL;

  raw->config_mode = GPOINTER_TO_INT (data);
  client = riv_client_new (raw->url);
  riv_client_connect_async (client, NULL, riv_test_async_result_cb, &result);
  riv_test_wait_result (&result, HANG_GUARD);
  g_assert_false (riv_client_connect_finish (client, result, &error));
  g_test_message ("%s (%" G_GSIZE_FORMAT " bytes sent)", error->message, raw->config_sent);
  g_assert_error (error, RIV_CLIENT_ERROR, RIV_CLIENT_ERROR_PROTOCOL);
  g_assert_nonnull (strstr (error->message, "reply to /config is larger than 64 MiB"));
  g_assert_cmpuint (raw->config_sent, <, ENDLESS_BOUND);
  g_assert_nonnull (raw->config_conn);
  g_assert_true (riv_test_wait_until (conn_is_peer_closed, raw->config_conn, HANG_GUARD));
  riv_client_close (client);
  riv_test_drain ();
}

/* A join reply that announces 2 GB: the job fails at once, saying why. */
static void
test_join_reply_huge (Fixture       *fx,
                      gconstpointer  data)
{
  g_autoptr(RivJob) job = submit_failing_join (fx, "HTTP/1.1 200 OK\r\nContent-Type: "
                                               "application/json\r\nContent-Length: 2000000000"
                                               "\r\n\r\n{", "a");

  assert_error_has (job, "is larger than 64 MiB");
  assert_new_job_completes (fx->c.client, fx->raw, "again");
}

int
main (int    argc,
      char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_log_set_handler ("riv-core", G_LOG_LEVEL_MASK | G_LOG_FLAG_FATAL | G_LOG_FLAG_RECURSION,
                     log_handler, NULL);

#define ADD(path, func) G_STMT_START { \
  g_test_add ("/faults/" path, Fixture, GINT_TO_POINTER (FALSE), fixture_setup, func, \
              fixture_teardown); \
  g_test_add ("/faults/direct/" path, Fixture, GINT_TO_POINTER (TRUE), fixture_setup, func, \
              fixture_teardown); \
  } G_STMT_END

  ADD ("drop-mid-frame", test_drop_mid_frame);
  ADD ("drop-mid-frame-forever", test_drop_mid_frame_forever);
  ADD ("join-reply-cut", test_join_reply_cut);
  ADD ("join-dropped", test_join_dropped);
  ADD ("stall", test_stall);
  ADD ("stream-request-hangs", test_stream_request_hangs);
  ADD ("stream-request-500", test_stream_request_500);
  ADD ("drip", test_drip);
  ADD ("oversized-frame", test_oversized_frame);
  ADD ("invalid-frames", test_invalid_frames);
  ADD ("unknown-id-flood", test_unknown_id_flood);
  ADD ("server-crash", test_server_crash);
  g_test_add_func ("/faults/real-server-restart", test_real_server_restart);
  ADD ("join-5xx", test_join_5xx);
  ADD ("join-hangs", test_join_hangs);
  ADD ("close-with-joins-held", test_close_with_joins_held);
  ADD ("lone-surrogate", test_lone_surrogate);
  ADD ("poison-forgotten", test_poison_forgotten);
  ADD ("join-reply-huge", test_join_reply_huge);
  ADD ("localhost-ipv6", test_localhost_ipv6);
  g_test_add_data_func ("/faults/config-endless", GINT_TO_POINTER (CONFIG_ENDLESS),
                        test_config_too_large);
  g_test_add_data_func ("/faults/config-huge", GINT_TO_POINTER (CONFIG_HUGE),
                        test_config_too_large);

  return g_test_run ();
}
