/* riv-load-run-users.c
 * Copyright 2026 The Rivulet authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Virtual users: the schedule (users, or --stages), each user a client of its own
 * submitting its jobs one after another, started and retired as the schedule says.
 * (The arrival-rate load starts their jobs itself: riv-load-run-arrivals.c.)
 */
#include "config.h"

#include <math.h>

#include "riv-compat.h"
#include "riv-load-run-private.h"
#include "riv-process.h"

/* ---- virtual users ---- */

/* Users wanted at time t (all shards). */
static double
schedule_target (RivLoadRun *self,
                 double      t,
                 gboolean   *over)
{
  double from = self->params.users;

  *over = FALSE;
  if (self->params.stages == NULL)
    {
      if (self->params.duration > 0 && t >= self->params.duration)
        {
          *over = TRUE;
          return 0;
        }
      return self->params.users;
    }

  for (guint i = 0; i < self->params.stages->len; i++)
    {
      const RivLoadStage *stage = &g_array_index (self->params.stages, RivLoadStage, i);

      if (t < stage->seconds)
        return from + (stage->target - from) * (stage->seconds > 0 ? t / stage->seconds : 1);
      t -= stage->seconds;
      from = stage->target;
    }
  *over = TRUE;
  return 0;
}

/* This shard's share of n things numbered 1..n: those with (k - 1) % N == I. */
guint
_riv_load_run_shard_share (RivLoadRun *self,
                           guint       n)
{
  return n > self->params.shard ? (n - self->params.shard - 1) / self->params.n_shards + 1 : 0;
}

/* The user's client leaves it, its messages and bytes counted. */
static void
retire_client (LoadUser *user)
{
  RivLoadRun *self = user->run;

  g_clear_signal_handler (&user->finished_handler, user->client);
  self->counts.user_events += riv_client_get_n_messages (user->client);
  self->counts.user_bytes += riv_client_get_n_stream_bytes (user->client);
  /* Not closed now: with no job left the server ends the user's stream by
   * itself (close_stream). Cancelling streams of thousands of users mid-run
   * crashed inside libsoup 3.2 (seen with 3,000 users stopping); the clients
   * are closed and freed when the run ends. */
  g_ptr_array_add (self->users.retired, g_steal_pointer (&user->client));
}

/* An ended conversation's client, closed once idle SPENT_S (its server
 * ended its stream long before: closing it cancels nothing), so that a run
 * of many conversations does not keep them all until its end. */
#define SPENT_S 30.0

typedef struct
{
  RivClient *client;   /* owned */
  double     at;       /* riv_now () when its conversation ended */
} Spent;

/* Closes the user's spent clients that are old enough (all of them with all). */
static void
close_spent (LoadUser *user,
             gboolean  all)
{
  double now = riv_now ();
  Spent *head;

  while ((head = g_queue_peek_head (&user->spent)) != NULL && (all || now - head->at >= SPENT_S))
    {
      g_queue_pop_head (&user->spent);
      riv_client_close (head->client);
      g_object_unref (head->client);
      g_free (head);
    }
}

static void user_finished_cb (RivClient *client,
                              RivJob    *job,
                              gpointer   data);
static void hurry            (RivLoadRun *self);
static void start_rest       (RivLoadRun *self);

/* Iterations only (no stages, no duration): every user asked for starts
 * once, and they all run at once. */
static gboolean
starts_once (RivLoadRun *self)
{
  return self->params.stages == NULL && self->params.duration == 0;
}

