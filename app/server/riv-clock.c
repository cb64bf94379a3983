/* riv-clock.c
 * Copyright 2026 The Rivulet authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "config.h"

#include "riv-clock.h"

struct _RivClock
{
  GMutex         lock;
  GCond          cond;
  GPtrArray     *heap;       /* RivClockEntry, borrowed: a min-heap by at */
  gboolean       quit;       /* everything left is due now; stop once empty */
  RivClockFunc   func;
  gpointer       user_data;
  GThread       *thread;
};

/* ---- the heap (lock held) ---- */

static inline RivClockEntry *
heap_at (RivClock *self,
         guint     i)
{
  return g_ptr_array_index (self->heap, i);
}

static inline void
heap_put (RivClock      *self,
          guint          i,
          RivClockEntry *entry)
{
  self->heap->pdata[i] = entry;
  entry->index = i;
}

static void
heap_up (RivClock *self,
         guint     i)
{
  RivClockEntry *entry = heap_at (self, i);

  while (i > 0)
    {
      guint parent = (i - 1) / 2;

      if (heap_at (self, parent)->at <= entry->at)
        break;
      heap_put (self, i, heap_at (self, parent));
      i = parent;
    }
  heap_put (self, i, entry);
}

static void
heap_down (RivClock *self,
           guint     i)
{
  RivClockEntry *entry = heap_at (self, i);
  guint n = self->heap->len;

  for (;;)
    {
      guint child = 2 * i + 1;

      if (child >= n)
        break;
      if (child + 1 < n && heap_at (self, child + 1)->at < heap_at (self, child)->at)
        child++;
      if (entry->at <= heap_at (self, child)->at)
        break;
      heap_put (self, i, heap_at (self, child));
      i = child;
    }
  heap_put (self, i, entry);
}

static void
heap_remove (RivClock      *self,
             RivClockEntry *entry)
{
  guint i = entry->index;
  RivClockEntry *last = g_ptr_array_steal_index (self->heap, self->heap->len - 1);

  entry->index = RIV_CLOCK_NONE;
  if (last == entry)
    return;
  heap_put (self, i, last);
  heap_up (self, i);
  heap_down (self, last->index);
}

/* ---- the thread ---- */

static gpointer
clock_thread (gpointer data)
{
  RivClock *self = data;

  g_mutex_lock (&self->lock);
  for (;;)
    {
      RivClockEntry *head;

      if (self->heap->len == 0)
        {
          if (self->quit)
            break;
          g_cond_wait (&self->cond, &self->lock);
          continue;
        }
      head = heap_at (self, 0);
      /* A wait ends early when an earlier entry comes in (or the clock
       * stops): look again. */
      if (!self->quit && head->at > g_get_monotonic_time ())
        {
          g_cond_wait_until (&self->cond, &self->lock, head->at);
          continue;
        }
      heap_remove (self, head);
      g_mutex_unlock (&self->lock);
      self->func (head, self->user_data);
      g_mutex_lock (&self->lock);
    }
  g_mutex_unlock (&self->lock);
  return NULL;
}

/* ---- API ---- */

RivClock *
riv_clock_new (const char   *thread_name,
               RivClockFunc  func,
               gpointer      user_data)
{
  RivClock *self = g_new0 (RivClock, 1);

  g_mutex_init (&self->lock);
  g_cond_init (&self->cond);
  self->heap = g_ptr_array_new ();
  self->func = func;
  self->user_data = user_data;
  self->thread = g_thread_new (thread_name, clock_thread, self);
  return self;
}

/* Puts entry at its time (lock held); it may be in the heap already. */
static void
clock_place (RivClock      *self,
             RivClockEntry *entry,
             gint64         at)
{
  entry->at = at;
  if (entry->index == RIV_CLOCK_NONE)
    {
      g_ptr_array_add (self->heap, entry);
      heap_up (self, self->heap->len - 1);
    }
  else
    {
      heap_up (self, entry->index);
      heap_down (self, entry->index);
    }
  /* The thread sleeps until the head's time: a new head wakes it. */
  if (entry->index == 0)
    g_cond_signal (&self->cond);
}

void
riv_clock_set (RivClock      *self,
               RivClockEntry *entry,
               gint64         at)
{
  g_mutex_lock (&self->lock);
  clock_place (self, entry, at);
  g_mutex_unlock (&self->lock);
}

gboolean
riv_clock_move (RivClock      *self,
                RivClockEntry *entry,
                gint64         at)
{
  gboolean in;

  g_mutex_lock (&self->lock);
  in = entry->index != RIV_CLOCK_NONE;
  if (in)
    clock_place (self, entry, at);
  g_mutex_unlock (&self->lock);
  return in;
}

guint
riv_clock_get_n (RivClock *self)
{
  guint n;

  g_mutex_lock (&self->lock);
  n = self->heap->len;
  g_mutex_unlock (&self->lock);
  return n;
}

void
riv_clock_free (RivClock *self)
{
  if (self == NULL)
    return;

  g_mutex_lock (&self->lock);
  self->quit = TRUE;
  g_cond_signal (&self->cond);
  g_mutex_unlock (&self->lock);
  g_thread_join (self->thread);

  g_ptr_array_unref (self->heap);
  g_mutex_clear (&self->lock);
  g_cond_clear (&self->cond);
  g_free (self);
}
