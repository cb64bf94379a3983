/* riv-listen.c
 * Copyright 2026 The Rivulet authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "config.h"

#include <arpa/inet.h>

#include "riv-listen.h"

GSocket *
riv_listen_socket (GSocketAddress  *address,
                   int              backlog,
                   guint           *port,
                   GError         **error)
{
  g_autoptr(GSocket) socket = NULL;
  g_autoptr(GSocketAddress) local = NULL;

  socket = g_socket_new (g_socket_address_get_family (address), G_SOCKET_TYPE_STREAM,
                         G_SOCKET_PROTOCOL_DEFAULT, error);
  if (socket == NULL)
    return NULL;
  if (backlog > 0)
    g_socket_set_listen_backlog (socket, backlog);
  if (!g_socket_bind (socket, address, TRUE, error) || !g_socket_listen (socket, error))
    return NULL;
  local = g_socket_get_local_address (socket, error);
  if (local == NULL)
    return NULL;
  *port = g_inet_socket_address_get_port (G_INET_SOCKET_ADDRESS (local));
  return g_steal_pointer (&socket);
}

gboolean
riv_host_is_loopback (const char *host)
{
  g_autoptr(GInetAddress) address = NULL;
  struct in_addr ipv4;

  if (host == NULL)
    return FALSE;
  if (g_ascii_strcasecmp (host, "localhost") == 0)
    return TRUE;
  /* A dotted IPv4 address (every request of a run asks): read without an
   * object, as GLib reads it. */
  if (inet_pton (AF_INET, host, &ipv4) == 1)
    return ((const guint8 *) &ipv4)[0] == 127;
  address = g_inet_address_new_from_string (host);
  return address != NULL && g_inet_address_get_is_loopback (address);
}

gboolean
riv_url_is_loopback (const char *url)
{
  g_autoptr(GUri) uri = url != NULL ? g_uri_parse (url, G_URI_FLAGS_NONE, NULL) : NULL;

  return uri != NULL && riv_host_is_loopback (g_uri_get_host (uri));
}
