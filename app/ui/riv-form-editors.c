/* riv-form-editors.c
 * Copyright 2026 The Rivulet authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The form's editors: one row per input component, reading and setting its value.
 */
#include "config.h"

#include <glib/gi18n.h>
#include <math.h>
#include <string.h>

#include "riv-a11y.h"
#include "riv-form-private.h"
#include "riv-util.h"

const char *
_riv_form_component_title (RivComponent *component)
{
  if (component->label != NULL && *component->label != '\0')
    return component->label;
  return component->type != NULL ? component->type : _("Input");
}

static gboolean
is_integral (double value)
{
  return isfinite (value) && fabs (value - round (value)) < 1e-9;
}

static double
node_get_number (JsonNode *node,
                 double    fallback)
{
  if (node != NULL && JSON_NODE_HOLDS_VALUE (node))
    {
      GType type = json_node_get_value_type (node);

      if (type == G_TYPE_INT64 || type == G_TYPE_DOUBLE)
        return json_node_get_double (node);
      if (type == G_TYPE_BOOLEAN)
        return json_node_get_boolean (node) ? 1 : 0;
      if (type == G_TYPE_STRING)
        {
          char *end = NULL;
          double value = g_ascii_strtod (json_node_get_string (node), &end);

          if (end != NULL && end != json_node_get_string (node) && *end == '\0')
            return value;
        }
    }
  return fallback;
}

static char *
node_to_display (JsonNode *node)
{
  if (node == NULL || JSON_NODE_HOLDS_NULL (node))
    return g_strdup ("");
  if (JSON_NODE_HOLDS_VALUE (node))
    {
      GType type = json_node_get_value_type (node);

      if (type == G_TYPE_STRING)
        return g_strdup (json_node_get_string (node));
      if (type == G_TYPE_INT64)
        return g_strdup_printf ("%" G_GINT64_FORMAT, json_node_get_int (node));
      if (type == G_TYPE_DOUBLE)
        {
          char buf[G_ASCII_DTOSTR_BUF_SIZE];

          return g_strdup (g_ascii_dtostr (buf, sizeof buf, json_node_get_double (node)));
        }
      if (type == G_TYPE_BOOLEAN)
        return g_strdup (json_node_get_boolean (node) ? "true" : "false");
    }
  return riv_json_to_string (node, NULL);
}

static gboolean
nodes_equal (JsonNode *a,
             JsonNode *b)
{
  g_autofree char *sa = NULL;
  g_autofree char *sb = NULL;

  if (a == NULL || b == NULL)
    return a == b;
  if (JSON_NODE_HOLDS_VALUE (a) && JSON_NODE_HOLDS_VALUE (b))
    {
      GType ta = json_node_get_value_type (a);
      GType tb = json_node_get_value_type (b);

      if ((ta == G_TYPE_INT64 || ta == G_TYPE_DOUBLE) &&
          (tb == G_TYPE_INT64 || tb == G_TYPE_DOUBLE))
        return json_node_get_double (a) == json_node_get_double (b);
    }
  sa = riv_json_to_string (a, NULL);
  sb = riv_json_to_string (b, NULL);
  return g_strcmp0 (sa, sb) == 0;
}

/* Gradio sends choices as plain values or as [display, value] pairs. */
static GtkStringList *
parse_choices (Input *input)
{
  JsonObject *props = input->component->props;
  GtkStringList *names = gtk_string_list_new (NULL);
  JsonNode *choices_node = props != NULL ? json_object_get_member (props, "choices") : NULL;

  input->choice_values = g_ptr_array_new_with_free_func ((GDestroyNotify) json_node_unref);

  if (choices_node != NULL && JSON_NODE_HOLDS_ARRAY (choices_node))
    {
      JsonArray *array = json_node_get_array (choices_node);

      for (guint i = 0; i < json_array_get_length (array); i++)
        {
          JsonNode *choice = json_array_get_element (array, i);
          JsonNode *display = choice;
          JsonNode *value = choice;
          g_autofree char *name = NULL;

          if (JSON_NODE_HOLDS_ARRAY (choice))
            {
              JsonArray *pair = json_node_get_array (choice);

              if (json_array_get_length (pair) == 0)
                continue;
              display = json_array_get_element (pair, 0);
              value = json_array_get_element (pair, json_array_get_length (pair) > 1 ? 1 : 0);
            }

          name = node_to_display (display);
          gtk_string_list_append (names, name);
          g_ptr_array_add (input->choice_values, json_node_copy (value));
        }
    }
  else if (input->component->choices != NULL)
    {
      for (guint i = 0; input->component->choices[i] != NULL; i++)
        {
          gtk_string_list_append (names, input->component->choices[i]);
          g_ptr_array_add (input->choice_values,
                           json_node_init_string (json_node_alloc (),
                                                  input->component->choices[i]));
        }
    }

  return names;
}

static guint
default_choice (Input *input)
{
  JsonNode *value = input->component->value;

  if (value != NULL && JSON_NODE_HOLDS_ARRAY (value))
    value = json_array_get_length (json_node_get_array (value)) > 0
              ? json_array_get_element (json_node_get_array (value), 0) : NULL;

  for (guint i = 0; value != NULL && i < input->choice_values->len; i++)
    if (nodes_equal (value, g_ptr_array_index (input->choice_values, i)))
      return i;

  return 0;
}

static void
image_show_state (Input      *input,
                  const char *subtitle)
{
  adw_action_row_set_subtitle (ADW_ACTION_ROW (input->row), subtitle);
  gtk_widget_set_visible (input->spinner, input->upload_cancellable != NULL);
  gtk_spinner_set_spinning (GTK_SPINNER (input->spinner), input->upload_cancellable != NULL);
}

/* One file of a files or multimodal input. */
typedef struct
{
  Input        *input;       /* borrowed */
  GtkWidget    *row;         /* borrowed (in input->list) */
  GtkWidget    *status;      /* borrowed */
  char         *name;
  char         *path;        /* on the server, once uploaded; nullable */
  char         *mime_type;   /* nullable */
  gint64        size;        /* -1 until read */
  GCancellable *cancellable; /* owned while uploading, nullable */
  JsonNode     *given;       /* a FileData set with --data, sent as it is; nullable */
} FileItem;

typedef struct
{
  RivForm *form;          /* owned */
  Input   *input;         /* valid while the form holds the same input and cancellable */
  FileItem *item;         /* nullable: a file of a list, valid as input is */
  guint    percent;       /* last percentage shown */
  char    *name;
  GFile   *file;
  GCancellable *cancellable; /* owned; cancelled when input goes away */
} UploadData;

static void
upload_data_free (UploadData *data)
{
  g_clear_object (&data->form);
  g_clear_object (&data->file);
  g_clear_object (&data->cancellable);
  g_free (data->name);
  g_free (data);
}

G_DEFINE_AUTOPTR_CLEANUP_FUNC (UploadData, upload_data_free)

static void
image_upload_failed (UploadData   *data,
                     const GError *error)
{
  g_autofree char *message = NULL;

  message = g_strdup_printf (_("Could not upload %s: %s"), data->name, error->message);
  if (data->item != NULL)
    {
      g_clear_object (&data->item->cancellable);
      gtk_label_set_text (GTK_LABEL (data->item->status), _("upload failed"));
      gtk_widget_set_tooltip_text (data->item->status, message);
      gtk_widget_add_css_class (data->item->status, "error");
    }
  else
    {
      g_clear_object (&data->input->upload_cancellable);
      image_show_state (data->input, message);
    }
  _riv_form_emit_error (data->form, message);
}

static void
image_upload_cb (GObject      *object,
                 GAsyncResult *result,
                 gpointer      user_data)
{
  g_autoptr(UploadData) data = user_data;
  g_autoptr(GError) error = NULL;
  g_autofree char *path = NULL;
  g_autofree char *subtitle = NULL;

  path = riv_client_upload_finish (RIV_CLIENT (object), result, &error);
  if (g_cancellable_is_cancelled (data->cancellable))
    return;

  if (path == NULL)
    image_upload_failed (data, error);
  else if (data->item != NULL)
    {
      g_clear_object (&data->item->cancellable);
      g_free (data->item->path);
      data->item->path = g_steal_pointer (&path);
      /* Translators: shown next to a file of a list once it is on the server */
      gtk_label_set_text (GTK_LABEL (data->item->status), _("uploaded"));
    }
  else
    {
      g_clear_object (&data->input->upload_cancellable);
      g_free (data->input->image_path);
      data->input->image_path = g_steal_pointer (&path);
      g_free (data->input->image_name);
      data->input->image_name = g_strdup (data->name);
      g_clear_pointer (&data->input->override, json_node_unref);

      /* Translators: shown under an image input once its file is on the server */
      subtitle = g_strdup_printf (_("%s — uploaded"), data->name);
      image_show_state (data->input, subtitle);
    }

  /* Last: whoever waits for "busy" to end (a burst from the command line)
   * reads the value with this file in it. */
  _riv_form_set_busy_delta (data->form, -1);
}

/* Shown as a percentage, once per whole percent. */
static void
upload_progress_cb (guint64  sent,
                    guint64  total,
                    gpointer user_data)
{
  UploadData *data = user_data;
  double fraction = total > 0 ? (double) sent / (double) total : 1;
  guint percent = (guint) floor (CLAMP (fraction, 0, 1) * 100);
  g_autofree char *text = NULL;

  if (g_cancellable_is_cancelled (data->cancellable) || percent == data->percent)
    return;

  data->percent = percent;
  if (data->item != NULL)
    {
      /* Translators: an upload's progress, e.g. "42 %" */
      text = g_strdup_printf (_("%u %%"), percent);
      gtk_label_set_text (GTK_LABEL (data->item->status), text);
    }
  else
    {
      /* Translators: a file name and an upload's progress */
      text = g_strdup_printf (_("Uploading %s… %u %%"), data->name, percent);
      image_show_state (data->input, text);
    }
  _riv_form_emit_progress (data->form, data->name, fraction);
}

static void
image_load_cb (GObject      *object,
               GAsyncResult *result,
               gpointer      user_data)
{
  g_autoptr(UploadData) data = user_data;
  g_autoptr(GError) error = NULL;
  g_autoptr(GBytes) bytes = NULL;
  g_autoptr(GdkTexture) texture = NULL;

  bytes = g_file_load_bytes_finish (G_FILE (object), result, NULL, &error);
  if (g_cancellable_is_cancelled (data->cancellable))
    return;

  if (bytes == NULL)
    {
      image_upload_failed (data, error);
      _riv_form_set_busy_delta (data->form, -1);
      return;
    }

  if (data->item != NULL)
    {
      g_autofree char *type = g_content_type_guess (data->name, g_bytes_get_data (bytes, NULL),
                                                    g_bytes_get_size (bytes), NULL);

      data->item->size = (gint64) g_bytes_get_size (bytes);
      g_free (data->item->mime_type);
      data->item->mime_type = g_content_type_get_mime_type (type);
    }
  else
    {
      texture = data->input->any_file ? NULL : gdk_texture_new_from_bytes (bytes, NULL);
      gtk_picture_set_paintable (GTK_PICTURE (data->input->thumbnail), GDK_PAINTABLE (texture));
      gtk_widget_set_visible (data->input->thumbnail, texture != NULL);
    }

  if (data->form->client == NULL)
    {
      g_autoptr(GError) not_connected =
        g_error_new_literal (G_IO_ERROR, G_IO_ERROR_NOT_CONNECTED, _("not connected to a server"));

      image_upload_failed (data, not_connected);
      _riv_form_set_busy_delta (data->form, -1);
      return;
    }

  data->percent = G_MAXUINT;
  {
    /* The callback owns data: nothing is read from it after it is handed over. */
    UploadData *owned = g_steal_pointer (&data);

    riv_client_upload_with_progress_async (owned->form->client, bytes, owned->name,
                                           upload_progress_cb, owned, owned->cancellable,
                                           image_upload_cb, owned);
  }
}

