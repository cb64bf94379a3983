/* riv-window-adaptive.c
 * Copyright 2026 The Rivulet authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The window on today's libadwaita (1.4 and later): the template's form column
 * and job view move into an AdwNavigationSplitView, each page an
 * AdwToolbarView with its own header bar, and an AdwBreakpoint collapses the
 * split view on a narrow window (a phone, a tiled half screen) so the form and
 * the job view become pages the user moves between. The template stays the
 * one libadwaita 1.2 can load (GtkBuilder there knows none of these widgets);
 * on 1.2 the window keeps its paned layout and this file does nothing.
 */
#include "config.h"

#include <glib/gi18n.h>

#include "riv-a11y.h"
#include "riv-window-private.h"

#if ADW_CHECK_VERSION (1, 4, 0) && GTK_CHECK_VERSION (4, 10, 0)

/* Below this width the split view collapses into pages. */
#define RIV_WINDOW_NARROW "max-width: 720sp"

static void
show_jobs_clicked_cb (GtkButton *button,
                      RivWindow *self)
{
  adw_navigation_split_view_set_show_content (ADW_NAVIGATION_SPLIT_VIEW (self->split_view), TRUE);
}

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

/* Takes widget out of its GtkBox parent and returns a reference to it. */
static GtkWidget *
take_from_box (GtkWidget *widget)
{
  g_object_ref (widget);
  gtk_box_remove (GTK_BOX (gtk_widget_get_parent (widget)), widget);
  return widget;
}

/* The sidebar: the server and the main menu above the form, the buttons
 * below it; *jobs_button (shown when narrow) goes to the jobs. */
static AdwNavigationPage *
build_sidebar_page (RivWindow  *self,
                    GtkWidget  *form_column,
                    GtkWidget  *buttons,
                    GtkWidget **jobs_button)
{
  GtkWidget *sidebar_header = adw_header_bar_new ();
  GtkWidget *sidebar_view = adw_toolbar_view_new ();
  GtkWidget *jobs_content = adw_button_content_new ();
  AdwNavigationPage *sidebar_page;

  adw_header_bar_set_show_title (ADW_HEADER_BAR (sidebar_header), FALSE);
  g_object_ref (self->connect_button);
  adw_header_bar_remove (self->header_bar, GTK_WIDGET (self->connect_button));
  adw_header_bar_pack_start (ADW_HEADER_BAR (sidebar_header), GTK_WIDGET (self->connect_button));
  g_object_unref (self->connect_button);
  g_object_ref (self->menu_button);
  adw_header_bar_remove (self->header_bar, GTK_WIDGET (self->menu_button));
  adw_header_bar_pack_end (ADW_HEADER_BAR (sidebar_header), GTK_WIDGET (self->menu_button));
  g_object_unref (self->menu_button);
  *jobs_button = gtk_button_new ();
  adw_button_content_set_icon_name (ADW_BUTTON_CONTENT (jobs_content), "go-next-symbolic");
  adw_button_content_set_label (ADW_BUTTON_CONTENT (jobs_content), _("Jobs"));
  gtk_button_set_child (GTK_BUTTON (*jobs_button), jobs_content);
  gtk_widget_set_tooltip_text (*jobs_button, _("Show the jobs"));
  riv_a11y_set_name (*jobs_button, _("Jobs"));
  gtk_widget_set_visible (*jobs_button, FALSE);
  g_signal_connect_object (*jobs_button, "clicked", G_CALLBACK (show_jobs_clicked_cb), self, 0);
  adw_header_bar_pack_end (ADW_HEADER_BAR (sidebar_header), *jobs_button);

  adw_toolbar_view_add_top_bar (ADW_TOOLBAR_VIEW (sidebar_view), sidebar_header);
  adw_toolbar_view_set_content (ADW_TOOLBAR_VIEW (sidebar_view), form_column);
  adw_toolbar_view_add_bottom_bar (ADW_TOOLBAR_VIEW (sidebar_view), buttons);
  adw_toolbar_view_set_bottom_bar_style (ADW_TOOLBAR_VIEW (sidebar_view), ADW_TOOLBAR_RAISED);
  sidebar_page = adw_navigation_page_new (sidebar_view, _("Rivulet"));
  adw_navigation_page_set_tag (sidebar_page, "form");
  return sidebar_page;
}

/* The content: the connection's title and state, the lost-connection strip,
 * the jobs in *job_scroller. */
