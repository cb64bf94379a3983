/* test-job.c
 * Copyright 2026 The Rivulet authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * RivJob's state machine: monotonic status, final terminal states, one notify
 * per change, the bounded timeline, and a flat memory cost per finished job.
 */
#include "config.h"

#include <malloc.h>
#include <math.h>

#include "riv-job-private.h"
#include "riv-test-util.h"

typedef struct
{
  GHashTable *counts;   /* property name → number of notifies */
} NotifyCounter;

static void
count_notify_cb (GObject    *object,
                 GParamSpec *pspec,
                 gpointer    user_data)
{
  NotifyCounter *counter = user_data;
  guint n = GPOINTER_TO_UINT (g_hash_table_lookup (counter->counts, pspec->name));

  g_hash_table_insert (counter->counts, (gpointer) pspec->name, GUINT_TO_POINTER (n + 1));
}

static guint
count_of (NotifyCounter *counter,
          const char    *name)
{
  return GPOINTER_TO_UINT (g_hash_table_lookup (counter->counts, g_intern_string (name)));
}

static void
counter_watch (NotifyCounter *counter,
               RivJob        *job)
{
  counter->counts = g_hash_table_new (NULL, NULL);
  g_signal_connect (job, "notify", G_CALLBACK (count_notify_cb), counter);
}

static void
counter_reset (NotifyCounter *counter)
{
  g_hash_table_remove_all (counter->counts);
}

static void
counter_clear (NotifyCounter *counter)
{
  g_clear_pointer (&counter->counts, g_hash_table_unref);
}

static JsonNode *
json (const char *text)
{
  g_autoptr(GError) error = NULL;
  JsonNode *node = json_from_string (text, &error);

  g_assert_no_error (error);
  return node;
}

static void
test_job_defaults (void)
{
  g_autoptr(JsonNode) inputs = json ("[\"hello\", 3]");
  g_autoptr(RivJob) job = _riv_job_new (7, "/echo", 2, inputs);
  g_autofree char *inputs_text = NULL;

  g_assert_cmpuint (riv_job_get_number (job), ==, 7);
  g_assert_cmpstr (riv_job_get_endpoint (job), ==, "/echo");
  g_assert_cmpint (riv_job_get_fn_index (job), ==, 2);
  g_assert_null (riv_job_get_event_id (job));
  g_assert_cmpint (riv_job_get_status (job), ==, RIV_JOB_STATUS_PENDING);
  g_assert_false (riv_job_is_finished (job));
  g_assert_cmpint (riv_job_get_rank (job), ==, -1);
  g_assert_cmpint (riv_job_get_queue_size (job), ==, -1);
  g_assert_cmpfloat (riv_job_get_eta (job), <, 0);
  g_assert_cmpfloat (riv_job_get_progress (job), <, 0);
  g_assert_cmpint (riv_job_get_batch_index (job), ==, -1);
  g_assert_cmpint (riv_job_get_batch_size (job), ==, 0);
  g_assert_null (riv_job_get_outputs (job));
  g_assert_null (riv_job_get_output_text (job));
  g_assert_null (riv_job_get_image (job));
  g_assert_null (riv_job_get_error (job));
  g_assert_cmpfloat (riv_job_get_submitted_at (job), >, 0);
  g_assert_cmpfloat (riv_job_get_total_time (job), <, 0);
  g_assert_cmpfloat (riv_job_get_wait_time (job), <, 0);

  /* The inputs are a copy, not the caller's node. */
  g_assert_nonnull (riv_job_get_inputs (job));
  g_assert_true (riv_job_get_inputs (job) != inputs);
  inputs_text = json_to_string (riv_job_get_inputs (job), FALSE);
  g_assert_cmpstr (inputs_text, ==, "[\"hello\",3]");

  g_assert_cmpstr (riv_job_status_to_string (RIV_JOB_STATUS_LOST), ==, "lost");
  g_assert_cmpstr (riv_job_status_to_string (RIV_JOB_STATUS_STREAMING), ==, "streaming");
}

