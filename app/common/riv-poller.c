/* riv-poller.c
 * Copyright 2026 The Rivulet authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * GLib keeps one poll record per descriptor a source waits on, in a list
 * sorted by descriptor that every add and remove walks, and every iteration
 * of the loop hands all of them to poll(): with ten thousand streams each
 * waiting for its next chunk, that walk was a third of the client's time.
 * A poller is one source per context and priority that waits on a single
 * epoll descriptor instead. Each watch asks for one callback at a time:
 * soon (the next dispatch), after some milliseconds, or when its socket is
 * readable or writable (level-triggered, one-shot: armed again by the next
 * request). A watch made for no socket (fd -1) is only called soon or after.
 *
 * A watch is used on its poller's context only. Events name a watch by slot
 * and generation, never by pointer, so an event that was already queued for
 * a watch freed since is recognised and dropped.
 */
#include "config.h"

#include <errno.h>
#include <sys/stat.h>
#include <unistd.h>
#ifdef HAVE_SYS_EPOLL_H
#include <sys/epoll.h>
#endif

#include <gio/gio.h>

#include "riv-poller.h"

#define MAX_EVENTS 256

typedef enum
{
  WATCH_IDLE,
  WATCH_SOON,     /* in poller->soon: runs in the next dispatch */
  WATCH_RUNNING,  /* in poller->running: runs in this dispatch */
  WATCH_LATER,    /* in poller->later, by due time */
  WATCH_ARMED,    /* registered for one readable event */
} WatchState;

struct _RivPollerWatch
{
  RivPoller     *poller;      /* ref */
  RivPollerFunc  func;
  gpointer       user_data;
  GList          link;        /* in soon, a dispatch's running or later */
  GQueue        *running;     /* WATCH_RUNNING: the dispatch's queue it is in */
  gint64         due;         /* WATCH_LATER: monotonic time, µs */
  guint32        slot;
  guint32        generation;
  int            fd;
  gboolean       owned;       /* fd is the caller's until the watch is freed */
  dev_t          dev;         /* the socket fd named when the watch was made */
  ino_t          ino;
  WatchState     state;
  gboolean       registered;  /* known to epoll */
};

typedef struct
{
  RivPollerWatch *watch;      /* NULL while free */
  guint32         generation;
} Slot;

struct _RivPoller
{
  GSource        source;
  GMainContext  *context;     /* ref, until the last unref */
  int            priority;
  int            epfd;
  gpointer       tag;
  int            ref_count;   /* under pollers_lock */
  guint          n_watches;
  GQueue         soon;
  GQueue         later;
  GArray        *slots;       /* Slot */
  GArray        *free_slots;  /* guint32 */
};

static GMutex pollers_lock;
/* Live pollers (not refs) by context: GMainContext* → GSList of one per
 * priority. A load run has one context per eight users, and each user's
 * client looks its poller up once. */
static GHashTable *pollers;

static void
watch_unschedule (RivPollerWatch *w)
{
  RivPoller *self = w->poller;

  switch (w->state)
    {
    case WATCH_SOON:
      g_queue_unlink (&self->soon, &w->link);
      break;
    case WATCH_RUNNING:
      g_queue_unlink (w->running, &w->link);
      break;
    case WATCH_LATER:
      g_queue_unlink (&self->later, &w->link);
      break;
    case WATCH_ARMED:
      /* Stays registered: an event it still brings finds the watch in
       * another state and is dropped (one-shot, so at most one). */
    case WATCH_IDLE:
    default:
      break;
    }
  w->state = WATCH_IDLE;
}

static gboolean
later_due (RivPoller *self,
           gint64     now)
{
  return self->later.head != NULL && ((RivPollerWatch *) self->later.head->data)->due <= now;
}

static gboolean
poller_prepare (GSource *source,
                int     *timeout)
{
  RivPoller *self = (RivPoller *) source;
  gint64 now;
  gint64 wait;

  *timeout = -1;
  if (self->soon.length > 0)
    {
      *timeout = 0;
      return TRUE;
    }
  if (self->later.head == NULL)
    return FALSE;

  now = g_source_get_time (source);
  if (later_due (self, now))
    {
      *timeout = 0;
      return TRUE;
    }
  wait = (((RivPollerWatch *) self->later.head->data)->due - now + 999) / 1000;
  *timeout = (int) MIN (wait, G_MAXINT);
  return FALSE;
}

