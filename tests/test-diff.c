/* test-diff.c
 * Copyright 2026 The Rivulet authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "config.h"

#include <string.h>

#include "riv-diff.h"
#include "riv-json.h"
#include "riv-message.h"
#include "riv-test-util.h"

/* Parses like the client does: an immutable (sealed) tree. */
static JsonNode *
sealed (const char *text)
{
  g_autoptr(GError) error = NULL;
  JsonNode *node = riv_json_parse (NULL, text, -1, 0, &error);

  g_assert_no_error (error);
  return node;
}

/* A mutable tree, as a caller could build by hand. */
static JsonNode *
mutable (const char *text)
{
  g_autoptr(GError) error = NULL;
  JsonNode *node = json_from_string (text, &error);

  g_assert_no_error (error);
  g_assert_false (json_node_is_immutable (node));
  return node;
}

static char *
to_text (JsonNode *node)
{
  return node != NULL ? riv_json_to_string (node, NULL) : g_strdup ("null");
}

/* Applies edits to value and checks the result text. */
static void
check_apply (const char *value,
             const char *edits,
             const char *expected)
{
  g_autoptr(JsonNode) v = value != NULL ? sealed (value) : NULL;
  g_autoptr(JsonNode) e = sealed (edits);
  g_autoptr(GError) error = NULL;
  g_autofree char *got = NULL;

  if (!riv_diff_apply (&v, e, &error))
    g_error ("%s on %s: %s", edits, value, error->message);
  got = to_text (v);
  g_assert_cmpstr (got, ==, expected);
}

/* Applies edits that must fail with code, leaving the value as it was. */
static void
check_error (const char *value,
             const char *edits,
             int         code)
{
  g_autoptr(JsonNode) v = value != NULL ? sealed (value) : NULL;
  g_autoptr(JsonNode) e = sealed (edits);
  g_autoptr(GError) error = NULL;
  g_autofree char *before = to_text (v);
  g_autofree char *after = NULL;
  JsonNode *original = v;

  g_assert_false (riv_diff_apply (&v, e, &error));
  g_assert_error (error, RIV_DIFF_ERROR, code);
  /* All or nothing: same node, same content. */
  g_assert_true (v == original);
  after = to_text (v);
  g_assert_cmpstr (after, ==, before);
}

static void
test_replace (void)
{
  check_apply ("\"old\"", "[[\"replace\",[],\"new\"]]", "\"new\"");
  check_apply ("\"old\"", "[[\"replace\",[],{\"a\":[1]}]]", "{\"a\":[1]}");
  check_apply (NULL, "[[\"replace\",[],[1,2]]]", "[1,2]");
  check_apply ("[1,2,3]", "[[\"replace\",[1],\"x\"]]", "[1,\"x\",3]");
  check_apply ("{\"a\":1,\"b\":2}", "[[\"replace\",[\"a\"],null]]", "{\"a\":null,\"b\":2}");
  /* Replace on a dict sets a missing key too (as Python's d[k] = v). */
  check_apply ("{\"a\":1}", "[[\"replace\",[\"b\"],2]]", "{\"a\":1,\"b\":2}");
  check_apply ("{\"a\":{\"b\":[0,{\"c\":1}]}}", "[[\"replace\",[\"a\",\"b\",1,\"c\"],[true]]]",
               "{\"a\":{\"b\":[0,{\"c\":[true]}]}}");
}

static void
test_append (void)
{
  check_apply ("\"Hel\"", "[[\"append\",[],\"lo\"]]", "\"Hello\"");
  check_apply ("\"\"", "[[\"append\",[],\"\"]]", "\"\"");
  check_apply ("[\"a\",\"b\"]", "[[\"append\",[1],\"c\"]]", "[\"a\",\"bc\"]");
  check_apply ("{\"t\":\"x\"}", "[[\"append\",[\"t\"],\"y\"],[\"append\",[\"t\"],\"z\"]]", "{\"t\":\"xyz\"}");
  check_apply ("\"é\"", "[[\"append\",[],\"ü😀\"]]", "\"éü😀\"");
}

