/* riv-ui-test-util.c
 * Copyright 2026 The Rivulet authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "config.h"

#include <gdk/x11/gdkx.h>

#include "riv-test-util.h"
#include "riv-ui-test-util.h"

/* GDK 4.8's X11 clipboards answer every change of an X selection owner
 * (an XFixes event; also when this process claims a selection: copying,
 * focusing an entry) by reading the owner's targets back through the X
 * server, and leak a little each time (a GdkX11SelectionInputStream and a
 * list node), which LeakSanitizer reports. The tests only read what they
 * put on the clipboard themselves, which GDK serves locally, so the
 * clipboards' X event handlers are blocked. */
static void
block_x11_clipboard_events (GdkDisplay *display)
{
  GdkClipboard *clipboards[] = { gdk_display_get_clipboard (display),
                                 gdk_display_get_primary_clipboard (display) };

  guint n = 0;

  for (guint i = 0; i < G_N_ELEMENTS (clipboards); i++)
    n += g_signal_handlers_block_matched (display, G_SIGNAL_MATCH_DATA, 0, 0, NULL, NULL,
                                          clipboards[i]);
  g_debug ("Blocked %u X event handlers of the clipboards", n);
}

void
riv_ui_test_init (int    *argc,
                  char ***argv)
{
  g_autoptr(GtkCssProvider) provider = NULL;
  GdkDisplay *display;

  /* The tests draw with the cairo renderer; never initialise GL (Mesa's EGL
   * setup leaks a little, which would drown real leaks under ASan). */
#if GTK_CHECK_VERSION (4, 16, 0)
  g_setenv ("GDK_DISABLE", "gl", FALSE);
#else
  g_setenv ("GDK_DEBUG", "gl-disable", FALSE);
#endif
  gtk_test_init (argc, argv, NULL);
  adw_init ();

  display = gdk_display_get_default ();
  if (GDK_IS_X11_DISPLAY (display))
    block_x11_clipboard_events (display);

  /* The app's stylesheet, which AdwApplication loads by itself: the windows
   * under test are laid out as users see them. */
  provider = gtk_css_provider_new ();
  gtk_css_provider_load_from_resource (provider, RIV_RESOURCE_PATH "/style.css");
  gtk_style_context_add_provider_for_display (display, GTK_STYLE_PROVIDER (provider),
                                              GTK_STYLE_PROVIDER_PRIORITY_APPLICATION);
}

static void
clipboard_text_cb (GObject      *object,
                   GAsyncResult *result,
                   gpointer      user_data)
{
  char **text = user_data;
  g_autoptr(GError) error = NULL;

  *text = gdk_clipboard_read_text_finish (GDK_CLIPBOARD (object), result, &error);
  g_assert_no_error (error);
}

static gboolean
text_is_set (gpointer user_data)
{
  return *(char **) user_data != NULL;
}

char *
riv_ui_test_read_clipboard (GtkWidget *widget)
{
  char *text = NULL;

  gdk_clipboard_read_text_async (gtk_widget_get_clipboard (widget), NULL, clipboard_text_cb,
                                 &text);
  g_assert_true (riv_test_wait_until (text_is_set, &text, 30));
  return text;
}

GtkWidget *
riv_ui_test_find_row (GtkWidget  *widget,
                      const char *title)
{
  if (ADW_IS_PREFERENCES_ROW (widget) &&
      g_strcmp0 (adw_preferences_row_get_title (ADW_PREFERENCES_ROW (widget)), title) == 0)
    return widget;
  for (GtkWidget *child = gtk_widget_get_first_child (widget); child != NULL;
       child = gtk_widget_get_next_sibling (child))
    {
      GtkWidget *found = riv_ui_test_find_row (child, title);

      if (found != NULL)
        return found;
    }
  return NULL;
}

GtkWidget *
riv_ui_test_find_label (GtkWidget  *widget,
                        const char *text)
{
  if (GTK_IS_LABEL (widget) && g_strcmp0 (gtk_label_get_label (GTK_LABEL (widget)), text) == 0)
    return widget;
  for (GtkWidget *child = gtk_widget_get_first_child (widget); child != NULL;
       child = gtk_widget_get_next_sibling (child))
    {
      GtkWidget *found = riv_ui_test_find_label (child, text);

      if (found != NULL)
        return found;
    }
  return NULL;
}

GtkWidget *
riv_ui_test_find_picture (GtkWidget *widget)
{
  if (GTK_IS_PICTURE (widget))
    return widget;
  for (GtkWidget *child = gtk_widget_get_first_child (widget); child != NULL;
       child = gtk_widget_get_next_sibling (child))
    {
      GtkWidget *found = riv_ui_test_find_picture (child);

      if (found != NULL)
        return found;
    }
  return NULL;
}

static gboolean
window_connected (gpointer user_data)
{
  return riv_window_get_client (user_data) != NULL;
}

void
riv_ui_test_window_open (RivEmbeddedServer **server,
                         RivWindow         **window,
                         int                 width,
                         int                 height)
{
  if (*server == NULL)
    *server = riv_embedded_server_new ();
  *window = riv_window_new (NULL, *server);
  g_object_add_weak_pointer (G_OBJECT (*window), (gpointer *) window);
  if (width > 0 && height > 0)
    gtk_window_set_default_size (GTK_WINDOW (*window), width, height);
  gtk_window_present (GTK_WINDOW (*window));
  riv_window_connect_embedded (*window);
  g_assert_true (riv_test_wait_until (window_connected, *window, 60));
}

gboolean
riv_ui_test_gone (gpointer user_data)
{
  return *(gpointer *) user_data == NULL;
}

void
riv_ui_test_window_destroy (RivWindow **window)
{
  if (*window != NULL)
    gtk_window_destroy (GTK_WINDOW (*window));
  g_assert_true (riv_test_wait_until (riv_ui_test_gone, window, 30));
}

void
riv_ui_test_window_close (RivEmbeddedServer **server,
                          RivWindow         **window)
{
  if (*window != NULL)
    gtk_window_close (GTK_WINDOW (*window));
  riv_ui_test_window_destroy (window);
  riv_embedded_server_stop (*server);
  g_assert_finalize_object (*server);
  *server = NULL;
}
