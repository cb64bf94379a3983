/* riv-login-flow.c
 * Copyright 2026 The Rivulet authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * A Gradio app launched with auth= asks for a login. When a connect fails
 * for that reason, the window first tries the login kept in the keyring for
 * the server (once), then asks with a dialog (saying when the last login was
 * refused), and connects again with what it was given. A login the user asked
 * to remember is kept once the server has accepted it. Cancelling the dialog
 * leaves the connect error in the popover, as before.
 */
#include "config.h"

#include <glib/gi18n.h>

#include "riv-login.h"
#include "riv-login-flow.h"

typedef struct
{
  char         *url;            /* the server the login is for */
  RivLogin     *login;          /* nullable: what to send */
  GCancellable *cancellable;    /* the keyring lookup or the dialog */
  gboolean      tried_keyring;
  gboolean      asking;
} State;

struct _RivLoginFlow
{
  GObject       parent_instance;

  State        *state;          /* owned, nullable: of the server last asked about */
  GCancellable *cancellable;    /* keeping a login; cancelled on close */
};

enum
{
  SIGNAL_RETRY,
  SIGNAL_CANCELLED,
  SIGNAL_TOAST,
  N_SIGNALS
};

G_DEFINE_FINAL_TYPE (RivLoginFlow, riv_login_flow, G_TYPE_OBJECT)

static guint signals[N_SIGNALS];

typedef struct
{
  RivLoginFlow *self;           /* owned */
  GtkWindow    *parent;         /* owned */
  gboolean      embedded;
  gboolean      failed;
  GError       *error;          /* shown when the user cancels */
} Ask;

static void
ask_free (Ask *ask)
{
  g_object_unref (ask->self);
  g_object_unref (ask->parent);
  g_clear_error (&ask->error);
  g_free (ask);
}

G_DEFINE_AUTOPTR_CLEANUP_FUNC (Ask, ask_free)

static State *
state_for (RivLoginFlow *self,
           const char   *url)
{
  State *state = self->state;

  if (state != NULL && g_strcmp0 (state->url, url) != 0)
    {
      /* Another server: nothing of the old login goes there. */
      riv_login_flow_forget (self);
      state = NULL;
    }
  if (state == NULL)
    {
      state = self->state = g_new0 (State, 1);
      state->url = g_strdup (url);
    }
  return state;
}

static void ask_dialog (RivLoginFlow *self,
                        Ask          *ask);

static void
prompt_cb (GObject      *object,
           GAsyncResult *result,
           gpointer      user_data)
{
  g_autoptr(Ask) ask = user_data;
  RivLoginFlow *self = ask->self;
  g_autoptr(GError) error = NULL;
  RivLogin *login = riv_login_prompt_finish (result, &error);

  if (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED) || self->state == NULL)
    {
      riv_login_free (login);
      return;
    }
  self->state->asking = FALSE;
  if (login == NULL)
    {
      g_signal_emit (self, signals[SIGNAL_CANCELLED], 0, ask->error);
      return;
    }
  riv_login_free (self->state->login);
  self->state->login = login;
  g_signal_emit (self, signals[SIGNAL_RETRY], 0, self->state->url, ask->embedded);
}

static void
ask_dialog (RivLoginFlow *self,
            Ask          *ask)
{
  State *state = self->state;

  state->asking = TRUE;
  riv_login_prompt_async (ask->parent, state->url,
                          state->login != NULL ? state->login->user : NULL, ask->failed,
                          state->cancellable, prompt_cb, ask);
}

static void
lookup_cb (GObject      *object,
           GAsyncResult *result,
           gpointer      user_data)
{
  Ask *ask = user_data;
  RivLoginFlow *self = ask->self;
  g_autoptr(GError) error = NULL;
  RivLogin *login = riv_login_lookup_finish (result, &error);

  if (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED) || self->state == NULL)
    {
      riv_login_free (login);
      ask_free (ask);
      return;
    }
  if (login == NULL)
    {
      ask_dialog (self, ask);
      return;
    }
  /* Kept already: not stored again. */
  login->remember = FALSE;
  riv_login_free (self->state->login);
  self->state->login = login;
  self->state->asking = FALSE;
  g_signal_emit (self, signals[SIGNAL_RETRY], 0, self->state->url, ask->embedded);
  ask_free (ask);
}

