/* riv-embedded-server.h
 * Copyright 2026 The Rivulet authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Runs the embedded demo server (RivServer) on a thread of its own with its
 * own GMainContext, so that serving hundreds of jobs never competes with
 * drawing. The UI talks to it over loopback HTTP like to any other server.
 * The same thread can serve a recording (riv-replay.h) instead.
 */
#pragma once

#include <gio/gio.h>

G_BEGIN_DECLS

#define RIV_TYPE_EMBEDDED_SERVER (riv_embedded_server_get_type ())
G_DECLARE_FINAL_TYPE (RivEmbeddedServer, riv_embedded_server, RIV, EMBEDDED_SERVER, GObject)

RivEmbeddedServer *riv_embedded_server_new          (void);
/* Serves a recorded session (riv-replay.h; events: RivTapEvent *, a
 * reference is kept) instead of the demo server, at its recorded pace. */
RivEmbeddedServer *riv_embedded_server_new_replay   (GPtrArray *events);
/* Jobs each endpoint runs at once (0: the server's default); before starting. */
void               riv_embedded_server_set_concurrency (RivEmbeddedServer *self,
                                                        guint              concurrency);
/* Starts the server thread once (later calls wait for the same start) and
 * returns the server's URL. */
void               riv_embedded_server_start_async  (RivEmbeddedServer    *self,
                                                     GCancellable         *cancellable,
                                                     GAsyncReadyCallback   callback,
                                                     gpointer              user_data);
char              *riv_embedded_server_start_finish (RivEmbeddedServer    *self,
                                                     GAsyncResult         *result,
                                                     GError              **error);
/* NULL until the server listens. */
const char        *riv_embedded_server_get_url      (RivEmbeddedServer    *self);
gboolean           riv_embedded_server_is_url       (RivEmbeddedServer    *self,
                                                     const char           *url);
/* Shuts the server down on its own context and joins the thread. Idempotent. */
void               riv_embedded_server_stop         (RivEmbeddedServer    *self);

G_END_DECLS
