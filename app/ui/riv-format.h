/* riv-format.h
 * Copyright 2026 The Rivulet authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * How the UI words jobs, durations and errors. Shared by the job panel, the
 * output view, the export and the tests.
 */
#pragma once

#include <gio/gio.h>

#include "riv-job.h"

G_BEGIN_DECLS

/* The buckets of the counters strip; every job is in exactly one. */
typedef enum
{
  RIV_BUCKET_WAITING,     /* pending, joining, queued */
  RIV_BUCKET_RUNNING,     /* running, streaming */
  RIV_BUCKET_DONE,
  RIV_BUCKET_FAILED,
  RIV_BUCKET_CANCELLED,
  RIV_BUCKET_LOST,
  RIV_N_BUCKETS
} RivBucket;

/* What went wrong when connecting, as the connect UI shows it. */
typedef enum
{
  RIV_CONNECT_ERROR_NONE,
  RIV_CONNECT_ERROR_BAD_URL,
  RIV_CONNECT_ERROR_UNREACHABLE,
  RIV_CONNECT_ERROR_NOT_GRADIO,
  RIV_CONNECT_ERROR_UNSUPPORTED,
  RIV_CONNECT_ERROR_REFUSED,
  RIV_CONNECT_ERROR_OTHER,
} RivConnectErrorKind;

RivBucket            riv_bucket_for_status        (RivJobStatus  status);
const char          *riv_bucket_label             (RivBucket     bucket);

/* "Queued", "Running", "Done", … (translated). */
const char          *riv_format_status_word       (RivJobStatus  status);
const char          *riv_format_status_icon       (RivJobStatus  status);
/* A CSS class for the status colour: "success", "error", "warning", "accent" or "dim-label". */
const char          *riv_format_status_class      (RivJobStatus  status);

/* "0.42 s", "12.3 s", "2 min 05 s"; "—" for a negative value. */
char                *riv_format_duration          (double        seconds);
/* "3 of 17" or "—". rank is 0-based. */
char                *riv_format_queue             (RivJob       *job);
/* "B12 · 3/16", "B12 · 3/16 ~" when inferred, or "—". */
char                *riv_format_batch             (RivJob       *job);
/* "6/10", "45 %", "done" or "—". */
char                *riv_format_progress          (RivJob       *job);
/* The status line of the output view: "Queued — 3 of 17, about 4 s",
 * "Running — step 6 of 10", "Completed in 2.4 s", or the server's error. */
char                *riv_format_status_line       (RivJob       *job);

/* Turns a connect failure into a kind and a sentence for the user. */
RivConnectErrorKind  riv_format_connect_error     (const GError *error,
                                                   const char   *url,
                                                   char        **message);

G_END_DECLS