/* A new client for the user, connected like the run's: a session of its own. */
static void
connect_client (LoadUser *user)
{
  RivLoadRun *self = user->run;
  RivClient *like = self->threads.seed != NULL ? self->threads.seed : self->params.client;

  /* The client and all it starts belong to the user's context. */
  g_main_context_push_thread_default (user->context);
  user->client = riv_client_new (riv_client_get_url (like));
  riv_client_set_download_images (user->client, FALSE);
  /* Nobody shows a virtual user's outputs as they stream: the run reads them
   * at the job's end (its record, its text rate), where the client hands
   * over the last values it has. Not every 20 ms on the way: building the
   * output values for that was 4-5 % of the client's CPU at 5,000 streaming
   * users. */
  riv_client_set_publish_interval (user->client, 10);
  riv_client_set_join_keep_alive (user->client, FALSE);
  riv_client_set_direct (user->client, TRUE);
  riv_client_connect_like (user->client, like);
  g_signal_emit (self, _riv_load_run_signals[SIGNAL_USER_STARTED], 0, user->client);
  user->finished_handler = g_signal_connect (user->client, "job-finished",
                                             G_CALLBACK (user_finished_cb), user);
  g_main_context_pop_thread_default (user->context);
  user->session_jobs = 0;
  user->session_private = FALSE;
  self->brk.sessions++;
}

/* The scenario of the user's next job when the run has conversations: the
 * next turn of the one going on, or the first of one drawn by weight. A
 * conversation with turns starts in a new session, and so does the job
 * after it (a session is not reused once a conversation had it). */
static LoadScenario *
next_turn (LoadUser *user)
{
  LoadScenario *scenario = user->conversation;

  if (scenario == NULL || user->turn >= MAX (scenario->turns, 1))
    {
      scenario = _riv_load_run_conversation_for (user->run, user->number,
                                                 user->n_conversations++);
      if (user->session_jobs > 0 && (scenario->turns > 0 || user->session_private))
        {
          Spent *spent = g_new (Spent, 1);

          close_spent (user, FALSE);
          retire_client (user);
          spent->client = g_ptr_array_steal_index (user->run->users.retired,
                                                   user->run->users.retired->len - 1);
          spent->at = riv_now ();
          g_queue_push_tail (&user->spent, spent);
          connect_client (user);
        }
      user->session_private = scenario->turns > 0;
      user->conversation = scenario;
      user->turn = 0;
    }
  user->turn++;
  return scenario;
}

/* Users are left to start: the user's next step waits for the last of them
 * (release_held ()), so that every user asked for runs at once. */
static void
hold (LoadUser *user)
{
  RivLoadRun *self = user->run;

  user->held.data = user;
  g_queue_push_tail_link (&self->users.held, &user->held);
}

static void
unhold (LoadUser *user)
{
  if (user->held.data == NULL)
    return;
  g_queue_unlink (&user->run->users.held, &user->held);
  user->held.data = NULL;
}

void
_riv_load_run_user_stop (LoadUser *user)
{
  RivLoadRun *self = user->run;

  unhold (user);
  if (user->client == NULL)
    return;
  _riv_load_run_destroy_source (&user->think_source);
  retire_client (user);
  g_clear_object (&user->job);
  user->retiring = FALSE;
  self->counts.active_users--;
}

static gboolean
user_next_cb (gpointer data)
{
  LoadUser *user = data;
  RivLoadRun *self = user->run;

  g_clear_pointer (&user->think_source, g_source_unref);
  if (self->users.arrival != NULL)
    _riv_load_run_arrivals_user_idle (user);
  else if (self->users.bursting && starts_once (self) && !self->stopped && !self->schedule_over)
    hold (user);
  else
    _riv_load_run_user_next (user);
  _riv_load_run_maybe_done (self);
  return G_SOURCE_REMOVE;
}

static void
user_finished_cb (RivClient *client,
                  RivJob    *job,
                  gpointer   data)
{
  LoadUser *user = data;
  RivLoadRun *self = user->run;
  double think;

  if (job != user->job)
    return;
  /* Users are still starting: with iterations, the rest start sooner and
   * this one's next step waits for them (user_next_cb ()); on a schedule
   * (stages, a duration), those its ramp has made due start now. */
  if (self->users.bursting && starts_once (self))
    hurry (self);
  else if (self->users.bursting)
    start_rest (self);
  think = self->users.arrival == NULL ? _riv_load_run_think_after (self, job) : 0;
  _riv_load_run_job_finished (self, job);

  /* Not from inside the client's signal: the next step runs from the loop. */
  if (think > 0 && !user->retiring && !self->schedule_over)
    user->think_source = g_timeout_source_new ((guint) (think * 1000));
  else
    user->think_source = g_idle_source_new ();
  g_source_set_callback (user->think_source, user_next_cb, user, NULL);
  g_source_attach (user->think_source, user->context);
}

