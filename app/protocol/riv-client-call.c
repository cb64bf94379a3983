/* riv-client-call.c
 * Copyright 2026 The Rivulet authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The second way to submit (riv_client_set_call_transport): Gradio 6.13's
 * POST {P}/call/v2/{api_name} with the inputs as keyword arguments (named by
 * /info), then one GET {P}/call/v2/{api_name}/{event_id} per job, whose
 * frames are "event: generating|complete|error|heartbeat" with the output
 * values (never diffs) as data. Each frame becomes the queue message it
 * stands for and goes through _riv_client_apply_message(), so a job ends the
 * same way whichever route it took. The server sends no estimation or
 * process_starts on this route: such a job has a latency, not a wait or run
 * time.
 */
#include "config.h"

#include "riv-client-private.h"
#include "riv-json.h"

#define CALL_READ_SIZE 16384
#define CALL_MAX_DEPTH 512

typedef struct
{
  RivClientOp  *op;           /* owned: the GET, its job */
  GInputStream *input;        /* nullable until the response */
  RivSseReader *reader;
  gboolean      got_values;   /* a "generating" frame came: later ones are replacements */
} CallStream;

static void
call_stream_free (CallStream *cs)
{
  g_clear_pointer (&cs->op, _riv_client_op_free);
  g_clear_object (&cs->input);
  g_clear_pointer (&cs->reader, riv_sse_reader_free);
  g_free (cs);
}

JsonNode *
_riv_client_build_call_body (RivJob      *job,
                             RivEndpoint *endpoint)
{
  JsonNode *inputs = riv_job_get_inputs (job);
  JsonArray *values = inputs != NULL && JSON_NODE_HOLDS_ARRAY (inputs)
                        ? json_node_get_array (inputs) : NULL;
  guint n_names = g_strv_length (endpoint->parameters);
  guint n_values = values != NULL ? json_array_get_length (values) : 0;
  JsonObject *body = json_object_new ();
  JsonNode *node;
  guint k = 0;

  /* /info names the inputs that travel: all of them, or those that are not state. */
  for (guint i = 0; i < n_values && k < n_names; i++)
    {
      RivComponent *component = i < endpoint->inputs->len
                                  ? g_ptr_array_index (endpoint->inputs, i) : NULL;

      if (n_names < n_values && component != NULL && component->is_state)
        continue;
      json_object_set_member (body, endpoint->parameters[k++],
                              json_node_copy (json_array_get_element (values, i)));
    }

  node = json_node_new (JSON_NODE_OBJECT);
  json_node_take_object (node, body);
  return node;
}

/* One frame as the queue message it stands for; NULL for heartbeats and
 * kinds this route does not have. */
static JsonNode *
frame_to_message (CallStream *cs,
                  const char *event_type,
                  JsonNode   *data)
{
  g_autoptr(JsonBuilder) builder = json_builder_new ();
  gboolean complete = g_strcmp0 (event_type, "complete") == 0;
  gboolean generating = g_strcmp0 (event_type, "generating") == 0;
  gboolean error = g_strcmp0 (event_type, "error") == 0;

  if (!complete && !generating && !error)
    return NULL;

  json_builder_begin_object (builder);
  json_builder_set_member_name (builder, "msg");
  json_builder_add_string_value (builder, generating ? "process_generating" : "process_completed");
  json_builder_set_member_name (builder, "event_id");
  json_builder_add_string_value (builder, riv_job_get_event_id (cs->op->job));
  json_builder_set_member_name (builder, "success");
  json_builder_add_boolean_value (builder, !error);
  json_builder_set_member_name (builder, "output");
  if (error && data != NULL && JSON_NODE_HOLDS_OBJECT (data))
    json_builder_add_value (builder, json_node_copy (data));   /* the failure's output */
  else if (error)
    {
      json_builder_begin_object (builder);
      json_builder_set_member_name (builder, "error");
      if (data != NULL && JSON_NODE_HOLDS_VALUE (data) &&
          json_node_get_value_type (data) == G_TYPE_STRING)
        json_builder_add_string_value (builder, json_node_get_string (data));
      else
        json_builder_add_null_value (builder);
      json_builder_end_object (builder);
    }
  else
    {
      json_builder_begin_object (builder);
      json_builder_set_member_name (builder, "data");
      if (generating && cs->got_values && data != NULL && JSON_NODE_HOLDS_ARRAY (data))
        {
          JsonArray *array = json_node_get_array (data);

          /* Full values each time: later yields as replacements. */
          json_builder_begin_array (builder);
          for (guint i = 0; i < json_array_get_length (array); i++)
            {
              json_builder_begin_array (builder);
              json_builder_begin_array (builder);
              json_builder_add_string_value (builder, "replace");
              json_builder_begin_array (builder);
              json_builder_end_array (builder);
              json_builder_add_value (builder, json_node_copy (json_array_get_element (array, i)));
              json_builder_end_array (builder);
              json_builder_end_array (builder);
            }
          json_builder_end_array (builder);
        }
      else if (data != NULL)
        json_builder_add_value (builder, json_node_copy (data));
      else
        json_builder_add_null_value (builder);
      json_builder_end_object (builder);
      cs->got_values = cs->got_values || generating;
    }
  json_builder_end_object (builder);
  return json_builder_get_root (builder);
}

