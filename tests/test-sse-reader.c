/* test-sse-reader.c
 * Copyright 2026 The Rivulet authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "config.h"

#include <string.h>

#include "riv-sse-reader.h"
#include "riv-test-util.h"

/* Every dispatched event, recorded as "type\x1f" + data (type "-" when NULL). */
typedef struct
{
  GPtrArray    *events;   /* GBytes* */
  RivSseReader *reader;   /* for the callbacks that reset or free it */
  guint         reset_after;
  gboolean      free_after;
} Collector;

static void
collector_init (Collector *c)
{
  memset (c, 0, sizeof *c);
  c->events = g_ptr_array_new_with_free_func ((GDestroyNotify) g_bytes_unref);
}

static void
collector_clear (Collector *c)
{
  g_clear_pointer (&c->events, g_ptr_array_unref);
}

static void
collect_cb (const char *event_type,
            const char *data,
            gsize       len,
            gpointer    user_data)
{
  Collector *c = user_data;
  GString *s = g_string_new (event_type != NULL ? event_type : "-");

  /* The data is NUL-terminated at len. */
  g_assert_cmpint (data[len], ==, '\0');
  g_string_append_c (s, '\x1f');
  g_string_append_len (s, data, len);
  g_ptr_array_add (c->events, g_string_free_to_bytes (s));

  if (c->reset_after > 0 && c->events->len == c->reset_after)
    riv_sse_reader_reset (c->reader);
  if (c->free_after && c->events->len == 1)
    {
      riv_sse_reader_free (c->reader);
      c->reader = NULL;
    }
}

static void
assert_event (Collector  *c,
              guint       i,
              const char *type,
              const char *data,
              gsize       len)
{
  g_autoptr(GString) expected = g_string_new (type != NULL ? type : "-");
  GBytes *got;

  g_assert_cmpuint (i, <, c->events->len);
  g_string_append_c (expected, '\x1f');
  g_string_append_len (expected, data, len);
  got = g_ptr_array_index (c->events, i);
  if (g_bytes_get_size (got) != expected->len ||
      memcmp (g_bytes_get_data (got, NULL), expected->str, expected->len) != 0)
    {
      g_autofree char *a = g_strescape (expected->str, NULL);
      g_autofree char *b = g_strndup (g_bytes_get_data (got, NULL), g_bytes_get_size (got));
      g_autofree char *be = g_strescape (b, NULL);

      g_error ("event %u: expected \"%s\", got \"%s\"", i, a, be);
    }
}

#define assert_event_str(c, i, type, data) assert_event (c, i, type, data, strlen (data))

/* Feeds text in chunks of at most chunk bytes (0 = all at once). */
static gboolean
feed_chunked (RivSseReader  *reader,
              const char    *text,
              gsize          len,
              gsize          chunk,
              Collector     *c,
              GError       **error)
{
  gsize off = 0;

  if (chunk == 0)
    chunk = len;
  while (off < len)
    {
      gsize n = MIN (chunk, len - off);

      if (!riv_sse_reader_feed (reader, text + off, n, collect_cb, c, error))
        return FALSE;
      off += n;
    }
  return TRUE;
}

static void
assert_same_events (GPtrArray *a,
                    GPtrArray *b,
                    const char *what)
{
  if (a->len != b->len)
    g_error ("%s: %u events instead of %u", what, b->len, a->len);
  for (guint i = 0; i < a->len; i++)
    if (!g_bytes_equal (g_ptr_array_index (a, i), g_ptr_array_index (b, i)))
      g_error ("%s: event %u differs", what, i);
}

