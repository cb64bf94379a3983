/* riv-test-hub.h
 * Copyright 2026 The Rivulet authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * A fake Hugging Face Hub on loopback for the Spaces tests (test-spaces,
 * test-ui-connect): GET /api/spaces/{id} and /api/spaces/{id}/runtime with
 * the Hub's reply shapes and its errors (X-Error-Code, X-Error-Message).
 * Its Spaces, all "demo/…": running and hub-page targets on running_host;
 * building (BUILDING once, then RUNNING) and forever-building; asleep
 * (SLEEPING until its app, app, has been asked anything); paused; crashed
 * (RUNTIME_ERROR with an error message); no-app; private (401 without
 * "Authorization: Bearer " RIV_TEST_HF_TOKEN, then on app); zerogpu (on
 * app); not-json and no-host (replies that are not the Hub's); anything
 * else 404.
 */
#pragma once

#include "riv-test-auth-server.h"

G_BEGIN_DECLS

#define RIV_TEST_HF_TOKEN "hf_s3cretT0ken"

typedef struct
{
  const char *running_host;   /* the running Spaces' app */
  AuthServer *app;            /* the stand-in app of the others */
  SoupServer *server;
  char       *url;            /* what HF_ENDPOINT names */
  guint       n_requests;
  guint       n_bearer;       /* with "Authorization: Bearer " RIV_TEST_HF_TOKEN */
  guint       n_hf_header;    /* with x-hf-authorization (the app's header, never the Hub's) */
  guint       building_polls;
} RivTestHub;

void riv_test_hub_start (RivTestHub *hub);
void riv_test_hub_stop  (RivTestHub *hub);

G_END_DECLS
