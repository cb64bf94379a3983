/* riv-demo.c
 * Copyright 2026 The Rivulet authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The demos' table and config, and three of the classic four (stream_text
 * is in riv-demo-text.c). Output conventions (the clients' tests rely on them):
 *  - fake_diffusion: one yield per step, each preceded by a progress message
 *    (index = steps done, length = steps, unit "steps"). Yield 1 carries full
 *    values [image FileData, "step 1/N"]; later yields replace both outputs.
 *  - stream_text: yield 1 is the first token, every later yield appends
 *    " " + token to the text. The completion carries the whole text.
 *  - batch_echo: returns its text input unchanged; batched up to 16.
 *  - rapid_generation: yield 1 is "1", yield i > 1 appends "\n" + i, so the
 *    final text is "1\n2\n…\nCOUNT" (no trailing newline; "" for count 0).
 *  - chat, gallery, mixed, logs: the shapes real apps stream (riv-demo-media.c
 *    says how); shapes_*: the shapes real apps return (riv-demo-shapes.c).
 */
#include "config.h"

#include <math.h>
#include <string.h>

#include <glib/gstdio.h>
#include <png.h>
#include <zlib.h>

#include "riv-demo.h"
#include "riv-demo-private.h"
#include "riv-json.h"
#include "riv-run.h"
#include "riv-wire.h"

#define IMAGE_SIZE 256

static void run_fake_diffusion   (RivRun *run);
static void run_batch_echo       (RivRun *run);
static void run_rapid_generation (RivRun *run);

static const RivDemoComponent fake_diffusion_inputs[] = {
  { RIV_COMPONENT_SLIDER, "steps", "Denoising steps", 1, 50, 1, 10, NULL, TRUE, 0 },
  { RIV_COMPONENT_NUMBER, "step_delay", "Seconds per step (0 to 10)",
    0, 10, 0.05, 0.5, NULL, FALSE, 0 },
};
static const RivDemoComponent fake_diffusion_outputs[] = {
  { RIV_COMPONENT_IMAGE, "image", NULL, 0, 0, 0, 0, NULL, FALSE, 0 },
  { RIV_COMPONENT_TEXTBOX, "text", NULL, 0, 0, 0, 0, "", FALSE, 1 },
};
static const RivDemoComponent stream_text_inputs[] = {
  { RIV_COMPONENT_TEXTBOX, "prompt", "Seeds the generated words",
    0, 0, 0, 0, "Once upon a time", FALSE, 2 },
  { RIV_COMPONENT_NUMBER, "tokens", "Number of tokens (0 to 100000)",
    0, 100000, 1, 50, NULL, TRUE, 0 },
  { RIV_COMPONENT_NUMBER, "token_delay", "Seconds per token (0 to 10)",
    0, 10, 0.01, 0.05, NULL, FALSE, 0 },
};
static const RivDemoComponent stream_text_outputs[] = {
  { RIV_COMPONENT_TEXTBOX, "text", NULL, 0, 0, 0, 0, "", FALSE, 8 },
};
static const RivDemoComponent paced_text_inputs[] = {
  { RIV_COMPONENT_NUMBER, "tokens", "Number of tokens (1 to 100000)",
    1, 100000, 1, 20, NULL, TRUE, 0 },
  { RIV_COMPONENT_NUMBER, "first_delay", "Seconds before the first token (0 to 60)",
    0, 60, 0.01, 0.4, NULL, FALSE, 0 },
  { RIV_COMPONENT_NUMBER, "token_delay", "Seconds between tokens (0 to 10)",
    0, 10, 0.01, 0.05, NULL, FALSE, 0 },
  { RIV_COMPONENT_NUMBER, "pause_after", "Pause after this token (0: no pause)",
    0, 100000, 1, 10, NULL, TRUE, 0 },
  { RIV_COMPONENT_NUMBER, "pause", "Seconds of the pause, beside its gap (0 to 60)",
    0, 60, 0.1, 1.5, NULL, FALSE, 0 },
};
static const RivDemoComponent batch_echo_inputs[] = {
  { RIV_COMPONENT_TEXTBOX, "text", "Echoed back", 0, 0, 0, 0, "hello", FALSE, 1 },
  { RIV_COMPONENT_NUMBER, "delay", "Seconds per batch (0 to 10)",
    0, 10, 0.05, 0.1, NULL, FALSE, 0 },
};
static const RivDemoComponent batch_echo_outputs[] = {
  { RIV_COMPONENT_TEXTBOX, "text", NULL, 0, 0, 0, 0, "", FALSE, 1 },
};
static const RivDemoComponent rapid_generation_inputs[] = {
  { RIV_COMPONENT_NUMBER, "count", "Number of updates (0 to 1000000)",
    0, 1000000, 1, 1000, NULL, TRUE, 0 },
};
static const RivDemoComponent rapid_generation_outputs[] = {
  { RIV_COMPONENT_TEXTBOX, "text", NULL, 0, 0, 0, 0, "", FALSE, 8 },
};

static const RivDemoComponent chat_inputs[] = {
  { RIV_COMPONENT_TEXTBOX, "message", "What the user says", 0, 0, 0, 0,
    "Tell me about rivers", FALSE, 2 },
  { RIV_COMPONENT_NUMBER, "token_delay", "Seconds per word (0 to 10)",
    0, 10, 0.01, 0.05, NULL, FALSE, 0 },
};
static const RivDemoComponent chat_outputs[] = {
  { RIV_COMPONENT_CHATBOT, "chatbot", NULL, 0, 0, 0, 0, NULL, FALSE, 0 },
};
static const RivDemoComponent gallery_inputs[] = {
  { RIV_COMPONENT_NUMBER, "count", "Number of images (1 to 4)", 1, 4, 1, 4, NULL, TRUE, 0 },
  { RIV_COMPONENT_NUMBER, "delay", "Seconds per image (0 to 10)",
    0, 10, 0.05, 0.3, NULL, FALSE, 0 },
};
static const RivDemoComponent gallery_outputs[] = {
  { RIV_COMPONENT_GALLERY, "gallery", NULL, 0, 0, 0, 0, NULL, FALSE, 0 },
};
static const RivDemoComponent mixed_inputs[] = {
  { RIV_COMPONENT_TEXTBOX, "subject", "Named in every output", 0, 0, 0, 0, "river", FALSE, 1 },
  { RIV_COMPONENT_NUMBER, "delay", "Seconds per output (0 to 10)",
    0, 10, 0.05, 0.2, NULL, FALSE, 0 },
};
static const RivDemoComponent mixed_outputs[] = {
  { RIV_COMPONENT_IMAGE, "picture", NULL, 0, 0, 0, 0, NULL, FALSE, 0 },
  { RIV_COMPONENT_JSON, "facts", NULL, 0, 0, 0, 0, NULL, FALSE, 0 },
  { RIV_COMPONENT_LABEL, "class", NULL, 0, 0, 0, 0, NULL, FALSE, 0 },
  { RIV_COMPONENT_MARKDOWN, "report", NULL, 0, 0, 0, 0, NULL, FALSE, 0 },
  { RIV_COMPONENT_FILE, "download", NULL, 0, 0, 0, 0, NULL, FALSE, 0 },
  { RIV_COMPONENT_AUDIO, "sound", NULL, 0, 0, 0, 0, NULL, FALSE, 0 },
};
static const RivDemoComponent logs_inputs[] = {
  { RIV_COMPONENT_NUMBER, "count", "Number of steps, each logging (1 to 100)",
    1, 100, 1, 3, NULL, TRUE, 0 },
  { RIV_COMPONENT_NUMBER, "delay", "Seconds per step (0 to 10)",
    0, 10, 0.05, 0.2, NULL, FALSE, 0 },
};
static const RivDemoComponent logs_outputs[] = {
  { RIV_COMPONENT_TEXTBOX, "text", NULL, 0, 0, 0, 0, "", FALSE, 1 },
};

