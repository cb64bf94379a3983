/* riv-util.c
 * Copyright 2026 The Rivulet authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "config.h"

#include <errno.h>
#include <math.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#if defined(__SSE2__)
# include <emmintrin.h>
# define HAVE_PRESCAN_SSE2 1
#endif

#include "riv-json-read.h"
#include "riv-util.h"

gboolean
riv_set_str (char       **str_pointer,
             const char  *new_str)
{
  char *copy;

  g_return_val_if_fail (str_pointer != NULL, FALSE);

  if (*str_pointer == new_str || g_strcmp0 (*str_pointer, new_str) == 0)
    return FALSE;

  copy = g_strdup (new_str);
  g_free (*str_pointer);
  *str_pointer = copy;

  return TRUE;
}

/* glibc's malloc tunable (2.35 and later; older ones ignore it) that backs the
 * heap with transparent huge pages where the kernel allows them (madvise). */
#define HUGE_PAGES_TUNABLE "glibc.malloc.hugetlb=1"

void
riv_prefer_system_malloc (char     **argv,
                          gboolean   huge_pages)
{
  const char *tunables = g_getenv ("GLIBC_TUNABLES");
  gboolean want_slice = glib_check_version (2, 76, 0) != NULL && g_getenv ("G_SLICE") == NULL;
  const char *preload = g_getenv ("LD_PRELOAD");
  /* A hugetlb setting already there is the user's, or ours after the
   * re-execution. Under valgrind (its preload library) malloc is valgrind's,
   * and valgrind refuses to follow the re-execution. */
  gboolean want_huge = huge_pages &&
                       (tunables == NULL || strstr (tunables, "glibc.malloc.hugetlb") == NULL) &&
                       (preload == NULL || strstr (preload, "vgpreload") == NULL);

  /* Only getenv/setenv/execv: GLib's slice allocator is already running
   * (its constructors allocate), so it cannot be reconfigured in place, and
   * glibc reads its tunables once, at start. */
  if (!(want_slice || want_huge) || argv == NULL || argv[0] == NULL)
    return;

  if (want_slice)
    g_setenv ("G_SLICE", "always-malloc", TRUE);
  if (want_huge)
    {
      g_autofree char *value = tunables != NULL && *tunables != '\0'
        ? g_strconcat (tunables, ":", HUGE_PAGES_TUNABLE, NULL)
        : g_strdup (HUGE_PAGES_TUNABLE);

      g_setenv ("GLIBC_TUNABLES", value, TRUE);
    }
  execv ("/proc/self/exe", argv);
}

double
riv_now (void)
{
  return g_get_monotonic_time () / (double) G_USEC_PER_SEC;
}

char *
riv_json_to_string (JsonNode *node,
                    gsize    *length)
{
  g_autoptr(JsonGenerator) gen = json_generator_new ();

  json_generator_set_root (gen, node);
  return json_generator_to_data (gen, length);
}

/* A cheap scan before json-glib sees the data. It bounds nesting (json-glib
 * recurses per level), and it rejects a second top-level value: json-glib 1.6
 * accepts "{}{}", "[] []" or "1 {}", keeps the last value and leaks the
 * others, so a hostile server could both swap a frame's meaning and grow our
 * memory. Strings (double- and single-quoted) and comments (from one '/' to
 * the next), which json-glib 1.6 all accepts, are skipped, so brackets inside
 * them count for nothing. */
static int
hex4 (const char *p)
{
  int value = 0;

  for (int k = 0; k < 4; k++)
    {
      int d = g_ascii_xdigit_value (p[k]);

      if (d < 0)
        return -1;
      value = value * 16 + d;
    }
  return value;
}

/* At data[*i] == '\\' followed by 'u'. json-glib 1.6 turns a lone UTF-16
 * surrogate into bytes that are not UTF-8 (and swallows the next character),
 * so such text is refused here; a valid pair is stepped over whole. On return
 * *i is two characters before the end of the escape: the caller's two
 * increments land just after it. */
