/* riv-cli-inspect.c
 * Copyright 2026 The Rivulet authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * rivulet-cli inspect: what a server offers — version, protocol, root and
 * every endpoint with its flags, inputs and outputs.
 */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include "riv-cli.h"
#include "riv-cli-tls.h"
#include "riv-client.h"
#include "riv-json.h"

static char *
format_number (double value)
{
  char buffer[G_ASCII_DTOSTR_BUF_SIZE];

  return g_strdup (g_ascii_formatd (buffer, sizeof buffer, "%g", value));
}

/* "range 1–50 step 1, choices a|b, default 10" for a component. */
static char *
describe_details (RivComponent *component)
{
  g_autoptr(GPtrArray) parts = g_ptr_array_new_with_free_func (g_free);
  g_autofree char *range = NULL;

  if (component->has_minimum || component->has_maximum)
    {
      g_autofree char *min = component->has_minimum ? format_number (component->minimum)
                                                    : g_strdup ("");
      g_autofree char *max = component->has_maximum ? format_number (component->maximum)
                                                    : g_strdup ("");

      if (component->has_step)
        {
          g_autofree char *step = format_number (component->step);

          range = g_strdup_printf ("range %s–%s step %s", min, max, step);
        }
      else
        range = g_strdup_printf ("range %s–%s", min, max);
      g_ptr_array_add (parts, g_steal_pointer (&range));
    }

  if (component->choices != NULL)
    {
      g_autofree char *joined = g_strjoinv (" | ", component->choices);

      g_ptr_array_add (parts, g_strdup_printf ("choices %s", joined));
    }

  if (component->value != NULL && !JSON_NODE_HOLDS_NULL (component->value))
    {
      g_autofree char *value = NULL;

      /* Doubles as typed by people (0.05, not 0.050000000000000003). */
      if (JSON_NODE_HOLDS_VALUE (component->value) &&
          json_node_get_value_type (component->value) == G_TYPE_DOUBLE)
        value = format_number (json_node_get_double (component->value));
      else
        value = json_to_string (component->value, FALSE);

      if (strlen (value) > 60)
        {
          value[57] = '\0';
          g_ptr_array_add (parts, g_strdup_printf ("default %s…", value));
        }
      else
        g_ptr_array_add (parts, g_strdup_printf ("default %s", value));
    }

  g_ptr_array_add (parts, NULL);
  return g_strjoinv (", ", (char **) parts->pdata);
}

static void
print_components (const char *title,
                  GPtrArray  *components)
{
  printf ("    %s:%s\n", title, components->len == 0 ? " (none)" : "");
  for (guint i = 0; i < components->len; i++)
    {
      RivComponent *component = g_ptr_array_index (components, i);
      g_autofree char *details = describe_details (component);
      g_autofree char *label = component->label ? g_strdup_printf ("\"%s\"", component->label)
                                                : g_strdup ("");

      g_autofree char *line = g_strdup_printf ("      %u. %-10s %-20s %s%s", i + 1,
                                               component->type ? component->type : "?",
                                               label,
                                               component->is_state ? "(state, sent as null) " : "",
                                               details);

      g_strchomp (line);
      printf ("%s\n", riv_cli_safe (line));
    }
}

/* The server's address, version, protocol, root, API and title. */
static void
print_server (RivClient *client,
              RivConfig *config)
{
  printf ("Server    %s\n", riv_client_get_url (client));
  printf ("Version   %s\n", riv_config_get_version (config)
                            ? riv_cli_safe (riv_config_get_version (config)) : "(not given)");
  printf ("Protocol  %s\n", riv_cli_safe (riv_config_get_protocol (config)));
  printf ("Root      %s\n", riv_cli_safe (riv_config_get_root (config)));
  if (riv_config_get_reported_root (config) != NULL)
    printf ("          (corrected: the server said %s; requests stay on the\n"
            "          origin connected to, with that root's path on the same host, as\n"
            "          Gradio's page does; --follow-root follows it)\n",
            riv_cli_safe (riv_config_get_reported_root (config)));
  if (riv_cli_tls_is_insecure ())
    printf ("TLS       certificate NOT checked (--insecure)\n");
  printf ("API       %s%s\n", riv_cli_safe (riv_config_get_root (config)),
          riv_cli_safe (riv_config_get_api_prefix (config)));
  if (riv_config_get_title (config) != NULL)
    printf ("Title     %s\n", riv_cli_safe (riv_config_get_title (config)));
}

