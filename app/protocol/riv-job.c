/* riv-job.c
 * Copyright 2026 The Rivulet authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "config.h"

#include <math.h>
#include <string.h>

#include "riv-compat.h"
#include "riv-job-private.h"
#include "riv-job-stream.h"
#include "riv-sketch.h"
#include "riv-stream-quality.h"

/* The timeline keeps its first TIMELINE_HEAD entries for good and the latest
 * (RIV_JOB_TIMELINE_MAX - TIMELINE_HEAD) in a ring; older ring entries are
 * overwritten and counted in timeline_dropped. */
#define TIMELINE_HEAD 8
#define TIMELINE_RING (RIV_JOB_TIMELINE_MAX - TIMELINE_HEAD)

G_STATIC_ASSERT (RIV_JOB_TIMELINE_MAX > TIMELINE_HEAD);

/* _riv_job_set_replay_time (): the job whose changes are dated in the past,
 * and when. Main thread only, like every setter here. */
static RivJob *replay_job;
static double  replay_time;

struct _RivJob
{
  GObject       parent_instance;

  /* What every message touches, together next to the instance header: with
   * thousands of jobs in flight, each job is cold in the cache. */
  RivJobStatus  status : 8;
  guint         batch_inferred : 1;
  guint8        freeze_count;      /* nesting of freeze () */
  guint         n_events;
  guint         n_updates;
  guint64       pending_notify;    /* properties changed while frozen, one bit each */
  gpointer      owner_data;        /* nullable, freed with owner_destroy */
  JsonNode     *outputs;           /* owned, nullable, a JSON array */
  const char   *output_text;       /* points into outputs, nullable */
  double        first_output_at;   /* read by every update */
  double        last_update_at;    /* the latest generating update, 0 none */
  RivJobStream *stream;            /* nullable until the second generating update */
  double        first_text_at;     /* when an output text was first published, 0 not yet */
  guint32       first_text_chars;  /* its length then, characters */
  guint32       first_text_words;
  /* The event id is what the client looks a job up by, for every message:
   * stored here when it fits (ids are 32 hex digits), next to the fields
   * above, rather than in a block of its own. */
  char         *event_id;          /* nullable until joined; event_id_inline or owned */
  char          event_id_inline[40];

  /* Owned */
  char         *batch_id;          /* nullable */
  char         *error;             /* nullable */
  JsonNode     *inputs;            /* nullable, dropped by _riv_job_trim */
  GBytes       *image;             /* nullable, only the latest frame */
  RivJobEvent  *timeline;          /* nullable, capacity timeline_cap */
  GPtrArray    *logs;              /* RivJobLog (owned), nullable until the first */
  GDestroyNotify owner_destroy;

  /* Borrowed */
  const char   *endpoint;          /* interned */
  const char   *progress_unit;     /* interned, nullable */

  gint64        fn_index;
  gint64        rank;
  gint64        queue_size;
  gint64        progress_index;
  gint64        progress_length;
  gint64        batch_size;
  gint64        batch_index;

  double        eta;
  double        progress;
  double        submitted_at;
  double        joined_at;
  double        started_at;
  double        finished_at;
  double        run_duration;      /* the server's output.duration, < 0 none */
  double        upload_time;       /* seconds uploading its files before the join, < 0 none */
  double        cache_duration;    /* process_completed cache_duration, < 0 none */
  const char   *used_cache;        /* interned "full"/"partial", nullable */
  GStrv         rendered;          /* gr.render: what its completion rendered, nullable */

  guint         number;
  guint         n_images;
  guint         timeline_dropped;
  guint         logs_dropped;

  guint8        timeline_len;      /* entries stored, <= RIV_JOB_TIMELINE_MAX */
  guint8        timeline_cap;
  guint8        timeline_ring_pos; /* oldest ring entry, once the timeline is full */
};

enum {
  PROP_0,
  PROP_NUMBER,
  PROP_ENDPOINT,
  PROP_FN_INDEX,
  PROP_EVENT_ID,
  PROP_STATUS,
  PROP_FINISHED,
  PROP_RANK,
  PROP_QUEUE_SIZE,
  PROP_ETA,
  PROP_PROGRESS,
  PROP_PROGRESS_INDEX,
  PROP_PROGRESS_LENGTH,
  PROP_PROGRESS_UNIT,
  PROP_BATCH_ID,
  PROP_BATCH_SIZE,
  PROP_BATCH_INDEX,
  PROP_BATCH_INFERRED,
  PROP_N_UPDATES,
  PROP_N_EVENTS,
  PROP_OUTPUTS,
  PROP_OUTPUT_TEXT,
  PROP_IMAGE,
  PROP_N_IMAGES,
  PROP_ERROR,
  PROP_SUBMITTED_AT,
  PROP_JOINED_AT,
  PROP_STARTED_AT,
  PROP_FIRST_OUTPUT_AT,
  PROP_FINISHED_AT,
  PROP_MAX_GAP,
  PROP_WAIT_TIME,
  PROP_RUN_TIME,
  PROP_TOTAL_TIME,
  PROP_TIMELINE_LENGTH,
  PROP_TIMELINE_DROPPED,
  PROP_INPUTS,
  PROP_N_LOGS,
  N_PROPS
};

G_DEFINE_FINAL_TYPE (RivJob, riv_job, G_TYPE_OBJECT)

G_STATIC_ASSERT (N_PROPS <= 64);

static GParamSpec *properties[N_PROPS];

/* Notifications are held while the job is frozen (one message's burst of
 * changes) and sent at the outermost thaw, one per changed property. This is
 * what g_object_freeze_notify() gives, without its cost (a global lock and a
 * queue allocated per freeze), paid once per message even when nobody
 * listens. */
static inline void
notify (RivJob *self,
        guint   prop)
{
  /* (GObject *): self is a job; G_OBJECT () would check it at run time
   * for every notification. */
  if (self->freeze_count > 0)
    self->pending_notify |= G_GUINT64_CONSTANT (1) << prop;
  else
    g_object_notify_by_pspec ((GObject *) self, properties[prop]);
}

