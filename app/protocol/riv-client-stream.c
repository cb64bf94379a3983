/* riv-client-stream.c
 * Copyright 2026 The Rivulet authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The session's SSE stream (GET queue/data): opening it, reading it and
 * pacing the reads, dispatching each message to its job (or to the early
 * buffer) synchronously, reconnecting while jobs are in flight, and the
 * liveness watchdog that ends jobs when the server falls silent.
 *
 * Streams are epoch-tagged: a stream that was replaced (or detached by close,
 * liveness or close_stream) never touches the client again; its pending
 * callback only frees it.
 *
 * It also acts on what riv-client-jobs.c says a job's update changed, for
 * every transport: an image output fetched (riv-client-files.c), throttled
 * outputs published by a timer, and a job's end counted (liveness,
 * n-joining, n-pending, job-finished).
 */
#include "config.h"

#include <errno.h>
#include <math.h>
#include <sys/socket.h>

#include <gio/gfiledescriptorbased.h>

#include "riv-client-private.h"
#include "riv-compat.h"

/* A stream's read buffer starts small and grows once a read fills it: with
 * thousands of virtual users, most streams only ever carry a few short
 * messages, and 16 KiB each was a sixth of the client's memory. */
#define READ_SIZE_FIRST       (4 * 1024)
#define READ_SIZE             (16 * 1024)
#define MAX_STREAM_FAILURES   4      /* consecutive failed (re)connects before jobs are lost */
#define MAX_EMPTY_CLOSES      10     /* close_stream with no news of the jobs in flight */
#define DRAIN_TIMEOUT_S       2.0    /* after close_stream, wait this long for the end */
#define CUT_SILENCE_S         1.0    /* a stream ending after this much silence was cut */

/* Backoff before reconnect attempt n (1-based): the first one is immediate. */
static const guint reconnect_delay_ms[MAX_STREAM_FAILURES] = { 0, 100, 500, 1500 };

/* Acting on a job's update ---------------------------------------------------------- */

static gboolean publish_timeout_cb (gpointer user_data);

/* What the caller of riv-client-jobs.c does with an update, but its end:
 * the job's state may have gone meanwhile (a handler of the job's
 * notifications ended it), and then there is no image to fetch. */
static void
act_on_outputs (RivClient          *self,
                RivJob             *job,
                const RivJobUpdate *update)
{
  RivJobCtx *ctx;

  if (update->published && (ctx = _riv_client_job_ctx (job)) != NULL)
    _riv_client_maybe_download_images (self, ctx, riv_job_get_outputs (job));
  /* The timer rounds up to whole milliseconds, so it never fires early. */
  if (update->publish_in > 0 && self->jobs.publish_source == NULL)
    self->jobs.publish_source = _riv_client_attach_timeout (self,
                                                            ceil (update->publish_in * 1000) / 1000,
                                                            publish_timeout_cb, self);
}

static gboolean
publish_timeout_cb (gpointer user_data)
{
  RivClient *self = user_data;
  g_autoptr(GPtrArray) jobs = g_steal_pointer (&self->jobs.unpublished);
  double now = riv_now ();

  g_clear_pointer (&self->jobs.publish_source, g_source_unref);
  for (guint i = 0; jobs != NULL && i < jobs->len; i++)
    {
      RivJob *job = g_ptr_array_index (jobs, i);
      RivJobUpdate update = RIV_JOB_UPDATE_INIT;

      _riv_client_job_publish_due (self, job, now, &update);
      act_on_outputs (self, job, &update);
    }
  return G_SOURCE_REMOVE;
}

/* Applies one message to a non-terminal job, and acts on what it changed. */
void
_riv_client_apply_message (RivClient  *self,
                           RivJob     *job,
                           RivMessage *msg)
{
  G_GNUC_UNUSED g_autoptr(RivJob) hold = g_object_ref (job);   /* alive until we return */
  RivJobUpdate update = RIV_JOB_UPDATE_INIT;

  _riv_client_job_apply (self, job, msg, &update);
  act_on_outputs (self, job, &update);
  /* _riv_client_finish_job notifies and emits job-finished after the message's burst. */
  if (update.final != RIV_JOB_STATUS_PENDING)
    _riv_client_finish_job (self, job, update.final, update.fail_text);
  g_free (update.fail_text);
}

/* Finishes a job (if it is not terminal yet), counts it and announces it. */
gboolean
_riv_client_finish_job (RivClient    *self,
                        RivJob       *job,
                        RivJobStatus  status,
                        const char   *error)
{
  G_GNUC_UNUSED g_autoptr(RivJob) hold = g_object_ref (job);   /* alive until we return */
  RivJobUpdate update = RIV_JOB_UPDATE_INIT;
  RivJobEnded ended;

  /* A job that ends mid-stream keeps the last outputs it was sent. */
  update.published = _riv_client_job_publish_pending (self, job);
  act_on_outputs (self, job, &update);

  ended = _riv_client_job_end (self, job, status, error);
  if (ended == 0)
    return FALSE;

  _riv_client_forget_download (job);
  _riv_client_liveness_update (self);
  if (ended & RIV_JOB_ENDED_JOINING)
    _riv_client_notify_n_joining (self);
  _riv_client_notify_n_pending (self);
  _riv_client_emit_job_finished (self, job);
  return TRUE;
}

