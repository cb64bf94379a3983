/* riv-report.c
 * Copyright 2026 The Rivulet authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "config.h"

#include <math.h>
#include <string.h>

#include "riv-report.h"
#include "riv-report-private.h"

#define MAX_POINTS    600     /* a line never has more points than this, however long the run */
#define LATENCY_BINS  40
#define GAP_BINS_PER_DECADE 5
#define GAP_BINS_MAX  40

typedef struct
{
  const char   *name;
  const char   *color;
  const double *values;     /* n of them; < 0 means no value */
} Series;

/* Numbers in SVG and CSS must never follow the locale. */
void
riv_report_append_num (GString    *out,
                       const char *format,
                       double      value)
{
  char buf[G_ASCII_DTOSTR_BUF_SIZE];

  g_string_append (out, g_ascii_formatd (buf, sizeof buf, format, value));
}

void
riv_report_append_escaped (GString    *out,
                           const char *text)
{
  g_autofree char *escaped = g_markup_escape_text (text != NULL ? text : "", -1);

  g_string_append (out, escaped);
}

void
riv_report_format_value (char       *buf,
                         gsize       size,
                         double      value,
                         const char *unit)
{
  char num[G_ASCII_DTOSTR_BUF_SIZE];

  if (strcmp (unit, "s") == 0 && value > 0 && value < 1)
    g_snprintf (buf, size, "%s ms", g_ascii_formatd (num, sizeof num, "%.0f", value * 1000));
  else if (value >= 10000)
    g_snprintf (buf, size, "%sk%s%s", g_ascii_formatd (num, sizeof num, "%.0f", value / 1000),
                *unit ? " " : "", unit);
  else
    g_snprintf (buf, size, "%s%s%s", g_ascii_formatd (num, sizeof num, "%.4g", value),
                *unit ? " " : "", unit);
}

/* Horizontal grid lines with their labels, 0 to y_max. */
static void
append_y_grid (GString    *out,
               double      y_max,
               const char *y_unit)
{
  double plot_h = CHART_H - PAD_TOP - PAD_BOTTOM;

  for (int i = 0; i <= 4; i++)
    {
      double y = PAD_TOP + plot_h - plot_h * i / 4;
      char label[64];

      riv_report_format_value (label, sizeof label, y_max * i / 4, y_unit);
      g_string_append (out, "<line class=\"grid\" x1=\"");
      riv_report_append_num (out, "%.1f", PAD_LEFT);
      g_string_append (out, "\" x2=\"");
      riv_report_append_num (out, "%.1f", CHART_W - PAD_RIGHT);
      g_string_append (out, "\" y1=\"");
      riv_report_append_num (out, "%.1f", y);
      g_string_append (out, "\" y2=\"");
      riv_report_append_num (out, "%.1f", y);
      g_string_append (out, "\"/><text class=\"ylabel\" x=\"");
      riv_report_append_num (out, "%.1f", PAD_LEFT - 6);
      g_string_append (out, "\" y=\"");
      riv_report_append_num (out, "%.1f", y + 4);
      g_string_append_printf (out, "\">%s</text>\n", label);
    }
}

void
riv_report_append_axes (GString    *out,
                        double      y_max,
                        const char *y_unit,
                        double      x_max,
                        const char *x_unit)
{
  double plot_w = CHART_W - PAD_LEFT - PAD_RIGHT;

  append_y_grid (out, y_max, y_unit);
  for (int i = 0; i <= 5; i++)
    {
      double x = PAD_LEFT + plot_w * i / 5;
      char label[64];

      riv_report_format_value (label, sizeof label, x_max * i / 5, x_unit);
      g_string_append (out, "<text class=\"xlabel\" x=\"");
      riv_report_append_num (out, "%.1f", x);
      g_string_append (out, "\" y=\"");
      riv_report_append_num (out, "%.1f", CHART_H - 8);
      g_string_append_printf (out, "\">%s</text>\n", label);
    }
}

/* A line chart of per-second series. Long runs are averaged down to
 * MAX_POINTS buckets so the page stays small. */