/* Now, or when the message being replayed arrived. */
static inline double
job_now (RivJob *self)
{
  return G_UNLIKELY (self == replay_job) ? replay_time : riv_now ();
}

static inline void
freeze (RivJob *self)
{
  g_return_if_fail (self->freeze_count < G_MAXUINT8);
  self->freeze_count++;
}

static void
thaw (RivJob *self)
{
  guint64 pending;
  gboolean several;

  g_return_if_fail (self->freeze_count > 0);

  if (--self->freeze_count > 0 || self->pending_notify == 0)
    return;

  pending = self->pending_notify;
  self->pending_notify = 0;

  /* Between two notifications a handler may drop the last other reference;
   * one alone needs none of ours (its emission holds one, and the loop only
   * reads locals after it). */
  several = (pending & (pending - 1)) != 0;
  if (several)
    g_object_ref (self);
  for (guint prop = 1; pending >> prop != 0; prop++)
    if (pending & (G_GUINT64_CONSTANT (1) << prop))
      g_object_notify_by_pspec ((GObject *) self, properties[prop]);
  if (several)
    g_object_unref (self);
}

static void
set_int (RivJob *self,
         gint64 *field,
         gint64  value,
         guint   prop)
{
  if (*field != value)
    {
      *field = value;
      notify (self, prop);
    }
}

static void
set_double (RivJob *self,
            double *field,
            double  value,
            guint   prop)
{
  if (*field != value)
    {
      *field = value;
      notify (self, prop);
    }
}

static void
set_interned (RivJob      *self,
              const char **field,
              const char  *value,
              guint        prop)
{
  const char *interned = value ? g_intern_string (value) : NULL;

  if (*field != interned)
    {
      *field = interned;
      notify (self, prop);
    }
}

static void
riv_job_finalize (GObject *object)
{
  RivJob *self = RIV_JOB (object);

  _riv_job_set_owner_data (self, NULL, NULL);

  for (guint i = 0; i < self->timeline_len; i++)
    g_free (self->timeline[i].what);
  g_clear_pointer (&self->timeline, g_free);
  g_clear_pointer (&self->logs, g_ptr_array_unref);
  if (self->event_id != self->event_id_inline)
    g_free (self->event_id);
  g_clear_pointer (&self->batch_id, g_free);
  g_clear_pointer (&self->error, g_free);
  g_clear_pointer (&self->rendered, g_strfreev);
  g_clear_pointer (&self->outputs, json_node_unref);
  g_clear_pointer (&self->inputs, json_node_unref);
  g_clear_pointer (&self->image, g_bytes_unref);
  riv_job_stream_free (self->stream);

  G_OBJECT_CLASS (riv_job_parent_class)->finalize (object);
}

/* The properties of a job's times and timeline; FALSE for any other. */
static gboolean
get_time_property (RivJob *self,
                   guint   prop_id,
                   GValue *value)
{
  switch (prop_id)
    {
    case PROP_SUBMITTED_AT:
      g_value_set_double (value, riv_job_get_submitted_at (self));
      break;
    case PROP_JOINED_AT:
      g_value_set_double (value, riv_job_get_joined_at (self));
      break;
    case PROP_STARTED_AT:
      g_value_set_double (value, riv_job_get_started_at (self));
      break;
    case PROP_FIRST_OUTPUT_AT:
      g_value_set_double (value, riv_job_get_first_output_at (self));
      break;
    case PROP_FINISHED_AT:
      g_value_set_double (value, riv_job_get_finished_at (self));
      break;
    case PROP_MAX_GAP:
      g_value_set_double (value, riv_job_get_max_gap (self));
      break;
    case PROP_WAIT_TIME:
      g_value_set_double (value, riv_job_get_wait_time (self));
      break;
    case PROP_RUN_TIME:
      g_value_set_double (value, riv_job_get_run_time (self));
      break;
    case PROP_TOTAL_TIME:
      g_value_set_double (value, riv_job_get_total_time (self));
      break;
    case PROP_TIMELINE_LENGTH:
      g_value_set_uint (value, riv_job_get_timeline_length (self));
      break;
    case PROP_TIMELINE_DROPPED:
      g_value_set_uint (value, riv_job_get_timeline_dropped (self));
      break;
    default:
      return FALSE;
    }
  return TRUE;
}

