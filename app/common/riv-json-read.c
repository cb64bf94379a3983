/* riv-json-read.c
 * Copyright 2026 The Rivulet authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The one reader of JSON that comes from outside: server replies and frames,
 * request bodies to the embedded server, recordings, --data. It reads RFC 8259
 * JSON and nothing else into the JsonNode tree json-glib's parser would build,
 * several times faster (json-glib's tokenizer cost about 40,000 instructions
 * for a 200-byte queue message, the largest part of a load run's client time),
 * and refuses with a GError that says what and where (line and column):
 *
 *  - json-glib 1.6's extensions: comments, single quotes, `var x =`, bare
 *    words, leading zeros (which it reads as octal);
 *  - escapes JSON does not have ("\365" would be the byte 0xf5, not UTF-8),
 *    a \u escape of a lone UTF-16 surrogate, text that is not UTF-8;
 *  - a second top-level value (json-glib keeps the last and leaks the rest);
 *  - nesting deeper than the caller's limit, checked before recursing.
 *
 * Where JSON allows more than a JsonNode holds, it reads as json-glib would, or
 * better: a repeated member name keeps the last value (in the first one's
 * place); an integer beyond int64 is a double (json-glib 1.6 wraps it around);
 * a \u0000 escape becomes U+FFFD (a node's string cannot hold NUL; json-glib
 * cuts the string there); a number beyond a double's range is infinity, as in
 * json-glib (the readers of numbers refuse what is not finite); a leading
 * UTF-8 byte order mark is skipped. The `json` fuzz target checks against
 * json-glib that every tree read is the one json-glib builds from the same
 * text, outside the integer and the NUL.
 */
#include "config.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "riv-json.h"

/* Strings and member names up to this size are built on the stack. */
#define STACK_TEXT 256

typedef struct
{
  const char  *start;
  const char  *p;
  const char  *end;
  guint        depth;
  guint        max_depth;
  GError     **error;
} Reader;

/* A text being built: in `stack` while it fits, then on the heap. */
typedef struct
{
  char *str;
  gsize len;
  gsize cap;
  char stack[STACK_TEXT];
} Text;

static void
text_init (Text *t)
{
  t->str = t->stack;
  t->len = 0;
  t->cap = sizeof t->stack;
}

static void
text_clear (Text *t)
{
  if (t->str != t->stack)
    g_free (t->str);
}

static void
text_append (Text       *t,
             const char *bytes,
             gsize       n)
{
  if (t->len + n + 1 > t->cap)
    {
      gsize cap = MAX (t->cap * 2, t->len + n + 1);

      if (t->str == t->stack)
        t->str = memcpy (g_malloc (cap), t->stack, t->len);
      else
        t->str = g_realloc (t->str, cap);
      t->cap = cap;
    }
  memcpy (t->str + t->len, bytes, n);
  t->len += n;
  t->str[t->len] = '\0';
}

static void
text_append_unichar (Text     *t,
                     gunichar  c)
{
  char utf8[6];

  text_append (t, utf8, g_unichar_to_utf8 (c, utf8));
}

/* Sets the reader's error (the first one only) at `at`: "line L, column C: …",
 * the column counted in bytes from 1. Returns FALSE. */
static gboolean
fail (Reader          *r,
      const char      *at,
      JsonParserError  code,
      const char      *format,
      ...) G_GNUC_PRINTF (4, 5);

static gboolean
fail (Reader          *r,
      const char      *at,
      JsonParserError  code,
      const char      *format,
      ...)
{
  g_autofree char *what = NULL;
  const char *line_start = r->start;
  guint line = 1;
  va_list args;

  if (r->error == NULL || *r->error != NULL)
    return FALSE;
  for (const char *q = r->start; q < at; q++)
    if (*q == '\n')
      {
        line++;
        line_start = q + 1;
      }
  va_start (args, format);
  what = g_strdup_vprintf (format, args);
  va_end (args);
  g_set_error (r->error, JSON_PARSER_ERROR, code, "line %u, column %u: %s",
               line, (guint) (at - line_start) + 1, what);
  return FALSE;
}

