/* riv-load-scenario.c
 * Copyright 2026 The Rivulet authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The scenario file of load --scenarios (riv-load-scenario.h), read
 * strictly, and the draws a run with scenarios makes.
 */
#include "config.h"

#include <math.h>
#include <string.h>

#include "riv-json.h"
#include "riv-load-run.h"
#include "riv-load-scenario.h"

#define MAX_SCENARIOS  1000
#define MAX_NAME       64
#define MAX_WEIGHT     1e6
#define MAX_USERS      1000000

static const char *const run_keys[] = {
  "scenarios", "users", "duration", "iterations", "stages", "think", "seed", "thresholds", NULL
};
static const char *const scenario_keys[] = {
  "endpoint", "data", "examples", "weight", "users", "turns", "think", "thresholds", NULL
};

/* Sets the error: 'scenario "NAME": "KEY": …' (the run's keys without the scenario). */
static gboolean fail (GError     **error,
                      const char  *scenario,
                      const char  *key,
                      const char  *format,
                      ...) G_GNUC_PRINTF (4, 5);

static gboolean
fail (GError     **error,
      const char  *scenario,
      const char  *key,
      const char  *format,
      ...)
{
  g_autofree char *what = NULL;
  va_list args;

  va_start (args, format);
  what = g_strdup_vprintf (format, args);
  va_end (args);
  if (scenario != NULL)
    g_set_error (error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE, "scenario \"%s\": \"%s\": %s",
                 scenario, key, what);
  else
    g_set_error (error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE, "\"%s\": %s", key, what);
  return FALSE;
}

double
riv_think_sample (const RivThink *think,
                  double          u)
{
  double s;

  switch (think->kind)
    {
    case RIV_THINK_UNIFORM:
      s = think->a + (think->b - think->a) * u;
      break;
    case RIV_THINK_EXPONENTIAL:
      s = -think->a * log1p (-u);
      break;
    case RIV_THINK_CONSTANT:
    default:
      s = think->a;
      break;
    }
  return CLAMP (s, 0, RIV_THINK_MAX_S);
}

double
riv_think_mean (const RivThink *think)
{
  return think->kind == RIV_THINK_UNIFORM ? (think->a + think->b) / 2 : think->a;
}

/* splitmix64's finaliser: every bit of z stirred into every bit of the result. */
static guint64
mix (guint64 z)
{
  z += G_GUINT64_CONSTANT (0x9e3779b97f4a7c15);
  z = (z ^ (z >> 30)) * G_GUINT64_CONSTANT (0xbf58476d1ce4e5b9);
  z = (z ^ (z >> 27)) * G_GUINT64_CONSTANT (0x94d049bb133111eb);
  return z ^ (z >> 31);
}

double
riv_load_draw (guint64 seed,
               guint64 index,
               guint   stream)
{
  guint64 h = mix (seed ^ mix (index * 8 + stream));

  return (h >> 11) * (1.0 / 9007199254740992.0);   /* 53 bits: [0, 1) */
}

guint
riv_load_scenarios_pick (const double *cumulative,
                         guint         n,
                         double        u)
{
  double x = u * cumulative[n - 1];

  for (guint i = 0; i < n; i++)
    if (x < cumulative[i])
      return i;
  return n - 1;
}

gboolean
riv_load_same_endpoint (const char *a,
                        const char *b)
{
  return strcmp (a + (*a == '/'), b + (*b == '/')) == 0;
}

static void
scenario_free (RivLoadScenario *scenario)
{
  g_free (scenario->name);
  g_free (scenario->endpoint);
  g_clear_pointer (&scenario->data, json_node_unref);
  g_clear_pointer (&scenario->thresholds, g_ptr_array_unref);
  g_free (scenario);
}

G_DEFINE_AUTOPTR_CLEANUP_FUNC (RivLoadScenario, scenario_free)

void
riv_load_scenarios_free (RivLoadScenarios *self)
{
  if (self == NULL)
    return;
  g_clear_pointer (&self->scenarios, g_ptr_array_unref);
  g_clear_pointer (&self->stages, g_array_unref);
  g_clear_pointer (&self->thresholds, g_ptr_array_unref);
  g_free (self);
}

/* A value of that type (a string, a boolean). */
static gboolean
holds (JsonNode *node,
       GType     type)
{
  return JSON_NODE_HOLDS_VALUE (node) && json_node_get_value_type (node) == type;
}

