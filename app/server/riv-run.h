/* riv-run.h
 * Copyright 2026 The Rivulet authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * A run's types and its worker-side API: a run's inputs (RivDemoParams,
 * riv-run.c), and what a demo's run function (riv-demo*.c) calls on its
 * worker thread to read them, sleep, report progress, yield and return. The
 * queue implements the calls (riv-queue.c); the demos see only this header,
 * so riv-demo does not depend on riv-queue.
 */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

typedef struct _RivRun RivRun;

/* A run's inputs, validated (riv_demo_parse_params ()): one value each. */
typedef struct
{
  double  number;
  char   *text;
} RivDemoValue;

typedef struct
{
  guint        n;
  RivDemoValue values[];
} RivDemoParams;

/* A demo that mostly waits may run in steps instead of as one call: no
 * thread is held while it waits. The queue's clock (one worker thread, see
 * riv-clock.h) makes each step when it is due, one run's step after
 * another's, so a step must be short and must not sleep: riv_run_yield ()
 * does not wait for a reader that is behind from a step (the next step does).
 * begin () makes a run's state as its first step is due; step () makes one
 * step and returns the g_get_monotonic_time () deadline of the next, or
 * RIV_RUN_STEPS_DONE once the run has returned or failed or a call said to
 * stop; end () frees the state after the last, also when the run was
 * cancelled between steps. */
typedef struct
{
  gpointer (*begin) (RivRun  *run);
  gint64   (*step)  (RivRun  *run,
                     gpointer state);
  void     (*end)   (gpointer state);
} RivRunSteps;

#define RIV_RUN_STEPS_DONE ((gint64) -1)

/* What the queue needs of an endpoint to run its events, given to
 * riv_queue_new () by whoever makes the queue (the server, from the demos). */
typedef struct
{
  const char  *api_name;             /* without the leading slash */
  gboolean     generator;
  gboolean     batch;
  guint        max_batch_size;
  guint        n_outputs;            /* a cancelled event completes with as many nulls */
  guint        state_outputs;        /* bit i: output i is a gr.State, kept by the session
                                        (RivQueueCallbacks.keep_state) and sent as null */
  void       (*run) (RivRun *run);   /* worker thread; NULL when it runs in steps */
  const RivRunSteps *steps;          /* nullable: its steps, on the queue's clock */
} RivRunEndpoint;

/* riv-run.c */
void                 riv_demo_params_free     (RivDemoParams       *params);
/* The memory the values hold: their texts, the struct and the allocator's
 * share of each allocation. */
gsize                riv_demo_params_get_size (const RivDemoParams *params);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (RivDemoParams, riv_demo_params_free)

/* Any thread. */
guint                riv_run_get_size       (RivRun      *run);
const RivDemoParams *riv_run_get_params     (RivRun      *run,
                                             guint        member);
const char          *riv_run_get_event_id   (RivRun      *run,
                                             guint        member);
const char          *riv_run_get_output_dir (RivRun      *run);
const char          *riv_run_get_base_url   (RivRun      *run);
gboolean             riv_run_is_cancelled   (RivRun      *run);
/* Sleeps, waking early when the run is cancelled. FALSE = stop now. */
gboolean             riv_run_sleep          (RivRun      *run,
                                             double       seconds);
/* The same, until a g_get_monotonic_time() deadline (at once if it passed). */
gboolean             riv_run_sleep_until    (RivRun      *run,
                                             gint64       end_us);
/* A progress message for member 0. FALSE = stop now. */
gboolean             riv_run_progress       (RivRun      *run,
                                             gint64       index,
                                             gint64       length,
                                             const char  *unit);
/* A log message for member 0 (level "info", "warning" or "success", as
 * gr.Info and gr.Warning send them). FALSE = stop now. */
gboolean             riv_run_log            (RivRun      *run,
                                             const char  *level,
                                             const char  *title,
                                             const char  *message);
/* One generator yield for member 0: data_json is the JSON text of
 * output.data (full values on the first yield, edit lists later). file is a
 * path written for this yield (taken, nullable) of file_size bytes.
 * May block while the reader is behind (not in a step: the next step waits
 * instead). FALSE = stop now. */
gboolean             riv_run_yield          (RivRun      *run,
                                             const char  *data_json,
                                             gsize        len,
                                             char        *file,
                                             gsize        file_size);
/* The final full output values (JSON text of output.data) of a member. A
 * gr.State output's value there is the session's next one: the queue hands
 * it to the session and sends null in its place, as Gradio does; a State
 * input's value in the params is the session's (JSON text, NULL before its
 * first). */
void                 riv_run_return         (RivRun      *run,
                                             guint        member,
                                             char        *data_json);
/* Fails every member with an error message. */
void                 riv_run_fail           (RivRun      *run,
                                             const char  *message);

G_END_DECLS
