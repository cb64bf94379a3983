/* riv-replay.c
 * Copyright 2026 The Rivulet authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "config.h"

#include <string.h>

#include <libsoup/soup.h>

#include "riv-compat.h"
#include "riv-json.h"
#include "riv-listen.h"
#include "riv-message.h"
#include "riv-replay.h"
#include "riv-transcript.h"

G_DEFINE_QUARK (riv-replay-error-quark, riv_replay_error)

typedef struct
{
  double      t;
  const char *data;       /* borrowed from the transcript */
  gsize       len;
  int         join;       /* index of the recorded join that named its event, -1 if none */
} Frame;

typedef struct
{
  double            open_t;
  GArray           *frames;    /* Frame */
  gboolean          has_end;
  RivTapEnd         end;
} RecStream;

typedef struct
{
  char       *session;    /* nullable */
  char       *event_id;   /* nullable */
  char       *key;        /* nullable: what was asked (join_key ()) */
  gboolean    sent;       /* a join of the replay was answered with it */
  double      delay;      /* s from the request to the recorded reply */
  guint       status;
  const char *body;       /* borrowed, nullable */
  gsize       body_len;
} RecJoin;

typedef struct
{
  GPtrArray *streams;     /* RecStream *, in the order the client opened them */
  guint      used;        /* streams handed out so far */
} RecSession;

/* A join's reply held for the recorded delay. */
typedef struct
{
  RivReplay         *replay;
  SoupServerMessage *msg;       /* owned, paused */
  RecJoin           *join;
  GSource           *timer;     /* owned */
} HeldReply;

typedef struct
{
  RivReplay         *replay;
  SoupServerMessage *msg;       /* owned */
  RecStream         *rec;       /* nullable: an idle stream */
  guint              next;
  double             start;
  GSource           *timer;     /* owned, nullable */
  gboolean           ended;
} LiveStream;

struct _RivReplay
{
  GObject       parent_instance;

  /* Owned references */
  GPtrArray    *events;
  SoupServer   *server;         /* nullable until listen */
  GMainContext *context;
  char         *url;
  char         *config;         /* served text, root rewritten at listen */
  GPtrArray    *joins;          /* RecJoin * */
  GHashTable   *joins_by_key;   /* RecJoin.key → GQueue of the RecJoins (borrowed) asking it */
  guint         first_unsent;   /* no join before it is unsent */
  GPtrArray    *rec_streams;    /* RecStream *, owns them */
  GHashTable   *rec_sessions;   /* recorded session → RecSession */
  GHashTable   *session_map;    /* session seen by the replay → recorded session (borrowed) */
  GQueue        live;           /* LiveStream * */
  GQueue        held;           /* HeldReply * */

  /* Borrowed references (into events) */
  const char   *config_body;
  gsize         config_len;
  guint         config_status;
  const char   *info_body;
  gsize         info_len;
  guint         info_status;

  double        speed;
  guint         n_joins;
  guint64       n_frames;
  gboolean      shut_down;
};

G_DEFINE_FINAL_TYPE (RivReplay, riv_replay, G_TYPE_OBJECT)

static void
rec_stream_free (gpointer data)
{
  RecStream *rec = data;

  g_array_unref (rec->frames);
  g_free (rec);
}

static void
rec_join_free (gpointer data)
{
  RecJoin *join = data;

  g_free (join->session);
  g_free (join->event_id);
  g_free (join->key);
  g_free (join);
}

static void
rec_session_free (gpointer data)
{
  RecSession *session = data;

  g_ptr_array_unref (session->streams);
  g_free (session);
}

static char *
query_value (const char *path,
             const char *key)
{
  const char *query = strchr (path, '?');
  g_autoptr(GHashTable) params = NULL;

  if (query == NULL)
    return NULL;
  params = g_uri_parse_params (query + 1, -1, "&", G_URI_PARAMS_NONE, NULL);
  return params != NULL ? g_strdup (g_hash_table_lookup (params, key)) : NULL;
}

static JsonObject *
parse_object (const char *text,
              gsize       len,
              JsonNode  **holder)
{
  *holder = text != NULL ? riv_json_parse (NULL, text, len, RIV_MESSAGE_MAX_DEPTH, NULL) : NULL;
  if (*holder == NULL || !JSON_NODE_HOLDS_OBJECT (*holder))
    return NULL;
  return json_node_get_object (*holder);
}

