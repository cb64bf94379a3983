/* riv-server-session.c
 * Copyright 2026 The Rivulet authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Sessions and their SSE streams: the per-session FIFO of frames, the
 * streams that write it (/queue/data and /heartbeat/), heartbeats, the
 * close-linger timer, eviction and the idle-session sweep.
 *
 * Sessions (protocol.md §3.6, §9). A session is created by its first join
 * and keeps one FIFO of frames across connections, plus the set of its event
 * ids whose process_completed has not been written yet. At most one stream
 * writes a session's frames. A second GET for the same session takes over:
 * the older stream gets close_stream after the frames already handed to it
 * and ends, and every frame still in the FIFO goes to the newer one. A frame
 * is handed to exactly one stream, in FIFO order, never split or duplicated.
 *
 * Frames move from the FIFO into the response body through a small window
 * (STREAM_WINDOW bytes not yet written to the socket), so a slow reader
 * leaves its backlog in the FIFO, where it is counted against
 * "session-buffer-max": above it, the session's generators pause until the
 * reader catches up. A frame counts its text and its overhead (RivFrame,
 * list node, allocations: riv_frame_get_size()), and every session's buffers
 * together count against "buffer-max": above it, the sessions that hold more
 * than a write window pause too. A stream whose client goes away detaches;
 * the FIFO keeps buffering until the next GET for that session.
 *
 * Readers that are gone (the sweep): a session with no stream attached, or
 * whose stream has not finished a write, for "reader-timeout" seconds gets its
 * jobs that are that old failed (riv_queue_fail_unread()), which frees their
 * workers; a job joined before its reader came keeps the whole grace. Once
 * such a session has no live job, its buffer keeps only the completions: the
 * steps before them go, and a reader that comes back still gets one
 * process_completed for every event.
 *
 * close_stream (§8e): when a stream has written everything, and its session
 * has nothing pending, a "close-linger" timer starts; a join for the session
 * drops it. When it runs out with the same conditions, close_stream is
 * written and the response ends. Every stream on /queue/data ends with
 * close_stream, including unknown sessions and shutdown; a GET without
 * session_hash gets no stream but a 422, as Gradio answers it.
 */
#include "config.h"

#include "riv-server-private.h"
#include "riv-wire.h"

static void session_pump (Session *session,
                          gboolean everything);

/* Sessions */

Session *
_riv_server_session_ref (Session *session)
{
  session->ref_count++;
  return session;
}

void
_riv_server_session_unref (Session *session)
{
  if (--session->ref_count > 0)
    return;

  g_assert (session->stream == NULL);
  session->server->buffered_bytes -= session->fifo_bytes;
  g_queue_clear_full (&session->fifo, (GDestroyNotify) riv_frame_free);
  _riv_server_clear_source (&session->linger);
  g_hash_table_unref (session->pending);
  g_clear_pointer (&session->state, g_hash_table_unref);
  g_free (session->hash);
  g_free (session);
}

void
_riv_server_session_keep_state (Session    *session,
                                guint       fn_index,
                                const char *name,
                                const char *value_json)
{
  if (session->state == NULL)
    session->state = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
  g_hash_table_replace (session->state, g_strdup_printf ("%u/%s", fn_index, name),
                        g_strdup (value_json));
}

const char *
_riv_server_session_get_state (Session    *session,
                               guint       fn_index,
                               const char *name)
{
  g_autofree char *key = NULL;

  if (session->state == NULL)
    return NULL;
  key = g_strdup_printf ("%u/%s", fn_index, name);
  return g_hash_table_lookup (session->state, key);
}

Session *
_riv_server_session_lookup (RivServer  *self,
                            const char *hash)
{
  return g_hash_table_lookup (self->sessions, hash);
}

void
_riv_server_session_touch (Session *session)
{
  RivServer *self = session->server;

  session->last_seen = g_get_monotonic_time ();
  if (session->in_table)
    {
      g_queue_unlink (&self->session_lru, &session->lru_link);
      g_queue_push_tail_link (&self->session_lru, &session->lru_link);
    }
}

