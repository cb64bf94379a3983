/* riv-server.c
 * Copyright 2026 The Rivulet authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The embedded server's GObject: its properties, listen and shutdown, and
 * the wiring of the job queue to sessions and files. The rest of the HTTP
 * side is in riv-server-*.c (see riv-server-private.h).
 *
 * Threads: every function here runs on the server's GMainContext. File reads,
 * writes and deletes go to a small I/O pool, demo runs to the queue's pool;
 * both report back through the inbox.
 */
#include "config.h"

#include <errno.h>
#ifdef __GLIBC__
# include <malloc.h>
#endif
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>

#include <glib/gstdio.h>

#include "riv-demo.h"
#include "riv-json.h"
#include "riv-listen.h"
#include "riv-process.h"
#include "riv-range.h"
#include "riv-server-private.h"
#include "riv-server-test.h"

#define SHUTDOWN_FLUSH_S    2.0
#define LISTEN_BACKLOG      4096

enum {
  PROP_0,
  PROP_CONCURRENCY,
  PROP_MAX_QUEUE,
  PROP_HEARTBEAT_INTERVAL,
  PROP_CLOSE_LINGER,
  PROP_MAX_BODY,
  PROP_MAX_UPLOAD,
  PROP_MAX_SESSIONS,
  PROP_SESSION_BUFFER_MAX,
  PROP_SESSION_TIMEOUT,
  PROP_MAX_FILES,
  PROP_MAX_FILE_BYTES,
  PROP_VERBOSE,
  PROP_STAMP,
  PROP_BUFFER_MAX,
  PROP_INPUT_MAX,
  PROP_SESSION_INPUT_MAX,
  PROP_READER_TIMEOUT,
  PROP_MAX_RANGES,
  PROP_HEADER_TIMEOUT,
  PROP_IDLE_TIMEOUT,
  PROP_ALLOW_ORIGINS,
  PROP_ALLOW_HOSTS,
  PROP_MAX_UPLOAD_PARTS,
  PROP_MAX_SESSION_UPLOADS,
  PROP_MAX_SESSION_UPLOAD_BYTES,
  N_PROPS
};

enum {
  BATCH_DONE,
  N_SIGNALS
};

G_DEFINE_FINAL_TYPE (RivServer, riv_server, G_TYPE_OBJECT)
G_DEFINE_QUARK (riv-server-error-quark, riv_server_error)

static GParamSpec *properties[N_PROPS];
static guint signals[N_SIGNALS];

/* Small helpers */

GSource *
_riv_server_add_timeout (RivServer   *self,
                         double       seconds,
                         GSourceFunc  func,
                         gpointer     data,
                         const char  *name)
{
  GSource *source = g_timeout_source_new ((guint) MAX (0.0, seconds * 1000.0));

  g_source_set_callback (source, func, data, NULL);
  g_source_set_name (source, name);
  g_source_attach (source, self->context);
  return source;
}

static gboolean
trim_timeout_cb (gpointer user_data)
{
  RivServer *self = user_data;

  g_clear_pointer (&self->trim_source, g_source_unref);
#ifdef __GLIBC__
  /* After a burst the allocator keeps the freed heap; an idle server should
   * go back to its size before the burst. */
  if (self->n_pending == 0)
    malloc_trim (0);
#endif
  return G_SOURCE_REMOVE;
}

/* Once nothing is pending for a second, hand freed memory back. */
void
_riv_server_schedule_trim (RivServer *self)
{
  if (self->trim_source != NULL || self->shut_down)
    return;

  self->trim_source = g_timeout_source_new_seconds (1);
  g_source_set_callback (self->trim_source, trim_timeout_cb, self, NULL);
  g_source_set_name (self->trim_source, "[rivulet] trim");
  g_source_attach (self->trim_source, self->context);
}

void
_riv_server_clear_source (GSource **source)
{
  if (*source != NULL)
    {
      g_source_destroy (*source);
      g_clear_pointer (source, g_source_unref);
    }
}