static void
test_basic (void)
{
  g_autoptr(RivSseReader) reader = riv_sse_reader_new (0);
  g_autoptr(GError) error = NULL;
  Collector c;
  const char *text = "data: {\"msg\":\"heartbeat\",\"event_id\":null}\n\n";

  collector_init (&c);
  g_assert_true (riv_sse_reader_feed (reader, text, strlen (text), collect_cb, &c, &error));
  g_assert_no_error (error);
  g_assert_cmpuint (c.events->len, ==, 1);
  assert_event_str (&c, 0, NULL, "{\"msg\":\"heartbeat\",\"event_id\":null}");
  g_assert_cmpuint (riv_sse_reader_get_pending (reader), ==, 0);
  collector_clear (&c);
}

static void
test_fields (void)
{
  g_autoptr(RivSseReader) reader = riv_sse_reader_new (0);
  g_autoptr(GError) error = NULL;
  Collector c;
  const char *text =
    ": a comment line\n"
    "data: first\n"
    "data:second\n"           /* no space after the colon */
    "data:  third\n"          /* only one space is stripped */
    "data\n"                  /* no colon: an empty data line */
    "id: 7\n"
    "retry: 1000\n"
    "whatever: ignored\n"
    "nocolon\n"
    "\n"
    "event: update\n"
    "data: typed\n"
    "\n"
    "data: untyped again\n"   /* the event type does not leak into the next frame */
    "\n"
    "event: lonely\n"         /* a frame without data dispatches nothing */
    "\n"
    "data:\n"                 /* one empty data line still dispatches "" */
    "\n"
    ":comment only\n"
    "\n"
    "\n";

  collector_init (&c);
  g_assert_true (riv_sse_reader_feed (reader, text, strlen (text), collect_cb, &c, &error));
  g_assert_no_error (error);
  g_assert_cmpuint (c.events->len, ==, 4);
  assert_event_str (&c, 0, NULL, "first\nsecond\n third\n");
  assert_event_str (&c, 1, "update", "typed");
  assert_event_str (&c, 2, NULL, "untyped again");
  assert_event_str (&c, 3, NULL, "");
  collector_clear (&c);
}

static void
test_line_endings (void)
{
  const char *texts[] = {
    "data: a\ndata: b\n\ndata: c\n\n",
    "data: a\r\ndata: b\r\n\r\ndata: c\r\n\r\n",
    "data: a\rdata: b\r\rdata: c\r\r",
    "data: a\r\ndata: b\r\r\ndata: c\n\r",
  };

  for (guint i = 0; i < G_N_ELEMENTS (texts); i++)
    {
      g_autoptr(RivSseReader) reader = riv_sse_reader_new (0);
      g_autoptr(GError) error = NULL;
      Collector c;

      collector_init (&c);
      g_assert_true (riv_sse_reader_feed (reader, texts[i], strlen (texts[i]), collect_cb, &c, &error));
      g_assert_no_error (error);
      g_assert_cmpuint (c.events->len, ==, 2);
      assert_event_str (&c, 0, NULL, "a\nb");
      assert_event_str (&c, 1, NULL, "c");
      collector_clear (&c);
    }
}

static void
test_cr_lf_split (void)
{
  g_autoptr(RivSseReader) reader = riv_sse_reader_new (0);
  g_autoptr(GError) error = NULL;
  Collector c;

  /* CR ends one chunk, LF starts the next: one line end, not a blank line. */
  collector_init (&c);
  g_assert_true (riv_sse_reader_feed (reader, "data: a\r", 8, collect_cb, &c, &error));
  g_assert_cmpuint (c.events->len, ==, 0);
  g_assert_true (riv_sse_reader_feed (reader, "\ndata: b\r", 9, collect_cb, &c, &error));
  g_assert_cmpuint (c.events->len, ==, 0);
  g_assert_true (riv_sse_reader_feed (reader, "\n", 1, collect_cb, &c, &error));
  g_assert_cmpuint (c.events->len, ==, 0);
  g_assert_true (riv_sse_reader_feed (reader, "\r", 1, collect_cb, &c, &error));
  g_assert_cmpuint (c.events->len, ==, 1);
  /* The LF right after that CR is swallowed too, and a lone CR ends the next frame. */
  g_assert_true (riv_sse_reader_feed (reader, "\ndata: c\r", 9, collect_cb, &c, &error));
  g_assert_true (riv_sse_reader_feed (reader, "\r", 1, collect_cb, &c, &error));
  g_assert_no_error (error);
  g_assert_cmpuint (c.events->len, ==, 2);
  assert_event_str (&c, 0, NULL, "a\nb");
  assert_event_str (&c, 1, NULL, "c");
  collector_clear (&c);
}

