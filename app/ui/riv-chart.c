/* riv-chart.c
 * Copyright 2026 The Rivulet authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Lines (or bars) drawn in snapshot(): grid and labels as render nodes, the
 * lines as one cairo node over at most `capacity` points.
 */
#include "config.h"

#include <math.h>

#include "riv-chart.h"
#include "riv-util.h"

#define PAD_LEFT    44.0
#define PAD_RIGHT   8.0
#define PAD_TOP     24.0
#define PAD_BOTTOM  18.0
#define GRID_LINES  4

typedef struct
{
  double t;
  double v[RIV_CHART_MAX_SERIES];   /* mean of the samples that had a value */
  guint  n[RIV_CHART_MAX_SERIES];   /* samples with a value */
} Point;

typedef struct
{
  char    *label;
  GdkRGBA  color;
  double   peak;
} Series;

struct _RivChart
{
  GtkWidget  parent_instance;

  char      *title;
  char      *unit;
  Series     series[RIV_CHART_MAX_SERIES];
  guint      n_series;
  GArray    *points;      /* Point, at most capacity */
  Point      pending;     /* samples not yet a point */
  guint      n_pending;
  guint      capacity;
  guint      stride;      /* samples per point */
  guint64    n_samples;
  GArray    *bars;        /* double; nullable: lines */
  guint      first_label;
};

G_DEFINE_FINAL_TYPE (RivChart, riv_chart, GTK_TYPE_WIDGET)

static void
point_add (Point       *into,
           const Point *from,
           guint        n_series)
{
  into->t = MAX (into->t, from->t);
  for (guint s = 0; s < n_series; s++)
    if (from->n[s] > 0)
      {
        double total = into->v[s] * into->n[s] + from->v[s] * from->n[s];

        into->n[s] += from->n[s];
        into->v[s] = total / into->n[s];
      }
}

/* Halves the points: each pair of neighbours becomes one. */
static void
merge_pairs (RivChart *self)
{
  guint n = self->points->len / 2;

  for (guint i = 0; i < n; i++)
    {
      Point merged = g_array_index (self->points, Point, 2 * i);

      point_add (&merged, &g_array_index (self->points, Point, 2 * i + 1), self->n_series);
      g_array_index (self->points, Point, i) = merged;
    }
  if (self->points->len % 2 == 1)
    {
      g_array_index (self->points, Point, n) = g_array_index (self->points, Point, self->points->len - 1);
      n++;
    }
  g_array_set_size (self->points, n);
  self->stride *= 2;
}

static char *
format_value (double      value,
              const char *unit)
{
  if (unit != NULL && g_str_equal (unit, "s"))
    {
      if (value > 0 && value < 1)
        return g_strdup_printf ("%.0f ms", value * 1000);
      return g_strdup_printf ("%g s", value);
    }
  if (value >= 10000)
    return g_strdup_printf ("%.0fk", value / 1000);
  return g_strdup_printf ("%g", value);
}

static void
get_fg (RivChart *self,
        GdkRGBA  *color)
{
  G_GNUC_BEGIN_IGNORE_DEPRECATIONS
  gtk_style_context_get_color (gtk_widget_get_style_context (GTK_WIDGET (self)), color);
  G_GNUC_END_IGNORE_DEPRECATIONS
}

static void
append_text (RivChart      *self,
             GtkSnapshot   *snapshot,
             const char    *text,
             double         x,
             double         y,
             double         align,   /* 0 left, 1 right of x */
             const GdkRGBA *color,
             double        *width)
{
  g_autoptr(PangoLayout) layout = gtk_widget_create_pango_layout (GTK_WIDGET (self), text);
  int w, h;

  pango_layout_get_pixel_size (layout, &w, &h);
  if (width != NULL)
    *width = w;
  gtk_snapshot_save (snapshot);
  gtk_snapshot_translate (snapshot, &GRAPHENE_POINT_INIT ((float) (x - align * w), (float) y));
  gtk_snapshot_append_layout (snapshot, layout, color);
  gtk_snapshot_restore (snapshot);
}

