/* fuzz-entry-upload.c
 * Copyright 2026 The Rivulet authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Input: the request's Content-Type header value, a LF, then a POST /upload
 * request body (empty without a LF).
 *
 * RivServer's upload handler is static; this follows its parsing steps with
 * the libsoup calls it makes (soup_multipart_new_from_message, then each
 * part's Content-Disposition and its "name" and "filename" parameters). The
 * file name sanitising in riv-server.c is static too and is not reached.
 *
 * Oracles: no crash, leak or GLib warning in the parsing RivServer relies
 * on; every part counted is there.
 *
 * libsoup 3.2.3 can return a part whose body is longer than the whole request
 * ("--b\r\n\r\n--b--": the header end and the next boundary share a CRLF, and
 * the part length end - 2 - split is (gsize) -2). Such a part is treated here
 * as the server must treat it, as a bad request, rather than failing: the
 * guard belongs in RivServer, and test-fuzz-regressions checks it there by
 * sending the inputs to a real server (tests/fuzz/regressions/upload/).
 */
#include "config.h"

#include <libsoup/soup.h>
#include <string.h>

#include "fuzz-entry.h"

void
riv_fuzz_upload (const guint8 *data,
                 gsize         size)
{
  g_autoptr(SoupMessageHeaders) headers = NULL;
  g_autoptr(SoupMultipart) multipart = NULL;
  SoupMessageBody *request;
  g_autoptr(GBytes) body = NULL;
  g_autoptr(GString) content_type = NULL;
  const guint8 *nl = memchr (data, '\n', size);
  gsize header_len = nl != NULL ? (gsize) (nl - data) : size;

  /* libsoup refuses (with a warning) header values with line ends or NULs,
   * which no HTTP request can carry. */
  content_type = g_string_new (NULL);
  for (gsize i = 0; i < header_len; i++)
    if (data[i] != '\r' && data[i] != '\0')
      g_string_append_c (content_type, data[i]);

  /* As RivServer gets it: soup_message_body_flatten() of the request body.
   * Its NUL terminator matters: soup_multipart_new_from_message() (libsoup
   * 3.2) runs strstr() over the body and reads past the end of one without. */
  request = soup_message_body_new ();
  if (nl != NULL)
    soup_message_body_append (request, SOUP_MEMORY_COPY, nl + 1, size - header_len - 1);
  body = soup_message_body_flatten (request);
  soup_message_body_unref (request);

  headers = soup_message_headers_new (SOUP_MESSAGE_HEADERS_REQUEST);
  soup_message_headers_replace (headers, "Content-Type", content_type->str);

  multipart = soup_multipart_new_from_message (headers, body);
  if (multipart == NULL)
    return;

  for (int i = 0; i < soup_multipart_get_length (multipart); i++)
    {
      SoupMessageHeaders *part_headers = NULL;
      GBytes *part_body = NULL;
      g_autoptr(GHashTable) params = NULL;
      const char *name, *filename;

      RIV_FUZZ_CHECK (soup_multipart_get_part (multipart, i, &part_headers, &part_body),
                      "part %d of %d missing", i, soup_multipart_get_length (multipart));
      RIV_FUZZ_CHECK (part_body != NULL && part_headers != NULL, "part %d is empty", i);
      /* The libsoup bug above: a bad request, nothing more to look at. */
      if (g_bytes_get_size (part_body) > g_bytes_get_size (body))
        return;
      if (!soup_message_headers_get_content_disposition (part_headers, NULL, &params))
        continue;
      name = g_hash_table_lookup (params, "name");
      if (g_strcmp0 (name, "files") != 0)
        continue;
      filename = g_hash_table_lookup (params, "filename");
      if (filename != NULL)
        g_free (g_utf8_make_valid (filename, -1));
    }
}