/* A stream with every feature; the reference result is the whole-buffer feed. */
static const char mixed_stream[] =
  "\xEF\xBB\xBF"
  ": welcome\r\n"
  "data: {\"msg\":\"estimation\",\"event_id\":\"E1\",\"rank\":0}\n\n"
  "event: ping\r"
  "data: line one\r"
  "data:line two\r\r"
  "data: crlf\r\n"
  "\r\n"
  "retry: 5\n"
  "id: 9\n"
  "data: {\"msg\":\"process_completed\",\"event_id\":\"E1\",\"output\":{\"data\":[\"ok\"]}}\n"
  "\n"
  "data\n"
  "\r"
  "unknown: field\n"
  "data: multi\ndata: \ndata: end\n\n"
  "data: \xEF\xBB\xBF not a bom here\n\n"
  "data: trailing unterminated";

static void
run_reference (GPtrArray **out)
{
  g_autoptr(RivSseReader) reader = riv_sse_reader_new (0);
  g_autoptr(GError) error = NULL;
  Collector c;

  collector_init (&c);
  g_assert_true (feed_chunked (reader, mixed_stream, sizeof mixed_stream - 1, 0, &c, &error));
  g_assert_no_error (error);
  *out = g_steal_pointer (&c.events);
}

static void
test_reference_stream (void)
{
  g_autoptr(GPtrArray) ref = NULL;
  Collector c = { 0 };

  run_reference (&ref);
  c.events = ref;
  g_assert_cmpuint (ref->len, ==, 7);
  assert_event_str (&c, 0, NULL, "{\"msg\":\"estimation\",\"event_id\":\"E1\",\"rank\":0}");
  assert_event_str (&c, 1, "ping", "line one\nline two");
  assert_event_str (&c, 2, NULL, "crlf");
  assert_event_str (&c, 3, NULL,
                    "{\"msg\":\"process_completed\",\"event_id\":\"E1\",\"output\":{\"data\":[\"ok\"]}}");
  assert_event_str (&c, 4, NULL, "");
  assert_event_str (&c, 5, NULL, "multi\n\nend");
  assert_event_str (&c, 6, NULL, "\xEF\xBB\xBF not a bom here");
}

static void
test_split_every_position (void)
{
  g_autoptr(GPtrArray) ref = NULL;
  gsize len = sizeof mixed_stream - 1;

  run_reference (&ref);

  /* Two chunks, split at every byte position. */
  for (gsize split = 0; split <= len; split++)
    {
      g_autoptr(RivSseReader) reader = riv_sse_reader_new (0);
      g_autoptr(GError) error = NULL;
      g_autofree char *what = g_strdup_printf ("split at %" G_GSIZE_FORMAT, split);
      Collector c;

      collector_init (&c);
      g_assert_true (riv_sse_reader_feed (reader, mixed_stream, split, collect_cb, &c, &error));
      g_assert_true (riv_sse_reader_feed (reader, mixed_stream + split, len - split,
                                          collect_cb, &c, &error));
      g_assert_no_error (error);
      assert_same_events (ref, c.events, what);
      collector_clear (&c);
    }

  /* Fixed chunk sizes, including one byte at a time. */
  for (gsize chunk = 1; chunk <= 17; chunk++)
    {
      g_autoptr(RivSseReader) reader = riv_sse_reader_new (0);
      g_autoptr(GError) error = NULL;
      g_autofree char *what = g_strdup_printf ("chunks of %" G_GSIZE_FORMAT, chunk);
      Collector c;

      collector_init (&c);
      g_assert_true (feed_chunked (reader, mixed_stream, len, chunk, &c, &error));
      g_assert_no_error (error);
      assert_same_events (ref, c.events, what);
      /* The unterminated trailing frame is held, not dispatched. */
      g_assert_cmpuint (riv_sse_reader_get_pending (reader), >, 0);
      collector_clear (&c);
    }

  /* Three chunks, every pair of split points. */
  for (gsize a = 0; a <= len; a += 3)
    for (gsize b = a; b <= len; b += 5)
      {
        g_autoptr(RivSseReader) reader = riv_sse_reader_new (0);
        g_autoptr(GError) error = NULL;
        Collector c;

        collector_init (&c);
        g_assert_true (riv_sse_reader_feed (reader, mixed_stream, a, collect_cb, &c, &error));
        g_assert_true (riv_sse_reader_feed (reader, mixed_stream + a, b - a, collect_cb, &c, &error));
        g_assert_true (riv_sse_reader_feed (reader, mixed_stream + b, len - b, collect_cb, &c, &error));
        g_assert_no_error (error);
        assert_same_events (ref, c.events, "three chunks");
        collector_clear (&c);
      }
}

