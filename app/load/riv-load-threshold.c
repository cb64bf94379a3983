/* riv-load-threshold.c
 * Copyright 2026 The Rivulet authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * k6-style thresholds (riv-load-stats.h): parsed from text, checked on a
 * run's summary, and said in words when they fail.
 */
#include "config.h"

#include <math.h>
#include <string.h>

#include "riv-load-stats.h"

typedef enum
{
  OP_LT,
  OP_LE,
  OP_GT,
  OP_GE,
  OP_EQ,
  OP_NE,
} Op;

typedef enum
{
  KIND_LATENCY,    /* seconds */
  KIND_COUNT,
  KIND_RATE,       /* per second */
  KIND_RATIO,
} Kind;

/* What a time metric is measured on: with none of it, there is nothing
 * to hold for. */
typedef enum
{
  BASIS_NONE,
  BASIS_COMPLETED,   /* completed jobs' latencies */
  BASIS_FIRST,       /* their times to first update */
  BASIS_GAPS,        /* the gaps between their updates */
  BASIS_STAMPS,      /* their stamped updates' delays */
} Basis;

struct _RivLoadThreshold
{
  char   *text;
  char   *metric;
  Kind    kind;
  Basis   basis;
  Op      op;
  double  value;    /* latencies in seconds */
  double  unit;     /* the unit the threshold was written in: 1, 0.001, 60 */
  char   *tag_key;  /* k6's tag: "scenario" or "endpoint"; nullable */
  char   *tag_value;
};

static const struct
{
  const char *name;
  Kind        kind;
  Basis       basis;
} metrics[] = {
  { "p50", KIND_LATENCY, BASIS_COMPLETED }, { "p90", KIND_LATENCY, BASIS_COMPLETED },
  { "p95", KIND_LATENCY, BASIS_COMPLETED }, { "p99", KIND_LATENCY, BASIS_COMPLETED },
  { "max", KIND_LATENCY, BASIS_COMPLETED }, { "mean", KIND_LATENCY, BASIS_COMPLETED },
  { "avg", KIND_LATENCY, BASIS_COMPLETED }, { "med", KIND_LATENCY, BASIS_COMPLETED },
  { "ttfu_p50", KIND_LATENCY, BASIS_FIRST }, { "ttfu_p90", KIND_LATENCY, BASIS_FIRST },
  { "ttfu_p95", KIND_LATENCY, BASIS_FIRST }, { "ttfu_p99", KIND_LATENCY, BASIS_FIRST },
  { "ttfu_max", KIND_LATENCY, BASIS_FIRST },
  { "gap_p50", KIND_LATENCY, BASIS_GAPS }, { "gap_p99", KIND_LATENCY, BASIS_GAPS },
  { "gap_max", KIND_LATENCY, BASIS_GAPS },
  { "delay_p50", KIND_LATENCY, BASIS_STAMPS }, { "delay_p99", KIND_LATENCY, BASIS_STAMPS },
  { "delay_max", KIND_LATENCY, BASIS_STAMPS },
  { "completed", KIND_COUNT }, { "failed", KIND_COUNT }, { "cancelled", KIND_COUNT },
  { "lost", KIND_COUNT }, { "dropped", KIND_COUNT }, { "submitted", KIND_COUNT },
  { "users", KIND_COUNT },
  { "stalls", KIND_COUNT },
  { "throughput", KIND_RATE }, { "error_rate", KIND_RATIO },
};

static guint64
basis_count (Basis                 basis,
             const RivLoadSummary *s)
{
  switch (basis)
    {
    case BASIS_COMPLETED: return s->completed;
    case BASIS_FIRST: return s->first_n;
    case BASIS_GAPS: return s->gaps;
    case BASIS_STAMPS: return s->stamped;
    case BASIS_NONE:
    default: return 1;
    }
}

static const char *const op_texts[] = { "<", "<=", ">", ">=", "==", "!=" };

void
riv_load_threshold_free (RivLoadThreshold *self)
{
  if (self == NULL)
    return;
  g_free (self->text);
  g_free (self->metric);
  g_free (self->tag_key);
  g_free (self->tag_value);
  g_free (self);
}

const char *
riv_load_threshold_get_text (const RivLoadThreshold *self)
{
  g_return_val_if_fail (self != NULL, NULL);
  return self->text;
}

