/* riv-login-flow.h
 * Copyright 2026 The Rivulet authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * A Gradio app's login (auth=) for the window, one server at a time: the
 * login kept in the keyring first (once), then the dialog. The window hands
 * it each refused connect (riv_login_flow_handle_error), lets it add the
 * login to each new client (riv_login_flow_apply), and tells it when a
 * server accepted one (riv_login_flow_connected: a login to remember is kept
 * then). It answers by signal:
 *
 * "retry" (const char *url, gboolean embedded): there is a login to send, connect again;
 * "cancelled" (GError *error): the user cancelled the dialog, the connect error stands;
 * "toast" (const char *message): a message for the user.
 */
#pragma once

#include <gtk/gtk.h>

#include "riv-client.h"

G_BEGIN_DECLS

#define RIV_TYPE_LOGIN_FLOW (riv_login_flow_get_type ())
G_DECLARE_FINAL_TYPE (RivLoginFlow, riv_login_flow, RIV, LOGIN_FLOW, GObject)

RivLoginFlow *riv_login_flow_new          (void);
/* TRUE when error asks for a login (or refused one): the flow takes it from
 * there, with parent as the dialog's window. */
gboolean      riv_login_flow_handle_error (RivLoginFlow *self,
                                           GtkWindow    *parent,
                                           const char   *url,
                                           gboolean      embedded,
                                           const GError *error);
/* A client of url is about to connect: it sends url's login, if there is one
 * (another server's login is forgotten). */
void          riv_login_flow_apply        (RivLoginFlow *self,
                                           RivClient    *client,
                                           const char   *url);
void          riv_login_flow_connected    (RivLoginFlow *self,
                                           const char   *url);
/* Cancels the lookup or dialog under way and forgets the login (a login
 * being kept is still kept). */
void          riv_login_flow_forget       (RivLoginFlow *self);
/* Cancels all, keeping a login too: the window is closing. */
void          riv_login_flow_close        (RivLoginFlow *self);

G_END_DECLS
