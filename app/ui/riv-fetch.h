/* riv-fetch.h
 * Copyright 2026 The Rivulet authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Downloads a file output (gallery images, files, audio) for the output
 * cards: asynchronous, on a session shared by the UI, never blocking the
 * main loop. With a client, a file on the client's own server is asked for
 * with its credentials (login cookie, token); other servers get none.
 */
#pragma once

#include <gio/gio.h>

#include "riv-client.h"

G_BEGIN_DECLS

/* Larger files are refused. */
#define RIV_FETCH_MAX_BYTES (64 * 1024 * 1024)

void    riv_fetch_bytes_async  (RivClient           *client,
                                const char          *url,
                                GCancellable        *cancellable,
                                GAsyncReadyCallback  callback,
                                gpointer             user_data);
GBytes *riv_fetch_bytes_finish (GAsyncResult        *result,
                                GError             **error);

G_END_DECLS
