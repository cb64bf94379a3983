/* riv-output-card.h
 * Copyright 2026 The Rivulet authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * One output component of a job, shown the way its type calls for: chatbot
 * bubbles, a gallery grid, label confidence bars, JSON pretty-printed,
 * markdown/HTML as formatted text, a dataframe as a table, a file with open
 * and save, an audio/video player, an image; any other type as its JSON with
 * the type named. The output view feeds it the component's latest value
 * once per frame at most; files are downloaded asynchronously.
 */
#pragma once

#include <adwaita.h>

#include "riv-client.h"
#include "riv-config.h"
#include "riv-job.h"

G_BEGIN_DECLS

#define RIV_TYPE_OUTPUT_CARD (riv_output_card_get_type ())
G_DECLARE_FINAL_TYPE (RivOutputCard, riv_output_card, RIV, OUTPUT_CARD, AdwBin)

/* component is copied from (type, label, props). */
/* client (nullable): its credentials fetch the files the card shows. */
GtkWidget      *riv_output_card_new              (RivComponent  *component,
                                                  RivClient     *client);
/* value is the component's latest value (nullable); job (nullable) gets a
 * timeline entry when a file cannot be shown. Unchanged values cost nothing. */
void            riv_output_card_set_value        (RivOutputCard *self,
                                                  JsonNode      *value,
                                                  RivJob        *job);
const char     *riv_output_card_get_component_type (RivOutputCard *self);

/* For tests and search. */
/* Items shown: chat messages, gallery images, label bars, files, table rows. */
guint           riv_output_card_get_n_items      (RivOutputCard *self);
/* The texture of item i (gallery) or of the image, once downloaded. */
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
