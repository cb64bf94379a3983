/* riv-client.c
 * Copyright 2026 The Rivulet authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * How the client keeps the three invariants of ARCHITECTURE.md:
 *
 * - Early close: every SSE chunk is fed to the reader and each complete
 *   event is parsed and applied to its job synchronously, in arrival order,
 *   inside the read callback. close_stream only sets a flag that is looked at
 *   after the whole chunk was dispatched; nothing is ever deferred to an idle.
 *
 * - Lost completions: a message for an event id that no join reply has named
 *   yet is kept in a bounded per-id buffer and replayed, in order, the moment
 *   the join reply registers the id. After close_stream or an EOF, a new GET
 *   is issued at once while any job is still in flight (the server keeps the
 *   session's FIFO across connections). Every job ends: join replies are
 *   bounded by "join-timeout", silent streams by "liveness-timeout", and a
 *   stream that cannot be reopened marks its jobs lost.
 *
 * - Nothing blocks: all I/O is async on the client's GMainContext.
 *
 * Streams are epoch-tagged: a stream that was replaced (or detached by close,
 * liveness or close_stream) never touches the client again; its pending
 * callback only frees it.
 */
#include "config.h"

#include <math.h>
#include <string.h>

#include <libsoup/soup.h>

#include "riv-client-private.h"
#include "riv-diff.h"
#include "riv-job-private.h"
#include "riv-message.h"
#include "riv-sse-reader.h"
#include "riv-util.h"

#define READ_SIZE             (16 * 1024)
#define MAX_STREAM_FAILURES   4      /* consecutive failed (re)connects before jobs are lost */
#define MAX_EMPTY_CLOSES      10     /* close_stream with no news of the jobs in flight */
#define DRAIN_TIMEOUT_S       2.0    /* after close_stream, wait this long for the end */
#define CANCEL_GRACE_S        10.0   /* wait this long for the server to confirm a cancel */
#define CONNECT_TIMEOUT_S     30.0
#define UPLOAD_TIMEOUT_S      300.0
/* Ids whose early messages were dropped are remembered until no join reply
 * can still name them (join timeout + margin); the cap only bounds memory
 * under a flood, and overflowing it makes older joins fail safe (see
 * register_event). */
#define POISONED_MAX          65536
#define EARLY_EXPIRY_MARGIN_S 5.0

/* Backoff before reconnect attempt n (1-based): the first one is immediate. */
static const guint reconnect_delay_ms[MAX_STREAM_FAILURES] = { 0, 100, 500, 1500 };

G_DEFINE_QUARK (riv-client-error-quark, riv_client_error)

/* Looked up once: g_quark_from_static_string() takes a global lock. */
static GQuark
download_state_quark (void)
{
  static GQuark quark;

  if (G_UNLIKELY (quark == 0))
    quark = g_quark_from_static_string ("riv-client-download");
  return quark;
}

typedef struct _Stream Stream;

struct _RivClient
{
  GObject         parent_instance;

  /* Owned */
  char           *url;                /* normalised, or as given when invalid */
  char           *token;              /* nullable */
  char           *session_hash;
  RivConfig      *config;             /* nullable until connected */
  SoupSession    *session;
  GCancellable   *cancellable;        /* cancelled by close */
  GMainContext   *context;
  GListStore     *jobs;
  GHashTable     *by_event;           /* event id (borrowed from the job) → RivJob (ref) */
  GHashTable     *early;              /* event id → EarlyEntry (owned) */
  GQueue          early_order;        /* EarlyEntry links, oldest first */
  GHashTable     *poisoned;           /* ids whose early messages were dropped */
  GQueue          poisoned_order;     /* Poisoned (owned), oldest first */
  double          poison_overflow_at; /* last time a poisoned id was forgotten early; 0 never */
  JsonParser     *parser;             /* one plain parser for every frame (see apply_outputs) */
  GSource        *reconnect_source;
  GSource        *liveness_source;
  GSource        *join_source;        /* join-timeout watchdog, while joins are in flight */
  GSource        *publish_source;     /* publishes throttled outputs; nullable */
  GPtrArray      *unpublished;        /* RivJob refs with outputs not yet published; nullable */
  GQueue          joins;              /* Op links of joins in flight, by deadline */
  char           *join_url;
  char           *data_url;
  char           *cancel_url;
  char           *reset_url;
  char           *upload_url;

  /* Borrowed: the current stream is owned by its in-flight operation. */
  Stream         *stream;

  double          liveness_timeout;
  double          join_timeout;
  double          inflight_since;
  double          last_bytes_at;
  gsize           early_bytes;
  guint64         early_dropped;
  guint64         n_messages;
  guint           early_count;
  guint           next_number;
  guint           n_pending;          /* non-terminal jobs */
  guint           n_joining;          /* join requests in flight */
  guint           n_joined;           /* joined, non-terminal jobs */
  guint           n_streams;
  guint           stream_failures;
  guint           empty_closes;
  guint           batch_counter;
  RivStreamState  stream_state;

  guint           download_images : 1;
  int             io_priority;        /* GLib priority of every network operation */
  double          publish_interval;   /* seconds between streamed output hand-overs */
  guint           closed : 1;
  guint           disposing : 1;
  guint           session_established : 1;
  guint           local_stream : 1;   /* streams are local (tests, benchmarks) */
};

enum {
  PROP_0,
  PROP_URL,
  PROP_TOKEN,
  PROP_CONFIG,
  PROP_STREAM_STATE,
  PROP_JOBS,
  PROP_LIVENESS_TIMEOUT,
  PROP_JOIN_TIMEOUT,
  PROP_SESSION_HASH,
  PROP_N_PENDING,
  PROP_N_JOINING,
  PROP_DOWNLOAD_IMAGES,
  PROP_IO_PRIORITY,
  PROP_PUBLISH_INTERVAL,
  N_PROPS
};

enum {
  SIGNAL_JOB_FINISHED,
  SIGNAL_STREAM_ERROR,
  N_SIGNALS
};

G_DEFINE_FINAL_TYPE (RivClient, riv_client, G_TYPE_OBJECT)

static GParamSpec *properties[N_PROPS];
static guint signals[N_SIGNALS];

/* One SSE GET. */
struct _Stream
{
  RivClient     *client;      /* borrowed; NULL once detached */
  GCancellable  *cancellable;
  SoupMessage   *msg;
  GInputStream  *input;       /* nullable until the response arrived */
  RivSseReader  *reader;
  guint8        *buffer;
  GPtrArray     *run;         /* RivJob refs: the current run of process_starts (inferred batch) */
  char          *run_id;      /* nullable */
  gint64         run_fn;
  double         run_time;
  guint          epoch;
  int            io_priority;
  GSource       *drain_source; /* nullable */
  GSource       *yield_source; /* nullable: a pause that lets the frame clock run */
  GSource       *yield_guard;  /* nullable: ends a pause that nothing else ends */
  double         busy_since;   /* start of the current run of back-to-back reads; 0 none */
  double         read_issued_at;
  gssize         last_read;    /* bytes the last read returned */
  gboolean       got_close;
  gboolean       draining;     /* detached after close_stream, reading to the end */
  gboolean       local;        /* no request: fed by _riv_client_feed_stream_for_testing */
  gboolean       feeding;      /* local: inside that feed, which frees it if detached */
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
} JobCtx;

/* Latest-wins image download chain of one job (qdata on the job). */
typedef struct
{
  char     *last_url;   /* newest url queued or fetched */
  char     *next_url;   /* waiting for the one in flight */
  gboolean  busy;
} DownloadState;

/* A message buffered for an event id not known yet. */
typedef struct
{
  GList     link;       /* in early_order; data points to this entry */
  char     *event_id;
  GQueue    messages;   /* RivMessage* */
  gsize     bytes;
  double    created_at;
} EarlyEntry;

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
} OpCancel;

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
  gboolean      queued;              /* link is in "joins" */
  gboolean      timed_out;
} Op;

static void ensure_stream        (RivClient  *self);
static void stream_detach        (Stream     *st);
static void stream_free          (Stream     *st);
static void job_reached_terminal (RivClient  *self,
                                  RivJob     *job);
static void send_cancel          (RivClient  *self,
                                  RivJob     *job,
                                  const char *event_id);
static void liveness_update      (RivClient  *self);

/* Small helpers ------------------------------------------------------------------------ */

static GSource *
attach_timeout (RivClient   *self,
                double       seconds,
                GSourceFunc  func,
                gpointer     data)
{
  GSource *source = g_timeout_source_new ((guint) MAX (0, seconds * 1000 + 0.5));

  g_source_set_callback (source, func, data, NULL);
  g_source_attach (source, self->context);
  return source;
}

static void
clear_source (GSource **source)
{
  if (*source != NULL)
    {
      g_source_destroy (*source);
      g_clear_pointer (source, g_source_unref);
    }
}

static void
cancel_cb (GCancellable *cancellable,
           gpointer      user_data)
{
  g_cancellable_cancel (user_data);
}

static gboolean
op_cancel_timeout_cb (gpointer user_data)
{
  OpCancel *oc = user_data;

  oc->timed_out = TRUE;
  g_cancellable_cancel (oc->cancellable);
  g_clear_pointer (&oc->timeout, g_source_unref);
  return G_SOURCE_REMOVE;
}

static OpCancel *
op_cancel_new (RivClient    *self,
               GCancellable *user,
               double        timeout_s)
{
  OpCancel *oc = g_new0 (OpCancel, 1);

  oc->cancellable = g_cancellable_new ();
  if (user != NULL)
    {
      oc->user = g_object_ref (user);
      oc->user_handler = g_cancellable_connect (user, G_CALLBACK (cancel_cb),
                                                oc->cancellable, NULL);
    }
  oc->client = g_object_ref (self->cancellable);
  oc->client_handler = g_cancellable_connect (self->cancellable, G_CALLBACK (cancel_cb),
                                              oc->cancellable, NULL);
  if (timeout_s > 0)
    oc->timeout = attach_timeout (self, timeout_s, op_cancel_timeout_cb, oc);

  return oc;
}

static void
op_cancel_free (OpCancel *oc)
{
  if (oc == NULL)
    return;

  clear_source (&oc->timeout);
  if (oc->user != NULL)
    g_cancellable_disconnect (oc->user, oc->user_handler);
  g_cancellable_disconnect (oc->client, oc->client_handler);
  g_clear_object (&oc->user);
  g_clear_object (&oc->client);
  g_clear_object (&oc->cancellable);
  g_free (oc);
}

static Op *
op_new (RivClient   *self,
        RivJob      *job,
        SoupMessage *msg)
{
  Op *op = g_new0 (Op, 1);

  op->link.data = op;
  op->client = self;
  op->client_cancellable = g_object_ref (self->cancellable);
  op->job = job ? g_object_ref (job) : NULL;
  op->msg = msg ? g_object_ref (msg) : NULL;
  return op;
}

static void
op_free (Op *op)
{
  g_clear_object (&op->cancellable);
  g_clear_object (&op->client_cancellable);
  g_clear_object (&op->job);
  g_clear_object (&op->msg);
  g_free (op->url);
  g_free (op);
}

G_DEFINE_AUTOPTR_CLEANUP_FUNC (Op, op_free)

/* TRUE when the client behind op is gone or closed: the callback must return
 * without touching it. */
static gboolean
op_client_gone (Op *op)
{
  return g_cancellable_is_cancelled (op->client_cancellable);
}

static void
set_stream_state (RivClient      *self,
                  RivStreamState  state)
{
  if (self->stream_state == state)
    return;
  self->stream_state = state;
  if (!self->disposing)
    g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_STREAM_STATE]);
}

static void
prepare_message (RivClient   *self,
                 SoupMessage *msg)
{
  SoupMessageHeaders *headers = soup_message_get_request_headers (msg);

  soup_message_headers_replace (headers, "x-gradio-user", "api");
  if (self->token != NULL && *self->token != '\0')
    {
      g_autofree char *value = g_strconcat ("Bearer ", self->token, NULL);

      soup_message_headers_replace (headers, "Authorization", value);
    }
}

static SoupMessage *
new_json_post (RivClient  *self,
               const char *url,
               JsonNode   *body)
{
  g_autoptr(GBytes) bytes = NULL;
  SoupMessage *msg;
  gsize len = 0;
  char *text;

  msg = soup_message_new (SOUP_METHOD_POST, url);
  if (msg == NULL)
    return NULL;

  text = riv_json_to_string (body, &len);
  bytes = g_bytes_new_take (text, len);
  soup_message_set_request_body_from_bytes (msg, "application/json", bytes);
  prepare_message (self, msg);

  /* libsoup opens a new connection for every non-idempotent request unless
   * told otherwise: a burst of 1,000 joins would cost 1,000 TCP connections.
   * The flag only allows reusing a kept-alive connection; libsoup still never
   * re-sends a POST (its restart logic looks at the method). */
  soup_message_add_flags (msg, SOUP_MESSAGE_IDEMPOTENT);
  return msg;
}

/* The server's explanation in a FastAPI-style error body: "detail" as a string,
 * Gradio's 422 list of {"message"} (or pydantic {"msg"}) objects, or "error". */
static char *
extract_detail (GBytes *body)
{
  g_autoptr(JsonNode) root = NULL;
  JsonObject *object;
  JsonNode *detail;
  const char *data;
  gsize len = 0;

  if (body == NULL || (data = g_bytes_get_data (body, &len)) == NULL || len == 0)
    return NULL;

  root = riv_json_parse (NULL, data, len, 64, NULL);
  if (root == NULL || !JSON_NODE_HOLDS_OBJECT (root))
    return NULL;

  object = json_node_get_object (root);
  detail = json_object_get_member (object, "detail");
  if (detail != NULL && JSON_NODE_HOLDS_VALUE (detail) &&
      json_node_get_value_type (detail) == G_TYPE_STRING)
    return g_strdup (json_node_get_string (detail));

  if (detail != NULL && JSON_NODE_HOLDS_ARRAY (detail))
    {
      JsonArray *array = json_node_get_array (detail);
      g_autoptr(GString) text = g_string_new (NULL);

      for (guint i = 0; i < json_array_get_length (array); i++)
        {
          JsonNode *item = json_array_get_element (array, i);
          const char *message = NULL;
          const char *param = NULL;

          if (JSON_NODE_HOLDS_OBJECT (item))
            {
              JsonObject *item_object = json_node_get_object (item);

              message = riv_json_get_string (item_object, "message");
              if (message == NULL)
                message = riv_json_get_string (item_object, "msg");
              param = riv_json_get_string (item_object, "parameter_name");
            }
          else if (JSON_NODE_HOLDS_VALUE (item) && json_node_get_value_type (item) == G_TYPE_STRING)
            message = json_node_get_string (item);

          if (message == NULL)
            continue;
          if (text->len > 0)
            g_string_append (text, "; ");
          if (param != NULL)
            g_string_append_printf (text, "%s: ", param);
          g_string_append (text, message);
        }
      if (text->len > 0)
        return g_string_free (g_steal_pointer (&text), FALSE);
    }

  if (detail != NULL && JSON_NODE_HOLDS_OBJECT (detail))
    {
      const char *message = riv_json_get_string (json_node_get_object (detail), "auth_message");

      if (message == NULL)
        message = riv_json_get_string (json_node_get_object (detail), "message");
      if (message != NULL)
        return g_strdup (message);
    }

  if (riv_json_get_string (object, "error") != NULL)
    return g_strdup (riv_json_get_string (object, "error"));

  return NULL;
}