static gboolean
check_unicode_escape (const char  *data,
                      gsize        length,
                      gsize       *i,
                      GError     **error)
{
  gsize at = *i;
  int unit;

  /* A \u not followed by four hex digits is invalid JSON; json-glib 1.6
   * leaks memory on some of these, so it never sees them. */
  if (at + 6 > length || (unit = hex4 (data + at + 2)) < 0)
    {
      g_set_error_literal (error, JSON_PARSER_ERROR, JSON_PARSER_ERROR_INVALID_DATA,
                           "JSON string with an invalid \\u escape");
      return FALSE;
    }

  if (unit >= 0xdc00 && unit <= 0xdfff)
    goto lone;
  if (unit >= 0xd800 && unit <= 0xdbff)
    {
      int low;

      if (at + 12 > length || data[at + 6] != '\\' || data[at + 7] != 'u' ||
          (low = hex4 (data + at + 8)) < 0xdc00 || low > 0xdfff)
        goto lone;
      *i = at + 10;   /* the caller's two increments step past the pair */
      return TRUE;
    }

  *i = at + 4;
  return TRUE;

lone:
  g_set_error_literal (error, JSON_PARSER_ERROR, JSON_PARSER_ERROR_INVALID_DATA,
                       "JSON string with an unpaired UTF-16 surrogate escape");
  return FALSE;
}

/* json-glib 1.6 takes escapes JSON does not have: "\101" is an octal byte,
 * which need not be UTF-8, and "\q" passes through. Only JSON's eight and
 * \u reach it. */
static gboolean
set_escape_error (GError **error,
                  char     c)
{
  if (g_ascii_isprint (c))
    g_set_error (error, JSON_PARSER_ERROR, JSON_PARSER_ERROR_INVALID_DATA,
                 "JSON string with an invalid escape \"\\%c\"", c);
  else
    g_set_error (error, JSON_PARSER_ERROR, JSON_PARSER_ERROR_INVALID_DATA,
                 "JSON string with an invalid escape (backslash, byte 0x%02x)", (guchar) c);
  return FALSE;
}

/* Character classes for prescan(); everything else is C_OTHER. */
enum
{
  C_OTHER,
  C_SPACE,
  C_SLASH,
  C_DQUOTE,
  C_SQUOTE,
  C_OPEN,
  C_CLOSE,
};

static const guint8 prescan_class[256] = {
  [' '] = C_SPACE, ['\t'] = C_SPACE, ['\n'] = C_SPACE, ['\r'] = C_SPACE,
  ['/'] = C_SLASH, ['"'] = C_DQUOTE, ['\''] = C_SQUOTE,
  ['['] = C_OPEN, ['{'] = C_OPEN, [']'] = C_CLOSE, ['}'] = C_CLOSE,
};

/* The first '"' or '\\' at or after i, or length. Eight bytes at a time: a
 * byte equal to c is a zero byte of x ^ (c repeated), and (v - 0x01…) & ~v &
 * 0x80… marks the first zero byte of v exactly (bits above it may be false
 * marks, which the lowest-bit pick never sees). */
static inline gsize
string_stop (const char *data,
             gsize       i,
             gsize       length)
{
#if G_BYTE_ORDER == G_LITTLE_ENDIAN
  const guint64 ones = G_GUINT64_CONSTANT (0x0101010101010101);
  const guint64 highs = G_GUINT64_CONSTANT (0x8080808080808080);

  while (i + 8 <= length)
    {
      guint64 x, q, b, hits;

      memcpy (&x, data + i, 8);
      q = x ^ (ones * '"');
      b = x ^ (ones * '\\');
      hits = (((q - ones) & ~q) | ((b - ones) & ~b)) & highs;
      if (hits != 0)
        {
          guint k = 0;

          while ((hits & 0xff) == 0)
            {
              hits >>= 8;
              k++;
            }
          return i + k;
        }
      i += 8;
    }
#endif
  while (i < length && data[i] != '"' && data[i] != '\\')
    i++;
  return i;
}

