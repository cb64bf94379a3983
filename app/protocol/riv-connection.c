/* riv-connection.c
 * Copyright 2026 The Rivulet authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * RivConnection: the connected client and the attempt that may replace it.
 * An attempt is at most two steps, each under one cancellable: a Space's
 * name asked of the Hub (RESOLVING), then a new client's connect
 * (CONNECTING). Each step's callback first checks that it is still the
 * attempt under way (a newer one, or a cancel, drops it) before it touches
 * the object.
 */
#include "config.h"

#include "riv-compat.h"
#include "riv-connection.h"
#include "riv-core-enums.h"
#include "riv-space.h"

struct _RivConnection
{
  GObject             parent_instance;

  /* The connected client and what it was connected with */
  RivClient          *client;             /* nullable */
  char               *url;                /* nullable: of client */
  char               *token;              /* nullable */
  char               *space_id;           /* nullable: the Space (by name) of url */
  char               *hf_token;           /* nullable: space_id's */
  RivConfig          *config;             /* nullable: client's */
  GPtrArray          *endpoints;          /* RivEndpoint*, borrowed from config */
  gboolean            embedded;

  /* The attempt under way (or the last one) */
  RivConnectionState  state;
  RivClient          *pending_client;     /* nullable: being connected */
  GCancellable       *cancellable;        /* nullable: of the attempt under way */
  char               *pending_url;        /* nullable */
  char               *pending_token;      /* nullable */
  char               *pending_space_id;   /* nullable: the Space being connected to */
  char               *pending_hf_token;   /* nullable: pending_space_id's, for its app */
  gboolean            pending_embedded;
  GError             *error;              /* nullable: the last attempt's */

  char               *embedded_url;       /* nullable: given by the server's owner */
};

G_DEFINE_FINAL_TYPE (RivConnection, riv_connection, G_TYPE_OBJECT)

enum
{
  PROP_0,
  PROP_STATE,
  PROP_CLIENT,
  PROP_PENDING_URL,
  N_PROPS
};

enum
{
  SIGNAL_PREPARE_CLIENT,
  SIGNAL_CONNECTED,
  SIGNAL_FAILED,
  SIGNAL_SPACE_PROGRESS,
  N_SIGNALS
};

static GParamSpec *properties[N_PROPS];
static guint signals[N_SIGNALS];

static void connect_url (RivConnection *self,
                         const char    *url,
                         const char    *token,
                         gboolean       embedded);

static void
set_state (RivConnection      *self,
           RivConnectionState  state)
{
  self->state = state;
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_STATE]);
}

/* Drops the attempt under way; its callbacks then leave the object alone
 * (the client being connected closes itself there). Not notified. */
static void
drop_attempt (RivConnection *self)
{
  if (self->cancellable != NULL)
    g_cancellable_cancel (self->cancellable);
  g_clear_object (&self->cancellable);
  g_clear_object (&self->pending_client);
  self->state = RIV_CONNECTION_STATE_IDLE;
}

static void
fail (RivConnection *self,
      const GError  *error)
{
  g_clear_error (&self->error);
  self->error = g_error_copy (error);
  set_state (self, RIV_CONNECTION_STATE_IDLE);
  g_signal_emit (self, signals[SIGNAL_FAILED], 0, error);
}

/* A failure before any client was made: what was typed is not kept. */
static void
fail_early (RivConnection *self,
            const GError  *error)
{
  fail (self, error);
  g_clear_pointer (&self->pending_url, g_free);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_PENDING_URL]);
}

static void
set_config (RivConnection *self,
            RivConfig     *config)
{
  g_clear_pointer (&self->config, riv_config_unref);
  self->config = config != NULL ? riv_config_ref (config) : NULL;
  self->endpoints = g_ptr_array_new ();

  for (guint i = 0; config != NULL && i < riv_config_get_n_endpoints (config); i++)
    {
      RivEndpoint *endpoint = riv_config_get_endpoint (config, i);

      /* Private endpoints cannot be called from outside; a render endpoint
       * can, though Gradio 4 and 5 hide it from the API (show_api false). */
      if (!endpoint->is_public && !endpoint->renders)
        continue;
      g_ptr_array_add (self->endpoints, endpoint);
    }
}

/* The new client in, the old one closed once the owner has let go of it
 * (in "connected"), with the config its widgets may still borrow from. */