static void
test_add (void)
{
  /* On a list: insert before the index; index == length appends. */
  check_apply ("[1,2,3]", "[[\"add\",[0],0]]", "[0,1,2,3]");
  check_apply ("[1,2,3]", "[[\"add\",[1],9]]", "[1,9,2,3]");
  check_apply ("[1,2,3]", "[[\"add\",[3],4]]", "[1,2,3,4]");
  check_apply ("[]", "[[\"add\",[0],\"x\"]]", "[\"x\"]");
  /* On a dict: set the key (new keys go last). */
  check_apply ("{\"a\":1}", "[[\"add\",[\"b\"],{\"c\":2}]]", "{\"a\":1,\"b\":{\"c\":2}}");
  check_apply ("{\"a\":1,\"b\":2}", "[[\"add\",[\"a\"],3]]", "{\"a\":3,\"b\":2}");
}

static void
test_delete (void)
{
  check_apply ("[1,2,3]", "[[\"delete\",[0],null]]", "[2,3]");
  check_apply ("[1,2,3]", "[[\"delete\",[2],null]]", "[1,2]");
  check_apply ("{\"a\":1,\"b\":2,\"c\":3}", "[[\"delete\",[\"b\"],null]]", "{\"a\":1,\"c\":3}");
  /* The value may be left out of a delete. */
  check_apply ("[1,2]", "[[\"delete\",[1]]]", "[1]");
}

static void
test_sequential_indices (void)
{
  /* protocol.md §4: [1,2,3,4] → [1,2] is delete [2] twice; each edit sees the
   * result of the ones before. */
  check_apply ("[1,2,3,4]", "[[\"delete\",[2],null],[\"delete\",[2],null]]", "[1,2]");
  check_apply ("[1,2]", "[[\"add\",[2],3],[\"add\",[3],4]]", "[1,2,3,4]");
  check_apply ("[\"a\"]", "[[\"replace\",[0],\"b\"],[\"append\",[0],\"c\"],[\"add\",[0],\"z\"]]",
               "[\"z\",\"bc\"]");
  /* Gradio's known defect yields [5,6] from [[1,2,3],5,6]; applied literally. */
  check_apply ("[[1,2,3],5,6]", "[[\"delete\",[0,1],null],[\"delete\",[0,0],null],[\"delete\",[0],null]]",
               "[5,6]");
  check_apply ("\"x\"", "[]", "\"x\"");
}

static void
test_nested (void)
{
  check_apply ("{\"rows\":[{\"cells\":[1,2]},{\"cells\":[]}]}",
               "[[\"add\",[\"rows\",1,\"cells\",0],\"new\"],"
               "[\"delete\",[\"rows\",0,\"cells\",0],null],"
               "[\"add\",[\"rows\",2],{\"cells\":[3]}],"
               "[\"delete\",[\"rows\",0,\"cells\"],null],"
               "[\"add\",[\"rows\",0,\"extra\"],true]]",
               "{\"rows\":[{\"extra\":true},{\"cells\":[\"new\"]},{\"cells\":[3]}]}");
  check_apply ("[[[\"deep\"]]]", "[[\"append\",[0,0,0],\"er\"],[\"add\",[0,0,1],\"x\"],"
               "[\"delete\",[0,0,0],null],[\"add\",[0,1],[]]]",
               "[[[\"x\"],[]]]");
}

static void
test_deep_paths (void)
{
  g_autoptr(GString) value = g_string_new (NULL);
  g_autoptr(GString) edits = g_string_new ("[[\"append\",[");
  g_autoptr(GString) expected = g_string_new (NULL);
  g_autoptr(GString) long_path = g_string_new ("[[\"replace\",[");

  /* 40 levels: longer than the walk's on-stack buffer. */
  for (guint i = 0; i < 40; i++)
    {
      g_string_append (value, "[");
      g_string_append (expected, "[");
      g_string_append_printf (edits, "%s0", i ? "," : "");
    }
  g_string_append (value, "\"a\"");
  g_string_append (expected, "\"ab\"");
  g_string_append_printf (edits, ",0],\"b\"]]");
  for (guint i = 0; i < 40; i++)
    {
      g_string_append (value, "]");
      g_string_append (expected, "]");
    }
  /* The path above has 41 elements: 40 list levels and the string's index... */
  check_error (value->str, edits->str, RIV_DIFF_ERROR_BAD_PATH);
  /* ...while 40 elements reach the string itself. */
  g_string_truncate (edits, 0);
  g_string_append (edits, "[[\"append\",[");
  for (guint i = 0; i < 40; i++)
    g_string_append_printf (edits, "%s0", i ? "," : "");
  g_string_append (edits, "],\"b\"]]");
  check_apply (value->str, edits->str, expected->str);

  /* An absurdly long path is refused without walking it. */
  for (guint i = 0; i < 10000; i++)
    g_string_append_printf (long_path, "%s0", i ? "," : "");
  g_string_append (long_path, "],1]]");
  check_error (value->str, long_path->str, RIV_DIFF_ERROR_BAD_PATH);
}

