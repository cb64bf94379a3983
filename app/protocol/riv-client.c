/* riv-client.c
 * Copyright 2026 The Rivulet authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * RivClient: the GObject and its public API.
 * The rest of the client lives beside it, sharing riv-client-private.h. Each
 * file calls only the files below it in this list:
 *
 *   riv-client.c          the GObject, its properties and signals, the public API
 *   riv-client-join.c     submitting: a job's uploads, then its join (queue/join, /run, or
 *                         /call/v2 through -call.c), the join watchdog, cancel and reset
 *   riv-client-call.c     the other transport: Gradio 6.13's /call/v2, one stream per job
 *   riv-client-stream.c   the SSE stream: reading, pacing, dispatch, reconnect, liveness;
 *                         and acting on what a job's update changed, for every transport
 *   riv-client-connect.c  connecting: the URL normalised, GET /config, GET /info (beside
 *                         the transports: it calls -request.c and -tls.c only)
 *   riv-client-files.c    image downloads, uploads, the local files in a job's inputs,
 *                         where a FileData is fetched from
 *   riv-client-jobs.c     a job's client-side state, pure: applying messages, publishing,
 *                         ending; it returns what changed and calls no transport
 *   riv-client-request.c  timers, cancellation, one-shot requests and their replies
 *   riv-client-tls.c      which HTTPS servers are trusted, and why one was refused
 *   riv-client-tap.c      the tap: every request, reply and frame, for recording and lint
 *
 * The one call up the list: every file may call riv-client.c's notifications
 * and signals (_riv_client_notify_*, _riv_client_emit_*, _riv_client_set_*),
 * which only tell the object's listeners. Beside them, not part of the order:
 *
 *   riv-early-buffer.c    messages for event ids no join reply has named yet
 *   riv-batch-infer.c     batches inferred from runs of process_starts
 *
 * How the client keeps the three invariants of ARCHITECTURE.md:
 *
 * - Early close: every SSE chunk is fed to the reader and each complete
 *   event is parsed and applied to its job synchronously, in arrival order,
 *   inside the read callback. close_stream only sets a flag that is looked at
 *   after the whole chunk was dispatched; nothing is ever deferred to an idle
 *   (riv-client-stream.c).
 *
 * - Lost completions: a message for an event id that no join reply has named
 *   yet is kept in a bounded per-id buffer (riv-early-buffer.c) and replayed,
 *   in order, the moment the join reply registers the id (riv-client-join.c).
 *   After close_stream or an EOF, a new GET is issued at once while any job
 *   is still in flight (the server keeps the session's FIFO across
 *   connections). Every job ends: join replies are bounded by "join-timeout",
 *   silent streams by "liveness-timeout", and a stream that cannot be
 *   reopened marks its jobs lost.
 *
 * - Nothing blocks: all I/O is async on the client's GMainContext.
 */
#include "config.h"

#include <string.h>

#include "riv-client-private.h"
#include "riv-compat.h"
#include "riv-listen.h"

G_DEFINE_QUARK (riv-client-error-quark, riv_client_error)

enum {
  PROP_0,
  PROP_URL,
  PROP_TOKEN,
  PROP_CONFIG,
  PROP_STREAM_STATE,
  PROP_JOBS,
  PROP_LIVENESS_TIMEOUT,
  PROP_JOIN_TIMEOUT,
  PROP_SESSION_HASH,
  PROP_N_PENDING,
  PROP_N_JOINING,
  PROP_DOWNLOAD_IMAGES,
  PROP_JOIN_KEEP_ALIVE,
  PROP_IO_PRIORITY,
  PROP_PUBLISH_INTERVAL,
  N_PROPS
};

enum {
  SIGNAL_JOB_FINISHED,
  SIGNAL_STREAM_ERROR,
  N_SIGNALS
};

G_DEFINE_FINAL_TYPE (RivClient, riv_client, G_TYPE_OBJECT)

static GParamSpec *properties[N_PROPS];
static guint signals[N_SIGNALS];

void
_riv_client_set_stream_state (RivClient      *self,
                              RivStreamState  state)
{
  if (self->sse.state == state)
    return;
  self->sse.state = state;
  if (!self->disposing)
    g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_STREAM_STATE]);
}

static char *
generate_session_hash (void)
{
  static const char digits[] = "0123456789abcdefghijklmnopqrstuvwxyz";
  char hash[12];

  for (guint i = 0; i < 11; i++)
    hash[i] = digits[g_random_int_range (0, 36)];
  hash[11] = '\0';
  return g_strdup (hash);
}

