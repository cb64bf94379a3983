/* test-transcript.c
 * Copyright 2026 The Rivulet authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The transcript format: what the writer puts in the file (secrets never,
 * long bodies cut and marked, the size bound), and that the reader gives
 * it back or names the bad line.
 */
#include "config.h"

#include <string.h>

#include <glib/gstdio.h>

#include "riv-compat.h"
#include "riv-test-util.h"
#include "riv-transcript.h"

typedef struct
{
  char *dir;
  char *path;
} Fixture;

static void
fixture_setup (Fixture       *fx,
               gconstpointer  data)
{
  g_autoptr(GError) error = NULL;

  fx->dir = g_dir_make_tmp ("riv-transcript-XXXXXX", &error);
  g_assert_no_error (error);
  fx->path = g_build_filename (fx->dir, "session.jsonl", NULL);
}

static void
fixture_teardown (Fixture       *fx,
                  gconstpointer  data)
{
  g_unlink (fx->path);
  g_rmdir (fx->dir);
  g_free (fx->path);
  g_free (fx->dir);
}

static RivTapEvent
http_event (RivTapKind         kind,
            guint64            id,
            const char        *method,
            const char        *path,
            const char        *body)
{
  RivTapEvent event = { 0 };

  event.kind = kind;
  event.t = riv_now ();
  event.id = id;
  event.method = method;
  event.path = path;
  event.status = kind == RIV_TAP_RESPONSE ? 200 : 0;
  event.text = body;
  event.text_len = body != NULL ? strlen (body) : 0;
  return event;
}

static GPtrArray *
close_and_read (RivTranscriptWriter  *writer,
                const char           *path,
                char                **contents)
{
  g_autoptr(GError) error = NULL;
  GPtrArray *events;

  g_assert_true (riv_transcript_writer_close (writer, &error));
  g_assert_no_error (error);
  g_assert_true (g_file_get_contents (path, contents, NULL, &error));
  g_assert_no_error (error);
  events = riv_transcript_load (path, &error);
  g_assert_no_error (error);
  g_assert_nonnull (events);
  return events;
}

static void
test_round_trip (Fixture       *fx,
                 gconstpointer  data)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GPtrArray) events = NULL;
  g_autofree char *contents = NULL;
  g_auto(GStrv) lines = NULL;
  RivTranscriptWriter *writer = riv_transcript_writer_new (fx->path, 0, &error);
  RivTapEvent event;
  RivTapEvent *got;
  const char *frame = "{\"msg\":\"process_generating\",\"event_id\":\"e1\",\"output\":{\"data\":[\"a \\\"quoted\\\" token\\n\"]}}";

  g_assert_no_error (error);
  event = http_event (RIV_TAP_REQUEST, 1, "POST", "/gradio_api/queue/join",
                      "{\"data\":[\"x\"],\"fn_index\":0,\"session_hash\":\"abc\"}");
  riv_transcript_writer_add (writer, &event);
  event = http_event (RIV_TAP_RESPONSE, 1, "POST", "/gradio_api/queue/join", "{\"event_id\":\"e1\"}");
  riv_transcript_writer_add (writer, &event);
  event = http_event (RIV_TAP_REQUEST, 2, "GET", "/gradio_api/queue/data?session_hash=abc", NULL);
  event.stream = 1;
  riv_transcript_writer_add (writer, &event);
  event = (RivTapEvent) { .kind = RIV_TAP_SSE, .t = riv_now (), .stream = 1,
                                 .text = frame, .text_len = strlen (frame) };
  riv_transcript_writer_add (writer, &event);
  event = (RivTapEvent) { .kind = RIV_TAP_SSE_END, .t = riv_now (), .stream = 1,
                                 .end = RIV_TAP_END_EOF };
  riv_transcript_writer_add (writer, &event);

  events = close_and_read (writer, fx->path, &contents);
  g_assert_cmpuint (events->len, ==, 5);
  /* One line per event, each an object starting with t. */
  lines = g_strsplit (contents, "\n", -1);
  g_assert_cmpuint (g_strv_length (lines), ==, 6);
  g_assert_true (g_str_has_prefix (contents, "{\"t\":"));

  got = events->pdata[0];
  g_assert_cmpint (got->kind, ==, RIV_TAP_REQUEST);
  g_assert_cmpstr (got->method, ==, "POST");
  g_assert_cmpstr (got->path, ==, "/gradio_api/queue/join");
  g_assert_nonnull (strstr (got->text, "\"session_hash\":\"abc\""));
  g_assert_cmpuint (got->line, ==, 1);

  got = events->pdata[1];
  g_assert_cmpint (got->kind, ==, RIV_TAP_RESPONSE);
  g_assert_cmpuint (got->status, ==, 200);
  g_assert_cmpuint (got->id, ==, 1);
  g_assert_cmpstr (got->text, ==, "{\"event_id\":\"e1\"}");

  got = events->pdata[2];
  g_assert_cmpuint (got->stream, ==, 1);
  g_assert_null (got->text);

  /* The frame's data comes back exactly as received. */
  got = events->pdata[3];
  g_assert_cmpint (got->kind, ==, RIV_TAP_SSE);
  g_assert_cmpstr (got->text, ==, frame);

  got = events->pdata[4];
  g_assert_cmpint (got->kind, ==, RIV_TAP_SSE_END);
  g_assert_cmpint (got->end, ==, RIV_TAP_END_EOF);

  for (guint i = 1; i < events->len; i++)
    g_assert_cmpfloat (((RivTapEvent *) events->pdata[i])->t, >=,
                       ((RivTapEvent *) events->pdata[i - 1])->t);
}

