/* riv-form.c
 * Copyright 2026 The Rivulet authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "config.h"

#include <glib/gi18n.h>

#include "riv-a11y.h"
#include "riv-form-private.h"
#include "riv-json.h"

enum {
  PROP_0,
  PROP_BUSY,
  PROP_N_INPUTS,
  N_PROPS
};

enum {
  ERROR,
  ACTIVATE,
  UPLOAD_PROGRESS,
  N_SIGNALS
};

G_DEFINE_FINAL_TYPE (RivForm, riv_form, ADW_TYPE_BIN)

static GParamSpec *properties[N_PROPS];
static guint signals[N_SIGNALS];

static void
input_free (gpointer data)
{
  Input *input = data;

  if (input->upload_cancellable != NULL)
    g_cancellable_cancel (input->upload_cancellable);
  g_clear_object (&input->upload_cancellable);
  g_clear_pointer (&input->choice_values, g_ptr_array_unref);
  g_clear_pointer (&input->override, json_node_unref);
  g_clear_pointer (&input->image_path, g_free);
  g_clear_pointer (&input->image_name, g_free);
  g_clear_pointer (&input->checks, g_ptr_array_unref);
  g_clear_pointer (&input->files, g_ptr_array_unref);
  g_clear_pointer (&input->headers, g_ptr_array_unref);
  g_clear_pointer (&input->datatypes, g_ptr_array_unref);
  g_clear_pointer (&input->owned_component, riv_component_free);
  g_free (input);
}

void
_riv_form_set_busy_delta (RivForm *self,
                         int      delta)
{
  gboolean was_busy = self->n_uploads > 0;

  self->n_uploads = (guint) MAX (0, (int) self->n_uploads + delta);
  if (was_busy != (self->n_uploads > 0))
    g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_BUSY]);
}

/* Image inputs */

void
_riv_form_emit_error (RivForm    *self,
                      const char *message)
{
  g_signal_emit (self, signals[ERROR], 0, message);
}

void
_riv_form_emit_activate (RivForm *self)
{
  g_signal_emit (self, signals[ACTIVATE], 0);
}

void
_riv_form_emit_progress (RivForm    *self,
                         const char *name,
                         double      fraction)
{
  g_signal_emit (self, signals[UPLOAD_PROGRESS], 0, name, fraction);
}

/* GObject */

static void
riv_form_dispose (GObject *object)
{
  RivForm *self = (RivForm *) object;

  g_cancellable_cancel (self->cancellable);
  if (self->inputs != NULL)
    g_ptr_array_set_size (self->inputs, 0);
  g_clear_object (&self->client);
  g_clear_pointer (&self->config, riv_config_unref);
  self->endpoint = NULL;

  G_OBJECT_CLASS (riv_form_parent_class)->dispose (object);
}

static void
riv_form_finalize (GObject *object)
{
  RivForm *self = (RivForm *) object;

  g_clear_pointer (&self->inputs, g_ptr_array_unref);
  g_clear_object (&self->cancellable);

  G_OBJECT_CLASS (riv_form_parent_class)->finalize (object);
}

