/* riv-cli-load-processes.c
 * Copyright 2026 The Rivulet authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * rivulet-cli load --processes N: the run's virtual users in N worker
 * processes, merged into one run. The parent has checked the options,
 * connected and made its engine as a run of its own does, but never starts
 * it: it runs N copies of itself (the same arguments less what only the
 * parent does, plus --worker, --shard I of N, one thread and standard output
 * as --output), reads each one's standard output on its main loop, feeds
 * each job record into the engine's statistics (the run's, each scenario's,
 * each endpoint's) and --output and --metrics, shows the status line, judges
 * --until-break on the merged jobs, and at the end hands the summary the
 * workers' summed counts. A worker's lines: job records (JSON objects) when
 * the parent writes --output (or the workers join the server's timings),
 * else each job's figures in a brief record ("#job …", riv-job-record.h:
 * no JSON written or parsed); "#progress {…}" once a second, "#end {…}" at
 * its end. The worker's side is
 * here too (load_worker_watch (), load_worker_end ()).
 */
#include "config.h"

#include <errno.h>
#include <signal.h>
#include <string.h>
#ifdef __linux__
#include <sys/prctl.h>
#endif

#include <glib-unix.h>

#include "riv-cli-load.h"
#include "riv-cli-record.h"
#include "riv-cli.h"
#include "riv-compat.h"
#include "riv-job-record.h"
#include "riv-json.h"
#include "riv-malloc.h"

#define PROCESSES_MAX       256
#define READ_BUFFER_BYTES   (64 * 1024)
#define WORKER_OUTPUT_BYTES (64 * 1024)
#define WORKER_FLUSH_MS     100
#define PROGRESS_PREFIX     "#progress "
#define END_PREFIX          "#end "
#define BRIEF_PREFIX        "#job "     /* riv_load_record_write_brief () */
#define BROKE_ELSEWHERE     "another process of the run broke"
#define WORKER_PROGRAM_VARIABLE "RIVULET_WORKER_PROGRAM"  /* a program for the workers to run */

typedef struct
{
  LoadProcesses    *owner;
  guint             index;
  GSubprocess      *process;
  GSource          *reader;       /* watches its standard output while it is open */
  GString          *unread;       /* what it sent after its last whole line */
  char              pid[24];      /* its process id, also once it is gone */
  /* Its last progress line */
  gboolean          started;      /* it sent one: its signal handlers are set */
  gboolean          break_due;    /* to be told to break once started */
  guint             users;
  guint             in_flight;
  guint64           submitted;
  guint64           events;
  guint             streams;      /* open now */
  guint64           bytes;        /* received by its streams */
  gboolean          broke;
  JsonObject       *end;          /* its end line, nullable */
} Worker;

struct _LoadProcesses
{
  LoadRun          *run;
  guint             n;
  char            **args;
  guint             shard;
  guint             n_shards;
  guint64           seed;
  gboolean          scenarios;
  GPtrArray        *workers;      /* Worker */
  guint             running;      /* workers not yet gone */
  JsonParser       *parser;
  GHashTable       *scenario_numbers;  /* name → 1-based index in the engine */
  double            start;        /* riv_now () as they started */
  guint             tick_id;
  guint             sigint_id;
  guint             sigterm_id;
  gboolean          interrupted;
  gboolean          worker_failed;
  char             *usage_error;
  /* --until-break */
  gint              break_origin; /* -1: none; a worker's index; n: a threshold here */
  char             *break_text;
  double            break_t;
  RivLoadBreakpoint breakpoint;
  gboolean          has_breakpoint;
  /* The status line's second */
  GArray           *latencies;
  GArray           *firsts;
  double            last_p95;
  guint64           completed;
  guint64           completed_before;
  guint64           failed;
  guint64           lost;
};

/* ---- the options ---- */

gboolean
load_processes_parse (const char  *text,
                      gint        *processes,
                      GError     **error)
{
  guint64 n;

  if (!g_ascii_string_to_unsigned (text, 10, 1, PROCESSES_MAX, &n, NULL))
    {
      g_set_error (error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
                   "--processes %s: expected a number of processes from 1 to %d, or auto",
                   text, PROCESSES_MAX);
      return FALSE;
    }
  *processes = (gint) n;
  return TRUE;
}

gboolean
load_processes_check (guint    processes,
                      guint    most_users,
                      GError **error)
{
  const char *program = g_getenv (WORKER_PROGRAM_VARIABLE);

  if (processes == 1)
    return TRUE;
  if (program != NULL &&
      (!g_path_is_absolute (program) || g_file_test (program, G_FILE_TEST_IS_DIR) ||
       !g_file_test (program, G_FILE_TEST_IS_EXECUTABLE)))
    g_set_error (error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
                 WORKER_PROGRAM_VARIABLE " is \"%s\": the workers' program must be given by its "
                 "absolute path and be one that can be run (a rivulet-cli of this version), or "
                 "leave the variable out to run this one", program);
  else if (riv_cli_record_requested ())
    g_set_error (error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
                 "--record watches every session from one process: leave out --processes");
  else if (most_users == 0)
    g_set_error (error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
                 "--processes runs virtual users in each process; the open loop (--count, "
                 "--rate) sends its jobs in one session: give --users, --stages or "
                 "--arrival-rate");
  else if (processes > most_users)
    g_set_error (error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
                 "--processes %u with at most %u user%s: at most one process a user",
                 processes, most_users, most_users == 1 ? "" : "s");
  return error == NULL || *error == NULL;
}

guint
load_processes_auto (guint    most_users,
                     gboolean server_on_this_machine)
{
  guint cores = MAX (g_get_num_processors (), 1);
  guint n = server_on_this_machine && cores > 1 ? cores - 1 : cores;

  /* What one process must run alone (the open loop, --record) stays in one. */
  if (riv_cli_record_requested () || most_users == 0)
    return 1;
  return CLAMP (n, 1, MIN (most_users, PROCESSES_MAX));
}

