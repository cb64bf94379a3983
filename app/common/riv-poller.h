/* riv-poller.h
 * Copyright 2026 The Rivulet authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* One GSource per main context (and priority) that waits for any number of
 * sockets with epoll, so that a thousand streams waiting for data cost the
 * main loop one descriptor instead of a thousand poll records. */
typedef struct _RivPoller      RivPoller;
typedef struct _RivPollerWatch RivPollerWatch;

/* Called on the poller's context, once per request (soon, after, readable,
 * writable). A watch made for no socket (fd -1) is only called soon or after. */
typedef void (*RivPollerFunc) (gpointer user_data);

RivPoller      *riv_poller_get             (GMainContext *context,
                                            int           priority);
RivPoller      *riv_poller_ref             (RivPoller    *self);
void            riv_poller_unref           (RivPoller    *self);
GMainContext   *riv_poller_get_context     (RivPoller    *self);
guint           riv_poller_get_n_watches   (RivPoller    *self);

RivPollerWatch *riv_poller_watch_new       (RivPoller     *poller,
                                            int            fd,
                                            RivPollerFunc  func,
                                            gpointer       user_data);
RivPollerWatch *riv_poller_watch_new_owned (RivPoller     *poller,
                                            int            fd,
                                            RivPollerFunc  func,
                                            gpointer       user_data);
void            riv_poller_watch_soon      (RivPollerWatch *watch);
void            riv_poller_watch_after     (RivPollerWatch *watch,
                                            guint           ms);
gboolean        riv_poller_watch_readable  (RivPollerWatch *watch,
                                            GError        **error);
gboolean        riv_poller_watch_writable  (RivPollerWatch *watch,
                                            GError        **error);
gboolean        riv_poller_watch_is_waiting (RivPollerWatch *watch);
void            riv_poller_watch_free      (RivPollerWatch *watch);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (RivPoller, riv_poller_unref)

G_END_DECLS
