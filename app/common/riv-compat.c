/* riv-compat.c
 * Copyright 2026 The Rivulet authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "config.h"

#include <fcntl.h>
#include <time.h>
#include <unistd.h>

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

double
riv_thread_busy_time (void)
{
#ifdef __linux__
  char text[96];
  int fd = open ("/proc/thread-self/schedstat", O_RDONLY | O_CLOEXEC);

  if (fd >= 0)
    {
      ssize_t n = read (fd, text, sizeof text - 1);
      guint64 ran, waited;
      char *end;

      close (fd);
      /* "ran waited timeslices", in nanoseconds. */
      if (n > 0)
        {
          text[n] = '\0';
          ran = g_ascii_strtoull (text, &end, 10);
          if (end != text && *end == ' ')
            {
              char *after = end + 1;

              waited = g_ascii_strtoull (after, &end, 10);
              if (end != after)
                return (ran + waited) / 1e9;
            }
        }
    }
#endif
#ifdef CLOCK_THREAD_CPUTIME_ID
  {
    struct timespec ts;

    if (clock_gettime (CLOCK_THREAD_CPUTIME_ID, &ts) == 0)
      return ts.tv_sec + ts.tv_nsec / 1e9;
  }
#endif
  return 0;
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