static void
riv_form_get_property (GObject    *object,
                       guint       prop_id,
                       GValue     *value,
                       GParamSpec *pspec)
{
  RivForm *self = RIV_FORM (object);

  switch (prop_id)
    {
    case PROP_BUSY:
      g_value_set_boolean (value, riv_form_get_busy (self));
      break;
    case PROP_N_INPUTS:
      g_value_set_uint (value, riv_form_get_n_inputs (self));
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
riv_form_class_init (RivFormClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->dispose = riv_form_dispose;
  object_class->finalize = riv_form_finalize;
  object_class->get_property = riv_form_get_property;

  properties[PROP_BUSY] =
    g_param_spec_boolean ("busy", NULL, NULL, FALSE,
                          (G_PARAM_READABLE | G_PARAM_STATIC_STRINGS));
  properties[PROP_N_INPUTS] =
    g_param_spec_uint ("n-inputs", NULL, NULL, 0, G_MAXUINT, 0,
                       (G_PARAM_READABLE | G_PARAM_STATIC_STRINGS));
  g_object_class_install_properties (object_class, N_PROPS, properties);

  signals[ERROR] =
    g_signal_new ("error", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST,
                  0, NULL, NULL, NULL, G_TYPE_NONE, 1, G_TYPE_STRING);
  signals[ACTIVATE] =
    g_signal_new ("activate", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST,
                  0, NULL, NULL, NULL, G_TYPE_NONE, 0);
  signals[UPLOAD_PROGRESS] =
    g_signal_new ("upload-progress", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST,
                  0, NULL, NULL, NULL, G_TYPE_NONE, 2, G_TYPE_STRING, G_TYPE_DOUBLE);
}

static void
riv_form_init (RivForm *self)
{
  self->inputs = g_ptr_array_new_with_free_func (input_free);
  self->cancellable = g_cancellable_new ();
}

GtkWidget *
riv_form_new (void)
{
  return g_object_new (RIV_TYPE_FORM, NULL);
}

/* A short text of a sample value: a string as it is, a file by its name,
 * anything else as JSON; cut to a few words. */
static char *
describe_value (JsonNode *value)
{
  g_autofree char *text = NULL;

  if (JSON_NODE_HOLDS_VALUE (value) && json_node_get_value_type (value) == G_TYPE_STRING)
    text = g_strdup (json_node_get_string (value));
  else if (JSON_NODE_HOLDS_OBJECT (value) &&
           (riv_json_get_string (json_node_get_object (value), "orig_name") != NULL ||
            riv_json_get_string (json_node_get_object (value), "path") != NULL))
    text = _riv_form_file_name (json_node_get_object (value));
  else
    text = riv_json_to_display (value);
  if (g_utf8_strlen (text, -1) > 40)
    {
      g_autofree char *cut = g_utf8_substring (text, 0, 39);

      return g_strconcat (cut, "…", NULL);
    }
  return g_steal_pointer (&text);
}

static void
example_activated_cb (AdwActionRow *row,
                      RivForm      *self)
{
  guint index = GPOINTER_TO_UINT (g_object_get_data (G_OBJECT (row), "riv-example"));
  g_autoptr(JsonNode) data = NULL;
  g_autoptr(GError) error = NULL;

  if (self->endpoint == NULL || index >= riv_endpoint_get_n_examples (self->endpoint))
    return;
  data = riv_endpoint_dup_example (self->endpoint, index);
  if (!riv_form_set_data (self, data, &error))
    g_signal_emit (self, signals[ERROR], 0, error->message);
}

/* Whether a file is a picture: an image input's, or one whose type or name says so. */
static gboolean
is_picture (RivComponent *input,
            JsonObject   *file)
{
  const char *mime = riv_json_get_string (file, "mime_type");
  g_autofree char *name = _riv_form_file_name (file);
  g_autofree char *guessed = g_content_type_guess (name, NULL, 0, NULL);

  return g_strcmp0 (input->type, "image") == 0 ||
         (mime != NULL && g_str_has_prefix (mime, "image/")) ||
         g_content_type_is_a (guessed, "image/*");
}

/* An example's file, at the start of its row: a thumbnail of a picture
 * (downloaded from the server), an icon for any other file. */
static void
add_example_file (RivForm      *self,
                  GtkWidget    *row,
                  RivComponent *input,
                  JsonNode     *value)
{
  JsonObject *file;
  g_autofree char *name = NULL;
  GtkWidget *prefix;

  if (value == NULL || !JSON_NODE_HOLDS_OBJECT (value) ||
      !riv_client_is_file_data (file = json_node_get_object (value)))
    return;
  name = _riv_form_file_name (file);
  if (is_picture (input, file))
    {
      prefix = gtk_picture_new ();
      gtk_picture_set_can_shrink (GTK_PICTURE (prefix), TRUE);
#if GTK_CHECK_VERSION (4, 8, 0)
      gtk_picture_set_content_fit (GTK_PICTURE (prefix), GTK_CONTENT_FIT_COVER);
#endif
      gtk_picture_set_alternative_text (GTK_PICTURE (prefix), name);
      gtk_widget_set_size_request (prefix, 48, 48);
      gtk_widget_set_valign (prefix, GTK_ALIGN_CENTER);
      gtk_widget_add_css_class (prefix, "riv-example-thumbnail");
      _riv_form_fetch_picture (self, file, prefix);
    }
  else
    {
      prefix = gtk_image_new_from_icon_name ("text-x-generic-symbolic");
      gtk_widget_set_tooltip_text (prefix, name);
    }
  adw_action_row_add_prefix (ADW_ACTION_ROW (row), prefix);
}

/* The endpoint's examples (gr.Examples), as Gradio's page lists them under
 * the inputs: a row each, its label or its values; a click fills the form. */
static GtkWidget *
build_examples (RivForm     *self,
                RivEndpoint *endpoint)
{
  GtkWidget *group = adw_preferences_group_new ();
  guint n = riv_endpoint_get_n_examples (endpoint);

  adw_preferences_group_set_title (ADW_PREFERENCES_GROUP (group), _("Examples"));
  /* The columns' headers, as Gradio's table heads them, in the rows' order. */
  if (endpoint->example_headers != NULL &&
      g_strv_length (endpoint->example_headers) == endpoint->n_example_inputs)
    {
      g_autofree char *heads = g_strjoinv (" · ", endpoint->example_headers);
      GtkWidget *label = gtk_label_new (heads);

      gtk_widget_add_css_class (label, "dim-label");
      gtk_label_set_ellipsize (GTK_LABEL (label), PANGO_ELLIPSIZE_END);
      adw_preferences_group_set_header_suffix (ADW_PREFERENCES_GROUP (group), label);
    }
  if (endpoint->examples_cached)
    adw_preferences_group_set_description (ADW_PREFERENCES_GROUP (group),
      _("Cached: the app answers these from its cache, not by running them"));
  for (guint i = 0; i < n; i++)
    {
      g_autoptr(JsonNode) example = riv_endpoint_dup_example (endpoint, i);
      JsonArray *values = json_node_get_array (example);
      g_autoptr(GString) text = g_string_new (NULL);
      GtkWidget *row = adw_action_row_new ();
      GtkWidget *icon = gtk_image_new_from_icon_name ("go-previous-symbolic");

      for (guint k = 0; k < endpoint->n_example_inputs; k++)
        {
          JsonNode *value = json_array_get_element (values, endpoint->example_inputs[k]);
          g_autofree char *part = describe_value (value);

          g_string_append_printf (text, "%s%s", k > 0 ? " · " : "", part);
          add_example_file (self, row, g_ptr_array_index (endpoint->inputs, endpoint->example_inputs[k]),
                            value);
        }
      if (endpoint->example_labels != NULL)
        {
          adw_preferences_row_set_title (ADW_PREFERENCES_ROW (row), endpoint->example_labels[i]);
          adw_action_row_set_subtitle (ADW_ACTION_ROW (row), text->str);
        }
      else
        adw_preferences_row_set_title (ADW_PREFERENCES_ROW (row), text->str);
      adw_preferences_row_set_use_underline (ADW_PREFERENCES_ROW (row), FALSE);
      gtk_widget_set_tooltip_text (row, _("Fill the inputs with this example"));
      adw_action_row_add_suffix (ADW_ACTION_ROW (row), icon);
      gtk_list_box_row_set_activatable (GTK_LIST_BOX_ROW (row), TRUE);
      g_object_set_data (G_OBJECT (row), "riv-example", GUINT_TO_POINTER (i));
      g_signal_connect_object (row, "activated", G_CALLBACK (example_activated_cb), self, 0);
      adw_preferences_group_add (ADW_PREFERENCES_GROUP (group), row);
    }
  {
    GtkWidget *row = adw_action_row_new ();

    self->use_examples = gtk_switch_new ();
    gtk_widget_set_valign (self->use_examples, GTK_ALIGN_CENTER);
    adw_preferences_row_set_title (ADW_PREFERENCES_ROW (row), _("Burst and Load Test Use Them"));
    adw_action_row_set_subtitle (ADW_ACTION_ROW (row),
                                 _("Each job takes the next example, “{i}” and “{u}” replaced"));
    adw_action_row_add_suffix (ADW_ACTION_ROW (row), self->use_examples);
    adw_action_row_set_activatable_widget (ADW_ACTION_ROW (row), self->use_examples);
    riv_a11y_set_name (self->use_examples, _("Burst and Load Test Use Them"));
    adw_preferences_group_add (ADW_PREFERENCES_GROUP (group), row);
  }
  return group;
}

GPtrArray *
riv_form_dup_examples (RivForm *self)
{
  GPtrArray *examples;

  g_return_val_if_fail (RIV_IS_FORM (self), NULL);

  if (self->endpoint == NULL || self->use_examples == NULL ||
      !gtk_switch_get_active (GTK_SWITCH (self->use_examples)))
    return NULL;
  examples = g_ptr_array_new_with_free_func ((GDestroyNotify) json_node_unref);
  for (guint i = 0; i < riv_endpoint_get_n_examples (self->endpoint); i++)
    g_ptr_array_add (examples, riv_endpoint_dup_example (self->endpoint, i));
  return examples;
}

/* A typed parameter's row says its type and whether it is required: as
 * the subtitle of an action row, as a badge on an entry row (a JSON row
 * has its badge already); its description is the row's tooltip. */
static void
describe_parameter (Input     *input,
                    GtkWidget *row)
{
  const RivParameter *parameter = input->parameter;
  const char *type = parameter->python_type != NULL ? parameter->python_type
                                                    : parameter->schema_type;
  g_autofree char *text = NULL;

  if (type == NULL)
    type = "";
  /* TRANSLATORS: under an API parameter: its Python type, then that it must be given */
  text = parameter->has_default ? g_strdup (type) : g_strdup_printf (_("%s · required"), type);
  if (ADW_IS_ACTION_ROW (row))
    adw_action_row_set_subtitle (ADW_ACTION_ROW (row), text);
  else if (ADW_IS_ENTRY_ROW (row) && input->kind != RIV_FORM_INPUT_JSON)
    {
      GtkWidget *badge = gtk_label_new (text);

      gtk_widget_add_css_class (badge, "riv-badge");
      gtk_widget_set_valign (badge, GTK_ALIGN_CENTER);
      adw_entry_row_add_suffix (ADW_ENTRY_ROW (row), badge);
    }
  if (parameter->description != NULL)
    gtk_widget_set_tooltip_text (row, parameter->description);
}

/* Typed parameters stand for gr.api's (and gr.Server's) inputs, which have
 * no components of their own: each gets an editor by its type. */
static void
use_parameter (Input       *input,
               RivEndpoint *endpoint,
               guint        position)
{
  if (!riv_endpoint_is_api_only (endpoint) || endpoint->api_parameters == NULL ||
      endpoint->api_parameters->len != endpoint->inputs->len)
    return;
  input->parameter = g_ptr_array_index (endpoint->api_parameters, position);
  input->owned_component = riv_parameter_new_component (input->parameter);
  input->component = input->owned_component;
}

void
riv_form_set_endpoint (RivForm     *self,
                       RivConfig   *config,
                       RivEndpoint *endpoint)
{
  GtkWidget *group;
  guint n_shown = 0;

  g_return_if_fail (RIV_IS_FORM (self));
  g_return_if_fail (endpoint == NULL || config != NULL);

  /* Pending uploads belong to the old rows. */
  for (guint i = 0; i < self->inputs->len; i++)
    {
      Input *input = g_ptr_array_index (self->inputs, i);

      if (input->upload_cancellable != NULL)
        _riv_form_set_busy_delta (self, -1);
    }
  g_ptr_array_set_size (self->inputs, 0);
  self->use_examples = NULL;

  if (config != NULL)
    riv_config_ref (config);
  g_clear_pointer (&self->config, riv_config_unref);
  self->config = config;
  self->endpoint = endpoint;

  group = adw_preferences_group_new ();
  adw_preferences_group_set_title (ADW_PREFERENCES_GROUP (group), _("Inputs"));
  self->group = group;

  for (guint i = 0; endpoint != NULL && i < endpoint->inputs->len; i++)
    {
      Input *input = g_new0 (Input, 1);
      GtkWidget *row;

      input->form = self;
      input->component = g_ptr_array_index (endpoint->inputs, i);
      use_parameter (input, endpoint, i);
      g_ptr_array_add (self->inputs, input);

      if ((row = _riv_form_build_row (self, input)) != NULL)
        {
          if (input->parameter != NULL)
            describe_parameter (input, row);
          adw_preferences_group_add (ADW_PREFERENCES_GROUP (group), row);
          n_shown++;
        }
    }

  if (endpoint != NULL && endpoint->renders)
    adw_preferences_group_set_description (ADW_PREFERENCES_GROUP (group),
      /* TRANSLATORS: the form of a gr.render endpoint */
      _("Renders components: its output is a new layout, shown as the list of what it made."));
  else if (endpoint != NULL && n_shown == 0)
    adw_preferences_group_set_description (ADW_PREFERENCES_GROUP (group),
                                           _("This endpoint takes no inputs."));
  else if (endpoint != NULL && endpoint->description != NULL)
    adw_preferences_group_set_description (ADW_PREFERENCES_GROUP (group), endpoint->description);

  if (endpoint != NULL && riv_endpoint_get_n_examples (endpoint) > 0)
    {
      GtkWidget *box = gtk_box_new (GTK_ORIENTATION_VERTICAL, 18);

      gtk_box_append (GTK_BOX (box), group);
      gtk_box_append (GTK_BOX (box), build_examples (self, endpoint));
      adw_bin_set_child (ADW_BIN (self), box);
    }
  else
    adw_bin_set_child (ADW_BIN (self), group);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_N_INPUTS]);
}

