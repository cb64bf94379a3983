/* riv-test-hub.c
 * Copyright 2026 The Rivulet authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "config.h"

#include <string.h>

#include "riv-test-hub.h"
#include "riv-test-util.h"

static char *
info_json (const char *id,
           const char *host,
           const char *stage)
{
  g_autofree char *subdomain = g_strdelimit (g_strdup (id), "/", '-');

  return g_strdup_printf (
    "{\"_id\":\"65a1b2c3d4e5f60718293a4b\",\"id\":\"%s\",\"author\":\"%.*s\","
    "\"sha\":\"0123456789abcdef0123456789abcdef01234567\","
    "\"lastModified\":\"2026-11-30T10:00:00.000Z\",\"private\":%s,\"gated\":false,"
    "\"disabled\":false,\"host\":\"%s\",\"subdomain\":\"%s\",\"likes\":3,\"sdk\":\"gradio\","
    "\"tags\":[\"gradio\",\"region:us\"],\"runtime\":{\"stage\":\"%s\",\"hardware\":"
    "{\"current\":%s,\"requested\":\"cpu-basic\"},\"storage\":null,\"gcTimeout\":172800,"
    "\"replicas\":{\"current\":1,\"requested\":1},\"devMode\":false,\"domains\":"
    "[{\"domain\":\"%s.hf.space\",\"stage\":\"READY\"}]},\"siblings\":"
    "[{\"rfilename\":\"app.py\"}]}",
    id, (int) (strchr (id, '/') - id), id, strstr (id, "private") ? "true" : "false", host,
    subdomain, stage, g_str_equal (stage, "RUNNING") ? "\"cpu-basic\"" : "null", subdomain);
}

static char *
runtime_json (const char *stage,
              const char *error_message)
{
  g_autofree char *message = error_message != NULL
    ? g_strdup_printf (",\"errorMessage\":\"%s\"", error_message) : g_strdup ("");

  return g_strdup_printf ("{\"stage\":\"%s\",\"hardware\":{\"current\":null,\"requested\":"
                          "\"cpu-basic\"},\"storage\":null,\"gcTimeout\":172800,\"replicas\":"
                          "{\"requested\":1},\"devMode\":false,\"domains\":[]%s}",
                          stage, message);
}

static void
hub_error (SoupServerMessage *msg,
           guint              status,
           const char        *code,
           const char        *message)
{
  SoupMessageHeaders *headers = soup_server_message_get_response_headers (msg);
  g_autofree char *body = g_strdup_printf ("{\"error\":\"%s\"}", message);

  soup_message_headers_replace (headers, "X-Error-Code", code);
  soup_message_headers_replace (headers, "X-Error-Message", message);
  riv_test_reply_json (msg, status, body);
}

/* The Hub's /api/spaces/{id} and /api/spaces/{id}/runtime. */
static void
hub_handler (SoupServer        *server,
             SoupServerMessage *msg,
             const char        *path,
             GHashTable        *query,
             gpointer           user_data)
{
  RivTestHub *hub = user_data;
  SoupMessageHeaders *headers = soup_server_message_get_request_headers (msg);
  g_autofree char *id = NULL;
  g_autofree char *body = NULL;
  gboolean runtime = g_str_has_suffix (path, "/runtime");
  const char *stage = "RUNNING";
  const char *host = hub->running_host;
  const char *error_message = NULL;

  hub->n_requests++;
  if (g_strcmp0 (soup_message_headers_get_one (headers, "Authorization"),
                 "Bearer " RIV_TEST_HF_TOKEN) == 0)
    hub->n_bearer++;
  if (soup_message_headers_get_one (headers, "x-hf-authorization") != NULL)
    hub->n_hf_header++;
  if (!g_str_has_prefix (path, "/api/spaces/"))
    {
      hub_error (msg, 404, "EntryNotFound", "Not found");
      return;
    }
  id = g_strndup (path + strlen ("/api/spaces/"),
                  strlen (path) - strlen ("/api/spaces/") - (runtime ? strlen ("/runtime") : 0));

  if (g_str_equal (id, "demo/running"))
    ;
  else if (g_str_equal (id, "demo/building"))
    stage = runtime && hub->building_polls++ > 0 ? "RUNNING" : "BUILDING";
  else if (g_str_equal (id, "demo/forever-building"))
    stage = "BUILDING";
  else if (g_str_equal (id, "demo/asleep"))
    {
      /* Asleep until someone visits its app. */
      host = hub->app->url;
      stage = hub->app->n_requests > 0 && runtime ? "RUNNING" : "SLEEPING";
    }
  else if (g_str_equal (id, "demo/paused"))
    stage = "PAUSED";
  else if (g_str_equal (id, "demo/crashed"))
    {
      stage = "RUNTIME_ERROR";
      error_message = "Exit code: 1. Reason: ModuleNotFoundError: No module named 'torch'";
    }
  else if (g_str_equal (id, "demo/no-app"))
    stage = "NO_APP_FILE";
  else if (g_str_equal (id, "demo/private"))
    {
      if (g_strcmp0 (soup_message_headers_get_one (headers, "Authorization"),
                     "Bearer " RIV_TEST_HF_TOKEN) != 0)
        {
          hub_error (msg, 401, "RepoNotFound", "Repository not found");
          return;
        }
      host = hub->app->url;
    }
  else if (g_str_equal (id, "demo/zerogpu"))
    host = hub->app->url;
  else if (g_str_equal (id, "demo/not-json"))
    {
      riv_test_reply (msg, 200, "text/html", "<!DOCTYPE html><title>Hugging Face</title>");
      return;
    }
  else if (g_str_equal (id, "demo/no-host"))
    {
      riv_test_reply_json (msg, 200, "{\"id\":\"demo/no-host\",\"runtime\":{\"stage\":\"RUNNING\"}}");
      return;
    }
  else
    {
      hub_error (msg, 404, "RepoNotFound", "Repository not found");
      return;
    }
  body = runtime ? runtime_json (stage, error_message) : info_json (id, host, stage);
  riv_test_reply_json (msg, 200, body);
}

void
riv_test_hub_start (RivTestHub *hub)
{
  hub->server = riv_test_server_new (hub_handler, hub, &hub->url, NULL);
}

void
riv_test_hub_stop (RivTestHub *hub)
{
  riv_test_server_free (hub->server);
  g_clear_pointer (&hub->url, g_free);
}
