/* riv-metrics.c
 * Copyright 2026 The Rivulet authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * /metrics of a load run (riv-metrics.h): counters kept under one mutex,
 * a SoupServer on a GMainContext and thread of its own that renders them
 * per scrape. Names follow Prometheus' conventions: the rivulet_ prefix,
 * _total on counters, base units (seconds, bytes), histograms with
 * cumulative buckets and no quantiles.
 */
#include "config.h"

#include <string.h>

#include <libsoup/soup.h>

#include "riv-compat.h"
#include "riv-listen.h"
#include "riv-metrics.h"
#include "riv-outcomes.h"

/* Seconds; from a fast demo job to a long generator stuck in a deep queue.
 * The texts are the le="…" labels (never the locale's decimal comma). */
static const double buckets[] = {
  0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300,
};
static const char *const bucket_texts[] = {
  "0.005", "0.01", "0.025", "0.05", "0.1", "0.25", "0.5", "1", "2.5", "5", "10", "30", "60",
  "120", "300", "+Inf",
};
G_STATIC_ASSERT (G_N_ELEMENTS (bucket_texts) == G_N_ELEMENTS (buckets) + 1);
#define N_BUCKETS G_N_ELEMENTS (buckets)

typedef struct
{
  guint64 counts[N_BUCKETS + 1];   /* per bucket (not cumulative); the last is +Inf */
  guint64 count;
  double  sum;
} Histogram;

/* What the jobs add up to: the run's, or one scenario's. */
typedef struct
{
  guint64       submitted;
  RivOutcomes   outcomes;
  Histogram     latency;
  Histogram     queue_wait;
  Histogram     first_update;
  Histogram     gaps;
  guint64       stalls;
} JobMetrics;

struct _RivMetrics
{
  GMutex        lock;              /* guards everything below it */
  JobMetrics    jobs;
  GStrv         scenarios;         /* nullable: the jobs' series are by scenario */
  JobMetrics   *by_scenario;       /* one a scenario */
  guint         users;
  guint         in_flight;
  guint         open_streams;
  guint64       messages;
  guint64       bytes;
  GHashTable   *lint;              /* rule (owned) → guint64 in a pointer */

  /* The server's own */
  GMainContext *context;
  GThread      *thread;
  SoupServer   *server;
  char         *url;
  gboolean      loopback;
  gboolean      quit;              /* atomic */
  GHashTable   *scrapers;          /* User-Agent (owned) → Scraper (owned) */
  gboolean      final;
};

/* One scraper (Prometheus, a test, curl), told apart by its User-Agent. */
typedef struct
{
  double   at[2];                  /* monotonic: its last two scrapes, [1] the latest */
  gboolean after_final;
} Scraper;

static void
outcome_render (GString    *out,
                const char *label,
                const char *outcome,
                guint64     count)
{
  g_string_append_printf (out, "rivulet_jobs_finished_total{%s%soutcome=\"%s\"} %"
                          G_GUINT64_FORMAT "\n", label, *label != '\0' ? "," : "", outcome, count);
}

static void
histogram_add_n (Histogram *h,
                 double     value,
                 guint64    n)
{
  guint i = 0;

  while (i < N_BUCKETS && value > buckets[i])
    i++;
  h->counts[i] += n;
  h->count += n;
  h->sum += value * (double) n;
}

static void
histogram_add (Histogram *h,
               double     value)
{
  histogram_add_n (h, value, 1);
}

/* A sketch's bucket, counted at its start (within 1/128 of its values). */
static gboolean
add_sketch_bucket (guint64  start_us,
                   guint64  count,
                   gpointer user_data)
{
  histogram_add_n (user_data, (double) start_us / G_USEC_PER_SEC, count);
  return TRUE;
}

RivMetrics *
riv_metrics_new (void)
{
  RivMetrics *self = g_atomic_rc_box_new0 (RivMetrics);

  g_mutex_init (&self->lock);
  self->lint = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  self->scrapers = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
  return self;
}

static gboolean
quit_cb (gpointer data)
{
  return G_SOURCE_REMOVE;
}

RivMetrics *
riv_metrics_ref (RivMetrics *self)
{
  g_return_val_if_fail (self != NULL, NULL);

  return g_atomic_rc_box_acquire (self);
}

