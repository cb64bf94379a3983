/* riv-recorder.c
 * Copyright 2026 The Rivulet authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The window's recording, replay and lint (riv-transcript.h, riv-lint.h):
 * "Record Session" (win.record-session, a toggle) writes the
 * window's live session through the client tap shared with rivulet-cli
 * (riv-transcript-tap.h); "Open Recording…" (win.open-recording) loads a
 * transcript on a worker thread, serves it from a replay server on a thread
 * of its own on loopback (riv-embedded-server.h) and submits the recorded
 * joins to it, so the job panel fills as from a live server; the lint of the
 * current connection shows as a badge in the header, and each finding in its
 * job's timeline. No file is opened, read, written or closed on the main
 * thread.
 */
#include "config.h"

#include <string.h>

#include <glib/gi18n.h>

#include "riv-compat.h"
#include "riv-embedded-server.h"
#include "riv-file-chooser.h"
#include "riv-job.h"
#include "riv-json.h"
#include "riv-lint.h"
#include "riv-recorder.h"
#include "riv-transcript-tap.h"

/* Findings named in the badge's tooltip. */
#define TOOLTIP_FINDINGS 8
/* A finding can name a job before the client has its join's reply (messages
 * may come first): its job is looked for again this often, for this long. */
#define RETRY_MS         250
#define RETRY_FOR_S      30.0
/* The window's recordings are bounded like rivulet-cli's (--record-max default). */
#define RECORD_MAX_BYTES ((guint64) 256 * 1024 * 1024)
/* A recording stopped while its copy of the server's /config is on the way
 * waits this long for it before it is saved without. */
#define CONFIG_WAIT_S    10

struct _RivRecorder
{
  AdwBin             parent_instance;

  /* Template widgets */
  GtkLabel          *badge;

  /* The window's connections */
  RivClient         *client;          /* owned, nullable: connected */
  char              *url;             /* nullable: of client */
  char              *token;           /* nullable: of client */
  GCancellable      *cancellable;     /* cancelled on close */

  GSimpleAction     *open_action;     /* owned: open-recording */
  RivTranscriptTap  *tap;             /* owned: the clients; the writer while recording */
  GSimpleAction     *record_action;   /* owned: record-session, its state = recording */
  RivLint           *lint;            /* owned, nullable: of tapped_client */
  RivLint           *pending_lint;    /* owned, nullable: of tapped_pending */
  RivClient         *tapped_client;   /* nullable, held by the tap */
  RivClient         *tapped_pending;  /* nullable, held by the tap */
  char              *record_name;     /* nullable: while recording */
  RivClient         *probe;           /* owned, nullable: fetching /config into the recording */
  GCancellable      *probe_cancellable; /* owned, nullable: of probe */
  guint              config_wait_id;  /* a stop waits for probe */
  RivEmbeddedServer *replay;          /* owned, nullable: of the recording opened last */
  char              *replay_name;     /* nullable: its file's display name */
  char              *replay_url;      /* nullable: where it listens */
  GPtrArray         *replay_joins;    /* nullable: to submit once connected to the replay */
  guint              lint_seen;       /* findings already handled */
  GArray            *unplaced;        /* Unplaced: findings whose job has no event id yet */
  guint              lint_idle_id;
  guint              retry_id;        /* looks for unplaced findings' jobs again */
  guint              opening : 1;     /* a writer is being opened */
  guint              stopping : 1;    /* stopped, the writer waits for probe */
  guint              probe_timed_out : 1;
};

enum
{
  SIGNAL_TOAST,
  SIGNAL_SUBMIT_FAILED,
  SIGNAL_JOB_SUBMITTED,
  SIGNAL_REPLAY_READY,
  N_SIGNALS
};

G_DEFINE_FINAL_TYPE (RivRecorder, riv_recorder, ADW_TYPE_BIN)

static guint signals[N_SIGNALS];

static void
toast (RivRecorder *self,
       const char  *message)
{
  g_signal_emit (self, signals[SIGNAL_TOAST], 0, message);
}

typedef struct
{
  guint  index;         /* in the lint's findings */
  double since;         /* riv_now () when found */
} Unplaced;

typedef struct
{
  char     *endpoint;   /* fn_index as text */
  JsonNode *data;       /* the recorded join's data */
} ReplayJoin;