static gboolean
set_second_value_error (GError **error)
{
  g_set_error_literal (error, JSON_PARSER_ERROR, JSON_PARSER_ERROR_PARSE,
                       "JSON text with more than one top-level value");
  return FALSE;
}

static gboolean
set_depth_error (GError **error,
                 guint    max_depth)
{
  g_set_error (error, JSON_PARSER_ERROR, JSON_PARSER_ERROR_PARSE,
               "JSON nested deeper than %u levels", max_depth);
  return FALSE;
}

/* Every check, one byte at a time, from data[start] on. */
static gboolean
prescan_scalar (const char  *data,
                gsize        length,
                gsize        start,
                guint        max_depth,
                GError     **error)
{
  guint depth = 0;
  gboolean seen_value = FALSE;
  gsize i = start;

  for (; i < length; i++)
    {
      guint8 k = prescan_class[(guchar) data[i]];
      const char *end;

      /* Inside a value, only strings, comments and brackets matter. */
      if (k == C_SPACE || (k == C_OTHER && depth > 0))
        continue;

      if (k == C_SLASH)
        {
          /* json-glib's comments run from one '/' to the next. */
          end = memchr (data + i + 1, '/', length - i - 1);
          if (end == NULL)
            return TRUE;   /* json-glib reports the unterminated comment */
          i = end - data;
          continue;
        }

      if (depth == 0)
        {
          if (seen_value && k == C_OPEN)
            return set_second_value_error (error);
          seen_value = TRUE;
        }

      switch (k)
        {
        case C_DQUOTE:
          /* On return i is at the closing quote (or at length). */
          for (i = string_stop (data, i + 1, length); i < length && data[i] == '\\';
               i = string_stop (data, i + 2, length))
            {
              if (i + 1 >= length)
                break;   /* json-glib reports the unterminated string */
              if (data[i + 1] == 'u')
                {
                  if (!check_unicode_escape (data, length, &i, error))
                    return FALSE;
                }
              else if (strchr ("\"\\/bfnrt", data[i + 1]) == NULL || data[i + 1] == '\0')
                return set_escape_error (error, data[i + 1]);
            }
          break;

        case C_SQUOTE:
          end = memchr (data + i + 1, '\'', length - i - 1);
          if (end == NULL)
            return TRUE;
          i = end - data;
          break;

        case C_OPEN:
          if (++depth > max_depth && max_depth > 0)
            return set_depth_error (error, max_depth);
          break;

        case C_CLOSE:
          if (depth > 0)
            depth--;
          break;

        default:
          break;
        }
    }

  return TRUE;
}

#ifdef HAVE_PRESCAN_SSE2
static inline guint
lowest_bit (guint mask)
{
#if defined(__GNUC__)
  return __builtin_ctz (mask);
#else
  return g_bit_nth_lsf (mask, -1);
#endif
}

/* Bit i set when byte i of the 32 bytes lo, hi is c. */
static inline guint32
mask32 (__m128i lo,
        __m128i hi,
        char    c)
{
  __m128i needle = _mm_set1_epi8 (c);

  return (guint32) _mm_movemask_epi8 (_mm_cmpeq_epi8 (lo, needle)) |
         (guint32) _mm_movemask_epi8 (_mm_cmpeq_epi8 (hi, needle)) << 16;
}

/* The common case 32 bytes at a time: text with no backslash at all (so no
 * escapes to check), and no single quote or '/' outside double-quoted strings
 * (none of json-glib's extensions). Strings are then plain "…" pairs, and only
 * the brackets outside them matter; an open bracket at depth 0 that is not
 * the first thing in the text starts a second value. Returns 1 (fine), 0
 * (refused, error set) or -1: not the common case, for prescan_scalar(). */
