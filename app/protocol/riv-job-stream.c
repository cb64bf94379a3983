/* riv-job-stream.c
 * Copyright 2026 The Rivulet authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * A job's streaming figures (see riv-job-stream.h): a few sketches and the
 * largest gap, and the growth rate of a streamed text.
 */
#include "config.h"

#include <math.h>

#include "riv-job-stream.h"

/* An update's values wait here, NAN for none (riv_sketch_add () ignores
 * it), and go into the sketches PENDING_MAX at a time or when the figures
 * are read: in the order they came, so the sketches are exactly those of
 * one add each. Thousands of streaming jobs each feeding four sketches
 * found each sketch and its buckets out of the cache at every update; one
 * record a line is what an update touches now. */
#define PENDING_MAX 16

typedef struct
{
  double gap;
  double hold;
  double delay;
  double sent_gap;
} Pending;

struct _RivJobStream
{
  guint      n_gaps;
  guint      n_pending;
  double     max_gap;
  double     last_sent_at;    /* wall clock, Unix seconds; 0 none */
  RivSketch *gaps;
  RivSketch *sent_gaps;       /* nullable */
  RivSketch *delays;          /* nullable */
  RivSketch *holds;           /* nullable: made → sent, in the server */
  Pending    pending[PENDING_MAX];
};

RivJobStream *
riv_job_stream_new (void)
{
  RivJobStream *self = g_new0 (RivJobStream, 1);

  self->gaps = riv_sketch_new ();
  return self;
}

static void
flush (RivJobStream *self)
{
  for (guint i = 0; i < self->n_pending; i++)
    {
      const Pending *p = &self->pending[i];

      riv_sketch_add (self->gaps, p->gap);
      if (self->delays != NULL)
        {
          riv_sketch_add (self->holds, p->hold);
          riv_sketch_add (self->delays, p->delay);
          riv_sketch_add (self->sent_gaps, p->sent_gap);
        }
    }
  self->n_pending = 0;
}

void
riv_job_stream_free (RivJobStream *self)
{
  if (self == NULL)
    return;
  riv_sketch_free (self->gaps);
  riv_sketch_free (self->sent_gaps);
  riv_sketch_free (self->delays);
  riv_sketch_free (self->holds);
  g_free (self);
}

/* The server's gap since its last write, how long the update took from its
 * write to being handled here, and how long the server held it between
 * making and writing it. */
gboolean
riv_job_stream_add_update (RivJobStream *self,
                           double        gap,
                           double        made_at,
                           double        sent_at,
                           double        handled_at)
{
  Pending *p = &self->pending[self->n_pending];
  gboolean largest = FALSE;

  p->gap = NAN;
  if (gap >= 0)
    {
      p->gap = gap;
      self->n_gaps++;
      if (gap > self->max_gap || self->n_gaps == 1)
        {
          self->max_gap = gap;
          largest = TRUE;
        }
    }

  p->hold = p->delay = p->sent_gap = NAN;
  if (sent_at > 0)
    {
      if (self->delays == NULL)
        {
          self->delays = riv_sketch_new ();
          self->sent_gaps = riv_sketch_new ();
          self->holds = riv_sketch_new ();
        }
      if (made_at > 0)
        p->hold = MAX (sent_at - made_at, 0);
      /* Clocks of one machine: a delay below zero is the clocks' resolution. */
      p->delay = MAX (handled_at - sent_at, 0);
      if (self->last_sent_at > 0)
        p->sent_gap = MAX (sent_at - self->last_sent_at, 0);
      self->last_sent_at = sent_at;
    }

  if (++self->n_pending == PENDING_MAX)
    flush (self);
  return largest;
}

guint
riv_job_stream_get_n_gaps (const RivJobStream *self)
{
  return self->n_gaps;
}

double
riv_job_stream_get_max_gap (const RivJobStream *self)
{
  return self->max_gap;
}

const RivSketch *
riv_job_stream_get_gaps (RivJobStream *self)
{
  flush (self);
  return self->gaps;
}

const RivSketch *
riv_job_stream_get_sent_gaps (RivJobStream *self)
{
  flush (self);
  return self->sent_gaps;
}

const RivSketch *
riv_job_stream_get_delays (RivJobStream *self)
{
  flush (self);
  return self->delays;
}

const RivSketch *
riv_job_stream_get_holds (RivJobStream *self)
{
  flush (self);
  return self->holds;
}

guint32
riv_job_stream_count_words (const char *text)
{
  guint32 words = 0;
  gboolean in_word = FALSE;

  for (const char *p = text; *p != '\0'; p = g_utf8_next_char (p))
    {
      gboolean space = g_unichar_isspace (g_utf8_get_char (p));

      if (!space && !in_word)
        words++;
      in_word = !space;
    }
  return words;
}

gboolean
riv_job_stream_text_rate (double      first_at,
                          guint32     first_chars,
                          guint32     first_words,
                          double      last_at,
                          const char *text,
                          double     *chars_per_s,
                          double     *words_per_s)
{
  double span = last_at - first_at;
  guint32 chars;

  *chars_per_s = *words_per_s = -1;
  if (text == NULL || first_at <= 0)
    return FALSE;
  chars = (guint32) MIN (g_utf8_strlen (text, -1), G_MAXUINT32);
  if (!(span > 0) || chars <= first_chars)
    return FALSE;
  *chars_per_s = (chars - first_chars) / span;
  *words_per_s = MAX ((double) riv_job_stream_count_words (text) - first_words, 0) / span;
  return TRUE;
}
