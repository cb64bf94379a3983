/* riv-json-read.h
 * Copyright 2026 The Rivulet authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <json-glib/json-glib.h>

G_BEGIN_DECLS

/* The nesting limit when the caller asks for none. */
#define RIV_JSON_MAX_DEPTH 1024

/* Reads RFC 8259 JSON (data, length bytes, or up to NUL when length < 0) into
 * the tree json-glib would build, sealed unless parser is a mutable
 * JsonParser (it is only asked that). Anything else is NULL and a
 * JSON_PARSER_ERROR that says what and where ("line L, column C: …"): not
 * JSON, a second top-level value, or nesting deeper than max_depth (0: at most
 * RIV_JSON_MAX_DEPTH). See riv-json-read.c for the corners. */
JsonNode *riv_json_parse (JsonParser  *parser,
                          const char  *data,
                          gssize       length,
                          guint        max_depth,
                          GError     **error);

G_END_DECLS
