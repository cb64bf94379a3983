/* riv-job-panel.h
 * Copyright 2026 The Rivulet authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The job panel: a column view over a client's job list with sorting, a
 * status filter and a search, a counters strip that always adds up, and the
 * CSV/JSON export. Counters are kept incrementally from status changes and
 * shown once per frame; the filter and sort are refreshed at most a few times
 * a second while jobs change.
 */
#pragma once

#include <adwaita.h>

#include "riv-format.h"
#include "riv-job.h"

G_BEGIN_DECLS

typedef enum
{
  RIV_EXPORT_CSV,
  RIV_EXPORT_JSON,
} RivExportFormat;

#define RIV_TYPE_JOB_PANEL (riv_job_panel_get_type ())
G_DECLARE_FINAL_TYPE (RivJobPanel, riv_job_panel, RIV, JOB_PANEL, AdwBin)

/* Properties: "jobs" (GListModel, nullable), "selected-job" (RivJob, read-only). */

GtkWidget   *riv_job_panel_new                (void);
void         riv_job_panel_set_jobs           (RivJobPanel     *self,
                                               GListModel      *jobs);
GListModel  *riv_job_panel_get_jobs           (RivJobPanel     *self);
RivJob      *riv_job_panel_get_selected_job   (RivJobPanel     *self);
void         riv_job_panel_unselect           (RivJobPanel     *self);
/* Rows the view shows (after filter and search). */
guint        riv_job_panel_get_n_rows         (RivJobPanel     *self);
GListModel  *riv_job_panel_get_view_model     (RivJobPanel     *self);
/* Jobs in each bucket, and all of them (always the sum of the buckets). */
guint        riv_job_panel_get_count          (RivJobPanel     *self,
                                               RivBucket        bucket);
guint        riv_job_panel_get_n_jobs         (RivJobPanel     *self);
/* The text the counters strip shows; RIV_N_BUCKETS gives "Submitted". */
const char  *riv_job_panel_get_counter_text   (RivJobPanel     *self,
                                               RivBucket        bucket);
/* bucket -1 shows every status. */
void         riv_job_panel_set_status_filter  (RivJobPanel     *self,
                                               int              bucket);
void         riv_job_panel_set_search         (RivJobPanel     *self,
                                               const char      *text);
void         riv_job_panel_focus_search       (RivJobPanel     *self);
/* Lays the toolbar out for a narrow window (TRUE) or a wide one. */
void         riv_job_panel_set_narrow         (RivJobPanel     *self,
                                               gboolean         narrow);
/* Applies pending counter/filter/sort changes now instead of at the next frame. */
void         riv_job_panel_flush              (RivJobPanel     *self);

/* Every job (not only the filtered ones) with timings and timeline. */
GBytes      *riv_job_panel_export             (RivJobPanel     *self,
                                               RivExportFormat  format);

G_END_DECLS