static void
test_job_monotonic (void)
{
  g_autoptr(RivJob) job = _riv_job_new (1, "/f", 0, NULL);
  NotifyCounter counter;

  counter_watch (&counter, job);

  g_assert_true (_riv_job_set_status (job, RIV_JOB_STATUS_JOINING));
  g_assert_true (_riv_job_set_status (job, RIV_JOB_STATUS_RUNNING));
  g_assert_cmpfloat (riv_job_get_started_at (job), >, 0);
  g_assert_cmpfloat (riv_job_get_wait_time (job), >=, 0);

  /* Backwards moves and repeats change nothing and notify nothing. */
  counter_reset (&counter);
  g_assert_false (_riv_job_set_status (job, RIV_JOB_STATUS_QUEUED));
  g_assert_false (_riv_job_set_status (job, RIV_JOB_STATUS_RUNNING));
  g_assert_false (_riv_job_set_status (job, RIV_JOB_STATUS_PENDING));
  g_assert_cmpint (riv_job_get_status (job), ==, RIV_JOB_STATUS_RUNNING);
  g_assert_cmpuint (count_of (&counter, "status"), ==, 0);

  g_assert_true (_riv_job_set_status (job, RIV_JOB_STATUS_STREAMING));
  g_assert_cmpuint (count_of (&counter, "status"), ==, 1);

  /* Finishing: status, error, finished flag and finish time in one go. */
  counter_reset (&counter);
  g_assert_true (_riv_job_finish (job, RIV_JOB_STATUS_FAILED, "boom"));
  g_assert_cmpint (riv_job_get_status (job), ==, RIV_JOB_STATUS_FAILED);
  g_assert_cmpstr (riv_job_get_error (job), ==, "boom");
  g_assert_true (riv_job_is_finished (job));
  g_assert_cmpfloat (riv_job_get_finished_at (job), >, 0);
  g_assert_cmpfloat (riv_job_get_total_time (job), >=, 0);
  g_assert_cmpfloat (riv_job_get_run_time (job), >=, 0);
  g_assert_cmpuint (count_of (&counter, "status"), ==, 1);
  g_assert_cmpuint (count_of (&counter, "error"), ==, 1);
  g_assert_cmpuint (count_of (&counter, "finished"), ==, 1);

  /* A terminal status is final, even towards a "later" terminal value. */
  counter_reset (&counter);
  g_assert_false (_riv_job_set_status (job, RIV_JOB_STATUS_LOST));
  g_assert_false (_riv_job_set_status (job, RIV_JOB_STATUS_CANCELLED));
  g_assert_false (_riv_job_finish (job, RIV_JOB_STATUS_COMPLETED, "other"));
  g_assert_false (_riv_job_finish (job, RIV_JOB_STATUS_LOST, "lost"));
  g_assert_cmpint (riv_job_get_status (job), ==, RIV_JOB_STATUS_FAILED);
  g_assert_cmpstr (riv_job_get_error (job), ==, "boom");
  g_assert_cmpuint (g_hash_table_size (counter.counts), ==, 0);

  counter_clear (&counter);
}

static void
test_job_skip_to_terminal (void)
{
  g_autoptr(RivJob) job = _riv_job_new (1, "/f", 0, NULL);

  /* A cached result can complete a job that never saw "running". */
  g_assert_true (_riv_job_finish (job, RIV_JOB_STATUS_COMPLETED, NULL));
  g_assert_null (riv_job_get_error (job));
  g_assert_cmpfloat (riv_job_get_started_at (job), ==, 0);
  g_assert_cmpfloat (riv_job_get_run_time (job), <, 0);
  g_assert_cmpfloat (riv_job_get_total_time (job), >=, 0);
}

/* The server's duration times a completed job only; a failed or cancelled
 * one ran from its process_starts to its end (times set by replay). */
