/* fuzz-entry-record.c
 * Copyright 2026 The Rivulet authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Input: one line of `rivulet-cli load --output` (a per-job record), as
 * `report merge` reads it.
 *
 * Oracles: riv_load_stats_add_record() either counts the record or sets an
 * error, never both and never neither; a refused record changes nothing (no
 * job, no gap, no stall); a counted one is one job, and its streaming
 * figures are finite and not negative, its gaps those of its histogram, its
 * stalls at most its gaps; the same record counted twice doubles the jobs,
 * gaps and stalls and leaves every percentile where it was. `report
 * compare` takes a record exactly when `report merge` does, and its figures
 * of it are finite. The record's brief (what a load worker sends its parent
 * instead, riv-job-record.h) reads back and counts the same, to the bit.
 */
#include "config.h"

#include <math.h>

#include "fuzz-entry.h"
#include "riv-json.h"
#include "riv-compare.h"
#include "riv-job-record.h"
#include "riv-load-stats.h"
#include "riv-stream-quality.h"

static void
check_finite (const RivLoadSummary *s)
{
  const double values[] = {
    s->first_p50, s->first_p95, s->first_max, s->first_start_p50, s->gap_p50, s->gap_p99,
    s->gap_max, s->job_gap_max_p50, s->delay_p50, s->delay_p99, s->sent_gap_p50,
    s->chars_per_s, s->words_per_s,
  };

  for (guint i = 0; i < G_N_ELEMENTS (values); i++)
    RIV_FUZZ_CHECK (isfinite (values[i]) && values[i] >= 0, "figure %u is %g", i, values[i]);
  RIV_FUZZ_CHECK (s->gap_p50 <= s->gap_p99 + 1e-12 && s->gap_p99 <= s->gap_max + 1e-12,
                  "gaps p50 %g p99 %g max %g", s->gap_p50, s->gap_p99, s->gap_max);
}

static void
check_compare (JsonObject *record,
               gboolean    counted)
{
  g_autoptr(RivCompare) compare = riv_compare_new ();
  g_autoptr(GError) error = NULL;
  gboolean ok = riv_compare_add_record (compare, 0, record, &error);
  guint n = 0;
  const RivCompareFigure *figures;

  RIV_FUZZ_CHECK (ok == (error == NULL), "compare: taken %d with error %s", ok,
                  error != NULL ? error->message : "none");
  RIV_FUZZ_CHECK (ok == counted, "compare took it %d, merge %d", ok, counted);
  RIV_FUZZ_CHECK (riv_compare_get_jobs (compare, 0, 0) == (ok ? 1 : 0), "compare: jobs");
  riv_compare_add_record (compare, 1, record, NULL);
  figures = riv_compare_get_figures (compare, 0, &n);
  for (guint i = 0; i < n; i++)
    for (guint run = 0; run < 2; run++)
      RIV_FUZZ_CHECK (!figures[i].known[run] || isfinite (figures[i].value[run]),
                      "compare: %s is %g", figures[i].name, figures[i].value[run]);
}

/* The record as a brief, read back: the same summary as the record's. */
static void
check_brief (JsonObject           *record,
             const RivLoadSummary *once)
{
  g_autoptr(RivLoadStats) stats = riv_load_stats_new ();
  g_autoptr(GString) line = g_string_new (NULL);
  g_autoptr(GError) error = NULL;
  RivLoadRecord read;
  RivLoadSummary brief;
  guint scenario = 0;

  RIV_FUZZ_CHECK (riv_load_record_read (&read, record, RIV_STREAM_STALL_DEFAULT_S, NULL),
                  "read once, not twice");
  riv_load_record_write_brief (line, &read, 5);
  riv_load_record_clear (&read);
  RIV_FUZZ_CHECK (riv_load_record_read_brief (&read, line->str, RIV_STREAM_STALL_DEFAULT_S,
                                              &scenario, &error),
                  "its brief refused: %s", error->message);
  RIV_FUZZ_CHECK (scenario == 5, "scenario %u", scenario);
  riv_load_stats_add_read (stats, &read);
  riv_load_record_clear (&read);
  riv_load_stats_summarize (stats, &brief);
  RIV_FUZZ_CHECK (memcmp (once, &brief, sizeof brief) == 0, "its brief counts otherwise");
}

void
riv_fuzz_record (const guint8 *data,
                 gsize         size)
{
  g_autoptr(JsonNode) node = riv_json_parse (NULL, (const char *) data, (gssize) size, 64, NULL);
  g_autoptr(RivLoadStats) stats = riv_load_stats_new ();
  g_autoptr(GError) error = NULL;
  RivLoadSummary once, twice;
  gboolean ok;

  if (node == NULL || !JSON_NODE_HOLDS_OBJECT (node))
    return;
  ok = riv_load_stats_add_record (stats, json_node_get_object (node), &error);
  check_compare (json_node_get_object (node), ok);
  RIV_FUZZ_CHECK (ok == (error == NULL), "counted %d with error %s", ok,
                  error != NULL ? error->message : "none");
  riv_load_stats_summarize (stats, &once);
  if (!ok)
    {
      RIV_FUZZ_CHECK (riv_load_stats_get_n_jobs (stats) == 0 && once.gaps == 0 &&
                      once.stalls == 0 && once.stamped == 0, "a refused record was counted");
      return;
    }
  RIV_FUZZ_CHECK (riv_load_stats_get_n_jobs (stats) == 1, "%" G_GUINT64_FORMAT " jobs",
                  riv_load_stats_get_n_jobs (stats));
  check_finite (&once);
  check_brief (json_node_get_object (node), &once);
  RIV_FUZZ_CHECK (once.gaps == riv_sketch_get_count (riv_load_stats_get_gaps (stats)),
                  "gaps %" G_GUINT64_FORMAT, once.gaps);

  RIV_FUZZ_CHECK (riv_load_stats_add_record (stats, json_node_get_object (node), NULL),
                  "the same record refused the second time");
  riv_load_stats_summarize (stats, &twice);
  RIV_FUZZ_CHECK (twice.submitted == 2 * once.submitted && twice.gaps == 2 * once.gaps &&
                  twice.stalls == 2 * once.stalls && twice.stamped == 2 * once.stamped,
                  "twice: %" G_GUINT64_FORMAT " jobs, %" G_GUINT64_FORMAT " gaps",
                  twice.submitted, twice.gaps);
  RIV_FUZZ_CHECK (twice.gap_p50 == once.gap_p50 && twice.gap_p99 == once.gap_p99 &&
                  twice.first_p50 == once.first_p50 && twice.delay_p99 == once.delay_p99,
                  "a percentile moved when the same record came again");
}
