/* fuzz-entry-load-options.c
 * Copyright 2026 The Rivulet authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Input: one `--threshold`, `--stages` or `--arrival-stages` argument (up to
 * the first NUL, as argv carries it); every parser reads it.
 *
 * Oracles for --threshold: riv_load_threshold_parse() either returns a threshold or sets an
 * error saying which threshold it refused, never both and never neither; a
 * valid UTF-8 argument gets a valid UTF-8 message. A parsed threshold keeps
 * its text, parses again from it, checks any summary without a warning, and
 * formats any measured value (NaN and infinities included) as valid UTF-8.
 *
 * Oracles for --stages: riv_load_parse_stages() either returns stages or an
 * error naming --stages, never both; every stage lasts a finite, non-negative
 * time and targets at most 1,000,000 users; the stages written back in their
 * notation (the report shows them) parse again to the same schedule.
 */
#include "config.h"

#include <math.h>
#include <string.h>

#include "fuzz-entry.h"
#include "riv-arrivals.h"
#include "riv-load-run.h"
#include "riv-compare.h"
#include "riv-load-stats.h"

static void
check_stages (const char *text)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GArray) stages = NULL;
  g_autoptr(GArray) again = NULL;
  g_autofree char *written = NULL;

  if (!riv_load_parse_stages (text, &stages, &error))
    {
      RIV_FUZZ_CHECK (error != NULL, "stages refused without an error");
      RIV_FUZZ_CHECK (g_str_has_prefix (error->message, "--stages"), "message %s", error->message);
      if (g_utf8_validate (text, -1, NULL))
        RIV_FUZZ_CHECK (g_utf8_validate (error->message, -1, NULL), "message not UTF-8");
      return;
    }
  RIV_FUZZ_CHECK (error == NULL && stages != NULL, "stages parsed, yet an error or nothing");
  for (guint i = 0; i < stages->len; i++)
    {
      const RivLoadStage *stage = &g_array_index (stages, RivLoadStage, i);

      RIV_FUZZ_CHECK (isfinite (stage->seconds) && stage->seconds >= 0, "stage %u lasts %g s",
                      i + 1, stage->seconds);
      RIV_FUZZ_CHECK (stage->target <= 1000000, "stage %u targets %u", i + 1, stage->target);
    }
  written = riv_load_format_stages (stages);
  RIV_FUZZ_CHECK (riv_load_parse_stages (written, &again, NULL), "\"%s\" does not parse again",
                  written);
  RIV_FUZZ_CHECK (again->len == stages->len, "\"%s\": %u stages, not %u", written, again->len,
                  stages->len);
  for (guint i = 0; i < stages->len; i++)
    {
      const RivLoadStage *a = &g_array_index (stages, RivLoadStage, i);
      const RivLoadStage *b = &g_array_index (again, RivLoadStage, i);

      RIV_FUZZ_CHECK (a->target == b->target &&
                      fabs (a->seconds - b->seconds) <= 1e-9 * MAX (1, a->seconds),
                      "\"%s\": stage %u %gs:%u read back as %gs:%u", written, i + 1,
                      a->seconds, a->target, b->seconds, b->target);
    }
}

/* report compare's --threshold: the same oracles, and a parsed one judges
 * an empty comparison as not measured. */
/* --arrival-stages: a schedule whose jobs come in time order, within it,
 * and as many as its integral says (evenly spaced: every whole step of it). */
static void
check_arrival_stages (const char *text)
{
  g_autoptr(GError) error = NULL;
  GArray *stages = NULL;
  RivArrivals *schedule;
  double last = 0, duration, expected;
  guint64 n = 0;

  if (!riv_arrivals_parse_stages (text, &stages, &error))
    {
      RIV_FUZZ_CHECK (error != NULL, "arrival stages refused without an error");
      RIV_FUZZ_CHECK (g_str_has_prefix (error->message, "--arrival-stages"), "message %s",
                      error->message);
      if (g_utf8_validate (text, -1, NULL))
        RIV_FUZZ_CHECK (g_utf8_validate (error->message, -1, NULL), "message not UTF-8");
      return;
    }
  for (guint i = 0; i < stages->len; i++)
    {
      const RivRateStage *stage = &g_array_index (stages, RivRateStage, i);

      RIV_FUZZ_CHECK (isfinite (stage->seconds) && stage->seconds >= 0 &&
                      stage->rate >= 0 && stage->rate <= 100000,
                      "arrival stage %u: %g s to %g jobs/s", i + 1, stage->seconds, stage->rate);
    }
  schedule = riv_arrivals_new_stages (1, stages);
  duration = riv_arrivals_get_duration (schedule);
  expected = riv_arrivals_expected (schedule, duration);
  /* Only schedules short enough to walk in a moment. */
  if (expected <= 20000)
    {
      for (double t; (t = riv_arrivals_next (schedule)) >= 0; n++)
        {
          RIV_FUZZ_CHECK (t >= last - 1e-9 && t < duration, "job %" G_GUINT64_FORMAT
                          " at %g s (after %g, schedule of %g s)", n + 1, t, last, duration);
          last = t;
        }
      RIV_FUZZ_CHECK (fabs ((double) n - ceil (expected)) <= 1 + 1e-6 * expected,
                      "%" G_GUINT64_FORMAT " jobs, the integral is %g", n, expected);
    }
  riv_arrivals_free (schedule);
}