static char *
generate_session_hash (void)
{
  static const char digits[] = "0123456789abcdefghijklmnopqrstuvwxyz";
  char hash[12];

  for (guint i = 0; i < 11; i++)
    hash[i] = digits[g_random_int_range (0, 36)];
  hash[11] = '\0';
  return g_strdup (hash);
}

/* Jobs ------------------------------------------------------------------------------- */

static JobCtx *
job_get_ctx (RivJob *job)
{
  return _riv_job_get_owner_data (job);
}

static void
values_clear (JobCtx *ctx)
{
  for (guint i = 0; i < ctx->n_values; i++)
    riv_diff_value_free (ctx->values[i]);
  if (ctx->values != ctx->values_inline)
    g_free (ctx->values);
  ctx->values = NULL;
  ctx->n_values = 0;
  ctx->has_values = FALSE;
}

/* Room for n values (the first n_values kept). */
static void
values_reserve (JobCtx *ctx,
                guint   n)
{
  RivDiffValue **values;

  if (n <= G_N_ELEMENTS (ctx->values_inline))
    values = ctx->values_inline;
  else if (ctx->values != ctx->values_inline)
    values = g_renew (RivDiffValue *, ctx->values, n);
  else
    values = g_new (RivDiffValue *, n);

  if (values != ctx->values && ctx->n_values > 0)
    memcpy (values, ctx->values, ctx->n_values * sizeof *values);
  ctx->values = values;
}

static void
job_ctx_free (gpointer data)
{
  JobCtx *ctx = data;

  clear_source (&ctx->cancel_grace);
  values_clear (ctx);
  g_clear_pointer (&ctx->config, riv_config_unref);
  g_free (ctx);
}

static void
download_state_free (gpointer data)
{
  DownloadState *ds = data;

  g_free (ds->last_url);
  g_free (ds->next_url);
  g_free (ds);
}

static void
notify_n_pending (RivClient *self)
{
  if (!self->disposing)
    g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_N_PENDING]);
}

static void
notify_n_joining (RivClient *self)
{
  if (!self->disposing)
    g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_N_JOINING]);
}

/* The job's join request has its answer, or no longer needs one. */
static void
joining_done (RivClient *self,
              JobCtx    *ctx)
{
  if (ctx == NULL || !ctx->counted_joining)
    return;

  ctx->counted_joining = FALSE;
  g_assert (self->n_joining > 0);
  self->n_joining--;
  notify_n_joining (self);
}

/* Finishes a job (if it is not terminal yet) and does the bookkeeping. */
static void publish_outputs (RivClient *self,
                             JobCtx    *ctx);

static gboolean
finish_job (RivClient    *self,
            RivJob       *job,
            RivJobStatus  status,
            const char   *error)
{
  G_GNUC_UNUSED g_autoptr(RivJob) hold = g_object_ref (job);   /* alive until we return */
  JobCtx *ctx = job_get_ctx (job);

  /* A job that ends mid-stream keeps the last outputs it was sent. */
  if (ctx != NULL && ctx->unpublished && !self->closed &&
      !RIV_JOB_STATUS_IS_TERMINAL (riv_job_get_status (job)))
    publish_outputs (self, ctx);

  _riv_job_freeze (job);
  if (!_riv_job_finish (job, status, error))
    {
      _riv_job_thaw (job);
      return FALSE;
    }
  if (error != NULL)
    _riv_job_add_timeline (job, "%s: %s", riv_job_status_to_string (status), error);
  else
    _riv_job_add_timeline (job, "%s", riv_job_status_to_string (status));
  _riv_job_thaw (job);

  job_reached_terminal (self, job);
  return TRUE;
}

static void
job_reached_terminal (RivClient *self,
                      RivJob    *job)
{
  JobCtx *ctx = job_get_ctx (job);
  DownloadState *ds;
  gboolean was_joined = FALSE;

  if (ctx != NULL)
    {
      was_joined = ctx->joined;
      /* Finished (cancelled) while its join request is still in flight. */
      joining_done (self, ctx);
      _riv_job_set_owner_data (job, NULL, NULL);
    }

  ds = g_object_get_qdata (G_OBJECT (job), download_state_quark ());
  if (ds != NULL && !ds->busy && ds->next_url == NULL)
    g_object_set_qdata (G_OBJECT (job), download_state_quark (), NULL);

  _riv_job_trim (job);

  g_assert (self->n_pending > 0);
  self->n_pending--;
  if (was_joined)
    {
      g_assert (self->n_joined > 0);
      self->n_joined--;
    }
  liveness_update (self);
  notify_n_pending (self);

  if (!self->disposing)
    g_signal_emit (self, signals[SIGNAL_JOB_FINISHED], 0, job);
}

/* Non-terminal joined jobs, as new references (safe against handlers that
 * change the job list while we walk it). */
static GPtrArray *
collect_joined_jobs (RivClient *self)
{
  GPtrArray *jobs = g_ptr_array_new_with_free_func (g_object_unref);
  GHashTableIter iter;
  gpointer value;

  g_hash_table_iter_init (&iter, self->by_event);
  while (g_hash_table_iter_next (&iter, NULL, &value))
    {
      RivJob *job = value;
      JobCtx *ctx;

      if (riv_job_is_finished (job) || (ctx = job_get_ctx (job)) == NULL || !ctx->joined)
        continue;
      g_ptr_array_add (jobs, g_object_ref (job));
    }

  return jobs;
}

static void
finish_joined_jobs (RivClient    *self,
                    RivJobStatus  status,
                    const char   *error)
{
  g_autoptr(GPtrArray) jobs = collect_joined_jobs (self);

  for (guint i = 0; i < jobs->len; i++)
    finish_job (self, g_ptr_array_index (jobs, i), status, error);
}

/* Images ------------------------------------------------------------------------------- */

static void start_download (RivClient *self,
                            RivJob    *job,
                            char      *url);

static gboolean
is_http_url (const char *url)
{
  return url != NULL &&
         (g_ascii_strncasecmp (url, "http://", 7) == 0 ||
          g_ascii_strncasecmp (url, "https://", 8) == 0);
}

static gboolean
is_file_data (JsonObject *object)
{
  JsonNode *meta = json_object_get_member (object, "meta");

  return meta != NULL && JSON_NODE_HOLDS_OBJECT (meta) &&
         g_strcmp0 (riv_json_get_string (json_node_get_object (meta), "_type"),
                    "gradio.FileData") == 0;
}

/* Where to fetch a FileData: its absolute "url", or ROOT + P + "/file=" + path. */
static char *
file_data_url (RivClient  *self,
               JsonObject *object)
{
  const char *url = riv_json_get_string (object, "url");
  const char *path = riv_json_get_string (object, "path");
  g_autofree char *escaped = NULL;
  g_autofree char *prefix = NULL;

  if (is_http_url (url))
    return g_strdup (url);
  if (path == NULL || *path == '\0')
    return NULL;
  if (is_http_url (path))
    return g_strdup (path);
  if (g_str_has_prefix (path, "data:"))
    return NULL;

  escaped = g_uri_escape_string (path, "/:", FALSE);
  prefix = riv_config_build_url (self->config, "/file=");
  return g_strconcat (prefix, escaped, NULL);
}

static void
maybe_download_images (RivClient   *self,
                       JobCtx      *ctx,
                       JsonNode    *outputs)
{
  JsonArray *array;
  GPtrArray *slots;
  DownloadState *ds;
  char *url = NULL;
  guint n;

  if (!self->download_images || ctx->endpoint == NULL || outputs == NULL ||
      !JSON_NODE_HOLDS_ARRAY (outputs))
    return;

  slots = ctx->endpoint->outputs;
  array = json_node_get_array (outputs);
  n = MIN (json_array_get_length (array), slots->len);

  /* The first image output slot holding a file. */
  for (guint i = 0; i < n && url == NULL; i++)
    {
      RivComponent *component = g_ptr_array_index (slots, i);
      JsonNode *value = json_array_get_element (array, i);
      JsonObject *object;

      if (component == NULL || g_strcmp0 (component->type, "image") != 0 ||
          !JSON_NODE_HOLDS_OBJECT (value))
        continue;

      object = json_node_get_object (value);
      if (is_file_data (object) || json_object_has_member (object, "path") ||
          json_object_has_member (object, "url"))
        url = file_data_url (self, object);
    }

  if (url == NULL)
    return;

  ds = g_object_get_qdata (G_OBJECT (ctx->job), download_state_quark ());
  if (ds == NULL)
    {
      ds = g_new0 (DownloadState, 1);
      g_object_set_qdata_full (G_OBJECT (ctx->job), download_state_quark (), ds,
                               download_state_free);
    }

  /* The completion repeats the last frame: don't fetch it twice. */
  if (g_strcmp0 (ds->last_url, url) == 0)
    {
      g_free (url);
      return;
    }
  g_free (ds->last_url);
  ds->last_url = g_strdup (url);

  /* Latest wins: a frame waiting behind the one in flight is replaced. */
  if (ds->busy)
    {
      g_free (ds->next_url);
      ds->next_url = url;
      return;
    }

  start_download (self, ctx->job, url);
}

static void
download_cb (GObject      *object,
             GAsyncResult *result,
             gpointer      user_data)
{
  g_autoptr(Op) op = user_data;
  g_autoptr(GError) error = NULL;
  g_autoptr(GBytes) bytes = NULL;
  DownloadState *ds;
  RivClient *self;
  guint status;

  bytes = soup_session_send_and_read_finish (SOUP_SESSION (object), result, &error);
  if (op_client_gone (op))
    return;

  self = op->client;
  ds = g_object_get_qdata (G_OBJECT (op->job), download_state_quark ());
  g_assert (ds != NULL);
  ds->busy = FALSE;

  status = soup_message_get_status (op->msg);
  if (bytes != NULL && status == SOUP_STATUS_OK && g_bytes_get_size (bytes) > 0)
    _riv_job_set_image (op->job, bytes);
  else if (error != NULL)
    g_debug ("Image download %s failed: %s", op->url, error->message);
  else
    g_debug ("Image download %s failed: HTTP %u", op->url, status);

  if (ds->next_url != NULL)
    start_download (self, op->job, g_steal_pointer (&ds->next_url));
  else if (riv_job_is_finished (op->job))
    g_object_set_qdata (G_OBJECT (op->job), download_state_quark (), NULL);
}

/* Takes url. */
static void
start_download (RivClient *self,
                RivJob    *job,
                char      *url)
{
  DownloadState *ds = g_object_get_qdata (G_OBJECT (job), download_state_quark ());
  g_autoptr(SoupMessage) msg = NULL;
  Op *op;

  msg = soup_message_new (SOUP_METHOD_GET, url);
  if (msg == NULL)
    {
      g_debug ("Not a valid image URL: %s", url);
      g_free (url);
      return;
    }

  /* The token only goes to the server itself. */
  if (g_str_has_prefix (url, riv_config_get_root (self->config)))
    prepare_message (self, msg);

  ds->busy = TRUE;
  op = op_new (self, job, msg);
  op->url = url;
  soup_session_send_and_read_async (self->session, msg, self->io_priority, self->cancellable,
                                    download_cb, op);
}

/* Applying messages ---------------------------------------------------------------------- */

/* Replaces the job's outputs: full values (first yield, completion, or no diffs
 * in this protocol), or edit lists applied to the previous values. Nodes are
 * shared, never copied: riv_diff_apply() copies along the edited path only. */
/* Streamed outputs reach the job at most every "publish-interval" (default
 * 20 ms): a generator may yield 100,000 times a second, and turning a long
 * text into a JsonNode for every yield is quadratic. Every yield is still
 * counted at once, and full values (first yield, completion) go out at once. */

/* Hands the current output values to the job. */
static void
publish_outputs (RivClient *self,
                 JobCtx    *ctx)
{
  JsonArray *outputs;
  JsonNode *node;

  if (!ctx->has_values)
    return;

  outputs = json_array_sized_new (ctx->n_values);
  for (guint i = 0; i < ctx->n_values; i++)
    json_array_add_element (outputs, riv_diff_value_dup_node (ctx->values[i]));

  node = json_node_new (JSON_NODE_ARRAY);
  json_node_take_array (node, outputs);
  ctx->unpublished = FALSE;
  ctx->published_at = riv_now ();
  _riv_job_publish_outputs (ctx->job, json_node_ref (node));
  maybe_download_images (self, ctx, node);
  json_node_unref (node);
}

static gboolean publish_timeout_cb (gpointer user_data);

/* Seconds until ctx may publish again (0: now). The timer that waits for
 * it rounds up to whole milliseconds, so it never fires early. */
static double
publish_wait (RivClient *self,
              JobCtx    *ctx,
              double     now)
{
  double wait = ctx->published_at + self->publish_interval - now;

  return wait > 0 ? wait : 0;
}

static void
publish_later (RivClient *self,
               JobCtx    *ctx,
               double     wait)
{
  if (!ctx->unpublished)
    {
      ctx->unpublished = TRUE;
      if (self->unpublished == NULL)
        self->unpublished = g_ptr_array_new_with_free_func (g_object_unref);
      g_ptr_array_add (self->unpublished, g_object_ref (ctx->job));
    }
  if (self->publish_source == NULL)
    self->publish_source = attach_timeout (self, ceil (wait * 1000) / 1000, publish_timeout_cb,
                                           self);
}

