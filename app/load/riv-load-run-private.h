/* riv-load-run-private.h
 * Copyright 2026 The Rivulet authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * What RivLoadRun's files share: riv-load-run.c (the GObject, jobs, samples,
 * the end, the owner's side), riv-load-run-users.c (virtual users and their
 * schedule), riv-load-run-arrivals.c (the arrival-rate load's users),
 * riv-load-run-break.c (breakpoint tests), riv-load-run-scenarios.c (several
 * endpoints by weight),
 * riv-load-run-state.c (what the owner reads of it) and riv-load-run-files.c
 * (local files checked before the run, the server's timings joined after it).
 *
 * struct _RivLoadRun is split by concern, each part a struct of its own:
 * params (RivLoadRunParams: what the run was asked, set by riv-load-run.c and
 * riv-load-run-files.c, the scenarios' in riv-load-run-scenarios.c), brk
 * (RivLoadRunBreak: riv-load-run-break.c), threads (RivLoadRunThreads: a
 * run on its own thread, riv-load-run.c), users (RivLoadRunUsers: riv-load-run-users.c and
 * riv-load-run-arrivals.c), window (RivLoadRunWindow: the sample window,
 * riv-load-run.c), sources (RivLoadRunSources: the timers, riv-load-run.c)
 * and counts (RivLoadRunCounters: riv-load-run.c); the jobs' accounting and
 * where the run is stay in the struct itself (riv-load-run.c).
 * Not API.
 */
#pragma once

#include "riv-arrivals.h"
#include "riv-burst.h"
#include "riv-load-break.h"
#include "riv-load-run.h"
#include "riv-load-scenario.h"
#include "riv-metrics.h"
#include "riv-mux.h"
#include "riv-outcomes.h"

G_BEGIN_DECLS

#define TICK_S            0.1   /* how often the number of users follows the schedule */
#define TRIM_S            0.5   /* how often finished open-loop jobs leave the client's list */
#define USERS_PER_CONTEXT 8     /* riv-mux.h: GLib's per-context walks stay this short */

typedef struct
{
  RivLoadRun   *run;
  GMainContext *context;         /* where its client works (riv-mux.h), borrowed */
  RivClient    *client;          /* NULL while the user is not active */
  RivJob       *job;             /* in flight, nullable */
  GSource      *think_source;    /* nullable */
  gulong        finished_handler;
  guint         number;          /* 1-based, global across shards */
  guint         iterations;      /* jobs submitted */
  gboolean      retiring;        /* stop after the job in flight */
  GList         held;            /* its link in the run's users.held while its next
                                    step waits for the burst's end; data NULL otherwise */
  /* Conversations (scenarios with turns, riv-load-run-users.c) */
  gpointer      conversation;    /* LoadScenario of the one going on, borrowed; nullable */
  guint         turn;            /* its jobs sent so far */
  guint         n_conversations; /* begun */
  guint         session_jobs;    /* jobs sent in the client's session */
  gboolean      session_private; /* that session is a conversation's */
  GQueue        spent;           /* Spent: its ended conversations' clients, not closed yet */
} LoadUser;

/* One scenario of a run (riv-load-run-scenarios.c). */
typedef struct
{
  char         *name;
  guint         number;          /* 1-based, in the order added */
  char         *endpoint_name;   /* what its jobs are submitted to */
  char         *endpoint_key;    /* its endpoint as {endpoint:…} names it ("/chat") */
  GPtrArray    *templates;       /* JsonNode *: job i takes (i - 1) mod n */
  double        weight;
  guint         turns;           /* a conversation's jobs, in a session of their own; 0: one,
                                    in the user's session */
  guint         users;           /* users of its own (not drawn by weight); 0: none */
  guint         first_user;      /* the number of the first of them */
  RivThink      think;
  RivLoadStats *stats;           /* its jobs' (a reference; the threads share it) */
  RivLoadStats *endpoint_stats;  /* its endpoint's, when other scenarios share it; nullable */
} LoadScenario;

/* The arrival-rate load (riv-load-run-arrivals.c): jobs started at the
 * schedule's times, each on an idle user of a pool that grows up to the
 * run's users. */
typedef struct
{
  RivArrivals      *schedule;
  RivArrivalsTally  tally;
  double            due;         /* the next job's time, seconds after the start; < 0: none */
  GSource          *source;      /* ready at that time */
  GQueue            idle;        /* LoadUser without a job, the latest idle first */
} ArrivalLoad;

