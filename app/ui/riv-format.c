/* riv-format.c
 * Copyright 2026 The Rivulet authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "config.h"

#include <glib/gi18n.h>
#include <math.h>

#include "riv-client.h"
#include "riv-config.h"
#include "riv-format.h"
#include "riv-space.h"

RivBucket
riv_bucket_for_status (RivJobStatus status)
{
  switch (status)
    {
    case RIV_JOB_STATUS_PENDING:
    case RIV_JOB_STATUS_JOINING:
    case RIV_JOB_STATUS_QUEUED:
      return RIV_BUCKET_WAITING;
    case RIV_JOB_STATUS_RUNNING:
    case RIV_JOB_STATUS_STREAMING:
      return RIV_BUCKET_RUNNING;
    case RIV_JOB_STATUS_COMPLETED:
      return RIV_BUCKET_DONE;
    case RIV_JOB_STATUS_FAILED:
      return RIV_BUCKET_FAILED;
    case RIV_JOB_STATUS_CANCELLED:
      return RIV_BUCKET_CANCELLED;
    case RIV_JOB_STATUS_LOST:
    default:
      return RIV_BUCKET_LOST;
    }
}

const char *
riv_bucket_label (RivBucket bucket)
{
  switch (bucket)
    {
    case RIV_BUCKET_WAITING:   return _("Waiting");
    case RIV_BUCKET_RUNNING:   return _("Running");
    case RIV_BUCKET_DONE:      return _("Done");
    case RIV_BUCKET_FAILED:    return _("Failed");
    case RIV_BUCKET_CANCELLED: return _("Cancelled");
    case RIV_BUCKET_LOST:      return _("Lost");
    case RIV_N_BUCKETS:
    default:                   return "";
    }
}

const char *
riv_format_status_word (RivJobStatus status)
{
  switch (status)
    {
    case RIV_JOB_STATUS_PENDING:   return _("Pending");
    case RIV_JOB_STATUS_JOINING:   return _("Joining");
    case RIV_JOB_STATUS_QUEUED:    return _("Queued");
    case RIV_JOB_STATUS_RUNNING:   return _("Running");
    case RIV_JOB_STATUS_STREAMING: return _("Streaming");
    case RIV_JOB_STATUS_COMPLETED: return _("Done");
    case RIV_JOB_STATUS_FAILED:    return _("Failed");
    case RIV_JOB_STATUS_CANCELLED: return _("Cancelled");
    case RIV_JOB_STATUS_LOST:      return _("Lost");
    default:                       return "";
    }
}

const char *
riv_format_status_icon (RivJobStatus status)
{
  switch (status)
    {
    case RIV_JOB_STATUS_PENDING:
    case RIV_JOB_STATUS_JOINING:   return "content-loading-symbolic";
    case RIV_JOB_STATUS_QUEUED:    return "preferences-system-time-symbolic";
    case RIV_JOB_STATUS_RUNNING:
    case RIV_JOB_STATUS_STREAMING: return "media-playback-start-symbolic";
    case RIV_JOB_STATUS_COMPLETED: return "object-select-symbolic";
    case RIV_JOB_STATUS_FAILED:    return "dialog-error-symbolic";
    case RIV_JOB_STATUS_CANCELLED: return "action-unavailable-symbolic";
    case RIV_JOB_STATUS_LOST:      return "network-error-symbolic";
    default:                       return "content-loading-symbolic";
    }
}

const char *
riv_format_status_class (RivJobStatus status)
{
  switch (status)
    {
    case RIV_JOB_STATUS_RUNNING:
    case RIV_JOB_STATUS_STREAMING: return "accent";
    case RIV_JOB_STATUS_COMPLETED: return "success";
    case RIV_JOB_STATUS_FAILED:
    case RIV_JOB_STATUS_LOST:      return "error";
    case RIV_JOB_STATUS_CANCELLED: return "warning";
    default:                       return "dim-label";
    }
}

char *
riv_format_duration (double seconds)
{
  if (seconds < 0 || isnan (seconds))
    return g_strdup ("—");
  if (seconds < 10)
    /* Translators: a duration in seconds with two decimals */
    return g_strdup_printf (_("%.2f s"), seconds);
  if (seconds < 60)
    return g_strdup_printf (_("%.1f s"), seconds);
  else
    {
      guint total = (guint) (seconds + 0.5);

      /* Translators: minutes and seconds, e.g. "2 min 05 s" */
      return g_strdup_printf (_("%u min %02u s"), total / 60, total % 60);
    }
}