static gboolean
publish_timeout_cb (gpointer user_data)
{
  RivClient *self = user_data;
  g_autoptr(GPtrArray) jobs = g_steal_pointer (&self->unpublished);
  double now = riv_now ();

  g_clear_pointer (&self->publish_source, g_source_unref);
  for (guint i = 0; jobs != NULL && i < jobs->len; i++)
    {
      JobCtx *ctx = job_get_ctx (g_ptr_array_index (jobs, i));
      double wait;

      if (ctx == NULL || !ctx->unpublished)
        continue;
      /* Published meanwhile (a full value, or an edit once the interval had
       * passed): this one waits for its own interval to end. */
      wait = publish_wait (self, ctx, now);
      if (wait > 0)
        {
          ctx->unpublished = FALSE;
          publish_later (self, ctx, wait);
        }
      else
        publish_outputs (self, ctx);
    }
  return G_SOURCE_REMOVE;
}

/* Applies one generating or completed message's outputs: full values, or
 * edit lists against the previous values (protocol.md §4). */
static gboolean
apply_outputs (RivClient   *self,
               JobCtx      *ctx,
               RivMessage  *msg,
               gboolean     full,
               GError     **error)
{
  JsonArray *data;
  double wait;
  guint n;

  if (msg->data == NULL)
    return TRUE;

  data = json_node_get_array (msg->data);
  n = json_array_get_length (data);

  if (full || !ctx->has_values)
    {
      /* Full values are kept past this frame, shared and never copied:
       * sealed, they can never change. Sealing just them costs much less
       * than an immutable parser, which seals (and hashes) every frame whole;
       * a sealed string is not even hashed. (What an edit list leaves in a
       * value is copied unless it is sealed: both are right.) */
      for (guint i = 0; i < n; i++)
        json_node_seal (json_array_get_element (data, i));

      values_clear (ctx);
      values_reserve (ctx, n);
      for (guint i = 0; i < n; i++)
        ctx->values[i] = riv_diff_value_new (json_array_get_element (data, i));
      ctx->n_values = n;
      ctx->has_values = TRUE;
    }
  else
    {
      for (guint i = 0; i < n; i++)
        {
          /* An output that appears mid-run starts from null. */
          if (i >= ctx->n_values)
            {
              values_reserve (ctx, i + 1);
              ctx->values[ctx->n_values++] = riv_diff_value_new (NULL);
            }

          if (!riv_diff_value_apply (ctx->values[i],
                                     json_array_get_element (data, i), error))
            {
              g_prefix_error (error, "output %u: ", i);
              return FALSE;
            }
        }
    }

  _riv_job_count_update (ctx->job);

  /* Full values go out at once; streamed edits at most once per publish
   * interval, the last of a run by a timer at the end of its interval. */
  wait = full ? 0 : publish_wait (self, ctx, riv_now ());
  if (wait == 0)
    publish_outputs (self, ctx);
  else
    publish_later (self, ctx, wait);

  return TRUE;
}

static char *
completion_error_text (RivMessage *msg)
{
  if (msg->error != NULL && *msg->error != '\0')
    return g_strdup (msg->error);
  if (msg->title != NULL && *msg->title != '\0')
    return g_strdup_printf ("The server reported an error (%s)", msg->title);
  return g_strdup ("The server reported an error");
}

/* Batch inference for servers that send no batch field (real Gradio): all
 * members of a batch get process_starts at the same instant, back to back in
 * the session's FIFO. So a run of consecutive process_starts for one batch
 * endpoint, with no other message between them and arriving in the same read
 * or reads a few milliseconds apart, is taken as one batch (at most
 * max_batch_size jobs). */
#define BATCH_RUN_GAP_S 0.05

static void
batch_run_close (Stream *st)
{
  if (st->run->len > 0)
    g_ptr_array_set_size (st->run, 0);
  g_clear_pointer (&st->run_id, g_free);
}

static void
batch_run_add (RivClient   *self,
               Stream      *st,
               RivJob      *job,
               RivEndpoint *endpoint)
{
  double now = riv_now ();

  if (st->run->len == 0 || st->run_fn != endpoint->fn_index ||
      (endpoint->max_batch_size > 0 && st->run->len >= (guint) endpoint->max_batch_size) ||
      now - st->run_time > BATCH_RUN_GAP_S)
    {
      batch_run_close (st);
      st->run_fn = endpoint->fn_index;
      st->run_id = g_strdup_printf ("~%u", ++self->batch_counter);
    }

  g_ptr_array_add (st->run, g_object_ref (job));
  st->run_time = now;
  for (guint i = 0; i < st->run->len; i++)
    _riv_job_set_batch (g_ptr_array_index (st->run, i), st->run_id, st->run->len, i, TRUE);
}

/* Applies one message to a non-terminal job. st is the stream it came from
 * (NULL for replayed early messages). */
static void
apply_message (RivClient  *self,
               RivJob     *job,
               RivMessage *msg,
               Stream     *st)
{
  G_GNUC_UNUSED g_autoptr(RivJob) hold = g_object_ref (job);   /* alive until we return */
  g_autofree char *fail_text = NULL;
  JobCtx *ctx = job_get_ctx (job);
  RivJobStatus final = RIV_JOB_STATUS_PENDING;

  if (ctx == NULL || riv_job_is_finished (job))
    return;

  _riv_job_freeze (job);
  _riv_job_count_event (job);

  if (msg->has_batch)
    _riv_job_set_batch (job, msg->batch_id, msg->batch_size, msg->batch_index, FALSE);

  switch (msg->kind)
    {
    case RIV_MESSAGE_ESTIMATION:
      _riv_job_set_queue (job,
                          msg->has_rank ? msg->rank : -1,
                          msg->has_queue_size ? msg->queue_size : -1,
                          msg->has_rank_eta ? msg->rank_eta : -1);
      _riv_job_set_status (job, RIV_JOB_STATUS_QUEUED);
      /* Estimations are re-broadcast whenever a job starts: note the first. */
      if (!ctx->saw_estimation)
        {
          ctx->saw_estimation = TRUE;
          if (msg->has_rank && msg->has_queue_size)
            _riv_job_add_timeline (job, "queued: position %" G_GINT64_FORMAT
                                   " of %" G_GINT64_FORMAT, msg->rank + 1, msg->queue_size);
          else
            _riv_job_add_timeline (job, "queued");
        }
      break;

    case RIV_MESSAGE_PROCESS_STARTS:
      _riv_job_set_queue (job, -1, -1, msg->has_eta ? msg->eta : -1);
      if (_riv_job_set_status (job, RIV_JOB_STATUS_RUNNING))
        {
          if (msg->has_batch)
            _riv_job_add_timeline (job, "started (batch %s, %" G_GINT64_FORMAT
                                   " of %" G_GINT64_FORMAT ")",
                                   msg->batch_id ? msg->batch_id : "?",
                                   msg->batch_index + 1, msg->batch_size);
          else
            _riv_job_add_timeline (job, "started");
        }
      if (!msg->has_batch && st != NULL && ctx->endpoint != NULL && ctx->endpoint->batch)
        batch_run_add (self, st, job, ctx->endpoint);
      break;

    case RIV_MESSAGE_PROGRESS:
      if (msg->progress != NULL && msg->progress->len > 0)
        {
          RivProgressUnit *unit = &g_array_index (msg->progress, RivProgressUnit, 0);
          double fraction = -1;

          if (unit->has_progress)
            fraction = unit->progress;
          else if (unit->has_index && unit->has_length && unit->length > 0)
            fraction = (double) unit->index / (double) unit->length;
          _riv_job_set_progress (job, fraction,
                                 unit->has_index ? unit->index : -1,
                                 unit->has_length ? unit->length : -1,
                                 unit->unit);
        }
      break;

    case RIV_MESSAGE_LOG:
      _riv_job_add_timeline (job, "%s: %s", msg->level ? msg->level : "log",
                             msg->log ? msg->log : "");
      break;

    case RIV_MESSAGE_PROCESS_GENERATING:
    case RIV_MESSAGE_PROCESS_STREAMING:
      if (!msg->success)
        {
          final = RIV_JOB_STATUS_FAILED;
          fail_text = completion_error_text (msg);
        }
      else
        {
          g_autoptr(GError) error = NULL;
          gboolean full = msg->kind == RIV_MESSAGE_PROCESS_STREAMING ||
                          !riv_config_uses_diffs (ctx->config) ||
                          (ctx->endpoint != NULL &&
                           g_strcmp0 (ctx->endpoint->connection, "stream") == 0);

          if (!apply_outputs (self, ctx, msg, full, &error))
            {
              final = RIV_JOB_STATUS_FAILED;
              fail_text = g_strdup_printf ("Could not apply the server's update: %s",
                                           error->message);
            }
          else if (_riv_job_set_status (job, RIV_JOB_STATUS_STREAMING))
            _riv_job_add_timeline (job, "first output");
        }
      break;

    case RIV_MESSAGE_PROCESS_COMPLETED:
      /* Gradio answers /cancel with success and output {}; a failure with an
       * empty output is still a failure. */
      if (msg->cancelled && msg->success)
        final = RIV_JOB_STATUS_CANCELLED;
      else if (msg->success)
        {
          g_autoptr(GError) error = NULL;

          /* Completion values are always full, never a diff. */
          if (!apply_outputs (self, ctx, msg, TRUE, &error))
            {
              final = RIV_JOB_STATUS_FAILED;
              fail_text = g_strdup (error->message);
            }
          else
            final = RIV_JOB_STATUS_COMPLETED;
        }
      else
        {
          final = RIV_JOB_STATUS_FAILED;
          fail_text = completion_error_text (msg);
        }
      break;

    case RIV_MESSAGE_QUEUE_FULL:
      final = RIV_JOB_STATUS_FAILED;
      fail_text = g_strdup ("Queue is full");
      break;

    case RIV_MESSAGE_UNKNOWN:
    case RIV_MESSAGE_HEARTBEAT:
    case RIV_MESSAGE_CLOSE_STREAM:
    case RIV_MESSAGE_UNEXPECTED_ERROR:
    case RIV_MESSAGE_SEND_HASH:
    case RIV_MESSAGE_SEND_DATA:
    default:
      break;
    }

  _riv_job_thaw (job);

  /* finish_job notifies and emits job-finished after the message's burst. */
  if (final != RIV_JOB_STATUS_PENDING)
    finish_job (self, job, final, fail_text);
}

/* Early buffer ------------------------------------------------------------------------- */

static void
early_entry_free (EarlyEntry *entry)
{
  g_queue_clear_full (&entry->messages, (GDestroyNotify) riv_message_free);
  g_free (entry->event_id);
  g_free (entry);
}

typedef struct
{
  const char *event_id;   /* borrowed: the key in self->poisoned */
  double      time;
} Poisoned;

static void
poison (RivClient  *self,
        const char *event_id)
{
  double now = riv_now ();
  double expiry = MAX (self->join_timeout, 1.0) + EARLY_EXPIRY_MARGIN_S;
  Poisoned *entry;
  char *copy;

  /* Forget ids no join reply can name any more; past the cap, forget the
   * oldest anyway and remember that it happened. */
  while (self->poisoned_order.length > 0)
    {
      Poisoned *head = g_queue_peek_head (&self->poisoned_order);

      if (now - head->time <= expiry && self->poisoned_order.length < POISONED_MAX)
        break;
      if (now - head->time <= expiry)
        self->poison_overflow_at = now;
      g_queue_pop_head (&self->poisoned_order);
      g_hash_table_remove (self->poisoned, head->event_id);
      g_free (head);
    }

  if (g_hash_table_contains (self->poisoned, event_id))
    return;

  copy = g_strdup (event_id);
  g_hash_table_add (self->poisoned, copy);
  entry = g_new (Poisoned, 1);
  entry->event_id = copy;
  entry->time = now;
  g_queue_push_tail (&self->poisoned_order, entry);
}

/* Removes an entry from every index; returns it for the caller to free. */
static EarlyEntry *
early_unlink (RivClient  *self,
              EarlyEntry *entry)
{
  g_queue_unlink (&self->early_order, &entry->link);
  g_hash_table_steal (self->early, entry->event_id);
  self->early_count -= entry->messages.length;
  self->early_bytes -= entry->bytes;
  return entry;
}

static void
early_drop (RivClient  *self,
            EarlyEntry *entry,
            const char *why)
{
  guint n = entry->messages.length;

  self->early_dropped += n;
  if (self->early_dropped == n || self->early_dropped / 1000 != (self->early_dropped - n) / 1000)
    g_message ("Dropped %u buffered message(s) for unknown event id %s (%s); %" G_GUINT64_FORMAT
               " dropped so far", n, entry->event_id, why, self->early_dropped);
  else if (self->early_dropped <= 100)
    g_debug ("Dropped %u buffered message(s) for unknown event id %s (%s)",
             n, entry->event_id, why);

  poison (self, entry->event_id);
  early_entry_free (early_unlink (self, entry));
}

static void
early_add (RivClient  *self,
           RivMessage *msg,
           gsize       frame_len)
{
  double now = riv_now ();
  double expiry = MAX (self->join_timeout, 1.0) + EARLY_EXPIRY_MARGIN_S;
  gsize cost = frame_len + sizeof (RivMessage) + 64;
  EarlyEntry *entry;

  /* Expire entries no join reply can claim any more (joins time out). */
  while (self->early_order.head != NULL)
    {
      EarlyEntry *oldest = self->early_order.head->data;

      if (now - oldest->created_at < expiry)
        break;
      early_drop (self, oldest, "expired");
    }

  entry = g_hash_table_lookup (self->early, msg->event_id);
  if (entry == NULL)
    {
      entry = g_new0 (EarlyEntry, 1);
      entry->event_id = g_strdup (msg->event_id);
      entry->link.data = entry;
      entry->created_at = now;
      g_queue_init (&entry->messages);
      g_hash_table_insert (self->early, entry->event_id, entry);
      g_queue_push_tail_link (&self->early_order, &entry->link);
    }

  g_queue_push_tail (&entry->messages, msg);
  entry->bytes += cost;
  self->early_count++;
  self->early_bytes += cost;

  /* Over a bound: drop whole ids, oldest first (a partial diff stream would be
   * useless). The newest entry goes last, and only if it alone is too big. */
  while ((self->early_count > RIV_CLIENT_EARLY_MAX_MESSAGES ||
          self->early_bytes > RIV_CLIENT_EARLY_MAX_BYTES ||
          g_hash_table_size (self->early) > RIV_CLIENT_EARLY_MAX_IDS) &&
         self->early_order.head != NULL)
    early_drop (self, self->early_order.head->data, "early buffer full");
}

/* Stream ------------------------------------------------------------------------------- */

static gboolean
need_stream (RivClient *self)
{
  if (self->closed || self->config == NULL)
    return FALSE;
  return self->n_joined > 0 || (self->n_joining > 0 && self->session_established);
}

