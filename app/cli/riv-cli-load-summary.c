/* riv-cli-load-summary.c
 * Copyright 2026 The Rivulet authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * What rivulet-cli load shows and writes: the status line on a terminal, the
 * summary (text or JSON) with each threshold, and the HTML report.
 */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include "riv-cli-load.h"
#include "riv-cli-record.h"
#include "riv-cli-tls.h"
#include "riv-cli.h"
#include "riv-json.h"

#define MAX_ERRORS_SHOWN 10

void
load_status_print (double  t,
                   guint   users,
                   guint64 completed,
                   guint   per_s,
                   double  p95,
                   double  first_p95,
                   guint64 failed,
                   guint64 lost,
                   guint   in_flight)
{
  g_autofree char *p95_text = p95 < 0 ? g_strdup ("—") : g_strdup_printf ("%.3fs", p95);
  g_autofree char *first = first_p95 < 0 ? g_strdup ("—") : g_strdup_printf ("%.3fs", first_p95);

  g_printerr ("\r\033[K%5.0fs  users %u  completed %" G_GUINT64_FORMAT " (%u/s)  p95 %s  "
              "first p95 %s  failed %" G_GUINT64_FORMAT "  lost %" G_GUINT64_FORMAT
              "  in flight %u", t, users, completed, per_s, p95_text, first, failed, lost,
              in_flight);
}

static void
status_sample_cb (RivLoadRun          *engine,
                  const RivLoadSample *sample,
                  gpointer             data)
{
  load_status_print (sample->t, sample->users, riv_load_run_get_completed (engine),
                     sample->completed, sample->p95, sample->first_p95,
                     riv_load_run_get_failed (engine), riv_load_run_get_lost (engine),
                     sample->in_flight);
}

void
load_get_counts (LoadRun    *run,
                 LoadCounts *counts)
{
  if (run->processes != NULL)
    {
      load_processes_get_counts (run->processes, counts);
      return;
    }
  *counts = (LoadCounts) { 0 };
  counts->submitted = riv_load_run_get_submitted (run->engine);
  counts->finished = riv_load_run_get_finished (run->engine);
  counts->events = riv_load_run_get_n_events (run->engine);
  counts->peak_users = riv_load_run_get_peak_users (run->engine);
  counts->stopped = riv_load_run_was_stopped (run->engine);
  counts->interrupted = riv_load_run_was_interrupted (run->engine);
  counts->arrival = riv_load_run_get_arrivals (run->engine, &counts->tally);
  counts->breakpoint = riv_load_run_get_breakpoint (run->engine);
}

void
load_status_start (LoadRun *run)
{
  if (!run->status_line)
    return;
  run->sample_handler = g_signal_connect (run->engine, "sample",
                                          G_CALLBACK (status_sample_cb), run);
}

void
load_status_clear (LoadRun *run)
{
  if (run->sample_handler == 0)
    return;
  g_clear_signal_handler (&run->sample_handler, run->engine);
  g_printerr ("\r\033[K");
}

static void
add_int (JsonBuilder *builder,
         const char  *name,
         gint64       value)
{
  json_builder_set_member_name (builder, name);
  json_builder_add_int_value (builder, value);
}

static void
add_double (JsonBuilder *builder,
            const char  *name,
            double       value)
{
  json_builder_set_member_name (builder, name);
  json_builder_add_double_value (builder, value);
}

/* {"p50": …, …} of the named figures. */
static void
add_figures (JsonBuilder  *builder,
             const char   *name,
             const char  **names,
             const double *values,
             guint         n)
{
  json_builder_set_member_name (builder, name);
  json_builder_begin_object (builder);
  for (guint i = 0; i < n; i++)
    add_double (builder, names[i], values[i]);
  json_builder_end_object (builder);
}

#define ADD_FIGURES(builder, name, names, ...) \
  add_figures (builder, name, names, (const double[]) { __VA_ARGS__ }, \
               sizeof (double[]) { __VA_ARGS__ } / sizeof (double))

