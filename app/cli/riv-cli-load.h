/* riv-cli-load.h
 * Copyright 2026 The Rivulet authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * rivulet-cli load, shared between its files: riv-cli-load.c (options, the
 * run, its end) and riv-cli-load-summary.c (summary, thresholds, status line,
 * files written). The run itself is app/load/riv-load-run.c, the engine the
 * window's Load mode uses too. riv-cli-report.c (report merge) uses the
 * summary's outage from here. riv-cli-load-processes.c runs the users in
 * worker processes (--processes N) and merges what they count.
 */
#pragma once

#include <stdio.h>

#include "riv-client.h"
#include "riv-load-run.h"

G_BEGIN_DECLS

typedef struct _LoadProcesses LoadProcesses;

typedef struct
{
  RivClient    *client;          /* the first client: loaded the config; runs open-loop jobs */
  RivConfig    *config;
  RivLoadRun   *engine;
  GMainLoop    *loop;
  FILE         *output;          /* --output, nullable: a file or standard output */
  gboolean      streaming;       /* records written to it as jobs are counted */
  gint          output_errno;    /* the first failure writing them (atomic), 0: none */
  FILE         *summary_out;     /* standard output, or standard error */
  GPtrArray    *thresholds;      /* RivLoadThreshold */
  char         *endpoint_key;    /* without --scenarios: the endpoint as {endpoint:…} names it */
  gboolean      json;
  gboolean      until_break;     /* --until-break: the summary names the breaking point */
  RivMetrics   *metrics;         /* --metrics, nullable */
  GPtrArray    *local_files;     /* the files the jobs upload (checked), each once; nullable */
  double        metrics_until;   /* serving the last values until then (riv_now ()) */
  gboolean      status_line;     /* standard error is a terminal */
  gboolean      server_traces;   /* the server offers its timings (GRADIO_PROFILING) */
  guint         server_joined;   /* jobs joined to them */
  gulong        sample_handler;
  guint         sigint_id;
  guint         sigterm_id;
  LoadProcesses *processes;      /* --processes N: the workers; the engine runs no job */
} LoadRun;

/* What the summary and the exit status take from the run as it went: the
 * engine's counts, or with --processes, the workers' summed. */
typedef struct
{
  guint64                  submitted;
  guint64                  finished;
  guint64                  events;
  guint                    peak_users;
  guint                    processes;     /* 0: without --processes */
  gboolean                 stopped;
  gboolean                 interrupted;
  gboolean                 arrival;       /* an arrival-rate run: */
  RivArrivalsTally         tally;         /* what became of its arrivals */
  const RivLoadBreakpoint *breakpoint;    /* nullable */
  gboolean                 worker_failed; /* a worker process crashed or failed */
} LoadCounts;

void      load_get_counts          (LoadRun     *run,
                                    LoadCounts  *counts);

/* riv-cli-load-processes.c: load --processes N. The parent checks the
 * options and connects as a run of its own does, then runs N copies of
 * itself, each shard I of N (--worker: records and progress as JSON lines
 * on standard output), and feeds their records into its engine's
 * statistics, which it never starts. */
typedef struct
{
  guint        n;               /* 2 or more */
  char       **args;            /* load's arguments as given (args[0] "load") */
  guint        shard;           /* the run's own --shard I/M */
  guint        n_shards;
  guint64      seed;            /* with scenarios: the one every worker draws with */
  gboolean     scenarios;
  gboolean     until_break;
} LoadProcessesSpec;

/* --processes N: FALSE (a usage error) unless 1 <= N <= the most there may be. */
gboolean  load_processes_parse     (const char  *text,
                                    gint        *processes,
                                    GError     **error);
/* FALSE (a usage error) when N processes cannot run what the options ask:
 * at most most_users users at once (0: the open loop), --record. */
gboolean  load_processes_check     (guint        processes,
                                    guint        most_users,
                                    GError     **error);
/* --processes auto: one a core, one fewer when the server is on this
 * machine too (it needs a core of its own), no more than the users; 1 for
 * what one process must run (the open loop, --record). */
guint     load_processes_auto      (guint        most_users,
                                    gboolean     server_on_this_machine);
char    **load_processes_copy_args (int          argc,
                                    char       **argv);
