/* riv-output-card.h
 * Copyright 2026 The Rivulet authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * One output component of a job, shown the way its type calls for: chatbot
 * bubbles, a gallery grid, label confidence bars, JSON pretty-printed,
 * markdown/HTML as formatted text, a dataframe as a table, a file with open
 * and save, an audio/video player, an image, a plot (a matplotlib picture, or
 * a Plotly/Altair/Bokeh figure summarised as a table of its series); any
 * other type as its JSON with the type named. gr.update values are applied as
 * Gradio's page applies them (value, label, visibility; none keeps the value). The output view feeds it the component's latest value
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
/* The card's title: the component's label (or type). */
const char     *riv_output_card_get_label        (RivOutputCard *self);

/* Shows a ChatInterface's response (a JSON output) as the assistant's chat
 * bubble. Before the first value only. */
void            riv_output_card_set_chat_reply   (RivOutputCard *self,
                                                  gboolean       chat_reply);

/* For tests and search. */
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