void
riv_cli_streaming_add_json (JsonBuilder          *builder,
                            const RivLoadSummary *s)
{
  static const char *five[] = { "p50", "p90", "p95", "p99", "max" };
  static const char *two[] = { "p50", "p95" };
  static const char *three[] = { "p50", "p99", "max" };
  static const char *spread[] = { "p50", "p99" };

  json_builder_set_member_name (builder, "streaming");
  json_builder_begin_object (builder);
  add_double (builder, "stall_s", s->stall_s);
  add_int (builder, "jobs_with_first_update", (gint64) s->first_n);
  ADD_FIGURES (builder, "first_update_s", five,
               s->first_p50, s->first_p90, s->first_p95, s->first_p99, s->first_max);
  ADD_FIGURES (builder, "first_after_start_s", two, s->first_start_p50, s->first_start_p95);
  add_int (builder, "streamed_jobs", (gint64) s->streamed);
  add_int (builder, "single_update_jobs", (gint64) (s->first_n - MIN (s->streamed, s->first_n)));
  add_int (builder, "gaps", (gint64) s->gaps);
  ADD_FIGURES (builder, "gap_s", three, s->gap_p50, s->gap_p99, s->gap_max);
  ADD_FIGURES (builder, "job_max_gap_s", spread, s->job_gap_max_p50, s->job_gap_max_p99);
  add_int (builder, "stalls", (gint64) s->stalls);
  add_int (builder, "stalled_jobs", (gint64) s->stalled_jobs);
  json_builder_set_member_name (builder, "text");
  if (s->text_jobs > 0)
    {
      json_builder_begin_object (builder);
      add_int (builder, "jobs", (gint64) s->text_jobs);
      add_double (builder, "chars_per_s", s->chars_per_s);
      add_double (builder, "words_per_s", s->words_per_s);
      json_builder_end_object (builder);
    }
  else
    json_builder_add_null_value (builder);
  json_builder_set_member_name (builder, "stamps");
  if (s->stamped > 0)
    {
      json_builder_begin_object (builder);
      add_int (builder, "updates", (gint64) s->stamped);
      ADD_FIGURES (builder, "delay_s", three, s->delay_p50, s->delay_p99, s->delay_max);
      ADD_FIGURES (builder, "sent_gap_s", three, s->sent_gap_p50, s->sent_gap_p99,
                   s->sent_gap_max);
      ADD_FIGURES (builder, "server_hold_s", three, s->hold_p50, s->hold_p99, s->hold_max);
      add_int (builder, "clumped_jobs", (gint64) s->clumped);
      json_builder_end_object (builder);
    }
  else
    json_builder_add_null_value (builder);
  json_builder_end_object (builder);
}

void
riv_cli_streaming_print (FILE                 *out,
                         const RivLoadSummary *s)
{
  guint64 single = s->first_n - MIN (s->streamed, s->first_n);

  if (s->first_n == 0)
    return;
  fprintf (out, "first upd  p50 %.3f s  p95 %.3f s  p99 %.3f s  max %.3f s", s->first_p50,
           s->first_p95, s->first_p99, s->first_max);
  if (s->first_start_p50 > 0 || s->first_start_p95 > 0)
    fprintf (out, "  (after start p50 %.3f s)", s->first_start_p50);
  fputc ('\n', out);
  if (s->streamed > 0)
    {
      fprintf (out, "gaps       p50 %.3f s  p99 %.3f s  max %.3f s over %" G_GUINT64_FORMAT
               " gaps of %" G_GUINT64_FORMAT " streamed jobs (each job's longest: p50 %.3f s, "
               "p99 %.3f s)\n", s->gap_p50, s->gap_p99, s->gap_max, s->gaps, s->streamed,
               s->job_gap_max_p50, s->job_gap_max_p99);
      fprintf (out, "stalls     %" G_GUINT64_FORMAT " gaps over %g s, in %" G_GUINT64_FORMAT
               " jobs\n", s->stalls, s->stall_s, s->stalled_jobs);
    }
  if (single > 0)
    fprintf (out, "one update %" G_GUINT64_FORMAT " jobs answered in one go (no gaps)\n", single);
  if (s->text_jobs > 0)
    fprintf (out, "text rate  %.0f chars/s, %.1f words/s (mean of %" G_GUINT64_FORMAT
             " jobs whose text grew)\n", s->chars_per_s, s->words_per_s, s->text_jobs);
  if (s->stamped > 0)
    {
      fprintf (out, "own delay  p50 %.1f ms  p99 %.1f ms  max %.1f ms from the server's write "
               "to Rivulet's handling (%" G_GUINT64_FORMAT " updates)\n", s->delay_p50 * 1000,
               s->delay_p99 * 1000, s->delay_max * 1000, s->stamped);
      fprintf (out, "server     held p50 %.1f ms  p99 %.1f ms  max %.1f ms between making and "
               "writing an update\n", s->hold_p50 * 1000, s->hold_p99 * 1000, s->hold_max * 1000);
      fprintf (out, "sent gaps  p50 %.3f s  p99 %.3f s  max %.3f s as the server wrote them; "
               "%" G_GUINT64_FORMAT " jobs arrived clumped\n", s->sent_gap_p50, s->sent_gap_p99,
               s->sent_gap_max, s->clumped);
    }
}

