/* test-config.c
 * Copyright 2026 The Rivulet authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "config.h"

#include <string.h>

#include "riv-config.h"
#include "riv-message.h"
#include "riv-json.h"
#include "riv-test-util.h"

static RivConfig *
load_fixture (const char *name,
              const char *base_url)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *data = NULL;
  gsize len;
  RivConfig *config;

  data = riv_test_load_data (name, &len);
  config = riv_config_new_from_data (data, len, base_url, &error);
  g_assert_no_error (error);
  g_assert_nonnull (config);
  return config;
}

static RivConfig *
parse_ok (const char *text,
          const char *base_url)
{
  g_autoptr(GError) error = NULL;
  RivConfig *config = riv_config_new_from_data (text, -1, base_url, &error);

  g_assert_no_error (error);
  g_assert_nonnull (config);
  return config;
}

static void
assert_fails (const char *text,
              gssize      len,
              int         code,
              const char *message_part)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(RivConfig) config = riv_config_new_from_data (text, len, "http://h", &error);

  g_assert_null (config);
  g_assert_error (error, RIV_CONFIG_ERROR, code);
  if (message_part != NULL && strstr (error->message, message_part) == NULL)
    g_error ("error \"%s\" does not mention \"%s\"", error->message, message_part);
}

static const char *
component_type (RivEndpoint *endpoint,
                gboolean     output,
                guint        i)
{
  GPtrArray *list = output ? endpoint->outputs : endpoint->inputs;

  g_assert_cmpuint (i, <, list->len);
  return ((RivComponent *) g_ptr_array_index (list, i))->type;
}

static void
test_gradio4 (void)
{
  g_autoptr(RivConfig) config = load_fixture ("config-gradio4.json", "http://127.0.0.1:7860/");
  g_autofree char *url = NULL;
  g_autofree char *name = NULL;
  RivEndpoint *generate, *lambda, *js_only, *batch;
  RivComponent *prompt, *steps, *sampler, *button, *row;

  /* "root": "" → the URL we connected with, without its trailing slash. */
  g_assert_cmpstr (riv_config_get_root (config), ==, "http://127.0.0.1:7860");
  g_assert_cmpstr (riv_config_get_api_prefix (config), ==, "");
  g_assert_cmpstr (riv_config_get_protocol (config), ==, "sse_v3");
  g_assert_true (riv_config_uses_diffs (config));
  g_assert_cmpstr (riv_config_get_version (config), ==, "4.44.1");
  g_assert_cmpstr (riv_config_get_title (config), ==, "Gradio");
  g_assert_false (riv_config_get_connect_heartbeat (config));
  url = riv_config_build_url (config, "/queue/join");
  g_assert_cmpstr (url, ==, "http://127.0.0.1:7860/queue/join");

  g_assert_cmpuint (riv_config_get_n_components (config), ==, 7);
  g_assert_cmpuint (riv_config_get_n_endpoints (config), ==, 4);

  generate = riv_config_get_endpoint (config, 0);
  g_assert_cmpint (generate->fn_index, ==, 0);
  g_assert_cmpstr (generate->api_name, ==, "generate");
  g_assert_cmpuint (riv_endpoint_get_n_inputs (generate), ==, 3);
  g_assert_cmpstr (component_type (generate, FALSE, 0), ==, "textbox");
  g_assert_cmpstr (component_type (generate, FALSE, 1), ==, "slider");
  g_assert_cmpstr (component_type (generate, FALSE, 2), ==, "dropdown");
  g_assert_cmpuint (generate->outputs->len, ==, 1);
  g_assert_cmpstr (component_type (generate, TRUE, 0), ==, "image");
  g_assert_true (generate->generator);
  g_assert_false (generate->batch);
  g_assert_cmpint (generate->max_batch_size, ==, 4);
  /* queue: null falls back to enable_queue: true. */
  g_assert_true (generate->queue);
  g_assert_true (generate->is_public);
  g_assert_true (generate->backend_fn);
  g_assert_cmpstr (generate->connection, ==, "sse");
  name = riv_endpoint_dup_display_name (generate);
  g_assert_cmpstr (name, ==, "/generate");

  lambda = riv_config_get_endpoint (config, 1);
  g_assert_false (lambda->queue);
  /* Gradio 4's "show_api": false. */
  g_assert_false (lambda->is_public);
  g_assert_false (lambda->generator);

  js_only = riv_config_get_endpoint (config, 2);
  g_assert_null (js_only->api_name);
  g_assert_false (js_only->backend_fn);
  g_assert_cmpuint (js_only->inputs->len, ==, 0);
  g_clear_pointer (&name, g_free);
  name = riv_endpoint_dup_display_name (js_only);
  g_assert_cmpstr (name, ==, "fn 2");

  batch = riv_config_find_endpoint (config, "/echo_batch");
  g_assert_nonnull (batch);
  g_assert_true (batch->batch);
  g_assert_cmpint (batch->max_batch_size, ==, 8);

  prompt = riv_config_get_component (config, 1);
  g_assert_true (g_ptr_array_index (generate->inputs, 0) == prompt);
  g_assert_cmpstr (prompt->label, ==, "Prompt");
  g_assert_cmpint (prompt->lines, ==, 4);
  g_assert_cmpstr (json_node_get_string (prompt->value), ==, "a cat");
  g_assert_false (prompt->skip_api);
  g_assert_false (prompt->is_state);
  g_assert_null (prompt->choices);
  g_assert_true (json_object_has_member (prompt->props, "placeholder"));

  steps = riv_config_get_component (config, 2);
  g_assert_true (steps->has_minimum && steps->has_maximum && steps->has_step);
  g_assert_cmpfloat (steps->minimum, ==, 1);
  g_assert_cmpfloat (steps->maximum, ==, 50);
  g_assert_cmpfloat (steps->step, ==, 1);
  g_assert_cmpint (json_node_get_int (steps->value), ==, 20);
  g_assert_cmpint (steps->lines, ==, 1);

  /* [label, value] pairs: labels for display, values alongside. */
  sampler = riv_config_get_component (config, 3);
  g_assert_nonnull (sampler->choices);
  g_assert_cmpuint (g_strv_length (sampler->choices), ==, 3);
  g_assert_cmpstr (sampler->choices[0], ==, "Euler a");
  g_assert_cmpstr (sampler->choices[1], ==, "DPM++ 2M");
  g_assert_cmpstr (sampler->choice_values[0], ==, "euler_a");
  g_assert_cmpstr (sampler->choice_values[2], ==, "ddim");
  g_assert_null (sampler->choice_values[3]);

  button = riv_config_get_component (config, 5);
  g_assert_true (button->skip_api);
  g_assert_null (button->label);
  row = riv_config_get_component (config, 7);
  g_assert_cmpstr (row->type, ==, "row");
  g_assert_null (riv_config_get_component (config, 8));
}

