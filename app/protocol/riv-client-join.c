/* riv-client-join.c
 * Copyright 2026 The Rivulet authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Submitting a job: its local files uploaded first (riv_client_submit_uploading,
 * once per path and session), then its join: POST queue/join, /run for a
 * non-queued endpoint, or /call/v2 (riv-client-call.c). The reply that names
 * a job's event id and replays its early messages, the one watchdog that
 * bounds every join, and cancelling a job (POST /cancel, then /reset, with a
 * grace period for the server's confirmation).
 */
#include "config.h"

#include "riv-client-private.h"
#include "riv-compat.h"
#include "riv-json.h"

#define CANCEL_GRACE_S        10.0   /* wait this long for the server to confirm a cancel */

/* A job's local files, uploaded before its join ------------------------------------------ */

/* One local path of the client's session: uploaded once, then reused. */
typedef struct
{
  char      *path;          /* the local path (the table's key) */
  char      *server_path;   /* nullable until uploaded */
  GPtrArray *waiting;       /* RivJob refs whose join waits for it */
} RivUploadEntry;

void
_riv_client_upload_entry_free (gpointer data)
{
  RivUploadEntry *entry = data;

  g_free (entry->path);
  g_free (entry->server_path);
  g_ptr_array_unref (entry->waiting);
  g_free (entry);
}

static void
replace_path_cb (JsonObject *object,
                 const char *path,
                 gpointer    data)
{
  RivClient *self = data;
  RivUploadEntry *entry = g_hash_table_lookup (self->join.uploads, path);
  g_autofree char *name = NULL;

  if (entry == NULL || entry->server_path == NULL)
    return;
  name = g_path_get_basename (path);
  if (!json_object_has_member (object, "orig_name"))
    json_object_set_string_member (object, "orig_name", name);
  /* Last: path points into the object. */
  json_object_set_string_member (object, "path", entry->server_path);
}

static void
job_file_ready (RivClient *self,
                RivJob    *job)
{
  RivJobCtx *ctx = _riv_client_job_ctx (job);

  /* Cancelled or closed meanwhile: nothing to join. */
  if (riv_job_is_finished (job) || ctx == NULL || ctx->uploads_left == 0)
    return;
  if (--ctx->uploads_left > 0)
    return;

  _riv_client_walk_local_files (riv_job_get_inputs (job), replace_path_cb, self);
  _riv_job_set_upload_time (job, riv_now () - riv_job_get_submitted_at (job));
  riv_job_add_timeline (job, "files uploaded");
  _riv_client_start_join (self, job);
}

static void
upload_entry_failed (RivClient      *self,
                     RivUploadEntry *entry,
                     const char     *text)
{
  g_autoptr(GPtrArray) waiting = g_ptr_array_ref (entry->waiting);

  /* Forgotten: the next job that needs the file tries again. */
  g_hash_table_steal (self->join.uploads, entry->path);
  for (guint i = 0; i < waiting->len; i++)
    {
      RivJob *job = g_ptr_array_index (waiting, i);

      if (!riv_job_is_finished (job))
        _riv_client_finish_job (self, job, RIV_JOB_STATUS_FAILED, text);
    }
  _riv_client_upload_entry_free (entry);
}

static void
entry_uploaded_cb (GObject      *object,
                   GAsyncResult *result,
                   gpointer      user_data)
{
  RivClient *self = RIV_CLIENT (object);
  RivUploadEntry *entry = user_data;
  g_autoptr(GError) error = NULL;
  g_autoptr(GPtrArray) waiting = NULL;

  entry->server_path = riv_client_upload_finish (self, result, &error);
  if (entry->server_path == NULL)
    {
      g_autofree char *text = g_strdup_printf ("Could not upload %s: %s", entry->path,
                                               error->message);

      if (!self->closed)
        upload_entry_failed (self, entry, text);
      return;
    }

  waiting = g_steal_pointer (&entry->waiting);
  entry->waiting = g_ptr_array_new_with_free_func (g_object_unref);
  for (guint i = 0; i < waiting->len && !self->closed; i++)
    job_file_ready (self, g_ptr_array_index (waiting, i));
}

