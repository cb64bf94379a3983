/* test-ui-editors.c
 * Copyright 2026 The Rivulet authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The form's editors for Gradio's other input components: chatbot history,
 * multimodal textbox, files, checkbox group, colour picker, date and time,
 * dataframe, code and the JSON entry. Each is set as a user would and the
 * form must give exactly the JSON Gradio's frontend sends; bad values are
 * shown next to their field and block submitting; odd configs build
 * without crashing; an upload reports its progress.
 */
#include "config.h"

#include <adwaita.h>
#include <glib/gstdio.h>
#include <string.h>

#include "riv-form.h"
#include "riv-json.h"
#include "riv-server.h"
#include "riv-test-util.h"
#include "riv-ui-test-util.h"

#define HANG_GUARD 120.0

enum {
  IN_CHAT, IN_MULTIMODAL, IN_FILES, IN_TAGS, IN_COLOUR, IN_WHEN, IN_TABLE, IN_CODE, IN_JSON,
  IN_STATE, N_INPUTS
};

/* One of each component, as a Gradio 5 server describes them. */
static const char config_json[] =
  "{\"version\":\"5.49.1\",\"protocol\":\"sse_v3\",\"api_prefix\":\"/gradio_api\","
  "\"components\":["
  "{\"id\":1,\"type\":\"chatbot\",\"props\":{\"label\":\"History\",\"type\":\"messages\","
  "\"value\":[]}},"
  "{\"id\":2,\"type\":\"multimodaltextbox\",\"props\":{\"label\":\"Ask\","
  "\"value\":{\"text\":\"\",\"files\":[]},\"placeholder\":\"Type or add files\"}},"
  "{\"id\":3,\"type\":\"file\",\"props\":{\"label\":\"Documents\",\"file_count\":\"multiple\","
  "\"value\":null}},"
  "{\"id\":4,\"type\":\"checkboxgroup\",\"props\":{\"label\":\"Tags\",\"value\":[\"loud\"],"
  "\"choices\":[[\"Calm\",\"calm\"],[\"Loud\",\"loud\"],[\"Fast\",\"fast\"]]}},"
  "{\"id\":5,\"type\":\"colorpicker\",\"props\":{\"label\":\"Colour\",\"value\":\"#3584e4\"}},"
  "{\"id\":6,\"type\":\"datetime\",\"props\":{\"label\":\"When\",\"include_time\":true,"
  "\"type\":\"timestamp\",\"value\":\"2026-12-01 10:00:00\"}},"
  "{\"id\":7,\"type\":\"dataframe\",\"props\":{\"label\":\"People\",\"headers\":[\"name\",\"age\"],"
  "\"datatype\":[\"str\",\"number\"],\"col_count\":[2,\"fixed\"],\"row_count\":[1,\"dynamic\"],"
  "\"value\":{\"headers\":[\"name\",\"age\"],\"data\":[[\"Ada\",36]],\"metadata\":null}}},"
  "{\"id\":8,\"type\":\"code\",\"props\":{\"label\":\"Script\",\"language\":\"python\","
  "\"value\":\"print(1)\"}},"
  "{\"id\":9,\"type\":\"json\",\"props\":{\"label\":\"Options\",\"value\":{\"a\":1}}},"
  "{\"id\":10,\"type\":\"state\",\"props\":{\"value\":null}},"
  "{\"id\":11,\"type\":\"textbox\",\"props\":{\"label\":\"Out\"}}],"
  "\"dependencies\":[{\"id\":0,\"api_name\":\"all\",\"inputs\":[1,2,3,4,5,6,7,8,9,10],"
  "\"outputs\":[11],\"queue\":true,\"backend_fn\":true,\"types\":{\"generator\":false}}]}";

typedef struct
{
  RivConfig *config;
  GtkWidget *window;
  RivForm   *form;
} Fixture;

static void
form_open (Fixture    *fixture,
           const char *json,
           const char *endpoint)
{
  g_autoptr(GError) error = NULL;

  fixture->config = riv_config_new_from_data (json, -1, "http://127.0.0.1:9", &error);
  g_assert_no_error (error);
  fixture->window = gtk_window_new ();
  fixture->form = RIV_FORM (riv_form_new ());
  gtk_window_set_child (GTK_WINDOW (fixture->window), GTK_WIDGET (fixture->form));
  riv_form_set_endpoint (fixture->form, fixture->config,
                         riv_config_find_endpoint (fixture->config, endpoint));
  g_assert_nonnull (riv_form_get_endpoint (fixture->form));
}

