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

struct _RivJsonReader
{
  const char  *start;
  const char  *p;
  const char  *end;
  guint        depth;
  guint        max_depth;
  GError     **error;
};
typedef RivJsonReader Reader;

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
      if (out != NULL)
        text_append_unichar (out, 0x10000 + (((gunichar) unit - 0xd800) << 10) + ((gunichar) low - 0xdc00));
      return 12;
    }
  if (unit >= 0xdc00 && unit <= 0xdfff)
    return fail (r, p, JSON_PARSER_ERROR_INVALID_DATA,
                 "JSON string with an unpaired UTF-16 surrogate escape");
  /* A node's string ends at NUL: the character is kept visible instead. */
  if (out != NULL)
    text_append_unichar (out, unit == 0 ? 0xfffd : (gunichar) unit);
  return 6;
}

/* Reads a string whose opening quote r->p is at into out (NUL-terminated,
 * valid UTF-8, no NUL inside), or only checks it when out is NULL. */
static gboolean
read_string (Reader *r,
             Text   *out)
{
  const char *open = r->p;
  const char *p = r->p + 1;
  gboolean ascii = TRUE;

  if (out != NULL)
    {
      out->len = 0;
      out->str[0] = '\0';
    }
  for (;;)
    {
      const char *run = p;
      gsize n;

      while (p < r->end && *p != '"' && *p != '\\' && (guchar) *p >= 0x20)
        {
          ascii &= (guchar) *p < 0x80;
          p++;
        }
      if (out != NULL)
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
          n = 1;
          break;
        case 'b': case 'f': case 'n': case 'r': case 't':
          n = 1;
          break;
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
      if (out != NULL)
        {
          static const char plain[] = "\"\\/\b\f\n\r\t";
          static const char named[] = "\"\\/bfnrt";

          text_append (out, plain + (strchr (named, p[1]) - named), n);
        }
      p += 2;
    }

  /* Escapes are ASCII and end no character: checking the raw bytes between
   * the quotes is checking the string they make. */
  if (!ascii && !g_utf8_validate_len (open + 1, p - open - 1, NULL))
    return fail (r, open, JSON_PARSER_ERROR_INVALID_DATA, "JSON string that is not UTF-8");
  r->p = p + 1;
  return TRUE;
}

/* Checks the number at r->p and returns where it ends (NULL on error);
 * *is_double when it has a fraction or an exponent. */
static const char *
scan_number (Reader   *r,
             gboolean *is_double)
{
  const char *start = r->p;
  const char *p = start;

  *is_double = FALSE;
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
      *is_double = TRUE;
      if (++p >= r->end || !g_ascii_isdigit (*p))
        return fail (r, start, JSON_PARSER_ERROR_INVALID_DATA, "JSON number without digits after '.'"), NULL;
      while (p < r->end && g_ascii_isdigit (*p))
        p++;
    }
  if (p < r->end && (*p == 'e' || *p == 'E'))
    {
      *is_double = TRUE;
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
  return p;
}

/* The integer [start, end) (digits, an optional leading '-'), if it fits. */
static gboolean
integer_value (const char *start,
               const char *end,
               gint64     *out)
{
  gboolean negative = *start == '-';
  guint64 value = 0, limit = negative ? (guint64) G_MAXINT64 + 1 : (guint64) G_MAXINT64;

  for (const char *q = start + negative; q < end; q++)
    {
      guint digit = *q - '0';

      if (value > (limit - digit) / 10)
        return FALSE;
      value = value * 10 + digit;
    }
  /* -(2^63) is the one value whose magnitude does not fit positively. */
  *out = negative ? (gint64) (0 - value) : (gint64) value;
  return TRUE;
}

/* The double [start, end) is, when a product or quotient of two exact doubles
 * gives it correctly rounded: significant digits that make an integer up to
 * 2^53 and a power of ten up to 22 (both exact in a double, so the one
 * rounding is IEEE's). The durations and timings in every queue message are
 * such numbers, and so are the server's stamps (Unix time in microseconds,
 * 16 digits); strtod's general path cost more than the rest of the
 * number's reading. */
