/* riv-lint.c
 * Copyright 2026 The Rivulet authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "config.h"

#include <string.h>

#include "riv-compat.h"
#include "riv-config.h"
#include "riv-diff.h"
#include "riv-json.h"
#include "riv-lint.h"
#include "riv-message.h"
#include "riv-stream-quality.h"

static const char * const rules[] = {
  "unknown-event",
  "after-completion",
  "duplicate-completion",
  "close-while-pending",
  "eof-without-close",
  "missing-process-starts",
  "rank-increased",
  "bad-diff-path",
  "heartbeat-gap",
  "batch-inconsistent",
  "bad-frame",
  "stream-buffered",
  NULL,
};

/* A completed job that a join named is forgotten this long (trace time)
 * after its completion, and a batch this long after its first member: a
 * load run's lint holds what the last seconds brought, not every job
 * (issue 37). A message for a forgotten job counts as one for an event no
 * join returned (unknown-event) instead of after-completion. */
#define RETIRE_S 10.0

/* Silences shorter than this are not kept for the heartbeat check. */
#define MIN_GAP 0.2
#define MAX_GAPS 65536
/* stream-buffered: a job whose updates arrived in a clump
 * (riv_stream_clumped (), riv-stream-quality.h). */

typedef struct
{
  char          *id;
  char          *session;        /* nullable */
  guint          order;
  double         first_t;
  gboolean       joined;         /* a join reply named it */
  gboolean       on_stream;      /* a message of the session's stream named it */
  gboolean       started;
  gboolean       completed;
  gboolean       has_rank;
  gint64         rank;
  gboolean       has_fn_index;
  gint64         fn_index;
  guint          reported;       /* bit per rule already reported for this event */
  RivDiffValue **values;         /* owned, n_values; NULL until the first full output */
  guint          n_values;
  gboolean       has_values;
  GList          open_link;      /* in its session's open events until completed */
  guint          n_updates;      /* process_generating/streaming frames */
  double         first_update_t;
  double         work;           /* sum of the updates' output.duration: the server's time */
  double         completed_t;
  GList          retire_link;    /* in completed, once completed */
} LintEvent;

typedef struct
{
  guint    number;
  char    *session;              /* nullable */
  double   last_t;
  double   last_heartbeat_t;
  gboolean has_heartbeat;
  gboolean closed;               /* close_stream seen */
  gboolean ended;
} LintStream;

typedef struct
{
  char    *session;              /* nullable */
  gboolean is_join;
  gboolean is_config;
  gboolean has_fn_index;
  gint64   fn_index;
} LintRequest;

typedef struct
{
  gint64      size;
  GHashTable *members;           /* event ids */
  gboolean    reported;
  char       *id;                /* borrowed: the batches table's key */
  double      first_t;
  GList       retire_link;       /* in batch_ages */
} LintBatch;

typedef struct
{
  guint  stream;
  double start;
  double length;
} LintGap;

struct _RivLint
{
  double      origin;
  double      heartbeat;         /* set by the caller, 0 = inferred */
  double      min_heartbeat;     /* shortest spacing seen, 0 = none */
  GHashTable *events;            /* id → LintEvent */
  GHashTable *open;              /* session → GQueue of its uncompleted LintEvents, so that
                                  * close_stream counts a session's pending jobs without
                                  * walking every job of the run */
  GQueue      open_unknown;      /* those whose session is not known */
  GHashTable *streams;           /* number → LintStream */
  GHashTable *requests;          /* id → LintRequest */
  GHashTable *batches;           /* batch id → LintBatch */
  GQueue      completed;         /* LintEvents in the order they completed, until retired */
  GQueue      batch_ages;        /* LintBatches in the order they began, until retired */
  GArray     *gaps;              /* LintGap */
  GPtrArray  *findings;          /* RivLintFinding */
  RivConfig  *config;            /* nullable */
  JsonParser *parser;
  guint       n_events;
  guint       n_dropped;
  gboolean    finished;
};

