/* riv-compat.h
 * Copyright 2026 The Rivulet authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * What GLib 2.74 (Debian 12) lacks or gets wrong for Rivulet: g_set_str() of
 * GLib 2.76, a 64-bit hash that uses all 64 bits, the monotonic clock in
 * seconds, and a thread's CPU time.
 */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* g_set_str() arrived in GLib 2.76; Debian 12 has 2.74. Returns TRUE when the value changed. */
gboolean  riv_set_str           (char       **str_pointer,
                                 const char  *new_str);

/* Monotonic time in seconds (double), for timestamps and durations. */
double    riv_now               (void);
/* How long the calling thread has run, or been ready to run and waited for
 * a core, in seconds: Linux's /proc/thread-self/schedstat, else its CPU time
 * alone, else 0 (the system cannot say). Over a while, its share of the
 * time is how much of it the thread wanted. */
double    riv_thread_busy_time  (void);

/* A GHashFunc for gint64 keys that depends on all 64 bits: GLib 2.74's
 * g_int64_hash() keeps only the low 32, so keys that differ above them (a
 * transcript's request ids carry the client's number from bit 40) all collide
 * and every insert walks the others. Use with g_int64_equal(). */
guint     riv_int64_hash        (gconstpointer v);

G_END_DECLS
