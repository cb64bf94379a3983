/* riv-gradio-probe.c
 * Copyright 2026 The Rivulet authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * What the real-Gradio suite (tests/gradio/suite.py) needs from Rivulet's client
 * that rivulet-cli does not offer: uploading a file, and cancelling a running and a
 * queued job. Prints its results as JSON on stdout; exits 1 with a message on errors.
 *
 *   riv-gradio-probe upload URL FILE
 *       uploads FILE; prints {"path": SERVER_PATH}
 *   riv-gradio-probe cancel URL ENDPOINT STEPS
 *       submits ["c1", STEPS], ["c2", STEPS], ["c3", STEPS] to an endpoint that runs one
 *       job at a time; once one of them streams and another waits in the queue, cancels
 *       those two; prints one {"tag", "role" (running | queued | other), "status",
 *       "updates", "output", "error"} line per job.
 */
#include "config.h"

#include <stdio.h>

#include "riv-client.h"
#include "riv-job.h"
#include "../riv-test-util.h"

#define WAIT_S 60.0

static RivClient *
connect_client (const char *url)
{
  g_autoptr(RivClient) client = NULL;
  g_autoptr(GAsyncResult) result = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *normalized = riv_client_normalize_url (url, &error);

  if (normalized == NULL)
    g_error ("%s", error->message);
  client = riv_client_new (normalized);
  riv_client_set_download_images (client, FALSE);
  riv_client_connect_async (client, NULL, riv_test_async_result_cb, &result);
  if (riv_test_wait_result (&result, WAIT_S) == NULL)
    g_error ("connecting to %s timed out", url);
  if (!riv_client_connect_finish (client, result, &error))
    g_error ("connecting to %s: %s", url, error->message);
  return g_steal_pointer (&client);
}

static int
probe_upload (const char *url,
              const char *file)
{
  g_autoptr(RivClient) client = connect_client (url);
  g_autoptr(GAsyncResult) result = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(GBytes) contents = NULL;
  g_autoptr(JsonNode) reply = json_node_new (JSON_NODE_OBJECT);
  g_autoptr(JsonObject) object = json_object_new ();
  g_autofree char *basename = g_path_get_basename (file);
  g_autofree char *data = NULL;
  g_autofree char *path = NULL;
  g_autofree char *text = NULL;
  gsize length;

  if (!g_file_get_contents (file, &data, &length, &error))
    g_error ("%s", error->message);
  contents = g_bytes_new_take (g_steal_pointer (&data), length);
  riv_client_upload_async (client, contents, basename, NULL, riv_test_async_result_cb, &result);
  if (riv_test_wait_result (&result, WAIT_S) == NULL)
    g_error ("the upload timed out");
  path = riv_client_upload_finish (client, result, &error);
  if (path == NULL)
    g_error ("upload: %s", error->message);

  json_object_set_string_member (object, "path", path);
  json_node_set_object (reply, object);
  text = json_to_string (reply, FALSE);
  printf ("%s\n", text);
  riv_client_close (client);
  return 0;
}

typedef struct
{
  RivJob *jobs[3];
  int     running;   /* index of the job to cancel while it streams, or -1 */
  int     queued;    /* index of the job to cancel while it waits, or -1 */
} CancelState;

/* The server runs the jobs in the order their joins arrived, not in submit order. */
static gboolean
ready_to_cancel (gpointer user_data)
{
  CancelState *state = user_data;

  state->running = state->queued = -1;
  for (guint i = 0; i < G_N_ELEMENTS (state->jobs); i++)
    {
      RivJob *job = state->jobs[i];

      if (riv_job_is_finished (job))
        continue;
      if (riv_job_get_n_updates (job) > 0)
        state->running = i;
      else if (riv_job_get_status (job) == RIV_JOB_STATUS_QUEUED && riv_job_get_rank (job) > 0)
        state->queued = i;
    }
  return state->running >= 0 && state->queued >= 0;
}

static gboolean
all_finished (gpointer user_data)
{
  CancelState *state = user_data;

  for (guint i = 0; i < G_N_ELEMENTS (state->jobs); i++)
    if (!riv_job_is_finished (state->jobs[i]))
      return FALSE;
  return TRUE;
}

static int
probe_cancel (const char *url,
              const char *endpoint,
              const char *steps)
{
  g_autoptr(RivClient) client = connect_client (url);
  CancelState state = { { NULL }, -1, -1 };

  for (guint i = 0; i < G_N_ELEMENTS (state.jobs); i++)
    {
      g_autofree char *data_text = g_strdup_printf ("[\"c%u\", %s]", i + 1, steps);
      g_autoptr(JsonNode) data = NULL;
      g_autoptr(GError) error = NULL;

      data = json_from_string (data_text, &error);
      if (data == NULL)
        g_error ("STEPS: %s", error->message);
      state.jobs[i] = riv_client_submit (client, endpoint, data, &error);
      if (state.jobs[i] == NULL)
        g_error ("%s", error->message);
    }

  if (riv_test_wait_until (ready_to_cancel, &state, WAIT_S))
    {
      riv_client_cancel (client, state.jobs[state.running]);
      riv_client_cancel (client, state.jobs[state.queued]);
    }
  else
    g_printerr ("riv-gradio-probe: never saw one job streaming while another waited in the queue\n");
  riv_test_wait_until (all_finished, &state, WAIT_S);

  for (guint i = 0; i < G_N_ELEMENTS (state.jobs); i++)
    {
      RivJob *job = state.jobs[i];
      g_autoptr(JsonBuilder) builder = json_builder_new ();
      g_autoptr(JsonNode) root = NULL;
      g_autofree char *text = NULL;
      const char *output = riv_job_get_output_text (job);
      const char *error = riv_job_get_error (job);

      g_autofree char *tag = g_strdup_printf ("c%u", i + 1);

      json_builder_begin_object (builder);
      json_builder_set_member_name (builder, "tag");
      json_builder_add_string_value (builder, tag);
      json_builder_set_member_name (builder, "role");
      json_builder_add_string_value (builder, (int) i == state.running ? "running" :
                                              (int) i == state.queued ? "queued" : "other");
      json_builder_set_member_name (builder, "status");
      json_builder_add_string_value (builder, riv_job_status_to_string (riv_job_get_status (job)));
      json_builder_set_member_name (builder, "updates");
      json_builder_add_int_value (builder, riv_job_get_n_updates (job));
      json_builder_set_member_name (builder, "output");
      if (output != NULL)
        json_builder_add_string_value (builder, output);
      else
        json_builder_add_null_value (builder);
      json_builder_set_member_name (builder, "error");
      if (error != NULL)
        json_builder_add_string_value (builder, error);
      else
        json_builder_add_null_value (builder);
      json_builder_end_object (builder);
      root = json_builder_get_root (builder);
      text = json_to_string (root, FALSE);
      printf ("%s\n", text);
      g_object_unref (job);
    }
  riv_client_close (client);
  return 0;
}

int
main (int    argc,
      char **argv)
{
  if (argc == 4 && g_str_equal (argv[1], "upload"))
    return probe_upload (argv[2], argv[3]);
  if (argc == 5 && g_str_equal (argv[1], "cancel"))
    return probe_cancel (argv[2], argv[3], argv[4]);
  g_printerr ("usage: riv-gradio-probe upload URL FILE\n"
              "       riv-gradio-probe cancel URL ENDPOINT STEPS\n");
  return 2;
}