static void
replay_join_free (gpointer data)
{
  ReplayJoin *join = data;

  g_free (join->endpoint);
  g_clear_pointer (&join->data, json_node_unref);
  g_free (join);
}

static gboolean
is_recording (RivRecorder *self)
{
  return riv_transcript_tap_get_writer (self->tap) != NULL && !self->stopping;
}

static void
record_update_state (RivRecorder *self)
{

  g_simple_action_set_enabled (self->record_action, !self->opening && !self->stopping);
  g_simple_action_set_state (self->record_action, g_variant_new_boolean (is_recording (self)));
}

/* Lint */

/* Puts each unplaced finding in its job's timeline once the job has the
 * event id; gives up on one after RETRY_FOR_S (a job cleared meanwhile). */
static void
place_findings (RivRecorder *self,
                GPtrArray *findings)
{
  g_autoptr(GHashTable) by_event = NULL;
  GListModel *jobs;
  double now = riv_now ();

  if (self->unplaced->len == 0 || self->client == NULL)
    return;
  by_event = g_hash_table_new_full (g_str_hash, g_str_equal, NULL, g_object_unref);
  jobs = riv_client_get_jobs (self->client);
  for (guint i = 0; i < g_list_model_get_n_items (jobs); i++)
    {
      RivJob *job = g_list_model_get_item (jobs, i);

      if (riv_job_get_event_id (job) != NULL)
        g_hash_table_replace (by_event, (gpointer) riv_job_get_event_id (job), job);
      else
        g_object_unref (job);
    }
  for (guint i = self->unplaced->len; i > 0; i--)
    {
      Unplaced *u = &g_array_index (self->unplaced, Unplaced, i - 1);
      RivLintFinding *f = findings->pdata[u->index];
      RivJob *job = g_hash_table_lookup (by_event, f->event_id);

      if (job != NULL)
        riv_job_add_timeline (job, _("protocol lint: %s (%s)"), f->rule, f->message);
      if (job != NULL || now - u->since > RETRY_FOR_S)
        g_array_remove_index (self->unplaced, i - 1);
    }
}

static gboolean lint_update_cb (gpointer user_data);

static gboolean
retry_cb (gpointer user_data)
{
  RivRecorder *self = user_data;

  self->retry_id = 0;
  lint_update_cb (self);
  return G_SOURCE_REMOVE;
}

/* Once per burst of findings: the badge, and the new findings in their jobs' timelines. */
static gboolean
lint_update_cb (gpointer user_data)
{
  RivRecorder *self = user_data;
  GPtrArray *findings;
  g_autoptr(GString) tooltip = NULL;
  g_autofree char *label = NULL;

  self->lint_idle_id = 0;
  findings = self->lint != NULL ? riv_lint_get_findings (self->lint) : NULL;
  if (findings == NULL || findings->len == 0)
    {
      gtk_widget_set_visible (GTK_WIDGET (self->badge), FALSE);
      return G_SOURCE_REMOVE;
    }

  /* An unknown event has no job. */
  for (guint i = self->lint_seen; i < findings->len; i++)
    {
      RivLintFinding *f = findings->pdata[i];
      Unplaced u = { i, riv_now () };

      if (f->event_id != NULL && g_strcmp0 (f->rule, "unknown-event") != 0)
        g_array_append_val (self->unplaced, u);
    }
  self->lint_seen = findings->len;
  place_findings (self, findings);
  if (self->unplaced->len > 0 && self->retry_id == 0)
    self->retry_id = g_timeout_add (RETRY_MS, retry_cb, self);

  tooltip = g_string_new (_("The server broke these rules of the protocol:"));
  for (guint i = 0; i < MIN (findings->len, TOOLTIP_FINDINGS); i++)
    {
      RivLintFinding *f = findings->pdata[i];

      g_string_append_printf (tooltip, "\n%s: %s", f->rule, f->message);
      /* Not the server's fault, and what the user sees (no progress): said plainly. */
      if (label == NULL && g_strcmp0 (f->rule, "stream-buffered") == 0)
        {
          label = g_strdup (_("Stream held back by a proxy"));
          g_string_prepend (tooltip, _("Job updates arrive all at once at the end: something "
                                       "between Rivulet and the server holds the stream back.\n"));
        }
    }
  if (findings->len > TOOLTIP_FINDINGS)
    g_string_append (tooltip, "\n…");

  if (label == NULL)
    label = g_strdup_printf (ngettext ("%u lint finding", "%u lint findings", findings->len),
                             findings->len);
  gtk_label_set_label (self->badge, label);
  gtk_widget_set_tooltip_text (GTK_WIDGET (self->badge), tooltip->str);
  gtk_widget_set_visible (GTK_WIDGET (self->badge), TRUE);
  return G_SOURCE_REMOVE;
}

