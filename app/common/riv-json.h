/* riv-json.h
 * Copyright 2026 The Rivulet authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * JSON from outside read strictly (riv_json_parse, riv-json-read.c), written
 * compactly, read tolerantly member by member, and the {i}/{u} placeholders of
 * bursts and virtual users substituted (riv-json.c).
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

/* Serialises a JSON node as compact one-line JSON. */
char     *riv_json_to_string    (JsonNode    *node,
                                 gsize       *length);

/* Members of an object, tolerant of missing keys and wrong types. */
const char *riv_json_get_string (JsonObject  *object,
                                 const char  *member);
gboolean    riv_json_get_double (JsonObject  *object,
                                 const char  *member,
                                 double      *out);
gboolean    riv_json_get_int    (JsonObject  *object,
                                 const char  *member,
                                 gint64      *out);
gboolean    riv_json_get_bool   (JsonObject  *object,
                                 const char  *member,
                                 gboolean     default_value);

/* Whether any string inside node contains the burst placeholder "{i}". */
gboolean  riv_json_has_placeholder   (JsonNode   *node);
/* A deep copy of node in which "{i}" inside every string becomes index
 * (bursts number their jobs from 1, like the job panel). */
JsonNode *riv_json_substitute_index  (JsonNode   *node,
                                      guint64     index);
/* The same, and "{u}" becomes user (virtual users, rivulet-cli load --users). */
JsonNode *riv_json_substitute_index_user (JsonNode *node,
                                          guint64   index,
                                          guint     user);

G_END_DECLS