static void
take_client (RivConnection *self,
             RivClient     *client)
{
  g_autoptr(RivClient) old = g_steal_pointer (&self->client);
  GPtrArray *old_endpoints = g_steal_pointer (&self->endpoints);
  RivConfig *old_config = g_steal_pointer (&self->config);

  self->client = g_object_ref (client);
  riv_set_str (&self->url, self->pending_url);
  g_clear_pointer (&self->pending_url, g_free);
  riv_set_str (&self->token, self->pending_token);
  riv_set_str (&self->space_id, self->pending_space_id);
  riv_set_str (&self->hf_token, self->pending_hf_token);
  self->embedded = self->pending_embedded;
  set_config (self, riv_client_get_config (client));
  g_clear_error (&self->error);

  set_state (self, RIV_CONNECTION_STATE_IDLE);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_PENDING_URL]);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_CLIENT]);
  g_signal_emit (self, signals[SIGNAL_CONNECTED], 0, client);

  if (old != NULL)
    riv_client_close (old);
  g_clear_pointer (&old_endpoints, g_ptr_array_unref);
  g_clear_pointer (&old_config, riv_config_unref);
}

static void
connect_cb (GObject      *object,
            GAsyncResult *result,
            gpointer      user_data)
{
  g_autoptr(RivConnection) self = user_data;
  g_autoptr(RivClient) client = RIV_CLIENT (g_object_ref (object));
  g_autoptr(GError) error = NULL;
  gboolean connected = riv_client_connect_finish (client, result, &error);

  if (client != self->pending_client ||
      g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
    {
      riv_client_close (client);
      return;
    }

  g_clear_object (&self->pending_client);
  g_clear_object (&self->cancellable);
  if (!connected)
    {
      /* pending_url stays: the owner names it, a login may retry it. */
      riv_client_close (client);
      fail (self, error);
      return;
    }
  take_client (self, client);
}

static void
connect_url (RivConnection *self,
             const char    *url,
             const char    *token,
             gboolean       embedded)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *normalized = NULL;

  drop_attempt (self);
  riv_set_str (&self->pending_url, url);
  g_clear_error (&self->error);
  if (embedded)
    {
      g_clear_pointer (&self->pending_space_id, g_free);
      g_clear_pointer (&self->pending_hf_token, g_free);
    }

  if (!(normalized = riv_client_normalize_url (url, &error)))
    {
      if (error == NULL)
        g_set_error_literal (&error, RIV_CLIENT_ERROR, RIV_CLIENT_ERROR_BAD_URL, "bad URL");
      /* pending_url is url here: the error's owner names what was typed. */
      fail_early (self, error);
      return;
    }

  riv_set_str (&self->pending_url, normalized);
  self->pending_embedded = embedded;
  riv_set_str (&self->pending_token, token);

  self->pending_client = riv_client_new (normalized);
  if (token != NULL && *token != '\0')
    riv_client_set_token (self->pending_client, token);
  riv_client_set_hf_token (self->pending_client, self->pending_hf_token);
  g_signal_emit (self, signals[SIGNAL_PREPARE_CLIENT], 0, self->pending_client);
  self->cancellable = g_cancellable_new ();

  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_PENDING_URL]);
  set_state (self, RIV_CONNECTION_STATE_CONNECTING);
  riv_client_connect_async (self->pending_client, self->cancellable, connect_cb,
                            g_object_ref (self));
}

/* A Hugging Face Space by name ------------------------------------------------------ */

static void
space_progress_cb (const char *stage,
                   const char *message,
                   gpointer    user_data)
{
  RivConnection *self = user_data;

  if (self->state == RIV_CONNECTION_STATE_RESOLVING)
    g_signal_emit (self, signals[SIGNAL_SPACE_PROGRESS], 0, stage, message);
}

static void
space_resolved_cb (GObject      *object,
                   GAsyncResult *result,
                   gpointer      user_data)
{
  g_autoptr(RivConnection) self = user_data;
  g_autoptr(GError) error = NULL;
  g_autofree char *hf_token = NULL;
  g_autofree char *host = riv_space_resolve_finish (result, &hf_token, &error);

  if (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED) ||
      self->state != RIV_CONNECTION_STATE_RESOLVING)
    return;
  g_clear_object (&self->cancellable);
  if (host == NULL)
    {
      fail_early (self, error);
      return;
    }
  riv_set_str (&self->pending_hf_token, hf_token);
  connect_url (self, host, NULL, FALSE);
}

/* text names a Space: the Hub is asked where its app is; token is the
 * Hugging Face token, else HF_TOKEN or the token file. */
