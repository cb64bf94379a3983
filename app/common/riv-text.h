/* riv-text.h
 * Copyright 2026 The Rivulet authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Text from outside (a server's messages, titles and versions, URLs a user
 * or a server gave) made safe to show: no terminal control, no password.
 */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* text with the password of every URL in it ("scheme://user:password@host")
 * replaced by "***"; the rest as it is. */
char     *riv_text_redact_urls       (const char  *text);
/* text for a terminal: every control character (C0 including newline and
 * tab, DEL, and C1) and every byte that is not UTF-8 written as \xNN or
 * \u00NN, so that no escape sequence reaches the terminal; and the
 * passwords of its URLs redacted (riv_text_redact_urls ()). NULL gives "". */
char     *riv_text_for_terminal      (const char  *text);
/* A token file's token: the first line of contents (length bytes), without
 * its end and surrounding blanks; NULL when that is empty or not UTF-8. */
char     *riv_text_token_line        (const char  *contents,
                                      gsize        length);

G_END_DECLS
