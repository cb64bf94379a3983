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
#include "riv-output-card-private.h"
#include "riv-plot.h"

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

GtkLabel *
_riv_output_card_new_text_label (gboolean monospace)
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
void
_riv_output_card_label_set_markup_safe (GtkLabel   *label,
                                        const char *markup,
                                        const char *fallback)
{
  if (pango_parse_markup (markup, -1, 0, NULL, NULL, NULL, NULL))
    gtk_label_set_markup (label, markup);
  else
    gtk_label_set_text (label, fallback);
}

char *
_riv_output_card_value_to_text (JsonNode *value)
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

char *
_riv_output_card_value_to_pretty_json (JsonNode *value)
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

const char *
_riv_output_card_object_string (JsonObject *object,
                                const char *member)
{
  JsonNode *node = object != NULL ? json_object_get_member (object, member) : NULL;

  if (node != NULL && JSON_NODE_HOLDS_VALUE (node) &&
      json_node_get_value_type (node) == G_TYPE_STRING)
    return json_node_get_string (node);
  return NULL;
}

JsonObject *
_riv_output_card_node_object (JsonNode *node)
{
  return node != NULL && JSON_NODE_HOLDS_OBJECT (node) ? json_node_get_object (node) : NULL;
}

/* A FileData's name: orig_name, else the last part of its path or URL. */
char *
_riv_output_card_file_data_name (JsonObject *file)
{
  const char *name = _riv_output_card_object_string (file, "orig_name");
  const char *path = _riv_output_card_object_string (file, "path");

  if (name == NULL && path == NULL)
    path = _riv_output_card_object_string (file, "url");
  if (name != NULL)
    return g_strdup (name);
  return path != NULL ? g_path_get_basename (path) : g_strdup (_("file"));
}

