/* fuzz-entry-message.c
 * Copyright 2026 The Rivulet authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Input: one frame's data, not NUL-terminated.
 *
 * Oracles:
 *  - riv_message_parse() with a parser reused across inputs (as RivClient
 *    does) gives the same message as with a fresh parser, and the same as
 *    the NUL-terminated copy with len -1 (when the input has no NUL byte);
 *    the message stays the same after the parser loads other text;
 *  - kind matches msg (riv_message_kind_from_string / _to_string round-trip);
 *  - progress in 0..1, data borrowed from output.data, cancelled only on
 *    process_completed, error text only with has_error;
 *  - an error is always RIV_MESSAGE_ERROR_INVALID;
 *  - a frame whose text is two messages one after the other is rejected;
 *  - riv_message_parse_lean() (read straight from the text, as RivClient
 *    reads its stream) accepts and refuses exactly what riv_message_parse()
 *    does, with the same error, and gives the same message but the whole
 *    output: every field and output.data the same;
 *  - output_used_cache is output.used_cache read as a boolean from the tree.
 */
#include "config.h"

#include <math.h>
#include <string.h>

#include "fuzz-entry.h"
#include "riv-json.h"
#include "riv-message.h"

static void
append_str (GString    *out,
            const char *name,
            const char *value)
{
  if (value != NULL)
    g_string_append_printf (out, "%s=%zu:%s;", name, strlen (value), value);
  else
    g_string_append_printf (out, "%s=NULL;", name);
}

/* Every field, so that two parses can be compared. */
static char *
describe_full (RivMessage *m,
               gboolean    with_output)
{
  GString *out = g_string_new (NULL);

  g_string_append_printf (out, "kind=%d;", m->kind);
  append_str (out, "msg", m->msg);
  append_str (out, "event_id", m->event_id);
  g_string_append_printf (out, "rank=%d/%" G_GINT64_FORMAT ";queue_size=%d/%" G_GINT64_FORMAT
                          ";rank_eta=%d/%a;eta=%d/%a;",
                          m->has_rank, m->rank, m->has_queue_size, m->queue_size,
                          m->has_rank_eta, m->rank_eta, m->has_eta, m->eta);
  if (m->progress != NULL)
    for (guint i = 0; i < m->progress->len; i++)
      {
        RivProgressUnit *u = &g_array_index (m->progress, RivProgressUnit, i);

        g_string_append_printf (out, "unit%u=%d/%" G_GINT64_FORMAT ",%d/%" G_GINT64_FORMAT ",%d/%a;",
                                i, u->has_index, u->index, u->has_length, u->length,
                                u->has_progress, u->progress);
        append_str (out, "unit", u->unit);
        append_str (out, "desc", u->desc);
      }
  else
    g_string_append (out, "progress=NULL;");
  append_str (out, "log", m->log);
  append_str (out, "level", m->level);
  append_str (out, "title", m->title);
  g_string_append_printf (out, "success=%d;", m->success);
  if (m->output != NULL && with_output)
    {
      g_autofree char *json = riv_json_to_string (m->output, NULL);

      append_str (out, "output", json);
    }
  if (riv_message_get_data (m) != NULL)
    {
      g_autofree char *json = riv_json_to_string (m->data, NULL);

      append_str (out, "data", json);
    }
  g_string_append_printf (out, "has_error=%d;", m->has_error);
  append_str (out, "error", m->error);
  g_string_append_printf (out, "gen=%d;output_used_cache=%d;cancelled=%d;duration=%d/%a;batch=%d;",
                          m->is_generating, m->output_used_cache, m->cancelled, m->has_duration,
                          m->duration, m->has_batch);
  append_str (out, "batch_id", m->batch_id);
  g_string_append_printf (out, "batch=%" G_GINT64_FORMAT "/%" G_GINT64_FORMAT ";",
                          m->batch_size, m->batch_index);
  append_str (out, "message", m->message);
  g_string_append_printf (out, "snf=%d", m->session_not_found);
  return g_string_free (out, FALSE);
}

static char *
describe (RivMessage *m)
{
  return describe_full (m, TRUE);
}

