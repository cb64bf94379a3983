/* test-gradio-compat.c
 * Copyright 2026 The Rivulet authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Rivulet's client against Gradio-shaped servers. Gradio itself cannot be
 * installed here, so this file contains a small scriptable fake that replays
 * what protocol.md describes for Gradio 4.x (api_prefix "") and Gradio 5/6
 * (api_prefix "/gradio_api"): /config in its real shape, /info, queue/join,
 * one queue/data stream per session fed from a per-session FIFO, close_stream
 * the moment the pending set empties (no linger, like Gradio), /cancel with
 * output {}, /reset and /file=. Each scenario then bends one rule the way real
 * Gradio does (early messages, trailing progress, duplicate completions, a
 * close_stream crossing a join, abrupt ends, …) and checks that every job ends
 * in the right terminal state with the right outputs and nothing pending.
 *
 * The fake also checks the client: join bodies carry data (one value per
 * input), fn_index and session_hash and none of the server-internal fields;
 * cancels carry event_id, session_hash and fn_index; there is never more than
 * one queue/data stream per session; every request stays under config.root.
 */
#include "config.h"

#include <string.h>

#include <json-glib/json-glib.h>
#include <libsoup/soup.h>

#include "riv-client.h"
#include "riv-test-util.h"

#define WAIT_S 20.0   /* hang guard for every wait */

/* ------------------------------------------------------------------------ */
/* Server shapes                                                             */

typedef struct
{
  const char *name;
  const char *fixture;   /* tests/data/… config in the real shape of that version */
  const char *prefix;    /* api_prefix */
} Shape;

static const Shape shape_gradio4 = { "gradio4", "gradio-config-v4.json", "" };
static const Shape shape_gradio6 = { "gradio6", "gradio-config-v6.json", "/gradio_api" };

/* Dependency ids in both fixtures. */
enum
{
  FN_ECHO = 0,    /* textbox -> textbox; the input text picks a script */
  FN_IMAGE = 1,   /* textbox -> image (FileData) */
  FN_CHAT = 2,    /* textbox -> chatbot, generator with nested diffs */
  FN_GREET = 3,   /* [state, textbox] -> [textbox, state] */
  N_FNS = 5,
};

static const guint fn_n_inputs[N_FNS] = { 1, 1, 1, 2, 0 };

#define FAKE_FILE_PATH "/tmp/gradio/5f0c2a9d81e7b6a43c0e/image.png"

/* ------------------------------------------------------------------------ */
/* The fake server                                                           */

typedef struct _Fake Fake;
typedef struct _FakeSession FakeSession;
typedef struct _FakeEvent FakeEvent;

typedef struct
{
  char *json;           /* one-line JSON object */
  char *completes;      /* event id this process_completed is for, or NULL */
} Frame;

typedef enum
{
  STEP_FRAME,
  STEP_DELAY,
  STEP_HOLD,            /* wait for fake_release() */
  STEP_END_STREAM,      /* end the current response cleanly, no close_stream */
  STEP_ABORT_STREAM,    /* drop the connection mid-response */
} StepKind;

typedef struct
{
  StepKind kind;
  Frame   *frame;
  guint    ms;
} Step;

struct _FakeEvent
{
  Fake        *fake;
  FakeSession *session;
  char        *id;
  gint64       fn_index;
  char        *command;       /* the echo input, for scripting */
  GQueue       script;        /* Step* */
  guint        timer_id;
  gboolean     held;
  gboolean     started;
  GQueue       on_cancel;     /* Frame*: what /cancel enqueues (Gradio: output {}) */
};

struct _FakeSession
{
  Fake              *fake;
  char              *hash;
  GQueue             fifo;        /* Frame* not yet written */
  GHashTable        *pending;     /* event id set */
  SoupServerMessage *writer;      /* the attached queue/data response */
  guint              heartbeat_id;
  guint              close_poll_id;
  gboolean           closing;     /* close_stream decided, held back by close_gate */
  guint              n_streams;
};

struct _Fake
{
  SoupServer   *server;
  const Shape  *shape;
  char         *base;             /* http://127.0.0.1:PORT */
  char         *mount;            /* path the app is mounted at: "" or "/sub" */
  char         *root;             /* base + mount: config "root" */
  char         *protocol;         /* overrides config.protocol when set; "" removes it */
  JsonNode     *config;           /* the fixture */
  GHashTable   *sessions;         /* hash -> FakeSession */
  GHashTable   *events;           /* id -> FakeEvent */
  GPtrArray    *requests;         /* "METHOD /path" */
  GPtrArray    *violations;       /* what the client did wrong */
  GPtrArray    *joins;            /* JsonNode* join bodies, in order */
  GPtrArray    *cancels;          /* JsonNode* cancel bodies */
  GBytes       *png;
  guint         n_file_requests;
  guint         n_signed_file_requests;   /* …whose URL came verbatim from FileData.url */
  guint         n_config_requests;
  guint         heartbeat_ms;     /* 0: no in-stream heartbeats */
  guint         n_heartbeats;
  guint         n_early_by_count; /* early join replies released because the client had read the frames */
  gboolean      no_close_stream;  /* end responses without close_stream */
  /* close_stream crossing a join */
  FakeEvent    *cross_target;
  gboolean    (*close_gate) (gpointer data);
  gpointer      close_gate_data;
  /* early messages: hold the join reply until the client has read them */
  RivClient    *client;
  GPtrArray    *paused;           /* SoupServerMessage* held join replies */
  guint64       next_event;
};

static void session_flush (FakeSession *session);
static void event_run (FakeEvent *event);

static Frame *
frame_new (char *json_take)
{
  Frame *frame = g_new0 (Frame, 1);

  frame->json = json_take;
  return frame;
}

static void
frame_free (Frame *frame)
{
  if (frame == NULL)
    return;
  g_free (frame->json);
  g_free (frame->completes);
  g_free (frame);
}

static char *
json_quote (const char *text)
{
  g_autoptr(JsonNode) node = json_node_new (JSON_NODE_VALUE);

  json_node_set_string (node, text);
  return json_to_string (node, FALSE);
}

static Frame *
frame_estimation (const char *id,
                  int         rank,
                  int         queue_size)
{
  return frame_new (g_strdup_printf ("{\"msg\":\"estimation\",\"event_id\":\"%s\",\"rank\":%d,"
                                     "\"queue_size\":%d,\"rank_eta\":null}",
                                     id, rank, queue_size));
}

static Frame *
frame_starts (const char *id)
{
  return frame_new (g_strdup_printf ("{\"msg\":\"process_starts\",\"event_id\":\"%s\",\"eta\":null}", id));
}

static Frame *
frame_log (const char *id)
{
  return frame_new (g_strdup_printf ("{\"msg\":\"log\",\"event_id\":\"%s\",\"log\":\"loaded weights\","
                                     "\"level\":\"info\",\"duration\":10.0,\"visible\":true,"
                                     "\"title\":\"Info\"}", id));
}

static Frame *
frame_progress (const char *id)
{
  return frame_new (g_strdup_printf ("{\"msg\":\"progress\",\"event_id\":\"%s\",\"progress_data\":"
                                     "[{\"index\":3,\"length\":10,\"unit\":\"steps\",\"progress\":null,"
                                     "\"desc\":\"denoise\"}]}", id));
}

static Frame *
frame_generating (const char *id,
                  const char *data_json)
{
  return frame_new (g_strdup_printf ("{\"msg\":\"process_generating\",\"event_id\":\"%s\",\"output\":"
                                     "{\"data\":%s,\"is_generating\":true,\"duration\":0.01,"
                                     "\"average_duration\":0.01,\"render_config\":null,"
                                     "\"changed_state_ids\":[],\"used_cache\":null},\"success\":true,"
                                     "\"time_limit\":null}", id, data_json));
}

static Frame *
frame_completed (const char *id,
                 const char *data_json)
{
  Frame *frame;

  frame = frame_new (g_strdup_printf ("{\"msg\":\"process_completed\",\"event_id\":\"%s\",\"output\":"
                                      "{\"data\":%s,\"is_generating\":false,\"duration\":0.02,"
                                      "\"average_duration\":0.02,\"render_config\":null,"
                                      "\"changed_state_ids\":[],\"used_cache\":null},\"success\":true,"
                                      "\"title\":null,\"used_cache\":null,\"cache_duration\":null,"
                                      "\"avg_time\":0.02}", id, data_json));
  frame->completes = g_strdup (id);
  return frame;
}

/* error_json: a JSON string or "null" (show_error=False). */
static Frame *
frame_failed (const char *id,
              const char *error_json)
{
  Frame *frame;

  frame = frame_new (g_strdup_printf ("{\"msg\":\"process_completed\",\"event_id\":\"%s\",\"output\":"
                                      "{\"error\":%s,\"duration\":null,\"visible\":true,\"title\":\"Error\"},"
                                      "\"success\":false,\"title\":\"Error\",\"used_cache\":null,"
                                      "\"cache_duration\":null,\"avg_time\":null}", id, error_json));
  frame->completes = g_strdup (id);
  return frame;
}

/* What Gradio's /cancel enqueues. */
static Frame *
frame_cancelled (const char *id)
{
  Frame *frame;

  frame = frame_new (g_strdup_printf ("{\"msg\":\"process_completed\",\"event_id\":\"%s\","
                                      "\"output\":{},\"success\":true}", id));
  frame->completes = g_strdup (id);
  return frame;
}

static Frame *
frame_heartbeat (void)
{
  return frame_new (g_strdup ("{\"msg\":\"heartbeat\",\"event_id\":null}"));
}

static Frame *
frame_unexpected_error (const char *message)
{
  g_autofree char *quoted = json_quote (message);

  return frame_new (g_strdup_printf ("{\"msg\":\"unexpected_error\",\"event_id\":null,"
                                     "\"message\":%s,\"success\":false}", quoted));
}

static void
step_free (Step *step)
{
  frame_free (step->frame);
  g_free (step);
}

static void
event_push_frame (FakeEvent *event,
                  Frame     *frame)
{
  Step *step = g_new0 (Step, 1);

  step->kind = STEP_FRAME;
  step->frame = frame;
  g_queue_push_tail (&event->script, step);
}

static void
event_push_step (FakeEvent *event,
                 StepKind   kind,
                 guint      ms)
{
  Step *step = g_new0 (Step, 1);

  step->kind = kind;
  step->ms = ms;
  g_queue_push_tail (&event->script, step);
}

static void
event_free (FakeEvent *event)
{
  g_clear_handle_id (&event->timer_id, g_source_remove);
  g_queue_clear_full (&event->script, (GDestroyNotify) step_free);
  g_queue_clear_full (&event->on_cancel, (GDestroyNotify) frame_free);
  g_free (event->id);
  g_free (event->command);
  g_free (event);
}

static void
violation (Fake       *fake,
           const char *format,
           ...) G_GNUC_PRINTF (2, 3);