/* Removes a session from the server: its waiting and running events are
 * dropped without frames (nobody is there to read them) and its buffer is
 * freed. Only sessions without an attached stream are dropped. */
void
_riv_server_session_drop (Session *session)
{
  RivServer *self = session->server;
  GHashTableIter iter;
  gpointer key;

  g_return_if_fail (session->stream == NULL);
  if (!session->in_table)
    return;

  _riv_server_session_ref (session);
  session->in_table = FALSE;
  g_queue_unlink (&self->session_lru, &session->lru_link);
  g_hash_table_remove (self->sessions, session->hash);

  riv_queue_drop_session (self->queue, session);

  g_hash_table_iter_init (&iter, session->pending);
  while (g_hash_table_iter_next (&iter, &key, NULL))
    self->n_pending--;
  g_hash_table_remove_all (session->pending);
  g_queue_clear_full (&session->fifo, (GDestroyNotify) riv_frame_free);
  self->buffered_bytes -= session->fifo_bytes;
  session->fifo_bytes = 0;
  _riv_server_clear_source (&session->linger);
  _riv_server_session_unref (session);
}

static gboolean
session_is_idle (Session *session)
{
  return session->stream == NULL && g_hash_table_size (session->pending) == 0;
}

/* Evicts least recently used idle sessions until at most limit remain
 * (sessions with pending events or an attached stream are never evicted). */
static void
sessions_evict (RivServer *self,
                guint      limit)
{
  GList *l = self->session_lru.head;
  guint scanned = 0;

  while (l != NULL && g_hash_table_size (self->sessions) > limit && scanned++ < EVICT_SCAN_MAX)
    {
      Session *session = l->data;

      l = l->next;
      if (session_is_idle (session))
        _riv_server_session_drop (session);
    }
}

Session *
_riv_server_session_get_or_create (RivServer  *self,
                                   const char *hash)
{
  Session *session = _riv_server_session_lookup (self, hash);

  if (session != NULL)
    {
      _riv_server_session_touch (session);
      return session;
    }

  if (self->max_sessions > 0 && g_hash_table_size (self->sessions) >= self->max_sessions)
    sessions_evict (self, self->max_sessions - 1);

  session = g_new0 (Session, 1);
  session->ref_count = 1;
  session->server = self;
  session->hash = g_strdup (hash);
  g_queue_init (&session->fifo);
  session->pending = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  session->lru_link.data = session;
  session->in_table = TRUE;
  session->last_seen = g_get_monotonic_time ();
  session->reader_left = session->last_seen;
  g_hash_table_insert (self->sessions, session->hash, session);
  g_queue_push_tail_link (&self->session_lru, &session->lru_link);
  return session;
}

static gboolean
session_linger_cb (gpointer user_data)
{
  Session *session = user_data;

  g_clear_pointer (&session->linger, g_source_unref);
  if (session->stream != NULL && !session->stream->ended &&
      session->fifo.length == 0 && g_hash_table_size (session->pending) == 0)
    _riv_server_stream_end (session->stream);
  return G_SOURCE_REMOVE;
}

void
_riv_server_session_update_linger (Session *session)
{
  RivServer *self = session->server;
  gboolean idle = session->stream != NULL && !session->stream->ended &&
                  session->fifo.length == 0 && g_hash_table_size (session->pending) == 0;

  if (idle && session->linger == NULL && !self->shut_down)
    session->linger = _riv_server_add_timeout (self, self->close_linger, session_linger_cb,
                                               session, "[rivulet] close-stream linger");
  else if (!idle)
    _riv_server_clear_source (&session->linger);
}

void
_riv_server_session_push (Session  *session,
                          RivFrame *frame)
{
  gsize size = riv_frame_get_size (frame);

  session->fifo_bytes += size;
  session->server->buffered_bytes += size;
  g_queue_push_tail (&session->fifo, frame);
  session_pump (session, FALSE);
}

