/* test-ui-record.c
 * Copyright 2026 The Rivulet authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The window's recording side (issue 15). A session of the window against
 * the embedded demo server (streamed text and batched echoes) recorded with
 * "Record Session", then opened with "Open Recording": the job panel shows
 * the same jobs again, each completed with the same output, from a replay
 * server on loopback, and the lint stays silent. A transcript that breaks a
 * rule (a second process_completed) opened the same way: the header's lint
 * badge counts the finding and the job it names has it in its timeline.
 */
#include "config.h"

#include <string.h>

#include <adwaita.h>
#include <glib/gstdio.h>

#include "riv-json.h"
#include "riv-replay.h"
#include "riv-test-util.h"
#include "riv-transcript.h"
#include "riv-ui-test-util.h"
#include "riv-window-private.h"

typedef struct
{
  RivEmbeddedServer *server;
  RivWindow         *window;
  char              *dir;
} Fixture;

static void
fixture_setup (Fixture       *fixture,
               gconstpointer  user_data)
{
  g_autoptr(GError) error = NULL;

  fixture->dir = g_dir_make_tmp ("riv-ui-record-XXXXXX", &error);
  g_assert_no_error (error);
  riv_ui_test_window_open (&fixture->server, &fixture->window, 0, 0);
}

static void
fixture_teardown (Fixture       *fixture,
                  gconstpointer  user_data)
{
  /* Destroyed, not closed: a window that records asks before it closes. */
  riv_ui_test_window_destroy (&fixture->window);
  riv_embedded_server_stop (fixture->server);
  g_assert_finalize_object (fixture->server);
  riv_test_remove_dir (fixture->dir);
  g_free (fixture->dir);
}

static gboolean
is_recording (RivWindow *window)
{
  g_autoptr(GVariant) state = g_action_group_get_action_state (G_ACTION_GROUP (window),
                                                                "record-session");

  return state != NULL && g_variant_get_boolean (state);
}

static gboolean
recording (gpointer user_data)
{
  return is_recording (user_data);
}

typedef struct
{
  RivWindow  *window;
  const char *url;      /* nullable: the client must not be this one */
  guint       n_jobs;
} JobsWait;

static gboolean
jobs_finished (gpointer user_data)
{
  JobsWait *wait = user_data;
  RivClient *client = riv_window_get_client (wait->window);
  GListModel *jobs;

  if (client == NULL || (wait->url != NULL && g_strcmp0 (riv_client_get_url (client), wait->url) == 0))
    return FALSE;
  jobs = riv_client_get_jobs (client);
  if (g_list_model_get_n_items (jobs) != wait->n_jobs)
    return FALSE;
  for (guint i = 0; i < wait->n_jobs; i++)
    {
      g_autoptr(RivJob) job = g_list_model_get_item (jobs, i);

      if (!riv_job_is_finished (job))
        return FALSE;
    }
  return TRUE;
}

static void
submit (RivWindow  *window,
        const char *endpoint,
        const char *json)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonNode) data = riv_json_parse (NULL, json, -1, 0, &error);

  g_assert_no_error (error);
  g_assert_true (riv_window_select_endpoint (window, endpoint));
  riv_form_set_data (riv_window_get_form (window), data, &error);
  g_assert_no_error (error);
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (window), "win.submit", NULL));
}

static guint
count_join_replies (const char *path)
{
  g_autoptr(GPtrArray) events = riv_transcript_load (path, NULL);
  guint joins = 0;

  if (events == NULL)
    return 0;
  for (guint i = 0; i < events->len; i++)
    {
      RivTapEvent *event = events->pdata[i];

      joins += event->kind == RIV_TAP_RESPONSE && event->status == 200 &&
               riv_transcript_path_ends_with (event->path, "/queue/join");
    }
  return joins;
}

typedef struct
{
  const char *path;
  guint       joins;
} SavedWait;

static gboolean
recording_saved (gpointer user_data)
{
  SavedWait *wait = user_data;

  return count_join_replies (wait->path) == wait->joins;
}

static char *
outputs_text (RivJob *job)
{
  JsonNode *outputs = riv_job_get_outputs (job);

  return outputs != NULL ? riv_json_to_string (outputs, NULL) : g_strdup ("null");
}

