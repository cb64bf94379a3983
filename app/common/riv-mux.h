/* riv-mux.h
 * Copyright 2026 The Rivulet authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* Many small main contexts run by one source on an outer context: each inner
 * context's descriptors wait in an epoll set of its own, and the outer loop
 * waits on those sets, so that GLib's per-context lists (poll records, sources)
 * stay as short as one inner context's share of the work. */
typedef struct _RivMux RivMux;

/* riv_mux_new (): NULL where the system has no epoll (the caller keeps its one
 * context). riv_mux_add (): the outer context when no descriptor is left; an
 * inner context is owned by the calling thread, which must be the one that
 * runs the outer context. A source attached to an inner context from another
 * thread wakes it; from this thread, outside that context's own callbacks,
 * follow it with g_main_context_wakeup () or riv_mux_wake_all (). */
RivMux       *riv_mux_new            (GMainContext *outer);
GMainContext *riv_mux_add            (RivMux       *self);
void          riv_mux_wake_all       (RivMux       *self);
guint         riv_mux_get_n_contexts (RivMux       *self);
void          riv_mux_free           (RivMux       *self);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (RivMux, riv_mux_free)

G_END_DECLS
