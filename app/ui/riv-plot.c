/* riv-plot.c
 * Copyright 2026 The Rivulet authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "config.h"

#include <string.h>

#include "riv-json.h"
#include "riv-plot.h"

#define MAX_POINTS_SHOWN 6
#define MAX_DEPTH        256

static void
series_free (RivPlotSeries *series)
{
  g_free (series->name);
  g_free (series->mark);
  g_free (series->points);
  g_free (series);
}

void
riv_plot_free (RivPlot *plot)
{
  if (plot == NULL)
    return;
  g_free (plot->library);
  g_free (plot->title);
  g_clear_object (&plot->texture);
  g_clear_pointer (&plot->spec, g_bytes_unref);
  g_ptr_array_unref (plot->series);
  g_free (plot);
}

static JsonObject *
object_of (JsonNode *node)
{
  return node != NULL && JSON_NODE_HOLDS_OBJECT (node) ? json_node_get_object (node) : NULL;
}

static JsonArray *
array_of (JsonNode *node)
{
  return node != NULL && JSON_NODE_HOLDS_ARRAY (node) ? json_node_get_array (node) : NULL;
}

static JsonNode *
member (JsonObject *object,
        const char *name)
{
  return object != NULL ? json_object_get_member (object, name) : NULL;
}

/* A title given as a string or as {"text": …}. */
static char *
title_of (JsonNode *node)
{
  if (node == NULL)
    return NULL;
  if (JSON_NODE_HOLDS_VALUE (node) && json_node_get_value_type (node) == G_TYPE_STRING)
    return *json_node_get_string (node) != '\0' ? g_strdup (json_node_get_string (node)) : NULL;
  return g_strdup (riv_json_get_string (object_of (node), "text"));
}

static char *
scalar_text (JsonNode *node)
{
  char buffer[G_ASCII_DTOSTR_BUF_SIZE];

  if (node == NULL || JSON_NODE_HOLDS_NULL (node))
    return g_strdup ("–");
  if (JSON_NODE_HOLDS_VALUE (node))
    switch (json_node_get_value_type (node))
      {
      case G_TYPE_STRING:
        return g_strdup (json_node_get_string (node));
      case G_TYPE_DOUBLE:
        return g_strdup (g_ascii_formatd (buffer, sizeof buffer, "%.6g",
                                          json_node_get_double (node)));
      case G_TYPE_INT64:
        return g_strdup_printf ("%" G_GINT64_FORMAT, json_node_get_int (node));
      case G_TYPE_BOOLEAN:
        return g_strdup (json_node_get_boolean (node) ? "true" : "false");
      default:
        break;
      }
  return riv_json_to_string (node, NULL);
}

/* Typed arrays: Plotly's {"dtype": "f8", "bdata": base64} and Bokeh's
 * {"type": "ndarray", "array": {"type": "bytes", "data": base64}, "dtype":
 * "float64"}; little-endian, as both write them. */
static GPtrArray *
decode_typed (const char *dtype,
              const char *base64)
{
  static const struct { const char *short_name, *long_name; guint size; char kind; } types[] = {
    { "f8", "float64", 8, 'f' }, { "f4", "float32", 4, 'f' },
    { "i1", "int8", 1, 'i' }, { "i2", "int16", 2, 'i' }, { "i4", "int32", 4, 'i' },
    { "i8", "int64", 8, 'i' }, { "u1", "uint8", 1, 'u' }, { "u2", "uint16", 2, 'u' },
    { "u4", "uint32", 4, 'u' }, { "u8", "uint64", 8, 'u' },
  };
  g_autofree guchar *data = NULL;
  GPtrArray *values;
  gsize size = 0;
  guint width = 0;
  char kind = 0;

  for (guint i = 0; i < G_N_ELEMENTS (types); i++)
    if (g_strcmp0 (dtype, types[i].short_name) == 0 || g_strcmp0 (dtype, types[i].long_name) == 0)
      {
        width = types[i].size;
        kind = types[i].kind;
      }
  if (width == 0 || base64 == NULL)
    return NULL;

  data = g_base64_decode (base64, &size);
  values = g_ptr_array_new_with_free_func (g_free);
  for (gsize at = 0; at + width <= size; at += width)
    {
      char buffer[G_ASCII_DTOSTR_BUF_SIZE];
      guint64 bits = 0;

      for (guint b = 0; b < width; b++)
        bits |= (guint64) data[at + b] << (8 * b);
      if (kind == 'f' && width == 8)
        {
          double d;

          memcpy (&d, &bits, sizeof d);
          g_ptr_array_add (values, g_strdup (g_ascii_formatd (buffer, sizeof buffer, "%.6g", d)));
        }
      else if (kind == 'f')
        {
          guint32 bits32 = (guint32) bits;
          float f;

          memcpy (&f, &bits32, sizeof f);
          g_ptr_array_add (values, g_strdup (g_ascii_formatd (buffer, sizeof buffer, "%.6g", f)));
        }
      else if (kind == 'u')
        g_ptr_array_add (values, g_strdup_printf ("%" G_GUINT64_FORMAT, bits));
      else
        {
          gint64 v = (gint64) (bits << (64 - 8 * width)) >> (64 - 8 * width);

          g_ptr_array_add (values, g_strdup_printf ("%" G_GINT64_FORMAT, v));
        }
    }
  return values;
}

