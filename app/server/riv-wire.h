/* riv-wire.h
 * Copyright 2026 The Rivulet authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The server's side of the wire format (protocol.md §3.2, §3.3): SSE frames
 * "data: <one-line JSON>\n\n" built as text, so that a frame costs one string
 * and no JSON tree. Every frame carries "msg" and "event_id".
 */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

#define RIV_EVENT_ID_LEN 32

/* Bytes counted for an estimation frame that has not been rendered yet. */
#define RIV_FRAME_ESTIMATION_SIZE 128
/* What a queued frame costs beside its text: the struct, the GQueue node that
 * holds it and the allocator's header and rounding of each allocation (the
 * struct, the node, the text and the id of the event it completes). */
#define RIV_FRAME_OVERHEAD (sizeof (RivFrame) + 3 * sizeof (gpointer) + 4 * 16)

typedef struct _RivFrame RivFrame;

/* One queued frame of a session FIFO. Main thread only. */
struct _RivFrame
{
  char      *data;         /* owned, rendered frame; NULL for a lazy estimation */
  gsize      len;
  gsize      alloc;        /* bytes allocated for data */
  char      *completes;    /* owned, nullable: the event whose process_completed this is */

  /* A lazy estimation is rendered when it is written, so that a newer
   * estimation for the same event can update it in place instead of
   * piling up behind a reader that is away. */
  gboolean   is_estimation;
  char       event_id[RIV_EVENT_ID_LEN + 1];
  gint64     rank;
  gint64     queue_size;
  double     rank_eta;     /* < 0: null */
  RivFrame **slot;         /* nullable; set to NULL when this frame is rendered or freed */
};

RivFrame *riv_frame_new_take       (char        *data,
                                    gsize        len);
/* Takes the string's contents (given back what the string had allocated
 * beyond them, when that is much). */
RivFrame *riv_frame_new_string     (GString     *out);
RivFrame *riv_frame_new_estimation (const char  *event_id,
                                    gint64       rank,
                                    gint64       queue_size,
                                    double       rank_eta);
/* Renders a lazy estimation (and detaches it from its slot). */
void      riv_frame_render         (RivFrame    *self);
/* Bytes this frame counts for in a session buffer: its text and
 * RIV_FRAME_OVERHEAD, so that a buffer's count is the memory it holds. */
gsize     riv_frame_get_size       (RivFrame    *self);
void      riv_frame_free           (RivFrame    *self);

/* JSON text helpers. */
void      riv_wire_append_string   (GString     *out,
                                    const char  *str,
                                    gssize       len);
/* A JSON number, or null when value is not finite or (nullable and value < 0). */
void      riv_wire_append_double   (GString     *out,
                                    double       value);
void      riv_wire_append_eta      (GString     *out,
                                    double       value);
/* Opens a frame: data: {"msg":"<msg>","event_id":"<id>"|null  (no closing brace). */
void      riv_wire_begin_frame     (GString     *out,
                                    const char  *msg,
                                    const char  *event_id);
/* rivulet-cli serve --stamp: two members Gradio's clients ignore (the
 * client reads them as RIV_MESSAGE_MADE_AT and RIV_MESSAGE_SENT_AT), Unix
 * seconds: when the message was made (now), and when it was written to its
 * stream (a placeholder of fixed width that riv_wire_stamp_sent () fills). */
#define RIV_WIRE_MADE_AT "rivulet_made_at"
#define RIV_WIRE_SENT_AT "rivulet_sent_at"
void      riv_wire_append_stamps   (GString     *out);
/* Fills every sent-at placeholder in data (one or more frames) with now_us. */
void      riv_wire_stamp_sent      (char        *data,
                                    gsize        len,
                                    gint64       now_us);
/* Closes a frame: }\n\n */
void      riv_wire_end_frame       (GString     *out);
/* ,"batch":{"id":N,"size":S,"index":I} when batch_id > 0. */
void      riv_wire_append_batch    (GString     *out,
                                    gint64       batch_id,
                                    guint        size,
                                    guint        index);

char     *riv_wire_close_stream    (gsize       *len);
char     *riv_wire_heartbeat       (gsize       *len);
char     *riv_wire_unexpected_error (const char *message,
                                     gboolean    session_not_found,
                                     gsize      *len);

/* Fills buf (RIV_EVENT_ID_LEN + 1 bytes) with 32 random lowercase hex digits. */
void      riv_wire_new_event_id    (char        *buf);

G_END_DECLS
