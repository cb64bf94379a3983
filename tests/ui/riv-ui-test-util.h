/* riv-ui-test-util.h
 * Copyright 2026 The Rivulet authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Set-up shared by the GTK test programs.
 */
#pragma once

#include <adwaita.h>

#include "riv-embedded-server.h"
#include "riv-window-test.h"

G_BEGIN_DECLS

/* gtk_test_init() and adw_init() for a test under Xvfb, plus what keeps
 * the sanitizers' reports about Rivulet (see the .c file). */
void  riv_ui_test_init          (int         *argc,
                                 char      ***argv);
/* The text on widget's clipboard, read as a paste would (waits up to 30 s). */
char *riv_ui_test_read_clipboard (GtkWidget   *widget);

/* The first preferences row under widget titled title, or NULL. */
GtkWidget *riv_ui_test_find_row   (GtkWidget  *widget,
                                   const char *title);
/* The first label under widget (or widget itself) whose text is text, or NULL. */
GtkWidget *riv_ui_test_find_label (GtkWidget  *widget,
                                   const char *text);
/* The first GtkPicture at or under widget, or NULL. */
GtkWidget *riv_ui_test_find_picture (GtkWidget *widget);

/* The fixture most window tests share: a RivWindow on the embedded server
 * *server (a new one when NULL), given width × height (0: its own default),
 * presented and connected (waits up to 60 s). *window is a weak pointer. */
void       riv_ui_test_window_open    (RivEmbeddedServer **server,
                                       RivWindow         **window,
                                       int                 width,
                                       int                 height);
/* Closes the window as a user would, waits (30 s at most) until it is
 * gone, stops the server and checks that nothing else holds it. */
void       riv_ui_test_window_close   (RivEmbeddedServer **server,
                                       RivWindow         **window);
/* For riv_test_wait_until (): whether the weak pointer at user_data is NULL. */
gboolean   riv_ui_test_gone           (gpointer            user_data);
/* Destroys *window (a weak pointer) and waits (30 s at most) until it is gone. */
void       riv_ui_test_window_destroy (RivWindow         **window);

G_END_DECLS
