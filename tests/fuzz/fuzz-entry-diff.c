/* fuzz-entry-diff.c
 * Copyright 2026 The Rivulet authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Input: a JSON array [initial_value, edits, edits, …] (one or more edit
 * lists, applied in turn as successive process_generating frames would be).
 *
 * Oracles, for the input parsed both immutably (as frames are) and mutably
 * (as a caller-built value is):
 *  - RivDiffValue agrees with riv_diff_apply() after every edit list: both
 *    succeed with the same JSON, or both fail with the same error code;
 *  - on error the value is unchanged (all or nothing);
 *  - the input (initial value and edit lists) is never modified;
 *  - riv_diff_value_peek_string() is non-NULL exactly when the value is a
 *    string, and then equals it;
 *  - both parses give the same results;
 *  - riv_diff_new_replace() / riv_diff_new_append() and
 *    riv_diff_value_set() do what they say.
 */
#include "config.h"

#include <string.h>

#include "fuzz-entry.h"
#include "riv-diff.h"
#include "riv-json.h"
#include "riv-message.h"

static char *
to_json (JsonNode *node)
{
  g_autoptr(JsonNode) null = NULL;

  if (node == NULL)
    node = null = json_node_new (JSON_NODE_NULL);
  return riv_json_to_string (node, NULL);
}

static void
check_peek (RivDiffValue *value,
            const char   *json,
            JsonNode     *node)
{
  gsize length = 0;
  const char *peek = riv_diff_value_peek_string (value, &length);
  gboolean is_string = JSON_NODE_HOLDS_VALUE (node) && json_node_get_value_type (node) == G_TYPE_STRING;

  RIV_FUZZ_CHECK ((peek != NULL) == is_string, "peek_string %s for the value %.200s",
                  peek != NULL ? "returns text" : "returns NULL", json);
  if (peek != NULL)
    {
      RIV_FUZZ_CHECK (length == strlen (peek), "peek_string length %zu, text length %zu",
                      length, strlen (peek));
      RIV_FUZZ_CHECK (strcmp (peek, json_node_get_string (node)) == 0,
                      "peek_string differs from the value");
    }
}

