/* riv-window-load.c
 * Copyright 2026 The Rivulet authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The window's Load mode, beside Burst: its settings (RivLoadSettings) take
 * the Burst settings' place, its page (RivLoadPage: the run, the live charts,
 * "Save Report") the output view's, and "Start Load" the Burst button's. The
 * window gives the page its client and, on Start, the selected endpoint and
 * the form's inputs; the page's "toast" messages become the window's toasts.
 */
#include "config.h"

#include <glib/gi18n.h>

#include "riv-a11y.h"
#include "riv-form.h"
#include "riv-window-load.h"
#include "riv-window-private.h"

static void
update_button (RivWindow *self)
{
  gboolean running = riv_load_page_get_running (self->load_page);
  const char *label = running ? _("St_op Load") : _("Start _Load");

  gtk_button_set_label (self->load_button, label);
  riv_a11y_set_name (GTK_WIDGET (self->load_button), label);
  gtk_actionable_set_action_name (GTK_ACTIONABLE (self->load_button),
                                  running ? "win.stop-load" : "win.load");
  if (running)
    gtk_widget_add_css_class (GTK_WIDGET (self->load_button), "destructive-action");
  else
    gtk_widget_remove_css_class (GTK_WIDGET (self->load_button), "destructive-action");
}

static void
running_changed_cb (RivWindow   *self,
                    GParamSpec  *pspec,
                    RivLoadPage *page)
{
  update_button (self);
  _riv_window_update_actions (self);
}

static void
page_toast_cb (RivWindow   *self,
               const char  *message,
               RivLoadPage *page)
{
  _riv_window_toast (self, message);
}

static gboolean
can_start (RivWindow *self)
{
  return self->client != NULL && riv_form_get_endpoint (self->form) != NULL &&
         !riv_form_get_busy (self->form) && !riv_load_page_get_running (self->load_page);
}

gboolean
riv_window_start_load (RivWindow *self)
{
  g_autoptr(JsonNode) data = NULL;
  g_autofree char *endpoint = NULL;

  g_return_val_if_fail (RIV_IS_WINDOW (self), FALSE);

  if (!can_start (self))
    return FALSE;

  endpoint = _riv_window_dup_endpoint_name (self);
  data = riv_form_dup_data (self->form);
  if (!riv_load_page_start (self->load_page, endpoint, data))
    return FALSE;

  if (self->stall_monitor != NULL)
    {
      g_autofree char *label = g_strdup_printf ("load test on /%s", endpoint);

      riv_stall_monitor_mark (self->stall_monitor, label);
    }
  gtk_stack_set_visible_child_name (self->view_stack, "charts");
  return TRUE;
}

void
riv_window_stop_load (RivWindow *self)
{
  g_return_if_fail (RIV_IS_WINDOW (self));

  riv_load_page_stop (self->load_page);
}

static void
load_action (GtkWidget  *widget,
             const char *action_name,
             GVariant   *param)
{
  riv_window_start_load (RIV_WINDOW (widget));
}

static void
stop_load_action (GtkWidget  *widget,
                  const char *action_name,
                  GVariant   *param)
{
  riv_window_stop_load (RIV_WINDOW (widget));
}

void
riv_window_save_load_report_async (RivWindow           *self,
                                   GFile               *file,
                                   GAsyncReadyCallback  callback,
                                   gpointer             user_data)
{
  g_return_if_fail (RIV_IS_WINDOW (self));

  riv_load_page_save_report_async (self->load_page, file, callback, user_data);
}

gboolean
riv_window_save_load_report_finish (RivWindow     *self,
                                    GAsyncResult  *result,
                                    GError       **error)
{
  g_return_val_if_fail (RIV_IS_WINDOW (self), FALSE);

  return riv_load_page_save_report_finish (self->load_page, result, error);
}

static void
mode_changed_cb (RivWindow  *self,
                 GParamSpec *pspec,
                 GtkStack   *stack)
{
  gboolean loading = g_strcmp0 (gtk_stack_get_visible_child_name (stack), "load") == 0;

  gtk_widget_set_visible (GTK_WIDGET (self->burst_button), !loading);
  gtk_widget_set_visible (GTK_WIDGET (self->load_button), loading);
  gtk_stack_set_visible_child_name (self->view_stack, loading ? "charts" : "output");
  /* The users' jobs are not the window's: the charts take the job panel's room. */
  gtk_widget_set_visible (GTK_WIDGET (self->job_panel), !loading);
}

void
riv_window_set_load_mode (RivWindow *self,
                          gboolean   loading)
{
  g_return_if_fail (RIV_IS_WINDOW (self));

  gtk_stack_set_visible_child_name (self->mode_stack, loading ? "load" : "burst");
}

void
riv_window_set_load (RivWindow  *self,
                     guint       users,
                     double      duration,
                     double      think,
                     const char *stages)
{
  g_return_if_fail (RIV_IS_WINDOW (self));

  riv_load_settings_set (riv_load_page_get_settings (self->load_page), users, duration, think,
                         stages);
}

RivLoadPage *
riv_window_get_load_page (RivWindow *self)
{
  g_return_val_if_fail (RIV_IS_WINDOW (self), NULL);

  return self->load_page;
}

RivLoadRun *
riv_window_get_load_run (RivWindow *self)
{
  g_return_val_if_fail (RIV_IS_WINDOW (self), NULL);

  return riv_load_page_get_run (self->load_page);
}

RivMetrics *
riv_window_get_load_metrics (RivWindow *self)
{
  g_return_val_if_fail (RIV_IS_WINDOW (self), NULL);

  return riv_load_page_get_metrics (self->load_page);
}

RivChart *
riv_window_get_load_chart (RivWindow    *self,
                           RivLoadChart  chart)
{
  g_return_val_if_fail (RIV_IS_WINDOW (self), NULL);

  return riv_load_page_get_chart (self->load_page, chart);
}

void
_riv_window_load_update_actions (RivWindow *self)
{
  if (self->load_page == NULL)
    return;
  gtk_widget_action_set_enabled (GTK_WIDGET (self), "win.load", can_start (self));
  gtk_widget_action_set_enabled (GTK_WIDGET (self), "win.stop-load",
                                 riv_load_page_get_running (self->load_page));
}

void
_riv_window_class_load_init (GtkWidgetClass *widget_class)
{
  g_type_ensure (RIV_TYPE_LOAD_PAGE);
  g_type_ensure (RIV_TYPE_LOAD_SETTINGS);
  gtk_widget_class_bind_template_child (widget_class, RivWindow, mode_stack);
  gtk_widget_class_bind_template_child (widget_class, RivWindow, view_stack);
  gtk_widget_class_bind_template_child (widget_class, RivWindow, load_page);
  gtk_widget_class_bind_template_child (widget_class, RivWindow, load_button);
  gtk_widget_class_bind_template_callback (widget_class, mode_changed_cb);
  gtk_widget_class_install_action (widget_class, "win.load", NULL, load_action);
  gtk_widget_class_install_action (widget_class, "win.stop-load", NULL, stop_load_action);
}

/* After the template (riv-window.ui) is built. */
void
_riv_window_load_init (RivWindow *self)
{
  update_button (self);
  g_signal_connect_object (self->load_page, "notify::running",
                           G_CALLBACK (running_changed_cb), self, G_CONNECT_SWAPPED);
  g_signal_connect_object (self->load_page, "toast", G_CALLBACK (page_toast_cb), self,
                           G_CONNECT_SWAPPED);
  mode_changed_cb (self, NULL, self->mode_stack);
}