static void
test_chatbot (void)
{
  /* The chatbot example of protocol.md §4, through the message parser. */
  const char *frames[] = {
    "{\"msg\":\"process_generating\",\"event_id\":\"E\",\"success\":true,\"output\":{\"data\":[[{\"role\":\"user\",\"content\":\"hi\"},{\"role\":\"assistant\",\"content\":\"\"}]],\"is_generating\":true}}",
    "{\"msg\":\"process_generating\",\"event_id\":\"E\",\"success\":true,\"output\":{\"data\":[[[\"append\",[1,\"content\"],\"Hel\"]]],\"is_generating\":true}}",
    "{\"msg\":\"process_generating\",\"event_id\":\"E\",\"success\":true,\"output\":{\"data\":[[[\"append\",[1,\"content\"],\"lo\"]]],\"is_generating\":true}}",
    "{\"msg\":\"process_completed\",\"event_id\":\"E\",\"success\":true,\"output\":{\"data\":[[{\"role\":\"user\",\"content\":\"hi\"},{\"role\":\"assistant\",\"content\":\"Hello\"}]],\"is_generating\":false}}",
  };
  g_autoptr(JsonParser) parser = json_parser_new_immutable ();
  g_autoptr(JsonNode) state = NULL;
  g_autofree char *first = NULL;
  g_autofree char *after = NULL;
  g_autofree char *final = NULL;

  for (guint i = 0; i < G_N_ELEMENTS (frames); i++)
    {
      g_autoptr(GError) error = NULL;
      g_autoptr(RivMessage) m = riv_message_parse (parser, frames[i], -1, &error);
      JsonNode *slot;

      g_assert_no_error (error);
      slot = json_array_get_element (json_node_get_array (m->data), 0);

      if (i == 0)
        {
          state = json_node_ref (slot);
          first = to_text (state);
        }
      else if (m->kind == RIV_MESSAGE_PROCESS_GENERATING)
        {
          g_assert_true (riv_diff_apply (&state, slot, &error));
          g_assert_no_error (error);
        }
      else
        final = to_text (slot);
    }

  after = to_text (state);
  g_assert_cmpstr (after, ==, final);
  g_assert_cmpstr (after, ==, "[{\"role\":\"user\",\"content\":\"hi\"},{\"role\":\"assistant\",\"content\":\"Hello\"}]");
  /* The first full value was never modified in place. */
  g_assert_cmpstr (first, ==, "[{\"role\":\"user\",\"content\":\"hi\"},{\"role\":\"assistant\",\"content\":\"\"}]");
}

