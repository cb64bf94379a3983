/* riv-compare.c
 * Copyright 2026 The Rivulet authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Two runs' jobs, grouped (every endpoint, then each), kept in sketches and
 * per-second counts; figures with their noise computed on demand. The tests
 * are described in riv-compare.h; the page is in riv-compare-html.c.
 */
#include "config.h"

#include <math.h>
#include <string.h>

#include "riv-compare.h"
#include "riv-job-record.h"
#include "riv-json.h"
#include "riv-stream-quality.h"

#define MAX_ERROR_TEXTS 1000            /* per group and run; the rest are "other" */
#define ERROR_TEXT_MAX  200             /* characters of an error kept */
#define N_SLOTS         40              /* a run's jobs by submit time, in this many slots */
#define FIRST_SLOT_S    0.25            /* as wide as this at first, twice as wide as needed */
#define N_BLOCKS        10              /* the slots in use, cut into this many blocks */
#define MIN_BLOCKS      5               /* or this many; fewer are not tested */
#define MIN_PER_BLOCK   20              /* values a block needs */
#define OTHER_ERRORS    "(other errors)"

/* What one slot of a run's time holds of one group's jobs. */
typedef struct
{
  RivSketch *latency;
  RivSketch *first;
  guint64    jobs, completed, errors;   /* errors: failed and lost */
} Slot;

/* One run's jobs of one group: the whole run, and the same by submit time in
 * N_SLOTS slots (cut into blocks for the noise tests). */
typedef struct
{
  RivSketch  *latency;      /* completed jobs */
  RivSketch  *first;        /* time to first update */
  guint64     jobs, completed, failed, cancelled, lost;
  Slot        slots[N_SLOTS];
  GHashTable *errors;       /* class text → guint64 * */
} Side;

typedef struct
{
  char             *name;   /* NULL: every endpoint */
  Side              side[2];
  RivCompareFigure *figures;
  guint             n_figures;
} Group;

struct _RivCompare
{
  gint        ref_count;
  GPtrArray  *groups;      /* Group *, [0] is every endpoint */
  GHashTable *by_name;     /* endpoint → Group * (borrowed) */
  gboolean    sorted;
  double      min_change;  /* the least relative change reported */
  double      start[2];    /* each run's span: first submit … */
  double      end[2];      /* … last end, as set or as seen */
  gboolean    span_set[2];
  double      origin[2];   /* each run's slot 0 starts here (NAN: no job yet) … */
  double      width[2];    /* … and its slots are this wide, seconds */
  guint       n_slots[2];  /* the slots in use */
  double      last_submit[2];
};

static void
side_init (Side *side)
{
  side->latency = riv_sketch_new ();
  side->first = riv_sketch_new ();
  for (guint i = 0; i < N_SLOTS; i++)
    {
      side->slots[i].latency = riv_sketch_new ();
      side->slots[i].first = riv_sketch_new ();
    }
  side->errors = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
}

static void
side_clear (Side *side)
{
  g_clear_pointer (&side->latency, riv_sketch_free);
  g_clear_pointer (&side->first, riv_sketch_free);
  for (guint i = 0; i < N_SLOTS; i++)
    {
      g_clear_pointer (&side->slots[i].latency, riv_sketch_free);
      g_clear_pointer (&side->slots[i].first, riv_sketch_free);
    }
  g_clear_pointer (&side->errors, g_hash_table_unref);
}

static Group *
group_new (const char *name)
{
  Group *group = g_new0 (Group, 1);

  group->name = g_strdup (name);
  side_init (&group->side[0]);
  side_init (&group->side[1]);
  return group;
}

static void
group_free (gpointer data)
{
  Group *group = data;

  side_clear (&group->side[0]);
  side_clear (&group->side[1]);
  g_free (group->figures);
  g_free (group->name);
  g_free (group);
}

RivCompare *
riv_compare_new (void)
{
  RivCompare *self = g_new0 (RivCompare, 1);

  self->ref_count = 1;
  self->groups = g_ptr_array_new_with_free_func (group_free);
  self->by_name = g_hash_table_new (g_str_hash, g_str_equal);
  g_ptr_array_add (self->groups, group_new (NULL));
  self->min_change = RIV_COMPARE_MIN_CHANGE_DEFAULT;
  for (guint run = 0; run < 2; run++)
    {
      self->start[run] = INFINITY;
      self->end[run] = self->last_submit[run] = -INFINITY;
      self->origin[run] = NAN;
      self->width[run] = FIRST_SLOT_S;
    }
  return self;
}

RivCompare *
riv_compare_ref (RivCompare *self)
{
  g_return_val_if_fail (self != NULL, NULL);
  g_atomic_int_inc (&self->ref_count);
  return self;
}