static void
append_hline (GtkSnapshot   *snapshot,
              double         x,
              double         y,
              double         width,
              const GdkRGBA *color)
{
  gtk_snapshot_append_color (snapshot, color,
                             &GRAPHENE_RECT_INIT ((float) x, (float) floor (y), (float) width, 1));
}

static void
riv_chart_snapshot (GtkWidget   *widget,
                    GtkSnapshot *snapshot)
{
  RivChart *self = RIV_CHART (widget);
  double width = gtk_widget_get_width (widget);
  double height = gtk_widget_get_height (widget);
  double plot_w = width - PAD_LEFT - PAD_RIGHT;
  double plot_h = height - PAD_TOP - PAD_BOTTOM;
  GdkRGBA fg, dim, grid;
  double top = 0, legend_x;
  guint n_points = self->bars != NULL ? self->bars->len : self->points->len;

  if (plot_w < 10 || plot_h < 10)
    return;

  get_fg (self, &fg);
  dim = fg;
  dim.alpha *= 0.6f;
  grid = fg;
  grid.alpha *= 0.12f;

  /* Title, then the legend. */
  append_text (self, snapshot, self->title, 0, 0, 0, &fg, &legend_x);
  legend_x += 16;
  for (guint s = 0; s < self->n_series && self->bars == NULL; s++)
    {
      double w;

      gtk_snapshot_append_color (snapshot, &self->series[s].color,
                                 &GRAPHENE_RECT_INIT ((float) legend_x, 6, 10, 10));
      append_text (self, snapshot, self->series[s].label, legend_x + 14, 0, 0, &dim, &w);
      legend_x += 14 + w + 12;
    }

  /* Scale: the highest value kept. */
  for (guint i = 0; i < n_points; i++)
    {
      if (self->bars != NULL)
        top = MAX (top, g_array_index (self->bars, double, i));
      else
        for (guint s = 0; s < self->n_series; s++)
          {
            const Point *p = &g_array_index (self->points, Point, i);

            if (p->n[s] > 0)
              top = MAX (top, p->v[s]);
          }
    }
  top = riv_nice_ceiling (top);

  for (guint g = 0; g <= GRID_LINES; g++)
    {
      double y = PAD_TOP + plot_h - plot_h * g / GRID_LINES;
      g_autofree char *label = format_value (top * g / GRID_LINES, self->unit);

      append_hline (snapshot, PAD_LEFT, y, plot_w, &grid);
      append_text (self, snapshot, label, PAD_LEFT - 6, y - 8, 1, &dim, NULL);
    }

  if (n_points == 0)
    return;

  if (self->bars != NULL)
    {
      double slot = plot_w / n_points;
      guint label_every = (guint) ceil (24.0 / slot);

      for (guint i = 0; i < n_points; i++)
        {
          double value = g_array_index (self->bars, double, i);
          double h = plot_h * value / top;

          gtk_snapshot_append_color (snapshot, &self->series[0].color,
                                     &GRAPHENE_RECT_INIT ((float) (PAD_LEFT + i * slot + slot * 0.15),
                                                          (float) (PAD_TOP + plot_h - h),
                                                          (float) MAX (slot * 0.7, 1), (float) h));
          if (i % MAX (label_every, 1) == 0)
            {
              g_autofree char *label = g_strdup_printf ("%u", self->first_label + i);

              append_text (self, snapshot, label, PAD_LEFT + (i + 0.5) * slot, PAD_TOP + plot_h + 1,
                           0.5, &dim, NULL);
            }
        }
      return;
    }

  {
    const Point *first = &g_array_index (self->points, Point, 0);
    const Point *last = &g_array_index (self->points, Point, n_points - 1);
    double t0 = first->t, span = MAX (last->t - first->t, 1e-6);
    g_autofree char *left = g_strdup_printf ("%.0f s", t0);
    g_autofree char *right = g_strdup_printf ("%.0f s", last->t);
    graphene_rect_t bounds = GRAPHENE_RECT_INIT ((float) PAD_LEFT, (float) PAD_TOP - 2,
                                                 (float) plot_w, (float) plot_h + 4);
    cairo_t *cr = gtk_snapshot_append_cairo (snapshot, &bounds);

    cairo_set_line_width (cr, 1.5);
    cairo_set_line_join (cr, CAIRO_LINE_JOIN_ROUND);
    for (guint s = 0; s < self->n_series; s++)
      {
        GdkRGBA shade = self->series[s].color;

        /* Under the line a light shade, then the line; a gap where nothing
         * was measured. */
        shade.alpha = 0.12f;
        for (guint pass = 0; pass < 2; pass++)
          {
            gboolean drawing = FALSE;
            double first_x = 0, last_x = 0;

            for (guint i = 0; i <= n_points; i++)
              {
                const Point *p = i < n_points ? &g_array_index (self->points, Point, i) : NULL;
                double x, y;

                if (p == NULL || p->n[s] == 0)
                  {
                    if (drawing && pass == 0)
                      {
                        cairo_line_to (cr, last_x, PAD_TOP + plot_h);
                        cairo_line_to (cr, first_x, PAD_TOP + plot_h);
                        cairo_close_path (cr);
                      }
                    drawing = FALSE;
                    continue;
                  }
                x = PAD_LEFT + (n_points == 1 ? plot_w : plot_w * (p->t - t0) / span);
                y = PAD_TOP + plot_h - plot_h * p->v[s] / top;
                if (!drawing)
                  {
                    cairo_move_to (cr, x, y);
                    first_x = x;
                    drawing = TRUE;
                  }
                else
                  cairo_line_to (cr, x, y);
                last_x = x;
              }
            gdk_cairo_set_source_rgba (cr, pass == 0 ? &shade : &self->series[s].color);
            if (pass == 0)
              cairo_fill (cr);
            else
              cairo_stroke (cr);
          }
      }
    cairo_destroy (cr);

    append_text (self, snapshot, left, PAD_LEFT, PAD_TOP + plot_h + 1, 0, &dim, NULL);
    append_text (self, snapshot, right, PAD_LEFT + plot_w, PAD_TOP + plot_h + 1, 1, &dim, NULL);
  }
}

