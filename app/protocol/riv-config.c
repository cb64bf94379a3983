/* riv-config.c
 * Copyright 2026 The Rivulet authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "config.h"

#include <math.h>
#include <string.h>

#include <libsoup/soup.h>

#include "riv-config.h"
#include "riv-json.h"

/* Bounds on what a hostile config can make us hold for the UI. */
#define MAX_LINES 1000

struct _RivConfig
{
  gatomicrefcount  ref_count;

  char            *root;          /* owned, never NULL, no trailing '/' */
  char            *reported_root; /* owned, nullable: the server's own root when corrected */
  char            *api_prefix;    /* owned, never NULL, "" or "/…" without trailing '/' */
  char            *protocol;      /* owned */
  char            *version;       /* owned, nullable */
  char            *title;         /* owned, nullable */
  gboolean         connect_heartbeat;

  GPtrArray       *components;    /* RivComponent*, owned, in config order */
  GHashTable      *by_id;         /* gint64* → RivComponent* (borrowed from components) */
  GHashTable      *synthetic;     /* gint64* → RivComponent* (owned): ids the config lacks */
  GPtrArray       *endpoints;     /* RivEndpoint*, owned */
  GHashTable      *by_name;       /* api_name → RivEndpoint* (borrowed) */
};

G_DEFINE_QUARK (riv-config-error-quark, riv_config_error)
G_DEFINE_BOXED_TYPE (RivConfig, riv_config, riv_config_ref, riv_config_unref)

static const char * const supported_protocols[] = {
  "sse_v1", "sse_v2", "sse_v2.1", "sse_v3",
};

/* Component types whose values never travel through the API (Python client's
 * default for a missing "skip_api"). */
static const char * const layout_types[] = {
  "state", "row", "column", "group", "tabs", "tab", "tabitem", "form", "accordion", "box", NULL,
};

void
riv_component_free (gpointer data)
{
  RivComponent *component = data;

  g_free (component->type);
  g_free (component->label);
  g_clear_pointer (&component->props, json_object_unref);
  g_strfreev (component->choices);
  g_strfreev (component->choice_values);
  g_clear_pointer (&component->value, json_node_unref);
  g_free (component);
}

static void
riv_parameter_free (gpointer data)
{
  RivParameter *parameter = data;

  g_free (parameter->name);
  g_free (parameter->label);
  g_free (parameter->python_type);
  g_free (parameter->schema_type);
  g_free (parameter->description);
  g_clear_pointer (&parameter->default_value, json_node_unref);
  g_free (parameter);
}

static void
riv_return_free (gpointer data)
{
  RivReturn *value = data;

  g_free (value->label);
  g_free (value->python_type);
  g_free (value);
}

static void
riv_endpoint_free (gpointer data)
{
  RivEndpoint *endpoint = data;

  g_clear_pointer (&endpoint->api_parameters, g_ptr_array_unref);
  g_clear_pointer (&endpoint->api_returns, g_ptr_array_unref);
  g_free (endpoint->description);
  g_clear_pointer (&endpoint->examples, g_ptr_array_unref);
  g_strfreev (endpoint->example_labels);
  g_strfreev (endpoint->example_headers);
  g_free (endpoint->example_inputs);
  g_free (endpoint->api_name);
  g_clear_pointer (&endpoint->inputs, g_ptr_array_unref);
  g_clear_pointer (&endpoint->outputs, g_ptr_array_unref);
  g_free (endpoint->connection);
  g_strfreev (endpoint->parameters);
  g_free (endpoint);
}

static void
riv_config_free (RivConfig *self)
{
  g_free (self->root);
  g_free (self->reported_root);
  g_free (self->api_prefix);
  g_free (self->protocol);
  g_free (self->version);
  g_free (self->title);
  g_clear_pointer (&self->by_id, g_hash_table_unref);
  g_clear_pointer (&self->synthetic, g_hash_table_unref);
  g_clear_pointer (&self->components, g_ptr_array_unref);
  g_clear_pointer (&self->by_name, g_hash_table_unref);
  g_clear_pointer (&self->endpoints, g_ptr_array_unref);
  g_free (self);
}

RivConfig *
riv_config_ref (RivConfig *self)
{
  g_return_val_if_fail (self != NULL, NULL);

  g_atomic_ref_count_inc (&self->ref_count);
  return self;
}

void
riv_config_unref (RivConfig *self)
{
  g_return_if_fail (self != NULL);

  if (g_atomic_ref_count_dec (&self->ref_count))
    riv_config_free (self);
}

/* An integer (or integral double); anything else, including a double outside
 * the gint64 range, counts as absent. */
static gboolean
node_get_int (JsonNode *node,
              gint64   *out)
{
  if (node == NULL || !JSON_NODE_HOLDS_VALUE (node))
    return FALSE;

  if (json_node_get_value_type (node) == G_TYPE_INT64)
    {
      *out = json_node_get_int (node);
      return TRUE;
    }
  if (json_node_get_value_type (node) == G_TYPE_DOUBLE)
    {
      double d = json_node_get_double (node);

      if (!(d >= -9.2e18 && d <= 9.2e18) || d != (double) (gint64) d)
        return FALSE;
      *out = (gint64) d;
      return TRUE;
    }
  return FALSE;
}

static gboolean
get_int (JsonObject *object,
         const char *member,
         gint64     *out)
{
  return node_get_int (json_object_get_member (object, member), out);
}

static gboolean
get_double (JsonObject *object,
            const char *member,
            double     *out)
{
  double d;

  if (!riv_json_get_double (object, member, &d) || !isfinite (d))
    return FALSE;
  *out = d;
  return TRUE;
}

/* A scalar choice element as display text: strings verbatim, other values as JSON. */
static char *
choice_text (JsonNode *node)
{
  if (node == NULL || JSON_NODE_HOLDS_NULL (node))
    return g_strdup ("");
  if (JSON_NODE_HOLDS_VALUE (node) && json_node_get_value_type (node) == G_TYPE_STRING)
    return g_strdup (json_node_get_string (node));
  return riv_json_to_string (node, NULL);
}