char **
load_processes_copy_args (int    argc,
                          char **argv)
{
  char **copy = g_new0 (char *, argc + 1);

  for (int i = 0; i < argc; i++)
    copy[i] = g_strdup (argv[i]);
  return copy;
}

/* Options the parent acts on alone (or gives each worker its own way). */
static gboolean
parent_only (const char *arg,
             gboolean   *takes_next)
{
  static const char *const valued[] = {
    "--output", "--report", "--timeseries", "--metrics", "--threshold", "--processes",
    "--shard", "--seed", NULL
  };

  *takes_next = FALSE;
  if (strcmp (arg, "--json") == 0 || strcmp (arg, "--worker") == 0 ||
      strcmp (arg, "--worker-brief") == 0 || strcmp (arg, "--worker-lint") == 0)
    return TRUE;
  if (strcmp (arg, "-o") == 0)
    return *takes_next = TRUE;
  if (g_str_has_prefix (arg, "-o"))
    return TRUE;
  for (guint i = 0; valued[i] != NULL; i++)
    {
      gsize length = strlen (valued[i]);

      if (strcmp (arg, valued[i]) == 0)
        return *takes_next = TRUE;
      if (strncmp (arg, valued[i], length) == 0 && arg[length] == '=')
        return TRUE;
    }
  return FALSE;
}

/* Worker k's command line: load's arguments less the parent's, and its own. */
static char **
worker_args (LoadProcesses *self,
             guint          k)
{
  GPtrArray *argv = g_ptr_array_new ();
  const char *program = g_getenv (WORKER_PROGRAM_VARIABLE);
  gboolean rest = FALSE;

  /* This very program, even if its file was replaced since it started;
   * another only when asked (for a tool that follows a named program). */
  g_ptr_array_add (argv, g_strdup (program != NULL ? program : "/proc/self/exe"));
  g_ptr_array_add (argv, g_strdup (self->args[0]));
  for (guint i = 1; self->args[i] != NULL; i++)
    {
      gboolean takes_next;

      rest = rest || strcmp (self->args[i], "--") == 0;
      if (!rest && parent_only (self->args[i], &takes_next))
        {
          i += takes_next && self->args[i + 1] != NULL;
          continue;
        }
      g_ptr_array_add (argv, g_strdup (self->args[i]));
    }
  g_ptr_array_add (argv, g_strdup ("--worker"));
  g_ptr_array_add (argv, g_strdup ("--output=-"));
  /* The records themselves only when they are to be written here. */
  if (self->run->output == NULL)
    g_ptr_array_add (argv, g_strdup ("--worker-brief"));
  /* --json's or --metrics' live lint watches every worker's sessions too. */
  if (riv_cli_record_linting ())
    g_ptr_array_add (argv, g_strdup ("--worker-lint"));
  /* The run's shard I of M: worker k runs shard I + M * k of M * N. */
  g_ptr_array_add (argv, g_strdup_printf ("--shard=%u/%u", self->shard + self->n_shards * k,
                                          self->n_shards * self->n));
  if (self->scenarios)
    g_ptr_array_add (argv, g_strdup_printf ("--seed=%" G_GUINT64_FORMAT, self->seed));
  g_ptr_array_add (argv, NULL);
  return (char **) g_ptr_array_free (argv, FALSE);
}

/* ---- the parent ---- */

static void
worker_free (gpointer data)
{
  Worker *w = data;

  if (w->reader != NULL)
    g_source_destroy (w->reader);
  g_clear_pointer (&w->reader, g_source_unref);
  if (w->unread != NULL)
    g_string_free (w->unread, TRUE);
  g_clear_object (&w->process);
  g_clear_pointer (&w->end, json_object_unref);
  g_free (w);
}

LoadProcesses *
load_processes_new (LoadRun                 *run,
                    const LoadProcessesSpec *spec)
{
  LoadProcesses *self = g_new0 (LoadProcesses, 1);

  self->run = run;
  self->n = spec->n;
  self->args = g_strdupv (spec->args);
  self->shard = spec->shard;
  self->n_shards = spec->n_shards;
  self->seed = spec->seed;
  self->scenarios = spec->scenarios;
  self->workers = g_ptr_array_new_with_free_func (worker_free);
  self->parser = json_parser_new_immutable ();
  self->scenario_numbers = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  for (guint i = 0; i < riv_load_run_get_n_scenarios (run->engine); i++)
    g_hash_table_insert (self->scenario_numbers,
                         g_strdup (riv_load_run_get_scenario (run->engine, i, NULL, NULL)),
                         GUINT_TO_POINTER (i + 1));
  self->break_origin = -1;
  self->latencies = g_array_new (FALSE, FALSE, sizeof (double));
  self->firsts = g_array_new (FALSE, FALSE, sizeof (double));
  self->last_p95 = -1;
  /* The records come written; the server's timings are the workers' to join. */
  run->server_traces = FALSE;
  run->streaming = run->output != NULL;
  return self;
}

void
load_processes_free (LoadProcesses *self)
{
  g_clear_handle_id (&self->tick_id, g_source_remove);
  g_clear_handle_id (&self->sigint_id, g_source_remove);
  g_clear_handle_id (&self->sigterm_id, g_source_remove);
  g_strfreev (self->args);
  g_ptr_array_unref (self->workers);
  g_object_unref (self->parser);
  g_hash_table_unref (self->scenario_numbers);
  g_free (self->usage_error);
  g_free (self->break_text);
  g_free (self->breakpoint.reason);
  g_free (self->breakpoint.error);
  g_array_unref (self->latencies);
  g_array_unref (self->firsts);
  g_free (self);
}

