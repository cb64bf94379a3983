/* riv-submit-bar.h
 * Copyright 2026 The Rivulet authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The buttons below the form: Submit (win.submit), and Burst (win.burst;
 * its label is RivBurstController's) or, in the Load mode, Start Load /
 * Stop Load (win.load, win.stop-load) in its place.
 */
#pragma once

#include <adwaita.h>

G_BEGIN_DECLS

#define RIV_TYPE_SUBMIT_BAR (riv_submit_bar_get_type ())
G_DECLARE_FINAL_TYPE (RivSubmitBar, riv_submit_bar, RIV, SUBMIT_BAR, GtkBox)

GtkButton *riv_submit_bar_get_burst_button (RivSubmitBar *self);
/* TRUE: the Load mode's button instead of Burst. */
void       riv_submit_bar_set_load_mode    (RivSubmitBar *self,
                                            gboolean      loading);
/* Start Load, or Stop Load while a load test runs. */
void       riv_submit_bar_set_load_running (RivSubmitBar *self,
                                            gboolean      running);

G_END_DECLS
