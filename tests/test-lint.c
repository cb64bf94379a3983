/* test-lint.c
 * Copyright 2026 The Rivulet authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Every lint rule has a transcript in tests/data/lint/<rule>.jsonl that
 * triggers it (and no other rule); a clean session triggers none; the three
 * seed races in tests/data/seeds/ are each named by their rule.
 */
#include "config.h"

#include <string.h>

#include <glib/gstdio.h>

#include "riv-compat.h"
#include "riv-json.h"
#include "riv-lint.h"
#include "riv-message.h"
#include "riv-transcript.h"

static RivLint *
lint_file (const char *dir,
           const char *name)
{
  g_autofree char *path = g_test_build_filename (G_TEST_DIST, "data", dir, name, NULL);
  g_autoptr(GError) error = NULL;
  g_autoptr(GPtrArray) events = riv_transcript_load (path, &error);

  g_assert_no_error (error);
  return riv_lint_run_transcript (events, 0);
}

static void
log_findings (RivLint *lint)
{
  GPtrArray *findings = riv_lint_get_findings (lint);

  for (guint i = 0; i < findings->len; i++)
    {
      RivLintFinding *f = findings->pdata[i];

      g_test_message ("%.3f %s %s: %s", f->t, f->rule, f->event_id != NULL ? f->event_id : "-",
                      f->message);
    }
}

static void
test_rule (gconstpointer data)
{
  const char *rule = data;
  g_autofree char *name = g_strconcat (rule, ".jsonl", NULL);
  g_autoptr(RivLint) lint = lint_file ("lint", name);
  GPtrArray *findings = riv_lint_get_findings (lint);

  log_findings (lint);
  g_assert_cmpuint (findings->len, >=, 1);
  for (guint i = 0; i < findings->len; i++)
    {
      RivLintFinding *f = findings->pdata[i];

      g_assert_cmpstr (f->rule, ==, rule);
      g_assert_nonnull (f->message);
      g_assert_cmpfloat (f->t, >=, 0);
    }
}

/* A job known only from its join's reply (another connection) when the
 * stream closes is not a finding: the reply can overtake a close_stream the
 * server sent before it took the join, as a 1,000-job burst against Gradio
 * 5.49 showed. The same file with the job named on the stream first is one. */
static void
test_close_after_join_only (void)
{
  g_autofree char *path = g_test_build_filename (G_TEST_DIST, "data", "lint", "close-while-pending.jsonl", NULL);
  g_autofree char *text = NULL;
  g_auto(GStrv) lines = NULL;
  g_autoptr(GString) kept = g_string_new (NULL);
  g_autoptr(GPtrArray) events = NULL;
  g_autoptr(RivLint) lint = NULL;
  g_autoptr(GError) error = NULL;
  guint dropped = 0;

  g_assert_true (g_file_get_contents (path, &text, NULL, &error));
  lines = g_strsplit (text, "\n", -1);
  for (guint i = 0; lines[i] != NULL; i++)
    {
      /* The stream's process_starts of the job still running at the close. */
      if (strstr (lines[i], "process_starts") != NULL && strstr (lines[i], "e0000002") != NULL)
        {
          dropped++;
          continue;
        }
      g_string_append_printf (kept, "%s\n", lines[i]);
    }
  g_assert_cmpuint (dropped, ==, 1);
  events = riv_transcript_parse (kept->str, kept->len, &error);
  g_assert_no_error (error);
  lint = riv_lint_run_transcript (events, 0);
  log_findings (lint);
  for (guint i = 0; i < riv_lint_get_findings (lint)->len; i++)
    g_assert_cmpstr (((RivLintFinding *) riv_lint_get_findings (lint)->pdata[i])->rule, !=,
                     "close-while-pending");
}

/* close_stream counts the pending jobs of its own session only, however many
 * sessions the run has: N users each with a job in flight when the others
 * close (none is a finding), and one job whose session was learnt from its
 * join's reply after a stream without a session named it (one finding). */
