/* riv-transcript.c
 * Copyright 2026 The Rivulet authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "config.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include <glib/gstdio.h>

#include "riv-compat.h"
#include "riv-json.h"
#include "riv-message.h"
#include "riv-transcript.h"

G_DEFINE_QUARK (riv-transcript-error-quark, riv_transcript_error)

/* Names of members whose values are never written; matched as lower-case
 * substrings of the member name. */
static const char * const secret_words[] = {
  "password", "passwd", "token", "authorization", "cookie", "secret", "api_key", "apikey", "__sign",
};

const char *
riv_transcript_kind_to_string (RivTapKind kind)
{
  switch (kind)
    {
    case RIV_TAP_REQUEST:
      return "request";
    case RIV_TAP_RESPONSE:
      return "response";
    case RIV_TAP_SSE:
    case RIV_TAP_SSE_END:
      return "sse";
    case RIV_TAP_TRUNCATED:
      return "truncated";
    default:
      g_return_val_if_reached ("unknown");
    }
}

const char *
riv_transcript_end_to_string (RivTapEnd end)
{
  switch (end)
    {
    case RIV_TAP_END_EOF:
      return "eof";
    case RIV_TAP_END_ERROR:
      return "error";
    case RIV_TAP_END_CLIENT:
      return "client";
    default:
      g_return_val_if_reached ("eof");
    }
}

/* Case-insensitive substring search, for short needles in lower case. */
static gboolean
contains_word (const char *haystack,
               gsize       len,
               const char *word)
{
  gsize n = strlen (word);

  if (n > len)
    return FALSE;
  for (gsize i = 0; i + n <= len; i++)
    if (g_ascii_tolower (haystack[i]) == word[0] && g_ascii_strncasecmp (haystack + i, word, n) == 0)
      return TRUE;
  return FALSE;
}

static gboolean
mentions_secret (const char *text,
                 gsize       len)
{
  for (guint i = 0; i < G_N_ELEMENTS (secret_words); i++)
    if (contains_word (text, len, secret_words[i]))
      return TRUE;
  return FALSE;
}

gboolean
riv_transcript_is_secret_key (const char *name)
{
  return name != NULL && mentions_secret (name, strlen (name));
}

gboolean
riv_transcript_path_ends_with (const char *path,
                               const char *suffix)
{
  gsize len = strcspn (path, "?");
  gsize n = strlen (suffix);

  return len >= n && strncmp (path + len - n, suffix, n) == 0;
}

void
riv_transcript_event_free (RivTapEvent *event)
{
  if (event == NULL)
    return;
  g_free ((char *) event->method);
  g_free ((char *) event->path);
  g_free ((char *) event->text);
  g_free (event);
}

/* Scrubbing */

static gboolean
has_secret_member (JsonNode *node)
{
  if (JSON_NODE_HOLDS_OBJECT (node))
    {
      JsonObjectIter iter;
      const char *name;
      JsonNode *member;

      json_object_iter_init (&iter, json_node_get_object (node));
      while (json_object_iter_next (&iter, &name, &member))
        if (riv_transcript_is_secret_key (name) || has_secret_member (member))
          return TRUE;
    }
  else if (JSON_NODE_HOLDS_ARRAY (node))
    {
      JsonArray *array = json_node_get_array (node);

      for (guint i = 0; i < json_array_get_length (array); i++)
        if (has_secret_member (json_array_get_element (array, i)))
          return TRUE;
    }
  return FALSE;
}

/* A copy of node in which every secret member's value is RIV_TRANSCRIPT_SCRUBBED. */
static JsonNode *
scrub_copy (JsonNode *node)
{
  if (JSON_NODE_HOLDS_OBJECT (node))
    {
      g_autoptr(JsonObject) copy = json_object_new ();
      JsonObjectIter iter;
      const char *name;
      JsonNode *member;
      JsonNode *result;

      json_object_iter_init_ordered (&iter, json_node_get_object (node));
      while (json_object_iter_next_ordered (&iter, &name, &member))
        {
          if (riv_transcript_is_secret_key (name))
            json_object_set_string_member (copy, name, RIV_TRANSCRIPT_SCRUBBED);
          else
            json_object_set_member (copy, name, scrub_copy (member));
        }
      result = json_node_new (JSON_NODE_OBJECT);
      json_node_set_object (result, copy);
      return result;
    }
  if (JSON_NODE_HOLDS_ARRAY (node))
    {
      JsonArray *array = json_node_get_array (node);
      g_autoptr(JsonArray) copy = json_array_sized_new (json_array_get_length (array));
      JsonNode *result;

      for (guint i = 0; i < json_array_get_length (array); i++)
        json_array_add_element (copy, scrub_copy (json_array_get_element (array, i)));
      result = json_node_new (JSON_NODE_ARRAY);
      json_node_set_array (result, copy);
      return result;
    }
  return json_node_copy (node);
}

