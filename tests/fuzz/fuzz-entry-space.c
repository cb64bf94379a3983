/* fuzz-entry-space.c
 * Copyright 2026 The Rivulet authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The readers of a Hugging Face Space by name (riv-space.c): the Hub's
 * replies about a Space (its info and its runtime) and the spellings of
 * --url that name a Space.
 *
 * Input: byte 0 picks the reader (0: info, 1: runtime, 2: a name), the
 * rest is the reply or the text (a name up to a NUL).
 *
 * Oracles:
 *  - info: read, a host that is an http(s) URL with a host name, and a
 *    stage that is NULL or not empty; refused, a RIV_SPACE_ERROR_BAD_REPLY
 *    and nothing given back;
 *  - runtime: read, a stage that is not empty; refused, the same as info;
 *  - a stage (any text) always has a state and words;
 *  - a name: read, OWNER/NAME with one "/", that reads back as itself and
 *    is spelled as a Space; refused, RIV_SPACE_ERROR_BAD_ID.
 */
#include "config.h"

#include <string.h>

#include "fuzz-entry.h"
#include "riv-space.h"

#define HUB "http://127.0.0.1:8"

static void
check_stage (const char *stage)
{
  g_autofree char *words = riv_space_stage_describe (stage);
  RivSpaceState state = riv_space_stage_state (stage);

  RIV_FUZZ_CHECK (words != NULL && *words != '\0', "no words for stage %.100s", stage);
  RIV_FUZZ_CHECK (state <= RIV_SPACE_FAILED, "stage %.100s has state %d", stage, state);
}

static void
fuzz_info (const char *body,
           gsize       length)
{
  g_autofree char *host = NULL;
  g_autofree char *stage = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(GUri) uri = NULL;

  if (!riv_space_parse_info (body, length, &host, &stage, &error))
    {
      RIV_FUZZ_CHECK (g_error_matches (error, RIV_SPACE_ERROR, RIV_SPACE_ERROR_BAD_REPLY),
                      "info refused without a bad-reply error");
      RIV_FUZZ_CHECK (host == NULL && stage == NULL, "info refused but gave something back");
      return;
    }
  RIV_FUZZ_CHECK (error == NULL, "info read with an error set");
  uri = g_uri_parse (host, G_URI_FLAGS_NONE, NULL);
  RIV_FUZZ_CHECK (uri != NULL && g_uri_get_host (uri) != NULL && *g_uri_get_host (uri) != '\0' &&
                  (g_ascii_strcasecmp (g_uri_get_scheme (uri), "http") == 0 ||
                   g_ascii_strcasecmp (g_uri_get_scheme (uri), "https") == 0),
                  "info gave host %.200s", host);
  RIV_FUZZ_CHECK (stage == NULL || *stage != '\0', "info gave an empty stage");
  if (stage != NULL)
    check_stage (stage);
}

static void
fuzz_runtime (const char *body,
              gsize       length)
{
  g_autofree char *stage = NULL;
  g_autofree char *message = NULL;
  g_autoptr(GError) error = NULL;

  if (!riv_space_parse_runtime (body, length, &stage, &message, &error))
    {
      RIV_FUZZ_CHECK (g_error_matches (error, RIV_SPACE_ERROR, RIV_SPACE_ERROR_BAD_REPLY),
                      "runtime refused without a bad-reply error");
      RIV_FUZZ_CHECK (stage == NULL && message == NULL,
                      "runtime refused but gave something back");
      return;
    }
  RIV_FUZZ_CHECK (stage != NULL && *stage != '\0', "runtime read without a stage");
  RIV_FUZZ_CHECK (message == NULL || *message != '\0', "runtime gave an empty message");
  check_stage (stage);
}

static void
fuzz_name (const char *text)
{
  g_autofree char *id = NULL;
  g_autofree char *again = NULL;
  g_autoptr(GError) error = NULL;

  (void) riv_space_is_spelled (text, HUB);
  id = riv_space_parse_id (text, HUB, &error);
  if (id == NULL)
    {
      RIV_FUZZ_CHECK (g_error_matches (error, RIV_SPACE_ERROR, RIV_SPACE_ERROR_BAD_ID),
                      "name %.200s refused without a bad-id error", text);
      return;
    }
  RIV_FUZZ_CHECK (strchr (id, '/') != NULL && strchr (id, '/') == strrchr (id, '/') &&
                  id[0] != '/' && id[strlen (id) - 1] != '/',
                  "name %.200s read as %.200s", text, id);
  RIV_FUZZ_CHECK (riv_space_is_spelled (id, HUB), "%.200s is not spelled as a Space", id);
  again = riv_space_parse_id (id, HUB, NULL);
  RIV_FUZZ_CHECK (g_strcmp0 (again, id) == 0, "%.200s reads back as %.200s", id, again);
}

void
riv_fuzz_space (const guint8 *data,
                gsize         size)
{
  const char *rest = (const char *) data + 1;
  g_autofree char *name = NULL;

  if (size < 1)
    return;
  switch (data[0] % 3)
    {
    case 0:
      fuzz_info (rest, size - 1);
      break;
    case 1:
      fuzz_runtime (rest, size - 1);
      break;
    default:
      name = g_strndup (rest, size - 1);
      fuzz_name (name);
      break;
    }
}
