/* test-fuzz-regressions.c
 * Copyright 2026 The Rivulet authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Replays every seed (tests/fuzz/corpus/TARGET/…) and every input the
 * fuzzers once failed on (tests/fuzz/regressions/TARGET/…) through the same
 * checking entry points as the libFuzzer targets (tests/fuzz/fuzz-entry-*.c),
 * one subtest per file. Needs no clang: it runs in every `make test`.
 *
 * RivServer's request handlers are static, so the fuzz targets for request
 * bodies can only follow their steps (see fuzz-entry-server-body.c and
 * fuzz-entry-upload.c). Here, where speed does not matter, those inputs are
 * also sent to a real RivServer on 127.0.0.1: it must answer with a sane
 * status and JSON, and keep serving.
 *
 * tests/fuzz/regressions/KNOWN lists inputs of bugs that are reported but not
 * fixed yet ("<target>/<file> <reason>" per line); they are replayed in a
 * subprocess and reported as TODO while they still fail.
 */
#include "config.h"

#include <libsoup/soup.h>
#include <string.h>

#include "fuzz/fuzz-entry.h"
#include "riv-json.h"
#include "riv-server.h"
#include "riv-test-util.h"

typedef struct
{
  const char  *name;
  RivFuzzFunc  func;
  RivFuzzFunc  server_func;   /* nullable: the same input against a real RivServer */
} Target;

static void replay_server_body (const guint8 *data,
                                gsize         size);
static void replay_upload      (const guint8 *data,
                                gsize         size);

static const Target targets[] = {
  { "sse-reader", riv_fuzz_sse_reader, NULL },
  { "http-reply", riv_fuzz_http_reply, NULL },
  { "message", riv_fuzz_message, NULL },
  { "diff", riv_fuzz_diff, NULL },
  { "config", riv_fuzz_config, NULL },
  { "server-body", riv_fuzz_server_body, replay_server_body },
  { "wire", riv_fuzz_wire, NULL },
  { "upload", riv_fuzz_upload, replay_upload },
  { "transcript", riv_fuzz_transcript, NULL },
  { "load-options", riv_fuzz_load_options, NULL },
  { "json", riv_fuzz_json, NULL },
  { "record", riv_fuzz_record, NULL },
  { "brief", riv_fuzz_brief, NULL },
  { "range", riv_fuzz_range, NULL },
  { "space", riv_fuzz_space, NULL },
  { "scenarios", riv_fuzz_scenarios, NULL },
#ifdef RIV_FUZZ_HAVE_PLOT
  { "plot", riv_fuzz_plot, NULL },
#endif
};

typedef struct
{
  const Target *target;
  char         *path;
  char         *known;   /* nullable: why this input still fails (tests/fuzz/regressions/KNOWN) */
} Replay;

/* "<target>/<file>" → reason, from tests/fuzz/regressions/KNOWN. */
static GHashTable *known_failures;

/* Started on first use, shared by the server replays of one process. */
static RivServer *server;
static SoupSession *session;
static char *server_url;

/* A real server */

static void
ensure_server (void)
{
  g_autoptr(GError) error = NULL;

  if (server != NULL)
    return;

  server = riv_server_new ();
  g_object_set (server, "close-linger", 0.0, "heartbeat-interval", 0.0, NULL);
  g_assert_true (riv_server_listen (server, NULL, 0, &error));
  g_assert_no_error (error);
  server_url = riv_server_dup_url (server);
  session = soup_session_new_with_options ("timeout", 0, NULL);
}

static void
stop_server (void)
{
  if (server == NULL)
    return;
  riv_server_shutdown (server);
  g_clear_object (&session);
  g_clear_object (&server);
  g_clear_pointer (&server_url, g_free);
}

/* Sends a request and returns the reply status; *reply gets the body. */
static guint
request (const char    *method,
         const char    *path,
         const char    *content_type,
         const guint8  *data,
         gsize          size,
         GBytes       **reply)
{
  g_autofree char *url = g_strconcat (server_url, path, NULL);
  g_autoptr(SoupMessage) msg = soup_message_new (method, url);
  g_autoptr(GAsyncResult) result = NULL;
  g_autoptr(GError) error = NULL;

  g_assert_nonnull (msg);
  if (content_type != NULL)
    {
      g_autoptr(GBytes) body = g_bytes_new (data, size);

      soup_message_set_request_body_from_bytes (msg, content_type, body);
    }
  soup_session_send_and_read_async (session, msg, G_PRIORITY_DEFAULT, NULL,
                                    riv_test_async_result_cb, &result);
  /* A hang guard, not a timing claim. */
  riv_test_wait_result (&result, 60);
  *reply = soup_session_send_and_read_finish (session, result, &error);
  g_assert_no_error (error);
  return soup_message_get_status (msg);
}

