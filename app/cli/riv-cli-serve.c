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
#include "riv-listen.h"
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

/* The default host (NULL) is 127.0.0.1. */
static gboolean
host_is_loopback (const char *host)
{
  return host == NULL || riv_host_is_loopback (host);
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

typedef struct
{
  char     *host;             /* nullable: 127.0.0.1 */
  gint      port;
  gint      concurrency;
  gint      max_queue;
  gint      max_sessions;
  double    heartbeat;
  double    close_linger;
  gint      session_buffer;   /* MiB */
  gint      total_buffer;     /* MiB, 0: no limit */
  gint      session_inputs;   /* MiB, 0: no limit */
  gint      total_inputs;     /* MiB, 0: no limit */
  double    reader_timeout;
  gboolean  verbose;
  gboolean  stamp;
  char     *replay;           /* nullable */
  double    speed;
  gint      max_ranges;
  double    header_timeout;
  double    idle_timeout;
  char    **allow_origins;    /* nullable */
  char    **allow_hosts;      /* nullable */
  gint      max_upload_parts;
  gint      max_session_uploads;
  gint64    max_session_upload_bytes;
} ServeOptions;

#define SERVE_OPTIONS_INIT { .port = 7860, .concurrency = 8, .max_queue = 10000, \
                             .max_sessions = 4096, .heartbeat = 15, .close_linger = 0.5, \
                             .session_buffer = 64, \
                             .total_buffer = (gint) (RIV_SERVER_BUFFER_MAX >> 20), \
                             .session_inputs = (gint) (RIV_SERVER_SESSION_INPUT_MAX >> 20), \
                             .total_inputs = (gint) (RIV_SERVER_INPUT_MAX >> 20), \
                             .reader_timeout = RIV_SERVER_READER_TIMEOUT, \
                             .speed = 1, .max_ranges = 8, \
                             .header_timeout = 30, .idle_timeout = 120, \
                             .max_upload_parts = 100, .max_session_uploads = 100, \
                             .max_session_upload_bytes = 128 * 1024 * 1024 }

static void
serve_options_clear (ServeOptions *options)
{
  g_clear_pointer (&options->host, g_free);
  g_clear_pointer (&options->replay, g_free);
  g_clear_pointer (&options->allow_origins, g_strfreev);
  g_clear_pointer (&options->allow_hosts, g_strfreev);
}

G_DEFINE_AUTO_CLEANUP_CLEAR_FUNC (ServeOptions, serve_options_clear)

