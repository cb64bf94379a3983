/* riv-server-test.h
 * Copyright 2026 The Rivulet authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * What tests read of a running server (riv-server.h): its sessions, pending
 * and completed jobs. Not for the programs.
 */
#pragma once

#include "riv-server.h"

G_BEGIN_DECLS

guint       riv_server_get_n_sessions (RivServer  *self);
guint       riv_server_get_n_pending  (RivServer  *self);
guint64     riv_server_get_n_completed (RivServer *self);
/* Demo runs started and not yet ended (a cancelled one until it stops). */
guint       riv_server_get_n_running  (RivServer  *self);

G_END_DECLS
