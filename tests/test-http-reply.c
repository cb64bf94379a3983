/* test-http-reply.c
 * Copyright 2026 The Rivulet authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The reply to a direct stream's GET, read by hand (riv-http-reply.c): what
 * reaches the SSE reader is the body alone, however the bytes were split,
 * and every malformed or unexpected reply is an error that names it.
 */
#include "config.h"

#include <gio/gio.h>
#include <string.h>

#include "riv-http-reply.h"
#include "riv-test-util.h"

#define CHUNKED_HEAD "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\n" \
                     "Transfer-Encoding: chunked\r\n\r\n"

/* Feeds text in pieces of step bytes (0: at once); returns the body, or
 * NULL with error set. */
static GString *
feed (RivHttpReply *reply,
      const char   *text,
      gsize         len,
      gsize         step,
      GError      **error)
{
  GString *body = g_string_new (NULL);

  if (step == 0)
    step = MAX (len, 1);
  for (gsize at = 0; at < len; at += step)
    {
      gsize n = MIN (step, len - at);
      char *piece = g_memdup2 (text + at, n);
      gssize got = riv_http_reply_feed (reply, piece, n, error);

      if (got < 0)
        {
          g_free (piece);
          g_string_free (body, TRUE);
          return NULL;
        }
      g_assert_cmpint (got, <=, (gssize) n);
      g_string_append_len (body, piece, got);
      g_free (piece);
    }
  return body;
}

static void
test_chunked_any_split (void)
{
  static const char text[] = CHUNKED_HEAD
    "6\r\ndata: \r\n"
    "10;ext=1\r\n{\"msg\":\"a\"}\n\n   \r\n"
    "0\r\nX-Trailer: 1\r\n\r\n"
    "after the end";
  const char *want = "data: {\"msg\":\"a\"}\n\n   ";

  for (gsize step = 0; step <= 7; step++)
    {
      g_autoptr(RivHttpReply) reply = riv_http_reply_new ();
      g_autoptr(GError) error = NULL;
      g_autoptr(GString) body = NULL;

      g_assert_cmpuint (riv_http_reply_get_status (reply), ==, 0);
      body = feed (reply, text, strlen (text), step, &error);
      g_assert_no_error (error);
      g_assert_cmpstr (body->str, ==, want);
      g_assert_cmpuint (riv_http_reply_get_status (reply), ==, 200);
      g_assert_cmpstr (riv_http_reply_get_reason (reply), ==, "OK");
      g_assert_cmpint (riv_http_reply_get_state (reply), ==, RIV_HTTP_REPLY_END);
      g_assert_false (riv_http_reply_ends_at_eof (reply));
    }
}

static void
test_head_then_body_states (void)
{
  g_autoptr(RivHttpReply) reply = riv_http_reply_new ();
  g_autoptr(GError) error = NULL;
  char head[] = "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n";
  char rest[] = "\r\n3\r\nabc\r\n";

  g_assert_cmpint (riv_http_reply_get_length (reply), ==, -1);
  g_assert_cmpint (riv_http_reply_feed (reply, head, strlen (head), &error), ==, 0);
  g_assert_cmpint (riv_http_reply_get_state (reply), ==, RIV_HTTP_REPLY_HEAD);
  g_assert_cmpuint (riv_http_reply_get_status (reply), ==, 0);
  g_assert_cmpint (riv_http_reply_feed (reply, rest, strlen (rest), &error), ==, 3);
  g_assert_no_error (error);
  g_assert_cmpmem (rest, 3, "abc", 3);
  g_assert_cmpint (riv_http_reply_get_state (reply), ==, RIV_HTTP_REPLY_BODY);
}

static void
test_length_and_eof (void)
{
  static const char length[] = "HTTP/1.1 200 OK\r\nContent-Length: 5\r\n"
                               "content-length: 5\r\n\r\nhello, and more";
  static const char eof[] = "HTTP/1.0 200 OK\n\nthe body runs on";
  static const char interim[] = "HTTP/1.1 100 Continue\r\n\r\n"
                                "HTTP/1.1 103 Early Hints\r\nLink: </a>\r\n\r\n"
                                "HTTP/1.1 204 No Content\r\n\r\nignored";

  for (gsize step = 0; step <= 3; step++)
    {
      g_autoptr(RivHttpReply) r1 = riv_http_reply_new ();
      g_autoptr(RivHttpReply) r2 = riv_http_reply_new ();
      g_autoptr(RivHttpReply) r3 = riv_http_reply_new ();
      g_autoptr(GString) b1 = feed (r1, length, strlen (length), step, NULL);
      g_autoptr(GString) b2 = feed (r2, eof, strlen (eof), step, NULL);
      g_autoptr(GString) b3 = feed (r3, interim, strlen (interim), step, NULL);

      g_assert_cmpstr (b1->str, ==, "hello");
      g_assert_cmpint (riv_http_reply_get_length (r1), ==, 0);
      g_assert_cmpint (riv_http_reply_get_length (r2), ==, -1);
      g_assert_cmpint (riv_http_reply_get_state (r1), ==, RIV_HTTP_REPLY_END);
      g_assert_cmpstr (b2->str, ==, "the body runs on");
      g_assert_true (riv_http_reply_ends_at_eof (r2));
      g_assert_cmpint (riv_http_reply_get_state (r2), ==, RIV_HTTP_REPLY_BODY);
      /* The interim replies are skipped; a 204 has no body. */
      g_assert_cmpstr (b3->str, ==, "");
      g_assert_cmpuint (riv_http_reply_get_status (r3), ==, 204);
      g_assert_cmpint (riv_http_reply_get_state (r3), ==, RIV_HTTP_REPLY_END);
    }
}

