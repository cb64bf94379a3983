/* riv-submit-bar.c
 * Copyright 2026 The Rivulet authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * RivSubmitBar (template ui/riv-submit-bar.ui): Submit, and Burst or
 * Start/Stop Load.
 */
#include "config.h"

#include <glib/gi18n.h>

#include "riv-a11y.h"
#include "riv-submit-bar.h"

struct _RivSubmitBar
{
  GtkBox     parent_instance;

  /* Template widgets */
  GtkButton *submit_button;
  GtkButton *burst_button;
  GtkButton *load_button;
};

G_DEFINE_FINAL_TYPE (RivSubmitBar, riv_submit_bar, GTK_TYPE_BOX)

GtkButton *
riv_submit_bar_get_burst_button (RivSubmitBar *self)
{
  g_return_val_if_fail (RIV_IS_SUBMIT_BAR (self), NULL);

  return self->burst_button;
}

void
riv_submit_bar_set_load_mode (RivSubmitBar *self,
                              gboolean      loading)
{
  g_return_if_fail (RIV_IS_SUBMIT_BAR (self));

  gtk_widget_set_visible (GTK_WIDGET (self->burst_button), !loading);
  gtk_widget_set_visible (GTK_WIDGET (self->load_button), loading);
}

void
riv_submit_bar_set_load_running (RivSubmitBar *self,
                                 gboolean      running)
{
  GtkWidget *button;
  const char *label = running ? _("St_op Load") : _("Start _Load");

  g_return_if_fail (RIV_IS_SUBMIT_BAR (self));

  button = GTK_WIDGET (self->load_button);
  gtk_button_set_label (self->load_button, label);
  riv_a11y_set_name (button, label);
  gtk_actionable_set_action_name (GTK_ACTIONABLE (button), running ? "win.stop-load" : "win.load");
  if (running)
    gtk_widget_add_css_class (button, "destructive-action");
  else
    gtk_widget_remove_css_class (button, "destructive-action");
}

static void
riv_submit_bar_dispose (GObject *object)
{
  gtk_widget_dispose_template (GTK_WIDGET (object), RIV_TYPE_SUBMIT_BAR);

  G_OBJECT_CLASS (riv_submit_bar_parent_class)->dispose (object);
}

static void
riv_submit_bar_class_init (RivSubmitBarClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->dispose = riv_submit_bar_dispose;

  gtk_widget_class_set_template_from_resource (widget_class,
                                               RIV_RESOURCE_PATH "/ui/riv-submit-bar.ui");
  gtk_widget_class_bind_template_child (widget_class, RivSubmitBar, submit_button);
  gtk_widget_class_bind_template_child (widget_class, RivSubmitBar, burst_button);
  gtk_widget_class_bind_template_child (widget_class, RivSubmitBar, load_button);
}

static void
riv_submit_bar_init (RivSubmitBar *self)
{
  gtk_widget_init_template (GTK_WIDGET (self));

  /* One spoken name per control (see riv-a11y.h). */
  riv_a11y_set_name (GTK_WIDGET (self->submit_button), _("_Submit"));
  riv_a11y_set_name (GTK_WIDGET (self->burst_button), _("_Burst"));
  riv_submit_bar_set_load_running (self, FALSE);
}