/* /info's parameter names, for keyword calls (/call/v2); a list with a
 * nameless parameter, or no /info at all, gives none. */
static void
test_api_info (void)
{
  g_autoptr(RivConfig) config = load_fixture ("config-gradio5.json", "http://localhost:7860");
  g_autoptr(JsonNode) info = json_from_string (
    "{\"named_endpoints\": {"
    "\"/predict\": {\"parameters\": [{\"parameter_name\": \"prompt\"}, "
    "{\"parameter_name\": \"size\"}, {\"parameter_name\": \"guidance\"}]},"
    "\"/describe\": {\"parameters\": [{\"label\": \"no name\"}]},"
    "\"/undoc\": \"not an object\"}, \"unnamed_endpoints\": {}}", NULL);
  RivEndpoint *predict = riv_config_find_endpoint (config, "predict");

  g_assert_null (predict->parameters);
  riv_config_set_api_info (config, NULL);
  riv_config_set_api_info (config, info);
  g_assert_nonnull (predict->parameters);
  g_assert_cmpuint (g_strv_length (predict->parameters), ==, 3);
  g_assert_cmpstr (predict->parameters[0], ==, "prompt");
  g_assert_cmpstr (predict->parameters[2], ==, "guidance");
  g_assert_null (riv_config_find_endpoint (config, "describe")->parameters);
  g_assert_null (riv_config_find_endpoint (config, "undoc")->parameters);
}

/* Maps a keyword call given as JSON text. */
static JsonNode *
map_keywords (RivEndpoint  *endpoint,
              const char   *text,
              GError      **error)
{
  g_autoptr(JsonNode) keywords = json_from_string (text, NULL);

  return riv_endpoint_map_keywords (endpoint, json_node_get_object (keywords), error);
}

/* A Gradio 6.25 gr.Server app (recorded from the real server): no
 * components but gr.api's typed parameters, named and described by /info. */
static void
test_server_mode (void)
{
  g_autoptr(RivConfig) config = load_fixture ("config-gradio6-server.json", "http://127.0.0.1:7902");
  g_autofree char *info_text = riv_test_load_data ("info-gradio6-server.json", NULL);
  g_autoptr(JsonNode) info = json_from_string (info_text, NULL);
  RivEndpoint *add = riv_config_find_endpoint (config, "add");
  RivEndpoint *greet = riv_config_find_endpoint (config, "greet");
  RivParameter *p;
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonNode) values = NULL;
  g_autofree char *text = NULL;

  g_assert_true (riv_endpoint_is_api_only (add));
  g_assert_null (add->api_parameters);
  g_assert_null (add->description);
  /* Without /info, a keyword call cannot be mapped. */
  values = map_keywords (add, "{\"a\": 1}", &error);
  g_assert_null (values);
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_NOT_SUPPORTED);
  g_clear_error (&error);

  riv_config_set_api_info (config, info);
  g_assert_cmpstr (add->description, ==, "Adds two integers.");
  g_assert_cmpuint (add->api_parameters->len, ==, 2);
  p = g_ptr_array_index (add->api_parameters, 0);
  g_assert_cmpstr (p->name, ==, "a");
  g_assert_cmpstr (p->label, ==, "1st");
  g_assert_cmpstr (p->python_type, ==, "int");
  g_assert_cmpstr (p->schema_type, ==, "integer");
  g_assert_false (p->has_default);
  p = g_ptr_array_index (add->api_parameters, 1);
  g_assert_true (p->has_default);
  g_assert_cmpint (json_node_get_int (p->default_value), ==, 2);
  g_assert_cmpuint (add->api_returns->len, ==, 1);
  g_assert_cmpstr (((RivReturn *) g_ptr_array_index (add->api_returns, 0))->python_type, ==, "int");

  g_assert_cmpuint (greet->api_parameters->len, ==, 4);
  g_assert_cmpstr (((RivParameter *) g_ptr_array_index (greet->api_parameters, 1))->schema_type, ==,
                   "boolean");
  g_assert_cmpstr (((RivParameter *) g_ptr_array_index (greet->api_parameters, 2))->schema_type, ==,
                   "number");
  g_assert_cmpstr (((RivParameter *) g_ptr_array_index (greet->api_parameters, 3))->python_type, ==,
                   "list[str]");
  g_assert_cmpuint (greet->api_returns->len, ==, 2);

  /* Keyword calls: by name in the endpoint's order, defaults filled in. */
  g_clear_pointer (&values, json_node_unref);
  values = map_keywords (greet, "{\"tags\": [\"x\"], \"name\": \"Ann\"}", &error);
  g_assert_no_error (error);
  text = riv_json_to_string (values, NULL);
  g_assert_cmpstr (text, ==, "[\"Ann\",false,0.5,[\"x\"]]");
  g_clear_pointer (&values, json_node_unref);
  values = map_keywords (greet, "{\"name\": \"Ann\", \"nmae\": 1}", &error);
  g_assert_null (values);
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT);
  g_assert_cmpstr (error->message, ==,
                   "unknown parameter \"nmae\" (the parameters are: name, excited, ratio, tags)");
  g_clear_error (&error);
  values = map_keywords (greet, "{\"excited\": true}", &error);
  g_assert_null (values);
  g_assert_cmpstr (error->message, ==, "missing parameter \"name\", which has no default "
                   "(the parameters are: name, excited, ratio, tags)");
}

