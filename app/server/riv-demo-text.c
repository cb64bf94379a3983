/* riv-demo-text.c
 * Copyright 2026 The Rivulet authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The demos that grow a text a word at a time: stream_text (at a pace) and
 * paced_text (on a known schedule, for the streaming figures).
 */
#include "config.h"

#include "riv-demo-private.h"
#include "riv-wire.h"

static const char * const vocabulary[] = {
  "river", "light", "stone", "quiet", "morning", "over", "the", "hills", "a",
  "small", "boat", "drifts", "past", "reeds", "and", "willows", "while", "clouds",
  "gather", "slowly", "above", "green", "water", "someone", "sings", "softly",
  "near", "bridge", "wind", "carries", "seeds", "far", "away", "into", "evening",
  "where", "lanterns", "glow", "on", "wooden", "docks", "fish", "leap", "silver",
  "under", "moon", "then", "rest",
};

/* Word k of a growing text: the whole text first, then an append diff. */
static gboolean
yield_word (RivRun     *run,
            GString    *text,
            GString    *data,
            const char *word,
            guint       k)
{
  g_string_truncate (data, 0);
  if (k == 0)
    {
      g_string_append (text, word);
      g_string_append_c (data, '[');
      riv_wire_append_string (data, text->str, text->len);
      g_string_append_c (data, ']');
    }
  else
    {
      g_string_append_c (text, ' ');
      g_string_append (text, word);
      g_string_append (data, "[[[\"append\",[],\" ");
      g_string_append (data, word);
      g_string_append (data, "\"]]]");
    }
  return riv_run_yield (run, data->str, data->len, NULL, 0);
}

/* The completion: the whole text (takes *data). */
static void
return_text (RivRun   *run,
             GString  *text,
             GString **data)
{
  g_string_truncate (*data, 0);
  g_string_append_c (*data, '[');
  riv_wire_append_string (*data, text->str, text->len);
  g_string_append_c (*data, ']');
  riv_run_return (run, 0, g_string_free (g_steal_pointer (data), FALSE));
}

void
riv_demo_run_stream_text (RivRun *run)
{
  const RivDemoParams *params = riv_run_get_params (run, 0);
  const char *prompt = params->values[0].text;
  guint tokens = (guint) params->values[1].number;
  double delay = params->values[2].number;
  guint32 seed = g_str_hash (prompt != NULL ? prompt : "");
  GString *text = g_string_new (NULL);
  GString *data = g_string_new (NULL);

  for (guint k = 0; k < tokens; k++)
    {
      const char *word = vocabulary[(seed + k * 2654435761u) % G_N_ELEMENTS (vocabulary)];

      if (!riv_run_sleep (run, delay) || !yield_word (run, text, data, word, k))
        goto out;
    }
  return_text (run, text, &data);

out:
  if (data != NULL)
    g_string_free (data, TRUE);
  g_string_free (text, TRUE);
}

/* The schedule is kept from the start, so sleeps do not add up: token k
 * (from 0) at first_delay + k × token_delay, and pause more after token
 * pause_after (1-based). */
void
riv_demo_run_paced_text (RivRun *run)
{
  const RivDemoParams *params = riv_run_get_params (run, 0);
  guint tokens = (guint) params->values[0].number;
  gint64 first = (gint64) (params->values[1].number * G_USEC_PER_SEC);
  gint64 gap = (gint64) (params->values[2].number * G_USEC_PER_SEC);
  guint pause_after = (guint) params->values[3].number;
  gint64 pause = (gint64) (params->values[4].number * G_USEC_PER_SEC);
  gint64 start = g_get_monotonic_time ();
  GString *text = g_string_new (NULL);
  GString *data = g_string_new (NULL);

  for (guint k = 0; k < tokens; k++)
    {
      gint64 at = start + first + (gint64) k * gap + (pause_after > 0 && k >= pause_after ? pause : 0);

      if (!riv_run_sleep_until (run, at) ||
          !yield_word (run, text, data, vocabulary[k % G_N_ELEMENTS (vocabulary)], k))
        goto out;
    }
  return_text (run, text, &data);

out:
  if (data != NULL)
    g_string_free (data, TRUE);
  g_string_free (text, TRUE);
}