static void
test_secrets (Fixture       *fx,
              gconstpointer  data)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GPtrArray) events = NULL;
  g_autofree char *contents = NULL;
  RivTranscriptWriter *writer = riv_transcript_writer_new (fx->path, 0, &error);
  RivTapEvent event;
  const char *frame = "{\"msg\":\"log\",\"event_id\":\"e\",\"log\":\"hi\",\"api_key\":\"sk-frame-secret\"}";

  g_assert_no_error (error);
  event = http_event (RIV_TAP_REQUEST, 1, "POST", "/gradio_api/queue/join",
                      "{\"data\":[{\"password\":\"hunter2\",\"keep\":1}],\"oauth_token\":\"tok-secret\","
                      "\"session_hash\":\"s\",\"Authorization\":\"Bearer abc-secret\"}");
  riv_transcript_writer_add (writer, &event);
  event = http_event (RIV_TAP_REQUEST, 2, "POST", "/login",
                      "username=me&password=form-secret");
  riv_transcript_writer_add (writer, &event);
  event = http_event (RIV_TAP_REQUEST, 3, "GET",
                      "/gradio_api/queue/data?session_hash=s&__sign=jwt-secret&access_token=q-secret", NULL);
  riv_transcript_writer_add (writer, &event);
  event = (RivTapEvent) { .kind = RIV_TAP_SSE, .t = riv_now (), .stream = 1,
                                 .text = frame, .text_len = strlen (frame) };
  riv_transcript_writer_add (writer, &event);

  events = close_and_read (writer, fx->path, &contents);
  g_assert_cmpuint (events->len, ==, 4);
  g_assert_null (strstr (contents, "hunter2"));
  g_assert_null (strstr (contents, "tok-secret"));
  g_assert_null (strstr (contents, "abc-secret"));
  g_assert_null (strstr (contents, "form-secret"));
  g_assert_null (strstr (contents, "jwt-secret"));
  g_assert_null (strstr (contents, "q-secret"));
  g_assert_null (strstr (contents, "sk-frame-secret"));
  /* What is not secret stays, and the body keeps its members' order: a
   * recording written twice reads the same (diffable, and stable for lint). */
  {
    g_autofree char *want = g_strdup_printf ("{\"data\":[{\"password\":\"%s\",\"keep\":1}],"
                                             "\"oauth_token\":\"%s\",\"session_hash\":\"s\","
                                             "\"Authorization\":\"%s\"}",
                                             RIV_TRANSCRIPT_SCRUBBED, RIV_TRANSCRIPT_SCRUBBED,
                                             RIV_TRANSCRIPT_SCRUBBED);

    g_assert_cmpstr (((RivTapEvent *) events->pdata[0])->text, ==, want);
  }
  g_assert_nonnull (strstr (((RivTapEvent *) events->pdata[2])->path, "session_hash=s"));
  g_assert_nonnull (strstr (((RivTapEvent *) events->pdata[3])->text, "\"log\":\"hi\""));
  g_assert_nonnull (strstr (contents, RIV_TRANSCRIPT_SCRUBBED));
}