/* /info names what is not state: a keyword call leaves the state inputs to
 * the session (null). */
static void
test_keywords_with_state (void)
{
  g_autoptr(RivConfig) config = parse_ok (
    "{\"version\": \"5.0\", \"protocol\": \"sse_v3\", \"components\": ["
    "{\"id\": 1, \"type\": \"state\", \"props\": {}},"
    "{\"id\": 2, \"type\": \"textbox\", \"props\": {\"value\": \"hi\"}}],"
    "\"dependencies\": [{\"id\": 0, \"api_name\": \"chat\", \"inputs\": [1, 2], \"outputs\": [2],"
    "\"queue\": true}]}", "http://127.0.0.1:7860");
  g_autoptr(JsonNode) info = json_from_string (
    "{\"named_endpoints\": {\"/chat\": {\"parameters\": [{\"parameter_name\": \"message\","
    "\"parameter_has_default\": true, \"parameter_default\": \"hi\"}], \"returns\": []}}}", NULL);
  RivEndpoint *chat = riv_config_find_endpoint (config, "chat");
  g_autoptr(JsonNode) values = NULL;
  g_autofree char *text = NULL;

  riv_config_set_api_info (config, info);
  g_assert_false (riv_endpoint_is_api_only (chat));
  values = map_keywords (chat, "{}", NULL);
  text = riv_json_to_string (values, NULL);
  g_assert_cmpstr (text, ==, "[null,\"hi\"]");
}

/* gr.Examples: a dataset whose components are an endpoint's inputs gives
 * the endpoint its samples, each value in its input's place and the other
 * inputs' defaults; a loader that sets outputs too means cached. The
 * fixture also has a dataset with a malformed id and a second that fits. */
static void
test_examples (void);


static void
test_examples (void)
{
  g_autoptr(RivConfig) config = load_fixture ("config-examples.json", "http://127.0.0.1:7860");
  RivEndpoint *greet = riv_config_find_endpoint (config, "greet");
  RivEndpoint *name_only = riv_config_find_endpoint (config, "name_only");
  RivEndpoint *loader = riv_config_find_endpoint (config, "load_example");
  g_autoptr(JsonNode) second = NULL;
  g_autoptr(JsonNode) wrapped = NULL;
  g_autofree char *text = NULL;
  g_autofree char *text2 = NULL;

  /* The first dataset that fits: samples of "name", the seed at its default. */
  g_assert_cmpuint (riv_endpoint_get_n_examples (greet), ==, 2);
  second = riv_endpoint_dup_example (greet, 1);
  text = riv_json_to_string (second, NULL);
  g_assert_cmpstr (text, ==, "[7,\"Grace\"]");
  wrapped = riv_endpoint_dup_example (greet, 3);   /* 3 mod 2 */
  text2 = riv_json_to_string (wrapped, NULL);
  g_assert_cmpstr (text2, ==, "[7,\"Grace\"]");
  g_assert_cmpstr (greet->example_labels[0], ==, "first");
  g_assert_cmpstr (greet->example_headers[0], ==, "name");
  g_assert_cmpuint (greet->n_example_inputs, ==, 1);
  g_assert_cmpuint (greet->example_inputs[0], ==, 1);
  /* Its loader sets "out" too: the app caches them. */
  g_assert_true (greet->examples_cached);
  g_assert_cmpuint (riv_endpoint_get_n_examples (name_only), ==, 2);
  /* The dataset itself is no endpoint's example. */
  g_assert_cmpuint (riv_endpoint_get_n_examples (loader), ==, 0);
}

static void
test_gradio5 (void)
{
  g_autoptr(RivConfig) config = load_fixture ("config-gradio5.json", "http://localhost:7860");
  g_autofree char *url = NULL;
  RivEndpoint *predict, *private_ep, *undoc;
  RivComponent *size, *guidance;

  /* A non-empty "root" wins over the URL we used. */
  g_assert_cmpstr (riv_config_get_root (config), ==, "http://127.0.0.1:7860");
  g_assert_cmpstr (riv_config_get_api_prefix (config), ==, "/gradio_api");
  g_assert_cmpstr (riv_config_get_version (config), ==, "6.0.0");
  g_assert_cmpstr (riv_config_get_title (config), ==, "Text to image");
  g_assert_true (riv_config_get_connect_heartbeat (config));
  url = riv_config_build_url (config, "/queue/data?session_hash=abc");
  g_assert_cmpstr (url, ==, "http://127.0.0.1:7860/gradio_api/queue/data?session_hash=abc");

  predict = riv_config_find_endpoint (config, "predict");
  g_assert_nonnull (predict);
  g_assert_true (riv_config_find_endpoint (config, "/predict") == predict);
  g_assert_true (riv_config_find_endpoint (config, "0") == predict);
  g_assert_cmpuint (riv_endpoint_get_n_inputs (predict), ==, 3);
  g_assert_true (predict->queue);
  g_assert_true (predict->is_public);
  g_assert_false (predict->generator);

  private_ep = riv_config_find_endpoint (config, "describe");
  g_assert_false (private_ep->is_public);
  g_assert_false (private_ep->undocumented);
  g_assert_false (predict->undocumented);
  undoc = riv_config_find_endpoint (config, "2");
  g_assert_cmpstr (undoc->api_name, ==, "undoc");
  g_assert_true (undoc->is_public);
  g_assert_true (undoc->undocumented);
  g_assert_true (undoc->generator);
  g_assert_cmpstr (undoc->connection, ==, "stream");

  size = riv_config_get_component (config, 4);
  g_assert_cmpstr (size->choices[1], ==, "Large");
  g_assert_cmpstr (size->choice_values[1], ==, "l");

  /* "minimum": null is absent; 0.5 steps are kept as doubles. */
  guidance = riv_config_get_component (config, 5);
  g_assert_false (guidance->has_minimum);
  g_assert_true (guidance->has_maximum);
  g_assert_cmpfloat (guidance->step, ==, 0.5);
  g_assert_cmpfloat (json_node_get_double (guidance->value), ==, 7.5);

  g_assert_null (riv_config_find_endpoint (config, "nope"));
  g_assert_null (riv_config_find_endpoint (config, "17"));
  g_assert_null (riv_config_find_endpoint (config, "-1"));
  /* A number is digits only: the user typed a name with white space. */
  g_assert_null (riv_config_find_endpoint (config, " 0"));
  g_assert_null (riv_config_find_endpoint (config, "\v0"));
  g_assert_null (riv_config_find_endpoint (config, "+0"));
  g_assert_null (riv_config_find_endpoint (config, "/"));
  g_assert_null (riv_config_find_endpoint (config, ""));
  g_assert_null (riv_config_find_endpoint (config, NULL));
  g_assert_null (riv_config_get_endpoint (config, 3));
}

