/* riv-connect-popover.h
 * Copyright 2026 The Rivulet authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Where the user types a server URL (an optional access token, CA file for
 * HTTPS, or no certificate check at all), picks a
 * recent server or the embedded demo server, and sees why a connection failed.
 */
#pragma once

#include <gtk/gtk.h>

#include "riv-format.h"

G_BEGIN_DECLS

#define RIV_TYPE_CONNECT_POPOVER (riv_connect_popover_get_type ())
G_DECLARE_FINAL_TYPE (RivConnectPopover, riv_connect_popover, RIV, CONNECT_POPOVER, GtkPopover)

/* Signals: "connect" (const char *url, const char *token) — url NULL means the
 * embedded demo server; token is NULL when empty. */

GtkWidget           *riv_connect_popover_new             (void);
void                 riv_connect_popover_set_recent      (RivConnectPopover   *self,
                                                          const char * const  *urls);
void                 riv_connect_popover_set_url         (RivConnectPopover   *self,
                                                          const char          *url);
const char          *riv_connect_popover_get_url         (RivConnectPopover   *self);
/* Shows a connection attempt in progress (or ends it). */
void                 riv_connect_popover_set_busy        (RivConnectPopover   *self,
                                                          const char          *url);
/* The same with its own line (what a Space is doing), and the line shown. */
void                 riv_connect_popover_set_busy_text   (RivConnectPopover   *self,
                                                          const char          *text);
const char          *riv_connect_popover_get_busy_text   (RivConnectPopover   *self);
/* kind NONE clears the error. */
void                 riv_connect_popover_set_error       (RivConnectPopover   *self,
                                                          RivConnectErrorKind  kind,
                                                          const char          *message);
RivConnectErrorKind  riv_connect_popover_get_error_kind  (RivConnectPopover   *self);
const char          *riv_connect_popover_get_error_text  (RivConnectPopover   *self);
/* Emits "connect" with what is typed in (after reading the CA file, when one
 * is given; a CA file that cannot be used is shown as the error instead). */
void                 riv_connect_popover_activate        (RivConnectPopover   *self);
/* HTTPS trust for the connections it starts: the CA file's authorities
 * (NULL: the system's), and whether the user skips the check. */
void                 riv_connect_popover_set_ca_file     (RivConnectPopover   *self,
                                                          const char          *path);
GTlsDatabase        *riv_connect_popover_get_tls_database (RivConnectPopover  *self);
gboolean             riv_connect_popover_get_insecure    (RivConnectPopover   *self);

G_END_DECLS
