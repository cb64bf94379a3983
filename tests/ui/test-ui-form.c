/* test-ui-form.c
 * Copyright 2026 The Rivulet authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The form builder: each supported component type of a config fixture yields
 * the right widget with the right range, choices and default; an unknown type
 * yields a disabled row naming it; the form produces the right data array.
 */
#include "config.h"

#include <adwaita.h>

#include "riv-burst.h"
#include "riv-form.h"
#include "riv-job-private.h"
#include "riv-json.h"
#include "riv-output-view-test.h"
#include "riv-test-util.h"
#include "riv-ui-test-util.h"

typedef struct
{
  RivConfig *config;
  GtkWidget *window;
  RivForm   *form;
} Fixture;

enum {
  IN_TEXT, IN_STORY, IN_TEMPERATURE, IN_SEED, IN_STEPS, IN_UPSCALE, IN_COLOUR, IN_SIZE,
  IN_IMAGE, IN_VOICE, IN_STATE, N_INPUTS
};

static void
fixture_setup (Fixture       *fixture,
               gconstpointer  user_data)
{
  g_autofree char *path = g_test_build_filename (G_TEST_DIST, "ui", "data", "form-config.json", NULL);
  g_autofree char *contents = NULL;
  g_autoptr(GError) error = NULL;
  gsize length;

  g_file_get_contents (path, &contents, &length, &error);
  g_assert_no_error (error);
  fixture->config = riv_config_new_from_data (contents, (gssize) length, "http://127.0.0.1:9", &error);
  g_assert_no_error (error);
  g_assert_nonnull (fixture->config);

  fixture->window = gtk_window_new ();
  fixture->form = RIV_FORM (riv_form_new ());
  gtk_window_set_child (GTK_WINDOW (fixture->window), GTK_WIDGET (fixture->form));
  riv_form_set_endpoint (fixture->form, fixture->config,
                         riv_config_find_endpoint (fixture->config, "everything"));
}

static void
fixture_teardown (Fixture       *fixture,
                  gconstpointer  user_data)
{
  gtk_window_destroy (GTK_WINDOW (fixture->window));
  g_clear_pointer (&fixture->config, riv_config_unref);
}

static char *
data_json (RivForm *form)
{
  g_autoptr(JsonNode) data = riv_form_dup_data (form);

  return riv_json_to_string (data, NULL);
}

