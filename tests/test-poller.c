/* test-poller.c: one epoll source per context for many sockets (riv-poller.c)
 * Copyright 2026 The Rivulet authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "config.h"

#include <errno.h>
#include <sys/socket.h>
#include <unistd.h>

#include <gio/gio.h>

#include "riv-poller.h"

typedef struct
{
  GPtrArray      *log;       /* names of the watches that ran, in order */
  RivPollerWatch *watch;
  RivPollerWatch *victim;    /* freed by this watch's callback */
  RivPollerWatch **victim_slot;
  const char     *name;
  guint           runs;
  gboolean        again;     /* asks for "soon" again from its callback */
} Probe;

static void
probe_cb (gpointer user_data)
{
  Probe *probe = user_data;

  probe->runs++;
  if (probe->log != NULL)
    g_ptr_array_add (probe->log, (gpointer) probe->name);
  if (probe->victim_slot != NULL && *probe->victim_slot != NULL)
    g_clear_pointer (probe->victim_slot, riv_poller_watch_free);
  if (probe->again)
    {
      probe->again = FALSE;
      riv_poller_watch_soon (probe->watch);
    }
}

static void
make_pair (int fds[2])
{
  g_assert_cmpint (socketpair (AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0, fds), ==, 0);
}

/* Runs every dispatch that is ready now, without blocking. */
static void
drain (GMainContext *context)
{
  while (g_main_context_iteration (context, FALSE))
    ;
}

/* Iterates until cond holds, or fails after a generous bound. */
#define ITERATE_UNTIL(context, cond)                                     \
  G_STMT_START {                                                         \
    gint64 _end = g_get_monotonic_time () + 10 * G_USEC_PER_SEC;         \
    while (!(cond) && g_get_monotonic_time () < _end)                    \
      g_main_context_iteration ((context), TRUE);                        \
    g_assert_true (cond);                                                \
  } G_STMT_END

static void
test_poller_shared (void)
{
  g_autoptr(GMainContext) context = g_main_context_new ();
  RivPoller *a = riv_poller_get (context, G_PRIORITY_DEFAULT);
  RivPoller *b = riv_poller_get (context, G_PRIORITY_DEFAULT);
  RivPoller *c = riv_poller_get (context, G_PRIORITY_LOW);
  RivPoller *d = riv_poller_get (NULL, G_PRIORITY_DEFAULT);

  g_assert_nonnull (a);
  g_assert_true (a == b);
  g_assert_true (a != c);
  g_assert_true (a != d);
  riv_poller_unref (a);
  riv_poller_unref (b);
  riv_poller_unref (c);
  riv_poller_unref (d);

  /* The last unref removed it: the next get makes a new one. */
  a = riv_poller_get (context, G_PRIORITY_DEFAULT);
  g_assert_cmpuint (riv_poller_get_n_watches (a), ==, 0);
  riv_poller_unref (a);
}

/* Readable is level-triggered and one-shot: one callback per request, and
 * another as long as data is left when asked again. */
static void
test_poller_readable (void)
{
  g_autoptr(GMainContext) context = g_main_context_new ();
  g_autoptr(RivPoller) poller = riv_poller_get (context, G_PRIORITY_DEFAULT);
  g_autoptr(GError) error = NULL;
  Probe probe = { .name = "a" };
  int fds[2];
  char byte = 'x';

  make_pair (fds);
  probe.watch = riv_poller_watch_new (poller, fds[0], probe_cb, &probe);
  g_assert_cmpuint (riv_poller_get_n_watches (poller), ==, 1);
  g_assert_true (riv_poller_watch_readable (probe.watch, &error));
  g_assert_no_error (error);
  g_assert_true (riv_poller_watch_is_waiting (probe.watch));

  drain (context);
  g_assert_cmpuint (probe.runs, ==, 0);

  g_assert_cmpint (write (fds[1], &byte, 1), ==, 1);
  ITERATE_UNTIL (context, probe.runs == 1);
  g_assert_false (riv_poller_watch_is_waiting (probe.watch));

  /* The byte is still there, but nothing asked again. */
  drain (context);
  g_assert_cmpuint (probe.runs, ==, 1);

  g_assert_true (riv_poller_watch_readable (probe.watch, NULL));
  ITERATE_UNTIL (context, probe.runs == 2);

  /* The peer's end counts as readable too. */
  g_assert_cmpint (read (fds[0], &byte, 1), ==, 1);
  g_assert_true (riv_poller_watch_readable (probe.watch, NULL));
  drain (context);
  g_assert_cmpuint (probe.runs, ==, 2);
  close (fds[1]);
  ITERATE_UNTIL (context, probe.runs == 3);

  riv_poller_watch_free (probe.watch);
  g_assert_cmpuint (riv_poller_get_n_watches (poller), ==, 0);
  close (fds[0]);
}

