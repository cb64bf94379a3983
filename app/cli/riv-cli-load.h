/* riv-cli-load.h
 * Copyright 2026 The Rivulet authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * rivulet-cli load, shared between its files: riv-cli-load.c (options, the
 * run, its end), riv-cli-load-users.c (virtual users and stages) and
 * riv-cli-load-summary.c (summary, thresholds, status line, files written).
 */
#pragma once

#include <stdio.h>

#include "riv-client.h"
#include "riv-load-stats.h"

G_BEGIN_DECLS

typedef struct
{
  double seconds;   /* how long the ramp takes */
  guint  target;    /* users at its end */
} LoadStage;

typedef struct _LoadRun LoadRun;

typedef struct
{
  LoadRun   *run;
  RivClient *client;        /* NULL while the user is not active */
  RivJob    *job;           /* in flight, nullable */
  GSource   *think_source;  /* nullable */
  gulong     finished_handler;
  guint      number;        /* 1-based, global across shards */
  guint      iterations;    /* jobs submitted */
  gboolean   retiring;      /* stop after the job in flight */
} LoadUser;

struct _LoadRun
{
  /* Options */
  char         *url;
  char         *token;
  char         *endpoint_name;
  JsonNode     *template;        /* JSON array, one value per input */
  guint         count;           /* jobs (open loop); 0 in users mode */
  double        rate;
  double        timeout;
  guint         users;           /* 0: open loop (--count / --rate) */
  double        think;
  double        duration;        /* 0: none */
  guint         iterations;      /* per user; 0: none */
  GArray       *stages;          /* LoadStage, nullable */
  guint         shard;           /* 0-based */
  guint         n_shards;        /* 1: not sharded */
  GPtrArray    *thresholds;      /* RivLoadThreshold */
  gboolean      json;
  gboolean      status_line;     /* standard error is a terminal */

  /* State */
  RivClient    *client;          /* the first client: loaded the config; runs open-loop jobs */
  RivConfig    *config;
  GMainLoop    *loop;
  RivLoadStats *stats;
  GPtrArray    *records;         /* --output: one JSON line per job, by local sequence */
  GPtrArray    *all_users;       /* LoadUser, owned; index = local user slot */
  GPtrArray    *retired;         /* RivClient of stopped users, closed, freed at the end */
  GArray       *window;          /* double: latencies completed since the last status line */
  GSource      *submit_source;
  GSource      *timeout_source;
  GSource      *trim_source;
  GSource      *tick_source;     /* users: stages and duration, 10 times a second */
  GSource      *status_source;
  guint         sigint_id;
  guint         sigterm_id;
  gulong        finished_handler;

  double        start;           /* monotonic, first submit; 0 before */
  double        start_wall;      /* Unix seconds at start */
  double        end;
  guint64       submitted;       /* jobs submitted by this process */
  guint64       finished;
  guint64       completed;
  guint64       failed;
  guint64       cancelled;
  guint64       lost;
  guint64       completed_at_last_status;
  guint64       user_events;     /* messages received by users' clients that were closed */
  guint         active_users;
  guint         peak_users;
  gboolean      submitting_done; /* no more jobs or users will be started */
  gboolean      schedule_over;   /* users: --duration or --stages ended */
  gboolean      stopped;         /* timeout or signal */
  gboolean      interrupted;
  char         *usage_failed;    /* a submit refused the inputs: exit 2 with this */
};

/* riv-cli-load.c */
int       load_usage_error         (const char  *format,
                                    ...) G_GNUC_PRINTF (1, 2);
/* The job's global number (1-based) from this process's sequence number. */
guint64   load_global_index        (LoadRun     *run,
                                    guint64      sequence);
RivJob   *load_submit              (LoadRun     *run,
                                    RivClient   *client,
                                    guint        user,
                                    GError     **error);
void      load_job_finished        (LoadRun     *run,
                                    RivJob      *job);
void      load_maybe_done          (LoadRun     *run);
double    load_elapsed             (LoadRun     *run);

/* riv-cli-load-users.c */
gboolean  load_parse_stages        (const char  *text,
                                    GArray     **stages,
                                    GError     **error);
/* Seconds the users' schedule lasts (stages or --duration); 0 when open-ended. */
double    load_users_schedule      (LoadRun     *run);
void      load_users_start         (LoadRun     *run);
/* Jobs of active users that are still in flight (for lost records). */
void      load_users_foreach_job   (LoadRun     *run,
                                    void       (*func) (LoadRun *run, RivJob *job));
void      load_users_free          (LoadRun     *run);

/* riv-cli-load-summary.c */
void      load_status_start        (LoadRun     *run);
void      load_status_clear        (LoadRun     *run);
/* Prints the summary (and each threshold); returns whether every threshold held. */
gboolean  load_print_summary       (LoadRun     *run,
                                    FILE        *out);
gboolean  load_write_report        (LoadRun     *run,
                                    const char  *path,
                                    GError     **error);
gboolean  load_write_file          (const char  *path,
                                    const char  *contents,
                                    gsize        length,
                                    GError     **error);

G_END_DECLS
