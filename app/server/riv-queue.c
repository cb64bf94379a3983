/* riv-queue.c
 * Copyright 2026 The Rivulet authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Ownership and threads. QueueEvent and the scheduling state belong to the
 * main context. A RivRun is one call of a demo (a batch is one run with
 * several members); it is shared with the worker thread that executes it:
 * the worker only reads the copied ids and params, and talks back through
 * the inbox. Frames a generator produces are appended to the run's outbox
 * (under the run's mutex, with cancellation and throttling) and the main
 * context takes them in batches: one inbox item per batch, however many
 * yields it holds. The main context decides what reaches a session: a member whose
 * event has completed (or was cancelled) has events[i] == NULL, and anything
 * the worker still produces for it is dropped, so every event gets exactly
 * one process_completed. The worker's side of a run (the calls a demo
 * makes, and the outbox) is riv-queue-run.c; what both share,
 * riv-queue-private.h.
 */
#include "config.h"

#include <math.h>
#include <string.h>

#include <glib/gstdio.h>

#include "riv-compat.h"
#include "riv-json.h"
#include "riv-queue-private.h"

static void schedule_soon (RivQueue *self);
static void schedule_now  (RivQueue *self);

/* Runs */

static void
out_file_clear (gpointer data)
{
  g_free (((OutFile *) data)->path);
}

static GArray *
out_files_new (void)
{
  GArray *files = g_array_new (FALSE, FALSE, sizeof (OutFile));

  g_array_set_clear_func (files, out_file_clear);
  return files;
}

static void
run_unref (RivRun *run)
{
  if (!g_atomic_int_dec_and_test (&run->ref_count))
    return;

  for (guint i = 0; i < run->size; i++)
    {
      riv_demo_params_free (run->params[i]);
      g_free (run->results[i]);
    }
  g_free (run->params);
  g_free (run->results);
  g_free (run->ids);
  g_free (run->events);
  g_free (run->error);
  g_queue_clear_full (&run->files, g_free);
  g_string_free (run->outbox, TRUE);
  if (run->outbox_spare != NULL)
    g_string_free (run->outbox_spare, TRUE);
  g_array_unref (run->outbox_files);
  if (run->scratch != NULL)
    g_string_free (run->scratch, TRUE);
  g_mutex_clear (&run->lock);
  g_cond_clear (&run->cond);
  g_free (run);
}

static RivRun *
run_new (RivQueue *queue,
         guint     fn_index,
         guint     size)
{
  RivRun *run = g_new0 (RivRun, 1);

  run->ref_count = 1;
  run->queue = queue;
  run->fn_index = fn_index;
  run->endpoint = &queue->ep_table[fn_index];
  run->size = size;
  run->ids = g_malloc0_n (size, sizeof *run->ids);
  run->params = g_new0 (RivDemoParams *, size);
  run->results = g_new0 (char *, size);
  run->events = g_new0 (QueueEvent *, size);
  g_queue_init (&run->files);
  run->outbox = g_string_new (NULL);
  run->outbox_files = out_files_new ();
  run->step_entry = (RivClockEntry) RIV_CLOCK_ENTRY_INIT;
  g_mutex_init (&run->lock);
  g_cond_init (&run->cond);
  return run;
}

/* A run in steps makes its next step at time at (its lock held). */
static void
run_step_soon (RivRun *run,
               gint64  at)
{
  run->step_state = STEP_TIMED;
  riv_clock_set (run->queue->clock, &run->step_entry, at);
}

/* A run in steps that waits for its reader makes its next step when due,
 * once its reader has caught up (its lock held). */
static void
run_step_reader_caught_up (RivRun *run)
{
  if (run->step_state == STEP_READER && !run->throttled && run->outbox->len < OUTBOX_MAX)
    run_step_soon (run, run->step_next);
}

static void
run_cancel (RivRun *run)
{
  g_mutex_lock (&run->lock);
  run->cancelled = TRUE;
  g_cond_broadcast (&run->cond);
  /* One waiting between steps stops now, not at its next step; one whose
   * step is being made (out of the clock) sees it as the step ends. */
  if (run->step_state == STEP_READER)
    run_step_soon (run, 0);
  else if (run->step_state == STEP_TIMED)
    riv_clock_move (run->queue->clock, &run->step_entry, 0);
  g_mutex_unlock (&run->lock);
}

static gboolean
run_has_members (RivRun *run)
{
  for (guint i = 0; i < run->size; i++)
    if (run->events[i] != NULL)
      return TRUE;
  return FALSE;
}

/* Frames (main context) */

static double
endpoint_avg (Endpoint *ep)
{
  return ep->n_runs > 0 ? ep->total_time / ep->n_runs : -1;
}