static void
parse_choices (RivComponent *component)
{
  JsonNode *node = json_object_get_member (component->props, "choices");
  g_autoptr(GPtrArray) labels = NULL;
  g_autoptr(GPtrArray) values = NULL;
  JsonArray *array;
  guint n;

  if (node == NULL || !JSON_NODE_HOLDS_ARRAY (node))
    return;

  array = json_node_get_array (node);
  n = json_array_get_length (array);
  labels = g_ptr_array_new_full (n + 1, g_free);
  values = g_ptr_array_new_full (n + 1, g_free);

  for (guint i = 0; i < n; i++)
    {
      JsonNode *choice = json_array_get_element (array, i);

      if (JSON_NODE_HOLDS_ARRAY (choice))
        {
          /* Gradio ≥4 sends [display label, value] pairs. */
          JsonArray *pair = json_node_get_array (choice);
          guint len = json_array_get_length (pair);
          JsonNode *label = len > 0 ? json_array_get_element (pair, 0) : NULL;
          JsonNode *value = len > 1 ? json_array_get_element (pair, 1) : label;

          g_ptr_array_add (labels, choice_text (label));
          g_ptr_array_add (values, choice_text (value));
        }
      else
        {
          g_ptr_array_add (labels, choice_text (choice));
          g_ptr_array_add (values, choice_text (choice));
        }
    }

  g_ptr_array_add (labels, NULL);
  g_ptr_array_add (values, NULL);
  component->choices = (char **) g_ptr_array_free (g_steal_pointer (&labels), FALSE);
  component->choice_values = (char **) g_ptr_array_free (g_steal_pointer (&values), FALSE);
}

static RivComponent *
component_new (gint64      id,
               const char *type,
               JsonObject *props)
{
  RivComponent *component = g_new0 (RivComponent, 1);

  component->id = id;
  component->type = g_ascii_strdown (type != NULL && *type != '\0' ? type : "unknown", -1);
  component->props = props != NULL ? json_object_ref (props) : json_object_new ();
  component->is_state = strcmp (component->type, "state") == 0;
  component->lines = 1;
  return component;
}

static RivComponent *
parse_component (JsonObject *object)
{
  JsonNode *props_node = json_object_get_member (object, "props");
  JsonObject *props = NULL;
  RivComponent *component;
  const char *label;
  JsonNode *value;
  gint64 id, lines;

  if (!get_int (object, "id", &id))
    return NULL;

  if (props_node != NULL && JSON_NODE_HOLDS_OBJECT (props_node))
    props = json_node_get_object (props_node);

  component = component_new (id, riv_json_get_string (object, "type"), props);

  label = riv_json_get_string (component->props, "label");
  component->label = g_strdup (label);

  component->skip_api = component->is_state ||
                        g_strv_contains (layout_types, component->type);
  component->skip_api = riv_json_get_bool (object, "skip_api", component->skip_api);

  component->has_minimum = get_double (component->props, "minimum", &component->minimum);
  component->has_maximum = get_double (component->props, "maximum", &component->maximum);
  component->has_step = get_double (component->props, "step", &component->step);

  parse_choices (component);

  value = json_object_get_member (component->props, "value");
  if (value != NULL)
    component->value = json_node_ref (value);

  if (get_int (component->props, "lines", &lines))
    component->lines = (int) CLAMP (lines, 1, MAX_LINES);

  return component;
}

/* The component for id, or a synthetic "unknown" one (shared per id) so that
 * an endpoint always has one entry per input/output. */
static RivComponent *
lookup_component (RivConfig *self,
                  gint64     id)
{
  RivComponent *component = g_hash_table_lookup (self->by_id, &id);

  if (component != NULL)
    return component;

  component = g_hash_table_lookup (self->synthetic, &id);
  if (component == NULL)
    {
      component = component_new (id, "unknown", NULL);
      g_hash_table_insert (self->synthetic, &component->id, component);
    }
  return component;
}

static GPtrArray *
parse_component_list (RivConfig  *self,
                      JsonObject *dependency,
                      const char *member)
{
  JsonNode *node = json_object_get_member (dependency, member);
  GPtrArray *list;
  JsonArray *ids;
  guint n;

  if (node == NULL || !JSON_NODE_HOLDS_ARRAY (node))
    return g_ptr_array_new ();

  ids = json_node_get_array (node);
  n = json_array_get_length (ids);
  list = g_ptr_array_sized_new (n);
  for (guint i = 0; i < n; i++)
    {
      gint64 id;

      /* A slot that is not an id still counts: the server expects one value
       * per position. */
      if (!node_get_int (json_array_get_element (ids, i), &id))
        id = -1;
      g_ptr_array_add (list, lookup_component (self, id));
    }
  return list;
}

/* gr.render: Gradio 5 and 6 name the renderable ("render_id"); Gradio 4 hides
 * the dependency from the API (show_api false) and gives it one output, the
 * column or row the components are rendered into. */
static gboolean
renders_layout (JsonObject  *dependency,
                RivEndpoint *endpoint)
{
  JsonNode *render_id = json_object_get_member (dependency, "render_id");
  RivComponent *only;

  if (render_id != NULL && JSON_NODE_HOLDS_VALUE (render_id) &&
      json_node_get_value_type (render_id) == G_TYPE_INT64)
    return TRUE;
  if (json_object_has_member (dependency, "render_id") || endpoint->is_public ||
      endpoint->outputs->len != 1)
    return FALSE;
  only = g_ptr_array_index (endpoint->outputs, 0);
  return g_strcmp0 (only->type, "column") == 0 || g_strcmp0 (only->type, "row") == 0;
}

