/* riv-load-stages.c
 * Copyright 2026 The Rivulet authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The --stages notation of load runs (k6's DURATION:TARGET, comma-separated):
 * reading it (targets as users, or as rates for --arrival-stages), and
 * writing a schedule of users back in the same notation.
 */
#include "config.h"

#include <math.h>
#include <string.h>

#include "riv-arrivals.h"
#include "riv-load-run.h"

gboolean
riv_load_parse_duration (const char *text,
                         double     *seconds)
{
  char *end;
  double value = g_ascii_strtod (text, &end);
  double unit;

  if (end == text || !isfinite (value) || value < 0)
    return FALSE;
  if (*end == '\0' || strcmp (end, "s") == 0)
    unit = 1;
  else if (strcmp (end, "ms") == 0)
    unit = 0.001;
  else if (strcmp (end, "m") == 0)
    unit = 60;
  else if (strcmp (end, "h") == 0)
    unit = 3600;
  else
    return FALSE;
  *seconds = value * unit;
  return TRUE;
}

/* One TARGET of a stage: a whole number of users, or a rate in jobs a second. */
static gboolean
parse_target (const char *text,
              gboolean    rate,
              double     *target)
{
  guint64 users;
  char *end;

  if (!rate)
    {
      if (!g_ascii_string_to_unsigned (text, 10, 0, 1000000, &users, NULL))
        return FALSE;
      *target = (double) users;
      return TRUE;
    }
  *target = g_ascii_strtod (text, &end);
  return end != text && *end == '\0' && *target >= 0 && *target <= 100000;
}

/* "DURATION:TARGET,…" into stages (RivRateStage: a duration and a target as
 * parse_target () reads it); option names the flag in the error. */
static GArray *
parse_stage_list (const char  *text,
                  const char  *option,
                  gboolean     rate,
                  GError     **error)
{
  g_auto(GStrv) parts = g_strsplit (text, ",", -1);
  g_autoptr(GArray) stages = g_array_new (FALSE, FALSE, sizeof (RivRateStage));

  for (guint i = 0; parts[i] != NULL; i++)
    {
      g_autofree char *part = g_strstrip (g_strdup (parts[i]));
      g_auto(GStrv) pair = g_strsplit (part, ":", -1);
      RivRateStage stage;

      if (g_strv_length (pair) != 2)
        {
          g_set_error (error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
                       "%s: stage %u \"%s\" is not DURATION:TARGET (e.g. 30s:%s)",
                       option, i + 1, part, rate ? "20" : "50");
          return NULL;
        }
      if (!riv_load_parse_duration (g_strstrip (pair[0]), &stage.seconds) || stage.seconds > 7 * 24 * 3600)
        {
          g_set_error (error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
                       "%s: stage %u \"%s\": \"%s\" is not a duration (e.g. 500ms, 30s, "
                       "2m, 1h)", option, i + 1, part, pair[0]);
          return NULL;
        }
      if (!parse_target (g_strstrip (pair[1]), rate, &stage.rate))
        {
          g_set_error (error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
                       "%s: stage %u \"%s\": \"%s\" is not %s", option, i + 1, part, pair[1],
                       rate ? "a rate in jobs a second (0…100000)"
                            : "a number of users (0…1000000)");
          return NULL;
        }
      g_array_append_val (stages, stage);
    }
  return g_steal_pointer (&stages);
}

gboolean
riv_load_parse_stages (const char  *text,
                       GArray     **stages,
                       GError     **error)
{
  g_autoptr(GArray) read = NULL;
  GArray *result;

  g_return_val_if_fail (text != NULL, FALSE);

  read = parse_stage_list (text, "--stages", FALSE, error);
  if (read == NULL)
    return FALSE;
  result = g_array_new (FALSE, FALSE, sizeof (RivLoadStage));
  for (guint i = 0; i < read->len; i++)
    {
      const RivRateStage *users = &g_array_index (read, RivRateStage, i);
      RivLoadStage stage = { users->seconds, (guint) users->rate };

      g_array_append_val (result, stage);
    }
  *stages = result;
  return TRUE;
}

gboolean
riv_arrivals_parse_stages (const char  *text,
                           GArray     **stages,
                           GError     **error)
{
  g_return_val_if_fail (text != NULL, FALSE);

  *stages = parse_stage_list (text, "--arrival-stages", TRUE, error);
  return *stages != NULL;
}

char *
riv_load_format_stages (GArray *stages)
{
  GString *text = g_string_new (NULL);

  for (guint i = 0; stages != NULL && i < stages->len; i++)
    {
      const RivLoadStage *stage = &g_array_index (stages, RivLoadStage, i);
      char seconds[G_ASCII_DTOSTR_BUF_SIZE];

      /* The shortest text that reads back as the same duration. */
      g_ascii_dtostr (seconds, sizeof seconds, stage->seconds);
      g_string_append_printf (text, "%s%ss:%u", i > 0 ? "," : "", seconds, stage->target);
    }
  return g_string_free (text, FALSE);
}
