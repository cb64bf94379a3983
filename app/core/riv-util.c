/* riv-util.c
 * Copyright 2026 The Rivulet authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "config.h"

#include <string.h>
#include <unistd.h>

#include "riv-util.h"

gboolean
riv_set_str (char       **str_pointer,
             const char  *new_str)
{
  char *copy;

  g_return_val_if_fail (str_pointer != NULL, FALSE);

  if (*str_pointer == new_str || g_strcmp0 (*str_pointer, new_str) == 0)
    return FALSE;

  copy = g_strdup (new_str);
  g_free (*str_pointer);
  *str_pointer = copy;

  return TRUE;
}

void
riv_prefer_system_malloc (char **argv)
{
  /* Only getenv/setenv/execv: GLib's slice allocator is already running
   * (its constructors allocate), so it cannot be reconfigured in place. */
  if (glib_check_version (2, 76, 0) == NULL || g_getenv ("G_SLICE") != NULL ||
      argv == NULL || argv[0] == NULL)
    return;

  g_setenv ("G_SLICE", "always-malloc", TRUE);
  execv ("/proc/self/exe", argv);
}

double
riv_now (void)
{
  return g_get_monotonic_time () / (double) G_USEC_PER_SEC;
}

char *
riv_json_to_string (JsonNode *node,
                    gsize    *length)
{
  g_autoptr(JsonGenerator) gen = json_generator_new ();

  json_generator_set_root (gen, node);
  return json_generator_to_data (gen, length);
}

/* A cheap scan before json-glib sees the data. It bounds nesting (json-glib
 * recurses per level), and it rejects a second top-level value: json-glib 1.6
 * accepts "{}{}", "[] []" or "1 {}", keeps the last value and leaks the
 * others, so a hostile server could both swap a frame's meaning and grow our
 * memory. Strings (double- and single-quoted) and comments (from one '/' to
 * the next), which json-glib 1.6 all accepts, are skipped, so brackets inside
 * them count for nothing. */
static int
hex4 (const char *p)
{
  int value = 0;

  for (int k = 0; k < 4; k++)
    {
      int d = g_ascii_xdigit_value (p[k]);

      if (d < 0)
        return -1;
      value = value * 16 + d;
    }
  return value;
}

/* At data[*i] == '\\' followed by 'u'. json-glib 1.6 turns a lone UTF-16
 * surrogate into bytes that are not UTF-8 (and swallows the next character),
 * so such text is refused here; a valid pair is stepped over whole. On return
 * *i is two characters before the end of the escape: the caller's two
 * increments land just after it. */
static gboolean
check_unicode_escape (const char  *data,
                      gsize        length,
                      gsize       *i,
                      GError     **error)
{
  gsize at = *i;
  int unit;

  /* A \u not followed by four hex digits is invalid JSON; json-glib 1.6
   * leaks memory on some of these, so it never sees them. */
  if (at + 6 > length || (unit = hex4 (data + at + 2)) < 0)
    {
      g_set_error_literal (error, JSON_PARSER_ERROR, JSON_PARSER_ERROR_INVALID_DATA,
                           "JSON string with an invalid \\u escape");
      return FALSE;
    }

  if (unit >= 0xdc00 && unit <= 0xdfff)
    goto lone;
  if (unit >= 0xd800 && unit <= 0xdbff)
    {
      int low;

      if (at + 12 > length || data[at + 6] != '\\' || data[at + 7] != 'u' ||
          (low = hex4 (data + at + 8)) < 0xdc00 || low > 0xdfff)
        goto lone;
      *i = at + 10;   /* the caller's two increments step past the pair */
      return TRUE;
    }

  *i = at + 4;
  return TRUE;

lone:
  g_set_error_literal (error, JSON_PARSER_ERROR, JSON_PARSER_ERROR_INVALID_DATA,
                       "JSON string with an unpaired UTF-16 surrogate escape");
  return FALSE;
}