static void
violation (Fake       *fake,
           const char *format,
           ...)
{
  va_list args;
  char *text;

  va_start (args, format);
  text = g_strdup_vprintf (format, args);
  va_end (args);
  g_test_message ("client protocol violation: %s", text);
  g_ptr_array_add (fake->violations, text);
}

static void
session_free (FakeSession *session)
{
  g_clear_handle_id (&session->heartbeat_id, g_source_remove);
  g_clear_handle_id (&session->close_poll_id, g_source_remove);
  if (session->writer != NULL)
    g_signal_handlers_disconnect_by_data (session->writer, session);
  g_queue_clear_full (&session->fifo, (GDestroyNotify) frame_free);
  g_hash_table_unref (session->pending);
  g_free (session->hash);
  g_free (session);
}

static FakeSession *
fake_session (Fake       *fake,
              const char *hash,
              gboolean    create)
{
  FakeSession *session = g_hash_table_lookup (fake->sessions, hash);

  if (session == NULL && create)
    {
      session = g_new0 (FakeSession, 1);
      session->fake = fake;
      session->hash = g_strdup (hash);
      session->pending = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
      g_queue_init (&session->fifo);
      g_hash_table_insert (fake->sessions, session->hash, session);
    }
  return session;
}

static void
session_send (FakeSession *session,
              Frame       *frame)
{
  g_queue_push_tail (&session->fifo, frame);
  session_flush (session);
}

static void
writer_append (SoupServerMessage *msg,
               const char        *json)
{
  SoupMessageBody *body = soup_server_message_get_response_body (msg);
  char *text = g_strdup_printf ("data: %s\n\n", json);

  soup_message_body_append (body, SOUP_MEMORY_TAKE, text, strlen (text));
}

static void
session_detach (FakeSession *session)
{
  g_clear_handle_id (&session->heartbeat_id, g_source_remove);
  if (session->writer != NULL)
    g_signal_handlers_disconnect_by_data (session->writer, session);
  session->writer = NULL;
  session->closing = FALSE;
}

/* Ends the attached response, with or without a close_stream frame. */
static void
session_end_stream (FakeSession *session,
                    gboolean     with_close)
{
  SoupServerMessage *msg = session->writer;

  if (msg == NULL)
    return;
  if (with_close)
    writer_append (msg, "{\"msg\":\"close_stream\",\"event_id\":null}");
  session_detach (session);
  soup_message_body_complete (soup_server_message_get_response_body (msg));
  soup_server_message_unpause (msg);
}

typedef struct
{
  SoupServerMessage *msg;
  guint              fallback_id;
  gulong             handler_id;
} Abort;

static void
abort_now (Abort *abort)
{
  GSocket *socket = soup_server_message_get_socket (abort->msg);

  g_clear_handle_id (&abort->fallback_id, g_source_remove);
  g_clear_signal_handler (&abort->handler_id, abort->msg);
  if (socket != NULL)
    g_socket_shutdown (socket, FALSE, TRUE, NULL);
  soup_message_body_complete (soup_server_message_get_response_body (abort->msg));
  soup_server_message_unpause (abort->msg);
  g_object_unref (abort->msg);
  g_free (abort);
}

static gboolean
abort_fallback_cb (gpointer user_data)
{
  Abort *abort = user_data;

  abort->fallback_id = 0;
  abort_now (abort);
  return G_SOURCE_REMOVE;
}

static void
abort_wrote_chunk_cb (SoupServerMessage *msg,
                      gpointer           user_data)
{
  Abort *abort = user_data;

  /* The chunk is in the socket now; drop the connection right after. */
  g_clear_signal_handler (&abort->handler_id, abort->msg);
  g_clear_handle_id (&abort->fallback_id, g_source_remove);
  abort->fallback_id = g_timeout_add (50, abort_fallback_cb, abort);
}


/* Gradio's stream exception path: an error frame, then the connection
 * drops. The drop waits until the frame queued last has gone out. */
static void
session_abort_stream (FakeSession *session)
{
  Abort *abort;

  if (session->writer == NULL)
    return;
  abort = g_new0 (Abort, 1);
  abort->msg = g_object_ref (session->writer);
  session_detach (session);
  abort->handler_id = g_signal_connect (abort->msg, "wrote-chunk",
                                        G_CALLBACK (abort_wrote_chunk_cb), abort);
  abort->fallback_id = g_timeout_add (1000, abort_fallback_cb, abort);
}

static gboolean
close_poll_cb (gpointer user_data)
{
  FakeSession *session = user_data;
  Fake *fake = session->fake;

  if (fake->close_gate != NULL && !fake->close_gate (fake->close_gate_data))
    return G_SOURCE_CONTINUE;

  session->close_poll_id = 0;
  fake->close_gate = NULL;
  session_end_stream (session, TRUE);
  return G_SOURCE_REMOVE;
}

/* Called once a completion emptied the pending set: Gradio writes
 * close_stream right away (no linger) and ends the response. */
static void
session_close (FakeSession *session)
{
  Fake *fake = session->fake;

  if (fake->no_close_stream)
    {
      session_end_stream (session, FALSE);
      return;
    }
  if (fake->close_gate != NULL)
    {
      /* The close_stream is already decided; it is only slow to arrive. */
      session->closing = TRUE;
      session->close_poll_id = g_timeout_add (5, close_poll_cb, session);
      return;
    }
  session_end_stream (session, TRUE);
}

static void
session_flush (FakeSession *session)
{
  SoupServerMessage *msg = session->writer;

  if (msg == NULL || session->closing)
    return;

  while (!g_queue_is_empty (&session->fifo))
    {
      Frame *frame = g_queue_pop_head (&session->fifo);
      gboolean close_now = FALSE;

      writer_append (msg, frame->json);
      if (frame->completes != NULL)
        {
          g_hash_table_remove (session->pending, frame->completes);
          close_now = g_hash_table_size (session->pending) == 0;
        }
      frame_free (frame);
      if (close_now)
        {
          session_close (session);
          return;
        }
    }
  soup_server_message_unpause (msg);
}

static void
writer_finished_cb (SoupServerMessage *msg,
                    gpointer           user_data)
{
  FakeSession *session = user_data;

  if (session->writer == msg)
    {
      g_clear_handle_id (&session->close_poll_id, g_source_remove);
      session_detach (session);
    }
}

static gboolean
heartbeat_cb (gpointer user_data)
{
  FakeSession *session = user_data;

  if (session->fake->heartbeat_ms == 0)
    {
      session->heartbeat_id = 0;
      return G_SOURCE_REMOVE;
    }
  session->fake->n_heartbeats++;
  session_send (session, frame_heartbeat ());
  return G_SOURCE_CONTINUE;
}

static gboolean
event_timer_cb (gpointer user_data)
{
  FakeEvent *event = user_data;

  event->timer_id = 0;
  event_run (event);
  return G_SOURCE_REMOVE;
}

/* Plays the event's script until it must wait. */
static void
event_run (FakeEvent *event)
{
  Step *step;

  while (event->timer_id == 0 && !event->held &&
         (step = g_queue_pop_head (&event->script)) != NULL)
    {
      switch (step->kind)
        {
        case STEP_FRAME:
          session_send (event->session, g_steal_pointer (&step->frame));
          break;
        case STEP_DELAY:
          event->timer_id = g_timeout_add (step->ms, event_timer_cb, event);
          break;
        case STEP_HOLD:
          event->held = TRUE;
          break;
        case STEP_END_STREAM:
          session_end_stream (event->session, FALSE);
          break;
        case STEP_ABORT_STREAM:
          /* The run is dead after the disconnect (Gradio's clean_events). */
          g_hash_table_remove (event->session->pending, event->id);
          session_abort_stream (event->session);
          break;
        default:
          g_assert_not_reached ();
        }
      step_free (step);
    }
}

static void
fake_release (FakeEvent *event)
{
  g_assert_nonnull (event);
  g_assert_true (event->held);
  event->held = FALSE;
  event_run (event);
}

static gboolean
event_start_cb (gpointer user_data)
{
  FakeEvent *event = user_data;

  event->timer_id = 0;
  event->started = TRUE;
  event_run (event);
  return G_SOURCE_REMOVE;
}

/* ---- HTTP plumbing ---- */

static void
reply_detail (SoupServerMessage *msg,
              guint              status,
              const char        *detail)
{
  g_autofree char *quoted = json_quote (detail);
  g_autofree char *json = g_strdup_printf ("{\"detail\":%s}", quoted);

  riv_test_reply_json (msg, status, json);
}

static JsonNode *
request_json (SoupServerMessage *msg)
{
  SoupMessageBody *body = soup_server_message_get_request_body (msg);
  g_autoptr(GBytes) bytes = soup_message_body_flatten (body);
  g_autoptr(JsonParser) parser = json_parser_new ();
  gsize len = 0;
  const char *data = g_bytes_get_data (bytes, &len);

  if (data == NULL || !json_parser_load_from_data (parser, data, len, NULL))
    return NULL;
  return json_node_ref (json_parser_get_root (parser));
}

static char *
fake_file_url (Fake       *fake,
               const char *path)
{
  return g_strdup_printf ("%s%s/file=%s", fake->root, fake->shape->prefix, path);
}

static void
handle_config (Fake              *fake,
               SoupServerMessage *msg)
{
  g_autoptr(JsonNode) config = json_node_copy (fake->config);
  JsonObject *object = json_node_get_object (config);
  g_autofree char *text = NULL;

  fake->n_config_requests++;
  /* Gradio fills root in per request. */
  json_object_set_string_member (object, "root", fake->root);
  if (fake->protocol != NULL)
    {
      if (fake->protocol[0] == '\0')
        json_object_remove_member (object, "protocol");
      else
        json_object_set_string_member (object, "protocol", fake->protocol);
    }
  text = json_to_string (config, FALSE);
  riv_test_reply_json (msg, SOUP_STATUS_OK, text);
}