/* The upload row's words for images, or for any other file. */
static const char *
upload_text (Input      *input,
             const char *for_image,
             const char *for_file)
{
  return input->any_file ? for_file : for_image;
}

void
_riv_form_image_use_file (Input *input,
                          GFile *file)
{
  RivForm *self = input->form;
  UploadData *data;
  g_autofree char *subtitle = NULL;

  if (input->upload_cancellable != NULL)
    {
      g_cancellable_cancel (input->upload_cancellable);
      g_clear_object (&input->upload_cancellable);
      _riv_form_set_busy_delta (self, -1);
    }

  input->upload_cancellable = g_cancellable_new ();
  g_clear_pointer (&input->image_path, g_free);

  data = g_new0 (UploadData, 1);
  data->form = g_object_ref (self);
  data->input = input;
  data->file = g_object_ref (file);
  data->name = g_file_get_basename (file);
  data->cancellable = g_object_ref (input->upload_cancellable);

  _riv_form_set_busy_delta (self, +1);
  subtitle = g_strdup_printf (_("Uploading %s…"), data->name);
  image_show_state (input, subtitle);

  g_file_load_bytes_async (file, input->upload_cancellable, image_load_cb, data);
}

static void
image_clear (Input *input)
{
  if (input->upload_cancellable != NULL)
    {
      g_cancellable_cancel (input->upload_cancellable);
      g_clear_object (&input->upload_cancellable);
      _riv_form_set_busy_delta (input->form, -1);
    }
  g_clear_pointer (&input->image_path, g_free);
  g_clear_pointer (&input->image_name, g_free);
  g_clear_pointer (&input->override, json_node_unref);
  gtk_picture_set_paintable (GTK_PICTURE (input->thumbnail), NULL);
  gtk_widget_set_visible (input->thumbnail, FALSE);
  image_show_state (input, upload_text (input, _("No image — choose a file or drop one here"),
                                        _("No file — choose one or drop it here")));
}

static void
image_chooser_response_cb (GtkNativeDialog *dialog,
                           int              response,
                           gpointer         user_data)
{
  Input *input = user_data;

  if (response == GTK_RESPONSE_ACCEPT)
    {
      g_autoptr(GFile) file = gtk_file_chooser_get_file (GTK_FILE_CHOOSER (dialog));

      if (file != NULL)
        _riv_form_image_use_file (input, file);
    }

  gtk_native_dialog_destroy (dialog);
  g_object_unref (dialog);
}

static void
image_choose_clicked_cb (GtkButton *button,
                         gpointer   user_data)
{
  Input *input = user_data;
  GtkFileChooserNative *chooser;
  g_autoptr(GtkFileFilter) filter = gtk_file_filter_new ();
  GtkRoot *root = gtk_widget_get_root (GTK_WIDGET (button));

  chooser = gtk_file_chooser_native_new (upload_text (input, _("Choose an Image"), _("Choose a File")),
                                         GTK_IS_WINDOW (root) ? GTK_WINDOW (root) : NULL,
                                         GTK_FILE_CHOOSER_ACTION_OPEN,
                                         _("_Choose"), _("_Cancel"));
  gtk_native_dialog_set_modal (GTK_NATIVE_DIALOG (chooser), TRUE);
  if (g_strcmp0 (input->component->type, "image") == 0)
    {
      gtk_file_filter_set_name (filter, _("Images"));
      gtk_file_filter_add_pixbuf_formats (filter);
      gtk_file_chooser_add_filter (GTK_FILE_CHOOSER (chooser), filter);
    }
  else if (g_strcmp0 (input->component->type, "audio") == 0 ||
           g_strcmp0 (input->component->type, "video") == 0)
    {
      g_autofree char *mime = g_strconcat (input->component->type, "/*", NULL);

      gtk_file_filter_set_name (filter, g_strcmp0 (input->component->type, "audio") == 0
                                          ? _("Audio") : _("Videos"));
      gtk_file_filter_add_mime_type (filter, mime);
      gtk_file_chooser_add_filter (GTK_FILE_CHOOSER (chooser), filter);
    }
  g_signal_connect (chooser, "response", G_CALLBACK (image_chooser_response_cb), input);
  gtk_native_dialog_show (GTK_NATIVE_DIALOG (chooser));
}

static void
image_clear_clicked_cb (GtkButton *button,
                        gpointer   user_data)
{
  image_clear (user_data);
}

static gboolean
image_drop_cb (GtkDropTarget *target,
               const GValue  *value,
               double         x,
               double         y,
               gpointer       user_data)
{
  Input *input = user_data;
  GFile *file = NULL;

  if (G_VALUE_HOLDS (value, GDK_TYPE_FILE_LIST))
    {
      GSList *files = gdk_file_list_get_files (g_value_get_boxed (value));

      if (files != NULL)
        file = files->data;
      g_slist_free (files);
    }
  else if (G_VALUE_HOLDS (value, G_TYPE_FILE))
    file = g_value_get_object (value);

  if (file == NULL)
    return FALSE;

  _riv_form_image_use_file (input, file);
  return TRUE;
}

static GtkWidget *
build_image_row (Input *input)
{
  GtkWidget *row = adw_action_row_new ();
  GtkWidget *choose;
  GtkWidget *clear;
  GtkDropTarget *drop;
  GType types[] = { GDK_TYPE_FILE_LIST, G_TYPE_FILE };

  adw_preferences_row_set_title (ADW_PREFERENCES_ROW (row),
                                 _riv_form_component_title (input->component));
  adw_preferences_row_set_use_underline (ADW_PREFERENCES_ROW (row), FALSE);

  input->thumbnail = gtk_picture_new ();
  gtk_picture_set_content_fit (GTK_PICTURE (input->thumbnail), GTK_CONTENT_FIT_COVER);
  gtk_widget_set_size_request (input->thumbnail, 40, 40);
  gtk_widget_set_valign (input->thumbnail, GTK_ALIGN_CENTER);
  gtk_widget_add_css_class (input->thumbnail, "riv-thumbnail");
  gtk_widget_set_visible (input->thumbnail, FALSE);
  adw_action_row_add_prefix (ADW_ACTION_ROW (row), input->thumbnail);

  input->spinner = gtk_spinner_new ();
  gtk_widget_set_visible (input->spinner, FALSE);
  adw_action_row_add_suffix (ADW_ACTION_ROW (row), input->spinner);

  choose = gtk_button_new_from_icon_name ("document-open-symbolic");
  gtk_widget_set_valign (choose, GTK_ALIGN_CENTER);
  gtk_widget_add_css_class (choose, "flat");
  gtk_widget_set_tooltip_text (choose, upload_text (input, _("Choose an image"),
                                                    _("Choose a file")));
  g_signal_connect (choose, "clicked", G_CALLBACK (image_choose_clicked_cb), input);
  adw_action_row_add_suffix (ADW_ACTION_ROW (row), choose);
  adw_action_row_set_activatable_widget (ADW_ACTION_ROW (row), choose);
  riv_a11y_set_name (choose, upload_text (input, _("Choose an image"), _("Choose a file")));

  clear = gtk_button_new_from_icon_name ("edit-clear-symbolic");
  gtk_widget_set_valign (clear, GTK_ALIGN_CENTER);
  gtk_widget_add_css_class (clear, "flat");
  gtk_widget_set_tooltip_text (clear, upload_text (input, _("Remove the image"),
                                                   _("Remove the file")));
  riv_a11y_set_name (clear, upload_text (input, _("Remove the image"), _("Remove the file")));
  g_signal_connect (clear, "clicked", G_CALLBACK (image_clear_clicked_cb), input);
  adw_action_row_add_suffix (ADW_ACTION_ROW (row), clear);

  drop = gtk_drop_target_new (G_TYPE_INVALID, GDK_ACTION_COPY);
  gtk_drop_target_set_gtypes (drop, types, G_N_ELEMENTS (types));
  g_signal_connect (drop, "drop", G_CALLBACK (image_drop_cb), input);
  gtk_widget_add_controller (row, GTK_EVENT_CONTROLLER (drop));

  input->kind = RIV_FORM_INPUT_IMAGE;
  input->row = row;
  input->widget = row;
  image_show_state (input, upload_text (input, _("No image — choose a file or drop one here"),
                                        _("No file — choose one or drop it here")));

  return row;
}

/* Row builders */

static void
entry_activated_cb (AdwEntryRow *row,
                    RivForm     *self)
{
  _riv_form_emit_activate (self);
}

/* A row holding a caption (the input's title, with room for buttons at
 * its end) over an editor of several widgets, and a line for what is wrong. */
static GtkWidget *
box_row_new (Input      *input,
             GtkWidget **box_out,
             GtkWidget **header_out)
{
  const char *title = _riv_form_component_title (input->component);
  GtkWidget *row = adw_preferences_row_new ();
  GtkWidget *box = gtk_box_new (GTK_ORIENTATION_VERTICAL, 6);
  GtkWidget *header = gtk_box_new (GTK_ORIENTATION_HORIZONTAL, 6);
  GtkWidget *label = gtk_label_new (title);

  adw_preferences_row_set_title (ADW_PREFERENCES_ROW (row), title);
  adw_preferences_row_set_use_underline (ADW_PREFERENCES_ROW (row), FALSE);
  gtk_list_box_row_set_activatable (GTK_LIST_BOX_ROW (row), FALSE);
  gtk_widget_set_margin_top (box, 8);
  gtk_widget_set_margin_bottom (box, 10);
  gtk_widget_set_margin_start (box, 12);
  gtk_widget_set_margin_end (box, 12);

  gtk_label_set_xalign (GTK_LABEL (label), 0);
  gtk_label_set_ellipsize (GTK_LABEL (label), PANGO_ELLIPSIZE_END);
  gtk_widget_set_hexpand (label, TRUE);
  gtk_widget_set_valign (label, GTK_ALIGN_CENTER);
  gtk_widget_add_css_class (label, "caption");
  gtk_widget_add_css_class (label, "dim-label");
  gtk_box_append (GTK_BOX (header), label);
  gtk_box_append (GTK_BOX (box), header);

  gtk_list_box_row_set_child (GTK_LIST_BOX_ROW (row), box);
  input->row = row;
  *box_out = box;
  if (header_out != NULL)
    *header_out = header;
  return row;
}

/* A dim line standing in for an empty list of messages or files. */
static void
list_add_placeholder (Input      *input,
                      GtkWidget  *box,
                      const char *text)
{
  input->placeholder = gtk_label_new (text);
  gtk_label_set_xalign (GTK_LABEL (input->placeholder), 0);
  gtk_label_set_wrap (GTK_LABEL (input->placeholder), TRUE);
  gtk_widget_add_css_class (input->placeholder, "dim-label");
  gtk_box_append (GTK_BOX (box), input->placeholder);
}

static void
list_update_placeholder (Input *input)
{
  if (input->placeholder != NULL)
    gtk_widget_set_visible (input->placeholder, gtk_widget_get_first_child (input->list) == NULL);
}

/* The line under a box row's editor saying why its value cannot be sent. */
static void
box_row_add_error_label (Input     *input,
                         GtkWidget *box)
{
  input->error_label = gtk_label_new (NULL);
  gtk_label_set_xalign (GTK_LABEL (input->error_label), 0);
  gtk_label_set_wrap (GTK_LABEL (input->error_label), TRUE);
  gtk_widget_add_css_class (input->error_label, "caption");
  gtk_widget_add_css_class (input->error_label, "error");
  gtk_widget_set_visible (input->error_label, FALSE);
  gtk_box_append (GTK_BOX (box), input->error_label);
}