static void
riv_metrics_clear (RivMetrics *self)
{
  if (self->thread != NULL)
    {
      g_atomic_int_set (&self->quit, TRUE);
      g_main_context_invoke (self->context, quit_cb, NULL);
      g_thread_join (self->thread);
    }
  if (self->server != NULL)
    {
      g_main_context_push_thread_default (self->context);
      soup_server_disconnect (self->server);
      g_clear_object (&self->server);
      while (g_main_context_iteration (self->context, FALSE))
        ;
      g_main_context_pop_thread_default (self->context);
    }
  g_clear_pointer (&self->context, g_main_context_unref);
  g_clear_pointer (&self->lint, g_hash_table_unref);
  g_clear_pointer (&self->scrapers, g_hash_table_unref);
  g_clear_pointer (&self->scenarios, g_strfreev);
  g_clear_pointer (&self->by_scenario, g_free);
  g_free (self->url);
  g_mutex_clear (&self->lock);
}

void
riv_metrics_unref (RivMetrics *self)
{
  if (self != NULL)
    g_atomic_rc_box_release_full (self, (GDestroyNotify) riv_metrics_clear);
}

/* ---- the page ---- */

static void
family (GString    *out,
        const char *name,
        const char *type,
        const char *help,
        gboolean    openmetrics)
{
  /* OpenMetrics names a counter's family without its _total suffix. */
  gsize len = strlen (name);

  if (openmetrics && strcmp (type, "counter") == 0 && g_str_has_suffix (name, "_total"))
    len -= strlen ("_total");
  g_string_append_printf (out, "# HELP %.*s %s\n# TYPE %.*s %s\n",
                          (int) len, name, help, (int) len, name, type);
}

/* label: "" or 'scenario="NAME"', the series' labels besides le. */
static void
histogram_render (GString         *out,
                  const char      *name,
                  const char      *label,
                  const Histogram *h)
{
  char sum[G_ASCII_DTOSTR_BUF_SIZE];
  guint64 cumulative = 0;
  g_autofree char *braced = *label != '\0' ? g_strdup_printf ("{%s}", label) : g_strdup ("");

  for (guint i = 0; i <= N_BUCKETS; i++)
    {
      cumulative += h->counts[i];
      g_string_append_printf (out, "%s_bucket{%s%sle=\"%s\"} %" G_GUINT64_FORMAT "\n",
                              name, label, *label != '\0' ? "," : "", bucket_texts[i], cumulative);
    }
  g_string_append_printf (out, "%s_sum%s %s\n%s_count%s %" G_GUINT64_FORMAT "\n",
                          name, braced, g_ascii_dtostr (sum, sizeof sum, h->sum), name, braced,
                          h->count);
}

