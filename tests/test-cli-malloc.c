/* test-cli-malloc.c
 * Copyright 2026 The Rivulet authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The re-executed `rivulet-cli load`/`serve` puts the environment back as the
 * user had it, so that nothing it starts inherits G_SLICE, the huge-pages
 * tunable or the preloaded jemalloc (riv-cli-malloc.c), but for the copies of
 * itself it starts, which start with them (riv_malloc_environ ()). The re-execution
 * itself is checked by test-cli: the heap of a serving process is advised
 * (/cli/huge-pages), a load process runs on jemalloc (/cli/jemalloc).
 */
#include "config.h"

#include "riv-cli.h"
#include "riv-malloc.h"

static void
test_puts_back_what_it_changed (void)
{
  /* The user had a tunable of their own and no G_SLICE. */
  g_setenv ("RIVULET_REEXECUTED", "slice tunables", TRUE);
  g_setenv ("RIVULET_SAVED_GLIBC_TUNABLES", "glibc.malloc.arena_max=2", TRUE);
  g_setenv ("GLIBC_TUNABLES", "glibc.malloc.arena_max=2:glibc.malloc.hugetlb=1", TRUE);
  g_setenv ("G_SLICE", "always-malloc", TRUE);
  riv_cli_choose_malloc (NULL);
  g_assert_cmpstr (g_getenv ("GLIBC_TUNABLES"), ==, "glibc.malloc.arena_max=2");
  g_assert_null (g_getenv ("G_SLICE"));
  g_assert_null (g_getenv ("RIVULET_REEXECUTED"));
  g_assert_null (g_getenv ("RIVULET_SAVED_GLIBC_TUNABLES"));

  /* The user had neither. */
  g_setenv ("RIVULET_REEXECUTED", "tunables", TRUE);
  g_setenv ("GLIBC_TUNABLES", "glibc.malloc.hugetlb=1", TRUE);
  riv_cli_choose_malloc (NULL);
  g_assert_null (g_getenv ("GLIBC_TUNABLES"));
  g_assert_null (g_getenv ("RIVULET_REEXECUTED"));
}

/* `load` preloaded jemalloc: its children must not. */
static void
test_puts_back_the_preload (void)
{
  g_setenv ("RIVULET_REEXECUTED", "slice preload", TRUE);
  g_setenv ("LD_PRELOAD", "/usr/lib/libjemalloc.so.2", TRUE);
  g_setenv ("G_SLICE", "always-malloc", TRUE);
  riv_cli_choose_malloc (NULL);
  g_assert_null (g_getenv ("LD_PRELOAD"));
  g_assert_null (g_getenv ("G_SLICE"));
  g_assert_null (g_getenv ("RIVULET_REEXECUTED"));

  /* Not named in the mark: the user's own preload stays. */
  g_setenv ("RIVULET_REEXECUTED", "tunables", TRUE);
  g_setenv ("GLIBC_TUNABLES", "glibc.malloc.hugetlb=1", TRUE);
  g_setenv ("LD_PRELOAD", "libmine.so", TRUE);
  riv_cli_choose_malloc (NULL);
  g_assert_cmpstr (g_getenv ("LD_PRELOAD"), ==, "libmine.so");
  g_assert_null (g_getenv ("GLIBC_TUNABLES"));
  g_unsetenv ("LD_PRELOAD");
}

static void
test_leaves_the_rest_alone (void)
{
  /* Only what the mark names is put back: a G_SLICE the user set stays. */
  g_setenv ("RIVULET_REEXECUTED", "tunables", TRUE);
  g_setenv ("GLIBC_TUNABLES", "glibc.malloc.hugetlb=1", TRUE);
  g_setenv ("G_SLICE", "debug-blocks", TRUE);
  riv_cli_choose_malloc (NULL);
  g_assert_cmpstr (g_getenv ("G_SLICE"), ==, "debug-blocks");
  g_assert_null (g_getenv ("GLIBC_TUNABLES"));
  g_unsetenv ("G_SLICE");

  /* Without a program to run again, nothing happens. */
  riv_cli_choose_malloc (NULL);
  g_assert_null (g_getenv ("RIVULET_REEXECUTED"));
  g_assert_null (g_getenv ("GLIBC_TUNABLES"));
}

/* The workers of `load --processes` start with what the re-execution set,
 * its mark saying they did not re-execute themselves, and put it back as
 * their parent did; the parent's own environment stays put back. */