/* Queue callbacks */

static void
queue_emit_cb (gpointer  session_ptr,
               RivFrame *frame,
               gpointer  user_data)
{
  Session *session = session_ptr;

  if (!session->in_table)
    {
      riv_frame_free (frame);
      return;
    }
  _riv_server_session_push (session, frame);
}

static gboolean
queue_congested_cb (gpointer session_ptr,
                    gpointer user_data)
{
  Session *session = session_ptr;

  if (_riv_server_session_over_budget (session, 1))
    session->congested = TRUE;
  return session->congested;
}

static gpointer
queue_session_ref_cb (gpointer session)
{
  return _riv_server_session_ref (session);
}

static void
queue_session_unref_cb (gpointer session)
{
  _riv_server_session_unref (session);
}

static void
queue_file_created_cb (char     *path,
                       gsize     size,
                       gpointer  user_data)
{
  RivServer *self = user_data;

  if (self->shut_down)
    {
      g_free (path);
      return;
    }
  _riv_server_files_register (self, path, size);
}

static void
queue_file_expired_cb (const char *path,
                       gpointer    user_data)
{
  _riv_server_files_remove (user_data, path, TRUE);
}

static void
queue_batch_done_cb (const char *api_name,
                     guint       size,
                     guint64     total_items,
                     gpointer    user_data)
{
  g_signal_emit (user_data, signals[BATCH_DONE], 0, api_name, size, total_items);
}

/* A State shares its name between the endpoint's inputs and outputs
 * (riv-demo.c): the session keeps it by that name. */
static void
queue_keep_state_cb (gpointer    session,
                     guint       fn_index,
                     guint       output,
                     const char *value_json,
                     gpointer    user_data)
{
  const RivDemo *demo = riv_demo_get (fn_index);

  if (demo != NULL && output < demo->n_outputs)
    _riv_server_session_keep_state (session, fn_index, demo->outputs[output].name, value_json);
}

static const RivQueueCallbacks queue_callbacks = {
  queue_emit_cb,
  queue_congested_cb,
  queue_session_ref_cb,
  queue_session_unref_cb,
  queue_file_created_cb,
  queue_file_expired_cb,
  queue_batch_done_cb,
  queue_keep_state_cb,
};

/* GObject */

static void
riv_server_finalize (GObject *object)
{
  RivServer *self = (RivServer *) object;

  riv_server_shutdown (self);

  g_clear_pointer (&self->queue, riv_queue_free);
  g_hash_table_unref (self->sessions);
  riv_inbox_free (self->inbox);
  g_hash_table_unref (self->files);
  g_hash_table_unref (self->sockets);
  while (self->file_order.head != NULL)
    _riv_server_files_remove (self, ((FileEntry *) self->file_order.head->data)->path, FALSE);
  g_clear_object (&self->soup);
  g_clear_pointer (&self->config_json, g_bytes_unref);
  g_clear_pointer (&self->info_json, g_bytes_unref);
  g_free (self->host);
  g_strfreev (self->allow_origins);
  g_strfreev (self->allow_hosts);
  g_free (self->url);
  g_free (self->temp_dir);
  g_free (self->output_dir);
  g_free (self->upload_dir);
  g_main_context_unref (self->context);

  G_OBJECT_CLASS (riv_server_parent_class)->finalize (object);
}

