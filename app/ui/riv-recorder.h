/* riv-recorder.h
 * Copyright 2026 The Rivulet authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The window's recording, replay and lint, and their badge (the widget
 * itself, shown while the current connection has lint findings). It owns
 * the client tap, the open recording, the replay server and the lint; the
 * window tells it which clients it connects (riv_recorder_set_pending_client,
 * riv_recorder_set_client) and hears back by signal:
 *
 * "toast" (const char *message): a message for the user;
 * "submit-failed" (const char *message): a recorded job could not be replayed;
 * "job-submitted" (RivJob *job): a recorded job was submitted to the replay;
 * "replay-ready" (const char *url): the replay server listens there, to connect to.
 *
 * Its actions (riv_recorder_add_actions): "record-session" (a toggle, its
 * state whether the session is recorded) and "open-recording".
 */
#pragma once

#include <adwaita.h>

#include "riv-client.h"

G_BEGIN_DECLS

#define RIV_TYPE_RECORDER (riv_recorder_get_type ())
G_DECLARE_FINAL_TYPE (RivRecorder, riv_recorder, RIV, RECORDER, AdwBin)

GtkWidget  *riv_recorder_new                (void);
/* Adds "record-session" and "open-recording" to map (the window's: win.*). */
void        riv_recorder_add_actions        (RivRecorder *self,
                                             GActionMap  *map);
/* A connection starts (client nullable: none does any more). */
void        riv_recorder_set_pending_client (RivRecorder *self,
                                             RivClient   *client);
/* The connected client (nullable), its URL and access token (nullable). */
void        riv_recorder_set_client         (RivRecorder *self,
                                             RivClient   *client,
                                             const char  *url,
                                             const char  *token);
/* What the file choosers of record-session and open-recording lead to. */
void        riv_recorder_record_to          (RivRecorder *self,
                                             GFile       *file);
void        riv_recorder_open               (RivRecorder *self,
                                             GFile       *file);
gboolean    riv_recorder_is_replay_url      (RivRecorder *self,
                                             const char  *url);
/* The file name of the recording opened last, or NULL. */
const char *riv_recorder_get_replay_name    (RivRecorder *self);
/* The current connection's lint findings, and the badge that counts them. */
guint       riv_recorder_get_n_findings     (RivRecorder *self);
GtkLabel   *riv_recorder_get_badge          (RivRecorder *self);
/* Ends a recording (flushed off the main thread), lets go of the clients and
 * stops the replay server: the window is closing. */
void        riv_recorder_close              (RivRecorder *self);

G_END_DECLS