RivEndpoint *
riv_form_get_endpoint (RivForm *self)
{
  g_return_val_if_fail (RIV_IS_FORM (self), NULL);

  return self->endpoint;
}

void
riv_form_set_client (RivForm   *self,
                     RivClient *client)
{
  g_return_if_fail (RIV_IS_FORM (self));
  g_return_if_fail (client == NULL || RIV_IS_CLIENT (client));

  g_set_object (&self->client, client);
}

gboolean
riv_form_get_busy (RivForm *self)
{
  g_return_val_if_fail (RIV_IS_FORM (self), FALSE);

  return self->n_uploads > 0;
}

guint
riv_form_get_n_inputs (RivForm *self)
{
  g_return_val_if_fail (RIV_IS_FORM (self), 0);

  return self->inputs->len;
}

RivFormInputKind
riv_form_get_input_kind (RivForm *self,
                         guint    position)
{
  g_return_val_if_fail (RIV_IS_FORM (self), RIV_FORM_INPUT_UNSUPPORTED);
  g_return_val_if_fail (position < self->inputs->len, RIV_FORM_INPUT_UNSUPPORTED);

  return ((Input *) g_ptr_array_index (self->inputs, position))->kind;
}

GtkWidget *
riv_form_get_input_widget (RivForm *self,
                           guint    position)
{
  g_return_val_if_fail (RIV_IS_FORM (self), NULL);
  g_return_val_if_fail (position < self->inputs->len, NULL);

  return ((Input *) g_ptr_array_index (self->inputs, position))->widget;
}