static RivFrame *
frame_process_starts (QueueEvent *ev,
                      RivRun     *run)
{
  GString *out = g_string_sized_new (160);

  riv_wire_begin_frame (out, "process_starts", ev->id);
  g_string_append (out, ",\"eta\":");
  riv_wire_append_eta (out, run->avg);
  riv_wire_append_batch (out, run->batch_id, run->size, ev->member);
  riv_wire_end_frame (out);
  return riv_frame_new_string (out);
}

static void
append_batch_of (GString    *out,
                 QueueEvent *ev)
{
  if (ev->state == EVENT_RUNNING && ev->run != NULL)
    riv_wire_append_batch (out, ev->run->batch_id, ev->run->size, ev->member);
}

static RivFrame *
frame_success (QueueEvent *ev,
               const char *data_json,
               double      duration,
               double      avg,
               gboolean    stamp)
{
  GString *out = g_string_sized_new (strlen (data_json) + 320);

  riv_wire_begin_frame (out, "process_completed", ev->id);
  g_string_append (out, ",\"output\":{\"data\":");
  g_string_append (out, data_json);
  g_string_append (out, ",\"is_generating\":false,\"duration\":");
  riv_wire_append_double (out, duration);
  g_string_append (out, ",\"average_duration\":");
  riv_wire_append_eta (out, avg);
  g_string_append (out, ",\"render_config\":null,\"changed_state_ids\":[],\"used_cache\":null}"
                   ",\"success\":true,\"title\":null,\"used_cache\":null,\"cache_duration\":null"
                   ",\"avg_time\":");
  riv_wire_append_eta (out, avg);
  append_batch_of (out, ev);
  if (stamp)
    riv_wire_append_stamps (out);
  riv_wire_end_frame (out);
  return riv_frame_new_string (out);
}

static RivFrame *
frame_failure (QueueEvent *ev,
               const char *message)
{
  GString *out = g_string_sized_new (320);

  riv_wire_begin_frame (out, "process_completed", ev->id);
  g_string_append (out, ",\"output\":{\"error\":");
  riv_wire_append_string (out, message, -1);
  g_string_append (out, ",\"duration\":null,\"visible\":true,\"title\":\"Error\"}"
                   ",\"success\":false,\"title\":\"Error\",\"used_cache\":null"
                   ",\"cache_duration\":null,\"avg_time\":null");
  append_batch_of (out, ev);
  riv_wire_end_frame (out);
  return riv_frame_new_string (out);
}

/* A completion that keeps @gradio/client 2.7.0's shared stream healthy
 * (protocol.md §6.1, §8e): a data array of nulls plus "cancelled": true. */
static RivFrame *
frame_cancelled (const RivRunEndpoint *endpoint,
                 QueueEvent           *ev,
                 double                avg)
{
  GString *out = g_string_sized_new (360);

  riv_wire_begin_frame (out, "process_completed", ev->id);
  g_string_append (out, ",\"output\":{\"data\":[");
  for (guint i = 0; i < endpoint->n_outputs; i++)
    g_string_append (out, i == 0 ? "null" : ",null");
  g_string_append (out, "],\"is_generating\":false,\"cancelled\":true,\"duration\":null"
                   ",\"average_duration\":");
  riv_wire_append_eta (out, avg);
  g_string_append (out, ",\"render_config\":null,\"changed_state_ids\":[],\"used_cache\":null}"
                   ",\"success\":true,\"cancelled\":true,\"title\":null,\"used_cache\":null"
                   ",\"cache_duration\":null,\"avg_time\":");
  riv_wire_append_eta (out, avg);
  append_batch_of (out, ev);
  riv_wire_end_frame (out);
  return riv_frame_new_string (out);
}

/* Events (main context) */

/* The inputs a session's live events hold; NULL when it has none. */
static guint64 *
session_inputs (RivQueue *self,
                gpointer  session)
{
  return g_hash_table_lookup (self->session_inputs, session);
}

static gboolean
inputs_fit (RivQueue *self,
            gpointer  session,
            gsize     size)
{
  guint64 *held = session_inputs (self, session);

  return (self->input_max == 0 || self->input_bytes + size <= self->input_max) &&
         (self->session_input_max == 0 ||
          (held != NULL ? *held : 0) + size <= self->session_input_max);
}

static void
inputs_add (RivQueue   *self,
            QueueEvent *ev)
{
  guint64 *held = session_inputs (self, ev->session);

  if (held == NULL)
    {
      held = g_new0 (guint64, 1);
      g_hash_table_insert (self->session_inputs, ev->session, held);
    }
  *held += ev->input_size;
  self->input_bytes += ev->input_size;
}

