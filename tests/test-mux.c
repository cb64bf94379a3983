/* test-mux.c: many small main contexts run from one source (riv-mux.c)
 * Copyright 2026 The Rivulet authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "config.h"

#include <sys/resource.h>
#include <sys/socket.h>
#include <unistd.h>

#include <glib-unix.h>
#include <gio/gio.h>

#include "riv-mux.h"

static gboolean
tick_cb (gpointer data)
{
  return G_SOURCE_CONTINUE;
}

/* Iterates the outer context until cond holds, or fails after a generous
 * bound (a tick wakes the loop, so that a lost wakeup fails rather than hangs). */
#define ITERATE_UNTIL(context, cond)                                     \
  G_STMT_START {                                                         \
    gint64 _end = g_get_monotonic_time () + 10 * G_USEC_PER_SEC;         \
    GSource *_tick = g_timeout_source_new (100);                         \
    g_source_set_callback (_tick, tick_cb, NULL, NULL);                  \
    g_source_attach (_tick, context);                                    \
    while (!(cond))                                                      \
      {                                                                  \
        g_assert_cmpint (g_get_monotonic_time (), <, _end);              \
        g_main_context_iteration (context, TRUE);                        \
      }                                                                  \
    g_source_destroy (_tick);                                            \
    g_source_unref (_tick);                                              \
  } G_STMT_END

typedef struct
{
  GMainContext *expected;   /* the thread-default a callback must see */
  GMainContext *seen;
  gint64        ran_at;
  guint         runs;
  GSource      *source;     /* the one this probe watches, when it has to go */
} Probe;

static gboolean
probe_cb (gpointer data)
{
  Probe *probe = data;

  probe->seen = g_main_context_get_thread_default ();
  probe->ran_at = g_get_monotonic_time ();
  probe->runs++;
  return G_SOURCE_REMOVE;
}

static gboolean
probe_fd_cb (int          fd,
             GIOCondition condition,
             gpointer     data)
{
  Probe *probe = data;
  char buffer[16];

  g_assert_true (condition & G_IO_IN);
  g_assert_cmpint (read (fd, buffer, sizeof buffer), >, 0);
  probe->seen = g_main_context_get_thread_default ();
  probe->runs++;
  return G_SOURCE_CONTINUE;
}

static void
make_pair (int fds[2])
{
  g_assert_cmpint (socketpair (AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0, fds), ==, 0);
}

static GSource *
attach_fd (GMainContext *context,
           int           fd,
           Probe        *probe)
{
  GSource *source = g_unix_fd_source_new (fd, G_IO_IN);

  g_source_set_callback (source, G_SOURCE_FUNC (probe_fd_cb), probe, NULL);
  g_source_attach (source, context);
  return source;
}

static void
attach_timeout (GMainContext *context,
                guint         ms,
                Probe        *probe)
{
  GSource *source = ms > 0 ? g_timeout_source_new (ms) : g_idle_source_new ();

  g_source_set_callback (source, probe_cb, probe, NULL);
  g_source_attach (source, context);
  g_source_unref (source);
}

typedef struct
{
  GMainContext *outer;
  RivMux       *mux;
  GMainContext *inner;     /* the mux's first */
  Probe         probe;
  GSource      *source;    /* nullable: probe's watch of fds[0] */
  int           fds[2];    /* a socket pair, -1 when closed */
  guint         swaps;     /* swap_cb's runs */
} Fixture;

static void
fixture_setup (Fixture       *fx,
               gconstpointer  data)
{
  fx->outer = g_main_context_new ();
  fx->mux = riv_mux_new (fx->outer);
  fx->inner = riv_mux_add (fx->mux);
  make_pair (fx->fds);
}

