/* riv-demo-shapes.c
 * Copyright 2026 The Rivulet authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The demos that return what real Gradio 6 apps return, shaped as Gradio
 * 6.25 sends it (worker threads; the UI tests rely on these conventions):
 *  - shapes_update: four textboxes, answered with updates as Gradio's
 *    postprocess_update_dict writes them: [{"visible": true, "value": VALUE,
 *    "__type__": "update"}, {"visible": false, "__type__": "update"},
 *    {"label": "notes, renamed", "__type__": "update"}, {"__type__": "update"}]
 *    (the last is gr.skip()).
 *  - shapes_plot: four gr.Plot values {"type", "plot"}: matplotlib (a 256×256
 *    data URL, lossless WebP when built with libwebp, else PNG: white, a blue
 *    #1f77b4 line and orange #ff7f0e bars, matplotlib's first two colours),
 *    then Plotly, Altair (Vega-Lite) and Bokeh (json_item) figures as JSON
 *    text, each with POINTS points per series: Plotly "rain" (a line, plain
 *    lists) and "snow" (bars, y as a typed f8 array); Altair "River levels",
 *    one line per river (Nile, Amazon); Bokeh "Tides", a Line and a VBar
 *    (its tops a float64 ndarray).
 *  - shapes_five: an image (PNG FileData), the summary text, facts (JSON),
 *    class (a label) and report (markdown), all at once (one yield, so that
 *    the server serves the picture, then the same values as the result).
 *  - shapes_chat: a gr.ChatInterface's API endpoint: [reply, null], the reply
 *    as the hidden "Response" JSON output, the history's State as null.
 *  - shapes_text: HighlightedText as {"token", "class_or_confidence"} lists:
 *    entities (RIVER, CITY, SEA; plain text between them), and every word
 *    scored in [-1, 1] with no spaces in its tokens.
 *  - shapes_fail: a generator that yields "step 1", then "step 2" (a replace
 *    edit) DELAY later, and fails DELAY after that ("The river ran dry").
 *  - session_chat: a chat that keeps its session's memory in a gr.State
 *    (kept by the server per session, sent as null both ways, as Gradio
 *    does): [reply, memory], the reply "Turn N of this session. You said
 *    “MESSAGE”; before that, “PREVIOUS”." ("…; nothing before." on turn 1),
 *    the memory {"turns": N, "last": MESSAGE}.
 */
#include "config.h"

#include <math.h>
#include <string.h>

#ifdef RIV_HAVE_WEBP
#include <webp/encode.h>
#endif

#include "riv-demo-private.h"
#include "riv-json.h"
#include "riv-wire.h"

#define PLOT_SIZE 256

static double
rain (guint i)
{
  return 2 + 1.5 * sin (i * 0.9) + i * 0.3;
}

static double
snow (guint i)
{
  return 1 + i % 3;
}

/* update */

void
riv_demo_run_shapes_update (RivRun *run)
{
  const RivDemoParams *params = riv_run_get_params (run, 0);
  g_autoptr(GString) data = g_string_new ("[{\"visible\":true,\"value\":");

  riv_wire_append_string (data, params->values[0].text != NULL ? params->values[0].text : "", -1);
  g_string_append (data, ",\"__type__\":\"update\"},"
                   "{\"visible\":false,\"__type__\":\"update\"},"
                   "{\"label\":\"notes, renamed\",\"__type__\":\"update\"},"
                   "{\"__type__\":\"update\"}]");
  riv_run_return (run, 0, g_string_free (g_steal_pointer (&data), FALSE));
}

/* plot */

static void
fill_rect (guint8       *rgb,
           int           x0,
           int           y0,
           int           x1,
           int           y1,
           const guint8  colour[3])
{
  for (int y = MAX (y0, 0); y < MIN (y1, PLOT_SIZE); y++)
    for (int x = MAX (x0, 0); x < MIN (x1, PLOT_SIZE); x++)
      memcpy (rgb + (y * PLOT_SIZE + x) * 3, colour, 3);
}