enum
{
  RULE_UNKNOWN_EVENT,
  RULE_AFTER_COMPLETION,
  RULE_DUPLICATE_COMPLETION,
  RULE_CLOSE_WHILE_PENDING,
  RULE_EOF_WITHOUT_CLOSE,
  RULE_MISSING_PROCESS_STARTS,
  RULE_RANK_INCREASED,
  RULE_BAD_DIFF_PATH,
  RULE_HEARTBEAT_GAP,
  RULE_BATCH_INCONSISTENT,
  RULE_BAD_FRAME,
  RULE_STREAM_BUFFERED,
};

const char * const *
riv_lint_get_rules (void)
{
  return rules;
}

static void
finding_free (gpointer data)
{
  RivLintFinding *finding = data;

  g_free (finding->event_id);
  g_free (finding->message);
  g_free (finding);
}

static void
values_clear (LintEvent *ev)
{
  for (guint i = 0; i < ev->n_values; i++)
    riv_diff_value_free (ev->values[i]);
  g_clear_pointer (&ev->values, g_free);
  ev->n_values = 0;
  ev->has_values = FALSE;
}

static void
lint_event_free (gpointer data)
{
  LintEvent *ev = data;

  values_clear (ev);
  g_free (ev->id);
  g_free (ev->session);
  g_free (ev);
}

static void
lint_stream_free (gpointer data)
{
  LintStream *stream = data;

  g_free (stream->session);
  g_free (stream);
}

static void
lint_request_free (gpointer data)
{
  LintRequest *request = data;

  g_free (request->session);
  g_free (request);
}

static void
lint_batch_free (gpointer data)
{
  LintBatch *batch = data;

  g_hash_table_unref (batch->members);
  g_free (batch->id);
  g_free (batch);
}

/* The queues hold links embedded in the events, which the events table owns. */
static GQueue *
open_queue (RivLint    *self,
            const char *session,
            gboolean    create)
{
  GQueue *queue;

  if (session == NULL)
    return &self->open_unknown;
  queue = g_hash_table_lookup (self->open, session);
  if (queue == NULL && create)
    {
      queue = g_new0 (GQueue, 1);
      g_hash_table_insert (self->open, g_strdup (session), queue);
    }
  return queue;
}

static void
open_add (RivLint   *self,
          LintEvent *ev)
{
  ev->open_link.data = ev;
  g_queue_push_tail_link (open_queue (self, ev->session, TRUE), &ev->open_link);
}

static void
open_remove (RivLint   *self,
             LintEvent *ev)
{
  GQueue *queue = open_queue (self, ev->session, FALSE);

  g_assert (queue != NULL);
  g_queue_unlink (queue, &ev->open_link);
  if (queue->length == 0 && ev->session != NULL)
    g_hash_table_remove (self->open, ev->session);
}

/* A job learns its session from its join's reply after a frame named it. */
static void
event_set_session (RivLint    *self,
                   LintEvent  *ev,
                   const char *session)
{
  if (!ev->completed)
    open_remove (self, ev);
  g_free (ev->session);
  ev->session = g_strdup (session);
  if (!ev->completed)
    open_add (self, ev);
}

RivLint *
riv_lint_new (void)
{
  RivLint *self = g_new0 (RivLint, 1);

  self->events = g_hash_table_new_full (g_str_hash, g_str_equal, NULL, lint_event_free);
  self->open = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
  self->streams = g_hash_table_new_full (NULL, NULL, NULL, lint_stream_free);
  self->requests = g_hash_table_new_full (riv_int64_hash, g_int64_equal, g_free, lint_request_free);
  self->batches = g_hash_table_new_full (g_str_hash, g_str_equal, NULL, lint_batch_free);
  self->gaps = g_array_new (FALSE, FALSE, sizeof (LintGap));
  self->findings = g_ptr_array_new_with_free_func (finding_free);
  self->parser = json_parser_new_immutable ();
  return self;
}

