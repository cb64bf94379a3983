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
  g_clear_pointer (&self->render_config, json_node_unref);
  g_free (self->title);
  g_clear_pointer (&self->output, json_node_unref);
  g_clear_pointer (&self->data, json_node_unref);
  g_free (self->data_text);
  g_strfreev (self->appends);
  g_free (self->error);
  g_free (self->batch_id);
  g_free (self->message);
  g_free (self);
}

/* The members a message is read from, whichever way it was read: borrowed
 * from a parsed object (riv_message_new_from_node) or owned, read straight
 * from the text (riv_message_parse_lean). */
enum
{
  ROOT_MSG, ROOT_EVENT_ID, ROOT_SUCCESS, ROOT_RANK, ROOT_QUEUE_SIZE, ROOT_RANK_ETA, ROOT_ETA,
  ROOT_PROGRESS_DATA, ROOT_LOG, ROOT_LEVEL, ROOT_TITLE, ROOT_DURATION, ROOT_OUTPUT,
  ROOT_CANCELLED, ROOT_USED_CACHE, ROOT_CACHE_DURATION, ROOT_MESSAGE, ROOT_SESSION_NOT_FOUND,
  ROOT_BATCH, ROOT_MADE_AT, ROOT_SENT_AT, N_ROOT
};

enum
{
  OUT_DATA, OUT_ERROR, OUT_IS_GENERATING, OUT_DURATION, OUT_AVERAGE_DURATION, OUT_CANCELLED,
  OUT_TITLE, OUT_RENDER_CONFIG, OUT_USED_CACHE, N_OUT
};

static const char * const root_names[N_ROOT] = {
  "msg", "event_id", "success", "rank", "queue_size", "rank_eta", "eta", "progress_data", "log",
  "level", "title", "duration", "output", "cancelled", "used_cache", "cache_duration", "message",
  "session_not_found", "batch", RIV_MESSAGE_MADE_AT, RIV_MESSAGE_SENT_AT,
};

static const char * const out_names[N_OUT] = {
  "data", "error", "is_generating", "duration", "average_duration", "cancelled", "title",
  "render_config", "used_cache",
};

/* A member: a node (from a parsed tree; read from the text, an array or an
 * object), or a scalar read from the text without a node. */
typedef struct
{
  JsonNode      *node;
  RivJsonScalar  value;
} Field;

typedef struct
{
  Field     root[N_ROOT];
  Field     out[N_OUT];     /* when output is an object */
  gboolean  output_object;  /* output is an object … */
  gboolean  output_empty;   /* … with no member */
  gboolean  owned;
  /* Read straight from the text, an array output.data is kept as its text
   * (out[OUT_DATA] is NULL then). */
  const char *data_text;
  gsize       data_len;
} Fields;

static void
field_clear (Field    *field,
             gboolean  owned)
{
  if (owned)
    g_clear_pointer (&field->node, json_node_unref);
  else
    field->node = NULL;
  riv_json_scalar_clear (&field->value);
}

static void
fields_clear_output (Fields *f)
{
  for (guint i = 0; i < N_OUT; i++)
    field_clear (&f->out[i], f->owned);
  f->output_object = FALSE;
  f->output_empty = FALSE;
  f->data_text = NULL;
  f->data_len = 0;
}

static void
fields_clear (Fields *f)
{
  fields_clear_output (f);
  for (guint i = 0; i < N_ROOT; i++)
    field_clear (&f->root[i], f->owned);
}

/* The index of name in names[n], or -1. Names are short and few: a first-byte
 * check before each comparison keeps this to one strcmp in the common case. */
static int
field_index (const char * const *names,
             guint               n,
             const char         *name)
{
  for (guint i = 0; i < n; i++)
    if (names[i][0] == name[0] && strcmp (names[i], name) == 0)
      return i;
  return -1;
}

/* A value node's scalars, tolerant of absence and wrong types. */
static inline const char *
node_string (JsonNode *node)
{
  if (node != NULL && JSON_NODE_HOLDS_VALUE (node) && json_node_get_value_type (node) == G_TYPE_STRING)
    return json_node_get_string (node);
  return NULL;
}