/* What stands at p, for an error message: a printable character quoted, else
 * its byte, or the end. */
static char *
describe_at (Reader     *r,
             const char *p)
{
  if (p >= r->end)
    return g_strdup ("the end of the text");
  if (g_ascii_isprint (*p))
    return g_strdup_printf ("'%c'", *p);
  return g_strdup_printf ("byte 0x%02x", (guchar) *p);
}

static gboolean
fail_unexpected (Reader     *r,
                 const char *p,
                 const char *expected)
{
  g_autofree char *got = describe_at (r, p);

  return fail (r, p, JSON_PARSER_ERROR_PARSE, "unexpected %s, expected %s", got, expected);
}

static JsonNode *read_value (Reader *r);

static inline void
skip_space (Reader *r)
{
  while (r->p < r->end && (*r->p == ' ' || *r->p == '\n' || *r->p == '\r' || *r->p == '\t'))
    r->p++;
}

static inline int
hex_digit (char c)
{
  if (c >= '0' && c <= '9')
    return c - '0';
  if (c >= 'a' && c <= 'f')
    return c - 'a' + 10;
  if (c >= 'A' && c <= 'F')
    return c - 'A' + 10;
  return -1;
}

/* The four hex digits at p (p + 4 ≤ end), or -1. */
static int
hex4 (const char *p)
{
  int value = 0;

  for (int i = 0; i < 4; i++)
    {
      int d = hex_digit (p[i]);

      if (d < 0)
        return -1;
      value = (value << 4) | d;
    }
  return value;
}

/* A \u escape at p (p[0] == '\\', p[1] == 'u'), a surrogate pair taken whole;
 * appends the character and returns the escape's length, or 0 on error. */
static gsize
read_unicode_escape (Reader     *r,
                     const char *p,
                     Text       *out)
{
  int unit, low;

  if (r->end - p < 6 || (unit = hex4 (p + 2)) < 0)
    return fail (r, p, JSON_PARSER_ERROR_INVALID_DATA, "JSON string with an invalid \\u escape");

  if (unit >= 0xd800 && unit <= 0xdbff)
    {
      if (r->end - p < 12 || p[6] != '\\' || p[7] != 'u' ||
          (low = hex4 (p + 8)) < 0xdc00 || low > 0xdfff)
        return fail (r, p, JSON_PARSER_ERROR_INVALID_DATA,
                     "JSON string with an unpaired UTF-16 surrogate escape");
      text_append_unichar (out, 0x10000 + (((gunichar) unit - 0xd800) << 10) + ((gunichar) low - 0xdc00));
      return 12;
    }
  if (unit >= 0xdc00 && unit <= 0xdfff)
    return fail (r, p, JSON_PARSER_ERROR_INVALID_DATA,
                 "JSON string with an unpaired UTF-16 surrogate escape");
  /* A node's string ends at NUL: the character is kept visible instead. */
  text_append_unichar (out, unit == 0 ? 0xfffd : (gunichar) unit);
  return 6;
}

/* Reads a string whose opening quote r->p is at into out (NUL-terminated,
 * valid UTF-8, no NUL inside). */
