/* riv-http-reply.c
 * Copyright 2026 The Rivulet authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * A reply read as it comes off the socket: the status line and the headers,
 * then the body, whose chunked framing is taken off in place, so that
 * everything a read brought reaches the SSE reader in one piece. A virtual
 * user's event stream and joins are read this way (riv-client-stream.c,
 * riv-client-direct.c): without libsoup's message I/O a stream holds its
 * socket and one read buffer, and a read costs one recv() for whatever has
 * arrived rather than two or three a chunk.
 *
 * Only what such a reply needs is understood: HTTP/1.0 and 1.1, interim 1xx
 * replies skipped, a body framed by chunks, a length, or the connection's
 * end. Anything else (a compressed body, an upgrade, an oversized head or
 * chunk line, a malformed number) is an error that names it. Every limit is
 * checked as bytes come, so a hostile server cannot make the reply hold more
 * than MAX_HEAD bytes.
 */
#include "config.h"

#include <gio/gio.h>
#include <string.h>

#include "riv-http-reply.h"

#define MAX_HEAD        (16 * 1024)  /* status line and headers, and again the trailer */
#define MAX_CHUNK_LINE  1024         /* a chunk's size line, extensions included */

typedef enum
{
  BODY_EOF,       /* up to the connection's end */
  BODY_LENGTH,
  BODY_CHUNKED,
} BodyKind;

typedef enum
{
  CHUNK_SIZE,     /* reading the size line */
  CHUNK_DATA,
  CHUNK_CR,       /* the line end after a chunk's data */
  CHUNK_LF,
  CHUNK_TRAILER,  /* after the last chunk: trailer lines up to an empty one */
} ChunkState;

struct _RivHttpReply
{
  RivHttpReplyState state;
  BodyKind          body;
  ChunkState        chunk;
  GString          *line;       /* the head so far, or a chunk line, or the trailer */
  gsize             head_line;  /* where the head's current line starts in line */
  guint64           left;       /* BODY_LENGTH: bytes to come; CHUNK_DATA: of this chunk */
  guint             status;
  char             *reason;
};

RivHttpReply *
riv_http_reply_new (void)
{
  RivHttpReply *self = g_new0 (RivHttpReply, 1);

  self->line = g_string_new (NULL);
  return self;
}

void
riv_http_reply_free (RivHttpReply *self)
{
  if (self == NULL)
    return;
  g_string_free (self->line, TRUE);
  g_free (self->reason);
  g_free (self);
}

RivHttpReplyState
riv_http_reply_get_state (RivHttpReply *self)
{
  return self->state;
}

/* 0 until the head has been read. */
guint
riv_http_reply_get_status (RivHttpReply *self)
{
  return self->state == RIV_HTTP_REPLY_HEAD ? 0 : self->status;
}

const char *
riv_http_reply_get_reason (RivHttpReply *self)
{
  return self->reason != NULL ? self->reason : "";
}

/* Whether the body ends where the connection does: an EOF is then its end
 * rather than a cut. */
gboolean
riv_http_reply_ends_at_eof (RivHttpReply *self)
{
  return self->state != RIV_HTTP_REPLY_HEAD && self->body == BODY_EOF;
}

/* The body's length as its head announced it (what is left of it once
 * reading began), or -1 when the head has not come or named none. */
gint64
riv_http_reply_get_length (RivHttpReply *self)
{
  if (self->state == RIV_HTTP_REPLY_HEAD)
    return -1;
  if (self->state == RIV_HTTP_REPLY_END)
    return 0;
  return self->body == BODY_LENGTH ? (gint64) self->left : -1;
}

static gboolean
fail (GError    **error,
      const char *format,
      ...) G_GNUC_PRINTF (2, 3);

static gboolean
fail (GError    **error,
      const char *format,
      ...)
{
  va_list args;
  g_autofree char *message = NULL;

  va_start (args, format);
  message = g_strdup_vprintf (format, args);
  va_end (args);
  g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA, "the stream's reply: %s", message);
  return FALSE;
}

