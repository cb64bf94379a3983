/* riv-form-editors.c
 * Copyright 2026 The Rivulet authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The form's editors: one row per input component, reading and setting its value.
 */
#include "config.h"

#include <glib/gi18n.h>
#include <math.h>

#include "riv-a11y.h"
#include "riv-form-private.h"
#include "riv-util.h"

static const char *
component_title (RivComponent *component)
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

typedef struct
{
  RivForm *form;          /* owned */
  Input   *input;         /* valid while the form holds the same input and cancellable */
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

  g_clear_object (&data->input->upload_cancellable);
  message = g_strdup_printf (_("Could not upload %s: %s"), data->name, error->message);
  image_show_state (data->input, message);
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

  _riv_form_set_busy_delta (data->form, -1);

  if (path == NULL)
    {
      image_upload_failed (data, error);
      return;
    }

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
      _riv_form_set_busy_delta (data->form, -1);
      image_upload_failed (data, error);
      return;
    }

  texture = data->input->any_file ? NULL : gdk_texture_new_from_bytes (bytes, NULL);
  gtk_picture_set_paintable (GTK_PICTURE (data->input->thumbnail), GDK_PAINTABLE (texture));
  gtk_widget_set_visible (data->input->thumbnail, texture != NULL);

  if (data->form->client == NULL)
    {
      g_autoptr(GError) not_connected =
        g_error_new_literal (G_IO_ERROR, G_IO_ERROR_NOT_CONNECTED, _("not connected to a server"));

      _riv_form_set_busy_delta (data->form, -1);
      image_upload_failed (data, not_connected);
      return;
    }

  riv_client_upload_async (data->form->client, bytes, data->name,
                           data->input->upload_cancellable,
                           image_upload_cb, g_steal_pointer (&data));
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

  adw_preferences_row_set_title (ADW_PREFERENCES_ROW (row), component_title (input->component));
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

