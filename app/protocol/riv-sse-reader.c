/* riv-sse-reader.c
 * Copyright 2026 The Rivulet authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "config.h"

#include <string.h>

#include "riv-sse-reader.h"

/* Buffers that grew past this size for one huge frame are released after the
 * frame, so that one big event does not pin memory for the life of a stream. */
#define SHRINK_THRESHOLD (256 * 1024)

static const guchar bom[3] = { 0xEF, 0xBB, 0xBF };

struct _RivSseReader
{
  gsize    max_frame;

  GString *line;          /* bytes of a line whose end has not arrived yet */
  GString *data;          /* data lines of the current frame, joined with '\n' */
  GString *event_type;    /* "event:" field of the current frame */

  guint    generation;    /* bumped by reset, so feed notices a reset from a callback */
  guint    bom_matched;   /* leading BOM bytes seen so far at the stream start */
  guint    at_start : 1;  /* nothing but (part of) a BOM has been seen yet */
  guint    skip_lf : 1;   /* the last line ended with CR: a leading LF belongs to it */
  guint    has_data : 1;  /* the current frame has at least one data line */
  guint    failed : 1;    /* FRAME_TOO_LARGE was reported; reset needed */
  guint    in_feed : 1;
  guint    free_pending : 1;
};

G_DEFINE_QUARK (riv-sse-error-quark, riv_sse_error)

static void
shrink_string (GString **str)
{
  if ((*str)->allocated_len > SHRINK_THRESHOLD)
    {
      g_string_free (*str, TRUE);
      *str = g_string_sized_new (128);
    }
  else
    g_string_truncate (*str, 0);
}

static void
reset_frame (RivSseReader *self)
{
  shrink_string (&self->data);
  g_string_truncate (self->event_type, 0);
  self->has_data = FALSE;
}

RivSseReader *
riv_sse_reader_new (gsize max_frame)
{
  RivSseReader *self = g_new0 (RivSseReader, 1);

  self->max_frame = max_frame > 0 ? max_frame : RIV_SSE_DEFAULT_MAX_FRAME;
  self->line = g_string_sized_new (128);
  self->data = g_string_sized_new (1024);
  self->event_type = g_string_new (NULL);
  self->at_start = TRUE;

  return self;
}

void
riv_sse_reader_free (RivSseReader *self)
{
  if (self == NULL)
    return;

  /* Freed from inside its own callback: finish the feed first. */
  if (self->in_feed)
    {
      self->free_pending = TRUE;
      self->generation++;
      return;
    }

  g_string_free (self->line, TRUE);
  g_string_free (self->data, TRUE);
  g_string_free (self->event_type, TRUE);
  g_free (self);
}

void
riv_sse_reader_reset (RivSseReader *self)
{
  g_return_if_fail (self != NULL);

  shrink_string (&self->line);
  reset_frame (self);
  self->generation++;
  self->bom_matched = 0;
  self->at_start = TRUE;
  self->skip_lf = FALSE;
  self->failed = FALSE;
}

gsize
riv_sse_reader_get_pending (RivSseReader *self)
{
  g_return_val_if_fail (self != NULL, 0);

  return self->line->len + self->data->len + self->event_type->len;
}

static gboolean
set_too_large (RivSseReader  *self,
               GError       **error)
{
  self->failed = TRUE;
  g_set_error (error, RIV_SSE_ERROR, RIV_SSE_ERROR_FRAME_TOO_LARGE,
               "Server-sent event larger than %" G_GSIZE_FORMAT " bytes", self->max_frame);
  return FALSE;
}

/* Handles one complete line (without its terminator). Returns FALSE when the
 * frame would grow past the limit. */
static gboolean
process_line (RivSseReader     *self,
              const char       *line,
              gsize             len,
              RivSseEventFunc   func,
              gpointer          user_data,
              GError          **error)
{
  const char *colon;
  const char *value;
  gsize name_len;
  gsize value_len;

  if (len == 0)
    {
      if (self->has_data)
        {
          if (func != NULL)
            func (self->event_type->len > 0 ? self->event_type->str : NULL,
                  self->data->str, self->data->len, user_data);
        }
      /* The callback may have reset the reader, or freed it (which is deferred
       * while feeding), so the buffers are still valid here. */
      reset_frame (self);
      return TRUE;
    }

  /* Comment. */
  if (line[0] == ':')
    return TRUE;

  colon = memchr (line, ':', len);
  if (colon != NULL)
    {
      name_len = colon - line;
      value = colon + 1;
      value_len = len - name_len - 1;
      if (value_len > 0 && value[0] == ' ')
        {
          value++;
          value_len--;
        }
    }
  else
    {
      name_len = len;
      value = line + len;
      value_len = 0;
    }

  if (name_len == 4 && memcmp (line, "data", 4) == 0)
    {
      if (self->data->len + value_len + 1 + self->event_type->len > self->max_frame)
        return set_too_large (self, error);
      if (self->has_data)
        g_string_append_c (self->data, '\n');
      g_string_append_len (self->data, value, value_len);
      self->has_data = TRUE;
    }
  else if (name_len == 5 && memcmp (line, "event", 5) == 0)
    {
      if (self->data->len + value_len > self->max_frame)
        return set_too_large (self, error);
      g_string_truncate (self->event_type, 0);
      g_string_append_len (self->event_type, value, value_len);
    }
  /* "id", "retry" and unknown fields are ignored. */

  return TRUE;
}

