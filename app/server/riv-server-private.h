/* riv-server-private.h
 * Copyright 2026 The Rivulet authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * What the riv-server-*.c files share: the RivServer struct, sessions and
 * their streams, the file registry entry, and the _riv_server_* functions
 * one file calls in another. Not API: only app/server/riv-server*.c include it.
 *
 *   riv-server.c          GObject, properties, listen, shutdown, queue wiring
 *   riv-server-routes.c   route table and dispatch, join, cancel, config/info
 *   riv-server-session.c  sessions, their FIFOs and SSE streams, heartbeats
 *   riv-server-files.c    file registry, /file=, uploads, the I/O pool
 *   riv-server-http.c     replies, CORS, body limits, connection sweep
 *   riv-server-origin.c   which Host and Origin headers are served
 */
#pragma once

#include <json-glib/json-glib.h>
#include <libsoup/soup.h>

#include "riv-inbox.h"
#include "riv-queue.h"
#include "riv-server.h"
#include "riv-wire.h"

G_BEGIN_DECLS

#define API_PREFIX          "/gradio_api"
#define STREAM_WINDOW       (64 * 1024)
#define EVICT_SCAN_MAX      64
#define CONN_SWEEP_S        1.0

typedef struct _Session Session;
typedef struct _Stream  Stream;

struct _Session
{
  gint        ref_count;
  RivServer  *server;        /* borrowed */
  char       *hash;
  GQueue      fifo;          /* RivFrame, owned */
  gsize       fifo_bytes;
  GHashTable *pending;       /* event id set (owned keys) */
  Stream     *stream;        /* borrowed, nullable: the attached writer */
  GSource    *linger;        /* owned, nullable */
  GList       lru_link;
  gint64      last_seen;
  gint64      reader_left;   /* when its last reader went (or it was made), µs */
  gboolean    congested;
  gboolean    in_table;
  GHashTable *state;         /* nullable: "FN/NAME" → its gr.State's value (JSON text) */
};

/* An SSE response. libsoup writes its headers; then the stream takes the
 * connection over (see riv-server-session.c) and writes the body itself. */
struct _Stream
{
  RivServer         *server;       /* borrowed; NULL once orphaned */
  SoupServerMessage *msg;          /* owned, until the connection is taken */
  GIOStream         *io;           /* owned, after */
  GQueue             pieces;       /* GBytes, owned: body not written yet */
  GString           *out;          /* owned, nullable: the write in flight */
  gsize              out_payload;  /* body bytes in that write */
  Session           *session;      /* owned, nullable */
  gsize              inflight;
  gint64             write_since;  /* when the write in flight began, µs; 0: none */
  gboolean           ended;
  gboolean           keepalive_only;
  gboolean           chunked;
  gboolean           finishing;    /* the body ends once pieces are written */
  gboolean           terminated;   /* the body's end is written or in flight */
  gboolean           done;         /* the connection is closed */
  GList              link;         /* in server->streams */
};

typedef struct
{
  char  *path;
  gsize  size;
  char  *owner;     /* nullable: an upload's session or address, NULL for an output */
} FileEntry;

struct _RivServer
{
  GObject       parent_instance;

  GMainContext *context;
  SoupServer   *soup;
  RivInbox     *inbox;
  RivQueue     *queue;
  GThreadPool  *io_pool;

  /* Settings */
  guint         concurrency;
  guint         max_queue;
  double        heartbeat_interval;
  double        close_linger;
  guint         max_body;
  guint         max_upload;
  guint         max_sessions;
  guint         session_buffer_max;
  guint64       buffer_max;          /* every session's buffers together; 0: no limit */
  guint64       input_max;           /* queued inputs of every session; 0: no limit */
  guint64       session_input_max;   /* queued inputs of one session; 0: no limit */
  double        reader_timeout;
  double        session_timeout;
  guint         max_files;
  guint64       max_file_bytes;
  gboolean      verbose;
  guint         max_ranges;
  double        header_timeout;
  double        idle_timeout;
  char        **allow_origins; /* owned, nullable */
  char        **allow_hosts;   /* owned, nullable */
  guint         max_upload_parts;
  guint         max_session_uploads;
  guint64       max_session_upload_bytes;

  /* After listen */
  char         *host;
  guint         port;
  char         *url;
  char         *temp_dir;
  char         *output_dir;
  char         *upload_dir;
  guint         app_id;
  GBytes       *config_json;
  GBytes       *info_json;
  GSource      *sweep_source;

  GHashTable   *sessions;     /* hash → Session (table reference) */
  GQueue        session_lru;  /* Session, least recently used first */
  GQueue        streams;      /* Stream, through their link */

  GHashTable   *files;        /* path → GList link in file_order */
  GQueue        file_order;   /* FileEntry (owned), oldest first */
  guint64       file_bytes;
  guint         n_uploads;    /* of file_order, those with an owner */
  guint64       upload_bytes;

