/* riv-transcript.h
 * Copyright 2026 The Rivulet authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * A session transcript: JSON Lines, one object per event, in the order the
 * client saw them. Every object has "t" (seconds since the recording began)
 * and "kind":
 *
 *   {"t":0.01,"kind":"request","id":3,"method":"POST","path":"/gradio_api/queue/join",
 *    "body":{…}}
 *   {"t":0.02,"kind":"response","id":3,"method":"POST","path":"/gradio_api/queue/join",
 *    "status":200,"body":{"event_id":"…"}}
 *   {"t":0.03,"kind":"request","id":4,"stream":1,"method":"GET",
 *    "path":"/gradio_api/queue/data?session_hash=…"}
 *   {"t":0.05,"kind":"sse","stream":1,"data":"{\"msg\":\"estimation\",…}"}
 *   {"t":0.90,"kind":"sse","stream":1,"end":"eof"}          the stream ended
 *                                                             (eof, error or client)
 *   {"t":9.00,"kind":"truncated","max_bytes":268435456}     the size bound was hit;
 *                                                             nothing follows
 *
 * A request and its response share "id"; the requests that open an SSE
 * stream, their responses and the stream's frames share "stream" (1, 2, …).
 * A body that is JSON of at most its bound (a request's RIV_TRANSCRIPT_MAX_BODY,
 * a reply's RIV_TRANSCRIPT_MAX_REPLY_BODY, so that a replay can serve it) is
 * kept as "body"; any other text body is "body_text", cut at its bound with
 * "cut":true and "size" (the whole length); a body that is not UTF-8 is only
 * its "size" with "cut":true. Secrets are never written: no header is
 * recorded, and members of bodies, frames and query strings whose names
 * contain password, token, authorization, cookie, secret, api_key or __sign
 * have their values replaced with "[scrubbed]".
 */
#pragma once

#include <glib.h>

#include "riv-tap.h"

G_BEGIN_DECLS

#define RIV_TRANSCRIPT_MAX_BODY          (64 * 1024)
#define RIV_TRANSCRIPT_MAX_REPLY_BODY    (16 * 1024 * 1024)
#define RIV_TRANSCRIPT_DEFAULT_MAX_BYTES ((guint64) 256 * 1024 * 1024)
#define RIV_TRANSCRIPT_SCRUBBED          "[scrubbed]"

#define RIV_TRANSCRIPT_ERROR (riv_transcript_error_quark ())
typedef enum
{
  RIV_TRANSCRIPT_ERROR_INVALID,   /* a line that is not a transcript event; the message names it */
  RIV_TRANSCRIPT_ERROR_WRITE,     /* the file could not be written */
} RivTranscriptError;
GQuark riv_transcript_error_quark (void);

const char *riv_transcript_kind_to_string (RivTapKind kind);
const char *riv_transcript_end_to_string  (RivTapEnd         end);

/* Whether a member called name must never be written (case-insensitive). */
gboolean    riv_transcript_is_secret_key  (const char *name);

void        riv_transcript_event_free     (RivTapEvent *event);

/* Whether a recorded path (query ignored) ends with suffix, e.g. "/queue/join":
 * a server's root may sit under a prefix. */
gboolean    riv_transcript_path_ends_with (const char *path,
                                           const char *suffix);

/* Reading. Returns the events (RivTapEvent *, owned) or NULL with
 * RIV_TRANSCRIPT_ERROR_INVALID naming the first bad line. Blank lines are
 * skipped; times must not go backwards; nothing may follow "truncated". */
GPtrArray  *riv_transcript_parse          (const char   *data,
                                           gsize         len,
                                           GError      **error);
GPtrArray  *riv_transcript_load           (const char   *path,
                                           GError      **error);

/* One event as its line (with the '\n'), at time t: what the writer writes. */
char       *riv_transcript_format         (const RivTapEvent *event,
                                           double                    t,
                                           gsize                    *len);

/* Writing. Lines are formatted by the caller's thread and written by a
 * thread of the writer's own, so adding never waits for the disk. */
typedef struct _RivTranscriptWriter RivTranscriptWriter;

/* Creates (truncates) path. max_bytes bounds the file (0 = the default,
 * RIV_TRANSCRIPT_DEFAULT_MAX_BYTES); past it a "truncated" line ends it. */
RivTranscriptWriter *riv_transcript_writer_new      (const char                *path,
                                                     guint64                    max_bytes,
                                                     GError                   **error);
/* Live events carry riv_now(); the file's "t" counts from origin (by
 * default the writer's creation). */
void        riv_transcript_writer_set_origin        (RivTranscriptWriter       *self,
                                                     double                     origin);
void        riv_transcript_writer_add               (RivTranscriptWriter       *self,
                                                     const RivTapEvent         *event);
/* A RivTapFunc: user_data is the writer. */
void        riv_transcript_writer_tap               (const RivTapEvent         *event,
                                                     gpointer                   user_data);
gboolean    riv_transcript_writer_get_truncated     (RivTranscriptWriter       *self);
guint64     riv_transcript_writer_get_bytes         (RivTranscriptWriter       *self);
/* Flushes and closes the file (waits for the writer's thread); FALSE with
 * RIV_TRANSCRIPT_ERROR_WRITE when any write failed. Then frees the writer. */
gboolean    riv_transcript_writer_close             (RivTranscriptWriter       *self,
                                                     GError                   **error);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (RivTapEvent, riv_transcript_event_free)

G_END_DECLS
