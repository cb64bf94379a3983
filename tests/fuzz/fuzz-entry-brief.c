/* fuzz-entry-brief.c
 * Copyright 2026 The Rivulet authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Input: one line a load worker process sends its parent, a brief record
 * (riv_load_record_read_brief (), riv-job-record.h).
 *
 * Oracles: it is read or refused with an error, never both and never
 * neither; a brief read has an end for its status, its streaming figures
 * finite and not negative (or unknown), its gaps those of its histogram and
 * its stalls at most its gaps; written again it reads back to the same
 * scenario and counts the same (the same summary, to the bit), and that
 * second writing is written again unchanged.
 */
#include "config.h"

#include <math.h>
#include <string.h>

#include "fuzz-entry.h"
#include "riv-job-record.h"
#include "riv-load-stats.h"

static void
check_figure (double      value,
              const char *name)
{
  RIV_FUZZ_CHECK (value == -1 || (isfinite (value) && value >= 0), "%s is %g", name, value);
}

void
riv_fuzz_brief (const guint8 *data,
                gsize         size)
{
  g_autofree char *line = g_strndup ((const char *) data, size);
  g_autoptr(GString) again = g_string_new (NULL);
  g_autoptr(GString) third = g_string_new (NULL);
  g_autoptr(RivLoadStats) first_stats = riv_load_stats_new ();
  g_autoptr(RivLoadStats) again_stats = riv_load_stats_new ();
  g_autoptr(GError) error = NULL;
  g_autofree char *copy = NULL;
  RivLoadRecord read, reread;
  RivLoadSummary a, b;
  guint scenario = 0, scenario2 = 0;
  gboolean ok;

  ok = riv_load_record_read_brief (&read, line, 1.0, &scenario, &error);
  RIV_FUZZ_CHECK (ok == (error == NULL), "read %d with error %s", ok,
                  error != NULL ? error->message : "none");
  if (!ok)
    return;

  RIV_FUZZ_CHECK (RIV_JOB_STATUS_IS_TERMINAL (read.status), "status %d", read.status);
  check_figure (read.stream.first_s, "first_s");
  check_figure (read.stream.first_start_s, "first_start_s");
  check_figure (read.stream.chars_per_s, "chars_per_s");
  check_figure (read.stream.words_per_s, "words_per_s");
  check_figure (read.stream.gap_max, "gap_max");
  RIV_FUZZ_CHECK (read.stream.n_gaps == MIN (riv_sketch_get_count (read.stream.gaps), G_MAXUINT),
                  "%u gaps", read.stream.n_gaps);
  RIV_FUZZ_CHECK (read.stream.n_gaps == 0 || read.stream.stalls <= read.stream.n_gaps,
                  "%u stalls of %u gaps", read.stream.stalls, read.stream.n_gaps);

  riv_load_record_write_brief (again, &read, scenario);
  RIV_FUZZ_CHECK (strchr (again->str, '\n') == NULL, "a line break in %s", again->str);
  copy = g_strdup (again->str);
  RIV_FUZZ_CHECK (riv_load_record_read_brief (&reread, copy, 1.0, &scenario2, &error),
                  "written again, refused: %s", error->message);
  RIV_FUZZ_CHECK (scenario2 == scenario, "scenario %u, then %u", scenario, scenario2);
  riv_load_record_write_brief (third, &reread, scenario2);
  RIV_FUZZ_CHECK (strcmp (third->str, again->str) == 0, "%s, then %s", again->str, third->str);

  riv_load_stats_add_read (first_stats, &read);
  riv_load_stats_add_read (again_stats, &reread);
  riv_load_stats_summarize (first_stats, &a);
  riv_load_stats_summarize (again_stats, &b);
  RIV_FUZZ_CHECK (memcmp (&a, &b, sizeof a) == 0, "written again, it counts otherwise: %s",
                  again->str);
  riv_load_record_clear (&read);
  riv_load_record_clear (&reread);
}
