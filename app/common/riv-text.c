/* riv-text.c
 * Copyright 2026 The Rivulet authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Text from outside made safe to show (riv-text.h).
 */
#include "config.h"

#include <string.h>

#include "riv-text.h"

/* What ends the authority of a URL inside running text. */
#define AUTHORITY_END "/?#\"'<>()[]{}` \t\r\n"

char *
riv_text_redact_urls (const char *text)
{
  GString *out;
  const char *p = text;
  const char *mark;

  if (text == NULL)
    return g_strdup ("");

  out = g_string_sized_new (strlen (text));
  while ((mark = strstr (p, "://")) != NULL)
    {
      const char *authority = mark + 3;
      gsize len = strcspn (authority, AUTHORITY_END);
      const char *at = g_strrstr_len (authority, (gssize) len, "@");
      const char *colon = at != NULL ? memchr (authority, ':', (gsize) (at - authority)) : NULL;

      g_string_append_len (out, p, authority - p);
      if (colon != NULL)
        {
          /* user:password@host: the user stays, the password goes. */
          g_string_append_len (out, authority, colon + 1 - authority);
          g_string_append (out, "***");
          g_string_append_len (out, at, authority + len - at);
        }
      else
        g_string_append_len (out, authority, len);
      p = authority + len;
    }
  g_string_append (out, p);
  return g_string_free (out, FALSE);
}

char *
riv_text_for_terminal (const char *text)
{
  g_autofree char *redacted = riv_text_redact_urls (text);
  GString *out = g_string_sized_new (strlen (redacted));
  const char *p = redacted;

  while (*p != '\0')
    {
      guchar c = (guchar) *p;
      gunichar ch;

      if (c < 0x80)
        {
          if (c < 0x20 || c == 0x7f)
            g_string_append_printf (out, "\\x%02x", c);
          else
            g_string_append_c (out, (char) c);
          p++;
          continue;
        }

      ch = g_utf8_get_char_validated (p, -1);
      if (ch == (gunichar) -1 || ch == (gunichar) -2)
        {
          /* Not UTF-8: a lone byte 0x9b is a CSI to an eight-bit terminal. */
          g_string_append_printf (out, "\\x%02x", c);
          p++;
          continue;
        }
      if (ch >= 0x80 && ch <= 0x9f)
        g_string_append_printf (out, "\\u%04x", ch);
      else
        g_string_append_len (out, p, g_utf8_next_char (p) - p);
      p = g_utf8_next_char (p);
    }
  return g_string_free (out, FALSE);
}

char *
riv_text_token_line (const char *contents,
                     gsize       length)
{
  const char *end = contents;
  g_autofree char *line = NULL;

  while (end < contents + length && *end != '\r' && *end != '\n' && *end != '\0')
    end++;
  line = g_strstrip (g_strndup (contents, end - contents));
  if (*line == '\0' || !g_utf8_validate (line, -1, NULL))
    return NULL;
  return g_steal_pointer (&line);
}