/* Sends sig to every worker still there (SIGUSR1 only to those listening). */
static void
processes_signal (LoadProcesses *self,
                  int            sig)
{
  for (guint i = 0; i < self->workers->len; i++)
    {
      Worker *w = g_ptr_array_index (self->workers, i);

      if (sig == SIGUSR1 && !w->started)
        w->break_due = TRUE;
      else if (w->process != NULL)
        g_subprocess_send_signal (w->process, sig);
    }
}

/* The breakpoint test broke: in worker origin, or (origin n) on a threshold
 * of the merged jobs here; the others stop their ramps too. */
static void
processes_break (LoadProcesses *self,
                 guint          origin,
                 char          *text)
{
  self->break_origin = (gint) origin;
  self->break_text = text;
  self->break_t = riv_now () - self->start;
  processes_signal (self, SIGUSR1);
}

/* The job's statistics: the run's, its scenario's and its endpoint's. */
static void
processes_add_to_stats (LoadProcesses       *self,
                        const RivLoadRecord *read,
                        guint                number)
{
  RivLoadRun *engine = self->run->engine;
  RivLoadStats *scenario, *endpoint;
  const char *key;

  riv_load_stats_add_read (riv_load_run_get_stats (engine), read);
  if (number == 0)
    return;
  scenario = riv_load_run_get_scenario_stats (engine, number - 1);
  riv_load_run_get_scenario (engine, number - 1, &key, NULL);
  endpoint = riv_load_run_get_endpoint_stats (engine, key);
  riv_load_stats_add_read (scenario, read);
  if (endpoint != NULL && endpoint != scenario)
    riv_load_stats_add_read (endpoint, read);
}

/* --metrics: the job as the engine would have counted it. */
static void
processes_add_to_metrics (LoadProcesses       *self,
                          const RivLoadRecord *read,
                          guint                number)
{
  RivMetrics *metrics = self->run->metrics;

  riv_metrics_add_submitted (metrics, number);
  riv_metrics_add_job (metrics, number, read->status, read->queued_s, read->latency_s);
  riv_metrics_add_stream (metrics, number, read->status, read->stream.first_s,
                          read->stream.gaps, read->stream.stalls);
}

/* The status line's counts and this second's latencies, kept only for what
 * reads them (the tick sorts them): the status line, and --until-break's
 * p95 before the breakpoint. */
static void
processes_add_to_window (LoadProcesses       *self,
                         const RivLoadRecord *read)
{
  LoadRun *run = self->run;

  if (read->status == RIV_JOB_STATUS_COMPLETED)
    {
      self->completed++;
      if (read->latency_s >= 0 && (run->status_line || run->until_break))
        g_array_append_val (self->latencies, read->latency_s);
      if (read->stream.first_s >= 0 && run->status_line)
        g_array_append_val (self->firsts, read->stream.first_s);
    }
  else if (read->status == RIV_JOB_STATUS_FAILED)
    self->failed++;
  else if (read->status == RIV_JOB_STATUS_LOST)
    self->lost++;
}

/* One job read from a worker, counted everywhere; read is cleared. */
static void
processes_count (LoadProcesses *self,
                 RivLoadRecord *read,
                 guint          number)
{
  processes_add_to_stats (self, read, number);
  if (self->run->metrics != NULL)
    processes_add_to_metrics (self, read, number);
  processes_add_to_window (self, read);
  riv_load_record_clear (read);
}

static void
worker_say (Worker     *w,
            const char *format,
            ...) G_GNUC_PRINTF (2, 3);

/* A worker's failure, said once with which one it was; the run fails. */
static void
worker_say (Worker     *w,
            const char *format,
            ...)
{
  LoadProcesses *self = w->owner;
  g_autofree char *text = NULL;
  va_list args;

  va_start (args, format);
  text = g_strdup_vprintf (format, args);
  va_end (args);
  g_printerr ("%srivulet-cli load: worker process %u of %u (pid %s) %s\n",
              self->run->status_line ? "\r\033[K" : "", w->index + 1, self->n,
              w->pid, text);
  if (!self->worker_failed)
    processes_signal (self, SIGINT);
  self->worker_failed = TRUE;
}

static void
worker_take_record (Worker     *w,
                    const char *line,
                    gsize       length)
{
  LoadProcesses *self = w->owner;
  LoadRun *run = self->run;
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonNode) node = riv_json_parse (self->parser, line, (gssize) length, 64, &error);
  JsonObject *record;
  RivLoadRecord read;
  const char *scenario;
  guint number;

  if (node == NULL || !JSON_NODE_HOLDS_OBJECT (node))
    {
      worker_say (w, "sent a line that is not a job record: %s",
                  error != NULL ? riv_cli_safe (error->message) : "not an object");
      return;
    }
  record = json_node_get_object (node);
  scenario = riv_json_get_string (record, "scenario");
  number = scenario != NULL ? GPOINTER_TO_UINT (g_hash_table_lookup (self->scenario_numbers,
                                                                      scenario)) : 0;
  if (run->output != NULL &&
      (fwrite (line, 1, length, run->output) != length || fputc ('\n', run->output) == EOF) &&
      run->output_errno == 0)
    run->output_errno = errno != 0 ? errno : EIO;
  if (!riv_load_record_read (&read, record,
                             riv_load_stats_get_stall (riv_load_run_get_stats (run->engine)),
                             &error))
    {
      worker_say (w, "sent a job record that is not one: %s", riv_cli_safe (error->message));
      return;
    }
  processes_count (self, &read, number);
}

/* A brief record (no --output here): the job's figures, read as its
 * record would be, without JSON. */