static void
test_sessions_apart (void)
{
  const guint n_users = 2000;
  g_autoptr(GString) text = g_string_new (NULL);
  g_autoptr(GPtrArray) events = NULL;
  g_autoptr(RivLint) lint = NULL;
  g_autoptr(GError) error = NULL;
  GPtrArray *findings;
  RivLintFinding *f;
  guint id = 1;

#define JOIN "/gradio_api/queue/join"
#define DATA "/gradio_api/queue/data"
  for (guint u = 0; u < n_users; u++, id++)
    g_string_append_printf (text,
      "{\"t\":0.1,\"kind\":\"request\",\"id\":%u,\"method\":\"POST\",\"path\":\"" JOIN "\",\"body\":{\"data\":[\"x\"],\"fn_index\":0,\"session_hash\":\"s%u\"}}\n"
      "{\"t\":0.1,\"kind\":\"response\",\"id\":%u,\"method\":\"POST\",\"path\":\"" JOIN "\",\"status\":200,\"body\":{\"event_id\":\"e%u\"}}\n"
      "{\"t\":0.1,\"kind\":\"request\",\"id\":%u,\"stream\":%u,\"method\":\"GET\",\"path\":\"" DATA "?session_hash=s%u\"}\n"
      "{\"t\":0.1,\"kind\":\"sse\",\"stream\":%u,\"data\":\"{\\\"msg\\\":\\\"process_starts\\\",\\\"event_id\\\":\\\"e%u\\\"}\"}\n",
      id, u, id, u, id + n_users, u + 1, u, u + 1, u);
  for (guint u = 0; u < n_users; u++)
    g_string_append_printf (text,
      "{\"t\":0.3,\"kind\":\"sse\",\"stream\":%u,\"data\":\"{\\\"msg\\\":\\\"process_completed\\\",\\\"event_id\\\":\\\"e%u\\\",\\\"success\\\":true,\\\"output\\\":{\\\"data\\\":[\\\"x\\\"]}}\"}\n"
      "{\"t\":0.3,\"kind\":\"sse\",\"stream\":%u,\"data\":\"{\\\"msg\\\":\\\"close_stream\\\"}\"}\n"
      "{\"t\":0.3,\"kind\":\"sse\",\"stream\":%u,\"end\":\"eof\"}\n",
      u + 1, u, u + 1, u + 1);

  /* A stream with no session names a job; its join's reply names the session. */
  id = 3 * n_users;
  g_string_append_printf (text,
    "{\"t\":0.4,\"kind\":\"request\",\"id\":%u,\"stream\":%u,\"method\":\"GET\",\"path\":\"" DATA "\"}\n"
    "{\"t\":0.4,\"kind\":\"sse\",\"stream\":%u,\"data\":\"{\\\"msg\\\":\\\"process_starts\\\",\\\"event_id\\\":\\\"late\\\"}\"}\n"
    "{\"t\":0.4,\"kind\":\"request\",\"id\":%u,\"method\":\"POST\",\"path\":\"" JOIN "\",\"body\":{\"data\":[\"x\"],\"fn_index\":0,\"session_hash\":\"s7\"}}\n"
    "{\"t\":0.4,\"kind\":\"response\",\"id\":%u,\"method\":\"POST\",\"path\":\"" JOIN "\",\"status\":200,\"body\":{\"event_id\":\"late\"}}\n"
    "{\"t\":0.5,\"kind\":\"request\",\"id\":%u,\"stream\":%u,\"method\":\"GET\",\"path\":\"" DATA "?session_hash=s7\"}\n"
    "{\"t\":0.5,\"kind\":\"sse\",\"stream\":%u,\"data\":\"{\\\"msg\\\":\\\"close_stream\\\"}\"}\n"
    "{\"t\":0.5,\"kind\":\"sse\",\"stream\":%u,\"end\":\"eof\"}\n",
    id, n_users + 1, n_users + 1, id + 1, id + 1, id + 2, n_users + 2, n_users + 2, n_users + 2);
#undef JOIN
#undef DATA

  events = riv_transcript_parse (text->str, text->len, &error);
  g_assert_no_error (error);
  lint = riv_lint_run_transcript (events, 0);
  log_findings (lint);
  findings = riv_lint_get_findings (lint);
  g_assert_cmpuint (findings->len, ==, 1);
  f = findings->pdata[0];
  g_assert_cmpstr (f->rule, ==, "close-while-pending");
  g_assert_cmpstr (f->event_id, ==, "late");
  g_assert_nonnull (strstr (f->message, "while 1 job of the session"));
}