static RivEndpoint *
parse_endpoint (RivConfig  *self,
                JsonObject *dependency,
                guint       position,
                gboolean    enable_queue)
{
  RivEndpoint *endpoint = g_new0 (RivEndpoint, 1);
  const char *api_name;
  const char *visibility;
  JsonNode *node;

  if (!get_int (dependency, "id", &endpoint->fn_index))
    endpoint->fn_index = position;

  api_name = riv_json_get_string (dependency, "api_name");
  /* Names are stored without leading slashes ("/predict" and "//predict"
   * name the same endpoint as "predict"). */
  while (api_name != NULL && *api_name == '/')
    api_name++;
  if (api_name != NULL && *api_name != '\0')
    endpoint->api_name = g_strdup (api_name);

  endpoint->inputs = parse_component_list (self, dependency, "inputs");
  endpoint->outputs = parse_component_list (self, dependency, "outputs");

  node = json_object_get_member (dependency, "types");
  if (node != NULL && JSON_NODE_HOLDS_OBJECT (node))
    endpoint->generator = riv_json_get_bool (json_node_get_object (node), "generator", FALSE);

  endpoint->batch = riv_json_get_bool (dependency, "batch", FALSE);
  if (!get_int (dependency, "max_batch_size", &endpoint->max_batch_size) ||
      endpoint->max_batch_size < 1)
    endpoint->max_batch_size = 4;

  endpoint->queue = riv_json_get_bool (dependency, "queue", enable_queue);

  visibility = riv_json_get_string (dependency, "api_visibility");
  endpoint->is_public = g_strcmp0 (visibility, "private") != 0 &&
                        riv_json_get_bool (dependency, "show_api", TRUE);
  endpoint->undocumented = g_strcmp0 (visibility, "undocumented") == 0;

  endpoint->connection = g_strdup (riv_json_get_string (dependency, "connection"));

  /* A dependency without a backend function (JS only) has "backend_fn": false. */
  endpoint->backend_fn = riv_json_get_bool (dependency, "backend_fn", TRUE);
  endpoint->renders = renders_layout (dependency, endpoint);

  return endpoint;
}

static char *
strip_trailing_slashes (const char *text)
{
  gsize len = strlen (text);

  while (len > 0 && text[len - 1] == '/')
    len--;
  return g_strndup (text, len);
}

/* A usable "root": an absolute http(s) URL. Anything else is ignored, so a
 * broken config cannot point requests at a different scheme. */
static gboolean
root_is_usable (const char *root)
{
  g_autoptr(GUri) uri = NULL;
  const char *scheme;

  if (root == NULL || *root == '\0')
    return FALSE;
  if (!(uri = g_uri_parse (root, G_URI_FLAGS_NONE, NULL)) ||
      !g_uri_is_valid (root, SOUP_HTTP_URI_FLAGS, NULL))
    return FALSE;
  scheme = g_uri_get_scheme (uri);
  return (g_ascii_strcasecmp (scheme, "http") == 0 || g_ascii_strcasecmp (scheme, "https") == 0) &&
         g_uri_get_host (uri) != NULL && *g_uri_get_host (uri) != '\0' &&
         g_uri_get_query (uri) == NULL && g_uri_get_fragment (uri) == NULL;
}

static gboolean
parse_api_prefix (RivConfig   *self,
                  JsonObject  *root,
                  GError     **error)
{
  JsonNode *node = json_object_get_member (root, "api_prefix");
  const char *prefix;

  if (node == NULL || JSON_NODE_HOLDS_NULL (node))
    {
      self->api_prefix = g_strdup ("");
      return TRUE;
    }

  prefix = riv_json_get_string (root, "api_prefix");
  if (prefix == NULL || (prefix[0] != '\0' && prefix[0] != '/') ||
      strpbrk (prefix, "?# \t\r\n\\") != NULL)
    {
      g_set_error_literal (error, RIV_CONFIG_ERROR, RIV_CONFIG_ERROR_INVALID,
                           "Invalid api_prefix in the server config: it must be empty or start with \"/\"");
      return FALSE;
    }

  /* Every request URL is root + prefix + route: a prefix that cannot be part
   * of a valid URL path (a stray '%', say) would make every request fail. */
  {
    g_autofree char *probe = g_strconcat ("http://localhost", prefix, "/queue/join", NULL);

    if (!g_uri_is_valid (probe, G_URI_FLAGS_ENCODED | G_URI_FLAGS_PARSE_RELAXED, NULL) ||
        !g_uri_is_valid (probe, SOUP_HTTP_URI_FLAGS, NULL))
      {
        g_set_error_literal (error, RIV_CONFIG_ERROR, RIV_CONFIG_ERROR_INVALID,
                             "Invalid api_prefix in the server config: it is not a valid URL path");
        return FALSE;
      }
  }

  self->api_prefix = strip_trailing_slashes (prefix);
  return TRUE;
}

static gboolean
parse_protocol (RivConfig   *self,
                JsonObject  *root,
                GError     **error)
{
  JsonNode *node = json_object_get_member (root, "protocol");
  const char *protocol = riv_json_get_string (root, "protocol");

  if (protocol != NULL)
    {
      for (guint i = 0; i < G_N_ELEMENTS (supported_protocols); i++)
        if (strcmp (protocol, supported_protocols[i]) == 0)
          {
            self->protocol = g_strdup (protocol);
            return TRUE;
          }
    }

  if (node == NULL || JSON_NODE_HOLDS_NULL (node))
    g_set_error_literal (error, RIV_CONFIG_ERROR, RIV_CONFIG_ERROR_UNSUPPORTED_PROTOCOL,
                         "The server config names no protocol, which means the legacy "
                         "WebSocket queue (\"ws\", Gradio 3); Rivulet needs sse_v1 or newer");
  else if (protocol == NULL)
    g_set_error_literal (error, RIV_CONFIG_ERROR, RIV_CONFIG_ERROR_UNSUPPORTED_PROTOCOL,
                         "The server config's protocol is not a string; Rivulet needs sse_v1 or newer");
  else if (strcmp (protocol, "ws") == 0)
    g_set_error_literal (error, RIV_CONFIG_ERROR, RIV_CONFIG_ERROR_UNSUPPORTED_PROTOCOL,
                         "Unsupported protocol \"ws\" (the legacy WebSocket queue of Gradio 3); "
                         "Rivulet needs sse_v1 or newer");
  else if (strcmp (protocol, "sse") == 0)
    g_set_error_literal (error, RIV_CONFIG_ERROR, RIV_CONFIG_ERROR_UNSUPPORTED_PROTOCOL,
                         "Unsupported protocol \"sse\" (Gradio 4.0–4.8); "
                         "Rivulet needs sse_v1 or newer");
  else
    {
      g_autofree char *shown = g_utf8_make_valid (protocol, MIN (strlen (protocol), 64));

      g_set_error (error, RIV_CONFIG_ERROR, RIV_CONFIG_ERROR_UNSUPPORTED_PROTOCOL,
                   "Unsupported protocol \"%s\"; Rivulet understands sse_v1, sse_v2, "
                   "sse_v2.1 and sse_v3", shown);
    }
  return FALSE;
}

