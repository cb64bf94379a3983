/* riv-demo-media.c
 * Copyright 2026 The Rivulet authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The demos that stream what real apps stream (worker threads, real files
 * behind /file=). Output conventions (the UI tests rely on them):
 *  - chat: one Chatbot output in the messages format. Yield 1 is
 *    [user message, assistant message holding the first word]; every later
 *    yield appends " " + word to the assistant's "content". The reply is
 *    riv_demo_chat_reply (message), with markdown bold, italics and code.
 *  - gallery: one Gallery output; yield i adds item i (an "add" edit at
 *    index i - 1), {"image": FileData
 *    of a 256×256 PNG, "caption": "Picture i"}; COUNT items in the end.
 *  - mixed: six outputs, filled one yield at a time: picture (a 256×256 WebP
 *    when built with libwebp, else PNG), then facts (JSON), class (a label
 *    with three confidences) and report (markdown) together, then download
 *    (a text file), then sound (a 0.5 s WAV: 16 kHz, mono, 16-bit).
 *  - logs: step i of COUNT sends an info log, every third step also a
 *    warning (Gradio's "log" message), then yields "step i/COUNT"; the result
 *    is "COUNT steps, W warnings".
 */
#include "config.h"

#include <math.h>
#include <string.h>

#include <glib/gstdio.h>
#ifdef RIV_HAVE_WEBP
#include <webp/encode.h>
#endif

#include "riv-demo-private.h"
#include "riv-wire.h"

#define WAV_RATE    16000
#define WAV_SECONDS 0.5

char *
riv_demo_write_output (RivRun       *run,
                       const char   *suffix,
                       const guint8 *data,
                       gsize         size,
                       const char   *orig_name,
                       const char   *mime_type,
                       char        **file_data)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *name = g_strdup_printf ("%s-%s", riv_run_get_event_id (run, 0), suffix);
  g_autofree char *path = g_build_filename (riv_run_get_output_dir (run), name, NULL);

  if (!g_file_set_contents (path, (const char *) data, (gssize) size, &error))
    {
      g_autofree char *message = g_strdup_printf ("Could not write %s: %s", orig_name,
                                                  error->message);
      riv_run_fail (run, message);
      return NULL;
    }
  *file_data = riv_demo_file_data_json (riv_run_get_base_url (run), path, size,
                                        orig_name, mime_type);
  return g_steal_pointer (&path);
}

/* chat */

char *
riv_demo_chat_reply (const char *message)
{
  return g_strdup_printf ("You said “%s”. Rivers **carry** water from the *hills* "
                          "to the sea, and `rivulet` follows every drop.", message);
}

static void
append_message (GString    *out,
                const char *role,
                const char *content)
{
  g_string_append (out, "{\"role\":");
  riv_wire_append_string (out, role, -1);
  g_string_append (out, ",\"content\":");
  riv_wire_append_string (out, content, -1);
  g_string_append (out, ",\"metadata\":null,\"options\":null}");
}

void
riv_demo_run_chat (RivRun *run)
{
  const RivDemoParams *params = riv_run_get_params (run, 0);
  const char *message = params->values[0].text != NULL ? params->values[0].text : "";
  double delay = params->values[1].number;
  g_autofree char *reply = riv_demo_chat_reply (message);
  g_auto(GStrv) words = g_strsplit (reply, " ", -1);
  g_autoptr(GString) data = g_string_new (NULL);

  for (guint k = 0; words[k] != NULL; k++)
    {
      if (!riv_run_sleep (run, delay))
        return;

      g_string_truncate (data, 0);
      if (k == 0)
        {
          g_string_append (data, "[[");
          append_message (data, "user", message);
          g_string_append_c (data, ',');
          append_message (data, "assistant", words[0]);
          g_string_append (data, "]]");
        }
      else
        {
          g_autofree char *tail = g_strconcat (" ", words[k], NULL);

          g_string_append (data, "[[[\"append\",[1,\"content\"],");
          riv_wire_append_string (data, tail, -1);
          g_string_append (data, "]]]");
        }
      if (!riv_run_yield (run, data->str, data->len, NULL, 0))
        return;
    }

  g_string_truncate (data, 0);
  g_string_append (data, "[[");
  append_message (data, "user", message);
  g_string_append_c (data, ',');
  append_message (data, "assistant", reply);
  g_string_append (data, "]]");
  riv_run_return (run, 0, g_string_free (g_steal_pointer (&data), FALSE));
}

