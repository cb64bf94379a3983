/* bench-sessions.c
 * Copyright 2026 The Rivulet authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Issue #14 §5, the server's side: how many sessions, each with its own SSE
 * stream, one `rivulet-cli serve` holds, and what each costs it. Against a
 * server started by tests/bench/run (loopback, --concurrency 1, a short
 * --heartbeat, --max-queue 0):
 *
 *   bench-sessions --url URL --server-pid PID --sessions N [--hold S]
 *
 * 1. A gate: one stream_text job that would run for days holds the
 *    endpoint's only slot (session "s0", with its stream, so that the
 *    server's idle-session sweep leaves it alone). Then N sessions
 *    "s1".."sN", each: POST queue/join of one short stream_text job (one
 *    token), then its own GET queue/data kept open. Every session has a job
 *    waiting and a stream attached: the server holds N sessions and N
 *    streams at once, however long opening them takes.
 * 2. Once every stream has had its first frame: the server's VmRSS/RssAnon
 *    and open descriptors, then CPU time over --hold seconds of holding
 *    (heartbeats, estimations, sweeps) and the descriptors again.
 * 3. Every job is cancelled (POST /cancel, the gate last): every stream
 *    must then carry its job's process_completed and end with close_stream.
 *    The time that takes is reported; a session that misses either is
 *    counted as lost. (Running the N jobs instead would measure the queue
 *    at concurrency 1, not the sessions.)
 *
 * Per-session figures are (held - before) / N, so running it with two sizes
 * against fresh servers shows whether they stay flat. Each stream is a plain
 * socket with its own HTTP/1.1 GET (chunked body decoded here), so the
 * driver's own cost stays small and no client connection pool is measured.
 * One JSON object on stdout. Not a test: timing is reported, never asserted;
 * the exit status is 0 only if every session got its stream, its completion
 * and close_stream.
 */
#include "config.h"

#include <stdio.h>
#include <string.h>
#include <sys/resource.h>

#include <libsoup/soup.h>

#include "bench-util.h"
#include "riv-config.h"
#include "riv-poller.h"

#define REQUESTS_IN_FLIGHT 64
#define READ_SIZE          4096

typedef struct _Bench Bench;

typedef enum
{
  STREAM_HEADERS,
  STREAM_CHUNK_SIZE,
  STREAM_CHUNK_DATA,
  STREAM_CHUNK_END,
  STREAM_DONE,
} StreamState;

typedef struct
{
  Bench        *bench;          /* borrowed */
  guint         index;          /* 1-based */
  char         *event_id;       /* from the join reply */
  GSocketConnection *conn;     /* owned while the stream is open */
  RivPollerWatch *watch;       /* owned while the stream is open */
  char         *request;        /* owned */
  StreamState   state;
  GString      *line;           /* headers, then a chunk-size line */
  gsize         chunk_left;
  char          buf[READ_SIZE];
  GString      *tail;           /* the unfinished last frame */
  guint         n_frames;
  guint         n_heartbeats;
  gboolean      completed;
  gboolean      closed;         /* close_stream seen */
  gboolean      ended;          /* stream ended (EOF or error) */
} User;

struct _Bench
{
  SoupSession *session;
  GSocketClient *sockets;
  RivPoller   *poller;         /* every stream's reads: one epoll source */
  char        *url;
  char        *host;
  int          port;
  gint64       fn_index;
  User        *users;
  guint        n_users;
  /* Requests (joins, then cancels) go out at most REQUESTS_IN_FLIGHT at once. */
  guint        next_request;
  guint        requests_in_flight;
  gboolean     cancelling;
  User         gate;            /* session s0: the gate job and its stream */
  gboolean     gate_cancel_sent;
  gboolean     gate_cancelled;
  guint        n_cancel_errors;
  guint        n_joined;
  guint        n_join_errors;
  guint        n_streaming;     /* streams that delivered their first frame */
  guint        n_stream_errors;
  guint        n_completed;
  guint        n_ended;
};

static void request_more (Bench *bench);

