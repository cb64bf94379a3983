/* riv-test-util.c
 * Copyright 2026 The Rivulet authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "config.h"

#include <string.h>

#include <glib/gstdio.h>

#include "riv-test-util.h"

typedef struct
{
  gboolean timed_out;
} WaitState;

static gboolean
wait_timeout_cb (gpointer user_data)
{
  WaitState *state = user_data;

  state->timed_out = TRUE;
  return G_SOURCE_REMOVE;
}

gboolean
riv_test_wait_until (gboolean (*func) (gpointer user_data),
                     gpointer   user_data,
                     double     timeout_s)
{
  GMainContext *context = g_main_context_get_thread_default ();
  WaitState state = { FALSE };
  GSource *source;

  source = g_timeout_source_new ((guint) (timeout_s * 1000));
  g_source_set_callback (source, wait_timeout_cb, &state, NULL);
  g_source_attach (source, context);

  while (!func (user_data) && !state.timed_out)
    g_main_context_iteration (context, TRUE);

  g_source_destroy (source);
  g_source_unref (source);

  return func (user_data);
}

static gboolean
flag_is_set (gpointer user_data)
{
  return *(gboolean *) user_data;
}

gboolean
riv_test_wait_for (gboolean *flag,
                   double    timeout_s)
{
  return riv_test_wait_until (flag_is_set, flag, timeout_s);
}

void
riv_test_async_result_cb (GObject      *object,
                          GAsyncResult *result,
                          gpointer      user_data)
{
  GAsyncResult **slot = user_data;

  g_assert_null (*slot);
  *slot = g_object_ref (result);
}

static gboolean
slot_is_set (gpointer user_data)
{
  return *(GAsyncResult **) user_data != NULL;
}

void
riv_test_drain (void)
{
  for (guint i = 0; i < 100 && g_main_context_iteration (NULL, FALSE); i++)
    ;
}

GAsyncResult *
riv_test_wait_result (GAsyncResult **slot,
                      double         timeout_s)
{
  riv_test_wait_until (slot_is_set, slot, timeout_s);
  g_assert_nonnull (*slot);
  return *slot;
}

void
riv_test_reply (SoupServerMessage *msg,
                guint              status,
                const char        *content_type,
                const char        *body)
{
  soup_server_message_set_status (msg, status, NULL);
  soup_server_message_set_response (msg, content_type, SOUP_MEMORY_COPY, body, strlen (body));
}

void
riv_test_reply_json (SoupServerMessage *msg,
                     guint              status,
                     const char        *json)
{
  riv_test_reply (msg, status, "application/json", json);
}

SoupServer *
riv_test_server_new (SoupServerCallback   handler,
                     gpointer             user_data,
                     char               **url,
                     guint               *port)
{
  SoupServer *server = soup_server_new (NULL, NULL);
  g_autoptr(GError) error = NULL;
  GSList *uris;

  soup_server_add_handler (server, NULL, handler, user_data, NULL);
  soup_server_listen_local (server, 0, SOUP_SERVER_LISTEN_IPV4_ONLY, &error);
  g_assert_no_error (error);
  uris = soup_server_get_uris (server);
  if (url != NULL)
    *url = g_strdup_printf ("http://127.0.0.1:%d", g_uri_get_port (uris->data));
  if (port != NULL)
    *port = (guint) g_uri_get_port (uris->data);
  g_slist_free_full (uris, (GDestroyNotify) g_uri_unref);
  return server;
}

void
riv_test_server_free (SoupServer *server)
{
  soup_server_disconnect (server);
  riv_test_drain ();
  g_object_unref (server);
}

char *
riv_test_load_data (const char *name,
                    gsize      *length)
{
  g_autofree char *path = g_test_build_filename (G_TEST_DIST, "data", name, NULL);
  g_autoptr(GError) error = NULL;
  char *contents = NULL;

  g_file_get_contents (path, &contents, length, &error);
  g_assert_no_error (error);
  return contents;
}

int
riv_test_run_cli (const char * const  *args,
                  char               **out,
                  char               **err,
                  double               timeout_s)
{
  return riv_test_run_cli_env (NULL, args, out, err, timeout_s);
}

GPtrArray *
riv_test_load_argv (const char         *program,
                    const char         *url,
                    const char * const *args)
{
  GPtrArray *argv = g_ptr_array_new ();

  if (program != NULL)
    g_ptr_array_add (argv, (char *) program);
  g_ptr_array_add (argv, (char *) "load");
  g_ptr_array_add (argv, (char *) "--url");
  g_ptr_array_add (argv, (char *) url);
  for (guint i = 0; args[i] != NULL; i++)
    g_ptr_array_add (argv, (char *) args[i]);
  g_ptr_array_add (argv, NULL);
  return argv;
}

int
riv_test_run_cli_env (const char          *env,
                      const char * const  *args,
                      char               **out,
                      char               **err,
                      double               timeout_s)
{
  g_autoptr(GPtrArray) argv = g_ptr_array_new ();
  const char *cli = g_getenv ("RIVULET_CLI");

  g_assert_nonnull (cli);
  g_ptr_array_add (argv, (char *) cli);
  for (guint i = 0; args[i] != NULL; i++)
    g_ptr_array_add (argv, (char *) args[i]);
  g_ptr_array_add (argv, NULL);
  return riv_test_run_env (env, (const char * const *) argv->pdata, out, err, timeout_s);
}

int
riv_test_run_env (const char          *env,
                  const char * const  *argv,
                  char               **out,
                  char               **err,
                  double               timeout_s)
{
  g_autoptr(GSubprocessLauncher) launcher = NULL;
  g_autoptr(GSubprocess) process = NULL;
  g_autoptr(GAsyncResult) result = NULL;
  g_autoptr(GError) error = NULL;
  static const char * const hf_names[] = {
    "HF_TOKEN", "HUGGING_FACE_HUB_TOKEN", "HF_TOKEN_PATH", "HF_HOME", "HF_ENDPOINT",
  };

  launcher = g_subprocess_launcher_new (G_SUBPROCESS_FLAGS_STDOUT_PIPE |
                                        G_SUBPROCESS_FLAGS_STDERR_PIPE);
  g_subprocess_launcher_unsetenv (launcher, "RIVULET_AUTH");
  g_subprocess_launcher_unsetenv (launcher, "RIVULET_TOKEN");
  for (guint i = 0; i < G_N_ELEMENTS (hf_names); i++)
    g_subprocess_launcher_unsetenv (launcher, hf_names[i]);
  if (env != NULL)
    {
      g_auto(GStrv) lines = g_strsplit (env, "\n", -1);

      for (guint i = 0; lines[i] != NULL; i++)
        {
          g_auto(GStrv) pair = g_strsplit (lines[i], "=", 2);

          g_assert_nonnull (pair[1]);
          g_subprocess_launcher_setenv (launcher, pair[0], pair[1], TRUE);
        }
    }
  process = g_subprocess_launcher_spawnv (launcher, argv, &error);
  g_assert_no_error (error);
  g_subprocess_communicate_utf8_async (process, NULL, NULL, riv_test_async_result_cb, &result);
  riv_test_wait_result (&result, timeout_s);
  g_subprocess_communicate_utf8_finish (process, result, out, err, &error);
  g_assert_no_error (error);
  g_subprocess_wait (process, NULL, &error);
  g_assert_no_error (error);
  g_assert_true (g_subprocess_get_if_exited (process));
  return g_subprocess_get_exit_status (process);
}

void
riv_test_cli_run_clear (RivTestCliRun *run)
{
  g_clear_pointer (&run->out, g_free);
  g_clear_pointer (&run->err, g_free);
}

int
riv_test_compare_doubles (gconstpointer a,
                          gconstpointer b)
{
  double x = *(const double *) a, y = *(const double *) b;

  return (x > y) - (x < y);
}

void
riv_test_remove_dir (const char *path)
{
  g_autoptr(GDir) dir = g_dir_open (path, 0, NULL);
  const char *name;

  while (dir != NULL && (name = g_dir_read_name (dir)) != NULL)
    {
      g_autofree char *child = g_build_filename (path, name, NULL);

      g_remove (child);
    }
  g_rmdir (path);
}
