/* test-ui-load.c
 * Copyright 2026 The Rivulet authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The window's Load mode on the real embedded server (its own thread, port
 * 0): 20 virtual users ramped by stages fill the live charts (the users chart
 * reaches the target), every job completes, "Save Report" writes the HTML
 * report with its SVG charts. And a chart keeps a bounded number of points
 * however many samples it is given.
 */
#include "config.h"

#include <adwaita.h>
#include <libsoup/soup.h>
#include <math.h>
#include <string.h>

#include "riv-a11y.h"
#include "riv-chart.h"
#include "riv-json.h"
#include "riv-settings.h"
#include "riv-test-util.h"
#include "riv-ui-test-util.h"
#include "riv-window-test.h"

#define USERS 20

typedef struct
{
  RivEmbeddedServer *server;
  RivWindow         *window;
} Fixture;

static void
fixture_setup (Fixture       *fixture,
               gconstpointer  user_data)
{
  riv_ui_test_window_open (&fixture->server, &fixture->window, 0, 0);
}

static void
fixture_teardown (Fixture       *fixture,
                  gconstpointer  user_data)
{
  riv_ui_test_window_close (&fixture->server, &fixture->window);
}

static gboolean
run_finished (gpointer user_data)
{
  RivLoadRun *run = riv_window_get_load_run (user_data);

  return run != NULL && riv_load_run_is_finished (run);
}

static gboolean
chart_has_samples (gpointer user_data)
{
  return riv_chart_get_n_samples (riv_window_get_load_chart (user_data,
                                                             RIV_LOAD_CHART_THROUGHPUT)) >= 2;
}

/* Counts the samples taken while the first stage ramped the users up. */
static void
ramp_sample_cb (RivLoadRun          *run,
                const RivLoadSample *sample,
                guint               *n_ramping)
{
  if (sample->t <= 2.0 && sample->users > 0 && sample->users < USERS)
    (*n_ramping)++;
}

static guint
count_substrings (const char *text,
                  const char *needle)
{
  guint n = 0;

  for (const char *p = strstr (text, needle); p != NULL; p = strstr (p + 1, needle))
    n++;
  return n;
}

static void
test_load_run (Fixture       *fixture,
               gconstpointer  user_data)
{
  RivWindow *window = fixture->window;
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonNode) data = riv_json_parse (NULL, "[\"user {u} job {i}\", 0.05]", -1, 0, &error);
  g_autoptr(GFileIOStream) stream = NULL;
  g_autoptr(GFile) file = NULL;
  g_autoptr(GAsyncResult) result = NULL;
  g_autofree char *html = NULL;
  RivLoadRun *run;
  RivChart *users_chart;
  guint n_ramping = 0;

  g_assert_no_error (error);
  g_assert_true (riv_window_select_endpoint (window, "batch_echo"));
  riv_form_set_data (riv_window_get_form (window), data, &error);
  g_assert_no_error (error);

  /* A bad stage is refused before anything starts. */
  riv_window_set_load_mode (window, TRUE);
  riv_window_set_load (window, USERS, 10, 0, "2s:twenty");
  g_assert_false (riv_window_start_load (window));
  g_assert_null (riv_window_get_load_run (window));
#if ADW_CHECK_VERSION (1, 4, 0) && GTK_CHECK_VERSION (4, 10, 0)
  /* Still on the form, where the stage can be mended. */
  g_assert_false (riv_window_get_jobs_shown (window));
