/* riv-window-adaptive.c
 * Copyright 2026 The Rivulet authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The window's layout, chosen at build time. On today's libadwaita (1.4 and
 * later, with GTK 4.10 and later) the template is ui/riv-window-adaptive.ui:
 * the form column and the job view are the pages of an AdwNavigationSplitView,
 * each an AdwToolbarView with its own header bar, and an AdwBreakpoint
 * collapses the split view on a narrow window (a phone, a tiled half screen)
 * so the user moves between the pages. On libadwaita 1.2 (whose GtkBuilder
 * knows none of these widgets) it is ui/riv-window.ui, the two side by side
 * in a paned. Both templates hold the same parts (RivFormColumn, RivJobView,
 * RivSubmitBar and the header's), so nothing is moved in code.
 */
#include "config.h"

#include <glib/gi18n.h>

#include "riv-a11y.h"
#include "riv-window-private.h"

#if ADW_CHECK_VERSION (1, 4, 0) && GTK_CHECK_VERSION (4, 10, 0)

static void
narrow_apply_cb (RivWindow *self)
{
  riv_window_set_narrow (self, TRUE);
}

static void
narrow_unapply_cb (RivWindow *self)
{
  riv_window_set_narrow (self, FALSE);
}

void
_riv_window_class_adaptive_init (GtkWidgetClass *widget_class)
{
  gtk_widget_class_set_template_from_resource (widget_class,
                                               RIV_RESOURCE_PATH "/ui/riv-window-adaptive.ui");
  gtk_widget_class_bind_template_child (widget_class, RivWindow, split_view);
  gtk_widget_class_bind_template_child (widget_class, RivWindow, jobs_page);
  /* Named, not kept: only given its spoken name below. */
  gtk_widget_class_bind_template_child_full (widget_class, "jobs_button", FALSE, 0);
  gtk_widget_class_bind_template_callback (widget_class, narrow_apply_cb);
  gtk_widget_class_bind_template_callback (widget_class, narrow_unapply_cb);
  gtk_widget_class_bind_template_callback (widget_class, _riv_window_show_jobs);
}

void
_riv_window_adaptive_init (RivWindow *self)
{
  GObject *jobs_button = gtk_widget_get_template_child (GTK_WIDGET (self), RIV_TYPE_WINDOW,
                                                        "jobs_button");

  /* One spoken name per control (see riv-a11y.h). */
  riv_a11y_set_name (GTK_WIDGET (jobs_button), _("Jobs"));
}

/* Also before the window is first laid out (a burst from the command line):
 * when it is or becomes narrow, it opens on the jobs. */
void
_riv_window_show_jobs (RivWindow *self)
{
  adw_navigation_split_view_set_show_content (ADW_NAVIGATION_SPLIT_VIEW (self->split_view), TRUE);
}

gboolean
riv_window_get_jobs_shown (RivWindow *self)
{
  g_return_val_if_fail (RIV_IS_WINDOW (self), FALSE);

  return adw_navigation_split_view_get_show_content (ADW_NAVIGATION_SPLIT_VIEW (self->split_view));
}

#else /* libadwaita 1.2 or GTK 4.8: the paned layout */

void
_riv_window_class_adaptive_init (GtkWidgetClass *widget_class)
{
  gtk_widget_class_set_template_from_resource (widget_class, RIV_RESOURCE_PATH "/ui/riv-window.ui");
}

void
_riv_window_adaptive_init (RivWindow *self)
{
  self->jobs_page = GTK_WIDGET (self->job_view);
}

void
_riv_window_show_jobs (RivWindow *self)
{
}

gboolean
riv_window_get_jobs_shown (RivWindow *self)
{
  g_return_val_if_fail (RIV_IS_WINDOW (self), FALSE);

  return TRUE;
}

#endif

void
riv_window_set_narrow (RivWindow *self,
                       gboolean   narrow)
{
  g_return_if_fail (RIV_IS_WINDOW (self));

  self->narrow = narrow;
  riv_output_view_set_narrow (self->output_view, narrow);
  riv_job_panel_set_narrow (self->job_panel, narrow);
  riv_load_page_set_narrow (self->load_page, narrow);
}

gboolean
riv_window_get_narrow (RivWindow *self)
{
  g_return_val_if_fail (RIV_IS_WINDOW (self), FALSE);

  return self->narrow;
}

GtkWidget *
riv_window_get_jobs_page (RivWindow *self)
{
  g_return_val_if_fail (RIV_IS_WINDOW (self), NULL);

  return self->jobs_page;
}