static inline gboolean
node_bool (JsonNode *node,
           gboolean  default_value)
{
  if (node != NULL && JSON_NODE_HOLDS_VALUE (node) && json_node_get_value_type (node) == G_TYPE_BOOLEAN)
    return json_node_get_boolean (node);
  return default_value;
}

/* An integer, or a double within gint64's range (a double outside it, or
 * NaN, is "absent" rather than an undefined conversion). */
static gboolean
node_int (JsonNode *node,
          gint64   *out)
{
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

/* A finite number (json-glib turns 1e999 into an infinity: absent). */
static gboolean
node_double (JsonNode *node,
             double   *out)
{
  GType type;
  double d;

  if (node == NULL || !JSON_NODE_HOLDS_VALUE (node))
    return FALSE;
  type = json_node_get_value_type (node);
  if (type == G_TYPE_DOUBLE)
    d = json_node_get_double (node);
  else if (type == G_TYPE_INT64)
    d = (double) json_node_get_int (node);
  else
    return FALSE;
  if (!isfinite (d))
    return FALSE;
  *out = d;
  return TRUE;
}

/* A member as a borrowed node, or NULL when absent or JSON null. */
static inline JsonNode *
non_null (JsonNode *node)
{
  return node == NULL || JSON_NODE_HOLDS_NULL (node) ? NULL : node;
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

/* A member's value, whichever way it was read. */
static const char *
field_string (const Field *field)
{
  if (field->value.type == RIV_JSON_SCALAR_STRING)
    return field->value.string;
  return node_string (field->node);
}

static gboolean
field_bool (const Field *field,
            gboolean     default_value)
{
  if (field->value.type == RIV_JSON_SCALAR_BOOLEAN)
    return field->value.boolean;
  if (field->value.type != RIV_JSON_SCALAR_NONE)
    return default_value;
  return node_bool (field->node, default_value);
}

static gboolean
field_int (const Field *field,
           gint64      *out)
{
  double d;

  switch (field->value.type)
    {
    case RIV_JSON_SCALAR_INT:
      *out = field->value.integer;
      return TRUE;
    case RIV_JSON_SCALAR_DOUBLE:
      d = field->value.number;
      if (!(d >= -9.2e18 && d <= 9.2e18))
        return FALSE;
      *out = (gint64) d;
      return TRUE;
    case RIV_JSON_SCALAR_NONE:
      return node_int (field->node, out);
    default:
      return FALSE;
    }
}

static gboolean
field_double (const Field *field,
              double      *out)
{
  double d;

  switch (field->value.type)
    {
    case RIV_JSON_SCALAR_INT:
      d = (double) field->value.integer;
      break;
    case RIV_JSON_SCALAR_DOUBLE:
      d = field->value.number;
      break;
    case RIV_JSON_SCALAR_NONE:
      return node_double (field->node, out);
    default:
      return FALSE;
    }
  if (!isfinite (d))
    return FALSE;
  *out = d;
  return TRUE;
}

/* A string, or an integer written in decimal, else NULL. */
static char *
field_dup_id (const Field *field)
{
  if (field->value.type == RIV_JSON_SCALAR_STRING)
    return g_strdup (field->value.string);
  if (field->value.type == RIV_JSON_SCALAR_INT)
    return g_strdup_printf ("%" G_GINT64_FORMAT, field->value.integer);
  if (field->value.type != RIV_JSON_SCALAR_NONE)
    return NULL;
  return dup_id (field->node);
}

/* An array or object member (absent or null: NULL). */
static JsonNode *
field_node (const Field *field)
{
  return non_null (field->node);
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

      unit.has_index = node_int (json_object_get_member (object, "index"), &unit.index);
      unit.has_length = node_int (json_object_get_member (object, "length"), &unit.length);
      unit.has_progress = node_double (json_object_get_member (object, "progress"), &unit.progress);
      if (unit.has_progress)
        unit.progress = CLAMP (unit.progress, 0.0, 1.0);
      unit.unit = g_strdup (node_string (json_object_get_member (object, "unit")));
      unit.desc = g_strdup (node_string (json_object_get_member (object, "desc")));
      g_array_append_val (units, unit);
    }

  return units;
}

/* Matchers over text already checked as JSON. */
static inline const char *
text_skip_space (const char *p,
                 const char *end)
{
  while (p < end && (*p == ' ' || *p == '\n' || *p == '\r' || *p == '\t'))
    p++;
  return p;
}

static inline gboolean
text_take (const char **p,
           const char  *end,
           const char  *token)
{
  gsize n = strlen (token);

  *p = text_skip_space (*p, end);
  if ((gsize) (end - *p) < n || memcmp (*p, token, n) != 0)
    return FALSE;
  *p += n;
  return TRUE;
}

/* Appends the JSON string at *p (checked text) to out. */
static gboolean
text_take_string (const char **p,
                  const char  *end,
                  GString     *out)
{
  const char *after = riv_json_string_append (text_skip_space (*p, end), end, out);

  if (after == NULL)
    return FALSE;
  *p = after;
  return TRUE;
}

/* When output.data (the checked text [start, end)) is, for every output, a
 * list of appends at the root, [[["append", [], "a"], ["append", [], "b"]], …]
 * (a streamed text's shape), the text each output gains ("ab"), else NULL. */
static char **
match_root_appends (const char *p,
                    const char *end)
{
  g_autoptr(GPtrArray) texts = g_ptr_array_new_with_free_func (g_free);

  if (!text_take (&p, end, "[") || text_take (&p, end, "]"))
    return NULL;
  do
    {
      g_autoptr(GString) text = g_string_new (NULL);

      if (!text_take (&p, end, "[") || text_take (&p, end, "]"))
        return NULL;
      do
        {
          if (!text_take (&p, end, "[") || !text_take (&p, end, "\"append\"") ||
              !text_take (&p, end, ",") || !text_take (&p, end, "[") ||
              !text_take (&p, end, "]") || !text_take (&p, end, ",") ||
              !text_take_string (&p, end, text) || !text_take (&p, end, "]"))
            return NULL;
        }
      while (text_take (&p, end, ","));
      if (!text_take (&p, end, "]"))
        return NULL;
      g_ptr_array_add (texts, g_string_free (g_steal_pointer (&text), FALSE));
    }
  while (text_take (&p, end, ","));
  if (!text_take (&p, end, "]") || text_skip_space (p, end) != end)
    return NULL;
  g_ptr_array_add (texts, NULL);
  return (char **) g_ptr_array_free (g_steal_pointer (&texts), FALSE);
}

static void
parse_output (RivMessage   *self,
              const Fields *f)
{
  JsonNode *node;

  if (!f->output_object)
    return;

  node = f->out[OUT_DATA].node;
  if (node != NULL && JSON_NODE_HOLDS_ARRAY (node))
    self->data = json_node_ref (node);
  else if (f->data_text != NULL)
    {
      self->data_text = g_strndup (f->data_text, f->data_len);
      self->data_len = f->data_len;
      self->appends = match_root_appends (f->data_text, f->data_text + f->data_len);
    }

  /* Read as a node whichever way the message was read (see read_output_member). */
  node = f->out[OUT_ERROR].node;
  if (node != NULL)
    {
      self->has_error = TRUE;
      if (node_string (node) != NULL)
        self->error = g_strdup (json_node_get_string (node));
      else if (!JSON_NODE_HOLDS_NULL (node))
        self->error = riv_json_to_string (node, NULL);
    }

  self->is_generating = field_bool (&f->out[OUT_IS_GENERATING], FALSE);
  self->output_used_cache = field_bool (&f->out[OUT_USED_CACHE], FALSE);
  self->has_duration = field_double (&f->out[OUT_DURATION], &self->duration);
  self->has_average_duration = field_double (&f->out[OUT_AVERAGE_DURATION], &self->average_duration);

  if (self->kind == RIV_MESSAGE_PROCESS_COMPLETED &&
      (f->output_empty || field_bool (&f->out[OUT_CANCELLED], FALSE)))
    self->cancelled = TRUE;

  if (self->title == NULL)
    self->title = g_strdup (field_string (&f->out[OUT_TITLE]));

  node = f->out[OUT_RENDER_CONFIG].node;
  if (self->kind == RIV_MESSAGE_PROCESS_COMPLETED && node != NULL && JSON_NODE_HOLDS_OBJECT (node))
    self->render_config = json_node_ref (node);
}

static void
parse_batch (RivMessage *self,
             JsonNode   *node)
{
  JsonObject *batch;

  if (node == NULL || !JSON_NODE_HOLDS_OBJECT (node))
    return;

  batch = json_node_get_object (node);
  self->has_batch = TRUE;
  self->batch_id = dup_id (json_object_get_member (batch, "id"));
  if (!node_int (json_object_get_member (batch, "size"), &self->batch_size))
    self->batch_size = 0;
  if (!node_int (json_object_get_member (batch, "index"), &self->batch_index))
    self->batch_index = 0;
}

static void
parse_completion (RivMessage   *self,
                  const Fields *f)
{
  const char *used = field_string (&f->root[ROOT_USED_CACHE]);

  if (field_bool (&f->root[ROOT_CANCELLED], FALSE))
    self->cancelled = TRUE;
  /* Only the two values Gradio sends; anything else is no cache. */
  if (g_strcmp0 (used, "full") == 0 || g_strcmp0 (used, "partial") == 0)
    self->used_cache = g_strdup (used);
  if (!field_double (&f->root[ROOT_CACHE_DURATION], &self->cache_duration) ||
      !(self->cache_duration >= 0))
    self->cache_duration = -1;
}

/* The message the fields say, or NULL and an error when there is no "msg". */
static RivMessage *
message_from_fields (const Fields  *f,
                     GError       **error)
{
  const char *msg = field_string (&f->root[ROOT_MSG]);
  const Field *root = f->root;
  RivMessage *self;

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
  self->event_id = field_dup_id (&root[ROOT_EVENT_ID]);
  self->success = field_bool (&root[ROOT_SUCCESS], TRUE);

  switch (self->kind)
    {
    case RIV_MESSAGE_ESTIMATION:
      self->has_rank = field_int (&root[ROOT_RANK], &self->rank);
      self->has_queue_size = field_int (&root[ROOT_QUEUE_SIZE], &self->queue_size);
      self->has_rank_eta = field_double (&root[ROOT_RANK_ETA], &self->rank_eta);
      break;

    case RIV_MESSAGE_PROCESS_STARTS:
      self->has_eta = field_double (&root[ROOT_ETA], &self->eta);
      break;

    case RIV_MESSAGE_PROGRESS:
      self->progress = parse_progress (field_node (&root[ROOT_PROGRESS_DATA]));
      break;

    case RIV_MESSAGE_LOG:
      self->log = g_strdup (field_string (&root[ROOT_LOG]));
      self->level = g_strdup (field_string (&root[ROOT_LEVEL]));
      self->title = g_strdup (field_string (&root[ROOT_TITLE]));
      self->has_duration = field_double (&root[ROOT_DURATION], &self->duration);
      break;

    case RIV_MESSAGE_PROCESS_GENERATING:
    case RIV_MESSAGE_PROCESS_STREAMING:
    case RIV_MESSAGE_PROCESS_COMPLETED:
      self->title = g_strdup (field_string (&root[ROOT_TITLE]));
      if (!f->owned && field_node (&root[ROOT_OUTPUT]) != NULL)
        /* Shared, not copied: the output is the biggest part of a frame,
         * and nothing changes it. */
        self->output = json_node_ref (root[ROOT_OUTPUT].node);
      parse_output (self, f);
      if (!field_double (&root[ROOT_SENT_AT], &self->sent_at) || !(self->sent_at > 0))
        self->sent_at = 0;
      if (!field_double (&root[ROOT_MADE_AT], &self->made_at) || !(self->made_at > 0))
        self->made_at = 0;
      if (self->kind == RIV_MESSAGE_PROCESS_COMPLETED)
        parse_completion (self, f);
      break;

    case RIV_MESSAGE_UNEXPECTED_ERROR:
      self->message = g_strdup (field_string (&root[ROOT_MESSAGE]));
      self->session_not_found = field_bool (&root[ROOT_SESSION_NOT_FOUND], FALSE);
      if (!self->session_not_found && self->message != NULL)
        self->session_not_found = strcmp (self->message, RIV_MESSAGE_GRADIO4_NO_SESSION) == 0;
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

  parse_batch (self, field_node (&root[ROOT_BATCH]));
  return self;
}

RivMessage *
riv_message_new_from_node (JsonNode  *node,
                           GError   **error)
{
  Fields f = { 0 };
  JsonObjectIter iter;
  const char *name;
  JsonNode *member;
  JsonNode *output;

  if (node == NULL || !JSON_NODE_HOLDS_OBJECT (node))
    {
      g_set_error_literal (error, RIV_MESSAGE_ERROR, RIV_MESSAGE_ERROR_INVALID,
                           "Queue message is not a JSON object");
      return NULL;
    }

  json_object_iter_init (&iter, json_node_get_object (node));
  while (json_object_iter_next (&iter, &name, &member))
    {
      int i = field_index (root_names, N_ROOT, name);

      if (i >= 0)
        f.root[i].node = member;
    }

  output = f.root[ROOT_OUTPUT].node;
  if (output != NULL && JSON_NODE_HOLDS_OBJECT (output))
    {
      f.output_object = TRUE;
      f.output_empty = json_object_get_size (json_node_get_object (output)) == 0;
      json_object_iter_init (&iter, json_node_get_object (output));
      while (json_object_iter_next (&iter, &name, &member))
        {
          int i = field_index (out_names, N_OUT, name);

          if (i >= 0)
            f.out[i].node = member;
        }
    }

  return message_from_fields (&f, error);
}

/* Reading straight from the text ----------------------------------------------------- */

/* Reads the next value into field, a scalar without a node unless as_node:
 * a repeated name keeps the last value, as in a parsed object. */
static gboolean
read_into (RivJsonReader *reader,
           Field         *field,
           gboolean       as_node)
{
  char next = riv_json_reader_peek (reader);

  field_clear (field, TRUE);
  if (as_node || next == '{' || next == '[')
    return (field->node = riv_json_reader_read (reader)) != NULL;
  return riv_json_reader_read_scalar (reader, &field->value);
}

static gboolean
read_output_member (RivJsonReader *reader,
                    const char    *name,
                    gpointer       user_data)
{
  Fields *f = user_data;
  int i = field_index (out_names, N_OUT, name);

  f->output_empty = FALSE;
  if (i == OUT_DATA)
    {
      f->data_text = NULL;
      if (riv_json_reader_peek (reader) == '[')
        {
          field_clear (&f->out[i], TRUE);
          return riv_json_reader_skip_span (reader, &f->data_text, &f->data_len);
        }
    }
  /* An error is shown as the JSON it is when it is not a string, and a
   * render_config is kept as it is: nodes. */
  return i < 0 ? riv_json_reader_skip (reader)
               : read_into (reader, &f->out[i], i == OUT_ERROR || i == OUT_RENDER_CONFIG);
}

static gboolean
read_root_member (RivJsonReader *reader,
                  const char    *name,
                  gpointer       user_data)
{
  Fields *f = user_data;
  int i = field_index (root_names, N_ROOT, name);

  if (i < 0)
    return riv_json_reader_skip (reader);
  if (i == ROOT_OUTPUT)
    {
      fields_clear_output (f);
      /* The output's members are read; the output itself is not kept. */
      if (riv_json_reader_peek (reader) != '{')
        return riv_json_reader_skip (reader);
      f->output_object = TRUE;
      f->output_empty = TRUE;
      return riv_json_reader_walk (reader, read_output_member, f);
    }
  return read_into (reader, &f->root[i], FALSE);
}

RivMessage *
riv_message_parse_lean (const char  *data,
                        gssize       len,
                        GError     **error)
{
  Fields f = { .owned = TRUE };
  RivMessage *self = NULL;

  if (data != NULL &&
      riv_json_walk_object (data, len, RIV_MESSAGE_MAX_DEPTH, read_root_member, &f, NULL))
    self = message_from_fields (&f, error);
  else
    /* Not an object, or not JSON: the full reader says what and where. */
    self = riv_message_parse (NULL, data, len, error);
  fields_clear (&f);
  return self;
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

JsonNode *
riv_message_get_data (RivMessage *self)
{
  g_return_val_if_fail (self != NULL, NULL);

  /* Checked when the frame was read: it parses (the frame's nesting limit
   * bounds it too). */
  if (self->data == NULL && self->data_text != NULL)
    self->data = riv_json_parse (NULL, self->data_text, self->data_len, RIV_MESSAGE_MAX_DEPTH, NULL);
  return self->data;
}