static void
test_mounted_root (void)
{
  g_autoptr(RivConfig) config = load_fixture ("config-mounted-root.json", "http://127.0.0.1:9999");
  g_autofree char *url = NULL;
  RivEndpoint *echo, *unnamed;

  /* The mounted sub-path is kept; trailing slashes of root and prefix go. */
  g_assert_cmpstr (riv_config_get_root (config), ==, "http://127.0.0.1:8000/apps/demo");
  g_assert_cmpstr (riv_config_get_api_prefix (config), ==, "/gradio_api");
  url = riv_config_build_url (config, "/queue/join");
  g_assert_cmpstr (url, ==, "http://127.0.0.1:8000/apps/demo/gradio_api/queue/join");

  /* No "id": the array index; "/echo" is stored without its slash. */
  echo = riv_config_get_endpoint (config, 0);
  g_assert_cmpint (echo->fn_index, ==, 0);
  g_assert_cmpstr (echo->api_name, ==, "echo");
  g_assert_true (riv_config_find_endpoint (config, "echo") == echo);
  g_assert_true (riv_config_find_endpoint (config, "/echo") == echo);

  unnamed = riv_config_get_endpoint (config, 1);
  g_assert_cmpint (unnamed->fn_index, ==, 1);
  g_assert_null (unnamed->api_name);
  g_assert_true (riv_config_find_endpoint (config, "1") == unnamed);
  /* No "queue": it falls back to enable_queue, which is true here. */
  g_assert_true (unnamed->queue);
}

static void
test_state_components (void)
{
  g_autoptr(RivConfig) config = load_fixture ("config-state.json", "http://127.0.0.1:7860");
  RivEndpoint *chat, *reset, *colours;
  RivComponent *state, *state2, *colours_c, *unknown;

  g_assert_cmpstr (riv_config_get_protocol (config), ==, "sse_v2.1");
  g_assert_true (riv_config_uses_diffs (config));

  chat = riv_config_find_endpoint (config, "chat");
  g_assert_cmpint (chat->fn_index, ==, 5);
  g_assert_cmpuint (riv_endpoint_get_n_inputs (chat), ==, 3);
  g_assert_cmpuint (chat->outputs->len, ==, 3);
  g_assert_true (chat->generator);
  /* queue: true on the dependency, although enable_queue is false. */
  g_assert_true (chat->queue);

  state = g_ptr_array_index (chat->inputs, 2);
  g_assert_cmpint (state->id, ==, 12);
  g_assert_true (state->is_state);
  g_assert_true (state->skip_api);
  g_assert_true (JSON_NODE_HOLDS_OBJECT (state->value));

  /* Type is lower-cased; skip_api defaults to TRUE for state. */
  state2 = g_ptr_array_index (chat->outputs, 2);
  g_assert_cmpstr (state2->type, ==, "state");
  g_assert_true (state2->is_state);
  g_assert_true (state2->skip_api);
  g_assert_true (JSON_NODE_HOLDS_NULL (state2->value));

  /* Ids missing from components: synthetic "unknown" components, shared per id. */
  reset = riv_config_find_endpoint (config, "reset");
  g_assert_false (reset->queue);
  g_assert_cmpuint (reset->inputs->len, ==, 2);
  unknown = g_ptr_array_index (reset->inputs, 1);
  g_assert_cmpint (unknown->id, ==, 99);
  g_assert_cmpstr (unknown->type, ==, "unknown");
  g_assert_nonnull (unknown->props);
  g_assert_null (unknown->value);
  g_assert_cmpint (unknown->lines, ==, 1);
  g_assert_null (riv_config_get_component (config, 99));
  g_assert_cmpstr (((RivComponent *) g_ptr_array_index (reset->outputs, 0))->type, ==, "unknown");

  /* Plain choices, a number among them shown as text. */
  colours = riv_config_find_endpoint (config, "colours");
  g_assert_cmpuint (colours->outputs->len, ==, 0);
  colours_c = g_ptr_array_index (colours->inputs, 0);
  g_assert_cmpuint (g_strv_length (colours_c->choices), ==, 3);
  g_assert_cmpstr (colours_c->choices[0], ==, "red");
  g_assert_cmpstr (colours_c->choice_values[0], ==, "red");
  g_assert_cmpstr (colours_c->choices[2], ==, "3");
}