/* A matplotlib-like figure: axes, bars of snow, a thick line of rain. */
static guint8 *
render_plot (guint n)
{
  static const guint8 black[3] = { 0, 0, 0 };
  static const guint8 blue[3] = { 0x1f, 0x77, 0xb4 };
  static const guint8 orange[3] = { 0xff, 0x7f, 0x0e };
  guint8 *rgb = g_malloc (PLOT_SIZE * PLOT_SIZE * 3);
  const int left = 28, bottom = 228, width = PLOT_SIZE - left - 12, height = bottom - 16;
  double top = 0;

  memset (rgb, 0xff, PLOT_SIZE * PLOT_SIZE * 3);
  for (guint i = 0; i < n; i++)
    top = MAX (top, MAX (rain (i), snow (i)));
  top *= 1.1;

  for (guint i = 0; i < n; i++)
    {
      int x = left + (int) ((i + 0.5) * width / n);
      int h = (int) (snow (i) / top * height);

      fill_rect (rgb, x - width / (int) n / 4, bottom - h, x + width / (int) n / 4, bottom, orange);
    }
  for (int px = 0; px < width; px++)
    {
      double t = (double) px * n / width - 0.5;
      guint i = (guint) CLAMP (floor (t), 0, n - 1);
      double f = CLAMP (t - i, 0, 1);
      double value = i + 1 < n ? rain (i) * (1 - f) + rain (i + 1) * f : rain (i);
      int y = bottom - (int) (value / top * height);

      fill_rect (rgb, left + px, y - 2, left + px + 1, y + 2, blue);
    }
  fill_rect (rgb, left - 1, 16, left, bottom + 1, black);
  fill_rect (rgb, left - 1, bottom, PLOT_SIZE - 12, bottom + 1, black);
  return rgb;
}

static char *
plot_data_url (guint    n,
               GError **error)
{
  g_autofree guint8 *rgb = render_plot (n);
  g_autofree char *base64 = NULL;
  const char *format;

#ifdef RIV_HAVE_WEBP
  {
    guint8 *webp = NULL;
    size_t length = WebPEncodeLosslessRGB (rgb, PLOT_SIZE, PLOT_SIZE, PLOT_SIZE * 3, &webp);

    if (length == 0)
      {
        g_set_error_literal (error, G_IO_ERROR, G_IO_ERROR_FAILED, "WebP encoding failed");
        return NULL;
      }
    base64 = g_base64_encode (webp, length);
    WebPFree (webp);
    format = "webp";
  }
#else
  {
    guint8 *rows[PLOT_SIZE];
    g_autoptr(GBytes) png = NULL;

    for (guint y = 0; y < PLOT_SIZE; y++)
      rows[y] = rgb + y * PLOT_SIZE * 3;
    if ((png = riv_demo_encode_png (rows, PLOT_SIZE, error)) == NULL)
      return NULL;
    base64 = g_base64_encode (g_bytes_get_data (png, NULL), g_bytes_get_size (png));
    format = "png";
  }
#endif
  return g_strdup_printf ("data:image/%s;base64,%s", format, base64);
}

/* n doubles, little-endian, base64 (a typed array's bytes). */
static char *
float64_base64 (guint    n,
                double (*value) (guint))
{
  g_autofree guint8 *bytes = g_malloc (n * 8);

  for (guint i = 0; i < n; i++)
    {
      double d = value (i);
      guint64 bits;

      memcpy (&bits, &d, 8);
      bits = GUINT64_TO_LE (bits);
      memcpy (bytes + i * 8, &bits, 8);
    }
  return g_base64_encode (bytes, n * 8);
}

static void
append_series (GString *out,
               guint    n,
               double (*value) (guint))
{
  g_string_append_c (out, '[');
  for (guint i = 0; i < n; i++)
    {
      if (i > 0)
        g_string_append_c (out, ',');
      riv_wire_append_double (out, value (i));
    }
  g_string_append_c (out, ']');
}

static double
day (guint i)
{
  return i + 1;
}

static char *
plotly_json (guint n)
{
  GString *out = g_string_new ("{\"data\":[{\"mode\":\"lines\",\"name\":\"rain\",\"x\":");
  g_autofree char *bdata = float64_base64 (n, snow);

  append_series (out, n, day);
  g_string_append (out, ",\"y\":");
  append_series (out, n, rain);
  g_string_append (out, ",\"type\":\"scatter\"},{\"name\":\"snow\",\"x\":");
  append_series (out, n, day);
  g_string_append_printf (out, ",\"y\":{\"dtype\":\"f8\",\"bdata\":\"%s\"},\"type\":\"bar\"}],"
                          "\"layout\":{\"template\":{\"data\":{}},"
                          "\"title\":{\"text\":\"Rain and snow\"}}}", bdata);
  return g_string_free (out, FALSE);
}

