/* riv-reports.c
 * Copyright 2026 The Rivulet authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The window's toasts: failures, lost jobs, stream errors, refused
 * submissions and the server's log messages, coalesced per kind.
 */
#include "config.h"

#include <glib/gi18n.h>

#include "riv-compat.h"
#include "riv-window-private.h"

#define REPORT_INTERVAL_US (1500 * 1000)

/* Toasts, coalesced: during a burst hundreds of jobs can fail within a second;
 * the user gets one toast per kind that counts them. */

static void
toast_dismissed_cb (AdwToast  *toast,
                    RivWindow *self)
{
  for (guint i = 0; i < RIV_N_REPORTS; i++)
    if (self->toasts[i] == toast)
      self->toasts[i] = NULL;
}

static char *
report_text (RivReportKind  kind,
             guint          count,
             const char    *last)
{
  if (count == 1)
    return g_strdup (last);

  switch (kind)
    {
    case RIV_REPORT_FAILED:
      return g_strdup_printf (g_dngettext (GETTEXT_PACKAGE, "%u job failed — last: %s",
                                           "%u jobs failed — last: %s", count), count, last);
    case RIV_REPORT_LOST:
      return g_strdup_printf (g_dngettext (GETTEXT_PACKAGE, "%u job lost its stream",
                                           "%u jobs lost their stream", count), count);
    case RIV_REPORT_STREAM:
      return g_strdup_printf (g_dngettext (GETTEXT_PACKAGE, "%u stream error — last: %s",
                                           "%u stream errors — last: %s", count), count, last);
    case RIV_REPORT_INFO:
    case RIV_REPORT_WARNING:
      /* A burst of logs: one toast, the newest message and how many more. */
      return g_strdup_printf (g_dngettext (GETTEXT_PACKAGE, "%s (and %u more)",
                                           "%s (and %u more)", count - 1), last, count - 1);
    case RIV_REPORT_SUBMIT:
    case RIV_N_REPORTS:
    default:
      return g_strdup_printf (g_dngettext (GETTEXT_PACKAGE, "%u submission refused — last: %s",
                                           "%u submissions refused — last: %s", count),
                              count, last);
    }
}

static void
riv_window_flush_reports (RivWindow *self)
{
  self->last_report_us = g_get_monotonic_time ();

  for (guint i = 0; i < RIV_N_REPORTS; i++)
    {
      g_autofree char *text = NULL;

      if (self->report_counts[i] == 0)
        continue;

      text = report_text (i, self->report_counts[i], self->report_last[i]);
      self->report_counts[i] = 0;

      if (self->toasts[i] != NULL)
        {
          /* Still on screen: say the newer thing in the same toast. */
          g_autofree char *escaped = g_markup_escape_text (text, -1);

          adw_toast_set_title (self->toasts[i], escaped);
          continue;
        }

      {
        /* libadwaita 1.2 reads toast titles as markup. */
        g_autofree char *escaped = g_markup_escape_text (text, -1);

        self->toasts[i] = adw_toast_new (escaped);
      }
      adw_toast_set_timeout (self->toasts[i], 5);
      if (i == RIV_REPORT_WARNING)
        adw_toast_set_priority (self->toasts[i], ADW_TOAST_PRIORITY_HIGH);
      g_signal_connect_object (self->toasts[i], "dismissed",
                               G_CALLBACK (toast_dismissed_cb), self, 0);
      adw_toast_overlay_add_toast (self->toast_overlay, self->toasts[i]);
    }
}

static gboolean
riv_window_report_timer_cb (gpointer user_data)
{
  RivWindow *self = user_data;

  self->report_timer_id = 0;
  riv_window_flush_reports (self);

  return G_SOURCE_REMOVE;
}

void
_riv_window_report (RivWindow     *self,
                    RivReportKind  kind,
                    const char    *message)
{
  gint64 now = g_get_monotonic_time ();

  g_assert (RIV_IS_WINDOW (self));
  g_assert (kind < RIV_N_REPORTS);

  self->report_counts[kind]++;
  riv_set_str (&self->report_last[kind], message != NULL ? message : "");

  if (self->report_timer_id != 0)
    return;

  if (now - self->last_report_us >= REPORT_INTERVAL_US)
    riv_window_flush_reports (self);
  else
    self->report_timer_id =
      g_timeout_add ((guint) ((REPORT_INTERVAL_US - (now - self->last_report_us)) / 1000) + 1,
                     riv_window_report_timer_cb, self);
}

void
_riv_window_toast (RivWindow  *self,
                   const char *message)
{
  AdwToast *toast = adw_toast_new (message);

  adw_toast_set_timeout (toast, 4);
  adw_toast_overlay_add_toast (self->toast_overlay, toast);
}