/* The query string with the values of secret keys replaced. */
static char *
scrub_path (const char *path)
{
  const char *query = strchr (path, '?');
  g_auto(GStrv) pairs = NULL;
  GString *out;

  if (query == NULL || !mentions_secret (query, strlen (query)))
    return g_strdup (path);

  out = g_string_new_len (path, query - path + 1);
  pairs = g_strsplit (query + 1, "&", -1);
  for (guint i = 0; pairs[i] != NULL; i++)
    {
      const char *eq = strchr (pairs[i], '=');
      g_autofree char *key = g_strndup (pairs[i], eq != NULL ? (gsize) (eq - pairs[i]) : strlen (pairs[i]));

      if (i > 0)
        g_string_append_c (out, '&');
      if (riv_transcript_is_secret_key (key))
        g_string_append_printf (out, "%s=%s", key, RIV_TRANSCRIPT_SCRUBBED);
      else
        g_string_append (out, pairs[i]);
    }
  return g_string_free (out, FALSE);
}

/* Writing lines */

static void
append_json_string (GString    *out,
                    const char *text,
                    gsize       len)
{
  g_autofree char *valid = NULL;

  if (!g_utf8_validate_len (text, len, NULL))
    {
      valid = g_utf8_make_valid (text, len);
      text = valid;
      len = strlen (valid);
    }

  g_string_append_c (out, '"');
  for (gsize i = 0; i < len; i++)
    {
      guchar c = text[i];

      switch (c)
        {
        case '"':
          g_string_append (out, "\\\"");
          break;
        case '\\':
          g_string_append (out, "\\\\");
          break;
        case '\n':
          g_string_append (out, "\\n");
          break;
        case '\r':
          g_string_append (out, "\\r");
          break;
        case '\t':
          g_string_append (out, "\\t");
          break;
        default:
          if (c < 0x20)
            g_string_append_printf (out, "\\u%04x", c);
          else
            g_string_append_c (out, c);
        }
    }
  g_string_append_c (out, '"');
}

static void
append_member_string (GString    *out,
                      const char *name,
                      const char *value)
{
  g_string_append_printf (out, ",\"%s\":", name);
  append_json_string (out, value, strlen (value));
}

/* The longest prefix of text, at most max bytes, that ends on a character boundary. */
static gsize
utf8_prefix (const char *text,
             gsize       len,
             gsize       max)
{
  gsize n = MIN (len, max);

  while (n > 0 && n < len && ((guchar) text[n] & 0xc0) == 0x80)
    n--;
  return n;
}

static void
append_body (GString                  *out,
             const RivTapEvent *event)
{
  const char *text = event->text;
  gsize len = event->text_len;
  /* A reply is served again by a replay (a Gradio 5 /config is over 64 KiB). */
  gsize max = event->kind == RIV_TAP_REQUEST ? RIV_TRANSCRIPT_MAX_BODY
                                                    : RIV_TRANSCRIPT_MAX_REPLY_BODY;

  if (text == NULL)
    return;

  if (len <= max && !event->cut)
    {
      g_autoptr(JsonNode) node = riv_json_parse (NULL, text, len, RIV_MESSAGE_MAX_DEPTH, NULL);

      if (node != NULL)
        {
          g_autofree char *json = NULL;

          if (has_secret_member (node))
            {
              g_autoptr(JsonNode) scrubbed = scrub_copy (node);

              json = riv_json_to_string (scrubbed, NULL);
            }
          else
            json = riv_json_to_string (node, NULL);
          g_string_append_printf (out, ",\"body\":%s", json);
          return;
        }
    }

  if (!g_utf8_validate_len (text, MIN (len, max), NULL) &&
      !g_utf8_validate_len (text, utf8_prefix (text, len, max), NULL))
    {
      g_string_append_printf (out, ",\"cut\":true,\"size\":%" G_GSIZE_FORMAT, len);
      return;
    }

  /* A text a request sent may be a login form: drop it whole when it names a secret. */
  if (event->kind == RIV_TAP_REQUEST && mentions_secret (text, len))
    {
      append_member_string (out, "body_text", RIV_TRANSCRIPT_SCRUBBED);
      return;
    }

  g_string_append (out, ",\"body_text\":");
  if (len > max || event->cut)
    {
      append_json_string (out, text, utf8_prefix (text, len, max));
      g_string_append_printf (out, ",\"cut\":true,\"size\":%" G_GSIZE_FORMAT, len);
    }
  else
    append_json_string (out, text, len);
}

