/* riv-message.h
 * Copyright 2026 The Rivulet authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * One parsed queue message (protocol.md §3.3). Unknown kinds and fields are
 * tolerated (kind RIV_MESSAGE_UNKNOWN, name kept in msg); malformed JSON or a
 * frame that is not an object with a string "msg" is a GError.
 */
#pragma once

#include <json-glib/json-glib.h>

#include "riv-types.h"

G_BEGIN_DECLS

/* Gradio 4.44's unexpected_error for a session it does not know: it has no
 * session_not_found field, only this message. */
#define RIV_MESSAGE_GRADIO4_NO_SESSION "404: Session not found."
/* rivulet-cli serve --stamp: the wall-clock times (Unix seconds) at which the
 * server made an output message and wrote it to the stream, members
 * Gradio's clients ignore. */
#define RIV_MESSAGE_MADE_AT "rivulet_made_at"
#define RIV_MESSAGE_SENT_AT "rivulet_sent_at"

/* Frames nested deeper than this are rejected before json-glib recurses into them. */
#define RIV_MESSAGE_MAX_DEPTH 512

#define RIV_MESSAGE_ERROR (riv_message_error_quark ())
typedef enum
{
  RIV_MESSAGE_ERROR_INVALID,   /* not JSON, not an object, no "msg", … */
} RivMessageError;
GQuark riv_message_error_quark (void);

typedef struct
{
  gboolean  has_index, has_length, has_progress;
  gint64    index;
  gint64    length;
  double    progress;   /* 0..1 */
  char     *unit;       /* nullable */
  char     *desc;       /* nullable */
} RivProgressUnit;

typedef struct
{
  RivMessageKind  kind;
  char           *msg;            /* the wire name, e.g. "estimation" */
  char           *event_id;       /* nullable (session-wide messages) */

  /* estimation */
  gboolean        has_rank, has_queue_size, has_rank_eta;
  gint64          rank;
  gint64          queue_size;
  double          rank_eta;

  /* process_starts */
  gboolean        has_eta;
  double          eta;

  /* progress: array of RivProgressUnit, nullable */
  GArray         *progress;

  /* log */
  char           *log;
  char           *level;
  char           *title;          /* log title, or the error title on completion */

  /* process_generating / process_streaming / process_completed */
  gboolean        success;        /* default TRUE when absent */
  JsonNode       *output;         /* the whole "output" value, nullable; NULL from riv_message_parse_lean */
  JsonNode       *data;           /* output.data when it is an array, nullable:
                                   * read it with riv_message_get_data () */
  /* From riv_message_parse_lean: output.data's text, parsed on demand, and
   * when every output's edit list only appends at its root (a streamed
   * text), what each output gains (NULL-terminated, one per output); else
   * NULL. */
  char           *data_text;
  gsize           data_len;
  char          **appends;
  gboolean        has_error;      /* output has an "error" key (value may be null) */
  char           *error;          /* output.error as text, nullable */
  gboolean        is_generating;
  gboolean        output_used_cache;  /* output.used_cache is true (lint: a cached answer) */
  gboolean        cancelled;      /* output is {} (Gradio cancel) or carries "cancelled": true */
  gboolean        has_duration;
  double          duration;       /* output.duration */
  double          made_at;        /* RIV_MESSAGE_MADE_AT of an output message, 0 none */
  double          sent_at;        /* RIV_MESSAGE_SENT_AT of an output message, 0 none */
  gboolean        has_average_duration;
  double          average_duration; /* output.average_duration */
  /* process_completed from a cache (Gradio 6.12 @gr.cache): "full" or
   * "partial", nullable; cache_duration < 0 when absent */
  char           *used_cache;
  double          cache_duration;
  /* gr.render: the layout a render endpoint's completion put on the page
   * (output.render_config), nullable */
  JsonNode       *render_config;

  /* Rivulet's batch extension: "batch": {"id": int|string, "size": n, "index": i} */
  gboolean        has_batch;
  char           *batch_id;
  gint64          batch_size;
  gint64          batch_index;

  /* unexpected_error */
  char           *message;
  gboolean        session_not_found;   /* also RIV_MESSAGE_GRADIO4_NO_SESSION as the message */

  /* When it arrived (riv_now ()): set for messages that wait in the early buffer, else 0. */
  double          received_at;
} RivMessage;

RivMessageKind  riv_message_kind_from_string (const char  *msg);
const char     *riv_message_kind_to_string   (RivMessageKind kind);

/* Parses one frame's data. parser may be NULL; passing a reused parser is faster. */
RivMessage     *riv_message_parse            (JsonParser  *parser,
                                              const char  *data,
                                              gssize       len,
                                              GError     **error);
/* The same message, read straight from the text without building the frame
 * as a tree (several times cheaper; what a client on the wire calls), except
 * that the output is not kept whole: output is NULL, data is set. */
RivMessage     *riv_message_parse_lean       (const char  *data,
                                              gssize       len,
                                              GError     **error);
/* Builds a message from an already parsed node (an object). */
RivMessage     *riv_message_new_from_node    (JsonNode    *node,
                                              GError     **error);
/* output.data when it is an array (parsed now if the message was read lean), or NULL. */
JsonNode       *riv_message_get_data         (RivMessage  *self);
void            riv_message_free             (RivMessage  *self);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (RivMessage, riv_message_free)

G_END_DECLS