static void
append_line_chart (GString      *out,
                   const char   *id,
                   const char   *title,
                   const char   *y_unit,
                   const Series *series,
                   guint         n_series,
                   guint         n)
{
  double plot_w = CHART_W - PAD_LEFT - PAD_RIGHT;
  double plot_h = CHART_H - PAD_TOP - PAD_BOTTOM;
  guint n_points = MIN (n, MAX_POINTS);
  double y_max = 0;
  g_autofree double *points = g_new (double, (gsize) n_series * MAX (n_points, 1));

  for (guint s = 0; s < n_series; s++)
    for (guint p = 0; p < n_points; p++)
      {
        guint from = (guint) ((guint64) p * n / n_points);
        guint to = (guint) ((guint64) (p + 1) * n / n_points);
        double sum = 0;
        guint count = 0;

        for (guint k = from; k < to; k++)
          if (series[s].values[k] >= 0)
            {
              sum += series[s].values[k];
              count++;
            }
        points[s * n_points + p] = count > 0 ? sum / count : -1;
        y_max = MAX (y_max, points[s * n_points + p]);
      }
  y_max = riv_load_nice_ceiling (y_max);

  g_string_append_printf (out, "<section class=\"chart\" id=\"%s\"><h2>%s</h2>\n", id, title);
  g_string_append (out, "<div class=\"legend\">");
  for (guint s = 0; s < n_series; s++)
    g_string_append_printf (out, "<span><i style=\"background:%s\"></i>%s</span>",
                            series[s].color, series[s].name);
  g_string_append (out, "</div>\n");
  g_string_append_printf (out, "<svg xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 %d %d\" "
                          "role=\"img\" aria-label=\"%s\">\n",
                          (int) CHART_W, (int) CHART_H, title);
  riv_report_append_axes (out, y_max, y_unit, MAX (n, 2) - 1, "s");   /* point p is second p */

  for (guint s = 0; s < n_series; s++)
    {
      gboolean pen_down = FALSE;

      g_string_append_printf (out, "<path class=\"line\" data-series=\"%s\" stroke=\"%s\" d=\"",
                              series[s].name, series[s].color);
      for (guint p = 0; p < n_points; p++)
        {
          double v = points[s * n_points + p];
          double x, y;

          if (v < 0)
            {
              pen_down = FALSE;
              continue;
            }
          x = PAD_LEFT + (n_points > 1 ? plot_w * p / (n_points - 1) : plot_w / 2);
          y = PAD_TOP + plot_h - plot_h * v / y_max;
          g_string_append_c (out, pen_down ? 'L' : 'M');
          riv_report_append_num (out, "%.1f", x);
          g_string_append_c (out, ',');
          riv_report_append_num (out, "%.1f", y);
          /* A second that stands alone is a dot (a zero-length segment
           * with round caps), not nothing. */
          if (!pen_down && (p + 1 == n_points || points[s * n_points + p + 1] < 0))
            g_string_append (out, "l0,0");
          pen_down = TRUE;
        }
      g_string_append (out, "\"/>\n");
    }
  g_string_append (out, "</svg></section>\n");
}

static void
append_bar_chart (GString      *out,
                  const char   *id,
                  const char   *title,
                  const char   *x_unit,
                  const double *edges,    /* n + 1 of them */
                  const guint64 *counts,
                  guint         n,
                  const char   *color)
{
  double plot_w = CHART_W - PAD_LEFT - PAD_RIGHT;
  double plot_h = CHART_H - PAD_TOP - PAD_BOTTOM;
  guint64 top = 0;
  double y_max;

  for (guint i = 0; i < n; i++)
    top = MAX (top, counts[i]);
  y_max = riv_load_nice_ceiling (top);

  g_string_append_printf (out, "<section class=\"chart\" id=\"%s\"><h2>%s</h2>\n", id, title);
  g_string_append_printf (out, "<svg xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 %d %d\" "
                          "role=\"img\" aria-label=\"%s\">\n",
                          (int) CHART_W, (int) CHART_H, title);
  append_y_grid (out, y_max, "");

  for (guint i = 0; i < n; i++)
    {
      double w = plot_w / MAX (n, 1);
      double h = plot_h * counts[i] / y_max;
      double x = PAD_LEFT + w * i;
      char label[64];

      if (counts[i] > 0)
        {
          g_string_append_printf (out, "<rect class=\"bar\" fill=\"%s\" x=\"", color);
          riv_report_append_num (out, "%.2f", x + w * 0.1);
          g_string_append (out, "\" y=\"");
          riv_report_append_num (out, "%.2f", PAD_TOP + plot_h - h);
          g_string_append (out, "\" width=\"");
          riv_report_append_num (out, "%.2f", w * 0.8);
          g_string_append (out, "\" height=\"");
          riv_report_append_num (out, "%.2f", h);
          g_string_append_printf (out, "\"><title>%" G_GUINT64_FORMAT "</title></rect>\n",
                                  counts[i]);
        }
      /* At most about twelve labels along the axis. */
      if (n <= 12 || i % ((n + 11) / 12) == 0)
        {
          riv_report_format_value (label, sizeof label, edges[i], x_unit);
          g_string_append (out, "<text class=\"xlabel\" x=\"");
          riv_report_append_num (out, "%.1f", x + (edges[i + 1] - edges[i] == 1 ? w / 2 : 0));
          g_string_append (out, "\" y=\"");
          riv_report_append_num (out, "%.1f", CHART_H - 8);
          g_string_append_printf (out, "\">%s</text>\n", label);
        }
    }
  g_string_append (out, "</svg></section>\n");
}