/* gallery */

void
riv_demo_run_gallery (RivRun *run)
{
  const RivDemoParams *params = riv_run_get_params (run, 0);
  guint count = (guint) params->values[0].number;
  double delay = params->values[1].number;
  g_autoptr(GString) items = g_string_new (NULL);
  g_autoptr(GString) data = g_string_new (NULL);

  for (guint i = 1; i <= count; i++)
    {
      g_autoptr(GError) error = NULL;
      g_autoptr(GBytes) png = NULL;
      g_autofree char *suffix = g_strdup_printf ("gallery-%u.png", i);
      g_autofree char *orig = g_strdup_printf ("picture-%u.png", i);
      g_autofree char *file_data = NULL;
      g_autofree char *caption = g_strdup_printf ("Picture %u", i);
      GString *item = g_string_new ("{\"image\":");
      char *path;

      if (!riv_run_sleep (run, delay))
        {
          g_string_free (item, TRUE);
          return;
        }
      png = riv_demo_render_png (0.6 + 0.1 * i, 0x51ed270bu * i, &error);
      if (png == NULL)
        {
          riv_run_fail (run, error->message);
          g_string_free (item, TRUE);
          return;
        }
      path = riv_demo_write_output (run, suffix, g_bytes_get_data (png, NULL),
                                    g_bytes_get_size (png), orig, "image/png", &file_data);
      if (path == NULL)
        {
          g_string_free (item, TRUE);
          return;
        }
      g_string_append (item, file_data);
      g_string_append (item, ",\"caption\":");
      riv_wire_append_string (item, caption, -1);
      g_string_append_c (item, '}');

      if (items->len > 0)
        g_string_append_c (items, ',');
      g_string_append_len (items, item->str, item->len);

      g_string_truncate (data, 0);
      if (i == 1)
        g_string_append_printf (data, "[[%s]]", item->str);
      else
        g_string_append_printf (data, "[[[\"add\",[%u],%s]]]", i - 1, item->str);
      g_string_free (item, TRUE);

      if (!riv_run_progress (run, i, count, "images"))
        {
          g_unlink (path);
          g_free (path);
          return;
        }
      if (!riv_run_yield (run, data->str, data->len, path, g_bytes_get_size (png)))
        return;
    }

  riv_run_return (run, 0, g_strdup_printf ("[[%s]]", items->str));
}

/* mixed */

/* The picture as WebP (what Gradio 5 and 6 send by default), or PNG when
 * Rivulet was built without libwebp. */
static GBytes *
render_picture (guint32      seed,
                const char **suffix,
                const char **mime_type,
                GError     **error)
{
#ifdef RIV_HAVE_WEBP
  guint size;
  g_autofree guint8 *rgb = riv_demo_render_rgb (1.0, seed, &size);
  guint8 *webp = NULL;
  size_t length = WebPEncodeRGB (rgb, (int) size, (int) size, (int) size * 3, 80, &webp);

  if (length == 0)
    {
      g_set_error_literal (error, G_IO_ERROR, G_IO_ERROR_FAILED, "WebP encoding failed");
      return NULL;
    }
  *suffix = "picture.webp";
  *mime_type = "image/webp";
  {
    GBytes *bytes = g_bytes_new (webp, length);

    WebPFree (webp);
    return bytes;
  }
#else
  *suffix = "picture.png";
  *mime_type = "image/png";
  return riv_demo_render_png (1.0, seed, error);
#endif
}

