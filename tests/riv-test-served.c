/* riv-test-served.c
 * Copyright 2026 The Rivulet authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "config.h"

#include "riv-test-served.h"
#include "riv-json.h"
#include "riv-test-util.h"

void
riv_test_served_start (RivTestServed *fx,
                       RivServer     *server,
                       const char    *prefix)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *template = g_strconcat (prefix, "-XXXXXX", NULL);

  fx->server = server != NULL ? server : riv_server_new ();
  g_assert_true (riv_server_listen (fx->server, NULL, 0, &error));
  g_assert_no_error (error);
  fx->url = riv_server_dup_url (fx->server);
  fx->dir = g_dir_make_tmp (template, &error);
  g_assert_no_error (error);
}

void
riv_test_served_stop (RivTestServed *fx)
{
  riv_server_shutdown (fx->server);
  riv_test_drain ();
  g_clear_object (&fx->server);
  riv_test_remove_dir (fx->dir);
  g_clear_pointer (&fx->dir, g_free);
  g_clear_pointer (&fx->url, g_free);
}

void
riv_test_served_setup (RivTestServed *fx,
                       gconstpointer  prefix)
{
  riv_test_served_start (fx, NULL, prefix);
}

void
riv_test_served_teardown (RivTestServed *fx,
                          gconstpointer  data)
{
  riv_test_served_stop (fx);
}

int
riv_test_served_load (RivTestServed       *fx,
                      const char * const  *args,
                      JsonNode           **summary,
                      char               **err)
{
  g_autoptr(GPtrArray) argv = riv_test_load_argv (NULL, fx->url, args);
  g_autofree char *out = NULL;
  int status;

  status = riv_test_run_cli ((const char * const *) argv->pdata, &out, err, 120);
  g_test_message ("%s%s", out, *err);
  if (summary != NULL)
    *summary = *out != '\0' ? riv_json_parse (NULL, out, -1, 0, NULL) : NULL;
  return status;
}
