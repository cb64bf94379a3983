/* riv-markup.c
 * Copyright 2026 The Rivulet authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "config.h"

#include <string.h>

#include "riv-markup.h"

typedef enum { SPAN_BOLD, SPAN_ITALIC, SPAN_CODE, N_SPANS } SpanKind;

static const char * const span_open[N_SPANS] = { "<b>", "<i>", "<tt>" };
static const char * const span_close[N_SPANS] = { "</b>", "</i>", "</tt>" };

typedef struct
{
  GString  *out;
  SpanKind  stack[N_SPANS * 4];
  guint     depth;
} Spans;

static gboolean
spans_is_open (Spans    *spans,
               SpanKind  kind)
{
  for (guint i = 0; i < spans->depth; i++)
    if (spans->stack[i] == kind)
      return TRUE;
  return FALSE;
}

/* Opens kind, or closes it (closing and reopening what was opened inside it,
 * so that the markup stays properly nested). */
static void
spans_toggle (Spans    *spans,
              SpanKind  kind)
{
  guint at;

  if (!spans_is_open (spans, kind))
    {
      if (spans->depth < G_N_ELEMENTS (spans->stack))
        {
          spans->stack[spans->depth++] = kind;
          g_string_append (spans->out, span_open[kind]);
        }
      return;
    }

  for (at = spans->depth; at-- > 0;)
    if (spans->stack[at] == kind)
      break;
  for (guint i = spans->depth; i-- > at;)
    g_string_append (spans->out, span_close[spans->stack[i]]);
  for (guint i = at + 1; i < spans->depth; i++)
    {
      spans->stack[i - 1] = spans->stack[i];
      g_string_append (spans->out, span_open[spans->stack[i]]);
    }
  spans->depth--;
}

static void
spans_close_all (Spans *spans)
{
  while (spans->depth > 0)
    g_string_append (spans->out, span_close[spans->stack[--spans->depth]]);
}

static void
append_escaped (GString    *out,
                const char *text,
                gssize      len)
{
  g_autofree char *escaped = g_markup_escape_text (text, len);

  g_string_append (out, escaped);
}

/* Inline markdown of one line: `code`, **bold**, *italic*, _italic_. */
static void
append_inline (Spans      *spans,
               const char *line,
               gsize       len)
{
  const char *p = line;
  const char *end = line + len;
  const char *plain = p;

  while (p < end)
    {
      gboolean in_code = spans_is_open (spans, SPAN_CODE);
      SpanKind kind = N_SPANS;
      gsize skip = 1;

      if (*p == '`')
        kind = SPAN_CODE;
      else if (!in_code && p + 1 < end && (p[0] == '*' || p[0] == '_') && p[1] == p[0])
        kind = SPAN_BOLD, skip = 2;
      else if (!in_code && (*p == '*' || (*p == '_' && (p == line || !g_ascii_isalnum (p[-1])) !=
                                          (p + 1 < end && !g_ascii_isalnum (p[1])))))
        kind = SPAN_ITALIC;

      if (kind == N_SPANS)
        {
          p++;
          continue;
        }
      append_escaped (spans->out, plain, p - plain);
      spans_toggle (spans, kind);
      p += skip;
      plain = p;
    }
  append_escaped (spans->out, plain, end - plain);
}

char *
riv_markup_from_markdown (const char *markdown)
{
  g_auto(GStrv) lines = g_strsplit (markdown != NULL ? markdown : "", "\n", -1);
  Spans spans = { g_string_new (NULL) };
  gboolean in_fence = FALSE;

  for (guint i = 0; lines[i] != NULL; i++)
    {
      const char *line = lines[i];
      guint level = 0;

      if (i > 0)
        g_string_append_c (spans.out, '\n');

      if (g_str_has_prefix (line, "```"))
        {
          in_fence = !in_fence;
          continue;
        }
      if (in_fence)
        {
          g_string_append (spans.out, "<tt>");
          append_escaped (spans.out, line, -1);
          g_string_append (spans.out, "</tt>");
          continue;
        }

      while (line[level] == '#' && level < 6)
        level++;
      if (level > 0 && line[level] == ' ')
        {
          spans_close_all (&spans);
          g_string_append_printf (spans.out, "<span weight=\"bold\" size=\"%s\">",
                                  level == 1 ? "x-large" : level == 2 ? "large" : "medium");
          append_inline (&spans, line + level + 1, strlen (line + level + 1));
          spans_close_all (&spans);
          g_string_append (spans.out, "</span>");
          continue;
        }

      if ((line[0] == '-' || line[0] == '*' || line[0] == '+') && line[1] == ' ')
        {
          g_string_append (spans.out, "  • ");
          line += 2;
        }
      append_inline (&spans, line, strlen (line));
    }
  spans_close_all (&spans);
  return g_string_free (spans.out, FALSE);
}