void
_riv_client_notify_n_pending (RivClient *self)
{
  if (!self->disposing)
    g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_N_PENDING]);
}

void
_riv_client_notify_n_joining (RivClient *self)
{
  if (!self->disposing)
    g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_N_JOINING]);
}

void
_riv_client_emit_job_finished (RivClient *self,
                               RivJob    *job)
{
  if (!self->disposing)
    g_signal_emit (self, signals[SIGNAL_JOB_FINISHED], 0, job);
}

void
_riv_client_emit_stream_error (RivClient  *self,
                               const char *text)
{
  if (!self->disposing)
    g_signal_emit (self, signals[SIGNAL_STREAM_ERROR], 0, text);
}

void
_riv_client_set_config (RivClient *self,
                        RivConfig *config)
{
  g_autofree char *data = NULL;
  g_autofree char *escaped = NULL;

  g_clear_pointer (&self->config, riv_config_unref);
  self->config = riv_config_ref (config);

  self->jobs.infer_batches = FALSE;
  self->jobs.batch_max = 0;
  for (guint i = 0; i < riv_config_get_n_endpoints (config); i++)
    {
      RivEndpoint *ep = riv_config_get_endpoint (config, i);

      if (ep->batch)
        {
          self->jobs.infer_batches = TRUE;
          self->jobs.batch_max = MAX (self->jobs.batch_max, ep->max_batch_size);
        }
    }

  g_free (self->access.join_url);
  self->access.join_url = riv_config_build_url (config, "/queue/join");
  g_free (self->access.cancel_url);
  self->access.cancel_url = riv_config_build_url (config, "/cancel");
  g_free (self->access.reset_url);
  self->access.reset_url = riv_config_build_url (config, "/reset");
  g_free (self->access.upload_url);
  self->access.upload_url = riv_config_build_url (config, "/upload");
  data = riv_config_build_url (config, "/queue/data");
  escaped = g_uri_escape_string (self->access.session_hash, NULL, FALSE);
  g_free (self->access.data_url);
  self->access.data_url = g_strconcat (data, "?session_hash=", escaped, NULL);

  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_CONFIG]);
}

/* GObject ------------------------------------------------------------------------------ */

static void
riv_client_constructed (GObject *object)
{
  RivClient *self = RIV_CLIENT (object);
  char *normalized;

  G_OBJECT_CLASS (riv_client_parent_class)->constructed (object);

  normalized = riv_client_normalize_url (self->access.url, NULL);
  if (normalized != NULL)
    {
      g_free (self->access.url);
      self->access.url = normalized;
    }

  /* A server on this machine is never reached through a proxy, and asking
   * the system's proxy resolver (libproxy) costs a thread hop and several
   * lookups for every new connection: with virtual users, whose joins each
   * open one, that was a tenth of the client's time. */
  if (riv_url_is_loopback (self->access.url))
    soup_session_set_proxy_resolver (self->session, NULL);
}

static void
riv_client_dispose (GObject *object)
{
  RivClient *self = RIV_CLIENT (object);

  self->disposing = TRUE;
  riv_client_close (self);

  G_OBJECT_CLASS (riv_client_parent_class)->dispose (object);
}

static void
riv_client_finalize (GObject *object)
{
  RivClient *self = RIV_CLIENT (object);

  g_assert (self->sse.stream == NULL);

  g_clear_pointer (&self->jobs.early, riv_early_buffer_free);
  riv_batch_infer_clear (&self->jobs.batch);
  g_clear_pointer (&self->jobs.by_event, g_hash_table_unref);
  g_clear_pointer (&self->join.uploads, g_hash_table_unref);
  g_clear_object (&self->jobs.list);
  g_clear_object (&self->session);
  g_clear_object (&self->cancellable);
  g_clear_pointer (&self->sse.poller, riv_poller_unref);
  g_clear_pointer (&self->context, g_main_context_unref);
  g_clear_pointer (&self->config, riv_config_unref);
  g_free (self->access.url);
  g_free (self->access.token);
  g_free (self->access.hf_token);
  g_free (self->access.auth_user);
  if (self->access.auth_password != NULL)
    memset (self->access.auth_password, 0, strlen (self->access.auth_password));
  g_free (self->access.auth_password);
  g_free (self->access.auth_cookie);
  g_clear_object (&self->access.tls_database);
  g_free (self->access.session_hash);
  g_free (self->access.join_url);
  g_free (self->access.data_url);
  g_free (self->access.cancel_url);
  g_free (self->access.reset_url);
  g_free (self->access.upload_url);

  G_OBJECT_CLASS (riv_client_parent_class)->finalize (object);
}

