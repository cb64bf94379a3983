/* riv-gradio-window.c
 * Copyright 2026 The Rivulet authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The real-Gradio suite's window case (tests/gradio/suite.py): Rivulet's own
 * window, connected to a real Gradio app, submits one job and reports what a
 * user sees once it has finished. Runs under Xvfb (the suite starts one).
 *
 *   riv-gradio-window URL ENDPOINT DATA_JSON [PICTURE_WIDTH]
 *
 * DATA_JSON {"example": TITLE} clicks the example row of that title instead
 * of setting the form, once every example's thumbnail has come (or failed),
 * and reports them as "examples": {"thumbnails": [[width, height] or null,
 * …], "input": [width, height] or null (the image input's own picture, as the
 * click filled it)}.
 * The client fetches an image output's frames on its own, so the last one may
 * come after the job's end: with PICTURE_WIDTH it waits (at most 120 s) until
 * the picture is that wide before it reports.
 * RIV_GRADIO_WINDOW_LINGER=S keeps the window up S seconds more (to look at it).
 * RIV_GRADIO_WINDOW_PNG=FILE saves the screen then as a PNG (ImageMagick's import), and
 * as FILE-connect.png with the connect popover open.
 * RIV_GRADIO_WINDOW_CA=PEM connects as a user would to an HTTPS server with
 * its own authority: URL and CA file typed into the connect popover.
 *
 * Prints one JSON object on stdout: "status", "error", "updates", "text" (the
 * output's text as shown), "picture"
 * ({"width", "height", "frames", "error"}: the picture of the endpoint's first
 * image output, as decoded), "cards" (one {"type", "items", "textures"
 * ([width, height] per item, null where none), "error", "label", "text"} per
 * output card) and
 * "gallery_counts" (the item counts the first gallery card showed while the
 * job ran, in order). Exits 1 with a message when it cannot get that far.
 */
#include "config.h"

#include <adwaita.h>
#include <stdio.h>
#include <stdlib.h>

#include "riv-job.h"
#include "riv-json.h"
#include "riv-test-util.h"
#include "riv-ui-test-util.h"
#include "riv-window-private.h"

#define WAIT_S 120.0

typedef struct
{
  RivWindow *window;
  GArray    *gallery_counts;  /* guint: each count the gallery card showed, in order */
  int        picture_width;   /* 0: any */
} Watch;

static gboolean
is_connected (gpointer user_data)
{
  Watch *watch = user_data;

  return riv_window_get_client (watch->window) != NULL;
}

static RivOutputCard *
first_card_of_type (RivOutputView *view,
                    const char    *type)
{
  for (guint i = 0; i < riv_output_view_get_n_cards (view); i++)
    if (g_strcmp0 (riv_output_card_get_component_type (riv_output_view_get_card (view, i)),
                   type) == 0)
      return riv_output_view_get_card (view, i);
  return NULL;
}

/* What the gallery shows as the window draws its frames (no flush here: the
 * view updates on its own frame clock, as for a user). */
static void
note_gallery_count (Watch *watch)
{
  RivOutputCard *card = first_card_of_type (riv_window_get_output_view (watch->window),
                                            "gallery");
  guint n;

  if (card == NULL)
    return;
  n = riv_output_card_get_n_items (card);
  if (watch->gallery_counts->len == 0 ||
      g_array_index (watch->gallery_counts, guint, watch->gallery_counts->len - 1) != n)
    g_array_append_val (watch->gallery_counts, n);
}

static gboolean
job_finished (gpointer user_data)
{
  Watch *watch = user_data;
  RivJob *job = riv_output_view_get_job (riv_window_get_output_view (watch->window));

  note_gallery_count (watch);
  return job != NULL && riv_job_is_finished (job);
}

/* Every card has its downloads done, and the picture shows the last frame
 * (or says why it cannot). */
static gboolean
all_shown (gpointer user_data)
{
  Watch *watch = user_data;
  RivOutputView *view = riv_window_get_output_view (watch->window);
  GdkTexture *texture;

  riv_output_view_flush (view);
  note_gallery_count (watch);
  for (guint i = 0; i < riv_output_view_get_n_cards (view); i++)
    if (riv_output_card_get_n_pending (riv_output_view_get_card (view, i)) > 0)
      return FALSE;
  if (riv_output_view_get_image_error (view) != NULL || watch->picture_width == 0)
    return TRUE;
  texture = riv_output_view_get_texture (view);
  return texture != NULL && gdk_texture_get_width (texture) == watch->picture_width;
}

