/* riv-endpoint-row.h
 * Copyright 2026 The Rivulet authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The endpoint chooser: a combo row of a server's endpoints by name, each
 * with its badges (renders, generator, batch, queued) in the list and, for
 * the chosen one, in the row's subtitle. The window gives it the
 * connection's endpoints and hears the choice by notify::endpoint.
 */
#pragma once

#include <adwaita.h>

#include "riv-config.h"

G_BEGIN_DECLS

#define RIV_TYPE_ENDPOINT_ROW (riv_endpoint_row_get_type ())
G_DECLARE_FINAL_TYPE (RivEndpointRow, riv_endpoint_row, RIV, ENDPOINT_ROW, AdwComboRow)

/* endpoints: RivEndpoint*, borrowed from a config that outlives them here
 * (nullable: none); the first is chosen. connected: whether a server's config
 * is known, which the row's subtitle says when there are no endpoints. */
void         riv_endpoint_row_set_endpoints (RivEndpointRow *self,
                                             GPtrArray      *endpoints,
                                             gboolean        connected);
/* The chosen endpoint (property "endpoint"), or NULL. */
RivEndpoint *riv_endpoint_row_get_endpoint  (RivEndpointRow *self);
/* Chooses the endpoint of that API name (a leading '/' allowed) or, for an
 * endpoint without one, of that function index; FALSE when there is none. */
gboolean     riv_endpoint_row_select        (RivEndpointRow *self,
                                             const char     *name);

G_END_DECLS