static void
finish_joined_jobs (RivClient    *self,
                    RivJobStatus  status,
                    const char   *error)
{
  g_autoptr(GPtrArray) jobs = _riv_client_collect_joined_jobs (self);

  for (guint i = 0; i < jobs->len; i++)
    _riv_client_finish_job (self, g_ptr_array_index (jobs, i), status, error);
}

/* The stream -------------------------------------------------------------------------- */

static gboolean
need_stream (RivClient *self)
{
  if (self->closed || self->config == NULL)
    return FALSE;
  return self->jobs.n_joined > 0 || (self->join.n_joining > 0 && self->sse.session_established);
}

static void stream_read_next  (RivClientStream *st);
static void stream_issue_read (RivClientStream *st);
static void stream_pause_end  (RivClientStream *st);
static void stream_wake       (RivClientStream *st);
static void stream_send_cb    (GObject         *object,
                               GAsyncResult    *result,
                               gpointer         user_data);

/* What the stream's reads wait on: a direct stream's connection's watch,
 * or the one made for libsoup's socket (nullable). */
static RivPollerWatch *
watch_of (RivClientStream *st)
{
  return st->direct ? st->conn.watch : st->watch;
}

static void
stream_free (RivClientStream *st)
{
  g_assert (st->client == NULL);

  g_clear_pointer (&st->watch, riv_poller_watch_free);
  _riv_client_clear_source (&st->drain_source);
  g_clear_object (&st->input);
  _riv_direct_conn_clear (&st->conn);
  g_clear_pointer (&st->reply, riv_http_reply_free);
  g_clear_object (&st->msg);
  g_clear_object (&st->cancellable);
  g_clear_pointer (&st->reader, riv_sse_reader_free);
  g_clear_pointer (&st->buffer, g_free);
  g_free (st);
}

/* Disconnects a stream from its client; its in-flight operation will see
 * st->client == NULL and free it. */
void
_riv_client_stream_detach (RivClientStream *st)
{
  RivClient *self = st->client;

  if (self == NULL)
    return;

  if (RIV_CLIENT_TAPPED (self))
    _riv_client_tap_end (self, st->epoch, st->got_close ? RIV_TAP_END_EOF
                                        : st->end_known ? st->end : RIV_TAP_END_CLIENT);
  if (self->sse.stream == st)
    self->sse.stream = NULL;
  st->client = NULL;
  g_cancellable_cancel (st->cancellable);

  /* A local stream has no operation in flight that would free it. */
  if (st->local)
    {
      if (!st->feeding)
        stream_free (st);
      return;
    }

  /* A paused stream has no read in flight to notice the detach: issue it now. */
  if (st->yield_source != NULL)
    {
      stream_pause_end (st);
      stream_issue_read (st);
    }
  else
    stream_wake (st);
}

/* Direct streams --------------------------------------------------------------------- */

static void     stream_read_direct (RivClientStream *st);
static void     stream_failed      (RivClientStream *st,
                                    const char      *reason);

/* A direct stream's watch: the connection's news, then its reply's bytes. */
static void
direct_cb (gpointer user_data)
{
  RivClientStream *st = user_data;
  g_autoptr(GError) error = NULL;
  int written;

  if (st->conn.request == NULL)
    {
      stream_read_direct (st);
      return;
    }
  if (st->client == NULL)
    {
      stream_free (st);
      return;
    }
  written = _riv_direct_conn_write (&st->conn, &error);
  if (written < 0)
    {
      stream_failed (st, error->message);
      stream_free (st);
      return;
    }
  /* Written: the reply is read as the socket becomes readable. */
  if (written > 0)
    {
      st->would_block = TRUE;
      stream_issue_read (st);
    }
}

static void
stream_open_direct (RivClientStream *st)
{
  RivClient *self = st->client;

  st->direct = TRUE;
  st->reply = riv_http_reply_new ();
  _riv_direct_conn_open (&st->conn, self, st->msg, _riv_client_direct_request (st->msg, NULL, 0),
                         direct_cb, st);
  /* The tap names the reply by its request. */
  if (!RIV_CLIENT_TAPPED (self))
    g_clear_object (&st->msg);
  riv_poller_watch_soon (st->conn.watch);
}