/* Stream bodies.
 *
 * A stream used to be a paused libsoup response, and libsoup keeps a source
 * in the main context for each paused response, which every iteration of the
 * loop checks: with 10,000 open streams most of the server's time went on
 * checking them. Now libsoup writes a stream's status and headers (with
 * "Connection: close"), then the stream takes the connection over and writes
 * the body itself, one write at a time (at once when the socket takes it,
 * else asynchronously), closing the connection after it. An idle stream
 * costs the main loop nothing. */

static void stream_flush (Stream *stream);

static void
stream_send (Stream *stream,
             char   *data,
             gsize   len)
{
  if (stream->done || len == 0)
    {
      g_free (data);
      return;
    }
  g_queue_push_tail (&stream->pieces, g_bytes_new_take (data, len));
  stream_flush (stream);
}

static void
send_batch (Stream   *stream,
            GString **batch)
{
  gsize len;

  if (*batch == NULL || (*batch)->len == 0)
    return;
  len = (*batch)->len;
  stream_send (stream, g_string_free (g_steal_pointer (batch), FALSE), len);
}

/* TRUE when the session's generators are to wait for its reader (divisor 1),
 * or may not resume yet (divisor 2: they resume once it has read half). */
gboolean
_riv_server_session_over_budget (Session *session,
                                 guint    divisor)
{
  RivServer *self = session->server;

  return session->fifo_bytes > self->session_buffer_max / divisor ||
         (self->buffer_max > 0 && self->buffered_bytes > self->buffer_max &&
          session->fifo_bytes > STREAM_WINDOW / divisor);
}

/* Moves frames from the FIFO to the attached stream, as few pieces as
 * possible: small frames are joined into one. */
static void
session_pump (Session  *session,
              gboolean  everything)
{
  RivServer *self = session->server;
  Stream *stream = session->stream;
  gboolean stamp = riv_queue_get_stamp (self->queue);
  gboolean again = TRUE;

  while (again && stream != NULL && !stream->ended)
    {
      GString *batch = NULL;

      while (session->fifo.length > 0 && (everything || stream->inflight < STREAM_WINDOW))
        {
          RivFrame *frame = g_queue_pop_head (&session->fifo);
          gsize size = riv_frame_get_size (frame);

          session->fifo_bytes -= size;
          self->buffered_bytes -= size;
          riv_frame_render (frame);
          if (stamp)
            riv_wire_stamp_sent (frame->data, frame->len, g_get_real_time ());
          stream->inflight += frame->len;

          if (frame->len >= STREAM_WINDOW / 4)
            {
              send_batch (stream, &batch);
              stream_send (stream, g_steal_pointer (&frame->data), frame->len);
            }
          else
            {
              if (batch == NULL)
                batch = g_string_new (NULL);
              g_string_append_len (batch, frame->data, frame->len);
            }

          if (frame->completes != NULL &&
              g_hash_table_remove (session->pending, frame->completes))
            {
              self->n_pending--;
              self->n_completed++;
            }
          riv_frame_free (frame);
        }
      send_batch (stream, &batch);
      /* A batch written at once frees the window again: the frames it held
       * back go next (a write that waits pumps again as it returns). */
      again = session->fifo.length > 0 && stream->io != NULL && stream->out == NULL &&
              stream->inflight < STREAM_WINDOW;
    }

  if (self->n_pending == 0)
    _riv_server_schedule_trim (self);

  if (session->congested && !_riv_server_session_over_budget (session, 2))
    {
      session->congested = FALSE;
      riv_queue_session_drained (self->queue, session);
    }

  _riv_server_session_update_linger (session);
}

/* Streams */

static void
stream_destroy (Stream *stream)
{
  g_clear_object (&stream->io);
  g_queue_clear_full (&stream->pieces, (GDestroyNotify) g_bytes_unref);
  if (stream->out != NULL)
    g_string_free (stream->out, TRUE);
  g_free (stream);
}

/* Closes the connection now (a write in flight then fails). libsoup hands
 * the socket over with the stream it stole. */
