/* test-json.c
 * Copyright 2026 The Rivulet authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * riv_json_read(), the reader of plain JSON that riv_json_parse() tries before
 * json-glib: the same tree as json-glib for plain documents, nothing for the
 * rest (which json-glib then judges, so riv_json_parse() answers as before);
 * and riv_int64_hash().
 */
#include "config.h"

#include <string.h>

#include "riv-json-describe.h"
#include "riv-json-read.h"
#include "riv-util.h"

static char *
describe_json_glib (const char *text)
{
  g_autoptr(JsonParser) parser = json_parser_new ();
  g_autoptr(GError) error = NULL;

  if (!json_parser_load_from_data (parser, text, -1, &error))
    return g_strdup_printf ("error: %s", error->message);
  if (json_parser_get_root (parser) == NULL)
    return g_strdup ("empty");
  return riv_json_describe (json_parser_get_root (parser));
}

static void
test_plain_same_tree (void)
{
  const char *plain[] = {
    "{\"msg\":\"process_completed\",\"event_id\":\"a1\",\"output\":{\"data\":[\"user 1 job 1\",0],"
      "\"is_generating\":false,\"duration\":0.0012,\"average_duration\":1e-3},\"success\":true}",
    "  [1, -2, 0, -0, 3.25, -0.5, 1e5, 1E-5, 2.5e+3, 123456789012345678, -123456789012345678]\n",
    "{\"a\":{\"b\":{\"c\":[[],{},[{}]]}},\"n\":null,\"t\":true,\"f\":false}",
    "\"escapes \\\" \\\\ \\/ \\b \\f \\n \\r \\t \\u00e9 \\u20ac \\u0041\"",
    "\"UTF-8 as is: caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80\"",
    "{\"\":\"empty name\",\"order\":1,\"kept\":2,\"as\":3,\"written\":4}",
    "\t\r\n 42 \t\r\n",
    "-17",
    "0.1",
    "true",
    "null",
    "[\"a long string over the stack buffer: 0123456789012345678901234567890123456789"
      "0123456789012345678901234567890123456789012345678901234567890123456789"
      "0123456789012345678901234567890123456789012345678901234567890123456789"
      "0123456789012345678901234567890123456789012345678901234567890123456789 end\"]",
  };

  for (guint i = 0; i < G_N_ELEMENTS (plain); i++)
    {
      g_autoptr(JsonNode) fast = riv_json_read (plain[i], strlen (plain[i]));
      g_autofree char *expected = describe_json_glib (plain[i]);
      g_autofree char *got = NULL;

      g_assert_nonnull (fast);
      got = riv_json_describe (fast);
      g_assert_cmpstr (got, ==, expected);
      g_assert_false (g_str_has_prefix (expected, "error"));
    }
}

/* What the reader leaves to json-glib; riv_json_parse() still answers as json-glib does. */
static void
test_rest_left_to_json_glib (void)
{
  const char *rest[] = {
    "",                                   /* empty */
    "   ",
    "{\"a\":1,}",                         /* trailing comma */
    "[1,]",
    "[1 2]",
    "{\"a\" 1}",
    "{\"a\":1,\"a\":2}",                  /* repeated member */
    "/* comment */ {\"a\":1}",            /* json-glib extensions */
    "{'a':1}",
    "var x = {\"a\":1};",
    "[012]",                              /* leading zero */
    "[1.]",
    "[.5]",
    "[1e]",
    "[-]",
    "[- 1]",
    "[0x10]",
    "[1234567890123456789]",              /* more than 18 digits */
    "[1e400]",                            /* not a finite double */
    "[\"\\ud83d\\ude00\"]",               /* surrogates */
    "[\"\\ud83d\"]",
    "[\"\\u0000\"]",                      /* NUL */
    "[\"\\x41\"]",                        /* unknown escape */
    "[\"\\u12g4\"]",
    "[\"raw\ttab\"]",                     /* control character */
    "[\"bad \xc3\x28 utf-8\"]",
    "[\"unterminated",
    "[True]",
    "[nul]",
    "[truex]",
    "{\"a\":1} {\"b\":2}",                /* two values */
    "{\"a\":1} x",
    "\xef\xbb\xbf{\"bom\":1}",            /* byte order mark */
  };

  for (guint i = 0; i < G_N_ELEMENTS (rest); i++)
    {
      g_autoptr(JsonNode) fast = riv_json_read (rest[i], strlen (rest[i]));
      g_autoptr(GError) error = NULL;
      g_autoptr(JsonNode) parsed = NULL;

      if (fast != NULL)
        g_error ("read %s", rest[i]);
      parsed = riv_json_parse (NULL, rest[i], -1, 0, &error);
      /* json-glib itself runs only on what riv_json_parse() accepted: it leaks
       * on some malformed texts that the prescan refuses before it. */
      if (parsed != NULL)
        {
          g_autofree char *expected = describe_json_glib (rest[i]);
          g_autofree char *got = riv_json_describe (parsed);

          g_assert_cmpstr (got, ==, expected);
        }
      else
        g_assert_nonnull (error);
    }
}

/* json-glib 1.6 reads "\\365" as the byte 0xf5, which is not UTF-8, and lets
 * "\\q" through; a server's reply or a request body with either is refused,
 * naming the escape. */