/* What a join asks for: its endpoint and data, as compact JSON ("fn:data"). NULL
 * when the body names neither. */
static char *
join_key (JsonObject *object)
{
  JsonNode *data = json_object_get_member (object, "data");
  g_autofree char *text = NULL;
  gint64 fn_index = -1;

  if (data == NULL || !riv_json_get_int (object, "fn_index", &fn_index))
    return NULL;
  text = riv_json_to_string (data, NULL);
  return g_strdup_printf ("%" G_GINT64_FORMAT ":%s", fn_index, text);
}

/* While the recording is read: open requests by id, the recorded
 * /queue/data streams by stream number, and each event id's join (its
 * position in self->joins + 1). */
typedef struct
{
  GHashTable *requests;
  GHashTable *streams;
  GHashTable *event_join;
  JsonParser *parser;
} Index;

/* A request that opens a /queue/data stream: the stream, under its session. */
static void
index_stream_request (RivReplay   *self,
                      Index       *ix,
                      RivTapEvent *event)
{
  RecStream *rec = g_new0 (RecStream, 1);
  g_autofree char *session = query_value (event->path, "session_hash");
  RecSession *rs;

  rec->open_t = event->t;
  rec->frames = g_array_new (FALSE, FALSE, sizeof (Frame));
  g_ptr_array_add (self->rec_streams, rec);
  g_hash_table_insert (ix->streams, GUINT_TO_POINTER (event->stream), rec);
  if (session == NULL)
    session = g_strdup ("");
  rs = g_hash_table_lookup (self->rec_sessions, session);
  if (rs == NULL)
    {
      rs = g_new0 (RecSession, 1);
      rs->streams = g_ptr_array_new ();
      g_hash_table_insert (self->rec_sessions, g_strdup (session), rs);
    }
  g_ptr_array_add (rs->streams, rec);
}

/* A join and its reply: kept by what it asks for, and by the event id it got. */
static void
index_join (RivReplay   *self,
            Index       *ix,
            RivTapEvent *request,
            RivTapEvent *reply)
{
  RecJoin *join = g_new0 (RecJoin, 1);
  g_autoptr(JsonNode) body = NULL;
  g_autoptr(JsonNode) answer = NULL;
  JsonObject *object;

  if ((object = parse_object (request->text, request->text_len, &body)) != NULL)
    {
      join->session = g_strdup (riv_json_get_string (object, "session_hash"));
      join->key = join_key (object);
    }
  if ((object = parse_object (reply->text, reply->text_len, &answer)) != NULL)
    join->event_id = g_strdup (riv_json_get_string (object, "event_id"));
  join->status = reply->status;
  join->delay = MAX (0, reply->t - request->t);
  join->body = reply->text;
  join->body_len = reply->text_len;
  if (join->key != NULL)
    {
      GQueue *same = g_hash_table_lookup (self->joins_by_key, join->key);

      if (same == NULL)
        {
          same = g_queue_new ();
          g_hash_table_insert (self->joins_by_key, join->key, same);
        }
      g_queue_push_tail (same, join);
    }
  if (join->event_id != NULL && !g_hash_table_contains (ix->event_join, join->event_id))
    g_hash_table_insert (ix->event_join, join->event_id, GUINT_TO_POINTER (self->joins->len + 1));
  g_ptr_array_add (self->joins, join);
}

/* A reply: the first /config and /info are served as recorded, joins by key. */
static void
index_response (RivReplay   *self,
                Index       *ix,
                RivTapEvent *event)
{
  gint64 key = (gint64) event->id;
  RivTapEvent *request = g_hash_table_lookup (ix->requests, &key);

  if (request == NULL)
    return;
  if (riv_transcript_path_ends_with (request->path, "/config") && self->config_body == NULL)
    {
      self->config_body = event->text;
      self->config_len = event->text_len;
      self->config_status = event->status;
    }
  else if (riv_transcript_path_ends_with (request->path, "/info") && self->info_body == NULL)
    {
      self->info_body = event->text;
      self->info_len = event->text_len;
      self->info_status = event->status;
    }
  else if (riv_transcript_path_ends_with (request->path, "/queue/join"))
    index_join (self, ix, request, event);
  g_hash_table_remove (ix->requests, &key);
}

