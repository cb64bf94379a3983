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
#include "riv-json.h"
#include "riv-text.h"

#define CONNECT_TIMEOUT_S     30.0

static double
connect_timeout (RivClient *self)
{
  return self->request_timeout > 0 ? self->request_timeout : CONNECT_TIMEOUT_S;
}

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
  g_autofree char *shown = NULL;   /* trimmed, without a password: what errors say */
  gboolean has_scheme;
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

  has_scheme = strstr (trimmed, "://") != NULL;
  with_scheme = has_scheme ? g_strdup (trimmed) : g_strconcat ("http://", trimmed, NULL);
  /* The redaction keeps what comes before "://": the prefix added goes again. */
  shown = riv_text_redact_urls (with_scheme);
  if (!has_scheme)
    memmove (shown, shown + strlen ("http://"), strlen (shown + strlen ("http://")) + 1);
  for (const char *p = trimmed; *p; p++)
    if (g_ascii_isspace (*p))
      {
        g_set_error (error, RIV_CLIENT_ERROR, RIV_CLIENT_ERROR_BAD_URL,
                     "The server URL \"%s\" contains spaces", shown);
        return NULL;
      }

  uri = g_uri_parse (with_scheme, G_URI_FLAGS_NONE, &local_error);
  if (uri == NULL)
    {
      g_autofree char *why = riv_text_redact_urls (local_error->message);

      g_set_error (error, RIV_CLIENT_ERROR, RIV_CLIENT_ERROR_BAD_URL,
                   "\"%s\" is not a valid URL: %s", shown, why);
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
                   "The URL \"%s\" has no host", shown);
      return NULL;
    }

  if (g_uri_get_fragment (uri) != NULL)
    {
      g_set_error (error, RIV_CLIENT_ERROR, RIV_CLIENT_ERROR_BAD_URL,
                   "The URL \"%s\" has a fragment (#…); give the app's base URL", shown);
      return NULL;
    }

  if (g_uri_get_userinfo (uri) != NULL)
    {
      g_set_error (error, RIV_CLIENT_ERROR, RIV_CLIENT_ERROR_BAD_URL,
                   "The URL \"%s\" contains credentials; use a token instead", shown);
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

  body = _riv_client_read_reply (self, cd->msg, result, &error);

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
  else
    {
      gsize len = 0;
      const char *data = g_bytes_get_data (body, &len);
      g_autoptr(JsonNode) info = riv_json_parse (NULL, data ? data : "", len, 64, NULL);

      riv_config_set_api_info (cd->config, info);
    }

  _riv_client_set_config (self, cd->config);
  g_task_return_boolean (task, TRUE);
}