/* "Soon" runs in order, in the next dispatch; asking again from the callback
 * waits for the dispatch after, so other sources get their turn. */
static void
test_poller_soon (void)
{
  g_autoptr(GMainContext) context = g_main_context_new ();
  g_autoptr(RivPoller) poller = riv_poller_get (context, G_PRIORITY_DEFAULT);
  g_autoptr(GPtrArray) log = g_ptr_array_new ();
  Probe probes[3] = { { .log = log, .name = "a", .again = TRUE },
                      { .log = log, .name = "b" },
                      { .log = log, .name = "c" } };
  int fds[2];

  make_pair (fds);
  for (guint i = 0; i < G_N_ELEMENTS (probes); i++)
    probes[i].watch = riv_poller_watch_new (poller, fds[0], probe_cb, &probes[i]);
  for (guint i = 0; i < G_N_ELEMENTS (probes); i++)
    riv_poller_watch_soon (probes[i].watch);
  /* Asking twice is asking once. */
  riv_poller_watch_soon (probes[1].watch);

  g_assert_true (g_main_context_iteration (context, FALSE));
  g_assert_cmpuint (log->len, ==, 3);
  g_assert_cmpstr (log->pdata[0], ==, "a");
  g_assert_cmpstr (log->pdata[1], ==, "b");
  g_assert_cmpstr (log->pdata[2], ==, "c");

  g_assert_true (g_main_context_iteration (context, FALSE));
  g_assert_cmpuint (log->len, ==, 4);
  g_assert_cmpstr (log->pdata[3], ==, "a");
  drain (context);
  g_assert_cmpuint (log->len, ==, 4);

  for (guint i = 0; i < G_N_ELEMENTS (probes); i++)
    riv_poller_watch_free (probes[i].watch);
  close (fds[0]);
  close (fds[1]);
}

/* "After" runs in due order and never before its time. */
static void
test_poller_after (void)
{
  g_autoptr(GMainContext) context = g_main_context_new ();
  g_autoptr(RivPoller) poller = riv_poller_get (context, G_PRIORITY_DEFAULT);
  g_autoptr(GPtrArray) log = g_ptr_array_new ();
  Probe slow = { .log = log, .name = "slow" };
  Probe fast = { .log = log, .name = "fast" };
  Probe mid = { .log = log, .name = "mid" };
  gint64 start = g_get_monotonic_time ();
  int fds[2];

  make_pair (fds);
  slow.watch = riv_poller_watch_new (poller, fds[0], probe_cb, &slow);
  fast.watch = riv_poller_watch_new (poller, fds[0], probe_cb, &fast);
  mid.watch = riv_poller_watch_new (poller, fds[0], probe_cb, &mid);
  riv_poller_watch_after (slow.watch, 60);
  riv_poller_watch_after (fast.watch, 20);
  riv_poller_watch_after (mid.watch, 40);

  ITERATE_UNTIL (context, log->len == 1);
  g_assert_cmpstr (log->pdata[0], ==, "fast");
  g_assert_cmpint (g_get_monotonic_time () - start, >=, 20 * 1000);
  ITERATE_UNTIL (context, log->len == 3);
  g_assert_cmpstr (log->pdata[1], ==, "mid");
  g_assert_cmpstr (log->pdata[2], ==, "slow");
  g_assert_cmpint (g_get_monotonic_time () - start, >=, 60 * 1000);

  /* A new request replaces the one pending. */
  riv_poller_watch_after (fast.watch, 10 * 1000);
  riv_poller_watch_soon (fast.watch);
  ITERATE_UNTIL (context, log->len == 4);
  g_assert_false (riv_poller_watch_is_waiting (fast.watch));

  riv_poller_watch_free (slow.watch);
  riv_poller_watch_free (fast.watch);
  riv_poller_watch_free (mid.watch);
  close (fds[0]);
  close (fds[1]);
}

