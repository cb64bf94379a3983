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

/* Reading an object member by member, without building it: for a reader
 * that wants a few members of a known shape (a queue message) and would
 * otherwise pay for a JsonObject it drops at once. The text is held to the
 * same rules, and its errors say the same, as riv_json_parse's. */
typedef struct _RivJsonReader RivJsonReader;

/* Called with each member's name; it must read the member's value with
 * riv_json_reader_read, _skip or _walk, and returns FALSE to stop (after a
 * reader function failed: the error is set). */
typedef gboolean (*RivJsonMemberFunc) (RivJsonReader *reader,
                                       const char    *name,
                                       gpointer       user_data);

/* data (length bytes, or up to NUL when length < 0) must be one JSON object:
 * member () is called for each of its members in order. FALSE and an error
 * as riv_json_parse's (or member () returned FALSE) otherwise. */
gboolean  riv_json_walk_object  (const char        *data,
                                 gssize             length,
                                 guint              max_depth,
                                 RivJsonMemberFunc  member,
                                 gpointer           user_data,
                                 GError           **error);
/* The next value as a (floating-free, unsealed) node, or NULL on error. */
JsonNode *riv_json_reader_read  (RivJsonReader     *reader);
/* Reads the next value, checked as strictly, and drops it. */
gboolean  riv_json_reader_skip  (RivJsonReader     *reader);
/* The same, and where the value's text is: *start, *length bytes (within the
 * text being read; checked JSON). */
gboolean  riv_json_reader_skip_span (RivJsonReader  *reader,
                                     const char    **start,
                                     gsize          *length);
/* A scalar read straight from the text: the value a leaf node would hold. */
typedef enum
{
  RIV_JSON_SCALAR_NONE,      /* nothing read */
  RIV_JSON_SCALAR_NULL,
  RIV_JSON_SCALAR_BOOLEAN,
  RIV_JSON_SCALAR_INT,
  RIV_JSON_SCALAR_DOUBLE,
  RIV_JSON_SCALAR_STRING,
} RivJsonScalarType;

typedef struct
{
  RivJsonScalarType type;
  gboolean          boolean;
  gint64            integer;
  double            number;
  char             *string;  /* owned */
} RivJsonScalar;

/* The next value, which the caller has seen (riv_json_reader_peek) is not an
 * object or an array, into *out (cleared first; free with
 * riv_json_scalar_clear). Numbers read as in a node: an integer that fits
 * int64, else a double. */
gboolean  riv_json_reader_read_scalar (RivJsonReader *reader,
                                       RivJsonScalar *out);
void      riv_json_scalar_clear       (RivJsonScalar *scalar);
/* The next value's first byte ('{', '[', '"', …), or NUL at the end. */
char      riv_json_reader_peek  (RivJsonReader     *reader);
/* The next value must be an object: member () for each of its members. */
gboolean  riv_json_reader_walk  (RivJsonReader     *reader,
                                 RivJsonMemberFunc  member,
                                 gpointer           user_data);

/* Appends the JSON string that starts (with its quote) at text, before end,
 * unescaped, to out; returns where the string ends (after its closing
 * quote), or NULL when it is not a valid JSON string (out unchanged). */
const char *riv_json_string_append (const char *text,
                                    const char *end,
                                    GString    *out);

/* Serialises a JSON node as compact one-line JSON. */
char     *riv_json_to_string    (JsonNode    *node,
                                 gsize       *length);
/* node as JSON for people to read: as riv_json_to_string(), but each number
 * in the fewest digits that read back as the same double ("0.2", where the
 * generator writes 0.20000000000000001). */
char     *riv_json_to_display   (JsonNode    *node);

/* Members of an object, tolerant of missing keys and wrong types. */
const char *riv_json_get_string (JsonObject  *object,
                                 const char  *member);
gboolean    riv_json_get_double (JsonObject  *object,
                                 const char  *member,
                                 double      *out);
/* A number (integer or not) as a double; FALSE for any other node. */
gboolean    riv_json_node_get_double (JsonNode *node,
                                      double   *out);
gboolean    riv_json_get_int    (JsonObject  *object,
                                 const char  *member,
                                 gint64      *out);
gboolean    riv_json_get_bool   (JsonObject  *object,
                                 const char  *member,
                                 gboolean     default_value);

/* Whether func holds for any value (string, number or boolean) inside node. */
typedef gboolean (*RivJsonValueFunc) (JsonNode *value);
gboolean  riv_json_find_value        (JsonNode         *node,
                                      RivJsonValueFunc  func);
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
