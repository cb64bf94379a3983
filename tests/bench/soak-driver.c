/* soak-driver.c
 * Copyright 2026 The Rivulet authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Issue #6 soak: one RivClient in this process against one `rivulet-cli serve`
 * (started by tests/bench/soak). For each burst it submits SOAK_JOBS jobs, a
 * mix of the four demos with fast parameters, cancels a random ~5% of them
 * (each when it reaches a randomly chosen status: joining, queued, running or
 * streaming, so that cancels race every stage of a job's life), and waits
 * until every job is terminal or SOAK_STUCK_S passes. It counts lost jobs
 * (status "lost"), stuck jobs (not terminal within the bound), failed jobs
 * and completed jobs whose final output is wrong, and samples the server's
 * and its own resident memory after each burst.
 *
 *   soak-driver URL SERVER_PID
 *
 * Environment: SOAK_BURSTS (100), SOAK_JOBS (1000), SOAK_CANCEL (0.05),
 * SOAK_STUCK_S (120), SOAK_SEED (random), SOAK_SETTLE_MS (2000: the pause
 * before memory is sampled; image downloads go on for a while after their
 * jobs have finished), SOAK_DOWNLOAD_IMAGES (1). Exit status 0 only with
 * zero lost, stuck, failed and wrong.
 *
 * Not a test: timing is reported, never asserted.
 */
#include "config.h"

#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "riv-client.h"

typedef enum
{
  DEMO_FAKE_DIFFUSION,
  DEMO_STREAM_TEXT,
  DEMO_BATCH_ECHO,
  DEMO_RAPID_GENERATION,
  N_DEMOS
} Demo;

static const char *demo_endpoints[N_DEMOS] = {
  "/fake_diffusion", "/stream_text", "/batch_echo", "/rapid_generation",
};

typedef struct
{
  RivClient    *client;      /* borrowed */
  RivJob       *job;         /* owned */
  Demo          demo;
  char         *echo;        /* batch_echo input, owned */
  RivJobStatus  cancel_at;   /* cancel once the job reaches this status */
  guint         cancel_id;   /* idle cancelling a joining job */
  gulong        notify_id;   /* waiting for cancel_at */
  gboolean      cancel_sent;
} Entry;

/* Totals and per-burst counters. */
typedef struct
{
  guint64 completed;
  guint64 failed;
  guint64 cancelled;
  guint64 lost;
  guint64 stuck;
  guint64 wrong;
  guint64 cancel_requests;
  guint64 unconfirmed;   /* cancelled without the server's confirmation */
} Counts;

static guint
env_uint (const char *name,
          guint       fallback)
{
  const char *value = g_getenv (name);

  return value != NULL && *value != '\0' ? (guint) g_ascii_strtoull (value, NULL, 10) : fallback;
}

static double
env_double (const char *name,
            double      fallback)
{
  const char *value = g_getenv (name);

  return value != NULL && *value != '\0' ? g_ascii_strtod (value, NULL) : fallback;
}

/* VmRSS of a process in KiB ("self" or a pid), 0 when unknown. */
static guint64
rss_kib (const char *pid)
{
  g_autofree char *path = g_strdup_printf ("/proc/%s/status", pid);
  g_autofree char *status = NULL;
  const char *line;

  if (!g_file_get_contents (path, &status, NULL, NULL) ||
      (line = strstr (status, "VmRSS:")) == NULL)
    return 0;
  return g_ascii_strtoull (line + strlen ("VmRSS:"), NULL, 10);
}

static char *
format_counts (const Counts *counts)
{
  return g_strdup_printf ("%4" G_GUINT64_FORMAT " completed, %3" G_GUINT64_FORMAT
                          " cancelled (%3" G_GUINT64_FORMAT " asked, %" G_GUINT64_FORMAT
                          " unconfirmed), %" G_GUINT64_FORMAT " failed, %" G_GUINT64_FORMAT
                          " lost, %" G_GUINT64_FORMAT " stuck, %" G_GUINT64_FORMAT " wrong",
                          counts->completed, counts->cancelled, counts->cancel_requests,
                          counts->unconfirmed, counts->failed, counts->lost, counts->stuck,
                          counts->wrong);
}

static gboolean
flag_cb (gpointer user_data)
{
  *(gboolean *) user_data = TRUE;
  return G_SOURCE_REMOVE;
}