/* A callback that frees another watch ready in the same dispatch: the freed
 * one never runs, whether it was due "soon" or its socket was readable. */
static void
test_poller_free_in_callback (void)
{
  g_autoptr(GMainContext) context = g_main_context_new ();
  g_autoptr(RivPoller) poller = riv_poller_get (context, G_PRIORITY_DEFAULT);
  Probe killer = { .name = "killer" };
  Probe victim = { .name = "victim" };
  RivPollerWatch *victim_watch;
  int a[2], b[2];
  char byte = 'x';

  /* Both soon. */
  make_pair (a);
  make_pair (b);
  killer.watch = riv_poller_watch_new (poller, a[0], probe_cb, &killer);
  victim_watch = riv_poller_watch_new (poller, b[0], probe_cb, &victim);
  killer.victim_slot = &victim_watch;
  riv_poller_watch_soon (killer.watch);
  riv_poller_watch_soon (victim_watch);
  drain (context);
  g_assert_cmpuint (killer.runs, ==, 1);
  g_assert_cmpuint (victim.runs, ==, 0);
  g_assert_null (victim_watch);

  /* Both readable, in one epoll batch: whichever runs first frees the other. */
  victim_watch = riv_poller_watch_new (poller, b[0], probe_cb, &victim);
  victim.victim_slot = &killer.watch;
  g_assert_true (riv_poller_watch_readable (killer.watch, NULL));
  g_assert_true (riv_poller_watch_readable (victim_watch, NULL));
  g_assert_cmpint (write (a[1], &byte, 1), ==, 1);
  g_assert_cmpint (write (b[1], &byte, 1), ==, 1);
  ITERATE_UNTIL (context, killer.runs + victim.runs >= 2);
  drain (context);
  g_assert_cmpuint (killer.runs + victim.runs, ==, 2);
  g_assert_true (killer.watch == NULL || victim_watch == NULL);
  g_clear_pointer (&killer.watch, riv_poller_watch_free);
  g_clear_pointer (&victim_watch, riv_poller_watch_free);
  g_assert_cmpuint (riv_poller_get_n_watches (poller), ==, 0);

  close (a[0]);
  close (a[1]);
  close (b[0]);
  close (b[1]);
}

/* A socket closed under an armed watch, its number reused by a socket another
 * watch waits on: freeing the first watch leaves the second one's wait. */
static void
test_poller_fd_reused (void)
{
  g_autoptr(GMainContext) context = g_main_context_new ();
  g_autoptr(RivPoller) poller = riv_poller_get (context, G_PRIORITY_DEFAULT);
  Probe old = { .name = "old" };
  Probe fresh = { .name = "fresh" };
  int first[2], second[2];
  char byte = 'x';

  make_pair (first);
  old.watch = riv_poller_watch_new (poller, first[0], probe_cb, &old);
  g_assert_true (riv_poller_watch_readable (old.watch, NULL));
  close (first[0]);
  close (first[1]);

  make_pair (second);
  g_assert_cmpint (second[0], ==, first[0]);
  fresh.watch = riv_poller_watch_new (poller, second[0], probe_cb, &fresh);
  g_assert_true (riv_poller_watch_readable (fresh.watch, NULL));
  riv_poller_watch_free (old.watch);

  g_assert_cmpint (write (second[1], &byte, 1), ==, 1);
  ITERATE_UNTIL (context, fresh.runs == 1);
  g_assert_cmpuint (old.runs, ==, 0);

  riv_poller_watch_free (fresh.watch);
  close (second[0]);
  close (second[1]);
}