static void
test_form_widgets (Fixture       *fixture,
                   gconstpointer  user_data)
{
  RivForm *form = fixture->form;
  GtkWidget *widget;
  GtkAdjustment *adjustment;
  GListModel *choices;
  GtkTextBuffer *buffer;
  GtkTextIter start, end;
  g_autofree char *story = NULL;
  GtkWidget *radio;
  guint n_radios = 0;

  g_assert_cmpuint (riv_form_get_n_inputs (form), ==, N_INPUTS);

  /* Single-line textbox: an entry row titled with the label, holding the default. */
  g_assert_cmpint (riv_form_get_input_kind (form, IN_TEXT), ==, RIV_FORM_INPUT_TEXT);
  widget = riv_form_get_input_widget (form, IN_TEXT);
  g_assert_true (ADW_IS_ENTRY_ROW (widget));
  g_assert_cmpstr (adw_preferences_row_get_title (ADW_PREFERENCES_ROW (widget)), ==, "Prompt");
  g_assert_cmpstr (gtk_editable_get_text (GTK_EDITABLE (widget)), ==, "hello {i}");

  /* lines > 1: a multi-line text view. */
  g_assert_cmpint (riv_form_get_input_kind (form, IN_STORY), ==, RIV_FORM_INPUT_TEXT_MULTI);
  widget = riv_form_get_input_widget (form, IN_STORY);
  g_assert_true (GTK_IS_TEXT_VIEW (widget));
  buffer = gtk_text_view_get_buffer (GTK_TEXT_VIEW (widget));
  gtk_text_buffer_get_bounds (buffer, &start, &end);
  story = gtk_text_buffer_get_text (buffer, &start, &end, FALSE);
  g_assert_cmpstr (story, ==, "line one\nline two");

  /* Number with a range and a step. */
  g_assert_cmpint (riv_form_get_input_kind (form, IN_TEMPERATURE), ==, RIV_FORM_INPUT_NUMBER);
  widget = riv_form_get_input_widget (form, IN_TEMPERATURE);
  g_assert_true (GTK_IS_SPIN_BUTTON (widget));
  adjustment = gtk_spin_button_get_adjustment (GTK_SPIN_BUTTON (widget));
  g_assert_cmpfloat (gtk_adjustment_get_lower (adjustment), ==, 0);
  g_assert_cmpfloat (gtk_adjustment_get_upper (adjustment), ==, 100);
  g_assert_cmpfloat (gtk_adjustment_get_step_increment (adjustment), ==, 0.5);
  g_assert_cmpfloat (gtk_spin_button_get_value (GTK_SPIN_BUTTON (widget)), ==, 2.5);

  /* Number with precision 0 and no range. */
  widget = riv_form_get_input_widget (form, IN_SEED);
  g_assert_true (GTK_IS_SPIN_BUTTON (widget));
  g_assert_cmpuint (gtk_spin_button_get_digits (GTK_SPIN_BUTTON (widget)), ==, 0);
  g_assert_cmpfloat (gtk_spin_button_get_value (GTK_SPIN_BUTTON (widget)), ==, 7);

  /* Slider: the config's range, step and default. */
  g_assert_cmpint (riv_form_get_input_kind (form, IN_STEPS), ==, RIV_FORM_INPUT_SLIDER);
  widget = riv_form_get_input_widget (form, IN_STEPS);
  g_assert_true (GTK_IS_SCALE (widget));
  adjustment = gtk_range_get_adjustment (GTK_RANGE (widget));
  g_assert_cmpfloat (gtk_adjustment_get_lower (adjustment), ==, 1);
  g_assert_cmpfloat (gtk_adjustment_get_upper (adjustment), ==, 50);
  g_assert_cmpfloat (gtk_adjustment_get_step_increment (adjustment), ==, 1);
  g_assert_cmpfloat (gtk_range_get_value (GTK_RANGE (widget)), ==, 10);

  /* Checkbox: a switch, on by default here. */
  g_assert_cmpint (riv_form_get_input_kind (form, IN_UPSCALE), ==, RIV_FORM_INPUT_CHECKBOX);
  widget = riv_form_get_input_widget (form, IN_UPSCALE);
  g_assert_true (GTK_IS_SWITCH (widget));
  g_assert_true (gtk_switch_get_active (GTK_SWITCH (widget)));

  /* Dropdown: the display names of [display, value] pairs, default selected. */
  g_assert_cmpint (riv_form_get_input_kind (form, IN_COLOUR), ==, RIV_FORM_INPUT_DROPDOWN);
  widget = riv_form_get_input_widget (form, IN_COLOUR);
  g_assert_true (ADW_IS_COMBO_ROW (widget));
  choices = adw_combo_row_get_model (ADW_COMBO_ROW (widget));
  g_assert_cmpuint (g_list_model_get_n_items (choices), ==, 3);
  g_assert_cmpstr (gtk_string_list_get_string (GTK_STRING_LIST (choices), 0), ==, "Red");
  g_assert_cmpstr (gtk_string_list_get_string (GTK_STRING_LIST (choices), 2), ==, "Blue");
  g_assert_cmpuint (adw_combo_row_get_selected (ADW_COMBO_ROW (widget)), ==, 1);

  /* Radio: one grouped check button per choice, the default active. */
  g_assert_cmpint (riv_form_get_input_kind (form, IN_SIZE), ==, RIV_FORM_INPUT_RADIO);
  widget = riv_form_get_input_widget (form, IN_SIZE);
  for (radio = gtk_widget_get_first_child (widget); radio != NULL;
       radio = gtk_widget_get_next_sibling (radio), n_radios++)
    {
      g_assert_true (GTK_IS_CHECK_BUTTON (radio));
      g_assert_cmpint (gtk_check_button_get_active (GTK_CHECK_BUTTON (radio)), ==, n_radios == 2);
    }
  g_assert_cmpuint (n_radios, ==, 3);

  /* Image: a row with a file chooser and drop target. */
  g_assert_cmpint (riv_form_get_input_kind (form, IN_IMAGE), ==, RIV_FORM_INPUT_IMAGE);
  widget = riv_form_get_input_row (form, IN_IMAGE);
  g_assert_true (ADW_IS_ACTION_ROW (widget));
  g_assert_cmpstr (adw_preferences_row_get_title (ADW_PREFERENCES_ROW (widget)), ==, "Init image");
  g_assert_true (gtk_widget_get_sensitive (widget));

  /* A type without an editor of its own: a JSON entry, its default
   * prefilled, editable, marked while it does not parse. */
  g_assert_cmpint (riv_form_get_input_kind (form, IN_VOICE), ==, RIV_FORM_INPUT_JSON);
  widget = riv_form_get_input_row (form, IN_VOICE);
  g_assert_true (ADW_IS_ENTRY_ROW (widget));
  g_assert_true (gtk_widget_get_sensitive (widget));
  g_assert_cmpstr (adw_preferences_row_get_title (ADW_PREFERENCES_ROW (widget)), ==, "Mesh");
  g_assert_cmpstr (gtk_editable_get_text (GTK_EDITABLE (widget)), ==, "null");
  gtk_editable_set_text (GTK_EDITABLE (widget), "{\"path\": \"clip {i}.wav\"");
  g_assert_true (gtk_widget_has_css_class (widget, "error"));
  gtk_editable_set_text (GTK_EDITABLE (widget), "{\"path\": \"clip {i}.wav\"}");
  g_assert_false (gtk_widget_has_css_class (widget, "error"));
  {
    g_autoptr(JsonNode) data = riv_form_dup_data (form);
    JsonNode *voice = json_array_get_element (json_node_get_array (data), IN_VOICE);

    g_assert_true (JSON_NODE_HOLDS_OBJECT (voice));
    g_assert_cmpstr (json_object_get_string_member (json_node_get_object (voice), "path"), ==,
                     "clip {i}.wav");
  }
  g_assert_true (gtk_widget_get_parent (widget) != NULL);

  /* State inputs have no row. */
  g_assert_cmpint (riv_form_get_input_kind (form, IN_STATE), ==, RIV_FORM_INPUT_STATE);
  g_assert_null (riv_form_get_input_row (form, IN_STATE));
}