static void
stream_close_connection (Stream *stream)
{
  GSocket *socket = stream->io != NULL ? g_object_get_data (G_OBJECT (stream->io), "GSocket") : NULL;

  if (socket != NULL)
    g_socket_close (socket, NULL);
  else if (stream->io != NULL && stream->out == NULL)
    g_io_stream_close (stream->io, NULL, NULL);
}

void
_riv_server_stream_free (Stream *stream)
{
  RivServer *self = stream->server;

  g_assert (stream->session == NULL);
  if (self != NULL)
    {
      g_queue_unlink (&self->streams, &stream->link);
      stream->server = NULL;
    }
  if (stream->msg != NULL)
    {
      g_signal_handlers_disconnect_by_data (stream->msg, stream);
      g_clear_object (&stream->msg);
    }
  stream->done = TRUE;
  stream_close_connection (stream);
  /* A write in flight frees the stream when it returns. */
  if (stream->out == NULL)
    stream_destroy (stream);
}

void
_riv_server_stream_detach (Stream *stream)
{
  Session *session = stream->session;

  if (session == NULL)
    return;
  stream->session = NULL;
  if (session->stream == stream)
    {
      session->stream = NULL;
      session->last_seen = g_get_monotonic_time ();
      session->reader_left = session->last_seen;
      _riv_server_session_update_linger (session);
    }
  _riv_server_session_unref (session);
}

/* The body is over or the client went away: the stream's session keeps its
 * FIFO for the next GET. */
static void
stream_finish (Stream *stream)
{
  stream->ended = TRUE;
  _riv_server_stream_detach (stream);
  _riv_server_stream_free (stream);
}

static void
stream_wrote_cb (GObject      *source,
                 GAsyncResult *result,
                 gpointer      user_data)
{
  Stream *stream = user_data;
  g_autoptr(GError) error = NULL;
  gsize payload = stream->out_payload;
  gboolean attached;

  g_output_stream_write_all_finish (G_OUTPUT_STREAM (source), result, NULL, &error);
  g_string_free (g_steal_pointer (&stream->out), TRUE);
  stream->out_payload = 0;
  stream->write_since = 0;

  if (stream->server == NULL)
    {
      stream_destroy (stream);   /* freed while the write was in flight */
      return;
    }
  if (error != NULL)
    {
      stream_finish (stream);    /* the client went away */
      return;
    }

  stream->inflight -= MIN (stream->inflight, payload);
  attached = stream->session != NULL && !stream->ended;
  /* What waited for this write goes first (an ended stream's flush may end
   * it); then the frames the window held back, which nothing else would
   * move (the session's generators may be waiting for its FIFO to drain). */
  stream_flush (stream);
  if (attached && stream->inflight < STREAM_WINDOW / 2)
    session_pump (stream->session, FALSE);
}

/* Writes stream->out as far as the socket takes it without waiting. Most
 * writes fit whole: they need no task and no later dispatch, and the frames
 * pumped meanwhile do not wait a turn of the loop behind them. TRUE when all
 * of it went (stream->out is gone); FALSE leaves the rest (or all of it, on
 * an error, which the asynchronous write then reports) in stream->out. */
static gboolean
stream_write_now (Stream        *stream,
                  GOutputStream *output)
{
  GPollableOutputStream *pollable;
  gssize written;

  if (!G_IS_POLLABLE_OUTPUT_STREAM (output))
    return FALSE;
  pollable = G_POLLABLE_OUTPUT_STREAM (output);
  if (!g_pollable_output_stream_can_poll (pollable))
    return FALSE;
  written = g_pollable_output_stream_write_nonblocking (pollable, stream->out->str,
                                                       stream->out->len, NULL, NULL);
  if (written <= 0)
    return FALSE;
  if ((gsize) written < stream->out->len)
    {
      g_string_erase (stream->out, 0, written);
      return FALSE;
    }
  g_string_free (g_steal_pointer (&stream->out), TRUE);
  stream->inflight -= MIN (stream->inflight, stream->out_payload);
  stream->out_payload = 0;
  return TRUE;
}

