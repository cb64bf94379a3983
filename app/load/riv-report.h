/* riv-report.h
 * Copyright 2026 The Rivulet authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The HTML report of a load run: one self-contained page (inline SVG and
 * CSS, no scripts, nothing fetched) with throughput, latency percentiles,
 * in flight and queued, and users over time; a latency histogram; a
 * batch-size histogram; errors grouped by text; thresholds; the run's
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

G_END_DECLS