static void
connect_cb (GObject      *object,
            GAsyncResult *result,
            gpointer      user_data)
{
  *(GAsyncResult **) user_data = g_object_ref (result);
}

static void
entry_cancel (Entry *entry)
{
  g_clear_signal_handler (&entry->notify_id, entry->job);
  if (!riv_job_is_finished (entry->job) && !entry->cancel_sent)
    {
      entry->cancel_sent = TRUE;
      riv_client_cancel (entry->client, entry->job);
    }
}

static gboolean
cancel_now_cb (gpointer user_data)
{
  Entry *entry = user_data;

  entry->cancel_id = 0;
  entry_cancel (entry);
  return G_SOURCE_REMOVE;
}

static void
status_cb (RivJob     *job,
           GParamSpec *pspec,
           gpointer    user_data)
{
  Entry *entry = user_data;

  if (riv_job_is_finished (job))
    g_clear_signal_handler (&entry->notify_id, job);
  else if (riv_job_get_status (job) >= entry->cancel_at)
    entry_cancel (entry);
}

static JsonNode *
demo_data (Demo   demo,
           char **echo)
{
  g_autofree char *json = NULL;

  switch (demo)
    {
    case DEMO_FAKE_DIFFUSION:
      json = g_strdup ("[2, 0]");
      break;
    case DEMO_STREAM_TEXT:
      json = g_strdup ("[\"soak\", 5, 0]");
      break;
    case DEMO_BATCH_ECHO:
      *echo = g_strdup_printf ("soak-%08x", g_random_int ());
      json = g_strdup_printf ("[\"%s\", 0]", *echo);
      break;
    case DEMO_RAPID_GENERATION:
    case N_DEMOS:
    default:
      json = g_strdup ("[50]");
      break;
    }
  return json_from_string (json, NULL);
}

/* The final output of a completed job is what the demo promises (riv-demo.c). */
static gboolean
output_ok (Entry *entry)
{
  const char *text = riv_job_get_output_text (entry->job);

  if (text == NULL)
    return FALSE;

  switch (entry->demo)
    {
    case DEMO_FAKE_DIFFUSION:
      return g_str_equal (text, "step 2/2");
    case DEMO_STREAM_TEXT:
      {
        g_auto(GStrv) words = g_strsplit (text, " ", -1);

        return g_strv_length (words) == 5;
      }
    case DEMO_BATCH_ECHO:
      return g_strcmp0 (text, entry->echo) == 0;
    case DEMO_RAPID_GENERATION:
    case N_DEMOS:
    default:
      return g_str_has_prefix (text, "1\n2\n") && g_str_has_suffix (text, "\n49\n50") &&
             strlen (text) == 140;   /* 9 one-digit and 41 two-digit numbers, 49 newlines */
    }
}

