/* riv-client-private.h
 * Copyright 2026 The Rivulet authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * What the files of RivClient share, and introspection for tests and
 * statistics. Not API. The files, from the top down, each calling only
 * those after it (the map at the top of riv-client.c says what each holds):
 *
 *   riv-client.c, riv-client-join.c, riv-client-call.c, riv-client-stream.c,
 *   riv-client-connect.c, riv-client-files.c, riv-client-jobs.c,
 *   riv-client-request.c, riv-client-tls.c, riv-client-tap.c
 *
 * The declarations go the other way: riv-client.c's notifications first
 * (any file may call them), then from riv-client-tls.c up to
 * riv-client-join.c; the tap's come last, with the introspection.
 */
#pragma once

#include <libsoup/soup.h>

#include "riv-batch-infer.h"
#include "riv-client.h"
#include "riv-config.h"
#include "riv-diff.h"
#include "riv-early-buffer.h"
#include "riv-http-reply.h"
#include "riv-job-private.h"
#include "riv-message.h"
#include "riv-poller.h"
#include "riv-sse-reader.h"

G_BEGIN_DECLS

/* Bounds of the buffer for messages whose event id no join reply has named yet. */
#define RIV_CLIENT_EARLY_MAX_MESSAGES RIV_EARLY_BUFFER_MAX_MESSAGES
#define RIV_CLIENT_EARLY_MAX_BYTES    RIV_EARLY_BUFFER_MAX_BYTES
#define RIV_CLIENT_EARLY_MAX_IDS      RIV_EARLY_BUFFER_MAX_IDS

/* The largest reply the client reads whole: documents (/config, /info, the
 * server's timings, a preview image) and short answers (login, join, cancel,
 * an upload's server paths). Stream frames have their own bound
 * (RIV_SSE_DEFAULT_MAX_FRAME). */
#define RIV_CLIENT_MAX_DOCUMENT_BYTES (64 * 1024 * 1024)
#define RIV_CLIENT_MAX_ANSWER_BYTES   (1024 * 1024)

typedef struct _RivClientStream RivClientStream;

/* A request's own connection to a server on this machine, written by hand
 * (riv-client-direct.c): a non-blocking socket, its poller watch (whose
 * callback is the owner's) and the request until it is written. */
typedef struct
{
  int             fd;         /* -1: none */
  RivPollerWatch *watch;
  GBytes         *request;    /* nullable: written */
  gsize           written;
  char           *host;
  int             port;
  guint           attempt;    /* localhost: 0 IPv4, 1 IPv6 */
  RivPoller      *poller;     /* ref */
  RivPollerFunc   func;
  gpointer        user_data;
  GError         *error;      /* a failure the owner's next write sees */
} RivDirectConn;

/* How the server is reached and who the client is to it: the URL the user
 * named, the credentials that go only to it, which certificates pass, the
 * session, and the routes built from the config (riv-client.c, -connect.c,
 * -request.c, -tls.c). */
typedef struct
{
  char           *url;                /* normalised, or as given when invalid */
  char           *token;              /* nullable */
  char           *hf_token;           /* nullable: a Space's, as x-hf-authorization */
  char           *auth_user;          /* nullable: Gradio login */
  char           *auth_password;      /* nullable */
  char           *auth_cookie;        /* nullable: the "Cookie" header the login earned */
  GTlsDatabase   *tls_database;       /* nullable: a CA file's authorities (riv-client-tls.c) */
  char           *session_hash;
  char           *join_url;
  char           *data_url;
  char           *cancel_url;
  char           *reset_url;
  char           *upload_url;
  gboolean        tls_insecure;       /* any certificate passes (--insecure) */
  guint           follow_root : 1;    /* requests go to a config's root on another host */
} RivClientAccess;

