/* riv-application.h
 * Copyright 2026 The Rivulet authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <adwaita.h>

#include "riv-embedded-server.h"

G_BEGIN_DECLS

#define RIV_TYPE_APPLICATION (riv_application_get_type ())
G_DECLARE_FINAL_TYPE (RivApplication, riv_application, RIV, APPLICATION, AdwApplication)

RivApplication    *riv_application_new                 (void);
RivEmbeddedServer *riv_application_get_embedded_server (RivApplication *self);
int                riv_application_get_exit_status     (RivApplication *self);

G_END_DECLS