static void
test_job_run_time_failed (void)
{
  const RivJobStatus ends[] = { RIV_JOB_STATUS_COMPLETED, RIV_JOB_STATUS_FAILED,
                                RIV_JOB_STATUS_CANCELLED };

  for (guint i = 0; i < G_N_ELEMENTS (ends); i++)
    {
      g_autoptr(RivJob) job = _riv_job_new (1, "/f", 0, NULL);

      _riv_job_set_replay_time (job, 1000.0);
      g_assert_true (_riv_job_set_status (job, RIV_JOB_STATUS_RUNNING));
      _riv_job_set_run_duration (job, 0.0);
      _riv_job_set_replay_time (job, 1000.25);
      g_assert_true (_riv_job_finish (job, ends[i], NULL));
      _riv_job_set_replay_time (NULL, 0);

      g_assert_cmpfloat (riv_job_get_started_at (job), ==, 1000.0);
      g_assert_cmpfloat (riv_job_get_finished_at (job), ==, 1000.25);
      g_assert_cmpfloat (riv_job_get_run_time (job), ==,
                         ends[i] == RIV_JOB_STATUS_COMPLETED ? 0.0 : 0.25);
    }
}

static void
test_job_notify_once (void)
{
  g_autoptr(RivJob) job = _riv_job_new (1, "/f", 0, NULL);
  NotifyCounter counter;

  counter_watch (&counter, job);

  _riv_job_set_queue (job, 3, 10, 2.5);
  g_assert_cmpuint (count_of (&counter, "rank"), ==, 1);
  g_assert_cmpuint (count_of (&counter, "queue-size"), ==, 1);
  g_assert_cmpuint (count_of (&counter, "eta"), ==, 1);

  /* Same values: no notification at all. */
  counter_reset (&counter);
  _riv_job_set_queue (job, 3, 10, 2.5);
  _riv_job_set_progress (job, -1, -1, -1, NULL);
  _riv_job_set_batch (job, NULL, 0, -1, FALSE);
  _riv_job_set_event_id (job, NULL);
  g_assert_cmpuint (g_hash_table_size (counter.counts), ==, 0);

  /* Only what changed. */
  _riv_job_set_queue (job, 2, 10, 2.5);
  g_assert_cmpuint (count_of (&counter, "rank"), ==, 1);
  g_assert_cmpuint (count_of (&counter, "queue-size"), ==, 0);
  g_assert_cmpuint (count_of (&counter, "eta"), ==, 0);

  /* One message = one burst: inside freeze/thaw, several changes of the same
   * property are delivered as a single notification, at thaw. */
  counter_reset (&counter);
  _riv_job_freeze (job);
  _riv_job_set_queue (job, 1, 9, 2.0);
  _riv_job_set_queue (job, 0, 8, 1.0);
  _riv_job_count_event (job);
  _riv_job_count_event (job);
  riv_job_add_timeline (job, "estimation %d", 1);
  g_assert_cmpuint (g_hash_table_size (counter.counts), ==, 0);
  _riv_job_thaw (job);
  g_assert_cmpuint (count_of (&counter, "rank"), ==, 1);
  g_assert_cmpuint (count_of (&counter, "queue-size"), ==, 1);
  g_assert_cmpuint (count_of (&counter, "n-events"), ==, 1);
  g_assert_cmpuint (count_of (&counter, "timeline-length"), ==, 1);
  g_assert_cmpint (riv_job_get_rank (job), ==, 0);
  g_assert_cmpuint (riv_job_get_n_events (job), ==, 2);

  /* Event id sets the join time once. */
  counter_reset (&counter);
  _riv_job_set_event_id (job, "abc");
  _riv_job_set_event_id (job, "abc");
  g_assert_cmpuint (count_of (&counter, "event-id"), ==, 1);
  g_assert_cmpuint (count_of (&counter, "joined-at"), ==, 1);
  g_assert_cmpstr (riv_job_get_event_id (job), ==, "abc");

  /* Progress, unit and batch. */
  counter_reset (&counter);
  _riv_job_set_progress (job, 0.5, 5, 10, "steps");
  _riv_job_set_progress (job, 0.5, 5, 10, "steps");
  g_assert_cmpuint (count_of (&counter, "progress"), ==, 1);
  g_assert_cmpuint (count_of (&counter, "progress-unit"), ==, 1);
  g_assert_cmpstr (riv_job_get_progress_unit (job), ==, "steps");
  g_assert_cmpfloat (riv_job_get_progress (job), ==, 0.5);
  _riv_job_set_progress (job, 7.0, 5, 10, "steps");
  g_assert_cmpfloat (riv_job_get_progress (job), ==, 1.0);

  _riv_job_set_batch (job, "b1", 4, 2, TRUE);
  _riv_job_set_batch (job, "b1", 4, 2, TRUE);
  g_assert_cmpuint (count_of (&counter, "batch-id"), ==, 1);
  g_assert_cmpuint (count_of (&counter, "batch-size"), ==, 1);
  g_assert_cmpuint (count_of (&counter, "batch-index"), ==, 1);
  g_assert_cmpuint (count_of (&counter, "batch-inferred"), ==, 1);
  g_assert_cmpstr (riv_job_get_batch_id (job), ==, "b1");
  g_assert_true (riv_job_get_batch_inferred (job));

  /* Running clears the (stale) queue position. */
  counter_reset (&counter);
  g_assert_true (_riv_job_set_status (job, RIV_JOB_STATUS_RUNNING));
  g_assert_cmpint (riv_job_get_rank (job), ==, -1);
  g_assert_cmpuint (count_of (&counter, "started-at"), ==, 1);

  counter_clear (&counter);
}

