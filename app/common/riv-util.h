/* riv-util.h
 * Copyright 2026 The Rivulet authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <glib.h>
#include <json-glib/json-glib.h>

#include "riv-json-read.h"

G_BEGIN_DECLS

/* g_set_str() arrived in GLib 2.76; Debian 12 has 2.74. Returns TRUE when the value changed. */
gboolean  riv_set_str           (char       **str_pointer,
                                 const char  *new_str);

/* Monotonic time in seconds (double), for timestamps and durations. */
double    riv_now               (void);
/* Call first in main(). Re-executes the program once when its allocator should
 * change: with GLib older than 2.76 (whose GSlice keeps freed slices in its own
 * caches, so a server's memory never comes back after a burst) with
 * G_SLICE=always-malloc, which is what newer GLib always does; with huge_pages,
 * with glibc's malloc on transparent huge pages (GLIBC_TUNABLES
 * glibc.malloc.hugetlb=1, unless a hugetlb setting is there already): a load
 * client with 1,000 users spent 20 % less CPU, at the same peak memory. Returns
 * only when there is nothing to do or the re-execution failed. */
void      riv_prefer_system_malloc (char     **argv,
                                    gboolean   huge_pages);

/* A load test holds a descriptor per connection (a server per client, a
 * load generator two per virtual user): raises the open-file soft limit
 * (often 1,024) to the hard one. */
void      riv_raise_fd_limit    (void);

/* A TCP socket bound to address and listening with backlog (0: GSocket's
 * default), and the port it got (soup_server_get_uris() leaks the listener's
 * address in libsoup 3.2): for soup_server_listen_socket(). */
GSocket  *riv_listen_socket     (GSocketAddress  *address,
                                 int              backlog,
                                 guint           *port,
                                 GError         **error);

/* Serialises a JSON node as compact one-line JSON. */
char     *riv_json_to_string    (JsonNode    *node,
                                 gsize       *length);

/* A GHashFunc for gint64 keys that depends on all 64 bits: GLib 2.74's
 * g_int64_hash() keeps only the low 32, so keys that differ above them (a
 * transcript's request ids carry the client's number from bit 40) all collide
 * and every insert walks the others. Use with g_int64_equal(). */
guint     riv_int64_hash        (gconstpointer v);

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

/* 1, 2 or 5 times a power of ten, at least value (1 when value ≤ 0): the top
 * of a chart's scale (the report's and the window's). */
double    riv_nice_ceiling (double value);

G_END_DECLS