static void
test_error_status_is_read (void)
{
  static const char text[] = "HTTP/1.1 503 Service Unavailable\r\nContent-Length: 4\r\n\r\nbusy";
  g_autoptr(RivHttpReply) reply = riv_http_reply_new ();
  g_autoptr(GString) body = feed (reply, text, strlen (text), 0, NULL);

  g_assert_cmpuint (riv_http_reply_get_status (reply), ==, 503);
  g_assert_cmpstr (riv_http_reply_get_reason (reply), ==, "Service Unavailable");
  g_assert_cmpstr (body->str, ==, "busy");
  g_assert_cmpint (riv_http_reply_get_length (reply), ==, 0);
  {
    g_autoptr(RivHttpReply) r = riv_http_reply_new ();
    char head[] = "HTTP/1.1 200 OK\r\nContent-Length: 2000000000\r\n\r\n{";

    g_assert_cmpint (riv_http_reply_feed (r, head, strlen (head), NULL), ==, 1);
    g_assert_cmpint (riv_http_reply_get_length (r), ==, 2000000000 - 1);
  }
}

static void
test_bad_replies (void)
{
  g_autofree char *huge_head = NULL;
  g_autofree char *huge_line = NULL;
  struct { const char *text; const char *says; } cases[] = {
    { "SSH-2.0-OpenSSH_9.2\r\n\r\n", "not an HTTP/1 status line" },
    { "HTTP/1.1 2000 OK\r\n\r\n", "not an HTTP/1 status line" },
    { "HTTP/2 200\r\n\r\n", "not an HTTP/1 status line" },
    { "HTTP/1.1 200 OK\r\nno colon here\r\n\r\n", "a header line without a name" },
    { "HTTP/1.1 200 OK\r\nContent-Length: 12x\r\n\r\n", "not a number" },
    { "HTTP/1.1 200 OK\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\n", "two different" },
    { "HTTP/1.1 200 OK\r\nContent-Encoding: gzip\r\n\r\n", "Content-Encoding: gzip" },
    { "HTTP/1.1 101 Switching Protocols\r\n\r\n", "an upgrade (101)" },
    { "HTTP/1.1 200 OK\r\nTransfer-Encoding: gzip, chunked\r\n\r\n", "Transfer-Encoding: gzip" },
    { CHUNKED_HEAD "zz\r\n", "a chunk size that is not a number" },
    { CHUNKED_HEAD "\r\n", "a chunk size that is not a number" },
    { CHUNKED_HEAD "1000000000000000\r\n", "larger than 2^60" },
    { CHUNKED_HEAD "3\r\nabcX", "not followed by a line end" },
    { CHUNKED_HEAD "3\r\nabc\rX", "not followed by a line end" },
    { NULL, "its head is larger than 16 KiB" },
    { NULL, "a chunk's size line longer than 1024 bytes" },
  };

  huge_head = g_strdup_printf ("HTTP/1.1 200 OK\r\nX-Big: %0*d\r\n\r\n", 16 * 1024, 0);
  huge_line = g_strdup_printf (CHUNKED_HEAD "1;%0*d\r\n", 1100, 0);
  cases[G_N_ELEMENTS (cases) - 2].text = huge_head;
  cases[G_N_ELEMENTS (cases) - 1].text = huge_line;

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    for (gsize step = 0; step <= 2; step++)
      {
        g_autoptr(RivHttpReply) reply = riv_http_reply_new ();
        g_autoptr(GError) error = NULL;
        g_autoptr(GString) body = feed (reply, cases[i].text, strlen (cases[i].text), step,
                                        &error);

        g_assert_null (body);
        g_assert_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA);
        if (strstr (error->message, cases[i].says) == NULL)
          g_error ("case %u: \"%s\" does not say \"%s\"", i, error->message, cases[i].says);
      }
}

/* Bytes before the status line that are only line ends are skipped; a
 * header folded onto the next line is passed over, not taken for a name. */
static void
test_lenient_where_harmless (void)
{
  static const char text[] = "\r\nHTTP/1.1 200\r\nX-Folded: a\r\n  b\r\n"
                             "Transfer-Encoding: Chunked\r\n\r\n2\nok\n0\n\n";
  g_autoptr(RivHttpReply) reply = riv_http_reply_new ();
  g_autoptr(GError) error = NULL;
  g_autoptr(GString) body = feed (reply, text, strlen (text), 0, &error);

  g_assert_no_error (error);
  g_assert_cmpstr (body->str, ==, "ok");
  g_assert_cmpstr (riv_http_reply_get_reason (reply), ==, "");
  g_assert_cmpint (riv_http_reply_get_state (reply), ==, RIV_HTTP_REPLY_END);
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/http-reply/chunked-any-split", test_chunked_any_split);
  g_test_add_func ("/http-reply/head-then-body", test_head_then_body_states);
  g_test_add_func ("/http-reply/length-and-eof", test_length_and_eof);
  g_test_add_func ("/http-reply/error-status", test_error_status_is_read);
  g_test_add_func ("/http-reply/bad-replies", test_bad_replies);
  g_test_add_func ("/http-reply/lenient-where-harmless", test_lenient_where_harmless);
  return g_test_run ();
}