/* The join a frame belongs to (its position in self->joins), or -1 while no
 * recorded join reply named its event id. */
static int
frame_join (Index      *ix,
            const char *data,
            gsize       len)
{
  g_autoptr(RivMessage) msg = riv_message_parse (ix->parser, data, len, NULL);

  if (msg == NULL || msg->event_id == NULL)
    return -1;
  return (int) GPOINTER_TO_UINT (g_hash_table_lookup (ix->event_join, msg->event_id)) - 1;
}

static void
index_frame (Index       *ix,
             RivTapEvent *event)
{
  RecStream *rec = g_hash_table_lookup (ix->streams, GUINT_TO_POINTER (event->stream));
  Frame frame = { event->t, event->text, event->text_len, -1 };

  if (rec == NULL)
    return;
  frame.join = frame_join (ix, event->text, event->text_len);
  g_array_append_val (rec->frames, frame);
}

static void
index_stream_end (Index       *ix,
                  RivTapEvent *event)
{
  RecStream *rec = g_hash_table_lookup (ix->streams, GUINT_TO_POINTER (event->stream));

  if (rec != NULL && !rec->has_end)
    {
      rec->has_end = TRUE;
      rec->end = event->end;
    }
}

/* A frame can come before its join's reply was recorded: look again. */
static void
index_late_frames (RivReplay *self,
                   Index     *ix)
{
  for (guint i = 0; i < self->rec_streams->len; i++)
    {
      RecStream *rec = self->rec_streams->pdata[i];

      for (guint j = 0; j < rec->frames->len; j++)
        {
          Frame *frame = &g_array_index (rec->frames, Frame, j);

          if (frame->join < 0)
            frame->join = frame_join (ix, frame->data, frame->len);
        }
    }
}

/* Reads the recording into what the handlers serve: config and info, joins
 * by what they ask for, and each session's streams with their frames. */
static gboolean
index_recording (RivReplay  *self,
                 GError    **error)
{
  g_autoptr(GHashTable) requests = g_hash_table_new (riv_int64_hash, g_int64_equal);
  g_autoptr(GHashTable) streams = g_hash_table_new (NULL, NULL);
  g_autoptr(GHashTable) event_join = g_hash_table_new (g_str_hash, g_str_equal);
  g_autoptr(JsonParser) parser = json_parser_new_immutable ();
  Index ix = { requests, streams, event_join, parser };

  for (guint i = 0; i < self->events->len; i++)
    {
      RivTapEvent *event = self->events->pdata[i];

      switch (event->kind)
        {
        case RIV_TAP_REQUEST:
          g_hash_table_insert (requests, &event->id, event);
          if (event->stream > 0 && riv_transcript_path_ends_with (event->path, "/queue/data") &&
              !g_hash_table_contains (streams, GUINT_TO_POINTER (event->stream)))
            index_stream_request (self, &ix, event);
          break;
        case RIV_TAP_RESPONSE:
          index_response (self, &ix, event);
          break;
        case RIV_TAP_SSE:
          index_frame (&ix, event);
          break;
        case RIV_TAP_SSE_END:
          index_stream_end (&ix, event);
          break;
        case RIV_TAP_TRUNCATED:
        default:
          break;
        }
    }
  index_late_frames (self, &ix);

  if (self->config_body == NULL)
    {
      g_set_error_literal (error, RIV_REPLAY_ERROR, RIV_REPLAY_ERROR_NO_CONFIG,
                           "the recording has no reply to GET /config to replay");
      return FALSE;
    }
  return TRUE;
}

RivReplay *
riv_replay_new (GPtrArray  *events,
                GError    **error)
{
  g_autoptr(RivReplay) self = g_object_new (RIV_TYPE_REPLAY, NULL);

  g_return_val_if_fail (events != NULL, NULL);

  self->events = g_ptr_array_ref (events);
  if (!index_recording (self, error))
    return NULL;
  return g_steal_pointer (&self);
}

