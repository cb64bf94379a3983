/* fuzz-entry-json.c
 * Copyright 2026 The Rivulet authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Input: any bytes, as a JSON document.
 *
 * Oracles, against json-glib (the parser riv_json_parse() replaced):
 *  - riv_json_parse() gives a sealed tree or an error, never both or neither;
 *  - every tree it gives is the one json-glib builds from the same bytes
 *    (types, values, member order), outside the corners riv-json-read.c reads
 *    differently on purpose: an integer beyond int64 (json-glib 1.6 wraps it)
 *    and a \u0000 escape (json-glib cuts the string);
 *  - a tree read with a depth limit is the tree read without one, and a
 *    refusal for depth names the depth.
 * json-glib runs only on what riv_json_parse() accepted: it leaks memory on
 * some texts that are not JSON.
 */
#include "config.h"

#include <string.h>

#include "fuzz-entry.h"
#include "riv-json-describe.h"
#include "riv-json.h"

/* Whether text may hold one of the corners read unlike json-glib: a run of 19
 * digits or more, or a \u0000 escape (also behind an escaped backslash, which
 * is fine to pass over). */
static gboolean
has_known_difference (const char *text,
                      gsize       size)
{
  guint digits = 0;

  for (gsize i = 0; i < size; i++)
    {
      digits = g_ascii_isdigit (text[i]) ? digits + 1 : 0;
      if (digits >= 19)
        return TRUE;
      if (text[i] == '\\' && i + 5 < size && text[i + 1] == 'u' &&
          text[i + 2] == '0' && text[i + 3] == '0' && text[i + 4] == '0' && text[i + 5] == '0')
        return TRUE;
    }
  return FALSE;
}

void
riv_fuzz_json (const guint8 *data,
               gsize         size)
{
  const char *text = (const char *) data;
  g_autoptr(GError) parse_error = NULL;
  g_autoptr(GError) depth_error = NULL;
  g_autoptr(JsonNode) parsed = riv_json_parse (NULL, text, size, 0, &parse_error);
  g_autoptr(JsonNode) shallow = riv_json_parse (NULL, text, size, 8, &depth_error);

  if (parsed == NULL)
    {
      RIV_FUZZ_CHECK (parse_error != NULL, "no tree and no error");
      RIV_FUZZ_CHECK (shallow == NULL, "read with a depth limit what it refused without one: %s",
                      parse_error->message);
      return;
    }

  RIV_FUZZ_CHECK (parse_error == NULL, "a tree and an error");
  RIV_FUZZ_CHECK (json_node_is_immutable (parsed), "a fresh parse is sealed");
  {
    g_autofree char *got = riv_json_describe (parsed);

    if (shallow != NULL)
      {
        g_autofree char *again = riv_json_describe (shallow);

        RIV_FUZZ_CHECK (g_str_equal (got, again), "a depth limit changed the tree");
      }
    else
      RIV_FUZZ_CHECK (depth_error != NULL && strstr (depth_error->message, "nested deeper than 8") != NULL,
                      "refused with a depth limit for another reason: %s",
                      depth_error != NULL ? depth_error->message : "no error");

    if (!has_known_difference (text, size))
      {
        g_autoptr(JsonParser) parser = json_parser_new_immutable ();
        g_autoptr(GError) glib_error = NULL;
        g_autofree char *expected = NULL;

        RIV_FUZZ_CHECK (json_parser_load_from_data (parser, text, size, &glib_error) &&
                        json_parser_get_root (parser) != NULL,
                        "read what json-glib refuses (%s)",
                        glib_error != NULL ? glib_error->message : "empty");
        expected = riv_json_describe (json_parser_get_root (parser));
        RIV_FUZZ_CHECK (g_str_equal (got, expected), "read %s, json-glib %s", got, expected);
      }
  }
}
