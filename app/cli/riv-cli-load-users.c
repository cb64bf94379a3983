/* riv-cli-load-users.c
 * Copyright 2026 The Rivulet authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * rivulet-cli load --users / --stages: closed-loop virtual users. Each user is
 * one RivClient (its own session hash and SSE stream) sharing the config the
 * first client loaded: submit, wait until the job ends, think, repeat.
 */
#include "config.h"

#include <math.h>
#include <string.h>

#include "riv-cli-load.h"
#include "riv-cli-record.h"
#include "riv-util.h"

#define TICK_S 0.1   /* how often the number of users follows the schedule */

static gboolean
parse_duration (const char *text,
                double     *seconds)
{
  char *end;
  double value = g_ascii_strtod (text, &end);
  double unit;

  if (end == text || !isfinite (value) || value < 0)
    return FALSE;
  if (*end == '\0' || strcmp (end, "s") == 0)
    unit = 1;
  else if (strcmp (end, "ms") == 0)
    unit = 0.001;
  else if (strcmp (end, "m") == 0)
    unit = 60;
  else if (strcmp (end, "h") == 0)
    unit = 3600;
  else
    return FALSE;
  *seconds = value * unit;
  return TRUE;
}

gboolean
load_parse_stages (const char  *text,
                   GArray     **stages,
                   GError     **error)
{
  g_auto(GStrv) parts = g_strsplit (text, ",", -1);
  g_autoptr(GArray) result = g_array_new (FALSE, FALSE, sizeof (LoadStage));

  for (guint i = 0; parts[i] != NULL; i++)
    {
      g_autofree char *part = g_strstrip (g_strdup (parts[i]));
      g_auto(GStrv) pair = g_strsplit (part, ":", -1);
      guint64 target;
      LoadStage stage;

      if (g_strv_length (pair) != 2)
        {
          g_set_error (error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
                       "--stages: stage %u \"%s\" is not DURATION:TARGET (e.g. 30s:50)",
                       i + 1, part);
          return FALSE;
        }
      if (!parse_duration (g_strstrip (pair[0]), &stage.seconds) || stage.seconds > 7 * 24 * 3600)
        {
          g_set_error (error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
                       "--stages: stage %u \"%s\": \"%s\" is not a duration (e.g. 500ms, 30s, "
                       "2m, 1h)", i + 1, part, pair[0]);
          return FALSE;
        }
      if (!g_ascii_string_to_unsigned (g_strstrip (pair[1]), 10, 0, 1000000, &target, NULL))
        {
          g_set_error (error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
                       "--stages: stage %u \"%s\": \"%s\" is not a number of users (0…1000000)",
                       i + 1, part, pair[1]);
          return FALSE;
        }
      stage.target = (guint) target;
      g_array_append_val (result, stage);
    }

  *stages = g_steal_pointer (&result);
  return TRUE;
}

double
load_users_schedule (LoadRun *run)
{
  double total = 0;

  if (run->stages == NULL)
    return run->duration;
  for (guint i = 0; i < run->stages->len; i++)
    total += g_array_index (run->stages, LoadStage, i).seconds;
  return total;
}

/* Users wanted at time t (all shards); G_MAXUINT once the schedule is over. */
static double
schedule_target (LoadRun *run,
                 double   t,
                 gboolean *over)
{
  double from = run->users;

  *over = FALSE;
  if (run->stages == NULL)
    {
      if (run->duration > 0 && t >= run->duration)
        {
          *over = TRUE;
          return 0;
        }
      return run->users;
    }

  for (guint i = 0; i < run->stages->len; i++)
    {
      const LoadStage *stage = &g_array_index (run->stages, LoadStage, i);

      if (t < stage->seconds)
        return from + (stage->target - from) * (stage->seconds > 0 ? t / stage->seconds : 1);
      t -= stage->seconds;
      from = stage->target;
    }
  *over = TRUE;
  return 0;
}

