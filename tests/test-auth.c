/* test-auth.c
 * Copyright 2026 The Rivulet authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Gradio's login (apps launched with auth=) against a scripted server that
 * answers like Gradio 4.44 (routes at the root, "detail" a string) or like
 * Gradio 5 and 6 (routes under /gradio_api, "detail" an object): /config and
 * the queue answer 401 without the session cookie that POST /login sets
 * (two cookies, one of them Secure, as Gradio does); /login itself stays at
 * the app's root in every version. Also rivulet-cli's --auth and
 * RIVULET_AUTH.
 */
#include "config.h"

#include <string.h>

#include <glib/gstdio.h>
#include <libsoup/soup.h>

#include "riv-client.h"
#include "riv-test-auth-server.h"
#include "riv-test-util.h"

#ifdef __SANITIZE_ADDRESS__
# define HANG_GUARD 120.0
#else
# define HANG_GUARD 60.0
#endif

/* Connects; returns the error, or NULL when connected. */
static GError *
try_connect (RivClient *client)
{
  g_autoptr(GAsyncResult) result = NULL;
  GError *error = NULL;

  riv_client_connect_async (client, NULL, riv_test_async_result_cb, &result);
  riv_test_wait_result (&result, HANG_GUARD);
  riv_client_connect_finish (client, result, &error);
  return error;
}

static gboolean
job_done (gpointer data)
{
  return riv_job_is_finished (data);
}

/* Right credentials: one login, then the cookie goes with every request. */
static void
test_login (gconstpointer data)
{
  AuthServer as = { .gradio4 = GPOINTER_TO_INT (data) };
  g_autoptr(RivClient) client = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonNode) inputs = json_from_string ("[\"x\"]", NULL);
  g_autoptr(RivJob) job = NULL;

  auth_server_start (&as);
  client = riv_client_new (as.url);
  riv_client_set_auth (client, USER, PASSWORD);

  error = try_connect (client);
  g_assert_no_error (error);
  g_assert_cmpuint (as.n_logins, ==, 1);
  g_assert_cmpuint (as.n_config_401, ==, 1);

  job = riv_client_submit (client, "predict", inputs, &error);
  g_assert_no_error (error);
  g_assert_true (riv_test_wait_until (job_done, job, HANG_GUARD));
  g_assert_cmpint (riv_job_get_status (job), ==, RIV_JOB_STATUS_COMPLETED);
  g_assert_cmpstr (riv_job_get_output_text (job), ==, "hello");
  g_assert_cmpuint (as.n_joins, ==, 1);
  g_assert_cmpuint (as.n_streams, >=, 1);
  g_assert_cmpuint (as.n_logins, ==, 1);
  /* A client of its own (the window, a burst) keeps its join connections. */
  g_assert_cmpuint (as.n_join_close, ==, 0);

  riv_client_close (client);
  auth_server_stop (&as);
}

static void
sent_cb (GObject      *object,
         GAsyncResult *result,
         gpointer      user_data)
{
  GBytes **body = user_data;

  *body = soup_session_send_and_read_finish (SOUP_SESSION (object), result, NULL);
  if (*body == NULL)
    *body = g_bytes_new (NULL, 0);
}

static gboolean
bytes_arrived (gpointer data)
{
  return *(GBytes **) data != NULL;
}

/* The status a plain session gets for url, with the client's credentials
 * when riv_client_authorize_request() gives them. */
static guint
fetch_status (RivClient  *client,
              const char *url)
{
  g_autoptr(SoupSession) session = soup_session_new ();
  g_autoptr(SoupMessage) msg = soup_message_new (SOUP_METHOD_GET, url);
  g_autoptr(GBytes) body = NULL;

  if (client != NULL)
    riv_client_authorize_request (client, msg);
  soup_session_send_and_read_async (session, msg, G_PRIORITY_DEFAULT, NULL, sent_cb, &body);
  g_assert_true (riv_test_wait_until (bytes_arrived, &body, HANG_GUARD));
  return soup_message_get_status (msg);
}

/* The files a job's outputs link to (the window's gallery, files, saves)
 * are fetched with the login; requests to any other server get none of it. */
