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

static void
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
riv_endpoint_free (gpointer data)
{
  RivEndpoint *endpoint = data;

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
      g_autoptr(GStrvBuilder) names = NULL;
      JsonNode *entry, *parameters;
      JsonArray *array;

      if (endpoint->api_name == NULL)
        continue;
      key = g_strconcat ("/", endpoint->api_name, NULL);
      entry = json_object_get_member (endpoints, key);
      if (entry == NULL || !JSON_NODE_HOLDS_OBJECT (entry) ||
          (parameters = json_object_get_member (json_node_get_object (entry), "parameters")) == NULL ||
          !JSON_NODE_HOLDS_ARRAY (parameters))
        continue;

      names = g_strv_builder_new ();
      array = json_node_get_array (parameters);
      if (json_array_get_length (array) == 0)
        {
          g_strfreev (endpoint->parameters);
          endpoint->parameters = g_strv_builder_end (names);   /* takes no input */
        }
      for (guint k = 0; k < json_array_get_length (array); k++)
        {
          JsonNode *parameter = json_array_get_element (array, k);
          const char *name = JSON_NODE_HOLDS_OBJECT (parameter)
                               ? riv_json_get_string (json_node_get_object (parameter),
                                                      "parameter_name")
                               : NULL;

          /* A list with a nameless parameter cannot make a keyword call. */
          if (name == NULL || *name == '\0')
            break;
          g_strv_builder_add (names, name);
          if (k + 1 == json_array_get_length (array))
            {
              g_strfreev (endpoint->parameters);
              endpoint->parameters = g_strv_builder_end (names);
            }
        }
    }
}
