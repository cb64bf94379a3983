/* riv-load-stages.c
 * Copyright 2026 The Rivulet authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The --stages notation of load runs (k6's DURATION:TARGET, comma-separated):
 * reading it, and writing a schedule back in the same notation.
 */
#include "config.h"

#include <math.h>
#include <string.h>

#include "riv-load-run.h"

static gboolean
parse_duration (const char *text,
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

gboolean
riv_load_parse_stages (const char  *text,
                       GArray     **stages,
                       GError     **error)
{
  g_auto(GStrv) parts = NULL;
  g_autoptr(GArray) result = g_array_new (FALSE, FALSE, sizeof (RivLoadStage));

  g_return_val_if_fail (text != NULL, FALSE);

  parts = g_strsplit (text, ",", -1);
  for (guint i = 0; parts[i] != NULL; i++)
    {
      g_autofree char *part = g_strstrip (g_strdup (parts[i]));
      g_auto(GStrv) pair = g_strsplit (part, ":", -1);
      guint64 target;
      RivLoadStage stage;

      if (g_strv_length (pair) != 2)
        {
          g_set_error (error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
                       "--stages: stage %u \"%s\" is not DURATION:TARGET (e.g. 30s:50)",
                       i + 1, part);
          return FALSE;
        }
      if (!parse_duration (g_strstrip (pair[0]), &stage.seconds) || stage.seconds > 7 * 24 * 3600)
        {
          g_set_error (error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
                       "--stages: stage %u \"%s\": \"%s\" is not a duration (e.g. 500ms, 30s, "
                       "2m, 1h)", i + 1, part, pair[0]);
          return FALSE;
        }
      if (!g_ascii_string_to_unsigned (g_strstrip (pair[1]), 10, 0, 1000000, &target, NULL))
        {
          g_set_error (error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
                       "--stages: stage %u \"%s\": \"%s\" is not a number of users (0…1000000)",
                       i + 1, part, pair[1]);
          return FALSE;
        }
      stage.target = (guint) target;
      g_array_append_val (result, stage);
    }

  *stages = g_steal_pointer (&result);
  return TRUE;
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
