/* riv-output-card.c
 * Copyright 2026 The Rivulet authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "config.h"

#include <glib/gi18n.h>
#include <math.h>
#include <string.h>

#include "riv-fetch.h"
#include "riv-file-chooser.h"
#include "riv-job.h"
#include "riv-json.h"
#include "riv-markup.h"
#include "riv-output-card.h"
#include "riv-plot.h"

#define MAX_TABLE_ROWS 200
#define MAX_TEXT_CHARS 100000

typedef enum
{
  CARD_TEXT,        /* textbox, number, datetime, code, highlightedtext, … */
  CARD_CHAT,
  CARD_GALLERY,
  CARD_IMAGE,
  CARD_LABEL,
  CARD_JSON,
  CARD_MARKDOWN,
  CARD_HTML,
  CARD_TABLE,
  CARD_FILE,
  CARD_MEDIA,
  CARD_PLOT,
  CARD_OTHER,
} CardKind;

struct _RivOutputCard
{
  AdwBin          parent_instance;

  CardKind        kind;
  char           *type;
  GtkWidget      *content;        /* kind-specific container */
  GtkLabel       *text_label;     /* text, JSON, markdown, label headline */
  GtkLabel       *error_label;
  GtkWidget      *media_widget;   /* GtkVideo or GtkMediaControls */
  GtkLabel       *title_label;
  GtkLabel       *note_label;     /* hidden, or not updated, by a gr.update */
  GtkWidget      *body;
  RivClient      *client;         /* nullable: whose credentials fetch the files */
  gboolean        hidden;         /* by an update's visible=False */
  gboolean        chat_reply;     /* a ChatInterface's response: shown as a chat bubble */

  /* Owned references */
  char           *label;          /* the config's label (or the type) */
  JsonObject     *props;          /* the config's props */
  JsonNode       *shown;          /* copy of the value last given, nullable */
  JsonNode       *displayed;      /* copy of the value shown once updates are applied */
  RivJob         *job;            /* nullable */
  GCancellable   *cancellable;    /* downloads of the value shown */
  GPtrArray      *items;          /* GtkWidget*: bubbles' labels, gallery pictures, bars */
  GPtrArray      *item_texts;     /* char*: chat contents / gallery URLs */
  GPtrArray      *textures;       /* GdkTexture* or NULL, per gallery item (or the image) */
  GtkMediaStream *media;
  GString        *plain;          /* the text shown, for search and tests */
  char           *error;
  guint           n_pending;
};

G_DEFINE_FINAL_TYPE (RivOutputCard, riv_output_card, ADW_TYPE_BIN)

static void
unref_nullable (gpointer object)
{
  if (object != NULL)
    g_object_unref (object);
}

static CardKind
kind_for_type (const char *type)
{
  static const struct { const char *type; CardKind kind; } kinds[] = {
    { "textbox", CARD_TEXT }, { "text", CARD_TEXT }, { "number", CARD_TEXT },
    { "datetime", CARD_TEXT }, { "code", CARD_TEXT }, { "highlightedtext", CARD_TEXT },
    { "slider", CARD_TEXT }, { "dropdown", CARD_TEXT }, { "radio", CARD_TEXT },
    { "checkbox", CARD_TEXT }, { "colorpicker", CARD_TEXT },
    { "chatbot", CARD_CHAT }, { "gallery", CARD_GALLERY }, { "image", CARD_IMAGE },
    { "label", CARD_LABEL }, { "json", CARD_JSON }, { "markdown", CARD_MARKDOWN },
    { "html", CARD_HTML }, { "dataframe", CARD_TABLE }, { "file", CARD_FILE },
    { "files", CARD_FILE }, { "uploadbutton", CARD_FILE }, { "downloadbutton", CARD_FILE },
    { "audio", CARD_MEDIA }, { "video", CARD_MEDIA }, { "plot", CARD_PLOT },
  };

  for (guint i = 0; i < G_N_ELEMENTS (kinds); i++)
    if (g_strcmp0 (type, kinds[i].type) == 0)
      return kinds[i].kind;
  return CARD_OTHER;
}

static GtkLabel *
new_text_label (gboolean monospace)
{
  GtkWidget *label = gtk_label_new (NULL);

  gtk_label_set_wrap (GTK_LABEL (label), TRUE);
  gtk_label_set_wrap_mode (GTK_LABEL (label), PANGO_WRAP_WORD_CHAR);
  gtk_label_set_selectable (GTK_LABEL (label), TRUE);
  gtk_label_set_xalign (GTK_LABEL (label), 0);
  gtk_label_set_yalign (GTK_LABEL (label), 0);
  if (monospace)
    gtk_widget_add_css_class (label, "monospace");
  return GTK_LABEL (label);
}

/* Markup when it parses, plain text otherwise: a card never shows nothing
 * because of one odd tag. */
static void
label_set_markup_safe (GtkLabel   *label,
                       const char *markup,
                       const char *fallback)
{
  if (pango_parse_markup (markup, -1, 0, NULL, NULL, NULL, NULL))
    gtk_label_set_markup (label, markup);
  else
    gtk_label_set_text (label, fallback);
}

static char *
value_to_text (JsonNode *value)
{
  if (value == NULL || JSON_NODE_HOLDS_NULL (value))
    return g_strdup ("");
  if (JSON_NODE_HOLDS_VALUE (value) && json_node_get_value_type (value) == G_TYPE_STRING)
    return g_strdup (json_node_get_string (value));
  if (JSON_NODE_HOLDS_VALUE (value) && json_node_get_value_type (value) == G_TYPE_BOOLEAN)
    return g_strdup (json_node_get_boolean (value) ? _("True") : _("False"));
  return riv_json_to_string (value, NULL);
}

/* Doubles as people write them (6650.5, -2.28), not json-glib's 17 digits. */
static void
append_double (GString *out,
               double   value)
{
  char buffer[G_ASCII_DTOSTR_BUF_SIZE];

  for (int digits = 15; digits <= 17; digits++)
    {
      char format[8];

      g_snprintf (format, sizeof format, "%%.%dg", digits);
      g_ascii_formatd (buffer, sizeof buffer, format, value);
      if (g_ascii_strtod (buffer, NULL) == value)
        break;
    }
  g_string_append (out, buffer);
  if (strpbrk (buffer, ".eEn") == NULL)
    g_string_append (out, ".0");
}