static const RivDemoComponent shapes_update_inputs[] = {
  { RIV_COMPONENT_TEXTBOX, "value", "Returned as gr.update(value=…, visible=True)",
    0, 0, 0, 0, "fresh value", FALSE, 1 },
};
static const RivDemoComponent shapes_update_outputs[] = {
  { RIV_COMPONENT_TEXTBOX, "answer", NULL, 0, 0, 0, 0, "", FALSE, 1 },
  { RIV_COMPONENT_TEXTBOX, "secret", NULL, 0, 0, 0, 0, "classified", FALSE, 1 },
  { RIV_COMPONENT_TEXTBOX, "notes", NULL, 0, 0, 0, 0, "notes as configured", FALSE, 1 },
  { RIV_COMPONENT_TEXTBOX, "kept", NULL, 0, 0, 0, 0, "kept as configured", FALSE, 1 },
};
static const RivDemoComponent shapes_plot_inputs[] = {
  { RIV_COMPONENT_NUMBER, "points", "Points per series (2 to 50)", 2, 50, 1, 6, NULL, TRUE, 0 },
};
static const RivDemoComponent shapes_plot_outputs[] = {
  { RIV_COMPONENT_PLOT, "matplotlib", NULL, 0, 0, 0, 0, NULL, FALSE, 0 },
  { RIV_COMPONENT_PLOT, "plotly", NULL, 0, 0, 0, 0, NULL, FALSE, 0 },
  { RIV_COMPONENT_PLOT, "altair", NULL, 0, 0, 0, 0, NULL, FALSE, 0 },
  { RIV_COMPONENT_PLOT, "bokeh", NULL, 0, 0, 0, 0, NULL, FALSE, 0 },
};
static const RivDemoComponent shapes_five_inputs[] = {
  { RIV_COMPONENT_TEXTBOX, "subject", "Named in every output", 0, 0, 0, 0, "Nile", FALSE, 1 },
};
static const RivDemoComponent shapes_five_outputs[] = {
  { RIV_COMPONENT_IMAGE, "picture", NULL, 0, 0, 0, 0, NULL, FALSE, 0 },
  { RIV_COMPONENT_TEXTBOX, "summary", NULL, 0, 0, 0, 0, "", FALSE, 2 },
  { RIV_COMPONENT_JSON, "facts", NULL, 0, 0, 0, 0, NULL, FALSE, 0 },
  { RIV_COMPONENT_LABEL, "class", NULL, 0, 0, 0, 0, NULL, FALSE, 0 },
  { RIV_COMPONENT_MARKDOWN, "report", NULL, 0, 0, 0, 0, NULL, FALSE, 0 },
};
static const RivDemoComponent shapes_chat_inputs[] = {
  { RIV_COMPONENT_TEXTBOX, "message", "What the user says", 0, 0, 0, 0,
    "Which river is the longest?", FALSE, 2 },
};
static const RivDemoComponent shapes_chat_outputs[] = {
  { RIV_COMPONENT_JSON, "Response", NULL, 0, 0, 0, 0, NULL, FALSE, 0, TRUE },
  { RIV_COMPONENT_STATE, "history", NULL, 0, 0, 0, 0, NULL, FALSE, 0 },
};
static const RivDemoComponent shapes_text_inputs[] = {
  { RIV_COMPONENT_TEXTBOX, "text", "Rivers, cities and seas are highlighted", 0, 0, 0, 0,
    "The Nile flows through Cairo to the Mediterranean", FALSE, 2 },
};
static const RivDemoComponent shapes_text_outputs[] = {
  { RIV_COMPONENT_HIGHLIGHTEDTEXT, "entities", NULL, 0, 0, 0, 0, NULL, FALSE, 0 },
  { RIV_COMPONENT_HIGHLIGHTEDTEXT, "sentiment", NULL, 0, 0, 0, 0, NULL, FALSE, 0 },
};
static const RivDemoComponent session_chat_inputs[] = {
  { RIV_COMPONENT_TEXTBOX, "message", "What the user says this turn", 0, 0, 0, 0,
    "Hello", FALSE, 1 },
  { RIV_COMPONENT_STATE, "memory", NULL, 0, 0, 0, 0, NULL, FALSE, 0 },
};
static const RivDemoComponent session_chat_outputs[] = {
  { RIV_COMPONENT_TEXTBOX, "reply", NULL, 0, 0, 0, 0, "", FALSE, 2 },
  { RIV_COMPONENT_STATE, "memory", NULL, 0, 0, 0, 0, NULL, FALSE, 0 },
};
static const RivDemoComponent shapes_fail_inputs[] = {
  { RIV_COMPONENT_NUMBER, "delay", "Seconds per step (0 to 10)", 0, 10, 0.01, 0.07, NULL, FALSE, 0 },
};
static const RivDemoComponent shapes_fail_outputs[] = {
  { RIV_COMPONENT_TEXTBOX, "text", NULL, 0, 0, 0, 0, "", FALSE, 1 },
};

