/* riv-run.h
 * Copyright 2026 The Rivulet authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The worker-side API of a RivRun: what a demo's run function (riv-demo.c)
 * calls on its worker thread to read its inputs, sleep, report progress,
 * yield and return. The queue implements it (riv-queue.c); the demos see
 * only this header, so riv-demo does not depend on riv-queue.
 */
#pragma once

#include <glib.h>

#include "riv-demo.h"

G_BEGIN_DECLS

/* Any thread. */
guint                riv_run_get_size       (RivRun      *run);
const RivDemoParams *riv_run_get_params     (RivRun      *run,
                                             guint        member);
const char          *riv_run_get_event_id   (RivRun      *run,
                                             guint        member);
const char          *riv_run_get_output_dir (RivRun      *run);
const char          *riv_run_get_base_url   (RivRun      *run);
gboolean             riv_run_is_cancelled   (RivRun      *run);
/* Sleeps, waking early when the run is cancelled. FALSE = stop now. */
gboolean             riv_run_sleep          (RivRun      *run,
                                             double       seconds);
/* The same, until a g_get_monotonic_time() deadline (at once if it passed). */
gboolean             riv_run_sleep_until    (RivRun      *run,
                                             gint64       end_us);
/* A progress message for member 0. FALSE = stop now. */
gboolean             riv_run_progress       (RivRun      *run,
                                             gint64       index,
                                             gint64       length,
                                             const char  *unit);
/* A log message for member 0 (level "info", "warning" or "success", as
 * gr.Info and gr.Warning send them). FALSE = stop now. */
gboolean             riv_run_log            (RivRun      *run,
                                             const char  *level,
                                             const char  *title,
                                             const char  *message);
/* One generator yield for member 0: data_json is the JSON text of
 * output.data (full values on the first yield, edit lists later). file is a
 * path written for this yield (taken, nullable) of file_size bytes.
 * May block while the reader is behind. FALSE = stop now. */
gboolean             riv_run_yield          (RivRun      *run,
                                             const char  *data_json,
                                             gsize        len,
                                             char        *file,
                                             gsize        file_size);
/* The final full output values (JSON text of output.data) of a member. */
void                 riv_run_return         (RivRun      *run,
                                             guint        member,
                                             char        *data_json);
/* Fails every member with an error message. */
void                 riv_run_fail           (RivRun      *run,
                                             const char  *message);

G_END_DECLS
