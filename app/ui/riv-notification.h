/* riv-notification.h
 * Copyright 2026 The Rivulet authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Desktop notifications for work that finished while Rivulet was in the
 * background: one summary per burst (never one per job), and one for a
 * single job that ran longer than RIV_NOTICE_LONG_JOB_SECONDS. The decision
 * and the wording are pure functions, so tests need no notification daemon.
 */
#pragma once

#include <gio/gio.h>

#include "riv-job.h"
#include "riv-outcomes.h"

G_BEGIN_DECLS

#define RIV_NOTICE_LONG_JOB_SECONDS 10.0

/* What became of the jobs of one burst. */
typedef struct
{
  guint       n_submitted;
  RivOutcomes outcomes;
} RivBurstTally;

typedef struct
{
  char *id;      /* replaces an earlier notification with the same id */
  char *title;
  char *body;
} RivNotice;

void           riv_notice_free            (RivNotice           *notice);
GNotification *riv_notice_to_notification (const RivNotice     *notice);

/* What a notification (or an announcement) says of a burst whose jobs have
 * all finished, and of one finished job: always a notice. */
RivNotice     *riv_notice_describe_burst  (const RivBurstTally *tally);
RivNotice     *riv_notice_describe_job    (guint                number,
                                           const char          *endpoint,
                                           RivJobStatus         status,
                                           const char          *error,
                                           double               seconds);
/* Its title and body as one sentence for a screen reader. */
char          *riv_notice_to_sentence     (const RivNotice     *notice);

/* NULL unless a notification is wanted: notifications enabled, the window
 * not active, and a burst whose submitted jobs have all finished (at least
 * one job; burst_running says whether it still submits). */
RivNotice     *riv_notice_for_burst       (const RivBurstTally *tally,
                                           gboolean             burst_running,
                                           gboolean             enabled,
                                           gboolean             window_active);
/* NULL unless wanted for a single job (number, endpoint, final status and
 * error, seconds from submission to the end): enabled, window not active,
 * the job not part of a burst, not cancelled, and it took more than
 * RIV_NOTICE_LONG_JOB_SECONDS. */
RivNotice     *riv_notice_for_job         (guint                number,
                                           const char          *endpoint,
                                           RivJobStatus         status,
                                           const char          *error,
                                           double               seconds,
                                           gboolean             in_burst,
                                           gboolean             enabled,
                                           gboolean             window_active);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (RivNotice, riv_notice_free)

/* RivNotifier: what one window sent, and whether it counts as active. */
typedef struct _RivNotifier RivNotifier;

RivNotifier     *riv_notifier_new           (void);
void             riv_notifier_free          (RivNotifier  *self);
/* Sends notice (taken) through application (NULL: only kept and counted). */
void             riv_notifier_send          (RivNotifier  *self,
                                             GApplication *application,
                                             RivNotice    *notice);
const RivNotice *riv_notifier_get_last      (RivNotifier  *self);
guint            riv_notifier_get_n_sent    (RivNotifier  *self);
/* For tests: -1 (the window's own answer counts), 0 (in the background), 1 (in front). */
void             riv_notifier_set_active_override (RivNotifier *self,
                                                   int          active);
/* Whether the window counts as active: is_active, unless overridden. */
gboolean         riv_notifier_is_active     (RivNotifier  *self,
                                             gboolean      is_active);

G_END_DECLS
