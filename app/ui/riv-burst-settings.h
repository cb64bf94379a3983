/* riv-burst-settings.h
 * Copyright 2026 The Rivulet authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The Burst mode's settings: how many jobs, and at what rate (jobs per
 * second; 0 as fast as possible). The window reads them when a burst starts.
 */
#pragma once

#include <adwaita.h>

G_BEGIN_DECLS

#define RIV_TYPE_BURST_SETTINGS (riv_burst_settings_get_type ())
G_DECLARE_FINAL_TYPE (RivBurstSettings, riv_burst_settings, RIV, BURST_SETTINGS, AdwPreferencesGroup)

/* count is kept to 1…10000, rate to 0 or more. */
void   riv_burst_settings_set       (RivBurstSettings *self,
                                     guint             count,
                                     double            rate);
guint  riv_burst_settings_get_count (RivBurstSettings *self);
double riv_burst_settings_get_rate  (RivBurstSettings *self);
/* Both kept in settings' keys burst-count and burst-rate. */
void   riv_burst_settings_bind      (RivBurstSettings *self,
                                     GSettings        *settings);

G_END_DECLS
