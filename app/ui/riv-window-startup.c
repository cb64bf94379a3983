/* riv-window-startup.c
 * Copyright 2026 The Rivulet authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * What the command line asked the window for (RivWindowStartup), applied once
 * connected: the endpoint, --data, then a burst or a load test once the
 * form's files are sent; and with --quit-after-burst the burst's summary
 * printed and the window closed (a load test's: riv-window-load.c).
 */
#include "config.h"

#include <glib/gi18n.h>

#include "riv-compat.h"
#include "riv-form.h"
#include "riv-window-private.h"

void
riv_window_startup_free (RivWindowStartup *startup)
{
  if (startup == NULL)
    return;

  g_free (startup->server_url);
  g_free (startup->token);
  g_free (startup->endpoint);
  g_free (startup->stages);
  g_clear_pointer (&startup->data, json_node_unref);
  g_free (startup);
}

static int
compare_doubles (gconstpointer a,
                 gconstpointer b)
{
  double x = *(const double *) a, y = *(const double *) b;

  return (x > y) - (x < y);
}

/* The median of a job timing over every job that has it (for the burst report). */
static double
riv_window_median_time (RivWindow *self,
                        double   (*getter) (RivJob *job))
{
  g_autoptr(GArray) values = g_array_new (FALSE, FALSE, sizeof (double));
  GListModel *jobs;
  guint n;

  if (riv_window_get_client (self) == NULL)
    return -1;

  jobs = riv_client_get_jobs (riv_window_get_client (self));
  n = g_list_model_get_n_items (jobs);
  for (guint i = 0; i < n; i++)
    {
      g_autoptr(RivJob) job = g_list_model_get_item (jobs, i);
      double value = getter (job);

      if (value >= 0)
        g_array_append_val (values, value);
    }
  if (values->len == 0)
    return -1;

  g_array_sort (values, compare_doubles);
  return g_array_index (values, double, values->len / 2);
}

void
_riv_window_maybe_quit_after_burst (RivWindow *self)
{
  RivJobPanel *panel = self->job_panel;
  RivBurst *burst = riv_burst_controller_get_burst (self->bursts);

  if (self->startup == NULL || !self->startup->quit_after_burst || self->closing)
    return;
  if (burst == NULL || riv_burst_is_running (burst))
    return;
  if (riv_window_get_client (self) != NULL && riv_client_get_n_pending (riv_window_get_client (self)) > 0)
    return;

  g_print ("rivulet: burst of %u: %u done, %u failed, %u cancelled, %u lost in %.2f s; "
           "median wait %.3f s, median total %.3f s\n",
           riv_burst_get_n_submitted (burst),
           riv_job_panel_get_count (panel, RIV_BUCKET_DONE),
           riv_job_panel_get_count (panel, RIV_BUCKET_FAILED),
           riv_job_panel_get_count (panel, RIV_BUCKET_CANCELLED),
           riv_job_panel_get_count (panel, RIV_BUCKET_LOST),
           riv_now () - riv_burst_controller_get_started_at (self->bursts),
           riv_window_median_time (self, riv_job_get_wait_time),
           riv_window_median_time (self, riv_job_get_total_time));
  if (self->stall_monitor != NULL)
    riv_stall_monitor_close_mark (self->stall_monitor);

  gtk_window_close (GTK_WINDOW (self));
}

/* A value from --data that cannot be sent ends the start-up like a bad --data. */
static void
riv_window_start_startup_burst (RivWindow *self)
{
  g_autoptr(GError) error = NULL;

  if (!riv_form_check (self->form, &error))
    {
      g_autofree char *text = g_strdup_printf (_("Could not use --data: %s"), error->message);

      _riv_window_toast (self, text);
      g_printerr ("rivulet: %s\n", text);
      self->startup->exit_status = 2;
      if (self->startup != NULL && self->startup->quit_after_burst)
        gtk_window_close (GTK_WINDOW (self));
      return;
    }
  if (self->startup != NULL && self->startup->load)
    {
      _riv_window_start_startup_load (self);
      return;
    }
  _riv_window_start_burst (self);
  _riv_window_show_jobs (self);
}

static void
riv_window_startup_uploaded_cb (RivWindow *self)
{
  if (riv_form_get_busy (self->form))
    return;
  g_signal_handlers_disconnect_by_func (self->form, riv_window_startup_uploaded_cb, self);
  riv_window_start_startup_burst (self);
}

void
_riv_window_apply_startup (RivWindow *self)
{
  RivWindowStartup *startup = self->startup;
  g_autoptr(GError) error = NULL;

  if (startup == NULL)
    return;

  if (startup->endpoint != NULL && !riv_window_select_endpoint (self, startup->endpoint))
    {
      g_autofree char *text = g_strdup_printf (_("This server has no endpoint named “%s”"),
                                               startup->endpoint);

      _riv_window_toast (self, text);
      g_printerr ("rivulet: %s\n", text);
      self->startup->exit_status = 2;
      if (startup->quit_after_burst)
        gtk_window_close (GTK_WINDOW (self));
      return;
    }

  if (startup->data != NULL && !riv_form_set_data (self->form, startup->data, &error))
    {
      g_autofree char *text = g_strdup_printf (_("Could not use --data: %s"), error->message);

      _riv_window_toast (self, text);
      g_printerr ("rivulet: %s\n", text);
      self->startup->exit_status = 2;
      if (startup->quit_after_burst)
        gtk_window_close (GTK_WINDOW (self));
      return;
    }

  if (startup->load)
    _riv_window_set_startup_load (self);
  if (startup->burst > 0 || startup->load)
    {
      if (startup->burst > 0)
        riv_window_set_burst (self, startup->burst, startup->rate);
      /* Files given with --data are uploaded first. */
      if (riv_form_get_busy (self->form))
        g_signal_connect_object (self->form, "notify::busy",
                                 G_CALLBACK (riv_window_startup_uploaded_cb), self,
                                 G_CONNECT_SWAPPED);
      else
        riv_window_start_startup_burst (self);
    }
}