static guint
count_runs (const Probe *probes,
            guint        n)
{
  guint total = 0;

  for (guint i = 0; i < n; i++)
    total += probes[i].runs;
  return total;
}

/* A socket whose number was closed while another descriptor (a copy a child
 * process inherited, say) keeps it open stays in epoll after its watch is
 * freed: its event names the freed watch's slot, now another watch's, and
 * is dropped. */
static void
test_poller_stale_event (void)
{
  g_autoptr(GMainContext) context = g_main_context_new ();
  g_autoptr(RivPoller) poller = riv_poller_get (context, G_PRIORITY_DEFAULT);
  Probe old = { .name = "old" };
  Probe fresh = { .name = "fresh" };
  int first[2], second[2];
  int copy;
  char byte = 'x';

  make_pair (first);
  make_pair (second);
  old.watch = riv_poller_watch_new (poller, first[0], probe_cb, &old);
  g_assert_true (riv_poller_watch_readable (old.watch, NULL));
  copy = dup (first[0]);
  g_assert_cmpint (copy, >=, 0);
  close (first[0]);
  riv_poller_watch_free (old.watch);

  /* Takes the freed slot, and waits for "soon" only. */
  fresh.watch = riv_poller_watch_new (poller, second[0], probe_cb, &fresh);
  g_assert_true (riv_poller_watch_readable (fresh.watch, NULL));
  g_assert_cmpint (write (first[1], &byte, 1), ==, 1);
  drain (context);
  g_assert_cmpuint (fresh.runs, ==, 0);
  g_assert_cmpuint (old.runs, ==, 0);

  g_assert_cmpint (write (second[1], &byte, 1), ==, 1);
  ITERATE_UNTIL (context, fresh.runs == 1);

  riv_poller_watch_free (fresh.watch);
  close (copy);
  close (first[1]);
  close (second[0]);
  close (second[1]);
}

/* Writable: called once the socket takes data, one-shot; not while its
 * send buffer is full. */
static void
test_poller_writable (void)
{
  g_autoptr(GMainContext) context = g_main_context_new ();
  g_autoptr(RivPoller) poller = riv_poller_get (context, G_PRIORITY_DEFAULT);
  Probe probe = { .name = "w" };
  char block[4096] = { 0 };
  char sink[4096];
  int fds[2];

  make_pair (fds);
  probe.watch = riv_poller_watch_new (poller, fds[0], probe_cb, &probe);
  g_assert_true (riv_poller_watch_writable (probe.watch, NULL));
  ITERATE_UNTIL (context, probe.runs == 1);
  drain (context);
  g_assert_cmpuint (probe.runs, ==, 1);

  /* Full: no callback until the peer reads. */
  while (write (fds[0], block, sizeof block) > 0)
    ;
  g_assert_cmpint (errno, ==, EAGAIN);
  g_assert_true (riv_poller_watch_writable (probe.watch, NULL));
  drain (context);
  g_assert_cmpuint (probe.runs, ==, 1);
  while (read (fds[1], sink, sizeof sink) > 0)
    ;
  ITERATE_UNTIL (context, probe.runs == 2);

  riv_poller_watch_free (probe.watch);
  close (fds[0]);
  close (fds[1]);
}

/* A watch made for no socket runs soon and after, and says why it cannot
 * wait for a socket. */
static void
test_poller_no_socket (void)
{
  g_autoptr(GMainContext) context = g_main_context_new ();
  g_autoptr(RivPoller) poller = riv_poller_get (context, G_PRIORITY_DEFAULT);
  g_autoptr(GError) error = NULL;
  Probe probe = { .name = "none" };

  probe.watch = riv_poller_watch_new (poller, -1, probe_cb, &probe);
  riv_poller_watch_soon (probe.watch);
  ITERATE_UNTIL (context, probe.runs == 1);
  riv_poller_watch_after (probe.watch, 5);
  ITERATE_UNTIL (context, probe.runs == 2);
  g_assert_false (riv_poller_watch_readable (probe.watch, &error));
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT);
  g_assert_false (riv_poller_watch_is_waiting (probe.watch));
  riv_poller_watch_free (probe.watch);
}