void
riv_lint_free (RivLint *self)
{
  if (self == NULL)
    return;
  g_hash_table_unref (self->open);
  g_hash_table_unref (self->events);
  g_hash_table_unref (self->streams);
  g_hash_table_unref (self->requests);
  g_hash_table_unref (self->batches);
  g_array_unref (self->gaps);
  g_ptr_array_unref (self->findings);
  g_clear_pointer (&self->config, riv_config_unref);
  g_object_unref (self->parser);
  g_free (self);
}

void
riv_lint_set_origin (RivLint *self,
                     double   origin)
{
  self->origin = origin;
}

void
riv_lint_set_heartbeat_interval (RivLint *self,
                                 double   seconds)
{
  self->heartbeat = MAX (seconds, 0);
}

static void G_GNUC_PRINTF (5, 6)
report (RivLint    *self,
        guint       rule,
        const char *event_id,
        double      t,
        const char *format,
        ...)
{
  RivLintFinding *finding;
  va_list args;

  if (self->findings->len >= RIV_LINT_MAX_FINDINGS)
    {
      self->n_dropped++;
      return;
    }
  finding = g_new0 (RivLintFinding, 1);
  finding->rule = rules[rule];
  finding->event_id = g_strdup (event_id);
  finding->t = t - self->origin;
  va_start (args, format);
  finding->message = g_strdup_vprintf (format, args);
  va_end (args);
  g_ptr_array_add (self->findings, finding);
}

/* Reports rule for ev once. */
static gboolean
report_once (RivLint   *self,
             LintEvent *ev,
             guint      rule)
{
  if (ev->reported & (1u << rule))
    return FALSE;
  ev->reported |= 1u << rule;
  return TRUE;
}

/* The session_hash of a path's query, or NULL. */
static char *
query_session (const char *path)
{
  const char *query = strchr (path, '?');
  g_autoptr(GHashTable) params = NULL;

  if (query == NULL)
    return NULL;
  params = g_uri_parse_params (query + 1, -1, "&", G_URI_PARAMS_NONE, NULL);
  return params != NULL ? g_strdup (g_hash_table_lookup (params, "session_hash")) : NULL;
}

/* The path without its query. */
static LintEvent *
lookup_event (RivLint    *self,
              const char *id,
              const char *session,
              double      t)
{
  LintEvent *ev = g_hash_table_lookup (self->events, id);

  if (ev == NULL)
    {
      ev = g_new0 (LintEvent, 1);
      ev->id = g_strdup (id);
      ev->session = g_strdup (session);
      ev->order = self->n_events++;
      ev->first_t = t;
      g_hash_table_insert (self->events, ev->id, ev);
      open_add (self, ev);
    }
  return ev;
}

static LintStream *
lookup_stream (RivLint *self,
               guint    number,
               double   t)
{
  LintStream *stream = g_hash_table_lookup (self->streams, GUINT_TO_POINTER (number));

  if (stream == NULL)
    {
      stream = g_new0 (LintStream, 1);
      stream->number = number;
      stream->last_t = t;
      g_hash_table_insert (self->streams, GUINT_TO_POINTER (number), stream);
    }
  return stream;
}

static void
note_silence (RivLint    *self,
              LintStream *stream,
              double      t)
{
  double length = t - stream->last_t;

  if (length > MIN_GAP && self->gaps->len < MAX_GAPS)
    {
      LintGap gap = { stream->number, stream->last_t, length };

      g_array_append_val (self->gaps, gap);
    }
  stream->last_t = MAX (stream->last_t, t);
}