static void
test_form_data (Fixture       *fixture,
                gconstpointer  user_data)
{
  RivForm *form = fixture->form;
  g_autofree char *defaults = data_json (form);
  g_autofree char *edited = NULL;
  GtkWidget *radio;

  /* Defaults: one value per input, typed as the server expects. */
  g_assert_cmpstr (defaults, ==,
                   "[\"hello {i}\",\"line one\\nline two\",2.5,7,10,true,\"g\",\"large\","
                   "null,null,null]");

  gtk_editable_set_text (GTK_EDITABLE (riv_form_get_input_widget (form, IN_TEXT)), "a cat {i}");
  gtk_spin_button_set_value (GTK_SPIN_BUTTON (riv_form_get_input_widget (form, IN_TEMPERATURE)), 4);
  gtk_range_set_value (GTK_RANGE (riv_form_get_input_widget (form, IN_STEPS)), 33);
  gtk_switch_set_active (GTK_SWITCH (riv_form_get_input_widget (form, IN_UPSCALE)), FALSE);
  adw_combo_row_set_selected (ADW_COMBO_ROW (riv_form_get_input_widget (form, IN_COLOUR)), 2);
  radio = gtk_widget_get_first_child (riv_form_get_input_widget (form, IN_SIZE));
  gtk_check_button_set_active (GTK_CHECK_BUTTON (radio), TRUE);

  edited = data_json (form);
  g_assert_cmpstr (edited, ==,
                   "[\"a cat {i}\",\"line one\\nline two\",4.0,7,33,false,\"b\",\"small\","
                   "null,null,null]");
}