/* The jobs' families: the run's series, or one a scenario (label scenario). */
static void
jobs_render (RivMetrics *self,
             GString    *out,
             gboolean    openmetrics)
{
  static const struct
  {
    const char *name;
    const char *help;
    gsize       offset;
  } histograms[] = {
    { "rivulet_job_latency_seconds", "Submit to end of each completed job.",
      G_STRUCT_OFFSET (JobMetrics, latency) },
    { "rivulet_job_queue_wait_seconds", "Submit to start of each job that started.",
      G_STRUCT_OFFSET (JobMetrics, queue_wait) },
    { "rivulet_job_first_update_seconds",
      "Submit to the first output update of each completed job.",
      G_STRUCT_OFFSET (JobMetrics, first_update) },
    { "rivulet_update_gap_seconds",
      "Gaps between consecutive streamed updates of the completed jobs.",
      G_STRUCT_OFFSET (JobMetrics, gaps) },
  };
  guint n = self->scenarios != NULL ? g_strv_length (self->scenarios) : 1;
  g_auto(GStrv) labels = g_new0 (char *, n + 1);
  JobMetrics *series = self->scenarios != NULL ? self->by_scenario : &self->jobs;

  for (guint k = 0; k < n; k++)
    labels[k] = self->scenarios != NULL
      ? g_strdup_printf ("scenario=\"%s\"", self->scenarios[k]) : g_strdup ("");

  family (out, "rivulet_jobs_submitted_total", "counter", "Jobs the load run submitted.",
          openmetrics);
  for (guint k = 0; k < n; k++)
    g_string_append_printf (out, "rivulet_jobs_submitted_total%s%s%s %" G_GUINT64_FORMAT "\n",
                            *labels[k] != '\0' ? "{" : "", labels[k],
                            *labels[k] != '\0' ? "}" : "", series[k].submitted);
  family (out, "rivulet_jobs_finished_total", "counter",
          "Jobs that ended, by outcome (completed, failed, cancelled, lost).", openmetrics);
  for (guint k = 0; k < n; k++)
    {
      outcome_render (out, labels[k], "completed", series[k].outcomes.completed);
      outcome_render (out, labels[k], "failed", series[k].outcomes.failed);
      outcome_render (out, labels[k], "cancelled", series[k].outcomes.cancelled);
      outcome_render (out, labels[k], "lost", series[k].outcomes.lost);
    }
  for (guint i = 0; i < G_N_ELEMENTS (histograms); i++)
    {
      family (out, histograms[i].name, "histogram", histograms[i].help, openmetrics);
      for (guint k = 0; k < n; k++)
        histogram_render (out, histograms[i].name, labels[k],
                          G_STRUCT_MEMBER_P (&series[k], histograms[i].offset));
    }
  family (out, "rivulet_stream_stalls_total", "counter",
          "Gaps between streamed updates longer than the stall limit (load --stall).",
          openmetrics);
  for (guint k = 0; k < n; k++)
    g_string_append_printf (out, "rivulet_stream_stalls_total%s%s%s %" G_GUINT64_FORMAT "\n",
                            *labels[k] != '\0' ? "{" : "", labels[k],
                            *labels[k] != '\0' ? "}" : "", series[k].stalls);
}

static int
compare_strings (gconstpointer a,
                 gconstpointer b)
{
  return strcmp (*(const char * const *) a, *(const char * const *) b);
}

char *
riv_metrics_render (RivMetrics *self,
                    gboolean    openmetrics)
{
  GString *out = g_string_sized_new (4096);
  g_autofree gpointer *rules = NULL;
  guint n_rules;

  g_return_val_if_fail (self != NULL, NULL);

  g_mutex_lock (&self->lock);

  jobs_render (self, out, openmetrics);
  family (out, "rivulet_users", "gauge", "Virtual users active.", openmetrics);
  g_string_append_printf (out, "rivulet_users %u\n", self->users);
  family (out, "rivulet_jobs_in_flight", "gauge", "Jobs submitted that have not ended.",
          openmetrics);
  g_string_append_printf (out, "rivulet_jobs_in_flight %u\n", self->in_flight);
  family (out, "rivulet_open_streams", "gauge", "Event streams (queue/data) connected.",
          openmetrics);
  g_string_append_printf (out, "rivulet_open_streams %u\n", self->open_streams);
  family (out, "rivulet_stream_messages_total", "counter",
          "Messages received on the event streams.", openmetrics);
  g_string_append_printf (out, "rivulet_stream_messages_total %" G_GUINT64_FORMAT "\n",
                          self->messages);
  family (out, "rivulet_stream_received_bytes_total", "counter",
          "Bytes received on the event streams.", openmetrics);
  g_string_append_printf (out, "rivulet_stream_received_bytes_total %" G_GUINT64_FORMAT "\n",
                          self->bytes);
  family (out, "rivulet_lint_findings_total", "counter",
          "Protocol lint findings, by rule.", openmetrics);
  rules = g_hash_table_get_keys_as_array (self->lint, &n_rules);
  qsort (rules, n_rules, sizeof (gpointer), compare_strings);
  for (guint i = 0; i < n_rules; i++)
    g_string_append_printf (out, "rivulet_lint_findings_total{rule=\"%s\"} %" G_GSIZE_FORMAT "\n",
                            (const char *) rules[i],
                            GPOINTER_TO_SIZE (g_hash_table_lookup (self->lint, rules[i])));

  g_mutex_unlock (&self->lock);

  if (openmetrics)
    g_string_append (out, "# EOF\n");
  return g_string_free (out, FALSE);
}

/* ---- updates ---- */

