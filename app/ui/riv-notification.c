/* riv-notification.c
 * Copyright 2026 The Rivulet authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The notices' decisions and wording (pure), and RivNotifier, what a window
 * sent.
 */
#include "config.h"

#include <glib/gi18n.h>

#include "riv-format.h"
#include "riv-notification.h"

void
riv_notice_free (RivNotice *notice)
{
  if (notice == NULL)
    return;

  g_free (notice->id);
  g_free (notice->title);
  g_free (notice->body);
  g_free (notice);
}

GNotification *
riv_notice_to_notification (const RivNotice *notice)
{
  GNotification *notification;

  g_return_val_if_fail (notice != NULL, NULL);

  notification = g_notification_new (notice->title);
  if (notice->body != NULL)
    g_notification_set_body (notification, notice->body);
  /* Clicking it activates the application, which raises the window. */
  return notification;
}

static RivNotice *
riv_notice_new (const char *id,
                char       *title,
                char       *body)
{
  RivNotice *notice = g_new0 (RivNotice, 1);

  notice->id = g_strdup (id);
  notice->title = title;
  notice->body = body;
  return notice;
}

/* One part of "498 done, 2 failed": format is the count's plural form. */
static void
append_count (GString    *text,
              const char *format,
              guint       n)
{
  if (text->len > 0)
    /* Translators: separates the parts of "498 done, 2 failed" */
    g_string_append (text, _(", "));
  g_string_append_printf (text, format, n);
}

RivNotice *
riv_notice_for_burst (const RivBurstTally *tally,
                      gboolean             burst_running,
                      gboolean             enabled,
                      gboolean             window_active)
{
  g_return_val_if_fail (tally != NULL, NULL);

  if (!enabled || window_active || burst_running || tally->n_submitted == 0 ||
      riv_outcomes_finished (&tally->outcomes) < tally->n_submitted)
    return NULL;
  return riv_notice_describe_burst (tally);
}

RivNotice *
riv_notice_describe_burst (const RivBurstTally *tally)
{
  /* A burst counts far fewer than G_MAXUINT jobs. */
  guint done, failed, cancelled, lost;
  GString *body;
  char *title;

  g_return_val_if_fail (tally != NULL, NULL);

  done = (guint) tally->outcomes.completed;
  failed = (guint) tally->outcomes.failed;
  cancelled = (guint) tally->outcomes.cancelled;
  lost = (guint) tally->outcomes.lost;
  title = g_strdup_printf (g_dngettext (GETTEXT_PACKAGE, "Burst of %u job finished",
                                        "Burst of %u jobs finished", tally->n_submitted),
                           tally->n_submitted);

  body = g_string_new (NULL);
  append_count (body, g_dngettext (GETTEXT_PACKAGE, "%u done", "%u done", done), done);
  if (failed > 0)
    append_count (body, g_dngettext (GETTEXT_PACKAGE, "%u failed", "%u failed", failed), failed);
  if (cancelled > 0)
    append_count (body, g_dngettext (GETTEXT_PACKAGE, "%u cancelled", "%u cancelled", cancelled),
                  cancelled);
  if (lost > 0)
    append_count (body, g_dngettext (GETTEXT_PACKAGE, "%u lost", "%u lost", lost), lost);

  return riv_notice_new ("burst-finished", title, g_string_free (body, FALSE));
}

RivNotice *
riv_notice_for_job (guint         number,
                    const char   *endpoint,
                    RivJobStatus  status,
                    const char   *error,
                    double        seconds,
                    gboolean      in_burst,
                    gboolean      enabled,
                    gboolean      window_active)
{
  if (!enabled || window_active || in_burst || !RIV_JOB_STATUS_IS_TERMINAL (status) ||
      status == RIV_JOB_STATUS_CANCELLED || !(seconds > RIV_NOTICE_LONG_JOB_SECONDS))
    return NULL;
  return riv_notice_describe_job (number, endpoint, status, error, seconds);
}

RivNotice *
riv_notice_describe_job (guint         number,
                         const char   *endpoint,
                         RivJobStatus  status,
                         const char   *error,
                         double        seconds)
{
  g_autofree char *duration = NULL;
  char *title;
  char *body;

  duration = riv_format_duration (seconds);
  if (endpoint == NULL)
    endpoint = "";

  if (status == RIV_JOB_STATUS_COMPLETED)
    {
      title = g_strdup_printf (_("Job #%u finished"), number);
      /* Translators: "/fake_diffusion completed in 12.3 s" */
      body = g_strdup_printf (_("%s completed in %s"), endpoint, duration);
    }
  else if (status == RIV_JOB_STATUS_CANCELLED)
    {
      title = g_strdup_printf (_("Job #%u cancelled"), number);
      body = NULL;
    }
  else
    {
      title = g_strdup_printf (_("Job #%u failed"), number);
      if (error != NULL && *error != '\0')
        /* Translators: "/fake_diffusion: <the server's error message>" */
        body = g_strdup_printf (_("%s: %s"), endpoint, error);
      else
        body = g_strdup_printf (_("%s failed after %s"), endpoint, duration);
    }

  return riv_notice_new ("job-finished", title, body);
}

char *
riv_notice_to_sentence (const RivNotice *notice)
{
  g_return_val_if_fail (notice != NULL, NULL);

  if (notice->body == NULL)
    return g_strdup (notice->title);
  /* Translators: a notification's title and body read out as one: "Job #3
   * finished. /fake_diffusion completed in 12.3 s" */
  return g_strdup_printf (_("%s. %s"), notice->title, notice->body);
}

struct _RivNotifier
{
  RivNotice *last;             /* nullable: the newest notice sent */
  guint      n_sent;
  int        active_override;  /* -1: the window's own answer */
};

RivNotifier *
riv_notifier_new (void)
{
  RivNotifier *self = g_new0 (RivNotifier, 1);

  self->active_override = -1;
  return self;
}

void
riv_notifier_free (RivNotifier *self)
{
  if (self == NULL)
    return;
  riv_notice_free (self->last);
  g_free (self);
}

void
riv_notifier_send (RivNotifier  *self,
                   GApplication *application,
                   RivNotice    *notice)
{
  g_assert (notice != NULL);

  self->n_sent++;
  if (application != NULL)
    {
      g_autoptr(GNotification) notification = riv_notice_to_notification (notice);

      g_application_send_notification (application, notice->id, notification);
    }
  riv_notice_free (self->last);
  self->last = notice;
}

const RivNotice *
riv_notifier_get_last (RivNotifier *self)
{
  return self->last;
}

guint
riv_notifier_get_n_sent (RivNotifier *self)
{
  return self->n_sent;
}

void
riv_notifier_set_active_override (RivNotifier *self,
                                  int          active)
{
  self->active_override = active < 0 ? -1 : active != 0;
}

gboolean
riv_notifier_is_active (RivNotifier *self,
                        gboolean     is_active)
{
  return self->active_override >= 0 ? self->active_override != 0 : is_active;
}
