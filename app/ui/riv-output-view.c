/* riv-output-view.c
 * Copyright 2026 The Rivulet authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "config.h"

#include <glib/gi18n.h>
#include <string.h>

#include "riv-format.h"
#include "riv-job.h"
#include "riv-json.h"
#include "riv-output-view-test.h"
#include "riv-stream-quality.h"

struct _RivOutputView
{
  AdwBin          parent_instance;

  /* Template widgets */
  GtkStack       *outer_stack;
  GtkStack       *inner_stack;
  GtkBox         *header_box;
  GtkBox         *output_box;
  GtkWidget      *job_box;
  GtkLabel       *title_label;
  GtkLabel       *status_label;
  GtkProgressBar *progress_bar;
  GtkWidget      *picture_frame;
  GtkPicture     *picture;
  GtkLabel       *frames_label;
  GtkWidget      *text_frame;
  GtkWidget      *copy_text_button;
  GtkWidget      *copy_image_button;
  GtkWidget      *save_image_button;
  GtkLabel       *placeholder_label;
  GtkTextView    *text_view;
  GtkLabel       *timeline_label;
  GtkWidget      *cards_scroller;
  GtkBox         *cards_box;

  /* Owned references */
  RivJob         *job;            /* nullable */
  RivJob         *newest;         /* nullable: followed, shown at the next frame */
  GSignalGroup   *job_signals;
  GBytes         *shown_image;    /* nullable: the newest image bytes of the job */
  GBytes         *texture_bytes;  /* nullable: the bytes the picture's texture came from */
  JsonNode       *shown_outputs;  /* nullable: outputs shown as JSON */
  GString        *shown_text;     /* what the text buffer holds */
  RivConfig      *config;         /* nullable */
  RivClient      *client;         /* nullable */
  RivEndpoint    *endpoint;       /* nullable, borrowed from config */
  GPtrArray      *cards;          /* RivOutputCard*, in output order */
  GArray         *card_outputs;   /* guint: the output index of each card */
  char           *image_error;    /* nullable */
  int             image_index;    /* the output shown as the picture, or -1 */
  int             text_index;     /* the output shown as the text, or -1 */

  guint           tick_id;
  guint           n_frames;       /* textures shown for this job */
  guint           n_updates;      /* coalesced updates applied (for tests) */
  guint           shown_timeline_length;
  guint           shown_timeline_dropped;
  double          shown_timeline_last;
  guint           shown_timeline_updates;
  RivJobStatus    shown_status;
  gboolean        expect_image;
  gboolean        follow_end;     /* keep the text scrolled to the end */
  gboolean        has_text;
  gboolean        following;      /* showing the newest job given (follow_job ()) */
};

enum {
  PROP_0,
  PROP_HAS_IMAGE,
  PROP_HAS_TEXT,
  PROP_JOB,
  N_PROPS
};

G_DEFINE_FINAL_TYPE (RivOutputView, riv_output_view, ADW_TYPE_BIN)

static GParamSpec *properties[N_PROPS];

static void
riv_output_view_set_has_text (RivOutputView *self,
                              gboolean       has_text)
{
  has_text = !!has_text;
  if (self->has_text == has_text)
    return;
  self->has_text = has_text;
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_HAS_TEXT]);
}

static void
riv_output_view_set_texture_bytes (RivOutputView *self,
                                   GBytes        *bytes)
{
  gboolean had_image = self->texture_bytes != NULL;

  if (bytes == self->texture_bytes)
    return;
  g_clear_pointer (&self->texture_bytes, g_bytes_unref);
  if (bytes != NULL)
    self->texture_bytes = g_bytes_ref (bytes);
  if (had_image != (bytes != NULL))
    g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_HAS_IMAGE]);
}

static void
riv_output_view_update_text (RivOutputView *self,
                             const char    *text)
{
  GtkTextBuffer *buffer = gtk_text_view_get_buffer (self->text_view);
  gsize len = text != NULL ? strlen (text) : 0;
  GtkTextIter end;

  if (len == self->shown_text->len &&
      (len == 0 || memcmp (text, self->shown_text->str, len) == 0))
    return;

  if (len > self->shown_text->len &&
      memcmp (text, self->shown_text->str, self->shown_text->len) == 0)
    {
      /* The common streaming case: only the new tail goes into the buffer. */
      gtk_text_buffer_get_end_iter (buffer, &end);
      gtk_text_buffer_insert (buffer, &end, text + self->shown_text->len,
                              (int) (len - self->shown_text->len));
      g_string_append_len (self->shown_text, text + self->shown_text->len,
                           len - self->shown_text->len);
    }
  else
    {
      gtk_text_buffer_set_text (buffer, text != NULL ? text : "", (int) len);
      g_string_truncate (self->shown_text, 0);
      g_string_append_len (self->shown_text, text != NULL ? text : "", len);
    }

  if (self->follow_end)
    {
      GtkTextMark *mark = gtk_text_buffer_get_mark (buffer, "riv-end");

      gtk_text_buffer_get_end_iter (buffer, &end);
      gtk_text_buffer_move_mark (buffer, mark, &end);
      gtk_text_view_scroll_mark_onscreen (self->text_view, mark);
    }
}

