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
/* A bad argument: prints "rivulet-cli COMMAND: MESSAGE" and the hint to
 * "rivulet-cli COMMAND --help" on standard error, and returns 2, the exit
 * status for bad arguments (main.c). */
int riv_cli_usage_error (const char *command,
                         const char *format,
                         ...) G_GNUC_PRINTF (2, 3);
/* text (from a server, or holding a URL) as it may reach the terminal: control
 * characters escaped, URL passwords redacted (riv_text_for_terminal ()).
 * The result is valid until eight more calls. */
const char *riv_cli_safe (const char *text);
/* Call first in main() for `load` and `serve`: re-executes the program once
 * with G_SLICE=always-malloc (GLib < 2.76) and, for `load`, jemalloc when there
 * is one, otherwise glibc's malloc on transparent huge pages; then puts the
 * environment back (riv-cli-malloc.c). Returns only when there is nothing to
 * do, in the re-executed process, or when the re-execution failed. */
void riv_cli_choose_malloc (char **argv);
/* serve --replay FILE */
int riv_cli_serve_replay (const char *path,
                          double      speed,
                          const char *host,
                          guint       port);

G_END_DECLS