void
_riv_load_run_user_next (LoadUser *user)
{
  RivLoadRun *self = user->run;
  g_autoptr(GError) error = NULL;

  g_clear_object (&user->job);
  if (user->client == NULL)
    return;
  riv_client_clear_finished (user->client);

  if (user->retiring || self->schedule_over || self->stopped ||
      (self->params.iterations > 0 && user->iterations >= self->params.iterations))
    {
      _riv_load_run_user_stop (user);
      return;
    }

  if (self->params.conversations && self->users.arrival == NULL)
    {
      LoadScenario *scenario = next_turn (user);

      user->job = _riv_load_run_submit (self, user->client, user->number, scenario,
                                        scenario->turns > 0 ? user->turn : 0, &error);
    }
  else
    user->job = _riv_load_run_submit (self, user->client, user->number, NULL, 0, &error);
  if (user->job == NULL)
    {
      /* Only bad inputs get here (network failures are the job's status). */
      if (self->usage_error == NULL)
        self->usage_error = g_strdup (error->message);
      self->stopped = TRUE;
      _riv_load_run_user_stop (user);
      return;
    }
  user->iterations++;
  user->session_jobs++;
}

void
_riv_load_run_user_start (RivLoadRun *self,
                          LoadUser   *user)
{
  connect_client (user);
  user->conversation = NULL;   /* a user started again starts a new conversation */
  self->counts.active_users++;
  self->counts.peak_users = MAX (self->counts.peak_users, self->counts.active_users);
  g_main_context_push_thread_default (user->context);
  _riv_load_run_user_next (user);
  g_main_context_pop_thread_default (user->context);
  /* Started from outside the user's context (riv-mux.h). */
  g_main_context_wakeup (user->context);
}

/* The context of the user in this slot: a new one every USERS_PER_CONTEXT. */
static GMainContext *
slot_context (RivLoadRun *self,
              guint       slot)
{
  guint index = slot / USERS_PER_CONTEXT;

  if (self->users.mux == NULL)
    return self->context;
  while (self->users.user_contexts->len <= index)
    g_ptr_array_add (self->users.user_contexts, riv_mux_add (self->users.mux));
  return g_ptr_array_index (self->users.user_contexts, index);
}

LoadUser *
_riv_load_run_user_add (RivLoadRun *self)
{
  guint slot = self->users.all_users->len;
  LoadUser *user = g_new0 (LoadUser, 1);

  user->run = self;
  user->context = slot_context (self, slot);
  user->number = slot * self->params.n_shards + self->params.shard + 1;
  g_ptr_array_add (self->users.all_users, user);
  return user;
}

static gboolean
user_done (RivLoadRun *self,
           LoadUser   *user)
{
  return self->params.iterations > 0 && user->iterations >= self->params.iterations;
}

/* Users are started a slice at a time: starting one (a connection, a join,
 * its stream) costs the loop several times what an update of a running
 * stream does, and a thousand started in one go held up the updates of the
 * users started first by up to 50 ms (the streaming bench's client-added
 * delay, app/docs/measurements.md §9). The next slice starts when nothing
 * of higher priority is ready (the running users' replies and updates). In
 * a loop that is never free, a guard starts what is due for users to start
 * at START_MIN_RATE a second since the first slice. Either waits while the
 * loop is busy (START_BUSY below).
 *
 * With iterations, the users asked for all run at once, as they did when
 * all started in one go, even when their jobs are shorter than the start:
 * once a job has ended, the burst turns urgent. The rest then start a slice
 * at every turn of the loop, at the priority of the running users' replies
 * and updates, each slice START_SLICE users and then more until
 * URGENT_SLICE_S has passed; and a user whose next step comes meanwhile (its
 * next job, or stopping) is held until the last user has started. The first
 * job's end used to start every user left in one go: 3,000 of 5,000
 * streaming users, 0.2 s in which the updates of the 2,000 already running
 * waited (issue #36: client-added delay p99 310-430 ms, two cores, the
 * server on the same machine). With slices of 1 ms it was 60-105 ms, with 2 ms 75-115
 * ms. The price: where the updates keep the client busy, a turn is mostly
 * theirs, and the last of those users started 3-4 s later than in one go.
 * On a schedule (stages, a duration) a job's end starts every user the
 * ramp has made due at once, and nobody is held: a ramp's users do not wait
 * for the ramp, and a slow client (ASan: 700 of 1,000 users by the end of a
 * 5 s ramp and 12 s hold) would fall behind it. */
