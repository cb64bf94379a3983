/* riv-server-routes.c
 * Copyright 2026 The Rivulet authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The route table of the embedded server and its small handlers:
 * /config, /info, /app_id, /queue/join, /cancel and /reset here; the
 * stream routes are in riv-server-session.c, the file routes in
 * riv-server-files.c.
 */
#include "config.h"

#include <string.h>

#include "riv-demo.h"
#include "riv-json.h"
#include "riv-server-private.h"
#include "riv-wire.h"

#define SESSION_HASH_MAX    256

/* Routes */

/* The demo a join names by fn_index; NULL (answered) when the index is
 * missing, not an integer or no demo's. */
static const RivDemo *
join_read_demo (SoupServerMessage *msg,
                JsonObject        *body,
                gint64            *fn_index)
{
  JsonNode *fn_node = json_object_get_member (body, "fn_index");
  const RivDemo *demo;

  if (fn_node == NULL || JSON_NODE_HOLDS_NULL (fn_node))
    {
      _riv_server_reply_detail (msg, SOUP_STATUS_BAD_REQUEST, "No function index provided.");
      return NULL;
    }
  if (!JSON_NODE_HOLDS_VALUE (fn_node) || json_node_get_value_type (fn_node) != G_TYPE_INT64)
    {
      _riv_server_reply_problem (msg, SOUP_STATUS_UNPROCESSABLE_ENTITY, "fn_index",
                                 "fn_index must be an integer");
      return NULL;
    }
  *fn_index = json_node_get_int (fn_node);
  if (*fn_index < 0 || (demo = riv_demo_get ((guint) MIN (*fn_index, G_MAXUINT))) == NULL)
    {
      g_autofree char *text = g_strdup_printf ("Function index %" G_GINT64_FORMAT " not found.",
                                               *fn_index);
      _riv_server_reply_detail (msg, SOUP_STATUS_NOT_FOUND, text);
      return NULL;
    }
  return demo;
}

/* The join's session hash; NULL (answered) when it is missing or too long. */
static const char *
join_read_session_hash (SoupServerMessage *msg,
                        JsonObject        *body)
{
  const char *hash = riv_json_get_string (body, "session_hash");

  if (hash == NULL || hash[0] == '\0')
    {
      _riv_server_reply_detail (msg, SOUP_STATUS_BAD_REQUEST, "Session hash not found.");
      return NULL;
    }
  if (strlen (hash) > SESSION_HASH_MAX)
    {
      _riv_server_reply_detail (msg, SOUP_STATUS_BAD_REQUEST, "Session hash too long.");
      return NULL;
    }
  return hash;
}

/* The 503 of a join whose inputs would go over a budget: Gradio's status for
 * a full queue, its "Queue is full." first (clients class it by that), then
 * which budget and by how much. */
static void
reply_inputs_full (RivServer           *self,
                   SoupServerMessage   *msg,
                   Session             *session,
                   const RivDemoParams *params)
{
  guint64 total = riv_queue_get_input_bytes (self->queue, NULL);
  guint64 mine = riv_queue_get_input_bytes (self->queue, session);
  gboolean session_full = self->session_input_max > 0 &&
                          mine + riv_demo_params_get_size (params) > self->session_input_max;
  g_autofree char *size = g_format_size_full (riv_demo_params_get_size (params),
                                              G_FORMAT_SIZE_IEC_UNITS);
  g_autofree char *held = g_format_size_full (session_full ? mine : total,
                                              G_FORMAT_SIZE_IEC_UNITS);
  g_autofree char *limit = g_format_size_full (session_full ? self->session_input_max
                                                            : self->input_max,
                                               G_FORMAT_SIZE_IEC_UNITS);
  g_autofree char *text =
    g_strdup_printf ("Queue is full. The inputs of queued jobs %s are limited to %s; they "
                     "hold %s and this job's take %s.",
                     session_full ? "in one session" : "together", limit, held, size);

  _riv_server_reply_detail (msg, SOUP_STATUS_SERVICE_UNAVAILABLE, text);
}

/* Queues the job under a new event id, pending in the session before the
 * reply (and before any frame for it can be written); takes *params when
 * the queue does. FALSE (answered) when the queue refuses it. */
