/* riv-window-login.c
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
#include "riv-window-private.h"

struct _RivWindowLogin
{
  char         *url;            /* the server the login is for */
  RivLogin     *login;          /* nullable: what to send */
  GCancellable *cancellable;    /* the keyring lookup or the dialog */
  gboolean      tried_keyring;
  gboolean      asking;
};

typedef struct _RivWindowLogin RivWindowLogin;

typedef struct
{
  RivWindow *window;
  gboolean   embedded;
  gboolean   failed;
  GError    *error;             /* shown when the user cancels */
} Ask;

static void
ask_free (Ask *ask)
{
  g_object_unref (ask->window);
  g_clear_error (&ask->error);
  g_free (ask);
}

G_DEFINE_AUTOPTR_CLEANUP_FUNC (Ask, ask_free)

static RivWindowLogin *
login_for (RivWindow  *self,
           const char *url)
{
  RivWindowLogin *state = self->login;

  if (state != NULL && g_strcmp0 (state->url, url) != 0)
    {
      /* Another server: nothing of the old login goes there. */
      _riv_window_login_free (self);
      state = NULL;
    }
  if (state == NULL)
    {
      state = self->login = g_new0 (RivWindowLogin, 1);
      state->url = g_strdup (url);
    }
  return state;
}

static void ask_dialog (RivWindow *self,
                        Ask       *ask);

static void
prompt_cb (GObject      *object,
           GAsyncResult *result,
           gpointer      user_data)
{
  g_autoptr(Ask) ask = user_data;
  RivWindow *self = ask->window;
  g_autoptr(GError) error = NULL;
  RivLogin *login = riv_login_prompt_finish (result, &error);

  if (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED) || self->login == NULL)
    {
      riv_login_free (login);
      return;
    }
  self->login->asking = FALSE;
  if (login == NULL)
    {
      _riv_window_show_connect_error (self, ask->error);
      return;
    }
  riv_login_free (self->login->login);
  self->login->login = login;
  _riv_window_reconnect (self, self->login->url, ask->embedded);
}

static void
ask_dialog (RivWindow *self,
            Ask       *ask)
{
  RivWindowLogin *state = self->login;

  state->asking = TRUE;
  riv_login_prompt_async (GTK_WINDOW (self), state->url,
                          state->login != NULL ? state->login->user : NULL, ask->failed,
                          state->cancellable, prompt_cb, ask);
}

static void
lookup_cb (GObject      *object,
           GAsyncResult *result,
           gpointer      user_data)
{
  Ask *ask = user_data;
  RivWindow *self = ask->window;
  g_autoptr(GError) error = NULL;
  RivLogin *login = riv_login_lookup_finish (result, &error);

  if (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED) || self->login == NULL)
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
  riv_login_free (self->login->login);
  self->login->login = login;
  self->login->asking = FALSE;
  _riv_window_reconnect (self, self->login->url, ask->embedded);
  ask_free (ask);
}

gboolean
_riv_window_login_handle_error (RivWindow    *self,
                                const char   *url,
                                gboolean      embedded,
                                const GError *error)
{
  RivWindowLogin *state;
  Ask *ask;

  if (url == NULL ||
      !(g_error_matches (error, RIV_CLIENT_ERROR, RIV_CLIENT_ERROR_AUTH_REQUIRED) ||
        g_error_matches (error, RIV_CLIENT_ERROR, RIV_CLIENT_ERROR_AUTH_FAILED)))
    return FALSE;

  state = login_for (self, url);
  if (state->asking)
    return TRUE;
  if (state->cancellable == NULL)
    state->cancellable = g_cancellable_new ();

  ask = g_new0 (Ask, 1);
  ask->window = g_object_ref (self);
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
_riv_window_login_apply (RivWindow  *self,
                         RivClient  *client,
                         const char *url)
{
  RivWindowLogin *state = self->login;

  if (state == NULL || g_strcmp0 (state->url, url) != 0)
    {
      /* Connecting elsewhere: forget the old server's login. */
      _riv_window_login_free (self);
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
  g_autoptr(RivWindow) self = user_data;
  g_autoptr(GError) error = NULL;

  if (!riv_login_store_finish (result, &error) &&
      !g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
    {
      g_autofree char *text = g_strdup_printf (_("The password could not be kept: %s"),
                                               error->message);

      _riv_window_toast (self, text);
    }
}

void
_riv_window_login_connected (RivWindow  *self,
                             const char *url)
{
  RivWindowLogin *state = self->login;

  if (state == NULL || state->login == NULL || !state->login->remember ||
      g_strcmp0 (state->url, url) != 0)
    return;
  state->login->remember = FALSE;
  riv_login_store_async (url, state->login, self->cancellable, stored_cb, g_object_ref (self));
}

void
_riv_window_login_free (RivWindow *self)
{
  RivWindowLogin *state = g_steal_pointer (&self->login);

  if (state == NULL)
    return;
  if (state->cancellable != NULL)
    g_cancellable_cancel (state->cancellable);
  g_clear_object (&state->cancellable);
  riv_login_free (state->login);
  g_free (state->url);
  g_free (state);
}
