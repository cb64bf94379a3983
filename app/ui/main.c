/* main.c
 * Copyright 2026 The Rivulet authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "config.h"

#include <glib/gi18n.h>
#include <locale.h>
#include <string.h>

#include "riv-application.h"
#include "riv-malloc.h"

/* Where the translations are: RIVULET_LOCALEDIR if set; the build tree's po/
 * when this binary runs from the build tree (make run); else the installed
 * LOCALEDIR. */
static char *
riv_locale_dir (void)
{
  const char *env = g_getenv ("RIVULET_LOCALEDIR");
  g_autofree char *exe = NULL;
  g_autofree char *build_root = NULL;

  if (env != NULL && *env != '\0')
    return g_strdup (env);

  exe = g_file_read_link ("/proc/self/exe", NULL);
  build_root = g_path_get_dirname (RIV_BUILD_LOCALEDIR);
  if (exe != NULL && g_str_has_prefix (exe, build_root) && exe[strlen (build_root)] == '/' &&
      g_file_test (RIV_BUILD_LOCALEDIR, G_FILE_TEST_IS_DIR))
    return g_strdup (RIV_BUILD_LOCALEDIR);

  return g_strdup (LOCALEDIR);
}

int
main (int   argc,
      char *argv[])
{
  g_autoptr(RivApplication) app = NULL;
  g_autofree char *localedir = NULL;
  int status;

  /* glibc's malloc on transparent huge pages. Under a software renderer a
   * frame that repaints the whole window draws into a fresh surface of
   * several MB, and faulting in its 4 KiB pages one by one made such frames
   * the window's slowest (app/docs/measurements.md, 6). */
  riv_malloc_choose (argv, RIV_MALLOC_HUGE_PAGES, NULL);
  localedir = riv_locale_dir ();
  setlocale (LC_ALL, "");
  bindtextdomain (GETTEXT_PACKAGE, localedir);
  bind_textdomain_codeset (GETTEXT_PACKAGE, "UTF-8");
  textdomain (GETTEXT_PACKAGE);

  app = riv_application_new ();
  status = g_application_run (G_APPLICATION (app), argc, argv);
  if (status == 0)
    status = riv_application_get_exit_status (app);

  return status;
}
