/* riv-metrics.h
 * Copyright 2026 The Rivulet authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Live metrics of a load run for Prometheus: `rivulet-cli load --metrics
 * ADDR:PORT` and the window's preference serve them at /metrics in the
 * Prometheus text format (or OpenMetrics, when the scraper asks for it),
 * from a thread of their own, so a scrape never waits for the run's main
 * context and the run never waits for a scrape. Updates are thread-safe.
 */
#pragma once

#include <gio/gio.h>

#include "riv-sketch.h"
#include "riv-types.h"

G_BEGIN_DECLS

typedef struct _RivMetrics RivMetrics;

RivMetrics *riv_metrics_new             (void);
/* Reference counted: a run holds one while it feeds the metrics; the last
 * unref stops the server and joins its thread. */
RivMetrics *riv_metrics_ref             (RivMetrics   *self);
void        riv_metrics_unref           (RivMetrics   *self);

/* Serves /metrics on address ("127.0.0.1:9464", "[::1]:9464", "localhost:0"
 * or just a port, which means 127.0.0.1; port 0 picks a free one). FALSE,
 * naming the address, when it cannot be read or bound (e.g. the port is
 * taken). A name other than localhost is refused: no lookup is made. */
gboolean    riv_metrics_listen          (RivMetrics   *self,
                                         const char   *address,
                                         GError      **error);
/* Whether the address it listens on is a loopback one. */
gboolean    riv_metrics_is_loopback     (RivMetrics   *self);
/* "http://127.0.0.1:9464/metrics", or NULL before riv_metrics_listen(). */
const char *riv_metrics_get_url         (RivMetrics   *self);

/* The jobs' series by scenario (names: NULL-terminated, in order; NULL or
 * empty: the run's series alone, without a label), each with a label
 * scenario="NAME"; the run's figures are then the sums of theirs. Clears
 * what the scenarios had counted. */
void        riv_metrics_set_scenarios   (RivMetrics         *self,
                                         const char * const *names);
/* scenario: 0 none, k the k-th of riv_metrics_set_scenarios (). */
void        riv_metrics_add_submitted   (RivMetrics   *self,
                                         guint         scenario);
/* A job that ended; durations < 0 are unknown (a lost job has no latency). */
void        riv_metrics_add_job         (RivMetrics   *self,
                                         guint         scenario,
                                         RivJobStatus  status,
                                         double        queued_s,
                                         double        latency_s);
/* Its streaming figures: time to first update (< 0 none) and gaps of a
 * completed job, and its stalls whatever its outcome. */
void        riv_metrics_add_stream      (RivMetrics      *self,
                                         guint            scenario,
                                         RivJobStatus     status,
                                         double           first_s,
                                         const RivSketch *gaps,
                                         guint            stalls);
void        riv_metrics_set_gauges      (RivMetrics   *self,
                                         guint         users,
                                         guint         in_flight,
                                         guint         open_streams);
/* Running totals of every client of the run: stream messages and bytes. */
void        riv_metrics_set_received    (RivMetrics   *self,
                                         guint64       messages,
                                         guint64       bytes);
/* The lint's findings of one rule so far (rules set to 0 show from the start). */
void        riv_metrics_set_lint        (RivMetrics   *self,
                                         const char   *rule,
                                         guint64       findings);
/* The run is over and its last values are set: from now on a scrape takes
 * them. Returns how long to keep serving for the scraper to come once more:
 * twice the interval between its last two scrapes plus a second (at most a
 * minute), 0 when nothing scraped twice. */
double      riv_metrics_set_final       (RivMetrics   *self);
/* Every scraper (by User-Agent) that came twice or more came after
 * riv_metrics_set_final(). */
gboolean    riv_metrics_final_scraped   (RivMetrics   *self);
/* The page a scrape gets; openmetrics: OpenMetrics 1.0 instead of the
 * Prometheus text format 0.0.4. */
char       *riv_metrics_render          (RivMetrics   *self,
                                         gboolean      openmetrics);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (RivMetrics, riv_metrics_unref)

G_END_DECLS
