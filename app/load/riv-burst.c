/* riv-burst.c
 * Copyright 2026 The Rivulet authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "config.h"

#include <math.h>
#include <string.h>

#include "riv-burst.h"
#include "riv-json.h"

/* How long one main-loop iteration may spend submitting. */
#define CHUNK_BUDGET_US 4000

/* With a rate, how often the timer looks at what is due: at most every
 * 10 ms (a rate that grows from 0 is due at ever shorter intervals; a job
 * held back by the join bound goes out soon after), never more often than
 * every millisecond. */
#define TICK_MAX_MS 10
#define TICK_MIN_MS 1

struct _RivBurst
{
  GObject    parent_instance;

  /* Owned references */
  RivClient    *client;
  char         *endpoint;     /* nullable: with submit */
  JsonNode     *data;         /* nullable: with submit */
  GMainContext *context;      /* from the start on */

  RivBurstSubmitFunc submit;  /* nullable: riv_client_submit() of data */
  gpointer      submit_data;

  guint         count;
  guint         n_submitted;
  guint         max_joining;  /* 0: no bound */
  double        rate;
  double        ramp_s;       /* 0: none */
  gint64        started_us;
  GSource      *source;       /* the timer or idle that submits, nullable */
  gulong        joining_id;   /* notify::n-joining while waiting for replies */
  gboolean      has_placeholder;
  GPtrArray    *examples;        /* JsonNode *, nullable: job i takes (i - 1) mod n */
  gboolean      running;
};

enum {
  PROP_0,
  PROP_COUNT,
  PROP_RATE,
  PROP_N_SUBMITTED,
  PROP_RUNNING,
  N_PROPS
};

enum {
  JOB_SUBMITTED,
  FINISHED,
  FAILED,
  N_SIGNALS
};

G_DEFINE_FINAL_TYPE (RivBurst, riv_burst, G_TYPE_OBJECT)

static GParamSpec *properties[N_PROPS];
static guint signals[N_SIGNALS];

gboolean
riv_burst_has_placeholder (JsonNode *data)
{
  return riv_json_has_placeholder (data);
}

JsonNode *
riv_burst_substitute_index (JsonNode *data,
                            guint     index)
{
  g_return_val_if_fail (data != NULL, NULL);

  return riv_json_substitute_index (data, index);
}

static void
riv_burst_clear_source (RivBurst *self)
{
  if (self->source != NULL)
    {
      g_source_destroy (self->source);
      g_clear_pointer (&self->source, g_source_unref);
    }
}

static void
riv_burst_finish (RivBurst *self)
{
  riv_burst_clear_source (self);
  g_clear_signal_handler (&self->joining_id, self->client);
  if (!self->running)
    return;

  self->running = FALSE;
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_RUNNING]);
  g_signal_emit (self, signals[FINISHED], 0);
}

static gboolean
riv_burst_may_join (RivBurst *self)
{
  return self->max_joining == 0 || riv_client_get_n_joining (self->client) < self->max_joining;
}

static RivJob *
riv_burst_submit_one (RivBurst  *self,
                      GError   **error)
{
  g_autoptr(JsonNode) data = NULL;

  if (self->submit != NULL)
    return self->submit (self->submit_data, self->n_submitted + 1, error);

  if (self->examples != NULL)
    data = riv_burst_substitute_index (g_ptr_array_index (self->examples,
                                                          self->n_submitted % self->examples->len),
                                       self->n_submitted + 1);
  else if (self->has_placeholder)
    data = riv_burst_substitute_index (self->data, self->n_submitted + 1);
  else
    data = json_node_ref (self->data);
  return riv_client_submit (self->client, self->endpoint, data, error);
}

/* Submits until target jobs are out or the time budget of this iteration is
 * spent. Returns FALSE when the burst is over. */
