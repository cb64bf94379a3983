/* fuzz-entry-scenarios.c
 * Copyright 2026 The Rivulet authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Input: the text of a `load --scenarios` file (any bytes).
 *
 * Oracles: riv_load_scenarios_parse() either returns the file or sets a
 * G_OPTION_ERROR saying why, never both and never neither; a valid UTF-8
 * file gets a valid UTF-8 message. A file it returns has 1 to 1,000
 * scenarios with distinct names of letters, digits, "_", "-" and "."; each
 * names an endpoint, weighs more than 0 and at most 1e6, has data that is an
 * array or an object (not with examples), a think time whose draws stay
 * within its range (and 0 to 3600 s), and thresholds tagged with its own
 * name that parse again from their text; the run's users, duration,
 * iterations and stages are unset or in range; and a pick by the weights
 * names one of the scenarios for any draw.
 */
#include "config.h"

#include <math.h>
#include <string.h>

#include "fuzz-entry.h"
#include "riv-load-run.h"
#include "riv-load-scenario.h"

static void
check_think (const RivThink *think,
             const char     *name)
{
  const double draws[] = { 0, 1e-9, 0.5, 0.999999999 };

  RIV_FUZZ_CHECK (isfinite (think->a) && think->a >= 0 && think->a <= RIV_THINK_MAX_S,
                  "%s: think %g", name, think->a);
  if (think->kind == RIV_THINK_UNIFORM)
    RIV_FUZZ_CHECK (isfinite (think->b) && think->a <= think->b && think->b <= RIV_THINK_MAX_S,
                    "%s: uniform [%g, %g]", name, think->a, think->b);
  for (guint i = 0; i < G_N_ELEMENTS (draws); i++)
    {
      double s = riv_think_sample (think, draws[i]);

      RIV_FUZZ_CHECK (isfinite (s) && s >= 0 && s <= RIV_THINK_MAX_S, "%s: drew %g", name, s);
      if (think->kind == RIV_THINK_UNIFORM)
        RIV_FUZZ_CHECK (s >= think->a && s <= think->b, "%s: drew %g outside [%g, %g]", name, s,
                        think->a, think->b);
      if (think->kind == RIV_THINK_CONSTANT)
        RIV_FUZZ_CHECK (s == think->a, "%s: constant %g drew %g", name, think->a, s);
    }
}

static void
check_scenario (const RivLoadScenario *scenario,
                GHashTable            *names)
{
  const char *name = scenario->name;

  RIV_FUZZ_CHECK (name != NULL && *name != '\0' && strlen (name) <= 64, "a name of %zu bytes",
                  name != NULL ? strlen (name) : 0);
  for (const char *p = name; *p != '\0'; p++)
    RIV_FUZZ_CHECK (g_ascii_isalnum (*p) || strchr ("_-.", *p) != NULL, "name \"%s\"", name);
  RIV_FUZZ_CHECK (g_hash_table_add (names, (gpointer) name), "two scenarios named \"%s\"", name);
  RIV_FUZZ_CHECK (scenario->endpoint != NULL && *scenario->endpoint != '\0',
                  "%s: no endpoint", name);
  RIV_FUZZ_CHECK (scenario->weight > 0 && scenario->weight <= 1e6, "%s: weight %g", name,
                  scenario->weight);
  RIV_FUZZ_CHECK (scenario->data == NULL || JSON_NODE_HOLDS_ARRAY (scenario->data) ||
                  JSON_NODE_HOLDS_OBJECT (scenario->data), "%s: data neither array nor object",
                  name);
  RIV_FUZZ_CHECK (scenario->data == NULL || !scenario->examples, "%s: data and examples", name);
  if (scenario->has_think)
    check_think (&scenario->think, name);
  for (guint i = 0; i < scenario->thresholds->len; i++)
    {
      RivLoadThreshold *threshold = g_ptr_array_index (scenario->thresholds, i);
      g_autoptr(RivLoadThreshold) again =
        riv_load_threshold_parse (riv_load_threshold_get_text (threshold), NULL);
      const char *value = NULL;

      RIV_FUZZ_CHECK (g_strcmp0 (riv_load_threshold_get_tag (threshold, &value), "scenario") == 0 &&
                      g_strcmp0 (value, name) == 0, "%s: threshold %s not tagged with it", name,
                      riv_load_threshold_get_text (threshold));
      RIV_FUZZ_CHECK (again != NULL, "%s: threshold %s does not parse again", name,
                      riv_load_threshold_get_text (threshold));
    }
}

static void
check_file (const RivLoadScenarios *file)
{
  g_autoptr(GHashTable) names = g_hash_table_new (g_str_hash, g_str_equal);
  g_autofree double *cumulative = NULL;
  guint n = file->scenarios->len;
  const double draws[] = { 0, 0.25, 0.5, 0.999999999 };

  RIV_FUZZ_CHECK (n >= 1 && n <= 1000, "%u scenarios", n);
  RIV_FUZZ_CHECK (file->users == -1 || (file->users >= 1 && file->users <= 1000000),
                  "users %d", file->users);
  RIV_FUZZ_CHECK (file->iterations == -1 || file->iterations >= 1, "iterations %d",
                  file->iterations);
  RIV_FUZZ_CHECK (file->duration == -1 || (isfinite (file->duration) && file->duration > 0),
                  "duration %g", file->duration);
  for (guint i = 0; file->stages != NULL && i < file->stages->len; i++)
    {
      const RivLoadStage *stage = &g_array_index (file->stages, RivLoadStage, i);

      RIV_FUZZ_CHECK (isfinite (stage->seconds) && stage->seconds >= 0 &&
                      stage->target <= 1000000, "stage %u: %g s to %u users", i + 1,
                      stage->seconds, stage->target);
    }
  if (file->has_think)
    check_think (&file->think, "the run");

  cumulative = g_new (double, n);
  for (guint i = 0; i < n; i++)
    {
      const RivLoadScenario *scenario = g_ptr_array_index (file->scenarios, i);

      check_scenario (scenario, names);
      cumulative[i] = (i > 0 ? cumulative[i - 1] : 0) + scenario->weight;
    }
  for (guint i = 0; i < G_N_ELEMENTS (draws); i++)
    RIV_FUZZ_CHECK (riv_load_scenarios_pick (cumulative, n, draws[i]) < n, "picked past the end");
}

void
riv_fuzz_scenarios (const guint8 *data,
                    gsize         size)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(RivLoadScenarios) file =
    riv_load_scenarios_parse ((const char *) data, (gssize) size, &error);

  if (file == NULL)
    {
      RIV_FUZZ_CHECK (error != NULL, "refused without an error");
      RIV_FUZZ_CHECK (error->domain == G_OPTION_ERROR, "error of domain %s",
                      g_quark_to_string (error->domain));
      if (g_utf8_validate ((const char *) data, (gssize) size, NULL))
        RIV_FUZZ_CHECK (g_utf8_validate (error->message, -1, NULL), "message not UTF-8");
      return;
    }
  RIV_FUZZ_CHECK (error == NULL, "parsed, yet error %s", error->message);
  check_file (file);
}
