/* riv-application-test.h
 * Copyright 2026 The Rivulet authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * What tests read of the application (riv-application.h): whether its
 * high-contrast style is on. Not for the application.
 */
#pragma once

#include "riv-application.h"

G_BEGIN_DECLS

/* TRUE while riv-high-contrast.css is on top of the app's style (from
 * startup, while AdwStyleManager says high contrast is on). */
gboolean riv_application_is_high_contrast_styled (RivApplication *self);

G_END_DECLS