/* Examples */

/* The input position of component id in endpoint, or -1. */
static int
input_position (RivEndpoint *endpoint,
                gint64       id)
{
  for (guint i = 0; i < endpoint->inputs->len; i++)
    if (((RivComponent *) g_ptr_array_index (endpoint->inputs, i))->id == id)
      return (int) i;
  return -1;
}

/* A string array member as a NULL-terminated vector (non-strings as ""),
 * NULL when absent or not an array. */
static GStrv
dup_strings (JsonObject *object,
             const char *member)
{
  JsonNode *node = json_object_get_member (object, member);
  g_autoptr(GStrvBuilder) builder = NULL;
  JsonArray *array;

  if (node == NULL || !JSON_NODE_HOLDS_ARRAY (node))
    return NULL;
  builder = g_strv_builder_new ();
  array = json_node_get_array (node);
  for (guint i = 0; i < json_array_get_length (array); i++)
    {
      JsonNode *element = json_array_get_element (array, i);
      const char *text = JSON_NODE_HOLDS_VALUE (element) &&
                         json_node_get_value_type (element) == G_TYPE_STRING
                         ? json_node_get_string (element) : NULL;
      g_autofree char *valid = g_utf8_make_valid (text != NULL ? text : "", -1);

      g_strv_builder_add (builder, valid);
    }
  return g_strv_builder_end (builder);
}

/* Whether a dependency the dataset triggers (its inputs: the dataset alone)
 * sets components the examples do not fill: the app's cached outputs. */
static gboolean
examples_cached (RivConfig    *self,
                 RivComponent *dataset,
                 JsonArray    *ids)
{
  for (guint e = 0; e < self->endpoints->len; e++)
    {
      RivEndpoint *loader = g_ptr_array_index (self->endpoints, e);

      if (loader->inputs->len != 1 ||
          ((RivComponent *) g_ptr_array_index (loader->inputs, 0))->id != dataset->id)
        continue;
      for (guint o = 0; o < loader->outputs->len; o++)
        {
          gint64 id = ((RivComponent *) g_ptr_array_index (loader->outputs, o))->id;
          gboolean filled = FALSE;

          for (guint k = 0; k < json_array_get_length (ids) && !filled; k++)
            filled = json_array_get_int_element (ids, k) == id;
          if (!filled)
            return TRUE;
        }
    }
  return FALSE;
}

/* Gives each endpoint whose inputs hold every component a dataset fills
 * (gr.Examples) the dataset's samples, as data for its inputs. A
 * malformed dataset gives nothing. */
static void
attach_examples (RivConfig    *self,
                 RivComponent *dataset)
{
  JsonNode *ids_node = json_object_get_member (dataset->props, "component_ids");
  JsonNode *samples_node = json_object_get_member (dataset->props, "samples");
  JsonArray *ids, *samples;

  if (ids_node == NULL || !JSON_NODE_HOLDS_ARRAY (ids_node) ||
      samples_node == NULL || !JSON_NODE_HOLDS_ARRAY (samples_node))
    return;
  ids = json_node_get_array (ids_node);
  samples = json_node_get_array (samples_node);
  if (json_array_get_length (ids) == 0 || json_array_get_length (samples) == 0)
    return;
  for (guint k = 0; k < json_array_get_length (ids); k++)
    {
      JsonNode *id = json_array_get_element (ids, k);

      if (!JSON_NODE_HOLDS_VALUE (id) || json_node_get_value_type (id) != G_TYPE_INT64)
        return;
    }

  for (guint e = 0; e < self->endpoints->len; e++)
    {
      RivEndpoint *endpoint = g_ptr_array_index (self->endpoints, e);
      g_autofree guint *positions = g_new (guint, json_array_get_length (ids));
      gboolean all = TRUE;

      if (endpoint->examples != NULL || endpoint->inputs->len == 0)
        continue;
      for (guint k = 0; k < json_array_get_length (ids) && all; k++)
        {
          int position = input_position (endpoint, json_array_get_int_element (ids, k));

          all = position >= 0;
          positions[k] = (guint) MAX (position, 0);
        }
      if (!all)
        continue;

      endpoint->examples = g_ptr_array_new_with_free_func ((GDestroyNotify) json_node_unref);
      for (guint s = 0; s < json_array_get_length (samples); s++)
        {
          JsonNode *sample = json_array_get_element (samples, s);
          JsonArray *values = JSON_NODE_HOLDS_ARRAY (sample) ? json_node_get_array (sample) : NULL;
          g_autoptr(GPtrArray) cells = g_ptr_array_new_with_free_func ((GDestroyNotify) json_node_unref);
          JsonArray *data = json_array_sized_new (endpoint->inputs->len);
          JsonNode *node = json_node_new (JSON_NODE_ARRAY);

          /* The other inputs keep their defaults; each sample value goes in its input's place. */
          for (guint i = 0; i < endpoint->inputs->len; i++)
            {
              RivComponent *input = g_ptr_array_index (endpoint->inputs, i);

              g_ptr_array_add (cells, input->value != NULL && !input->is_state
                                        ? json_node_copy (input->value)
                                        : json_node_new (JSON_NODE_NULL));
            }
          for (guint k = 0; values != NULL && k < json_array_get_length (ids) &&
                            k < json_array_get_length (values); k++)
            {
              json_node_unref (g_ptr_array_index (cells, positions[k]));
              g_ptr_array_index (cells, positions[k]) =
                json_node_copy (json_array_get_element (values, k));
            }
          for (guint i = 0; i < cells->len; i++)
            json_array_add_element (data, json_node_ref (g_ptr_array_index (cells, i)));
          json_node_take_array (node, data);
          g_ptr_array_add (endpoint->examples, node);
        }
      endpoint->example_labels = dup_strings (dataset->props, "sample_labels");
      if (endpoint->example_labels != NULL &&
          g_strv_length (endpoint->example_labels) != endpoint->examples->len)
        g_clear_pointer (&endpoint->example_labels, g_strfreev);
      endpoint->example_headers = dup_strings (dataset->props, "headers");
      endpoint->example_inputs = g_steal_pointer (&positions);
      endpoint->n_example_inputs = json_array_get_length (ids);
      endpoint->examples_cached = examples_cached (self, dataset, ids);
    }
}