static void
stream_open (RivClient *self)
{
  RivClientStream *st;

  g_assert (self->sse.stream == NULL);

  st = g_new0 (RivClientStream, 1);
  st->conn.fd = -1;
  st->client = self;
  st->epoch = ++self->sse.n_streams;
  st->io_priority = self->io_priority;
  st->cancellable = g_cancellable_new ();
  st->reader = riv_sse_reader_new (0);
  st->buffer_size = READ_SIZE_FIRST;
  st->buffer = g_malloc (st->buffer_size);
  self->sse.stream = st;
  /* A batch's process_starts come on one stream. */
  riv_batch_infer_break (&self->jobs.batch);

  if (self->sse.local)
    {
      st->local = TRUE;
      _riv_client_set_stream_state (self, RIV_STREAM_STATE_CONNECTED);
      return;
    }

  st->msg = soup_message_new (SOUP_METHOD_GET, self->access.data_url);
  _riv_client_prepare_message (self, st->msg);
  soup_message_headers_replace (soup_message_get_request_headers (st->msg),
                                "Accept", "text/event-stream");
  soup_message_headers_replace (soup_message_get_request_headers (st->msg),
                                "Cache-Control", "no-cache");
  /* Ahead of queued joins: in a burst hundreds of POSTs may be waiting for a
   * connection, and the stream is what lets their jobs finish. */
  soup_message_set_priority (st->msg, SOUP_MESSAGE_PRIORITY_VERY_HIGH);

  _riv_client_set_stream_state (self, self->sse.failures > 0 ? RIV_STREAM_STATE_RECONNECTING
                                                    : RIV_STREAM_STATE_CONNECTING);

  if (RIV_CLIENT_TAPPED (self))
    _riv_client_tap_request (self, st->msg, st->epoch, NULL, 0);
  g_debug ("Opening stream %u", st->epoch);
  if (_riv_client_direct_possible (self, st->msg))
    {
      stream_open_direct (st);
      return;
    }
  soup_session_send_async (self->session, st->msg, st->io_priority, st->cancellable,
                           stream_send_cb, st);
}

static gboolean
reconnect_cb (gpointer user_data)
{
  RivClient *self = user_data;

  g_clear_pointer (&self->sse.reconnect_source, g_source_unref);
  _riv_client_ensure_stream (self);
  return G_SOURCE_REMOVE;
}

static void
lose_jobs (RivClient  *self,
           const char *error)
{
  g_autoptr(GPtrArray) jobs = _riv_client_collect_joined_jobs (self);

  if (jobs->len == 0)
    return;

  g_object_ref (self);
  _riv_client_set_stream_state (self, RIV_STREAM_STATE_DISCONNECTED);
  for (guint i = 0; i < jobs->len; i++)
    _riv_client_finish_job (self, g_ptr_array_index (jobs, i), RIV_JOB_STATUS_LOST, error);
  _riv_client_emit_stream_error (self, error);
  g_object_unref (self);
}

/* The reply's HTTP status, 0 before it came. */
static guint
stream_status (RivClientStream *st)
{
  return st->direct ? st->status : soup_message_get_status (st->msg);
}

/* A stream ended without close_stream (network error, bad status, EOF). */
static void
stream_failed (RivClientStream *st,
               const char      *reason)
{
  RivClient *self = st->client;
  gboolean never_connected = st->direct ? st->status == 0 : st->input == NULL;
  double quiet = riv_now () - self->sse.last_bytes_at;
  g_autofree char *cut = NULL;

  /* An open stream that ends after a silence, again and again: what a proxy
   * does whose read timeout is shorter than the server's heartbeat interval
   * (nginx's proxy_read_timeout). Named, so that lost jobs say why. */
  if (!never_connected && stream_status (st) == SOUP_STATUS_OK &&
      quiet >= CUT_SILENCE_S)
    reason = cut = g_strdup_printf ("the stream was cut after %.1f s without data (%s); a proxy "
                                    "between closes quiet streams before the server's next "
                                    "heartbeat (e.g. nginx's proxy_read_timeout)", quiet, reason);

  self->sse.server_went_away = TRUE;

  /* Unless the caller said the server ended it, the stream failed. */
  if (!st->end_known)
    {
      st->end_known = TRUE;
      st->end = RIV_TAP_END_ERROR;
    }
  _riv_client_stream_detach (st);

  g_debug ("RivClientStream %u failed: %s", st->epoch, reason);

  if (!need_stream (self))
    {
      self->sse.failures = 0;
      /* A stream that could not even be opened means the server is out of
       * reach; "idle" would read as healthy. */
      _riv_client_set_stream_state (self, never_connected ? RIV_STREAM_STATE_DISCONNECTED
                                              : RIV_STREAM_STATE_IDLE);
      return;
    }

  self->sse.failures++;
  if (self->sse.failures > MAX_STREAM_FAILURES)
    {
      g_autofree char *error = g_strdup_printf ("Connection to the server was lost: %s", reason);

      self->sse.failures = 0;
      lose_jobs (self, error);
      if (self->sse.stream == NULL && !need_stream (self))
        _riv_client_set_stream_state (self, RIV_STREAM_STATE_DISCONNECTED);
      else
        _riv_client_ensure_stream (self);
      return;
    }

  _riv_client_set_stream_state (self, RIV_STREAM_STATE_RECONNECTING);
  if (reconnect_delay_ms[self->sse.failures - 1] == 0)
    _riv_client_ensure_stream (self);
  else if (self->sse.reconnect_source == NULL)
    self->sse.reconnect_source =
      _riv_client_attach_timeout (self, reconnect_delay_ms[self->sse.failures - 1] / 1000.0,
                                  reconnect_cb, self);
}

/* The reply's head came: a stream that is not 200 OK failed (and is freed,
 * FALSE); else it is connected. */