static void
worker_take_brief (Worker *w,
                   char   *line)
{
  LoadProcesses *self = w->owner;
  g_autoptr(GError) error = NULL;
  RivLoadRecord read;
  guint number;

  if (!riv_load_record_read_brief (&read, line,
                                   riv_load_stats_get_stall (riv_load_run_get_stats (self->run->engine)),
                                   &number, &error))
    {
      worker_say (w, "sent a job's figures that cannot be read: %s", riv_cli_safe (error->message));
      return;
    }
  if (number > riv_load_run_get_n_scenarios (self->run->engine))
    {
      worker_say (w, "sent a job of scenario %u, which the run does not have", number);
      riv_load_record_clear (&read);
      return;
    }
  processes_count (self, &read, number);
}

static JsonObject *
worker_parse_line (Worker     *w,
                   const char *text)
{
  g_autoptr(JsonNode) node = riv_json_parse (w->owner->parser, text, -1, 8, NULL);

  if (node == NULL || !JSON_NODE_HOLDS_OBJECT (node))
    {
      worker_say (w, "sent a line that cannot be read: %s", riv_cli_safe (text));
      return NULL;
    }
  return json_object_ref (json_node_get_object (node));
}

static void
worker_take_progress (Worker     *w,
                      const char *text)
{
  LoadProcesses *self = w->owner;
  g_autoptr(JsonObject) progress = worker_parse_line (w, text);
  gint64 value;

  if (progress == NULL)
    return;
  w->users = riv_json_get_int (progress, "users", &value) ? (guint) value : 0;
  w->in_flight = riv_json_get_int (progress, "in_flight", &value) ? (guint) value : 0;
  w->submitted = riv_json_get_int (progress, "submitted", &value) ? (guint64) value : 0;
  w->events = riv_json_get_int (progress, "events", &value) ? (guint64) value : 0;
  w->streams = riv_json_get_int (progress, "streams", &value) ? (guint) value : 0;
  w->bytes = riv_json_get_int (progress, "bytes", &value) ? (guint64) value : 0;
  w->broke = riv_json_get_bool (progress, "broke", FALSE);
  w->started = TRUE;
  if (w->break_due)
    g_subprocess_send_signal (w->process, SIGUSR1);
  w->break_due = FALSE;
  if (w->broke && self->run->until_break && self->break_origin < 0)
    processes_break (self, w->index, NULL);
}

/* An end line's "lint", when there is one: findings as the lint writes them. */
static gboolean
worker_lint_valid (JsonObject *end)
{
  JsonNode *lint = json_object_get_member (end, "lint");

  if (lint == NULL)
    return TRUE;
  if (!JSON_NODE_HOLDS_ARRAY (lint))
    return FALSE;
  for (guint i = 0; i < json_array_get_length (json_node_get_array (lint)); i++)
    {
      JsonNode *node = json_array_get_element (json_node_get_array (lint), i);
      JsonObject *finding = JSON_NODE_HOLDS_OBJECT (node) ? json_node_get_object (node) : NULL;
      JsonNode *t = finding != NULL ? json_object_get_member (finding, "t") : NULL;
      JsonNode *id = finding != NULL ? json_object_get_member (finding, "event_id") : NULL;

      if (finding == NULL || riv_json_get_string (finding, "rule") == NULL ||
          riv_json_get_string (finding, "message") == NULL || t == NULL ||
          (json_node_get_value_type (t) != G_TYPE_DOUBLE &&
           json_node_get_value_type (t) != G_TYPE_INT64) ||
          (id != NULL && !JSON_NODE_HOLDS_NULL (id) && riv_json_get_string (finding, "event_id") == NULL))
        return FALSE;
    }
  return TRUE;
}

JsonArray *
load_processes_dup_lint (LoadProcesses *self)
{
  JsonArray *all = json_array_new ();

  for (guint i = 0; i < self->workers->len; i++)
    {
      Worker *w = g_ptr_array_index (self->workers, i);
      /* Checked as the end line came (worker_take_end ()). */
      JsonArray *lint = w->end != NULL && json_object_has_member (w->end, "lint")
        ? json_object_get_array_member (w->end, "lint") : NULL;

      for (guint k = 0; lint != NULL && k < json_array_get_length (lint); k++)
        json_array_add_element (all, json_node_copy (json_array_get_element (lint, k)));
    }
  return all;
}

static void
worker_take_end (Worker     *w,
                 const char *text)
{
  LoadProcesses *self = w->owner;
  const char *usage_error;

  g_clear_pointer (&w->end, json_object_unref);
  w->end = worker_parse_line (w, text);
  if (w->end == NULL)
    return;
  w->submitted = (guint64) json_object_get_int_member_with_default (w->end, "submitted", 0);
  w->events = (guint64) json_object_get_int_member_with_default (w->end, "events", 0);
  w->bytes = (guint64) json_object_get_int_member_with_default (w->end, "bytes",
                                                               (gint64) w->bytes);
  /* Gone: nothing of it is open or in flight any more. */
  w->users = w->in_flight = w->streams = 0;
  if (!worker_lint_valid (w->end))
    {
      json_object_remove_member (w->end, "lint");
      worker_say (w, "sent lint findings that cannot be read");
    }
  usage_error = riv_json_get_string (w->end, "usage_error");
  if (usage_error != NULL && self->usage_error == NULL)
    {
      self->usage_error = g_strdup (usage_error);
      processes_signal (self, SIGINT);
    }
}

