/* riv-cli-tls.c
 * Copyright 2026 The Rivulet authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * --ca-file and --insecure, and the client made with them, for the
 * subcommands that connect to a server.
 */
#include "config.h"

#include "riv-cli-tls.h"

static char *ca_file;
static gboolean insecure;

static const GOptionEntry entries[] = {
  { "ca-file", 0, 0, G_OPTION_ARG_FILENAME, &ca_file,
    "Trust HTTPS certificates signed by the authorities in this PEM file (instead of the "
    "system's), e.g. a proxy's own certificate", "PEM" },
  { "insecure", 0, 0, G_OPTION_ARG_NONE, &insecure,
    "Accept any HTTPS certificate without checking it (said in the summary)", NULL },
  { NULL }
};

const GOptionEntry *
riv_cli_tls_get_entries (void)
{
  return entries;
}

gboolean
riv_cli_tls_apply (RivClient  *client,
                   GError    **error)
{
  g_autoptr(GTlsDatabase) database = NULL;

  if (ca_file != NULL && insecure)
    {
      g_set_error_literal (error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
                           "--ca-file and --insecure do not go together: --insecure checks "
                           "no certificate at all");
      return FALSE;
    }
  if (ca_file != NULL && (database = riv_tls_database_new_from_file (ca_file, error)) == NULL)
    {
      g_prefix_error (error, "--ca-file: ");
      return FALSE;
    }
  if (database != NULL || insecure)
    riv_client_set_tls (client, database, insecure);
  return TRUE;
}

gboolean
riv_cli_tls_is_insecure (void)
{
  return insecure;
}

RivClient *
riv_cli_client_new (const char  *url,
                    const char  *token,
                    const char  *auth,
                    GError     **error)
{
  g_autoptr(RivClient) client = riv_client_new (url);

  if (token != NULL)
    riv_client_set_token (client, token);
  if (auth == NULL)
    auth = g_getenv ("RIVULET_AUTH");
  if (auth != NULL && !riv_client_set_auth_string (client, auth, error))
    {
      g_prefix_error (error, "--auth: ");
      return NULL;
    }
  if (!riv_cli_tls_apply (client, error))
    return NULL;
  return g_steal_pointer (&client);
}

static void
connect_done_cb (GObject      *object,
                 GAsyncResult *result,
                 gpointer      user_data)
{
  GAsyncResult **slot = user_data;

  *slot = g_object_ref (result);
}

gboolean
riv_cli_client_connect (RivClient  *client,
                        GError    **error)
{
  g_autoptr(GAsyncResult) result = NULL;

  riv_client_connect_async (client, NULL, connect_done_cb, &result);
  while (result == NULL)
    g_main_context_iteration (NULL, TRUE);
  return riv_client_connect_finish (client, result, error);
}