#endif

  riv_window_set_load (window, USERS, 10, 0, "2s:20, 2s:20");
  g_assert_true (riv_window_start_load (window));
  /* A narrow window turns to the charts, as it does for Submit and Burst. */
  g_assert_true (riv_window_get_jobs_shown (window));
  run = riv_window_get_load_run (window);
  g_assert_nonnull (run);
  g_assert_true (riv_load_run_is_running (run));
  g_assert_false (riv_window_start_load (window));   /* one run at a time */
  g_signal_connect (run, "sample", G_CALLBACK (ramp_sample_cb), &n_ramping);

  /* Samples reach the charts (one a second), then the run ends. */
  g_assert_true (riv_test_wait_until (chart_has_samples, window, 60));
  g_assert_true (riv_test_wait_until (run_finished, window, 120));
  g_assert_true (g_str_has_prefix (riv_a11y_get_last_announcement (GTK_WIDGET (window)),
                                   "Load test finished: "));
  g_assert_nonnull (strstr (riv_a11y_get_last_announcement (GTK_WIDGET (window)), " completed"));

  users_chart = riv_window_get_load_chart (window, RIV_LOAD_CHART_USERS);
  g_assert_cmpuint (riv_chart_get_n_samples (users_chart), >=, 3);
  g_assert_cmpfloat (riv_chart_get_peak (users_chart, 0), ==, USERS);
  /* The first stage ramps from 0 (1 s in: about half the users). */
  g_assert_cmpuint (n_ramping, >, 0);
  g_assert_cmpuint (riv_load_run_get_peak_users (run), ==, USERS);
  g_assert_cmpfloat (riv_chart_get_peak (riv_window_get_load_chart (window,
                                                                     RIV_LOAD_CHART_THROUGHPUT), 0),
                     >, 0);
  g_assert_false (isnan (riv_chart_get_peak (riv_window_get_load_chart (window,
                                                                        RIV_LOAD_CHART_LATENCY), 1)));
  g_assert_cmpuint (riv_chart_get_n_bars (riv_window_get_load_chart (window,
                                                                     RIV_LOAD_CHART_BATCHES)), >, 0);
  /* batch_echo answers in one update: its time to first update is its latency. */
  g_assert_false (isnan (riv_chart_get_peak (riv_window_get_load_chart (window,
                                                                        RIV_LOAD_CHART_FIRST), 1)));

  g_assert_cmpuint (riv_load_run_get_completed (run), >, 0);
  g_assert_cmpuint (riv_load_run_get_failed (run), ==, 0);
  g_assert_cmpuint (riv_load_run_get_lost (run), ==, 0);
  g_assert_cmpuint (riv_load_run_get_completed (run), ==, riv_load_run_get_submitted (run));
  g_assert_cmpuint (riv_load_run_get_active_users (run), ==, 0);

  /* Save Report: the same page as rivulet-cli load --report. */
  file = g_file_new_tmp ("rivulet-load-XXXXXX.html", &stream, &error);
  g_assert_no_error (error);
  riv_window_save_load_report_async (window, file, riv_test_async_result_cb, &result);
  riv_test_wait_result (&result, 60);
  g_assert_true (riv_window_save_load_report_finish (window, result, &error));
  g_assert_no_error (error);
  g_assert_true (g_file_load_contents (file, NULL, &html, NULL, NULL, &error));
  g_assert_no_error (error);
  g_assert_true (g_str_has_prefix (html, "<!DOCTYPE html>") || strstr (html, "<html") != NULL);
  g_assert_cmpuint (count_substrings (html, "<svg"), >=, 5);
  g_assert_nonnull (strstr (html, "id=\"throughput\""));
  g_assert_nonnull (strstr (html, "id=\"users\""));
  g_assert_nonnull (strstr (html, "id=\"batch-histogram\""));
  g_assert_nonnull (strstr (html, "2s:20,2s:20"));
  g_file_delete (file, NULL, NULL);
}

/* Copy as Command: the clipboard gets the rivulet-cli line of the window's
 * settings, endpoint and inputs (quoted for a shell), and that line, run,
 * repeats the load test against the same server. */
