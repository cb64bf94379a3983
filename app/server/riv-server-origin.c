/* riv-server-origin.c
 * Copyright 2026 The Rivulet authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Who may talk to the server from a browser. A web page the user opens can
 * send requests to a local server: with its own Origin, or, through DNS
 * rebinding, under a host name of its own that resolves to 127.0.0.1. So a
 * request is served only when
 *  - its Host names the server: a loopback address or a localhost name, the
 *    address it listens on (any IP address when that is a wildcard), or a
 *    name given with "allow-hosts" (a proxy's, e.g. nginx's
 *    `proxy_set_header Host $host`); and
 *  - it has no Origin, or a loopback one (http(s) on 127.x, [::1], localhost,
 *    any port), or one given with "allow-origins".
 * Only allowed origins get CORS headers. Non-browser clients (Rivulet's,
 * @gradio/client on Node, gradio_client) send no Origin.
 */
#include "config.h"

#include <string.h>

#include "riv-server-private.h"

/* "*" matches anything; a trailing "/" on either side is ignored. */
static gboolean
in_list (char       **list,
         const char  *value)
{
  gsize len = strlen (value);

  while (len > 0 && value[len - 1] == '/')
    len--;
  for (guint i = 0; list != NULL && list[i] != NULL; i++)
    {
      gsize item_len = strlen (list[i]);

      while (item_len > 0 && list[i][item_len - 1] == '/')
        item_len--;
      if (g_str_equal (list[i], "*") ||
          (item_len == len && g_ascii_strncasecmp (list[i], value, len) == 0))
        return TRUE;
    }
  return FALSE;
}

/* host: a name or an address without brackets or port. */
static gboolean
is_local_name (const char *host)
{
  g_autoptr(GInetAddress) address = g_inet_address_new_from_string (host);

  if (address != NULL)
    return g_inet_address_get_is_loopback (address);
  return g_ascii_strcasecmp (host, "localhost") == 0 ||
         (strlen (host) > 10 && g_ascii_strcasecmp (host + strlen (host) - 10, ".localhost") == 0);
}

static gboolean
origin_allowed (RivServer  *self,
                const char *origin)
{
  g_autoptr(GUri) uri = NULL;
  const char *scheme;

  if (in_list (self->allow_origins, origin))
    return TRUE;
  uri = g_uri_parse (origin, G_URI_FLAGS_NONE, NULL);
  if (uri == NULL || g_uri_get_host (uri) == NULL || g_uri_get_userinfo (uri) != NULL ||
      g_uri_get_query (uri) != NULL || *g_uri_get_path (uri) != '\0')
    return FALSE;
  scheme = g_uri_get_scheme (uri);
  return (g_ascii_strcasecmp (scheme, "http") == 0 || g_ascii_strcasecmp (scheme, "https") == 0) &&
         is_local_name (g_uri_get_host (uri));
}

static gboolean
host_allowed (RivServer  *self,
              const char *host)
{
  g_autoptr(GInetAddress) listening = NULL;

  if (host == NULL || is_local_name (host) || in_list (self->allow_hosts, host))
    return TRUE;
  if (self->host == NULL)
    return FALSE;
  if (g_ascii_strcasecmp (host, self->host) == 0)
    return TRUE;
  listening = g_inet_address_new_from_string (self->host);
  return listening != NULL && g_inet_address_get_is_any (listening) &&
         g_hostname_is_ip_address (host);
}

/* NULL when msg may be served (an allowed Origin is then kept for
 * _riv_server_add_cors_headers()), else why not, for a 403. */
char *
_riv_server_check_origin_and_host (RivServer         *self,
                                   SoupServerMessage *msg)
{
  SoupMessageHeaders *headers = soup_server_message_get_request_headers (msg);
  const char *origin = soup_message_headers_get_one (headers, "Origin");
  const char *host = g_uri_get_host (soup_server_message_get_uri (msg));

  if (!host_allowed (self, host))
    return g_strdup_printf ("Host not allowed: %s. This server answers its own addresses and "
                            "localhost; behind a proxy that sends another Host, start it with "
                            "--allow-host %s.", host, host);
  if (origin == NULL)
    return NULL;
  if (!origin_allowed (self, origin))
    return g_strdup_printf ("Origin not allowed: %s. Pages from other origins may not use this "
                            "server unless it is started with --allow-origin %s.", origin, origin);
  g_object_set_data_full (G_OBJECT (msg), "riv-cors-origin", g_strdup (origin), g_free);
  return NULL;
}