/* The values of a data column as texts, or NULL when node is none. */
static GPtrArray *
column_values (JsonNode *node)
{
  JsonArray *array = array_of (node);
  JsonObject *object = object_of (node);
  GPtrArray *values;

  if (array != NULL)
    {
      values = g_ptr_array_new_with_free_func (g_free);
      for (guint i = 0; i < json_array_get_length (array); i++)
        g_ptr_array_add (values, scalar_text (json_array_get_element (array, i)));
      return values;
    }
  if (object == NULL)
    return NULL;
  if (riv_json_get_string (object, "bdata") != NULL)
    return decode_typed (riv_json_get_string (object, "dtype"),
                         riv_json_get_string (object, "bdata"));
  if (g_strcmp0 (riv_json_get_string (object, "type"), "ndarray") == 0)
    {
      JsonNode *inner = member (object, "array");

      if (array_of (inner) != NULL)
        return column_values (inner);
      return decode_typed (riv_json_get_string (object, "dtype"),
                           riv_json_get_string (object_of (inner), "data"));
    }
  return NULL;
}

/* x may be NULL (the points are numbered from 0). */
static void
add_series (RivPlot    *plot,
            const char *name,
            const char *mark,
            GPtrArray  *x,
            GPtrArray  *y)
{
  RivPlotSeries *series = g_new0 (RivPlotSeries, 1);
  GString *points = g_string_new (NULL);
  guint n = y != NULL ? y->len : x != NULL ? x->len : 0;

  if (x != NULL && y != NULL)
    n = MIN (x->len, y->len);
  for (guint i = 0; i < MIN (n, MAX_POINTS_SHOWN); i++)
    {
      g_autofree char *index = g_strdup_printf ("%u", i);

      g_string_append_printf (points, "%s(%s, %s)", i > 0 ? ", " : "",
                              x != NULL ? (char *) g_ptr_array_index (x, i) : index,
                              y != NULL ? (char *) g_ptr_array_index (y, i) : "–");
    }
  if (n > MAX_POINTS_SHOWN)
    g_string_append (points, ", …");
  /* A figure that names no mark (or no series) still gets a row that says so. */
  series->name = g_strdup (name != NULL ? name : "–");
  series->mark = g_strdup (mark != NULL ? mark : "–");
  series->n_points = n;
  series->points = g_string_free (points, FALSE);
  g_ptr_array_add (plot->series, series);
}