void
riv_metrics_set_scenarios (RivMetrics         *self,
                           const char * const *names)
{
  g_return_if_fail (self != NULL);

  g_mutex_lock (&self->lock);
  g_clear_pointer (&self->scenarios, g_strfreev);
  g_clear_pointer (&self->by_scenario, g_free);
  if (names != NULL && names[0] != NULL)
    {
      self->scenarios = g_strdupv ((char **) names);
      self->by_scenario = g_new0 (JobMetrics, g_strv_length (self->scenarios));
    }
  g_mutex_unlock (&self->lock);
}

/* The run's figures, and those of scenario (0: none; k: the k-th) when the
 * series are by scenario. Under the lock. */
static guint
jobs_for (RivMetrics  *self,
          guint        scenario,
          JobMetrics **jobs)
{
  jobs[0] = &self->jobs;
  if (self->scenarios == NULL || scenario == 0 || scenario > g_strv_length (self->scenarios))
    return 1;
  jobs[1] = &self->by_scenario[scenario - 1];
  return 2;
}

void
riv_metrics_add_submitted (RivMetrics *self,
                           guint       scenario)
{
  JobMetrics *jobs[2];

  g_return_if_fail (self != NULL);

  g_mutex_lock (&self->lock);
  for (guint i = jobs_for (self, scenario, jobs); i-- > 0;)
    jobs[i]->submitted++;
  g_mutex_unlock (&self->lock);
}

void
riv_metrics_add_job (RivMetrics   *self,
                     guint         scenario,
                     RivJobStatus  status,
                     double        queued_s,
                     double        latency_s)
{
  JobMetrics *jobs[2];

  g_return_if_fail (self != NULL);

  g_mutex_lock (&self->lock);
  for (guint i = jobs_for (self, scenario, jobs); i-- > 0;)
    {
      if (riv_outcomes_add (&jobs[i]->outcomes, status) == RIV_JOB_STATUS_COMPLETED &&
          latency_s >= 0)
        histogram_add (&jobs[i]->latency, latency_s);
      if (queued_s >= 0)
        histogram_add (&jobs[i]->queue_wait, queued_s);
    }
  g_mutex_unlock (&self->lock);
}

void
riv_metrics_add_stream (RivMetrics      *self,
                        guint            scenario,
                        RivJobStatus     status,
                        double           first_s,
                        const RivSketch *gaps,
                        guint            stalls)
{
  JobMetrics *jobs[2];

  g_return_if_fail (self != NULL);

  g_mutex_lock (&self->lock);
  for (guint i = jobs_for (self, scenario, jobs); i-- > 0;)
    {
      jobs[i]->stalls += stalls;
      if (status != RIV_JOB_STATUS_COMPLETED)
        continue;
      if (first_s >= 0)
        histogram_add (&jobs[i]->first_update, first_s);
      riv_sketch_foreach (gaps, add_sketch_bucket, &jobs[i]->gaps);
    }
  g_mutex_unlock (&self->lock);
}

void
riv_metrics_set_gauges (RivMetrics *self,
                        guint       users,
                        guint       in_flight,
                        guint       open_streams)
{
  g_return_if_fail (self != NULL);

  g_mutex_lock (&self->lock);
  self->users = users;
  self->in_flight = in_flight;
  self->open_streams = open_streams;
  g_mutex_unlock (&self->lock);
}

void
riv_metrics_set_received (RivMetrics *self,
                          guint64     messages,
                          guint64     bytes)
{
  g_return_if_fail (self != NULL);

  g_mutex_lock (&self->lock);
  /* Totals only grow: a client that ended may be counted a moment late. */
  self->messages = MAX (self->messages, messages);
  self->bytes = MAX (self->bytes, bytes);
  g_mutex_unlock (&self->lock);
}

void
riv_metrics_set_lint (RivMetrics *self,
                      const char *rule,
                      guint64     findings)
{
  g_return_if_fail (self != NULL);
  g_return_if_fail (rule != NULL);

  g_mutex_lock (&self->lock);
  g_hash_table_insert (self->lint, g_strdup (rule), GSIZE_TO_POINTER ((gsize) findings));
  g_mutex_unlock (&self->lock);
}

/* ---- the server ---- */