static gboolean
timeline_has (RivJob     *job,
              const char *text)
{
  for (guint i = 0; i < riv_job_get_timeline_length (job); i++)
    if (strstr (riv_job_get_timeline_event (job, i)->what, text) != NULL)
      return TRUE;
  return FALSE;
}

typedef struct
{
  RivWindow *window;
  RivJob    *job;
} ShowWait;

static gboolean
shows_job (gpointer user_data)
{
  ShowWait *wait = user_data;

  return riv_output_view_get_job (riv_window_get_output_view (wait->window)) == wait->job;
}

static void
test_record_then_replay (Fixture       *fixture,
                         gconstpointer  user_data)
{
  RivWindow *window = fixture->window;
  g_autofree char *path = g_build_filename (fixture->dir, "window.jsonl", NULL);
  g_autoptr(GFile) file = g_file_new_for_path (path);
  g_autofree char *live_url = g_strdup (riv_client_get_url (riv_window_get_client (window)));
  g_autoptr(GPtrArray) live_endpoints = g_ptr_array_new_with_free_func (g_free);
  g_autoptr(GPtrArray) live_outputs = g_ptr_array_new_with_free_func (g_free);
  JobsWait live = { window, NULL, 4 };
  JobsWait replayed = { window, live_url, 4 };
  SavedWait saved = { path, 4 };
  GListModel *jobs;
  const char *subtitle;

  g_assert_false (is_recording (window));
  riv_recorder_record_to (riv_window_get_recorder (window), file);
  g_assert_true (riv_test_wait_until (recording, window, 30));

  submit (window, "/stream_text", "[\"Once\", 12, 0.01]");
  submit (window, "/batch_echo", "[\"one\", 0.05]");
  submit (window, "/batch_echo", "[\"two\", 0.05]");
  submit (window, "/stream_text", "[\"Later\", 5, 0.01]");
  g_assert_true (riv_test_wait_until (jobs_finished, &live, 120));

  jobs = riv_client_get_jobs (riv_window_get_client (window));
  for (guint i = 0; i < 4; i++)
    {
      g_autoptr(RivJob) job = g_list_model_get_item (jobs, i);

      g_assert_cmpint (riv_job_get_status (job), ==, RIV_JOB_STATUS_COMPLETED);
      g_ptr_array_add (live_endpoints, g_strdup (riv_job_get_endpoint (job)));
      g_ptr_array_add (live_outputs, outputs_text (job));
    }
  /* The embedded server keeps every rule: nothing to show. */
  g_assert_cmpuint (riv_recorder_get_n_findings (riv_window_get_recorder (window)), ==, 0);
  g_assert_false (gtk_widget_get_visible (GTK_WIDGET (riv_recorder_get_badge (riv_window_get_recorder (window)))));

  /* The toggle off: the file is closed (off the main thread) and complete. */
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (window), "win.record-session", NULL));
  g_assert_false (is_recording (window));
  g_assert_true (riv_test_wait_until (recording_saved, &saved, 30));

  /* Opened: a replay server on loopback, the same jobs in the panel. */
  riv_recorder_open (riv_window_get_recorder (window), file);
  g_assert_true (riv_test_wait_until (jobs_finished, &replayed, 120));
  g_assert_true (g_str_has_prefix (riv_client_get_url (riv_window_get_client (window)),
                                   "http://127.0.0.1:"));
  subtitle = riv_status_title_get_server (window->status_title);
  g_assert_nonnull (strstr (subtitle, "window.jsonl"));
  jobs = riv_client_get_jobs (riv_window_get_client (window));
  g_assert_cmpuint (riv_job_panel_get_count (window->job_panel, RIV_BUCKET_DONE), ==, 4);
  for (guint i = 0; i < 4; i++)
    {
      g_autoptr(RivJob) job = g_list_model_get_item (jobs, i);
      g_autofree char *outputs = outputs_text (job);

      g_assert_cmpint (riv_job_get_status (job), ==, RIV_JOB_STATUS_COMPLETED);
      g_assert_cmpstr (riv_job_get_endpoint (job), ==, live_endpoints->pdata[i]);
      g_assert_cmpstr (outputs, ==, live_outputs->pdata[i]);
    }
  g_assert_cmpuint (riv_recorder_get_n_findings (riv_window_get_recorder (window)), ==, 0);
  g_assert_false (gtk_widget_get_visible (GTK_WIDGET (riv_recorder_get_badge (riv_window_get_recorder (window)))));
  /* The output view follows the replayed jobs like submitted ones. */
  {
    g_autoptr(RivJob) newest = g_list_model_get_item (jobs, 3);

    g_assert_true (riv_test_wait_until (shows_job, &(ShowWait) { window, newest }, 30));
  }

  /* The replay is not remembered as a server to come back to. */
  {
    g_autoptr(GSettings) settings = g_settings_new ("io.github.rivulet.Rivulet");
    g_autofree char *last = g_settings_get_string (settings, "last-server-url");
    g_auto(GStrv) recent = g_settings_get_strv (settings, "recent-urls");

    g_assert_false (g_str_has_prefix (last, "http://127.0.0.1:"));
    for (guint i = 0; recent[i] != NULL; i++)
      g_assert_false (g_str_equal (recent[i], riv_client_get_url (riv_window_get_client (window))));
  }
}