/* A decimal number of at most 18 digits, the whole of [s, end) but for
 * blanks around it. */
static gboolean
parse_length (const char *s,
              const char *end,
              guint64    *out)
{
  guint64 v = 0;
  guint digits = 0;

  while (s < end && (*s == ' ' || *s == '\t'))
    s++;
  while (end > s && (end[-1] == ' ' || end[-1] == '\t'))
    end--;
  for (; s < end; s++, digits++)
    {
      if (!g_ascii_isdigit (*s) || digits == 18)
        return FALSE;
      v = v * 10 + (guint64) (*s - '0');
    }
  if (digits == 0)
    return FALSE;
  *out = v;
  return TRUE;
}

/* Whether the comma-separated list [s, end) ends with the token word. */
static gboolean
list_ends_with (const char *s,
                const char *end,
                const char *word)
{
  const char *last = s;
  gsize len = strlen (word);

  for (const char *p = s; p < end; p++)
    if (*p == ',')
      last = p + 1;
  while (last < end && (*last == ' ' || *last == '\t'))
    last++;
  while (end > last && (end[-1] == ' ' || end[-1] == '\t'))
    end--;
  return (gsize) (end - last) == len && g_ascii_strncasecmp (last, word, len) == 0;
}

static gboolean
header_is (const char *name,
           gsize       name_len,
           const char *want)
{
  return name_len == strlen (want) && g_ascii_strncasecmp (name, want, name_len) == 0;
}

/* The head in self->line, complete (it ends with an empty line). */
static gboolean
parse_head (RivHttpReply *self,
            GError      **error)
{
  const char *p = self->line->str;
  const char *end = p + self->line->len;
  const char *eol = memchr (p, '\n', end - p);
  const char *line_end;
  gboolean have_length = FALSE, chunked = FALSE;
  guint64 length = 0;

  g_assert (eol != NULL);
  line_end = eol > p && eol[-1] == '\r' ? eol - 1 : eol;
  /* "HTTP/1.x NNN reason" */
  if (line_end - p < 12 || strncmp (p, "HTTP/1.", 7) != 0 || !g_ascii_isdigit (p[7]) ||
      p[8] != ' ' || !g_ascii_isdigit (p[9]) || !g_ascii_isdigit (p[10]) ||
      !g_ascii_isdigit (p[11]) || (line_end - p > 12 && p[12] != ' '))
    return fail (error, "not an HTTP/1 status line");
  self->status = (guint) ((p[9] - '0') * 100 + (p[10] - '0') * 10 + (p[11] - '0'));
  if (self->status < 100)
    return fail (error, "status %u", self->status);
  g_free (self->reason);
  self->reason = line_end - p > 13 ? g_strndup (p + 13, line_end - (p + 13)) : NULL;
  if (self->reason != NULL && !g_utf8_validate (self->reason, -1, NULL))
    g_clear_pointer (&self->reason, g_free);

  for (p = eol + 1; p < end; p = eol + 1)
    {
      const char *colon;

      eol = memchr (p, '\n', end - p);
      g_assert (eol != NULL);
      line_end = eol > p && eol[-1] == '\r' ? eol - 1 : eol;
      if (line_end == p)
        break;   /* the empty line */
      if (*p == ' ' || *p == '\t')
        continue;   /* an obsolete folded line: nothing here reads one */
      colon = memchr (p, ':', line_end - p);
      if (colon == NULL || colon == p)
        return fail (error, "a header line without a name");

      if (header_is (p, colon - p, "Transfer-Encoding"))
        {
          g_autofree char *value = g_strstrip (g_strndup (colon + 1, line_end - (colon + 1)));

          /* Only chunked framing is taken off here: a compressing coding
           * under it would reach the SSE reader compressed. */
          if (g_ascii_strcasecmp (value, "chunked") != 0 && *value != '\0')
            return fail (error, "a transfer coding that is not read here "
                                "(Transfer-Encoding: %.40s)",
                         g_utf8_validate (value, -1, NULL) ? value : "?");
          chunked = TRUE;
        }
      else if (header_is (p, colon - p, "Content-Length"))
        {
          guint64 v;

          if (!parse_length (colon + 1, line_end, &v))
            return fail (error, "a Content-Length that is not a number");
          if (have_length && v != length)
            return fail (error, "two different Content-Lengths");
          have_length = TRUE;
          length = v;
        }
      else if (header_is (p, colon - p, "Content-Encoding") &&
               !list_ends_with (colon + 1, line_end, "identity"))
        {
          g_autofree char *value = g_strstrip (g_strndup (colon + 1, line_end - (colon + 1)));

          if (*value != '\0')
            return fail (error, "a compressed body (Content-Encoding: %.40s), which was not "
                                "asked for", g_utf8_validate (value, -1, NULL) ? value : "?");
        }
    }

  /* RFC 9112 §6.3: chunked wins over a length; no body after 204 and 304. */
  if (self->status == 204 || self->status == 304)
    self->state = RIV_HTTP_REPLY_END;
  else
    {
      self->state = RIV_HTTP_REPLY_BODY;
      if (chunked)
        {
          self->body = BODY_CHUNKED;
          self->chunk = CHUNK_SIZE;
        }
      else if (!have_length)
        self->body = BODY_EOF;
      else
        {
          self->body = BODY_LENGTH;
          self->left = length;
          if (length == 0)
            self->state = RIV_HTTP_REPLY_END;
        }
    }
  g_string_truncate (self->line, 0);
  return TRUE;
}