static GBytes *
make_wav (void)
{
  guint n = (guint) (WAV_RATE * WAV_SECONDS);
  guint32 data_size = n * 2;
  GByteArray *wav = g_byte_array_sized_new (44 + data_size);
  guint8 header[44];

  /* RIFF/WAVE, one "fmt " chunk (PCM, mono, 16-bit), one "data" chunk. */
  memcpy (header, "RIFF", 4);
  {
    guint32 v;
    guint16 s;

    v = GUINT32_TO_LE (36 + data_size); memcpy (header + 4, &v, 4);
    memcpy (header + 8, "WAVEfmt ", 8);
    v = GUINT32_TO_LE (16); memcpy (header + 16, &v, 4);
    s = GUINT16_TO_LE (1); memcpy (header + 20, &s, 2);            /* PCM */
    s = GUINT16_TO_LE (1); memcpy (header + 22, &s, 2);            /* mono */
    v = GUINT32_TO_LE (WAV_RATE); memcpy (header + 24, &v, 4);
    v = GUINT32_TO_LE (WAV_RATE * 2); memcpy (header + 28, &v, 4); /* bytes/s */
    s = GUINT16_TO_LE (2); memcpy (header + 32, &s, 2);            /* block align */
    s = GUINT16_TO_LE (16); memcpy (header + 34, &s, 2);           /* bits */
    memcpy (header + 36, "data", 4);
    v = GUINT32_TO_LE (data_size); memcpy (header + 40, &v, 4);
  }
  g_byte_array_append (wav, header, sizeof header);

  for (guint i = 0; i < n; i++)
    {
      /* A 440 Hz tone with a short fade in and out (no clicks). */
      double fade = MIN (1.0, MIN (i, n - i) / (WAV_RATE * 0.02));
      gint16 sample = (gint16) (12000 * fade * sin (2 * G_PI * 440 * i / WAV_RATE));
      guint16 le = GUINT16_TO_LE ((guint16) sample);

      g_byte_array_append (wav, (const guint8 *) &le, 2);
    }
  return g_byte_array_free_to_bytes (wav);
}

static gboolean
yield_one (RivRun     *run,
           guint       position,
           const char *value,
           char       *path,
           gsize       size)
{
  g_autoptr(GString) data = g_string_new ("[");

  /* Six outputs; only the one at position changes. */
  for (guint i = 0; i < 6; i++)
    {
      if (i > 0)
        g_string_append_c (data, ',');
      if (i == position)
        g_string_append_printf (data, "[[\"replace\",[],%s]]", value);
      else
        g_string_append (data, "[]");
    }
  g_string_append_c (data, ']');
  return riv_run_yield (run, data->str, data->len, path, size);
}