static void
append_tile (GString    *out,
             const char *label,
             const char *value,
             const char *klass)
{
  g_string_append_printf (out, "<div class=\"tile %s\"><b>%s</b><span>%s</span></div>\n",
                          klass, value, label);
}

const char riv_report_style[] =
  "body{font:14px/1.45 Cantarell,'Noto Sans',system-ui,sans-serif;margin:0;background:#fafafb;"
  "color:#241f31}main{max-width:800px;margin:0 auto;padding:24px}"
  "h1{font-size:24px;margin:0 0 4px}h2{font-size:16px;margin:0 0 6px}"
  ".meta{color:#5e5c64;margin-bottom:16px}"
  ".tiles{display:flex;flex-wrap:wrap;gap:8px;margin-bottom:16px}"
  ".tile{background:#fff;border:1px solid #deddda;border-radius:8px;padding:8px 12px;min-width:88px}"
  ".tile b{display:block;font-size:20px}.tile span{color:#5e5c64;font-size:12px}"
  ".tile.bad b{color:#c01c28}.tile.good b{color:#26a269}"
  ".chart,.table{background:#fff;border:1px solid #deddda;border-radius:8px;padding:12px;"
  "margin-bottom:16px}svg{width:100%;height:auto;display:block}"
  ".grid{stroke:#deddda;stroke-width:1}"
  ".line{fill:none;stroke-width:2;stroke-linejoin:round;stroke-linecap:round}"
  ".ylabel{font-size:11px;fill:#5e5c64;text-anchor:end}"
  ".xlabel{font-size:11px;fill:#5e5c64;text-anchor:middle}"
  ".legend span{margin-right:14px;font-size:12px}.legend i,th i{display:inline-block;width:10px;"
  "height:10px;border-radius:2px;margin-right:4px}"
  "table{border-collapse:collapse;width:100%}td,th{text-align:left;padding:3px 6px;"
  "border-bottom:1px solid #eeeeec;vertical-align:top}td.n{text-align:right;white-space:nowrap}"
  "td.ok{color:#26a269}td.fail{color:#c01c28}code{word-break:break-all}";

/* Uploads, cache answers and the client/server split of latency, when the run had any. */
static void
append_client_server (GString              *out,
                      const RivLoadSummary *s)
{
  char buf[64];

  if (s->uploads == 0 && s->cached == 0 && s->server_timed == 0)
    return;
  g_string_append (out, "<section class=\"table\" id=\"client-server\">"
                        "<h2>Uploads, cache and the server's time</h2><table>\n");
  if (s->uploads > 0)
    {
      g_string_append_printf (out, "<tr><th>jobs that sent files</th><td class=\"n\">%"
                              G_GUINT64_FORMAT "</td></tr>\n", s->uploads);
      riv_report_format_value (buf, sizeof buf, s->upload_mean, "s");
      g_string_append_printf (out, "<tr><th>upload, mean</th><td class=\"n\">%s</td></tr>\n", buf);
      riv_report_format_value (buf, sizeof buf, s->upload_max, "s");
      g_string_append_printf (out, "<tr><th>upload, max</th><td class=\"n\">%s</td></tr>\n", buf);
    }
  if (s->cached > 0)
    g_string_append_printf (out, "<tr><th>answered from the server's cache</th>"
                            "<td class=\"n\">%" G_GUINT64_FORMAT "</td></tr>\n", s->cached);
  if (s->server_timed > 0)
    {
      double total = s->server_mean + MAX (s->rest_mean, 0);
      double share = total > 0 ? s->server_mean / total : 1;

      g_string_append_printf (out, "<tr><th>jobs timed by the server</th><td class=\"n\">%"
                              G_GUINT64_FORMAT "</td></tr>\n", s->server_timed);
      riv_report_format_value (buf, sizeof buf, s->server_p50, "s");
      g_string_append_printf (out, "<tr><th>server (queue wait + processing), p50</th>"
                              "<td class=\"n\">%s</td></tr>\n", buf);
      riv_report_format_value (buf, sizeof buf, s->rest_p50, "s");
      g_string_append_printf (out, "<tr><th>network + client (latency − server), p50</th>"
                              "<td class=\"n\">%s</td></tr>\n", buf);
      g_string_append_printf (out, "</table>\n<svg role=\"img\" viewBox=\"0 0 600 24\" width=\"600\" "
                              "height=\"24\"><title>mean latency: server %.0f%%, network + client "
                              "%.0f%%</title><rect width=\"%.1f\" height=\"24\" fill=\"#1c71d8\"/>"
                              "<rect x=\"%.1f\" width=\"%.1f\" height=\"24\" fill=\"#e5a50a\"/></svg>\n"
                              "<p>Mean latency: server (blue) %.0f%%, network + client (yellow) %.0f%%.</p>"
                              "</section>\n", share * 100, (1 - share) * 100, share * 600, share * 600,
                              (1 - share) * 600, share * 100, (1 - share) * 100);
      return;
    }
  g_string_append (out, "</table></section>\n");
}

