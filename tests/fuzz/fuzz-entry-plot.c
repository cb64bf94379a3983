/* fuzz-entry-plot.c
 * Copyright 2026 The Rivulet authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Input: the first byte picks a gr.Plot type (plotly, altair, bokeh, one the
 * window does not know, or matplotlib); the rest is the value's "plot" text:
 * a figure's JSON, or for matplotlib anything but a picture's data URL (the
 * picture decoders are GDK's and gdk-pixbuf's, not ours to fuzz).
 *
 * Oracles for riv_plot_read():
 *  - a summary or an error, never both nor neither;
 *  - a summary names the library it was asked for, keeps the figure's text
 *    as it came, and every series has a name, a mark and its first points;
 *  - matplotlib text that is not a picture's data URL is an error.
 */
#include "config.h"

#include <string.h>

#include "fuzz-entry.h"
#include "riv-plot.h"

static const char * const types[] = { "plotly", "altair", "bokeh", "vega", "matplotlib" };

void
riv_fuzz_plot (const guint8 *data,
               gsize         size)
{
  g_autoptr(JsonObject) object = json_object_new ();
  g_autoptr(JsonNode) value = json_node_new (JSON_NODE_OBJECT);
  g_autoptr(GError) error = NULL;
  g_autoptr(RivPlot) plot = NULL;
  g_autofree char *text = NULL;
  const char *type;

  if (size == 0)
    return;
  type = types[data[0] % G_N_ELEMENTS (types)];
  text = g_strndup ((const char *) data + 1, size - 1);
  if (!g_utf8_validate (text, -1, NULL) ||
      (g_str_equal (type, "matplotlib") && g_str_has_prefix (text, "data:image/")))
    return;
  json_object_set_string_member (object, "type", type);
  json_object_set_string_member (object, "plot", text);
  json_node_set_object (value, object);

  plot = riv_plot_read (value, &error);
  RIV_FUZZ_CHECK ((plot == NULL) != (error == NULL), "a summary and an error, or neither");
  if (plot == NULL)
    return;
  RIV_FUZZ_CHECK (!g_str_equal (type, "matplotlib"), "read a matplotlib plot that is no picture");
  RIV_FUZZ_CHECK (g_str_equal (plot->library, type), "library %s, asked %s", plot->library, type);
  RIV_FUZZ_CHECK (plot->spec != NULL && g_bytes_get_size (plot->spec) == strlen (text) &&
                  memcmp (g_bytes_get_data (plot->spec, NULL), text, strlen (text)) == 0,
                  "the figure's text changed");
  for (guint i = 0; i < plot->series->len; i++)
    {
      RivPlotSeries *series = g_ptr_array_index (plot->series, i);

      RIV_FUZZ_CHECK (series->name != NULL && series->mark != NULL && series->points != NULL,
                      "series %u without a name, a mark or points", i);
      RIV_FUZZ_CHECK (g_utf8_validate (series->name, -1, NULL) &&
                      g_utf8_validate (series->points, -1, NULL), "series %u not UTF-8", i);
    }
}