static void
worker_take_line (Worker *w,
                  char   *line,
                  gsize   length)
{
  if (line[0] == '{')
    worker_take_record (w, line, length);
  else if (g_str_has_prefix (line, BRIEF_PREFIX))
    worker_take_brief (w, line);
  else if (g_str_has_prefix (line, PROGRESS_PREFIX))
    worker_take_progress (w, line + strlen (PROGRESS_PREFIX));
  else if (g_str_has_prefix (line, END_PREFIX))
    worker_take_end (w, line + strlen (END_PREFIX));
  else if (length > 0)
    worker_say (w, "sent a line that cannot be read: %s", riv_cli_safe (line));
}

/* How the worker ended: FALSE (said) when it did not end its run. */
static gboolean
worker_ended_well (Worker *w)
{
  GSubprocess *process = w->process;
  int status;

  if (g_subprocess_get_if_signaled (process))
    {
      int sig = g_subprocess_get_term_sig (process);

      /* Interrupted before it could listen: nothing was lost. */
      if (sig == SIGINT && w->owner->interrupted && w->end == NULL && w->submitted == 0)
        return TRUE;
      worker_say (w, "was killed by signal %d (%s) before the end of its run: its jobs in "
                  "flight are not counted", sig, g_strsignal (sig));
      return FALSE;
    }
  status = g_subprocess_get_exit_status (process);
  if (w->end == NULL)
    {
      worker_say (w, "exited (status %d) before the end of its run: its jobs in flight are "
                  "not counted", status);
      return FALSE;
    }
  if (status != 0 && status != 2)
    {
      worker_say (w, "exited with status %d", status);
      return FALSE;
    }
  return TRUE;
}

static void
worker_wait_cb (GObject      *object,
                GAsyncResult *result,
                gpointer      user_data)
{
  Worker *w = user_data;
  LoadProcesses *self = w->owner;

  g_subprocess_wait_finish (G_SUBPROCESS (object), result, NULL);
  worker_ended_well (w);
  if (--self->running == 0)
    g_main_loop_quit (self->run->loop);
}

/* Its standard output is readable: reads what is there and takes the whole
 * lines. One source for the worker's life: a read that would wait leaves it
 * attached (a source made and dropped for each read wakes the loop twice). */
static gboolean
worker_readable_cb (GObject  *pipe,
                    gpointer  user_data)
{
  Worker *w = user_data;
  g_autoptr(GError) error = NULL;
  gsize had = w->unread->len, taken = 0;
  gboolean ended;
  gssize n;
  char *nl;

  /* One read a dispatch: a worker that keeps writing does not hold the loop. */
  g_string_set_size (w->unread, had + READ_BUFFER_BYTES);
  n = g_pollable_input_stream_read_nonblocking (G_POLLABLE_INPUT_STREAM (pipe),
                                                w->unread->str + had, READ_BUFFER_BYTES,
                                                NULL, &error);
  g_string_set_size (w->unread, had + MAX (n, 0));
  /* Its end, or an error reading it: wait for the process. */
  ended = n == 0 || (n < 0 && !g_error_matches (error, G_IO_ERROR, G_IO_ERROR_WOULD_BLOCK));

  while ((nl = memchr (w->unread->str + taken, '\n', w->unread->len - taken)) != NULL)
    {
      char *line = w->unread->str + taken;

      *nl = '\0';
      taken = nl + 1 - w->unread->str;
      worker_take_line (w, line, nl - line);
    }
  if (ended && taken < w->unread->len)
    {
      worker_take_line (w, w->unread->str + taken, w->unread->len - taken);
      taken = w->unread->len;
    }
  g_string_erase (w->unread, 0, taken);

  if (!ended)
    return G_SOURCE_CONTINUE;
  g_clear_pointer (&w->reader, g_source_unref);
  g_subprocess_wait_async (w->process, NULL, worker_wait_cb, w);
  return G_SOURCE_REMOVE;
}

/* Starts reading its standard output. */
static gboolean
worker_read (Worker  *w,
             GError **error)
{
  GInputStream *pipe = g_subprocess_get_stdout_pipe (w->process);

  if (!G_IS_POLLABLE_INPUT_STREAM (pipe) ||
      !g_pollable_input_stream_can_poll (G_POLLABLE_INPUT_STREAM (pipe)))
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_NOT_SUPPORTED,
                   "cannot watch worker process %u's output", w->index + 1);
      return FALSE;
    }
  w->unread = g_string_sized_new (READ_BUFFER_BYTES);
  w->reader = g_pollable_input_stream_create_source (G_POLLABLE_INPUT_STREAM (pipe), NULL);
  g_source_set_callback (w->reader, G_SOURCE_FUNC (worker_readable_cb), w, NULL);
  g_source_set_name (w->reader, "[rivulet] worker output");
  /* GLib takes a source that may not recurse out of the poll set for each
   * dispatch and puts it back, waking the loop each time. */
  g_source_set_can_recurse (w->reader, TRUE);
  g_source_attach (w->reader, NULL);
  return TRUE;
}

#ifdef __linux__
/* A worker outlives no parent: it is interrupted as the parent goes. */
static void
worker_child_setup (gpointer user_data)
{
  prctl (PR_SET_PDEATHSIG, SIGTERM);
}
#endif

static gboolean
processes_spawn (LoadProcesses  *self,
                 GError        **error)
{
  g_autoptr(GSubprocessLauncher) launcher =
    g_subprocess_launcher_new (G_SUBPROCESS_FLAGS_STDOUT_PIPE);
  /* The workers start on the allocator this process was re-executed with
   * (riv-cli-malloc.c), instead of re-executing themselves for it: some
   * 3 ms of CPU each. */
  g_auto(GStrv) env = riv_malloc_environ (g_get_environ ());

  g_subprocess_launcher_set_environ (launcher, env);
#ifdef __linux__
  g_subprocess_launcher_set_child_setup (launcher, worker_child_setup, NULL, NULL);
#endif
  self->start = riv_now ();
  for (guint k = 0; k < self->n; k++)
    {
      g_auto(GStrv) argv = worker_args (self, k);
      Worker *w = g_new0 (Worker, 1);

      w->owner = self;
      w->index = k;
      g_ptr_array_add (self->workers, w);
      w->process = g_subprocess_launcher_spawnv (launcher, (const char * const *) argv, error);
      if (w->process == NULL)
        {
          g_prefix_error (error, "cannot start worker process %u of %u: ", k + 1, self->n);
          return FALSE;
        }
      g_strlcpy (w->pid, g_subprocess_get_identifier (w->process), sizeof w->pid);
      if (!worker_read (w, error))
        {
          g_subprocess_force_exit (w->process);
          return FALSE;
        }
      self->running++;
    }
  return TRUE;
}