static void
connect_space (RivConnection *self,
               const char    *text,
               const char    *token)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *hub = NULL;
  g_autofree char *id = NULL;

  drop_attempt (self);
  riv_set_str (&self->pending_url, text);
  self->pending_embedded = FALSE;
  g_clear_pointer (&self->pending_hf_token, g_free);
  g_clear_error (&self->error);

  if ((hub = riv_space_hub_from_env (&error)) == NULL ||
      (id = riv_space_parse_id (text, hub, &error)) == NULL)
    {
      fail_early (self, error);
      return;
    }
  riv_set_str (&self->pending_space_id, id);
  g_clear_pointer (&self->pending_token, g_free);
  self->cancellable = g_cancellable_new ();
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_PENDING_URL]);
  set_state (self, RIV_CONNECTION_STATE_RESOLVING);
  riv_space_resolve_async (id, hub, token != NULL && *token != '\0' ? token : NULL,
                           RIV_SPACE_DEFAULT_WAIT_S, space_progress_cb,
                           g_object_ref (self), g_object_unref, self->cancellable,
                           space_resolved_cb, g_object_ref (self));
}

/* Public API ------------------------------------------------------------------------ */

RivConnection *
riv_connection_new (void)
{
  return g_object_new (RIV_TYPE_CONNECTION, NULL);
}

void
riv_connection_set_embedded_url (RivConnection *self,
                                 const char    *url)
{
  g_return_if_fail (RIV_IS_CONNECTION (self));
  riv_set_str (&self->embedded_url, url);
}

gboolean
riv_connection_is_space_name (const char *text)
{
  g_autofree char *hub = riv_space_hub_from_env (NULL);

  return text != NULL && riv_space_is_spelled (text, hub);
}

void
riv_connection_connect (RivConnection *self,
                        const char    *text,
                        const char    *token)
{
  g_return_if_fail (RIV_IS_CONNECTION (self));
  g_return_if_fail (text != NULL);

  if (riv_connection_is_space_name (text))
    {
      connect_space (self, text, token);
      return;
    }
  g_clear_pointer (&self->pending_space_id, g_free);
  g_clear_pointer (&self->pending_hf_token, g_free);
  connect_url (self, text, token,
               self->embedded_url != NULL && g_str_equal (self->embedded_url, text));
}

void
riv_connection_retry (RivConnection *self,
                      const char    *url,
                      gboolean       embedded)
{
  g_autofree char *again = g_strdup (url);
  g_autofree char *token = g_strdup (self->pending_token);

  g_return_if_fail (RIV_IS_CONNECTION (self));
  g_return_if_fail (url != NULL);

  connect_url (self, again, token, embedded);
}

void
riv_connection_cancel (RivConnection *self)
{
  g_return_if_fail (RIV_IS_CONNECTION (self));

  if (self->state == RIV_CONNECTION_STATE_IDLE && self->cancellable == NULL)
    return;
  drop_attempt (self);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_STATE]);
}

void
riv_connection_close (RivConnection *self)
{
  g_return_if_fail (RIV_IS_CONNECTION (self));

  if (self->pending_client != NULL)
    riv_client_close (self->pending_client);
  drop_attempt (self);
  if (self->client != NULL)
    riv_client_close (self->client);
}

RivConnectionState
riv_connection_get_state (RivConnection *self)
{
  g_return_val_if_fail (RIV_IS_CONNECTION (self), RIV_CONNECTION_STATE_IDLE);
  return self->state;
}

RivClient *
riv_connection_get_client (RivConnection *self)
{
  g_return_val_if_fail (RIV_IS_CONNECTION (self), NULL);
  return self->client;
}

const char *
riv_connection_get_url (RivConnection *self)
{
  g_return_val_if_fail (RIV_IS_CONNECTION (self), NULL);
  return self->url;
}

const char *
riv_connection_get_token (RivConnection *self)
{
  g_return_val_if_fail (RIV_IS_CONNECTION (self), NULL);
  return self->token;
}

gboolean
riv_connection_get_embedded (RivConnection *self)
{
  g_return_val_if_fail (RIV_IS_CONNECTION (self), FALSE);
  return self->embedded;
}

const char *
riv_connection_get_space_id (RivConnection *self)
{
  g_return_val_if_fail (RIV_IS_CONNECTION (self), NULL);
  return self->space_id;
}

const char *
riv_connection_get_hf_token (RivConnection *self)
{
  g_return_val_if_fail (RIV_IS_CONNECTION (self), NULL);
  return self->hf_token;
}

RivConfig *
riv_connection_get_config (RivConnection *self)
{
  g_return_val_if_fail (RIV_IS_CONNECTION (self), NULL);
  return self->config;
}

GPtrArray *
riv_connection_get_endpoints (RivConnection *self)
{
  g_return_val_if_fail (RIV_IS_CONNECTION (self), NULL);
  return self->endpoints;
}