/* What the owner's getters return while the run works on its own thread. */
typedef struct
{
  guint64       submitted;
  guint64       finished;
  RivOutcomes   outcomes;
  guint64       events;
  guint         active_users;
  guint         peak_users;
  double        elapsed;
} Snapshot;

/* What the run was asked to do, fixed before it starts (the setters in
 * riv-load-run.c and riv-load-run-files.c; the scenarios' draws in
 * riv-load-run-scenarios.c). */
typedef struct
{
  RivClient    *client;          /* connected; runs open-loop jobs */
  char         *endpoint_name;
  JsonNode     *template;
  GPtrArray    *templates;          /* JsonNode *, nullable: job i takes (i - 1) mod n */
  guint         count;           /* open loop: jobs; 0 in users mode */
  double        rate;
  double        timeout;
  guint         users;           /* 0 and no stages: open loop */
  double        think;
  double        duration;        /* 0: none */
  guint         iterations;      /* per user; 0: none */
  GArray       *stages;          /* RivLoadStage, nullable */
  guint         shard;           /* 0-based */
  guint         n_shards;
  gboolean      upload_files;    /* handle_file() inputs uploaded before each job */
  gboolean      track_events;    /* keep event id → job, for the server's timings */
  double        rate_ramp;       /* open loop: seconds the rate takes to grow from 0; 0: none */
  GPtrArray    *scenarios;       /* LoadScenario, nullable: each job takes one by weight */
  double       *cumulative;      /* running sums of their weights */
  gboolean      conversations;   /* one of them has turns or users of its own: each user
                                    draws a scenario per conversation, not per job */
  guint         own_users;       /* the scenarios' users of their own, numbered first */
  guint64       draw_seed;       /* of the scenarios' draws */
  RivMetrics   *metrics;            /* owned ref, nullable: /metrics (riv-metrics.h) */
  RivCompare   *compare;            /* owned ref, nullable: every job also goes in here … */
  guint         compare_run;        /* … as a job of this run (0 or 1) */
} RivLoadRunParams;

/* A breakpoint test (riv-load-run-break.c; riv-load-run.c keeps the sample
 * before the last and the last window's p95 for it). */
typedef struct
{
  gboolean      until_break;
  GPtrArray    *break_thresholds;   /* RivLoadThreshold, shared with the caller, nullable */
  RivLoadBreakpoint *breakpoint;    /* owned, nullable */
  RivBreakKind  break_kind;         /* the first failure's */
  guint         break_seen;         /* 1 << RivBreakKind of the failures after it */
  GArray       *prev_latencies;     /* double: completed in the sample window before */
  double        before_last_t;      /* the sample before the last one */
  guint64       before_last_started;
  guint64       sessions;           /* users started (each its own session) */
  double        ramp_end;           /* riv_now () when the ramp ended by itself; 0 before */
  double        last_p95;           /* of the last sample window with completed jobs; < 0: none */
} RivLoadRunBreak;

/* A run on a thread of its own (riv_load_run_set_threaded (); riv-load-run-state.c
 * reads the snapshot the thread last sent). */
typedef struct
{
  GThread      *thread;          /* nullable: the run works on its own thread */
  RivClient    *seed;            /* threaded: what users copy their connection from */
  Snapshot      shown;           /* threaded: the counters at the last message */
  guint64      *shown_batches;   /* threaded: batch-size counts at the last message */
  guint         shown_batch_max;
  gboolean      threaded;
  int           stop_request;    /* threaded: 1 stop, 2 interrupt (atomic) */
} RivLoadRunThreads;

/* The virtual users and where their clients work (riv-load-run-users.c,
 * riv-load-run-arrivals.c). */
typedef struct
{
  GPtrArray    *all_users;       /* LoadUser, owned; index = local user slot */
  GPtrArray    *retired;         /* RivClient of stopped users, closed at the end */
  RivMux       *mux;             /* the users' contexts, USERS_PER_CONTEXT each */
  GPtrArray    *user_contexts;   /* GMainContext, borrowed from mux */
  ArrivalLoad  *arrival;         /* nullable: the arrival-rate load (users: its pool's limit) */
  guint         next_slot;       /* iterations only: the first user not started yet */
  GSource      *more;            /* starts the next slice of users when the loop is free */
  GSource      *more_guard;      /* … or when it has not been for START_GUARD_MS */
  /* How busy the loop's thread is (loop_busy (), riv-load-run-users.c) */
  double        busy_at;         /* riv_now () of the last sample, 0 before the first */
  double        busy_time;       /* riv_thread_busy_time () then */
  double        busy;            /* its share of the time, an average over the last 50 ms or so */
  gboolean      busy_known;      /* busy has a sample */
  double        burst_began;     /* riv_now () of the burst's first slice */
  guint         burst_started;   /* users it has started */
  gboolean      bursting;        /* users are left to start */
  gboolean      urgent;          /* a job has ended: the rest start at every turn of the loop */
  GQueue        held;            /* LoadUser (their held links): next steps waiting for the
                                    burst's end */
} RivLoadRunUsers;

