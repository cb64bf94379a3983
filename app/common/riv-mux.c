/* riv-mux.c
 * Copyright 2026 The Rivulet authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * GLib walks a context's poll records (a list sorted by descriptor) on every
 * add and remove, and all its sources on every iteration. Ten thousand virtual
 * users on one context made those walks a third of the client's time, however
 * little each user did. A mux splits the users over many small inner contexts
 * and runs them from one source on the outer context, the way GLib's own loop
 * runs one: prepare and query, wait, check and dispatch. The wait is what
 * differs: each inner context's descriptors are kept in an epoll set of its
 * own, those sets wait in the mux's epoll set, and an inner context runs only
 * when one of its descriptors is ready or its next timeout is due.
 *
 * The epoll sets follow the inner contexts' poll records: after a run, the
 * descriptors GLib would poll are registered again (one epoll_ctl each,
 * which also catches a descriptor closed and its number reused since), those
 * it no longer polls are removed. A run after which the same descriptors are
 * wanted for the same events, and whose poll saw no wakeup of the context,
 * leaves the set as it is (member_sync ()): most runs, now that a virtual
 * user's sockets wait on its context's RivPoller.
 *
 * What wakes an inner context: GLib signals a context's wakeup descriptor
 * (and so the mux) when a descriptor is added or removed, a ready time set,
 * or a source attached from a thread other than its owner's. The mux's thread
 * owns every inner context from riv_mux_add () on, so that a source attached
 * by the context's own callbacks, the common case, costs no system call: the
 * prepare after the dispatch sees it. A source attached on the mux's thread
 * from outside the context's own dispatch (the outer context's callbacks, a
 * sibling's, code before the loop runs) is not signalled; whoever attaches it
 * calls g_main_context_wakeup () on that context, or riv_mux_wake_all ().
 * (G_MAIN_CONTEXT_FLAGS_OWNERLESS_POLLING would signal every attach: 54
 * eventfd writes a job in a 1,000-user load run, half of them for sources the
 * context's own dispatch attached, and 9 % more CPU a job.)
 */
#include "config.h"

#include <errno.h>
#include <string.h>
#include <unistd.h>
#ifdef HAVE_SYS_EPOLL_H
#include <sys/epoll.h>
#endif

#include "riv-mux.h"

#define MAX_EVENTS 256

typedef struct
{
  int     fd;
  guint32 events;   /* epoll's */
} Registration;

typedef struct
{
  GMainContext *context;      /* ref */
  int           epfd;
  GPollFD      *fds;          /* the last query's */
  int           n_fds;
  int           n_alloc;
  int           max_priority;
  gboolean      prepared;     /* fds hold a query to check */
  gboolean      unpollable;   /* a descriptor epoll refuses: poll every dispatch */
  GArray       *registered;   /* Registration, by fd */
  GArray       *wanted;       /* scratch */
  gint64        deadline;     /* monotonic µs; G_MAXINT64: none */
  guint         stamp;        /* the mux dispatch that last ran it */
  gboolean      running;      /* in its dispatch (a nested mux dispatch leaves it) */
  gboolean      changed;      /* its poll records may have changed since the last sync */
  int           wakeup_fd;    /* GLib's wakeup descriptor for the context; -1: unknown */
} Member;

struct _RivMux
{
  GSource    source;
  GPtrArray *members;         /* Member */
  int        epfd;
  gpointer   tag;
  gint64     next_deadline;
  guint      stamp;
};

#ifdef HAVE_SYS_EPOLL_H

static guint32
epoll_events (gushort condition)
{
  return ((condition & G_IO_IN) ? EPOLLIN : 0) |
         ((condition & G_IO_OUT) ? EPOLLOUT : 0) |
         ((condition & G_IO_PRI) ? EPOLLPRI : 0);
}

static gboolean
register_fd (Member             *m,
             const Registration *r)
{
  struct epoll_event event = { .events = r->events, .data.fd = r->fd };

  /* MOD fails with ENOENT for a number that now names another file. */
  if (epoll_ctl (m->epfd, EPOLL_CTL_MOD, r->fd, &event) == 0)
    return TRUE;
  return errno == ENOENT && epoll_ctl (m->epfd, EPOLL_CTL_ADD, r->fd, &event) == 0;
}

/* Makes the member's epoll set what its last query asks for. GLib's query
 * gives each descriptor once, in increasing order (g_main_context_check ()
 * relies on that too), and so does the list of what is registered. */