/* A multi-line text view in a box row, labelled by the row's caption. */
static GtkWidget *
text_view_new (Input      *input,
               GtkWidget  *box,
               const char *text,
               int         lines)
{
  GtkWidget *scrolled = gtk_scrolled_window_new ();
  GtkWidget *view = gtk_text_view_new ();
  GtkWidget *label = gtk_widget_get_first_child (gtk_widget_get_first_child (box));

  gtk_text_view_set_wrap_mode (GTK_TEXT_VIEW (view), GTK_WRAP_WORD_CHAR);
  gtk_text_view_set_accepts_tab (GTK_TEXT_VIEW (view), FALSE);
  gtk_text_view_set_top_margin (GTK_TEXT_VIEW (view), 6);
  gtk_text_view_set_bottom_margin (GTK_TEXT_VIEW (view), 6);
  gtk_text_view_set_left_margin (GTK_TEXT_VIEW (view), 6);
  gtk_text_view_set_right_margin (GTK_TEXT_VIEW (view), 6);
  gtk_text_buffer_set_text (gtk_text_view_get_buffer (GTK_TEXT_VIEW (view)), text, -1);
  gtk_label_set_mnemonic_widget (GTK_LABEL (label), view);
  riv_a11y_set_name (view, _riv_form_component_title (input->component));

  gtk_scrolled_window_set_child (GTK_SCROLLED_WINDOW (scrolled), view);
  gtk_scrolled_window_set_policy (GTK_SCROLLED_WINDOW (scrolled),
                                  GTK_POLICY_NEVER, GTK_POLICY_AUTOMATIC);
  gtk_scrolled_window_set_min_content_height (GTK_SCROLLED_WINDOW (scrolled), lines * 22);
  gtk_widget_add_css_class (scrolled, "riv-text-input");
  gtk_box_append (GTK_BOX (box), scrolled);
  return view;
}

static char *
text_view_dup_text (GtkWidget *view)
{
  GtkTextBuffer *buffer = gtk_text_view_get_buffer (GTK_TEXT_VIEW (view));
  GtkTextIter start, end;

  gtk_text_buffer_get_bounds (buffer, &start, &end);
  return gtk_text_buffer_get_text (buffer, &start, &end, FALSE);
}

/* A flat icon button for a box row's header or a list line. */
static GtkWidget *
icon_button_new (const char *icon_name,
                 const char *tooltip)
{
  GtkWidget *button = gtk_button_new_from_icon_name (icon_name);

  gtk_widget_set_valign (button, GTK_ALIGN_CENTER);
  gtk_widget_add_css_class (button, "flat");
  gtk_widget_set_tooltip_text (button, tooltip);
  riv_a11y_set_name (button, tooltip);
  return button;
}

static GtkWidget *
build_text_row (RivForm *self,
                Input   *input)
{
  RivComponent *component = input->component;
  g_autofree char *text = node_to_display (component->value);
  const char *placeholder = riv_json_get_string (component->props, "placeholder");

  if (component->lines > 1)
    {
      GtkWidget *box;
      GtkWidget *row = box_row_new (input, &box, NULL);

      input->kind = RIV_FORM_INPUT_TEXT_MULTI;
      input->widget = text_view_new (input, box, text, MIN (component->lines, 8));
      return row;
    }
  else
    {
      GtkWidget *row = adw_entry_row_new ();

      input->kind = RIV_FORM_INPUT_TEXT;
      adw_preferences_row_set_title (ADW_PREFERENCES_ROW (row),
                                     _riv_form_component_title (component));
      adw_preferences_row_set_use_underline (ADW_PREFERENCES_ROW (row), FALSE);
      gtk_editable_set_text (GTK_EDITABLE (row), text);
      if (placeholder != NULL && *placeholder != '\0')
        gtk_widget_set_tooltip_text (row, placeholder);
      g_signal_connect_object (row, "entry-activated", G_CALLBACK (entry_activated_cb),
                               self, 0);
      input->row = row;
      input->widget = row;
      return row;
    }
}

static void
number_range (RivComponent *component,
              double       *min,
              double       *max,
              double       *step)
{
  *min = component->has_minimum ? component->minimum : -1e12;
  *max = component->has_maximum ? component->maximum : 1e12;
  *step = component->has_step && component->step > 0 ? component->step : 1;
  if (*max < *min)
    *max = *min;
}

static guint
digits_for (double step,
            double value,
            gboolean integer)
{
  guint digits = 0;

  if (integer)
    return 0;

  /* Enough decimals to show the step; at least two for free-form numbers. */
  while (digits < 6 && !is_integral (step * pow (10, digits)))
    digits++;
  if (!is_integral (value))
    digits = MAX (digits, 2);
  return digits;
}

static GtkWidget *
build_number_row (Input *input)
{
  RivComponent *component = input->component;
  GtkWidget *row = adw_action_row_new ();
  GtkWidget *spin;
  double min, max, step, value;
  gint64 precision = -1;

  number_range (component, &min, &max, &step);
  value = CLAMP (node_get_number (component->value, MAX (min, MIN (0, max))), min, max);

  if (riv_json_get_int (component->props, "precision", &precision) && precision == 0)
    input->integer = TRUE;
  else
    input->integer = precision < 0 && is_integral (step) && is_integral (value) &&
                     (!component->has_minimum || is_integral (min));

  adw_preferences_row_set_title (ADW_PREFERENCES_ROW (row), _riv_form_component_title (component));
  adw_preferences_row_set_use_underline (ADW_PREFERENCES_ROW (row), FALSE);
  if (component->has_minimum && component->has_maximum)
    {
      g_autofree char *range = g_strdup_printf (_("%g to %g"), min, max);

      adw_action_row_set_subtitle (ADW_ACTION_ROW (row), range);
    }

  spin = gtk_spin_button_new_with_range (min, max, step);
  gtk_spin_button_set_digits (GTK_SPIN_BUTTON (spin), digits_for (step, value, input->integer));
  gtk_spin_button_set_value (GTK_SPIN_BUTTON (spin), value);
  gtk_spin_button_set_numeric (GTK_SPIN_BUTTON (spin), TRUE);
  gtk_widget_set_valign (spin, GTK_ALIGN_CENTER);
  adw_action_row_add_suffix (ADW_ACTION_ROW (row), spin);
  adw_action_row_set_activatable_widget (ADW_ACTION_ROW (row), spin);
  riv_a11y_set_name (spin, _riv_form_component_title (component));

  input->kind = RIV_FORM_INPUT_NUMBER;
  input->row = row;
  input->widget = spin;
  return row;
}

static GtkWidget *
build_slider_row (Input *input)
{
  RivComponent *component = input->component;
  GtkWidget *row = adw_action_row_new ();
  GtkWidget *scale;
  double min, max, step, value;

  min = component->has_minimum ? component->minimum : 0;
  max = component->has_maximum ? component->maximum : 100;
  step = component->has_step && component->step > 0 ? component->step : 1;
  if (max <= min)
    max = min + step;
  value = CLAMP (node_get_number (component->value, min), min, max);
  input->integer = is_integral (step) && is_integral (min);

  adw_preferences_row_set_title (ADW_PREFERENCES_ROW (row), _riv_form_component_title (component));
  adw_preferences_row_set_use_underline (ADW_PREFERENCES_ROW (row), FALSE);

  scale = gtk_scale_new_with_range (GTK_ORIENTATION_HORIZONTAL, min, max, step);
  gtk_range_set_increments (GTK_RANGE (scale), step, step * 10);
  gtk_range_set_round_digits (GTK_RANGE (scale), (int) digits_for (step, value, input->integer));
  gtk_scale_set_digits (GTK_SCALE (scale), (int) digits_for (step, value, input->integer));
  gtk_scale_set_draw_value (GTK_SCALE (scale), TRUE);
  gtk_scale_set_value_pos (GTK_SCALE (scale), GTK_POS_RIGHT);
  gtk_range_set_value (GTK_RANGE (scale), value);
  gtk_widget_set_hexpand (scale, TRUE);
  gtk_widget_set_size_request (scale, 180, -1);
  gtk_widget_set_valign (scale, GTK_ALIGN_CENTER);
  adw_action_row_add_suffix (ADW_ACTION_ROW (row), scale);
  riv_a11y_set_name (scale, _riv_form_component_title (component));

  input->kind = RIV_FORM_INPUT_SLIDER;
  input->row = row;
  input->widget = scale;
  return row;
}

static GtkWidget *
build_checkbox_row (Input *input)
{
  RivComponent *component = input->component;
  GtkWidget *row = adw_action_row_new ();
  GtkWidget *toggle = gtk_switch_new ();
  gboolean value = FALSE;

  if (component->value != NULL && JSON_NODE_HOLDS_VALUE (component->value) &&
      json_node_get_value_type (component->value) == G_TYPE_BOOLEAN)
    value = json_node_get_boolean (component->value);

  adw_preferences_row_set_title (ADW_PREFERENCES_ROW (row), _riv_form_component_title (component));
  adw_preferences_row_set_use_underline (ADW_PREFERENCES_ROW (row), FALSE);
  gtk_switch_set_active (GTK_SWITCH (toggle), value);
  gtk_widget_set_valign (toggle, GTK_ALIGN_CENTER);
  adw_action_row_add_suffix (ADW_ACTION_ROW (row), toggle);
  adw_action_row_set_activatable_widget (ADW_ACTION_ROW (row), toggle);
  riv_a11y_set_name (toggle, _riv_form_component_title (component));

  input->kind = RIV_FORM_INPUT_CHECKBOX;
  input->row = row;
  input->widget = toggle;
  return row;
}

static GtkWidget *
build_dropdown_row (Input *input)
{
  RivComponent *component = input->component;
  GtkWidget *row = adw_combo_row_new ();
  g_autoptr(GtkStringList) names = parse_choices (input);

  input->multiselect = riv_json_get_bool (component->props, "multiselect", FALSE);
  adw_preferences_row_set_title (ADW_PREFERENCES_ROW (row), _riv_form_component_title (component));
  adw_preferences_row_set_use_underline (ADW_PREFERENCES_ROW (row), FALSE);
  adw_combo_row_set_model (ADW_COMBO_ROW (row), G_LIST_MODEL (names));
  if (input->choice_values->len > 0)
    adw_combo_row_set_selected (ADW_COMBO_ROW (row), default_choice (input));

  input->kind = RIV_FORM_INPUT_DROPDOWN;
  input->row = row;
  input->widget = row;
  return row;
}

static GtkWidget *
build_radio_row (Input *input)
{
  RivComponent *component = input->component;
  g_autoptr(GtkStringList) names = parse_choices (input);
  guint n = g_list_model_get_n_items (G_LIST_MODEL (names));
  GtkWidget *row;
  GtkWidget *box;
  GtkCheckButton *first = NULL;
  guint selected;

  /* Many choices do not fit in a row of radio buttons: use a drop-down. */
  if (n > 4)
    {
      g_clear_pointer (&input->choice_values, g_ptr_array_unref);
      return build_dropdown_row (input);
    }

  selected = default_choice (input);
  row = adw_action_row_new ();
  adw_preferences_row_set_title (ADW_PREFERENCES_ROW (row), _riv_form_component_title (component));
  adw_preferences_row_set_use_underline (ADW_PREFERENCES_ROW (row), FALSE);

  box = gtk_box_new (GTK_ORIENTATION_HORIZONTAL, 6);
  gtk_widget_set_valign (box, GTK_ALIGN_CENTER);
  riv_a11y_set_name (box, _riv_form_component_title (component));
  for (guint i = 0; i < n; i++)
    {
      GtkWidget *radio = gtk_check_button_new_with_label (gtk_string_list_get_string (names, i));

      if (first == NULL)
        first = GTK_CHECK_BUTTON (radio);
      else
        gtk_check_button_set_group (GTK_CHECK_BUTTON (radio), first);
      gtk_check_button_set_active (GTK_CHECK_BUTTON (radio), i == selected);
      gtk_box_append (GTK_BOX (box), radio);
    }
  adw_action_row_add_suffix (ADW_ACTION_ROW (row), box);

  input->kind = RIV_FORM_INPUT_RADIO;
  input->row = row;
  input->widget = box;
  return row;
}