void
riv_compare_unref (RivCompare *self)
{
  if (self == NULL || !g_atomic_int_dec_and_test (&self->ref_count))
    return;
  g_hash_table_unref (self->by_name);
  g_ptr_array_unref (self->groups);
  g_free (self);
}

static void
forget_figures (RivCompare *self)
{
  for (guint i = 0; i < self->groups->len; i++)
    {
      Group *group = g_ptr_array_index (self->groups, i);

      g_clear_pointer (&group->figures, g_free);
      group->n_figures = 0;
    }
}

static void
count_error (Side       *side,
             const char *text)
{
  guint64 *count = g_hash_table_lookup (side->errors, text);

  if (count == NULL && g_hash_table_size (side->errors) >= MAX_ERROR_TEXTS)
    count = g_hash_table_lookup (side->errors, OTHER_ERRORS);
  if (count == NULL)
    {
      count = g_new0 (guint64, 1);
      g_hash_table_insert (side->errors,
                           g_strdup (g_hash_table_size (side->errors) >= MAX_ERROR_TEXTS
                                     ? OTHER_ERRORS : text),
                           count);
    }
  (*count)++;
}

static void
side_add (Side       *side,
          guint       slot,
          const char *status,
          double      latency_s,
          double      first_s,
          const char *error_class)
{
  Slot *in = &side->slots[slot];

  side->jobs++;
  in->jobs++;
  if (first_s >= 0)
    {
      riv_sketch_add (side->first, first_s);
      riv_sketch_add (in->first, first_s);
    }
  if (strcmp (status, "completed") == 0)
    {
      side->completed++;
      in->completed++;
      if (latency_s >= 0)
        {
          riv_sketch_add (side->latency, latency_s);
          riv_sketch_add (in->latency, latency_s);
        }
      return;
    }
  if (strcmp (status, "failed") == 0)
    side->failed++;
  else if (strcmp (status, "cancelled") == 0)
    side->cancelled++;
  else
    side->lost++;
  if (strcmp (status, "cancelled") != 0)
    in->errors++;
  count_error (side, error_class);
}

/* Slots 2k and 2k+1 become slot k, in every group of the run. */
static void
halve_slots (RivCompare *self,
             guint       run)
{
  for (guint g = 0; g < self->groups->len; g++)
    {
      Side *side = &((Group *) g_ptr_array_index (self->groups, g))->side[run];

      for (guint k = 0; k < N_SLOTS / 2; k++)
        {
          Slot *to = &side->slots[k], *a = &side->slots[2 * k], *b = &side->slots[2 * k + 1];
          Slot merged = { riv_sketch_new (), riv_sketch_new (), a->jobs + b->jobs,
                          a->completed + b->completed, a->errors + b->errors };

          riv_sketch_merge (merged.latency, a->latency);
          riv_sketch_merge (merged.latency, b->latency);
          riv_sketch_merge (merged.first, a->first);
          riv_sketch_merge (merged.first, b->first);
          riv_sketch_free (to->latency);
          riv_sketch_free (to->first);
          *to = merged;
        }
      for (guint k = N_SLOTS / 2; k < N_SLOTS; k++)
        {
          Slot *slot = &side->slots[k];

          riv_sketch_free (slot->latency);
          riv_sketch_free (slot->first);
          *slot = (Slot) { riv_sketch_new (), riv_sketch_new (), 0, 0, 0 };
        }
    }
  self->width[run] *= 2;
  self->n_slots[run] = (self->n_slots[run] + 1) / 2;
}

void
riv_compare_set_span (RivCompare *self,
                      guint       run,
                      double      start,
                      double      end)
{
  g_return_if_fail (self != NULL && run < 2);
  g_return_if_fail (riv_compare_get_jobs (self, 0, run) == 0);

  self->span_set[run] = isfinite (start) && isfinite (end) && end > start;
  if (self->span_set[run])
    {
      self->start[run] = self->origin[run] = start;
      self->end[run] = end;
      /* The last instant of the span falls in the last slot. */
      self->width[run] = (end - start) / N_SLOTS * (1 + 1e-9);
    }
}