typedef struct
{
  GMainContext *context;
  Probe        *others;
  guint         n_others;
  guint         runs;
} Nester;

/* Runs the context from inside a callback, as a nested main loop would. */
static void
nester_cb (gpointer user_data)
{
  Nester *nester = user_data;
  gint64 end;

  nester->runs++;
  if (nester->runs != 1)
    return;
  /* What became due since: a readable socket, a time. Not blocking: a
   * poller that cannot recurse is not dispatched here, and nothing would
   * end the wait. */
  end = g_get_monotonic_time () + 10 * G_USEC_PER_SEC;
  while (!(nester->others[1].runs == 1 && nester->others[2].runs == 1) &&
         g_get_monotonic_time () < end)
    g_main_context_iteration (nester->context, FALSE);
  g_assert_cmpuint (nester->others[1].runs, ==, 1);
  g_assert_cmpuint (nester->others[2].runs, ==, 1);
  /* The rest of the outer dispatch's queue is the outer's. */
  g_assert_cmpuint (nester->others[0].runs, ==, 0);
}

/* The poller may recurse (GLib then leaves its descriptor in the poll set
 * while it dispatches, and does not wake the context twice a dispatch): a
 * dispatch nested in a callback runs what became due (a readable socket, a
 * time), the outer one the rest of its queue after the callback; each watch
 * runs once. */
static void
test_poller_nested (void)
{
  g_autoptr(GMainContext) context = g_main_context_new ();
  g_autoptr(RivPoller) poller = riv_poller_get (context, G_PRIORITY_DEFAULT);
  Probe others[3] = { { .name = "soon" }, { .name = "read" }, { .name = "later" } };
  Nester nester = { context, others, G_N_ELEMENTS (others), 0 };
  RivPollerWatch *first = riv_poller_watch_new (poller, -1, nester_cb, &nester);
  int fds[2];
  char byte = 'x';

  make_pair (fds);
  /* In the same dispatch's queue as the nester, after it. */
  riv_poller_watch_soon (first);
  others[0].watch = riv_poller_watch_new (poller, -1, probe_cb, &others[0]);
  riv_poller_watch_soon (others[0].watch);
  others[1].watch = riv_poller_watch_new (poller, fds[0], probe_cb, &others[1]);
  g_assert_true (riv_poller_watch_readable (others[1].watch, NULL));
  g_assert_cmpint (write (fds[1], &byte, 1), ==, 1);
  others[2].watch = riv_poller_watch_new (poller, -1, probe_cb, &others[2]);
  riv_poller_watch_after (others[2].watch, 5);

  ITERATE_UNTIL (context, nester.runs == 1);
  drain (context);
  g_assert_cmpuint (nester.runs, ==, 1);
  for (guint i = 0; i < G_N_ELEMENTS (others); i++)
    g_assert_cmpuint (others[i].runs, ==, 1);

  riv_poller_watch_free (first);
  for (guint i = 0; i < G_N_ELEMENTS (others); i++)
    riv_poller_watch_free (others[i].watch);
  close (fds[0]);
  close (fds[1]);
}

/* A watch of a socket its caller keeps open until the watch is freed: the
 * same callbacks, and the socket leaves epoll with the watch (a new watch of
 * the same socket is then called for its data, once). */
