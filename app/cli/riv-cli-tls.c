/* riv-cli-tls.c
 * Copyright 2026 The Rivulet authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * --ca-file, --insecure, --token-file and --follow-root, and the client made
 * with them, for the subcommands that connect to a server.
 */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include "riv-cli.h"
#include "riv-cli-tls.h"
#include "riv-space.h"
#include "riv-text.h"

#define TOKEN_FILE_MAX (64 * 1024)

static char *ca_file;
static char *token_file;
static gboolean insecure;
static gboolean follow_root;
static char *hf_token;
static double space_wait = RIV_SPACE_DEFAULT_WAIT_S;
static char *space_token;      /* the token a resolved Space's app gets */

static void connect_done_cb (GObject      *object,
                             GAsyncResult *result,
                             gpointer      user_data);

static const GOptionEntry entries[] = {
  { "ca-file", 0, 0, G_OPTION_ARG_FILENAME, &ca_file,
    "Trust HTTPS certificates signed by the authorities in this PEM file (instead of the "
    "system's), e.g. a proxy's own certificate", "PEM" },
  { "insecure", 0, 0, G_OPTION_ARG_NONE, &insecure,
    "Accept any HTTPS certificate without checking it (said in the summary)", NULL },
  { "token-file", 0, 0, G_OPTION_ARG_FILENAME, &token_file,
    "Read the bearer token from FILE (its first line), out of sight of the process list; "
    "instead of --token or $RIVULET_TOKEN", "FILE" },
  { "follow-root", 0, 0, G_OPTION_ARG_NONE, &follow_root,
    "Send requests to the root the server's config names even on another host or port "
    "(default: warn and stay on --url); the token and login never go there", NULL },
  { "hf-token", 0, 0, G_OPTION_ARG_STRING, &hf_token,
    "Hugging Face token for a Space given by name (--url OWNER/SPACE): to the Hub and the "
    "Space's app (default: $HF_TOKEN, else the Hub's token file)", "TOKEN" },
  { "space-wait", 0, 0, G_OPTION_ARG_DOUBLE, &space_wait,
    "Wait at most S seconds for a Space that is building, starting or waking (default 300)",
    "S" },
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

/* --token-file's first line, without the line end or surrounding blanks. */
static char *
read_token_file (GError **error)
{
  g_autofree char *contents = NULL;
  gsize length = 0;
  char *line;

  if (!g_file_get_contents (token_file, &contents, &length, error))
    return NULL;
  if (length > TOKEN_FILE_MAX)
    {
      g_set_error (error, G_FILE_ERROR, G_FILE_ERROR_INVAL,
                   "%s is larger than a token (%d KiB)", token_file, TOKEN_FILE_MAX / 1024);
      return NULL;
    }
  line = riv_text_token_line (contents, length);
  if (line == NULL)
    g_set_error (error, G_FILE_ERROR, G_FILE_ERROR_INVAL, "%s holds no token on its first line",
                 token_file);
  return line;
}

/* --token, else --token-file, else $RIVULET_TOKEN (NULL: none); FALSE with a
 * usage error for both options or a token file that cannot be read. */
static gboolean
choose_token (const char  *token,
              char       **chosen,
              GError     **error)
{
  *chosen = NULL;
  if (token != NULL && token_file != NULL)
    {
      g_set_error_literal (error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
                           "--token and --token-file do not go together: give one");
      return FALSE;
    }
  if (token_file != NULL)
    {
      *chosen = read_token_file (error);
      if (*chosen == NULL)
        g_prefix_error (error, "--token-file: ");
      return *chosen != NULL;
    }
  *chosen = g_strdup (token != NULL ? token : g_getenv ("RIVULET_TOKEN"));
  return TRUE;
}

RivClient *
riv_cli_client_new (const char  *url,
                    const char  *token,
                    const char  *auth,
                    GError     **error)
{
  g_autoptr(RivClient) client = riv_client_new (url);
  g_autofree char *chosen = NULL;

  if (!choose_token (token, &chosen, error))
    return NULL;
  if (chosen != NULL && *chosen != '\0')
    riv_client_set_token (client, chosen);
  riv_client_set_follow_root (client, follow_root);
  if (auth == NULL)
    auth = g_getenv ("RIVULET_AUTH");
  if (auth != NULL && !riv_client_set_auth_string (client, auth, error))
    {
      g_prefix_error (error, "--auth: ");
      return NULL;
    }
  if (!riv_cli_tls_apply (client, error))
    return NULL;
  if (space_token != NULL)
    riv_client_set_hf_token (client, space_token);
  return g_steal_pointer (&client);
}

gboolean
riv_cli_target_parse (const char  *text,
                      char       **url,
                      char       **space_id,
                      GError     **error)
{
  g_autofree char *hub = NULL;

  *url = NULL;
  *space_id = NULL;
  if (!(space_wait >= 0 && space_wait <= 86400))
    {
      g_set_error_literal (error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
                           "--space-wait: give seconds from 0 to 86400");
      return FALSE;
    }
  if (!riv_space_is_spelled (text, NULL) &&
      !(strstr (text, "://") != NULL && (hub = riv_space_hub_from_env (NULL)) != NULL &&
        riv_space_is_spelled (text, hub)))
    {
      *url = riv_client_normalize_url (text, error);
      return *url != NULL;
    }
  if (hub == NULL && (hub = riv_space_hub_from_env (error)) == NULL)
    return FALSE;
  *space_id = riv_space_parse_id (text, hub, error);
  return *space_id != NULL;
}

static void
space_progress_cb (const char *stage,
                   const char *message,
                   gpointer    user_data)
{
  g_printerr ("%s: %s\n", g_get_prgname (), riv_cli_safe (message));
}

char *
riv_cli_space_resolve (const char  *space_id,
                       GError     **error)
{
  g_autoptr(GAsyncResult) result = NULL;
  g_autofree char *host = NULL;
  char *url;

  riv_space_resolve_async (space_id, NULL, hf_token, space_wait, space_progress_cb, NULL, NULL,
                           NULL, connect_done_cb, &result);
  while (result == NULL)
    g_main_context_iteration (NULL, TRUE);
  g_clear_pointer (&space_token, g_free);
  host = riv_space_resolve_finish (result, &space_token, error);
  if (host == NULL)
    return NULL;
  url = riv_client_normalize_url (host, error);
  if (url == NULL)
    {
      g_prefix_error (error, "Space %s: the Hub names its app ", space_id);
      return NULL;
    }
  g_printerr ("%s: Space %s is at %s\n", g_get_prgname (), space_id, riv_cli_safe (url));
  return url;
}

static void
connect_done_cb (GObject      *object,
                 GAsyncResult *result,
                 gpointer      user_data)
{
  GAsyncResult **slot = user_data;

  *slot = g_object_ref (result);
}

/* A root the server's config names on another origin than the URL the user
 * gave: not followed (said), or followed with --follow-root (said too). */
static void
warn_root (RivClient *client)
{
  RivConfig *config = riv_client_get_config (client);
  const char *url = riv_client_get_url (client);
  const char *reported = riv_config_get_reported_root (config);
  const char *root = riv_config_get_root (config);

  if (reported != NULL && !riv_url_same_origin (reported, url))
    {
      g_autofree char *shown = riv_text_for_terminal (reported);
      g_autofree char *used = riv_text_for_terminal (root);

      g_printerr ("%s: warning: the server's config names its root %s, not on %s: not "
                  "followed, requests go to %s (--follow-root follows it, without the "
                  "token or login)\n", g_get_prgname (), shown, url, used);
    }
  else if (!riv_url_same_origin (root, url))
    {
      g_autofree char *shown = riv_text_for_terminal (root);

      g_printerr ("%s: warning: following the server's root %s (--follow-root); the token "
                  "and login go only to %s\n", g_get_prgname (), shown, url);
    }
}

gboolean
riv_cli_client_connect (RivClient  *client,
                        GError    **error)
{
  g_autoptr(GAsyncResult) result = NULL;

  riv_client_connect_async (client, NULL, connect_done_cb, &result);
  while (result == NULL)
    g_main_context_iteration (NULL, TRUE);
  if (!riv_client_connect_finish (client, result, error))
    return FALSE;
  warn_root (client);
  return TRUE;
}
