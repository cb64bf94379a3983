/* riv-json-describe.h
 * Copyright 2026 The Rivulet authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * For tests and fuzz targets that compare JSON trees: a text naming each node's
 * type and value (ints and doubles told apart, doubles exact) and its children
 * in order. Two trees are the same when their texts are.
 */
#pragma once

#include <json-glib/json-glib.h>

char *riv_json_describe (JsonNode *node);
