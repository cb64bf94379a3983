/* bench-frames.h
 * Copyright 2026 The Rivulet authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The frame watcher of the UI benchmarks (bench-ui, bench-ui-load): every
 * frame-clock tick of a widget's window inside a measured window of time.
 */
#pragma once

#include <gtk/gtk.h>

G_BEGIN_DECLS

typedef struct
{
  GArray   *intervals;      /* double ms, frame ticks inside the measured window */
  GArray   *paints;         /* double ms, before-paint → after-paint of each frame */
  GArray   *net;            /* double ms, each frame interval less its CPU wait */
  double    cpu_wait_ms;    /* total run-queue wait inside the measured window */
  double    last_wait;      /* schedstat's run-queue wait at the last tick, ms */
  gint64    paint_started;
  gint64    last_tick;
  gint64    started;        /* 0 until the measured window opens */
  gint64    ended;
  guint     n_frames;       /* ticks inside the measured window */
  gboolean  clock_watched;
  gboolean  dump;           /* BENCH_FRAMES_DUMP set: one line per frame on stderr */
  long      paint_faults;   /* the process's minor page faults at before-paint */
} BenchFrames;

/* With BENCH_FRAMES_DUMP set in the environment, every measured frame is
 * also printed to stderr: its interval, its paint time, the minor page faults
 * of its paint, and when it began in CLOCK_MONOTONIC seconds (the clock of
 * `perf record -k CLOCK_MONOTONIC`, to find a slow frame's samples). */
void      bench_frames_init      (BenchFrames *frames);
/* Records widget's frames from now on (a tick callback). */
void      bench_frames_watch     (BenchFrames *frames,
                                  GtkWidget   *widget);
gboolean  bench_frames_measuring (BenchFrames *frames);
/* Opens the measured window (once). */
void      bench_frames_start     (BenchFrames *frames);
/* Closes it; the time since the last frame counts as one more (open) frame
 * interval: a window that draws no frame at all must not look smooth. */
void      bench_frames_end       (BenchFrames *frames);

G_END_DECLS