void
riv_compare_shift (RivCompare *self)
{
  g_return_if_fail (self != NULL);

  forget_figures (self);
  for (guint i = self->groups->len; i-- > 0;)
    {
      Group *group = g_ptr_array_index (self->groups, i);

      side_clear (&group->side[0]);
      group->side[0] = group->side[1];
      memset (&group->side[1], 0, sizeof group->side[1]);
      side_init (&group->side[1]);
      if (group->name != NULL && group->side[0].jobs == 0)
        {
          g_hash_table_remove (self->by_name, group->name);
          g_ptr_array_remove_index (self->groups, i);
        }
    }
  self->start[0] = self->start[1];
  self->end[0] = self->end[1];
  self->span_set[0] = self->span_set[1];
  self->origin[0] = self->origin[1];
  self->width[0] = self->width[1];
  self->n_slots[0] = self->n_slots[1];
  self->last_submit[0] = self->last_submit[1];
  self->start[1] = INFINITY;
  self->end[1] = self->last_submit[1] = -INFINITY;
  self->span_set[1] = FALSE;
  self->origin[1] = NAN;
  self->width[1] = FIRST_SLOT_S;
  self->n_slots[1] = 0;
  self->sorted = FALSE;
}

void
riv_compare_set_min_change (RivCompare *self,
                            double      min_change)
{
  g_return_if_fail (self != NULL && min_change >= 0);
  self->min_change = min_change;
  forget_figures (self);
}

/* The slot a job submitted at t falls in: from the first job's submit (or
 * the span set) in slots FIRST_SLOT_S wide, twice as wide whenever the run
 * outgrows them. A job that comes before the origin goes in slot 0. */
static guint
slot_of (RivCompare *self,
         guint       run,
         double      submitted_at)
{
  double at;

  if (!isfinite (submitted_at))
    return 0;
  if (isnan (self->origin[run]))
    self->origin[run] = submitted_at;
  at = floor ((submitted_at - self->origin[run]) / self->width[run]);
  while (at >= N_SLOTS && self->width[run] < 1e12)
    {
      halve_slots (self, run);
      at = floor ((submitted_at - self->origin[run]) / self->width[run]);
    }
  at = CLAMP (at, 0, N_SLOTS - 1);
  self->n_slots[run] = MAX (self->n_slots[run], (guint) at + 1);
  return (guint) at;
}

void
riv_compare_add_job (RivCompare *self,
                     guint       run,
                     const char *endpoint,
                     const char *status,
                     double      latency_s,
                     double      first_update_s,
                     double      submitted_at,
                     double      ended_at,
                     const char *error_text)
{
  g_autofree char *error_class = NULL;
  Group *group;
  guint slot;

  g_return_if_fail (self != NULL && run < 2 && status != NULL);

  if (strcmp (status, "failed") == 0 && riv_load_error_class (error_text) != NULL)
    error_class = g_strdup_printf ("failed: %s", riv_load_error_class (error_text));
  else if (strcmp (status, "failed") == 0)
    {
      g_autofree char *text = g_utf8_make_valid (error_text != NULL && *error_text != '\0'
                                                 ? error_text : "no message", -1);

      if (g_utf8_strlen (text, -1) > ERROR_TEXT_MAX)
        {
          g_autofree char *cut = g_utf8_substring (text, 0, ERROR_TEXT_MAX);

          error_class = g_strdup_printf ("failed: %s…", cut);
        }
      else
        error_class = g_strdup_printf ("failed: %s", text);
    }
  else
    error_class = g_strdup (status);

  forget_figures (self);
  slot = slot_of (self, run, submitted_at);
  if (isfinite (submitted_at))
    self->last_submit[run] = MAX (self->last_submit[run], submitted_at);
  if (!self->span_set[run] && isfinite (submitted_at))
    self->start[run] = MIN (self->start[run], submitted_at);
  if (!self->span_set[run] && isfinite (ended_at))
    self->end[run] = MAX (self->end[run], ended_at);

  side_add (&((Group *) g_ptr_array_index (self->groups, 0))->side[run], slot, status,
            latency_s, first_update_s, error_class);
  if (endpoint == NULL)
    return;
  group = g_hash_table_lookup (self->by_name, endpoint);
  if (group == NULL)
    {
      group = group_new (endpoint);
      g_ptr_array_add (self->groups, group);
      g_hash_table_insert (self->by_name, group->name, group);
      self->sorted = FALSE;
    }
  side_add (&group->side[run], slot, status, latency_s, first_update_s, error_class);
}

