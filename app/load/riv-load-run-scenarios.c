/* riv-load-run-scenarios.c
 * Copyright 2026 The Rivulet authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * A run with scenarios (riv_load_run_add_scenario ()): which one each job
 * takes (a draw by weight from the seed and the job's number, as Locust's
 * weighted tasks pick, but the same again for the same seed), the think time
 * after it, and the statistics each scenario (and each endpoint that several
 * scenarios share) keeps besides the run's: RivLoadStats, bounded in the
 * number of jobs as the run's are.
 */
#include "config.h"

#include <string.h>

#include "riv-json.h"
#include "riv-load-run-private.h"
#include "riv-report.h"

static void
scenario_free (LoadScenario *scenario)
{
  g_free (scenario->name);
  g_free (scenario->endpoint_name);
  g_free (scenario->endpoint_key);
  g_clear_pointer (&scenario->templates, g_ptr_array_unref);
  g_clear_pointer (&scenario->stats, riv_load_stats_free);
  g_clear_pointer (&scenario->endpoint_stats, riv_load_stats_free);
  g_free (scenario);
}

void
_riv_load_run_scenarios_free (RivLoadRun *self)
{
  g_clear_pointer (&self->params.scenarios, g_ptr_array_unref);
  g_clear_pointer (&self->params.cumulative, g_free);
}

static void
add_scenario (RivLoadRun   *self,
              LoadScenario *scenario)
{
  guint n;

  if (self->params.scenarios == NULL)
    self->params.scenarios = g_ptr_array_new_with_free_func ((GDestroyNotify) scenario_free);
  g_ptr_array_add (self->params.scenarios, scenario);
  n = self->params.scenarios->len;
  scenario->number = n;
  self->params.cumulative = g_renew (double, self->params.cumulative, n);
  /* A scenario with users of its own is not drawn. */
  self->params.cumulative[n - 1] = (n > 1 ? self->params.cumulative[n - 2] : 0) +
                            (scenario->users > 0 ? 0 : scenario->weight);
}

void
riv_load_run_add_scenario (RivLoadRun            *self,
                           const RivLoadScenario *spec,
                           const char            *endpoint_key,
                           GPtrArray             *templates,
                           const RivThink        *think)
{
  LoadScenario *scenario;

  g_return_if_fail (RIV_IS_LOAD_RUN (self));
  g_return_if_fail (!self->started);
  g_return_if_fail (spec != NULL && spec->name != NULL && spec->endpoint != NULL);
  g_return_if_fail (endpoint_key != NULL);
  g_return_if_fail (templates != NULL && templates->len > 0);
  g_return_if_fail (spec->weight > 0 && think != NULL);

  scenario = g_new0 (LoadScenario, 1);
  scenario->name = g_strdup (spec->name);
  scenario->endpoint_name = g_strdup (spec->endpoint);
  scenario->endpoint_key = g_strdup (endpoint_key);
  scenario->templates = g_ptr_array_ref (templates);
  scenario->weight = spec->weight;
  scenario->turns = MIN (spec->turns, RIV_TURNS_MAX);
  scenario->users = spec->users;
  scenario->first_user = self->params.own_users + 1;
  scenario->think = *think;
  scenario->stats = riv_load_stats_new ();
  riv_load_stats_set_stall (scenario->stats, riv_load_stats_get_stall (self->stats));
  self->params.own_users += spec->users;
  self->params.conversations |= spec->turns > 0 || spec->users > 0;

  /* An endpoint other scenarios send to too gets statistics of its own. */
  for (guint i = 0; self->params.scenarios != NULL && i < self->params.scenarios->len; i++)
    {
      LoadScenario *other = g_ptr_array_index (self->params.scenarios, i);

      if (!riv_load_same_endpoint (other->endpoint_key, endpoint_key))
        continue;
      if (other->endpoint_stats == NULL)
        {
          other->endpoint_stats = riv_load_stats_new ();
          riv_load_stats_set_stall (other->endpoint_stats, riv_load_stats_get_stall (self->stats));
        }
      scenario->endpoint_stats = riv_load_stats_ref (other->endpoint_stats);
      break;
    }
  add_scenario (self, scenario);
}

void
riv_load_run_set_seed (RivLoadRun *self,
                       guint64     seed)
{
  g_return_if_fail (RIV_IS_LOAD_RUN (self));
  self->params.draw_seed = seed;
}

guint64
riv_load_run_get_seed (RivLoadRun *self)
{
  g_return_val_if_fail (RIV_IS_LOAD_RUN (self), 0);
  return self->params.draw_seed;
}

guint
riv_load_run_get_n_scenarios (RivLoadRun *self)
{
  g_return_val_if_fail (RIV_IS_LOAD_RUN (self), 0);
  return self->params.scenarios != NULL ? self->params.scenarios->len : 0;
}

