/* riv-connection.h
 * Copyright 2026 The Rivulet authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * RivConnection: the one server a window (or any other owner) is connected
 * to, and the attempt under way to replace it. It holds the connected
 * RivClient with its URL, token, config and callable endpoints, the client
 * being connected, a Hugging Face Space asked for by name (resolved at the
 * Hub first, riv-space.h, its token then sent to its app), and whether the
 * server is the embedded demo server: the owner that starts that server
 * gives its URL (riv_connection_set_embedded_url ()), as this layer does not
 * know the server. A newer attempt drops the one under way; a client that
 * connected replaces the old one, which is closed.
 */
#pragma once

#include <gio/gio.h>

#include "riv-client.h"
#include "riv-config.h"

G_BEGIN_DECLS

typedef enum
{
  RIV_CONNECTION_STATE_IDLE,        /* nothing being connected (a client may be) */
  RIV_CONNECTION_STATE_RESOLVING,   /* asking the Hub where a Space's app is */
  RIV_CONNECTION_STATE_CONNECTING,  /* a new client fetching /config */
} RivConnectionState;

#define RIV_TYPE_CONNECTION (riv_connection_get_type ())
G_DECLARE_FINAL_TYPE (RivConnection, riv_connection, RIV, CONNECTION, GObject)

/* Properties (read-only, notified): "state" (RivConnectionState), "client"
 * (the connected RivClient, nullable), "pending-url" (what is being
 * connected to, nullable; kept after a client's connect failed).
 *
 * Signals:
 * "prepare-client" (RivClient *client): a new client before it connects, for
 *   the owner's settings (TLS, a login, a tap);
 * "connected" (RivClient *client): it connected and is now "client" (the
 *   previous client is closed after this signal);
 * "failed" (GError *error): the attempt failed (a bad address, a Space that
 *   cannot be reached, or the server's refusal); never for an attempt a
 *   newer one or riv_connection_cancel () dropped;
 * "space-progress" (const char *stage, const char *message): what the Space
 *   being resolved does meanwhile, in plain words. */

RivConnection     *riv_connection_new                (void);
/* The embedded server's URL (nullable): a connection to it is "embedded". */
void               riv_connection_set_embedded_url   (RivConnection *self,
                                                      const char    *url);
/* Whether text (as typed) names a Space rather than a server (HF_ENDPOINT's Hub). */
gboolean           riv_connection_is_space_name      (const char    *text);
/* Connects to text: a server's URL, or a Space's name (owner/space, or its
 * page at the Hub), token then being the Hugging Face token (NULL: HF_TOKEN
 * or the Hub's token file); for a server, token (nullable) is its bearer
 * token. Drops the attempt under way, if any. */
void               riv_connection_connect            (RivConnection *self,
                                                      const char    *text,
                                                      const char    *token);
/* The server at url again with the same token and Space (after a login
 * was given: see "failed"); embedded as it was. */
void               riv_connection_retry              (RivConnection *self,
                                                      const char    *url,
                                                      gboolean       embedded);
/* Drops the attempt under way (the connected client stays). */
void               riv_connection_cancel             (RivConnection *self);
/* Drops the attempt and closes the connected client. */
void               riv_connection_close              (RivConnection *self);

RivConnectionState riv_connection_get_state          (RivConnection *self);
/* The connected client and what it was connected with (all nullable). */
RivClient         *riv_connection_get_client         (RivConnection *self);
const char        *riv_connection_get_url            (RivConnection *self);
const char        *riv_connection_get_token          (RivConnection *self);
gboolean           riv_connection_get_embedded       (RivConnection *self);
/* The Space (owner/space) the client's server is, and its token, or NULL. */
const char        *riv_connection_get_space_id       (RivConnection *self);
const char        *riv_connection_get_hf_token       (RivConnection *self);
RivConfig         *riv_connection_get_config         (RivConnection *self);
/* The endpoints one can call (public ones and gr.render's), borrowed from
 * the config; empty when not connected. */
GPtrArray         *riv_connection_get_endpoints      (RivConnection *self);
/* The attempt under way, or the last that failed (all nullable). */
RivClient         *riv_connection_get_pending_client (RivConnection *self);
const char        *riv_connection_get_pending_url    (RivConnection *self);
const char        *riv_connection_get_pending_space_id (RivConnection *self);
gboolean           riv_connection_get_pending_embedded (RivConnection *self);
/* The last attempt's error; NULL once another starts or one connects. */
const GError      *riv_connection_get_error          (RivConnection *self);

G_END_DECLS