static gboolean
stream_answered (RivClientStream *st)
{
  RivClient *self = st->client;
  guint status = stream_status (st);

  if (status != SOUP_STATUS_OK)
    {
      g_autofree char *reason = _riv_client_gateway_text (status) != NULL
                              ? g_strdup (_riv_client_gateway_text (status))
                              : g_strdup_printf ("the stream request failed (HTTP %u)", status);

      stream_failed (st, reason);
      stream_free (st);
      return FALSE;
    }

  self->sse.last_bytes_at = riv_now ();
  _riv_client_set_stream_state (self, RIV_STREAM_STATE_CONNECTED);
  return TRUE;
}

void
_riv_client_ensure_stream (RivClient *self)
{
  if (self->sse.stream != NULL || self->sse.reconnect_source != NULL || self->closed)
    return;

  if (!need_stream (self))
    {
      if (self->sse.state != RIV_STREAM_STATE_DISCONNECTED)
        _riv_client_set_stream_state (self, RIV_STREAM_STATE_IDLE);
      return;
    }

  stream_open (self);
}

static void
handle_unexpected_error (RivClient  *self,
                         RivMessage *msg)
{
  g_autofree char *text = NULL;

  /* After the server went away, a session it no longer knows is what a
   * restart looks like: named so. */
  if (msg->session_not_found && self->sse.server_went_away)
    text = g_strdup_printf ("The server went away and came back without this session: %s",
                            msg->message ? msg->message : "(no message)");
  else
    text = g_strdup_printf ("The server reported an unexpected error: %s",
                            msg->message ? msg->message : "(no message)");

  if (msg->session_not_found)
    {
      /* The server forgot us: a new session starts with the next join. */
      self->sse.session_established = FALSE;
      finish_joined_jobs (self, RIV_JOB_STATUS_LOST, text);
    }
  else
    finish_joined_jobs (self, RIV_JOB_STATUS_FAILED, text);

  _riv_client_emit_stream_error (self, text);
}

/* A process_starts that names no batch, in stream order; job is NULL while
 * no join reply has named event_id (riv-batch-infer.c). */
static void
infer_batch (RivClient  *self,
             RivJob     *job,
             const char *event_id)
{
  RivJobCtx *ctx = NULL;

  if (job != NULL && (riv_job_is_finished (job) || (ctx = _riv_client_job_ctx (job)) == NULL))
    return;

  /* Unknown members wait as long as the early buffer keeps their messages. */
  riv_batch_infer_starts (&self->jobs.batch, event_id, job, ctx != NULL ? ctx->endpoint : NULL,
                          self->jobs.batch_max, MAX (self->join.timeout, 1.0) + 5.0);
}

static void
dispatch_message (RivClient       *self,
                  RivClientStream *st,
                  RivMessage      *msg,
                  gsize            frame_len)
{
  RivJob *job;

  /* Anything between two process_starts ends an inferred batch. */
  if (msg->kind != RIV_MESSAGE_PROCESS_STARTS || msg->has_batch)
    riv_batch_infer_break (&self->jobs.batch);

  switch (msg->kind)
    {
    case RIV_MESSAGE_HEARTBEAT:
      riv_message_free (msg);
      return;

    case RIV_MESSAGE_CLOSE_STREAM:
      /* Handled after the rest of the chunk: everything before it in this
       * chunk has been applied already, synchronously. */
      st->got_close = TRUE;
      riv_message_free (msg);
      return;

    case RIV_MESSAGE_UNEXPECTED_ERROR:
      handle_unexpected_error (self, msg);
      riv_message_free (msg);
      return;

    default:
      break;
    }

  if (msg->event_id == NULL)
    {
      g_debug ("Ignoring session-wide message \"%s\"", msg->msg ? msg->msg : "?");
      riv_message_free (msg);
      return;
    }

  job = g_hash_table_lookup (self->jobs.by_event, msg->event_id);
  if (msg->kind == RIV_MESSAGE_PROCESS_STARTS && !msg->has_batch && self->jobs.infer_batches)
    infer_batch (self, job, msg->event_id);
  if (job != NULL)
    {
      /* Late frames for a finished job (progress trailing the completion,
       * a second completion after cancel) are ignored. */
      if (!riv_job_is_finished (job))
        {
          self->sse.failures = 0;
          self->sse.empty_closes = 0;
          _riv_client_apply_message (self, job, msg);
        }
      riv_message_free (msg);
      return;
    }

  /* Its job's times (start, end) are when it came, not when it is replayed. */
  msg->received_at = self->sse.last_bytes_at;
  riv_early_buffer_add (self->jobs.early, msg, frame_len, self->join.timeout);
}

static void
stream_event_cb (const char *event_type,
                 const char *data,
                 gsize       len,
                 gpointer    user_data)
{
  RivClientStream *st = user_data;
  RivClient *self = st->client;
  g_autoptr(GError) error = NULL;
  RivMessage *msg;

  /* Detached by a handler during this chunk (close, liveness, …). */
  if (self == NULL)
    return;

  self->sse.n_messages++;
  /* Read straight from the text, without the frame's tree, and so for the
   * tap (a recording, lint) before the client acts on it: lint asks for
   * output.data as a tree when it needs one. */
  msg = riv_message_parse_lean (data, len, &error);
  if (RIV_CLIENT_TAPPED (self))
    _riv_client_tap_frame (self, st->epoch, data, len, msg);
  if (msg == NULL)
    {
      g_debug ("Ignoring malformed frame on stream %u: %s", st->epoch, error->message);
      return;
    }

  dispatch_message (self, st, msg, len);
}