static void
test_unsupported_protocols (void)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *ws = NULL;
  gsize len;
  RivConfig *config;

  ws = riv_test_load_data ("config-ws.json", &len);
  config = riv_config_new_from_data (ws, len, "http://h", &error);
  g_assert_null (config);
  g_assert_error (error, RIV_CONFIG_ERROR, RIV_CONFIG_ERROR_UNSUPPORTED_PROTOCOL);

  assert_fails ("{\"protocol\":\"ws\",\"components\":[],\"dependencies\":[]}", -1,
                RIV_CONFIG_ERROR_UNSUPPORTED_PROTOCOL, "\"ws\"");
  assert_fails ("{\"protocol\":\"sse\",\"components\":[],\"dependencies\":[]}", -1,
                RIV_CONFIG_ERROR_UNSUPPORTED_PROTOCOL, "\"sse\"");
  assert_fails ("{\"protocol\":\"sse_v4\",\"components\":[],\"dependencies\":[]}", -1,
                RIV_CONFIG_ERROR_UNSUPPORTED_PROTOCOL, "\"sse_v4\"");
  assert_fails ("{\"protocol\":\"SSE_V3\",\"components\":[],\"dependencies\":[]}", -1,
                RIV_CONFIG_ERROR_UNSUPPORTED_PROTOCOL, "SSE_V3");
  assert_fails ("{\"protocol\":3,\"components\":[],\"dependencies\":[]}", -1,
                RIV_CONFIG_ERROR_UNSUPPORTED_PROTOCOL, "protocol");
  assert_fails ("{\"components\":[],\"dependencies\":[]}", -1,
                RIV_CONFIG_ERROR_UNSUPPORTED_PROTOCOL, "ws");
  assert_fails ("{\"protocol\":null,\"components\":[],\"dependencies\":[]}", -1,
                RIV_CONFIG_ERROR_UNSUPPORTED_PROTOCOL, "ws");
}

static void
test_supported_protocols (void)
{
  static const char *protocols[] = { "sse_v1", "sse_v2", "sse_v2.1", "sse_v3" };

  for (guint i = 0; i < G_N_ELEMENTS (protocols); i++)
    {
      g_autofree char *text =
        g_strdup_printf ("{\"protocol\":\"%s\",\"components\":[],\"dependencies\":[]}", protocols[i]);
      g_autoptr(RivConfig) config = parse_ok (text, "http://h");

      g_assert_cmpstr (riv_config_get_protocol (config), ==, protocols[i]);
      /* Diffs start with sse_v2. */
      g_assert_cmpint (riv_config_uses_diffs (config), ==, i > 0);
      g_assert_cmpuint (riv_config_get_n_endpoints (config), ==, 0);
    }
}

static void
test_not_a_config (void)
{
  g_autofree char *deep = NULL;
  GString *s = g_string_new ("{\"protocol\":\"sse_v3\",\"components\":[],\"dependencies\":[],\"layout\":");

  assert_fails ("", 0, RIV_CONFIG_ERROR_INVALID, NULL);
  assert_fails ("<html>Not Found</html>", -1, RIV_CONFIG_ERROR_INVALID, NULL);
  assert_fails ("{\"detail\":\"Not Found\"}", -1, RIV_CONFIG_ERROR_INVALID, "Gradio");
  assert_fails ("[]", -1, RIV_CONFIG_ERROR_INVALID, "Gradio");
  assert_fails ("\"sse_v3\"", -1, RIV_CONFIG_ERROR_INVALID, "Gradio");
  assert_fails ("{\"protocol\":\"sse_v3\",\"components\":[]}", -1, RIV_CONFIG_ERROR_INVALID, "Gradio");
  assert_fails ("{\"protocol\":\"sse_v3\",\"components\":[],\"dependencies\":{}}", -1,
                RIV_CONFIG_ERROR_INVALID, "Gradio");
  assert_fails ("{\"protocol\":\"sse_v3\",\"components\":{},\"dependencies\":[]}", -1,
                RIV_CONFIG_ERROR_INVALID, "Gradio");
  assert_fails ("{\"protocol\":\"sse_v3\",\"dependencies\":[]}", -1, RIV_CONFIG_ERROR_INVALID, "Gradio");
  /* Shape is checked before the protocol: random JSON is "not Gradio", not "ws". */
  assert_fails ("{\"hello\":1}", -1, RIV_CONFIG_ERROR_INVALID, "Gradio");

  for (guint i = 0; i < 100000; i++)
    g_string_append_c (s, '[');
  deep = g_string_free (s, FALSE);
  assert_fails (deep, -1, RIV_CONFIG_ERROR_INVALID, NULL);

  {
    g_autoptr(GError) error = NULL;

    g_assert_null (riv_config_new_from_data (NULL, 0, "http://h", &error));
    g_assert_error (error, RIV_CONFIG_ERROR, RIV_CONFIG_ERROR_INVALID);
  }
}

static void
test_api_prefix (void)
{
  g_autoptr(RivConfig) a = parse_ok ("{\"protocol\":\"sse_v3\",\"components\":[],\"dependencies\":[],"
                                     "\"api_prefix\":\"/x/y//\"}", "http://h/");
  g_autoptr(RivConfig) b = parse_ok ("{\"protocol\":\"sse_v3\",\"components\":[],\"dependencies\":[],"
                                     "\"api_prefix\":null}", "http://h");
  g_autoptr(RivConfig) c = parse_ok ("{\"protocol\":\"sse_v3\",\"components\":[],\"dependencies\":[],"
                                     "\"api_prefix\":\"/\"}", "http://h");
  g_autofree char *url = riv_config_build_url (a, "info");

  g_assert_cmpstr (riv_config_get_api_prefix (a), ==, "/x/y");
  /* A path without its leading slash still gets one. */
  g_assert_cmpstr (url, ==, "http://h/x/y/info");
  g_assert_cmpstr (riv_config_get_api_prefix (b), ==, "");
  g_assert_cmpstr (riv_config_get_api_prefix (c), ==, "");

  assert_fails ("{\"protocol\":\"sse_v3\",\"components\":[],\"dependencies\":[],\"api_prefix\":\"gradio_api\"}",
                -1, RIV_CONFIG_ERROR_INVALID, "api_prefix");
  assert_fails ("{\"protocol\":\"sse_v3\",\"components\":[],\"dependencies\":[],\"api_prefix\":5}",
                -1, RIV_CONFIG_ERROR_INVALID, "api_prefix");
  assert_fails ("{\"protocol\":\"sse_v3\",\"components\":[],\"dependencies\":[],\"api_prefix\":\"/a?b\"}",
                -1, RIV_CONFIG_ERROR_INVALID, "api_prefix");
}

