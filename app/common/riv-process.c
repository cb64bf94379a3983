/* riv-process.c
 * Copyright 2026 The Rivulet authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "config.h"

#include <errno.h>
#include <sys/resource.h>

#include "riv-process.h"

void
riv_raise_fd_limit (void)
{
  struct rlimit limit;

  if (getrlimit (RLIMIT_NOFILE, &limit) == 0 && limit.rlim_cur < limit.rlim_max)
    {
      limit.rlim_cur = limit.rlim_max;
      if (setrlimit (RLIMIT_NOFILE, &limit) != 0)
        g_debug ("Could not raise the open-file limit: %s", g_strerror (errno));
    }
}