static void stream_read_next (Stream       *st);
static void stream_issue_read (Stream       *st);
static void stream_pause_end (Stream       *st);
static void stream_send_cb   (GObject      *object,
                              GAsyncResult *result,
                              gpointer      user_data);

static void
stream_free (Stream *st)
{
  g_assert (st->client == NULL);

  clear_source (&st->drain_source);
  g_clear_object (&st->input);
  g_clear_object (&st->msg);
  g_clear_object (&st->cancellable);
  g_clear_pointer (&st->reader, riv_sse_reader_free);
  g_clear_pointer (&st->buffer, g_free);
  g_clear_pointer (&st->run, g_ptr_array_unref);
  g_free (st->run_id);
  g_free (st);
}

/* Disconnects a stream from its client; its in-flight operation will see
 * st->client == NULL and free it. */
static void
stream_detach (Stream *st)
{
  RivClient *self = st->client;

  if (self == NULL)
    return;

  if (self->stream == st)
    self->stream = NULL;
  st->client = NULL;
  g_cancellable_cancel (st->cancellable);

  /* A local stream has no operation in flight that would free it. */
  if (st->local)
    {
      if (!st->feeding)
        stream_free (st);
      return;
    }

  /* A paused stream has no read in flight to notice the detach: issue it now. */
  if (st->yield_source != NULL)
    {
      stream_pause_end (st);
      stream_issue_read (st);
    }
}

static void
stream_open (RivClient *self)
{
  Stream *st;

  g_assert (self->stream == NULL);

  st = g_new0 (Stream, 1);
  st->client = self;
  st->epoch = ++self->n_streams;
  st->io_priority = self->io_priority;
  st->cancellable = g_cancellable_new ();
  st->reader = riv_sse_reader_new (0);
  st->buffer = g_malloc (READ_SIZE);
  st->run = g_ptr_array_new_with_free_func (g_object_unref);
  self->stream = st;

  if (self->local_stream)
    {
      st->local = TRUE;
      set_stream_state (self, RIV_STREAM_STATE_CONNECTED);
      return;
    }

  st->msg = soup_message_new (SOUP_METHOD_GET, self->data_url);
  prepare_message (self, st->msg);
  soup_message_headers_replace (soup_message_get_request_headers (st->msg),
                                "Accept", "text/event-stream");
  soup_message_headers_replace (soup_message_get_request_headers (st->msg),
                                "Cache-Control", "no-cache");
  /* Ahead of queued joins: in a burst hundreds of POSTs may be waiting for a
   * connection, and the stream is what lets their jobs finish. */
  soup_message_set_priority (st->msg, SOUP_MESSAGE_PRIORITY_VERY_HIGH);

  set_stream_state (self, self->stream_failures > 0 ? RIV_STREAM_STATE_RECONNECTING
                                                    : RIV_STREAM_STATE_CONNECTING);

  g_debug ("Opening stream %u", st->epoch);
  soup_session_send_async (self->session, st->msg, st->io_priority, st->cancellable,
                           stream_send_cb, st);
}

static gboolean
reconnect_cb (gpointer user_data)
{
  RivClient *self = user_data;

  g_clear_pointer (&self->reconnect_source, g_source_unref);
  ensure_stream (self);
  return G_SOURCE_REMOVE;
}

static void
lose_jobs (RivClient  *self,
           const char *error)
{
  g_autoptr(GPtrArray) jobs = collect_joined_jobs (self);

  if (jobs->len == 0)
    return;

  g_object_ref (self);
  set_stream_state (self, RIV_STREAM_STATE_DISCONNECTED);
  for (guint i = 0; i < jobs->len; i++)
    finish_job (self, g_ptr_array_index (jobs, i), RIV_JOB_STATUS_LOST, error);
  if (!self->disposing)
    g_signal_emit (self, signals[SIGNAL_STREAM_ERROR], 0, error);
  g_object_unref (self);
}

/* A stream ended without close_stream (network error, bad status, EOF). */
static void
stream_failed (Stream     *st,
               const char *reason)
{
  RivClient *self = st->client;
  gboolean never_connected = st->input == NULL;

  stream_detach (st);

  g_debug ("Stream %u failed: %s", st->epoch, reason);

  if (!need_stream (self))
    {
      self->stream_failures = 0;
      /* A stream that could not even be opened means the server is out of
       * reach; "idle" would read as healthy. */
      set_stream_state (self, never_connected ? RIV_STREAM_STATE_DISCONNECTED
                                              : RIV_STREAM_STATE_IDLE);
      return;
    }

  self->stream_failures++;
  if (self->stream_failures > MAX_STREAM_FAILURES)
    {
      g_autofree char *error = g_strdup_printf ("Connection to the server was lost: %s", reason);

      self->stream_failures = 0;
      lose_jobs (self, error);
      if (self->stream == NULL && !need_stream (self))
        set_stream_state (self, RIV_STREAM_STATE_DISCONNECTED);
      else
        ensure_stream (self);
      return;
    }

  set_stream_state (self, RIV_STREAM_STATE_RECONNECTING);
  if (reconnect_delay_ms[self->stream_failures - 1] == 0)
    ensure_stream (self);
  else if (self->reconnect_source == NULL)
    self->reconnect_source = attach_timeout (self,
                                             reconnect_delay_ms[self->stream_failures - 1] / 1000.0,
                                             reconnect_cb, self);
}

static void
ensure_stream (RivClient *self)
{
  if (self->stream != NULL || self->reconnect_source != NULL || self->closed)
    return;

  if (!need_stream (self))
    {
      if (self->stream_state != RIV_STREAM_STATE_DISCONNECTED)
        set_stream_state (self, RIV_STREAM_STATE_IDLE);
      return;
    }

  stream_open (self);
}

static void
handle_unexpected_error (RivClient  *self,
                         RivMessage *msg)
{
  g_autofree char *text = NULL;

  text = g_strdup_printf ("The server reported an unexpected error: %s",
                          msg->message ? msg->message : "(no message)");

  if (msg->session_not_found)
    {
      /* The server forgot us: a new session starts with the next join. */
      self->session_established = FALSE;
      finish_joined_jobs (self, RIV_JOB_STATUS_LOST, text);
    }
  else
    finish_joined_jobs (self, RIV_JOB_STATUS_FAILED, text);

  if (!self->disposing)
    g_signal_emit (self, signals[SIGNAL_STREAM_ERROR], 0, text);
}

static void
dispatch_message (RivClient  *self,
                  Stream     *st,
                  RivMessage *msg,
                  gsize       frame_len)
{
  RivJob *job;

  /* Anything between two process_starts ends an inferred batch. */
  if (msg->kind != RIV_MESSAGE_PROCESS_STARTS || msg->has_batch)
    batch_run_close (st);

  switch (msg->kind)
    {
    case RIV_MESSAGE_HEARTBEAT:
      riv_message_free (msg);
      return;

    case RIV_MESSAGE_CLOSE_STREAM:
      /* Handled after the rest of the chunk: everything before it in this
       * chunk has been applied already, synchronously. */
      st->got_close = TRUE;
      riv_message_free (msg);
      return;

    case RIV_MESSAGE_UNEXPECTED_ERROR:
      handle_unexpected_error (self, msg);
      riv_message_free (msg);
      return;

    default:
      break;
    }

  if (msg->event_id == NULL)
    {
      g_debug ("Ignoring session-wide message \"%s\"", msg->msg ? msg->msg : "?");
      riv_message_free (msg);
      return;
    }

  job = g_hash_table_lookup (self->by_event, msg->event_id);
  if (job != NULL)
    {
      /* Late frames for a finished job (progress trailing the completion,
       * a second completion after cancel) are ignored. */
      if (!riv_job_is_finished (job))
        {
          self->stream_failures = 0;
          self->empty_closes = 0;
          apply_message (self, job, msg, st);
        }
      riv_message_free (msg);
      return;
    }

  early_add (self, msg, frame_len);
}

static void
stream_event_cb (const char *event_type,
                 const char *data,
                 gsize       len,
                 gpointer    user_data)
{
  Stream *st = user_data;
  RivClient *self = st->client;
  g_autoptr(GError) error = NULL;
  RivMessage *msg;

  /* Detached by a handler during this chunk (close, liveness, …). */
  if (self == NULL)
    return;

  self->n_messages++;

  msg = riv_message_parse (self->parser, data, len, &error);
  if (msg == NULL)
    {
      g_debug ("Ignoring malformed frame on stream %u: %s", st->epoch, error->message);
      return;
    }

  dispatch_message (self, st, msg, len);
}

static gboolean
stream_drain_timeout_cb (gpointer user_data)
{
  Stream *st = user_data;

  g_clear_pointer (&st->drain_source, g_source_unref);
  g_cancellable_cancel (st->cancellable);
  return G_SOURCE_REMOVE;
}

static void
stream_end_normally (Stream *st)
{
  RivClient *self = st->client;

  g_debug ("Stream %u got close_stream", st->epoch);

  /* Detach, but read the response to its end rather than cancel it: the
   * connection then goes back to the pool instead of being closed (libsoup
   * 3.2 servers never free a connection the client closed). */
  self->stream = NULL;
  st->client = NULL;
  st->draining = TRUE;
  st->drain_source = attach_timeout (self, DRAIN_TIMEOUT_S, stream_drain_timeout_cb, st);
  self->stream_failures = 0;

  /* A server sends close_stream when it has nothing pending for the session.
   * Once or twice that crosses a join; over and over, with jobs joined and no
   * news of them, it means the server has forgotten them. */
  if (self->n_joined > 0 && ++self->empty_closes > MAX_EMPTY_CLOSES)
    {
      g_autofree char *error = g_strdup_printf ("Connection to the server was lost: it ended the "
                                                "stream %u times without news of this job",
                                                self->empty_closes);

      self->empty_closes = 0;
      lose_jobs (self, error);
    }

  /* Reopen at once if anything is still in flight: the server keeps the
   * session's messages for the next GET. */
  if (need_stream (self))
    stream_open (self);
  else if (self->stream_state != RIV_STREAM_STATE_DISCONNECTED)
    set_stream_state (self, RIV_STREAM_STATE_IDLE);
}

/* libsoup hands out one chunk of a chunked body per read, and a server
 * writes one chunk per message: takes whatever else has already arrived,
 * without a main-loop iteration per message. Sets *end on EOF or an error
 * (then *error is set, or stays NULL for EOF); what came before it is in the
 * buffer and is dispatched first. */
static gssize
stream_read_available (Stream   *st,
                       gssize    n,
                       gboolean *end,
                       GError  **error)
{
  GPollableInputStream *pollable;

  if (!G_IS_POLLABLE_INPUT_STREAM (st->input) ||
      !g_pollable_input_stream_can_poll (G_POLLABLE_INPUT_STREAM (st->input)))
    return n;

  pollable = G_POLLABLE_INPUT_STREAM (st->input);
  while (n < READ_SIZE)
    {
      g_autoptr(GError) local_error = NULL;
      gssize more = g_pollable_input_stream_read_nonblocking (pollable, st->buffer + n,
                                                              READ_SIZE - n, NULL,
                                                              &local_error);

      if (more > 0)
        {
          n += more;
          continue;
        }
      if (more < 0 && g_error_matches (local_error, G_IO_ERROR, G_IO_ERROR_WOULD_BLOCK))
        break;
      *end = TRUE;
      if (more < 0)
        g_propagate_error (error, g_steal_pointer (&local_error));
      break;
    }

  return n;
}

/* Feeds bytes read from st's response to its reader, which dispatches every
 * complete event synchronously, then handles close_stream. Returns FALSE when
 * st was freed (failed, or detached while dispatching); TRUE when it is still
 * alive: attached, or detached by close_stream to read to its end. The caller
 * holds a reference on the client. */
static gboolean
stream_take_bytes (Stream     *st,
                   const char *bytes,
                   gsize       n)
{
  RivClient *self = st->client;
  g_autoptr(GError) feed_error = NULL;

  self->last_bytes_at = riv_now ();

  if (!riv_sse_reader_feed (st->reader, bytes, n, stream_event_cb, st, &feed_error) &&
      st->client != NULL)
    {
      stream_failed (st, feed_error->message);
      stream_free (st);
      return FALSE;
    }

  if (st->client == NULL)
    {
      /* Detached while dispatching (close, liveness, unexpected_error path). */
      stream_free (st);
      return FALSE;
    }

  if (st->got_close)
    stream_end_normally (st);
  return TRUE;
}

static void
stream_read_cb (GObject      *object,
                GAsyncResult *result,
                gpointer      user_data)
{
  Stream *st = user_data;
  g_autoptr(GError) error = NULL;
  g_autoptr(GError) end_error = NULL;
  gboolean end = FALSE;
  RivClient *self;
  gssize n;

  n = g_input_stream_read_finish (G_INPUT_STREAM (object), result, &error);

  /* The read had to wait for data: the loop was free meanwhile. */
  if (riv_now () - st->read_issued_at > 0.002)
    st->busy_since = 0;

  if ((self = st->client) == NULL)
    {
      /* After close_stream: whatever still comes is not for us. */
      if (st->draining && n > 0)
        stream_read_next (st);
      else
        stream_free (st);
      return;
    }

  if (n < 0)
    {
      stream_failed (st, error->message);
      stream_free (st);
      return;
    }

  if (n == 0)
    {
      stream_failed (st, "the server ended the stream without close_stream");
      stream_free (st);
      return;
    }

  n = stream_read_available (st, n, &end, &end_error);
  st->last_read = n;

  /* Handlers of job notifications may drop the last reference to the client. */
  g_object_ref (self);
  if (stream_take_bytes (st, (const char *) st->buffer, n))
    {
      if (!end)
        stream_read_next (st);
      else if (st->client == NULL)
        stream_free (st);   /* close_stream, and the response's end is already here */
      else
        {
          stream_failed (st, end_error != NULL ? end_error->message
                                               : "the server ended the stream without close_stream");
          stream_free (st);
        }
    }
  g_object_unref (self);
}

/* Reads continuously ready for this long pause, so that a GUI's redraw gets
 * its turn even while a generator streams 100,000 updates a second: the
 * pause lasts until nothing above STREAM_YIELD_PRIORITY is ready, which is
 * below GDK's redraw priority (G_PRIORITY_HIGH_IDLE + 20), so a frame that
 * is due is drawn first. Without a main loop that draws, that is at once.
 * STREAM_YIELD_GUARD_MS ends a pause that never gets its turn (a GUI whose
 * frames take longer than their interval), so the stream is never starved. */