/* Validation shown next to the field */

static gboolean
is_json_entry_valid (const char *text)
{
  g_autoptr(JsonNode) node = riv_json_parse (NULL, text, -1, 64, NULL);

  return node != NULL;
}

/* Gradio's DateTime takes "YYYY-MM-DD[ HH:MM:SS]" (the time only with
 * include_time), "now", or "now - N" with a unit d, h, m or s; empty sends no
 * date. A {i} placeholder stands for a digit. */
static gboolean
is_datetime_valid (const char *text,
                   gboolean    include_time)
{
  g_autoptr(GString) filled = g_string_new (text);
  char *stripped;
  int y = 0, mo = 0, d = 0, h = 0, mi = 0, s = 0, end = 0;
  g_autoptr(GDateTime) date = NULL;

  g_string_replace (filled, "{i}", "1", 0);
  stripped = g_strstrip (filled->str);
  if (*stripped == '\0')
    return TRUE;
  if (strstr (stripped, "now") != NULL)
    return g_regex_match_simple ("^\\s*now\\s*(-\\s*[0-9]+\\s*[dmhs])?\\s*$", stripped, 0, 0);

  if (include_time)
    {
      if (sscanf (stripped, "%4d-%2d-%2d %2d:%2d:%2d%n", &y, &mo, &d, &h, &mi, &s, &end) != 6)
        return FALSE;
    }
  else if (sscanf (stripped, "%4d-%2d-%2d%n", &y, &mo, &d, &end) != 3)
    return FALSE;

  if (stripped[end] != '\0' || strlen (stripped) < (include_time ? 14u : 8u))
    return FALSE;
  date = g_date_time_new_utc (y, mo, d, h, mi, s);
  return date != NULL;
}

static gboolean
parse_cell_number (const char *text,
                   double     *value)
{
  char *end = NULL;

  *value = g_ascii_strtod (text, &end);
  return end != text && *end == '\0' && isfinite (*value);
}

char *
_riv_form_input_check (Input *input)
{
  switch (input->kind)
    {
    case RIV_FORM_INPUT_JSON:
      if (!is_json_entry_valid (gtk_editable_get_text (GTK_EDITABLE (input->widget))))
        return g_strdup (_("not valid JSON"));
      return NULL;

    case RIV_FORM_INPUT_DATETIME:
      if (!is_datetime_valid (gtk_editable_get_text (GTK_EDITABLE (input->widget)),
                              input->include_time))
        return g_strdup (input->include_time
                         ? _("not a date: use YYYY-MM-DD HH:MM:SS or “now - 1h”")
                         : _("not a date: use YYYY-MM-DD or “now - 1d”"));
      return NULL;

    case RIV_FORM_INPUT_DATAFRAME:
      for (guint col = 0; col < input->headers->len; col++)
        {
          if (g_strcmp0 (g_ptr_array_index (input->datatypes, col), "number") != 0)
            continue;
          for (int row = 1; ; row++)
            {
              GtkWidget *cell = gtk_grid_get_child_at (GTK_GRID (input->list), (int) col, row);
              const char *text;
              double value;

              if (cell == NULL)
                break;
              text = gtk_editable_get_text (GTK_EDITABLE (cell));
              if (*text != '\0' && strstr (text, "{i}") == NULL &&
                  !parse_cell_number (text, &value))
                /* Translators: a dataframe's row number, then its column's header */
                return g_strdup_printf (_("row %d, column “%s”: not a number"), row,
                                        (const char *) g_ptr_array_index (input->headers, col));
            }
        }
      return NULL;

    case RIV_FORM_INPUT_FILES:
    case RIV_FORM_INPUT_MULTIMODAL:
      for (guint i = 0; i < input->files->len; i++)
        {
          FileItem *item = g_ptr_array_index (input->files, i);

          /* Not uploading, not on the server, not given: its upload failed. */
          if (item->cancellable == NULL && item->path == NULL && item->given == NULL)
            /* Translators: a file name */
            return g_strdup_printf (_("%s could not be uploaded: remove it or add it again"),
                                    item->name);
        }
      return NULL;

    default:
      return NULL;
    }
}

/* Marks the field and says why next to it. */
static void
input_show_check (Input *input)
{
  g_autofree char *problem = _riv_form_input_check (input);
  GtkWidget *marked = input->kind == RIV_FORM_INPUT_DATAFRAME ? NULL : input->row;

  if (marked != NULL)
    {
      if (problem != NULL)
        gtk_widget_add_css_class (marked, "error");
      else
        gtk_widget_remove_css_class (marked, "error");
    }
  if (input->error_label != NULL)
    {
      g_autofree char *shown = g_strdup (problem != NULL ? problem : "");
      char *colon = strchr (shown, ':');

      /* An entry row has little room at its end: what is wrong there, how
       * to fix it in the tooltip (a box row has a whole line). */
      if (ADW_IS_ENTRY_ROW (input->row) && colon != NULL)
        *colon = '\0';
      gtk_label_set_text (GTK_LABEL (input->error_label), shown);
      gtk_widget_set_tooltip_text (input->error_label, problem);
      gtk_widget_set_visible (input->error_label, problem != NULL);
    }
}

static void
input_changed_cb (gpointer user_data)
{
  input_show_check (user_data);
}

/* An entry row for text that must parse; the reason shows at its end. */
static GtkWidget *
checked_entry_row_new (Input      *input,
                       const char *text,
                       const char *badge)
{
  GtkWidget *row = adw_entry_row_new ();

  adw_preferences_row_set_title (ADW_PREFERENCES_ROW (row),
                                 _riv_form_component_title (input->component));
  adw_preferences_row_set_use_underline (ADW_PREFERENCES_ROW (row), FALSE);
  gtk_editable_set_text (GTK_EDITABLE (row), text);

  input->error_label = gtk_label_new (NULL);
  gtk_widget_add_css_class (input->error_label, "caption");
  gtk_widget_add_css_class (input->error_label, "error");
  gtk_label_set_ellipsize (GTK_LABEL (input->error_label), PANGO_ELLIPSIZE_END);
  gtk_label_set_max_width_chars (GTK_LABEL (input->error_label), 40);
  gtk_widget_set_visible (input->error_label, FALSE);
  adw_entry_row_add_suffix (ADW_ENTRY_ROW (row), input->error_label);

  if (badge != NULL)
    {
      GtkWidget *type = gtk_label_new (badge);

      gtk_widget_add_css_class (type, "riv-badge");
      gtk_widget_set_valign (type, GTK_ALIGN_CENTER);
      adw_entry_row_add_suffix (ADW_ENTRY_ROW (row), type);
    }

  input->row = row;
  input->widget = row;
  g_signal_connect_swapped (row, "changed", G_CALLBACK (input_changed_cb), input);
  return row;
}

/* Checkbox group */

static GtkWidget *
build_checkbox_group_row (Input *input)
{
  g_autoptr(GtkStringList) names = parse_choices (input);
  JsonNode *value = input->component->value;
  JsonArray *chosen = value != NULL && JSON_NODE_HOLDS_ARRAY (value)
                      ? json_node_get_array (value) : NULL;
  GtkWidget *box;
  GtkWidget *row = box_row_new (input, &box, NULL);
  GtkWidget *flow = gtk_flow_box_new ();

  gtk_flow_box_set_selection_mode (GTK_FLOW_BOX (flow), GTK_SELECTION_NONE);
  gtk_flow_box_set_homogeneous (GTK_FLOW_BOX (flow), FALSE);
  gtk_flow_box_set_max_children_per_line (GTK_FLOW_BOX (flow), 6);
  gtk_flow_box_set_column_spacing (GTK_FLOW_BOX (flow), 12);
  gtk_flow_box_set_row_spacing (GTK_FLOW_BOX (flow), 6);
  gtk_widget_add_css_class (flow, "riv-choices");
  riv_a11y_set_name (flow, _riv_form_component_title (input->component));
  input->checks = g_ptr_array_new ();

  for (guint i = 0; i < input->choice_values->len; i++)
    {
      GtkWidget *check = gtk_check_button_new_with_label (gtk_string_list_get_string (names, i));
      gboolean active = FALSE;

      for (guint j = 0; chosen != NULL && j < json_array_get_length (chosen) && !active; j++)
        active = nodes_equal (json_array_get_element (chosen, j),
                              g_ptr_array_index (input->choice_values, i));
      gtk_check_button_set_active (GTK_CHECK_BUTTON (check), active);
      gtk_flow_box_append (GTK_FLOW_BOX (flow), check);
      g_ptr_array_add (input->checks, check);
    }

  if (input->choice_values->len == 0)
    {
      GtkWidget *none = gtk_label_new (_("The server lists no choices: an empty list is sent."));

      gtk_label_set_xalign (GTK_LABEL (none), 0);
      gtk_widget_add_css_class (none, "dim-label");
      gtk_box_append (GTK_BOX (box), none);
    }
  else
    gtk_box_append (GTK_BOX (box), flow);

  input->kind = RIV_FORM_INPUT_CHECKBOX_GROUP;
  input->widget = flow;
  return row;
}

/* Colour picker: "#rrggbb" */

static char *
rgba_to_hex (const GdkRGBA *rgba)
{
  return g_strdup_printf ("#%02x%02x%02x",
                          (guint) lround (CLAMP (rgba->red, 0, 1) * 255),
                          (guint) lround (CLAMP (rgba->green, 0, 1) * 255),
                          (guint) lround (CLAMP (rgba->blue, 0, 1) * 255));
}

static GtkWidget *
build_color_row (Input *input)
{
  GtkWidget *row = adw_action_row_new ();
  GtkWidget *button = gtk_color_button_new ();
  const char *title = _riv_form_component_title (input->component);
  JsonNode *value = input->component->value;
  GdkRGBA rgba = { 0, 0, 0, 1 };

  if (value != NULL && JSON_NODE_HOLDS_VALUE (value) &&
      json_node_get_value_type (value) == G_TYPE_STRING)
    gdk_rgba_parse (&rgba, json_node_get_string (value));
  rgba.alpha = 1;

  adw_preferences_row_set_title (ADW_PREFERENCES_ROW (row), title);
  adw_preferences_row_set_use_underline (ADW_PREFERENCES_ROW (row), FALSE);
  gtk_color_chooser_set_use_alpha (GTK_COLOR_CHOOSER (button), FALSE);
  gtk_color_chooser_set_rgba (GTK_COLOR_CHOOSER (button), &rgba);
  gtk_color_button_set_title (GTK_COLOR_BUTTON (button), title);
  gtk_widget_set_valign (button, GTK_ALIGN_CENTER);
  adw_action_row_add_suffix (ADW_ACTION_ROW (row), button);
  adw_action_row_set_activatable_widget (ADW_ACTION_ROW (row), button);
  riv_a11y_set_name (button, title);

  input->kind = RIV_FORM_INPUT_COLOR;
  input->row = row;
  input->widget = button;
  return row;
}

/* Date and time */

static GtkWidget *
build_datetime_row (Input *input)
{
  JsonNode *value = input->component->value;
  g_autofree char *text = NULL;
  GtkWidget *row;

  input->include_time = riv_json_get_bool (input->component->props, "include_time", TRUE);
  if (value != NULL && JSON_NODE_HOLDS_VALUE (value) &&
      (json_node_get_value_type (value) == G_TYPE_INT64 ||
       json_node_get_value_type (value) == G_TYPE_DOUBLE))
    {
      /* A timestamp: shown as Gradio's frontend shows it, in local time
       * (none when out of range). */
      double seconds = json_node_get_double (value);
      g_autoptr(GDateTime) date =
        fabs (seconds) < 1e11 ? g_date_time_new_from_unix_local ((gint64) seconds) : NULL;

      text = date != NULL ? g_date_time_format (date, input->include_time ? "%Y-%m-%d %H:%M:%S"
                                                                          : "%Y-%m-%d")
                          : g_strdup ("");
    }
  else
    text = node_to_display (value);

  row = checked_entry_row_new (input, text, NULL);
  gtk_widget_set_tooltip_text (row,
                               input->include_time
                               ? _("YYYY-MM-DD HH:MM:SS, or “now”, “now - 30m”, “now - 2d”")
                               : _("YYYY-MM-DD, or “now”, “now - 2d”"));
  g_signal_connect_object (row, "entry-activated", G_CALLBACK (entry_activated_cb),
                           input->form, 0);
  input->kind = RIV_FORM_INPUT_DATETIME;
  input_show_check (input);
  return row;
}

