/* riv-stall-monitor.c
 * Copyright 2026 The Rivulet authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "config.h"

#include <string.h>

#include "riv-stall-monitor.h"

#define TIMER_INTERVAL_MS 5

typedef struct
{
  gint64  start_us;
  gint64  end_us;        /* 0 while open */
  double  max_frame_gap_ms;
  double  max_loop_stall_ms;
  guint64 n_frames;
  guint64 n_gaps_50;
  guint64 n_gaps_100;
  guint64 n_wakeups;
} Window;

struct _RivStallMonitor
{
  GtkWidget *widget;       /* weak pointer */
  guint      tick_id;
  guint      timer_id;
  gint64     last_tick_us;
  gint64     last_timer_us;
  Window     total;
  Window     marked;
  char      *label;
  gboolean   has_mark;
};

static void
window_add_frame (Window *w,
                  double  gap_ms)
{
  if (w->end_us != 0)
    return;
  w->n_frames++;
  w->max_frame_gap_ms = MAX (w->max_frame_gap_ms, gap_ms);
  if (gap_ms > 50)
    w->n_gaps_50++;
  if (gap_ms > 100)
    w->n_gaps_100++;
}

static void
window_add_wakeup (Window *w,
                   double  stall_ms)
{
  if (w->end_us != 0)
    return;
  w->n_wakeups++;
  w->max_loop_stall_ms = MAX (w->max_loop_stall_ms, stall_ms);
}

static gboolean
tick_cb (GtkWidget     *widget,
         GdkFrameClock *frame_clock,
         gpointer       user_data)
{
  RivStallMonitor *self = user_data;
  gint64 now = g_get_monotonic_time ();

  if (self->last_tick_us != 0)
    {
      double gap = (now - self->last_tick_us) / 1000.0;

      window_add_frame (&self->total, gap);
      if (self->has_mark)
        window_add_frame (&self->marked, gap);
    }
  self->last_tick_us = now;

  return G_SOURCE_CONTINUE;
}

static gboolean
timer_cb (gpointer user_data)
{
  RivStallMonitor *self = user_data;
  gint64 now = g_get_monotonic_time ();

  if (self->last_timer_us != 0)
    {
      /* The lateness past the due time is time the loop spent elsewhere. */
      double stall = MAX (0, (now - self->last_timer_us) / 1000.0 - TIMER_INTERVAL_MS);

      window_add_wakeup (&self->total, stall);
      if (self->has_mark)
        window_add_wakeup (&self->marked, stall);
    }
  self->last_timer_us = now;

  return G_SOURCE_CONTINUE;
}

RivStallMonitor *
riv_stall_monitor_new (GtkWidget *widget)
{
  RivStallMonitor *self;

  g_return_val_if_fail (GTK_IS_WIDGET (widget), NULL);

  self = g_new0 (RivStallMonitor, 1);
  self->widget = widget;
  g_object_add_weak_pointer (G_OBJECT (widget), (gpointer *) &self->widget);
  self->tick_id = gtk_widget_add_tick_callback (widget, tick_cb, self, NULL);
  self->timer_id = g_timeout_add_full (G_PRIORITY_HIGH, TIMER_INTERVAL_MS, timer_cb, self, NULL);
  self->total.start_us = g_get_monotonic_time ();

  return self;
}

void
riv_stall_monitor_free (RivStallMonitor *self)
{
  if (self == NULL)
    return;

  if (self->widget != NULL)
    {
      gtk_widget_remove_tick_callback (self->widget, self->tick_id);
      g_object_remove_weak_pointer (G_OBJECT (self->widget), (gpointer *) &self->widget);
    }
  g_clear_handle_id (&self->timer_id, g_source_remove);
  g_free (self->label);
  g_free (self);
}

void
riv_stall_monitor_mark (RivStallMonitor *self,
                        const char      *label)
{
  g_return_if_fail (self != NULL);

  memset (&self->marked, 0, sizeof self->marked);
  self->marked.start_us = g_get_monotonic_time ();
  self->has_mark = TRUE;
  g_free (self->label);
  self->label = g_strdup (label);
}

void
riv_stall_monitor_close_mark (RivStallMonitor *self)
{
  g_return_if_fail (self != NULL);

  if (self->has_mark && self->marked.end_us == 0)
    self->marked.end_us = g_get_monotonic_time ();
}

static void
fill_stats (const Window  *w,
            RivStallStats *stats)
{
  gint64 end = w->end_us != 0 ? w->end_us : g_get_monotonic_time ();

  stats->max_frame_gap_ms = w->max_frame_gap_ms;
  stats->max_loop_stall_ms = w->max_loop_stall_ms;
  stats->n_frames = w->n_frames;
  stats->n_frame_gaps_over_50ms = w->n_gaps_50;
  stats->n_frame_gaps_over_100ms = w->n_gaps_100;
  stats->n_wakeups = w->n_wakeups;
  stats->seconds = (end - w->start_us) / (double) G_USEC_PER_SEC;
}

void
riv_stall_monitor_get_stats (RivStallMonitor *self,
                             gboolean         since_mark,
                             RivStallStats   *stats)
{
  g_return_if_fail (self != NULL);
  g_return_if_fail (stats != NULL);

  fill_stats (since_mark && self->has_mark ? &self->marked : &self->total, stats);
}

char *
riv_stall_monitor_dup_report (RivStallMonitor *self)
{
  GString *report = g_string_new (NULL);
  RivStallStats stats;

  riv_stall_monitor_get_stats (self, FALSE, &stats);
  g_string_append_printf (report,
                          "rivulet stall report: whole run %.1f s: longest main-loop stall %.1f ms, "
                          "longest frame gap %.1f ms; %" G_GUINT64_FORMAT " frames, %"
                          G_GUINT64_FORMAT " gaps > 50 ms, %" G_GUINT64_FORMAT " > 100 ms\n",
                          stats.seconds, stats.max_loop_stall_ms, stats.max_frame_gap_ms,
                          stats.n_frames, stats.n_frame_gaps_over_50ms,
                          stats.n_frame_gaps_over_100ms);
  if (self->has_mark)
    {
      riv_stall_monitor_get_stats (self, TRUE, &stats);
      g_string_append_printf (report,
                              "rivulet stall report: %s (%.1f s): longest main-loop stall %.1f ms, "
                              "longest frame gap %.1f ms; %" G_GUINT64_FORMAT " frames, %"
                              G_GUINT64_FORMAT " gaps > 50 ms, %" G_GUINT64_FORMAT " > 100 ms\n",
                              self->label != NULL ? self->label : "marked window",
                              stats.seconds, stats.max_loop_stall_ms, stats.max_frame_gap_ms,
                              stats.n_frames, stats.n_frame_gaps_over_50ms,
                              stats.n_frame_gaps_over_100ms);
    }

  return g_string_free (report, FALSE);
}
