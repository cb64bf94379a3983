/* test-ui-outputs.c
 * Copyright 2026 The Rivulet authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * One card per output component, against the embedded server's chat,
 * gallery and mixed demos: the chat's final text in its bubbles, the
 * gallery's item count and decoded pictures, the mixed demo's WebP picture,
 * pretty JSON, label bars, markdown, file and audio stream; and an image
 * that cannot be decoded says so in its card and in the job's timeline.
 */
#include "config.h"

#include <adwaita.h>
#include <libsoup/soup.h>
#include <string.h>

#include "riv-demo.h"
#include "riv-job-private.h"
#include "riv-json.h"
#include "riv-test-util.h"
#include "riv-ui-test-util.h"
#include "riv-window-private.h"

typedef struct
{
  RivEmbeddedServer *server;
  RivWindow         *window;
} Fixture;

static gboolean
is_connected (gpointer user_data)
{
  Fixture *fixture = user_data;

  return riv_window_get_client (fixture->window) != NULL;
}

static void
fixture_setup (Fixture       *fixture,
               gconstpointer  user_data)
{
  fixture->server = riv_embedded_server_new ();
  fixture->window = riv_window_new (NULL, fixture->server);
  g_object_add_weak_pointer (G_OBJECT (fixture->window), (gpointer *) &fixture->window);
  gtk_window_set_default_size (GTK_WINDOW (fixture->window), 1200, 800);
  gtk_window_present (GTK_WINDOW (fixture->window));
  riv_window_connect_embedded (fixture->window);
  g_assert_true (riv_test_wait_until (is_connected, fixture, 60));
}

static gboolean
window_gone (gpointer user_data)
{
  return *(gpointer *) user_data == NULL;
}

static void
fixture_teardown (Fixture       *fixture,
                  gconstpointer  user_data)
{
  gtk_window_close (GTK_WINDOW (fixture->window));
  if (fixture->window != NULL)
    gtk_window_destroy (GTK_WINDOW (fixture->window));
  g_assert_true (riv_test_wait_until (window_gone, &fixture->window, 30));
  riv_embedded_server_stop (fixture->server);
  g_assert_finalize_object (fixture->server);
}

/* The job finished, and every card has its downloads done. */
static gboolean
job_shown (gpointer user_data)
{
  RivOutputView *view = user_data;
  RivJob *job = riv_output_view_get_job (view);

  if (job == NULL || !riv_job_is_finished (job))
    return FALSE;
  riv_output_view_flush (view);
  for (guint i = 0; i < riv_output_view_get_n_cards (view); i++)
    if (riv_output_card_get_n_pending (riv_output_view_get_card (view, i)) > 0)
      return FALSE;
  return TRUE;
}

static RivOutputView *
run_demo (Fixture    *fixture,
          const char *endpoint,
          const char *data_json)
{
  RivWindow *window = fixture->window;
  RivOutputView *view = riv_window_get_output_view (window);
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonNode) data = riv_json_parse (NULL, data_json, -1, 0, &error);

  g_assert_no_error (error);
  g_assert_true (riv_window_select_endpoint (window, endpoint));
  riv_form_set_data (riv_window_get_form (window), data, &error);
  g_assert_no_error (error);
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (window), "win.submit", NULL));
  g_assert_true (riv_test_wait_until (job_shown, view, 120));
  g_assert_cmpint (riv_job_get_status (riv_output_view_get_job (view)), ==,
                   RIV_JOB_STATUS_COMPLETED);
  return view;
}

static void
test_chat (Fixture       *fixture,
           gconstpointer  user_data)
{
  RivOutputView *view = run_demo (fixture, "chat", "[\"Hello *there*\", 0.01]");
  RivOutputCard *card;
  g_autofree char *reply = riv_demo_chat_reply ("Hello *there*");
  g_autofree char *expected = g_strdup_printf ("user: Hello *there*\nassistant: %s", reply);
  g_autofree char *text = NULL;

  /* The chatbot is the endpoint's only output: one card, two bubbles, the
   * whole streamed reply. */
  g_assert_cmpuint (riv_output_view_get_n_cards (view), ==, 1);
  card = riv_output_view_get_card (view, 0);
  g_assert_cmpstr (riv_output_card_get_component_type (card), ==, "chatbot");
  g_assert_cmpuint (riv_job_get_n_updates (riv_output_view_get_job (view)), >, 5);
  g_assert_cmpuint (riv_output_card_get_n_items (card), ==, 2);
  text = riv_output_card_dup_text (card);
  g_assert_cmpstr (text, ==, expected);
  g_assert_null (riv_output_card_get_error (card));
}

static void
test_gallery (Fixture       *fixture,
              gconstpointer  user_data)
{
  RivOutputView *view = run_demo (fixture, "gallery", "[3, 0.05]");
  RivOutputCard *card;

  g_assert_cmpuint (riv_output_view_get_n_cards (view), ==, 1);
  card = riv_output_view_get_card (view, 0);
  g_assert_cmpstr (riv_output_card_get_component_type (card), ==, "gallery");
  g_assert_cmpuint (riv_output_card_get_n_items (card), ==, 3);
  for (guint i = 0; i < 3; i++)
    {
      GdkTexture *texture = riv_output_card_get_texture (card, i);

      g_assert_nonnull (texture);
      g_assert_cmpint (gdk_texture_get_width (texture), ==, 256);
      g_assert_cmpint (gdk_texture_get_height (texture), ==, 256);
    }
  g_assert_null (riv_output_card_get_texture (card, 3));
  g_assert_null (riv_output_card_get_error (card));
}

