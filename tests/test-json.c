/* test-json.c
 * Copyright 2026 The Rivulet authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * riv_json_parse(), the one reader of JSON from outside: the same tree as
 * json-glib for plain documents, the corners where a JsonNode cannot hold what
 * JSON says read as json-glib reads them (or better), everything that is not
 * JSON refused with what and where; and riv_int64_hash().
 */
#include "config.h"

#include <string.h>

#include "riv-compat.h"
#include "riv-json-describe.h"
#include "riv-json.h"

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
      g_autoptr(JsonNode) fast = riv_json_parse (NULL, plain[i], -1, 0, NULL);
      g_autofree char *expected = describe_json_glib (plain[i]);
      g_autofree char *got = NULL;

      g_assert_nonnull (fast);
      got = riv_json_describe (fast);
      g_assert_cmpstr (got, ==, expected);
      g_assert_false (g_str_has_prefix (expected, "error"));
    }
}

/* What is not JSON is refused, each with its reason and where it stands
 * (json-glib 1.6 accepts some of these: comments, single quotes, `var x =`,
 * octal numbers, a second value). */
static void
test_not_json_refused (void)
{
  static const struct { const char *text; const char *says; } cases[] = {
    { "", "empty JSON document" },
    { "   ", "empty JSON document" },
    { "{\"a\":1,}", "line 1, column 8: a ',' before '}'" },
    { "[1,]", "line 1, column 4: a ',' before ']'" },
    { "[1 2]", "line 1, column 4: unexpected '2', expected ',' or ']'" },
    { "{\"a\" 1}", "line 1, column 6: expected ':'" },
    { "/* comment */ {\"a\":1}", "line 1, column 1: unexpected '/'" },
    { "{'a':1}", "line 1, column 2: unexpected ''', expected a member name" },
    { "var x = {\"a\":1};", "line 1, column 1: a word that is not a JSON value" },
    { "[012]", "line 1, column 2: JSON number with a leading zero" },
    { "[1.]", "line 1, column 2: JSON number without digits after '.'" },
    { "[.5]", "line 1, column 2: unexpected '.', expected a JSON value" },
    { "[1e]", "line 1, column 2: JSON number without digits in its exponent" },
    { "[-]", "line 1, column 2: unexpected '-', expected a JSON value" },
    { "[- 1]", "line 1, column 2: unexpected '-'" },
    { "[0x10]", "line 1, column 3: unexpected 'x'" },
    { "[\"\\ud83d\"]", "line 1, column 3: JSON string with an unpaired UTF-16 surrogate escape" },
    { "[\"\\ude00\\ud83d\"]", "unpaired UTF-16 surrogate" },
    { "[\"\\u12g4\"]", "line 1, column 3: JSON string with an invalid \\u escape" },
    { "[\"raw\ttab\"]", "line 1, column 6: JSON string with a control character (byte 0x09)" },
    { "[\"bad \xc3\x28 utf-8\"]", "line 1, column 2: JSON string that is not UTF-8" },
    { "[\"unterminated", "line 1, column 2: JSON string without its closing quote" },
    { "[True]", "line 1, column 2: a word that is not a JSON value" },
    { "[nul]", "a word that is not a JSON value" },
    { "[truex]", "a word that is not a JSON value" },
    { "{\"a\":1} {\"b\":2}", "line 1, column 9: JSON text with more than one top-level value" },
    { "{\"a\":1} x", "more than one top-level value" },
    { "[1,\n  2,\n  @]", "line 3, column 3: unexpected '@'" },
    { "[\xff]", "line 1, column 2: unexpected byte 0xff" },
  };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autoptr(GError) error = NULL;
      g_autoptr(JsonNode) parsed = riv_json_parse (NULL, cases[i].text, -1, 0, &error);

      if (parsed != NULL)
        g_error ("read %s", cases[i].text);
      g_assert_nonnull (error);
      g_assert_true (error->domain == JSON_PARSER_ERROR);
      if (strstr (error->message, cases[i].says) == NULL)
        g_error ("%s: said \"%s\", not \"%s\"", cases[i].text, error->message, cases[i].says);
      /* And without an error to fill in. */
      g_assert_null (riv_json_parse (NULL, cases[i].text, -1, 0, NULL));
    }
}

/* Where JSON says more than a JsonNode holds: read as json-glib reads it, or
 * better where json-glib loses the value. */