static void
feed_request (RivLint                  *self,
              const RivTapEvent *event)
{
  LintRequest *request = g_new0 (LintRequest, 1);
  gint64 *key = g_new (gint64, 1);

  *key = (gint64) event->id;
  if (event->stream > 0)
    {
      LintStream *stream = lookup_stream (self, event->stream, event->t);

      g_free (stream->session);
      stream->session = query_session (event->path);
      stream->last_t = event->t;
    }
  request->is_config = riv_transcript_path_ends_with (event->path, "/config");
  request->is_join = riv_transcript_path_ends_with (event->path, "/queue/join");
  if (request->is_join && event->text != NULL)
    {
      g_autoptr(JsonNode) body = riv_json_parse (self->parser, event->text, event->text_len,
                                                 RIV_MESSAGE_MAX_DEPTH, NULL);

      if (body != NULL && JSON_NODE_HOLDS_OBJECT (body))
        {
          JsonObject *object = json_node_get_object (body);

          request->session = g_strdup (riv_json_get_string (object, "session_hash"));
          request->has_fn_index = riv_json_get_int (object, "fn_index", &request->fn_index);
        }
    }
  g_hash_table_replace (self->requests, key, request);
}

static void
feed_response (RivLint                  *self,
               const RivTapEvent *event)
{
  gint64 key = (gint64) event->id;
  LintRequest *request = g_hash_table_lookup (self->requests, &key);

  if (event->stream > 0)
    lookup_stream (self, event->stream, event->t)->last_t = event->t;
  if (request == NULL)
    return;

  if (request->is_config && event->status == 200 && event->text != NULL && self->config == NULL)
    self->config = riv_config_new_from_data (event->text, event->text_len, "http://127.0.0.1", NULL);

  if (request->is_join && event->status == 200 && event->text != NULL)
    {
      g_autoptr(JsonNode) body = riv_json_parse (self->parser, event->text, event->text_len,
                                                 RIV_MESSAGE_MAX_DEPTH, NULL);
      const char *id;

      if (body != NULL && JSON_NODE_HOLDS_OBJECT (body) &&
          (id = riv_json_get_string (json_node_get_object (body), "event_id")) != NULL)
        {
          LintEvent *ev = lookup_event (self, id, request->session, event->t);

          ev->joined = TRUE;
          if (ev->session == NULL && request->session != NULL)
            event_set_session (self, ev, request->session);
          ev->has_fn_index = request->has_fn_index;
          ev->fn_index = request->fn_index;
        }
    }
  g_hash_table_remove (self->requests, &key);
}

/* Jobs of the session the server has not completed: joined, or named by a
 * message on the session's stream (a server that sent one has the job). With
 * on_stream, only the latter: the stream's own order proves the server had
 * the job before a frame on it, while a join's reply comes on another
 * connection and can overtake a close_stream that the server sent before it
 * took the join (a burst's stream lags behind by its backlog of frames). */
static guint
count_pending (RivLint     *self,
               const char  *session,
               gboolean     on_stream,
               LintEvent  **first)
{
  GQueue *queue = open_queue (self, session, FALSE);
  guint n = 0;

  *first = NULL;
  for (GList *l = queue != NULL ? queue->head : NULL; l != NULL; l = l->next)
    {
      LintEvent *ev = l->data;

      if (ev->on_stream || !on_stream)
        {
          n++;
          if (*first == NULL || ev->order < (*first)->order)
            *first = ev;
        }
    }
  return n;
}

static gboolean
uses_diffs (RivLint   *self,
            LintEvent *ev)
{
  RivEndpoint *endpoint;
  g_autofree char *name = NULL;

  if (self->config == NULL)
    return TRUE;
  if (!riv_config_uses_diffs (self->config))
    return FALSE;
  if (!ev->has_fn_index)
    return TRUE;
  name = g_strdup_printf ("%" G_GINT64_FORMAT, ev->fn_index);
  endpoint = riv_config_find_endpoint (self->config, name);
  return endpoint == NULL || g_strcmp0 (endpoint->connection, "stream") != 0;
}

/* A live frame was read lean: output.data becomes a tree only here, and a
 * streamed text's appends (msg->appends) apply without it, as the client
 * applies them. */