/* Code */

static GtkWidget *
build_code_row (Input *input)
{
  const char *language = riv_json_get_string (input->component->props, "language");
  g_autofree char *text = node_to_display (input->component->value);
  GtkWidget *box;
  GtkWidget *header;
  GtkWidget *row = box_row_new (input, &box, &header);
  int lines = 6;
  gint64 config_lines;

  if (riv_json_get_int (input->component->props, "lines", &config_lines))
    lines = (int) CLAMP (config_lines, 3, 12);
  if (language != NULL && *language != '\0')
    {
      GtkWidget *badge = gtk_label_new (language);

      gtk_widget_add_css_class (badge, "riv-badge");
      gtk_box_append (GTK_BOX (header), badge);
    }

  input->widget = text_view_new (input, box, text, lines);
  gtk_text_view_set_monospace (GTK_TEXT_VIEW (input->widget), TRUE);
  gtk_text_view_set_wrap_mode (GTK_TEXT_VIEW (input->widget), GTK_WRAP_NONE);
  gtk_scrolled_window_set_policy (GTK_SCROLLED_WINDOW (gtk_widget_get_parent (input->widget)),
                                  GTK_POLICY_AUTOMATIC, GTK_POLICY_AUTOMATIC);
  input->kind = RIV_FORM_INPUT_CODE;
  return row;
}

/* Chatbot history: a list of messages, each a role and a text */

typedef enum
{
  CHAT_TUPLES,          /* [[user, assistant], …] (Gradio 4, 5 type="tuples") */
  CHAT_MESSAGES,        /* [{"role", "content": "text"}] (Gradio 5 type="messages") */
  CHAT_MESSAGES_PARTS,  /* [{"role", "content": [{"type": "text", "text"}]}] (Gradio 6) */
} ChatFormat;

static const char * const chat_roles[] = { "user", "assistant", "system" };

static void
chat_message_remove_cb (GtkButton *button,
                        gpointer   user_data)
{
  Input *input = user_data;
  GtkWidget *line = gtk_widget_get_parent (GTK_WIDGET (button));

  gtk_box_remove (GTK_BOX (input->list), line);
  list_update_placeholder (input);
}

static void
chat_add_message (Input      *input,
                  guint       role,
                  const char *text)
{
  const char *names[] = { C_("chat role", "User"), C_("chat role", "Assistant"),
                          C_("chat role", "System"), NULL };
  GtkWidget *line = gtk_box_new (GTK_ORIENTATION_HORIZONTAL, 6);
  GtkWidget *dropdown;
  GtkWidget *entry = gtk_entry_new ();
  GtkWidget *remove = icon_button_new ("list-remove-symbolic", _("Remove the message"));

  /* Tuples have no system messages. */
  if (input->chat_format == CHAT_TUPLES)
    names[2] = NULL;
  dropdown = gtk_drop_down_new_from_strings (names);
  gtk_drop_down_set_selected (GTK_DROP_DOWN (dropdown),
                              MIN (role, input->chat_format == CHAT_TUPLES ? 1u : 2u));
  gtk_widget_set_valign (dropdown, GTK_ALIGN_CENTER);
  riv_a11y_set_name (dropdown, _("Role"));
  /* The messages' texts line up, whatever their role's name. */
  gtk_size_group_add_widget (g_object_get_data (G_OBJECT (input->list), "riv-roles"), dropdown);

  gtk_editable_set_text (GTK_EDITABLE (entry), text != NULL ? text : "");
  gtk_widget_set_hexpand (entry, TRUE);
  riv_a11y_set_name (entry, _("Message"));
  g_signal_connect (remove, "clicked", G_CALLBACK (chat_message_remove_cb), input);

  gtk_box_append (GTK_BOX (line), dropdown);
  gtk_box_append (GTK_BOX (line), entry);
  gtk_box_append (GTK_BOX (line), remove);
  gtk_box_append (GTK_BOX (input->list), line);
  list_update_placeholder (input);
}

static void
chat_add_clicked_cb (GtkButton *button,
                     gpointer   user_data)
{
  Input *input = user_data;
  GtkWidget *last = gtk_widget_get_last_child (input->list);
  guint role = 0;

  /* Alternate: after a user message comes the assistant's. */
  if (last != NULL)
    role = gtk_drop_down_get_selected (GTK_DROP_DOWN (gtk_widget_get_first_child (last))) == 0;
  chat_add_message (input, role, "");
  gtk_widget_grab_focus (gtk_widget_get_next_sibling (
                           gtk_widget_get_first_child (gtk_widget_get_last_child (input->list))));
}

/* The text of a message's content in any of the formats; NULL for files. */
static const char *
chat_content_text (JsonNode *content)
{
  if (content == NULL)
    return NULL;
  if (JSON_NODE_HOLDS_VALUE (content) && json_node_get_value_type (content) == G_TYPE_STRING)
    return json_node_get_string (content);
  if (JSON_NODE_HOLDS_ARRAY (content))
    {
      JsonArray *parts = json_node_get_array (content);

      for (guint i = 0; i < json_array_get_length (parts); i++)
        {
          JsonNode *part = json_array_get_element (parts, i);

          if (JSON_NODE_HOLDS_OBJECT (part) &&
              g_strcmp0 (riv_json_get_string (json_node_get_object (part), "type"), "text") == 0)
            return riv_json_get_string (json_node_get_object (part), "text");
        }
    }
  return NULL;
}

/* Replaces the messages with a history in any format; FALSE when it is not one. */
static gboolean
chat_fill (Input    *input,
           JsonNode *history)
{
  JsonArray *array;
  GtkWidget *child;

  if (history == NULL || !JSON_NODE_HOLDS_ARRAY (history))
    return FALSE;

  while ((child = gtk_widget_get_first_child (input->list)) != NULL)
    gtk_box_remove (GTK_BOX (input->list), child);

  array = json_node_get_array (history);
  for (guint i = 0; i < json_array_get_length (array) && i < 500; i++)
    {
      JsonNode *item = json_array_get_element (array, i);

      if (JSON_NODE_HOLDS_ARRAY (item))
        {
          JsonArray *pair = json_node_get_array (item);

          for (guint j = 0; j < MIN (json_array_get_length (pair), 2u); j++)
            {
              const char *text = chat_content_text (json_array_get_element (pair, j));

              if (text != NULL)
                chat_add_message (input, j, text);
            }
        }
      else if (JSON_NODE_HOLDS_OBJECT (item))
        {
          JsonObject *message = json_node_get_object (item);
          const char *role = riv_json_get_string (message, "role");
          const char *text = chat_content_text (json_object_get_member (message, "content"));
          guint r = 0;

          while (r < G_N_ELEMENTS (chat_roles) && g_strcmp0 (role, chat_roles[r]) != 0)
            r++;
          if (text != NULL)
            chat_add_message (input, r < G_N_ELEMENTS (chat_roles) ? r : 1, text);
        }
    }
  list_update_placeholder (input);
  return TRUE;
}

static JsonNode *
chat_dup_value (Input *input)
{
  g_autoptr(JsonArray) history = json_array_new ();
  JsonArray *pair = NULL;

  for (GtkWidget *line = gtk_widget_get_first_child (input->list); line != NULL;
       line = gtk_widget_get_next_sibling (line))
    {
      GtkWidget *dropdown = gtk_widget_get_first_child (line);
      GtkWidget *entry = gtk_widget_get_next_sibling (dropdown);
      guint role = MIN (gtk_drop_down_get_selected (GTK_DROP_DOWN (dropdown)), 2u);
      const char *text = gtk_editable_get_text (GTK_EDITABLE (entry));

      if (input->chat_format == CHAT_TUPLES)
        {
          /* A user message opens a pair; an assistant message ends the
           * open pair, or stands alone after a null. */
          if (role == 0 || pair == NULL || !JSON_NODE_HOLDS_NULL (json_array_get_element (pair, 1)))
            {
              pair = json_array_new ();
              if (role == 0)
                json_array_add_string_element (pair, text);
              else
                json_array_add_null_element (pair);
              json_array_add_null_element (pair);
              json_array_add_array_element (history, pair);
              if (role == 0)
                continue;
            }
          json_array_remove_element (pair, 1);
          json_array_add_string_element (pair, text);
        }
      else
        {
          g_autoptr(JsonObject) message = json_object_new ();

          json_object_set_string_member (message, "role", chat_roles[role]);
          if (input->chat_format == CHAT_MESSAGES_PARTS)
            {
              g_autoptr(JsonArray) parts = json_array_new ();
              g_autoptr(JsonObject) part = json_object_new ();

              json_object_set_string_member (part, "type", "text");
              json_object_set_string_member (part, "text", text);
              json_array_add_object_element (parts, g_steal_pointer (&part));
              json_object_set_array_member (message, "content", g_steal_pointer (&parts));
            }
          else
            json_object_set_string_member (message, "content", text);
          json_array_add_object_element (history, g_steal_pointer (&message));
        }
    }
  return json_node_init_array (json_node_alloc (), history);
}

static GtkWidget *
build_chatbot_row (Input *input)
{
  const char *format = riv_json_get_string (input->component->props, "type");
  const char *version = riv_config_get_version (input->form->config);
  GtkWidget *box;
  GtkWidget *header;
  GtkWidget *row = box_row_new (input, &box, &header);
  GtkWidget *add = icon_button_new ("list-add-symbolic", _("Add a message"));

  /* Gradio 6 has only messages, their content a list of parts; before it
   * the component's type says, and tuples were the default. */
  if (version != NULL && g_ascii_strtoll (version, NULL, 10) >= 6)
    input->chat_format = CHAT_MESSAGES_PARTS;
  else if (g_strcmp0 (format, "messages") == 0)
    input->chat_format = CHAT_MESSAGES;
  else
    input->chat_format = CHAT_TUPLES;

  g_signal_connect (add, "clicked", G_CALLBACK (chat_add_clicked_cb), input);
  gtk_box_append (GTK_BOX (header), add);

  input->list = gtk_box_new (GTK_ORIENTATION_VERTICAL, 6);
  g_object_set_data_full (G_OBJECT (input->list), "riv-roles",
                          gtk_size_group_new (GTK_SIZE_GROUP_HORIZONTAL), g_object_unref);
  gtk_box_append (GTK_BOX (box), input->list);
  list_add_placeholder (input, box, _("No messages: an empty history is sent."));
  chat_fill (input, input->component->value);
  list_update_placeholder (input);

  input->kind = RIV_FORM_INPUT_CHATBOT;
  input->widget = input->list;
  return row;
}

/* Files and the multimodal textbox's files: a list of uploaded files */

static void
file_item_free (gpointer data)
{
  FileItem *item = data;

  if (item->cancellable != NULL)
    {
      g_cancellable_cancel (item->cancellable);
      g_clear_object (&item->cancellable);
      _riv_form_set_busy_delta (item->input->form, -1);
    }
  g_free (item->name);
  g_free (item->path);
  g_free (item->mime_type);
  g_clear_pointer (&item->given, json_node_unref);
  g_free (item);
}

static void
file_item_remove_cb (GtkButton *button,
                     gpointer   user_data)
{
  FileItem *item = user_data;
  Input *input = item->input;

  gtk_box_remove (GTK_BOX (input->list), item->row);
  g_ptr_array_remove (input->files, item);
  list_update_placeholder (input);
}