static void
test_copy_command (Fixture       *fixture,
                   gconstpointer  user_data)
{
  RivWindow *window = fixture->window;
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonNode) data = riv_json_parse (NULL, "[\"it's user {u}\", 0.02]", -1, 0, &error);
  g_autofree char *command = NULL;
  g_autofree char *staged = NULL;
  g_autofree char *copied = NULL;
  g_autofree char *out = NULL;
  g_autofree char *err = NULL;
  g_auto(GStrv) argv = NULL;

  g_assert_no_error (error);
  g_assert_true (riv_window_select_endpoint (window, "batch_echo"));
  riv_form_set_data (riv_window_get_form (window), data, &error);
  g_assert_no_error (error);
  riv_window_set_load_mode (window, TRUE);

  riv_window_set_load (window, 2, 2, 0.1, "1s:1, 1s:1");
  staged = riv_window_dup_load_command (window);
  g_assert_nonnull (strstr (staged, " --stages '1s:1, 1s:1' --think 0.1"));
  g_assert_null (strstr (staged, "--users"));

  riv_window_set_load (window, 2, 2, 0, NULL);
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (window), "win.copy-load-command", NULL));
  copied = riv_ui_test_read_clipboard (GTK_WIDGET (window));
  command = riv_window_dup_load_command (window);
  g_assert_cmpstr (copied, ==, command);
  g_assert_true (g_str_has_prefix (command, "rivulet-cli load --url http://127.0.0.1:"));
  g_assert_nonnull (strstr (command, " --endpoint batch_echo --data "));
  g_assert_nonnull (strstr (command, " --users 2 --duration 2"));
  g_assert_null (strstr (command, "--think"));

  /* Run as a shell would split it: the same inputs reach the server. */
  g_assert_true (g_shell_parse_argv (command, NULL, &argv, &error));
  g_assert_no_error (error);
  g_assert_cmpstr (argv[0], ==, "rivulet-cli");
  g_assert_cmpstr (argv[7], ==, "[\"it's user {u}\",0.02]");
  g_assert_cmpint (riv_test_run_cli ((const char * const *) argv + 1, &out, &err, 120), ==, 0);
  g_assert_true (g_regex_match_simple ("^users +2 \\(peak\\)$", out, G_REGEX_MULTILINE, 0));
  g_assert_true (g_regex_match_simple ("^failed +0$", out, G_REGEX_MULTILINE, 0));
  g_assert_true (g_regex_match_simple ("^completed +[1-9]", out, G_REGEX_MULTILINE, 0));
}

static void
test_stop (Fixture       *fixture,
           gconstpointer  user_data)
{
  RivWindow *window = fixture->window;
  RivLoadRun *run;

  g_assert_true (riv_window_select_endpoint (window, "batch_echo"));
  riv_window_set_load_mode (window, TRUE);
  riv_window_set_load (window, 5, 600, 0.2, NULL);
  g_assert_true (riv_window_start_load (window));
  run = riv_window_get_load_run (window);
  g_assert_true (riv_test_wait_until (chart_has_samples, window, 60));

  /* Stop ends a long run at once; the users' jobs in flight count as lost. */
  riv_window_stop_load (window);
  g_assert_true (riv_test_wait_until (run_finished, window, 30));
  g_assert_true (riv_load_run_was_interrupted (run));
  g_assert_cmpuint (riv_load_run_get_completed (run), >, 0);
  g_assert_cmpuint (riv_load_run_get_failed (run), ==, 0);
  g_assert_cmpuint (riv_load_run_get_active_users (run), ==, 0);
}

/* The metrics-address preference: the Load Test serves /metrics as load
 * --metrics does, and keeps serving the last values after the run; an
 * address that cannot be used leaves the run without metrics, not stopped. */