static void
fixture_teardown (Fixture       *fx,
                  gconstpointer  data)
{
  if (fx->source != NULL)
    {
      g_source_destroy (fx->source);
      g_source_unref (fx->source);
    }
  for (guint i = 0; i < 2; i++)
    if (fx->fds[i] >= 0)
      close (fx->fds[i]);
  g_clear_pointer (&fx->mux, riv_mux_free);
  g_main_context_unref (fx->outer);
}

/* Runs the outer context until it has nothing ready. */
static void
settle (GMainContext *outer)
{
  while (g_main_context_iteration (outer, FALSE))
    ;
}

/* Idle and timeout sources of inner contexts run from the outer loop, on
 * time and never early, with their own context as the thread's default. */
static void
test_mux_timers (Fixture       *fx,
                 gconstpointer  data)
{
  GMainContext *b = riv_mux_add (fx->mux);
  Probe later = { 0 };
  gint64 start = g_get_monotonic_time ();

  g_assert_true (fx->inner != fx->outer && b != fx->outer && fx->inner != b);
  g_assert_cmpuint (riv_mux_get_n_contexts (fx->mux), ==, 2);
  attach_timeout (fx->inner, 0, &fx->probe);
  attach_timeout (b, 60, &later);
  /* Attached from outside their contexts' dispatches (riv-mux.h). */
  g_main_context_wakeup (fx->inner);
  g_main_context_wakeup (b);
  ITERATE_UNTIL (fx->outer, fx->probe.runs == 1 && later.runs == 1);
  g_assert_true (fx->probe.seen == fx->inner);
  g_assert_true (later.seen == b);
  g_assert_cmpint (later.ran_at - start, >=, 60 * 1000);
  g_assert_cmpint (fx->probe.ran_at, <=, later.ran_at);
}

/* A socket an inner context waits on wakes the outer loop when it becomes
 * readable, and only then. */
static void
test_mux_readable (Fixture       *fx,
                   gconstpointer  data)
{
  fx->source = attach_fd (fx->inner, fx->fds[0], &fx->probe);
  settle (fx->outer);
  g_assert_cmpuint (fx->probe.runs, ==, 0);
  g_assert_false (g_main_context_pending (fx->outer));

  g_assert_cmpint (write (fx->fds[1], "x", 1), ==, 1);
  ITERATE_UNTIL (fx->outer, fx->probe.runs == 1);
  g_assert_true (fx->probe.seen == fx->inner);
  g_assert_cmpint (write (fx->fds[1], "y", 1), ==, 1);
  ITERATE_UNTIL (fx->outer, fx->probe.runs == 2);
}

/* A socket no source waits on any more leaves the epoll sets: readable, it
 * must not keep the outer loop busy. */
static void
test_mux_removed (Fixture       *fx,
                  gconstpointer  data)
{
  GSource *source = attach_fd (fx->inner, fx->fds[0], &fx->probe);
  guint spins = 0;

  settle (fx->outer);
  g_source_destroy (source);
  g_source_unref (source);
  g_assert_cmpint (write (fx->fds[1], "x", 1), ==, 1);
  /* The inner context runs once more to notice the change, then rests. */
  while (g_main_context_iteration (fx->outer, FALSE) && spins < 1000)
    spins++;
  g_assert_cmpuint (spins, <, 10);
  g_assert_cmpuint (fx->probe.runs, ==, 0);
}

typedef struct
{
  GMainContext *target;
  Probe        *probe;
} Relay;

static gboolean
relay_cb (gpointer data)
{
  Relay *relay = data;

  attach_timeout (relay->target, 0, relay->probe);
  g_main_context_wakeup (relay->target);
  return G_SOURCE_REMOVE;
}

/* A source attached to one inner context from another's callback (the same
 * thread, which GLib does not wake), followed by its wakeup, runs. */