/* Starts the next write: every piece waiting, as one chunk. */
static void
stream_flush (Stream *stream)
{
  GOutputStream *output;
  gsize payload = 0;

  if (stream->io == NULL || stream->out != NULL || stream->done)
    return;

  stream->out = g_string_new (NULL);
  for (GList *l = stream->pieces.head; l != NULL; l = l->next)
    payload += g_bytes_get_size (l->data);
  if (payload > 0 && stream->chunked)
    g_string_append_printf (stream->out, "%" G_GSIZE_MODIFIER "x\r\n", payload);
  while (stream->pieces.length > 0)
    {
      g_autoptr(GBytes) piece = g_queue_pop_head (&stream->pieces);
      gsize size;
      const char *data = g_bytes_get_data (piece, &size);

      g_string_append_len (stream->out, data, size);
    }
  if (payload > 0 && stream->chunked)
    g_string_append (stream->out, "\r\n");
  if (stream->finishing && !stream->terminated)
    {
      stream->terminated = TRUE;
      if (stream->chunked)
        g_string_append (stream->out, "0\r\n\r\n");
    }

  if (stream->out->len == 0)
    {
      g_string_free (g_steal_pointer (&stream->out), TRUE);
      if (stream->terminated)
        stream_finish (stream);
      return;
    }

  stream->out_payload = payload;
  output = g_io_stream_get_output_stream (stream->io);
  if (!stream->terminated && stream_write_now (stream, output))
    return;
  stream->write_since = g_get_monotonic_time ();
  g_output_stream_write_all_async (output, stream->out->str, stream->out->len,
                                   G_PRIORITY_DEFAULT, NULL, stream_wrote_cb, stream);
}

/* libsoup has written the headers: the stream takes the connection. */
static void
stream_wrote_headers_cb (SoupServerMessage *msg,
                         gpointer           user_data)
{
  Stream *stream = user_data;
  SoupMessageHeaders *headers = soup_server_message_get_response_headers (msg);

  stream->chunked = soup_message_headers_get_encoding (headers) == SOUP_ENCODING_CHUNKED;
  g_signal_handlers_disconnect_by_data (msg, stream);
  stream->io = soup_server_message_steal_connection (msg);
  g_clear_object (&stream->msg);
  if (stream->io == NULL)
    stream_finish (stream);
  else
    {
      stream_flush (stream);
      if (stream->session != NULL && !stream->ended)
        session_pump (stream->session, FALSE);
    }
}

/* Writes close_stream after whatever this stream already has, and ends it. */
void
_riv_server_stream_end (Stream *stream)
{
  gsize len;
  char *frame;

  if (stream->ended)
    return;

  /* At shutdown the stream first writes everything its session has; when a
   * newer stream takes over, the FIFO is left for that one. */
  if (stream->server->shut_down && stream->session != NULL && stream->session->stream == stream)
    session_pump (stream->session, TRUE);

  stream->ended = TRUE;
  _riv_server_stream_detach (stream);
  frame = riv_wire_close_stream (&len);
  stream->finishing = TRUE;
  stream_send (stream, frame, len);
}

static void
stream_finished_cb (SoupServerMessage *msg,
                    gpointer           user_data)
{
  /* The client went away before the headers were written. */
  stream_finish (user_data);
}

static void
stream_heartbeat (Stream *stream)
{
  gsize len;
  char *frame = riv_wire_heartbeat (&len);

  if (stream->session != NULL)
    _riv_server_session_push (stream->session, riv_frame_new_take (frame, len));
  else
    stream_send (stream, frame, len);
}

/* One timer for the heartbeats of every open stream: a timer per stream
 * would put one source per stream in the main context, which every
 * iteration walks, and wake it once per stream per interval. A stream's
 * first heartbeat comes at the next tick, then one every interval. The timer
 * stops while there is no stream. */