/* Plotly: {"data": [trace…], "layout": {"title": …}}. */
static void
read_plotly (RivPlot  *plot,
             JsonNode *root)
{
  JsonObject *figure = object_of (root);
  JsonArray *traces = array_of (member (figure, "data"));

  plot->title = title_of (member (object_of (member (figure, "layout")), "title"));
  for (guint i = 0; traces != NULL && i < json_array_get_length (traces); i++)
    {
      JsonObject *trace = object_of (json_array_get_element (traces, i));
      const char *type = riv_json_get_string (trace, "type");
      const char *mode = riv_json_get_string (trace, "mode");
      const char *name = riv_json_get_string (trace, "name");
      g_autoptr(GPtrArray) x = column_values (member (trace, "x"));
      g_autoptr(GPtrArray) y = column_values (member (trace, "y"));
      g_autofree char *fallback = g_strdup_printf ("trace %u", i);
      g_autofree char *mark = NULL;

      if (trace == NULL)
        continue;
      if (x == NULL && y == NULL)
        {
          /* Pies and the like: labels and values. */
          x = column_values (member (trace, "labels"));
          y = column_values (member (trace, "values"));
        }
      if (type == NULL)
        type = "scatter";
      mark = mode != NULL ? g_strdup_printf ("%s (%s)", type, mode) : g_strdup (type);
      add_series (plot, name != NULL ? name : fallback, mark, x, y);
    }
}

/* Vega-Lite (Altair): a mark, an encoding and rows of data, possibly in
 * layers that inherit their parent's data and encoding. */
static void
read_vega_layer (RivPlot    *plot,
                 JsonObject *spec,
                 JsonObject *datasets,
                 JsonNode   *data,
                 JsonObject *encoding,
                 guint       depth)
{
  JsonArray *layers = array_of (member (spec, "layer"));
  JsonNode *mark_node = member (spec, "mark");
  const char *mark;
  JsonArray *rows = NULL;
  const char *x_field, *y_field, *color_field;
  g_autoptr(GHashTable) groups = NULL;
  g_autoptr(GPtrArray) order = NULL;

  if (depth > 8)
    return;
  if (member (spec, "data") != NULL)
    data = member (spec, "data");
  if (object_of (member (spec, "encoding")) != NULL)
    encoding = object_of (member (spec, "encoding"));
  for (guint i = 0; layers != NULL && i < json_array_get_length (layers); i++)
    read_vega_layer (plot, object_of (json_array_get_element (layers, i)), datasets, data,
                     encoding, depth + 1);
  if (mark_node == NULL)
    return;

  mark = JSON_NODE_HOLDS_OBJECT (mark_node) ? riv_json_get_string (object_of (mark_node), "type")
                                            : json_node_get_value_type (mark_node) == G_TYPE_STRING
                                                ? json_node_get_string (mark_node) : NULL;
  rows = array_of (member (object_of (data), "values"));
  if (rows == NULL && riv_json_get_string (object_of (data), "name") != NULL)
    rows = array_of (member (datasets, riv_json_get_string (object_of (data), "name")));
  x_field = riv_json_get_string (object_of (member (encoding, "x")), "field");
  y_field = riv_json_get_string (object_of (member (encoding, "y")), "field");
  color_field = riv_json_get_string (object_of (member (encoding, "color")), "field");

  /* One series per colour value, in order of appearance. */
  groups = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  order = g_ptr_array_new_with_free_func (g_free);
  for (guint i = 0; rows != NULL && i < json_array_get_length (rows); i++)
    {
      JsonObject *row = object_of (json_array_get_element (rows, i));
      g_autofree char *key = color_field != NULL ? scalar_text (member (row, color_field))
                                                 : g_strdup (y_field != NULL ? y_field : "");
      GPtrArray **pair;

      if (row == NULL)
        continue;
      pair = g_hash_table_lookup (groups, key);
      if (pair == NULL)
        {
          pair = g_new0 (GPtrArray *, 2);
          pair[0] = g_ptr_array_new_with_free_func (g_free);
          pair[1] = g_ptr_array_new_with_free_func (g_free);
          g_hash_table_insert (groups, g_strdup (key), pair);
          g_ptr_array_add (order, g_strdup (key));
        }
      g_ptr_array_add (pair[0], scalar_text (x_field != NULL ? member (row, x_field) : NULL));
      g_ptr_array_add (pair[1], scalar_text (y_field != NULL ? member (row, y_field) : NULL));
    }
  if (order->len == 0)
    add_series (plot, y_field != NULL ? y_field : "", mark, NULL, NULL);
  for (guint i = 0; i < order->len; i++)
    {
      GPtrArray **pair = g_hash_table_lookup (groups, g_ptr_array_index (order, i));

      add_series (plot, g_ptr_array_index (order, i), mark, pair[0], pair[1]);
      g_ptr_array_unref (pair[0]);
      g_ptr_array_unref (pair[1]);
      g_free (pair);
    }
}

