/* riv-diff.h
 * Copyright 2026 The Rivulet authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Streaming diffs (protocol.md §4): an edit list [[op, path, value], …] with
 * op in replace / append / add / delete, applied in order, each edit seeing
 * the result of the ones before it. The value is deep-copied: the caller's
 * edit list is never aliased into the result.
 */
#pragma once

#include <json-glib/json-glib.h>

G_BEGIN_DECLS

#define RIV_DIFF_ERROR (riv_diff_error_quark ())
typedef enum
{
  RIV_DIFF_ERROR_INVALID,      /* malformed edit list or edit */
  RIV_DIFF_ERROR_UNKNOWN_OP,
  RIV_DIFF_ERROR_BAD_PATH,     /* path does not exist, wrong type, index out of range */
  RIV_DIFF_ERROR_TYPE,         /* append to a non-string, … */
} RivDiffError;
GQuark riv_diff_error_quark (void);

/* Applies edits to *value (owned; may be NULL meaning JSON null) and replaces
 * *value with the result. On error *value is left unchanged (all or nothing). */
gboolean riv_diff_apply (JsonNode **value,
                         JsonNode  *edits,
                         GError   **error);

/* Builds a one-edit list ["append", [], suffix] or ["replace", [], value]
 * (value is copied). For the server. */
JsonNode *riv_diff_new_append  (const char *suffix);
JsonNode *riv_diff_new_replace (JsonNode   *value);

G_END_DECLS
