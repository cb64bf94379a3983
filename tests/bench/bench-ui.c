/* bench-ui.c
 * Copyright 2026 The Rivulet authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Issue #7 item 6: UI smoothness. Runs the real Rivulet application (the
 * same RivApplication as app/ui/main.c) with the command line given after
 * "--", e.g. --server URL --endpoint batch_echo --burst 5000 --data JSON
 * --quit-after-burst, and watches its window from inside the process:
 *
 *  - every frame-clock tick of the window: the frame intervals (p50, p99, max),
 *    counting the time from the start to the first frame and from the last
 *    frame to the end as intervals too (a frozen window is not smooth);
 *  - a G_PRIORITY_HIGH timer every 5 ms: how late it fires is time the main
 *    loop spent elsewhere (the longest is the longest main-loop stall);
 *  - per frame interval, how long the main thread waited for a CPU
 *    (/proc/thread-self/schedstat): on a loaded 2-core machine a gap can be
 *    the scheduler's rather than the app's, and this tells them apart.
 *
 * The measured window runs from the moment the client has its first job to
 * the moment the window closes (the app closes it itself with
 * --quit-after-burst). Run it under Xvfb with GSK_RENDERER=cairo. With
 * RIVULET_STALL_REPORT=1 the app's own stall monitor prints its report to
 * stderr as well. Prints one JSON object on stdout. Not a test.
 */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include "bench-frames.h"
#include "bench-util.h"
#include "riv-application.h"
#include "riv-malloc.h"
#include "riv-window-test.h"

#define TIMER_MS 5

typedef struct
{
  GtkWindow   *window;      /* weak */
  BenchFrames  frames;      /* measured from the first job to the window's close */
  GArray      *stalls;      /* double ms, timer lateness inside the measured window */
  gint64       last_timer;
  guint        timer_id;
  guint        guard_id;
  double       timeout_s;
  guint        n_jobs;
  gboolean     timed_out;
} Watch;

static Watch watch;

static gboolean
timer_cb (gpointer user_data)
{
  gint64 now = g_get_monotonic_time ();

  if (watch.frames.started == 0 && watch.window != NULL)
    {
      RivClient *client = riv_window_get_client (RIV_WINDOW (watch.window));

      if (client != NULL && g_list_model_get_n_items (riv_client_get_jobs (client)) > 0)
        {
          bench_frames_start (&watch.frames);
          watch.last_timer = 0;
        }
    }

  if (bench_frames_measuring (&watch.frames) && watch.last_timer != 0)
    {
      double late = MAX (0, (now - watch.last_timer) / 1000.0 - TIMER_MS);

      g_array_append_val (watch.stalls, late);
    }
  watch.last_timer = now;
  return G_SOURCE_CONTINUE;
}

static gboolean
close_request_cb (GtkWindow *window,
                  gpointer   user_data)
{
  bench_frames_end (&watch.frames);
  if (watch.window != NULL)
    {
      RivClient *client = riv_window_get_client (RIV_WINDOW (watch.window));

      if (client != NULL)
        watch.n_jobs = g_list_model_get_n_items (riv_client_get_jobs (client));
    }
  return FALSE;
}

static gboolean
guard_cb (gpointer user_data)
{
  /* A hang guard: end the run and say so, rather than wait forever. */
  watch.guard_id = 0;
  watch.timed_out = TRUE;
  if (watch.window != NULL)
    gtk_window_close (watch.window);
  return G_SOURCE_REMOVE;
}

static void
window_added_cb (GtkApplication *app,
                 GtkWindow      *window,
                 gpointer        user_data)
{
  if (watch.window != NULL || !RIV_IS_WINDOW (window))
    return;

  watch.window = window;
  g_object_add_weak_pointer (G_OBJECT (window), (gpointer *) &watch.window);
  bench_frames_watch (&watch.frames, GTK_WIDGET (window));
  g_signal_connect (window, "close-request", G_CALLBACK (close_request_cb), NULL);
  watch.timer_id = g_timeout_add_full (G_PRIORITY_HIGH, TIMER_MS, timer_cb, NULL, NULL);
  watch.guard_id = g_timeout_add_seconds (MAX (1, (guint) watch.timeout_s), guard_cb, NULL);
}