static void
lint_queue_update (RivRecorder *self)
{
  if (self->lint_idle_id == 0)
    self->lint_idle_id = g_idle_add (lint_update_cb, self);
}

/* After each tapped event: a finding of the current connection updates the badge. */
static void
after_tap_cb (const RivTapEvent *event,
              gpointer                  user_data)
{
  RivRecorder *self = user_data;

  if (self->lint != NULL && riv_lint_get_findings (self->lint)->len != self->lint_seen)
    lint_queue_update (self);
}

guint
riv_recorder_get_n_findings (RivRecorder *self)
{
  g_return_val_if_fail (RIV_IS_RECORDER (self), 0);

  return self->lint != NULL ? riv_lint_get_findings (self->lint)->len : 0;
}

/* Connections */

void
riv_recorder_set_pending_client (RivRecorder *self,
                                 RivClient   *client)
{
  g_return_if_fail (RIV_IS_RECORDER (self));
  g_return_if_fail (client == NULL || RIV_IS_CLIENT (client));

  if (self->tapped_pending != NULL && self->tapped_pending != self->tapped_client)
    riv_transcript_tap_remove_client (self->tap, self->tapped_pending);
  self->tapped_pending = NULL;
  g_clear_pointer (&self->pending_lint, riv_lint_free);
  if (client == NULL)
    return;

  /* The lint of a connection sees it from its /config on. */
  self->pending_lint = riv_lint_new ();
  riv_lint_set_origin (self->pending_lint, riv_now ());
  self->tapped_pending = client;
  riv_transcript_tap_add_client (self->tap, client, self->pending_lint);
}

static void
submit_replay_joins (RivRecorder *self)
{
  g_autoptr(GPtrArray) joins = NULL;

  if (self->replay_joins == NULL || self->client == NULL ||
      g_strcmp0 (self->url, self->replay_url) != 0)
    return;

  joins = g_steal_pointer (&self->replay_joins);
  for (guint i = 0; i < joins->len; i++)
    {
      ReplayJoin *join = joins->pdata[i];
      g_autoptr(GError) error = NULL;
      g_autoptr(RivJob) job = riv_client_submit (self->client, join->endpoint, join->data, &error);

      if (job == NULL)
        {
          g_autofree char *message = g_strdup_printf (_("The recording's job %u cannot be replayed: %s"),
                                                      i + 1, error->message);

          g_signal_emit (self, signals[SIGNAL_SUBMIT_FAILED], 0, message);
          break;
        }
      /* The window follows it, as the user's own submissions. */
      g_signal_emit (self, signals[SIGNAL_JOB_SUBMITTED], 0, job);
    }
}

void
riv_recorder_set_client (RivRecorder *self,
                         RivClient   *client,
                         const char  *url,
                         const char  *token)
{
  g_return_if_fail (RIV_IS_RECORDER (self));
  g_return_if_fail (client == NULL || RIV_IS_CLIENT (client));

  g_set_object (&self->client, client);
  riv_set_str (&self->url, url);
  riv_set_str (&self->token, token);
  if (self->tapped_client != NULL && self->tapped_client != self->client)
    riv_transcript_tap_remove_client (self->tap, self->tapped_client);
  self->tapped_client = NULL;
  g_clear_pointer (&self->lint, riv_lint_free);
  self->lint_seen = 0;
  g_array_set_size (self->unplaced, 0);

  if (self->client != NULL)
    {
      if (self->client == self->tapped_pending)
        {
          self->lint = g_steal_pointer (&self->pending_lint);
          self->tapped_pending = NULL;
        }
      else
        {
          self->lint = riv_lint_new ();
          riv_lint_set_origin (self->lint, riv_now ());
        }
      self->tapped_client = self->client;
      riv_transcript_tap_add_client (self->tap, self->client, self->lint);
    }

  submit_replay_joins (self);
  lint_queue_update (self);
}