static void
riv_server_get_property (GObject    *object,
                         guint       prop_id,
                         GValue     *value,
                         GParamSpec *pspec)
{
  RivServer *self = RIV_SERVER (object);

  switch (prop_id)
    {
    case PROP_CONCURRENCY:
      g_value_set_uint (value, self->concurrency);
      break;
    case PROP_MAX_QUEUE:
      g_value_set_uint (value, self->max_queue);
      break;
    case PROP_HEARTBEAT_INTERVAL:
      g_value_set_double (value, self->heartbeat_interval);
      break;
    case PROP_CLOSE_LINGER:
      g_value_set_double (value, self->close_linger);
      break;
    case PROP_MAX_BODY:
      g_value_set_uint (value, self->max_body);
      break;
    case PROP_MAX_UPLOAD:
      g_value_set_uint (value, self->max_upload);
      break;
    case PROP_MAX_SESSIONS:
      g_value_set_uint (value, self->max_sessions);
      break;
    case PROP_SESSION_BUFFER_MAX:
      g_value_set_uint (value, self->session_buffer_max);
      break;
    case PROP_SESSION_TIMEOUT:
      g_value_set_double (value, self->session_timeout);
      break;
    case PROP_MAX_FILES:
      g_value_set_uint (value, self->max_files);
      break;
    case PROP_MAX_FILE_BYTES:
      g_value_set_uint64 (value, self->max_file_bytes);
      break;
    case PROP_VERBOSE:
      g_value_set_boolean (value, self->verbose);
      break;
    case PROP_STAMP:
      g_value_set_boolean (value, riv_queue_get_stamp (self->queue));
      break;
    case PROP_BUFFER_MAX:
      g_value_set_uint64 (value, self->buffer_max);
      break;
    case PROP_INPUT_MAX:
      g_value_set_uint64 (value, self->input_max);
      break;
    case PROP_SESSION_INPUT_MAX:
      g_value_set_uint64 (value, self->session_input_max);
      break;
    case PROP_READER_TIMEOUT:
      g_value_set_double (value, self->reader_timeout);
      break;
    case PROP_MAX_RANGES:
      g_value_set_uint (value, self->max_ranges);
      break;
    case PROP_HEADER_TIMEOUT:
      g_value_set_double (value, self->header_timeout);
      break;
    case PROP_IDLE_TIMEOUT:
      g_value_set_double (value, self->idle_timeout);
      break;
    case PROP_ALLOW_ORIGINS:
      g_value_set_boxed (value, self->allow_origins);
      break;
    case PROP_ALLOW_HOSTS:
      g_value_set_boxed (value, self->allow_hosts);
      break;
    case PROP_MAX_UPLOAD_PARTS:
      g_value_set_uint (value, self->max_upload_parts);
      break;
    case PROP_MAX_SESSION_UPLOADS:
      g_value_set_uint (value, self->max_session_uploads);
      break;
    case PROP_MAX_SESSION_UPLOAD_BYTES:
      g_value_set_uint64 (value, self->max_session_upload_bytes);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
riv_server_set_property (GObject      *object,
                         guint         prop_id,
                         const GValue *value,
                         GParamSpec   *pspec)
{
  RivServer *self = RIV_SERVER (object);

  switch (prop_id)
    {
    case PROP_CONCURRENCY:
      self->concurrency = g_value_get_uint (value);
      riv_queue_set_concurrency (self->queue, self->concurrency);
      break;
    case PROP_MAX_QUEUE:
      self->max_queue = g_value_get_uint (value);
      riv_queue_set_max_waiting (self->queue, self->max_queue);
      break;
    case PROP_HEARTBEAT_INTERVAL:
      self->heartbeat_interval = g_value_get_double (value);
      _riv_server_clear_source (&self->heartbeat_source);
      _riv_server_heartbeat_start (self);
      break;
    case PROP_CLOSE_LINGER:
      self->close_linger = g_value_get_double (value);
      break;
    case PROP_MAX_BODY:
      self->max_body = g_value_get_uint (value);
      break;
    case PROP_MAX_UPLOAD:
      self->max_upload = g_value_get_uint (value);
      break;
    case PROP_MAX_SESSIONS:
      self->max_sessions = g_value_get_uint (value);
      break;
    case PROP_SESSION_BUFFER_MAX:
      self->session_buffer_max = g_value_get_uint (value);
      break;
    case PROP_SESSION_TIMEOUT:
      self->session_timeout = g_value_get_double (value);
      break;
    case PROP_MAX_FILES:
      self->max_files = g_value_get_uint (value);
      break;
    case PROP_MAX_FILE_BYTES:
      self->max_file_bytes = g_value_get_uint64 (value);
      break;
    case PROP_VERBOSE:
      self->verbose = g_value_get_boolean (value);
      riv_queue_set_verbose (self->queue, self->verbose);
      break;
    case PROP_STAMP:
      riv_queue_set_stamp (self->queue, g_value_get_boolean (value));
      break;
    case PROP_BUFFER_MAX:
      self->buffer_max = g_value_get_uint64 (value);
      break;
    case PROP_INPUT_MAX:
      self->input_max = g_value_get_uint64 (value);
      riv_queue_set_input_limits (self->queue, self->session_input_max, self->input_max);
      break;
    case PROP_SESSION_INPUT_MAX:
      self->session_input_max = g_value_get_uint64 (value);
      riv_queue_set_input_limits (self->queue, self->session_input_max, self->input_max);
      break;
    case PROP_READER_TIMEOUT:
      self->reader_timeout = g_value_get_double (value);
      break;
    case PROP_MAX_RANGES:
      self->max_ranges = g_value_get_uint (value);
      break;
    case PROP_HEADER_TIMEOUT:
      self->header_timeout = g_value_get_double (value);
      break;
    case PROP_IDLE_TIMEOUT:
      self->idle_timeout = g_value_get_double (value);
      break;
    case PROP_ALLOW_ORIGINS:
      g_strfreev (self->allow_origins);
      self->allow_origins = g_value_dup_boxed (value);
      break;
    case PROP_ALLOW_HOSTS:
      g_strfreev (self->allow_hosts);
      self->allow_hosts = g_value_dup_boxed (value);
      break;
    case PROP_MAX_UPLOAD_PARTS:
      self->max_upload_parts = g_value_get_uint (value);
      break;
    case PROP_MAX_SESSION_UPLOADS:
      self->max_session_uploads = g_value_get_uint (value);
      break;
    case PROP_MAX_SESSION_UPLOAD_BYTES:
      self->max_session_upload_bytes = g_value_get_uint64 (value);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
riv_server_class_init (RivServerClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GParamFlags flags = G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS;

  object_class->finalize = riv_server_finalize;
  object_class->get_property = riv_server_get_property;
  object_class->set_property = riv_server_set_property;

  properties[PROP_CONCURRENCY] =
    g_param_spec_uint ("concurrency", NULL, NULL, 1, 10000, 8, flags);
  properties[PROP_MAX_QUEUE] =
    g_param_spec_uint ("max-queue", NULL, NULL, 0, G_MAXUINT, 10000, flags);
  properties[PROP_HEARTBEAT_INTERVAL] =
    g_param_spec_double ("heartbeat-interval", NULL, NULL, 0, 3600, 15, flags);
  properties[PROP_CLOSE_LINGER] =
    g_param_spec_double ("close-linger", NULL, NULL, 0, 60, 0.5, flags);
  properties[PROP_MAX_BODY] =
    g_param_spec_uint ("max-body", NULL, NULL, 64, G_MAXUINT, 4 * 1024 * 1024, flags);
  properties[PROP_MAX_UPLOAD] =
    g_param_spec_uint ("max-upload", NULL, NULL, 64, G_MAXUINT, 32 * 1024 * 1024, flags);
  properties[PROP_MAX_SESSIONS] =
    g_param_spec_uint ("max-sessions", NULL, NULL, 1, G_MAXUINT, 4096, flags);
  properties[PROP_SESSION_BUFFER_MAX] =
    g_param_spec_uint ("session-buffer-max", NULL, NULL, 1024, G_MAXUINT, 64 * 1024 * 1024, flags);
  properties[PROP_SESSION_TIMEOUT] =
    g_param_spec_double ("session-timeout", NULL, NULL, 0.01, 1e7, 300, flags);
  properties[PROP_MAX_FILES] =
    g_param_spec_uint ("max-files", NULL, NULL, 1, G_MAXUINT, 1000, flags);
  properties[PROP_MAX_FILE_BYTES] =
    g_param_spec_uint64 ("max-file-bytes", NULL, NULL, 1024, G_MAXUINT64, 512 * 1024 * 1024, flags);
  properties[PROP_VERBOSE] =
    g_param_spec_boolean ("verbose", NULL, NULL, FALSE, flags);
  /* Output messages carry the time they were made ("rivulet_sent_at"). */
  properties[PROP_STAMP] =
    g_param_spec_boolean ("stamp", NULL, NULL, FALSE, flags);
  properties[PROP_BUFFER_MAX] =
    g_param_spec_uint64 ("buffer-max", NULL, NULL, 0, G_MAXUINT64, RIV_SERVER_BUFFER_MAX, flags);
  properties[PROP_INPUT_MAX] =
    g_param_spec_uint64 ("input-max", NULL, NULL, 0, G_MAXUINT64, RIV_SERVER_INPUT_MAX, flags);
  properties[PROP_SESSION_INPUT_MAX] =
    g_param_spec_uint64 ("session-input-max", NULL, NULL, 0, G_MAXUINT64,
                         RIV_SERVER_SESSION_INPUT_MAX, flags);
  properties[PROP_READER_TIMEOUT] =
    g_param_spec_double ("reader-timeout", NULL, NULL, 0.01, 1e7, RIV_SERVER_READER_TIMEOUT, flags);
  properties[PROP_MAX_RANGES] =
    g_param_spec_uint ("max-ranges", NULL, NULL, 1, RIV_RANGE_MAX, 8, flags);
  properties[PROP_HEADER_TIMEOUT] =
    g_param_spec_double ("header-timeout", NULL, NULL, 0.01, 3600, 30, flags);
  properties[PROP_IDLE_TIMEOUT] =
    g_param_spec_double ("idle-timeout", NULL, NULL, 0.01, 86400, 120, flags);
  properties[PROP_ALLOW_ORIGINS] =
    g_param_spec_boxed ("allow-origins", NULL, NULL, G_TYPE_STRV, flags);
  properties[PROP_ALLOW_HOSTS] =
    g_param_spec_boxed ("allow-hosts", NULL, NULL, G_TYPE_STRV, flags);
  properties[PROP_MAX_UPLOAD_PARTS] =
    g_param_spec_uint ("max-upload-parts", NULL, NULL, 1, G_MAXINT, 100, flags);
  properties[PROP_MAX_SESSION_UPLOADS] =
    g_param_spec_uint ("max-session-uploads", NULL, NULL, 1, G_MAXUINT, 100, flags);
  properties[PROP_MAX_SESSION_UPLOAD_BYTES] =
    g_param_spec_uint64 ("max-session-upload-bytes", NULL, NULL, 1024, G_MAXUINT64,
                         128 * 1024 * 1024, flags);
  g_object_class_install_properties (object_class, N_PROPS, properties);

  signals[BATCH_DONE] =
    g_signal_new ("batch-done", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0,
                  NULL, NULL, NULL, G_TYPE_NONE, 3,
                  G_TYPE_STRING, G_TYPE_UINT, G_TYPE_UINT64);
}

static void
riv_server_init (RivServer *self)
{
  self->context = g_main_context_ref_thread_default ();
  self->concurrency = 8;
  self->max_queue = 10000;
  self->heartbeat_interval = 15;
  self->close_linger = 0.5;
  self->max_body = 4 * 1024 * 1024;
  self->max_upload = 32 * 1024 * 1024;
  self->max_sessions = 4096;
  self->session_buffer_max = 64 * 1024 * 1024;
  self->session_timeout = 300;
  self->max_files = 1000;
  self->max_file_bytes = 512 * 1024 * 1024;
  self->buffer_max = RIV_SERVER_BUFFER_MAX;
  self->input_max = RIV_SERVER_INPUT_MAX;
  self->session_input_max = RIV_SERVER_SESSION_INPUT_MAX;
  self->reader_timeout = RIV_SERVER_READER_TIMEOUT;
  self->max_ranges = 8;
  self->header_timeout = 30;
  self->idle_timeout = 120;
  self->max_upload_parts = 100;
  self->max_session_uploads = 100;
  self->max_session_upload_bytes = 128 * 1024 * 1024;

  self->sessions = g_hash_table_new_full (g_str_hash, g_str_equal, NULL,
                                          (GDestroyNotify) _riv_server_session_unref);
  self->files = g_hash_table_new (g_str_hash, g_str_equal);
  self->sockets = g_hash_table_new_full (NULL, NULL, g_object_unref, g_free);
  self->inbox = riv_inbox_new (self->context);
  self->queue = riv_queue_new (self->context, self->inbox, riv_demo_get_run_endpoints (),
                               riv_demo_get_count (), &queue_callbacks, self);
  riv_queue_set_input_limits (self->queue, self->session_input_max, self->input_max);
  self->io_pool = g_thread_pool_new (_riv_server_io_func, self, 2, FALSE, NULL);
  self->app_id = g_random_int_range (1, G_MAXINT32);

  self->soup = soup_server_new ("server-header", "rivulet/" PACKAGE_VERSION " ",
                                "raw-paths", TRUE,
                                NULL);
  soup_server_add_handler (self->soup, NULL, _riv_server_handle_request_cb, self, NULL);
  g_signal_connect (self->soup, "request-started",
                    G_CALLBACK (_riv_server_request_started_cb), self);
  g_signal_connect (self->soup, "request-finished",
                    G_CALLBACK (_riv_server_request_done_cb), self);
  g_signal_connect (self->soup, "request-aborted",
                    G_CALLBACK (_riv_server_request_done_cb), self);
}

/* Public API */

RivServer *
riv_server_new (void)
{
  return g_object_new (RIV_TYPE_SERVER, NULL);
}

static gboolean
make_dirs (RivServer  *self,
           GError    **error)
{
  self->temp_dir = g_dir_make_tmp ("rivulet-XXXXXX", error);
  if (self->temp_dir == NULL)
    return FALSE;
  self->output_dir = g_build_filename (self->temp_dir, "outputs", NULL);
  self->upload_dir = g_build_filename (self->temp_dir, "uploads", NULL);
  if (g_mkdir (self->output_dir, 0700) != 0 || g_mkdir (self->upload_dir, 0700) != 0)
    {
      int saved = errno;

      g_set_error (error, G_IO_ERROR, g_io_error_from_errno (saved),
                   "Could not create %s: %s", self->output_dir, g_strerror (saved));
      return FALSE;
    }
  return TRUE;
}

/* soup_server_listen() leaves GSocket's default backlog of 10, and a burst of
 * a few hundred joins on fresh connections then gets connections reset. */
static gboolean
listen_with_backlog (RivServer       *self,
                     GSocketAddress  *address,
                     guint           *port,
                     GError         **error)
{
  g_autoptr(GSocket) socket = riv_listen_socket (address, LISTEN_BACKLOG, port, error);

  if (socket == NULL)
    return FALSE;
  return soup_server_listen_socket (self->soup, socket, 0, error);
}

gboolean
riv_server_listen (RivServer   *self,
                   const char  *host,
                   guint        port,
                   GError     **error)
{
  g_autoptr(GInetAddress) address = NULL;
  g_autoptr(GSocketAddress) socket_address = NULL;
  g_autoptr(GError) local_error = NULL;
  gboolean pushed = FALSE;
  gboolean ok;

  g_return_val_if_fail (RIV_IS_SERVER (self), FALSE);

  if (self->listening || self->shut_down)
    {
      g_set_error_literal (error, RIV_SERVER_ERROR, RIV_SERVER_ERROR_LISTEN,
                           self->shut_down ? "The server was shut down" : "Already listening");
      return FALSE;
    }
  if (port > 65535)
    {
      g_set_error (error, RIV_SERVER_ERROR, RIV_SERVER_ERROR_LISTEN, "Invalid port %u", port);
      return FALSE;
    }

  if (host == NULL || g_str_equal (host, "localhost"))
    host = "127.0.0.1";
  address = g_inet_address_new_from_string (host);
  if (address == NULL)
    {
      g_set_error (error, RIV_SERVER_ERROR, RIV_SERVER_ERROR_LISTEN,
                   "Invalid host \"%s\": give an IP address", host);
      return FALSE;
    }
  socket_address = g_inet_socket_address_new (address, port);

  if (g_main_context_get_thread_default () != self->context &&
      !(self->context == g_main_context_default () && g_main_context_get_thread_default () == NULL))
    {
      g_main_context_push_thread_default (self->context);
      pushed = TRUE;
    }
  riv_raise_fd_limit ();
  ok = listen_with_backlog (self, socket_address, &self->port, &local_error);
  if (pushed)
    g_main_context_pop_thread_default (self->context);
  if (!ok)
    {
      g_set_error (error, RIV_SERVER_ERROR, RIV_SERVER_ERROR_LISTEN,
                   "Could not listen on %s:%u: %s", host, port, local_error->message);
      return FALSE;
    }

  self->host = g_strdup (host);
  if (g_inet_address_get_family (address) == G_SOCKET_FAMILY_IPV6)
    self->url = g_strdup_printf ("http://[%s]:%u", host, self->port);
  else
    self->url = g_strdup_printf ("http://%s:%u", host, self->port);

  if (!make_dirs (self, error))
    {
      soup_server_disconnect (self->soup);
      return FALSE;
    }
  riv_queue_set_output (self->queue, self->output_dir, self->url);

  {
    g_autoptr(JsonNode) config = riv_demo_build_config (self->app_id, self->max_upload);
    g_autoptr(JsonNode) info = riv_demo_build_info ();
    gsize len;
    char *json;

    json = riv_json_to_string (config, &len);
    self->config_json = g_bytes_new_take (json, len);
    json = riv_json_to_string (info, &len);
    self->info_json = g_bytes_new_take (json, len);
  }

  self->sweep_source = _riv_server_add_timeout (self,
                                                CLAMP (MIN (self->session_timeout,
                                                            self->reader_timeout) / 4, 0.05, 5.0),
                                                _riv_server_session_sweep_cb, self,
                                                "[rivulet] session sweep");
  self->conn_sweep = _riv_server_add_timeout (self, CONN_SWEEP_S, _riv_server_conn_sweep_cb, self,
                                              "[rivulet] connection sweep");
  self->listening = TRUE;
  return TRUE;
}

guint
riv_server_get_port (RivServer *self)
{
  g_return_val_if_fail (RIV_IS_SERVER (self), 0);
  return self->port;
}

char *
riv_server_dup_url (RivServer *self)
{
  g_return_val_if_fail (RIV_IS_SERVER (self), NULL);
  return g_strdup (self->url);
}

static void
remove_tree (const char *path)
{
  g_autoptr(GDir) dir = NULL;
  const char *name;

  dir = g_dir_open (path, 0, NULL);
  if (dir != NULL)
    while ((name = g_dir_read_name (dir)) != NULL)
      {
        g_autofree char *child = g_build_filename (path, name, NULL);
        GStatBuf st;

        /* lstat: never descend through a symlink. */
        if (g_lstat (child, &st) == 0 && S_ISDIR (st.st_mode))
          remove_tree (child);
        else
          g_unlink (child);
      }
  g_rmdir (path);
}

static gboolean
flag_timeout_cb (gpointer user_data)
{
  *(gboolean *) user_data = TRUE;
  return G_SOURCE_CONTINUE;
}

void
riv_server_shutdown (RivServer *self)
{
  g_autoptr(GPtrArray) sessions = NULL;

  g_return_if_fail (RIV_IS_SERVER (self));

  if (self->shut_down)
    return;
  self->shut_down = TRUE;

  _riv_server_clear_source (&self->sweep_source);
  _riv_server_clear_source (&self->trim_source);
  _riv_server_clear_source (&self->conn_sweep);
  _riv_server_clear_source (&self->heartbeat_source);

  /* 1. Every live event gets a failure completion in its session FIFO;
   *    the workers stop at their next step and are joined. */
  riv_queue_shutdown (self->queue);

  /* 2. Attached streams write everything they have, then close_stream. */
  sessions = g_ptr_array_new ();
  for (GList *l = self->session_lru.head; l != NULL; l = l->next)
    g_ptr_array_add (sessions, l->data);
  for (guint i = 0; i < sessions->len; i++)
    {
      Session *session = g_ptr_array_index (sessions, i);

      _riv_server_clear_source (&session->linger);
      if (session->stream != NULL)
        _riv_server_stream_end (session->stream);
    }
  for (GList *l = self->streams.head; l != NULL; l = l->next)
    _riv_server_stream_end (l->data);

  /* 3. Finish the file work in flight, answering its requests. */
  if (self->io_pool != NULL)
    {
      g_thread_pool_free (self->io_pool, FALSE, TRUE);
      self->io_pool = NULL;
    }
  riv_inbox_flush (self->inbox, FALSE);

  /* 4. Give the streams a moment to reach their clients: this runs the
   *    server's context (bounded), so call it where that is allowed. */
  if (self->listening && self->streams.length > 0 && g_main_context_acquire (self->context))
    {
      gboolean timed_out = FALSE;
      GSource *timer = _riv_server_add_timeout (self, SHUTDOWN_FLUSH_S, flag_timeout_cb, &timed_out,
                                                "[rivulet] shutdown flush");

      while (self->streams.length > 0 && !timed_out)
        g_main_context_iteration (self->context, TRUE);
      _riv_server_clear_source (&timer);
      g_main_context_release (self->context);
    }

  /* 5. Stop listening and drop the connections that are left. */
  while (self->streams.head != NULL)
    {
      Stream *stream = self->streams.head->data;

      stream->ended = TRUE;
      _riv_server_stream_detach (stream);
      _riv_server_stream_free (stream);
    }
  soup_server_disconnect (self->soup);

  for (guint i = 0; i < sessions->len; i++)
    _riv_server_session_drop (g_ptr_array_index (sessions, i));

  /* 6. Remove the files. */
  while (self->file_order.head != NULL)
    _riv_server_files_remove (self, ((FileEntry *) self->file_order.head->data)->path, FALSE);
  if (self->temp_dir != NULL)
    remove_tree (self->temp_dir);
}

guint
riv_server_get_n_sessions (RivServer *self)
{
  g_return_val_if_fail (RIV_IS_SERVER (self), 0);
  return g_hash_table_size (self->sessions);
}

guint
riv_server_get_n_pending (RivServer *self)
{
  g_return_val_if_fail (RIV_IS_SERVER (self), 0);
  return self->n_pending;
}

guint64
riv_server_get_n_completed (RivServer *self)
{
  g_return_val_if_fail (RIV_IS_SERVER (self), 0);
  return self->n_completed;
}

guint
riv_server_get_n_running (RivServer *self)
{
  g_return_val_if_fail (RIV_IS_SERVER (self), 0);
  return self->queue != NULL ? riv_queue_get_n_running (self->queue) : 0;
}

const char *
riv_server_get_temp_dir (RivServer *self)
{
  g_return_val_if_fail (RIV_IS_SERVER (self), NULL);
  return self->temp_dir;
}

guint64
riv_server_get_buffered_bytes (RivServer *self)
{
  g_return_val_if_fail (RIV_IS_SERVER (self), 0);
  return self->buffered_bytes;
}

guint64
riv_server_get_input_bytes (RivServer *self)
{
  g_return_val_if_fail (RIV_IS_SERVER (self), 0);
  return riv_queue_get_input_bytes (self->queue, NULL);
}

guint
riv_server_get_n_files (RivServer *self)
{
  g_return_val_if_fail (RIV_IS_SERVER (self), 0);
  return g_hash_table_size (self->files);
}
