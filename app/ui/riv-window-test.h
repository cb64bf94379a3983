/* riv-window-test.h
 * Copyright 2026 The Rivulet authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * What tests and benchmarks drive and read in a window, beside what the
 * application uses (riv-window.h): its parts, the Burst and Load modes as a
 * user works them (riv-window-load.c), the narrow layout and the desktop
 * notifications. Not for the application.
 */
#pragma once

#include "riv-connect-popover.h"
#include "riv-form.h"
#include "riv-job-panel.h"
#include "riv-load-page.h"
#include "riv-notification.h"
#include "riv-output-view-test.h"
#include "riv-recorder.h"
#include "riv-window.h"

G_BEGIN_DECLS

/* Chooses the endpoint by api name (with or without '/'); FALSE if unknown. */
gboolean           riv_window_select_endpoint      (RivWindow         *self,
                                                    const char        *name);
void               riv_window_set_burst            (RivWindow         *self,
                                                    guint              count,
                                                    double             rate);
gboolean           riv_window_is_bursting          (RivWindow         *self);
/* "Not connected", "Connected", "Reconnecting…", "Disconnected", … */
const char        *riv_window_get_status_text      (RivWindow         *self);
gboolean           riv_window_is_lost_strip_shown  (RivWindow         *self);

RivForm           *riv_window_get_form             (RivWindow         *self);
RivOutputView     *riv_window_get_output_view      (RivWindow         *self);
RivJobPanel       *riv_window_get_job_panel        (RivWindow         *self);
RivConnectPopover *riv_window_get_connect_popover  (RivWindow         *self);
/* Recording, replay and lint, and their badge in the header bar. */
RivRecorder       *riv_window_get_recorder         (RivWindow         *self);
/* The output, the job panel and the load charts laid out for a narrow window
 * (on libadwaita 1.4 and later the window's breakpoint sets it), and the part
 * of the window that shows them. */
void               riv_window_set_narrow           (RivWindow         *self,
                                                    gboolean           narrow);
gboolean           riv_window_get_narrow           (RivWindow         *self);
GtkWidget         *riv_window_get_jobs_page        (RivWindow         *self);
/* Whether the jobs page is the one shown (always, where both panes are side
 * by side; on libadwaita 1.4 and later, a narrow window shows one of them). */
gboolean           riv_window_get_jobs_shown       (RivWindow         *self);

/* For tests: the desktop notifications this window sent (or, without an
 * application, would have sent), and whether it counts as active (-1: ask
 * GTK, 0: in the background, 1: in front). */
guint              riv_window_get_n_notices        (RivWindow         *self);
const RivNotice   *riv_window_get_last_notice      (RivWindow         *self);
void               riv_window_set_active_override  (RivWindow         *self,
                                                    int                active);

/* The Load mode (riv-window-load.c): virtual users against the selected
 * endpoint with the form's inputs, live charts, "Save Report". */
/* Shows the Load mode (TRUE) or the Burst mode. */
void          riv_window_set_load_mode      (RivWindow     *self,
                                             gboolean       load);
/* Fills the Load settings. stages nullable (empty: users for duration). */
void          riv_window_set_load           (RivWindow     *self,
                                             guint          users,
                                             double         duration,
                                             double         think,
                                             const char    *stages);
/* What "Copy as Command" copies: the rivulet-cli load line that repeats a
 * run with these settings, endpoint and inputs (no token, no password); NULL
 * when not connected or no endpoint is chosen. */
char         *riv_window_dup_load_command   (RivWindow     *self);
/* What "Start" does: FALSE (with a toast) when it cannot start. */
gboolean      riv_window_start_load         (RivWindow     *self);
void          riv_window_stop_load          (RivWindow     *self);
RivLoadPage  *riv_window_get_load_page      (RivWindow     *self);
/* The newest run (nullable), running or finished. */
RivLoadRun   *riv_window_get_load_run       (RivWindow     *self);
/* The newest run's /metrics (the metrics-address preference), or NULL. */
RivMetrics   *riv_window_get_load_metrics   (RivWindow     *self);
RivChart     *riv_window_get_load_chart     (RivWindow     *self,
                                             RivLoadChart   chart);
/* What "Save Report" does once a file is chosen: the report of the newest
 * run, written asynchronously. */
void          riv_window_save_load_report_async  (RivWindow           *self,
                                                  GFile               *file,
                                                  GAsyncReadyCallback  callback,
                                                  gpointer             user_data);
gboolean      riv_window_save_load_report_finish (RivWindow           *self,
                                                  GAsyncResult        *result,
                                                  GError             **error);

G_END_DECLS