/* A line for a file in the list; name is taken. */
static FileItem *
file_item_new (Input *input,
               char  *name)
{
  FileItem *item = g_new0 (FileItem, 1);
  GtkWidget *icon = gtk_image_new_from_icon_name ("text-x-generic-symbolic");
  GtkWidget *label;
  GtkWidget *remove = icon_button_new ("list-remove-symbolic", _("Remove the file"));

  item->input = input;
  item->name = name;
  item->size = -1;
  g_ptr_array_add (input->files, item);

  item->row = gtk_box_new (GTK_ORIENTATION_HORIZONTAL, 6);
  label = gtk_label_new (item->name);
  gtk_label_set_xalign (GTK_LABEL (label), 0);
  gtk_label_set_ellipsize (GTK_LABEL (label), PANGO_ELLIPSIZE_MIDDLE);
  gtk_widget_set_hexpand (label, TRUE);
  item->status = gtk_label_new (NULL);
  gtk_widget_add_css_class (item->status, "dim-label");
  gtk_widget_add_css_class (item->status, "numeric");
  g_signal_connect (remove, "clicked", G_CALLBACK (file_item_remove_cb), item);
  gtk_box_append (GTK_BOX (item->row), icon);
  gtk_box_append (GTK_BOX (item->row), label);
  gtk_box_append (GTK_BOX (item->row), item->status);
  gtk_box_append (GTK_BOX (item->row), remove);
  gtk_box_append (GTK_BOX (input->list), item->row);
  list_update_placeholder (input);
  return item;
}

void
_riv_form_add_file (Input *input,
                    GFile *file)
{
  RivForm *self = input->form;
  FileItem *item = file_item_new (input, g_file_get_basename (file));
  UploadData *data;

  item->cancellable = g_cancellable_new ();
  gtk_label_set_text (GTK_LABEL (item->status), _("waiting"));

  data = g_new0 (UploadData, 1);
  data->form = g_object_ref (self);
  data->input = input;
  data->item = item;
  data->file = g_object_ref (file);
  data->name = g_strdup (item->name);
  data->cancellable = g_object_ref (item->cancellable);

  _riv_form_set_busy_delta (self, +1);
  g_file_load_bytes_async (file, item->cancellable, image_load_cb, data);
}

/* Replaces the files with a list given with --data: FileData objects are
 * sent as they are, absolute paths are read and uploaded. FALSE when the
 * list holds anything else (nothing is changed then). */
static gboolean
files_fill (Input    *input,
            JsonNode *list)
{
  JsonArray *array;

  if (list == NULL || !JSON_NODE_HOLDS_ARRAY (list))
    return FALSE;
  array = json_node_get_array (list);
  for (guint i = 0; i < json_array_get_length (array); i++)
    {
      JsonNode *file = json_array_get_element (array, i);
      const char *path = JSON_NODE_HOLDS_VALUE (file) &&
                         json_node_get_value_type (file) == G_TYPE_STRING
                         ? json_node_get_string (file) : NULL;

      if (!JSON_NODE_HOLDS_OBJECT (file) && (path == NULL || !g_path_is_absolute (path)))
        return FALSE;
    }

  while (input->files->len > 0)
    {
      FileItem *item = g_ptr_array_index (input->files, input->files->len - 1);

      gtk_box_remove (GTK_BOX (input->list), item->row);
      g_ptr_array_remove_index (input->files, input->files->len - 1);
    }

  for (guint i = 0; i < json_array_get_length (array); i++)
    {
      JsonNode *file = json_array_get_element (array, i);

      if (JSON_NODE_HOLDS_OBJECT (file))
        {
          JsonObject *object = json_node_get_object (file);
          const char *name = riv_json_get_string (object, "orig_name");
          const char *path = riv_json_get_string (object, "path");
          FileItem *item;

          if (name == NULL)
            name = path != NULL ? path : riv_json_get_string (object, "url");
          item = file_item_new (input, name != NULL ? g_path_get_basename (name)
                                                    : g_strdup ("?"));
          item->given = json_node_copy (file);
          /* Translators: next to a file given as a FileData with --data */
          gtk_label_set_text (GTK_LABEL (item->status), _("given"));
        }
      else
        {
          g_autoptr(GFile) local = g_file_new_for_path (json_node_get_string (file));

          _riv_form_add_file (input, local);
        }
    }
  list_update_placeholder (input);
  return TRUE;
}

static void
files_chooser_response_cb (GtkNativeDialog *dialog,
                           int              response,
                           gpointer         user_data)
{
  Input *input = user_data;

  if (response == GTK_RESPONSE_ACCEPT)
    {
      g_autoptr(GListModel) files = gtk_file_chooser_get_files (GTK_FILE_CHOOSER (dialog));

      for (guint i = 0; i < g_list_model_get_n_items (files); i++)
        {
          g_autoptr(GFile) file = g_list_model_get_item (files, i);

          _riv_form_add_file (input, file);
        }
    }
  gtk_native_dialog_destroy (dialog);
  g_object_unref (dialog);
}

static void
files_add_clicked_cb (GtkButton *button,
                      gpointer   user_data)
{
  Input *input = user_data;
  GtkRoot *root = gtk_widget_get_root (GTK_WIDGET (button));
  GtkFileChooserNative *chooser;

  chooser = gtk_file_chooser_native_new (_("Add Files"),
                                         GTK_IS_WINDOW (root) ? GTK_WINDOW (root) : NULL,
                                         GTK_FILE_CHOOSER_ACTION_OPEN, _("_Add"), _("_Cancel"));
  gtk_native_dialog_set_modal (GTK_NATIVE_DIALOG (chooser), TRUE);
  gtk_file_chooser_set_select_multiple (GTK_FILE_CHOOSER (chooser), TRUE);
  g_signal_connect (chooser, "response", G_CALLBACK (files_chooser_response_cb), input);
  gtk_native_dialog_show (GTK_NATIVE_DIALOG (chooser));
}

static gboolean
files_drop_cb (GtkDropTarget *target,
               const GValue  *value,
               double         x,
               double         y,
               gpointer       user_data)
{
  Input *input = user_data;

  if (G_VALUE_HOLDS (value, GDK_TYPE_FILE_LIST))
    {
      GSList *files = gdk_file_list_get_files (g_value_get_boxed (value));

      for (GSList *l = files; l != NULL; l = l->next)
        _riv_form_add_file (input, l->data);
      g_slist_free (files);
      return files != NULL;
    }
  if (G_VALUE_HOLDS (value, G_TYPE_FILE) && g_value_get_object (value) != NULL)
    {
      _riv_form_add_file (input, g_value_get_object (value));
      return TRUE;
    }
  return FALSE;
}

/* The file list of a box row: an Add Files button in its header, drops. */
static void
file_list_add (Input     *input,
               GtkWidget *box,
               GtkWidget *header)
{
  GtkWidget *add = icon_button_new ("list-add-symbolic", _("Add files"));
  GtkDropTarget *drop = gtk_drop_target_new (G_TYPE_INVALID, GDK_ACTION_COPY);
  GType types[] = { GDK_TYPE_FILE_LIST, G_TYPE_FILE };

  input->files = g_ptr_array_new_with_free_func (file_item_free);
  g_signal_connect (add, "clicked", G_CALLBACK (files_add_clicked_cb), input);
  gtk_box_append (GTK_BOX (header), add);

  input->list = gtk_box_new (GTK_ORIENTATION_VERTICAL, 6);
  gtk_box_append (GTK_BOX (box), input->list);

  gtk_drop_target_set_gtypes (drop, types, G_N_ELEMENTS (types));
  g_signal_connect (drop, "drop", G_CALLBACK (files_drop_cb), input);
  gtk_widget_add_controller (input->row, GTK_EVENT_CONTROLLER (drop));
}

/* Gradio's FileData for an uploaded file. */
static JsonNode *
file_data_node (const char *path,
                const char *name,
                gint64      size,
                const char *mime_type)
{
  g_autoptr(JsonObject) file = json_object_new ();
  g_autoptr(JsonObject) meta = json_object_new ();

  json_object_set_string_member (file, "path", path);
  json_object_set_string_member (file, "orig_name", name);
  if (size >= 0)
    json_object_set_int_member (file, "size", size);
  if (mime_type != NULL)
    json_object_set_string_member (file, "mime_type", mime_type);
  json_object_set_string_member (meta, "_type", "gradio.FileData");
  json_object_set_object_member (file, "meta", g_steal_pointer (&meta));
  return json_node_init_object (json_node_alloc (), file);
}

/* The uploaded files (those still uploading or failed are left out). */
static JsonArray *
files_dup_array (Input *input)
{
  JsonArray *array = json_array_new ();

  for (guint i = 0; i < input->files->len; i++)
    {
      FileItem *item = g_ptr_array_index (input->files, i);

      if (item->given != NULL)
        json_array_add_element (array, json_node_copy (item->given));
      else if (item->path != NULL)
        json_array_add_element (array, file_data_node (item->path, item->name, item->size,
                                                       item->mime_type));
    }
  return array;
}

static GtkWidget *
build_files_row (Input *input)
{
  GtkWidget *box;
  GtkWidget *header;
  GtkWidget *row = box_row_new (input, &box, &header);

  file_list_add (input, box, header);
  list_add_placeholder (input, box, _("No files — add them or drop them here"));
  input->kind = RIV_FORM_INPUT_FILES;
  input->widget = input->list;
  return row;
}

static void
multimodal_activate_cb (GtkEntry *entry,
                        gpointer  user_data)
{
  Input *input = user_data;

  _riv_form_emit_activate (input->form);
}

static GtkWidget *
build_multimodal_row (Input *input)
{
  JsonNode *value = input->component->value;
  const char *text = NULL;
  const char *placeholder = riv_json_get_string (input->component->props, "placeholder");
  GtkWidget *box;
  GtkWidget *header;
  GtkWidget *row = box_row_new (input, &box, &header);

  if (value != NULL && JSON_NODE_HOLDS_OBJECT (value))
    text = riv_json_get_string (json_node_get_object (value), "text");

  input->text = gtk_entry_new ();
  gtk_editable_set_text (GTK_EDITABLE (input->text), text != NULL ? text : "");
  if (placeholder != NULL)
    gtk_entry_set_placeholder_text (GTK_ENTRY (input->text), placeholder);
  riv_a11y_set_name (input->text, _riv_form_component_title (input->component));
  g_signal_connect (input->text, "activate", G_CALLBACK (multimodal_activate_cb), input);
  gtk_box_append (GTK_BOX (box), input->text);

  file_list_add (input, box, header);
  input->kind = RIV_FORM_INPUT_MULTIMODAL;
  input->widget = input->text;
  return row;
}

/* Dataframe: a grid of cells under the headers, rows added and removed */

#define DATAFRAME_MAX_COLUMNS 50
#define DATAFRAME_MAX_ROWS 500

static guint
dataframe_n_rows (Input *input)
{
  guint n = 0;

  while (gtk_grid_get_child_at (GTK_GRID (input->list), 0, (int) n + 1) != NULL)
    n++;
  return n;
}

static void
dataframe_add_row (Input     *input,
                   JsonArray *cells)
{
  int row = (int) dataframe_n_rows (input) + 1;

  for (guint col = 0; col < input->headers->len; col++)
    {
      GtkWidget *entry = gtk_entry_new ();
      JsonNode *cell = cells != NULL && col < json_array_get_length (cells)
                       ? json_array_get_element (cells, col) : NULL;
      g_autofree char *text = node_to_display (cell);
      const char *header = g_ptr_array_index (input->headers, col);
      /* Translators: a dataframe cell's accessible name: its row number and column */
      g_autofree char *name = g_strdup_printf (_("Row %d, %s"), row, header);

      gtk_editable_set_text (GTK_EDITABLE (entry), text);
      gtk_editable_set_width_chars (GTK_EDITABLE (entry), 8);
      gtk_widget_set_hexpand (entry, TRUE);
      if (g_strcmp0 (g_ptr_array_index (input->datatypes, col), "number") == 0)
        gtk_entry_set_alignment (GTK_ENTRY (entry), 1);
      riv_a11y_set_name (entry, name);
      g_signal_connect_swapped (entry, "changed", G_CALLBACK (input_changed_cb), input);
      gtk_grid_attach (GTK_GRID (input->list), entry, (int) col, row, 1, 1);
    }
}

