/* riv-about.h
 * Copyright 2026 The Rivulet authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The About window, with debug information for bug reports: the versions of
 * the libraries Rivulet runs with and what the connected server says it is.
 */
#pragma once

#include <adwaita.h>

#include "riv-client.h"

G_BEGIN_DECLS

#define RIV_WEBSITE   "https://github.com/rivulet-app/rivulet"
#define RIV_ISSUE_URL "https://github.com/rivulet-app/rivulet/issues"

/* Plain (untranslated) text for bug reports; client is nullable. */
char      *riv_about_dup_debug_info (RivClient *client);
/* An AdwAboutDialog (libadwaita 1.5 and later) or AdwAboutWindow; parent and
 * client are nullable. Show it with riv_dialog_present(). */
GtkWidget *riv_about_window_new     (GtkWindow *parent,
                                     RivClient *client);
/* Presents an AdwDialog over parent (nullable), or a window (already transient). */
void       riv_dialog_present       (GtkWidget *dialog,
                                     GtkWindow *parent);

G_END_DECLS
