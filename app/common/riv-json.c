/* riv-json.c
 * Copyright 2026 The Rivulet authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "config.h"

#include <math.h>
#include <string.h>

#include "riv-json.h"

char *
riv_json_to_string (JsonNode *node,
                    gsize    *length)
{
  g_autoptr(JsonGenerator) gen = json_generator_new ();

  json_generator_set_root (gen, node);
  return json_generator_to_data (gen, length);
}

/* The shortest of %.15g, %.16g and %.17g that reads back as value. */
static void
append_short_double (GString *out,
                     double   value)
{
  char buffer[G_ASCII_DTOSTR_BUF_SIZE];

  for (int digits = 15; digits <= 17; digits++)
    {
      g_autofree char *format = g_strdup_printf ("%%.%dg", digits);

      g_ascii_formatd (buffer, sizeof buffer, format, value);
      if (digits == 17 || g_ascii_strtod (buffer, NULL) == value)
        break;
    }
  g_string_append (out, buffer);
}

static void
append_display (GString  *out,
                JsonNode *node)
{
  if (JSON_NODE_HOLDS_VALUE (node) && json_node_get_value_type (node) == G_TYPE_DOUBLE &&
      isfinite (json_node_get_double (node)))
    append_short_double (out, json_node_get_double (node));
  else if (JSON_NODE_HOLDS_ARRAY (node))
    {
      JsonArray *array = json_node_get_array (node);

      g_string_append_c (out, '[');
      for (guint i = 0; i < json_array_get_length (array); i++)
        {
          if (i > 0)
            g_string_append_c (out, ',');
          append_display (out, json_array_get_element (array, i));
        }
      g_string_append_c (out, ']');
    }
  else if (JSON_NODE_HOLDS_OBJECT (node))
    {
      JsonObject *object = json_node_get_object (node);
      g_autoptr(GList) names = json_object_get_members (object);

      g_string_append_c (out, '{');
      for (GList *l = names; l != NULL; l = l->next)
        {
          g_autoptr(JsonNode) key = json_node_init_string (json_node_alloc (), l->data);
          g_autofree char *quoted = riv_json_to_string (key, NULL);

          g_string_append_printf (out, "%s%s:", l == names ? "" : ",", quoted);
          append_display (out, json_object_get_member (object, l->data));
        }
      g_string_append_c (out, '}');
    }
  else
    {
      g_autofree char *text = riv_json_to_string (node, NULL);

      g_string_append (out, text);
    }
}

char *
riv_json_to_display (JsonNode *node)
{
  GString *out = g_string_new (NULL);

  append_display (out, node);
  return g_string_free (out, FALSE);
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
riv_json_node_get_double (JsonNode *node,
                          double   *out)
{
  GType type;

  if (node == NULL || !JSON_NODE_HOLDS_VALUE (node))
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
riv_json_get_double (JsonObject *object,
                     const char *member,
                     double     *out)
{
  return object != NULL && riv_json_node_get_double (json_object_get_member (object, member), out);
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
#define RIV_USER_PLACEHOLDER "{u}"

gboolean
riv_json_find_value (JsonNode         *node,
                     RivJsonValueFunc  func)
{
  if (node == NULL)
    return FALSE;

  switch (json_node_get_node_type (node))
    {
    case JSON_NODE_VALUE:
      return func (node);

    case JSON_NODE_ARRAY:
      {
        JsonArray *array = json_node_get_array (node);

        for (guint i = 0; i < json_array_get_length (array); i++)
          if (riv_json_find_value (json_array_get_element (array, i), func))
            return TRUE;
        return FALSE;
      }

    case JSON_NODE_OBJECT:
      {
        JsonObjectIter iter;
        JsonNode *value;

        json_object_iter_init (&iter, json_node_get_object (node));
        while (json_object_iter_next (&iter, NULL, &value))
          if (riv_json_find_value (value, func))
            return TRUE;
        return FALSE;
      }

    case JSON_NODE_NULL:
    default:
      return FALSE;
    }
}

static gboolean
is_placeholder_string (JsonNode *value)
{
  return json_node_get_value_type (value) == G_TYPE_STRING &&
         strstr (json_node_get_string (value), RIV_PLACEHOLDER) != NULL;
}

gboolean
riv_json_has_placeholder (JsonNode *node)
{
  return riv_json_find_value (node, is_placeholder_string);
}

/* user_text NULL leaves "{u}" alone. */
static JsonNode *
substitute (JsonNode   *node,
            const char *index_text,
            const char *user_text)
{
  switch (json_node_get_node_type (node))
    {
    case JSON_NODE_VALUE:
      if (json_node_get_value_type (node) == G_TYPE_STRING &&
          (strstr (json_node_get_string (node), RIV_PLACEHOLDER) != NULL ||
           (user_text != NULL && strstr (json_node_get_string (node), RIV_USER_PLACEHOLDER) != NULL)))
        {
          g_autoptr(GString) text = g_string_new (json_node_get_string (node));

          g_string_replace (text, RIV_PLACEHOLDER, index_text, 0);
          if (user_text != NULL)
            g_string_replace (text, RIV_USER_PLACEHOLDER, user_text, 0);
          return json_node_init_string (json_node_alloc (), text->str);
        }
      return json_node_copy (node);

    case JSON_NODE_ARRAY:
      {
        JsonArray *array = json_node_get_array (node);
        g_autoptr(JsonArray) copy = json_array_sized_new (json_array_get_length (array));

        for (guint i = 0; i < json_array_get_length (array); i++)
          json_array_add_element (copy, substitute (json_array_get_element (array, i),
                                                    index_text, user_text));
        return json_node_init_array (json_node_alloc (), copy);
      }

    case JSON_NODE_OBJECT:
      {
        g_autoptr(JsonObject) copy = json_object_new ();
        JsonObjectIter iter;
        const char *member;
        JsonNode *value;

        json_object_iter_init_ordered (&iter, json_node_get_object (node));
        while (json_object_iter_next_ordered (&iter, &member, &value))
          json_object_set_member (copy, member, substitute (value, index_text, user_text));
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
  return substitute (node, index_text, NULL);
}

JsonNode *
riv_json_substitute_index_user (JsonNode *node,
                                guint64   index,
                                guint     user)
{
  char index_text[24];
  char user_text[16];

  g_return_val_if_fail (node != NULL, NULL);

  g_snprintf (index_text, sizeof index_text, "%" G_GUINT64_FORMAT, index);
  g_snprintf (user_text, sizeof user_text, "%u", user);
  return substitute (node, index_text, user_text);
}