static void
entry_read_cb (GObject      *object,
               GAsyncResult *result,
               gpointer      user_data)
{
  RivUploadEntry *entry = user_data;
  /* The file holds a reference to the client until this returns. */
  RivClient *self = g_object_get_data (object, "riv-client");
  g_autoptr(GError) error = NULL;
  g_autoptr(GBytes) bytes = NULL;
  g_autofree char *name = NULL;
  char *contents = NULL;
  gsize length = 0;

  if (!g_file_load_contents_finish (G_FILE (object), result, &contents, &length, NULL, &error))
    {
      g_autofree char *text = g_strdup_printf ("Cannot read %s: %s", entry->path, error->message);

      if (!self->closed)
        upload_entry_failed (self, entry, text);
      return;
    }
  bytes = g_bytes_new_take (contents, length);
  if (self->closed)
    return;
  if (length == 0)
    {
      g_autofree char *text = g_strdup_printf ("%s is empty (0 bytes): nothing to upload",
                                               entry->path);

      upload_entry_failed (self, entry, text);
      return;
    }

  name = g_path_get_basename (entry->path);
  riv_client_upload_async (self, bytes, name, NULL, entry_uploaded_cb, entry);
}

static void
need_file_cb (JsonObject *object,
              const char *path,
              gpointer    data)
{
  RivJob *job = data;
  RivJobCtx *ctx = _riv_client_job_ctx (job);
  RivClient *self = ctx->client;
  RivUploadEntry *entry;
  g_autoptr(GFile) file = NULL;

  if (self->join.uploads == NULL)
    self->join.uploads = g_hash_table_new_full (g_str_hash, g_str_equal, NULL,
                                           _riv_client_upload_entry_free);

  entry = g_hash_table_lookup (self->join.uploads, path);
  if (entry != NULL)
    {
      /* Uploaded already (reused), or on its way (wait with the others);
       * a job naming the same path twice waits once. */
      if (entry->server_path == NULL &&
          !g_ptr_array_find (entry->waiting, job, NULL))
        {
          g_ptr_array_add (entry->waiting, g_object_ref (job));
          ctx->uploads_left++;
        }
      return;
    }

  entry = g_new0 (RivUploadEntry, 1);
  entry->path = g_strdup (path);
  entry->waiting = g_ptr_array_new_with_free_func (g_object_unref);
  g_ptr_array_add (entry->waiting, g_object_ref (job));
  g_hash_table_insert (self->join.uploads, entry->path, entry);
  ctx->uploads_left++;

  /* GIO reads a local file on its worker threads: the context never blocks. */
  file = g_file_new_for_path (path);
  g_object_set_data_full (G_OBJECT (file), "riv-client", g_object_ref (self), g_object_unref);
  g_file_load_contents_async (file, self->cancellable, entry_read_cb, entry);
}

gboolean
_riv_client_upload_job_files (RivClient *self,
                              RivJob    *job)
{
  RivJobCtx *ctx = _riv_client_job_ctx (job);
  g_autoptr(GPtrArray) paths = riv_client_list_local_files (riv_job_get_inputs (job));

  if (paths->len == 0)
    return FALSE;

  riv_job_add_timeline (job, "uploading %u file(s)", paths->len);
  /* Counted first, so a file ready at once cannot start the join early. */
  ctx->uploads_left = 1;
  _riv_client_walk_local_files (riv_job_get_inputs (job), need_file_cb, job);
  job_file_ready (self, job);
  return TRUE;
}

/* Joining ------------------------------------------------------------------------------ */