static void
fixture_setup (Fixture       *fixture,
               gconstpointer  user_data)
{
  form_open (fixture, config_json, "all");
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

/* The value of one input as JSON text. */
static char *
input_json (RivForm *form,
            guint    position)
{
  g_autoptr(JsonNode) data = riv_form_dup_data (form);

  return riv_json_to_string (json_array_get_element (json_node_get_array (data), position), NULL);
}

/* The button under widget whose tooltip is tooltip. */
static GtkWidget *
find_button (GtkWidget  *widget,
             const char *tooltip)
{
  if (GTK_IS_BUTTON (widget) && g_strcmp0 (gtk_widget_get_tooltip_text (widget), tooltip) == 0)
    return widget;
  for (GtkWidget *child = gtk_widget_get_first_child (widget); child != NULL;
       child = gtk_widget_get_next_sibling (child))
    {
      GtkWidget *found = find_button (child, tooltip);

      if (found != NULL)
        return found;
    }
  return NULL;
}

static void
click (RivForm    *form,
       guint       position,
       const char *tooltip)
{
  GtkWidget *button = find_button (riv_form_get_input_row (form, position), tooltip);

  g_assert_nonnull (button);
  g_signal_emit_by_name (button, "clicked");
}

/* The n-th message line of a chatbot editor: its role drop-down and entry. */
static void
chat_message (RivForm    *form,
              guint       position,
              guint       n,
              guint       role,
              const char *text)
{
  GtkWidget *line = gtk_widget_get_first_child (riv_form_get_input_widget (form, position));
  GtkWidget *dropdown;

  for (guint i = 0; i < n; i++)
    line = gtk_widget_get_next_sibling (line);
  g_assert_nonnull (line);
  dropdown = gtk_widget_get_first_child (line);
  gtk_drop_down_set_selected (GTK_DROP_DOWN (dropdown), role);
  gtk_editable_set_text (GTK_EDITABLE (gtk_widget_get_next_sibling (dropdown)), text);
}

static GtkWidget *
check_button (RivForm *form,
              guint    position,
              guint    n)
{
  GtkFlowBox *flow = GTK_FLOW_BOX (riv_form_get_input_widget (form, position));
  GtkFlowBoxChild *child = gtk_flow_box_get_child_at_index (flow, (int) n);

  g_assert_nonnull (child);
  return gtk_flow_box_child_get_child (child);
}

static GtkEditable *
cell (RivForm *form,
      guint    position,
      int      column,
      int      row)
{
  GtkWidget *entry = gtk_grid_get_child_at (GTK_GRID (riv_form_get_input_widget (form, position)),
                                            column, row);

  g_assert_true (GTK_IS_ENTRY (entry));
  return GTK_EDITABLE (entry);
}

/* A visible label with this text under widget. */
static gboolean
label_shown (GtkWidget  *widget,
             const char *text)
{
  if (GTK_IS_LABEL (widget) && gtk_widget_get_visible (widget) &&
      g_strcmp0 (gtk_label_get_text (GTK_LABEL (widget)), text) == 0)
    return TRUE;
  for (GtkWidget *child = gtk_widget_get_first_child (widget); child != NULL;
       child = gtk_widget_get_next_sibling (child))
    if (label_shown (child, text))
      return TRUE;
  return FALSE;
}

static void
set_text_view (GtkWidget  *view,
               const char *text)
{
  gtk_text_buffer_set_text (gtk_text_view_get_buffer (GTK_TEXT_VIEW (view)), text, -1);
}

static void
test_editors_kinds (Fixture       *fixture,
                    gconstpointer  user_data)
{
  RivForm *form = fixture->form;
  static const RivFormInputKind kinds[] = {
    RIV_FORM_INPUT_CHATBOT, RIV_FORM_INPUT_MULTIMODAL, RIV_FORM_INPUT_FILES,
    RIV_FORM_INPUT_CHECKBOX_GROUP, RIV_FORM_INPUT_COLOR, RIV_FORM_INPUT_DATETIME,
    RIV_FORM_INPUT_DATAFRAME, RIV_FORM_INPUT_CODE, RIV_FORM_INPUT_JSON, RIV_FORM_INPUT_STATE,
  };
  g_autofree char *defaults = data_json (form);
  GtkWidget *code;

  g_assert_cmpuint (riv_form_get_n_inputs (form), ==, N_INPUTS);
  for (guint i = 0; i < N_INPUTS; i++)
    g_assert_cmpint (riv_form_get_input_kind (form, i), ==, kinds[i]);

  /* Each widget is what its kind says, titled by its label. */
  g_assert_true (GTK_IS_COLOR_BUTTON (riv_form_get_input_widget (form, IN_COLOUR)));
  g_assert_true (ADW_IS_ENTRY_ROW (riv_form_get_input_widget (form, IN_WHEN)));
  g_assert_true (GTK_IS_GRID (riv_form_get_input_widget (form, IN_TABLE)));
  code = riv_form_get_input_widget (form, IN_CODE);
  g_assert_true (GTK_IS_TEXT_VIEW (code));
  g_assert_true (gtk_text_view_get_monospace (GTK_TEXT_VIEW (code)));
  g_assert_true (GTK_IS_ENTRY (riv_form_get_input_widget (form, IN_MULTIMODAL)));
  g_assert_cmpstr (adw_preferences_row_get_title (ADW_PREFERENCES_ROW (riv_form_get_input_row (form, IN_TABLE))),
                   ==, "People");
  g_assert_cmpstr (gtk_label_get_text (GTK_LABEL (gtk_grid_get_child_at (
                     GTK_GRID (riv_form_get_input_widget (form, IN_TABLE)), 1, 0))), ==, "age");
  g_assert_cmpstr (gtk_check_button_get_label (GTK_CHECK_BUTTON (check_button (form, IN_TAGS, 2))),
                   ==, "Fast");
  g_assert_null (riv_form_get_input_row (form, IN_STATE));

  /* The defaults, as Gradio's frontend would send them. */
  g_assert_cmpstr (defaults, ==,
                   "[[],{\"text\":\"\",\"files\":[]},[],[\"loud\"],\"#3584e4\","
                   "\"2026-12-01 10:00:00\","
                   "{\"headers\":[\"name\",\"age\"],\"data\":[[\"Ada\",36]],\"metadata\":null},"
                   "\"print(1)\",{\"a\":1},null]");
  g_assert_true (riv_form_check (form, NULL));
}

static void
test_editors_edited (Fixture       *fixture,
                     gconstpointer  user_data)
{
  RivForm *form = fixture->form;
  GdkRGBA orange = { 1, 0.5, 0, 1 };
  g_autofree char *json = NULL;

  /* Empty lists say so. */
  g_assert_true (label_shown (riv_form_get_input_row (form, IN_CHAT),
                              "No messages: an empty history is sent."));
  g_assert_true (label_shown (riv_form_get_input_row (form, IN_FILES),
                              "No files — add them or drop them here"));

  /* Chat: two messages, the second added one defaults to the assistant. */
  click (form, IN_CHAT, "Add a message");
  g_assert_false (label_shown (riv_form_get_input_row (form, IN_CHAT),
                               "No messages: an empty history is sent."));
  click (form, IN_CHAT, "Add a message");
  chat_message (form, IN_CHAT, 0, 0, "Hi {i}");
  gtk_editable_set_text (GTK_EDITABLE (gtk_widget_get_next_sibling (gtk_widget_get_first_child (
                           gtk_widget_get_last_child (riv_form_get_input_widget (form, IN_CHAT))))),
                         "Hello!");

  gtk_editable_set_text (GTK_EDITABLE (riv_form_get_input_widget (form, IN_MULTIMODAL)), "look {i}");
  gtk_check_button_set_active (GTK_CHECK_BUTTON (check_button (form, IN_TAGS, 0)), TRUE);
  gtk_check_button_set_active (GTK_CHECK_BUTTON (check_button (form, IN_TAGS, 1)), FALSE);
  gtk_check_button_set_active (GTK_CHECK_BUTTON (check_button (form, IN_TAGS, 2)), TRUE);
  gtk_color_chooser_set_rgba (GTK_COLOR_CHOOSER (riv_form_get_input_widget (form, IN_COLOUR)), &orange);
  gtk_editable_set_text (GTK_EDITABLE (riv_form_get_input_widget (form, IN_WHEN)), "now - 2h");

  /* Dataframe: a second row, typed by column; then a third, removed again. */
  click (form, IN_TABLE, "Add a row");
  gtk_editable_set_text (cell (form, IN_TABLE, 0, 2), "Bob {i}");
  gtk_editable_set_text (cell (form, IN_TABLE, 1, 2), "41.5");
  click (form, IN_TABLE, "Add a row");
  g_assert_nonnull (gtk_grid_get_child_at (GTK_GRID (riv_form_get_input_widget (form, IN_TABLE)), 0, 3));
  click (form, IN_TABLE, "Remove the last row");
  g_assert_null (gtk_grid_get_child_at (GTK_GRID (riv_form_get_input_widget (form, IN_TABLE)), 0, 3));

  set_text_view (riv_form_get_input_widget (form, IN_CODE), "def f():\n    return {i}");
  gtk_editable_set_text (GTK_EDITABLE (riv_form_get_input_widget (form, IN_JSON)), "[1, 2]");

  json = data_json (form);
  g_assert_cmpstr (json, ==,
                   "[[{\"role\":\"user\",\"content\":\"Hi {i}\"},"
                   "{\"role\":\"assistant\",\"content\":\"Hello!\"}],"
                   "{\"text\":\"look {i}\",\"files\":[]},[],[\"calm\",\"fast\"],\"#ff8000\","
                   "\"now - 2h\","
                   "{\"headers\":[\"name\",\"age\"],\"data\":[[\"Ada\",36],[\"Bob {i}\",41.5]],"
                   "\"metadata\":null},"
                   "\"def f():\\n    return {i}\",[1,2],null]");
  g_assert_true (riv_form_check (form, NULL));

  /* Removing a message. */
  click (form, IN_CHAT, "Remove the message");
  g_clear_pointer (&json, g_free);
  json = input_json (form, IN_CHAT);
  g_assert_cmpstr (json, ==, "[{\"role\":\"assistant\",\"content\":\"Hello!\"}]");
}

/* --data fills the editors; what they then send is what was given. */
static void
test_editors_set_data (Fixture       *fixture,
                       gconstpointer  user_data)
{
  static const char given[] =
    "[[{\"role\":\"user\",\"content\":\"q\"},{\"role\":\"assistant\",\"content\":\"a\"}],"
    "{\"text\":\"t\",\"files\":[{\"path\":\"/tmp/x.txt\",\"meta\":{\"_type\":\"gradio.FileData\"}}]},"
    "[{\"path\":\"/tmp/y.txt\",\"meta\":{\"_type\":\"gradio.FileData\"}}],"
    "[\"fast\"],\"#000000\",\"2020-10-01 05:20:15\","
    "{\"headers\":[\"name\",\"age\"],\"data\":[[\"Cy\",7],[\"Di\",null]],\"metadata\":null},"
    "\"x = 1\",{\"b\":[true]},null]";
  g_autoptr(JsonNode) data = NULL;
  g_autoptr(JsonNode) bad = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *json = NULL;

  data = riv_json_parse (NULL, given, -1, 0, &error);
  g_assert_no_error (error);
  g_assert_true (riv_form_set_data (fixture->form, data, &error));
  g_assert_no_error (error);
  json = data_json (fixture->form);
  g_assert_cmpstr (json, ==, given);
  /* The given files are listed by name. */
  g_assert_true (label_shown (riv_form_get_input_row (fixture->form, IN_FILES), "y.txt"));
  g_assert_false (label_shown (riv_form_get_input_row (fixture->form, IN_FILES),
                               "No files — add them or drop them here"));

  /* A choice the checkbox group does not have is refused, naming it. */
  bad = riv_json_parse (NULL, "[[],{\"text\":\"\"},[],[\"slow\"]]", -1, 0, &error);
  g_assert_no_error (error);
  g_assert_false (riv_form_set_data (fixture->form, bad, &error));
  g_assert_error (error, RIV_CLIENT_ERROR, RIV_CLIENT_ERROR_BAD_INPUT);
  g_assert_nonnull (strstr (error->message, "Tags"));
}

/* Tuples (Gradio 4 and 5's type="tuples") and Gradio 6's message parts. */
static void
test_editors_chat_formats (void)
{
  static const char config_format[] =
    "{\"version\":\"%s\",\"protocol\":\"sse_v3\",\"components\":["
    "{\"id\":1,\"type\":\"chatbot\",\"props\":{\"label\":\"Chat\"%s,\"value\":[]}},"
    "{\"id\":2,\"type\":\"textbox\",\"props\":{}}],"
    "\"dependencies\":[{\"id\":0,\"api_name\":\"chat\",\"inputs\":[1],\"outputs\":[2],"
    "\"queue\":true,\"backend_fn\":true,\"types\":{\"generator\":false}}]}";
  g_autofree char *tuples_config = g_strdup_printf (config_format, "4.44.1", ",\"type\":\"tuples\"");
  g_autofree char *parts_config = g_strdup_printf (config_format, "6.25.0", "");
  Fixture tuples = { 0 };
  Fixture parts = { 0 };
  g_autofree char *json = NULL;
  g_autoptr(JsonNode) history = NULL;
  g_autoptr(GError) error = NULL;

  form_open (&tuples, tuples_config, "chat");
  for (guint i = 0; i < 4; i++)
    click (tuples.form, 0, "Add a message");
  /* assistant first, then user, assistant, user */
  chat_message (tuples.form, 0, 0, 1, "welcome");
  chat_message (tuples.form, 0, 1, 0, "a");
  chat_message (tuples.form, 0, 2, 1, "b");
  chat_message (tuples.form, 0, 3, 0, "c");
  json = input_json (tuples.form, 0);
  g_assert_cmpstr (json, ==, "[[null,\"welcome\"],[\"a\",\"b\"],[\"c\",null]]");

  /* Filled from a tuples history, it gives the same back. */
  history = riv_json_parse (NULL, "[[[\"x\",\"y\"],[null,\"z\"]]]", -1, 0, &error);
  g_assert_no_error (error);
  g_assert_true (riv_form_set_data (tuples.form, history, &error));
  g_clear_pointer (&json, g_free);
  json = input_json (tuples.form, 0);
  g_assert_cmpstr (json, ==, "[[\"x\",\"y\"],[null,\"z\"]]");
  fixture_teardown (&tuples, NULL);

  form_open (&parts, parts_config, "chat");
  click (parts.form, 0, "Add a message");
  click (parts.form, 0, "Add a message");
  chat_message (parts.form, 0, 0, 2, "be brief");
  chat_message (parts.form, 0, 1, 0, "hi");
  g_clear_pointer (&json, g_free);
  json = input_json (parts.form, 0);
  g_assert_cmpstr (json, ==,
                   "[{\"role\":\"system\",\"content\":[{\"type\":\"text\",\"text\":\"be brief\"}]},"
                   "{\"role\":\"user\",\"content\":[{\"type\":\"text\",\"text\":\"hi\"}]}]");
  fixture_teardown (&parts, NULL);
}

static gboolean
not_busy (gpointer user_data)
{
  return !riv_form_get_busy (user_data);
}

/* A visible, non-empty error label under widget. */
static gboolean
has_error_label (GtkWidget *widget)
{
  if (GTK_IS_LABEL (widget) && gtk_widget_has_css_class (widget, "error") &&
      gtk_widget_get_visible (widget) && *gtk_label_get_text (GTK_LABEL (widget)) != '\0')
    return TRUE;
  for (GtkWidget *child = gtk_widget_get_first_child (widget); child != NULL;
       child = gtk_widget_get_next_sibling (child))
    if (has_error_label (child))
      return TRUE;
  return FALSE;
}

static gboolean
error_shown (Fixture *fixture,
             guint    position)
{
  return has_error_label (riv_form_get_input_row (fixture->form, position));
}

/* A value that cannot be sent is shown next to its field and blocks the
 * submit with a message naming the input. */
static void
test_editors_validation (Fixture       *fixture,
                         gconstpointer  user_data)
{
  RivForm *form = fixture->form;
  GtkEditable *when = GTK_EDITABLE (riv_form_get_input_widget (form, IN_WHEN));
  static const char * const good_dates[] = {
    "", "now", "now - 30m", " now-2d ", "2026-02-28 23:59:59", "2026-12-0{i} 10:00:00",
  };
  static const char * const bad_dates[] = {
    "tomorrow", "2026-02-30 10:00:00", "2026-12-01", "2026-12-01 25:00:00", "now - 3w",
    "2026-12-01 10:00:00 extra",
  };
  g_autoptr(GError) error = NULL;

  g_assert_false (error_shown (fixture, IN_WHEN));
  for (guint i = 0; i < G_N_ELEMENTS (good_dates); i++)
    {
      gtk_editable_set_text (when, good_dates[i]);
      g_assert_true (riv_form_check (form, NULL));
      g_assert_false (error_shown (fixture, IN_WHEN));
    }
  for (guint i = 0; i < G_N_ELEMENTS (bad_dates); i++)
    {
      gtk_editable_set_text (when, bad_dates[i]);
      g_assert_true (error_shown (fixture, IN_WHEN));
      g_assert_true (gtk_widget_has_css_class (riv_form_get_input_row (form, IN_WHEN), "error"));
      g_assert_false (riv_form_check (form, &error));
      g_assert_error (error, RIV_CLIENT_ERROR, RIV_CLIENT_ERROR_BAD_INPUT);
      g_assert_nonnull (strstr (error->message, "When"));
      g_assert_nonnull (strstr (error->message, "YYYY-MM-DD HH:MM:SS"));
      g_clear_error (&error);
    }
  gtk_editable_set_text (when, "2026-12-01 10:00:00");
  g_assert_false (error_shown (fixture, IN_WHEN));

  /* A number column: text is refused, {i} and empty cells are not. */
  gtk_editable_set_text (cell (form, IN_TABLE, 1, 1), "old");
  g_assert_true (error_shown (fixture, IN_TABLE));
  g_assert_false (riv_form_check (form, &error));
  g_assert_nonnull (strstr (error->message, "People"));
  g_assert_nonnull (strstr (error->message, "row 1, column “age”"));
  g_clear_error (&error);
  gtk_editable_set_text (cell (form, IN_TABLE, 1, 1), "{i}");
  g_assert_true (riv_form_check (form, NULL));
  gtk_editable_set_text (cell (form, IN_TABLE, 1, 1), "");
  g_assert_false (error_shown (fixture, IN_TABLE));
  g_assert_true (riv_form_check (form, NULL));

  /* JSON that does not parse. */
  gtk_editable_set_text (GTK_EDITABLE (riv_form_get_input_widget (form, IN_JSON)), "{\"a\":");
  g_assert_true (error_shown (fixture, IN_JSON));
  g_assert_false (riv_form_check (form, &error));
  g_assert_nonnull (strstr (error->message, "Options"));
  g_clear_error (&error);
  gtk_editable_set_text (GTK_EDITABLE (riv_form_get_input_widget (form, IN_JSON)), "{}");
  g_assert_true (riv_form_check (form, NULL));

  /* A file whose upload failed (no server here) is not silently left out. */
  {
    g_autofree char *path = g_test_build_filename (G_TEST_DIST, "ui", "test-ui-editors.c", NULL);
    g_autoptr(GFile) file = g_file_new_for_path (path);

    riv_form_add_file (form, IN_FILES, file);
    g_assert_true (riv_test_wait_until (not_busy, form, HANG_GUARD));
    g_assert_true (label_shown (riv_form_get_input_row (form, IN_FILES), "upload failed"));
    g_assert_false (riv_form_check (form, &error));
    g_assert_nonnull (strstr (error->message, "Documents"));
    g_assert_nonnull (strstr (error->message, "test-ui-editors.c could not be uploaded"));
    click (form, IN_FILES, "Remove the file");
    g_assert_true (riv_form_check (form, NULL));
  }
}

/* Configs with missing or mistyped props still build every editor, and
 * each sends a value of the right shape. */
static void
test_editors_odd_config (void)
{
  static const char odd[] =
    "{\"version\":\"five\",\"protocol\":\"sse_v3\",\"components\":["
    "{\"id\":1,\"type\":\"chatbot\",\"props\":{\"type\":7,\"value\":{\"x\":1}}},"
    "{\"id\":2,\"type\":\"multimodaltextbox\",\"props\":{\"value\":\"text\",\"placeholder\":3}},"
    "{\"id\":3,\"type\":\"file\",\"props\":{\"file_count\":[\"multiple\"]}},"
    "{\"id\":4,\"type\":\"checkboxgroup\",\"props\":{\"choices\":\"abc\",\"value\":\"abc\"}},"
    "{\"id\":5,\"type\":\"checkboxgroup\",\"props\":{\"choices\":[[],[1],[\"a\",2,3],null]}},"
    "{\"id\":6,\"type\":\"colorpicker\",\"props\":{\"value\":7}},"
    "{\"id\":7,\"type\":\"datetime\",\"props\":{\"value\":1e300,\"include_time\":\"no\"}},"
    "{\"id\":8,\"type\":\"dataframe\",\"props\":{\"headers\":5,\"datatype\":7,"
    "\"col_count\":1e300,\"row_count\":-3,\"value\":{\"data\":\"x\"}}},"
    "{\"id\":9,\"type\":\"dataframe\",\"props\":{\"headers\":[\"a\",null,{\"b\":1}],"
    "\"datatype\":[\"number\"],\"value\":{\"headers\":[],\"data\":[[1,2,3,4,5],\"row\",[]]}}},"
    "{\"id\":10,\"type\":\"code\",\"props\":{\"value\":[1],\"language\":[\"c\"],\"lines\":1e9}},"
    "{\"id\":11,\"type\":\"datetime\",\"props\":{\"value\":-5}},"
    "{\"id\":12,\"type\":\"textbox\",\"props\":{}}],"
    "\"dependencies\":[{\"id\":0,\"api_name\":\"odd\",\"inputs\":[1,2,3,4,5,6,7,8,9,10,11],"
    "\"outputs\":[12],\"queue\":true,\"backend_fn\":true,\"types\":{\"generator\":false}}]}";
  Fixture fixture = { 0 };
  g_autofree char *json = NULL;
  g_autofree char *table = NULL;

  form_open (&fixture, odd, "odd");
  g_assert_cmpuint (riv_form_get_n_inputs (fixture.form), ==, 11);
  json = data_json (fixture.form);
  /* The 50-column dataframe is checked on its own below. */
  table = input_json (fixture.form, 7);
  g_assert_true (g_str_has_prefix (table, "{\"headers\":[\"1\",\"2\","));
  g_assert_true (g_str_has_suffix (table, ",\"50\"],\"data\":[[\"\",\"\",\"\",\"\",\"\",\"\",\"\",\"\","
                                          "\"\",\"\",\"\",\"\",\"\",\"\",\"\",\"\",\"\",\"\",\"\",\"\","
                                          "\"\",\"\",\"\",\"\",\"\",\"\",\"\",\"\",\"\",\"\",\"\",\"\","
                                          "\"\",\"\",\"\",\"\",\"\",\"\",\"\",\"\",\"\",\"\",\"\",\"\","
                                          "\"\",\"\",\"\",\"\",\"\",\"\"]],\"metadata\":null}"));
  g_clear_pointer (&json, g_free);
  json = input_json (fixture.form, 0);
  g_assert_cmpstr (json, ==, "[]");
  g_clear_pointer (&json, g_free);
  json = input_json (fixture.form, 1);
  g_assert_cmpstr (json, ==, "{\"text\":\"\",\"files\":[]}");
  g_clear_pointer (&json, g_free);
  /* file_count not a string: one file, none yet. */
  json = input_json (fixture.form, 2);
  g_assert_cmpstr (json, ==, "null");
  g_clear_pointer (&json, g_free);
  json = input_json (fixture.form, 3);
  g_assert_cmpstr (json, ==, "[]");
  g_clear_pointer (&json, g_free);
  json = input_json (fixture.form, 4);
  g_assert_cmpstr (json, ==, "[]");
  g_clear_pointer (&json, g_free);
  json = input_json (fixture.form, 5);
  g_assert_cmpstr (json, ==, "\"#000000\"");
  g_clear_pointer (&json, g_free);
  json = input_json (fixture.form, 6);
  g_assert_cmpstr (json, ==, "\"\"");
  g_clear_pointer (&json, g_free);
  json = input_json (fixture.form, 8);
  g_assert_cmpstr (json, ==,
                   "{\"headers\":[\"a\",\"\",\"{\\\"b\\\":1}\"],\"data\":[[1,\"2\",\"3\"],"
                   "[null,\"\",\"\"],[null,\"\",\"\"]],\"metadata\":null}");
  g_clear_pointer (&json, g_free);
  json = input_json (fixture.form, 9);
  g_assert_cmpstr (json, ==, "\"[1]\"");
  g_assert_true (riv_form_check (fixture.form, NULL));
  fixture_teardown (&fixture, NULL);
}

/* Uploads: a file added to a files input and to a multimodal textbox goes
 * through /upload of a real (embedded) server, its progress reported as it
 * goes out, and the form then sends FileData for it. */
typedef struct
{
  GArray *fractions;
  char   *name;
} Progress;

static void
progress_cb (RivForm    *form,
             const char *name,
             double      fraction,
             Progress   *progress)
{
  g_array_append_val (progress->fractions, fraction);
  g_free (progress->name);
  progress->name = g_strdup (name);
}


/* The form's value at the moment its uploads are over. */
static void
busy_ended_cb (RivForm    *form,
               GParamSpec *pspec,
               JsonNode  **data)
{
  if (!riv_form_get_busy (form) && *data == NULL)
    *data = riv_form_dup_data (form);
}

static void
test_editors_upload_progress (void)
{
  g_autoptr(RivServer) server = riv_server_new ();
  g_autoptr(RivClient) client = NULL;
  g_autoptr(GAsyncResult) result = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *url = NULL;
  g_autofree char *dir = NULL;
  g_autofree char *path = NULL;
  g_autofree char *json = NULL;
  g_autofree char *contents = NULL;
  g_autoptr(GFile) file = NULL;
  g_autoptr(JsonNode) data = NULL;
  Progress progress = { g_array_new (FALSE, FALSE, sizeof (double)), NULL };
  Fixture fixture = { 0 };
  const gsize size = 3 * 1024 * 1024;
  JsonArray *files;
  JsonObject *file_data;
  JsonObject *multimodal;

  riv_server_listen (server, NULL, 0, &error);
  g_assert_no_error (error);
  url = riv_server_dup_url (server);
  client = riv_client_new (url);
  riv_client_connect_async (client, NULL, riv_test_async_result_cb, &result);
  riv_test_wait_result (&result, HANG_GUARD);
  g_assert_true (riv_client_connect_finish (client, result, &error));
  g_assert_no_error (error);

  dir = g_dir_make_tmp ("riv-editors-XXXXXX", &error);
  g_assert_no_error (error);
  path = g_build_filename (dir, "notes.txt", NULL);
  contents = g_malloc (size);
  memset (contents, 'x', size);
  g_file_set_contents (path, contents, (gssize) size, &error);
  g_assert_no_error (error);
  file = g_file_new_for_path (path);

  form_open (&fixture, config_json, "all");
  riv_form_set_client (fixture.form, client);
  g_signal_connect (fixture.form, "upload-progress", G_CALLBACK (progress_cb), &progress);

  riv_form_add_file (fixture.form, IN_FILES, file);
  g_assert_true (riv_form_get_busy (fixture.form));
  g_assert_true (riv_test_wait_until (not_busy, fixture.form, HANG_GUARD));

  /* Reported as it went: several steps, never backwards, ending complete. */
  g_test_message ("%u progress reports", progress.fractions->len);
  g_assert_cmpuint (progress.fractions->len, >=, 2);
  for (guint i = 1; i < progress.fractions->len; i++)
    g_assert_cmpfloat (g_array_index (progress.fractions, double, i), >,
                       g_array_index (progress.fractions, double, i - 1));
  g_assert_cmpfloat (g_array_index (progress.fractions, double, 0), <, 1);
  g_assert_cmpfloat (g_array_index (progress.fractions, double, progress.fractions->len - 1), ==, 1);
  g_assert_cmpstr (progress.name, ==, "notes.txt");

  data = riv_form_dup_data (fixture.form);
  files = json_array_get_array_element (json_node_get_array (data), IN_FILES);
  g_assert_cmpuint (json_array_get_length (files), ==, 1);
  file_data = json_array_get_object_element (files, 0);
  g_assert_true (g_str_has_suffix (json_object_get_string_member (file_data, "path"), "notes.txt"));
  g_assert_cmpstr (json_object_get_string_member (file_data, "orig_name"), ==, "notes.txt");
  g_assert_cmpint (json_object_get_int_member (file_data, "size"), ==, (gint64) size);
  g_assert_cmpstr (json_object_get_string_member (file_data, "mime_type"), ==, "text/plain");
  g_assert_cmpstr (json_object_get_string_member (json_object_get_object_member (file_data, "meta"),
                                                  "_type"), ==, "gradio.FileData");
  g_assert_nonnull (find_button (riv_form_get_input_row (fixture.form, IN_FILES), "Remove the file"));

  /* The multimodal textbox: text plus its files. */
  gtk_editable_set_text (GTK_EDITABLE (riv_form_get_input_widget (fixture.form, IN_MULTIMODAL)),
                         "summarise");
  riv_form_add_file (fixture.form, IN_MULTIMODAL, file);
  g_assert_true (riv_test_wait_until (not_busy, fixture.form, HANG_GUARD));
  g_clear_pointer (&data, json_node_unref);
  data = riv_form_dup_data (fixture.form);
  multimodal = json_array_get_object_element (json_node_get_array (data), IN_MULTIMODAL);
  g_assert_cmpstr (json_object_get_string_member (multimodal, "text"), ==, "summarise");
  files = json_object_get_array_member (multimodal, "files");
  g_assert_cmpuint (json_array_get_length (files), ==, 1);
  g_assert_cmpstr (json_object_get_string_member (json_array_get_object_element (files, 0), "orig_name"),
                   ==, "notes.txt");

  /* The same file in two inputs at once, as --data may give it: when busy
   * ends (a burst from the command line starts then) every file is in. */
  riv_form_add_file (fixture.form, IN_MULTIMODAL, file);
  riv_form_add_file (fixture.form, IN_FILES, file);
  g_clear_pointer (&data, json_node_unref);
  g_signal_connect (fixture.form, "notify::busy", G_CALLBACK (busy_ended_cb), &data);
  g_assert_true (riv_test_wait_until (not_busy, fixture.form, HANG_GUARD));
  g_signal_handlers_disconnect_by_func (fixture.form, busy_ended_cb, &data);
  g_assert_nonnull (data);
  multimodal = json_array_get_object_element (json_node_get_array (data), IN_MULTIMODAL);
  g_assert_cmpuint (json_array_get_length (json_object_get_array_member (multimodal, "files")), ==, 2);
  g_assert_cmpuint (json_array_get_length (json_array_get_array_element (json_node_get_array (data),
                                                                         IN_FILES)), ==, 2);
  click (fixture.form, IN_FILES, "Remove the file");

  /* Removed, the file is no longer sent. */
  click (fixture.form, IN_FILES, "Remove the file");
  json = input_json (fixture.form, IN_FILES);
  g_assert_cmpstr (json, ==, "[]");

  fixture_teardown (&fixture, NULL);
  riv_client_close (client);
  riv_test_drain ();
  riv_server_shutdown (server);
  riv_test_drain ();
  g_unlink (path);
  g_rmdir (dir);
  g_array_unref (progress.fractions);
  g_free (progress.name);
}

int
main (int   argc,
      char *argv[])
{
  riv_ui_test_init (&argc, &argv);

  g_test_add ("/ui/editors/kinds", Fixture, NULL, fixture_setup, test_editors_kinds,
              fixture_teardown);
  g_test_add ("/ui/editors/edited", Fixture, NULL, fixture_setup, test_editors_edited,
              fixture_teardown);
  g_test_add ("/ui/editors/set-data", Fixture, NULL, fixture_setup, test_editors_set_data,
              fixture_teardown);
  g_test_add ("/ui/editors/validation", Fixture, NULL, fixture_setup, test_editors_validation,
              fixture_teardown);
  g_test_add_func ("/ui/editors/chat-formats", test_editors_chat_formats);
  g_test_add_func ("/ui/editors/odd-config", test_editors_odd_config);
  g_test_add_func ("/ui/editors/upload-progress", test_editors_upload_progress);

  return g_test_run ();
}
