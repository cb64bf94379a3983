/* riv-test-auth-server.h
 * Copyright 2026 The Rivulet authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * A scripted server that asks for a login as Gradio apps launched with auth=
 * do: like Gradio 4.44 (routes at the root, "detail" a string) or like
 * Gradio 5 and 6 (routes under /gradio_api, "detail" an object), or without
 * a login (no_auth: a stand-in app, e.g. a Space's). /config and
 * the queue answer 401 without the session cookie that POST /login sets (two
 * cookies, one of them Secure, as Gradio does); /login itself stays at the
 * app's root in every version. Its one endpoint, "predict", answers "hello".
 * For test-auth and the window's login test.
 */
#pragma once

#include <libsoup/soup.h>

G_BEGIN_DECLS

#define USER     "ada"
#define PASSWORD "pa:ss w0rd"   /* a colon and a space: USER:PASSWORD splits at the first colon */
#define TOKEN    "t0k3n"

typedef struct
{
  gboolean    gradio4;      /* routes at the root and detail strings, like 4.44 */
  gboolean    no_auth;      /* an app without auth= */
  const char *root;         /* nullable: the "root" its config names */
  SoupServer *server;
  char       *url;
  guint       n_logins;
  guint       n_config_401;
  guint       n_joins;
  guint       n_join_close; /* joins that asked for "Connection: close" */
  guint       n_streams;
  guint       n_bearer;     /* requests with "Authorization: Bearer " TOKEN */
  const char *hf_token;     /* nullable: count requests with "x-hf-authorization: Bearer " it */
  guint       n_hf_bearer;
  guint       n_requests;
  const char * const *fail_texts; /* nullable: each stream's job fails with the next text */
} AuthServer;

void auth_server_start (AuthServer *as);
void auth_server_stop  (AuthServer *as);

G_END_DECLS