void
_riv_client_register_event (RivClient  *self,
                            RivJob     *job,
                            const char *event_id)
{
  RivJobCtx *ctx = _riv_client_job_ctx (job);
  GQueue early = G_QUEUE_INIT;

  _riv_job_set_event_id (job, event_id);
  if (!g_hash_table_contains (self->jobs.by_event, riv_job_get_event_id (job)))
    g_hash_table_insert (self->jobs.by_event, (gpointer) riv_job_get_event_id (job), g_object_ref (job));
  self->sse.session_established = TRUE;
  self->sse.server_went_away = FALSE;

  riv_early_buffer_take (self->jobs.early, event_id, &early);

  /* Cancelled while the join was in flight: tell the server now. */
  if (riv_job_is_finished (job) || ctx == NULL)
    {
      g_queue_clear_full (&early, (GDestroyNotify) riv_message_free);
      _riv_client_send_cancel (self, job, event_id);
      return;
    }

  /* Its process_starts may have come already, in an inferred batch. */
  if (self->jobs.infer_batches)
    riv_batch_infer_claim (&self->jobs.batch, event_id, job, ctx->endpoint);

  ctx->joined = TRUE;
  self->jobs.n_joined++;
  _riv_client_liveness_update (self);

  _riv_job_freeze (job);
  _riv_job_set_status (job, RIV_JOB_STATUS_QUEUED);
  riv_job_add_timeline (job, "joined");
  _riv_job_thaw (job);

  /* Its early messages were dropped: it can never complete. When a flood
   * made the client forget dropped ids, a job that was already joining then
   * and has nothing buffered may be one of them: fail it rather than let it
   * wait forever behind heartbeats. */
  if (riv_early_buffer_lost (self->jobs.early, event_id, g_queue_is_empty (&early),
                             riv_job_get_submitted_at (job)))
    {
      g_queue_clear_full (&early, (GDestroyNotify) riv_message_free);
      _riv_client_finish_job (self, job, RIV_JOB_STATUS_FAILED,
                              "Messages for this job arrived before its join reply and were "
                              "dropped (the client's buffer was full)");
      return;
    }

  /* Replay what arrived before the join reply, in arrival order. */
  while (!g_queue_is_empty (&early))
    {
      RivMessage *msg = g_queue_pop_head (&early);

      if (!riv_job_is_finished (job))
        {
          _riv_job_set_replay_time (job, msg->received_at);
          _riv_client_apply_message (self, job, msg);
          _riv_job_set_replay_time (NULL, 0);
        }
      riv_message_free (msg);
    }

  _riv_client_ensure_stream (self);
}

static char *
join_timeout_text (RivClient *self)
{
  return g_strdup_printf ("The server did not answer the join request within %g s",
                          self->join.timeout);
}