#define START_SLICE    8
#define START_GUARD_MS 5
#define START_MIN_RATE 1000.0
#define URGENT_SLICE_S 0.001

/* A burst's starts wait while the loop's thread has been busy more than
 * START_BUSY of the time over the last START_BUSY_WINDOW_S or so (the time
 * it ran or waited for a core, over the wall time: riv_thread_busy_time (),
 * sampled at most every START_BUSY_WAIT_MS), and look again
 * START_BUSY_WAIT_MS later; the guard's minimum pace then counts from there
 * rather than catching up. Starting a user costs the loop several updates'
 * worth; a loop busy with its running users' updates that started more fell
 * behind them, and the run measured its own lateness: at 5,000 streaming
 * users (the streaming bench, two cores shared with the server) the
 * client-added delay p99 was 43-53 ms with the starts paced by the loop's
 * free moments and the guard alone, 8-21 ms with this, the run 10 % longer.
 * A loop that is never that busy starts as before. */
#define START_BUSY          0.8
#define START_BUSY_WINDOW_S 0.05
#define START_BUSY_WAIT_MS  5

static void follow_schedule (RivLoadRun *self,
                             guint       slice,
                             double      until);

static void
start_more_clear (RivLoadRun *self)
{
  _riv_load_run_destroy_source (&self->users.more);
  _riv_load_run_destroy_source (&self->users.more_guard);
}

static void
start_more (RivLoadRun *self,
            guint       slice,
            double      until)
{
  start_more_clear (self);
  follow_schedule (self, slice, until);
  _riv_load_run_maybe_done (self);
}

/* Whether the loop's thread has been busier than START_BUSY lately. The
 * thread's busy time is read (a file on Linux) only as a sample is taken. */
static gboolean
loop_busy (RivLoadRun *self)
{
  RivLoadRunUsers *users = &self->users;
  double now = riv_now ();

  if (users->busy_at == 0)
    {
      users->busy_at = now;
      users->busy_time = riv_thread_busy_time ();
    }
  else if (now - users->busy_at >= START_BUSY_WAIT_MS / 1000.0)
    {
      double busy_time = riv_thread_busy_time ();
      double share = (busy_time - users->busy_time) / (now - users->busy_at);
      double weight = users->busy_known ? MIN (1.0, (now - users->busy_at) / START_BUSY_WINDOW_S)
                                        : 1.0;

      users->busy = weight * share + (1 - weight) * users->busy;
      users->busy_known = TRUE;
      users->busy_at = now;
      users->busy_time = busy_time;
    }
  return users->busy > START_BUSY;
}

static gboolean start_more_cb   (gpointer data);
static gboolean start_urgent_cb (gpointer data);

/* A busy loop: the burst's next slice waits START_BUSY_WAIT_MS, then looks
 * again, and the minimum pace starts again from now (the users not started
 * while the loop was busy are not due in one go after it). FALSE when the
 * loop is not busy. */
static gboolean
wait_while_busy (RivLoadRun *self)
{
  if (!loop_busy (self))
    return FALSE;
  self->users.burst_began = riv_now () - self->users.burst_started / START_MIN_RATE;
  start_more_clear (self);
  self->users.more = _riv_load_run_add_source (self, g_timeout_source_new (START_BUSY_WAIT_MS),
                                               self->users.urgent ? start_urgent_cb
                                                                  : start_more_cb,
                                               self);
  return TRUE;
}

