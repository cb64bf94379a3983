/* riv-test-auth-server.c
 * Copyright 2026 The Rivulet authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "config.h"

#include <string.h>

#include "riv-test-auth-server.h"
#include "riv-test-util.h"

static const char *
prefix (AuthServer *as)
{
  return as->gradio4 ? "" : "/gradio_api";
}

static gboolean
logged_in (AuthServer        *as,
           SoupServerMessage *msg)
{
  SoupMessageHeaders *headers = soup_server_message_get_request_headers (msg);
  const char *cookie = soup_message_headers_get_one (headers, "Cookie");

  if (as->no_auth)
    return TRUE;
  /* Over plain http the Secure cookie must not be what gets us in. */
  return cookie != NULL && strstr (cookie, "access-token-unsecure-c00k1e=" TOKEN) != NULL;
}

static void
refuse (AuthServer        *as,
        SoupServerMessage *msg)
{
  riv_test_reply (msg, 401, "application/json",
                  as->gradio4 ? "{\"detail\":\"Not authenticated\"}"
                              : "{\"detail\":{\"error\":\"Not authenticated\",\"auth_message\":null}}");
}

static void
handle_login (AuthServer        *as,
              SoupServerMessage *msg)
{
  SoupMessageBody *request = soup_server_message_get_request_body (msg);
  g_autoptr(GBytes) bytes = soup_message_body_flatten (request);
  g_autofree char *form_text = g_strndup (g_bytes_get_data (bytes, NULL), g_bytes_get_size (bytes));
  g_autoptr(GHashTable) form = NULL;
  SoupMessageHeaders *headers;

  as->n_logins++;
  if (as->no_auth)
    {
      /* Gradio redirects a login when the app has no auth=. */
      soup_server_message_set_redirect (msg, 302, "/");
      return;
    }

  g_assert_cmpstr (soup_server_message_get_method (msg), ==, "POST");
  form = soup_form_decode (form_text);
  if (g_strcmp0 (g_hash_table_lookup (form, "username"), USER) != 0 ||
      g_strcmp0 (g_hash_table_lookup (form, "password"), PASSWORD) != 0)
    {
      riv_test_reply (msg, 400, "application/json", "{\"detail\":\"Incorrect credentials.\"}");
      return;
    }

  headers = soup_server_message_get_response_headers (msg);
  soup_message_headers_append (headers, "Set-Cookie",
                               "access-token-c00k1e=" TOKEN "; HttpOnly; Path=/; SameSite=none; Secure");
  soup_message_headers_append (headers, "Set-Cookie",
                               "access-token-unsecure-c00k1e=" TOKEN "; HttpOnly; Path=/");
  riv_test_reply (msg, 200, "application/json", "{\"success\":true}");
}

static void
handle_config (AuthServer        *as,
               SoupServerMessage *msg)
{
  g_autofree char *config = NULL;
  g_autofree char *root = NULL;

  if (!logged_in (as, msg))
    {
      as->n_config_401++;
      refuse (as, msg);
      return;
    }

  root = as->root != NULL ? g_strdup_printf ("\"root\":\"%s\",", as->root) : g_strdup ("");
  config = g_strdup_printf ("{\"version\":\"%s\",\"protocol\":\"sse_v3\",%s%s"
                            "\"enable_queue\":true,\"components\":["
                            "{\"id\":1,\"type\":\"textbox\",\"props\":{\"label\":\"in\"}},"
                            "{\"id\":2,\"type\":\"textbox\",\"props\":{\"label\":\"out\"}}],"
                            "\"dependencies\":[{\"id\":0,\"api_name\":\"predict\","
                            "\"inputs\":[1],\"outputs\":[2],\"queue\":true}]}",
                            as->gradio4 ? "4.44.1" : "6.25.0",
                            as->gradio4 ? "" : "\"api_prefix\":\"/gradio_api\",", root);
  riv_test_reply (msg, 200, "application/json", config);
}