/* A request of the connect got no reply: timed out, cancelled, or failed. Takes error. */
static void
connect_return_io_error (GTask      *task,
                         GError     *error,
                         const char *what)
{
  RivClient *self = g_task_get_source_object (task);
  RivClientTaskData *cd = g_task_get_task_data (task);

  if (cd->cancel->timed_out)
    {
      g_task_return_new_error (task, G_IO_ERROR, G_IO_ERROR_TIMED_OUT,
                               "Could not %s %s: no answer within %g s",
                               what, self->access.url, connect_timeout (self));
      g_error_free (error);
    }
  else if (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
    g_task_return_error (task, error);
  else
    {
      _riv_client_tls_explain_error (self, cd->msg, &error);
      g_prefix_error (&error, "Could not %s %s: ", what, self->access.url);
      g_task_return_error (task, error);
    }
}

static void connect_config_cb (GObject      *object,
                               GAsyncResult *result,
                               gpointer      user_data);

/* GET /config, the first thing a connect does (and again after a login). */
static void
connect_send_config (RivClient *self,
                     GTask     *task)
{
  RivClientTaskData *cd = g_task_get_task_data (task);
  g_autofree char *config_url = g_strconcat (self->access.url, "/config", NULL);

  g_clear_object (&cd->msg);
  cd->msg = soup_message_new (SOUP_METHOD_GET, config_url);
  if (cd->msg == NULL)
    {
      g_task_return_new_error (task, RIV_CLIENT_ERROR, RIV_CLIENT_ERROR_BAD_URL,
                               "\"%s\" is not a valid URL", config_url);
      g_object_unref (task);
      return;
    }
  _riv_client_send (self, cd->msg, NULL, RIV_CLIENT_MAX_DOCUMENT_BYTES, RIV_CLIENT_SEND_DEFAULT,
                    cd->cancel->cancellable, connect_config_cb, task);
}

/* Gradio's login (the same route in 4.x, 5.x and 6.x, at the app's root,
 * not under its API prefix): a form with username and password; 200 with
 * session cookies when right, 400 "Incorrect credentials." when wrong. */
static void
connect_login_cb (GObject      *object,
                  GAsyncResult *result,
                  gpointer      user_data)
{
  g_autoptr(GTask) task = user_data;
  RivClient *self = g_task_get_source_object (task);
  RivClientTaskData *cd = g_task_get_task_data (task);
  g_autoptr(GError) error = NULL;
  g_autoptr(GBytes) body = NULL;
  g_autofree char *detail = NULL;
  GSList *cookies;
  guint status;

  body = _riv_client_read_reply (self, cd->msg, result, &error);
  if (body == NULL)
    {
      connect_return_io_error (task, g_steal_pointer (&error), "log in to");
      return;
    }

  status = soup_message_get_status (cd->msg);
  detail = _riv_client_extract_detail (body);

  if (status == SOUP_STATUS_OK)
    {
      cookies = soup_cookies_from_response (cd->msg);
      if (cookies == NULL)
        {
          g_task_return_new_error (task, RIV_CLIENT_ERROR, RIV_CLIENT_ERROR_AUTH_FAILED,
                                   "The server at %s accepted the login but sent no "
                                   "session cookie", self->access.url);
          return;
        }
      g_free (self->access.auth_cookie);
      self->access.auth_cookie = soup_cookies_to_cookie_header (cookies);
      soup_cookies_free (cookies);
      connect_send_config (self, g_steal_pointer (&task));
      return;
    }

  if (status == SOUP_STATUS_BAD_REQUEST || status == SOUP_STATUS_UNAUTHORIZED ||
      status == SOUP_STATUS_FORBIDDEN)
    g_task_return_new_error (task, RIV_CLIENT_ERROR, RIV_CLIENT_ERROR_AUTH_FAILED,
                             "The server at %s did not accept the user name and password%s%s",
                             self->access.url, detail ? ": " : "", detail ? detail : "");
  else if (SOUP_STATUS_IS_REDIRECTION (status) || status == SOUP_STATUS_NOT_FOUND ||
           status == SOUP_STATUS_METHOD_NOT_ALLOWED)
    /* Gradio redirects a login when the app has no password list: it asks
     * for another kind of login (OAuth, a custom dependency). */
    g_task_return_new_error (task, RIV_CLIENT_ERROR, RIV_CLIENT_ERROR_AUTH_FAILED,
                             "The server at %s asks for a login but has no user name and "
                             "password login (HTTP %u)", self->access.url, status);
  else
    g_task_return_new_error (task, RIV_CLIENT_ERROR,
                             status >= 500 ? RIV_CLIENT_ERROR_SERVER : RIV_CLIENT_ERROR_PROTOCOL,
                             "Could not log in to %s (HTTP %u)%s%s", self->access.url, status,
                             detail ? ": " : "", detail ? detail : "");
}

static void
connect_login (RivClient *self,
               GTask     *task)
{
  RivClientTaskData *cd = g_task_get_task_data (task);
  g_autofree char *login_url = g_strconcat (self->access.url, "/login", NULL);
  char *form = soup_form_encode ("username", self->access.auth_user,
                                 "password", self->access.auth_password,
                                 NULL);

  cd->logged_in = TRUE;
  g_clear_object (&cd->msg);
  cd->msg = soup_message_new_from_encoded_form (SOUP_METHOD_POST, login_url, form);
  if (cd->msg == NULL)
    {
      g_task_return_new_error (task, RIV_CLIENT_ERROR, RIV_CLIENT_ERROR_BAD_URL,
                               "\"%s\" is not a valid URL", login_url);
      g_object_unref (task);
      return;
    }
  /* A redirect means "no password login here": look at it, don't follow it. */
  soup_message_add_flags (cd->msg, SOUP_MESSAGE_NO_REDIRECT);
  _riv_client_send (self, cd->msg, NULL, RIV_CLIENT_MAX_ANSWER_BYTES, RIV_CLIENT_SEND_DEFAULT,
                    cd->cancel->cancellable, connect_login_cb, task);
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

  body = _riv_client_read_reply (self, cd->msg, result, &error);
  if (body == NULL)
    {
      connect_return_io_error (task, g_steal_pointer (&error), "connect to");
      return;
    }

  status = soup_message_get_status (cd->msg);
  if (status == SOUP_STATUS_UNAUTHORIZED && self->access.auth_user != NULL && !cd->logged_in)
    {
      connect_login (self, g_steal_pointer (&task));
      return;
    }
  if (status == SOUP_STATUS_UNAUTHORIZED)
    {
      g_autofree char *detail = _riv_client_extract_detail (body);

      if (cd->logged_in)
        g_task_return_new_error (task, RIV_CLIENT_ERROR, RIV_CLIENT_ERROR_AUTH_FAILED,
                                 "The server at %s accepted the login but still refuses "
                                 "access (HTTP 401%s%s)", self->access.url,
                                 detail ? ": " : "", detail ? detail : "");
      else
        g_task_return_new_error (task, RIV_CLIENT_ERROR, RIV_CLIENT_ERROR_AUTH_REQUIRED,
                                 "The server at %s asks for a login (user name and "
                                 "password)%s%s", self->access.url,
                                 detail ? ": " : "", detail ? detail : "");
      return;
    }
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
  config = riv_config_new_from_data (data ? data : "", len, self->access.url, &error);
  if (config == NULL)
    {
      if (g_error_matches (error, RIV_CONFIG_ERROR, RIV_CONFIG_ERROR_UNSUPPORTED_PROTOCOL))
        g_task_return_new_error (task, RIV_CLIENT_ERROR, RIV_CLIENT_ERROR_UNSUPPORTED,
                                 "%s", error->message);
      else
        g_task_return_new_error (task, RIV_CLIENT_ERROR, RIV_CLIENT_ERROR_NOT_GRADIO,
                                 "The server at %s does not look like a Gradio app: %s",
                                 self->access.url, error->message);
      return;
    }

  if (!self->access.follow_root && riv_config_resolve_root (config, self->access.url))
    g_debug ("The server's root is %s: using %s",
             riv_config_get_reported_root (config), riv_config_get_root (config));
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
  _riv_client_send (self, cd->msg, NULL, RIV_CLIENT_MAX_DOCUMENT_BYTES, RIV_CLIENT_SEND_DEFAULT,
                    cd->cancel->cancellable, connect_info_cb, g_steal_pointer (&task));
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

  normalized = riv_client_normalize_url (self->access.url, &error);
  if (normalized == NULL)
    {
      g_task_return_error (task, g_steal_pointer (&error));
      return;
    }

  cd = g_new0 (RivClientTaskData, 1);
  cd->cancel = _riv_client_op_cancel_new (self, cancellable, connect_timeout (self));
  g_task_set_task_data (task, cd, (GDestroyNotify) _riv_client_task_data_free);

  /* The URL was normalised when the client was made (it is valid now). */
  connect_send_config (self, g_steal_pointer (&task));
}

gboolean
riv_client_connect_finish (RivClient     *self,
                           GAsyncResult  *result,
                           GError       **error)
{
  g_return_val_if_fail (g_task_is_valid (result, self), FALSE);
  return g_task_propagate_boolean (G_TASK (result), error);
}

/* The server's per-event timings (Gradio 6.10+ with GRADIO_PROFILING=1) ------------------- */

#define TRACES_TIMEOUT_S 60.0
#define TRACES_MAX_DEPTH 8

static void
traces_cb (GObject      *object,
           GAsyncResult *result,
           gpointer      user_data)
{
  g_autoptr(GTask) task = user_data;
  RivClient *self = g_task_get_source_object (task);
  RivClientTaskData *cd = g_task_get_task_data (task);
  g_autoptr(GError) error = NULL;
  g_autoptr(GBytes) body = NULL;
  g_autoptr(JsonNode) root = NULL;
  const char *data;
  guint status;
  gsize len = 0;

  body = _riv_client_read_reply (self, cd->msg, result, &error);
  if (body == NULL)
    {
      g_task_return_error (task, g_steal_pointer (&error));
      return;
    }

  status = soup_message_get_status (cd->msg);
  if (status == SOUP_STATUS_NOT_FOUND || status == SOUP_STATUS_METHOD_NOT_ALLOWED)
    {
      g_task_return_new_error (task, G_IO_ERROR, G_IO_ERROR_NOT_SUPPORTED,
                               "The server offers no profiling (Gradio 6.10 or later, "
                               "started with GRADIO_PROFILING=1)");
      return;
    }
  if (!SOUP_STATUS_IS_SUCCESSFUL (status))
    {
      g_task_return_new_error (task, RIV_CLIENT_ERROR,
                               status >= 500 ? RIV_CLIENT_ERROR_SERVER : RIV_CLIENT_ERROR_REJECTED,
                               "The server's profiling traces: HTTP %u", status);
      return;
    }

  data = g_bytes_get_data (body, &len);
  root = riv_json_parse (NULL, data ? data : "", len, TRACES_MAX_DEPTH, &error);
  if (root == NULL || !JSON_NODE_HOLDS_ARRAY (root))
    {
      g_task_return_new_error (task, RIV_CLIENT_ERROR, RIV_CLIENT_ERROR_PROTOCOL,
                               "The server's profiling traces are not a JSON list%s%s",
                               error ? ": " : "", error ? error->message : "");
      return;
    }
  g_task_return_pointer (task, g_steal_pointer (&root), (GDestroyNotify) json_node_unref);
}

void
riv_client_fetch_server_traces_async (RivClient           *self,
                                      guint                last_n,
                                      GCancellable        *cancellable,
                                      GAsyncReadyCallback  callback,
                                      gpointer             user_data)
{
  g_autoptr(GTask) task = NULL;
  g_autofree char *url = NULL;
  RivClientTaskData *cd;

  g_return_if_fail (RIV_IS_CLIENT (self));

  task = g_task_new (self, cancellable, callback, user_data);
  g_task_set_source_tag (task, riv_client_fetch_server_traces_async);
  if (self->closed || self->config == NULL)
    {
      g_task_return_new_error (task, RIV_CLIENT_ERROR, RIV_CLIENT_ERROR_NOT_CONNECTED,
                               "Not connected to a server");
      return;
    }

  if (last_n > 0)
    {
      g_autofree char *path = g_strdup_printf ("/profiling/traces?last_n=%u", last_n);

      url = riv_config_build_url (self->config, path);
    }
  else
    url = riv_config_build_url (self->config, "/profiling/traces");

  cd = g_new0 (RivClientTaskData, 1);
  cd->msg = soup_message_new (SOUP_METHOD_GET, url);
  if (cd->msg == NULL)
    {
      _riv_client_task_data_free (cd);
      g_task_return_new_error (task, RIV_CLIENT_ERROR, RIV_CLIENT_ERROR_BAD_URL,
                               "\"%s\" is not a valid URL", url);
      return;
    }
  cd->cancel = _riv_client_op_cancel_new (self, cancellable, self->request_timeout > 0
                                                              ? self->request_timeout
                                                              : TRACES_TIMEOUT_S);
  g_task_set_task_data (task, cd, (GDestroyNotify) _riv_client_task_data_free);
  _riv_client_send (self, cd->msg, NULL, RIV_CLIENT_MAX_DOCUMENT_BYTES, RIV_CLIENT_SEND_DEFAULT,
                    cd->cancel->cancellable, traces_cb, g_steal_pointer (&task));
}

JsonNode *
riv_client_fetch_server_traces_finish (RivClient     *self,
                                       GAsyncResult  *result,
                                       GError       **error)
{
  g_return_val_if_fail (g_task_is_valid (result, self), NULL);
  return g_task_propagate_pointer (G_TASK (result), error);
}
