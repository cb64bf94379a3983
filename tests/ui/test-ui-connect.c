/* test-ui-connect.c
 * Copyright 2026 The Rivulet authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The connect UI: a bad URL, an unreachable server, a server that is not
 * Gradio and one with an unsupported protocol each end in the documented
 * error state of the connect popover, and the header never claims a connection.
 * A Hugging Face Space by name (a fake Hub, riv-test-hub.h): its stage shown
 * while it builds, then its app connected with the token; a paused one, a
 * missing one and a bad name in the same error state.
 */
#include "config.h"

#include <adwaita.h>
#include <glib/gstdio.h>
#include <libsoup/soup.h>

#include "riv-test-hub.h"
#include "riv-test-util.h"
#include "riv-ui-test-util.h"
#include "riv-window-test.h"

typedef struct
{
  RivWindow  *window;
  SoupServer *server;    /* nullable */
  char       *url;       /* of server */
} Fixture;

static void
fixture_setup (Fixture       *fixture,
               gconstpointer  user_data)
{
  fixture->window = riv_window_new (NULL, NULL);
  g_object_add_weak_pointer (G_OBJECT (fixture->window), (gpointer *) &fixture->window);
  gtk_window_present (GTK_WINDOW (fixture->window));
}

static void
fixture_teardown (Fixture       *fixture,
                  gconstpointer  user_data)
{
  /* Pending callbacks hold references; they drop them once cancelled. */
  riv_ui_test_window_destroy (&fixture->window);

  if (fixture->server != NULL)
    {
      soup_server_disconnect (fixture->server);
      g_clear_object (&fixture->server);
    }
  g_clear_pointer (&fixture->url, g_free);
}

static gboolean
has_error (gpointer user_data)
{
  Fixture *fixture = user_data;

  return riv_connect_popover_get_error_kind (riv_window_get_connect_popover (fixture->window)) !=
         RIV_CONNECT_ERROR_NONE;
}

static void
connect_and_expect (Fixture             *fixture,
                    const char          *url,
                    RivConnectErrorKind  expected)
{
  RivConnectPopover *popover = riv_window_get_connect_popover (fixture->window);
  const char *text;

  riv_window_connect_to_url (fixture->window, url, NULL);
  g_assert_true (riv_test_wait_until (has_error, fixture, 30));

  g_assert_cmpint (riv_connect_popover_get_error_kind (popover), ==, expected);
  text = riv_connect_popover_get_error_text (popover);
  g_assert_nonnull (text);
  g_assert_cmpuint (strlen (text), >, 10);
  g_test_message ("%s → %s", url, text);

  /* Nothing claims to be connected. */
  g_assert_null (riv_window_get_client (fixture->window));
  g_assert_cmpstr (riv_window_get_status_text (fixture->window), ==, "Not connected");
}

static void
test_bad_url (Fixture       *fixture,
              gconstpointer  user_data)
{
  RivConnectPopover *popover = riv_window_get_connect_popover (fixture->window);

  connect_and_expect (fixture, "ftp://127.0.0.1/app", RIV_CONNECT_ERROR_BAD_URL);
  g_assert_nonnull (strstr (riv_connect_popover_get_error_text (popover), "ftp://127.0.0.1/app"));

  riv_connect_popover_set_error (popover, RIV_CONNECT_ERROR_NONE, NULL);
  connect_and_expect (fixture, "http://", RIV_CONNECT_ERROR_BAD_URL);
}

/* A CA file that cannot be used is the popover's error (read off the main
 * loop), and no connect is tried with it. */
