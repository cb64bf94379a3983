/* main.c
 * Copyright 2026 The Rivulet authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "config.h"

#include <glib/gi18n.h>

#include "riv-application.h"

int
main (int   argc,
      char *argv[])
{
  g_autoptr(RivApplication) app = NULL;
  const char *localedir = LOCALEDIR;
  int status;

  /* Uninstalled runs (make run) find their translations in the build tree. */
  if (!g_file_test (LOCALEDIR, G_FILE_TEST_IS_DIR))
    localedir = RIV_BUILD_LOCALEDIR;
  bindtextdomain (GETTEXT_PACKAGE, localedir);
  bind_textdomain_codeset (GETTEXT_PACKAGE, "UTF-8");
  textdomain (GETTEXT_PACKAGE);

  app = riv_application_new ();
  status = g_application_run (G_APPLICATION (app), argc, argv);
  if (status == 0)
    status = riv_application_get_exit_status (app);

  return status;
}