static void
test_random_chunking (void)
{
  static const char *tokens[] = {
    "data: ", "data:", "data", "event: e", ": c", "id: 1", "x", "yz", "\r", "\n", "\r\n",
    "\n\n", "\xEF", "\xBB\xBF", ":", " ", "\0",
  };
  g_autoptr(GRand) rand = g_rand_new_with_seed (20260101);

  for (guint round = 0; round < 300; round++)
    {
      g_autoptr(GString) text = g_string_new (NULL);
      g_autoptr(GPtrArray) ref = NULL;
      guint n_tokens = g_rand_int_range (rand, 1, 120);

      if (g_rand_boolean (rand))
        g_string_append (text, "\xEF\xBB\xBF");
      for (guint i = 0; i < n_tokens; i++)
        {
          guint t = g_rand_int_range (rand, 0, G_N_ELEMENTS (tokens));
          g_string_append_len (text, tokens[t], t == G_N_ELEMENTS (tokens) - 1 ? 1 : strlen (tokens[t]));
        }

      {
        g_autoptr(RivSseReader) reader = riv_sse_reader_new (0);
        Collector c;

        collector_init (&c);
        g_assert_true (feed_chunked (reader, text->str, text->len, 0, &c, NULL));
        ref = g_steal_pointer (&c.events);
      }

      for (guint k = 0; k < 4; k++)
        {
          g_autoptr(RivSseReader) reader = riv_sse_reader_new (0);
          Collector c;
          gsize off = 0;

          collector_init (&c);
          while (off < text->len)
            {
              gsize want = g_rand_int_range (rand, 1, 9);
              gsize n = MIN (want, text->len - off);

              g_assert_true (riv_sse_reader_feed (reader, text->str + off, n, collect_cb, &c, NULL));
              off += n;
            }
          assert_same_events (ref, c.events, "random chunks");
          collector_clear (&c);
        }
    }
}