void
riv_cli_outage_add_json (JsonBuilder *builder,
                         gboolean     outage,
                         double       start_s,
                         double       end_s)
{
  if (!outage)
    {
      json_builder_add_null_value (builder);
      return;
    }
  json_builder_begin_object (builder);
  add_double (builder, "start_s", start_s);
  json_builder_set_member_name (builder, "end_s");
  if (end_s >= 0)
    json_builder_add_double_value (builder, end_s);
  else
    json_builder_add_null_value (builder);
  json_builder_end_object (builder);
}

void
riv_cli_outage_print (FILE   *out,
                      double  start_s,
                      double  end_s)
{
  if (end_s >= 0)
    fprintf (out, "outage     %.0f s to %.0f s into the run (%.0f s): jobs failed or were "
             "lost and none completed\n", start_s, end_s, end_s - start_s);
  else
    fprintf (out, "outage     from %.0f s into the run to its end: jobs failed or were lost "
             "and none completed\n", start_s);
}

static void
add_breakpoint (JsonBuilder             *builder,
                const RivLoadBreakpoint *bp)
{
  json_builder_set_member_name (builder, "breakpoint");
  if (bp == NULL)
    {
      json_builder_add_null_value (builder);
      return;
    }
  json_builder_begin_object (builder);
  add_int (builder, "users", bp->users);
  add_int (builder, "sessions", (gint64) bp->sessions);
  add_double (builder, "rate_per_s", bp->rate_per_s);
  json_builder_set_member_name (builder, "p95_s_before");
  if (bp->p95_s_before >= 0)
    json_builder_add_double_value (builder, bp->p95_s_before);
  else
    json_builder_add_null_value (builder);
  json_builder_set_member_name (builder, "reason");
  json_builder_add_string_value (builder, bp->reason);
  add_double (builder, "t_s", bp->t);
  json_builder_set_member_name (builder, "error");
  if (bp->error != NULL)
    json_builder_add_string_value (builder, bp->error);
  else
    json_builder_add_null_value (builder);
  json_builder_end_object (builder);
}

/* What the summary shows, worked out once for the text and the JSON. */
typedef struct
{
  RivLoadSummary  s;
  LoadCounts      c;
  gboolean        outage;
  double          outage_start;
  double          outage_end;     /* < 0: until the run's end */
  GArray         *errors;         /* RivLoadError, most frequent first */
  char           *logs;           /* nullable */
  double         *measured;       /* per threshold */
  gboolean       *held;           /* per threshold */
  gboolean        all_held;
  guint           n_scenarios;
  RivLoadSummary *scenarios;      /* each scenario's, nullable */
} SummaryFacts;

static void
summary_facts_clear (SummaryFacts *facts)
{
  g_clear_pointer (&facts->errors, g_array_unref);
  g_clear_pointer (&facts->logs, g_free);
  g_clear_pointer (&facts->measured, g_free);
  g_clear_pointer (&facts->held, g_free);
  g_clear_pointer (&facts->scenarios, g_free);
}

RivLoadStats *
load_threshold_stats (LoadRun                *run,
                      const RivLoadThreshold *threshold)
{
  RivLoadStats *stats = riv_load_run_get_stats (run->engine);
  guint n = riv_load_run_get_n_scenarios (run->engine);
  const char *value;
  const char *key = riv_load_threshold_get_tag (threshold, &value);

  if (key == NULL || n > 0)
    return riv_load_run_get_tagged_stats (run->engine, key, value);
  /* Without scenarios the run is the one scenario "default", to its endpoint. */
  if (strcmp (key, "endpoint") == 0)
    return run->endpoint_key != NULL && riv_load_same_endpoint (run->endpoint_key, value) ? stats : NULL;
  return strcmp (value, "default") == 0 ? stats : NULL;
}

G_DEFINE_AUTO_CLEANUP_CLEAR_FUNC (SummaryFacts, summary_facts_clear)

