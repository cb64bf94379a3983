/* riv-preferences-window.h
 * Copyright 2026 The Rivulet authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The preferences: what starts at launch, recent servers (and clearing
 * them), burst defaults and notifications — all bound to GSettings, so
 * every open window follows a change at once.
 */
#pragma once

#include <adwaita.h>

G_BEGIN_DECLS

#define RIV_TYPE_PREFERENCES_WINDOW (riv_preferences_window_get_type ())
/* An AdwPreferencesDialog on libadwaita 1.5 and later (show it with
 * riv_dialog_present()), an AdwPreferencesWindow before. */
#if ADW_CHECK_VERSION (1, 5, 0)
G_DECLARE_FINAL_TYPE (RivPreferencesWindow, riv_preferences_window, RIV, PREFERENCES_WINDOW,
                      AdwPreferencesDialog)
#else
G_DECLARE_FINAL_TYPE (RivPreferencesWindow, riv_preferences_window, RIV, PREFERENCES_WINDOW,
                      AdwPreferencesWindow)
#endif

/* parent is nullable (a window's transient parent; unused by the dialog). */
GtkWidget *riv_preferences_window_new            (GtkWindow            *parent);

G_END_DECLS
