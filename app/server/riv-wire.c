/* riv-wire.c
 * Copyright 2026 The Rivulet authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "config.h"

#include <math.h>
#include <string.h>

#include "riv-wire.h"

RivFrame *
riv_frame_new_take (char  *data,
                    gsize  len)
{
  RivFrame *self = g_new0 (RivFrame, 1);

  self->data = data;
  self->len = len;
  self->alloc = len + 1;
  return self;
}

/* A GString doubles its buffer as it grows, so up to half of it can be
 * unused: a buffer of many small frames behind a reader that is away would
 * hold twice what it counts. Giving the rest back costs the allocator a split
 * (or a remap) of the block, not a copy. */
#define FRAME_SLACK_MAX 64

RivFrame *
riv_frame_new_string (GString *out)
{
  gsize len = out->len;
  gsize alloc = out->allocated_len;
  char *data = g_string_free (out, FALSE);
  RivFrame *self;

  if (alloc - (len + 1) > MAX (FRAME_SLACK_MAX, len / 8))
    {
      data = g_realloc (data, len + 1);
      alloc = len + 1;
    }
  self = riv_frame_new_take (data, len);
  self->alloc = alloc;
  return self;
}

RivFrame *
riv_frame_new_estimation (const char *event_id,
                          gint64      rank,
                          gint64      queue_size,
                          double      rank_eta)
{
  RivFrame *self = g_new0 (RivFrame, 1);

  self->is_estimation = TRUE;
  g_strlcpy (self->event_id, event_id, sizeof self->event_id);
  self->rank = rank;
  self->queue_size = queue_size;
  self->rank_eta = rank_eta;
  return self;
}

void
riv_frame_render (RivFrame *self)
{
  GString *out;

  if (self->slot != NULL)
    {
      *self->slot = NULL;
      self->slot = NULL;
    }

  if (self->data != NULL)
    return;

  out = g_string_sized_new (RIV_FRAME_ESTIMATION_SIZE);
  riv_wire_begin_frame (out, "estimation", self->event_id);
  g_string_append_printf (out, ",\"rank\":%" G_GINT64_FORMAT ",\"queue_size\":%" G_GINT64_FORMAT
                          ",\"rank_eta\":", self->rank, self->queue_size);
  riv_wire_append_eta (out, self->rank_eta);
  riv_wire_end_frame (out);
  self->len = out->len;
  self->alloc = out->allocated_len;
  self->data = g_string_free (out, FALSE);
}

gsize
riv_frame_get_size (RivFrame *self)
{
  return RIV_FRAME_OVERHEAD + (self->data != NULL ? self->alloc : RIV_FRAME_ESTIMATION_SIZE);
}

void
riv_frame_free (RivFrame *self)
{
  if (self == NULL)
    return;
  if (self->slot != NULL)
    *self->slot = NULL;
  g_free (self->data);
  g_free (self->completes);
  g_free (self);
}

void
riv_wire_append_string (GString    *out,
                        const char *str,
                        gssize      len)
{
  static const char hex[] = "0123456789abcdef";
  const char *p, *end, *run;

  if (str == NULL)
    {
      g_string_append (out, "null");
      return;
    }
  if (len < 0)
    len = strlen (str);

  g_string_append_c (out, '"');
  end = str + len;
  run = str;
  for (p = str; p < end; p++)
    {
      guchar c = (guchar) *p;
      const char *esc = NULL;
      char ubuf[7];

      if (c >= 0x20 && c != '"' && c != '\\')
        continue;

      switch (c)
        {
        case '"': esc = "\\\""; break;
        case '\\': esc = "\\\\"; break;
        case '\n': esc = "\\n"; break;
        case '\r': esc = "\\r"; break;
        case '\t': esc = "\\t"; break;
        case '\b': esc = "\\b"; break;
        case '\f': esc = "\\f"; break;
        default:
          ubuf[0] = '\\';
          ubuf[1] = 'u';
          ubuf[2] = '0';
          ubuf[3] = '0';
          ubuf[4] = hex[c >> 4];
          ubuf[5] = hex[c & 0xf];
          ubuf[6] = '\0';
          esc = ubuf;
          break;
        }
      g_string_append_len (out, run, p - run);
      g_string_append (out, esc);
      run = p + 1;
    }
  g_string_append_len (out, run, end - run);
  g_string_append_c (out, '"');
}

