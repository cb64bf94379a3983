/* riv-plot.h
 * Copyright 2026 The Rivulet authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * What a gr.Plot value holds, read without a JavaScript engine: a matplotlib
 * figure is a data URL of a picture (decoded here), a Plotly, Altair
 * (Vega-Lite) or Bokeh figure is a JSON document summarised as its title and
 * series (name, mark, points). Pure data, no widgets: the output card calls
 * riv_plot_read() on a worker thread.
 */
#pragma once

#include <gdk/gdk.h>
#include <json-glib/json-glib.h>

G_BEGIN_DECLS

typedef struct
{
  char  *name;       /* series name (trace name, colour value, renderer name) */
  char  *mark;       /* "line", "bar", "scatter"… */
  guint  n_points;
  char  *points;     /* the first points as "(x, y), (x, y), …" */
} RivPlotSeries;

typedef struct
{
  char       *library;   /* "matplotlib", "plotly", "altair", "bokeh" */
  char       *title;     /* nullable */
  GdkTexture *texture;   /* matplotlib: the decoded picture, else NULL */
  GBytes     *spec;      /* plotly/altair/bokeh: the figure's JSON text, else NULL */
  GPtrArray  *series;    /* RivPlotSeries*, empty for matplotlib */
} RivPlot;

/* value is a gr.Plot value ({"type": …, "plot": …}). Any thread. */
RivPlot *riv_plot_read (JsonNode  *value,
                        GError   **error);
void     riv_plot_free (RivPlot   *plot);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (RivPlot, riv_plot_free)

G_END_DECLS
