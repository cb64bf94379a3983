/* riv-ui-test-util.c
 * Copyright 2026 The Rivulet authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "config.h"

#include <X11/Xlib.h>
#include <gdk/x11/gdkx.h>

#include "riv-ui-test-util.h"

static int xfixes_event_base = -1;

/* GDK 4.8 answers every change of an X selection owner (XFixes
 * SelectionNotify) by reading the new owner's targets, and leaks a little
 * each time (a GdkX11SelectionInputStream and its list node), which
 * LeakSanitizer reports. Tests copy to the clipboard and focus entries
 * (both claim a selection); they never need to hear about other owners. */
static gboolean
drop_selection_owner_events_cb (GdkX11Display *display,
                                gpointer       xevent,
                                gpointer       user_data)
{
  const XEvent *event = xevent;

  /* XFixesSelectionNotify is the first XFixes event. */
  return xfixes_event_base >= 0 && event->type == xfixes_event_base;
}

void
riv_ui_test_init (int    *argc,
                  char ***argv)
{
  GdkDisplay *display;

  /* The tests draw with the cairo renderer; never initialise GL (Mesa's EGL
   * setup leaks a little, which would drown real leaks under ASan). */
  g_setenv ("GDK_DEBUG", "gl-disable", FALSE);
  gtk_test_init (argc, argv, NULL);
  adw_init ();

  display = gdk_display_get_default ();
  if (GDK_IS_X11_DISPLAY (display))
    {
      int opcode, error_base;

      if (XQueryExtension (gdk_x11_display_get_xdisplay (display), "XFIXES",
                           &opcode, &xfixes_event_base, &error_base))
        g_signal_connect (display, "xevent", G_CALLBACK (drop_selection_owner_events_cb), NULL);
      else
        xfixes_event_base = -1;
    }
}