static void
check_message (RivMessage *m)
{
  RIV_FUZZ_CHECK (m->msg != NULL, "message without msg");
  RIV_FUZZ_CHECK (m->kind == riv_message_kind_from_string (m->msg), "kind does not match msg");
  if (m->kind != RIV_MESSAGE_UNKNOWN)
    RIV_FUZZ_CHECK (strcmp (riv_message_kind_to_string (m->kind), m->msg) == 0,
                    "kind name %s for msg %s", riv_message_kind_to_string (m->kind), m->msg);

  if (m->progress != NULL)
    {
      RIV_FUZZ_CHECK (m->kind == RIV_MESSAGE_PROGRESS, "progress units on a %s", m->msg);
      for (guint i = 0; i < m->progress->len; i++)
        {
          RivProgressUnit *u = &g_array_index (m->progress, RivProgressUnit, i);

          RIV_FUZZ_CHECK (!u->has_progress || (u->progress >= 0 && u->progress <= 1),
                          "progress %g outside 0..1", u->progress);
        }
    }
  if (m->has_rank_eta)
    RIV_FUZZ_CHECK (isfinite (m->rank_eta), "rank_eta not finite");
  if (m->has_eta)
    RIV_FUZZ_CHECK (isfinite (m->eta), "eta not finite");
  if (m->has_duration)
    RIV_FUZZ_CHECK (isfinite (m->duration), "duration not finite");

  if (m->data != NULL && m->output != NULL)
    {
      RIV_FUZZ_CHECK (JSON_NODE_HOLDS_OBJECT (m->output) &&
                      json_object_get_member (json_node_get_object (m->output), "data") == m->data,
                      "data is not output.data");
    }
  if (m->data != NULL)
    RIV_FUZZ_CHECK (JSON_NODE_HOLDS_ARRAY (m->data), "data is not an array");
  if (m->error != NULL)
    RIV_FUZZ_CHECK (m->has_error, "error text without has_error");
  if (m->cancelled)
    RIV_FUZZ_CHECK (m->kind == RIV_MESSAGE_PROCESS_COMPLETED, "cancelled on a %s", m->msg);
  if (!m->has_batch)
    RIV_FUZZ_CHECK (m->batch_id == NULL && m->batch_size == 0 && m->batch_index == 0,
                    "batch fields without a batch");
}

#include "riv-diff.h"

/* What the lean reader says each output gains is what applying its edit list
 * to a text gives. */
static void
check_appends (RivMessage *m)
{
  JsonArray *data;

  if (m->appends == NULL)
    return;
  RIV_FUZZ_CHECK (riv_message_get_data (m) != NULL, "appends without data");
  data = json_node_get_array (m->data);
  RIV_FUZZ_CHECK (g_strv_length (m->appends) == json_array_get_length (data),
                  "%u appends for %u outputs", g_strv_length (m->appends),
                  json_array_get_length (data));
  for (guint i = 0; m->appends[i] != NULL; i++)
    {
      g_autoptr(JsonNode) start = json_node_init_string (json_node_alloc (), "x");
      g_autoptr(RivDiffValue) by_list = riv_diff_value_new (start);
      g_autoptr(RivDiffValue) by_text = riv_diff_value_new (start);
      g_autoptr(GError) error = NULL;
      const char *a, *b;

      RIV_FUZZ_CHECK (riv_diff_value_apply (by_list, json_array_get_element (data, i), &error),
                      "output %u's appends do not apply: %s", i, error->message);
      RIV_FUZZ_CHECK (riv_diff_value_append_root (by_text, m->appends[i]), "append_root refused");
      a = riv_diff_value_peek_string (by_list, NULL);
      b = riv_diff_value_peek_string (by_text, NULL);
      RIV_FUZZ_CHECK (a != NULL && b != NULL && strcmp (a, b) == 0,
                      "output %u: the edit list gives %s, the appends %s", i, a, b);
    }
}

static JsonParser *shared_parser;