static void
summary_facts_init (SummaryFacts *facts,
                    LoadRun      *run)
{
  RivLoadStats *stats = riv_load_run_get_stats (run->engine);

  load_get_counts (run, &facts->c);
  facts->errors = riv_load_stats_errors (stats);
  facts->logs = riv_load_stats_format_logs (stats);
  facts->outage_end = -1;
  facts->measured = g_new (double, run->thresholds->len + 1);
  facts->held = g_new (gboolean, run->thresholds->len + 1);

  riv_load_stats_summarize (stats, &facts->s);
  facts->outage = riv_load_stats_find_outage (stats, &facts->outage_start,
                                              &facts->outage_end);
  facts->s.users = MAX (facts->s.users, facts->c.peak_users);

  facts->n_scenarios = riv_load_run_get_n_scenarios (run->engine);
  if (facts->n_scenarios > 0)
    facts->scenarios = g_new0 (RivLoadSummary, facts->n_scenarios);
  for (guint i = 0; i < facts->n_scenarios; i++)
    riv_load_stats_summarize (riv_load_run_get_scenario_stats (run->engine, i),
                              &facts->scenarios[i]);

  facts->all_held = TRUE;
  for (guint i = 0; i < run->thresholds->len; i++)
    {
      RivLoadThreshold *threshold = g_ptr_array_index (run->thresholds, i);
      RivLoadStats *on = load_threshold_stats (run, threshold);
      RivLoadSummary tagged;

      /* A tag was checked before the run: it names statistics of the run's. */
      g_assert (on != NULL);
      if (on != stats)
        riv_load_stats_summarize (on, &tagged);
      facts->held[i] = riv_load_threshold_check (threshold, on != stats ? &tagged : &facts->s,
                                                 &facts->measured[i]);
      facts->all_held = facts->all_held && facts->held[i];
    }
}

void
riv_cli_scenario_add_json (JsonBuilder          *builder,
                           const RivCliScenario *scenario,
                           const RivLoadSummary *s)
{
  static const char *latency[] = { "p50", "p90", "p95", "p99", "max", "mean" };
  static const char *first[] = { "p50", "p95", "p99" };

  json_builder_set_member_name (builder, scenario->name);
  json_builder_begin_object (builder);
  json_builder_set_member_name (builder, "endpoint");
  if (scenario->endpoint != NULL)
    json_builder_add_string_value (builder, scenario->endpoint);
  else
    json_builder_add_null_value (builder);
  if (scenario->weight > 0)
    add_double (builder, "weight", scenario->weight);
  if (scenario->users > 0)
    add_int (builder, "users", scenario->users);
  if (scenario->turns > 0)
    add_int (builder, "turns", scenario->turns);
  add_int (builder, "submitted", (gint64) s->submitted);
  add_int (builder, "completed", (gint64) s->completed);
  add_int (builder, "failed", (gint64) s->failed);
  add_int (builder, "cancelled", (gint64) s->cancelled);
  add_int (builder, "lost", (gint64) s->lost);
  add_double (builder, "throughput_per_s", s->throughput_per_s);
  ADD_FIGURES (builder, "latency_s", latency, s->p50, s->p90, s->p95, s->p99, s->max, s->mean);
  if (s->first_n > 0)
    ADD_FIGURES (builder, "first_update_s", first, s->first_p50, s->first_p95, s->first_p99);
  else
    {
      json_builder_set_member_name (builder, "first_update_s");
      json_builder_add_null_value (builder);
    }
  json_builder_end_object (builder);
}

void
riv_cli_scenario_print (FILE                 *out,
                        const RivCliScenario *scenario,
                        const RivLoadSummary *s)
{
  g_autoptr(GString) weighed = g_string_new (NULL);

  if (scenario->weight > 0)
    g_string_append_printf (weighed, ", weight %g", scenario->weight);
  if (scenario->users > 0)
    g_string_append_printf (weighed, ", %u users of its own", scenario->users);
  if (scenario->turns > 0)
    g_string_append_printf (weighed, ", %u turns a session", scenario->turns);

  fprintf (out, "scenario   %s (%s%s): %" G_GUINT64_FORMAT " submitted, %" G_GUINT64_FORMAT
           " completed, %" G_GUINT64_FORMAT " failed, %" G_GUINT64_FORMAT " lost, %.1f jobs/s\n",
           riv_cli_safe (scenario->name),
           scenario->endpoint != NULL ? riv_cli_safe (scenario->endpoint) : "?", weighed->str,
           s->submitted, s->completed, s->failed, s->lost, s->throughput_per_s);
  if (s->completed == 0)
    fprintf (out, "           latency (no completed jobs)\n");
  else if (s->first_n > 0)
    fprintf (out, "           latency p50 %.3f s  p95 %.3f s  p99 %.3f s; first update "
             "p95 %.3f s\n", s->p50, s->p95, s->p99, s->first_p95);
  else
    fprintf (out, "           latency p50 %.3f s  p95 %.3f s  p99 %.3f s\n",
             s->p50, s->p95, s->p99);
}

