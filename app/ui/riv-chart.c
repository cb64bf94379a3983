/* riv-chart.c
 * Copyright 2026 The Rivulet authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Lines (or bars) drawn in snapshot(): grid and labels as render nodes, the
 * lines as one cairo node over at most `capacity` points.
 */
#include "config.h"

#include <glib/gi18n.h>
#include <math.h>

#include "riv-chart.h"
#include "riv-load-stats.h"

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
  GArray    *previous;    /* Point; nullable: the previous run's points, drawn dashed */
};

enum
{
  PROP_0,
  PROP_TITLE,
  PROP_UNIT,
  N_PROPS
};

G_DEFINE_FINAL_TYPE (RivChart, riv_chart, GTK_TYPE_WIDGET)

static GParamSpec *properties[N_PROPS];

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

/* Where and in which colours one snapshot draws. */
typedef struct
{
  double  w;       /* the plot area, right of the scale and above the labels */
  double  h;
  double  top;     /* the scale's top value */
  double  t0;      /* the time at the left edge (lines) … */
  double  span;    /* … and from there to the right edge, seconds */
  GdkRGBA fg;
  GdkRGBA dim;
  GdkRGBA grid;
} Plot;

/* The title, then a legend entry per series (lines only). */
static void
snapshot_title (RivChart    *self,
                GtkSnapshot *snapshot,
                const Plot  *plot)
{
  double legend_x;

  append_text (self, snapshot, self->title, 0, 0, 0, &plot->fg, &legend_x);
  legend_x += 16;
  for (guint s = 0; s < self->n_series && self->bars == NULL; s++)
    {
      double w;

      gtk_snapshot_append_color (snapshot, &self->series[s].color,
                                 &GRAPHENE_RECT_INIT ((float) legend_x, 6, 10, 10));
      append_text (self, snapshot, self->series[s].label, legend_x + 14, 0, 0, &plot->dim, &w);
      legend_x += 14 + w + 12;
    }
  if (self->bars == NULL && self->previous != NULL && self->previous->len > 0)
    {
      /* TRANSLATORS: the legend of a chart's dashed lines: the load test before this one */
      const char *previous = _("dashed: previous run");

      append_text (self, snapshot, previous, legend_x, 0, 0, &plot->dim, NULL);
    }
}

/* The top of the scale: the highest value kept, rounded up. */
static double
scale_top (RivChart *self,
           guint     n_points)
{
  double top = 0;

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
  for (guint i = 0; self->bars == NULL && self->previous != NULL && i < self->previous->len; i++)
    for (guint s = 0; s < self->n_series; s++)
      {
        const Point *p = &g_array_index (self->previous, Point, i);

        if (p->n[s] > 0)
          top = MAX (top, p->v[s]);
      }
  return riv_load_nice_ceiling (top);
}

static void
snapshot_grid (RivChart    *self,
               GtkSnapshot *snapshot,
               const Plot  *plot)
{
  for (guint g = 0; g <= GRID_LINES; g++)
    {
      double y = PAD_TOP + plot->h - plot->h * g / GRID_LINES;
      g_autofree char *label = format_value (plot->top * g / GRID_LINES, self->unit);

      append_hline (snapshot, PAD_LEFT, y, plot->w, &plot->grid);
      append_text (self, snapshot, label, PAD_LEFT - 6, y - 8, 1, &plot->dim, NULL);
    }
}

/* One bar per value, numbered below every so often. */
static void
snapshot_bars (RivChart    *self,
               GtkSnapshot *snapshot,
               const Plot  *plot)
{
  guint n = self->bars->len;
  double slot = plot->w / n;
  guint label_every = MAX ((guint) ceil (24.0 / slot), 1);

  for (guint i = 0; i < n; i++)
    {
      double value = g_array_index (self->bars, double, i);
      double h = plot->h * value / plot->top;

      gtk_snapshot_append_color (snapshot, &self->series[0].color,
                                 &GRAPHENE_RECT_INIT ((float) (PAD_LEFT + i * slot + slot * 0.15),
                                                      (float) (PAD_TOP + plot->h - h),
                                                      (float) MAX (slot * 0.7, 1), (float) h));
      if (i % label_every == 0)
        {
          g_autofree char *label = g_strdup_printf ("%u", self->first_label + i);

          append_text (self, snapshot, label, PAD_LEFT + (i + 0.5) * slot, PAD_TOP + plot->h + 1,
                       0.5, &plot->dim, NULL);
        }
    }
}