void
riv_fuzz_message (const guint8 *data,
                  gsize         size)
{
  g_autoptr(RivMessage) reused = NULL;
  g_autoptr(RivMessage) fresh = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(GError) fresh_error = NULL;
  g_autofree char *text = NULL;
  g_autofree char *a = NULL;
  g_autofree char *b = NULL;

  if (shared_parser == NULL)
    shared_parser = json_parser_new_immutable ();

  reused = riv_message_parse (shared_parser, (const char *) data, size, &error);
  RIV_FUZZ_CHECK ((reused != NULL) != (error != NULL), "result and error disagree");
  if (error != NULL)
    RIV_FUZZ_CHECK (g_error_matches (error, RIV_MESSAGE_ERROR, RIV_MESSAGE_ERROR_INVALID),
                    "unexpected error %s", error->message);

  fresh = riv_message_parse (NULL, (const char *) data, size, &fresh_error);
  RIV_FUZZ_CHECK ((reused != NULL) == (fresh != NULL), "a reused parser and a fresh one disagree");
  if (reused != NULL)
    {
      check_message (reused);
      /* What lint read from the output tree, now read by both readers. */
      RIV_FUZZ_CHECK (reused->output_used_cache ==
                      (reused->output != NULL && JSON_NODE_HOLDS_OBJECT (reused->output) &&
                       riv_json_get_bool (json_node_get_object (reused->output), "used_cache",
                                          FALSE)),
                      "output_used_cache is not output.used_cache");
      a = describe (reused);
      b = describe (fresh);
      RIV_FUZZ_CHECK (strcmp (a, b) == 0, "reused parser: %s\nfresh parser: %s", a, b);
    }

  /* Read straight from the text: the same message, the same error. */
  {
    g_autoptr(RivMessage) lean = NULL;
    g_autoptr(GError) lean_error = NULL;

    lean = riv_message_parse_lean ((const char *) data, size, &lean_error);
    RIV_FUZZ_CHECK ((lean != NULL) == (reused != NULL), "the lean reader %s what the full one %s",
                    lean != NULL ? "accepts" : "refuses", reused != NULL ? "accepts" : "refuses");
    if (lean != NULL)
      {
        g_autofree char *full_text = describe_full (reused, FALSE);
        g_autofree char *lean_text = describe_full (lean, FALSE);

        check_message (lean);
        RIV_FUZZ_CHECK (lean->output == NULL, "the lean reader kept the output");
        check_appends (lean);
        RIV_FUZZ_CHECK (strcmp (full_text, lean_text) == 0, "full: %s\nlean: %s", full_text, lean_text);
      }
    else
      RIV_FUZZ_CHECK (strcmp (lean_error->message, error->message) == 0,
                      "full error: %s\nlean error: %s", error->message, lean_error->message);
  }

  /* A message is an object, so the text twice over is never one: json-glib
   * 1.6 would take the second object (and leak the first). */
  if (reused != NULL)
    {
      g_autoptr(RivMessage) doubled = NULL;
      g_autofree guint8 *twice = g_malloc (size * 2);

      memcpy (twice, data, size);
      memcpy (twice + size, data, size);
      doubled = riv_message_parse (shared_parser, (const char *) twice, size * 2, NULL);
      RIV_FUZZ_CHECK (doubled == NULL, "two frames in one are accepted as a %s", doubled->msg);
    }

  /* The same text, NUL-terminated, with len -1. */
  if (memchr (data, '\0', size) == NULL)
    {
      g_autoptr(RivMessage) terminated = NULL;
      g_autoptr(GError) terminated_error = NULL;

      text = g_strndup ((const char *) data, size);
      terminated = riv_message_parse (shared_parser, text, -1, &terminated_error);
      RIV_FUZZ_CHECK ((terminated != NULL) == (reused != NULL), "len -1 and len %zu disagree", size);
      if (terminated != NULL)
        {
          g_autofree char *c = describe (terminated);

          RIV_FUZZ_CHECK (strcmp (a, c) == 0, "len -1 gives %s, len %zu gives %s", c, size, a);
        }
    }

  /* The parser has loaded other text since: the first message owns its data. */
  if (reused != NULL)
    {
      g_autofree char *again = describe (reused);

      RIV_FUZZ_CHECK (strcmp (a, again) == 0, "the message changed when its parser was reused");
    }
}
