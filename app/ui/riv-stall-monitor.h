/* riv-stall-monitor.h
 * Copyright 2026 The Rivulet authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Measures how long the UI thread's main loop stalls: the longest gap between
 * frame-clock ticks of a widget and the longest lateness of a short
 * high-priority timer (which fires only when the loop gets round to it).
 * Enabled in the app with RIVULET_STALL_REPORT=1; used by tests and benchmarks.
 */
#pragma once

#include <gtk/gtk.h>

G_BEGIN_DECLS

typedef struct _RivStallMonitor RivStallMonitor;

typedef struct
{
  double  max_frame_gap_ms;    /* longest interval between two frame ticks */
  double  max_loop_stall_ms;   /* longest time the loop was busy past a timer's due time */
  guint64 n_frames;
  guint64 n_frame_gaps_over_50ms;   /* frames that came late enough to be seen as jank */
  guint64 n_frame_gaps_over_100ms;
  guint64 n_wakeups;
  double  seconds;             /* how long this window of measurement lasted */
} RivStallStats;

RivStallMonitor *riv_stall_monitor_new        (GtkWidget       *widget);
void             riv_stall_monitor_free       (RivStallMonitor *self);
/* Starts a new measurement window (e.g. at the start of a burst). */
void             riv_stall_monitor_mark       (RivStallMonitor *self,
                                               const char      *label);
/* Closes the current window (e.g. when a burst finished). */
void             riv_stall_monitor_close_mark (RivStallMonitor *self);
void             riv_stall_monitor_get_stats  (RivStallMonitor *self,
                                               gboolean         since_mark,
                                               RivStallStats   *stats);
/* A human-readable report of the whole run and of the last marked window. */
char            *riv_stall_monitor_dup_report (RivStallMonitor *self);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (RivStallMonitor, riv_stall_monitor_free)

G_END_DECLS
