/* riv-job-panel.c
 * Copyright 2026 The Rivulet authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "config.h"

#include <glib/gi18n.h>
#include <string.h>

#include "riv-a11y.h"
#include "riv-job-panel.h"
#include "riv-job-record.h"
#include "riv-json.h"

/* Refiltering and resorting touch every row: do it at most this often. */
#define REFILTER_INTERVAL_US (250 * 1000)
#define RESORT_INTERVAL_US   (500 * 1000)

typedef struct
{
  RivJobPanel *panel;     /* borrowed */
  RivJob      *job;       /* owned */
  gulong       handler;
  RivBucket    bucket;
} Entry;

struct _RivJobPanel
{
  AdwBin              parent_instance;

  /* Template widgets */
  GtkLabel           *count_submitted;
  GtkLabel           *count_waiting;
  GtkLabel           *count_running;
  GtkLabel           *count_done;
  GtkLabel           *count_failed;
  GtkLabel           *count_cancelled;
  GtkLabel           *count_lost;
  GtkBox             *toolbar;
  GtkDropDown        *status_filter;
  GtkSearchEntry     *search_entry;
  GtkStack           *list_stack;
  GtkColumnView      *job_view;
  GtkColumnViewColumn *column_number;
  GtkColumnViewColumn *column_endpoint;
  GtkColumnViewColumn *column_status;
  GtkColumnViewColumn *column_queue;
  GtkColumnViewColumn *column_batch;
  GtkColumnViewColumn *column_progress;
  GtkColumnViewColumn *column_updates;
  GtkColumnViewColumn *column_logs;
  GtkColumnViewColumn *column_wait;
  GtkColumnViewColumn *column_run;
  GtkColumnViewColumn *column_total;
  GtkColumnViewColumn *column_first;
  GtkColumnViewColumn *column_gap;
  gboolean             narrow;         /* the wide-only columns are out of the view */

  /* Owned references */
  GListModel         *jobs;           /* nullable */
  GPtrArray          *entries;        /* Entry*, mirrors jobs */
  GtkCustomFilter    *filter;
  GtkFilterListModel *filter_model;
  GtkSortListModel   *sort_model;
  GtkSingleSelection *selection;
  char               *search;         /* casefolded, nullable */

  guint               counts[RIV_N_BUCKETS];
  int                 filter_bucket;  /* -1: all */
  guint               tick_id;
  gulong              items_changed_id;
  gint64              last_refilter_us;
  gint64              last_resort_us;

  guint               counters_dirty : 1;
  guint               filter_dirty : 1;
  guint               sort_dirty : 1;
};

enum {
  PROP_0,
  PROP_JOBS,
  PROP_SELECTED_JOB,
  N_PROPS
};

G_DEFINE_FINAL_TYPE (RivJobPanel, riv_job_panel, ADW_TYPE_BIN)

static GParamSpec *properties[N_PROPS];

/* Cell closures (called from the column factories in riv-job-panel.ui). They
 * take the job through the list item plus the properties they depend on, so
 * that GTK re-runs them when those notify. */

static char *
riv_job_panel_format_number (GtkListItem *item,
                             RivJob      *job,
                             guint        number)
{
  return job != NULL ? g_strdup_printf ("%u", number) : g_strdup ("");
}

static char *
riv_job_panel_format_status_icon (GtkListItem  *item,
                                  RivJob       *job,
                                  RivJobStatus  status)
{
  return g_strdup (riv_format_status_icon (status));
}

static GStrv
riv_job_panel_format_status_classes (GtkListItem  *item,
                                     RivJob       *job,
                                     RivJobStatus  status)
{
  const char *classes[] = { riv_format_status_class (status), NULL };

  return g_strdupv ((char **) classes);
}

static char *
riv_job_panel_format_status_word (GtkListItem  *item,
                                  RivJob       *job,
                                  RivJobStatus  status)
{
  return g_strdup (riv_format_status_word (status));
}

static char *
riv_job_panel_format_queue (GtkListItem  *item,
                            RivJob       *job,
                            RivJobStatus  status,
                            gint64        rank,
                            gint64        queue_size)
{
  return job != NULL ? riv_format_queue (job) : g_strdup ("");
}

static char *
riv_job_panel_format_batch (GtkListItem *item,
                            RivJob      *job,
                            const char  *batch_id,
                            gint64       batch_size,
                            gint64       batch_index,
                            gboolean     inferred)
{
  return job != NULL ? riv_format_batch (job) : g_strdup ("");
}

static double
riv_job_panel_format_fraction (GtkListItem  *item,
                               RivJob       *job,
                               RivJobStatus  status,
                               double        progress,
                               gint64        progress_index)
{
  gint64 length;

  if (job == NULL)
    return 0;
  if (status == RIV_JOB_STATUS_COMPLETED)
    return 1;
  if (progress >= 0)
    return CLAMP (progress, 0, 1);
  length = riv_job_get_progress_length (job);
  if (progress_index >= 0 && length > 0)
    return CLAMP ((double) progress_index / (double) length, 0, 1);
  return 0;
}