/* The page's head and title line: when, which server, which rivulet. */
static void
append_head (GString    *out,
             const char *server_version)
{
  g_autoptr(GDateTime) now = g_date_time_new_now_local ();
  g_autofree char *date = g_date_time_format (now, "%Y-%m-%d %H:%M:%S %Z");

  g_string_append (out, "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n"
                        "<meta name=\"viewport\" content=\"width=device-width\">\n"
                        "<title>Rivulet load report</title>\n<style>");
  g_string_append (out, riv_report_style);
  g_string_append (out, "</style></head>\n<body><main>\n<h1>Rivulet load report</h1>\n"
                        "<div class=\"meta\">");
  riv_report_append_escaped (out, date);
  g_string_append (out, " · server ");
  riv_report_append_escaped (out, server_version != NULL ? server_version : "version unknown");
  g_string_append (out, " · rivulet " PACKAGE_VERSION "</div>\n");
}

/* The outcome counts, throughput, latency percentiles and duration. */
static void
append_tiles (GString              *out,
              const RivLoadSummary *s)
{
  char buf[128];

  g_string_append (out, "<div class=\"tiles\">\n");
#define TILE(label, klass, ...) \
  G_STMT_START { \
    g_snprintf (buf, sizeof buf, __VA_ARGS__); \
    append_tile (out, label, buf, klass); \
  } G_STMT_END
  TILE ("submitted", "", "%" G_GUINT64_FORMAT, s->submitted);
  TILE ("completed", s->completed == s->submitted ? "good" : "", "%" G_GUINT64_FORMAT,
        s->completed);
  TILE ("failed", s->failed > 0 ? "bad" : "", "%" G_GUINT64_FORMAT, s->failed);
  TILE ("cancelled", "", "%" G_GUINT64_FORMAT, s->cancelled);
  TILE ("lost", s->lost > 0 ? "bad" : "", "%" G_GUINT64_FORMAT, s->lost);
  TILE ("users (peak)", "", "%u", s->users);
#undef TILE
  riv_report_format_value (buf, sizeof buf, s->throughput_per_s, "/s");
  append_tile (out, "throughput", buf, "");
  riv_report_format_value (buf, sizeof buf, s->p50, "s");
  append_tile (out, "latency p50", buf, "");
  riv_report_format_value (buf, sizeof buf, s->p95, "s");
  append_tile (out, "latency p95", buf, "");
  riv_report_format_value (buf, sizeof buf, s->p99, "s");
  append_tile (out, "latency p99", buf, "");
  if (s->first_n > 0)
    {
      riv_report_format_value (buf, sizeof buf, s->first_p95, "s");
      append_tile (out, "first update p95", buf, "");
    }
  if (s->streamed > 0)
    {
      riv_report_format_value (buf, sizeof buf, s->gap_p99, "s");
      append_tile (out, "gap p99", buf, "");
      g_snprintf (buf, sizeof buf, "%" G_GUINT64_FORMAT, s->stalls);
      append_tile (out, "stalls", buf, s->stalls > 0 ? "bad" : "good");
    }
  riv_report_format_value (buf, sizeof buf, s->duration_s, "s");
  append_tile (out, "duration", buf, "");
  g_string_append (out, "</div>\n");
}

