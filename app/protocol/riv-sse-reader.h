/* riv-sse-reader.h
 * Copyright 2026 The Rivulet authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Incremental Server-Sent-Events framing: bytes in, complete events out.
 * Pure, no I/O. Handles any chunk split, LF / CRLF / CR line ends (a CR at the
 * end of one chunk followed by LF at the start of the next is one line end),
 * multi-line data (joined with "\n"), comments and unknown fields (ignored), a
 * leading UTF-8 BOM, and drops an unterminated trailing frame at reset.
 */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

#define RIV_SSE_DEFAULT_MAX_FRAME (16 * 1024 * 1024)

#define RIV_SSE_ERROR (riv_sse_error_quark ())
typedef enum
{
  RIV_SSE_ERROR_FRAME_TOO_LARGE,   /* a frame (or one line) exceeded the limit */
} RivSseError;
GQuark riv_sse_error_quark (void);

/* Called once per dispatched event (an event with at least one data line).
 * event_type is the "event:" field or NULL; data is NUL-terminated, len bytes
 * (both borrowed, valid during the call). The callback may reset the reader
 * (the rest of the fed buffer is then dropped) or free it, but must not feed it. */
typedef void (*RivSseEventFunc) (const char *event_type,
                                 const char *data,
                                 gsize       len,
                                 gpointer    user_data);

typedef struct _RivSseReader RivSseReader;

RivSseReader *riv_sse_reader_new   (gsize            max_frame);
void          riv_sse_reader_free  (RivSseReader    *self);
/* Drops any partial frame; the reader can be reused for a new stream. */
void          riv_sse_reader_reset (RivSseReader    *self);
/* Feeds bytes; calls func for each complete event, in order. Returns FALSE with
 * RIV_SSE_ERROR_FRAME_TOO_LARGE when the pending frame grows past max_frame;
 * events completed earlier in the same buffer have been delivered already. After
 * an error, the reader must be reset before further use. */
gboolean      riv_sse_reader_feed  (RivSseReader    *self,
                                    const char      *data,
                                    gsize            len,
                                    RivSseEventFunc  func,
                                    gpointer         user_data,
                                    GError         **error);
/* Bytes currently held for an incomplete frame (for memory checks). */
gsize         riv_sse_reader_get_pending (RivSseReader *self);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (RivSseReader, riv_sse_reader_free)

G_END_DECLS