/* The session's SSE stream and its watchdogs (riv-client-stream.c). */
typedef struct
{
  /* Borrowed: the current stream is owned by its in-flight operation. */
  RivClientStream *stream;
  RivPoller      *poller;             /* nullable: the context's, once a stream used it */
  GSource        *reconnect_source;
  GSource        *liveness_source;
  double          liveness_timeout;
  double          inflight_since;
  double          last_bytes_at;
  guint64         n_messages;         /* every route's */
  guint64         n_stream_bytes;
  guint           n_streams;          /* GETs issued */
  guint           failures;           /* consecutive failed (re)connects */
  guint           empty_closes;       /* close_stream with no news of the jobs joined */
  RivStreamState  state;
  guint           local : 1;          /* streams are local (tests, benchmarks) */
  guint           direct : 1;         /* joins and streams by hand (riv-client-direct.c) */
  guint           session_established : 1;
  guint           server_went_away : 1; /* a stream failed or a proxy said 502/504 since the
                                           last join the server answered */
} RivClientSse;

/* Joins in flight and what comes before them (riv-client-join.c). */
typedef struct
{
  GQueue          queue;              /* RivClientOp links of joins in flight, by deadline */
  GSource        *watchdog;           /* join-timeout watchdog, while joins are in flight */
  GHashTable     *uploads;            /* nullable: local path → RivUploadEntry */
  double          timeout;
  guint           n_joining;          /* join requests in flight */
  guint           keep_alive : 1;
  guint           call_transport : 1; /* submit through /call/v2 (riv-client-call.c) */
} RivClientJoins;

/* The jobs and their bookkeeping: the list and the event ids (riv-client.c,
 * riv-client-join.c), counts and outputs waiting for their turn
 * (riv-client-jobs.c; riv-client-stream.c runs the publish timer). */
typedef struct
{
  GListStore     *list;
  GHashTable     *by_event;           /* event id (borrowed from the job) → RivJob (ref) */
  RivEarlyBuffer *early;              /* messages for ids no join reply named yet */
  RivBatchInfer   batch;              /* batches inferred from runs of process_starts */
  gint64          batch_max;          /* largest max_batch_size of the app's batch endpoints */
  GSource        *publish_source;     /* publishes throttled outputs; nullable */
  GPtrArray      *unpublished;        /* RivJob refs with outputs not yet published; nullable */
  double          publish_interval;   /* seconds between streamed output hand-overs */
  guint           next_number;
  guint           n_pending;          /* non-terminal jobs */
  guint           n_joined;           /* joined, non-terminal jobs */
  guint           infer_batches : 1;  /* the app has a batch endpoint */
} RivClientJobs;

/* The tap (riv-client-tap.c). */
typedef struct
{
  RivTapFunc      func;               /* nullable */
  gpointer        data;
  guint64         ids;                /* requests numbered so far */
} RivClientTap;

struct _RivClient
{
  GObject         parent_instance;

  RivConfig      *config;             /* nullable until connected */
  SoupSession    *session;
  GCancellable   *cancellable;        /* cancelled by close */
  GMainContext   *context;
  double          request_timeout;    /* 0: each one-shot request's own (connect, timings) */
  int             io_priority;        /* GLib priority of every network operation */
  guint           download_images : 1;
  guint           closed : 1;
  guint           disposing : 1;

  RivClientAccess access;
  RivClientSse    sse;
  RivClientJoins  join;
  RivClientJobs   jobs;
  RivClientTap    tap;
};