static int
prescan_sse2 (const char  *data,
              gsize        length,
              gsize        start,
              guint        max_depth,
              GError     **error)
{
  const __m128i case_bit = _mm_set1_epi8 (0x20);   /* '[' | 0x20 == '{', ']' | 0x20 == '}' */
  gsize first = start;
  guint depth = 0;
  guint32 carry = 0;   /* all ones while a string is open across blocks */

  while (first < length && prescan_class[(guchar) data[first]] == C_SPACE)
    first++;

  for (gsize base = start; base < length; base += 32)
    {
      char tail[32];
      const char *block = data + base;
      guint32 inside;
      guint32 opens;
      guint32 events;
      __m128i v0, v1;

      if (length - base < 32)
        {
          memset (tail, ' ', sizeof tail);
          memcpy (tail, block, length - base);
          block = tail;
        }
      v0 = _mm_loadu_si128 ((const __m128i *) block);
      v1 = _mm_loadu_si128 ((const __m128i *) (block + 16));

      /* Bit i: byte i is in a string (its opening quote included, its
       * closing one not): the running parity of the quotes. */
      inside = mask32 (v0, v1, '"');
      inside ^= inside << 1;
      inside ^= inside << 2;
      inside ^= inside << 4;
      inside ^= inside << 8;
      inside ^= inside << 16;
      inside ^= carry;
      carry = (inside & 0x80000000u) != 0 ? 0xffffffffu : 0;

      if (mask32 (v0, v1, '\\') != 0 ||
          ((mask32 (v0, v1, '\'') | mask32 (v0, v1, '/')) & ~inside) != 0)
        return -1;

      v0 = _mm_or_si128 (v0, case_bit);
      v1 = _mm_or_si128 (v1, case_bit);
      opens = mask32 (v0, v1, '{');
      events = (opens | mask32 (v0, v1, '}')) & ~inside;

      while (events != 0)
        {
          guint bit = lowest_bit (events);

          events &= events - 1;
          if ((opens & (1u << bit)) != 0)
            {
              if (depth == 0 && base + bit != first)
                return set_second_value_error (error);
              if (++depth > max_depth && max_depth > 0)
                return set_depth_error (error, max_depth);
            }
          else if (depth > 0)
            depth--;
        }
    }

  return 1;
}
#endif

static gboolean
prescan (const char  *data,
         gsize        length,
         guint        max_depth,
         GError     **error)
{
  gsize start = 0;

  /* json-glib skips a leading UTF-8 BOM. */
  if (length >= 3 && memcmp (data, "\xef\xbb\xbf", 3) == 0)
    start = 3;

#ifdef HAVE_PRESCAN_SSE2
  {
    int verdict = prescan_sse2 (data, length, start, max_depth, error);

    if (verdict >= 0)
      return verdict;
  }
#endif
  return prescan_scalar (data, length, start, max_depth, error);
}

guint
riv_int64_hash (gconstpointer v)
{
  guint64 x = *(const guint64 *) v;

  /* The finalizer of MurmurHash3: every input bit moves every output bit. */
  x ^= x >> 33;
  x *= G_GUINT64_CONSTANT (0xff51afd7ed558ccd);
  x ^= x >> 33;
  x *= G_GUINT64_CONSTANT (0xc4ceb9fe1a85ec53);
  x ^= x >> 33;
  return (guint) x;
}

JsonNode *
riv_json_parse (JsonParser  *parser,
                const char  *data,
                gssize       length,
                guint        max_depth,
                GError     **error)
{
  g_autoptr(JsonParser) own = NULL;
  JsonNode *root;

  if (length < 0)
    length = strlen (data);

  if (!prescan (data, length, max_depth, error))
    return NULL;

  /* Plain JSON without json-glib's tokenizer, the same tree. */
  if ((root = riv_json_read (data, length)) != NULL)
    {
      gboolean immutable = TRUE;

      if (parser != NULL)
        g_object_get (parser, "immutable", &immutable, NULL);
      if (immutable)
        json_node_seal (root);
      return root;
    }

  if (parser == NULL)
    parser = own = json_parser_new_immutable ();

  if (!json_parser_load_from_data (parser, data, length, error))
    return NULL;

  root = json_parser_get_root (parser);
  if (root == NULL)
    {
      g_set_error_literal (error, JSON_PARSER_ERROR, JSON_PARSER_ERROR_PARSE, "empty JSON document");
      return NULL;
    }

  return json_node_ref (root);
}

