/* riv-clock.h
 * Copyright 2026 The Rivulet authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * One worker thread that calls a function for each entry when its time
 * comes: the steps of the demos that mostly wait (RivRunSteps), so that
 * thousands of streams that each wait 50 ms between tokens wake one thread,
 * not one thread each. Entries are kept in a binary heap by deadline
 * (g_get_monotonic_time () microseconds); an entry is embedded in its owner
 * and knows its place, so moving one (a cancelled run's step made due now)
 * costs O(log n).
 */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

typedef struct
{
  gint64 at;     /* its deadline */
  guint  index;  /* its place in the heap; RIV_CLOCK_NONE when not in it */
} RivClockEntry;

#define RIV_CLOCK_NONE G_MAXUINT
#define RIV_CLOCK_ENTRY_INIT { 0, RIV_CLOCK_NONE }

/* Called on the clock's thread, the clock's lock not held, for an entry
 * taken out of the clock as its time came. */
typedef void (*RivClockFunc) (RivClockEntry *entry,
                              gpointer       user_data);

typedef struct _RivClock RivClock;

RivClock *riv_clock_new    (const char    *thread_name,
                            RivClockFunc   func,
                            gpointer       user_data);
/* Any thread: puts entry in the clock for time at, or moves it there if it
 * is in it already. An at in the past is due at once. */
void      riv_clock_set    (RivClock      *self,
                            RivClockEntry *entry,
                            gint64         at);
/* Any thread: moves entry to time at if it is in the clock; FALSE (and
 * nothing done) when it is not, as when its time came and the function is
 * being called for it. */
gboolean  riv_clock_move   (RivClock      *self,
                            RivClockEntry *entry,
                            gint64         at);
/* Entries in the clock now. Any thread. */
guint     riv_clock_get_n  (RivClock      *self);
/* Calls the function for every entry left, at once, each as it comes
 * (entries the function puts back too), until none is left; then stops the
 * thread and frees the clock. For a shutdown that has told every owner to
 * stop at its next step. */
void      riv_clock_free   (RivClock      *self);

G_END_DECLS
