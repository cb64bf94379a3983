/* riv-cli-tls.h
 * Copyright 2026 The Rivulet authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * --ca-file PEM and --insecure: which HTTPS certificates a subcommand's
 * client trusts.
 */
#pragma once

#include "riv-client.h"

G_BEGIN_DECLS

const GOptionEntry *riv_cli_tls_get_entries (void);
/* Applies the options to client; FALSE with a usage error for a CA file that
 * cannot be read or holds no PEM certificate, or for both options at once. */
gboolean            riv_cli_tls_apply       (RivClient  *client,
                                             GError    **error);
gboolean            riv_cli_tls_is_insecure (void);

G_END_DECLS