void
riv_wire_append_double (GString *out,
                        double   value)
{
  char buf[G_ASCII_DTOSTR_BUF_SIZE];

  if (!isfinite (value))
    {
      g_string_append (out, "null");
      return;
    }
  g_string_append (out, g_ascii_formatd (buf, sizeof buf, "%.6g", value));
}

void
riv_wire_append_eta (GString *out,
                     double   value)
{
  if (value < 0)
    g_string_append (out, "null");
  else
    riv_wire_append_double (out, value);
}

void
riv_wire_begin_frame (GString    *out,
                      const char *msg,
                      const char *event_id)
{
  g_string_append (out, "data: {\"msg\":\"");
  g_string_append (out, msg);
  g_string_append (out, "\",\"event_id\":");
  if (event_id != NULL)
    {
      g_string_append_c (out, '"');
      g_string_append (out, event_id);
      g_string_append_c (out, '"');
    }
  else
    g_string_append (out, "null");
}

/* Seconds with ten digits, a point and six: until the year 2286, every
 * stamp has this width, so that a placeholder can be filled in place. */
#define STAMP_WIDTH 17
#define SENT_KEY    ",\"" RIV_WIRE_SENT_AT "\":"

static void
format_stamp (char   *buf,
              gint64  us)
{
  char tmp[32];

  g_snprintf (tmp, sizeof tmp, "%010" G_GINT64_FORMAT ".%06d", us / G_USEC_PER_SEC,
              (int) (us % G_USEC_PER_SEC));
  memcpy (buf, tmp, STAMP_WIDTH);
}

void
riv_wire_append_stamps (GString *out)
{
  char made[STAMP_WIDTH];

  format_stamp (made, g_get_real_time ());
  g_string_append (out, ",\"" RIV_WIRE_MADE_AT "\":");
  g_string_append_len (out, made, STAMP_WIDTH);
  g_string_append (out, SENT_KEY "0000000000.000000");
}

void
riv_wire_stamp_sent (char   *data,
                     gsize   len,
                     gint64  now_us)
{
  char sent[STAMP_WIDTH];
  const char *end = data + len;
  char *at = data;

  format_stamp (sent, now_us);
  while ((at = g_strstr_len (at, end - at, SENT_KEY)) != NULL)
    {
      at += strlen (SENT_KEY);
      if (end - at < STAMP_WIDTH)
        break;
      memcpy (at, sent, STAMP_WIDTH);
      at += STAMP_WIDTH;
    }
}

void
riv_wire_end_frame (GString *out)
{
  g_string_append (out, "}\n\n");
}

void
riv_wire_append_batch (GString *out,
                       gint64   batch_id,
                       guint    size,
                       guint    index)
{
  if (batch_id <= 0)
    return;
  g_string_append_printf (out, ",\"batch\":{\"id\":%" G_GINT64_FORMAT ",\"size\":%u,\"index\":%u}",
                          batch_id, size, index);
}

char *
riv_wire_close_stream (gsize *len)
{
  static const char frame[] = "data: {\"msg\":\"close_stream\",\"event_id\":null}\n\n";

  *len = sizeof frame - 1;
  return g_strdup (frame);
}

char *
riv_wire_heartbeat (gsize *len)
{
  static const char frame[] = "data: {\"msg\":\"heartbeat\",\"event_id\":null}\n\n";

  *len = sizeof frame - 1;
  return g_strdup (frame);
}

char *
riv_wire_unexpected_error (const char *message,
                           gboolean    session_not_found,
                           gsize      *len)
{
  GString *out = g_string_new (NULL);

  riv_wire_begin_frame (out, "unexpected_error", NULL);
  g_string_append (out, ",\"message\":");
  riv_wire_append_string (out, message, -1);
  if (session_not_found)
    g_string_append (out, ",\"session_not_found\":true");
  g_string_append (out, ",\"success\":false");
  riv_wire_end_frame (out);
  *len = out->len;
  return g_string_free (out, FALSE);
}

void
riv_wire_new_event_id (char *buf)
{
  static const char hex[] = "0123456789abcdef";

  for (guint i = 0; i < RIV_EVENT_ID_LEN; i += 8)
    {
      guint32 r = g_random_int ();

      for (guint j = 0; j < 8; j++)
        buf[i + j] = hex[(r >> (4 * j)) & 0xf];
    }
  buf[RIV_EVENT_ID_LEN] = '\0';
}