RivClient *
riv_connection_get_pending_client (RivConnection *self)
{
  g_return_val_if_fail (RIV_IS_CONNECTION (self), NULL);
  return self->pending_client;
}

const char *
riv_connection_get_pending_url (RivConnection *self)
{
  g_return_val_if_fail (RIV_IS_CONNECTION (self), NULL);
  return self->pending_url;
}

const char *
riv_connection_get_pending_space_id (RivConnection *self)
{
  g_return_val_if_fail (RIV_IS_CONNECTION (self), NULL);
  return self->pending_space_id;
}

gboolean
riv_connection_get_pending_embedded (RivConnection *self)
{
  g_return_val_if_fail (RIV_IS_CONNECTION (self), FALSE);
  return self->pending_embedded;
}

const GError *
riv_connection_get_error (RivConnection *self)
{
  g_return_val_if_fail (RIV_IS_CONNECTION (self), NULL);
  return self->error;
}

/* GObject --------------------------------------------------------------------------- */

static void
riv_connection_dispose (GObject *object)
{
  RivConnection *self = RIV_CONNECTION (object);

  riv_connection_close (self);
  g_clear_object (&self->client);
  g_clear_pointer (&self->endpoints, g_ptr_array_unref);
  g_clear_pointer (&self->config, riv_config_unref);

  G_OBJECT_CLASS (riv_connection_parent_class)->dispose (object);
}

static void
riv_connection_finalize (GObject *object)
{
  RivConnection *self = RIV_CONNECTION (object);

  g_free (self->url);
  g_free (self->token);
  g_free (self->space_id);
  g_free (self->hf_token);
  g_free (self->pending_url);
  g_free (self->pending_token);
  g_free (self->pending_space_id);
  g_free (self->pending_hf_token);
  g_free (self->embedded_url);
  g_clear_error (&self->error);

  G_OBJECT_CLASS (riv_connection_parent_class)->finalize (object);
}

static void
riv_connection_get_property (GObject    *object,
                             guint       prop_id,
                             GValue     *value,
                             GParamSpec *pspec)
{
  RivConnection *self = RIV_CONNECTION (object);

  switch (prop_id)
    {
    case PROP_STATE:
      g_value_set_enum (value, self->state);
      break;
    case PROP_CLIENT:
      g_value_set_object (value, self->client);
      break;
    case PROP_PENDING_URL:
      g_value_set_string (value, self->pending_url);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
riv_connection_class_init (RivConnectionClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->dispose = riv_connection_dispose;
  object_class->finalize = riv_connection_finalize;
  object_class->get_property = riv_connection_get_property;

  properties[PROP_STATE] =
    g_param_spec_enum ("state", NULL, NULL, RIV_TYPE_CONNECTION_STATE,
                       RIV_CONNECTION_STATE_IDLE, G_PARAM_READABLE | G_PARAM_STATIC_STRINGS);
  properties[PROP_CLIENT] =
    g_param_spec_object ("client", NULL, NULL, RIV_TYPE_CLIENT,
                         G_PARAM_READABLE | G_PARAM_STATIC_STRINGS);
  properties[PROP_PENDING_URL] =
    g_param_spec_string ("pending-url", NULL, NULL, NULL,
                         G_PARAM_READABLE | G_PARAM_STATIC_STRINGS);
  g_object_class_install_properties (object_class, N_PROPS, properties);

  signals[SIGNAL_PREPARE_CLIENT] =
    g_signal_new ("prepare-client", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0,
                  NULL, NULL, NULL, G_TYPE_NONE, 1, RIV_TYPE_CLIENT);
  signals[SIGNAL_CONNECTED] =
    g_signal_new ("connected", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0,
                  NULL, NULL, NULL, G_TYPE_NONE, 1, RIV_TYPE_CLIENT);
  signals[SIGNAL_FAILED] =
    g_signal_new ("failed", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0,
                  NULL, NULL, NULL, G_TYPE_NONE, 1, G_TYPE_ERROR | G_SIGNAL_TYPE_STATIC_SCOPE);
  signals[SIGNAL_SPACE_PROGRESS] =
    g_signal_new ("space-progress", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0,
                  NULL, NULL, NULL, G_TYPE_NONE, 2, G_TYPE_STRING | G_SIGNAL_TYPE_STATIC_SCOPE,
                  G_TYPE_STRING | G_SIGNAL_TYPE_STATIC_SCOPE);
}

static void
riv_connection_init (RivConnection *self)
{
  self->endpoints = g_ptr_array_new ();
}
