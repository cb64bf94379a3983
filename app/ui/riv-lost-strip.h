/* riv-lost-strip.h
 * Copyright 2026 The Rivulet authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The strip below the header bar that slides down when the connection to the
 * server is lost: what happened to the jobs in flight, and a Reconnect
 * button (win.reconnect).
 */
#pragma once

#include <adwaita.h>

G_BEGIN_DECLS

#define RIV_TYPE_LOST_STRIP (riv_lost_strip_get_type ())
G_DECLARE_FINAL_TYPE (RivLostStrip, riv_lost_strip, RIV, LOST_STRIP, AdwBin)

/* host: the server whose connection was lost (nullable). */
void     riv_lost_strip_show      (RivLostStrip *self,
                                   const char   *host);
void     riv_lost_strip_hide      (RivLostStrip *self);
gboolean riv_lost_strip_get_shown (RivLostStrip *self);

G_END_DECLS