static void
append_frame (GString    *out,
              const char *data,
              gsize       len)
{
  g_string_append (out, ",\"data\":");
  /* Frames are kept as received, unless a member of theirs names a secret. */
  if (mentions_secret (data, len))
    {
      g_autoptr(JsonNode) node = riv_json_parse (NULL, data, len, RIV_MESSAGE_MAX_DEPTH, NULL);

      if (node != NULL && has_secret_member (node))
        {
          g_autoptr(JsonNode) scrubbed = scrub_copy (node);
          gsize json_len = 0;
          g_autofree char *json = riv_json_to_string (scrubbed, &json_len);

          append_json_string (out, json, json_len);
          return;
        }
    }
  append_json_string (out, data, len);
}

/* One line, with its '\n'. */
static GString *
format_line (const RivTapEvent *event,
             double                    t)
{
  GString *out = g_string_sized_new (128 + event->text_len);

  g_string_append_printf (out, "{\"t\":%.6f,\"kind\":\"%s\"", MAX (t, 0.0),
                          riv_transcript_kind_to_string (event->kind));
  switch (event->kind)
    {
    case RIV_TAP_REQUEST:
    case RIV_TAP_RESPONSE:
      {
        g_autofree char *path = scrub_path (event->path != NULL ? event->path : "/");

        g_string_append_printf (out, ",\"id\":%" G_GUINT64_FORMAT, event->id);
        if (event->stream > 0)
          g_string_append_printf (out, ",\"stream\":%u", event->stream);
        append_member_string (out, "method", event->method != NULL ? event->method : "GET");
        append_member_string (out, "path", path);
        if (event->kind == RIV_TAP_RESPONSE)
          g_string_append_printf (out, ",\"status\":%u", event->status);
        append_body (out, event);
      }
      break;
    case RIV_TAP_SSE:
      g_string_append_printf (out, ",\"stream\":%u", event->stream);
      append_frame (out, event->text != NULL ? event->text : "", event->text_len);
      break;
    case RIV_TAP_SSE_END:
      g_string_append_printf (out, ",\"stream\":%u", event->stream);
      append_member_string (out, "end", riv_transcript_end_to_string (event->end));
      break;
    case RIV_TAP_TRUNCATED:
    default:
      break;
    }
  g_string_append (out, "}\n");
  return out;
}

char *
riv_transcript_format (const RivTapEvent *event,
                       double                    t,
                       gsize                    *len)
{
  GString *line = format_line (event, t);

  if (len != NULL)
    *len = line->len;
  return g_string_free (line, FALSE);
}

/* The writer */

struct _RivTranscriptWriter
{
  FILE         *file;            /* owned; written only by the thread */
  GThread      *thread;          /* owned */
  GAsyncQueue  *lines;           /* owned: GString *, or the stop marker */
  double        origin;
  guint64       max_bytes;
  guint64       bytes;           /* queued so far */
  gboolean      truncated;
  int           write_errno;     /* set by the thread, read after joining it */
};

/* Pushed last: the thread stops when it sees it. */
static GString stop_marker;

static gpointer
writer_thread (gpointer data)
{
  RivTranscriptWriter *self = data;
  GString *line;

  while ((line = g_async_queue_pop (self->lines)) != &stop_marker)
    {
      if (self->write_errno == 0 && fwrite (line->str, 1, line->len, self->file) != line->len)
        self->write_errno = errno != 0 ? errno : EIO;
      g_string_free (line, TRUE);
    }
  if (self->write_errno == 0 && fflush (self->file) != 0)
    self->write_errno = errno != 0 ? errno : EIO;
  return NULL;
}

