/* riv-window.h
 * Copyright 2026 The Rivulet authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The main window, as the application uses it: made, started as the command
 * line asked, its client and exit status. What tests and benchmarks drive
 * and read besides is in riv-window-test.h.
 */
#pragma once

#include <adwaita.h>

#include "riv-client.h"
#include "riv-embedded-server.h"

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
  int       exit_status;       /* set by the window: 2 for a start-up error */
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
/* The exit status the command line asked for (2 for a startup error). */
int                riv_window_get_exit_status      (RivWindow         *self);

G_END_DECLS