/* A JSON number (integer or not), finite. */
static gboolean
get_number (JsonNode *node,
            double   *value)
{
  return riv_json_node_get_double (node, value) && isfinite (*value);
}

/* A whole number from min to max. */
static gboolean
get_whole (JsonNode *node,
           gint64    min,
           gint64    max,
           gint64   *value)
{
  if (!holds (node, G_TYPE_INT64))
    return FALSE;
  *value = json_node_get_int (node);
  return *value >= min && *value <= max;
}

/* A duration: seconds, or a string as the stages write it ("30s", "2m"). */
static gboolean
get_duration (JsonNode *node,
              double   *seconds)
{
  if (holds (node, G_TYPE_STRING))
    return riv_load_parse_duration (json_node_get_string (node), seconds);
  return get_number (node, seconds) && *seconds >= 0;
}

/* The first member of object not in known, or NULL. */
static const char *
unknown_key (JsonObject        *object,
             const char *const *known)
{
  g_autoptr(GList) members = json_object_get_members (object);

  for (GList *l = members; l != NULL; l = l->next)
    if (!g_strv_contains (known, l->data))
      return l->data;
  return NULL;
}

static gboolean
check_keys (JsonObject         *object,
            const char *const  *known,
            const char         *scenario,
            GError            **error)
{
  const char *key = unknown_key (object, known);
  g_autofree char *list = NULL;

  if (key == NULL)
    return TRUE;
  list = g_strjoinv (", ", (char **) known);
  return fail (error, scenario, key, "unknown key (expected one of %s)", list);
}

/* A number of seconds (constant), or one of {"constant": S},
 * {"uniform": [MIN, MAX]}, {"exponential": MEAN}. */
static gboolean
parse_think (JsonNode    *node,
             const char  *scenario,
             RivThink    *think,
             GError     **error)
{
  static const char *const kinds[] = { "constant", "uniform", "exponential", NULL };
  const char *expected = "expected seconds, {\"constant\": S}, {\"uniform\": [MIN, MAX]} or "
                         "{\"exponential\": MEAN}, each from 0 to 3600 s";
  JsonObject *object;
  g_autoptr(GList) members = NULL;
  const char *kind;
  JsonNode *value;

  if (get_number (node, &think->a))
    {
      think->kind = RIV_THINK_CONSTANT;
      return think->a >= 0 && think->a <= RIV_THINK_MAX_S
        ? TRUE : fail (error, scenario, "think", "%s", expected);
    }
  if (!JSON_NODE_HOLDS_OBJECT (node))
    return fail (error, scenario, "think", "%s", expected);
  object = json_node_get_object (node);
  members = json_object_get_members (object);
  if (g_list_length (members) != 1 || !g_strv_contains (kinds, members->data))
    return fail (error, scenario, "think", "%s", expected);
  kind = members->data;
  value = json_object_get_member (object, kind);
  if (strcmp (kind, "uniform") == 0)
    {
      JsonArray *range = JSON_NODE_HOLDS_ARRAY (value) ? json_node_get_array (value) : NULL;

      think->kind = RIV_THINK_UNIFORM;
      if (range == NULL || json_array_get_length (range) != 2 ||
          !get_number (json_array_get_element (range, 0), &think->a) ||
          !get_number (json_array_get_element (range, 1), &think->b) ||
          !(think->a >= 0 && think->a <= think->b && think->b <= RIV_THINK_MAX_S))
        return fail (error, scenario, "think", "\"uniform\" takes [MIN, MAX] seconds, "
                     "0 <= MIN <= MAX <= 3600");
      return TRUE;
    }
  think->kind = strcmp (kind, "exponential") == 0 ? RIV_THINK_EXPONENTIAL : RIV_THINK_CONSTANT;
  if (!get_number (value, &think->a) || think->a < 0 || think->a > RIV_THINK_MAX_S ||
      (think->kind == RIV_THINK_EXPONENTIAL && think->a == 0))
    return fail (error, scenario, "think", "\"%s\" takes %s from 0 to 3600", kind,
                 think->kind == RIV_THINK_EXPONENTIAL ? "a mean above 0 s" : "seconds");
  return TRUE;
}