/* Raises this process's soft descriptor limit to the hard one (N streams and
 * the join connections need more than the usual 1,024). */
static void
raise_fd_limit (void)
{
  struct rlimit limit;

  if (getrlimit (RLIMIT_NOFILE, &limit) == 0 && limit.rlim_cur < limit.rlim_max)
    {
      limit.rlim_cur = limit.rlim_max;
      setrlimit (RLIMIT_NOFILE, &limit);
    }
}

static guint
count_fds (int pid)
{
  g_autofree char *path = g_strdup_printf ("/proc/%d/fd", pid);
  g_autoptr(GDir) dir = g_dir_open (path, 0, NULL);
  guint n = 0;

  while (dir != NULL && g_dir_read_name (dir) != NULL)
    n++;
  return n;
}

/* CPU seconds (user + system) a process has used, from /proc/PID/stat. */
static double
process_cpu (int pid)
{
  g_autofree char *path = g_strdup_printf ("/proc/%d/stat", pid);
  g_autofree char *contents = NULL;
  g_auto(GStrv) fields = NULL;
  const char *after;

  if (!g_file_get_contents (path, &contents, NULL, NULL) ||
      (after = strrchr (contents, ')')) == NULL)
    return 0;
  fields = g_strsplit (after + 2, " ", 0);
  if (g_strv_length (fields) < 13)
    return 0;
  return (g_ascii_strtod (fields[11], NULL) + g_ascii_strtod (fields[12], NULL)) /
         sysconf (_SC_CLK_TCK);
}

/* Streams ---------------------------------------------------------------------------------- */

static void
user_stream_end (User *user)
{
  if (user->ended)
    return;
  user->ended = TRUE;
  if (user->index > 0)
    user->bench->n_ended++;
  g_clear_pointer (&user->watch, riv_poller_watch_free);
  if (user->conn != NULL)
    g_io_stream_close (G_IO_STREAM (user->conn), NULL, NULL);
  g_clear_object (&user->conn);
}

/* Counts the complete frames in what was read (frames end with a blank line). */
static void
user_take (User       *user,
           const char *data,
           gsize       len)
{
  Bench *bench = user->bench;
  const char *frame, *end;

  g_string_append_len (user->tail, data, len);
  frame = user->tail->str;
  while ((end = strstr (frame, "\n\n")) != NULL)
    {
      if (user->n_frames++ == 0 && user->index > 0)
        bench->n_streaming++;
      if (g_strstr_len (frame, end - frame, "\"msg\":\"heartbeat\"") != NULL)
        user->n_heartbeats++;
      else if (g_strstr_len (frame, end - frame, "\"msg\":\"close_stream\"") != NULL)
        user->closed = TRUE;
      else if (g_strstr_len (frame, end - frame, "\"msg\":\"process_completed\"") != NULL &&
               user->event_id != NULL &&
               g_strstr_len (frame, end - frame, user->event_id) != NULL && !user->completed)
        {
          user->completed = TRUE;
          if (user->index > 0)
            bench->n_completed++;
        }
      frame = end + 2;
    }
  g_string_erase (user->tail, 0, frame - user->tail->str);
}

/* The response as it arrives: headers, then HTTP/1.1 chunks whose data is
 * the SSE text. */