static void
test_bom (void)
{
  g_autoptr(RivSseReader) reader = riv_sse_reader_new (0);
  g_autoptr(GError) error = NULL;
  Collector c;

  collector_init (&c);

  /* A BOM split over three chunks is dropped. */
  g_assert_true (riv_sse_reader_feed (reader, "\xEF", 1, collect_cb, &c, &error));
  g_assert_true (riv_sse_reader_feed (reader, "\xBB", 1, collect_cb, &c, &error));
  g_assert_true (riv_sse_reader_feed (reader, "\xBF" "data: x\n\n", 11, collect_cb, &c, &error));
  g_assert_cmpuint (c.events->len, ==, 1);
  assert_event_str (&c, 0, NULL, "x");

  /* Only at the start: a second BOM is ordinary bytes (here it spoils the field name). */
  g_assert_true (riv_sse_reader_feed (reader, "\xEF\xBB\xBF" "data: y\n\n", 12, collect_cb, &c, &error));
  g_assert_cmpuint (c.events->len, ==, 1);

  /* After a reset the stream starts again, BOM included. */
  riv_sse_reader_reset (reader);
  g_assert_true (riv_sse_reader_feed (reader, "\xEF\xBB\xBF" "data: z\n\n", 12, collect_cb, &c, &error));
  g_assert_cmpuint (c.events->len, ==, 2);
  assert_event_str (&c, 1, NULL, "z");

  /* A partial BOM that turns out not to be one is kept as line content. */
  riv_sse_reader_reset (reader);
  g_assert_true (riv_sse_reader_feed (reader, "\xEF\xBB", 2, collect_cb, &c, &error));
  g_assert_true (riv_sse_reader_feed (reader, "data: w\n\ndata: v\n\n", 18, collect_cb, &c, &error));
  g_assert_no_error (error);
  g_assert_cmpuint (c.events->len, ==, 3);
  assert_event_str (&c, 2, NULL, "v");

  collector_clear (&c);
}

static void
test_nul_bytes (void)
{
  g_autoptr(RivSseReader) reader = riv_sse_reader_new (0);
  g_autoptr(GError) error = NULL;
  static const char text[] = "data: a\0b\n\n";
  Collector c;

  collector_init (&c);
  g_assert_true (riv_sse_reader_feed (reader, text, sizeof text - 1, collect_cb, &c, &error));
  g_assert_no_error (error);
  g_assert_cmpuint (c.events->len, ==, 1);
  assert_event (&c, 0, NULL, "a\0b", 3);
  collector_clear (&c);
}

static void
test_reset_drops_partial (void)
{
  g_autoptr(RivSseReader) reader = riv_sse_reader_new (0);
  g_autoptr(GError) error = NULL;
  Collector c;

  collector_init (&c);
  g_assert_true (riv_sse_reader_feed (reader, "event: a\ndata: half", 19, collect_cb, &c, &error));
  g_assert_cmpuint (riv_sse_reader_get_pending (reader), >=, 5);
  riv_sse_reader_reset (reader);
  g_assert_cmpuint (riv_sse_reader_get_pending (reader), ==, 0);
  g_assert_true (riv_sse_reader_feed (reader, "data: whole\n\n", 13, collect_cb, &c, &error));
  g_assert_no_error (error);
  g_assert_cmpuint (c.events->len, ==, 1);
  assert_event_str (&c, 0, NULL, "whole");

  /* A dangling CR before the reset does not eat the new stream's first LF. */
  g_assert_true (riv_sse_reader_feed (reader, "data: q\r", 8, collect_cb, &c, &error));
  riv_sse_reader_reset (reader);
  g_assert_true (riv_sse_reader_feed (reader, "\ndata: r\n\n", 10, collect_cb, &c, &error));
  g_assert_cmpuint (c.events->len, ==, 2);
  assert_event_str (&c, 1, NULL, "r");
  collector_clear (&c);
}

