/* riv-transcript-tap.h
 * Copyright 2026 The Rivulet authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Taps clients (riv_client_set_tap) into one recording and their lints:
 * what `rivulet-cli load --record` / `lint` and the window's "Record Session"
 * share. Every tapped client's events go to the writer (when one is set) and
 * to the lint it was added with; the request ids and stream numbers of the
 * n-th client added are moved apart from the others', so that several
 * clients (virtual users, or the window's successive connections) never mix
 * in one transcript. Runs on the clients' context; the writer writes on its
 * own thread.
 */
#pragma once

#include "riv-client.h"
#include "riv-lint.h"
#include "riv-transcript.h"

G_BEGIN_DECLS

typedef struct _RivTranscriptTap RivTranscriptTap;

RivTranscriptTap    *riv_transcript_tap_new            (void);
/* Untaps every client; a writer still set is closed (waiting for its thread). */
void                 riv_transcript_tap_free           (RivTranscriptTap  *self);
/* Takes writer (nullable). A writer already set is replaced only after
 * riv_transcript_tap_steal_writer(). */
void                 riv_transcript_tap_set_writer     (RivTranscriptTap  *self,
                                                        RivTranscriptWriter *writer);
RivTranscriptWriter *riv_transcript_tap_get_writer     (RivTranscriptTap  *self);
/* The writer, no longer fed; close it (riv_transcript_writer_close). The
 * next writer hears every client again (riv_transcript_tap_write_only). */
RivTranscriptWriter *riv_transcript_tap_steal_writer   (RivTranscriptTap  *self);
/* Taps client (a reference is kept); its events also go to lint (nullable,
 * borrowed: it must outlive the client's tap). Adding a client twice changes
 * only its lint. */
void                 riv_transcript_tap_add_client     (RivTranscriptTap  *self,
                                                        RivClient         *client,
                                                        RivLint           *lint);
/* Untaps client (nullable, or not tapped: no-op). */
void                 riv_transcript_tap_remove_client  (RivTranscriptTap  *self,
                                                        RivClient         *client);
void                 riv_transcript_tap_remove_clients (RivTranscriptTap  *self);
/* From now on only client's events go to the writer (none once client is
 * removed; NULL: every client's again); the lints still hear all of theirs.
 * A recording being stopped waits this way for one client's last events
 * without taking in more of the others'. */
void                 riv_transcript_tap_write_only     (RivTranscriptTap  *self,
                                                        RivClient         *client);
/* Called after each event went to the writer and the lint (nullable). */
void                 riv_transcript_tap_set_after      (RivTranscriptTap  *self,
                                                        RivTapFunc         func,
                                                        gpointer           user_data);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (RivTranscriptTap, riv_transcript_tap_free)

G_END_DECLS