  guint64       buffered_bytes;  /* the sessions' fifo_bytes together */
  guint         n_pending;
  guint64       n_completed;
  GSource      *trim_source;  /* nullable: returns freed heap to the system once idle */
  GHashTable   *sockets;      /* GSocket (ref) → ConnState (riv-server-http.c), every client
                               * connection */
  GSource      *conn_sweep;
  GSource      *heartbeat_source; /* nullable: one timer for every stream's heartbeats */
  gboolean      listening;
  gboolean      shut_down;
};

/* riv-server.c */
GSource    *_riv_server_add_timeout           (RivServer   *self,
                                               double       seconds,
                                               GSourceFunc  func,
                                               gpointer     data,
                                               const char  *name);
void        _riv_server_schedule_trim         (RivServer *self);
void        _riv_server_clear_source          (GSource **source);

/* riv-server-http.c */
void        _riv_server_reply_take            (SoupServerMessage *msg,
                                               guint              status,
                                               const char        *content_type,
                                               char              *body,
                                               gsize              len);
void        _riv_server_reply_text_json       (SoupServerMessage *msg,
                                               char              *json);
void        _riv_server_reply_bytes           (SoupServerMessage *msg,
                                               guint              status,
                                               GBytes            *json);
void        _riv_server_reply_detail          (SoupServerMessage *msg,
                                               guint              status,
                                               const char        *detail);
void        _riv_server_reply_detail_list     (SoupServerMessage *msg,
                                               guint              status,
                                               JsonNode          *list);
void        _riv_server_reply_problem         (SoupServerMessage *msg,
                                               guint              status,
                                               const char        *parameter,
                                               const char        *message);
void        _riv_server_add_cors_headers      (SoupServerMessage *msg);
GBytes     *_riv_server_request_body          (SoupServerMessage *msg);
JsonObject *_riv_server_parse_object_body     (SoupServerMessage  *msg,
                                               JsonNode          **root_out);
gboolean    _riv_server_conn_sweep_cb         (gpointer user_data);
void        _riv_server_request_started_cb    (SoupServer        *server,
                                               SoupServerMessage *msg,
                                               gpointer           user_data);
void        _riv_server_request_done_cb       (SoupServer        *server,
                                               SoupServerMessage *msg,
                                               gpointer           user_data);
void        _riv_server_refuse_now            (RivServer         *self,
                                               SoupServerMessage *msg);

/* riv-server-session.c */
Session    *_riv_server_session_ref           (Session *session);
void        _riv_server_session_unref         (Session *session);
Session    *_riv_server_session_lookup        (RivServer  *self,
                                               const char *hash);
void        _riv_server_session_touch         (Session *session);
void        _riv_server_session_drop          (Session *session);
Session    *_riv_server_session_get_or_create (RivServer  *self,
                                               const char *hash);
void        _riv_server_session_update_linger (Session *session);
/* gr.State, kept per session as Gradio keeps it (riv-run.h): the session's
 * value of State name of endpoint fn_index, kept (value_json) and given back
 * (NULL before the first). */
void        _riv_server_session_keep_state    (Session    *session,
                                               guint       fn_index,
                                               const char *name,
                                               const char *value_json);
const char *_riv_server_session_get_state     (Session    *session,
                                               guint       fn_index,
                                               const char *name);
void        _riv_server_session_push          (Session  *session,
                                               RivFrame *frame);
void        _riv_server_stream_free           (Stream *stream);
void        _riv_server_stream_detach         (Stream *stream);
void        _riv_server_stream_end            (Stream *stream);
void        _riv_server_handle_queue_data     (RivServer         *self,
                                               SoupServerMessage *msg,
                                               GHashTable        *query);
void        _riv_server_handle_keepalive      (RivServer         *self,
                                               SoupServerMessage *msg);
gboolean    _riv_server_session_sweep_cb      (gpointer user_data);
gboolean    _riv_server_session_over_budget   (Session *session,
                                               guint    divisor);
void        _riv_server_heartbeat_start       (RivServer *self);

/* riv-server-files.c */
void        _riv_server_files_remove          (RivServer  *self,
                                               const char *path,
                                               gboolean    delete);
void        _riv_server_files_register        (RivServer *self,
                                               char      *path,
                                               gsize      size);
void        _riv_server_io_func               (gpointer data,
                                               gpointer user_data);
void        _riv_server_handle_upload         (RivServer         *self,
                                               SoupServerMessage *msg);
void        _riv_server_handle_file           (RivServer         *self,
                                               SoupServerMessage *msg,
                                               const char        *raw_path);

/* riv-server-origin.c */
char       *_riv_server_check_origin_and_host (RivServer         *self,
                                               SoupServerMessage *msg);

/* riv-server-routes.c */
void        _riv_server_handle_request_cb     (SoupServer        *server,
                                               SoupServerMessage *msg,
                                               const char        *path,
                                               GHashTable        *query,
                                               gpointer           user_data);

G_END_DECLS
