/* riv-cli-record.c
 * Copyright 2026 The Rivulet authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "config.h"

#include "riv-cli-record.h"
#include "riv-cli.h"
#include "riv-compat.h"
#include "riv-lint.h"
#include "riv-transcript-tap.h"

typedef struct
{
  char                *path;          /* --record */
  double               max_mb;        /* --record-max */
  gboolean             lint_mode;
  double               heartbeat;
  RivTranscriptTap    *tap;           /* owned, nullable: the clients, the writer */
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

void
riv_cli_record_add_client (RivClient *client)
{
  if (record.tap == NULL || record.finished)
    return;
  riv_transcript_tap_add_client (record.tap, client, record.lint);
}

gboolean
riv_cli_record_attach (RivClient  *client,
                       gboolean    lint,
                       GError    **error)
{
  double origin = riv_now ();
  RivTranscriptWriter *writer = NULL;

  if (!(record.max_mb > 0 && record.max_mb <= 1024 * 1024))
    {
      g_set_error_literal (error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
                           "--record-max must be between 0 and 1048576 MB");
      return FALSE;
    }
  if (record.path != NULL)
    {
      writer = riv_transcript_writer_new (record.path, (guint64) (record.max_mb * 1024 * 1024), error);
      if (writer == NULL)
        return FALSE;
      riv_transcript_writer_set_origin (writer, origin);
    }
  if (lint || record.lint_mode)
    {
      record.lint = riv_lint_new ();
      riv_lint_set_origin (record.lint, origin);
      riv_lint_set_heartbeat_interval (record.lint, record.heartbeat);
    }
  if (writer != NULL || record.lint != NULL)
    {
      record.tap = riv_transcript_tap_new ();
      riv_transcript_tap_set_writer (record.tap, writer);
      riv_cli_record_add_client (client);
    }
  return TRUE;
}

gboolean
riv_cli_record_tapping (void)
{
  return record.tap != NULL;
}

FILE *
riv_cli_record_summary_out (FILE *summary_out)
{
  return record.lint_mode ? stderr : summary_out;
}

void
riv_cli_record_print_findings (RivLint *lint)
{
  GPtrArray *findings = riv_lint_get_findings (lint);

  for (guint i = 0; i < findings->len; i++)
    {
      RivLintFinding *f = findings->pdata[i];

      g_print ("%8.3f s  %-22s %s  %s\n", f->t, f->rule,
               riv_cli_safe (f->event_id != NULL ? f->event_id : "-"), riv_cli_safe (f->message));
    }
  if (riv_lint_get_n_dropped (lint) > 0)
    g_print ("(%u more findings not kept)\n", riv_lint_get_n_dropped (lint));
  g_print ("%u finding%s\n", findings->len, findings->len == 1 ? "" : "s");
}

void
riv_cli_record_finish (void)
{
  g_autoptr(GError) error = NULL;
  RivTranscriptWriter *writer = NULL;

  if (record.finished)
    return;
  record.finished = TRUE;
  if (record.tap != NULL)
    {
      writer = riv_transcript_tap_steal_writer (record.tap);
      g_clear_pointer (&record.tap, riv_transcript_tap_free);
    }

  if (record.lint != NULL)
    {
      riv_lint_finish (record.lint, riv_now ());
      if (record.lint_mode)
        riv_cli_record_print_findings (record.lint);
    }
  if (writer != NULL)
    {
      gboolean truncated = riv_transcript_writer_get_truncated (writer);

      if (truncated)
        g_printerr ("rivulet-cli: the recording reached --record-max (%g MB); %s ends with a "
                    "\"truncated\" mark and holds only the start of the session\n",
                    record.max_mb, record.path);
      if (!riv_transcript_writer_close (writer, &error))
        {
          g_printerr ("rivulet-cli: %s: %s\n", record.path, riv_cli_safe (error->message));
          record.ok = FALSE;
        }
    }
}

static gint
compare_finding_t (gconstpointer a,
                   gconstpointer b)
{
  double ta = json_object_get_double_member_with_default (
    json_node_get_object (*(JsonNode * const *) a), "t", 0);
  double tb = json_object_get_double_member_with_default (
    json_node_get_object (*(JsonNode * const *) b), "t", 0);

  return (ta > tb) - (ta < tb);
}

void
riv_cli_record_add_lint (JsonBuilder *builder,
                         JsonArray   *more)
{
  g_autoptr(JsonNode) own = NULL;
  g_autoptr(GPtrArray) all = NULL;

  if (record.lint == NULL)
    return;
  own = riv_lint_findings_to_json (record.lint);
  all = g_ptr_array_new ();
  for (guint i = 0; i < json_array_get_length (json_node_get_array (own)); i++)
    g_ptr_array_add (all, json_array_get_element (json_node_get_array (own), i));
  for (guint i = 0; more != NULL && i < json_array_get_length (more); i++)
    g_ptr_array_add (all, json_array_get_element (more, i));
  /* Stable: each process's findings keep their order among equal times. */
  g_ptr_array_sort (all, compare_finding_t);
  json_builder_set_member_name (builder, "lint");
  json_builder_begin_array (builder);
  for (guint i = 0; i < all->len; i++)
    json_builder_add_value (builder, json_node_copy (all->pdata[i]));
  json_builder_end_array (builder);
}

gboolean
riv_cli_record_linting (void)
{
  return record.lint != NULL;
}

JsonNode *
riv_cli_record_dup_findings (void)
{
  return record.lint != NULL ? riv_lint_findings_to_json (record.lint) : NULL;
}

guint
riv_cli_record_get_n_findings (void)
{
  return record.lint != NULL ? riv_lint_get_findings (record.lint)->len : 0;
}

void
riv_cli_record_feed_metrics (RivMetrics *metrics,
                             JsonArray  *more)
{
  const char * const *rules = riv_lint_get_rules ();
  GPtrArray *findings = record.lint != NULL ? riv_lint_get_findings (record.lint) : NULL;

  for (guint r = 0; rules[r] != NULL; r++)
    {
      guint64 n = 0;

      for (guint i = 0; findings != NULL && i < findings->len; i++)
        if (g_str_equal (((RivLintFinding *) findings->pdata[i])->rule, rules[r]))
          n++;
      for (guint i = 0; findings != NULL && more != NULL && i < json_array_get_length (more); i++)
        if (g_strcmp0 (json_object_get_string_member_with_default (
                         json_array_get_object_element (more, i), "rule", NULL), rules[r]) == 0)
          n++;
      riv_metrics_set_lint (metrics, rules[r], n);
    }
}

gboolean
riv_cli_record_ok (void)
{
  return record.ok;
}

gboolean
riv_cli_record_requested (void)
{
  return record.path != NULL;
}