gboolean
riv_compare_add_record (RivCompare  *self,
                        guint        run,
                        JsonObject  *record,
                        GError     **error)
{
  RivJobStatus status;
  double submitted_at, queued_s, run_s, latency_s, first_s;
  RivLoadStream stream;

  g_return_val_if_fail (self != NULL && run < 2 && record != NULL, FALSE);

  if (!riv_job_record_read_outcome (record, &status, &submitted_at, error))
    return FALSE;
  /* What report merge refuses, this refuses too. */
  if (!riv_job_record_read_times (record, &queued_s, &run_s, &latency_s, error) ||
      !riv_job_record_read_stream (record, RIV_STREAM_STALL_DEFAULT_S, &stream, error))
    return FALSE;
  first_s = stream.first_s;
  riv_job_record_stream_clear (&stream);

  riv_compare_add_job (self, run, riv_json_get_string (record, "endpoint"),
                       riv_job_status_to_string (status),
                       latency_s, first_s, submitted_at,
                       latency_s >= 0 ? submitted_at + latency_s : NAN,
                       riv_json_get_string (record, "error"));
  return TRUE;
}

static int
compare_groups (gconstpointer a,
                gconstpointer b)
{
  const Group *ga = *(Group * const *) a;
  const Group *gb = *(Group * const *) b;

  if (ga->name == NULL || gb->name == NULL)
    return ga->name == NULL ? (gb->name == NULL ? 0 : -1) : 1;
  return strcmp (ga->name, gb->name);
}

static Group *
get_group (RivCompare *self,
           guint       index)
{
  if (!self->sorted)
    {
      g_ptr_array_sort (self->groups, compare_groups);
      self->sorted = TRUE;
    }
  g_return_val_if_fail (index < self->groups->len, NULL);
  return g_ptr_array_index (self->groups, index);
}

guint
riv_compare_get_n_groups (RivCompare *self)
{
  g_return_val_if_fail (self != NULL, 0);
  return self->groups->len;
}

const char *
riv_compare_get_group_name (RivCompare *self,
                            guint       group)
{
  Group *g = get_group (self, group);

  return g != NULL ? g->name : NULL;
}

guint64
riv_compare_get_jobs (RivCompare *self,
                      guint       group,
                      guint       run)
{
  Group *g = get_group (self, group);

  g_return_val_if_fail (run < 2, 0);
  return g != NULL ? g->side[run].jobs : 0;
}

const RivSketch *
riv_compare_get_latencies (RivCompare *self,
                           guint       group,
                           guint       run)
{
  Group *g = get_group (self, group);

  g_return_val_if_fail (run < 2, NULL);
  return g != NULL ? g->side[run].latency : NULL;
}

/* The rank test. */

typedef struct
{
  double  value;
  guint64 count;
} Bin;

static gboolean
add_sketch_bin (guint64  start_us,
                guint64  count,
                gpointer user_data)
{
  Bin bin = { (double) start_us, count };

  g_array_append_val ((GArray *) user_data, bin);
  return TRUE;
}

/* Mann–Whitney on two ascending lists of distinct values with counts:
 * P(b > a) with ties one half, and the two-sided p (normal approximation
 * with the tie correction and a continuity correction). */
static gboolean
rank_test (const Bin *a,
           guint      n_a,
           const Bin *b,
           guint      n_b,
           double    *p_b_greater,
           double    *p_value)
{
  double na = 0, nb = 0, u = 0, a_below = 0, ties = 0, n, mean, var, z;
  guint i = 0, j = 0;

  for (guint k = 0; k < n_a; k++)
    na += (double) a[k].count;
  for (guint k = 0; k < n_b; k++)
    nb += (double) b[k].count;
  if (na == 0 || nb == 0)
    return FALSE;

  while (i < n_a || j < n_b)
    {
      double value = j >= n_b || (i < n_a && a[i].value <= b[j].value) ? a[i].value : b[j].value;
      double ca = 0, cb = 0, t;

      if (i < n_a && a[i].value == value)
        ca = (double) a[i++].count;
      if (j < n_b && b[j].value == value)
        cb = (double) b[j++].count;
      u += cb * (a_below + ca / 2);
      a_below += ca;
      t = ca + cb;
      ties += t * t * t - t;
    }

  n = na + nb;
  mean = na * nb / 2;
  var = na * nb / 12 * ((n + 1) - ties / (n * (n - 1)));
  *p_b_greater = u / (na * nb);
  if (!(var > 0))
    {
      *p_value = 1;
      return TRUE;
    }
  z = (fabs (u - mean) - 0.5) / sqrt (var);
  *p_value = z <= 0 ? 1 : erfc (z / G_SQRT2);
  return TRUE;
}

static GArray *
sketch_bins (const RivSketch *sketch)
{
  GArray *bins = g_array_new (FALSE, FALSE, sizeof (Bin));

  riv_sketch_foreach (sketch, add_sketch_bin, bins);
  return bins;
}

