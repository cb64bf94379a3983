/* riv-form-private.h
 * Copyright 2026 The Rivulet authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * What riv-form.c (the form) and riv-form-editors.c (its editors) share.
 */
#pragma once

#include "riv-form.h"

G_BEGIN_DECLS

typedef struct
{
  RivForm          *form;            /* borrowed */
  RivComponent     *component;       /* borrowed from the form's config, or owned_component */
  RivComponent     *owned_component; /* owned, nullable: stands for a typed parameter */
  const RivParameter *parameter;     /* borrowed from the config, nullable: /info's */
  RivFormInputKind  kind;
  GtkWidget        *row;             /* borrowed (owned by the group), nullable */
  GtkWidget        *widget;          /* borrowed, nullable */
  GPtrArray        *choice_values;   /* JsonNode*, owned, nullable */
  gboolean          multiselect;
  gboolean          integer;         /* number/slider values are sent as integers */
  JsonNode         *override;        /* owned, nullable: value set by riv_form_set_data */

  /* Image inputs */
  GtkWidget        *thumbnail;       /* borrowed */
  GtkWidget        *spinner;         /* borrowed */
  char             *image_path;      /* server path after upload, owned, nullable */
  char             *image_name;      /* owned, nullable */
  gboolean          any_file;        /* a file, audio or video input (no thumbnail) */
  GCancellable     *upload_cancellable; /* owned, nullable */

  /* Editors made of several widgets */
  GtkWidget        *list;            /* borrowed: messages, files or the dataframe's grid */
  GtkWidget        *text;            /* borrowed: a multimodal textbox's text */
  GtkWidget        *error_label;     /* borrowed, nullable: why the value cannot be sent */
  GtkWidget        *placeholder;     /* borrowed, nullable: shown while the list is empty */
  GPtrArray        *checks;          /* GtkCheckButton*, borrowed, nullable: a checkbox group */
  GPtrArray        *files;           /* FileItem*, owned, nullable: files, multimodal */
  GPtrArray        *headers;         /* char*, owned, nullable: a dataframe's columns */
  GPtrArray        *datatypes;       /* char*, owned, nullable: one per column */
  int               chat_format;     /* ChatFormat */
  gboolean          include_time;    /* datetime */
} Input;

struct _RivForm
{
  AdwBin        parent_instance;

  /* Owned references */
  RivConfig    *config;          /* nullable */
  RivClient    *client;          /* nullable */
  GPtrArray    *inputs;          /* Input* */
  GCancellable *cancellable;

  /* Borrowed references */
  RivEndpoint  *endpoint;        /* owned by config */
  GtkWidget    *group;
  GtkWidget    *use_examples;    /* nullable: the examples' switch */

  guint         n_uploads;
};

void       _riv_form_set_busy_delta  (RivForm     *self,
                                      int          delta);
void       _riv_form_emit_error      (RivForm     *self,
                                      const char  *message);
void       _riv_form_emit_activate   (RivForm     *self);
void       _riv_form_emit_progress   (RivForm     *self,
                                      const char  *name,
                                      double       fraction);

const char *_riv_form_component_title (RivComponent *component);

/* Builds the input's row (NULL for state inputs) and sets its kind and widgets. */
GtkWidget *_riv_form_build_row       (RivForm     *self,
                                      Input       *input);
JsonNode  *_riv_form_input_dup_value (Input       *input);
gboolean   _riv_form_input_set_value (Input       *input,
                                      guint        position,
                                      JsonNode    *value,
                                      GError     **error);
void       _riv_form_image_use_file  (Input       *input,
                                      GFile       *file);
/* A FileData's name: its orig_name, else its path's last part. */
char      *_riv_form_file_name       (JsonObject  *file);
/* Downloads the picture of a FileData on the server into picture (a
 * GtkPicture, shown once it has one); the form's cancellable stops it. */
void       _riv_form_fetch_picture   (RivForm     *self,
                                      JsonObject  *file,
                                      GtkWidget   *picture);
/* An image or file input given a FileData already on the server. */
void       _riv_form_image_use_given (Input       *input,
                                      JsonNode    *value);
/* Adds a file to a files or multimodal input and uploads it. */
void       _riv_form_add_file        (Input       *input,
                                      GFile       *file);
/* NULL when the input's value can be sent, else why not (shown next to it). */
char      *_riv_form_input_check     (Input       *input);

/* One file of a files or multimodal input. */
typedef struct
{
  Input        *input;       /* borrowed */
  GtkWidget    *row;         /* borrowed (in input->list) */
  GtkWidget    *status;      /* borrowed */
  char         *name;
  char         *path;        /* on the server, once uploaded; nullable */
  char         *mime_type;   /* nullable */
  gint64        size;        /* -1 until read */
  GCancellable *cancellable; /* owned while uploading, nullable */
  JsonNode     *given;       /* a FileData set with --data, sent as it is; nullable */
} FileItem;

typedef struct
{
  RivForm *form;          /* owned */
  Input   *input;         /* valid while the form holds the same input and cancellable */
  FileItem *item;         /* nullable: a file of a list, valid as input is */
  guint    percent;       /* last percentage shown */
  char    *name;
  GFile   *file;
  GCancellable *cancellable; /* owned; cancelled when input goes away */
} UploadData;

/* Shared by riv-form-editors.c and riv-form-lists.c. */
void _riv_form_box_row_add_error_label (Input *input, GtkWidget *box);
GtkWidget *_riv_form_box_row_new (Input *input, GtkWidget **box_out, GtkWidget **header_out);
GtkWidget *_riv_form_icon_button_new (const char *icon_name, const char *tooltip);
void _riv_form_image_load_cb (GObject *object, GAsyncResult *result, gpointer user_data);
void _riv_form_input_changed_cb (gpointer user_data);
void _riv_form_input_show_check (Input *input);
gboolean _riv_form_is_integral (double value);
void _riv_form_list_add_placeholder (Input *input, GtkWidget *box, const char *text);
void _riv_form_list_update_placeholder (Input *input);
char *_riv_form_node_to_display (JsonNode *node);
gboolean _riv_form_parse_cell_number (const char *text, double *value);
GtkWidget *_riv_form_build_chatbot_row (Input *input);
GtkWidget *_riv_form_build_dataframe_row (Input *input);
GtkWidget *_riv_form_build_files_row (Input *input);
GtkWidget *_riv_form_build_multimodal_row (Input *input);
JsonNode *_riv_form_chat_dup_value (Input *input);
gboolean _riv_form_chat_fill (Input *input, JsonNode *history);
JsonNode *_riv_form_dataframe_dup_value (Input *input);
gboolean _riv_form_dataframe_fill (Input *input, JsonNode *value);
JsonNode *_riv_form_file_data_node (const char *path, const char *name, gint64 size, const char *mime_type);
JsonArray *_riv_form_files_dup_array (Input *input);
gboolean _riv_form_files_fill (Input *input, JsonNode *list);
GtkWidget *_riv_form_build_image_row (Input *input);

G_END_DECLS