/* One output update, dated at.  */
static void
update_at (RivJob     *job,
           double      at,
           gboolean    generating,
           const char *text)
{
  g_autofree char *outputs = g_strdup_printf ("[\"%s\"]", text);

  _riv_job_set_replay_time (job, at);
  _riv_job_publish_outputs (job, json (outputs));
  _riv_job_count_update (job, generating, 0, 0);
  _riv_job_set_replay_time (NULL, 0);
}

/* Time to first update, gaps between generating updates only, stalls at a
 * limit, the text's growth rate, on updates dated by hand. */
static void
test_job_streaming_figures (void)
{
  g_autoptr(RivJob) job = _riv_job_new (1, "/f", 0, NULL);
  double t0 = riv_job_get_submitted_at (job);
  double chars, words;
  NotifyCounter counter;

  counter_watch (&counter, job);
  g_assert_cmpfloat (riv_job_get_first_update_time (job), <, 0);
  g_assert_cmpfloat (riv_job_get_max_gap (job), <, 0);
  g_assert_null (riv_job_get_gaps (job));

  _riv_job_set_replay_time (job, t0 + 0.1);
  _riv_job_set_status (job, RIV_JOB_STATUS_RUNNING);
  _riv_job_set_replay_time (NULL, 0);

  update_at (job, t0 + 0.5, TRUE, "a");
  g_assert_cmpfloat_with_epsilon (riv_job_get_first_update_time (job), 0.5, 1e-9);
  g_assert_cmpfloat_with_epsilon (riv_job_get_first_after_start (job), 0.4, 1e-9);
  g_assert_cmpuint (riv_job_get_n_gaps (job), ==, 0);

  /* Gaps of 0.15 s, 0.1 s, one of 1.5 s, then 0.1 s twice. The gaps of
   * 0.1 s come out of sums on the clock and differ in their last bits, so
   * none of them follows a gap it could equal. */
  update_at (job, t0 + 0.65, TRUE, "a b");
  update_at (job, t0 + 0.75, TRUE, "a b c");
  update_at (job, t0 + 2.25, TRUE, "a b c d");
  update_at (job, t0 + 2.35, TRUE, "a b c d e");
  update_at (job, t0 + 2.45, TRUE, "a b c d e f");
  /* The completion right after the last step is not a gap. */
  update_at (job, t0 + 2.4501, FALSE, "a b c d e f");

  g_assert_cmpuint (riv_job_get_n_updates (job), ==, 7);
  g_assert_cmpuint (riv_job_get_n_gaps (job), ==, 5);
  g_assert_cmpfloat_with_epsilon (riv_job_get_max_gap (job), 1.5, 1e-6);
  g_assert_cmpuint (count_of (&counter, "max-gap"), ==, 2);   /* 0.15, then 1.5 */
  g_assert_cmpuint (riv_job_count_stalls (job, 1.0), ==, 1);
  /* The stall is on the job's timeline, dated at the update that ended it. */
  {
    const RivJobEvent *last = riv_job_get_timeline_event (job, riv_job_get_timeline_length (job) - 1);
    gboolean found = FALSE;

    for (guint i = 0; i < riv_job_get_timeline_length (job); i++)
      {
        const RivJobEvent *event = riv_job_get_timeline_event (job, i);

        if (g_strcmp0 (event->what, "stall: no update for 1.50 s") == 0)
          {
            found = TRUE;
            g_assert_cmpfloat_with_epsilon (event->time, 2.25, 1e-6);
          }
      }
    g_assert_true (found);
    g_assert_nonnull (last);
  }
  g_assert_cmpuint (riv_job_count_stalls (job, 2.0), ==, 0);
  g_assert_cmpuint (riv_job_count_stalls (job, 0.05), ==, 5);
  g_assert_cmpfloat (fabs (riv_sketch_quantile (riv_job_get_gaps (job), 0.5) - 0.1), <=,
                     0.1 * RIV_SKETCH_RELATIVE_ERROR);
  g_assert_cmpfloat_with_epsilon (riv_job_get_last_update_at (job), t0 + 2.45, 1e-9);
  /* No stamps from this server. */
  g_assert_null (riv_job_get_delays (job));

  /* "a" (1 char, 1 word) at 0.5 s to "a b c d e f" (11, 6) at 2.45 s. */
  g_assert_true (riv_job_get_text_rate (job, &chars, &words));
  g_assert_cmpfloat_with_epsilon (chars, 10 / 1.95, 1e-6);
  g_assert_cmpfloat_with_epsilon (words, 5 / 1.95, 1e-6);

  counter_clear (&counter);
}