GtkWidget *
riv_form_get_input_row (RivForm *self,
                        guint    position)
{
  g_return_val_if_fail (RIV_IS_FORM (self), NULL);
  g_return_val_if_fail (position < self->inputs->len, NULL);

  return ((Input *) g_ptr_array_index (self->inputs, position))->row;
}

JsonNode *
riv_form_dup_data (RivForm *self)
{
  g_autoptr(JsonArray) array = NULL;

  g_return_val_if_fail (RIV_IS_FORM (self), NULL);

  array = json_array_sized_new (self->inputs->len);
  for (guint i = 0; i < self->inputs->len; i++)
    json_array_add_element (array,
                            _riv_form_input_dup_value (g_ptr_array_index (self->inputs, i)));

  return json_node_init_array (json_node_alloc (), array);
}

gboolean
riv_form_set_data (RivForm   *self,
                   JsonNode  *data,
                   GError   **error)
{
  JsonArray *array;

  g_return_val_if_fail (RIV_IS_FORM (self), FALSE);
  g_return_val_if_fail (data != NULL, FALSE);

  if (!JSON_NODE_HOLDS_ARRAY (data))
    {
      g_set_error_literal (error, RIV_CLIENT_ERROR, RIV_CLIENT_ERROR_BAD_INPUT,
                           _("The data must be a JSON array with one value per input"));
      return FALSE;
    }

  array = json_node_get_array (data);
  if (json_array_get_length (array) > self->inputs->len)
    {
      g_set_error (error, RIV_CLIENT_ERROR, RIV_CLIENT_ERROR_BAD_INPUT,
                   g_dngettext (GETTEXT_PACKAGE,
                                "The data has %u values but the endpoint takes %u input",
                                "The data has %u values but the endpoint takes %u inputs",
                                self->inputs->len),
                   json_array_get_length (array), self->inputs->len);
      return FALSE;
    }

  for (guint i = 0; i < json_array_get_length (array); i++)
    if (!_riv_form_input_set_value (g_ptr_array_index (self->inputs, i), i,
                                    json_array_get_element (array, i), error))
      return FALSE;

  return TRUE;
}