static double
window_p95 (GArray *values)
{
  g_array_sort (values, riv_load_compare_doubles);
  return values->len > 0
    ? riv_load_percentile ((const double *) (gpointer) values->data, values->len, 0.95) : -1;
}

/* --until-break: the first threshold that fails on the merged jobs. */
static void
processes_check_thresholds (LoadProcesses *self)
{
  GPtrArray *thresholds = self->run->thresholds;

  for (guint i = 0; i < thresholds->len; i++)
    {
      RivLoadThreshold *threshold = g_ptr_array_index (thresholds, i);
      const char *value;
      const char *key = riv_load_threshold_get_tag (threshold, &value);
      RivLoadStats *stats = load_threshold_stats (self->run, threshold);
      g_autofree char *failure = NULL;
      RivLoadSummary summary;
      double measured;

      riv_load_stats_summarize (stats, &summary);
      if (!riv_load_threshold_is_live (threshold, &summary) ||
          riv_load_threshold_check (threshold, &summary, &measured))
        continue;
      failure = riv_load_threshold_describe_failure (threshold, measured);
      processes_break (self, self->n, key != NULL
                       ? g_strdup_printf ("%s %s: %s", key, value, failure)
                       : g_steal_pointer (&failure));
      return;
    }
}

/* The workers' last progress (or end) lines, summed. */
typedef struct
{
  guint   users;
  guint   in_flight;
  guint   streams;
  guint64 events;
  guint64 bytes;
} WorkerSums;

static WorkerSums
processes_sum (LoadProcesses *self)
{
  WorkerSums sum = { 0 };

  for (guint i = 0; i < self->workers->len; i++)
    {
      Worker *w = g_ptr_array_index (self->workers, i);

      sum.users += w->users;
      sum.in_flight += w->in_flight;
      sum.streams += w->streams;
      sum.events += w->events;
      sum.bytes += w->bytes;
    }
  return sum;
}

/* --metrics' gauges and totals. */
static void
processes_update_metrics (LoadProcesses    *self,
                          const WorkerSums *sum)
{
  riv_metrics_set_gauges (self->run->metrics, sum->users, sum->in_flight, sum->streams);
  riv_metrics_set_received (self->run->metrics, sum->events, sum->bytes);
}

/* Once a second: the gauges, the status line and the breakpoint test. */
static gboolean
processes_tick_cb (gpointer user_data)
{
  LoadProcesses *self = user_data;
  LoadRun *run = self->run;
  WorkerSums sum = processes_sum (self);
  double p95 = window_p95 (self->latencies);
  double first_p95 = window_p95 (self->firsts);

  if (p95 >= 0)
    self->last_p95 = p95;
  if (run->metrics != NULL)
    processes_update_metrics (self, &sum);
  if (run->status_line)
    load_status_print (riv_now () - self->start, sum.users, self->completed,
                       (guint) (self->completed - self->completed_before), p95, first_p95,
                       self->failed, self->lost, sum.in_flight);
  self->completed_before = self->completed;
  g_array_set_size (self->latencies, 0);
  g_array_set_size (self->firsts, 0);
  if (run->until_break && self->break_origin < 0)
    processes_check_thresholds (self);
  return G_SOURCE_CONTINUE;
}

static gboolean
processes_interrupt_cb (gpointer user_data)
{
  LoadProcesses *self = user_data;

  self->interrupted = TRUE;
  processes_signal (self, SIGINT);
  return G_SOURCE_CONTINUE;
}

/* The breakpoint: where the run was when it broke (the workers' loads
 * summed), named by what broke it. */
static void
processes_name_breakpoint (LoadProcesses *self)
{
  RivLoadBreakpoint *bp = &self->breakpoint;

  if (self->break_origin < 0)
    return;
  bp->t = self->break_t;
  bp->p95_s_before = self->last_p95;
  for (guint i = 0; i < self->workers->len; i++)
    {
      Worker *w = g_ptr_array_index (self->workers, i);
      JsonObject *at = w->end != NULL && json_object_has_member (w->end, "breakpoint") &&
                       JSON_NODE_HOLDS_OBJECT (json_object_get_member (w->end, "breakpoint"))
                       ? json_object_get_object_member (w->end, "breakpoint") : NULL;

      if (at == NULL)
        continue;
      bp->users += (guint) json_object_get_int_member_with_default (at, "users", 0);
      bp->sessions += (guint64) json_object_get_int_member_with_default (at, "sessions", 0);
      bp->rate_per_s += json_object_get_double_member_with_default (at, "rate_per_s", 0);
      if ((gint) i != self->break_origin)
        continue;
      bp->t = json_object_get_double_member_with_default (at, "t_s", bp->t);
      bp->p95_s_before = json_object_get_double_member_with_default (at, "p95_s_before", -1);
      bp->reason = g_strdup (riv_json_get_string (at, "reason"));
      bp->error = g_strdup (riv_json_get_string (at, "error"));
    }
  if (bp->reason == NULL)
    bp->reason = g_strdup (self->break_text != NULL ? self->break_text
                                                    : "a worker process broke");
  if (bp->error == NULL && self->break_text != NULL)
    bp->error = g_strdup (self->break_text);
  self->has_breakpoint = TRUE;
}