static const RivDemo demos[RIV_DEMO_N] = {
  [RIV_DEMO_FAKE_DIFFUSION] = {
    "fake_diffusion",
    "A picture that sharpens from noise, one PNG per step, with progress.",
    TRUE, FALSE, 1,
    G_N_ELEMENTS (fake_diffusion_inputs), fake_diffusion_inputs,
    G_N_ELEMENTS (fake_diffusion_outputs), fake_diffusion_outputs,
    run_fake_diffusion,
  },
  [RIV_DEMO_STREAM_TEXT] = {
    "stream_text",
    "Text that grows one token at a time (append diffs).",
    TRUE, FALSE, 1,
    G_N_ELEMENTS (stream_text_inputs), stream_text_inputs,
    G_N_ELEMENTS (stream_text_outputs), stream_text_outputs,
    NULL, &riv_demo_stream_text_steps,
  },
  [RIV_DEMO_BATCH_ECHO] = {
    "batch_echo",
    "Echoes its text; runs batched, up to 16 events per call.",
    FALSE, TRUE, 16,
    G_N_ELEMENTS (batch_echo_inputs), batch_echo_inputs,
    G_N_ELEMENTS (batch_echo_outputs), batch_echo_outputs,
    run_batch_echo,
  },
  [RIV_DEMO_RAPID_GENERATION] = {
    "rapid_generation",
    "COUNT tiny updates as fast as possible; the text ends as \"1\\n2\\n…\\nCOUNT\".",
    TRUE, FALSE, 1,
    G_N_ELEMENTS (rapid_generation_inputs), rapid_generation_inputs,
    G_N_ELEMENTS (rapid_generation_outputs), rapid_generation_outputs,
    run_rapid_generation,
  },
  [RIV_DEMO_CHAT] = {
    "chat",
    "A Chatbot (messages format) whose assistant reply streams word by word.",
    TRUE, FALSE, 1,
    G_N_ELEMENTS (chat_inputs), chat_inputs,
    G_N_ELEMENTS (chat_outputs), chat_outputs,
    riv_demo_run_chat,
  },
  [RIV_DEMO_GALLERY] = {
    "gallery",
    "A Gallery that grows one PNG at a time.",
    TRUE, FALSE, 1,
    G_N_ELEMENTS (gallery_inputs), gallery_inputs,
    G_N_ELEMENTS (gallery_outputs), gallery_outputs,
    riv_demo_run_gallery,
  },
  [RIV_DEMO_MIXED] = {
    "mixed",
    "Six outputs filled one after another: a WebP image, JSON, a label, markdown, a file, a WAV clip.",
    TRUE, FALSE, 1,
    G_N_ELEMENTS (mixed_inputs), mixed_inputs,
    G_N_ELEMENTS (mixed_outputs), mixed_outputs,
    riv_demo_run_mixed,
  },
  [RIV_DEMO_LOGS] = {
    "logs",
    "Logs an info message per step and a warning every third step (gr.Info, gr.Warning).",
    TRUE, FALSE, 1,
    G_N_ELEMENTS (logs_inputs), logs_inputs,
    G_N_ELEMENTS (logs_outputs), logs_outputs,
    riv_demo_run_logs,
  },
  [RIV_DEMO_SHAPES_UPDATE] = {
    "shapes_update",
    "gr.update and gr.skip: a new value shown, an output hidden, a label changed, one skipped.",
    FALSE, FALSE, 1,
    G_N_ELEMENTS (shapes_update_inputs), shapes_update_inputs,
    G_N_ELEMENTS (shapes_update_outputs), shapes_update_outputs,
    riv_demo_run_shapes_update,
  },
  [RIV_DEMO_SHAPES_PLOT] = {
    "shapes_plot",
    "Four gr.Plot outputs: a matplotlib picture, Plotly, Altair and Bokeh figures.",
    FALSE, FALSE, 1,
    G_N_ELEMENTS (shapes_plot_inputs), shapes_plot_inputs,
    G_N_ELEMENTS (shapes_plot_outputs), shapes_plot_outputs,
    riv_demo_run_shapes_plot,
  },
  [RIV_DEMO_SHAPES_FIVE] = {
    "shapes_five",
    "Five outputs at once: an image, a text, JSON, a label and markdown.",
    TRUE, FALSE, 1,
    G_N_ELEMENTS (shapes_five_inputs), shapes_five_inputs,
    G_N_ELEMENTS (shapes_five_outputs), shapes_five_outputs,
    riv_demo_run_shapes_five,
  },
  [RIV_DEMO_SHAPES_CHAT] = {
    "shapes_chat",
    "What a gr.ChatInterface's API endpoint returns: the reply (a hidden JSON) and the history.",
    FALSE, FALSE, 1,
    G_N_ELEMENTS (shapes_chat_inputs), shapes_chat_inputs,
    G_N_ELEMENTS (shapes_chat_outputs), shapes_chat_outputs,
    riv_demo_run_shapes_chat,
  },
  [RIV_DEMO_SHAPES_TEXT] = {
    "shapes_text",
    "HighlightedText: entities by label, and words scored from -1 to 1.",
    FALSE, FALSE, 1,
    G_N_ELEMENTS (shapes_text_inputs), shapes_text_inputs,
    G_N_ELEMENTS (shapes_text_outputs), shapes_text_outputs,
    riv_demo_run_shapes_text,
  },
  [RIV_DEMO_SHAPES_FAIL] = {
    "shapes_fail",
    "A generator that yields twice, a delay apart, then fails.",
    TRUE, FALSE, 1,
    G_N_ELEMENTS (shapes_fail_inputs), shapes_fail_inputs,
    G_N_ELEMENTS (shapes_fail_outputs), shapes_fail_outputs,
    riv_demo_run_shapes_fail,
  },
  [RIV_DEMO_PACED_TEXT] = {
    "paced_text",
    "Text on a known schedule: a wait, even gaps, one pause (streaming figures).",
    TRUE, FALSE, 1,
    G_N_ELEMENTS (paced_text_inputs), paced_text_inputs,
    G_N_ELEMENTS (stream_text_outputs), stream_text_outputs,
    NULL, &riv_demo_paced_text_steps,
  },
  [RIV_DEMO_SESSION_CHAT] = {
    "session_chat",
    "A chat that remembers its session (gr.State): each reply names its turn and the message before.",
    FALSE, FALSE, 1,
    G_N_ELEMENTS (session_chat_inputs), session_chat_inputs,
    G_N_ELEMENTS (session_chat_outputs), session_chat_outputs,
    riv_demo_run_session_chat,
  },
};

guint
riv_demo_get_count (void)
{
  return RIV_DEMO_N;
}

const RivRunEndpoint *
riv_demo_get_run_endpoints (void)
{
  static RivRunEndpoint endpoints[RIV_DEMO_N];
  static gsize made;

  if (g_once_init_enter (&made))
    {
      for (guint i = 0; i < RIV_DEMO_N; i++)
        {
          guint state_outputs = 0;

          for (guint k = 0; k < demos[i].n_outputs && k < 32; k++)
            if (demos[i].outputs[k].kind == RIV_COMPONENT_STATE)
              state_outputs |= 1u << k;
          endpoints[i] = (RivRunEndpoint) {
            demos[i].api_name, demos[i].generator, demos[i].batch, demos[i].max_batch_size,
            demos[i].n_outputs, state_outputs, demos[i].run, demos[i].steps,
          };
        }
      g_once_init_leave (&made, 1);
    }
  return endpoints;
}

const RivDemo *
riv_demo_get (guint fn_index)
{
  return fn_index < RIV_DEMO_N ? &demos[fn_index] : NULL;
}

static guint
first_component_id (guint fn_index)
{
  guint id = 1;

  for (guint i = 0; i < fn_index; i++)
    id += demos[i].n_inputs + demos[i].n_outputs;
  return id;
}

guint
riv_demo_get_input_id (guint fn_index,
                       guint i)
{
  return first_component_id (fn_index) + i;
}

guint
riv_demo_get_output_id (guint fn_index,
                        guint i)
{
  return first_component_id (fn_index) + demos[fn_index].n_inputs + i;
}

/* Validation */

static void
add_problem (JsonArray  *problems,
             const char *parameter_name,
             const char *message)
{
  JsonObject *problem = json_object_new ();

  json_object_set_boolean_member (problem, "is_valid", FALSE);
  json_object_set_string_member (problem, "message", message);
  if (parameter_name != NULL)
    json_object_set_string_member (problem, "parameter_name", parameter_name);
  else
    json_object_set_null_member (problem, "parameter_name");
  json_array_add_object_element (problems, problem);
}

RivDemoParams *
riv_demo_parse_params (const RivDemo  *demo,
                       JsonNode       *data,
                       JsonNode      **detail)
{
  g_autoptr(JsonArray) problems = json_array_new ();
  g_autoptr(RivDemoParams) params = NULL;
  JsonArray *array;

  g_return_val_if_fail (demo != NULL, NULL);
  g_return_val_if_fail (detail != NULL && *detail == NULL, NULL);

  if (data == NULL || !JSON_NODE_HOLDS_ARRAY (data))
    {
      g_autofree char *message = g_strdup_printf ("\"data\" must be a list of %u input values",
                                                  demo->n_inputs);
      add_problem (problems, NULL, message);
      goto invalid;
    }

  array = json_node_get_array (data);
  if (json_array_get_length (array) != demo->n_inputs)
    {
      g_autofree char *message = g_strdup_printf ("Expected %u input values, got %u",
                                                  demo->n_inputs, json_array_get_length (array));
      add_problem (problems, NULL, message);
      goto invalid;
    }

  params = g_malloc0 (sizeof (RivDemoParams) + demo->n_inputs * sizeof (RivDemoValue));
  params->n = demo->n_inputs;

  for (guint i = 0; i < demo->n_inputs; i++)
    {
      const RivDemoComponent *input = &demo->inputs[i];
      JsonNode *node = json_array_get_element (array, i);
      RivDemoValue *value = &params->values[i];
      gboolean is_null = JSON_NODE_HOLDS_NULL (node);

      /* Whatever is sent for a State: the server gives the session's own
       * value (riv_run.h), as Gradio does. */
      if (input->kind == RIV_COMPONENT_STATE)
        continue;
      if (input->kind == RIV_COMPONENT_TEXTBOX)
        {
          if (is_null)
            value->text = g_strdup (input->default_text);
          else if (JSON_NODE_HOLDS_VALUE (node) && json_node_get_value_type (node) == G_TYPE_STRING)
            value->text = g_strdup (json_node_get_string (node));
          else
            {
              g_autofree char *message = g_strdup_printf ("%s must be a string", input->name);
              add_problem (problems, input->name, message);
            }
          continue;
        }

      if (is_null)
        {
          value->number = input->default_number;
          continue;
        }

      if (!riv_json_node_get_double (node, &value->number) || !isfinite (value->number))
        {
          g_autofree char *message = g_strdup_printf ("%s must be a number", input->name);
          add_problem (problems, input->name, message);
        }
      else if (input->integer && floor (value->number) != value->number)
        {
          g_autofree char *message = g_strdup_printf ("%s must be a whole number", input->name);
          add_problem (problems, input->name, message);
        }
      else if (value->number < input->minimum || value->number > input->maximum)
        {
          char lo[G_ASCII_DTOSTR_BUF_SIZE], hi[G_ASCII_DTOSTR_BUF_SIZE];
          g_autofree char *message =
            g_strdup_printf ("%s must be between %s and %s", input->name,
                             g_ascii_formatd (lo, sizeof lo, "%g", input->minimum),
                             g_ascii_formatd (hi, sizeof hi, "%g", input->maximum));
          add_problem (problems, input->name, message);
        }
    }

  if (json_array_get_length (problems) == 0)
    return g_steal_pointer (&params);

invalid:
  *detail = json_node_new (JSON_NODE_ARRAY);
  json_node_set_array (*detail, problems);
  return NULL;
}

