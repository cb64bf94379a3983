/* fuzz-entry-config.c
 * Copyright 2026 The Rivulet authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Input: a server's /config document.
 *
 * Oracles, when riv_config_new_from_data() accepts it:
 *  - the root has no trailing '/', the api_prefix is "" or "/…" without one,
 *    the protocol is one Rivulet speaks;
 *  - every URL RivClient builds from the config (queue/join, queue/data,
 *    cancel, reset, upload, info, file=) is accepted by soup_message_new(),
 *    since RivClient sends to them;
 *  - every endpoint has one component per input and output, each with a
 *    lower-case type, props, lines in 1..1000 and matching choice lists;
 *    get_component(id) finds the component or nothing (synthetic ones);
 *  - find_endpoint() finds each named endpoint by "name" and "/name", and
 *    for any name taken from the input returns NULL or an endpoint whose
 *    api_name or fn_index is that name;
 *  - refcounting (ref + unref) keeps the config alive;
 *  - the document read as /info (riv_config_set_api_info()) names parameters
 *    of named endpoints only, never an empty one; typed parameters make
 *    components with a label; a keyword call of nothing maps to one value
 *    per input or an error, never both;
 *  - each example (a dataset's samples) is one value per input.
 * When it is rejected, the error is in RIV_CONFIG_ERROR.
 */
#include "config.h"

#include <libsoup/soup.h>
#include <string.h>

#include "fuzz-entry.h"
#include "riv-config.h"
#include "riv-json.h"

#define BASE_URL "http://127.0.0.1:7860"
#define MAX_NAMES 64

static const char * const client_paths[] = {
  "/queue/join", "/queue/data", "/cancel", "/reset", "/upload", "/info", "/file=",
};

static void
check_component (RivConfig    *config,
                 RivComponent *component)
{
  RivComponent *by_id;

  RIV_FUZZ_CHECK (component != NULL, "NULL component in an endpoint");
  RIV_FUZZ_CHECK (component->type != NULL && component->type[0] != '\0', "component without type");
  for (const char *p = component->type; *p != '\0'; p++)
    RIV_FUZZ_CHECK (!g_ascii_isupper (*p), "component type %s is not lower-case", component->type);
  RIV_FUZZ_CHECK (component->props != NULL, "component without props");
  RIV_FUZZ_CHECK (component->lines >= 1 && component->lines <= 1000, "lines %d", component->lines);
  RIV_FUZZ_CHECK (component->is_state == (strcmp (component->type, "state") == 0),
                  "is_state for type %s", component->type);
  RIV_FUZZ_CHECK ((component->choices == NULL) == (component->choice_values == NULL),
                  "choices and choice_values disagree");
  if (component->choices != NULL)
    RIV_FUZZ_CHECK (g_strv_length (component->choices) == g_strv_length (component->choice_values),
                    "%u choices, %u choice values", g_strv_length (component->choices),
                    g_strv_length (component->choice_values));
  if (component->label != NULL)
    RIV_FUZZ_CHECK (g_strcmp0 (riv_json_get_string (component->props, "label"), component->label) == 0,
                    "label is not props.label");

  by_id = riv_config_get_component (config, component->id);
  RIV_FUZZ_CHECK (by_id == NULL || by_id->id == component->id,
                  "get_component (%" G_GINT64_FORMAT ") returns id %" G_GINT64_FORMAT,
                  component->id, by_id != NULL ? by_id->id : 0);
  if (by_id == NULL)
    RIV_FUZZ_CHECK (strcmp (component->type, "unknown") == 0,
                    "component %" G_GINT64_FORMAT " of type %s is not in the config",
                    component->id, component->type);
}

static void
check_find (RivConfig  *config,
            const char *name)
{
  RivEndpoint *found = riv_config_find_endpoint (config, name);
  const char *bare = name;
  g_autofree char *index_text = NULL;

  /* Leading slashes are not part of a name. */
  while (*bare == '/')
    bare++;

  if (found == NULL)
    return;
  if (g_strcmp0 (found->api_name, bare) == 0)
    return;
  index_text = g_strdup_printf ("%" G_GINT64_FORMAT, found->fn_index);
  /* Decimal lookups go through g_ascii_string_to_unsigned, so "007" finds 7. */
  RIV_FUZZ_CHECK (g_ascii_isdigit (bare[0]) &&
                  g_ascii_strtoull (bare, NULL, 10) == (guint64) found->fn_index,
                  "find_endpoint (\"%s\") returns %s / fn %s", name,
                  found->api_name != NULL ? found->api_name : "(unnamed)", index_text);
}