static void
test_clean (void)
{
  g_autoptr(RivLint) lint = lint_file ("lint", "clean.jsonl");

  log_findings (lint);
  g_assert_cmpuint (riv_lint_get_findings (lint)->len, ==, 0);
}

static void
test_every_rule_has_data (void)
{
  const char * const *rules = riv_lint_get_rules ();
  guint n = 0;

  for (guint i = 0; rules[i] != NULL; i++, n++)
    {
      g_autofree char *name = g_strconcat (rules[i], ".jsonl", NULL);
      g_autofree char *path = g_test_build_filename (G_TEST_DIST, "data", "lint", name, NULL);
      const char *p;

      g_assert_true (g_file_test (path, G_FILE_TEST_EXISTS));
      /* Rule ids are kebab-case. */
      for (p = rules[i]; *p != '\0'; p++)
        g_assert_true (g_ascii_islower (*p) || *p == '-');
    }
  g_assert_cmpuint (n, >=, 10);
}

typedef struct
{
  const char *file;
  const char *rule;
  const char *event_id;   /* nullable: any */
} Seed;

static const Seed seeds[] = {
  /* #7921: close_stream while two of three jobs are still running. */
  { "early-close.jsonl", "close-while-pending", "000000000000000000000000e0000065" },
  /* #2409: one session's generator streams, the other's stream goes silent. */
  { "blocking-generator.jsonl", "heartbeat-gap", NULL },
  /* #9968: a burst's completions arrive after close_stream. */
  { "lost-completions.jsonl", "close-while-pending", "000000000000000000000000e0000134" },
};

static void
test_seed (gconstpointer data)
{
  const Seed *seed = data;
  g_autoptr(RivLint) lint = lint_file ("seeds", seed->file);
  GPtrArray *findings = riv_lint_get_findings (lint);

  log_findings (lint);
  g_assert_cmpuint (findings->len, ==, 1);
  g_assert_cmpstr (((RivLintFinding *) findings->pdata[0])->rule, ==, seed->rule);
  if (seed->event_id != NULL)
    g_assert_cmpstr (((RivLintFinding *) findings->pdata[0])->event_id, ==, seed->event_id);
}

static void
test_json (void)
{
  g_autoptr(RivLint) lint = lint_file ("lint", "duplicate-completion.jsonl");
  g_autoptr(JsonNode) node = riv_lint_findings_to_json (lint);
  g_autofree char *text = riv_json_to_string (node, NULL);
  JsonObject *first;

  g_assert_true (JSON_NODE_HOLDS_ARRAY (node));
  g_assert_cmpuint (json_array_get_length (json_node_get_array (node)), ==, 1);
  first = json_array_get_object_element (json_node_get_array (node), 0);
  g_assert_cmpstr (json_object_get_string_member (first, "rule"), ==, "duplicate-completion");
  g_assert_cmpstr (json_object_get_string_member (first, "event_id"), ==, "000000000000000000000000e0000001");
  g_assert_true (json_object_has_member (first, "message"));
  /* What `load --json` prints: the findings as text, rule named. */
  g_assert_nonnull (strstr (text, "\"rule\":\"duplicate-completion\""));
  g_assert_true (json_object_has_member (first, "t"));
}

/* The heartbeat interval, when given, replaces the one inferred. */
static void
test_heartbeat_interval (void)
{
  g_autofree char *path = g_test_build_filename (G_TEST_DIST, "data", "lint", "heartbeat-gap.jsonl", NULL);
  g_autoptr(GPtrArray) events = riv_transcript_load (path, NULL);
  g_autoptr(RivLint) lenient = riv_lint_run_transcript (events, 1.0);

  g_assert_cmpuint (riv_lint_get_findings (lenient)->len, ==, 0);
}

/* stream-buffered.jsonl is a job of 30 updates (0.05 s apart on the server)
 * recorded through nginx with gzip on text/event-stream: all arrived in the
 * same instant. The same frames spread as the server made them are no
 * finding, nor is a rapid generator whose updates take the server no time. */