static void
call_event_cb (const char *event_type,
               const char *data,
               gsize       len,
               gpointer    user_data)
{
  CallStream *cs = user_data;
  RivClient *self = cs->op->client;
  g_autoptr(JsonNode) value = riv_json_parse (NULL, data, len, CALL_MAX_DEPTH, NULL);
  g_autoptr(JsonNode) node = NULL;
  g_autoptr(RivMessage) msg = NULL;

  if (riv_job_is_finished (cs->op->job))
    return;
  node = frame_to_message (cs, event_type, value);
  if (node == NULL)
    return;
  self->sse.n_messages++;
  msg = riv_message_new_from_node (node, NULL);
  if (msg == NULL)
    return;
  if (riv_job_get_status (cs->op->job) < RIV_JOB_STATUS_RUNNING)
    _riv_job_set_status (cs->op->job, RIV_JOB_STATUS_RUNNING);
  _riv_client_apply_message (self, cs->op->job, msg);
}

static void call_read_cb (GObject      *object,
                          GAsyncResult *result,
                          gpointer      user_data);

static void
call_fail (CallStream *cs,
           const char *text)
{
  if (!riv_job_is_finished (cs->op->job))
    _riv_client_finish_job (cs->op->client, cs->op->job, RIV_JOB_STATUS_FAILED, text);
  call_stream_free (cs);
}

static void
call_read_cb (GObject      *object,
              GAsyncResult *result,
              gpointer      user_data)
{
  CallStream *cs = user_data;
  RivClient *self;
  g_autoptr(GBytes) bytes = NULL;
  g_autoptr(GError) error = NULL;
  gsize len = 0;
  const char *data;

  bytes = g_input_stream_read_bytes_finish (G_INPUT_STREAM (object), result, &error);
  if (_riv_client_op_client_gone (cs->op))
    {
      call_stream_free (cs);
      return;
    }
  self = cs->op->client;
  if (bytes == NULL)
    {
      g_autofree char *text = g_strdup_printf ("The call's result stream failed: %s",
                                               error->message);

      call_fail (cs, text);
      return;
    }
  data = g_bytes_get_data (bytes, &len);
  if (len == 0)
    {
      call_fail (cs, "The call's result stream ended without a result");
      return;
    }
  if (!riv_sse_reader_feed (cs->reader, data, len, call_event_cb, cs, &error))
    {
      call_fail (cs, error->message);
      return;
    }
  if (riv_job_is_finished (cs->op->job))
    {
      call_stream_free (cs);
      return;
    }
  g_input_stream_read_bytes_async (cs->input, CALL_READ_SIZE, self->io_priority,
                                   self->cancellable, call_read_cb, cs);
}

static void
call_sent_cb (GObject      *object,
              GAsyncResult *result,
              gpointer      user_data)
{
  CallStream *cs = user_data;
  RivClient *self;
  g_autoptr(GError) error = NULL;
  guint status;

  cs->input = soup_session_send_finish (SOUP_SESSION (object), result, &error);
  if (_riv_client_op_client_gone (cs->op))
    {
      call_stream_free (cs);
      return;
    }
  self = cs->op->client;
  if (RIV_CLIENT_TAPPED (self))
    _riv_client_tap_response (self, cs->op->msg, 0, NULL);
  if (cs->input == NULL)
    {
      g_autofree char *text = g_strdup_printf ("Could not read the call's result: %s",
                                               error->message);

      call_fail (cs, text);
      return;
    }
  status = soup_message_get_status (cs->op->msg);
  if (status != SOUP_STATUS_OK)
    {
      g_autofree char *text = g_strdup_printf ("The call's result: HTTP %u", status);

      call_fail (cs, text);
      return;
    }
  g_input_stream_read_bytes_async (cs->input, CALL_READ_SIZE, self->io_priority,
                                   self->cancellable, call_read_cb, cs);
}

void
_riv_client_call_start (RivClient  *self,
                        RivJob     *job,
                        const char *event_id)
{
  RivJobCtx *ctx = _riv_client_job_ctx (job);
  g_autofree char *escaped = g_uri_escape_string (event_id, NULL, FALSE);
  g_autofree char *path = NULL;
  g_autofree char *url = NULL;
  g_autoptr(SoupMessage) msg = NULL;
  CallStream *cs;

  _riv_job_set_event_id (job, event_id);
  /* Cancelled while the call was being made: the route has no cancel. */
  if (riv_job_is_finished (job) || ctx == NULL)
    return;

  _riv_job_set_status (job, RIV_JOB_STATUS_QUEUED);
  riv_job_add_timeline (job, "joined (call/v2)");

  path = g_strconcat ("/call/v2/", ctx->endpoint->api_name, "/", escaped, NULL);
  url = riv_config_build_url (self->config, path);
  msg = soup_message_new (SOUP_METHOD_GET, url);
  if (msg == NULL)
    {
      _riv_client_finish_job (self, job, RIV_JOB_STATUS_FAILED,
                              "Could not build the call's result URL");
      return;
    }
  _riv_client_prepare_message (self, msg);
  if (RIV_CLIENT_TAPPED (self))
    _riv_client_tap_request (self, msg, 0, NULL, 0);

  cs = g_new0 (CallStream, 1);
  cs->op = _riv_client_op_new (self, job, msg);
  cs->reader = riv_sse_reader_new (RIV_SSE_DEFAULT_MAX_FRAME);
  soup_session_send_async (self->session, msg, self->io_priority, self->cancellable,
                           call_sent_cb, cs);
}

void
riv_client_set_call_transport (RivClient *self,
                               gboolean   call)
{
  g_return_if_fail (RIV_IS_CLIENT (self));
  self->join.call_transport = !!call;
}
