/* riv-load-page.h
 * Copyright 2026 The Rivulet authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The Load mode's page: virtual users (RivLoadRun) against an endpoint with
 * a template of inputs, as its RivLoadSettings say, live charts of each
 * second's sample, and "Save Report" (the HTML of rivulet-cli load --report).
 *
 * Properties: "client" (RivClient, nullable: what a run submits to),
 * "settings" (RivLoadSettings, nullable: read when a run starts),
 * "running" (read-only). Signal: "toast" (const char *message), a message
 * for the user.
 */
#pragma once

#include <adwaita.h>

#include "riv-chart.h"
#include "riv-client.h"
#include "riv-load-run.h"
#include "riv-load-settings.h"
#include "riv-metrics.h"

G_BEGIN_DECLS

typedef enum
{
  RIV_LOAD_CHART_THROUGHPUT,   /* completed/s, failed/s */
  RIV_LOAD_CHART_LATENCY,      /* p50, p95 */
  RIV_LOAD_CHART_IN_FLIGHT,    /* in flight, queued */
  RIV_LOAD_CHART_USERS,        /* active users */
  RIV_LOAD_CHART_BATCHES,      /* batch-size histogram (bars) */
  RIV_LOAD_CHART_FIRST,        /* time to first update: p50, p95 */
  RIV_LOAD_N_CHARTS
} RivLoadChart;

#define RIV_TYPE_LOAD_PAGE (riv_load_page_get_type ())
G_DECLARE_FINAL_TYPE (RivLoadPage, riv_load_page, RIV, LOAD_PAGE, AdwBin)

GtkWidget       *riv_load_page_new                (void);
void             riv_load_page_set_client         (RivLoadPage          *self,
                                                   RivClient            *client);
RivClient       *riv_load_page_get_client         (RivLoadPage          *self);
void             riv_load_page_set_settings       (RivLoadPage          *self,
                                                   RivLoadSettings      *settings);
RivLoadSettings *riv_load_page_get_settings       (RivLoadPage          *self);
gboolean         riv_load_page_get_running        (RivLoadPage          *self);
/* Starts a run of endpoint_name with data (a JSON array, the form's inputs).
 * FALSE (with a "toast" where the user can fix it) when it cannot start. */
gboolean         riv_load_page_start              (RivLoadPage          *self,
                                                   const char           *endpoint_name,
                                                   JsonNode             *data);
void             riv_load_page_stop               (RivLoadPage          *self);
/* The newest run (nullable), running or finished. */
RivLoadRun      *riv_load_page_get_run            (RivLoadPage          *self);
/* The newest run's /metrics (the metrics-address preference), or NULL. */
RivMetrics      *riv_load_page_get_metrics        (RivLoadPage          *self);
RivChart        *riv_load_page_get_chart          (RivLoadPage          *self,
                                                   RivLoadChart          chart);
/* "Start a load test…" while none ran, then the newest run's figures. */
const char      *riv_load_page_get_summary        (RivLoadPage          *self);
/* The next runs' jobs take these (JsonNode * arrays) in turn instead of the
 * data riv_load_page_start () is given: the endpoint's examples. NULL: the data. */
void             riv_load_page_set_examples       (RivLoadPage          *self,
                                                   GPtrArray            *examples);
/* The results card of the run that ended, a line a figure ("latency p95 0.12 s");
 * empty while none is shown. */
char            *riv_load_page_dup_results        (RivLoadPage          *self);
/* Two columns of charts, or one on a narrow window. */
void             riv_load_page_set_narrow         (RivLoadPage          *self,
                                                   gboolean              narrow);
/* What "Save Report" does once a file is chosen: the report of the newest
 * run, written asynchronously. */
void             riv_load_page_save_report_async  (RivLoadPage          *self,
                                                   GFile                *file,
                                                   GAsyncReadyCallback   callback,
                                                   gpointer              user_data);
gboolean         riv_load_page_save_report_finish (RivLoadPage          *self,
                                                   GAsyncResult         *result,
                                                   GError              **error);

G_END_DECLS