int
main (int   argc,
      char *argv[])
{
  g_autoptr(RivApplication) app = NULL;
  g_autoptr(GPtrArray) app_argv = g_ptr_array_new ();
  const double *intervals, *stalls, *paints, *net;
  double seconds;
  int status;
  int first = 1;

  /* The allocator the window runs on (app/ui/main.c). */
  riv_malloc_choose (argv, RIV_MALLOC_HUGE_PAGES, NULL);
  watch.timeout_s = 300;
  if (argc > 2 && strcmp (argv[1], "--timeout") == 0)
    {
      watch.timeout_s = g_ascii_strtod (argv[2], NULL);
      first = 3;
    }
  if (first < argc && strcmp (argv[first], "--") == 0)
    first++;

  g_ptr_array_add (app_argv, argv[0]);
  for (int i = first; i < argc; i++)
    g_ptr_array_add (app_argv, argv[i]);
  g_ptr_array_add (app_argv, NULL);

  bench_frames_init (&watch.frames);
  watch.stalls = g_array_new (FALSE, FALSE, sizeof (double));

  app = riv_application_new ();
  g_application_set_flags (G_APPLICATION (app),
                           g_application_get_flags (G_APPLICATION (app)) | G_APPLICATION_NON_UNIQUE);
  g_signal_connect (app, "window-added", G_CALLBACK (window_added_cb), NULL);
  status = g_application_run (G_APPLICATION (app), app_argv->len - 1, (char **) app_argv->pdata);
  if (status == 0)
    status = riv_application_get_exit_status (app);

  g_clear_handle_id (&watch.timer_id, g_source_remove);
  g_clear_handle_id (&watch.guard_id, g_source_remove);
  bench_frames_end (&watch.frames);

  intervals = (const double *) watch.frames.intervals->data;
  stalls = (const double *) watch.stalls->data;
  paints = (const double *) watch.frames.paints->data;
  net = (const double *) watch.frames.net->data;
  seconds = watch.frames.started ? (watch.frames.ended - watch.frames.started) / (double) G_USEC_PER_SEC : 0;
  g_print ("{\"bench\":\"ui\",\"status\":%d,\"timed_out\":%s,\"jobs\":%u,\"seconds\":%.2f,"
           "\"frames\":%u,\"frame_intervals\":%u,\"frame_p50_ms\":%.1f,\"frame_p99_ms\":%.1f,\"frame_max_ms\":%.1f,"
           "\"frames_over_33ms\":%u,\"frames_over_50ms\":%u,\"stall_max_ms\":%.1f,"
           "\"stall_p99_ms\":%.1f,\"stalls_over_50ms\":%u,\"timer_samples\":%u,"
           "\"paint_p50_ms\":%.1f,\"paint_p99_ms\":%.1f,\"paint_max_ms\":%.1f,"
           "\"cpu_wait_ms\":%.1f,\"frame_net_p99_ms\":%.1f,\"frame_net_max_ms\":%.1f}\n",
           status, watch.timed_out ? "true" : "false", watch.n_jobs, seconds,
           watch.frames.n_frames, watch.frames.intervals->len,
           bench_percentile (intervals, watch.frames.intervals->len, 50),
           bench_percentile (intervals, watch.frames.intervals->len, 99), bench_array_max (watch.frames.intervals),
           bench_array_count_over (watch.frames.intervals, 33.4), bench_array_count_over (watch.frames.intervals, 50),
           bench_array_max (watch.stalls), bench_percentile (stalls, watch.stalls->len, 99),
           bench_array_count_over (watch.stalls, 50), watch.stalls->len,
           bench_percentile (paints, watch.frames.paints->len, 50),
           bench_percentile (paints, watch.frames.paints->len, 99), bench_array_max (watch.frames.paints),
           watch.frames.cpu_wait_ms, bench_percentile (net, watch.frames.net->len, 99), bench_array_max (watch.frames.net));

  g_array_unref (watch.frames.intervals);
  g_array_unref (watch.stalls);
  g_array_unref (watch.frames.paints);
  g_array_unref (watch.frames.net);
  return status;
}