static void
inputs_remove (RivQueue   *self,
               QueueEvent *ev)
{
  guint64 *held = session_inputs (self, ev->session);

  self->input_bytes -= ev->input_size;
  *held -= ev->input_size;
  if (*held == 0)
    g_hash_table_remove (self->session_inputs, ev->session);
}

static void
event_free (RivQueue   *self,
            QueueEvent *ev)
{
  /* An unsent estimation stays in the session FIFO with its last values. */
  if (ev->estimation != NULL)
    ev->estimation->slot = NULL;
  inputs_remove (self, ev);
  riv_demo_params_free (ev->params);
  self->cb.session_unref (ev->session);
  g_free (ev);
}

/* Takes the event out of the queue and emits its one completion. */
static void
complete_event (RivQueue   *self,
                QueueEvent *ev,
                RivFrame   *frame)
{
  Endpoint *ep = &self->endpoints[ev->fn_index];

  if (ev->state == EVENT_WAITING)
    {
      g_queue_unlink (&ep->waiting, &ev->link);
      self->n_waiting--;
    }
  else if (ev->run != NULL)
    ev->run->events[ev->member] = NULL;

  g_hash_table_steal (self->live, ev->id);

  if (frame != NULL)
    {
      frame->completes = g_strdup (ev->id);
      self->cb.emit (ev->session, frame, self->cb_data);
    }
  event_free (self, ev);
}

/* Estimations */

/* Seconds until a slot of this endpoint frees up: 0 if one is free now, < 0
 * when unknown (protocol.md §6.5). */
static double
endpoint_free_in (RivQueue *self,
                  Endpoint *ep,
                  double    now)
{
  double avg = endpoint_avg (ep);
  double soonest = INFINITY;

  if (ep->running < self->concurrency)
    return 0;
  if (avg < 0)
    return -1;
  for (guint i = 0; i < ep->runs->len; i++)
    {
      RivRun *run = g_ptr_array_index (ep->runs, i);
      soonest = MIN (soonest, run->t_start + avg);
    }
  if (!isfinite (soonest))
    return 0;
  return MAX (0, soonest - now);
}

static double
estimate_eta (RivQueue *self,
              guint     fn_index,
              double    free_in,
              guint     rank)
{
  Endpoint *ep = &self->endpoints[fn_index];
  const RivRunEndpoint *endpoint = &self->ep_table[fn_index];
  double avg = endpoint_avg (ep);
  double per_slot = self->concurrency * (endpoint->batch ? endpoint->max_batch_size : 1);

  if (avg < 0 || free_in < 0)
    return -1;
  return avg + free_in + rank * avg / per_slot;
}

static void
send_estimation (RivQueue   *self,
                 QueueEvent *ev,
                 guint       rank,
                 guint       queue_size,
                 double      eta)
{
  RivFrame *frame;

  if (ev->estimation != NULL)
    {
      /* Not written yet: update it rather than queueing another one. */
      ev->estimation->rank = rank;
      ev->estimation->queue_size = queue_size;
      ev->estimation->rank_eta = eta;
      return;
    }

  frame = riv_frame_new_estimation (ev->id, rank, queue_size, eta);
  frame->slot = &ev->estimation;
  ev->estimation = frame;
  self->cb.emit (ev->session, frame, self->cb_data);
}

static void
broadcast_estimations (RivQueue *self,
                       guint     fn_index)
{
  Endpoint *ep = &self->endpoints[fn_index];
  double free_in = endpoint_free_in (self, ep, riv_now ());
  guint rank = 0;

  ep->last_broadcast = g_get_monotonic_time ();
  for (GList *l = ep->waiting.head; l != NULL; l = l->next, rank++)
    send_estimation (self, l->data, rank, ep->waiting.length,
                     estimate_eta (self, fn_index, free_in, rank));
}

typedef struct
{
  RivQueue *queue;
  guint     fn_index;
} BroadcastData;

static gboolean
broadcast_timeout_cb (gpointer user_data)
{
  BroadcastData *data = user_data;
  Endpoint *ep = &data->queue->endpoints[data->fn_index];

  g_clear_pointer (&ep->broadcast_source, g_source_unref);
  broadcast_estimations (data->queue, data->fn_index);
  return G_SOURCE_REMOVE;
}

/* Sends every waiting event of the endpoint its new rank. A broadcast costs
 * one frame per waiting event, so they are spaced out: at least 100 ms
 * apart, and 100 µs per waiting event apart for long queues (at most about
 * 10 000 estimation frames a second per endpoint). A start that falls inside
 * the spacing is followed by a broadcast when it ends. Gradio broadcasts on
 * every start, which is quadratic in the queue length. */