static void
handle_info (Fake              *fake,
             SoupServerMessage *msg)
{
  static const char info[] =
    "{\"named_endpoints\":{"
    "\"/echo\":{\"parameters\":[{\"label\":\"prompt\",\"parameter_name\":\"prompt\","
      "\"parameter_has_default\":false,\"parameter_default\":null,\"type\":{\"type\":\"string\"},"
      "\"python_type\":{\"type\":\"str\",\"description\":\"\"},\"component\":\"Textbox\","
      "\"example_input\":\"Hello!!\"}],"
      "\"returns\":[{\"label\":\"output\",\"type\":{\"type\":\"string\"},"
      "\"python_type\":{\"type\":\"str\",\"description\":\"\"},\"component\":\"Textbox\"}],"
      "\"api_visibility\":\"public\",\"description\":\"\"},"
    "\"/image\":{\"parameters\":[{\"label\":\"prompt\",\"parameter_name\":\"prompt\","
      "\"parameter_has_default\":false,\"parameter_default\":null,\"type\":{\"type\":\"string\"},"
      "\"python_type\":{\"type\":\"str\",\"description\":\"\"},\"component\":\"Textbox\"}],"
      "\"returns\":[{\"label\":\"image\",\"type\":{\"type\":\"object\"},"
      "\"python_type\":{\"type\":\"filepath\",\"description\":\"\"},\"component\":\"Image\"}],"
      "\"api_visibility\":\"public\",\"description\":\"\"},"
    "\"/chat\":{\"parameters\":[{\"label\":\"prompt\",\"parameter_name\":\"prompt\","
      "\"parameter_has_default\":false,\"parameter_default\":null,\"type\":{\"type\":\"string\"},"
      "\"python_type\":{\"type\":\"str\",\"description\":\"\"},\"component\":\"Textbox\"}],"
      "\"returns\":[{\"label\":\"chat\",\"type\":{\"type\":\"array\"},"
      "\"python_type\":{\"type\":\"list\",\"description\":\"\"},\"component\":\"Chatbot\"}],"
      "\"api_visibility\":\"public\",\"description\":\"\"},"
    "\"/greet\":{\"parameters\":[{\"label\":\"name\",\"parameter_name\":\"name\","
      "\"parameter_has_default\":false,\"parameter_default\":null,\"type\":{\"type\":\"string\"},"
      "\"python_type\":{\"type\":\"str\",\"description\":\"\"},\"component\":\"Textbox\"}],"
      "\"returns\":[{\"label\":\"greeting\",\"type\":{\"type\":\"string\"},"
      "\"python_type\":{\"type\":\"str\",\"description\":\"\"},\"component\":\"Textbox\"}],"
      "\"api_visibility\":\"public\",\"description\":\"\"}},"
    "\"unnamed_endpoints\":{}}";

  riv_test_reply_json (msg, SOUP_STATUS_OK, info);
}

/* The scripts, chosen by endpoint and (for echo and image) by the input text. */
static void
build_script (FakeEvent  *event,
              JsonArray  *data)
{
  const char *id = event->id;
  const char *cmd = event->command != NULL ? event->command : "";

  event_push_frame (event, frame_starts (id));

  switch (event->fn_index)
    {
    case FN_ECHO:
      if (g_str_equal (cmd, "hold"))
        {
          event_push_step (event, STEP_HOLD, 0);
          event_push_frame (event, frame_completed (id, "[\"held and done\"]"));
        }
      else if (g_str_equal (cmd, "silent"))
        {
          event_push_step (event, STEP_HOLD, 0);
        }
      else if (g_str_equal (cmd, "dup"))
        {
          /* /cancel races the real completion: two completions for one id. */
          g_queue_push_tail (&event->on_cancel, frame_cancelled (id));
          g_queue_push_tail (&event->on_cancel, frame_completed (id, "[\"finished anyway\"]"));
          event_push_step (event, STEP_HOLD, 0);
        }
      else if (g_str_equal (cmd, "trail"))
        {
          event_push_frame (event, frame_completed (id, "[\"trail done\"]"));
          /* Gradio's 10 ms progress poll can trail the completion. */
          event_push_frame (event, frame_progress (id));
        }
      else if (g_str_equal (cmd, "fail"))
        {
          event_push_frame (event, frame_failed (id, "\"boom from the server\""));
        }
      else if (g_str_equal (cmd, "fail-null"))
        {
          event_push_frame (event, frame_failed (id, "null"));
        }
      else if (g_str_equal (cmd, "empty"))
        {
          event_push_frame (event, frame_cancelled (id));
        }
      else if (g_str_equal (cmd, "gen"))
        {
          /* sse_v1 sent full values; sse_v2 and later send edits. */
          gboolean v1 = g_strcmp0 (event->fake->protocol, "sse_v1") == 0;

          event_push_frame (event, frame_generating (id, "[\"a\"]"));
          event_push_frame (event, frame_generating (id, v1 ? "[\"ab\"]" : "[[[\"append\",[],\"b\"]]]"));
          event_push_frame (event, frame_generating (id, v1 ? "[\"abc\"]" : "[[[\"replace\",[],\"abc\"]]]"));
          event_push_step (event, STEP_HOLD, 0);
          event_push_frame (event, frame_completed (id, "[\"abc\"]"));
        }
      else if (g_str_equal (cmd, "end-pending"))
        {
          /* The response ends while this event is still running; its
           * completion waits in the FIFO for the next GET. */
          event_push_step (event, STEP_HOLD, 0);
          event_push_step (event, STEP_END_STREAM, 0);
          event_push_step (event, STEP_HOLD, 0);
          event_push_frame (event, frame_completed (id, "[\"after the reconnect\"]"));
        }
      else if (g_str_equal (cmd, "abort"))
        {
          event_push_step (event, STEP_HOLD, 0);
          event_push_frame (event, frame_unexpected_error ("Stream failed: boom in the queue"));
          event_push_step (event, STEP_ABORT_STREAM, 0);
        }
      else
        {
          JsonNode *first = json_array_get_length (data) > 0 ? json_array_get_element (data, 0) : NULL;
          g_autofree char *value = first != NULL ? json_to_string (first, FALSE) : g_strdup ("null");
          g_autofree char *out = g_strdup_printf ("[%s]", value);

          event_push_frame (event, frame_log (id));
          event_push_frame (event, frame_completed (id, out));
        }
      break;

    case FN_IMAGE:
      {
        g_autofree char *url = fake_file_url (event->fake, FAKE_FILE_PATH);
        g_autofree char *json = NULL;

        if (g_str_equal (cmd, "path"))
          json = g_strdup_printf ("[{\"path\":\"%s\",\"url\":null,\"size\":null,\"orig_name\":\"image.png\","
                                  "\"mime_type\":null,\"is_stream\":false,"
                                  "\"meta\":{\"_type\":\"gradio.FileData\"}}]", FAKE_FILE_PATH);
        else
          /* The url is used verbatim: here it carries a query (as signed
           * Spaces URLs do), so the fake can tell it from a built one. */
          json = g_strdup_printf ("[{\"path\":\"%s\",\"url\":\"%s?__sign=fake-jwt\",\"size\":null,"
                                  "\"orig_name\":\"image.png\",\"mime_type\":null,\"is_stream\":false,"
                                  "\"meta\":{\"_type\":\"gradio.FileData\"}}]", FAKE_FILE_PATH, url);
        event_push_frame (event, frame_completed (id, json));
      }
      break;

    case FN_CHAT:
      /* A chatbot history streamed as nested edits (protocol.md §4). */
      event_push_frame (event, frame_generating (id,
        "[[{\"role\":\"user\",\"content\":\"hi\"},{\"role\":\"assistant\",\"content\":\"\"}]]"));
      event_push_frame (event, frame_generating (id, "[[[\"append\",[1,\"content\"],\"Hel\"]]]"));
      event_push_frame (event, frame_generating (id,
        "[[[\"append\",[1,\"content\"],\"lo\"],[\"add\",[2],{\"role\":\"user\",\"content\":\"and?\"}]]]"));
      event_push_frame (event, frame_generating (id, "[[]]"));
      event_push_frame (event, frame_generating (id,
        "[[[\"add\",[3],{\"role\":\"assistant\",\"content\":\"\",\"metadata\":{\"title\":\"thinking\"}}],"
        "[\"delete\",[0],null]]]"));
      event_push_frame (event, frame_generating (id,
        "[[[\"replace\",[2,\"content\"],\"done\"],[\"delete\",[2,\"metadata\"],null],"
        "[\"add\",[0,\"options\"],[{\"value\":\"a\"},{\"value\":\"b\"}]]]]"));
      event_push_frame (event, frame_generating (id,
        "[[[\"add\",[0,\"options\",0],{\"value\":\"z\"}],[\"delete\",[0,\"options\",1],null],"
        "[\"append\",[0,\"content\"],\"!\"]]]"));
      event_push_step (event, STEP_HOLD, 0);
      event_push_frame (event, frame_completed (id,
        "[[{\"role\":\"assistant\",\"content\":\"Hello!\",\"options\":[{\"value\":\"z\"},{\"value\":\"b\"}]},"
        "{\"role\":\"user\",\"content\":\"and?\"},{\"role\":\"assistant\",\"content\":\"done\"}]]"));
      break;

    case FN_GREET:
      {
        JsonNode *name = json_array_get_length (data) > 1 ? json_array_get_element (data, 1) : NULL;
        const char *text = name != NULL && JSON_NODE_HOLDS_VALUE (name) ? json_node_get_string (name) : NULL;
        g_autofree char *greeting = g_strdup_printf ("Hello, %s!", text != NULL ? text : "?");
        g_autofree char *quoted = json_quote (greeting);
        g_autofree char *out = g_strdup_printf ("[%s,null]", quoted);

        event_push_frame (event, frame_completed (id, out));
      }
      break;

    default:
      g_assert_not_reached ();
    }
}

static gboolean
early_gate_cb (gpointer user_data)
{
  SoupServerMessage *msg = user_data;
  Fake *fake = g_object_get_data (G_OBJECT (msg), "fake");
  guint64 target = GPOINTER_TO_SIZE (g_object_get_data (G_OBJECT (msg), "target"));
  double deadline = *(double *) g_object_get_data (G_OBJECT (msg), "deadline");

  if (riv_client_get_n_messages (fake->client) >= target)
    fake->n_early_by_count++;
  else if (g_get_monotonic_time () / 1e6 < deadline)
    return G_SOURCE_CONTINUE;

  g_ptr_array_remove (fake->paused, msg);
  soup_server_message_unpause (msg);
  return G_SOURCE_REMOVE;
}