/* Each threshold, passed or failed, with what was measured (on the jobs its
 * tag names, when the input says which). */
static void
append_thresholds (GString              *out,
                   const RivLoadSummary *s,
                   const RivReportInput *in)
{
  if (in->n_thresholds == 0)
    return;
  g_string_append (out, "<section class=\"table\" id=\"thresholds\"><h2>Thresholds</h2>"
                        "<table><tr><th></th><th>threshold</th><th>measured</th></tr>\n");
  for (guint i = 0; i < in->n_thresholds; i++)
    {
      RivLoadThreshold *threshold = in->thresholds[i];
      RivLoadStats *tagged = in->threshold_stats != NULL ? in->threshold_stats[i] : NULL;
      RivLoadSummary own;
      double measured;
      gboolean ok;
      g_autofree char *value = NULL;

      if (tagged != NULL)
        riv_load_stats_summarize (tagged, &own);
      ok = riv_load_threshold_check (threshold, tagged != NULL ? &own : s, &measured);
      value = riv_load_threshold_format_value (threshold, measured);
      g_string_append_printf (out, "<tr><td class=\"%s\">%s</td><td><code>",
                              ok ? "ok" : "fail", ok ? "✓ passed" : "✗ failed");
      riv_report_append_escaped (out, riv_load_threshold_get_text (threshold));
      g_string_append_printf (out, "</code></td><td class=\"n\">%s</td></tr>\n", value);
    }
  g_string_append (out, "</table></section>\n");
}

/* The line charts over the run's seconds: throughput, latency, in flight
 * and queued, users, updates. */
static void
append_time_charts (GString *out,
                    GArray  *series)
{
  guint n = series->len;
  g_autofree double *started = g_new (double, n);
  g_autofree double *completed = g_new (double, n);
  g_autofree double *failed = g_new (double, n);
  g_autofree double *p50 = g_new (double, n);
  g_autofree double *p95 = g_new (double, n);
  g_autofree double *p99 = g_new (double, n);
  g_autofree double *in_flight = g_new (double, n);
  g_autofree double *queued = g_new (double, n);
  g_autofree double *users = g_new (double, n);
  g_autofree double *updates = g_new (double, n);
  g_autofree double *first_p50 = g_new (double, n);
  g_autofree double *first_p95 = g_new (double, n);
  g_autofree double *stalls = g_new (double, n);
  gboolean any_first = FALSE, any_stall = FALSE;

  for (guint i = 0; i < n; i++)
    {
      const RivLoadSample *x = &g_array_index (series, RivLoadSample, i);

      started[i] = x->started;
      completed[i] = x->completed;
      failed[i] = x->failed + x->lost;
      p50[i] = x->p50;
      p95[i] = x->p95;
      p99[i] = x->p99;
      in_flight[i] = x->in_flight;
      queued[i] = x->queued;
      users[i] = x->users;
      updates[i] = x->updates_per_s;
      first_p50[i] = x->first_p50;
      first_p95[i] = x->first_p95;
      stalls[i] = x->stalls;
      any_first = any_first || x->first_p50 >= 0;
      any_stall = any_stall || x->stalls > 0;
    }

  {
    const Series lines[] = {
      { "completed/s", "#26a269", completed },
      { "submitted/s", "#3584e4", started },
      { "failed or lost/s", "#e01b24", failed },
    };
    append_line_chart (out, "throughput", "Throughput (jobs per second)", "", lines, 3, n);
  }
  {
    const Series lines[] = {
      { "p50", "#3584e4", p50 },
      { "p95", "#ff7800", p95 },
      { "p99", "#e01b24", p99 },
    };
    append_line_chart (out, "latency", "Latency of the jobs completed each second "
                       "(submit to end)", "s", lines, 3, n);
  }
  if (any_first)
    {
      const Series lines[] = {
        { "p50", "#3584e4", first_p50 },
        { "p95", "#ff7800", first_p95 },
      };
      append_line_chart (out, "first-update", "Time to first update of the jobs completed "
                         "each second (submit to their first output)", "s", lines, 2, n);
    }
  if (any_stall)
    {
      const Series lines[] = {
        { "stalls", "#e01b24", stalls },
      };
      append_line_chart (out, "stalls", "Stalls (gaps over the stall limit) of the jobs that "
                         "ended each second", "", lines, 1, n);
    }
  {
    const Series lines[] = {
      { "in flight", "#9141ac", in_flight },
      { "queued (not started)", "#ff7800", queued },
    };
    append_line_chart (out, "inflight", "Jobs in flight and queued", "", lines, 2, n);
  }
  {
    const Series lines[] = {
      { "active users", "#3584e4", users },
    };
    append_line_chart (out, "users", "Virtual users", "", lines, 1, n);
  }
  {
    const Series lines[] = {
      { "updates/s", "#1c71d8", updates },
    };
    append_line_chart (out, "updates", "Streamed updates per second", "", lines, 1, n);
  }
}

