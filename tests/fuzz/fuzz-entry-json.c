/* fuzz-entry-json.c
 * Copyright 2026 The Rivulet authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Input: any bytes, as a JSON document.
 *
 * Oracles (riv_json_read() stands in for json-glib on plain JSON):
 *  - when riv_json_read() gives a tree, json-glib reads the same bytes without
 *    error into the same tree (types, values, member order);
 *  - riv_json_parse() (which tries riv_json_read() first) gives the tree
 *    json-glib gives, or an error exactly when json-glib's parse, the depth
 *    limit or the one-value check refuses;
 *  - riv_json_parse() refuses nothing riv_json_read() reads.
 * json-glib itself runs only on inputs one of them accepts: riv_json_parse()'s
 * prescan keeps it from escapes it leaks memory on.
 */
#include "config.h"

#include <string.h>

#include "fuzz-entry.h"
#include "riv-json-describe.h"
#include "riv-json-read.h"
#include "riv-util.h"

void
riv_fuzz_json (const guint8 *data,
               gsize         size)
{
  const char *text = (const char *) data;
  g_autoptr(JsonParser) parser = json_parser_new_immutable ();
  g_autoptr(GError) glib_error = NULL;
  g_autoptr(GError) parse_error = NULL;
  g_autoptr(JsonNode) fast = riv_json_read (text, size);
  g_autoptr(JsonNode) parsed = riv_json_parse (NULL, text, size, 0, &parse_error);
  g_autofree char *expected = NULL;

  if ((fast != NULL || parsed != NULL) &&
      json_parser_load_from_data (parser, text, size, &glib_error) &&
      json_parser_get_root (parser) != NULL)
    expected = riv_json_describe (json_parser_get_root (parser));

  if (fast != NULL)
    {
      g_autofree char *got = riv_json_describe (fast);

      RIV_FUZZ_CHECK (expected != NULL, "read what json-glib refuses (%s)",
                      glib_error != NULL ? glib_error->message : "empty");
      RIV_FUZZ_CHECK (g_str_equal (got, expected), "read %s, json-glib %s", got, expected);
    }

  if (parsed != NULL)
    {
      g_autofree char *got = riv_json_describe (parsed);

      RIV_FUZZ_CHECK (parse_error == NULL, "a tree and an error");
      RIV_FUZZ_CHECK (expected != NULL, "parsed what json-glib refuses");
      RIV_FUZZ_CHECK (g_str_equal (got, expected), "parsed %s, json-glib %s", got, expected);
      RIV_FUZZ_CHECK (json_node_is_immutable (parsed), "a fresh parse is sealed");
    }
  else
    {
      RIV_FUZZ_CHECK (parse_error != NULL, "no tree and no error");
      /* Besides json-glib's own errors, only the prescan refuses: a second
       * value after the first (which json-glib would take the last of). */
      RIV_FUZZ_CHECK (fast == NULL, "riv_json_read read what riv_json_parse refused: %s",
                      parse_error->message);
    }
}