/* An array of threshold texts; a scenario's are tagged with it. */
static gboolean
parse_thresholds (JsonNode    *node,
                  const char  *scenario,
                  GPtrArray   *into,
                  GError     **error)
{
  JsonArray *array = JSON_NODE_HOLDS_ARRAY (node) ? json_node_get_array (node) : NULL;

  if (array == NULL)
    return fail (error, scenario, "thresholds", "expected an array of texts such as "
                 "[\"p95<2s\", \"failed==0\"]");
  for (guint i = 0; i < json_array_get_length (array); i++)
    {
      JsonNode *element = json_array_get_element (array, i);
      g_autoptr(GError) local = NULL;
      RivLoadThreshold *threshold;
      const char *text;

      if (!holds (element, G_TYPE_STRING))
        return fail (error, scenario, "thresholds", "element %u is not a text", i + 1);
      text = json_node_get_string (element);
      threshold = scenario != NULL
        ? riv_load_threshold_parse_tagged (text, "scenario", scenario, &local)
        : riv_load_threshold_parse (text, &local);
      if (threshold == NULL)
        return fail (error, scenario, "thresholds", "%s", local->message);
      g_ptr_array_add (into, threshold);
    }
  return TRUE;
}

static gboolean
is_non_finite (JsonNode *value)
{
  return json_node_get_value_type (value) == G_TYPE_DOUBLE &&
         !isfinite (json_node_get_double (value));
}

static gboolean
valid_name (const char *name)
{
  size_t len = strlen (name);

  if (len == 0 || len > MAX_NAME)
    return FALSE;
  for (const char *p = name; *p != '\0'; p++)
    if (!g_ascii_isalnum (*p) && strchr ("_-.", *p) == NULL)
      return FALSE;
  return TRUE;
}

/* The endpoint: an api name or a fn_index. */
static gboolean
parse_endpoint (JsonObject       *object,
                RivLoadScenario  *scenario,
                GError          **error)
{
  JsonNode *node = json_object_get_member (object, "endpoint");
  gint64 index;

  if (node == NULL)
    return fail (error, scenario->name, "endpoint", "missing: every scenario names its "
                 "endpoint (an api name such as \"/chat\", or a fn_index)");
  if (get_whole (node, 0, G_MAXINT32, &index))
    scenario->endpoint = g_strdup_printf ("%" G_GINT64_FORMAT, index);
  else if (holds (node, G_TYPE_STRING) &&
           *json_node_get_string (node) != '\0')
    scenario->endpoint = g_strdup (json_node_get_string (node));
  else
    return fail (error, scenario->name, "endpoint", "expected an api name such as \"/chat\", "
                 "or a fn_index");
  return TRUE;
}

/* "data" (or "examples"): the inputs its jobs send. */
static gboolean
parse_inputs (JsonObject       *object,
              RivLoadScenario  *scenario,
              GError          **error)
{
  JsonNode *data = json_object_get_member (object, "data");
  JsonNode *examples = json_object_get_member (object, "examples");

  if (examples != NULL)
    {
      if (!holds (examples, G_TYPE_BOOLEAN))
        return fail (error, scenario->name, "examples", "expected true or false");
      scenario->examples = json_node_get_boolean (examples);
    }
  if (data == NULL)
    return TRUE;
  if (scenario->examples)
    return fail (error, scenario->name, "data", "\"data\" and \"examples\": say one of them");
  if (!JSON_NODE_HOLDS_ARRAY (data) && !JSON_NODE_HOLDS_OBJECT (data))
    return fail (error, scenario->name, "data", "expected an array (one value per input) or "
                 "an object of the endpoint's parameters by name");
  if (riv_json_find_value (data, is_non_finite))
    return fail (error, scenario->name, "data", "holds a number too large for a double");
  scenario->data = json_node_copy (data);
  return TRUE;
}

/* The member key of object, when given: a whole number from 1 to max into
 * *value (left alone when not given); else the error, "expected a whole
 * number from 1 to MAX" and why. */
static gboolean
parse_count (JsonObject  *object,
             const char  *key,
             gint64       max,
             const char  *scenario,
             const char  *why,
             gint64      *value,
             GError     **error)
{
  JsonNode *member = json_object_get_member (object, key);

  if (member == NULL || get_whole (member, 1, max, value))
    return TRUE;
  return fail (error, scenario, key, "expected a whole number from 1 to %" G_GINT64_FORMAT "%s",
               max, why);
}