const char *
riv_load_run_get_scenario (RivLoadRun  *self,
                           guint        i,
                           const char **endpoint_key,
                           double      *weight)
{
  LoadScenario *scenario;

  g_return_val_if_fail (i < riv_load_run_get_n_scenarios (self), NULL);
  scenario = g_ptr_array_index (self->params.scenarios, i);
  if (endpoint_key != NULL)
    *endpoint_key = scenario->endpoint_key;
  if (weight != NULL)
    *weight = scenario->weight;
  return scenario->name;
}

void
riv_load_run_get_scenario_counts (RivLoadRun *self,
                                  guint       i,
                                  guint      *users,
                                  guint      *turns)
{
  LoadScenario *scenario;

  g_return_if_fail (i < riv_load_run_get_n_scenarios (self));
  scenario = g_ptr_array_index (self->params.scenarios, i);
  *users = scenario->users;
  *turns = scenario->turns;
}

RivLoadStats *
riv_load_run_get_scenario_stats (RivLoadRun *self,
                                 guint       i)
{
  if (i >= riv_load_run_get_n_scenarios (self))
    return NULL;
  return ((LoadScenario *) g_ptr_array_index (self->params.scenarios, i))->stats;
}

RivLoadStats *
riv_load_run_get_endpoint_stats (RivLoadRun *self,
                                 const char *endpoint_key)
{
  g_return_val_if_fail (endpoint_key != NULL, NULL);

  for (guint i = 0; i < riv_load_run_get_n_scenarios (self); i++)
    {
      LoadScenario *scenario = g_ptr_array_index (self->params.scenarios, i);

      if (riv_load_same_endpoint (scenario->endpoint_key, endpoint_key))
        return scenario->endpoint_stats != NULL ? scenario->endpoint_stats : scenario->stats;
    }
  return NULL;
}

RivLoadStats *
riv_load_run_get_tagged_stats (RivLoadRun *self,
                               const char *key,
                               const char *value)
{
  g_return_val_if_fail (RIV_IS_LOAD_RUN (self), NULL);

  if (key == NULL)
    return self->stats;
  g_return_val_if_fail (value != NULL, NULL);
  if (strcmp (key, "endpoint") == 0)
    return riv_load_run_get_endpoint_stats (self, value);
  for (guint i = 0; strcmp (key, "scenario") == 0 && i < riv_load_run_get_n_scenarios (self); i++)
    {
      LoadScenario *scenario = g_ptr_array_index (self->params.scenarios, i);

      if (strcmp (scenario->name, value) == 0)
        return scenario->stats;
    }
  return NULL;
}

LoadScenario *
_riv_load_run_scenario_for (RivLoadRun *self,
                            guint64     index)
{
  guint n = riv_load_run_get_n_scenarios (self);

  if (n == 0)
    return NULL;
  return g_ptr_array_index (self->params.scenarios,
                            riv_load_scenarios_pick (self->params.cumulative, n,
                                                     riv_load_draw (self->params.draw_seed, index,
                                                                    RIV_LOAD_DRAW_SCENARIO)));
}

LoadScenario *
_riv_load_run_conversation_for (RivLoadRun *self,
                                guint       user,
                                guint       k)
{
  guint n = riv_load_run_get_n_scenarios (self);

  g_return_val_if_fail (n > 0, NULL);
  for (guint i = 0; user <= self->params.own_users && i < n; i++)
    {
      LoadScenario *scenario = g_ptr_array_index (self->params.scenarios, i);

      if (user >= scenario->first_user && user < scenario->first_user + scenario->users)
        return scenario;
    }
  return g_ptr_array_index (self->params.scenarios,
                            riv_load_scenarios_pick (self->params.cumulative, n,
                                                     riv_load_draw (self->params.draw_seed,
                                                                    (guint64) user << 32 | k,
                                                                    RIV_LOAD_DRAW_CONVERSATION)));
}

double
_riv_load_run_think_after (RivLoadRun *self,
                           RivJob     *job)
{
  LoadScenario *scenario = _riv_load_run_job_scenario (job);

  if (scenario == NULL)
    return self->params.think;
  return riv_think_sample (&scenario->think,
                          riv_load_draw (self->params.draw_seed,
                                         _riv_load_run_job_index (self, job), RIV_LOAD_DRAW_THINK));
}

void
_riv_load_run_scenarios_stats_set (RivLoadRun *self,
                                   void      (*set) (RivLoadStats *stats, double value),
                                   double      value)
{
  for (guint i = 0; i < riv_load_run_get_n_scenarios (self); i++)
    {
      LoadScenario *scenario = g_ptr_array_index (self->params.scenarios, i);

      set (scenario->stats, value);
      if (scenario->endpoint_stats != NULL)
        set (scenario->endpoint_stats, value);
    }
}