static void
test_authorize_request (void)
{
  AuthServer as = { 0 };
  g_autoptr(RivClient) client = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *file_url = NULL;
  g_autofree char *other_host = NULL;
  const char *other_urls[3];

  auth_server_start (&as);
  client = riv_client_new (as.url);
  riv_client_set_auth (client, USER, PASSWORD);
  riv_client_set_token (client, "hf_secret");
  error = try_connect (client);
  g_assert_no_error (error);

  /* Past the login check (404: the scripted server has no files), and
   * refused without the client's credentials. */
  file_url = g_strconcat (as.url, "/gradio_api/file=/tmp/picture.webp", NULL);
  g_assert_cmpuint (fetch_status (client, file_url), ==, 404);
  g_assert_cmpuint (fetch_status (NULL, file_url), ==, 401);

  /* Another host, port or scheme: nothing of the login or the token. */
  other_host = g_strdup_printf ("http://localhost:%s/file=x", strrchr (as.url, ':') + 1);
  other_urls[0] = other_host;
  other_urls[1] = "http://127.0.0.1:1/file=x";
  other_urls[2] = "https://127.0.0.1/file=x";
  for (guint i = 0; i < G_N_ELEMENTS (other_urls); i++)
    {
      g_autoptr(SoupMessage) msg = soup_message_new (SOUP_METHOD_GET, other_urls[i]);
      SoupMessageHeaders *headers = soup_message_get_request_headers (msg);

      riv_client_authorize_request (client, msg);
      g_assert_null (soup_message_headers_get_one (headers, "Cookie"));
      g_assert_null (soup_message_headers_get_one (headers, "Authorization"));
    }

  riv_client_close (client);
  auth_server_stop (&as);
}

/* Wrong credentials: a clear error, and nothing is submitted. */
static void
test_wrong_password (gconstpointer data)
{
  AuthServer as = { .gradio4 = GPOINTER_TO_INT (data) };
  g_autoptr(RivClient) client = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(GError) submit_error = NULL;
  g_autoptr(JsonNode) inputs = json_from_string ("[\"x\"]", NULL);
  g_autoptr(RivJob) job = NULL;

  auth_server_start (&as);
  client = riv_client_new (as.url);
  riv_client_set_auth (client, USER, "wrong");

  error = try_connect (client);
  g_assert_error (error, RIV_CLIENT_ERROR, RIV_CLIENT_ERROR_AUTH_FAILED);
  g_assert_nonnull (strstr (error->message, "did not accept the user name and password"));
  g_assert_nonnull (strstr (error->message, "Incorrect credentials."));
  g_assert_cmpuint (as.n_logins, ==, 1);

  job = riv_client_submit (client, "predict", inputs, &submit_error);
  g_assert_null (job);
  g_assert_error (submit_error, RIV_CLIENT_ERROR, RIV_CLIENT_ERROR_NOT_CONNECTED);
  riv_test_drain ();
  g_assert_cmpuint (as.n_joins, ==, 0);

  riv_client_close (client);
  auth_server_stop (&as);
}

/* No credentials: the server's question, as its own error code. */
static void
test_login_required (gconstpointer data)
{
  AuthServer as = { .gradio4 = GPOINTER_TO_INT (data) };
  g_autoptr(RivClient) client = NULL;
  g_autoptr(GError) error = NULL;

  auth_server_start (&as);
  client = riv_client_new (as.url);

  error = try_connect (client);
  g_assert_error (error, RIV_CLIENT_ERROR, RIV_CLIENT_ERROR_AUTH_REQUIRED);
  g_assert_nonnull (strstr (error->message, "asks for a login"));
  g_assert_cmpuint (as.n_logins, ==, 0);
  g_assert_cmpuint (as.n_joins, ==, 0);

  riv_client_close (client);
  auth_server_stop (&as);
}

/* Credentials for an app without auth=: never used. */
static void
test_no_login_needed (void)
{
  AuthServer as = { .no_auth = TRUE };
  g_autoptr(RivClient) client = NULL;
  g_autoptr(GError) error = NULL;

  auth_server_start (&as);
  client = riv_client_new (as.url);
  riv_client_set_auth (client, USER, PASSWORD);

  error = try_connect (client);
  g_assert_no_error (error);
  g_assert_cmpuint (as.n_logins, ==, 0);

  riv_client_close (client);
  auth_server_stop (&as);
}