/* Config and info */

static const char *
component_type (RivComponentKind kind)
{
  switch (kind)
    {
    case RIV_COMPONENT_TEXTBOX: return "textbox";
    case RIV_COMPONENT_NUMBER: return "number";
    case RIV_COMPONENT_SLIDER: return "slider";
    case RIV_COMPONENT_IMAGE: return "image";
    case RIV_COMPONENT_CHATBOT: return "chatbot";
    case RIV_COMPONENT_GALLERY: return "gallery";
    case RIV_COMPONENT_JSON: return "json";
    case RIV_COMPONENT_LABEL: return "label";
    case RIV_COMPONENT_MARKDOWN: return "markdown";
    case RIV_COMPONENT_FILE: return "file";
    case RIV_COMPONENT_AUDIO: return "audio";
    case RIV_COMPONENT_PLOT: return "plot";
    case RIV_COMPONENT_HIGHLIGHTEDTEXT: return "highlightedtext";
    case RIV_COMPONENT_STATE: return "state";
    default: g_assert_not_reached ();
    }
}

static const char *
component_class (RivComponentKind kind)
{
  switch (kind)
    {
    case RIV_COMPONENT_TEXTBOX: return "Textbox";
    case RIV_COMPONENT_NUMBER: return "Number";
    case RIV_COMPONENT_SLIDER: return "Slider";
    case RIV_COMPONENT_IMAGE: return "Image";
    case RIV_COMPONENT_CHATBOT: return "Chatbot";
    case RIV_COMPONENT_GALLERY: return "Gallery";
    case RIV_COMPONENT_JSON: return "JSON";
    case RIV_COMPONENT_LABEL: return "Label";
    case RIV_COMPONENT_MARKDOWN: return "Markdown";
    case RIV_COMPONENT_FILE: return "File";
    case RIV_COMPONENT_AUDIO: return "Audio";
    case RIV_COMPONENT_PLOT: return "Plot";
    case RIV_COMPONENT_HIGHLIGHTEDTEXT: return "HighlightedText";
    case RIV_COMPONENT_STATE: return "State";
    default: g_assert_not_reached ();
    }
}

/* name: a value of type or null, null by default. */
static void
add_nullable_schema (JsonBuilder *b,
                     const char  *name,
                     const char  *type,
                     const char  *title)
{
  json_builder_set_member_name (b, name);
  json_builder_begin_object (b);
  json_builder_set_member_name (b, "anyOf");
  json_builder_begin_array (b);
  json_builder_begin_object (b);
  json_builder_set_member_name (b, "type");
  json_builder_add_string_value (b, type);
  json_builder_end_object (b);
  json_builder_begin_object (b);
  json_builder_set_member_name (b, "type");
  json_builder_add_string_value (b, "null");
  json_builder_end_object (b);
  json_builder_end_array (b);
  json_builder_set_member_name (b, "default");
  json_builder_add_null_value (b);
  json_builder_set_member_name (b, "title");
  json_builder_add_string_value (b, title);
  json_builder_end_object (b);
}

/* Gradio's ImageData schema (a FileData with a path, url, size, names and meta). */
static void
add_image_data_schema (JsonBuilder *b)
{
  json_builder_set_member_name (b, "title");
  json_builder_add_string_value (b, "ImageData");
  json_builder_set_member_name (b, "type");
  json_builder_add_string_value (b, "object");
  json_builder_set_member_name (b, "properties");
  json_builder_begin_object (b);
  add_nullable_schema (b, "path", "string", "Path");
  add_nullable_schema (b, "url", "string", "Url");
  add_nullable_schema (b, "size", "integer", "Size");
  add_nullable_schema (b, "orig_name", "string", "Orig Name");
  add_nullable_schema (b, "mime_type", "string", "Mime Type");
  json_builder_set_member_name (b, "is_stream");
  json_builder_begin_object (b);
  json_builder_set_member_name (b, "default");
  json_builder_add_boolean_value (b, FALSE);
  json_builder_set_member_name (b, "title");
  json_builder_add_string_value (b, "Is Stream");
  json_builder_set_member_name (b, "type");
  json_builder_add_string_value (b, "boolean");
  json_builder_end_object (b);
  json_builder_set_member_name (b, "meta");
  json_builder_begin_object (b);
  json_builder_set_member_name (b, "default");
  json_builder_begin_object (b);
  json_builder_set_member_name (b, "_type");
  json_builder_add_string_value (b, "gradio.FileData");
  json_builder_end_object (b);
  json_builder_set_member_name (b, "title");
  json_builder_add_string_value (b, "Meta");
  json_builder_set_member_name (b, "type");
  json_builder_add_string_value (b, "object");
  json_builder_end_object (b);
  json_builder_end_object (b);
  json_builder_set_member_name (b, "required");
  json_builder_begin_array (b);
  json_builder_add_string_value (b, "path");
  json_builder_end_array (b);
}

/* The JSON schema of a component's value (Gradio's api_info). */
static void
add_api_info (JsonBuilder            *b,
              const RivDemoComponent *c)
{
  json_builder_begin_object (b);
  switch (c->kind)
    {
    case RIV_COMPONENT_TEXTBOX:
      json_builder_set_member_name (b, "type");
      json_builder_add_string_value (b, "string");
      break;

    case RIV_COMPONENT_NUMBER:
    case RIV_COMPONENT_SLIDER:
      {
        char lo[G_ASCII_DTOSTR_BUF_SIZE], hi[G_ASCII_DTOSTR_BUF_SIZE];
        g_autofree char *description =
          g_strdup_printf ("numeric value between %s and %s",
                           g_ascii_formatd (lo, sizeof lo, "%g", c->minimum),
                           g_ascii_formatd (hi, sizeof hi, "%g", c->maximum));

        json_builder_set_member_name (b, "type");
        json_builder_add_string_value (b, "number");
        json_builder_set_member_name (b, "description");
        json_builder_add_string_value (b, description);
      }
      break;

    case RIV_COMPONENT_IMAGE:
      add_image_data_schema (b);
      break;

    case RIV_COMPONENT_MARKDOWN:
      json_builder_set_member_name (b, "type");
      json_builder_add_string_value (b, "string");
      break;

    case RIV_COMPONENT_CHATBOT:
    case RIV_COMPONENT_GALLERY:
    case RIV_COMPONENT_HIGHLIGHTEDTEXT:
      json_builder_set_member_name (b, "type");
      json_builder_add_string_value (b, "array");
      break;

    case RIV_COMPONENT_JSON:
    case RIV_COMPONENT_LABEL:
    case RIV_COMPONENT_FILE:
    case RIV_COMPONENT_AUDIO:
    case RIV_COMPONENT_PLOT:
      json_builder_set_member_name (b, "type");
      json_builder_add_string_value (b, "object");
      break;

    case RIV_COMPONENT_STATE:
      break;

    default:
      g_assert_not_reached ();
    }
  json_builder_end_object (b);
}

