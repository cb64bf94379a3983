/* riv-output-card-text.c
 * Copyright 2026 The Rivulet authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * An output card's text-like values (HighlightedText in colour), chat bubbles, label bars
 * and tables.
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
  JsonObject *object = _riv_output_card_node_object (content);

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
  if (object != NULL && _riv_output_card_object_string (object, "path") == NULL &&
      _riv_output_card_object_string (object, "url") == NULL)
    {
      /* Gradio 5/6 wrap files in {"file": FileData} or {"component": …}; text
       * parts are {"type": "text", "text": …}, a multimodal message
       * {"text": …, "files": […]}. */
      JsonObject *file = _riv_output_card_node_object (json_object_get_member (object, "file"));
      JsonNode *files = json_object_get_member (object, "files");

      if (file != NULL)
        object = file;
      else if (_riv_output_card_object_string (object, "component") != NULL)
        return g_strdup_printf ("[%s]", _riv_output_card_object_string (object, "component"));
      else if (_riv_output_card_object_string (object, "text") != NULL || files != NULL)
        {
          g_autofree char *names = files != NULL && JSON_NODE_HOLDS_ARRAY (files)
                                     ? message_content_text (files) : NULL;
          const char *text = _riv_output_card_object_string (object, "text");

          if (names == NULL || *names == '\0')
            return g_strdup (text != NULL ? text : "");
          return g_strdup_printf ("%s%s%s", text != NULL ? text : "",
                                  text != NULL && *text != '\0' ? "\n" : "", names);
        }
    }
  if (object != NULL)
    {
      g_autofree char *name = _riv_output_card_file_data_name (object);

      return g_strdup_printf ("📎 %s", name);
    }
  return _riv_output_card_value_to_text (content);
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
          const char *role = _riv_output_card_object_string (message, "role");

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
  GtkLabel *label = _riv_output_card_new_text_label (FALSE);
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

void
_riv_output_card_update_chat (RivOutputCard *self,
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

        _riv_output_card_label_set_markup_safe (label, markup, text);
        g_object_set_data_full (G_OBJECT (g_object_get_data (G_OBJECT (label), "riv-copy")),
                                "riv-text", g_strdup (text), g_free);
      }
    }
}

/* Label */

void
_riv_output_card_update_label (RivOutputCard *self,
                               JsonNode      *value)
{
  JsonObject *object = _riv_output_card_node_object (value);
  JsonNode *confidences = object != NULL ? json_object_get_member (object, "confidences") : NULL;
  JsonArray *array = confidences != NULL && JSON_NODE_HOLDS_ARRAY (confidences)
                       ? json_node_get_array (confidences) : NULL;
  const char *headline = _riv_output_card_object_string (object, "label");
  g_autofree char *text = headline == NULL ? _riv_output_card_value_to_text (value) : NULL;

  _riv_output_card_clear_items (self);
  g_string_assign (self->plain, headline != NULL ? headline : text);
  gtk_label_set_text (self->text_label, self->plain->str);

  for (guint i = 0; array != NULL && i < json_array_get_length (array); i++)
    {
      JsonObject *entry = _riv_output_card_node_object (json_array_get_element (array, i));
      JsonNode *confidence = entry != NULL ? json_object_get_member (entry, "confidence") : NULL;
      double fraction = confidence != NULL && JSON_NODE_HOLDS_VALUE (confidence)
                          ? json_node_get_double (confidence) : 0;
      GtkWidget *row = gtk_box_new (GTK_ORIENTATION_HORIZONTAL, 8);
      GtkWidget *name = gtk_label_new (_riv_output_card_object_string (entry, "label"));
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
                                      _riv_output_card_object_string (entry, "label"), -1);
      gtk_label_set_width_chars (GTK_LABEL (amount), 5);
      gtk_label_set_xalign (GTK_LABEL (amount), 1);
      gtk_widget_add_css_class (amount, "numeric");
      gtk_widget_add_css_class (amount, "dim-label");
      gtk_box_append (GTK_BOX (row), name);
      gtk_box_append (GTK_BOX (row), bar);
      gtk_box_append (GTK_BOX (row), amount);
      gtk_box_append (GTK_BOX (self->content), row);
      g_ptr_array_add (self->items, bar);
      g_string_append_printf (self->plain, "\n%s %s", _riv_output_card_object_string (entry, "label"), percent);
    }
}

/* Dataframe */

void
_riv_output_card_update_table (RivOutputCard *self,
                               JsonNode      *value)
{
  JsonObject *object = _riv_output_card_node_object (value);
  JsonNode *headers = object != NULL ? json_object_get_member (object, "headers") : NULL;
  JsonNode *data = object != NULL ? json_object_get_member (object, "data") : NULL;
  JsonArray *rows = data != NULL && JSON_NODE_HOLDS_ARRAY (data) ? json_node_get_array (data)
                                                                : NULL;
  guint n_rows = rows != NULL ? json_array_get_length (rows) : 0;

  _riv_output_card_clear_items (self);
  g_string_truncate (self->plain, 0);

  if (headers != NULL && JSON_NODE_HOLDS_ARRAY (headers))
    {
      JsonArray *names = json_node_get_array (headers);

      for (guint c = 0; c < json_array_get_length (names); c++)
        {
          g_autofree char *text = _riv_output_card_value_to_text (json_array_get_element (names, c));
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
          g_autofree char *text = _riv_output_card_value_to_text (json_array_get_element (cells, c));
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
  const char *mapped = _riv_output_card_object_string (_riv_output_card_node_object (props != NULL
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
      token_text = _riv_output_card_value_to_text (token);
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
        g_autofree char *kind_text = _riv_output_card_value_to_text (kind);

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

void
_riv_output_card_update_text (RivOutputCard *self,
                              JsonNode      *value)
{
  g_autofree char *text = NULL;
  g_autofree char *markup = NULL;

  switch (self->kind)
    {
    case CARD_MARKDOWN:
      text = _riv_output_card_value_to_text (value);
      markup = riv_markup_from_markdown (text);
      break;
    case CARD_HTML:
      text = _riv_output_card_value_to_text (value);
      markup = riv_markup_from_html (text);
      break;
    case CARD_JSON:
    case CARD_OTHER:
      text = _riv_output_card_value_to_pretty_json (value);
      break;
    case CARD_TEXT:
      if (g_strcmp0 (self->type, "highlightedtext") == 0)
        {
          g_string_truncate (self->plain, 0);
          markup = highlighted_markup (value, self->props, self->plain);
          _riv_output_card_label_set_markup_safe (self->text_label, markup, self->plain->str);
          return;
        }
      text = _riv_output_card_value_to_text (value);
      break;
    default:
      g_assert_not_reached ();
    }

  g_string_assign (self->plain, text);
  if (markup != NULL)
    _riv_output_card_label_set_markup_safe (self->text_label, markup, text);
  else
    gtk_label_set_text (self->text_label, text);
}
