/* riv-client.h
 * Copyright 2026 The Rivulet authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * One connection to one Gradio-style server (protocol.md). All work is async
 * on the GMainContext that was thread-default when the client was created.
 */
#pragma once

#include <gio/gio.h>
#include <json-glib/json-glib.h>
#include <libsoup/soup.h>

#include "riv-config.h"
#include "riv-job.h"
#include "riv-tap.h"
#include "riv-types.h"

G_BEGIN_DECLS

#define RIV_CLIENT_ERROR (riv_client_error_quark ())
typedef enum
{
  RIV_CLIENT_ERROR_PROTOCOL,     /* reply does not match the protocol */
  RIV_CLIENT_ERROR_REJECTED,     /* 4xx, with the server's reason */
  RIV_CLIENT_ERROR_SERVER,       /* 5xx */
  RIV_CLIENT_ERROR_QUEUE_FULL,   /* 503 on join */
  RIV_CLIENT_ERROR_BAD_URL,
  RIV_CLIENT_ERROR_NOT_GRADIO,   /* the server did not answer /config like Gradio */
  RIV_CLIENT_ERROR_UNSUPPORTED,  /* unsupported protocol */
  RIV_CLIENT_ERROR_NO_ENDPOINT,
  RIV_CLIENT_ERROR_BAD_INPUT,
  RIV_CLIENT_ERROR_NOT_CONNECTED,
  RIV_CLIENT_ERROR_AUTH_REQUIRED, /* the server asks for a login and none was given */
  RIV_CLIENT_ERROR_AUTH_FAILED,   /* the login was refused (wrong user name or password) */
} RivClientError;
GQuark riv_client_error_quark (void);

#define RIV_TYPE_CLIENT (riv_client_get_type ())
G_DECLARE_FINAL_TYPE (RivClient, riv_client, RIV, CLIENT, GObject)

/* Properties: "url" (construct-only), "token", "config" (RivConfig, boxed, read-only),
 * "stream-state" (RivStreamState), "jobs" (GListModel), "liveness-timeout" (double, s,
 * default 45: a stream silent that long is declared dead), "join-timeout" (double, s,
 * default 60), "session-hash" (read-only), "n-pending" (read-only, jobs not yet terminal),
 * "download-images" (bool, default TRUE).
 *
 * Signals: "job-finished" (RivJob *job) when a job reaches a terminal status;
 * "stream-error" (const char *message) when a stream fails. */

RivClient      *riv_client_new                 (const char           *url);
/* Validates a user-typed URL: http(s) only, a host, no fragment; normalises
 * (adds http:// when no scheme, drops trailing '/'). */
char           *riv_client_normalize_url       (const char           *url,
                                                GError              **error);
const char     *riv_client_get_url             (RivClient            *self);
/* Whether object is a Gradio FileData ({"meta": {"_type": "gradio.FileData"}, …}). */
gboolean        riv_client_is_file_data        (JsonObject           *object);
/* Where to download a FileData (an output's or an example's file): its "url"
 * when that is absolute, else the server's file route for its "path"; NULL
 * when there is none (a data: URL, no path). self may be NULL (not
 * connected): then only an absolute address is given. */
char           *riv_client_dup_file_url        (RivClient            *self,
                                                JsonObject           *file_data);
void            riv_client_set_token           (RivClient            *self,
                                                const char           *token);
/* A Hugging Face token for a Space's app (riv-space.h): sent to the client's
 * origin as "x-hf-authorization: Bearer TOKEN", as the official clients send
 * it; NULL or "" for none. riv_client_connect_like () copies it. */
void            riv_client_set_hf_token        (RivClient            *self,
                                                const char           *token);
/* HTTPS trust: database (from riv_tls_database_new_from_file ()) replaces
 * the system's authorities when not NULL; insecure accepts any certificate.
 * riv_client_connect_like () copies both. */
void            riv_client_set_tls             (RivClient            *self,
                                                GTlsDatabase         *database,
                                                gboolean              insecure);
gboolean        riv_client_get_tls_insecure    (RivClient            *self);
GTlsDatabase   *riv_client_get_tls_database    (RivClient            *self);   /* nullable */
/* The authorities of a PEM file; a clear error when it cannot be read or
 * holds no PEM certificate. Reads the file: not on a main loop. */
GTlsDatabase   *riv_tls_database_new_from_file (const char           *path,
                                                GError              **error);
/* A Gradio login (apps launched with auth=): used by the next connect when
 * the server asks for one (POST /login, then its session cookie on every
 * request). user NULL forgets it. Wrong credentials fail the connect with
 * RIV_CLIENT_ERROR_AUTH_FAILED; without credentials a server that asks for a
 * login fails it with RIV_CLIENT_ERROR_AUTH_REQUIRED. */