static char *
riv_job_panel_format_progress (GtkListItem  *item,
                               RivJob       *job,
                               RivJobStatus  status,
                               double        progress,
                               gint64        progress_index)
{
  return job != NULL ? riv_format_progress (job) : g_strdup ("");
}

static char *
riv_job_panel_format_updates (GtkListItem *item,
                              RivJob      *job,
                              guint        n_updates)
{
  return job != NULL ? g_strdup_printf ("%u", n_updates) : g_strdup ("");
}

static char *
riv_job_panel_format_wait (GtkListItem  *item,
                           RivJob       *job,
                           RivJobStatus  status)
{
  return job != NULL ? riv_format_duration (riv_job_get_wait_time (job)) : g_strdup ("");
}

static char *
riv_job_panel_format_run (GtkListItem  *item,
                          RivJob       *job,
                          RivJobStatus  status)
{
  return job != NULL ? riv_format_duration (riv_job_get_run_time (job)) : g_strdup ("");
}

static char *
riv_job_panel_format_total (GtkListItem  *item,
                            RivJob       *job,
                            RivJobStatus  status)
{
  return job != NULL ? riv_format_duration (riv_job_get_total_time (job)) : g_strdup ("");
}

/* Time to first update: bound to first-output-at, which the completion sets
 * when no update carried data before it; the status's change re-reads it. */
static char *
riv_job_panel_format_first (GtkListItem *item,
                            RivJob      *job,
                            double       first_output_at)
{
  return job != NULL ? riv_format_duration (riv_job_get_first_update_time (job)) : g_strdup ("");
}

/* The longest gap between two streamed updates so far; empty for a job that
 * did not stream. */
static char *
riv_job_panel_format_max_gap (GtkListItem *item,
                              RivJob      *job,
                              double       max_gap)
{
  return job != NULL ? riv_format_duration (max_gap) : g_strdup ("");
}

/* Sorting: each column's sorter is in the template (ui/riv-job-panel.ui),
 * its value then the job's number; the progress column sorts by what its
 * bar shows. */
static double
riv_job_panel_sort_fraction (RivJob *job)
{
  return riv_job_panel_format_fraction (NULL, job, riv_job_get_status (job),
                                        riv_job_get_progress (job), riv_job_get_progress_index (job));
}

/* Filter */

/* Whether a string anywhere in an output value (chat messages, JSON, file
 * names, …) contains the casefolded search text. */
/* The Logs column: warnings (and errors) stand out; other logs are counted. */
static char *
riv_job_panel_format_logs (GtkListItem *item,
                           RivJob      *job,
                           guint        n_logs)
{
  guint warnings = 0;

  if (job == NULL || n_logs == 0)
    return g_strdup ("");
  for (guint i = 0; i < riv_job_get_n_logs (job); i++)
    {
      const RivJobLog *log = riv_job_get_log (job, i);

      if (g_strcmp0 (log->level, "warning") == 0 || g_strcmp0 (log->level, "error") == 0)
        warnings++;
    }
  return warnings > 0 ? g_strdup_printf ("⚠ %u", warnings) : g_strdup_printf ("%u", n_logs);
}

static gboolean
node_contains (JsonNode   *node,
               const char *search,
               guint       depth)
{
  if (node == NULL || depth > 32)
    return FALSE;
  switch (json_node_get_node_type (node))
    {
    case JSON_NODE_VALUE:
      if (json_node_get_value_type (node) == G_TYPE_STRING)
        {
          g_autofree char *folded = g_utf8_casefold (json_node_get_string (node), -1);

          return strstr (folded, search) != NULL;
        }
      return FALSE;
    case JSON_NODE_ARRAY:
      {
        JsonArray *array = json_node_get_array (node);

        for (guint i = 0; i < json_array_get_length (array); i++)
          if (node_contains (json_array_get_element (array, i), search, depth + 1))
            return TRUE;
        return FALSE;
      }
    case JSON_NODE_OBJECT:
      {
        JsonObjectIter iter;
        JsonNode *member;

        json_object_iter_init (&iter, json_node_get_object (node));
        while (json_object_iter_next (&iter, NULL, &member))
          if (node_contains (member, search, depth + 1))
            return TRUE;
        return FALSE;
      }
    case JSON_NODE_NULL:
    default:
      return FALSE;
    }
}