/* The stamps' figures (how long the server held each update, the gaps it
 * sent them at) are the sketches of one add per update, however the job
 * keeps them meanwhile, read in the middle of the stream or at its end. */
static void
assert_same_sketch (const RivSketch *got,
                    const RivSketch *want)
{
  g_assert_nonnull (got);
  g_assert_cmpuint (riv_sketch_get_count (got), ==, riv_sketch_get_count (want));
  g_assert_cmpfloat (riv_sketch_get_sum (got), ==, riv_sketch_get_sum (want));
  g_assert_cmpfloat (riv_sketch_get_min (got), ==, riv_sketch_get_min (want));
  g_assert_cmpfloat (riv_sketch_get_max (got), ==, riv_sketch_get_max (want));
  for (double q = 0; q <= 1; q += 0.125)
    g_assert_cmpfloat (riv_sketch_quantile (got, q), ==, riv_sketch_quantile (want, q));
}

static void
test_job_stamp_figures (void)
{
  g_autoptr(RivJob) job = _riv_job_new (1, "/f", 0, NULL);
  g_autoptr(RivSketch) holds = riv_sketch_new ();
  g_autoptr(RivSketch) sent_gaps = riv_sketch_new ();
  double sent = 1.8e9, last_sent = 0;

  for (guint i = 0; i < 75; i++)
    {
      /* Holds of 0..6 ms, gaps of 50 ms and a little more, one update
       * without its making time. */
      double hold = (i % 7) * 0.001;
      double made = i == 30 ? 0 : sent - hold;

      _riv_job_count_update (job, TRUE, made, sent);
      if (made > 0)
        riv_sketch_add (holds, hold);
      if (last_sent > 0)
        riv_sketch_add (sent_gaps, sent - last_sent);
      last_sent = sent;
      sent += 0.05 + (i % 3) * 0.0013;

      if (i == 20 || i == 47)
        {
          assert_same_sketch (riv_job_get_holds (job), holds);
          assert_same_sketch (riv_job_get_sent_gaps (job), sent_gaps);
        }
    }
  _riv_job_count_update (job, FALSE, 0, 0);

  assert_same_sketch (riv_job_get_holds (job), holds);
  assert_same_sketch (riv_job_get_sent_gaps (job), sent_gaps);
  g_assert_cmpuint (riv_sketch_get_count (riv_job_get_delays (job)), ==, 75);
  g_assert_cmpuint (riv_job_get_n_gaps (job), ==, 74);
  g_assert_cmpuint (riv_sketch_get_count (riv_job_get_gaps (job)), ==, 74);
}

