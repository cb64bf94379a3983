/* riv-load-run-threads.c
 * Copyright 2026 The Rivulet authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * RivLoadRun over threads (riv_load_run_set_threads ()): the run becomes the
 * parent of one child run a thread, each a shard of its users (the parent's
 * shard I of M makes thread t shard I + M * t of M * N) working on a thread
 * and a GMainContext of its own (riv_load_run_set_threaded ()). The children
 * share one atomic counter, the job sequence, so that the job numbers, and
 * with them the inputs after "{i}" substitution, the record slots and the
 * numbering of a --shard, are those of one thread; and the parent's
 * statistics, each finished job counted into them under their lock (so that
 * nothing is kept per job: riv-load-stats.h). Each child posts its samples
 * and its end to the owner's context with a snapshot of its counters
 * (riv-load-run.c's post ()); the parent merges them there: a sample once
 * every thread has sent its sample of that second (or ended), the held
 * records and server-event index when the last thread has ended.
 */
#include "config.h"

#include "riv-json.h"
#include "riv-load-run-private.h"

/* One second of the parent's, summed over the threads that sent it. */
typedef struct
{
  RivLoadSample sample;
  GArray       *latencies;   /* double, the completed jobs of that second */
  GArray       *firsts;      /* double, their times to first update */
  guint         n;           /* threads that sent it */
} MergedSample;

static void
merged_sample_clear (gpointer data)
{
  MergedSample *merged = data;

  g_clear_pointer (&merged->latencies, g_array_unref);
  g_clear_pointer (&merged->firsts, g_array_unref);
}

static void
user_started_cb (RivLoadRun *child,
                 RivClient  *client,
                 RivLoadRun *self)
{
  g_signal_emit (self, _riv_load_run_signals[SIGNAL_USER_STARTED], 0, client);
}

/* Starts the threads when the run asks for more than one and can use them;
 * FALSE: the run works alone, as it would without threads. */
gboolean
_riv_load_run_threads_start (RivLoadRun *self)
{
  guint n = MIN (self->params.n_threads, riv_load_run_get_target_users (self));

  if (n < 2 || self->brk.until_break || self->params.metrics != NULL ||
      self->threads.parent != NULL || self->users.arrival != NULL)
    return FALSE;

  self->threads.shared_sequence = g_atomic_rc_box_new0 (gsize);
  self->threads.children = g_ptr_array_new_with_free_func (g_object_unref);
  self->threads.merging = g_array_new (FALSE, TRUE, sizeof (MergedSample));
  g_array_set_clear_func (self->threads.merging, merged_sample_clear);
  for (guint t = 0; t < n; t++)
    {
      /* A tree of its own: json-glib counts references to arrays and objects
       * without atomics, and riv_load_run_new ()'s copy shares them. */
      g_autofree char *text = riv_json_to_string (self->params.template, NULL);
      g_autoptr(JsonNode) template = riv_json_parse (NULL, text, -1, 0, NULL);
      RivLoadRun *child = riv_load_run_new (self->params.client, self->params.endpoint_name,
                                            template);

      child->threads.parent = self;
      riv_load_run_set_shard (child, self->params.shard + self->params.n_shards * t,
                              self->params.n_shards * n);
      child->params.index_shard = self->params.index_shard;
      child->params.n_index_shards = self->params.n_index_shards;
      child->threads.shared_sequence = g_atomic_rc_box_acquire (self->threads.shared_sequence);
      riv_load_run_set_users (child, self->params.users, self->params.think,
                              self->params.duration, self->params.iterations);
      if (self->params.stages != NULL)
        riv_load_run_set_stages (child, g_array_copy (self->params.stages));
      child->params.timeout = self->params.timeout;
      if (self->params.templates != NULL)
        {
          g_autoptr(GPtrArray) templates = _riv_load_run_copy_templates (self->params.templates);

          riv_load_run_set_templates (child, templates);
        }
      _riv_load_run_scenarios_copy (self, child);
      /* One set of statistics for the run: its series' seconds close as they pass. */
      riv_load_stats_free (child->stats);
      child->stats = riv_load_stats_ref (self->stats);
      child->params.upload_files = self->params.upload_files;
      riv_load_run_set_keep_records (child, self->records != NULL);
      riv_load_run_set_record_func (child, self->record_func, self->record_data);
      riv_load_run_set_brief_func (child, self->brief_func, self->brief_data);
      riv_load_run_set_track_events (child, self->events != NULL);
      riv_load_run_set_threaded (child, TRUE);
      g_signal_connect (child, "user-started", G_CALLBACK (user_started_cb), self);
      g_ptr_array_add (self->threads.children, child);
    }
  for (guint t = 0; t < n; t++)
    riv_load_run_start (g_ptr_array_index (self->threads.children, t), NULL);
  return TRUE;
}