guint
riv_endpoint_get_n_examples (RivEndpoint *endpoint)
{
  g_return_val_if_fail (endpoint != NULL, 0);
  return endpoint->examples != NULL ? endpoint->examples->len : 0;
}

JsonNode *
riv_endpoint_dup_example (RivEndpoint *endpoint,
                          guint        index)
{
  g_return_val_if_fail (endpoint != NULL, NULL);
  g_return_val_if_fail (riv_endpoint_get_n_examples (endpoint) > 0, NULL);
  return json_node_copy (g_ptr_array_index (endpoint->examples, index % endpoint->examples->len));
}

RivConfig *
riv_config_new_from_data (const char  *data,
                          gssize       len,
                          const char  *base_url,
                          GError     **error)
{
  g_autoptr(RivConfig) self = NULL;
  g_autoptr(GError) local_error = NULL;
  g_autoptr(JsonNode) node = NULL;
  JsonObject *root;
  JsonNode *components;
  JsonNode *dependencies;
  const char *config_root;
  gboolean enable_queue;

  if (data == NULL)
    {
      g_set_error_literal (error, RIV_CONFIG_ERROR, RIV_CONFIG_ERROR_INVALID,
                           "Empty server config");
      return NULL;
    }

  node = riv_json_parse (NULL, data, len, RIV_CONFIG_MAX_DEPTH, &local_error);
  if (node == NULL)
    {
      g_set_error (error, RIV_CONFIG_ERROR, RIV_CONFIG_ERROR_INVALID,
                   "The server config is not valid JSON: %s", local_error->message);
      return NULL;
    }

  root = JSON_NODE_HOLDS_OBJECT (node) ? json_node_get_object (node) : NULL;
  dependencies = root != NULL ? json_object_get_member (root, "dependencies") : NULL;
  components = root != NULL ? json_object_get_member (root, "components") : NULL;
  if (dependencies == NULL || !JSON_NODE_HOLDS_ARRAY (dependencies) ||
      components == NULL || !JSON_NODE_HOLDS_ARRAY (components))
    {
      g_set_error_literal (error, RIV_CONFIG_ERROR, RIV_CONFIG_ERROR_INVALID,
                           "This is not a Gradio config (it needs \"components\" and "
                           "\"dependencies\" lists)");
      return NULL;
    }

  self = g_new0 (RivConfig, 1);
  g_atomic_ref_count_init (&self->ref_count);
  self->components = g_ptr_array_new_with_free_func (riv_component_free);
  self->by_id = g_hash_table_new (g_int64_hash, g_int64_equal);
  self->synthetic = g_hash_table_new_full (g_int64_hash, g_int64_equal, NULL, riv_component_free);
  self->endpoints = g_ptr_array_new_with_free_func (riv_endpoint_free);
  self->by_name = g_hash_table_new (g_str_hash, g_str_equal);

  if (!parse_protocol (self, root, error) ||
      !parse_api_prefix (self, root, error))
    return NULL;

  config_root = riv_json_get_string (root, "root");
  if (root_is_usable (config_root))
    self->root = strip_trailing_slashes (config_root);
  else
    self->root = strip_trailing_slashes (base_url != NULL ? base_url : "");

  self->version = g_strdup (riv_json_get_string (root, "version"));
  self->title = g_strdup (riv_json_get_string (root, "title"));
  self->connect_heartbeat = riv_json_get_bool (root, "connect_heartbeat", FALSE);
  enable_queue = riv_json_get_bool (root, "enable_queue", FALSE);

  {
    JsonArray *array = json_node_get_array (components);
    guint n = json_array_get_length (array);

    for (guint i = 0; i < n; i++)
      {
        JsonNode *entry = json_array_get_element (array, i);
        RivComponent *component;

        if (!JSON_NODE_HOLDS_OBJECT (entry) ||
            !(component = parse_component (json_node_get_object (entry))))
          continue;

        g_ptr_array_add (self->components, component);
        /* The first entry for an id wins. */
        if (!g_hash_table_contains (self->by_id, &component->id))
          g_hash_table_insert (self->by_id, &component->id, component);
      }
  }

  {
    JsonArray *array = json_node_get_array (dependencies);
    guint n = json_array_get_length (array);

    for (guint i = 0; i < n; i++)
      {
        JsonNode *entry = json_array_get_element (array, i);
        RivEndpoint *endpoint;

        if (!JSON_NODE_HOLDS_OBJECT (entry))
          continue;

        endpoint = parse_endpoint (self, json_node_get_object (entry), i, enable_queue);
        g_ptr_array_add (self->endpoints, endpoint);
        if (endpoint->api_name != NULL && !g_hash_table_contains (self->by_name, endpoint->api_name))
          g_hash_table_insert (self->by_name, endpoint->api_name, endpoint);
      }
  }

  for (guint i = 0; i < self->components->len; i++)
    {
      RivComponent *dataset = g_ptr_array_index (self->components, i);

      if (g_strcmp0 (dataset->type, "dataset") == 0)
        attach_examples (self, dataset);
    }
  return g_steal_pointer (&self);
}

