/* riv-job-stream.h
 * Copyright 2026 The Rivulet authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * A job's streaming figures, kept for RivJob (riv-job.c) and private to this
 * folder: the gaps between its generating updates, and with the server's
 * stamps (rivulet-cli serve --stamp) the gaps it sent them at, how long each
 * took to be handled here and how long the server held it; and the rate a
 * streamed text grew at. A job makes one at its second generating update, so
 * a job that never streams costs nothing. Main thread only, like RivJob.
 */
#pragma once

#include <glib.h>

#include "riv-sketch.h"

G_BEGIN_DECLS

typedef struct _RivJobStream RivJobStream;

RivJobStream    *riv_job_stream_new           (void);
void             riv_job_stream_free          (RivJobStream       *self);
/* Counts one generating update: its gap since the last one (negative:
 * none, the first), and when stamped (sent_at > 0) made_at (0 unknown) and
 * sent_at, the server's wall clock, and handled_at ours, all Unix seconds.
 * TRUE when the gap is the job's first or a new largest one. */
gboolean         riv_job_stream_add_update    (RivJobStream       *self,
                                               double              gap,
                                               double              made_at,
                                               double              sent_at,
                                               double              handled_at);
guint            riv_job_stream_get_n_gaps    (const RivJobStream *self);
double           riv_job_stream_get_max_gap   (const RivJobStream *self);
const RivSketch *riv_job_stream_get_gaps      (RivJobStream       *self);
/* These three are NULL until a stamped update. */
const RivSketch *riv_job_stream_get_sent_gaps (RivJobStream       *self);
const RivSketch *riv_job_stream_get_delays    (RivJobStream       *self);
const RivSketch *riv_job_stream_get_holds     (RivJobStream       *self);

/* Words as a reader counts them: runs of characters between white space. */
guint32          riv_job_stream_count_words   (const char         *text);
/* How fast a text grew, from (first_chars, first_words) at first_at to text
 * at last_at, in characters and words per second; FALSE (and -1s) when it
 * did not grow over a time that passed. */
gboolean         riv_job_stream_text_rate     (double              first_at,
                                               guint32             first_chars,
                                               guint32             first_words,
                                               double              last_at,
                                               const char         *text,
                                               double             *chars_per_s,
                                               double             *words_per_s);

G_END_DECLS