RivReplay *
riv_replay_new_from_file (const char  *path,
                          GError     **error)
{
  g_autoptr(GPtrArray) events = riv_transcript_load (path, error);

  if (events == NULL)
    return NULL;
  return riv_replay_new (events, error);
}

void
riv_replay_set_speed (RivReplay *self,
                      double     speed)
{
  g_return_if_fail (RIV_IS_REPLAY (self));
  self->speed = MAX (speed, 0);
}

/* Replies */

static void
reply (SoupServerMessage *msg,
       guint              status,
       const char        *body,
       gsize              len)
{
  soup_server_message_set_status (msg, status, NULL);
  if (body != NULL)
    soup_server_message_set_response (msg, "application/json", SOUP_MEMORY_COPY, body, len);
}

static void
reply_detail (SoupServerMessage *msg,
              guint              status,
              const char        *detail)
{
  g_autoptr(JsonBuilder) builder = json_builder_new ();
  g_autoptr(JsonNode) root = NULL;
  gsize len = 0;
  g_autofree char *text = NULL;

  json_builder_begin_object (builder);
  json_builder_set_member_name (builder, "detail");
  json_builder_add_string_value (builder, detail);
  json_builder_end_object (builder);
  root = json_builder_get_root (builder);
  text = riv_json_to_string (root, &len);
  reply (msg, status, text, len);
}

/* Streams */

static void pump (LiveStream *live);

static gboolean
pump_timer_cb (gpointer user_data)
{
  LiveStream *live = user_data;

  g_clear_pointer (&live->timer, g_source_unref);
  pump (live);
  return G_SOURCE_REMOVE;
}

static void
live_end (LiveStream *live)
{
  if (live->ended)
    return;
  live->ended = TRUE;
  if (live->timer != NULL)
    {
      g_source_destroy (live->timer);
      g_clear_pointer (&live->timer, g_source_unref);
    }
  soup_message_body_complete (soup_server_message_get_response_body (live->msg));
  soup_server_message_unpause (live->msg);
}

static void
pump (LiveStream *live)
{
  RivReplay *self = live->replay;
  SoupMessageBody *body = soup_server_message_get_response_body (live->msg);
  gboolean wrote = FALSE;
  double now = riv_now ();

  if (live->ended || live->rec == NULL || live->timer != NULL)
    return;

  while (live->next < live->rec->frames->len)
    {
      Frame *frame = &g_array_index (live->rec->frames, Frame, live->next);
      double due;

      /* Held until the replay has been sent the join this frame is about. */
      if (frame->join >= 0 && !((RecJoin *) self->joins->pdata[frame->join])->sent)
        break;
      due = self->speed > 0 ? live->start + (frame->t - live->rec->open_t) / self->speed : 0;
      if (due > now)
        {
          live->timer = g_timeout_source_new ((guint) ((due - now) * 1000) + 1);
          g_source_set_callback (live->timer, pump_timer_cb, live, NULL);
          g_source_attach (live->timer, self->context);
          break;
        }
      soup_message_body_append (body, SOUP_MEMORY_STATIC, "data: ", 6);
      soup_message_body_append (body, SOUP_MEMORY_STATIC, frame->data, frame->len);
      soup_message_body_append (body, SOUP_MEMORY_STATIC, "\n\n", 2);
      self->n_frames++;
      live->next++;
      wrote = TRUE;
    }

  if (live->next == live->rec->frames->len && live->rec->has_end &&
      live->rec->end != RIV_TAP_END_CLIENT)
    live_end (live);
  else if (wrote)
    soup_server_message_unpause (live->msg);
}

static void
live_finished_cb (SoupServerMessage *msg,
                  gpointer           user_data)
{
  LiveStream *live = user_data;
  RivReplay *self = live->replay;

  if (live->timer != NULL)
    {
      g_source_destroy (live->timer);
      g_clear_pointer (&live->timer, g_source_unref);
    }
  g_signal_handlers_disconnect_by_data (live->msg, live);
  g_queue_remove (&self->live, live);
  g_object_unref (live->msg);
  g_free (live);
}

