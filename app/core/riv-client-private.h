/* riv-client-private.h
 * Copyright 2026 The Rivulet authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Introspection for tests and statistics; not API.
 */
#pragma once

#include "riv-client.h"

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

G_END_DECLS
