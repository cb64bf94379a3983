/* riv-stream-quality.h
 * Copyright 2026 The Rivulet authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * What the streaming figures call a stall and a clump, in one place: the
 * lint's stream-buffered rule (riv-lint.c) and a load run's clumped jobs
 * (riv-load-stats.c) both ask riv_stream_clumped (). app/docs/streaming.md
 * says what each figure measures.
 */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* A gap between two updates longer than this is a stall (load --stall). */
#define RIV_STREAM_STALL_DEFAULT_S 1.0

/* A clump: at least RIV_STREAM_CLUMP_MIN_UPDATES updates that took the
 * server at least RIV_STREAM_CLUMP_MIN_WORK_S to make arrived in under
 * RIV_STREAM_CLUMP_SHARE of that time (something held them back and let them
 * through together: a buffering proxy, a slow reader, a busy loop). */
#define RIV_STREAM_CLUMP_MIN_UPDATES 3
#define RIV_STREAM_CLUMP_MIN_WORK_S  0.5
#define RIV_STREAM_CLUMP_SHARE       0.25

/* n_updates updates that the server made over work_s seconds and that
 * arrived over span_s seconds. */
static inline gboolean
riv_stream_clumped (guint  n_updates,
                    double work_s,
                    double span_s)
{
  return n_updates >= RIV_STREAM_CLUMP_MIN_UPDATES && work_s >= RIV_STREAM_CLUMP_MIN_WORK_S &&
         span_s < RIV_STREAM_CLUMP_SHARE * work_s;
}

G_END_DECLS