static void
riv_job_get_property (GObject    *object,
                      guint       prop_id,
                      GValue     *value,
                      GParamSpec *pspec)
{
  RivJob *self = RIV_JOB (object);

  if (get_time_property (self, prop_id, value))
    return;
  switch (prop_id)
    {
    case PROP_NUMBER:
      g_value_set_uint (value, riv_job_get_number (self));
      break;
    case PROP_ENDPOINT:
      g_value_set_string (value, riv_job_get_endpoint (self));
      break;
    case PROP_FN_INDEX:
      g_value_set_int64 (value, riv_job_get_fn_index (self));
      break;
    case PROP_EVENT_ID:
      g_value_set_string (value, riv_job_get_event_id (self));
      break;
    case PROP_STATUS:
      g_value_set_enum (value, riv_job_get_status (self));
      break;
    case PROP_FINISHED:
      g_value_set_boolean (value, riv_job_is_finished (self));
      break;
    case PROP_RANK:
      g_value_set_int64 (value, riv_job_get_rank (self));
      break;
    case PROP_QUEUE_SIZE:
      g_value_set_int64 (value, riv_job_get_queue_size (self));
      break;
    case PROP_ETA:
      g_value_set_double (value, riv_job_get_eta (self));
      break;
    case PROP_PROGRESS:
      g_value_set_double (value, riv_job_get_progress (self));
      break;
    case PROP_PROGRESS_INDEX:
      g_value_set_int64 (value, riv_job_get_progress_index (self));
      break;
    case PROP_PROGRESS_LENGTH:
      g_value_set_int64 (value, riv_job_get_progress_length (self));
      break;
    case PROP_PROGRESS_UNIT:
      g_value_set_string (value, riv_job_get_progress_unit (self));
      break;
    case PROP_BATCH_ID:
      g_value_set_string (value, riv_job_get_batch_id (self));
      break;
    case PROP_BATCH_SIZE:
      g_value_set_int64 (value, riv_job_get_batch_size (self));
      break;
    case PROP_BATCH_INDEX:
      g_value_set_int64 (value, riv_job_get_batch_index (self));
      break;
    case PROP_BATCH_INFERRED:
      g_value_set_boolean (value, riv_job_get_batch_inferred (self));
      break;
    case PROP_N_UPDATES:
      g_value_set_uint (value, riv_job_get_n_updates (self));
      break;
    case PROP_N_EVENTS:
      g_value_set_uint (value, riv_job_get_n_events (self));
      break;
    case PROP_OUTPUTS:
      g_value_set_boxed (value, riv_job_get_outputs (self));
      break;
    case PROP_OUTPUT_TEXT:
      g_value_set_string (value, riv_job_get_output_text (self));
      break;
    case PROP_IMAGE:
      g_value_set_boxed (value, riv_job_get_image (self));
      break;
    case PROP_N_IMAGES:
      g_value_set_uint (value, riv_job_get_n_images (self));
      break;
    case PROP_ERROR:
      g_value_set_string (value, riv_job_get_error (self));
      break;
    case PROP_INPUTS:
      g_value_set_boxed (value, riv_job_get_inputs (self));
      break;
    case PROP_N_LOGS:
      g_value_set_uint (value, riv_job_get_n_logs (self));
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
riv_job_class_init (RivJobClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  const GParamFlags flags = G_PARAM_READABLE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS;

  object_class->finalize = riv_job_finalize;
  object_class->get_property = riv_job_get_property;

  properties[PROP_NUMBER] = g_param_spec_uint ("number", NULL, NULL, 0, G_MAXUINT, 0, flags);
  properties[PROP_ENDPOINT] = g_param_spec_string ("endpoint", NULL, NULL, NULL, flags);
  properties[PROP_FN_INDEX] =
    g_param_spec_int64 ("fn-index", NULL, NULL, -1, G_MAXINT64, -1, flags);
  properties[PROP_EVENT_ID] = g_param_spec_string ("event-id", NULL, NULL, NULL, flags);
  properties[PROP_STATUS] =
    g_param_spec_enum ("status", NULL, NULL, RIV_TYPE_JOB_STATUS, RIV_JOB_STATUS_PENDING, flags);
  properties[PROP_FINISHED] = g_param_spec_boolean ("finished", NULL, NULL, FALSE, flags);
  properties[PROP_RANK] = g_param_spec_int64 ("rank", NULL, NULL, -1, G_MAXINT64, -1, flags);
  properties[PROP_QUEUE_SIZE] =
    g_param_spec_int64 ("queue-size", NULL, NULL, -1, G_MAXINT64, -1, flags);
  properties[PROP_ETA] =
    g_param_spec_double ("eta", NULL, NULL, -G_MAXDOUBLE, G_MAXDOUBLE, -1, flags);
  properties[PROP_PROGRESS] =
    g_param_spec_double ("progress", NULL, NULL, -G_MAXDOUBLE, G_MAXDOUBLE, -1, flags);
  properties[PROP_PROGRESS_INDEX] =
    g_param_spec_int64 ("progress-index", NULL, NULL, G_MININT64, G_MAXINT64, -1, flags);
  properties[PROP_PROGRESS_LENGTH] =
    g_param_spec_int64 ("progress-length", NULL, NULL, G_MININT64, G_MAXINT64, -1, flags);
  properties[PROP_PROGRESS_UNIT] = g_param_spec_string ("progress-unit", NULL, NULL, NULL, flags);
  properties[PROP_BATCH_ID] = g_param_spec_string ("batch-id", NULL, NULL, NULL, flags);
  properties[PROP_BATCH_SIZE] =
    g_param_spec_int64 ("batch-size", NULL, NULL, 0, G_MAXINT64, 0, flags);
  properties[PROP_BATCH_INDEX] =
    g_param_spec_int64 ("batch-index", NULL, NULL, -1, G_MAXINT64, -1, flags);
  properties[PROP_BATCH_INFERRED] =
    g_param_spec_boolean ("batch-inferred", NULL, NULL, FALSE, flags);
  properties[PROP_N_UPDATES] = g_param_spec_uint ("n-updates", NULL, NULL, 0, G_MAXUINT, 0, flags);
  properties[PROP_N_EVENTS] = g_param_spec_uint ("n-events", NULL, NULL, 0, G_MAXUINT, 0, flags);
  properties[PROP_OUTPUTS] = g_param_spec_boxed ("outputs", NULL, NULL, JSON_TYPE_NODE, flags);
  properties[PROP_OUTPUT_TEXT] = g_param_spec_string ("output-text", NULL, NULL, NULL, flags);
  properties[PROP_IMAGE] = g_param_spec_boxed ("image", NULL, NULL, G_TYPE_BYTES, flags);
  properties[PROP_N_IMAGES] = g_param_spec_uint ("n-images", NULL, NULL, 0, G_MAXUINT, 0, flags);
  properties[PROP_ERROR] = g_param_spec_string ("error", NULL, NULL, NULL, flags);
  properties[PROP_SUBMITTED_AT] =
    g_param_spec_double ("submitted-at", NULL, NULL, 0, G_MAXDOUBLE, 0, flags);
  properties[PROP_JOINED_AT] =
    g_param_spec_double ("joined-at", NULL, NULL, 0, G_MAXDOUBLE, 0, flags);
  properties[PROP_STARTED_AT] =
    g_param_spec_double ("started-at", NULL, NULL, 0, G_MAXDOUBLE, 0, flags);
  properties[PROP_FIRST_OUTPUT_AT] =
    g_param_spec_double ("first-output-at", NULL, NULL, 0, G_MAXDOUBLE, 0, flags);
  properties[PROP_FINISHED_AT] =
    g_param_spec_double ("finished-at", NULL, NULL, 0, G_MAXDOUBLE, 0, flags);
  /* The longest gap between two generating updates so far (-1: none). */
  properties[PROP_MAX_GAP] =
    g_param_spec_double ("max-gap", NULL, NULL, -1, G_MAXDOUBLE, -1, flags);
  properties[PROP_WAIT_TIME] =
    g_param_spec_double ("wait-time", NULL, NULL, -G_MAXDOUBLE, G_MAXDOUBLE, -1, flags);
  properties[PROP_RUN_TIME] =
    g_param_spec_double ("run-time", NULL, NULL, -G_MAXDOUBLE, G_MAXDOUBLE, -1, flags);
  properties[PROP_TOTAL_TIME] =
    g_param_spec_double ("total-time", NULL, NULL, -G_MAXDOUBLE, G_MAXDOUBLE, -1, flags);
  properties[PROP_TIMELINE_LENGTH] =
    g_param_spec_uint ("timeline-length", NULL, NULL, 0, G_MAXUINT, 0, flags);
  properties[PROP_TIMELINE_DROPPED] =
    g_param_spec_uint ("timeline-dropped", NULL, NULL, 0, G_MAXUINT, 0, flags);
  properties[PROP_INPUTS] = g_param_spec_boxed ("inputs", NULL, NULL, JSON_TYPE_NODE, flags);
  /* Notified for every log message kept (riv_job_get_log ()). */
  properties[PROP_N_LOGS] = g_param_spec_uint ("n-logs", NULL, NULL, 0, G_MAXUINT, 0, flags);

  g_object_class_install_properties (object_class, N_PROPS, properties);
}

static void
riv_job_init (RivJob *self)
{
  self->fn_index = -1;
  self->rank = -1;
  self->queue_size = -1;
  self->eta = -1;
  self->progress = -1;
  self->progress_index = -1;
  self->progress_length = -1;
  self->batch_index = -1;
  self->run_duration = -1;
  self->upload_time = -1;
  self->cache_duration = -1;
}

/* Public getters ----------------------------------------------------------------------- */

guint
riv_job_get_number (RivJob *self)
{
  g_return_val_if_fail (RIV_IS_JOB (self), 0);
  return self->number;
}

const char *
riv_job_get_endpoint (RivJob *self)
{
  g_return_val_if_fail (RIV_IS_JOB (self), NULL);
  return self->endpoint;
}

gint64
riv_job_get_fn_index (RivJob *self)
{
  g_return_val_if_fail (RIV_IS_JOB (self), -1);
  return self->fn_index;
}

const char *
riv_job_get_event_id (RivJob *self)
{
  g_return_val_if_fail (RIV_IS_JOB (self), NULL);
  return self->event_id;
}

RivJobStatus
riv_job_get_status (RivJob *self)
{
  g_return_val_if_fail (RIV_IS_JOB (self), RIV_JOB_STATUS_PENDING);
  return self->status;
}

gboolean
riv_job_is_finished (RivJob *self)
{
  g_return_val_if_fail (RIV_IS_JOB (self), FALSE);
  return RIV_JOB_STATUS_IS_TERMINAL (self->status);
}

gint64
riv_job_get_rank (RivJob *self)
{
  g_return_val_if_fail (RIV_IS_JOB (self), -1);
  return self->rank;
}

gint64
riv_job_get_queue_size (RivJob *self)
{
  g_return_val_if_fail (RIV_IS_JOB (self), -1);
  return self->queue_size;
}

double
riv_job_get_eta (RivJob *self)
{
  g_return_val_if_fail (RIV_IS_JOB (self), -1);
  return self->eta;
}

double
riv_job_get_progress (RivJob *self)
{
  g_return_val_if_fail (RIV_IS_JOB (self), -1);
  return self->progress;
}

gint64
riv_job_get_progress_index (RivJob *self)
{
  g_return_val_if_fail (RIV_IS_JOB (self), -1);
  return self->progress_index;
}

gint64
riv_job_get_progress_length (RivJob *self)
{
  g_return_val_if_fail (RIV_IS_JOB (self), -1);
  return self->progress_length;
}

const char *
riv_job_get_progress_unit (RivJob *self)
{
  g_return_val_if_fail (RIV_IS_JOB (self), NULL);
  return self->progress_unit;
}

const char *
riv_job_get_batch_id (RivJob *self)
{
  g_return_val_if_fail (RIV_IS_JOB (self), NULL);
  return self->batch_id;
}

gint64
riv_job_get_batch_size (RivJob *self)
{
  g_return_val_if_fail (RIV_IS_JOB (self), 0);
  return self->batch_size;
}

gint64
riv_job_get_batch_index (RivJob *self)
{
  g_return_val_if_fail (RIV_IS_JOB (self), -1);
  return self->batch_index;
}

gboolean
riv_job_get_batch_inferred (RivJob *self)
{
  g_return_val_if_fail (RIV_IS_JOB (self), FALSE);
  return self->batch_inferred;
}

guint
riv_job_get_n_updates (RivJob *self)
{
  g_return_val_if_fail (RIV_IS_JOB (self), 0);
  return self->n_updates;
}

guint
riv_job_get_n_events (RivJob *self)
{
  g_return_val_if_fail (RIV_IS_JOB (self), 0);
  return self->n_events;
}

JsonNode *
riv_job_get_outputs (RivJob *self)
{
  g_return_val_if_fail (RIV_IS_JOB (self), NULL);
  return self->outputs;
}

const char *
riv_job_get_output_text (RivJob *self)
{
  g_return_val_if_fail (RIV_IS_JOB (self), NULL);
  return self->output_text;
}

GBytes *
riv_job_get_image (RivJob *self)
{
  g_return_val_if_fail (RIV_IS_JOB (self), NULL);
  return self->image;
}

guint
riv_job_get_n_images (RivJob *self)
{
  g_return_val_if_fail (RIV_IS_JOB (self), 0);
  return self->n_images;
}

const char *
riv_job_get_error (RivJob *self)
{
  g_return_val_if_fail (RIV_IS_JOB (self), NULL);
  return self->error;
}

double
riv_job_get_submitted_at (RivJob *self)
{
  g_return_val_if_fail (RIV_IS_JOB (self), 0);
  return self->submitted_at;
}

double
riv_job_get_joined_at (RivJob *self)
{
  g_return_val_if_fail (RIV_IS_JOB (self), 0);
  return self->joined_at;
}

double
riv_job_get_started_at (RivJob *self)
{
  g_return_val_if_fail (RIV_IS_JOB (self), 0);
  return self->started_at;
}

double
riv_job_get_first_output_at (RivJob *self)
{
  g_return_val_if_fail (RIV_IS_JOB (self), 0);
  return self->first_output_at;
}

double
riv_job_get_first_update_time (RivJob *self)
{
  g_return_val_if_fail (RIV_IS_JOB (self), -1);

  if (self->submitted_at <= 0)
    return -1;
  if (self->first_output_at > 0)
    return MAX (self->first_output_at - self->submitted_at, 0);
  if (self->finished_at > 0)
    return MAX (self->finished_at - self->submitted_at, 0);
  return -1;
}

double
riv_job_get_first_after_start (RivJob *self)
{
  double first;

  g_return_val_if_fail (RIV_IS_JOB (self), -1);

  first = self->first_output_at > 0 ? self->first_output_at : self->finished_at;
  if (self->started_at <= 0 || first <= 0)
    return -1;
  return MAX (first - self->started_at, 0);
}

guint
riv_job_get_n_gaps (RivJob *self)
{
  g_return_val_if_fail (RIV_IS_JOB (self), 0);
  return self->stream != NULL ? riv_job_stream_get_n_gaps (self->stream) : 0;
}

double
riv_job_get_max_gap (RivJob *self)
{
  g_return_val_if_fail (RIV_IS_JOB (self), -1);
  return self->stream != NULL && riv_job_stream_get_n_gaps (self->stream) > 0
         ? riv_job_stream_get_max_gap (self->stream) : -1;
}

guint
riv_job_count_stalls (RivJob *self,
                      double  limit)
{
  g_return_val_if_fail (RIV_IS_JOB (self), 0);
  return self->stream != NULL
         ? (guint) riv_sketch_count_over (riv_job_stream_get_gaps (self->stream), limit) : 0;
}

const RivSketch *
riv_job_get_gaps (RivJob *self)
{
  g_return_val_if_fail (RIV_IS_JOB (self), NULL);
  return self->stream != NULL ? riv_job_stream_get_gaps (self->stream) : NULL;
}

const RivSketch *
riv_job_get_sent_gaps (RivJob *self)
{
  g_return_val_if_fail (RIV_IS_JOB (self), NULL);
  return self->stream != NULL ? riv_job_stream_get_sent_gaps (self->stream) : NULL;
}

const RivSketch *
riv_job_get_delays (RivJob *self)
{
  g_return_val_if_fail (RIV_IS_JOB (self), NULL);
  return self->stream != NULL ? riv_job_stream_get_delays (self->stream) : NULL;
}

const RivSketch *
riv_job_get_holds (RivJob *self)
{
  g_return_val_if_fail (RIV_IS_JOB (self), NULL);
  return self->stream != NULL ? riv_job_stream_get_holds (self->stream) : NULL;
}

double
riv_job_get_last_update_at (RivJob *self)
{
  g_return_val_if_fail (RIV_IS_JOB (self), 0);
  return self->last_update_at;
}

gboolean
riv_job_get_text_rate (RivJob *self,
                       double *chars_per_s,
                       double *words_per_s)
{
  g_return_val_if_fail (RIV_IS_JOB (self), FALSE);

  if (self->stream == NULL)
    {
      *chars_per_s = *words_per_s = -1;
      return FALSE;
    }
  return riv_job_stream_text_rate (self->first_text_at, self->first_text_chars,
                                   self->first_text_words, self->last_update_at,
                                   self->output_text, chars_per_s, words_per_s);
}

double
riv_job_get_finished_at (RivJob *self)
{
  g_return_val_if_fail (RIV_IS_JOB (self), 0);
  return self->finished_at;
}

double
riv_job_get_wait_time (RivJob *self)
{
  g_return_val_if_fail (RIV_IS_JOB (self), -1);
  if (self->started_at <= 0)
    return -1;
  return MAX (0, self->started_at - self->submitted_at);
}

double
riv_job_get_run_time (RivJob *self)
{
  g_return_val_if_fail (RIV_IS_JOB (self), -1);
  if (self->finished_at <= 0)
    return -1;
  /* What the server measured, when it says: arrival times of the start and
   * the end can be much closer than that (a batch's messages often arrive in
   * one read, or are replayed together when the join reply came late). Only
   * a completed job has that figure; a failed or cancelled one ran from its
   * process_starts to its end. */
  if (self->run_duration >= 0 && self->status == RIV_JOB_STATUS_COMPLETED)
    return self->run_duration;
  if (self->started_at <= 0)
    return -1;
  return MAX (0, self->finished_at - self->started_at);
}

double
riv_job_get_total_time (RivJob *self)
{
  g_return_val_if_fail (RIV_IS_JOB (self), -1);
  if (self->finished_at <= 0)
    return -1;
  return MAX (0, self->finished_at - self->submitted_at);
}

guint
riv_job_get_timeline_length (RivJob *self)
{
  g_return_val_if_fail (RIV_IS_JOB (self), 0);
  return self->timeline_len;
}

guint
riv_job_get_n_logs (RivJob *self)
{
  g_return_val_if_fail (RIV_IS_JOB (self), 0);
  return self->logs != NULL ? self->logs->len : 0;
}

const RivJobLog *
riv_job_get_log (RivJob *self,
                 guint   position)
{
  g_return_val_if_fail (RIV_IS_JOB (self), NULL);
  g_return_val_if_fail (position < riv_job_get_n_logs (self), NULL);
  return g_ptr_array_index (self->logs, position);
}

guint
riv_job_get_logs_dropped (RivJob *self)
{
  g_return_val_if_fail (RIV_IS_JOB (self), 0);
  return self->logs_dropped;
}

const RivJobEvent *
riv_job_get_timeline_event (RivJob *self,
                            guint   position)
{
  g_return_val_if_fail (RIV_IS_JOB (self), NULL);

  if (position >= self->timeline_len)
    return NULL;

  /* Until the timeline is full the ring part is in insertion order. */
  if (position < TIMELINE_HEAD || self->timeline_len < RIV_JOB_TIMELINE_MAX)
    return &self->timeline[position];

  return &self->timeline[TIMELINE_HEAD +
                         (self->timeline_ring_pos + position - TIMELINE_HEAD) % TIMELINE_RING];
}

guint
riv_job_get_timeline_dropped (RivJob *self)
{
  g_return_val_if_fail (RIV_IS_JOB (self), 0);
  return self->timeline_dropped;
}

JsonNode *
riv_job_get_inputs (RivJob *self)
{
  g_return_val_if_fail (RIV_IS_JOB (self), NULL);
  return self->inputs;
}

const char *
riv_job_status_to_string (RivJobStatus status)
{
  switch (status)
    {
    case RIV_JOB_STATUS_PENDING:
      return "pending";
    case RIV_JOB_STATUS_JOINING:
      return "joining";
    case RIV_JOB_STATUS_QUEUED:
      return "queued";
    case RIV_JOB_STATUS_RUNNING:
      return "running";
    case RIV_JOB_STATUS_STREAMING:
      return "streaming";
    case RIV_JOB_STATUS_COMPLETED:
      return "completed";
    case RIV_JOB_STATUS_FAILED:
      return "failed";
    case RIV_JOB_STATUS_CANCELLED:
      return "cancelled";
    case RIV_JOB_STATUS_LOST:
      return "lost";
    default:
      return "unknown";
    }
}

/* Private setters ---------------------------------------------------------------------- */

RivJob *
_riv_job_new (guint       number,
              const char *endpoint,
              gint64      fn_index,
              JsonNode   *inputs)
{
  RivJob *self = g_object_new (RIV_TYPE_JOB, NULL);

  self->number = number;
  self->endpoint = endpoint ? g_intern_string (endpoint) : NULL;
  self->fn_index = fn_index;
  self->inputs = inputs ? json_node_copy (inputs) : NULL;
  self->submitted_at = riv_now ();

  return self;
}

gboolean
_riv_job_set_status (RivJob       *self,
                     RivJobStatus  status)
{
  double now;

  g_return_val_if_fail (RIV_IS_JOB (self), FALSE);

  /* RivJobStatus is in pipeline order with the terminal values last: a job
   * never moves backwards, and a terminal status is final. */
  if (status <= self->status || RIV_JOB_STATUS_IS_TERMINAL (self->status))
    return FALSE;

  now = job_now (self);

  freeze (self);

  self->status = status;
  notify (self, PROP_STATUS);

  if ((status == RIV_JOB_STATUS_RUNNING || status == RIV_JOB_STATUS_STREAMING) &&
      self->started_at <= 0)
    {
      self->started_at = now;
      notify (self, PROP_STARTED_AT);
      notify (self, PROP_WAIT_TIME);
      /* A running job has left the waiting line. */
      set_int (self, &self->rank, -1, PROP_RANK);
    }

  if (RIV_JOB_STATUS_IS_TERMINAL (status))
    {
      self->finished_at = now;
      notify (self, PROP_FINISHED);
      notify (self, PROP_FINISHED_AT);
      notify (self, PROP_TOTAL_TIME);
      if (self->started_at > 0 || self->run_duration >= 0)
        notify (self, PROP_RUN_TIME);
    }

  thaw (self);

  return TRUE;
}

gboolean
_riv_job_finish (RivJob       *self,
                 RivJobStatus  status,
                 const char   *error)
{
  g_return_val_if_fail (RIV_IS_JOB (self), FALSE);
  g_return_val_if_fail (RIV_JOB_STATUS_IS_TERMINAL (status), FALSE);

  if (RIV_JOB_STATUS_IS_TERMINAL (self->status))
    return FALSE;

  freeze (self);
  if (error != NULL && riv_set_str (&self->error, error))
    notify (self, PROP_ERROR);
  _riv_job_set_status (self, status);
  thaw (self);

  return TRUE;
}

void
_riv_job_set_event_id (RivJob     *self,
                       const char *event_id)
{
  gsize len;

  g_return_if_fail (RIV_IS_JOB (self));

  if (g_strcmp0 (self->event_id, event_id) == 0)
    return;

  if (self->event_id != self->event_id_inline)
    g_free (self->event_id);
  if (event_id == NULL)
    self->event_id = NULL;
  else if ((len = strlen (event_id)) < sizeof self->event_id_inline)
    self->event_id = memcpy (self->event_id_inline, event_id, len + 1);
  else
    self->event_id = g_strdup (event_id);

  freeze (self);
  notify (self, PROP_EVENT_ID);
  if (event_id != NULL && self->joined_at <= 0)
    {
      self->joined_at = riv_now ();
      notify (self, PROP_JOINED_AT);
    }
  thaw (self);
}

void
_riv_job_set_queue (RivJob *self,
                    gint64  rank,
                    gint64  queue_size,
                    double  eta)
{
  g_return_if_fail (RIV_IS_JOB (self));

  freeze (self);
  set_int (self, &self->rank, rank < 0 ? -1 : rank, PROP_RANK);
  set_int (self, &self->queue_size, queue_size < 0 ? -1 : queue_size, PROP_QUEUE_SIZE);
  set_double (self, &self->eta, eta < 0 ? -1 : eta, PROP_ETA);
  thaw (self);
}

void
_riv_job_set_progress (RivJob     *self,
                       double      fraction,
                       gint64      index,
                       gint64      length,
                       const char *unit)
{
  g_return_if_fail (RIV_IS_JOB (self));

  if (fraction < 0)
    fraction = -1;
  else if (fraction > 1)
    fraction = 1;

  freeze (self);
  set_double (self, &self->progress, fraction, PROP_PROGRESS);
  set_int (self, &self->progress_index, index, PROP_PROGRESS_INDEX);
  set_int (self, &self->progress_length, length, PROP_PROGRESS_LENGTH);
  set_interned (self, &self->progress_unit, unit, PROP_PROGRESS_UNIT);
  thaw (self);
}

void
_riv_job_set_batch (RivJob     *self,
                    const char *batch_id,
                    gint64      size,
                    gint64      index,
                    gboolean    inferred)
{
  g_return_if_fail (RIV_IS_JOB (self));

  freeze (self);
  if (riv_set_str (&self->batch_id, batch_id))
    notify (self, PROP_BATCH_ID);
  set_int (self, &self->batch_size, MAX (size, 0), PROP_BATCH_SIZE);
  set_int (self, &self->batch_index, index < 0 ? -1 : index, PROP_BATCH_INDEX);
  if (self->batch_inferred != !!inferred)
    {
      self->batch_inferred = !!inferred;
      notify (self, PROP_BATCH_INFERRED);
    }
  thaw (self);
}

static const char *
find_output_text (JsonNode *outputs)
{
  JsonArray *array;
  guint n;

  if (outputs == NULL || !JSON_NODE_HOLDS_ARRAY (outputs))
    return NULL;

  array = json_node_get_array (outputs);
  n = json_array_get_length (array);
  for (guint i = 0; i < n; i++)
    {
      JsonNode *node = json_array_get_element (array, i);

      if (JSON_NODE_HOLDS_VALUE (node) && json_node_get_value_type (node) == G_TYPE_STRING)
        return json_node_get_string (node);
    }

  return NULL;
}

void
_riv_job_publish_outputs (RivJob   *self,
                          JsonNode *outputs)
{
  const char *text;
  gboolean text_changed;

  g_return_if_fail (RIV_IS_JOB (self));

  if (outputs == NULL)
    return;

  /* The old outputs are still alive here, so the two texts can be compared
   * before the old one goes away. */
  text = find_output_text (outputs);
  text_changed = text != self->output_text && g_strcmp0 (text, self->output_text) != 0;

  freeze (self);

  if (self->outputs != outputs)
    {
      g_clear_pointer (&self->outputs, json_node_unref);
      self->outputs = outputs;
    }
  else
    json_node_unref (outputs);   /* the same node again: drop the extra reference */
  self->output_text = text;
  if (text != NULL && self->first_text_at <= 0)
    {
      self->first_text_at = job_now (self);
      self->first_text_chars = (guint32) MIN (g_utf8_strlen (text, -1), G_MAXUINT32);
      self->first_text_words = riv_job_stream_count_words (text);
    }
  notify (self, PROP_OUTPUTS);
  if (text_changed)
    notify (self, PROP_OUTPUT_TEXT);

  thaw (self);
}

static RivJobStream *
ensure_stream (RivJob *self)
{
  if (self->stream == NULL)
    self->stream = riv_job_stream_new ();
  return self->stream;
}

void
_riv_job_count_update (RivJob  *self,
                       gboolean generating,
                       double   made_at,
                       double   sent_at)
{
  double now;

  g_return_if_fail (RIV_IS_JOB (self));

  freeze (self);
  now = job_now (self);

  self->n_updates++;
  notify (self, PROP_N_UPDATES);

  if (self->first_output_at <= 0)
    {
      self->first_output_at = now;
      notify (self, PROP_FIRST_OUTPUT_AT);
    }

  /* Gaps are between generating updates: the completion that follows a
   * generator's last step repeats its value, it is not a new one. */
  if (generating)
    {
      double gap = -1;

      if (self->last_update_at > 0)
        {
          gap = MAX (now - self->last_update_at, 0);
          /* Marked where a viewer sees it: the update that ended the stall. */
          if (gap > RIV_STREAM_STALL_DEFAULT_S)
            riv_job_add_timeline (self, "stall: no update for %.2f s", gap);
        }
      self->last_update_at = now;
      if (!(sent_at > 0 && G_LIKELY (self != replay_job)))
        sent_at = 0;
      if ((gap >= 0 || sent_at > 0) &&
          riv_job_stream_add_update (ensure_stream (self), gap, made_at, sent_at,
                                     sent_at > 0 ? (double) g_get_real_time () / G_USEC_PER_SEC
                                                 : 0))
        notify (self, PROP_MAX_GAP);
    }

  thaw (self);
}

void
_riv_job_take_outputs (RivJob   *self,
                       JsonNode *outputs)
{
  g_return_if_fail (RIV_IS_JOB (self));

  if (outputs == NULL)
    return;

  freeze (self);
  _riv_job_publish_outputs (self, outputs);
  _riv_job_count_update (self, FALSE, 0, 0);
  thaw (self);
}

void
_riv_job_set_image (RivJob *self,
                    GBytes *image)
{
  g_return_if_fail (RIV_IS_JOB (self));

  if (image == NULL)
    return;

  freeze (self);
  if (self->image != image)
    {
      GBytes *old = self->image;

      self->image = g_bytes_ref (image);
      g_clear_pointer (&old, g_bytes_unref);
      notify (self, PROP_IMAGE);
    }
  self->n_images++;
  notify (self, PROP_N_IMAGES);
  thaw (self);
}

void
_riv_job_count_event (RivJob *self)
{
  g_return_if_fail (RIV_IS_JOB (self));

  self->n_events++;
  notify (self, PROP_N_EVENTS);
}

void
riv_job_add_timeline (RivJob     *self,
                      const char *format,
                      ...)
{
  RivJobEvent *slot;
  va_list args;
  char *what;

  g_return_if_fail (RIV_IS_JOB (self));
  g_return_if_fail (format != NULL);

  /* Most entries are fixed words ("started") or one word ("%s"): no printf. */
  va_start (args, format);
  if (strchr (format, '%') == NULL)
    what = g_strdup (format);
  else if (strcmp (format, "%s") == 0)
    {
      const char *text = va_arg (args, const char *);

      what = g_strdup (text != NULL ? text : "(null)");
    }
  else
    what = g_strdup_vprintf (format, args);
  va_end (args);

  if (self->timeline_len < RIV_JOB_TIMELINE_MAX)
    {
      if (self->timeline_len == self->timeline_cap)
        {
          /* Grow in small steps: most jobs only see a handful of events. */
          guint cap = self->timeline_cap == 0 ? 4 : self->timeline_cap * 2;

          self->timeline_cap = MIN (cap, RIV_JOB_TIMELINE_MAX);
          self->timeline = g_renew (RivJobEvent, self->timeline, self->timeline_cap);
        }
      slot = &self->timeline[self->timeline_len++];
      slot->time = job_now (self) - self->submitted_at;
      slot->what = what;
      notify (self, PROP_TIMELINE_LENGTH);
      return;
    }

  /* Full: overwrite the oldest entry of the ring; the head stays. */
  slot = &self->timeline[TIMELINE_HEAD + self->timeline_ring_pos];
  g_free (slot->what);
  slot->time = job_now (self) - self->submitted_at;
  slot->what = what;
  self->timeline_ring_pos = (self->timeline_ring_pos + 1) % TIMELINE_RING;
  self->timeline_dropped++;
  notify (self, PROP_TIMELINE_DROPPED);
}

static void
job_log_free (gpointer data)
{
  RivJobLog *log = data;

  g_free (log->title);
  g_free (log->message);
  g_free (log);
}

void
_riv_job_add_log (RivJob     *self,
                  const char *level,
                  const char *title,
                  const char *message)
{
  RivJobLog *log;

  g_return_if_fail (RIV_IS_JOB (self));

  if (self->logs != NULL && self->logs->len >= RIV_JOB_LOGS_MAX)
    {
      self->logs_dropped++;
      return;
    }

  log = g_new (RivJobLog, 1);
  log->time = job_now (self) - self->submitted_at;
  log->level = g_intern_string (level != NULL && *level != '\0' ? level : "info");
  log->title = title != NULL && *title != '\0' ? g_strdup (title) : NULL;
  log->message = g_strdup (message != NULL ? message : "");

  if (self->logs == NULL)
    self->logs = g_ptr_array_new_with_free_func (job_log_free);
  g_ptr_array_add (self->logs, log);
  notify (self, PROP_N_LOGS);
}

void
_riv_job_set_replay_time (RivJob *self,
                          double  time)
{
  g_return_if_fail (self == NULL || RIV_IS_JOB (self));

  replay_job = time > 0 ? self : NULL;
  replay_time = time;
}

void
_riv_job_set_run_duration (RivJob *self,
                           double  seconds)
{
  g_return_if_fail (RIV_IS_JOB (self));

  if (seconds < 0 || isnan (seconds) || RIV_JOB_STATUS_IS_TERMINAL (self->status))
    return;
  self->run_duration = seconds;
}

void
_riv_job_set_upload_time (RivJob *self,
                          double  seconds)
{
  g_return_if_fail (RIV_IS_JOB (self));

  if (seconds >= 0)
    self->upload_time = seconds;
}

void
_riv_job_set_cache (RivJob     *self,
                    const char *used_cache,
                    double      duration)
{
  g_return_if_fail (RIV_IS_JOB (self));

  self->used_cache = used_cache != NULL ? g_intern_string (used_cache) : NULL;
  self->cache_duration = used_cache != NULL && duration >= 0 ? duration : -1;
}

void
_riv_job_take_rendered (RivJob *self,
                        GStrv   rendered)
{
  g_return_if_fail (RIV_IS_JOB (self));

  g_strfreev (self->rendered);
  self->rendered = rendered;
}

const char * const *
riv_job_get_rendered (RivJob *self)
{
  g_return_val_if_fail (RIV_IS_JOB (self), NULL);
  return (const char * const *) self->rendered;
}

double
riv_job_get_upload_time (RivJob *self)
{
  g_return_val_if_fail (RIV_IS_JOB (self), -1);
  return self->upload_time;
}

const char *
riv_job_get_used_cache (RivJob *self)
{
  g_return_val_if_fail (RIV_IS_JOB (self), NULL);
  return self->used_cache;
}

double
riv_job_get_cache_duration (RivJob *self)
{
  g_return_val_if_fail (RIV_IS_JOB (self), -1);
  return self->cache_duration;
}

void
_riv_job_trim (RivJob *self)
{
  g_return_if_fail (RIV_IS_JOB (self));

  if (self->inputs != NULL)
    {
      g_clear_pointer (&self->inputs, json_node_unref);
      notify (self, PROP_INPUTS);
    }

  /* A timeline that never filled up may have spare capacity. */
  if (self->timeline_cap > self->timeline_len && self->timeline_len > 0)
    {
      self->timeline_cap = self->timeline_len;
      self->timeline = g_renew (RivJobEvent, self->timeline, self->timeline_cap);
    }
}

void
_riv_job_set_owner_data (RivJob         *self,
                         gpointer        data,
                         GDestroyNotify  destroy)
{
  gpointer old_data;
  GDestroyNotify old_destroy;

  g_return_if_fail (RIV_IS_JOB (self));

  /* Swapped first: the destroy function may look at the job. */
  old_data = self->owner_data;
  old_destroy = self->owner_destroy;
  self->owner_data = data;
  self->owner_destroy = destroy;
  if (old_data != NULL && old_destroy != NULL)
    old_destroy (old_data);
}

gpointer
_riv_job_get_owner_data (RivJob *self)
{
  g_return_val_if_fail (RIV_IS_JOB (self), NULL);
  return self->owner_data;
}

void
_riv_job_freeze (RivJob *self)
{
  g_return_if_fail (RIV_IS_JOB (self));
  freeze (self);
}

void
_riv_job_thaw (RivJob *self)
{
  g_return_if_fail (RIV_IS_JOB (self));
  thaw (self);
}