const char *
riv_load_threshold_get_tag (const RivLoadThreshold  *self,
                            const char             **value)
{
  g_return_val_if_fail (self != NULL, NULL);
  if (value != NULL)
    *value = self->tag_value;
  return self->tag_key;
}

/* Where the comparison starts: the first of "<>=!" outside the tag's braces;
 * NULL when there is none or the braces do not close. */
static const char *
find_op (const char *text)
{
  for (const char *p = text; *p != '\0'; p++)
    {
      if (*p == '{')
        {
          p = strchr (p, '}');
          if (p == NULL)
            return NULL;
        }
      else if (strchr ("<>=!", *p) != NULL)
        return p;
    }
  return NULL;
}

/* "p95{scenario:story}" → "p95", with the tag's key and value (k6's syntax). */
static gboolean
split_tag (RivLoadThreshold  *self,
           char              *name,
           GError           **error)
{
  char *open = strchr (name, '{');
  char *colon;
  size_t len;

  if (open == NULL)
    return TRUE;
  len = strlen (open);
  colon = strchr (open, ':');
  if (open[len - 1] != '}' || colon == NULL || colon == open + 1 || colon[1] == '}' ||
      strchr (open + 1, '{') != NULL || strchr (open, '}') != open + len - 1)
    goto bad;
  self->tag_key = g_strndup (open + 1, colon - open - 1);
  self->tag_value = g_strndup (colon + 1, open + len - 1 - colon - 1);
  if (strcmp (self->tag_key, "scenario") != 0 && strcmp (self->tag_key, "endpoint") != 0)
    goto bad;
  *open = '\0';
  return TRUE;

bad:
  g_set_error (error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
               "threshold \"%s\": expected a tag as {scenario:NAME} or {endpoint:NAME}, e.g. "
               "p95{scenario:chat}<2s", self->text);
  return FALSE;
}

/* "p(95)" → "p95", "avg" → "mean", "med" → "p50". */
static char *
canonical_metric (const char *name)
{
  if (g_str_has_prefix (name, "p(") && g_str_has_suffix (name, ")"))
    return g_strdup_printf ("p%.*s", (int) strlen (name) - 3, name + 2);
  if (strcmp (name, "avg") == 0)
    return g_strdup ("mean");
  if (strcmp (name, "med") == 0)
    return g_strdup ("p50");
  return g_strdup (name);
}

RivLoadThreshold *
riv_load_threshold_parse (const char  *text,
                          GError     **error)
{
  g_autoptr(RivLoadThreshold) self = NULL;
  g_autofree char *stripped = NULL;
  g_autofree char *name = NULL;
  const char *p, *op_at = NULL;
  char *number_end;
  guint op_len = 0;
  gboolean known = FALSE;

  g_return_val_if_fail (text != NULL, NULL);

  self = g_new0 (RivLoadThreshold, 1);
  self->text = g_strdup (text);
  self->unit = 1;
  stripped = g_strdup (text);
  /* No spaces anywhere: "p95 < 2s" reads as "p95<2s". */
  {
    char *w = stripped;

    for (const char *r = text; *r != '\0'; r++)
      if (!g_ascii_isspace (*r))
        *w++ = *r;
    *w = '\0';
  }

  op_at = find_op (stripped);
  if (op_at == NULL || op_at == stripped)
    {
      g_set_error (error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
                   "threshold \"%s\": expected METRIC OP VALUE, e.g. p95<2s or failed==0", text);
      return NULL;
    }

  for (guint i = 0; i < G_N_ELEMENTS (op_texts); i++)
    {
      guint len = strlen (op_texts[i]);

      if (strncmp (op_at, op_texts[i], len) == 0 && len > op_len &&
          strchr ("<>=!", op_at[len]) == NULL)
        {
          self->op = (Op) i;
          op_len = len;
        }
    }
  if (op_len == 0)
    {
      g_autofree char *bad = g_strndup (op_at, strspn (op_at, "<>=!"));

      g_set_error (error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
                   "threshold \"%s\": unknown comparison \"%s\" (use <, <=, >, >=, == or !=)",
                   text, bad);
      return NULL;
    }

  name = g_strndup (stripped, op_at - stripped);
  if (!split_tag (self, name, error))
    return NULL;
  self->metric = canonical_metric (name);
  for (guint i = 0; i < G_N_ELEMENTS (metrics); i++)
    if (strcmp (self->metric, metrics[i].name) == 0)
      {
        self->kind = metrics[i].kind;
        self->basis = metrics[i].basis;
        known = TRUE;
      }
  if (!known)
    {
      g_set_error (error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
                   "threshold \"%s\": unknown metric \"%s\" (p50 p90 p95 p99 max mean, "
                   "ttfu_p50 ttfu_p90 ttfu_p95 ttfu_p99 ttfu_max, gap_p50 gap_p99 gap_max, "
                   "delay_p50 delay_p99 delay_max, completed failed cancelled lost dropped "
                   "submitted users stalls, throughput, error_rate)",
                   text, name);
      return NULL;
    }

  p = op_at + op_len;
  self->value = g_ascii_strtod (p, &number_end);
  if (number_end == p || !isfinite (self->value))
    {
      g_set_error (error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
                   "threshold \"%s\": \"%s\" is not a number", text, p);
      return NULL;
    }

  if (*number_end != '\0')
    {
      if (self->kind != KIND_LATENCY)
        {
          g_set_error (error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
                       "threshold \"%s\": \"%s\" takes no unit, \"%s\" is not understood",
                       text, self->metric, number_end);
          return NULL;
        }
      if (strcmp (number_end, "ms") == 0)
        self->unit = 0.001;
      else if (strcmp (number_end, "s") == 0)
        self->unit = 1;
      else if (strcmp (number_end, "m") == 0)
        self->unit = 60;
      else
        {
          g_set_error (error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
                       "threshold \"%s\": unknown unit \"%s\" (ms, s or m)", text, number_end);
          return NULL;
        }
      self->value *= self->unit;
    }

  return g_steal_pointer (&self);
}