static gboolean
user_take_raw (User       *user,
               const char *data,
               gsize       len)
{
  while (len > 0)
    {
      switch (user->state)
        {
        case STREAM_HEADERS:
          {
            const char *end;

            g_string_append_len (user->line, data, len);
            len = 0;
            end = strstr (user->line->str, "\r\n\r\n");
            if (end == NULL)
              break;
            if (!g_str_has_prefix (user->line->str, "HTTP/1.1 200 ") ||
                g_strstr_len (user->line->str, end - user->line->str, "chunked") == NULL)
              return FALSE;
            /* What follows the headers is the start of the body. */
            {
              g_autofree char *rest = g_strdup (end + 4);

              g_string_truncate (user->line, 0);
              user->state = STREAM_CHUNK_SIZE;
              if (!user_take_raw (user, rest, strlen (rest)))
                return FALSE;
            }
          }
          break;

        case STREAM_CHUNK_SIZE:
          {
            const char *nl = memchr (data, '\n', len);
            gsize take = nl != NULL ? (gsize) (nl - data) + 1 : len;

            g_string_append_len (user->line, data, take);
            data += take;
            len -= take;
            if (nl == NULL)
              break;
            user->chunk_left = g_ascii_strtoull (user->line->str, NULL, 16);
            g_string_truncate (user->line, 0);
            if (user->chunk_left == 0)
              {
                user->state = STREAM_DONE;
                return TRUE;
              }
            user->state = STREAM_CHUNK_DATA;
          }
          break;

        case STREAM_CHUNK_DATA:
          {
            gsize take = MIN (len, user->chunk_left);

            user_take (user, data, take);
            data += take;
            len -= take;
            user->chunk_left -= take;
            if (user->chunk_left == 0)
              {
                user->chunk_left = 2;   /* the CRLF after the data */
                user->state = STREAM_CHUNK_END;
              }
          }
          break;

        case STREAM_CHUNK_END:
          {
            gsize take = MIN (len, user->chunk_left);

            data += take;
            len -= take;
            user->chunk_left -= take;
            if (user->chunk_left == 0)
              user->state = STREAM_CHUNK_SIZE;
          }
          break;

        case STREAM_DONE:
        default:
          return TRUE;
        }
    }
  return TRUE;
}

/* Reads what the socket has and waits for more. The streams wait on one
 * epoll source (RivPoller), as RivClient's do: with ten thousand of them, a
 * GLib source each made every turn of this driver's loop walk and poll all
 * ten thousand, and the driver, not the server, set the pace. */
static void
user_read_ready (gpointer data)
{
  User *user = data;
  GSocket *socket = g_socket_connection_get_socket (user->conn);
  g_autoptr(GError) error = NULL;
  gssize n = g_socket_receive_with_blocking (socket, user->buf, sizeof user->buf, FALSE,
                                             NULL, &error);

  if (n < 0 && g_error_matches (error, G_IO_ERROR, G_IO_ERROR_WOULD_BLOCK))
    {
      g_clear_error (&error);
      if (riv_poller_watch_readable (user->watch, &error))
        return;
      n = -1;
    }
  if (n <= 0 || !user_take_raw (user, user->buf, n) || user->state == STREAM_DONE)
    {
      if (n < 0 || (n > 0 && user->state != STREAM_DONE))
        user->bench->n_stream_errors++;
      user_stream_end (user);
      return;
    }
  riv_poller_watch_soon (user->watch);
}

static void
user_start_reading (User *user)
{
  GSocket *socket = g_socket_connection_get_socket (user->conn);

  user->watch = riv_poller_watch_new (user->bench->poller, g_socket_get_fd (socket),
                                      user_read_ready, user);
  riv_poller_watch_soon (user->watch);
}

static void
user_wrote_cb (GObject      *object,
               GAsyncResult *result,
               gpointer      user_data)
{
  User *user = user_data;
  g_autoptr(GError) error = NULL;

  if (!g_output_stream_write_all_finish (G_OUTPUT_STREAM (object), result, NULL, &error))
    {
      user->bench->n_stream_errors++;
      user_stream_end (user);
      return;
    }
  user_start_reading (user);
}

static void
user_connected_cb (GObject      *object,
                   GAsyncResult *result,
                   gpointer      user_data)
{
  User *user = user_data;
  Bench *bench = user->bench;
  g_autoptr(GError) error = NULL;

  user->conn = g_socket_client_connect_finish (G_SOCKET_CLIENT (object), result, &error);
  if (user->conn == NULL)
    {
      bench->n_stream_errors++;
      user_stream_end (user);
      return;
    }
  user->request = g_strdup_printf ("GET /gradio_api/queue/data?session_hash=s%u HTTP/1.1\r\n"
                                   "Host: %s:%d\r\nAccept: text/event-stream\r\n\r\n",
                                   user->index, bench->host, bench->port);
  g_output_stream_write_all_async (g_io_stream_get_output_stream (G_IO_STREAM (user->conn)),
                                   user->request, strlen (user->request), G_PRIORITY_DEFAULT,
                                   NULL, user_wrote_cb, user);
}

