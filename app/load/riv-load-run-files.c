/* riv-load-run-files.c
 * Copyright 2026 The Rivulet authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Local files the jobs upload, checked before the run on a worker thread, and the
 * server's own timings (Gradio's profiling) joined into the records after it.
 */
#include "config.h"

#include "riv-job-record.h"
#include "riv-json.h"
#include "riv-load-run-private.h"

void
riv_load_run_set_upload_files (RivLoadRun *self,
                               gboolean    upload)
{
  g_return_if_fail (RIV_IS_LOAD_RUN (self));
  g_return_if_fail (!self->started);

  self->params.upload_files = !!upload;
}

/* ---- the local files, checked before the run ---- */

typedef struct
{
  GPtrArray *templates;   /* JsonNode: every template a job may take (copies) */
  GPtrArray *labels;      /* char *: each one's scenario, "" without scenarios */
  GArray    *indexes;     /* guint64: the jobs' numbers */
  GArray    *picks;       /* guint: the template each of them takes */
  GArray    *users;       /* guint: the users' numbers (0: none) */
} FileCheck;

static void
file_check_free (gpointer data)
{
  FileCheck *check = data;

  g_ptr_array_unref (check->templates);
  g_ptr_array_unref (check->labels);
  g_array_unref (check->indexes);
  g_array_unref (check->picks);
  g_array_unref (check->users);
  g_free (check);
}

/* A tree of its own for the worker thread: json-glib counts references
 * without atomics. */
static JsonNode *
tree_copy (JsonNode *node)
{
  g_autofree char *text = riv_json_to_string (node, NULL);

  return riv_json_parse (NULL, text, -1, 0, NULL);
}

/* The templates of the run (its scenarios' in turn) and the one each job takes. */
static void
file_check_add_templates (FileCheck  *check,
                          RivLoadRun *self)
{
  g_autoptr(GHashTable) first = g_hash_table_new (NULL, NULL);   /* LoadScenario → its first */

  for (guint i = 0; i < riv_load_run_get_n_scenarios (self); i++)
    {
      LoadScenario *scenario = g_ptr_array_index (self->params.scenarios, i);

      g_hash_table_insert (first, scenario, GUINT_TO_POINTER (check->templates->len));
      for (guint t = 0; t < scenario->templates->len; t++)
        {
          g_ptr_array_add (check->templates, tree_copy (g_ptr_array_index (scenario->templates, t)));
          g_ptr_array_add (check->labels, g_strdup (scenario->name));
        }
    }
  if (check->templates->len == 0)
    {
      g_ptr_array_add (check->templates, tree_copy (self->params.template));
      g_ptr_array_add (check->labels, g_strdup (""));
    }
  for (guint k = 0; k < check->indexes->len; k++)
    {
      guint64 index = g_array_index (check->indexes, guint64, k);
      LoadScenario *scenario = _riv_load_run_scenario_for (self, index);
      guint pick = scenario != NULL
        ? GPOINTER_TO_UINT (g_hash_table_lookup (first, scenario)) +
          (guint) ((index - 1) % scenario->templates->len)
        : 0;

      g_array_append_val (check->picks, pick);
    }
}

/* Whether path can be uploaded: a readable regular file with bytes in it. */
static gboolean
check_one_file (const char  *path,
                guint64      index,
                GError     **error)
{
  g_autoptr(GFile) file = g_file_new_for_path (path);
  g_autoptr(GFileInfo) info = NULL;
  g_autoptr(GError) local = NULL;
  g_autofree char *job = index > 0 ? g_strdup_printf ("job %" G_GUINT64_FORMAT "'s file ", index)
                                   : g_strdup ("file ");

  info = g_file_query_info (file,
                            G_FILE_ATTRIBUTE_STANDARD_TYPE "," G_FILE_ATTRIBUTE_STANDARD_SIZE ","
                            G_FILE_ATTRIBUTE_ACCESS_CAN_READ,
                            G_FILE_QUERY_INFO_NONE, NULL, &local);
  if (info == NULL)
    {
      g_set_error (error, G_IO_ERROR, local->code, "%s%s: %s", job, path,
                   local->code == G_IO_ERROR_NOT_FOUND ? "no such file" : local->message);
      return FALSE;
    }
  if (g_file_info_get_file_type (info) == G_FILE_TYPE_DIRECTORY)
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_IS_DIRECTORY,
                   "%s%s is a directory, not a file", job, path);
      return FALSE;
    }
  if (g_file_info_get_file_type (info) != G_FILE_TYPE_REGULAR)
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_NOT_REGULAR_FILE,
                   "%s%s is not a regular file", job, path);
      return FALSE;
    }
  if (!g_file_info_get_attribute_boolean (info, G_FILE_ATTRIBUTE_ACCESS_CAN_READ))
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_PERMISSION_DENIED,
                   "%s%s cannot be read (permission denied)", job, path);
      return FALSE;
    }
  if (g_file_info_get_size (info) == 0)
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA,
                   "%s%s is empty (0 bytes): nothing to upload", job, path);
      return FALSE;
    }
  return TRUE;
}