const char *
riv_config_get_root (RivConfig *self)
{
  g_return_val_if_fail (self != NULL, NULL);
  return self->root;
}

gboolean
riv_config_resolve_root (RivConfig  *self,
                         const char *connected_url)
{
  g_autoptr(GUri) root = NULL;
  g_autoptr(GUri) connected = NULL;
  g_autoptr(GString) resolved = NULL;
  const char *host;
  const char *path;
  gsize path_len;

  g_return_val_if_fail (self != NULL, FALSE);

  root = g_uri_parse (self->root, G_URI_FLAGS_NONE, NULL);
  connected = connected_url != NULL ? g_uri_parse (connected_url, G_URI_FLAGS_NONE, NULL) : NULL;
  if (root == NULL || connected == NULL || g_uri_get_host (root) == NULL ||
      (host = g_uri_get_host (connected)) == NULL)
    return FALSE;

  if (g_ascii_strcasecmp (g_uri_get_host (root), host) != 0)
    {
      /* Another host: the server's config is not the user's to trust with
       * where requests (and credentials) go. The URL connected to answered
       * /config, so it is the app's root there. */
      g_autofree char *stripped = strip_trailing_slashes (connected_url);

      resolved = g_string_new (stripped);
    }
  else
    {
      /* A proxy that passes on the host but not the port or scheme (nginx's
       * "Host $host", TLS ended at the proxy) makes the server name a root the
       * client cannot reach; Gradio's own page keeps that root's path but uses
       * the scheme and host:port it was loaded from. So do we. */
      resolved = g_string_new (g_uri_get_scheme (connected));
      g_string_append (resolved, "://");
      if (strchr (host, ':') != NULL)
        g_string_append_printf (resolved, "[%s]", host);
      else
        g_string_append (resolved, host);
      if (g_uri_get_port (connected) > 0)
        g_string_append_printf (resolved, ":%d", g_uri_get_port (connected));
      path = g_uri_get_path (root);
      path_len = strlen (path);
      while (path_len > 0 && path[path_len - 1] == '/')
        path_len--;
      g_string_append_len (resolved, path, path_len);
    }

  if (g_strcmp0 (resolved->str, self->root) == 0)
    return FALSE;
  g_free (self->reported_root);
  self->reported_root = g_steal_pointer (&self->root);
  self->root = g_string_free (g_steal_pointer (&resolved), FALSE);
  return TRUE;
}

const char *
riv_config_get_reported_root (RivConfig *self)
{
  g_return_val_if_fail (self != NULL, NULL);
  return self->reported_root;
}

const char *
riv_config_get_api_prefix (RivConfig *self)
{
  g_return_val_if_fail (self != NULL, NULL);
  return self->api_prefix;
}

const char *
riv_config_get_protocol (RivConfig *self)
{
  g_return_val_if_fail (self != NULL, NULL);
  return self->protocol;
}

gboolean
riv_config_uses_diffs (RivConfig *self)
{
  g_return_val_if_fail (self != NULL, FALSE);
  return strcmp (self->protocol, "sse_v1") != 0;
}

const char *
riv_config_get_version (RivConfig *self)
{
  g_return_val_if_fail (self != NULL, NULL);
  return self->version;
}

const char *
riv_config_get_title (RivConfig *self)
{
  g_return_val_if_fail (self != NULL, NULL);
  return self->title;
}

gboolean
riv_config_get_connect_heartbeat (RivConfig *self)
{
  g_return_val_if_fail (self != NULL, FALSE);
  return self->connect_heartbeat;
}

guint
riv_config_get_n_endpoints (RivConfig *self)
{
  g_return_val_if_fail (self != NULL, 0);
  return self->endpoints->len;
}

RivEndpoint *
riv_config_get_endpoint (RivConfig *self,
                         guint      position)
{
  g_return_val_if_fail (self != NULL, NULL);

  if (position >= self->endpoints->len)
    return NULL;
  return g_ptr_array_index (self->endpoints, position);
}

RivEndpoint *
riv_config_find_endpoint (RivConfig  *self,
                          const char *name)
{
  RivEndpoint *endpoint;
  guint64 fn_index;

  g_return_val_if_fail (self != NULL, NULL);

  if (name == NULL)
    return NULL;
  while (*name == '/')
    name++;
  if (*name == '\0')
    return NULL;

  endpoint = g_hash_table_lookup (self->by_name, name);
  if (endpoint != NULL)
    return endpoint;

  /* g_ascii_string_to_unsigned() skips leading white space: " 1" is a name. */
  if (g_ascii_isdigit (*name) &&
      g_ascii_string_to_unsigned (name, 10, 0, G_MAXINT64, &fn_index, NULL))
    {
      for (guint i = 0; i < self->endpoints->len; i++)
        {
          endpoint = g_ptr_array_index (self->endpoints, i);
          if (endpoint->fn_index == (gint64) fn_index)
            return endpoint;
        }
    }

  return NULL;
}

RivComponent *
riv_config_get_component (RivConfig *self,
                          gint64     id)
{
  g_return_val_if_fail (self != NULL, NULL);
  return g_hash_table_lookup (self->by_id, &id);
}

guint
riv_config_get_n_components (RivConfig *self)
{
  g_return_val_if_fail (self != NULL, 0);
  return self->components->len;
}

char *
riv_config_build_url (RivConfig  *self,
                      const char *path)
{
  g_return_val_if_fail (self != NULL, NULL);

  if (path == NULL)
    path = "";
  return g_strconcat (self->root, self->api_prefix,
                      (*path != '\0' && *path != '/') ? "/" : "", path, NULL);
}

guint
riv_endpoint_get_n_inputs (RivEndpoint *endpoint)
{
  g_return_val_if_fail (endpoint != NULL, 0);
  return endpoint->inputs->len;
}

char *
riv_endpoint_dup_display_name (RivEndpoint *endpoint)
{
  g_return_val_if_fail (endpoint != NULL, NULL);

  if (endpoint->api_name != NULL)
    return g_strconcat ("/", endpoint->api_name, NULL);
  return g_strdup_printf ("fn %" G_GINT64_FORMAT, endpoint->fn_index);
}