static void
test_bad_ca_file (Fixture       *fixture,
                  gconstpointer  user_data)
{
  RivConnectPopover *popover = riv_window_get_connect_popover (fixture->window);
  g_autofree char *dir = g_dir_make_tmp ("riv-ca-XXXXXX", NULL);
  g_autofree char *missing = g_build_filename (dir, "missing.pem", NULL);
  g_autofree char *notes = g_build_filename (dir, "notes.txt", NULL);

  g_assert_true (g_file_set_contents (notes, "not a certificate\n", -1, NULL));
  riv_connect_popover_set_url (popover, "https://127.0.0.1:9/app");

  riv_connect_popover_set_ca_file (popover, missing);
  riv_connect_popover_activate (popover);
  g_assert_true (riv_test_wait_until (has_error, fixture, 30));
  g_assert_nonnull (strstr (riv_connect_popover_get_error_text (popover), "Cannot read the CA file"));
  g_assert_null (riv_window_get_client (fixture->window));
  g_assert_cmpstr (riv_window_get_status_text (fixture->window), ==, "Not connected");

  riv_connect_popover_set_error (popover, RIV_CONNECT_ERROR_NONE, NULL);
  riv_connect_popover_set_ca_file (popover, notes);
  riv_connect_popover_activate (popover);
  g_assert_true (riv_test_wait_until (has_error, fixture, 30));
  g_assert_nonnull (strstr (riv_connect_popover_get_error_text (popover), "is not a PEM certificate"));
  g_assert_null (riv_connect_popover_get_tls_database (popover));

  g_remove (notes);
  g_rmdir (dir);
}

static guint
closed_port (void)
{
  g_autoptr(GSocket) socket = NULL;
  g_autoptr(GInetAddress) loopback = g_inet_address_new_loopback (G_SOCKET_FAMILY_IPV4);
  g_autoptr(GSocketAddress) address = g_inet_socket_address_new (loopback, 0);
  g_autoptr(GSocketAddress) bound = NULL;
  g_autoptr(GError) error = NULL;
  guint port;

  socket = g_socket_new (G_SOCKET_FAMILY_IPV4, G_SOCKET_TYPE_STREAM, G_SOCKET_PROTOCOL_TCP, &error);
  g_assert_no_error (error);
  g_socket_bind (socket, address, FALSE, &error);
  g_assert_no_error (error);
  bound = g_socket_get_local_address (socket, &error);
  g_assert_no_error (error);
  port = g_inet_socket_address_get_port (G_INET_SOCKET_ADDRESS (bound));
  /* Bound but never listening: connections to it are refused. */
  g_socket_close (socket, NULL);

  return port;
}

static void
test_unreachable (Fixture       *fixture,
                  gconstpointer  user_data)
{
  g_autofree char *url = g_strdup_printf ("http://127.0.0.1:%u", closed_port ());

  connect_and_expect (fixture, url, RIV_CONNECT_ERROR_UNREACHABLE);
}

static void
serve_cb (SoupServer        *server,
          SoupServerMessage *msg,
          const char        *path,
          GHashTable        *query,
          gpointer           user_data)
{
  const char *mode = user_data;

  if (g_str_equal (mode, "html"))
    {
      static const char page[] = "<!doctype html><html><body>Just a web page</body></html>";

      soup_server_message_set_status (msg, SOUP_STATUS_OK, NULL);
      soup_server_message_set_response (msg, "text/html", SOUP_MEMORY_STATIC, page, strlen (page));
    }
  else if (g_str_equal (path, "/config"))
    {
      static const char config[] =
        "{\"protocol\":\"ws\",\"version\":\"3.50.0\",\"components\":[],"
        "\"dependencies\":[{\"id\":0,\"api_name\":\"predict\",\"inputs\":[],\"outputs\":[],"
        "\"queue\":true}]}";

      soup_server_message_set_status (msg, SOUP_STATUS_OK, NULL);
      soup_server_message_set_response (msg, "application/json", SOUP_MEMORY_STATIC,
                                        config, strlen (config));
    }
  else
    soup_server_message_set_status (msg, SOUP_STATUS_NOT_FOUND, NULL);
}

static void
start_server (Fixture    *fixture,
              const char *mode)
{
  g_autoptr(GError) error = NULL;
  g_autoslist(GUri) uris = NULL;

  fixture->server = soup_server_new (NULL, NULL);
  soup_server_add_handler (fixture->server, NULL, serve_cb, (gpointer) mode, NULL);
  soup_server_listen_local (fixture->server, 0, SOUP_SERVER_LISTEN_IPV4_ONLY, &error);
  g_assert_no_error (error);
  uris = soup_server_get_uris (fixture->server);
  g_assert_nonnull (uris);
  fixture->url = g_strdup_printf ("http://127.0.0.1:%d", g_uri_get_port (uris->data));
}