static void
test_form_set_data (Fixture       *fixture,
                    gconstpointer  user_data)
{
  RivForm *form = fixture->form;
  g_autoptr(JsonNode) data = NULL;
  g_autoptr(JsonNode) bad = NULL;
  g_autoptr(JsonNode) too_long = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *json = NULL;
  const char *file_data = "{\"path\":\"/tmp/x.png\",\"meta\":{\"_type\":\"gradio.FileData\"}}";
  g_autofree char *text = g_strdup_printf ("[\"from cli\",\"a\\nb\",99.5,-3,50,false,\"r\",\"medium\",%s]",
                                           file_data);

  data = riv_json_parse (NULL, text, -1, 0, &error);
  g_assert_no_error (error);
  g_assert_true (riv_form_set_data (form, data, &error));
  g_assert_no_error (error);

  json = data_json (form);
  g_assert_cmpstr (json, ==,
                   "[\"from cli\",\"a\\nb\",99.5,-3,50,false,\"r\",\"medium\","
                   "{\"path\":\"/tmp/x.png\",\"meta\":{\"_type\":\"gradio.FileData\"}},null,null]");

  /* A value that does not fit an input is refused with a message naming it. */
  bad = riv_json_parse (NULL, "[\"ok\",\"ok\",\"not a number\"]", -1, 0, &error);
  g_assert_no_error (error);
  g_assert_false (riv_form_set_data (form, bad, &error));
  g_assert_error (error, RIV_CLIENT_ERROR, RIV_CLIENT_ERROR_BAD_INPUT);
  g_assert_nonnull (strstr (error->message, "Temperature"));
  g_clear_error (&error);

  too_long = riv_json_parse (NULL, "[1,2,3,4,5,6,7,8,9,10,11,12]", -1, 0, &error);
  g_assert_no_error (error);
  g_assert_false (riv_form_set_data (form, too_long, &error));
  g_assert_error (error, RIV_CLIENT_ERROR, RIV_CLIENT_ERROR_BAD_INPUT);
}

static void
test_form_placeholder (Fixture       *fixture,
                       gconstpointer  user_data)
{
  g_autoptr(JsonNode) data = riv_form_dup_data (fixture->form);
  g_autoptr(JsonNode) third = NULL;
  g_autofree char *json = NULL;

  g_assert_true (riv_burst_has_placeholder (data));
  third = riv_burst_substitute_index (data, 3);
  json = riv_json_to_string (third, NULL);
  g_assert_true (g_str_has_prefix (json, "[\"hello 3\",\"line one\\nline two\",2.5,"));
  /* The template itself is untouched. */
  g_assert_true (riv_burst_has_placeholder (data));
}

static void
test_form_empty (void)
{
  GtkWidget *window = gtk_window_new ();
  RivForm *form = RIV_FORM (riv_form_new ());
  g_autoptr(JsonNode) data = NULL;
  g_autofree char *json = NULL;

  gtk_window_set_child (GTK_WINDOW (window), GTK_WIDGET (form));
  riv_form_set_endpoint (form, NULL, NULL);
  g_assert_cmpuint (riv_form_get_n_inputs (form), ==, 0);
  data = riv_form_dup_data (form);
  json = riv_json_to_string (data, NULL);
  g_assert_cmpstr (json, ==, "[]");
  gtk_window_destroy (GTK_WINDOW (window));
}

/* File, audio and video inputs get the upload row images have (chooser,
 * drop, /upload), worded for files, and send a FileData once set. */
static void
test_form_file_inputs (void)
{
  static const char config_json[] =
    "{\"version\":\"5.0.0\",\"protocol\":\"sse_v3\",\"api_prefix\":\"/gradio_api\","
    "\"components\":["
    "{\"id\":1,\"type\":\"file\",\"props\":{\"label\":\"Document\",\"value\":null}},"
    "{\"id\":2,\"type\":\"audio\",\"props\":{\"label\":\"Voice\",\"value\":null}},"
    "{\"id\":3,\"type\":\"video\",\"props\":{\"label\":\"Clip\",\"value\":null}},"
    "{\"id\":4,\"type\":\"textbox\",\"props\":{\"label\":\"Out\"}}],"
    "\"dependencies\":[{\"id\":0,\"api_name\":\"files\",\"inputs\":[1,2,3],\"outputs\":[4],"
    "\"queue\":true,\"backend_fn\":true,\"types\":{\"generator\":false}}]}";
  g_autoptr(GError) error = NULL;
  g_autoptr(RivConfig) config = riv_config_new_from_data (config_json, -1, "http://127.0.0.1:9",
                                                         &error);
  GtkWidget *window = gtk_window_new ();
  RivForm *form = RIV_FORM (riv_form_new ());
  g_autoptr(JsonNode) data = NULL;
  g_autoptr(JsonNode) value = NULL;
  g_autofree char *json = NULL;

  g_assert_no_error (error);
  gtk_window_set_child (GTK_WINDOW (window), GTK_WIDGET (form));
  riv_form_set_endpoint (form, config, riv_config_find_endpoint (config, "files"));

  for (guint i = 0; i < 3; i++)
    {
      GtkWidget *row = riv_form_get_input_row (form, i);

      g_assert_cmpint (riv_form_get_input_kind (form, i), ==, RIV_FORM_INPUT_IMAGE);
      g_assert_true (ADW_IS_ACTION_ROW (row));
      g_assert_cmpstr (adw_action_row_get_subtitle (ADW_ACTION_ROW (row)), ==,
                       "No file — choose one or drop it here");
    }
  g_assert_cmpstr (adw_preferences_row_get_title (ADW_PREFERENCES_ROW (riv_form_get_input_row (form, 1))),
                   ==, "Voice");

  /* A FileData given with --data is sent as it is. */
  value = riv_json_parse (NULL, "[{\"path\":\"/tmp/a.pdf\",\"meta\":{\"_type\":\"gradio.FileData\"}},"
                                "null,null]", -1, 0, &error);
  g_assert_no_error (error);
  g_assert_true (riv_form_set_data (form, value, &error));
  g_assert_no_error (error);
  data = riv_form_dup_data (form);
  json = riv_json_to_string (data, NULL);
  g_assert_cmpstr (json, ==,
                   "[{\"path\":\"/tmp/a.pdf\",\"meta\":{\"_type\":\"gradio.FileData\"}},null,null]");

  gtk_window_destroy (GTK_WINDOW (window));
}