/* One plain connection per stream (the streams are what is measured; a
 * client library's connection pool is not). */
static void
user_open_stream (User *user)
{
  Bench *bench = user->bench;

  user->line = g_string_new (NULL);
  g_socket_client_connect_to_host_async (bench->sockets, bench->host, bench->port, NULL,
                                         user_connected_cb, user);
}

/* Joins and cancels ------------------------------------------------------------------------- */

static void
join_cb (GObject      *object,
         GAsyncResult *result,
         gpointer      user_data)
{
  User *user = user_data;
  Bench *bench = user->bench;
  g_autoptr(GError) error = NULL;
  g_autoptr(GBytes) body = soup_session_send_and_read_finish (SOUP_SESSION (object), result,
                                                              &error);
  SoupMessage *msg = soup_session_get_async_result_message (SOUP_SESSION (object), result);
  const char *text, *id;

  bench->requests_in_flight--;
  text = body != NULL ? g_bytes_get_data (body, NULL) : NULL;
  id = text != NULL ? g_strstr_len (text, g_bytes_get_size (body), "\"event_id\":\"") : NULL;
  if (soup_message_get_status (msg) != SOUP_STATUS_OK || id == NULL)
    bench->n_join_errors++;
  else
    {
      id += strlen ("\"event_id\":\"");
      user->event_id = g_strndup (id, strcspn (id, "\""));
      bench->n_joined++;
      user_open_stream (user);
    }
  request_more (bench);
}

/* A cancel's reply; user_data is the User whose job it was (the gate too). */
static void
cancel_cb (GObject      *object,
           GAsyncResult *result,
           gpointer      user_data)
{
  User *user = user_data;
  Bench *bench = user->bench;
  GBytes *body = soup_session_send_and_read_finish (SOUP_SESSION (object), result, NULL);
  SoupMessage *msg = soup_session_get_async_result_message (SOUP_SESSION (object), result);
  gboolean ok = soup_message_get_status (msg) == SOUP_STATUS_OK;

  g_clear_pointer (&body, g_bytes_unref);
  bench->requests_in_flight--;
  if (user == &bench->gate)
    bench->gate_cancelled = ok;
  else if (!ok)
    bench->n_cancel_errors++;
  request_more (bench);
}

static void
post_json (Bench               *bench,
           const char          *path,
           char                *json,
           GAsyncReadyCallback  callback,
           gpointer             user_data)
{
  g_autofree char *uri = g_strconcat (bench->url, path, NULL);
  g_autoptr(SoupMessage) msg = soup_message_new ("POST", uri);
  g_autoptr(GBytes) body = g_bytes_new_take (json, strlen (json));

  soup_message_set_request_body_from_bytes (msg, "application/json", body);
  bench->requests_in_flight++;
  soup_session_send_and_read_async (bench->session, msg, G_PRIORITY_DEFAULT, NULL,
                                    callback, user_data);
}

static char *
cancel_body (const char *event_id,
             const char *hash,
             gint64      fn_index)
{
  return g_strdup_printf ("{\"event_id\":\"%s\",\"session_hash\":\"%s\",\"fn_index\":%"
                          G_GINT64_FORMAT "}", event_id, hash, fn_index);
}

