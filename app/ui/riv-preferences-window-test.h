/* riv-preferences-window-test.h
 * Copyright 2026 The Rivulet authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * What tests read of the preferences (riv-preferences-window.h): the rows of
 * recent servers. Not for the application.
 */
#pragma once

#include "riv-preferences-window.h"

G_BEGIN_DECLS

/* The rows showing recent servers. */
guint      riv_preferences_window_get_n_recent   (RivPreferencesWindow *self);

G_END_DECLS
