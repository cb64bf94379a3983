/* riv-ui-test-util.h
 * Copyright 2026 The Rivulet authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Set-up shared by the GTK test programs.
 */
#pragma once

#include <adwaita.h>

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

G_END_DECLS