static RivOutputCard *
card_of_type (RivOutputView *view,
              const char    *type)
{
  for (guint i = 0; i < riv_output_view_get_n_cards (view); i++)
    if (g_strcmp0 (riv_output_card_get_component_type (riv_output_view_get_card (view, i)),
                   type) == 0)
      return riv_output_view_get_card (view, i);
  g_assert_not_reached ();
}

static gboolean
picture_shown (gpointer user_data)
{
  riv_output_view_flush (user_data);
  return riv_output_view_get_texture (user_data) != NULL ||
         riv_output_view_get_image_error (user_data) != NULL;
}

static void
test_mixed (Fixture       *fixture,
            gconstpointer  user_data)
{
  RivOutputView *view = run_demo (fixture, "mixed", "[\"Nile\", 0.05]");
  GdkPaintable *paintable;
  RivOutputCard *card;
  GtkMediaStream *stream;
  g_autofree char *json = NULL;
  g_autofree char *label = NULL;
  g_autofree char *markdown = NULL;
  g_autofree char *file = NULL;
  g_autofree char *sound = NULL;
  g_autofree char *uri = NULL;
  RivJobPanel *panel;

  /* The picture (WebP when the server has libwebp) decoded at its size; the
   * other five outputs as cards in the config's order. The client downloads
   * the picture on its own: wait for it. */
  g_assert_true (riv_test_wait_until (picture_shown, view, 60));
  paintable = gtk_picture_get_paintable (riv_output_view_get_picture (view));
  g_assert_true (GDK_IS_TEXTURE (paintable));
  g_assert_cmpint (gdk_texture_get_width (GDK_TEXTURE (paintable)), ==, 256);
  g_assert_null (riv_output_view_get_image_error (view));
  g_assert_cmpuint (riv_output_view_get_n_cards (view), ==, 5);
  g_assert_cmpstr (riv_output_card_get_component_type (riv_output_view_get_card (view, 0)), ==,
                   "json");
  g_assert_cmpstr (riv_output_card_get_component_type (riv_output_view_get_card (view, 4)), ==,
                   "audio");

  json = riv_output_card_dup_text (card_of_type (view, "json"));
  g_assert_nonnull (strstr (json, "\n  \"tributaries\": [\n    \"White Nile\",\n"));
  g_assert_nonnull (strstr (json, "\"subject\": \"Nile\""));
  g_assert_nonnull (strstr (json, "\"lat\": -2.28,"));

  card = card_of_type (view, "label");
  label = riv_output_card_dup_text (card);
  g_assert_true (g_str_has_prefix (label, "Nile\n"));
  g_assert_cmpuint (riv_output_card_get_n_items (card), ==, 3);
  g_assert_cmpfloat_with_epsilon (riv_output_card_get_bar_fraction (card, 0), 0.72, 1e-9);
  g_assert_cmpfloat_with_epsilon (riv_output_card_get_bar_fraction (card, 2), 0.10, 1e-9);

  markdown = riv_output_card_dup_text (card_of_type (view, "markdown"));
  g_assert_true (g_str_has_prefix (markdown, "# Report on Nile"));

  card = card_of_type (view, "file");
  file = riv_output_card_dup_text (card);
  g_assert_cmpstr (file, ==, "report.txt");
  g_assert_cmpuint (riv_output_card_get_n_items (card), ==, 1);

  card = card_of_type (view, "audio");
  sound = riv_output_card_dup_text (card);
  g_assert_cmpstr (sound, ==, "tone.wav");
  stream = riv_output_card_get_media_stream (card);
  g_assert_true (GTK_IS_MEDIA_FILE (stream));
  uri = g_file_get_uri (gtk_media_file_get_file (GTK_MEDIA_FILE (stream)));
  g_assert_true (g_str_has_prefix (uri, riv_embedded_server_get_url (fixture->server)));
  g_assert_true (g_str_has_suffix (uri, "-sound.wav"));

  /* The job panel's search finds text inside any output. */
  panel = riv_window_get_job_panel (fixture->window);
  riv_job_panel_set_search (panel, "blue NILE");
  riv_job_panel_flush (panel);
  g_assert_cmpuint (riv_job_panel_get_n_rows (panel), ==, 1);
  riv_job_panel_set_search (panel, "danube");
  riv_job_panel_flush (panel);
  g_assert_cmpuint (riv_job_panel_get_n_rows (panel), ==, 0);
  riv_job_panel_set_search (panel, NULL);
}

static gboolean
toast_shown (gpointer user_data)
{
  RivWindow *window = user_data;

  return window->toasts[RIV_REPORT_WARNING] != NULL && window->toasts[RIV_REPORT_INFO] != NULL;
}