static gboolean
riv_job_panel_match (gpointer item,
                     gpointer user_data)
{
  RivJobPanel *self = user_data;
  RivJob *job = item;
  RivJobStatus status = riv_job_get_status (job);

  if (self->filter_bucket >= 0 && (int) riv_bucket_for_status (status) != self->filter_bucket)
    return FALSE;

  if (self->search != NULL)
    {
      char number[16];
      const char *fields[5];

      g_snprintf (number, sizeof number, "%u", riv_job_get_number (job));
      fields[0] = number;
      fields[1] = riv_job_get_endpoint (job);
      fields[2] = riv_format_status_word (status);
      fields[3] = riv_job_get_batch_id (job);
      fields[4] = riv_job_get_error (job);

      for (guint i = 0; i < G_N_ELEMENTS (fields); i++)
        {
          g_autofree char *folded = NULL;

          if (fields[i] == NULL)
            continue;
          if (i == 0)
            {
              if (g_str_has_prefix (fields[i], self->search))
                return TRUE;
              continue;
            }
          folded = g_utf8_casefold (fields[i], -1);
          if (strstr (folded, self->search) != NULL)
            return TRUE;
        }
      return node_contains (riv_job_get_outputs (job), self->search, 0);
    }

  return TRUE;
}

static gboolean
riv_job_panel_is_filtering (RivJobPanel *self)
{
  return self->filter_bucket >= 0 || self->search != NULL;
}

/* Once-per-frame work */

static void
set_count_label (GtkLabel *label,
                 guint     value)
{
  char text[16];

  g_snprintf (text, sizeof text, "%u", value);
  if (g_strcmp0 (gtk_label_get_text (label), text) != 0)
    gtk_label_set_text (label, text);
}

static void
riv_job_panel_apply (RivJobPanel *self,
                     gboolean     force)
{
  gint64 now = g_get_monotonic_time ();

  if (self->counters_dirty)
    {
      self->counters_dirty = FALSE;
      set_count_label (self->count_submitted, riv_job_panel_get_n_jobs (self));
      set_count_label (self->count_waiting, self->counts[RIV_BUCKET_WAITING]);
      set_count_label (self->count_running, self->counts[RIV_BUCKET_RUNNING]);
      set_count_label (self->count_done, self->counts[RIV_BUCKET_DONE]);
      set_count_label (self->count_failed, self->counts[RIV_BUCKET_FAILED]);
      set_count_label (self->count_cancelled, self->counts[RIV_BUCKET_CANCELLED]);
      set_count_label (self->count_lost, self->counts[RIV_BUCKET_LOST]);
    }

  if (self->filter_dirty && (force || now - self->last_refilter_us >= REFILTER_INTERVAL_US))
    {
      self->filter_dirty = FALSE;
      self->last_refilter_us = now;
      if (riv_job_panel_is_filtering (self))
        gtk_filter_changed (GTK_FILTER (self->filter), GTK_FILTER_CHANGE_DIFFERENT);
    }

  if (self->sort_dirty && (force || now - self->last_resort_us >= RESORT_INTERVAL_US))
    {
      GtkSorter *sorter = gtk_column_view_get_sorter (self->job_view);

      self->sort_dirty = FALSE;
      self->last_resort_us = now;
      if (sorter != NULL && gtk_sorter_get_order (sorter) != GTK_SORTER_ORDER_NONE)
        gtk_sorter_changed (sorter, GTK_SORTER_CHANGE_DIFFERENT);
    }

  gtk_stack_set_visible_child_name (self->list_stack,
                                    riv_job_panel_get_n_jobs (self) > 0 ? "list" : "empty");
}

static gboolean
riv_job_panel_tick_cb (GtkWidget     *widget,
                       GdkFrameClock *frame_clock,
                       gpointer       user_data)
{
  RivJobPanel *self = RIV_JOB_PANEL (widget);

  riv_job_panel_apply (self, FALSE);

  /* Throttled refreshes still pending keep the callback alive. */
  if (self->filter_dirty || self->sort_dirty)
    return G_SOURCE_CONTINUE;

  self->tick_id = 0;
  return G_SOURCE_REMOVE;
}

static void
riv_job_panel_queue_apply (RivJobPanel *self)
{
  if (self->tick_id == 0)
    self->tick_id = gtk_widget_add_tick_callback (GTK_WIDGET (self), riv_job_panel_tick_cb,
                                                  NULL, NULL);
}

/* The mirror of the job list: per job its last bucket, for incremental counts. */

static void
entry_status_cb (RivJob     *job,
                 GParamSpec *pspec,
                 Entry      *entry)
{
  RivJobPanel *self = entry->panel;
  RivBucket bucket = riv_bucket_for_status (riv_job_get_status (job));

  if (bucket == entry->bucket)
    return;

  self->counts[entry->bucket]--;
  self->counts[bucket]++;
  entry->bucket = bucket;

  self->counters_dirty = TRUE;
  if (riv_job_panel_is_filtering (self))
    self->filter_dirty = TRUE;
  self->sort_dirty = TRUE;
  riv_job_panel_queue_apply (self);
}

static void
entry_free (gpointer data)
{
  Entry *entry = data;

  g_clear_signal_handler (&entry->handler, entry->job);
  g_clear_object (&entry->job);
  g_free (entry);
}