static void
test_hands_it_to_copies (void)
{
  g_auto(GStrv) copy = NULL;

  g_setenv ("RIVULET_REEXECUTED", "slice tunables preload", TRUE);
  g_setenv ("RIVULET_SAVED_GLIBC_TUNABLES", "glibc.malloc.arena_max=2", TRUE);
  g_setenv ("GLIBC_TUNABLES", "glibc.malloc.arena_max=2:glibc.malloc.hugetlb=1", TRUE);
  g_setenv ("G_SLICE", "always-malloc", TRUE);
  g_setenv ("LD_PRELOAD", "/usr/lib/libjemalloc.so.2", TRUE);
  riv_cli_choose_malloc (NULL);
  g_assert_null (g_getenv ("LD_PRELOAD"));
  g_assert_null (g_getenv ("G_SLICE"));

  copy = riv_malloc_environ (g_get_environ ());
  g_assert_cmpstr (g_environ_getenv (copy, "RIVULET_REEXECUTED"), ==,
                   "slice tunables preload parent");
  g_assert_cmpstr (g_environ_getenv (copy, "RIVULET_SAVED_GLIBC_TUNABLES"), ==,
                   "glibc.malloc.arena_max=2");
  g_assert_cmpstr (g_environ_getenv (copy, "GLIBC_TUNABLES"), ==,
                   "glibc.malloc.arena_max=2:glibc.malloc.hugetlb=1");
  g_assert_cmpstr (g_environ_getenv (copy, "G_SLICE"), ==, "always-malloc");
  g_assert_cmpstr (g_environ_getenv (copy, "LD_PRELOAD"), ==, "/usr/lib/libjemalloc.so.2");
  g_assert_null (g_environ_getenv (copy, "RIVULET_SAVED_G_SLICE"));
  /* The worker, started with it, puts it back and does not re-execute. */
  for (guint i = 0; copy[i] != NULL; i++)
    {
      g_auto(GStrv) pair = g_strsplit (copy[i], "=", 2);

      g_setenv (pair[0], pair[1], TRUE);
    }
  riv_cli_choose_malloc ((char *[]) { (char *) "rivulet-cli", (char *) "load", NULL });
  g_assert_cmpstr (g_getenv ("GLIBC_TUNABLES"), ==, "glibc.malloc.arena_max=2");
  g_assert_null (g_getenv ("LD_PRELOAD"));
  g_assert_null (g_getenv ("G_SLICE"));
  g_assert_null (g_getenv ("RIVULET_REEXECUTED"));
  g_assert_null (g_getenv ("RIVULET_SAVED_GLIBC_TUNABLES"));
  /* Handed on again, the mark does not say so twice. */
  g_clear_pointer (&copy, g_strfreev);
  copy = riv_malloc_environ (g_get_environ ());
  g_assert_cmpstr (g_environ_getenv (copy, "RIVULET_REEXECUTED"), ==,
                   "slice tunables preload parent");
  g_assert_cmpstr (g_environ_getenv (copy, "RIVULET_SAVED_GLIBC_TUNABLES"), ==,
                   "glibc.malloc.arena_max=2");
  g_unsetenv ("GLIBC_TUNABLES");
}

/* The user's own preload is not the mark's: it stays theirs, for the copies
 * as for the rest. */
static void
test_copies_keep_the_users_preload (void)
{
  g_auto(GStrv) copy = NULL;

  g_setenv ("RIVULET_REEXECUTED", "tunables", TRUE);
  g_setenv ("GLIBC_TUNABLES", "glibc.malloc.hugetlb=1", TRUE);
  g_setenv ("LD_PRELOAD", "libmine.so", TRUE);
  riv_cli_choose_malloc (NULL);
  g_setenv ("LD_PRELOAD", "libmine-now.so", TRUE);
  copy = riv_malloc_environ (g_get_environ ());
  g_assert_cmpstr (g_environ_getenv (copy, "LD_PRELOAD"), ==, "libmine-now.so");
  g_assert_cmpstr (g_environ_getenv (copy, "GLIBC_TUNABLES"), ==, "glibc.malloc.hugetlb=1");
  g_assert_cmpstr (g_environ_getenv (copy, "RIVULET_REEXECUTED"), ==, "tunables parent");
  g_assert_null (g_environ_getenv (copy, "G_SLICE"));
  g_unsetenv ("LD_PRELOAD");
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/cli-malloc/puts-back-what-it-changed", test_puts_back_what_it_changed);
  g_test_add_func ("/cli-malloc/leaves-the-rest-alone", test_leaves_the_rest_alone);
  g_test_add_func ("/cli-malloc/puts-back-the-preload", test_puts_back_the_preload);
  g_test_add_func ("/cli-malloc/hands-it-to-copies", test_hands_it_to_copies);
  g_test_add_func ("/cli-malloc/copies-keep-the-users-preload", test_copies_keep_the_users_preload);

  return g_test_run ();
}