static void
riv_client_get_property (GObject    *object,
                         guint       prop_id,
                         GValue     *value,
                         GParamSpec *pspec)
{
  RivClient *self = RIV_CLIENT (object);

  switch (prop_id)
    {
    case PROP_URL:
      g_value_set_string (value, self->access.url);
      break;
    case PROP_TOKEN:
      g_value_set_string (value, self->access.token);
      break;
    case PROP_CONFIG:
      g_value_set_boxed (value, self->config);
      break;
    case PROP_STREAM_STATE:
      g_value_set_enum (value, self->sse.state);
      break;
    case PROP_JOBS:
      g_value_set_object (value, self->jobs.list);
      break;
    case PROP_LIVENESS_TIMEOUT:
      g_value_set_double (value, self->sse.liveness_timeout);
      break;
    case PROP_JOIN_TIMEOUT:
      g_value_set_double (value, self->join.timeout);
      break;
    case PROP_SESSION_HASH:
      g_value_set_string (value, self->access.session_hash);
      break;
    case PROP_N_PENDING:
      g_value_set_uint (value, self->jobs.n_pending);
      break;
    case PROP_N_JOINING:
      g_value_set_uint (value, self->join.n_joining);
      break;
    case PROP_DOWNLOAD_IMAGES:
      g_value_set_boolean (value, self->download_images);
      break;
    case PROP_JOIN_KEEP_ALIVE:
      g_value_set_boolean (value, self->join.keep_alive);
      break;

    case PROP_IO_PRIORITY:
      g_value_set_int (value, self->io_priority);
      break;

    case PROP_PUBLISH_INTERVAL:
      g_value_set_double (value, self->jobs.publish_interval);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
riv_client_set_property (GObject      *object,
                         guint         prop_id,
                         const GValue *value,
                         GParamSpec   *pspec)
{
  RivClient *self = RIV_CLIENT (object);

  switch (prop_id)
    {
    case PROP_URL:
      self->access.url = g_value_dup_string (value);
      break;
    case PROP_TOKEN:
      riv_client_set_token (self, g_value_get_string (value));
      break;
    case PROP_LIVENESS_TIMEOUT:
      riv_client_set_liveness_timeout (self, g_value_get_double (value));
      break;
    case PROP_JOIN_TIMEOUT:
      riv_client_set_join_timeout (self, g_value_get_double (value));
      break;
    case PROP_DOWNLOAD_IMAGES:
      riv_client_set_download_images (self, g_value_get_boolean (value));
      break;
    case PROP_JOIN_KEEP_ALIVE:
      riv_client_set_join_keep_alive (self, g_value_get_boolean (value));
      break;

    case PROP_IO_PRIORITY:
      riv_client_set_io_priority (self, g_value_get_int (value));
      break;

    case PROP_PUBLISH_INTERVAL:
      riv_client_set_publish_interval (self, g_value_get_double (value));
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
riv_client_class_init (RivClientClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->constructed = riv_client_constructed;
  object_class->dispose = riv_client_dispose;
  object_class->finalize = riv_client_finalize;
  object_class->get_property = riv_client_get_property;
  object_class->set_property = riv_client_set_property;

  properties[PROP_URL] =
    g_param_spec_string ("url", NULL, NULL, NULL,
                         G_PARAM_READWRITE | G_PARAM_CONSTRUCT_ONLY | G_PARAM_STATIC_STRINGS);
  properties[PROP_TOKEN] =
    g_param_spec_string ("token", NULL, NULL, NULL,
                         G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  properties[PROP_CONFIG] =
    g_param_spec_boxed ("config", NULL, NULL, RIV_TYPE_CONFIG,
                        G_PARAM_READABLE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  properties[PROP_STREAM_STATE] =
    g_param_spec_enum ("stream-state", NULL, NULL, RIV_TYPE_STREAM_STATE, RIV_STREAM_STATE_IDLE,
                       G_PARAM_READABLE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  properties[PROP_JOBS] =
    g_param_spec_object ("jobs", NULL, NULL, G_TYPE_LIST_MODEL,
                         G_PARAM_READABLE | G_PARAM_STATIC_STRINGS);
  properties[PROP_LIVENESS_TIMEOUT] =
    g_param_spec_double ("liveness-timeout", NULL, NULL, 0, G_MAXDOUBLE, 45,
                         G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  properties[PROP_JOIN_TIMEOUT] =
    g_param_spec_double ("join-timeout", NULL, NULL, 0, G_MAXDOUBLE, 60,
                         G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  properties[PROP_SESSION_HASH] =
    g_param_spec_string ("session-hash", NULL, NULL, NULL,
                         G_PARAM_READABLE | G_PARAM_STATIC_STRINGS);
  properties[PROP_N_PENDING] =
    g_param_spec_uint ("n-pending", NULL, NULL, 0, G_MAXUINT, 0,
                       G_PARAM_READABLE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  /* Jobs whose join request has no reply yet. */
  properties[PROP_N_JOINING] =
    g_param_spec_uint ("n-joining", NULL, NULL, 0, G_MAXUINT, 0,
                       G_PARAM_READABLE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  properties[PROP_DOWNLOAD_IMAGES] =
    g_param_spec_boolean ("download-images", NULL, NULL, TRUE,
                          G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);

  /* FALSE: every join asks the server to close its connection once answered
   * (a virtual user, which has one join at a time, then holds no idle
   * connection besides its stream). TRUE: a burst's joins share a few
   * kept-alive connections. */
  properties[PROP_JOIN_KEEP_ALIVE] =
    g_param_spec_boolean ("join-keep-alive", NULL, NULL, TRUE,
                          G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);

  /* A GUI sets this below GDK's redraw priority, so that a burst's replies
   * never starve drawing; headless tools keep the default for throughput. */
  properties[PROP_IO_PRIORITY] =
    g_param_spec_int ("io-priority", NULL, NULL, G_MININT, G_MAXINT, G_PRIORITY_DEFAULT,
                      G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);

  properties[PROP_PUBLISH_INTERVAL] =
    g_param_spec_double ("publish-interval", NULL, NULL, 0, 10, 0.02,
                         G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);

  g_object_class_install_properties (object_class, N_PROPS, properties);

  signals[SIGNAL_JOB_FINISHED] =
    g_signal_new ("job-finished", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST,
                  0, NULL, NULL, NULL, G_TYPE_NONE, 1, RIV_TYPE_JOB);
  signals[SIGNAL_STREAM_ERROR] =
    g_signal_new ("stream-error", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST,
                  0, NULL, NULL, NULL, G_TYPE_NONE, 1, G_TYPE_STRING);
}

static void
riv_client_init (RivClient *self)
{
  self->context = g_main_context_ref_thread_default ();
  self->cancellable = g_cancellable_new ();
  /* "timeout" 0: an SSE stream may be quiet for long (liveness has its own
   * watchdog). "idle-timeout" 0: libsoup 3.2.3 can leave a connection's idle
   * timer running after handing the connection to the next request, and then
   * closes it under that request: with 10,000 virtual users it freed the I/O
   * of joins whose bodies were being written (use-after-free, found with an
   * AddressSanitizer build of libsoup; libsoup 3.7.1 no longer keeps the
   * dangling pointer). Without the timer nothing is closed under a request;
   * a connection the server closed while idle is seen closed before reuse. */
  self->session = soup_session_new_with_options ("timeout", 0,
                                                 "idle-timeout", 0,
                                                 "max-conns-per-host", 12,
                                                 "max-conns", 24,
                                                 "user-agent", "rivulet/" PACKAGE_VERSION,
                                                 NULL);
  self->join.keep_alive = TRUE;
  self->jobs.list = g_list_store_new (RIV_TYPE_JOB);
  self->jobs.by_event = g_hash_table_new_full (g_str_hash, g_str_equal, NULL, g_object_unref);
  self->jobs.early = riv_early_buffer_new ();
  riv_batch_infer_init (&self->jobs.batch);
  g_queue_init (&self->join.queue);
  self->access.session_hash = generate_session_hash ();
  self->sse.liveness_timeout = 45;
  self->join.timeout = 60;
  self->download_images = TRUE;
  self->io_priority = G_PRIORITY_DEFAULT;
  self->jobs.publish_interval = 0.02;
  self->sse.state = RIV_STREAM_STATE_IDLE;
}

/* Public API --------------------------------------------------------------------------- */

RivClient *
riv_client_new (const char *url)
{
  return g_object_new (RIV_TYPE_CLIENT, "url", url, NULL);
}

const char *
riv_client_get_url (RivClient *self)
{
  g_return_val_if_fail (RIV_IS_CLIENT (self), NULL);
  return self->access.url;
}

void
riv_client_set_token (RivClient  *self,
                      const char *token)
{
  g_return_if_fail (RIV_IS_CLIENT (self));

  if (token != NULL && *token == '\0')
    token = NULL;
  if (riv_set_str (&self->access.token, token))
    g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_TOKEN]);
}

void
riv_client_set_hf_token (RivClient  *self,
                         const char *token)
{
  g_return_if_fail (RIV_IS_CLIENT (self));

  riv_set_str (&self->access.hf_token, token != NULL && *token != '\0' ? token : NULL);
}

void
riv_client_set_auth (RivClient  *self,
                     const char *user,
                     const char *password)
{
  g_return_if_fail (RIV_IS_CLIENT (self));

  if (self->access.auth_password != NULL)
    memset (self->access.auth_password, 0, strlen (self->access.auth_password));
  g_clear_pointer (&self->access.auth_password, g_free);
  g_clear_pointer (&self->access.auth_user, g_free);
  /* A new login is made with the new credentials. */
  g_clear_pointer (&self->access.auth_cookie, g_free);

  if (user == NULL)
    return;
  self->access.auth_user = g_strdup (user);
  self->access.auth_password = g_strdup (password != NULL ? password : "");
}

gboolean
riv_client_set_auth_string (RivClient   *self,
                            const char  *user_password,
                            GError     **error)
{
  g_autofree char *user = NULL;
  const char *colon;

  g_return_val_if_fail (RIV_IS_CLIENT (self), FALSE);

  colon = user_password != NULL ? strchr (user_password, ':') : NULL;
  if (colon == NULL || colon == user_password)
    {
      g_set_error_literal (error, RIV_CLIENT_ERROR, RIV_CLIENT_ERROR_BAD_INPUT,
                           colon == NULL ? "A login must read USER:PASSWORD (no colon found)"
                                         : "A login must read USER:PASSWORD (the user name is empty)");
      return FALSE;
    }

  user = g_strndup (user_password, colon - user_password);
  riv_client_set_auth (self, user, colon + 1);
  return TRUE;
}

RivConfig *
riv_client_get_config (RivClient *self)
{
  g_return_val_if_fail (RIV_IS_CLIENT (self), NULL);
  return self->config;
}

/* riv_client_submit() up to its join request. */
static RivJob *
submit_job (RivClient   *self,
            const char  *endpoint,
            JsonNode    *data,
            GError     **error)
{
  g_autoptr(JsonNode) inputs = NULL;
  g_autofree char *display = NULL;
  RivEndpoint *ep;
  JsonArray *given = NULL;
  JsonArray *payload;
  RivJob *job;
  RivJobCtx *ctx;
  guint n_inputs;
  guint n_given = 0;

  if (self->closed || self->config == NULL)
    {
      g_set_error_literal (error, RIV_CLIENT_ERROR, RIV_CLIENT_ERROR_NOT_CONNECTED,
                           self->closed ? "The client was closed" : "Not connected to a server");
      return NULL;
    }

  ep = riv_config_find_endpoint (self->config, endpoint);
  if (ep == NULL)
    {
      g_set_error (error, RIV_CLIENT_ERROR, RIV_CLIENT_ERROR_NO_ENDPOINT,
                   "The server has no endpoint \"%s\"", endpoint ? endpoint : "");
      return NULL;
    }

  if (data != NULL && !JSON_NODE_HOLDS_NULL (data))
    {
      if (!JSON_NODE_HOLDS_ARRAY (data))
        {
          g_set_error_literal (error, RIV_CLIENT_ERROR, RIV_CLIENT_ERROR_BAD_INPUT,
                               "The input data must be a JSON array (one value per input)");
          return NULL;
        }
      given = json_node_get_array (data);
      n_given = json_array_get_length (given);
    }

  n_inputs = riv_endpoint_get_n_inputs (ep);
  if (n_given > n_inputs)
    {
      g_set_error (error, RIV_CLIENT_ERROR, RIV_CLIENT_ERROR_BAD_INPUT,
                   "Too many input values: the endpoint takes %u, got %u", n_inputs, n_given);
      return NULL;
    }

  /* One value per input, by position: missing ones and state inputs are null. */
  payload = json_array_sized_new (n_inputs);
  for (guint i = 0; i < n_inputs; i++)
    {
      RivComponent *component = g_ptr_array_index (ep->inputs, i);

      if (i < n_given && !(component != NULL && component->is_state))
        json_array_add_element (payload, json_node_copy (json_array_get_element (given, i)));
      else
        json_array_add_null_element (payload);
    }
  inputs = json_node_new (JSON_NODE_ARRAY);
  json_node_take_array (inputs, payload);

  display = riv_endpoint_dup_display_name (ep);
  job = _riv_job_new (++self->jobs.next_number, display, ep->fn_index, inputs);

  ctx = g_new0 (RivJobCtx, 1);
  ctx->client = self;
  ctx->job = job;
  ctx->config = riv_config_ref (self->config);
  ctx->endpoint = ep;
  _riv_job_set_owner_data (job, ctx, _riv_client_job_ctx_free);

  self->jobs.n_pending++;
  g_list_store_append (self->jobs.list, job);

  riv_job_add_timeline (job, "submitted");
  _riv_job_set_status (job, RIV_JOB_STATUS_JOINING);
  _riv_client_notify_n_pending (self);

  return job;
}

/* The job, then its join request (after its uploads with upload). */
static RivJob *
submit_and_join (RivClient   *self,
                 const char  *endpoint,
                 JsonNode    *data,
                 gboolean     upload,
                 GError     **error)
{
  RivJob *job = submit_job (self, endpoint, data, error);

  if (job != NULL && (!upload || !_riv_client_upload_job_files (self, job)))
    _riv_client_start_join (self, job);
  return job;
}

RivJob *
riv_client_submit (RivClient   *self,
                   const char  *endpoint,
                   JsonNode    *data,
                   GError     **error)
{
  g_return_val_if_fail (RIV_IS_CLIENT (self), NULL);

  return submit_and_join (self, endpoint, data, FALSE, error);
}

RivJob *
riv_client_submit_uploading (RivClient   *self,
                             const char  *endpoint,
                             JsonNode    *data,
                             GError     **error)
{
  g_return_val_if_fail (RIV_IS_CLIENT (self), NULL);

  return submit_and_join (self, endpoint, data, TRUE, error);
}

void
riv_client_cancel (RivClient *self,
                   RivJob    *job)
{
  RivJobCtx *ctx;

  g_return_if_fail (RIV_IS_CLIENT (self));
  g_return_if_fail (RIV_IS_JOB (job));

  if (riv_job_is_finished (job) || (ctx = _riv_client_job_ctx (job)) == NULL || ctx->client != self)
    return;

  /* Not joined yet: cancelled at once; the join reply, when it comes, only
   * tells the server. */
  if (!ctx->joined)
    {
      _riv_client_finish_job (self, job, RIV_JOB_STATUS_CANCELLED, NULL);
      return;
    }

  if (ctx->cancel_requested)
    return;

  ctx->cancel_requested = TRUE;
  riv_job_add_timeline (job, "cancel requested");
  _riv_client_send_cancel (self, job, riv_job_get_event_id (job));
}

void
riv_client_cancel_all (RivClient *self)
{
  g_autoptr(GPtrArray) pending = g_ptr_array_new_with_free_func (g_object_unref);
  guint n;

  g_return_if_fail (RIV_IS_CLIENT (self));

  n = g_list_model_get_n_items (G_LIST_MODEL (self->jobs.list));
  for (guint i = 0; i < n; i++)
    {
      g_autoptr(RivJob) job = g_list_model_get_item (G_LIST_MODEL (self->jobs.list), i);

      if (!riv_job_is_finished (job))
        g_ptr_array_add (pending, g_steal_pointer (&job));
    }

  for (guint i = 0; i < pending->len; i++)
    riv_client_cancel (self, g_ptr_array_index (pending, i));
}

guint
riv_client_clear_finished (RivClient *self)
{
  g_autoptr(GPtrArray) kept = g_ptr_array_new_with_free_func (g_object_unref);
  guint n, removed;

  g_return_val_if_fail (RIV_IS_CLIENT (self), 0);

  n = g_list_model_get_n_items (G_LIST_MODEL (self->jobs.list));
  for (guint i = 0; i < n; i++)
    {
      g_autoptr(RivJob) job = g_list_model_get_item (G_LIST_MODEL (self->jobs.list), i);

      if (riv_job_is_finished (job))
        {
          const char *event_id = riv_job_get_event_id (job);

          if (event_id != NULL && g_hash_table_lookup (self->jobs.by_event, event_id) == job)
            g_hash_table_remove (self->jobs.by_event, event_id);
        }
      else
        g_ptr_array_add (kept, g_steal_pointer (&job));
    }

  removed = n - kept->len;
  if (removed > 0)
    g_list_store_splice (self->jobs.list, 0, n, kept->pdata, kept->len);

  return removed;
}

GListModel *
riv_client_get_jobs (RivClient *self)
{
  g_return_val_if_fail (RIV_IS_CLIENT (self), NULL);
  return G_LIST_MODEL (self->jobs.list);
}

RivStreamState
riv_client_get_stream_state (RivClient *self)
{
  g_return_val_if_fail (RIV_IS_CLIENT (self), RIV_STREAM_STATE_IDLE);
  return self->sse.state;
}

guint
riv_client_get_n_pending (RivClient *self)
{
  g_return_val_if_fail (RIV_IS_CLIENT (self), 0);
  return self->jobs.n_pending;
}

guint
riv_client_get_n_joining (RivClient *self)
{
  g_return_val_if_fail (RIV_IS_CLIENT (self), 0);
  return self->join.n_joining;
}

const char *
riv_client_get_session_hash (RivClient *self)
{
  g_return_val_if_fail (RIV_IS_CLIENT (self), NULL);
  return self->access.session_hash;
}

void
riv_client_set_liveness_timeout (RivClient *self,
                                 double     seconds)
{
  g_return_if_fail (RIV_IS_CLIENT (self));

  seconds = MAX (seconds, 0);
  if (self->sse.liveness_timeout == seconds)
    return;

  self->sse.liveness_timeout = seconds;
  /* Restart the watchdog with the new interval. */
  _riv_client_clear_source (&self->sse.liveness_source);
  _riv_client_liveness_update (self);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_LIVENESS_TIMEOUT]);
}

void
riv_client_set_join_timeout (RivClient *self,
                             double     seconds)
{
  g_return_if_fail (RIV_IS_CLIENT (self));

  seconds = MAX (seconds, 0);
  if (self->join.timeout == seconds)
    return;

  self->join.timeout = seconds;
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_JOIN_TIMEOUT]);
}

void
riv_client_set_request_timeout (RivClient *self,
                                double     seconds)
{
  g_return_if_fail (RIV_IS_CLIENT (self));
  g_return_if_fail (seconds > 0);

  self->request_timeout = seconds;
}

void
riv_client_set_follow_root (RivClient *self,
                            gboolean   follow)
{
  g_return_if_fail (RIV_IS_CLIENT (self));

  self->access.follow_root = !!follow;
}

void
riv_client_set_io_priority (RivClient *self,
                            int        priority)
{
  g_return_if_fail (RIV_IS_CLIENT (self));

  if (self->io_priority == priority)
    return;

  /* Takes effect for operations started from now on (the next stream, the next join). */
  self->io_priority = priority;
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_IO_PRIORITY]);
}

void
riv_client_set_publish_interval (RivClient *self,
                                 double     seconds)
{
  g_return_if_fail (RIV_IS_CLIENT (self));

  seconds = CLAMP (seconds, 0, 10);
  if (self->jobs.publish_interval == seconds)
    return;

  self->jobs.publish_interval = seconds;
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_PUBLISH_INTERVAL]);
}

void
riv_client_set_download_images (RivClient *self,
                                gboolean   download)
{
  g_return_if_fail (RIV_IS_CLIENT (self));

  download = !!download;
  if (self->download_images == (guint) download)
    return;

  self->download_images = download;
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_DOWNLOAD_IMAGES]);
}