static void
riv_job_panel_jobs_changed_cb (RivJobPanel *self,
                               guint        position,
                               guint        removed,
                               guint        added,
                               GListModel  *model)
{
  g_assert (position + removed <= self->entries->len);

  for (guint i = position; i < position + removed; i++)
    {
      Entry *entry = g_ptr_array_index (self->entries, i);

      self->counts[entry->bucket]--;
    }
  if (removed > 0)
    g_ptr_array_remove_range (self->entries, position, removed);

  for (guint i = 0; i < added; i++)
    {
      Entry *entry = g_new0 (Entry, 1);

      entry->panel = self;
      entry->job = g_list_model_get_item (model, position + i);
      entry->bucket = riv_bucket_for_status (riv_job_get_status (entry->job));
      entry->handler = g_signal_connect (entry->job, "notify::status",
                                         G_CALLBACK (entry_status_cb), entry);
      self->counts[entry->bucket]++;
      g_ptr_array_insert (self->entries, (int) (position + i), entry);
    }

  self->counters_dirty = TRUE;
  riv_job_panel_queue_apply (self);
}

static void
riv_job_panel_selection_cb (RivJobPanel *self)
{
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_SELECTED_JOB]);
}

static void
riv_job_panel_filter_changed_cb (RivJobPanel *self)
{
  guint selected = gtk_drop_down_get_selected (self->status_filter);

  riv_job_panel_set_status_filter (self, selected == 0 || selected == GTK_INVALID_LIST_POSITION
                                          ? -1 : (int) selected - 1);
}

static void
riv_job_panel_search_changed_cb (RivJobPanel *self)
{
  riv_job_panel_set_search (self, gtk_editable_get_text (GTK_EDITABLE (self->search_entry)));
}

static void
riv_job_panel_update_filter_model (RivJobPanel *self)
{
  /* With nothing to filter the model passes everything through for free. */
  gtk_filter_list_model_set_filter (self->filter_model,
                                    riv_job_panel_is_filtering (self)
                                      ? GTK_FILTER (self->filter) : NULL);
  if (riv_job_panel_is_filtering (self))
    gtk_filter_changed (GTK_FILTER (self->filter), GTK_FILTER_CHANGE_DIFFERENT);
  self->filter_dirty = FALSE;
  self->last_refilter_us = g_get_monotonic_time ();
}

/* Export */

static void
csv_field (GString    *out,
           const char *text)
{
  if (text == NULL)
    text = "";
  if (strpbrk (text, ",\"\n\r") == NULL)
    {
      g_string_append (out, text);
      return;
    }
  g_string_append_c (out, '"');
  for (const char *p = text; *p != '\0'; p++)
    {
      if (*p == '"')
        g_string_append_c (out, '"');
      g_string_append_c (out, *p);
    }
  g_string_append_c (out, '"');
}

static void
csv_seconds (GString *out,
             double   seconds)
{
  if (seconds >= 0)
    {
      char buf[G_ASCII_DTOSTR_BUF_SIZE];

      g_string_append (out, g_ascii_formatd (buf, sizeof buf, "%.6f", seconds));
    }
}

static char *
timeline_text (RivJob *job)
{
  GString *text = g_string_new (NULL);
  guint length = riv_job_get_timeline_length (job);

  for (guint i = 0; i < length; i++)
    {
      const RivJobEvent *event = riv_job_get_timeline_event (job, i);
      char buf[G_ASCII_DTOSTR_BUF_SIZE];

      if (event == NULL)
        continue;
      if (text->len > 0)
        g_string_append (text, "; ");
      g_string_append_printf (text, "%s %s",
                              g_ascii_formatd (buf, sizeof buf, "%.4f", event->time),
                              event->what != NULL ? event->what : "");
    }
  return g_string_free (text, FALSE);
}