/* "turns" and "users". */
static gboolean
parse_counts (JsonObject       *object,
              RivLoadScenario  *scenario,
              GError          **error)
{
  gint64 turns = 0, users = 0;

  if (!parse_count (object, "turns", RIV_TURNS_MAX, scenario->name,
                    " (the jobs of one conversation, in one session)", &turns, error) ||
      !parse_count (object, "users", MAX_USERS, scenario->name,
                    " (virtual users that run only this scenario)", &users, error))
    return FALSE;
  scenario->turns = (guint) turns;
  scenario->users = (guint) users;
  return TRUE;
}

static RivLoadScenario *
parse_scenario (const char  *name,
                JsonNode    *node,
                GError     **error)
{
  g_autoptr(RivLoadScenario) scenario = g_new0 (RivLoadScenario, 1);
  JsonObject *object;
  JsonNode *member;

  scenario->name = g_strdup (name);
  scenario->weight = 1;
  scenario->thresholds = g_ptr_array_new_with_free_func ((GDestroyNotify) riv_load_threshold_free);
  if (!valid_name (name))
    {
      g_set_error (error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
                   "scenario \"%s\": a name is 1 to %d letters, digits, \"_\", \"-\" or \".\"",
                   name, MAX_NAME);
      return NULL;
    }
  if (!JSON_NODE_HOLDS_OBJECT (node))
    {
      g_set_error (error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
                   "scenario \"%s\": expected an object with its \"endpoint\"", name);
      return NULL;
    }
  object = json_node_get_object (node);
  if (!check_keys (object, scenario_keys, name, error) ||
      !parse_endpoint (object, scenario, error) ||
      !parse_inputs (object, scenario, error))
    return NULL;
  if ((member = json_object_get_member (object, "weight")) != NULL &&
      (!get_number (member, &scenario->weight) ||
       !(scenario->weight > 0 && scenario->weight <= MAX_WEIGHT)))
    {
      fail (error, name, "weight", "expected a number above 0 (at most %.0f)", MAX_WEIGHT);
      return NULL;
    }
  if (!parse_counts (object, scenario, error))
    return NULL;
  if ((member = json_object_get_member (object, "think")) != NULL)
    {
      scenario->has_think = TRUE;
      if (!parse_think (member, name, &scenario->think, error))
        return NULL;
    }
  if ((member = json_object_get_member (object, "thresholds")) != NULL &&
      !parse_thresholds (member, name, scenario->thresholds, error))
    return NULL;
  return g_steal_pointer (&scenario);
}

/* k6's stages: [{"duration": "30s", "target": 20}, …], or the --stages notation. */
static gboolean
parse_stages (JsonNode          *node,
              RivLoadScenarios  *self,
              GError           **error)
{
  JsonArray *array = JSON_NODE_HOLDS_ARRAY (node) ? json_node_get_array (node) : NULL;
  const char *expected = "expected [{\"duration\": \"30s\", \"target\": 20}, …] (k6's stages) or "
                         "\"30s:20,…\"";
  static const char *const stage_keys[] = { "duration", "target", NULL };
  g_autoptr(GError) local = NULL;

  if (holds (node, G_TYPE_STRING))
    {
      if (riv_load_parse_stages (json_node_get_string (node), &self->stages, &local))
        return TRUE;
      return fail (error, NULL, "stages", "%s", local->message);
    }
  if (array == NULL || json_array_get_length (array) == 0)
    return fail (error, NULL, "stages", "%s", expected);
  self->stages = g_array_new (FALSE, FALSE, sizeof (RivLoadStage));
  for (guint i = 0; i < json_array_get_length (array); i++)
    {
      JsonNode *element = json_array_get_element (array, i);
      JsonObject *object = JSON_NODE_HOLDS_OBJECT (element) ? json_node_get_object (element) : NULL;
      JsonNode *duration = object != NULL ? json_object_get_member (object, "duration") : NULL;
      JsonNode *target = object != NULL ? json_object_get_member (object, "target") : NULL;
      RivLoadStage stage;
      gint64 users;

      if (object == NULL || unknown_key (object, stage_keys) != NULL || duration == NULL ||
          target == NULL || !get_duration (duration, &stage.seconds) ||
          stage.seconds > 7 * 24 * 3600 || !get_whole (target, 0, MAX_USERS, &users))
        return fail (error, NULL, "stages", "stage %u: %s", i + 1, expected);
      stage.target = (guint) users;
      g_array_append_val (self->stages, stage);
    }
  return TRUE;
}