/* What the engine knows of scenario i. */
static void
load_scenario_facts (LoadRun        *run,
                     guint           i,
                     RivCliScenario *scenario)
{
  scenario->name = riv_load_run_get_scenario (run->engine, i, &scenario->endpoint,
                                              &scenario->weight);
  riv_load_run_get_scenario_counts (run->engine, i, &scenario->users, &scenario->turns);
  if (scenario->users > 0)
    scenario->weight = 0;   /* not drawn */
}

/* "scenarios": {NAME: {its endpoint, weight, counts, throughput and latency}, …}. */
static void
summary_json_add_scenarios (JsonBuilder        *builder,
                            const SummaryFacts *f,
                            LoadRun            *run)
{
  if (f->n_scenarios == 0)
    return;
  /* The draws' seed: --seed with it picks the same again. */
  add_int (builder, "seed", (gint64) riv_load_run_get_seed (run->engine));
  json_builder_set_member_name (builder, "scenarios");
  json_builder_begin_object (builder);
  for (guint i = 0; i < f->n_scenarios; i++)
    {
      RivCliScenario scenario;

      load_scenario_facts (run, i, &scenario);
      riv_cli_scenario_add_json (builder, &scenario, &f->scenarios[i]);
    }
  json_builder_end_object (builder);
}

/* The text form's lines for each scenario, after the run's. */
static void
summary_print_scenarios (const SummaryFacts *f,
                         LoadRun            *run,
                         FILE               *out)
{
  if (f->n_scenarios > 0)
    fprintf (out, "seed       %" G_GUINT64_FORMAT " (--seed picks the same again)\n",
             riv_load_run_get_seed (run->engine));
  for (guint i = 0; i < f->n_scenarios; i++)
    {
      RivCliScenario scenario;

      load_scenario_facts (run, i, &scenario);
      riv_cli_scenario_print (out, &scenario, &f->scenarios[i]);
    }
}

/* The outcome counts, TLS and the outage. */
static void
summary_json_add_counts (JsonBuilder        *builder,
                         const SummaryFacts *f)
{
  add_int (builder, "submitted", f->s.submitted);
  add_int (builder, "completed", f->s.completed);
  add_int (builder, "failed", f->s.failed);
  add_int (builder, "cancelled", f->s.cancelled);
  add_int (builder, "lost", f->s.lost);
  add_int (builder, "users", f->s.users);
  add_int (builder, "processes", MAX (f->c.processes, 1));
  json_builder_set_member_name (builder, "insecure");
  json_builder_add_boolean_value (builder, riv_cli_tls_is_insecure ());
  json_builder_set_member_name (builder, "outage");
  riv_cli_outage_add_json (builder, f->outage, f->outage_start, f->outage_end);
  json_builder_set_member_name (builder, "arrivals");
  if (f->c.arrival)
    {
      json_builder_begin_object (builder);
      add_int (builder, "due", (gint64) f->c.tally.due);
      add_int (builder, "started", (gint64) f->c.tally.started);
      add_int (builder, "dropped", (gint64) f->c.tally.dropped);
      add_int (builder, "late", (gint64) f->c.tally.late);
      add_double (builder, "max_lag_s", f->c.tally.max_lag_s);
      json_builder_end_object (builder);
    }
  else
    json_builder_add_null_value (builder);
}

/* The arrival-rate run's line, and what it says when jobs could not start on time. */
static void
summary_print_arrivals (const SummaryFacts *f,
                        FILE               *out)
{
  const RivArrivalsTally *t = &f->c.tally;

  fprintf (out, "arrivals   %" G_GUINT64_FORMAT " due, %" G_GUINT64_FORMAT " started, %"
           G_GUINT64_FORMAT " dropped; latest start %.3f s after its time\n",
           t->due, t->started, t->dropped, t->max_lag_s);
  if (t->dropped > 0)
    fprintf (out, "           %" G_GUINT64_FORMAT " jobs not started: all %u users were busy "
             "(raise --max-users, or the server is too slow for the rate)\n",
             t->dropped, f->s.users);
  if (t->late > 0)
    fprintf (out, "           %" G_GUINT64_FORMAT " jobs started over %.0f ms late (this "
             "machine could not keep up)\n", t->late, RIV_ARRIVALS_LATE_S * 1000);
}