static void
test_stream_buffered_spread (void)
{
  g_autofree char *path = g_test_build_filename (G_TEST_DIST, "data", "lint", "stream-buffered.jsonl", NULL);
  g_autoptr(GPtrArray) events = riv_transcript_load (path, NULL);
  g_autoptr(RivLint) clumped = riv_lint_run_transcript (events, 0);
  g_autoptr(RivLint) spread = NULL;
  RivLintFinding *f;
  double start = -1;
  guint n = 0;

  g_assert_cmpuint (riv_lint_get_findings (clumped)->len, ==, 1);
  f = riv_lint_get_findings (clumped)->pdata[0];
  g_assert_nonnull (strstr (f->message, "all 30 updates"));
  g_assert_nonnull (strstr (f->message, "proxy"));

  for (guint i = 0; i < events->len; i++)
    {
      RivTapEvent *event = events->pdata[i];

      if (event->kind != RIV_TAP_SSE && event->kind != RIV_TAP_SSE_END)
        continue;
      if (start < 0)
        start = event->t;
      event->t = start + 0.051 * n++;
    }
  spread = riv_lint_run_transcript (events, 0);
  log_findings (spread);
  g_assert_cmpuint (riv_lint_get_findings (spread)->len, ==, 0);
}

/* Events fed live (riv_now() clock) report times from the origin. */
static void
test_live_origin (void)
{
  g_autoptr(RivLint) lint = riv_lint_new ();
  double now = riv_now ();
  const char *frame = "{\"msg\":\"process_completed\",\"event_id\":\"x\",\"output\":{\"data\":[]},\"success\":true}";
  RivTapEvent event = { .kind = RIV_TAP_SSE, .t = now + 2, .stream = 1,
                               .text = frame, .text_len = strlen (frame) };
  RivLintFinding *f;

  riv_lint_set_origin (lint, now);
  riv_lint_feed (lint, &event);
  riv_lint_finish (lint, now + 3);
  /* A completion without process_starts, for an id no join returned. */
  g_assert_cmpuint (riv_lint_get_findings (lint)->len, ==, 2);
  f = riv_lint_get_findings (lint)->pdata[0];
  g_assert_cmpfloat_with_epsilon (f->t, 2.0, 1e-9);
}

/* Live frames come read lean (riv_message_parse_lean: output.data as text,
 * a streamed text's appends): lint finds what it finds in the same frames
 * read from a file, appends that fit and a diff that does not. */