static char *
describe_think (const RivThink *think)
{
  switch (think->kind)
    {
    case RIV_THINK_UNIFORM:
      return g_strdup_printf ("uniform %g–%g s", think->a, think->b);
    case RIV_THINK_EXPONENTIAL:
      return g_strdup_printf ("exponential, mean %g s", think->a);
    case RIV_THINK_CONSTANT:
    default:
      return g_strdup_printf ("%g s", think->a);
    }
}

/* ", 3 turns a session, 4 users of its own", as the scenario has them. */
static char *
describe_counts (const LoadScenario *scenario)
{
  GString *out = g_string_new (NULL);

  if (scenario->turns > 0)
    g_string_append_printf (out, ", %u turns a session", scenario->turns);
  if (scenario->users > 0)
    g_string_append_printf (out, ", %u users of its own", scenario->users);
  return g_string_free (out, FALSE);
}

void
_riv_load_run_scenarios_add_params (RivLoadRun *self,
                                    GPtrArray  *params)
{
  for (guint i = 0; i < riv_load_run_get_n_scenarios (self); i++)
    {
      LoadScenario *scenario = g_ptr_array_index (self->params.scenarios, i);
      g_autofree char *data = riv_json_to_string (g_ptr_array_index (scenario->templates, 0), NULL);
      g_autofree char *think = describe_think (&scenario->think);
      g_autofree char *turns = describe_counts (scenario);
      RivLoadSummary s;

      riv_load_stats_summarize (scenario->stats, &s);
      g_ptr_array_add (params, g_strdup_printf ("scenario %s", scenario->name));
      g_ptr_array_add (params, g_strdup_printf ("%s, weight %g%s, think %s, data %s%s",
                                                scenario->endpoint_key, scenario->weight, turns,
                                                think, data, scenario->templates->len > 1
                                                  ? " (the first of its examples)" : ""));
      g_ptr_array_add (params, g_strdup_printf ("%s: jobs", scenario->name));
      g_ptr_array_add (params,
                       s.completed > 0
                         ? g_strdup_printf ("%" G_GUINT64_FORMAT " completed, %" G_GUINT64_FORMAT
                                            " failed, %" G_GUINT64_FORMAT " lost, %.1f jobs/s; "
                                            "latency p50 %.3f s, p95 %.3f s, p99 %.3f s",
                                            s.completed, s.failed, s.lost, s.throughput_per_s,
                                            s.p50, s.p95, s.p99)
                         : g_strdup_printf ("0 completed, %" G_GUINT64_FORMAT " failed, %"
                                            G_GUINT64_FORMAT " lost", s.failed, s.lost));
    }
}

void
_riv_load_run_scenarios_name_metrics (RivLoadRun *self)
{
  g_autoptr(GPtrArray) names = g_ptr_array_new ();

  if (self->params.metrics == NULL || self->params.scenarios == NULL)
    return;
  for (guint i = 0; i < self->params.scenarios->len; i++)
    g_ptr_array_add (names, ((LoadScenario *) g_ptr_array_index (self->params.scenarios, i))->name);
  g_ptr_array_add (names, NULL);
  riv_metrics_set_scenarios (self->params.metrics, (const char * const *) names->pdata);
}

char *
_riv_load_run_report (RivLoadRun               *self,
                      const char * const       *params,
                      RivLoadThreshold * const *thresholds,
                      guint                     n_thresholds)
{
  guint n = riv_load_run_get_n_scenarios (self);
  g_autofree const char **names = g_new0 (const char *, MAX (n, 1));
  g_autofree RivLoadStats **stats = g_new0 (RivLoadStats *, MAX (n, 1));
  g_autofree RivLoadStats **tagged = g_new0 (RivLoadStats *, MAX (n_thresholds, 1));
  RivReportInput in = {
    riv_config_get_version (riv_client_get_config (self->params.client)), params,
    thresholds, tagged, n_thresholds, names, stats, n,
  };

  for (guint i = 0; i < n; i++)
    {
      names[i] = riv_load_run_get_scenario (self, i, NULL, NULL);
      stats[i] = riv_load_run_get_scenario_stats (self, i);
    }
  /* Without scenarios a tag names the run's one (checked by the caller). */
  for (guint i = 0; i < n_thresholds && n > 0; i++)
    {
      const char *value;
      const char *key = riv_load_threshold_get_tag (thresholds[i], &value);

      tagged[i] = riv_load_run_get_tagged_stats (self, key, value);
    }
  return riv_report_html_for (self->stats, &in);
}