static gboolean
stream_drain_timeout_cb (gpointer user_data)
{
  RivClientStream *st = user_data;

  g_clear_pointer (&st->drain_source, g_source_unref);
  g_cancellable_cancel (st->cancellable);
  stream_wake (st);
  return G_SOURCE_REMOVE;
}

static void
stream_end_normally (RivClientStream *st)
{
  RivClient *self = st->client;

  g_debug ("RivClientStream %u got close_stream", st->epoch);

  /* A recording ends every stream: this one ended as the server meant. */
  if (RIV_CLIENT_TAPPED (self))
    _riv_client_tap_end (self, st->epoch, RIV_TAP_END_EOF);

  /* Detach, but read the response to its end rather than cancel it: the
   * connection then goes back to the pool instead of being closed (libsoup
   * 3.2 servers never free a connection the client closed). */
  self->sse.stream = NULL;
  st->client = NULL;
  st->draining = TRUE;
  st->drain_source = _riv_client_attach_timeout (self, DRAIN_TIMEOUT_S, stream_drain_timeout_cb,
                                                 st);
  self->sse.failures = 0;

  /* A server sends close_stream when it has nothing pending for the session.
   * Once or twice that crosses a join; over and over, with jobs joined and no
   * news of them, it means the server has forgotten them. */
  if (self->jobs.n_joined > 0 && ++self->sse.empty_closes > MAX_EMPTY_CLOSES)
    {
      g_autofree char *error = g_strdup_printf ("Connection to the server was lost: it ended the "
                                                "stream %u times without news of this job",
                                                self->sse.empty_closes);

      self->sse.empty_closes = 0;
      lose_jobs (self, error);
    }

  /* Reopen at once if anything is still in flight: the server keeps the
   * session's messages for the next GET. */
  if (need_stream (self))
    stream_open (self);
  else if (self->sse.state != RIV_STREAM_STATE_DISCONNECTED)
    _riv_client_set_stream_state (self, RIV_STREAM_STATE_IDLE);
}

/* libsoup hands out one chunk of a chunked body per read, and a server
 * writes one chunk per message: takes whatever else has already arrived,
 * without a main-loop iteration per message. Sets *end on EOF or an error
 * (then *error is set, or stays NULL for EOF); what came before it is in the
 * buffer and is dispatched first. */
static gssize
stream_read_available (RivClientStream  *st,
                       gssize            n,
                       gboolean         *end,
                       GError          **error)
{
  GPollableInputStream *pollable;

  st->would_block = FALSE;
  if (!G_IS_POLLABLE_INPUT_STREAM (st->input) ||
      !g_pollable_input_stream_can_poll (G_POLLABLE_INPUT_STREAM (st->input)))
    return n;

  pollable = G_POLLABLE_INPUT_STREAM (st->input);
  while ((gsize) n < st->buffer_size)
    {
      g_autoptr(GError) local_error = NULL;
      gssize more = g_pollable_input_stream_read_nonblocking (pollable, st->buffer + n,
                                                              st->buffer_size - n, NULL,
                                                              &local_error);

      if (more > 0)
        {
          n += more;
          continue;
        }
      if (more < 0 && g_error_matches (local_error, G_IO_ERROR, G_IO_ERROR_WOULD_BLOCK))
        {
          st->would_block = TRUE;
          break;
        }
      *end = TRUE;
      if (more < 0)
        g_propagate_error (error, g_steal_pointer (&local_error));
      break;
    }

  return n;
}

/* Feeds bytes read from st's response to its reader, which dispatches every
 * complete event synchronously, then handles close_stream. Returns FALSE when
 * st was freed (failed, or detached while dispatching); TRUE when it is still
 * alive: attached, or detached by close_stream to read to its end. The caller
 * holds a reference on the client. */
static gboolean
stream_take_bytes (RivClientStream *st,
                   const char      *bytes,
                   gsize            n)
{
  RivClient *self = st->client;
  g_autoptr(GError) feed_error = NULL;

  self->sse.last_bytes_at = riv_now ();
  self->sse.n_stream_bytes += n;

  if (!riv_sse_reader_feed (st->reader, bytes, n, stream_event_cb, st, &feed_error) &&
      st->client != NULL)
    {
      stream_failed (st, feed_error->message);
      stream_free (st);
      return FALSE;
    }

  if (st->client == NULL)
    {
      /* Detached while dispatching (close, liveness, unexpected_error path). */
      stream_free (st);
      return FALSE;
    }

  if (st->got_close)
    stream_end_normally (st);
  return TRUE;
}

/* The n bytes at the start of st's buffer are the body's: feeds them to the
 * reader, then reads on, or, when the body ended with them (end; end_error
 * if it failed), ends the stream as the server or the network did. */