/* Time, latency, events, batches, uploads, cache and the server's share. */
static void
summary_json_add_timing (JsonBuilder        *builder,
                         const SummaryFacts *f)
{
  const RivLoadSummary *s = &f->s;

  add_double (builder, "wall_s", s->duration_s);
  add_double (builder, "duration_s", s->duration_s);
  add_double (builder, "throughput_per_s", s->throughput_per_s);
  json_builder_set_member_name (builder, "latency_s");
  json_builder_begin_object (builder);
  add_double (builder, "p50", s->p50);
  add_double (builder, "p90", s->p90);
  add_double (builder, "p95", s->p95);
  add_double (builder, "p99", s->p99);
  add_double (builder, "max", s->max);
  add_double (builder, "mean", s->mean);
  json_builder_end_object (builder);
  add_int (builder, "events", (gint64) f->c.events);
  add_int (builder, "updates", (gint64) s->updates);
  json_builder_set_member_name (builder, "batches");
  json_builder_begin_object (builder);
  add_int (builder, "count", (gint64) s->batches);
  add_double (builder, "mean_size", s->mean_batch_size);
  json_builder_end_object (builder);
  json_builder_set_member_name (builder, "uploads");
  json_builder_begin_object (builder);
  add_int (builder, "jobs", (gint64) s->uploads);
  add_double (builder, "mean_s", s->upload_mean);
  add_double (builder, "max_s", s->upload_max);
  add_double (builder, "total_s", s->upload_total);
  json_builder_end_object (builder);
  add_int (builder, "cached", (gint64) s->cached);
  json_builder_set_member_name (builder, "server");
  if (s->server_timed > 0)
    {
      json_builder_begin_object (builder);
      add_int (builder, "jobs", (gint64) s->server_timed);
      add_double (builder, "server_mean_s", s->server_mean);
      add_double (builder, "server_p50_s", s->server_p50);
      add_double (builder, "client_network_mean_s", s->rest_mean);
      add_double (builder, "client_network_p50_s", s->rest_p50);
      json_builder_end_object (builder);
    }
  else
    json_builder_add_null_value (builder);
}

/* The logs by level, the errors by text and each threshold. */
static void
summary_json_add_findings (JsonBuilder        *builder,
                           const SummaryFacts *f,
                           LoadRun            *run)
{
  RivLoadStats *stats = riv_load_run_get_stats (run->engine);
  GHashTableIter iter;
  gpointer key, value;

  json_builder_set_member_name (builder, "logs");
  json_builder_begin_object (builder);
  g_hash_table_iter_init (&iter, riv_load_stats_get_log_counts (stats));
  while (g_hash_table_iter_next (&iter, &key, &value))
    add_int (builder, key, (gint64) GPOINTER_TO_SIZE (value));
  json_builder_end_object (builder);
  json_builder_set_member_name (builder, "errors");
  json_builder_begin_array (builder);
  for (guint i = 0; i < f->errors->len; i++)
    {
      const RivLoadError *e = &g_array_index (f->errors, RivLoadError, i);

      json_builder_begin_object (builder);
      json_builder_set_member_name (builder, "error");
      json_builder_add_string_value (builder, e->text);
      add_int (builder, "count", (gint64) e->count);
      json_builder_end_object (builder);
    }
  json_builder_end_array (builder);
  json_builder_set_member_name (builder, "thresholds");
  json_builder_begin_array (builder);
  for (guint i = 0; i < run->thresholds->len; i++)
    {
      json_builder_begin_object (builder);
      json_builder_set_member_name (builder, "threshold");
      json_builder_add_string_value (builder,
        riv_load_threshold_get_text (g_ptr_array_index (run->thresholds, i)));
      add_double (builder, "value", f->measured[i]);
      json_builder_set_member_name (builder, "ok");
      json_builder_add_boolean_value (builder, f->held[i]);
      json_builder_end_object (builder);
    }
  json_builder_end_array (builder);
}

static void
summary_print_json (const SummaryFacts *f,
                    LoadRun            *run,
                    FILE               *out)
{
  g_autoptr(JsonBuilder) builder = json_builder_new ();
  g_autoptr(JsonNode) root = NULL;
  g_autofree char *text = NULL;

  json_builder_begin_object (builder);
  summary_json_add_counts (builder, f);
  summary_json_add_timing (builder, f);
  riv_cli_streaming_add_json (builder, &f->s);
  summary_json_add_findings (builder, f, run);
  summary_json_add_scenarios (builder, f, run);
  if (run->until_break)
    add_breakpoint (builder, f->c.breakpoint);
  if (run->processes != NULL)
    {
      g_autoptr(JsonArray) workers = load_processes_dup_lint (run->processes);

      riv_cli_record_add_lint (builder, workers);
    }
  else
    riv_cli_record_add_lint (builder, NULL);
  json_builder_end_object (builder);

  root = json_builder_get_root (builder);
  text = riv_json_to_string (root, NULL);
  fprintf (out, "%s\n", text);
}

