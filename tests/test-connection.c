/* test-connection.c
 * Copyright 2026 The Rivulet authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * RivConnection (riv-connection.h), headless, against the embedded demo
 * server on 127.0.0.1 port 0: a connect and its config's endpoints, the
 * embedded server named by its URL, a connection replacing the one before
 * (closed) and an attempt replacing one still under way (never heard of
 * again), addresses that fail with a clear error, and a Space by name at a
 * fake Hub (riv-test-hub.h).
 */
#include "config.h"

#include "riv-connection.h"
#include "riv-space.h"
#include "riv-test-hub.h"
#include "riv-test-served.h"
#include "riv-test-util.h"

#define WAIT_S 30.0

typedef struct
{
  RivTestServed  served;
  RivConnection *connection;
  guint          n_prepared;
  guint          n_connected;
  guint          n_failed;
  guint          n_progress;
  gboolean       saw_resolving;
  GError        *error;         /* the last "failed" */
  RivClient     *connected;     /* the last "connected" */
  RivClient     *prepared;      /* the last "prepare-client" */
} Fixture;

static void
prepare_cb (RivConnection *connection,
            RivClient     *client,
            Fixture       *fx)
{
  fx->n_prepared++;
  g_set_object (&fx->prepared, client);
  g_assert_true (riv_connection_get_pending_client (connection) == client);
}

static void
connected_cb (RivConnection *connection,
              RivClient     *client,
              Fixture       *fx)
{
  fx->n_connected++;
  g_set_object (&fx->connected, client);
  g_assert_true (riv_connection_get_client (connection) == client);
}

static void
failed_cb (RivConnection *connection,
           const GError  *error,
           Fixture       *fx)
{
  fx->n_failed++;
  g_clear_error (&fx->error);
  fx->error = g_error_copy (error);
}

static void
state_cb (RivConnection *connection,
          GParamSpec    *pspec,
          Fixture       *fx)
{
  if (riv_connection_get_state (connection) == RIV_CONNECTION_STATE_RESOLVING)
    fx->saw_resolving = TRUE;
}

static void
progress_cb (RivConnection *connection,
             const char    *stage,
             const char    *message,
             Fixture       *fx)
{
  fx->n_progress++;
}

static void
fixture_setup (Fixture       *fx,
               gconstpointer  data)
{
  riv_test_served_start (&fx->served, NULL, "riv-test-connection");
  fx->connection = riv_connection_new ();
  g_signal_connect (fx->connection, "prepare-client", G_CALLBACK (prepare_cb), fx);
  g_signal_connect (fx->connection, "connected", G_CALLBACK (connected_cb), fx);
  g_signal_connect (fx->connection, "failed", G_CALLBACK (failed_cb), fx);
  g_signal_connect (fx->connection, "notify::state", G_CALLBACK (state_cb), fx);
  g_signal_connect (fx->connection, "space-progress", G_CALLBACK (progress_cb), fx);
}

static void
fixture_teardown (Fixture       *fx,
                  gconstpointer  data)
{
  g_clear_object (&fx->connection);
  g_clear_object (&fx->connected);
  g_clear_object (&fx->prepared);
  g_clear_error (&fx->error);
  riv_test_drain ();
  riv_test_served_stop (&fx->served);
}

static gboolean
settled (gpointer user_data)
{
  Fixture *fx = user_data;

  return riv_connection_get_state (fx->connection) == RIV_CONNECTION_STATE_IDLE;
}

static void
wait_settled (Fixture *fx)
{
  g_assert_true (riv_test_wait_until (settled, fx, WAIT_S));
}

/* Whether client was closed: a closed client refuses every submission so
 * (an open one refuses this one for its unknown endpoint). */
static gboolean
client_is_closed (RivClient *client)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(RivJob) job = riv_client_submit (client, "/no-such-endpoint", NULL, &error);

  g_assert_null (job);
  return g_error_matches (error, RIV_CLIENT_ERROR, RIV_CLIENT_ERROR_NOT_CONNECTED);
}

/* A port nothing listens on: one that was just given and let go. */
static char *
dup_closed_url (void)
{
  g_autoptr(GSocket) socket = g_socket_new (G_SOCKET_FAMILY_IPV4, G_SOCKET_TYPE_STREAM,
                                            G_SOCKET_PROTOCOL_TCP, NULL);
  g_autoptr(GInetAddress) loopback = g_inet_address_new_loopback (G_SOCKET_FAMILY_IPV4);
  g_autoptr(GSocketAddress) any = g_inet_socket_address_new (loopback, 0);
  g_autoptr(GSocketAddress) bound = NULL;
  guint16 port;

  g_assert_true (g_socket_bind (socket, any, TRUE, NULL));
  bound = g_socket_get_local_address (socket, NULL);
  port = g_inet_socket_address_get_port (G_INET_SOCKET_ADDRESS (bound));
  g_socket_close (socket, NULL);
  return g_strdup_printf ("http://127.0.0.1:%u", port);
}