static void
add_python_type (JsonBuilder            *b,
                 const RivDemoComponent *c)
{
  const char *type = "str";
  const char *description = "";

  if (c->kind == RIV_COMPONENT_NUMBER || c->kind == RIV_COMPONENT_SLIDER)
    type = "float";
  else if (c->kind == RIV_COMPONENT_IMAGE || c->kind == RIV_COMPONENT_FILE ||
           c->kind == RIV_COMPONENT_AUDIO)
    type = "filepath";
  else if (c->kind == RIV_COMPONENT_CHATBOT || c->kind == RIV_COMPONENT_GALLERY ||
           c->kind == RIV_COMPONENT_HIGHLIGHTEDTEXT)
    type = "list";
  else if (c->kind == RIV_COMPONENT_JSON || c->kind == RIV_COMPONENT_LABEL ||
           c->kind == RIV_COMPONENT_PLOT)
    type = "dict";

  json_builder_begin_object (b);
  json_builder_set_member_name (b, "type");
  json_builder_add_string_value (b, type);
  json_builder_set_member_name (b, "description");
  json_builder_add_string_value (b, description);
  json_builder_end_object (b);
}

static void
add_default_value (JsonBuilder            *b,
                   const RivDemoComponent *c)
{
  switch (c->kind)
    {
    case RIV_COMPONENT_TEXTBOX:
      json_builder_add_string_value (b, c->default_text != NULL ? c->default_text : "");
      break;
    case RIV_COMPONENT_NUMBER:
    case RIV_COMPONENT_SLIDER:
      if (c->integer)
        json_builder_add_int_value (b, (gint64) c->default_number);
      else
        json_builder_add_double_value (b, c->default_number);
      break;
    case RIV_COMPONENT_CHATBOT:
    case RIV_COMPONENT_GALLERY:
      json_builder_begin_array (b);
      json_builder_end_array (b);
      break;
    case RIV_COMPONENT_IMAGE:
    default:
      json_builder_add_null_value (b);
      break;
    }
}

/* The props only components of c's kind have. */
static void
add_kind_props (JsonBuilder            *b,
                const RivDemoComponent *c)
{
  switch (c->kind)
    {
    case RIV_COMPONENT_NUMBER:
    case RIV_COMPONENT_SLIDER:
      json_builder_set_member_name (b, "minimum");
      json_builder_add_double_value (b, c->minimum);
      json_builder_set_member_name (b, "maximum");
      json_builder_add_double_value (b, c->maximum);
      json_builder_set_member_name (b, "step");
      json_builder_add_double_value (b, c->step);
      if (c->kind == RIV_COMPONENT_NUMBER)
        {
          json_builder_set_member_name (b, "precision");
          if (c->integer)
            json_builder_add_int_value (b, 0);
          else
            json_builder_add_null_value (b);
        }
      break;
    case RIV_COMPONENT_TEXTBOX:
      json_builder_set_member_name (b, "lines");
      json_builder_add_int_value (b, MAX (c->lines, 1));
      json_builder_set_member_name (b, "max_lines");
      json_builder_add_int_value (b, MAX (c->lines, 1) * 4);
      json_builder_set_member_name (b, "placeholder");
      json_builder_add_null_value (b);
      break;
    case RIV_COMPONENT_IMAGE:
      json_builder_set_member_name (b, "format");
      json_builder_add_string_value (b, "png");
      json_builder_set_member_name (b, "type");
      json_builder_add_string_value (b, "filepath");
      json_builder_set_member_name (b, "height");
      json_builder_add_int_value (b, IMAGE_SIZE);
      json_builder_set_member_name (b, "width");
      json_builder_add_int_value (b, IMAGE_SIZE);
      break;
    case RIV_COMPONENT_CHATBOT:
      json_builder_set_member_name (b, "type");
      json_builder_add_string_value (b, "messages");
      break;
    case RIV_COMPONENT_GALLERY:
      json_builder_set_member_name (b, "columns");
      json_builder_add_int_value (b, 2);
      break;
    case RIV_COMPONENT_PLOT:
      json_builder_set_member_name (b, "format");
      json_builder_add_string_value (b, "webp");
      break;
    case RIV_COMPONENT_HIGHLIGHTEDTEXT:
      json_builder_set_member_name (b, "color_map");
      json_builder_add_null_value (b);
      json_builder_set_member_name (b, "show_legend");
      json_builder_add_boolean_value (b, FALSE);
      json_builder_set_member_name (b, "combine_adjacent");
      json_builder_add_boolean_value (b, FALSE);
      break;
    default:
      break;
    }
}

static void
add_component (JsonBuilder            *b,
               guint                   id,
               const RivDemoComponent *c,
               gboolean                is_input)
{
  json_builder_begin_object (b);
  json_builder_set_member_name (b, "id");
  json_builder_add_int_value (b, id);
  json_builder_set_member_name (b, "type");
  json_builder_add_string_value (b, component_type (c->kind));
  json_builder_set_member_name (b, "props");
  json_builder_begin_object (b);
  json_builder_set_member_name (b, "label");
  json_builder_add_string_value (b, c->name);
  json_builder_set_member_name (b, "show_label");
  json_builder_add_boolean_value (b, TRUE);
  json_builder_set_member_name (b, "interactive");
  json_builder_add_boolean_value (b, is_input);
  json_builder_set_member_name (b, "visible");
  json_builder_add_boolean_value (b, !c->hidden);
  json_builder_set_member_name (b, "elem_id");
  json_builder_add_null_value (b);
  if (c->info != NULL)
    {
      json_builder_set_member_name (b, "info");
      json_builder_add_string_value (b, c->info);
    }
  json_builder_set_member_name (b, "value");
  add_default_value (b, c);
  add_kind_props (b, c);
  json_builder_set_member_name (b, "name");
  json_builder_add_string_value (b, component_type (c->kind));
  json_builder_end_object (b);
  json_builder_set_member_name (b, "skip_api");
  json_builder_add_boolean_value (b, c->kind == RIV_COMPONENT_STATE);
  json_builder_set_member_name (b, "component_class_id");
  json_builder_add_string_value (b, component_class (c->kind));
  json_builder_set_member_name (b, "key");
  json_builder_add_null_value (b);
  json_builder_set_member_name (b, "api_info");
  add_api_info (b, c);
  json_builder_set_member_name (b, "api_info_as_input");
  add_api_info (b, c);
  json_builder_set_member_name (b, "api_info_as_output");
  add_api_info (b, c);
  json_builder_set_member_name (b, "example_inputs");
  add_default_value (b, c);
  json_builder_end_object (b);
}