/* The completed jobs' latencies in LATENCY_BINS bars, when there are any. */
typedef struct
{
  double   width;
  guint64 *counts;
} LatencyBins;

static gboolean
count_latency_bucket (guint64  start_us,
                      guint64  count,
                      gpointer user_data)
{
  LatencyBins *bins = user_data;
  double value = (double) start_us / G_USEC_PER_SEC;

  bins->counts[MIN ((guint) (value / bins->width), LATENCY_BINS - 1)] += count;
  return TRUE;
}

/* The completed jobs' latencies in LATENCY_BINS bars, when there are any
 * (each of the sketch's buckets in the bar that holds its first value). */
static void
append_latency_histogram (GString      *out,
                          RivLoadStats *stats)
{
  const RivSketch *latencies = riv_load_stats_get_latencies (stats);
  double top;
  double edges[LATENCY_BINS + 1];
  guint64 counts[LATENCY_BINS] = { 0 };
  LatencyBins bins = { 0, counts };

  if (riv_sketch_get_count (latencies) == 0)
    return;
  /* Up to the 99.9th percentile, so one straggler does not squash the rest. */
  top = riv_sketch_quantile (latencies, 0.999);
  bins.width = riv_load_nice_ceiling (MAX (top, 1e-3) / LATENCY_BINS);
  for (guint i = 0; i <= LATENCY_BINS; i++)
    edges[i] = bins.width * i;
  riv_sketch_foreach (latencies, count_latency_bucket, &bins);
  append_bar_chart (out, "latency-histogram", "Latency histogram (completed jobs; the "
                    "last bar holds the slowest)", "s", edges, counts, LATENCY_BINS,
                    "#3584e4");
}

typedef struct
{
  double   low;        /* the first bin's lower edge, seconds */
  guint64 *counts;     /* GAP_BINS_MAX */
  guint    n;          /* bins in use */
} GapBins;

static gboolean
add_gap_bucket (guint64  start_us,
                guint64  count,
                gpointer user_data)
{
  GapBins *bins = user_data;
  double v = MAX ((double) start_us / G_USEC_PER_SEC, bins->low);
  guint bin = (guint) floor (log10 (v / bins->low) * GAP_BINS_PER_DECADE);

  bin = MIN (bin, GAP_BINS_MAX - 1);
  bins->counts[bin] += count;
  bins->n = MAX (bins->n, bin + 1);
  return TRUE;
}

/* The gaps between streamed updates, pooled, in bins of equal width on a
 * log axis (GAP_BINS_PER_DECADE a decade), from the decade of the shortest. */
static void
append_gap_histogram (GString      *out,
                      RivLoadStats *stats)
{
  const RivSketch *gaps = riv_load_stats_get_gaps (stats);
  guint64 counts[GAP_BINS_MAX] = { 0 };
  GapBins bins = { 0, counts, 0 };
  double edges[GAP_BINS_MAX + 1];

  if (riv_sketch_get_count (gaps) == 0)
    return;
  bins.low = pow (10, floor (log10 (MAX (riv_sketch_get_min (gaps), 1e-4))));
  riv_sketch_foreach (gaps, add_gap_bucket, &bins);
  for (guint i = 0; i <= bins.n; i++)
    edges[i] = bins.low * pow (10, (double) i / GAP_BINS_PER_DECADE);
  append_bar_chart (out, "gap-histogram", "Gaps between streamed updates (log axis: each "
                    "bar a fifth of a decade)", "s", edges, counts, bins.n, "#ff7800");
}

static void
append_stamp_row (GString    *out,
                  const char *label,
                  double      p50,
                  double      p99,
                  double      max)
{
  const double values[] = { p50, p99, max };

  g_string_append_printf (out, "<tr><th>%s</th>", label);
  for (guint i = 0; i < G_N_ELEMENTS (values); i++)
    {
      char buf[64];

      riv_report_format_value (buf, sizeof buf, values[i], "s");
      g_string_append_printf (out, "<td class=\"n\">%s</td>", buf);
    }
  g_string_append (out, "</tr>\n");
}