static void
member_sync (Member *m)
{
  GArray *old = m->registered;
  GArray *wanted = m->wanted;
  guint i = 0, j = 0;

  g_array_set_size (wanted, 0);
  for (int k = 0; k < m->n_fds; k++)
    {
      Registration r = { m->fds[k].fd, epoll_events (m->fds[k].events) };

      if (r.events != 0 && r.fd >= 0)
        g_array_append_val (wanted, r);
    }

  /* Nothing to do when the same descriptors are wanted for the same events
   * and none of their records was removed and added again since the last
   * sync (a number closed and reused: epoll dropped the old file). GLib
   * signals the context's wakeup for every poll record it adds or removes,
   * so that is known from the wakeup's readiness in the run that led here;
   * one signalled after that run's poll makes the mux run the context again
   * at once, and that run's poll (all descriptors, by poll ()) and sync
   * catch it. */
  if (!m->changed && !m->unpollable && old->len == wanted->len &&
      memcmp (old->data, wanted->data, old->len * sizeof (Registration)) == 0)
    return;

  m->unpollable = FALSE;
  while (i < old->len || j < wanted->len)
    {
      Registration *o = i < old->len ? &g_array_index (old, Registration, i) : NULL;
      Registration *w = j < wanted->len ? &g_array_index (wanted, Registration, j) : NULL;

      if (w == NULL || (o != NULL && o->fd < w->fd))
        {
          /* No longer polled. Closed since, or reused by someone else: then
           * epoll has dropped it already, and DEL fails harmlessly. */
          epoll_ctl (m->epfd, EPOLL_CTL_DEL, o->fd, NULL);
          i++;
          continue;
        }
      if (o != NULL && o->fd == w->fd)
        i++;
      if (!register_fd (m, w))
        m->unpollable = TRUE;   /* a regular file, say: poll() says ready */
      j++;
    }
  m->wanted = old;
  m->registered = wanted;
}

static void
member_prepare (Member *m)
{
  gboolean ready;
  int timeout = -1;
  int n;

  ready = g_main_context_prepare (m->context, &m->max_priority);
  while ((n = g_main_context_query (m->context, m->max_priority, &timeout,
                                    m->fds, m->n_alloc)) > m->n_alloc)
    {
      m->n_alloc = MAX (n, 2 * m->n_alloc);
      m->fds = g_renew (GPollFD, m->fds, m->n_alloc);
    }
  m->n_fds = n;
  m->prepared = TRUE;
  member_sync (m);

  if (ready || timeout == 0 || m->unpollable)
    m->deadline = 0;
  else if (timeout < 0)
    m->deadline = G_MAXINT64;
  else
    m->deadline = g_get_monotonic_time () + (gint64) timeout * 1000;
}

/* Whether the last poll saw the context's wakeup signalled, or cannot say
 * (the wakeup was not among the descriptors polled, or is not known). */
static gboolean
member_woken (const Member *m)
{
  for (int k = 0; k < m->n_fds; k++)
    if (m->fds[k].fd == m->wakeup_fd)
      return m->fds[k].revents != 0;
  return TRUE;
}

/* One iteration of the member's context, without waiting (this thread owns
 * it since riv_mux_add ()). */
static void
member_run (RivMux *self,
            Member *m)
{
  m->stamp = self->stamp;
  if (m->running)
    return;
  m->running = TRUE;
  if (m->prepared)
    {
      if (m->n_fds > 0)
        g_poll (m->fds, m->n_fds, 0);
      m->changed = member_woken (m);
      g_main_context_check (m->context, m->max_priority, m->fds, m->n_fds);
      g_main_context_push_thread_default (m->context);
      g_main_context_dispatch (m->context);
      g_main_context_pop_thread_default (m->context);
    }
  member_prepare (m);
  m->running = FALSE;
}

static gboolean
mux_prepare (GSource *source,
             int     *timeout)
{
  RivMux *self = (RivMux *) source;
  gint64 next = G_MAXINT64;
  gint64 now;

  for (guint i = 0; i < self->members->len; i++)
    next = MIN (next, ((Member *) g_ptr_array_index (self->members, i))->deadline);
  self->next_deadline = next;
  if (next == G_MAXINT64)
    {
      *timeout = -1;
      return FALSE;
    }
  now = g_source_get_time (source);
  if (next <= now)
    {
      *timeout = 0;
      return TRUE;
    }
  *timeout = (int) MIN ((next - now + 999) / 1000, G_MAXINT);
  return FALSE;
}

static gboolean
mux_check (GSource *source)
{
  RivMux *self = (RivMux *) source;

  return (self->tag != NULL && (g_source_query_unix_fd (source, self->tag) & G_IO_IN) != 0) ||
         self->next_deadline <= g_source_get_time (source);
}

static gboolean
mux_dispatch (GSource     *source,
              GSourceFunc  callback,
              gpointer     user_data)
{
  RivMux *self = (RivMux *) source;
  struct epoll_event events[MAX_EVENTS];
  gint64 now;
  int n;

  self->stamp++;
  do
    n = epoll_wait (self->epfd, events, MAX_EVENTS, 0);
  while (n < 0 && errno == EINTR);
  /* A callback may free the mux: it stays alive until this returns. */
  for (int i = 0; i < n && !g_source_is_destroyed (source); i++)
    {
      Member *m = g_ptr_array_index (self->members, events[i].data.u32);

      if (m->stamp != self->stamp)
        member_run (self, m);
    }
  now = g_get_monotonic_time ();
  for (guint i = 0; i < self->members->len && !g_source_is_destroyed (source); i++)
    {
      Member *m = g_ptr_array_index (self->members, i);

      if (m->deadline <= now && m->stamp != self->stamp)
        member_run (self, m);
    }
  return G_SOURCE_CONTINUE;
}

