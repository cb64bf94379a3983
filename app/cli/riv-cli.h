/* riv-cli.h
 * Copyright 2026 The Rivulet authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * rivulet-cli subcommands. Each takes the arguments after the subcommand name
 * (argv[0] is the subcommand) and returns the process exit status.
 */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

int riv_cli_serve   (int    argc,
                     char **argv);
int riv_cli_load    (int    argc,
                     char **argv);
int riv_cli_inspect (int    argc,
                     char **argv);
int riv_cli_report  (int    argc,
                     char **argv);
int riv_cli_lint    (int    argc,
                     char **argv);
/* serve --replay FILE */
int riv_cli_serve_replay (const char *path,
                          double      speed,
                          const char *host,
                          guint       port);

G_END_DECLS