/* The server's send stamps, when it sent them: its gaps beside the client's
 * delay. */
static void
append_stamps (GString              *out,
               const RivLoadSummary *s)
{
  if (s->stamped == 0)
    return;
  g_string_append (out, "<section class=\"table\" id=\"stamps\"><h2>Server stamps</h2>"
                        "<table><tr><th></th><th>p50</th><th>p99</th><th>max</th></tr>\n");
  append_stamp_row (out, "made to written, in the server", s->hold_p50, s->hold_p99, s->hold_max);
  append_stamp_row (out, "written to Rivulet's handling", s->delay_p50, s->delay_p99,
                    s->delay_max);
  append_stamp_row (out, "gaps as the server wrote", s->sent_gap_p50, s->sent_gap_p99,
                    s->sent_gap_max);
  append_stamp_row (out, "gaps as Rivulet saw", s->gap_p50, s->gap_p99, s->gap_max);
  g_string_append_printf (out, "</table><p>%" G_GUINT64_FORMAT " updates stamped; %"
                          G_GUINT64_FORMAT " jobs arrived in a clump.</p></section>\n",
                          s->stamped, s->clumped);
}

/* How many batches of each size, when the server batched. */
static void
append_batch_histogram (GString      *out,
                        RivLoadStats *stats)
{
  guint max_size = 0;
  g_autofree guint64 *batch_counts = riv_load_stats_batch_sizes (stats, &max_size);
  g_autofree double *edges = NULL;

  if (max_size == 0)
    return;
  edges = g_new (double, max_size + 1);
  for (guint i = 0; i <= max_size; i++)
    edges[i] = i + 1;
  append_bar_chart (out, "batch-histogram", "Batch sizes (batches of each size)", "",
                    edges, batch_counts + 1, max_size, "#9141ac");
}

/* The errors, grouped by text. */
static void
append_errors (GString *out,
               GArray  *errors)
{
  g_string_append (out, "<section class=\"table\" id=\"errors\"><h2>Errors</h2>\n");
  if (errors->len == 0)
    g_string_append (out, "<p>No job failed or was lost.</p>\n");
  else
    {
      g_string_append (out, "<table><tr><th>jobs</th><th>error</th></tr>\n");
      for (guint i = 0; i < errors->len; i++)
        {
          const RivLoadError *e = &g_array_index (errors, RivLoadError, i);

          g_string_append_printf (out, "<tr><td class=\"n\">%" G_GUINT64_FORMAT "</td><td>",
                                  e->count);
          riv_report_append_escaped (out, e->text);
          g_string_append (out, "</td></tr>\n");
        }
      g_string_append (out, "</table>\n");
    }
  g_string_append (out, "</section>\n");
}

/* The run's parameters as given, the server's version, and the page's end. */
static void
append_parameters (GString            *out,
                   const char * const *params,
                   const char         *server_version)
{
  g_string_append (out, "<section class=\"table\" id=\"parameters\"><h2>Run</h2><table>\n");
  for (guint i = 0; params != NULL && params[i] != NULL && params[i + 1] != NULL; i += 2)
    {
      g_string_append (out, "<tr><th>");
      riv_report_append_escaped (out, params[i]);
      g_string_append (out, "</th><td><code>");
      riv_report_append_escaped (out, params[i + 1]);
      g_string_append (out, "</code></td></tr>\n");
    }
  g_string_append (out, "<tr><th>server version</th><td><code>");
  riv_report_append_escaped (out, server_version != NULL ? server_version : "unknown");
  g_string_append (out, "</code></td></tr>\n</table></section>\n</main></body></html>\n");
}

/* Colours of the scenarios' lines, in turn. */
static const char *const scenario_colors[] = {
  "#3584e4", "#ff7800", "#26a269", "#9141ac", "#e01b24", "#986a44", "#1c71d8", "#5e5c64",
};

