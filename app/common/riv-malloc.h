/* riv-malloc.h
 * Copyright 2026 The Rivulet authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

typedef enum
{
  /* glibc's malloc on transparent huge pages (GLIBC_TUNABLES
   * glibc.malloc.hugetlb=1), unless the user set a hugetlb value or a
   * preload is chosen. */
  RIV_MALLOC_HUGE_PAGES = 1 << 0,
  /* G_SLICE=always-malloc with GLib older than 2.76, unless the user set
   * G_SLICE. */
  RIV_MALLOC_NO_SLICE   = 1 << 1,
} RivMallocFlags;

/* The allocator of a process, chosen at the top of main(): these settings are
 * read once, at the start, so they take a re-execution of the program with its
 * environment changed. preload (nullable) is an allocator library to preload,
 * when the user preloads nothing. Returns at once when nothing is to change,
 * under valgrind, with RIVULET_NO_REEXEC=1, or with argv NULL; does not return
 * when it re-executes. In the re-executed process, it puts the environment
 * back as the user had it, so that nothing the program starts inherits it. */
void      riv_malloc_choose     (char           **argv,
                                 RivMallocFlags   flags,
                                 const char      *preload);
/* The environment to start a copy of this program in with the allocator
 * riv_malloc_choose() re-executed it with, so that the copy need not
 * re-execute itself: envp (owned, as g_environ_setenv() takes it) with the
 * variables it set, the user's values it saved and its mark, as they were
 * before they were put back; the copy puts them back as this process did.
 * envp as it is when this process was not re-executed. Only for copies of
 * this process, the same command that would choose the same allocator:
 * anything else it starts is to inherit none of it. */
char    **riv_malloc_environ    (char           **envp);

G_END_DECLS