static gboolean
join_enqueue (RivServer          *self,
              SoupServerMessage  *msg,
              guint               fn_index,
              const char         *hash,
              RivDemoParams     **params,
              char                event_id[RIV_EVENT_ID_LEN + 1])
{
  guint max_size = 0, size = 0;
  RivQueueStatus status;
  Session *session;

  do
    riv_wire_new_event_id (event_id);
  while (riv_queue_has_event (self->queue, event_id));

  session = _riv_server_session_get_or_create (self, hash);
  _riv_server_session_touch (session);

  g_hash_table_add (session->pending, g_strdup (event_id));
  self->n_pending++;
  _riv_server_clear_source (&session->linger);

  status = riv_queue_push (self->queue, fn_index, event_id, *params, session, &max_size, &size);
  if (status == RIV_QUEUE_OK)
    {
      *params = NULL;  /* taken by the queue */
      return TRUE;
    }

  g_hash_table_remove (session->pending, event_id);
  self->n_pending--;
  _riv_server_session_update_linger (session);
  if (status == RIV_QUEUE_FULL)
    {
      g_autofree char *text = g_strdup_printf ("Queue is full. Max size is %u and size is %u.",
                                               max_size, size);
      _riv_server_reply_detail (msg, SOUP_STATUS_SERVICE_UNAVAILABLE, text);
    }
  else if (status == RIV_QUEUE_INPUTS_FULL)
    reply_inputs_full (self, msg, session, *params);
  else
    _riv_server_reply_detail (msg, SOUP_STATUS_SERVICE_UNAVAILABLE, "Queue is stopped.");
  return FALSE;
}

/* A gr.State input takes the session's value (riv-run.h), whatever was sent. */
static void
join_fill_state (RivServer     *self,
                 const RivDemo *demo,
                 guint          fn_index,
                 const char    *hash,
                 RivDemoParams *params)
{
  Session *session = _riv_server_session_lookup (self, hash);

  for (guint i = 0; i < demo->n_inputs && session != NULL; i++)
    if (demo->inputs[i].kind == RIV_COMPONENT_STATE)
      {
        g_free (params->values[i].text);
        params->values[i].text = g_strdup (_riv_server_session_get_state (session, fn_index,
                                                                           demo->inputs[i].name));
      }
}

static void
handle_join (RivServer         *self,
             SoupServerMessage *msg)
{
  g_autoptr(JsonNode) root = NULL;
  g_autoptr(JsonNode) detail = NULL;
  g_autoptr(RivDemoParams) params = NULL;
  JsonObject *body;
  const char *hash;
  const RivDemo *demo;
  gint64 fn_index = -1;
  char event_id[RIV_EVENT_ID_LEN + 1];
  GString *out;
  gsize len;

  if (!(body = _riv_server_parse_object_body (msg, &root)))
    return;
  if ((demo = join_read_demo (msg, body, &fn_index)) == NULL ||
      (hash = join_read_session_hash (msg, body)) == NULL)
    return;

  params = riv_demo_parse_params (demo, json_object_get_member (body, "data"), &detail);
  if (params == NULL)
    {
      _riv_server_reply_detail_list (msg, SOUP_STATUS_UNPROCESSABLE_ENTITY, detail);
      return;
    }
  if (self->shut_down)
    {
      _riv_server_reply_detail (msg, SOUP_STATUS_SERVICE_UNAVAILABLE, "Queue is stopped.");
      return;
    }
  join_fill_state (self, demo, (guint) fn_index, hash, params);
  if (!join_enqueue (self, msg, (guint) fn_index, hash, &params, event_id))
    return;

  out = g_string_new ("{\"event_id\":\"");
  g_string_append (out, event_id);
  g_string_append (out, "\"}");
  len = out->len;
  _riv_server_reply_take (msg, SOUP_STATUS_OK, "application/json",
                          g_string_free (out, FALSE), len);
}

static void
handle_cancel (RivServer         *self,
               SoupServerMessage *msg)
{
  g_autoptr(JsonNode) root = NULL;
  JsonObject *body;
  const char *event_id, *hash;
  gint64 fn_index;
  Session *session;

  if (!(body = _riv_server_parse_object_body (msg, &root)))
    return;

  event_id = riv_json_get_string (body, "event_id");
  hash = riv_json_get_string (body, "session_hash");
  if (event_id == NULL)
    {
      _riv_server_reply_problem (msg, SOUP_STATUS_UNPROCESSABLE_ENTITY, "event_id",
                                 "Field required: event_id");
      return;
    }
  if (hash == NULL)
    {
      _riv_server_reply_problem (msg, SOUP_STATUS_UNPROCESSABLE_ENTITY, "session_hash",
                                 "Field required: session_hash");
      return;
    }
  if (!riv_json_get_int (body, "fn_index", &fn_index))
    {
      _riv_server_reply_problem (msg, SOUP_STATUS_UNPROCESSABLE_ENTITY, "fn_index",
                                 "Field required: fn_index");
      return;
    }

  session = _riv_server_session_lookup (self, hash);
  if (session != NULL)
    riv_queue_cancel (self->queue, event_id, session);

  _riv_server_reply_text_json (msg, g_strdup ("{\"success\":true}"));
}