static AdwNavigationPage *
build_content_page (RivWindow  *self,
                    GtkWidget  *header_bar,
                    GtkWidget  *lost,
                    GtkWidget  *job_view,
                    GtkWidget **job_scroller)
{
  GtkWidget *content_view = adw_toolbar_view_new ();
  AdwNavigationPage *content_page;

  adw_toolbar_view_add_top_bar (ADW_TOOLBAR_VIEW (content_view), header_bar);
  adw_toolbar_view_add_top_bar (ADW_TOOLBAR_VIEW (content_view), lost);
  /* Narrow, the job view fits a phone's width (riv_window_set_narrow ()) and
   * never scrolls sideways. The scroller is there for the moment the window
   * crosses the breakpoint: libadwaita checks the content's width before the
   * narrow layout has been measured, and the wide layout is wider than a phone. */
  *job_scroller = gtk_scrolled_window_new ();
  gtk_scrolled_window_set_policy (GTK_SCROLLED_WINDOW (*job_scroller),
                                  GTK_POLICY_AUTOMATIC, GTK_POLICY_NEVER);
  gtk_scrolled_window_set_child (GTK_SCROLLED_WINDOW (*job_scroller), job_view);
  adw_toolbar_view_set_content (ADW_TOOLBAR_VIEW (content_view), *job_scroller);
  content_page = adw_navigation_page_new (content_view, _("Jobs"));
  adw_navigation_page_set_tag (content_page, "jobs");
  return content_page;
}

/* Narrow: one page at a time, the form first, a button to the jobs in its header. */
static void
add_narrow_breakpoint (RivWindow *self,
                       GtkWidget *jobs_button,
                       GtkWidget *job_scroller)
{
  AdwBreakpoint *narrow = adw_breakpoint_new (adw_breakpoint_condition_parse (RIV_WINDOW_NARROW));

  /* The jobs page's header keeps the connection's state; the server's name and
   * address are behind the form page's Server button, and beside the back button
   * and the state there is no room for them on a phone. */
  adw_breakpoint_add_setters (narrow,
                              G_OBJECT (self->split_view), "collapsed", TRUE,
                              G_OBJECT (jobs_button), "visible", TRUE,
                              G_OBJECT (self->status_title), "show-server", FALSE,
                              G_OBJECT (job_scroller), "hscrollbar-policy", GTK_POLICY_NEVER,
                              NULL);
  g_signal_connect_object (narrow, "apply", G_CALLBACK (narrow_apply_cb), self, G_CONNECT_SWAPPED);
  g_signal_connect_object (narrow, "unapply", G_CALLBACK (narrow_unapply_cb), self,
                           G_CONNECT_SWAPPED);
  adw_application_window_add_breakpoint (ADW_APPLICATION_WINDOW (self), narrow);
}

void
_riv_window_adaptive_init (RivWindow *self)
{
  GtkWidget *form_column = gtk_paned_get_start_child (self->main_paned);
  GtkWidget *job_view = gtk_paned_get_end_child (self->main_paned);
  GtkWidget *button_box = GTK_WIDGET (self->submit_bar);
  GtkWidget *separator = gtk_widget_get_prev_sibling (button_box);
  g_autoptr(GtkWidget) header_bar = NULL;
  g_autoptr(GtkWidget) lost = NULL;
  g_autoptr(GtkWidget) buttons = NULL;
  GtkWidget *jobs_button, *job_scroller;
  AdwNavigationPage *sidebar_page, *content_page;
  AdwNavigationSplitView *split_view;

  /* Out of the template's layout. */
  g_object_ref (form_column);
  g_object_ref (job_view);
  gtk_paned_set_start_child (self->main_paned, NULL);
  gtk_paned_set_end_child (self->main_paned, NULL);
  header_bar = take_from_box (GTK_WIDGET (self->header_bar));
  lost = take_from_box (GTK_WIDGET (self->lost_strip));
  buttons = take_from_box (button_box);
  if (GTK_IS_SEPARATOR (separator))
    gtk_box_remove (GTK_BOX (form_column), separator);
  gtk_widget_set_size_request (form_column, -1, -1);

  sidebar_page = build_sidebar_page (self, form_column, buttons, &jobs_button);
  g_object_unref (form_column);
  content_page = build_content_page (self, header_bar, lost, job_view, &job_scroller);
  self->jobs_page = GTK_WIDGET (content_page);
  g_object_unref (job_view);

  self->split_view = adw_navigation_split_view_new ();
  split_view = ADW_NAVIGATION_SPLIT_VIEW (self->split_view);
  adw_navigation_split_view_set_min_sidebar_width (split_view, 340);
  adw_navigation_split_view_set_max_sidebar_width (split_view, 440);
  adw_navigation_split_view_set_sidebar_width_fraction (split_view, 0.3);
  adw_navigation_split_view_set_sidebar (split_view, sidebar_page);
  adw_navigation_split_view_set_content (split_view, content_page);
  /* The old box and paned go with the toast overlay's old child. */
  adw_toast_overlay_set_child (self->toast_overlay, self->split_view);
  self->main_paned = NULL;

  add_narrow_breakpoint (self, jobs_button, job_scroller);
  /* GNOME's smallest phone width; the template's minimum is for the paned layout. */
  gtk_widget_set_size_request (GTK_WIDGET (self), 360, 480);
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

#else /* libadwaita 1.2 or GTK 4.8: the template's paned layout as it is */

void
_riv_window_adaptive_init (RivWindow *self)
{
  self->jobs_page = gtk_paned_get_end_child (self->main_paned);
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