static gboolean
has_finding (gpointer user_data)
{
  return timeline_has (user_data, "duplicate-completion");
}

static gboolean
badge_shown (gpointer user_data)
{
  RivWindow *window = user_data;

  return gtk_widget_get_visible (GTK_WIDGET (riv_recorder_get_badge (riv_window_get_recorder (window))));
}

static void
test_lint_badge (Fixture       *fixture,
                 gconstpointer  user_data)
{
  RivWindow *window = fixture->window;
  g_autofree char *path = g_test_build_filename (G_TEST_DIST, "data", "lint",
                                                 "duplicate-completion.jsonl", NULL);
  g_autoptr(GFile) file = g_file_new_for_path (path);
  g_autofree char *live_url = g_strdup (riv_client_get_url (riv_window_get_client (window)));
  JobsWait replayed = { window, live_url, 2 };
  g_autoptr(RivJob) named = NULL;
  g_autoptr(RivJob) other = NULL;
  GListModel *jobs;

  riv_recorder_open (riv_window_get_recorder (window), file);
  g_assert_true (riv_test_wait_until (jobs_finished, &replayed, 60));
  g_assert_true (riv_test_wait_until (badge_shown, window, 30));

  g_assert_cmpuint (riv_recorder_get_n_findings (riv_window_get_recorder (window)), ==, 1);
  g_assert_cmpstr (gtk_label_get_label (riv_recorder_get_badge (riv_window_get_recorder (window))), ==, "1 lint finding");
  g_assert_nonnull (strstr (gtk_widget_get_tooltip_text (GTK_WIDGET (riv_recorder_get_badge (riv_window_get_recorder (window)))),
                            "duplicate-completion"));

  /* The finding is in the timeline of the job it names (once the client has
   * the job's event id: the frames may come before the join's reply), and
   * only there. The two joins ask the same, so either job may stand for the
   * recorded one that got two completions. */
  jobs = riv_client_get_jobs (riv_window_get_client (window));
  named = g_list_model_get_item (jobs, 0);
  other = g_list_model_get_item (jobs, 1);
  if (g_strcmp0 (riv_job_get_event_id (other), "000000000000000000000000e0000001") == 0)
    {
      RivJob *swap = named;

      named = other;
      other = swap;
    }
  g_assert_cmpstr (riv_job_get_event_id (named), ==, "000000000000000000000000e0000001");
  g_assert_true (riv_test_wait_until (has_finding, named, 30));
  g_assert_false (timeline_has (other, "duplicate-completion"));
}

static gboolean
shows_text (GtkWidget  *widget,
            const char *text)
{
  if (GTK_IS_LABEL (widget) && gtk_widget_get_mapped (widget) &&
      strstr (gtk_label_get_label (GTK_LABEL (widget)), text) != NULL)
    return TRUE;
  for (GtkWidget *child = gtk_widget_get_first_child (widget); child != NULL;
       child = gtk_widget_get_next_sibling (child))
    if (shows_text (child, text))
      return TRUE;
  return FALSE;
}

/* The toast names the file's bad line. */
static gboolean
toasted (gpointer user_data)
{
  return shows_text (user_data, "Cannot open the recording bad.jsonl: line 1: ");
}