static gboolean
read_string (Reader *r,
             Text   *out)
{
  const char *open = r->p;
  const char *p = r->p + 1;
  gboolean ascii = TRUE;

  out->len = 0;
  out->str[0] = '\0';
  for (;;)
    {
      const char *run = p;
      gsize n;

      while (p < r->end && *p != '"' && *p != '\\' && (guchar) *p >= 0x20)
        {
          ascii &= (guchar) *p < 0x80;
          p++;
        }
      text_append (out, run, p - run);
      if (p >= r->end)
        return fail (r, open, JSON_PARSER_ERROR_PARSE, "JSON string without its closing quote");
      if ((guchar) *p < 0x20)
        return fail (r, p, JSON_PARSER_ERROR_INVALID_DATA,
                     "JSON string with a control character (byte 0x%02x) not escaped", (guchar) *p);
      if (*p == '"')
        break;

      /* An escape: JSON's eight and \u, nothing else. */
      if (r->end - p < 2)
        return fail (r, open, JSON_PARSER_ERROR_PARSE, "JSON string without its closing quote");
      switch (p[1])
        {
        case '"':
        case '\\':
        case '/':
          text_append (out, p + 1, 1);
          break;
        case 'b': text_append (out, "\b", 1); break;
        case 'f': text_append (out, "\f", 1); break;
        case 'n': text_append (out, "\n", 1); break;
        case 'r': text_append (out, "\r", 1); break;
        case 't': text_append (out, "\t", 1); break;
        case 'u':
          if ((n = read_unicode_escape (r, p, out)) == 0)
            return FALSE;
          p += n;
          continue;
        default:
          if (g_ascii_isprint (p[1]))
            return fail (r, p, JSON_PARSER_ERROR_INVALID_DATA,
                         "JSON string with an invalid escape \"\\%c\"", p[1]);
          return fail (r, p, JSON_PARSER_ERROR_INVALID_DATA,
                       "JSON string with an invalid escape (backslash, byte 0x%02x)", (guchar) p[1]);
        }
      p += 2;
    }

  if (!ascii && !g_utf8_validate_len (out->str, out->len, NULL))
    return fail (r, open, JSON_PARSER_ERROR_INVALID_DATA, "JSON string that is not UTF-8");
  r->p = p + 1;
  return TRUE;
}

static JsonNode *
read_number (Reader *r)
{
  const char *start = r->p;
  const char *p = start;
  gboolean is_double = FALSE;
  JsonNode *node;

  if (*p == '-')
    p++;
  if (p >= r->end || !g_ascii_isdigit (*p))
    return fail_unexpected (r, start, "a JSON value"), NULL;
  if (*p == '0' && p + 1 < r->end && g_ascii_isdigit (p[1]))
    return fail (r, start, JSON_PARSER_ERROR_INVALID_DATA, "JSON number with a leading zero"), NULL;
  while (p < r->end && g_ascii_isdigit (*p))
    p++;
  if (p < r->end && *p == '.')
    {
      is_double = TRUE;
      if (++p >= r->end || !g_ascii_isdigit (*p))
        return fail (r, start, JSON_PARSER_ERROR_INVALID_DATA, "JSON number without digits after '.'"), NULL;
      while (p < r->end && g_ascii_isdigit (*p))
        p++;
    }
  if (p < r->end && (*p == 'e' || *p == 'E'))
    {
      is_double = TRUE;
      if (++p < r->end && (*p == '+' || *p == '-'))
        p++;
      if (p >= r->end || !g_ascii_isdigit (*p))
        return fail (r, start, JSON_PARSER_ERROR_INVALID_DATA, "JSON number without digits in its exponent"), NULL;
      while (p < r->end && g_ascii_isdigit (*p))
        p++;
    }
  /* A number runs into the next token only through a delimiter. */
  if (p < r->end && (g_ascii_isalnum (*p) || *p == '.' || *p == '_' || *p == '+' || *p == '-'))
    return fail_unexpected (r, p, "',', ']' or '}' after a number"), NULL;

  if (!is_double)
    {
      gboolean negative = *start == '-';
      guint64 value = 0, limit = negative ? (guint64) G_MAXINT64 + 1 : (guint64) G_MAXINT64;
      gboolean fits = TRUE;

      for (const char *q = start + negative; q < p && fits; q++)
        {
          guint digit = *q - '0';

          if (value > (limit - digit) / 10)
            fits = FALSE;
          else
            value = value * 10 + digit;
        }
      if (fits)
        {
          node = json_node_alloc ();
          /* -(2^63) is the one value whose magnitude does not fit positively. */
          json_node_init_int (node, negative ? (gint64) (0 - value) : (gint64) value);
          r->p = p;
          return node;
        }
      /* Beyond int64: a double, as JavaScript and newer json-glib read it. */
    }

  {
    char stack[64];
    g_autofree char *heap = NULL;
    gsize len = p - start;
    char *buf = len < sizeof stack ? stack : (heap = g_malloc (len + 1));
    double value;

    memcpy (buf, start, len);
    buf[len] = '\0';
    /* Beyond a double's range, infinity, as json-glib reads it: the readers
     * of numbers (riv-message.c, riv-config.c) refuse what is not finite. */
    value = g_ascii_strtod (buf, NULL);
    node = json_node_alloc ();
    json_node_init_double (node, value);
  }
  r->p = p;
  return node;
}

