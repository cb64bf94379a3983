/* riv-client-files.c
 * Copyright 2026 The Rivulet authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Files: a job's newest image output fetched for its preview (latest wins),
 * uploads (POST /upload), and the local files named in a job's inputs. It
 * calls only riv-client-request.c and the tap; the uploads a job waits for
 * before its join are riv-client-join.c's.
 */
#include "config.h"

#include "riv-compat.h"
#include "riv-client-private.h"
#include "riv-json.h"

#define UPLOAD_TIMEOUT_S 300.0

/* Looked up once: g_quark_from_static_string() takes a global lock. */
static GQuark
download_state_quark (void)
{
  static GQuark quark;

  if (G_UNLIKELY (quark == 0))
    quark = g_quark_from_static_string ("riv-client-download");
  return quark;
}

/* Latest-wins image download chain of one job (qdata on the job). */
typedef struct
{
  char     *last_url;   /* newest url queued or fetched */
  char     *next_url;   /* waiting for the one in flight */
  gboolean  busy;
} DownloadState;

static void
download_state_free (gpointer data)
{
  DownloadState *ds = data;

  g_free (ds->last_url);
  g_free (ds->next_url);
  g_free (ds);
}

/* Image downloads ---------------------------------------------------------------------- */

static void start_download (RivClient *self,
                            RivJob    *job,
                            char      *url);

static gboolean
is_http_url (const char *url)
{
  return url != NULL &&
         (g_ascii_strncasecmp (url, "http://", 7) == 0 ||
          g_ascii_strncasecmp (url, "https://", 8) == 0);
}

gboolean
riv_client_is_file_data (JsonObject *object)
{
  JsonNode *meta = json_object_get_member (object, "meta");

  return meta != NULL && JSON_NODE_HOLDS_OBJECT (meta) &&
         g_strcmp0 (riv_json_get_string (json_node_get_object (meta), "_type"),
                    "gradio.FileData") == 0;
}

/* Where to fetch a FileData: its absolute "url", or ROOT + P + "/file=" + path. */
char *
riv_client_dup_file_url (RivClient  *self,
                         JsonObject *object)
{
  const char *url = riv_json_get_string (object, "url");
  const char *path = riv_json_get_string (object, "path");
  g_autofree char *escaped = NULL;
  g_autofree char *prefix = NULL;

  if (is_http_url (url))
    return g_strdup (url);
  if (path == NULL || *path == '\0')
    return NULL;
  if (is_http_url (path))
    return g_strdup (path);
  if (g_str_has_prefix (path, "data:"))
    return NULL;

  if (self == NULL || self->config == NULL)
    return NULL;
  escaped = g_uri_escape_string (path, "/:", FALSE);
  prefix = riv_config_build_url (self->config, "/file=");
  return g_strconcat (prefix, escaped, NULL);
}

void
_riv_client_maybe_download_images (RivClient *self,
                                   RivJobCtx *ctx,
                                   JsonNode  *outputs)
{
  JsonArray *array;
  GPtrArray *slots;
  DownloadState *ds;
  char *url = NULL;
  guint n;

  if (!self->download_images || ctx->endpoint == NULL || outputs == NULL ||
      !JSON_NODE_HOLDS_ARRAY (outputs))
    return;

  slots = ctx->endpoint->outputs;
  array = json_node_get_array (outputs);
  n = MIN (json_array_get_length (array), slots->len);

  /* The first image output slot holding a file. */
  for (guint i = 0; i < n && url == NULL; i++)
    {
      RivComponent *component = g_ptr_array_index (slots, i);
      JsonNode *value = json_array_get_element (array, i);
      JsonObject *object;

      if (component == NULL || g_strcmp0 (component->type, "image") != 0 ||
          !JSON_NODE_HOLDS_OBJECT (value))
        continue;

      object = json_node_get_object (value);
      if (riv_client_is_file_data (object) || json_object_has_member (object, "path") ||
          json_object_has_member (object, "url"))
        url = riv_client_dup_file_url (self, object);
    }

  if (url == NULL)
    return;

  ds = g_object_get_qdata (G_OBJECT (ctx->job), download_state_quark ());
  if (ds == NULL)
    {
      ds = g_new0 (DownloadState, 1);
      g_object_set_qdata_full (G_OBJECT (ctx->job), download_state_quark (), ds,
                               download_state_free);
    }

  /* The completion repeats the last frame: don't fetch it twice. */
  if (g_strcmp0 (ds->last_url, url) == 0)
    {
      g_free (url);
      return;
    }
  g_free (ds->last_url);
  ds->last_url = g_strdup (url);

  /* Latest wins: a frame waiting behind the one in flight is replaced. */
  if (ds->busy)
    {
      g_free (ds->next_url);
      ds->next_url = url;
      return;
    }

  start_download (self, ctx->job, url);
}

