/* riv-load-break.c
 * Copyright 2026 The Rivulet authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Naming a breaking point (load --until-break): which class of failure a
 * job's error text is, and that class in plain words. Real Gradio keeps at
 * most 2,000 sessions (an LRU cache of pending messages in its queue); a
 * message for an evicted session ends the queue's task, jobs on open streams
 * then end with "Server stopped unexpectedly." and every later join is
 * refused with HTTP 503 "Queue is stopped." until the server restarts.
 * Also the error classes the statistics count texts under
 * (riv_load_error_class ()).
 */
#include "config.h"

#include <string.h>

#include "riv-load-break.h"

static gboolean
has (const char *text,
     const char *needle)
{
  g_autofree char *lower = g_ascii_strdown (text, -1);

  return strstr (lower, needle) != NULL;
}

/* A ZeroGPU Space's job errors (raised by its "spaces" package as gr.Error,
 * the job's error text): today's "You have exceeded your free GPU quota
 * (60s requested vs. 12s left). Try again in 0:01:05" under the title
 * "ZeroGPU quota exceeded", and the older "You have exceeded your GPU quota
 * (150s left vs. 200s requested). Please retry in 0:02:13", with "free",
 * "Pro" or nothing before "GPU quota"; the daily limit of visitors without
 * an account ("… ZeroGPU quota …"); and a requested duration over the
 * tier's limit ("ZeroGPU illegal duration"). */
static gboolean
is_zerogpu_quota (const char *text)
{
  g_autofree char *lower = g_ascii_strdown (text, -1);
  const char *exceeded = strstr (lower, "exceeded your ");

  if (exceeded != NULL)
    {
      const char *quota = strstr (exceeded, "gpu quota");

      /* "exceeded your [free|pro|…] gpu quota": at most one word between. */
      if (quota != NULL && quota - exceeded <= (gssize) strlen ("exceeded your ") + 16)
        return TRUE;
    }
  return strstr (lower, "zerogpu quota") != NULL || strstr (lower, "gpu quota exceeded") != NULL ||
         strstr (lower, "zerogpu illegal duration") != NULL ||
         (strstr (lower, "zerogpu") != NULL && strstr (lower, "limit") != NULL &&
          strstr (lower, "quota") != NULL);
}

const char *
riv_load_error_class (const char *text)
{
  if (text != NULL && is_zerogpu_quota (text))
    return RIV_LOAD_ERROR_ZEROGPU_QUOTA;
  return NULL;
}

RivBreakKind
_riv_load_break_classify (RivJobStatus  status,
                          const char   *error)
{
  RivBreakKind plain = status == RIV_JOB_STATUS_LOST ? RIV_BREAK_LOST : RIV_BREAK_FAILED;

  if (error == NULL)
    return plain;
  if (riv_load_error_class (error) != NULL)
    return RIV_BREAK_ZEROGPU_QUOTA;
  if (has (error, "queue is stopped") || has (error, "server stopped unexpectedly"))
    return RIV_BREAK_QUEUE_STOPPED;
  if (has (error, "queue is full"))
    return RIV_BREAK_QUEUE_FULL;
  if (has (error, "connection refused"))
    return RIV_BREAK_REFUSED;
  if (has (error, "did not answer") || has (error, "timed out") || has (error, "no data from") ||
      has (error, "timeout"))
    return RIV_BREAK_TIMEOUT;
  if (has (error, "connection reset") || has (error, "connection to the server was lost") ||
      has (error, "broken pipe") || has (error, "connection terminated"))
    return RIV_BREAK_DROPPED;
  return plain;
}

/* 2013 → "2,013". */
static char *
thousands (guint64 n)
{
  g_autofree char *digits = g_strdup_printf ("%" G_GUINT64_FORMAT, n);
  GString *out = g_string_new (NULL);
  gsize len = strlen (digits);

  for (gsize i = 0; i < len; i++)
    {
      if (i > 0 && (len - i) % 3 == 0)
        g_string_append_c (out, ',');
      g_string_append_c (out, digits[i]);
    }
  return g_string_free (out, FALSE);
}

char *
_riv_load_break_reason (RivBreakKind              kind,
                        const RivLoadBreakpoint  *breakpoint,
                        const char               *error)
{
  g_autofree char *sessions = thousands (breakpoint->sessions);

  switch (kind)
    {
    case RIV_BREAK_QUEUE_STOPPED:
      return g_strdup_printf ("the server stopped its queue after %s session%s", sessions,
                              breakpoint->sessions == 1 ? "" : "s");
    case RIV_BREAK_ZEROGPU_QUOTA:
      return g_strdup (RIV_LOAD_ERROR_ZEROGPU_QUOTA);
    case RIV_BREAK_QUEUE_FULL:
      return g_strdup ("queue full");
    case RIV_BREAK_REFUSED:
      return g_strdup ("connection refused");
    case RIV_BREAK_TIMEOUT:
      return g_strdup ("timeouts");
    case RIV_BREAK_DROPPED:
      return g_strdup ("connections dropped");
    case RIV_BREAK_THRESHOLD:
      return g_strdup (error != NULL ? error : "a threshold was crossed");
    case RIV_BREAK_LOST:
      return g_strdup_printf ("jobs lost: %s", error != NULL ? error : "no reason given");
    case RIV_BREAK_FAILED:
    case RIV_BREAK_N_KINDS:
    default:
      return g_strdup_printf ("jobs failed: %s", error != NULL ? error : "no reason given");
    }
}

char *
riv_load_breakpoint_describe (const RivLoadBreakpoint *breakpoint)
{
  g_autofree char *users = NULL;
  g_autofree char *sessions = NULL;
  g_autofree char *p95 = NULL;

  g_return_val_if_fail (breakpoint != NULL, NULL);

  users = thousands (breakpoint->users);
  sessions = thousands (breakpoint->sessions);
  p95 = breakpoint->p95_s_before >= 0 ? g_strdup_printf ("%.3f s", breakpoint->p95_s_before)
                                      : g_strdup ("none completed");
  return g_strdup_printf ("after %.1f s at %s user%s (%s session%s, %.1f jobs/s, p95 before %s): %s",
                          breakpoint->t, users, breakpoint->users == 1 ? "" : "s",
                          sessions, breakpoint->sessions == 1 ? "" : "s",
                          breakpoint->rate_per_s, p95, breakpoint->reason);
}