static void
riv_output_view_update_timeline (RivOutputView *self)
{
  guint length = riv_job_get_timeline_length (self->job);
  guint dropped = riv_job_get_timeline_dropped (self->job);
  const RivJobEvent *last = length > 0 ? riv_job_get_timeline_event (self->job, length - 1) : NULL;
  double last_time = last != NULL ? last->time : -1;
  GString *text;

  if (length == self->shown_timeline_length && dropped == self->shown_timeline_dropped &&
      last_time == self->shown_timeline_last &&
      riv_job_get_n_updates (self->job) == self->shown_timeline_updates)
    return;

  self->shown_timeline_length = length;
  self->shown_timeline_dropped = dropped;
  self->shown_timeline_last = last_time;
  self->shown_timeline_updates = riv_job_get_n_updates (self->job);

  text = g_string_new (NULL);
  for (guint i = 0; i < length; i++)
    {
      const RivJobEvent *event = riv_job_get_timeline_event (self->job, i);

      if (event == NULL)
        continue;
      g_string_append_printf (text, "%9.3f s  %s\n", event->time,
                              event->what != NULL ? event->what : "");
      /* The timeline keeps the first few and the latest events. */
      if (dropped > 0 && i + 1 < length && i == RIV_JOB_TIMELINE_MAX / 4 - 1)
        g_string_append_printf (text,
                                g_dngettext (GETTEXT_PACKAGE,
                                             "            … %u event not kept …\n",
                                             "            … %u events not kept …\n",
                                             dropped),
                                dropped);
    }
  if (riv_job_get_n_gaps (self->job) > 0)
    {
      g_autofree char *largest = riv_format_duration (riv_job_get_max_gap (self->job));
      g_autofree char *median = riv_format_duration (
        riv_sketch_quantile (riv_job_get_gaps (self->job), 0.5));
      guint stalls = riv_job_count_stalls (self->job, RIV_STREAM_STALL_DEFAULT_S);

      /* TRANSLATORS: the Timeline's last line: the job's streamed updates, the median and the
       * longest time between two of them, and how many of those were over a second */
      g_string_append_printf (text, _("%u updates · gap p50 %s · largest %s · %u stalls"),
                              riv_job_get_n_updates (self->job), median, largest, stalls);
    }
  if (text->len == 0)
    g_string_append (text, _("No events yet."));
  else if (text->str[text->len - 1] == '\n')
    g_string_truncate (text, text->len - 1);

  gtk_label_set_text (self->timeline_label, text->str);
  g_string_free (text, TRUE);
}

/* gr.ChatInterface's API endpoint answers with a hidden JSON output named
 * "Response" beside the history's State: its value is the bot's reply. */
static gboolean
is_chat_response (RivEndpoint  *endpoint,
                  RivComponent *component)
{
  JsonNode *visible = json_object_get_member (component->props, "visible");
  gboolean has_state = FALSE;

  for (guint i = 0; i < endpoint->outputs->len; i++)
    has_state |= ((RivComponent *) g_ptr_array_index (endpoint->outputs, i))->is_state;
  return has_state && g_strcmp0 (component->type, "json") == 0 &&
         g_strcmp0 (component->label, "Response") == 0 && visible != NULL &&
         JSON_NODE_HOLDS_VALUE (visible) && json_node_get_value_type (visible) == G_TYPE_BOOLEAN &&
         !json_node_get_boolean (visible);
}

/* The endpoint's first image is the picture. An endpoint of only that and a
 * textbox keeps the classic view (picture and streaming text); any other
 * shows every other output as a card, each titled with its label. */

/* The card of output i. gr.api's outputs (type "api") are named from /info's
 * returns: "Result" with its Python type, numbered when there are several. */
static GtkWidget *
new_card (RivOutputView *self,
          RivEndpoint   *endpoint,
          guint          i,
          RivComponent  *component)
{
  RivComponent named;
  RivReturn *value;
  g_autofree char *label = NULL;

  if (g_strcmp0 (component->type, "api") != 0 || endpoint->api_returns == NULL ||
      i >= endpoint->api_returns->len)
    return riv_output_card_new (component, self->client);
  value = g_ptr_array_index (endpoint->api_returns, i);
  if (endpoint->api_returns->len == 1)
    label = value->python_type != NULL
              /* TRANSLATORS: the output of an API endpoint, with its Python type */
              ? g_strdup_printf (_("Result (%s)"), value->python_type) : g_strdup (_("Result"));
  else
    label = value->python_type != NULL
              /* TRANSLATORS: one of an API endpoint's outputs: its number, its Python type */
              ? g_strdup_printf (_("Result %u (%s)"), i + 1, value->python_type)
              : g_strdup_printf (_("Result %u"), i + 1);
  named = *component;
  named.label = label;
  return riv_output_card_new (&named, self->client);
}

/* gr.render: one card saying what the job rendered (its one output is the
 * column or row the components go into, no value to show). */
static void
add_render_card (RivOutputView *self)
{
  g_autoptr(JsonObject) props = json_object_new ();
  RivComponent rendered = { .id = -1, .type = (char *) "markdown", .props = props, .lines = 1 };
  GtkWidget *card;
  guint none = G_MAXUINT;

  self->image_index = -1;
  self->text_index = -1;
  /* TRANSLATORS: the output of a gr.render endpoint: the components it put on the page */
  rendered.label = (char *) _("Rendered components");
  card = riv_output_card_new (&rendered, self->client);
  gtk_box_append (self->cards_box, card);
  g_ptr_array_add (self->cards, card);
  g_array_append_val (self->card_outputs, none);
}

