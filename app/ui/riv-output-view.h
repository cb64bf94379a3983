/* riv-output-view.h
 * Copyright 2026 The Rivulet authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Follows one job live: its image (replaced frame by frame), its text (grown
 * in place, kept scrolled to the end unless the user scrolled up), progress,
 * a status line and its event timeline. Job notifications only mark the view
 * dirty; it catches up once per frame. The picture can be dragged out; the
 * window's copy and save actions use the getters below.
 */
#pragma once

#include <adwaita.h>

#include "riv-config.h"
#include "riv-job.h"
#include "riv-output-card.h"

G_BEGIN_DECLS

#define RIV_TYPE_OUTPUT_VIEW (riv_output_view_get_type ())
G_DECLARE_FINAL_TYPE (RivOutputView, riv_output_view, RIV, OUTPUT_VIEW, AdwBin)

GtkWidget  *riv_output_view_new               (void);
/* job and config are nullable. With the config, the job's endpoint gets one
 * card per output component in the config's order: its first image output
 * is the picture, its first textbox the text, every other output a card
 * (riv-output-card.h). Stops following the newest job. */
void        riv_output_view_set_job           (RivOutputView *self,
                                               RivJob        *job,
                                               RivConfig     *config);
/* Follows the newest job (nullable; each submission gives it): shown from
 * the next frame with the client's config, and so is each one given after
 * it, until riv_output_view_set_job () shows another. */
void        riv_output_view_follow_job        (RivOutputView *self,
                                               RivJob        *job);
/* The job shown (property "job"). */
RivJob     *riv_output_view_get_job           (RivOutputView *self);
/* The client whose credentials fetch the files the cards show (nullable);
 * cards made afterwards use it. */
void        riv_output_view_set_client        (RivOutputView *self,
                                               RivClient     *client);
/* Applies pending changes now instead of at the next frame. */
void        riv_output_view_flush             (RivOutputView *self);

/* Properties "has-image" and "has-text" follow these two. */
/* The image shown (borrowed), or NULL. */
GdkTexture *riv_output_view_get_texture       (RivOutputView *self);
/* The image shown as PNG: the server's bytes when they are a PNG. */
GBytes     *riv_output_view_dup_png_bytes     (RivOutputView *self);
gboolean    riv_output_view_has_text          (RivOutputView *self);
/* The text shown (what Copy puts on the clipboard). */
char       *riv_output_view_dup_text          (RivOutputView *self);

/* Lays the view out for a narrow window (TRUE) or a wide one. */
void        riv_output_view_set_narrow        (RivOutputView *self,
                                               gboolean       narrow);

G_END_DECLS
