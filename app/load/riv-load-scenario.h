/* riv-load-scenario.h
 * Copyright 2026 The Rivulet authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Scenarios (rivulet-cli load --scenarios FILE): several endpoints in one
 * run, read from a JSON file in the spirit of k6's options ("scenarios",
 * each named, with its endpoint, data, weight or users of its own, turns (a
 * conversation in one session), think time and thresholds,
 * and the run's users, duration or stages beside them). Read strictly: an
 * unknown key or a bad value is an error naming the scenario and the key.
 * Also the think-time distributions and the seeded draws a run makes from
 * them (which scenario a job takes, how long its user thinks after it).
 */
#pragma once

#include <json-glib/json-glib.h>

#include "riv-load-stats.h"

G_BEGIN_DECLS

typedef enum
{
  RIV_THINK_CONSTANT,      /* a seconds */
  RIV_THINK_UNIFORM,       /* from a to b seconds */
  RIV_THINK_EXPONENTIAL,   /* mean a seconds */
} RivThinkKind;

typedef struct
{
  RivThinkKind kind;
  double       a;
  double       b;
} RivThink;

/* Most turns a conversation may have. */
#define RIV_TURNS_MAX 10000

/* Longest think the file may ask for, and longest one drawn (an
 * exponential's tail is cut there). */
#define RIV_THINK_MAX_S 3600.0

/* The think time for u, a uniform draw in [0, 1). */
double        riv_think_sample            (const RivThink   *think,
                                           double            u);
double        riv_think_mean              (const RivThink   *think);

typedef struct
{
  char      *name;
  char      *endpoint;     /* an api name (with or without "/") or a fn_index, as written */
  JsonNode  *data;         /* an array or an object of parameters; nullable: the defaults */
  gboolean   examples;     /* each job one of the endpoint's examples in turn */
  double     weight;       /* > 0; 1 when not given */
  guint      turns;        /* a conversation: this many jobs in a row in a session of
                              their own; 0 when not given (one job, in the user's session) */
  guint      users;        /* virtual users of its own, that run only it; 0 when not given
                              (the run's users draw it by weight) */
  gboolean   has_think;
  RivThink   think;
  GPtrArray *thresholds;   /* RivLoadThreshold, tagged {scenario:NAME} */
} RivLoadScenario;

typedef struct
{
  GPtrArray *scenarios;    /* RivLoadScenario, in the file's order */
  /* The run's own options: -1 (NULL, FALSE) when the file does not give them. */
  gint       users;
  double     duration;
  gint       iterations;
  GArray    *stages;       /* RivLoadStage */
  gboolean   has_think;
  RivThink   think;
  gboolean   has_seed;
  guint64    seed;
  GPtrArray *thresholds;   /* RivLoadThreshold, as written (tagged or not) */
} RivLoadScenarios;

/* The file's text; NULL with an error (G_OPTION_ERROR_BAD_VALUE) that names
 * the scenario and the key. */
RivLoadScenarios *riv_load_scenarios_parse (const char        *text,
                                            gssize             length,
                                            GError           **error);
void          riv_load_scenarios_free     (RivLoadScenarios *self);
/* The scenario a job takes: u (a uniform draw in [0, 1)) against the running
 * sums of the weights (cumulative[n - 1] is their total). */
guint         riv_load_scenarios_pick     (const double     *cumulative,
                                           guint             n,
                                           double            u);
/* The streams of draws a run takes (riv_load_draw ()): a job's scenario, the
 * think time after it, and a user's k-th conversation. */
enum {
  RIV_LOAD_DRAW_SCENARIO,
  RIV_LOAD_DRAW_THINK,
  RIV_LOAD_DRAW_CONVERSATION,
};

/* A uniform draw in [0, 1) that depends only on seed, the job's number and
 * stream (a draw of its own for each use): the same run again makes the
 * same draws, whatever the threads. */
double        riv_load_draw               (guint64           seed,
                                           guint64           index,
                                           guint             stream);

/* Whether two api names are one endpoint: "/chat" and "chat" are. */
gboolean      riv_load_same_endpoint      (const char       *a,
                                           const char       *b);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (RivLoadScenarios, riv_load_scenarios_free)

G_END_DECLS