char *
riv_format_queue (RivJob *job)
{
  gint64 rank = riv_job_get_rank (job);
  gint64 size = riv_job_get_queue_size (job);

  if (rank < 0 || riv_job_get_status (job) != RIV_JOB_STATUS_QUEUED)
    return g_strdup ("—");
  if (size > 0)
    /* Translators: queue position, "3 of 17" */
    return g_strdup_printf (_("%lld of %lld"),
                            (long long) (rank + 1), (long long) MAX (size, rank + 1));
  return g_strdup_printf ("%" G_GINT64_FORMAT, rank + 1);
}

char *
riv_format_batch (RivJob *job)
{
  const char *id = riv_job_get_batch_id (job);
  gint64 size = riv_job_get_batch_size (job);
  gint64 index = riv_job_get_batch_index (job);
  g_autofree char *shown = NULL;
  const char *p;
  gboolean digits = id != NULL && *id != '\0';

  if (id == NULL || size <= 0)
    return g_strdup ("—");

  for (p = id; *p != '\0' && digits; p++)
    digits = g_ascii_isdigit (*p);

  /* Numeric ids get a "B" so that "B12" reads as a batch, not a count; long
   * opaque ids are shortened to stay readable in a narrow column. */
  if (digits)
    shown = g_strconcat ("B", id, NULL);
  else if (g_utf8_strlen (id, -1) > 8)
    shown = g_utf8_substring (id, 0, 8);
  else
    shown = g_strdup (id);

  return g_strdup_printf ("%s · %" G_GINT64_FORMAT "/%" G_GINT64_FORMAT "%s",
                          shown, index >= 0 ? index + 1 : 0, size,
                          riv_job_get_batch_inferred (job) ? " ~" : "");
}

char *
riv_format_progress (RivJob *job)
{
  gint64 index = riv_job_get_progress_index (job);
  gint64 length = riv_job_get_progress_length (job);
  double fraction = riv_job_get_progress (job);
  RivJobStatus status = riv_job_get_status (job);

  if (status == RIV_JOB_STATUS_COMPLETED)
    return g_strdup (_("done"));
  if (index >= 0 && length > 0)
    return g_strdup_printf ("%" G_GINT64_FORMAT "/%" G_GINT64_FORMAT, index, length);
  if (fraction >= 0)
    return g_strdup_printf ("%.0f %%", CLAMP (fraction, 0, 1) * 100);
  return g_strdup ("—");
}

static gboolean
unit_is_steps (const char *unit)
{
  return unit == NULL || *unit == '\0' ||
         g_str_equal (unit, "steps") || g_str_equal (unit, "step") ||
         g_str_equal (unit, "it");
}

char *
riv_format_status_line (RivJob *job)
{
  RivJobStatus status = riv_job_get_status (job);
  const char *error = riv_job_get_error (job);

  switch (status)
    {
    case RIV_JOB_STATUS_PENDING:
    case RIV_JOB_STATUS_JOINING:
      return g_strdup (_("Submitting…"));

    case RIV_JOB_STATUS_QUEUED:
      {
        gint64 rank = riv_job_get_rank (job);
        gint64 size = riv_job_get_queue_size (job);
        double eta = riv_job_get_eta (job);
        g_autofree char *where = NULL;

        if (rank < 0)
          return g_strdup (_("Queued"));
        where = g_strdup_printf (_("%lld of %lld"),
                                 (long long) (rank + 1), (long long) MAX (size, rank + 1));
        if (eta >= 0)
          /* Translators: "Queued — 3 of 17, about 4 s" */
          return g_strdup_printf (_("Queued — %s, about %.0f s"), where, ceil (eta));
        return g_strdup_printf (_("Queued — %s"), where);
      }

    case RIV_JOB_STATUS_RUNNING:
    case RIV_JOB_STATUS_STREAMING:
      {
        gint64 index = riv_job_get_progress_index (job);
        gint64 length = riv_job_get_progress_length (job);
        double fraction = riv_job_get_progress (job);
        guint n_updates = riv_job_get_n_updates (job);
        const char *unit = riv_job_get_progress_unit (job);

        if (index >= 0 && length > 0 && unit_is_steps (unit))
          return g_strdup_printf (_("Running — step %lld of %lld"),
                                  (long long) index, (long long) length);
        if (index >= 0 && length > 0)
          return g_strdup_printf (_("Running — %lld of %lld %s"),
                                  (long long) index, (long long) length, unit);
        if (fraction >= 0)
          return g_strdup_printf (_("Running — %.0f %%"), CLAMP (fraction, 0, 1) * 100);
        if (n_updates > 0)
          return g_strdup_printf (g_dngettext (GETTEXT_PACKAGE,
                                               "Streaming — %u update",
                                               "Streaming — %u updates", n_updates),
                                  n_updates);
        return g_strdup (_("Running"));
      }

    case RIV_JOB_STATUS_COMPLETED:
      {
        g_autofree char *total = riv_format_duration (riv_job_get_total_time (job));

        return g_strdup_printf (_("Completed in %s"), total);
      }

    case RIV_JOB_STATUS_FAILED:
      if (error != NULL && *error != '\0')
        return g_strdup (error);
      return g_strdup (_("Failed (the server gave no reason)"));

    case RIV_JOB_STATUS_CANCELLED:
      return g_strdup (_("Cancelled"));

    case RIV_JOB_STATUS_LOST:
      if (error != NULL && *error != '\0')
        return g_strdup_printf (_("Lost — %s"), error);
      return g_strdup (_("Lost — the connection to the server broke"));

    default:
      return g_strdup ("");
    }
}