static GOptionContext *
serve_option_context_new (ServeOptions *o)
{
  const GOptionEntry entries[] = {
    { "host", 0, 0, G_OPTION_ARG_STRING, &o->host,
      "IP address to listen on (default 127.0.0.1)", "ADDRESS" },
    { "port", 'p', 0, G_OPTION_ARG_INT, &o->port,
      "TCP port (default 7860; 0 picks a free port)", "PORT" },
    { "concurrency", 'c', 0, G_OPTION_ARG_INT, &o->concurrency,
      "Jobs each endpoint runs at once (default 8; Gradio's default is 1)", "N" },
    { "max-queue", 0, 0, G_OPTION_ARG_INT, &o->max_queue,
      "Waiting jobs before joins are refused with HTTP 503 (default 10000; 0 = no limit)", "N" },
    { "max-sessions", 0, 0, G_OPTION_ARG_INT, &o->max_sessions,
      "Sessions kept (one per client; idle ones are dropped beyond it; default 4096)", "N" },
    { "heartbeat", 0, 0, G_OPTION_ARG_DOUBLE, &o->heartbeat,
      "Seconds between heartbeat messages on open streams (default 15; 0 = none)", "SECONDS" },
    { "close-linger", 0, 0, G_OPTION_ARG_DOUBLE, &o->close_linger,
      "Seconds to hold close_stream back after a session's last job (default 0.5)", "SECONDS" },
    { "session-buffer", 0, 0, G_OPTION_ARG_INT, &o->session_buffer,
      "MiB of messages one session's stream may hold unread, overhead included, before its "
      "jobs pause (default 64)", "MIB" },
    { "total-buffer", 0, 0, G_OPTION_ARG_INT, &o->total_buffer,
      "MiB all sessions' streams may hold unread together before the jobs of those behind "
      "pause (default 256; 0 = no limit)", "MIB" },
    { "session-inputs", 0, 0, G_OPTION_ARG_INT, &o->session_inputs,
      "MiB of inputs one session's queued and running jobs may hold; a join over it is "
      "refused with HTTP 503 (default 32; 0 = no limit)", "MIB" },
    { "total-inputs", 0, 0, G_OPTION_ARG_INT, &o->total_inputs,
      "MiB of inputs all queued and running jobs may hold; a join over it is refused with "
      "HTTP 503 (default 128; 0 = no limit)", "MIB" },
    { "reader-timeout", 0, 0, G_OPTION_ARG_DOUBLE, &o->reader_timeout,
      "Seconds a session's stream may go unread (not open, or not taking what is written) "
      "before its jobs that old fail and free their workers (default 60)", "SECONDS" },
    { "max-ranges", 0, 0, G_OPTION_ARG_INT, &o->max_ranges,
      "Byte ranges one file download answers with 206 (default 8, at most 64); more, or "
      "overlapping ones, get the whole file", "N" },
    { "header-timeout", 0, 0, G_OPTION_ARG_DOUBLE, &o->header_timeout,
      "Seconds a connection has to send a request's headers, the first request's from when it "
      "opens (default 30)", "SECONDS" },
    { "idle-timeout", 0, 0, G_OPTION_ARG_DOUBLE, &o->idle_timeout,
      "Seconds a kept-alive connection may wait for its next request (default 120)", "SECONDS" },
    { "allow-origin", 0, 0, G_OPTION_ARG_STRING_ARRAY, &o->allow_origins,
      "A web page origin (scheme://host[:port]) that may use the server, with CORS, besides "
      "loopback ones (http(s) on localhost, 127.x, [::1]); repeatable; \"*\" allows any page on "
      "the web. Other origins get 403", "ORIGIN" },
    { "allow-host", 0, 0, G_OPTION_ARG_STRING_ARRAY, &o->allow_hosts,
      "A Host name to answer besides localhost names, loopback addresses and --host; repeatable. "
      "Behind a proxy that passes its own public name (nginx's proxy_set_header Host $host), "
      "give that name; \"*\" answers any Host (no DNS-rebinding check). Others get 403", "NAME" },
    { "max-upload-parts", 0, 0, G_OPTION_ARG_INT, &o->max_upload_parts,
      "Parts one upload request may have (default 100; more get HTTP 413)", "N" },
    { "max-session-uploads", 0, 0, G_OPTION_ARG_INT, &o->max_session_uploads,
      "Uploaded files kept per session (?session_hash=, else per client address; default 100); "
      "beyond it the session's own oldest are deleted, never another's", "N" },
    { "max-session-upload-bytes", 0, 0, G_OPTION_ARG_INT64, &o->max_session_upload_bytes,
      "The same in bytes (default 134217728, 128 MiB)", "BYTES" },
    { "verbose", 'v', 0, G_OPTION_ARG_NONE, &o->verbose,
      "Print each batch's size and the running total of batched items to stderr", NULL },
    { "stamp", 0, 0, G_OPTION_ARG_NONE, &o->stamp,
      "Stamp each output message with the time it was made (\"rivulet_sent_at\", ignored by "
      "Gradio's clients): load then reports its own delay and the server's gaps", NULL },
    { "replay", 0, 0, G_OPTION_ARG_FILENAME, &o->replay,
      "Serve the server side of a recorded session (load --record) instead of the demos", "FILE" },
    { "speed", 0, 0, G_OPTION_ARG_DOUBLE, &o->speed,
      "With --replay: play the recorded timing this many times faster (default 1; 0 = no waits)",
      "X" },
    { NULL }
  };
  GOptionContext *context;
  g_autofree char *summary = demo_summary ();

  context = g_option_context_new ("— run the embedded Gradio-compatible demo server");
  g_option_context_set_summary (context, summary);
  /* The entries are copied: the array may go, the places they fill stay in *o. */
  g_option_context_add_main_entries (context, entries, NULL);
  return context;
}