/* A root on the host connected to keeps its path but takes the scheme and
 * host:port connected to (Gradio's resolve_config_root), e.g. behind nginx
 * with "Host $host" on port 8080, or with TLS ended at the proxy. A root on
 * another host is not where the user asked to go: the URL connected to. */
static void
test_root_resolve (void)
{
  struct {
    const char *root;
    const char *connected;
    const char *expected;     /* NULL: unchanged */
  } cases[] = {
    { "http://127.0.0.1/gradio-demo", "http://127.0.0.1:8080/gradio-demo",
      "http://127.0.0.1:8080/gradio-demo" },
    { "http://127.0.0.1:7860/gradio-demo/", "https://127.0.0.1:8443/gradio-demo",
      "https://127.0.0.1:8443/gradio-demo" },
    { "http://Example.test/x", "https://example.test/y", "https://example.test/x" },
    { "http://[::1]/app", "http://[::1]:9000/app", "http://[::1]:9000/app" },
    /* Same already: left alone. */
    { "http://127.0.0.1:8080/a", "http://127.0.0.1:8080/a", NULL },
    /* Another host, or another name for this one: the URL connected to. */
    { "https://space.hf.space", "http://127.0.0.1:7860", "http://127.0.0.1:7860" },
    { "http://localhost/app", "http://127.0.0.1:8080/app", "http://127.0.0.1:8080/app" },
    { "http://localhost:9/elsewhere", "http://127.0.0.1:8080/app/",
      "http://127.0.0.1:8080/app" },
  };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autofree char *text =
        g_strdup_printf ("{\"protocol\":\"sse_v3\",\"components\":[],\"dependencies\":[],\"root\":\"%s\"}",
                         cases[i].root);
      g_autoptr(RivConfig) config = parse_ok (text, cases[i].connected);
      g_autofree char *before = g_strdup (riv_config_get_root (config));

      g_assert_cmpint (riv_config_resolve_root (config, cases[i].connected), ==,
                       cases[i].expected != NULL);
      if (cases[i].expected != NULL)
        {
          g_assert_cmpstr (riv_config_get_root (config), ==, cases[i].expected);
          g_assert_cmpstr (riv_config_get_reported_root (config), ==, before);
        }
      else
        {
          g_assert_cmpstr (riv_config_get_root (config), ==, before);
          g_assert_null (riv_config_get_reported_root (config));
        }
    }
}

static void
test_root_choice (void)
{
  struct {
    const char *root_json;
    const char *base_url;
    const char *expected;
  } cases[] = {
    { "\"\"", "http://127.0.0.1:7860", "http://127.0.0.1:7860" },
    { "null", "http://127.0.0.1:7860/", "http://127.0.0.1:7860" },
    { "\"https://example.test/sub/\"", "http://127.0.0.1", "https://example.test/sub" },
    /* Not an absolute http(s) URL: ignored in favour of the URL we used. */
    { "\"/relative\"", "http://h:1/mount/", "http://h:1/mount" },
    { "\"file:///etc\"", "http://h:1", "http://h:1" },
    { "\"javascript:alert(1)\"", "http://h:1", "http://h:1" },
    { "42", "http://h:1", "http://h:1" },
  };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autofree char *text =
        g_strdup_printf ("{\"protocol\":\"sse_v3\",\"components\":[],\"dependencies\":[],\"root\":%s}",
                         cases[i].root_json);
      g_autoptr(RivConfig) config = parse_ok (text, cases[i].base_url);

      g_assert_cmpstr (riv_config_get_root (config), ==, cases[i].expected);
    }

  /* Without a base URL and without a root, the root is empty, not NULL. */
  {
    g_autoptr(RivConfig) config = parse_ok ("{\"protocol\":\"sse_v3\",\"components\":[],\"dependencies\":[]}", NULL);

    g_assert_cmpstr (riv_config_get_root (config), ==, "");
  }
}

static void
test_queue_fallback (void)
{
  g_autoptr(RivConfig) none = parse_ok ("{\"protocol\":\"sse_v3\",\"components\":[],"
                                        "\"dependencies\":[{\"inputs\":[],\"outputs\":[]},"
                                        "{\"queue\":true},{\"queue\":null}]}", "http://h");
  g_autoptr(RivConfig) enabled = parse_ok ("{\"protocol\":\"sse_v3\",\"components\":[],\"enable_queue\":true,"
                                           "\"dependencies\":[{},{\"queue\":false},{\"queue\":\"yes\"}]}",
                                           "http://h");

  /* Neither queue nor enable_queue → not queued (/run). */
  g_assert_false (riv_config_get_endpoint (none, 0)->queue);
  g_assert_true (riv_config_get_endpoint (none, 1)->queue);
  g_assert_false (riv_config_get_endpoint (none, 2)->queue);
  g_assert_true (riv_config_get_endpoint (enabled, 0)->queue);
  g_assert_false (riv_config_get_endpoint (enabled, 1)->queue);
  g_assert_true (riv_config_get_endpoint (enabled, 2)->queue);

  /* Missing inputs/outputs are empty lists, not NULL. */
  g_assert_cmpuint (riv_endpoint_get_n_inputs (riv_config_get_endpoint (none, 1)), ==, 0);
  g_assert_nonnull (riv_config_get_endpoint (none, 1)->outputs);
}