void            riv_client_set_auth            (RivClient            *self,
                                                const char           *user,
                                                const char           *password);
/* The same from "USER:PASSWORD" (the first colon splits; the password may
 * hold more). FALSE with an error, and nothing changed, when there is no
 * colon or no user name. */
gboolean        riv_client_set_auth_string     (RivClient            *self,
                                                const char           *user_password,
                                                GError              **error);
/* Gives msg the client's credentials (the login's cookie, the token) when it
 * goes to the server the user named (same scheme, host and port as the
 * client's URL); a request to any other server gets none, whatever the
 * server's config says its root is. For the files a job's outputs link to. */
void            riv_client_authorize_request   (RivClient            *self,
                                                SoupMessage          *msg);
/* TRUE: a root that the server's config names on another host is used as
 * it is (its requests get no credentials: riv_client_authorize_request ()).
 * FALSE (the default): requests stay on the URL the user named
 * (riv_config_resolve_root ()), and riv_config_get_reported_root () gives
 * the server's root. */
void            riv_client_set_follow_root     (RivClient            *self,
                                                gboolean              follow);
/* How long a connect (login, /config and /info, their replies read) and a
 * fetch of the server's timings may each take (default: 30 s and 60 s). */
void            riv_client_set_request_timeout (RivClient            *self,
                                                double                seconds);
/* TRUE when a and b are URLs of one origin (scheme, host and port). */
gboolean        riv_url_same_origin            (const char           *a,
                                                const char           *b);
void            riv_client_connect_async       (RivClient            *self,
                                                GCancellable         *cancellable,
                                                GAsyncReadyCallback   callback,
                                                gpointer              user_data);
gboolean        riv_client_connect_finish      (RivClient            *self,
                                                GAsyncResult         *result,
                                                GError              **error);
RivConfig      *riv_client_get_config          (RivClient            *self);
/* Connects at once, without a request, with what connected (a client of the
 * same server that finished connecting) loaded: its config, token and login,
 * and its transport (riv_client_set_call_transport()).
 * The client keeps its own session hash and stream. For many clients of one
 * server (virtual users): /config is fetched once. */
void            riv_client_connect_like        (RivClient            *self,
                                                RivClient            *connected);
/* Submits one job. data is a JSON array with one value per input (it is
 * copied; missing values become null, extra ones are an error). Returns the
 * new job at once (a new reference), which is also appended to "jobs". NULL
 * with error only for an unknown endpoint or bad data; network failures show
 * up as the job's status. */
RivJob         *riv_client_submit              (RivClient            *self,
                                                const char           *endpoint,
                                                JsonNode             *data,
                                                GError              **error);
/* riv_client_submit(), with files: every value of the form gradio_client's
 * handle_file() writes, {"path": LOCAL, "meta": {"_type": "gradio.FileData"}}
 * (at any depth: a list of files, a multimodal message's "files"), whose path
 * is not an http(s) URL, is read (off the main context) and uploaded to
 * {P}/upload first, then replaced by {"path": SERVER_PATH, "orig_name": NAME,
 * "meta": …} as the official clients do. A path is uploaded once per client
 * (its session) and reused by later jobs; a failed upload is tried again by
 * the next job. Meanwhile the job is joining; riv_job_get_upload_time() says
 * how long it waited. A file that cannot be read or uploaded fails the job
 * here, before anything is sent to join. */
RivJob         *riv_client_submit_uploading    (RivClient            *self,
                                                const char           *endpoint,
                                                JsonNode             *data,
                                                GError              **error);
/* The local paths of the handle_file() values in data (see
 * riv_client_submit_uploading()), each once, in order of appearance; a new
 * array of strings (empty when there are none). */
GPtrArray      *riv_client_list_local_files    (JsonNode             *data);
/* The server's per-event timings: GET {P}/profiling/traces (Gradio 6.10 and
 * later, started with GRADIO_PROFILING=1), the last last_n (0: all) as the
 * server sent them, a JSON array of objects (event_id, queue_wait_ms,
 * total_ms, …). G_IO_ERROR_NOT_SUPPORTED when the server offers none. */
void            riv_client_fetch_server_traces_async  (RivClient           *self,
                                                guint                 last_n,
                                                GCancellable         *cancellable,
                                                GAsyncReadyCallback   callback,
                                                gpointer              user_data);
JsonNode       *riv_client_fetch_server_traces_finish (RivClient           *self,
                                                GAsyncResult         *result,
                                                GError              **error);
/* Asks the server to cancel; the job becomes cancelled when the server answers
 * (or at once if it had not joined yet). */
