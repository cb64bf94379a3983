/* riv-output-card-private.h
 * Copyright 2026 The Rivulet authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * What the output card's files share: riv-output-card.c (the GObject, its
 * value and the helpers below), riv-output-card-media.c (pictures, galleries,
 * files, media and plots, with their downloads and saving) and
 * riv-output-card-text.c (text-like values, chat, labels and tables). Not API.
 */
#pragma once

#include "riv-output-card-test.h"

G_BEGIN_DECLS

#define MAX_TABLE_ROWS 200
#define MAX_TEXT_CHARS 100000

typedef enum
{
  CARD_TEXT,        /* textbox, number, datetime, code, highlightedtext, … */
  CARD_CHAT,
  CARD_GALLERY,
  CARD_IMAGE,
  CARD_LABEL,
  CARD_JSON,
  CARD_MARKDOWN,
  CARD_HTML,
  CARD_TABLE,
  CARD_FILE,
  CARD_MEDIA,
  CARD_PLOT,
  CARD_OTHER,
} CardKind;

struct _RivOutputCard
{
  AdwBin          parent_instance;

  CardKind        kind;
  char           *type;
  GtkWidget      *content;        /* kind-specific container */
  GtkLabel       *text_label;     /* text, JSON, markdown, label headline */
  GtkLabel       *error_label;
  GtkWidget      *media_widget;   /* GtkVideo or GtkMediaControls */
  GtkLabel       *title_label;
  GtkLabel       *note_label;     /* hidden, or not updated, by a gr.update */
  GtkWidget      *body;
  RivClient      *client;         /* nullable: whose credentials fetch the files */
  gboolean        hidden;         /* by an update's visible=False */
  gboolean        chat_reply;     /* a ChatInterface's response: shown as a chat bubble */

  /* Owned references */
  char           *label;          /* the config's label (or the type) */
  JsonObject     *props;          /* the config's props */
  JsonNode       *shown;          /* copy of the value last given, nullable */
  JsonNode       *displayed;      /* copy of the value shown once updates are applied */
  RivJob         *job;            /* nullable */
  GCancellable   *cancellable;    /* downloads of the value shown */
  GPtrArray      *items;          /* GtkWidget*: bubbles' labels, gallery pictures, bars */
  GPtrArray      *item_texts;     /* char*: chat contents / gallery URLs */
  GPtrArray      *textures;       /* GdkTexture* or NULL, per gallery item (or the image) */
  GtkMediaStream *media;
  GCancellable   *media_cancellable; /* the media's download, nullable */
  char           *media_path;     /* nullable: the media's file of this card's own, deleted with it */
  GString        *plain;          /* the text shown, for search and tests */
  char           *error;
  guint           n_pending;
};

char *       _riv_output_card_file_data_name        (JsonObject *file);
void         _riv_output_card_label_set_markup_safe (GtkLabel   *label,
                                                     const char *markup,
                                                     const char *fallback);
GtkLabel *   _riv_output_card_new_text_label        (gboolean monospace);
JsonObject * _riv_output_card_node_object           (JsonNode *node);
const char * _riv_output_card_object_string         (JsonObject *object,
                                                     const char *member);
void         _riv_output_card_clear_items           (RivOutputCard *self);
void         _riv_output_card_set_error             (RivOutputCard *self,
                                                     const char    *error);
char *       _riv_output_card_value_to_pretty_json  (JsonNode *value);
char *       _riv_output_card_value_to_text         (JsonNode *value);
void         _riv_output_card_fetch_picture         (RivOutputCard *self,
                                                     guint          index,
                                                     JsonObject    *file);
void         _riv_output_card_show_large            (GtkFlowBox      *box,
                                                     GtkFlowBoxChild *child,
                                                     RivOutputCard   *self);
void         _riv_output_card_update_files          (RivOutputCard *self,
                                                     JsonNode      *value);
void         _riv_output_card_update_gallery        (RivOutputCard *self,
                                                     JsonNode      *value);
void         _riv_output_card_drop_media            (RivOutputCard *self);
void         _riv_output_card_update_media          (RivOutputCard *self,
                                                     JsonNode      *value);
void         _riv_output_card_update_plot           (RivOutputCard *self,
                                                     JsonNode      *value);
void         _riv_output_card_update_chat           (RivOutputCard *self,
                                                     JsonNode      *value);
void         _riv_output_card_update_label          (RivOutputCard *self,
                                                     JsonNode      *value);
void         _riv_output_card_update_table          (RivOutputCard *self,
                                                     JsonNode      *value);
void         _riv_output_card_update_text           (RivOutputCard *self,
                                                     JsonNode      *value);

G_END_DECLS