/* Takes head bytes from [*p, end) up to the head's end; TRUE when the head
 * (the final one, past any 1xx) has been read. */
static gboolean
take_head (RivHttpReply *self,
           const char  **p,
           const char   *end,
           gboolean     *done,
           GError      **error)
{
  *done = FALSE;
  while (*p < end)
    {
      const char *eol = memchr (*p, '\n', end - *p);
      gsize take = eol != NULL ? (gsize) (eol + 1 - *p) : (gsize) (end - *p);
      gsize line_start = self->head_line;

      if (self->line->len + take > MAX_HEAD)
        return fail (error, "its head is larger than %d KiB", MAX_HEAD / 1024);
      g_string_append_len (self->line, *p, take);
      *p += take;
      if (eol == NULL)
        return TRUE;

      /* A line ended: the head ends with an empty one (CRLF or LF). */
      self->head_line = self->line->len;
      {
        gsize len = self->line->len - line_start;
        const char *line = self->line->str + line_start;
        gboolean empty = len == 1 || (len == 2 && line[0] == '\r');

        /* Before the status line, a stray line end is skipped (RFC 9112 §2.2). */
        if (empty && line_start == 0)
          {
            g_string_truncate (self->line, 0);
            self->head_line = 0;
            continue;
          }
        if (!empty)
          continue;
      }
      self->head_line = 0;
      if (!parse_head (self, error))
        return FALSE;
      if (self->status == 101)
        {
          self->state = RIV_HTTP_REPLY_HEAD;
          return fail (error, "an upgrade (101), which was not asked for");
        }
      if (self->status < 200)
        {
          /* An interim reply (100 Continue, 103 Early Hints): the real one follows. */
          self->state = RIV_HTTP_REPLY_HEAD;
          continue;
        }
      *done = TRUE;
      return TRUE;
    }
  return TRUE;
}

/* A chunk's size line in self->line, without its line end. */
static gboolean
parse_chunk_size (RivHttpReply *self,
                  guint64      *size,
                  GError      **error)
{
  const char *p = self->line->str;
  guint64 v = 0;
  guint digits = 0;

  for (; g_ascii_isxdigit (*p); p++, digits++)
    {
      if (digits == 15)
        return fail (error, "a chunk larger than 2^60 bytes");
      v = v * 16 + (guint64) g_ascii_xdigit_value (*p);
    }
  while (*p == ' ' || *p == '\t')
    p++;
  if (digits == 0 || (*p != '\0' && *p != ';'))
    return fail (error, "a chunk size that is not a number");
  *size = v;
  return TRUE;
}