/* A join that got no reply (no connection, a timeout, cancelled). */
static void
join_failed (RivClient   *self,
             RivClientOp *op,
             GError      *error)
{
  g_autofree char *text = op->timed_out
                        ? join_timeout_text (self)
                        : g_strdup_printf ("Could not join the queue: %s", error->message);

  _riv_client_finish_job (self, op->job, RIV_JOB_STATUS_FAILED, text);
  /* The server cannot be reached at all: say so, rather than leave the
   * stream state at "idle" (which reads as healthy) with no stream open. */
  if (!op->timed_out && self->sse.stream == NULL &&
      !g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
    _riv_client_set_stream_state (self, RIV_STREAM_STATE_DISCONNECTED);
}

/* A non-queued endpoint's reply is the whole result: applied as the
 * process_completed a queue would have sent. */
static void
join_run_result (RivClient   *self,
                 RivClientOp *op,
                 RivJobCtx   *ctx,
                 GBytes      *body)
{
  g_autoptr(JsonNode) root = NULL;
  g_autoptr(RivMessage) msg = NULL;
  g_autoptr(JsonBuilder) builder = NULL;
  g_autoptr(JsonNode) wrapped = NULL;
  const char *data;
  gsize len;

  data = g_bytes_get_data (body, &len);
  root = riv_json_parse (NULL, data ? data : "", len, 512, NULL);
  if (root != NULL && JSON_NODE_HOLDS_OBJECT (root) &&
      json_object_has_member (json_node_get_object (root), "data"))
    {
      builder = json_builder_new ();
      json_builder_begin_object (builder);
      json_builder_set_member_name (builder, "msg");
      json_builder_add_string_value (builder, "process_completed");
      json_builder_set_member_name (builder, "event_id");
      json_builder_add_null_value (builder);
      json_builder_set_member_name (builder, "success");
      json_builder_add_boolean_value (builder, TRUE);
      json_builder_set_member_name (builder, "output");
      json_builder_add_value (builder, json_node_ref (root));
      json_builder_end_object (builder);
      wrapped = json_builder_get_root (builder);
      msg = riv_message_new_from_node (wrapped, NULL);
    }

  if (msg != NULL && ctx != NULL)
    {
      _riv_job_set_status (op->job, RIV_JOB_STATUS_RUNNING);
      _riv_client_apply_message (self, op->job, msg);
    }
  else
    _riv_client_finish_job (self, op->job, RIV_JOB_STATUS_FAILED,
                            "The server's reply does not match the protocol");
}

/* A queued endpoint's reply: its event id. */
static void
join_event_id (RivClient   *self,
               RivClientOp *op,
               GBytes      *body)
{
  g_autoptr(JsonNode) root = NULL;
  const char *event_id = NULL;
  const char *data;
  gsize len;

  data = g_bytes_get_data (body, &len);
  root = riv_json_parse (NULL, data ? data : "", len, 64, NULL);
  if (root != NULL && JSON_NODE_HOLDS_OBJECT (root))
    event_id = riv_json_get_string (json_node_get_object (root), "event_id");

  if (event_id == NULL || *event_id == '\0')
    _riv_client_finish_job (self, op->job, RIV_JOB_STATUS_FAILED,
                            "The server's join reply does not match the protocol "
                            "(no event_id)");
  else if (op->call)
    _riv_client_call_start (self, op->job, event_id);
  else
    _riv_client_register_event (self, op->job, event_id);
}

/* What a refused join says, by its HTTP status and the server's detail. */
static char *
join_refused_text (guint       status,
                   const char *detail)
{
  /* Gradio answers 503 both for a full queue and for a stopped one (its
   * detail "Queue is stopped."): a stopped queue is not full. */
  if (status == SOUP_STATUS_SERVICE_UNAVAILABLE && detail != NULL &&
      g_ascii_strncasecmp (detail, "Queue is stopped", 16) == 0)
    return g_strdup ("Queue is stopped: the server is not taking jobs");
  if (status == SOUP_STATUS_SERVICE_UNAVAILABLE)
    return _riv_client_error_text ("Queue is full", detail);
  if (status >= 400 && status < 500)
    return detail ? g_strdup (detail)
                  : g_strdup_printf ("The server rejected the job (HTTP %u)", status);
  if (status >= 500)
    {
      /* A proxy's 502/504 says the server behind it is gone or slow: named so. */
      g_autofree char *what = _riv_client_gateway_text (status) != NULL
                            ? g_strdup_printf ("Could not submit the job: %s",
                                               _riv_client_gateway_text (status))
                            : g_strdup_printf ("Server error (HTTP %u)", status);

      return detail ? g_strdup_printf ("%s: %s", what, detail) : g_steal_pointer (&what);
    }
  return g_strdup_printf ("Unexpected reply to the join request (HTTP %u)", status);
}

static void
join_cb (GObject      *object,
         GAsyncResult *result,
         gpointer      user_data)
{
  g_autoptr(RivClientOp) op = user_data;
  g_autoptr(GError) error = NULL;
  g_autoptr(GBytes) body = NULL;
  RivClient *self;
  RivJobCtx *ctx;
  guint status;

  body = _riv_client_read_reply (_riv_client_op_get_client (op), op->msg, result, &error);
  if (_riv_client_op_client_gone (op))
    return;

  self = op->client;
  g_object_ref (self);

  if (op->queued)
    {
      g_queue_unlink (&self->join.queue, &op->link);
      op->queued = FALSE;
    }

  ctx = _riv_client_job_ctx (op->job);
  if (_riv_client_joining_done (self, ctx))
    _riv_client_notify_n_joining (self);

  status = body != NULL ? _riv_client_reply_status (op->msg) : 0;
  if (body == NULL)
    join_failed (self, op, error);
  else if (status == SOUP_STATUS_OK && op->run)
    join_run_result (self, op, ctx, body);
  else if (status == SOUP_STATUS_OK)
    join_event_id (self, op, body);
  else
    {
      g_autofree char *detail = _riv_client_extract_detail (body);
      g_autofree char *text = join_refused_text (status, detail);

      if (_riv_client_gateway_text (status) != NULL)
        self->sse.server_went_away = TRUE;
      _riv_client_finish_job (self, op->job, RIV_JOB_STATUS_FAILED, text);
    }

  /* A job that failed to join may have been the only reason to keep a
   * reconnect loop going. */
  _riv_client_ensure_stream (self);
  g_object_unref (self);
}

/* Cancels joins past their deadline; the queue is in submission order, which
 * is deadline order unless join-timeout changed meanwhile (then a join may
 * time out a little late, never early). */
static gboolean
join_watchdog_cb (gpointer user_data)
{
  RivClient *self = g_object_ref (user_data);
  double now = riv_now ();
  GList *link;

  while ((link = self->join.queue.head) != NULL && ((RivClientOp *) link->data)->deadline <= now)
    {
      RivClientOp *op = link->data;
      g_autoptr(RivJob) job = g_object_ref (op->job);

      g_queue_unlink (&self->join.queue, link);
      op->queued = FALSE;
      op->timed_out = TRUE;
      /* libsoup 3.2.3 frees a message's I/O when it is cancelled while its
       * request body is being written, then runs the write's callback on it
       * (a crash with 10,000 users, whose joins timed out on a busy loop):
       * such a join is cancelled once its body is written. Otherwise its
       * callback (maybe right away) fails the job; op is not touched after. */
      if (op->writing_body)
        op->cancel_after_body = TRUE;
      else
        g_cancellable_cancel (op->cancellable);
      /* libsoup 3.2 does not always call back for a cancelled request: with
       * 3,000 users, joins sent as their idle connections were being closed
       * never ended. Every job ends, so the watchdog ends it; the callback,
       * should it come, finds the job finished. */
      if (!riv_job_is_finished (job))
        {
          g_autofree char *text = join_timeout_text (self);

          g_debug ("Join of job %u: no callback after its cancel; failing it here",
                   riv_job_get_number (job));
          _riv_client_finish_job (self, job, RIV_JOB_STATUS_FAILED, text);
        }
    }

  if (self->join.queue.length == 0 && self->join.watchdog != NULL)
    {
      g_source_destroy (self->join.watchdog);
      g_clear_pointer (&self->join.watchdog, g_source_unref);
    }

  g_object_unref (self);
  return G_SOURCE_CONTINUE;
}

static JsonNode *
build_join_body (RivClient *self,
                 RivJob    *job)
{
  g_autoptr(JsonBuilder) builder = json_builder_new ();
  JsonNode *inputs = riv_job_get_inputs (job);

  json_builder_begin_object (builder);
  json_builder_set_member_name (builder, "data");
  if (inputs != NULL)
    json_builder_add_value (builder, json_node_copy (inputs));
  else
    {
      json_builder_begin_array (builder);
      json_builder_end_array (builder);
    }
  json_builder_set_member_name (builder, "event_data");
  json_builder_add_null_value (builder);
  json_builder_set_member_name (builder, "fn_index");
  json_builder_add_int_value (builder, riv_job_get_fn_index (job));
  json_builder_set_member_name (builder, "trigger_id");
  json_builder_add_null_value (builder);
  json_builder_set_member_name (builder, "session_hash");
  json_builder_add_string_value (builder, self->access.session_hash);
  json_builder_end_object (builder);

  return json_builder_get_root (builder);
}

static void
join_wrote_headers_cb (SoupMessage *msg,
                       gpointer     user_data)
{
  RivClientOp *op = user_data;

  op->writing_body = TRUE;
}

static void
join_wrote_body_cb (SoupMessage *msg,
                    gpointer     user_data)
{
  RivClientOp *op = user_data;

  op->writing_body = FALSE;
  if (op->cancel_after_body)
    {
      op->cancel_after_body = FALSE;
      g_cancellable_cancel (op->cancellable);
    }
}

void
_riv_client_start_join (RivClient *self,
                        RivJob    *job)
{
  RivJobCtx *ctx = _riv_client_job_ctx (job);
  g_autoptr(JsonNode) body = NULL;
  g_autoptr(SoupMessage) msg = NULL;
  g_autofree char *run_url = NULL;
  gboolean run = !ctx->endpoint->queue && ctx->endpoint->api_name != NULL;
  gboolean call = self->join.call_transport && !run && ctx->endpoint->api_name != NULL &&
                  ctx->endpoint->parameters != NULL;
  RivClientOp *op;

  if (run || call)
    {
      g_autofree char *path = g_strconcat (call ? "/call/v2/" : "/run/",
                                           ctx->endpoint->api_name, NULL);

      run_url = riv_config_build_url (self->config, path);
    }
  body = call ? _riv_client_build_call_body (job, ctx->endpoint) : build_join_body (self, job);

  msg = soup_message_new (SOUP_METHOD_POST, run || call ? run_url : self->access.join_url);
  if (msg == NULL)
    {
      _riv_client_finish_job (self, job, RIV_JOB_STATUS_FAILED,
                              "Could not build the join request URL");
      return;
    }

  if (!self->join.keep_alive)
    soup_message_headers_replace (soup_message_get_request_headers (msg), "Connection", "close");

  op = _riv_client_op_new (self, job, msg);
  op->run = run;
  op->call = call;
  op->cancellable = g_cancellable_new ();
  g_signal_connect (msg, "wrote-headers", G_CALLBACK (join_wrote_headers_cb), op);
  g_signal_connect (msg, "wrote-body", G_CALLBACK (join_wrote_body_cb), op);
  if (self->join.timeout > 0)
    {
      /* One watchdog for all joins instead of one timer each: a burst of
       * thousands of GSources would slow every main-loop iteration. */
      op->deadline = riv_now () + self->join.timeout;
      g_queue_push_tail_link (&self->join.queue, &op->link);
      op->queued = TRUE;
      if (self->join.watchdog == NULL)
        self->join.watchdog = _riv_client_attach_timeout (self,
                                                        CLAMP (self->join.timeout / 10, 0.05, 0.5),
                                                        join_watchdog_cb, self);
    }
  ctx->counted_joining = TRUE;
  self->join.n_joining++;
  _riv_client_notify_n_joining (self);

  /* close() aborts the session, which cancels this request too (a direct
   * one ends with the client's cancellable). */
  _riv_client_send (self, msg, body, RIV_CLIENT_MAX_DOCUMENT_BYTES, RIV_CLIENT_SEND_DIRECT,
                    op->cancellable, join_cb, op);
}

/* Cancel ------------------------------------------------------------------------------- */

static void
reset_cb (GObject      *object,
          GAsyncResult *result,
          gpointer      user_data)
{
  G_GNUC_UNUSED g_autoptr(RivClientOp) op = user_data;   /* freed when we return */
  g_autoptr(GBytes) body = NULL;

  body = _riv_client_read_reply (_riv_client_op_get_client (op), op->msg, result, NULL);
}

static gboolean
cancel_grace_cb (gpointer user_data)
{
  RivJob *job = user_data;
  RivJobCtx *ctx = _riv_client_job_ctx (job);

  g_clear_pointer (&ctx->cancel_grace, g_source_unref);
  _riv_client_finish_job (ctx->client, job, RIV_JOB_STATUS_CANCELLED,
                          "The server did not confirm the cancellation");
  return G_SOURCE_REMOVE;
}

static void
send_reset (RivClient  *self,
            const char *event_id)
{
  g_autoptr(JsonBuilder) builder = json_builder_new ();
  g_autoptr(JsonNode) body = NULL;
  g_autoptr(SoupMessage) msg = NULL;

  json_builder_begin_object (builder);
  json_builder_set_member_name (builder, "event_id");
  json_builder_add_string_value (builder, event_id);
  json_builder_end_object (builder);
  body = json_builder_get_root (builder);

  msg = soup_message_new (SOUP_METHOD_POST, self->access.reset_url);
  if (msg != NULL)
    _riv_client_send (self, msg, body, RIV_CLIENT_MAX_ANSWER_BYTES, RIV_CLIENT_SEND_DEFAULT,
                      self->cancellable, reset_cb, _riv_client_op_new (self, NULL, msg));
}

static void
cancel_request_cb (GObject      *object,
                   GAsyncResult *result,
                   gpointer      user_data)
{
  g_autoptr(RivClientOp) op = user_data;
  g_autoptr(GError) error = NULL;
  g_autoptr(GBytes) body = NULL;
  RivClient *self;
  RivJobCtx *ctx;
  guint status;

  body = _riv_client_read_reply (_riv_client_op_get_client (op), op->msg, result, &error);
  if (_riv_client_op_client_gone (op))
    return;

  self = op->client;
  status = soup_message_get_status (op->msg);

  if (riv_job_get_event_id (op->job) != NULL)
    send_reset (self, riv_job_get_event_id (op->job));

  if (riv_job_is_finished (op->job) || (ctx = _riv_client_job_ctx (op->job)) == NULL)
    return;

  if (body != NULL && SOUP_STATUS_IS_SUCCESSFUL (status))
    {
      /* The job ends with the server's completion (cancelled, or completed if
       * it won the race); this only bounds the wait. */
      if (ctx->cancel_grace == NULL)
        ctx->cancel_grace = _riv_client_attach_timeout (self, CANCEL_GRACE_S, cancel_grace_cb,
                                                        op->job);
      return;
    }

  {
    g_autofree char *why = error ? g_strdup (error->message) : g_strdup_printf ("HTTP %u", status);
    g_autofree char *text = g_strdup_printf ("Cancelled locally; the server did not accept the "
                                             "cancel request (%s)", why);

    _riv_client_finish_job (self, op->job, RIV_JOB_STATUS_CANCELLED, text);
  }
}

void
_riv_client_send_cancel (RivClient  *self,
                         RivJob     *job,
                         const char *event_id)
{
  g_autoptr(JsonBuilder) builder = json_builder_new ();
  g_autoptr(JsonNode) body = NULL;
  g_autoptr(SoupMessage) msg = NULL;

  json_builder_begin_object (builder);
  json_builder_set_member_name (builder, "event_id");
  json_builder_add_string_value (builder, event_id);
  json_builder_set_member_name (builder, "session_hash");
  json_builder_add_string_value (builder, self->access.session_hash);
  json_builder_set_member_name (builder, "fn_index");
  json_builder_add_int_value (builder, riv_job_get_fn_index (job));
  json_builder_end_object (builder);
  body = json_builder_get_root (builder);

  msg = soup_message_new (SOUP_METHOD_POST, self->access.cancel_url);
  if (msg != NULL)
    _riv_client_send (self, msg, body, RIV_CLIENT_MAX_ANSWER_BYTES, RIV_CLIENT_SEND_DEFAULT,
                      self->cancellable, cancel_request_cb, _riv_client_op_new (self, job, msg));
}