static char *
host_of (const char *url)
{
  g_autoptr(GUri) uri = NULL;

  if (url != NULL)
    uri = g_uri_parse (url, G_URI_FLAGS_NONE, NULL);
  if (uri != NULL && g_uri_get_host (uri) != NULL)
    {
      if (g_uri_get_port (uri) > 0)
        return g_strdup_printf ("%s:%d", g_uri_get_host (uri), g_uri_get_port (uri));
      return g_strdup (g_uri_get_host (uri));
    }
  return g_strdup (url != NULL ? url : "");
}

RivConnectErrorKind
riv_format_connect_error (const GError  *error,
                          const char    *url,
                          char         **message)
{
  g_autofree char *host = host_of (url);
  RivConnectErrorKind kind = RIV_CONNECT_ERROR_OTHER;
  char *text = NULL;

  if (error == NULL)
    {
      if (message != NULL)
        *message = NULL;
      return RIV_CONNECT_ERROR_NONE;
    }

  if (error->domain == RIV_SPACE_ERROR)
    {
      /* The resolver's words name the Space and what the Hub said. */
      kind = g_error_matches (error, RIV_SPACE_ERROR, RIV_SPACE_ERROR_BAD_ID) ||
             g_error_matches (error, RIV_SPACE_ERROR, RIV_SPACE_ERROR_BAD_HUB)
             ? RIV_CONNECT_ERROR_BAD_URL
             : g_error_matches (error, RIV_SPACE_ERROR, RIV_SPACE_ERROR_HUB)
             ? RIV_CONNECT_ERROR_REFUSED : RIV_CONNECT_ERROR_OTHER;
      text = g_strdup_printf (_("The Hugging Face Space could not be opened.\n%s"),
                              error->message);
    }
  else if (g_error_matches (error, RIV_CLIENT_ERROR, RIV_CLIENT_ERROR_BAD_URL) ||
           error->domain == G_URI_ERROR)
    {
      kind = RIV_CONNECT_ERROR_BAD_URL;
      text = g_strdup_printf (_("“%s” is not a server address Rivulet can use. "
                                "Enter an http:// or https:// URL, such as http://127.0.0.1:7860."),
                              url != NULL ? url : "");
    }
  else if (g_error_matches (error, RIV_CLIENT_ERROR, RIV_CLIENT_ERROR_NOT_GRADIO) ||
           g_error_matches (error, RIV_CLIENT_ERROR, RIV_CLIENT_ERROR_PROTOCOL) ||
           g_error_matches (error, RIV_CONFIG_ERROR, RIV_CONFIG_ERROR_INVALID))
    {
      kind = RIV_CONNECT_ERROR_NOT_GRADIO;
      text = g_strdup_printf (_("%s answered, but it is not a Gradio app.\n%s"),
                              host, error->message);
    }
  else if (g_error_matches (error, RIV_CLIENT_ERROR, RIV_CLIENT_ERROR_UNSUPPORTED) ||
           g_error_matches (error, RIV_CONFIG_ERROR, RIV_CONFIG_ERROR_UNSUPPORTED_PROTOCOL))
    {
      kind = RIV_CONNECT_ERROR_UNSUPPORTED;
      text = g_strdup_printf (_("%s uses a protocol Rivulet does not support.\n%s"),
                              host, error->message);
    }
  else if (g_error_matches (error, RIV_CLIENT_ERROR, RIV_CLIENT_ERROR_REJECTED))
    {
      kind = RIV_CONNECT_ERROR_REFUSED;
      text = g_strdup_printf (_("%s refused the connection: %s. Check the access token."),
                              host, error->message);
    }
  else if (error->domain == G_IO_ERROR || error->domain == G_RESOLVER_ERROR ||
           error->domain == G_TLS_ERROR)
    {
      kind = RIV_CONNECT_ERROR_UNREACHABLE;
      text = g_strdup_printf (_("Could not reach %s. Is the server running?\n%s"),
                              host, error->message);
    }
  else
    {
      text = g_strdup_printf (_("Could not connect to %s: %s"), host, error->message);
    }

  if (message != NULL)
    *message = text;
  else
    g_free (text);

  return kind;
}
