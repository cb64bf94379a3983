/* riv-window-private.h
 * Copyright 2026 The Rivulet authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include "riv-burst-controller.h"
#include "riv-connection.h"
#include "riv-form-column.h"
#include "riv-job-view.h"
#include "riv-load-page.h"
#include "riv-login-flow.h"
#include "riv-lost-strip.h"
#include "riv-menu-button.h"
#include "riv-notification.h"
#include "riv-recorder.h"
#include "riv-reports.h"
#include "riv-stall-monitor.h"
#include "riv-status-title.h"
#include "riv-submit-bar.h"
#include "riv-window-test.h"

G_BEGIN_DECLS

struct _RivWindow
{
  AdwApplicationWindow  parent_instance;

  /* Template widgets (riv-window.ui, or riv-window-adaptive.ui on libadwaita 1.4+) */
  AdwToastOverlay      *toast_overlay;
  GtkMenuButton        *connect_button;
  RivConnectPopover    *connect_popover;
  RivStatusTitle       *status_title;
  RivLostStrip         *lost_strip;
  RivFormColumn        *form_column;
  RivSubmitBar         *submit_bar;       /* Submit, and Burst or Start/Stop Load */
  RivJobView           *job_view;
  RivRecorder          *recorder;         /* recording, replay, lint (riv-window-record.c) */
  RivLoginFlow         *login;            /* a Gradio login: keyring, then the dialog */
  /* The split view (riv-window-adaptive.ui), else NULL */
  GtkWidget            *split_view;       /* AdwNavigationSplitView */
  /* The jobs: the split view's content page there, else the job view */
  GtkWidget            *jobs_page;
  gboolean              narrow;

  /* The form column's and the job view's parts (borrowed) */
  RivEndpointRow       *endpoint_row;
  RivForm              *form;
  RivBurstSettings     *burst_settings;
  GtkStack             *mode_stack;       /* "burst" | "load" (settings, left; riv-window-load.c) */
  RivOutputView        *output_view;
  RivJobPanel          *job_panel;
  GtkStack             *view_stack;       /* "output" | "charts" (right) */
  RivLoadPage          *load_page;

  /* Owned references */
  GSettings            *settings;
  RivEmbeddedServer    *embedded;         /* nullable */
  RivConnection        *connection;       /* the client, the attempt to replace it */
  GSignalGroup         *client_signals;
  GCancellable         *cancellable;      /* cancelled when the window closes */
  RivWindowStartup     *startup;          /* nullable: applied once connected */
  RivStallMonitor      *stall_monitor;    /* nullable */
  RivBurstController   *bursts;           /* the Burst button's bursts */

  RivReports           *reports;          /* coalesced toasts */
  RivNotifier          *notifier;         /* desktop notifications sent */
  GSignalGroup         *jobs_signals;     /* the client's job list (their logs reported) */

  gboolean              closing;
};

/* riv-window.c */
void  _riv_window_show_connect_error   (RivWindow      *self,
                                        const GError   *error);
void  _riv_window_reconnect            (RivWindow      *self,
                                        const char     *url,
                                        gboolean        embedded);

/* riv-window-actions.c */
void  _riv_window_class_actions_init   (GtkWidgetClass *widget_class);
void  _riv_window_update_actions       (RivWindow      *self);
void  _riv_window_submit               (RivWindow      *self);
void  _riv_window_start_burst          (RivWindow      *self);
void  _riv_window_save_image_to        (RivWindow      *self,
                                        GFile          *file);

/* riv-window-adaptive.c: the layout of this libadwaita (its template), the split
 * view and its breakpoint where libadwaita has them */
void  _riv_window_class_adaptive_init  (GtkWidgetClass *widget_class);
void  _riv_window_adaptive_init        (RivWindow      *self);
/* On a narrow window (or once it is narrow), shows the job view (after a submission). */
void  _riv_window_show_jobs            (RivWindow      *self);

/* riv-window-load.c */
void  _riv_window_class_load_init      (GtkWidgetClass *widget_class);
void  _riv_window_load_init            (RivWindow      *self);
void  _riv_window_load_update_actions  (RivWindow      *self);
/* The command line's load test (RivWindowStartup.load): its settings shown,
 * then, once the form's files are sent, the run started. */
/* riv-window-startup.c: the command line's requests, applied once connected;
 * with --quit-after-burst, the burst's end printed and the window closed. */
void  _riv_window_apply_startup        (RivWindow      *self);
void  _riv_window_maybe_quit_after_burst (RivWindow    *self);
void  _riv_window_set_startup_load     (RivWindow      *self);
void  _riv_window_start_startup_load   (RivWindow      *self);
/* riv-window-record.c: the recorder's part in the window (its template callbacks) */
void  _riv_window_class_record_init    (GtkWidgetClass *widget_class);

/* riv-window.c */
void  _riv_window_report               (RivWindow      *self,
                                        RivReportKind   kind,
                                        const char     *message);
void  _riv_window_toast                (RivWindow      *self,
                                        const char     *message);
void  _riv_window_follow_job           (RivWindow      *self,
                                        RivJob         *job);
char *_riv_window_dup_endpoint_name    (RivWindow      *self);

G_END_DECLS