static JsonNode *
parse_reply (GBytes *reply)
{
  g_autoptr(GError) error = NULL;
  JsonNode *node;

  node = riv_json_parse (NULL, g_bytes_get_data (reply, NULL), g_bytes_get_size (reply), 0, &error);
  g_assert_no_error (error);
  return node;
}

static void
assert_server_alive (void)
{
  g_autoptr(GBytes) reply = NULL;

  g_assert_cmpuint (request (SOUP_METHOD_GET, "/config", NULL, NULL, 0, &reply), ==, SOUP_STATUS_OK);
}

/* A 4xx reply carries a JSON body (FastAPI-style detail), a 2xx one JSON. */
static JsonNode *
assert_sane_reply (guint   status,
                   GBytes *reply)
{
  g_test_message ("status %u: %.*s", status, (int) MIN (g_bytes_get_size (reply), 300),
                  (const char *) g_bytes_get_data (reply, NULL));
  g_assert_true ((status >= 200 && status < 300) || (status >= 400 && status < 500) ||
                 status == SOUP_STATUS_SERVICE_UNAVAILABLE);
  return parse_reply (reply);
}

static void
replay_server_body (const guint8 *data,
                    gsize         size)
{
  static const char * const paths[] = { "/gradio_api/queue/join", "/gradio_api/cancel" };

  ensure_server ();
  for (guint i = 0; i < G_N_ELEMENTS (paths); i++)
    {
      g_autoptr(GBytes) reply = NULL;
      g_autoptr(JsonNode) node = NULL;
      guint status;

      status = request (SOUP_METHOD_POST, paths[i], "application/json", data, size, &reply);
      node = assert_sane_reply (status, reply);
      if (status == SOUP_STATUS_OK && i == 0)
        {
          JsonObject *object;

          g_assert_true (JSON_NODE_HOLDS_OBJECT (node));
          object = json_node_get_object (node);
          g_assert_nonnull (riv_json_get_string (object, "event_id"));
        }
    }
  assert_server_alive ();
}

static void
replay_upload (const guint8 *data,
               gsize         size)
{
  const guint8 *nl = memchr (data, '\n', size);
  g_autofree char *content_type = NULL;
  g_autoptr(GBytes) reply = NULL;
  g_autoptr(JsonNode) node = NULL;
  gsize header_len = nl != NULL ? (gsize) (nl - data) : size;
  gsize body_len = nl != NULL ? size - header_len - 1 : 0;
  guint status;

  /* The same input format as fuzz-entry-upload.c; a header value libsoup
   * would refuse to send is not a request anyone can make. */
  content_type = g_strndup ((const char *) data, header_len);
  if (strlen (content_type) != header_len || strpbrk (content_type, "\r") != NULL)
    return;

  ensure_server ();
  status = request (SOUP_METHOD_POST, "/gradio_api/upload", content_type,
                    nl != NULL ? nl + 1 : data + size, body_len, &reply);
  node = assert_sane_reply (status, reply);
  if (status == SOUP_STATUS_OK)
    {
      JsonArray *paths;

      /* Each stored file is one part of this body, in the server's directory. */
      g_assert_true (JSON_NODE_HOLDS_ARRAY (node));
      paths = json_node_get_array (node);
      for (guint i = 0; i < json_array_get_length (paths); i++)
        {
          const char *path = json_array_get_string_element (paths, i);
          g_autofree char *contents = NULL;
          gsize length = 0;

          g_assert_nonnull (path);
          g_assert_true (g_str_has_prefix (path, riv_server_get_temp_dir (server)));
          g_assert_true (g_file_get_contents (path, &contents, &length, NULL));
          g_assert_cmpuint (length, <=, body_len);
        }
    }
  assert_server_alive ();
}

/* Replays */

static void
replay_free (gpointer data)
{
  Replay *replay = data;

  g_free (replay->path);
  g_free (replay->known);
  g_free (replay);
}

static void
replay (const Replay *replay)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *contents = NULL;
  g_autofree guint8 *copy = NULL;
  gsize length = 0;

  g_assert_true (g_file_get_contents (replay->path, &contents, &length, &error));
  g_assert_no_error (error);

  /* An exact-size heap copy, as libFuzzer passes it, so that a read past
   * the end is caught under ASan instead of hitting the NUL g_file_get_contents
   * adds. */
  copy = g_malloc (MAX (length, 1));
  memcpy (copy, contents, length);
  g_test_message ("replaying %s (%zu bytes)", replay->path, length);
  replay->target->func (copy, length);
  if (replay->target->server_func != NULL)
    replay->target->server_func (copy, length);
}