static void
append_pretty (GString  *out,
               JsonNode *node,
               guint     depth)
{
  if (out->len > MAX_TEXT_CHARS)
    return;
  switch (json_node_get_node_type (node))
    {
    case JSON_NODE_OBJECT:
      {
        JsonObject *object = json_node_get_object (node);
        g_autoptr(GList) members = json_object_get_members (object);

        if (members == NULL)
          {
            g_string_append (out, "{}");
            break;
          }
        g_string_append (out, "{\n");
        for (GList *l = members; l != NULL; l = l->next)
          {
            g_autoptr(JsonNode) name = json_node_init_string (json_node_alloc (), l->data);
            g_autofree char *key = riv_json_to_string (name, NULL);

            g_string_append_printf (out, "%*s%s: ", (int) (depth + 1) * 2, "", key);
            append_pretty (out, json_object_get_member (object, l->data), depth + 1);
            g_string_append (out, l->next != NULL ? ",\n" : "\n");
          }
        g_string_append_printf (out, "%*s}", (int) depth * 2, "");
      }
      break;
    case JSON_NODE_ARRAY:
      {
        JsonArray *array = json_node_get_array (node);
        guint n = json_array_get_length (array);

        if (n == 0)
          {
            g_string_append (out, "[]");
            break;
          }
        g_string_append (out, "[\n");
        for (guint i = 0; i < n; i++)
          {
            g_string_append_printf (out, "%*s", (int) (depth + 1) * 2, "");
            append_pretty (out, json_array_get_element (array, i), depth + 1);
            g_string_append (out, i + 1 < n ? ",\n" : "\n");
          }
        g_string_append_printf (out, "%*s]", (int) depth * 2, "");
      }
      break;
    case JSON_NODE_VALUE:
      if (json_node_get_value_type (node) == G_TYPE_DOUBLE)
        {
          append_double (out, json_node_get_double (node));
          break;
        }
      G_GNUC_FALLTHROUGH;
    case JSON_NODE_NULL:
    default:
      {
        g_autofree char *text = riv_json_to_string (node, NULL);

        g_string_append (out, text);
      }
      break;
    }
}

static char *
value_to_pretty_json (JsonNode *value)
{
  GString *out = g_string_new (NULL);

  if (value == NULL)
    g_string_append (out, "null");
  else
    append_pretty (out, value, 0);
  if (out->len > MAX_TEXT_CHARS)
    g_string_append (out, "\n…");
  return g_string_free (out, FALSE);
}

static const char *
object_string (JsonObject *object,
               const char *member)
{
  JsonNode *node = object != NULL ? json_object_get_member (object, member) : NULL;

  if (node != NULL && JSON_NODE_HOLDS_VALUE (node) &&
      json_node_get_value_type (node) == G_TYPE_STRING)
    return json_node_get_string (node);
  return NULL;
}

static JsonObject *
node_object (JsonNode *node)
{
  return node != NULL && JSON_NODE_HOLDS_OBJECT (node) ? json_node_get_object (node) : NULL;
}

/* A FileData's name: orig_name, else the last part of its path or URL. */
static char *
file_data_name (JsonObject *file)
{
  const char *name = object_string (file, "orig_name");
  const char *path = object_string (file, "path");

  if (name == NULL && path == NULL)
    path = object_string (file, "url");
  if (name != NULL)
    return g_strdup (name);
  return path != NULL ? g_path_get_basename (path) : g_strdup (_("file"));
}

static void
riv_output_card_set_error (RivOutputCard *self,
                           const char    *error)
{
  if (g_strcmp0 (error, self->error) == 0)
    return;
  g_free (self->error);
  self->error = g_strdup (error);
  gtk_label_set_text (self->error_label, error != NULL ? error : "");
  gtk_widget_set_visible (GTK_WIDGET (self->error_label), error != NULL);
  if (error != NULL && self->job != NULL)
    riv_job_add_timeline (self->job, "%s", error);
}

