/* riv-job-view.h
 * Copyright 2026 The Rivulet authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The window's right side (a narrow window's second page): the output view
 * (or, in the Load mode, the load test's page) above the job panel. The same
 * in both of the window's layouts; the window drives the parts it hands out.
 */
#pragma once

#include <adwaita.h>

#include "riv-job-panel.h"
#include "riv-load-page.h"
#include "riv-output-view.h"

G_BEGIN_DECLS

#define RIV_TYPE_JOB_VIEW (riv_job_view_get_type ())
G_DECLARE_FINAL_TYPE (RivJobView, riv_job_view, RIV, JOB_VIEW, AdwBin)

RivOutputView *riv_job_view_get_output_view (RivJobView *self);
RivLoadPage   *riv_job_view_get_load_page   (RivJobView *self);
RivJobPanel   *riv_job_view_get_job_panel   (RivJobView *self);
/* The upper half's stack: pages "output" and "charts" (the load page). */
GtkStack      *riv_job_view_get_view_stack  (RivJobView *self);

G_END_DECLS