static void
member_free (gpointer data)
{
  Member *m = data;

  close (m->epfd);
  /* Freed on another thread than the one that ran it (a load run's, after
   * the run), the context is left owned by that one: nobody runs it again. */
  if (g_main_context_is_owner (m->context))
    g_main_context_release (m->context);
  g_main_context_unref (m->context);
  g_free (m->fds);
  g_array_unref (m->registered);
  g_array_unref (m->wanted);
  g_free (m);
}

static void
mux_finalize (GSource *source)
{
  RivMux *self = (RivMux *) source;

  g_clear_pointer (&self->members, g_ptr_array_unref);
  if (self->epfd >= 0)
    close (self->epfd);
}

static GSourceFuncs mux_funcs = {
  mux_prepare,
  mux_check,
  mux_dispatch,
  mux_finalize,
  NULL,
  NULL,
};

#endif /* HAVE_SYS_EPOLL_H */

RivMux *
riv_mux_new (GMainContext *outer)
{
#ifdef HAVE_SYS_EPOLL_H
  RivMux *self = (RivMux *) g_source_new (&mux_funcs, sizeof (RivMux));

  g_source_set_static_name (&self->source, "RivMux");
  /* A source that may not recurse is taken out of the poll set while it is
   * dispatched and put back after, each of which wakes the outer context
   * (an eventfd write, and one more turn of its loop): twice for every
   * dispatch of the mux. A nested dispatch leaves alone the inner contexts
   * that are in theirs. */
  g_source_set_can_recurse (&self->source, TRUE);
  self->members = g_ptr_array_new_with_free_func (member_free);
  self->epfd = epoll_create1 (EPOLL_CLOEXEC);
  self->next_deadline = G_MAXINT64;
  if (self->epfd >= 0)
    self->tag = g_source_add_unix_fd (&self->source, self->epfd, G_IO_IN);
  g_source_attach (&self->source, outer);
  return self;
#else
  (void) outer;
  return NULL;
#endif
}

/* A new inner context, owned by the mux (it lives as long as the mux does,
 * or longer for whoever takes a reference). With no descriptor to spare for
 * its epoll set, the outer context itself. (Without epoll there is no mux:
 * riv_mux_new () returns NULL.) */
GMainContext *
riv_mux_add (RivMux *self)
{
#ifdef HAVE_SYS_EPOLL_H
  struct epoll_event event = { .events = EPOLLIN };
  Member *m;
  int epfd;

  if (self->epfd < 0 || (epfd = epoll_create1 (EPOLL_CLOEXEC)) < 0)
    return g_source_get_context (&self->source);
  event.data.u32 = self->members->len;
  if (epoll_ctl (self->epfd, EPOLL_CTL_ADD, epfd, &event) < 0)
    {
      close (epfd);
      return g_source_get_context (&self->source);
    }
  m = g_new0 (Member, 1);
  m->context = g_main_context_new ();
  /* Owned by this thread from now on (see the top of this file). */
  g_main_context_acquire (m->context);
  m->epfd = epfd;
  m->registered = g_array_new (FALSE, FALSE, sizeof (Registration));
  m->wanted = g_array_new (FALSE, FALSE, sizeof (Registration));
  m->deadline = 0;
  m->changed = TRUE;
  g_ptr_array_add (self->members, m);
  /* Its first prepare registers its wakeup descriptor, the only one a new
   * context polls. */
  member_prepare (m);
  m->wakeup_fd = m->n_fds == 1 ? m->fds[0].fd : -1;
  return m->context;
#else
  g_assert_not_reached ();
  return NULL;
#endif
}

/* Every inner context runs at the next dispatch, whatever it waits for: after
 * work done to many of them from outside their own dispatches. On the mux's
 * thread. */
void
riv_mux_wake_all (RivMux *self)
{
#ifdef HAVE_SYS_EPOLL_H
  if (self == NULL)
    return;
  for (guint i = 0; i < self->members->len; i++)
    ((Member *) g_ptr_array_index (self->members, i))->deadline = 0;
#else
  (void) self;
#endif
}

guint
riv_mux_get_n_contexts (RivMux *self)
{
#ifdef HAVE_SYS_EPOLL_H
  return self != NULL ? self->members->len : 0;
#else
  return 0;
#endif
}

void
riv_mux_free (RivMux *self)
{
#ifdef HAVE_SYS_EPOLL_H
  if (self == NULL)
    return;
  g_source_destroy (&self->source);
  g_source_unref (&self->source);
#else
  (void) self;
#endif
}