static void
dataframe_add_clicked_cb (GtkButton *button,
                          gpointer   user_data)
{
  Input *input = user_data;

  if (dataframe_n_rows (input) < DATAFRAME_MAX_ROWS)
    dataframe_add_row (input, NULL);
}

static void
dataframe_remove_clicked_cb (GtkButton *button,
                             gpointer   user_data)
{
  Input *input = user_data;
  guint n = dataframe_n_rows (input);

  if (n > 0)
    {
      gtk_grid_remove_row (GTK_GRID (input->list), (int) n);
      input_show_check (input);
    }
}

/* Replaces the rows with a value's "data"; FALSE when it has none. */
static gboolean
dataframe_fill (Input    *input,
                JsonNode *value)
{
  JsonNode *data = NULL;
  JsonArray *rows;

  if (value != NULL && JSON_NODE_HOLDS_OBJECT (value))
    data = json_object_get_member (json_node_get_object (value), "data");
  if (data == NULL || !JSON_NODE_HOLDS_ARRAY (data))
    return FALSE;

  for (guint n = dataframe_n_rows (input); n > 0; n--)
    gtk_grid_remove_row (GTK_GRID (input->list), (int) n);

  rows = json_node_get_array (data);
  for (guint i = 0; i < json_array_get_length (rows) && i < DATAFRAME_MAX_ROWS; i++)
    {
      JsonNode *row = json_array_get_element (rows, i);

      dataframe_add_row (input, JSON_NODE_HOLDS_ARRAY (row) ? json_node_get_array (row) : NULL);
    }
  input_show_check (input);
  return TRUE;
}

/* A count given as N or [N, "fixed"|"dynamic"]. */
static gint64
dataframe_count (JsonObject *props,
                 const char *name,
                 const char *other_name)
{
  JsonNode *node = json_object_get_member (props, name);
  gint64 count = -1;

  if (node == NULL && other_name != NULL)
    node = json_object_get_member (props, other_name);
  if (node != NULL && JSON_NODE_HOLDS_ARRAY (node) &&
      json_array_get_length (json_node_get_array (node)) > 0)
    node = json_array_get_element (json_node_get_array (node), 0);
  if (node != NULL && JSON_NODE_HOLDS_VALUE (node) &&
      (json_node_get_value_type (node) == G_TYPE_INT64 ||
       json_node_get_value_type (node) == G_TYPE_DOUBLE))
    count = (gint64) CLAMP (json_node_get_double (node), -1, 1e6);
  return count;
}

static void
dataframe_read_columns (Input *input)
{
  JsonObject *props = input->component->props;
  JsonNode *value = input->component->value;
  JsonNode *headers = NULL;
  JsonNode *datatype = json_object_get_member (props, "datatype");
  gint64 n_columns = dataframe_count (props, "col_count", "column_count");

  input->headers = g_ptr_array_new_with_free_func (g_free);
  input->datatypes = g_ptr_array_new_with_free_func (g_free);

  if (value != NULL && JSON_NODE_HOLDS_OBJECT (value))
    headers = json_object_get_member (json_node_get_object (value), "headers");
  if (headers == NULL || !JSON_NODE_HOLDS_ARRAY (headers) ||
      json_array_get_length (json_node_get_array (headers)) == 0)
    headers = json_object_get_member (props, "headers");
  if (headers != NULL && JSON_NODE_HOLDS_ARRAY (headers))
    {
      JsonArray *array = json_node_get_array (headers);

      for (guint i = 0; i < json_array_get_length (array) && i < DATAFRAME_MAX_COLUMNS; i++)
        g_ptr_array_add (input->headers, node_to_display (json_array_get_element (array, i)));
    }

  /* Columns without a header are named by their number, as Gradio does. */
  n_columns = CLAMP (n_columns, (gint64) MAX (input->headers->len, 1), DATAFRAME_MAX_COLUMNS);
  while (input->headers->len < (guint) n_columns)
    g_ptr_array_add (input->headers, g_strdup_printf ("%u", input->headers->len + 1));

  for (guint i = 0; i < input->headers->len; i++)
    {
      JsonNode *type = datatype;

      if (datatype != NULL && JSON_NODE_HOLDS_ARRAY (datatype))
        type = i < json_array_get_length (json_node_get_array (datatype))
               ? json_array_get_element (json_node_get_array (datatype), i) : NULL;
      g_ptr_array_add (input->datatypes,
                       g_strdup (type != NULL && JSON_NODE_HOLDS_VALUE (type) &&
                                 json_node_get_value_type (type) == G_TYPE_STRING
                                 ? json_node_get_string (type) : "str"));
    }
}

static GtkWidget *
build_dataframe_row (Input *input)
{
  GtkWidget *box;
  GtkWidget *header;
  GtkWidget *row = box_row_new (input, &box, &header);
  GtkWidget *add = icon_button_new ("list-add-symbolic", _("Add a row"));
  GtkWidget *remove = icon_button_new ("list-remove-symbolic", _("Remove the last row"));
  GtkWidget *scrolled = gtk_scrolled_window_new ();
  gint64 n_rows;

  dataframe_read_columns (input);
  g_signal_connect (add, "clicked", G_CALLBACK (dataframe_add_clicked_cb), input);
  g_signal_connect (remove, "clicked", G_CALLBACK (dataframe_remove_clicked_cb), input);
  gtk_box_append (GTK_BOX (header), add);
  gtk_box_append (GTK_BOX (header), remove);

  input->list = gtk_grid_new ();
  gtk_grid_set_row_spacing (GTK_GRID (input->list), 4);
  gtk_grid_set_column_spacing (GTK_GRID (input->list), 4);
  riv_a11y_set_name (input->list, _riv_form_component_title (input->component));
  for (guint col = 0; col < input->headers->len; col++)
    {
      GtkWidget *label = gtk_label_new (g_ptr_array_index (input->headers, col));

      /* Numbers are right-aligned, their header too. */
      gtk_label_set_xalign (GTK_LABEL (label),
                            g_strcmp0 (g_ptr_array_index (input->datatypes, col), "number") == 0);
      gtk_label_set_ellipsize (GTK_LABEL (label), PANGO_ELLIPSIZE_END);
      gtk_widget_add_css_class (label, "heading");
      gtk_grid_attach (GTK_GRID (input->list), label, (int) col, 0, 1, 1);
    }

  gtk_scrolled_window_set_child (GTK_SCROLLED_WINDOW (scrolled), input->list);
  gtk_scrolled_window_set_policy (GTK_SCROLLED_WINDOW (scrolled),
                                  GTK_POLICY_AUTOMATIC, GTK_POLICY_NEVER);
  gtk_scrolled_window_set_propagate_natural_height (GTK_SCROLLED_WINDOW (scrolled), TRUE);
  gtk_box_append (GTK_BOX (box), scrolled);
  box_row_add_error_label (input, box);

  input->kind = RIV_FORM_INPUT_DATAFRAME;
  input->widget = input->list;
  if (!dataframe_fill (input, input->component->value) ||
      dataframe_n_rows (input) == 0)
    {
      n_rows = CLAMP (dataframe_count (input->component->props, "row_count", NULL), 1, 20);
      for (gint64 i = dataframe_n_rows (input); i < n_rows; i++)
        dataframe_add_row (input, NULL);
    }
  return row;
}

/* What Gradio's frontend sends: headers, rows of cells typed by column, and
 * no metadata (that is the server's styling). */
static JsonNode *
dataframe_dup_value (Input *input)
{
  g_autoptr(JsonObject) object = json_object_new ();
  g_autoptr(JsonArray) headers = json_array_new ();
  g_autoptr(JsonArray) data = json_array_new ();
  guint n_rows = dataframe_n_rows (input);

  for (guint col = 0; col < input->headers->len; col++)
    json_array_add_string_element (headers, g_ptr_array_index (input->headers, col));

  for (guint row = 1; row <= n_rows; row++)
    {
      JsonArray *cells = json_array_new ();

      for (guint col = 0; col < input->headers->len; col++)
        {
          GtkWidget *entry = gtk_grid_get_child_at (GTK_GRID (input->list), (int) col, (int) row);
          const char *text = entry != NULL ? gtk_editable_get_text (GTK_EDITABLE (entry)) : "";
          const char *type = g_ptr_array_index (input->datatypes, col);
          double number;

          if (g_str_equal (type, "number") && *text == '\0')
            json_array_add_null_element (cells);
          else if (g_str_equal (type, "number") && parse_cell_number (text, &number))
            {
              if (is_integral (number) && fabs (number) < 1e15)
                json_array_add_int_element (cells, (gint64) number);
              else
                json_array_add_double_element (cells, number);
            }
          else if (g_str_equal (type, "bool") &&
                   (g_str_equal (text, "true") || g_str_equal (text, "false")))
            json_array_add_boolean_element (cells, g_str_equal (text, "true"));
          else
            json_array_add_string_element (cells, text);
        }
      json_array_add_array_element (data, cells);
    }

  json_object_set_array_member (object, "headers", g_steal_pointer (&headers));
  json_object_set_array_member (object, "data", g_steal_pointer (&data));
  json_object_set_null_member (object, "metadata");
  return json_node_init_object (json_node_alloc (), object);
}

/* Any component without an editor of its own: its value as JSON, its
 * default prefilled, marked in red while it does not parse. */
static GtkWidget *
build_json_row (Input *input)
{
  RivComponent *component = input->component;
  g_autofree char *text = component->value != NULL ? riv_json_to_string (component->value, NULL)
                                                   : g_strdup ("null");
  GtkWidget *row = checked_entry_row_new (input, text,
                                          component->type != NULL ? component->type : "?");

  gtk_widget_add_css_class (row, "monospace");
  input->kind = RIV_FORM_INPUT_JSON;
  return row;
}

GtkWidget *
_riv_form_build_row (RivForm *self,
                     Input   *input)
{
  const char *type = input->component->type != NULL ? input->component->type : "";

  if (input->component->is_state)
    {
      input->kind = RIV_FORM_INPUT_STATE;
      return NULL;
    }
  if (g_str_equal (type, "textbox") || g_str_equal (type, "text") ||
      g_str_equal (type, "textarea"))
    return build_text_row (self, input);
  if (g_str_equal (type, "number"))
    return build_number_row (input);
  if (g_str_equal (type, "slider"))
    return build_slider_row (input);
  if (g_str_equal (type, "checkbox"))
    return build_checkbox_row (input);
  if (g_str_equal (type, "dropdown"))
    return build_dropdown_row (input);
  if (g_str_equal (type, "radio"))
    return build_radio_row (input);
  if (g_str_equal (type, "image"))
    return build_image_row (input);
  if (g_str_equal (type, "file") &&
      g_strcmp0 (riv_json_get_string (input->component->props, "file_count"), "single") != 0 &&
      riv_json_get_string (input->component->props, "file_count") != NULL)
    return build_files_row (input);
  if (g_str_equal (type, "multimodaltextbox"))
    return build_multimodal_row (input);
  if (g_str_equal (type, "chatbot"))
    return build_chatbot_row (input);
  if (g_str_equal (type, "checkboxgroup"))
    return build_checkbox_group_row (input);
  if (g_str_equal (type, "colorpicker"))
    return build_color_row (input);
  if (g_str_equal (type, "datetime"))
    return build_datetime_row (input);
  if (g_str_equal (type, "dataframe"))
    return build_dataframe_row (input);
  if (g_str_equal (type, "code"))
    return build_code_row (input);
  if (g_str_equal (type, "file") || g_str_equal (type, "audio") || g_str_equal (type, "video"))
    {
      /* One file, uploaded through /upload like an image. */
      input->any_file = TRUE;
      return build_image_row (input);
    }
  return build_json_row (input);
}