RivLoadThreshold *
riv_load_threshold_parse_tagged (const char  *text,
                                 const char  *key,
                                 const char  *value,
                                 GError     **error)
{
  g_autofree char *tagged = NULL;
  size_t metric_len;

  g_return_val_if_fail (text != NULL && key != NULL && value != NULL, NULL);

  if (strchr (text, '{') != NULL)
    {
      g_set_error (error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
                   "threshold \"%s\": it applies to its %s already: leave out the tag",
                   text, key);
      return NULL;
    }
  metric_len = strcspn (text, "<>=!");
  while (metric_len > 0 && g_ascii_isspace (text[metric_len - 1]))
    metric_len--;
  tagged = g_strdup_printf ("%.*s{%s:%s}%s", (int) metric_len, text, key, value,
                            text + metric_len);
  return riv_load_threshold_parse (tagged, error);
}

static double
measure (const RivLoadThreshold *self,
         const RivLoadSummary   *s)
{
  const char *m = self->metric;

  if (strcmp (m, "p50") == 0) return s->p50;
  if (strcmp (m, "p90") == 0) return s->p90;
  if (strcmp (m, "p95") == 0) return s->p95;
  if (strcmp (m, "p99") == 0) return s->p99;
  if (strcmp (m, "max") == 0) return s->max;
  if (strcmp (m, "mean") == 0) return s->mean;
  if (strcmp (m, "ttfu_p50") == 0) return s->first_p50;
  if (strcmp (m, "ttfu_p90") == 0) return s->first_p90;
  if (strcmp (m, "ttfu_p95") == 0) return s->first_p95;
  if (strcmp (m, "ttfu_p99") == 0) return s->first_p99;
  if (strcmp (m, "ttfu_max") == 0) return s->first_max;
  if (strcmp (m, "gap_p50") == 0) return s->gap_p50;
  if (strcmp (m, "gap_p99") == 0) return s->gap_p99;
  if (strcmp (m, "gap_max") == 0) return s->gap_max;
  if (strcmp (m, "delay_p50") == 0) return s->delay_p50;
  if (strcmp (m, "delay_p99") == 0) return s->delay_p99;
  if (strcmp (m, "delay_max") == 0) return s->delay_max;
  if (strcmp (m, "stalls") == 0) return s->stalls;
  if (strcmp (m, "completed") == 0) return s->completed;
  if (strcmp (m, "failed") == 0) return s->failed;
  if (strcmp (m, "cancelled") == 0) return s->cancelled;
  if (strcmp (m, "lost") == 0) return s->lost;
  if (strcmp (m, "dropped") == 0) return s->dropped;
  if (strcmp (m, "submitted") == 0) return s->submitted;
  if (strcmp (m, "users") == 0) return s->users;
  if (strcmp (m, "throughput") == 0) return s->throughput_per_s;
  if (strcmp (m, "error_rate") == 0)
    return s->submitted > 0 ? (double) (s->failed + s->lost) / s->submitted : 0;
  g_return_val_if_reached (NAN);
}