/* A UTF-8 BOM is only skipped at the very start of the stream; it may arrive
 * split over several chunks. Returns where the content starts. */
static const char *
skip_bom (RivSseReader *self,
          const char   *p,
          const char   *end)
{
  while (self->at_start && p < end)
    {
      if ((guchar) *p == bom[self->bom_matched])
        {
          p++;
          if (++self->bom_matched == sizeof bom)
            self->at_start = FALSE;
        }
      else
        {
          /* Not a BOM after all: the bytes seen so far are line content. */
          g_string_append_len (self->line, (const char *) bom, self->bom_matched);
          self->at_start = FALSE;
        }
    }
  return p;
}

/* Whether n more bytes would take the frame being read past the limit. */
static gboolean
frame_overflows (RivSseReader *self,
                 gsize         n)
{
  return self->line->len + n + self->data->len + self->event_type->len > self->max_frame;
}

/* One complete line, [p, eol), after what was kept of it from earlier chunks. */
static gboolean
feed_line (RivSseReader     *self,
           const char       *p,
           const char       *eol,
           RivSseEventFunc   func,
           gpointer          user_data,
           guint             generation,
           GError          **error)
{
  gboolean ret;

  if (frame_overflows (self, eol - p))
    return set_too_large (self, error);
  if (self->line->len == 0)
    return process_line (self, p, eol - p, func, user_data, error);
  g_string_append_len (self->line, p, eol - p);
  ret = process_line (self, self->line->str, self->line->len, func, user_data, error);
  if (generation == self->generation)
    shrink_string (&self->line);
  return ret;
}

/* The lines of [p, end); an incomplete last one is kept, within the limit. */
static gboolean
feed_lines (RivSseReader     *self,
            const char       *p,
            const char       *end,
            RivSseEventFunc   func,
            gpointer          user_data,
            GError          **error)
{
  guint generation = self->generation;
  const char *nl = NULL;
  gboolean nl_known = FALSE;

  while (p < end)
    {
      const char *cr;
      const char *eol;
      const char *next;

      /* The next LF is remembered across lines, so that a stream using CR
       * alone does not rescan the rest of the buffer for every line. */
      if (!nl_known || (nl != NULL && nl < p))
        {
          nl = memchr (p, '\n', end - p);
          nl_known = TRUE;
        }
      cr = memchr (p, '\r', (nl != NULL ? nl : end) - p);
      eol = cr != NULL ? cr : nl;

      if (eol == NULL)
        {
          if (frame_overflows (self, end - p))
            return set_too_large (self, error);
          g_string_append_len (self->line, p, end - p);
          return TRUE;
        }

      next = eol + 1;
      if (*eol == '\r')
        {
          if (next >= end)
            self->skip_lf = TRUE;
          else if (*next == '\n')
            next++;
        }

      if (!feed_line (self, p, eol, func, user_data, generation, error))
        return generation != self->generation;
      /* Reset (or freed) from the callback: the rest of this buffer belongs
       * to the old stream. */
      if (generation != self->generation)
        return TRUE;
      p = next;
    }
  return TRUE;
}

gboolean
riv_sse_reader_feed (RivSseReader     *self,
                     const char       *data,
                     gsize             len,
                     RivSseEventFunc   func,
                     gpointer          user_data,
                     GError          **error)
{
  const char *p = data;
  const char *end = data + len;
  gboolean ret;

  g_return_val_if_fail (self != NULL, FALSE);
  g_return_val_if_fail (data != NULL || len == 0, FALSE);
  g_return_val_if_fail (!self->in_feed, FALSE);

  if (self->failed)
    return set_too_large (self, error);

  if (len == 0)
    return TRUE;

  self->in_feed = TRUE;
  p = skip_bom (self, p, end);
  if (self->skip_lf && p < end)
    {
      if (*p == '\n')
        p++;
      self->skip_lf = FALSE;
    }
  ret = feed_lines (self, p, end, func, user_data, error);

  self->in_feed = FALSE;
  if (self->free_pending)
    {
      riv_sse_reader_free (self);
      return TRUE;
    }

  return ret;
}
