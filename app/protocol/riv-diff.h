/* riv-diff.h
 * Copyright 2026 The Rivulet authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Streaming diffs (protocol.md §4): an edit list [[op, path, value], …] with
 * op in replace / append / add / delete, applied in order, each edit seeing
 * the result of the ones before it. The value is deep-copied: the caller's
 * edit list is never aliased into the result (an immutable, i.e. sealed, value
 * node such as json_parser_new_immutable() produces cannot change, so it is
 * shared instead of copied).
 *
 * Values are never modified in place: the result shares every unchanged
 * subtree with the previous value, so other holders of the previous value see
 * no change. Treat results as read-only. Cost of one edit: the sizes of the
 * containers along its path (shallow copies) plus the new target; an "append"
 * rebuilds the whole string (json-glib strings cannot grow), so a text that
 * streams in n appends costs O(n²) bytes overall through riv_diff_apply().
 * RivDiffValue below makes that O(total length).
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

/* The value of one output slot across a run of edit lists, tuned for streamed
 * text: consecutive "append"s to the same string (at [] or any path) go into a
 * growable buffer, so each costs O(suffix) amortised instead of O(length). The
 * JsonNode is rebuilt only when asked for. Use one per output slot per job. */
typedef struct _RivDiffValue RivDiffValue;

/* initial may be NULL (JSON null); it is shared if immutable, else copied. */
RivDiffValue *riv_diff_value_new         (JsonNode      *initial);
void          riv_diff_value_free        (RivDiffValue  *self);
/* Replaces the whole value (a first yield, a completion). NULL means JSON null. */
void          riv_diff_value_set         (RivDiffValue  *self,
                                          JsonNode      *value);
/* Same semantics and errors as riv_diff_apply(); on error the value is unchanged. */
gboolean      riv_diff_value_apply       (RivDiffValue  *self,
                                          JsonNode      *edits,
                                          GError       **error);
/* Appends suffix to the value when it is a string, as the edit list
 * [["append", [], suffix]] does, without one being built. FALSE, and the
 * value unchanged, when it is not a string: apply that edit list instead for
 * the error it gives. */
gboolean      riv_diff_value_append_root (RivDiffValue  *self,
                                          const char    *suffix);
/* The current value, never NULL (JSON null is a null node). After appends this
 * costs O(length of the streamed string) once, then nothing until the next
 * change; call it when the value is needed (e.g. once per frame), not per edit.
 * The node is shared: treat it as read-only. */
JsonNode     *riv_diff_value_dup_node    (RivDiffValue  *self);
/* When the whole value is a string: its text without building a node
 * (borrowed, valid until the next change), else NULL. */
const char   *riv_diff_value_peek_string (RivDiffValue  *self,
                                          gsize         *length);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (RivDiffValue, riv_diff_value_free)

G_END_DECLS