/* Runs every edit list through both APIs; returns the final value's JSON. */
static char *
run (JsonNode *root_node,
     guint     dup_pattern)
{
  JsonArray *root = json_node_get_array (root_node);
  guint n = json_array_get_length (root);
  JsonNode *initial = json_array_get_element (root, 0);
  g_autofree char *input_before = to_json (root_node);
  g_autofree char *input_after = NULL;
  g_autoptr(JsonNode) value = NULL;
  g_autoptr(RivDiffValue) dv = NULL;
  g_autofree char *result = NULL;

  value = JSON_NODE_HOLDS_NULL (initial) ? NULL : json_node_ref (initial);
  dv = riv_diff_value_new (initial);

  for (guint i = 1; i < n; i++)
    {
      JsonNode *edits = json_array_get_element (root, i);
      g_autoptr(GError) error = NULL;
      g_autoptr(GError) dv_error = NULL;
      g_autofree char *before = to_json (value);
      gboolean ok, dv_ok;

      ok = riv_diff_apply (&value, edits, &error);
      RIV_FUZZ_CHECK (ok == (error == NULL), "riv_diff_apply result and error disagree");
      if (!ok)
        {
          g_autofree char *after = to_json (value);

          RIV_FUZZ_CHECK (error->domain == RIV_DIFF_ERROR, "error outside RIV_DIFF_ERROR: %s",
                          error->message);
          RIV_FUZZ_CHECK (strcmp (before, after) == 0, "failed edit list %u changed the value", i);
        }

      dv_ok = riv_diff_value_apply (dv, edits, &dv_error);
      RIV_FUZZ_CHECK (dv_ok == ok, "edit list %u: riv_diff_apply %s (%s), RivDiffValue %s (%s)", i,
                      ok ? "succeeded" : "failed", ok ? "" : error->message,
                      dv_ok ? "succeeded" : "failed", dv_ok ? "" : dv_error->message);
      if (!ok)
        RIV_FUZZ_CHECK (dv_error->domain == error->domain && dv_error->code == error->code,
                        "edit list %u: error \"%s\" vs \"%s\"", i, error->message, dv_error->message);

      /* Not after every list: RivDiffValue builds its node lazily, and
       * appends across several lists must work without one in between. */
      if ((dup_pattern >> (i % 8)) & 1 || i == n - 1)
        {
          g_autoptr(JsonNode) node = NULL;
          g_autofree char *expected = to_json (value);
          g_autofree char *got = NULL;
          gsize length;

          /* peek_string before dup_node, while the tree may be stale. */
          if (riv_diff_value_peek_string (dv, &length) != NULL)
            RIV_FUZZ_CHECK (value != NULL && JSON_NODE_HOLDS_VALUE (value) &&
                            json_node_get_value_type (value) == G_TYPE_STRING &&
                            strcmp (riv_diff_value_peek_string (dv, NULL),
                                    json_node_get_string (value)) == 0,
                            "peek_string before dup_node differs from riv_diff_apply");

          node = riv_diff_value_dup_node (dv);
          RIV_FUZZ_CHECK (node != NULL, "dup_node returned NULL");
          got = to_json (node);
          RIV_FUZZ_CHECK (strcmp (expected, got) == 0,
                          "after edit list %u: riv_diff_apply gives %.300s, RivDiffValue %.300s",
                          i, expected, got);
          check_peek (dv, got, node);
        }
    }

  input_after = to_json (root_node);
  RIV_FUZZ_CHECK (strcmp (input_before, input_after) == 0, "the input was modified");

  result = to_json (value);

  /* A replace of the whole value gives exactly that value. */
  {
    g_autoptr(JsonNode) replace = riv_diff_new_replace (initial);
    g_autoptr(JsonNode) copy = value != NULL ? json_node_ref (value) : NULL;
    g_autoptr(GError) error = NULL;
    g_autofree char *got = NULL;
    g_autofree char *initial_json = to_json (initial);

    RIV_FUZZ_CHECK (riv_diff_apply (&copy, replace, &error), "replace failed: %s", error->message);
    got = to_json (copy);
    RIV_FUZZ_CHECK (strcmp (got, initial_json) == 0, "replace gives %.200s", got);
  }

  /* An append to a string result adds exactly the suffix. */
  if (value != NULL && JSON_NODE_HOLDS_VALUE (value) && json_node_get_value_type (value) == G_TYPE_STRING)
    {
      g_autoptr(JsonNode) append = riv_diff_new_append ("\xc3\xa9+");
      g_autoptr(JsonNode) copy = json_node_ref (value);
      g_autoptr(GError) error = NULL;
      g_autofree char *expected = g_strconcat (json_node_get_string (value), "\xc3\xa9+", NULL);
      gsize length = 0;
      const char *peek;

      RIV_FUZZ_CHECK (riv_diff_apply (&copy, append, &error), "append failed: %s", error->message);
      RIV_FUZZ_CHECK (strcmp (json_node_get_string (copy), expected) == 0, "append result differs");
      RIV_FUZZ_CHECK (riv_diff_value_apply (dv, append, NULL), "RivDiffValue append failed");
      peek = riv_diff_value_peek_string (dv, &length);
      RIV_FUZZ_CHECK (peek != NULL && strcmp (peek, expected) == 0 && length == strlen (expected),
                      "RivDiffValue append result differs");
    }

  /* riv_diff_value_set() starts over from a whole value. */
  {
    g_autoptr(JsonNode) node = NULL;
    g_autofree char *got = NULL;
    g_autofree char *initial_json = to_json (initial);

    riv_diff_value_set (dv, initial);
    node = riv_diff_value_dup_node (dv);
    got = to_json (node);
    RIV_FUZZ_CHECK (strcmp (got, initial_json) == 0, "after set: %.200s", got);
    check_peek (dv, got, node);
  }

  return g_steal_pointer (&result);
}

void
riv_fuzz_diff (const guint8 *data,
               gsize         size)
{
  g_autoptr(JsonParser) immutable = json_parser_new_immutable ();
  g_autoptr(JsonParser) mutable = json_parser_new ();
  g_autoptr(JsonNode) frozen = NULL;
  g_autoptr(JsonNode) thawed = NULL;
  g_autofree char *a = NULL;
  g_autofree char *b = NULL;
  guint dup_pattern;

  /* The same depth bound as frames (riv_message_parse). */
  frozen = riv_json_parse (immutable, (const char *) data, size, RIV_MESSAGE_MAX_DEPTH, NULL);
  if (frozen == NULL || !JSON_NODE_HOLDS_ARRAY (frozen) ||
      json_array_get_length (json_node_get_array (frozen)) < 2)
    return;
  thawed = riv_json_parse (mutable, (const char *) data, size, RIV_MESSAGE_MAX_DEPTH, NULL);
  RIV_FUZZ_CHECK (thawed != NULL, "a mutable parser rejects what an immutable one accepts");

  dup_pattern = size * 2654435761u;
  a = run (frozen, dup_pattern);
  b = run (thawed, ~dup_pattern);
  RIV_FUZZ_CHECK (strcmp (a, b) == 0, "immutable input gives %.200s, mutable input %.200s", a, b);
}