static void
request_more (Bench *bench)
{
  while (bench->requests_in_flight < REQUESTS_IN_FLIGHT && bench->next_request < bench->n_users)
    {
      User *user = &bench->users[bench->next_request++];

      if (!bench->cancelling)
        post_json (bench, "/gradio_api/queue/join",
                   g_strdup_printf ("{\"data\":[\"u%u\",1,0],\"fn_index\":%" G_GINT64_FORMAT
                                    ",\"session_hash\":\"s%u\"}",
                                    user->index, bench->fn_index, user->index),
                   join_cb, user);
      else if (user->event_id != NULL)
        {
          g_autofree char *hash = g_strdup_printf ("s%u", user->index);

          post_json (bench, "/gradio_api/cancel",
                     cancel_body (user->event_id, hash, bench->fn_index), cancel_cb, user);
        }
    }
  /* The gate goes last, once every other cancel is out. */
  if (bench->cancelling && bench->next_request >= bench->n_users && !bench->gate_cancel_sent)
    {
      bench->gate_cancel_sent = TRUE;
      post_json (bench, "/gradio_api/cancel",
                 cancel_body (bench->gate.event_id, "s0", bench->fn_index), cancel_cb,
                 &bench->gate);
    }
}

/* Setup -------------------------------------------------------------------------------------- */

static gboolean
load_fn_index (Bench   *bench,
               GError **error)
{
  g_autofree char *uri = g_strconcat (bench->url, "/config", NULL);
  g_autoptr(SoupMessage) msg = soup_message_new ("GET", uri);
  g_autoptr(GBytes) body = NULL;
  g_autoptr(RivConfig) config = NULL;
  RivEndpoint *endpoint;

  body = soup_session_send_and_read (bench->session, msg, NULL, error);
  if (body == NULL)
    return FALSE;
  config = riv_config_new_from_data (g_bytes_get_data (body, NULL), g_bytes_get_size (body),
                                     bench->url, error);
  if (config == NULL)
    return FALSE;
  endpoint = riv_config_find_endpoint (config, "stream_text");
  if (endpoint == NULL)
    {
      g_set_error_literal (error, G_IO_ERROR, G_IO_ERROR_NOT_FOUND,
                           "the server has no stream_text endpoint");
      return FALSE;
    }
  bench->fn_index = endpoint->fn_index;
  return TRUE;
}

/* The job that keeps the endpoint's slot busy while the sessions open. */
static gboolean
join_gate (Bench   *bench,
           GError **error)
{
  g_autofree char *uri = g_strconcat (bench->url, "/gradio_api/queue/join", NULL);
  g_autofree char *json = g_strdup_printf ("{\"data\":[\"gate\",100000,10],\"fn_index\":%"
                                           G_GINT64_FORMAT ",\"session_hash\":\"s0\"}",
                                           bench->fn_index);
  g_autoptr(SoupMessage) msg = soup_message_new ("POST", uri);
  g_autoptr(GBytes) request = g_bytes_new (json, strlen (json));
  g_autoptr(GBytes) body = NULL;
  const char *text, *id;

  soup_message_set_request_body_from_bytes (msg, "application/json", request);
  body = soup_session_send_and_read (bench->session, msg, NULL, error);
  if (body == NULL)
    return FALSE;
  text = g_bytes_get_data (body, NULL);
  id = g_strstr_len (text, g_bytes_get_size (body), "\"event_id\":\"");
  if (soup_message_get_status (msg) != SOUP_STATUS_OK || id == NULL)
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_FAILED, "the gate job was refused (HTTP %u)",
                   soup_message_get_status (msg));
      return FALSE;
    }
  id += strlen ("\"event_id\":\"");
  bench->gate.event_id = g_strndup (id, strcspn (id, "\""));
  user_open_stream (&bench->gate);
  return TRUE;
}

/* Progress on stderr once a second (the log of a run that takes long). */
static gboolean
progress_cb (gpointer data)
{
  Bench *bench = data;

  g_printerr ("bench-sessions: joined %u, streaming %u, completed %u, ended %u, errors %u/%u\n",
              bench->n_joined, bench->n_streaming, bench->n_completed, bench->n_ended,
              bench->n_join_errors, bench->n_stream_errors);
  return G_SOURCE_CONTINUE;
}

static gboolean
all_streaming (gpointer data)
{
  Bench *bench = data;

  return bench->n_streaming + bench->n_join_errors + bench->n_stream_errors >= bench->n_users;
}

static gboolean
all_ended (gpointer data)
{
  Bench *bench = data;

  return bench->n_ended >= bench->n_joined;
}