static gboolean
riv_burst_submit_until (RivBurst *self,
                        guint     target)
{
  gint64 deadline = g_get_monotonic_time () + CHUNK_BUDGET_US;
  guint before = self->n_submitted;

  g_object_ref (self);

  while (self->running && self->n_submitted < MIN (target, self->count) &&
         riv_burst_may_join (self))
    {
      g_autoptr(RivJob) job = NULL;
      g_autoptr(GError) error = NULL;

      job = riv_burst_submit_one (self, &error);
      if (job == NULL)
        {
          g_signal_emit (self, signals[FAILED], 0, error);
          riv_burst_finish (self);
          break;
        }

      self->n_submitted++;
      g_signal_emit (self, signals[JOB_SUBMITTED], 0, job);

      if (g_get_monotonic_time () >= deadline)
        break;
    }

  if (self->n_submitted != before)
    g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_N_SUBMITTED]);

  if (self->running && self->n_submitted >= self->count)
    riv_burst_finish (self);

  g_object_unref (self);

  return self->running;
}

static void
riv_burst_attach (RivBurst    *self,
                  GSource     *source,
                  GSourceFunc  func)
{
  self->source = source;
  g_source_set_callback (source, func, self, NULL);
  g_source_attach (source, self->context);
}

static gboolean riv_burst_idle_cb (gpointer user_data);

static void
riv_burst_add_idle (RivBurst *self)
{
  /* Below the redraw priority: every frame is drawn between two chunks. */
  riv_burst_attach (self, g_idle_source_new (), riv_burst_idle_cb);
}

static void
riv_burst_joining_cb (RivBurst   *self,
                      GParamSpec *pspec,
                      RivClient  *client)
{
  /* Once the bound is reached, the burst waits until half of those joins
   * have been answered. */
  if (self->running && self->source == NULL &&
      riv_client_get_n_joining (client) <= self->max_joining / 2)
    riv_burst_add_idle (self);
}

static gboolean
riv_burst_idle_cb (gpointer user_data)
{
  RivBurst *self = user_data;

  if (!riv_burst_submit_until (self, self->count))
    return G_SOURCE_REMOVE;   /* riv_burst_finish() cleared the source */

  /* Enough joins in flight: wait for replies rather than spin. */
  if (!riv_burst_may_join (self))
    {
      if (self->joining_id == 0)
        self->joining_id = g_signal_connect_object (self->client, "notify::n-joining",
                                                    G_CALLBACK (riv_burst_joining_cb), self,
                                                    G_CONNECT_SWAPPED);
      g_clear_pointer (&self->source, g_source_unref);
      return G_SOURCE_REMOVE;
    }
  return G_SOURCE_CONTINUE;
}

/* The jobs due elapsed seconds after the start, the first at once. A rate
 * that grows linearly from 0 to r over R seconds has sent r t² / 2R by t. */
static guint
riv_burst_due (RivBurst *self,
               double    elapsed)
{
  double due = self->ramp_s > 0 ? self->rate * elapsed * elapsed / (2 * self->ramp_s)
                                : self->rate * elapsed;

  return (guint) MIN ((double) self->count, floor (due) + 1);
}

static gboolean
riv_burst_timer_cb (gpointer user_data)
{
  RivBurst *self = user_data;
  double elapsed = (g_get_monotonic_time () - self->started_us) / (double) G_USEC_PER_SEC;

  /* The ramp is over: so is the burst. */
  if (self->ramp_s > 0 && elapsed >= self->ramp_s)
    self->count = self->n_submitted;

  if (!riv_burst_submit_until (self, riv_burst_due (self, elapsed)))
    return G_SOURCE_REMOVE;   /* riv_burst_finish() cleared the source */
  return G_SOURCE_CONTINUE;
}

static void
riv_burst_dispose (GObject *object)
{
  RivBurst *self = (RivBurst *) object;

  riv_burst_clear_source (self);
  if (self->client != NULL)
    g_clear_signal_handler (&self->joining_id, self->client);
  self->running = FALSE;
  g_clear_object (&self->client);
  g_clear_pointer (&self->context, g_main_context_unref);

  G_OBJECT_CLASS (riv_burst_parent_class)->dispose (object);
}