static gboolean
double_value_fast (const char *start,
                   const char *end,
                   double     *out)
{
  static const double pow10[] = {
    1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11,
    1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22,
  };
  const char *p = start;
  gboolean negative = *p == '-';
  guint64 mantissa = 0;
  int digits = 0, exp10 = 0, e = 0, e_sign = 1;

  p += negative;
  for (; p < end && g_ascii_isdigit (*p); p++)
    if (mantissa != 0 || *p != '0')
      {
        if (++digits > 19)
          return FALSE;
        mantissa = mantissa * 10 + (guint) (*p - '0');
      }
  if (p < end && *p == '.')
    for (p++; p < end && g_ascii_isdigit (*p); p++)
      {
        if (mantissa != 0 || *p != '0')
          {
            if (++digits > 19)
              return FALSE;
            mantissa = mantissa * 10 + (guint) (*p - '0');
          }
        exp10--;
      }
  if (p < end && (*p == 'e' || *p == 'E'))
    {
      p++;
      if (*p == '+' || *p == '-')
        e_sign = *p++ == '-' ? -1 : 1;
      for (; p < end; p++)
        {
          e = e * 10 + (*p - '0');
          if (e > 400)
            return FALSE;
        }
    }
  exp10 += e_sign * e;
  /* 19 digits do not overflow; beyond 2^53 the integer is not exact. */
  if (mantissa > (G_GUINT64_CONSTANT (1) << 53))
    return FALSE;
  if (mantissa == 0)
    *out = 0.0;
  else if (exp10 >= 0 && exp10 <= 22)
    *out = (double) mantissa * pow10[exp10];
  else if (exp10 < 0 && exp10 >= -22)
    *out = (double) mantissa / pow10[-exp10];
  else
    return FALSE;
  if (negative)
    *out = -*out;
  return TRUE;
}

/* Reads the number at r->p as an integer (*is_int) or a double. */
static gboolean
read_number_value (Reader   *r,
                   gboolean *is_int,
                   gint64   *integer,
                   double   *value)
{
  const char *start = r->p;
  const char *p;
  gboolean is_double;

  if ((p = scan_number (r, &is_double)) == NULL)
    return FALSE;
  r->p = p;

  /* Beyond int64: a double, as JavaScript and newer json-glib read it. */
  if ((*is_int = !is_double && integer_value (start, p, integer)))
    return TRUE;

  if (!double_value_fast (start, p, value))
    {
      char stack[64];
      g_autofree char *heap = NULL;
      gsize len = p - start;
      char *buf = len < sizeof stack ? stack : (heap = g_malloc (len + 1));

      memcpy (buf, start, len);
      buf[len] = '\0';
      /* Beyond a double's range, infinity, as json-glib reads it: the readers
       * of numbers (riv-message.c, riv-config.c) refuse what is not finite. */
      *value = g_ascii_strtod (buf, NULL);
    }
  return TRUE;
}