/* Series s as a path on cr: its line (fill FALSE), or the area under it
 * (fill TRUE), with a gap wherever nothing was measured. */
static void
trace_series (GArray     *points,
              cairo_t    *cr,
              const Plot *plot,
              guint       s,
              gboolean    fill)
{
  guint n = points->len;
  gboolean drawing = FALSE;
  double first_x = 0, last_x = 0;

  for (guint i = 0; i <= n; i++)
    {
      const Point *p = i < n ? &g_array_index (points, Point, i) : NULL;
      double x, y;

      if (p == NULL || p->n[s] == 0)
        {
          if (drawing && fill)
            {
              cairo_line_to (cr, last_x, PAD_TOP + plot->h);
              cairo_line_to (cr, first_x, PAD_TOP + plot->h);
              cairo_close_path (cr);
            }
          drawing = FALSE;
          continue;
        }
      x = PAD_LEFT + plot->w * (p->t - plot->t0) / plot->span;
      y = PAD_TOP + plot->h - plot->h * p->v[s] / plot->top;
      if (!drawing && !fill && (i + 1 == n || g_array_index (points, Point, i + 1).n[s] == 0))
        {
          /* A point that stands alone (a second in which jobs finished,
           * between seconds in which none did) is a dot, not nothing. */
          /* Two rings stroked at the line's width make a solid dot. */
          cairo_new_sub_path (cr);
          cairo_arc (cr, x, y, 2.0, 0, 2 * G_PI);
          cairo_new_sub_path (cr);
          cairo_arc (cr, x, y, 0.8, 0, 2 * G_PI);
          continue;
        }
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
}

/* Each series as a line over a light shade, the previous run's (if kept)
 * dashed and fainter behind, and the time span below. Both runs start at
 * the left edge: the previous run's time is its own. */
static void
snapshot_lines (RivChart    *self,
                GtkSnapshot *snapshot,
                Plot        *plot)
{
  GArray *runs[2] = { self->previous, self->points };
  double t_last = 0;
  g_autofree char *left = NULL;
  g_autofree char *right = NULL;
  graphene_rect_t bounds = GRAPHENE_RECT_INIT ((float) PAD_LEFT, (float) PAD_TOP - 2,
                                               (float) plot->w, (float) plot->h + 4);
  cairo_t *cr;

  plot->t0 = INFINITY;
  for (guint r = 0; r < 2; r++)
    if (runs[r] != NULL && runs[r]->len > 0)
      {
        plot->t0 = MIN (plot->t0, g_array_index (runs[r], Point, 0).t);
        t_last = MAX (t_last, g_array_index (runs[r], Point, runs[r]->len - 1).t);
      }
  plot->span = MAX (t_last - plot->t0, 1e-6);
  left = g_strdup_printf ("%.0f s", plot->t0);
  right = g_strdup_printf ("%.0f s", t_last);

  cr = gtk_snapshot_append_cairo (snapshot, &bounds);
  cairo_set_line_join (cr, CAIRO_LINE_JOIN_ROUND);
  for (guint r = 0; r < 2; r++)
    {
      static const double dash[] = { 4, 3 };

      if (runs[r] == NULL || runs[r]->len == 0)
        continue;
      cairo_set_line_width (cr, r == 0 ? 1.0 : 1.5);
      cairo_set_dash (cr, dash, r == 0 ? 2 : 0, 0);
      for (guint s = 0; s < self->n_series; s++)
        {
          GdkRGBA color = self->series[s].color;
          GdkRGBA shade = color;

          shade.alpha = 0.12f;
          if (r == 1)
            {
              trace_series (runs[r], cr, plot, s, TRUE);
              gdk_cairo_set_source_rgba (cr, &shade);
              cairo_fill (cr);
            }
          else
            color.alpha = 0.55f;
          trace_series (runs[r], cr, plot, s, FALSE);
          gdk_cairo_set_source_rgba (cr, &color);
          cairo_stroke (cr);
        }
    }
  cairo_destroy (cr);

  append_text (self, snapshot, left, PAD_LEFT, PAD_TOP + plot->h + 1, 0, &plot->dim, NULL);
  append_text (self, snapshot, right, PAD_LEFT + plot->w, PAD_TOP + plot->h + 1, 1, &plot->dim, NULL);
}

static void
riv_chart_snapshot (GtkWidget   *widget,
                    GtkSnapshot *snapshot)
{
  RivChart *self = RIV_CHART (widget);
  guint n_points = self->bars != NULL ? self->bars->len : self->points->len;
  Plot plot = {
    .w = gtk_widget_get_width (widget) - PAD_LEFT - PAD_RIGHT,
    .h = gtk_widget_get_height (widget) - PAD_TOP - PAD_BOTTOM,
  };

  if (plot.w < 10 || plot.h < 10)
    return;

  get_fg (self, &plot.fg);
  plot.dim = plot.fg;
  plot.dim.alpha *= 0.6f;
  plot.grid = plot.fg;
  plot.grid.alpha *= 0.12f;
  plot.top = scale_top (self, n_points);

  snapshot_title (self, snapshot, &plot);
  snapshot_grid (self, snapshot, &plot);
  if (self->bars != NULL && n_points > 0)
    snapshot_bars (self, snapshot, &plot);
  else if (self->bars == NULL &&
           (n_points > 0 || (self->previous != NULL && self->previous->len > 0)))
    snapshot_lines (self, snapshot, &plot);
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
  g_clear_pointer (&RIV_CHART (object)->previous, g_array_unref);
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
riv_chart_get_property (GObject    *object,
                        guint       prop_id,
                        GValue     *value,
                        GParamSpec *pspec)
{
  RivChart *self = RIV_CHART (object);

  switch (prop_id)
    {
    case PROP_TITLE:
      g_value_set_string (value, self->title);
      break;
    case PROP_UNIT:
      g_value_set_string (value, self->unit);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
riv_chart_set_property (GObject      *object,
                        guint         prop_id,
                        const GValue *value,
                        GParamSpec   *pspec)
{
  RivChart *self = RIV_CHART (object);

  switch (prop_id)
    {
    case PROP_TITLE:
      g_free (self->title);
      self->title = g_strdup (g_value_get_string (value) != NULL ? g_value_get_string (value) : "");
      gtk_accessible_update_property (GTK_ACCESSIBLE (self),
                                      GTK_ACCESSIBLE_PROPERTY_LABEL, self->title, -1);
      break;
    case PROP_UNIT:
      g_free (self->unit);
      self->unit = g_value_dup_string (value);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
riv_chart_class_init (RivChartClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->finalize = riv_chart_finalize;
  object_class->get_property = riv_chart_get_property;
  object_class->set_property = riv_chart_set_property;
  widget_class->snapshot = riv_chart_snapshot;
  widget_class->measure = riv_chart_measure;
  gtk_widget_class_set_css_name (widget_class, "rivchart");
  gtk_widget_class_set_accessible_role (widget_class, GTK_ACCESSIBLE_ROLE_IMG);

  /* Both construct-only: a template names a chart's title (translatable) and unit. */
  properties[PROP_TITLE] =
    g_param_spec_string ("title", NULL, NULL, NULL,
                         G_PARAM_READWRITE | G_PARAM_CONSTRUCT_ONLY | G_PARAM_STATIC_STRINGS);
  properties[PROP_UNIT] =
    g_param_spec_string ("unit", NULL, NULL, NULL,
                         G_PARAM_READWRITE | G_PARAM_CONSTRUCT_ONLY | G_PARAM_STATIC_STRINGS);
  g_object_class_install_properties (object_class, N_PROPS, properties);
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
  return g_object_new (RIV_TYPE_CHART, "title", title, "unit", unit, NULL);
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

void
riv_chart_clear_to_previous (RivChart *self)
{
  g_return_if_fail (RIV_IS_CHART (self));

  if (self->bars == NULL && self->points->len > 0)
    {
      g_clear_pointer (&self->previous, g_array_unref);
      self->previous = g_array_copy (self->points);
    }
  riv_chart_clear (self);
}

guint
riv_chart_get_n_previous (RivChart *self)
{
  g_return_val_if_fail (RIV_IS_CHART (self), 0);

  return self->previous != NULL ? self->previous->len : 0;
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