/* One SSE GET. */
struct _RivClientStream
{
  RivClient     *client;      /* borrowed; NULL once detached */
  GCancellable  *cancellable;
  SoupMessage   *msg;          /* the request; a direct stream drops it once written (untapped) */
  GInputStream  *input;       /* nullable until the response arrived (libsoup's streams) */
  RivDirectConn  conn;        /* direct: its connection (fd -1 before it is opened) */
  RivHttpReply  *reply;       /* nullable: a direct stream's reply, read by hand */
  guint          status;      /* a direct stream's HTTP status once its head came; else 0 */
  gboolean       direct;      /* read straight off its socket (riv-http-reply.c), not libsoup's */
  gboolean       poll_failed; /* direct: the poller could not wait for the socket */
  RivSseReader  *reader;
  guint8        *buffer;
  gsize          buffer_size;  /* READ_SIZE_FIRST, READ_SIZE once a read filled it */
  guint          epoch;
  int            io_priority;
  GSource       *drain_source; /* nullable */
  GSource       *yield_source; /* nullable: a pause that lets the frame clock run */
  GSource       *yield_guard;  /* nullable: ends a pause that nothing else ends */
  double         busy_since;   /* start of the current run of back-to-back reads; 0 none */
  double         read_issued_at;
  gssize         last_read;    /* bytes the last read returned */
  RivPollerWatch *watch;       /* nullable: reads wait on the context's poller (plain sockets) */
  gboolean       would_block;  /* the last read took everything there was */
  gboolean       got_close;
  gboolean       draining;     /* detached after close_stream, reading to the end */
  gboolean       local;        /* no request: fed by _riv_client_feed_stream_for_testing */
  gboolean       feeding;      /* local: inside that feed, which frees it if detached */
  gboolean       end_known;    /* how it ended, for the tap: set before stream_failed() */
  RivTapEnd end;
};

/* Client-side state of a job that is not terminal yet (the job's owner data). */
typedef struct
{
  RivClient    *client;       /* borrowed */
  RivJob       *job;          /* borrowed: the ctx is the job's owner data */
  RivConfig    *config;       /* owned ref: keeps endpoint alive */
  RivEndpoint  *endpoint;     /* borrowed from config */
  RivDiffValue **values;      /* one per output slot, n_values of them: values_inline
                                 when they fit (most endpoints have one or two) */
  RivDiffValue *values_inline[2];
  guint         n_values;
  GSource      *cancel_grace; /* owned, nullable */
  double        published_at; /* when outputs were last handed to the job */
  guint         has_values : 1;  /* a first value came (values may still be empty) */
  guint         unpublished : 1; /* values are ahead of the job's outputs */
  guint         joined : 1;
  guint         counted_joining : 1;
  guint         cancel_requested : 1;
  guint         saw_estimation : 1;
  guint         uploads_left;  /* its local files still uploading before the join */
} RivJobCtx;

/* Cancellation of one operation: by the caller, by close, or by a timeout. */
typedef struct
{
  GCancellable *cancellable;   /* what the operation uses */
  GCancellable *user;
  GCancellable *client;
  GSource      *timeout;
  gulong        user_handler;
  gulong        client_handler;
  gboolean      timed_out;
} RivOpCancel;

/* A request whose callback may outlive the client: it only touches the client
 * while client_cancellable is not cancelled (close cancels it in dispose). */
typedef struct
{
  GList         link;                /* joins: in the client's "joins" queue */
  RivClient    *client;              /* borrowed */
  GCancellable *client_cancellable;  /* owned ref */
  GCancellable *cancellable;         /* joins: cancelled by the watchdog; nullable */
  RivJob       *job;                 /* owned ref, nullable */
  SoupMessage  *msg;                 /* owned ref */
  char         *url;                 /* downloads */
  double        deadline;            /* joins */
  gboolean      run;                 /* POST /run instead of /queue/join */
  gboolean      call;                /* POST /call/v2/{api_name} instead of /queue/join */
  gboolean      queued;              /* link is in "joins" */
  gboolean      timed_out;
  gboolean      writing_body;        /* joins: between wrote-headers and wrote-body */
  gboolean      cancel_after_body;   /* joins: timed out while writing_body */
} RivClientOp;

/* The data of a GTask that sends one request (connect, upload). */
typedef struct
{
  SoupMessage *msg;
  RivOpCancel *cancel;
  RivConfig   *config;
  gboolean     logged_in;   /* connect: the login was done (or tried) */
} RivClientTaskData;

