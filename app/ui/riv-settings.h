/* riv-settings.h
 * Copyright 2026 The Rivulet authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The app's GSettings, found wherever its schema is: installed (or named by
 * GSETTINGS_SCHEMA_DIR), in the build tree when this binary runs from there,
 * or else the copy compiled into the resources, with settings kept in memory
 * only. Rivulet never aborts because the schema is not installed.
 */
#pragma once

#include <gio/gio.h>

G_BEGIN_DECLS

/* A new GSettings for APP_ID. */
GSettings *riv_settings_new          (void);
/* Whether settings are saved (FALSE when only the built-in schema was found). */
gboolean   riv_settings_are_persistent (void);

G_END_DECLS