static JsonNode *
read_number (Reader *r)
{
  gboolean is_int;
  gint64 integer;
  double value;

  if (!read_number_value (r, &is_int, &integer, &value))
    return NULL;
  if (is_int)
    return json_node_init_int (json_node_alloc (), integer);
  return json_node_init_double (json_node_alloc (), value);
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

/* Reads the members of the object whose '{' r->p is at, up to its '}': the
 * name of each into `name`, then member () reads its value. */
static gboolean
walk_object (Reader           *r,
             Text             *name,
             RivJsonMemberFunc member,
             gpointer          user_data)
{
  r->p++;
  skip_space (r);
  if (r->p < r->end && *r->p == '}')
    {
      r->p++;
      return TRUE;
    }
  for (;;)
    {
      if (r->p >= r->end || *r->p != '"')
        return fail_unexpected (r, r->p, "a member name in double quotes");
      if (!read_string (r, name))
        return FALSE;
      skip_space (r);
      if (r->p >= r->end || *r->p != ':')
        return fail (r, r->p, JSON_PARSER_ERROR_MISSING_COLON, "expected ':' after the member name");
      r->p++;
      if (!member (r, name->str, user_data))
        return FALSE;
      skip_space (r);
      if (r->p < r->end && *r->p == ',')
        {
          r->p++;
          skip_space (r);
          if (r->p < r->end && *r->p == '}')
            return fail (r, r->p, JSON_PARSER_ERROR_TRAILING_COMMA, "a ',' before '}'");
          continue;
        }
      if (r->p < r->end && *r->p == '}')
        {
          r->p++;
          return TRUE;
        }
      return fail_unexpected (r, r->p, "',' or '}' in an object");
    }
}

static gboolean
object_member (Reader     *r,
               const char *name,
               gpointer    user_data)
{
  JsonNode *member = read_value (r);

  if (member == NULL)
    return FALSE;
  /* A repeated name keeps the last value, as json-glib does. */
  json_object_set_member (user_data, name, member);
  return TRUE;
}

static JsonNode *
read_object (Reader *r,
             Text   *name)
{
  JsonObject *object = json_object_new ();
  JsonNode *node;

  if (!walk_object (r, name, object_member, object))
    {
      json_object_unref (object);
      return NULL;
    }
  node = json_node_alloc ();
  json_node_init_object (node, object);
  json_object_unref (object);
  return node;
}

typedef gboolean (*ElementFunc) (Reader *r, gpointer user_data);

/* Reads the elements of the array whose '[' r->p is at, up to its ']', each
 * with element (). */
static gboolean
walk_array (Reader      *r,
            ElementFunc  element,
            gpointer     user_data)
{
  r->p++;
  skip_space (r);
  if (r->p < r->end && *r->p == ']')
    {
      r->p++;
      return TRUE;
    }
  for (;;)
    {
      if (!element (r, user_data))
        return FALSE;
      skip_space (r);
      if (r->p < r->end && *r->p == ',')
        {
          r->p++;
          skip_space (r);
          if (r->p < r->end && *r->p == ']')
            return fail (r, r->p, JSON_PARSER_ERROR_TRAILING_COMMA, "a ',' before ']'");
          continue;
        }
      if (r->p < r->end && *r->p == ']')
        {
          r->p++;
          return TRUE;
        }
      return fail_unexpected (r, r->p, "',' or ']' in an array");
    }
}

static gboolean
array_element (Reader   *r,
               gpointer  user_data)
{
  JsonNode *element = read_value (r);

  if (element == NULL)
    return FALSE;
  json_array_add_element (user_data, element);
  return TRUE;
}

static JsonNode *
read_array (Reader *r)
{
  JsonArray *array = json_array_new ();
  JsonNode *node;

  if (!walk_array (r, array_element, array))
    {
      json_array_unref (array);
      return NULL;
    }
  node = json_node_alloc ();
  json_node_init_array (node, array);
  json_array_unref (array);
  return node;
}

static gboolean
enter (Reader *r)
{
  if (++r->depth > r->max_depth)
    return fail (r, r->p, JSON_PARSER_ERROR_PARSE, "JSON nested deeper than %u levels", r->max_depth);
  return TRUE;
}

static gboolean read_any (Reader *r, JsonNode **out);

static gboolean
skip_element (Reader   *r,
              gpointer  user_data)
{
  return read_any (r, NULL);
}

static gboolean
skip_member (Reader     *r,
             const char *name,
             gpointer    user_data)
{
  return read_any (r, NULL);
}

/* Reads the next value into *out, or when out is NULL only checks it (and
 * allocates nothing unless a string is longer than STACK_TEXT). */
static gboolean
read_any (Reader    *r,
          JsonNode **out)
{
  gboolean ok;

  skip_space (r);
  if (r->p >= r->end)
    return fail_unexpected (r, r->p, "a JSON value");

  switch (*r->p)
    {
    case '{':
      {
        Text name;

        if (!enter (r))
          return FALSE;
        text_init (&name);
        ok = out != NULL ? (*out = read_object (r, &name)) != NULL
                         : walk_object (r, &name, skip_member, NULL);
        text_clear (&name);
        r->depth--;
        return ok;
      }

    case '[':
      if (!enter (r))
        return FALSE;
      ok = out != NULL ? (*out = read_array (r)) != NULL : walk_array (r, skip_element, NULL);
      r->depth--;
      return ok;

    case '"':
      {
        Text text;

        if (out == NULL)
          return read_string (r, NULL);
        text_init (&text);
        ok = read_string (r, &text);
        if (ok)
          *out = json_node_init_string (json_node_alloc (), text.str);
        text_clear (&text);
        return ok;
      }

    case 't':
      if (!read_word (r, "true", 4))
        return FALSE;
      if (out != NULL)
        *out = json_node_init_boolean (json_node_alloc (), TRUE);
      return TRUE;

    case 'f':
      if (!read_word (r, "false", 5))
        return FALSE;
      if (out != NULL)
        *out = json_node_init_boolean (json_node_alloc (), FALSE);
      return TRUE;

    case 'n':
      if (!read_word (r, "null", 4))
        return FALSE;
      if (out != NULL)
        *out = json_node_init_null (json_node_alloc ());
      return TRUE;

    case '-':
    case '0': case '1': case '2': case '3': case '4':
    case '5': case '6': case '7': case '8': case '9':
      if (out != NULL)
        return (*out = read_number (r)) != NULL;
      {
        gboolean is_double;
        const char *end = scan_number (r, &is_double);

        if (end == NULL)
          return FALSE;
        r->p = end;
        return TRUE;
      }

    default:
      if (g_ascii_isalpha (*r->p) || *r->p == '_')
        return fail (r, r->p, JSON_PARSER_ERROR_INVALID_BAREWORD,
                     "a word that is not a JSON value (true, false and null are)");
      return fail_unexpected (r, r->p, "a JSON value");
    }
}

static JsonNode *
read_value (Reader *r)
{
  JsonNode *node = NULL;

  return read_any (r, &node) ? node : NULL;
}

/* Where a text starts once a UTF-8 byte order mark is skipped. */
static void
reader_init (Reader      *r,
             const char  *data,
             gsize        length,
             guint        max_depth,
             GError     **error)
{
  r->start = r->p = data;
  r->end = data + length;
  r->depth = 0;
  r->max_depth = max_depth > 0 ? max_depth : RIV_JSON_MAX_DEPTH;
  r->error = error;
  if (length >= 3 && memcmp (data, "\xef\xbb\xbf", 3) == 0)
    r->start = r->p = data + 3;
}

JsonNode *
riv_json_reader_read (RivJsonReader *reader)
{
  return read_value (reader);
}

gboolean
riv_json_reader_skip (RivJsonReader *reader)
{
  return read_any (reader, NULL);
}

const char *
riv_json_string_append (const char *text,
                        const char *end,
                        GString    *out)
{
  Reader r;
  Text t;
  const char *after = NULL;

  reader_init (&r, text, end - text, 0, NULL);
  r.start = r.p = text;   /* a string, not a text that may start with a byte order mark */
  if (r.p >= r.end || *r.p != '"')
    return NULL;
  text_init (&t);
  if (read_string (&r, &t))
    {
      g_string_append_len (out, t.str, t.len);
      after = r.p;
    }
  text_clear (&t);
  return after;
}

gboolean
riv_json_reader_skip_span (RivJsonReader  *reader,
                           const char    **start,
                           gsize          *length)
{
  skip_space (reader);
  *start = reader->p;
  if (!read_any (reader, NULL))
    return FALSE;
  *length = reader->p - *start;
  return TRUE;
}

gboolean
riv_json_reader_read_scalar (RivJsonReader *reader,
                             RivJsonScalar *out)
{
  Text text;
  gboolean ok;

  memset (out, 0, sizeof *out);
  skip_space (reader);
  if (reader->p >= reader->end)
    return fail_unexpected (reader, reader->p, "a JSON value");

  switch (*reader->p)
    {
    case '"':
      text_init (&text);
      if ((ok = read_string (reader, &text)))
        {
          out->type = RIV_JSON_SCALAR_STRING;
          out->string = g_strndup (text.str, text.len);
        }
      text_clear (&text);
      return ok;

    case 't':
    case 'f':
      out->type = RIV_JSON_SCALAR_BOOLEAN;
      out->boolean = *reader->p == 't';
      return out->boolean ? read_word (reader, "true", 4) : read_word (reader, "false", 5);

    case 'n':
      out->type = RIV_JSON_SCALAR_NULL;
      return read_word (reader, "null", 4);

    case '-':
    case '0': case '1': case '2': case '3': case '4':
    case '5': case '6': case '7': case '8': case '9':
      {
        gboolean is_int;

        if (!read_number_value (reader, &is_int, &out->integer, &out->number))
          return FALSE;
        out->type = is_int ? RIV_JSON_SCALAR_INT : RIV_JSON_SCALAR_DOUBLE;
        return TRUE;
      }

    default:
      /* An object or an array is not a scalar: read it with _read or _skip. */
      return read_any (reader, NULL) &&
             fail (reader, reader->p, JSON_PARSER_ERROR_INVALID_DATA, "not a JSON scalar");
    }
}

void
riv_json_scalar_clear (RivJsonScalar *scalar)
{
  g_clear_pointer (&scalar->string, g_free);
  scalar->type = RIV_JSON_SCALAR_NONE;
}

char
riv_json_reader_peek (RivJsonReader *reader)
{
  skip_space (reader);
  return reader->p < reader->end ? *reader->p : '\0';
}

gboolean
riv_json_reader_walk (RivJsonReader     *reader,
                      RivJsonMemberFunc  member,
                      gpointer           user_data)
{
  Text name;
  gboolean ok;

  if (riv_json_reader_peek (reader) != '{')
    return fail_unexpected (reader, reader->p, "a JSON object");
  if (!enter (reader))
    return FALSE;
  text_init (&name);
  ok = walk_object (reader, &name, member, user_data);
  text_clear (&name);
  reader->depth--;
  return ok;
}

gboolean
riv_json_walk_object (const char        *data,
                      gssize             length,
                      guint              max_depth,
                      RivJsonMemberFunc  member,
                      gpointer           user_data,
                      GError           **error)
{
  g_autoptr(GError) local = NULL;
  Reader r;

  g_return_val_if_fail (data != NULL || length <= 0, FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

  reader_init (&r, data, length < 0 ? strlen (data) : (gsize) length, max_depth, &local);
  if (!riv_json_reader_walk (&r, member, user_data))
    {
      g_propagate_error (error, g_steal_pointer (&local));
      return FALSE;
    }
  skip_space (&r);
  if (r.p != r.end)
    {
      fail (&r, r.p, JSON_PARSER_ERROR_PARSE, "JSON text with more than one top-level value");
      g_propagate_error (error, g_steal_pointer (&local));
      return FALSE;
    }
  return TRUE;
}

JsonNode *
riv_json_parse (JsonParser  *parser,
                const char  *data,
                gssize       length,
                guint        max_depth,
                GError     **error)
{
  g_autoptr(GError) local = NULL;
  Reader r;
  JsonNode *root;
  gboolean immutable = TRUE;

  g_return_val_if_fail (data != NULL || length <= 0, NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  if (length < 0)
    length = strlen (data);
  /* Errors are built even when the caller does not want them: a failing
   * read stops at the first one. A leading UTF-8 byte order mark is not
   * part of the text. */
  reader_init (&r, data, length, max_depth, &local);

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