static JsonNode *
size_node (GdkTexture *texture)
{
  g_autoptr(JsonArray) size = NULL;
  JsonNode *node;

  if (texture == NULL)
    return json_node_new (JSON_NODE_NULL);
  size = json_array_new ();
  json_array_add_int_element (size, gdk_texture_get_width (texture));
  json_array_add_int_element (size, gdk_texture_get_height (texture));
  node = json_node_new (JSON_NODE_ARRAY);
  json_node_set_array (node, size);
  return node;
}

static JsonNode *
report (Watch *watch)
{
  RivOutputView *view = riv_window_get_output_view (watch->window);
  RivJob *job = riv_output_view_get_job (view);
  g_autoptr(JsonBuilder) builder = json_builder_new ();
  GdkTexture *texture = riv_output_view_get_texture (view);
  GtkLabel *badge = riv_recorder_get_badge (riv_window_get_recorder (watch->window));

  json_builder_begin_object (builder);
  json_builder_set_member_name (builder, "status");
  json_builder_add_string_value (builder, riv_job_status_to_string (riv_job_get_status (job)));
  json_builder_set_member_name (builder, "error");
  json_builder_add_string_value (builder, riv_job_get_error (job));
  json_builder_set_member_name (builder, "updates");
  json_builder_add_int_value (builder, riv_job_get_n_updates (job));

  json_builder_set_member_name (builder, "picture");
  json_builder_begin_object (builder);
  json_builder_set_member_name (builder, "width");
  json_builder_add_int_value (builder, texture != NULL ? gdk_texture_get_width (texture) : 0);
  json_builder_set_member_name (builder, "height");
  json_builder_add_int_value (builder, texture != NULL ? gdk_texture_get_height (texture) : 0);
  json_builder_set_member_name (builder, "frames");
  json_builder_add_int_value (builder, riv_output_view_get_n_frames (view));
  json_builder_set_member_name (builder, "error");
  json_builder_add_string_value (builder, riv_output_view_get_image_error (view));
  json_builder_end_object (builder);

  json_builder_set_member_name (builder, "cards");
  json_builder_begin_array (builder);
  for (guint i = 0; i < riv_output_view_get_n_cards (view); i++)
    {
      RivOutputCard *card = riv_output_view_get_card (view, i);
      guint n = riv_output_card_get_n_items (card);
      g_autofree char *text = riv_output_card_dup_text (card);

      json_builder_begin_object (builder);
      json_builder_set_member_name (builder, "type");
      json_builder_add_string_value (builder, riv_output_card_get_component_type (card));
      json_builder_set_member_name (builder, "items");
      json_builder_add_int_value (builder, n);
      json_builder_set_member_name (builder, "textures");
      json_builder_begin_array (builder);
      for (guint k = 0; k < n; k++)
        json_builder_add_value (builder, size_node (riv_output_card_get_texture (card, k)));
      json_builder_end_array (builder);
      json_builder_set_member_name (builder, "error");
      json_builder_add_string_value (builder, riv_output_card_get_error (card));
      json_builder_set_member_name (builder, "label");
      json_builder_add_string_value (builder, riv_output_card_get_label (card));
      json_builder_set_member_name (builder, "text");
      json_builder_add_string_value (builder, text);
      json_builder_end_object (builder);
    }
  json_builder_end_array (builder);

  json_builder_set_member_name (builder, "text");
  {
    g_autofree char *shown = riv_output_view_dup_text (view);

    json_builder_add_string_value (builder, shown);
  }
  json_builder_set_member_name (builder, "lint_badge");
  if (gtk_widget_get_visible (GTK_WIDGET (badge)))
    json_builder_add_string_value (builder, gtk_label_get_label (badge));
  else
    json_builder_add_null_value (builder);
  json_builder_set_member_name (builder, "subtitle");
  json_builder_add_string_value (builder, riv_status_title_get_server (watch->window->status_title));

  json_builder_set_member_name (builder, "gallery_counts");
  json_builder_begin_array (builder);
  for (guint i = 0; i < watch->gallery_counts->len; i++)
    json_builder_add_int_value (builder, g_array_index (watch->gallery_counts, guint, i));
  json_builder_end_array (builder);
  json_builder_end_object (builder);

  return json_builder_get_root (builder);
}