static void
read_altair (RivPlot  *plot,
             JsonNode *root)
{
  JsonObject *spec = object_of (root);

  plot->title = title_of (member (spec, "title"));
  read_vega_layer (plot, spec, object_of (member (spec, "datasets")), NULL, NULL, 0);
}

/* Bokeh (json_item): objects with an id and attributes, referred to as
 * {"id": …}; a GlyphRenderer ties a glyph (Line, VBar, Scatter…) to a
 * ColumnDataSource. Bokeh 3 names the class in "name", Bokeh 2 in "type". */
static const char *
bokeh_class (JsonObject *object)
{
  const char *type = riv_json_get_string (object, "type");

  return g_strcmp0 (type, "object") == 0 ? riv_json_get_string (object, "name") : type;
}

static void
bokeh_collect (JsonNode   *node,
               GHashTable *ids,
               GPtrArray  *renderers,
               guint       depth)
{
  if (node == NULL || depth > MAX_DEPTH)
    return;
  if (JSON_NODE_HOLDS_ARRAY (node))
    {
      JsonArray *array = json_node_get_array (node);

      for (guint i = 0; i < json_array_get_length (array); i++)
        bokeh_collect (json_array_get_element (array, i), ids, renderers, depth + 1);
    }
  else if (JSON_NODE_HOLDS_OBJECT (node))
    {
      JsonObject *object = json_node_get_object (node);
      g_autoptr(GList) members = json_object_get_members (object);
      const char *id = riv_json_get_string (object, "id");

      if (id != NULL && object_of (member (object, "attributes")) != NULL)
        {
          g_hash_table_insert (ids, (gpointer) id, object);
          if (g_strcmp0 (bokeh_class (object), "GlyphRenderer") == 0)
            g_ptr_array_add (renderers, object);
        }
      for (GList *l = members; l != NULL; l = l->next)
        bokeh_collect (json_object_get_member (object, l->data), ids, renderers, depth + 1);
    }
}

static JsonObject *
bokeh_resolve (GHashTable *ids,
               JsonNode   *node)
{
  JsonObject *object = object_of (node);
  const char *id = riv_json_get_string (object, "id");

  if (object != NULL && member (object, "attributes") == NULL && id != NULL)
    return g_hash_table_lookup (ids, id);
  return object;
}

static JsonObject *
bokeh_attributes (JsonObject *object)
{
  return object_of (member (object, "attributes"));
}

/* A glyph's coordinate: {"type": "field", "field": name} (or Bokeh 2's
 * {"field": name}) names a column of the source. */
static GPtrArray *
bokeh_column (JsonObject *glyph,
              JsonObject *data,
              JsonArray  *entries,
              const char *coordinate)
{
  const char *field = riv_json_get_string (object_of (member (glyph, coordinate)), "field");

  if (field == NULL)
    return NULL;
  for (guint i = 0; entries != NULL && i < json_array_get_length (entries); i++)
    {
      JsonArray *entry = array_of (json_array_get_element (entries, i));
      JsonNode *key = entry != NULL && json_array_get_length (entry) == 2
                        ? json_array_get_element (entry, 0) : NULL;

      if (key != NULL && JSON_NODE_HOLDS_VALUE (key) &&
          json_node_get_value_type (key) == G_TYPE_STRING &&
          g_strcmp0 (json_node_get_string (key), field) == 0)
        return column_values (json_array_get_element (entry, 1));
    }
  return column_values (member (data, field));
}

