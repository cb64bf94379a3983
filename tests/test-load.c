/* test-load.c
 * Copyright 2026 The Rivulet authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The load engine in this process: what became of jobs counted one way
 * (RivOutcomes), and RivBurst against the embedded demo server (127.0.0.1,
 * port 0, same main context): a burst of thousands of jobs keeps at most
 * RIV_BURST_MAX_JOINING join requests in flight, yet every job is
 * submitted, completes and gets its own output; stopping a burst that waits
 * for replies submits nothing more.
 */
#include "config.h"

#include "riv-burst.h"
#include "riv-client.h"
#include "riv-outcomes.h"
#include "riv-server.h"
#include "riv-test-util.h"

#if defined(__SANITIZE_ADDRESS__)
# define HANG_GUARD 240.0
#else
# define HANG_GUARD 90.0
#endif

/* Every end is counted as itself; a job counted before it ended is lost. */
static void
test_outcomes (void)
{
  RivOutcomes outcomes = { 0 };
  const RivJobStatus unfinished[] = {
    RIV_JOB_STATUS_PENDING, RIV_JOB_STATUS_JOINING, RIV_JOB_STATUS_QUEUED,
    RIV_JOB_STATUS_RUNNING, RIV_JOB_STATUS_STREAMING,
  };

  g_assert_cmpuint (riv_outcomes_finished (&outcomes), ==, 0);

  for (guint i = 0; i < 3; i++)
    g_assert_cmpint (riv_outcomes_add (&outcomes, RIV_JOB_STATUS_COMPLETED), ==,
                     RIV_JOB_STATUS_COMPLETED);
  g_assert_cmpint (riv_outcomes_add (&outcomes, RIV_JOB_STATUS_FAILED), ==, RIV_JOB_STATUS_FAILED);
  g_assert_cmpint (riv_outcomes_add (&outcomes, RIV_JOB_STATUS_CANCELLED), ==,
                   RIV_JOB_STATUS_CANCELLED);
  g_assert_cmpint (riv_outcomes_add (&outcomes, RIV_JOB_STATUS_LOST), ==, RIV_JOB_STATUS_LOST);
  for (guint i = 0; i < G_N_ELEMENTS (unfinished); i++)
    g_assert_cmpint (riv_outcomes_add (&outcomes, unfinished[i]), ==, RIV_JOB_STATUS_LOST);

  g_assert_cmpuint (outcomes.completed, ==, 3);
  g_assert_cmpuint (outcomes.failed, ==, 1);
  g_assert_cmpuint (outcomes.cancelled, ==, 1);
  g_assert_cmpuint (outcomes.lost, ==, 1 + G_N_ELEMENTS (unfinished));
  g_assert_cmpuint (riv_outcomes_finished (&outcomes), ==, 6 + G_N_ELEMENTS (unfinished));
}

typedef struct
{
  RivServer *server;
  RivClient *client;
  guint      max_joining;
  guint      n_finished_signals;
} Fixture;

static void
joining_cb (RivClient  *client,
            GParamSpec *pspec,
            Fixture    *fx)
{
  fx->max_joining = MAX (fx->max_joining, riv_client_get_n_joining (client));
}

static void
fixture_setup (Fixture       *fx,
               gconstpointer  data)
{
  g_autoptr(GAsyncResult) result = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *url = NULL;

  fx->server = riv_server_new ();
  riv_server_listen (fx->server, NULL, 0, &error);
  g_assert_no_error (error);
  url = riv_server_dup_url (fx->server);

  fx->client = riv_client_new (url);
  riv_client_connect_async (fx->client, NULL, riv_test_async_result_cb, &result);
  riv_test_wait_result (&result, HANG_GUARD);
  g_assert_true (riv_client_connect_finish (fx->client, result, &error));
  g_assert_no_error (error);

  g_signal_connect (fx->client, "notify::n-joining", G_CALLBACK (joining_cb), fx);
}

static void
fixture_teardown (Fixture       *fx,
                  gconstpointer  data)
{
  riv_client_close (fx->client);
  riv_test_drain ();
  g_assert_finalize_object (fx->client);
  riv_server_shutdown (fx->server);
  riv_test_drain ();
  g_clear_object (&fx->server);
}

static void
finished_cb (RivBurst *burst,
             Fixture  *fx)
{
  fx->n_finished_signals++;
}

