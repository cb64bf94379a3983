/* riv-report-private.h
 * Copyright 2026 The Rivulet authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * What the load report's page (riv-report.c) shares with the comparison
 * page (riv-compare-html.c): the style, the chart's size and the helpers
 * that write numbers, text and axes.
 */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

#define CHART_W       760.0
#define CHART_H       220.0
#define PAD_LEFT      56.0
#define PAD_RIGHT     12.0
#define PAD_TOP       12.0
#define PAD_BOTTOM    28.0

extern const char riv_report_style[];

/* A number in the C locale (SVG and CSS never follow the user's). */
void riv_report_append_num     (GString    *out,
                                const char *format,
                                double      value);
void riv_report_append_escaped (GString    *out,
                                const char *text);
/* "250 ms", "1.5 s", "12k /s": unit "s" is shown in ms under a second. */
void riv_report_format_value   (char       *buf,
                                gsize       size,
                                double      value,
                                const char *unit);
/* Grid lines and labels: y from 0 to y_max, x from 0 to x_max. */
void riv_report_append_axes    (GString    *out,
                                double      y_max,
                                const char *y_unit,
                                double      x_max,
                                const char *x_unit);

G_END_DECLS