gboolean
riv_compare_rank_test (RivCompare *self,
                       guint       group,
                       double     *p_b_slower,
                       double     *p_value)
{
  Group *g = get_group (self, group);
  g_autoptr(GArray) a = NULL;
  g_autoptr(GArray) b = NULL;

  g_return_val_if_fail (g != NULL && p_b_slower != NULL && p_value != NULL, FALSE);
  a = sketch_bins (g->side[0].latency);
  b = sketch_bins (g->side[1].latency);
  return rank_test ((Bin *) a->data, a->len, (Bin *) b->data, b->len, p_b_slower, p_value);
}

static int
compare_bins (gconstpointer a,
              gconstpointer b)
{
  double va = ((const Bin *) a)->value, vb = ((const Bin *) b)->value;

  return va < vb ? -1 : va > vb;
}

/* The figures. */

/* A figure's value in each block of a run, for the rank test: at most
 * N_BLOCKS values, fewer when blocks are merged or empty. */
typedef struct
{
  double values[N_BLOCKS];
  guint  n;
} Blocks;

/* What a block's value is made of. */
typedef enum
{
  BLOCK_LATENCY,      /* a percentile of the completed jobs' latencies */
  BLOCK_FIRST,        /* a percentile of the times to first update */
  BLOCK_THROUGHPUT,   /* completed jobs a second */
  BLOCK_ERROR_RATE,   /* failed and lost jobs of all */
} BlockKind;

/* The values behind a block's figure: the count that must reach
 * MIN_PER_BLOCK. */
static guint64
slot_count (const Slot *slot,
            BlockKind   kind)
{
  switch (kind)
    {
    case BLOCK_LATENCY: return riv_sketch_get_count (slot->latency);
    case BLOCK_FIRST: return riv_sketch_get_count (slot->first);
    case BLOCK_THROUGHPUT:
    case BLOCK_ERROR_RATE:
    default: return slot->jobs;
    }
}

/* The figure over slots [from, to) of a side. */
static double
block_value (RivCompare *self,
             guint       run,
             const Side *side,
             guint       from,
             guint       to,
             BlockKind   kind,
             double      q)
{
  g_autoptr(RivSketch) merged = NULL;
  guint64 completed = 0, errors = 0, jobs = 0;

  if (kind == BLOCK_LATENCY || kind == BLOCK_FIRST)
    {
      merged = riv_sketch_new ();
      for (guint i = from; i < to; i++)
        riv_sketch_merge (merged, kind == BLOCK_LATENCY ? side->slots[i].latency
                                                        : side->slots[i].first);
      return riv_sketch_quantile (merged, q);
    }
  for (guint i = from; i < to; i++)
    {
      completed += side->slots[i].completed;
      errors += side->slots[i].errors;
      jobs += side->slots[i].jobs;
    }
  if (kind == BLOCK_THROUGHPUT)
    return (double) completed / ((to - from) * self->width[run]);
  return (double) errors / (double) jobs;
}

/* A side's figure in each block of the run's slots in use: 10 blocks, or 5
 * when a block of 10 would hold fewer than MIN_PER_BLOCK values; none when
 * 5 would too. Throughput leaves out the last slot of a run whose span was
 * not set (it ends where the last job was submitted, partly empty). */
static void
side_blocks (RivCompare *self,
             guint       run,
             const Side *side,
             BlockKind   kind,
             double      q,
             Blocks     *out)
{
  guint n = self->n_slots[run];

  out->n = 0;
  if (kind == BLOCK_THROUGHPUT && !self->span_set[run] && n > 0)
    n--;
  for (guint nb = MIN (N_BLOCKS, n); nb >= MIN_BLOCKS; nb = nb > MIN_BLOCKS ? MIN_BLOCKS : 0)
    {
      gboolean enough = TRUE;

      for (guint b = 0; b < nb && enough; b++)
        {
          guint64 count = 0;

          for (guint i = b * n / nb; i < (b + 1) * n / nb; i++)
            count += slot_count (&side->slots[i], kind);
          enough = count >= MIN_PER_BLOCK;
        }
      if (!enough)
        continue;
      for (guint b = 0; b < nb; b++)
        out->values[out->n++] = block_value (self, run, side, b * n / nb, (b + 1) * n / nb,
                                             kind, q);
      return;
    }
}

/* The rank test of two runs' block values; FALSE when a run has fewer than
 * five (a rank test of fewer can never be sure). */
static gboolean
test_blocks (const Blocks *a,
             const Blocks *b,
             double       *p_value)
{
  Bin bins[2][N_BLOCKS];
  double ignored;
  const Blocks *runs[2] = { a, b };

  if (a->n < MIN_BLOCKS || b->n < MIN_BLOCKS)
    return FALSE;
  for (guint run = 0; run < 2; run++)
    {
      for (guint i = 0; i < runs[run]->n; i++)
        bins[run][i] = (Bin) { runs[run]->values[i], 1 };
      qsort (bins[run], runs[run]->n, sizeof (Bin), compare_bins);
    }
  return rank_test (bins[0], a->n, bins[1], b->n, &ignored, p_value);
}