static void
test_live_lean_frames (void)
{
  static const char * const frames[] = {
    "{\"msg\":\"process_starts\",\"event_id\":\"t\"}",
    "{\"msg\":\"process_generating\",\"event_id\":\"t\",\"output\":{\"data\":[\"a\",\"x\"]},\"success\":true}",
    "{\"msg\":\"process_generating\",\"event_id\":\"t\",\"output\":{\"data\":[[[\"append\",[],\"b\"]],[[\"append\",[],\"y\"]]]},\"success\":true}",
    "{\"msg\":\"process_generating\",\"event_id\":\"t\",\"output\":{\"data\":[[[\"append\",[],\"c\"]],[[\"replace\",[0],1]]]},\"success\":true}",
    "{\"msg\":\"process_completed\",\"event_id\":\"t\",\"output\":{\"data\":[\"abc\",\"xy\"]},\"success\":true}",
    "{\"msg\":\"process_starts\",\"event_id\":\"n\"}",
    "{\"msg\":\"process_generating\",\"event_id\":\"n\",\"output\":{\"data\":[5]},\"success\":true}",
    "{\"msg\":\"process_generating\",\"event_id\":\"n\",\"output\":{\"data\":[[[\"append\",[],\"b\"]]]},\"success\":true}",
    "{\"msg\":\"process_generating\",\"event_id\":\"n\",\"output\":{\"data\":[[[\"append\",[],\"c\"]]]},\"success\":true}",
    "{\"msg\":\"process_completed\",\"event_id\":\"n\",\"output\":{\"data\":[5]},\"success\":true}",
  };
  g_autoptr(RivLint) lean = riv_lint_new ();
  g_autoptr(RivLint) file = riv_lint_new ();
  GPtrArray *lean_findings, *file_findings;
  guint bad_diff = 0;

  for (guint i = 0; i < G_N_ELEMENTS (frames); i++)
    {
      g_autoptr(GError) error = NULL;
      g_autoptr(RivMessage) msg = riv_message_parse_lean (frames[i], -1, &error);
      RivTapEvent event = { .kind = RIV_TAP_SSE, .t = 0.05 * (i + 1), .stream = 1,
                            .text = frames[i], .text_len = strlen (frames[i]) };

      g_assert_no_error (error);
      riv_lint_feed (file, &event);
      event.message = msg;
      riv_lint_feed (lean, &event);
    }
  riv_lint_finish (lean, 1);
  riv_lint_finish (file, 1);

  lean_findings = riv_lint_get_findings (lean);
  file_findings = riv_lint_get_findings (file);
  log_findings (lean);
  g_assert_cmpuint (lean_findings->len, ==, file_findings->len);
  for (guint i = 0; i < lean_findings->len; i++)
    {
      RivLintFinding *a = lean_findings->pdata[i];
      RivLintFinding *b = file_findings->pdata[i];

      g_assert_cmpstr (a->rule, ==, b->rule);
      g_assert_cmpstr (a->event_id, ==, b->event_id);
      g_assert_cmpstr (a->message, ==, b->message);
      if (strcmp (a->rule, "bad-diff-path") == 0)
        bad_diff++;
    }
  /* "t": output 1's replace at [0] of a string; "n": appends to a number. */
  g_assert_cmpuint (bad_diff, ==, 2);
}

/* A long clean run (4,000 jobs over 40 s of trace, one session): the lint
 * holds the jobs of its last seconds, not all of them, finds nothing, and
 * still names a second completion that comes right after the first. */
