/* riv-window-private.h
 * Copyright 2026 The Rivulet authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include "riv-burst.h"
#include "riv-connection.h"
#include "riv-load-page.h"
#include "riv-login-flow.h"
#include "riv-notification.h"
#include "riv-recorder.h"
#include "riv-reports.h"
#include "riv-stall-monitor.h"
#include "riv-window-test.h"

G_BEGIN_DECLS

/* What became of one burst's jobs. Each job of the burst holds a reference
 * (as qdata), so a burst that is still finishing while the next one runs is
 * still summed up — once. */
typedef struct
{
  RivBurstTally tally;
  gboolean      submitting;   /* the burst still submits */
  gboolean      summarized;   /* every job finished; notified (or not wanted) */
} RivBurstState;

struct _RivWindow
{
  AdwApplicationWindow  parent_instance;

  /* Template widgets */
  AdwToastOverlay      *toast_overlay;
  AdwHeaderBar         *header_bar;
  GtkMenuButton        *menu_button;
  GtkPaned             *main_paned;
  GtkMenuButton        *connect_button;
  RivConnectPopover    *connect_popover;
  AdwWindowTitle       *window_title;
  GtkLabel             *status_dot;
  GtkLabel             *status_label;
  GtkRevealer          *lost_revealer;
  GtkLabel             *lost_label;
  AdwComboRow          *endpoint_row;
  RivForm              *form;
  GtkSpinButton        *burst_count;
  GtkSpinButton        *burst_rate;
  GtkButton            *submit_button;
  GtkButton            *reconnect_button;
  GtkButton            *burst_button;
  RivOutputView        *output_view;
  RivJobPanel          *job_panel;
  RivRecorder          *recorder;         /* recording, replay, lint (riv-window-record.c) */
  RivLoginFlow         *login;            /* a Gradio login: keyring, then the dialog */
  /* The Load mode (riv-window-load.c) */
  GtkStack             *mode_stack;       /* "burst" | "load" (settings, left) */
  GtkStack             *view_stack;       /* "output" | "charts" (right) */
  RivLoadPage          *load_page;
  GtkButton            *load_button;      /* Start / Stop, beside Burst's */

  /* Built in code on libadwaita 1.4 and later (riv-window-adaptive.c), else NULL */
  GtkWidget            *split_view;       /* AdwNavigationSplitView */
  /* The jobs: the split view's content page there, else the paned's end */
  GtkWidget            *jobs_page;
  gboolean              narrow;

  /* Owned references */
  GSettings            *settings;
  RivEmbeddedServer    *embedded;         /* nullable */
  RivConnection        *connection;       /* the client, the attempt to replace it */
  GSignalGroup         *client_signals;
  GCancellable         *cancellable;      /* cancelled when the window closes */
  GtkStringList        *endpoint_names;
  RivBurst             *burst;            /* nullable */
  RivJob               *newest_job;       /* nullable, followed while follow_newest */
  RivWindowStartup     *startup;          /* nullable: applied once connected */
  RivStallMonitor      *stall_monitor;    /* nullable */
  RivBurstState        *burst_state;      /* nullable, g_rc_box: of the newest burst */

  RivReports           *reports;          /* coalesced toasts */
  RivNotifier          *notifier;         /* desktop notifications sent */
  GSignalGroup         *jobs_signals;     /* the client's job list (their logs reported) */

  guint                 tick_id;
  double                burst_started_at;

  guint                 follow_newest : 1;
  guint                 output_dirty : 1;
  guint                 burst_label_dirty : 1;
  guint                 closing : 1;
};

/* riv-window.c */
void  _riv_window_show_connect_error   (RivWindow      *self,
                                        const GError   *error);
void  _riv_window_reconnect            (RivWindow      *self,
                                        const char     *url,
                                        gboolean        embedded);

/* riv-window-actions.c */
void  _riv_window_class_actions_init   (GtkWidgetClass *widget_class);
void  _riv_window_actions_init         (RivWindow      *self);
void  _riv_window_update_actions       (RivWindow      *self);
void  _riv_window_submit               (RivWindow      *self);
void  _riv_window_start_burst          (RivWindow      *self);
void  _riv_window_save_image_to        (RivWindow      *self,
                                        GFile          *file);

/* riv-window-adaptive.c: the split view and its breakpoint where libadwaita has them */
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
void  _riv_window_queue_update         (RivWindow      *self);
char *_riv_window_dup_endpoint_name    (RivWindow      *self);
GQuark _riv_window_burst_quark         (void);
void  _riv_window_burst_job_finished   (RivWindow      *self,
                                        RivBurstState  *state,
                                        RivJob         *job);
void  _riv_window_maybe_summarize_burst (RivWindow     *self,
                                         RivBurstState *state);

G_END_DECLS