static void
request_broadcast (RivQueue *self,
                   guint     fn_index)
{
  Endpoint *ep = &self->endpoints[fn_index];
  gint64 now, interval, due;
  BroadcastData *data;

  if (ep->waiting.length == 0 || ep->broadcast_source != NULL || self->shut_down)
    return;

  now = g_get_monotonic_time ();
  interval = MAX (BROADCAST_MIN_INTERVAL_US, (gint64) ep->waiting.length * BROADCAST_US_PER_EVENT);
  due = ep->last_broadcast + interval;
  if (now >= due)
    {
      broadcast_estimations (self, fn_index);
      return;
    }

  data = g_new (BroadcastData, 1);
  data->queue = self;
  data->fn_index = fn_index;
  ep->broadcast_source = g_timeout_source_new ((guint) ((due - now + 999) / 1000));
  g_source_set_callback (ep->broadcast_source, broadcast_timeout_cb, data, g_free);
  g_source_set_name (ep->broadcast_source, "[rivulet] estimation broadcast");
  g_source_attach (ep->broadcast_source, self->context);
}

/* A run's frames, taken from its worker (main context) */

static void
worker_func (gpointer data,
             gpointer user_data);

/* Takes what the worker produced so far (main context). */
void
_riv_queue_outbox_cb (gpointer data,
                      gboolean discard)
{
  RivRun *run = data;
  RivQueue *self = run->queue;
  GString *frames;
  GArray *files;
  QueueEvent *ev;

  g_mutex_lock (&run->lock);
  frames = run->outbox;
  files = run->outbox_files;
  run->outbox = run->outbox_spare != NULL ? run->outbox_spare : g_string_new (NULL);
  run->outbox_spare = NULL;
  run->outbox_files = out_files_new ();
  run->outbox_posted = FALSE;
  if (run->worker_waiting)
    g_cond_signal (&run->cond);
  g_mutex_unlock (&run->lock);

  if (discard)
    goto out;

  for (guint i = 0; i < files->len; i++)
    {
      OutFile *file = &g_array_index (files, OutFile, i);
      char *path = g_steal_pointer (&file->path);

      self->cb.file_created (g_strdup (path), file->size, self->cb_data);
      g_queue_push_tail (&run->files, path);
      while (run->files.length > RUN_KEEP_FILES)
        {
          g_autofree char *old = g_queue_pop_head (&run->files);
          self->cb.file_expired (old, self->cb_data);
        }
    }

  /* Frames of a member that completed (or was cancelled) are dropped. The
   * frame is a copy of the exact size: the outbox grew by doubling on the
   * worker's side, and is kept for the worker's next frames (two a run,
   * taken in turn) rather than freed here, on another thread than the one
   * whose allocator arena it came from. */
  ev = run->events[0];
  if (ev != NULL && frames->len > 0)
    {
      self->cb.emit (ev->session, riv_frame_new_take (g_memdup2 (frames->str, frames->len + 1),
                                                     frames->len),
                     self->cb_data);
      if (self->cb.congested (ev->session, self->cb_data))
        {
          g_mutex_lock (&run->lock);
          run->throttled = TRUE;
          g_mutex_unlock (&run->lock);
        }
    }

out:
  g_string_truncate (frames, 0);
  g_mutex_lock (&run->lock);
  if (run->outbox_spare == NULL)
    run->outbox_spare = g_steal_pointer (&frames);
  /* Taken, and not found congested: a run in steps waiting for it goes on. */
  run_step_reader_caught_up (run);
  g_mutex_unlock (&run->lock);
  if (frames != NULL)
    g_string_free (frames, TRUE);
  g_array_unref (files);
  run_unref (run);
}

/* Appends the frame in run->scratch to the outbox (worker thread). Waits
 * while the reader iion (keep_state)
 * and leave null in their place, as Gradio sends them. */
static void
keep_states (RivQueue   *self,
             RivRun     *run,
             QueueEvent *ev,
             char      **result)
{
  g_autoptr(JsonNode) root = NULL;
  JsonArray *values;

  if (run->endpoint->state_outputs == 0 || self->cb.keep_state == NULL)
    return;
  root = riv_json_parse (NULL, *result, -1, 0, NULL);
  if (root == NULL || !JSON_NODE_HOLDS_ARRAY (root))
    return;
  values = json_node_get_array (root);
  for (guint k = 0; k < json_array_get_length (values) && k < 32; k++)
    {
      g_autofree char *value = NULL;

      if ((run->endpoint->state_outputs & (1u << k)) == 0)
        continue;
      value = riv_json_to_string (json_array_get_element (values, k), NULL);
      self->cb.keep_state (ev->session, run->fn_index, k, value, self->cb_data);
      json_node_init_null (json_array_get_element (values, k));
    }
  g_free (*result);
  *result = riv_json_to_string (root, NULL);
}