static void
handle_join (Fake              *fake,
             SoupServerMessage *msg)
{
  g_autoptr(JsonNode) root = request_json (msg);
  JsonObject *body;
  JsonArray *data;
  const char *hash;
  FakeSession *session;
  FakeEvent *event;
  gint64 fn_index;
  g_autofree char *reply = NULL;
  g_autofree char *uuid = NULL;
  g_auto(GStrv) parts = NULL;
  gboolean early = FALSE;

  if (root == NULL || !JSON_NODE_HOLDS_OBJECT (root))
    {
      violation (fake, "queue/join body is not a JSON object");
      reply_detail (msg, 422, "Invalid JSON body");
      return;
    }
  g_ptr_array_add (fake->joins, json_node_ref (root));
  body = json_node_get_object (root);

  for (guint i = 0; i < 3; i++)
    {
      static const char *internal[] = { "event_id", "simple_format", "batched" };
      if (json_object_has_member (body, internal[i]))
        violation (fake, "queue/join body carries server-internal field \"%s\"", internal[i]);
    }

  hash = json_object_has_member (body, "session_hash") ?
         json_node_get_string (json_object_get_member (body, "session_hash")) : NULL;
  if (hash == NULL || hash[0] == '\0')
    {
      violation (fake, "queue/join without session_hash");
      reply_detail (msg, 400, "Session hash not found.");
      return;
    }
  if (!json_object_has_member (body, "fn_index") ||
      json_node_get_value_type (json_object_get_member (body, "fn_index")) != G_TYPE_INT64)
    {
      violation (fake, "queue/join without an integer fn_index");
      reply_detail (msg, 400, "No function index provided.");
      return;
    }
  fn_index = json_object_get_int_member (body, "fn_index");
  if (fn_index < 0 || fn_index >= FN_GREET + 1)
    {
      violation (fake, "queue/join for fn_index %" G_GINT64_FORMAT, fn_index);
      reply_detail (msg, 404, "Function not found");
      return;
    }
  if (!json_object_has_member (body, "data") ||
      !JSON_NODE_HOLDS_ARRAY (json_object_get_member (body, "data")))
    {
      violation (fake, "queue/join without a data array");
      reply_detail (msg, 422, "Field required: data");
      return;
    }
  data = json_object_get_array_member (body, "data");
  if (json_array_get_length (data) != fn_n_inputs[fn_index])
    violation (fake, "queue/join for fn %" G_GINT64_FORMAT " sent %u values for %u inputs",
               fn_index, json_array_get_length (data), fn_n_inputs[fn_index]);

  event = g_new0 (FakeEvent, 1);
  event->fake = fake;
  event->fn_index = fn_index;
  g_queue_init (&event->script);
  g_queue_init (&event->on_cancel);
  if (json_array_get_length (data) > 0)
    {
      JsonNode *first = json_array_get_element (data, 0);
      if (JSON_NODE_HOLDS_VALUE (first) && json_node_get_value_type (first) == G_TYPE_STRING)
        event->command = g_strdup (json_node_get_string (first));
    }

  /* Refusals happen before an event exists. */
  if (fn_index == FN_ECHO && g_strcmp0 (event->command, "full") == 0)
    {
      event_free (event);
      reply_detail (msg, SOUP_STATUS_SERVICE_UNAVAILABLE, "Queue is full. Max size is 2 and size is 2.");
      return;
    }
  if (fn_index == FN_ECHO && g_strcmp0 (event->command, "invalid") == 0)
    {
      event_free (event);
      reply_detail (msg, 422, "Value 500 is greater than maximum value 50.");
      return;
    }
  if (fn_index == FN_ECHO && g_strcmp0 (event->command, "invalid-list") == 0)
    {
      event_free (event);
      riv_test_reply_json (msg, 422, "{\"detail\":[{\"type\":\"missing\",\"loc\":[\"body\",\"data\",0],"
                                     "\"msg\":\"Field required\",\"input\":null}]}");
      return;
    }

  session = fake_session (fake, hash, TRUE);
  event->session = session;
  uuid = g_uuid_string_random ();
  parts = g_strsplit (uuid, "-", -1);
  event->id = g_strjoinv ("", parts);
  g_hash_table_insert (fake->events, event->id, event);

  /* Close_stream crossing a join: the earlier event completes now; the
   * pending set empties before this join is added, so close_stream is
   * decided and on its way, while this event's join reply goes out too. */
  if (g_strcmp0 (event->command, "cross") == 0 && fake->cross_target != NULL)
    {
      FakeEvent *target = g_steal_pointer (&fake->cross_target);
      fake_release (target);
    }

  /* Gradio: the id joins the pending set, and the first estimation is
   * queued, before the join is answered. */
  g_hash_table_add (session->pending, g_strdup (event->id));
  session_send (session, frame_estimation (event->id, 0, 1));

  build_script (event, data);

  if (g_strcmp0 (event->command, "early") == 0 && session->writer != NULL && fake->client != NULL)
    {
      /* Cached-result path: every message for the event is queued before the
       * join reply, and the stream is open, so they arrive first. */
      guint64 before = riv_client_get_n_messages (fake->client);
      double *deadline = g_new (double, 1);

      early = TRUE;
      event->started = TRUE;
      event_run (event);
      /* The client has read nothing since: estimation + process_starts +
       * process_completed are the next three frames it can count. */
      g_object_set_data (G_OBJECT (msg), "fake", fake);
      g_object_set_data (G_OBJECT (msg), "target", GSIZE_TO_POINTER (before + 3));
      *deadline = g_get_monotonic_time () / 1e6 + 2.0;
      g_object_set_data_full (G_OBJECT (msg), "deadline", deadline, g_free);
      /* A frame for an id nobody ever joined. */
      session_send (session, frame_progress ("00000000000000000000000000000000"));
    }

  reply = g_strdup_printf ("{\"event_id\":\"%s\"}", event->id);
  riv_test_reply_json (msg, SOUP_STATUS_OK, reply);

  if (early)
    {
      soup_server_message_pause (msg);
      g_ptr_array_add (fake->paused, msg);
      g_timeout_add (2, early_gate_cb, msg);
    }
  else
    {
      event->timer_id = g_timeout_add (5, event_start_cb, event);
    }
}

static void
handle_data (Fake              *fake,
             SoupServerMessage *msg,
             GHashTable        *query)
{
  const char *hash = query != NULL ? g_hash_table_lookup (query, "session_hash") : NULL;
  FakeSession *session = hash != NULL ? fake_session (fake, hash, FALSE) : NULL;
  SoupMessageHeaders *headers = soup_server_message_get_response_headers (msg);
  SoupMessageBody *body = soup_server_message_get_response_body (msg);

  if (hash == NULL)
    {
      violation (fake, "queue/data without session_hash");
      reply_detail (msg, 422, "Field required: session_hash");
      return;
    }

  soup_server_message_set_status (msg, SOUP_STATUS_OK, NULL);
  soup_message_headers_set_content_type (headers, "text/event-stream", NULL);
  soup_message_headers_replace (headers, "Cache-Control", "no-cache");
  soup_message_headers_set_encoding (headers, SOUP_ENCODING_CHUNKED);
  soup_message_body_set_accumulate (body, FALSE);

  if (session == NULL)
    {
      /* Gradio: one error frame, then the connection is aborted. */
      violation (fake, "queue/data for unknown session %s", hash);
      writer_append (msg, "{\"msg\":\"unexpected_error\",\"event_id\":null,\"message\":\"404: Not Found\","
                          "\"session_not_found\":true,\"success\":false}");
      soup_message_body_complete (body);
      return;
    }
  if (session->writer != NULL)
    violation (fake, "a second queue/data stream for session %s while one is open", hash);

  session_detach (session);
  session->writer = msg;
  session->n_streams++;
  g_signal_connect (msg, "finished", G_CALLBACK (writer_finished_cb), session);
  if (fake->heartbeat_ms > 0)
    session->heartbeat_id = g_timeout_add (fake->heartbeat_ms, heartbeat_cb, session);
  session_flush (session);
}

static void
handle_cancel (Fake              *fake,
               SoupServerMessage *msg)
{
  g_autoptr(JsonNode) root = request_json (msg);
  JsonObject *body = root != NULL && JSON_NODE_HOLDS_OBJECT (root) ? json_node_get_object (root) : NULL;
  const char *id;
  FakeEvent *event;

  if (body == NULL || !json_object_has_member (body, "event_id") ||
      !json_object_has_member (body, "session_hash") || !json_object_has_member (body, "fn_index"))
    {
      /* Gradio's CancelBody requires all three (422 otherwise). */
      violation (fake, "cancel body lacks event_id, session_hash or fn_index");
      reply_detail (msg, 422, "Field required");
      return;
    }
  g_ptr_array_add (fake->cancels, json_node_ref (root));
  id = json_object_get_string_member_with_default (body, "event_id", "");
  event = g_hash_table_lookup (fake->events, id);
  if (event != NULL)
    {
      FakeSession *session = event->session;

      if (g_strcmp0 (json_object_get_string_member_with_default (body, "session_hash", ""),
                     session->hash) != 0)
        violation (fake, "cancel names the wrong session");
      if (json_object_get_int_member_with_default (body, "fn_index", -1) != event->fn_index)
        violation (fake, "cancel names the wrong fn_index");

      /* Stop the task; if the id is still pending, queue output {}. */
      g_clear_handle_id (&event->timer_id, g_source_remove);
      g_queue_clear_full (&event->script, (GDestroyNotify) step_free);
      event->held = FALSE;
      if (g_hash_table_contains (session->pending, id))
        {
          if (g_queue_is_empty (&event->on_cancel))
            g_queue_push_tail (&event->on_cancel, frame_cancelled (id));
          while (!g_queue_is_empty (&event->on_cancel))
            g_queue_push_tail (&session->fifo, g_queue_pop_head (&event->on_cancel));
          session_flush (session);
        }
    }
  riv_test_reply_json (msg, SOUP_STATUS_OK, "{\"success\":true}");
}

static void
handle_file (Fake              *fake,
             SoupServerMessage *msg,
             const char        *file_path,
             GHashTable        *query)
{
  fake->n_file_requests++;
  if (query != NULL && g_hash_table_contains (query, "__sign"))
    fake->n_signed_file_requests++;
  if (g_strcmp0 (file_path, FAKE_FILE_PATH) != 0)
    {
      g_autofree char *text = g_strdup_printf ("File not allowed: %s.", file_path);
      reply_detail (msg, 403, text);
      return;
    }
  soup_message_headers_replace (soup_server_message_get_response_headers (msg),
                                "Accept-Ranges", "bytes");
  soup_server_message_set_status (msg, SOUP_STATUS_OK, NULL);
  soup_server_message_set_response (msg, "image/png", SOUP_MEMORY_COPY,
                                    g_bytes_get_data (fake->png, NULL), g_bytes_get_size (fake->png));
}