/* tested, p_value and beyond_noise of f from its block values: beyond
 * noise when the blocks differ (p < 0.05) and the change is at least
 * min_change of A (error rate: one point of a hundred). */
static void
judge (RivCompareFigure *f,
       const Blocks     *a,
       const Blocks     *b,
       double            min_change)
{
  double change;

  f->p_value = 1;
  f->tested = f->known[0] && f->known[1] && test_blocks (a, b, &f->p_value);
  if (strcmp (f->name, "error_rate") == 0)
    change = fabs (f->value[1] - f->value[0]) >= 0.01 ? INFINITY : 0;
  else
    change = f->value[0] > 0 ? fabs (f->value[1] / f->value[0] - 1)
                             : (f->value[1] > 0 ? INFINITY : 0);
  f->beyond_noise = f->tested && f->p_value < 0.05 && change >= min_change;
}

static void
set_point (RivCompareFigure *f,
           guint             run,
           double            value)
{
  f->known[run] = TRUE;
  f->value[run] = value;
}

static const struct
{
  const char *name;
  const char *label;
  double      q;        /* 0: not a percentile */
  gboolean    first;    /* of the time to first update */
} figure_specs[] = {
  { "throughput", "throughput", 0, FALSE },
  { "p50", "latency p50", 0.50, FALSE },
  { "p90", "latency p90", 0.90, FALSE },
  { "p95", "latency p95", 0.95, FALSE },
  { "p99", "latency p99", 0.99, FALSE },
  { "ttfu_p50", "first update p50", 0.50, TRUE },
  { "ttfu_p95", "first update p95", 0.95, TRUE },
  { "ttfu_p99", "first update p99", 0.99, TRUE },
  { "error_rate", "error rate", 0, FALSE },
};

static void
compute_figure (RivCompare       *self,
                Group            *group,
                guint             spec,
                RivCompareFigure *f)
{
  Blocks blocks[2];

  f->name = figure_specs[spec].name;
  f->label = figure_specs[spec].label;
  f->sense = RIV_COMPARE_LOWER_IS_BETTER;
  f->unit = "s";
  if (strcmp (f->name, "throughput") == 0)
    {
      f->unit = "/s";
      f->sense = RIV_COMPARE_HIGHER_IS_BETTER;
    }
  else if (strcmp (f->name, "error_rate") == 0)
    f->unit = "";

  for (guint run = 0; run < 2; run++)
    {
      const Side *side = &group->side[run];
      double span = self->end[run] - self->start[run];
      BlockKind kind;

      if (figure_specs[spec].q > 0)
        {
          const RivSketch *whole = figure_specs[spec].first ? side->first : side->latency;

          if (riv_sketch_get_count (whole) > 0)
            set_point (f, run, riv_sketch_quantile (whole, figure_specs[spec].q));
          kind = figure_specs[spec].first ? BLOCK_FIRST : BLOCK_LATENCY;
        }
      else if (f->sense == RIV_COMPARE_HIGHER_IS_BETTER)
        {
          if (isfinite (span) && span > 0)
            set_point (f, run, (double) side->completed / span);
          kind = BLOCK_THROUGHPUT;
        }
      else
        {
          if (side->jobs > 0)
            set_point (f, run, (double) (side->failed + side->lost) / side->jobs);
          kind = BLOCK_ERROR_RATE;
        }
      side_blocks (self, run, side, kind, figure_specs[spec].q, &blocks[run]);
    }
  judge (f, &blocks[0], &blocks[1], self->min_change);
}

static void
compute_figures (RivCompare *self,
                 Group      *group)
{
  group->n_figures = G_N_ELEMENTS (figure_specs);
  group->figures = g_new0 (RivCompareFigure, group->n_figures);
  for (guint i = 0; i < group->n_figures; i++)
    compute_figure (self, group, i, &group->figures[i]);
}

const RivCompareFigure *
riv_compare_get_figures (RivCompare *self,
                         guint       group,
                         guint      *n_figures)
{
  Group *g = get_group (self, group);

  g_return_val_if_fail (g != NULL && n_figures != NULL, NULL);
  if (g->figures == NULL)
    compute_figures (self, g);
  *n_figures = g->n_figures;
  return g->figures;
}