void
riv_form_set_image_file (RivForm *self,
                         guint    position,
                         GFile   *file)
{
  riv_form_add_file (self, position, file);
}

gboolean
riv_form_check (RivForm  *self,
                GError  **error)
{
  g_return_val_if_fail (RIV_IS_FORM (self), FALSE);

  for (guint i = 0; i < self->inputs->len; i++)
    {
      Input *input = g_ptr_array_index (self->inputs, i);
      g_autofree char *problem = _riv_form_input_check (input);

      if (problem != NULL)
        {
          /* Translators: an input's label, then what is wrong with its value */
          g_set_error (error, RIV_CLIENT_ERROR, RIV_CLIENT_ERROR_BAD_INPUT, _("“%s”: %s"),
                       _riv_form_component_title (input->component), problem);
          return FALSE;
        }
    }
  return TRUE;
}

void
riv_form_add_file (RivForm *self,
                   guint    position,
                   GFile   *file)
{
  Input *input;

  g_return_if_fail (RIV_IS_FORM (self));
  g_return_if_fail (position < self->inputs->len);
  g_return_if_fail (G_IS_FILE (file));

  input = g_ptr_array_index (self->inputs, position);
  if (input->kind == RIV_FORM_INPUT_IMAGE)
    _riv_form_image_use_file (input, file);
  else
    {
      g_return_if_fail (input->kind == RIV_FORM_INPUT_FILES ||
                        input->kind == RIV_FORM_INPUT_MULTIMODAL);
      _riv_form_add_file (input, file);
    }
}
