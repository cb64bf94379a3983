/* riv-json-read.h
 * Copyright 2026 The Rivulet authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <json-glib/json-glib.h>

G_BEGIN_DECLS

/* Deeper nesting is left to json-glib. */
#define RIV_JSON_READ_MAX_DEPTH 256

/* The tree json-glib's parser would build from plain JSON text (one value,
 * whitespace around it), unsealed; NULL when the text is anything else (an
 * error, a json-glib extension or a corner it leaves to json-glib; see
 * riv-json-read.c), in which case the caller asks json-glib. */
JsonNode *riv_json_read (const char *data,
                         gsize       length);

G_END_DECLS