/* A string member, or NULL (a copy). */
static char *
dup_string_member (JsonObject *object,
                   const char *member)
{
  const char *text = object != NULL ? riv_json_get_string (object, member) : NULL;

  return text != NULL ? g_utf8_make_valid (text, -1) : NULL;
}

static JsonObject *
object_member (JsonObject *object,
               const char *member)
{
  JsonNode *node = object != NULL ? json_object_get_member (object, member) : NULL;

  return node != NULL && JSON_NODE_HOLDS_OBJECT (node) ? json_node_get_object (node) : NULL;
}

/* One /info parameter, or NULL when it has no name (a list with a nameless
 * parameter cannot make a keyword call). */
static RivParameter *
parameter_from_info (JsonNode *node)
{
  JsonObject *object = JSON_NODE_HOLDS_OBJECT (node) ? json_node_get_object (node) : NULL;
  const char *name = object != NULL ? riv_json_get_string (object, "parameter_name") : NULL;
  JsonObject *schema = object_member (object, "type");
  JsonNode *fallback;
  RivParameter *parameter;

  if (name == NULL || *name == '\0')
    return NULL;
  parameter = g_new0 (RivParameter, 1);
  parameter->name = g_utf8_make_valid (name, -1);
  parameter->label = dup_string_member (object, "label");
  parameter->python_type = dup_string_member (object_member (object, "python_type"), "type");
  parameter->schema_type = dup_string_member (schema, "type");
  parameter->description = dup_string_member (schema, "description");
  if (parameter->description == NULL)
    parameter->description = dup_string_member (object_member (object, "python_type"),
                                                "description");
  if (parameter->description != NULL && *parameter->description == '\0')
    g_clear_pointer (&parameter->description, g_free);
  parameter->has_default = riv_json_get_bool (object, "parameter_has_default", FALSE);
  fallback = json_object_get_member (object, "parameter_default");
  if (parameter->has_default)
    parameter->default_value = fallback != NULL ? json_node_copy (fallback)
                                                : json_node_new (JSON_NODE_NULL);
  return parameter;
}

static GPtrArray *
returns_from_info (JsonNode *returns)
{
  GPtrArray *out = g_ptr_array_new_with_free_func (riv_return_free);
  JsonArray *array;

  if (returns == NULL || !JSON_NODE_HOLDS_ARRAY (returns))
    return out;
  array = json_node_get_array (returns);
  for (guint k = 0; k < json_array_get_length (array); k++)
    {
      JsonNode *node = json_array_get_element (array, k);
      JsonObject *object = JSON_NODE_HOLDS_OBJECT (node) ? json_node_get_object (node) : NULL;
      RivReturn *value = g_new0 (RivReturn, 1);

      value->label = dup_string_member (object, "label");
      value->python_type = dup_string_member (object_member (object, "python_type"), "type");
      g_ptr_array_add (out, value);
    }
  return out;
}

void
riv_config_set_api_info (RivConfig *self,
                         JsonNode  *info)
{
  JsonNode *named;
  JsonObject *endpoints;

  g_return_if_fail (self != NULL);

  if (info == NULL || !JSON_NODE_HOLDS_OBJECT (info) ||
      (named = json_object_get_member (json_node_get_object (info), "named_endpoints")) == NULL ||
      !JSON_NODE_HOLDS_OBJECT (named))
    return;
  endpoints = json_node_get_object (named);

  for (guint i = 0; i < self->endpoints->len; i++)
    {
      RivEndpoint *endpoint = g_ptr_array_index (self->endpoints, i);
      g_autofree char *key = NULL;
      g_autoptr(GPtrArray) parameters = NULL;
      g_autoptr(GStrvBuilder) names = NULL;
      JsonObject *entry;
      JsonNode *list;
      JsonArray *array;

      if (endpoint->api_name == NULL)
        continue;
      key = g_strconcat ("/", endpoint->api_name, NULL);
      entry = object_member (endpoints, key);
      if (entry == NULL || (list = json_object_get_member (entry, "parameters")) == NULL ||
          !JSON_NODE_HOLDS_ARRAY (list))
        continue;

      g_free (endpoint->description);
      endpoint->description = dup_string_member (entry, "description");
      if (endpoint->description != NULL && *g_strstrip (endpoint->description) == '\0')
        g_clear_pointer (&endpoint->description, g_free);
      g_clear_pointer (&endpoint->api_returns, g_ptr_array_unref);
      endpoint->api_returns = returns_from_info (json_object_get_member (entry, "returns"));

      parameters = g_ptr_array_new_with_free_func (riv_parameter_free);
      names = g_strv_builder_new ();
      array = json_node_get_array (list);
      for (guint k = 0; k < json_array_get_length (array); k++)
        {
          RivParameter *parameter = parameter_from_info (json_array_get_element (array, k));

          if (parameter == NULL)
            break;
          g_strv_builder_add (names, parameter->name);
          g_ptr_array_add (parameters, parameter);
        }
      if (parameters->len < json_array_get_length (array))
        continue;
      g_strfreev (endpoint->parameters);
      endpoint->parameters = g_strv_builder_end (names);   /* empty: takes no input */
      g_clear_pointer (&endpoint->api_parameters, g_ptr_array_unref);
      endpoint->api_parameters = g_steal_pointer (&parameters);
    }
}

RivComponent *
riv_parameter_new_component (const RivParameter *parameter)
{
  static const struct { const char *schema; const char *type; } editors[] = {
    { "integer", "number" }, { "number", "number" }, { "string", "textbox" },
    { "boolean", "checkbox" },
  };
  const char *type = "json";
  JsonObject *props = json_object_new ();
  RivComponent *component;

  g_return_val_if_fail (parameter != NULL, NULL);

  for (guint i = 0; i < G_N_ELEMENTS (editors); i++)
    if (g_strcmp0 (parameter->schema_type, editors[i].schema) == 0)
      type = editors[i].type;
  json_object_set_string_member (props, "label", parameter->name);
  if (g_strcmp0 (parameter->schema_type, "integer") == 0)
    json_object_set_int_member (props, "precision", 0);
  if (parameter->has_default && parameter->default_value != NULL)
    json_object_set_member (props, "value", json_node_copy (parameter->default_value));
  component = component_new (-1, type, props);
  json_object_unref (props);
  component->label = g_strdup (parameter->name);
  if (parameter->has_default && parameter->default_value != NULL &&
      !JSON_NODE_HOLDS_NULL (parameter->default_value))
    component->value = json_node_copy (parameter->default_value);
  return component;
}