static void
check_outputs (RivLint    *self,
               LintEvent  *ev,
               RivMessage *msg,
               double      t)
{
  JsonArray *data;
  guint first = 0;
  guint n;

  if (!msg->success || (msg->appends == NULL && riv_message_get_data (msg) == NULL))
    return;

  if (ev->has_values && msg->kind == RIV_MESSAGE_PROCESS_GENERATING && msg->appends != NULL &&
      uses_diffs (self, ev))
    {
      while (msg->appends[first] != NULL && first < ev->n_values &&
             riv_diff_value_append_root (ev->values[first], msg->appends[first]))
        first++;
      if (msg->appends[first] == NULL)
        return;
    }

  data = json_node_get_array (riv_message_get_data (msg));
  n = json_array_get_length (data);

  if (!ev->has_values || msg->kind != RIV_MESSAGE_PROCESS_GENERATING || !uses_diffs (self, ev))
    {
      values_clear (ev);
      ev->values = g_new0 (RivDiffValue *, MAX (n, 1));
      for (guint i = 0; i < n; i++)
        ev->values[i] = riv_diff_value_new (json_array_get_element (data, i));
      ev->n_values = n;
      ev->has_values = TRUE;
      return;
    }

  for (guint i = first; i < n; i++)
    {
      g_autoptr(GError) error = NULL;

      if (i >= ev->n_values)
        {
          ev->values = g_renew (RivDiffValue *, ev->values, i + 1);
          ev->values[ev->n_values++] = riv_diff_value_new (NULL);
        }
      if (!riv_diff_value_apply (ev->values[i], json_array_get_element (data, i), &error) &&
          report_once (self, ev, RULE_BAD_DIFF_PATH))
        report (self, RULE_BAD_DIFF_PATH, ev->id, t, "output %u: the diff does not fit the value: %s",
                i, error->message);
    }
}

static void
check_batch (RivLint          *self,
             LintEvent        *ev,
             const RivMessage *msg,
             double            t)
{
  LintBatch *batch;

  if (!msg->has_batch || msg->batch_id == NULL)
    return;
  batch = g_hash_table_lookup (self->batches, msg->batch_id);
  if (batch == NULL)
    {
      batch = g_new0 (LintBatch, 1);
      batch->size = msg->batch_size;
      batch->members = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
      batch->id = g_strdup (msg->batch_id);
      batch->first_t = t;
      batch->retire_link.data = batch;
      g_hash_table_insert (self->batches, batch->id, batch);
      g_queue_push_tail_link (&self->batch_ages, &batch->retire_link);
    }
  g_hash_table_add (batch->members, g_strdup (ev->id));
  if (batch->reported)
    return;

  if (msg->batch_size < 1 || msg->batch_index < 0 || msg->batch_index >= msg->batch_size)
    report (self, RULE_BATCH_INCONSISTENT, ev->id, t, "batch %s: index %" G_GINT64_FORMAT
            " does not fit size %" G_GINT64_FORMAT, msg->batch_id, msg->batch_index, msg->batch_size);
  else if (msg->batch_size != batch->size)
    report (self, RULE_BATCH_INCONSISTENT, ev->id, t, "batch %s: size %" G_GINT64_FORMAT
            " here, %" G_GINT64_FORMAT " for another member", msg->batch_id, msg->batch_size, batch->size);
  else if (g_hash_table_size (batch->members) > (guint64) batch->size)
    report (self, RULE_BATCH_INCONSISTENT, ev->id, t, "batch %s of size %" G_GINT64_FORMAT
            " has %u members", msg->batch_id, batch->size, g_hash_table_size (batch->members));
  else
    return;
  batch->reported = TRUE;
}

/* output.used_cache: read by either parse, so that the client's lean one
 * (which keeps no output tree) says the same. */
static gboolean
used_cache (const RivMessage *msg)
{
  return msg->output_used_cache;
}

/* A proxy that compresses or buffers text/event-stream (nginx "gzip on" for
 * it, some CDNs) holds a job's updates back and lets them through in a clump
 * at its end: the job completes, but whoever watches sees no progress. Each
 * update says how long the server took to make it (output.duration); when
 * they add up to far longer than the time over which they arrived, the
 * stream was held back on its way. */
