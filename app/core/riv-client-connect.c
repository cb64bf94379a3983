/* riv-client-connect.c
 * Copyright 2026 The Rivulet authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Connecting: the server URL normalised, GET /config (the app's components
 * and endpoints), then GET /info, which is only nice to have.
 */
#include "config.h"

#include <string.h>

#include "riv-client-private.h"
#include "riv-util.h"

#define CONNECT_TIMEOUT_S     30.0

char *
riv_client_normalize_url (const char  *url,
                          GError     **error)
{
  g_autofree char *trimmed = NULL;
  g_autofree char *with_scheme = NULL;
  g_autoptr(GUri) uri = NULL;
  g_autoptr(GError) local_error = NULL;
  g_autoptr(GString) result = NULL;
  g_autofree char *lower_host = NULL;
  const char *scheme;
  const char *host;
  const char *path;
  gsize path_len;
  int port;

  if (url == NULL || *(trimmed = g_strstrip (g_strdup (url))) == '\0')
    {
      g_set_error_literal (error, RIV_CLIENT_ERROR, RIV_CLIENT_ERROR_BAD_URL,
                           "The server URL is empty");
      return NULL;
    }

  for (const char *p = trimmed; *p; p++)
    if (g_ascii_isspace (*p))
      {
        g_set_error (error, RIV_CLIENT_ERROR, RIV_CLIENT_ERROR_BAD_URL,
                     "The server URL \"%s\" contains spaces", trimmed);
        return NULL;
      }

  if (strstr (trimmed, "://") == NULL)
    with_scheme = g_strconcat ("http://", trimmed, NULL);
  else
    with_scheme = g_strdup (trimmed);

  uri = g_uri_parse (with_scheme, G_URI_FLAGS_NONE, &local_error);
  if (uri == NULL)
    {
      g_set_error (error, RIV_CLIENT_ERROR, RIV_CLIENT_ERROR_BAD_URL,
                   "\"%s\" is not a valid URL: %s", trimmed, local_error->message);
      return NULL;
    }

  scheme = g_uri_get_scheme (uri);
  if (g_ascii_strcasecmp (scheme, "http") != 0 && g_ascii_strcasecmp (scheme, "https") != 0)
    {
      g_set_error (error, RIV_CLIENT_ERROR, RIV_CLIENT_ERROR_BAD_URL,
                   "Only http and https URLs are supported, not \"%s\"", scheme);
      return NULL;
    }

  host = g_uri_get_host (uri);
  if (host == NULL || *host == '\0')
    {
      g_set_error (error, RIV_CLIENT_ERROR, RIV_CLIENT_ERROR_BAD_URL,
                   "The URL \"%s\" has no host", trimmed);
      return NULL;
    }

  if (g_uri_get_fragment (uri) != NULL)
    {
      g_set_error (error, RIV_CLIENT_ERROR, RIV_CLIENT_ERROR_BAD_URL,
                   "The URL \"%s\" has a fragment (#…); give the app's base URL", trimmed);
      return NULL;
    }

  if (g_uri_get_userinfo (uri) != NULL)
    {
      g_set_error (error, RIV_CLIENT_ERROR, RIV_CLIENT_ERROR_BAD_URL,
                   "The URL \"%s\" contains credentials; use a token instead", trimmed);
      return NULL;
    }

  /* A query (e.g. "?view=api" copied from a browser) is dropped: every route
   * is built by appending a path to the base URL. */
  result = g_string_new (NULL);
  g_string_append (result, g_ascii_strcasecmp (scheme, "https") == 0 ? "https://" : "http://");
  lower_host = g_ascii_strdown (host, -1);
  if (strchr (lower_host, ':') != NULL)
    g_string_append_printf (result, "[%s]", lower_host);
  else
    g_string_append (result, lower_host);
  port = g_uri_get_port (uri);
  if (port > 0)
    g_string_append_printf (result, ":%d", port);

  path = g_uri_get_path (uri);
  path_len = strlen (path);
  while (path_len > 0 && path[path_len - 1] == '/')
    path_len--;
  if (path_len > 0 && path[0] != '/')
    g_string_append_c (result, '/');
  g_string_append_len (result, path, path_len);

  return g_string_free (g_steal_pointer (&result), FALSE);
}

static void
connect_info_cb (GObject      *object,
                 GAsyncResult *result,
                 gpointer      user_data)
{
  g_autoptr(GTask) task = user_data;
  RivClient *self = g_task_get_source_object (task);
  RivClientTaskData *cd = g_task_get_task_data (task);
  g_autoptr(GError) error = NULL;
  g_autoptr(GBytes) body = NULL;
  guint status;

  body = soup_session_send_and_read_finish (SOUP_SESSION (object), result, &error);

  if (g_cancellable_is_cancelled (cd->cancel->user) || self->closed)
    {
      g_task_return_new_error (task, G_IO_ERROR, G_IO_ERROR_CANCELLED, "Operation was cancelled");
      return;
    }

  /* Like the JS client: /info is nice to have, its failure is only logged. */
  status = soup_message_get_status (cd->msg);
  if (body == NULL)
    g_message ("Could not load the server's API info: %s", error->message);
  else if (status != SOUP_STATUS_OK)
    g_message ("Could not load the server's API info (HTTP %u)", status);

  _riv_client_set_config (self, cd->config);
  g_task_return_boolean (task, TRUE);
}

