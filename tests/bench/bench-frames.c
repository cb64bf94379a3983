/* bench-frames.c
 * Copyright 2026 The Rivulet authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "config.h"

#include <string.h>
#include <sys/resource.h>

#include "bench-frames.h"
#include "bench-util.h"

void
bench_frames_init (BenchFrames *frames)
{
  memset (frames, 0, sizeof *frames);
  frames->intervals = g_array_new (FALSE, FALSE, sizeof (double));
  frames->paints = g_array_new (FALSE, FALSE, sizeof (double));
  frames->net = g_array_new (FALSE, FALSE, sizeof (double));
  frames->dump = g_getenv ("BENCH_FRAMES_DUMP") != NULL;
}

/* The whole process's: the main thread's paint is nearly all of it. */
static long
minor_faults (void)
{
  struct rusage usage;

  if (getrusage (RUSAGE_SELF, &usage) != 0)
    return 0;
  return usage.ru_minflt;
}

gboolean
bench_frames_measuring (BenchFrames *frames)
{
  return frames->started != 0 && frames->ended == 0;
}

static void
before_paint_cb (GdkFrameClock *clock,
                 BenchFrames   *frames)
{
  if (frames->dump)
    frames->paint_faults = minor_faults ();
  frames->paint_started = g_get_monotonic_time ();
}

static void
after_paint_cb (GdkFrameClock *clock,
                BenchFrames   *frames)
{
  if (bench_frames_measuring (frames) && frames->paint_started != 0)
    {
      double ms = (g_get_monotonic_time () - frames->paint_started) / 1000.0;

      g_array_append_val (frames->paints, ms);
      if (frames->dump)
        g_printerr ("frame %u: interval %.1f ms, paint %.1f ms, %ld page faults, at %.6f s\n",
                    frames->n_frames,
                    frames->intervals->len > 0
                      ? g_array_index (frames->intervals, double, frames->intervals->len - 1)
                      : 0.0,
                    ms, minor_faults () - frames->paint_faults,
                    frames->paint_started / (double) G_USEC_PER_SEC);
    }
  frames->paint_started = 0;
}

static gboolean
tick_cb (GtkWidget     *widget,
         GdkFrameClock *clock,
         gpointer       user_data)
{
  BenchFrames *frames = user_data;
  gint64 now = g_get_monotonic_time ();
  double wait = bench_thread_cpu_wait_ms ();

  /* The frame's own cost (update, layout, paint): what is left of a frame
   * interval is time the main loop spent on other work. */
  if (!frames->clock_watched)
    {
      frames->clock_watched = TRUE;
      g_signal_connect (clock, "before-paint", G_CALLBACK (before_paint_cb), frames);
      g_signal_connect_after (clock, "after-paint", G_CALLBACK (after_paint_cb), frames);
    }

  if (bench_frames_measuring (frames))
    {
      /* The first interval runs from the start of the measured window. */
      double ms = (now - MAX (frames->last_tick, frames->started)) / 1000.0;
      double waited = frames->last_tick >= frames->started ? wait - frames->last_wait : 0;
      double net = MAX (0, ms - waited);

      g_array_append_val (frames->intervals, ms);
      g_array_append_val (frames->net, net);
      frames->cpu_wait_ms += waited;
      frames->n_frames++;
    }
  frames->last_tick = now;
  frames->last_wait = wait;
  return G_SOURCE_CONTINUE;
}

void
bench_frames_watch (BenchFrames *frames,
                    GtkWidget   *widget)
{
  gtk_widget_add_tick_callback (widget, tick_cb, frames, NULL);
}

void
bench_frames_start (BenchFrames *frames)
{
  if (frames->started == 0)
    frames->started = g_get_monotonic_time ();
}

void
bench_frames_end (BenchFrames *frames)
{
  gint64 now = g_get_monotonic_time ();

  if (frames->ended != 0)
    return;
  if (frames->started != 0)
    {
      double ms = (now - MAX (frames->last_tick, frames->started)) / 1000.0;

      g_array_append_val (frames->intervals, ms);
      if (frames->dump)
        g_printerr ("end: interval %.1f ms since the last frame\n", ms);
    }
  frames->ended = now;
}