/* A Gradio 6.25 gr.Server app (its /config and /info recorded from the real
 * server): gr.api's typed parameters get editors by type, named, with their
 * defaults, the required ones marked; the endpoint's description shows; the
 * outputs are named from /info's returns. */
static void
test_form_typed_api (void)
{
  g_autofree char *config_text = riv_test_load_data ("config-gradio6-server.json", NULL);
  g_autofree char *info_text = riv_test_load_data ("info-gradio6-server.json", NULL);
  g_autoptr(JsonNode) info = riv_json_parse (NULL, info_text, -1, 0, NULL);
  g_autoptr(GError) error = NULL;
  g_autoptr(RivConfig) config = riv_config_new_from_data (config_text, -1, "http://127.0.0.1:9",
                                                           &error);
  g_autoptr(RivJob) job = NULL;
  GtkWidget *window = gtk_window_new ();
  GtkWidget *box = gtk_box_new (GTK_ORIENTATION_VERTICAL, 0);
  RivForm *form = RIV_FORM (riv_form_new ());
  RivOutputView *view = RIV_OUTPUT_VIEW (riv_output_view_new ());
  g_autoptr(JsonNode) given = riv_json_parse (NULL, "[\"Ann\", true, 0.25, [\"x\"]]", -1, 0, NULL);
  RivEndpoint *greet, *add;
  GtkWidget *widget;
  g_autofree char *json = NULL;

  g_assert_no_error (error);
  riv_config_set_api_info (config, info);
  greet = riv_config_find_endpoint (config, "greet");
  add = riv_config_find_endpoint (config, "add");
  gtk_box_append (GTK_BOX (box), GTK_WIDGET (form));
  gtk_box_append (GTK_BOX (box), GTK_WIDGET (view));
  gtk_window_set_child (GTK_WINDOW (window), box);

  riv_form_set_endpoint (form, config, greet);
  g_assert_cmpuint (riv_form_get_n_inputs (form), ==, 4);
  /* name: str, required, an entry row titled by the parameter's name. */
  g_assert_cmpint (riv_form_get_input_kind (form, 0), ==, RIV_FORM_INPUT_TEXT);
  widget = riv_form_get_input_widget (form, 0);
  g_assert_cmpstr (adw_preferences_row_get_title (ADW_PREFERENCES_ROW (widget)), ==, "name");
  g_assert_nonnull (riv_ui_test_find_label (widget, "str · required"));
  /* excited: bool, a switch, off as its default. */
  g_assert_cmpint (riv_form_get_input_kind (form, 1), ==, RIV_FORM_INPUT_CHECKBOX);
  g_assert_true (GTK_IS_SWITCH (riv_form_get_input_widget (form, 1)));
  g_assert_cmpstr (adw_preferences_row_get_title (ADW_PREFERENCES_ROW (riv_form_get_input_row (form, 1))),
                   ==, "excited");
  g_assert_cmpstr (adw_action_row_get_subtitle (ADW_ACTION_ROW (riv_form_get_input_row (form, 1))),
                   ==, "bool");
  /* ratio: float, a spin button at 0.5. */
  g_assert_cmpint (riv_form_get_input_kind (form, 2), ==, RIV_FORM_INPUT_NUMBER);
  g_assert_cmpfloat (gtk_spin_button_get_value (GTK_SPIN_BUTTON (riv_form_get_input_widget (form, 2))),
                     ==, 0.5);
  /* tags: list[str], JSON with the type as its badge. */
  g_assert_cmpint (riv_form_get_input_kind (form, 3), ==, RIV_FORM_INPUT_JSON);
  g_assert_nonnull (riv_ui_test_find_label (riv_form_get_input_row (form, 3), "list[str]"));
  g_assert_nonnull (riv_ui_test_find_label (GTK_WIDGET (form), "Greets someone by name."));
  g_assert_true (riv_form_set_data (form, given, &error));
  json = data_json (form);
  g_assert_cmpstr (json, ==, "[\"Ann\",true,0.25,[\"x\"]]");

  /* add: integers, sent as integers; b's default 2. */
  riv_form_set_endpoint (form, config, add);
  g_assert_cmpint (riv_form_get_input_kind (form, 0), ==, RIV_FORM_INPUT_NUMBER);
  g_assert_cmpstr (adw_action_row_get_subtitle (ADW_ACTION_ROW (riv_form_get_input_row (form, 0))),
                   ==, "int · required");
  g_clear_pointer (&json, g_free);
  json = data_json (form);
  g_assert_cmpstr (json, ==, "[0,2]");

  /* The outputs, named from /info's returns. */
  job = _riv_job_new (1, "/greet", greet->fn_index, NULL);
  riv_output_view_set_job (view, job, config);
  g_assert_cmpuint (riv_output_view_get_n_cards (view), ==, 2);
  g_assert_cmpstr (riv_output_card_get_label (riv_output_view_get_card (view, 0)), ==, "Result 1 (str)");
  g_assert_cmpstr (riv_output_card_get_label (riv_output_view_get_card (view, 1)), ==, "Result 2 (int)");

  gtk_window_destroy (GTK_WINDOW (window));
}