gboolean
riv_endpoint_is_api_only (RivEndpoint *endpoint)
{
  g_return_val_if_fail (endpoint != NULL, FALSE);

  if (endpoint->inputs->len == 0 && endpoint->outputs->len == 0)
    return endpoint->api_parameters != NULL;
  for (guint i = 0; i < endpoint->inputs->len; i++)
    if (g_strcmp0 (((RivComponent *) g_ptr_array_index (endpoint->inputs, i))->type, "api") != 0)
      return FALSE;
  for (guint i = 0; i < endpoint->outputs->len; i++)
    if (g_strcmp0 (((RivComponent *) g_ptr_array_index (endpoint->outputs, i))->type, "api") != 0)
      return FALSE;
  return TRUE;
}

JsonNode *
riv_endpoint_map_keywords (RivEndpoint  *endpoint,
                           JsonObject   *keywords,
                           GError      **error)
{
  g_autoptr(JsonArray) array = NULL;
  g_autoptr(GString) known = NULL;
  JsonNode *node;
  GList *members;
  guint n_named = 0, k = 0;
  gboolean skip_state;

  g_return_val_if_fail (endpoint != NULL && keywords != NULL, NULL);

  /* Gradio's /info leaves out the inputs that are session state (gr.State);
   * a server that names them all is taken at its word too. */
  for (guint i = 0; i < endpoint->inputs->len; i++)
    n_named += !((RivComponent *) g_ptr_array_index (endpoint->inputs, i))->is_state;
  skip_state = endpoint->api_parameters != NULL &&
               endpoint->api_parameters->len != endpoint->inputs->len;
  if (endpoint->api_parameters == NULL ||
      endpoint->api_parameters->len != (skip_state ? n_named : endpoint->inputs->len))
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_NOT_SUPPORTED,
                   "the server does not name this endpoint's parameters (its /info), so its "
                   "inputs can only be given as a JSON array");
      return NULL;
    }
  known = g_string_new (NULL);
  for (guint p = 0; p < endpoint->api_parameters->len; p++)
    g_string_append_printf (known, "%s%s", p > 0 ? ", " : "",
                            ((RivParameter *) g_ptr_array_index (endpoint->api_parameters, p))->name);

  members = json_object_get_members (keywords);
  for (GList *l = members; l != NULL; l = l->next)
    {
      gboolean found = FALSE;

      for (guint p = 0; p < endpoint->api_parameters->len && !found; p++)
        found = g_strcmp0 (((RivParameter *) g_ptr_array_index (endpoint->api_parameters, p))->name,
                           l->data) == 0;
      if (!found)
        {
          g_autofree char *name = g_utf8_make_valid (l->data, -1);

          g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT,
                       "unknown parameter \"%s\" (the parameters are: %s)", name,
                       known->len > 0 ? known->str : "none");
          g_list_free (members);
          return NULL;
        }
    }
  g_list_free (members);

  array = json_array_sized_new (endpoint->inputs->len);
  for (guint i = 0; i < endpoint->inputs->len; i++)
    {
      RivParameter *parameter;
      JsonNode *given;

      if (skip_state && ((RivComponent *) g_ptr_array_index (endpoint->inputs, i))->is_state)
        {
          json_array_add_null_element (array);
          continue;
        }
      parameter = g_ptr_array_index (endpoint->api_parameters, k++);
      given = json_object_get_member (keywords, parameter->name);
      if (given != NULL)
        json_array_add_element (array, json_node_copy (given));
      else if (parameter->has_default)
        json_array_add_element (array, json_node_copy (parameter->default_value));
      else
        {
          g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT,
                       "missing parameter \"%s\", which has no default (the parameters are: %s)",
                       parameter->name, known->str);
          return NULL;
        }
    }
  node = json_node_new (JSON_NODE_ARRAY);
  json_node_set_array (node, array);
  return node;
}

GStrv
riv_config_describe_render (JsonNode *render_config)
{
  g_autoptr(GStrvBuilder) builder = g_strv_builder_new ();
  JsonArray *components;
  JsonNode *node;
  guint n = 0;

  if (render_config == NULL || !JSON_NODE_HOLDS_OBJECT (render_config))
    return NULL;
  node = json_object_get_member (json_node_get_object (render_config), "components");
  components = node != NULL && JSON_NODE_HOLDS_ARRAY (node) ? json_node_get_array (node) : NULL;
  for (guint i = 0; components != NULL && i < json_array_get_length (components); i++)
    {
      JsonNode *element = json_array_get_element (components, i);
      JsonObject *component;
      const char *type, *label = NULL;

      if (!JSON_NODE_HOLDS_OBJECT (element))
        continue;
      component = json_node_get_object (element);
      type = riv_json_get_string (component, "type");
      if (type == NULL || g_strv_contains (layout_types, type))
        continue;
      node = json_object_get_member (component, "props");
      if (node != NULL && JSON_NODE_HOLDS_OBJECT (node))
        {
          JsonObject *props = json_node_get_object (node);

          /* A button has no label: its text is its value. */
          label = riv_json_get_string (props, "label");
          if (label == NULL && strcmp (type, "button") == 0)
            label = riv_json_get_string (props, "value");
        }
      if (label != NULL && *label != '\0')
        {
          g_autofree char *text = g_strdup_printf ("%s “%s”", type, label);

          g_strv_builder_add (builder, text);
        }
      else
        g_strv_builder_add (builder, type);
      n++;
    }
  return n > 0 ? g_strv_builder_end (builder) : NULL;
}