static void
handle_metrics_cb (SoupServer        *server,
                   SoupServerMessage *msg,
                   const char        *path,
                   GHashTable        *query,
                   gpointer           data)
{
  RivMetrics *self = data;
  const char *method = soup_server_message_get_method (msg);
  const char *accept = soup_message_headers_get_list (soup_server_message_get_request_headers (msg),
                                                      "Accept");
  gboolean openmetrics = accept != NULL && strstr (accept, "application/openmetrics-text") != NULL;
  gboolean drawn_after_final;
  char *page;

  /* libsoup 3.2 answers a 200 GET with a Range header itself, with a copy
   * of the page per range asked, built in one buffer: pages are whole. */
  soup_message_headers_remove (soup_server_message_get_request_headers (msg), "Range");

  if (strcmp (path, "/metrics") != 0)
    {
      soup_server_message_set_status (msg, SOUP_STATUS_NOT_FOUND, NULL);
      return;
    }
  if (strcmp (method, "GET") != 0 && strcmp (method, "HEAD") != 0)
    {
      soup_server_message_set_status (msg, SOUP_STATUS_METHOD_NOT_ALLOWED, NULL);
      soup_message_headers_replace (soup_server_message_get_response_headers (msg),
                                    "Allow", "GET, HEAD");
      return;
    }
  /* Whether this page holds the final values is known before it is drawn:
   * the run may end while it is (a page drawn just before the end and
   * counted as the last would keep the run's last values from the scraper). */
  g_mutex_lock (&self->lock);
  drawn_after_final = self->final;
  g_mutex_unlock (&self->lock);
  page = riv_metrics_render (self, openmetrics);
  {
    const char *agent = soup_message_headers_get_one (soup_server_message_get_request_headers (msg),
                                                      "User-Agent");
    Scraper *scraper;

    g_mutex_lock (&self->lock);
    scraper = g_hash_table_lookup (self->scrapers, agent != NULL ? agent : "");
    if (scraper == NULL)
      {
        scraper = g_new0 (Scraper, 1);
        g_hash_table_insert (self->scrapers, g_strdup (agent != NULL ? agent : ""), scraper);
      }
    scraper->at[0] = scraper->at[1];
    scraper->at[1] = riv_now ();
    scraper->after_final = drawn_after_final;
    g_mutex_unlock (&self->lock);
  }
  soup_server_message_set_status (msg, SOUP_STATUS_OK, NULL);
  soup_server_message_set_response (msg, openmetrics
                                      ? "application/openmetrics-text; version=1.0.0; charset=utf-8"
                                      : "text/plain; version=0.0.4; charset=utf-8",
                                    SOUP_MEMORY_TAKE, page, strlen (page));
}

static gpointer
serve_thread (gpointer data)
{
  RivMetrics *self = data;

  g_main_context_push_thread_default (self->context);
  while (!g_atomic_int_get (&self->quit))
    g_main_context_iteration (self->context, TRUE);
  g_main_context_pop_thread_default (self->context);
  return NULL;
}

/* "HOST:PORT", "[V6]:PORT" or "PORT" into a socket address; names other
 * than localhost are refused. */
static GSocketAddress *
parse_address (const char  *text,
               GError     **error)
{
  g_autofree char *host = NULL;
  g_autoptr(GInetAddress) inet = NULL;
  const char *port_text;
  const char *colon = strrchr (text, ':');
  guint64 port;

  if (colon == NULL)
    {
      host = g_strdup ("127.0.0.1");
      port_text = text;
    }
  else if (text[0] == '[' && colon > text && colon[-1] == ']')
    {
      host = g_strndup (text + 1, colon - text - 2);
      port_text = colon + 1;
    }
  else
    {
      host = g_strndup (text, colon - text);
      port_text = colon + 1;
    }
  if (*host == '\0' || strcmp (host, "localhost") == 0)
    riv_set_str (&host, "127.0.0.1");
  if (!g_ascii_string_to_unsigned (port_text, 10, 0, 65535, &port, NULL))
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT,
                   "\"%s\": \"%s\" is not a port (0…65535; 0 picks a free one)", text, port_text);
      return NULL;
    }
  inet = g_inet_address_new_from_string (host);
  if (inet == NULL || strchr (host, '%') != NULL)
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT,
                   "\"%s\": \"%s\" is not an IP address (e.g. 127.0.0.1:9464, [::1]:9464)",
                   text, host);
      return NULL;
    }
  return g_inet_socket_address_new (inet, (guint16) port);
}