static void
test_errors (void)
{
  /* Unknown or malformed operations. */
  check_error ("\"x\"", "[[\"move\",[],\"y\"]]", RIV_DIFF_ERROR_UNKNOWN_OP);
  check_error ("\"x\"", "[[\"Append\",[],\"y\"]]", RIV_DIFF_ERROR_UNKNOWN_OP);
  check_error ("\"x\"", "[[1,[],\"y\"]]", RIV_DIFF_ERROR_INVALID);
  check_error ("\"x\"", "[[\"append\"]]", RIV_DIFF_ERROR_INVALID);
  check_error ("\"x\"", "[[\"append\",[],\"y\",4]]", RIV_DIFF_ERROR_INVALID);
  check_error ("\"x\"", "[[\"append\",\"path\",\"y\"]]", RIV_DIFF_ERROR_INVALID);
  check_error ("\"x\"", "[\"append\",[],\"y\"]", RIV_DIFF_ERROR_INVALID);
  check_error ("\"x\"", "{\"op\":\"append\"}", RIV_DIFF_ERROR_INVALID);
  check_error ("\"x\"", "\"append\"", RIV_DIFF_ERROR_INVALID);

  /* add/delete need a container to act on. */
  check_error ("[1]", "[[\"add\",[],2]]", RIV_DIFF_ERROR_BAD_PATH);
  check_error ("[1]", "[[\"delete\",[],null]]", RIV_DIFF_ERROR_BAD_PATH);

  /* Paths that do not exist or have the wrong type. */
  check_error ("[1,2]", "[[\"replace\",[2],0]]", RIV_DIFF_ERROR_BAD_PATH);
  check_error ("[1,2]", "[[\"add\",[3],0]]", RIV_DIFF_ERROR_BAD_PATH);
  check_error ("[1,2]", "[[\"delete\",[2],null]]", RIV_DIFF_ERROR_BAD_PATH);
  check_error ("[1,2]", "[[\"delete\",[-1],null]]", RIV_DIFF_ERROR_BAD_PATH);
  check_error ("[1,2]", "[[\"replace\",[\"0\"],0]]", RIV_DIFF_ERROR_BAD_PATH);
  check_error ("[1,2]", "[[\"replace\",[0.5],0]]", RIV_DIFF_ERROR_BAD_PATH);
  check_error ("[1,2]", "[[\"replace\",[null],0]]", RIV_DIFF_ERROR_BAD_PATH);
  check_error ("{\"a\":1}", "[[\"replace\",[0],0]]", RIV_DIFF_ERROR_BAD_PATH);
  check_error ("{\"a\":1}", "[[\"delete\",[\"b\"],null]]", RIV_DIFF_ERROR_BAD_PATH);
  check_error ("{\"a\":1}", "[[\"append\",[\"b\"],\"x\"]]", RIV_DIFF_ERROR_BAD_PATH);
  check_error ("{\"a\":1}", "[[\"replace\",[\"b\",\"c\"],0]]", RIV_DIFF_ERROR_BAD_PATH);
  check_error ("{\"a\":1}", "[[\"replace\",[\"a\",\"c\"],0]]", RIV_DIFF_ERROR_BAD_PATH);
  check_error ("\"s\"", "[[\"replace\",[0],0]]", RIV_DIFF_ERROR_BAD_PATH);
  check_error (NULL, "[[\"replace\",[0],0]]", RIV_DIFF_ERROR_BAD_PATH);
  check_error ("[1,2]", "[[\"replace\",[99999999999],0]]", RIV_DIFF_ERROR_BAD_PATH);

  /* append is for strings. */
  check_error ("[1]", "[[\"append\",[],\"x\"]]", RIV_DIFF_ERROR_TYPE);
  check_error ("[1]", "[[\"append\",[0],\"x\"]]", RIV_DIFF_ERROR_TYPE);
  check_error ("\"a\"", "[[\"append\",[],3]]", RIV_DIFF_ERROR_TYPE);
  check_error (NULL, "[[\"append\",[],\"x\"]]", RIV_DIFF_ERROR_TYPE);

  {
    g_autoptr(JsonNode) v = sealed ("1");
    g_autoptr(GError) error = NULL;

    g_assert_false (riv_diff_apply (&v, NULL, &error));
    g_assert_error (error, RIV_DIFF_ERROR, RIV_DIFF_ERROR_INVALID);
  }
}

static void
test_all_or_nothing (void)
{
  /* Earlier edits succeed, a later one fails: nothing is applied. */
  check_error ("[1,2,3]", "[[\"delete\",[0],null],[\"add\",[0],9],[\"delete\",[5],null]]",
               RIV_DIFF_ERROR_BAD_PATH);
  check_error ("{\"a\":\"x\",\"b\":[1]}",
               "[[\"append\",[\"a\"],\"y\"],[\"add\",[\"b\",1],2],[\"delete\",[\"a\"],null],[\"bogus\",[],1]]",
               RIV_DIFF_ERROR_UNKNOWN_OP);

  /* The same holds for a mutable value: it is not touched either. */
  {
    g_autoptr(JsonNode) v = mutable ("{\"a\":[1,2],\"b\":\"s\"}");
    g_autoptr(JsonNode) e = sealed ("[[\"delete\",[\"a\",0],null],[\"append\",[\"b\"],\"t\"],[\"add\",[\"a\",9],0]]");
    g_autoptr(GError) error = NULL;
    g_autofree char *after = NULL;

    g_assert_false (riv_diff_apply (&v, e, &error));
    g_assert_error (error, RIV_DIFF_ERROR, RIV_DIFF_ERROR_BAD_PATH);
    after = to_text (v);
    g_assert_cmpstr (after, ==, "{\"a\":[1,2],\"b\":\"s\"}");
  }
}

