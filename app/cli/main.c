/* main.c
 * Copyright 2026 The Rivulet authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * rivulet-cli: dispatches to the subcommands; their shared usage error and
 * the one way server text reaches the terminal (riv_cli_safe ()).
 */
#include "config.h"

#include <locale.h>
#include <stdio.h>
#include <string.h>

#include "riv-cli.h"
#include "riv-text.h"

typedef struct
{
  const char *name;
  int       (*run) (int    argc,
                    char **argv);
  const char *summary;
} Command;

static const Command commands[] = {
  { "serve", riv_cli_serve, "Run the embedded demo server (Gradio-compatible)" },
  { "load", riv_cli_load, "Submit a burst of jobs to a server and summarise the outcome" },
  { "inspect", riv_cli_inspect, "Show a server's version, protocol and endpoints" },
  { "report", riv_cli_report, "Merge load shards' job records into one summary and report" },
  { "lint", riv_cli_lint, "Run a short probe load and name the protocol rules the server broke" },
};

static void
print_usage (FILE *out)
{
  fprintf (out,
           "Usage: rivulet-cli COMMAND [OPTION…]\n"
           "\n"
           "Headless Rivulet: a client and demo server for the Gradio queue protocol.\n"
           "\n"
           "Commands:\n");
  for (guint i = 0; i < G_N_ELEMENTS (commands); i++)
    fprintf (out, "  %-9s %s\n", commands[i].name, commands[i].summary);
  fprintf (out,
           "\n"
           "Options:\n"
           "  -h, --help     Show this help\n"
           "  --version      Show the version\n"
           "\n"
           "Run \"rivulet-cli COMMAND --help\" for the options of a command.\n"
           "Examples:\n"
           "  rivulet-cli serve --port 7860\n"
           "  rivulet-cli inspect --url http://127.0.0.1:7860\n"
           "  rivulet-cli load --url http://127.0.0.1:7860 --endpoint batch_echo --count 1000\n");
}

#define SAFE_SLOTS 8

const char *
riv_cli_safe (const char *text)
{
  static char *slots[SAFE_SLOTS];
  static guint next;
  char **slot = &slots[next++ % SAFE_SLOTS];

  g_free (*slot);
  *slot = riv_text_for_terminal (text);
  return *slot;
}

int
riv_cli_usage_error (const char *command,
                     const char *format,
                     ...)
{
  g_autofree char *message = NULL;
  va_list args;

  va_start (args, format);
  message = g_strdup_vprintf (format, args);
  va_end (args);

  g_printerr ("rivulet-cli %s: %s\nTry \"rivulet-cli %s --help\".\n", command,
              riv_cli_safe (message), command);
  return 2;
}

int
main (int   argc,
      char *argv[])
{
  const char *name;

  if (argc >= 2 && (g_str_equal (argv[1], "load") || g_str_equal (argv[1], "serve")))
    riv_cli_choose_malloc (argv);
  setlocale (LC_ALL, "");
  /* Numbers in JSON, CSV and HTML output always use a decimal point. */
  setlocale (LC_NUMERIC, "C");
  g_set_prgname ("rivulet-cli");

  if (argc < 2)
    {
      print_usage (stderr);
      return 2;
    }

  name = argv[1];
  if (strcmp (name, "--help") == 0 || strcmp (name, "-h") == 0 || strcmp (name, "help") == 0)
    {
      print_usage (stdout);
      return 0;
    }
  if (strcmp (name, "--version") == 0)
    {
      printf ("rivulet-cli %s\n", PACKAGE_VERSION);
      return 0;
    }

  for (guint i = 0; i < G_N_ELEMENTS (commands); i++)
    if (strcmp (name, commands[i].name) == 0)
      {
        g_autofree char *prgname = g_strconcat ("rivulet-cli ", name, NULL);

        /* GOptionContext's help starts "Usage: PRGNAME [OPTION…]": name the command. */
        g_set_prgname (prgname);
        return commands[i].run (argc - 1, argv + 1);
      }

  fprintf (stderr, "rivulet-cli: unknown command \"%s\"\n\n", name);
  print_usage (stderr);
  return 2;
}
