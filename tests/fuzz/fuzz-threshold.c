/* fuzz-threshold.c
 * Copyright 2026 The Rivulet authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * libFuzzer target; the checks are in fuzz-entry-threshold.c.
 */
#include "config.h"

#include "fuzz-entry.h"

int LLVMFuzzerInitialize (int *argc, char ***argv);
int LLVMFuzzerTestOneInput (const guint8 *data, gsize size);

int
LLVMFuzzerInitialize (int    *argc,
                      char ***argv)
{
  riv_fuzz_init ();
  return 0;
}

int
LLVMFuzzerTestOneInput (const guint8 *data,
                        gsize         size)
{
  riv_fuzz_threshold (data, size);
  return 0;
}
