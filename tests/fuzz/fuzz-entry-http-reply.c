/* fuzz-entry-http-reply.c
 * Copyright 2026 The Rivulet authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Input: bytes 0-2 seed the split, the rest is what a server sent back to a
 * direct stream's GET (riv-http-reply.c).
 *
 * Oracles:
 *  - differential: fed in pieces (split at positions from the seed, empty
 *    pieces included), the reply gives the same body bytes, the same error
 *    or none, the same status and the same state as fed at once;
 *  - a feed never returns more body bytes than it was given, and after an
 *    error nothing more is asked of the reply (as the client does);
 *  - the status is 0 while the head is being read, else 200..599 (or a 1xx
 *    the reply was still on when the input ended is not reported);
 *  - memory is bounded by the parser's own limits (ASan and the fuzzer's
 *    memory limit).
 */
#include "config.h"

#include <gio/gio.h>
#include <string.h>

#include "fuzz-entry.h"
#include "riv-http-reply.h"

typedef struct
{
  GString          *body;
  char             *error;     /* nullable */
  guint             status;
  RivHttpReplyState state;
} Outcome;

static void
outcome_clear (Outcome *o)
{
  g_string_free (o->body, TRUE);
  g_free (o->error);
}

static void
run (const char *text,
     gsize       len,
     guint32     seed,
     gsize       max_piece,
     Outcome    *o)
{
  RivHttpReply *reply = riv_http_reply_new ();
  gsize done = 0;

  memset (o, 0, sizeof *o);
  o->body = g_string_new (NULL);
  seed |= 1;
  while (done < len)
    {
      g_autoptr(GError) error = NULL;
      gsize piece = len - done;
      char *copy;
      gssize got;

      if (max_piece > 0)
        {
          seed ^= seed << 13;
          seed ^= seed >> 17;
          seed ^= seed << 5;
          piece = MIN (seed % (max_piece + 1), piece);
        }
      copy = g_memdup2 (text + done, piece);
      got = riv_http_reply_feed (reply, copy, piece, &error);
      if (got < 0)
        {
          RIV_FUZZ_CHECK (error != NULL && error->domain == G_IO_ERROR &&
                          error->code == G_IO_ERROR_INVALID_DATA,
                          "a failed feed without its error");
          o->error = g_strdup (error->message);
          g_free (copy);
          break;
        }
      RIV_FUZZ_CHECK (error == NULL, "an error set on a feed that went on");
      RIV_FUZZ_CHECK ((gsize) got <= piece, "%zd body bytes out of %zu", got, piece);
      g_string_append_len (o->body, copy, got);
      g_free (copy);
      done += piece;
    }
  o->status = riv_http_reply_get_status (reply);
  o->state = riv_http_reply_get_state (reply);
  RIV_FUZZ_CHECK ((o->state == RIV_HTTP_REPLY_HEAD) == (o->status == 0),
                  "state %d with status %u", o->state, o->status);
  RIV_FUZZ_CHECK (o->status == 0 || (o->status >= 200 && o->status <= 999),
                  "status %u reported", o->status);
  riv_http_reply_free (reply);
}

void
riv_fuzz_http_reply (const guint8 *data,
                     gsize         size)
{
  Outcome whole, pieces;
  const char *text;
  gsize len;
  guint32 seed;

  if (size < 3)
    return;
  seed = (guint32) data[0] << 16 | (guint32) data[1] << 8 | data[2];
  text = (const char *) data + 3;
  len = size - 3;

  run (text, len, 0, 0, &whole);
  run (text, len, seed, 1 + (data[2] & 0x3f), &pieces);

  /* An error ends the feed: the pieces may have stopped earlier inside the
   * same bad spot, but never with a different verdict. */
  RIV_FUZZ_CHECK ((whole.error == NULL) == (pieces.error == NULL),
                  "at once: %s; in pieces: %s", whole.error ? whole.error : "ok",
                  pieces.error ? pieces.error : "ok");
  if (whole.error == NULL)
    {
      RIV_FUZZ_CHECK (whole.body->len == pieces.body->len &&
                      memcmp (whole.body->str, pieces.body->str, whole.body->len) == 0,
                      "bodies differ: %zu and %zu bytes", whole.body->len, pieces.body->len);
      RIV_FUZZ_CHECK (whole.status == pieces.status, "status %u and %u", whole.status,
                      pieces.status);
      RIV_FUZZ_CHECK (whole.state == pieces.state, "state %d and %d", whole.state, pieces.state);
    }
  else
    RIV_FUZZ_CHECK (strcmp (whole.error, pieces.error) == 0, "errors differ: %s / %s",
                    whole.error, pieces.error);
  outcome_clear (&whole);
  outcome_clear (&pieces);
}