static gboolean
prescan (const char  *data,
         gsize        length,
         guint        max_depth,
         GError     **error)
{
  guint depth = 0;
  gboolean seen_value = FALSE;
  gsize i = 0;

  /* json-glib skips a leading UTF-8 BOM. */
  if (length >= 3 && memcmp (data, "\xef\xbb\xbf", 3) == 0)
    i = 3;

  for (; i < length; i++)
    {
      char c = data[i];
      const char *end;

      switch (c)
        {
        case ' ': case '\t': case '\n': case '\r':
          continue;
        case '/':
          /* json-glib's comments run from one '/' to the next. */
          end = memchr (data + i + 1, '/', length - i - 1);
          if (end == NULL)
            return TRUE;   /* json-glib reports the unterminated comment */
          i = end - data;
          continue;
        default:
          break;
        }

      if (depth == 0)
        {
          if (seen_value && (c == '[' || c == '{'))
            {
              g_set_error_literal (error, JSON_PARSER_ERROR, JSON_PARSER_ERROR_PARSE,
                                   "JSON text with more than one top-level value");
              return FALSE;
            }
          seen_value = TRUE;
        }

      if (c == '"')
        {
          for (i++; i < length && data[i] != '"'; i++)
            if (data[i] == '\\')
              {
                if (i + 1 < length && data[i + 1] == 'u' &&
                    !check_unicode_escape (data, length, &i, error))
                  return FALSE;
                i++;
              }
        }
      else if (c == '\'')
        {
          end = memchr (data + i + 1, '\'', length - i - 1);
          if (end == NULL)
            return TRUE;
          i = end - data;
        }
      else if (c == '[' || c == '{')
        {
          if (++depth > max_depth && max_depth > 0)
            {
              g_set_error (error, JSON_PARSER_ERROR, JSON_PARSER_ERROR_PARSE,
                           "JSON nested deeper than %u levels", max_depth);
              return FALSE;
            }
        }
      else if ((c == ']' || c == '}') && depth > 0)
        depth--;
    }

  return TRUE;
}

JsonNode *
riv_json_parse (JsonParser  *parser,
                const char  *data,
                gssize       length,
                guint        max_depth,
                GError     **error)
{
  g_autoptr(JsonParser) own = NULL;
  JsonNode *root;

  if (length < 0)
    length = strlen (data);

  if (!prescan (data, length, max_depth, error))
    return NULL;

  if (parser == NULL)
    parser = own = json_parser_new_immutable ();

  if (!json_parser_load_from_data (parser, data, length, error))
    return NULL;

  root = json_parser_get_root (parser);
  if (root == NULL)
    {
      g_set_error_literal (error, JSON_PARSER_ERROR, JSON_PARSER_ERROR_PARSE, "empty JSON document");
      return NULL;
    }

  return json_node_ref (root);
}

const char *
riv_json_get_string (JsonObject *object,
                     const char *member)
{
  JsonNode *node;

  if (object == NULL || !(node = json_object_get_member (object, member)))
    return NULL;
  if (JSON_NODE_HOLDS_VALUE (node) && json_node_get_value_type (node) == G_TYPE_STRING)
    return json_node_get_string (node);
  return NULL;
}

gboolean
riv_json_get_double (JsonObject *object,
                     const char *member,
                     double     *out)
{
  JsonNode *node;
  GType type;

  if (object == NULL || !(node = json_object_get_member (object, member)) ||
      !JSON_NODE_HOLDS_VALUE (node))
    return FALSE;

  type = json_node_get_value_type (node);
  if (type == G_TYPE_DOUBLE)
    *out = json_node_get_double (node);
  else if (type == G_TYPE_INT64)
    *out = (double) json_node_get_int (node);
  else
    return FALSE;
  return TRUE;
}