static void
test_auth_string (void)
{
  g_autoptr(RivClient) client = riv_client_new ("http://127.0.0.1:9");
  g_autoptr(GError) error = NULL;

  g_assert_false (riv_client_set_auth_string (client, "no-colon", &error));
  g_assert_error (error, RIV_CLIENT_ERROR, RIV_CLIENT_ERROR_BAD_INPUT);
  g_assert_nonnull (strstr (error->message, "USER:PASSWORD"));
  g_clear_error (&error);
  g_assert_false (riv_client_set_auth_string (client, ":secret", &error));
  g_assert_error (error, RIV_CLIENT_ERROR, RIV_CLIENT_ERROR_BAD_INPUT);
  g_clear_error (&error);
  g_assert_false (riv_client_set_auth_string (client, NULL, &error));
  g_assert_error (error, RIV_CLIENT_ERROR, RIV_CLIENT_ERROR_BAD_INPUT);
  g_clear_error (&error);
  /* An empty password is a password. */
  g_assert_true (riv_client_set_auth_string (client, "me:", &error));
  g_assert_no_error (error);
}

/* rivulet-cli with the given environment variable (NAME=VALUE or NULL) and
 * arguments, while this process keeps serving; returns its exit status, its
 * standard output in *out (when out is not NULL) and its errors in *err. */
static int
run_cli_out (const char  *env,
             char       **out,
             char       **err,
             const char  *first,
             ...)
{
  g_autoptr(GPtrArray) args = g_ptr_array_new ();
  g_autofree char *ignored = NULL;
  va_list ap;

  va_start (ap, first);
  for (const char *arg = first; arg != NULL; arg = va_arg (ap, const char *))
    g_ptr_array_add (args, (char *) arg);
  va_end (ap);
  g_ptr_array_add (args, NULL);
  return riv_test_run_cli_env (env, (const char * const *) args->pdata,
                               out != NULL ? out : &ignored, err, HANG_GUARD * 2);
}

#define run_cli(env, err, ...) run_cli_out ((env), NULL, (err), __VA_ARGS__)

/* rivulet-cli inspect and load log in with --auth or RIVULET_AUTH. */
static void
test_cli (void)
{
  AuthServer as = { 0 };
  g_autofree char *err1 = NULL;
  g_autofree char *err2 = NULL;
  g_autofree char *err3 = NULL;
  g_autofree char *err4 = NULL;
  g_autofree char *err5 = NULL;
  g_autofree char *err6 = NULL;

  auth_server_start (&as);

  g_assert_cmpint (run_cli (NULL, &err1, "inspect", "--url", as.url, "--auth", USER ":" PASSWORD,
                            NULL), ==, 0);
  g_assert_cmpuint (as.n_logins, ==, 1);
  g_assert_cmpint (run_cli ("RIVULET_AUTH=" USER ":" PASSWORD, &err2, "inspect", "--url", as.url,
                            NULL), ==, 0);
  g_assert_cmpuint (as.n_logins, ==, 2);

  /* --auth wins over the environment. */
  g_assert_cmpint (run_cli ("RIVULET_AUTH=" USER ":wrong", &err3, "load", "--url", as.url,
                            "--endpoint", "predict", "--data", "[\"x\"]",
                            "--auth", USER ":" PASSWORD, NULL), ==, 0);
  g_assert_cmpuint (as.n_logins, ==, 3);
  g_assert_cmpuint (as.n_joins, ==, 1);

  /* Wrong, missing or malformed: a clear error and no job. */
  g_assert_cmpint (run_cli ("RIVULET_AUTH=" USER ":wrong", &err4, "load", "--url", as.url,
                            "--endpoint", "predict", "--data", "[\"x\"]", NULL), !=, 0);
  g_assert_nonnull (strstr (err4, "did not accept the user name and password"));
  g_assert_cmpint (run_cli (NULL, &err5, "load", "--url", as.url, "--endpoint", "predict",
                            "--data", "[\"x\"]", NULL), !=, 0);
  g_assert_nonnull (strstr (err5, "asks for a login"));
  g_assert_cmpint (run_cli (NULL, &err6, "inspect", "--url", as.url, "--auth", "nocolon",
                            NULL), ==, 2);
  g_assert_nonnull (strstr (err6, "USER:PASSWORD"));
  g_assert_cmpuint (as.n_joins, ==, 1);

  auth_server_stop (&as);
}