static void
test_poller_owned (void)
{
  g_autoptr(GMainContext) context = g_main_context_new ();
  g_autoptr(RivPoller) poller = riv_poller_get (context, G_PRIORITY_DEFAULT);
  Probe first = { .name = "first" };
  Probe second = { .name = "second" };
  int fds[2];
  char byte = 'x';

  make_pair (fds);
  first.watch = riv_poller_watch_new_owned (poller, fds[0], probe_cb, &first);
  g_assert_true (riv_poller_watch_readable (first.watch, NULL));
  g_assert_cmpint (write (fds[1], &byte, 1), ==, 1);
  ITERATE_UNTIL (context, first.runs == 1);
  g_assert_true (riv_poller_watch_readable (first.watch, NULL));
  riv_poller_watch_free (first.watch);
  g_assert_cmpuint (riv_poller_get_n_watches (poller), ==, 0);
  drain (context);
  g_assert_cmpuint (first.runs, ==, 1);

  second.watch = riv_poller_watch_new_owned (poller, fds[0], probe_cb, &second);
  g_assert_true (riv_poller_watch_readable (second.watch, NULL));
  ITERATE_UNTIL (context, second.runs == 1);
  drain (context);
  g_assert_cmpuint (second.runs, ==, 1);
  g_assert_cmpuint (first.runs, ==, 1);
  riv_poller_watch_free (second.watch);
  close (fds[0]);
  close (fds[1]);
}

/* Hundreds of sockets on one poller: each one's data wakes its own watch,
 * once, and the context polls one descriptor for all of them. */
static void
test_poller_many (void)
{
  g_autoptr(GMainContext) context = g_main_context_new ();
  g_autoptr(RivPoller) poller = riv_poller_get (context, G_PRIORITY_DEFAULT);
  enum { N = 300 };
  Probe *probes = g_new0 (Probe, N);
  int *pairs = g_new (int, 2 * N);
  GPollFD fds[8];
  int timeout;
  int max_priority;
  int n_fds;
  char byte = 'x';

  for (guint i = 0; i < N; i++)
    {
      make_pair (&pairs[2 * i]);
      probes[i].watch = riv_poller_watch_new (poller, pairs[2 * i], probe_cb, &probes[i]);
      g_assert_true (riv_poller_watch_readable (probes[i].watch, NULL));
    }
  g_assert_cmpuint (riv_poller_get_n_watches (poller), ==, N);

  /* GLib itself waits on the poller's descriptor and its own wakeup only. */
  g_assert_true (g_main_context_acquire (context));
  g_main_context_prepare (context, &max_priority);
  n_fds = g_main_context_query (context, max_priority, &timeout, fds, G_N_ELEMENTS (fds));
  g_assert_cmpint (n_fds, <=, 2);
  g_main_context_check (context, max_priority, fds, n_fds);
  g_main_context_release (context);

  for (guint i = 0; i < N; i += 2)
    g_assert_cmpint (write (pairs[2 * i + 1], &byte, 1), ==, 1);
  ITERATE_UNTIL (context, count_runs (probes, N) == N / 2);
  drain (context);
  for (guint i = 0; i < N; i++)
    g_assert_cmpuint (probes[i].runs, ==, i % 2 == 0 ? 1 : 0);

  for (guint i = 0; i < N; i++)
    {
      riv_poller_watch_free (probes[i].watch);
      close (pairs[2 * i]);
      close (pairs[2 * i + 1]);
    }
  g_free (probes);
  g_free (pairs);
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/poller/shared", test_poller_shared);
  g_test_add_func ("/poller/readable", test_poller_readable);
  g_test_add_func ("/poller/soon", test_poller_soon);
  g_test_add_func ("/poller/after", test_poller_after);
  g_test_add_func ("/poller/free-in-callback", test_poller_free_in_callback);
  g_test_add_func ("/poller/fd-reused", test_poller_fd_reused);
  g_test_add_func ("/poller/stale-event", test_poller_stale_event);
  g_test_add_func ("/poller/many", test_poller_many);
  g_test_add_func ("/poller/writable", test_poller_writable);
  g_test_add_func ("/poller/no-socket", test_poller_no_socket);
  g_test_add_func ("/poller/nested", test_poller_nested);
  g_test_add_func ("/poller/owned", test_poller_owned);

  return g_test_run ();
}