/* The text form's outcome counts, outage, time and latency. */
static void
summary_print_counts (const SummaryFacts *f,
                      FILE               *out)
{
  const RivLoadSummary *s = &f->s;

  if (riv_cli_tls_is_insecure ())
    fprintf (out, "tls        certificate NOT checked (--insecure)\n");
  fprintf (out, "submitted  %" G_GUINT64_FORMAT "\n", s->submitted);
  fprintf (out, "completed  %" G_GUINT64_FORMAT "\n", s->completed);
  fprintf (out, "failed     %" G_GUINT64_FORMAT "\n", s->failed);
  fprintf (out, "cancelled  %" G_GUINT64_FORMAT "\n", s->cancelled);
  fprintf (out, "lost       %" G_GUINT64_FORMAT "\n", s->lost);
  if (f->outage)
    riv_cli_outage_print (out, f->outage_start, f->outage_end);
  if (s->users > 0 && f->c.processes > 0)
    fprintf (out, "users      %u (peak), in %u processes\n", s->users, f->c.processes);
  else if (s->users > 0)
    fprintf (out, "users      %u (peak)\n", s->users);
  if (f->c.arrival)
    summary_print_arrivals (f, out);
  fprintf (out, "wall time  %.3f s\n", s->duration_s);
  fprintf (out, "throughput %.1f jobs/s\n", s->throughput_per_s);
  if (s->completed > 0)
    fprintf (out, "latency    p50 %.3f s  p95 %.3f s  p99 %.3f s  max %.3f s\n",
             s->p50, s->p95, s->p99, s->max);
  else
    fprintf (out, "latency    (no completed jobs)\n");
}

/* The text form's events, batches, logs, uploads, cache and server lines. */
static void
summary_print_details (const SummaryFacts *f,
                       FILE               *out)
{
  const RivLoadSummary *s = &f->s;

  fprintf (out, "events     %" G_GUINT64_FORMAT " (%.0f/s)\n", f->c.events,
           s->duration_s > 0 ? f->c.events / s->duration_s : 0);
  if (s->batches > 0)
    fprintf (out, "batches    %" G_GUINT64_FORMAT ", mean size %.1f\n",
             s->batches, s->mean_batch_size);
  else
    fprintf (out, "batches    0\n");
  if (f->logs != NULL)
    fprintf (out, "logs       %s\n", riv_cli_safe (f->logs));
  if (s->uploads > 0)
    fprintf (out, "uploads    %" G_GUINT64_FORMAT " jobs sent files: mean %.3f s, max %.3f s "
             "(a file goes once per session)\n", s->uploads, s->upload_mean, s->upload_max);
  if (s->cached > 0)
    fprintf (out, "cached     %" G_GUINT64_FORMAT " jobs (answered from the server's cache)\n",
             s->cached);
  if (s->server_timed > 0)
    fprintf (out, "server     %" G_GUINT64_FORMAT " jobs timed by the server: server p50 %.3f s "
             "(mean %.3f s), network + client p50 %.3f s (mean %.3f s)\n", s->server_timed,
             s->server_p50, s->server_mean, s->rest_p50, s->rest_mean);
}

/* Each local file the jobs uploaded, named once: a FileData path in --data
 * is uploaded whatever the endpoint's input is (a textbox too). */
static void
summary_print_files (const SummaryFacts *f,
                     LoadRun            *run,
                     FILE               *out)
{
  g_autofree char *names = NULL;

  if (f->s.uploads == 0 || run->local_files == NULL || run->local_files->len == 0)
    return;
  g_ptr_array_add (run->local_files, NULL);
  names = g_strjoinv (", ", (char **) run->local_files->pdata);
  g_ptr_array_remove_index (run->local_files, run->local_files->len - 1);
  fprintf (out, "uploaded   %u file%s: %s\n", run->local_files->len,
           run->local_files->len == 1 ? "" : "s", riv_cli_safe (names));
}

