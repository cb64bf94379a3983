/* riv-load-break.h
 * Copyright 2026 The Rivulet authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * What riv-load-run.c needs to name a breaking point (riv-load-break.c):
 * the class of a failed or lost job from its error text, and the class in
 * plain words. Not API.
 */
#pragma once

#include "riv-load-run.h"

G_BEGIN_DECLS

/* In order of how much a class says: a run's breakpoint is named by its
 * first failure unless that is a bare FAILED or LOST and a later failure
 * says more. */
typedef enum
{
  RIV_BREAK_FAILED,
  RIV_BREAK_LOST,
  RIV_BREAK_THRESHOLD,
  RIV_BREAK_DROPPED,         /* connections cut */
  RIV_BREAK_TIMEOUT,
  RIV_BREAK_REFUSED,         /* connection refused */
  RIV_BREAK_QUEUE_FULL,
  RIV_BREAK_QUEUE_STOPPED,   /* Gradio's "Queue is stopped" / "Server stopped unexpectedly" */
  RIV_BREAK_ZEROGPU_QUOTA,   /* a Space's ZeroGPU quota or limit (riv_load_error_class ()) */
  RIV_BREAK_N_KINDS
} RivBreakKind;

RivBreakKind  _riv_load_break_classify (RivJobStatus              status,
                                        const char               *error);
/* kind in plain words, with the numbers it needs; error: the first failure's text. */
char         *_riv_load_break_reason   (RivBreakKind              kind,
                                        const RivLoadBreakpoint  *breakpoint,
                                        const char               *error);

G_END_DECLS
