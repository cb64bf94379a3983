/* riv-tap.h
 * Copyright 2026 The Rivulet authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The client's tap (riv_client_set_tap): every request, reply, stream frame
 * and stream end the client sees, as one RivTapEvent handed to a RivTapFunc
 * on the client's context. The protocol layer defines it; recording and lint
 * (app/trace) consume it, and a transcript file is these events as JSON Lines.
 */
#pragma once

#include <glib.h>

#include "riv-message.h"

G_BEGIN_DECLS

typedef enum
{
  RIV_TAP_REQUEST,
  RIV_TAP_RESPONSE,
  RIV_TAP_SSE,          /* one frame's data */
  RIV_TAP_SSE_END,      /* a stream ended ("kind":"sse" with "end") */
  RIV_TAP_TRUNCATED,
} RivTapKind;

typedef enum
{
  RIV_TAP_END_EOF,      /* the server ended the response */
  RIV_TAP_END_ERROR,    /* the connection failed */
  RIV_TAP_END_CLIENT,   /* the client closed it */
} RivTapEnd;

/* One event. Live (from a client's tap) every string is borrowed for the
 * duration of the call; from riv_transcript_parse() the event owns them. */
typedef struct
{
  RivTapKind         kind;
  double             t;          /* seconds: since the start in a file, riv_now() live */
  guint              line;       /* 1-based line in the file; 0 when live */
  guint64            id;         /* pairs a request with its response */
  guint              stream;     /* SSE stream number, 0 when not a stream */
  const char        *method;     /* request, response */
  const char        *path;       /* request, response: path and query */
  guint              status;     /* response */
  const char        *text;       /* nullable: the body, or the frame's data; NUL-terminated */
  gsize              text_len;
  gboolean           cut;        /* the body was cut (or not kept) */
  RivTapEnd          end;        /* SSE_END */
  /* nullable: live SSE, the frame as the client parsed it, read lean: its
   * output.data is a tree only once riv_message_get_data () is asked */
  RivMessage        *message;
} RivTapEvent;

/* Receives events as they happen (a client's tap). */
typedef void (*RivTapFunc) (const RivTapEvent *event,
                            gpointer           user_data);

G_END_DECLS