RivTranscriptWriter *
riv_transcript_writer_new (const char  *path,
                           guint64      max_bytes,
                           GError     **error)
{
  RivTranscriptWriter *self;
  FILE *file;

  g_return_val_if_fail (path != NULL, NULL);

  file = g_fopen (path, "w");
  if (file == NULL)
    {
      int saved = errno;

      g_set_error (error, G_IO_ERROR, g_io_error_from_errno (saved),
                   "cannot write the recording %s: %s", path, g_strerror (saved));
      return NULL;
    }

  self = g_new0 (RivTranscriptWriter, 1);
  self->file = file;
  self->origin = riv_now ();
  self->max_bytes = max_bytes > 0 ? max_bytes : RIV_TRANSCRIPT_DEFAULT_MAX_BYTES;
  self->lines = g_async_queue_new ();
  self->thread = g_thread_new ("riv-transcript", writer_thread, self);
  return self;
}

void
riv_transcript_writer_set_origin (RivTranscriptWriter *self,
                                  double               origin)
{
  self->origin = origin;
}

void
riv_transcript_writer_add (RivTranscriptWriter      *self,
                           const RivTapEvent *event)
{
  /* Room kept for the line that marks the cut. */
  const guint64 reserve = 96;
  GString *line;

  g_return_if_fail (self != NULL && event != NULL);

  if (self->truncated || event->kind == RIV_TAP_TRUNCATED)
    return;

  line = format_line (event, event->t - self->origin);
  if (self->bytes + line->len + reserve > self->max_bytes)
    {
      g_string_free (line, TRUE);
      self->truncated = TRUE;
      line = g_string_new (NULL);
      g_string_printf (line, "{\"t\":%.6f,\"kind\":\"truncated\",\"max_bytes\":%" G_GUINT64_FORMAT "}\n",
                       MAX (event->t - self->origin, 0.0), self->max_bytes);
    }
  self->bytes += line->len;
  g_async_queue_push (self->lines, line);
}

void
riv_transcript_writer_tap (const RivTapEvent *event,
                           gpointer                  user_data)
{
  riv_transcript_writer_add (user_data, event);
}

gboolean
riv_transcript_writer_get_truncated (RivTranscriptWriter *self)
{
  return self->truncated;
}

guint64
riv_transcript_writer_get_bytes (RivTranscriptWriter *self)
{
  return self->bytes;
}

gboolean
riv_transcript_writer_close (RivTranscriptWriter  *self,
                             GError              **error)
{
  gboolean ok;

  g_return_val_if_fail (self != NULL, FALSE);

  g_async_queue_push (self->lines, &stop_marker);
  g_thread_join (self->thread);
  if (fclose (self->file) != 0 && self->write_errno == 0)
    self->write_errno = errno != 0 ? errno : EIO;
  ok = self->write_errno == 0;
  if (!ok)
    g_set_error (error, RIV_TRANSCRIPT_ERROR, RIV_TRANSCRIPT_ERROR_WRITE,
                 "cannot write the recording: %s", g_strerror (self->write_errno));
  g_async_queue_unref (self->lines);
  g_free (self);
  return ok;
}

/* Reading */

static gboolean G_GNUC_PRINTF (3, 4)
line_error (GError     **error,
            guint        line,
            const char  *format,
            ...)
{
  g_autofree char *message = NULL;
  va_list args;

  va_start (args, format);
  message = g_strdup_vprintf (format, args);
  va_end (args);
  g_set_error (error, RIV_TRANSCRIPT_ERROR, RIV_TRANSCRIPT_ERROR_INVALID, "line %u: %s", line, message);
  return FALSE;
}

/* An integer member in [min, max]; absent is allowed when !required. */
static gboolean
get_uint (JsonObject  *object,
          const char  *name,
          gboolean     required,
          guint64      min,
          guint64      max,
          guint64     *out,
          guint        line,
          GError     **error)
{
  JsonNode *node = json_object_get_member (object, name);

  if (node == NULL)
    {
      if (required)
        return line_error (error, line, "no \"%s\"", name);
      *out = 0;
      return TRUE;
    }
  if (!JSON_NODE_HOLDS_VALUE (node) || json_node_get_value_type (node) != G_TYPE_INT64 ||
      json_node_get_int (node) < 0 || (guint64) json_node_get_int (node) < min ||
      (guint64) json_node_get_int (node) > max)
    return line_error (error, line, "\"%s\" is not an integer from %" G_GUINT64_FORMAT " to %" G_GUINT64_FORMAT,
                       name, min, max);
  *out = json_node_get_int (node);
  return TRUE;
}