static GtkWidget *
build_text_row (RivForm *self,
                Input   *input)
{
  RivComponent *component = input->component;
  g_autofree char *text = node_to_display (component->value);
  const char *placeholder = riv_json_get_string (component->props, "placeholder");

  if (component->lines > 1)
    {
      GtkWidget *row = adw_preferences_row_new ();
      GtkWidget *box = gtk_box_new (GTK_ORIENTATION_VERTICAL, 6);
      GtkWidget *label = gtk_label_new (component_title (component));
      GtkWidget *scrolled = gtk_scrolled_window_new ();
      GtkWidget *view = gtk_text_view_new ();

      input->kind = RIV_FORM_INPUT_TEXT_MULTI;
      adw_preferences_row_set_title (ADW_PREFERENCES_ROW (row), component_title (component));
      gtk_list_box_row_set_activatable (GTK_LIST_BOX_ROW (row), FALSE);
      gtk_widget_set_margin_top (box, 8);
      gtk_widget_set_margin_bottom (box, 10);
      gtk_widget_set_margin_start (box, 12);
      gtk_widget_set_margin_end (box, 12);

      gtk_label_set_xalign (GTK_LABEL (label), 0);
      gtk_widget_add_css_class (label, "caption");
      gtk_widget_add_css_class (label, "dim-label");
      gtk_box_append (GTK_BOX (box), label);

      gtk_text_view_set_wrap_mode (GTK_TEXT_VIEW (view), GTK_WRAP_WORD_CHAR);
      gtk_text_view_set_accepts_tab (GTK_TEXT_VIEW (view), FALSE);
      gtk_text_view_set_top_margin (GTK_TEXT_VIEW (view), 6);
      gtk_text_view_set_bottom_margin (GTK_TEXT_VIEW (view), 6);
      gtk_text_view_set_left_margin (GTK_TEXT_VIEW (view), 6);
      gtk_text_view_set_right_margin (GTK_TEXT_VIEW (view), 6);
      gtk_text_buffer_set_text (gtk_text_view_get_buffer (GTK_TEXT_VIEW (view)), text, -1);
      gtk_label_set_mnemonic_widget (GTK_LABEL (label), view);
      riv_a11y_set_name (view, component_title (component));

      gtk_scrolled_window_set_child (GTK_SCROLLED_WINDOW (scrolled), view);
      gtk_scrolled_window_set_policy (GTK_SCROLLED_WINDOW (scrolled),
                                      GTK_POLICY_NEVER, GTK_POLICY_AUTOMATIC);
      gtk_scrolled_window_set_min_content_height (GTK_SCROLLED_WINDOW (scrolled),
                                                  MIN (component->lines, 8) * 22);
      gtk_widget_add_css_class (scrolled, "riv-text-input");
      gtk_box_append (GTK_BOX (box), scrolled);

      gtk_list_box_row_set_child (GTK_LIST_BOX_ROW (row), box);
      input->row = row;
      input->widget = view;
      return row;
    }
  else
    {
      GtkWidget *row = adw_entry_row_new ();

      input->kind = RIV_FORM_INPUT_TEXT;
      adw_preferences_row_set_title (ADW_PREFERENCES_ROW (row), component_title (component));
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

  adw_preferences_row_set_title (ADW_PREFERENCES_ROW (row), component_title (component));
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
  riv_a11y_set_name (spin, component_title (component));

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

  adw_preferences_row_set_title (ADW_PREFERENCES_ROW (row), component_title (component));
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
  riv_a11y_set_name (scale, component_title (component));

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

  adw_preferences_row_set_title (ADW_PREFERENCES_ROW (row), component_title (component));
  adw_preferences_row_set_use_underline (ADW_PREFERENCES_ROW (row), FALSE);
  gtk_switch_set_active (GTK_SWITCH (toggle), value);
  gtk_widget_set_valign (toggle, GTK_ALIGN_CENTER);
  adw_action_row_add_suffix (ADW_ACTION_ROW (row), toggle);
  adw_action_row_set_activatable_widget (ADW_ACTION_ROW (row), toggle);
  riv_a11y_set_name (toggle, component_title (component));

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
  adw_preferences_row_set_title (ADW_PREFERENCES_ROW (row), component_title (component));
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
  adw_preferences_row_set_title (ADW_PREFERENCES_ROW (row), component_title (component));
  adw_preferences_row_set_use_underline (ADW_PREFERENCES_ROW (row), FALSE);

  box = gtk_box_new (GTK_ORIENTATION_HORIZONTAL, 6);
  gtk_widget_set_valign (box, GTK_ALIGN_CENTER);
  riv_a11y_set_name (box, component_title (component));
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

static void
json_entry_changed_cb (GtkEditable *editable,
                       gpointer     user_data)
{
  g_autoptr(JsonNode) node = riv_json_parse (NULL, gtk_editable_get_text (editable), -1, 64, NULL);

  if (node != NULL)
    gtk_widget_remove_css_class (GTK_WIDGET (editable), "error");
  else
    gtk_widget_add_css_class (GTK_WIDGET (editable), "error");
}

/* Any component without an editor of its own (chatbot history, files,
 * audio, JSON, dataframe, …): its value as JSON, its default prefilled,
 * marked in red while it does not parse. */
static GtkWidget *
build_json_row (Input *input)
{
  RivComponent *component = input->component;
  GtkWidget *row = adw_entry_row_new ();
  GtkWidget *type = gtk_label_new (component->type != NULL ? component->type : "?");
  g_autofree char *text = component->value != NULL ? riv_json_to_string (component->value, NULL)
                                                   : g_strdup ("null");

  adw_preferences_row_set_title (ADW_PREFERENCES_ROW (row), component_title (component));
  adw_preferences_row_set_use_underline (ADW_PREFERENCES_ROW (row), FALSE);
  gtk_editable_set_text (GTK_EDITABLE (row), text);
  gtk_widget_add_css_class (type, "riv-badge");
  gtk_widget_set_valign (type, GTK_ALIGN_CENTER);
  adw_entry_row_add_suffix (ADW_ENTRY_ROW (row), type);
  gtk_widget_add_css_class (row, "monospace");
  g_signal_connect (row, "changed", G_CALLBACK (json_entry_changed_cb), NULL);

  input->kind = RIV_FORM_INPUT_JSON;
  input->row = row;
  input->widget = row;
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
      {
        GtkTextBuffer *buffer = gtk_text_view_get_buffer (GTK_TEXT_VIEW (input->widget));
        GtkTextIter start, end;
        g_autofree char *text = NULL;

        gtk_text_buffer_get_bounds (buffer, &start, &end);
        text = gtk_text_buffer_get_text (buffer, &start, &end, FALSE);
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
        {
          g_autoptr(JsonObject) file = json_object_new ();
          g_autoptr(JsonObject) meta = json_object_new ();

          json_object_set_string_member (file, "path", input->image_path);
          json_object_set_string_member (file, "orig_name",
                                         input->image_name != NULL ? input->image_name : "image");
          json_object_set_string_member (meta, "_type", "gradio.FileData");
          json_object_set_object_member (file, "meta", g_steal_pointer (&meta));
          return json_node_init_object (json_node_alloc (), file);
        }
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
      {
        g_autofree char *text = node_to_display (value);

        if (input->kind == RIV_FORM_INPUT_TEXT)
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

    case RIV_FORM_INPUT_STATE:
    default:
      return TRUE;
    }

  {
    g_autofree char *shown = riv_json_to_string (value, NULL);

    g_set_error (error, RIV_CLIENT_ERROR, RIV_CLIENT_ERROR_BAD_INPUT,
                 _("Value %u (%s) does not fit the input “%s”"),
                 position + 1, shown, component_title (input->component));
  }
  return FALSE;
}