/* The loop is free: a slice. */
static gboolean
start_more_cb (gpointer data)
{
  if (!wait_while_busy (data))
    start_more (data, START_SLICE, 0);
  return G_SOURCE_REMOVE;
}

/* A turn of the loop in an urgent burst: a slice of URGENT_SLICE_S. */
static gboolean
start_urgent_cb (gpointer data)
{
  if (!wait_while_busy (data))
    start_more (data, START_SLICE, riv_now () + URGENT_SLICE_S);
  return G_SOURCE_REMOVE;
}

/* The loop has been busy: what the minimum pace has made due. A loop busy
 * with its users (loop_busy ()) waits instead. */
static gboolean
start_more_guard_cb (gpointer data)
{
  RivLoadRun *self = data;
  double due;

  if (wait_while_busy (self))
    return G_SOURCE_REMOVE;
  due = (riv_now () - self->users.burst_began) * START_MIN_RATE;
  start_more (self, (guint) MAX (due - self->users.burst_started, START_SLICE), 0);
  return G_SOURCE_REMOVE;
}

static void
start_more_later (RivLoadRun *self)
{
  if (self->users.more != NULL)
    return;
  self->users.more = g_idle_source_new ();
  if (self->users.urgent)
    {
      /* The running users' replies and updates come from the mux, at this
       * priority: each turn of the loop handles what is ready of them, then
       * starts a slice. */
      g_source_set_priority (self->users.more, G_PRIORITY_DEFAULT);
      _riv_load_run_add_source (self, self->users.more, start_urgent_cb, self);
      return;
    }
  g_source_set_priority (self->users.more, G_PRIORITY_DEFAULT_IDLE);
  _riv_load_run_add_source (self, self->users.more, start_more_cb, self);
  self->users.more_guard = _riv_load_run_add_source (self, g_timeout_source_new (START_GUARD_MS),
                                                     start_more_guard_cb, self);
}

/* On a schedule, a job has ended: the users the ramp has made due start now. */
static void
start_rest (RivLoadRun *self)
{
  start_more (self, G_MAXUINT, 0);
}

/* A job has ended while users are left to start: the burst turns urgent. */
static void
hurry (RivLoadRun *self)
{
  if (self->users.urgent || !self->users.bursting)
    return;
  self->users.urgent = TRUE;
  start_more_clear (self);
  start_more_later (self);
}

/* The burst is over: the held users' next steps run from their contexts, as
 * they would have (any think time has passed: they were held at its end). */
static void
release_held (RivLoadRun *self)
{
  GList *link;

  while ((link = g_queue_pop_head_link (&self->users.held)) != NULL)
    {
      LoadUser *user = link->data;

      link->data = NULL;
      user->think_source = g_idle_source_new ();
      g_source_set_callback (user->think_source, user_next_cb, user, NULL);
      g_source_attach (user->think_source, user->context);
      /* Attached from outside the user's context (riv-mux.h). */
      g_main_context_wakeup (user->context);
    }
}

/* Brings this shard's active users to the schedule's number, at most slice
 * of them started now, or more until riv_now () is until. */