static gboolean
poller_check (GSource *source)
{
  RivPoller *self = (RivPoller *) source;

  return self->soon.length > 0 || later_due (self, g_source_get_time (source)) ||
         (g_source_query_unix_fd (source, self->tag) & (G_IO_IN | G_IO_HUP | G_IO_ERR)) != 0;
}

static void
run_watch (RivPollerWatch *w)
{
  w->state = WATCH_IDLE;
  w->func (w->user_data);
}

static void
dispatch_readable (RivPoller *self)
{
#ifdef HAVE_SYS_EPOLL_H
  struct epoll_event events[MAX_EVENTS];
  int n = epoll_wait (self->epfd, events, MAX_EVENTS, 0);

  for (int i = 0; i < n; i++)
    {
      guint32 slot = (guint32) (events[i].data.u64 >> 32);
      guint32 generation = (guint32) events[i].data.u64;
      Slot *s;

      if (slot >= self->slots->len)
        continue;
      s = &g_array_index (self->slots, Slot, slot);
      /* Freed since (generation), or asked for something else meanwhile. */
      if (s->watch == NULL || s->generation != generation || s->watch->state != WATCH_ARMED)
        continue;
      run_watch (s->watch);
    }
#endif
}

static gboolean
poller_dispatch (GSource     *source,
                 GSourceFunc  callback,
                 gpointer     user_data)
{
  RivPoller *self = (RivPoller *) source;
  gint64 now = g_source_get_time (source);
  GQueue running;
  GList *link;

  /* What is due now runs in this dispatch; what the callbacks ask for
   * "soon" waits for the next one, so other sources get their turn. The
   * queue is this dispatch's own: one nested in a callback (the source may
   * recurse, see riv_poller_get ()) has its own. */
  while (later_due (self, now))
    {
      link = self->later.head;
      g_queue_unlink (&self->later, link);
      g_queue_push_tail_link (&self->soon, link);
      ((RivPollerWatch *) link->data)->state = WATCH_SOON;
    }
  running = self->soon;
  g_queue_init (&self->soon);
  for (link = running.head; link != NULL; link = link->next)
    {
      ((RivPollerWatch *) link->data)->state = WATCH_RUNNING;
      ((RivPollerWatch *) link->data)->running = &running;
    }

  /* A callback may free any watch: freeing unlinks it from running. */
  while ((link = g_queue_pop_head_link (&running)) != NULL)
    run_watch (link->data);

  dispatch_readable (self);
  return G_SOURCE_CONTINUE;
}

static void
poller_finalize (GSource *source)
{
  RivPoller *self = (RivPoller *) source;

  if (self->epfd >= 0)
    close (self->epfd);
  g_clear_pointer (&self->slots, g_array_unref);
  g_clear_pointer (&self->free_slots, g_array_unref);
}

static GSourceFuncs poller_funcs = {
  .prepare = poller_prepare,
  .check = poller_check,
  .dispatch = poller_dispatch,
  .finalize = poller_finalize,
};

/* The poller of context (NULL: the global default) for sources of this
 * priority, made on first use; NULL where epoll is not available. */
RivPoller *
riv_poller_get (GMainContext *context,
                int           priority)
{
#ifdef HAVE_SYS_EPOLL_H
  RivPoller *self = NULL;
  int epfd;

  if (context == NULL)
    context = g_main_context_default ();

  /* One locked lookup-or-create: one poller per context and priority. */
  g_mutex_lock (&pollers_lock);
  if (pollers == NULL)
    pollers = g_hash_table_new (NULL, NULL);
  for (GSList *l = g_hash_table_lookup (pollers, context); l != NULL && self == NULL; l = l->next)
    {
      RivPoller *p = l->data;

      if (p->context == context && p->priority == priority)
        {
          self = p;
          self->ref_count++;
        }
    }
  if (self != NULL)
    goto out;

  epfd = epoll_create1 (EPOLL_CLOEXEC);
  if (epfd < 0)
    {
      g_debug ("epoll_create1: %s; streams wait with GLib's own sources", g_strerror (errno));
      goto out;
    }

  self = (RivPoller *) g_source_new (&poller_funcs, sizeof (RivPoller));
  self->context = g_main_context_ref (context);
  self->priority = priority;
  self->epfd = epfd;
  self->ref_count = 1;
  g_queue_init (&self->soon);
  g_queue_init (&self->later);
  self->slots = g_array_new (FALSE, FALSE, sizeof (Slot));
  self->free_slots = g_array_new (FALSE, FALSE, sizeof (guint32));
  self->tag = g_source_add_unix_fd (&self->source, epfd, G_IO_IN);
  g_source_set_priority (&self->source, priority);
  g_source_set_static_name (&self->source, "Rivulet streams");
  /* GLib takes a source that may not recurse out of the poll set while it
   * is dispatched and puts it back after, and each of the two wakes the
   * context (an eventfd write, and one more turn of the loop to take it):
   * per message a stream reads. Dispatches nest safely (each has its own
   * queue; an event is one-shot). */
  g_source_set_can_recurse (&self->source, TRUE);
  g_source_attach (&self->source, context);
  g_hash_table_insert (pollers, context,
                       g_slist_prepend (g_hash_table_lookup (pollers, context), self));

out:
  g_mutex_unlock (&pollers_lock);
  return self;
#else
  return NULL;
#endif
}