static void
check_compare_threshold (const char *text)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(RivCompareThreshold) threshold = riv_compare_threshold_parse (text, &error);
  g_autoptr(RivCompareThreshold) again = NULL;
  g_autoptr(RivCompare) compare = riv_compare_new ();
  double measured = 0;

  if (threshold == NULL)
    {
      RIV_FUZZ_CHECK (error != NULL, "compare: refused without an error");
      RIV_FUZZ_CHECK (strstr (error->message, "--threshold") != NULL, "compare: message %s",
                      error->message);
      if (g_utf8_validate (text, -1, NULL))
        RIV_FUZZ_CHECK (g_utf8_validate (error->message, -1, NULL), "compare: message not UTF-8");
      return;
    }
  RIV_FUZZ_CHECK (error == NULL, "compare: parsed, yet error %s", error->message);
  RIV_FUZZ_CHECK (strcmp (riv_compare_threshold_get_text (threshold), text) == 0,
                  "compare: text changed");
  again = riv_compare_threshold_parse (text, NULL);
  RIV_FUZZ_CHECK (again != NULL, "compare: its own text does not parse again");
  RIV_FUZZ_CHECK (!riv_compare_threshold_check (threshold, compare, &measured) && isnan (measured),
                  "compare: held on no jobs");
}

void
riv_fuzz_load_options (const guint8 *data,
                       gsize         size)
{
  g_autofree char *text = g_strndup ((const char *) data, size);
  g_autoptr(GError) error = NULL;
  g_autoptr(RivLoadThreshold) threshold = riv_load_threshold_parse (text, &error);
  g_autoptr(RivLoadThreshold) again = NULL;
  const double values[] = { 0, 1, -1, 0.0005, 1e300, NAN, INFINITY, -INFINITY };
  RivLoadSummary summary = { 0 };

  check_stages (text);
  check_arrival_stages (text);
  check_compare_threshold (text);
  if (threshold == NULL)
    {
      RIV_FUZZ_CHECK (error != NULL, "refused without an error");
      RIV_FUZZ_CHECK (strstr (error->message, "threshold") != NULL, "message %s", error->message);
      if (g_utf8_validate (text, -1, NULL))
        RIV_FUZZ_CHECK (g_utf8_validate (error->message, -1, NULL), "message not UTF-8");
      return;
    }
  RIV_FUZZ_CHECK (error == NULL, "parsed, yet error %s", error->message);
  RIV_FUZZ_CHECK (strcmp (riv_load_threshold_get_text (threshold), text) == 0, "text changed");

  again = riv_load_threshold_parse (riv_load_threshold_get_text (threshold), NULL);
  RIV_FUZZ_CHECK (again != NULL, "its own text does not parse again");

  summary.submitted = 10;
  summary.completed = 9;
  summary.failed = 1;
  summary.duration_s = 2;
  summary.throughput_per_s = 4.5;
  summary.p50 = 0.1;
  summary.p95 = 0.5;
  summary.p99 = 1.5;
  summary.max = 2;
  summary.users = 3;
  for (guint i = 0; i < G_N_ELEMENTS (values); i++)
    {
      double measured = -42;
      g_autofree char *shown = riv_load_threshold_format_value (threshold, values[i]);
      gboolean held = riv_load_threshold_check (threshold, &summary, &measured);

      RIV_FUZZ_CHECK (shown != NULL && shown[0] != '\0', "value %g shows as nothing", values[i]);
      RIV_FUZZ_CHECK (g_utf8_validate (shown, -1, NULL), "value %g not UTF-8", values[i]);
      RIV_FUZZ_CHECK (held == riv_load_threshold_check (again, &summary, NULL),
                      "the same threshold judged twice differently");
      RIV_FUZZ_CHECK (measured != -42, "no measured value");
      summary.completed = (guint64) i;
    }
}
