/* riv-output-card-media.c
 * Copyright 2026 The Rivulet authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * An output card's pictures, galleries, files, media and plots: their downloads (latest
 * wins), saving, and the plot reader run on a worker thread.
 */
#include "config.h"

#include <glib/gi18n.h>
#include <glib/gstdio.h>
#include <math.h>
#include <string.h>
#include <unistd.h>

#include "riv-fetch.h"
#include "riv-file-chooser.h"
#include "riv-job.h"
#include "riv-json.h"
#include "riv-markup.h"
#include "riv-output-card-private.h"
#include "riv-plot.h"

/* Downloads (gallery and image) */

typedef struct
{
  RivOutputCard *self;
  guint          index;
  char          *name;
} Fetch;

static void
fetch_free (Fetch *fetch)
{
  g_object_unref (fetch->self);
  g_free (fetch->name);
  g_free (fetch);
}

G_DEFINE_AUTOPTR_CLEANUP_FUNC (Fetch, fetch_free)

/* The card says that fetch's file could not be downloaded, and why. */
static void
fetch_failed (const Fetch  *fetch,
              const GError *error)
{
  g_autofree char *message = g_strdup_printf (_("Could not download %s: %s"), fetch->name,
                                              error->message);

  _riv_output_card_set_error (fetch->self, message);
}