static void
test_bad_file (Fixture       *fixture,
               gconstpointer  user_data)
{
  RivWindow *window = fixture->window;
  g_autofree char *path = g_build_filename (fixture->dir, "bad.jsonl", NULL);
  g_autoptr(GFile) file = g_file_new_for_path (path);
  g_autoptr(GError) error = NULL;
  g_autofree char *live_url = g_strdup (riv_client_get_url (riv_window_get_client (window)));

  g_file_set_contents (path, "{\"t\":0,\"kind\":\"request\"}\nnot json\n", -1, &error);
  g_assert_no_error (error);
  riv_recorder_open (riv_window_get_recorder (window), file);
  g_assert_true (riv_test_wait_until (toasted, window, 30));
  /* Nothing lost: still connected to the live server. */
  g_assert_cmpstr (riv_client_get_url (riv_window_get_client (window)), ==, live_url);
}

typedef struct
{
  GPtrArray *toasts;
  GPtrArray *jobs;      /* RivJob, submitted to the replay */
  char      *replay_url;
} Heard;

static void
heard_toast_cb (RivRecorder *recorder,
                const char  *message,
                Heard       *heard)
{
  g_ptr_array_add (heard->toasts, g_strdup (message));
}

static void
heard_job_cb (RivRecorder *recorder,
              RivJob      *job,
              Heard       *heard)
{
  g_ptr_array_add (heard->jobs, g_object_ref (job));
}

static void
heard_replay_cb (RivRecorder *recorder,
                 const char  *url,
                 Heard       *heard)
{
  g_free (heard->replay_url);
  heard->replay_url = g_strdup (url);
}

static gboolean
replay_ready (gpointer user_data)
{
  return ((Heard *) user_data)->replay_url != NULL;
}

static gboolean
heard_jobs_finished (gpointer user_data)
{
  Heard *heard = user_data;

  for (guint i = 0; i < heard->jobs->len; i++)
    if (!riv_job_is_finished (heard->jobs->pdata[i]))
      return FALSE;
  return heard->jobs->len == 2;
}

static gboolean
recorder_badge_shown (gpointer user_data)
{
  return gtk_widget_get_visible (GTK_WIDGET (riv_recorder_get_badge (user_data)));
}

static gboolean
last_toast_is (Heard      *heard,
               const char *text)
{
  return heard->toasts->len > 0 && g_strcmp0 (heard->toasts->pdata[heard->toasts->len - 1], text) == 0;
}

static gboolean
toasted_saved (gpointer user_data)
{
  return last_toast_is (user_data, "Recording saved as recorder.jsonl");
}

static gboolean
action_on (GActionGroup *group)
{
  g_autoptr(GVariant) state = g_action_group_get_action_state (group, "record-session");

  return state != NULL && g_variant_get_boolean (state);
}

static gboolean
group_recording (gpointer user_data)
{
  return action_on (user_data);
}

/* RivRecorder on its own, from its template, in a plain window: it opens a
 * recording that breaks a rule, says where its replay listens, submits the
 * recorded jobs once given a client of it, and its badge counts the finding;
 * its record-session action records that client's session to a file. */