/* The render card's text: the components the job's completion rendered. */
static JsonNode *
render_summary (RivJob *job)
{
  const char * const *rendered = riv_job_get_rendered (job);
  g_autofree char *list = NULL;
  g_autofree char *text = NULL;
  guint n;

  if (riv_job_get_status (job) != RIV_JOB_STATUS_COMPLETED)
    return NULL;
  if (rendered == NULL)
    return json_node_init_string (json_node_alloc (), _("It rendered no components."));
  n = g_strv_length ((char **) rendered);
  list = g_strjoinv ("\n- ", (char **) rendered);
  text = g_strdup_printf (g_dngettext (GETTEXT_PACKAGE, "It rendered %u component:\n\n- %s",
                                       "It rendered %u components:\n\n- %s", n), n, list);
  return json_node_init_string (json_node_alloc (), text);
}

static void
riv_output_view_set_endpoint (RivOutputView *self,
                              RivEndpoint   *endpoint)
{
  GtkWidget *child;
  gboolean classic = TRUE;

  if (endpoint == self->endpoint && endpoint != NULL)
    return;
  self->endpoint = endpoint;
  while ((child = gtk_widget_get_first_child (GTK_WIDGET (self->cards_box))) != NULL)
    gtk_box_remove (self->cards_box, child);
  g_ptr_array_set_size (self->cards, 0);
  g_array_set_size (self->card_outputs, 0);
  self->image_index = -1;
  self->text_index = -1;

  for (guint i = 0; endpoint != NULL && i < endpoint->outputs->len; i++)
    {
      RivComponent *component = g_ptr_array_index (endpoint->outputs, i);

      if (component->is_state)
        continue;
      if (self->image_index < 0 && g_strcmp0 (component->type, "image") == 0)
        self->image_index = (int) i;
      else if (self->text_index < 0 && g_strcmp0 (component->type, "textbox") == 0)
        self->text_index = (int) i;
      else
        classic = FALSE;
    }
  if (!classic)
    self->text_index = -1;

  if (endpoint != NULL && endpoint->renders)
    {
      add_render_card (self);
      return;
    }
  for (guint i = 0; endpoint != NULL && i < endpoint->outputs->len; i++)
    {
      RivComponent *component = g_ptr_array_index (endpoint->outputs, i);
      GtkWidget *card;

      if (component->is_state || (int) i == self->image_index || (int) i == self->text_index)
        continue;
      card = new_card (self, endpoint, i, component);
      if (is_chat_response (endpoint, component))
        riv_output_card_set_chat_reply (RIV_OUTPUT_CARD (card), TRUE);
      gtk_box_append (self->cards_box, card);
      g_ptr_array_add (self->cards, card);
      g_array_append_val (self->card_outputs, i);
    }
}

static void
riv_output_view_update_cards (RivOutputView *self)
{
  JsonNode *outputs = riv_job_get_outputs (self->job);
  JsonArray *array = outputs != NULL && JSON_NODE_HOLDS_ARRAY (outputs)
                       ? json_node_get_array (outputs) : NULL;

  if (self->endpoint != NULL && self->endpoint->renders && self->cards->len == 1)
    {
      g_autoptr(JsonNode) summary = render_summary (self->job);

      riv_output_card_set_value (g_ptr_array_index (self->cards, 0), summary, self->job);
      return;
    }
  for (guint i = 0; i < self->cards->len; i++)
    {
      guint index = g_array_index (self->card_outputs, guint, i);
      JsonNode *value = array != NULL && index < json_array_get_length (array)
                          ? json_array_get_element (array, index) : NULL;

      riv_output_card_set_value (g_ptr_array_index (self->cards, i), value, self->job);
    }
}

/* The classic view's textbox given a gr.update: its value, or the text
 * already shown when it has none (gr.skip). FALSE when it is no update. */
static gboolean
classic_update_text (RivOutputView  *self,
                     JsonNode       *outputs,
                     const char    **text)
{
  JsonArray *array = outputs != NULL && JSON_NODE_HOLDS_ARRAY (outputs)
                       ? json_node_get_array (outputs) : NULL;
  JsonNode *element, *value;
  JsonObject *update;

  if (self->text_index < 0 || array == NULL ||
      (guint) self->text_index >= json_array_get_length (array))
    return FALSE;
  element = json_array_get_element (array, (guint) self->text_index);
  update = JSON_NODE_HOLDS_OBJECT (element) ? json_node_get_object (element) : NULL;
  if (g_strcmp0 (riv_json_get_string (update, "__type__"), "update") != 0)
    return FALSE;
  value = json_object_get_member (update, "value");
  if (value == NULL)
    *text = self->shown_text->str;
  else if (JSON_NODE_HOLDS_VALUE (value) && json_node_get_value_type (value) == G_TYPE_STRING)
    *text = json_node_get_string (value);
  else
    *text = NULL;
  return TRUE;
}

/* The classic view's textbox hidden or renamed by an update becomes a card,
 * which can say so (the text pane has no title), showing what the pane
 * showed until then. It stays a card for the endpoint's later jobs. */