gboolean
riv_recorder_is_replay_url (RivRecorder *self,
                            const char  *url)
{
  g_return_val_if_fail (RIV_IS_RECORDER (self), FALSE);

  return url != NULL && g_strcmp0 (url, self->replay_url) == 0;
}

const char *
riv_recorder_get_replay_name (RivRecorder *self)
{
  g_return_val_if_fail (RIV_IS_RECORDER (self), NULL);

  return self->replay_name;
}

/* The file choosers (asynchronous; GtkFileDialog needs GTK 4.10) */

typedef void (*ChosenFunc) (RivRecorder *self,
                            GFile       *file);

typedef struct
{
  RivRecorder *self;
  ChosenFunc   then;
} Chosen;

static void
chosen_free (gpointer data)
{
  Chosen *chosen = data;

  g_object_unref (chosen->self);
  g_free (chosen);
}

static void
chosen_cb (GFile         *file,
           GtkFileFilter *filter,
           gpointer       user_data)
{
  Chosen *chosen = user_data;

  chosen->then (chosen->self, file);
}

/* Asks for a file (filters nullable) and calls then with it. */
static void
show_chooser (RivRecorder              *self,
              const RivFileChooserSpec *spec,
              GtkFileFilter           **filters,
              ChosenFunc                then)
{
  Chosen *chosen = g_new0 (Chosen, 1);

  chosen->self = g_object_ref (self);
  chosen->then = then;
  riv_file_chooser_show (GTK_WIDGET (self), spec, filters, chosen_cb, chosen, chosen_free);
}

/* Recording */

static void
close_writer_thread (GTask        *task,
                     gpointer      source,
                     gpointer      task_data,
                     GCancellable *cancellable)
{
  RivTranscriptWriter *writer = task_data;
  gboolean truncated = riv_transcript_writer_get_truncated (writer);
  GError *error = NULL;

  if (!riv_transcript_writer_close (writer, &error))
    g_task_return_error (task, error);
  else
    g_task_return_boolean (task, truncated);
}

static void
close_writer_done_cb (GObject      *object,
                      GAsyncResult *result,
                      gpointer      user_data)
{
  RivRecorder *self = RIV_RECORDER (object);
  g_autofree char *name = user_data;
  g_autofree char *message = NULL;
  g_autoptr(GError) error = NULL;
  gboolean truncated = g_task_propagate_boolean (G_TASK (result), &error);

  if (error != NULL)
    message = g_strdup_printf (_("The recording %s could not be written: %s"), name, error->message);
  else if (truncated)
    message = g_strdup_printf (_("Recording saved as %s, cut at its size limit"), name);
  else
    message = g_strdup_printf (_("Recording saved as %s"), name);
  toast (self, message);
}

/* Closes the recording's file (off the main thread); the toast follows. */
static void
close_recording (RivRecorder *self)
{
  g_autoptr(GTask) task = NULL;
  RivTranscriptWriter *writer = riv_transcript_tap_steal_writer (self->tap);

  self->stopping = FALSE;
  g_clear_handle_id (&self->config_wait_id, g_source_remove);
  if (writer == NULL)
    return;
  task = g_task_new (self, NULL, close_writer_done_cb, g_steal_pointer (&self->record_name));
  g_task_set_task_data (task, writer, NULL);
  g_task_run_in_thread (task, close_writer_thread);
  record_update_state (self);
}

static gboolean
config_wait_cb (gpointer user_data)
{
  RivRecorder *self = user_data;

  self->config_wait_id = 0;
  self->probe_timed_out = TRUE;
  g_cancellable_cancel (self->probe_cancellable);
  return G_SOURCE_REMOVE;
}

/* Off at once for the user. A replay needs the server's /config, which the
 * probe (record_config) may still be fetching: until it has it (or gave up),
 * the file takes in only the probe's events, then it is closed. */
static void
stop_recording (RivRecorder *self)
{
  if (self->stopping || riv_transcript_tap_get_writer (self->tap) == NULL)
    return;
  if (self->probe == NULL)
    {
      close_recording (self);
      return;
    }
  self->stopping = TRUE;
  riv_transcript_tap_write_only (self->tap, self->probe);
  self->config_wait_id = g_timeout_add_seconds (CONFIG_WAIT_S, config_wait_cb, self);
  record_update_state (self);
}

