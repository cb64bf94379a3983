/* fuzz-entry-common.c
 * Copyright 2026 The Rivulet authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>

#include "fuzz-entry.h"

void
riv_fuzz_init (void)
{
  g_log_set_always_fatal (G_LOG_LEVEL_ERROR | G_LOG_LEVEL_CRITICAL | G_LOG_LEVEL_WARNING);
}

const char *
riv_fuzz_format (const char *format,
                 ...)
{
  static char buf[1024];
  va_list args;

  va_start (args, format);
  g_vsnprintf (buf, sizeof buf, format, args);
  va_end (args);
  return buf;
}

void
riv_fuzz_fail (const char *format,
               ...)
{
  va_list args;

  fputs ("riv-fuzz: ", stderr);
  va_start (args, format);
  vfprintf (stderr, format, args);
  va_end (args);
  fputc ('\n', stderr);
  fflush (stderr);
  abort ();
}