const char *
riv_json_get_string (JsonObject *object,
                     const char *member)
{
  JsonNode *node;

  if (object == NULL || !(node = json_object_get_member (object, member)))
    return NULL;
  if (JSON_NODE_HOLDS_VALUE (node) && json_node_get_value_type (node) == G_TYPE_STRING)
    return json_node_get_string (node);
  return NULL;
}

gboolean
riv_json_get_double (JsonObject *object,
                     const char *member,
                     double     *out)
{
  JsonNode *node;
  GType type;

  if (object == NULL || !(node = json_object_get_member (object, member)) ||
      !JSON_NODE_HOLDS_VALUE (node))
    return FALSE;

  type = json_node_get_value_type (node);
  if (type == G_TYPE_DOUBLE)
    *out = json_node_get_double (node);
  else if (type == G_TYPE_INT64)
    *out = (double) json_node_get_int (node);
  else
    return FALSE;
  return TRUE;
}

gboolean
riv_json_get_int (JsonObject *object,
                  const char *member,
                  gint64     *out)
{
  JsonNode *node;
  GType type;

  if (object == NULL || !(node = json_object_get_member (object, member)) ||
      !JSON_NODE_HOLDS_VALUE (node))
    return FALSE;

  type = json_node_get_value_type (node);
  if (type == G_TYPE_INT64)
    *out = json_node_get_int (node);
  else if (type == G_TYPE_DOUBLE)
    {
      double d = json_node_get_double (node);

      /* Converting an out-of-range double to an integer is undefined. */
      if (!(d >= -9.2e18 && d <= 9.2e18))
        return FALSE;
      *out = (gint64) d;
    }
  else
    return FALSE;
  return TRUE;
}

gboolean
riv_json_get_bool (JsonObject *object,
                   const char *member,
                   gboolean    default_value)
{
  JsonNode *node;

  if (object == NULL || !(node = json_object_get_member (object, member)) ||
      !JSON_NODE_HOLDS_VALUE (node) || json_node_get_value_type (node) != G_TYPE_BOOLEAN)
    return default_value;
  return json_node_get_boolean (node);
}

#define RIV_PLACEHOLDER "{i}"
#define RIV_USER_PLACEHOLDER "{u}"

gboolean
riv_json_has_placeholder (JsonNode *node)
{
  if (node == NULL)
    return FALSE;

  switch (json_node_get_node_type (node))
    {
    case JSON_NODE_VALUE:
      return json_node_get_value_type (node) == G_TYPE_STRING &&
             strstr (json_node_get_string (node), RIV_PLACEHOLDER) != NULL;

    case JSON_NODE_ARRAY:
      {
        JsonArray *array = json_node_get_array (node);

        for (guint i = 0; i < json_array_get_length (array); i++)
          if (riv_json_has_placeholder (json_array_get_element (array, i)))
            return TRUE;
        return FALSE;
      }

    case JSON_NODE_OBJECT:
      {
        JsonObjectIter iter;
        JsonNode *value;

        json_object_iter_init (&iter, json_node_get_object (node));
        while (json_object_iter_next (&iter, NULL, &value))
          if (riv_json_has_placeholder (value))
            return TRUE;
        return FALSE;
      }

    case JSON_NODE_NULL:
    default:
      return FALSE;
    }
}