static void
run_finished (RivRun *run)
{
  RivQueue *self = run->queue;
  Endpoint *ep = &self->endpoints[run->fn_index];
  double duration = run->t_end - run->t_start;
  double avg;

  ep->running--;
  if (!run->cancelled)
    {
      ep->total_time += duration;
      ep->n_runs++;
    }
  avg = endpoint_avg (ep);

  for (guint i = 0; i < run->size; i++)
    {
      QueueEvent *ev = run->events[i];
      RivFrame *frame;

      if (ev == NULL)
        continue;
      if (run->error != NULL)
        frame = frame_failure (ev, run->error);
      else if (run->results[i] != NULL)
        {
          keep_states (self, run, ev, &run->results[i]);
          frame = frame_success (ev, run->results[i], duration, avg, run->queue->stamp);
        }
      else if (run->cancelled)
        frame = frame_cancelled (run->endpoint, ev, avg);
      else
        frame = frame_failure (ev, "The demo ended without a result");
      complete_event (self, ev, frame);
    }

  if (run->endpoint->batch)
    {
      self->batch_items += run->size;
      if (self->verbose)
        g_printerr ("rivulet: %s batch %" G_GINT64_FORMAT ": size %u, total items %"
                    G_GUINT64_FORMAT "\n",
                    run->endpoint->api_name, run->batch_id, run->size, self->batch_items);
      if (self->cb.batch_done != NULL)
        self->cb.batch_done (run->endpoint->api_name, run->size, self->batch_items, self->cb_data);
    }

  /* Drops the endpoint's reference. */
  g_ptr_array_remove_fast (ep->runs, run);
  /* The slot is taken at once: a client that joins again as soon as it
   * reads the completion must not find the queue still holding the event
   * about to start in it (a full queue one job early). */
  schedule_now (self);
}

static void
run_done_cb (gpointer data,
             gboolean discard)
{
  RivRun *run = data;

  if (!discard)
    run_finished (run);
  run_unref (run);
}

static void
worker_func (gpointer data,
             gpointer user_data)
{
  RivRun *run = data;

  if (!riv_run_is_cancelled (run))
    run->endpoint->run (run);
  run->t_end = riv_now ();
  /* Hands the pool's reference to the inbox. */
  riv_inbox_post (run->queue->inbox, run_done_cb, run);
}

/* One step of a run in steps, on the clock's thread, as it is due. Between
 * steps the run is in the clock, or waits for its reader; after its last it
 * posts its end as a run on a thread does. */
static void
run_step (RivClockEntry *entry,
          gpointer       user_data)
{
  RivRun *run = (RivRun *) ((char *) entry - G_STRUCT_OFFSET (RivRun, step_entry));
  const RivRunSteps *steps = run->endpoint->steps;
  gint64 next = RIV_RUN_STEPS_DONE;
  gboolean cancelled;

  g_mutex_lock (&run->lock);
  run->step_state = STEP_IDLE;
  cancelled = run->cancelled;
  g_mutex_unlock (&run->lock);

  if (!cancelled)
    {
      if (!run->step_begun)
        {
          run->step_data = steps->begin (run);
          run->step_begun = TRUE;
        }
      next = steps->step (run, run->step_data);
    }

  if (next != RIV_RUN_STEPS_DONE)
    {
      g_mutex_lock (&run->lock);
      if (!run->cancelled)
        {
          if (run->throttled || run->outbox->len >= OUTBOX_MAX)
            {
              run->step_state = STEP_READER;
              run->step_next = next;
            }
          else
            run_step_soon (run, next);
          g_mutex_unlock (&run->lock);
          return;
        }
      g_mutex_unlock (&run->lock);
    }

  if (run->step_begun)
    steps->end (g_steal_pointer (&run->step_data));
  run->t_end = riv_now ();
  /* Hands the clock's reference to the inbox. */
  riv_inbox_post (run->queue->inbox, run_done_cb, run);
}