/* Virtual users log in too: every user's joins and stream carry the login
 * (the scripted server refuses them otherwise), and a wrong password stops
 * the run before any user submits. */
static void
test_cli_users (void)
{
  AuthServer as = { 0 };
  g_autofree char *out = NULL;
  g_autofree char *err = NULL;
  g_autofree char *err2 = NULL;
  g_autoptr(JsonParser) parser = json_parser_new ();
  g_autoptr(GError) error = NULL;
  JsonObject *summary;

  auth_server_start (&as);
  g_assert_cmpint (run_cli_out (NULL, &out, &err, "load", "--url", as.url, "--endpoint", "predict",
                                "--data", "[\"user {u}\"]", "--users", "4", "--iterations", "2",
                                "--json", "--auth", USER ":" PASSWORD, NULL), ==, 0);
  json_parser_load_from_data (parser, out, -1, &error);
  g_assert_no_error (error);
  summary = json_node_get_object (json_parser_get_root (parser));
  g_assert_cmpint (json_object_get_int_member (summary, "users"), ==, 4);
  g_assert_cmpint (json_object_get_int_member (summary, "completed"), ==, 8);
  g_assert_cmpint (json_object_get_int_member (summary, "failed"), ==, 0);
  g_assert_cmpint (json_object_get_int_member (summary, "lost"), ==, 0);
  g_assert_cmpuint (as.n_joins, ==, 8);
  /* A virtual user has one join at a time: none keeps a connection open
   * between its joins (with 10,000 users that would be 10,000 more). */
  g_assert_cmpuint (as.n_join_close, ==, 8);
  /* Each user its own stream (a new one per job here: the server closes it). */
  g_assert_cmpuint (as.n_streams, >=, 4);
  g_assert_cmpuint (as.n_logins, >=, 1);
  g_test_message ("4 users: %u logins, %u streams", as.n_logins, as.n_streams);

  g_assert_cmpint (run_cli (NULL, &err2, "load", "--url", as.url, "--endpoint", "predict",
                            "--data", "[\"x\"]", "--users", "4", "--iterations", "2",
                            "--auth", USER ":wrong", NULL), !=, 0);
  g_assert_nonnull (strstr (err2, "did not accept the user name and password"));
  g_assert_cmpuint (as.n_joins, ==, 8);

  auth_server_stop (&as);
}

/* Another server on this machine that counts what reaches it, and with what. */
typedef struct
{
  SoupServer *server;
  guint       port;
  guint       n_requests;
  guint       n_credentialed;  /* with a Cookie or an Authorization header */
} Elsewhere;

static void
elsewhere_handler (SoupServer        *server,
                   SoupServerMessage *msg,
                   const char        *path,
                   GHashTable        *query,
                   gpointer           user_data)
{
  Elsewhere *other = user_data;
  SoupMessageHeaders *headers = soup_server_message_get_request_headers (msg);

  other->n_requests++;
  if (soup_message_headers_get_one (headers, "Cookie") != NULL ||
      soup_message_headers_get_one (headers, "Authorization") != NULL)
    other->n_credentialed++;
  riv_test_reply (msg, 404, "application/json", "{\"detail\":\"Not Found\"}");
}

/* A config whose root names another origin (here another port, under
 * another name for this host): load stays on --url and says so; with
 * --follow-root the requests go there, but never the token or the login. */