static void
test_connect (Fixture       *fx,
              gconstpointer  data)
{
  g_autofree char *url = riv_client_normalize_url (fx->served.url, NULL);
  g_autoptr(RivClient) first = NULL;
  GPtrArray *endpoints;

  g_assert_null (riv_connection_get_client (fx->connection));
  g_assert_cmpuint (riv_connection_get_endpoints (fx->connection)->len, ==, 0);

  riv_connection_connect (fx->connection, fx->served.url, "s3cret");
  g_assert_cmpint (riv_connection_get_state (fx->connection), ==,
                   RIV_CONNECTION_STATE_CONNECTING);
  g_assert_cmpstr (riv_connection_get_pending_url (fx->connection), ==, url);
  g_assert_cmpuint (fx->n_prepared, ==, 1);
  wait_settled (fx);

  g_assert_cmpuint (fx->n_connected, ==, 1);
  g_assert_cmpuint (fx->n_failed, ==, 0);
  first = g_object_ref (riv_connection_get_client (fx->connection));
  g_assert_true (first == fx->prepared);
  g_assert_cmpstr (riv_connection_get_url (fx->connection), ==, url);
  g_assert_cmpstr (riv_connection_get_token (fx->connection), ==, "s3cret");
  g_assert_null (riv_connection_get_pending_url (fx->connection));
  g_assert_null (riv_connection_get_space_id (fx->connection));
  g_assert_false (riv_connection_get_embedded (fx->connection));
  g_assert_null (riv_connection_get_error (fx->connection));
  g_assert_nonnull (riv_connection_get_config (fx->connection));

  /* The demos' endpoints one can call, each of the config. */
  endpoints = riv_connection_get_endpoints (fx->connection);
  g_assert_cmpuint (endpoints->len, >, 3);
  for (guint i = 0; i < endpoints->len; i++)
    {
      RivEndpoint *endpoint = g_ptr_array_index (endpoints, i);

      g_assert_true (endpoint->is_public || endpoint->renders);
    }

  /* The embedded server, named by its owner: a second connection replaces
   * the first, which is closed. */
  riv_connection_set_embedded_url (fx->connection, fx->served.url);
  riv_connection_connect (fx->connection, fx->served.url, NULL);
  g_assert_true (riv_connection_get_pending_embedded (fx->connection));
  g_assert_true (riv_connection_get_client (fx->connection) == first);
  wait_settled (fx);
  g_assert_cmpuint (fx->n_connected, ==, 2);
  g_assert_true (riv_connection_get_client (fx->connection) != first);
  g_assert_true (riv_connection_get_embedded (fx->connection));
  g_assert_null (riv_connection_get_token (fx->connection));
  g_assert_true (client_is_closed (first));
  g_assert_false (client_is_closed (riv_connection_get_client (fx->connection)));
}

static void
test_replace_pending (Fixture       *fx,
                      gconstpointer  data)
{
  /* A server that never answers: listening, never accepting. */
  g_autoptr(GSocket) mute = g_socket_new (G_SOCKET_FAMILY_IPV4, G_SOCKET_TYPE_STREAM,
                                          G_SOCKET_PROTOCOL_TCP, NULL);
  g_autoptr(GInetAddress) loopback = g_inet_address_new_loopback (G_SOCKET_FAMILY_IPV4);
  g_autoptr(GSocketAddress) any = g_inet_socket_address_new (loopback, 0);
  g_autoptr(GSocketAddress) bound = NULL;
  g_autofree char *mute_url = NULL;
  g_autoptr(RivClient) dropped = NULL;

  g_assert_true (g_socket_bind (mute, any, TRUE, NULL));
  g_assert_true (g_socket_listen (mute, NULL));
  bound = g_socket_get_local_address (mute, NULL);
  mute_url = g_strdup_printf ("http://127.0.0.1:%u",
                              g_inet_socket_address_get_port (G_INET_SOCKET_ADDRESS (bound)));

  riv_connection_connect (fx->connection, mute_url, NULL);
  dropped = g_object_ref (riv_connection_get_pending_client (fx->connection));
  /* Its request is on its way when the user changes their mind. */
  for (guint i = 0; i < 20; i++)
    g_main_context_iteration (NULL, FALSE);
  g_assert_cmpint (riv_connection_get_state (fx->connection), ==,
                   RIV_CONNECTION_STATE_CONNECTING);

  riv_connection_connect (fx->connection, fx->served.url, NULL);
  g_assert_true (riv_connection_get_pending_client (fx->connection) != dropped);
  wait_settled (fx);

  g_assert_cmpuint (fx->n_connected, ==, 1);
  g_assert_cmpuint (fx->n_failed, ==, 0);
  g_assert_true (riv_connection_get_client (fx->connection) != dropped);
  g_assert_cmpstr (riv_client_get_url (riv_connection_get_client (fx->connection)), !=, mute_url);
  /* The dropped attempt ends quietly: closed, and never heard of again. */
  riv_test_drain ();
  g_assert_true (client_is_closed (dropped));
  g_assert_cmpuint (fx->n_connected, ==, 1);
  g_assert_cmpuint (fx->n_failed, ==, 0);

  /* A cancel drops an attempt and keeps the client. */
  riv_connection_connect (fx->connection, mute_url, NULL);
  riv_connection_cancel (fx->connection);
  g_assert_cmpint (riv_connection_get_state (fx->connection), ==, RIV_CONNECTION_STATE_IDLE);
  g_assert_null (riv_connection_get_pending_client (fx->connection));
  riv_test_drain ();
  g_assert_cmpuint (fx->n_failed, ==, 0);
  g_assert_false (client_is_closed (riv_connection_get_client (fx->connection)));
}

