/* riv-demo-private.h
 * Copyright 2026 The Rivulet authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Shared by the demo files: riv-demo.c (the classic four, the config) and
 * riv-demo-media.c (chat, gallery, mixed, logs).
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
/* The demo picture as packed RGB (*size × *size pixels); free with g_free. */
guint8 *riv_demo_render_rgb     (double      t,
                                 guint32     seed,
                                 guint      *size);

/* Worker threads. */
void    riv_demo_run_chat       (RivRun     *run);
void    riv_demo_run_gallery    (RivRun     *run);
void    riv_demo_run_mixed      (RivRun     *run);
void    riv_demo_run_logs       (RivRun     *run);

G_END_DECLS