static GBytes *
export_csv (RivJobPanel *self)
{
  GString *out = g_string_new ("number,endpoint,status,event_id,rank,queue_size,batch_id,"
                               "batch_size,batch_index,batch_inferred,n_updates,n_events,"
                               "n_images,wait_s,run_s,total_s,first_update_s,max_gap_s,error,"
                               "timeline\n");

  for (guint i = 0; i < self->entries->len; i++)
    {
      RivJob *job = ((Entry *) g_ptr_array_index (self->entries, i))->job;
      g_autofree char *timeline = timeline_text (job);

      g_string_append_printf (out, "%u,", riv_job_get_number (job));
      csv_field (out, riv_job_get_endpoint (job));
      g_string_append_c (out, ',');
      csv_field (out, riv_job_status_to_string (riv_job_get_status (job)));
      g_string_append_c (out, ',');
      csv_field (out, riv_job_get_event_id (job));
      g_string_append_printf (out, ",%" G_GINT64_FORMAT ",%" G_GINT64_FORMAT ",",
                              riv_job_get_rank (job), riv_job_get_queue_size (job));
      csv_field (out, riv_job_get_batch_id (job));
      g_string_append_printf (out, ",%" G_GINT64_FORMAT ",%" G_GINT64_FORMAT ",%s,%u,%u,%u,",
                              riv_job_get_batch_size (job), riv_job_get_batch_index (job),
                              riv_job_get_batch_inferred (job) ? "true" : "false",
                              riv_job_get_n_updates (job), riv_job_get_n_events (job),
                              riv_job_get_n_images (job));
      csv_seconds (out, riv_job_get_wait_time (job));
      g_string_append_c (out, ',');
      csv_seconds (out, riv_job_get_run_time (job));
      g_string_append_c (out, ',');
      csv_seconds (out, riv_job_get_total_time (job));
      g_string_append_c (out, ',');
      csv_seconds (out, riv_job_get_first_update_time (job));
      g_string_append_c (out, ',');
      csv_seconds (out, riv_job_get_max_gap (job));
      g_string_append_c (out, ',');
      csv_field (out, riv_job_get_error (job));
      g_string_append_c (out, ',');
      csv_field (out, timeline);
      g_string_append_c (out, '\n');
    }

  return g_string_free_to_bytes (out);
}

static GBytes *
export_json (RivJobPanel *self)
{
  g_autoptr(JsonArray) jobs = json_array_sized_new (self->entries->len);
  g_autoptr(JsonObject) top = json_object_new ();
  g_autoptr(JsonGenerator) generator = json_generator_new ();
  g_autoptr(JsonNode) root = NULL;
  char *text;
  gsize length;

  /* Each job is the record `rivulet-cli load --output` writes
   * (riv-job-record.h), plus what only the window keeps: its event id and
   * its timeline. */
  for (guint i = 0; i < self->entries->len; i++)
    {
      RivJob *job = ((Entry *) g_ptr_array_index (self->entries, i))->job;
      JsonNode *record = riv_job_record_new (job, riv_job_get_number (job), 0);
      JsonObject *object = json_node_get_object (record);
      JsonArray *timeline = json_array_new ();

      if (riv_job_get_event_id (job) != NULL)
        json_object_set_string_member (object, "event_id", riv_job_get_event_id (job));
      else
        json_object_set_null_member (object, "event_id");
      for (guint j = 0; j < riv_job_get_timeline_length (job); j++)
        {
          const RivJobEvent *event = riv_job_get_timeline_event (job, j);
          JsonObject *entry;

          if (event == NULL)
            continue;
          entry = json_object_new ();
          json_object_set_double_member (entry, "t", event->time);
          json_object_set_string_member (entry, "what", event->what != NULL ? event->what : "");
          json_array_add_object_element (timeline, entry);
        }
      json_object_set_array_member (object, "timeline", timeline);
      json_object_set_int_member (object, "timeline_dropped", riv_job_get_timeline_dropped (job));
      json_array_add_element (jobs, record);
    }

  json_object_set_array_member (top, "jobs", g_steal_pointer (&jobs));
  root = json_node_init_object (json_node_alloc (), top);
  json_generator_set_root (generator, root);
  json_generator_set_pretty (generator, TRUE);
  text = json_generator_to_data (generator, &length);

  return g_bytes_new_take (text, length);
}

/* GObject */

static void
riv_job_panel_dispose (GObject *object)
{
  RivJobPanel *self = (RivJobPanel *) object;

  if (self->tick_id != 0)
    {
      gtk_widget_remove_tick_callback (GTK_WIDGET (self), self->tick_id);
      self->tick_id = 0;
    }
  riv_job_panel_set_jobs (self, NULL);
  /* The columns taken out are held by the panel. */
  riv_job_panel_set_narrow (self, FALSE);

  /* AdwBin unparents its child itself; let it go before the template does. */
  adw_bin_set_child (ADW_BIN (self), NULL);
  gtk_widget_dispose_template (GTK_WIDGET (self), RIV_TYPE_JOB_PANEL);

  g_clear_object (&self->selection);
  g_clear_object (&self->sort_model);
  g_clear_object (&self->filter_model);
  g_clear_object (&self->filter);

  G_OBJECT_CLASS (riv_job_panel_parent_class)->dispose (object);
}

static void
riv_job_panel_finalize (GObject *object)
{
  RivJobPanel *self = (RivJobPanel *) object;

  g_clear_pointer (&self->entries, g_ptr_array_unref);
  g_clear_pointer (&self->search, g_free);

  G_OBJECT_CLASS (riv_job_panel_parent_class)->finalize (object);
}

