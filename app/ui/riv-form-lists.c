/* riv-form-lists.c
 * Copyright 2026 The Rivulet authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The form's editors for files and lists: image, audio, video and file
 * inputs with their uploads, a files list and the multimodal textbox's files,
 * a chatbot history and a dataframe grid (moved out of riv-form-editors.c).
 */
#include "config.h"

#include <glib/gi18n.h>
#include <math.h>
#include <string.h>

#include "riv-a11y.h"
#include "riv-fetch.h"
#include "riv-file-chooser.h"
#include "riv-form-private.h"
#include "riv-json.h"

/* Images and uploads */

static void
image_show_state (Input      *input,
                  const char *subtitle)
{
  adw_action_row_set_subtitle (ADW_ACTION_ROW (input->row), subtitle);
  gtk_widget_set_visible (input->spinner, input->upload_cancellable != NULL);
#if !ADW_CHECK_VERSION (1, 6, 0)
  gtk_spinner_set_spinning (GTK_SPINNER (input->spinner), input->upload_cancellable != NULL);
#endif
}

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

void
_riv_form_image_load_cb (GObject      *object,
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

/* Drops what an image or file input had: its upload, its file, its picture. */
static void
image_forget (Input *input)
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
}

/* A picture already on the server (an example's image): downloaded off the
 * main loop into a GtkPicture, which says in its tooltip why when it cannot. */
typedef struct
{
  GtkWidget *picture;   /* owned */
  char      *name;
} PictureFetch;