static void
open_writer_thread (GTask        *task,
                    gpointer      source,
                    gpointer      task_data,
                    GCancellable *cancellable)
{
  g_autofree char *path = g_file_get_path (task_data);
  GError *error = NULL;
  RivTranscriptWriter *writer;

  if (path == NULL)
    {
      g_task_return_new_error (task, G_IO_ERROR, G_IO_ERROR_NOT_SUPPORTED,
                               _("Recordings are written to local files only"));
      return;
    }
  writer = riv_transcript_writer_new (path, RECORD_MAX_BYTES, &error);
  if (writer == NULL)
    g_task_return_error (task, error);
  else
    g_task_return_pointer (task, writer, NULL);
}

static void
config_fetched_cb (GObject      *object,
                   GAsyncResult *result,
                   gpointer      user_data)
{
  g_autoptr(RivRecorder) self = user_data;
  RivClient *probe = RIV_CLIENT (object);
  g_autoptr(GError) error = NULL;
  gboolean timed_out = self->probe_timed_out && probe == self->probe;

  if (!riv_client_connect_finish (probe, result, &error) &&
      (timed_out || !g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED)))
    {
      g_autofree char *why = timed_out ? g_strdup_printf (_("the server did not send it within %d s"),
                                                          CONFIG_WAIT_S)
                                       : g_strdup (error->message);
      g_autofree char *message = g_strdup_printf (_("The recording lacks the server's configuration, "
                                                    "so it cannot be replayed: %s"), why);

      toast (self, message);
    }
  if (self->tap != NULL)
    riv_transcript_tap_remove_client (self->tap, probe);
  riv_client_close (probe);
  if (probe != self->probe)
    return;
  g_clear_object (&self->probe);
  g_clear_object (&self->probe_cancellable);
  self->probe_timed_out = FALSE;
  if (self->stopping)
    close_recording (self);
}

/* A recording started while connected: a replay needs the server's
 * /config (and /info), which the window's client fetched before. A second client of
 * the same server fetches them again into the recording, and is closed. */
static void
record_config (RivRecorder *self)
{
  if (self->client == NULL || self->url == NULL)
    return;
  /* One of an earlier recording, still on its way, is no longer awaited. */
  if (self->probe_cancellable != NULL)
    g_cancellable_cancel (self->probe_cancellable);
  g_clear_object (&self->probe_cancellable);
  g_clear_object (&self->probe);
  self->probe_timed_out = FALSE;
  self->probe = riv_client_new (self->url);
  self->probe_cancellable = g_cancellable_new ();
  if (self->token != NULL && *self->token != '\0')
    riv_client_set_token (self->probe, self->token);
  riv_transcript_tap_add_client (self->tap, self->probe, NULL);
  riv_client_connect_async (self->probe, self->probe_cancellable, config_fetched_cb,
                            g_object_ref (self));
}

static void
open_writer_done_cb (GObject      *object,
                     GAsyncResult *result,
                     gpointer      user_data)
{
  RivRecorder *self = RIV_RECORDER (object);
  g_autoptr(GError) error = NULL;
  g_autofree char *message = NULL;
  RivTranscriptWriter *writer = g_task_propagate_pointer (G_TASK (result), &error);

  /* The task holds the recorder, so its state is there until the task returned. */
  self->opening = FALSE;
  if (writer == NULL)
    {
      message = g_strdup_printf (_("Cannot record the session: %s"), error->message);
      toast (self, message);
    }
  else
    {
      g_autoptr(GFile) file = g_object_ref (g_task_get_task_data (G_TASK (result)));

      riv_transcript_writer_set_origin (writer, riv_now ());
      riv_transcript_tap_set_writer (self->tap, writer);
      g_free (self->record_name);
      self->record_name = g_file_get_basename (file);
      message = g_strdup_printf (_("Recording the session to %s"), self->record_name);
      toast (self, message);
      record_config (self);
    }
  record_update_state (self);
}

void
riv_recorder_record_to (RivRecorder *self,
                        GFile       *file)
{
  g_autoptr(GTask) task = NULL;

  g_return_if_fail (RIV_IS_RECORDER (self));
  g_return_if_fail (G_IS_FILE (file));

  /* Not while a stopped one still waits for its configuration. */
  if (is_recording (self) || self->opening || self->stopping)
    return;
  self->opening = TRUE;
  record_update_state (self);
  task = g_task_new (self, NULL, open_writer_done_cb, NULL);
  g_task_set_task_data (task, g_object_ref (file), g_object_unref);
  g_task_run_in_thread (task, open_writer_thread);
}