static void
connect_config_cb (GObject      *object,
                   GAsyncResult *result,
                   gpointer      user_data)
{
  g_autoptr(GTask) task = user_data;
  RivClient *self = g_task_get_source_object (task);
  RivClientTaskData *cd = g_task_get_task_data (task);
  g_autoptr(GError) error = NULL;
  g_autoptr(GBytes) body = NULL;
  g_autoptr(RivConfig) config = NULL;
  g_autofree char *info_url = NULL;
  const char *data;
  guint status;
  gsize len = 0;

  body = soup_session_send_and_read_finish (SOUP_SESSION (object), result, &error);
  if (body == NULL)
    {
      if (cd->cancel->timed_out)
        g_task_return_new_error (task, G_IO_ERROR, G_IO_ERROR_TIMED_OUT,
                                 "Could not connect to %s: no answer within %g s",
                                 self->url, CONNECT_TIMEOUT_S);
      else if (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
        g_task_return_error (task, g_steal_pointer (&error));
      else
        {
          g_prefix_error (&error, "Could not connect to %s: ", self->url);
          g_task_return_error (task, g_steal_pointer (&error));
        }
      return;
    }

  status = soup_message_get_status (cd->msg);
  if (status != SOUP_STATUS_OK)
    {
      g_autofree char *detail = _riv_client_extract_detail (body);
      int code = (status == 401 || status == 403) ? RIV_CLIENT_ERROR_REJECTED
               : status >= 500 ? RIV_CLIENT_ERROR_SERVER
               : RIV_CLIENT_ERROR_NOT_GRADIO;

      if (detail != NULL)
        g_task_return_new_error (task, RIV_CLIENT_ERROR, code,
                                 "Could not load the server's config (HTTP %u): %s",
                                 status, detail);
      else
        g_task_return_new_error (task, RIV_CLIENT_ERROR, code,
                                 "Could not load the server's config (HTTP %u)", status);
      return;
    }

  data = g_bytes_get_data (body, &len);
  config = riv_config_new_from_data (data ? data : "", len, self->url, &error);
  if (config == NULL)
    {
      if (g_error_matches (error, RIV_CONFIG_ERROR, RIV_CONFIG_ERROR_UNSUPPORTED_PROTOCOL))
        g_task_return_new_error (task, RIV_CLIENT_ERROR, RIV_CLIENT_ERROR_UNSUPPORTED,
                                 "%s", error->message);
      else
        g_task_return_new_error (task, RIV_CLIENT_ERROR, RIV_CLIENT_ERROR_NOT_GRADIO,
                                 "The server at %s does not look like a Gradio app: %s",
                                 self->url, error->message);
      return;
    }

  cd->config = g_steal_pointer (&config);

  info_url = riv_config_build_url (cd->config, "/info");
  g_clear_object (&cd->msg);
  cd->msg = soup_message_new (SOUP_METHOD_GET, info_url);
  if (cd->msg == NULL)
    {
      g_message ("Could not load the server's API info: bad URL %s", info_url);
      _riv_client_set_config (self, cd->config);
      g_task_return_boolean (task, TRUE);
      return;
    }
  _riv_client_prepare_message (self, cd->msg);
  soup_session_send_and_read_async (self->session, cd->msg, self->io_priority,
                                    cd->cancel->cancellable, connect_info_cb,
                                    g_steal_pointer (&task));
}

void
riv_client_connect_async (RivClient           *self,
                          GCancellable        *cancellable,
                          GAsyncReadyCallback  callback,
                          gpointer             user_data)
{
  g_autoptr(GTask) task = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *normalized = NULL;
  g_autofree char *config_url = NULL;
  RivClientTaskData *cd;

  g_return_if_fail (RIV_IS_CLIENT (self));

  task = g_task_new (self, cancellable, callback, user_data);
  g_task_set_source_tag (task, riv_client_connect_async);

  if (self->closed)
    {
      g_task_return_new_error (task, RIV_CLIENT_ERROR, RIV_CLIENT_ERROR_NOT_CONNECTED,
                               "The client was closed");
      return;
    }

  normalized = riv_client_normalize_url (self->url, &error);
  if (normalized == NULL)
    {
      g_task_return_error (task, g_steal_pointer (&error));
      return;
    }

  config_url = g_strconcat (normalized, "/config", NULL);
  cd = g_new0 (RivClientTaskData, 1);
  cd->msg = soup_message_new (SOUP_METHOD_GET, config_url);
  cd->cancel = _riv_client_op_cancel_new (self, cancellable, CONNECT_TIMEOUT_S);
  g_task_set_task_data (task, cd, (GDestroyNotify) _riv_client_task_data_free);

  if (cd->msg == NULL)
    {
      g_task_return_new_error (task, RIV_CLIENT_ERROR, RIV_CLIENT_ERROR_BAD_URL,
                               "\"%s\" is not a valid URL", config_url);
      return;
    }
  _riv_client_prepare_message (self, cd->msg);

  soup_session_send_and_read_async (self->session, cd->msg, self->io_priority,
                                    cd->cancel->cancellable, connect_config_cb,
                                    g_steal_pointer (&task));
}

gboolean
riv_client_connect_finish (RivClient     *self,
                           GAsyncResult  *result,
                           GError       **error)
{
  g_return_val_if_fail (g_task_is_valid (result, self), FALSE);
  return g_task_propagate_boolean (G_TASK (result), error);
}
