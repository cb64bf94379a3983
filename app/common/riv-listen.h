/* riv-listen.h
 * Copyright 2026 The Rivulet authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <gio/gio.h>

G_BEGIN_DECLS

/* A TCP socket bound to address and listening with backlog (0: GSocket's
 * default), and the port it got (soup_server_get_uris() leaks the listener's
 * address in libsoup 3.2): for soup_server_listen_socket(). */
GSocket  *riv_listen_socket     (GSocketAddress  *address,
                                 int              backlog,
                                 guint           *port,
                                 GError         **error);

/* Whether host (a name or an address, IPv6 without brackets) is this
 * machine's loopback: "localhost" (any case), 127.0.0.0/8 or ::1. */
gboolean  riv_host_is_loopback  (const char      *host);

/* The same for the host of an absolute URL; FALSE for one that does not
 * parse or has no host. */
gboolean  riv_url_is_loopback   (const char      *url);

G_END_DECLS