static void
handler (SoupServer        *server,
         SoupServerMessage *msg,
         const char        *path,
         GHashTable        *query,
         gpointer           user_data)
{
  AuthServer *as = user_data;
  g_autofree char *join = g_strconcat (prefix (as), "/queue/join", NULL);
  g_autofree char *data = g_strconcat (prefix (as), "/queue/data", NULL);
  g_autofree char *info = g_strconcat (prefix (as), "/info", NULL);

  SoupMessageHeaders *headers = soup_server_message_get_request_headers (msg);
  const char *hf = soup_message_headers_get_one (headers, "x-hf-authorization");

  as->n_requests++;
  if (g_strcmp0 (soup_message_headers_get_one (headers, "Authorization"), "Bearer " TOKEN) == 0)
    as->n_bearer++;
  if (as->hf_token != NULL && hf != NULL && g_str_has_prefix (hf, "Bearer ") &&
      g_str_equal (hf + strlen ("Bearer "), as->hf_token))
    as->n_hf_bearer++;
  if (g_str_equal (path, "/login"))
    handle_login (as, msg);
  else if (g_str_equal (path, "/config"))
    handle_config (as, msg);
  else if (!logged_in (as, msg))
    refuse (as, msg);
  else if (g_str_equal (path, info))
    riv_test_reply (msg, 200, "application/json", "{\"named_endpoints\":{},\"unnamed_endpoints\":{}}");
  else if (g_str_equal (path, join))
    {
      as->n_joins++;
      if (soup_message_headers_header_contains (soup_server_message_get_request_headers (msg),
                                                "Connection", "close"))
        as->n_join_close++;
      riv_test_reply (msg, 200, "application/json", "{\"event_id\":\"e1\"}");
    }
  else if (g_str_equal (path, data) && as->fail_texts != NULL)
    {
      const char *text = as->fail_texts[as->n_streams++ % g_strv_length ((char **) as->fail_texts)];
      g_autofree char *quoted = g_strescape (text, NULL);
      g_autofree char *body = g_strdup_printf (
        "data: {\"msg\":\"process_starts\",\"event_id\":\"e1\"}\n\n"
        "data: {\"msg\":\"process_completed\",\"event_id\":\"e1\",\"output\":{\"error\":"
        "\"%s\",\"title\":\"ZeroGPU quota exceeded\"},\"success\":false,\"title\":"
        "\"ZeroGPU quota exceeded\"}\n\n"
        "data: {\"msg\":\"close_stream\",\"event_id\":null}\n\n", quoted);

      riv_test_reply (msg, 200, "text/event-stream", body);
    }
  else if (g_str_equal (path, data))
    {
      as->n_streams++;
      riv_test_reply (msg, 200, "text/event-stream",
                      "data: {\"msg\":\"process_starts\",\"event_id\":\"e1\"}\n\n"
                      "data: {\"msg\":\"process_completed\",\"event_id\":\"e1\","
                      "\"output\":{\"data\":[\"hello\"]},\"success\":true}\n\n"
                      "data: {\"msg\":\"close_stream\",\"event_id\":null}\n\n");
    }
  else
    riv_test_reply (msg, 404, "application/json", "{\"detail\":\"Not Found\"}");
}

void
auth_server_start (AuthServer *as)
{
  g_autoptr(GError) error = NULL;
  GSList *uris;

  as->server = soup_server_new (NULL, NULL);
  soup_server_add_handler (as->server, NULL, handler, as, NULL);
  soup_server_listen_local (as->server, 0, SOUP_SERVER_LISTEN_IPV4_ONLY, &error);
  g_assert_no_error (error);
  uris = soup_server_get_uris (as->server);
  as->url = g_strdup_printf ("http://127.0.0.1:%d", g_uri_get_port (uris->data));
  g_slist_free_full (uris, (GDestroyNotify) g_uri_unref);
}

void
auth_server_stop (AuthServer *as)
{
  soup_server_disconnect (as->server);
  riv_test_drain ();
  g_clear_object (&as->server);
  g_clear_pointer (&as->url, g_free);
}

