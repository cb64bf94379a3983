/* riv-cli-tls.c
 * Copyright 2026 The Rivulet authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * --ca-file and --insecure, for the subcommands that connect to a server.
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