static void
check_buffered (RivLint   *self,
                LintEvent *ev,
                double     t)
{
  double span = t - ev->first_update_t;

  if (!riv_stream_clumped (ev->n_updates, ev->work, span) ||
      !report_once (self, ev, RULE_STREAM_BUFFERED))
    return;
  report (self, RULE_STREAM_BUFFERED, ev->id, t,
          "the stream arrived in one clump: all %u updates of this job came within %.2f s at "
          "its end, although the server took %.2f s to make them (a proxy between compresses "
          "or buffers the event stream, e.g. gzip on text/event-stream)",
          ev->n_updates, span, ev->work);
}

static void
feed_event_message (RivLint          *self,
                    LintStream       *stream,
                    RivMessage       *msg,
                    double            t)
{
  LintEvent *ev = lookup_event (self, msg->event_id, stream->session, t);

  ev->on_stream = TRUE;
  if (ev->completed)
    {
      if (msg->kind == RIV_MESSAGE_PROCESS_COMPLETED)
        {
          if (report_once (self, ev, RULE_DUPLICATE_COMPLETION))
            report (self, RULE_DUPLICATE_COMPLETION, ev->id, t,
                    "a second process_completed for this event");
        }
      else if (msg->kind != RIV_MESSAGE_PROGRESS && report_once (self, ev, RULE_AFTER_COMPLETION))
        report (self, RULE_AFTER_COMPLETION, ev->id, t, "%s after process_completed", msg->msg);
      return;
    }

  switch (msg->kind)
    {
    case RIV_MESSAGE_ESTIMATION:
      if (msg->has_rank && !ev->started)
        {
          if (ev->has_rank && msg->rank > ev->rank && report_once (self, ev, RULE_RANK_INCREASED))
            report (self, RULE_RANK_INCREASED, ev->id, t, "rank went from %" G_GINT64_FORMAT
                    " up to %" G_GINT64_FORMAT " while waiting", ev->rank, msg->rank);
          ev->has_rank = TRUE;
          ev->rank = msg->rank;
        }
      break;

    case RIV_MESSAGE_PROCESS_STARTS:
      ev->started = TRUE;
      break;

    case RIV_MESSAGE_PROCESS_GENERATING:
    case RIV_MESSAGE_PROCESS_STREAMING:
    case RIV_MESSAGE_PROCESS_COMPLETED:
      if (!ev->started && !msg->cancelled && !used_cache (msg) &&
          report_once (self, ev, RULE_MISSING_PROCESS_STARTS))
        report (self, RULE_MISSING_PROCESS_STARTS, ev->id, t, "%s without process_starts", msg->msg);
      if (msg->kind != RIV_MESSAGE_PROCESS_COMPLETED && ev->n_updates++ == 0)
        ev->first_update_t = t;
      if (msg->has_duration && msg->duration > 0)
        ev->work += msg->duration;
      if (msg->kind == RIV_MESSAGE_PROCESS_COMPLETED)
        {
          check_buffered (self, ev, t);
          open_remove (self, ev);
          ev->completed = TRUE;
          ev->completed_t = t;
          ev->retire_link.data = ev;
          g_queue_push_tail_link (&self->completed, &ev->retire_link);
          values_clear (ev);
        }
      else
        check_outputs (self, ev, msg, t);
      break;

    default:
      break;
    }
  check_batch (self, ev, msg, t);
}