static void
riv_output_card_picture_fetched_cb (GObject      *object,
                                    GAsyncResult *result,
                                    gpointer      user_data)
{
  g_autoptr(Fetch) fetch = user_data;
  RivOutputCard *self = fetch->self;
  g_autoptr(GError) error = NULL;
  g_autoptr(GBytes) bytes = riv_fetch_bytes_finish (result, &error);
  g_autoptr(GdkTexture) texture = NULL;

  if (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
    return;
  self->n_pending--;
  if (bytes == NULL)
    {
      fetch_failed (fetch, error);
      return;
    }
  texture = gdk_texture_new_from_bytes (bytes, &error);
  if (texture == NULL)
    {
      g_autofree char *message = g_strdup_printf (_("Could not decode the image %s: %s"),
                                                  fetch->name, error->message);

      _riv_output_card_set_error (self, message);
      return;
    }
  if (fetch->index < self->items->len)
    {
      gtk_picture_set_paintable (g_ptr_array_index (self->items, fetch->index),
                                 GDK_PAINTABLE (texture));
      g_clear_object (&g_ptr_array_index (self->textures, fetch->index));
      g_ptr_array_index (self->textures, fetch->index) = g_object_ref (texture);
    }
}

void
_riv_output_card_fetch_picture (RivOutputCard *self,
                                guint          index,
                                JsonObject    *file)
{
  Fetch *fetch = g_new0 (Fetch, 1);

  fetch->self = g_object_ref (self);
  fetch->index = index;
  fetch->name = _riv_output_card_file_data_name (file);
  self->n_pending++;
  riv_fetch_bytes_async (self->client, _riv_output_card_object_string (file, "url"), self->cancellable,
                         riv_output_card_picture_fetched_cb, fetch);
}

/* Saving a downloaded file */


static void
riv_output_card_saved_cb (GObject      *object,
                          GAsyncResult *result,
                          gpointer      user_data)
{
  g_autoptr(GError) error = NULL;

  if (!g_file_replace_contents_finish (G_FILE (object), result, NULL, &error))
    g_warning ("Could not save the file: %s", error->message);
}

static void
riv_output_card_save_chosen_cb (GFile         *file,
                                GtkFileFilter *filter,
                                gpointer       user_data)
{
  g_file_replace_contents_bytes_async (file, user_data, NULL, FALSE,
                                       G_FILE_CREATE_REPLACE_DESTINATION, NULL,
                                       riv_output_card_saved_cb, NULL);
}

static void
riv_output_card_save_bytes (GtkWidget  *widget,
                            GBytes     *bytes,
                            const char *name)
{
  const RivFileChooserSpec spec = { _("Save File"), _("_Save"), RIV_FILE_CHOOSER_SAVE, name };

  riv_file_chooser_show (widget, &spec, NULL, riv_output_card_save_chosen_cb,
                         g_bytes_ref (bytes), (GDestroyNotify) g_bytes_unref);
}

typedef struct
{
  GtkWidget *button;
  char      *name;
} SaveFetch;

static void
riv_output_card_save_fetched_cb (GObject      *object,
                                 GAsyncResult *result,
                                 gpointer      user_data)
{
  SaveFetch *fetch = user_data;
  g_autoptr(GError) error = NULL;
  g_autoptr(GBytes) bytes = riv_fetch_bytes_finish (result, &error);

  gtk_widget_set_sensitive (fetch->button, TRUE);
  if (bytes != NULL && gtk_widget_get_root (fetch->button) != NULL)
    riv_output_card_save_bytes (fetch->button, bytes, fetch->name);
  else if (bytes == NULL)
    g_warning ("Could not download %s: %s", fetch->name, error->message);
  g_object_unref (fetch->button);
  g_free (fetch->name);
  g_free (fetch);
}

static void
riv_output_card_save_clicked_cb (GtkButton *button,
                                 gpointer   user_data)
{
  SaveFetch *fetch = g_new0 (SaveFetch, 1);

  fetch->button = g_object_ref (GTK_WIDGET (button));
  fetch->name = g_strdup (g_object_get_data (G_OBJECT (button), "riv-name"));
  gtk_widget_set_sensitive (GTK_WIDGET (button), FALSE);
  RivOutputCard *self = RIV_OUTPUT_CARD (gtk_widget_get_ancestor (GTK_WIDGET (button),
                                                                 RIV_TYPE_OUTPUT_CARD));

  riv_fetch_bytes_async (self != NULL ? self->client : NULL,
                         g_object_get_data (G_OBJECT (button), "riv-url"), NULL,
                         riv_output_card_save_fetched_cb, fetch);
}

static void
riv_output_card_open_clicked_cb (GtkButton *button,
                                 gpointer   user_data)
{
  GtkRoot *root = gtk_widget_get_root (GTK_WIDGET (button));

#if GTK_CHECK_VERSION (4, 10, 0)
  g_autoptr(GtkUriLauncher) launcher =
    gtk_uri_launcher_new (g_object_get_data (G_OBJECT (button), "riv-url"));

  gtk_uri_launcher_launch (launcher, GTK_IS_WINDOW (root) ? GTK_WINDOW (root) : NULL,
                           NULL, NULL, NULL);
#else
  gtk_show_uri (GTK_IS_WINDOW (root) ? GTK_WINDOW (root) : NULL,
                g_object_get_data (G_OBJECT (button), "riv-url"), GDK_CURRENT_TIME);
#endif
}

static GtkWidget *
new_file_button (const char *icon,
                 const char *tooltip,
                 const char *url,
                 const char *name)
{
  GtkWidget *button = gtk_button_new_from_icon_name (icon);

  gtk_widget_add_css_class (button, "flat");
  gtk_widget_set_valign (button, GTK_ALIGN_CENTER);
  gtk_widget_set_tooltip_text (button, tooltip);
  gtk_accessible_update_property (GTK_ACCESSIBLE (button), GTK_ACCESSIBLE_PROPERTY_LABEL,
                                  tooltip, -1);
  g_object_set_data_full (G_OBJECT (button), "riv-url", g_strdup (url), g_free);
  g_object_set_data_full (G_OBJECT (button), "riv-name", g_strdup (name), g_free);
  gtk_widget_set_sensitive (button, url != NULL);
  return button;
}

/* Gallery */

static JsonObject *
gallery_item_file (JsonNode    *item,
                   const char **caption)
{
  JsonObject *object = _riv_output_card_node_object (item);

  *caption = NULL;
  if (object != NULL)
    {
      JsonObject *file = _riv_output_card_node_object (json_object_get_member (object, "image"));

      if (file == NULL)
        file = _riv_output_card_node_object (json_object_get_member (object, "video"));
      *caption = _riv_output_card_object_string (object, "caption");
      return file != NULL ? file : object;
    }
  if (item != NULL && JSON_NODE_HOLDS_ARRAY (item) &&
      json_array_get_length (json_node_get_array (item)) > 0)
    {
      JsonArray *pair = json_node_get_array (item);   /* [FileData, caption] */

      if (json_array_get_length (pair) > 1)
        {
          JsonNode *text = json_array_get_element (pair, 1);

          if (JSON_NODE_HOLDS_VALUE (text) && json_node_get_value_type (text) == G_TYPE_STRING)
            *caption = json_node_get_string (text);
        }
      return _riv_output_card_node_object (json_array_get_element (pair, 0));
    }
  return NULL;
}

static void
riv_output_card_save_png_clicked_cb (GtkButton *button,
                                     gpointer   user_data)
{
  riv_output_card_save_bytes (GTK_WIDGET (button),
                              g_object_get_data (G_OBJECT (button), "riv-png"), "image.png");
}

void
_riv_output_card_show_large (GtkFlowBox      *box,
                             GtkFlowBoxChild *child,
                             RivOutputCard   *self)
{
  int index = gtk_flow_box_child_get_index (child);
  GdkTexture *texture = riv_output_card_get_texture (self, (guint) index);
  GtkRoot *root = gtk_widget_get_root (GTK_WIDGET (self));
  GtkWidget *window, *picture, *header, *save, *content;
  g_autoptr(GBytes) png = NULL;

  if (texture == NULL)
    return;

  window = adw_window_new ();
  gtk_window_set_title (GTK_WINDOW (window), _("Gallery Image"));
  gtk_window_set_default_size (GTK_WINDOW (window), 720, 640);
  gtk_window_set_modal (GTK_WINDOW (window), TRUE);
  if (GTK_IS_WINDOW (root))
    gtk_window_set_transient_for (GTK_WINDOW (window), GTK_WINDOW (root));

  content = gtk_box_new (GTK_ORIENTATION_VERTICAL, 0);
  header = adw_header_bar_new ();
  save = gtk_button_new_with_mnemonic (_("_Save…"));
  png = gdk_texture_save_to_png_bytes (texture);
  g_object_set_data_full (G_OBJECT (save), "riv-png", g_steal_pointer (&png),
                          (GDestroyNotify) g_bytes_unref);
  g_signal_connect (save, "clicked", G_CALLBACK (riv_output_card_save_png_clicked_cb), NULL);
  adw_header_bar_pack_start (ADW_HEADER_BAR (header), save);
  gtk_box_append (GTK_BOX (content), header);

  picture = gtk_picture_new_for_paintable (GDK_PAINTABLE (texture));
  gtk_widget_set_vexpand (picture, TRUE);
  gtk_widget_set_margin_top (picture, 12);
  gtk_widget_set_margin_bottom (picture, 12);
  gtk_widget_set_margin_start (picture, 12);
  gtk_widget_set_margin_end (picture, 12);
  gtk_box_append (GTK_BOX (content), picture);
  adw_window_set_content (ADW_WINDOW (window), content);
  gtk_window_present (GTK_WINDOW (window));
}

void
_riv_output_card_update_gallery (RivOutputCard *self,
                                 JsonNode      *value)
{
  JsonArray *array = value != NULL && JSON_NODE_HOLDS_ARRAY (value) ? json_node_get_array (value)
                                                                    : NULL;
  guint n = array != NULL ? json_array_get_length (array) : 0;

  /* Items are only ever added while a gallery streams; anything else
   * (replaced, removed) shows the gallery anew. */
  for (guint i = 0; i < MIN (n, self->items->len); i++)
    {
      const char *caption;
      JsonObject *file = gallery_item_file (json_array_get_element (array, i), &caption);

      if (g_strcmp0 (_riv_output_card_object_string (file, "url"), g_ptr_array_index (self->item_texts, i)) != 0)
        {
          _riv_output_card_clear_items (self);
          break;
        }
    }
  if (n < self->items->len)
    _riv_output_card_clear_items (self);

  for (guint i = self->items->len; i < n; i++)
    {
      const char *caption;
      JsonObject *file = gallery_item_file (json_array_get_element (array, i), &caption);
      g_autofree char *name = file != NULL ? _riv_output_card_file_data_name (file) : NULL;
      GtkWidget *picture = gtk_picture_new ();

      gtk_widget_set_size_request (picture, 128, 128);
      gtk_picture_set_can_shrink (GTK_PICTURE (picture), TRUE);
      gtk_widget_add_css_class (picture, "riv-thumbnail");
      gtk_picture_set_alternative_text (GTK_PICTURE (picture), caption != NULL ? caption : name);
      gtk_widget_set_tooltip_text (picture, caption != NULL ? caption : name);
      gtk_flow_box_append (GTK_FLOW_BOX (self->content), picture);
      g_ptr_array_add (self->items, picture);
      g_ptr_array_add (self->item_texts, g_strdup (_riv_output_card_object_string (file, "url")));
      g_ptr_array_add (self->textures, NULL);
      if (file != NULL)
        _riv_output_card_fetch_picture (self, i, file);
      g_string_append_printf (self->plain, "%s%s", self->plain->len > 0 ? "\n" : "",
                              caption != NULL ? caption : name != NULL ? name : "");
    }
}

/* Files */

void
_riv_output_card_update_files (RivOutputCard *self,
                               JsonNode      *value)
{
  g_autoptr(GPtrArray) files = g_ptr_array_new ();

  _riv_output_card_clear_items (self);
  g_string_truncate (self->plain, 0);
  if (_riv_output_card_node_object (value) != NULL)
    g_ptr_array_add (files, _riv_output_card_node_object (value));
  else if (value != NULL && JSON_NODE_HOLDS_ARRAY (value))
    for (guint i = 0; i < json_array_get_length (json_node_get_array (value)); i++)
      if (_riv_output_card_node_object (json_array_get_element (json_node_get_array (value), i)) != NULL)
        g_ptr_array_add (files, _riv_output_card_node_object (json_array_get_element (json_node_get_array (value),
                                                                      i)));

  for (guint i = 0; i < files->len; i++)
    {
      JsonObject *file = g_ptr_array_index (files, i);
      g_autofree char *name = _riv_output_card_file_data_name (file);
      JsonNode *size = json_object_get_member (file, "size");
      const char *url = _riv_output_card_object_string (file, "url");
      GtkWidget *row = adw_action_row_new ();
      GtkWidget *open, *save;

      adw_preferences_row_set_title (ADW_PREFERENCES_ROW (row), name);
      adw_preferences_row_set_use_markup (ADW_PREFERENCES_ROW (row), FALSE);
      if (size != NULL && JSON_NODE_HOLDS_VALUE (size) &&
          json_node_get_value_type (size) == G_TYPE_INT64)
        {
          g_autofree char *text = g_format_size ((guint64) MAX (json_node_get_int (size), 0));

          adw_action_row_set_subtitle (ADW_ACTION_ROW (row), text);
        }
      adw_action_row_add_prefix (ADW_ACTION_ROW (row),
                                 gtk_image_new_from_icon_name ("text-x-generic-symbolic"));
      open = new_file_button ("document-open-symbolic", _("Open"), url, name);
      g_signal_connect (open, "clicked", G_CALLBACK (riv_output_card_open_clicked_cb), NULL);
      adw_action_row_add_suffix (ADW_ACTION_ROW (row), open);
      save = new_file_button ("document-save-symbolic", _("Save As…"), url, name);
      g_signal_connect (save, "clicked", G_CALLBACK (riv_output_card_save_clicked_cb), NULL);
      adw_action_row_add_suffix (ADW_ACTION_ROW (row), save);
      gtk_list_box_append (GTK_LIST_BOX (self->content), row);
      g_ptr_array_add (self->items, row);
      g_string_append_printf (self->plain, "%s%s", i > 0 ? "\n" : "", name);
    }
}

/* Media: downloaded with the client's credentials (a login cookie, a token;
 * GStreamer's own HTTP source sent none) into a file of the card's own and
 * played from there (newer GTK reads a media file through GIO, which knows no
 * http:// without gvfs). The file is deleted when the card shows another
 * value or goes. */

/* Deletes a media file off the main loop. */
static void
media_delete_thread (GTask        *task,
                     gpointer      source_object,
                     gpointer      task_data,
                     GCancellable *cancellable)
{
  g_unlink (task_data);
  g_task_return_boolean (task, TRUE);
}

static void
media_delete (char *path)
{
  g_autoptr(GTask) task = NULL;

  if (path == NULL)
    return;
  task = g_task_new (NULL, NULL, NULL, NULL);
  g_task_set_task_data (task, path, g_free);
  g_task_run_in_thread (task, media_delete_thread);
}

/* The media's download is over (media_cancellable is set while it goes). */
static void
media_fetch_over (RivOutputCard *self)
{
  g_clear_object (&self->media_cancellable);
  self->n_pending--;
}

void
_riv_output_card_drop_media (RivOutputCard *self)
{
  if (self->media_cancellable != NULL)
    {
      g_cancellable_cancel (self->media_cancellable);
      media_fetch_over (self);
    }
  /* A stream never played is not paused: on GTK 4.24 pausing one and then
   * letting it go ended in a critical in its GStreamer player. */
  if (self->media != NULL && gtk_media_stream_get_playing (self->media))
    gtk_media_stream_pause (self->media);
  g_clear_object (&self->media);
  media_delete (g_steal_pointer (&self->media_path));
}

typedef struct
{
  GBytes *bytes;
  char   *name;
} MediaWrite;

static void
media_write_free (MediaWrite *write)
{
  g_bytes_unref (write->bytes);
  g_free (write->name);
  g_free (write);
}

/* A temporary file's name template that keeps the media's extension (for
 * GStreamer's type finding), or none when it is not a plain one. */
static char *
media_template (const char *name)
{
  const char *dot = strrchr (name, '.');
  gboolean plain = dot != NULL && dot[1] != '\0' && strlen (dot) <= 9;

  for (const char *p = dot != NULL ? dot + 1 : ""; plain && *p != '\0'; p++)
    plain = g_ascii_isalnum (*p);
  return g_strconcat ("rivulet-media-XXXXXX", plain ? dot : "", NULL);
}

static void
media_write_thread (GTask        *task,
                    gpointer      source_object,
                    gpointer      task_data,
                    GCancellable *cancellable)
{
  MediaWrite *write = task_data;
  g_autofree char *template = media_template (write->name);
  g_autofree char *path = NULL;
  GError *error = NULL;
  int fd = g_file_open_tmp (template, &path, &error);
  gsize size;
  const char *data = g_bytes_get_data (write->bytes, &size);

  if (fd < 0)
    {
      g_task_return_error (task, error);
      return;
    }
  close (fd);
  if (!g_file_set_contents (path, data, size, &error))
    {
      g_unlink (path);
      g_task_return_error (task, error);
      return;
    }
  g_task_return_pointer (task, g_steal_pointer (&path), g_free);
}

static void
media_show (RivOutputCard *self,
            GtkMediaStream *media)
{
  if (GTK_IS_VIDEO (self->media_widget))
    gtk_video_set_media_stream (GTK_VIDEO (self->media_widget), media);
  else
    gtk_media_controls_set_media_stream (GTK_MEDIA_CONTROLS (self->media_widget), media);
}

static void
media_written_cb (GObject      *object,
                  GAsyncResult *result,
                  gpointer      user_data)
{
  g_autoptr(Fetch) fetch = user_data;
  RivOutputCard *self = fetch->self;
  g_autoptr(GError) error = NULL;
  g_autofree char *path = g_task_propagate_pointer (G_TASK (result), &error);

  /* Dropped meanwhile (the task does not check its cancellable, so that a
   * file written after all is still found here and deleted). */
  if (g_cancellable_is_cancelled (g_task_get_cancellable (G_TASK (result))))
    {
      media_delete (g_steal_pointer (&path));
      return;
    }
  media_fetch_over (self);
  if (path == NULL)
    {
      g_autofree char *message = g_strdup_printf (_("Could not keep %s to play it: %s"),
                                                  fetch->name, error->message);

      _riv_output_card_set_error (self, message);
      return;
    }
  self->media_path = g_steal_pointer (&path);
  self->media = gtk_media_file_new_for_filename (self->media_path);
  media_show (self, self->media);
}

static void
media_fetched_cb (GObject      *object,
                  GAsyncResult *result,
                  gpointer      user_data)
{
  g_autoptr(Fetch) fetch = user_data;
  RivOutputCard *self = fetch->self;
  g_autoptr(GError) error = NULL;
  g_autoptr(GBytes) bytes = riv_fetch_bytes_finish (result, &error);
  g_autoptr(GTask) task = NULL;
  MediaWrite *write;

  if (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
    return;
  if (bytes == NULL)
    {
      media_fetch_over (self);
      fetch_failed (fetch, error);
      return;
    }
  write = g_new0 (MediaWrite, 1);
  write->bytes = g_steal_pointer (&bytes);
  write->name = g_strdup (fetch->name);
  task = g_task_new (NULL, self->media_cancellable, media_written_cb, g_steal_pointer (&fetch));
  g_task_set_check_cancellable (task, FALSE);
  g_task_set_task_data (task, write, (GDestroyNotify) media_write_free);
  g_task_run_in_thread (task, media_write_thread);
}

void
_riv_output_card_update_media (RivOutputCard *self,
                               JsonNode      *value)
{
  JsonObject *file = _riv_output_card_node_object (value);
  const char *url = _riv_output_card_object_string (file, "url");
  Fetch *fetch;

  g_string_truncate (self->plain, 0);
  if (file != NULL)
    {
      g_autofree char *name = _riv_output_card_file_data_name (file);

      g_string_append (self->plain, name);
    }
  /* Off the widget before the card lets go of it, so that the widget lets go
   * of a stream that is still whole (the other order ended in a critical in
   * GtkMediaControls on GTK 4.24). */
  media_show (self, NULL);
  _riv_output_card_drop_media (self);
  if (url == NULL)
    return;

  fetch = g_new0 (Fetch, 1);
  fetch->self = g_object_ref (self);
  fetch->name = _riv_output_card_file_data_name (file);
  self->media_cancellable = g_cancellable_new ();
  self->n_pending++;
  riv_fetch_bytes_async (self->client, url, self->media_cancellable, media_fetched_cb, fetch);
}

/* Plots: read on a worker thread (base64 and picture decoding, JSON of any size). */

static void
riv_output_card_plot_thread (GTask        *task,
                             gpointer      source_object,
                             gpointer      task_data,
                             GCancellable *cancellable)
{
  GError *error = NULL;
  RivPlot *plot = riv_plot_read (task_data, &error);

  if (plot != NULL)
    g_task_return_pointer (task, plot, (GDestroyNotify) riv_plot_free);
  else
    g_task_return_error (task, error);
}

static void
riv_output_card_save_json_clicked_cb (GtkButton *button,
                                      gpointer   user_data)
{
  riv_output_card_save_bytes (GTK_WIDGET (button),
                              g_object_get_data (G_OBJECT (button), "riv-json"), "plot.json");
}

static GtkWidget *
new_cell (const char *text,
          gboolean    heading)
{
  GtkWidget *cell = gtk_label_new (text);

  gtk_label_set_xalign (GTK_LABEL (cell), 0);
  if (heading)
    gtk_widget_add_css_class (cell, "heading");
  else
    {
      gtk_label_set_selectable (GTK_LABEL (cell), TRUE);
      gtk_label_set_ellipsize (GTK_LABEL (cell), PANGO_ELLIPSIZE_END);
      gtk_label_set_max_width_chars (GTK_LABEL (cell), 60);
    }
  return cell;
}

static void
riv_output_card_show_plot (RivOutputCard *self,
                           RivPlot       *plot)
{
  const char *headings[] = { N_("Series"), N_("Mark"), N_("Points"), N_("Values") };
  const char *library = g_strcmp0 (plot->library, "plotly") == 0 ? "Plotly"
                        : g_strcmp0 (plot->library, "altair") == 0 ? "Altair"
                        : g_strcmp0 (plot->library, "bokeh") == 0 ? "Bokeh" : plot->library;
  g_autofree char *heading = NULL;
  GtkWidget *title, *grid, *save;

  if (plot->texture != NULL)
    {
      GtkWidget *picture = gtk_picture_new_for_paintable (GDK_PAINTABLE (plot->texture));

      gtk_widget_set_size_request (picture, -1, 240);
      gtk_picture_set_can_shrink (GTK_PICTURE (picture), TRUE);
      gtk_picture_set_alternative_text (GTK_PICTURE (picture), self->label);
      gtk_box_append (GTK_BOX (self->content), picture);
      g_ptr_array_add (self->items, picture);
      g_ptr_array_add (self->textures, g_object_ref (plot->texture));
      g_string_append_printf (self->plain, "%s (%d×%d)", plot->library,
                              gdk_texture_get_width (plot->texture),
                              gdk_texture_get_height (plot->texture));
      return;
    }

  /* Translators: a plot's library (Plotly, Altair, Bokeh) and its title */
  heading = plot->title != NULL ? g_strdup_printf (_("%s plot · %s"), library, plot->title)
                                : g_strdup_printf (_("%s plot"), library);
  title = gtk_label_new (heading);
  gtk_label_set_xalign (GTK_LABEL (title), 0);
  gtk_label_set_wrap (GTK_LABEL (title), TRUE);
  gtk_box_append (GTK_BOX (self->content), title);
  g_ptr_array_add (self->items, title);
  g_string_append (self->plain, heading);

  grid = gtk_grid_new ();
  gtk_grid_set_column_spacing (GTK_GRID (grid), 18);
  gtk_grid_set_row_spacing (GTK_GRID (grid), 4);
  for (guint c = 0; c < G_N_ELEMENTS (headings); c++)
    gtk_grid_attach (GTK_GRID (grid), new_cell (_(headings[c]), TRUE), (int) c, 0, 1, 1);
  for (guint r = 0; r < MIN (plot->series->len, MAX_TABLE_ROWS); r++)
    {
      RivPlotSeries *series = g_ptr_array_index (plot->series, r);
      g_autofree char *count = g_strdup_printf ("%u", series->n_points);
      const char *cells[] = { series->name, series->mark, count, series->points };

      g_string_append_c (self->plain, '\n');
      for (guint c = 0; c < G_N_ELEMENTS (cells); c++)
        {
          gtk_grid_attach (GTK_GRID (grid), new_cell (cells[c], FALSE), (int) c, (int) r + 1, 1, 1);
          g_string_append_printf (self->plain, "%s%s", c > 0 ? "\t" : "",
                                  cells[c] != NULL ? cells[c] : "");
        }
    }
  gtk_box_append (GTK_BOX (self->content), grid);
  g_ptr_array_add (self->items, grid);

  save = gtk_button_new_with_mnemonic (_("Save as _JSON…"));
  gtk_widget_set_halign (save, GTK_ALIGN_START);
  g_object_set_data_full (G_OBJECT (save), "riv-json", g_bytes_ref (plot->spec),
                          (GDestroyNotify) g_bytes_unref);
  g_signal_connect (save, "clicked", G_CALLBACK (riv_output_card_save_json_clicked_cb), NULL);
  gtk_box_append (GTK_BOX (self->content), save);
  g_ptr_array_add (self->items, save);
}

static void
riv_output_card_plot_read_cb (GObject      *object,
                              GAsyncResult *result,
                              gpointer      user_data)
{
  RivOutputCard *self = RIV_OUTPUT_CARD (object);
  g_autoptr(GError) error = NULL;
  g_autoptr(RivPlot) plot = g_task_propagate_pointer (G_TASK (result), &error);

  if (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED) ||
      g_task_get_cancellable (G_TASK (result)) != self->cancellable)
    return;
  self->n_pending--;
  if (plot == NULL)
    {
      g_autofree char *message = g_strdup_printf (_("Could not show the plot: %s"),
                                                  error->message);

      _riv_output_card_set_error (self, message);
      return;
    }
  riv_output_card_show_plot (self, plot);
}

void
_riv_output_card_update_plot (RivOutputCard *self,
                              JsonNode      *value)
{
  g_autoptr(GTask) task = NULL;

  _riv_output_card_clear_items (self);
  _riv_output_card_set_error (self, NULL);
  g_string_truncate (self->plain, 0);
  if (value == NULL || JSON_NODE_HOLDS_NULL (value))
    return;

  task = g_task_new (self, self->cancellable, riv_output_card_plot_read_cb, NULL);
  g_task_set_source_tag (task, _riv_output_card_update_plot);
  g_task_set_task_data (task, json_node_copy (value), (GDestroyNotify) json_node_unref);
  self->n_pending++;
  g_task_run_in_thread (task, riv_output_card_plot_thread);
}
