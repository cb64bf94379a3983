/* riv-reports.c
 * Copyright 2026 The Rivulet authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * RivReports: the window's toasts (failures, lost jobs, stream errors,
 * refused submissions and the server's log messages), coalesced per kind.
 */
#include "config.h"

#include <glib/gi18n.h>

#include "riv-compat.h"
#include "riv-reports.h"

#define REPORT_INTERVAL_US (1500 * 1000)

struct _RivReports
{
  AdwToastOverlay *overlay;
  AdwToast        *toasts[RIV_N_REPORTS];  /* weak: cleared when dismissed */
  guint            counts[RIV_N_REPORTS];
  char            *last[RIV_N_REPORTS];
  guint            timer_id;
  gint64           last_shown_us;
};

static void
toast_dismissed_cb (AdwToast   *toast,
                    RivReports *self)
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
flush (RivReports *self)
{
  self->last_shown_us = g_get_monotonic_time ();

  for (guint i = 0; i < RIV_N_REPORTS; i++)
    {
      g_autofree char *text = NULL;

      if (self->counts[i] == 0)
        continue;

      text = report_text (i, self->counts[i], self->last[i]);
      self->counts[i] = 0;

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
      g_signal_connect (self->toasts[i], "dismissed", G_CALLBACK (toast_dismissed_cb), self);
      adw_toast_overlay_add_toast (self->overlay, self->toasts[i]);
    }
}

static gboolean
timer_cb (gpointer user_data)
{
  RivReports *self = user_data;

  self->timer_id = 0;
  flush (self);

  return G_SOURCE_REMOVE;
}

RivReports *
riv_reports_new (AdwToastOverlay *overlay)
{
  RivReports *self = g_new0 (RivReports, 1);

  self->overlay = overlay;
  return self;
}

void
riv_reports_add (RivReports    *self,
                 RivReportKind  kind,
                 const char    *message)
{
  gint64 now = g_get_monotonic_time ();

  g_assert (kind < RIV_N_REPORTS);

  self->counts[kind]++;
  riv_set_str (&self->last[kind], message != NULL ? message : "");

  if (self->timer_id != 0)
    return;

  if (now - self->last_shown_us >= REPORT_INTERVAL_US)
    flush (self);
  else
    self->timer_id =
      g_timeout_add ((guint) ((REPORT_INTERVAL_US - (now - self->last_shown_us)) / 1000) + 1,
                     timer_cb, self);
}

AdwToast *
riv_reports_get_toast (RivReports    *self,
                       RivReportKind  kind)
{
  g_return_val_if_fail (kind < RIV_N_REPORTS, NULL);
  return self->toasts[kind];
}

void
riv_reports_free (RivReports *self)
{
  if (self == NULL)
    return;
  g_clear_handle_id (&self->timer_id, g_source_remove);
  for (guint i = 0; i < RIV_N_REPORTS; i++)
    {
      if (self->toasts[i] != NULL)
        g_signal_handlers_disconnect_by_data (self->toasts[i], self);
      g_free (self->last[i]);
    }
  g_free (self);
}