/* Reads one line of [*p, end) into self->line, at most max bytes; TRUE with
 * *complete when it ended (its line end dropped). */
static gboolean
take_line (RivHttpReply *self,
           const char  **p,
           const char   *end,
           gsize         max,
           const char   *what,
           gboolean     *complete,
           GError      **error)
{
  const char *eol = memchr (*p, '\n', end - *p);
  const char *stop = eol != NULL ? eol : end;

  if (self->line->len + (gsize) (stop - *p) > max)
    return fail (error, "%s longer than %zu bytes", what, max);
  g_string_append_len (self->line, *p, stop - *p);
  *p = eol != NULL ? eol + 1 : end;
  *complete = eol != NULL;
  if (*complete && self->line->len > 0 && self->line->str[self->line->len - 1] == '\r')
    g_string_truncate (self->line, self->line->len - 1);
  return TRUE;
}

/* Feeds n bytes read from the connection, in buf. The body's bytes among
 * them are moved, their framing taken off, to the start of buf: returns how
 * many there are, or -1 with error set (the reply cannot be read on). Bytes
 * after the body's end are ignored. */
gssize
riv_http_reply_feed (RivHttpReply *self,
                     char         *buf,
                     gsize         n,
                     GError      **error)
{
  const char *p = buf;
  const char *end;
  char *out = buf;

  if (n == 0)
    return 0;
  end = buf + n;
  while (p < end)
    {
      gboolean done;
      gsize take;

      switch (self->state)
        {
        case RIV_HTTP_REPLY_HEAD:
          if (!take_head (self, &p, end, &done, error))
            return -1;
          break;

        case RIV_HTTP_REPLY_END:
          return out - buf;

        case RIV_HTTP_REPLY_BODY:
          if (self->body == BODY_EOF || (self->body == BODY_CHUNKED && self->chunk == CHUNK_DATA) ||
              self->body == BODY_LENGTH)
            {
              take = (gsize) (end - p);
              if (self->body != BODY_EOF && self->left < take)
                take = (gsize) self->left;
              if (out != p)
                memmove (out, p, take);
              out += take;
              p += take;
              if (self->body == BODY_EOF)
                break;
              self->left -= take;
              if (self->left == 0)
                {
                  if (self->body == BODY_LENGTH)
                    self->state = RIV_HTTP_REPLY_END;
                  else
                    self->chunk = CHUNK_CR;
                }
              break;
            }

          switch (self->chunk)
            {
            case CHUNK_SIZE:
              if (!take_line (self, &p, end, MAX_CHUNK_LINE, "a chunk's size line", &done, error))
                return -1;
              if (done)
                {
                  guint64 size = 0;

                  if (!parse_chunk_size (self, &size, error))
                    return -1;
                  g_string_truncate (self->line, 0);
                  self->left = size;
                  self->chunk = size > 0 ? CHUNK_DATA : CHUNK_TRAILER;
                }
              break;

            case CHUNK_CR:
              if (*p == '\r')
                {
                  p++;
                  self->chunk = CHUNK_LF;
                  break;
                }
              G_GNUC_FALLTHROUGH;
            case CHUNK_LF:
              if (*p != '\n')
                {
                  fail (error, "a chunk's data not followed by a line end");
                  return -1;
                }
              p++;
              self->chunk = CHUNK_SIZE;
              break;

            case CHUNK_TRAILER:
              if (!take_line (self, &p, end, MAX_HEAD, "its trailer", &done, error))
                return -1;
              if (done)
                {
                  if (self->line->len == 0)
                    self->state = RIV_HTTP_REPLY_END;
                  g_string_truncate (self->line, 0);
                }
              break;

            case CHUNK_DATA:
            default:
              g_assert_not_reached ();
            }
          break;

        default:
          g_assert_not_reached ();
        }
    }

  return out - buf;
}