static void
test_recorder_alone (Fixture       *fixture,
                     gconstpointer  user_data)
{
  g_autofree char *lint_path = g_test_build_filename (G_TEST_DIST, "data", "lint",
                                                      "duplicate-completion.jsonl", NULL);
  g_autofree char *path = g_build_filename (fixture->dir, "recorder.jsonl", NULL);
  g_autoptr(GFile) lint_file = g_file_new_for_path (lint_path);
  g_autoptr(GFile) file = g_file_new_for_path (path);
  g_autoptr(GSimpleActionGroup) group = g_simple_action_group_new ();
  g_autoptr(GAsyncResult) result = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(RivClient) client = NULL;
  GtkWidget *window = gtk_window_new ();
  RivRecorder *recorder = RIV_RECORDER (riv_recorder_new ());
  Heard heard = { g_ptr_array_new_with_free_func (g_free),
                  g_ptr_array_new_with_free_func (g_object_unref), NULL };

  gtk_window_set_child (GTK_WINDOW (window), GTK_WIDGET (recorder));
  gtk_window_present (GTK_WINDOW (window));
  g_signal_connect (recorder, "toast", G_CALLBACK (heard_toast_cb), &heard);
  g_signal_connect (recorder, "job-submitted", G_CALLBACK (heard_job_cb), &heard);
  g_signal_connect (recorder, "replay-ready", G_CALLBACK (heard_replay_cb), &heard);
  riv_recorder_add_actions (recorder, G_ACTION_MAP (group));
  g_assert_true (g_action_group_has_action (G_ACTION_GROUP (group), "open-recording"));
  g_assert_false (action_on (G_ACTION_GROUP (group)));
  /* No findings yet: neither the badge nor the widget around it takes room. */
  g_assert_false (gtk_widget_get_visible (GTK_WIDGET (riv_recorder_get_badge (recorder))));
  g_assert_false (gtk_widget_get_visible (GTK_WIDGET (recorder)));

  riv_recorder_open (recorder, lint_file);
  g_assert_true (riv_test_wait_until (replay_ready, &heard, 60));
  g_assert_true (riv_recorder_is_replay_url (recorder, heard.replay_url));
  g_assert_cmpstr (riv_recorder_get_replay_name (recorder), ==, "duplicate-completion.jsonl");
  g_assert_cmpuint (heard.jobs->len, ==, 0);   /* nothing to submit to yet */

  /* Connected to the replay the way the window connects. */
  client = riv_client_new (heard.replay_url);
  riv_recorder_set_pending_client (recorder, client);
  riv_client_connect_async (client, NULL, riv_test_async_result_cb, &result);
  g_assert_true (riv_client_connect_finish (client, riv_test_wait_result (&result, 60), &error));
  g_assert_no_error (error);
  riv_recorder_set_client (recorder, client, heard.replay_url, NULL);
  g_assert_true (riv_test_wait_until (heard_jobs_finished, &heard, 60));
  g_assert_true (riv_test_wait_until (recorder_badge_shown, recorder, 30));
  g_assert_cmpuint (riv_recorder_get_n_findings (recorder), ==, 1);
  g_assert_cmpstr (gtk_label_get_label (riv_recorder_get_badge (recorder)), ==, "1 lint finding");
  g_assert_true (gtk_widget_get_visible (GTK_WIDGET (recorder)));

  /* Recording: the action's state follows, and the file is written when it is turned off. */
  riv_recorder_record_to (recorder, file);
  g_assert_true (riv_test_wait_until (group_recording, group, 30));
  g_assert_true (last_toast_is (&heard, "Recording the session to recorder.jsonl"));
  g_action_group_change_action_state (G_ACTION_GROUP (group), "record-session",
                                      g_variant_new_boolean (FALSE));
  g_assert_false (action_on (G_ACTION_GROUP (group)));
  g_assert_true (riv_test_wait_until (toasted_saved, &heard, 30));
  g_assert_true (g_file_test (path, G_FILE_TEST_IS_REGULAR));

  gtk_window_destroy (GTK_WINDOW (window));
  riv_client_close (client);
  g_ptr_array_unref (heard.toasts);
  g_ptr_array_unref (heard.jobs);
  g_free (heard.replay_url);
}

/* A server whose second GET /config (the recorder's copy for the file) is
 * held until released: the first is the client's own connection. Its
 * replies are the recorded ones of a lint fixture. */
typedef struct
{
  SoupServer        *server;
  char              *url;
  char              *config;
  char              *info;
  guint              n_config;
  guint              n_other;   /* requests neither /config nor /info */
  SoupServerMessage *held;      /* nullable, paused */
} HoldServer;

static void
hold_handle (SoupServer        *server,
             SoupServerMessage *msg,
             const char        *path,
             GHashTable        *query,
             gpointer           user_data)
{
  HoldServer *hs = user_data;

  if (g_str_has_suffix (path, "/config") && hs->n_config++ > 0 && hs->held == NULL)
    {
      hs->held = g_object_ref (msg);
      soup_server_message_pause (msg);
    }
  else if (g_str_has_suffix (path, "/config"))
    riv_test_reply_json (msg, SOUP_STATUS_OK, hs->config);
  else if (g_str_has_suffix (path, "/info"))
    riv_test_reply_json (msg, SOUP_STATUS_OK, hs->info);
  else
    {
      hs->n_other++;
      riv_test_reply_json (msg, SOUP_STATUS_NOT_FOUND, "{\"detail\":\"Not Found\"}");
    }
}