static void
test_too_large (void)
{
  const gsize limit = 64;
  g_autofree char *big = NULL;
  g_autofree char *text = NULL;
  gsize len;

  big = g_strnfill (200, 'x');
  text = g_strdup_printf ("data: small\n\ndata: %s\n\ndata: after\n\n", big);
  len = strlen (text);

  /* Whatever the chunking: the small event is delivered, then the error, and
   * the reader never holds much more than the limit. */
  for (gsize chunk = 0; chunk <= 9; chunk++)
    {
      g_autoptr(RivSseReader) reader = riv_sse_reader_new (limit);
      g_autoptr(GError) error = NULL;
      gsize off = 0;
      gboolean ok = TRUE;
      Collector c;

      collector_init (&c);
      while (off < len && ok)
        {
          gsize n = chunk == 0 ? len : MIN (chunk, len - off);

          ok = riv_sse_reader_feed (reader, text + off, n, collect_cb, &c, &error);
          g_assert_cmpuint (riv_sse_reader_get_pending (reader), <=, limit);
          off += n;
        }
      g_assert_false (ok);
      g_assert_error (error, RIV_SSE_ERROR, RIV_SSE_ERROR_FRAME_TOO_LARGE);
      g_assert_cmpuint (c.events->len, ==, 1);
      assert_event_str (&c, 0, NULL, "small");

      /* Stays failed until reset. */
      g_clear_error (&error);
      g_assert_false (riv_sse_reader_feed (reader, "data: z\n\n", 9, collect_cb, &c, &error));
      g_assert_error (error, RIV_SSE_ERROR, RIV_SSE_ERROR_FRAME_TOO_LARGE);
      g_assert_cmpuint (c.events->len, ==, 1);

      g_clear_error (&error);
      riv_sse_reader_reset (reader);
      g_assert_true (riv_sse_reader_feed (reader, "data: z\n\n", 9, collect_cb, &c, &error));
      g_assert_no_error (error);
      g_assert_cmpuint (c.events->len, ==, 2);
      assert_event_str (&c, 1, NULL, "z");
      collector_clear (&c);
    }
}

static void
test_too_large_many_lines (void)
{
  g_autoptr(RivSseReader) reader = riv_sse_reader_new (100);
  g_autoptr(GError) error = NULL;
  gboolean ok = TRUE;
  Collector c;

  /* Short lines that add up: the frame, not a line, hits the limit. */
  collector_init (&c);
  for (guint i = 0; i < 50 && ok; i++)
    {
      ok = riv_sse_reader_feed (reader, "data: 0123456789\n", 17, collect_cb, &c, &error);
      g_assert_cmpuint (riv_sse_reader_get_pending (reader), <=, 100);
    }
  g_assert_false (ok);
  g_assert_error (error, RIV_SSE_ERROR, RIV_SSE_ERROR_FRAME_TOO_LARGE);
  g_assert_cmpuint (c.events->len, ==, 0);
  collector_clear (&c);
}

static void
test_limit_exact (void)
{
  g_autoptr(RivSseReader) reader = riv_sse_reader_new (16);
  g_autoptr(GError) error = NULL;
  Collector c;

  /* A line exactly as long as the limit passes, in any chunking. */
  collector_init (&c);
  for (guint i = 0; i < 100; i++)
    g_assert_true (feed_chunked (reader, "data: 0123456789\n\n", 18, 1 + i % 5, &c, &error));
  g_assert_no_error (error);
  g_assert_cmpuint (c.events->len, ==, 100);

  /* An endless line without a terminator is refused, not buffered. */
  {
    g_autofree char *line = g_strnfill (1000, 'a');

    g_assert_false (feed_chunked (reader, line, 1000, 7, &c, &error));
    g_assert_error (error, RIV_SSE_ERROR, RIV_SSE_ERROR_FRAME_TOO_LARGE);
    g_assert_cmpuint (riv_sse_reader_get_pending (reader), <=, 16);
  }
  collector_clear (&c);
}

static void
test_large_frame_released (void)
{
  g_autoptr(RivSseReader) reader = riv_sse_reader_new (0);
  g_autoptr(GError) error = NULL;
  g_autofree char *big = g_strnfill (4 * 1024 * 1024, 'b');
  g_autofree char *text = g_strdup_printf ("data: %s\n\n", big);
  gsize len = strlen (text);
  Collector c;

  /* A 4 MiB event is delivered whole even when it arrives in 64 KiB pieces. */
  collector_init (&c);
  g_assert_true (feed_chunked (reader, text, len, 65536, &c, &error));
  g_assert_no_error (error);
  g_assert_cmpuint (c.events->len, ==, 1);
  g_assert_cmpuint (g_bytes_get_size (g_ptr_array_index (c.events, 0)), ==, 2 + 4 * 1024 * 1024);
  g_assert_cmpuint (riv_sse_reader_get_pending (reader), ==, 0);
  collector_clear (&c);
}