/* The X screen as it is (the window and its decorations), with ImageMagick. */
static void
save_png (const char *path)
{
  g_autofree char *quoted = g_shell_quote (path);
  g_autofree char *command = g_strdup_printf ("import -window root %s", quoted);
  g_autoptr(GError) error = NULL;
  int status = 0;

  /* Let the last frame reach the screen first. */
  riv_test_wait_for (&(gboolean) { FALSE }, 0.5);
  if (!g_spawn_command_line_sync (command, NULL, NULL, &status, &error) ||
      !g_spawn_check_wait_status (status, &error))
    g_error ("%s: %s", command, error->message);
}

/* The examples' thumbnails (and the image inputs' pictures, with all). */
static void
collect_pictures (GtkWidget *widget,
                  gboolean   all,
                  GPtrArray *out)
{
  if (GTK_IS_PICTURE (widget) &&
      (all || gtk_widget_has_css_class (widget, "riv-example-thumbnail")))
    g_ptr_array_add (out, widget);
  for (GtkWidget *child = gtk_widget_get_first_child (widget); child != NULL;
       child = gtk_widget_get_next_sibling (child))
    collect_pictures (child, all, out);
}

/* Each picture shows its image, or says in its tooltip why not. */
static gboolean
pictures_settled (gpointer user_data)
{
  GPtrArray *pictures = user_data;

  for (guint i = 0; i < pictures->len; i++)
    if (gtk_picture_get_paintable (g_ptr_array_index (pictures, i)) == NULL &&
        gtk_widget_get_tooltip_text (g_ptr_array_index (pictures, i)) == NULL)
      return FALSE;
  return TRUE;
}

static JsonNode *
picture_size (GtkWidget *picture)
{
  GdkPaintable *paintable = picture != NULL ? gtk_picture_get_paintable (GTK_PICTURE (picture)) : NULL;

  return size_node (GDK_IS_TEXTURE (paintable) ? GDK_TEXTURE (paintable) : NULL);
}

/* Waits for the examples' thumbnails, clicks the one titled title, waits for
 * the image input's picture; returns what was shown. */
static JsonNode *
click_example (RivWindow  *window,
               const char *title)
{
  GtkWidget *form = GTK_WIDGET (riv_window_get_form (window));
  g_autoptr(GPtrArray) thumbnails = g_ptr_array_new ();
  g_autoptr(GPtrArray) input = g_ptr_array_new ();
  g_autoptr(JsonBuilder) builder = json_builder_new ();
  GtkWidget *row = title != NULL ? riv_ui_test_find_row (form, title) : NULL;

  if (row == NULL)
    g_error ("no example row titled “%s”", title);
  collect_pictures (form, FALSE, thumbnails);
  if (thumbnails->len == 0)
    g_error ("the examples show no thumbnail");
  if (!riv_test_wait_until (pictures_settled, thumbnails, WAIT_S))
    g_error ("the examples' thumbnails did not come within %.0f s", WAIT_S);
  g_signal_emit_by_name (row, "activated");
  collect_pictures (riv_form_get_input_row (RIV_FORM (form), 0), TRUE, input);
  if (input->len > 0)
    riv_test_wait_until (pictures_settled, input, WAIT_S);

  json_builder_begin_object (builder);
  json_builder_set_member_name (builder, "thumbnails");
  json_builder_begin_array (builder);
  for (guint i = 0; i < thumbnails->len; i++)
    json_builder_add_value (builder, picture_size (g_ptr_array_index (thumbnails, i)));
  json_builder_end_array (builder);
  json_builder_set_member_name (builder, "input");
  json_builder_add_value (builder, picture_size (input->len > 0 ? g_ptr_array_index (input, 0) : NULL));
  json_builder_end_object (builder);
  return json_builder_get_root (builder);
}

static gboolean
window_gone (gpointer user_data)
{
  return *(gpointer *) user_data == NULL;
}