LoadProcesses *load_processes_new  (LoadRun                 *run,
                                    const LoadProcessesSpec *spec);
void      load_processes_free      (LoadProcesses *self);
/* Writes one record line to run's --output as its job is counted. */
void      load_record_line         (const char    *line,
                                    gpointer       run);
/* Runs the workers to their end; FALSE: a usage error one of them found
 * (said once), or none could start. */
gboolean  load_processes_run       (LoadProcesses  *self,
                                    GError        **error);
void      load_processes_get_counts (LoadProcesses *self,
                                     LoadCounts    *counts);
/* The workers' live lint findings, from their end lines (empty without). */
JsonArray *load_processes_dup_lint  (LoadProcesses *self);
/* A worker's side (--worker): progress lines each second and SIGUSR1
 * breaking the ramp; at the end one line of its counts, then its exit
 * status (2: the usage error given). brief (--worker-brief): each job's
 * brief record instead of its JSON record, where the records go out as
 * their jobs end. */
void      load_worker_watch        (LoadRun       *run,
                                    gboolean       brief);
int       load_worker_end          (LoadRun       *run,
                                    const GError  *usage_error);
/* riv-cli-load-inputs.c */
/* One value per input: what --data gives (what names it in errors), then the
 * inputs' defaults; or --data's parameters by name in the endpoint's order. */
JsonNode *load_build_template      (RivEndpoint  *endpoint,
                                    JsonNode     *given,
                                    const char   *what,
                                    GError      **error);
/* The endpoint's examples (gr.Examples), each a template; NULL with an error
 * naming what when it has none. */
GPtrArray *load_endpoint_examples  (RivEndpoint  *endpoint,
                                    const char   *what,
                                    GError      **error);

/* The status line's text, the same for one process and several. */
void      load_status_print        (double        t,
                                    guint         users,
                                    guint64       completed,
                                    guint         per_s,
                                    double        p95,
                                    double        first_p95,
                                    guint64       failed,
                                    guint64       lost,
                                    guint         in_flight);

/* riv-cli-load-summary.c */
/* The outage of a summary (riv_load_stats_find_outage ()), the same in `load`
 * and `report merge`: its JSON value (null without one) and its line; end_s < 0
 * when it was not over by the run's end. */
void      riv_cli_outage_add_json  (JsonBuilder *builder,
                                    gboolean     outage,
                                    double       start_s,
                                    double       end_s);
/* The streaming figures of a summary (app/docs/streaming.md): the
 * "streaming" member of --json, and the text lines (none when no job
 * completed). Shared by load and report merge. */
void      riv_cli_streaming_add_json (JsonBuilder          *builder,
                                      const RivLoadSummary *summary);
void      riv_cli_streaming_print  (FILE                 *out,
                                    const RivLoadSummary *summary);
void      riv_cli_outage_print     (FILE        *out,
                                    double       start_s,
                                    double       end_s);
/* What is known of a scenario, for its figures. */
typedef struct
{
  const char *name;
  const char *endpoint;   /* nullable: not known */
  double      weight;     /* 0: not known, or not drawn (users of its own) */
  guint       users;      /* of its own; 0: none or not known */
  guint       turns;      /* a conversation's; 0: none or not known */
} RivCliScenario;

/* One scenario's figures: a member of --json's "scenarios" object, or its
 * lines of the text summary. */
void      riv_cli_scenario_add_json (JsonBuilder          *builder,
                                     const RivCliScenario *scenario,
                                     const RivLoadSummary *summary);
void      riv_cli_scenario_print   (FILE                 *out,
                                    const RivCliScenario *scenario,
                                    const RivLoadSummary *summary);
void      load_status_start        (LoadRun     *run);
void      load_status_clear        (LoadRun     *run);
/* The statistics a threshold is checked on: the run's, or those of the
 * scenario or endpoint its tag names; NULL when the run has none such. */
RivLoadStats *load_threshold_stats (LoadRun                *run,
                                    const RivLoadThreshold *threshold);
/* --timeseries: the run's seconds; with scenarios, a first column "scenario":
 * the run's lines as "(all)", then each scenario's. */
char     *load_timeseries_csv      (LoadRun     *run);
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
