/* test-icon-sniff.c
 * Copyright 2026 The Rivulet authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Every icon the build installs is recognised as an image by content, the way
 * gdk-pixbuf recognises it: the MIME type guessed from the file's first bytes
 * alone (no file name), then gdk_pixbuf_get_file_info. An SVG whose "<svg" comes
 * too late (a long comment first) is sniffed as plain XML, and appstream-compose
 * and flatpak build-export then refuse it as "not a valid icon".
 *
 * Arguments: the icon files.
 */
#include <gdk-pixbuf/gdk-pixbuf.h>
#include <gio/gio.h>

/* gdk-pixbuf reads this much of a file before choosing a loader. */
#define SNIFF_BYTES 4096

static void
test_sniffed_as_svg (gconstpointer data)
{
  const char *path = data;
  g_autoptr(GFile) file = g_file_new_for_path (path);
  g_autoptr(GFileInputStream) in = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *type = NULL;
  g_autofree char *mime = NULL;
  guchar buf[SNIFF_BYTES];
  gsize got = 0;
  gboolean uncertain = TRUE;

  in = g_file_read (file, NULL, &error);
  g_assert_no_error (error);
  g_input_stream_read_all (G_INPUT_STREAM (in), buf, sizeof buf, &got, NULL, &error);
  g_assert_no_error (error);

  type = g_content_type_guess (NULL, buf, got, &uncertain);
  mime = g_content_type_get_mime_type (type);
  g_test_message ("%s: sniffed as %s%s", path, mime, uncertain ? " (uncertain)" : "");
  g_assert_cmpstr (mime, ==, "image/svg+xml");
  g_assert_false (uncertain);
}

static void
test_pixbuf_format (gconstpointer data)
{
  const char *path = data;
  GdkPixbufFormat *format = NULL;
  gboolean have_svg = FALSE;
  g_autoptr(GSList) formats = gdk_pixbuf_get_formats ();
  int width = 0, height = 0;

  for (GSList *l = formats; l != NULL; l = l->next)
    {
      g_autofree char *name = gdk_pixbuf_format_get_name (l->data);

      have_svg = have_svg || g_strcmp0 (name, "svg") == 0;
    }
  if (!have_svg)
    {
      g_test_skip ("no SVG loader for gdk-pixbuf on this machine (librsvg2-common)");
      return;
    }

  format = gdk_pixbuf_get_file_info (path, &width, &height);
  g_assert_nonnull (format);
  {
    g_autofree char *name = gdk_pixbuf_format_get_name (format);

    g_assert_cmpstr (name, ==, "svg");
  }
  g_assert_cmpint (width, >, 0);
  g_assert_cmpint (height, >, 0);
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);

  if (argc < 2)
    g_error ("usage: test-icon-sniff ICON...");
  for (int i = 1; i < argc; i++)
    {
      g_autofree char *base = g_path_get_basename (argv[i]);
      g_autofree char *sniff = g_strdup_printf ("/icons/%s/sniffed-as-svg", base);
      g_autofree char *pixbuf = g_strdup_printf ("/icons/%s/pixbuf-format", base);

      g_test_add_data_func (sniff, argv[i], test_sniffed_as_svg);
      g_test_add_data_func (pixbuf, argv[i], test_pixbuf_format);
    }
  return g_test_run ();
}
