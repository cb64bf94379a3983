/* riv-message.c
 * Copyright 2026 The Rivulet authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "config.h"

#include <math.h>
#include <string.h>

#include "riv-json.h"
#include "riv-message.h"

G_DEFINE_QUARK (riv-message-error-quark, riv_message_error)

static const char * const kind_names[] = {
  [RIV_MESSAGE_UNKNOWN] = "unknown",
  [RIV_MESSAGE_ESTIMATION] = "estimation",
  [RIV_MESSAGE_PROCESS_STARTS] = "process_starts",
  [RIV_MESSAGE_PROGRESS] = "progress",
  [RIV_MESSAGE_LOG] = "log",
  [RIV_MESSAGE_PROCESS_GENERATING] = "process_generating",
  [RIV_MESSAGE_PROCESS_STREAMING] = "process_streaming",
  [RIV_MESSAGE_PROCESS_COMPLETED] = "process_completed",
  [RIV_MESSAGE_HEARTBEAT] = "heartbeat",
  [RIV_MESSAGE_CLOSE_STREAM] = "close_stream",
  [RIV_MESSAGE_UNEXPECTED_ERROR] = "unexpected_error",
  [RIV_MESSAGE_SEND_HASH] = "send_hash",
  [RIV_MESSAGE_SEND_DATA] = "send_data",
  [RIV_MESSAGE_QUEUE_FULL] = "queue_full",
};

RivMessageKind
riv_message_kind_from_string (const char *msg)
{
  if (msg == NULL)
    return RIV_MESSAGE_UNKNOWN;

  /* Dispatch on the first byte so the common kinds cost one strcmp. */
  switch (msg[0])
    {
    case 'e':
      if (strcmp (msg, "estimation") == 0)
        return RIV_MESSAGE_ESTIMATION;
      break;
    case 'p':
      if (strncmp (msg, "process_", 8) == 0)
        {
          const char *rest = msg + 8;

          if (strcmp (rest, "generating") == 0)
            return RIV_MESSAGE_PROCESS_GENERATING;
          if (strcmp (rest, "completed") == 0)
            return RIV_MESSAGE_PROCESS_COMPLETED;
          if (strcmp (rest, "starts") == 0)
            return RIV_MESSAGE_PROCESS_STARTS;
          if (strcmp (rest, "streaming") == 0)
            return RIV_MESSAGE_PROCESS_STREAMING;
        }
      else if (strcmp (msg, "progress") == 0)
        return RIV_MESSAGE_PROGRESS;
      break;
    case 'l':
      if (strcmp (msg, "log") == 0)
        return RIV_MESSAGE_LOG;
      break;
    case 'h':
      if (strcmp (msg, "heartbeat") == 0)
        return RIV_MESSAGE_HEARTBEAT;
      break;
    case 'c':
      if (strcmp (msg, "close_stream") == 0)
        return RIV_MESSAGE_CLOSE_STREAM;
      break;
    case 'u':
      if (strcmp (msg, "unexpected_error") == 0)
        return RIV_MESSAGE_UNEXPECTED_ERROR;
      break;
    case 's':
      if (strcmp (msg, "send_hash") == 0)
        return RIV_MESSAGE_SEND_HASH;
      if (strcmp (msg, "send_data") == 0)
        return RIV_MESSAGE_SEND_DATA;
      break;
    case 'q':
      if (strcmp (msg, "queue_full") == 0)
        return RIV_MESSAGE_QUEUE_FULL;
      break;
    default:
      break;
    }

  return RIV_MESSAGE_UNKNOWN;
}

const char *
riv_message_kind_to_string (RivMessageKind kind)
{
  if ((guint) kind < G_N_ELEMENTS (kind_names) && kind_names[kind] != NULL)
    return kind_names[kind];
  return "unknown";
}

static void
progress_unit_clear (gpointer data)
{
  RivProgressUnit *unit = data;

  g_clear_pointer (&unit->unit, g_free);
  g_clear_pointer (&unit->desc, g_free);
}

void
riv_message_free (RivMessage *self)
{
  if (self == NULL)
    return;

  if (!((guint) self->kind < G_N_ELEMENTS (kind_names) && self->msg == kind_names[self->kind]))
    g_free (self->msg);
  g_free (self->event_id);
  g_clear_pointer (&self->progress, g_array_unref);
  g_free (self->log);
  g_free (self->level);
  g_free (self->used_cache);
  g_free (self->title);
  g_clear_pointer (&self->output, json_node_unref);
  g_free (self->error);
  g_free (self->batch_id);
  g_free (self->message);
  g_free (self);
}

/* Like riv_json_get_int(), but a double outside the gint64 range (or NaN) is
 * "absent" rather than an undefined conversion. */