#define STREAM_BUSY_SLICE     0.005
#define STREAM_YIELD_PRIORITY (G_PRIORITY_HIGH_IDLE + 21)
#define STREAM_YIELD_GUARD_MS 20

/* A read that returned less than this waits STREAM_GATHER_MS before the next
 * one, so that what arrives meanwhile is read (and dispatched) in one go: a
 * server that writes each message as it happens would otherwise cost one
 * main-loop iteration per message, and during a burst of thousands of jobs
 * those iterations alone left no time for a frame. A full buffer is followed
 * by the next read at once. */
#define STREAM_GATHER_BELOW (READ_SIZE / 4)
#define STREAM_GATHER_MS    1

static void
stream_issue_read (Stream *st)
{
  st->read_issued_at = riv_now ();
  g_input_stream_read_async (st->input, st->buffer, READ_SIZE, st->io_priority,
                             st->cancellable, stream_read_cb, st);
}

static void
stream_pause_end (Stream *st)
{
  if (st->yield_source != NULL)
    {
      g_source_destroy (st->yield_source);
      g_clear_pointer (&st->yield_source, g_source_unref);
    }
  if (st->yield_guard != NULL)
    {
      g_source_destroy (st->yield_guard);
      g_clear_pointer (&st->yield_guard, g_source_unref);
    }
}

static gboolean
stream_yield_cb (gpointer user_data)
{
  Stream *st = user_data;

  stream_pause_end (st);
  /* A detached stream's read fails at once (its cancellable is cancelled)
   * and that frees it, as for any read in flight. */
  stream_issue_read (st);
  return G_SOURCE_REMOVE;
}

static GSource *
stream_pause_source (Stream  *st,
                     GSource *source,
                     int      priority)
{
  g_source_set_priority (source, priority);
  g_source_set_callback (source, stream_yield_cb, st, NULL);
  g_source_attach (source, st->client->context);
  return source;
}

static void
stream_read_next (Stream *st)
{
  double now = riv_now ();

  if (st->client != NULL && !st->draining)
    {
      if (st->last_read > 0 && st->last_read < STREAM_GATHER_BELOW)
        {
          st->busy_since = 0;
          st->yield_source = stream_pause_source (st, g_timeout_source_new (STREAM_GATHER_MS),
                                                  st->io_priority);
          return;
        }

      if (st->busy_since == 0)
        st->busy_since = now;
      else if (now - st->busy_since >= STREAM_BUSY_SLICE)
        {
          st->busy_since = 0;
          st->yield_source = stream_pause_source (st, g_idle_source_new (),
                                                  MAX (st->io_priority, STREAM_YIELD_PRIORITY));
          st->yield_guard = stream_pause_source (st, g_timeout_source_new (STREAM_YIELD_GUARD_MS),
                                                 st->io_priority);
          return;
        }
    }

  stream_issue_read (st);
}

static void
stream_send_cb (GObject      *object,
                GAsyncResult *result,
                gpointer      user_data)
{
  Stream *st = user_data;
  g_autoptr(GError) error = NULL;
  GInputStream *input;
  RivClient *self;
  guint status;

  input = soup_session_send_finish (SOUP_SESSION (object), result, &error);
  st->input = input;

  if ((self = st->client) == NULL)
    {
      stream_free (st);
      return;
    }

  if (input == NULL)
    {
      stream_failed (st, error->message);
      stream_free (st);
      return;
    }

  status = soup_message_get_status (st->msg);
  if (status != SOUP_STATUS_OK)
    {
      g_autofree char *reason = g_strdup_printf ("the stream request failed (HTTP %u)", status);

      stream_failed (st, reason);
      stream_free (st);
      return;
    }

  self->last_bytes_at = riv_now ();
  set_stream_state (self, RIV_STREAM_STATE_CONNECTED);
  stream_read_next (st);
}

/* Liveness ----------------------------------------------------------------------------- */

static gboolean
liveness_cb (gpointer user_data)
{
  RivClient *self = user_data;
  double silent;

  if (self->n_joined == 0 || self->liveness_timeout <= 0)
    return G_SOURCE_CONTINUE;

  silent = riv_now () - MAX (self->last_bytes_at, self->inflight_since);
  if (silent < self->liveness_timeout)
    return G_SOURCE_CONTINUE;

  {
    g_autofree char *error = g_strdup_printf ("No data from the server for %g s",
                                              self->liveness_timeout);

    g_debug ("Liveness: %s", error);
    if (self->stream != NULL)
      stream_detach (self->stream);
    clear_source (&self->reconnect_source);
    self->stream_failures = 0;
    lose_jobs (self, error);
    if (self->stream == NULL && !need_stream (self))
      set_stream_state (self, RIV_STREAM_STATE_DISCONNECTED);
  }

  return G_SOURCE_CONTINUE;
}

/* Runs the watchdog only while joined jobs are in flight. */
static void
liveness_update (RivClient *self)
{
  if (self->n_joined > 0 && !self->closed)
    {
      if (self->liveness_source == NULL && self->liveness_timeout > 0)
        {
          double interval = CLAMP (self->liveness_timeout / 4, 0.05, 1.0);

          self->inflight_since = riv_now ();
          self->liveness_source = attach_timeout (self, interval, liveness_cb, self);
        }
    }
  else
    clear_source (&self->liveness_source);
}

/* Joining ------------------------------------------------------------------------------ */

static void
register_event (RivClient  *self,
                RivJob     *job,
                const char *event_id)
{
  JobCtx *ctx = job_get_ctx (job);
  EarlyEntry *entry;
  GQueue early = G_QUEUE_INIT;

  _riv_job_set_event_id (job, event_id);
  if (!g_hash_table_contains (self->by_event, riv_job_get_event_id (job)))
    g_hash_table_insert (self->by_event, (gpointer) riv_job_get_event_id (job), g_object_ref (job));
  self->session_established = TRUE;

  entry = g_hash_table_lookup (self->early, event_id);
  if (entry != NULL)
    {
      early_unlink (self, entry);
      early = entry->messages;
      g_queue_init (&entry->messages);
      early_entry_free (entry);
    }

  /* Cancelled while the join was in flight: tell the server now. */
  if (riv_job_is_finished (job) || ctx == NULL)
    {
      g_queue_clear_full (&early, (GDestroyNotify) riv_message_free);
      send_cancel (self, job, event_id);
      return;
    }

  ctx->joined = TRUE;
  self->n_joined++;
  liveness_update (self);

  _riv_job_freeze (job);
  _riv_job_set_status (job, RIV_JOB_STATUS_QUEUED);
  _riv_job_add_timeline (job, "joined");
  _riv_job_thaw (job);

  /* Its early messages were dropped: it can never complete. When a flood
   * made the client forget dropped ids, a job that was already joining then
   * and has nothing buffered may be one of them: fail it rather than let it
   * wait forever behind heartbeats. */
  if (g_hash_table_contains (self->poisoned, event_id) ||
      (g_queue_is_empty (&early) && self->poison_overflow_at > 0 &&
       riv_job_get_submitted_at (job) <= self->poison_overflow_at))
    {
      g_queue_clear_full (&early, (GDestroyNotify) riv_message_free);
      finish_job (self, job, RIV_JOB_STATUS_FAILED,
                  "Messages for this job arrived before its join reply and were dropped "
                  "(the client's buffer was full)");
      return;
    }

  /* Replay what arrived before the join reply, in arrival order. */
  while (!g_queue_is_empty (&early))
    {
      RivMessage *msg = g_queue_pop_head (&early);

      if (!riv_job_is_finished (job))
        apply_message (self, job, msg, NULL);
      riv_message_free (msg);
    }

  ensure_stream (self);
}

static void
join_cb (GObject      *object,
         GAsyncResult *result,
         gpointer      user_data)
{
  g_autoptr(Op) op = user_data;
  g_autoptr(GError) error = NULL;
  g_autoptr(GBytes) body = NULL;
  g_autofree char *detail = NULL;
  g_autofree char *text = NULL;
  RivClient *self;
  JobCtx *ctx;
  guint status;

  body = soup_session_send_and_read_finish (SOUP_SESSION (object), result, &error);
  if (op_client_gone (op))
    return;

  self = op->client;
  g_object_ref (self);

  if (op->queued)
    {
      g_queue_unlink (&self->joins, &op->link);
      op->queued = FALSE;
    }

  ctx = job_get_ctx (op->job);
  joining_done (self, ctx);

  if (body == NULL)
    {
      if (op->timed_out)
        text = g_strdup_printf ("The server did not answer the join request within %g s",
                                self->join_timeout);
      else
        text = g_strdup_printf ("Could not join the queue: %s", error->message);
      finish_job (self, op->job, RIV_JOB_STATUS_FAILED, text);
      /* The server cannot be reached at all: say so, rather than leave the
       * stream state at "idle" (which reads as healthy) with no stream open. */
      if (!op->timed_out && self->stream == NULL &&
          !g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
        set_stream_state (self, RIV_STREAM_STATE_DISCONNECTED);
      goto out;
    }

  status = soup_message_get_status (op->msg);
  detail = extract_detail (body);

  if (status == SOUP_STATUS_OK && op->run)
    {
      /* Non-queued endpoint: the reply is the whole result. */
      g_autoptr(JsonNode) root = NULL;
      const char *data;
      gsize len;

      data = g_bytes_get_data (body, &len);
      root = riv_json_parse (NULL, data ? data : "", len, 512, NULL);
      if (root != NULL && JSON_NODE_HOLDS_OBJECT (root) &&
          json_object_has_member (json_node_get_object (root), "data"))
        {
          g_autoptr(RivMessage) msg = NULL;
          g_autoptr(JsonBuilder) builder = json_builder_new ();
          g_autoptr(JsonNode) wrapped = NULL;

          json_builder_begin_object (builder);
          json_builder_set_member_name (builder, "msg");
          json_builder_add_string_value (builder, "process_completed");
          json_builder_set_member_name (builder, "event_id");
          json_builder_add_null_value (builder);
          json_builder_set_member_name (builder, "success");
          json_builder_add_boolean_value (builder, TRUE);
          json_builder_set_member_name (builder, "output");
          json_builder_add_value (builder, json_node_ref (root));
          json_builder_end_object (builder);
          wrapped = json_builder_get_root (builder);
          msg = riv_message_new_from_node (wrapped, NULL);

          if (msg != NULL && ctx != NULL)
            {
              _riv_job_set_status (op->job, RIV_JOB_STATUS_RUNNING);
              apply_message (self, op->job, msg, NULL);
            }
          else
            finish_job (self, op->job, RIV_JOB_STATUS_FAILED,
                        "The server's reply does not match the protocol");
        }
      else
        finish_job (self, op->job, RIV_JOB_STATUS_FAILED,
                    "The server's reply does not match the protocol");
      goto out;
    }

  if (status == SOUP_STATUS_OK)
    {
      g_autoptr(JsonNode) root = NULL;
      const char *event_id = NULL;
      const char *data;
      gsize len;

      data = g_bytes_get_data (body, &len);
      root = riv_json_parse (NULL, data ? data : "", len, 64, NULL);
      if (root != NULL && JSON_NODE_HOLDS_OBJECT (root))
        event_id = riv_json_get_string (json_node_get_object (root), "event_id");

      if (event_id == NULL || *event_id == '\0')
        finish_job (self, op->job, RIV_JOB_STATUS_FAILED,
                    "The server's join reply does not match the protocol (no event_id)");
      else
        register_event (self, op->job, event_id);
      goto out;
    }

  if (status == SOUP_STATUS_SERVICE_UNAVAILABLE)
    text = detail ? g_strdup_printf ("Queue is full: %s", detail) : g_strdup ("Queue is full");
  else if (status >= 400 && status < 500)
    text = detail ? g_strdup (detail)
                  : g_strdup_printf ("The server rejected the job (HTTP %u)", status);
  else if (status >= 500)
    text = detail ? g_strdup_printf ("Server error (HTTP %u): %s", status, detail)
                  : g_strdup_printf ("Server error (HTTP %u)", status);
  else
    text = g_strdup_printf ("Unexpected reply to the join request (HTTP %u)", status);

  finish_job (self, op->job, RIV_JOB_STATUS_FAILED, text);

out:
  /* A job that failed to join may have been the only reason to keep a
   * reconnect loop going. */
  ensure_stream (self);
  g_object_unref (self);
}

/* Cancels joins past their deadline; the queue is in submission order, which
 * is deadline order unless join-timeout changed meanwhile (then a join may
 * time out a little late, never early). */
static gboolean
join_watchdog_cb (gpointer user_data)
{
  RivClient *self = g_object_ref (user_data);
  double now = riv_now ();
  GList *link;

  while ((link = self->joins.head) != NULL && ((Op *) link->data)->deadline <= now)
    {
      Op *op = link->data;

      g_queue_unlink (&self->joins, link);
      op->queued = FALSE;
      op->timed_out = TRUE;
      /* Its callback (maybe right away) fails the job; op is not touched after. */
      g_cancellable_cancel (op->cancellable);
    }

  if (self->joins.length == 0 && self->join_source != NULL)
    {
      g_source_destroy (self->join_source);
      g_clear_pointer (&self->join_source, g_source_unref);
    }

  g_object_unref (self);
  return G_SOURCE_CONTINUE;
}

static JsonNode *
build_join_body (RivClient *self,
                 RivJob    *job)
{
  g_autoptr(JsonBuilder) builder = json_builder_new ();
  JsonNode *inputs = riv_job_get_inputs (job);

  json_builder_begin_object (builder);
  json_builder_set_member_name (builder, "data");
  if (inputs != NULL)
    json_builder_add_value (builder, json_node_copy (inputs));
  else
    {
      json_builder_begin_array (builder);
      json_builder_end_array (builder);
    }
  json_builder_set_member_name (builder, "event_data");
  json_builder_add_null_value (builder);
  json_builder_set_member_name (builder, "fn_index");
  json_builder_add_int_value (builder, riv_job_get_fn_index (job));
  json_builder_set_member_name (builder, "trigger_id");
  json_builder_add_null_value (builder);
  json_builder_set_member_name (builder, "session_hash");
  json_builder_add_string_value (builder, self->session_hash);
  json_builder_end_object (builder);

  return json_builder_get_root (builder);
}

static void
start_join (RivClient *self,
            RivJob    *job)
{
  JobCtx *ctx = job_get_ctx (job);
  g_autoptr(JsonNode) body = build_join_body (self, job);
  g_autoptr(SoupMessage) msg = NULL;
  g_autofree char *run_url = NULL;
  gboolean run = !ctx->endpoint->queue && ctx->endpoint->api_name != NULL;
  Op *op;

  if (run)
    {
      g_autofree char *path = g_strconcat ("/run/", ctx->endpoint->api_name, NULL);

      run_url = riv_config_build_url (self->config, path);
    }

  msg = new_json_post (self, run ? run_url : self->join_url, body);
  if (msg == NULL)
    {
      finish_job (self, job, RIV_JOB_STATUS_FAILED, "Could not build the join request URL");
      return;
    }

  op = op_new (self, job, msg);
  op->run = run;
  op->cancellable = g_cancellable_new ();
  if (self->join_timeout > 0)
    {
      /* One watchdog for all joins instead of one timer each: a burst of
       * thousands of GSources would slow every main-loop iteration. */
      op->deadline = riv_now () + self->join_timeout;
      g_queue_push_tail_link (&self->joins, &op->link);
      op->queued = TRUE;
      if (self->join_source == NULL)
        self->join_source = attach_timeout (self, CLAMP (self->join_timeout / 10, 0.05, 0.5),
                                            join_watchdog_cb, self);
    }
  ctx->counted_joining = TRUE;
  self->n_joining++;
  notify_n_joining (self);

  /* close() aborts the session, which cancels this request too. */
  soup_session_send_and_read_async (self->session, msg, self->io_priority, op->cancellable,
                                    join_cb, op);
}

/* Cancel ------------------------------------------------------------------------------- */

static void
reset_cb (GObject      *object,
          GAsyncResult *result,
          gpointer      user_data)
{
  G_GNUC_UNUSED g_autoptr(Op) op = user_data;   /* freed when we return */
  g_autoptr(GBytes) body = NULL;

  body = soup_session_send_and_read_finish (SOUP_SESSION (object), result, NULL);
}

static gboolean
cancel_grace_cb (gpointer user_data)
{
  RivJob *job = user_data;
  JobCtx *ctx = job_get_ctx (job);

  g_clear_pointer (&ctx->cancel_grace, g_source_unref);
  finish_job (ctx->client, job, RIV_JOB_STATUS_CANCELLED,
              "The server did not confirm the cancellation");
  return G_SOURCE_REMOVE;
}

static void
send_reset (RivClient  *self,
            const char *event_id)
{
  g_autoptr(JsonBuilder) builder = json_builder_new ();
  g_autoptr(JsonNode) body = NULL;
  g_autoptr(SoupMessage) msg = NULL;

  json_builder_begin_object (builder);
  json_builder_set_member_name (builder, "event_id");
  json_builder_add_string_value (builder, event_id);
  json_builder_end_object (builder);
  body = json_builder_get_root (builder);

  msg = new_json_post (self, self->reset_url, body);
  if (msg != NULL)
    soup_session_send_and_read_async (self->session, msg, self->io_priority, self->cancellable,
                                      reset_cb, op_new (self, NULL, msg));
}

static void
cancel_request_cb (GObject      *object,
                   GAsyncResult *result,
                   gpointer      user_data)
{
  g_autoptr(Op) op = user_data;
  g_autoptr(GError) error = NULL;
  g_autoptr(GBytes) body = NULL;
  RivClient *self;
  JobCtx *ctx;
  guint status;

  body = soup_session_send_and_read_finish (SOUP_SESSION (object), result, &error);
  if (op_client_gone (op))
    return;

  self = op->client;
  status = soup_message_get_status (op->msg);

  if (riv_job_get_event_id (op->job) != NULL)
    send_reset (self, riv_job_get_event_id (op->job));

  if (riv_job_is_finished (op->job) || (ctx = job_get_ctx (op->job)) == NULL)
    return;

  if (body != NULL && SOUP_STATUS_IS_SUCCESSFUL (status))
    {
      /* The job ends with the server's completion (cancelled, or completed if
       * it won the race); this only bounds the wait. */
      if (ctx->cancel_grace == NULL)
        ctx->cancel_grace = attach_timeout (self, CANCEL_GRACE_S, cancel_grace_cb, op->job);
      return;
    }

  {
    g_autofree char *why = error ? g_strdup (error->message) : g_strdup_printf ("HTTP %u", status);
    g_autofree char *text = g_strdup_printf ("Cancelled locally; the server did not accept the "
                                             "cancel request (%s)", why);

    finish_job (self, op->job, RIV_JOB_STATUS_CANCELLED, text);
  }
}

static void
send_cancel (RivClient  *self,
             RivJob     *job,
             const char *event_id)
{
  g_autoptr(JsonBuilder) builder = json_builder_new ();
  g_autoptr(JsonNode) body = NULL;
  g_autoptr(SoupMessage) msg = NULL;

  json_builder_begin_object (builder);
  json_builder_set_member_name (builder, "event_id");
  json_builder_add_string_value (builder, event_id);
  json_builder_set_member_name (builder, "session_hash");
  json_builder_add_string_value (builder, self->session_hash);
  json_builder_set_member_name (builder, "fn_index");
  json_builder_add_int_value (builder, riv_job_get_fn_index (job));
  json_builder_end_object (builder);
  body = json_builder_get_root (builder);

  msg = new_json_post (self, self->cancel_url, body);
  if (msg != NULL)
    soup_session_send_and_read_async (self->session, msg, self->io_priority, self->cancellable,
                                      cancel_request_cb, op_new (self, job, msg));
}

/* Connect ------------------------------------------------------------------------------ */

typedef struct
{
  SoupMessage *msg;
  OpCancel    *cancel;
  RivConfig   *config;
} ConnectData;

static void
connect_data_free (ConnectData *cd)
{
  g_clear_object (&cd->msg);
  g_clear_pointer (&cd->cancel, op_cancel_free);
  g_clear_pointer (&cd->config, riv_config_unref);
  g_free (cd);
}

static void
set_config (RivClient *self,
            RivConfig *config)
{
  g_autofree char *data = NULL;
  g_autofree char *escaped = NULL;

  g_clear_pointer (&self->config, riv_config_unref);
  self->config = riv_config_ref (config);

  g_free (self->join_url);
  self->join_url = riv_config_build_url (config, "/queue/join");
  g_free (self->cancel_url);
  self->cancel_url = riv_config_build_url (config, "/cancel");
  g_free (self->reset_url);
  self->reset_url = riv_config_build_url (config, "/reset");
  g_free (self->upload_url);
  self->upload_url = riv_config_build_url (config, "/upload");
  data = riv_config_build_url (config, "/queue/data");
  escaped = g_uri_escape_string (self->session_hash, NULL, FALSE);
  g_free (self->data_url);
  self->data_url = g_strconcat (data, "?session_hash=", escaped, NULL);

  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_CONFIG]);
}