void
_riv_output_card_set_error (RivOutputCard *self,
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

void
_riv_output_card_clear_items (RivOutputCard *self)
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

/* The card */

static void
riv_output_card_dispose (GObject *object)
{
  RivOutputCard *self = (RivOutputCard *) object;

  g_cancellable_cancel (self->cancellable);
  g_clear_object (&self->cancellable);
  _riv_output_card_drop_media (self);
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

/* The card's title and type badge, its note (gr.update's visibility) and its error label. */
static GtkWidget *
build_frame (RivOutputCard *self,
             const char    *label)
{
  GtkWidget *box, *header, *title, *type;

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
  return box;
}

static GtkWidget *
build_gallery (RivOutputCard *self,
               const char    *label)
{
  self->content = gtk_flow_box_new ();
  gtk_flow_box_set_homogeneous (GTK_FLOW_BOX (self->content), TRUE);
  gtk_flow_box_set_max_children_per_line (GTK_FLOW_BOX (self->content), 6);
  gtk_flow_box_set_selection_mode (GTK_FLOW_BOX (self->content), GTK_SELECTION_NONE);
  gtk_flow_box_set_activate_on_single_click (GTK_FLOW_BOX (self->content), TRUE);
  gtk_accessible_update_property (GTK_ACCESSIBLE (self->content),
                                  GTK_ACCESSIBLE_PROPERTY_LABEL, label, -1);
  g_signal_connect_object (self->content, "child-activated",
                           G_CALLBACK (_riv_output_card_show_large), self, 0);
  return self->content;
}

static GtkWidget *
build_table (RivOutputCard *self)
{
  GtkWidget *scrolled = gtk_scrolled_window_new ();

  self->content = gtk_grid_new ();
  gtk_grid_set_column_spacing (GTK_GRID (self->content), 18);
  gtk_grid_set_row_spacing (GTK_GRID (self->content), 4);
  gtk_scrolled_window_set_child (GTK_SCROLLED_WINDOW (scrolled), self->content);
  gtk_scrolled_window_set_policy (GTK_SCROLLED_WINDOW (scrolled), GTK_POLICY_AUTOMATIC,
                                  GTK_POLICY_NEVER);
  gtk_scrolled_window_set_propagate_natural_height (GTK_SCROLLED_WINDOW (scrolled), TRUE);
  return scrolled;
}

/* What shows the value, by kind (self->content, where the kind has one). */
static GtkWidget *
build_body (RivOutputCard *self,
            const char    *label)
{
  switch (self->kind)
    {
    case CARD_CHAT:
    case CARD_PLOT:
      self->content = gtk_box_new (GTK_ORIENTATION_VERTICAL, 8);
      return self->content;
    case CARD_GALLERY:
      return build_gallery (self, label);
    case CARD_IMAGE:
      self->content = gtk_box_new (GTK_ORIENTATION_VERTICAL, 0);
      return self->content;
    case CARD_LABEL:
      gtk_widget_add_css_class (GTK_WIDGET (self->text_label), "title-3");
      self->content = gtk_box_new (GTK_ORIENTATION_VERTICAL, 6);
      gtk_box_append (GTK_BOX (self->content), GTK_WIDGET (self->text_label));
      return self->content;
    case CARD_TABLE:
      return build_table (self);
    case CARD_FILE:
      self->content = gtk_list_box_new ();
      gtk_list_box_set_selection_mode (GTK_LIST_BOX (self->content), GTK_SELECTION_NONE);
      gtk_widget_add_css_class (self->content, "boxed-list");
      return self->content;
    case CARD_MEDIA:
      if (g_strcmp0 (self->type, "video") == 0)
        {
          self->media_widget = gtk_video_new ();
          gtk_widget_set_size_request (self->media_widget, -1, 240);
        }
      else
        self->media_widget = gtk_media_controls_new (NULL);
      return self->media_widget;
    case CARD_TEXT:
    case CARD_JSON:
    case CARD_MARKDOWN:
    case CARD_HTML:
    case CARD_OTHER:
    default:
      return GTK_WIDGET (self->text_label);
    }
}

GtkWidget *
riv_output_card_new (RivComponent *component,
                     RivClient    *client)
{
  RivOutputCard *self;
  GtkWidget *box;
  const char *label;

  g_return_val_if_fail (component != NULL, NULL);

  self = g_object_new (RIV_TYPE_OUTPUT_CARD, NULL);
  self->client = client != NULL ? g_object_ref (client) : NULL;
  self->type = g_strdup (component->type != NULL ? component->type : "unknown");
  self->kind = kind_for_type (self->type);
  self->props = component->props != NULL ? json_object_ref (component->props) : json_object_new ();
  label = component->label != NULL && *component->label != '\0' ? component->label : self->type;
  self->label = g_strdup (label);

  box = build_frame (self, label);
  self->text_label = _riv_output_card_new_text_label (self->kind == CARD_JSON || self->kind == CARD_OTHER ||
                                     g_strcmp0 (self->type, "code") == 0);
  self->body = build_body (self, label);
  gtk_box_append (GTK_BOX (box), self->body);
  if (self->kind == CARD_TABLE)
    gtk_box_append (GTK_BOX (box), GTK_WIDGET (self->text_label));
  gtk_box_append (GTK_BOX (box), GTK_WIDGET (self->error_label));
  adw_bin_set_child (ADW_BIN (self), box);
  return GTK_WIDGET (self);
}

static gboolean
value_is_update (JsonNode *value)
{
  return g_strcmp0 (_riv_output_card_object_string (_riv_output_card_node_object (value), "__type__"), "update") == 0;
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
      JsonObject *message = _riv_output_card_node_object (reply);

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

/* Another job: nothing of the previous one's value stays. */
static void
reset_for_job (RivOutputCard *self,
               RivJob        *job)
{
  g_set_object (&self->job, job);
  g_clear_pointer (&self->shown, json_node_unref);
  g_clear_pointer (&self->displayed, json_node_unref);
  _riv_output_card_clear_items (self);
  _riv_output_card_set_error (self, NULL);
  g_string_truncate (self->plain, 0);
  gtk_label_set_text (self->title_label, self->label);
  riv_output_card_set_note (self, FALSE, FALSE);
}

/* gr.update (and gr.skip, an update of nothing) as Gradio's page applies
 * it: the label and visibility change, the value only when it has one.
 * *value becomes the value to show; FALSE when what is shown stays. */
static gboolean
apply_update (RivOutputCard  *self,
              JsonNode      **value)
{
  JsonObject *update = json_node_get_object (*value);
  JsonNode *visible = json_object_get_member (update, "visible");
  const char *label = _riv_output_card_object_string (update, "label");
  gboolean hidden = self->hidden;
  gboolean unchanged = FALSE;

  if (label != NULL)
    gtk_label_set_text (self->title_label, label);
  if (visible != NULL && JSON_NODE_HOLDS_VALUE (visible) &&
      json_node_get_value_type (visible) == G_TYPE_BOOLEAN)
    hidden = !json_node_get_boolean (visible);
  else if (visible != NULL && JSON_NODE_HOLDS_VALUE (visible) &&
           json_node_get_value_type (visible) == G_TYPE_STRING)
    hidden = g_strcmp0 (json_node_get_string (visible), "hidden") == 0;

  if (json_object_has_member (update, "value"))
    *value = json_object_get_member (update, "value");
  else
    {
      /* Nothing new: what was shown stays, else the component's own value. */
      unchanged = TRUE;
      *value = self->displayed != NULL ? self->displayed
                                       : json_object_get_member (self->props, "value");
    }
  riv_output_card_set_note (self, hidden, unchanged && self->displayed == NULL);
  return !(unchanged && self->displayed != NULL);
}

static void
show_image (RivOutputCard *self,
            JsonNode      *value)
{
  JsonObject *file = _riv_output_card_node_object (value);
  GtkWidget *picture;
  g_autofree char *name = NULL;

  _riv_output_card_clear_items (self);
  _riv_output_card_set_error (self, NULL);
  g_string_truncate (self->plain, 0);
  if (file == NULL)
    return;
  picture = gtk_picture_new ();
  name = _riv_output_card_file_data_name (file);
  gtk_widget_set_size_request (picture, -1, 200);
  gtk_picture_set_can_shrink (GTK_PICTURE (picture), TRUE);
  gtk_picture_set_alternative_text (GTK_PICTURE (picture), name);
  gtk_box_append (GTK_BOX (self->content), picture);
  g_ptr_array_add (self->items, picture);
  g_ptr_array_add (self->item_texts, g_strdup (_riv_output_card_object_string (file, "url")));
  g_ptr_array_add (self->textures, NULL);
  g_string_append (self->plain, name);
  _riv_output_card_fetch_picture (self, 0, file);
}

/* Shows value as the card's kind does. */
static void
show_value (RivOutputCard *self,
            JsonNode      *value)
{
  switch (self->kind)
    {
    case CARD_CHAT:
      _riv_output_card_update_chat (self, value);
      break;
    case CARD_GALLERY:
      _riv_output_card_update_gallery (self, value);
      break;
    case CARD_IMAGE:
      show_image (self, value);
      break;
    case CARD_LABEL:
      _riv_output_card_update_label (self, value);
      break;
    case CARD_TABLE:
      _riv_output_card_update_table (self, value);
      break;
    case CARD_FILE:
      _riv_output_card_update_files (self, value);
      break;
    case CARD_MEDIA:
      _riv_output_card_update_media (self, value);
      break;
    case CARD_PLOT:
      _riv_output_card_update_plot (self, value);
      break;
    case CARD_TEXT:
    case CARD_JSON:
    case CARD_MARKDOWN:
    case CARD_HTML:
    case CARD_OTHER:
    default:
      _riv_output_card_update_text (self, value);
      break;
    }
}

void
riv_output_card_set_value (RivOutputCard *self,
                           JsonNode      *value,
                           RivJob        *job)
{
  g_autoptr(JsonNode) conversation = NULL;

  g_return_if_fail (RIV_IS_OUTPUT_CARD (self));

  if (job != self->job)
    reset_for_job (self, job);
  else if ((value == NULL && self->shown == NULL) ||
           (value != NULL && self->shown != NULL && json_node_equal (value, self->shown)))
    return;

  g_clear_pointer (&self->shown, json_node_unref);
  if (value != NULL)
    self->shown = json_node_copy (value);

  if (value_is_update (value))
    {
      if (!apply_update (self, &value))
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
  show_value (self, value);
}

const char *
riv_output_card_get_label (RivOutputCard *self)
{
  g_return_val_if_fail (RIV_IS_OUTPUT_CARD (self), NULL);

  return self->label;
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