static gboolean
heartbeat_tick_cb (gpointer user_data)
{
  RivServer *self = user_data;
  GList *next;

  if (self->streams.length == 0)
    {
      g_clear_pointer (&self->heartbeat_source, g_source_unref);
      return G_SOURCE_REMOVE;
    }
  for (GList *l = self->streams.head; l != NULL; l = next)
    {
      Stream *stream = l->data;

      next = l->next;
      if (!stream->ended)
        stream_heartbeat (stream);
    }
  return G_SOURCE_CONTINUE;
}

/* Starts the heartbeat timer when streams are open and it is not running. */
void
_riv_server_heartbeat_start (RivServer *self)
{
  if (self->heartbeat_source == NULL && self->heartbeat_interval > 0 &&
      self->streams.length > 0 && !self->shut_down)
    self->heartbeat_source = _riv_server_add_timeout (self, self->heartbeat_interval,
                                                      heartbeat_tick_cb, self,
                                                      "[rivulet] heartbeats");
}

static void
start_event_stream (SoupServerMessage *msg)
{
  SoupMessageHeaders *headers = soup_server_message_get_response_headers (msg);

  soup_server_message_set_status (msg, SOUP_STATUS_OK, NULL);
  soup_message_headers_set_content_type (headers, "text/event-stream", NULL);
  soup_message_headers_replace (headers, "Cache-Control", "no-cache");
  soup_message_headers_replace (headers, "X-Accel-Buffering", "no");
  soup_message_headers_set_encoding (headers, SOUP_ENCODING_CHUNKED);
  soup_message_body_set_accumulate (soup_server_message_get_response_body (msg), FALSE);
}

static Stream *
stream_new (RivServer         *self,
            SoupServerMessage *msg)
{
  Stream *stream = g_new0 (Stream, 1);

  stream->server = self;
  stream->msg = g_object_ref (msg);
  stream->link.data = stream;
  g_queue_init (&stream->pieces);
  g_queue_push_tail_link (&self->streams, &stream->link);
  soup_message_headers_replace (soup_server_message_get_response_headers (msg),
                                "Connection", "close");
  /* libsoup reads the peer's address when the stream takes the connection
   * (once the headers are out) and warns when the client has gone by then:
   * a cancelled stream's reset makes it ENOTCONN. Read it now, while the
   * request has just come in (a client that already closed is half-closed
   * at worst, and its address can still be read): libsoup keeps it. */
  soup_server_message_get_remote_address (msg);
  g_signal_connect (msg, "finished", G_CALLBACK (stream_finished_cb), stream);
  g_signal_connect (msg, "wrote-headers", G_CALLBACK (stream_wrote_headers_cb), stream);
  _riv_server_heartbeat_start (self);
  return stream;
}

void
_riv_server_handle_queue_data (RivServer         *self,
                               SoupServerMessage *msg,
                               GHashTable        *query)
{
  const char *hash = query != NULL ? g_hash_table_lookup (query, "session_hash") : NULL;
  Session *session = hash != NULL ? _riv_server_session_lookup (self, hash) : NULL;
  Stream *stream;

  /* session_hash is a required query parameter: Gradio (FastAPI) refuses the
   * request before any stream starts, with its validation error shape. */
  if (hash == NULL)
    {
      static const char missing[] =
        "{\"detail\":[{\"type\":\"missing\",\"loc\":[\"query\",\"session_hash\"],"
        "\"msg\":\"Field required\",\"input\":null}]}";

      _riv_server_reply_take (msg, SOUP_STATUS_UNPROCESSABLE_ENTITY, "application/json",
                              g_strdup (missing), sizeof missing - 1);
      return;
    }

  start_event_stream (msg);

  if (session == NULL || self->shut_down)
    {
      SoupMessageBody *body = soup_server_message_get_response_body (msg);
      gsize len;
      char *frame;

      frame = riv_wire_unexpected_error (self->shut_down ? "Server stopped." : "Session not found.",
                                         !self->shut_down, &len);
      soup_message_body_append (body, SOUP_MEMORY_TAKE, frame, len);
      frame = riv_wire_close_stream (&len);
      soup_message_body_append (body, SOUP_MEMORY_TAKE, frame, len);
      soup_message_body_complete (body);
      return;
    }

  /* The newest reader takes over; the older one is closed cleanly. */
  if (session->stream != NULL)
    _riv_server_stream_end (session->stream);

  stream = stream_new (self, msg);
  stream->session = _riv_server_session_ref (session);
  session->stream = stream;
  _riv_server_session_touch (session);
  session_pump (session, FALSE);
}