/* Every distinct path of the jobs' inputs (template t of check), checked
 * once, added to order. */
static gboolean
check_paths (FileCheck   *check,
             guint        t,
             guint64      index,
             guint        user,
             GHashTable  *seen,
             GPtrArray   *order,
             GError     **error)
{
  g_autoptr(JsonNode) data = riv_json_substitute_index_user (g_ptr_array_index (check->templates, t),
                                                             index, user);
  g_autoptr(GPtrArray) paths = riv_client_list_local_files (data);
  const char *label = g_ptr_array_index (check->labels, t);

  for (guint i = 0; i < paths->len; i++)
    {
      const char *path = g_ptr_array_index (paths, i);

      if (g_hash_table_contains (seen, path))
        continue;
      if (!check_one_file (path, index, error))
        {
          if (*label != '\0')
            g_prefix_error (error, "scenario \"%s\": ", label);
          return FALSE;
        }
      g_hash_table_add (seen, g_strdup (path));
      g_ptr_array_add (order, g_strdup (path));
    }
  return TRUE;
}

static void
check_files_thread (GTask        *task,
                    gpointer      source,
                    gpointer      data,
                    GCancellable *cancellable)
{
  FileCheck *check = data;
  g_autoptr(GHashTable) seen = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  g_autoptr(GPtrArray) order = g_ptr_array_new_with_free_func (g_free);
  g_autoptr(GError) error = NULL;
  guint n_users = check->users->len;

  /* Every job's number with a user, and every user with the first job's
   * number: exact for "{i}" alone and "{u}" alone. */
  for (guint k = 0; k < check->indexes->len; k++)
    {
      guint64 index = g_array_index (check->indexes, guint64, k);

      if (g_task_return_error_if_cancelled (task))
        return;
      if (!check_paths (check, g_array_index (check->picks, guint, k), index,
                        g_array_index (check->users, guint, k % n_users), seen, order, &error))
        {
          g_task_return_error (task, g_steal_pointer (&error));
          return;
        }
    }
  /* Each template (each scenario's, whichever jobs take them) with every user. */
  for (guint t = 0; t < check->templates->len; t++)
    for (guint k = 0; k < n_users; k++)
      if (!check_paths (check, t, g_array_index (check->indexes, guint64, 0),
                        g_array_index (check->users, guint, k), seen, order, &error))
        {
          g_task_return_error (task, g_steal_pointer (&error));
          return;
        }
  g_task_return_pointer (task, g_steal_pointer (&order), (GDestroyNotify) g_ptr_array_unref);
}

void
riv_load_run_check_files_async (RivLoadRun          *self,
                                GCancellable        *cancellable,
                                GAsyncReadyCallback  callback,
                                gpointer             user_data)
{
  g_autoptr(GTask) task = NULL;
  FileCheck *check;
  guint64 n_jobs;

  g_return_if_fail (RIV_IS_LOAD_RUN (self));

  task = g_task_new (self, cancellable, callback, user_data);
  g_task_set_source_tag (task, riv_load_run_check_files_async);

  check = g_new0 (FileCheck, 1);
  check->templates = g_ptr_array_new_with_free_func ((GDestroyNotify) json_node_unref);
  check->labels = g_ptr_array_new_with_free_func (g_free);
  check->picks = g_array_new (FALSE, FALSE, sizeof (guint));
  check->indexes = g_array_new (FALSE, FALSE, sizeof (guint64));
  check->users = g_array_new (FALSE, FALSE, sizeof (guint));
  if (self->params.users == 0 && self->params.stages == NULL)
    {
      guint none = 0;

      /* A rate ramp (--until-break) has no job count: its first job's. */
      n_jobs = self->params.rate_ramp > 0 ? 1 : self->params.count;
      g_array_append_val (check->users, none);
    }
  else
    {
      guint most = self->params.users;

      for (guint i = 0; self->params.stages != NULL && i < self->params.stages->len; i++)
        most = MAX (most, g_array_index (self->params.stages, RivLoadStage, i).target);
      for (guint slot = 0; slot < _riv_load_run_shard_share (self, most); slot++)
        {
          guint number = slot * self->params.n_shards + self->params.shard + 1;

          g_array_append_val (check->users, number);
        }
      if (check->users->len == 0)
        {
          guint none = 0;

          g_array_append_val (check->users, none);
        }
      /* A run with no job count (duration, stages) checks its first job's. */
      if (self->params.duration > 0 || self->params.stages != NULL)
        n_jobs = 1;
      else
        n_jobs = (guint64) check->users->len * MAX (self->params.iterations, 1);
    }
  for (guint64 sequence = 1; sequence <= MAX (n_jobs, 1); sequence++)
    {
      guint64 index = _riv_load_run_global_index (self, sequence);

      g_array_append_val (check->indexes, index);
    }
  file_check_add_templates (check, self);

  g_task_set_task_data (task, check, file_check_free);
  if (!self->params.upload_files)
    {
      g_task_return_pointer (task, g_ptr_array_new_with_free_func (g_free),
                             (GDestroyNotify) g_ptr_array_unref);
      return;
    }
  g_task_run_in_thread (task, check_files_thread);
}