static void
test_not_gradio (Fixture       *fixture,
                 gconstpointer  user_data)
{
  start_server (fixture, "html");
  connect_and_expect (fixture, fixture->url, RIV_CONNECT_ERROR_NOT_GRADIO);
}

static void
test_unsupported (Fixture       *fixture,
                  gconstpointer  user_data)
{
  start_server (fixture, "ws");
  connect_and_expect (fixture, fixture->url, RIV_CONNECT_ERROR_UNSUPPORTED);
  g_assert_nonnull (strstr (riv_connect_popover_get_error_text (
                              riv_window_get_connect_popover (fixture->window)), "ws"));
}

/* The fake Hub at HF_ENDPOINT, its Spaces' apps on one stand-in app, and
 * no token but what a test types. */
typedef struct
{
  AuthServer  app;
  RivTestHub  hub;
  char       *home;
} SpaceHub;

static void
space_hub_start (SpaceHub *sh)
{
  sh->app.no_auth = TRUE;
  sh->app.hf_token = RIV_TEST_HF_TOKEN;
  auth_server_start (&sh->app);
  sh->hub.running_host = sh->app.url;
  sh->hub.app = &sh->app;
  riv_test_hub_start (&sh->hub);
  sh->home = g_dir_make_tmp ("riv-test-ui-hub-XXXXXX", NULL);
  g_setenv ("HF_ENDPOINT", sh->hub.url, TRUE);
  g_setenv ("HF_HOME", sh->home, TRUE);
  g_unsetenv ("HF_TOKEN");
  g_unsetenv ("HUGGING_FACE_HUB_TOKEN");
  g_unsetenv ("HF_TOKEN_PATH");
}

static void
space_hub_stop (SpaceHub *sh)
{
  g_unsetenv ("HF_ENDPOINT");
  g_unsetenv ("HF_HOME");
  riv_test_hub_stop (&sh->hub);
  auth_server_stop (&sh->app);
  riv_test_remove_dir (sh->home);
  g_free (sh->home);
}

typedef struct
{
  Fixture   *fixture;
  gboolean   saw_building;
  RivClient *previous;   /* the client before a reconnection (not dereferenced) */
} SpaceWait;

static gboolean
space_connected (gpointer user_data)
{
  SpaceWait *wait = user_data;
  const char *busy = riv_connect_popover_get_busy_text (
    riv_window_get_connect_popover (wait->fixture->window));

  if (strstr (busy, "Space demo/building is building (stage BUILDING)") != NULL)
    wait->saw_building = TRUE;
  return riv_window_get_client (wait->fixture->window) != NULL;
}

static gboolean
space_reconnected (gpointer user_data)
{
  SpaceWait *wait = user_data;
  RivClient *client = riv_window_get_client (wait->fixture->window);

  return client != NULL && client != wait->previous && riv_client_get_config (client) != NULL;
}

/* Connects to url, which fails, while connected: the client stays. */
static void
connect_and_expect_kept (Fixture    *fixture,
                         const char *url)
{
  RivClient *client = riv_window_get_client (fixture->window);

  riv_window_connect_to_url (fixture->window, url, NULL);
  g_assert_true (riv_test_wait_until (has_error, fixture, 30));
  g_assert_true (riv_window_get_client (fixture->window) == client);
}

/* A Space that builds, then runs: the popover says so, then the window is
 * connected to its app, the token typed sent to the app as the Space's. */
