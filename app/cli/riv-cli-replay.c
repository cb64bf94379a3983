/* riv-cli-replay.c
 * Copyright 2026 The Rivulet authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * rivulet-cli serve --replay FILE: serves a recorded session (riv-replay.h)
 * until SIGINT or SIGTERM.
 */
#include "config.h"

#include <signal.h>
#include <stdio.h>

#include <glib-unix.h>

#include "riv-cli.h"
#include "riv-replay.h"

static gboolean
replay_signal_cb (gpointer user_data)
{
  g_main_loop_quit (user_data);
  return G_SOURCE_CONTINUE;
}

int
riv_cli_serve_replay (const char *path,
                      double      speed,
                      const char *host,
                      guint       port)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(RivReplay) replay = NULL;
  g_autoptr(GMainLoop) loop = NULL;
  g_autofree char *url = NULL;
  guint sigint_id, sigterm_id;

  replay = riv_replay_new_from_file (path, &error);
  if (replay == NULL)
    {
      g_printerr ("rivulet-cli serve: cannot replay %s\n", error->message);
      return 1;
    }
  riv_replay_set_speed (replay, speed);
  if (!riv_replay_listen (replay, host, port, &error))
    {
      g_printerr ("rivulet-cli serve: %s\n", error->message);
      return 1;
    }

  url = riv_replay_dup_url (replay);
  g_print ("Rivulet replay of %s (%u recorded joins, speed %g) on %s\n", path,
           riv_replay_get_n_recorded_joins (replay), speed, url);
  fflush (stdout);

  loop = g_main_loop_new (NULL, FALSE);
  sigint_id = g_unix_signal_add (SIGINT, replay_signal_cb, loop);
  sigterm_id = g_unix_signal_add (SIGTERM, replay_signal_cb, loop);
  g_main_loop_run (loop);
  g_source_remove (sigint_id);
  g_source_remove (sigterm_id);
  riv_replay_shutdown (replay);
  return 0;
}
