/* riv-load-settings.h
 * Copyright 2026 The Rivulet authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The Load mode's settings: users, duration, think time, or k6-style stages
 * instead of users and duration. RivLoadPage reads them when a run starts.
 */
#pragma once

#include <adwaita.h>

G_BEGIN_DECLS

#define RIV_TYPE_LOAD_SETTINGS (riv_load_settings_get_type ())
G_DECLARE_FINAL_TYPE (RivLoadSettings, riv_load_settings, RIV, LOAD_SETTINGS, AdwPreferencesGroup)

GtkWidget *riv_load_settings_new          (void);
/* stages nullable (empty: users for duration). */
void       riv_load_settings_set          (RivLoadSettings  *self,
                                           guint             users,
                                           double            duration,
                                           double            think,
                                           const char       *stages);
guint      riv_load_settings_get_users    (RivLoadSettings  *self);
double     riv_load_settings_get_duration (RivLoadSettings  *self);
double     riv_load_settings_get_think    (RivLoadSettings  *self);
/* The stages as typed, without surrounding white space ("" when none). */
char      *riv_load_settings_dup_stages_text (RivLoadSettings *self);
/* The stages typed in (*stages NULL when none). FALSE when they cannot be
 * read: the entry is marked as an error until it changes. */
gboolean   riv_load_settings_get_stages   (RivLoadSettings  *self,
                                           GArray          **stages,
                                           GError          **error);

G_END_DECLS