static void
riv_chart_measure (GtkWidget      *widget,
                   GtkOrientation  orientation,
                   int             for_size,
                   int            *minimum,
                   int            *natural,
                   int            *minimum_baseline,
                   int            *natural_baseline)
{
  *minimum = orientation == GTK_ORIENTATION_HORIZONTAL ? 200 : 110;
  *natural = orientation == GTK_ORIENTATION_HORIZONTAL ? 360 : 150;
}

static void
riv_chart_finalize (GObject *object)
{
  RivChart *self = RIV_CHART (object);

  for (guint s = 0; s < self->n_series; s++)
    g_free (self->series[s].label);
  g_clear_pointer (&self->title, g_free);
  g_clear_pointer (&self->unit, g_free);
  g_clear_pointer (&self->points, g_array_unref);
  g_clear_pointer (&self->bars, g_array_unref);

  G_OBJECT_CLASS (riv_chart_parent_class)->finalize (object);
}

static void
riv_chart_class_init (RivChartClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->finalize = riv_chart_finalize;
  widget_class->snapshot = riv_chart_snapshot;
  widget_class->measure = riv_chart_measure;
  gtk_widget_class_set_css_name (widget_class, "rivchart");
  gtk_widget_class_set_accessible_role (widget_class, GTK_ACCESSIBLE_ROLE_IMG);
}

static void
riv_chart_init (RivChart *self)
{
  self->points = g_array_new (FALSE, TRUE, sizeof (Point));
  self->capacity = RIV_CHART_DEFAULT_CAPACITY;
  self->stride = 1;
}

GtkWidget *
riv_chart_new (const char *title,
               const char *unit)
{
  RivChart *self = g_object_new (RIV_TYPE_CHART, NULL);

  self->title = g_strdup (title != NULL ? title : "");
  self->unit = g_strdup (unit);
  gtk_accessible_update_property (GTK_ACCESSIBLE (self),
                                  GTK_ACCESSIBLE_PROPERTY_LABEL, self->title, -1);
  return GTK_WIDGET (self);
}

