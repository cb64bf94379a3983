/* riv-burst.h
 * Copyright 2026 The Rivulet authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The open loop, the one the window's Burst and rivulet-cli load
 * --count/--rate (RivLoadRun) share: submits N copies of a job without
 * blocking the main loop, at a given rate (or one growing from 0) from a
 * timer, or as fast as possible in small time-boxed chunks from a
 * low-priority idle, so that drawing always gets its turn. At most
 * max-joining joins are in flight (RIV_BURST_MAX_JOINING unless set); the
 * burst resumes as replies come in. Its sources are on the main context
 * that was thread-default when it started.
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

/* Submits job number index (1-based) in the burst's client: a new reference,
 * or NULL with error set when the client refused it. */
typedef RivJob * (*RivBurstSubmitFunc) (gpointer   user_data,
                                        guint      index,
                                        GError   **error);

/* Properties: "count", "rate" (jobs/s, 0 = as fast as possible),
 * "n-submitted", "running".
 * Signals: "job-submitted" (RivJob *job), "finished" (void) once all were
 * submitted or the burst was stopped, "failed" (GError *error) when the
 * client refused a submission (the burst stops). */

/* Each job is data with "{i}" replaced by its index, on endpoint. */
RivBurst  *riv_burst_new                (RivClient  *client,
                                         const char *endpoint,
                                         JsonNode   *data,
                                         guint       count,
                                         double      rate);
/* Before it starts (a burst made by riv_burst_new ()): job i's data is
 * examples[(i - 1) mod n] (JsonNode * arrays) with "{i}" replaced, instead
 * of data. Holds a reference; NULL or empty: data. */
void       riv_burst_set_examples       (RivBurst   *self,
                                         GPtrArray  *examples);
/* Each job is what submit returns (user_data is not owned: it must outlive
 * the burst's submitting, which riv_burst_stop() ends). */
RivBurst  *riv_burst_new_with_func      (RivClient          *client,
                                         guint               count,
                                         double              rate,
                                         RivBurstSubmitFunc  submit,
                                         gpointer            user_data);
/* Before it starts. 0: no bound. */
void       riv_burst_set_max_joining    (RivBurst   *self,
                                         guint       max_joining);
/* Before it starts, with a rate: the rate grows linearly from 0 to it over
 * seconds, and the burst ends there if its count did not end it before. */
void       riv_burst_set_rate_ramp      (RivBurst   *self,
                                         double      seconds);
void       riv_burst_start              (RivBurst   *self);
/* Starts it with its first job submitted at once: FALSE with error (and
 * nothing emitted, nothing started) when the client refused that job. */
gboolean   riv_burst_start_checked      (RivBurst   *self,
                                         GError    **error);
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