static void
feed_frame (RivLint                  *self,
            const RivTapEvent *event)
{
  LintStream *stream = lookup_stream (self, event->stream, event->t);
  g_autoptr(RivMessage) parsed = NULL;
  g_autoptr(GError) error = NULL;
  RivMessage *msg = event->message;

  note_silence (self, stream, event->t);
  /* Live, the client has parsed the frame already; from a file, lint does. */
  if (msg == NULL)
    msg = parsed = riv_message_parse (self->parser, event->text != NULL ? event->text : "",
                                      event->text_len, &error);
  if (msg == NULL)
    {
      report (self, RULE_BAD_FRAME, NULL, event->t, "stream %u: %s", event->stream, error->message);
      return;
    }

  if (msg->event_id != NULL)
    {
      feed_event_message (self, stream, msg, event->t);
      return;
    }

  if (msg->kind == RIV_MESSAGE_HEARTBEAT)
    {
      double spacing = event->t - stream->last_heartbeat_t;

      if (stream->has_heartbeat && spacing > 0.01 &&
          (self->min_heartbeat == 0 || spacing < self->min_heartbeat))
        self->min_heartbeat = spacing;
      stream->has_heartbeat = TRUE;
      stream->last_heartbeat_t = event->t;
    }
  else if (msg->kind == RIV_MESSAGE_CLOSE_STREAM)
    {
      LintEvent *first;
      guint n = count_pending (self, stream->session, TRUE, &first);

      stream->closed = TRUE;
      if (n > 0)
        report (self, RULE_CLOSE_WHILE_PENDING, first->id, event->t,
                "close_stream on stream %u while %u job%s of the session still wait%s for completion",
                event->stream, n, n == 1 ? "" : "s", n == 1 ? "s" : "");
    }
}

static void
feed_end (RivLint                  *self,
          const RivTapEvent *event)
{
  LintStream *stream = lookup_stream (self, event->stream, event->t);

  note_silence (self, stream, event->t);
  stream->ended = TRUE;
  if (event->end != RIV_TAP_END_CLIENT && !stream->closed)
    {
      LintEvent *first;
      guint n = count_pending (self, stream->session, FALSE, &first);

      report (self, RULE_EOF_WITHOUT_CLOSE, first != NULL ? first->id : NULL, event->t,
              "stream %u ended (%s) without close_stream, %u job%s pending", event->stream,
              riv_transcript_end_to_string (event->end), n, n == 1 ? "" : "s");
    }
}

/* Forgets the jobs completed and the batches begun more than RETIRE_S
 * before t; a job no join named stays (unknown-event, at the end). */
static void
retire (RivLint *self,
        double   t)
{
  GList *link;

  while ((link = self->completed.head) != NULL &&
         ((LintEvent *) link->data)->completed_t + RETIRE_S < t)
    {
      LintEvent *ev = link->data;

      g_queue_unlink (&self->completed, link);
      if (ev->joined)
        g_hash_table_remove (self->events, ev->id);
    }
  while ((link = self->batch_ages.head) != NULL &&
         ((LintBatch *) link->data)->first_t + RETIRE_S < t)
    {
      g_queue_unlink (&self->batch_ages, link);
      g_hash_table_remove (self->batches, ((LintBatch *) link->data)->id);
    }
}

void
riv_lint_feed (RivLint                  *self,
               const RivTapEvent *event)
{
  g_return_if_fail (self != NULL && event != NULL);
  g_return_if_fail (!self->finished);

  retire (self, event->t);

  switch (event->kind)
    {
    case RIV_TAP_REQUEST:
      if (event->path != NULL)
        feed_request (self, event);
      break;
    case RIV_TAP_RESPONSE:
      feed_response (self, event);
      break;
    case RIV_TAP_SSE:
      feed_frame (self, event);
      break;
    case RIV_TAP_SSE_END:
      feed_end (self, event);
      break;
    case RIV_TAP_TRUNCATED:
    default:
      break;
    }
}

void
riv_lint_tap (const RivTapEvent *event,
              gpointer                  user_data)
{
  riv_lint_feed (user_data, event);
}

static int
compare_events (gconstpointer a,
                gconstpointer b)
{
  const LintEvent *x = *(LintEvent * const *) a;
  const LintEvent *y = *(LintEvent * const *) b;

  return (x->order > y->order) - (x->order < y->order);
}