static void
riv_burst_finalize (GObject *object)
{
  RivBurst *self = (RivBurst *) object;

  g_clear_pointer (&self->endpoint, g_free);
  g_clear_pointer (&self->data, json_node_unref);
  g_clear_pointer (&self->examples, g_ptr_array_unref);

  G_OBJECT_CLASS (riv_burst_parent_class)->finalize (object);
}

static void
riv_burst_get_property (GObject    *object,
                        guint       prop_id,
                        GValue     *value,
                        GParamSpec *pspec)
{
  RivBurst *self = RIV_BURST (object);

  switch (prop_id)
    {
    case PROP_COUNT:
      g_value_set_uint (value, riv_burst_get_count (self));
      break;
    case PROP_RATE:
      g_value_set_double (value, riv_burst_get_rate (self));
      break;
    case PROP_N_SUBMITTED:
      g_value_set_uint (value, riv_burst_get_n_submitted (self));
      break;
    case PROP_RUNNING:
      g_value_set_boolean (value, riv_burst_is_running (self));
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
riv_burst_class_init (RivBurstClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->dispose = riv_burst_dispose;
  object_class->finalize = riv_burst_finalize;
  object_class->get_property = riv_burst_get_property;

  properties[PROP_COUNT] =
    g_param_spec_uint ("count", NULL, NULL, 0, G_MAXUINT, 0,
                       (G_PARAM_READABLE | G_PARAM_STATIC_STRINGS));
  properties[PROP_RATE] =
    g_param_spec_double ("rate", NULL, NULL, 0, G_MAXDOUBLE, 0,
                         (G_PARAM_READABLE | G_PARAM_STATIC_STRINGS));
  properties[PROP_N_SUBMITTED] =
    g_param_spec_uint ("n-submitted", NULL, NULL, 0, G_MAXUINT, 0,
                       (G_PARAM_READABLE | G_PARAM_STATIC_STRINGS));
  properties[PROP_RUNNING] =
    g_param_spec_boolean ("running", NULL, NULL, FALSE,
                          (G_PARAM_READABLE | G_PARAM_STATIC_STRINGS));
  g_object_class_install_properties (object_class, N_PROPS, properties);

  signals[JOB_SUBMITTED] =
    g_signal_new ("job-submitted", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST,
                  0, NULL, NULL, NULL, G_TYPE_NONE, 1, RIV_TYPE_JOB);
  signals[FINISHED] =
    g_signal_new ("finished", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST,
                  0, NULL, NULL, NULL, G_TYPE_NONE, 0);
  signals[FAILED] =
    g_signal_new ("failed", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST,
                  0, NULL, NULL, NULL, G_TYPE_NONE, 1, G_TYPE_ERROR);
}

static void
riv_burst_init (RivBurst *self)
{
  self->max_joining = RIV_BURST_MAX_JOINING;
}

static RivBurst *
riv_burst_create (RivClient *client,
                  guint      count,
                  double     rate)
{
  RivBurst *self = g_object_new (RIV_TYPE_BURST, NULL);

  self->client = g_object_ref (client);
  self->count = count;
  self->rate = MAX (0, rate);
  return self;
}

RivBurst *
riv_burst_new (RivClient  *client,
               const char *endpoint,
               JsonNode   *data,
               guint       count,
               double      rate)
{
  RivBurst *self;

  g_return_val_if_fail (RIV_IS_CLIENT (client), NULL);
  g_return_val_if_fail (endpoint != NULL, NULL);
  g_return_val_if_fail (data != NULL, NULL);

  self = riv_burst_create (client, count, rate);
  self->endpoint = g_strdup (endpoint);
  self->data = json_node_ref (data);
  self->has_placeholder = riv_json_has_placeholder (data);

  return self;
}

void
riv_burst_set_examples (RivBurst  *self,
                        GPtrArray *examples)
{
  g_return_if_fail (RIV_IS_BURST (self));
  g_return_if_fail (self->data != NULL);

  g_clear_pointer (&self->examples, g_ptr_array_unref);
  if (examples != NULL && examples->len > 0)
    self->examples = g_ptr_array_ref (examples);
}

RivBurst *
riv_burst_new_with_func (RivClient          *client,
                         guint               count,
                         double              rate,
                         RivBurstSubmitFunc  submit,
                         gpointer            user_data)
{
  RivBurst *self;

  g_return_val_if_fail (RIV_IS_CLIENT (client), NULL);
  g_return_val_if_fail (submit != NULL, NULL);

  self = riv_burst_create (client, count, rate);
  self->submit = submit;
  self->submit_data = user_data;

  return self;
}

void
riv_burst_set_max_joining (RivBurst *self,
                           guint     max_joining)
{
  g_return_if_fail (RIV_IS_BURST (self));
  g_return_if_fail (!self->running && self->n_submitted == 0);

  self->max_joining = max_joining;
}

void
riv_burst_set_rate_ramp (RivBurst *self,
                         double    seconds)
{
  g_return_if_fail (RIV_IS_BURST (self));
  g_return_if_fail (!self->running && self->n_submitted == 0);
  g_return_if_fail (seconds > 0);

  self->ramp_s = seconds;
}

/* Starts it; with first_error, the first job goes out here and a refusal
 * comes back in it rather than as "failed". */
static gboolean
riv_burst_begin (RivBurst  *self,
                 GError   **first_error)
{
  g_autoptr(RivJob) first = NULL;
  guint interval;

  if (self->running || self->n_submitted > 0)
    return TRUE;

  if (first_error != NULL && self->count > 0)
    {
      first = riv_burst_submit_one (self, first_error);
      if (first == NULL)
        return FALSE;
      self->n_submitted++;
    }

  self->started_us = g_get_monotonic_time ();
  self->context = g_main_context_ref_thread_default ();
  self->running = TRUE;
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_RUNNING]);
  if (first != NULL)
    {
      g_signal_emit (self, signals[JOB_SUBMITTED], 0, first);
      g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_N_SUBMITTED]);
    }

  if (self->n_submitted >= self->count)
    {
      riv_burst_finish (self);
      return TRUE;
    }

  if (self->rate <= 0)
    {
      riv_burst_add_idle (self);
      return TRUE;
    }

  interval = (guint) CLAMP (1000.0 / self->rate, TICK_MIN_MS, TICK_MAX_MS);
  riv_burst_attach (self, g_timeout_source_new (interval), riv_burst_timer_cb);
  /* The first job goes out at once. */
  riv_burst_submit_until (self, 1);
  return TRUE;
}

