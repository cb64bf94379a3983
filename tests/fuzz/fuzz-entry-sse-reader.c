/* fuzz-entry-sse-reader.c
 * Copyright 2026 The Rivulet authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Input: byte 0 picks max_frame (16..1036 bytes, so that the frame limit is
 * reached often), bytes 1-3 seed the chunking, the rest is the stream.
 *
 * Oracles:
 *  - differential: the stream fed in chunks (split at positions derived from
 *    the seed, empty chunks included) gives exactly the events and the error
 *    status of the stream fed at once;
 *  - after a reset the reader behaves like a new one (the stream again, one
 *    byte at a time, gives the same result);
 *  - every event: data NUL-terminated at len, no CR in data or type, no LF in
 *    the type;
 *  - memory is bounded: get_pending() never exceeds max_frame;
 *  - a reset from the callback stops the feed (events so far are a prefix of
 *    the full result, nothing is pending), a free from the callback is safe.
 */
#include "config.h"

#include <string.h>

#include "fuzz-entry.h"
#include "riv-sse-reader.h"

typedef struct
{
  GString      *log;          /* every event, length-prefixed */
  guint         n_events;
  RivSseReader *reader;
  guint         reset_at;     /* 0: never; else reset after event n */
  gboolean      free_at;      /* free after reset_at instead of reset */
  gboolean      stopped;
} Collector;

static void
collect_cb (const char *event_type,
            const char *data,
            gsize       len,
            gpointer    user_data)
{
  Collector *c = user_data;

  RIV_FUZZ_CHECK (!c->stopped, "event after the callback reset or freed the reader");
  RIV_FUZZ_CHECK (data != NULL && data[len] == '\0', "data not NUL-terminated at len %zu", len);
  RIV_FUZZ_CHECK (memchr (data, '\r', len) == NULL, "CR inside event data");
  if (event_type != NULL)
    {
      RIV_FUZZ_CHECK (strpbrk (event_type, "\r\n") == NULL, "line end inside the event type");
      g_string_append_printf (c->log, "T%zu:%s", strlen (event_type), event_type);
    }
  else
    g_string_append_c (c->log, 'N');
  g_string_append_printf (c->log, "D%zu:", len);
  g_string_append_len (c->log, data, len);
  c->n_events++;

  if (c->reset_at != 0 && c->n_events == c->reset_at)
    {
      c->stopped = TRUE;
      if (c->free_at)
        {
          riv_sse_reader_free (c->reader);
          c->reader = NULL;
        }
      else
        riv_sse_reader_reset (c->reader);
    }
}

static void
collector_init (Collector    *c,
                RivSseReader *reader)
{
  memset (c, 0, sizeof *c);
  c->log = g_string_new (NULL);
  c->reader = reader;
}

static void
check_pending (RivSseReader *reader,
               gsize         max_frame)
{
  gsize pending = riv_sse_reader_get_pending (reader);

  RIV_FUZZ_CHECK (pending <= max_frame, "%zu bytes pending, max_frame %zu", pending, max_frame);
}

/* Feeds in chunks whose lengths come from a small xorshift generator. */
static gboolean
feed_chunked (Collector    *c,
              const char   *stream,
              gsize         len,
              guint32       seed,
              gsize         max_chunk,
              gsize         max_frame)
{
  gsize done = 0;

  seed |= 1;
  while (done < len)
    {
      g_autoptr(GError) error = NULL;
      gsize chunk;

      seed ^= seed << 13;
      seed ^= seed >> 17;
      seed ^= seed << 5;
      chunk = MIN (seed % (max_chunk + 1), len - done);
      if (!riv_sse_reader_feed (c->reader, stream + done, chunk, collect_cb, c, &error))
        {
          RIV_FUZZ_CHECK (g_error_matches (error, RIV_SSE_ERROR, RIV_SSE_ERROR_FRAME_TOO_LARGE),
                          "unexpected error %s", error != NULL ? error->message : "(none)");
          return FALSE;
        }
      check_pending (c->reader, max_frame);
      done += chunk;
    }
  return TRUE;
}