static void
test_previous_value_untouched (void)
{
  g_autoptr(JsonNode) v = mutable ("{\"list\":[{\"t\":\"a\"},{\"t\":\"b\"}],\"other\":{\"k\":1}}");
  g_autoptr(JsonNode) e = sealed ("[[\"append\",[\"list\",1,\"t\"],\"c\"],[\"add\",[\"list\",0],0]]");
  g_autoptr(JsonNode) keep = json_node_ref (v);
  g_autoptr(GError) error = NULL;
  g_autofree char *before = to_text (keep);
  g_autofree char *old = NULL;
  g_autofree char *now = NULL;
  JsonNode *other_before, *other_after;

  other_before = json_object_get_member (json_node_get_object (keep), "other");
  g_assert_true (riv_diff_apply (&v, e, &error));
  g_assert_no_error (error);
  g_assert_true (v != keep);

  /* Someone else holding the old value sees no change. */
  old = to_text (keep);
  g_assert_cmpstr (old, ==, before);
  now = to_text (v);
  g_assert_cmpstr (now, ==, "{\"list\":[0,{\"t\":\"a\"},{\"t\":\"bc\"}],\"other\":{\"k\":1}}");

  /* Untouched subtrees are shared, not copied. */
  other_after = json_object_get_member (json_node_get_object (v), "other");
  g_assert_true (other_after == other_before);
}

static void
test_value_not_aliased (void)
{
  g_autoptr(JsonNode) v = sealed ("[]");
  g_autoptr(JsonNode) e = mutable ("[[\"add\",[0],{\"k\":[1]}]]");
  g_autoptr(GError) error = NULL;
  g_autofree char *got = NULL;
  JsonObject *inserted_in_edit;

  g_assert_true (riv_diff_apply (&v, e, &error));
  g_assert_no_error (error);

  /* Changing the caller's (mutable) edit list afterwards does not reach the result. */
  inserted_in_edit = json_node_get_object (
    json_array_get_element (json_node_get_array (json_array_get_element (json_node_get_array (e), 0)), 2));
  json_object_set_int_member (inserted_in_edit, "k", 2);
  got = to_text (v);
  g_assert_cmpstr (got, ==, "[{\"k\":[1]}]");
}

static void
test_many_edits_one_call (void)
{
  g_autoptr(GString) edits = g_string_new ("[");
  g_autoptr(JsonNode) v = sealed ("{\"items\":[]}");
  g_autoptr(JsonNode) e = NULL;
  g_autoptr(GError) error = NULL;
  JsonArray *items;

  /* 2000 adds at the end, then 1000 deletes from the front, then appends to
   * each remaining item: the fresh-container paths of one call. */
  for (guint i = 0; i < 2000; i++)
    g_string_append_printf (edits, "%s[\"add\",[\"items\",%u],\"%u\"]", i ? "," : "", i, i);
  for (guint i = 0; i < 1000; i++)
    g_string_append (edits, ",[\"delete\",[\"items\",0],null]");
  for (guint i = 0; i < 1000; i++)
    g_string_append_printf (edits, ",[\"append\",[\"items\",%u],\"!\"]", i);
  g_string_append_c (edits, ']');
  e = sealed (edits->str);

  g_assert_true (riv_diff_apply (&v, e, &error));
  g_assert_no_error (error);
  items = json_object_get_array_member (json_node_get_object (v), "items");
  g_assert_cmpuint (json_array_get_length (items), ==, 1000);
  g_assert_cmpstr (json_array_get_string_element (items, 0), ==, "1000!");
  g_assert_cmpstr (json_array_get_string_element (items, 999), ==, "1999!");
}

static void
test_growing_text (void)
{
  g_autoptr(JsonNode) v = sealed ("[\"\"]");
  g_autoptr(JsonNode) e = sealed ("[[\"append\",[0],\"line of streamed text\\n\"]]");
  const char *text;

  /* A streamed text, one suffix per yield. */
  for (guint i = 0; i < 2000; i++)
    {
      g_autoptr(GError) error = NULL;

      g_assert_true (riv_diff_apply (&v, e, &error));
      g_assert_no_error (error);
    }
  text = json_array_get_string_element (json_node_get_array (v), 0);
  g_assert_cmpuint (strlen (text), ==, 2000 * strlen ("line of streamed text\n"));
  g_assert_true (g_str_has_suffix (text, "text\nline of streamed text\n"));
}