static guint
user_number (LoadRun *run,
             guint    slot)
{
  return slot * run->n_shards + run->shard + 1;
}

/* This shard's users among the first n (all shards). */
static guint
shard_users (LoadRun *run,
             guint    n)
{
  return n > run->shard ? (n - run->shard - 1) / run->n_shards + 1 : 0;
}

static void user_next (LoadUser *user);

static void
user_stop (LoadUser *user)
{
  LoadRun *run = user->run;

  if (user->client == NULL)
    return;
  if (user->think_source != NULL)
    {
      g_source_destroy (user->think_source);
      g_clear_pointer (&user->think_source, g_source_unref);
    }
  g_clear_signal_handler (&user->finished_handler, user->client);
  run->user_events += riv_client_get_n_messages (user->client);
  /* Not closed now: with no job left the server ends the user's stream by
   * itself (close_stream). Cancelling streams of thousands of users mid-run
   * crashed inside libsoup 3.2 (seen with 3,000 users stopping); the clients
   * are closed and freed when the run ends. */
  g_ptr_array_add (run->retired, g_steal_pointer (&user->client));
  g_clear_object (&user->job);
  user->retiring = FALSE;
  run->active_users--;
}

static gboolean
user_next_cb (gpointer data)
{
  LoadUser *user = data;

  g_clear_pointer (&user->think_source, g_source_unref);
  user_next (user);
  load_maybe_done (user->run);
  return G_SOURCE_REMOVE;
}

static void
user_finished_cb (RivClient *client,
                  RivJob    *job,
                  gpointer   data)
{
  LoadUser *user = data;
  LoadRun *run = user->run;

  if (job != user->job)
    return;
  load_job_finished (run, job);

  /* Not from inside the client's signal: the next step runs from the loop. */
  if (run->think > 0 && !user->retiring && !run->schedule_over)
    user->think_source = g_timeout_source_new ((guint) (run->think * 1000));
  else
    user->think_source = g_idle_source_new ();
  g_source_set_callback (user->think_source, user_next_cb, user, NULL);
  g_source_attach (user->think_source, NULL);
}

static void
user_next (LoadUser *user)
{
  LoadRun *run = user->run;
  g_autoptr(GError) error = NULL;

  g_clear_object (&user->job);
  if (user->client == NULL)
    return;
  riv_client_clear_finished (user->client);

  if (user->retiring || run->schedule_over || run->stopped ||
      (run->iterations > 0 && user->iterations >= run->iterations))
    {
      user_stop (user);
      return;
    }

  user->job = load_submit (run, user->client, user->number, &error);
  if (user->job == NULL)
    {
      /* Only bad inputs get here (network failures are the job's status). */
      if (run->usage_failed == NULL)
        run->usage_failed = g_strdup (error->message);
      run->stopped = TRUE;
      user_stop (user);
      return;
    }
  user->iterations++;
}

static void
user_start (LoadRun  *run,
            LoadUser *user)
{
  user->client = riv_client_new (run->url);
  riv_client_set_download_images (user->client, FALSE);
  riv_client_connect_like (user->client, run->client);
  riv_cli_record_add_client (user->client);
  user->finished_handler = g_signal_connect (user->client, "job-finished",
                                             G_CALLBACK (user_finished_cb), user);
  run->active_users++;
  run->peak_users = MAX (run->peak_users, run->active_users);
  user_next (user);
}

static gboolean
user_done (LoadRun  *run,
           LoadUser *user)
{
  return run->iterations > 0 && user->iterations >= run->iterations;
}

