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

G_END_DECLS
