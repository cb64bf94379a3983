/* fuzz-entry.h
 * Copyright 2026 The Rivulet authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The checking entry points of the fuzz targets. Each one takes one input,
 * drives the code under test with it and checks the oracles; when an oracle
 * does not hold it prints why on stderr and aborts. The libFuzzer targets
 * (fuzz-target.c, clang only) and the regression replayer test-fuzz-regressions
 * (any compiler) call the same functions, so the checks exist once.
 */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

typedef void (*RivFuzzFunc) (const guint8 *data,
                             gsize         size);

/* Makes GLib warnings and criticals fatal: g_warning means a bug (style.md §9)
 * and a failed g_return_if_fail means a caller broke a contract. */
void            riv_fuzz_init             (void);
G_NORETURN void riv_fuzz_fail             (const char   *format,
                                           ...) G_GNUC_PRINTF (1, 2);

#define RIV_FUZZ_CHECK(cond, ...)                                             \
  G_STMT_START {                                                              \
    if (G_UNLIKELY (!(cond)))                                                 \
      riv_fuzz_fail ("%s:%d: check failed: %s: %s", __FILE__, __LINE__,       \
                     #cond, riv_fuzz_format (__VA_ARGS__));                   \
  } G_STMT_END

/* A printf-style message in a buffer that lives until the next call. */
const char     *riv_fuzz_format           (const char   *format,
                                           ...) G_GNUC_PRINTF (1, 2);

/* One per target; the names match the fuzz-<name> executables and the
 * tests/fuzz/corpus/<name> and tests/fuzz/regressions/<name> folders. */
void            riv_fuzz_sse_reader       (const guint8 *data,
                                           gsize         size);
void            riv_fuzz_http_reply       (const guint8 *data,
                                           gsize         size);
void            riv_fuzz_message          (const guint8 *data,
                                           gsize         size);
void            riv_fuzz_diff             (const guint8 *data,
                                           gsize         size);
void            riv_fuzz_config           (const guint8 *data,
                                           gsize         size);
void            riv_fuzz_server_body      (const guint8 *data,
                                           gsize         size);
void            riv_fuzz_wire             (const guint8 *data,
                                           gsize         size);
void            riv_fuzz_upload           (const guint8 *data,
                                           gsize         size);
void            riv_fuzz_transcript       (const guint8 *data,
                                           gsize         size);
void            riv_fuzz_load_options     (const guint8 *data,
                                           gsize         size);
void            riv_fuzz_json             (const guint8 *data,
                                           gsize         size);
void            riv_fuzz_record           (const guint8 *data,
                                           gsize         size);
void            riv_fuzz_brief            (const guint8 *data,
                                           gsize         size);
void            riv_fuzz_range            (const guint8 *data,
                                           gsize         size);
void            riv_fuzz_space            (const guint8 *data,
                                           gsize         size);
void            riv_fuzz_scenarios        (const guint8 *data,
                                           gsize         size);
/* Only where the window is built (GDK). */
void            riv_fuzz_plot             (const guint8 *data,
                                           gsize         size);

G_END_DECLS
