/* riv-cli-record.c
 * Copyright 2026 The Rivulet authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "config.h"

#include "riv-cli-record.h"
#include "riv-lint.h"
#include "riv-transcript.h"
#include "riv-util.h"

/* Request ids and stream numbers of the n-th client tapped are moved up by
 * n times these, so that the clients' numbers never meet in one transcript. */
#define ID_STRIDE     ((guint64) 1 << 40)
#define STREAM_STRIDE 100000

typedef struct
{
  char                *path;          /* --record */
  double               max_mb;        /* --record-max */
  gboolean             lint_mode;
  double               heartbeat;
  GPtrArray           *clients;       /* RivClient refs, tapped; nullable */
  RivTranscriptWriter *writer;        /* owned, nullable */
  RivLint             *lint;          /* owned, nullable */
  gboolean             finished;
  gboolean             ok;
} RecordState;

static RecordState record = { .max_mb = 256, .ok = TRUE };

const GOptionEntry *
riv_cli_record_get_entries (void)
{
  static const GOptionEntry entries[] = {
    { "record", 0, 0, G_OPTION_ARG_FILENAME, &record.path,
      "Write the session's transcript to FILE (JSON Lines: requests, replies, stream frames; "
      "no credentials) for serve --replay or lint", "FILE" },
    { "record-max", 0, 0, G_OPTION_ARG_DOUBLE, &record.max_mb,
      "Cut the transcript at this size, marking the cut (default 256)", "MB" },
    { NULL }
  };

  return entries;
}

void
riv_cli_record_set_lint_mode (double heartbeat_interval)
{
  record.lint_mode = TRUE;
  record.heartbeat = heartbeat_interval;
}

/* One tap for both: the writer and the lint see every event. user_data is
 * the client's position among the tapped ones. */
static void
tap_cb (const RivTranscriptEvent *event,
        gpointer                  user_data)
{
  guint n = GPOINTER_TO_UINT (user_data);
  RivTranscriptEvent moved = *event;

  if (n > 0)
    {
      if (moved.kind == RIV_TRANSCRIPT_REQUEST || moved.kind == RIV_TRANSCRIPT_RESPONSE)
        moved.id += n * ID_STRIDE;
      if (moved.stream > 0)
        moved.stream += n * STREAM_STRIDE;
    }
  if (record.writer != NULL)
    riv_transcript_writer_add (record.writer, &moved);
  if (record.lint != NULL)
    riv_lint_feed (record.lint, &moved);
}

void
riv_cli_record_add_client (RivClient *client)
{
  if (record.clients == NULL || record.finished)
    return;
  riv_client_set_tap (client, tap_cb, GUINT_TO_POINTER (record.clients->len));
  g_ptr_array_add (record.clients, g_object_ref (client));
}

gboolean
riv_cli_record_attach (RivClient  *client,
                       gboolean    lint,
                       GError    **error)
{
  double origin = riv_now ();

  if (!(record.max_mb > 0 && record.max_mb <= 1024 * 1024))
    {
      g_set_error_literal (error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
                           "--record-max must be between 0 and 1048576 MB");
      return FALSE;
    }
  if (record.path != NULL)
    {
      record.writer = riv_transcript_writer_new (record.path, (guint64) (record.max_mb * 1024 * 1024),
                                                 error);
      if (record.writer == NULL)
        return FALSE;
      riv_transcript_writer_set_origin (record.writer, origin);
    }
  if (lint || record.lint_mode)
    {
      record.lint = riv_lint_new ();
      riv_lint_set_origin (record.lint, origin);
      riv_lint_set_heartbeat_interval (record.lint, record.heartbeat);
    }
  if (record.writer != NULL || record.lint != NULL)
    {
      record.clients = g_ptr_array_new_with_free_func (g_object_unref);
      riv_cli_record_add_client (client);
    }
  return TRUE;
}

FILE *
riv_cli_record_summary_out (FILE *summary_out)
{
  return record.lint_mode ? stderr : summary_out;
}

static void
print_findings (void)
{
  GPtrArray *findings = riv_lint_get_findings (record.lint);

  for (guint i = 0; i < findings->len; i++)
    {
      RivLintFinding *f = findings->pdata[i];

      g_print ("%8.3f s  %-22s %s  %s\n", f->t, f->rule, f->event_id != NULL ? f->event_id : "-",
               f->message);
    }
  if (riv_lint_get_n_dropped (record.lint) > 0)
    g_print ("(%u more findings not kept)\n", riv_lint_get_n_dropped (record.lint));
  g_print ("%u finding%s\n", findings->len, findings->len == 1 ? "" : "s");
}

void
riv_cli_record_finish (void)
{
  g_autoptr(GError) error = NULL;

  if (record.finished)
    return;
  record.finished = TRUE;
  if (record.clients != NULL)
    {
      for (guint i = 0; i < record.clients->len; i++)
        riv_client_set_tap (record.clients->pdata[i], NULL, NULL);
      g_clear_pointer (&record.clients, g_ptr_array_unref);
    }

  if (record.lint != NULL)
    {
      riv_lint_finish (record.lint, riv_now ());
      if (record.lint_mode)
        print_findings ();
    }
  if (record.writer != NULL)
    {
      gboolean truncated = riv_transcript_writer_get_truncated (record.writer);

      if (truncated)
        g_printerr ("rivulet-cli: the recording reached --record-max (%g MB); %s ends with a "
                    "\"truncated\" mark and holds only the start of the session\n",
                    record.max_mb, record.path);
      if (!riv_transcript_writer_close (g_steal_pointer (&record.writer), &error))
        {
          g_printerr ("rivulet-cli: %s: %s\n", record.path, error->message);
          record.ok = FALSE;
        }
    }
}

void
riv_cli_record_add_lint (JsonBuilder *builder)
{
  if (record.lint == NULL)
    return;
  json_builder_set_member_name (builder, "lint");
  json_builder_add_value (builder, riv_lint_findings_to_json (record.lint));
}

guint
riv_cli_record_get_n_findings (void)
{
  return record.lint != NULL ? riv_lint_get_findings (record.lint)->len : 0;
}

gboolean
riv_cli_record_ok (void)
{
  return record.ok;
}
