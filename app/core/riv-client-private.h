/* riv-client-private.h
 * Copyright 2026 The Rivulet authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Introspection for tests and statistics; not API.
 */
#pragma once

#include "riv-client.h"
#include "riv-config.h"

G_BEGIN_DECLS

/* Bounds of the buffer for messages whose event id no join reply has named yet. */
#define RIV_CLIENT_EARLY_MAX_MESSAGES 20000
#define RIV_CLIENT_EARLY_MAX_BYTES    (16 * 1024 * 1024)
#define RIV_CLIENT_EARLY_MAX_IDS      4096

/* Messages currently held for unknown event ids, and their estimated size. */
guint    _riv_client_get_n_early       (RivClient *self);
gsize    _riv_client_get_early_bytes   (RivClient *self);
/* Early messages dropped so far (buffer full or expired). */
guint64  _riv_client_get_n_early_dropped (RivClient *self);
/* How many SSE GETs this client has issued. */
guint    _riv_client_get_n_streams     (RivClient *self);

/* The ingest path without a network (benchmarks, tests). */

/* Uses config as if riv_client_connect_async() had loaded it, and makes the
 * client's SSE streams local: opening one sends no request, and its bytes
 * come only from _riv_client_feed_stream_for_testing(). Joins are unchanged. */
void     _riv_client_connect_local_for_testing (RivClient   *self,
                                                RivConfig   *config);
/* riv_client_submit() without the join request: event_id is registered as if
 * the server's join reply had named it (early messages are replayed, the
 * stream is opened). Returns a new reference, like riv_client_submit(). */
RivJob  *_riv_client_submit_joined_for_testing (RivClient   *self,
                                                const char  *endpoint,
                                                JsonNode    *data,
                                                const char  *event_id,
                                                GError     **error);
/* Hands bytes to the client's local stream exactly as a network read of them
 * would (SSE reader → parse → dispatch → apply, then close_stream handling).
 * FALSE when no stream is open (no job joined). */
gboolean _riv_client_feed_stream_for_testing   (RivClient   *self,
                                                const char  *bytes,
                                                gsize        len);

G_END_DECLS