static void
add_dependency (JsonBuilder *b,
                guint        fn_index)
{
  const RivDemo *demo = &demos[fn_index];

  json_builder_begin_object (b);
  json_builder_set_member_name (b, "id");
  json_builder_add_int_value (b, fn_index);
  json_builder_set_member_name (b, "targets");
  json_builder_begin_array (b);
  json_builder_end_array (b);
  json_builder_set_member_name (b, "inputs");
  json_builder_begin_array (b);
  for (guint i = 0; i < demo->n_inputs; i++)
    json_builder_add_int_value (b, riv_demo_get_input_id (fn_index, i));
  json_builder_end_array (b);
  json_builder_set_member_name (b, "outputs");
  json_builder_begin_array (b);
  for (guint i = 0; i < demo->n_outputs; i++)
    json_builder_add_int_value (b, riv_demo_get_output_id (fn_index, i));
  json_builder_end_array (b);
  json_builder_set_member_name (b, "backend_fn");
  json_builder_add_boolean_value (b, TRUE);
  json_builder_set_member_name (b, "js");
  json_builder_add_null_value (b);
  json_builder_set_member_name (b, "queue");
  json_builder_add_boolean_value (b, TRUE);
  json_builder_set_member_name (b, "api_name");
  json_builder_add_string_value (b, demo->api_name);
  json_builder_set_member_name (b, "api_description");
  json_builder_add_string_value (b, demo->description);
  json_builder_set_member_name (b, "api_visibility");
  json_builder_add_string_value (b, "public");
  json_builder_set_member_name (b, "show_api");
  json_builder_add_boolean_value (b, TRUE);
  json_builder_set_member_name (b, "batch");
  json_builder_add_boolean_value (b, demo->batch);
  json_builder_set_member_name (b, "max_batch_size");
  json_builder_add_int_value (b, demo->batch ? demo->max_batch_size : 4);
  json_builder_set_member_name (b, "cancels");
  json_builder_begin_array (b);
  json_builder_end_array (b);
  json_builder_set_member_name (b, "types");
  json_builder_begin_object (b);
  json_builder_set_member_name (b, "generator");
  json_builder_add_boolean_value (b, demo->generator);
  json_builder_set_member_name (b, "cancel");
  json_builder_add_boolean_value (b, FALSE);
  json_builder_end_object (b);
  json_builder_set_member_name (b, "connection");
  json_builder_add_string_value (b, "sse");
  json_builder_set_member_name (b, "show_progress");
  json_builder_add_string_value (b, "full");
  json_builder_set_member_name (b, "scroll_to_output");
  json_builder_add_boolean_value (b, FALSE);
  json_builder_set_member_name (b, "trigger_after");
  json_builder_add_null_value (b);
  json_builder_set_member_name (b, "trigger_only_on_success");
  json_builder_add_boolean_value (b, FALSE);
  json_builder_set_member_name (b, "trigger_mode");
  json_builder_add_string_value (b, "once");
  json_builder_set_member_name (b, "collects_event_data");
  json_builder_add_boolean_value (b, FALSE);
  json_builder_set_member_name (b, "time_limit");
  json_builder_add_null_value (b);
  json_builder_set_member_name (b, "stream_every");
  json_builder_add_double_value (b, 0.5);
  json_builder_set_member_name (b, "rendered_in");
  json_builder_add_null_value (b);
  json_builder_set_member_name (b, "render_id");
  json_builder_add_null_value (b);
  json_builder_end_object (b);
}

/* batch_echo's examples, as gr.Examples gives them: a dataset component
 * whose samples fill its text and delay inputs. */
static void
add_examples (JsonBuilder *b,
              guint        id)
{
  static const struct { const char *label; const char *text; double delay; } samples[] = {
    { "A quick hello", "hello {i}", 0 },
    { "A river, slowly", "river {i}", 0.2 },
    { "A stone", "stone", 0.05 },
  };

  json_builder_begin_object (b);
  json_builder_set_member_name (b, "id");
  json_builder_add_int_value (b, id);
  json_builder_set_member_name (b, "type");
  json_builder_add_string_value (b, "dataset");
  json_builder_set_member_name (b, "skip_api");
  json_builder_add_boolean_value (b, FALSE);
  json_builder_set_member_name (b, "component_class_id");
  json_builder_add_string_value (b, "Dataset");
  json_builder_set_member_name (b, "key");
  json_builder_add_null_value (b);
  json_builder_set_member_name (b, "api_info");
  json_builder_begin_object (b);
  json_builder_set_member_name (b, "type");
  json_builder_add_string_value (b, "integer");
  json_builder_set_member_name (b, "description");
  json_builder_add_string_value (b, "index of selected example");
  json_builder_end_object (b);
  json_builder_set_member_name (b, "props");
  json_builder_begin_object (b);
  json_builder_set_member_name (b, "name");
  json_builder_add_string_value (b, "dataset");
  json_builder_set_member_name (b, "samples_per_page");
  json_builder_add_int_value (b, 10);
  json_builder_set_member_name (b, "label");
  json_builder_add_string_value (b, "Examples");
  json_builder_set_member_name (b, "component_ids");
  json_builder_begin_array (b);
  for (guint i = 0; i < demos[RIV_DEMO_BATCH_ECHO].n_inputs; i++)
    json_builder_add_int_value (b, riv_demo_get_input_id (RIV_DEMO_BATCH_ECHO, i));
  json_builder_end_array (b);
  json_builder_set_member_name (b, "headers");
  json_builder_begin_array (b);
  for (guint i = 0; i < demos[RIV_DEMO_BATCH_ECHO].n_inputs; i++)
    json_builder_add_string_value (b, demos[RIV_DEMO_BATCH_ECHO].inputs[i].name);
  json_builder_end_array (b);
  json_builder_set_member_name (b, "samples");
  json_builder_begin_array (b);
  for (guint i = 0; i < G_N_ELEMENTS (samples); i++)
    {
      json_builder_begin_array (b);
      json_builder_add_string_value (b, samples[i].text);
      json_builder_add_double_value (b, samples[i].delay);
      json_builder_end_array (b);
    }
  json_builder_end_array (b);
  json_builder_set_member_name (b, "sample_labels");
  json_builder_begin_array (b);
  for (guint i = 0; i < G_N_ELEMENTS (samples); i++)
    json_builder_add_string_value (b, samples[i].label);
  json_builder_end_array (b);
  json_builder_end_object (b);
  json_builder_end_object (b);
}

JsonNode *
riv_demo_build_config (guint   app_id,
                       guint64 max_file_size)
{
  g_autoptr(JsonBuilder) b = json_builder_new_immutable ();

  json_builder_begin_object (b);
  json_builder_set_member_name (b, "version");
  json_builder_add_string_value (b, "5.0.0");
  json_builder_set_member_name (b, "api_prefix");
  json_builder_add_string_value (b, "/gradio_api");
  json_builder_set_member_name (b, "mode");
  json_builder_add_string_value (b, "blocks");
  json_builder_set_member_name (b, "app_id");
  json_builder_add_int_value (b, app_id);
  json_builder_set_member_name (b, "protocol");
  json_builder_add_string_value (b, "sse_v3");
  json_builder_set_member_name (b, "enable_queue");
  json_builder_add_boolean_value (b, TRUE);
  json_builder_set_member_name (b, "connect_heartbeat");
  json_builder_add_boolean_value (b, FALSE);
  json_builder_set_member_name (b, "space_id");
  json_builder_add_null_value (b);
  json_builder_set_member_name (b, "show_error");
  json_builder_add_boolean_value (b, TRUE);
  json_builder_set_member_name (b, "show_api");
  json_builder_add_boolean_value (b, TRUE);
  json_builder_set_member_name (b, "max_file_size");
  json_builder_add_int_value (b, (gint64) max_file_size);
  json_builder_set_member_name (b, "title");
  json_builder_add_string_value (b, "Rivulet demo server");
  json_builder_set_member_name (b, "username");
  json_builder_add_null_value (b);
  json_builder_set_member_name (b, "is_colab");
  json_builder_add_boolean_value (b, FALSE);
  json_builder_set_member_name (b, "dev_mode");
  json_builder_add_boolean_value (b, FALSE);
  json_builder_set_member_name (b, "analytics_enabled");
  json_builder_add_boolean_value (b, FALSE);
  json_builder_set_member_name (b, "theme");
  json_builder_add_string_value (b, "default");
  json_builder_set_member_name (b, "stylesheets");
  json_builder_begin_array (b);
  json_builder_end_array (b);

  json_builder_set_member_name (b, "components");
  json_builder_begin_array (b);
  for (guint fn = 0; fn < RIV_DEMO_N; fn++)
    {
      for (guint i = 0; i < demos[fn].n_inputs; i++)
        add_component (b, riv_demo_get_input_id (fn, i), &demos[fn].inputs[i], TRUE);
      for (guint i = 0; i < demos[fn].n_outputs; i++)
        add_component (b, riv_demo_get_output_id (fn, i), &demos[fn].outputs[i], FALSE);
    }
  add_examples (b, first_component_id (RIV_DEMO_N));
  json_builder_end_array (b);

  json_builder_set_member_name (b, "dependencies");
  json_builder_begin_array (b);
  for (guint fn = 0; fn < RIV_DEMO_N; fn++)
    add_dependency (b, fn);
  json_builder_end_array (b);

  json_builder_set_member_name (b, "layout");
  json_builder_begin_object (b);
  json_builder_set_member_name (b, "id");
  json_builder_add_int_value (b, 0);
  json_builder_set_member_name (b, "children");
  json_builder_begin_array (b);
  for (guint id = 1; id < first_component_id (RIV_DEMO_N); id++)
    {
      json_builder_begin_object (b);
      json_builder_set_member_name (b, "id");
      json_builder_add_int_value (b, id);
      json_builder_end_object (b);
    }
  json_builder_end_array (b);
  json_builder_end_object (b);
  json_builder_end_object (b);

  return json_builder_get_root (b);
}