static void
connect_info_cb (GObject      *object,
                 GAsyncResult *result,
                 gpointer      user_data)
{
  g_autoptr(GTask) task = user_data;
  RivClient *self = g_task_get_source_object (task);
  ConnectData *cd = g_task_get_task_data (task);
  g_autoptr(GError) error = NULL;
  g_autoptr(GBytes) body = NULL;
  guint status;

  body = soup_session_send_and_read_finish (SOUP_SESSION (object), result, &error);

  if (g_cancellable_is_cancelled (cd->cancel->user) || self->closed)
    {
      g_task_return_new_error (task, G_IO_ERROR, G_IO_ERROR_CANCELLED, "Operation was cancelled");
      return;
    }

  /* Like the JS client: /info is nice to have, its failure is only logged. */
  status = soup_message_get_status (cd->msg);
  if (body == NULL)
    g_message ("Could not load the server's API info: %s", error->message);
  else if (status != SOUP_STATUS_OK)
    g_message ("Could not load the server's API info (HTTP %u)", status);

  set_config (self, cd->config);
  g_task_return_boolean (task, TRUE);
}

static void
connect_config_cb (GObject      *object,
                   GAsyncResult *result,
                   gpointer      user_data)
{
  g_autoptr(GTask) task = user_data;
  RivClient *self = g_task_get_source_object (task);
  ConnectData *cd = g_task_get_task_data (task);
  g_autoptr(GError) error = NULL;
  g_autoptr(GBytes) body = NULL;
  g_autoptr(RivConfig) config = NULL;
  g_autofree char *info_url = NULL;
  const char *data;
  guint status;
  gsize len = 0;

  body = soup_session_send_and_read_finish (SOUP_SESSION (object), result, &error);
  if (body == NULL)
    {
      if (cd->cancel->timed_out)
        g_task_return_new_error (task, G_IO_ERROR, G_IO_ERROR_TIMED_OUT,
                                 "Could not connect to %s: no answer within %g s",
                                 self->url, CONNECT_TIMEOUT_S);
      else if (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
        g_task_return_error (task, g_steal_pointer (&error));
      else
        {
          g_prefix_error (&error, "Could not connect to %s: ", self->url);
          g_task_return_error (task, g_steal_pointer (&error));
        }
      return;
    }

  status = soup_message_get_status (cd->msg);
  if (status != SOUP_STATUS_OK)
    {
      g_autofree char *detail = extract_detail (body);
      int code = (status == 401 || status == 403) ? RIV_CLIENT_ERROR_REJECTED
               : status >= 500 ? RIV_CLIENT_ERROR_SERVER
               : RIV_CLIENT_ERROR_NOT_GRADIO;

      if (detail != NULL)
        g_task_return_new_error (task, RIV_CLIENT_ERROR, code,
                                 "Could not load the server's config (HTTP %u): %s",
                                 status, detail);
      else
        g_task_return_new_error (task, RIV_CLIENT_ERROR, code,
                                 "Could not load the server's config (HTTP %u)", status);
      return;
    }

  data = g_bytes_get_data (body, &len);
  config = riv_config_new_from_data (data ? data : "", len, self->url, &error);
  if (config == NULL)
    {
      if (g_error_matches (error, RIV_CONFIG_ERROR, RIV_CONFIG_ERROR_UNSUPPORTED_PROTOCOL))
        g_task_return_new_error (task, RIV_CLIENT_ERROR, RIV_CLIENT_ERROR_UNSUPPORTED,
                                 "%s", error->message);
      else
        g_task_return_new_error (task, RIV_CLIENT_ERROR, RIV_CLIENT_ERROR_NOT_GRADIO,
                                 "The server at %s does not look like a Gradio app: %s",
                                 self->url, error->message);
      return;
    }

  cd->config = g_steal_pointer (&config);

  info_url = riv_config_build_url (cd->config, "/info");
  g_clear_object (&cd->msg);
  cd->msg = soup_message_new (SOUP_METHOD_GET, info_url);
  if (cd->msg == NULL)
    {
      g_message ("Could not load the server's API info: bad URL %s", info_url);
      set_config (self, cd->config);
      g_task_return_boolean (task, TRUE);
      return;
    }
  prepare_message (self, cd->msg);
  soup_session_send_and_read_async (self->session, cd->msg, self->io_priority,
                                    cd->cancel->cancellable, connect_info_cb,
                                    g_steal_pointer (&task));
}

/* Upload ------------------------------------------------------------------------------- */

static void
upload_cb (GObject      *object,
           GAsyncResult *result,
           gpointer      user_data)
{
  g_autoptr(GTask) task = user_data;
  ConnectData *cd = g_task_get_task_data (task);
  g_autoptr(GError) error = NULL;
  g_autoptr(GBytes) body = NULL;
  g_autoptr(JsonNode) root = NULL;
  const char *data;
  guint status;
  gsize len = 0;

  body = soup_session_send_and_read_finish (SOUP_SESSION (object), result, &error);
  if (body == NULL)
    {
      if (cd->cancel->timed_out)
        g_task_return_new_error (task, G_IO_ERROR, G_IO_ERROR_TIMED_OUT,
                                 "The upload did not finish within %g s", UPLOAD_TIMEOUT_S);
      else
        g_task_return_error (task, g_steal_pointer (&error));
      return;
    }

  status = soup_message_get_status (cd->msg);
  if (!SOUP_STATUS_IS_SUCCESSFUL (status))
    {
      g_autofree char *detail = extract_detail (body);

      g_task_return_new_error (task, RIV_CLIENT_ERROR,
                               status >= 500 ? RIV_CLIENT_ERROR_SERVER : RIV_CLIENT_ERROR_REJECTED,
                               "Upload failed (HTTP %u)%s%s", status,
                               detail ? ": " : "", detail ? detail : "");
      return;
    }

  data = g_bytes_get_data (body, &len);
  root = riv_json_parse (NULL, data ? data : "", len, 16, NULL);
  if (root != NULL && JSON_NODE_HOLDS_ARRAY (root) &&
      json_array_get_length (json_node_get_array (root)) > 0)
    {
      JsonNode *first = json_array_get_element (json_node_get_array (root), 0);

      if (JSON_NODE_HOLDS_VALUE (first) && json_node_get_value_type (first) == G_TYPE_STRING)
        {
          g_task_return_pointer (task, g_strdup (json_node_get_string (first)), g_free);
          return;
        }
    }

  g_task_return_new_error (task, RIV_CLIENT_ERROR, RIV_CLIENT_ERROR_PROTOCOL,
                           "The upload reply is not a list of paths");
}

/* GObject ------------------------------------------------------------------------------ */

static void
riv_client_constructed (GObject *object)
{
  RivClient *self = RIV_CLIENT (object);
  char *normalized;

  G_OBJECT_CLASS (riv_client_parent_class)->constructed (object);

  normalized = riv_client_normalize_url (self->url, NULL);
  if (normalized != NULL)
    {
      g_free (self->url);
      self->url = normalized;
    }
}

static void
riv_client_dispose (GObject *object)
{
  RivClient *self = RIV_CLIENT (object);

  self->disposing = TRUE;
  riv_client_close (self);

  G_OBJECT_CLASS (riv_client_parent_class)->dispose (object);
}

static void
riv_client_finalize (GObject *object)
{
  RivClient *self = RIV_CLIENT (object);

  g_assert (self->stream == NULL);

  /* close() emptied the early buffer; its queue links live in the entries. */
  g_clear_pointer (&self->early, g_hash_table_unref);
  g_queue_clear_full (&self->poisoned_order, g_free);
  g_clear_pointer (&self->poisoned, g_hash_table_unref);
  g_clear_pointer (&self->by_event, g_hash_table_unref);
  g_clear_object (&self->jobs);
  g_clear_object (&self->parser);
  g_clear_object (&self->session);
  g_clear_object (&self->cancellable);
  g_clear_pointer (&self->context, g_main_context_unref);
  g_clear_pointer (&self->config, riv_config_unref);
  g_free (self->url);
  g_free (self->token);
  g_free (self->session_hash);
  g_free (self->join_url);
  g_free (self->data_url);
  g_free (self->cancel_url);
  g_free (self->reset_url);
  g_free (self->upload_url);

  G_OBJECT_CLASS (riv_client_parent_class)->finalize (object);
}

static void
riv_client_get_property (GObject    *object,
                         guint       prop_id,
                         GValue     *value,
                         GParamSpec *pspec)
{
  RivClient *self = RIV_CLIENT (object);

  switch (prop_id)
    {
    case PROP_URL:
      g_value_set_string (value, self->url);
      break;
    case PROP_TOKEN:
      g_value_set_string (value, self->token);
      break;
    case PROP_CONFIG:
      g_value_set_boxed (value, self->config);
      break;
    case PROP_STREAM_STATE:
      g_value_set_enum (value, self->stream_state);
      break;
    case PROP_JOBS:
      g_value_set_object (value, self->jobs);
      break;
    case PROP_LIVENESS_TIMEOUT:
      g_value_set_double (value, self->liveness_timeout);
      break;
    case PROP_JOIN_TIMEOUT:
      g_value_set_double (value, self->join_timeout);
      break;
    case PROP_SESSION_HASH:
      g_value_set_string (value, self->session_hash);
      break;
    case PROP_N_PENDING:
      g_value_set_uint (value, self->n_pending);
      break;
    case PROP_N_JOINING:
      g_value_set_uint (value, self->n_joining);
      break;
    case PROP_DOWNLOAD_IMAGES:
      g_value_set_boolean (value, self->download_images);
      break;

    case PROP_IO_PRIORITY:
      g_value_set_int (value, self->io_priority);
      break;

    case PROP_PUBLISH_INTERVAL:
      g_value_set_double (value, self->publish_interval);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
riv_client_set_property (GObject      *object,
                         guint         prop_id,
                         const GValue *value,
                         GParamSpec   *pspec)
{
  RivClient *self = RIV_CLIENT (object);

  switch (prop_id)
    {
    case PROP_URL:
      self->url = g_value_dup_string (value);
      break;
    case PROP_TOKEN:
      riv_client_set_token (self, g_value_get_string (value));
      break;
    case PROP_LIVENESS_TIMEOUT:
      riv_client_set_liveness_timeout (self, g_value_get_double (value));
      break;
    case PROP_JOIN_TIMEOUT:
      riv_client_set_join_timeout (self, g_value_get_double (value));
      break;
    case PROP_DOWNLOAD_IMAGES:
      riv_client_set_download_images (self, g_value_get_boolean (value));
      break;

    case PROP_IO_PRIORITY:
      riv_client_set_io_priority (self, g_value_get_int (value));
      break;

    case PROP_PUBLISH_INTERVAL:
      riv_client_set_publish_interval (self, g_value_get_double (value));
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
riv_client_class_init (RivClientClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->constructed = riv_client_constructed;
  object_class->dispose = riv_client_dispose;
  object_class->finalize = riv_client_finalize;
  object_class->get_property = riv_client_get_property;
  object_class->set_property = riv_client_set_property;

  properties[PROP_URL] =
    g_param_spec_string ("url", NULL, NULL, NULL,
                         G_PARAM_READWRITE | G_PARAM_CONSTRUCT_ONLY | G_PARAM_STATIC_STRINGS);
  properties[PROP_TOKEN] =
    g_param_spec_string ("token", NULL, NULL, NULL,
                         G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  properties[PROP_CONFIG] =
    g_param_spec_boxed ("config", NULL, NULL, RIV_TYPE_CONFIG,
                        G_PARAM_READABLE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  properties[PROP_STREAM_STATE] =
    g_param_spec_enum ("stream-state", NULL, NULL, RIV_TYPE_STREAM_STATE, RIV_STREAM_STATE_IDLE,
                       G_PARAM_READABLE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  properties[PROP_JOBS] =
    g_param_spec_object ("jobs", NULL, NULL, G_TYPE_LIST_MODEL,
                         G_PARAM_READABLE | G_PARAM_STATIC_STRINGS);
  properties[PROP_LIVENESS_TIMEOUT] =
    g_param_spec_double ("liveness-timeout", NULL, NULL, 0, G_MAXDOUBLE, 45,
                         G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  properties[PROP_JOIN_TIMEOUT] =
    g_param_spec_double ("join-timeout", NULL, NULL, 0, G_MAXDOUBLE, 60,
                         G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  properties[PROP_SESSION_HASH] =
    g_param_spec_string ("session-hash", NULL, NULL, NULL,
                         G_PARAM_READABLE | G_PARAM_STATIC_STRINGS);
  properties[PROP_N_PENDING] =
    g_param_spec_uint ("n-pending", NULL, NULL, 0, G_MAXUINT, 0,
                       G_PARAM_READABLE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  /* Jobs whose join request has no reply yet. */
  properties[PROP_N_JOINING] =
    g_param_spec_uint ("n-joining", NULL, NULL, 0, G_MAXUINT, 0,
                       G_PARAM_READABLE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  properties[PROP_DOWNLOAD_IMAGES] =
    g_param_spec_boolean ("download-images", NULL, NULL, TRUE,
                          G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);

  /* A GUI sets this below GDK's redraw priority, so that a burst's replies
   * never starve drawing; headless tools keep the default for throughput. */
  properties[PROP_IO_PRIORITY] =
    g_param_spec_int ("io-priority", NULL, NULL, G_MININT, G_MAXINT, G_PRIORITY_DEFAULT,
                      G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);

  properties[PROP_PUBLISH_INTERVAL] =
    g_param_spec_double ("publish-interval", NULL, NULL, 0, 10, 0.02,
                         G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);

  g_object_class_install_properties (object_class, N_PROPS, properties);

  signals[SIGNAL_JOB_FINISHED] =
    g_signal_new ("job-finished", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST,
                  0, NULL, NULL, NULL, G_TYPE_NONE, 1, RIV_TYPE_JOB);
  signals[SIGNAL_STREAM_ERROR] =
    g_signal_new ("stream-error", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST,
                  0, NULL, NULL, NULL, G_TYPE_NONE, 1, G_TYPE_STRING);
}

static void
riv_client_init (RivClient *self)
{
  self->context = g_main_context_ref_thread_default ();
  self->cancellable = g_cancellable_new ();
  /* "timeout" 0: an SSE stream may be quiet for long (liveness has its own
   * watchdog). "idle-timeout" below the usual server keep-alive (uvicorn: 5 s),
   * so a reused connection is rarely one the server is just closing. */
  self->session = soup_session_new_with_options ("timeout", 0,
                                                 "idle-timeout", 4,
                                                 "max-conns-per-host", 12,
                                                 "max-conns", 24,
                                                 "user-agent", "rivulet/" PACKAGE_VERSION,
                                                 NULL);
  self->jobs = g_list_store_new (RIV_TYPE_JOB);
  self->by_event = g_hash_table_new_full (g_str_hash, g_str_equal, NULL, g_object_unref);
  self->early = g_hash_table_new_full (g_str_hash, g_str_equal, NULL,
                                       (GDestroyNotify) early_entry_free);
  self->poisoned = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  g_queue_init (&self->early_order);
  g_queue_init (&self->poisoned_order);
  g_queue_init (&self->joins);
  self->parser = json_parser_new ();
  self->session_hash = generate_session_hash ();
  self->liveness_timeout = 45;
  self->join_timeout = 60;
  self->download_images = TRUE;
  self->io_priority = G_PRIORITY_DEFAULT;
  self->publish_interval = 0.02;
  self->stream_state = RIV_STREAM_STATE_IDLE;
}

/* Public API --------------------------------------------------------------------------- */

RivClient *
riv_client_new (const char *url)
{
  return g_object_new (RIV_TYPE_CLIENT, "url", url, NULL);
}

char *
riv_client_normalize_url (const char  *url,
                          GError     **error)
{
  g_autofree char *trimmed = NULL;
  g_autofree char *with_scheme = NULL;
  g_autoptr(GUri) uri = NULL;
  g_autoptr(GError) local_error = NULL;
  g_autoptr(GString) result = NULL;
  g_autofree char *lower_host = NULL;
  const char *scheme;
  const char *host;
  const char *path;
  gsize path_len;
  int port;

  if (url == NULL || *(trimmed = g_strstrip (g_strdup (url))) == '\0')
    {
      g_set_error_literal (error, RIV_CLIENT_ERROR, RIV_CLIENT_ERROR_BAD_URL,
                           "The server URL is empty");
      return NULL;
    }

  for (const char *p = trimmed; *p; p++)
    if (g_ascii_isspace (*p))
      {
        g_set_error (error, RIV_CLIENT_ERROR, RIV_CLIENT_ERROR_BAD_URL,
                     "The server URL \"%s\" contains spaces", trimmed);
        return NULL;
      }

  if (strstr (trimmed, "://") == NULL)
    with_scheme = g_strconcat ("http://", trimmed, NULL);
  else
    with_scheme = g_strdup (trimmed);

  uri = g_uri_parse (with_scheme, G_URI_FLAGS_NONE, &local_error);
  if (uri == NULL)
    {
      g_set_error (error, RIV_CLIENT_ERROR, RIV_CLIENT_ERROR_BAD_URL,
                   "\"%s\" is not a valid URL: %s", trimmed, local_error->message);
      return NULL;
    }

  scheme = g_uri_get_scheme (uri);
  if (g_ascii_strcasecmp (scheme, "http") != 0 && g_ascii_strcasecmp (scheme, "https") != 0)
    {
      g_set_error (error, RIV_CLIENT_ERROR, RIV_CLIENT_ERROR_BAD_URL,
                   "Only http and https URLs are supported, not \"%s\"", scheme);
      return NULL;
    }

  host = g_uri_get_host (uri);
  if (host == NULL || *host == '\0')
    {
      g_set_error (error, RIV_CLIENT_ERROR, RIV_CLIENT_ERROR_BAD_URL,
                   "The URL \"%s\" has no host", trimmed);
      return NULL;
    }

  if (g_uri_get_fragment (uri) != NULL)
    {
      g_set_error (error, RIV_CLIENT_ERROR, RIV_CLIENT_ERROR_BAD_URL,
                   "The URL \"%s\" has a fragment (#…); give the app's base URL", trimmed);
      return NULL;
    }

  if (g_uri_get_userinfo (uri) != NULL)
    {
      g_set_error (error, RIV_CLIENT_ERROR, RIV_CLIENT_ERROR_BAD_URL,
                   "The URL \"%s\" contains credentials; use a token instead", trimmed);
      return NULL;
    }

  /* A query (e.g. "?view=api" copied from a browser) is dropped: every route
   * is built by appending a path to the base URL. */
  result = g_string_new (NULL);
  g_string_append (result, g_ascii_strcasecmp (scheme, "https") == 0 ? "https://" : "http://");
  lower_host = g_ascii_strdown (host, -1);
  if (strchr (lower_host, ':') != NULL)
    g_string_append_printf (result, "[%s]", lower_host);
  else
    g_string_append (result, lower_host);
  port = g_uri_get_port (uri);
  if (port > 0)
    g_string_append_printf (result, ":%d", port);

  path = g_uri_get_path (uri);
  path_len = strlen (path);
  while (path_len > 0 && path[path_len - 1] == '/')
    path_len--;
  if (path_len > 0 && path[0] != '/')
    g_string_append_c (result, '/');
  g_string_append_len (result, path, path_len);

  return g_string_free (g_steal_pointer (&result), FALSE);
}

const char *
riv_client_get_url (RivClient *self)
{
  g_return_val_if_fail (RIV_IS_CLIENT (self), NULL);
  return self->url;
}

void
riv_client_set_token (RivClient  *self,
                      const char *token)
{
  g_return_if_fail (RIV_IS_CLIENT (self));

  if (token != NULL && *token == '\0')
    token = NULL;
  if (riv_set_str (&self->token, token))
    g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_TOKEN]);
}

void
riv_client_connect_async (RivClient           *self,
                          GCancellable        *cancellable,
                          GAsyncReadyCallback  callback,
                          gpointer             user_data)
{
  g_autoptr(GTask) task = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *normalized = NULL;
  g_autofree char *config_url = NULL;
  ConnectData *cd;

  g_return_if_fail (RIV_IS_CLIENT (self));

  task = g_task_new (self, cancellable, callback, user_data);
  g_task_set_source_tag (task, riv_client_connect_async);

  if (self->closed)
    {
      g_task_return_new_error (task, RIV_CLIENT_ERROR, RIV_CLIENT_ERROR_NOT_CONNECTED,
                               "The client was closed");
      return;
    }

  normalized = riv_client_normalize_url (self->url, &error);
  if (normalized == NULL)
    {
      g_task_return_error (task, g_steal_pointer (&error));
      return;
    }

  config_url = g_strconcat (normalized, "/config", NULL);
  cd = g_new0 (ConnectData, 1);
  cd->msg = soup_message_new (SOUP_METHOD_GET, config_url);
  cd->cancel = op_cancel_new (self, cancellable, CONNECT_TIMEOUT_S);
  g_task_set_task_data (task, cd, (GDestroyNotify) connect_data_free);

  if (cd->msg == NULL)
    {
      g_task_return_new_error (task, RIV_CLIENT_ERROR, RIV_CLIENT_ERROR_BAD_URL,
                               "\"%s\" is not a valid URL", config_url);
      return;
    }
  prepare_message (self, cd->msg);

  soup_session_send_and_read_async (self->session, cd->msg, self->io_priority,
                                    cd->cancel->cancellable, connect_config_cb,
                                    g_steal_pointer (&task));
}

gboolean
riv_client_connect_finish (RivClient     *self,
                           GAsyncResult  *result,
                           GError       **error)
{
  g_return_val_if_fail (g_task_is_valid (result, self), FALSE);
  return g_task_propagate_boolean (G_TASK (result), error);
}

RivConfig *
riv_client_get_config (RivClient *self)
{
  g_return_val_if_fail (RIV_IS_CLIENT (self), NULL);
  return self->config;
}

/* riv_client_submit() up to its join request. */
static RivJob *
submit_job (RivClient   *self,
            const char  *endpoint,
            JsonNode    *data,
            GError     **error)
{
  g_autoptr(JsonNode) inputs = NULL;
  g_autofree char *display = NULL;
  RivEndpoint *ep;
  JsonArray *given = NULL;
  JsonArray *payload;
  RivJob *job;
  JobCtx *ctx;
  guint n_inputs;
  guint n_given = 0;

  if (self->closed || self->config == NULL)
    {
      g_set_error_literal (error, RIV_CLIENT_ERROR, RIV_CLIENT_ERROR_NOT_CONNECTED,
                           self->closed ? "The client was closed" : "Not connected to a server");
      return NULL;
    }

  ep = riv_config_find_endpoint (self->config, endpoint);
  if (ep == NULL)
    {
      g_set_error (error, RIV_CLIENT_ERROR, RIV_CLIENT_ERROR_NO_ENDPOINT,
                   "The server has no endpoint \"%s\"", endpoint ? endpoint : "");
      return NULL;
    }

  if (data != NULL && !JSON_NODE_HOLDS_NULL (data))
    {
      if (!JSON_NODE_HOLDS_ARRAY (data))
        {
          g_set_error_literal (error, RIV_CLIENT_ERROR, RIV_CLIENT_ERROR_BAD_INPUT,
                               "The input data must be a JSON array (one value per input)");
          return NULL;
        }
      given = json_node_get_array (data);
      n_given = json_array_get_length (given);
    }

  n_inputs = riv_endpoint_get_n_inputs (ep);
  if (n_given > n_inputs)
    {
      g_set_error (error, RIV_CLIENT_ERROR, RIV_CLIENT_ERROR_BAD_INPUT,
                   "Too many input values: the endpoint takes %u, got %u", n_inputs, n_given);
      return NULL;
    }

  /* One value per input, by position: missing ones and state inputs are null. */
  payload = json_array_sized_new (n_inputs);
  for (guint i = 0; i < n_inputs; i++)
    {
      RivComponent *component = g_ptr_array_index (ep->inputs, i);

      if (i < n_given && !(component != NULL && component->is_state))
        json_array_add_element (payload, json_node_copy (json_array_get_element (given, i)));
      else
        json_array_add_null_element (payload);
    }
  inputs = json_node_new (JSON_NODE_ARRAY);
  json_node_take_array (inputs, payload);

  display = riv_endpoint_dup_display_name (ep);
  job = _riv_job_new (++self->next_number, display, ep->fn_index, inputs);

  ctx = g_new0 (JobCtx, 1);
  ctx->client = self;
  ctx->job = job;
  ctx->config = riv_config_ref (self->config);
  ctx->endpoint = ep;
  _riv_job_set_owner_data (job, ctx, job_ctx_free);

  self->n_pending++;
  g_list_store_append (self->jobs, job);

  _riv_job_add_timeline (job, "submitted");
  _riv_job_set_status (job, RIV_JOB_STATUS_JOINING);
  notify_n_pending (self);

  return job;
}

RivJob *
riv_client_submit (RivClient   *self,
                   const char  *endpoint,
                   JsonNode    *data,
                   GError     **error)
{
  RivJob *job;

  g_return_val_if_fail (RIV_IS_CLIENT (self), NULL);

  job = submit_job (self, endpoint, data, error);
  if (job != NULL)
    start_join (self, job);
  return job;
}

void
riv_client_cancel (RivClient *self,
                   RivJob    *job)
{
  JobCtx *ctx;

  g_return_if_fail (RIV_IS_CLIENT (self));
  g_return_if_fail (RIV_IS_JOB (job));

  if (riv_job_is_finished (job) || (ctx = job_get_ctx (job)) == NULL || ctx->client != self)
    return;

  /* Not joined yet: cancelled at once; the join reply, when it comes, only
   * tells the server. */
  if (!ctx->joined)
    {
      finish_job (self, job, RIV_JOB_STATUS_CANCELLED, NULL);
      return;
    }

  if (ctx->cancel_requested)
    return;

  ctx->cancel_requested = TRUE;
  _riv_job_add_timeline (job, "cancel requested");
  send_cancel (self, job, riv_job_get_event_id (job));
}

void
riv_client_cancel_all (RivClient *self)
{
  g_autoptr(GPtrArray) pending = g_ptr_array_new_with_free_func (g_object_unref);
  guint n;

  g_return_if_fail (RIV_IS_CLIENT (self));

  n = g_list_model_get_n_items (G_LIST_MODEL (self->jobs));
  for (guint i = 0; i < n; i++)
    {
      g_autoptr(RivJob) job = g_list_model_get_item (G_LIST_MODEL (self->jobs), i);

      if (!riv_job_is_finished (job))
        g_ptr_array_add (pending, g_steal_pointer (&job));
    }

  for (guint i = 0; i < pending->len; i++)
    riv_client_cancel (self, g_ptr_array_index (pending, i));
}

guint
riv_client_clear_finished (RivClient *self)
{
  g_autoptr(GPtrArray) kept = g_ptr_array_new_with_free_func (g_object_unref);
  guint n, removed;

  g_return_val_if_fail (RIV_IS_CLIENT (self), 0);

  n = g_list_model_get_n_items (G_LIST_MODEL (self->jobs));
  for (guint i = 0; i < n; i++)
    {
      g_autoptr(RivJob) job = g_list_model_get_item (G_LIST_MODEL (self->jobs), i);

      if (riv_job_is_finished (job))
        {
          const char *event_id = riv_job_get_event_id (job);

          if (event_id != NULL && g_hash_table_lookup (self->by_event, event_id) == job)
            g_hash_table_remove (self->by_event, event_id);
        }
      else
        g_ptr_array_add (kept, g_steal_pointer (&job));
    }

  removed = n - kept->len;
  if (removed > 0)
    g_list_store_splice (self->jobs, 0, n, kept->pdata, kept->len);

  return removed;
}

GListModel *
riv_client_get_jobs (RivClient *self)
{
  g_return_val_if_fail (RIV_IS_CLIENT (self), NULL);
  return G_LIST_MODEL (self->jobs);
}

RivStreamState
riv_client_get_stream_state (RivClient *self)
{
  g_return_val_if_fail (RIV_IS_CLIENT (self), RIV_STREAM_STATE_IDLE);
  return self->stream_state;
}

guint
riv_client_get_n_pending (RivClient *self)
{
  g_return_val_if_fail (RIV_IS_CLIENT (self), 0);
  return self->n_pending;
}

guint
riv_client_get_n_joining (RivClient *self)
{
  g_return_val_if_fail (RIV_IS_CLIENT (self), 0);
  return self->n_joining;
}

const char *
riv_client_get_session_hash (RivClient *self)
{
  g_return_val_if_fail (RIV_IS_CLIENT (self), NULL);
  return self->session_hash;
}

void
riv_client_set_liveness_timeout (RivClient *self,
                                 double     seconds)
{
  g_return_if_fail (RIV_IS_CLIENT (self));

  seconds = MAX (seconds, 0);
  if (self->liveness_timeout == seconds)
    return;

  self->liveness_timeout = seconds;
  /* Restart the watchdog with the new interval. */
  clear_source (&self->liveness_source);
  liveness_update (self);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_LIVENESS_TIMEOUT]);
}

void
riv_client_set_join_timeout (RivClient *self,
                             double     seconds)
{
  g_return_if_fail (RIV_IS_CLIENT (self));

  seconds = MAX (seconds, 0);
  if (self->join_timeout == seconds)
    return;

  self->join_timeout = seconds;
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_JOIN_TIMEOUT]);
}

void
riv_client_set_io_priority (RivClient *self,
                            int        priority)
{
  g_return_if_fail (RIV_IS_CLIENT (self));

  if (self->io_priority == priority)
    return;

  /* Takes effect for operations started from now on (the next stream, the next join). */
  self->io_priority = priority;
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_IO_PRIORITY]);
}

void
riv_client_set_publish_interval (RivClient *self,
                                 double     seconds)
{
  g_return_if_fail (RIV_IS_CLIENT (self));

  seconds = CLAMP (seconds, 0, 10);
  if (self->publish_interval == seconds)
    return;

  self->publish_interval = seconds;
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_PUBLISH_INTERVAL]);
}

void
riv_client_set_download_images (RivClient *self,
                                gboolean   download)
{
  g_return_if_fail (RIV_IS_CLIENT (self));

  download = !!download;
  if (self->download_images == (guint) download)
    return;

  self->download_images = download;
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_DOWNLOAD_IMAGES]);
}