void
riv_fuzz_sse_reader (const guint8 *data,
                     gsize         size)
{
  g_autoptr(GError) error = NULL;
  const char *stream;
  gsize len, max_frame, max_chunk;
  guint32 seed;
  gboolean ok_whole, ok_chunked, ok_again;
  Collector whole, chunked, cb;

  if (size < 4)
    return;

  max_frame = 16 + (gsize) data[0] * 4;
  seed = (guint32) data[1] << 16 | (guint32) data[2] << 8 | data[3];
  max_chunk = 1 + (data[3] & 0x3f);
  stream = (const char *) data + 4;
  len = size - 4;

  /* At once. */
  collector_init (&whole, riv_sse_reader_new (max_frame));
  ok_whole = riv_sse_reader_feed (whole.reader, stream, len, collect_cb, &whole, &error);
  RIV_FUZZ_CHECK (ok_whole || g_error_matches (error, RIV_SSE_ERROR, RIV_SSE_ERROR_FRAME_TOO_LARGE),
                  "unexpected error %s", error->message);
  if (ok_whole)
    check_pending (whole.reader, max_frame);

  /* In chunks: the same events and the same outcome. */
  collector_init (&chunked, riv_sse_reader_new (max_frame));
  ok_chunked = feed_chunked (&chunked, stream, len, seed, max_chunk, max_frame);
  RIV_FUZZ_CHECK (ok_chunked == ok_whole, "chunked feed %s, whole feed %s",
                  ok_chunked ? "succeeded" : "failed", ok_whole ? "succeeded" : "failed");
  RIV_FUZZ_CHECK (g_string_equal (chunked.log, whole.log),
                  "chunked events differ from whole-buffer events (%u vs %u events)",
                  chunked.n_events, whole.n_events);

  /* After a reset, byte by byte: like a fresh reader. */
  riv_sse_reader_reset (chunked.reader);
  RIV_FUZZ_CHECK (riv_sse_reader_get_pending (chunked.reader) == 0, "pending bytes after reset");
  g_string_truncate (chunked.log, 0);
  chunked.n_events = 0;
  ok_again = feed_chunked (&chunked, stream, len, 0, 1, max_frame);
  RIV_FUZZ_CHECK (ok_again == ok_whole && g_string_equal (chunked.log, whole.log),
                  "a reset reader differs from a new one");

  /* Reset, or free, from inside the callback. */
  if (whole.n_events > 0)
    {
      for (guint pass = 0; pass < 2; pass++)
        {
          collector_init (&cb, riv_sse_reader_new (max_frame));
          cb.reset_at = 1 + data[1] % whole.n_events;
          cb.free_at = pass == 1;
          g_clear_error (&error);
          RIV_FUZZ_CHECK (riv_sse_reader_feed (cb.reader, stream, len, collect_cb, &cb, &error),
                          "feed failed after the callback %s the reader",
                          cb.free_at ? "freed" : "reset");
          RIV_FUZZ_CHECK (cb.n_events == cb.reset_at, "events delivered after the reader was %s",
                          cb.free_at ? "freed" : "reset");
          RIV_FUZZ_CHECK (cb.log->len <= whole.log->len &&
                          memcmp (cb.log->str, whole.log->str, cb.log->len) == 0,
                          "events before the callback reset are not a prefix of the full result");
          if (!cb.free_at)
            {
              RIV_FUZZ_CHECK (riv_sse_reader_get_pending (cb.reader) == 0,
                              "bytes pending after a reset from the callback");
              riv_sse_reader_free (cb.reader);
            }
          g_string_free (cb.log, TRUE);
        }
    }

  riv_sse_reader_free (whole.reader);
  riv_sse_reader_free (chunked.reader);
  g_string_free (whole.log, TRUE);
  g_string_free (chunked.log, TRUE);
}
