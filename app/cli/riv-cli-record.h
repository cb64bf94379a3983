/* riv-cli-record.h
 * Copyright 2026 The Rivulet authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * What `rivulet-cli load` records and lints of its session: --record FILE
 * [--record-max MB] writes the transcript (riv-transcript.h), and --json
 * (or `rivulet-cli lint`) runs the lint (riv-lint.h) over the same events.
 * One run per process; each of its clients (virtual users) is tapped.
 */
#pragma once

#include <stdio.h>

#include <json-glib/json-glib.h>

#include "riv-client.h"
#include "riv-lint.h"
#include "riv-metrics.h"

G_BEGIN_DECLS

/* The --record and --record-max options, for the load command's context. */
const GOptionEntry *riv_cli_record_get_entries  (void);
/* Lint mode (`rivulet-cli lint`): the lint runs, its findings are printed
 * by riv_cli_record_finish() and the load's summary goes to stderr. */
void                riv_cli_record_set_lint_mode (double        heartbeat_interval);
/* Taps client: opens the recording when --record was given and starts the
 * lint when lint is TRUE or in lint mode. FALSE with an error for a file
 * that cannot be written or a bad --record-max. */
gboolean            riv_cli_record_attach       (RivClient    *client,
                                                 gboolean      lint,
                                                 GError      **error);
/* Taps another client of the same run (a virtual user) into the same
 * recording and lint; its request and stream numbers are moved apart from
 * the other clients'. No-op when nothing is recorded or linted. */
void                riv_cli_record_add_client   (RivClient    *client);
/* --record was given. */
gboolean            riv_cli_record_requested    (void);
/* A transcript or a live lint taps the sessions (riv_cli_record_attach ()). */
gboolean            riv_cli_record_tapping      (void);
/* Where the load's summary goes. */
FILE               *riv_cli_record_summary_out  (FILE         *summary_out);
/* Ends the lint and closes the recording (saying on stderr when it was cut
 * or could not be written). Call after closing the client. Idempotent. */
void                riv_cli_record_finish       (void);
/* Adds "lint": [findings] to a summary object being built, when the lint ran:
 * its own, then more's (nullable: findings of the same shape, a run's worker
 * processes'), ordered by time. */
void                riv_cli_record_add_lint     (JsonBuilder  *builder,
                                                 JsonArray    *more);
/* The live lint runs (--json, --metrics, a worker's --worker-lint). */
gboolean            riv_cli_record_linting      (void);
/* The findings (after finish) as riv_lint_findings_to_json () gives them;
 * NULL when the lint did not run. */
JsonNode           *riv_cli_record_dup_findings (void);
/* Findings so far (after finish), 0 when the lint did not run. */
guint               riv_cli_record_get_n_findings (void);
/* One line per finding (seconds, rule, event id, message), then "N findings". */
void                riv_cli_record_print_findings (RivLint    *lint);
/* Sets the lint's findings so far on metrics, every rule (0 when the lint
 * does not run or found nothing of it), with more's (nullable: findings of
 * the same shape, the ended worker processes'). */
void                riv_cli_record_feed_metrics (RivMetrics   *metrics,
                                                 JsonArray    *more);
/* FALSE when the recording could not be written completely. */
gboolean            riv_cli_record_ok           (void);

G_END_DECLS