static void
test_builders (void)
{
  g_autoptr(JsonNode) append = riv_diff_new_append ("lo");
  g_autoptr(JsonNode) src = mutable ("{\"a\":[1,2]}");
  g_autoptr(JsonNode) replace = riv_diff_new_replace (src);
  g_autoptr(JsonNode) replace_null = riv_diff_new_replace (NULL);
  g_autoptr(JsonNode) v = sealed ("\"Hel\"");
  g_autoptr(GError) error = NULL;
  g_autofree char *a = to_text (append);
  g_autofree char *r = to_text (replace);
  g_autofree char *rn = to_text (replace_null);
  g_autofree char *got = NULL;

  g_assert_cmpstr (a, ==, "[[\"append\",[],\"lo\"]]");
  g_assert_cmpstr (r, ==, "[[\"replace\",[],{\"a\":[1,2]}]]");
  g_assert_cmpstr (rn, ==, "[[\"replace\",[],null]]");

  /* The replace value is a copy: later changes to src do not leak in. */
  json_object_set_int_member (json_node_get_object (src), "b", 3);
  g_clear_pointer (&r, g_free);
  r = to_text (replace);
  g_assert_cmpstr (r, ==, "[[\"replace\",[],{\"a\":[1,2]}]]");

  g_assert_true (riv_diff_apply (&v, append, &error));
  got = to_text (v);
  g_assert_cmpstr (got, ==, "\"Hello\"");
  g_assert_true (riv_diff_apply (&v, replace, &error));
  g_assert_no_error (error);
  g_clear_pointer (&got, g_free);
  got = to_text (v);
  g_assert_cmpstr (got, ==, "{\"a\":[1,2]}");
}

static void
test_random_edits_never_crash (void)
{
  static const char *ops[] = { "replace", "append", "add", "delete", "nope" };
  static const char *values[] = { "\"s\"", "1", "null", "[]", "{}", "[\"x\",{\"y\":\"z\"}]" };
  static const char *keys[] = { "0", "1", "2", "-1", "\"a\"", "\"b\"", "\"y\"", "null", "1.5" };
  g_autoptr(GRand) rand = g_rand_new_with_seed (77);
  g_autoptr(JsonNode) v = sealed ("{\"a\":[\"x\",{\"y\":\"z\"}],\"b\":\"t\"}");
  guint ok = 0, failed = 0;

  for (guint round = 0; round < 1500; round++)
    {
      g_autoptr(GString) edits = g_string_new ("[");
      g_autoptr(JsonNode) e = NULL;
      g_autoptr(GError) error = NULL;
      g_autofree char *before = to_text (v);
      JsonNode *old = v;
      guint n = g_rand_int_range (rand, 1, 4);

      for (guint i = 0; i < n; i++)
        {
          guint depth = g_rand_int_range (rand, 0, 4);

          g_string_append_printf (edits, "%s[\"%s\",[", i ? "," : "",
                                  ops[g_rand_int_range (rand, 0, G_N_ELEMENTS (ops))]);
          for (guint d = 0; d < depth; d++)
            g_string_append_printf (edits, "%s%s", d ? "," : "",
                                    keys[g_rand_int_range (rand, 0, G_N_ELEMENTS (keys))]);
          g_string_append_printf (edits, "],%s]", values[g_rand_int_range (rand, 0, G_N_ELEMENTS (values))]);
        }
      g_string_append_c (edits, ']');
      e = sealed (edits->str);

      if (riv_diff_apply (&v, e, &error))
        ok++;
      else
        {
          g_autofree char *after = to_text (v);

          g_assert_nonnull (error);
          g_assert_true (v == old);
          g_assert_cmpstr (after, ==, before);
          failed++;
        }

      /* Keep the value small and interesting. */
      if (v == NULL || !JSON_NODE_HOLDS_OBJECT (v) || round % 50 == 0)
        {
          g_clear_pointer (&v, json_node_unref);
          v = sealed ("{\"a\":[\"x\",{\"y\":\"z\"}],\"b\":\"t\"}");
        }
    }

  g_assert_cmpuint (ok, >, 15);
  g_assert_cmpuint (failed, >, 50);
}

