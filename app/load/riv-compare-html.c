/* riv-compare-html.c
 * Copyright 2026 The Rivulet authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The page of two runs compared: a table per group (every endpoint, then
 * each) with A, B, the change and whether it is beyond noise; the group's
 * latency distributions drawn over each other; errors by class; thresholds;
 * how noise was judged. Self-contained like the load report (inline CSS and
 * SVG, no scripts).
 */
#include "config.h"

#include <math.h>
#include <string.h>

#include "riv-compare.h"
#include "riv-load-stats.h"
#include "riv-report-private.h"

#define COLOR_A "#3584e4"
#define COLOR_B "#e66100"
#define CDF_POINTS 100

static const char compare_style[] =
  "td.worse{color:#c01c28;font-weight:bold}td.better{color:#26a269;font-weight:bold}"
  "td.same{color:#5e5c64}";

static void
append_figure_value (GString                *out,
                     const RivCompareFigure *f,
                     guint                   run)
{
  char buf[64];

  g_string_append (out, "<td class=\"n\">");
  if (!f->known[run])
    g_string_append (out, "—");
  else if (strcmp (f->name, "error_rate") == 0)
    {
      riv_report_append_num (out, "%.2f", f->value[run] * 100);
      g_string_append (out, " %");
    }
  else
    {
      riv_report_format_value (buf, sizeof buf, f->value[run], f->unit);
      riv_report_append_escaped (out, buf);
    }
  g_string_append (out, "</td>");
}

/* The change, and the verdict: worse/better beyond noise, or within it. */
static void
append_change (GString                *out,
               const RivCompareFigure *f)
{
  double ratio;

  g_string_append (out, "<td class=\"n\">");
  if (strcmp (f->name, "error_rate") == 0 && f->known[0] && f->known[1])
    {
      riv_report_append_num (out, "%+.2f", (f->value[1] - f->value[0]) * 100);
      g_string_append (out, " points");
    }
  else if (riv_compare_figure_ratio (f, &ratio))
    {
      riv_report_append_num (out, "%+.1f", (ratio - 1) * 100);
      g_string_append (out, " %");
    }
  else
    g_string_append (out, "—");
  g_string_append (out, "</td>");

  if (!f->tested || !f->beyond_noise)
    g_string_append (out, "<td class=\"same\">");
  else
    g_string_append (out, g_str_has_prefix (riv_compare_figure_verdict (f), "worse")
                            ? "<td class=\"worse\">" : "<td class=\"better\">");
  g_string_append (out, riv_compare_figure_verdict (f));
  g_string_append (out, "</td>");
}

static void
append_cdf (GString    *out,
            RivCompare *compare,
            guint       group)
{
  const RivSketch *sketch[2] = { riv_compare_get_latencies (compare, group, 0),
                                 riv_compare_get_latencies (compare, group, 1) };
  double plot_w = CHART_W - PAD_LEFT - PAD_RIGHT;
  double plot_h = CHART_H - PAD_TOP - PAD_BOTTOM;
  double x_max = 0;

  if (riv_sketch_get_count (sketch[0]) == 0 && riv_sketch_get_count (sketch[1]) == 0)
    return;
  for (guint run = 0; run < 2; run++)
    x_max = MAX (x_max, riv_sketch_quantile (sketch[run], 0.999));
  x_max = riv_load_nice_ceiling (x_max > 0 ? x_max : 1);

  g_string_append (out, "<section class=\"chart\"><h2>Latency distribution</h2>\n"
                        "<div class=\"legend\">");
  g_string_append (out, "<span><i style=\"background:" COLOR_A "\"></i>A</span>"
                        "<span><i style=\"background:" COLOR_B "\"></i>B</span></div>\n");
  g_string_append_printf (out, "<svg xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 %d %d\" "
                          "role=\"img\" aria-label=\"Share of jobs finished by each latency, "
                          "A and B\">\n", (int) CHART_W, (int) CHART_H);
  riv_report_append_axes (out, 1, "", x_max, "s");
  for (guint run = 0; run < 2; run++)
    {
      if (riv_sketch_get_count (sketch[run]) == 0)
        continue;
      g_string_append_printf (out, "<path class=\"line\" data-series=\"%s\" stroke=\"%s\" d=\"",
                              run == 0 ? "A" : "B", run == 0 ? COLOR_A : COLOR_B);
      for (guint i = 0; i <= CDF_POINTS; i++)
        {
          double q = (double) i / CDF_POINTS;
          double v = MIN (riv_sketch_quantile (sketch[run], q), x_max);

          g_string_append_c (out, i == 0 ? 'M' : 'L');
          riv_report_append_num (out, "%.1f", PAD_LEFT + plot_w * v / x_max);
          g_string_append_c (out, ',');
          riv_report_append_num (out, "%.1f", PAD_TOP + plot_h - plot_h * q);
        }
      g_string_append (out, "\"/>\n");
    }
  g_string_append (out, "</svg></section>\n");
}