void
_riv_load_run_threads_stop (RivLoadRun *self,
                            gboolean    interrupted)
{
  for (guint t = 0; t < self->threads.children->len; t++)
    riv_load_run_stop (g_ptr_array_index (self->threads.children, t), interrupted);
}

/* The counters the owner reads: the threads' last snapshots, summed. */
static void
sum_snapshots (RivLoadRun *self)
{
  Snapshot sum = { 0 };

  for (guint t = 0; t < self->threads.children->len; t++)
    {
      RivLoadRun *child = g_ptr_array_index (self->threads.children, t);
      const Snapshot *shown = &child->threads.shown;

      sum.submitted += shown->submitted;
      sum.finished += shown->finished;
      riv_outcomes_merge (&sum.outcomes, &shown->outcomes);
      sum.events += shown->events;
      sum.active_users += shown->active_users;
      sum.peak_users += shown->peak_users;
      sum.elapsed = MAX (sum.elapsed, shown->elapsed);
    }
  /* The connected client's, as one thread counts them (the threads skip it). */
  sum.events += riv_client_get_n_messages (self->params.client);
  self->threads.shown = sum;
}

guint64 *
_riv_load_run_threads_batch_sizes (RivLoadRun *self,
                                   guint      *max_size)
{
  /* The threads count into the run's own statistics (one lock). */
  return riv_load_stats_batch_sizes (self->stats, max_size);
}

static void
add_sample (MergedSample        *merged,
            const RivLoadSample *sample,
            GArray              *latencies,
            GArray              *firsts)
{
  RivLoadSample *sum = &merged->sample;

  sum->t = MAX (sum->t, sample->t);
  sum->started += sample->started;
  sum->completed += sample->completed;
  sum->failed += sample->failed;
  sum->cancelled += sample->cancelled;
  sum->lost += sample->lost;
  sum->in_flight += sample->in_flight;
  sum->queued += sample->queued;
  sum->users += sample->users;
  sum->updates_per_s += sample->updates_per_s;
  sum->stalls += sample->stalls;
  if (merged->latencies == NULL)
    merged->latencies = g_array_new (FALSE, FALSE, sizeof (double));
  if (latencies != NULL)
    g_array_append_vals (merged->latencies, latencies->data, latencies->len);
  if (merged->firsts == NULL)
    merged->firsts = g_array_new (FALSE, FALSE, sizeof (double));
  if (firsts != NULL)
    g_array_append_vals (merged->firsts, firsts->data, firsts->len);
  merged->n++;
}

/* Emits the merged samples every thread has sent (or ended before), in order. */
static void
emit_ready (RivLoadRun *self)
{
  while (self->window.n_samples < self->threads.merging->len)
    {
      guint index = self->window.n_samples + 1;
      MergedSample *merged = &g_array_index (self->threads.merging, MergedSample, index - 1);
      RivLoadSample sample;

      for (guint t = 0; t < self->threads.children->len; t++)
        {
          RivLoadRun *child = g_ptr_array_index (self->threads.children, t);

          if (!child->done && child->threads.n_delivered < index)
            return;
        }
      self->window.n_samples++;
      if (merged->n == 0)
        continue;
      sample = merged->sample;
      g_array_sort (merged->latencies, riv_load_compare_doubles);
      sample.p50 = _riv_load_run_window_percentile (merged->latencies, 0.50);
      sample.p95 = _riv_load_run_window_percentile (merged->latencies, 0.95);
      sample.p99 = _riv_load_run_window_percentile (merged->latencies, 0.99);
      g_clear_pointer (&merged->latencies, g_array_unref);
      g_array_sort (merged->firsts, riv_load_compare_doubles);
      sample.first_p50 = _riv_load_run_window_percentile (merged->firsts, 0.50);
      sample.first_p95 = _riv_load_run_window_percentile (merged->firsts, 0.95);
      g_clear_pointer (&merged->firsts, g_array_unref);
      g_signal_emit (self, _riv_load_run_signals[SIGNAL_SAMPLE], 0, &sample);
    }
}

