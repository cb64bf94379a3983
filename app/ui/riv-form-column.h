/* riv-form-column.h
 * Copyright 2026 The Rivulet authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The window's left column (a narrow window's first page), scrolled: the
 * endpoint chooser, the endpoint's form, and the mode (Burst or Load Test)
 * with its settings. The same in both of the window's layouts; the window
 * drives the parts it hands out below.
 */
#pragma once

#include <adwaita.h>

#include "riv-burst-settings.h"
#include "riv-endpoint-row.h"
#include "riv-form.h"
#include "riv-load-settings.h"

G_BEGIN_DECLS

#define RIV_TYPE_FORM_COLUMN (riv_form_column_get_type ())
G_DECLARE_FINAL_TYPE (RivFormColumn, riv_form_column, RIV, FORM_COLUMN, AdwBin)

RivEndpointRow   *riv_form_column_get_endpoint_row   (RivFormColumn *self);
RivForm          *riv_form_column_get_form           (RivFormColumn *self);
/* The modes' stack: pages "burst" and "load". */
GtkStack         *riv_form_column_get_mode_stack     (RivFormColumn *self);
RivBurstSettings *riv_form_column_get_burst_settings (RivFormColumn *self);
RivLoadSettings  *riv_form_column_get_load_settings  (RivFormColumn *self);

G_END_DECLS