/* gr.Examples under the inputs: a row each, by its label with its values
 * below; clicking one fills the form; cached ones say so. */
static void
test_form_examples (void)
{
  g_autofree char *text = riv_test_load_data ("config-examples.json", NULL);
  g_autoptr(GError) error = NULL;
  g_autoptr(RivConfig) config = riv_config_new_from_data (text, -1, "http://127.0.0.1:9", &error);
  GtkWidget *window = gtk_window_new ();
  RivForm *form = RIV_FORM (riv_form_new ());
  GtkWidget *row;
  g_autofree char *before = NULL;
  g_autofree char *after = NULL;

  g_assert_no_error (error);
  gtk_window_set_child (GTK_WINDOW (window), GTK_WIDGET (form));
  riv_form_set_endpoint (form, config, riv_config_find_endpoint (config, "greet"));
  g_assert_nonnull (riv_ui_test_find_label (GTK_WIDGET (form), "Examples"));
  g_assert_nonnull (riv_ui_test_find_label (GTK_WIDGET (form),
                                "Cached: the app answers these from its cache, not by running them"));
  row = riv_ui_test_find_row (GTK_WIDGET (form), "second");
  g_assert_nonnull (row);
  g_assert_cmpstr (adw_action_row_get_subtitle (ADW_ACTION_ROW (row)), ==, "Grace");
  g_assert_nonnull (riv_ui_test_find_row (GTK_WIDGET (form), "first"));

  before = data_json (form);
  g_assert_cmpstr (before, ==, "[7,\"\"]");
  g_signal_emit_by_name (row, "activated");
  after = data_json (form);
  g_assert_cmpstr (after, ==, "[7,\"Grace\"]");

  /* An endpoint without examples has no such group. */
  riv_form_set_endpoint (form, config, riv_config_find_endpoint (config, "load_example"));
  g_assert_null (riv_ui_test_find_label (GTK_WIDGET (form), "Examples"));
  gtk_window_destroy (GTK_WINDOW (window));
}

/* Example pictures, as the server serves them: red.png and blue.png by
 * name, 404 for anything else or once "missing" is set. */