static void
riv_output_card_clear_items (RivOutputCard *self)
{
  g_cancellable_cancel (self->cancellable);
  g_clear_object (&self->cancellable);
  self->cancellable = g_cancellable_new ();
  self->n_pending = 0;

  for (guint i = 0; i < self->items->len; i++)
    {
      GtkWidget *item = g_ptr_array_index (self->items, i);
      GtkWidget *top = item;

      /* Remove the item's outermost widget inside the content container. */
      while (gtk_widget_get_parent (top) != NULL && gtk_widget_get_parent (top) != self->content)
        top = gtk_widget_get_parent (top);
      if (GTK_IS_FLOW_BOX (self->content) && GTK_IS_FLOW_BOX_CHILD (top))
        gtk_flow_box_remove (GTK_FLOW_BOX (self->content), top);
      else if (GTK_IS_BOX (self->content) && gtk_widget_get_parent (top) == self->content)
        gtk_box_remove (GTK_BOX (self->content), top);
      else if (GTK_IS_GRID (self->content) && gtk_widget_get_parent (top) == self->content)
        gtk_grid_remove (GTK_GRID (self->content), top);
      else if (GTK_IS_LIST_BOX (self->content) && gtk_widget_get_parent (top) == self->content)
        gtk_list_box_remove (GTK_LIST_BOX (self->content), top);
    }
  g_ptr_array_set_size (self->items, 0);
  g_ptr_array_set_size (self->item_texts, 0);
  g_ptr_array_set_size (self->textures, 0);
}

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
  if (bytes != NULL)
    texture = gdk_texture_new_from_bytes (bytes, &error);
  if (texture == NULL)
    {
      g_autofree char *message = bytes != NULL
        ? g_strdup_printf (_("Could not decode the image %s: %s"), fetch->name, error->message)
        : g_strdup_printf (_("Could not download %s: %s"), fetch->name, error->message);

      riv_output_card_set_error (self, message);
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

static void
riv_output_card_fetch_picture (RivOutputCard *self,
                               guint          index,
                               JsonObject    *file)
{
  Fetch *fetch = g_new0 (Fetch, 1);

  fetch->self = g_object_ref (self);
  fetch->index = index;
  fetch->name = file_data_name (file);
  self->n_pending++;
  riv_fetch_bytes_async (self->client, object_string (file, "url"), self->cancellable,
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

/* Chatbot */

static void
riv_output_card_copy_clicked_cb (GtkButton *button,
                                 gpointer   user_data)
{
  gdk_clipboard_set_text (gtk_widget_get_clipboard (GTK_WIDGET (button)),
                          g_object_get_data (G_OBJECT (button), "riv-text"));
}

static char *
message_content_text (JsonNode *content)
{
  JsonObject *object = node_object (content);

  if (content != NULL && JSON_NODE_HOLDS_ARRAY (content))
    {
      JsonArray *parts = json_node_get_array (content);
      GString *text = g_string_new (NULL);

      /* Gradio 6 sends a message's content as a list of parts. */
      for (guint i = 0; i < json_array_get_length (parts); i++)
        {
          g_autofree char *part = message_content_text (json_array_get_element (parts, i));

          g_string_append_printf (text, "%s%s", text->len > 0 ? "\n" : "", part);
        }
      return g_string_free (text, FALSE);
    }
  if (object != NULL && object_string (object, "path") == NULL &&
      object_string (object, "url") == NULL)
    {
      /* Gradio 5/6 wrap files in {"file": FileData} or {"component": …}; text
       * parts are {"type": "text", "text": …}, a multimodal message
       * {"text": …, "files": […]}. */
      JsonObject *file = node_object (json_object_get_member (object, "file"));
      JsonNode *files = json_object_get_member (object, "files");

      if (file != NULL)
        object = file;
      else if (object_string (object, "component") != NULL)
        return g_strdup_printf ("[%s]", object_string (object, "component"));
      else if (object_string (object, "text") != NULL || files != NULL)
        {
          g_autofree char *names = files != NULL && JSON_NODE_HOLDS_ARRAY (files)
                                     ? message_content_text (files) : NULL;
          const char *text = object_string (object, "text");

          if (names == NULL || *names == '\0')
            return g_strdup (text != NULL ? text : "");
          return g_strdup_printf ("%s%s%s", text != NULL ? text : "",
                                  text != NULL && *text != '\0' ? "\n" : "", names);
        }
    }
  if (object != NULL)
    {
      g_autofree char *name = file_data_name (object);

      return g_strdup_printf ("📎 %s", name);
    }
  return value_to_text (content);
}

/* The messages of a Chatbot value, as (role, text) pairs, in either format. */
static GPtrArray *
chat_messages (JsonNode *value)
{
  GPtrArray *messages = g_ptr_array_new_with_free_func (g_free);
  JsonArray *array = value != NULL && JSON_NODE_HOLDS_ARRAY (value) ? json_node_get_array (value)
                                                                    : NULL;

  for (guint i = 0; array != NULL && i < json_array_get_length (array); i++)
    {
      JsonNode *item = json_array_get_element (array, i);

      if (JSON_NODE_HOLDS_OBJECT (item))
        {
          JsonObject *message = json_node_get_object (item);
          const char *role = object_string (message, "role");

          g_ptr_array_add (messages, g_strdup (g_strcmp0 (role, "user") == 0 ? "user"
                                                                             : "assistant"));
          g_ptr_array_add (messages, message_content_text (json_object_get_member (message,
                                                                                   "content")));
        }
      else if (JSON_NODE_HOLDS_ARRAY (item))
        {
          JsonArray *pair = json_node_get_array (item);

          /* The tuples format: [user, bot], either may be null. */
          for (guint k = 0; k < MIN (json_array_get_length (pair), 2); k++)
            {
              JsonNode *part = json_array_get_element (pair, k);

              if (JSON_NODE_HOLDS_NULL (part))
                continue;
              g_ptr_array_add (messages, g_strdup (k == 0 ? "user" : "assistant"));
              g_ptr_array_add (messages, message_content_text (part));
            }
        }
    }
  return messages;
}

static GtkWidget *
new_bubble (const char *role,
            GtkLabel  **label_out)
{
  GtkWidget *bubble = gtk_box_new (GTK_ORIENTATION_VERTICAL, 2);
  GtkLabel *label = new_text_label (FALSE);
  GtkWidget *copy = gtk_button_new_from_icon_name ("edit-copy-symbolic");

  gtk_widget_add_css_class (bubble, "riv-bubble");
  gtk_widget_add_css_class (bubble, g_strcmp0 (role, "user") == 0 ? "riv-bubble-user"
                                                                  : "riv-bubble-assistant");
  gtk_widget_set_halign (bubble, g_strcmp0 (role, "user") == 0 ? GTK_ALIGN_END : GTK_ALIGN_START);
  gtk_label_set_max_width_chars (label, 60);
  gtk_box_append (GTK_BOX (bubble), GTK_WIDGET (label));

  gtk_widget_add_css_class (copy, "flat");
  gtk_widget_add_css_class (copy, "circular");
  gtk_widget_set_halign (copy, GTK_ALIGN_END);
  gtk_widget_set_tooltip_text (copy, _("Copy Message"));
  gtk_accessible_update_property (GTK_ACCESSIBLE (copy), GTK_ACCESSIBLE_PROPERTY_LABEL,
                                  _("Copy Message"), -1);
  g_signal_connect (copy, "clicked", G_CALLBACK (riv_output_card_copy_clicked_cb), NULL);
  g_object_set_data (G_OBJECT (label), "riv-copy", copy);
  gtk_box_append (GTK_BOX (bubble), copy);

  *label_out = label;
  return bubble;
}

static void
riv_output_card_update_chat (RivOutputCard *self,
                             JsonNode      *value)
{
  g_autoptr(GPtrArray) messages = chat_messages (value);
  guint n = messages->len / 2;

  /* A bubble whose role changed, and every one after, is made again. */
  for (guint i = 0; i < MIN (n, self->items->len); i++)
    {
      GtkWidget *bubble = gtk_widget_get_parent (g_ptr_array_index (self->items, i));
      gboolean user = gtk_widget_has_css_class (bubble, "riv-bubble-user");

      if (user != (g_strcmp0 (g_ptr_array_index (messages, 2 * i), "user") == 0))
        {
          while (self->items->len > i)
            {
              GtkWidget *last = g_ptr_array_index (self->items, self->items->len - 1);

              gtk_box_remove (GTK_BOX (self->content), gtk_widget_get_parent (last));
              g_ptr_array_set_size (self->items, self->items->len - 1);
              g_ptr_array_set_size (self->item_texts, self->item_texts->len - 1);
            }
          break;
        }
    }
  while (self->items->len > n)
    {
      GtkWidget *last = g_ptr_array_index (self->items, self->items->len - 1);

      gtk_box_remove (GTK_BOX (self->content), gtk_widget_get_parent (last));
      g_ptr_array_set_size (self->items, self->items->len - 1);
      g_ptr_array_set_size (self->item_texts, self->item_texts->len - 1);
    }

  g_string_truncate (self->plain, 0);
  for (guint i = 0; i < n; i++)
    {
      const char *role = g_ptr_array_index (messages, 2 * i);
      const char *text = g_ptr_array_index (messages, 2 * i + 1);
      GtkLabel *label;

      g_string_append_printf (self->plain, "%s%s: %s", i > 0 ? "\n" : "", role, text);
      if (i < self->items->len)
        {
          if (g_strcmp0 (g_ptr_array_index (self->item_texts, i), text) == 0)
            continue;
          label = g_ptr_array_index (self->items, i);
          g_free (g_ptr_array_index (self->item_texts, i));
          g_ptr_array_index (self->item_texts, i) = g_strdup (text);
        }
      else
        {
          gtk_box_append (GTK_BOX (self->content), new_bubble (role, &label));
          g_ptr_array_add (self->items, label);
          g_ptr_array_add (self->item_texts, g_strdup (text));
        }
      {
        g_autofree char *markup = riv_markup_from_markdown (text);

        label_set_markup_safe (label, markup, text);
        g_object_set_data_full (G_OBJECT (g_object_get_data (G_OBJECT (label), "riv-copy")),
                                "riv-text", g_strdup (text), g_free);
      }
    }
}

/* Gallery */

static JsonObject *
gallery_item_file (JsonNode    *item,
                   const char **caption)
{
  JsonObject *object = node_object (item);

  *caption = NULL;
  if (object != NULL)
    {
      JsonObject *file = node_object (json_object_get_member (object, "image"));

      if (file == NULL)
        file = node_object (json_object_get_member (object, "video"));
      *caption = object_string (object, "caption");
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
      return node_object (json_array_get_element (pair, 0));
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

static void
riv_output_card_show_large (GtkFlowBox      *box,
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

static void
riv_output_card_update_gallery (RivOutputCard *self,
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

      if (g_strcmp0 (object_string (file, "url"), g_ptr_array_index (self->item_texts, i)) != 0)
        {
          riv_output_card_clear_items (self);
          break;
        }
    }
  if (n < self->items->len)
    riv_output_card_clear_items (self);

  for (guint i = self->items->len; i < n; i++)
    {
      const char *caption;
      JsonObject *file = gallery_item_file (json_array_get_element (array, i), &caption);
      g_autofree char *name = file != NULL ? file_data_name (file) : NULL;
      GtkWidget *picture = gtk_picture_new ();

      gtk_widget_set_size_request (picture, 128, 128);
      gtk_picture_set_can_shrink (GTK_PICTURE (picture), TRUE);
      gtk_widget_add_css_class (picture, "riv-thumbnail");
      gtk_picture_set_alternative_text (GTK_PICTURE (picture), caption != NULL ? caption : name);
      gtk_widget_set_tooltip_text (picture, caption != NULL ? caption : name);
      gtk_flow_box_append (GTK_FLOW_BOX (self->content), picture);
      g_ptr_array_add (self->items, picture);
      g_ptr_array_add (self->item_texts, g_strdup (object_string (file, "url")));
      g_ptr_array_add (self->textures, NULL);
      if (file != NULL)
        riv_output_card_fetch_picture (self, i, file);
      g_string_append_printf (self->plain, "%s%s", self->plain->len > 0 ? "\n" : "",
                              caption != NULL ? caption : name != NULL ? name : "");
    }
}

/* Label */

static void
riv_output_card_update_label (RivOutputCard *self,
                              JsonNode      *value)
{
  JsonObject *object = node_object (value);
  JsonNode *confidences = object != NULL ? json_object_get_member (object, "confidences") : NULL;
  JsonArray *array = confidences != NULL && JSON_NODE_HOLDS_ARRAY (confidences)
                       ? json_node_get_array (confidences) : NULL;
  const char *headline = object_string (object, "label");
  g_autofree char *text = headline == NULL ? value_to_text (value) : NULL;

  riv_output_card_clear_items (self);
  g_string_assign (self->plain, headline != NULL ? headline : text);
  gtk_label_set_text (self->text_label, self->plain->str);

  for (guint i = 0; array != NULL && i < json_array_get_length (array); i++)
    {
      JsonObject *entry = node_object (json_array_get_element (array, i));
      JsonNode *confidence = entry != NULL ? json_object_get_member (entry, "confidence") : NULL;
      double fraction = confidence != NULL && JSON_NODE_HOLDS_VALUE (confidence)
                          ? json_node_get_double (confidence) : 0;
      GtkWidget *row = gtk_box_new (GTK_ORIENTATION_HORIZONTAL, 8);
      GtkWidget *name = gtk_label_new (object_string (entry, "label"));
      GtkWidget *bar = gtk_progress_bar_new ();
      g_autofree char *percent = g_strdup_printf ("%.0f %%", CLAMP (fraction, 0, 1) * 100);
      GtkWidget *amount = gtk_label_new (percent);

      gtk_label_set_xalign (GTK_LABEL (name), 0);
      gtk_label_set_width_chars (GTK_LABEL (name), 10);
      gtk_label_set_ellipsize (GTK_LABEL (name), PANGO_ELLIPSIZE_END);
      gtk_progress_bar_set_fraction (GTK_PROGRESS_BAR (bar), CLAMP (fraction, 0, 1));
      gtk_widget_set_hexpand (bar, TRUE);
      gtk_widget_set_valign (bar, GTK_ALIGN_CENTER);
      gtk_widget_add_css_class (bar, "riv-cell-progress");
      gtk_accessible_update_property (GTK_ACCESSIBLE (bar), GTK_ACCESSIBLE_PROPERTY_LABEL,
                                      object_string (entry, "label"), -1);
      gtk_label_set_width_chars (GTK_LABEL (amount), 5);
      gtk_label_set_xalign (GTK_LABEL (amount), 1);
      gtk_widget_add_css_class (amount, "numeric");
      gtk_widget_add_css_class (amount, "dim-label");
      gtk_box_append (GTK_BOX (row), name);
      gtk_box_append (GTK_BOX (row), bar);
      gtk_box_append (GTK_BOX (row), amount);
      gtk_box_append (GTK_BOX (self->content), row);
      g_ptr_array_add (self->items, bar);
      g_string_append_printf (self->plain, "\n%s %s", object_string (entry, "label"), percent);
    }
}

/* Dataframe */

static void
riv_output_card_update_table (RivOutputCard *self,
                              JsonNode      *value)
{
  JsonObject *object = node_object (value);
  JsonNode *headers = object != NULL ? json_object_get_member (object, "headers") : NULL;
  JsonNode *data = object != NULL ? json_object_get_member (object, "data") : NULL;
  JsonArray *rows = data != NULL && JSON_NODE_HOLDS_ARRAY (data) ? json_node_get_array (data)
                                                                : NULL;
  guint n_rows = rows != NULL ? json_array_get_length (rows) : 0;

  riv_output_card_clear_items (self);
  g_string_truncate (self->plain, 0);

  if (headers != NULL && JSON_NODE_HOLDS_ARRAY (headers))
    {
      JsonArray *names = json_node_get_array (headers);

      for (guint c = 0; c < json_array_get_length (names); c++)
        {
          g_autofree char *text = value_to_text (json_array_get_element (names, c));
          GtkWidget *cell = gtk_label_new (text);

          gtk_widget_add_css_class (cell, "heading");
          gtk_label_set_xalign (GTK_LABEL (cell), 0);
          gtk_grid_attach (GTK_GRID (self->content), cell, (int) c, 0, 1, 1);
          g_ptr_array_add (self->items, cell);
          g_string_append_printf (self->plain, "%s%s", c > 0 ? "\t" : "", text);
        }
    }

  for (guint r = 0; r < MIN (n_rows, MAX_TABLE_ROWS); r++)
    {
      JsonNode *row = json_array_get_element (rows, r);
      JsonArray *cells = JSON_NODE_HOLDS_ARRAY (row) ? json_node_get_array (row) : NULL;

      g_string_append_c (self->plain, '\n');
      for (guint c = 0; cells != NULL && c < json_array_get_length (cells); c++)
        {
          g_autofree char *text = value_to_text (json_array_get_element (cells, c));
          GtkWidget *cell = gtk_label_new (text);

          gtk_label_set_xalign (GTK_LABEL (cell), 0);
          gtk_label_set_selectable (GTK_LABEL (cell), TRUE);
          gtk_label_set_ellipsize (GTK_LABEL (cell), PANGO_ELLIPSIZE_END);
          gtk_label_set_max_width_chars (GTK_LABEL (cell), 40);
          gtk_grid_attach (GTK_GRID (self->content), cell, (int) c, (int) r + 1, 1, 1);
          g_ptr_array_add (self->items, cell);
          g_string_append_printf (self->plain, "%s%s", c > 0 ? "\t" : "", text);
        }
    }
  if (n_rows > MAX_TABLE_ROWS)
    {
      g_autofree char *more = g_strdup_printf (g_dngettext (GETTEXT_PACKAGE, "… %u more row",
                                                            "… %u more rows",
                                                            n_rows - MAX_TABLE_ROWS),
                                               n_rows - MAX_TABLE_ROWS);

      gtk_label_set_text (self->text_label, more);
    }
  gtk_widget_set_visible (GTK_WIDGET (self->text_label), n_rows > MAX_TABLE_ROWS);
}

/* Files */

static void
riv_output_card_update_files (RivOutputCard *self,
                              JsonNode      *value)
{
  g_autoptr(GPtrArray) files = g_ptr_array_new ();

  riv_output_card_clear_items (self);
  g_string_truncate (self->plain, 0);
  if (node_object (value) != NULL)
    g_ptr_array_add (files, node_object (value));
  else if (value != NULL && JSON_NODE_HOLDS_ARRAY (value))
    for (guint i = 0; i < json_array_get_length (json_node_get_array (value)); i++)
      if (node_object (json_array_get_element (json_node_get_array (value), i)) != NULL)
        g_ptr_array_add (files, node_object (json_array_get_element (json_node_get_array (value),
                                                                      i)));

  for (guint i = 0; i < files->len; i++)
    {
      JsonObject *file = g_ptr_array_index (files, i);
      g_autofree char *name = file_data_name (file);
      JsonNode *size = json_object_get_member (file, "size");
      const char *url = object_string (file, "url");
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

/* Media */

static void
riv_output_card_update_media (RivOutputCard *self,
                              JsonNode      *value)
{
  JsonObject *file = node_object (value);
  const char *url = object_string (file, "url");
  g_autoptr(GFile) location = NULL;

  g_string_truncate (self->plain, 0);
  if (file != NULL)
    {
      g_autofree char *name = file_data_name (file);

      g_string_append (self->plain, name);
    }
  if (self->media != NULL)
    {
      gtk_media_stream_pause (self->media);
      g_clear_object (&self->media);
    }
  if (url == NULL)
    {
      if (GTK_IS_VIDEO (self->media_widget))
        gtk_video_set_media_stream (GTK_VIDEO (self->media_widget), NULL);
      else
        gtk_media_controls_set_media_stream (GTK_MEDIA_CONTROLS (self->media_widget), NULL);
      return;
    }

  /* GStreamer streams the file from the server itself. */
  location = g_file_new_for_uri (url);
  self->media = gtk_media_file_new_for_file (location);
  if (GTK_IS_VIDEO (self->media_widget))
    gtk_video_set_media_stream (GTK_VIDEO (self->media_widget), self->media);
  else
    gtk_media_controls_set_media_stream (GTK_MEDIA_CONTROLS (self->media_widget), self->media);
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

      riv_output_card_set_error (self, message);
      return;
    }
  riv_output_card_show_plot (self, plot);
}

static void
riv_output_card_update_plot (RivOutputCard *self,
                             JsonNode      *value)
{
  g_autoptr(GTask) task = NULL;

  riv_output_card_clear_items (self);
  riv_output_card_set_error (self, NULL);
  g_string_truncate (self->plain, 0);
  if (value == NULL || JSON_NODE_HOLDS_NULL (value))
    return;

  task = g_task_new (self, self->cancellable, riv_output_card_plot_read_cb, NULL);
  g_task_set_source_tag (task, riv_output_card_update_plot);
  g_task_set_task_data (task, json_node_copy (value), (GDestroyNotify) json_node_unref);
  self->n_pending++;
  g_task_run_in_thread (task, riv_output_card_plot_thread);
}

/* Text-like values */

/* Gradio's page gives each label a colour of its theme's palette in order of
 * first appearance, unless the component's color_map names one; a numeric
 * score tints its token red (positive) or purple (negative) by its size. */
static const char *const highlight_palette[] = {
  "#ef4444", "#22c55e", "#3b82f6", "#eab308", "#a855f7",
  "#14b8a6", "#f97316", "#06b6d4", "#84cc16", "#ec4899",
};

static char *
highlight_colour (JsonObject *props,
                  GPtrArray  *labels,
                  const char *label)
{
  const char *mapped = object_string (node_object (props != NULL
                                                     ? json_object_get_member (props, "color_map")
                                                     : NULL), label);
  PangoColor colour;
  guint index;

  if (mapped != NULL && pango_color_parse (&colour, mapped))
    return g_strdup_printf ("#%02x%02x%02x", colour.red >> 8, colour.green >> 8, colour.blue >> 8);
  if (!g_ptr_array_find_with_equal_func (labels, label, g_str_equal, &index))
    {
      index = labels->len;
      g_ptr_array_add (labels, g_strdup (label));
    }
  return g_strdup (highlight_palette[index % G_N_ELEMENTS (highlight_palette)]);
}

/* Tokens are set apart as the page's spans are: a space where neither the
 * text so far nor the token has one. */
static void
separate_token (GString    *markup,
                GString    *plain,
                const char *token)
{
  if (plain->len > 0 && !g_ascii_isspace (plain->str[plain->len - 1]) && *token != '\0' &&
      !g_ascii_isspace (*token))
    {
      g_string_append_c (markup, ' ');
      g_string_append_c (plain, ' ');
    }
}

static char *
highlighted_markup (JsonNode   *value,
                    JsonObject *props,
                    GString    *plain)
{
  JsonArray *array = value != NULL && JSON_NODE_HOLDS_ARRAY (value) ? json_node_get_array (value)
                                                                    : NULL;
  g_autoptr(GPtrArray) labels = g_ptr_array_new_with_free_func (g_free);
  GString *markup = g_string_new (NULL);

  for (guint i = 0; array != NULL && i < json_array_get_length (array); i++)
    {
      JsonNode *item = json_array_get_element (array, i);
      JsonNode *token = NULL, *kind = NULL;
      g_autofree char *token_text = NULL;
      g_autofree char *escaped = NULL;
      g_autofree char *colour = NULL;
      g_autofree char *kind_escaped = NULL;
      int alpha = 35;

      if (JSON_NODE_HOLDS_ARRAY (item) && json_array_get_length (json_node_get_array (item)) == 2)
        {
          token = json_array_get_element (json_node_get_array (item), 0);
          kind = json_array_get_element (json_node_get_array (item), 1);
        }
      else if (JSON_NODE_HOLDS_OBJECT (item))
        {
          token = json_object_get_member (json_node_get_object (item), "token");
          kind = json_object_get_member (json_node_get_object (item), "class_or_confidence");
        }
      token_text = value_to_text (token);
      escaped = g_markup_escape_text (token_text, -1);
      separate_token (markup, plain, token_text);
      g_string_append (plain, token_text);
      if (kind == NULL || JSON_NODE_HOLDS_NULL (kind))
        {
          g_string_append (markup, escaped);
          continue;
        }

      if (JSON_NODE_HOLDS_VALUE (kind) && json_node_get_value_type (kind) != G_TYPE_STRING)
        {
          double score = json_node_get_double (kind);

          colour = g_strdup (score < 0 ? "#805ad5" : "#ef443c");
          alpha = (int) CLAMP (fabs (score) * 100, 1, 100);
          g_string_append_printf (markup, "<span background=\"%s\" bgalpha=\"%d%%\">%s</span>",
                                  colour, alpha, escaped);
          continue;
        }
      {
        g_autofree char *kind_text = value_to_text (kind);

        colour = highlight_colour (props, labels, kind_text);
        kind_escaped = g_markup_escape_text (kind_text, -1);
      }
      g_string_append_printf (markup,
                              "<span background=\"%s\" bgalpha=\"%d%%\"> %s "
                              "<span size=\"small\" weight=\"bold\" foreground=\"%s\">%s</span>"
                              " </span>",
                              colour, alpha, escaped, colour, kind_escaped);
    }
  return g_string_free (markup, FALSE);
}

static void
riv_output_card_update_text (RivOutputCard *self,
                             JsonNode      *value)
{
  g_autofree char *text = NULL;
  g_autofree char *markup = NULL;

  switch (self->kind)
    {
    case CARD_MARKDOWN:
      text = value_to_text (value);
      markup = riv_markup_from_markdown (text);
      break;
    case CARD_HTML:
      text = value_to_text (value);
      markup = riv_markup_from_html (text);
      break;
    case CARD_JSON:
    case CARD_OTHER:
      text = value_to_pretty_json (value);
      break;
    case CARD_TEXT:
      if (g_strcmp0 (self->type, "highlightedtext") == 0)
        {
          g_string_truncate (self->plain, 0);
          markup = highlighted_markup (value, self->props, self->plain);
          label_set_markup_safe (self->text_label, markup, self->plain->str);
          return;
        }
      text = value_to_text (value);
      break;
    default:
      g_assert_not_reached ();
    }

  g_string_assign (self->plain, text);
  if (markup != NULL)
    label_set_markup_safe (self->text_label, markup, text);
  else
    gtk_label_set_text (self->text_label, text);
}

/* The card */

static void
riv_output_card_dispose (GObject *object)
{
  RivOutputCard *self = (RivOutputCard *) object;

  g_cancellable_cancel (self->cancellable);
  g_clear_object (&self->cancellable);
  if (self->media != NULL)
    gtk_media_stream_pause (self->media);
  g_clear_object (&self->media);
  g_clear_object (&self->job);
  g_clear_object (&self->client);
  g_clear_pointer (&self->shown, json_node_unref);
  g_clear_pointer (&self->displayed, json_node_unref);
  g_clear_pointer (&self->props, json_object_unref);
  g_ptr_array_set_size (self->items, 0);

  G_OBJECT_CLASS (riv_output_card_parent_class)->dispose (object);
}

static void
riv_output_card_finalize (GObject *object)
{
  RivOutputCard *self = (RivOutputCard *) object;

  g_ptr_array_unref (self->items);
  g_ptr_array_unref (self->item_texts);
  g_ptr_array_unref (self->textures);
  g_string_free (self->plain, TRUE);
  g_free (self->type);
  g_free (self->label);
  g_free (self->error);

  G_OBJECT_CLASS (riv_output_card_parent_class)->finalize (object);
}

static void
riv_output_card_class_init (RivOutputCardClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->dispose = riv_output_card_dispose;
  object_class->finalize = riv_output_card_finalize;
}

static void
riv_output_card_init (RivOutputCard *self)
{
  self->items = g_ptr_array_new ();
  self->item_texts = g_ptr_array_new_with_free_func (g_free);
  self->textures = g_ptr_array_new_with_free_func (unref_nullable);
  self->plain = g_string_new (NULL);
  self->cancellable = g_cancellable_new ();
}

GtkWidget *
riv_output_card_new (RivComponent *component,
                     RivClient    *client)
{
  RivOutputCard *self;
  GtkWidget *box, *header, *title, *type, *body;
  const char *label;

  g_return_val_if_fail (component != NULL, NULL);

  self = g_object_new (RIV_TYPE_OUTPUT_CARD, NULL);
  self->client = client != NULL ? g_object_ref (client) : NULL;
  self->type = g_strdup (component->type != NULL ? component->type : "unknown");
  self->kind = kind_for_type (self->type);
  self->props = component->props != NULL ? json_object_ref (component->props) : json_object_new ();
  label = component->label != NULL && *component->label != '\0' ? component->label : self->type;
  self->label = g_strdup (label);

  box = gtk_box_new (GTK_ORIENTATION_VERTICAL, 8);
  gtk_widget_add_css_class (box, "card");
  gtk_widget_add_css_class (box, "riv-output-card");

  header = gtk_box_new (GTK_ORIENTATION_HORIZONTAL, 8);
  title = gtk_label_new (label);
  gtk_widget_add_css_class (title, "heading");
  gtk_label_set_xalign (GTK_LABEL (title), 0);
  gtk_label_set_ellipsize (GTK_LABEL (title), PANGO_ELLIPSIZE_END);
  gtk_widget_set_hexpand (title, TRUE);
  type = gtk_label_new (self->type);
  gtk_widget_add_css_class (type, "riv-badge");
  if (self->kind == CARD_OTHER)
    gtk_widget_add_css_class (type, "warning");
  gtk_widget_set_tooltip_text (type, self->kind == CARD_OTHER
                                       ? _("No viewer for this component type: its JSON is shown")
                                       : NULL);
  gtk_box_append (GTK_BOX (header), title);
  gtk_box_append (GTK_BOX (header), type);
  gtk_box_append (GTK_BOX (box), header);
  self->title_label = GTK_LABEL (title);

  self->note_label = GTK_LABEL (gtk_label_new (NULL));
  gtk_label_set_wrap (self->note_label, TRUE);
  gtk_label_set_xalign (self->note_label, 0);
  gtk_widget_add_css_class (GTK_WIDGET (self->note_label), "dim-label");
  gtk_widget_add_css_class (GTK_WIDGET (self->note_label), "caption");
  gtk_widget_set_visible (GTK_WIDGET (self->note_label), FALSE);
  gtk_box_append (GTK_BOX (box), GTK_WIDGET (self->note_label));

  self->error_label = GTK_LABEL (gtk_label_new (NULL));
  gtk_label_set_wrap (self->error_label, TRUE);
  gtk_label_set_xalign (self->error_label, 0);
  gtk_widget_add_css_class (GTK_WIDGET (self->error_label), "error");
  gtk_widget_set_visible (GTK_WIDGET (self->error_label), FALSE);

  self->text_label = new_text_label (self->kind == CARD_JSON || self->kind == CARD_OTHER ||
                                     g_strcmp0 (self->type, "code") == 0);
  body = GTK_WIDGET (self->text_label);

  switch (self->kind)
    {
    case CARD_CHAT:
      self->content = gtk_box_new (GTK_ORIENTATION_VERTICAL, 8);
      body = self->content;
      break;
    case CARD_GALLERY:
      self->content = gtk_flow_box_new ();
      gtk_flow_box_set_homogeneous (GTK_FLOW_BOX (self->content), TRUE);
      gtk_flow_box_set_max_children_per_line (GTK_FLOW_BOX (self->content), 6);
      gtk_flow_box_set_selection_mode (GTK_FLOW_BOX (self->content), GTK_SELECTION_NONE);
      gtk_flow_box_set_activate_on_single_click (GTK_FLOW_BOX (self->content), TRUE);
      gtk_accessible_update_property (GTK_ACCESSIBLE (self->content),
                                      GTK_ACCESSIBLE_PROPERTY_LABEL, label, -1);
      g_signal_connect_object (self->content, "child-activated",
                               G_CALLBACK (riv_output_card_show_large), self, 0);
      body = self->content;
      break;
    case CARD_IMAGE:
      self->content = gtk_box_new (GTK_ORIENTATION_VERTICAL, 0);
      body = self->content;
      break;
    case CARD_LABEL:
      gtk_widget_add_css_class (GTK_WIDGET (self->text_label), "title-3");
      self->content = gtk_box_new (GTK_ORIENTATION_VERTICAL, 6);
      gtk_box_append (GTK_BOX (self->content), GTK_WIDGET (self->text_label));
      body = self->content;
      break;
    case CARD_TABLE:
      self->content = gtk_grid_new ();
      gtk_grid_set_column_spacing (GTK_GRID (self->content), 18);
      gtk_grid_set_row_spacing (GTK_GRID (self->content), 4);
      body = gtk_scrolled_window_new ();
      gtk_scrolled_window_set_child (GTK_SCROLLED_WINDOW (body), self->content);
      gtk_scrolled_window_set_policy (GTK_SCROLLED_WINDOW (body), GTK_POLICY_AUTOMATIC,
                                      GTK_POLICY_NEVER);
      gtk_scrolled_window_set_propagate_natural_height (GTK_SCROLLED_WINDOW (body), TRUE);
      break;
    case CARD_FILE:
      self->content = gtk_list_box_new ();
      gtk_list_box_set_selection_mode (GTK_LIST_BOX (self->content), GTK_SELECTION_NONE);
      gtk_widget_add_css_class (self->content, "boxed-list");
      body = self->content;
      break;
    case CARD_PLOT:
      self->content = gtk_box_new (GTK_ORIENTATION_VERTICAL, 8);
      body = self->content;
      break;
    case CARD_MEDIA:
      if (g_strcmp0 (self->type, "video") == 0)
        {
          self->media_widget = gtk_video_new ();
          gtk_widget_set_size_request (self->media_widget, -1, 240);
        }
      else
        self->media_widget = gtk_media_controls_new (NULL);
      body = self->media_widget;
      break;
    case CARD_TEXT:
    case CARD_JSON:
    case CARD_MARKDOWN:
    case CARD_HTML:
    case CARD_OTHER:
    default:
      break;
    }

  gtk_box_append (GTK_BOX (box), body);
  self->body = body;
  if (self->kind == CARD_TABLE)
    gtk_box_append (GTK_BOX (box), GTK_WIDGET (self->text_label));
  gtk_box_append (GTK_BOX (box), GTK_WIDGET (self->error_label));
  adw_bin_set_child (ADW_BIN (self), box);
  return GTK_WIDGET (self);
}

static gboolean
value_is_update (JsonNode *value)
{
  return g_strcmp0 (object_string (node_object (value), "__type__"), "update") == 0;
}

static void
riv_output_card_set_note (RivOutputCard *self,
                          gboolean       hidden,
                          gboolean       unchanged)
{
  GString *note = g_string_new (NULL);

  self->hidden = hidden;
  if (hidden)
    g_string_append (note, _("Hidden by the app (visible=False); its value is shown here"));
  if (unchanged)
    g_string_append_printf (note, "%s%s", note->len > 0 ? "\n" : "",
                            _("Not updated by this job: the component keeps its value"));
  gtk_label_set_text (self->note_label, note->str);
  gtk_widget_set_visible (GTK_WIDGET (self->note_label), note->len > 0);
  gtk_widget_set_opacity (self->body, hidden ? 0.5 : 1.0);
  g_string_free (note, TRUE);
}

/* A ChatInterface's response as the assistant's message of a chat (a
 * finished job no longer has the question: its inputs are dropped). */
static JsonNode *
chat_reply_messages (JsonNode *reply)
{
  JsonArray *messages = json_array_new ();
  JsonNode *node = json_node_new (JSON_NODE_ARRAY);

  if (reply != NULL && !JSON_NODE_HOLDS_NULL (reply))
    {
      JsonObject *assistant = json_object_new ();
      JsonObject *message = node_object (reply);

      /* The function may answer with a whole message ({"role", "content"}). */
      if (message != NULL && json_object_has_member (message, "content"))
        reply = json_object_get_member (message, "content");
      json_object_set_string_member (assistant, "role", "assistant");
      json_object_set_member (assistant, "content", json_node_copy (reply));
      json_array_add_object_element (messages, assistant);
    }
  json_node_take_array (node, messages);
  return node;
}

void
riv_output_card_set_value (RivOutputCard *self,
                           JsonNode      *value,
                           RivJob        *job)
{
  g_autoptr(JsonNode) conversation = NULL;
  gboolean unchanged = FALSE;

  g_return_if_fail (RIV_IS_OUTPUT_CARD (self));

  if (job != self->job)
    {
      g_set_object (&self->job, job);
      g_clear_pointer (&self->shown, json_node_unref);
      g_clear_pointer (&self->displayed, json_node_unref);
      riv_output_card_clear_items (self);
      riv_output_card_set_error (self, NULL);
      g_string_truncate (self->plain, 0);
      gtk_label_set_text (self->title_label, self->label);
      riv_output_card_set_note (self, FALSE, FALSE);
    }
  else if ((value == NULL && self->shown == NULL) ||
           (value != NULL && self->shown != NULL && json_node_equal (value, self->shown)))
    return;

  g_clear_pointer (&self->shown, json_node_unref);
  if (value != NULL)
    self->shown = json_node_copy (value);

  /* gr.update (and gr.skip, an update of nothing) as Gradio's page applies
   * it: the label and visibility change, the value only when it has one. */
  if (value_is_update (value))
    {
      JsonObject *update = json_node_get_object (value);
      JsonNode *visible = json_object_get_member (update, "visible");
      const char *label = object_string (update, "label");
      gboolean hidden = self->hidden;

      if (label != NULL)
        gtk_label_set_text (self->title_label, label);
      if (visible != NULL && JSON_NODE_HOLDS_VALUE (visible) &&
          json_node_get_value_type (visible) == G_TYPE_BOOLEAN)
        hidden = !json_node_get_boolean (visible);
      else if (visible != NULL && JSON_NODE_HOLDS_VALUE (visible) &&
               json_node_get_value_type (visible) == G_TYPE_STRING)
        hidden = g_strcmp0 (json_node_get_string (visible), "hidden") == 0;

      if (json_object_has_member (update, "value"))
        value = json_object_get_member (update, "value");
      else
        {
          /* Nothing new: what was shown stays, else the component's own value. */
          unchanged = TRUE;
          value = self->displayed != NULL ? self->displayed
                                          : json_object_get_member (self->props, "value");
        }
      riv_output_card_set_note (self, hidden, unchanged && self->displayed == NULL);
      if (unchanged && self->displayed != NULL)
        return;
    }
  else if (self->hidden || gtk_widget_get_visible (GTK_WIDGET (self->note_label)))
    riv_output_card_set_note (self, self->hidden, FALSE);

  if (self->displayed != NULL && value != NULL && json_node_equal (value, self->displayed))
    return;
  g_clear_pointer (&self->displayed, json_node_unref);
  if (value != NULL)
    self->displayed = json_node_copy (value);

  if (self->chat_reply)
    value = conversation = chat_reply_messages (value);

  switch (self->kind)
    {
    case CARD_CHAT:
      riv_output_card_update_chat (self, value);
      break;
    case CARD_GALLERY:
      riv_output_card_update_gallery (self, value);
      break;
    case CARD_IMAGE:
      {
        JsonObject *file = node_object (value);

        riv_output_card_clear_items (self);
        riv_output_card_set_error (self, NULL);
        g_string_truncate (self->plain, 0);
        if (file != NULL)
          {
            GtkWidget *picture = gtk_picture_new ();
            g_autofree char *name = file_data_name (file);

            gtk_widget_set_size_request (picture, -1, 200);
            gtk_picture_set_can_shrink (GTK_PICTURE (picture), TRUE);
            gtk_picture_set_alternative_text (GTK_PICTURE (picture), name);
            gtk_box_append (GTK_BOX (self->content), picture);
            g_ptr_array_add (self->items, picture);
            g_ptr_array_add (self->item_texts, g_strdup (object_string (file, "url")));
            g_ptr_array_add (self->textures, NULL);
            g_string_append (self->plain, name);
            riv_output_card_fetch_picture (self, 0, file);
          }
      }
      break;
    case CARD_LABEL:
      riv_output_card_update_label (self, value);
      break;
    case CARD_TABLE:
      riv_output_card_update_table (self, value);
      break;
    case CARD_FILE:
      riv_output_card_update_files (self, value);
      break;
    case CARD_MEDIA:
      riv_output_card_update_media (self, value);
      break;
    case CARD_PLOT:
      riv_output_card_update_plot (self, value);
      break;
    case CARD_TEXT:
    case CARD_JSON:
    case CARD_MARKDOWN:
    case CARD_HTML:
    case CARD_OTHER:
    default:
      riv_output_card_update_text (self, value);
      break;
    }
}

const char *
riv_output_card_get_component_type (RivOutputCard *self)
{
  g_return_val_if_fail (RIV_IS_OUTPUT_CARD (self), NULL);
  return self->type;
}

guint
riv_output_card_get_n_items (RivOutputCard *self)
{
  g_return_val_if_fail (RIV_IS_OUTPUT_CARD (self), 0);
  return self->items->len;
}

GdkTexture *
riv_output_card_get_texture (RivOutputCard *self,
                             guint          i)
{
  g_return_val_if_fail (RIV_IS_OUTPUT_CARD (self), NULL);
  if (self->kind != CARD_GALLERY && self->kind != CARD_IMAGE && self->kind != CARD_PLOT)
    return NULL;
  return i < self->textures->len ? g_ptr_array_index (self->textures, i) : NULL;
}

char *
riv_output_card_dup_text (RivOutputCard *self)
{
  g_return_val_if_fail (RIV_IS_OUTPUT_CARD (self), NULL);
  return g_strdup (self->plain->str);
}

double
riv_output_card_get_bar_fraction (RivOutputCard *self,
                                  guint          i)
{
  g_return_val_if_fail (RIV_IS_OUTPUT_CARD (self), -1);
  if (self->kind != CARD_LABEL || i >= self->items->len)
    return -1;
  return gtk_progress_bar_get_fraction (g_ptr_array_index (self->items, i));
}

GtkMediaStream *
riv_output_card_get_media_stream (RivOutputCard *self)
{
  g_return_val_if_fail (RIV_IS_OUTPUT_CARD (self), NULL);
  return self->media;
}

const char *
riv_output_card_get_error (RivOutputCard *self)
{
  g_return_val_if_fail (RIV_IS_OUTPUT_CARD (self), NULL);
  return self->error;
}

guint
riv_output_card_get_n_pending (RivOutputCard *self)
{
  g_return_val_if_fail (RIV_IS_OUTPUT_CARD (self), 0);
  return self->n_pending;
}

void
riv_output_card_set_chat_reply (RivOutputCard *self,
                                gboolean       chat_reply)
{
  g_return_if_fail (RIV_IS_OUTPUT_CARD (self));
  g_return_if_fail (self->shown == NULL);

  if (!!chat_reply == self->chat_reply)
    return;
  self->chat_reply = !!chat_reply;
  if (self->chat_reply && self->kind != CARD_CHAT)
    {
      /* The JSON label makes way for chat bubbles. */
      GtkWidget *box = gtk_widget_get_parent (self->body);
      GtkWidget *content = gtk_box_new (GTK_ORIENTATION_VERTICAL, 8);

      gtk_box_insert_child_after (GTK_BOX (box), content, self->body);
      gtk_widget_set_visible (self->body, FALSE);
      self->kind = CARD_CHAT;
      self->content = self->body = content;
    }
}

const char *
riv_output_card_get_title (RivOutputCard *self)
{
  g_return_val_if_fail (RIV_IS_OUTPUT_CARD (self), NULL);
  return gtk_label_get_text (self->title_label);
}

const char *
riv_output_card_get_note (RivOutputCard *self)
{
  g_return_val_if_fail (RIV_IS_OUTPUT_CARD (self), NULL);
  return gtk_widget_get_visible (GTK_WIDGET (self->note_label))
           ? gtk_label_get_text (self->note_label) : NULL;
}

gboolean
riv_output_card_is_hidden (RivOutputCard *self)
{
  g_return_val_if_fail (RIV_IS_OUTPUT_CARD (self), FALSE);
  return self->hidden;
}

char *
riv_output_card_dup_markup (RivOutputCard *self)
{
  g_return_val_if_fail (RIV_IS_OUTPUT_CARD (self), NULL);
  return g_strdup (gtk_label_get_label (self->text_label));
}