static void
download_cb (GObject      *object,
             GAsyncResult *result,
             gpointer      user_data)
{
  g_autoptr(RivClientOp) op = user_data;
  g_autoptr(GError) error = NULL;
  g_autoptr(GBytes) bytes = NULL;
  DownloadState *ds;
  RivClient *self;
  guint status;

  bytes = _riv_client_read_reply (_riv_client_op_get_client (op), op->msg, result, &error);
  if (_riv_client_op_client_gone (op))
    return;

  self = op->client;
  ds = g_object_get_qdata (G_OBJECT (op->job), download_state_quark ());
  g_assert (ds != NULL);
  ds->busy = FALSE;

  status = soup_message_get_status (op->msg);
  if (bytes != NULL && status == SOUP_STATUS_OK && g_bytes_get_size (bytes) > 0)
    _riv_job_set_image (op->job, bytes);
  else if (error != NULL)
    g_debug ("Image download %s failed: %s", op->url, error->message);
  else
    g_debug ("Image download %s failed: HTTP %u", op->url, status);

  if (ds->next_url != NULL)
    start_download (self, op->job, g_steal_pointer (&ds->next_url));
  else if (riv_job_is_finished (op->job))
    g_object_set_qdata (G_OBJECT (op->job), download_state_quark (), NULL);
}

/* Takes url. */
static void
start_download (RivClient *self,
                RivJob    *job,
                char      *url)
{
  DownloadState *ds = g_object_get_qdata (G_OBJECT (job), download_state_quark ());
  g_autoptr(SoupMessage) msg = NULL;
  RivClientOp *op;

  msg = soup_message_new (SOUP_METHOD_GET, url);
  if (msg == NULL)
    {
      g_debug ("Not a valid image URL: %s", url);
      g_free (url);
      return;
    }

  ds->busy = TRUE;
  op = _riv_client_op_new (self, job, msg);
  op->url = url;
  /* A recording holds the protocol, not the pictures. */
  _riv_client_send (self, msg, NULL, RIV_CLIENT_MAX_DOCUMENT_BYTES, RIV_CLIENT_SEND_UNTAPPED,
                    self->cancellable, download_cb, op);
}

/* The job is terminal: its download chain goes with it unless a download is
 * still in flight (that one's callback drops it). */
void
_riv_client_forget_download (RivJob *job)
{
  DownloadState *ds = g_object_get_qdata (G_OBJECT (job), download_state_quark ());

  if (ds != NULL && !ds->busy && ds->next_url == NULL)
    g_object_set_qdata (G_OBJECT (job), download_state_quark (), NULL);
}

/* Uploads ------------------------------------------------------------------------------ */

typedef struct
{
  RivUploadProgressFunc func;
  gpointer              data;
  guint64               sent;
  guint64               total;
} UploadProgress;

static void
upload_wrote_body_data_cb (SoupMessage *msg,
                           guint        chunk_size,
                           gpointer     user_data)
{
  UploadProgress *progress = user_data;

  progress->sent += chunk_size;
  progress->total = MAX (progress->total, progress->sent);
  progress->func (progress->sent, progress->total, progress->data);
}

