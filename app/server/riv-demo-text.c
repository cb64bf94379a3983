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

/* A text that grows a word at a time, in steps (RivRunSteps): the words
 * are made by the queue's clock thread, no thread waits between them. The
 * first step only waits; each later one yields a word. */
typedef struct
{
  GString *text;
  GString *data;
  guint    k;        /* words yielded; G_MAXUINT before the first step */
  guint    tokens;
  gboolean paced;    /* paced_text, else stream_text */
  guint32  seed;     /* stream_text */
  gint64   delay;    /* stream_text: µs after each word (and before the first) */
  gint64   start;    /* paced_text: the schedule's origin */
  gint64   first;    /* paced_text: µs before word 0 */
  gint64   gap;      /* paced_text: µs between words */
  guint    pause_after;
  gint64   pause;
} TextSteps;

static TextSteps *
text_steps_new (guint tokens)
{
  TextSteps *st = g_new0 (TextSteps, 1);

  st->text = g_string_new (NULL);
  st->data = g_string_new (NULL);
  st->tokens = tokens;
  st->k = G_MAXUINT;
  return st;
}

static void
text_steps_end (gpointer data)
{
  TextSteps *st = data;

  if (st->data != NULL)
    g_string_free (st->data, TRUE);
  g_string_free (st->text, TRUE);
  g_free (st);
}

/* stream_text: each word a delay after the one before it was made (as a
 * generator that sleeps between yields), so the delays add up.
 * paced_text: the schedule is kept from the start, so the waits do not add
 * up: token k (from 0) at first_delay + k × token_delay, and pause more
 * after token pause_after (1-based). */
static gint64
text_steps_due (TextSteps *st)
{
  if (!st->paced)
    return g_get_monotonic_time () + st->delay;
  return st->start + st->first + (gint64) st->k * st->gap +
         (st->pause_after > 0 && st->k >= st->pause_after ? st->pause : 0);
}

static gint64
text_steps_step (RivRun  *run,
                 gpointer data)
{
  TextSteps *st = data;

  if (st->k == G_MAXUINT)
    st->k = 0;
  else
    {
      guint index = st->paced ? st->k : st->seed + st->k * 2654435761u;

      if (!yield_word (run, st->text, st->data, vocabulary[index % G_N_ELEMENTS (vocabulary)],
                       st->k))
        return RIV_RUN_STEPS_DONE;
      st->k++;
    }
  if (st->k < st->tokens)
    return text_steps_due (st);
  return_text (run, st->text, &st->data);
  return RIV_RUN_STEPS_DONE;
}

static gpointer
stream_text_begin (RivRun *run)
{
  const RivDemoParams *params = riv_run_get_params (run, 0);
  const char *prompt = params->values[0].text;
  double delay = params->values[2].number;
  TextSteps *st = text_steps_new ((guint) params->values[1].number);

  st->seed = g_str_hash (prompt != NULL ? prompt : "");
  st->delay = delay > 0 ? (gint64) (delay * G_USEC_PER_SEC) : 0;
  return st;
}

const RivRunSteps riv_demo_stream_text_steps = {
  stream_text_begin, text_steps_step, text_steps_end,
};

static gpointer
paced_text_begin (RivRun *run)
{
  const RivDemoParams *params = riv_run_get_params (run, 0);
  TextSteps *st = text_steps_new ((guint) params->values[0].number);

  st->paced = TRUE;
  st->first = (gint64) (params->values[1].number * G_USEC_PER_SEC);
  st->gap = (gint64) (params->values[2].number * G_USEC_PER_SEC);
  st->pause_after = (guint) params->values[3].number;
  st->pause = (gint64) (params->values[4].number * G_USEC_PER_SEC);
  st->start = g_get_monotonic_time ();
  return st;
}

const RivRunSteps riv_demo_paced_text_steps = {
  paced_text_begin, text_steps_step, text_steps_end,
};
