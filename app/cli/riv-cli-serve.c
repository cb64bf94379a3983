/* riv-cli-serve.c
 * Copyright 2026 The Rivulet authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * rivulet-cli serve: runs the embedded demo server until SIGINT or SIGTERM.
 */
#include "config.h"

#include <signal.h>
#include <stdio.h>

#include <glib-unix.h>

#include "riv-cli.h"
#include "riv-demo.h"
#include "riv-server.h"

typedef struct
{
  RivServer *server;
  GMainLoop *loop;
} ServeState;

static gboolean
serve_signal_cb (gpointer user_data)
{
  ServeState *state = user_data;

  /* Streams get close_stream (pending jobs fail first), then the loop ends. */
  riv_server_shutdown (state->server);
  g_main_loop_quit (state->loop);
  return G_SOURCE_CONTINUE;
}

static gboolean
host_is_loopback (const char *host)
{
  g_autoptr(GInetAddress) address = NULL;

  if (host == NULL || g_str_equal (host, "localhost"))
    return TRUE;
  address = g_inet_address_new_from_string (host);
  return address != NULL && g_inet_address_get_is_loopback (address);
}

/* --help's list of the demo endpoints, from the demos' own table. */
static char *
demo_summary (void)
{
  GString *text = g_string_new (NULL);

  g_string_append_printf (text, "Serves %u demo endpoints over the Gradio queue protocol (sse_v3):\n",
                          riv_demo_get_count ());
  for (guint i = 0; i < riv_demo_get_count (); i++)
    {
      const RivDemo *demo = riv_demo_get (i);

      g_string_append_printf (text, "  /%-17s %s\n", demo->api_name, demo->description);
    }
  g_string_append (text, "Each endpoint runs up to --concurrency jobs at once (default 8).");
  return g_string_free (text, FALSE);
}

int
riv_cli_serve (int    argc,
               char **argv)
{
  g_autofree char *host = NULL;
  gint port = 7860;
  gint concurrency = 8;
  gint max_queue = 10000;
  gint max_sessions = 4096;
  double heartbeat = 15;
  double close_linger = 0.5;
  gboolean verbose = FALSE;
  g_autofree char *replay = NULL;
  double speed = 1;
  const GOptionEntry entries[] = {
    { "host", 0, 0, G_OPTION_ARG_STRING, &host,
      "IP address to listen on (default 127.0.0.1)", "ADDRESS" },
    { "port", 'p', 0, G_OPTION_ARG_INT, &port,
      "TCP port (default 7860; 0 picks a free port)", "PORT" },
    { "concurrency", 'c', 0, G_OPTION_ARG_INT, &concurrency,
      "Jobs each endpoint runs at once (default 8; Gradio's default is 1)", "N" },
    { "max-queue", 0, 0, G_OPTION_ARG_INT, &max_queue,
      "Waiting jobs before joins are refused with HTTP 503 (default 10000; 0 = no limit)", "N" },
    { "max-sessions", 0, 0, G_OPTION_ARG_INT, &max_sessions,
      "Sessions kept (one per client; idle ones are dropped beyond it; default 4096)", "N" },
    { "heartbeat", 0, 0, G_OPTION_ARG_DOUBLE, &heartbeat,
      "Seconds between heartbeat messages on open streams (default 15; 0 = none)", "SECONDS" },
    { "close-linger", 0, 0, G_OPTION_ARG_DOUBLE, &close_linger,
      "Seconds to hold close_stream back after a session's last job (default 0.5)", "SECONDS" },
    { "verbose", 'v', 0, G_OPTION_ARG_NONE, &verbose,
      "Print each batch's size and the running total of batched items to stderr", NULL },
    { "replay", 0, 0, G_OPTION_ARG_FILENAME, &replay,
      "Serve the server side of a recorded session (load --record) instead of the demos", "FILE" },
    { "speed", 0, 0, G_OPTION_ARG_DOUBLE, &speed,
      "With --replay: play the recorded timing this many times faster (default 1; 0 = no waits)", "X" },
    { NULL }
  };
  g_autoptr(GOptionContext) context = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(RivServer) server = NULL;
  g_autoptr(GMainLoop) loop = NULL;
  g_autofree char *url = NULL;
  g_autofree char *summary = NULL;
  ServeState state;
  guint sigint_id, sigterm_id;

  context = g_option_context_new ("— run the embedded Gradio-compatible demo server");
  summary = demo_summary ();
  g_option_context_set_summary (context, summary);
  g_option_context_add_main_entries (context, entries, NULL);

  if (!g_option_context_parse (context, &argc, &argv, &error))
    return riv_cli_usage_error ("serve", "%s", error->message);
  if (argc > 1)
    return riv_cli_usage_error ("serve", "unexpected argument \"%s\"", argv[1]);
  if (port < 0 || port > 65535)
    return riv_cli_usage_error ("serve", "--port must be between 0 and 65535");
  if (concurrency < 1 || concurrency > 1024)
    return riv_cli_usage_error ("serve", "--concurrency must be between 1 and 1024");
  if (max_queue < 0)
    return riv_cli_usage_error ("serve", "--max-queue must not be negative");
  if (max_sessions < 1)
    return riv_cli_usage_error ("serve", "--max-sessions must be at least 1");
  if (heartbeat < 0 || heartbeat > 3600)
    return riv_cli_usage_error ("serve", "--heartbeat must be between 0 and 3600 seconds");
  if (close_linger < 0 || close_linger > 60)
    return riv_cli_usage_error ("serve", "--close-linger must be between 0 and 60 seconds");
  if (!(speed >= 0 && speed <= 1e6))
    return riv_cli_usage_error ("serve", "--speed must be between 0 and 1000000");
  if (replay != NULL)
    {
      if (!host_is_loopback (host))
        g_printerr ("rivulet-cli serve: warning: listening on %s, which is not a loopback address\n", host);
      return riv_cli_serve_replay (replay, speed, host, (guint) port);
    }

  server = riv_server_new ();
  g_object_set (server,
                "concurrency", (guint) concurrency,
                "max-queue", (guint) max_queue,
                "max-sessions", (guint) max_sessions,
                "heartbeat-interval", heartbeat,
                "close-linger", close_linger,
                "verbose", verbose,
                NULL);

  if (!riv_server_listen (server, host, (guint) port, &error))
    {
      g_printerr ("rivulet-cli serve: %s\n", error->message);
      return 1;
    }

  if (!host_is_loopback (host))
    g_printerr ("rivulet-cli serve: warning: listening on %s, which is not a loopback address; "
                "anyone who can reach it can run jobs and read their outputs\n", host);

  url = riv_server_dup_url (server);
  g_print ("Rivulet demo server on %s\n", url);
  fflush (stdout);

  loop = g_main_loop_new (NULL, FALSE);
  state.server = server;
  state.loop = loop;
  sigint_id = g_unix_signal_add (SIGINT, serve_signal_cb, &state);
  sigterm_id = g_unix_signal_add (SIGTERM, serve_signal_cb, &state);

  g_main_loop_run (loop);

  g_source_remove (sigint_id);
  g_source_remove (sigterm_id);
  riv_server_shutdown (server);
  return 0;
}
