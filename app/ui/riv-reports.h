/* riv-reports.h
 * Copyright 2026 The Rivulet authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * RivReports: the window's toasts for what goes wrong or what the server
 * logs, coalesced per kind: during a burst hundreds of jobs can fail within
 * a second, and the user gets one toast per kind that counts them.
 */
#pragma once

#include <adwaita.h>

G_BEGIN_DECLS

typedef enum
{
  RIV_REPORT_FAILED,
  RIV_REPORT_LOST,
  RIV_REPORT_STREAM,
  RIV_REPORT_SUBMIT,
  RIV_REPORT_INFO,      /* the server's log messages (gr.Info) */
  RIV_REPORT_WARNING,   /* gr.Warning, and error logs */
  RIV_N_REPORTS
} RivReportKind;

typedef struct _RivReports RivReports;

/* Toasts go to overlay (borrowed: it outlives the reports). */
RivReports *riv_reports_new  (AdwToastOverlay *overlay);
/* Counts message (nullable) under kind; shown at once, or with the others
 * of its kind at most once every 1.5 s. */
void        riv_reports_add  (RivReports      *self,
                              RivReportKind    kind,
                              const char      *message);
/* The toast on screen for kind, or NULL. */
AdwToast   *riv_reports_get_toast (RivReports    *self,
                                   RivReportKind  kind);
/* Stops the timer and lets go of the toasts on screen. */
void        riv_reports_free (RivReports      *self);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (RivReports, riv_reports_free)

G_END_DECLS