/* Brings this shard's active users to the schedule's number. */
static void
follow_schedule (LoadRun *run)
{
  gboolean over;
  double wanted = schedule_target (run, load_elapsed (run), &over);
  guint target = shard_users (run, (guint) floor (wanted + 1e-9));
  guint active = 0;

  if (over)
    {
      run->schedule_over = TRUE;
      run->submitting_done = TRUE;
      g_clear_pointer (&run->tick_source, g_source_unref);
    }

  for (guint i = 0; i < run->all_users->len; i++)
    {
      LoadUser *user = g_ptr_array_index (run->all_users, i);

      if (user->client != NULL && !user->retiring)
        active++;
    }

  /* Ramp up: the lowest-numbered users that are not running (a user that did
   * all its iterations stays done). */
  for (guint slot = 0; active < target && !run->schedule_over && !run->stopped; slot++)
    {
      LoadUser *user;

      if (slot >= run->all_users->len)
        {
          user = g_new0 (LoadUser, 1);
          user->run = run;
          user->number = user_number (run, slot);
          g_ptr_array_add (run->all_users, user);
        }
      user = g_ptr_array_index (run->all_users, slot);
      if (user->client != NULL && user->retiring)
        {
          user->retiring = FALSE;
          active++;
        }
      else if (user->client == NULL && !user_done (run, user))
        {
          user_start (run, user);
          active++;
        }
      else if (user->client == NULL && run->stages == NULL && run->duration == 0)
        break;   /* --iterations only: users are started once */
    }

  /* Ramp down: the highest-numbered users stop after their job in flight. */
  for (guint i = run->all_users->len; i > 0 && active > target; i--)
    {
      LoadUser *user = g_ptr_array_index (run->all_users, i - 1);

      if (user->client != NULL && !user->retiring)
        {
          user->retiring = TRUE;
          active--;
          if (user->job == NULL && user->think_source != NULL)
            {
              /* Thinking: stop now rather than after the pause. */
              g_source_destroy (user->think_source);
              g_clear_pointer (&user->think_source, g_source_unref);
              user_stop (user);
            }
        }
    }
}

static gboolean
tick_cb (gpointer data)
{
  LoadRun *run = data;

  follow_schedule (run);
  load_maybe_done (run);
  return run->tick_source != NULL ? G_SOURCE_CONTINUE : G_SOURCE_REMOVE;
}

void
load_users_start (LoadRun *run)
{
  run->all_users = g_ptr_array_new ();
  run->retired = g_ptr_array_new_with_free_func (g_object_unref);
  /* The schedule's clock starts now, before the first submit. */
  run->start = riv_now ();
  run->start_wall = g_get_real_time () / (double) G_USEC_PER_SEC;

  if (run->stages == NULL && run->duration == 0)
    {
      /* --iterations only: every user starts now; the run ends when all are done. */
      follow_schedule (run);
      run->submitting_done = TRUE;
      return;
    }

  run->tick_source = g_timeout_source_new ((guint) (TICK_S * 1000));
  g_source_set_callback (run->tick_source, tick_cb, run, NULL);
  g_source_attach (run->tick_source, NULL);
  follow_schedule (run);
}

void
load_users_foreach_job (LoadRun *run,
                        void   (*func) (LoadRun *run, RivJob *job))
{
  for (guint i = 0; run->all_users != NULL && i < run->all_users->len; i++)
    {
      LoadUser *user = g_ptr_array_index (run->all_users, i);

      if (user->job != NULL && !riv_job_is_finished (user->job))
        func (run, user->job);
    }
}

void
load_users_free (LoadRun *run)
{
  if (run->tick_source != NULL)
    {
      g_source_destroy (run->tick_source);
      g_clear_pointer (&run->tick_source, g_source_unref);
    }
  for (guint i = 0; run->all_users != NULL && i < run->all_users->len; i++)
    {
      LoadUser *user = g_ptr_array_index (run->all_users, i);

      user_stop (user);
      g_free (user);
    }
  g_clear_pointer (&run->all_users, g_ptr_array_unref);
  for (guint i = 0; run->retired != NULL && i < run->retired->len; i++)
    riv_client_close (g_ptr_array_index (run->retired, i));
  g_clear_pointer (&run->retired, g_ptr_array_unref);
}