static gboolean
read_word (Reader     *r,
           const char *word,
           gsize       len)
{
  if ((gsize) (r->end - r->p) < len || memcmp (r->p, word, len) != 0 ||
      (r->p + len < r->end && (g_ascii_isalnum (r->p[len]) || r->p[len] == '_')))
    return fail (r, r->p, JSON_PARSER_ERROR_INVALID_BAREWORD,
                 "a word that is not a JSON value (true, false and null are)");
  r->p += len;
  return TRUE;
}

static JsonNode *
read_object (Reader *r,
             Text   *name)
{
  JsonObject *object = json_object_new ();
  JsonNode *node;

  r->p++;
  skip_space (r);
  if (r->p < r->end && *r->p == '}')
    {
      r->p++;
      goto done;
    }
  for (;;)
    {
      JsonNode *member;

      if (r->p >= r->end || *r->p != '"')
        {
          fail_unexpected (r, r->p, "a member name in double quotes");
          goto fail;
        }
      if (!read_string (r, name))
        goto fail;
      skip_space (r);
      if (r->p >= r->end || *r->p != ':')
        {
          fail (r, r->p, JSON_PARSER_ERROR_MISSING_COLON, "expected ':' after the member name");
          goto fail;
        }
      r->p++;
      if ((member = read_value (r)) == NULL)
        goto fail;
      /* A repeated name keeps the last value, as json-glib does. */
      json_object_set_member (object, name->str, member);
      skip_space (r);
      if (r->p < r->end && *r->p == ',')
        {
          r->p++;
          skip_space (r);
          if (r->p < r->end && *r->p == '}')
            {
              fail (r, r->p, JSON_PARSER_ERROR_TRAILING_COMMA, "a ',' before '}'");
              goto fail;
            }
          continue;
        }
      if (r->p < r->end && *r->p == '}')
        {
          r->p++;
          break;
        }
      fail_unexpected (r, r->p, "',' or '}' in an object");
      goto fail;
    }

done:
  node = json_node_alloc ();
  json_node_init_object (node, object);
  json_object_unref (object);
  return node;

fail:
  json_object_unref (object);
  return NULL;
}

static JsonNode *
read_array (Reader *r)
{
  JsonArray *array = json_array_new ();
  JsonNode *node;

  r->p++;
  skip_space (r);
  if (r->p < r->end && *r->p == ']')
    {
      r->p++;
      goto done;
    }
  for (;;)
    {
      JsonNode *element = read_value (r);

      if (element == NULL)
        goto fail;
      json_array_add_element (array, element);
      skip_space (r);
      if (r->p < r->end && *r->p == ',')
        {
          r->p++;
          skip_space (r);
          if (r->p < r->end && *r->p == ']')
            {
              fail (r, r->p, JSON_PARSER_ERROR_TRAILING_COMMA, "a ',' before ']'");
              goto fail;
            }
          continue;
        }
      if (r->p < r->end && *r->p == ']')
        {
          r->p++;
          break;
        }
      fail_unexpected (r, r->p, "',' or ']' in an array");
      goto fail;
    }

done:
  node = json_node_alloc ();
  json_node_init_array (node, array);
  json_array_unref (array);
  return node;

fail:
  json_array_unref (array);
  return NULL;
}

