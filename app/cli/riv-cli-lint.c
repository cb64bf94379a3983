/* riv-cli-lint.c
 * Copyright 2026 The Rivulet authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * rivulet-cli lint: a short probe load (the load command's options; 8 jobs
 * unless --count says otherwise) with the protocol lint on, printing each
 * finding (time, rule, event id, message). --strict makes any finding exit 1.
 * With --file it lints a recorded transcript instead, without a network.
 */
#include "config.h"

#include <string.h>

#include "riv-cli.h"
#include "riv-cli-record.h"
#include "riv-lint.h"
#include "riv-transcript.h"

static gboolean
has_option (GPtrArray  *args,
            const char *long_name,
            const char *short_name)
{
  gsize n = strlen (long_name);

  for (guint i = 1; i < args->len; i++)
    {
      const char *arg = args->pdata[i];

      if (arg == NULL)
        continue;
      if (strcmp (arg, short_name) == 0 ||
          (strncmp (arg, long_name, n) == 0 && (arg[n] == '\0' || arg[n] == '=')))
        return TRUE;
    }
  return FALSE;
}

/* rivulet-cli lint --file FILE: the findings of a whole transcript. */
static int
lint_file (const char *path,
           double      heartbeat,
           gboolean    strict)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GPtrArray) events = riv_transcript_load (path, &error);
  g_autoptr(RivLint) lint = NULL;

  if (events == NULL)
    {
      g_printerr ("rivulet-cli lint: %s\n", riv_cli_safe (error->message));
      return 2;
    }
  lint = riv_lint_run_transcript (events, heartbeat);
  riv_cli_record_print_findings (lint);
  return strict && riv_lint_get_findings (lint)->len > 0 ? 1 : 0;
}

int
riv_cli_lint (int    argc,
              char **argv)
{
  gboolean strict = FALSE;
  double heartbeat = 0;
  g_autofree char *file = NULL;
  const GOptionEntry entries[] = {
    { "file", 'f', 0, G_OPTION_ARG_FILENAME, &file,
      "Lint a recorded session (load --record, the app's Record Session) instead of running "
      "a probe load", "FILE" },
    { "strict", 0, 0, G_OPTION_ARG_NONE, &strict, "Exit with status 1 when there is any finding", NULL },
    { "heartbeat", 0, 0, G_OPTION_ARG_DOUBLE, &heartbeat,
      "The server's heartbeat interval in seconds (default: the spacing of the heartbeats seen, "
      "else 15)", "SECONDS" },
    { NULL }
  };
  g_autoptr(GOptionContext) context = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(GPtrArray) args = g_ptr_array_new ();
  g_autoptr(GString) rules = g_string_new (NULL);
  const char * const *ids = riv_lint_get_rules ();
  int status;

  for (guint i = 0; ids[i] != NULL; i++)
    g_string_append_printf (rules, "%s%s", i > 0 ? ", " : "", ids[i]);

  context = g_option_context_new ("--url URL --endpoint NAME [LOAD OPTION…] | --file FILE — name "
                                  "the protocol rules a server breaks");
  g_option_context_set_summary (context,
    "Runs a short probe load (8 jobs unless --count says otherwise; every option\n"
    "of \"rivulet-cli load\" applies) and checks each message of the session\n"
    "against the protocol's rules. Prints one line per finding: seconds from the\n"
    "start, rule, event id, what happened. The load's summary goes to stderr.\n"
    "--file FILE checks a recorded session (a transcript) instead.\n"
    "Exits 0 (1 with --strict and any finding, or when a job did not complete),\n"
    "2 for bad arguments.");
  g_option_context_set_description (context, rules->str);
  g_option_context_add_main_entries (context, entries, NULL);
  g_option_context_set_ignore_unknown_options (context, TRUE);
  if (!g_option_context_parse (context, &argc, &argv, &error))
    return riv_cli_usage_error ("lint", "%s", error->message);
  if (!(heartbeat >= 0 && heartbeat <= 3600))
    {
      g_printerr ("rivulet-cli lint: --heartbeat must be between 0 and 3600 seconds\n");
      return 2;
    }

  if (file != NULL)
    {
      if (argc > 1)
        {
          g_printerr ("rivulet-cli lint: --file takes no load option (%s)\n", argv[1]);
          return 2;
        }
      return lint_file (file, heartbeat, strict);
    }

  g_ptr_array_add (args, (char *) "load");
  for (int i = 1; i < argc; i++)
    g_ptr_array_add (args, argv[i]);
  if (!has_option (args, "--count", "-n"))
    {
      g_ptr_array_add (args, (char *) "--count");
      g_ptr_array_add (args, (char *) "8");
    }
  g_ptr_array_add (args, NULL);

  riv_cli_record_set_lint_mode (heartbeat);
  status = riv_cli_load ((int) args->len - 1, (char **) args->pdata);
  if (status == 2)
    return 2;
  if (strict && riv_cli_record_get_n_findings () > 0)
    return 1;
  return status;
}