static gboolean
get_int (JsonObject *object,
         const char *member,
         gint64     *out)
{
  JsonNode *node = json_object_get_member (object, member);
  GType type;

  if (node == NULL || !JSON_NODE_HOLDS_VALUE (node))
    return FALSE;

  type = json_node_get_value_type (node);
  if (type == G_TYPE_INT64)
    {
      *out = json_node_get_int (node);
      return TRUE;
    }
  if (type == G_TYPE_DOUBLE)
    {
      double d = json_node_get_double (node);

      if (!(d >= -9.2e18 && d <= 9.2e18))
        return FALSE;
      *out = (gint64) d;
      return TRUE;
    }
  return FALSE;
}

/* Like riv_json_get_double(), but infinities (json-glib turns 1e999 into one)
 * count as absent. */
static gboolean
get_double (JsonObject *object,
            const char *member,
            double     *out)
{
  double d;

  if (!riv_json_get_double (object, member, &d) || !isfinite (d))
    return FALSE;
  *out = d;
  return TRUE;
}

/* A member as a borrowed node, or NULL when absent or JSON null. */
static inline JsonNode *
get_member (JsonObject *object,
            const char *name)
{
  JsonNode *node = json_object_get_member (object, name);

  if (node == NULL || JSON_NODE_HOLDS_NULL (node))
    return NULL;
  return node;
}

static inline char *
dup_string_member (JsonObject *object,
                   const char *name)
{
  return g_strdup (riv_json_get_string (object, name));
}

/* A string, or an integer written in decimal (hostile or exotic servers), else NULL. */
static char *
dup_id (JsonNode *node)
{
  GType type;

  if (node == NULL || !JSON_NODE_HOLDS_VALUE (node))
    return NULL;

  type = json_node_get_value_type (node);
  if (type == G_TYPE_STRING)
    return g_strdup (json_node_get_string (node));
  if (type == G_TYPE_INT64)
    return g_strdup_printf ("%" G_GINT64_FORMAT, json_node_get_int (node));
  return NULL;
}

static GArray *
parse_progress (JsonNode *node)
{
  JsonArray *array;
  GArray *units;
  guint n;

  if (node == NULL || !JSON_NODE_HOLDS_ARRAY (node))
    return NULL;

  array = json_node_get_array (node);
  n = json_array_get_length (array);
  units = g_array_sized_new (FALSE, TRUE, sizeof (RivProgressUnit), n);
  g_array_set_clear_func (units, progress_unit_clear);

  for (guint i = 0; i < n; i++)
    {
      JsonNode *element = json_array_get_element (array, i);
      JsonObject *object;
      RivProgressUnit unit = { 0 };

      if (!JSON_NODE_HOLDS_OBJECT (element))
        continue;
      object = json_node_get_object (element);

      unit.has_index = get_int (object, "index", &unit.index);
      unit.has_length = get_int (object, "length", &unit.length);
      unit.has_progress = get_double (object, "progress", &unit.progress);
      if (unit.has_progress)
        unit.progress = CLAMP (unit.progress, 0.0, 1.0);
      unit.unit = dup_string_member (object, "unit");
      unit.desc = dup_string_member (object, "desc");
      g_array_append_val (units, unit);
    }

  return units;
}

static void
parse_output (RivMessage *self,
              JsonObject *root)
{
  JsonNode *output = get_member (root, "output");
  JsonObject *object;
  JsonNode *node;

  if (output == NULL)
    return;

  /* Shared, not copied: the output is the biggest part of a frame, and
   * nothing changes it. */
  self->output = json_node_ref (output);

  if (!JSON_NODE_HOLDS_OBJECT (output))
    return;
  object = json_node_get_object (output);

  node = json_object_get_member (object, "data");
  if (node != NULL && JSON_NODE_HOLDS_ARRAY (node))
    self->data = node;

  node = json_object_get_member (object, "error");
  if (node != NULL)
    {
      self->has_error = TRUE;
      if (JSON_NODE_HOLDS_VALUE (node) && json_node_get_value_type (node) == G_TYPE_STRING)
        self->error = g_strdup (json_node_get_string (node));
      else if (!JSON_NODE_HOLDS_NULL (node))
        self->error = riv_json_to_string (node, NULL);
    }

  self->is_generating = riv_json_get_bool (object, "is_generating", FALSE);
  self->has_duration = get_double (object, "duration", &self->duration);
  self->has_average_duration = get_double (object, "average_duration", &self->average_duration);

  if (self->kind == RIV_MESSAGE_PROCESS_COMPLETED &&
      (json_object_get_size (object) == 0 || riv_json_get_bool (object, "cancelled", FALSE)))
    self->cancelled = TRUE;

  if (self->title == NULL)
    self->title = dup_string_member (object, "title");
}

