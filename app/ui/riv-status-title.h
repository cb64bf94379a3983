/* riv-status-title.h
 * Copyright 2026 The Rivulet authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The window's title widget: the app's name over the server it talks to
 * (an AdwWindowTitle), and a pill with the connection's state, a coloured
 * dot and a few words, whose tooltip says more when there is more to say.
 * The window tells it what to show (riv-window.c); it knows no connection.
 */
#pragma once

#include <adwaita.h>

G_BEGIN_DECLS

#define RIV_TYPE_STATUS_TITLE (riv_status_title_get_type ())
G_DECLARE_FINAL_TYPE (RivStatusTitle, riv_status_title, RIV, STATUS_TITLE, GtkBox)

/* text: the state in a few words; tone: the dot's style class ("success",
 * "warning", "error", "accent" or "dim-label"). Resets the details. */
void        riv_status_title_set_state    (RivStatusTitle *self,
                                           const char     *text,
                                           const char     *tone);
const char *riv_status_title_get_text     (RivStatusTitle *self);
/* The pill's tooltip when there is more to say than the state's words
 * (nullable: the words). */
void        riv_status_title_set_details  (RivStatusTitle *self,
                                           const char     *details);
/* Where the window is connected (the title's subtitle). */
void        riv_status_title_set_server   (RivStatusTitle *self,
                                           const char     *server);
const char *riv_status_title_get_server   (RivStatusTitle *self);

/* Property "show-server" (default TRUE): FALSE keeps only the pill (a
 * narrow window's jobs page has no room for the server's name). */

G_END_DECLS