static const char *
get_string (JsonObject  *object,
            const char  *name,
            guint        line,
            GError     **error)
{
  JsonNode *node = json_object_get_member (object, name);

  if (node == NULL || !JSON_NODE_HOLDS_VALUE (node) || json_node_get_value_type (node) != G_TYPE_STRING)
    {
      line_error (error, line, "\"%s\" is missing or not a string", name);
      return NULL;
    }
  return json_node_get_string (node);
}

static gboolean
read_http (RivTapEvent         *event,
           JsonObject          *object,
           GError             **error)
{
  const char *method, *path;
  guint64 value;
  JsonNode *body = json_object_get_member (object, "body");
  JsonNode *body_text = json_object_get_member (object, "body_text");
  JsonNode *cut = json_object_get_member (object, "cut");

  if (!get_uint (object, "id", TRUE, 0, G_MAXINT64, &event->id, event->line, error))
    return FALSE;
  if (!get_uint (object, "stream", FALSE, 1, G_MAXUINT, &value, event->line, error))
    return FALSE;
  event->stream = value;
  if ((method = get_string (object, "method", event->line, error)) == NULL)
    return FALSE;
  if (method[0] == '\0' || strpbrk (method, " \r\n\t") != NULL)
    return line_error (error, event->line, "\"method\" is not an HTTP method");
  if ((path = get_string (object, "path", event->line, error)) == NULL)
    return FALSE;
  if (path[0] != '/')
    return line_error (error, event->line, "\"path\" does not start with /");
  event->method = g_strdup (method);
  event->path = g_strdup (path);

  if (event->kind == RIV_TAP_RESPONSE)
    {
      if (!get_uint (object, "status", TRUE, 100, 599, &value, event->line, error))
        return FALSE;
      event->status = value;
    }

  if (body != NULL && body_text != NULL)
    return line_error (error, event->line, "both \"body\" and \"body_text\"");
  if (body != NULL)
    event->text = riv_json_to_string (body, &event->text_len);
  else if (body_text != NULL)
    {
      if (!JSON_NODE_HOLDS_VALUE (body_text) || json_node_get_value_type (body_text) != G_TYPE_STRING)
        return line_error (error, event->line, "\"body_text\" is not a string");
      event->text = g_strdup (json_node_get_string (body_text));
      event->text_len = strlen (event->text);
    }
  if (cut != NULL)
    {
      if (!JSON_NODE_HOLDS_VALUE (cut) || json_node_get_value_type (cut) != G_TYPE_BOOLEAN)
        return line_error (error, event->line, "\"cut\" is not true or false");
      event->cut = json_node_get_boolean (cut);
    }
  return TRUE;
}

static gboolean
read_sse (RivTapEvent         *event,
          JsonObject          *object,
          GError             **error)
{
  JsonNode *data = json_object_get_member (object, "data");
  JsonNode *end = json_object_get_member (object, "end");
  guint64 stream;

  if (!get_uint (object, "stream", TRUE, 1, G_MAXUINT, &stream, event->line, error))
    return FALSE;
  event->stream = stream;
  if ((data != NULL) == (end != NULL))
    return line_error (error, event->line, "an \"sse\" event has either \"data\" or \"end\"");
  if (data != NULL)
    {
      if (!JSON_NODE_HOLDS_VALUE (data) || json_node_get_value_type (data) != G_TYPE_STRING)
        return line_error (error, event->line, "\"data\" is not a string");
      event->text = g_strdup (json_node_get_string (data));
      event->text_len = strlen (event->text);
      return TRUE;
    }

  event->kind = RIV_TAP_SSE_END;
  if (!JSON_NODE_HOLDS_VALUE (end) || json_node_get_value_type (end) != G_TYPE_STRING)
    return line_error (error, event->line, "\"end\" is not a string");
  for (RivTapEnd e = RIV_TAP_END_EOF; e <= RIV_TAP_END_CLIENT; e++)
    if (strcmp (json_node_get_string (end), riv_transcript_end_to_string (e)) == 0)
      {
        event->end = e;
        return TRUE;
      }
  return line_error (error, event->line, "\"end\" is not eof, error or client");
}

