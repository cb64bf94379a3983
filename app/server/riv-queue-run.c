/* riv-queue-run.c
 * Copyright 2026 The Rivulet authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The worker's side of a run (riv-run.h): what a demo's run function or step
 * reads and calls on its worker thread, and the outbox its frames go through
 * to the main context (riv-queue.c takes them, _riv_queue_outbox_cb ()).
 */
#include "config.h"

#include <math.h>
#include <string.h>

#include <glib/gstdio.h>

#include "riv-compat.h"
#include "riv-queue-private.h"
#include "riv-wire.h"

/* Appends the frame in run->scratch to the outbox (worker thread). Waits
 * while the reader is behind, but not in a step (the next step waits: see
 * run_step ()). FALSE when the run is cancelled. */
static gboolean
post_frame (RivRun *run,
            char   *file,
            gsize   file_size)
{
  gboolean cancelled, post = FALSE;

  g_mutex_lock (&run->lock);
  while (!run->cancelled && run->endpoint->steps == NULL &&
         (run->throttled || run->outbox->len >= OUTBOX_MAX))
    {
      run->worker_waiting = TRUE;
      g_cond_wait (&run->cond, &run->lock);
    }
  run->worker_waiting = FALSE;
  cancelled = run->cancelled;
  if (!cancelled)
    {
      g_string_append_len (run->outbox, run->scratch->str, run->scratch->len);
      if (file != NULL)
        {
          OutFile out = { g_steal_pointer (&file), file_size };
          g_array_append_val (run->outbox_files, out);
        }
      post = !run->outbox_posted;
      run->outbox_posted = TRUE;
    }
  g_mutex_unlock (&run->lock);

  /* Nobody will serve it: do not leave it on disk. */
  if (file != NULL)
    {
      g_unlink (file);
      g_free (file);
    }

  /* One inbox item per batch of frames, however many the worker adds. */
  if (post)
    riv_inbox_post (run->queue->inbox, _riv_queue_outbox_cb, run_ref (run));
  return !cancelled;
}

static GString *
scratch (RivRun *run)
{
  if (run->scratch == NULL)
    run->scratch = g_string_sized_new (512);
  g_string_truncate (run->scratch, 0);
  return run->scratch;
}

guint
riv_run_get_size (RivRun *run)
{
  return run->size;
}

const RivDemoParams *
riv_run_get_params (RivRun *run,
                    guint   member)
{
  g_return_val_if_fail (member < run->size, NULL);
  return run->params[member];
}

const char *
riv_run_get_event_id (RivRun *run,
                      guint   member)
{
  g_return_val_if_fail (member < run->size, NULL);
  return run->ids[member];
}

const char *
riv_run_get_output_dir (RivRun *run)
{
  return run->queue->output_dir != NULL ? run->queue->output_dir : g_get_tmp_dir ();
}

const char *
riv_run_get_base_url (RivRun *run)
{
  return run->queue->base_url != NULL ? run->queue->base_url : "";
}

gboolean
riv_run_is_cancelled (RivRun *run)
{
  gboolean cancelled;

  g_mutex_lock (&run->lock);
  cancelled = run->cancelled;
  g_mutex_unlock (&run->lock);
  return cancelled;
}

gboolean
riv_run_sleep_until (RivRun *run,
                     gint64  end_us)
{
  gboolean cancelled;

  g_mutex_lock (&run->lock);
  while (!run->cancelled)
    if (!g_cond_wait_until (&run->cond, &run->lock, end_us))
      break;
  cancelled = run->cancelled;
  g_mutex_unlock (&run->lock);
  return !cancelled;
}

gboolean
riv_run_sleep (RivRun *run,
               double  seconds)
{
  if (!(seconds > 0))
    return !riv_run_is_cancelled (run);

  return riv_run_sleep_until (run, g_get_monotonic_time () + (gint64) (seconds * G_USEC_PER_SEC));
}

gboolean
riv_run_progress (RivRun     *run,
                  gint64      index,
                  gint64      length,
                  const char *unit)
{
  GString *out = scratch (run);

  riv_wire_begin_frame (out, "progress", run->ids[0]);
  g_string_append_printf (out, ",\"progress_data\":[{\"index\":%" G_GINT64_FORMAT
                          ",\"length\":%" G_GINT64_FORMAT ",\"unit\":", index, length);
  riv_wire_append_string (out, unit, -1);
  g_string_append (out, ",\"progress\":");
  riv_wire_append_double (out, length > 0 ? (double) index / length : NAN);
  g_string_append (out, ",\"desc\":null}]");
  riv_wire_end_frame (out);
  return post_frame (run, NULL, 0);
}

gboolean
riv_run_log (RivRun     *run,
             const char *level,
             const char *title,
             const char *message)
{
  GString *out = scratch (run);

  /* Gradio's gr.Info / gr.Warning message: shown for 10 s. */
  riv_wire_begin_frame (out, "log", run->ids[0]);
  g_string_append (out, ",\"log\":");
  riv_wire_append_string (out, message, -1);
  g_string_append (out, ",\"level\":");
  riv_wire_append_string (out, level, -1);
  g_string_append (out, ",\"duration\":10,\"visible\":true,\"title\":");
  riv_wire_append_string (out, title, -1);
  riv_wire_end_frame (out);
  return post_frame (run, NULL, 0);
}

gboolean
riv_run_yield (RivRun      *run,
               const char  *data_json,
               gsize        len,
               char        *file,
               gsize        file_size)
{
  double now = riv_now ();
  GString *out = scratch (run);

  riv_wire_begin_frame (out, "process_generating", run->ids[0]);
  g_string_append (out, ",\"output\":{\"data\":");
  g_string_append_len (out, data_json, len);
  g_string_append (out, ",\"is_generating\":true,\"duration\":");
  riv_wire_append_double (out, now - run->last_yield);
  g_string_append (out, ",\"average_duration\":");
  riv_wire_append_eta (out, run->avg);
  g_string_append (out, ",\"render_config\":null,\"changed_state_ids\":[],\"used_cache\":null}"
                   ",\"success\":true,\"time_limit\":null");
  if (run->queue->stamp)
    riv_wire_append_stamps (out);
  riv_wire_end_frame (out);
  run->last_yield = now;
  return post_frame (run, file, file_size);
}

void
riv_run_return (RivRun *run,
                guint   member,
                char   *data_json)
{
  g_return_if_fail (member < run->size);
  g_free (run->results[member]);
  run->results[member] = data_json;
}

void
riv_run_fail (RivRun     *run,
              const char *message)
{
  g_free (run->error);
  run->error = g_strdup (message);
}