static void
test_replay (gconstpointer data)
{
  const Replay *r = data;

  if (r->known == NULL)
    {
      replay (r);
      return;
    }

  /* A bug that is reported but not fixed yet: the input must still fail
   * (in a subprocess), and the test says so without failing the suite. Once
   * the fix lands it passes, and this test fails until the line is removed
   * from KNOWN, so the list cannot go stale. */
  if (g_test_subprocess ())
    {
      replay (r);
      stop_server ();
      return;
    }
  g_test_trap_subprocess (NULL, 0, G_TEST_SUBPROCESS_INHERIT_STDERR);
  if (g_test_trap_has_passed ())
    g_test_fail_printf ("%s passes now: remove it from tests/fuzz/regressions/KNOWN", r->path);
  else
    g_test_incomplete_printf ("known bug, not fixed yet: %s", r->known);
}

static void
load_known_failures (void)
{
  g_autofree char *path = g_test_build_filename (G_TEST_DIST, "fuzz", "regressions", "KNOWN", NULL);
  g_autofree char *contents = NULL;
  g_auto(GStrv) lines = NULL;

  known_failures = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
  if (!g_file_get_contents (path, &contents, NULL, NULL))
    return;
  lines = g_strsplit (contents, "\n", -1);
  for (guint i = 0; lines[i] != NULL; i++)
    {
      char *line = g_strstrip (lines[i]);
      gsize key_len = strcspn (line, " ");

      if (line[0] == '\0' || line[0] == '#')
        continue;
      g_hash_table_insert (known_failures, g_strndup (line, key_len),
                           g_strdup (line[key_len] != '\0' ? g_strchug (line + key_len + 1)
                                                            : "(no reason given)"));
    }
}

static int
compare_names (gconstpointer a,
               gconstpointer b)
{
  /* g_ptr_array_sort passes pointers to the elements. */
  return strcmp (*(char * const *) a, *(char * const *) b);
}

/* Adds one subtest per file in tests/fuzz/KIND/TARGET. */
static void
add_dir (const Target *target,
         const char   *kind)
{
  g_autofree char *dir = g_test_build_filename (G_TEST_DIST, "fuzz", kind, target->name, NULL);
  g_autoptr(GDir) listing = g_dir_open (dir, 0, NULL);
  g_autoptr(GPtrArray) names = g_ptr_array_new_with_free_func (g_free);
  const char *name;

  if (listing == NULL)
    return;
  while ((name = g_dir_read_name (listing)) != NULL)
    if (name[0] != '.')
      g_ptr_array_add (names, g_strdup (name));
  g_ptr_array_sort (names, compare_names);

  for (guint i = 0; i < names->len; i++)
    {
      Replay *replay = g_new0 (Replay, 1);
      g_autofree char *key = g_strdup_printf ("%s/%s", target->name, (char *) names->pdata[i]);
      g_autofree char *test_path = NULL;

      replay->target = target;
      replay->path = g_build_filename (dir, names->pdata[i], NULL);
      if (strcmp (kind, "regressions") == 0)
        replay->known = g_strdup (g_hash_table_lookup (known_failures, key));
      test_path = g_strdup_printf ("/fuzz-regressions/%s/%s/%s", target->name, kind, (char *) names->pdata[i]);
      g_test_add_data_func_full (test_path, replay, test_replay, replay_free);
    }
}

static void
test_corpus_present (gconstpointer data)
{
  const Target *target = data;
  g_autofree char *dir = g_test_build_filename (G_TEST_DIST, "fuzz", "corpus", target->name, NULL);
  g_autoptr(GDir) listing = NULL;
  g_autoptr(GError) error = NULL;
  guint n = 0;

  /* Every target has seeds; they are replayed like regressions and must pass. */
  listing = g_dir_open (dir, 0, &error);
  g_assert_no_error (error);
  while (g_dir_read_name (listing) != NULL)
    n++;
  g_assert_cmpuint (n, >, 0);
}

int
main (int   argc,
      char *argv[])
{
  int ret;

  g_test_init (&argc, &argv, NULL);
  load_known_failures ();

  for (guint i = 0; i < G_N_ELEMENTS (targets); i++)
    {
      g_autofree char *path = g_strdup_printf ("/fuzz-regressions/%s/corpus-present", targets[i].name);

      g_test_add_data_func (path, &targets[i], test_corpus_present);
      add_dir (&targets[i], "corpus");
      add_dir (&targets[i], "regressions");
    }

  ret = g_test_run ();
  stop_server ();
  g_hash_table_unref (known_failures);
  return ret;
}
