/* riv-burst-controller.h
 * Copyright 2026 The Rivulet authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The window's bursts: the running one (RivBurst), when it started, what
 * became of each burst's jobs, and the Burst button's label ("Stop (n/m)"
 * while one runs), refreshed once per frame. A burst's tally travels with
 * its jobs, so a burst still finishing while the next one runs is summed up
 * too, once ("summarized"). Speaks by signals; knows no window.
 */
#pragma once

#include <adwaita.h>

#include "riv-burst.h"
#include "riv-notification.h"

G_BEGIN_DECLS

#define RIV_TYPE_BURST_CONTROLLER (riv_burst_controller_get_type ())
G_DECLARE_FINAL_TYPE (RivBurstController, riv_burst_controller, RIV, BURST_CONTROLLER, GObject)

/* button: the Burst button, whose label, tooltip and action say whether a
 * burst runs (win.burst, or win.stop-burst while it does). */
RivBurstController *riv_burst_controller_new          (GtkButton          *button);
/* A burst of count jobs at rate (jobs per second, 0: as fast as possible)
 * of data (examples nullable) to endpoint; the one before is let go. */
void      riv_burst_controller_start       (RivBurstController *self,
                                            RivClient          *client,
                                            const char         *endpoint,
                                            JsonNode           *data,
                                            GPtrArray          *examples,
                                            guint               count,
                                            double              rate);
void      riv_burst_controller_stop        (RivBurstController *self);
/* Stops the burst and forgets it (a new client). */
void      riv_burst_controller_clear       (RivBurstController *self);
gboolean  riv_burst_controller_is_running  (RivBurstController *self);
/* The newest burst, running or not (nullable). */
RivBurst *riv_burst_controller_get_burst   (RivBurstController *self);
/* When the newest burst started (riv_now ()). */
double    riv_burst_controller_get_started_at (RivBurstController *self);
/* A finished job: counted in its burst's tally when it is part of one
 * (TRUE then; FALSE for a job on its own). */
gboolean  riv_burst_controller_job_finished (RivBurstController *self,
                                             RivJob             *job);

/* Signals:
 * "job-submitted" (RivJob *job): a job of the burst was submitted.
 * "finished": the burst stopped submitting (all sent, stopped or failed).
 * "failed" (const GError *error): the burst could not go on.
 * "summarized" (const RivBurstTally *tally): every job of a burst finished,
 *   after it stopped submitting; once per burst. */

G_END_DECLS