typedef struct
{
  GBytes   *red;
  GBytes   *blue;
  gboolean  missing;
} Pictures;

static GBytes *
solid_png (guint8 r,
           guint8 g,
           guint8 b)
{
  g_autoptr(GByteArray) pixels = g_byte_array_new ();
  g_autoptr(GBytes) data = NULL;
  g_autoptr(GdkTexture) texture = NULL;

  for (guint i = 0; i < 64 * 48; i++)
    {
      guint8 pixel[] = { r, g, b };

      g_byte_array_append (pixels, pixel, 3);
    }
  data = g_byte_array_free_to_bytes (g_steal_pointer (&pixels));
  texture = gdk_memory_texture_new (64, 48, GDK_MEMORY_R8G8B8, data, 64 * 3);
  return gdk_texture_save_to_png_bytes (texture);
}

static void
pictures_cb (SoupServer        *server,
             SoupServerMessage *msg,
             const char        *path,
             GHashTable        *query,
             gpointer           user_data)
{
  Pictures *pictures = user_data;
  GBytes *png = pictures->missing ? NULL
              : g_str_has_suffix (path, "/red.png") ? pictures->red
              : g_str_has_suffix (path, "/blue.png") ? pictures->blue : NULL;

  if (png == NULL)
    {
      riv_test_reply (msg, SOUP_STATUS_NOT_FOUND, "text/plain", "no such file");
      return;
    }
  soup_server_message_set_status (msg, SOUP_STATUS_OK, NULL);
  soup_server_message_set_response (msg, "image/png", SOUP_MEMORY_COPY,
                                    g_bytes_get_data (png, NULL), g_bytes_get_size (png));
}

/* The red channel of a picture's first pixel, once it shows a 64×48 one; -1 before. */
static int
picture_red (GtkWidget *widget)
{
  GdkPaintable *paintable = widget != NULL ? gtk_picture_get_paintable (GTK_PICTURE (widget)) : NULL;
  guint8 pixels[64 * 48 * 4];

  if (!GDK_IS_TEXTURE (paintable) || gdk_texture_get_width (GDK_TEXTURE (paintable)) != 64 ||
      gdk_texture_get_height (GDK_TEXTURE (paintable)) != 48)
    return -1;
  /* GDK_MEMORY_DEFAULT: B, G, R, A. */
  gdk_texture_download (GDK_TEXTURE (paintable), pixels, 64 * 4);
  return pixels[2];
}

typedef struct
{
  GtkWidget *pictures[3];
} Shown;

static gboolean
all_shown (gpointer user_data)
{
  Shown *shown = user_data;

  for (guint i = 0; i < G_N_ELEMENTS (shown->pictures); i++)
    if (shown->pictures[i] != NULL && picture_red (shown->pictures[i]) < 0)
      return FALSE;
  return TRUE;
}

static gboolean
has_tooltip (gpointer user_data)
{
  return gtk_widget_get_tooltip_text (user_data) != NULL;
}

/* An Interface's image examples (recorded from a real Gradio 6.25 app): each
 * row shows its picture, downloaded from the server; a click puts the
 * example's file (already on the server) and text in the form, and the
 * image input shows that picture; a picture the server no longer has says why. */