static void
read_bokeh (RivPlot  *plot,
            JsonNode *root)
{
  g_autoptr(GHashTable) ids = g_hash_table_new (g_str_hash, g_str_equal);
  g_autoptr(GPtrArray) renderers = g_ptr_array_new ();
  GHashTableIter iter;
  gpointer value;

  bokeh_collect (root, ids, renderers, 0);

  g_hash_table_iter_init (&iter, ids);
  while (plot->title == NULL && g_hash_table_iter_next (&iter, NULL, &value))
    if (g_strcmp0 (bokeh_class (value), "Title") == 0)
      plot->title = g_strdup (riv_json_get_string (bokeh_attributes (value), "text"));

  for (guint i = 0; i < renderers->len; i++)
    {
      JsonObject *attributes = bokeh_attributes (g_ptr_array_index (renderers, i));
      JsonObject *glyph_object = bokeh_resolve (ids, member (attributes, "glyph"));
      JsonObject *glyph = bokeh_attributes (glyph_object);
      JsonObject *source = bokeh_attributes (bokeh_resolve (ids, member (attributes,
                                                                         "data_source")));
      JsonObject *data = object_of (member (source, "data"));
      JsonArray *entries = array_of (member (data, "entries"));
      const char *name = riv_json_get_string (attributes, "name");
      g_autofree char *mark = g_ascii_strdown (bokeh_class (glyph_object) != NULL
                                                 ? bokeh_class (glyph_object) : "glyph", -1);
      g_autofree char *fallback = g_strdup_printf ("%s %u", mark, i + 1);
      g_autoptr(GPtrArray) x = bokeh_column (glyph, data, entries, "x");
      g_autoptr(GPtrArray) y = bokeh_column (glyph, data, entries, "y");

      /* Bars have their height in "top" (VBar) or their length in "right" (HBar). */
      if (g_strcmp0 (mark, "vbar") == 0)
        {
          g_clear_pointer (&y, g_ptr_array_unref);
          y = bokeh_column (glyph, data, entries, "top");
        }
      else if (g_strcmp0 (mark, "hbar") == 0)
        {
          g_clear_pointer (&x, g_ptr_array_unref);
          x = bokeh_column (glyph, data, entries, "right");
        }
      add_series (plot, name != NULL ? name : fallback, mark, x, y);
    }
}

/* "data:image/webp;base64,…" into a texture. */
static GdkTexture *
decode_data_url (const char  *url,
                 GError     **error)
{
  const char *comma = url != NULL ? strchr (url, ',') : NULL;
  g_autofree guchar *data = NULL;
  g_autoptr(GBytes) bytes = NULL;
  gsize size = 0;

  if (url == NULL || !g_str_has_prefix (url, "data:image/") || comma == NULL ||
      comma - url < 7 || strncmp (comma - 7, ";base64", 7) != 0)
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA,
                   "the plot is not a base64 data URL of a picture");
      return NULL;
    }
  data = g_base64_decode (comma + 1, &size);
  bytes = g_bytes_new_take (g_steal_pointer (&data), size);
  return gdk_texture_new_from_bytes (bytes, error);
}

RivPlot *
riv_plot_read (JsonNode  *value,
               GError   **error)
{
  JsonObject *object = object_of (value);
  const char *type = riv_json_get_string (object, "type");
  const char *text = riv_json_get_string (object, "plot");
  g_autoptr(RivPlot) plot = NULL;
  g_autoptr(JsonNode) root = NULL;

  if (type == NULL || text == NULL)
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA,
                   "a plot value has a \"type\" and a \"plot\"");
      return NULL;
    }

  plot = g_new0 (RivPlot, 1);
  plot->library = g_strdup (type);
  plot->series = g_ptr_array_new_with_free_func ((GDestroyNotify) series_free);

  if (g_strcmp0 (type, "matplotlib") == 0)
    {
      if ((plot->texture = decode_data_url (text, error)) == NULL)
        return NULL;
      return g_steal_pointer (&plot);
    }

  if ((root = riv_json_parse (NULL, text, -1, MAX_DEPTH, error)) == NULL)
    return NULL;
  plot->spec = g_bytes_new (text, strlen (text));
  if (g_strcmp0 (type, "plotly") == 0)
    read_plotly (plot, root);
  else if (g_strcmp0 (type, "altair") == 0)
    read_altair (plot, root);
  else if (g_strcmp0 (type, "bokeh") == 0)
    read_bokeh (plot, root);
  else
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_NOT_SUPPORTED,
                   "plots of type “%s” are not known", type);
      return NULL;
    }
  return g_steal_pointer (&plot);
}