/* The sample window: what the jobs ended since the last sample did, and
 * that sample (riv-load-run.c). */
typedef struct
{
  GArray       *latencies;       /* double: completed since the last sample */
  GArray       *firsts;          /* double: their times to first update */
  guint         window_stalls;   /* stalls of the jobs ended since the last sample */
  guint         n_samples;
  RivLoadSample last;            /* counters at the previous sample (outcomes: sampled) */
  RivOutcomes   sampled;         /* the outcomes at the previous sample */
  double        updates;         /* updates of the jobs ended since the last sample */
} RivLoadRunWindow;

/* The run's timers (riv-load-run.c; the users' tick in riv-load-run-users.c). */
typedef struct
{
  GSource      *timeout_source;
  GSource      *trim_source;
  GSource      *tick_source;
  GSource      *sample_source;
  GSource      *finish_source;
} RivLoadRunSources;

/* The run's times and counts (riv-load-run.c). */
typedef struct
{
  double        start;           /* monotonic, first submit (users: schedule start); 0 before */
  double        start_wall;      /* Unix seconds at start */
  double        end;
  guint64       submitted;
  guint64       finished;
  RivOutcomes   outcomes;        /* of the jobs counted (riv-outcomes.h) */
  guint64       user_events;     /* messages received by users' clients that stopped */
  guint64       user_bytes;      /* stream bytes of users' clients that stopped */
  guint         active_users;
  guint         peak_users;
} RivLoadRunCounters;

struct _RivLoadRun
{
  GObject       parent_instance;

  GMainContext *owner;           /* where "sample" and "finished" are emitted */
  GMainContext *context;         /* where the run works: users' clients, timers */

  RivLoadRunParams   params;
  RivLoadRunBreak    brk;
  RivLoadRunThreads  threads;
  RivLoadRunUsers    users;
  RivLoadRunWindow   window;
  RivLoadRunSources  sources;
  RivLoadRunCounters counts;

  /* The jobs and their accounting (riv-load-run.c) */
  RivLoadStats *stats;
  GPtrArray    *records;         /* nullable: one JSON line per job, by local sequence */
  RivLoadRecordFunc record_func; /* nullable: each record as its job is counted, instead */
  gboolean      start_declared;  /* riv_load_stats_set_start () called */
  gpointer      record_data;
  RivLoadRecordFunc brief_func;  /* nullable: each job's brief record as it is counted */
  gpointer      brief_data;
  gboolean      not_counting;    /* riv_load_run_set_counting (FALSE) */
  GHashTable   *events;          /* nullable (track_events): event id → EventJob */
  GHashTable   *in_flight;       /* RivJob (owned) → NULL */
  GQueue        settling;        /* Settling (owned): finished, batch not settled yet */
  RivBurst     *open_loop;       /* nullable: submits the open loop's jobs (riv-burst.h) */
  gulong        finished_handler;
  char         *usage_error;

  /* Where the run is */
  gboolean      started;
  gboolean      submitting_done;
  gboolean      schedule_over;
  gboolean      stopped;
  gboolean      interrupted;
  gboolean      over;            /* the work is done (on the run's context) */
  gboolean      done;            /* "finished" emitted (on the owner's) */
};

enum {
  SIGNAL_SAMPLE,
  SIGNAL_USER_STARTED,
  SIGNAL_FINISHED,
  N_SIGNALS
};

extern guint _riv_load_run_signals[N_SIGNALS];

/* The load when a job was submitted (breakpoint tests): a timeout shows
 * late, and is placed where its job was sent. */
typedef struct
{
  double  t;          /* seconds after the start */
  double  rate;       /* jobs submitted a second just before */
  double  p95;        /* of the last sample window with completed jobs; < 0: none */
  guint   users;
  guint64 sessions;
} LoadAt;

/* A completed job, by its event id, for joining the server's timings. */
typedef struct
{
  guint  slot;      /* its record's slot */
  double latency;
} EventJob;

void      _riv_load_run_break_at               (RivLoadRun   *self,
                                                RivBreakKind  kind,
                                                const char   *error,
                                                RivJob       *job);