static char *
altair_json (guint n)
{
  static const char *const rivers[] = { "Nile", "Amazon" };
  GString *out = g_string_new ("{\"$schema\":\"https://vega.github.io/schema/vega-lite/v5.20.1.json\","
                               "\"config\":{\"view\":{\"continuousHeight\":300,"
                               "\"continuousWidth\":300}},\"data\":{\"name\":\"data-7a3c\"},"
                               "\"datasets\":{\"data-7a3c\":[");

  for (guint r = 0; r < G_N_ELEMENTS (rivers); r++)
    for (guint i = 0; i < n; i++)
      {
        g_string_append_printf (out, "%s{\"day\":%u,\"river\":\"%s\",\"level\":",
                                r + i > 0 ? "," : "", i + 1, rivers[r]);
        riv_wire_append_double (out, r == 0 ? rain (i) : snow (i));
        g_string_append_c (out, '}');
      }
  g_string_append (out, "]},\"encoding\":{\"color\":{\"field\":\"river\",\"type\":\"nominal\"},"
                   "\"x\":{\"field\":\"day\",\"type\":\"quantitative\"},"
                   "\"y\":{\"field\":\"level\",\"type\":\"quantitative\"}},"
                   "\"mark\":{\"type\":\"line\"},\"title\":\"River levels\"}");
  return g_string_free (out, FALSE);
}

static char *
bokeh_json (guint n)
{
  GString *out = g_string_new ("{\"target_id\":null,\"root_id\":\"p1001\",\"doc\":{"
                               "\"version\":\"3.6.2\",\"title\":\"Bokeh Application\","
                               "\"roots\":[{\"type\":\"object\",\"name\":\"Figure\","
                               "\"id\":\"p1001\",\"attributes\":{\"title\":{\"type\":\"object\","
                               "\"name\":\"Title\",\"id\":\"p1002\",\"attributes\":"
                               "{\"text\":\"Tides\"}},\"renderers\":[");
  g_autofree char *tops = float64_base64 (n, snow);

  /* A line whose data are plain lists… */
  g_string_append (out, "{\"type\":\"object\",\"name\":\"GlyphRenderer\",\"id\":\"p1030\","
                   "\"attributes\":{\"data_source\":{\"type\":\"object\","
                   "\"name\":\"ColumnDataSource\",\"id\":\"p1024\",\"attributes\":{"
                   "\"data\":{\"type\":\"map\",\"entries\":[[\"x\",");
  append_series (out, n, day);
  g_string_append (out, "],[\"y\",");
  append_series (out, n, rain);
  g_string_append (out, "]]}}},\"glyph\":{\"type\":\"object\",\"name\":\"Line\",\"id\":\"p1027\","
                   "\"attributes\":{\"x\":{\"type\":\"field\",\"field\":\"x\"},"
                   "\"y\":{\"type\":\"field\",\"field\":\"y\"},\"line_color\":\"#1f77b4\"}}}},");
  /* …and bars whose tops are a NumPy array. */
  g_string_append (out, "{\"type\":\"object\",\"name\":\"GlyphRenderer\",\"id\":\"p1040\","
                   "\"attributes\":{\"data_source\":{\"type\":\"object\","
                   "\"name\":\"ColumnDataSource\",\"id\":\"p1034\",\"attributes\":{"
                   "\"data\":{\"type\":\"map\",\"entries\":[[\"x\",");
  append_series (out, n, day);
  g_string_append_printf (out, "],[\"top\",{\"type\":\"ndarray\",\"array\":{\"type\":\"bytes\","
                          "\"data\":\"%s\"},\"shape\":[%u],\"dtype\":\"float64\","
                          "\"order\":\"little\"}]]}}},\"glyph\":{\"type\":\"object\","
                          "\"name\":\"VBar\",\"id\":\"p1037\",\"attributes\":{"
                          "\"x\":{\"type\":\"field\",\"field\":\"x\"},\"width\":{\"type\":\"value\","
                          "\"value\":0.5},\"top\":{\"type\":\"field\",\"field\":\"top\"},"
                          "\"fill_color\":\"#ff7f0e\"}}}}]}}]}}", tops, n);
  return g_string_free (out, FALSE);
}