static void
test_long_body (Fixture       *fx,
                gconstpointer  data)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GPtrArray) events = NULL;
  g_autofree char *contents = NULL;
  RivTranscriptWriter *writer = riv_transcript_writer_new (fx->path, 0, &error);
  GString *body = g_string_new ("{\"data\":[\"");
  GString *huge = g_string_new (NULL);
  RivTapEvent event;
  RivTapEvent *got;
  const guint8 binary[] = { 0x89, 'P', 'N', 'G', 0xff, 0xfe, 0x00, 0x01 };

  g_assert_no_error (error);
  while (body->len < 2 * RIV_TRANSCRIPT_MAX_BODY)
    g_string_append (body, "0123456789");
  g_string_append (body, "\"]}");
  while (huge->len <= RIV_TRANSCRIPT_MAX_REPLY_BODY)
    g_string_append (huge, "0123456789");
  /* A request's long body is cut... */
  event = http_event (RIV_TAP_REQUEST, 1, "POST", "/gradio_api/queue/join", body->str);
  riv_transcript_writer_add (writer, &event);
  /* ...a reply's is kept for a replay to serve (a Gradio 5 /config is over 64 KiB)... */
  event = http_event (RIV_TAP_RESPONSE, 2, "GET", "/config", body->str);
  riv_transcript_writer_add (writer, &event);
  /* ...up to its own bound. */
  event = http_event (RIV_TAP_RESPONSE, 3, "GET", "/gradio_api/info", huge->str);
  riv_transcript_writer_add (writer, &event);
  event = http_event (RIV_TAP_RESPONSE, 4, "GET", "/gradio_api/file=x.png", NULL);
  event.text = (const char *) binary;
  event.text_len = sizeof binary;
  riv_transcript_writer_add (writer, &event);

  events = close_and_read (writer, fx->path, &contents);
  got = events->pdata[0];
  g_assert_true (got->cut);
  g_assert_cmpuint (got->text_len, ==, RIV_TRANSCRIPT_MAX_BODY);
  g_assert_true (strncmp (got->text, body->str, got->text_len) == 0);
  g_assert_nonnull (strstr (contents, "\"size\":"));
  got = events->pdata[1];
  g_assert_false (got->cut);
  g_assert_cmpstr (got->text, ==, body->str);
  got = events->pdata[2];
  g_assert_true (got->cut);
  g_assert_cmpuint (got->text_len, ==, RIV_TRANSCRIPT_MAX_REPLY_BODY);
  got = events->pdata[3];
  g_assert_true (got->cut);
  g_assert_null (got->text);
  g_string_free (body, TRUE);
  g_string_free (huge, TRUE);
}

static void
test_size_bound (Fixture       *fx,
                 gconstpointer  data)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GPtrArray) events = NULL;
  g_autofree char *contents = NULL;
  RivTranscriptWriter *writer = riv_transcript_writer_new (fx->path, 4096, &error);
  const char *frame = "{\"msg\":\"heartbeat\",\"event_id\":null}";
  RivTapEvent *last;
  GStatBuf st;

  g_assert_no_error (error);
  for (guint i = 0; i < 1000; i++)
    {
      RivTapEvent event = { .kind = RIV_TAP_SSE, .t = riv_now (), .stream = 1,
                                   .text = frame, .text_len = strlen (frame) };

      riv_transcript_writer_add (writer, &event);
    }
  g_assert_true (riv_transcript_writer_get_truncated (writer));
  events = close_and_read (writer, fx->path, &contents);
  g_assert_cmpint (g_stat (fx->path, &st), ==, 0);
  g_assert_cmpint (st.st_size, <=, 4096);
  g_assert_cmpuint (events->len, >, 10);
  g_assert_cmpuint (events->len, <, 1000);
  last = events->pdata[events->len - 1];
  g_assert_cmpint (last->kind, ==, RIV_TAP_TRUNCATED);
  g_assert_nonnull (strstr (contents, "\"max_bytes\":4096"));
}

static void
test_unwritable (void)
{
  g_autoptr(GError) error = NULL;
  RivTranscriptWriter *writer = riv_transcript_writer_new ("/nonexistent-dir/x/y.jsonl", 0, &error);

  g_assert_null (writer);
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_NOT_FOUND);
}

typedef struct
{
  const char *text;
  guint       line;
  const char *words;
} BadCase;