static void
test_failures (Fixture       *fx,
               gconstpointer  data)
{
  g_autofree char *closed_url = dup_closed_url ();

  /* Not an address: refused at once, named, and what was typed not kept. */
  riv_connection_connect (fx->connection, "ftp://example.org/x", NULL);
  g_assert_cmpuint (fx->n_failed, ==, 1);
  g_assert_error (fx->error, RIV_CLIENT_ERROR, RIV_CLIENT_ERROR_BAD_URL);
  g_assert_cmpint (riv_connection_get_state (fx->connection), ==, RIV_CONNECTION_STATE_IDLE);
  g_assert_null (riv_connection_get_pending_url (fx->connection));
  g_assert_nonnull (riv_connection_get_error (fx->connection));
  g_assert_cmpuint (fx->n_prepared, ==, 0);

  /* Nothing listens there: the connect fails with the reason, the address kept
   * (a login may retry it), nothing connected. */
  riv_connection_connect (fx->connection, closed_url, NULL);
  wait_settled (fx);
  g_assert_cmpuint (fx->n_failed, ==, 2);
  g_assert_false (g_error_matches (fx->error, G_IO_ERROR, G_IO_ERROR_CANCELLED));
  g_assert_cmpstr (fx->error->message, !=, "");
  g_assert_cmpstr (riv_connection_get_pending_url (fx->connection), ==, closed_url);
  g_assert_null (riv_connection_get_client (fx->connection));
  g_assert_null (riv_connection_get_pending_client (fx->connection));
  g_assert_cmpuint (fx->n_connected, ==, 0);

  /* The same address again, once something listens: the retry connects. */
  riv_connection_retry (fx->connection, fx->served.url, FALSE);
  wait_settled (fx);
  g_assert_cmpuint (fx->n_connected, ==, 1);
  g_assert_null (riv_connection_get_error (fx->connection));
}

static void
test_space (Fixture       *fx,
            gconstpointer  data)
{
  RivTestHub hub = { .running_host = fx->served.url };
  g_autofree char *url = riv_client_normalize_url (fx->served.url, NULL);

  riv_test_hub_start (&hub);
  g_setenv ("HF_ENDPOINT", hub.url, TRUE);
  g_setenv ("HF_HOME", fx->served.dir, TRUE);
  g_unsetenv ("HF_TOKEN");

  g_assert_true (riv_connection_is_space_name ("demo/running"));
  g_assert_false (riv_connection_is_space_name (fx->served.url));

  riv_connection_connect (fx->connection, "demo/running", NULL);
  g_assert_cmpint (riv_connection_get_state (fx->connection), ==,
                   RIV_CONNECTION_STATE_RESOLVING);
  g_assert_cmpstr (riv_connection_get_pending_space_id (fx->connection), ==, "demo/running");
  wait_settled (fx);
  g_assert_true (fx->saw_resolving);
  g_assert_cmpuint (fx->n_connected, ==, 1);
  g_assert_cmpstr (riv_connection_get_space_id (fx->connection), ==, "demo/running");
  g_assert_cmpstr (riv_connection_get_url (fx->connection), ==, url);

  /* A paused Space: the Hub's stage, in plain words, and no client made. */
  riv_connection_connect (fx->connection, "demo/paused", NULL);
  wait_settled (fx);
  g_assert_cmpuint (fx->n_failed, ==, 1);
  g_assert_error (fx->error, RIV_SPACE_ERROR, RIV_SPACE_ERROR_STAGE);
  g_assert_nonnull (g_strrstr (fx->error->message, "paused"));
  g_assert_cmpuint (fx->n_prepared, ==, 1);
  /* The Space connected before stays. */
  g_assert_cmpstr (riv_connection_get_space_id (fx->connection), ==, "demo/running");

  /* One the Hub does not know. */
  riv_connection_connect (fx->connection, "demo/missing", NULL);
  wait_settled (fx);
  g_assert_cmpuint (fx->n_failed, ==, 2);
  g_assert_error (fx->error, RIV_SPACE_ERROR, RIV_SPACE_ERROR_HUB);

  g_unsetenv ("HF_ENDPOINT");
  g_unsetenv ("HF_HOME");
  riv_test_hub_stop (&hub);
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);

  g_test_add ("/connection/connect", Fixture, NULL, fixture_setup, test_connect,
              fixture_teardown);
  g_test_add ("/connection/replace-pending", Fixture, NULL, fixture_setup,
              test_replace_pending, fixture_teardown);
  g_test_add ("/connection/failures", Fixture, NULL, fixture_setup, test_failures,
              fixture_teardown);
  g_test_add ("/connection/space", Fixture, NULL, fixture_setup, test_space, fixture_teardown);

  return g_test_run ();
}