static void
fake_handler (SoupServer        *server,
              SoupServerMessage *msg,
              const char        *raw_path,
              GHashTable        *query,
              gpointer           user_data)
{
  Fake *fake = user_data;
  const char *method = soup_server_message_get_method (msg);
  g_autofree char *path = g_uri_unescape_string (raw_path, NULL);
  const char *rest;
  const char *api;
  gsize mount_len = strlen (fake->mount);
  gsize prefix_len = strlen (fake->shape->prefix);

  g_ptr_array_add (fake->requests, g_strdup_printf ("%s %s", method, raw_path));

  if (path == NULL)
    {
      reply_detail (msg, 400, "Bad path");
      return;
    }

  /* A front page outside the mount point only answers /config, like a
   * reverse proxy that exposes the app's config there. */
  if (mount_len > 0 && !g_str_has_prefix (path, fake->mount))
    {
      if (g_str_equal (path, "/config") && g_str_equal (method, "GET"))
        handle_config (fake, msg);
      else
        {
          violation (fake, "request outside the app root: %s %s", method, raw_path);
          reply_detail (msg, 404, "Not Found");
        }
      return;
    }
  rest = path + mount_len;

  if (g_str_equal (rest, "/config") || g_str_equal (rest, "/config/"))
    {
      handle_config (fake, msg);
      return;
    }
  if (prefix_len > 0 && !g_str_has_prefix (rest, fake->shape->prefix))
    {
      violation (fake, "request without the api prefix: %s %s", method, raw_path);
      reply_detail (msg, 404, "Not Found");
      return;
    }
  api = rest + prefix_len;

  if (g_str_equal (api, "/info") && g_str_equal (method, "GET"))
    handle_info (fake, msg);
  else if (g_str_equal (api, "/queue/join") && g_str_equal (method, "POST"))
    handle_join (fake, msg);
  else if (g_str_equal (api, "/queue/data") && g_str_equal (method, "GET"))
    handle_data (fake, msg, query);
  else if (g_str_equal (api, "/cancel") && g_str_equal (method, "POST"))
    handle_cancel (fake, msg);
  else if (g_str_equal (api, "/reset") && g_str_equal (method, "POST"))
    riv_test_reply_json (msg, SOUP_STATUS_OK, "{\"success\":true}");
  else if (g_str_has_prefix (api, "/heartbeat/") && g_str_equal (method, "GET"))
    reply_detail (msg, 404, "heartbeat is not used by this config");
  else if (g_str_has_prefix (api, "/file=") &&
           (g_str_equal (method, "GET") || g_str_equal (method, "HEAD")))
    handle_file (fake, msg, api + strlen ("/file="), query);
  else
    {
      violation (fake, "unexpected request %s %s", method, raw_path);
      reply_detail (msg, 404, "Not Found");
    }
}

static Fake *
fake_new (const Shape *shape,
          const char  *mount)
{
  Fake *fake = g_new0 (Fake, 1);
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonParser) parser = json_parser_new ();
  g_autofree char *text = NULL;
  g_autofree char *png = NULL;
  gsize len = 0;
  GSList *uris;

  fake->shape = shape;
  fake->mount = g_strdup (mount != NULL ? mount : "");
  fake->sessions = g_hash_table_new_full (g_str_hash, g_str_equal, NULL, (GDestroyNotify) session_free);
  fake->events = g_hash_table_new_full (g_str_hash, g_str_equal, NULL, (GDestroyNotify) event_free);
  fake->requests = g_ptr_array_new_with_free_func (g_free);
  fake->violations = g_ptr_array_new_with_free_func (g_free);
  fake->joins = g_ptr_array_new_with_free_func ((GDestroyNotify) json_node_unref);
  fake->cancels = g_ptr_array_new_with_free_func ((GDestroyNotify) json_node_unref);
  fake->paused = g_ptr_array_new ();

  text = riv_test_load_data (shape->fixture, &len);
  json_parser_load_from_data (parser, text, len, &error);
  g_assert_no_error (error);
  fake->config = json_node_ref (json_parser_get_root (parser));

  png = riv_test_load_data ("gradio-pixel.png", &len);
  fake->png = g_bytes_new (png, len);

  fake->server = soup_server_new ("server-header", "uvicorn", NULL);
  soup_server_add_handler (fake->server, NULL, fake_handler, fake, NULL);
  soup_server_listen_local (fake->server, 0, SOUP_SERVER_LISTEN_IPV4_ONLY, &error);
  g_assert_no_error (error);
  uris = soup_server_get_uris (fake->server);
  g_assert_nonnull (uris);
  fake->base = g_strdup_printf ("http://127.0.0.1:%d", g_uri_get_port (uris->data));
  g_slist_free_full (uris, (GDestroyNotify) g_uri_unref);
  fake->root = g_strconcat (fake->base, fake->mount, NULL);
  return fake;
}

/* Scenario checks that hold for every test. */
static void
fake_assert_clean (Fake *fake)
{
  for (guint i = 0; i < fake->violations->len; i++)
    g_printerr ("violation: %s\n", (char *) g_ptr_array_index (fake->violations, i));
  g_assert_cmpuint (fake->violations->len, ==, 0);
}

static void
fake_free (Fake *fake)
{
  GHashTableIter iter;
  gpointer value;

  /* Stop event scripts first: they could write into sessions. */
  g_hash_table_iter_init (&iter, fake->events);
  while (g_hash_table_iter_next (&iter, NULL, &value))
    {
      FakeEvent *event = value;
      g_clear_handle_id (&event->timer_id, g_source_remove);
    }
  for (guint i = 0; i < fake->paused->len; i++)
    {
      SoupServerMessage *msg = g_ptr_array_index (fake->paused, i);
      g_source_remove_by_user_data (msg);
    }
  g_hash_table_iter_init (&iter, fake->sessions);
  while (g_hash_table_iter_next (&iter, NULL, &value))
    {
      FakeSession *session = value;
      g_clear_handle_id (&session->close_poll_id, g_source_remove);
      g_clear_handle_id (&session->heartbeat_id, g_source_remove);
      if (session->writer != NULL)
        g_signal_handlers_disconnect_by_data (session->writer, session);
      session->writer = NULL;
    }
  soup_server_disconnect (fake->server);
  g_clear_object (&fake->server);
  g_hash_table_unref (fake->events);
  g_hash_table_unref (fake->sessions);
  g_ptr_array_unref (fake->requests);
  g_ptr_array_unref (fake->violations);
  g_ptr_array_unref (fake->joins);
  g_ptr_array_unref (fake->cancels);
  g_ptr_array_unref (fake->paused);
  g_bytes_unref (fake->png);
  json_node_unref (fake->config);
  g_free (fake->protocol);
  g_free (fake->base);
  g_free (fake->mount);
  g_free (fake->root);
  g_free (fake);
}

/* The single session the client used. */
static FakeSession *
fake_only_session (Fake *fake)
{
  GHashTableIter iter;
  gpointer value = NULL;

  g_assert_cmpuint (g_hash_table_size (fake->sessions), ==, 1);
  g_hash_table_iter_init (&iter, fake->sessions);
  g_hash_table_iter_next (&iter, NULL, &value);
  return value;
}

static FakeEvent *
fake_event_for (Fake   *fake,
                RivJob *job)
{
  const char *id = riv_job_get_event_id (job);

  g_assert_nonnull (id);
  return g_hash_table_lookup (fake->events, id);
}

/* ------------------------------------------------------------------------ */
/* Client helpers                                                            */

typedef struct
{
  Fake      *fake;
  RivClient *client;
} Ctx;

static RivClient *
client_connect (const char *url)
{
  RivClient *client = riv_client_new (url);
  GAsyncResult *result = NULL;
  g_autoptr(GError) error = NULL;

  riv_client_connect_async (client, NULL, riv_test_async_result_cb, &result);
  riv_test_wait_result (&result, WAIT_S);
  riv_client_connect_finish (client, result, &error);
  g_assert_no_error (error);
  g_object_unref (result);
  return client;
}

static void
ctx_init (Ctx         *ctx,
          const Shape *shape,
          const char  *mount)
{
  ctx->fake = fake_new (shape, mount);
  ctx->client = client_connect (ctx->fake->root);
  ctx->fake->client = ctx->client;
}

static void
ctx_clear (Ctx *ctx)
{
  if (ctx->client != NULL)
    {
      riv_client_close (ctx->client);
      g_clear_object (&ctx->client);
    }
  if (ctx->fake != NULL)
    {
      ctx->fake->client = NULL;
      fake_assert_clean (ctx->fake);
      fake_free (ctx->fake);
      ctx->fake = NULL;
    }
  /* Let cancelled I/O settle before the next test. */
  while (g_main_context_iteration (NULL, FALSE))
    ;
}

static RivJob *
submit_text (Ctx        *ctx,
             const char *endpoint,
             const char *text)
{
  g_autoptr(JsonNode) data = json_from_string (text, NULL);
  g_autoptr(GError) error = NULL;
  RivJob *job;

  g_assert_nonnull (data);
  job = riv_client_submit (ctx->client, endpoint, data, &error);
  g_assert_no_error (error);
  g_assert_nonnull (job);
  return job;
}

static gboolean
job_done_cb (gpointer user_data)
{
  return riv_job_is_finished (RIV_JOB (user_data));
}

static gboolean
job_held_cb (gpointer user_data)
{
  RivJob *job = user_data;
  Ctx *ctx = g_object_get_data (G_OBJECT (job), "ctx");
  FakeEvent *event;

  if (riv_job_get_event_id (job) == NULL)
    return FALSE;
  event = g_hash_table_lookup (ctx->fake->events, riv_job_get_event_id (job));
  return event != NULL && event->held;
}

static void
wait_done (RivJob *job)
{
  riv_test_wait_until (job_done_cb, job, WAIT_S);
  if (!riv_job_is_finished (job))
    g_error ("job %u (%s) still %s after %.0f s", riv_job_get_number (job),
             riv_job_get_endpoint (job), riv_job_status_to_string (riv_job_get_status (job)), WAIT_S);
}

/* Waits until the fake holds the job at a HOLD step (it is running). */
static void
wait_held (Ctx    *ctx,
           RivJob *job)
{
  g_object_set_data (G_OBJECT (job), "ctx", ctx);
  riv_test_wait_until (job_held_cb, job, WAIT_S);
  g_assert_true (job_held_cb (job));
}

static void
assert_status (RivJob       *job,
               RivJobStatus  expected)
{
  RivJobStatus status = riv_job_get_status (job);

  if (status != expected)
    g_error ("job %u: expected %s, got %s (error: %s)", riv_job_get_number (job),
             riv_job_status_to_string (expected), riv_job_status_to_string (status),
             riv_job_get_error (job) != NULL ? riv_job_get_error (job) : "none");
}

static gboolean
no_pending_cb (gpointer user_data)
{
  return riv_client_get_n_pending (RIV_CLIENT (user_data)) == 0;
}

static void
assert_nothing_pending (Ctx *ctx)
{
  riv_test_wait_until (no_pending_cb, ctx->client, 5.0);
  g_assert_cmpuint (riv_client_get_n_pending (ctx->client), ==, 0);
}

static void
assert_outputs_json (RivJob     *job,
                     const char *expected_json)
{
  g_autoptr(JsonNode) expected = json_from_string (expected_json, NULL);
  JsonNode *outputs = riv_job_get_outputs (job);

  g_assert_nonnull (expected);
  g_assert_nonnull (outputs);
  if (!json_node_equal (outputs, expected))
    {
      g_autofree char *got = json_to_string (outputs, FALSE);
      g_error ("outputs differ:\n  expected %s\n  got      %s", expected_json, got);
    }
}

typedef struct
{
  RivJob   *job;
  JsonNode *want;
} OutputsWait;

static gboolean
outputs_equal_cb (gpointer user_data)
{
  OutputsWait *wait = user_data;
  JsonNode *outputs = riv_job_get_outputs (wait->job);

  return outputs != NULL && json_node_equal (outputs, wait->want);
}

