/* riv-report.h
 * Copyright 2026 The Rivulet authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The HTML report of a load run: one self-contained page (inline SVG and
 * CSS, no scripts, nothing fetched) with throughput, latency percentiles,
 * in flight and queued, and users over time; a latency histogram; a
 * batch-size histogram; errors grouped by text; thresholds; with scenarios,
 * each one's throughput and latency over time and its figures; the run's
 * parameters and the server's version. No GTK: the CLI and the window share it.
 */
#pragma once

#include "riv-load-stats.h"

G_BEGIN_DECLS

/* params: NULL-terminated name, value, name, value, … (shown as given).
 * server_version nullable. thresholds: n_thresholds of them, nullable when 0. */
char *riv_report_html (RivLoadStats            *stats,
                       const char              *server_version,
                       const char * const      *params,
                       RivLoadThreshold * const *thresholds,
                       guint                    n_thresholds);

/* What riv_report_html_for () shows besides the run's statistics; every
 * member may be NULL (0). */
typedef struct
{
  const char               *server_version;
  const char * const       *params;           /* as riv_report_html () takes them */
  RivLoadThreshold * const *thresholds;
  RivLoadStats * const     *threshold_stats;  /* the jobs each threshold is checked on (its
                                                 tag's); NULL, or a NULL entry: the run's */
  guint                     n_thresholds;
  const char * const       *scenario_names;   /* n_scenarios of them, with their statistics */
  RivLoadStats * const     *scenario_stats;
  guint                     n_scenarios;
} RivReportInput;

char *riv_report_html_for (RivLoadStats         *stats,
                           const RivReportInput *input);

G_END_DECLS