static void
test_mux_sibling (Fixture       *fx,
                  gconstpointer  data)
{
  GMainContext *b = riv_mux_add (fx->mux);
  Relay relay = { b, &fx->probe };
  GSource *source = g_timeout_source_new (10);

  /* Let b settle into "nothing to do, no timeout" first. */
  settle (fx->outer);
  g_source_set_callback (source, relay_cb, &relay, NULL);
  g_source_attach (source, fx->inner);
  g_source_unref (source);
  g_main_context_wakeup (fx->inner);
  ITERATE_UNTIL (fx->outer, fx->probe.runs == 1);
  g_assert_true (fx->probe.seen == b);
}

typedef struct
{
  guint runs;
  guint wanted;
} Chain;

static gboolean
chain_cb (gpointer data)
{
  Chain *chain = data;

  if (++chain->runs < chain->wanted)
    {
      GSource *next = g_idle_source_new ();

      g_source_set_callback (next, chain_cb, chain, NULL);
      g_source_attach (next, g_main_context_get_thread_default ());
      g_source_unref (next);
    }
  return G_SOURCE_REMOVE;
}

/* Sources an inner context's callbacks attach to it run with nothing else to
 * wake it, one after another, as GTask's completions do (a hundred in a row,
 * in two contexts at once). */
static void
test_mux_own_callbacks (Fixture       *fx,
                        gconstpointer  data)
{
  GMainContext *b = riv_mux_add (fx->mux);
  Chain chains[2] = { { 0, 100 }, { 0, 100 } };
  GMainContext *contexts[2] = { fx->inner, b };

  settle (fx->outer);
  for (guint i = 0; i < 2; i++)
    {
      GSource *first = g_idle_source_new ();

      g_source_set_callback (first, chain_cb, &chains[i], NULL);
      g_source_attach (first, contexts[i]);
      g_source_unref (first);
    }
  riv_mux_wake_all (fx->mux);
  ITERATE_UNTIL (fx->outer, chains[0].runs == 100 && chains[1].runs == 100);
  settle (fx->outer);
  g_assert_cmpuint (chains[0].runs, ==, 100);
  g_assert_cmpuint (chains[1].runs, ==, 100);
  g_assert_false (g_main_context_pending (fx->outer));
}

static gpointer
attach_later_thread (gpointer data)
{
  Relay *relay = data;

  g_usleep (20 * 1000);
  attach_timeout (relay->target, 0, relay->probe);
  return NULL;
}

/* A source attached from another thread wakes the outer loop. */
static void
test_mux_thread (Fixture       *fx,
                 gconstpointer  data)
{
  Relay relay = { fx->inner, &fx->probe };
  GThread *thread;

  settle (fx->outer);
  thread = g_thread_new ("attach", attach_later_thread, &relay);
  ITERATE_UNTIL (fx->outer, fx->probe.runs == 1);
  g_thread_join (thread);
  g_assert_true (fx->probe.seen == fx->inner);
}

static gboolean
swap_cb (gpointer data)
{
  Fixture *fx = data;
  int number = fx->fds[0];
  int pair[2];

  /* In one dispatch: stop waiting on the socket, close it, and wait on a new
   * socket that gets the same number. */
  g_source_destroy (fx->source);
  g_source_unref (fx->source);
  make_pair (pair);
  close (fx->fds[1]);
  /* dup2 closes the old socket as it gives its number to the new one. */
  g_assert_cmpint (dup2 (pair[0], number), ==, number);
  close (pair[0]);
  fx->fds[1] = pair[1];
  fx->source = attach_fd (fx->inner, number, &fx->probe);
  fx->swaps++;
  return G_SOURCE_REMOVE;
}

/* A descriptor closed and its number reused in one dispatch is watched
 * again: epoll dropped the old socket with its close. */
