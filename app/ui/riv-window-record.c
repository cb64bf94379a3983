/* riv-window-record.c
 * Copyright 2026 The Rivulet authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The recorder's part in the window (riv-recorder.h): ui/riv-window.ui puts
 * it in the header bar and connects its signals to these callbacks; the
 * window tells it its connections (riv-window.c).
 */
#include "config.h"

#include "riv-window-private.h"

static void
recorder_submit_failed_cb (RivWindow  *self,
                           const char *message)
{
  _riv_window_report (self, RIV_REPORT_SUBMIT, message);
}

/* A recording opened: the window connects to its replay server. */
static void
recorder_replay_ready_cb (RivWindow  *self,
                          const char *url)
{
  riv_window_connect_to_url (self, url, NULL);
}

void
_riv_window_class_record_init (GtkWidgetClass *widget_class)
{
  g_type_ensure (RIV_TYPE_RECORDER);
  gtk_widget_class_bind_template_child (widget_class, RivWindow, recorder);
  gtk_widget_class_bind_template_callback (widget_class, _riv_window_follow_job);
  gtk_widget_class_bind_template_callback (widget_class, recorder_submit_failed_cb);
  gtk_widget_class_bind_template_callback (widget_class, recorder_replay_ready_cb);
}

RivRecorder *
riv_window_get_recorder (RivWindow *self)
{
  g_return_val_if_fail (RIV_IS_WINDOW (self), NULL);

  return self->recorder;
}