static void
test_root_elsewhere (void)
{
  AuthServer as = { 0 };
  Elsewhere other = { 0 };
  g_autofree char *root = NULL;
  g_autofree char *err1 = NULL;
  g_autofree char *err2 = NULL;

  other.server = riv_test_server_new (elsewhere_handler, &other, NULL, &other.port);
  root = g_strdup_printf ("http://localhost:%u/app", other.port);
  as.root = root;
  auth_server_start (&as);

  g_assert_cmpint (run_cli (NULL, &err1, "load", "--url", as.url, "--endpoint", "predict",
                            "--data", "[\"x\"]", "--auth", USER ":" PASSWORD,
                            "--token", "hf_secret", NULL), ==, 0);
  g_assert_cmpuint (other.n_requests, ==, 0);
  g_assert_cmpuint (as.n_joins, ==, 1);
  g_assert_nonnull (strstr (err1, "warning"));
  g_assert_nonnull (strstr (err1, root));
  g_assert_nonnull (strstr (err1, "--follow-root"));

  g_assert_cmpint (run_cli (NULL, &err2, "load", "--url", as.url, "--endpoint", "predict",
                            "--data", "[\"x\"]", "--auth", USER ":" PASSWORD,
                            "--token", "hf_secret", "--follow-root", NULL), ==, 1);
  g_test_message ("--follow-root: %u requests elsewhere", other.n_requests);
  g_assert_cmpuint (other.n_requests, >, 0);
  g_assert_cmpuint (other.n_credentialed, ==, 0);
  g_assert_nonnull (strstr (err2, "following the server's root"));
  g_assert_cmpuint (as.n_joins, ==, 1);

  auth_server_stop (&as);
  riv_test_server_free (other.server);
}

/* The token from $RIVULET_TOKEN or --token-file (out of the process list),
 * never both options at once. */
static void
test_token_sources (void)
{
  AuthServer as = { .no_auth = TRUE };
  g_autoptr(GError) error = NULL;
  g_autofree char *dir = g_dir_make_tmp ("riv-test-auth-XXXXXX", &error);
  g_autofree char *file = g_build_filename (dir, "token", NULL);
  g_autofree char *missing = g_build_filename (dir, "none", NULL);
  g_autofree char *err1 = NULL;
  g_autofree char *err2 = NULL;
  g_autofree char *err3 = NULL;
  g_autofree char *err4 = NULL;
  guint seen;

  g_assert_no_error (error);
  g_assert_true (g_file_set_contents (file, TOKEN "\n", -1, NULL));
  auth_server_start (&as);

  g_assert_cmpint (run_cli ("RIVULET_TOKEN=" TOKEN, &err1, "inspect", "--url", as.url, NULL),
                   ==, 0);
  g_assert_cmpuint (as.n_bearer, >=, 1);
  seen = as.n_bearer;
  g_assert_cmpint (run_cli (NULL, &err2, "load", "--url", as.url, "--endpoint", "predict",
                            "--data", "[\"x\"]", "--token-file", file, NULL), ==, 0);
  g_assert_cmpuint (as.n_bearer, >, seen);
  g_assert_cmpint (run_cli (NULL, &err3, "inspect", "--url", as.url, "--token", TOKEN,
                            "--token-file", file, NULL), ==, 2);
  g_assert_nonnull (strstr (err3, "--token and --token-file"));
  g_assert_cmpint (run_cli (NULL, &err4, "inspect", "--url", as.url, "--token-file", missing,
                            NULL), ==, 2);
  g_assert_nonnull (strstr (err4, "--token-file"));

  auth_server_stop (&as);
  g_remove (file);
  g_rmdir (dir);
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_data_func ("/auth/login/gradio4", GINT_TO_POINTER (TRUE), test_login);
  g_test_add_data_func ("/auth/login/gradio6", GINT_TO_POINTER (FALSE), test_login);
  g_test_add_data_func ("/auth/wrong-password/gradio4", GINT_TO_POINTER (TRUE),
                        test_wrong_password);
  g_test_add_data_func ("/auth/wrong-password/gradio6", GINT_TO_POINTER (FALSE),
                        test_wrong_password);
  g_test_add_data_func ("/auth/login-required/gradio4", GINT_TO_POINTER (TRUE),
                        test_login_required);
  g_test_add_data_func ("/auth/login-required/gradio6", GINT_TO_POINTER (FALSE),
                        test_login_required);
  g_test_add_func ("/auth/no-login-needed", test_no_login_needed);
  g_test_add_func ("/auth/auth-string", test_auth_string);
  g_test_add_func ("/auth/authorize-request", test_authorize_request);
  g_test_add_func ("/auth/cli", test_cli);
  g_test_add_func ("/auth/cli-users", test_cli_users);
  g_test_add_func ("/auth/root-elsewhere", test_root_elsewhere);
  g_test_add_func ("/auth/token-sources", test_token_sources);

  return g_test_run ();
}