/* One public endpoint: its name, fn_index and flags, inputs and outputs. */
static void
print_endpoint (RivEndpoint *endpoint)
{
  g_autofree char *name = riv_endpoint_dup_display_name (endpoint);
  g_autoptr(GString) flags = g_string_new (NULL);

  if (endpoint->generator)
    g_string_append (flags, "generator, ");
  if (endpoint->batch)
    g_string_append_printf (flags, "batch ×%" G_GINT64_FORMAT ", ", endpoint->max_batch_size);
  g_string_append (flags, endpoint->queue ? "queued" : "not queued (/run)");
  if (endpoint->undocumented)
    g_string_append (flags, ", undocumented");
  if (endpoint->renders)
    g_string_append (flags, ", renders components (gr.render: its output is a new layout)");
  if (g_strcmp0 (endpoint->connection, "stream") == 0)
    g_string_append (flags, ", streaming input");

  printf ("\n  %s  (fn_index %" G_GINT64_FORMAT ")  %s\n",
          riv_cli_safe (name), endpoint->fn_index, flags->str);
  if (endpoint->description != NULL)
    printf ("    %s\n", riv_cli_safe (endpoint->description));
  print_components ("inputs", endpoint->inputs);
  print_components ("outputs", endpoint->outputs);
  if (riv_endpoint_get_n_examples (endpoint) > 0)
    {
      printf ("    examples%s (load --examples):\n",
              endpoint->examples_cached ? ", cached by the app" : "");
      for (guint i = 0; i < riv_endpoint_get_n_examples (endpoint); i++)
        {
          g_autoptr(JsonNode) example = riv_endpoint_dup_example (endpoint, i);
          g_autofree char *values = riv_json_to_display (example);
          g_autofree char *line = endpoint->example_labels != NULL
            ? g_strdup_printf ("      %u. %s  %s", i + 1, endpoint->example_labels[i], values)
            : g_strdup_printf ("      %u. %s", i + 1, values);

          printf ("%s\n", riv_cli_safe (line));
        }
    }
}

/* The public endpoints. Private ones (api_visibility "private") serve only
 * the app's own page: not offered, only counted. */
static gboolean
offered (RivEndpoint *endpoint)
{
  return endpoint->is_public || endpoint->renders;
}

static void
print_endpoints (RivConfig *config)
{
  guint n = riv_config_get_n_endpoints (config);
  guint n_private = 0;

  /* A render endpoint is shown though Gradio 4 and 5 hide it (show_api false):
   * the app's own page calls it like any other. */
  for (guint i = 0; i < n; i++)
    if (!offered (riv_config_get_endpoint (config, i)))
      n_private++;
  printf ("\nEndpoints (%u):\n", n - n_private);

  for (guint i = 0; i < n; i++)
    {
      RivEndpoint *endpoint = riv_config_get_endpoint (config, i);

      if (offered (endpoint))
        print_endpoint (endpoint);
    }

  if (n_private > 0)
    printf ("\n(%u private endpoint(s) not shown: the app keeps them for its own page)\n",
            n_private);
}

int
riv_cli_inspect (int    argc,
                 char **argv)
{
  g_autofree char *url = NULL;
  g_autofree char *token = NULL;
  g_autofree char *auth = NULL;
  g_autofree char *normalized = NULL;
  g_autofree char *space_id = NULL;
  const GOptionEntry entries[] = {
    { "url", 'u', 0, G_OPTION_ARG_STRING, &url, "Server base URL, or a Hugging Face Space as OWNER/SPACE (required)", "URL" },
    { "token", 0, 0, G_OPTION_ARG_STRING, &token,
      "Bearer token for the server (default: $RIVULET_TOKEN; --token-file keeps it out of "
      "the process list)", "TOKEN" },
    { "auth", 0, 0, G_OPTION_ARG_STRING, &auth,
      "Log in to a Gradio app launched with auth= (default: $RIVULET_AUTH)", "USER:PASSWORD" },
    { NULL }
  };
  g_autoptr(GOptionContext) context = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(RivClient) client = NULL;

  context = g_option_context_new ("— show a server's endpoints");
  g_option_context_set_summary (context,
                                "Connects to a Gradio server (or rivulet-cli serve) and lists its\n"
                                "version, protocol and endpoints with their inputs and outputs.");
  g_option_context_add_main_entries (context, entries, NULL);
  g_option_context_add_main_entries (context, riv_cli_tls_get_entries (), NULL);
  if (!g_option_context_parse (context, &argc, &argv, &error))
    return riv_cli_usage_error ("inspect", "%s", error->message);
  if (argc > 1)
    return riv_cli_usage_error ("inspect", "unexpected argument \"%s\"", argv[1]);
  if (url == NULL)
    return riv_cli_usage_error ("inspect", "--url is required");

  if (!riv_cli_target_parse (url, &normalized, &space_id, &error))
    return riv_cli_usage_error ("inspect", "%s", error->message);
  if (space_id != NULL && (normalized = riv_cli_space_resolve (space_id, &error)) == NULL)
    {
      g_printerr ("rivulet-cli inspect: %s\n", riv_cli_safe (error->message));
      return 1;
    }
  client = riv_cli_client_new (normalized, token, auth, &error);
  if (client == NULL)
    return riv_cli_usage_error ("inspect", "%s", error->message);
  if (!riv_cli_client_connect (client, &error))
    {
      g_printerr ("rivulet-cli inspect: %s\n", riv_cli_safe (error->message));
      riv_client_close (client);
      return 1;
    }

  print_server (client, riv_client_get_config (client));
  print_endpoints (riv_client_get_config (client));
  riv_client_close (client);
  return 0;
}
