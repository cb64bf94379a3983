/* fuzz-entry-server-body.c
 * Copyright 2026 The Rivulet authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Input: a POST /queue/join or /cancel request body.
 *
 * RivServer's handlers are static, so this follows their steps with the
 * functions they call that are exported: riv_json_parse() with the server's
 * depth bound, then, for a join, riv_demo_parse_params() on "data" for the
 * endpoint named by "fn_index" (and for every demo, to reach all validators);
 * for a cancel, the members read with riv_json_get_string/_int.
 *
 * riv_json_parse() must not accept nesting deeper than its bound.
 *
 * Oracles for riv_demo_parse_params(): exactly one of params and detail; the
 * params have one value per input, texts non-NULL and valid UTF-8, numbers
 * finite, within the input's range and whole where the input is an integer;
 * the detail is a non-empty list of {"is_valid": false, "message": text}.
 */
#include "config.h"

#include <math.h>
#include <string.h>

#include "fuzz-entry.h"
#include "riv-demo.h"
#include "riv-json.h"

/* riv-server.c: JSON_MAX_DEPTH */
#define SERVER_JSON_MAX_DEPTH 32

static guint
node_depth (JsonNode *node)
{
  guint deepest = 0;

  if (JSON_NODE_HOLDS_ARRAY (node))
    {
      JsonArray *array = json_node_get_array (node);

      for (guint i = 0; i < json_array_get_length (array); i++)
        deepest = MAX (deepest, node_depth (json_array_get_element (array, i)));
      return deepest + 1;
    }
  if (JSON_NODE_HOLDS_OBJECT (node))
    {
      JsonObjectIter iter;
      JsonNode *member;

      json_object_iter_init (&iter, json_node_get_object (node));
      while (json_object_iter_next (&iter, NULL, &member))
        deepest = MAX (deepest, node_depth (member));
      return deepest + 1;
    }
  return 0;
}

static void
check_params (const RivDemo *demo,
              JsonNode      *data)
{
  g_autoptr(RivDemoParams) params = NULL;
  g_autoptr(JsonNode) detail = NULL;

  params = riv_demo_parse_params (demo, data, &detail);
  RIV_FUZZ_CHECK ((params != NULL) != (detail != NULL), "%s: params and detail disagree",
                  demo->api_name);

  if (params != NULL)
    {
      RIV_FUZZ_CHECK (params->n == demo->n_inputs, "%s: %u values for %u inputs",
                      demo->api_name, params->n, demo->n_inputs);
      for (guint i = 0; i < params->n; i++)
        {
          const RivDemoComponent *input = &demo->inputs[i];
          const RivDemoValue *value = &params->values[i];

          if (input->kind == RIV_COMPONENT_TEXTBOX)
            {
              RIV_FUZZ_CHECK (value->text != NULL, "%s.%s: NULL text", demo->api_name, input->name);
              RIV_FUZZ_CHECK (g_utf8_validate (value->text, -1, NULL), "%s.%s: text is not UTF-8",
                              demo->api_name, input->name);
              continue;
            }
          RIV_FUZZ_CHECK (isfinite (value->number), "%s.%s: %g", demo->api_name, input->name,
                          value->number);
          RIV_FUZZ_CHECK (value->number >= input->minimum && value->number <= input->maximum,
                          "%s.%s: %g outside %g..%g", demo->api_name, input->name, value->number,
                          input->minimum, input->maximum);
          if (input->integer)
            RIV_FUZZ_CHECK (floor (value->number) == value->number, "%s.%s: %g is not whole",
                            demo->api_name, input->name, value->number);
        }
    }
  else
    {
      JsonArray *problems;

      RIV_FUZZ_CHECK (JSON_NODE_HOLDS_ARRAY (detail), "%s: detail is not a list", demo->api_name);
      problems = json_node_get_array (detail);
      RIV_FUZZ_CHECK (json_array_get_length (problems) > 0, "%s: empty detail", demo->api_name);
      for (guint i = 0; i < json_array_get_length (problems); i++)
        {
          JsonNode *problem = json_array_get_element (problems, i);
          JsonObject *object;

          RIV_FUZZ_CHECK (JSON_NODE_HOLDS_OBJECT (problem), "%s: problem is not an object",
                          demo->api_name);
          object = json_node_get_object (problem);
          RIV_FUZZ_CHECK (riv_json_get_string (object, "message") != NULL, "%s: problem without message",
                          demo->api_name);
          RIV_FUZZ_CHECK (!riv_json_get_bool (object, "is_valid", TRUE), "%s: problem is valid",
                          demo->api_name);
        }
      g_free (riv_json_to_string (detail, NULL));
    }
}

void
riv_fuzz_server_body (const guint8 *data,
                      gsize         size)
{
  g_autoptr(JsonNode) root = NULL;
  g_autoptr(GError) error = NULL;
  JsonObject *body;
  JsonNode *fn_node;
  JsonNode *params;
  const char *event_id, *hash;
  gint64 fn_index = -1;

  root = riv_json_parse (NULL, (const char *) data, size, SERVER_JSON_MAX_DEPTH, &error);
  if (root == NULL)
    {
      RIV_FUZZ_CHECK (error != NULL && error->message != NULL, "rejected without an error");
      return;
    }
  /* riv_json_parse() bounds nesting before json-glib recurses. */
  RIV_FUZZ_CHECK (node_depth (root) <= SERVER_JSON_MAX_DEPTH, "a body nested %u levels deep is accepted",
                  node_depth (root));
  if (!JSON_NODE_HOLDS_OBJECT (root))
    return;
  body = json_node_get_object (root);

  /* /queue/join */
  params = json_object_get_member (body, "data");
  for (guint i = 0; i < riv_demo_get_count (); i++)
    check_params (riv_demo_get (i), params);
  RIV_FUZZ_CHECK (riv_demo_get (riv_demo_get_count ()) == NULL, "a demo past the end");

  fn_node = json_object_get_member (body, "fn_index");
  if (fn_node != NULL && JSON_NODE_HOLDS_VALUE (fn_node) &&
      json_node_get_value_type (fn_node) == G_TYPE_INT64)
    {
      fn_index = json_node_get_int (fn_node);
      if (fn_index >= 0)
        {
          const RivDemo *demo = riv_demo_get ((guint) MIN (fn_index, G_MAXUINT));

          RIV_FUZZ_CHECK ((demo != NULL) == (fn_index < riv_demo_get_count ()),
                          "riv_demo_get (%" G_GINT64_FORMAT ")", fn_index);
        }
    }
  hash = riv_json_get_string (body, "session_hash");

  /* /cancel */
  event_id = riv_json_get_string (body, "event_id");
  if (riv_json_get_int (body, "fn_index", &fn_index))
    RIV_FUZZ_CHECK (fn_node != NULL && JSON_NODE_HOLDS_VALUE (fn_node), "fn_index from nothing");
  if (event_id != NULL || hash != NULL)
    RIV_FUZZ_CHECK ((event_id == NULL || g_utf8_validate (event_id, -1, NULL)) &&
                    (hash == NULL || g_utf8_validate (hash, -1, NULL)),
                    "a string member is not UTF-8");
}