void
riv_demo_run_mixed (RivRun *run)
{
  const RivDemoParams *params = riv_run_get_params (run, 0);
  const char *subject = params->values[0].text != NULL ? params->values[0].text : "";
  double delay = params->values[1].number;
  g_autoptr(GError) error = NULL;
  g_autoptr(GBytes) picture = NULL;
  g_autoptr(GBytes) wav = NULL;
  g_autoptr(GString) facts = g_string_new ("{\"subject\":");
  g_autoptr(GString) label = g_string_new ("{\"label\":");
  g_autoptr(GString) report = g_string_new (NULL);
  g_autoptr(GString) text = g_string_new (NULL);
  g_autofree char *markdown = NULL;
  g_autofree char *picture_json = NULL;
  g_autofree char *file_json = NULL;
  g_autofree char *wav_json = NULL;
  const char *suffix, *mime_type;
  char *path;

  /* 1. The picture. */
  if (!riv_run_sleep (run, delay))
    return;
  picture = render_picture (g_str_hash (riv_run_get_event_id (run, 0)), &suffix, &mime_type,
                            &error);
  if (picture == NULL)
    {
      riv_run_fail (run, error->message);
      return;
    }
  path = riv_demo_write_output (run, suffix, g_bytes_get_data (picture, NULL),
                                g_bytes_get_size (picture), suffix, mime_type, &picture_json);
  if (path == NULL)
    return;
  {
    g_autofree char *first = g_strdup_printf ("[%s,null,null,null,null,null]", picture_json);

    if (!riv_run_yield (run, first, strlen (first), path, g_bytes_get_size (picture)))
      return;
  }

  /* 2. JSON, label and markdown. */
  if (!riv_run_sleep (run, delay))
    return;
  riv_wire_append_string (facts, subject, -1);
  g_string_append (facts, ",\"length_km\":6650,\"navigable\":true,"
                   "\"tributaries\":[\"White Nile\",\"Blue Nile\",\"Atbara\"],"
                   "\"source\":{\"lat\":-2.28,\"lon\":29.33}}");
  riv_wire_append_string (label, subject, -1);
  g_string_append (label, ",\"confidences\":[{\"label\":");
  riv_wire_append_string (label, subject, -1);
  g_string_append (label, ",\"confidence\":0.72},{\"label\":\"lake\",\"confidence\":0.18},"
                   "{\"label\":\"sea\",\"confidence\":0.1}]}");
  markdown = g_strdup_printf ("# Report on %s\n\nThe %s is **long** and *winding*; "
                              "measured with `rivulet`.", subject, subject);
  riv_wire_append_string (report, markdown, -1);
  {
    g_autoptr(GString) data = g_string_new (NULL);

    g_string_append_printf (data, "[[],[[\"replace\",[],%s]],[[\"replace\",[],%s]],"
                            "[[\"replace\",[],%s]],[],[]]", facts->str, label->str, report->str);
    if (!riv_run_yield (run, data->str, data->len, NULL, 0))
      return;
  }

  /* 3. A file to download. */
  if (!riv_run_sleep (run, delay))
    return;
  g_string_append_printf (text, "Report on %s\nLength: 6650 km\nNavigable: yes\n", subject);
  path = riv_demo_write_output (run, "report.txt", (const guint8 *) text->str, text->len,
                                "report.txt", "text/plain", &file_json);
  if (path == NULL || !yield_one (run, 4, file_json, path, text->len))
    return;

  /* 4. A short sound. */
  if (!riv_run_sleep (run, delay))
    return;
  wav = make_wav ();
  path = riv_demo_write_output (run, "sound.wav", g_bytes_get_data (wav, NULL),
                                g_bytes_get_size (wav), "tone.wav", "audio/wav", &wav_json);
  if (path == NULL || !yield_one (run, 5, wav_json, path, g_bytes_get_size (wav)))
    return;

  riv_run_return (run, 0, g_strdup_printf ("[%s,%s,%s,%s,%s,%s]", picture_json, facts->str,
                                           label->str, report->str, file_json, wav_json));
}

/* logs */

void
riv_demo_run_logs (RivRun *run)
{
  const RivDemoParams *params = riv_run_get_params (run, 0);
  guint count = (guint) params->values[0].number;
  double delay = params->values[1].number;
  guint warnings = 0;
  g_autoptr(GString) data = g_string_new (NULL);

  for (guint i = 1; i <= count; i++)
    {
      g_autofree char *info = g_strdup_printf ("Step %u of %u done", i, count);
      g_autofree char *text = g_strdup_printf ("step %u/%u", i, count);

      if (!riv_run_sleep (run, delay) || !riv_run_log (run, "info", "Info", info))
        return;
      if (i % 3 == 0)
        {
          g_autofree char *warning = g_strdup_printf ("Step %u: the water is rising", i);

          warnings++;
          if (!riv_run_log (run, "warning", "Warning", warning))
            return;
        }

      g_string_truncate (data, 0);
      g_string_append (data, i == 1 ? "[" : "[[[\"replace\",[],");
      riv_wire_append_string (data, text, -1);
      g_string_append (data, i == 1 ? "]" : "]]]");
      if (!riv_run_yield (run, data->str, data->len, NULL, 0))
        return;
    }

  riv_run_return (run, 0, g_strdup_printf ("[\"%u steps, %u warnings\"]", count, warnings));
}