static void
test_bad_files (void)
{
  static const BadCase cases[] = {
    { "{\"t\":0,\"kind\":\"sse\",\"stream\":1,\"data\":\"x\"}\nnot json\n", 2, "not JSON" },
    { "[1,2]\n", 1, "not a JSON object" },
    { "{\"kind\":\"sse\",\"stream\":1,\"data\":\"x\"}", 1, "\"t\"" },
    { "{\"t\":-1,\"kind\":\"sse\",\"stream\":1,\"data\":\"x\"}", 1, "\"t\"" },
    { "{\"t\":2,\"kind\":\"sse\",\"stream\":1,\"data\":\"x\"}\n\n{\"t\":1,\"kind\":\"truncated\"}", 3, "back in time" },
    { "{\"t\":0,\"kind\":\"truncated\"}\n{\"t\":1,\"kind\":\"truncated\"}", 2, "after the \"truncated\"" },
    { "{\"t\":0,\"kind\":\"telegram\"}", 1, "unknown kind" },
    { "{\"t\":0,\"kind\":\"sse\",\"stream\":0,\"data\":\"x\"}", 1, "\"stream\"" },
    { "{\"t\":0,\"kind\":\"sse\",\"stream\":1}", 1, "either" },
    { "{\"t\":0,\"kind\":\"sse\",\"stream\":1,\"end\":\"later\"}", 1, "\"end\"" },
    { "{\"t\":0,\"kind\":\"request\",\"id\":1,\"method\":\"GET\",\"path\":\"config\"}", 1, "path" },
    { "{\"t\":0,\"kind\":\"request\",\"method\":\"GET\",\"path\":\"/config\"}", 1, "\"id\"" },
    { "{\"t\":0,\"kind\":\"response\",\"id\":1,\"method\":\"GET\",\"path\":\"/c\",\"status\":99}", 1, "\"status\"" },
    { "{\"t\":0,\"kind\":\"response\",\"id\":1,\"method\":\"GET\",\"path\":\"/c\",\"status\":200,"
      "\"body\":{},\"body_text\":\"x\"}", 1, "both" },
    { "{\"t\":0,\"kind\":\"sse\",\"stream\":1,\"data\":\"x\"}{\"t\":0}", 1, "not JSON" },
  };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autoptr(GError) error = NULL;
      g_autoptr(GPtrArray) events = riv_transcript_parse (cases[i].text, strlen (cases[i].text), &error);
      g_autofree char *prefix = g_strdup_printf ("line %u: ", cases[i].line);

      g_test_message ("case %u: %s", i, error != NULL ? error->message : "(accepted)");
      g_assert_null (events);
      g_assert_error (error, RIV_TRANSCRIPT_ERROR, RIV_TRANSCRIPT_ERROR_INVALID);
      g_assert_true (g_str_has_prefix (error->message, prefix));
      g_assert_nonnull (strstr (error->message, cases[i].words));
    }
}

static void
test_empty_and_blank (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GPtrArray) empty = riv_transcript_parse ("", 0, &error);
  g_autoptr(GPtrArray) blank = NULL;

  g_assert_no_error (error);
  g_assert_cmpuint (empty->len, ==, 0);
  const char *text = "\n  \n{\"t\":1.5,\"kind\":\"sse\",\"stream\":2,\"data\":\"{}\"}\r\n";

  blank = riv_transcript_parse (text, strlen (text), &error);
  g_assert_no_error (error);
  g_assert_cmpuint (blank->len, ==, 1);
  g_assert_cmpuint (((RivTapEvent *) blank->pdata[0])->line, ==, 3);
}

/* Every transcript kept in tests/data reads. */
static void
test_data_files (void)
{
  static const char * const dirs[] = { "lint", "seeds" };

  for (guint d = 0; d < G_N_ELEMENTS (dirs); d++)
    {
      g_autofree char *dir = g_test_build_filename (G_TEST_DIST, "data", dirs[d], NULL);
      g_autoptr(GDir) listing = g_dir_open (dir, 0, NULL);
      const char *name;
      guint n = 0;

      g_assert_nonnull (listing);
      while ((name = g_dir_read_name (listing)) != NULL)
        {
          g_autofree char *path = g_build_filename (dir, name, NULL);
          g_autoptr(GError) error = NULL;
          g_autoptr(GPtrArray) events = riv_transcript_load (path, &error);

          g_assert_no_error (error);
          g_assert_cmpuint (events->len, >, 5);
          n++;
        }
      g_assert_cmpuint (n, >=, 3);
    }
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);

  g_test_add ("/transcript/round-trip", Fixture, NULL, fixture_setup, test_round_trip, fixture_teardown);
  g_test_add ("/transcript/secrets", Fixture, NULL, fixture_setup, test_secrets, fixture_teardown);
  g_test_add ("/transcript/long-body", Fixture, NULL, fixture_setup, test_long_body, fixture_teardown);
  g_test_add ("/transcript/size-bound", Fixture, NULL, fixture_setup, test_size_bound, fixture_teardown);
  g_test_add_func ("/transcript/unwritable", test_unwritable);
  g_test_add_func ("/transcript/bad-files", test_bad_files);
  g_test_add_func ("/transcript/empty-and-blank", test_empty_and_blank);
  g_test_add_func ("/transcript/data-files", test_data_files);

  return g_test_run ();
}