static void
test_mux_fd_reused (Fixture       *fx,
                    gconstpointer  data)
{
  GSource *idle = g_idle_source_new ();
  int number = fx->fds[0];

  fx->source = attach_fd (fx->inner, fx->fds[0], &fx->probe);
  settle (fx->outer);
  g_source_set_callback (idle, swap_cb, fx, NULL);
  g_source_attach (idle, fx->inner);
  g_source_unref (idle);
  /* Attached from outside the context's dispatch (riv-mux.h). */
  g_main_context_wakeup (fx->inner);
  settle (fx->outer);
  g_assert_cmpuint (fx->swaps, ==, 1);
  g_assert_cmpint (fx->fds[0], ==, number);
  g_assert_cmpuint (fx->probe.runs, ==, 0);

  g_assert_cmpint (write (fx->fds[1], "x", 1), ==, 1);
  ITERATE_UNTIL (fx->outer, fx->probe.runs == 1);
}

#define N_MANY 300

/* Three hundred inner contexts with a socket each: the outer context polls
 * one descriptor, and every socket that becomes readable is served. */
static void
test_mux_many (Fixture       *fx,
               gconstpointer  data)
{
  GMainContext *outer = fx->outer;
  Probe probes[N_MANY] = { { 0 } };
  GSource *sources[N_MANY];
  int pairs[N_MANY][2];
  GPollFD polled[8];
  int max_priority, timeout, n_polled;
  guint total;

  for (guint i = 0; i < N_MANY; i++)
    {
      make_pair (pairs[i]);
      sources[i] = attach_fd (riv_mux_add (fx->mux), pairs[i][0], &probes[i]);
    }
  settle (outer);
  g_assert_true (g_main_context_acquire (outer));
  g_main_context_prepare (outer, &max_priority);
  n_polled = g_main_context_query (outer, G_MAXINT, &timeout, polled, G_N_ELEMENTS (polled));
  g_main_context_check (outer, max_priority, polled, MIN (n_polled, (int) G_N_ELEMENTS (polled)));
  g_main_context_release (outer);
  /* Its wakeup descriptor and the mux's epoll set. */
  g_assert_cmpint (n_polled, <=, 2);

  for (guint i = 0; i < N_MANY; i += 2)
    g_assert_cmpint (write (pairs[i][1], "x", 1), ==, 1);
  do
    {
      total = 0;
      for (guint i = 0; i < N_MANY; i++)
        total += probes[i].runs;
      if (total < N_MANY / 2)
        g_main_context_iteration (outer, TRUE);
    }
  while (total < N_MANY / 2);
  for (guint i = 0; i < N_MANY; i++)
    g_assert_cmpuint (probes[i].runs, ==, i % 2 == 0 ? 1 : 0);

  for (guint i = 0; i < N_MANY; i++)
    {
      g_source_destroy (sources[i]);
      g_source_unref (sources[i]);
      close (pairs[i][0]);
      close (pairs[i][1]);
    }
}

static gboolean
free_mux_cb (gpointer data)
{
  RivMux **mux = data;

  g_clear_pointer (mux, riv_mux_free);
  return G_SOURCE_REMOVE;
}

/* An inner context's callback may free the mux; the rest of that dispatch
 * runs nothing more. */
static void
test_mux_free_in_callback (Fixture       *fx,
                           gconstpointer  data)
{
  GMainContext *b = riv_mux_add (fx->mux);
  GSource *source = g_idle_source_new ();

  g_source_set_callback (source, free_mux_cb, &fx->mux, NULL);
  g_source_attach (source, fx->inner);
  g_source_unref (source);
  attach_timeout (b, 0, &fx->probe);
  riv_mux_wake_all (fx->mux);
  ITERATE_UNTIL (fx->outer, fx->mux == NULL);
  settle (fx->outer);
  g_assert_cmpuint (fx->probe.runs, <=, 1);
}

/* With no descriptor left for an inner context's epoll set, the work goes to
 * the outer context, and still runs. */