/* A table of each scenario's figures. */
static void
append_scenario_table (GString              *out,
                       const RivReportInput *in)
{
  g_string_append (out, "<section class=\"table\" id=\"scenarios\"><h2>Scenarios</h2><table>"
                        "<tr><th>scenario</th><th>completed</th><th>failed or lost</th>"
                        "<th>jobs/s</th><th>p50</th><th>p95</th><th>p99</th></tr>\n");
  for (guint i = 0; i < in->n_scenarios; i++)
    {
      RivLoadSummary s;
      char buf[64];

      riv_load_stats_summarize (in->scenario_stats[i], &s);
      g_string_append_printf (out, "<tr><th><i style=\"background:%s\"></i>",
                              scenario_colors[i % G_N_ELEMENTS (scenario_colors)]);
      riv_report_append_escaped (out, in->scenario_names[i]);
      g_string_append_printf (out, "</th><td class=\"n\">%" G_GUINT64_FORMAT "</td><td class=\"n\">%"
                              G_GUINT64_FORMAT "</td><td class=\"n\">%.1f</td>", s.completed,
                              s.failed + s.lost, s.throughput_per_s);
      for (guint q = 0; q < 3; q++)
        {
          double v = q == 0 ? s.p50 : q == 1 ? s.p95 : s.p99;

          riv_report_format_value (buf, sizeof buf, v, "s");
          g_string_append_printf (out, "<td class=\"n\">%s</td>", s.completed > 0 ? buf : "–");
        }
      g_string_append (out, "</tr>\n");
    }
  g_string_append (out, "</table></section>\n");
}

/* Each scenario's jobs completed a second and their p95 latency, one line a
 * scenario over the run's seconds, then their figures. */
static void
append_scenarios (GString              *out,
                  const RivReportInput *in)
{
  guint k = in->n_scenarios;
  g_autoptr(GPtrArray) kept = g_ptr_array_new_with_free_func (g_free);
  g_autofree Series *completed = g_new0 (Series, MAX (k, 1));
  g_autofree Series *p95 = g_new0 (Series, MAX (k, 1));
  g_autofree GArray **series = g_new0 (GArray *, MAX (k, 1));
  guint n = 0;

  if (k == 0)
    return;
  for (guint i = 0; i < k; i++)
    {
      series[i] = riv_load_stats_timeseries (in->scenario_stats[i]);
      n = MAX (n, series[i]->len);
    }
  for (guint i = 0; i < k && n > 0; i++)
    {
      double *done = g_new (double, n);
      double *late = g_new (double, n);
      char *name = g_markup_escape_text (in->scenario_names[i], -1);
      const char *color = scenario_colors[i % G_N_ELEMENTS (scenario_colors)];

      /* A scenario's seconds after its last are no value, not zero. */
      for (guint t = 0; t < n; t++)
        {
          const RivLoadSample *x = t < series[i]->len
            ? &g_array_index (series[i], RivLoadSample, t) : NULL;

          done[t] = x != NULL ? (double) x->completed : -1;
          late[t] = x != NULL ? x->p95 : -1;
        }
      g_ptr_array_add (kept, done);
      g_ptr_array_add (kept, late);
      g_ptr_array_add (kept, name);
      completed[i] = (Series) { name, color, done };
      p95[i] = (Series) { name, color, late };
    }
  for (guint i = 0; i < k; i++)
    g_array_unref (series[i]);
  if (n > 0)
    {
      append_line_chart (out, "scenario-throughput", "Throughput by scenario (jobs completed "
                         "per second)", "", completed, k, n);
      append_line_chart (out, "scenario-latency", "Latency p95 by scenario (of its jobs "
                         "completed each second)", "s", p95, k, n);
    }
  append_scenario_table (out, in);
}

char *
riv_report_html_for (RivLoadStats         *stats,
                     const RivReportInput *in)
{
  GString *out;
  g_autoptr(GArray) series = NULL;
  g_autoptr(GArray) errors = NULL;
  RivLoadSummary s;

  g_return_val_if_fail (stats != NULL && in != NULL, NULL);

  out = g_string_new (NULL);
  riv_load_stats_summarize (stats, &s);
  series = riv_load_stats_timeseries (stats);
  errors = riv_load_stats_errors (stats);

  append_head (out, in->server_version);
  append_tiles (out, &s);
  append_thresholds (out, &s, in);
  if (series->len > 0)
    append_time_charts (out, series);
  append_scenarios (out, in);
  append_latency_histogram (out, stats);
  append_gap_histogram (out, stats);
  append_stamps (out, &s);
  append_batch_histogram (out, stats);
  append_client_server (out, &s);
  append_errors (out, errors);
  append_parameters (out, in->params, in->server_version);

  return g_string_free (out, FALSE);
}

char *
riv_report_html (RivLoadStats             *stats,
                 const char               *server_version,
                 const char * const       *params,
                 RivLoadThreshold * const *thresholds,
                 guint                     n_thresholds)
{
  RivReportInput in = { server_version, params, thresholds, NULL, n_thresholds, NULL, NULL, 0 };

  return riv_report_html_for (stats, &in);
}