static void
test_hostile_entries (void)
{
  g_autoptr(RivConfig) config =
    parse_ok ("{\"protocol\":\"sse_v3\","
              "\"components\":[1,\"x\",null,{\"type\":\"textbox\"},{\"id\":\"3\"},"
              "{\"id\":1,\"type\":null,\"props\":[1,2]},"
              "{\"id\":1,\"type\":\"second\"},"
              "{\"id\":2,\"type\":\"slider\",\"props\":{\"lines\":1e12,\"minimum\":\"low\",\"choices\":"
              "[[],[null],[\"only\"],[1,2,3],{\"a\":1},null,[\"L\",{\"v\":1}]],\"label\":7}},"
              "{\"id\":1e300,\"type\":\"huge\"},"
              "{\"id\":4,\"type\":\"textbox\",\"props\":{\"lines\":-5,\"maximum\":1e999,\"step\":0.1}}],"
              "\"dependencies\":[7,null,{\"id\":\"nine\",\"api_name\":true,\"inputs\":[1,\"two\",null,2.5,2],"
              "\"outputs\":\"none\",\"types\":[],\"max_batch_size\":-3,\"api_visibility\":5,\"show_api\":\"no\"},"
              "{\"id\":9,\"api_name\":\"dup\"},{\"id\":10,\"api_name\":\"dup\"},{\"id\":11,\"api_name\":\"\"}]}",
              "http://h");
  RivComponent *first, *slider, *narrow;
  RivEndpoint *odd, *dup;

  /* Entries that are not objects or have no usable id are skipped. */
  g_assert_cmpuint (riv_config_get_n_components (config), ==, 4);
  first = riv_config_get_component (config, 1);
  g_assert_cmpstr (first->type, ==, "unknown");
  g_assert_nonnull (first->props);
  g_assert_cmpuint (json_object_get_size (first->props), ==, 0);

  slider = riv_config_get_component (config, 2);
  g_assert_cmpint (slider->lines, ==, 1000);
  g_assert_false (slider->has_minimum);
  g_assert_null (slider->label);
  g_assert_cmpuint (g_strv_length (slider->choices), ==, 7);
  g_assert_cmpuint (g_strv_length (slider->choice_values), ==, 7);
  g_assert_cmpstr (slider->choices[0], ==, "");
  g_assert_cmpstr (slider->choices[2], ==, "only");
  g_assert_cmpstr (slider->choice_values[2], ==, "only");
  g_assert_cmpstr (slider->choices[3], ==, "1");
  g_assert_cmpstr (slider->choice_values[3], ==, "2");
  g_assert_cmpstr (slider->choices[4], ==, "{\"a\":1}");
  g_assert_cmpstr (slider->choice_values[6], ==, "{\"v\":1}");

  narrow = riv_config_get_component (config, 4);
  g_assert_cmpint (narrow->lines, ==, 1);
  /* Infinity (json-glib's reading of 1e999) is not a usable bound. */
  g_assert_false (narrow->has_maximum);
  g_assert_true (narrow->has_step);

  /* Non-object dependencies are skipped; ids and positions stay sane. */
  g_assert_cmpuint (riv_config_get_n_endpoints (config), ==, 4);
  odd = riv_config_get_endpoint (config, 0);
  g_assert_cmpint (odd->fn_index, ==, 2);
  g_assert_null (odd->api_name);
  g_assert_cmpuint (odd->inputs->len, ==, 5);
  g_assert_cmpstr (component_type (odd, FALSE, 0), ==, "unknown");
  g_assert_cmpstr (component_type (odd, FALSE, 1), ==, "unknown");
  g_assert_cmpstr (component_type (odd, FALSE, 4), ==, "slider");
  g_assert_cmpuint (odd->outputs->len, ==, 0);
  g_assert_cmpint (odd->max_batch_size, ==, 4);
  g_assert_true (odd->is_public);

  /* Duplicate names: the first one wins. */
  dup = riv_config_find_endpoint (config, "dup");
  g_assert_cmpint (dup->fn_index, ==, 9);
  g_assert_true (riv_config_find_endpoint (config, "10") == riv_config_get_endpoint (config, 2));
  g_assert_null (riv_config_get_endpoint (config, 3)->api_name);
}

static void
test_refcount_and_boxed (void)
{
  RivConfig *config = parse_ok ("{\"protocol\":\"sse_v3\",\"components\":[{\"id\":1,\"type\":\"textbox\"}],"
                                "\"dependencies\":[{\"inputs\":[1],\"outputs\":[1],\"api_name\":\"p\"}]}",
                                "http://h");
  RivConfig *copy;
  GValue value = G_VALUE_INIT;
  RivEndpoint *endpoint;

  g_assert_true (G_TYPE_IS_BOXED (RIV_TYPE_CONFIG));

  g_value_init (&value, RIV_TYPE_CONFIG);
  g_value_set_boxed (&value, config);
  copy = g_value_dup_boxed (&value);
  g_assert_true (copy == config);
  g_value_unset (&value);

  riv_config_unref (config);
  /* Still alive through the second reference. */
  endpoint = riv_config_find_endpoint (copy, "p");
  g_assert_nonnull (endpoint);
  g_assert_cmpstr (((RivComponent *) g_ptr_array_index (endpoint->inputs, 0))->type, ==, "textbox");
  riv_config_unref (copy);
}

