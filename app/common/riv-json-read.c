/* riv-json-read.c
 * Copyright 2026 The Rivulet authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * A reader for plain JSON (RFC 8259) that builds the same JsonNode tree as
 * json-glib's parser, several times faster: json-glib's tokenizer costs about
 * 40,000 instructions for a 200-byte queue message, which made it the largest
 * part of a load run's client time. It reads only the common case and gives up
 * (returns NULL) on anything else: json-glib's extensions (comments, single
 * quotes, `var x =`), errors, and the corners where matching json-glib exactly
 * would take care (a \u escape of a surrogate or NUL, a repeated member name, a
 * number that is not plainly an int64 or a finite double, text that is not
 * UTF-8, nesting deeper than RIV_JSON_READ_MAX_DEPTH). The caller then lets
 * json-glib decide, so a document means the same either way; the `json` fuzz
 * target checks that on every input.
 */
#include "config.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "riv-json-read.h"

/* Strings and member names up to this size are built on the stack. */
#define STACK_TEXT 256

typedef struct
{
  const char *p;
  const char *end;
  guint depth;
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

/* Reads a string whose opening quote r->p is at into out (NUL-terminated,
 * valid UTF-8, no NUL inside). FALSE: not the common case. */
static gboolean
read_string (Reader *r,
             Text   *out)
{
  const char *p = r->p + 1;
  gboolean ascii = TRUE;

  out->len = 0;
  out->str[0] = '\0';
  for (;;)
    {
      const char *run = p;

      while (p < r->end && *p != '"' && *p != '\\' && (guchar) *p >= 0x20)
        {
          ascii &= (guchar) *p < 0x80;
          p++;
        }
      text_append (out, run, p - run);
      if (p >= r->end || (guchar) *p < 0x20)
        return FALSE;
      if (*p == '"')
        break;

      /* An escape. */
      if (r->end - p < 2)
        return FALSE;
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
          {
            gunichar c = 0;

            if (r->end - p < 6)
              return FALSE;
            for (int i = 2; i < 6; i++)
              {
                int d = hex_digit (p[i]);

                if (d < 0)
                  return FALSE;
                c = (c << 4) | (gunichar) d;
              }
            /* NUL and surrogates are json-glib's to judge. */
            if (c == 0 || (c >= 0xd800 && c <= 0xdfff))
              return FALSE;
            text_append_unichar (out, c);
            p += 4;
            break;
          }
        default:
          return FALSE;
        }
      p += 2;
    }

  if (!ascii && !g_utf8_validate_len (out->str, out->len, NULL))
    return FALSE;
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
    return NULL;
  /* JSON has no leading zeros (json-glib reads 012 its own way). */
  if (*p == '0' && p + 1 < r->end && g_ascii_isdigit (p[1]))
    return NULL;
  while (p < r->end && g_ascii_isdigit (*p))
    p++;
  if (p < r->end && *p == '.')
    {
      is_double = TRUE;
      if (++p >= r->end || !g_ascii_isdigit (*p))
        return NULL;
      while (p < r->end && g_ascii_isdigit (*p))
        p++;
    }
  if (p < r->end && (*p == 'e' || *p == 'E'))
    {
      is_double = TRUE;
      if (++p < r->end && (*p == '+' || *p == '-'))
        p++;
      if (p >= r->end || !g_ascii_isdigit (*p))
        return NULL;
      while (p < r->end && g_ascii_isdigit (*p))
        p++;
    }
  /* A number runs into the next token only through a delimiter. */
  if (p < r->end && (g_ascii_isalnum (*p) || *p == '.' || *p == '_' || *p == '+' || *p == '-'))
    return NULL;

  if (!is_double)
    {
      gint64 value = 0;
      gsize digits = p - start - (*start == '-');

      /* 18 digits always fit; longer ones are json-glib's to judge. */
      if (digits > 18)
        return NULL;
      for (const char *q = start + (*start == '-'); q < p; q++)
        value = value * 10 + (*q - '0');
      node = json_node_alloc ();
      json_node_init_int (node, *start == '-' ? -value : value);
    }
  else
    {
      char buf[64];
      double value;

      if ((gsize) (p - start) >= sizeof buf)
        return NULL;
      memcpy (buf, start, p - start);
      buf[p - start] = '\0';
      errno = 0;
      value = g_ascii_strtod (buf, NULL);
      /* Overflow and underflow are json-glib's to judge. */
      if (errno != 0 || !isfinite (value))
        return NULL;
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
  if ((gsize) (r->end - r->p) < len || memcmp (r->p, word, len) != 0)
    return FALSE;
  if (r->p + len < r->end && (g_ascii_isalnum (r->p[len]) || r->p[len] == '_'))
    return FALSE;
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

      if (r->p >= r->end || *r->p != '"' || !read_string (r, name) ||
          json_object_has_member (object, name->str))
        goto fail;
      skip_space (r);
      if (r->p >= r->end || *r->p != ':')
        goto fail;
      r->p++;
      if ((member = read_value (r)) == NULL)
        goto fail;
      json_object_set_member (object, name->str, member);
      skip_space (r);
      if (r->p < r->end && *r->p == ',')
        {
          r->p++;
          skip_space (r);
          continue;
        }
      if (r->p < r->end && *r->p == '}')
        {
          r->p++;
          break;
        }
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
          continue;
        }
      if (r->p < r->end && *r->p == ']')
        {
          r->p++;
          break;
        }
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

static JsonNode *
read_value (Reader *r)
{
  JsonNode *node = NULL;

  skip_space (r);
  if (r->p >= r->end)
    return NULL;

  switch (*r->p)
    {
    case '{':
      {
        Text name;

        if (++r->depth > RIV_JSON_READ_MAX_DEPTH)
          return NULL;
        text_init (&name);
        node = read_object (r, &name);
        text_clear (&name);
        r->depth--;
        return node;
      }

    case '[':
      if (++r->depth > RIV_JSON_READ_MAX_DEPTH)
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
      if (!read_word (r, "true", 4))
        return NULL;
      return json_node_init_boolean (json_node_alloc (), TRUE);

    case 'f':
      if (!read_word (r, "false", 5))
        return NULL;
      return json_node_init_boolean (json_node_alloc (), FALSE);

    case 'n':
      if (!read_word (r, "null", 4))
        return NULL;
      return json_node_init_null (json_node_alloc ());

    default:
      return read_number (r);
    }
}

JsonNode *
riv_json_read (const char *data,
               gsize       length)
{
  Reader r = { data, data + length, 0 };
  JsonNode *root;

  g_return_val_if_fail (data != NULL || length == 0, NULL);

  if ((root = read_value (&r)) == NULL)
    return NULL;
  skip_space (&r);
  if (r.p != r.end)
    {
      json_node_unref (root);
      return NULL;
    }
  return root;
}
