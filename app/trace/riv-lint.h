/* riv-lint.h
 * Copyright 2026 The Rivulet authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Protocol rules checked over a session's events (riv-transcript.h), fed
 * live from a client's tap, from a transcript or from a replay. Each rule has
 * a kebab-case id:
 *
 *   unknown-event          a message for an event id no join returned
 *   after-completion       a message for an event after its process_completed
 *                          (a trailing progress is allowed, as Gradio sends it)
 *   duplicate-completion   a second process_completed for one event
 *   close-while-pending    close_stream while the session has jobs still pending
 *                          (the #7921 class)
 *   eof-without-close      the server ended a stream without close_stream
 *   missing-process-starts process_generating or a completion without process_starts
 *                          (cancelled and cached results are exempt)
 *   rank-increased         a waiting job's rank went up
 *   bad-diff-path          a streamed diff whose path is not in the value
 *   heartbeat-gap          a stream silent for over twice the heartbeat interval
 *   batch-inconsistent     members of one announced batch disagree on its size
 *   bad-frame              a frame that is not a queue message (not JSON, no msg)
 *   stream-buffered        a job's updates arrived in one clump at its end, far
 *                          faster than the server's timing says it made them (a
 *                          proxy compressing or buffering the stream)
 */
#pragma once

#include <json-glib/json-glib.h>

#include "riv-transcript.h"

G_BEGIN_DECLS

#define RIV_LINT_DEFAULT_HEARTBEAT 15.0
/* Findings kept at most; later ones are counted only. */
#define RIV_LINT_MAX_FINDINGS 1000

typedef struct
{
  const char *rule;       /* static: one of riv_lint_get_rules() */
  char       *event_id;   /* nullable: stream- or session-wide findings */
  char       *message;
  double      t;          /* seconds from the origin */
} RivLintFinding;

typedef struct _RivLint RivLint;

/* NULL-terminated list of every rule id. */
const char * const *riv_lint_get_rules        (void);

RivLint    *riv_lint_new                       (void);
void        riv_lint_free                      (RivLint                  *self);
/* Findings' t counts from origin (default 0: a transcript's own times). */
void        riv_lint_set_origin                (RivLint                  *self,
                                                double                    origin);
/* The server's heartbeat interval in seconds. 0 (default): the shortest
 * spacing of heartbeats seen on one stream, else RIV_LINT_DEFAULT_HEARTBEAT. */
void        riv_lint_set_heartbeat_interval    (RivLint                  *self,
                                                double                    seconds);
void        riv_lint_feed                      (RivLint                  *self,
                                                const RivTapEvent *event);
/* A RivTapFunc: user_data is the lint. */
void        riv_lint_tap                       (const RivTapEvent *event,
                                                gpointer                  user_data);
/* Ends the session at time t (same clock as the events): open streams are
 * checked for silence up to t, ids no join named are reported. Call once. */
void        riv_lint_finish                    (RivLint                  *self,
                                                double                    t);
/* Borrowed, RivLintFinding *, in the order found. */
GPtrArray  *riv_lint_get_findings              (RivLint                  *self);
/* Findings past RIV_LINT_MAX_FINDINGS that were dropped. */
guint       riv_lint_get_n_dropped             (RivLint                  *self);
/* Jobs and batches it still holds: those of the last seconds (a completed
 * job a join named is forgotten 10 s after its completion), not every one. */
guint       riv_lint_get_n_held                (RivLint                  *self);
/* [{"rule", "event_id", "message", "t"}, …] */
JsonNode   *riv_lint_findings_to_json          (RivLint                  *self);

/* Lints a whole transcript (finishing at its last event). */
RivLint    *riv_lint_run_transcript            (GPtrArray                *events,
                                                double                    heartbeat_interval);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (RivLint, riv_lint_free)

G_END_DECLS