static void
test_value_streamed_text (void)
{
  g_autoptr(RivDiffValue) value = NULL;
  g_autoptr(JsonNode) initial = sealed ("\"\"");
  g_autoptr(JsonNode) edit = sealed ("[[\"append\",[],\"0123456789\\n\"]]");
  g_autoptr(JsonNode) early = NULL;
  g_autoptr(JsonNode) node = NULL;
  const char *text;
  gsize len = 0;

  value = riv_diff_value_new (initial);
  for (guint i = 0; i < 100000; i++)
    {
      g_autoptr(GError) error = NULL;

      g_assert_true (riv_diff_value_apply (value, edit, &error));
      g_assert_no_error (error);
      if (i == 9)
        early = riv_diff_value_dup_node (value);
    }

  /* The text is readable without building a node. */
  text = riv_diff_value_peek_string (value, &len);
  g_assert_cmpuint (len, ==, 100000 * 11);
  g_assert_cmpuint (strlen (text), ==, len);
  g_assert_true (g_str_has_suffix (text, "0123456789\n0123456789\n"));

  node = riv_diff_value_dup_node (value);
  g_assert_cmpstr (json_node_get_string (node), ==, text);
  /* A node handed out earlier is a snapshot: later appends do not change it. */
  g_assert_cmpuint (strlen (json_node_get_string (early)), ==, 10 * 11);
}

static void
test_value_chatbot (void)
{
  g_autoptr(JsonNode) first = sealed ("[{\"role\":\"user\",\"content\":\"hi\"},{\"role\":\"assistant\",\"content\":\"\"}]");
  g_autoptr(JsonNode) a = sealed ("[[\"append\",[1,\"content\"],\"Hel\"]]");
  g_autoptr(JsonNode) b = sealed ("[[\"append\",[1,\"content\"],\"l\"],[\"append\",[1,\"content\"],\"o\"]]");
  g_autoptr(JsonNode) turn = sealed ("[[\"add\",[2],{\"role\":\"user\",\"content\":\"more\"}]]");
  g_autoptr(RivDiffValue) value = riv_diff_value_new (first);
  g_autoptr(JsonNode) mid = NULL;
  g_autoptr(JsonNode) end = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *mid_text = NULL;
  g_autofree char *end_text = NULL;

  g_assert_true (riv_diff_value_apply (value, a, &error));
  mid = riv_diff_value_dup_node (value);
  g_assert_true (riv_diff_value_apply (value, b, &error));
  g_assert_true (riv_diff_value_apply (value, turn, &error));
  g_assert_no_error (error);
  /* Not a string as a whole. */
  g_assert_null (riv_diff_value_peek_string (value, NULL));
  end = riv_diff_value_dup_node (value);

  mid_text = to_text (mid);
  end_text = to_text (end);
  g_assert_cmpstr (mid_text, ==, "[{\"role\":\"user\",\"content\":\"hi\"},{\"role\":\"assistant\",\"content\":\"Hel\"}]");
  g_assert_cmpstr (end_text, ==, "[{\"role\":\"user\",\"content\":\"hi\"},{\"role\":\"assistant\",\"content\":\"Hello\"},"
                                 "{\"role\":\"user\",\"content\":\"more\"}]");
}

static void
test_value_errors_and_set (void)
{
  g_autoptr(JsonNode) list = sealed ("[\"a\",1]");
  g_autoptr(JsonNode) ok = sealed ("[[\"append\",[0],\"b\"]]");
  g_autoptr(JsonNode) bad_type = sealed ("[[\"append\",[1],\"x\"]]");
  g_autoptr(JsonNode) bad_path = sealed ("[[\"append\",[0],\"c\"],[\"append\",[5],\"c\"]]");
  g_autoptr(JsonNode) replacement = sealed ("{\"k\":\"v\"}");
  g_autoptr(RivDiffValue) value = riv_diff_value_new (list);
  g_autoptr(RivDiffValue) empty = riv_diff_value_new (NULL);
  g_autoptr(JsonNode) node = NULL;
  g_autoptr(JsonNode) null_node = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *text = NULL;

  g_assert_true (riv_diff_value_apply (value, ok, &error));
  g_assert_false (riv_diff_value_apply (value, bad_type, &error));
  g_assert_error (error, RIV_DIFF_ERROR, RIV_DIFF_ERROR_TYPE);
  g_clear_error (&error);
  g_assert_false (riv_diff_value_apply (value, bad_path, &error));
  g_assert_error (error, RIV_DIFF_ERROR, RIV_DIFF_ERROR_BAD_PATH);
  g_clear_error (&error);
  g_assert_false (riv_diff_value_apply (value, NULL, &error));
  g_assert_error (error, RIV_DIFF_ERROR, RIV_DIFF_ERROR_INVALID);

  /* The failed lists changed nothing; the successful append is kept. */
  node = riv_diff_value_dup_node (value);
  text = to_text (node);
  g_assert_cmpstr (text, ==, "[\"ab\",1]");

  riv_diff_value_set (value, replacement);
  g_clear_pointer (&node, json_node_unref);
  g_clear_pointer (&text, g_free);
  node = riv_diff_value_dup_node (value);
  text = to_text (node);
  g_assert_cmpstr (text, ==, "{\"k\":\"v\"}");

  null_node = riv_diff_value_dup_node (empty);
  g_assert_true (JSON_NODE_HOLDS_NULL (null_node));
  g_assert_null (riv_diff_value_peek_string (empty, NULL));
}