int
main (int   argc,
      char *argv[])
{
  g_autoptr(GArray) gallery_counts = g_array_new (FALSE, FALSE, sizeof (guint));
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonNode) data = NULL;
  g_autoptr(JsonNode) result = NULL;
  g_autoptr(JsonNode) examples = NULL;
  g_autofree char *text = NULL;
  Watch watch = { NULL, gallery_counts, 0 };
  const char *linger = g_getenv ("RIV_GRADIO_WINDOW_LINGER");

  riv_ui_test_init (&argc, &argv);
  if (argc != 4 && argc != 5)
    {
      g_printerr ("usage: riv-gradio-window URL ENDPOINT DATA_JSON [PICTURE_WIDTH]\n");
      return 2;
    }
  if (argc == 5)
    watch.picture_width = atoi (argv[4]);
  data = riv_json_parse (NULL, argv[3], -1, 0, &error);
  if (data == NULL)
    g_error ("DATA_JSON: %s", error->message);

  watch.window = riv_window_new (NULL, NULL);
  g_object_add_weak_pointer (G_OBJECT (watch.window), (gpointer *) &watch.window);
  gtk_window_set_default_size (GTK_WINDOW (watch.window), 1200, 800);
  gtk_window_present (GTK_WINDOW (watch.window));

  if (g_getenv ("RIV_GRADIO_WINDOW_CA") != NULL)
    {
      riv_connect_popover_set_url (watch.window->connect_popover, argv[1]);
      riv_connect_popover_set_ca_file (watch.window->connect_popover, g_getenv ("RIV_GRADIO_WINDOW_CA"));
      riv_connect_popover_activate (watch.window->connect_popover);
    }
  else
    riv_window_connect_to_url (watch.window, argv[1], NULL);
  if (!riv_test_wait_until (is_connected, &watch, WAIT_S))
    g_error ("the window did not connect to %s (status \"%s\")", argv[1],
             riv_window_get_status_text (watch.window));
  g_printerr ("connected to %s\n", argv[1]);
  if (!riv_window_select_endpoint (watch.window, argv[2]))
    g_error ("the window does not list the endpoint %s", argv[2]);
  if (JSON_NODE_HOLDS_OBJECT (data) && json_object_has_member (json_node_get_object (data), "example"))
    examples = click_example (watch.window, riv_json_get_string (json_node_get_object (data), "example"));
  else if (!riv_form_set_data (riv_window_get_form (watch.window), data, &error))
    g_error ("the form refused %s: %s", argv[3], error->message);
  if (!gtk_widget_activate_action (GTK_WIDGET (watch.window), "win.submit", NULL))
    g_error ("win.submit could not be activated");

  g_printerr ("submitted %s %s\n", argv[2], argv[3]);
  if (!riv_test_wait_until (job_finished, &watch, WAIT_S))
    g_error ("the job did not finish within %.0f s", WAIT_S);
  g_printerr ("the job finished\n");
  /* Reported either way: the suite says what is missing. */
  riv_test_wait_until (all_shown, &watch, WAIT_S);
  /* The lint badge follows its findings from an idle callback. */
  riv_test_wait_for (&(gboolean) { FALSE }, 0.3);

  result = report (&watch);
  if (examples != NULL)
    json_object_set_member (json_node_get_object (result), "examples", g_steal_pointer (&examples));
  text = riv_json_to_string (result, NULL);
  printf ("%s\n", text);
  fflush (stdout);

  if (g_getenv ("RIV_GRADIO_WINDOW_PNG") != NULL)
    {
      g_autofree char *open_png = g_strconcat (g_getenv ("RIV_GRADIO_WINDOW_PNG"), "-connect.png", NULL);

      save_png (g_getenv ("RIV_GRADIO_WINDOW_PNG"));
      /* And with the connect popover open, as the user filled it in. */
      gtk_popover_popup (GTK_POPOVER (watch.window->connect_popover));
      save_png (open_png);
      gtk_popover_popdown (GTK_POPOVER (watch.window->connect_popover));
    }
  if (linger != NULL)
    {
      gboolean never = FALSE;

      riv_test_wait_for (&never, g_ascii_strtod (linger, NULL));
    }

  gtk_window_destroy (GTK_WINDOW (watch.window));
  riv_test_wait_until (window_gone, &watch.window, 30);
  return 0;
}