static void
test_escapes_json_lacks (void)
{
  static const struct { const char *text; const char *named; } cases[] = {
    { "{\"event_id\":\"ab\\365cd\"}", "\"\\3\"" },
    { "[\"\\q\"]", "\"\\q\"" },
    { "[\"x\", \"\\\001\"]", "byte 0x01" },
    { "{\"a\\x41\":1}", "\"\\x\"" },
  };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autoptr(GError) error = NULL;
      g_autoptr(JsonNode) parsed = riv_json_parse (NULL, cases[i].text, -1, 0, &error);

      g_assert_null (parsed);
      g_assert_error (error, JSON_PARSER_ERROR, JSON_PARSER_ERROR_INVALID_DATA);
      g_assert_nonnull (strstr (error->message, "invalid escape"));
      g_assert_nonnull (strstr (error->message, cases[i].named));
    }

  /* JSON's own escapes still read, in a string that also has brackets. */
  {
    g_autoptr(JsonNode) parsed =
      riv_json_parse (NULL, "[\"\\\"[\\\\]\\/\\b\\f\\n\\r\\t\\u00e9\"]", -1, 0, NULL);

    g_assert_nonnull (parsed);
    g_assert_cmpstr (json_array_get_string_element (json_node_get_array (parsed), 0), ==,
                     "\"[\\]/\b\f\n\r\t\xc3\xa9");
  }
}

static void
test_depth_limit (void)
{
  GString *deep = g_string_new (NULL);
  g_autoptr(JsonNode) fast = NULL;
  g_autoptr(JsonNode) parsed = NULL;

  for (guint i = 0; i < RIV_JSON_READ_MAX_DEPTH + 1; i++)
    g_string_append_c (deep, '[');
  for (guint i = 0; i < RIV_JSON_READ_MAX_DEPTH + 1; i++)
    g_string_append_c (deep, ']');
  fast = riv_json_read (deep->str, deep->len);
  g_assert_null (fast);
  /* json-glib still reads it when no limit is asked for. */
  parsed = riv_json_parse (NULL, deep->str, deep->len, 0, NULL);
  g_assert_nonnull (parsed);
  g_string_truncate (deep, 0);

  for (guint i = 0; i < RIV_JSON_READ_MAX_DEPTH; i++)
    g_string_append_c (deep, '[');
  for (guint i = 0; i < RIV_JSON_READ_MAX_DEPTH; i++)
    g_string_append_c (deep, ']');
  fast = riv_json_read (deep->str, deep->len);
  g_assert_nonnull (fast);
  g_string_free (deep, TRUE);
}

/* riv_json_parse() keeps json-glib's contract: sealed with a fresh or an
 * immutable parser, changeable with a mutable one. */
static void
test_parse_seals_like_json_glib (void)
{
  const char *text = "{\"a\":[1,2]}";
  g_autoptr(JsonParser) mutable_parser = json_parser_new ();
  g_autoptr(JsonParser) immutable_parser = json_parser_new_immutable ();
  g_autoptr(JsonNode) fresh = riv_json_parse (NULL, text, -1, 0, NULL);
  g_autoptr(JsonNode) sealed = riv_json_parse (immutable_parser, text, -1, 0, NULL);
  g_autoptr(JsonNode) open = riv_json_parse (mutable_parser, text, -1, 0, NULL);

  g_assert_true (json_node_is_immutable (fresh));
  g_assert_true (json_node_is_immutable (sealed));
  g_assert_false (json_node_is_immutable (open));
  json_object_set_int_member (json_node_get_object (open), "b", 3);
  g_assert_cmpint (json_object_get_size (json_node_get_object (open)), ==, 2);
}

static void
test_int64_hash_spreads (void)
{
  g_autoptr(GHashTable) seen = g_hash_table_new (NULL, NULL);

  /* Request ids of 4,000 clients' first request (client n from bit 40): one
   * value for all of them with GLib 2.74's g_int64_hash. */
  for (guint64 n = 0; n < 4000; n++)
    {
      guint64 id = (n << 40) | 1;

      g_hash_table_add (seen, GUINT_TO_POINTER (riv_int64_hash (&id)));
    }
  g_assert_cmpuint (g_hash_table_size (seen), >=, 3990);

  for (guint64 n = 0; n < 4000; n++)
    {
      guint64 id = n + 1;

      g_hash_table_add (seen, GUINT_TO_POINTER (riv_int64_hash (&id)));
    }
  g_assert_cmpuint (g_hash_table_size (seen), >=, 7980);
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/riv/json/plain-same-tree", test_plain_same_tree);
  g_test_add_func ("/riv/json/rest-left-to-json-glib", test_rest_left_to_json_glib);
  g_test_add_func ("/riv/json/escapes-json-lacks", test_escapes_json_lacks);
  g_test_add_func ("/riv/json/depth-limit", test_depth_limit);
  g_test_add_func ("/riv/json/parse-seals-like-json-glib", test_parse_seals_like_json_glib);
  g_test_add_func ("/riv/json/int64-hash-spreads", test_int64_hash_spreads);

  return g_test_run ();
}