static void
test_mux_no_descriptors (Fixture       *fx,
                         gconstpointer  data)
{
  if (g_test_subprocess ())
    {
      struct rlimit limit;
      GMainContext *context;
      int lowest = dup (0);

      /* Every number below the lowest free one is taken: allow no more. */
      g_assert_cmpint (lowest, >=, 0);
      close (lowest);
      g_assert_cmpint (getrlimit (RLIMIT_NOFILE, &limit), ==, 0);
      limit.rlim_cur = lowest;
      g_assert_cmpint (setrlimit (RLIMIT_NOFILE, &limit), ==, 0);

      context = riv_mux_add (fx->mux);
      g_assert_true (context == fx->outer);
      g_assert_cmpuint (riv_mux_get_n_contexts (fx->mux), ==, 1);
      attach_timeout (context, 0, &fx->probe);
      ITERATE_UNTIL (fx->outer, fx->probe.runs == 1);
      return;
    }
  g_test_trap_subprocess (NULL, 0, G_TEST_SUBPROCESS_DEFAULT);
  g_test_trap_assert_passed ();
}

typedef struct
{
  Fixture *fx;
  Probe   *sibling;    /* another inner context's */
  Probe   *own;        /* another source of this context's */
  guint    runs;
} Nester;

/* Runs the outer context from inside an inner context's callback, as a
 * nested main loop would, until the sibling's source has run. */
static gboolean
nester_cb (gpointer data)
{
  Nester *nester = data;
  gint64 end = g_get_monotonic_time () + 10 * G_USEC_PER_SEC;

  nester->runs++;
  /* Not blocking: a mux that cannot recurse is not dispatched here. */
  while (nester->sibling->runs == 0 && g_get_monotonic_time () < end)
    g_main_context_iteration (nester->fx->outer, FALSE);
  g_assert_cmpuint (nester->sibling->runs, ==, 1);
  /* This context is in its dispatch: the nested one leaves it alone. */
  g_assert_cmpuint (nester->own->runs, ==, 0);
  return G_SOURCE_REMOVE;
}

/* The mux may recurse (GLib then does not wake the outer context twice for
 * every dispatch of it): a nested dispatch runs the other inner contexts
 * and not the one whose callback it is in, which goes on after. */
static void
test_mux_nested (Fixture       *fx,
                 gconstpointer  data)
{
  GMainContext *b = riv_mux_add (fx->mux);
  Probe sibling = { 0 };
  Probe own = { 0 };
  Nester nester = { fx, &sibling, &own, 0 };
  GSource *source = g_idle_source_new ();

  g_source_set_callback (source, nester_cb, &nester, NULL);
  g_source_attach (source, fx->inner);
  g_source_unref (source);
  attach_timeout (fx->inner, 0, &own);
  attach_timeout (b, 5, &sibling);
  g_main_context_wakeup (fx->inner);
  g_main_context_wakeup (b);

  ITERATE_UNTIL (fx->outer, nester.runs == 1 && own.runs == 1);
  settle (fx->outer);
  g_assert_cmpuint (nester.runs, ==, 1);
  g_assert_cmpuint (sibling.runs, ==, 1);
  g_assert_cmpuint (own.runs, ==, 1);
  g_assert_true (sibling.seen == b);
  g_assert_true (own.seen == fx->inner);
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);

#define TEST_ADD(path, func) \
  g_test_add (path, Fixture, NULL, fixture_setup, func, fixture_teardown)

  TEST_ADD ("/mux/timers", test_mux_timers);
  TEST_ADD ("/mux/readable", test_mux_readable);
  TEST_ADD ("/mux/removed", test_mux_removed);
  TEST_ADD ("/mux/sibling", test_mux_sibling);
  TEST_ADD ("/mux/own-callbacks", test_mux_own_callbacks);
  TEST_ADD ("/mux/thread", test_mux_thread);
  TEST_ADD ("/mux/fd-reused", test_mux_fd_reused);
  TEST_ADD ("/mux/many", test_mux_many);
  TEST_ADD ("/mux/free-in-callback", test_mux_free_in_callback);
  TEST_ADD ("/mux/no-descriptors", test_mux_no_descriptors);
  TEST_ADD ("/mux/nested", test_mux_nested);

  return g_test_run ();
}