static void
picture_fetched_cb (GObject      *object,
                    GAsyncResult *result,
                    gpointer      user_data)
{
  PictureFetch *fetch = user_data;
  g_autoptr(GError) error = NULL;
  g_autoptr(GBytes) bytes = riv_fetch_bytes_finish (result, &error);
  g_autoptr(GdkTexture) texture = NULL;

  if (bytes != NULL)
    texture = gdk_texture_new_from_bytes (bytes, &error);
  if (texture != NULL)
    {
      gtk_picture_set_paintable (GTK_PICTURE (fetch->picture), GDK_PAINTABLE (texture));
      gtk_widget_set_visible (fetch->picture, TRUE);
    }
  else if (!g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
    {
      /* Translators: a file name, and why its picture is not shown */
      g_autofree char *why = g_strdup_printf (_("Could not show %s: %s"), fetch->name, error->message);

      gtk_widget_set_tooltip_text (fetch->picture, why);
    }
  g_object_unref (fetch->picture);
  g_free (fetch->name);
  g_free (fetch);
}

char *
_riv_form_file_name (JsonObject *file)
{
  const char *name = riv_json_get_string (file, "orig_name");
  const char *path = riv_json_get_string (file, "path");

  if (name != NULL && *name != '\0')
    return g_strdup (name);
  return path != NULL && *path != '\0' ? g_path_get_basename (path) : g_strdup (_("file"));
}

void
_riv_form_fetch_picture (RivForm    *self,
                         JsonObject *file,
                         GtkWidget  *picture)
{
  g_autofree char *url = riv_client_dup_file_url (self->client, file);
  PictureFetch *fetch;

  if (url == NULL)
    {
      gtk_widget_set_tooltip_text (picture, _("The server gave no address for this picture"));
      return;
    }
  fetch = g_new0 (PictureFetch, 1);
  fetch->picture = g_object_ref (picture);
  fetch->name = _riv_form_file_name (file);
  riv_fetch_bytes_async (self->client, url, self->cancellable, picture_fetched_cb, fetch);
}

/* An image or file input given a FileData the server has already (an
 * example's file, or one set with --data): sent as it is, nothing uploaded;
 * its row names it and shows its picture. */
void
_riv_form_image_use_given (Input    *input,
                           JsonNode *value)
{
  JsonObject *file = json_node_get_object (value);
  g_autofree char *name = _riv_form_file_name (file);
  g_autofree char *subtitle = NULL;
  g_autofree char *url = NULL;

  image_forget (input);
  input->override = json_node_copy (value);

  url = riv_client_dup_file_url (NULL, file);
  subtitle = url != NULL
    /* Translators: shown under an image or file input given a file the server has (an example's) */
    ? g_strdup_printf (_("%s — on the server"), name)
    /* Translators: shown under an image or file input given a FileData with --data */
    : g_strdup_printf (_("%s — sent as given"), name);
  image_show_state (input, subtitle);
  if (!input->any_file)
    _riv_form_fetch_picture (input->form, file, input->thumbnail);
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

  g_file_load_bytes_async (file, input->upload_cancellable, _riv_form_image_load_cb, data);
}

static void
image_clear (Input *input)
{
  image_forget (input);
  image_show_state (input, upload_text (input, _("No image — choose a file or drop one here"),
                                        _("No file — choose one or drop it here")));
}

static void
image_chosen_cb (GFile         *file,
                 GtkFileFilter *filter,
                 gpointer       user_data)
{
  _riv_form_image_use_file (user_data, file);
}

static void
image_choose_clicked_cb (GtkButton *button,
                         gpointer   user_data)
{
  Input *input = user_data;
  const RivFileChooserSpec spec = {
    upload_text (input, _("Choose an Image"), _("Choose a File")), _("_Choose"),
    RIV_FILE_CHOOSER_OPEN, NULL
  };
  g_autoptr(GtkFileFilter) filter = NULL;
  GtkFileFilter *filters[] = { NULL, NULL };

  if (g_strcmp0 (input->component->type, "image") == 0)
    {
      filter = gtk_file_filter_new ();
      gtk_file_filter_set_name (filter, _("Images"));
      gtk_file_filter_add_pixbuf_formats (filter);
    }
  else if (g_strcmp0 (input->component->type, "audio") == 0 ||
           g_strcmp0 (input->component->type, "video") == 0)
    {
      g_autofree char *mime = g_strconcat (input->component->type, "/*", NULL);

      filter = riv_file_filter_new (g_strcmp0 (input->component->type, "audio") == 0
                                      ? _("Audio") : _("Videos"), NULL, mime);
    }
  filters[0] = filter;
  riv_file_chooser_show (GTK_WIDGET (button), &spec, filters, image_chosen_cb, input, NULL);
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

GtkWidget *
_riv_form_build_image_row (Input *input)
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

  /* AdwSpinner (libadwaita 1.6) spins while shown; GtkSpinner when told to. */
#if ADW_CHECK_VERSION (1, 6, 0)
  input->spinner = adw_spinner_new ();
#else
  input->spinner = gtk_spinner_new ();
#endif
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
  _riv_form_list_update_placeholder (input);
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
  GtkWidget *remove = _riv_form_icon_button_new ("list-remove-symbolic", _("Remove the message"));

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
  _riv_form_list_update_placeholder (input);
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
gboolean
_riv_form_chat_fill (Input    *input,
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
  _riv_form_list_update_placeholder (input);
  return TRUE;
}

JsonNode *
_riv_form_chat_dup_value (Input *input)
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

GtkWidget *
_riv_form_build_chatbot_row (Input *input)
{
  const char *format = riv_json_get_string (input->component->props, "type");
  const char *version = riv_config_get_version (input->form->config);
  GtkWidget *box;
  GtkWidget *header;
  GtkWidget *row = _riv_form_box_row_new (input, &box, &header);
  GtkWidget *add = _riv_form_icon_button_new ("list-add-symbolic", _("Add a message"));

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
  _riv_form_list_add_placeholder (input, box, _("No messages: an empty history is sent."));
  _riv_form_chat_fill (input, input->component->value);
  _riv_form_list_update_placeholder (input);

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
  _riv_form_list_update_placeholder (input);
}

/* A line for a file in the list; name is taken. */
static FileItem *
file_item_new (Input *input,
               char  *name)
{
  FileItem *item = g_new0 (FileItem, 1);
  GtkWidget *icon = gtk_image_new_from_icon_name ("text-x-generic-symbolic");
  GtkWidget *label;
  GtkWidget *remove = _riv_form_icon_button_new ("list-remove-symbolic", _("Remove the file"));

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
  _riv_form_list_update_placeholder (input);
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
  g_file_load_bytes_async (file, item->cancellable, _riv_form_image_load_cb, data);
}

/* Replaces the files with a list given with --data: FileData objects are
 * sent as they are, absolute paths are read and uploaded. FALSE when the
 * list holds anything else (nothing is changed then). */
gboolean
_riv_form_files_fill (Input    *input,
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
  _riv_form_list_update_placeholder (input);
  return TRUE;
}

static void
files_chosen_cb (GFile         *file,
                 GtkFileFilter *filter,
                 gpointer       user_data)
{
  _riv_form_add_file (user_data, file);
}

static void
files_add_clicked_cb (GtkButton *button,
                      gpointer   user_data)
{
  const RivFileChooserSpec spec = { _("Add Files"), _("_Add"), RIV_FILE_CHOOSER_OPEN_MULTIPLE, NULL };

  riv_file_chooser_show (GTK_WIDGET (button), &spec, NULL, files_chosen_cb, user_data, NULL);
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
  GtkWidget *add = _riv_form_icon_button_new ("list-add-symbolic", _("Add files"));
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
JsonNode *
_riv_form_file_data_node (const char *path,
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
JsonArray *
_riv_form_files_dup_array (Input *input)
{
  JsonArray *array = json_array_new ();

  for (guint i = 0; i < input->files->len; i++)
    {
      FileItem *item = g_ptr_array_index (input->files, i);

      if (item->given != NULL)
        json_array_add_element (array, json_node_copy (item->given));
      else if (item->path != NULL)
        json_array_add_element (array, _riv_form_file_data_node (item->path, item->name, item->size,
                                                       item->mime_type));
    }
  return array;
}

GtkWidget *
_riv_form_build_files_row (Input *input)
{
  GtkWidget *box;
  GtkWidget *header;
  GtkWidget *row = _riv_form_box_row_new (input, &box, &header);

  file_list_add (input, box, header);
  _riv_form_list_add_placeholder (input, box, _("No files — add them or drop them here"));
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

GtkWidget *
_riv_form_build_multimodal_row (Input *input)
{
  JsonNode *value = input->component->value;
  const char *text = NULL;
  const char *placeholder = riv_json_get_string (input->component->props, "placeholder");
  GtkWidget *box;
  GtkWidget *header;
  GtkWidget *row = _riv_form_box_row_new (input, &box, &header);

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
      g_autofree char *text = _riv_form_node_to_display (cell);
      const char *header = g_ptr_array_index (input->headers, col);
      /* Translators: a dataframe cell's accessible name: its row number and column */
      g_autofree char *name = g_strdup_printf (_("Row %d, %s"), row, header);

      gtk_editable_set_text (GTK_EDITABLE (entry), text);
      gtk_editable_set_width_chars (GTK_EDITABLE (entry), 8);
      gtk_widget_set_hexpand (entry, TRUE);
      if (g_strcmp0 (g_ptr_array_index (input->datatypes, col), "number") == 0)
        gtk_entry_set_alignment (GTK_ENTRY (entry), 1);
      riv_a11y_set_name (entry, name);
      g_signal_connect_swapped (entry, "changed", G_CALLBACK (_riv_form_input_changed_cb), input);
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
      _riv_form_input_show_check (input);
    }
}

/* Replaces the rows with a value's "data"; FALSE when it has none. */
gboolean
_riv_form_dataframe_fill (Input    *input,
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
  _riv_form_input_show_check (input);
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
        g_ptr_array_add (input->headers, _riv_form_node_to_display (json_array_get_element (array, i)));
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

GtkWidget *
_riv_form_build_dataframe_row (Input *input)
{
  GtkWidget *box;
  GtkWidget *header;
  GtkWidget *row = _riv_form_box_row_new (input, &box, &header);
  GtkWidget *add = _riv_form_icon_button_new ("list-add-symbolic", _("Add a row"));
  GtkWidget *remove = _riv_form_icon_button_new ("list-remove-symbolic", _("Remove the last row"));
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
  _riv_form_box_row_add_error_label (input, box);

  input->kind = RIV_FORM_INPUT_DATAFRAME;
  input->widget = input->list;
  if (!_riv_form_dataframe_fill (input, input->component->value) ||
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
JsonNode *
_riv_form_dataframe_dup_value (Input *input)
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
          else if (g_str_equal (type, "number") && _riv_form_parse_cell_number (text, &number))
            {
              if (_riv_form_is_integral (number) && fabs (number) < 1e15)
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