static void
add_info_entry (JsonBuilder            *b,
                const RivDemoComponent *c,
                gboolean                is_input)
{
  json_builder_begin_object (b);
  json_builder_set_member_name (b, "label");
  json_builder_add_string_value (b, c->name);
  if (is_input)
    {
      json_builder_set_member_name (b, "parameter_name");
      json_builder_add_string_value (b, c->name);
      json_builder_set_member_name (b, "parameter_has_default");
      json_builder_add_boolean_value (b, TRUE);
      json_builder_set_member_name (b, "parameter_default");
      add_default_value (b, c);
    }
  json_builder_set_member_name (b, "type");
  add_api_info (b, c);
  json_builder_set_member_name (b, "python_type");
  add_python_type (b, c);
  json_builder_set_member_name (b, "component");
  json_builder_add_string_value (b, component_class (c->kind));
  if (is_input)
    {
      json_builder_set_member_name (b, "example_input");
      add_default_value (b, c);
    }
  json_builder_end_object (b);
}

JsonNode *
riv_demo_build_info (void)
{
  g_autoptr(JsonBuilder) b = json_builder_new_immutable ();

  json_builder_begin_object (b);
  json_builder_set_member_name (b, "named_endpoints");
  json_builder_begin_object (b);
  for (guint fn = 0; fn < RIV_DEMO_N; fn++)
    {
      const RivDemo *demo = &demos[fn];
      g_autofree char *key = g_strconcat ("/", demo->api_name, NULL);

      json_builder_set_member_name (b, key);
      json_builder_begin_object (b);
      json_builder_set_member_name (b, "parameters");
      json_builder_begin_array (b);
      for (guint i = 0; i < demo->n_inputs; i++)
        if (demo->inputs[i].kind != RIV_COMPONENT_STATE)   /* as Gradio's /info */
          add_info_entry (b, &demo->inputs[i], TRUE);
      json_builder_end_array (b);
      json_builder_set_member_name (b, "returns");
      json_builder_begin_array (b);
      for (guint i = 0; i < demo->n_outputs; i++)
        if (demo->outputs[i].kind != RIV_COMPONENT_STATE)   /* as Gradio's /info */
          add_info_entry (b, &demo->outputs[i], FALSE);
      json_builder_end_array (b);
      json_builder_set_member_name (b, "api_visibility");
      json_builder_add_string_value (b, "public");
      json_builder_set_member_name (b, "show_api");
      json_builder_add_boolean_value (b, TRUE);
      json_builder_set_member_name (b, "description");
      json_builder_add_string_value (b, demo->description);
      json_builder_end_object (b);
    }
  json_builder_end_object (b);
  json_builder_set_member_name (b, "unnamed_endpoints");
  json_builder_begin_object (b);
  json_builder_end_object (b);
  json_builder_end_object (b);

  return json_builder_get_root (b);
}

/* The fake_diffusion picture */

static gpointer
make_base_picture (gpointer unused)
{
  guint8 *pixels = g_malloc (IMAGE_SIZE * IMAGE_SIZE * 3);

  for (int y = 0; y < IMAGE_SIZE; y++)
    for (int x = 0; x < IMAGE_SIZE; x++)
      {
        guint8 *p = pixels + (y * IMAGE_SIZE + x) * 3;
        double far_ridge = 150 + 22 * sin (x * 0.045) + 9 * sin (x * 0.13 + 1.0);
        double near_ridge = 190 + 14 * sin (x * 0.03 + 2.0) + 6 * sin (x * 0.21);
        double dx = x - 185.0, dy = y - 62.0;

        if (dx * dx + dy * dy < 26.0 * 26.0)
          {
            p[0] = 255; p[1] = 214; p[2] = 90;        /* sun */
          }
        else if (y < far_ridge)
          {
            double k = y / far_ridge;                 /* sky */
            p[0] = (guint8) (70 + 120 * k);
            p[1] = (guint8) (120 + 90 * k);
            p[2] = (guint8) (200 + 40 * k);
          }
        else if (y < near_ridge)
          {
            p[0] = 92; p[1] = 104; p[2] = 140;         /* far mountains */
          }
        else
          {
            double k = (y - near_ridge) / (IMAGE_SIZE - near_ridge + 1);
            p[0] = (guint8) (50 + 30 * k);             /* meadow */
            p[1] = (guint8) (130 - 40 * k);
            p[2] = (guint8) (60 + 10 * k);
          }
      }

  return pixels;
}

static void
png_write_cb (png_structp  png,
              png_bytep    data,
              size_t       length)
{
  g_byte_array_append (png_get_io_ptr (png), data, (guint) length);
}

static void
png_flush_cb (png_structp png)
{
}

/* Encodes rows of RGB pixels as a PNG. A noisy picture (every step but the
 * last) is something neither row filters nor LZ77 matching shrink, so
 * neither is tried: no filter and Huffman coding only make such a step about
 * five times cheaper than libpng's defaults (6.5 ms of CPU per step before,
 * most of it in zlib's match search and libpng's filter heuristics) for a
 * file about as large. The clean last picture gets both. */
static GBytes *
encode_png (guint8  **rows,
            guint     size,
            gboolean  noisy,
            GError  **error)
{
  GByteArray *out = g_byte_array_sized_new (size * size * 3 + 1024);
  png_structp png = png_create_write_struct (PNG_LIBPNG_VER_STRING, NULL, NULL, NULL);
  png_infop info = png != NULL ? png_create_info_struct (png) : NULL;

  if (info == NULL || setjmp (png_jmpbuf (png)))
    {
      png_destroy_write_struct (&png, &info);
      g_byte_array_unref (out);
      g_set_error_literal (error, G_IO_ERROR, G_IO_ERROR_FAILED, "Could not encode the image");
      return NULL;
    }

  png_set_write_fn (png, out, png_write_cb, png_flush_cb);
  png_set_IHDR (png, info, size, size, 8, PNG_COLOR_TYPE_RGB, PNG_INTERLACE_NONE,
                PNG_COMPRESSION_TYPE_DEFAULT, PNG_FILTER_TYPE_DEFAULT);
  png_set_compression_level (png, 1);
  if (noisy)
    {
      png_set_filter (png, PNG_FILTER_TYPE_BASE, PNG_FILTER_NONE);
      png_set_compression_strategy (png, Z_HUFFMAN_ONLY);
    }
  png_set_rows (png, info, rows);
  png_write_png (png, info, PNG_TRANSFORM_IDENTITY, NULL);
  png_destroy_write_struct (&png, &info);

  return g_byte_array_free_to_bytes (out);
}