static void
start_run (RivQueue *self,
           guint     fn_index)
{
  Endpoint *ep = &self->endpoints[fn_index];
  const RivRunEndpoint *endpoint = &self->ep_table[fn_index];
  guint size = endpoint->batch ? MIN (endpoint->max_batch_size, ep->waiting.length) : 1;
  RivRun *run = run_new (self, fn_index, size);
  g_autoptr(GError) error = NULL;

  /* The head plus the next waiting events of this endpoint, in order. */
  for (guint i = 0; i < size; i++)
    {
      GList *link = g_queue_pop_head_link (&ep->waiting);
      QueueEvent *ev = link->data;

      self->n_waiting--;
      ev->state = EVENT_RUNNING;
      ev->run = run;
      ev->member = i;
      if (ev->estimation != NULL)
        {
          ev->estimation->slot = NULL;
          ev->estimation = NULL;
        }
      run->events[i] = ev;
      memcpy (run->ids[i], ev->id, sizeof run->ids[i]);
      run->params[i] = g_steal_pointer (&ev->params);
    }

  run->batch_id = endpoint->batch ? ++self->next_batch_id : 0;
  run->avg = endpoint_avg (ep);
  run->t_start = riv_now ();
  run->last_yield = run->t_start;

  ep->running++;
  g_ptr_array_add (ep->runs, run_ref (run));

  for (guint i = 0; i < size; i++)
    self->cb.emit (run->events[i]->session, frame_process_starts (run->events[i], run),
                   self->cb_data);

  /* The pool's (or the clock's) reference: the run's own. */
  if (endpoint->steps != NULL)
    {
      g_mutex_lock (&run->lock);
      run_step_soon (run, 0);
      g_mutex_unlock (&run->lock);
    }
  else if (!g_thread_pool_push (self->pool, run, &error))
    {
      /* Cannot happen with an unlimited task queue; fail loudly but cleanly. */
      g_warning ("Could not start a worker: %s", error->message);
      riv_run_fail (run, "Could not start a worker thread");
      run->t_end = run->t_start;
      riv_inbox_post (self->inbox, run_done_cb, run);
    }
}

/* Starts what free slots can take now. */
static void
schedule_now (RivQueue *self)
{
  if (self->schedule_source != NULL)
    {
      g_source_destroy (self->schedule_source);
      g_clear_pointer (&self->schedule_source, g_source_unref);
    }
  if (self->shut_down)
    return;

  /* Endpoints are independent; rotate the starting one for fairness. */
  for (guint k = 0; k < self->n_endpoints; k++)
    {
      guint fn = (self->schedule_start + k) % self->n_endpoints;
      Endpoint *ep = &self->endpoints[fn];
      gboolean started = FALSE;

      while (ep->running < self->concurrency && ep->waiting.length > 0)
        {
          start_run (self, fn);
          started = TRUE;
        }
      if (started)
        request_broadcast (self, fn);
    }
  self->schedule_start = (self->schedule_start + 1) % self->n_endpoints;
}

static gboolean
schedule_cb (gpointer user_data)
{
  RivQueue *self = user_data;

  g_clear_pointer (&self->schedule_source, g_source_unref);
  schedule_now (self);
  return G_SOURCE_REMOVE;
}

static void
schedule_soon (RivQueue *self)
{
  if (self->schedule_source != NULL || self->shut_down)
    return;
  self->schedule_source = g_idle_source_new ();
  g_source_set_priority (self->schedule_source, G_PRIORITY_DEFAULT);
  g_source_set_callback (self->schedule_source, schedule_cb, self, NULL);
  g_source_set_name (self->schedule_source, "[rivulet] schedule");
  g_source_attach (self->schedule_source, self->context);
}

/* Public API */

RivQueue *
riv_queue_new (GMainContext            *context,
               RivInbox                *inbox,
               const RivRunEndpoint    *endpoints,
               guint                    n_endpoints,
               const RivQueueCallbacks *callbacks,
               gpointer                 user_data)
{
  RivQueue *self;

  g_return_val_if_fail (endpoints != NULL && n_endpoints > 0, NULL);

  self = g_new0 (RivQueue, 1);
  self->ep_table = endpoints;
  self->n_endpoints = n_endpoints;
  self->endpoints = g_new0 (Endpoint, n_endpoints);

  self->context = g_main_context_ref (context);
  self->inbox = inbox;
  self->cb = *callbacks;
  self->cb_data = user_data;
  self->concurrency = 8;
  self->max_waiting = 10000;
  self->live = g_hash_table_new (g_str_hash, g_str_equal);
  self->session_inputs = g_hash_table_new_full (NULL, NULL, NULL, g_free);
  for (guint i = 0; i < n_endpoints; i++)
    {
      g_queue_init (&self->endpoints[i].waiting);
      self->endpoints[i].runs = g_ptr_array_new_with_free_func ((GDestroyNotify) run_unref);
    }
  /* Every running demo gets its own thread: demos sleep between steps, and
   * a run waiting for a thread would break the concurrency promise. Demos
   * in steps share the clock's thread instead. */
  self->pool = g_thread_pool_new (worker_func, self, self->concurrency * n_endpoints, FALSE, NULL);
  for (guint i = 0; i < n_endpoints && self->clock == NULL; i++)
    if (endpoints[i].steps != NULL)
      self->clock = riv_clock_new ("rivulet-steps", run_step, self);
  return self;
}

void
riv_queue_free (RivQueue *self)
{
  if (self == NULL)
    return;

  riv_queue_shutdown (self);
  for (guint i = 0; i < self->n_endpoints; i++)
    g_ptr_array_unref (self->endpoints[i].runs);
  g_free (self->endpoints);
  g_hash_table_unref (self->live);
  g_hash_table_unref (self->session_inputs);
  g_free (self->output_dir);
  g_free (self->base_url);
  g_main_context_unref (self->context);
  g_free (self);
}

