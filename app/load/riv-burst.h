/* riv-burst.h
 * Copyright 2026 The Rivulet authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Submits N copies of a job without blocking the main loop: at a given rate
 * from a timer, or as fast as possible in small time-boxed chunks from a
 * low-priority idle, so that drawing always gets its turn. Either way at most
 * RIV_BURST_MAX_JOINING joins are in flight; the burst resumes as replies
 * come in.
 */
#pragma once

#include "riv-client.h"

G_BEGIN_DECLS

#define RIV_TYPE_BURST (riv_burst_get_type ())

/* Join requests a burst keeps in flight at most. Every reply costs the main
 * loop libsoup's work and a dispatch at the client's (default) priority,
 * ahead of GTK's redraw: with thousands in flight the replies alone took
 * every millisecond between two frames. A few dozen keep the server's queue
 * fed (replies come back within a millisecond or two on loopback) and bound
 * what stands between two frames. */
#define RIV_BURST_MAX_JOINING 32
G_DECLARE_FINAL_TYPE (RivBurst, riv_burst, RIV, BURST, GObject)

/* Properties: "count", "rate" (jobs/s, 0 = as fast as possible),
 * "n-submitted", "running".
 * Signals: "job-submitted" (RivJob *job), "finished" (void) once all were
 * submitted or the burst was stopped, "failed" (GError *error) when the
 * client refused a submission (the burst stops). */

RivBurst  *riv_burst_new                (RivClient  *client,
                                         const char *endpoint,
                                         JsonNode   *data,
                                         guint       count,
                                         double      rate);
void       riv_burst_start              (RivBurst   *self);
void       riv_burst_stop               (RivBurst   *self);
gboolean   riv_burst_is_running         (RivBurst   *self);
guint      riv_burst_get_count          (RivBurst   *self);
guint      riv_burst_get_n_submitted    (RivBurst   *self);
double     riv_burst_get_rate           (RivBurst   *self);

/* A deep copy of data with every "{i}" in its strings replaced by index. */
JsonNode  *riv_burst_substitute_index   (JsonNode   *data,
                                         guint       index);
gboolean   riv_burst_has_placeholder    (JsonNode   *data);

G_END_DECLS