/* 0 when the options are in range, else the usage error's exit status (said). */
static int
serve_check_options (const ServeOptions *o)
{
  if (o->port < 0 || o->port > 65535)
    return riv_cli_usage_error ("serve", "--port must be between 0 and 65535");
  if (o->concurrency < 1 || o->concurrency > 10000)
    return riv_cli_usage_error ("serve", "--concurrency must be between 1 and 10000");
  if (o->max_queue < 0)
    return riv_cli_usage_error ("serve", "--max-queue must not be negative");
  if (o->max_sessions < 1)
    return riv_cli_usage_error ("serve", "--max-sessions must be at least 1");
  if (o->heartbeat < 0 || o->heartbeat > 3600)
    return riv_cli_usage_error ("serve", "--heartbeat must be between 0 and 3600 seconds");
  if (o->close_linger < 0 || o->close_linger > 60)
    return riv_cli_usage_error ("serve", "--close-linger must be between 0 and 60 seconds");
  if (o->session_buffer < 1 || o->session_buffer > 4095)
    return riv_cli_usage_error ("serve", "--session-buffer must be between 1 and 4095 MiB");
  if (o->total_buffer < 0 || o->session_inputs < 0 || o->total_inputs < 0)
    return riv_cli_usage_error ("serve", "--total-buffer, --session-inputs and --total-inputs "
                                "must not be negative");
  if (!(o->reader_timeout >= 0.01 && o->reader_timeout <= 1e7))
    return riv_cli_usage_error ("serve", "--reader-timeout must be between 0.01 and 10000000 "
                                "seconds");
  if (o->max_ranges < 1 || o->max_ranges > 64)
    return riv_cli_usage_error ("serve", "--max-ranges must be between 1 and 64");
  if (!(o->header_timeout >= 0.01 && o->header_timeout <= 3600))
    return riv_cli_usage_error ("serve", "--header-timeout must be between 0.01 and 3600 seconds");
  if (!(o->idle_timeout >= 0.01 && o->idle_timeout <= 86400))
    return riv_cli_usage_error ("serve", "--idle-timeout must be between 0.01 and 86400 seconds");
  if (o->max_upload_parts < 1)
    return riv_cli_usage_error ("serve", "--max-upload-parts must be at least 1");
  if (o->max_session_uploads < 1)
    return riv_cli_usage_error ("serve", "--max-session-uploads must be at least 1");
  if (o->max_session_upload_bytes < 1024)
    return riv_cli_usage_error ("serve", "--max-session-upload-bytes must be at least 1024");
  if (!(o->speed >= 0 && o->speed <= 1e6))
    return riv_cli_usage_error ("serve", "--speed must be between 0 and 1000000");
  return 0;
}

/* The demo server until SIGINT or SIGTERM. */
static int
serve_demos (const ServeOptions *o)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(RivServer) server = riv_server_new ();
  g_autoptr(GMainLoop) loop = NULL;
  g_autofree char *url = NULL;
  ServeState state;
  guint sigint_id, sigterm_id;

  g_object_set (server,
                "concurrency", (guint) o->concurrency,
                "max-queue", (guint) o->max_queue,
                "max-sessions", (guint) o->max_sessions,
                "heartbeat-interval", o->heartbeat,
                "close-linger", o->close_linger,
                "session-buffer-max", (guint) o->session_buffer << 20,
                "buffer-max", (guint64) o->total_buffer << 20,
                "session-input-max", (guint64) o->session_inputs << 20,
                "input-max", (guint64) o->total_inputs << 20,
                "reader-timeout", o->reader_timeout,
                "verbose", o->verbose,
                "stamp", o->stamp,
                "max-ranges", (guint) o->max_ranges,
                "header-timeout", o->header_timeout,
                "idle-timeout", o->idle_timeout,
                "allow-origins", o->allow_origins,
                "allow-hosts", o->allow_hosts,
                "max-upload-parts", (guint) o->max_upload_parts,
                "max-session-uploads", (guint) o->max_session_uploads,
                "max-session-upload-bytes", (guint64) o->max_session_upload_bytes,
                NULL);

  if (!riv_server_listen (server, o->host, (guint) o->port, &error))
    {
      g_printerr ("rivulet-cli serve: %s\n", error->message);
      return 1;
    }

  if (!host_is_loopback (o->host))
    g_printerr ("rivulet-cli serve: warning: listening on %s, which is not a loopback address; "
                "anyone who can reach it can run jobs and read their outputs\n", o->host);

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

int
riv_cli_serve (int    argc,
               char **argv)
{
  g_auto(ServeOptions) options = SERVE_OPTIONS_INIT;
  g_autoptr(GOptionContext) context = serve_option_context_new (&options);
  g_autoptr(GError) error = NULL;
  int status;

  if (!g_option_context_parse (context, &argc, &argv, &error))
    return riv_cli_usage_error ("serve", "%s", error->message);
  if (argc > 1)
    return riv_cli_usage_error ("serve", "unexpected argument \"%s\"", argv[1]);
  if ((status = serve_check_options (&options)) != 0)
    return status;
  if (options.replay != NULL)
    {
      if (!host_is_loopback (options.host))
        g_printerr ("rivulet-cli serve: warning: listening on %s, which is not a loopback "
                    "address\n", options.host);
      return riv_cli_serve_replay (options.replay, options.speed, options.host,
                                   (guint) options.port);
    }
  return serve_demos (&options);
}
