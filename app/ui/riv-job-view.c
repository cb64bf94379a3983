/* riv-job-view.c
 * Copyright 2026 The Rivulet authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * RivJobView (template ui/riv-job-view.ui): the output view or the load
 * page, above the job panel, in a vertical paned.
 */
#include "config.h"

#include "riv-job-view.h"

struct _RivJobView
{
  AdwBin         parent_instance;

  /* Template widgets */
  GtkStack      *view_stack;
  RivOutputView *output_view;
  RivLoadPage   *load_page;
  RivJobPanel   *job_panel;
};

G_DEFINE_FINAL_TYPE (RivJobView, riv_job_view, ADW_TYPE_BIN)

RivOutputView *
riv_job_view_get_output_view (RivJobView *self)
{
  g_return_val_if_fail (RIV_IS_JOB_VIEW (self), NULL);
  return self->output_view;
}

RivLoadPage *
riv_job_view_get_load_page (RivJobView *self)
{
  g_return_val_if_fail (RIV_IS_JOB_VIEW (self), NULL);
  return self->load_page;
}

RivJobPanel *
riv_job_view_get_job_panel (RivJobView *self)
{
  g_return_val_if_fail (RIV_IS_JOB_VIEW (self), NULL);
  return self->job_panel;
}

GtkStack *
riv_job_view_get_view_stack (RivJobView *self)
{
  g_return_val_if_fail (RIV_IS_JOB_VIEW (self), NULL);
  return self->view_stack;
}

static void
riv_job_view_dispose (GObject *object)
{
  /* AdwBin unparents its child itself; let it go before the template does. */
  adw_bin_set_child (ADW_BIN (object), NULL);
  gtk_widget_dispose_template (GTK_WIDGET (object), RIV_TYPE_JOB_VIEW);

  G_OBJECT_CLASS (riv_job_view_parent_class)->dispose (object);
}

static void
riv_job_view_class_init (RivJobViewClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->dispose = riv_job_view_dispose;

  g_type_ensure (RIV_TYPE_OUTPUT_VIEW);
  g_type_ensure (RIV_TYPE_LOAD_PAGE);
  g_type_ensure (RIV_TYPE_JOB_PANEL);
  gtk_widget_class_set_template_from_resource (widget_class,
                                               RIV_RESOURCE_PATH "/ui/riv-job-view.ui");
  gtk_widget_class_bind_template_child (widget_class, RivJobView, view_stack);
  gtk_widget_class_bind_template_child (widget_class, RivJobView, output_view);
  gtk_widget_class_bind_template_child (widget_class, RivJobView, load_page);
  gtk_widget_class_bind_template_child (widget_class, RivJobView, job_panel);
}

static void
riv_job_view_init (RivJobView *self)
{
  gtk_widget_init_template (GTK_WIDGET (self));
}
