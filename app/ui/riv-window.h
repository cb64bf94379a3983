/* riv-window.h
 * Copyright 2026 The Rivulet authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <adwaita.h>

#include "riv-client.h"
#include "riv-connect-popover.h"
#include "riv-embedded-server.h"
#include "riv-form.h"
#include "riv-job-panel.h"
#include "riv-notification.h"
#include "riv-output-view.h"
#include "riv-recorder.h"

G_BEGIN_DECLS

/* What the command line asks for once connected. */
typedef struct
{
  char     *server_url;      /* NULL: the embedded demo server */
  char     *token;           /* nullable */
  char     *endpoint;        /* nullable */
  JsonNode *data;            /* nullable, a JSON array */
  guint     burst;           /* 0: none */
  double    rate;
  /* A load test instead of a burst: the Load mode's settings, each 0 (NULL)
   * for the one the window has. */
  gboolean  load;
  guint     users;
  double    duration;
  double    think;           /* < 0: the window's */
  char     *stages;
  gboolean  quit_after_burst;  /* after the burst or the load test */
} RivWindowStartup;

void riv_window_startup_free (RivWindowStartup *startup);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (RivWindowStartup, riv_window_startup_free)

#define RIV_TYPE_WINDOW (riv_window_get_type ())
G_DECLARE_FINAL_TYPE (RivWindow, riv_window, RIV, WINDOW, AdwApplicationWindow)

RivWindow         *riv_window_new                  (GtkApplication    *application,
                                                    RivEmbeddedServer *embedded);
/* Connects as the command line asked (takes ownership of startup). */
void               riv_window_start                (RivWindow         *self,
                                                    RivWindowStartup  *startup);
void               riv_window_connect_embedded     (RivWindow         *self);
void               riv_window_connect_to_url       (RivWindow         *self,
                                                    const char        *url,
                                                    const char        *token);
RivClient         *riv_window_get_client           (RivWindow         *self);
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
/* The exit status the command line asked for (2 for a startup error). */
int                riv_window_get_exit_status      (RivWindow         *self);

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

/* For tests: the desktop notifications this window sent (or, without an
 * application, would have sent), and whether it counts as active (-1: ask
 * GTK, 0: in the background, 1: in front). */
guint              riv_window_get_n_notices        (RivWindow         *self);
const RivNotice   *riv_window_get_last_notice      (RivWindow         *self);
void               riv_window_set_active_override  (RivWindow         *self,
                                                    int                active);

G_END_DECLS