int
main (int    argc,
      char **argv)
{
  g_autoptr(RivClient) client = NULL;
  g_autoptr(GAsyncResult) result = NULL;
  g_autoptr(GError) error = NULL;
  guint bursts = env_uint ("SOAK_BURSTS", 100);
  guint n_jobs = env_uint ("SOAK_JOBS", 1000);
  double cancel_fraction = env_double ("SOAK_CANCEL", 0.05);
  double stuck_s = env_double ("SOAK_STUCK_S", 120);
  guint seed = env_uint ("SOAK_SEED", g_random_int ());
  guint settle_ms = env_uint ("SOAK_SETTLE_MS", 2000);
  gboolean download_images = env_uint ("SOAK_DOWNLOAD_IMAGES", 1) != 0;
  const char *url;
  const char *server_pid;
  guint64 server_rss_10 = 0, client_rss_10 = 0, server_rss_last = 0, client_rss_last = 0;
  guint64 server_rss_start, client_rss_start;
  Counts total = { 0 };
  double started;
  guint ratio_burst = MIN (10, bursts);
  guint bursts_done = 0;

  if (argc != 3)
    {
      g_printerr ("usage: soak-driver URL SERVER_PID\n");
      return 2;
    }
  url = argv[1];
  server_pid = argv[2];
  g_random_set_seed (seed);

  client = riv_client_new (url);
  riv_client_set_download_images (client, download_images);
  riv_client_connect_async (client, NULL, connect_cb, &result);
  while (result == NULL)
    g_main_context_iteration (NULL, TRUE);
  if (!riv_client_connect_finish (client, result, &error))
    {
      g_printerr ("soak: %s\n", error->message);
      return 1;
    }

  server_rss_start = rss_kib (server_pid);
  malloc_trim (0);
  client_rss_start = rss_kib ("self");
  g_print ("soak: %u bursts x %u jobs against %s (server pid %s), cancel %.0f%%, "
           "stuck bound %g s, seed %u\n", bursts, n_jobs, url, server_pid,
           cancel_fraction * 100, stuck_s, seed);
  g_print ("soak: before: server RSS %.1f MiB, client RSS %.1f MiB\n",
           server_rss_start / 1024.0, client_rss_start / 1024.0);

  started = g_get_monotonic_time () / 1e6;

  for (guint b = 1; b <= bursts; b++)
    {
      Entry *entries = g_new0 (Entry, n_jobs);
      Counts counts = { 0 };
      gboolean timed_out = FALSE;
      guint timeout_id;
      double t0 = g_get_monotonic_time () / 1e6, elapsed;
      guint64 server_rss, client_rss;

      for (guint i = 0; i < n_jobs; i++)
        {
          Entry *entry = &entries[i];
          g_autoptr(JsonNode) data = NULL;

          entry->client = client;
          entry->demo = g_random_int_range (0, N_DEMOS);
          data = demo_data (entry->demo, &entry->echo);
          entry->job = riv_client_submit (client, demo_endpoints[entry->demo], data, &error);
          if (entry->job == NULL)
            {
              g_printerr ("soak: submit failed: %s\n", error->message);
              return 1;
            }
          if (g_random_double () < cancel_fraction)
            {
              static const RivJobStatus stages[] = {
                RIV_JOB_STATUS_JOINING, RIV_JOB_STATUS_QUEUED,
                RIV_JOB_STATUS_RUNNING, RIV_JOB_STATUS_STREAMING,
              };

              entry->cancel_at = stages[g_random_int_range (0, G_N_ELEMENTS (stages))];
              /* Not an idle: under a burst's I/O an idle would wait until the
               * burst is over. */
              if (entry->cancel_at == RIV_JOB_STATUS_JOINING)
                entry->cancel_id = g_timeout_add (0, cancel_now_cb, entry);
              else
                entry->notify_id = g_signal_connect (entry->job, "notify::status",
                                                     G_CALLBACK (status_cb), entry);
            }
        }

      timeout_id = g_timeout_add ((guint) (stuck_s * 1000), flag_cb, &timed_out);
      while (riv_client_get_n_pending (client) > 0 && !timed_out)
        g_main_context_iteration (NULL, TRUE);
      if (!timed_out)
        g_source_remove (timeout_id);
      elapsed = g_get_monotonic_time () / 1e6 - t0;

      for (guint i = 0; i < n_jobs; i++)
        {
          Entry *entry = &entries[i];

          g_clear_handle_id (&entry->cancel_id, g_source_remove);
          g_clear_signal_handler (&entry->notify_id, entry->job);
          if (entry->cancel_sent)
            counts.cancel_requests++;
          switch (riv_job_get_status (entry->job))
            {
            case RIV_JOB_STATUS_COMPLETED:
              counts.completed++;
              if (!output_ok (entry))
                {
                  if (counts.wrong++ < 3)
                    g_printerr ("soak: burst %u: job %u (%s) completed with a wrong output: "
                                "\"%.60s\"\n", b, riv_job_get_number (entry->job),
                                demo_endpoints[entry->demo],
                                riv_job_get_output_text (entry->job));
                }
              break;
            case RIV_JOB_STATUS_CANCELLED:
              /* Only jobs the soak cancelled may end cancelled. */
              if (entry->cancel_sent)
                {
                  counts.cancelled++;
                  /* Cancelled before joining carries no error; a cancel the
                   * server never confirmed does. */
                  if (riv_job_get_error (entry->job) != NULL && counts.unconfirmed++ < 3)
                    g_printerr ("soak: burst %u: job %u (%s): %s\n", b,
                                riv_job_get_number (entry->job), demo_endpoints[entry->demo],
                                riv_job_get_error (entry->job));
                }
              else if (counts.failed++ < 3)
                g_printerr ("soak: burst %u: job %u (%s) cancelled, but not by the soak: %s\n",
                            b, riv_job_get_number (entry->job), demo_endpoints[entry->demo],
                            riv_job_get_error (entry->job));
              break;
            case RIV_JOB_STATUS_FAILED:
              if (counts.failed++ < 3)
                g_printerr ("soak: burst %u: job %u (%s) failed: %s\n", b,
                            riv_job_get_number (entry->job), demo_endpoints[entry->demo],
                            riv_job_get_error (entry->job));
              break;
            case RIV_JOB_STATUS_LOST:
              if (counts.lost++ < 3)
                g_printerr ("soak: burst %u: job %u (%s) lost: %s\n", b,
                            riv_job_get_number (entry->job), demo_endpoints[entry->demo],
                            riv_job_get_error (entry->job));
              break;
            case RIV_JOB_STATUS_PENDING:
            case RIV_JOB_STATUS_JOINING:
            case RIV_JOB_STATUS_QUEUED:
            case RIV_JOB_STATUS_RUNNING:
            case RIV_JOB_STATUS_STREAMING:
            default:
              if (counts.stuck++ < 3)
                g_printerr ("soak: burst %u: job %u (%s) stuck %s after %g s\n", b,
                            riv_job_get_number (entry->job), demo_endpoints[entry->demo],
                            riv_job_status_to_string (riv_job_get_status (entry->job)), stuck_s);
              break;
            }
        }

      /* Stuck jobs are given up on, so that the next burst starts clean. */
      if (counts.stuck > 0)
        riv_client_cancel_all (client);
      for (guint i = 0; i < n_jobs; i++)
        {
          g_clear_object (&entries[i].job);
          g_free (entries[i].echo);
        }
      g_free (entries);
      riv_client_clear_finished (client);

      /* Let the last frames and image downloads settle before sampling. */
      {
        gboolean settled = FALSE;

        g_timeout_add (settle_ms, flag_cb, &settled);
        while (!settled)
          g_main_context_iteration (NULL, TRUE);
      }
      server_rss = rss_kib (server_pid);
      malloc_trim (0);
      client_rss = rss_kib ("self");
      if (b == ratio_burst)
        {
          server_rss_10 = server_rss;
          client_rss_10 = client_rss;
        }
      server_rss_last = server_rss;
      client_rss_last = client_rss;

      {
        g_autofree char *tally = format_counts (&counts);

        g_print ("burst %3u/%u: %u jobs in %5.2f s: %s; server RSS %6.1f MiB, "
                 "client RSS %6.1f MiB\n", b, bursts, n_jobs, elapsed, tally,
                 server_rss / 1024.0, client_rss / 1024.0);
      }
      fflush (stdout);

      total.completed += counts.completed;
      total.cancelled += counts.cancelled;
      total.cancel_requests += counts.cancel_requests;
      total.unconfirmed += counts.unconfirmed;
      total.failed += counts.failed;
      total.lost += counts.lost;
      total.stuck += counts.stuck;
      total.wrong += counts.wrong;
      bursts_done = b;

      if (server_rss == 0)
        {
          g_printerr ("soak: the server (pid %s) is gone\n", server_pid);
          total.lost += (guint64) n_jobs * (bursts - b);
          break;
        }
    }

  {
    g_autofree char *tally = format_counts (&total);

    g_print ("soak: summary: %u bursts x %u jobs in %.1f s: %s; %" G_GUINT64_FORMAT
             " messages received\n", bursts_done, n_jobs,
             g_get_monotonic_time () / 1e6 - started, tally, riv_client_get_n_messages (client));
  }
  g_print ("soak: server RSS: start %.1f MiB, burst %u %.1f MiB, last %.1f MiB, "
           "last/burst %u = %.3f\n", server_rss_start / 1024.0, ratio_burst,
           server_rss_10 / 1024.0, server_rss_last / 1024.0, ratio_burst,
           server_rss_10 > 0 ? (double) server_rss_last / server_rss_10 : 0);
  g_print ("soak: client RSS: start %.1f MiB, burst %u %.1f MiB, last %.1f MiB, "
           "last/burst %u = %.3f\n", client_rss_start / 1024.0, ratio_burst,
           client_rss_10 / 1024.0, client_rss_last / 1024.0, ratio_burst,
           client_rss_10 > 0 ? (double) client_rss_last / client_rss_10 : 0);
  g_print ("soak: %s\n", total.lost == 0 && total.stuck == 0 && total.failed == 0 &&
                         total.wrong == 0 ? "PASS" : "FAIL");

  riv_client_close (client);
  return total.lost == 0 && total.stuck == 0 && total.failed == 0 && total.wrong == 0 ? 0 : 1;
}
