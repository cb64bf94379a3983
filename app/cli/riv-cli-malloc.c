/* riv-cli-malloc.c
 * Copyright 2026 The Rivulet authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The allocator of `load` and `serve`, the two commands that hold thousands of
 * jobs or users (riv_malloc_choose() re-executes the program with it):
 *
 *  - G_SLICE=always-malloc with GLib older than 2.76, whose GSlice keeps freed
 *    slices in its own caches, so a server's memory never comes back after a
 *    burst (newer GLib always uses malloc);
 *  - `load`: jemalloc (LD_PRELOAD), when the build found it, its library is
 *    there and the user preloads nothing (an empty LD_PRELOAD is nothing).
 *    With 10,000 users the client holds some 400 MB in many sizes, and
 *    glibc's malloc spent a growing share of its time sorting and merging free
 *    chunks: jemalloc took about 20 % less CPU a job there
 *    (app/docs/measurements.md). `serve` stays on glibc: there it gave the
 *    same CPU for 15-30 % more memory;
 *  - otherwise glibc's malloc on transparent huge pages (GLIBC_TUNABLES
 *    glibc.malloc.hugetlb=1, unless the user set a hugetlb value): a load
 *    client with 1,000 users spent 20 % less CPU at the same peak memory.
 */
#include "config.h"

#include "riv-cli.h"
#include "riv-malloc.h"

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
  gboolean load = argv != NULL && argv[0] != NULL && g_strcmp0 (argv[1], "load") == 0;

  riv_malloc_choose (argv, RIV_MALLOC_HUGE_PAGES | RIV_MALLOC_NO_SLICE,
                     load ? jemalloc_path () : NULL);
}
