/* riv-config.h
 * Copyright 2026 The Rivulet authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * A server's /config (protocol.md §1.2) turned into endpoints. Handles Gradio 4
 * (api_prefix "") and 5/6 ("/gradio_api"), "root", and state components.
 */
#pragma once

#include <json-glib/json-glib.h>

G_BEGIN_DECLS

/* Configs nested deeper than this are rejected before json-glib recurses into them. */
#define RIV_CONFIG_MAX_DEPTH 512

#define RIV_CONFIG_ERROR (riv_config_error_quark ())
typedef enum
{
  RIV_CONFIG_ERROR_INVALID,               /* not JSON / not a Gradio config */
  RIV_CONFIG_ERROR_UNSUPPORTED_PROTOCOL,  /* ws, sse, unknown */
} RivConfigError;
GQuark riv_config_error_quark (void);

typedef struct
{
  gint64      id;
  char       *type;        /* lower-case component type, e.g. "textbox", "slider", "state" */
  char       *label;       /* props.label, or NULL */
  JsonObject *props;       /* owned ref, never NULL (empty object when absent) */
  gboolean    is_state;
  gboolean    skip_api;
  /* Convenience extracted from props (has_* tells whether present). */
  gboolean    has_minimum, has_maximum, has_step;
  double      minimum, maximum, step;
  char      **choices;     /* props.choices as display strings, nullable */
  JsonNode   *value;       /* props.value (default), nullable, owned */
  int         lines;       /* props.lines for textboxes, 1 when absent (clamped to 1..1000) */
  char      **choice_values; /* values matching choices (same length; for ["label","value"]
                                pairs the value, else the choice itself; non-strings as JSON
                                text), nullable exactly when choices is */
} RivComponent;

/* One parameter of an endpoint as /info describes it. */
typedef struct
{
  char       *name;         /* parameter_name: what keyword calls use */
  char       *label;        /* nullable: the component's label ("1st" for gr.api) */
  char       *python_type;  /* nullable: "int", "str", "list[str]" … */
  char       *schema_type;  /* nullable: the JSON schema's type: "integer", "number",
                               "string", "boolean", "array", "object" */
  char       *description;  /* nullable: the type's description */
  gboolean    has_default;  /* FALSE: required */
  JsonNode   *default_value; /* owned, nullable (JSON null) when has_default */
} RivParameter;

/* One value an endpoint returns, as /info describes it. */
typedef struct
{
  char       *label;        /* nullable */
  char       *python_type;  /* nullable */
} RivReturn;

typedef struct
{
  gint64      fn_index;     /* dependency id */
  char       *api_name;     /* without leading '/', NULL when unnamed */
  GPtrArray  *inputs;       /* RivComponent* (borrowed from the config); unknown ids get a
                               synthetic component of type "unknown" */
  GPtrArray  *outputs;      /* same */
  gboolean    generator;    /* types.generator */
  gboolean    batch;
  gint64      max_batch_size;
  gboolean    queue;        /* dependency queue, falling back to enable_queue */
  gboolean    is_public;    /* api_visibility not "private" / show_api: offered to API
                               clients; a private one only serves the app's own page */
  gboolean    undocumented; /* api_visibility "undocumented": callable, not in the API docs */
  char       *connection;   /* "sse" or "stream", nullable */
  gboolean    backend_fn;   /* FALSE when the dependency says "backend_fn": false (JS-only) */
  GStrv       parameters;   /* nullable: /info's parameter names, in order (keyword calls) */
  GPtrArray  *api_parameters; /* RivParameter *, nullable: /info's parameters (when every
                                 one is named) */
  GPtrArray  *api_returns;  /* RivReturn *, nullable: /info's returns */
  char       *description;  /* nullable: /info's description of the endpoint */
  GPtrArray  *examples;     /* JsonNode * (arrays, a value per input), nullable: the
                               endpoint's examples (gr.Examples, an Interface's examples=):
                               each sample in its input's place, the other inputs' defaults */
  GStrv       example_labels;  /* nullable: a label per example (sample_labels) */
  GStrv       example_headers; /* nullable: the examples' column headers */
  guint      *example_inputs;  /* the inputs the examples fill, n_example_inputs of them */
  guint       n_example_inputs;
  gboolean    examples_cached; /* the app answers them from its cache (cache_examples) */
  gboolean    renders;      /* gr.render: its output is a new layout of components, not a
                               value (a "render_id"; on Gradio 4, a hidden dependency whose
                               one output is a column or a row) */
} RivEndpoint;

typedef struct _RivConfig RivConfig;