static int
compare_findings (gconstpointer a,
                  gconstpointer b)
{
  const RivLintFinding *x = *(RivLintFinding * const *) a;
  const RivLintFinding *y = *(RivLintFinding * const *) b;

  return (x->t > y->t) - (x->t < y->t);
}

void
riv_lint_finish (RivLint *self,
                 double   t)
{
  g_autoptr(GPtrArray) unknown = g_ptr_array_new ();
  GHashTableIter iter;
  LintStream *stream;
  LintEvent *ev;
  double interval;

  g_return_if_fail (self != NULL && !self->finished);
  self->finished = TRUE;

  g_hash_table_iter_init (&iter, self->streams);
  while (g_hash_table_iter_next (&iter, NULL, (gpointer *) &stream))
    if (!stream->ended)
      note_silence (self, stream, t);

  interval = self->heartbeat > 0 ? self->heartbeat
           : self->min_heartbeat > 0 ? self->min_heartbeat
           : RIV_LINT_DEFAULT_HEARTBEAT;
  for (guint i = 0; i < self->gaps->len; i++)
    {
      LintGap *gap = &g_array_index (self->gaps, LintGap, i);

      if (gap->length > 2 * interval)
        report (self, RULE_HEARTBEAT_GAP, NULL, gap->start + 2 * interval,
                "stream %u silent for %.2f s (heartbeat interval %.2f s)", gap->stream,
                gap->length, interval);
    }

  g_hash_table_iter_init (&iter, self->events);
  while (g_hash_table_iter_next (&iter, NULL, (gpointer *) &ev))
    if (!ev->joined)
      g_ptr_array_add (unknown, ev);
  g_ptr_array_sort (unknown, compare_events);
  for (guint i = 0; i < unknown->len; i++)
    {
      ev = unknown->pdata[i];
      report (self, RULE_UNKNOWN_EVENT, ev->id, ev->first_t, "messages for an event id no join returned");
    }

  /* In time order; g_ptr_array_sort is stable (g_qsort_with_data is a merge sort). */
  g_ptr_array_sort (self->findings, compare_findings);
}

GPtrArray *
riv_lint_get_findings (RivLint *self)
{
  return self->findings;
}

guint
riv_lint_get_n_held (RivLint *self)
{
  return g_hash_table_size (self->events) + g_hash_table_size (self->batches);
}

guint
riv_lint_get_n_dropped (RivLint *self)
{
  return self->n_dropped;
}

JsonNode *
riv_lint_findings_to_json (RivLint *self)
{
  g_autoptr(JsonBuilder) builder = json_builder_new ();

  json_builder_begin_array (builder);
  for (guint i = 0; i < self->findings->len; i++)
    {
      RivLintFinding *finding = self->findings->pdata[i];

      json_builder_begin_object (builder);
      json_builder_set_member_name (builder, "rule");
      json_builder_add_string_value (builder, finding->rule);
      json_builder_set_member_name (builder, "event_id");
      if (finding->event_id != NULL)
        json_builder_add_string_value (builder, finding->event_id);
      else
        json_builder_add_null_value (builder);
      json_builder_set_member_name (builder, "message");
      json_builder_add_string_value (builder, finding->message);
      json_builder_set_member_name (builder, "t");
      json_builder_add_double_value (builder, (gint64) (finding->t * 1000) / 1000.0);
      json_builder_end_object (builder);
    }
  json_builder_end_array (builder);
  return json_builder_get_root (builder);
}

RivLint *
riv_lint_run_transcript (GPtrArray *events,
                         double     heartbeat_interval)
{
  RivLint *self = riv_lint_new ();
  double end = 0;

  riv_lint_set_heartbeat_interval (self, heartbeat_interval);
  for (guint i = 0; i < events->len; i++)
    {
      RivTapEvent *event = events->pdata[i];

      riv_lint_feed (self, event);
      end = MAX (end, event->t);
    }
  riv_lint_finish (self, end);
  return self;
}