/* Every thread has ended: the run's totals, statistics, records and events. */
static void
finish (RivLoadRun *self)
{
  double start_wall = 0, end_wall = 0;

  for (guint t = 0; t < self->threads.children->len; t++)
    {
      RivLoadRun *child = g_ptr_array_index (self->threads.children, t);
      GHashTableIter iter;
      gpointer key, value;

      self->counts.submitted += child->counts.submitted;
      self->counts.finished += child->counts.finished;
      riv_outcomes_merge (&self->counts.outcomes, &child->counts.outcomes);
      self->brk.sessions += child->brk.sessions;
      self->stopped |= child->stopped;
      self->interrupted |= child->interrupted;
      if (self->usage_error == NULL && child->usage_error != NULL)
        self->usage_error = g_strdup (child->usage_error);
      if (child->counts.start > 0)
        {
          if (self->counts.start <= 0 || child->counts.start < self->counts.start)
            {
              self->counts.start = child->counts.start;
              start_wall = child->counts.start_wall;
            }
          if (child->counts.end - child->counts.start + child->counts.start_wall > end_wall)
            end_wall = child->counts.end - child->counts.start + child->counts.start_wall;
          self->counts.end = MAX (self->counts.end, child->counts.end);
        }

      for (guint i = 0; self->records != NULL && child->records != NULL && i < child->records->len; i++)
        {
          if (g_ptr_array_index (child->records, i) == NULL)
            continue;
          if (i >= self->records->len)
            g_ptr_array_set_size (self->records, i + 1);
          g_free (g_ptr_array_index (self->records, i));
          g_ptr_array_index (self->records, i) = g_steal_pointer (&g_ptr_array_index (child->records, i));
        }
      if (self->events != NULL && child->events != NULL)
        {
          g_hash_table_iter_init (&iter, child->events);
          while (g_hash_table_iter_next (&iter, &key, &value))
            {
              g_hash_table_iter_steal (&iter);
              g_hash_table_replace (self->events, key, value);
            }
        }
    }
  self->counts.start_wall = start_wall;
  if (end_wall > 0)
    {
      riv_load_stats_set_end (self->stats, end_wall);
      _riv_load_run_scenarios_stats_set (self, riv_load_stats_set_end, end_wall);
    }
  self->counts.active_users = 0;
  self->threads.shown.elapsed = _riv_load_run_elapsed (self);
  self->over = TRUE;
  self->done = TRUE;
  g_signal_emit (self, _riv_load_run_signals[SIGNAL_FINISHED], 0);
}

/* On the owner's context, from a thread's message (riv-load-run.c's
 * deliver_cb ()): its counters are already in child->threads.shown. */
void
_riv_load_run_threads_receive (RivLoadRun          *child,
                               const RivLoadSample *sample,
                               guint                index,
                               GArray              *latencies,
                               GArray              *firsts,
                               gboolean             finished)
{
  RivLoadRun *self = child->threads.parent;
  gboolean all_done = TRUE;

  sum_snapshots (self);
  if (sample != NULL && index > 0)
    {
      if (index > self->threads.merging->len)
        g_array_set_size (self->threads.merging, index);
      add_sample (&g_array_index (self->threads.merging, MergedSample, index - 1),
                  sample, latencies, firsts);
      child->threads.n_delivered = MAX (child->threads.n_delivered, index);
    }
  /* A thread whose inputs were refused stops the others. */
  if (finished && child->usage_error != NULL)
    _riv_load_run_threads_stop (self, FALSE);
  emit_ready (self);

  for (guint t = 0; t < self->threads.children->len; t++)
    all_done &= ((RivLoadRun *) g_ptr_array_index (self->threads.children, t))->done;
  if (finished && all_done && !self->done)
    {
      g_object_ref (self);   /* a "finished" handler may drop the last other one */
      finish (self);
      g_object_unref (self);
    }
}

void
_riv_load_run_threads_free (RivLoadRun *self)
{
  if (self->threads.children == NULL)
    return;
  /* Threads still running end by themselves, unheard. */
  for (guint t = 0; t < self->threads.children->len; t++)
    {
      RivLoadRun *child = g_ptr_array_index (self->threads.children, t);

      g_signal_handlers_disconnect_by_data (child, self);
      child->threads.parent = NULL;
      riv_load_run_stop (child, TRUE);
    }
  g_clear_pointer (&self->threads.children, g_ptr_array_unref);
}