static void
append_plot (GString    *out,
             const char *type,
             char       *plot)
{
  g_string_append_printf (out, "{\"type\":\"%s\",\"plot\":", type);
  riv_wire_append_string (out, plot, -1);
  g_string_append_c (out, '}');
  g_free (plot);
}

void
riv_demo_run_shapes_plot (RivRun *run)
{
  const RivDemoParams *params = riv_run_get_params (run, 0);
  guint n = (guint) params->values[0].number;
  g_autoptr(GError) error = NULL;
  g_autoptr(GString) data = g_string_new ("[");
  char *url = plot_data_url (n, &error);

  if (url == NULL)
    {
      riv_run_fail (run, error->message);
      return;
    }
  append_plot (data, "matplotlib", url);
  g_string_append_c (data, ',');
  append_plot (data, "plotly", plotly_json (n));
  g_string_append_c (data, ',');
  append_plot (data, "altair", altair_json (n));
  g_string_append_c (data, ',');
  append_plot (data, "bokeh", bokeh_json (n));
  g_string_append_c (data, ']');
  riv_run_return (run, 0, g_string_free (g_steal_pointer (&data), FALSE));
}

/* five */

void
riv_demo_run_shapes_five (RivRun *run)
{
  const RivDemoParams *params = riv_run_get_params (run, 0);
  const char *subject = params->values[0].text != NULL ? params->values[0].text : "";
  g_autoptr(GError) error = NULL;
  g_autoptr(GBytes) png = riv_demo_render_png (1.0, g_str_hash (riv_run_get_event_id (run, 0)),
                                               &error);
  g_autoptr(GString) data = g_string_new ("[");
  g_autofree char *picture = NULL;
  g_autofree char *summary = NULL;
  g_autofree char *report = NULL;
  g_autofree char *path = NULL;

  if (png == NULL)
    {
      riv_run_fail (run, error->message);
      return;
    }
  path = riv_demo_write_output (run, "picture.png", g_bytes_get_data (png, NULL),
                                g_bytes_get_size (png), "picture.png", "image/png", &picture);
  if (path == NULL)
    return;

  summary = g_strdup_printf ("The %s is about 6650 km long and flows north.", subject);
  report = g_strdup_printf ("## %s\n\n- **length**: 6650 km\n- *navigable*: yes", subject);
  g_string_append_printf (data, "%s,", picture);
  riv_wire_append_string (data, summary, -1);
  g_string_append (data, ",{\"subject\":");
  riv_wire_append_string (data, subject, -1);
  g_string_append (data, ",\"length_km\":6650},{\"label\":\"river\",\"confidences\":["
                   "{\"label\":\"river\",\"confidence\":0.9},"
                   "{\"label\":\"lake\",\"confidence\":0.1}]},");
  riv_wire_append_string (data, report, -1);
  g_string_append_c (data, ']');
  /* One yield of everything (the server serves only files a yield named),
   * and the same as the result. */
  if (!riv_run_yield (run, data->str, data->len, g_steal_pointer (&path), g_bytes_get_size (png)))
    return;
  riv_run_return (run, 0, g_string_free (g_steal_pointer (&data), FALSE));
}

/* chat */

void
riv_demo_run_shapes_chat (RivRun *run)
{
  const RivDemoParams *params = riv_run_get_params (run, 0);
  g_autofree char *reply = g_strdup_printf ("You asked: “%s”. The **Nile** is the longest "
                                            "river, at about 6650 km.",
                                            params->values[0].text != NULL
                                              ? params->values[0].text : "");
  g_autoptr(GString) data = g_string_new ("[");

  riv_wire_append_string (data, reply, -1);
  g_string_append (data, ",null]");
  riv_run_return (run, 0, g_string_free (g_steal_pointer (&data), FALSE));
}

/* text */

static const char *
entity_of (const char *word)
{
  static const struct { const char *word, *label; } entities[] = {
    { "Nile", "RIVER" }, { "Amazon", "RIVER" }, { "Danube", "RIVER" },
    { "Cairo", "CITY" }, { "Vienna", "CITY" }, { "Paris", "CITY" },
    { "Mediterranean", "SEA" }, { "Atlantic", "SEA" },
  };

  for (guint i = 0; i < G_N_ELEMENTS (entities); i++)
    if (strcmp (word, entities[i].word) == 0)
      return entities[i].label;
  return NULL;
}

