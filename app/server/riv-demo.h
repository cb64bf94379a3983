/* riv-demo.h
 * Copyright 2026 The Rivulet authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The built-in demo functions and their Gradio-shaped description (config
 * components and dependencies, /info entries, input validation). The run
 * functions are called on a worker thread and talk to the queue only through
 * the RivRun API (riv-run.h).
 */
#pragma once

#include <json-glib/json-glib.h>

#include "riv-run.h"

G_BEGIN_DECLS

typedef enum
{
  RIV_DEMO_FAKE_DIFFUSION,
  RIV_DEMO_STREAM_TEXT,
  RIV_DEMO_BATCH_ECHO,
  RIV_DEMO_RAPID_GENERATION,
  RIV_DEMO_CHAT,
  RIV_DEMO_GALLERY,
  RIV_DEMO_MIXED,
  RIV_DEMO_LOGS,
  RIV_DEMO_SHAPES_UPDATE,
  RIV_DEMO_SHAPES_PLOT,
  RIV_DEMO_SHAPES_FIVE,
  RIV_DEMO_SHAPES_CHAT,
  RIV_DEMO_SHAPES_TEXT,
  RIV_DEMO_SHAPES_FAIL,
  RIV_DEMO_PACED_TEXT,
  RIV_DEMO_SESSION_CHAT,
  RIV_DEMO_N,
} RivDemoId;

typedef enum
{
  RIV_COMPONENT_TEXTBOX,
  RIV_COMPONENT_NUMBER,
  RIV_COMPONENT_SLIDER,
  RIV_COMPONENT_IMAGE,
  /* Outputs only (riv-demo-media.c streams them). */
  RIV_COMPONENT_CHATBOT,
  RIV_COMPONENT_GALLERY,
  RIV_COMPONENT_JSON,
  RIV_COMPONENT_LABEL,
  RIV_COMPONENT_MARKDOWN,
  RIV_COMPONENT_FILE,
  RIV_COMPONENT_AUDIO,
  RIV_COMPONENT_PLOT,
  RIV_COMPONENT_HIGHLIGHTEDTEXT,
  RIV_COMPONENT_STATE,
} RivComponentKind;

typedef struct
{
  RivComponentKind  kind;
  const char       *name;          /* parameter name and label */
  const char       *info;          /* help text */
  double            minimum;
  double            maximum;
  double            step;
  double            default_number;
  const char       *default_text;
  gboolean          integer;
  guint             lines;
  gboolean          hidden;        /* props.visible false */
} RivDemoComponent;


typedef struct
{
  const char             *api_name;      /* without the leading slash */
  const char             *description;
  gboolean                generator;
  gboolean                batch;
  guint                   max_batch_size;
  guint                   n_inputs;
  const RivDemoComponent *inputs;
  guint                   n_outputs;
  const RivDemoComponent *outputs;
  void                  (*run) (RivRun *run);   /* worker thread; NULL for a demo in steps */
  const RivRunSteps      *steps;                /* nullable: its steps (riv-run.h) */
} RivDemo;

guint           riv_demo_get_count          (void);
/* The demos as the queue runs them, in fn_index order (riv_demo_get_count ()
 * of them). */
const RivRunEndpoint *riv_demo_get_run_endpoints (void);
/* NULL for an unknown index. */
const RivDemo  *riv_demo_get                (guint              fn_index);
/* Component id of input/output i of demo fn_index (ids are unique in the config). */
guint           riv_demo_get_input_id       (guint              fn_index,
                                             guint              i);
guint           riv_demo_get_output_id      (guint              fn_index,
                                             guint              i);

/* Validates a join's "data" (nullable) and returns the normalised values
 * (null inputs take their default). On failure returns NULL and sets *detail
 * to a 422 detail list: [{"is_valid":false,"message":…,"parameter_name":…}]. */
RivDemoParams  *riv_demo_parse_params       (const RivDemo     *demo,
                                             JsonNode          *data,
                                             JsonNode         **detail);

/* The /config and /info documents. */
JsonNode       *riv_demo_build_config       (guint              app_id,
                                             guint64            max_file_size);
JsonNode       *riv_demo_build_info         (void);

/* The fake_diffusion picture at sharpness t in [0,1] (t = 1: no noise) as
 * PNG bytes. Thread-safe. */
GBytes         *riv_demo_render_png         (double             t,
                                             guint32            seed,
                                             GError           **error);
/* The chat demo's whole assistant reply to message. */
char           *riv_demo_chat_reply         (const char        *message);


G_END_DECLS
