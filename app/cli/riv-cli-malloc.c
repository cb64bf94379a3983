/* riv-cli-malloc.c
 * Copyright 2026 The Rivulet authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The allocator of `load` and `serve`, the two commands that hold thousands of
 * jobs or users. The settings below are read once, at the start of a process,
 * so they take a re-execution of the program with the environment changed:
 *
 *  - G_SLICE=always-malloc with GLib older than 2.76, whose GSlice keeps freed
 *    slices in its own caches, so a server's memory never comes back after a
 *    burst (newer GLib always uses malloc);
 *  - `load`: jemalloc (LD_PRELOAD), when the build found it, its library is
 *    there and the user preloads nothing (an empty LD_PRELOAD included). With 10,000 users the client holds
 *    some 400 MB in many sizes, and glibc's malloc spent a growing share of its
 *    time sorting and merging free chunks: jemalloc took about 20 % less CPU
 *    a job there (app/docs/measurements.md). `serve` stays on glibc: there it gave
 *    the same CPU for 15-30 % more memory;
 *  - otherwise glibc's malloc on transparent huge pages (GLIBC_TUNABLES
 *    glibc.malloc.hugetlb=1, unless the user set a hugetlb value): a load
 *    client with 1,000 users spent 20 % less CPU at the same peak memory.
 *
 * The re-executed process puts the environment back as it found it, so that
 * nothing it starts inherits these settings. Not under valgrind (it would not
 * follow the re-execution, and its malloc is its own), nor with
 * RIVULET_NO_REEXEC=1 set.
 */
#include "config.h"

#include <string.h>
#include <unistd.h>

#ifdef RIV_HAVE_VALGRIND_H
# include <valgrind/valgrind.h>
#endif

#include "riv-cli.h"

#define HUGE_PAGES_TUNABLE "glibc.malloc.hugetlb=1"
/* Set across the re-execution: which variables it changed ("slice",
 * "tunables", "preload"), and the user's values to put back (LD_PRELOAD is
 * set only when the user had none). */
#define MARK          "RIVULET_REEXECUTED"
#define SAVED_SLICE   "RIVULET_SAVED_G_SLICE"
#define SAVED_TUNABLE "RIVULET_SAVED_GLIBC_TUNABLES"

static gboolean
running_on_valgrind (void)
{
#ifdef RIV_HAVE_VALGRIND_H
  return RUNNING_ON_VALGRIND != 0;
#else
  return FALSE;
#endif
}

/* Puts back name as it was before the re-execution (saved: its value then,
 * absent when it was not set). */
static void
restore (const char *name,
         const char *saved)
{
  const char *value = g_getenv (saved);

  if (value != NULL)
    g_setenv (name, value, TRUE);
  else
    g_unsetenv (name);
  g_unsetenv (saved);
}

static void
save (const char *name,
      const char *saved)
{
  const char *value = g_getenv (name);

  if (value != NULL)
    g_setenv (saved, value, TRUE);
}

/* jemalloc's library, when this build knows one and it is there. */
static const char *
jemalloc_path (void)
{
#ifdef RIV_JEMALLOC
  if (g_file_test (RIV_JEMALLOC, G_FILE_TEST_EXISTS))
    return RIV_JEMALLOC;
#endif
  return NULL;
}

void
riv_cli_choose_malloc (char **argv)
{
  const char *changed = g_getenv (MARK);
  const char *tunables = g_getenv ("GLIBC_TUNABLES");
  const char *preload = g_getenv ("LD_PRELOAD");
  const char *jemalloc = NULL;
  gboolean want_slice, want_huge;
  g_autoptr(GString) mark = NULL;

  if (changed != NULL)
    {
      /* GSlice has read G_SLICE by the first slice it hands out: make sure. */
      g_slice_free1 (8, g_slice_alloc (8));
      if (strstr (changed, "slice") != NULL)
        restore ("G_SLICE", SAVED_SLICE);
      if (strstr (changed, "tunables") != NULL)
        restore ("GLIBC_TUNABLES", SAVED_TUNABLE);
      /* Preloaded only when the user preloaded nothing. */
      if (strstr (changed, "preload") != NULL)
        g_unsetenv ("LD_PRELOAD");
      g_unsetenv (MARK);
      return;
    }

  if (argv == NULL || argv[0] == NULL || running_on_valgrind () ||
      g_strcmp0 (g_getenv ("RIVULET_NO_REEXEC"), "1") == 0)
    return;
  want_slice = glib_check_version (2, 76, 0) != NULL && g_getenv ("G_SLICE") == NULL;
  /* An empty LD_PRELOAD preloads nothing, as the dynamic loader reads it. */
  if (g_strcmp0 (argv[1], "load") == 0 && (preload == NULL || *preload == '\0'))
    jemalloc = jemalloc_path ();
  want_huge = jemalloc == NULL &&
              (tunables == NULL || strstr (tunables, "glibc.malloc.hugetlb") == NULL);
  if (!want_slice && !want_huge && jemalloc == NULL)
    return;

  /* Only getenv/setenv/execv: GLib's slice allocator is already running (its
   * constructors allocate), so it cannot be reconfigured in place. */
  mark = g_string_new (NULL);
  if (want_slice)
    {
      g_setenv ("G_SLICE", "always-malloc", TRUE);
      g_string_append (mark, "slice ");
    }
  if (want_huge)
    {
      g_autofree char *value = tunables != NULL && *tunables != '\0'
        ? g_strconcat (tunables, ":", HUGE_PAGES_TUNABLE, NULL)
        : g_strdup (HUGE_PAGES_TUNABLE);

      save ("GLIBC_TUNABLES", SAVED_TUNABLE);
      g_setenv ("GLIBC_TUNABLES", value, TRUE);
      g_string_append (mark, "tunables");
    }
  if (jemalloc != NULL)
    {
      g_setenv ("LD_PRELOAD", jemalloc, TRUE);
      g_string_append (mark, " preload");
    }
  g_setenv (MARK, mark->str, TRUE);
  execv ("/proc/self/exe", argv);
  /* It failed: carry on as this process is. */
  if (jemalloc != NULL)
    g_unsetenv ("LD_PRELOAD");
  g_unsetenv (MARK);
}