/* The client's state of a job that is not terminal yet; NULL once it is. */
static inline RivJobCtx *
_riv_client_job_ctx (RivJob *job)
{
  return _riv_job_get_owner_data (job);
}

/* Calls go one way: riv-client.c → -join.c → -call.c → -stream.c → -files.c →
 * -jobs.c → -request.c → -tls.c, -tap.c; -connect.c calls -request.c and
 * -tls.c. The one call up is to these notifications and signals, which only
 * tell the object's listeners. */
/* riv-client.c: notifications and signals, the config */
void         _riv_client_set_config            (RivClient       *self,
                                                RivConfig       *config);
void         _riv_client_set_stream_state      (RivClient       *self,
                                                RivStreamState   state);
void         _riv_client_notify_n_pending      (RivClient       *self);
void         _riv_client_notify_n_joining      (RivClient       *self);
void         _riv_client_emit_job_finished     (RivClient       *self,
                                                RivJob          *job);
void         _riv_client_emit_stream_error     (RivClient       *self,
                                                const char      *text);

/* riv-client-tls.c: which certificates pass; a refused one explained */
void         _riv_client_tls_prepare_message   (RivClient       *self,
                                                SoupMessage     *msg);
void         _riv_client_tls_explain_error     (RivClient       *self,
                                                SoupMessage     *msg,
                                                GError         **error);

/* riv-client-request.c: timers, cancellation, requests */
GSource     *_riv_client_attach_timeout        (RivClient       *self,
                                                double           seconds,
                                                GSourceFunc      func,
                                                gpointer         data);
void         _riv_client_clear_source          (GSource        **source);
RivOpCancel *_riv_client_op_cancel_new         (RivClient       *self,
                                                GCancellable    *user,
                                                double           timeout_s);
void         _riv_client_op_cancel_free        (RivOpCancel     *oc);
RivClientOp *_riv_client_op_new                (RivClient       *self,
                                                RivJob          *job,
                                                SoupMessage     *msg);
void         _riv_client_op_free               (RivClientOp     *op);
gboolean     _riv_client_op_client_gone        (RivClientOp     *op);
RivClient   *_riv_client_op_get_client         (RivClientOp     *op);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (RivClientOp, _riv_client_op_free)
void         _riv_client_task_data_free        (RivClientTaskData *cd);
void         _riv_client_prepare_message       (RivClient       *self,
                                                SoupMessage     *msg);
/* How _riv_client_send () sends. */
typedef enum
{
  RIV_CLIENT_SEND_DEFAULT  = 0,
  RIV_CLIENT_SEND_UNTAPPED = 1 << 0,   /* the tap does not see it (an image download) */
  RIV_CLIENT_SEND_DIRECT   = 1 << 1,   /* by hand where the client may (riv-client-direct.c) */
} RivClientSendFlags;

/* A one-shot request (every request but the streams): msg gets its headers
 * and credentials (_riv_client_prepare_message ()) and, with json, that as
 * its body (a JSON POST); the tap records it; its reply is read whole up to
 * max_bytes: a larger one (by its Content-Length, or as it arrives) fails
 * with RIV_CLIENT_ERROR_PROTOCOL, saying so, and its connection is dropped.
 * The callback's source object is the session; it reads the reply with
 * _riv_client_read_reply (). */
void         _riv_client_send                  (RivClient       *self,
                                                SoupMessage     *msg,
                                                JsonNode        *json,
                                                gsize            max_bytes,
                                                RivClientSendFlags flags,
                                                GCancellable    *cancellable,
                                                GAsyncReadyCallback callback,
                                                gpointer         user_data);
/* Requests written by hand (riv-client-direct.c). */
gboolean     _riv_client_direct_possible       (RivClient       *self,
                                                SoupMessage     *msg);
GBytes      *_riv_client_direct_request        (SoupMessage     *msg,
                                                const char      *body,
                                                gsize            len);