const char *
riv_compare_figure_verdict (const RivCompareFigure *figure)
{
  gboolean up, worse;

  g_return_val_if_fail (figure != NULL, NULL);
  up = figure->known[0] && figure->known[1] && figure->value[1] > figure->value[0];
  worse = figure->sense == RIV_COMPARE_LOWER_IS_BETTER ? up : !up;
  if (!figure->tested)
    return "not enough jobs to say";
  if (!figure->beyond_noise)
    return "within noise";
  return worse ? "worse, beyond noise" : "better, beyond noise";
}

char *
riv_compare_describe_method (RivCompare *self)
{
  g_return_val_if_fail (self != NULL, NULL);
  return g_strdup_printf ("each run's span is cut into 10 blocks by submit time (5 when a "
                          "block would hold fewer than %d jobs) and each figure is computed "
                          "per block; a change is beyond noise when a Mann-Whitney rank test "
                          "sets B's blocks apart from A's (p < 0.05) and it is at least %g %% "
                          "of A (error rate: 1 point)", MIN_PER_BLOCK, self->min_change * 100);
}

gboolean
riv_compare_figure_ratio (const RivCompareFigure *figure,
                          double                 *ratio)
{
  g_return_val_if_fail (figure != NULL && ratio != NULL, FALSE);
  if (!figure->known[0] || !figure->known[1] || figure->value[0] == 0)
    return FALSE;
  *ratio = figure->value[1] / figure->value[0];
  return TRUE;
}

static int
compare_errors (gconstpointer a,
                gconstpointer b)
{
  const RivCompareError *ea = a, *eb = b;
  guint64 ta = ea->count[0] + ea->count[1], tb = eb->count[0] + eb->count[1];

  if (ta != tb)
    return ta > tb ? -1 : 1;
  return strcmp (ea->text, eb->text);
}

GArray *
riv_compare_get_errors (RivCompare *self,
                        guint       group)
{
  Group *g = get_group (self, group);
  g_autoptr(GHashTable) index = g_hash_table_new (g_str_hash, g_str_equal);
  GArray *errors = g_array_new (FALSE, TRUE, sizeof (RivCompareError));

  g_return_val_if_fail (g != NULL, errors);
  for (guint run = 0; run < 2; run++)
    {
      GHashTableIter iter;
      gpointer key, value;

      g_hash_table_iter_init (&iter, g->side[run].errors);
      while (g_hash_table_iter_next (&iter, &key, &value))
        {
          gpointer at;
          guint i;

          if (g_hash_table_lookup_extended (index, key, NULL, &at))
            i = GPOINTER_TO_UINT (at);
          else
            {
              RivCompareError error = { key, { 0, 0 } };

              i = errors->len;
              g_array_append_val (errors, error);
              g_hash_table_insert (index, key, GUINT_TO_POINTER (i));
            }
          g_array_index (errors, RivCompareError, i).count[run] = *(guint64 *) value;
        }
    }
  g_array_sort (errors, compare_errors);
  return errors;
}

/* Thresholds. */

typedef enum { OP_LT, OP_LE, OP_GT, OP_GE } Op;

struct _RivCompareThreshold
{
  char     *text;
  char     *figure;
  char     *endpoint;   /* NULL: every endpoint */
  gboolean  diff;       /* B − A, else B / A */
  Op        op;
  double    value;
};

void
riv_compare_threshold_free (RivCompareThreshold *self)
{
  if (self == NULL)
    return;
  g_free (self->text);
  g_free (self->figure);
  g_free (self->endpoint);
  g_free (self);
}

const char *
riv_compare_threshold_get_text (const RivCompareThreshold *self)
{
  g_return_val_if_fail (self != NULL, NULL);
  return self->text;
}

static gboolean
known_figure (const char *name)
{
  for (guint i = 0; i < G_N_ELEMENTS (figure_specs); i++)
    if (strcmp (figure_specs[i].name, name) == 0)
      return TRUE;
  return FALSE;
}

/* "p(95)" → "p95", "med" → "p50". */
static char *
canonical_figure (const char *name)
{
  if (g_str_has_prefix (name, "p(") && g_str_has_suffix (name, ")"))
    return g_strdup_printf ("p%.*s", (int) strlen (name) - 3, name + 2);
  if (strcmp (name, "med") == 0)
    return g_strdup ("p50");
  return g_strdup (name);
}

static gboolean
parse_op (const char **p,
          Op          *op)
{
  static const struct { const char *text; Op op; } ops[] = {
    { "<=", OP_LE }, { ">=", OP_GE }, { "<", OP_LT }, { ">", OP_GT },
  };

  for (guint i = 0; i < G_N_ELEMENTS (ops); i++)
    if (g_str_has_prefix (*p, ops[i].text))
      {
        *op = ops[i].op;
        *p += strlen (ops[i].text);
        return TRUE;
      }
  return FALSE;
}

