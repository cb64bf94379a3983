/* riv-server.h
 * Copyright 2026 The Rivulet authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The embedded Gradio-compatible demo server (protocol.md §9). It runs on the
 * GMainContext that was thread-default when it was created; demo functions run
 * on a worker thread pool and post results back to that context.
 */
#pragma once

#include <gio/gio.h>

G_BEGIN_DECLS

#define RIV_SERVER_BUFFER_MAX        (G_GUINT64_CONSTANT (256) << 20)
#define RIV_SERVER_INPUT_MAX         (G_GUINT64_CONSTANT (128) << 20)
#define RIV_SERVER_SESSION_INPUT_MAX (G_GUINT64_CONSTANT (32) << 20)
#define RIV_SERVER_READER_TIMEOUT    60.0

#define RIV_SERVER_ERROR (riv_server_error_quark ())
typedef enum
{
  RIV_SERVER_ERROR_LISTEN,
} RivServerError;
GQuark riv_server_error_quark (void);

#define RIV_TYPE_SERVER (riv_server_get_type ())
G_DECLARE_FINAL_TYPE (RivServer, riv_server, RIV, SERVER, GObject)

/* Properties (set before listen):
 *   "concurrency"        guint, per-endpoint concurrency limit (default 8)
 *   "max-queue"          guint, max waiting events before 503 (0 = unlimited, default 10000)
 *   "heartbeat-interval" double, seconds (default 15)
 *   "close-linger"       double, seconds to hold close_stream back (default 0.5)
 *   "max-body"           guint, max request body bytes (default 4 MiB)
 *   "max-upload"         guint, max upload bytes (default 32 MiB); a body over
 *                        its limit is answered 413 as soon as its headers say
 *                        so or its chunks pass it, and the connection closed
 *   "max-sessions"       guint (default 4096); idle sessions are evicted beyond it
 *   "session-buffer-max" guint, max bytes queued for one session (default 64 MiB)
 *   "verbose"            gboolean, print per-batch log lines to stderr
 *   "session-timeout"    double, seconds (default 300): a session with no stream
 *                        attached for that long is dropped, and events it still
 *                        has pending are cancelled
 *   "max-files"          guint (default 1000): demo outputs kept for /file=, the
 *                        oldest deleted beyond it; and, apart, uploads kept: an
 *                        upload that does not fit is refused (507), never
 *                        makes room by deleting another client's
 *   "max-file-bytes"     guint64 (default 512 MiB): the same, in bytes
 *   "buffer-max"         guint64 (default 256 MiB; 0 = no limit): the frames
 *                        every session buffers together; above it the
 *                        generators of sessions holding more than a write
 *                        window pause. Frames count their overhead here and in
 *                        "session-buffer-max"
 *   "input-max"          guint64 (default 128 MiB; 0 = no limit): the inputs
 *                        live jobs hold together; a join over it gets 503
 *   "session-input-max"  guint64 (default 32 MiB; 0 = no limit): the same for
 *                        one session
 *   "reader-timeout"     double, seconds (default 60): jobs at least that old
 *                        of a session with no stream reading for that long
 *                        (none attached, or a write unfinished) fail, and
 *                        their workers are freed
 *   "max-upload-parts"   guint (default 100): parts in one upload request (413)
 *   "max-session-uploads" guint (default 100): uploads kept per session (the
 *                        upload's ?session_hash=, else the client's address);
 *                        beyond it the session's own oldest go
 *   "max-session-upload-bytes" guint64 (default 128 MiB): the same, in bytes
 *   "max-ranges"         guint (default 8, at most 64): byte ranges one GET /file=
 *                        answers with 206; more, or ranges that overlap, get
 *                        the whole file (riv-range.h)
 *   "header-timeout"     double, seconds (default 30): a connection whose request
 *                        headers have not all arrived by then is closed
 *   "idle-timeout"       double, seconds (default 120): a kept-alive connection
 *                        with no next request by then is closed
 *   "allow-origins"      GStrv (default none): browser origins served (with CORS)
 *                        besides loopback ones; "*" for any. Other origins get 403
 *   "allow-hosts"        GStrv (default none): Host names served besides loopback
 *                        and localhost names and the address listened on (a
 *                        proxy's public name); "*" for any. Others get 403
 * Signals:
 *   "batch-done" (const char *api_name, guint size, guint64 total_items)
 */
RivServer  *riv_server_new          (void);
/* host NULL means 127.0.0.1. port 0 picks a free port. */
gboolean    riv_server_listen       (RivServer    *self,
                                     const char   *host,
                                     guint         port,
                                     GError      **error);
guint       riv_server_get_port     (RivServer    *self);
/* "http://HOST:PORT" (no trailing slash). */
char       *riv_server_dup_url      (RivServer    *self);
/* Ends every open stream with close_stream, fails pending jobs, stops listening.
 * Idempotent. Worker threads are joined. */
void        riv_server_shutdown     (RivServer    *self);
/* The server's private directory for outputs and uploads (NULL before listen).
 * It is deleted by riv_server_shutdown(). */
const char *riv_server_get_temp_dir (RivServer  *self);
/* Bytes the sessions' buffers hold (frames with their overhead), and the
 * bytes of inputs the live jobs hold. */
guint64     riv_server_get_buffered_bytes (RivServer *self);
guint64     riv_server_get_input_bytes    (RivServer *self);
/* Number of files /file= currently serves. */
guint       riv_server_get_n_files    (RivServer  *self);

G_END_DECLS