static void
riv_output_view_maybe_promote_text (RivOutputView *self,
                                    JsonNode      *outputs)
{
  JsonArray *array = outputs != NULL && JSON_NODE_HOLDS_ARRAY (outputs)
                       ? json_node_get_array (outputs) : NULL;
  JsonNode *element, *visible;
  JsonObject *update;
  GtkWidget *card;
  guint index;

  if (self->text_index < 0 || self->endpoint == NULL || array == NULL ||
      (guint) self->text_index >= json_array_get_length (array))
    return;
  element = json_array_get_element (array, (guint) self->text_index);
  update = JSON_NODE_HOLDS_OBJECT (element) ? json_node_get_object (element) : NULL;
  if (g_strcmp0 (riv_json_get_string (update, "__type__"), "update") != 0)
    return;
  visible = json_object_get_member (update, "visible");
  if (!json_object_has_member (update, "label") &&
      (visible == NULL || (JSON_NODE_HOLDS_VALUE (visible) &&
                           json_node_get_value_type (visible) == G_TYPE_BOOLEAN &&
                           json_node_get_boolean (visible))))
    return;

  index = (guint) self->text_index;
  card = riv_output_card_new (g_ptr_array_index (self->endpoint->outputs, index), self->client);
  if (self->shown_text->len > 0)
    {
      g_autoptr(JsonNode) shown = json_node_init_string (json_node_alloc (), self->shown_text->str);

      riv_output_card_set_value (RIV_OUTPUT_CARD (card), shown, self->job);
    }
  gtk_box_append (self->cards_box, card);
  g_ptr_array_add (self->cards, card);
  g_array_append_val (self->card_outputs, index);
  self->text_index = -1;
}

/* The job's title and status line, the line in red while it failed or was lost. */
static void
riv_output_view_update_status (RivOutputView *self,
                               RivJob        *job,
                               RivJobStatus   status)
{
  g_autofree char *title = g_strdup_printf (_("Job #%u · %s"), riv_job_get_number (job),
                                            riv_job_get_endpoint (job) != NULL ? riv_job_get_endpoint (job) : "");
  g_autofree char *line = riv_format_status_line (job);
  gboolean bad = status == RIV_JOB_STATUS_FAILED || status == RIV_JOB_STATUS_LOST;

  gtk_label_set_text (self->title_label, title);
  gtk_label_set_text (self->status_label, line);
  if (status == self->shown_status)
    return;
  gtk_widget_remove_css_class (GTK_WIDGET (self->status_label), bad ? "dim-label" : "error");
  gtk_widget_add_css_class (GTK_WIDGET (self->status_label), bad ? "error" : "dim-label");
  self->shown_status = status;
}

/* Progress follows units or steps; a finished job shows a full bar. */
static void
riv_output_view_update_progress (RivOutputView *self,
                                 RivJob        *job,
                                 RivJobStatus   status)
{
  gint64 index = riv_job_get_progress_index (job);
  gint64 length = riv_job_get_progress_length (job);
  double fraction = riv_job_get_progress (job);

  if (status == RIV_JOB_STATUS_COMPLETED)
    fraction = 1;
  else if (fraction < 0 && index >= 0 && length > 0)
    fraction = (double) index / (double) length;
  else if (fraction < 0)
    fraction = 0;
  gtk_progress_bar_set_fraction (self->progress_bar, CLAMP (fraction, 0, 1));
}

/* The job's latest picture, when it is new: shown and counted, or what kept
 * it from decoding said in the picture's corner and in the job's timeline. */
static void
riv_output_view_update_picture (RivOutputView *self,
                                RivJob        *job,
                                GBytes        *image)
{
  g_autoptr(GdkTexture) texture = NULL;
  g_autoptr(GError) error = NULL;

  if (image == NULL || image == self->shown_image)
    return;
  texture = gdk_texture_new_from_bytes (image, &error);
  if (texture != NULL)
    {
      g_autofree char *frames = NULL;

      gtk_picture_set_paintable (self->picture, GDK_PAINTABLE (texture));
      riv_output_view_set_texture_bytes (self, image);
      g_clear_pointer (&self->image_error, g_free);
      gtk_widget_remove_css_class (GTK_WIDGET (self->frames_label), "riv-frame-error");
      self->n_frames++;
      frames = g_strdup_printf (g_dngettext (GETTEXT_PACKAGE, "%u frame", "%u frames",
                                             self->n_frames),
                                self->n_frames);
      gtk_label_set_text (self->frames_label, frames);
    }
  else
    {
      g_free (self->image_error);
      self->image_error = g_strdup_printf (_("Could not decode the image: %s"), error->message);
      gtk_label_set_text (self->frames_label, self->image_error);
      gtk_widget_add_css_class (GTK_WIDGET (self->frames_label), "riv-frame-error");
      riv_job_add_timeline (job, "%s", self->image_error);
    }

  g_clear_pointer (&self->shown_image, g_bytes_unref);
  self->shown_image = g_bytes_ref (image);
}

/* The text pane, when no cards show the outputs: the text output, else
 * non-text outputs (numbers, JSON) as compact JSON. */
static void
riv_output_view_update_text_pane (RivOutputView *self,
                                  RivJob        *job,
                                  GBytes        *image)
{
  const char *text = riv_job_get_output_text (job);
  JsonNode *outputs = riv_job_get_outputs (job);

  if (self->cards->len > 0)
    return;   /* The cards show every output but the picture. */
  if (classic_update_text (self, outputs, &text))
    riv_output_view_update_text (self, text);
  else if (text == NULL && image == NULL && outputs != NULL)
    {
      if (outputs != self->shown_outputs)
        {
          g_autofree char *json = riv_json_to_string (outputs, NULL);

          g_clear_pointer (&self->shown_outputs, json_node_unref);
          self->shown_outputs = json_node_ref (outputs);
          riv_output_view_update_text (self, json);
        }
    }
  else
    riv_output_view_update_text (self, text);
}