void
riv_queue_set_concurrency (RivQueue *self,
                           guint     concurrency)
{
  self->concurrency = MAX (concurrency, 1);
  if (self->pool != NULL)
    g_thread_pool_set_max_threads (self->pool, self->concurrency * self->n_endpoints, NULL);
  schedule_soon (self);
}

void
riv_queue_set_max_waiting (RivQueue *self,
                           guint     max_waiting)
{
  self->max_waiting = max_waiting;
}

void
riv_queue_set_stamp (RivQueue *self,
                     gboolean  stamp)
{
  g_return_if_fail (self != NULL);
  self->stamp = stamp;
}

gboolean
riv_queue_get_stamp (RivQueue *self)
{
  g_return_val_if_fail (self != NULL, FALSE);
  return self->stamp;
}

void
riv_queue_set_input_limits (RivQueue *self,
                            guint64   session_max,
                            guint64   total_max)
{
  self->session_input_max = session_max;
  self->input_max = total_max;
}

void
riv_queue_set_verbose (RivQueue *self,
                       gboolean  verbose)
{
  self->verbose = verbose;
}

void
riv_queue_set_output (RivQueue   *self,
                      const char *output_dir,
                      const char *base_url)
{
  riv_set_str (&self->output_dir, output_dir);
  riv_set_str (&self->base_url, base_url);
}

RivQueueStatus
riv_queue_push (RivQueue      *self,
                guint          fn_index,
                const char    *event_id,
                RivDemoParams *params,
                gpointer       session,
                guint         *max_size,
                guint         *size)
{
  Endpoint *ep;
  QueueEvent *ev;
  gsize input_size = riv_demo_params_get_size (params);

  g_return_val_if_fail (fn_index < self->n_endpoints, RIV_QUEUE_STOPPED);

  if (self->shut_down)
    return RIV_QUEUE_STOPPED;
  if (self->max_waiting > 0 && self->n_waiting >= self->max_waiting)
    {
      if (max_size != NULL)
        *max_size = self->max_waiting;
      if (size != NULL)
        *size = self->n_waiting;
      return RIV_QUEUE_FULL;
    }
  if (!inputs_fit (self, session, input_size))
    return RIV_QUEUE_INPUTS_FULL;

  ep = &self->endpoints[fn_index];
  ev = g_new0 (QueueEvent, 1);
  g_strlcpy (ev->id, event_id, sizeof ev->id);
  ev->fn_index = fn_index;
  ev->state = EVENT_WAITING;
  ev->params = params;
  ev->session = self->cb.session_ref (session);
  ev->input_size = input_size;
  ev->joined = g_get_monotonic_time ();
  inputs_add (self, ev);
  ev->link.data = ev;
  g_queue_push_tail_link (&ep->waiting, &ev->link);
  self->n_waiting++;
  g_hash_table_insert (self->live, ev->id, ev);

  send_estimation (self, ev, ep->waiting.length - 1, ep->waiting.length,
                   estimate_eta (self, fn_index, endpoint_free_in (self, ep, riv_now ()),
                                 ep->waiting.length - 1));
  schedule_soon (self);
  return RIV_QUEUE_OK;
}

gboolean
riv_queue_has_event (RivQueue   *self,
                     const char *event_id)
{
  return g_hash_table_contains (self->live, event_id);
}

/* Completes a live event with frame (NULL: none, for a session that is
 * going away) and stops its run when no member of it is left. */
static void
end_event (RivQueue   *self,
           QueueEvent *ev,
           RivFrame   *frame)
{
  RivRun *run = ev->state == EVENT_RUNNING ? ev->run : NULL;
  guint fn_index = ev->fn_index;

  complete_event (self, ev, frame);
  /* A batch keeps running for its other members; a run nobody waits for
   * any more stops at its next step. */
  if (run != NULL && !run_has_members (run))
    run_cancel (run);
  else if (run == NULL)
    request_broadcast (self, fn_index);
}

gboolean
riv_queue_cancel (RivQueue   *self,
                  const char *event_id,
                  gpointer    session)
{
  QueueEvent *ev = g_hash_table_lookup (self->live, event_id);

  if (ev == NULL || ev->session != session)
    return FALSE;

  end_event (self, ev, frame_cancelled (&self->ep_table[ev->fn_index], ev,
                                        endpoint_avg (&self->endpoints[ev->fn_index])));
  return TRUE;
}