static void
open_stream (RivReplay         *self,
             SoupServerMessage *msg,
             const char        *path)
{
  SoupMessageHeaders *headers = soup_server_message_get_response_headers (msg);
  g_autofree char *session = query_value (path, "session_hash");
  const char *recorded = session != NULL ? g_hash_table_lookup (self->session_map, session) : NULL;
  RecSession *rs = recorded != NULL ? g_hash_table_lookup (self->rec_sessions, recorded) : NULL;
  LiveStream *live = g_new0 (LiveStream, 1);

  live->replay = self;
  live->msg = g_object_ref (msg);
  live->start = riv_now ();
  if (rs != NULL && rs->used < rs->streams->len)
    live->rec = rs->streams->pdata[rs->used++];

  soup_server_message_set_status (msg, SOUP_STATUS_OK, NULL);
  soup_message_headers_set_content_type (headers, "text/event-stream", NULL);
  soup_message_headers_replace (headers, "Cache-Control", "no-cache");
  soup_message_headers_set_encoding (headers, SOUP_ENCODING_CHUNKED);
  soup_message_body_set_accumulate (soup_server_message_get_response_body (msg), FALSE);
  g_signal_connect (msg, "finished", G_CALLBACK (live_finished_cb), live);
  g_queue_push_tail (&self->live, live);
  soup_server_message_pause (msg);
  pump (live);
}

/* The recorded join a join of the replay stands for: the first one not yet
 * sent that asked the same (endpoint and data), else the first one not yet
 * sent. Joins sent at once arrive in any order; their data tells them apart. */
static RecJoin *
next_join (RivReplay  *self,
           JsonObject *object)
{
  g_autofree char *key = join_key (object);
  GQueue *same = key != NULL ? g_hash_table_lookup (self->joins_by_key, key) : NULL;

  while (same != NULL && !g_queue_is_empty (same))
    {
      RecJoin *join = g_queue_pop_head (same);

      if (!join->sent)
        return join;
    }
  while (self->first_unsent < self->joins->len &&
         ((RecJoin *) self->joins->pdata[self->first_unsent])->sent)
    self->first_unsent++;
  return self->joins->pdata[self->first_unsent];
}

static void
held_free (HeldReply *held)
{
  g_source_destroy (held->timer);
  g_source_unref (held->timer);
  g_signal_handlers_disconnect_by_data (held->msg, held);
  g_object_unref (held->msg);
  g_free (held);
}

/* Sends a held reply now. */
static void
held_send (HeldReply *held)
{
  g_queue_remove (&held->replay->held, held);
  reply (held->msg, held->join->status, held->join->body, held->join->body_len);
  soup_server_message_unpause (held->msg);
  held_free (held);
}

static gboolean
held_timer_cb (gpointer user_data)
{
  held_send (user_data);
  return G_SOURCE_REMOVE;
}

/* The client went away before the reply. */
static void
held_finished_cb (SoupServerMessage *msg,
                  gpointer           user_data)
{
  HeldReply *held = user_data;

  g_queue_remove (&held->replay->held, held);
  held_free (held);
}

/* Replies to a join after the recorded delay, scaled by the speed. */
static void
reply_join (RivReplay         *self,
            SoupServerMessage *msg,
            RecJoin           *join)
{
  double delay = self->speed > 0 ? join->delay / self->speed : 0;
  HeldReply *held;

  if (delay < 0.001)
    {
      reply (msg, join->status, join->body, join->body_len);
      return;
    }
  held = g_new0 (HeldReply, 1);
  held->replay = self;
  held->msg = g_object_ref (msg);
  held->join = join;
  held->timer = g_timeout_source_new ((guint) (delay * 1000));
  g_source_set_callback (held->timer, held_timer_cb, held, NULL);
  g_source_attach (held->timer, self->context);
  g_signal_connect (msg, "finished", G_CALLBACK (held_finished_cb), held);
  g_queue_push_tail (&self->held, held);
  soup_server_message_pause (msg);
}