static void
test_job_outputs (void)
{
  g_autoptr(RivJob) job = _riv_job_new (1, "/f", 0, NULL);
  g_autoptr(GBytes) image1 = g_bytes_new_static ("\x89PNG1", 5);
  g_autoptr(GBytes) image2 = g_bytes_new_static ("\x89PNG2", 5);
  NotifyCounter counter;

  counter_watch (&counter, job);

  _riv_job_take_outputs (job, json ("[null, \"Hel\", 3]"));
  g_assert_cmpstr (riv_job_get_output_text (job), ==, "Hel");
  g_assert_cmpuint (riv_job_get_n_updates (job), ==, 1);
  g_assert_cmpfloat (riv_job_get_first_output_at (job), >, 0);
  g_assert_cmpuint (count_of (&counter, "output-text"), ==, 1);
  g_assert_cmpuint (count_of (&counter, "outputs"), ==, 1);

  /* New outputs with the same text: outputs notify, output-text does not. */
  counter_reset (&counter);
  _riv_job_take_outputs (job, json ("[null, \"Hel\", 4]"));
  g_assert_cmpuint (count_of (&counter, "outputs"), ==, 1);
  g_assert_cmpuint (count_of (&counter, "output-text"), ==, 0);
  g_assert_cmpuint (count_of (&counter, "first-output-at"), ==, 0);

  _riv_job_take_outputs (job, json ("[null, \"Hello\", 4]"));
  g_assert_cmpstr (riv_job_get_output_text (job), ==, "Hello");
  g_assert_cmpuint (riv_job_get_n_updates (job), ==, 3);

  /* Outputs without any string: no text. */
  _riv_job_take_outputs (job, json ("[{\"path\": \"x.png\"}]"));
  g_assert_null (riv_job_get_output_text (job));

  /* Images: only the latest is kept, every frame is counted. */
  counter_reset (&counter);
  _riv_job_set_image (job, image1);
  _riv_job_set_image (job, image2);
  g_assert_true (riv_job_get_image (job) == image2);
  g_assert_cmpuint (riv_job_get_n_images (job), ==, 2);
  g_assert_cmpuint (count_of (&counter, "image"), ==, 2);

  counter_clear (&counter);
}

static void
test_job_timeline_bound (void)
{
  g_autoptr(RivJob) job = _riv_job_new (1, "/f", 0, NULL);
  const guint total = 100;
  double last_time = -1;

  for (guint i = 0; i < 5; i++)
    riv_job_add_timeline (job, "event %u", i);
  g_assert_cmpuint (riv_job_get_timeline_length (job), ==, 5);
  g_assert_cmpuint (riv_job_get_timeline_dropped (job), ==, 0);
  g_assert_cmpstr (riv_job_get_timeline_event (job, 4)->what, ==, "event 4");

  for (guint i = 5; i < total; i++)
    riv_job_add_timeline (job, "event %u", i);

  g_assert_cmpuint (riv_job_get_timeline_length (job), ==, RIV_JOB_TIMELINE_MAX);
  g_assert_cmpuint (riv_job_get_timeline_dropped (job), ==, total - RIV_JOB_TIMELINE_MAX);
  g_assert_null (riv_job_get_timeline_event (job, RIV_JOB_TIMELINE_MAX));

  /* The first entries are kept, then the latest ones, in order. */
  g_assert_cmpstr (riv_job_get_timeline_event (job, 0)->what, ==, "event 0");
  g_assert_cmpstr (riv_job_get_timeline_event (job, RIV_JOB_TIMELINE_MAX - 1)->what, ==,
                   "event 99");
  for (guint i = 0; i < RIV_JOB_TIMELINE_MAX; i++)
    {
      const RivJobEvent *event = riv_job_get_timeline_event (job, i);
      guint n;

      g_assert_nonnull (event);
      g_assert_cmpfloat (event->time, >=, last_time);
      last_time = event->time;
      g_assert_true (sscanf (event->what, "event %u", &n) == 1);
      if (i > 0)
        {
          const RivJobEvent *prev = riv_job_get_timeline_event (job, i - 1);
          guint p;

          g_assert_true (sscanf (prev->what, "event %u", &p) == 1);
          g_assert_cmpuint (n, >, p);
        }
      /* Everything after the kept head is among the latest entries. */
      if (n >= 8)
        g_assert_cmpuint (n, >=, total - (RIV_JOB_TIMELINE_MAX - 8));
    }
}

