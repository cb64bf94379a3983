/* bench-ui-load.c
 * Copyright 2026 The Rivulet authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Issue #14 §5, the window: smoothness of the Load mode. Opens the real
 * window on the embedded demo server (its own thread, 127.0.0.1, port 0),
 * starts a load test of --users virtual users (ramped by --stages) from the
 * Load mode, and records every frame-clock tick of the window from the start
 * of the run to its end while the live charts update: frame intervals (p50,
 * p99, max; the time from the last frame to the end counts as an interval
 * too), each frame's own paint time, and the main thread's wait for a CPU
 * (/proc/thread-self/schedstat: on a loaded 2-core machine a gap can be the
 * scheduler's). Run it under Xvfb with GSK_RENDERER=cairo. --dark forces the
 * dark style (for screenshots). Prints one JSON object. Not a test.
 */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include "bench-frames.h"
#include "bench-util.h"
#include "riv-json.h"
#include "riv-malloc.h"
#include "riv-window-test.h"

typedef struct
{
  RivWindow   *window;
  BenchFrames  frames;     /* from the run's start to its end */
} Watch;

static Watch watch;

static gboolean
is_connected (gpointer user_data)
{
  return riv_window_get_client (watch.window) != NULL;
}

static gboolean
run_over (gpointer user_data)
{
  RivLoadRun *run = riv_window_get_load_run (watch.window);

  return run == NULL || riv_load_run_is_finished (run);
}

int
main (int   argc,
      char *argv[])
{
  int users = 1000;
  double timeout = 600;
  g_autofree char *stages = NULL;
  g_autofree char *endpoint = NULL;
  g_autofree char *data_text = NULL;
  gboolean dark = FALSE;
  const GOptionEntry entries[] = {
    { "users", 0, 0, G_OPTION_ARG_INT, &users, "Virtual users (default 1000)", "N" },
    { "stages", 0, 0, G_OPTION_ARG_STRING, &stages, "Stages (default 5s:N,15s:N,2s:0)", "STAGES" },
    { "endpoint", 0, 0, G_OPTION_ARG_STRING, &endpoint, "Endpoint (default batch_echo)", "NAME" },
    { "data", 0, 0, G_OPTION_ARG_STRING, &data_text, "Inputs, a JSON array", "JSON" },
    { "timeout", 0, 0, G_OPTION_ARG_DOUBLE, &timeout, "Hang guard in seconds", "S" },
    { "dark", 0, 0, G_OPTION_ARG_NONE, &dark, "Force the dark style", NULL },
    { NULL }
  };
  g_autoptr(GOptionContext) context = g_option_context_new ("— the Load mode's frame intervals");
  g_autoptr(GError) error = NULL;
  g_autoptr(RivEmbeddedServer) server = NULL;
  g_autoptr(JsonNode) data = NULL;
  RivLoadRun *run;
  gboolean finished;
  double seconds;

  /* The allocator the window runs on (app/ui/main.c). */
  riv_malloc_choose (argv, RIV_MALLOC_HUGE_PAGES, NULL);
  g_option_context_add_main_entries (context, entries, NULL);
  if (!g_option_context_parse (context, &argc, &argv, &error))
    {
      g_printerr ("bench-ui-load: %s\n", error->message);
      return 2;
    }
  if (stages == NULL)
    stages = g_strdup_printf ("5s:%d,15s:%d,2s:0", users, users);

  gtk_init ();
  adw_init ();
  if (dark)
    adw_style_manager_set_color_scheme (adw_style_manager_get_default (),
                                        ADW_COLOR_SCHEME_FORCE_DARK);
  bench_frames_init (&watch.frames);

  server = riv_embedded_server_new ();
  watch.window = riv_window_new (NULL, server);
  gtk_window_set_default_size (GTK_WINDOW (watch.window), 1280, 820);
  gtk_window_present (GTK_WINDOW (watch.window));
  bench_frames_watch (&watch.frames, GTK_WIDGET (watch.window));
  riv_window_connect_embedded (watch.window);
  if (!bench_wait_until (is_connected, NULL, 60))
    {
      g_printerr ("bench-ui-load: the window did not connect to the embedded server\n");
      return 1;
    }
  if (!riv_window_select_endpoint (watch.window, endpoint != NULL ? endpoint : "batch_echo"))
    {
      g_printerr ("bench-ui-load: no endpoint %s\n", endpoint);
      return 2;
    }
  data = riv_json_parse (NULL, data_text != NULL ? data_text : "[\"user {u} job {i}\", 0.2]",
                         -1, 0, &error);
  if (data == NULL || !riv_form_set_data (riv_window_get_form (watch.window), data, &error))
    {
      g_printerr ("bench-ui-load: --data: %s\n", error->message);
      return 2;
    }

  riv_window_set_load_mode (watch.window, TRUE);
  riv_window_set_load (watch.window, (guint) users, 10, 0, stages);
  if (!riv_window_start_load (watch.window))
    {
      g_printerr ("bench-ui-load: the load test did not start\n");
      return 1;
    }
  run = g_object_ref (riv_window_get_load_run (watch.window));
  bench_frames_start (&watch.frames);
  finished = bench_wait_until (run_over, NULL, timeout);
  bench_frames_end (&watch.frames);
  seconds = (watch.frames.ended - watch.frames.started) / (double) G_USEC_PER_SEC;

  g_print ("{\"bench\":\"ui-load\",\"users\":%d,\"stages\":\"%s\",\"finished\":%s,"
           "\"seconds\":%.2f,\"peak_users\":%u,\"submitted\":%" G_GUINT64_FORMAT ","
           "\"completed\":%" G_GUINT64_FORMAT ",\"failed\":%" G_GUINT64_FORMAT ","
           "\"lost\":%" G_GUINT64_FORMAT ",\"chart_points\":%u,\"chart_samples\":%" G_GUINT64_FORMAT ","
           "\"frames\":%u,\"frame_p50_ms\":%.1f,\"frame_p99_ms\":%.1f,\"frame_max_ms\":%.1f,"
           "\"frames_over_33ms\":%u,\"paint_p50_ms\":%.1f,\"paint_p99_ms\":%.1f,"
           "\"frame_net_p99_ms\":%.1f}\n",
           users, stages, finished ? "true" : "false", seconds,
           riv_load_run_get_peak_users (run), riv_load_run_get_submitted (run),
           riv_load_run_get_completed (run), riv_load_run_get_failed (run),
           riv_load_run_get_lost (run),
           riv_chart_get_n_points (riv_window_get_load_chart (watch.window, RIV_LOAD_CHART_USERS)),
           riv_chart_get_n_samples (riv_window_get_load_chart (watch.window, RIV_LOAD_CHART_USERS)),
           watch.frames.intervals->len,
           bench_percentile ((const double *) (gpointer) watch.frames.intervals->data, watch.frames.intervals->len, 50),
           bench_percentile ((const double *) (gpointer) watch.frames.intervals->data, watch.frames.intervals->len, 99),
           bench_array_max (watch.frames.intervals), bench_array_count_over (watch.frames.intervals, 33.4),
           bench_percentile ((const double *) (gpointer) watch.frames.paints->data, watch.frames.paints->len, 50),
           bench_percentile ((const double *) (gpointer) watch.frames.paints->data, watch.frames.paints->len, 99),
           bench_percentile ((const double *) (gpointer) watch.frames.net->data, watch.frames.net->len, 99));

  riv_window_stop_load (watch.window);
  g_object_unref (run);
  gtk_window_destroy (GTK_WINDOW (watch.window));
  riv_embedded_server_stop (server);
  return finished ? 0 : 1;
}