static void
stream_deliver (RivClientStream *st,
                gsize            n,
                gboolean         end,
                const GError    *end_error)
{
  RivClient *self = st->client;

  /* Handlers of job notifications may drop the last reference to the client. */
  g_object_ref (self);
  if (stream_take_bytes (st, (const char *) st->buffer, n))
    {
      if (!end)
        stream_read_next (st);
      else if (st->client == NULL)
        stream_free (st);   /* close_stream, and the response's end is already here */
      else
        {
          st->end_known = TRUE;
          st->end = end_error != NULL ? RIV_TAP_END_ERROR : RIV_TAP_END_EOF;
          stream_failed (st, end_error != NULL
                             ? end_error->message
                             : "the server ended the stream without close_stream");
          stream_free (st);
        }
    }
  g_object_unref (self);
}

/* What a read of st->buffer returned: n bytes, 0 at the end, or -1 and error. */
static void
stream_read_done (RivClientStream *st,
                  gssize           n,
                  GError          *error)
{
  g_autoptr(GError) end_error = NULL;
  gboolean end = FALSE;
  RivClient *self;

  /* The read had to wait for data: the loop was free meanwhile. */
  if (riv_now () - st->read_issued_at > 0.002)
    st->busy_since = 0;

  if ((self = st->client) == NULL)
    {
      /* After close_stream: whatever still comes is not for us. */
      if (st->draining && n > 0)
        stream_read_next (st);
      else
        stream_free (st);
      return;
    }

  if (n < 0)
    {
      stream_failed (st, error->message);
      stream_free (st);
      return;
    }

  if (n == 0)
    {
      st->end_known = TRUE;
      st->end = RIV_TAP_END_EOF;
      stream_failed (st, "the server ended the stream without close_stream");
      stream_free (st);
      return;
    }

  n = stream_read_available (st, n, &end, &end_error);
  st->last_read = n;
  stream_deliver (st, (gsize) n, end, end_error);
}

static void
stream_read_cb (GObject      *object,
                GAsyncResult *result,
                gpointer      user_data)
{
  g_autoptr(GError) error = NULL;
  gssize n = g_input_stream_read_finish (G_INPUT_STREAM (object), result, &error);

  stream_read_done (user_data, n, error);
}

/* A direct stream's socket is readable, or its read was asked for at once:
 * reads all there is, takes the reply's head and framing off, and goes on
 * as stream_read_done () does for libsoup's streams. */
static void
stream_read_direct (RivClientStream *st)
{
  g_autoptr(GError) read_error = NULL;
  g_autoptr(GError) feed_error = NULL;
  RivClient *self = st->client;
  int fd = st->conn.fd;
  gboolean eof = FALSE, ended;
  gssize body = 0;
  gsize got = 0;

  if (riv_now () - st->read_issued_at > 0.002)
    st->busy_since = 0;
  st->would_block = FALSE;

  if (g_cancellable_set_error_if_cancelled (st->cancellable, &read_error))
    ;
  else if (st->poll_failed)
    read_error = g_error_new_literal (G_IO_ERROR, G_IO_ERROR_FAILED,
                                      "the stream's socket could not be watched");
  else
    while (got < st->buffer_size)
      {
        gssize r = recv (fd, st->buffer + got, st->buffer_size - got, MSG_DONTWAIT);
        int saved;

        if (r > 0)
          {
            /* A short read took all there was: asking again would only say so. */
            if ((gsize) r < st->buffer_size - got)
              st->would_block = TRUE;
            got += (gsize) r;
            if (st->would_block)
              break;
            continue;
          }
        if (r == 0)
          {
            eof = TRUE;
            break;
          }
        saved = errno;
        if (saved == EINTR)
          continue;
        if (saved == EAGAIN || saved == EWOULDBLOCK)
          st->would_block = TRUE;
        else
          read_error = g_error_new (G_IO_ERROR, g_io_error_from_errno (saved), "%s",
                                    g_strerror (saved));
        break;
      }

  if (got > 0)
    body = riv_http_reply_feed (st->reply, (char *) st->buffer, got, &feed_error);
  ended = eof || read_error != NULL ||
          riv_http_reply_get_state (st->reply) == RIV_HTTP_REPLY_END;

  if (self == NULL)
    {
      /* After close_stream: read on to the reply's end, then close. */
      if (st->draining && body >= 0 && !ended)
        stream_issue_read (st);
      else
        stream_free (st);
      return;
    }

  if (body < 0)
    {
      stream_failed (st, feed_error->message);
      stream_free (st);
      return;
    }

  if (st->status == 0 && riv_http_reply_get_status (st->reply) != 0)
    {
      st->status = riv_http_reply_get_status (st->reply);
      if (RIV_CLIENT_TAPPED (self) && st->msg != NULL)
        _riv_client_tap_reply (self, st->msg, st->status, st->epoch, NULL);
      if (!stream_answered (st))
        return;
    }
  if (st->status == 0 && ended)
    {
      stream_failed (st, read_error != NULL ? read_error->message
                                            : "the server closed the connection before it replied");
      stream_free (st);
      return;
    }
  if (got == 0 || st->status == 0)
    {
      /* Nothing read after all, or the head goes on. */
      if (!ended)
        {
          st->last_read = (gssize) got;
          stream_issue_read (st);
          return;
        }
    }

  st->last_read = (gssize) got;
  stream_deliver (st, (gsize) body, ended, read_error);
}