static void
test_job_trim (void)
{
  g_autoptr(JsonNode) inputs = json ("[\"an input value the finished job no longer needs\"]");
  g_autoptr(RivJob) job = _riv_job_new (1, "/f", 0, inputs);

  riv_job_add_timeline (job, "joined");
  _riv_job_take_outputs (job, json ("[\"out\"]"));
  _riv_job_finish (job, RIV_JOB_STATUS_COMPLETED, NULL);
  _riv_job_trim (job);

  g_assert_null (riv_job_get_inputs (job));
  /* Outputs and timeline stay. */
  g_assert_cmpstr (riv_job_get_output_text (job), ==, "out");
  g_assert_cmpuint (riv_job_get_timeline_length (job), ==, 1);
  riv_job_add_timeline (job, "image arrived");
  g_assert_cmpuint (riv_job_get_timeline_length (job), ==, 2);
}

static size_t
heap_in_use (void)
{
  struct mallinfo2 info = mallinfo2 ();

  return info.uordblks + info.hblkhd;
}

/* A finished job must cost a small, flat amount of memory. The lifecycle
 * below is what a batch_echo job goes through (event id, estimation, start,
 * batch, timeline entries, finish, trim), without outputs, which the
 * requirement excludes. */
static void
test_job_memory (void)
{
  const guint n_jobs = 5000;
  g_autoptr(GPtrArray) jobs = g_ptr_array_new_with_free_func (g_object_unref);
  g_autoptr(JsonNode) inputs = json ("[\"input text {i}\"]");
  size_t before, after;
  double per_job;

  /* Warm up type registration, interned strings and allocator pools. */
  for (guint i = 0; i < 200; i++)
    g_ptr_array_add (jobs, _riv_job_new (i, "/batch_echo", 2, inputs));
  g_ptr_array_set_size (jobs, 0);

  before = heap_in_use ();
  for (guint i = 0; i < n_jobs; i++)
    {
      RivJob *job = _riv_job_new (i + 1, "/batch_echo", 2, inputs);
      g_autofree char *event_id = g_strdup_printf ("%032x", g_random_int ());
      g_autofree char *batch_id = g_strdup_printf ("%u", i / 16);

      _riv_job_set_status (job, RIV_JOB_STATUS_JOINING);
      _riv_job_set_event_id (job, event_id);
      riv_job_add_timeline (job, "joined");
      _riv_job_set_queue (job, i % 100, 100, 1.5);
      _riv_job_set_status (job, RIV_JOB_STATUS_QUEUED);
      riv_job_add_timeline (job, "estimation rank %u/%u", i % 100, 100);
      _riv_job_set_status (job, RIV_JOB_STATUS_RUNNING);
      _riv_job_set_batch (job, batch_id, 16, i % 16, FALSE);
      riv_job_add_timeline (job, "started (batch %s, %u of %u)", batch_id, i % 16 + 1, 16);
      _riv_job_count_event (job);
      _riv_job_count_event (job);
      _riv_job_count_event (job);
      _riv_job_finish (job, RIV_JOB_STATUS_COMPLETED, NULL);
      riv_job_add_timeline (job, "completed");
      _riv_job_trim (job);
      g_ptr_array_add (jobs, job);
    }
  after = heap_in_use ();

  per_job = after > before ? (double) (after - before) / n_jobs : 0;
  g_test_message ("memory per finished job (RivJob alone, no outputs): %.0f bytes", per_job);
  if (g_getenv ("RIV_TEST_PRINT_MEMORY"))
    g_printerr ("memory per finished job (RivJob alone, no outputs): %.0f bytes\n", per_job);

  /* mallinfo2() means nothing under sanitizers, which replace malloc. */
  if (before == 0 && after == 0)
    {
      g_test_skip ("malloc statistics unavailable (sanitizer build)");
      return;
    }
  g_assert_cmpfloat (per_job, >, 0);
  g_assert_cmpfloat (per_job, <=, 2048);
}