static void
upload_cb (GObject      *object,
           GAsyncResult *result,
           gpointer      user_data)
{
  g_autoptr(GTask) task = user_data;
  RivClientTaskData *cd = g_task_get_task_data (task);
  RivClient *self = g_task_get_source_object (task);
  g_autoptr(GError) error = NULL;
  g_autoptr(GBytes) body = NULL;
  g_autoptr(JsonNode) root = NULL;
  const char *data;
  guint status;
  gsize len = 0;

  /* No progress after the end (the session may still hold the message). */
  g_signal_handlers_disconnect_matched (cd->msg, G_SIGNAL_MATCH_FUNC, 0, 0, NULL,
                                        upload_wrote_body_data_cb, NULL);

  body = _riv_client_read_reply (self, cd->msg, result, &error);
  if (body == NULL)
    {
      if (cd->cancel->timed_out)
        g_task_return_new_error (task, G_IO_ERROR, G_IO_ERROR_TIMED_OUT,
                                 "The upload did not finish within %g s", UPLOAD_TIMEOUT_S);
      else
        g_task_return_error (task, g_steal_pointer (&error));
      return;
    }

  status = soup_message_get_status (cd->msg);
  if (!SOUP_STATUS_IS_SUCCESSFUL (status))
    {
      g_autofree char *detail = _riv_client_extract_detail (body);

      g_task_return_new_error (task, RIV_CLIENT_ERROR,
                               status >= 500 ? RIV_CLIENT_ERROR_SERVER : RIV_CLIENT_ERROR_REJECTED,
                               "Upload failed (HTTP %u)%s%s", status,
                               detail ? ": " : "", detail ? detail : "");
      return;
    }

  data = g_bytes_get_data (body, &len);
  root = riv_json_parse (NULL, data ? data : "", len, 16, NULL);
  if (root != NULL && JSON_NODE_HOLDS_ARRAY (root) &&
      json_array_get_length (json_node_get_array (root)) > 0)
    {
      JsonNode *first = json_array_get_element (json_node_get_array (root), 0);

      if (JSON_NODE_HOLDS_VALUE (first) && json_node_get_value_type (first) == G_TYPE_STRING)
        {
          g_task_return_pointer (task, g_strdup (json_node_get_string (first)), g_free);
          return;
        }
    }

  g_task_return_new_error (task, RIV_CLIENT_ERROR, RIV_CLIENT_ERROR_PROTOCOL,
                           "The upload reply is not a list of paths");
}

void
riv_client_upload_async (RivClient           *self,
                         GBytes              *contents,
                         const char          *filename,
                         GCancellable        *cancellable,
                         GAsyncReadyCallback  callback,
                         gpointer             user_data)
{
  riv_client_upload_with_progress_async (self, contents, filename, NULL, NULL, cancellable,
                                         callback, user_data);
}

