/* test-ui-outputs.c
 * Copyright 2026 The Rivulet authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * One card per output component, against the embedded server's chat,
 * gallery and mixed demos: the chat's final text in its bubbles, the
 * gallery's item count and decoded pictures, the mixed demo's WebP picture,
 * pretty JSON, label bars, markdown, file and audio stream; and an image
 * that cannot be decoded says so in its card and in the job's timeline.
 * The shapes_* demos: gr.update and gr.skip applied as Gradio's page applies
 * them, plots (a matplotlib picture, Plotly/Altair/Bokeh tables), five
 * outputs all shown, a ChatInterface's reply as bubbles, highlighted text in
 * colour, and a failed generator's run time in the job panel.
 */
#include "config.h"

#include <adwaita.h>
#include <libsoup/soup.h>
#include <string.h>

#include "riv-compat.h"
#include "riv-demo.h"
#include "riv-format.h"
#include "riv-job-panel.h"
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

static void
fixture_setup (Fixture       *fixture,
               gconstpointer  user_data)
{
  riv_ui_test_window_open (&fixture->server, &fixture->window, 1200, 800);
}

static void
fixture_teardown (Fixture       *fixture,
                  gconstpointer  user_data)
{
  riv_ui_test_window_close (&fixture->server, &fixture->window);
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
submit_demo (Fixture    *fixture,
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
  return view;
}

static RivOutputView *
run_demo (Fixture    *fixture,
          const char *endpoint,
          const char *data_json)
{
  RivOutputView *view = submit_demo (fixture, endpoint, data_json);

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

static gboolean
media_ready (gpointer user_data)
{
  return riv_output_card_get_n_pending (user_data) == 0;
}

static gboolean
file_gone (gpointer user_data)
{
  return !g_file_test (user_data, G_FILE_TEST_EXISTS);
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
  g_autofree char *media_path = NULL;
  g_autofree char *media = NULL;
  gsize media_size = 0;
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

  /* The sound, downloaded with the client's credentials into a file of the
   * card's own (a .wav, as the server's), plays from there; the file goes
   * with the card. */
  card = card_of_type (view, "audio");
  sound = riv_output_card_dup_text (card);
  g_assert_cmpstr (sound, ==, "tone.wav");
  g_assert_true (riv_test_wait_until (media_ready, card, 60));
  g_assert_null (riv_output_card_get_error (card));
  stream = riv_output_card_get_media_stream (card);
  g_assert_true (GTK_IS_MEDIA_FILE (stream));
  media_path = g_file_get_path (gtk_media_file_get_file (GTK_MEDIA_FILE (stream)));
  g_assert_nonnull (media_path);
  g_assert_true (g_str_has_suffix (media_path, ".wav"));
  g_assert_true (g_file_get_contents (media_path, &media, &media_size, NULL));
  g_assert_cmpuint (media_size, >, 44);
  g_assert_cmpmem (media, 4, "RIFF", 4);
  g_assert_cmpmem (media + 8, 4, "WAVE", 4);
  riv_output_card_set_value (card, NULL, NULL);
  g_assert_null (riv_output_card_get_media_stream (card));
  g_assert_true (riv_test_wait_until (file_gone, media_path, 30));

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

  return riv_reports_get_toast (window->reports, RIV_REPORT_WARNING) != NULL &&
         riv_reports_get_toast (window->reports, RIV_REPORT_INFO) != NULL;
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
  g_assert_true (g_str_has_prefix (adw_toast_get_title (riv_reports_get_toast (fixture->window->reports, RIV_REPORT_WARNING)),
                                   "Job #1: Step "));
  g_assert_nonnull (strstr (adw_toast_get_title (riv_reports_get_toast (fixture->window->reports, RIV_REPORT_WARNING)),
                            ": the water is rising"));
  g_assert_true (g_str_has_prefix (adw_toast_get_title (riv_reports_get_toast (fixture->window->reports, RIV_REPORT_INFO)),
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

/* shapes_update: each output as Gradio's page shows it after the updates. */
static void
test_update (Fixture       *fixture,
             gconstpointer  user_data)
{
  RivOutputView *view = run_demo (fixture, "shapes_update", "[\"high water\"]");
  RivOutputCard *answer, *secret, *notes, *kept;
  g_autofree char *answer_text = NULL;
  g_autofree char *secret_text = NULL;
  g_autofree char *notes_text = NULL;
  g_autofree char *kept_text = NULL;
  g_autofree char *middle = NULL;

  /* Four textboxes: four cards, titled with their labels. */
  g_assert_cmpuint (riv_output_view_get_n_cards (view), ==, 4);
  answer = riv_output_view_get_card (view, 0);
  secret = riv_output_view_get_card (view, 1);
  notes = riv_output_view_get_card (view, 2);
  kept = riv_output_view_get_card (view, 3);

  /* gr.update(value=…, visible=True): the value, not the update's JSON. */
  answer_text = riv_output_card_dup_text (answer);
  g_assert_cmpstr (answer_text, ==, "high water");
  g_assert_cmpstr (riv_output_card_get_title (answer), ==, "answer");
  g_assert_false (riv_output_card_is_hidden (answer));
  g_assert_null (riv_output_card_get_note (answer));

  /* gr.update(visible=False): the card stays and says it is hidden; no
   * value, so the component keeps its own. */
  g_assert_true (riv_output_card_is_hidden (secret));
  g_assert_nonnull (strstr (riv_output_card_get_note (secret), "Hidden by the app"));
  secret_text = riv_output_card_dup_text (secret);
  g_assert_cmpstr (secret_text, ==, "classified");

  /* gr.update(label=…): the new title, the value kept. */
  g_assert_cmpstr (riv_output_card_get_title (notes), ==, "notes, renamed");
  notes_text = riv_output_card_dup_text (notes);
  g_assert_cmpstr (notes_text, ==, "notes as configured");
  g_assert_false (riv_output_card_is_hidden (notes));

  /* gr.skip(): nothing changes, and the card says so. */
  kept_text = riv_output_card_dup_text (kept);
  g_assert_cmpstr (kept_text, ==, "kept as configured");
  g_assert_cmpstr (riv_output_card_get_title (kept), ==, "kept");
  g_assert_nonnull (strstr (riv_output_card_get_note (kept), "Not updated"));

  /* No raw update anywhere. */
  middle = riv_output_view_dup_text (view);
  g_assert_null (strstr (middle, "__type__"));
}

/* A lone textbox (the classic view) given gr.update, gr.skip, then hidden. */
static void
test_update_classic (void)
{
  static const char config_json[] =
    "{\"version\":\"6.25.0\",\"protocol\":\"sse_v3\",\"components\":["
    "{\"id\":1,\"type\":\"textbox\",\"props\":{\"label\":\"in\",\"value\":\"\"}},"
    "{\"id\":2,\"type\":\"textbox\",\"props\":{\"label\":\"out\",\"value\":\"\"}}],"
    "\"dependencies\":[{\"id\":0,\"inputs\":[1],\"outputs\":[2],\"api_name\":\"echo\","
    "\"backend_fn\":true,\"queue\":true,\"types\":{\"generator\":true}}]}";
  g_autoptr(GError) error = NULL;
  RivConfig *config = riv_config_new_from_data (config_json, -1, "http://127.0.0.1:1", &error);
  g_autoptr(RivJob) job = _riv_job_new (1, "/echo", 0, NULL);
  GtkWidget *window = gtk_window_new ();
  GtkWidget *view = riv_output_view_new ();
  g_autofree char *first = NULL;
  g_autofree char *second = NULL;
  g_autofree char *third = NULL;
  RivOutputCard *card;

  g_assert_no_error (error);
  gtk_window_set_child (GTK_WINDOW (window), view);
  gtk_window_present (GTK_WINDOW (window));
  riv_output_view_set_job (RIV_OUTPUT_VIEW (view), job, config);

  _riv_job_publish_outputs (job, riv_json_parse (NULL, "[{\"visible\":true,\"value\":\"x\","
                                                 "\"__type__\":\"update\"}]", -1, 0, NULL));
  riv_output_view_flush (RIV_OUTPUT_VIEW (view));
  g_assert_cmpuint (riv_output_view_get_n_cards (RIV_OUTPUT_VIEW (view)), ==, 0);
  first = riv_output_view_dup_text (RIV_OUTPUT_VIEW (view));
  g_assert_cmpstr (first, ==, "x");

  _riv_job_publish_outputs (job, riv_json_parse (NULL, "[{\"__type__\":\"update\"}]", -1, 0,
                                                 NULL));
  riv_output_view_flush (RIV_OUTPUT_VIEW (view));
  second = riv_output_view_dup_text (RIV_OUTPUT_VIEW (view));
  g_assert_cmpstr (second, ==, "x");

  /* gr.update(visible=False): the text pane cannot say it, so the textbox
   * becomes a card that does, its value kept. */
  _riv_job_publish_outputs (job, riv_json_parse (NULL, "[{\"visible\":false,"
                                                 "\"__type__\":\"update\"}]", -1, 0, NULL));
  riv_output_view_flush (RIV_OUTPUT_VIEW (view));
  g_assert_cmpuint (riv_output_view_get_n_cards (RIV_OUTPUT_VIEW (view)), ==, 1);
  card = riv_output_view_get_card (RIV_OUTPUT_VIEW (view), 0);
  g_assert_true (riv_output_card_is_hidden (card));
  g_assert_cmpstr (riv_output_card_get_title (card), ==, "out");
  third = riv_output_card_dup_text (card);
  g_assert_cmpstr (third, ==, "x");

  gtk_window_destroy (GTK_WINDOW (window));
  riv_config_unref (config);
}

/* Pixels of texture within 12 of colour (0xRRGGBB), opaque. */
static guint
count_pixels (GdkTexture *texture,
              guint32     colour)
{
  int width = gdk_texture_get_width (texture);
  int height = gdk_texture_get_height (texture);
  g_autofree guchar *data = g_malloc ((gsize) width * height * 4);
  guint n = 0;

  gdk_texture_download (texture, data, (gsize) width * 4);
  for (int i = 0; i < width * height; i++)
    {
      /* GDK_MEMORY_DEFAULT: B, G, R, A, premultiplied (opaque here). */
      const guchar *p = data + i * 4;

      if (p[3] == 255 && ABS (p[2] - (int) ((colour >> 16) & 0xff)) <= 12 &&
          ABS (p[1] - (int) ((colour >> 8) & 0xff)) <= 12 &&
          ABS (p[0] - (int) (colour & 0xff)) <= 12)
        n++;
    }
  return n;
}

static void
test_plot (Fixture       *fixture,
           gconstpointer  user_data)
{
  RivOutputView *view = run_demo (fixture, "shapes_plot", "[5]");
  RivOutputCard *card;
  GdkTexture *texture;
  g_autofree char *matplotlib = NULL;
  g_autofree char *plotly = NULL;
  g_autofree char *altair = NULL;
  g_autofree char *bokeh = NULL;

  g_assert_cmpuint (riv_output_view_get_n_cards (view), ==, 4);
  for (guint i = 0; i < 4; i++)
    {
      g_assert_cmpstr (riv_output_card_get_component_type (riv_output_view_get_card (view, i)),
                       ==, "plot");
      g_assert_null (riv_output_card_get_error (riv_output_view_get_card (view, i)));
    }

  /* matplotlib: a picture, not base64 text, in the plot's own colours: a
   * white figure, the blue line and the orange bars. */
  card = riv_output_view_get_card (view, 0);
  texture = riv_output_card_get_texture (card, 0);
  g_assert_nonnull (texture);
  g_assert_cmpint (gdk_texture_get_width (texture), ==, 256);
  g_assert_cmpint (gdk_texture_get_height (texture), ==, 256);
  g_assert_cmpuint (count_pixels (texture, 0xffffff), >, 256 * 256 / 2);
  g_assert_cmpuint (count_pixels (texture, 0x1f77b4), >, 500);
  g_assert_cmpuint (count_pixels (texture, 0xff7f0e), >, 2000);
  matplotlib = riv_output_card_dup_text (card);
  g_assert_null (strstr (matplotlib, "base64"));

  /* Plotly, Altair, Bokeh: the title and a row per series with its points,
   * typed arrays (Plotly's bdata, Bokeh's ndarray) decoded. */
  plotly = riv_output_card_dup_text (riv_output_view_get_card (view, 1));
  g_assert_true (g_str_has_prefix (plotly, "Plotly plot · Rain and snow\n"));
  g_assert_nonnull (strstr (plotly, "\nrain\tscatter (lines)\t5\t(1, 2), (2, "));
  g_assert_nonnull (strstr (plotly, "\nsnow\tbar\t5\t(1, 1), (2, 2), (3, 3), (4, 1), (5, 2)"));
  altair = riv_output_card_dup_text (riv_output_view_get_card (view, 2));
  g_assert_true (g_str_has_prefix (altair, "Altair plot · River levels\n"));
  g_assert_nonnull (strstr (altair, "\nNile\tline\t5\t(1, 2), (2, "));
  g_assert_nonnull (strstr (altair, "\nAmazon\tline\t5\t(1, 1), (2, 2), (3, 3), (4, 1), (5, 2)"));
  bokeh = riv_output_card_dup_text (riv_output_view_get_card (view, 3));
  g_assert_true (g_str_has_prefix (bokeh, "Bokeh plot · Tides\n"));
  g_assert_nonnull (strstr (bokeh, "\nline 1\tline\t5\t(1, 2), (2, "));
  g_assert_nonnull (strstr (bokeh, "\nvbar 2\tvbar\t5\t(1, 1), (2, 2), (3, 3), (4, 1), (5, 2)"));
}

/* Plot values a server should not send: each one a clear error in its card. */
static void
test_bad_plots (void)
{
  static const char *const bad[] = {
    "{\"type\":\"matplotlib\",\"plot\":\"not a data URL\"}",
    "{\"type\":\"matplotlib\",\"plot\":\"data:image/png;base64,AAAA\"}",
    "{\"type\":\"matplotlib\",\"plot\":\"data:image/png,plain\"}",
    "{\"type\":\"plotly\",\"plot\":\"{not JSON\"}",
    "{\"type\":\"plotly\"}",
    "{\"type\":\"vega\",\"plot\":\"{}\"}",
    "[\"plotly\", \"{}\"]",
  };
  RivComponent component = { .type = (char *) "plot", .label = (char *) "figure" };
  GtkWidget *window = gtk_window_new ();
  GtkWidget *card = riv_output_card_new (&component, NULL);
  g_autoptr(JsonNode) odd = NULL;
  g_autoptr(RivJob) last = NULL;
  g_autofree char *text = NULL;

  gtk_window_set_child (GTK_WINDOW (window), card);
  gtk_window_present (GTK_WINDOW (window));
  for (guint i = 0; i < G_N_ELEMENTS (bad); i++)
    {
      g_autoptr(RivJob) job = _riv_job_new (i + 1, "/plot", 0, NULL);
      g_autoptr(JsonNode) value = riv_json_parse (NULL, bad[i], -1, 0, NULL);

      riv_output_card_set_value (RIV_OUTPUT_CARD (card), value, job);
      g_assert_true (riv_test_wait_until (card_settled, card, 60));
      g_assert_nonnull (riv_output_card_get_error (RIV_OUTPUT_CARD (card)));
      g_assert_true (g_str_has_prefix (riv_output_card_get_error (RIV_OUTPUT_CARD (card)),
                                       "Could not show the plot: "));
      g_assert_null (riv_output_card_get_texture (RIV_OUTPUT_CARD (card), 0));
    }

  /* Odd but readable: series of the wrong shape are rows all the same. */
  last = _riv_job_new (99, "/plot", 0, NULL);
  odd = riv_json_parse (NULL, "{\"type\":\"plotly\",\"plot\":\"{\\\"data\\\":[1,{\\\"y\\\":\\\"x\\\"},"
                        "{\\\"x\\\":[1,2],\\\"y\\\":{\\\"dtype\\\":\\\"f8\\\",\\\"bdata\\\":\\\"AA\\\"}}]}\"}",
                        -1, 0, NULL);
  g_assert_nonnull (odd);
  riv_output_card_set_value (RIV_OUTPUT_CARD (card), odd, last);
  g_assert_true (riv_test_wait_until (card_settled, card, 60));
  g_assert_null (riv_output_card_get_error (RIV_OUTPUT_CARD (card)));
  text = riv_output_card_dup_text (RIV_OUTPUT_CARD (card));
  g_assert_cmpstr (text, ==, "Plotly plot\ntrace 1\tscatter\t0\t\ntrace 2\tscatter\t0\t");

  gtk_window_destroy (GTK_WINDOW (window));
}

/* A label with this text, on screen under root. */
static gboolean
label_on_screen (GtkWidget  *root,
                 const char *text)
{
  if (GTK_IS_LABEL (root) && gtk_widget_get_mapped (root) &&
      g_strcmp0 (gtk_label_get_text (GTK_LABEL (root)), text) == 0)
    return TRUE;
  for (GtkWidget *child = gtk_widget_get_first_child (root); child != NULL;
       child = gtk_widget_get_next_sibling (child))
    if (label_on_screen (child, text))
      return TRUE;
  return FALSE;
}

static void
test_five (Fixture       *fixture,
           gconstpointer  user_data)
{
  RivOutputView *view = run_demo (fixture, "shapes_five", "[\"Nile\"]");
  RivOutputCard *card;
  g_autofree char *summary = NULL;
  g_autofree char *report = NULL;
  const char *types[] = { "textbox", "json", "label", "markdown" };

  /* The picture, then a card for each of the other four, the text among
   * them titled with its label; nowhere "No text output". */
  g_assert_true (riv_test_wait_until (picture_shown, view, 60));
  g_assert_nonnull (riv_output_view_get_texture (view));
  g_assert_cmpint (gdk_texture_get_width (riv_output_view_get_texture (view)), ==, 256);
  g_assert_cmpuint (riv_output_view_get_n_cards (view), ==, 4);
  for (guint i = 0; i < 4; i++)
    g_assert_cmpstr (riv_output_card_get_component_type (riv_output_view_get_card (view, i)),
                     ==, types[i]);
  card = riv_output_view_get_card (view, 0);
  g_assert_cmpstr (riv_output_card_get_title (card), ==, "summary");
  summary = riv_output_card_dup_text (card);
  g_assert_cmpstr (summary, ==, "The Nile is about 6650 km long and flows north.");
  report = riv_output_card_dup_text (card_of_type (view, "markdown"));
  g_assert_true (g_str_has_prefix (report, "## Nile"));
  g_assert_false (label_on_screen (GTK_WIDGET (view), "No text output"));
  g_assert_true (label_on_screen (GTK_WIDGET (view), summary));
}

static void
test_chat_reply (Fixture       *fixture,
                 gconstpointer  user_data)
{
  RivOutputView *view = run_demo (fixture, "shapes_chat", "[\"Which river?\"]");
  RivOutputCard *card;
  g_autofree char *text = NULL;

  /* The hidden "Response" JSON (the State has no card) as the assistant's
   * chat bubble, its markdown rendered; no quoted JSON string. */
  g_assert_cmpuint (riv_output_view_get_n_cards (view), ==, 1);
  card = riv_output_view_get_card (view, 0);
  g_assert_cmpuint (riv_output_card_get_n_items (card), ==, 1);
  text = riv_output_card_dup_text (card);
  g_assert_cmpstr (text, ==, "assistant: You asked: “Which river?”. "
                             "The **Nile** is the longest river, at about 6650 km.");
  g_assert_true (label_on_screen (GTK_WIDGET (view), "You asked: “Which river?”. "
                                  "The Nile is the longest river, at about 6650 km."));
  g_assert_false (label_on_screen (GTK_WIDGET (view),
                                   "\"You asked: “Which river?”. The **Nile** is the longest "
                                   "river, at about 6650 km.\""));
}

static void
test_highlighted (Fixture       *fixture,
                  gconstpointer  user_data)
{
  RivOutputView *view = run_demo (fixture, "shapes_text", "[null]");
  g_autofree char *entities = riv_output_card_dup_text (riv_output_view_get_card (view, 0));
  g_autofree char *entities_markup = riv_output_card_dup_markup (riv_output_view_get_card (view,
                                                                                          0));
  g_autofree char *scores = riv_output_card_dup_text (riv_output_view_get_card (view, 1));
  g_autofree char *scores_markup = riv_output_card_dup_markup (riv_output_view_get_card (view, 1));
  g_autofree char *river = NULL;

  /* The text reads as written; the words of the scored output, tokens with
   * no spaces of their own, are spaced apart. */
  g_assert_cmpstr (entities, ==, "The Nile flows through Cairo to the Mediterranean");
  g_assert_cmpstr (scores, ==, "The Nile flows through Cairo to the Mediterranean");

  /* A colour per label, in order of appearance, the label named beside. */
  river = g_strdup_printf ("background=\"#ef4444\" bgalpha=\"35%%\"> Nile <span size=\"small\" "
                           "weight=\"bold\" foreground=\"#ef4444\">RIVER</span>");
  g_assert_nonnull (strstr (entities_markup, river));
  g_assert_nonnull (strstr (entities_markup, "foreground=\"#22c55e\">CITY</span>"));
  g_assert_nonnull (strstr (entities_markup, "foreground=\"#3b82f6\">SEA</span>"));
  /* Scores tint by sign and size: "Nile" +0.8, "flows" -0.8. */
  g_assert_nonnull (strstr (scores_markup, "<span background=\"#ef443c\" bgalpha=\"80%\">Nile"));
  g_assert_nonnull (strstr (scores_markup, "<span background=\"#805ad5\" bgalpha=\"80%\">flows"));
}

/* The job panel's GtkColumnView. */
static GtkWidget *
panel_column_view (RivJobPanel *panel)
{
  GtkWidget *widget = GTK_WIDGET (panel);

  while (widget != NULL && !GTK_IS_COLUMN_VIEW (widget))
    {
      GtkWidget *next = gtk_widget_get_first_child (widget);

      /* Depth first to the first GtkColumnView. */
      while (next == NULL && widget != GTK_WIDGET (panel))
        {
          next = gtk_widget_get_next_sibling (widget);
          if (next == NULL)
            widget = gtk_widget_get_parent (widget);
        }
      widget = next;
    }
  g_assert_nonnull (widget);
  return widget;
}

/* The text of the job panel's cell in the column titled title, first row. */
static char *
panel_cell_text (RivJobPanel *panel,
                 const char  *title)
{
  GtkWidget *widget = panel_column_view (panel);
  GListModel *columns;
  guint column = 0, n;

  columns = gtk_column_view_get_columns (GTK_COLUMN_VIEW (widget));
  n = g_list_model_get_n_items (columns);
  for (guint i = 0; i < n; i++)
    {
      g_autoptr(GtkColumnViewColumn) c = g_list_model_get_item (columns, i);

      if (g_strcmp0 (gtk_column_view_column_get_title (c), title) == 0)
        break;
      if (gtk_column_view_column_get_visible (c))
        column++;
    }

  /* Rows are "row" nodes, their cells "cell" nodes in column order. */
  for (GtkWidget *w = widget; w != NULL;)
    {
      GtkWidget *next;

      if (g_strcmp0 (gtk_widget_get_css_name (w), "row") == 0)
        {
          GtkWidget *cell = gtk_widget_get_first_child (w);

          for (guint i = 0; cell != NULL && i < column; i++)
            cell = gtk_widget_get_next_sibling (cell);
          while (cell != NULL && !GTK_IS_INSCRIPTION (cell))
            cell = gtk_widget_get_first_child (cell);
          g_assert_nonnull (cell);
          return g_strdup (gtk_inscription_get_text (GTK_INSCRIPTION (cell)));
        }
      next = gtk_widget_get_first_child (w);
      while (next == NULL && w != widget)
        {
          next = gtk_widget_get_next_sibling (w);
          if (next == NULL)
            w = gtk_widget_get_parent (w);
        }
      w = next;
    }
  g_assert_not_reached ();
}

static gboolean
panel_drawn (gpointer user_data)
{
  riv_job_panel_flush (user_data);
  return FALSE;
}

static void
test_failed_run_time (Fixture       *fixture,
                      gconstpointer  user_data)
{
  RivOutputView *view = submit_demo (fixture, "shapes_fail", "[0.07]");
  RivJob *job = riv_output_view_get_job (view);
  RivJobPanel *panel = riv_window_get_job_panel (fixture->window);
  g_autofree char *expected = NULL;
  g_autofree char *shown = NULL;

  /* The job ran from its process_starts to its failure (the server gives
   * no duration for a failure), and the panel's Run column says so. The
   * figure itself is arrival times, which a loaded machine compresses: no
   * bound on it here. */
  g_assert_cmpint (riv_job_get_status (job), ==, RIV_JOB_STATUS_FAILED);
  g_assert_cmpstr (riv_job_get_error (job), ==, "The river ran dry");
  g_assert_cmpfloat (riv_job_get_started_at (job), >, 0);
  g_assert_cmpfloat (riv_job_get_run_time (job), ==,
                     riv_job_get_finished_at (job) - riv_job_get_started_at (job));
  riv_test_wait_until (panel_drawn, panel, 0.5);
  expected = riv_format_duration (riv_job_get_run_time (job));
  shown = panel_cell_text (panel, "Run");
  g_assert_cmpstr (shown, ==, expected);
}

/* The rows' job numbers, top to bottom, as "n n n n". */
static char *
panel_order (RivJobPanel *panel)
{
  GListModel *rows = riv_job_panel_get_view_model (panel);
  g_autoptr(GString) order = g_string_new (NULL);

  for (guint i = 0; i < g_list_model_get_n_items (rows); i++)
    {
      g_autoptr(RivJob) job = g_list_model_get_item (rows, i);

      g_string_append_printf (order, "%s%u", i > 0 ? " " : "", riv_job_get_number (job));
    }
  return g_string_free (g_steal_pointer (&order), FALSE);
}

/* A job moved through statuses at given seconds after base (a replayed clock). */
static RivJob *
sort_job (guint       number,
          const char *endpoint,
          double      base,
          double      started,
          double      first_update,
          double      ended,
          RivJobStatus end_status,
          const char *batch,
          gint64      batch_index)
{
  RivJob *job = _riv_job_new (number, endpoint, 0, NULL);

  _riv_job_set_batch (job, batch, 4, batch_index, FALSE);
  if (started >= 0)
    {
      _riv_job_set_replay_time (job, base + started);
      _riv_job_set_status (job, RIV_JOB_STATUS_RUNNING);
    }
  if (first_update >= 0)
    {
      _riv_job_set_replay_time (job, base + first_update);
      _riv_job_count_update (job, TRUE, 0, 0);
      _riv_job_set_progress (job, 0.5, -1, -1, NULL);
    }
  if (ended >= 0)
    {
      _riv_job_set_replay_time (job, base + ended);
      _riv_job_finish (job, end_status, end_status == RIV_JOB_STATUS_FAILED ? "boom" : NULL);
    }
  _riv_job_set_replay_time (job, 0);
  return job;
}

/* Clicking a column's header sorts the jobs by what it shows, ties by job
 * number, and a second click turns the order round. */
static void
test_panel_sorting (void)
{
  g_autoptr(GListStore) jobs = g_list_store_new (RIV_TYPE_JOB);
  GtkWidget *window = gtk_window_new ();
  RivJobPanel *panel = RIV_JOB_PANEL (riv_job_panel_new ());
  double base = riv_now ();
  static const struct { const char *column; const char *up; const char *down; } cases[] = {
    { "#", "1 2 3 4", "4 3 2 1" },
    { "Endpoint", "2 1 3 4", "4 3 1 2" },          /* /a, /b (1, 3), /c */
    { "Status", "3 2 1 4", "4 1 2 3" },            /* pending, running, done, failed */
    { "Batch", "4 3 2 1", "1 2 3 4" },             /* B0, B1 #0, B1 #1, B2 */
    { "Progress", "3 4 2 1", "1 2 4 3" },          /* 0, 0 (failed), ½, done */
    { "Wait", "3 2 4 1", "1 4 2 3" },              /* none, 1 s, 2 s, 3 s */
    { "First", "3 4 1 2", "2 1 4 3" },             /* none, 2.5 s, 3.2 s, 3.5 s */
  };
  GtkColumnView *view;
  GListModel *columns;

  {
    g_autoptr(RivJob) j1 = sort_job (1, "/b", base, 3, -1, 3.2, RIV_JOB_STATUS_COMPLETED, "B2", 0);
    g_autoptr(RivJob) j2 = sort_job (2, "/a", base, 1, 3.5, -1, RIV_JOB_STATUS_PENDING, "B1", 1);
    g_autoptr(RivJob) j3 = sort_job (3, "/b", base, -1, -1, -1, RIV_JOB_STATUS_PENDING, "B1", 0);
    g_autoptr(RivJob) j4 = sort_job (4, "/c", base, 2, -1, 2.5, RIV_JOB_STATUS_FAILED, "B0", 0);
    RivJob *all[] = { j1, j2, j3, j4 };

    g_list_store_splice (jobs, 0, 0, (gpointer *) all, G_N_ELEMENTS (all));
  }
  gtk_window_set_child (GTK_WINDOW (window), GTK_WIDGET (panel));
  riv_job_panel_set_jobs (panel, G_LIST_MODEL (jobs));
  view = GTK_COLUMN_VIEW (panel_column_view (panel));
  columns = gtk_column_view_get_columns (view);

  for (guint c = 0; c < G_N_ELEMENTS (cases); c++)
    {
      g_autoptr(GtkColumnViewColumn) column = NULL;
      g_autofree char *up = NULL;
      g_autofree char *down = NULL;

      for (guint i = 0; i < g_list_model_get_n_items (columns) && column == NULL; i++)
        {
          g_autoptr(GtkColumnViewColumn) candidate = g_list_model_get_item (columns, i);

          if (g_strcmp0 (gtk_column_view_column_get_title (candidate), cases[c].column) == 0)
            column = g_steal_pointer (&candidate);
        }
      g_assert_nonnull (column);
      g_assert_nonnull (gtk_column_view_column_get_sorter (column));
      gtk_column_view_sort_by_column (view, column, GTK_SORT_ASCENDING);
      up = panel_order (panel);
      gtk_column_view_sort_by_column (view, column, GTK_SORT_DESCENDING);
      down = panel_order (panel);
      g_test_message ("%s: %s / %s", cases[c].column, up, down);
      g_assert_cmpstr (up, ==, cases[c].up);
      g_assert_cmpstr (down, ==, cases[c].down);
    }
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
  g_test_add_func ("/ui/outputs/panel-sorting", test_panel_sorting);
  g_test_add ("/ui/outputs/update", Fixture, NULL, fixture_setup, test_update, fixture_teardown);
  g_test_add_func ("/ui/outputs/update-classic", test_update_classic);
  g_test_add ("/ui/outputs/plot", Fixture, NULL, fixture_setup, test_plot, fixture_teardown);
  g_test_add_func ("/ui/outputs/bad-plots", test_bad_plots);
  g_test_add ("/ui/outputs/five", Fixture, NULL, fixture_setup, test_five, fixture_teardown);
  g_test_add ("/ui/outputs/chat-reply", Fixture, NULL, fixture_setup, test_chat_reply,
              fixture_teardown);
  g_test_add ("/ui/outputs/highlighted", Fixture, NULL, fixture_setup, test_highlighted,
              fixture_teardown);
  g_test_add ("/ui/outputs/failed-run-time", Fixture, NULL, fixture_setup, test_failed_run_time,
              fixture_teardown);

  return g_test_run ();
}