static RivTapEvent *
read_line (JsonParser  *parser,
           const char  *text,
           gsize        len,
           guint        line,
           double       previous_t,
           GError     **error)
{
  g_autoptr(RivTapEvent) event = g_new0 (RivTapEvent, 1);
  g_autoptr(JsonNode) root = NULL;
  g_autoptr(GError) json_error = NULL;
  JsonObject *object;
  JsonNode *t;
  const char *kind;
  gboolean ok;

  event->line = line;
  root = riv_json_parse (parser, text, len, RIV_MESSAGE_MAX_DEPTH, &json_error);
  if (root == NULL)
    {
      line_error (error, line, "not JSON: %s", json_error->message);
      return NULL;
    }
  if (!JSON_NODE_HOLDS_OBJECT (root))
    {
      line_error (error, line, "not a JSON object");
      return NULL;
    }
  object = json_node_get_object (root);

  t = json_object_get_member (object, "t");
  if (t == NULL || !JSON_NODE_HOLDS_VALUE (t) ||
      (json_node_get_value_type (t) != G_TYPE_DOUBLE && json_node_get_value_type (t) != G_TYPE_INT64))
    {
      line_error (error, line, "\"t\" is missing or not a number");
      return NULL;
    }
  event->t = json_node_get_value_type (t) == G_TYPE_DOUBLE ? json_node_get_double (t)
                                                           : (double) json_node_get_int (t);
  if (!isfinite (event->t) || event->t < 0 || event->t > 1e9)
    {
      line_error (error, line, "\"t\" is not a time in seconds from the start");
      return NULL;
    }
  if (event->t < previous_t)
    {
      line_error (error, line, "\"t\" goes back in time (%g after %g)", event->t, previous_t);
      return NULL;
    }

  if ((kind = get_string (object, "kind", line, error)) == NULL)
    return NULL;
  if (strcmp (kind, "request") == 0)
    {
      event->kind = RIV_TAP_REQUEST;
      ok = read_http (event, object, error);
    }
  else if (strcmp (kind, "response") == 0)
    {
      event->kind = RIV_TAP_RESPONSE;
      ok = read_http (event, object, error);
    }
  else if (strcmp (kind, "sse") == 0)
    {
      event->kind = RIV_TAP_SSE;
      ok = read_sse (event, object, error);
    }
  else if (strcmp (kind, "truncated") == 0)
    {
      event->kind = RIV_TAP_TRUNCATED;
      ok = TRUE;
    }
  else
    ok = line_error (error, line, "unknown kind \"%s\" (request, response, sse or truncated)", kind);

  return ok ? g_steal_pointer (&event) : NULL;
}

GPtrArray *
riv_transcript_parse (const char  *data,
                      gsize        len,
                      GError     **error)
{
  g_autoptr(GPtrArray) events = g_ptr_array_new_with_free_func ((GDestroyNotify) riv_transcript_event_free);
  g_autoptr(JsonParser) parser = json_parser_new_immutable ();
  const char *end = data + len;
  const char *p = data;
  double previous_t = 0;
  gboolean truncated = FALSE;
  guint line = 0;

  g_return_val_if_fail (data != NULL || len == 0, NULL);

  while (p < end)
    {
      const char *nl = memchr (p, '\n', end - p);
      const char *stop = nl != NULL ? nl : end;
      gsize n = stop - p;
      RivTapEvent *event;
      gboolean blank = TRUE;

      line++;
      for (gsize i = 0; i < n && blank; i++)
        blank = g_ascii_isspace (p[i]);
      if (!blank)
        {
          if (memchr (p, '\0', n) != NULL)
            {
              line_error (error, line, "a NUL byte");
              return NULL;
            }
          if (truncated)
            {
              line_error (error, line, "an event after the \"truncated\" mark");
              return NULL;
            }
          event = read_line (parser, p, n, line, previous_t, error);
          if (event == NULL)
            return NULL;
          previous_t = event->t;
          truncated = event->kind == RIV_TAP_TRUNCATED;
          g_ptr_array_add (events, event);
        }
      p = stop + 1;
    }

  return g_steal_pointer (&events);
}

GPtrArray *
riv_transcript_load (const char  *path,
                     GError     **error)
{
  g_autofree char *contents = NULL;
  g_autoptr(GError) local_error = NULL;
  GPtrArray *events;
  gsize len = 0;

  if (!g_file_get_contents (path, &contents, &len, error))
    return NULL;
  events = riv_transcript_parse (contents, len, &local_error);
  if (events == NULL)
    g_set_error (error, RIV_TRANSCRIPT_ERROR, RIV_TRANSCRIPT_ERROR_INVALID, "%s: %s", path,
                 local_error->message);
  return events;
}