static gboolean
done_waiting (gpointer data)
{
  return FALSE;
}

int
main (int   argc,
      char *argv[])
{
  g_autoptr(GOptionContext) context = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *url = NULL;
  int server_pid = 0, n = 0;
  double hold = 5, timeout = 600;
  GOptionEntry entries[] = {
    { "url", 0, 0, G_OPTION_ARG_STRING, &url, "The server (rivulet-cli serve)", "URL" },
    { "server-pid", 0, 0, G_OPTION_ARG_INT, &server_pid, "Its process id", "PID" },
    { "sessions", 'n', 0, G_OPTION_ARG_INT, &n, "Sessions, each with its own stream", "N" },
    { "hold", 0, 0, G_OPTION_ARG_DOUBLE, &hold, "Seconds to hold them (default 5)", "S" },
    { "timeout", 0, 0, G_OPTION_ARG_DOUBLE, &timeout, "Hang guard (default 600)", "S" },
    { NULL }
  };
  Bench bench = { 0 };
  gsize rss_before, anon_before, rss_held, anon_held, rss_after;
  guint fds_before, fds_held, fds_held_end, fds_after, lost = 0, heartbeats = 0;
  double t0, t_open, cpu0, cpu1, t_cancel, t_drained, cpu_start, cpu_drain0, cpu_drain1;

  context = g_option_context_new ("— N sessions with their streams against one server");
  g_option_context_add_main_entries (context, entries, NULL);
  if (!g_option_context_parse (context, &argc, &argv, &error) || url == NULL ||
      server_pid <= 0 || n <= 0)
    {
      g_printerr ("bench-sessions: %s\n",
                  error ? error->message : "need --url, --server-pid, --sessions");
      return 2;
    }

  raise_fd_limit ();
  bench.url = g_steal_pointer (&url);
  bench.n_users = n;
  bench.users = g_new0 (User, n);
  for (guint i = 0; i < bench.n_users; i++)
    {
      bench.users[i].bench = &bench;
      bench.users[i].index = i + 1;
      bench.users[i].tail = g_string_new (NULL);
    }
  {
    g_autoptr(GUri) uri = g_uri_parse (bench.url, G_URI_FLAGS_NONE, &error);

    if (uri == NULL || g_uri_get_host (uri) == NULL || g_uri_get_port (uri) <= 0)
      {
        g_printerr ("bench-sessions: bad --url: %s\n", error ? error->message : bench.url);
        return 2;
      }
    bench.host = g_strdup (g_uri_get_host (uri));
    bench.port = g_uri_get_port (uri);
  }
  /* Joins and cancels over a few kept-alive connections; each stream has its own. */
  bench.session = soup_session_new_with_options ("max-conns", 2 * REQUESTS_IN_FLIGHT,
                                                 "max-conns-per-host", 2 * REQUESTS_IN_FLIGHT,
                                                 "timeout", 0, "idle-timeout", 0, NULL);
  bench.sockets = g_socket_client_new ();
  bench.poller = riv_poller_get (NULL, G_PRIORITY_DEFAULT);
  if (bench.poller == NULL)
    {
      g_printerr ("bench-sessions: needs epoll\n");
      return 2;
    }
  bench.gate.bench = &bench;
  bench.gate.tail = g_string_new (NULL);
  if (!load_fn_index (&bench, &error) || !join_gate (&bench, &error))
    {
      g_printerr ("bench-sessions: %s\n", error->message);
      return 2;
    }

  rss_before = bench_process_status_bytes (server_pid, "VmRSS");
  anon_before = bench_process_status_bytes (server_pid, "RssAnon");
  fds_before = count_fds (server_pid);

  g_timeout_add_seconds (1, progress_cb, &bench);

  /* 1. Open. */
  cpu_start = process_cpu (server_pid);
  t0 = bench_now ();
  request_more (&bench);
  bench_wait_until (all_streaming, &bench, timeout);
  t_open = bench_now () - t0;

  /* 2. Hold. */
  rss_held = bench_process_status_bytes (server_pid, "VmRSS");
  anon_held = bench_process_status_bytes (server_pid, "RssAnon");
  fds_held = count_fds (server_pid);
  cpu0 = process_cpu (server_pid);
  bench_wait_until (done_waiting, NULL, hold);
  cpu1 = process_cpu (server_pid);
  fds_held_end = count_fds (server_pid);
  g_printerr ("bench-sessions: %u sessions open in %.1f s; holding: server RSS %.1f MiB, "
              "%u descriptors\n", bench.n_streaming, t_open, rss_held / 1048576.0, fds_held);

  /* 3. Cancel every job; each stream must carry its completion and end. */
  t_cancel = bench_now ();
  cpu_drain0 = process_cpu (server_pid);
  bench.cancelling = TRUE;
  bench.next_request = 0;
  request_more (&bench);
  bench_wait_until (all_ended, &bench, timeout);
  t_drained = bench_now () - t_cancel;
  cpu_drain1 = process_cpu (server_pid);
  bench_wait_until (done_waiting, NULL, 2.0);
  rss_after = bench_process_status_bytes (server_pid, "VmRSS");
  fds_after = count_fds (server_pid);

  for (guint i = 0; i < bench.n_users; i++)
    {
      User *user = &bench.users[i];

      heartbeats += user->n_heartbeats;
      if (!user->completed || !user->closed)
        lost++;
    }

  g_print ("{\"bench\":\"sessions\",\"sessions\":%u,\"joined\":%u,\"join_errors\":%u,"
           "\"streaming\":%u,\"stream_errors\":%u,\"completed\":%u,\"lost\":%u,"
           "\"cancel_errors\":%u,\"open_s\":%.3f,\"drain_s\":%.3f,\"hold_s\":%.1f,"
           "\"heartbeats\":%u,"
           "\"server_rss_before\":%" G_GSIZE_FORMAT ",\"server_rss_held\":%" G_GSIZE_FORMAT
           ",\"server_rss_after\":%" G_GSIZE_FORMAT ",\"server_anon_before\":%" G_GSIZE_FORMAT
           ",\"server_anon_held\":%" G_GSIZE_FORMAT ",\"server_bytes_per_session\":%.0f,"
           "\"server_fds_before\":%u,\"server_fds_held\":%u,\"server_fds_held_end\":%u,"
           "\"server_fds_after\":%u,\"server_open_cpu_s\":%.3f,\"server_hold_cpu_s\":%.3f,"
           "\"server_drain_cpu_s\":%.3f}\n",
           bench.n_users, bench.n_joined, bench.n_join_errors, bench.n_streaming,
           bench.n_stream_errors, bench.n_completed, lost, bench.n_cancel_errors, t_open, t_drained,
           hold, heartbeats,
           rss_before, rss_held, rss_after, anon_before, anon_held,
           ((double) rss_held - (double) rss_before) / bench.n_users,
           fds_before, fds_held, fds_held_end, fds_after, cpu0 - cpu_start, cpu1 - cpu0,
           cpu_drain1 - cpu_drain0);

  for (guint i = 0; i < bench.n_users; i++)
    {
      user_stream_end (&bench.users[i]);
      g_free (bench.users[i].event_id);
      g_free (bench.users[i].request);
      if (bench.users[i].line != NULL)
        g_string_free (bench.users[i].line, TRUE);
      g_string_free (bench.users[i].tail, TRUE);
    }
  g_free (bench.users);
  g_object_unref (bench.session);
  g_object_unref (bench.sockets);
  g_free (bench.url);
  g_free (bench.host);
  user_stream_end (&bench.gate);
  g_free (bench.gate.event_id);
  g_free (bench.gate.request);
  g_string_free (bench.gate.tail, TRUE);
  if (bench.gate.line != NULL)
    g_string_free (bench.gate.line, TRUE);
  return lost == 0 && bench.n_stream_errors == 0 && bench.n_join_errors == 0 &&
         bench.n_cancel_errors == 0 && bench.gate_cancelled ? 0 : 1;
}
