/* riv-replay.h
 * Copyright 2026 The Rivulet authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Serves the server side of a recorded session (riv-transcript.h) to any
 * client: /config and /info as recorded (the config's "root" pointed at the
 * replay), each join of the replay answered with the reply of the first
 * recorded join not yet replayed that asked the same (endpoint and data), else
 * of the first one not yet replayed (joins sent at once arrive in any order),
 * after the recorded delay of that reply (scaled by the speed), and each
 * session's streams with the recorded frames in recorded order and timing
 * (scaled by the speed). The n-th stream a client opens for its session gets
 * the n-th recorded stream of the recorded session its first join stood for. A
 * frame about a recorded job is held until the replay has received that job's
 * join, so a frame never names an id no join returned. A stream whose
 * recording ended at the server's hand (eof or error) ends after its last
 * frame; otherwise it stays open. /cancel and /reset answer {"success":true};
 * anything else 404.
 */
#pragma once

#include <gio/gio.h>

G_BEGIN_DECLS

#define RIV_REPLAY_ERROR (riv_replay_error_quark ())
typedef enum
{
  RIV_REPLAY_ERROR_NO_CONFIG,   /* the transcript has no /config reply to serve */
  RIV_REPLAY_ERROR_LISTEN,
} RivReplayError;
GQuark riv_replay_error_quark (void);

#define RIV_TYPE_REPLAY (riv_replay_get_type ())
G_DECLARE_FINAL_TYPE (RivReplay, riv_replay, RIV, REPLAY, GObject)

/* events: RivTapEvent * (a reference is kept). */
RivReplay  *riv_replay_new             (GPtrArray    *events,
                                        GError      **error);
RivReplay  *riv_replay_new_from_file   (const char   *path,
                                        GError      **error);
/* Recorded gaps are divided by speed; 0 sends every frame as soon as it may
 * go. Default 1. */
void        riv_replay_set_speed       (RivReplay    *self,
                                        double        speed);
/* host NULL means 127.0.0.1; port 0 picks a free one. */
gboolean    riv_replay_listen          (RivReplay    *self,
                                        const char   *host,
                                        guint         port,
                                        GError      **error);
/* "http://HOST:PORT" (no trailing slash). */
char       *riv_replay_dup_url         (RivReplay    *self);
guint       riv_replay_get_n_recorded_joins (RivReplay *self);
/* Joins answered from the recording so far. */
guint       riv_replay_get_n_joins     (RivReplay    *self);
/* Frames written so far. */
guint64     riv_replay_get_n_frames    (RivReplay    *self);
/* Ends every open stream and stops listening. Idempotent. */
void        riv_replay_shutdown        (RivReplay    *self);

G_END_DECLS
