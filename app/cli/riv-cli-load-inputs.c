/* riv-cli-load-inputs.c
 * Copyright 2026 The Rivulet authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * What rivulet-cli load sends as a job's inputs: the values of --data (or a
 * scenario's "data") completed with the endpoint's defaults, or the
 * endpoint's examples (--examples), each a template of the jobs.
 */
#include "config.h"

#include "riv-cli-load.h"

/* One value per input: what --data gives, then the inputs' defaults; or
 * --data's parameters by name in the endpoint's order, each missing one
 * its default (as the official clients' keyword arguments). */
JsonNode *
load_build_template (RivEndpoint  *endpoint,
                     JsonNode     *given,
                     const char   *what,
                     GError      **error)
{
  JsonArray *given_array;
  guint n_given;
  guint n_inputs = endpoint->inputs->len;
  JsonArray *array;
  JsonNode *node;

  if (given != NULL && JSON_NODE_HOLDS_OBJECT (given))
    {
      g_autoptr(GError) local = NULL;
      g_autofree char *name = riv_endpoint_dup_display_name (endpoint);

      node = riv_endpoint_map_keywords (endpoint, json_node_get_object (given), &local);
      if (node == NULL)
        g_set_error (error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE, "%s for %s: %s",
                     what, name, local->message);
      return node;
    }
  given_array = given != NULL ? json_node_get_array (given) : NULL;
  n_given = given_array != NULL ? json_array_get_length (given_array) : 0;
  if (n_given > n_inputs)
    {
      g_set_error (error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
                   "%s has %u values but the endpoint takes %u input(s)", what, n_given,
                   n_inputs);
      return NULL;
    }

  array = json_array_sized_new (n_inputs);
  for (guint i = 0; i < n_inputs; i++)
    {
      RivComponent *component = g_ptr_array_index (endpoint->inputs, i);

      if (i < n_given)
        json_array_add_element (array, json_node_copy (json_array_get_element (given_array, i)));
      else if (component != NULL && component->value != NULL && !component->is_state)
        json_array_add_element (array, json_node_copy (component->value));
      else
        json_array_add_null_element (array);
    }

  node = json_node_new (JSON_NODE_ARRAY);
  json_node_take_array (node, array);
  return node;
}

/* The endpoint's examples (gr.Examples), each a template; NULL (what names
 * the option or key in the error) when it has none. */
GPtrArray *
load_endpoint_examples (RivEndpoint  *endpoint,
                        const char   *what,
                        GError      **error)
{
  g_autoptr(GPtrArray) examples = g_ptr_array_new_with_free_func ((GDestroyNotify) json_node_unref);
  g_autofree char *name = riv_endpoint_dup_display_name (endpoint);

  for (guint i = 0; i < riv_endpoint_get_n_examples (endpoint); i++)
    g_ptr_array_add (examples, riv_endpoint_dup_example (endpoint, i));
  if (examples->len == 0)
    {
      g_set_error (error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
                   "%s: %s has no examples in the server's config", what, name);
      return NULL;
    }
  return g_steal_pointer (&examples);
}