gboolean
riv_load_run_check_files_finish (RivLoadRun    *self,
                                 GAsyncResult  *result,
                                 GPtrArray    **files,
                                 GError       **error)
{
  g_autoptr(GPtrArray) checked = NULL;

  g_return_val_if_fail (g_task_is_valid (result, self), FALSE);
  checked = g_task_propagate_pointer (G_TASK (result), error);
  if (checked == NULL)
    return FALSE;
  if (files != NULL)
    *files = g_steal_pointer (&checked);
  return TRUE;
}

/* ---- the server's timings (Gradio's GRADIO_PROFILING traces) ---- */

void
riv_load_run_set_track_events (RivLoadRun *self,
                               gboolean    track)
{
  g_return_if_fail (RIV_IS_LOAD_RUN (self));
  g_return_if_fail (!self->started);

  if (track && self->events == NULL)
    self->events = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
  else if (!track)
    g_clear_pointer (&self->events, g_hash_table_unref);
}

guint
riv_load_run_add_server_traces (RivLoadRun *self,
                                JsonNode   *traces)
{
  JsonArray *array;
  guint joined = 0;

  g_return_val_if_fail (RIV_IS_LOAD_RUN (self), 0);
  g_return_val_if_fail (self->threads.thread == NULL || self->done, 0);

  if (self->events == NULL || traces == NULL || !JSON_NODE_HOLDS_ARRAY (traces))
    return 0;

  array = json_node_get_array (traces);
  for (guint i = 0; i < json_array_get_length (array); i++)
    {
      JsonNode *node = json_array_get_element (array, i);
      g_autoptr(JsonNode) server = NULL;
      const char *event_id;
      EventJob *entry;
      EventJob job;
      double server_s;

      if (!JSON_NODE_HOLDS_OBJECT (node) ||
          (event_id = riv_json_get_string (json_node_get_object (node), "event_id")) == NULL ||
          (entry = g_hash_table_lookup (self->events, event_id)) == NULL)
        continue;
      job = *entry;
      server = riv_job_record_server_timing (json_node_get_object (node), job.latency, &server_s);
      /* Once per job (a batch's trace names its first event only); frees entry. */
      g_hash_table_remove (self->events, event_id);
      if (server == NULL)
        continue;
      joined++;
      riv_load_stats_add_server_time (self->stats, server_s, job.latency);

      if (self->records != NULL && job.slot < self->records->len &&
          g_ptr_array_index (self->records, job.slot) != NULL)
        {
          char **line = (char **) &g_ptr_array_index (self->records, job.slot);
          g_autoptr(JsonNode) record = riv_json_parse (NULL, *line, -1, 0, NULL);

          if (record == NULL || !JSON_NODE_HOLDS_OBJECT (record))
            continue;
          json_object_set_member (json_node_get_object (record), "server",
                                  g_steal_pointer (&server));
          g_free (*line);
          *line = riv_json_to_string (record, NULL);
        }
    }
  return joined;
}

guint
riv_load_run_get_n_untimed (RivLoadRun *self)
{
  g_return_val_if_fail (RIV_IS_LOAD_RUN (self), 0);
  return self->events != NULL ? g_hash_table_size (self->events) : 0;
}