void
riv_burst_start (RivBurst *self)
{
  g_return_if_fail (RIV_IS_BURST (self));

  riv_burst_begin (self, NULL);
}

gboolean
riv_burst_start_checked (RivBurst  *self,
                         GError   **error)
{
  g_return_val_if_fail (RIV_IS_BURST (self), FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

  if (error == NULL)
    {
      g_autoptr(GError) ignored = NULL;

      return riv_burst_begin (self, &ignored);
    }
  return riv_burst_begin (self, error);
}

void
riv_burst_stop (RivBurst *self)
{
  g_return_if_fail (RIV_IS_BURST (self));

  g_object_ref (self);
  riv_burst_finish (self);
  g_object_unref (self);
}

gboolean
riv_burst_is_running (RivBurst *self)
{
  g_return_val_if_fail (RIV_IS_BURST (self), FALSE);
  return self->running;
}

guint
riv_burst_get_count (RivBurst *self)
{
  g_return_val_if_fail (RIV_IS_BURST (self), 0);
  return self->count;
}

guint
riv_burst_get_n_submitted (RivBurst *self)
{
  g_return_val_if_fail (RIV_IS_BURST (self), 0);
  return self->n_submitted;
}

double
riv_burst_get_rate (RivBurst *self)
{
  g_return_val_if_fail (RIV_IS_BURST (self), 0);
  return self->rate;
}