/* RivDiffValue and riv_diff_apply() must agree on every step of random runs. */
static void
test_value_matches_apply (void)
{
  static const char *edits[] = {
    "[[\"append\",[],\"x\"]]",
    "[[\"append\",[0],\"a\"]]",
    "[[\"append\",[0],\"b\"],[\"append\",[0],\"c\"]]",
    "[[\"append\",[1,\"t\"],\"y\"]]",
    "[[\"append\",[1,\"t\"],\"z\"],[\"append\",[0],\"q\"]]",
    "[[\"replace\",[0],\"r\"]]",
    "[[\"add\",[0],\"new\"]]",
    "[[\"delete\",[0],null]]",
    "[[\"replace\",[],[\"s\",{\"t\":\"u\"}]]]",
    "[[\"replace\",[],\"text\"]]",
    "[[\"append\",[5],\"never\"]]",
    "[[\"append\",[1],\"obj\"]]",
  };
  g_autoptr(GRand) rand = g_rand_new_with_seed (99);
  g_autoptr(JsonNode) start = sealed ("[\"s\",{\"t\":\"u\"}]");

  for (guint run = 0; run < 50; run++)
    {
      g_autoptr(RivDiffValue) value = riv_diff_value_new (start);
      g_autoptr(JsonNode) plain = json_node_ref (start);

      for (guint step = 0; step < 60; step++)
        {
          g_autoptr(JsonNode) e = sealed (edits[g_rand_int_range (rand, 0, G_N_ELEMENTS (edits))]);
          g_autoptr(GError) e1 = NULL;
          g_autoptr(GError) e2 = NULL;
          gboolean r1 = riv_diff_apply (&plain, e, &e1);
          gboolean r2 = riv_diff_value_apply (value, e, &e2);

          g_assert_cmpint (r1, ==, r2);
          if (!r1)
            g_assert_cmpint (e1->code, ==, e2->code);

          if (g_rand_int_range (rand, 0, 3) == 0)
            {
              g_autoptr(JsonNode) n = riv_diff_value_dup_node (value);
              g_autofree char *a = to_text (plain);
              g_autofree char *b = to_text (n);

              g_assert_cmpstr (a, ==, b);
            }
        }

      {
        g_autoptr(JsonNode) n = riv_diff_value_dup_node (value);
        g_autofree char *a = to_text (plain);
        g_autofree char *b = to_text (n);

        g_assert_cmpstr (a, ==, b);
      }
    }
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/diff/replace", test_replace);
  g_test_add_func ("/diff/append", test_append);
  g_test_add_func ("/diff/add", test_add);
  g_test_add_func ("/diff/delete", test_delete);
  g_test_add_func ("/diff/sequential-indices", test_sequential_indices);
  g_test_add_func ("/diff/nested", test_nested);
  g_test_add_func ("/diff/deep-paths", test_deep_paths);
  g_test_add_func ("/diff/chatbot", test_chatbot);
  g_test_add_func ("/diff/errors", test_errors);
  g_test_add_func ("/diff/all-or-nothing", test_all_or_nothing);
  g_test_add_func ("/diff/previous-value-untouched", test_previous_value_untouched);
  g_test_add_func ("/diff/value-not-aliased", test_value_not_aliased);
  g_test_add_func ("/diff/many-edits-one-call", test_many_edits_one_call);
  g_test_add_func ("/diff/growing-text", test_growing_text);
  g_test_add_func ("/diff/builders", test_builders);
  g_test_add_func ("/diff/random-edits", test_random_edits_never_crash);
  g_test_add_func ("/diff/value-streamed-text", test_value_streamed_text);
  g_test_add_func ("/diff/value-chatbot", test_value_chatbot);
  g_test_add_func ("/diff/value-errors-and-set", test_value_errors_and_set);
  g_test_add_func ("/diff/value-matches-apply", test_value_matches_apply);

  return g_test_run ();
}