static void
handle_join (RivReplay         *self,
             SoupServerMessage *msg)
{
  SoupMessageBody *request = soup_server_message_get_request_body (msg);
  g_autoptr(GBytes) bytes = soup_message_body_flatten (request);
  g_autoptr(JsonNode) holder = NULL;
  JsonObject *object = parse_object (g_bytes_get_data (bytes, NULL), g_bytes_get_size (bytes), &holder);
  const char *session = object != NULL ? riv_json_get_string (object, "session_hash") : NULL;
  RecJoin *join;

  if (session == NULL)
    {
      reply_detail (msg, SOUP_STATUS_BAD_REQUEST, "Session hash not found.");
      return;
    }
  if (self->n_joins >= self->joins->len)
    {
      reply_detail (msg, SOUP_STATUS_SERVICE_UNAVAILABLE,
                    "The recording has no more joins to replay.");
      return;
    }

  join = next_join (self, object);
  join->sent = TRUE;
  self->n_joins++;
  if (join->session != NULL && !g_hash_table_contains (self->session_map, session))
    g_hash_table_insert (self->session_map, g_strdup (session), join->session);
  reply_join (self, msg, join);

  /* Frames held for this join may go now (a server may send a job's first
   * messages before its join's reply). */
  for (GList *l = self->live.head; l != NULL; l = l->next)
    pump (l->data);
}

static void
handle (SoupServer        *server,
        SoupServerMessage *msg,
        const char        *unused_path,
        GHashTable        *query,
        gpointer           user_data)
{
  RivReplay *self = user_data;
  const char *method = soup_server_message_get_method (msg);
  GUri *uri = soup_server_message_get_uri (msg);
  g_autofree char *path = NULL;

  if (g_uri_get_query (uri) != NULL)
    path = g_strconcat (g_uri_get_path (uri), "?", g_uri_get_query (uri), NULL);
  else
    path = g_strdup (g_uri_get_path (uri));

  /* libsoup 3.2 answers a 200 GET with a Range header itself, with a copy
   * of the reply per range asked, built in one buffer: replies are whole. */
  soup_message_headers_remove (soup_server_message_get_request_headers (msg), "Range");

  if (self->shut_down)
    reply_detail (msg, SOUP_STATUS_SERVICE_UNAVAILABLE, "The replay has ended.");
  else if (riv_transcript_path_ends_with (path, "/config") && strcmp (method, "GET") == 0)
    reply (msg, self->config_status, self->config, strlen (self->config));
  else if (riv_transcript_path_ends_with (path, "/info") && strcmp (method, "GET") == 0 && self->info_body != NULL)
    reply (msg, self->info_status, self->info_body, self->info_len);
  else if (riv_transcript_path_ends_with (path, "/queue/join") && strcmp (method, "POST") == 0)
    handle_join (self, msg);
  else if (riv_transcript_path_ends_with (path, "/queue/data") && strcmp (method, "GET") == 0)
    open_stream (self, msg, path);
  else if ((riv_transcript_path_ends_with (path, "/cancel") || riv_transcript_path_ends_with (path, "/reset")) && strcmp (method, "POST") == 0)
    reply (msg, SOUP_STATUS_OK, "{\"success\":true}", 16);
  else
    reply_detail (msg, SOUP_STATUS_NOT_FOUND, "Not Found");
}

/* The recorded config, its "root" (when it has one) moved to the replay. */
static char *
serve_config (RivReplay *self)
{
  g_autoptr(JsonNode) holder = NULL;
  JsonObject *object = parse_object (self->config_body, self->config_len, &holder);
  const char *root = object != NULL ? riv_json_get_string (object, "root") : NULL;
  g_autoptr(GUri) uri = NULL;
  g_autoptr(JsonNode) copy = NULL;
  g_autofree char *new_root = NULL;

  if (root == NULL || root[0] == '\0' || (uri = g_uri_parse (root, G_URI_FLAGS_NONE, NULL)) == NULL)
    return g_strndup (self->config_body, self->config_len);

  new_root = g_strconcat (self->url, g_uri_get_path (uri), NULL);
  while (g_str_has_suffix (new_root, "/"))
    new_root[strlen (new_root) - 1] = '\0';
  copy = json_node_copy (holder);
  json_object_set_string_member (json_node_get_object (copy), "root", new_root);
  return riv_json_to_string (copy, NULL);
}

