/* riv-queue-private.h
 * Copyright 2026 The Rivulet authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * What the queue's two files share: the queue, its events and its runs
 * (riv-queue.c: the main context's side, scheduling, frames, the runs'
 * lifecycle) and the worker's side of a run (riv-queue-run.c: the calls a
 * demo makes, riv-run.h, and the outbox its frames go through).
 */
#pragma once

#include "riv-clock.h"
#include "riv-inbox.h"
#include "riv-queue.h"
#include "riv-run.h"

/* Bytes of frames a generator may have produced that the main context has not
 * taken yet; beyond it the generator waits. */
#define OUTBOX_MAX (256 * 1024)
/* Files of a running job kept for download; older steps are expired. */
#define RUN_KEEP_FILES 4
/* Estimation broadcasts to waiting events are spaced at least this far apart
 * (and further apart for long queues, see request_broadcast()). */
#define BROADCAST_MIN_INTERVAL_US (100 * 1000)
#define BROADCAST_US_PER_EVENT    100

typedef enum
{
  EVENT_WAITING,
  EVENT_RUNNING,
} EventState;

typedef struct _QueueEvent QueueEvent;

/* Where a run in steps is between its steps (under its lock). */
typedef enum
{
  STEP_IDLE,     /* not started, making a step, or ended */
  STEP_TIMED,    /* in the clock for its next step */
  STEP_READER,   /* its next step waits for the reader to catch up */
} StepState;

typedef struct
{
  char  *path;
  gsize  size;
} OutFile;

struct _QueueEvent
{
  char            id[RIV_EVENT_ID_LEN + 1];
  guint           fn_index;
  EventState      state;
  RivDemoParams  *params;      /* owned while waiting */
  gpointer        session;     /* owned reference */
  GList           link;        /* in the endpoint's waiting queue */
  RivRun         *run;         /* borrowed, while running */
  guint           member;
  RivFrame       *estimation;  /* borrowed, nullable: unsent lazy estimation */
  gsize           input_size;  /* riv_demo_params_get_size() of its inputs */
  gint64          joined;      /* monotonic µs */
};

typedef struct
{
  GQueue     waiting;          /* QueueEvent, through their link */
  guint      running;
  GPtrArray *runs;             /* RivRun, owned references */
  double     total_time;
  guint64    n_runs;
  gint64     last_broadcast;
  GSource   *broadcast_source;
} Endpoint;

struct _RivRun
{
  gint           ref_count;
  RivQueue      *queue;
  guint          fn_index;
  const RivRunEndpoint *endpoint;
  guint          size;
  char         (*ids)[RIV_EVENT_ID_LEN + 1];
  RivDemoParams **params;
  gint64         batch_id;
  double         t_start;
  double         avg;          /* < 0: unknown */

  /* Main context only */
  QueueEvent   **events;
  GQueue         files;        /* char *, the newest RUN_KEEP_FILES paths */

  /* Shared, under lock */
  GMutex         lock;
  GCond          cond;
  gboolean       cancelled;
  gboolean       throttled;
  gboolean       worker_waiting;
  GString       *outbox;       /* frames produced, not yet taken */
  GString       *outbox_spare; /* nullable: a taken outbox, empty, to take the next */
  GArray        *outbox_files; /* OutFile, files written for them */
  gboolean       outbox_posted;
  StepState      step_state;   /* runs in steps */
  RivClockEntry  step_entry;   /* in the queue's clock while STEP_TIMED */
  gint64         step_next;    /* the next step's deadline while STEP_READER */

  /* Worker only, until the run posts its end */
  GString       *scratch;
  double         last_yield;
  double         t_end;
  char         **results;
  char          *error;
  gboolean       step_begun;   /* runs in steps: steps->begin () made step_data */
  gpointer       step_data;
};

struct _RivQueue
{
  GMainContext            *context;
  RivInbox                *inbox;      /* borrowed */
  RivQueueCallbacks        cb;
  gpointer                 cb_data;

  guint                    concurrency;
  guint                    max_waiting;
  gboolean                 verbose;
  gboolean                 stamp;
  char                    *output_dir;
  char                    *base_url;

  GThreadPool             *pool;
  RivClock                *clock;      /* nullable: when an endpoint runs in steps */
  GHashTable              *live;       /* id → QueueEvent (owned) */
  const RivRunEndpoint    *ep_table;   /* borrowed, n_endpoints of them */
  guint                    n_endpoints;
  Endpoint                *endpoints;  /* their queues, n_endpoints */
  guint                    n_waiting;
  guint64                  session_input_max;
  guint64                  input_max;
  guint64                  input_bytes;
  GHashTable              *session_inputs; /* session → guint64 (owned): its live events' inputs */
  GSource                 *schedule_source;
  guint                    schedule_start;
  gint64                   next_batch_id;
  guint64                  batch_items;
  gboolean                 shut_down;
};

static inline RivRun *
run_ref (RivRun *run)
{
  g_atomic_int_inc (&run->ref_count);
  return run;
}

/* Takes what a run's worker produced so far (main context; an inbox item,
 * riv-inbox.h). */
void _riv_queue_outbox_cb (gpointer data,
                           gboolean discard);
