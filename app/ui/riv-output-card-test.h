/* riv-output-card-test.h
 * Copyright 2026 The Rivulet authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * What tests read of an output card (riv-output-card.h): its title and note,
 * what it shows (items, text, markup, textures, bars, media) and why it cannot
 * show a value. Not for the application.
 */
#pragma once

#include "riv-output-card.h"

G_BEGIN_DECLS

/* The title shown: the label, or the one a gr.update gave. */
const char     *riv_output_card_get_title        (RivOutputCard *self);
/* What the card says about an update (hidden, not updated), or NULL. */
const char     *riv_output_card_get_note         (RivOutputCard *self);
/* Hidden by an update's visible=False (the card stays, and says so). */
gboolean        riv_output_card_is_hidden        (RivOutputCard *self);
/* The text label's markup (highlighted text: the colours of its labels). */
char           *riv_output_card_dup_markup       (RivOutputCard *self);
/* Items shown: chat messages, gallery images, label bars, files, table rows. */
guint           riv_output_card_get_n_items      (RivOutputCard *self);
/* The texture of item i (gallery), of the image or of a matplotlib plot, once decoded. */
GdkTexture     *riv_output_card_get_texture      (RivOutputCard *self,
                                                  guint          i);
/* The plain text shown (chat: the messages one per line; label: the label). */
char           *riv_output_card_dup_text         (RivOutputCard *self);
/* The fraction each label bar shows, or -1. */
double          riv_output_card_get_bar_fraction (RivOutputCard *self,
                                                  guint          i);
/* The audio/video card's stream, or NULL. */
GtkMediaStream *riv_output_card_get_media_stream (RivOutputCard *self);
/* Why the card cannot show its value (undecodable image, failed download), or NULL. */
const char     *riv_output_card_get_error        (RivOutputCard *self);
/* Downloads still running. */
guint           riv_output_card_get_n_pending    (RivOutputCard *self);

G_END_DECLS