gboolean
riv_login_flow_handle_error (RivLoginFlow *self,
                             GtkWindow    *parent,
                             const char   *url,
                             gboolean      embedded,
                             const GError *error)
{
  State *state;
  Ask *ask;

  g_return_val_if_fail (RIV_IS_LOGIN_FLOW (self), FALSE);
  g_return_val_if_fail (GTK_IS_WINDOW (parent), FALSE);

  if (url == NULL ||
      !(g_error_matches (error, RIV_CLIENT_ERROR, RIV_CLIENT_ERROR_AUTH_REQUIRED) ||
        g_error_matches (error, RIV_CLIENT_ERROR, RIV_CLIENT_ERROR_AUTH_FAILED)))
    return FALSE;

  state = state_for (self, url);
  if (state->asking)
    return TRUE;
  if (state->cancellable == NULL)
    state->cancellable = g_cancellable_new ();

  ask = g_new0 (Ask, 1);
  ask->self = g_object_ref (self);
  ask->parent = g_object_ref (parent);
  ask->embedded = embedded;
  ask->failed = g_error_matches (error, RIV_CLIENT_ERROR, RIV_CLIENT_ERROR_AUTH_FAILED);
  ask->error = g_error_copy (error);
  state->asking = TRUE;

  if (!state->tried_keyring && state->login == NULL)
    {
      state->tried_keyring = TRUE;
      riv_login_lookup_async (url, state->cancellable, lookup_cb, ask);
    }
  else
    ask_dialog (self, ask);
  return TRUE;
}

void
riv_login_flow_apply (RivLoginFlow *self,
                      RivClient    *client,
                      const char   *url)
{
  State *state;

  g_return_if_fail (RIV_IS_LOGIN_FLOW (self));
  g_return_if_fail (RIV_IS_CLIENT (client));

  state = self->state;
  if (state == NULL || g_strcmp0 (state->url, url) != 0)
    {
      /* Connecting elsewhere: forget the old server's login. */
      riv_login_flow_forget (self);
      return;
    }
  if (state->login != NULL)
    riv_client_set_auth (client, state->login->user, state->login->password);
}

static void
stored_cb (GObject      *object,
           GAsyncResult *result,
           gpointer      user_data)
{
  g_autoptr(RivLoginFlow) self = user_data;
  g_autoptr(GError) error = NULL;

  if (!riv_login_store_finish (result, &error) &&
      !g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
    {
      g_autofree char *text = g_strdup_printf (_("The password could not be kept: %s"),
                                               error->message);

      g_signal_emit (self, signals[SIGNAL_TOAST], 0, text);
    }
}

void
riv_login_flow_connected (RivLoginFlow *self,
                          const char   *url)
{
  State *state;

  g_return_if_fail (RIV_IS_LOGIN_FLOW (self));

  state = self->state;
  if (state == NULL || state->login == NULL || !state->login->remember ||
      g_strcmp0 (state->url, url) != 0)
    return;
  state->login->remember = FALSE;
  riv_login_store_async (url, state->login, self->cancellable, stored_cb, g_object_ref (self));
}

void
riv_login_flow_forget (RivLoginFlow *self)
{
  State *state;

  g_return_if_fail (RIV_IS_LOGIN_FLOW (self));

  if ((state = g_steal_pointer (&self->state)) == NULL)
    return;
  if (state->cancellable != NULL)
    g_cancellable_cancel (state->cancellable);
  g_clear_object (&state->cancellable);
  riv_login_free (state->login);
  g_free (state->url);
  g_free (state);
}

void
riv_login_flow_close (RivLoginFlow *self)
{
  g_return_if_fail (RIV_IS_LOGIN_FLOW (self));

  g_cancellable_cancel (self->cancellable);
  riv_login_flow_forget (self);
}

static void
riv_login_flow_dispose (GObject *object)
{
  riv_login_flow_close (RIV_LOGIN_FLOW (object));

  G_OBJECT_CLASS (riv_login_flow_parent_class)->dispose (object);
}

static void
riv_login_flow_finalize (GObject *object)
{
  RivLoginFlow *self = RIV_LOGIN_FLOW (object);

  g_clear_object (&self->cancellable);

  G_OBJECT_CLASS (riv_login_flow_parent_class)->finalize (object);
}

static void
riv_login_flow_class_init (RivLoginFlowClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->dispose = riv_login_flow_dispose;
  object_class->finalize = riv_login_flow_finalize;

  signals[SIGNAL_RETRY] =
    g_signal_new ("retry", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL,
                  G_TYPE_NONE, 2, G_TYPE_STRING, G_TYPE_BOOLEAN);
  signals[SIGNAL_CANCELLED] =
    g_signal_new ("cancelled", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL,
                  G_TYPE_NONE, 1, G_TYPE_ERROR);
  signals[SIGNAL_TOAST] =
    g_signal_new ("toast", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL,
                  G_TYPE_NONE, 1, G_TYPE_STRING);
}

static void
riv_login_flow_init (RivLoginFlow *self)
{
  self->cancellable = g_cancellable_new ();
}

RivLoginFlow *
riv_login_flow_new (void)
{
  return g_object_new (RIV_TYPE_LOGIN_FLOW, NULL);
}