/* The socket under a plain HTTP/1 response body, or -1: libsoup's streams
 * over it are filter streams down to GIO's socket stream. Over TLS (whose
 * layer holds data of its own) or HTTP/2 (many bodies on one socket) the
 * walk ends elsewhere, and such a stream waits with GLib's own sources. */
static int
stream_socket_fd (GInputStream *input)
{
  GInputStream *base = input;

  if (!G_IS_POLLABLE_INPUT_STREAM (input) ||
      !g_pollable_input_stream_can_poll (G_POLLABLE_INPUT_STREAM (input)))
    return -1;
  while (G_IS_FILTER_INPUT_STREAM (base))
    base = g_filter_input_stream_get_base_stream (G_FILTER_INPUT_STREAM (base));
  if (base == NULL || !G_IS_FILE_DESCRIPTOR_BASED (base))
    return -1;
  return g_file_descriptor_based_get_fd (G_FILE_DESCRIPTOR_BASED (base));
}

/* The poller's callback: reads what there is, or waits for the socket. */
static void
stream_poll_cb (gpointer user_data)
{
  RivClientStream *st = user_data;
  g_autoptr(GError) error = NULL;
  gssize n;

  if (g_cancellable_set_error_if_cancelled (st->cancellable, &error))
    n = -1;
  else
    n = g_pollable_input_stream_read_nonblocking (G_POLLABLE_INPUT_STREAM (st->input), st->buffer,
                                                  st->buffer_size, NULL, &error);

  if (n < 0 && g_error_matches (error, G_IO_ERROR, G_IO_ERROR_WOULD_BLOCK))
    {
      g_clear_error (&error);
      st->would_block = TRUE;
      stream_issue_read (st);
      return;
    }
  stream_read_done (st, n, error);
}

/* A stream waiting on the poller sees a cancellation only when its callback
 * runs: it runs now, and its read fails as a read in flight would. */
static void
stream_wake (RivClientStream *st)
{
  RivPollerWatch *watch = watch_of (st);

  if (watch != NULL && riv_poller_watch_is_waiting (watch))
    riv_poller_watch_soon (watch);
}

static void
stream_watch (RivClientStream *st)
{
  RivClient *self = st->client;
  int fd = stream_socket_fd (st->input);

  if (fd < 0)
    return;
  if (self->sse.poller == NULL)
    self->sse.poller = riv_poller_get (self->context, st->io_priority);
  if (self->sse.poller != NULL)
    st->watch = riv_poller_watch_new (self->sse.poller, fd, stream_poll_cb, st);
}

/* Reads continuously ready for this long pause, so that a GUI's redraw gets
 * its turn even while a generator streams 100,000 updates a second: the
 * pause lasts until nothing above STREAM_YIELD_PRIORITY is ready, which is
 * below GDK's redraw priority (G_PRIORITY_HIGH_IDLE + 20), so a frame that
 * is due is drawn first. Without a main loop that draws, that is at once.
 * STREAM_YIELD_GUARD_MS ends a pause that never gets its turn (a GUI whose
 * frames take longer than their interval), so the stream is never starved. */
#define STREAM_BUSY_SLICE     0.005
#define STREAM_YIELD_PRIORITY (G_PRIORITY_HIGH_IDLE + 21)
#define STREAM_YIELD_GUARD_MS 20

/* A read that returned less than this waits STREAM_GATHER_MS before the next
 * one, so that what arrives meanwhile is read (and dispatched) in one go: a
 * server that writes each message as it happens would otherwise cost one
 * main-loop iteration per message, and during a burst of thousands of jobs
 * those iterations alone left no time for a frame. A full buffer is followed
 * by the next read at once. */
#define STREAM_GATHER_BELOW (READ_SIZE / 4)
#define STREAM_GATHER_MS    1

static void
stream_issue_read (RivClientStream *st)
{
  g_autoptr(GError) error = NULL;

  if (st->last_read > 0 && (gsize) st->last_read >= st->buffer_size && st->buffer_size < READ_SIZE)
    {
      st->buffer_size = READ_SIZE;
      st->buffer = g_realloc (st->buffer, st->buffer_size);
    }
  st->read_issued_at = riv_now ();

  if (watch_of (st) != NULL)
    {
      /* After a read that took everything, nothing is left above the socket. */
      if (!st->would_block)
        {
          riv_poller_watch_soon (watch_of (st));
          return;
        }
      if (riv_poller_watch_readable (watch_of (st), &error))
        return;
      if (st->direct)
        {
          /* Only the poller reads a direct stream: its read fails. */
          st->poll_failed = TRUE;
          riv_poller_watch_soon (watch_of (st));
          return;
        }
      g_debug ("Stream %u: %s; reading with GLib's sources", st->epoch, error->message);
      g_clear_pointer (&st->watch, riv_poller_watch_free);
    }
  g_input_stream_read_async (st->input, st->buffer, st->buffer_size, st->io_priority,
                             st->cancellable, stream_read_cb, st);
}

static void
stream_pause_end (RivClientStream *st)
{
  if (st->yield_source != NULL)
    {
      g_source_destroy (st->yield_source);
      g_clear_pointer (&st->yield_source, g_source_unref);
    }
  if (st->yield_guard != NULL)
    {
      g_source_destroy (st->yield_guard);
      g_clear_pointer (&st->yield_guard, g_source_unref);
    }
}