static void
test_corners_read (void)
{
  static const struct { const char *text; const char *tree; } cases[] = {
    /* A repeated member keeps the last value, as json-glib. */
    { "{\"a\":1,\"b\":2,\"a\":3}", NULL },
    /* A byte order mark before the text is skipped, as json-glib. */
    { "\xef\xbb\xbf{\"bom\":1}", NULL },
    /* A surrogate pair is one character, as json-glib. */
    { "[\"\\ud83d\\ude00\"]", NULL },
    { "[-9223372036854775808, 9223372036854775807, -0]", NULL },
    /* Beyond a double's range, infinity, as json-glib (readers of numbers refuse it). */
    { "[1e400, -1e400]", NULL },
    /* Beyond int64, a double (json-glib 1.6 wraps it around to a wrong int). */
    { "[9223372036854775808, -9223372036854775809, 123456789012345678901234567890]", "BIG" },
    /* NUL cannot stand in a node's string: U+FFFD instead (json-glib cuts the string). */
    { "[\"a\\u0000b\"]", "NUL" },
  };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autoptr(GError) error = NULL;
      g_autoptr(JsonNode) parsed = riv_json_parse (NULL, cases[i].text, -1, 0, &error);
      JsonArray *array;

      g_assert_no_error (error);
      if (cases[i].tree == NULL)
        {
          g_autofree char *got = riv_json_describe (parsed);
          g_autofree char *expected = describe_json_glib (cases[i].text);

          g_assert_cmpstr (got, ==, expected);
          continue;
        }
      array = json_node_get_array (parsed);
      if (g_str_equal (cases[i].tree, "BIG"))
        {
          g_assert_cmpint (json_node_get_value_type (json_array_get_element (array, 0)), ==, G_TYPE_DOUBLE);
          g_assert_cmpfloat (json_array_get_double_element (array, 0), ==, 9223372036854775808.0);
          g_assert_cmpfloat (json_array_get_double_element (array, 1), ==, -9223372036854775809.0);
          g_assert_cmpfloat_with_epsilon (json_array_get_double_element (array, 2), 1.2345678901234568e29, 1e15);
        }
      else
        g_assert_cmpstr (json_array_get_string_element (array, 0), ==, "a\xef\xbf\xbd" "b");
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

/* Nesting is bounded before the reader goes deeper: the caller's limit, or
 * RIV_JSON_MAX_DEPTH when it gives none; a hostile 100,000 levels is an error,
 * not a crash. */
static void
test_depth_limit (void)
{
  static const guint limits[] = { 16, 64, 0 };

  for (guint k = 0; k < G_N_ELEMENTS (limits); k++)
    {
      guint limit = limits[k] > 0 ? limits[k] : RIV_JSON_MAX_DEPTH;

      for (guint depth = limit; depth <= limit + 1; depth++)
        {
          g_autoptr(GError) error = NULL;
          g_autoptr(JsonNode) parsed = NULL;
          GString *deep = g_string_new (NULL);

          for (guint i = 0; i < depth; i++)
            g_string_append (deep, i % 2 ? "{\"k\":" : "[");
          g_string_append_c (deep, '0');
          for (guint i = depth; i > 0; i--)
            g_string_append (deep, (i - 1) % 2 ? "}" : "]");
          parsed = riv_json_parse (NULL, deep->str, deep->len, limits[k], &error);
          if (depth == limit)
            {
              g_assert_no_error (error);
              g_assert_nonnull (parsed);
            }
          else
            {
              g_autofree char *says = g_strdup_printf ("JSON nested deeper than %u levels", limit);

              g_assert_null (parsed);
              g_assert_nonnull (strstr (error->message, says));
            }
          g_string_free (deep, TRUE);
        }
    }

  {
    g_autofree char *hostile = g_strnfill (100000, '[');
    g_autoptr(GError) error = NULL;

    g_assert_null (riv_json_parse (NULL, hostile, -1, 0, &error));
    g_assert_nonnull (strstr (error->message, "nested deeper"));
  }
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

/* Numbers are read to the very double strtod gives, whether by the short
 * path (digits up to 2^53, a power of ten up to 22) or the long one. */
static void
test_numbers_exact (void)
{
  static const char * const fixed[] = {
    "0.0", "-0.0", "1e-06", "1.3e-05", "0.13943", "0.000631", "123456789012345e-22",
    "123456789012345e22", "1234567890123456e-3", "9007199254740993.0", "1e23", "1e-23",
    "2.2250738585072014e-308", "4.9e-324", "1.7976931348623157e308", "0.1", "0.30000000000000004",
    "5e-324", "1E+2", "-3.5E-7", "100000000000000000000000.5", "0.000000000000000000000000001",
    /* Around 2^53 (9007199254740992), and server stamps (Unix µs, 16 digits). */
    "9007199254740992", "9007199254740992.0", "9007199254740993e-5", "9007199254740991e-22",
    "900719925474099.3", "1796619554.959401", "1796619554.959468", "-1796619554.000001",
    "9999999999999999999e-3", "1844674407370955161.5", "12345678901234567890e-10",
    "0.9007199254740993", "4503599627370497.5", "1.000000000000000111",
  };

  for (guint i = 0; i < G_N_ELEMENTS (fixed) + 40000; i++)
    {
      g_autofree char *text = NULL;
      g_autoptr(JsonNode) node = NULL;
      g_autoptr(GError) error = NULL;
      double want, got;

      if (i < G_N_ELEMENTS (fixed))
        text = g_strdup (fixed[i]);
      else if (i % 2 == 0)
        /* 15 to 19 digits around 2^53, a point anywhere in them. */
        {
          guint64 m = (G_GUINT64_CONSTANT (1) << 53) +
                      (guint64) g_test_rand_int_range (-100000, 100000) *
                        (guint64) g_test_rand_int_range (1, 1000) *
                        (g_test_rand_bit () ? 1 : 1000);
          g_autofree char *digits = g_strdup_printf ("%" G_GUINT64_FORMAT, m);
          int point = g_test_rand_int_range (1, (int) strlen (digits) + 1);

          text = g_strdup_printf ("%.*s.%s0e%d", point, digits, digits + point,
                                  g_test_rand_int_range (-25, 25));
        }
      else
        /* Random mantissas of 1 to 17 digits with exponents around the short path's edge. */
        text = g_strdup_printf ("%s%" G_GUINT64_FORMAT ".%ue%d", g_test_rand_bit () ? "-" : "",
                                (guint64) g_test_rand_int_range (0, G_MAXINT32) *
                                  (guint64) g_test_rand_int_range (1, 100000),
                                (guint) g_test_rand_int_range (0, 1000),
                                g_test_rand_int_range (-30, 30));
      node = riv_json_parse (NULL, text, -1, 0, &error);
      g_assert_no_error (error);
      want = g_ascii_strtod (text, NULL);
      got = json_node_get_double (node);
      if (memcmp (&want, &got, sizeof want) != 0)
        g_error ("%s read as %.17g, strtod says %.17g", text, got, want);
    }
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

/* A request's data with {i} and {u} filled in keeps the members in the
 * order the template gives them: what a server (or a diff of two
 * recordings) sees does not depend on a hash table's order. */
static void
test_substitute_keeps_order (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonNode) template = riv_json_parse (NULL,
      "[{\"zeta\":\"job {i}\",\"alpha\":1,\"mid\":{\"yes\":\"user {u}\",\"beta\":[2,\"{i}\"]},"
      "\"b\":true,\"a\":null,\"c\":\"{u}{i}\"}]", -1, 0, &error);
  g_autoptr(JsonNode) filled = NULL;
  g_autofree char *json = NULL;

  g_assert_no_error (error);
  filled = riv_json_substitute_index_user (template, 7, 3);
  json = riv_json_to_string (filled, NULL);
  g_assert_cmpstr (json, ==,
                   "[{\"zeta\":\"job 7\",\"alpha\":1,\"mid\":{\"yes\":\"user 3\",\"beta\":[2,\"7\"]},"
                   "\"b\":true,\"a\":null,\"c\":\"37\"}]");
}

/* JSON for people: numbers in the fewest digits that read back the same,
 * everything else as the generator writes it, members in their order. */
static void
test_display (void)
{
  static const struct { const char *in; const char *out; } cases[] = {
    { "[\"river {i}\",0.2]", "[\"river {i}\",0.2]" },
    { "0.05", "0.05" },
    { "[0.1,0.30000000000000004,1e300,-2.5,3]", "[0.1,0.30000000000000004,1e+300,-2.5,3]" },
    { "{\"b\":0.2,\"a\":[true,null,\"q\\\"\"]}", "{\"b\":0.2,\"a\":[true,null,\"q\\\"\"]}" },
    { "0.059711999994760845", "0.059711999994760845" },
  };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autoptr(GError) error = NULL;
      g_autoptr(JsonNode) node = riv_json_parse (NULL, cases[i].in, -1, 0, &error);
      g_autofree char *text = NULL;
      g_autoptr(JsonNode) back = NULL;

      g_assert_no_error (error);
      text = riv_json_to_display (node);
      g_assert_cmpstr (text, ==, cases[i].out);
      /* It reads back as the same values. */
      back = riv_json_parse (NULL, text, -1, 0, &error);
      g_assert_no_error (error);
      g_assert_true (json_node_equal (node, back));
    }
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/json/plain-same-tree", test_plain_same_tree);
  g_test_add_func ("/json/not-json-refused", test_not_json_refused);
  g_test_add_func ("/json/corners-read", test_corners_read);
  g_test_add_func ("/json/escapes-json-lacks", test_escapes_json_lacks);
  g_test_add_func ("/json/depth-limit", test_depth_limit);
  g_test_add_func ("/json/parse-seals-like-json-glib", test_parse_seals_like_json_glib);
  g_test_add_func ("/json/int64-hash-spreads", test_int64_hash_spreads);
  g_test_add_func ("/json/numbers-exact", test_numbers_exact);
  g_test_add_func ("/json/substitute-keeps-order", test_substitute_keeps_order);
  g_test_add_func ("/json/display", test_display);

  return g_test_run ();
}
