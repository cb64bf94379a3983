/* riv-form.h
 * Copyright 2026 The Rivulet authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The input form of one endpoint, built from the components in the server's
 * config: one row per input, with the labels, ranges, steps, choices and
 * defaults the config gives. It produces the JSON data array to submit.
 */
#pragma once

#include <adwaita.h>

#include "riv-client.h"
#include "riv-config.h"

G_BEGIN_DECLS

typedef enum
{
  RIV_FORM_INPUT_TEXT,          /* AdwEntryRow */
  RIV_FORM_INPUT_TEXT_MULTI,    /* GtkTextView */
  RIV_FORM_INPUT_NUMBER,        /* GtkSpinButton */
  RIV_FORM_INPUT_SLIDER,        /* GtkScale */
  RIV_FORM_INPUT_CHECKBOX,      /* GtkSwitch */
  RIV_FORM_INPUT_DROPDOWN,      /* AdwComboRow */
  RIV_FORM_INPUT_RADIO,         /* GtkBox of grouped GtkCheckButtons */
  RIV_FORM_INPUT_IMAGE,         /* AdwActionRow with file chooser and drop target (image,
                                   file, audio, video: uploaded through /upload) */
  RIV_FORM_INPUT_STATE,         /* no widget; sends null */
  RIV_FORM_INPUT_UNSUPPORTED,   /* no longer built: see RIV_FORM_INPUT_JSON */
  RIV_FORM_INPUT_JSON,          /* AdwEntryRow holding the value as JSON, checked as typed */
  RIV_FORM_INPUT_CHATBOT,       /* GtkBox of messages: role GtkDropDown, GtkEntry, remove */
  RIV_FORM_INPUT_MULTIMODAL,    /* GtkEntry (text) plus a list of uploaded files */
  RIV_FORM_INPUT_FILES,         /* GtkBox of uploaded files (file_count multiple) */
  RIV_FORM_INPUT_CHECKBOX_GROUP,/* GtkFlowBox of GtkCheckButtons */
  RIV_FORM_INPUT_COLOR,         /* GtkColorButton */
  RIV_FORM_INPUT_DATETIME,      /* AdwEntryRow, checked as typed */
  RIV_FORM_INPUT_DATAFRAME,     /* GtkGrid of GtkEntry cells under the headers */
  RIV_FORM_INPUT_CODE,          /* monospace GtkTextView */
} RivFormInputKind;

#define RIV_TYPE_FORM (riv_form_get_type ())
G_DECLARE_FINAL_TYPE (RivForm, riv_form, RIV, FORM, AdwBin)

/* Properties: "busy" (an upload is in flight), "n-inputs".
 * Signals: "error" (const char *message) for a failed upload; "activate"
 * when Enter is pressed in a single-line text input; "upload-progress"
 * (const char *file name, double fraction 0..1) as an upload's body goes out. */

GtkWidget        *riv_form_new                 (void);
/* Rebuilds the rows. config is kept alive while the form shows its endpoint;
 * endpoint NULL empties the form. */
void              riv_form_set_endpoint        (RivForm      *self,
                                                RivConfig    *config,
                                                RivEndpoint  *endpoint);
RivEndpoint      *riv_form_get_endpoint        (RivForm      *self);
/* The client used to upload image inputs; nullable. */
void              riv_form_set_client          (RivForm      *self,
                                                RivClient    *client);
gboolean          riv_form_get_busy            (RivForm      *self);
guint             riv_form_get_n_inputs        (RivForm      *self);
RivFormInputKind  riv_form_get_input_kind      (RivForm      *self,
                                                guint         position);
/* The editing widget (see RivFormInputKind), NULL for state inputs. */
GtkWidget        *riv_form_get_input_widget    (RivForm      *self,
                                                guint         position);
/* The list row holding the input, NULL for state inputs. */
GtkWidget        *riv_form_get_input_row       (RivForm      *self,
                                                guint         position);
/* A JSON array with one value per endpoint input. */
JsonNode         *riv_form_dup_data            (RivForm      *self);
/* The endpoint's examples (JsonNode * arrays, a value per input) when the
 * person chose that Burst and Load Test take them, else NULL. */
GPtrArray        *riv_form_dup_examples        (RivForm      *self);
/* Fills the inputs from a JSON array (e.g. --data); values whose type does not
 * fit an input are an error. Image inputs take a FileData object or a path. */
gboolean          riv_form_set_data            (RivForm      *self,
                                                JsonNode     *data,
                                                GError      **error);
/* FALSE, with a message naming the input, when a value cannot be sent
 * (invalid JSON, date, number cell); the field itself shows why. */
gboolean          riv_form_check               (RivForm      *self,
                                                GError      **error);
/* Adds a local file to a files or multimodal input (replaces an image,
 * file, audio or video input's file): reads and uploads it. */
void              riv_form_add_file            (RivForm      *self,
                                                guint         position,
                                                GFile        *file);
/* Uses a local file for an image input: reads and uploads it. */
void              riv_form_set_image_file      (RivForm      *self,
                                                guint         position,
                                                GFile        *file);

G_END_DECLS