/* Waits until the job's outputs equal expected_json, then asserts it. */
static void
wait_outputs (RivJob     *job,
              const char *expected_json)
{
  g_autoptr(JsonNode) want = json_from_string (expected_json, NULL);
  OutputsWait wait = { job, want };

  g_assert_nonnull (want);
  riv_test_wait_until (outputs_equal_cb, &wait, WAIT_S);
  assert_outputs_json (job, expected_json);
}

static gboolean
stream_open_cb (gpointer user_data)
{
  Fake *fake = user_data;

  return g_hash_table_size (fake->sessions) == 1 && fake_only_session (fake)->writer != NULL;
}

/* Waits until the client has a queue/data stream attached. */
static void
wait_stream_open (Ctx *ctx)
{
  riv_test_wait_until (stream_open_cb, ctx->fake, WAIT_S);
  g_assert_true (stream_open_cb (ctx->fake));
}

static JsonObject *
join_body (Fake *fake,
           guint index)
{
  g_assert_cmpuint (index, <, fake->joins->len);
  return json_node_get_object (g_ptr_array_index (fake->joins, index));
}

/* ------------------------------------------------------------------------ */
/* Scenarios                                                                 */

/* "gen": "a", then an append and a replace at path [] (sse_v2+), or full
 * values (sse_v1); the client's value before the completion must be "abc". */
static void
check_gen (Ctx *ctx)
{
  g_autoptr(RivJob) gen = submit_text (ctx, "echo", "[\"gen\"]");

  wait_held (ctx, gen);
  wait_outputs (gen, "[\"abc\"]");
  g_assert_false (riv_job_is_finished (gen));
  fake_release (fake_event_for (ctx->fake, gen));
  wait_done (gen);
  assert_status (gen, RIV_JOB_STATUS_COMPLETED);
  g_assert_cmpstr (riv_job_get_output_text (gen), ==, "abc");
}

/* Basic: discovery by shape, one echo job, the join body's shape. */
static void
test_basic (gconstpointer data)
{
  const Shape *shape = data;
  Ctx ctx = { 0 };
  g_autoptr(RivJob) job = NULL;
  RivConfig *config;
  RivEndpoint *greet;
  JsonObject *body;

  ctx_init (&ctx, shape, NULL);
  config = riv_client_get_config (ctx.client);
  g_assert_nonnull (config);
  g_assert_cmpstr (riv_config_get_api_prefix (config), ==, shape->prefix);
  g_assert_cmpstr (riv_config_get_root (config), ==, ctx.fake->root);
  /* Gradio 4 dependencies have no "id": the array index is the fn_index. */
  g_assert_cmpint (riv_config_find_endpoint (config, "chat")->fn_index, ==, FN_CHAT);
  g_assert_true (riv_config_find_endpoint (config, "/chat")->generator);
  greet = riv_config_find_endpoint (config, "greet");
  g_assert_nonnull (greet);
  g_assert_cmpint (greet->fn_index, ==, FN_GREET);
  g_assert_cmpuint (riv_endpoint_get_n_inputs (greet), ==, 2);

  job = submit_text (&ctx, "echo", "[\"hello gradio\"]");
  wait_done (job);
  assert_status (job, RIV_JOB_STATUS_COMPLETED);
  g_assert_cmpstr (riv_job_get_output_text (job), ==, "hello gradio");
  assert_outputs_json (job, "[\"hello gradio\"]");

  g_assert_cmpuint (ctx.fake->joins->len, ==, 1);
  body = join_body (ctx.fake, 0);
  g_assert_cmpint (json_object_get_int_member (body, "fn_index"), ==, FN_ECHO);
  g_assert_cmpstr (json_object_get_string_member (body, "session_hash"), ==,
                   riv_client_get_session_hash (ctx.client));
  g_assert_cmpstr (fake_only_session (ctx.fake)->hash, ==, riv_client_get_session_hash (ctx.client));

  /* A generator whose later yields are edits at the root path. */
  check_gen (&ctx);
  assert_nothing_pending (&ctx);
  ctx_clear (&ctx);
}

/* Messages for an event arrive on the open stream before its join reply. */
static void
test_early_messages (gconstpointer data)
{
  const Shape *shape = data;
  Ctx ctx = { 0 };
  g_autoptr(RivJob) holder = NULL;
  g_autoptr(RivJob) early = NULL;

  ctx_init (&ctx, shape, NULL);
  holder = submit_text (&ctx, "echo", "[\"hold\"]");
  wait_held (&ctx, holder);
  wait_stream_open (&ctx);

  early = submit_text (&ctx, "echo", "[\"early\"]");
  wait_done (early);
  assert_status (early, RIV_JOB_STATUS_COMPLETED);
  g_assert_cmpstr (riv_job_get_output_text (early), ==, "early");
  g_assert_false (riv_job_is_finished (holder));
  /* The join reply really went out after the client had read the frames. */
  g_assert_cmpuint (ctx.fake->n_early_by_count, ==, 1);

  fake_release (fake_event_for (ctx.fake, holder));
  wait_done (holder);
  assert_status (holder, RIV_JOB_STATUS_COMPLETED);
  g_assert_cmpstr (riv_job_get_output_text (holder), ==, "held and done");
  /* One stream served both. */
  g_assert_cmpuint (fake_only_session (ctx.fake)->n_streams, ==, 1);
  assert_nothing_pending (&ctx);
  ctx_clear (&ctx);
}

/* progress trails process_completed, on the same stream and on the next. */
static void
test_trailing_progress (gconstpointer data)
{
  const Shape *shape = data;
  Ctx ctx = { 0 };
  g_autoptr(RivJob) holder = NULL;
  g_autoptr(RivJob) trail = NULL;
  g_autoptr(RivJob) trail2 = NULL;
  g_autoptr(RivJob) next = NULL;

  ctx_init (&ctx, shape, NULL);

  /* Same stream: another job keeps it open. */
  holder = submit_text (&ctx, "echo", "[\"hold\"]");
  wait_held (&ctx, holder);
  wait_stream_open (&ctx);
  trail = submit_text (&ctx, "echo", "[\"trail\"]");
  wait_done (trail);
  fake_release (fake_event_for (ctx.fake, holder));
  wait_done (holder);
  assert_status (trail, RIV_JOB_STATUS_COMPLETED);
  g_assert_cmpstr (riv_job_get_output_text (trail), ==, "trail done");
  assert_status (holder, RIV_JOB_STATUS_COMPLETED);

  /* Next stream: the completion empties the set, close_stream follows at
   * once and the progress frame stays in the FIFO for the next GET. */
  trail2 = submit_text (&ctx, "echo", "[\"trail\"]");
  wait_done (trail2);
  assert_status (trail2, RIV_JOB_STATUS_COMPLETED);
  next = submit_text (&ctx, "echo", "[\"after trail\"]");
  wait_done (next);
  assert_status (next, RIV_JOB_STATUS_COMPLETED);
  g_assert_cmpstr (riv_job_get_output_text (next), ==, "after trail");
  /* The stale progress changed nothing. */
  assert_status (trail2, RIV_JOB_STATUS_COMPLETED);
  g_assert_cmpstr (riv_job_get_output_text (trail2), ==, "trail done");
  assert_outputs_json (trail2, "[\"trail done\"]");
  assert_nothing_pending (&ctx);
  ctx_clear (&ctx);
}

/* Cancel answered Gradio's way (output {}), racing a real completion. */
static void
test_duplicate_completion_after_cancel (gconstpointer data)
{
  const Shape *shape = data;
  Ctx ctx = { 0 };
  g_autoptr(RivJob) holder = NULL;
  g_autoptr(RivJob) dup = NULL;
  g_autoptr(RivJob) dup2 = NULL;
  g_autoptr(RivJob) next = NULL;
  JsonObject *cancel;

  ctx_init (&ctx, shape, NULL);
  holder = submit_text (&ctx, "echo", "[\"hold\"]");
  wait_held (&ctx, holder);
  wait_stream_open (&ctx);

  /* Both completions on the open stream. */
  dup = submit_text (&ctx, "echo", "[\"dup\"]");
  wait_held (&ctx, dup);
  riv_client_cancel (ctx.client, dup);
  wait_done (dup);
  assert_status (dup, RIV_JOB_STATUS_CANCELLED);
  g_assert_cmpuint (ctx.fake->cancels->len, ==, 1);
  cancel = json_node_get_object (g_ptr_array_index (ctx.fake->cancels, 0));
  g_assert_cmpstr (json_object_get_string_member (cancel, "event_id"), ==, riv_job_get_event_id (dup));

  fake_release (fake_event_for (ctx.fake, holder));
  wait_done (holder);
  assert_status (holder, RIV_JOB_STATUS_COMPLETED);
  assert_status (dup, RIV_JOB_STATUS_CANCELLED);

  /* Alone: the first completion closes the stream, the duplicate is
   * delivered at the start of the next one. */
  dup2 = submit_text (&ctx, "echo", "[\"dup\"]");
  wait_held (&ctx, dup2);
  riv_client_cancel (ctx.client, dup2);
  wait_done (dup2);
  assert_status (dup2, RIV_JOB_STATUS_CANCELLED);
  next = submit_text (&ctx, "echo", "[\"after dup\"]");
  wait_done (next);
  assert_status (next, RIV_JOB_STATUS_COMPLETED);
  g_assert_cmpstr (riv_job_get_output_text (next), ==, "after dup");
  assert_status (dup2, RIV_JOB_STATUS_CANCELLED);
  assert_nothing_pending (&ctx);
  ctx_clear (&ctx);
}

static gboolean
cross_gate (gpointer data)
{
  RivJob **slot = data;

  return *slot != NULL && riv_job_get_event_id (*slot) != NULL;
}

/* close_stream is in flight when the client learns about a new event. */
static void
test_close_stream_crossing_join (gconstpointer data)
{
  const Shape *shape = data;
  Ctx ctx = { 0 };
  g_autoptr(RivJob) first = NULL;
  g_autoptr(RivJob) second = NULL;

  ctx_init (&ctx, shape, NULL);
  first = submit_text (&ctx, "echo", "[\"hold\"]");
  wait_held (&ctx, first);
  wait_stream_open (&ctx);
  ctx.fake->cross_target = fake_event_for (ctx.fake, first);
  /* The close_stream frame is only written once the client has read the
   * join reply for the second job. */
  ctx.fake->close_gate = cross_gate;
  ctx.fake->close_gate_data = &second;
  second = submit_text (&ctx, "echo", "[\"cross\"]");

  wait_done (first);
  assert_status (first, RIV_JOB_STATUS_COMPLETED);
  wait_done (second);
  assert_status (second, RIV_JOB_STATUS_COMPLETED);
  g_assert_cmpstr (riv_job_get_output_text (second), ==, "cross");
  g_assert_null (ctx.fake->close_gate);
  g_assert_cmpuint (fake_only_session (ctx.fake)->n_streams, ==, 2);
  assert_nothing_pending (&ctx);
  ctx_clear (&ctx);
}

/* A response that ends without close_stream: with a job still running, and
 * after the last job. */