/* Reading values */

static JsonNode *
number_node (double   value,
             gboolean integer)
{
  if (integer)
    return json_node_init_int (json_node_alloc (), (gint64) llround (value));
  return json_node_init_double (json_node_alloc (), value);
}

JsonNode *
_riv_form_input_dup_value (Input *input)
{
  switch (input->kind)
    {
    case RIV_FORM_INPUT_TEXT:
      return json_node_init_string (json_node_alloc (),
                                    gtk_editable_get_text (GTK_EDITABLE (input->widget)));

    case RIV_FORM_INPUT_TEXT_MULTI:
    case RIV_FORM_INPUT_CODE:
      {
        g_autofree char *text = text_view_dup_text (input->widget);

        return json_node_init_string (json_node_alloc (), text);
      }

    case RIV_FORM_INPUT_NUMBER:
      return number_node (gtk_spin_button_get_value (GTK_SPIN_BUTTON (input->widget)),
                          input->integer);

    case RIV_FORM_INPUT_SLIDER:
      return number_node (gtk_range_get_value (GTK_RANGE (input->widget)), input->integer);

    case RIV_FORM_INPUT_CHECKBOX:
      return json_node_init_boolean (json_node_alloc (),
                                     gtk_switch_get_active (GTK_SWITCH (input->widget)));

    case RIV_FORM_INPUT_DROPDOWN:
    case RIV_FORM_INPUT_RADIO:
      {
        guint selected = GTK_INVALID_LIST_POSITION;
        JsonNode *value;

        if (input->kind == RIV_FORM_INPUT_DROPDOWN)
          selected = adw_combo_row_get_selected (ADW_COMBO_ROW (input->widget));
        else
          {
            guint i = 0;

            for (GtkWidget *child = gtk_widget_get_first_child (input->widget);
                 child != NULL; child = gtk_widget_get_next_sibling (child), i++)
              if (gtk_check_button_get_active (GTK_CHECK_BUTTON (child)))
                selected = i;
          }

        if (selected == GTK_INVALID_LIST_POSITION || selected >= input->choice_values->len)
          return json_node_init_null (json_node_alloc ());

        value = json_node_copy (g_ptr_array_index (input->choice_values, selected));
        if (input->multiselect)
          {
            g_autoptr(JsonArray) array = json_array_new ();

            json_array_add_element (array, value);
            return json_node_init_array (json_node_alloc (), array);
          }
        return value;
      }

    case RIV_FORM_INPUT_DATETIME:
      return json_node_init_string (json_node_alloc (),
                                    gtk_editable_get_text (GTK_EDITABLE (input->widget)));

    case RIV_FORM_INPUT_COLOR:
      {
        GdkRGBA rgba;
        g_autofree char *hex = NULL;

        gtk_color_chooser_get_rgba (GTK_COLOR_CHOOSER (input->widget), &rgba);
        hex = rgba_to_hex (&rgba);
        return json_node_init_string (json_node_alloc (), hex);
      }

    case RIV_FORM_INPUT_CHECKBOX_GROUP:
      {
        g_autoptr(JsonArray) chosen = json_array_new ();

        for (guint i = 0; i < input->checks->len; i++)
          if (gtk_check_button_get_active (g_ptr_array_index (input->checks, i)))
            json_array_add_element (chosen,
                                    json_node_copy (g_ptr_array_index (input->choice_values, i)));
        return json_node_init_array (json_node_alloc (), chosen);
      }

    case RIV_FORM_INPUT_CHATBOT:
      return chat_dup_value (input);

    case RIV_FORM_INPUT_DATAFRAME:
      return dataframe_dup_value (input);

    case RIV_FORM_INPUT_FILES:
      {
        g_autoptr(JsonArray) files = files_dup_array (input);

        return json_node_init_array (json_node_alloc (), files);
      }

    case RIV_FORM_INPUT_MULTIMODAL:
      {
        g_autoptr(JsonObject) object = json_object_new ();

        json_object_set_string_member (object, "text",
                                       gtk_editable_get_text (GTK_EDITABLE (input->text)));
        json_object_set_array_member (object, "files", files_dup_array (input));
        return json_node_init_object (json_node_alloc (), object);
      }

    case RIV_FORM_INPUT_JSON:
      {
        JsonNode *node = riv_json_parse (NULL, gtk_editable_get_text (GTK_EDITABLE (input->widget)),
                                         -1, 64, NULL);

        /* What does not parse sends the default (the row is marked). */
        if (node != NULL)
          return node;
      }
      return input->component->value != NULL ? json_node_copy (input->component->value)
                                              : json_node_init_null (json_node_alloc ());

    case RIV_FORM_INPUT_IMAGE:
      if (input->image_path != NULL)
        return file_data_node (input->image_path,
                               input->image_name != NULL ? input->image_name : "image", -1, NULL);
      G_GNUC_FALLTHROUGH;

    case RIV_FORM_INPUT_UNSUPPORTED:
      if (input->override != NULL)
        return json_node_copy (input->override);
      if (input->component->value != NULL)
        return json_node_copy (input->component->value);
      return json_node_init_null (json_node_alloc ());

    case RIV_FORM_INPUT_STATE:
    default:
      return json_node_init_null (json_node_alloc ());
    }
}

gboolean
_riv_form_input_set_value (Input     *input,
                           guint      position,
                           JsonNode  *value,
                           GError   **error)
{
  gboolean holds_value = value != NULL && JSON_NODE_HOLDS_VALUE (value);
  GType type = holds_value ? json_node_get_value_type (value) : G_TYPE_INVALID;
  gboolean is_number = type == G_TYPE_INT64 || type == G_TYPE_DOUBLE;

  if (value == NULL || JSON_NODE_HOLDS_NULL (value))
    return TRUE;

  switch (input->kind)
    {
    case RIV_FORM_INPUT_TEXT:
    case RIV_FORM_INPUT_TEXT_MULTI:
    case RIV_FORM_INPUT_CODE:
    case RIV_FORM_INPUT_DATETIME:
      {
        g_autofree char *text = node_to_display (value);

        if (input->kind == RIV_FORM_INPUT_TEXT || input->kind == RIV_FORM_INPUT_DATETIME)
          gtk_editable_set_text (GTK_EDITABLE (input->widget), text);
        else
          gtk_text_buffer_set_text (gtk_text_view_get_buffer (GTK_TEXT_VIEW (input->widget)),
                                    text, -1);
        return TRUE;
      }

    case RIV_FORM_INPUT_NUMBER:
    case RIV_FORM_INPUT_SLIDER:
      if (!is_number)
        break;
      if (input->kind == RIV_FORM_INPUT_NUMBER)
        gtk_spin_button_set_value (GTK_SPIN_BUTTON (input->widget), json_node_get_double (value));
      else
        gtk_range_set_value (GTK_RANGE (input->widget), json_node_get_double (value));
      return TRUE;

    case RIV_FORM_INPUT_CHECKBOX:
      if (type != G_TYPE_BOOLEAN)
        break;
      gtk_switch_set_active (GTK_SWITCH (input->widget), json_node_get_boolean (value));
      return TRUE;

    case RIV_FORM_INPUT_DROPDOWN:
    case RIV_FORM_INPUT_RADIO:
      {
        JsonNode *wanted = value;

        if (JSON_NODE_HOLDS_ARRAY (value) && json_array_get_length (json_node_get_array (value)) > 0)
          wanted = json_array_get_element (json_node_get_array (value), 0);

        for (guint i = 0; i < input->choice_values->len; i++)
          {
            if (!nodes_equal (wanted, g_ptr_array_index (input->choice_values, i)))
              continue;

            if (input->kind == RIV_FORM_INPUT_DROPDOWN)
              adw_combo_row_set_selected (ADW_COMBO_ROW (input->widget), i);
            else
              {
                GtkWidget *child = gtk_widget_get_first_child (input->widget);

                for (guint j = 0; j < i && child != NULL; j++)
                  child = gtk_widget_get_next_sibling (child);
                if (child != NULL)
                  gtk_check_button_set_active (GTK_CHECK_BUTTON (child), TRUE);
              }
            return TRUE;
          }
        break;
      }

    case RIV_FORM_INPUT_IMAGE:
      if (type == G_TYPE_STRING && g_path_is_absolute (json_node_get_string (value)))
        {
          g_autoptr(GFile) file = g_file_new_for_path (json_node_get_string (value));

          _riv_form_image_use_file (input, file);
          return TRUE;
        }
      if (!JSON_NODE_HOLDS_OBJECT (value))
        break;
      G_GNUC_FALLTHROUGH;

    case RIV_FORM_INPUT_UNSUPPORTED:
      g_clear_pointer (&input->override, json_node_unref);
      input->override = json_node_copy (value);
      return TRUE;

    case RIV_FORM_INPUT_JSON:
      {
        g_autofree char *text = riv_json_to_string (value, NULL);

        gtk_editable_set_text (GTK_EDITABLE (input->widget), text);
        return TRUE;
      }

    case RIV_FORM_INPUT_COLOR:
      {
        GdkRGBA rgba;

        if (type != G_TYPE_STRING || !gdk_rgba_parse (&rgba, json_node_get_string (value)))
          break;
        rgba.alpha = 1;
        gtk_color_chooser_set_rgba (GTK_COLOR_CHOOSER (input->widget), &rgba);
        return TRUE;
      }

    case RIV_FORM_INPUT_CHECKBOX_GROUP:
      {
        JsonArray *chosen;

        if (!JSON_NODE_HOLDS_ARRAY (value))
          break;
        chosen = json_node_get_array (value);
        for (guint j = 0; j < json_array_get_length (chosen); j++)
          {
            gboolean known = FALSE;

            for (guint i = 0; i < input->choice_values->len && !known; i++)
              known = nodes_equal (json_array_get_element (chosen, j),
                                   g_ptr_array_index (input->choice_values, i));
            if (!known)
              goto mismatch;
          }
        for (guint i = 0; i < input->checks->len; i++)
          {
            gboolean active = FALSE;

            for (guint j = 0; j < json_array_get_length (chosen) && !active; j++)
              active = nodes_equal (json_array_get_element (chosen, j),
                                    g_ptr_array_index (input->choice_values, i));
            gtk_check_button_set_active (g_ptr_array_index (input->checks, i), active);
          }
        return TRUE;
      }

    case RIV_FORM_INPUT_CHATBOT:
      if (!chat_fill (input, value))
        break;
      return TRUE;

    case RIV_FORM_INPUT_DATAFRAME:
      if (!dataframe_fill (input, value))
        break;
      return TRUE;

    case RIV_FORM_INPUT_FILES:
      if (!files_fill (input, value))
        break;
      return TRUE;

    case RIV_FORM_INPUT_MULTIMODAL:
      {
        JsonObject *object = JSON_NODE_HOLDS_OBJECT (value) ? json_node_get_object (value) : NULL;
        JsonNode *files = object != NULL ? json_object_get_member (object, "files") : NULL;
        const char *text = object != NULL ? riv_json_get_string (object, "text") : NULL;

        if (object == NULL || (files != NULL && !JSON_NODE_HOLDS_NULL (files) &&
                               !files_fill (input, files)))
          break;
        gtk_editable_set_text (GTK_EDITABLE (input->text), text != NULL ? text : "");
        return TRUE;
      }

    case RIV_FORM_INPUT_STATE:
    default:
      return TRUE;
    }

mismatch:
  {
    g_autofree char *shown = riv_json_to_string (value, NULL);

    g_set_error (error, RIV_CLIENT_ERROR, RIV_CLIENT_ERROR_BAD_INPUT,
                 _("Value %u (%s) does not fit the input “%s”"),
                 position + 1, shown, _riv_form_component_title (input->component));
  }
  return FALSE;
}