/* The session's live events joined before joined_before (monotonic µs). */
static GPtrArray *
session_events (RivQueue *self,
                gpointer  session,
                gint64    joined_before)
{
  GPtrArray *events = g_ptr_array_new ();
  GHashTableIter iter;
  gpointer value;

  if (session_inputs (self, session) == NULL)
    return events;
  g_hash_table_iter_init (&iter, self->live);
  while (g_hash_table_iter_next (&iter, NULL, &value))
    {
      QueueEvent *ev = value;

      if (ev->session == session && ev->joined < joined_before)
        g_ptr_array_add (events, ev);
    }
  return events;
}

void
riv_queue_drop_session (RivQueue *self,
                        gpointer  session)
{
  g_autoptr(GPtrArray) doomed = session_events (self, session, G_MAXINT64);

  for (guint i = 0; i < doomed->len; i++)
    end_event (self, g_ptr_array_index (doomed, i), NULL);
}

guint
riv_queue_fail_unread (RivQueue   *self,
                       gpointer    session,
                       gint64      joined_before,
                       const char *message)
{
  g_autoptr(GPtrArray) doomed = session_events (self, session, joined_before);

  for (guint i = 0; i < doomed->len; i++)
    {
      QueueEvent *ev = g_ptr_array_index (doomed, i);

      end_event (self, ev, frame_failure (ev, message));
    }
  return doomed->len;
}

gboolean
riv_queue_session_has_events (RivQueue *self,
                              gpointer  session)
{
  return session_inputs (self, session) != NULL;
}

guint64
riv_queue_get_input_bytes (RivQueue *self,
                           gpointer  session)
{
  guint64 *held;

  if (session == NULL)
    return self->input_bytes;
  held = session_inputs (self, session);
  return held != NULL ? *held : 0;
}

void
riv_queue_session_drained (RivQueue *self,
                           gpointer  session)
{
  for (guint fn = 0; fn < self->n_endpoints; fn++)
    {
      GPtrArray *runs = self->endpoints[fn].runs;

      for (guint i = 0; i < runs->len; i++)
        {
          RivRun *run = g_ptr_array_index (runs, i);

          for (guint m = 0; m < run->size; m++)
            if (run->events[m] != NULL && run->events[m]->session == session)
              {
                g_mutex_lock (&run->lock);
                run->throttled = FALSE;
                g_cond_broadcast (&run->cond);
                run_step_reader_caught_up (run);
                g_mutex_unlock (&run->lock);
                break;
              }
        }
    }
}

void
riv_queue_shutdown (RivQueue *self)
{
  g_autoptr(GPtrArray) events = NULL;

  if (self->shut_down)
    return;
  self->shut_down = TRUE;

  if (self->schedule_source != NULL)
    {
      g_source_destroy (self->schedule_source);
      g_clear_pointer (&self->schedule_source, g_source_unref);
    }
  for (guint fn = 0; fn < self->n_endpoints; fn++)
    {
      Endpoint *ep = &self->endpoints[fn];

      if (ep->broadcast_source != NULL)
        {
          g_source_destroy (ep->broadcast_source);
          g_clear_pointer (&ep->broadcast_source, g_source_unref);
        }
    }

  /* Every event still live gets its completion: a failure. */
  events = g_ptr_array_new ();
  {
    GHashTableIter iter;
    gpointer value;

    g_hash_table_iter_init (&iter, self->live);
    while (g_hash_table_iter_next (&iter, NULL, &value))
      g_ptr_array_add (events, value);
  }
  for (guint i = 0; i < events->len; i++)
    {
      QueueEvent *ev = g_ptr_array_index (events, i);
      complete_event (self, ev, frame_failure (ev, "Server shutting down"));
    }

  for (guint fn = 0; fn < self->n_endpoints; fn++)
    {
      GPtrArray *runs = self->endpoints[fn].runs;

      for (guint i = 0; i < runs->len; i++)
        run_cancel (g_ptr_array_index (runs, i));
    }

  /* Cancelled runs return at their next step (those in steps at once, on
   * the clock); then collect what they posted. */
  if (self->pool != NULL)
    {
      g_thread_pool_free (self->pool, FALSE, TRUE);
      self->pool = NULL;
    }
  g_clear_pointer (&self->clock, riv_clock_free);
  riv_inbox_flush (self->inbox, FALSE);
}

guint
riv_queue_get_n_waiting (RivQueue *self)
{
  return self->n_waiting;
}

guint
riv_queue_get_n_live (RivQueue *self)
{
  return g_hash_table_size (self->live);
}

guint
riv_queue_get_n_running (RivQueue *self)
{
  guint n = 0;

  for (guint fn = 0; fn < self->n_endpoints; fn++)
    n += self->endpoints[fn].running;
  return n;
}

guint64
riv_queue_get_batch_items (RivQueue *self)
{
  return self->batch_items;
}