static void
test_metrics (Fixture       *fixture,
              gconstpointer  user_data)
{
  RivWindow *window = fixture->window;
  g_autoptr(GSettings) settings = riv_settings_new ();
  g_autoptr(SoupSession) session = soup_session_new ();
  g_autoptr(SoupMessage) msg = NULL;
  g_autoptr(GAsyncResult) result = NULL;
  g_autoptr(GBytes) page = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *text = NULL;
  g_autofree char *want = NULL;
  RivMetrics *metrics;
  RivLoadRun *run;

  g_settings_set_string (settings, "metrics-address", "127.0.0.1:0");
  g_assert_true (riv_window_select_endpoint (window, "batch_echo"));
  riv_window_set_load_mode (window, TRUE);
  riv_window_set_load (window, 4, 10, 0, "1s:4,1s:4");
  g_assert_true (riv_window_start_load (window));
  run = riv_window_get_load_run (window);
  metrics = riv_window_get_load_metrics (window);
  g_assert_nonnull (metrics);
  g_assert_true (g_str_has_prefix (riv_metrics_get_url (metrics), "http://127.0.0.1:"));
  g_assert_true (riv_test_wait_until (run_finished, window, 60));
  g_assert_cmpuint (riv_load_run_get_submitted (run), >, 0);

  msg = soup_message_new ("GET", riv_metrics_get_url (metrics));
  soup_session_send_and_read_async (session, msg, G_PRIORITY_DEFAULT, NULL,
                                    riv_test_async_result_cb, &result);
  riv_test_wait_result (&result, 30);
  page = soup_session_send_and_read_finish (session, result, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (soup_message_get_status (msg), ==, 200);
  text = g_strndup (g_bytes_get_data (page, NULL), g_bytes_get_size (page));
  want = g_strdup_printf ("\nrivulet_jobs_submitted_total %" G_GUINT64_FORMAT "\n",
                          riv_load_run_get_submitted (run));
  g_assert_nonnull (strstr (text, want));
  g_assert_nonnull (strstr (text, "# TYPE rivulet_job_latency_seconds histogram"));

  g_settings_set_string (settings, "metrics-address", "example.org:9464");
  g_assert_true (riv_window_start_load (window));
  g_assert_null (riv_window_get_load_metrics (window));
  g_assert_true (riv_test_wait_until (run_finished, window, 60));
  g_settings_set_string (settings, "metrics-address", "");
}

/* The pixels of a chart drawn at 400 × 200 that are near colour, or (faint)
 * red and half transparent. */
static guint
count_pixels (RivChart *chart,
              guint32   color,
              gboolean  faint)
{
  GtkWidget *window = gtk_window_new ();
  g_autoptr(GdkPaintable) paintable = NULL;
  g_autoptr(GtkSnapshot) snapshot = gtk_snapshot_new ();
  g_autoptr(GskRenderNode) node = NULL;
  g_autoptr(GdkTexture) texture = NULL;
  g_autofree guchar *pixels = NULL;
  guint count = 0;
  int w = 400, h = 200;

  gtk_window_set_child (GTK_WINDOW (window), GTK_WIDGET (chart));
  gtk_window_set_default_size (GTK_WINDOW (window), w, h);
  gtk_window_present (GTK_WINDOW (window));
  g_assert_true (riv_test_wait_until ((gboolean (*) (gpointer)) gtk_widget_get_mapped, chart, 10));
  while (gtk_widget_get_width (GTK_WIDGET (chart)) < 100)
    g_main_context_iteration (NULL, TRUE);
  w = gtk_widget_get_width (GTK_WIDGET (chart));
  h = gtk_widget_get_height (GTK_WIDGET (chart));
  paintable = gtk_widget_paintable_new (GTK_WIDGET (chart));
  gdk_paintable_snapshot (paintable, GDK_SNAPSHOT (snapshot), w, h);
  node = gtk_snapshot_free_to_node (g_steal_pointer (&snapshot));
  texture = gsk_renderer_render_texture (gtk_native_get_renderer (GTK_NATIVE (window)), node,
                                         &GRAPHENE_RECT_INIT (0, 0, w, h));
  pixels = g_malloc ((gsize) w * h * 4);
  gdk_texture_download (texture, pixels, (gsize) w * 4);
  for (int i = 0; i < w * h; i++)
    {
      /* GDK_MEMORY_DEFAULT: B, G, R, A on little-endian machines. */
      const guchar *p = pixels + (gsize) i * 4;

      if (faint)
        count += p[3] > 60 && p[3] < 200 && p[2] > 2 * p[1] && p[2] > 2 * p[0];
      else if (ABS (p[2] - (int) ((color >> 16) & 0xff)) < 24 &&
          ABS (p[1] - (int) ((color >> 8) & 0xff)) < 24 && ABS (p[0] - (int) (color & 0xff)) < 24)
        count++;
    }
  gtk_window_destroy (GTK_WINDOW (window));
  return count;
}

static guint
count_drawn (RivChart *chart,
             guint32   color)
{
  return count_pixels (chart, color, FALSE);
}

/* A second that stands alone (jobs finished in it, none in the seconds
 * around it) is drawn: a generator endpoint whose jobs end in waves has only
 * such seconds in its latency chart. */
static void
test_chart_isolated (void)
{
  double none[] = { NAN }, one[] = { 0.5 };
  RivChart *empty = RIV_CHART (riv_chart_new ("empty", "s"));
  RivChart *alone = RIV_CHART (riv_chart_new ("alone", "s"));
  guint without, with;

  riv_chart_add_series (empty, "p95", "#e01b24");
  riv_chart_add_series (alone, "p95", "#e01b24");
  for (guint t = 1; t <= 5; t++)
    {
      riv_chart_push (empty, t, none);
      riv_chart_push (alone, t, t == 3 ? one : none);
    }
  without = count_drawn (empty, 0xe01b24);   /* the legend's swatch */
  with = count_drawn (alone, 0xe01b24);
  g_assert_cmpuint (with, >=, without + 5);
}

/* A chart cleared to the previous run keeps its lines, drawn faint and
 * dashed, until the new run's come; a chart of bars keeps nothing. */
static void
test_chart_previous (void)
{
  RivChart *chart = RIV_CHART (g_object_ref_sink (riv_chart_new ("previous", "s")));
  RivChart *empty = RIV_CHART (riv_chart_new ("empty", "s"));
  double bars[] = { 1, 2 };
  guint faint_empty, faint;

  riv_chart_add_series (chart, "p95", "#e01b24");
  riv_chart_add_series (empty, "p95", "#e01b24");
  for (guint t = 1; t <= 30; t++)
    {
      double value[] = { t % 2 == 0 ? 0.5 : 0.7 };

      riv_chart_push (chart, t, value);
    }
  riv_chart_clear_to_previous (chart);
  g_assert_cmpuint (riv_chart_get_n_points (chart), ==, 0);
  g_assert_cmpuint (riv_chart_get_n_previous (chart), ==, 30);
  /* The faint red of the dashes (the line's colour at 55 %). */
  faint_empty = count_pixels (empty, 0, TRUE);
  faint = count_pixels (g_object_ref (chart), 0, TRUE);
  g_test_message ("faint red pixels: %u drawn, %u on an empty chart", faint, faint_empty);
  g_assert_cmpuint (faint, >=, faint_empty + 30);

  /* A new run's first second: both are there. */
  riv_chart_push (chart, 1, (double[]) { 0.6 });
  g_assert_cmpuint (riv_chart_get_n_points (chart), ==, 1);
  g_assert_cmpuint (riv_chart_get_n_previous (chart), ==, 30);
  /* Bars are not lines of a run: nothing is kept of them. */
  riv_chart_set_bars (chart, bars, 2, 1);
  riv_chart_clear_to_previous (chart);
  g_assert_cmpuint (riv_chart_get_n_previous (chart), ==, 30);
  g_object_unref (chart);
}

static void
test_chart_bounded (void)
{
  GtkWidget *chart = g_object_ref_sink (riv_chart_new ("test", NULL));
  RivChart *self = RIV_CHART (chart);
  guint max_points = 0;

  riv_chart_add_series (self, "a", "#3584e4");
  riv_chart_add_series (self, "b", "#e01b24");
  riv_chart_set_capacity (self, 64);

  for (guint i = 1; i <= 20000; i++)
    {
      double values[] = { i, i % 3 == 0 ? NAN : 1.0 };

      riv_chart_push (self, i, values);
      max_points = MAX (max_points, riv_chart_get_n_points (self));
    }

  /* Never more points than the capacity, and not collapsed to a handful. */
  g_assert_cmpuint (max_points, <=, 64);
  g_assert_cmpuint (riv_chart_get_n_points (self), >=, 32);
  g_assert_cmpuint (riv_chart_get_n_samples (self), ==, 20000);
  /* Each point stands for `stride` samples: together they cover the run. */
  g_assert_cmpuint (riv_chart_get_stride (self) * (riv_chart_get_n_points (self) + 1), >=, 20000);
  /* Merging averages, and the peak is the real one. */
  g_assert_cmpfloat (riv_chart_get_peak (self, 0), ==, 20000);
  g_assert_cmpfloat (riv_chart_get_peak (self, 1), ==, 1.0);
  g_assert_cmpfloat (riv_chart_get_last (self, 1), ==, 1.0);

  riv_chart_clear (self);
  g_assert_cmpuint (riv_chart_get_n_points (self), ==, 0);
  g_assert_true (isnan (riv_chart_get_peak (self, 0)));
  g_object_unref (chart);
}

/* A client of a fresh embedded demo server, connected (no window). */
static RivClient *
connect_client (RivEmbeddedServer *server)
{
  g_autoptr(GAsyncResult) result = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *url = NULL;
  g_autoptr(RivClient) client = NULL;

  riv_embedded_server_start_async (server, NULL, riv_test_async_result_cb, &result);
  url = riv_embedded_server_start_finish (server, riv_test_wait_result (&result, 60), &error);
  g_assert_no_error (error);
  g_clear_object (&result);
  client = riv_client_new (url);
  riv_client_connect_async (client, NULL, riv_test_async_result_cb, &result);
  g_assert_true (riv_client_connect_finish (client, riv_test_wait_result (&result, 60), &error));
  g_assert_no_error (error);
  return g_steal_pointer (&client);
}

static void
toast_cb (RivLoadPage *page,
          const char  *message,
          GPtrArray   *toasts)
{
  g_ptr_array_add (toasts, g_strdup (message));
}

static void
running_cb (RivLoadPage *page,
            GParamSpec  *pspec,
            guint       *n_changes)
{
  (*n_changes)++;
}

static gboolean
page_run_finished (gpointer user_data)
{
  RivLoadRun *run = riv_load_page_get_run (user_data);

  return run != NULL && riv_load_run_is_finished (run);
}

/* RivLoadPage and RivLoadSettings on their own, from their templates, in a
 * plain window: given a client, the page runs a few users against the
 * embedded server, draws each sample and says how the run ended. */
static void
test_page_alone (void)
{
  RivEmbeddedServer *server = riv_embedded_server_new ();
  g_autoptr(RivClient) client = connect_client (server);
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonNode) data = riv_json_parse (NULL, "[\"page {u} {i}\", 0.02]", -1, 0, &error);
  g_autoptr(GPtrArray) toasts = g_ptr_array_new_with_free_func (g_free);
  GtkWidget *window = gtk_window_new ();
  GtkWidget *box = gtk_box_new (GTK_ORIENTATION_HORIZONTAL, 0);
  GtkWidget *settings = riv_load_settings_new ();
  RivLoadPage *page = RIV_LOAD_PAGE (riv_load_page_new ());
  g_autofree char *finished = NULL;
  guint n_changes = 0;
  RivLoadRun *run;

  g_assert_no_error (error);
  gtk_box_append (GTK_BOX (box), settings);
  gtk_box_append (GTK_BOX (box), GTK_WIDGET (page));
  gtk_window_set_child (GTK_WINDOW (window), box);
  gtk_window_present (GTK_WINDOW (window));
  g_signal_connect (page, "toast", G_CALLBACK (toast_cb), toasts);
  g_signal_connect (page, "notify::running", G_CALLBACK (running_cb), &n_changes);

  /* The template's charts are there before any run, each with its series. */
  for (guint i = 0; i < RIV_LOAD_N_CHARTS; i++)
    g_assert_true (RIV_IS_CHART (riv_load_page_get_chart (page, i)));
  g_assert_cmpstr (riv_load_page_get_summary (page), ==, "Start a load test to see its charts here");

  /* Without a client or settings nothing starts. */
  g_assert_false (riv_load_page_start (page, "batch_echo", data));
  riv_load_page_set_client (page, client);
  g_assert_false (riv_load_page_start (page, "batch_echo", data));
  riv_load_page_set_settings (page, RIV_LOAD_SETTINGS (settings));
  g_assert_true (riv_load_page_get_client (page) == client);

  /* Bad stages: refused with a toast that says how to write them. */
  riv_load_settings_set (RIV_LOAD_SETTINGS (settings), 3, 2, 0, "1s:three");
  g_assert_false (riv_load_page_start (page, "batch_echo", data));
  g_assert_null (riv_load_page_get_run (page));
  g_assert_cmpuint (toasts->len, ==, 1);
  g_assert_true (g_str_has_prefix (toasts->pdata[0], "Stages are DURATION:USERS pairs"));

  riv_load_settings_set (RIV_LOAD_SETTINGS (settings), 3, 2, 0, NULL);
  g_assert_cmpuint (riv_load_settings_get_users (RIV_LOAD_SETTINGS (settings)), ==, 3);
  g_assert_true (riv_load_page_start (page, "batch_echo", data));
  g_assert_true (riv_load_page_get_running (page));
  g_assert_cmpuint (n_changes, ==, 1);
  g_assert_false (riv_load_page_start (page, "batch_echo", data));   /* one run at a time */
  g_assert_true (riv_test_wait_until (page_run_finished, page, 60));

  run = riv_load_page_get_run (page);
  g_assert_false (riv_load_page_get_running (page));
  g_assert_cmpuint (n_changes, ==, 2);
  g_assert_cmpuint (riv_load_run_get_peak_users (run), ==, 3);
  g_assert_cmpuint (riv_load_run_get_completed (run), >, 0);
  g_assert_cmpuint (riv_load_run_get_failed (run), ==, 0);
  g_assert_cmpuint (riv_chart_get_n_samples (riv_load_page_get_chart (page, RIV_LOAD_CHART_USERS)),
                    >=, 1);
  /* The summary and the toast give the run's own figures. */
  finished = g_strdup_printf ("Load test finished: %llu completed, 0 failed, 0 lost",
                              (unsigned long long) riv_load_run_get_completed (run));
  g_assert_cmpuint (toasts->len, ==, 2);
  g_assert_cmpstr (toasts->pdata[1], ==, finished);
  {
    g_autofree char *completed = g_strdup_printf (" · %llu completed · ",
                                                  (unsigned long long) riv_load_run_get_completed (run));

    g_assert_nonnull (strstr (riv_load_page_get_summary (page), completed));
    /* With the latency and the time to first update (batch_echo: one update, its
     * latency) of the latest second that had them, and the stalls. */
    g_assert_nonnull (strstr (riv_load_page_get_summary (page), " · p95 0."));
    g_assert_nonnull (strstr (riv_load_page_get_summary (page), " · first update p95 0."));
    g_assert_true (g_str_has_suffix (riv_load_page_get_summary (page), " · 0 stalls"));
  }
  /* The results card: the run's figures, the same as its statistics. */
  {
    g_autofree char *results = riv_load_page_dup_results (page);
    g_autofree char *completed = g_strdup_printf ("completed %llu\n",
                                                  (unsigned long long) riv_load_run_get_completed (run));
    RivLoadSummary s;
    g_autofree char *p95 = NULL;

    riv_load_stats_summarize (riv_load_run_get_stats (run), &s);
    p95 = g_strdup_printf ("\nlatency p95 %.2f s\n", s.p95);
    g_assert_true (g_str_has_prefix (results, completed));
    g_assert_nonnull (strstr (results, "\nfailed 0\nlost 0\n"));
    g_assert_nonnull (strstr (results, p95));
    g_assert_nonnull (strstr (results, "\nfirst update p95 0."));
    g_assert_true (g_str_has_suffix (results, "\nstalls 0"));
  }

  gtk_window_destroy (GTK_WINDOW (window));
  riv_client_close (client);
  riv_embedded_server_stop (server);
  g_assert_finalize_object (server);
}

