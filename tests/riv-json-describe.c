/* riv-json-describe.c
 * Copyright 2026 The Rivulet authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "config.h"

#include <string.h>

#include "riv-json.h"
#include "riv-json-describe.h"

/* A node's type, value and children, ints and doubles told apart. */
static void
describe (GString  *out,
          JsonNode *node)
{
  switch (json_node_get_node_type (node))
    {
    case JSON_NODE_OBJECT:
      {
        JsonObject *object = json_node_get_object (node);
        g_autoptr(GList) members = json_object_get_members (object);

        g_string_append_c (out, '{');
        for (GList *l = members; l != NULL; l = l->next)
          {
            g_string_append_printf (out, "%zu:%s=", strlen (l->data), (char *) l->data);
            describe (out, json_object_get_member (object, l->data));
            g_string_append_c (out, ',');
          }
        g_string_append_c (out, '}');
        break;
      }
    case JSON_NODE_ARRAY:
      {
        JsonArray *array = json_node_get_array (node);

        g_string_append_c (out, '[');
        for (guint i = 0; i < json_array_get_length (array); i++)
          {
            describe (out, json_array_get_element (array, i));
            g_string_append_c (out, ',');
          }
        g_string_append_c (out, ']');
        break;
      }
    case JSON_NODE_NULL:
      g_string_append (out, "null");
      break;
    case JSON_NODE_VALUE:
      switch (json_node_get_value_type (node))
        {
        case G_TYPE_INT64:
          g_string_append_printf (out, "i%" G_GINT64_FORMAT, json_node_get_int (node));
          break;
        case G_TYPE_DOUBLE:
          g_string_append_printf (out, "d%a", json_node_get_double (node));
          break;
        case G_TYPE_BOOLEAN:
          g_string_append (out, json_node_get_boolean (node) ? "true" : "false");
          break;
        case G_TYPE_STRING:
          {
            const char *s = json_node_get_string (node);

            g_string_append_printf (out, "s%zu:%s", strlen (s), s);
            break;
          }
        default:
          g_string_append_printf (out, "?%s", g_type_name (json_node_get_value_type (node)));
        }
      break;
    }
}

char *
riv_json_describe (JsonNode *node)
{
  GString *out = g_string_new (NULL);

  describe (out, node);
  return g_string_free (out, FALSE);
}