gboolean
riv_metrics_listen (RivMetrics  *self,
                    const char  *address,
                    GError     **error)
{
  g_autoptr(GSocketAddress) socket_address = NULL;
  g_autoptr(GSocket) socket = NULL;
  g_autoptr(GError) local_error = NULL;
  g_autofree char *host = NULL;
  GInetAddress *inet;
  guint port = 0;
  gboolean ok;

  g_return_val_if_fail (self != NULL, FALSE);
  g_return_val_if_fail (address != NULL, FALSE);
  g_return_val_if_fail (self->server == NULL, FALSE);

  socket_address = parse_address (address, error);
  if (socket_address == NULL)
    return FALSE;
  socket = riv_listen_socket (socket_address, 0, &port, &local_error);
  if (socket == NULL)
    {
      g_set_error (error, G_IO_ERROR, local_error->code, "cannot listen on %s: %s", address,
                   local_error->message);
      return FALSE;
    }

  /* The server's sources belong to its own context, which its thread runs. */
  self->context = g_main_context_new ();
  g_main_context_push_thread_default (self->context);
  self->server = soup_server_new ("server-header", "rivulet-metrics ", NULL);
  soup_server_add_handler (self->server, NULL, handle_metrics_cb, self, NULL);
  ok = soup_server_listen_socket (self->server, socket, 0, &local_error);
  g_main_context_pop_thread_default (self->context);
  if (!ok)
    {
      g_set_error (error, G_IO_ERROR, local_error->code, "cannot listen on %s: %s", address,
                   local_error->message);
      g_clear_object (&self->server);
      g_clear_pointer (&self->context, g_main_context_unref);
      return FALSE;
    }

  inet = g_inet_socket_address_get_address (G_INET_SOCKET_ADDRESS (socket_address));
  host = g_inet_address_to_string (inet);
  self->loopback = g_inet_address_get_is_loopback (inet);
  self->url = g_inet_address_get_family (inet) == G_SOCKET_FAMILY_IPV6
    ? g_strdup_printf ("http://[%s]:%u/metrics", host, port)
    : g_strdup_printf ("http://%s:%u/metrics", host, port);
  self->thread = g_thread_new ("riv-metrics", serve_thread, self);
  return TRUE;
}

double
riv_metrics_set_final (RivMetrics *self)
{
  GHashTableIter iter;
  gpointer value;
  double interval = -1;

  g_return_val_if_fail (self != NULL, 0);

  g_mutex_lock (&self->lock);
  self->final = TRUE;
  g_hash_table_iter_init (&iter, self->scrapers);
  while (g_hash_table_iter_next (&iter, NULL, &value))
    {
      Scraper *scraper = value;

      if (scraper->at[0] > 0)
        interval = MAX (interval, scraper->at[1] - scraper->at[0]);
    }
  g_mutex_unlock (&self->lock);
  return interval >= 0 ? MIN (2 * interval + 1, 60) : 0;
}

gboolean
riv_metrics_final_scraped (RivMetrics *self)
{
  GHashTableIter iter;
  gpointer value;
  gboolean scraped = TRUE;

  g_return_val_if_fail (self != NULL, FALSE);

  /* Every scraper that came at least twice has come since the end. */
  g_mutex_lock (&self->lock);
  g_hash_table_iter_init (&iter, self->scrapers);
  while (g_hash_table_iter_next (&iter, NULL, &value))
    if (((Scraper *) value)->at[0] > 0 && !((Scraper *) value)->after_final)
      scraped = FALSE;
  g_mutex_unlock (&self->lock);
  return scraped;
}

gboolean
riv_metrics_is_loopback (RivMetrics *self)
{
  g_return_val_if_fail (self != NULL, FALSE);

  return self->loopback;
}

const char *
riv_metrics_get_url (RivMetrics *self)
{
  g_return_val_if_fail (self != NULL, NULL);

  return self->url;
}
