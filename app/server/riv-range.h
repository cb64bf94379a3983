/* riv-range.h
 * Copyright 2026 The Rivulet authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The Range header of a GET /file= request (RFC 9110 §14), read against the
 * file's size into at most a few byte ranges the server can answer without
 * holding more than the file in memory. Pure: no I/O, no allocation; fuzzed
 * (tests/fuzz/fuzz-entry-range.c).
 */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* The most ranges one reply carries, whatever "max-ranges" says. */
#define RIV_RANGE_MAX 64

typedef struct
{
  guint64 start;
  guint64 end;      /* inclusive, < the file's size */
} RivRange;

typedef enum
{
  RIV_RANGE_WHOLE,          /* no usable Range: the whole file, 200 */
  RIV_RANGE_PARTIAL,        /* 206 with the ranges (in the order asked) */
  RIV_RANGE_UNSATISFIABLE,  /* 416: no range starts inside the file */
} RivRangeResult;

/* Reads header (nullable) for a file of size bytes into ranges[], which holds
 * max_ranges entries (clamped to 1..RIV_RANGE_MAX). A header that is not a
 * valid "bytes=" set, asks for more than max_ranges ranges, or asks for
 * ranges that overlap gives RIV_RANGE_WHOLE: the reply is then never larger
 * than the file. On RIV_RANGE_PARTIAL, *n_ranges is 1..max_ranges, every
 * range lies within the file and no two overlap, so their total is at most
 * size. */
RivRangeResult riv_range_parse (const char *header,
                                guint64     size,
                                guint       max_ranges,
                                RivRange   *ranges,
                                guint      *n_ranges);

G_END_DECLS