static void
parse_batch (RivMessage *self,
             JsonObject *root)
{
  JsonNode *node = get_member (root, "batch");
  JsonObject *batch;

  if (node == NULL || !JSON_NODE_HOLDS_OBJECT (node))
    return;

  batch = json_node_get_object (node);
  self->has_batch = TRUE;
  self->batch_id = dup_id (json_object_get_member (batch, "id"));
  if (!get_int (batch, "size", &self->batch_size))
    self->batch_size = 0;
  if (!get_int (batch, "index", &self->batch_index))
    self->batch_index = 0;
}

RivMessage *
riv_message_new_from_node (JsonNode  *node,
                           GError   **error)
{
  g_autoptr(RivMessage) self = NULL;
  JsonObject *root;
  const char *msg;

  if (node == NULL || !JSON_NODE_HOLDS_OBJECT (node))
    {
      g_set_error_literal (error, RIV_MESSAGE_ERROR, RIV_MESSAGE_ERROR_INVALID,
                           "Queue message is not a JSON object");
      return NULL;
    }

  root = json_node_get_object (node);
  msg = riv_json_get_string (root, "msg");
  if (msg == NULL)
    {
      g_set_error_literal (error, RIV_MESSAGE_ERROR, RIV_MESSAGE_ERROR_INVALID,
                           "Queue message has no \"msg\" string");
      return NULL;
    }

  self = g_new0 (RivMessage, 1);
  self->kind = riv_message_kind_from_string (msg);
  /* A known kind's name is the same text as msg: shared, not copied. */
  self->msg = self->kind != RIV_MESSAGE_UNKNOWN ? (char *) kind_names[self->kind] : g_strdup (msg);
  self->event_id = dup_id (json_object_get_member (root, "event_id"));
  self->success = riv_json_get_bool (root, "success", TRUE);

  switch (self->kind)
    {
    case RIV_MESSAGE_ESTIMATION:
      self->has_rank = get_int (root, "rank", &self->rank);
      self->has_queue_size = get_int (root, "queue_size", &self->queue_size);
      self->has_rank_eta = get_double (root, "rank_eta", &self->rank_eta);
      break;

    case RIV_MESSAGE_PROCESS_STARTS:
      self->has_eta = get_double (root, "eta", &self->eta);
      break;

    case RIV_MESSAGE_PROGRESS:
      self->progress = parse_progress (get_member (root, "progress_data"));
      break;

    case RIV_MESSAGE_LOG:
      self->log = dup_string_member (root, "log");
      self->level = dup_string_member (root, "level");
      self->title = dup_string_member (root, "title");
      self->has_duration = get_double (root, "duration", &self->duration);
      break;

    case RIV_MESSAGE_PROCESS_GENERATING:
    case RIV_MESSAGE_PROCESS_STREAMING:
    case RIV_MESSAGE_PROCESS_COMPLETED:
      self->title = dup_string_member (root, "title");
      parse_output (self, root);
      if (self->kind == RIV_MESSAGE_PROCESS_COMPLETED &&
          riv_json_get_bool (root, "cancelled", FALSE))
        self->cancelled = TRUE;
      if (self->kind == RIV_MESSAGE_PROCESS_COMPLETED)
        {
          const char *used = riv_json_get_string (root, "used_cache");

          /* Only the two values Gradio sends; anything else is no cache. */
          if (g_strcmp0 (used, "full") == 0 || g_strcmp0 (used, "partial") == 0)
            self->used_cache = g_strdup (used);
          if (!get_double (root, "cache_duration", &self->cache_duration) ||
              !(self->cache_duration >= 0))
            self->cache_duration = -1;
        }
      break;

    case RIV_MESSAGE_UNEXPECTED_ERROR:
      self->message = dup_string_member (root, "message");
      self->session_not_found = riv_json_get_bool (root, "session_not_found", FALSE);
      break;

    case RIV_MESSAGE_UNKNOWN:
    case RIV_MESSAGE_HEARTBEAT:
    case RIV_MESSAGE_CLOSE_STREAM:
    case RIV_MESSAGE_SEND_HASH:
    case RIV_MESSAGE_SEND_DATA:
    case RIV_MESSAGE_QUEUE_FULL:
    default:
      break;
    }

  parse_batch (self, root);

  return g_steal_pointer (&self);
}

RivMessage *
riv_message_parse (JsonParser  *parser,
                   const char  *data,
                   gssize       len,
                   GError     **error)
{
  g_autoptr(GError) local_error = NULL;
  g_autoptr(JsonNode) root = NULL;

  if (data == NULL)
    {
      g_set_error_literal (error, RIV_MESSAGE_ERROR, RIV_MESSAGE_ERROR_INVALID,
                           "Empty queue message");
      return NULL;
    }

  root = riv_json_parse (parser, data, len, RIV_MESSAGE_MAX_DEPTH, &local_error);
  if (root == NULL)
    {
      g_set_error (error, RIV_MESSAGE_ERROR, RIV_MESSAGE_ERROR_INVALID,
                   "Queue message is not valid JSON: %s", local_error->message);
      return NULL;
    }

  return riv_message_new_from_node (root, error);
}