gboolean
riv_load_threshold_check (const RivLoadThreshold *self,
                          const RivLoadSummary   *summary,
                          double                 *measured)
{
  double v;

  g_return_val_if_fail (self != NULL, FALSE);
  g_return_val_if_fail (summary != NULL, FALSE);

  v = measure (self, summary);
  if (measured != NULL)
    *measured = v;

  /* A time threshold with nothing measured has nothing to hold for. */
  if (self->kind == KIND_LATENCY && basis_count (self->basis, summary) == 0)
    return FALSE;

  switch (self->op)
    {
    case OP_LT: return v < self->value;
    case OP_LE: return v <= self->value;
    case OP_GT: return v > self->value;
    case OP_GE: return v >= self->value;
    case OP_EQ: return v == self->value;
    case OP_NE: return v != self->value;
    default: g_return_val_if_reached (FALSE);
    }
}

gboolean
riv_load_threshold_is_live (const RivLoadThreshold *self,
                            const RivLoadSummary   *summary)
{
  g_return_val_if_fail (self != NULL, FALSE);
  g_return_val_if_fail (summary != NULL, FALSE);

  if (self->kind == KIND_LATENCY)
    return basis_count (self->basis, summary) > 0;
  return self->kind == KIND_RATIO || strcmp (self->metric, "failed") == 0 ||
         strcmp (self->metric, "lost") == 0 || strcmp (self->metric, "cancelled") == 0 ||
         strcmp (self->metric, "stalls") == 0;
}

/* The metric in words, for a sentence. */
static char *
metric_words (const char *metric)
{
  static const struct { const char *prefix; const char *words; } families[] = {
    { "ttfu_", "time to first update" },
    { "gap_", "the gap between updates," },
    { "delay_", "Rivulet's own delay" },
  };

  for (guint i = 0; i < G_N_ELEMENTS (families); i++)
    if (g_str_has_prefix (metric, families[i].prefix))
      return g_strdup_printf ("%s %s", families[i].words, metric + strlen (families[i].prefix));
  if (metric[0] == 'p' && g_ascii_isdigit (metric[1]))
    return g_strdup_printf ("latency %s", metric);
  if (strcmp (metric, "max") == 0 || strcmp (metric, "mean") == 0)
    return g_strdup_printf ("latency %s", metric);
  return g_strdup (metric);
}

char *
riv_load_threshold_describe_failure (const RivLoadThreshold *self,
                                     double                  measured)
{
  const char *crossed;
  g_autofree char *words = NULL;
  g_autofree char *limit = NULL;
  g_autofree char *value = NULL;

  g_return_val_if_fail (self != NULL, NULL);

  switch (self->op)
    {
    case OP_LT:
    case OP_LE:
      crossed = measured > self->value ? "went over" : "reached";
      break;
    case OP_GT:
    case OP_GE:
      crossed = measured < self->value ? "fell under" : "fell to";
      break;
    case OP_EQ:
      crossed = "was not";
      break;
    case OP_NE:
    default:
      crossed = "reached";
      break;
    }
  words = metric_words (self->metric);
  limit = riv_load_threshold_format_value (self, self->value);
  value = riv_load_threshold_format_value (self, measured);
  return g_strdup_printf ("%s %s %s (threshold %s, measured %s)", words, crossed,
                          limit, self->text, value);
}

char *
riv_load_threshold_format_value (const RivLoadThreshold *self,
                                 double                  value)
{
  g_return_val_if_fail (self != NULL, NULL);

  switch (self->kind)
    {
    case KIND_LATENCY:
      if (self->unit < 1)
        return g_strdup_printf ("%.1fms", value * 1000);
      if (self->unit > 1)
        return g_strdup_printf ("%.2fm", value / 60);
      return g_strdup_printf ("%.3fs", value);
    case KIND_COUNT:
      return g_strdup_printf ("%.0f", value);
    case KIND_RATIO:
      return g_strdup_printf ("%.4f", value);
    case KIND_RATE:
    default:
      return g_strdup_printf ("%.1f", value);
    }
}
