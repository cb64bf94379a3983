/* riv-compat.c
 * Copyright 2026 The Rivulet authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "config.h"

#include "riv-compat.h"

gboolean
riv_set_str (char       **str_pointer,
             const char  *new_str)
{
  char *copy;

  g_return_val_if_fail (str_pointer != NULL, FALSE);

  if (*str_pointer == new_str || g_strcmp0 (*str_pointer, new_str) == 0)
    return FALSE;

  copy = g_strdup (new_str);
  g_free (*str_pointer);
  *str_pointer = copy;

  return TRUE;
}

double
riv_now (void)
{
  return g_get_monotonic_time () / (double) G_USEC_PER_SEC;
}

guint
riv_int64_hash (gconstpointer v)
{
  guint64 x = *(const guint64 *) v;

  /* The finalizer of MurmurHash3: every input bit moves every output bit. */
  x ^= x >> 33;
  x *= G_GUINT64_CONSTANT (0xff51afd7ed558ccd);
  x ^= x >> 33;
  x *= G_GUINT64_CONSTANT (0xc4ceb9fe1a85ec53);
  x ^= x >> 33;
  return (guint) x;
}
