/* riv-markup.h
 * Copyright 2026 The Rivulet authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Simple markdown and HTML as Pango markup for the output cards (no web
 * view): headings, lists, bold, italics, inline code, links as text. The
 * result always parses as Pango markup (unclosed spans are closed at the
 * end, as while a reply is still streaming).
 */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

char *riv_markup_from_markdown (const char *markdown);
char *riv_markup_from_html     (const char *html);

G_END_DECLS