void
_riv_server_handle_keepalive (RivServer         *self,
                              SoupServerMessage *msg)
{
  Stream *stream;
  gsize len;
  char *frame;

  start_event_stream (msg);
  if (self->shut_down)
    {
      SoupMessageBody *body = soup_server_message_get_response_body (msg);

      frame = riv_wire_close_stream (&len);
      soup_message_body_append (body, SOUP_MEMORY_TAKE, frame, len);
      soup_message_body_complete (body);
      return;
    }

  stream = stream_new (self, msg);
  stream->keepalive_only = TRUE;
  frame = riv_wire_heartbeat (&len);
  stream_send (stream, frame, len);
}

/* Readers that are gone */

/* Since when nothing has read the session's stream (monotonic µs): no stream
 * is attached, or its write has not finished; 0 while one reads. */
static gint64
session_unread_since (Session *session)
{
  if (session->stream == NULL)
    return session->reader_left;
  if (session->stream->ended)
    return 0;
  return session->stream->write_since;
}

/* Drops what the session buffers but its completions (and their pending
 * ids): for a session with no live event, whose reader is gone. */
static void
session_keep_completions (Session *session)
{
  RivServer *self = session->server;
  GList *next;

  for (GList *l = session->fifo.head; l != NULL; l = next)
    {
      RivFrame *frame = l->data;
      gsize size = riv_frame_get_size (frame);

      next = l->next;
      if (frame->completes != NULL)
        continue;
      session->fifo_bytes -= size;
      self->buffered_bytes -= size;
      g_queue_delete_link (&session->fifo, l);
      riv_frame_free (frame);
    }
}

/* Fails the jobs of a session nobody has read for reader-timeout that are
 * that old themselves (a job joined before its reader came keeps its grace),
 * which frees their workers; once it has no live job, its buffer keeps only
 * the completions. */
static void
session_check_reader (Session *session,
                      gint64   now)
{
  RivServer *self = session->server;
  gint64 timeout = (gint64) (self->reader_timeout * G_USEC_PER_SEC);
  gint64 since = session_unread_since (session);

  if (since == 0 || now - since < timeout || g_hash_table_size (session->pending) == 0)
    return;

  if (riv_queue_session_has_events (self->queue, session))
    {
      g_autofree char *message =
        g_strdup_printf ("Stopped: nothing read this session's stream for %g seconds.",
                         self->reader_timeout);

      _riv_server_session_ref (session);
      riv_queue_fail_unread (self->queue, session, now - timeout, message);
      _riv_server_session_unref (session);
    }
  if (session->fifo.length > g_hash_table_size (session->pending) &&
      !riv_queue_session_has_events (self->queue, session))
    {
      session_keep_completions (session);
      session_pump (session, FALSE);
    }
}

/* Idle sessions */

gboolean
_riv_server_session_sweep_cb (gpointer user_data)
{
  RivServer *self = user_data;
  gint64 now = g_get_monotonic_time ();
  gint64 timeout = (gint64) (self->session_timeout * G_USEC_PER_SEC);
  g_autoptr(GPtrArray) doomed = g_ptr_array_new ();

  for (GList *l = self->session_lru.head; l != NULL; l = l->next)
    {
      Session *session = l->data;

      session_check_reader (session, now);
      if (session->stream == NULL && now - session->last_seen >= timeout)
        g_ptr_array_add (doomed, session);
    }
  for (guint i = 0; i < doomed->len; i++)
    _riv_server_session_drop (g_ptr_array_index (doomed, i));

  if (self->max_sessions > 0 && g_hash_table_size (self->sessions) > self->max_sessions)
    sessions_evict (self, self->max_sessions);
  return G_SOURCE_CONTINUE;
}
