/* riv-cli-tls.h
 * Copyright 2026 The Rivulet authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The connection flags of the subcommands that connect to a server (load,
 * lint, inspect): --ca-file PEM and --insecure, which HTTPS certificates the
 * client trusts; --token-file and --follow-root; --hf-token and --space-wait
 * for a Hugging Face Space given by name; the client made with them and the
 * token and login.
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
/* A client of url (normalized) with token (nullable: --token-file, else
 * $RIVULET_TOKEN when set), auth ("USER:PASSWORD"; NULL: $RIVULET_AUTH when
 * set), --follow-root and the TLS options applied; NULL with a usage error
 * ("--auth: …" for a bad login, "--token-file: …" for a file without a token). */
RivClient          *riv_cli_client_new      (const char  *url,
                                             const char  *token,
                                             const char  *auth,
                                             GError     **error);
/* --url as given: a server's address (*url, normalized) or a Space's name
 * (*space_id, checked; HF_ENDPOINT too); FALSE with a usage error. */
gboolean            riv_cli_target_parse    (const char  *text,
                                             char       **url,
                                             char       **space_id,
                                             GError     **error);
/* Asks the Hub where space_id's app is (riv-space.h), iterating the default
 * main context and saying on standard error what the Space is doing while
 * it is waited for; the app's URL (normalized), whose clients
 * riv_cli_client_new () gives the token; NULL with the reason. */
char               *riv_cli_space_resolve   (const char  *space_id,
                                             GError     **error);
/* Connects client, iterating the default main context until it is done;
 * then says on standard error when the server's config names a root on
 * another origin than the client's URL (not followed, or --follow-root). */
gboolean            riv_cli_client_connect  (RivClient   *client,
                                             GError     **error);

G_END_DECLS
