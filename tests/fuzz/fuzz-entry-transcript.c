/* fuzz-entry-transcript.c
 * Copyright 2026 The Rivulet authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Input: a transcript file (JSON Lines), not NUL-terminated.
 *
 * Oracles:
 *  - riv_transcript_parse() returns events or a RIV_TRANSCRIPT_ERROR_INVALID
 *    whose message starts with "line N: " for a line that exists;
 *  - accepted events are consistent: times from 0 and never going back,
 *    "truncated" only last, a stream number on every SSE event, method and
 *    a path starting with '/' on every request and response, a status in
 *    100..599 on responses, text_len the length of text;
 *  - writing the events back (riv_transcript_format) gives a file the
 *    reader accepts with the same events, and writing that one gives the
 *    very same text (format ∘ parse is stable after one pass);
 *  - the lint runs over the events without a warning, and every finding
 *    names a known rule.
 */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include "fuzz-entry.h"
#include "riv-lint.h"
#include "riv-transcript.h"

static gboolean
known_rule (const char *rule)
{
  const char * const *rules = riv_lint_get_rules ();

  for (guint i = 0; rules[i] != NULL; i++)
    if (strcmp (rules[i], rule) == 0)
      return TRUE;
  return FALSE;
}

static char *
write_back (GPtrArray *events,
            gsize     *len)
{
  GString *out = g_string_new (NULL);

  for (guint i = 0; i < events->len; i++)
    {
      RivTapEvent *event = events->pdata[i];
      gsize n = 0;
      g_autofree char *line = riv_transcript_format (event, event->t, &n);

      RIV_FUZZ_CHECK (n > 0 && line[n - 1] == '\n' && memchr (line, '\n', n) == line + n - 1,
                      "event %u is not written as one line", i);
      g_string_append_len (out, line, n);
    }
  *len = out->len;
  return g_string_free (out, FALSE);
}

static void
check_events (GPtrArray *events)
{
  double previous = 0;

  for (guint i = 0; i < events->len; i++)
    {
      RivTapEvent *event = events->pdata[i];

      RIV_FUZZ_CHECK (event->t >= previous, "event %u goes back in time", i);
      previous = event->t;
      RIV_FUZZ_CHECK (event->line > 0, "event %u has no line", i);
      if (event->kind == RIV_TAP_TRUNCATED)
        RIV_FUZZ_CHECK (i == events->len - 1, "an event after truncated");
      if (event->kind == RIV_TAP_SSE || event->kind == RIV_TAP_SSE_END)
        RIV_FUZZ_CHECK (event->stream > 0, "an SSE event without a stream");
      if (event->kind == RIV_TAP_SSE)
        RIV_FUZZ_CHECK (event->text != NULL, "a frame without data");
      if (event->kind == RIV_TAP_REQUEST || event->kind == RIV_TAP_RESPONSE)
        RIV_FUZZ_CHECK (event->method != NULL && event->method[0] != '\0' &&
                        event->path != NULL && event->path[0] == '/', "bad method or path");
      if (event->kind == RIV_TAP_RESPONSE)
        RIV_FUZZ_CHECK (event->status >= 100 && event->status <= 599, "status %u", event->status);
      if (event->text != NULL)
        RIV_FUZZ_CHECK (strlen (event->text) == event->text_len, "text_len does not match");
      else
        RIV_FUZZ_CHECK (event->text_len == 0, "text_len without text");
    }
}

void
riv_fuzz_transcript (const guint8 *data,
                     gsize         size)
{
  g_autoptr(GPtrArray) events = NULL;
  g_autoptr(GPtrArray) again = NULL;
  g_autoptr(GPtrArray) third = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(RivLint) lint = NULL;
  g_autofree char *first_text = NULL;
  g_autofree char *second_text = NULL;
  gsize first_len = 0, second_len = 0;

  events = riv_transcript_parse ((const char *) data, size, &error);
  RIV_FUZZ_CHECK ((events != NULL) != (error != NULL), "result and error disagree");
  if (events == NULL)
    {
      guint line = 0;
      guint lines = 1;

      RIV_FUZZ_CHECK (g_error_matches (error, RIV_TRANSCRIPT_ERROR, RIV_TRANSCRIPT_ERROR_INVALID),
                      "unexpected error %s", error->message);
      RIV_FUZZ_CHECK (sscanf (error->message, "line %u: ", &line) == 1, "no line in: %s", error->message);
      for (gsize i = 0; i < size; i++)
        lines += data[i] == '\n';
      RIV_FUZZ_CHECK (line >= 1 && line <= lines, "line %u of %u", line, lines);
      return;
    }
  check_events (events);

  lint = riv_lint_run_transcript (events, 0);
  for (guint i = 0; i < riv_lint_get_findings (lint)->len; i++)
    {
      RivLintFinding *f = riv_lint_get_findings (lint)->pdata[i];

      RIV_FUZZ_CHECK (known_rule (f->rule), "unknown rule %s", f->rule);
      RIV_FUZZ_CHECK (f->message != NULL, "a finding without a message");
    }

  first_text = write_back (events, &first_len);
  again = riv_transcript_parse (first_text, first_len, &error);
  RIV_FUZZ_CHECK (again != NULL, "the written events do not read back: %s\n%s",
                  error != NULL ? error->message : "", first_text);
  RIV_FUZZ_CHECK (again->len == events->len, "%u events read back as %u", events->len, again->len);
  for (guint i = 0; i < events->len; i++)
    {
      RivTapEvent *a = events->pdata[i];
      RivTapEvent *b = again->pdata[i];

      RIV_FUZZ_CHECK (a->kind == b->kind && a->stream == b->stream && a->id == b->id &&
                      a->status == b->status && a->end == b->end, "event %u changed", i);
    }
  check_events (again);

  second_text = write_back (again, &second_len);
  third = riv_transcript_parse (second_text, second_len, NULL);
  RIV_FUZZ_CHECK (third != NULL && third->len == events->len, "the second pass does not read back");
  /* A cut body's "size" counts what the first writer saw; later passes see the kept part. */
  if (strstr (first_text, "\"cut\":true") == NULL)
    RIV_FUZZ_CHECK (first_len == second_len && memcmp (first_text, second_text, first_len) == 0,
                    "writing is not stable:\n%s\n%s", first_text, second_text);
}
