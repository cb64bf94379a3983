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
#include "riv-json.h"

const char *
_riv_form_component_title (RivComponent *component)
{
  if (component->label != NULL && *component->label != '\0')
    return component->label;
  return component->type != NULL ? component->type : _("Input");
}

gboolean
_riv_form_is_integral (double value)
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

char *
_riv_form_node_to_display (JsonNode *node)
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

          name = _riv_form_node_to_display (display);
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

/* Row builders */

static void
entry_activated_cb (AdwEntryRow *row,
                    RivForm     *self)
{
  _riv_form_emit_activate (self);
}

/* A row holding a caption (the input's title, with room for buttons at
 * its end) over an editor of several widgets, and a line for what is wrong. */
GtkWidget *
_riv_form_box_row_new (Input      *input,
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
void
_riv_form_list_add_placeholder (Input      *input,
                      GtkWidget  *box,
                      const char *text)
{
  input->placeholder = gtk_label_new (text);
  gtk_label_set_xalign (GTK_LABEL (input->placeholder), 0);
  gtk_label_set_wrap (GTK_LABEL (input->placeholder), TRUE);
  gtk_widget_add_css_class (input->placeholder, "dim-label");
  gtk_box_append (GTK_BOX (box), input->placeholder);
}

void
_riv_form_list_update_placeholder (Input *input)
{
  if (input->placeholder != NULL)
    gtk_widget_set_visible (input->placeholder, gtk_widget_get_first_child (input->list) == NULL);
}

/* The line under a box row's editor saying why its value cannot be sent. */
void
_riv_form_box_row_add_error_label (Input     *input,
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
GtkWidget *
_riv_form_icon_button_new (const char *icon_name,
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
build_text_row (Input *input)
{
  RivComponent *component = input->component;
  g_autofree char *text = _riv_form_node_to_display (component->value);
  const char *placeholder = riv_json_get_string (component->props, "placeholder");

  if (component->lines > 1)
    {
      GtkWidget *box;
      GtkWidget *row = _riv_form_box_row_new (input, &box, NULL);

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
                               input->form, 0);
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
  while (digits < 6 && !_riv_form_is_integral (step * pow (10, digits)))
    digits++;
  if (!_riv_form_is_integral (value))
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
    input->integer = precision < 0 && _riv_form_is_integral (step) && _riv_form_is_integral (value) &&
                     (!component->has_minimum || _riv_form_is_integral (min));

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
  input->integer = _riv_form_is_integral (step) && _riv_form_is_integral (min);

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

gboolean
_riv_form_parse_cell_number (const char *text,
                   double     *value)
{
  char *end = NULL;

  *value = g_ascii_strtod (text, &end);
  return end != text && *end == '\0' && isfinite (*value);
}

/* Marks the field and says why next to it. */
void
_riv_form_input_show_check (Input *input)
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

void
_riv_form_input_changed_cb (gpointer user_data)
{
  _riv_form_input_show_check (user_data);
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
  g_signal_connect_swapped (row, "changed", G_CALLBACK (_riv_form_input_changed_cb), input);
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
  GtkWidget *row = _riv_form_box_row_new (input, &box, NULL);
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
    text = _riv_form_node_to_display (value);

  row = checked_entry_row_new (input, text, NULL);
  gtk_widget_set_tooltip_text (row,
                               input->include_time
                               ? _("YYYY-MM-DD HH:MM:SS, or “now”, “now - 30m”, “now - 2d”")
                               : _("YYYY-MM-DD, or “now”, “now - 2d”"));
  g_signal_connect_object (row, "entry-activated", G_CALLBACK (entry_activated_cb),
                           input->form, 0);
  input->kind = RIV_FORM_INPUT_DATETIME;
  _riv_form_input_show_check (input);
  return row;
}

/* Code */

static GtkWidget *
build_code_row (Input *input)
{
  const char *language = riv_json_get_string (input->component->props, "language");
  g_autofree char *text = _riv_form_node_to_display (input->component->value);
  GtkWidget *box;
  GtkWidget *header;
  GtkWidget *row = _riv_form_box_row_new (input, &box, &header);
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

/* Any component without an editor of its own: its value as JSON, its
 * default prefilled, marked in red while it does not parse. */
static GtkWidget *
build_json_row (Input *input)
{
  RivComponent *component = input->component;
  g_autofree char *text = component->value != NULL ? riv_json_to_string (component->value, NULL)
                                                   : g_strdup ("null");
  const RivParameter *parameter = input->parameter;
  g_autofree char *badge = NULL;
  GtkWidget *row;

  /* A typed parameter's badge is its Python type (and whether it is required). */
  if (parameter != NULL)
    badge = parameter->has_default || parameter->python_type == NULL
              ? g_strdup (parameter->python_type != NULL ? parameter->python_type : "json")
              : g_strdup_printf (_("%s · required"), parameter->python_type);
  else
    badge = g_strdup (component->type != NULL ? component->type : "?");
  row = checked_entry_row_new (input, text, badge);

  gtk_widget_add_css_class (row, "monospace");
  input->kind = RIV_FORM_INPUT_JSON;
  return row;
}

/* The editors by component type; the kind each sets picks its row in
 * `editors` below. */

static GtkWidget *
build_file_row (Input *input)
{
  const char *count = riv_json_get_string (input->component->props, "file_count");

  /* Several files ("multiple", "directory"): a list, each uploaded. */
  if (count != NULL && !g_str_equal (count, "single"))
    return _riv_form_build_files_row (input);
  /* One file, uploaded through /upload like an image. */
  input->any_file = TRUE;
  return _riv_form_build_image_row (input);
}

static GtkWidget *
build_media_row (Input *input)
{
  input->any_file = TRUE;
  return _riv_form_build_image_row (input);
}

static const struct
{
  const char *type;
  GtkWidget *(*build) (Input *input);
} builders[] = {
  { "textbox", build_text_row },
  { "text", build_text_row },
  { "textarea", build_text_row },
  { "number", build_number_row },
  { "slider", build_slider_row },
  { "checkbox", build_checkbox_row },
  { "dropdown", build_dropdown_row },
  { "radio", build_radio_row },
  { "image", _riv_form_build_image_row },
  { "file", build_file_row },
  { "audio", build_media_row },
  { "video", build_media_row },
  { "multimodaltextbox", _riv_form_build_multimodal_row },
  { "chatbot", _riv_form_build_chatbot_row },
  { "checkboxgroup", build_checkbox_group_row },
  { "colorpicker", build_color_row },
  { "datetime", build_datetime_row },
  { "dataframe", _riv_form_build_dataframe_row },
  { "code", build_code_row },
};

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
  for (guint i = 0; i < G_N_ELEMENTS (builders); i++)
    if (g_str_equal (type, builders[i].type))
      return builders[i].build (input);
  /* Any other component: its value as JSON. */
  return build_json_row (input);
}

/* Reading and setting values, one editor a kind */

static JsonNode *
number_node (double   value,
             gboolean integer)
{
  if (integer)
    return json_node_init_int (json_node_alloc (), (gint64) llround (value));
  return json_node_init_double (json_node_alloc (), value);
}

static JsonNode *
entry_dup (Input *input)
{
  return json_node_init_string (json_node_alloc (),
                                gtk_editable_get_text (GTK_EDITABLE (input->widget)));
}

static gboolean
entry_set (Input    *input,
           JsonNode *value)
{
  g_autofree char *text = _riv_form_node_to_display (value);

  gtk_editable_set_text (GTK_EDITABLE (input->widget), text);
  return TRUE;
}

static JsonNode *
text_view_dup (Input *input)
{
  g_autofree char *text = text_view_dup_text (input->widget);

  return json_node_init_string (json_node_alloc (), text);
}

static gboolean
text_view_set (Input    *input,
               JsonNode *value)
{
  g_autofree char *text = _riv_form_node_to_display (value);

  gtk_text_buffer_set_text (gtk_text_view_get_buffer (GTK_TEXT_VIEW (input->widget)), text, -1);
  return TRUE;
}

static gboolean
holds_number (JsonNode *value)
{
  GType type = JSON_NODE_HOLDS_VALUE (value) ? json_node_get_value_type (value) : G_TYPE_INVALID;

  return type == G_TYPE_INT64 || type == G_TYPE_DOUBLE;
}

static gboolean
holds_type (JsonNode *value,
            GType     type)
{
  return JSON_NODE_HOLDS_VALUE (value) && json_node_get_value_type (value) == type;
}

static JsonNode *
spin_dup (Input *input)
{
  return number_node (gtk_spin_button_get_value (GTK_SPIN_BUTTON (input->widget)), input->integer);
}

static gboolean
spin_set (Input    *input,
          JsonNode *value)
{
  if (!holds_number (value))
    return FALSE;
  gtk_spin_button_set_value (GTK_SPIN_BUTTON (input->widget), json_node_get_double (value));
  return TRUE;
}

static JsonNode *
slider_dup (Input *input)
{
  return number_node (gtk_range_get_value (GTK_RANGE (input->widget)), input->integer);
}

static gboolean
slider_set (Input    *input,
            JsonNode *value)
{
  if (!holds_number (value))
    return FALSE;
  gtk_range_set_value (GTK_RANGE (input->widget), json_node_get_double (value));
  return TRUE;
}

static JsonNode *
switch_dup (Input *input)
{
  return json_node_init_boolean (json_node_alloc (), gtk_switch_get_active (GTK_SWITCH (input->widget)));
}

static gboolean
switch_set (Input    *input,
            JsonNode *value)
{
  if (!holds_type (value, G_TYPE_BOOLEAN))
    return FALSE;
  gtk_switch_set_active (GTK_SWITCH (input->widget), json_node_get_boolean (value));
  return TRUE;
}

/* The chosen position of a dropdown or a radio group, or GTK_INVALID_LIST_POSITION. */
static guint
choice_get_selected (Input *input)
{
  guint selected = GTK_INVALID_LIST_POSITION, i = 0;

  if (input->kind == RIV_FORM_INPUT_DROPDOWN)
    return adw_combo_row_get_selected (ADW_COMBO_ROW (input->widget));
  for (GtkWidget *child = gtk_widget_get_first_child (input->widget);
       child != NULL; child = gtk_widget_get_next_sibling (child), i++)
    if (gtk_check_button_get_active (GTK_CHECK_BUTTON (child)))
      selected = i;
  return selected;
}

static void
choice_set_selected (Input *input,
                     guint  position)
{
  GtkWidget *child;

  if (input->kind == RIV_FORM_INPUT_DROPDOWN)
    {
      adw_combo_row_set_selected (ADW_COMBO_ROW (input->widget), position);
      return;
    }
  child = gtk_widget_get_first_child (input->widget);
  for (guint j = 0; j < position && child != NULL; j++)
    child = gtk_widget_get_next_sibling (child);
  if (child != NULL)
    gtk_check_button_set_active (GTK_CHECK_BUTTON (child), TRUE);
}

static JsonNode *
choice_dup (Input *input)
{
  guint selected = choice_get_selected (input);
  JsonNode *value;
  g_autoptr(JsonArray) array = NULL;

  if (selected == GTK_INVALID_LIST_POSITION || selected >= input->choice_values->len)
    return json_node_init_null (json_node_alloc ());
  value = json_node_copy (g_ptr_array_index (input->choice_values, selected));
  if (!input->multiselect)
    return value;
  array = json_array_new ();
  json_array_add_element (array, value);
  return json_node_init_array (json_node_alloc (), array);
}

static gboolean
choice_set (Input    *input,
            JsonNode *value)
{
  JsonNode *wanted = value;

  if (JSON_NODE_HOLDS_ARRAY (value) && json_array_get_length (json_node_get_array (value)) > 0)
    wanted = json_array_get_element (json_node_get_array (value), 0);
  for (guint i = 0; i < input->choice_values->len; i++)
    if (nodes_equal (wanted, g_ptr_array_index (input->choice_values, i)))
      {
        choice_set_selected (input, i);
        return TRUE;
      }
  return FALSE;
}

static JsonNode *
color_dup (Input *input)
{
  GdkRGBA rgba;
  g_autofree char *hex = NULL;

  gtk_color_chooser_get_rgba (GTK_COLOR_CHOOSER (input->widget), &rgba);
  hex = rgba_to_hex (&rgba);
  return json_node_init_string (json_node_alloc (), hex);
}

static gboolean
color_set (Input    *input,
           JsonNode *value)
{
  GdkRGBA rgba;

  if (!holds_type (value, G_TYPE_STRING) || !gdk_rgba_parse (&rgba, json_node_get_string (value)))
    return FALSE;
  rgba.alpha = 1;
  gtk_color_chooser_set_rgba (GTK_COLOR_CHOOSER (input->widget), &rgba);
  return TRUE;
}

static JsonNode *
check_group_dup (Input *input)
{
  g_autoptr(JsonArray) chosen = json_array_new ();

  for (guint i = 0; i < input->checks->len; i++)
    if (gtk_check_button_get_active (g_ptr_array_index (input->checks, i)))
      json_array_add_element (chosen, json_node_copy (g_ptr_array_index (input->choice_values, i)));
  return json_node_init_array (json_node_alloc (), chosen);
}

/* Whether node is one of the input's choices. */
static gboolean
is_choice (Input    *input,
           JsonNode *node)
{
  for (guint i = 0; i < input->choice_values->len; i++)
    if (nodes_equal (node, g_ptr_array_index (input->choice_values, i)))
      return TRUE;
  return FALSE;
}

static gboolean
check_group_set (Input    *input,
                 JsonNode *value)
{
  JsonArray *chosen;

  if (!JSON_NODE_HOLDS_ARRAY (value))
    return FALSE;
  chosen = json_node_get_array (value);
  for (guint j = 0; j < json_array_get_length (chosen); j++)
    if (!is_choice (input, json_array_get_element (chosen, j)))
      return FALSE;
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

static JsonNode *
files_dup (Input *input)
{
  g_autoptr(JsonArray) files = _riv_form_files_dup_array (input);

  return json_node_init_array (json_node_alloc (), files);
}

static JsonNode *
multimodal_dup (Input *input)
{
  g_autoptr(JsonObject) object = json_object_new ();

  json_object_set_string_member (object, "text", gtk_editable_get_text (GTK_EDITABLE (input->text)));
  json_object_set_array_member (object, "files", _riv_form_files_dup_array (input));
  return json_node_init_object (json_node_alloc (), object);
}

static gboolean
multimodal_set (Input    *input,
                JsonNode *value)
{
  JsonObject *object = JSON_NODE_HOLDS_OBJECT (value) ? json_node_get_object (value) : NULL;
  JsonNode *files = object != NULL ? json_object_get_member (object, "files") : NULL;
  const char *text = object != NULL ? riv_json_get_string (object, "text") : NULL;

  if (object == NULL || (files != NULL && !JSON_NODE_HOLDS_NULL (files) &&
                         !_riv_form_files_fill (input, files)))
    return FALSE;
  gtk_editable_set_text (GTK_EDITABLE (input->text), text != NULL ? text : "");
  return TRUE;
}

/* What the form was given (riv_form_set_data), else the component's default. */
static JsonNode *
given_dup (Input *input)
{
  if (input->override != NULL)
    return json_node_copy (input->override);
  if (input->component->value != NULL)
    return json_node_copy (input->component->value);
  return json_node_init_null (json_node_alloc ());
}

static gboolean
given_set (Input    *input,
           JsonNode *value)
{
  g_clear_pointer (&input->override, json_node_unref);
  input->override = json_node_copy (value);
  return TRUE;
}

static JsonNode *
json_dup (Input *input)
{
  JsonNode *node = riv_json_parse (NULL, gtk_editable_get_text (GTK_EDITABLE (input->widget)),
                                   -1, 64, NULL);

  /* What does not parse sends the default (the row is marked). */
  if (node != NULL)
    return node;
  return input->component->value != NULL ? json_node_copy (input->component->value)
                                          : json_node_init_null (json_node_alloc ());
}

static gboolean
json_set (Input    *input,
          JsonNode *value)
{
  g_autofree char *text = riv_json_to_string (value, NULL);

  gtk_editable_set_text (GTK_EDITABLE (input->widget), text);
  return TRUE;
}

static JsonNode *
image_dup (Input *input)
{
  if (input->image_path != NULL)
    return _riv_form_file_data_node (input->image_path,
                                     input->image_name != NULL ? input->image_name : "image", -1, NULL);
  return given_dup (input);
}

/* An absolute path is uploaded; a FileData object is sent as it is. */
static gboolean
image_set (Input    *input,
           JsonNode *value)
{
  if (holds_type (value, G_TYPE_STRING) && g_path_is_absolute (json_node_get_string (value)))
    {
      g_autoptr(GFile) file = g_file_new_for_path (json_node_get_string (value));

      _riv_form_image_use_file (input, file);
      return TRUE;
    }
  if (JSON_NODE_HOLDS_OBJECT (value) && riv_client_is_file_data (json_node_get_object (value)))
    {
      _riv_form_image_use_given (input, value);
      return TRUE;
    }
  return JSON_NODE_HOLDS_OBJECT (value) && given_set (input, value);
}

static JsonNode *
null_dup (Input *input)
{
  return json_node_init_null (json_node_alloc ());
}

static gboolean
ignore_set (Input    *input,
            JsonNode *value)
{
  return TRUE;
}

static char *
json_check (Input *input)
{
  if (!is_json_entry_valid (gtk_editable_get_text (GTK_EDITABLE (input->widget))))
    return g_strdup (_("not valid JSON"));
  return NULL;
}

static char *
datetime_check (Input *input)
{
  if (is_datetime_valid (gtk_editable_get_text (GTK_EDITABLE (input->widget)), input->include_time))
    return NULL;
  return g_strdup (input->include_time
                   ? _("not a date: use YYYY-MM-DD HH:MM:SS or “now - 1h”")
                   : _("not a date: use YYYY-MM-DD or “now - 1d”"));
}

static char *
dataframe_check (Input *input)
{
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
              !_riv_form_parse_cell_number (text, &value))
            /* Translators: a dataframe's row number, then its column's header */
            return g_strdup_printf (_("row %d, column “%s”: not a number"), row,
                                    (const char *) g_ptr_array_index (input->headers, col));
        }
    }
  return NULL;
}

static char *
files_check (Input *input)
{
  for (guint i = 0; i < input->files->len; i++)
    {
      FileItem *item = g_ptr_array_index (input->files, i);

      /* Not uploading, not on the server, not given: its upload failed. */
      if (item->cancellable == NULL && item->path == NULL && item->given == NULL)
        /* Translators: a file name */
        return g_strdup_printf (_("%s could not be uploaded: remove it or add it again"), item->name);
    }
  return NULL;
}

/* One editor a kind: its value read, a value set (FALSE when it does not fit;
 * null never reaches it), and why its value cannot be sent (NULL: it can;
 * no function: it always can). */
static const struct
{
  JsonNode *(*dup_value) (Input *input);
  gboolean  (*set_value) (Input *input, JsonNode *value);
  char     *(*check)     (Input *input);
} editors[] = {
  [RIV_FORM_INPUT_TEXT]           = { entry_dup, entry_set, NULL },
  [RIV_FORM_INPUT_TEXT_MULTI]     = { text_view_dup, text_view_set, NULL },
  [RIV_FORM_INPUT_NUMBER]         = { spin_dup, spin_set, NULL },
  [RIV_FORM_INPUT_SLIDER]         = { slider_dup, slider_set, NULL },
  [RIV_FORM_INPUT_CHECKBOX]       = { switch_dup, switch_set, NULL },
  [RIV_FORM_INPUT_DROPDOWN]       = { choice_dup, choice_set, NULL },
  [RIV_FORM_INPUT_RADIO]          = { choice_dup, choice_set, NULL },
  [RIV_FORM_INPUT_IMAGE]          = { image_dup, image_set, NULL },
  [RIV_FORM_INPUT_STATE]          = { null_dup, ignore_set, NULL },
  [RIV_FORM_INPUT_UNSUPPORTED]    = { given_dup, given_set, NULL },
  [RIV_FORM_INPUT_JSON]           = { json_dup, json_set, json_check },
  [RIV_FORM_INPUT_CHATBOT]        = { _riv_form_chat_dup_value, _riv_form_chat_fill, NULL },
  [RIV_FORM_INPUT_MULTIMODAL]     = { multimodal_dup, multimodal_set, files_check },
  [RIV_FORM_INPUT_FILES]          = { files_dup, _riv_form_files_fill, files_check },
  [RIV_FORM_INPUT_CHECKBOX_GROUP] = { check_group_dup, check_group_set, NULL },
  [RIV_FORM_INPUT_COLOR]          = { color_dup, color_set, NULL },
  [RIV_FORM_INPUT_DATETIME]       = { entry_dup, entry_set, datetime_check },
  [RIV_FORM_INPUT_DATAFRAME]      = { _riv_form_dataframe_dup_value, _riv_form_dataframe_fill,
                                      dataframe_check },
  [RIV_FORM_INPUT_CODE]           = { text_view_dup, text_view_set, NULL },
};
G_STATIC_ASSERT (G_N_ELEMENTS (editors) == RIV_FORM_INPUT_CODE + 1);

JsonNode *
_riv_form_input_dup_value (Input *input)
{
  return editors[input->kind].dup_value (input);
}

gboolean
_riv_form_input_set_value (Input     *input,
                           guint      position,
                           JsonNode  *value,
                           GError   **error)
{
  g_autofree char *shown = NULL;

  if (value == NULL || JSON_NODE_HOLDS_NULL (value) || editors[input->kind].set_value (input, value))
    return TRUE;

  shown = riv_json_to_string (value, NULL);
  g_set_error (error, RIV_CLIENT_ERROR, RIV_CLIENT_ERROR_BAD_INPUT,
               _("Value %u (%s) does not fit the input “%s”"),
               position + 1, shown, _riv_form_component_title (input->component));
  return FALSE;
}

char *
_riv_form_input_check (Input *input)
{
  return editors[input->kind].check != NULL ? editors[input->kind].check (input) : NULL;
}