gboolean
riv_replay_listen (RivReplay   *self,
                   const char  *host,
                   guint        port,
                   GError     **error)
{
  g_autoptr(GInetAddress) address = NULL;
  g_autoptr(GSocketAddress) socket_address = NULL;
  g_autoptr(GError) local_error = NULL;
  g_autoptr(GSocket) listener = NULL;
  guint bound = 0;

  g_return_val_if_fail (RIV_IS_REPLAY (self), FALSE);
  g_return_val_if_fail (self->server == NULL, FALSE);

  if (host == NULL || strcmp (host, "localhost") == 0)
    host = "127.0.0.1";
  address = g_inet_address_new_from_string (host);
  if (address == NULL || port > 65535)
    {
      g_set_error (error, RIV_REPLAY_ERROR, RIV_REPLAY_ERROR_LISTEN,
                   "Invalid host \"%s\" or port %u: give an IP address and a port up to 65535", host, port);
      return FALSE;
    }
  socket_address = g_inet_socket_address_new (address, port);
  self->server = soup_server_new ("server-header", "rivulet-replay", NULL);
  soup_server_add_handler (self->server, NULL, handle, self, NULL);
  listener = riv_listen_socket (socket_address, 0, &bound, &local_error);
  if (listener == NULL || !soup_server_listen_socket (self->server, listener, 0, &local_error))
    {
      g_set_error (error, RIV_REPLAY_ERROR, RIV_REPLAY_ERROR_LISTEN,
                   "Could not listen on %s:%u: %s", host, port, local_error->message);
      g_clear_object (&self->server);
      return FALSE;
    }

  if (g_inet_address_get_family (address) == G_SOCKET_FAMILY_IPV6)
    self->url = g_strdup_printf ("http://[%s]:%u", host, bound);
  else
    self->url = g_strdup_printf ("http://%s:%u", host, bound);
  self->config = serve_config (self);
  return TRUE;
}

char *
riv_replay_dup_url (RivReplay *self)
{
  return g_strdup (self->url);
}

guint
riv_replay_get_n_recorded_joins (RivReplay *self)
{
  return self->joins->len;
}

guint
riv_replay_get_n_joins (RivReplay *self)
{
  return self->n_joins;
}

guint64
riv_replay_get_n_frames (RivReplay *self)
{
  return self->n_frames;
}

void
riv_replay_shutdown (RivReplay *self)
{
  g_return_if_fail (RIV_IS_REPLAY (self));

  if (self->shut_down)
    return;
  self->shut_down = TRUE;
  while (!g_queue_is_empty (&self->held))
    held_send (g_queue_peek_head (&self->held));
  for (GList *l = self->live.head; l != NULL; l = l->next)
    live_end (l->data);
  if (self->server != NULL)
    soup_server_disconnect (self->server);
}

static void
riv_replay_finalize (GObject *object)
{
  RivReplay *self = RIV_REPLAY (object);

  riv_replay_shutdown (self);
  /* Streams whose "finished" has not come yet. */
  while (!g_queue_is_empty (&self->live))
    live_finished_cb (NULL, g_queue_peek_head (&self->live));
  g_clear_object (&self->server);
  g_clear_pointer (&self->events, g_ptr_array_unref);
  g_clear_pointer (&self->joins_by_key, g_hash_table_unref);
  g_clear_pointer (&self->joins, g_ptr_array_unref);
  g_clear_pointer (&self->rec_streams, g_ptr_array_unref);
  g_clear_pointer (&self->rec_sessions, g_hash_table_unref);
  g_clear_pointer (&self->session_map, g_hash_table_unref);
  g_clear_pointer (&self->context, g_main_context_unref);
  g_free (self->url);
  g_free (self->config);

  G_OBJECT_CLASS (riv_replay_parent_class)->finalize (object);
}

static void
riv_replay_class_init (RivReplayClass *klass)
{
  G_OBJECT_CLASS (klass)->finalize = riv_replay_finalize;
}

static void
riv_replay_init (RivReplay *self)
{
  self->speed = 1;
  self->context = g_main_context_ref_thread_default ();
  self->joins = g_ptr_array_new_with_free_func (rec_join_free);
  self->joins_by_key = g_hash_table_new_full (g_str_hash, g_str_equal, NULL,
                                              (GDestroyNotify) g_queue_free);
  self->rec_streams = g_ptr_array_new_with_free_func (rec_stream_free);
  self->rec_sessions = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, rec_session_free);
  self->session_map = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
}