static void
test_stream_ends_without_close (gconstpointer data)
{
  const Shape *shape = data;
  Ctx ctx = { 0 };
  g_autoptr(RivJob) running = NULL;
  g_autoptr(RivJob) last = NULL;
  g_autoptr(RivJob) later = NULL;

  ctx_init (&ctx, shape, NULL);

  running = submit_text (&ctx, "echo", "[\"end-pending\"]");
  wait_held (&ctx, running);
  wait_stream_open (&ctx);
  /* End the response with the job still running: the client must come
   * back with a new GET by itself. */
  fake_release (fake_event_for (ctx.fake, running));
  g_assert_null (fake_only_session (ctx.fake)->writer);
  wait_stream_open (&ctx);
  g_assert_cmpuint (fake_only_session (ctx.fake)->n_streams, ==, 2);
  g_assert_false (riv_job_is_finished (running));
  /* The completion goes out on the new stream. */
  fake_release (fake_event_for (ctx.fake, running));
  wait_done (running);
  assert_status (running, RIV_JOB_STATUS_COMPLETED);
  g_assert_cmpstr (riv_job_get_output_text (running), ==, "after the reconnect");
  g_assert_cmpuint (fake_only_session (ctx.fake)->n_streams, >=, 2);

  ctx.fake->no_close_stream = TRUE;
  last = submit_text (&ctx, "echo", "[\"no close\"]");
  wait_done (last);
  assert_status (last, RIV_JOB_STATUS_COMPLETED);
  ctx.fake->no_close_stream = FALSE;

  later = submit_text (&ctx, "echo", "[\"later\"]");
  wait_done (later);
  assert_status (later, RIV_JOB_STATUS_COMPLETED);
  g_assert_cmpstr (riv_job_get_output_text (later), ==, "later");
  assert_nothing_pending (&ctx);
  ctx_clear (&ctx);
}

/* Gradio's stream exception path: unexpected_error, then the connection drops. */
static void
test_unexpected_error (gconstpointer data)
{
  const Shape *shape = data;
  Ctx ctx = { 0 };
  g_autoptr(RivJob) job = NULL;
  g_autoptr(RivJob) later = NULL;
  const char *error;

  ctx_init (&ctx, shape, NULL);
  job = submit_text (&ctx, "echo", "[\"abort\"]");
  wait_held (&ctx, job);
  wait_stream_open (&ctx);
  fake_release (fake_event_for (ctx.fake, job));
  wait_done (job);
  g_assert_true (riv_job_get_status (job) == RIV_JOB_STATUS_FAILED ||
                 riv_job_get_status (job) == RIV_JOB_STATUS_LOST);
  error = riv_job_get_error (job);
  g_assert_nonnull (error);
  g_test_message ("unexpected_error became: %s: %s",
                  riv_job_status_to_string (riv_job_get_status (job)), error);
  g_assert_nonnull (strstr (error, "boom in the queue"));
  assert_nothing_pending (&ctx);

  /* The client recovers for later jobs. */
  later = submit_text (&ctx, "echo", "[\"after the error\"]");
  wait_done (later);
  assert_status (later, RIV_JOB_STATUS_COMPLETED);
  g_assert_cmpstr (riv_job_get_output_text (later), ==, "after the error");
  assert_nothing_pending (&ctx);
  ctx_clear (&ctx);
}

/* Heartbeats keep a quiet job alive; silence beyond the liveness timeout
 * makes it lost with a clear error. */
static void
test_heartbeats_only (gconstpointer data)
{
  const Shape *shape = data;
  Ctx ctx = { 0 };
  g_autoptr(RivJob) job = NULL;
  gboolean never = FALSE;
  const char *error;

  ctx_init (&ctx, shape, NULL);
  ctx.fake->heartbeat_ms = 100;
  riv_client_set_liveness_timeout (ctx.client, 1.0);

  job = submit_text (&ctx, "echo", "[\"silent\"]");
  wait_held (&ctx, job);
  /* Several liveness periods of heartbeats only: still running. */
  riv_test_wait_for (&never, 3.0);
  g_assert_false (riv_job_is_finished (job));
  g_assert_cmpuint (ctx.fake->n_heartbeats, >, 3);

  /* Now the server goes quiet. */
  ctx.fake->heartbeat_ms = 0;
  wait_done (job);
  assert_status (job, RIV_JOB_STATUS_LOST);
  error = riv_job_get_error (job);
  g_assert_nonnull (error);
  g_assert_cmpuint (strlen (error), >, 10);
  g_test_message ("silent stream: %s", error);
  assert_nothing_pending (&ctx);
  ctx_clear (&ctx);
}

/* process_completed with success:false (error text, error null) and with output {}. */
static void
test_completed_failures (gconstpointer data)
{
  const Shape *shape = data;
  Ctx ctx = { 0 };
  g_autoptr(RivJob) fail = NULL;
  g_autoptr(RivJob) fail_null = NULL;
  g_autoptr(RivJob) empty = NULL;
  g_autoptr(RivJob) held = NULL;
  const char *error;

  ctx_init (&ctx, shape, NULL);

  fail = submit_text (&ctx, "echo", "[\"fail\"]");
  wait_done (fail);
  assert_status (fail, RIV_JOB_STATUS_FAILED);
  g_assert_nonnull (riv_job_get_error (fail));
  g_assert_nonnull (strstr (riv_job_get_error (fail), "boom from the server"));

  fail_null = submit_text (&ctx, "echo", "[\"fail-null\"]");
  wait_done (fail_null);
  assert_status (fail_null, RIV_JOB_STATUS_FAILED);
  error = riv_job_get_error (fail_null);
  g_assert_nonnull (error);
  g_assert_cmpuint (strlen (error), >, 0);
  g_test_message ("error null became: %s", error);

  /* output {} without a cancel from us (another tab cancelled it). */
  empty = submit_text (&ctx, "echo", "[\"empty\"]");
  wait_done (empty);
  assert_status (empty, RIV_JOB_STATUS_CANCELLED);

  /* Our own cancel, answered with Gradio's output {}. */
  held = submit_text (&ctx, "echo", "[\"hold\"]");
  wait_held (&ctx, held);
  riv_client_cancel (ctx.client, held);
  wait_done (held);
  assert_status (held, RIV_JOB_STATUS_CANCELLED);
  g_assert_cmpuint (ctx.fake->cancels->len, ==, 1);
  assert_nothing_pending (&ctx);
  ctx_clear (&ctx);
}

typedef struct
{
  GPtrArray *snapshots;   /* char* JSON of every outputs value seen */
} Recorder;

static void
outputs_notify_cb (RivJob     *job,
                   GParamSpec *pspec,
                   Recorder   *rec)
{
  JsonNode *outputs = riv_job_get_outputs (job);

  if (outputs != NULL)
    g_ptr_array_add (rec->snapshots, json_to_string (outputs, FALSE));
}

/* Nested add/delete/append/replace edits on a chatbot history. */
static void
test_nested_diffs (gconstpointer data)
{
  static const char *expected[] = {
    "[[{\"role\":\"user\",\"content\":\"hi\"},{\"role\":\"assistant\",\"content\":\"\"}]]",
    "[[{\"role\":\"user\",\"content\":\"hi\"},{\"role\":\"assistant\",\"content\":\"Hel\"}]]",
    "[[{\"role\":\"user\",\"content\":\"hi\"},{\"role\":\"assistant\",\"content\":\"Hello\"},"
      "{\"role\":\"user\",\"content\":\"and?\"}]]",
    "[[{\"role\":\"assistant\",\"content\":\"Hello\"},{\"role\":\"user\",\"content\":\"and?\"},"
      "{\"role\":\"assistant\",\"content\":\"\",\"metadata\":{\"title\":\"thinking\"}}]]",
    "[[{\"role\":\"assistant\",\"content\":\"Hello\",\"options\":[{\"value\":\"a\"},{\"value\":\"b\"}]},"
      "{\"role\":\"user\",\"content\":\"and?\"},{\"role\":\"assistant\",\"content\":\"done\"}]]",
    "[[{\"role\":\"assistant\",\"content\":\"Hello!\",\"options\":[{\"value\":\"z\"},{\"value\":\"b\"}]},"
      "{\"role\":\"user\",\"content\":\"and?\"},{\"role\":\"assistant\",\"content\":\"done\"}]]",
  };
  const Shape *shape = data;
  Ctx ctx = { 0 };
  g_autoptr(RivJob) job = NULL;
  Recorder rec = { g_ptr_array_new_with_free_func (g_free) };
  guint next = 0;

  ctx_init (&ctx, shape, NULL);
  job = submit_text (&ctx, "chat", "[\"hi\"]");
  g_signal_connect (job, "notify::outputs", G_CALLBACK (outputs_notify_cb), &rec);
  wait_held (&ctx, job);

  /* Before the completion (the fake holds it back): the value the client
   * rebuilt from the edits is the last yield. */
  wait_outputs (job, expected[G_N_ELEMENTS (expected) - 1]);
  g_assert_false (riv_job_is_finished (job));

  /* Every value seen was one of the yields, in order (a client may coalesce
   * updates, but never show a value that was not yielded). */
  g_assert_cmpuint (rec.snapshots->len, >, 0);
  for (guint i = 0; i < rec.snapshots->len; i++)
    {
      g_autoptr(JsonNode) seen = json_from_string (g_ptr_array_index (rec.snapshots, i), NULL);
      guint j;

      for (j = next; j < G_N_ELEMENTS (expected); j++)
        {
          g_autoptr(JsonNode) want = json_from_string (expected[j], NULL);
          if (json_node_equal (seen, want))
            break;
        }
      if (j == G_N_ELEMENTS (expected))
        g_error ("update %u is not one of the yields in order: %s", i,
                 (char *) g_ptr_array_index (rec.snapshots, i));
      next = j;
    }

  fake_release (fake_event_for (ctx.fake, job));
  wait_done (job);
  assert_status (job, RIV_JOB_STATUS_COMPLETED);
  assert_outputs_json (job, expected[G_N_ELEMENTS (expected) - 1]);
  g_signal_handlers_disconnect_by_data (job, &rec);
  g_ptr_array_unref (rec.snapshots);
  assert_nothing_pending (&ctx);
  ctx_clear (&ctx);
}

/* A state input goes out as null; the state output placeholder is harmless. */
static void
test_state_components (gconstpointer data)
{
  const Shape *shape = data;
  Ctx ctx = { 0 };
  g_autoptr(RivJob) job = NULL;
  JsonArray *sent;
  JsonNode *outputs;

  ctx_init (&ctx, shape, NULL);
  job = submit_text (&ctx, "greet", "[null, \"Ada\"]");
  wait_done (job);
  assert_status (job, RIV_JOB_STATUS_COMPLETED);
  g_assert_cmpstr (riv_job_get_output_text (job), ==, "Hello, Ada!");
  outputs = riv_job_get_outputs (job);
  g_assert_true (JSON_NODE_HOLDS_ARRAY (outputs));
  g_assert_cmpstr (json_array_get_string_element (json_node_get_array (outputs), 0), ==, "Hello, Ada!");

  g_assert_cmpuint (ctx.fake->joins->len, ==, 1);
  sent = json_object_get_array_member (join_body (ctx.fake, 0), "data");
  g_assert_cmpuint (json_array_get_length (sent), ==, 2);
  g_assert_true (JSON_NODE_HOLDS_NULL (json_array_get_element (sent, 0)));
  g_assert_cmpstr (json_array_get_string_element (sent, 1), ==, "Ada");
  assert_nothing_pending (&ctx);
  ctx_clear (&ctx);
}