static void
test_long_run_bounded (void)
{
  g_autofree char *base_path = g_test_build_filename (G_TEST_DIST, "data", "lint",
                                                      "duplicate-completion.jsonl", NULL);
  g_autofree char *base = NULL;
  g_autofree char *dir = g_dir_make_tmp ("riv-test-lint-XXXXXX", NULL);
  g_autofree char *path = g_build_filename (dir, "long.jsonl", NULL);
  g_auto(GStrv) lines = NULL;
  g_autoptr(GString) text = g_string_new (NULL);
  g_autoptr(GPtrArray) events = NULL;
  g_autoptr(RivLint) lint = NULL;
  g_autoptr(GError) error = NULL;
  GPtrArray *findings;
  const guint n = 4000;
  double t = 0.01;

  g_file_get_contents (base_path, &base, NULL, &error);
  g_assert_no_error (error);
  lines = g_strsplit (base, "\n", -1);
  /* /config and /info, then the session's stream. */
  for (guint i = 0; i < 4; i++)
    g_string_append_printf (text, "%s\n", lines[i]);
  g_string_append (text, "{\"t\":0.005,\"kind\":\"request\",\"id\":5,\"stream\":1,\"method\":\"GET\","
                   "\"path\":\"/gradio_api/queue/data?session_hash=sessa\"}\n"
                   "{\"t\":0.006,\"kind\":\"response\",\"id\":5,\"stream\":1,\"method\":\"GET\","
                   "\"path\":\"/gradio_api/queue/data?session_hash=sessa\",\"status\":200}\n");
  for (guint k = 1; k <= n; k++, t += 0.01)
    {
      g_string_append_printf (text, "{\"t\":%.4f,\"kind\":\"request\",\"id\":%u,\"method\":\"POST\","
                              "\"path\":\"/gradio_api/queue/join\",\"body\":{\"data\":[\"hi\"],"
                              "\"fn_index\":0,\"session_hash\":\"sessa\"}}\n", t, 10 + k);
      g_string_append_printf (text, "{\"t\":%.4f,\"kind\":\"response\",\"id\":%u,\"method\":\"POST\","
                              "\"path\":\"/gradio_api/queue/join\",\"status\":200,"
                              "\"body\":{\"event_id\":\"e%08u\"}}\n", t + 0.001, 10 + k, k);
      g_string_append_printf (text, "{\"t\":%.4f,\"kind\":\"sse\",\"stream\":1,\"data\":\"{\\\"msg\\\":"
                              "\\\"process_starts\\\",\\\"event_id\\\":\\\"e%08u\\\"}\"}\n", t + 0.002, k);
      g_string_append_printf (text, "{\"t\":%.4f,\"kind\":\"sse\",\"stream\":1,\"data\":\"{\\\"msg\\\":"
                              "\\\"process_completed\\\",\\\"event_id\\\":\\\"e%08u\\\",\\\"output\\\":"
                              "{\\\"data\\\":[\\\"a\\\"],\\\"is_generating\\\":false},"
                              "\\\"success\\\":true}\"}\n", t + 0.003, k);
    }
  /* The last job's completion again, 1 s later: still known. */
  g_string_append_printf (text, "{\"t\":%.4f,\"kind\":\"sse\",\"stream\":1,\"data\":\"{\\\"msg\\\":"
                          "\\\"process_completed\\\",\\\"event_id\\\":\\\"e%08u\\\",\\\"output\\\":"
                          "{\\\"data\\\":[\\\"a\\\"],\\\"is_generating\\\":false},"
                          "\\\"success\\\":true}\"}\n", t + 1, n);
  g_string_append_printf (text, "{\"t\":%.4f,\"kind\":\"sse\",\"stream\":1,"
                          "\"data\":\"{\\\"msg\\\":\\\"close_stream\\\",\\\"event_id\\\":null}\"}\n"
                          "{\"t\":%.4f,\"kind\":\"sse\",\"stream\":1,\"end\":\"eof\"}\n", t + 1.1, t + 1.1);
  g_file_set_contents (path, text->str, text->len, &error);
  g_assert_no_error (error);
  events = riv_transcript_load (path, &error);
  g_assert_no_error (error);
  lint = riv_lint_run_transcript (events, 0);
  log_findings (lint);

  findings = riv_lint_get_findings (lint);
  g_assert_cmpuint (findings->len, ==, 1);
  g_assert_cmpstr (((RivLintFinding *) findings->pdata[0])->rule, ==, "duplicate-completion");
  /* 100 jobs a second, forgotten 10 s after they completed. */
  g_test_message ("held at the end: %u of %u jobs", riv_lint_get_n_held (lint), n);
  g_assert_cmpuint (riv_lint_get_n_held (lint), <=, 1200);
  g_assert_cmpuint (riv_lint_get_n_held (lint), >=, 800);
  g_unlink (path);
  g_rmdir (dir);
}

int
main (int   argc,
      char *argv[])
{
  const char * const *rules;

  g_test_init (&argc, &argv, NULL);

  rules = riv_lint_get_rules ();
  for (guint i = 0; rules[i] != NULL; i++)
    {
      g_autofree char *path = g_strdup_printf ("/lint/rule/%s", rules[i]);

      g_test_add_data_func (path, rules[i], test_rule);
    }
  for (guint i = 0; i < G_N_ELEMENTS (seeds); i++)
    {
      g_autofree char *path = g_strdup_printf ("/lint/seed/%s", seeds[i].file);

      g_test_add_data_func (path, &seeds[i], test_seed);
    }
  g_test_add_func ("/lint/clean", test_clean);
  g_test_add_func ("/lint/sessions-apart", test_sessions_apart);
  g_test_add_func ("/lint/close-after-join-only", test_close_after_join_only);
  g_test_add_func ("/lint/every-rule-has-data", test_every_rule_has_data);
  g_test_add_func ("/lint/json", test_json);
  g_test_add_func ("/lint/heartbeat-interval", test_heartbeat_interval);
  g_test_add_func ("/lint/live-origin", test_live_origin);
  g_test_add_func ("/lint/live-lean-frames", test_live_lean_frames);
  g_test_add_func ("/lint/stream-buffered-spread", test_stream_buffered_spread);
  g_test_add_func ("/lint/long-run-bounded", test_long_run_bounded);

  return g_test_run ();
}
