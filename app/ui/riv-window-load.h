/* riv-window-load.h
 * Copyright 2026 The Rivulet authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The window's Load mode (riv-window-load.c): virtual users against the
 * selected endpoint with the form's inputs, live charts, "Save Report".
 */
#pragma once

#include "riv-load-page.h"
#include "riv-window.h"

G_BEGIN_DECLS

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