void
riv_client_set_join_keep_alive (RivClient *self,
                                gboolean   keep_alive)
{
  g_return_if_fail (RIV_IS_CLIENT (self));

  keep_alive = !!keep_alive;
  if (self->join.keep_alive == (guint) keep_alive)
    return;

  self->join.keep_alive = keep_alive;
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_JOIN_KEEP_ALIVE]);
}

void
riv_client_set_direct (RivClient *self,
                       gboolean   direct)
{
  g_return_if_fail (RIV_IS_CLIENT (self));

  self->sse.direct = !!direct;
}

gboolean
riv_client_get_direct (RivClient *self)
{
  g_return_val_if_fail (RIV_IS_CLIENT (self), FALSE);

  return self->sse.direct;
}

void
riv_client_close (RivClient *self)
{
  g_autoptr(GPtrArray) pending = g_ptr_array_new_with_free_func (g_object_unref);
  guint n;

  g_return_if_fail (RIV_IS_CLIENT (self));

  if (self->closed)
    return;

  g_object_ref (self);
  self->closed = TRUE;
  /* Closed from another context of this thread (a load run closing its users
   * from its own): what closing starts belongs to the client's. */
  g_main_context_push_thread_default (self->context);

  /* Every callback checks this first and then leaves the client alone. */
  g_cancellable_cancel (self->cancellable);

  if (self->sse.stream != NULL)
    _riv_client_stream_detach (self->sse.stream);
  _riv_client_clear_source (&self->sse.reconnect_source);
  _riv_client_clear_source (&self->sse.liveness_source);
  _riv_client_clear_source (&self->join.watchdog);
  _riv_client_clear_source (&self->jobs.publish_source);
  g_clear_pointer (&self->jobs.unpublished, g_ptr_array_unref);
  /* The joins themselves are cancelled by soup_session_abort() below, or
   * (direct ones, riv-client-direct.c) by self->cancellable above. */
  {
    GList *link;

    while ((link = g_queue_pop_head_link (&self->join.queue)) != NULL)
      ((RivClientOp *) link->data)->queued = FALSE;
  }

  n = g_list_model_get_n_items (G_LIST_MODEL (self->jobs.list));
  for (guint i = 0; i < n; i++)
    {
      g_autoptr(RivJob) job = g_list_model_get_item (G_LIST_MODEL (self->jobs.list), i);

      if (!riv_job_is_finished (job))
        g_ptr_array_add (pending, g_steal_pointer (&job));
    }
  for (guint i = 0; i < pending->len; i++)
    _riv_client_finish_job (self, g_ptr_array_index (pending, i), RIV_JOB_STATUS_CANCELLED,
                            "The client was closed");

  riv_early_buffer_clear (self->jobs.early);
  if (self->join.n_joining != 0)
    {
      self->join.n_joining = 0;
      _riv_client_notify_n_joining (self);
    }

  soup_session_abort (self->session);
  _riv_client_set_stream_state (self, RIV_STREAM_STATE_IDLE);

  g_main_context_pop_thread_default (self->context);
  g_object_unref (self);
}