static gboolean
enter (Reader *r)
{
  if (++r->depth > r->max_depth)
    return fail (r, r->p, JSON_PARSER_ERROR_PARSE, "JSON nested deeper than %u levels", r->max_depth);
  return TRUE;
}

static JsonNode *
read_value (Reader *r)
{
  JsonNode *node = NULL;

  skip_space (r);
  if (r->p >= r->end)
    return fail_unexpected (r, r->p, "a JSON value"), NULL;

  switch (*r->p)
    {
    case '{':
      {
        Text name;

        if (!enter (r))
          return NULL;
        text_init (&name);
        node = read_object (r, &name);
        text_clear (&name);
        r->depth--;
        return node;
      }

    case '[':
      if (!enter (r))
        return NULL;
      node = read_array (r);
      r->depth--;
      return node;

    case '"':
      {
        Text text;

        text_init (&text);
        if (read_string (r, &text))
          {
            node = json_node_alloc ();
            json_node_init_string (node, text.str);
          }
        text_clear (&text);
        return node;
      }

    case 't':
      return read_word (r, "true", 4) ? json_node_init_boolean (json_node_alloc (), TRUE) : NULL;

    case 'f':
      return read_word (r, "false", 5) ? json_node_init_boolean (json_node_alloc (), FALSE) : NULL;

    case 'n':
      return read_word (r, "null", 4) ? json_node_init_null (json_node_alloc ()) : NULL;

    case '-':
    case '0': case '1': case '2': case '3': case '4':
    case '5': case '6': case '7': case '8': case '9':
      return read_number (r);

    default:
      if (g_ascii_isalpha (*r->p) || *r->p == '_')
        return fail (r, r->p, JSON_PARSER_ERROR_INVALID_BAREWORD,
                     "a word that is not a JSON value (true, false and null are)"), NULL;
      return fail_unexpected (r, r->p, "a JSON value"), NULL;
    }
}

JsonNode *
riv_json_parse (JsonParser  *parser,
                const char  *data,
                gssize       length,
                guint        max_depth,
                GError     **error)
{
  g_autoptr(GError) local = NULL;
  Reader r = { 0 };
  JsonNode *root;
  gboolean immutable = TRUE;

  g_return_val_if_fail (data != NULL || length <= 0, NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  if (length < 0)
    length = strlen (data);
  r.start = r.p = data;
  r.end = data + length;
  r.max_depth = max_depth > 0 ? max_depth : RIV_JSON_MAX_DEPTH;
  /* Errors are built even when the caller does not want them: a failing
   * read stops at the first one. */
  r.error = &local;

  /* A leading UTF-8 byte order mark is not part of the text. */
  if (length >= 3 && memcmp (data, "\xef\xbb\xbf", 3) == 0)
    r.start = r.p = data + 3;

  skip_space (&r);
  if (r.p >= r.end)
    {
      g_set_error_literal (error, JSON_PARSER_ERROR, JSON_PARSER_ERROR_PARSE, "empty JSON document");
      return NULL;
    }
  if ((root = read_value (&r)) == NULL)
    {
      g_propagate_error (error, g_steal_pointer (&local));
      return NULL;
    }
  skip_space (&r);
  if (r.p != r.end)
    {
      fail (&r, r.p, JSON_PARSER_ERROR_PARSE, "JSON text with more than one top-level value");
      g_propagate_error (error, g_steal_pointer (&local));
      json_node_unref (root);
      return NULL;
    }

  if (parser != NULL)
    g_object_get (parser, "immutable", &immutable, NULL);
  if (immutable)
    json_node_seal (root);
  return root;
}