/* user_text NULL leaves "{u}" alone. */
static JsonNode *
substitute (JsonNode   *node,
            const char *index_text,
            const char *user_text)
{
  switch (json_node_get_node_type (node))
    {
    case JSON_NODE_VALUE:
      if (json_node_get_value_type (node) == G_TYPE_STRING &&
          (strstr (json_node_get_string (node), RIV_PLACEHOLDER) != NULL ||
           (user_text != NULL && strstr (json_node_get_string (node), RIV_USER_PLACEHOLDER) != NULL)))
        {
          g_autoptr(GString) text = g_string_new (json_node_get_string (node));

          g_string_replace (text, RIV_PLACEHOLDER, index_text, 0);
          if (user_text != NULL)
            g_string_replace (text, RIV_USER_PLACEHOLDER, user_text, 0);
          return json_node_init_string (json_node_alloc (), text->str);
        }
      return json_node_copy (node);

    case JSON_NODE_ARRAY:
      {
        JsonArray *array = json_node_get_array (node);
        g_autoptr(JsonArray) copy = json_array_sized_new (json_array_get_length (array));

        for (guint i = 0; i < json_array_get_length (array); i++)
          json_array_add_element (copy, substitute (json_array_get_element (array, i),
                                                    index_text, user_text));
        return json_node_init_array (json_node_alloc (), copy);
      }

    case JSON_NODE_OBJECT:
      {
        g_autoptr(JsonObject) copy = json_object_new ();
        JsonObjectIter iter;
        const char *member;
        JsonNode *value;

        json_object_iter_init (&iter, json_node_get_object (node));
        while (json_object_iter_next (&iter, &member, &value))
          json_object_set_member (copy, member, substitute (value, index_text, user_text));
        return json_node_init_object (json_node_alloc (), copy);
      }

    case JSON_NODE_NULL:
    default:
      return json_node_copy (node);
    }
}

JsonNode *
riv_json_substitute_index (JsonNode *node,
                           guint64   index)
{
  char index_text[24];

  g_return_val_if_fail (node != NULL, NULL);

  g_snprintf (index_text, sizeof index_text, "%" G_GUINT64_FORMAT, index);
  return substitute (node, index_text, NULL);
}

JsonNode *
riv_json_substitute_index_user (JsonNode *node,
                                guint64   index,
                                guint     user)
{
  char index_text[24];
  char user_text[16];

  g_return_val_if_fail (node != NULL, NULL);

  g_snprintf (index_text, sizeof index_text, "%" G_GUINT64_FORMAT, index);
  g_snprintf (user_text, sizeof user_text, "%u", user);
  return substitute (node, index_text, user_text);
}

GSocket *
riv_listen_socket (GSocketAddress  *address,
                   int              backlog,
                   guint           *port,
                   GError         **error)
{
  g_autoptr(GSocket) socket = NULL;
  g_autoptr(GSocketAddress) local = NULL;

  socket = g_socket_new (g_socket_address_get_family (address), G_SOCKET_TYPE_STREAM,
                         G_SOCKET_PROTOCOL_DEFAULT, error);
  if (socket == NULL)
    return NULL;
  if (backlog > 0)
    g_socket_set_listen_backlog (socket, backlog);
  if (!g_socket_bind (socket, address, TRUE, error) || !g_socket_listen (socket, error))
    return NULL;
  local = g_socket_get_local_address (socket, error);
  if (local == NULL)
    return NULL;
  *port = g_inet_socket_address_get_port (G_INET_SOCKET_ADDRESS (local));
  return g_steal_pointer (&socket);
}

void
riv_raise_fd_limit (void)
{
  struct rlimit limit;

  if (getrlimit (RLIMIT_NOFILE, &limit) == 0 && limit.rlim_cur < limit.rlim_max)
    {
      limit.rlim_cur = limit.rlim_max;
      if (setrlimit (RLIMIT_NOFILE, &limit) != 0)
        g_debug ("Could not raise the open-file limit: %s", g_strerror (errno));
    }
}

double
riv_nice_ceiling (double value)
{
  double power, fraction;

  if (!(value > 0))
    return 1;
  power = pow (10, floor (log10 (value)));
  fraction = value / power;
  if (fraction <= 1)
    return power;
  if (fraction <= 2)
    return 2 * power;
  if (fraction <= 5)
    return 5 * power;
  return 10 * power;
}