static void
test_fixture_mutations (void)
{
  static const char *fixtures[] = {
    "config-gradio4.json", "config-gradio5.json", "config-mounted-root.json", "config-state.json",
  };
  g_autoptr(GRand) rand = g_rand_new_with_seed (31337);
  guint parsed = 0, rejected = 0;

  for (guint f = 0; f < G_N_ELEMENTS (fixtures); f++)
    {
      g_autofree char *orig = NULL;
      gsize len;

      orig = riv_test_load_data (fixtures[f], &len);
      for (guint round = 0; round < 300; round++)
        {
          g_autofree char *text = g_memdup2 (orig, len);
          g_autoptr(GError) error = NULL;
          g_autoptr(RivConfig) config = NULL;
          gsize n = len;

          for (guint k = 0; k < 3; k++)
            text[g_rand_int_range (rand, 0, len)] = "{}[]\":,01-e.nt/"[g_rand_int_range (rand, 0, 16)];
          if (round % 3 == 0)
            n = g_rand_int_range (rand, 0, len + 1);

          config = riv_config_new_from_data (text, n, "http://h", &error);
          if (config != NULL)
            {
              /* Everything reachable stays consistent. */
              for (guint i = 0; i < riv_config_get_n_endpoints (config); i++)
                {
                  RivEndpoint *e = riv_config_get_endpoint (config, i);
                  g_autofree char *name = riv_endpoint_dup_display_name (e);

                  g_assert_nonnull (name);
                  for (guint j = 0; j < e->inputs->len; j++)
                    g_assert_nonnull (((RivComponent *) g_ptr_array_index (e->inputs, j))->type);
                }
              parsed++;
            }
          else
            {
              g_assert_true (error->domain == RIV_CONFIG_ERROR);
              rejected++;
            }
        }
    }

  g_assert_cmpuint (parsed, >, 0);
  g_assert_cmpuint (rejected, >, 0);
}

/* gr.render, as real Gradio 4.44, 5.49 and 6.25 serve it (tests/data/render/,
 * recorded from one app on each): the render endpoint is known as such (a
 * "render_id" on 5 and 6; on 4 a hidden dependency whose one output is a
 * column), its completion's render_config is read by both message readers,
 * and what it rendered is named, layout left out. */
static void
test_render (void)
{
  static const char *const versions[] = { "4", "5", "6" };
  static const char *const expected[] = { "textbox “box 1”", "textbox “box 2”",
                                          "textbox “box 3”", "button “done”", NULL };

  for (guint v = 0; v < G_N_ELEMENTS (versions); v++)
    {
      g_autofree char *config_name = g_strdup_printf ("render/config-gradio%s.json", versions[v]);
      g_autofree char *done_name = g_strdup_printf ("render/completed-gradio%s.json", versions[v]);
      g_autoptr(RivConfig) config = load_fixture (config_name, "http://127.0.0.1:7860");
      RivEndpoint *endpoint = riv_config_find_endpoint (config, "apply");
      g_autofree char *text = NULL;
      g_autoptr(GError) error = NULL;
      gsize len;
      RivMessage *read[2];

      g_test_message ("Gradio %s", versions[v]);
      g_assert_nonnull (endpoint);
      g_assert_true (endpoint->renders);
      g_assert_cmpuint (endpoint->outputs->len, ==, 1);
      g_assert_cmpstr (((RivComponent *) g_ptr_array_index (endpoint->outputs, 0))->type, ==,
                       "column");

      text = riv_test_load_data (done_name, &len);
      read[0] = riv_message_parse (NULL, text, len, &error);
      g_assert_no_error (error);
      read[1] = riv_message_parse_lean (text, len, &error);
      g_assert_no_error (error);
      for (guint r = 0; r < 2; r++)
        {
          g_auto(GStrv) rendered = riv_config_describe_render (read[r]->render_config);

          g_assert_nonnull (read[r]->render_config);
          g_assert_nonnull (rendered);
          g_assert_cmpstrv (rendered, expected);
          riv_message_free (read[r]);
        }
    }
}

/* No endpoint of an ordinary Gradio 5 config (each with a "render_id" of
 * null) is taken for a render endpoint; a render_config that is not an
 * object, or holds only layout, names nothing. */
static void
test_render_not (void)
{
  g_autoptr(RivConfig) demo = load_fixture ("config-gradio5.json", "http://h");
  g_autoptr(JsonNode) list = json_from_string ("[1, 2]", NULL);
  g_autoptr(JsonNode) empty = json_from_string ("{\"components\": [{\"type\": \"row\"}]}", NULL);

  for (guint i = 0; i < riv_config_get_n_endpoints (demo); i++)
    g_assert_false (riv_config_get_endpoint (demo, i)->renders);
  g_assert_null (riv_config_describe_render (NULL));
  g_assert_null (riv_config_describe_render (list));
  g_assert_null (riv_config_describe_render (empty));
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/config/gradio4", test_gradio4);
  g_test_add_func ("/config/gradio5", test_gradio5);
  g_test_add_func ("/config/api-info", test_api_info);
  g_test_add_func ("/config/server-mode", test_server_mode);
  g_test_add_func ("/config/examples", test_examples);
  g_test_add_func ("/config/keywords-with-state", test_keywords_with_state);
  g_test_add_func ("/config/mounted-root", test_mounted_root);
  g_test_add_func ("/config/state-components", test_state_components);
  g_test_add_func ("/config/unsupported-protocols", test_unsupported_protocols);
  g_test_add_func ("/config/supported-protocols", test_supported_protocols);
  g_test_add_func ("/config/not-a-config", test_not_a_config);
  g_test_add_func ("/config/api-prefix", test_api_prefix);
  g_test_add_func ("/config/root-choice", test_root_choice);
  g_test_add_func ("/config/root-resolve", test_root_resolve);
  g_test_add_func ("/config/queue-fallback", test_queue_fallback);
  g_test_add_func ("/config/hostile-entries", test_hostile_entries);
  g_test_add_func ("/config/refcount-and-boxed", test_refcount_and_boxed);
  g_test_add_func ("/config/fixture-mutations", test_fixture_mutations);
  g_test_add_func ("/config/render", test_render);
  g_test_add_func ("/config/render-not", test_render_not);

  return g_test_run ();
}