/* The statistics end where the last worker's run ended. */
static void
processes_set_end (LoadProcesses *self)
{
  RivLoadRun *engine = self->run->engine;
  double end = 0;

  for (guint i = 0; i < self->workers->len; i++)
    {
      Worker *w = g_ptr_array_index (self->workers, i);

      if (w->end != NULL)
        end = MAX (end, json_object_get_double_member_with_default (w->end, "end_wall", 0));
    }
  if (end <= 0)
    return;
  riv_load_stats_set_end (riv_load_run_get_stats (engine), end);
  for (guint i = 0; i < riv_load_run_get_n_scenarios (engine); i++)
    {
      const char *key;

      riv_load_run_get_scenario (engine, i, &key, NULL);
      riv_load_stats_set_end (riv_load_run_get_scenario_stats (engine, i), end);
      riv_load_stats_set_end (riv_load_run_get_endpoint_stats (engine, key), end);
    }
}

gboolean
load_processes_run (LoadProcesses  *self,
                    GError        **error)
{
  LoadRun *run = self->run;
  g_autoptr(GError) local = NULL;
  g_autoptr(GPtrArray) names = g_ptr_array_new ();

  for (guint i = 0; i < riv_load_run_get_n_scenarios (run->engine); i++)
    g_ptr_array_add (names, (gpointer) riv_load_run_get_scenario (run->engine, i, NULL, NULL));
  g_ptr_array_add (names, NULL);
  if (run->metrics != NULL && names->len > 1)
    riv_metrics_set_scenarios (run->metrics, (const char * const *) names->pdata);

  self->sigint_id = g_unix_signal_add (SIGINT, processes_interrupt_cb, self);
  self->sigterm_id = g_unix_signal_add (SIGTERM, processes_interrupt_cb, self);
  if (!processes_spawn (self, &local))
    {
      g_printerr ("rivulet-cli load: %s\n", local->message);
      self->worker_failed = TRUE;
      processes_signal (self, SIGINT);
    }
  self->tick_id = g_timeout_add_seconds (1, processes_tick_cb, self);
  if (self->running > 0)
    g_main_loop_run (run->loop);
  g_clear_handle_id (&self->tick_id, g_source_remove);
  g_clear_handle_id (&self->sigint_id, g_source_remove);
  g_clear_handle_id (&self->sigterm_id, g_source_remove);
  if (run->status_line)
    g_printerr ("\r\033[K");
  if (run->output != NULL)
    fflush (run->output);
  if (self->usage_error != NULL)
    {
      g_set_error (error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE, "%s", self->usage_error);
      return FALSE;
    }
  processes_set_end (self);
  processes_name_breakpoint (self);
  if (run->metrics != NULL)
    {
      WorkerSums sum = processes_sum (self);

      processes_update_metrics (self, &sum);
    }
  return TRUE;
}

void
load_processes_get_counts (LoadProcesses *self,
                           LoadCounts    *c)
{
  *c = (LoadCounts) { 0 };
  c->processes = self->n;
  c->interrupted = self->interrupted;
  c->stopped = self->interrupted;
  c->worker_failed = self->worker_failed;
  c->breakpoint = self->has_breakpoint ? &self->breakpoint : NULL;
  for (guint i = 0; i < self->workers->len; i++)
    {
      Worker *w = g_ptr_array_index (self->workers, i);
      JsonObject *end = w->end;
      JsonObject *arrivals;

      c->submitted += w->submitted;
      c->events += w->events;
      if (end == NULL)
        continue;
      c->finished += (guint64) json_object_get_int_member_with_default (end, "finished", 0);
      c->peak_users += (guint) json_object_get_int_member_with_default (end, "peak_users", 0);
      c->stopped = c->stopped || riv_json_get_bool (end, "stopped", FALSE);
      c->interrupted = c->interrupted || riv_json_get_bool (end, "interrupted", FALSE);
      arrivals = json_object_has_member (end, "arrivals") &&
                 JSON_NODE_HOLDS_OBJECT (json_object_get_member (end, "arrivals"))
                 ? json_object_get_object_member (end, "arrivals") : NULL;
      if (arrivals == NULL)
        continue;
      c->arrival = TRUE;
      c->tally.due += (guint64) json_object_get_int_member_with_default (arrivals, "due", 0);
      c->tally.started += (guint64) json_object_get_int_member_with_default (arrivals, "started", 0);
      c->tally.dropped += (guint64) json_object_get_int_member_with_default (arrivals, "dropped", 0);
      c->tally.late += (guint64) json_object_get_int_member_with_default (arrivals, "late", 0);
      c->tally.max_lag_s = MAX (c->tally.max_lag_s,
                                json_object_get_double_member_with_default (arrivals, "max_lag_s", 0));
    }
}

/* ---- a worker ---- */

static guint worker_break_id;
static guint worker_flush_id;

/* Its lines go to standard output, which its records share (under its lock). */
static void
worker_print (const char *prefix,
              JsonNode   *node)
{
  g_autofree char *text = riv_json_to_string (node, NULL);

  flockfile (stdout);
  fputs (prefix, stdout);
  fputs (text, stdout);
  fputc ('\n', stdout);
  fflush (stdout);
  funlockfile (stdout);
}