static void
hold_release (HoldServer *hs)
{
  g_autoptr(SoupServerMessage) msg = g_steal_pointer (&hs->held);

  if (msg == NULL)
    return;
  riv_test_reply_json (msg, SOUP_STATUS_OK, hs->config);
  soup_server_message_unpause (msg);
}

static void
hold_server_start (HoldServer *hs)
{
  g_autofree char *path = g_test_build_filename (G_TEST_DIST, "data", "lint",
                                                 "duplicate-completion.jsonl", NULL);
  g_autoptr(GPtrArray) events = riv_transcript_load (path, NULL);
  g_autoptr(GError) error = NULL;
  g_autoptr(GSList) uris = NULL;

  g_assert_nonnull (events);
  for (guint i = 0; i < events->len; i++)
    {
      RivTapEvent *event = events->pdata[i];

      if (event->kind != RIV_TAP_RESPONSE)
        continue;
      if (riv_transcript_path_ends_with (event->path, "/config"))
        hs->config = g_strndup (event->text, event->text_len);
      else if (riv_transcript_path_ends_with (event->path, "/info"))
        hs->info = g_strndup (event->text, event->text_len);
    }
  g_assert_nonnull (hs->config);
  g_assert_nonnull (hs->info);
  hs->server = soup_server_new (NULL, NULL);
  soup_server_add_handler (hs->server, NULL, hold_handle, hs, NULL);
  g_assert_true (soup_server_listen_local (hs->server, 0, SOUP_SERVER_LISTEN_IPV4_ONLY, &error));
  g_assert_no_error (error);
  uris = soup_server_get_uris (hs->server);
  hs->url = g_strdup_printf ("http://127.0.0.1:%d", g_uri_get_port (uris->data));
  g_slist_foreach (uris, (GFunc) g_uri_unref, NULL);
}

static void
hold_server_stop (HoldServer *hs)
{
  hold_release (hs);
  soup_server_disconnect (hs->server);
  g_clear_object (&hs->server);
  g_free (hs->url);
  g_free (hs->config);
  g_free (hs->info);
}

static gboolean
config_held (gpointer user_data)
{
  return ((HoldServer *) user_data)->held != NULL;
}

typedef struct
{
  HoldServer *hs;
  RivJob     *job;
} JoinWait;

static gboolean
join_refused (gpointer user_data)
{
  JoinWait *wait = user_data;

  return wait->hs->n_other == 1 && riv_job_is_finished (wait->job);
}

static gboolean
toasted_lacks_config (gpointer user_data)
{
  Heard *heard = user_data;

  for (guint i = 0; i < heard->toasts->len; i++)
    if (g_str_has_prefix (heard->toasts->pdata[i], "The recording lacks the server's configuration"))
      return TRUE;
  return FALSE;
}

static gboolean
toasted_saved_stopped (gpointer user_data)
{
  return last_toast_is (user_data, "Recording saved as stopped.jsonl");
}

/* How many of the file's events are 200 replies to /config, and requests to
 * /queue/join. */
static void
count_in_recording (const char *path,
                    guint      *configs,
                    guint      *joins)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GPtrArray) events = riv_transcript_load (path, &error);

  g_assert_no_error (error);
  *configs = *joins = 0;
  for (guint i = 0; i < events->len; i++)
    {
      RivTapEvent *event = events->pdata[i];

      *configs += event->kind == RIV_TAP_RESPONSE && event->status == 200 &&
                  riv_transcript_path_ends_with (event->path, "/config");
      *joins += event->kind == RIV_TAP_REQUEST &&
                riv_transcript_path_ends_with (event->path, "/queue/join");
    }
}

/* A recording stopped while the server's /config is still on its way to it
 * (a short session, a busy server): the toggle is off at once, what the
 * client does afterwards stays out of the file, and the file is saved once
 * the configuration is in, so that it can be replayed. When the
 * configuration never comes, the file is saved without it after a while and
 * a toast says it cannot be replayed. */