static void
test_space (Fixture       *fixture,
            gconstpointer  user_data)
{
  SpaceHub sh = { 0 };
  SpaceWait wait = { fixture, FALSE, NULL };
  RivConnectPopover *popover = riv_window_get_connect_popover (fixture->window);
  g_autofree char *command = NULL;
  RivClient *client;
  guint hub_requests, hub_bearer, app_requests;

  space_hub_start (&sh);
  riv_window_connect_to_url (fixture->window, "demo/building", RIV_TEST_HF_TOKEN);
  g_assert_cmpstr (riv_window_get_status_text (fixture->window), ==, "Connecting…");
  g_assert_true (riv_test_wait_until (space_connected, &wait, 30));
  g_assert_true (wait.saw_building);
  g_assert_cmpstr (riv_client_get_url (riv_window_get_client (fixture->window)), ==, sh.app.url);
  g_assert_cmpuint (sh.hub.n_bearer, ==, sh.hub.n_requests);
  g_assert_cmpuint (sh.app.n_requests, >=, 1);
  g_assert_cmpuint (sh.app.n_hf_bearer, ==, sh.app.n_requests);
  g_assert_cmpuint (sh.app.n_bearer, ==, 0);
  /* The popover keeps the Space's name, not its host, and so does Copy as Command. */
  g_assert_cmpstr (riv_connect_popover_get_url (popover), ==, "demo/building");
  command = riv_window_dup_load_command (fixture->window);
  g_assert_nonnull (command);
  g_assert_nonnull (strstr (command, "--url demo/building "));
  g_assert_null (strstr (command, RIV_TEST_HF_TOKEN));

  /* A Space that fails afterwards leaves the connection as it was. */
  connect_and_expect_kept (fixture, "demo/paused");
  g_clear_pointer (&command, g_free);
  command = riv_window_dup_load_command (fixture->window);
  g_assert_nonnull (strstr (command, "--url demo/building "));

  /* Reconnect asks the Hub again by name, and the app gets the token again. */
  client = wait.previous = riv_window_get_client (fixture->window);
  hub_requests = sh.hub.n_requests;
  hub_bearer = sh.hub.n_bearer;
  app_requests = sh.app.n_requests;
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (fixture->window), "win.reconnect", NULL));
  g_assert_true (riv_test_wait_until (space_reconnected, &wait, 30));
  g_assert_true (riv_window_get_client (fixture->window) != client);
  g_assert_cmpuint (sh.hub.n_requests, >, hub_requests);
  g_assert_cmpuint (sh.hub.n_bearer - hub_bearer, ==, sh.hub.n_requests - hub_requests);
  g_assert_cmpuint (sh.app.n_requests, >, app_requests);
  g_assert_cmpuint (sh.app.n_hf_bearer, ==, sh.app.n_requests);
  space_hub_stop (&sh);
}

/* Paused, missing, a bad name: the error state, with the Hub's words. */
static void
test_space_errors (Fixture       *fixture,
                   gconstpointer  user_data)
{
  SpaceHub sh = { 0 };
  RivConnectPopover *popover = riv_window_get_connect_popover (fixture->window);

  space_hub_start (&sh);
  connect_and_expect (fixture, "demo/paused", RIV_CONNECT_ERROR_OTHER);
  g_assert_nonnull (strstr (riv_connect_popover_get_error_text (popover),
                            "Space demo/paused has been paused by its owner (stage PAUSED)"));
  connect_and_expect (fixture, "demo/nowhere", RIV_CONNECT_ERROR_REFUSED);
  g_assert_nonnull (strstr (riv_connect_popover_get_error_text (popover),
                            "HTTP 404, RepoNotFound: Repository not found"));
  connect_and_expect (fixture, "demo/", RIV_CONNECT_ERROR_BAD_URL);
  g_assert_nonnull (strstr (riv_connect_popover_get_error_text (popover),
                            "is not a Space's name"));
  g_assert_cmpuint (sh.app.n_requests, ==, 0);
  space_hub_stop (&sh);
}

int
main (int   argc,
      char *argv[])
{
  riv_ui_test_init (&argc, &argv);

  g_test_add ("/ui/connect/bad-url", Fixture, NULL, fixture_setup, test_bad_url, fixture_teardown);
  g_test_add ("/ui/connect/bad-ca-file", Fixture, NULL, fixture_setup, test_bad_ca_file,
              fixture_teardown);
  g_test_add ("/ui/connect/unreachable", Fixture, NULL, fixture_setup, test_unreachable,
              fixture_teardown);
  g_test_add ("/ui/connect/not-gradio", Fixture, NULL, fixture_setup, test_not_gradio,
              fixture_teardown);
  g_test_add ("/ui/connect/unsupported-protocol", Fixture, NULL, fixture_setup, test_unsupported,
              fixture_teardown);
  g_test_add ("/ui/connect/space", Fixture, NULL, fixture_setup, test_space, fixture_teardown);
  g_test_add ("/ui/connect/space-errors", Fixture, NULL, fixture_setup, test_space_errors,
              fixture_teardown);

  return g_test_run ();
}