static void
test_form_example_images (void)
{
  Pictures pictures = { solid_png (220, 40, 40), solid_png (40, 60, 220), FALSE };
  g_autofree char *url = NULL;
  SoupServer *server = riv_test_server_new (pictures_cb, &pictures, &url, NULL);
  g_autofree char *recorded = riv_test_load_data ("config-image-examples.json", NULL);
  g_autoptr(GString) text = g_string_new (recorded);
  g_autoptr(GError) error = NULL;
  g_autoptr(RivConfig) config = NULL;
  g_autoptr(JsonNode) data = NULL;
  GtkWidget *window = gtk_window_new ();
  RivForm *form = RIV_FORM (riv_form_new ());
  GtkWidget *red_row, *blue_row, *image_row;
  Shown shown = { { NULL } };
  JsonArray *values;
  JsonObject *file;

  g_string_replace (text, "@SERVER@", url, 0);
  config = riv_config_new_from_data (text->str, -1, url, &error);
  g_assert_no_error (error);
  gtk_window_set_child (GTK_WINDOW (window), GTK_WIDGET (form));
  gtk_window_present (GTK_WINDOW (window));
  riv_form_set_endpoint (form, config, riv_config_find_endpoint (config, "describe"));

  /* The rows, by their values; the columns headed as the app heads them. */
  red_row = riv_ui_test_find_row (GTK_WIDGET (form), "red.png · red one");
  blue_row = riv_ui_test_find_row (GTK_WIDGET (form), "blue.png · blue one");
  g_assert_nonnull (red_row);
  g_assert_nonnull (blue_row);
  g_assert_nonnull (riv_ui_test_find_label (GTK_WIDGET (form), "picture · note"));

  /* Each row's own picture. */
  shown.pictures[0] = riv_ui_test_find_picture (red_row);
  shown.pictures[1] = riv_ui_test_find_picture (blue_row);
  g_assert_nonnull (shown.pictures[0]);
  g_assert_nonnull (shown.pictures[1]);
  g_assert_true (riv_test_wait_until (all_shown, &shown, 60));
  g_assert_cmpint (picture_red (shown.pictures[0]), ==, 220);
  g_assert_cmpint (picture_red (shown.pictures[1]), ==, 40);
  g_assert_cmpstr (gtk_picture_get_alternative_text (GTK_PICTURE (shown.pictures[0])), ==, "red.png");

  /* A click: the file as the server has it, and the text. */
  g_signal_emit_by_name (blue_row, "activated");
  data = riv_form_dup_data (form);
  values = json_node_get_array (data);
  g_assert_cmpuint (json_array_get_length (values), ==, 2);
  file = json_array_get_object_element (values, 0);
  g_assert_true (riv_client_is_file_data (file));
  g_assert_true (g_str_has_suffix (json_object_get_string_member (file, "path"), "/blue.png"));
  g_assert_true (g_str_has_prefix (json_object_get_string_member (file, "url"), url));
  g_assert_cmpstr (json_array_get_string_element (values, 1), ==, "blue one");
  image_row = riv_form_get_input_row (form, 0);
  g_assert_cmpstr (adw_action_row_get_subtitle (ADW_ACTION_ROW (image_row)), ==,
                   "blue.png — on the server");
  shown.pictures[2] = riv_ui_test_find_picture (image_row);
  g_assert_nonnull (shown.pictures[2]);
  g_assert_true (riv_test_wait_until (all_shown, &shown, 60));
  g_assert_cmpint (picture_red (shown.pictures[2]), ==, 40);

  /* The server has lost them: no picture, and the row's tooltip says why. */
  pictures.missing = TRUE;
  riv_form_set_endpoint (form, config, riv_config_find_endpoint (config, "describe"));
  red_row = riv_ui_test_find_row (GTK_WIDGET (form), "red.png · red one");
  g_assert_nonnull (red_row);
  shown.pictures[0] = riv_ui_test_find_picture (red_row);
  g_assert_true (riv_test_wait_until (has_tooltip, shown.pictures[0], 60));
  g_assert_true (g_str_has_prefix (gtk_widget_get_tooltip_text (shown.pictures[0]),
                                   "Could not show red.png: "));
  g_assert_cmpint (picture_red (shown.pictures[0]), ==, -1);

  gtk_window_destroy (GTK_WINDOW (window));
  riv_test_server_free (server);
  g_bytes_unref (pictures.red);
  g_bytes_unref (pictures.blue);
}

int
main (int   argc,
      char *argv[])
{
  riv_ui_test_init (&argc, &argv);

  g_test_add ("/ui/form/widgets", Fixture, NULL, fixture_setup, test_form_widgets, fixture_teardown);
  g_test_add ("/ui/form/data", Fixture, NULL, fixture_setup, test_form_data, fixture_teardown);
  g_test_add ("/ui/form/set-data", Fixture, NULL, fixture_setup, test_form_set_data, fixture_teardown);
  g_test_add ("/ui/form/placeholder", Fixture, NULL, fixture_setup, test_form_placeholder,
              fixture_teardown);
  g_test_add_func ("/ui/form/empty", test_form_empty);
  g_test_add_func ("/ui/form/file-inputs", test_form_file_inputs);
  g_test_add_func ("/ui/form/typed-api", test_form_typed_api);
  g_test_add_func ("/ui/form/examples", test_form_examples);
  g_test_add_func ("/ui/form/example-images", test_form_example_images);

  return g_test_run ();
}
