/* riv-run.c
 * Copyright 2026 The Rivulet authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * A run's inputs (RivDemoParams, riv-run.h): freed, and what they hold in
 * memory. The rest of the RivRun API is implemented by the queue
 * (riv-queue.c).
 */
#include "config.h"

#include <string.h>

#include "riv-run.h"

void
riv_demo_params_free (RivDemoParams *params)
{
  if (params == NULL)
    return;
  for (guint i = 0; i < params->n; i++)
    g_free (params->values[i].text);
  g_free (params);
}

/* An allocation's header and rounding, as glibc's malloc makes them. */
#define ALLOC_OVERHEAD 16

gsize
riv_demo_params_get_size (const RivDemoParams *params)
{
  gsize size = sizeof (RivDemoParams) + params->n * sizeof (RivDemoValue) + ALLOC_OVERHEAD;

  for (guint i = 0; i < params->n; i++)
    if (params->values[i].text != NULL)
      size += strlen (params->values[i].text) + 1 + ALLOC_OVERHEAD;
  return size;
}