RivPoller *
riv_poller_ref (RivPoller *self)
{
  g_return_val_if_fail (self != NULL, NULL);

  g_mutex_lock (&pollers_lock);
  self->ref_count++;
  g_mutex_unlock (&pollers_lock);
  return self;
}

void
riv_poller_unref (RivPoller *self)
{
  gboolean last;

  g_return_if_fail (self != NULL);

  g_mutex_lock (&pollers_lock);
  last = --self->ref_count == 0;
  if (last)
    {
      GSList *same = g_slist_remove (g_hash_table_lookup (pollers, self->context), self);

      if (same != NULL)
        g_hash_table_insert (pollers, self->context, same);
      else
        g_hash_table_remove (pollers, self->context);
    }
  g_mutex_unlock (&pollers_lock);
  if (!last)
    return;

  /* Every watch holds a ref: none is left. The memory lives on while GLib
   * still dispatches the source (it holds a ref of its own). */
  g_assert (self->n_watches == 0);
  g_clear_pointer (&self->context, g_main_context_unref);
  g_source_destroy (&self->source);
  g_source_unref (&self->source);
}

GMainContext *
riv_poller_get_context (RivPoller *self)
{
  g_return_val_if_fail (self != NULL, NULL);

  return self->context;
}

guint
riv_poller_get_n_watches (RivPoller *self)
{
  g_return_val_if_fail (self != NULL, 0);

  return self->n_watches;
}

static RivPollerWatch *
watch_new (RivPoller     *poller,
           int            fd,
           gboolean       owned,
           RivPollerFunc  func,
           gpointer       user_data)
{
  RivPollerWatch *w;
  struct stat st;
  Slot *s;

  g_return_val_if_fail (poller != NULL, NULL);
  g_return_val_if_fail (func != NULL, NULL);

  w = g_new0 (RivPollerWatch, 1);
  w->poller = riv_poller_ref (poller);
  w->func = func;
  w->user_data = user_data;
  w->link.data = w;
  w->fd = fd;
  w->owned = owned;
  if (fd >= 0 && !owned && fstat (fd, &st) == 0)
    {
      w->dev = st.st_dev;
      w->ino = st.st_ino;
    }

  if (poller->free_slots->len > 0)
    {
      w->slot = g_array_index (poller->free_slots, guint32, poller->free_slots->len - 1);
      g_array_set_size (poller->free_slots, poller->free_slots->len - 1);
    }
  else
    {
      Slot empty = { NULL, 0 };

      w->slot = poller->slots->len;
      g_array_append_val (poller->slots, empty);
    }
  s = &g_array_index (poller->slots, Slot, w->slot);
  s->watch = w;
  w->generation = s->generation;
  poller->n_watches++;

  return w;
}

/* A watch of the socket fd, which must stay open until the watch is freed or
 * no longer asks for "readable". */
RivPollerWatch *
riv_poller_watch_new (RivPoller     *poller,
                      int            fd,
                      RivPollerFunc  func,
                      gpointer       user_data)
{
  return watch_new (poller, fd, FALSE, func, user_data);
}

/* A watch for a socket its caller owns and closes only after freeing the
 * watch: the number names that socket as long as the watch lives, and is
 * not checked (an fstat () when it is made and one when it is freed). */
RivPollerWatch *
riv_poller_watch_new_owned (RivPoller     *poller,
                            int            fd,
                            RivPollerFunc  func,
                            gpointer       user_data)
{
  return watch_new (poller, fd, TRUE, func, user_data);
}

/* Calls the watch's function in the poller's next dispatch. */
void
riv_poller_watch_soon (RivPollerWatch *w)
{
  g_return_if_fail (w != NULL);

  if (w->state == WATCH_SOON)
    return;
  watch_unschedule (w);
  w->state = WATCH_SOON;
  g_queue_push_tail_link (&w->poller->soon, &w->link);
}