guint64
riv_client_get_n_messages (RivClient *self)
{
  g_return_val_if_fail (RIV_IS_CLIENT (self), 0);
  return self->sse.n_messages;
}

guint64
riv_client_get_n_stream_bytes (RivClient *self)
{
  g_return_val_if_fail (RIV_IS_CLIENT (self), 0);
  return self->sse.n_stream_bytes;
}

/* Private ------------------------------------------------------------------------------ */

guint
_riv_client_get_n_early (RivClient *self)
{
  g_return_val_if_fail (RIV_IS_CLIENT (self), 0);
  return riv_early_buffer_get_n_messages (self->jobs.early);
}

gsize
_riv_client_get_early_bytes (RivClient *self)
{
  g_return_val_if_fail (RIV_IS_CLIENT (self), 0);
  return riv_early_buffer_get_bytes (self->jobs.early);
}

guint64
_riv_client_get_n_early_dropped (RivClient *self)
{
  g_return_val_if_fail (RIV_IS_CLIENT (self), 0);
  return riv_early_buffer_get_n_dropped (self->jobs.early);
}

guint
_riv_client_get_n_streams (RivClient *self)
{
  g_return_val_if_fail (RIV_IS_CLIENT (self), 0);
  return self->sse.n_streams;
}

void
_riv_client_connect_local_for_testing (RivClient *self,
                                       RivConfig *config)
{
  g_return_if_fail (RIV_IS_CLIENT (self));
  g_return_if_fail (config != NULL);
  g_return_if_fail (self->sse.stream == NULL);

  self->sse.local = TRUE;
  _riv_client_set_config (self, config);
}