/* Which parts show: the picture, the text, the cards, their buttons, and the
 * text pane's placeholder. */
static void
riv_output_view_update_visibility (RivOutputView *self,
                                   RivJobStatus   status)
{
  gboolean has_image = self->expect_image || self->shown_image != NULL;
  gboolean has_text = self->cards->len > 0 ? self->text_index >= 0
                                           : !has_image || self->shown_text->len > 0;

  gtk_widget_set_visible (self->cards_scroller, self->cards->len > 0);
  gtk_widget_set_visible (self->picture_frame, has_image);
  gtk_widget_set_visible (GTK_WIDGET (self->frames_label),
                          self->n_frames > 0 || self->image_error != NULL);
  gtk_widget_set_visible (self->text_frame, has_text);
  gtk_widget_set_visible (self->copy_image_button, has_image);
  gtk_widget_set_visible (self->save_image_button, has_image);
  gtk_widget_set_visible (self->copy_text_button, has_text);
  riv_output_view_set_has_text (self, self->shown_text->len > 0);

  if (self->shown_text->len > 0)
    gtk_widget_set_visible (GTK_WIDGET (self->placeholder_label), FALSE);
  else
    {
      gtk_label_set_text (self->placeholder_label,
                          RIV_JOB_STATUS_IS_TERMINAL (status) ? _("No text output")
                                                              : _("Waiting for output…"));
      gtk_widget_set_visible (GTK_WIDGET (self->placeholder_label), TRUE);
    }
}

static void
riv_output_view_update (RivOutputView *self)
{
  RivJob *job = self->job;
  RivJobStatus status;
  GBytes *image;

  self->n_updates++;

  if (job == NULL)
    {
      gtk_stack_set_visible_child_name (self->outer_stack, "empty");
      riv_output_view_set_has_text (self, FALSE);
      return;
    }

  gtk_stack_set_visible_child_name (self->outer_stack, "job");
  status = riv_job_get_status (job);
  image = riv_job_get_image (job);
  riv_output_view_update_status (self, job, status);
  riv_output_view_update_progress (self, job, status);
  riv_output_view_update_picture (self, job, image);
  riv_output_view_maybe_promote_text (self, riv_job_get_outputs (job));
  riv_output_view_update_cards (self);
  riv_output_view_update_text_pane (self, job, image);
  riv_output_view_update_visibility (self, status);
  riv_output_view_update_timeline (self);
}

static void riv_output_view_replace_job (RivOutputView *self,
                                         RivJob        *job,
                                         RivConfig     *config);

/* Switches to the newest job followed, once per frame however many came. */
static void
riv_output_view_catch_up (RivOutputView *self)
{
  if (self->following && self->newest != self->job)
    riv_output_view_replace_job (self, self->newest,
                                 self->client != NULL ? riv_client_get_config (self->client)
                                                      : NULL);
}

static gboolean
riv_output_view_tick_cb (GtkWidget     *widget,
                         GdkFrameClock *frame_clock,
                         gpointer       user_data)
{
  RivOutputView *self = RIV_OUTPUT_VIEW (widget);

  riv_output_view_catch_up (self);
  self->tick_id = 0;
  riv_output_view_update (self);

  return G_SOURCE_REMOVE;
}

static void
riv_output_view_queue_update (RivOutputView *self)
{
  if (self->tick_id == 0)
    self->tick_id = gtk_widget_add_tick_callback (GTK_WIDGET (self), riv_output_view_tick_cb,
                                                  NULL, NULL);
}

static void
riv_output_view_job_notify_cb (RivOutputView *self,
                               GParamSpec    *pspec,
                               RivJob        *job)
{
  riv_output_view_queue_update (self);
}

static void
riv_output_view_vadjustment_changed_cb (RivOutputView *self,
                                        GtkAdjustment *adjustment)
{
  double value = gtk_adjustment_get_value (adjustment);
  double upper = gtk_adjustment_get_upper (adjustment);
  double page = gtk_adjustment_get_page_size (adjustment);

  /* Scrolling up stops following the end; scrolling back down resumes it. */
  self->follow_end = value + page >= upper - 8;
}

/* Dragging the picture out hands over the image itself. */

static GdkContentProvider *
riv_output_view_drag_prepare_cb (RivOutputView *self,
                                 double         x,
                                 double         y,
                                 GtkDragSource *source)
{
  GdkTexture *texture = riv_output_view_get_texture (self);

  if (texture == NULL)
    return NULL;
  return gdk_content_provider_new_typed (GDK_TYPE_TEXTURE, texture);
}

