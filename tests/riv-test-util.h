/* riv-test-util.h
 * Copyright 2026 The Rivulet authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Helpers shared by the test programs.
 */
#pragma once

#include <gio/gio.h>
#include <libsoup/soup.h>

G_BEGIN_DECLS

/* Iterates the thread-default main context until *flag is TRUE or timeout_s
 * passes (the bound only stops a hang; it is not a timing claim). Returns *flag. */
gboolean  riv_test_wait_for       (gboolean    *flag,
                                   double       timeout_s);
/* Iterates until func(user_data) returns TRUE or timeout_s passes. */
gboolean  riv_test_wait_until     (gboolean   (*func) (gpointer user_data),
                                   gpointer     user_data,
                                   double       timeout_s);
/* Dispatches what is ready on the default main context, at most 100
 * iterations, without waiting: lets pending callbacks (closes, aborts) run. */
void      riv_test_drain          (void);
/* Stores a GAsyncResult in *(GAsyncResult **) user_data. */
void      riv_test_async_result_cb (GObject      *object,
                                    GAsyncResult *result,
                                    gpointer      user_data);
/* Waits for an async result stored by riv_test_async_result_cb. */
GAsyncResult *riv_test_wait_result (GAsyncResult **slot,
                                    double         timeout_s);
/* Answers msg with status and a copy of body (NUL-terminated). */
void      riv_test_reply          (SoupServerMessage *msg,
                                   guint              status,
                                   const char        *content_type,
                                   const char        *body);
void      riv_test_reply_json     (SoupServerMessage *msg,
                                   guint              status,
                                   const char        *json);
/* A SoupServer on 127.0.0.1, port 0, that answers every path with handler;
 * its base URL ("http://127.0.0.1:PORT") in *url and its port in *port
 * (either may be NULL). riv_test_server_free () disconnects and drops it. */
SoupServer *riv_test_server_new   (SoupServerCallback   handler,
                                   gpointer             user_data,
                                   char               **url,
                                   guint               *port);
void      riv_test_server_free    (SoupServer  *server);
/* Orders doubles, for g_array_sort () and qsort (). */
int       riv_test_compare_doubles (gconstpointer a,
                                    gconstpointer b);
/* Reads tests/data/NAME into a string. */
/* Removes a scratch folder and the files in it (not below). */
void      riv_test_remove_dir     (const char  *path);
char     *riv_test_load_data      (const char  *name,
                                   gsize       *length);

/* A finished rivulet-cli: its exit status and what it wrote. */
typedef struct
{
  int   status;
  char *out;
  char *err;
} RivTestCliRun;

void      riv_test_cli_run_clear  (RivTestCliRun *run);
G_DEFINE_AUTO_CLEANUP_CLEAR_FUNC (RivTestCliRun, riv_test_cli_run_clear)

/* Runs $RIVULET_CLI with args (NULL-terminated) while the thread-default
 * main context keeps running; *out and *err get its output. Returns the exit
 * status. */
int       riv_test_run_cli        (const char * const  *args,
                                   char               **out,
                                   char               **err,
                                   double               timeout_s);
/* "load --url URL ARGS…" (after program, when not NULL), NULL-terminated;
 * the strings are borrowed. */
GPtrArray *riv_test_load_argv     (const char          *program,
                                   const char          *url,
                                   const char * const  *args);
/* The same with more environment variables, "NAME=VALUE" lines (or NULL).
 * Both leave out the caller's RIVULET_AUTH and RIVULET_TOKEN, and its
 * Hugging Face token and Hub (HF_TOKEN, HF_TOKEN_PATH, HF_HOME,
 * HF_ENDPOINT): a test names its login and tokens. */
int       riv_test_run_cli_env    (const char          *env,
                                   const char * const  *args,
                                   char               **out,
                                   char               **err,
                                   double               timeout_s);
/* The same for any program: argv[0] is the program (found in PATH). */
int       riv_test_run_env        (const char          *env,
                                   const char * const  *argv,
                                   char               **out,
                                   char               **err,
                                   double               timeout_s);

G_END_DECLS