GType         riv_config_get_type           (void) G_GNUC_CONST;
#define RIV_TYPE_CONFIG (riv_config_get_type ())

/* base_url: the URL the client connected with (no trailing slash needed). */
RivConfig    *riv_config_new_from_data      (const char   *data,
                                             gssize        len,
                                             const char   *base_url,
                                             GError      **error);
RivConfig    *riv_config_ref                (RivConfig    *self);
void          riv_config_unref              (RivConfig    *self);

/* Effective root: config "root" when non-empty, else base_url; never a trailing '/'. */
const char   *riv_config_get_root           (RivConfig    *self);
/* The root requests go to when the user connected to connected_url: on the
 * host connected to, what Gradio's web page does (keep its path, take
 * connected_url's scheme and host:port); on another host, connected_url
 * itself (a config does not send the client elsewhere). TRUE when that
 * changed the root; riv_config_get_reported_root () then gives the server's. */
gboolean      riv_config_resolve_root       (RivConfig    *self,
                                             const char   *connected_url);
const char   *riv_config_get_reported_root  (RivConfig    *self);   /* nullable */
const char   *riv_config_get_api_prefix     (RivConfig    *self);
const char   *riv_config_get_protocol       (RivConfig    *self);
/* TRUE unless the protocol is sse_v1: from sse_v2 on, process_generating carries diffs. */
gboolean      riv_config_uses_diffs         (RivConfig    *self);
const char   *riv_config_get_version        (RivConfig    *self);   /* nullable */
const char   *riv_config_get_title          (RivConfig    *self);   /* nullable */
gboolean      riv_config_get_connect_heartbeat (RivConfig *self);
guint         riv_config_get_n_endpoints    (RivConfig    *self);
RivEndpoint  *riv_config_get_endpoint       (RivConfig    *self,
                                             guint         position);
/* By api_name (with or without leading '/'), or by fn_index given as decimal text. */
RivEndpoint  *riv_config_find_endpoint      (RivConfig    *self,
                                             const char   *name);
/* NULL when the config has no component with that id. */
RivComponent *riv_config_get_component      (RivConfig    *self,
                                             gint64        id);
guint         riv_config_get_n_components   (RivConfig    *self);
/* root + api_prefix + path (path starts with '/'). */
char         *riv_config_build_url          (RivConfig    *self,
                                             const char   *path);
/* Number of values to send for an endpoint's inputs (= inputs->len). */
guint         riv_endpoint_get_n_inputs     (RivEndpoint  *endpoint);
/* The values of a keyword call (a JSON object: parameter name → value) in
 * the endpoint's input order, each parameter not given taking its default.
 * Needs /info's parameters (riv_config_set_api_info ()); an error names an
 * unknown parameter (and the ones there are) or a required one missing. */
JsonNode     *riv_endpoint_map_keywords     (RivEndpoint  *endpoint,
                                             JsonObject   *keywords,
                                             GError      **error);
/* A component that stands for a typed parameter in a form: its name as the
 * label, its default as the value, and a type by its JSON schema: integer
 * (precision 0) and number → "number", string → "textbox", boolean →
 * "checkbox", anything else → "json". Free with riv_component_free (). */
RivComponent *riv_parameter_new_component   (const RivParameter *parameter);
void          riv_component_free            (gpointer      component);
/* TRUE when the endpoint's inputs are gr.api's (or gr.Server's) typed
 * parameters, which have no components of their own. */
gboolean      riv_endpoint_is_api_only      (RivEndpoint  *endpoint);
/* The examples' number (0: none), and example index (wrapping round) as the
 * endpoint's data: a new array, a value per input. */
guint         riv_endpoint_get_n_examples   (RivEndpoint  *endpoint);
JsonNode     *riv_endpoint_dup_example      (RivEndpoint  *endpoint,
                                             guint         index);
/* gr.render: what a completion's render_config (the "render_config" of a
 * render endpoint's output) put on the page: each component that is not
 * layout, in the config's order, as "type" or "type “label”" (a button's
 * text is its label). NULL when
 * render_config is not an object or lists no components. */
GStrv         riv_config_describe_render    (JsonNode     *render_config);
/* Display name: "/api_name" or "fn 3". */
char         *riv_endpoint_dup_display_name (RivEndpoint  *endpoint);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (RivConfig, riv_config_unref)

/* Reads a server's /info (named_endpoints): each named endpoint's parameter
 * names (RivEndpoint.parameters), which keyword calls (/call/v2) need.
 * Anything else in it is ignored; a reply that is not /info changes nothing.
 * For the connect, before the config is shared. */
void          riv_config_set_api_info       (RivConfig   *self,
                                             JsonNode    *info);

G_END_DECLS