static void
test_logs (Fixture       *fixture,
           gconstpointer  user_data)
{
  RivOutputView *view = run_demo (fixture, "logs", "[6, 0.02]");
  RivJob *job = riv_output_view_get_job (view);
  gboolean in_timeline = FALSE;

  /* Six infos and two warnings, in the job and its timeline... */
  g_assert_cmpuint (riv_job_get_n_logs (job), ==, 8);
  g_assert_cmpstr (riv_job_get_log (job, 3)->level, ==, "warning");
  g_assert_cmpstr (riv_job_get_log (job, 3)->message, ==, "Step 3: the water is rising");
  for (guint i = 0; i < riv_job_get_timeline_length (job); i++)
    if (strstr (riv_job_get_timeline_event (job, i)->what, "the water is rising") != NULL)
      in_timeline = TRUE;
  g_assert_true (in_timeline);

  /* ...and as toasts, a burst of them grouped into one per level. */
  g_assert_true (riv_test_wait_until (toast_shown, fixture->window, 30));
  g_assert_true (g_str_has_prefix (adw_toast_get_title (fixture->window->toasts[RIV_REPORT_WARNING]),
                                   "Job #1: Step "));
  g_assert_nonnull (strstr (adw_toast_get_title (fixture->window->toasts[RIV_REPORT_WARNING]),
                            ": the water is rising"));
  g_assert_true (g_str_has_prefix (adw_toast_get_title (fixture->window->toasts[RIV_REPORT_INFO]),
                                   "Job #1: Step "));
}

/* A server that answers every request with bytes that are no image. */
static void
junk_cb (SoupServer        *server,
         SoupServerMessage *msg,
         const char        *path,
         GHashTable        *query,
         gpointer           user_data)
{
  static const char junk[] = "RIFF\x10\0\0\0WEBPnot really a picture";

  soup_server_message_set_status (msg, SOUP_STATUS_OK, NULL);
  soup_server_message_set_response (msg, "image/webp", SOUP_MEMORY_STATIC, junk, sizeof junk);
}

static gboolean
card_settled (gpointer user_data)
{
  return riv_output_card_get_n_pending (user_data) == 0;
}

static void
test_undecodable_image (void)
{
  g_autoptr(SoupServer) server = soup_server_new (NULL, NULL);
  g_autoptr(GError) error = NULL;
  g_autoptr(RivJob) job = _riv_job_new (1, "/picture", 0, NULL);
  g_autoptr(JsonNode) value = NULL;
  g_autofree char *json = NULL;
  GSList *uris;
  RivComponent component = { .type = (char *) "image", .label = (char *) "picture" };
  GtkWidget *window = gtk_window_new ();
  GtkWidget *card = riv_output_card_new (&component, NULL);
  const RivJobEvent *last;

  soup_server_add_handler (server, NULL, junk_cb, NULL, NULL);
  g_assert_true (soup_server_listen_local (server, 0, SOUP_SERVER_LISTEN_IPV4_ONLY, &error));
  g_assert_no_error (error);
  uris = soup_server_get_uris (server);
  {
    g_autofree char *base = g_uri_to_string (uris->data);

    json = g_strdup_printf ("{\"url\":\"%sfile=bad.webp\",\"orig_name\":\"bad.webp\"}", base);
  }
  g_slist_free_full (uris, (GDestroyNotify) g_uri_unref);
  value = riv_json_parse (NULL, json, -1, 0, &error);
  g_assert_no_error (error);

  gtk_window_set_child (GTK_WINDOW (window), card);
  gtk_window_present (GTK_WINDOW (window));
  riv_output_card_set_value (RIV_OUTPUT_CARD (card), value, job);
  g_assert_true (riv_test_wait_until (card_settled, card, 60));

  /* No picture; the card and the job's timeline say why. */
  g_assert_null (riv_output_card_get_texture (RIV_OUTPUT_CARD (card), 0));
  g_assert_nonnull (riv_output_card_get_error (RIV_OUTPUT_CARD (card)));
  g_assert_true (g_str_has_prefix (riv_output_card_get_error (RIV_OUTPUT_CARD (card)),
                                   "Could not decode the image bad.webp"));
  last = riv_job_get_timeline_event (job, riv_job_get_timeline_length (job) - 1);
  g_assert_cmpstr (last->what, ==, riv_output_card_get_error (RIV_OUTPUT_CARD (card)));

  gtk_window_destroy (GTK_WINDOW (window));
}

int
main (int   argc,
      char *argv[])
{
  riv_ui_test_init (&argc, &argv);

  g_test_add ("/ui/outputs/chat", Fixture, NULL, fixture_setup, test_chat, fixture_teardown);
  g_test_add ("/ui/outputs/gallery", Fixture, NULL, fixture_setup, test_gallery,
              fixture_teardown);
  g_test_add ("/ui/outputs/mixed", Fixture, NULL, fixture_setup, test_mixed, fixture_teardown);
  g_test_add ("/ui/outputs/logs", Fixture, NULL, fixture_setup, test_logs, fixture_teardown);
  g_test_add_func ("/ui/outputs/undecodable-image", test_undecodable_image);

  return g_test_run ();
}