void
riv_client_upload_async (RivClient           *self,
                         GBytes              *contents,
                         const char          *filename,
                         GCancellable        *cancellable,
                         GAsyncReadyCallback  callback,
                         gpointer             user_data)
{
  g_autoptr(GTask) task = NULL;
  g_autoptr(SoupMultipart) multipart = NULL;
  g_autofree char *content_type = NULL;
  g_autofree char *mime = NULL;
  ConnectData *cd;

  g_return_if_fail (RIV_IS_CLIENT (self));
  g_return_if_fail (contents != NULL);

  task = g_task_new (self, cancellable, callback, user_data);
  g_task_set_source_tag (task, riv_client_upload_async);

  if (self->closed || self->config == NULL)
    {
      g_task_return_new_error (task, RIV_CLIENT_ERROR, RIV_CLIENT_ERROR_NOT_CONNECTED, "%s",
                               self->closed ? "The client was closed"
                                            : "Not connected to a server");
      return;
    }

  if (filename == NULL || *filename == '\0')
    filename = "blob";

  content_type = g_content_type_guess (filename, g_bytes_get_data (contents, NULL),
                                       g_bytes_get_size (contents), NULL);
  mime = g_content_type_get_mime_type (content_type);

  multipart = soup_multipart_new (SOUP_FORM_MIME_TYPE_MULTIPART);
  soup_multipart_append_form_file (multipart, "files", filename,
                                   mime ? mime : "application/octet-stream", contents);

  cd = g_new0 (ConnectData, 1);
  cd->msg = soup_message_new_from_multipart (self->upload_url, multipart);
  cd->cancel = op_cancel_new (self, cancellable, UPLOAD_TIMEOUT_S);
  g_task_set_task_data (task, cd, (GDestroyNotify) connect_data_free);
  prepare_message (self, cd->msg);

  soup_session_send_and_read_async (self->session, cd->msg, self->io_priority,
                                    cd->cancel->cancellable, upload_cb, g_steal_pointer (&task));
}