/* Timeline texts: fixed words, one "%s", and real formats all read back as written. */
static void
test_job_timeline_texts (void)
{
  g_autoptr(RivJob) job = _riv_job_new (1, "/f", 0, NULL);

  riv_job_add_timeline (job, "started");
  riv_job_add_timeline (job, "%s", "completed");
  riv_job_add_timeline (job, "%s: %s", "failed", "Boom");
  riv_job_add_timeline (job, "100%% done");
  g_assert_cmpstr (riv_job_get_timeline_event (job, 0)->what, ==, "started");
  g_assert_cmpstr (riv_job_get_timeline_event (job, 1)->what, ==, "completed");
  g_assert_cmpstr (riv_job_get_timeline_event (job, 2)->what, ==, "failed: Boom");
  g_assert_cmpstr (riv_job_get_timeline_event (job, 3)->what, ==, "100% done");
}

/* Event ids of any length read back as given (short ones are stored inline). */
static void
test_job_event_id_lengths (void)
{
  g_autoptr(RivJob) job = _riv_job_new (1, "/f", 0, NULL);
  g_autofree char *hex = g_strnfill (32, 'a');
  g_autofree char *edge = g_strnfill (39, 'b');
  g_autofree char *edge_plus = g_strnfill (40, 'c');
  g_autofree char *longer = g_strnfill (300, 'd');
  NotifyCounter counter;

  counter_watch (&counter, job);
  _riv_job_set_event_id (job, hex);
  g_assert_cmpstr (riv_job_get_event_id (job), ==, hex);
  _riv_job_set_event_id (job, riv_job_get_event_id (job));
  g_assert_cmpuint (count_of (&counter, "event-id"), ==, 1);
  _riv_job_set_event_id (job, longer);
  g_assert_cmpstr (riv_job_get_event_id (job), ==, longer);
  _riv_job_set_event_id (job, edge);
  g_assert_cmpstr (riv_job_get_event_id (job), ==, edge);
  _riv_job_set_event_id (job, edge_plus);
  g_assert_cmpstr (riv_job_get_event_id (job), ==, edge_plus);
  _riv_job_set_event_id (job, NULL);
  g_assert_null (riv_job_get_event_id (job));
  _riv_job_set_event_id (job, "");
  g_assert_cmpstr (riv_job_get_event_id (job), ==, "");
  g_assert_cmpuint (count_of (&counter, "event-id"), ==, 6);
  counter_clear (&counter);
}

static void
count_destroy (gpointer data)
{
  (*(guint *) data)++;
}

/* The owner's pointer is released when replaced and when the job goes. */
static void
test_job_owner_data (void)
{
  RivJob *job = _riv_job_new (1, "/f", 0, NULL);
  guint first = 0;
  guint second = 0;

  g_assert_null (_riv_job_get_owner_data (job));
  _riv_job_set_owner_data (job, &first, count_destroy);
  g_assert_true (_riv_job_get_owner_data (job) == &first);
  _riv_job_set_owner_data (job, &second, count_destroy);
  g_assert_cmpuint (first, ==, 1);
  g_assert_cmpuint (second, ==, 0);
  g_object_unref (job);
  g_assert_cmpuint (first, ==, 1);
  g_assert_cmpuint (second, ==, 1);
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/job/defaults", test_job_defaults);
  g_test_add_func ("/job/monotonic", test_job_monotonic);
  g_test_add_func ("/job/skip-to-terminal", test_job_skip_to_terminal);
  g_test_add_func ("/job/run-time-failed", test_job_run_time_failed);
  g_test_add_func ("/job/notify-once", test_job_notify_once);
  g_test_add_func ("/job/outputs", test_job_outputs);
  g_test_add_func ("/job/timeline-bound", test_job_timeline_bound);
  g_test_add_func ("/job/timeline-texts", test_job_timeline_texts);
  g_test_add_func ("/job/owner-data", test_job_owner_data);
  g_test_add_func ("/job/event-id-lengths", test_job_event_id_lengths);
  g_test_add_func ("/job/trim", test_job_trim);
  g_test_add_func ("/job/memory", test_job_memory);
  g_test_add_func ("/job/streaming-figures", test_job_streaming_figures);
  g_test_add_func ("/job/stamp-figures", test_job_stamp_figures);

  return g_test_run ();
}
