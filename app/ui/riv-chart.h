/* riv-chart.h
 * Copyright 2026 The Rivulet authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * A live chart drawn with GtkSnapshot: lines over time (one or more series),
 * or bars (a histogram). It keeps a bounded number of points: when they fill
 * up, neighbouring points merge in pairs and each new point then stands for
 * twice as many samples, so drawing a frame costs the same after an hour as
 * after a second. Pushing a sample queues one redraw; GTK draws once a frame.
 */
#pragma once

#include <gtk/gtk.h>

G_BEGIN_DECLS

#define RIV_CHART_DEFAULT_CAPACITY 240
#define RIV_CHART_MAX_SERIES       4

#define RIV_TYPE_CHART (riv_chart_get_type ())
G_DECLARE_FINAL_TYPE (RivChart, riv_chart, RIV, CHART, GtkWidget)

/* Properties: "title", "unit" (nullable), both construct-only. */
GtkWidget  *riv_chart_new            (const char    *title,
                                      const char    *unit);
/* Returns the series' index. At most RIV_CHART_MAX_SERIES. */
guint       riv_chart_add_series     (RivChart      *self,
                                      const char    *label,
                                      const char    *color);
/* Points kept at most (an even number ≥ 4); clears the chart. */
void        riv_chart_set_capacity   (RivChart      *self,
                                      guint          capacity);
/* One sample at time t (seconds): one value per series, NAN for none. */
void        riv_chart_push           (RivChart      *self,
                                      double         t,
                                      const double  *values);
/* Bars instead of lines: values[i] is the height of bar i, labelled
 * first_label + i. Replaces what the chart showed. */
void        riv_chart_set_bars       (RivChart      *self,
                                      const double  *values,
                                      guint          n_values,
                                      guint          first_label);
void        riv_chart_clear          (RivChart      *self);
/* Clears the chart, keeping the lines it showed as the previous run's:
 * drawn dashed and fainter behind the new ones, both from the left edge
 * (a chart of bars keeps nothing). */
void        riv_chart_clear_to_previous (RivChart   *self);
/* Points of the previous run kept (0: none). */
guint       riv_chart_get_n_previous (RivChart      *self);

guint       riv_chart_get_n_points   (RivChart      *self);
guint64     riv_chart_get_n_samples  (RivChart      *self);
/* Samples one point stands for now (1, 2, 4, …). */
guint       riv_chart_get_stride     (RivChart      *self);
/* The highest value a series was pushed (before any merging); NAN if none. */
double      riv_chart_get_peak       (RivChart      *self,
                                      guint          series);
/* The value of the newest point of a series (NAN if none). */
double      riv_chart_get_last       (RivChart      *self,
                                      guint          series);
guint       riv_chart_get_n_bars     (RivChart      *self);

G_END_DECLS