void
riv_client_connect_like (RivClient *self,
                         RivClient *connected)
{
  g_return_if_fail (RIV_IS_CLIENT (self));
  g_return_if_fail (RIV_IS_CLIENT (connected));
  g_return_if_fail (connected->config != NULL);
  g_return_if_fail (self->sse.stream == NULL);

  riv_set_str (&self->access.token, connected->access.token);
  riv_set_str (&self->access.hf_token, connected->access.hf_token);
  riv_set_str (&self->access.auth_cookie, connected->access.auth_cookie);
  self->join.call_transport = connected->join.call_transport;
  if (connected->access.tls_database != NULL || connected->access.tls_insecure)
    riv_client_set_tls (self, connected->access.tls_database, connected->access.tls_insecure);
  _riv_client_set_config (self, connected->config);
}

RivJob *
_riv_client_submit_joined_for_testing (RivClient   *self,
                                       const char  *endpoint,
                                       JsonNode    *data,
                                       const char  *event_id,
                                       GError     **error)
{
  RivJob *job;

  g_return_val_if_fail (RIV_IS_CLIENT (self), NULL);
  g_return_val_if_fail (event_id != NULL && *event_id != '\0', NULL);

  job = submit_job (self, endpoint, data, error);
  if (job != NULL)
    _riv_client_register_event (self, job, event_id);
  return job;
}