/* Calls it ms milliseconds from now (in order with others that are due). */
void
riv_poller_watch_after (RivPollerWatch *w,
                        guint           ms)
{
  GQueue *later;
  GList *sibling;

  g_return_if_fail (w != NULL);

  watch_unschedule (w);
  w->due = g_get_monotonic_time () + (gint64) ms * 1000;
  w->state = WATCH_LATER;

  /* Watches mostly wait the same time: they go at the tail. */
  later = &w->poller->later;
  for (sibling = later->tail; sibling != NULL; sibling = sibling->prev)
    if (((RivPollerWatch *) sibling->data)->due <= w->due)
      break;
  if (sibling == NULL)
    g_queue_push_head_link (later, &w->link);
  else
    g_queue_insert_after_link (later, sibling, &w->link);
}

/* Registers the watch for one event: G_IO_IN (readable, or the peer's end)
 * or G_IO_OUT (writable); errors and hang-ups come with either. */
static gboolean
watch_arm (RivPollerWatch  *w,
           GIOCondition     condition,
           GError         **error)
{
#ifdef HAVE_SYS_EPOLL_H
  struct epoll_event ev = { 0 };
  RivPoller *self;
  int op;

  g_return_val_if_fail (w != NULL, FALSE);

  if (w->fd < 0)
    {
      g_set_error_literal (error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT,
                           "The watch was made for no socket");
      return FALSE;
    }
  self = w->poller;
  watch_unschedule (w);
  ev.events = ((condition & G_IO_IN) ? EPOLLIN | EPOLLRDHUP : 0) |
              ((condition & G_IO_OUT) ? EPOLLOUT : 0) | EPOLLONESHOT;
  ev.data.u64 = ((guint64) w->slot << 32) | w->generation;
  op = w->registered ? EPOLL_CTL_MOD : EPOLL_CTL_ADD;
  if (epoll_ctl (self->epfd, op, w->fd, &ev) < 0 &&
      (op != EPOLL_CTL_ADD || errno != EEXIST || epoll_ctl (self->epfd, EPOLL_CTL_MOD, w->fd, &ev) < 0))
    {
      int saved = errno;

      g_set_error (error, G_IO_ERROR, g_io_error_from_errno (saved),
                   "Could not wait for the socket: %s", g_strerror (saved));
      return FALSE;
    }
  w->registered = TRUE;
  w->state = WATCH_ARMED;
  return TRUE;
#else
  g_set_error_literal (error, G_IO_ERROR, G_IO_ERROR_NOT_SUPPORTED, "No epoll");
  return FALSE;
#endif
}

/* Calls it once the socket has something to read (data, its end or an
 * error). Only right after a read of everything there was: what libsoup or
 * TLS buffered above the socket does not make it readable. */
gboolean
riv_poller_watch_readable (RivPollerWatch  *w,
                           GError         **error)
{
  return watch_arm (w, G_IO_IN, error);
}

/* Calls it once the socket can be written to (a connection made, room in
 * its send buffer) or has failed. */
gboolean
riv_poller_watch_writable (RivPollerWatch  *w,
                           GError         **error)
{
  return watch_arm (w, G_IO_OUT, error);
}

/* Whether a callback is still to come. */
gboolean
riv_poller_watch_is_waiting (RivPollerWatch *w)
{
  g_return_val_if_fail (w != NULL, FALSE);

  return w->state != WATCH_IDLE;
}

void
riv_poller_watch_free (RivPollerWatch *w)
{
  RivPoller *self;
  Slot *s;

  if (w == NULL)
    return;

  self = w->poller;
  watch_unschedule (w);

#ifdef HAVE_SYS_EPOLL_H
  /* epoll forgets a socket once it is closed; by then its number may name
   * another socket, perhaps one another watch registered: only the socket
   * this watch was made for is removed. */
  if (w->registered)
    {
      struct stat st;

      if (w->owned || (fstat (w->fd, &st) == 0 && st.st_dev == w->dev && st.st_ino == w->ino))
        epoll_ctl (self->epfd, EPOLL_CTL_DEL, w->fd, NULL);
    }
#endif

  s = &g_array_index (self->slots, Slot, w->slot);
  s->watch = NULL;
  s->generation++;
  g_array_append_val (self->free_slots, w->slot);
  self->n_watches--;

  g_free (w);
  riv_poller_unref (self);
}