void            riv_client_cancel              (RivClient            *self,
                                                RivJob               *job);
void            riv_client_cancel_all          (RivClient            *self);
/* Removes finished jobs from "jobs"; returns how many. */
guint           riv_client_clear_finished      (RivClient            *self);
GListModel     *riv_client_get_jobs            (RivClient            *self);
RivStreamState  riv_client_get_stream_state    (RivClient            *self);
guint           riv_client_get_n_pending       (RivClient            *self);
/* Jobs whose join request is still waiting for the server's reply. */
guint           riv_client_get_n_joining       (RivClient            *self);
const char     *riv_client_get_session_hash    (RivClient            *self);
void            riv_client_set_liveness_timeout (RivClient           *self,
                                                 double               seconds);
void            riv_client_set_join_timeout    (RivClient            *self,
                                                double                seconds);
void            riv_client_set_download_images (RivClient            *self,
                                                gboolean              download);
/* TRUE: jobs of named, queued endpoints whose parameters /info names go
 * through Gradio 6.13's /call/v2/{api_name} (keyword arguments, then one
 * result stream per job) instead of queue/join and the session's stream; to
 * compare the two. That route has no estimations or process_starts (no wait
 * or run time) and no cancel (a job is cancelled here only). Default FALSE. */
void            riv_client_set_call_transport  (RivClient            *self,
                                                gboolean              call);
/* FALSE: each join gets a connection of its own, closed once answered. */
void            riv_client_set_join_keep_alive (RivClient            *self,
                                                gboolean              keep_alive);
/* Whether the session's joins and event stream are written by hand, one
 * connection each, and their replies read by riv-http-reply.c instead of
 * through libsoup's message I/O (default FALSE): less than half the memory
 * and 40-60 % less CPU a job, for virtual users. Only a plain-HTTP server on a
 * loopback address (never reached through a proxy) is talked to so; every
 * other request and server goes through libsoup. The tap sees both alike. */
void            riv_client_set_direct          (RivClient            *self,
                                                gboolean              direct);
gboolean        riv_client_get_direct          (RivClient            *self);
/* GLib priority of the client's network operations (default G_PRIORITY_DEFAULT).
 * A GUI sets it below GDK_PRIORITY_REDRAW so replies never starve drawing. */
void            riv_client_set_io_priority     (RivClient            *self,
                                                int                   priority);
/* Streamed (diffed) outputs are handed to their job at most this often
 * (default 0.02 s; 0 = every yield). Every yield is counted in n-updates at
 * once, and full values (first yield, completion) are never held back. */
void            riv_client_set_publish_interval (RivClient           *self,
                                                 double               seconds);
/* Uploads a file to {P}/upload; returns the server path (FileData "path"). */
void            riv_client_upload_async        (RivClient            *self,
                                                GBytes               *contents,
                                                const char           *filename,
                                                GCancellable         *cancellable,
                                                GAsyncReadyCallback   callback,
                                                gpointer              user_data);
/* Called on the client's context as the upload's body goes out: bytes sent so
 * far and the whole body's size (the multipart request, a little more than
 * the file). Never called after the upload's callback. */
typedef void  (*RivUploadProgressFunc)         (guint64               sent,
                                                guint64               total,
                                                gpointer              user_data);
/* riv_client_upload_async() reporting progress; progress may be NULL.
 * progress_data must stay valid until callback runs. */
void            riv_client_upload_with_progress_async (RivClient            *self,
                                                GBytes               *contents,
                                                const char           *filename,
                                                RivUploadProgressFunc progress,
                                                gpointer              progress_data,
                                                GCancellable         *cancellable,
                                                GAsyncReadyCallback   callback,
                                                gpointer              user_data);
char           *riv_client_upload_finish       (RivClient            *self,
                                                GAsyncResult         *result,
                                                GError              **error);
/* Cancels all network work; in-flight jobs become cancelled. Idempotent. */
void            riv_client_close               (RivClient            *self);
/* Every request sent, reply received, stream frame and stream end, as a
 * tap event (riv-tap.h), on the client's context: for
 * recording (riv_transcript_writer_tap) and lint (riv_lint_tap). NULL stops
 * it. Unset, it costs one pointer test per event. */
void            riv_client_set_tap             (RivClient            *self,
                                                RivTapFunc            func,
                                                gpointer              user_data);
/* Total SSE messages received (all jobs), for statistics. */
guint64         riv_client_get_n_messages      (RivClient            *self);
/* Total bytes received on the client's event streams. */
guint64         riv_client_get_n_stream_bytes  (RivClient            *self);

G_END_DECLS