typedef enum
{
  ROUTE_NONE,
  ROUTE_CONFIG,
  ROUTE_INFO,
  ROUTE_APP_ID,
  ROUTE_JOIN,
  ROUTE_DATA,
  ROUTE_CANCEL,
  ROUTE_RESET,
  ROUTE_UPLOAD,
  ROUTE_FILE,
  ROUTE_HEARTBEAT,
} Route;

static Route
route_for (const char *path,
           gboolean   *wants_post)
{
  static const struct { const char *path; Route route; gboolean post; } exact[] = {
    { "/config", ROUTE_CONFIG, FALSE },
    { "/config/", ROUTE_CONFIG, FALSE },
    { API_PREFIX "/info", ROUTE_INFO, FALSE },
    { API_PREFIX "/info/", ROUTE_INFO, FALSE },
    { API_PREFIX "/app_id", ROUTE_APP_ID, FALSE },
    { API_PREFIX "/queue/join", ROUTE_JOIN, TRUE },
    { API_PREFIX "/queue/data", ROUTE_DATA, FALSE },
    { API_PREFIX "/cancel", ROUTE_CANCEL, TRUE },
    { API_PREFIX "/reset", ROUTE_RESET, TRUE },
    { API_PREFIX "/upload", ROUTE_UPLOAD, TRUE },
  };

  for (guint i = 0; i < G_N_ELEMENTS (exact); i++)
    if (g_str_equal (path, exact[i].path))
      {
        *wants_post = exact[i].post;
        return exact[i].route;
      }

  *wants_post = FALSE;
  if (g_str_has_prefix (path, API_PREFIX "/file="))
    return ROUTE_FILE;
  if (g_str_has_prefix (path, API_PREFIX "/heartbeat/"))
    return ROUTE_HEARTBEAT;
  return ROUTE_NONE;
}

void
_riv_server_handle_request_cb (SoupServer        *server,
                               SoupServerMessage *msg,
                               const char        *path,
                               GHashTable        *query,
                               gpointer           user_data)
{
  RivServer *self = user_data;
  const char *method = soup_server_message_get_method (msg);
  gboolean wants_post;
  Route route;

  _riv_server_add_cors_headers (msg);

  if (method == SOUP_METHOD_OPTIONS)
    {
      SoupMessageHeaders *response = soup_server_message_get_response_headers (msg);

      soup_message_headers_replace (response, "Access-Control-Allow-Methods",
                                    "GET, POST, HEAD, OPTIONS");
      soup_message_headers_replace (response, "Access-Control-Allow-Headers",
                                    "content-type, x-gradio-user, authorization");
      soup_message_headers_replace (response, "Access-Control-Max-Age", "600");
      _riv_server_reply_take (msg, SOUP_STATUS_OK, "text/plain", g_strdup ("OK"), 2);
      return;
    }

  route = route_for (path, &wants_post);
  if (route == ROUTE_NONE)
    {
      _riv_server_reply_detail (msg, SOUP_STATUS_NOT_FOUND, "Not Found");
      return;
    }
  if (wants_post ? method != SOUP_METHOD_POST
                 : (method != SOUP_METHOD_GET && method != SOUP_METHOD_HEAD))
    {
      _riv_server_reply_detail (msg, SOUP_STATUS_METHOD_NOT_ALLOWED, "Method Not Allowed");
      return;
    }

  switch (route)
    {
    case ROUTE_CONFIG:
      _riv_server_reply_bytes (msg, SOUP_STATUS_OK, self->config_json);
      break;
    case ROUTE_INFO:
      _riv_server_reply_bytes (msg, SOUP_STATUS_OK, self->info_json);
      break;
    case ROUTE_APP_ID:
      _riv_server_reply_text_json (msg, g_strdup_printf ("{\"app_id\":%u}", self->app_id));
      break;
    case ROUTE_JOIN:
      handle_join (self, msg);
      break;
    case ROUTE_DATA:
      _riv_server_handle_queue_data (self, msg, query);
      break;
    case ROUTE_CANCEL:
      handle_cancel (self, msg);
      break;
    case ROUTE_RESET:
      _riv_server_reply_text_json (msg, g_strdup ("{\"success\":true}"));
      break;
    case ROUTE_UPLOAD:
      _riv_server_handle_upload (self, msg);
      break;
    case ROUTE_FILE:
      _riv_server_handle_file (self, msg, path + strlen (API_PREFIX "/file="));
      break;
    case ROUTE_HEARTBEAT:
      _riv_server_handle_keepalive (self, msg);
      break;
    case ROUTE_NONE:
    default:
      g_assert_not_reached ();
    }
}