static void
append_group (GString    *out,
              RivCompare *compare,
              guint       group)
{
  const char *name = riv_compare_get_group_name (compare, group);
  guint n_figures = 0;
  const RivCompareFigure *figures = riv_compare_get_figures (compare, group, &n_figures);
  double p_slower, p_value;
  g_autoptr(GArray) errors = riv_compare_get_errors (compare, group);

  g_string_append (out, "<section class=\"table\"><h2>");
  riv_report_append_escaped (out, name != NULL ? name : "Every endpoint");
  g_string_append_printf (out, "</h2><div class=\"meta\">%" G_GUINT64_FORMAT " jobs in A, %"
                          G_GUINT64_FORMAT " in B</div>\n",
                          riv_compare_get_jobs (compare, group, 0),
                          riv_compare_get_jobs (compare, group, 1));
  g_string_append (out, "<table><tr><th>Figure</th><th>A</th><th>B</th><th>Change</th>"
                        "<th>Noise</th></tr>\n");
  for (guint i = 0; i < n_figures; i++)
    {
      g_string_append (out, "<tr data-figure=\"");
      g_string_append (out, figures[i].name);
      g_string_append (out, "\"><td>");
      g_string_append (out, figures[i].label);
      g_string_append (out, "</td>");
      append_figure_value (out, &figures[i], 0);
      append_figure_value (out, &figures[i], 1);
      append_change (out, &figures[i]);
      g_string_append (out, "</tr>\n");
    }
  g_string_append (out, "</table>\n");
  if (riv_compare_rank_test (compare, group, &p_slower, &p_value))
    {
      g_string_append (out, "<p>A job of B took longer than a job of A in ");
      riv_report_append_num (out, "%.0f", p_slower * 100);
      g_string_append (out, " % of pairs (job against job, p = ");
      riv_report_append_num (out, "%.2g", p_value);
      g_string_append (out, ").</p>\n");
    }
  if (errors->len > 0)
    {
      g_string_append (out, "<table><tr><th>Errors</th><th>A</th><th>B</th></tr>\n");
      for (guint i = 0; i < errors->len; i++)
        {
          const RivCompareError *e = &g_array_index (errors, RivCompareError, i);

          g_string_append (out, "<tr><td><code>");
          riv_report_append_escaped (out, e->text);
          g_string_append_printf (out, "</code></td><td class=\"n\">%" G_GUINT64_FORMAT
                                  "</td><td class=\"n\">%" G_GUINT64_FORMAT "</td></tr>\n",
                                  e->count[0], e->count[1]);
        }
      g_string_append (out, "</table>\n");
    }
  g_string_append (out, "</section>\n");
  append_cdf (out, compare, group);
}

static void
append_thresholds (GString                    *out,
                   RivCompareThreshold * const *thresholds,
                   const double               *measured,
                   const gboolean             *held,
                   guint                       n_thresholds)
{
  if (n_thresholds == 0)
    return;
  g_string_append (out, "<section class=\"table\"><h2>Thresholds</h2><table>\n");
  for (guint i = 0; i < n_thresholds; i++)
    {
      g_string_append (out, "<tr><td><code>");
      riv_report_append_escaped (out, riv_compare_threshold_get_text (thresholds[i]));
      g_string_append (out, "</code></td><td class=\"n\">");
      if (isnan (measured[i]))
        g_string_append (out, "not measured");
      else
        riv_report_append_num (out, "%.4g", measured[i]);
      g_string_append_printf (out, "</td><td class=\"%s\">%s</td></tr>\n",
                              held[i] ? "ok" : "fail", held[i] ? "held" : "failed");
    }
  g_string_append (out, "</table></section>\n");
}

char *
riv_compare_html (RivCompare                 *self,
                  const char                 *name_a,
                  const char                 *name_b,
                  RivCompareThreshold * const *thresholds,
                  const double               *measured,
                  const gboolean             *held,
                  guint                       n_thresholds)
{
  GString *out = g_string_new (NULL);
  g_autoptr(GDateTime) now = g_date_time_new_now_local ();
  g_autofree char *date = g_date_time_format (now, "%Y-%m-%d %H:%M:%S %Z");
  g_autofree char *method = NULL;

  g_return_val_if_fail (self != NULL, NULL);

  g_string_append (out, "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n"
                        "<meta name=\"viewport\" content=\"width=device-width\">\n"
                        "<title>Rivulet: two runs compared</title>\n<style>");
  g_string_append (out, riv_report_style);
  g_string_append (out, compare_style);
  g_string_append (out, "</style></head>\n<body><main>\n<h1>Two runs compared</h1>\n"
                        "<div class=\"meta\">A: <code>");
  riv_report_append_escaped (out, name_a);
  g_string_append (out, "</code> · B: <code>");
  riv_report_append_escaped (out, name_b);
  g_string_append (out, "</code><br>");
  riv_report_append_escaped (out, date);
  g_string_append (out, " · rivulet " PACKAGE_VERSION "</div>\n");

  append_thresholds (out, thresholds, measured, held, n_thresholds);
  for (guint i = 0; i < riv_compare_get_n_groups (self); i++)
    {
      /* One endpoint: its group says the same as every endpoint's. */
      if (i > 0 && riv_compare_get_n_groups (self) == 2)
        break;
      append_group (out, self, i);
    }
  method = riv_compare_describe_method (self);
  method[0] = g_ascii_toupper (method[0]);   /* a sentence of its own here */
  g_string_append (out, "<section class=\"table\"><h2>How noise is judged</h2><p>");
  riv_report_append_escaped (out, method);
  g_string_append (out, "</p></section>\n");
  g_string_append (out, "</main></body></html>\n");
  return g_string_free (out, FALSE);
}