static void
collect_names (JsonNode  *node,
               GPtrArray *names)
{
  if (names->len >= MAX_NAMES || node == NULL)
    return;

  if (JSON_NODE_HOLDS_OBJECT (node))
    {
      JsonObjectIter iter;
      const char *member;
      JsonNode *child;

      json_object_iter_init (&iter, json_node_get_object (node));
      while (json_object_iter_next (&iter, &member, &child) && names->len < MAX_NAMES)
        {
          g_ptr_array_add (names, (gpointer) member);
          collect_names (child, names);
        }
    }
  else if (JSON_NODE_HOLDS_ARRAY (node))
    {
      JsonArray *array = json_node_get_array (node);

      for (guint i = 0; i < json_array_get_length (array) && names->len < MAX_NAMES; i++)
        collect_names (json_array_get_element (array, i), names);
    }
  else if (JSON_NODE_HOLDS_VALUE (node) && json_node_get_value_type (node) == G_TYPE_STRING)
    g_ptr_array_add (names, (gpointer) json_node_get_string (node));
}

static void
check_config (RivConfig  *config,
              const char *data,
              gsize       size)
{
  const char *root = riv_config_get_root (config);
  const char *prefix = riv_config_get_api_prefix (config);
  const char *protocol = riv_config_get_protocol (config);
  guint n = riv_config_get_n_endpoints (config);
  g_autoptr(JsonNode) input = NULL;
  g_autoptr(GPtrArray) names = g_ptr_array_new ();

  RIV_FUZZ_CHECK (root != NULL && !g_str_has_suffix (root, "/"), "root \"%s\"", root);
  RIV_FUZZ_CHECK (prefix != NULL && (prefix[0] == '\0' || (prefix[0] == '/' && !g_str_has_suffix (prefix, "/"))),
                  "api_prefix \"%s\"", prefix);
  RIV_FUZZ_CHECK (g_strv_contains ((const char * const[]) { "sse_v1", "sse_v2", "sse_v2.1", "sse_v3", NULL },
                                   protocol), "protocol %s", protocol);
  RIV_FUZZ_CHECK (riv_config_uses_diffs (config) == (strcmp (protocol, "sse_v1") != 0), "uses_diffs");

  for (guint i = 0; i < G_N_ELEMENTS (client_paths); i++)
    {
      g_autofree char *url = riv_config_build_url (config, client_paths[i]);
      g_autoptr(SoupMessage) msg = NULL;

      RIV_FUZZ_CHECK (g_str_has_prefix (url, root), "URL %s outside the root %s", url, root);
      msg = soup_message_new (SOUP_METHOD_GET, url);
      RIV_FUZZ_CHECK (msg != NULL, "the config gives the URL \"%s\", which libsoup rejects", url);
    }

  RIV_FUZZ_CHECK (riv_config_get_endpoint (config, n) == NULL, "an endpoint past the end");
  for (guint i = 0; i < n; i++)
    {
      RivEndpoint *endpoint = riv_config_get_endpoint (config, i);
      g_autofree char *display = NULL;

      RIV_FUZZ_CHECK (endpoint != NULL, "endpoint %u is NULL", i);
      RIV_FUZZ_CHECK (endpoint->inputs != NULL && endpoint->outputs != NULL, "endpoint lists");
      RIV_FUZZ_CHECK (riv_endpoint_get_n_inputs (endpoint) == endpoint->inputs->len, "n_inputs");
      RIV_FUZZ_CHECK (endpoint->max_batch_size >= 1, "max_batch_size %" G_GINT64_FORMAT,
                      endpoint->max_batch_size);
      for (guint j = 0; j < endpoint->inputs->len; j++)
        check_component (config, g_ptr_array_index (endpoint->inputs, j));
      for (guint j = 0; j < endpoint->outputs->len; j++)
        check_component (config, g_ptr_array_index (endpoint->outputs, j));

      display = riv_endpoint_dup_display_name (endpoint);
      if (endpoint->api_name != NULL)
        {
          g_autofree char *slashed = g_strconcat ("/", endpoint->api_name, NULL);
          RivEndpoint *found = riv_config_find_endpoint (config, endpoint->api_name);

          RIV_FUZZ_CHECK (endpoint->api_name[0] != '\0' && endpoint->api_name[0] != '/',
                          "api_name \"%s\"", endpoint->api_name);
          RIV_FUZZ_CHECK (strcmp (display, slashed) == 0, "display name %s", display);
          RIV_FUZZ_CHECK (found != NULL && strcmp (found->api_name, endpoint->api_name) == 0,
                          "find_endpoint (\"%s\") misses it", endpoint->api_name);
          RIV_FUZZ_CHECK (riv_config_find_endpoint (config, slashed) == found,
                          "find_endpoint (\"%s\") differs from without the slash", slashed);
        }
      else
        RIV_FUZZ_CHECK (g_str_has_prefix (display, "fn "), "display name %s", display);

      if (endpoint->fn_index >= 0)
        {
          g_autofree char *index_text = g_strdup_printf ("%" G_GINT64_FORMAT, endpoint->fn_index);

          RIV_FUZZ_CHECK (riv_config_find_endpoint (config, index_text) != NULL,
                          "find_endpoint (\"%s\") finds nothing", index_text);
          check_find (config, index_text);
        }
    }

  /* Names taken from the input itself. */
  input = riv_json_parse (NULL, data, size, RIV_CONFIG_MAX_DEPTH, NULL);
  RIV_FUZZ_CHECK (input != NULL, "an accepted config does not parse");
  collect_names (input, names);
  for (guint i = 0; i < names->len; i++)
    check_find (config, g_ptr_array_index (names, i));
  RIV_FUZZ_CHECK (riv_config_find_endpoint (config, "") == NULL, "find_endpoint (\"\")");
  RIV_FUZZ_CHECK (riv_config_find_endpoint (config, "/") == NULL, "find_endpoint (\"/\")");
  RIV_FUZZ_CHECK (riv_config_find_endpoint (config, NULL) == NULL, "find_endpoint (NULL)");

  /* The same document read as /info (it may carry "named_endpoints"): every
   * parameter name it gives an endpoint is a non-empty string. */
  riv_config_set_api_info (config, input);
  for (guint i = 0; i < n; i++)
    {
      RivEndpoint *endpoint = riv_config_get_endpoint (config, i);

      RIV_FUZZ_CHECK (endpoint->parameters == NULL || endpoint->api_name != NULL,
                      "parameters for an unnamed endpoint");
      g_autoptr(JsonObject) none = json_object_new ();
      g_autoptr(GError) error = NULL;
      g_autoptr(JsonNode) mapped = NULL;

      for (guint k = 0; endpoint->parameters != NULL && endpoint->parameters[k] != NULL; k++)
        RIV_FUZZ_CHECK (endpoint->parameters[k][0] != '\0', "an empty parameter name");
      for (guint k = 0; endpoint->api_parameters != NULL && k < endpoint->api_parameters->len; k++)
        {
          RivComponent *component =
            riv_parameter_new_component (g_ptr_array_index (endpoint->api_parameters, k));

          RIV_FUZZ_CHECK (component->label != NULL && component->type != NULL, "a parameter's component");
          riv_component_free (component);
        }
      mapped = riv_endpoint_map_keywords (endpoint, none, &error);
      RIV_FUZZ_CHECK ((mapped == NULL) != (error == NULL), "keywords mapped %p, error %p",
                      (void *) mapped, (void *) error);
      RIV_FUZZ_CHECK (mapped == NULL ||
                      json_array_get_length (json_node_get_array (mapped)) == endpoint->inputs->len,
                      "a keyword call's values are not one per input");
      for (guint k = 0; k < riv_endpoint_get_n_examples (endpoint); k++)
        {
          g_autoptr(JsonNode) example = riv_endpoint_dup_example (endpoint, k);

          RIV_FUZZ_CHECK (json_array_get_length (json_node_get_array (example)) == endpoint->inputs->len,
                          "example %u is not one value per input", k);
        }
    }
}

void
riv_fuzz_config (const guint8 *data,
                 gsize         size)
{
  g_autoptr(RivConfig) config = NULL;
  g_autoptr(RivConfig) slashed = NULL;
  g_autoptr(GError) error = NULL;

  config = riv_config_new_from_data ((const char *) data, size, BASE_URL, &error);
  if (config == NULL)
    {
      RIV_FUZZ_CHECK (error != NULL && error->domain == RIV_CONFIG_ERROR, "rejected without a config error");
      return;
    }

  riv_config_ref (config);
  riv_config_unref (config);
  check_config (config, (const char *) data, size);

  /* The base URL's trailing slashes never reach the root. */
  slashed = riv_config_new_from_data ((const char *) data, size, BASE_URL "//", NULL);
  RIV_FUZZ_CHECK (slashed != NULL, "a trailing slash in the base URL rejects the config");
  RIV_FUZZ_CHECK (strcmp (riv_config_get_root (config), riv_config_get_root (slashed)) == 0,
                  "root %s with a slashed base URL, %s without", riv_config_get_root (slashed),
                  riv_config_get_root (config));
}