/* The run's own keys: users, duration, iterations, stages, think, seed, thresholds. */
static gboolean
parse_run_options (JsonObject        *root,
                   RivLoadScenarios  *self,
                   GError           **error)
{
  JsonNode *member;
  gint64 whole;

  whole = -1;
  if (!parse_count (root, "users", MAX_USERS, NULL, "", &whole, error))
    return FALSE;
  self->users = (gint) whole;
  if ((member = json_object_get_member (root, "iterations")) != NULL)
    {
      if (!get_whole (member, 1, G_MAXINT32, &whole))
        return fail (error, NULL, "iterations", "expected a whole number above 0");
      self->iterations = (gint) whole;
    }
  if ((member = json_object_get_member (root, "duration")) != NULL &&
      (!get_duration (member, &self->duration) || !(self->duration > 0)))
    return fail (error, NULL, "duration", "expected seconds above 0, or a text such as \"30s\"");
  if ((member = json_object_get_member (root, "stages")) != NULL &&
      !parse_stages (member, self, error))
    return FALSE;
  if ((member = json_object_get_member (root, "think")) != NULL)
    {
      self->has_think = TRUE;
      if (!parse_think (member, NULL, &self->think, error))
        return FALSE;
    }
  if ((member = json_object_get_member (root, "seed")) != NULL)
    {
      if (!get_whole (member, 0, G_MAXINT64, &whole))
        return fail (error, NULL, "seed", "expected a whole number, 0 or more");
      self->has_seed = TRUE;
      self->seed = (guint64) whole;
    }
  if ((member = json_object_get_member (root, "thresholds")) != NULL &&
      !parse_thresholds (member, NULL, self->thresholds, error))
    return FALSE;
  return TRUE;
}

RivLoadScenarios *
riv_load_scenarios_parse (const char  *text,
                          gssize       length,
                          GError     **error)
{
  g_autoptr(RivLoadScenarios) self = g_new0 (RivLoadScenarios, 1);
  g_autoptr(JsonNode) root = NULL;
  g_autoptr(GList) names = NULL;
  g_autoptr(GError) local = NULL;
  JsonObject *object;
  JsonNode *scenarios;

  g_return_val_if_fail (text != NULL, NULL);

  self->users = -1;
  self->duration = -1;
  self->iterations = -1;
  self->scenarios = g_ptr_array_new_with_free_func ((GDestroyNotify) scenario_free);
  self->thresholds = g_ptr_array_new_with_free_func ((GDestroyNotify) riv_load_threshold_free);

  root = riv_json_parse (NULL, text, length, 0, &local);
  if (root == NULL)
    {
      g_set_error (error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE, "not valid JSON: %s",
                   local->message);
      return NULL;
    }
  if (!JSON_NODE_HOLDS_OBJECT (root))
    {
      g_set_error (error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
                   "expected an object: {\"scenarios\": {\"NAME\": {\"endpoint\": …}, …}}");
      return NULL;
    }
  object = json_node_get_object (root);
  if (!check_keys (object, run_keys, NULL, error) ||
      !parse_run_options (object, self, error))
    return NULL;

  scenarios = json_object_get_member (object, "scenarios");
  if (scenarios == NULL || !JSON_NODE_HOLDS_OBJECT (scenarios) ||
      json_object_get_size (json_node_get_object (scenarios)) == 0)
    {
      fail (error, NULL, "scenarios", "expected an object of one or more named scenarios, "
            "{\"NAME\": {\"endpoint\": …}, …}");
      return NULL;
    }
  if (json_object_get_size (json_node_get_object (scenarios)) > MAX_SCENARIOS)
    {
      fail (error, NULL, "scenarios", "at most %d scenarios", MAX_SCENARIOS);
      return NULL;
    }
  names = json_object_get_members (json_node_get_object (scenarios));
  for (GList *l = names; l != NULL; l = l->next)
    {
      RivLoadScenario *scenario =
        parse_scenario (l->data, json_object_get_member (json_node_get_object (scenarios),
                                                         l->data), error);

      if (scenario == NULL)
        return NULL;
      g_ptr_array_add (self->scenarios, scenario);
    }
  return g_steal_pointer (&self);
}