static void
test_reset_in_callback (void)
{
  g_autoptr(RivSseReader) reader = riv_sse_reader_new (0);
  g_autoptr(GError) error = NULL;
  const char *text = "data: one\n\ndata: two\n\ndata: three\n\n";
  Collector c;

  /* A reset from the callback discards the rest of the buffer. */
  collector_init (&c);
  c.reader = reader;
  c.reset_after = 1;
  g_assert_true (riv_sse_reader_feed (reader, text, strlen (text), collect_cb, &c, &error));
  g_assert_no_error (error);
  g_assert_cmpuint (c.events->len, ==, 1);
  c.reset_after = 0;
  g_assert_true (riv_sse_reader_feed (reader, text, strlen (text), collect_cb, &c, &error));
  g_assert_cmpuint (c.events->len, ==, 4);
  assert_event_str (&c, 3, NULL, "three");
  collector_clear (&c);
}

static void
test_free_in_callback (void)
{
  g_autoptr(GError) error = NULL;
  const char *text = "data: one\n\ndata: two\n\n";
  Collector c;

  /* Freeing the reader from its own callback is safe (ASan checks the rest). */
  collector_init (&c);
  c.reader = riv_sse_reader_new (0);
  c.free_after = TRUE;
  g_assert_true (riv_sse_reader_feed (c.reader, text, strlen (text), collect_cb, &c, &error));
  g_assert_no_error (error);
  g_assert_null (c.reader);
  g_assert_cmpuint (c.events->len, ==, 1);
  collector_clear (&c);
}

static void
test_many_frames_one_buffer (void)
{
  g_autoptr(RivSseReader) reader = riv_sse_reader_new (0);
  g_autoptr(GString) text = g_string_new (NULL);
  g_autoptr(GError) error = NULL;
  Collector c;

  for (guint i = 0; i < 5000; i++)
    g_string_append_printf (text, "data: {\"msg\":\"progress\",\"n\":%u}\n\n", i);

  collector_init (&c);
  g_assert_true (feed_chunked (reader, text->str, text->len, 4093, &c, &error));
  g_assert_no_error (error);
  g_assert_cmpuint (c.events->len, ==, 5000);
  assert_event_str (&c, 4999, NULL, "{\"msg\":\"progress\",\"n\":4999}");
  collector_clear (&c);
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/sse-reader/basic", test_basic);
  g_test_add_func ("/sse-reader/fields", test_fields);
  g_test_add_func ("/sse-reader/line-endings", test_line_endings);
  g_test_add_func ("/sse-reader/cr-lf-split", test_cr_lf_split);
  g_test_add_func ("/sse-reader/reference-stream", test_reference_stream);
  g_test_add_func ("/sse-reader/split-every-position", test_split_every_position);
  g_test_add_func ("/sse-reader/random-chunking", test_random_chunking);
  g_test_add_func ("/sse-reader/bom", test_bom);
  g_test_add_func ("/sse-reader/nul-bytes", test_nul_bytes);
  g_test_add_func ("/sse-reader/reset-drops-partial", test_reset_drops_partial);
  g_test_add_func ("/sse-reader/too-large", test_too_large);
  g_test_add_func ("/sse-reader/too-large-many-lines", test_too_large_many_lines);
  g_test_add_func ("/sse-reader/limit-exact", test_limit_exact);
  g_test_add_func ("/sse-reader/large-frame-released", test_large_frame_released);
  g_test_add_func ("/sse-reader/reset-in-callback", test_reset_in_callback);
  g_test_add_func ("/sse-reader/free-in-callback", test_free_in_callback);
  g_test_add_func ("/sse-reader/many-frames", test_many_frames_one_buffer);

  return g_test_run ();
}