guint
riv_chart_add_series (RivChart   *self,
                      const char *label,
                      const char *color)
{
  Series *series;

  g_return_val_if_fail (RIV_IS_CHART (self), 0);
  g_return_val_if_fail (self->n_series < RIV_CHART_MAX_SERIES, 0);

  series = &self->series[self->n_series];
  series->label = g_strdup (label);
  series->peak = NAN;
  if (!gdk_rgba_parse (&series->color, color))
    gdk_rgba_parse (&series->color, "#3584e4");
  return self->n_series++;
}

void
riv_chart_set_capacity (RivChart *self,
                        guint     capacity)
{
  g_return_if_fail (RIV_IS_CHART (self));
  g_return_if_fail (capacity >= 4);

  self->capacity = capacity + capacity % 2;
  riv_chart_clear (self);
}

void
riv_chart_push (RivChart     *self,
                double        t,
                const double *values)
{
  Point sample = { 0 };

  g_return_if_fail (RIV_IS_CHART (self));
  g_return_if_fail (values != NULL);

  g_clear_pointer (&self->bars, g_array_unref);
  sample.t = t;
  for (guint s = 0; s < self->n_series; s++)
    if (isfinite (values[s]))
      {
        sample.v[s] = values[s];
        sample.n[s] = 1;
        if (isnan (self->series[s].peak) || values[s] > self->series[s].peak)
          self->series[s].peak = values[s];
      }
  self->n_samples++;

  if (self->n_pending == 0)
    self->pending = sample;
  else
    point_add (&self->pending, &sample, self->n_series);
  if (++self->n_pending >= self->stride)
    {
      g_array_append_val (self->points, self->pending);
      self->n_pending = 0;
      if (self->points->len >= self->capacity)
        merge_pairs (self);
    }
  gtk_widget_queue_draw (GTK_WIDGET (self));
}

void
riv_chart_set_bars (RivChart     *self,
                    const double *values,
                    guint         n_values,
                    guint         first_label)
{
  g_return_if_fail (RIV_IS_CHART (self));
  g_return_if_fail (values != NULL || n_values == 0);

  if (self->bars == NULL)
    self->bars = g_array_new (FALSE, FALSE, sizeof (double));
  g_array_set_size (self->bars, 0);
  g_array_append_vals (self->bars, values, MIN (n_values, self->capacity));
  self->first_label = first_label;
  gtk_widget_queue_draw (GTK_WIDGET (self));
}

void
riv_chart_clear (RivChart *self)
{
  g_return_if_fail (RIV_IS_CHART (self));

  g_array_set_size (self->points, 0);
  g_clear_pointer (&self->bars, g_array_unref);
  self->n_pending = 0;
  self->stride = 1;
  self->n_samples = 0;
  for (guint s = 0; s < self->n_series; s++)
    self->series[s].peak = NAN;
  gtk_widget_queue_draw (GTK_WIDGET (self));
}

guint
riv_chart_get_n_points (RivChart *self)
{
  g_return_val_if_fail (RIV_IS_CHART (self), 0);

  return self->points->len;
}

guint64
riv_chart_get_n_samples (RivChart *self)
{
  g_return_val_if_fail (RIV_IS_CHART (self), 0);

  return self->n_samples;
}

guint
riv_chart_get_stride (RivChart *self)
{
  g_return_val_if_fail (RIV_IS_CHART (self), 0);

  return self->stride;
}

double
riv_chart_get_peak (RivChart *self,
                    guint     series)
{
  g_return_val_if_fail (RIV_IS_CHART (self), NAN);
  g_return_val_if_fail (series < self->n_series, NAN);

  return self->series[series].peak;
}

double
riv_chart_get_last (RivChart *self,
                    guint     series)
{
  const Point *p;

  g_return_val_if_fail (RIV_IS_CHART (self), NAN);
  g_return_val_if_fail (series < self->n_series, NAN);

  if (self->n_pending > 0)
    p = &self->pending;
  else if (self->points->len > 0)
    p = &g_array_index (self->points, Point, self->points->len - 1);
  else
    return NAN;
  return p->n[series] > 0 ? p->v[series] : NAN;
}

guint
riv_chart_get_n_bars (RivChart *self)
{
  g_return_val_if_fail (RIV_IS_CHART (self), 0);

  return self->bars != NULL ? self->bars->len : 0;
}