static void
riv_job_panel_get_property (GObject    *object,
                            guint       prop_id,
                            GValue     *value,
                            GParamSpec *pspec)
{
  RivJobPanel *self = RIV_JOB_PANEL (object);

  switch (prop_id)
    {
    case PROP_JOBS:
      g_value_set_object (value, riv_job_panel_get_jobs (self));
      break;
    case PROP_SELECTED_JOB:
      g_value_set_object (value, riv_job_panel_get_selected_job (self));
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
riv_job_panel_set_property (GObject      *object,
                            guint         prop_id,
                            const GValue *value,
                            GParamSpec   *pspec)
{
  RivJobPanel *self = RIV_JOB_PANEL (object);

  switch (prop_id)
    {
    case PROP_JOBS:
      riv_job_panel_set_jobs (self, g_value_get_object (value));
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
riv_job_panel_class_init (RivJobPanelClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->dispose = riv_job_panel_dispose;
  object_class->finalize = riv_job_panel_finalize;
  object_class->get_property = riv_job_panel_get_property;
  object_class->set_property = riv_job_panel_set_property;

  properties[PROP_JOBS] =
    g_param_spec_object ("jobs", NULL, NULL, G_TYPE_LIST_MODEL,
                         (G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS));
  properties[PROP_SELECTED_JOB] =
    g_param_spec_object ("selected-job", NULL, NULL, RIV_TYPE_JOB,
                         (G_PARAM_READABLE | G_PARAM_STATIC_STRINGS));
  g_object_class_install_properties (object_class, N_PROPS, properties);

  g_type_ensure (RIV_TYPE_JOB);

  gtk_widget_class_set_template_from_resource (widget_class,
                                               RIV_RESOURCE_PATH "/ui/riv-job-panel.ui");
  gtk_widget_class_bind_template_child (widget_class, RivJobPanel, count_submitted);
  gtk_widget_class_bind_template_child (widget_class, RivJobPanel, count_waiting);
  gtk_widget_class_bind_template_child (widget_class, RivJobPanel, count_running);
  gtk_widget_class_bind_template_child (widget_class, RivJobPanel, count_done);
  gtk_widget_class_bind_template_child (widget_class, RivJobPanel, count_failed);
  gtk_widget_class_bind_template_child (widget_class, RivJobPanel, count_cancelled);
  gtk_widget_class_bind_template_child (widget_class, RivJobPanel, count_lost);
  gtk_widget_class_bind_template_child (widget_class, RivJobPanel, toolbar);
  gtk_widget_class_bind_template_child (widget_class, RivJobPanel, status_filter);
  gtk_widget_class_bind_template_child (widget_class, RivJobPanel, search_entry);
  gtk_widget_class_bind_template_child (widget_class, RivJobPanel, list_stack);
  gtk_widget_class_bind_template_child (widget_class, RivJobPanel, job_view);
  gtk_widget_class_bind_template_child (widget_class, RivJobPanel, column_number);
  gtk_widget_class_bind_template_child (widget_class, RivJobPanel, column_endpoint);
  gtk_widget_class_bind_template_child (widget_class, RivJobPanel, column_status);
  gtk_widget_class_bind_template_child (widget_class, RivJobPanel, column_queue);
  gtk_widget_class_bind_template_child (widget_class, RivJobPanel, column_batch);
  gtk_widget_class_bind_template_child (widget_class, RivJobPanel, column_progress);
  gtk_widget_class_bind_template_child (widget_class, RivJobPanel, column_updates);
  gtk_widget_class_bind_template_child (widget_class, RivJobPanel, column_wait);
  gtk_widget_class_bind_template_child (widget_class, RivJobPanel, column_run);
  gtk_widget_class_bind_template_child (widget_class, RivJobPanel, column_total);
  gtk_widget_class_bind_template_child (widget_class, RivJobPanel, column_first);
  gtk_widget_class_bind_template_child (widget_class, RivJobPanel, column_gap);
  gtk_widget_class_bind_template_child (widget_class, RivJobPanel, column_logs);

#define BIND_CLOSURE(name) \
  gtk_widget_class_bind_template_callback_full (widget_class, #name, G_CALLBACK (name))
  BIND_CLOSURE (riv_job_panel_format_number);
  BIND_CLOSURE (riv_job_panel_format_status_icon);
  BIND_CLOSURE (riv_job_panel_format_status_classes);
  BIND_CLOSURE (riv_job_panel_format_status_word);
  BIND_CLOSURE (riv_job_panel_format_queue);
  BIND_CLOSURE (riv_job_panel_format_batch);
  BIND_CLOSURE (riv_job_panel_format_fraction);
  BIND_CLOSURE (riv_job_panel_format_progress);
  BIND_CLOSURE (riv_job_panel_format_logs);
  BIND_CLOSURE (riv_job_panel_format_updates);
  BIND_CLOSURE (riv_job_panel_format_wait);
  BIND_CLOSURE (riv_job_panel_format_run);
  BIND_CLOSURE (riv_job_panel_format_total);
  BIND_CLOSURE (riv_job_panel_format_first);
  BIND_CLOSURE (riv_job_panel_format_max_gap);
  /* The sorters' */
  BIND_CLOSURE (riv_job_panel_sort_fraction);
  BIND_CLOSURE (riv_job_get_status);
  BIND_CLOSURE (riv_job_get_first_update_time);
#undef BIND_CLOSURE
}

static void
riv_job_panel_init (RivJobPanel *self)
{
  GtkSorter *view_sorter;

  gtk_widget_init_template (GTK_WIDGET (self));
  riv_a11y_name_inner_button (GTK_WIDGET (self->status_filter), _("Status filter"));

  self->entries = g_ptr_array_new_with_free_func (entry_free);
  self->filter_bucket = -1;

  self->filter = gtk_custom_filter_new (riv_job_panel_match, self, NULL);
  /* Not incremental: matching is a few typed getters and the sorters keep a
   * key per row, so even thousands of rows refilter or resort within a frame,
   * and the view never shows a half-filtered list. */
  self->filter_model = gtk_filter_list_model_new (NULL, NULL);

  view_sorter = gtk_column_view_get_sorter (self->job_view);
  self->sort_model = gtk_sort_list_model_new (g_object_ref (G_LIST_MODEL (self->filter_model)),
                                              view_sorter != NULL ? g_object_ref (view_sorter) : NULL);

  self->selection = gtk_single_selection_new (g_object_ref (G_LIST_MODEL (self->sort_model)));
  gtk_single_selection_set_autoselect (self->selection, FALSE);
  gtk_single_selection_set_can_unselect (self->selection, TRUE);
  gtk_column_view_set_model (self->job_view, GTK_SELECTION_MODEL (self->selection));

  g_signal_connect_object (self->selection, "notify::selected-item",
                           G_CALLBACK (riv_job_panel_selection_cb), self, G_CONNECT_SWAPPED);
  g_signal_connect_object (self->status_filter, "notify::selected",
                           G_CALLBACK (riv_job_panel_filter_changed_cb), self, G_CONNECT_SWAPPED);
  g_signal_connect_object (self->search_entry, "search-changed",
                           G_CALLBACK (riv_job_panel_search_changed_cb), self, G_CONNECT_SWAPPED);

  self->counters_dirty = TRUE;
  riv_job_panel_apply (self, TRUE);
}

GtkWidget *
riv_job_panel_new (void)
{
  return g_object_new (RIV_TYPE_JOB_PANEL, NULL);
}

void
riv_job_panel_set_jobs (RivJobPanel *self,
                        GListModel  *jobs)
{
  g_return_if_fail (RIV_IS_JOB_PANEL (self));
  g_return_if_fail (jobs == NULL || G_IS_LIST_MODEL (jobs));

  if (jobs == self->jobs)
    return;

  if (self->jobs != NULL)
    {
      g_clear_signal_handler (&self->items_changed_id, self->jobs);
      g_ptr_array_set_size (self->entries, 0);
      memset (self->counts, 0, sizeof self->counts);
      g_clear_object (&self->jobs);
    }

  if (self->filter_model != NULL)
    gtk_filter_list_model_set_model (self->filter_model, jobs);

  if (jobs != NULL)
    {
      self->jobs = g_object_ref (jobs);
      self->items_changed_id =
        g_signal_connect_object (jobs, "items-changed",
                                 G_CALLBACK (riv_job_panel_jobs_changed_cb), self,
                                 G_CONNECT_SWAPPED);
      riv_job_panel_jobs_changed_cb (self, 0, 0, g_list_model_get_n_items (jobs), jobs);
    }

  self->counters_dirty = TRUE;
  if (self->list_stack != NULL)
    riv_job_panel_queue_apply (self);

  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_JOBS]);
}

GListModel *
riv_job_panel_get_jobs (RivJobPanel *self)
{
  g_return_val_if_fail (RIV_IS_JOB_PANEL (self), NULL);

  return self->jobs;
}

RivJob *
riv_job_panel_get_selected_job (RivJobPanel *self)
{
  g_return_val_if_fail (RIV_IS_JOB_PANEL (self), NULL);

  if (self->selection == NULL)
    return NULL;
  return gtk_single_selection_get_selected_item (self->selection);
}

void
riv_job_panel_unselect (RivJobPanel *self)
{
  g_return_if_fail (RIV_IS_JOB_PANEL (self));

  gtk_single_selection_set_selected (self->selection, GTK_INVALID_LIST_POSITION);
}

guint
riv_job_panel_get_n_rows (RivJobPanel *self)
{
  g_return_val_if_fail (RIV_IS_JOB_PANEL (self), 0);

  return g_list_model_get_n_items (G_LIST_MODEL (self->selection));
}

GListModel *
riv_job_panel_get_view_model (RivJobPanel *self)
{
  g_return_val_if_fail (RIV_IS_JOB_PANEL (self), NULL);

  return G_LIST_MODEL (self->selection);
}

guint
riv_job_panel_get_count (RivJobPanel *self,
                         RivBucket    bucket)
{
  g_return_val_if_fail (RIV_IS_JOB_PANEL (self), 0);
  g_return_val_if_fail (bucket < RIV_N_BUCKETS, 0);

  return self->counts[bucket];
}

guint
riv_job_panel_get_n_jobs (RivJobPanel *self)
{
  g_return_val_if_fail (RIV_IS_JOB_PANEL (self), 0);

  return self->entries->len;
}

const char *
riv_job_panel_get_counter_text (RivJobPanel *self,
                                RivBucket    bucket)
{
  g_return_val_if_fail (RIV_IS_JOB_PANEL (self), NULL);

  switch (bucket)
    {
    case RIV_BUCKET_WAITING:   return gtk_label_get_text (self->count_waiting);
    case RIV_BUCKET_RUNNING:   return gtk_label_get_text (self->count_running);
    case RIV_BUCKET_DONE:      return gtk_label_get_text (self->count_done);
    case RIV_BUCKET_FAILED:    return gtk_label_get_text (self->count_failed);
    case RIV_BUCKET_CANCELLED: return gtk_label_get_text (self->count_cancelled);
    case RIV_BUCKET_LOST:      return gtk_label_get_text (self->count_lost);
    case RIV_N_BUCKETS:
    default:                   return gtk_label_get_text (self->count_submitted);
    }
}

void
riv_job_panel_set_status_filter (RivJobPanel *self,
                                 int          bucket)
{
  g_return_if_fail (RIV_IS_JOB_PANEL (self));
  g_return_if_fail (bucket < RIV_N_BUCKETS);

  bucket = MAX (bucket, -1);
  if (bucket == self->filter_bucket)
    return;

  self->filter_bucket = bucket;
  if (gtk_drop_down_get_selected (self->status_filter) != (guint) (bucket + 1))
    gtk_drop_down_set_selected (self->status_filter, (guint) (bucket + 1));
  riv_job_panel_update_filter_model (self);
}

void
riv_job_panel_set_search (RivJobPanel *self,
                          const char  *text)
{
  g_autofree char *folded = NULL;

  g_return_if_fail (RIV_IS_JOB_PANEL (self));

  if (text != NULL)
    {
      g_autofree char *stripped = g_strstrip (g_strdup (text));

      if (*stripped != '\0')
        folded = g_utf8_casefold (stripped, -1);
    }

  if (g_strcmp0 (folded, self->search) == 0)
    return;

  g_free (self->search);
  self->search = g_steal_pointer (&folded);
  riv_job_panel_update_filter_model (self);
}

/* Narrow (a phone): the buttons go on a line below the filter and the search,
 * and the list keeps the number, the status and the progress (the output view
 * shows the selected job's endpoint and times). The other columns are taken
 * out of the view, not hidden: GTK 4.8's column view still counts a hidden
 * column's width. */
void
riv_job_panel_set_narrow (RivJobPanel *self,
                          gboolean     narrow)
{
  GtkColumnViewColumn *columns[] = {
    self->column_number, self->column_endpoint, self->column_status, self->column_queue,
    self->column_batch, self->column_progress, self->column_updates, self->column_logs,
    self->column_wait, self->column_run, self->column_total, self->column_first,
    self->column_gap,
  };

  g_return_if_fail (RIV_IS_JOB_PANEL (self));

  gtk_orientable_set_orientation (GTK_ORIENTABLE (self->toolbar),
                                  narrow ? GTK_ORIENTATION_VERTICAL : GTK_ORIENTATION_HORIZONTAL);
  if (self->narrow == !!narrow)
    return;
  self->narrow = !!narrow;
  for (guint i = 0; i < G_N_ELEMENTS (columns); i++)
    {
      if (columns[i] == self->column_number || columns[i] == self->column_status ||
          columns[i] == self->column_progress)
        continue;
      if (narrow)
        {
          g_object_ref (columns[i]);
          gtk_column_view_remove_column (self->job_view, columns[i]);
        }
      else
        {
          gtk_column_view_insert_column (self->job_view, i, columns[i]);
          g_object_unref (columns[i]);
        }
    }
  gtk_column_view_column_set_expand (self->column_progress, narrow);
}

void
riv_job_panel_focus_search (RivJobPanel *self)
{
  g_return_if_fail (RIV_IS_JOB_PANEL (self));

  gtk_widget_grab_focus (GTK_WIDGET (self->search_entry));
}

void
riv_job_panel_flush (RivJobPanel *self)
{
  g_return_if_fail (RIV_IS_JOB_PANEL (self));

  riv_job_panel_apply (self, TRUE);
}

GBytes *
riv_job_panel_export (RivJobPanel     *self,
                      RivExportFormat  format)
{
  g_return_val_if_fail (RIV_IS_JOB_PANEL (self), NULL);

  if (format == RIV_EXPORT_JSON)
    return export_json (self);
  return export_csv (self);
}