void
riv_client_upload_with_progress_async (RivClient             *self,
                                       GBytes                *contents,
                                       const char            *filename,
                                       RivUploadProgressFunc  progress,
                                       gpointer               progress_data,
                                       GCancellable          *cancellable,
                                       GAsyncReadyCallback    callback,
                                       gpointer               user_data)
{
  g_autoptr(GTask) task = NULL;
  g_autoptr(SoupMultipart) multipart = NULL;
  g_autofree char *content_type = NULL;
  g_autofree char *mime = NULL;
  RivClientTaskData *cd;

  g_return_if_fail (RIV_IS_CLIENT (self));
  g_return_if_fail (contents != NULL);

  task = g_task_new (self, cancellable, callback, user_data);
  g_task_set_source_tag (task, riv_client_upload_async);

  if (self->closed || self->config == NULL)
    {
      g_task_return_new_error (task, RIV_CLIENT_ERROR, RIV_CLIENT_ERROR_NOT_CONNECTED, "%s",
                               self->closed ? "The client was closed"
                                            : "Not connected to a server");
      return;
    }

  if (filename == NULL || *filename == '\0')
    filename = "blob";

  content_type = g_content_type_guess (filename, g_bytes_get_data (contents, NULL),
                                       g_bytes_get_size (contents), NULL);
  mime = g_content_type_get_mime_type (content_type);

  multipart = soup_multipart_new (SOUP_FORM_MIME_TYPE_MULTIPART);
  soup_multipart_append_form_file (multipart, "files", filename,
                                   mime ? mime : "application/octet-stream", contents);

  cd = g_new0 (RivClientTaskData, 1);
  cd->msg = soup_message_new_from_multipart (self->access.upload_url, multipart);
  cd->cancel = _riv_client_op_cancel_new (self, cancellable, UPLOAD_TIMEOUT_S);
  g_task_set_task_data (task, cd, (GDestroyNotify) _riv_client_task_data_free);

  if (progress != NULL)
    {
      UploadProgress *state = g_new0 (UploadProgress, 1);
      goffset length = soup_message_headers_get_content_length (
                         soup_message_get_request_headers (cd->msg));

      state->func = progress;
      state->data = progress_data;
      state->total = length > 0 ? (guint64) length : g_bytes_get_size (contents);
      /* Freed with the message, which the task holds until its callback. */
      g_signal_connect_data (cd->msg, "wrote-body-data", G_CALLBACK (upload_wrote_body_data_cb),
                             state, (GClosureNotify) (void (*) (void)) g_free, 0);
    }

  /* Recorded as a request without its body: the file's bytes are not kept. */
  _riv_client_send (self, cd->msg, NULL, RIV_CLIENT_MAX_ANSWER_BYTES, RIV_CLIENT_SEND_DEFAULT,
                    cd->cancel->cancellable, upload_cb, g_steal_pointer (&task));
}

char *
riv_client_upload_finish (RivClient     *self,
                          GAsyncResult  *result,
                          GError       **error)
{
  g_return_val_if_fail (g_task_is_valid (result, self), NULL);
  return g_task_propagate_pointer (G_TASK (result), error);
}


/* Local files (handle_file() values) in a job's inputs ---------------------------------- */

/* {"path": LOCAL, "meta": {"_type": "gradio.FileData"}} with a path that is no URL. */
static const char *
local_file_path (JsonNode *node)
{
  JsonObject *object;
  const char *path;

  if (!JSON_NODE_HOLDS_OBJECT (node))
    return NULL;
  object = json_node_get_object (node);
  if (!riv_client_is_file_data (object))
    return NULL;
  path = riv_json_get_string (object, "path");
  if (path == NULL || *path == '\0' || is_http_url (path) || g_str_has_prefix (path, "data:") ||
      is_http_url (riv_json_get_string (object, "url")))
    return NULL;
  return path;
}

/* Calls func on every local FileData object under node. */
void
_riv_client_walk_local_files (JsonNode            *node,
                              RivLocalFileFunc     func,
                              gpointer             data)
{
  const char *path;

  if (node == NULL)
    return;
  if ((path = local_file_path (node)) != NULL)
    {
      func (json_node_get_object (node), path, data);
      return;
    }
  if (JSON_NODE_HOLDS_ARRAY (node))
    {
      JsonArray *array = json_node_get_array (node);

      for (guint i = 0; i < json_array_get_length (array); i++)
        _riv_client_walk_local_files (json_array_get_element (array, i), func, data);
    }
  else if (JSON_NODE_HOLDS_OBJECT (node))
    {
      JsonObjectIter iter;
      const char *name;   /* json-glib 1.6's ordered iterator needs somewhere to put it */
      JsonNode *member;

      json_object_iter_init_ordered (&iter, json_node_get_object (node));
      while (json_object_iter_next_ordered (&iter, &name, &member))
        _riv_client_walk_local_files (member, func, data);
    }
}

static void
add_path_cb (JsonObject *object,
             const char *path,
             gpointer    data)
{
  GPtrArray *paths = data;

  if (!g_ptr_array_find_with_equal_func (paths, path, g_str_equal, NULL))
    g_ptr_array_add (paths, g_strdup (path));
}

GPtrArray *
riv_client_list_local_files (JsonNode *data)
{
  GPtrArray *paths = g_ptr_array_new_with_free_func (g_free);

  _riv_client_walk_local_files (data, add_path_cb, paths);
  return paths;
}