/* Two runs on the page, the second's jobs far slower: its results say
 * how each figure changed from the first and that the change is beyond
 * noise, and the charts keep the first run's lines. */
static void
test_page_previous (void)
{
  RivEmbeddedServer *server = riv_embedded_server_new ();
  g_autoptr(RivClient) client = connect_client (server);
  g_autoptr(JsonNode) fast = riv_json_parse (NULL, "[\"fast {i}\", 0.05]", -1, 0, NULL);
  g_autoptr(JsonNode) slow = riv_json_parse (NULL, "[\"slow {i}\", 0.4]", -1, 0, NULL);
  GtkWidget *window = gtk_window_new ();
  GtkWidget *box = gtk_box_new (GTK_ORIENTATION_HORIZONTAL, 0);
  GtkWidget *settings = riv_load_settings_new ();
  RivLoadPage *page = RIV_LOAD_PAGE (riv_load_page_new ());
  g_autofree char *first = NULL;
  g_autofree char *second = NULL;

  gtk_box_append (GTK_BOX (box), settings);
  gtk_box_append (GTK_BOX (box), GTK_WIDGET (page));
  gtk_window_set_child (GTK_WINDOW (window), box);
  gtk_window_present (GTK_WINDOW (window));
  riv_load_page_set_client (page, client);
  riv_load_page_set_settings (page, RIV_LOAD_SETTINGS (settings));
  /* Four users for 16 s: the slow run's 160 jobs make five blocks of 30,
   * and its 0.4 s sleeps dwarf what the machine adds (under ASan the
   * 0.05 s run is CPU-bound at about 0.15 s a job). */
  riv_load_settings_set (RIV_LOAD_SETTINGS (settings), 4, 16, 0, NULL);

  g_assert_true (riv_load_page_start (page, "batch_echo", fast));
  g_assert_true (riv_test_wait_until (page_run_finished, page, 180));
  first = riv_load_page_dup_results (page);
  g_test_message ("first run:\n%s", first);
  /* Nothing before the first run to compare with. */
  g_assert_null (strstr (first, "vs previous"));
  g_assert_cmpuint (riv_chart_get_n_previous (riv_load_page_get_chart (page, RIV_LOAD_CHART_LATENCY)),
                    ==, 0);

  g_assert_true (riv_load_page_start (page, "batch_echo", slow));
  /* The first run's lines stay while the second's come. */
  g_assert_cmpuint (riv_chart_get_n_previous (riv_load_page_get_chart (page, RIV_LOAD_CHART_LATENCY)),
                    >, 0);
  g_assert_true (riv_test_wait_until (page_run_finished, page, 180));
  second = riv_load_page_dup_results (page);
  g_test_message ("second run:\n%s", second);
  g_assert_nonnull (strstr (second, "\nlatency p50 0."));
  /* Far fewer jobs a second, each far slower. */
  {
    g_auto(GStrv) lines = g_strsplit (second, "\n", -1);
    guint worse = 0;

    for (guint i = 0; lines[i] != NULL; i++)
      if (g_str_has_prefix (lines[i], "jobs per second ") || g_str_has_prefix (lines[i], "latency p50 ") ||
          g_str_has_prefix (lines[i], "first update p50 "))
        {
          g_assert_nonnull (strstr (lines[i], " % vs previous: Worse, beyond the runs' own noise)"));
          worse++;
        }
      else if (g_str_has_prefix (lines[i], "stalls "))
        g_assert_true (g_str_has_suffix (lines[i], " (was 0)"));
    /* The counts say what they were: the first run's completed jobs. */
    {
      g_autofree char *was = g_strdup_printf (" (was %llu)\n",
                                              (unsigned long long) g_ascii_strtoull (first + strlen ("completed "), NULL, 10));

      g_assert_true (g_str_has_prefix (second, "completed "));
      g_assert_nonnull (strstr (second, was));
    }
    g_assert_cmpuint (worse, ==, 3);
  }

  gtk_window_destroy (GTK_WINDOW (window));
  riv_client_close (client);
  riv_embedded_server_stop (server);
  g_assert_finalize_object (server);
}

int
main (int   argc,
      char *argv[])
{
  riv_ui_test_init (&argc, &argv);

  g_test_add_func ("/ui/load/chart-bounded", test_chart_bounded);
  g_test_add_func ("/ui/load/chart-isolated", test_chart_isolated);
  g_test_add_func ("/ui/load/chart-previous", test_chart_previous);
  g_test_add_func ("/ui/load/page-previous", test_page_previous);
  g_test_add_func ("/ui/load/page-alone", test_page_alone);
  g_test_add ("/ui/load/run", Fixture, NULL, fixture_setup, test_load_run, fixture_teardown);
  g_test_add ("/ui/load/stop", Fixture, NULL, fixture_setup, test_stop, fixture_teardown);
  g_test_add ("/ui/load/copy-command", Fixture, NULL, fixture_setup, test_copy_command,
              fixture_teardown);
  g_test_add ("/ui/load/metrics", Fixture, NULL, fixture_setup, test_metrics, fixture_teardown);

  return g_test_run ();
}