static void
follow_schedule (RivLoadRun *self,
                 guint       slice,
                 double      until)
{
  gboolean over;
  double wanted = schedule_target (self, _riv_load_run_elapsed (self), &over);
  guint target = _riv_load_run_shard_share (self, (guint) floor (wanted + 1e-9));
  gboolean once = starts_once (self);
  guint active = 0, started = 0, slot;
  double began = riv_now ();

  if (over)
    {
      if (!self->schedule_over)
        self->brk.ramp_end = riv_now ();
      self->schedule_over = TRUE;
      self->submitting_done = TRUE;
      _riv_load_run_destroy_source (&self->sources.tick_source);
    }

  for (guint i = 0; i < self->users.all_users->len; i++)
    {
      LoadUser *user = g_ptr_array_index (self->users.all_users, i);

      if (user->client != NULL && !user->retiring)
        active++;
    }

  /* Ramp up: the lowest-numbered users that are not running (a user that did
   * all its iterations stays done). Iterations only: users 1 … target, each
   * started once, from the first not started yet. */
  for (slot = once ? self->users.next_slot : 0;
       active < target && (!once || slot < target) &&
       (started < slice || (until > 0 && riv_now () < until)) &&
       !self->schedule_over && !self->stopped;
       slot++)
    {
      LoadUser *user;

      user = slot < self->users.all_users->len ? g_ptr_array_index (self->users.all_users, slot)
                                         : _riv_load_run_user_add (self);
      if (user->client != NULL && user->retiring)
        {
          user->retiring = FALSE;
          active++;
        }
      else if (user->client == NULL && !user_done (self, user))
        {
          _riv_load_run_user_start (self, user);
          active++;
          started++;
        }
    }
  if (once)
    {
      self->users.next_slot = slot;
      /* Every user has been started (or the run stopped): no more jobs come. */
      if (slot >= target || self->stopped)
        self->submitting_done = TRUE;
    }
  /* A burst of starts: from a slice that left users to start to the slice
   * that starts the last of them. */
  if (!self->users.bursting)
    {
      self->users.burst_began = began;
      self->users.burst_started = 0;
    }
  self->users.burst_started += started;
  self->users.bursting = active < target && !self->stopped && !self->schedule_over &&
                         (!once || slot < target);
  if (self->users.bursting)
    start_more_later (self);
  else
    {
      self->users.urgent = FALSE;
      release_held (self);
    }

  /* Ramp down: the highest-numbered users stop after their job in flight. */
  for (guint i = self->users.all_users->len; i > 0 && active > target; i--)
    {
      LoadUser *user = g_ptr_array_index (self->users.all_users, i - 1);

      if (user->client != NULL && !user->retiring)
        {
          user->retiring = TRUE;
          active--;
          if (user->job == NULL && user->think_source != NULL)
            _riv_load_run_user_stop (user);   /* thinking: stop now rather than after the pause */
        }
    }
}

static gboolean
tick_cb (gpointer data)
{
  RivLoadRun *self = data;

  follow_schedule (self, START_SLICE, 0);
  _riv_load_run_maybe_done (self);
  return self->sources.tick_source != NULL ? G_SOURCE_CONTINUE : G_SOURCE_REMOVE;
}

void
_riv_load_run_users_start (RivLoadRun *self)
{
  /* Two descriptors per virtual user (its stream and its joins). */
  riv_raise_fd_limit ();
  self->users.mux = riv_mux_new (self->context);
  self->users.user_contexts = g_ptr_array_new ();
  /* The schedule's clock starts now, before the first _riv_load_run_submit. */
  self->counts.start = riv_now ();
  self->counts.start_wall = g_get_real_time () / (double) G_USEC_PER_SEC;

  if (self->users.arrival != NULL)
    {
      _riv_load_run_arrivals_start (self);
      return;
    }
  if (starts_once (self))
    {
      /* Iterations only: every user starts once; the run ends when all are done. */
      follow_schedule (self, START_SLICE, 0);
      return;
    }

  self->sources.tick_source = _riv_load_run_add_timeout (self, TICK_S, tick_cb);
  follow_schedule (self, START_SLICE, 0);
}

void
_riv_load_run_users_free (RivLoadRun *self)
{
  _riv_load_run_destroy_source (&self->sources.tick_source);
  start_more_clear (self);
  _riv_load_run_arrivals_free (self);
  for (guint i = 0; self->users.all_users != NULL && i < self->users.all_users->len; i++)
    {
      LoadUser *user = g_ptr_array_index (self->users.all_users, i);

      _riv_load_run_user_stop (user);
      close_spent (user, TRUE);
      g_free (user);
    }
  g_clear_pointer (&self->users.all_users, g_ptr_array_unref);
  for (guint i = 0; self->users.retired != NULL && i < self->users.retired->len; i++)
    riv_client_close (g_ptr_array_index (self->users.retired, i));
  g_clear_pointer (&self->users.retired, g_ptr_array_unref);
}