static void
append_token (GString    *out,
              const char *token,
              gssize      length,
              const char *label,
              double      score)
{
  if (out->len > 1)
    g_string_append_c (out, ',');
  g_string_append (out, "{\"token\":");
  riv_wire_append_string (out, token, length);
  g_string_append (out, ",\"class_or_confidence\":");
  if (label != NULL)
    riv_wire_append_string (out, label, -1);
  else if (isnan (score))
    g_string_append (out, "null");
  else
    riv_wire_append_double (out, score);
  g_string_append_c (out, '}');
}

void
riv_demo_run_shapes_text (RivRun *run)
{
  const RivDemoParams *params = riv_run_get_params (run, 0);
  const char *text = params->values[0].text != NULL ? params->values[0].text : "";
  g_auto(GStrv) words = g_strsplit (text, " ", -1);
  g_autoptr(GString) entities = g_string_new ("[");
  g_autoptr(GString) scores = g_string_new ("[");
  g_autoptr(GString) plain = g_string_new (NULL);

  /* Entities as Gradio makes them from {"text", "entities"}: the plain text
   * between them a token of its own, and a last (maybe empty) one. */
  for (guint i = 0; words[i] != NULL; i++)
    {
      const char *label = entity_of (words[i]);

      if (label == NULL)
        {
          g_string_append_printf (plain, "%s%s", words[i], words[i + 1] != NULL ? " " : "");
          continue;
        }
      append_token (entities, plain->str, (gssize) plain->len, NULL, NAN);
      append_token (entities, words[i], -1, label, NAN);
      g_string_assign (plain, words[i + 1] != NULL ? " " : "");
    }
  append_token (entities, plain->str, (gssize) plain->len, NULL, NAN);
  g_string_append_c (entities, ']');

  /* A score per word, in [-1, 1]; the tokens carry no spaces. */
  for (guint i = 0; words[i] != NULL; i++)
    if (*words[i] != '\0')
      append_token (scores, words[i], -1, NULL, ((int) (strlen (words[i]) % 5) - 2) / 2.5);
  g_string_append_c (scores, ']');

  riv_run_return (run, 0, g_strdup_printf ("[%s,%s]", entities->str, scores->str));
}

/* fail */

void
riv_demo_run_shapes_fail (RivRun *run)
{
  const RivDemoParams *params = riv_run_get_params (run, 0);
  double delay = params->values[0].number;
  static const char first[] = "[\"step 1\"]";
  static const char second[] = "[[[\"replace\",[],\"step 2\"]]]";

  if (!riv_run_yield (run, first, strlen (first), NULL, 0) || !riv_run_sleep (run, delay) ||
      !riv_run_yield (run, second, strlen (second), NULL, 0) || !riv_run_sleep (run, delay))
    return;
  riv_run_fail (run, "The river ran dry");
}

/* session_chat */

void
riv_demo_run_session_chat (RivRun *run)
{
  const RivDemoParams *params = riv_run_get_params (run, 0);
  const char *message = params->values[0].text != NULL ? params->values[0].text : "";
  g_autoptr(JsonNode) memory = params->values[1].text != NULL
    ? riv_json_parse (NULL, params->values[1].text, -1, 0, NULL) : NULL;
  JsonObject *last = memory != NULL && JSON_NODE_HOLDS_OBJECT (memory)
    ? json_node_get_object (memory) : NULL;
  const char *previous = last != NULL ? riv_json_get_string (last, "last") : NULL;
  gint64 turns = 0;
  g_autoptr(GString) data = g_string_new ("[");
  g_autofree char *reply = NULL;

  if (last == NULL || !riv_json_get_int (last, "turns", &turns) || turns < 0)
    turns = 0;
  turns++;
  if (previous != NULL)
    reply = g_strdup_printf ("Turn %" G_GINT64_FORMAT " of this session. You said “%s”; "
                             "before that, “%s”.", turns, message, previous);
  else
    reply = g_strdup_printf ("Turn %" G_GINT64_FORMAT " of this session. You said “%s”; "
                             "nothing before.", turns, message);
  riv_wire_append_string (data, reply, -1);
  g_string_append_printf (data, ",{\"turns\":%" G_GINT64_FORMAT ",\"last\":", turns);
  riv_wire_append_string (data, message, -1);
  g_string_append (data, "}]");
  riv_run_return (run, 0, g_string_free (g_steal_pointer (&data), FALSE));
}