guint8 *
riv_demo_render_rgb (double   t,
                     guint32  seed,
                     guint   *size)
{
  static GOnce once = G_ONCE_INIT;
  guint8 *pixels = g_malloc (IMAGE_SIZE * IMAGE_SIZE * 3);
  const guint8 *base;
  guint32 state = seed != 0 ? seed : 0x9e3779b9u;
  guint mix = (guint) CLAMP (t * 256.0, 0.0, 256.0);

  base = g_once (&once, make_base_picture, NULL);

  for (int y = 0; y < IMAGE_SIZE; y++)
    {
      guint8 *row = pixels + y * IMAGE_SIZE * 3;
      const guint8 *src = base + y * IMAGE_SIZE * 3;

      for (int x = 0; x < IMAGE_SIZE * 3; x++)
        {
          guint noise;

          /* xorshift32: cheap, deterministic per job and step */
          state ^= state << 13;
          state ^= state >> 17;
          state ^= state << 5;
          noise = state & 0xff;
          row[x] = (guint8) ((src[x] * mix + noise * (256 - mix)) >> 8);
        }
    }

  *size = IMAGE_SIZE;
  return pixels;
}

GBytes *
riv_demo_render_png (double    t,
                     guint32   seed,
                     GError  **error)
{
  guint size;
  g_autofree guint8 *pixels = riv_demo_render_rgb (t, seed, &size);
  guint8 *rows[IMAGE_SIZE];

  for (guint y = 0; y < size; y++)
    rows[y] = pixels + y * size * 3;
  /* Noisy pictures (t < 1) are encoded with Huffman coding only. */
  return encode_png (rows, size, (guint) CLAMP (t * 256.0, 0.0, 256.0) < 256, error);
}

GBytes *
riv_demo_encode_png (guint8  **rows,
                     guint     size,
                     GError  **error)
{
  return encode_png (rows, size, FALSE, error);
}

/* Runs (worker threads) */

char *
riv_demo_file_data_json (const char *base_url,
                         const char *path,
                         gsize       size,
                         const char *orig_name,
                         const char *mime_type)
{
  GString *out = g_string_new ("{\"path\":");

  riv_wire_append_string (out, path, -1);
  g_string_append (out, ",\"url\":");
  {
    g_autofree char *url = g_strconcat (base_url, "/gradio_api/file=", path, NULL);
    riv_wire_append_string (out, url, -1);
  }
  g_string_append_printf (out, ",\"size\":%" G_GSIZE_FORMAT ",\"orig_name\":", size);
  riv_wire_append_string (out, orig_name, -1);
  g_string_append (out, ",\"mime_type\":");
  riv_wire_append_string (out, mime_type, -1);
  g_string_append (out, ",\"is_stream\":false,\"meta\":{\"_type\":\"gradio.FileData\"}}");
  return g_string_free (out, FALSE);
}

static void
run_fake_diffusion (RivRun *run)
{
  const RivDemoParams *params = riv_run_get_params (run, 0);
  guint steps = (guint) params->values[0].number;
  double delay = params->values[1].number;
  const char *event_id = riv_run_get_event_id (run, 0);
  guint32 seed = g_str_hash (event_id);
  g_autofree char *last_image = NULL;
  g_autofree char *last_text = NULL;

  /* "Seconds per step" is the step's whole time, its picture included:
   * step i renders at start + i × delay, or at once when the pictures
   * before it took longer than that. */
  gint64 start = g_get_monotonic_time ();

  for (guint i = 1; i <= steps; i++)
    {
      g_autoptr(GError) error = NULL;
      g_autoptr(GBytes) png = NULL;
      g_autofree char *name = NULL;
      g_autofree char *path = NULL;
      GString *data;

      if (!riv_run_sleep_until (run, start + (gint64) (i * delay * G_USEC_PER_SEC)))
        return;

      png = riv_demo_render_png ((double) i / steps, seed + i, &error);
      name = g_strdup_printf ("%s-%u.png", event_id, i);
      path = g_build_filename (riv_run_get_output_dir (run), name, NULL);
      if (png == NULL ||
          !g_file_set_contents (path, g_bytes_get_data (png, NULL), g_bytes_get_size (png), &error))
        {
          g_autofree char *message = g_strdup_printf ("Could not write the image: %s",
                                                      error->message);
          riv_run_fail (run, message);
          return;
        }

      g_free (last_image);
      last_image = riv_demo_file_data_json (riv_run_get_base_url (run), path,
                                            g_bytes_get_size (png), "image.png", "image/png");
      g_free (last_text);
      last_text = g_strdup_printf ("step %u/%u", i, steps);

      data = g_string_new ("[");
      if (i == 1)
        {
          g_string_append (data, last_image);
          g_string_append_c (data, ',');
          riv_wire_append_string (data, last_text, -1);
        }
      else
        {
          g_string_append (data, "[[\"replace\",[],");
          g_string_append (data, last_image);
          g_string_append (data, "]],[[\"replace\",[],");
          riv_wire_append_string (data, last_text, -1);
          g_string_append (data, "]]");
        }
      g_string_append_c (data, ']');

      if (!riv_run_progress (run, i, steps, "steps"))
        {
          g_unlink (path);
          g_string_free (data, TRUE);
          return;
        }

      /* The yield takes the path, whatever it returns. */
      if (!riv_run_yield (run, data->str, data->len,
                          g_steal_pointer (&path), g_bytes_get_size (png)))
        {
          g_string_free (data, TRUE);
          return;
        }
      g_string_free (data, TRUE);
    }

  {
    GString *result = g_string_new ("[");

    if (last_image != NULL)
      g_string_append (result, last_image);
    else
      g_string_append (result, "null");
    g_string_append_c (result, ',');
    riv_wire_append_string (result, last_text != NULL ? last_text : "", -1);
    g_string_append_c (result, ']');
    riv_run_return (run, 0, g_string_free (result, FALSE));
  }
}

static void
run_batch_echo (RivRun *run)
{
  guint n = riv_run_get_size (run);
  double delay = 0;

  /* One call for the whole batch: the inputs are transposed into lists,
   * the call waits once, and each member gets its own slice back. */
  for (guint i = 0; i < n; i++)
    delay = MAX (delay, riv_run_get_params (run, i)->values[1].number);

  if (!riv_run_sleep (run, delay))
    return;

  for (guint i = 0; i < n; i++)
    {
      GString *data = g_string_new ("[");

      riv_wire_append_string (data, riv_run_get_params (run, i)->values[0].text, -1);
      g_string_append_c (data, ']');
      riv_run_return (run, i, g_string_free (data, FALSE));
    }
}

static void
run_rapid_generation (RivRun *run)
{
  const RivDemoParams *params = riv_run_get_params (run, 0);
  guint count = (guint) params->values[0].number;
  GString *text = g_string_new (NULL);
  GString *data = g_string_new (NULL);

  for (guint i = 1; i <= count; i++)
    {
      g_string_truncate (data, 0);
      if (i == 1)
        {
          g_string_append (text, "1");
          g_string_append (data, "[\"1\"]");
        }
      else
        {
          char number[16];
          int n = g_snprintf (number, sizeof number, "%u", i);

          /* No printf-to-heap here: this loop runs up to a million times. */
          g_string_append_c (text, '\n');
          g_string_append_len (text, number, n);
          g_string_append (data, "[[[\"append\",[],\"\\n");
          g_string_append_len (data, number, n);
          g_string_append (data, "\"]]]");
        }

      if (!riv_run_yield (run, data->str, data->len, NULL, 0))
        goto out;
    }

  g_string_truncate (data, 0);
  g_string_append_c (data, '[');
  riv_wire_append_string (data, text->str, text->len);
  g_string_append_c (data, ']');
  riv_run_return (run, 0, g_string_free (g_steal_pointer (&data), FALSE));

out:
  if (data != NULL)
    g_string_free (data, TRUE);
  g_string_free (text, TRUE);
}