static gboolean
all_finished (gpointer user_data)
{
  RivClient *client = user_data;
  GListModel *jobs = riv_client_get_jobs (client);

  for (guint i = 0; i < g_list_model_get_n_items (jobs); i++)
    {
      g_autoptr(RivJob) job = g_list_model_get_item (jobs, i);

      if (!riv_job_is_finished (job))
        return FALSE;
    }
  return riv_client_get_n_joining (client) == 0;
}

static gboolean
burst_done (gpointer user_data)
{
  return !riv_burst_is_running (user_data);
}

#define N_JOBS 3000

static void
test_bounded_joins (Fixture       *fx,
                    gconstpointer  data)
{
  g_autoptr(JsonNode) input = json_from_string ("[\"b{i}\", 0]", NULL);
  g_autoptr(RivBurst) burst = riv_burst_new (fx->client, "batch_echo", input, N_JOBS, 0);
  GListModel *jobs = riv_client_get_jobs (fx->client);

  g_signal_connect (burst, "finished", G_CALLBACK (finished_cb), fx);
  riv_burst_start (burst);
  g_assert_true (riv_test_wait_until (burst_done, burst, HANG_GUARD));
  g_assert_true (riv_test_wait_until (all_finished, fx->client, HANG_GUARD));

  /* Every job went out once, and the burst said so once. */
  g_assert_cmpuint (riv_burst_get_n_submitted (burst), ==, N_JOBS);
  g_assert_cmpuint (g_list_model_get_n_items (jobs), ==, N_JOBS);
  g_assert_cmpuint (fx->n_finished_signals, ==, 1);

  /* Bounded, but not one at a time. */
  g_assert_cmpuint (fx->max_joining, <=, RIV_BURST_MAX_JOINING);
  g_assert_cmpuint (fx->max_joining, >, 1);
  g_assert_cmpuint (riv_client_get_n_joining (fx->client), ==, 0);

  /* Every job completed with its own output. */
  for (guint i = 0; i < N_JOBS; i++)
    {
      g_autoptr(RivJob) job = g_list_model_get_item (jobs, i);
      g_autofree char *expected = g_strdup_printf ("b%u", riv_job_get_number (job));

      g_assert_cmpint (riv_job_get_status (job), ==, RIV_JOB_STATUS_COMPLETED);
      g_assert_cmpstr (riv_job_get_output_text (job), ==, expected);
    }
}

static gboolean
submitted_some (gpointer user_data)
{
  return riv_burst_get_n_submitted (user_data) >= 100;
}

static void
test_stop_while_waiting (Fixture       *fx,
                         gconstpointer  data)
{
  g_autoptr(JsonNode) input = json_from_string ("[\"s{i}\", 0.2]", NULL);
  g_autoptr(RivBurst) burst = riv_burst_new (fx->client, "batch_echo", input, N_JOBS, 0);
  GListModel *jobs = riv_client_get_jobs (fx->client);
  guint submitted;

  g_signal_connect (burst, "finished", G_CALLBACK (finished_cb), fx);
  riv_burst_start (burst);
  g_assert_true (riv_test_wait_until (submitted_some, burst, HANG_GUARD));
  riv_burst_stop (burst);
  submitted = riv_burst_get_n_submitted (burst);
  g_assert_false (riv_burst_is_running (burst));
  g_assert_cmpuint (fx->n_finished_signals, ==, 1);
  g_assert_cmpuint (submitted, <, N_JOBS);

  /* The replies that were still coming resume nothing. */
  g_assert_true (riv_test_wait_until (all_finished, fx->client, HANG_GUARD));
  g_assert_cmpuint (riv_burst_get_n_submitted (burst), ==, submitted);
  g_assert_cmpuint (g_list_model_get_n_items (jobs), ==, submitted);
  g_assert_cmpuint (fx->n_finished_signals, ==, 1);
  g_assert_cmpuint (fx->max_joining, <=, RIV_BURST_MAX_JOINING);
  for (guint i = 0; i < submitted; i++)
    {
      g_autoptr(RivJob) job = g_list_model_get_item (jobs, i);

      g_assert_cmpint (riv_job_get_status (job), ==, RIV_JOB_STATUS_COMPLETED);
    }
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/load/outcomes", test_outcomes);
  g_test_add ("/load/burst/bounded-joins", Fixture, NULL, fixture_setup,
              test_bounded_joins, fixture_teardown);
  g_test_add ("/load/burst/stop-while-waiting", Fixture, NULL, fixture_setup,
              test_stop_while_waiting, fixture_teardown);

  return g_test_run ();
}