static gboolean
job_has_image_cb (gpointer user_data)
{
  return riv_job_get_image (RIV_JOB (user_data)) != NULL;
}

/* FileData with a url, and with only a path (the client builds ROOT+P+/file=). */
static void
test_file_outputs (gconstpointer data)
{
  const Shape *shape = data;
  const char *variants[] = { "[\"url\"]", "[\"path\"]" };
  Ctx ctx = { 0 };

  ctx_init (&ctx, shape, NULL);
  for (guint i = 0; i < G_N_ELEMENTS (variants); i++)
    {
      g_autoptr(RivJob) job = NULL;
      guint files_before = ctx.fake->n_file_requests;
      GBytes *image;

      job = submit_text (&ctx, "image", variants[i]);
      wait_done (job);
      assert_status (job, RIV_JOB_STATUS_COMPLETED);
      riv_test_wait_until (job_has_image_cb, job, WAIT_S);
      image = riv_job_get_image (job);
      g_assert_nonnull (image);
      g_assert_true (g_bytes_equal (image, ctx.fake->png));
      g_assert_cmpuint (ctx.fake->n_file_requests, >, files_before);
      /* The url variant was fetched by its url; the path one by ROOT+P+/file=. */
      g_assert_cmpuint (ctx.fake->n_signed_file_requests, ==, i == 0 ? ctx.fake->n_file_requests : files_before);
    }
  /* Every file request named the right path (others get 403 and would
   * not have produced the bytes above); and all went through ROOT+P. */
  for (guint i = 0; i < ctx.fake->requests->len; i++)
    {
      const char *line = g_ptr_array_index (ctx.fake->requests, i);
      if (strstr (line, "/file=") != NULL)
        {
          g_autofree char *want = g_strdup_printf ("GET %s%s/file=", ctx.fake->mount, shape->prefix);
          g_assert_true (g_str_has_prefix (line, want));
        }
    }
  assert_nothing_pending (&ctx);
  ctx_clear (&ctx);
}

/* 503 on join: failed, "queue full". */
static void
test_queue_full (gconstpointer data)
{
  const Shape *shape = data;
  Ctx ctx = { 0 };
  g_autoptr(RivJob) job = NULL;
  g_autoptr(RivJob) next = NULL;
  g_autofree char *lower = NULL;

  ctx_init (&ctx, shape, NULL);
  job = submit_text (&ctx, "echo", "[\"full\"]");
  wait_done (job);
  assert_status (job, RIV_JOB_STATUS_FAILED);
  g_assert_nonnull (riv_job_get_error (job));
  lower = g_ascii_strdown (riv_job_get_error (job), -1);
  g_test_message ("503 became: %s", riv_job_get_error (job));
  g_assert_true (strstr (lower, "queue full") != NULL || strstr (lower, "queue is full") != NULL);
  assert_nothing_pending (&ctx);

  next = submit_text (&ctx, "echo", "[\"fine now\"]");
  wait_done (next);
  assert_status (next, RIV_JOB_STATUS_COMPLETED);
  assert_nothing_pending (&ctx);
  ctx_clear (&ctx);
}

/* 422 on join: failed with the server's detail text. */
static void
test_validation_error (gconstpointer data)
{
  const Shape *shape = data;
  Ctx ctx = { 0 };
  g_autoptr(RivJob) job = NULL;
  g_autoptr(RivJob) listed = NULL;

  ctx_init (&ctx, shape, NULL);
  job = submit_text (&ctx, "echo", "[\"invalid\"]");
  wait_done (job);
  assert_status (job, RIV_JOB_STATUS_FAILED);
  g_assert_nonnull (riv_job_get_error (job));
  g_assert_nonnull (strstr (riv_job_get_error (job), "Value 500 is greater than maximum value 50."));

  /* FastAPI's list form of detail. */
  listed = submit_text (&ctx, "echo", "[\"invalid-list\"]");
  wait_done (listed);
  assert_status (listed, RIV_JOB_STATUS_FAILED);
  g_assert_nonnull (riv_job_get_error (listed));
  g_test_message ("list detail became: %s", riv_job_get_error (listed));
  g_assert_nonnull (strstr (riv_job_get_error (listed), "Field required"));
  assert_nothing_pending (&ctx);
  ctx_clear (&ctx);
}

/* A mounted app: config.root is another base path; everything goes there. */
static void
test_mounted_root (gconstpointer data)
{
  const Shape *shape = data;
  g_autoptr(RivJob) job = NULL;
  g_autoptr(RivJob) image = NULL;
  g_autoptr(RivJob) held = NULL;
  Ctx ctx = { 0 };
  RivClient *client;

  /* Connect at the front URL; config says the app lives under /sub. */
  ctx.fake = fake_new (shape, "/sub");
  client = client_connect (ctx.fake->base);
  ctx.client = client;
  ctx.fake->client = client;
  g_assert_cmpstr (riv_config_get_root (riv_client_get_config (client)), ==, ctx.fake->root);

  job = submit_text (&ctx, "echo", "[\"mounted\"]");
  wait_done (job);
  assert_status (job, RIV_JOB_STATUS_COMPLETED);
  g_assert_cmpstr (riv_job_get_output_text (job), ==, "mounted");

  image = submit_text (&ctx, "image", "[\"path\"]");
  wait_done (image);
  assert_status (image, RIV_JOB_STATUS_COMPLETED);
  riv_test_wait_until (job_has_image_cb, image, WAIT_S);
  g_assert_nonnull (riv_job_get_image (image));

  held = submit_text (&ctx, "echo", "[\"hold\"]");
  wait_held (&ctx, held);
  riv_client_cancel (ctx.client, held);
  wait_done (held);
  assert_status (held, RIV_JOB_STATUS_CANCELLED);

  /* Only /config may be asked outside /sub (the fake records anything else
   * as a violation, checked in ctx_clear). */
  for (guint i = 0; i < ctx.fake->requests->len; i++)
    {
      const char *line = g_ptr_array_index (ctx.fake->requests, i);
      const char *path = strchr (line, ' ') + 1;
      g_assert_true (g_str_has_prefix (path, "/sub/") || g_str_equal (path, "/config"));
    }
  g_assert_cmpuint (ctx.fake->n_file_requests, >, 0);
  g_assert_cmpuint (ctx.fake->cancels->len, ==, 1);
  assert_nothing_pending (&ctx);
  ctx_clear (&ctx);

  /* Connecting at the mount point directly works the same. */
  ctx.fake = fake_new (shape, "/sub");
  ctx.client = client_connect (ctx.fake->root);
  ctx.fake->client = ctx.client;
  {
    g_autoptr(RivJob) direct = submit_text (&ctx, "echo", "[\"direct\"]");
    wait_done (direct);
    assert_status (direct, RIV_JOB_STATUS_COMPLETED);
  }
  assert_nothing_pending (&ctx);
  ctx_clear (&ctx);
}

/* Earlier protocol values: sse_v1 sends full values (no diffs); ws and sse
 * are refused at connect. */
static void
test_protocol_versions (void)
{
  static const char *refused[] = { "ws", "sse", "" };
  Ctx ctx = { 0 };

  for (guint i = 0; i < G_N_ELEMENTS (refused); i++)
    {
      Fake *fake = fake_new (&shape_gradio4, NULL);
      RivClient *client;
      GAsyncResult *result = NULL;
      g_autoptr(GError) error = NULL;

      fake->protocol = g_strdup (refused[i]);
      client = riv_client_new (fake->root);
      riv_client_connect_async (client, NULL, riv_test_async_result_cb, &result);
      riv_test_wait_result (&result, WAIT_S);
      g_assert_false (riv_client_connect_finish (client, result, &error));
      g_assert_error (error, RIV_CLIENT_ERROR, RIV_CLIENT_ERROR_UNSUPPORTED);
      g_test_message ("protocol \"%s\": %s", refused[i], error->message);
      g_object_unref (result);
      riv_client_close (client);
      g_object_unref (client);
      fake_assert_clean (fake);
      fake_free (fake);
    }

  for (guint v = 0; v < 3; v++)
    {
      static const char *versions[] = { "sse_v1", "sse_v2", "sse_v2.1" };
      g_autoptr(RivJob) job = NULL;

      ctx.fake = fake_new (&shape_gradio4, NULL);
      ctx.fake->protocol = g_strdup (versions[v]);
      /* Before sse_v3 the server just ended the response. */
      ctx.fake->no_close_stream = TRUE;
      ctx.client = client_connect (ctx.fake->root);
      ctx.fake->client = ctx.client;
      job = submit_text (&ctx, "echo", "[\"older protocol\"]");
      wait_done (job);
      assert_status (job, RIV_JOB_STATUS_COMPLETED);
      g_assert_cmpstr (riv_job_get_output_text (job), ==, "older protocol");
      check_gen (&ctx);
      assert_nothing_pending (&ctx);
      ctx_clear (&ctx);
    }
}

static void
add_both (const char    *name,
          GTestDataFunc  func)
{
  const Shape *shapes[] = { &shape_gradio4, &shape_gradio6 };

  for (guint i = 0; i < G_N_ELEMENTS (shapes); i++)
    {
      g_autofree char *path = g_strdup_printf ("/gradio-compat/%s/%s", shapes[i]->name, name);
      g_test_add_data_func (path, shapes[i], func);
    }
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);

  add_both ("basic", test_basic);
  add_both ("early-messages", test_early_messages);
  add_both ("trailing-progress", test_trailing_progress);
  add_both ("duplicate-completion-after-cancel", test_duplicate_completion_after_cancel);
  add_both ("close-stream-crossing-join", test_close_stream_crossing_join);
  add_both ("stream-ends-without-close", test_stream_ends_without_close);
  add_both ("unexpected-error", test_unexpected_error);
  add_both ("heartbeats-only", test_heartbeats_only);
  add_both ("completed-failures", test_completed_failures);
  add_both ("nested-diffs", test_nested_diffs);
  add_both ("state-components", test_state_components);
  add_both ("file-outputs", test_file_outputs);
  add_both ("queue-full", test_queue_full);
  add_both ("validation-error", test_validation_error);
  add_both ("mounted-root", test_mounted_root);
  g_test_add_func ("/gradio-compat/protocol-versions", test_protocol_versions);

  return g_test_run ();
}