void         _riv_direct_conn_open             (RivDirectConn   *conn,
                                                RivClient       *self,
                                                SoupMessage     *msg,
                                                GBytes          *request,
                                                RivPollerFunc    func,
                                                gpointer         user_data);
int          _riv_direct_conn_write            (RivDirectConn   *conn,
                                                GError         **error);
void         _riv_direct_conn_clear            (RivDirectConn   *conn);
void         _riv_client_direct_send           (RivClient       *self,
                                                SoupMessage     *msg,
                                                GBytes          *body,
                                                gsize            max_bytes,
                                                GCancellable    *cancellable,
                                                GTask           *task);
guint        _riv_client_reply_status          (SoupMessage     *msg);
void         _riv_client_set_reply_status      (SoupMessage     *msg,
                                                guint            status);
/* The reply's body, or NULL and error; the tap records it. self is NULL
 * when the client went away meanwhile (_riv_client_op_get_client ()). */
GBytes      *_riv_client_read_reply            (RivClient       *self,
                                                SoupMessage     *msg,
                                                GAsyncResult    *result,
                                                GError         **error);
char        *_riv_client_extract_detail        (GBytes          *body);
char        *_riv_client_error_text            (const char      *prefix,
                                                const char      *detail);
const char  *_riv_client_gateway_text          (guint            status);

/* What applying a message to a job changed (riv-client-jobs.c), for the
 * caller to act on. On the stack: nothing is allocated but a failure's text. */
typedef struct
{
  RivJobStatus  final;       /* PENDING: the job goes on; else it is to end so */
  char         *fail_text;   /* owned, nullable: why it failed */
  double        publish_in;  /* > 0: its outputs wait this long for the publish timer */
  gboolean      published;   /* outputs were handed to the job (riv_job_get_outputs ()) */
} RivJobUpdate;

#define RIV_JOB_UPDATE_INIT { RIV_JOB_STATUS_PENDING, NULL, 0, FALSE }

/* What ending a job changed; 0: it was terminal already. */
typedef enum
{
  RIV_JOB_ENDED         = 1 << 0,   /* n-pending went down: liveness, job-finished */
  RIV_JOB_ENDED_JOINING = 1 << 1,   /* its join was still counted: n-joining went down */
} RivJobEnded;

/* riv-client-jobs.c: a job's client-side state (pure: calls no transport) */
void         _riv_client_job_ctx_free          (gpointer         data);
gboolean     _riv_client_joining_done          (RivClient       *self,
                                                RivJobCtx       *ctx);
void         _riv_client_job_apply             (RivClient       *self,
                                                RivJob          *job,
                                                RivMessage      *msg,
                                                RivJobUpdate    *update);
void         _riv_client_job_publish_due       (RivClient       *self,
                                                RivJob          *job,
                                                double           now,
                                                RivJobUpdate    *update);
gboolean     _riv_client_job_publish_pending   (RivClient       *self,
                                                RivJob          *job);
RivJobEnded  _riv_client_job_end               (RivClient       *self,
                                                RivJob          *job,
                                                RivJobStatus     status,
                                                const char      *error);
GPtrArray   *_riv_client_collect_joined_jobs   (RivClient       *self);

/* riv-client-files.c: image downloads, the local files in a job's inputs */
typedef void (*RivLocalFileFunc) (JsonObject *object,
                                  const char *path,
                                  gpointer    data);
void         _riv_client_maybe_download_images (RivClient       *self,
                                                RivJobCtx       *ctx,
                                                JsonNode        *outputs);
void         _riv_client_forget_download       (RivJob          *job);
void         _riv_client_walk_local_files      (JsonNode        *node,
                                                RivLocalFileFunc func,
                                                gpointer         data);

/* riv-client-stream.c: the SSE stream and liveness, and acting on what a
 * job's update changed (every transport applies and ends jobs through these) */
void         _riv_client_apply_message         (RivClient       *self,
                                                RivJob          *job,
                                                RivMessage      *msg);
