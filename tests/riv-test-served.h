/* riv-test-served.h
 * Copyright 2026 The Rivulet authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The fixture of the tests that run rivulet-cli (or a client) against the
 * embedded server in their own process: the server on 127.0.0.1, port 0,
 * its URL, and a scratch folder for the files the test writes.
 */
#pragma once

#include <json-glib/json-glib.h>

#include "riv-server.h"

G_BEGIN_DECLS

typedef struct
{
  RivServer *server;
  char      *url;
  char      *dir;
} RivTestServed;

/* Starts server (taken; NULL: a new one with the defaults) listening and
 * makes a scratch folder named after prefix ("riv-test-cli"). */
void riv_test_served_start (RivTestServed *fx,
                            RivServer     *server,
                            const char    *prefix);
/* Shuts the server down, lets its closes run, removes the folder. */
void riv_test_served_stop  (RivTestServed *fx);
/* The same as a g_test_add () fixture's set-up (a new server with the
 * defaults; the test's data is the folder's prefix) and teardown. */
void riv_test_served_setup    (RivTestServed *fx,
                               gconstpointer  prefix);
void riv_test_served_teardown (RivTestServed *fx,
                               gconstpointer  data);

/* Runs rivulet-cli load --url (the server's) with args; returns the exit
 * status, *summary the --json summary's object when asked and the run
 * printed one (summary may be NULL), *err its standard error. */
int  riv_test_served_load     (RivTestServed       *fx,
                               const char * const  *args,
                               JsonNode           **summary,
                               char               **err);

G_END_DECLS