char *
riv_client_upload_finish (RivClient     *self,
                          GAsyncResult  *result,
                          GError       **error)
{
  g_return_val_if_fail (g_task_is_valid (result, self), NULL);
  return g_task_propagate_pointer (G_TASK (result), error);
}

void
riv_client_close (RivClient *self)
{
  g_autoptr(GPtrArray) pending = g_ptr_array_new_with_free_func (g_object_unref);
  guint n;

  g_return_if_fail (RIV_IS_CLIENT (self));

  if (self->closed)
    return;

  g_object_ref (self);
  self->closed = TRUE;

  /* Every callback checks this first and then leaves the client alone. */
  g_cancellable_cancel (self->cancellable);

  if (self->stream != NULL)
    stream_detach (self->stream);
  clear_source (&self->reconnect_source);
  clear_source (&self->liveness_source);
  clear_source (&self->join_source);
  clear_source (&self->publish_source);
  g_clear_pointer (&self->unpublished, g_ptr_array_unref);
  /* The joins themselves are cancelled by soup_session_abort() below. */
  {
    GList *link;

    while ((link = g_queue_pop_head_link (&self->joins)) != NULL)
      ((Op *) link->data)->queued = FALSE;
  }

  n = g_list_model_get_n_items (G_LIST_MODEL (self->jobs));
  for (guint i = 0; i < n; i++)
    {
      g_autoptr(RivJob) job = g_list_model_get_item (G_LIST_MODEL (self->jobs), i);

      if (!riv_job_is_finished (job))
        g_ptr_array_add (pending, g_steal_pointer (&job));
    }
  for (guint i = 0; i < pending->len; i++)
    finish_job (self, g_ptr_array_index (pending, i), RIV_JOB_STATUS_CANCELLED,
                "The client was closed");

  g_hash_table_remove_all (self->early);
  g_queue_init (&self->early_order);
  self->early_count = 0;
  self->early_bytes = 0;
  if (self->n_joining != 0)
    {
      self->n_joining = 0;
      notify_n_joining (self);
    }

  soup_session_abort (self->session);
  set_stream_state (self, RIV_STREAM_STATE_IDLE);

  g_object_unref (self);
}

guint64
riv_client_get_n_messages (RivClient *self)
{
  g_return_val_if_fail (RIV_IS_CLIENT (self), 0);
  return self->n_messages;
}

/* Private ------------------------------------------------------------------------------ */

guint
_riv_client_get_n_early (RivClient *self)
{
  g_return_val_if_fail (RIV_IS_CLIENT (self), 0);
  return self->early_count;
}

gsize
_riv_client_get_early_bytes (RivClient *self)
{
  g_return_val_if_fail (RIV_IS_CLIENT (self), 0);
  return self->early_bytes;
}

guint64
_riv_client_get_n_early_dropped (RivClient *self)
{
  g_return_val_if_fail (RIV_IS_CLIENT (self), 0);
  return self->early_dropped;
}

guint
_riv_client_get_n_streams (RivClient *self)
{
  g_return_val_if_fail (RIV_IS_CLIENT (self), 0);
  return self->n_streams;
}

void
_riv_client_connect_local_for_testing (RivClient *self,
                                       RivConfig *config)
{
  g_return_if_fail (RIV_IS_CLIENT (self));
  g_return_if_fail (config != NULL);
  g_return_if_fail (self->stream == NULL);

  self->local_stream = TRUE;
  set_config (self, config);
}

RivJob *
_riv_client_submit_joined_for_testing (RivClient   *self,
                                       const char  *endpoint,
                                       JsonNode    *data,
                                       const char  *event_id,
                                       GError     **error)
{
  RivJob *job;

  g_return_val_if_fail (RIV_IS_CLIENT (self), NULL);
  g_return_val_if_fail (event_id != NULL && *event_id != '\0', NULL);

  job = submit_job (self, endpoint, data, error);
  if (job != NULL)
    register_event (self, job, event_id);
  return job;
}

gboolean
_riv_client_feed_stream_for_testing (RivClient  *self,
                                     const char *bytes,
                                     gsize       len)
{
  Stream *st;

  g_return_val_if_fail (RIV_IS_CLIENT (self), FALSE);
  g_return_val_if_fail (self->local_stream, FALSE);

  if ((st = self->stream) == NULL)
    return FALSE;

  /* What stream_read_cb does with a read of len bytes; a local stream that
   * ends (close_stream) or is detached has nothing left to read. */
  g_object_ref (self);
  st->feeding = TRUE;
  if (stream_take_bytes (st, bytes, len))
    {
      st->feeding = FALSE;
      if (st->client == NULL)
        stream_free (st);
    }
  g_object_unref (self);
  return TRUE;
}
