/* riv-output-view-test.h
 * Copyright 2026 The Rivulet authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * What tests and screenshots read of an output view (riv-output-view.h): the
 * picture, the text, frames and updates counted, the Timeline as shown and the
 * other outputs' cards. Not for the application.
 */
#pragma once

#include "riv-output-card-test.h"
#include "riv-output-view.h"

G_BEGIN_DECLS

GtkPicture *riv_output_view_get_picture       (RivOutputView *self);
GtkTextView*riv_output_view_get_text_view     (RivOutputView *self);
guint       riv_output_view_get_n_frames      (RivOutputView *self);
guint       riv_output_view_get_n_updates     (RivOutputView *self);
const char *riv_output_view_get_status_text   (RivOutputView *self);
/* The Timeline as shown: the job's events, and its updates' gaps and stalls. */
char       *riv_output_view_dup_timeline      (RivOutputView *self);
/* The cards of the shown job's other outputs, in order (borrowed). */
guint       riv_output_view_get_n_cards       (RivOutputView *self);
RivOutputCard *riv_output_view_get_card       (RivOutputView *self,
                                               guint          i);
/* Why the picture cannot be shown, or NULL. */
const char *riv_output_view_get_image_error   (RivOutputView *self);

G_END_DECLS