static gboolean
stream_yield_cb (gpointer user_data)
{
  RivClientStream *st = user_data;

  stream_pause_end (st);
  /* A detached stream's read fails at once (its cancellable is cancelled)
   * and that frees it, as for any read in flight. */
  stream_issue_read (st);
  return G_SOURCE_REMOVE;
}

static GSource *
stream_pause_source (RivClientStream *st,
                     GSource         *source,
                     int              priority)
{
  g_source_set_priority (source, priority);
  g_source_set_callback (source, stream_yield_cb, st, NULL);
  g_source_attach (source, st->client->context);
  return source;
}

static void
stream_read_next (RivClientStream *st)
{
  double now = riv_now ();

  if (st->client != NULL && !st->draining)
    {
      if (st->last_read > 0 && st->last_read < STREAM_GATHER_BELOW)
        {
          st->busy_since = 0;
          if (watch_of (st) != NULL)
            {
              riv_poller_watch_after (watch_of (st), STREAM_GATHER_MS);
              return;
            }
          st->yield_source = stream_pause_source (st, g_timeout_source_new (STREAM_GATHER_MS),
                                                  st->io_priority);
          return;
        }

      if (st->busy_since == 0)
        st->busy_since = now;
      else if (now - st->busy_since >= STREAM_BUSY_SLICE)
        {
          st->busy_since = 0;
          st->yield_source = stream_pause_source (st, g_idle_source_new (),
                                                  MAX (st->io_priority, STREAM_YIELD_PRIORITY));
          st->yield_guard = stream_pause_source (st, g_timeout_source_new (STREAM_YIELD_GUARD_MS),
                                                 st->io_priority);
          return;
        }
    }

  stream_issue_read (st);
}

static void
stream_send_cb (GObject      *object,
                GAsyncResult *result,
                gpointer      user_data)
{
  RivClientStream *st = user_data;
  g_autoptr(GError) error = NULL;
  GInputStream *input;
  RivClient *self;

  input = soup_session_send_finish (SOUP_SESSION (object), result, &error);
  st->input = input;

  if ((self = st->client) == NULL)
    {
      stream_free (st);
      return;
    }

  if (input == NULL)
    {
      stream_failed (st, error->message);
      stream_free (st);
      return;
    }

  if (RIV_CLIENT_TAPPED (self))
    _riv_client_tap_response (self, st->msg, st->epoch, NULL);
  if (!stream_answered (st))
    return;
  stream_watch (st);
  stream_read_next (st);
}

/* Liveness ----------------------------------------------------------------------------- */

static gboolean
liveness_cb (gpointer user_data)
{
  RivClient *self = user_data;
  double silent;

  if (self->jobs.n_joined == 0 || self->sse.liveness_timeout <= 0)
    return G_SOURCE_CONTINUE;

  silent = riv_now () - MAX (self->sse.last_bytes_at, self->sse.inflight_since);
  if (silent < self->sse.liveness_timeout)
    return G_SOURCE_CONTINUE;

  {
    g_autofree char *error = g_strdup_printf ("No data from the server for %g s",
                                              self->sse.liveness_timeout);

    g_debug ("Liveness: %s", error);
    if (self->sse.stream != NULL)
      _riv_client_stream_detach (self->sse.stream);
    _riv_client_clear_source (&self->sse.reconnect_source);
    self->sse.failures = 0;
    lose_jobs (self, error);
    if (self->sse.stream == NULL && !need_stream (self))
      _riv_client_set_stream_state (self, RIV_STREAM_STATE_DISCONNECTED);
  }

  return G_SOURCE_CONTINUE;
}

/* Runs the watchdog only while joined jobs are in flight. */
void
_riv_client_liveness_update (RivClient *self)
{
  if (self->jobs.n_joined > 0 && !self->closed)
    {
      if (self->sse.liveness_source == NULL && self->sse.liveness_timeout > 0)
        {
          double interval = CLAMP (self->sse.liveness_timeout / 4, 0.05, 1.0);

          self->sse.inflight_since = riv_now ();
          self->sse.liveness_source = _riv_client_attach_timeout (self, interval, liveness_cb, self);
        }
    }
  else
    _riv_client_clear_source (&self->sse.liveness_source);
}

/* Local streams (tests, benchmarks) ---------------------------------------------------- */

gboolean
_riv_client_feed_stream_for_testing (RivClient  *self,
                                     const char *bytes,
                                     gsize       len)
{
  RivClientStream *st;

  g_return_val_if_fail (RIV_IS_CLIENT (self), FALSE);
  g_return_val_if_fail (self->sse.local, FALSE);

  if ((st = self->sse.stream) == NULL)
    return FALSE;

  /* What stream_read_cb does with a read of len bytes; a local stream that
   * ends (close_stream) or is detached has nothing left to read. */
  g_object_ref (self);
  st->feeding = TRUE;
  if (stream_take_bytes (st, bytes, len))
    {
      st->feeding = FALSE;
      if (st->client == NULL)
        stream_free (st);
    }
  g_object_unref (self);
  return TRUE;
}
