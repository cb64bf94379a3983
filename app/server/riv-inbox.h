/* riv-inbox.h
 * Copyright 2026 The Rivulet authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Hand-off from worker threads to the server's GMainContext. Any thread posts
 * (func, data); the context runs the functions in posting order. Posts made
 * while a wake-up is already pending share it, so a generator that yields
 * 100 000 times wakes the main loop only as often as it can keep up.
 */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* Called on the context's thread. discard is TRUE when the inbox is being
 * torn down: the function must only free data. */
typedef void (*RivInboxFunc) (gpointer data,
                              gboolean discard);

typedef struct _RivInbox RivInbox;

RivInbox *riv_inbox_new   (GMainContext *context);
/* Thread-safe. */
void      riv_inbox_post  (RivInbox     *self,
                           RivInboxFunc  func,
                           gpointer      data);
/* Runs everything posted so far (context thread only). */
void      riv_inbox_flush (RivInbox     *self,
                           gboolean      discard);
/* Detaches from the context and discards what is left. Every thread that
 * could post must have been joined. */
void      riv_inbox_free  (RivInbox     *self);

G_END_DECLS