static void
record_change_state_cb (GSimpleAction *action,
                        GVariant      *value,
                        gpointer       user_data)
{
  RivRecorder *self = user_data;
  const RivFileChooserSpec spec = {
    _("Record Session"), _("_Record"), RIV_FILE_CHOOSER_SAVE, "rivulet-session.jsonl"
  };

  if (!g_variant_get_boolean (value))
    {
      stop_recording (self);
      return;
    }
  if (is_recording (self))
    return;

  /* The state turns on once the file is open. */
  show_chooser (self, &spec, NULL, riv_recorder_record_to);
}

/* Opening a recording */

/* The recorded joins, in order, to submit to the replay. */
static GPtrArray *
recorded_joins (GPtrArray *events)
{
  GPtrArray *joins = g_ptr_array_new_with_free_func (replay_join_free);

  for (guint i = 0; i < events->len; i++)
    {
      RivTapEvent *event = events->pdata[i];
      g_autoptr(JsonNode) body = NULL;
      JsonObject *object;
      ReplayJoin *join;
      gint64 fn_index;
      JsonNode *data;

      if (event->kind != RIV_TAP_REQUEST || event->text == NULL || event->path == NULL ||
          !riv_transcript_path_ends_with (event->path, "/queue/join"))
        continue;
      body = riv_json_parse (NULL, event->text, event->text_len, 0, NULL);
      if (body == NULL || !JSON_NODE_HOLDS_OBJECT (body))
        continue;
      object = json_node_get_object (body);
      data = json_object_get_member (object, "data");
      if (!riv_json_get_int (object, "fn_index", &fn_index) || fn_index < 0 ||
          data == NULL || !JSON_NODE_HOLDS_ARRAY (data))
        continue;
      join = g_new0 (ReplayJoin, 1);
      join->endpoint = g_strdup_printf ("%" G_GINT64_FORMAT, fn_index);
      join->data = json_node_copy (data);
      g_ptr_array_add (joins, join);
    }
  return joins;
}

typedef struct
{
  GPtrArray *events;
  GPtrArray *joins;
  char      *name;
} Loaded;

static void
loaded_free (gpointer data)
{
  Loaded *loaded = data;

  g_clear_pointer (&loaded->events, g_ptr_array_unref);
  g_clear_pointer (&loaded->joins, g_ptr_array_unref);
  g_free (loaded->name);
  g_free (loaded);
}

static void
load_thread (GTask        *task,
             gpointer      source,
             gpointer      task_data,
             GCancellable *cancellable)
{
  GFile *file = task_data;
  g_autofree char *path = g_file_get_path (file);
  GError *error = NULL;
  g_autoptr(GPtrArray) events = NULL;
  Loaded *loaded;

  if (path == NULL)
    {
      g_task_return_new_error (task, G_IO_ERROR, G_IO_ERROR_NOT_SUPPORTED,
                               _("Recordings are read from local files only"));
      return;
    }
  if ((events = riv_transcript_load (path, &error)) == NULL)
    {
      g_autofree char *prefix = g_strconcat (path, ": ", NULL);

      /* The toast names the file already. */
      if (g_str_has_prefix (error->message, prefix))
        {
          char *message = g_strdup (error->message + strlen (prefix));

          g_free (error->message);
          error->message = message;
        }
      g_task_return_error (task, error);
      return;
    }
  loaded = g_new0 (Loaded, 1);
  loaded->joins = recorded_joins (events);
  loaded->events = g_steal_pointer (&events);
  loaded->name = g_file_get_basename (file);
  if (loaded->joins->len == 0)
    {
      loaded_free (loaded);
      g_task_return_new_error (task, G_IO_ERROR, G_IO_ERROR_INVALID_DATA,
                               _("it holds no job to replay"));
      return;
    }
  g_task_return_pointer (task, loaded, loaded_free);
}

