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

G_END_DECLS