RivCompareThreshold *
riv_compare_threshold_parse (const char  *text,
                             GError     **error)
{
  g_autoptr(RivCompareThreshold) self = NULL;
  g_autofree char *name = NULL;
  const char *p = text, *start;
  char *end;

  g_return_val_if_fail (text != NULL, NULL);
  self = g_new0 (RivCompareThreshold, 1);
  self->text = g_strdup (text);

#define FAIL(...) G_STMT_START { \
    g_autofree char *why = g_strdup_printf (__VA_ARGS__); \
    g_set_error (error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE, \
                 "--threshold \"%s\": %s (for example \"p95 ratio<1.10\", " \
                 "\"throughput ratio>0.9\", \"error_rate diff<0.01\", " \
                 "\"p95{endpoint:/chat} ratio<1.2\")", text, why); \
    return NULL; } G_STMT_END

  while (g_ascii_isspace (*p))
    p++;
  start = p;
  while (*p != '\0' && *p != '{' && !g_ascii_isspace (*p))
    p++;
  if (p == start)
    FAIL ("no figure");
  name = g_strndup (start, p - start);
  self->figure = canonical_figure (name);
  if (!known_figure (self->figure))
    FAIL ("unknown figure \"%s\" (throughput, p50, p90, p95, p99, ttfu_p50, ttfu_p95, "
          "ttfu_p99, error_rate)", name);
  if (*p == '{')
    {
      const char *close = strchr (p, '}');
      g_autofree char *tag = NULL;

      if (close == NULL)
        FAIL ("\"{\" without \"}\"");
      tag = g_strstrip (g_strndup (p + 1, close - p - 1));
      if (!g_str_has_prefix (tag, "endpoint:") || tag[strlen ("endpoint:")] == '\0')
        FAIL ("the only tag is {endpoint:/name}");
      self->endpoint = g_strdup (g_strstrip (tag + strlen ("endpoint:")));
      if (self->endpoint[0] != '/')
        {
          char *slashed = g_strconcat ("/", self->endpoint, NULL);

          g_free (self->endpoint);
          self->endpoint = slashed;
        }
      p = close + 1;
    }
  while (g_ascii_isspace (*p))
    p++;
  if (g_str_has_prefix (p, "ratio"))
    p += strlen ("ratio");
  else if (g_str_has_prefix (p, "diff"))
    {
      self->diff = TRUE;
      p += strlen ("diff");
    }
  else
    FAIL ("say \"ratio\" (B/A) or \"diff\" (B−A) after the figure");
  while (g_ascii_isspace (*p))
    p++;
  if (!parse_op (&p, &self->op))
    FAIL ("expected <, <=, > or >=");
  while (g_ascii_isspace (*p))
    p++;
  self->value = g_ascii_strtod (p, &end);
  if (end == p || !isfinite (self->value))
    FAIL ("expected a number after the comparison");
  p = end;
  while (g_ascii_isspace (*p))
    p++;
  if (*p != '\0')
    FAIL ("unexpected \"%s\" at the end", p);
#undef FAIL
  return g_steal_pointer (&self);
}

gboolean
riv_compare_threshold_check (const RivCompareThreshold *self,
                             RivCompare                *compare,
                             double                    *measured)
{
  guint group = G_MAXUINT, n_figures = 0;
  const RivCompareFigure *figures;
  double value = NAN;

  g_return_val_if_fail (self != NULL && compare != NULL && measured != NULL, FALSE);
  for (guint i = 0; i < riv_compare_get_n_groups (compare); i++)
    if (g_strcmp0 (riv_compare_get_group_name (compare, i), self->endpoint) == 0)
      group = i;
  *measured = NAN;
  if (group == G_MAXUINT)
    return FALSE;
  figures = riv_compare_get_figures (compare, group, &n_figures);
  for (guint i = 0; i < n_figures; i++)
    {
      const RivCompareFigure *f = &figures[i];

      if (strcmp (f->name, self->figure) != 0 || !f->known[0] || !f->known[1])
        continue;
      if (self->diff)
        value = f->value[1] - f->value[0];
      else if (!riv_compare_figure_ratio (f, &value))
        value = f->value[1] == 0 ? 1 : NAN;   /* 0 → 0 is no change; 0 → x has no ratio */
    }
  *measured = value;
  if (isnan (value))
    return FALSE;
  switch (self->op)
    {
    case OP_LT: return value < self->value;
    case OP_LE: return value <= self->value;
    case OP_GT: return value > self->value;
    case OP_GE: return value >= self->value;
    default: g_return_val_if_reached (FALSE);
    }
}