static void
replay_started_cb (GObject      *object,
                   GAsyncResult *result,
                   gpointer      user_data)
{
  g_autoptr(RivRecorder) self = user_data;
  g_autoptr(GError) error = NULL;
  g_autofree char *url = riv_embedded_server_start_finish (RIV_EMBEDDED_SERVER (object), result,
                                                           &error);

  if (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED) ||
      RIV_EMBEDDED_SERVER (object) != self->replay)
    return;
  if (url == NULL)
    {
      g_autofree char *message = g_strdup_printf (_("Cannot open the recording: %s"), error->message);

      toast (self, message);
      return;
    }
  g_free (self->replay_url);
  self->replay_url = g_strdup (url);
  g_signal_emit (self, signals[SIGNAL_REPLAY_READY], 0, url);
}

static void
load_done_cb (GObject      *object,
              GAsyncResult *result,
              gpointer      user_data)
{
  RivRecorder *self = RIV_RECORDER (object);
  g_autofree char *name = user_data;
  g_autoptr(GError) error = NULL;
  Loaded *loaded = g_task_propagate_pointer (G_TASK (result), &error);

  if (loaded == NULL)
    {
      g_autofree char *message = NULL;

      if (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
        return;
      message = g_strdup_printf (_("Cannot open the recording %s: %s"),
                                 name,
                                 error->message);
      toast (self, message);
      return;
    }

  /* The previous replay ends; its client (if current) is replaced below. */
  if (self->replay != NULL)
    riv_embedded_server_stop (self->replay);
  g_clear_object (&self->replay);
  g_clear_pointer (&self->replay_url, g_free);
  g_clear_pointer (&self->replay_joins, g_ptr_array_unref);
  g_free (self->replay_name);
  self->replay_name = g_strdup (loaded->name);
  self->replay_joins = g_steal_pointer (&loaded->joins);
  self->replay = riv_embedded_server_new_replay (loaded->events);
  riv_embedded_server_start_async (self->replay, self->cancellable, replay_started_cb,
                                   g_object_ref (self));
  loaded_free (loaded);
}

void
riv_recorder_open (RivRecorder *self,
                   GFile       *file)
{
  g_autoptr(GTask) task = NULL;

  g_return_if_fail (RIV_IS_RECORDER (self));
  g_return_if_fail (G_IS_FILE (file));

  task = g_task_new (self, self->cancellable, load_done_cb, g_file_get_basename (file));
  g_task_set_task_data (task, g_object_ref (file), g_object_unref);
  g_task_run_in_thread (task, load_thread);
}

static void
open_activate_cb (GSimpleAction *action,
                  GVariant      *parameter,
                  gpointer       user_data)
{
  RivRecorder *self = user_data;
  const RivFileChooserSpec spec = { _("Open Recording"), _("_Open"), RIV_FILE_CHOOSER_OPEN, NULL };
  g_autoptr(GtkFileFilter) jsonl = riv_file_filter_new (_("Session recordings (JSON Lines)"),
                                                        "jsonl", NULL);
  g_autoptr(GtkFileFilter) all = riv_file_filter_new (_("All files"), NULL, NULL);
  GtkFileFilter *filters[] = { jsonl, all, NULL };

  show_chooser (self, &spec, filters, riv_recorder_open);
}

/* Life cycle */

void
riv_recorder_close (RivRecorder *self)
{
  RivTranscriptWriter *writer;

  g_return_if_fail (RIV_IS_RECORDER (self));

  g_cancellable_cancel (self->cancellable);
  if (self->probe_cancellable != NULL)
    g_cancellable_cancel (self->probe_cancellable);
  g_clear_object (&self->probe_cancellable);
  g_clear_object (&self->probe);
  self->stopping = FALSE;
  g_clear_handle_id (&self->config_wait_id, g_source_remove);
  g_clear_handle_id (&self->lint_idle_id, g_source_remove);
  g_clear_handle_id (&self->retry_id, g_source_remove);
  if (self->tap == NULL)
    return;
  riv_transcript_tap_remove_clients (self->tap);
  self->tapped_client = self->tapped_pending = NULL;
  g_clear_object (&self->client);
  /* A recording still running is closed (flushed) off the main thread. */
  if ((writer = riv_transcript_tap_steal_writer (self->tap)) != NULL)
    {
      g_autoptr(GTask) task = g_task_new (NULL, NULL, NULL, NULL);

      g_task_set_task_data (task, writer, NULL);
      g_task_run_in_thread (task, close_writer_thread);
    }
  if (self->replay != NULL)
    riv_embedded_server_stop (self->replay);
  g_clear_object (&self->replay);
}

static void
riv_recorder_dispose (GObject *object)
{
  RivRecorder *self = RIV_RECORDER (object);

  riv_recorder_close (self);
  /* AdwBin unparents its child itself; let it go before the template does. */
  adw_bin_set_child (ADW_BIN (self), NULL);
  gtk_widget_dispose_template (GTK_WIDGET (self), RIV_TYPE_RECORDER);

  G_OBJECT_CLASS (riv_recorder_parent_class)->dispose (object);
}

static void
riv_recorder_finalize (GObject *object)
{
  RivRecorder *self = RIV_RECORDER (object);

  g_clear_pointer (&self->tap, riv_transcript_tap_free);
  g_clear_object (&self->record_action);
  g_clear_object (&self->open_action);
  g_clear_object (&self->cancellable);
  g_clear_pointer (&self->lint, riv_lint_free);
  g_clear_pointer (&self->pending_lint, riv_lint_free);
  g_clear_pointer (&self->unplaced, g_array_unref);
  g_free (self->record_name);
  g_free (self->replay_name);
  g_free (self->replay_url);
  g_free (self->url);
  g_free (self->token);
  g_clear_pointer (&self->replay_joins, g_ptr_array_unref);

  G_OBJECT_CLASS (riv_recorder_parent_class)->finalize (object);
}

static void
riv_recorder_class_init (RivRecorderClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->dispose = riv_recorder_dispose;
  object_class->finalize = riv_recorder_finalize;

  signals[SIGNAL_TOAST] =
    g_signal_new ("toast", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL,
                  G_TYPE_NONE, 1, G_TYPE_STRING);
  signals[SIGNAL_SUBMIT_FAILED] =
    g_signal_new ("submit-failed", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0,
                  NULL, NULL, NULL, G_TYPE_NONE, 1, G_TYPE_STRING);
  signals[SIGNAL_JOB_SUBMITTED] =
    g_signal_new ("job-submitted", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0,
                  NULL, NULL, NULL, G_TYPE_NONE, 1, RIV_TYPE_JOB);
  signals[SIGNAL_REPLAY_READY] =
    g_signal_new ("replay-ready", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0,
                  NULL, NULL, NULL, G_TYPE_NONE, 1, G_TYPE_STRING);

  gtk_widget_class_set_template_from_resource (widget_class,
                                               RIV_RESOURCE_PATH "/ui/riv-recorder.ui");
  gtk_widget_class_bind_template_child (widget_class, RivRecorder, badge);
}

static void
riv_recorder_init (RivRecorder *self)
{
  gtk_widget_init_template (GTK_WIDGET (self));
  /* Hidden with its badge, so that the header bar keeps no room for it. */
  g_object_bind_property (self->badge, "visible", self, "visible", G_BINDING_SYNC_CREATE);

  self->cancellable = g_cancellable_new ();
  self->tap = riv_transcript_tap_new ();
  self->unplaced = g_array_new (FALSE, FALSE, sizeof (Unplaced));
  riv_transcript_tap_set_after (self->tap, after_tap_cb, self);
  self->record_action = g_simple_action_new_stateful ("record-session", NULL,
                                                      g_variant_new_boolean (FALSE));
  g_signal_connect_object (self->record_action, "change-state",
                           G_CALLBACK (record_change_state_cb), self, 0);
  self->open_action = g_simple_action_new ("open-recording", NULL);
  g_signal_connect_object (self->open_action, "activate", G_CALLBACK (open_activate_cb), self, 0);
}

/* Public */

GtkWidget *
riv_recorder_new (void)
{
  return g_object_new (RIV_TYPE_RECORDER, NULL);
}

void
riv_recorder_add_actions (RivRecorder *self,
                          GActionMap  *map)
{
  g_return_if_fail (RIV_IS_RECORDER (self));
  g_return_if_fail (G_IS_ACTION_MAP (map));

  g_action_map_add_action (map, G_ACTION (self->record_action));
  g_action_map_add_action (map, G_ACTION (self->open_action));
}

GtkLabel *
riv_recorder_get_badge (RivRecorder *self)
{
  g_return_val_if_fail (RIV_IS_RECORDER (self), NULL);

  return self->badge;
}