/* The first pass: tags become the few spans Pango has, each between \x01
 * and \x02 (other tags are dropped); entities decoded for the common five. */
static GString *
mark_tags (const char *html)
{
  static const struct { const char *tag; const char *markup; } map[] = {
    { "b", "<b>" }, { "/b", "</b>" }, { "strong", "<b>" }, { "/strong", "</b>" },
    { "i", "<i>" }, { "/i", "</i>" }, { "em", "<i>" }, { "/em", "</i>" },
    { "code", "<tt>" }, { "/code", "</tt>" }, { "br", "\n" }, { "br/", "\n" },
    { "/p", "\n" }, { "/div", "\n" }, { "/h1", "\n" }, { "/h2", "\n" }, { "/h3", "\n" },
    { "li", "  • " }, { "/li", "\n" },
  };
  static const struct { const char *entity; char c; } entities[] = {
    { "&amp;", '&' }, { "&lt;", '<' }, { "&gt;", '>' }, { "&quot;", '"' },
    { "&#39;", '\'' }, { "&nbsp;", ' ' },
  };
  GString *text = g_string_new (NULL);
  const char *p = html != NULL ? html : "";

  while (*p != '\0')
    {
      const char *close;
      gboolean found = FALSE;

      if (*p == '<' && (close = strchr (p, '>')) != NULL)
        {
          g_autofree char *tag = g_ascii_strdown (p + 1, close - p - 1);
          char *space = strpbrk (tag, " \t\n");

          if (space != NULL)
            *space = '\0';
          for (guint i = 0; i < G_N_ELEMENTS (map); i++)
            if (strcmp (tag, map[i].tag) == 0)
              {
                g_string_append_c (text, '\x01');
                g_string_append (text, map[i].markup);
                g_string_append_c (text, '\x02');
                break;
              }
          p = close + 1;
          continue;
        }
      for (guint i = 0; *p == '&' && i < G_N_ELEMENTS (entities) && !found; i++)
        if (g_str_has_prefix (p, entities[i].entity))
          {
            g_string_append_c (text, entities[i].c);
            p += strlen (entities[i].entity);
            found = TRUE;
          }
      if (!found)
        g_string_append_c (text, *p++);
    }
  return text;
}

char *
riv_markup_from_html (const char *html)
{
  g_autoptr(GString) text = mark_tags (html);
  Spans spans = { g_string_new (NULL) };

  /* The text between the marked spans goes through the markdown-free
   * escaping path; the spans are kept, balanced. */
  for (const char *q = text->str; *q != '\0';)
    {
      const char *start = strchr (q, '\x01');

      if (start == NULL)
        {
          append_escaped (spans.out, q, -1);
          break;
        }
      append_escaped (spans.out, q, start - q);
      {
        const char *stop = strchr (start, '\x02');
        g_autofree char *markup = g_strndup (start + 1, stop - start - 1);
        SpanKind kind = N_SPANS;

        for (guint k = 0; k < N_SPANS; k++)
          if (strcmp (markup, span_open[k]) == 0 || strcmp (markup, span_close[k]) == 0)
            kind = k;
        if (kind == N_SPANS)
          g_string_append (spans.out, markup);
        else if ((markup[1] == '/') == spans_is_open (&spans, kind))
          spans_toggle (&spans, kind);
        q = stop + 1;
      }
    }
  spans_close_all (&spans);
  return g_string_free (spans.out, FALSE);
}