gboolean     _riv_client_finish_job            (RivClient       *self,
                                                RivJob          *job,
                                                RivJobStatus     status,
                                                const char      *error);
void         _riv_client_ensure_stream         (RivClient       *self);
void         _riv_client_stream_detach         (RivClientStream *st);
void         _riv_client_liveness_update       (RivClient       *self);

/* riv-client-call.c: /call/v2 (riv_client_set_call_transport) */
JsonNode    *_riv_client_build_call_body       (RivJob          *job,
                                                RivEndpoint     *endpoint);
void         _riv_client_call_start            (RivClient       *self,
                                                RivJob          *job,
                                                const char      *event_id);

/* riv-client-join.c: a job's uploads, then its join; cancelling */
/* A job's local files uploaded before its join; FALSE when it has none (the
 * caller joins at once). */
gboolean     _riv_client_upload_job_files      (RivClient       *self,
                                                RivJob          *job);
void         _riv_client_upload_entry_free     (gpointer         data);
void         _riv_client_register_event        (RivClient       *self,
                                                RivJob          *job,
                                                const char      *event_id);
void         _riv_client_start_join            (RivClient       *self,
                                                RivJob          *job);
void         _riv_client_send_cancel           (RivClient       *self,
                                                RivJob          *job,
                                                const char      *event_id);

/* Introspection for tests and statistics ------------------------------------------------ */

/* Messages currently held for unknown event ids, and their estimated size. */
guint    _riv_client_get_n_early       (RivClient *self);
gsize    _riv_client_get_early_bytes   (RivClient *self);
/* Early messages dropped so far (buffer full or expired). */
guint64  _riv_client_get_n_early_dropped (RivClient *self);
/* How many SSE GETs this client has issued. */
guint    _riv_client_get_n_streams     (RivClient *self);

/* The ingest path without a network (benchmarks, tests). */

/* Uses config as if riv_client_connect_async() had loaded it, and makes the
 * client's SSE streams local: opening one sends no request, and its bytes
 * come only from _riv_client_feed_stream_for_testing(). Joins are unchanged. */
void     _riv_client_connect_local_for_testing (RivClient   *self,
                                                RivConfig   *config);
/* riv_client_submit() without the join request: event_id is registered as if
 * the server's join reply had named it (early messages are replayed, the
 * stream is opened). Returns a new reference, like riv_client_submit(). */
RivJob  *_riv_client_submit_joined_for_testing (RivClient   *self,
                                                const char  *endpoint,
                                                JsonNode    *data,
                                                const char  *event_id,
                                                GError     **error);
/* Hands bytes to the client's local stream exactly as a network read of them
 * would (SSE reader → parse → dispatch → apply, then close_stream handling).
 * FALSE when no stream is open (no job joined). */
gboolean _riv_client_feed_stream_for_testing   (RivClient   *self,
                                                const char  *bytes,
                                                gsize        len);

/* The tap (riv-client-tap.c): call only when RIV_CLIENT_TAPPED (self). */
#define RIV_CLIENT_TAPPED(self) G_UNLIKELY ((self)->tap.func != NULL)
void _riv_client_tap_request  (RivClient        *self,
                               SoupMessage      *msg,
                               guint             stream,
                               const char       *body,
                               gsize             len);
void _riv_client_tap_response (RivClient        *self,
                               SoupMessage      *msg,
                               guint             stream,
                               GBytes           *body);
void _riv_client_tap_reply    (RivClient        *self,
                               SoupMessage      *msg,
                               guint             status,
                               guint             stream,
                               GBytes           *body);
void _riv_client_tap_frame    (RivClient        *self,
                               guint             stream,
                               const char       *data,
                               gsize             len,
                               RivMessage       *message);
void _riv_client_tap_end      (RivClient        *self,
                               guint             stream,
                               RivTapEnd         end);

G_END_DECLS
