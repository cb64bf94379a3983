/* riv-malloc.c
 * Copyright 2026 The Rivulet authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The allocator settings of a process, which glibc and GLib read once, at its
 * start (riv-malloc.h). Which process takes which, and why, is said where it
 * chooses: riv-cli-malloc.c for `rivulet-cli load` and `serve`, main.c for the
 * window. The re-executed process puts the environment back as it found it,
 * so that nothing it starts inherits these settings; it keeps them for the
 * copies of itself it starts (riv_malloc_environ ()), which then need not
 * re-execute themselves. Not under valgrind (it would not follow the
 * re-execution, and its malloc is its own), nor with RIVULET_NO_REEXEC=1 set.
 */
#include "config.h"

#include <string.h>
#include <unistd.h>

#ifdef RIV_HAVE_VALGRIND_H
# include <valgrind/valgrind.h>
#endif

#include "riv-malloc.h"

#define HUGE_PAGES_TUNABLE "glibc.malloc.hugetlb=1"
/* Set across the re-execution: which variables it changed ("slice",
 * "tunables", "preload"), and the user's values to put back (LD_PRELOAD is
 * set only when the user had none). */
#define MARK          "RIVULET_REEXECUTED"
#define SAVED_SLICE   "RIVULET_SAVED_G_SLICE"
#define SAVED_TUNABLE "RIVULET_SAVED_GLIBC_TUNABLES"
/* Added to the mark of a child started with its parent's settings
 * (riv_malloc_environ ()): it did not re-execute itself for them. */
#define FROM_PARENT   "parent"

/* What the re-execution set, read before it is put back, for the children
 * to start with it (riv_malloc_environ ()): each variable is kept when the
 * mark names its word (the mark itself always), its value NULL when it was
 * not set. */
static struct
{
  const char *name;
  const char *word;
  char       *value;
} kept[] = {
  { MARK, NULL, NULL },
  { "G_SLICE", "slice", NULL },
  { SAVED_SLICE, "slice", NULL },
  { "GLIBC_TUNABLES", "tunables", NULL },
  { SAVED_TUNABLE, "tunables", NULL },
  { "LD_PRELOAD", "preload", NULL },
};

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

/* Keeps the variables the mark names, and the user's values saved for them,
 * as the re-execution set them. */
static void
keep (const char *changed)
{
  for (guint i = 0; i < G_N_ELEMENTS (kept); i++)
    {
      g_free (kept[i].value);
      kept[i].value = kept[i].word == NULL || strstr (changed, kept[i].word) != NULL
        ? g_strdup (g_getenv (kept[i].name)) : NULL;
    }
}

static void
save (const char *name,
      const char *saved)
{
  const char *value = g_getenv (name);

  if (value != NULL)
    g_setenv (saved, value, TRUE);
}

void
riv_malloc_choose (char           **argv,
                   RivMallocFlags   flags,
                   const char      *preload)
{
  const char *changed = g_getenv (MARK);
  const char *tunables = g_getenv ("GLIBC_TUNABLES");
  const char *user_preload = g_getenv ("LD_PRELOAD");
  const char *library = NULL;
  gboolean want_slice, want_huge;
  g_autoptr(GString) mark = NULL;

  if (changed != NULL)
    {
      /* GSlice has read G_SLICE by the first slice it hands out: make sure. */
      g_slice_free1 (8, g_slice_alloc (8));
      keep (changed);
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
  want_slice = (flags & RIV_MALLOC_NO_SLICE) != 0 && glib_check_version (2, 76, 0) != NULL &&
               g_getenv ("G_SLICE") == NULL;
  /* An empty LD_PRELOAD preloads nothing, as the dynamic loader reads it. */
  if (user_preload == NULL || *user_preload == '\0')
    library = preload;
  want_huge = (flags & RIV_MALLOC_HUGE_PAGES) != 0 && library == NULL &&
              (tunables == NULL || strstr (tunables, "glibc.malloc.hugetlb") == NULL);
  if (!want_slice && !want_huge && library == NULL)
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
  if (library != NULL)
    {
      g_setenv ("LD_PRELOAD", library, TRUE);
      g_string_append (mark, " preload");
    }
  g_setenv (MARK, mark->str, TRUE);
  execv ("/proc/self/exe", argv);
  /* It failed: carry on as this process is. */
  if (library != NULL)
    g_unsetenv ("LD_PRELOAD");
  g_unsetenv (MARK);
}

char **
riv_malloc_environ (char **envp)
{
  for (guint i = 0; i < G_N_ELEMENTS (kept); i++)
    {
      g_autofree char *mark = NULL;

      if (kept[i].value == NULL)
        continue;
      if (kept[i].word == NULL && strstr (kept[i].value, FROM_PARENT) == NULL)
        mark = g_strconcat (kept[i].value, " " FROM_PARENT, NULL);
      envp = g_environ_setenv (envp, kept[i].name, mark != NULL ? mark : kept[i].value, TRUE);
    }
  return envp;
}