static void
riv_output_view_drag_begin_cb (RivOutputView *self,
                               GdkDrag       *drag,
                               GtkDragSource *source)
{
  GdkTexture *texture = riv_output_view_get_texture (self);
  g_autoptr(GtkSnapshot) snapshot = NULL;
  g_autoptr(GdkPaintable) icon = NULL;
  double width, height, scale;

  if (texture == NULL)
    return;

  /* A thumbnail, not the full-size image, follows the pointer. */
  width = gdk_texture_get_width (texture);
  height = gdk_texture_get_height (texture);
  scale = MIN (1.0, 128.0 / MAX (width, height));
  snapshot = gtk_snapshot_new ();
  gdk_paintable_snapshot (GDK_PAINTABLE (texture), GDK_SNAPSHOT (snapshot),
                          width * scale, height * scale);
  icon = gtk_snapshot_free_to_paintable (g_steal_pointer (&snapshot),
                                         &GRAPHENE_SIZE_INIT (width * scale, height * scale));
  gtk_drag_source_set_icon (source, icon, (int) (width * scale / 2), (int) (height * scale / 2));
}

static void
riv_output_view_get_property (GObject    *object,
                              guint       prop_id,
                              GValue     *value,
                              GParamSpec *pspec)
{
  RivOutputView *self = RIV_OUTPUT_VIEW (object);

  switch (prop_id)
    {
    case PROP_HAS_IMAGE:
      g_value_set_boolean (value, riv_output_view_get_texture (self) != NULL);
      break;
    case PROP_HAS_TEXT:
      g_value_set_boolean (value, riv_output_view_has_text (self));
      break;
    case PROP_JOB:
      g_value_set_object (value, self->job);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
riv_output_view_dispose (GObject *object)
{
  RivOutputView *self = (RivOutputView *) object;

  if (self->tick_id != 0)
    {
      gtk_widget_remove_tick_callback (GTK_WIDGET (self), self->tick_id);
      self->tick_id = 0;
    }
  if (self->job_signals != NULL)
    g_signal_group_set_target (self->job_signals, NULL);
  g_clear_object (&self->job_signals);
  g_clear_object (&self->job);
  g_clear_object (&self->newest);
  g_clear_pointer (&self->shown_image, g_bytes_unref);
  g_clear_pointer (&self->texture_bytes, g_bytes_unref);
  g_clear_pointer (&self->shown_outputs, json_node_unref);
  g_clear_pointer (&self->image_error, g_free);
  self->endpoint = NULL;
  g_clear_pointer (&self->config, riv_config_unref);

  /* AdwBin unparents its child itself; let it go before the template does. */
  adw_bin_set_child (ADW_BIN (self), NULL);
  g_clear_object (&self->client);
  gtk_widget_dispose_template (GTK_WIDGET (self), RIV_TYPE_OUTPUT_VIEW);

  G_OBJECT_CLASS (riv_output_view_parent_class)->dispose (object);
}

static void
riv_output_view_finalize (GObject *object)
{
  RivOutputView *self = (RivOutputView *) object;

  g_string_free (self->shown_text, TRUE);
  g_ptr_array_unref (self->cards);
  g_array_unref (self->card_outputs);

  G_OBJECT_CLASS (riv_output_view_parent_class)->finalize (object);
}

static void
riv_output_view_class_init (RivOutputViewClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->dispose = riv_output_view_dispose;
  object_class->finalize = riv_output_view_finalize;
  object_class->get_property = riv_output_view_get_property;

  properties[PROP_HAS_IMAGE] =
    g_param_spec_boolean ("has-image", NULL, NULL, FALSE,
                          (G_PARAM_READABLE | G_PARAM_STATIC_STRINGS));
  properties[PROP_HAS_TEXT] =
    g_param_spec_boolean ("has-text", NULL, NULL, FALSE,
                          (G_PARAM_READABLE | G_PARAM_STATIC_STRINGS));
  properties[PROP_JOB] =
    g_param_spec_object ("job", NULL, NULL, RIV_TYPE_JOB,
                         G_PARAM_READABLE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  g_object_class_install_properties (object_class, N_PROPS, properties);

  gtk_widget_class_set_template_from_resource (widget_class,
                                               RIV_RESOURCE_PATH "/ui/riv-output-view.ui");
  gtk_widget_class_bind_template_child (widget_class, RivOutputView, outer_stack);
  gtk_widget_class_bind_template_child (widget_class, RivOutputView, inner_stack);
  gtk_widget_class_bind_template_child (widget_class, RivOutputView, title_label);
  gtk_widget_class_bind_template_child (widget_class, RivOutputView, status_label);
  gtk_widget_class_bind_template_child (widget_class, RivOutputView, progress_bar);
  gtk_widget_class_bind_template_child (widget_class, RivOutputView, picture_frame);
  gtk_widget_class_bind_template_child (widget_class, RivOutputView, picture);
  gtk_widget_class_bind_template_child (widget_class, RivOutputView, frames_label);
  gtk_widget_class_bind_template_child (widget_class, RivOutputView, text_frame);
  gtk_widget_class_bind_template_child (widget_class, RivOutputView, header_box);
  gtk_widget_class_bind_template_child (widget_class, RivOutputView, output_box);
  gtk_widget_class_bind_template_child (widget_class, RivOutputView, job_box);
  gtk_widget_class_bind_template_child (widget_class, RivOutputView, copy_text_button);
  gtk_widget_class_bind_template_child (widget_class, RivOutputView, copy_image_button);
  gtk_widget_class_bind_template_child (widget_class, RivOutputView, save_image_button);
  gtk_widget_class_bind_template_child (widget_class, RivOutputView, placeholder_label);
  gtk_widget_class_bind_template_child (widget_class, RivOutputView, text_view);
  gtk_widget_class_bind_template_child (widget_class, RivOutputView, timeline_label);
  gtk_widget_class_bind_template_child (widget_class, RivOutputView, cards_scroller);
  gtk_widget_class_bind_template_child (widget_class, RivOutputView, cards_box);
}

static void
riv_output_view_init (RivOutputView *self)
{
  GtkTextBuffer *buffer;
  GtkTextIter end;
  GtkAdjustment *vadjustment;
  GtkDragSource *drag_source;

  gtk_widget_init_template (GTK_WIDGET (self));

  drag_source = gtk_drag_source_new ();
  gtk_drag_source_set_actions (drag_source, GDK_ACTION_COPY);
  g_signal_connect_object (drag_source, "prepare",
                           G_CALLBACK (riv_output_view_drag_prepare_cb), self, G_CONNECT_SWAPPED);
  g_signal_connect_object (drag_source, "drag-begin",
                           G_CALLBACK (riv_output_view_drag_begin_cb), self, G_CONNECT_SWAPPED);
  gtk_widget_add_controller (GTK_WIDGET (self->picture), GTK_EVENT_CONTROLLER (drag_source));

  self->shown_text = g_string_new (NULL);
  self->cards = g_ptr_array_new ();
  self->card_outputs = g_array_new (FALSE, FALSE, sizeof (guint));
  self->image_index = -1;
  self->text_index = -1;
  self->follow_end = TRUE;
  self->shown_status = (RivJobStatus) -1;

  buffer = gtk_text_view_get_buffer (self->text_view);
  gtk_text_buffer_get_end_iter (buffer, &end);
  gtk_text_buffer_create_mark (buffer, "riv-end", &end, FALSE);

  vadjustment = gtk_scrollable_get_vadjustment (GTK_SCROLLABLE (self->text_view));
  g_signal_connect_object (vadjustment, "value-changed",
                           G_CALLBACK (riv_output_view_vadjustment_changed_cb), self,
                           G_CONNECT_SWAPPED);

  self->job_signals = g_signal_group_new (RIV_TYPE_JOB);
  g_signal_group_connect_object (self->job_signals, "notify",
                                 G_CALLBACK (riv_output_view_job_notify_cb), self,
                                 G_CONNECT_SWAPPED);
}

GtkWidget *
riv_output_view_new (void)
{
  return g_object_new (RIV_TYPE_OUTPUT_VIEW, NULL);
}

static RivEndpoint *
find_endpoint (RivConfig *config,
               RivJob    *job)
{
  for (guint i = 0; config != NULL && job != NULL && i < riv_config_get_n_endpoints (config); i++)
    {
      RivEndpoint *endpoint = riv_config_get_endpoint (config, i);

      if (endpoint->fn_index == riv_job_get_fn_index (job))
        return endpoint;
    }
  return NULL;
}

void
riv_output_view_set_client (RivOutputView *self,
                            RivClient     *client)
{
  g_return_if_fail (RIV_IS_OUTPUT_VIEW (self));
  g_return_if_fail (client == NULL || RIV_IS_CLIENT (client));

  g_set_object (&self->client, client);
}

static void
riv_output_view_replace_job (RivOutputView *self,
                             RivJob        *job,
                             RivConfig     *config)
{
  gboolean new_job = job != self->job;

  if (!new_job && config == self->config)
    return;

  if (config != self->config)
    {
      /* The endpoint belongs to the old config: drop the cards first. */
      riv_output_view_set_endpoint (self, NULL);
      g_clear_pointer (&self->config, riv_config_unref);
      if (config != NULL)
        self->config = riv_config_ref (config);
    }
  riv_output_view_set_endpoint (self, find_endpoint (config, job));

  g_set_object (&self->job, job);
  g_signal_group_set_target (self->job_signals, job);

  self->expect_image = self->image_index >= 0;
  g_clear_pointer (&self->image_error, g_free);
  gtk_widget_remove_css_class (GTK_WIDGET (self->frames_label), "riv-frame-error");
  self->n_frames = 0;
  self->shown_status = (RivJobStatus) -1;
  self->shown_timeline_length = 0;
  self->shown_timeline_dropped = 0;
  self->shown_timeline_last = -1;
  self->shown_timeline_updates = G_MAXUINT;
  self->follow_end = TRUE;
  g_clear_pointer (&self->shown_image, g_bytes_unref);
  g_clear_pointer (&self->shown_outputs, json_node_unref);
  g_string_truncate (self->shown_text, 0);
  gtk_text_buffer_set_text (gtk_text_view_get_buffer (self->text_view), "", 0);
  gtk_picture_set_paintable (self->picture, NULL);
  riv_output_view_set_texture_bytes (self, NULL);
  riv_output_view_set_has_text (self, FALSE);

  riv_output_view_queue_update (self);
  if (new_job)
    g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_JOB]);
}

void
riv_output_view_set_job (RivOutputView *self,
                         RivJob        *job,
                         RivConfig     *config)
{
  g_return_if_fail (RIV_IS_OUTPUT_VIEW (self));
  g_return_if_fail (job == NULL || RIV_IS_JOB (job));

  self->following = FALSE;
  g_clear_object (&self->newest);
  riv_output_view_replace_job (self, job, config);
}

void
riv_output_view_follow_job (RivOutputView *self,
                            RivJob        *job)
{
  g_return_if_fail (RIV_IS_OUTPUT_VIEW (self));
  g_return_if_fail (job == NULL || RIV_IS_JOB (job));

  /* Called per submission: only remembered; the view switches once per frame. */
  self->following = TRUE;
  g_set_object (&self->newest, job);
  riv_output_view_queue_update (self);
}

/* Narrow (a phone): the buttons go below the job's title and status, the
 * picture above the text. */
void
riv_output_view_set_narrow (RivOutputView *self,
                            gboolean       narrow)
{
  GtkOrientation orientation = narrow ? GTK_ORIENTATION_VERTICAL : GTK_ORIENTATION_HORIZONTAL;

  g_return_if_fail (RIV_IS_OUTPUT_VIEW (self));

  gtk_orientable_set_orientation (GTK_ORIENTABLE (self->header_box), orientation);
  gtk_box_set_spacing (self->header_box, narrow ? 6 : 12);
  gtk_orientable_set_orientation (GTK_ORIENTABLE (self->output_box), orientation);
  gtk_widget_set_margin_start (self->job_box, narrow ? 12 : 18);
  gtk_widget_set_margin_end (self->job_box, narrow ? 12 : 18);
}

RivJob *
riv_output_view_get_job (RivOutputView *self)
{
  g_return_val_if_fail (RIV_IS_OUTPUT_VIEW (self), NULL);

  return self->job;
}

void
riv_output_view_flush (RivOutputView *self)
{
  g_return_if_fail (RIV_IS_OUTPUT_VIEW (self));

  if (self->tick_id != 0)
    {
      riv_output_view_catch_up (self);
      gtk_widget_remove_tick_callback (GTK_WIDGET (self), self->tick_id);
      self->tick_id = 0;
    }
  riv_output_view_update (self);
}

GtkPicture *
riv_output_view_get_picture (RivOutputView *self)
{
  g_return_val_if_fail (RIV_IS_OUTPUT_VIEW (self), NULL);
  return self->picture;
}

GtkTextView *
riv_output_view_get_text_view (RivOutputView *self)
{
  g_return_val_if_fail (RIV_IS_OUTPUT_VIEW (self), NULL);
  return self->text_view;
}

guint
riv_output_view_get_n_frames (RivOutputView *self)
{
  g_return_val_if_fail (RIV_IS_OUTPUT_VIEW (self), 0);
  return self->n_frames;
}

guint
riv_output_view_get_n_updates (RivOutputView *self)
{
  g_return_val_if_fail (RIV_IS_OUTPUT_VIEW (self), 0);
  return self->n_updates;
}

const char *
riv_output_view_get_status_text (RivOutputView *self)
{
  g_return_val_if_fail (RIV_IS_OUTPUT_VIEW (self), NULL);
  return gtk_label_get_text (self->status_label);
}

char *
riv_output_view_dup_timeline (RivOutputView *self)
{
  g_return_val_if_fail (RIV_IS_OUTPUT_VIEW (self), NULL);

  return g_strdup (gtk_label_get_text (self->timeline_label));
}

char *
riv_output_view_dup_text (RivOutputView *self)
{
  GtkTextBuffer *buffer;
  GtkTextIter start, end;

  g_return_val_if_fail (RIV_IS_OUTPUT_VIEW (self), NULL);

  buffer = gtk_text_view_get_buffer (self->text_view);
  gtk_text_buffer_get_bounds (buffer, &start, &end);
  return gtk_text_buffer_get_text (buffer, &start, &end, FALSE);
}

GdkTexture *
riv_output_view_get_texture (RivOutputView *self)
{
  GdkPaintable *paintable;

  g_return_val_if_fail (RIV_IS_OUTPUT_VIEW (self), NULL);

  paintable = gtk_picture_get_paintable (self->picture);
  if (self->texture_bytes == NULL || !GDK_IS_TEXTURE (paintable))
    return NULL;
  return GDK_TEXTURE (paintable);
}

GBytes *
riv_output_view_dup_png_bytes (RivOutputView *self)
{
  static const guint8 png_signature[8] = { 0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n' };
  GdkTexture *texture;
  gsize size;
  const guint8 *data;

  g_return_val_if_fail (RIV_IS_OUTPUT_VIEW (self), NULL);

  if ((texture = riv_output_view_get_texture (self)) == NULL)
    return NULL;

  /* The server's own PNG, byte for byte; other formats are converted. */
  data = g_bytes_get_data (self->texture_bytes, &size);
  if (size > sizeof png_signature && memcmp (data, png_signature, sizeof png_signature) == 0)
    return g_bytes_ref (self->texture_bytes);
  return gdk_texture_save_to_png_bytes (texture);
}

gboolean
riv_output_view_has_text (RivOutputView *self)
{
  g_return_val_if_fail (RIV_IS_OUTPUT_VIEW (self), FALSE);
  return self->has_text;
}

guint
riv_output_view_get_n_cards (RivOutputView *self)
{
  g_return_val_if_fail (RIV_IS_OUTPUT_VIEW (self), 0);
  return self->cards->len;
}

RivOutputCard *
riv_output_view_get_card (RivOutputView *self,
                          guint          i)
{
  g_return_val_if_fail (RIV_IS_OUTPUT_VIEW (self), NULL);
  return i < self->cards->len ? g_ptr_array_index (self->cards, i) : NULL;
}

const char *
riv_output_view_get_image_error (RivOutputView *self)
{
  g_return_val_if_fail (RIV_IS_OUTPUT_VIEW (self), NULL);
  return self->image_error;
}