void      _riv_load_run_break_check_stalls     (RivLoadRun *self);
void      _riv_load_run_break_check_thresholds (RivLoadRun *self);
/* riv-load-run-state.c: messages received by the run's clients. */
guint64   _riv_load_run_count_events (RivLoadRun *self);
void      _riv_load_run_break_name             (RivLoadRun *self);
void      _riv_load_run_breakpoint_free        (RivLoadBreakpoint *bp);
GSource * _riv_load_run_add_source             (RivLoadRun  *self,
                                                GSource     *source,
                                                GSourceFunc  func,
                                                gpointer     data);
GSource * _riv_load_run_add_timeout            (RivLoadRun  *self,
                                                double       seconds,
                                                GSourceFunc  func);
void      _riv_load_run_destroy_source         (GSource **source);
double    _riv_load_run_elapsed                (RivLoadRun *self);
guint64   _riv_load_run_global_index           (RivLoadRun *self,
                                                guint64     sequence);
/* A job's number (1-based, across threads and shards). */
guint64   _riv_load_run_job_index              (RivLoadRun *self,
                                                RivJob     *job);
void      _riv_load_run_job_finished           (RivLoadRun *self,
                                                RivJob     *job);
GQuark    _riv_load_run_load_at_quark          (void);
void      _riv_load_run_maybe_done             (RivLoadRun *self);
void      _riv_load_run_open_loop_stop         (RivLoadRun *self);
/* scenario: the job's, or NULL to draw it by the job's number; turn: its
 * place in a conversation (1-based), 0 when it is none. */
RivJob *  _riv_load_run_submit                 (RivLoadRun    *self,
                                                RivClient     *client,
                                                guint          user,
                                                LoadScenario  *scenario,
                                                guint          turn,
                                                GError       **error);
/* The job's scenario (NULL without scenarios). */
LoadScenario *_riv_load_run_job_scenario       (RivJob *job);
guint     _riv_load_run_shard_share            (RivLoadRun *self,
                                                guint       n);
void      _riv_load_run_user_next              (LoadUser *user);
/* A new user in the next slot, not started. */
LoadUser *_riv_load_run_user_add               (RivLoadRun *self);
/* Starts a user: its client, and its first job. */
void      _riv_load_run_user_start             (RivLoadRun *self,
                                                LoadUser   *user);
void      _riv_load_run_user_stop              (LoadUser   *user);
void      _riv_load_run_users_free             (RivLoadRun *self);
void      _riv_load_run_users_start            (RivLoadRun *self);
/* riv-load-run-arrivals.c */
void      _riv_load_run_arrivals_start         (RivLoadRun *self);
/* A user's job ended (from the loop, not the client's signal). */
void      _riv_load_run_arrivals_user_idle     (LoadUser   *user);
void      _riv_load_run_arrivals_free          (RivLoadRun *self);
/* riv-load-run-scenarios.c: the scenario job index takes (NULL without
 * scenarios), the think after it, and each scenario's statistics kept with
 * the run's. */
LoadScenario *_riv_load_run_scenario_for       (RivLoadRun *self,
                                                guint64     index);
double    _riv_load_run_think_after            (RivLoadRun *self,
                                                RivJob     *job);
/* The scenario of conversation k (0-based) of user number (1-based): the
 * one the user belongs to, or a draw by weight from the seed, the user and
 * k, whatever the threads. */
LoadScenario *_riv_load_run_conversation_for   (RivLoadRun *self,
                                                guint       user,
                                                guint       k);
/* set (riv_load_stats_set_start, _end, _stall) on each scenario's statistics. */
void      _riv_load_run_scenarios_stats_set    (RivLoadRun *self,
                                                void      (*set) (RivLoadStats *stats,
                                                                  double        value),
                                                double      value);
/* The report's parameters for each scenario (name, value, …, added to
 * params): what it sends, and its figures. */
void      _riv_load_run_scenarios_add_params   (RivLoadRun *self,
                                                GPtrArray  *params);
/* The metrics' series by scenario (riv_metrics_set_scenarios ()), when the
 * run has both. */
void      _riv_load_run_scenarios_name_metrics (RivLoadRun *self);
void      _riv_load_run_scenarios_free         (RivLoadRun *self);
/* The HTML report (riv_report_html_for ()): the run's, each scenario's, and
 * each threshold checked on the jobs its tag names. */
char     *_riv_load_run_report                 (RivLoadRun               *self,
                                                const char * const       *params,
                                                RivLoadThreshold * const *thresholds,
                                                guint                     n_thresholds);

G_END_DECLS
