/* riv-demo-private.h
 * Copyright 2026 The Rivulet authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Shared by the demo files: riv-demo.c (the config, fake_diffusion,
 * batch_echo, rapid_generation), riv-demo-text.c (stream_text and
 * paced_text), riv-demo-media.c (chat, gallery, mixed, logs) and
 * riv-demo-shapes.c (the shapes real apps return: updates, plots, five
 * outputs, a ChatInterface's reply, highlighted text, a generator that
 * fails, a chat with a gr.State).
 */
#pragma once

#include "riv-demo.h"
#include "riv-run.h"

G_BEGIN_DECLS

/* A FileData JSON object for a file the demo wrote under its output dir. */
char   *riv_demo_file_data_json (const char *base_url,
                                 const char *path,
                                 gsize       size,
                                 const char *orig_name,
                                 const char *mime_type);
/* Writes bytes to a file of this event under the output dir. Returns its
 * path (for riv_run_yield) and sets *file_data; on failure fails the run. */
char   *riv_demo_write_output   (RivRun       *run,
                                 const char   *suffix,
                                 const guint8 *data,
                                 gsize         size,
                                 const char   *orig_name,
                                 const char   *mime_type,
                                 char        **file_data);
/* size × size RGB rows as a PNG. */
GBytes *riv_demo_encode_png     (guint8      **rows,
                                 guint         size,
                                 GError      **error);
/* The demo picture as packed RGB (*size × *size pixels); free with g_free. */
guint8 *riv_demo_render_rgb     (double      t,
                                 guint32     seed,
                                 guint      *size);

/* Worker threads. */
extern const RivRunSteps riv_demo_stream_text_steps;
extern const RivRunSteps riv_demo_paced_text_steps;
void    riv_demo_run_chat       (RivRun     *run);
void    riv_demo_run_gallery    (RivRun     *run);
void    riv_demo_run_mixed      (RivRun     *run);
void    riv_demo_run_logs       (RivRun     *run);
void    riv_demo_run_shapes_update (RivRun  *run);
void    riv_demo_run_shapes_plot   (RivRun  *run);
void    riv_demo_run_shapes_five   (RivRun  *run);
void    riv_demo_run_shapes_chat   (RivRun  *run);
void    riv_demo_run_shapes_text   (RivRun  *run);
void    riv_demo_run_shapes_fail   (RivRun  *run);
void    riv_demo_run_session_chat  (RivRun  *run);

G_END_DECLS
