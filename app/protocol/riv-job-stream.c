/* riv-job-stream.c
 * Copyright 2026 The Rivulet authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * A job's streaming figures (see riv-job-stream.h): a few sketches and the
 * largest gap, and the growth rate of a streamed text.
 */
#include "config.h"

#include "riv-job-stream.h"

struct _RivJobStream
{
  guint      n_gaps;
  double     max_gap;
  double     last_sent_at;    /* wall clock, Unix seconds; 0 none */
  RivSketch *gaps;
  RivSketch *sent_gaps;       /* nullable */
  RivSketch *delays;          /* nullable */
  RivSketch *holds;           /* nullable: made → sent, in the server */
};

RivJobStream *
riv_job_stream_new (void)
{
  RivJobStream *self = g_new0 (RivJobStream, 1);

  self->gaps = riv_sketch_new ();
  return self;
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

gboolean
riv_job_stream_add_gap (RivJobStream *self,
                        double        gap)
{
  riv_sketch_add (self->gaps, gap);
  self->n_gaps++;
  if (gap > self->max_gap || self->n_gaps == 1)
    {
      self->max_gap = gap;
      return TRUE;
    }
  return FALSE;
}

/* The server's gap since its last write, how long the update took from its
 * write to being handled here, and how long the server held it between
 * making and writing it. */
void
riv_job_stream_add_stamp (RivJobStream *self,
                          double        made_at,
                          double        sent_at,
                          double        handled_at)
{
  if (self->delays == NULL)
    {
      self->delays = riv_sketch_new ();
      self->sent_gaps = riv_sketch_new ();
      self->holds = riv_sketch_new ();
    }
  if (made_at > 0)
    riv_sketch_add (self->holds, MAX (sent_at - made_at, 0));
  /* Clocks of one machine: a delay below zero is the clocks' resolution. */
  riv_sketch_add (self->delays, MAX (handled_at - sent_at, 0));
  if (self->last_sent_at > 0)
    riv_sketch_add (self->sent_gaps, MAX (sent_at - self->last_sent_at, 0));
  self->last_sent_at = sent_at;
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
riv_job_stream_get_gaps (const RivJobStream *self)
{
  return self->gaps;
}

const RivSketch *
riv_job_stream_get_sent_gaps (const RivJobStream *self)
{
  return self->sent_gaps;
}

const RivSketch *
riv_job_stream_get_delays (const RivJobStream *self)
{
  return self->delays;
}

const RivSketch *
riv_job_stream_get_holds (const RivJobStream *self)
{
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
