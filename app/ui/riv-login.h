/* riv-login.h
 * Copyright 2026 The Rivulet authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The login a Gradio app launched with auth= asks for: a dialog for the user
 * name and password, and, when the user wants it, the password kept in the
 * desktop's keyring (libsecret) under the server's address. Everything is
 * asynchronous; a keyring that is missing or locked only means the dialog is
 * asked again next time.
 */
#pragma once

#include <gtk/gtk.h>

G_BEGIN_DECLS

typedef struct
{
  char     *user;
  char     *password;
  gboolean  remember;   /* keep the password in the keyring once it worked */
} RivLogin;

void      riv_login_free          (RivLogin            *login);

/* Asks for a login to url, over parent. failed: the last one was refused (the
 * dialog says so). Finishes with NULL when the user cancels. */
void      riv_login_prompt_async  (GtkWindow           *parent,
                                   const char          *url,
                                   const char          *user,
                                   gboolean             failed,
                                   GCancellable        *cancellable,
                                   GAsyncReadyCallback  callback,
                                   gpointer             user_data);
RivLogin *riv_login_prompt_finish (GAsyncResult        *result,
                                   GError             **error);

/* The login kept for url, or NULL (none kept, or no keyring). */
void      riv_login_lookup_async  (const char          *url,
                                   GCancellable        *cancellable,
                                   GAsyncReadyCallback  callback,
                                   gpointer             user_data);
RivLogin *riv_login_lookup_finish (GAsyncResult        *result,
                                   GError             **error);

/* Keeps login->password for url (replacing what was kept for it). */
void      riv_login_store_async   (const char          *url,
                                   const RivLogin      *login,
                                   GCancellable        *cancellable,
                                   GAsyncReadyCallback  callback,
                                   gpointer             user_data);
gboolean  riv_login_store_finish  (GAsyncResult        *result,
                                   GError             **error);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (RivLogin, riv_login_free)

G_END_DECLS