static void
worker_sample_cb (RivLoadRun          *engine,
                  const RivLoadSample *sample,
                  gpointer             user_data)
{
  g_autoptr(JsonObject) progress = json_object_new ();
  g_autoptr(JsonNode) node = json_node_new (JSON_NODE_OBJECT);
  guint streams;
  guint64 bytes;

  json_object_set_double_member (progress, "t", sample->t);
  json_object_set_int_member (progress, "users", sample->users);
  json_object_set_int_member (progress, "in_flight", sample->in_flight);
  json_object_set_int_member (progress, "queued", sample->queued);
  json_object_set_int_member (progress, "submitted", (gint64) riv_load_run_get_submitted (engine));
  json_object_set_int_member (progress, "events", (gint64) riv_load_run_get_n_events (engine));
  riv_load_run_get_streams (engine, &streams, &bytes);
  json_object_set_int_member (progress, "streams", streams);
  json_object_set_int_member (progress, "bytes", (gint64) bytes);
  json_object_set_boolean_member (progress, "broke", riv_load_run_has_broken (engine));
  json_node_set_object (node, progress);
  worker_print (PROGRESS_PREFIX, node);
}

static gboolean
worker_break_cb (gpointer user_data)
{
  LoadRun *run = user_data;

  riv_load_run_break_now (run->engine, BROKE_ELSEWHERE);
  return G_SOURCE_CONTINUE;
}

static gboolean
worker_flush_cb (gpointer user_data)
{
  fflush (stdout);
  return G_SOURCE_CONTINUE;
}

void
load_worker_watch (LoadRun  *run,
                   gboolean  brief)
{
  /* Its records reach the parent in large writes, at most WORKER_FLUSH_MS
   * after they are written (glibc sizes a buffer it allocates itself by the
   * pipe's block size, 4 KiB: a write and a read every seven records). */
  static char buffer[WORKER_OUTPUT_BYTES];

  setvbuf (stdout, buffer, _IOFBF, sizeof buffer);
  worker_flush_id = g_timeout_add (WORKER_FLUSH_MS, worker_flush_cb, NULL);
  g_signal_connect (run->engine, "sample", G_CALLBACK (worker_sample_cb), run);
  worker_break_id = g_unix_signal_add (SIGUSR1, worker_break_cb, run);
  /* The parent's status line, not each worker's. */
  run->status_line = FALSE;
  /* The parent counts the jobs into the run's statistics from their records;
   * a worker writes no summary, so it keeps none (its --until-break breaks on
   * its own jobs' failures and the last second's p95, which are not in them;
   * the thresholds are the parent's). */
  riv_load_run_set_counting (run->engine, FALSE);
  if (brief && run->streaming)
    {
      riv_load_run_set_record_func (run->engine, NULL, NULL);
      riv_load_run_set_brief_func (run->engine, load_record_line, run);
    }
}

static JsonObject *
worker_breakpoint_json (const RivLoadBreakpoint *bp)
{
  JsonObject *object = json_object_new ();

  json_object_set_int_member (object, "users", bp->users);
  json_object_set_int_member (object, "sessions", (gint64) bp->sessions);
  json_object_set_double_member (object, "rate_per_s", bp->rate_per_s);
  json_object_set_double_member (object, "p95_s_before", bp->p95_s_before);
  json_object_set_double_member (object, "t_s", bp->t);
  json_object_set_string_member (object, "reason", bp->reason);
  if (bp->error != NULL)
    json_object_set_string_member (object, "error", bp->error);
  return object;
}

int
load_worker_end (LoadRun      *run,
                 const GError *usage_error)
{
  g_autoptr(JsonObject) end = json_object_new ();
  g_autoptr(JsonNode) node = json_node_new (JSON_NODE_OBJECT);
  RivArrivalsTally tally;
  guint streams;
  guint64 bytes;

  g_clear_handle_id (&worker_break_id, g_source_remove);
  g_clear_handle_id (&worker_flush_id, g_source_remove);
  if (usage_error != NULL)
    json_object_set_string_member (end, "usage_error", usage_error->message);
  if (run->engine != NULL && usage_error == NULL)
    {
      const RivLoadBreakpoint *bp = riv_load_run_get_breakpoint (run->engine);

      json_object_set_int_member (end, "submitted", (gint64) riv_load_run_get_submitted (run->engine));
      json_object_set_int_member (end, "finished", (gint64) riv_load_run_get_finished (run->engine));
      json_object_set_int_member (end, "events", (gint64) riv_load_run_get_n_events (run->engine));
      riv_load_run_get_streams (run->engine, &streams, &bytes);
      json_object_set_int_member (end, "bytes", (gint64) bytes);
      json_object_set_int_member (end, "peak_users", riv_load_run_get_peak_users (run->engine));
      json_object_set_boolean_member (end, "stopped", riv_load_run_was_stopped (run->engine));
      json_object_set_boolean_member (end, "interrupted",
                                      riv_load_run_was_interrupted (run->engine));
      json_object_set_double_member (end, "end_wall",
                                     g_get_real_time () / (double) G_USEC_PER_SEC);
      if (bp != NULL)
        json_object_set_object_member (end, "breakpoint", worker_breakpoint_json (bp));
      if (riv_load_run_get_arrivals (run->engine, &tally))
        {
          JsonObject *arrivals = json_object_new ();

          json_object_set_int_member (arrivals, "due", (gint64) tally.due);
          json_object_set_int_member (arrivals, "started", (gint64) tally.started);
          json_object_set_int_member (arrivals, "dropped", (gint64) tally.dropped);
          json_object_set_int_member (arrivals, "late", (gint64) tally.late);
          json_object_set_double_member (arrivals, "max_lag_s", tally.max_lag_s);
          json_object_set_object_member (end, "arrivals", arrivals);
        }
    }
  if (riv_cli_record_linting ())
    json_object_set_member (end, "lint", riv_cli_record_dup_findings ());
  json_node_set_object (node, end);
  worker_print (END_PREFIX, node);
  return usage_error != NULL ? 2 : 0;
}
