/* riv-early-buffer.h
 * Copyright 2026 The Rivulet authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Messages for event ids that no join reply has named yet, bounded, kept in
 * arrival order per id until the join reply claims them (protocol.md, "lost
 * completions"). Not thread-safe.
 */
#pragma once

#include <glib.h>

#include "riv-message.h"

G_BEGIN_DECLS

/* Bounds of the buffer. */
#define RIV_EARLY_BUFFER_MAX_MESSAGES 20000
#define RIV_EARLY_BUFFER_MAX_BYTES    (16 * 1024 * 1024)
#define RIV_EARLY_BUFFER_MAX_IDS      4096

typedef struct _RivEarlyBuffer RivEarlyBuffer;

RivEarlyBuffer *riv_early_buffer_new      (void);
void            riv_early_buffer_free     (RivEarlyBuffer *self);
/* Takes msg (whose event_id is set); frame_len is its size on the wire.
 * join_timeout bounds how long an id waits for its join reply. */
void            riv_early_buffer_add      (RivEarlyBuffer *self,
                                           RivMessage     *msg,
                                           gsize           frame_len,
                                           double          join_timeout);
/* Moves the messages held for event_id, oldest first, to the tail of messages. */
void            riv_early_buffer_take     (RivEarlyBuffer *self,
                                           const char     *event_id,
                                           GQueue         *messages);
/* TRUE when messages for event_id were (or may have been) dropped, so that a
 * job with that id can never complete. nothing_taken: take() found none;
 * submitted_at: when the job was submitted (riv_now()). */
gboolean        riv_early_buffer_lost     (RivEarlyBuffer *self,
                                           const char     *event_id,
                                           gboolean        nothing_taken,
                                           double          submitted_at);
/* Drops every message held (dropped ids stay remembered). */
void            riv_early_buffer_clear    (RivEarlyBuffer *self);

guint           riv_early_buffer_get_n_messages (RivEarlyBuffer *self);
gsize           riv_early_buffer_get_bytes      (RivEarlyBuffer *self);
guint64         riv_early_buffer_get_n_dropped  (RivEarlyBuffer *self);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (RivEarlyBuffer, riv_early_buffer_free)

G_END_DECLS
