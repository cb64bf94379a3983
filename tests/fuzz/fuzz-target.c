/* fuzz-target.c
 * Copyright 2026 The Rivulet authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The libFuzzer main of every target: meson compiles it once per target with
 * RIV_FUZZ_ENTRY naming the target's checking entry point (fuzz-entry.h).
 */
#include "config.h"

#include "fuzz-entry.h"

#ifndef RIV_FUZZ_ENTRY
#error "RIV_FUZZ_ENTRY must name a riv_fuzz_* entry point"
#endif

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
  RIV_FUZZ_ENTRY (data, size);
  return 0;
}