gboolean
riv_json_get_int (JsonObject *object,
                  const char *member,
                  gint64     *out)
{
  JsonNode *node;
  GType type;

  if (object == NULL || !(node = json_object_get_member (object, member)) ||
      !JSON_NODE_HOLDS_VALUE (node))
    return FALSE;

  type = json_node_get_value_type (node);
  if (type == G_TYPE_INT64)
    *out = json_node_get_int (node);
  else if (type == G_TYPE_DOUBLE)
    {
      double d = json_node_get_double (node);

      /* Converting an out-of-range double to an integer is undefined. */
      if (!(d >= -9.2e18 && d <= 9.2e18))
        return FALSE;
      *out = (gint64) d;
    }
  else
    return FALSE;
  return TRUE;
}

gboolean
riv_json_get_bool (JsonObject *object,
                   const char *member,
                   gboolean    default_value)
{
  JsonNode *node;

  if (object == NULL || !(node = json_object_get_member (object, member)) ||
      !JSON_NODE_HOLDS_VALUE (node) || json_node_get_value_type (node) != G_TYPE_BOOLEAN)
    return default_value;
  return json_node_get_boolean (node);
}

#define RIV_PLACEHOLDER "{i}"

gboolean
riv_json_has_placeholder (JsonNode *node)
{
  if (node == NULL)
    return FALSE;

  switch (json_node_get_node_type (node))
    {
    case JSON_NODE_VALUE:
      return json_node_get_value_type (node) == G_TYPE_STRING &&
             strstr (json_node_get_string (node), RIV_PLACEHOLDER) != NULL;

    case JSON_NODE_ARRAY:
      {
        JsonArray *array = json_node_get_array (node);

        for (guint i = 0; i < json_array_get_length (array); i++)
          if (riv_json_has_placeholder (json_array_get_element (array, i)))
            return TRUE;
        return FALSE;
      }

    case JSON_NODE_OBJECT:
      {
        JsonObjectIter iter;
        JsonNode *value;

        json_object_iter_init (&iter, json_node_get_object (node));
        while (json_object_iter_next (&iter, NULL, &value))
          if (riv_json_has_placeholder (value))
            return TRUE;
        return FALSE;
      }

    case JSON_NODE_NULL:
    default:
      return FALSE;
    }
}

static JsonNode *
substitute (JsonNode   *node,
            const char *index_text)
{
  switch (json_node_get_node_type (node))
    {
    case JSON_NODE_VALUE:
      if (json_node_get_value_type (node) == G_TYPE_STRING &&
          strstr (json_node_get_string (node), RIV_PLACEHOLDER) != NULL)
        {
          g_autoptr(GString) text = g_string_new (json_node_get_string (node));

          g_string_replace (text, RIV_PLACEHOLDER, index_text, 0);
          return json_node_init_string (json_node_alloc (), text->str);
        }
      return json_node_copy (node);

    case JSON_NODE_ARRAY:
      {
        JsonArray *array = json_node_get_array (node);
        g_autoptr(JsonArray) copy = json_array_sized_new (json_array_get_length (array));

        for (guint i = 0; i < json_array_get_length (array); i++)
          json_array_add_element (copy, substitute (json_array_get_element (array, i), index_text));
        return json_node_init_array (json_node_alloc (), copy);
      }

    case JSON_NODE_OBJECT:
      {
        g_autoptr(JsonObject) copy = json_object_new ();
        JsonObjectIter iter;
        const char *member;
        JsonNode *value;

        json_object_iter_init (&iter, json_node_get_object (node));
        while (json_object_iter_next (&iter, &member, &value))
          json_object_set_member (copy, member, substitute (value, index_text));
        return json_node_init_object (json_node_alloc (), copy);
      }

    case JSON_NODE_NULL:
    default:
      return json_node_copy (node);
    }
}

JsonNode *
riv_json_substitute_index (JsonNode *node,
                           guint64   index)
{
  char index_text[24];

  g_return_val_if_fail (node != NULL, NULL);

  g_snprintf (index_text, sizeof index_text, "%" G_GUINT64_FORMAT, index);
  return substitute (node, index_text);
}