/* The text form's breaking point and thresholds. */
static void
summary_print_verdicts (const SummaryFacts *f,
                        LoadRun            *run,
                        FILE               *out)
{
  const RivLoadBreakpoint *bp = f->c.breakpoint;

  if (run->until_break && bp != NULL)
    {
      g_autofree char *text = riv_load_breakpoint_describe (bp);

      fprintf (out, "breakpoint %s\n", riv_cli_safe (text));
    }
  else if (run->until_break)
    fprintf (out, "breakpoint none: nothing broke before the ramp ended\n");
  if (run->thresholds->len > 0)
    fprintf (out, "thresholds\n");
  for (guint i = 0; i < run->thresholds->len; i++)
    {
      RivLoadThreshold *t = g_ptr_array_index (run->thresholds, i);
      g_autofree char *value = riv_load_threshold_format_value (t, f->measured[i]);

      fprintf (out, "  %s %-22s measured %s\n", f->held[i] ? "✓" : "✗",
               riv_load_threshold_get_text (t), value);
    }
}

/* On standard error: jobs left unfinished, and the most frequent errors. */
static void
summary_print_problems (const SummaryFacts *f,
                        LoadRun            *run)
{
  if (f->c.stopped && f->c.finished < f->c.submitted)
    g_printerr ("rivulet-cli load: %s with %" G_GUINT64_FORMAT " job(s) unfinished; "
                "counted as lost\n", f->c.interrupted ? "interrupted" : "timed out",
                f->c.submitted - f->c.finished);

  for (guint i = 0; i < MIN (f->errors->len, MAX_ERRORS_SHOWN); i++)
    {
      const RivLoadError *e = &g_array_index (f->errors, RivLoadError, i);

      g_printerr ("rivulet-cli load: %" G_GUINT64_FORMAT " job(s): %s\n", e->count,
                  riv_cli_safe (e->text));
    }
  if (f->errors->len > MAX_ERRORS_SHOWN)
    g_printerr ("rivulet-cli load: … and %u other error text(s) (see --report)\n",
                f->errors->len - MAX_ERRORS_SHOWN);
}

/* Each line of csv after its header, prefixed with "label,". */
static void
append_labelled (GString    *out,
                 const char *label,
                 const char *csv)
{
  const char *line = strchr (csv, '\n');

  while (line != NULL && line[1] != '\0')
    {
      const char *next = strchr (line + 1, '\n');

      g_string_append_printf (out, "%s,", label);
      g_string_append_len (out, line + 1, next != NULL ? next - line : (gssize) strlen (line + 1));
      line = next;
    }
}

char *
load_timeseries_csv (LoadRun *run)
{
  g_autofree char *all = riv_load_stats_timeseries_csv (riv_load_run_get_stats (run->engine));
  guint n = riv_load_run_get_n_scenarios (run->engine);
  GString *out;

  if (n == 0)
    return g_steal_pointer (&all);
  out = g_string_new ("scenario,");
  g_string_append_len (out, all, strchr (all, '\n') + 1 - all);
  append_labelled (out, "(all)", all);
  for (guint i = 0; i < n; i++)
    {
      g_autofree char *csv =
        riv_load_stats_timeseries_csv (riv_load_run_get_scenario_stats (run->engine, i));

      append_labelled (out, riv_load_run_get_scenario (run->engine, i, NULL, NULL), csv);
    }
  return g_string_free (out, FALSE);
}

gboolean
load_print_summary (LoadRun *run,
                    FILE    *out)
{
  g_auto(SummaryFacts) facts = { 0 };

  summary_facts_init (&facts, run);
  if (run->json)
    summary_print_json (&facts, run, out);
  else
    {
      summary_print_counts (&facts, out);
      riv_cli_streaming_print (out, &facts.s);
      summary_print_details (&facts, out);
      summary_print_files (&facts, run, out);
      summary_print_scenarios (&facts, run, out);
      summary_print_verdicts (&facts, run, out);
    }
  summary_print_problems (&facts, run);
  return facts.all_held;
}

gboolean
load_write_file (const char  *path,
                 const char  *contents,
                 gsize        length,
                 GError     **error)
{
  if (strcmp (path, "-") == 0)
    {
      if (fwrite (contents, 1, length, stdout) != length || fflush (stdout) != 0)
        {
          g_set_error (error, G_IO_ERROR, G_IO_ERROR_FAILED, "cannot write to standard output");
          return FALSE;
        }
      return TRUE;
    }
  return g_file_set_contents (path, contents, length, error);
}

gboolean
load_write_report (LoadRun     *run,
                   const char  *path,
                   GError     **error)
{
  g_autofree char *html = riv_load_run_dup_report (run->engine,
                                                   (RivLoadThreshold * const *) run->thresholds->pdata,
                                                   run->thresholds->len);

  return load_write_file (path, html, strlen (html), error);
}