static void
stop_before_config (Fixture  *fixture,
                    gboolean  release)
{
  g_autofree char *path = g_build_filename (fixture->dir, "stopped.jsonl", NULL);
  g_autoptr(GFile) file = g_file_new_for_path (path);
  g_autoptr(GSimpleActionGroup) group = g_simple_action_group_new ();
  g_autoptr(GAsyncResult) result = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(RivClient) client = NULL;
  g_autoptr(JsonNode) data = riv_json_parse (NULL, "[\"hi\"]", -1, 0, NULL);
  g_autoptr(RivJob) job = NULL;
  GtkWidget *window = gtk_window_new ();
  RivRecorder *recorder = RIV_RECORDER (riv_recorder_new ());
  Heard heard = { g_ptr_array_new_with_free_func (g_free),
                  g_ptr_array_new_with_free_func (g_object_unref), NULL };
  HoldServer hs = { 0 };
  guint configs, joins;

  hold_server_start (&hs);
  gtk_window_set_child (GTK_WINDOW (window), GTK_WIDGET (recorder));
  g_signal_connect (recorder, "toast", G_CALLBACK (heard_toast_cb), &heard);
  riv_recorder_add_actions (recorder, G_ACTION_MAP (group));
  client = riv_client_new (hs.url);
  riv_recorder_set_pending_client (recorder, client);
  riv_client_connect_async (client, NULL, riv_test_async_result_cb, &result);
  g_assert_true (riv_client_connect_finish (client, riv_test_wait_result (&result, 60), &error));
  g_assert_no_error (error);
  riv_recorder_set_client (recorder, client, hs.url, NULL);

  riv_recorder_record_to (recorder, file);
  g_assert_true (riv_test_wait_until (group_recording, group, 30));
  g_assert_true (riv_test_wait_until (config_held, &hs, 30));

  g_action_group_change_action_state (G_ACTION_GROUP (group), "record-session",
                                      g_variant_new_boolean (FALSE));
  g_assert_false (action_on (G_ACTION_GROUP (group)));
  /* Not again until this one is saved. */
  g_assert_false (g_action_group_get_action_enabled (G_ACTION_GROUP (group), "record-session"));

  job = riv_client_submit (client, "0", data, &error);
  g_assert_no_error (error);
  g_assert_true (riv_test_wait_until (join_refused, &(JoinWait) { &hs, job }, 30));
  g_assert_false (toasted_saved_stopped (&heard));

  if (release)
    hold_release (&hs);
  else
    g_assert_true (riv_test_wait_until (toasted_lacks_config, &heard, 60));
  g_assert_true (riv_test_wait_until (toasted_saved_stopped, &heard, 60));
  g_assert_true (g_action_group_get_action_enabled (G_ACTION_GROUP (group), "record-session"));
  g_assert_cmpint (toasted_lacks_config (&heard), ==, !release);

  count_in_recording (path, &configs, &joins);
  g_assert_cmpuint (configs, ==, release ? 1 : 0);
  g_assert_cmpuint (joins, ==, 0);
  if (release)
    {
      g_autoptr(RivReplay) replay = riv_replay_new_from_file (path, &error);

      g_assert_no_error (error);
      g_assert_nonnull (replay);
    }

  gtk_window_destroy (GTK_WINDOW (window));
  riv_client_close (client);
  hold_server_stop (&hs);
  g_ptr_array_unref (heard.toasts);
  g_ptr_array_unref (heard.jobs);
}

static void
test_stop_before_config (Fixture       *fixture,
                         gconstpointer  user_data)
{
  stop_before_config (fixture, TRUE);
}

static void
test_config_never_comes (Fixture       *fixture,
                         gconstpointer  user_data)
{
  stop_before_config (fixture, FALSE);
}

int
main (int   argc,
      char *argv[])
{
  riv_ui_test_init (&argc, &argv);

  g_test_add ("/ui/record/record-then-replay", Fixture, NULL, fixture_setup,
              test_record_then_replay, fixture_teardown);
  g_test_add ("/ui/record/lint-badge", Fixture, NULL, fixture_setup, test_lint_badge,
              fixture_teardown);
  g_test_add ("/ui/record/bad-file", Fixture, NULL, fixture_setup, test_bad_file,
              fixture_teardown);
  g_test_add ("/ui/record/recorder-alone", Fixture, NULL, fixture_setup, test_recorder_alone,
              fixture_teardown);
  g_test_add ("/ui/record/stop-before-config", Fixture, NULL, fixture_setup,
              test_stop_before_config, fixture_teardown);
  g_test_add ("/ui/record/config-never-comes", Fixture, NULL, fixture_setup,
              test_config_never_comes, fixture_teardown);

  return g_test_run ();
}
