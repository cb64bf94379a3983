/* fuzz-entry-range.c
 * Copyright 2026 The Rivulet authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * riv_range_parse(), the server's reader of a GET /file= Range header.
 *
 * Input: byte 0 gives max_ranges (1 + byte % RIV_RANGE_MAX), byte 1 a shift,
 * bytes 2-9 a little-endian 64-bit size shifted right by it (so that small
 * files come up often), the rest the header (up to a NUL, which no header
 * carries). Shorter inputs are skipped.
 *
 * Oracles:
 *  - partial: 1 to max_ranges ranges, each start <= end < size, no two
 *    overlapping, their total at most size: the reply is never larger than
 *    the file, whatever the header says;
 *  - unsatisfiable only for a non-empty file, whole and unsatisfiable with
 *    no ranges;
 *  - the accepted ranges written back as "bytes=s-e,…" read back the same;
 *  - leading whitespace and the unit's case change nothing.
 */
#include "config.h"

#include <string.h>

#include "fuzz-entry.h"
#include "riv-range.h"

#define INPUT_HEAD 10

static void
check_result (RivRangeResult  result,
              const RivRange *ranges,
              guint           n,
              guint64         size,
              guint           max_ranges)
{
  guint64 total = 0;

  if (result != RIV_RANGE_PARTIAL)
    {
      RIV_FUZZ_CHECK (n == 0, "%u ranges without a partial result", n);
      RIV_FUZZ_CHECK (result != RIV_RANGE_UNSATISFIABLE || size > 0, "an empty file unsatisfiable");
      return;
    }
  RIV_FUZZ_CHECK (n >= 1 && n <= max_ranges, "%u ranges of at most %u", n, max_ranges);
  for (guint i = 0; i < n; i++)
    {
      RIV_FUZZ_CHECK (ranges[i].start <= ranges[i].end && ranges[i].end < size,
                      "range %u is %" G_GUINT64_FORMAT "-%" G_GUINT64_FORMAT " of %"
                      G_GUINT64_FORMAT, i, ranges[i].start, ranges[i].end, size);
      for (guint j = i + 1; j < n; j++)
        RIV_FUZZ_CHECK (ranges[i].end < ranges[j].start || ranges[j].end < ranges[i].start,
                        "ranges %u and %u overlap", i, j);
      total += ranges[i].end - ranges[i].start + 1;
    }
  RIV_FUZZ_CHECK (total <= size, "%" G_GUINT64_FORMAT " bytes of a %" G_GUINT64_FORMAT
                  "-byte file", total, size);
}

void
riv_fuzz_range (const guint8 *data,
                gsize         size)
{
  RivRange ranges[RIV_RANGE_MAX], again[RIV_RANGE_MAX];
  guint n = 0, n_again = 0, max_ranges;
  guint64 file_size = 0;
  g_autofree char *header = NULL;
  g_autofree char *padded = NULL;
  g_autoptr(GString) written = NULL;
  RivRangeResult result;

  if (size < INPUT_HEAD)
    return;
  max_ranges = 1 + data[0] % RIV_RANGE_MAX;
  for (guint i = 0; i < 8; i++)
    file_size |= (guint64) data[2 + i] << (8 * i);
  file_size >>= data[1] % 64;
  header = g_strndup ((const char *) data + INPUT_HEAD, size - INPUT_HEAD);

  result = riv_range_parse (header, file_size, max_ranges, ranges, &n);
  check_result (result, ranges, n, file_size, max_ranges);

  padded = g_strconcat (" \t", header, NULL);
  if (g_ascii_strncasecmp (header, "bytes", 5) == 0)
    memcpy (padded + 2, "ByTeS", 5);
  RIV_FUZZ_CHECK (riv_range_parse (padded, file_size, max_ranges, again, &n_again) == result &&
                  n_again == n && memcmp (again, ranges, n * sizeof (RivRange)) == 0,
                  "leading whitespace or the unit's case changed the result of %.200s", header);

  if (result != RIV_RANGE_PARTIAL)
    return;
  written = g_string_new ("bytes=");
  for (guint i = 0; i < n; i++)
    g_string_append_printf (written, "%s%" G_GUINT64_FORMAT "-%" G_GUINT64_FORMAT,
                            i > 0 ? "," : "", ranges[i].start, ranges[i].end);
  RIV_FUZZ_CHECK (riv_range_parse (written->str, file_size, max_ranges, again, &n_again) ==
                  RIV_RANGE_PARTIAL && n_again == n &&
                  memcmp (again, ranges, n * sizeof (RivRange)) == 0,
                  "%s does not read back as itself", written->str);
}
