/* bench-ingest.c
 * Copyright 2026 The Rivulet authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Issue #7, item 1: client ingest rate on one core. For several sets of
 * realistic queue frames it measures, side by side in each repetition:
 *
 *  - path:      RivClient's own stream code fed the set's bytes through
 *               _riv_client_feed_stream_for_testing (SSE reader → message
 *               parser → dispatch by event id → diff apply → RivJob), for
 *               jobs registered under their event ids, without a network;
 *  - parse:     json-glib alone, a reused JsonParser loading each frame's JSON,
 *               measured alongside the path: segment by segment, each
 *               segment's frames are parsed alone, then fed to the client, so
 *               that both see the same load on a shared machine (the ratio of
 *               the two is the goal);
 *  - parse-solo: the same parse in one loop over the whole set;
 *  - parse-imm: that loop with json_parser_new_immutable();
 *  - real:      the real RivClient (libsoup, socket, its own dispatch code)
 *               reading the same bytes from a server thread in this process,
 *               from the first byte written to the last job finished.
 *
 * Prints one JSON object per set and line. Not a test: nothing is asserted on
 * timing; the outputs are verified (wrong text → "verified": false).
 */
#include "config.h"

#include <string.h>

#include <libsoup/soup.h>

#include "bench-util.h"
#include "riv-client-private.h"
#include "riv-json.h"
#include "riv-message.h"
#include "riv-sse-reader.h"

#define READ_SIZE    (64 * 1024)   /* what RivClient reads from its stream at a time */
#define SUBMIT_CHUNK 200           /* jobs per main-loop turn, as rivulet-cli load does */
#define SEGMENT      (16 * READ_SIZE)

static const char *words[] = {
  "the", "river", "runs", "fast", "over", "smooth", "stones", "and", "sand",
  "under", "a", "grey", "sky", "while", "boats", "drift", "slowly", "home",
};

/* Frame sets --------------------------------------------------------------------------- */

typedef struct
{
  const char *name;
  GPtrArray  *frames;     /* char*, the JSON text of each frame */
  GString    *blob;       /* the same frames as an SSE byte stream */
  GPtrArray  *ids;        /* char*, one event id per job */
  GPtrArray  *expected;   /* char*, final text per job (NULL entries: not checked) */
  GHashTable *index;      /* event id → job index + 1 */
  GArray     *ends;       /* gsize: where each frame ends in blob */
  gboolean    completes;  /* every job ends with process_completed */
} FrameSet;

static void
frame_set_free (FrameSet *set)
{
  g_ptr_array_unref (set->frames);
  g_string_free (set->blob, TRUE);
  g_ptr_array_unref (set->ids);
  g_ptr_array_unref (set->expected);
  g_hash_table_unref (set->index);
  g_array_unref (set->ends);
  g_free (set);
}

G_DEFINE_AUTOPTR_CLEANUP_FUNC (FrameSet, frame_set_free)

static FrameSet *
frame_set_new (const char *name,
               guint       n_jobs,
               gboolean    completes)
{
  FrameSet *set = g_new0 (FrameSet, 1);

  set->name = name;
  set->frames = g_ptr_array_new_with_free_func (g_free);
  set->blob = g_string_new (NULL);
  set->ids = g_ptr_array_new_with_free_func (g_free);
  set->expected = g_ptr_array_new_with_free_func (g_free);
  set->index = g_hash_table_new (g_str_hash, g_str_equal);
  set->ends = g_array_new (FALSE, FALSE, sizeof (gsize));
  set->completes = completes;

  for (guint j = 0; j < n_jobs; j++)
    {
      /* 32 lowercase hex digits, like Gradio's uuid4().hex. */
      char *id = g_strdup_printf ("%08x%08x%08x%08x", 0x5eed0000u + j, g_str_hash (name),
                                  j * 2654435761u, ~j);

      g_ptr_array_add (set->ids, id);
      g_ptr_array_add (set->expected, NULL);
      g_hash_table_insert (set->index, id, GUINT_TO_POINTER (j + 1));
    }
  return set;
}

G_GNUC_PRINTF (2, 3) static void
add_frame (FrameSet   *set,
           const char *format,
           ...)
{
  va_list args;
  char *json;

  va_start (args, format);
  json = g_strdup_vprintf (format, args);
  va_end (args);

  g_string_append (set->blob, "data: ");
  g_string_append (set->blob, json);
  g_string_append (set->blob, "\n\n");
  g_array_append_val (set->ends, set->blob->len);
  g_ptr_array_add (set->frames, json);
}

static void
string_free (GString *string)
{
  g_string_free (string, TRUE);
}

static const char *
id_of (FrameSet *set,
       guint     job)
{
  return g_ptr_array_index (set->ids, job);
}

static void
add_estimation (FrameSet *set,
                guint     job,
                guint     rank,
                guint     size)
{
  add_frame (set, "{\"msg\":\"estimation\",\"event_id\":\"%s\",\"rank\":%u,\"queue_size\":%u,"
             "\"rank_eta\":%u.%02u}", id_of (set, job), rank, size, rank + 1, (rank * 37) % 100);
}

static void
add_starts (FrameSet *set,
            guint     job)
{
  add_frame (set, "{\"msg\":\"process_starts\",\"event_id\":\"%s\",\"eta\":1.25}", id_of (set, job));
}

/* The first yield carries the full value; later yields one-token appends. */
static void
add_generating (FrameSet   *set,
                guint       job,
                gboolean    first,
                const char *token)
{
  if (first)
    add_frame (set, "{\"msg\":\"process_generating\",\"event_id\":\"%s\",\"output\":{\"data\":[\"%s\"],"
               "\"is_generating\":true,\"duration\":0.02,\"average_duration\":0.02,"
               "\"render_config\":null,\"changed_state_ids\":[],\"used_cache\":null},"
               "\"success\":true,\"time_limit\":null}", id_of (set, job), token);
  else
    add_frame (set, "{\"msg\":\"process_generating\",\"event_id\":\"%s\",\"output\":{\"data\":"
               "[[[\"append\",[],\" %s\"]]],\"is_generating\":true,\"duration\":0.02,"
               "\"average_duration\":0.02,\"render_config\":null,\"changed_state_ids\":[],"
               "\"used_cache\":null},\"success\":true,\"time_limit\":null}", id_of (set, job), token);
}

static void
add_completed (FrameSet   *set,
               guint       job,
               const char *text)
{
  add_frame (set, "{\"msg\":\"process_completed\",\"event_id\":\"%s\",\"output\":{\"data\":[\"%s\"],"
             "\"is_generating\":false,\"duration\":1.2,\"average_duration\":1.1,"
             "\"render_config\":null,\"changed_state_ids\":[],\"used_cache\":null},"
             "\"success\":true,\"title\":null,\"used_cache\":null,\"cache_duration\":null,"
             "\"avg_time\":1.1}", id_of (set, job), text);
  g_free (g_ptr_array_index (set->expected, job));
  g_ptr_array_index (set->expected, job) = g_strdup (text);
}

static const char *
word (guint job,
      guint token)
{
  return words[(job * 7 + token * 3) % G_N_ELEMENTS (words)];
}

/* A stream_text-like session: waves of `wave` concurrent jobs; each job gets an
 * estimation, process_starts, `tokens` yields (a full first value, then one-token
 * appends) and its completion with the full text. */
static FrameSet *
build_mix (guint n_jobs,
           guint tokens,
           guint wave)
{
  FrameSet *set = frame_set_new ("mix", n_jobs, TRUE);

  for (guint first = 0; first < n_jobs; first += wave)
    {
      guint last = MIN (first + wave, n_jobs);
      g_autoptr(GPtrArray) texts = g_ptr_array_new_with_free_func ((GDestroyNotify) string_free);

      for (guint j = first; j < last; j++)
        add_estimation (set, j, j - first, last - first);
      for (guint j = first; j < last; j++)
        add_starts (set, j);
      for (guint j = first; j < last; j++)
        g_ptr_array_add (texts, g_string_new (NULL));
      for (guint t = 0; t < tokens; t++)
        for (guint j = first; j < last; j++)
          {
            GString *text = g_ptr_array_index (texts, j - first);

            if (t > 0)
              g_string_append_c (text, ' ');
            g_string_append (text, word (j, t));
            add_generating (set, j, t == 0, word (j, t));
          }
      for (guint j = first; j < last; j++)
        add_completed (set, j, ((GString *) g_ptr_array_index (texts, j - first))->str);
    }
  return set;
}

/* Queue position broadcasts: every job hears `rounds` estimations, round robin. */
static FrameSet *
build_estimation (guint n_jobs,
                  guint rounds)
{
  FrameSet *set = frame_set_new ("estimation", n_jobs, FALSE);

  for (guint r = 0; r < rounds; r++)
    for (guint j = 0; j < n_jobs; j++)
      add_estimation (set, j, j + rounds - r, n_jobs + rounds - r);
  return set;
}

/* Concurrent streaming: every job gets `tokens` yields (first full, then
 * one-token appends), round robin; no completion. */
static FrameSet *
build_append (guint n_jobs,
              guint tokens)
{
  FrameSet *set = frame_set_new ("append", n_jobs, FALSE);
  g_autoptr(GPtrArray) texts = g_ptr_array_new_with_free_func ((GDestroyNotify) string_free);

  for (guint j = 0; j < n_jobs; j++)
    g_ptr_array_add (texts, g_string_new (NULL));
  for (guint t = 0; t < tokens; t++)
    for (guint j = 0; j < n_jobs; j++)
      {
        GString *text = g_ptr_array_index (texts, j);

        if (t > 0)
          g_string_append_c (text, ' ');
        g_string_append (text, word (j, t));
        add_generating (set, j, t == 0, word (j, t));
      }
  for (guint j = 0; j < n_jobs; j++)
    g_ptr_array_index (set->expected, j) = g_strdup (((GString *) g_ptr_array_index (texts, j))->str);
  return set;
}

/* One completion per job (a burst of finished jobs). */
static FrameSet *
build_completed (guint n_jobs,
                 guint tokens)
{
  FrameSet *set = frame_set_new ("completed", n_jobs, TRUE);

  for (guint j = 0; j < n_jobs; j++)
    {
      g_autoptr(GString) text = g_string_new (NULL);

      for (guint t = 0; t < tokens; t++)
        {
          if (t > 0)
            g_string_append_c (text, ' ');
          g_string_append (text, word (j, t));
        }
      add_completed (set, j, text->str);
    }
  return set;
}

/* json-glib alone ---------------------------------------------------------------------- */

typedef struct
{
  double   rate;        /* frames per CPU second of the thread doing the work */
  double   wall_rate;   /* frames per wall-clock second */
  double   floor_rate;  /* path: json-glib alone, alongside it (frames per CPU second) */
  double   floor_wall_rate;
  gboolean verified;
} Result;

static Result
measure_parse (FrameSet *set,
               gboolean  immutable)
{
  g_autoptr(JsonParser) parser = immutable ? json_parser_new_immutable () : json_parser_new ();
  double start = bench_now ();
  double cpu = bench_thread_cpu ();
  Result result = { 0, 0, 0, 0, TRUE };

  for (guint i = 0; i < set->frames->len; i++)
    {
      const char *json = g_ptr_array_index (set->frames, i);
      g_autoptr(GError) error = NULL;

      if (!json_parser_load_from_data (parser, json, strlen (json), &error))
        g_error ("frame %u does not parse: %s", i, error->message);
    }
  result.rate = set->frames->len / (bench_thread_cpu () - cpu);
  result.wall_rate = set->frames->len / (bench_now () - start);
  return result;
}

/* The client's own path, without a network ----------------------------------------------
 *
 * A RivClient with the set's config and a local stream (riv-client-private.h):
 * every job is submitted and registered under its event id as if its join
 * reply had named it, then the set's bytes go through the client's stream code
 * (SSE reader → stream_event_cb → riv_message_parse → dispatch_message →
 * apply_message → apply_outputs / finish_job) READ_SIZE bytes at a time, as
 * network reads would hand them over. The CPU time counted ends once the
 * last throttled output was handed to its job. */

/* What the server's /config says (the real run's server sends it too). */
static const char fake_config[] =
  "{\"version\":\"5.0.0\",\"protocol\":\"sse_v3\",\"api_prefix\":\"/gradio_api\","
  "\"enable_queue\":true,\"connect_heartbeat\":false,\"components\":["
  "{\"id\":1,\"type\":\"textbox\",\"props\":{\"label\":\"prompt\",\"value\":\"\"}},"
  "{\"id\":2,\"type\":\"textbox\",\"props\":{\"label\":\"text\",\"value\":\"\"}}],"
  "\"dependencies\":[{\"id\":0,\"api_name\":\"predict\",\"inputs\":[1],\"outputs\":[2],"
  "\"queue\":true,\"backend_fn\":true,\"types\":{\"generator\":true,\"cancel\":false},"
  "\"batch\":false,\"max_batch_size\":4,\"connection\":\"sse\"}]}";

static gboolean
check_text (FrameSet   *set,
            guint       j,
            RivJob     *job,
            const char *why)
{
  const char *expected = g_ptr_array_index (set->expected, j);

  if (set->completes && riv_job_get_status (job) != RIV_JOB_STATUS_COMPLETED)
    {
      g_printerr ("bench-ingest: %s/%s: job %u ended %s\n", set->name, why, j,
                  riv_job_status_to_string (riv_job_get_status (job)));
      return FALSE;
    }
  if (expected != NULL && g_strcmp0 (riv_job_get_output_text (job), expected) != 0)
    {
      g_printerr ("bench-ingest: %s/%s: job %u has text \"%.60s\", expected \"%.60s\"\n", set->name,
                  why, j, riv_job_get_output_text (job), expected);
      return FALSE;
    }
  return TRUE;
}


typedef struct
{
  FrameSet  *set;
  GPtrArray *jobs;
} PathRun;

/* Every job shows its final text (streamed outputs are handed over at most
 * every publish interval, the last one by a timer). */
static gboolean
path_published (gpointer user_data)
{
  PathRun *run = user_data;

  for (guint j = 0; j < run->jobs->len; j++)
    {
      const char *expected = g_ptr_array_index (run->set->expected, j);

      if (expected != NULL &&
          g_strcmp0 (riv_job_get_output_text (g_ptr_array_index (run->jobs, j)), expected) != 0)
        return FALSE;
    }
  return TRUE;
}

static Result
measure_path (FrameSet *set)
{
  g_autoptr(RivClient) client = riv_client_new ("http://127.0.0.1:9");
  g_autoptr(RivConfig) config = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonNode) data = json_from_string ("[\"prompt\"]", NULL);
  g_autoptr(GPtrArray) jobs = g_ptr_array_new_with_free_func (g_object_unref);
  g_autoptr(JsonParser) parser = json_parser_new ();
  PathRun run = { set, jobs };
  Result result = { 0, 0, 0, 0, TRUE };
  guint64 n_before;
  double path_cpu = 0;
  double parse_cpu = 0;
  double parse_wall = 0;
  guint next = 0;
  double start;
  double cpu;

  config = riv_config_new_from_data (fake_config, -1, "http://127.0.0.1:9", &error);
  if (config == NULL)
    g_error ("bench-ingest: config: %s", error->message);
  _riv_client_connect_local_for_testing (client, config);

  /* Jobs as they are after their join reply (not timed). */
  for (guint j = 0; j < set->ids->len; j++)
    {
      RivJob *job = _riv_client_submit_joined_for_testing (client, "predict", data, id_of (set, j),
                                                           &error);

      if (job == NULL)
        g_error ("bench-ingest: submit: %s", error->message);
      g_ptr_array_add (jobs, job);
    }
  n_before = riv_client_get_n_messages (client);

  /* Segment by segment, json-glib alone parses the frames that end in the
   * segment, then the client is fed the segment: both see the same load on
   * the machine, and the ratio of the two sums is what is reported. */
  start = bench_now ();
  for (gsize seg = 0; seg < set->blob->len; seg += SEGMENT)
    {
      gsize seg_end = MIN (seg + SEGMENT, set->blob->len);
      double c0, c1, w0;

      w0 = bench_now ();
      c0 = bench_thread_cpu ();
      for (; next < set->frames->len && g_array_index (set->ends, gsize, next) <= seg_end; next++)
        {
          const char *json = g_ptr_array_index (set->frames, next);

          if (!json_parser_load_from_data (parser, json, strlen (json), &error))
            g_error ("frame %u does not parse: %s", next, error->message);
        }
      c1 = bench_thread_cpu ();
      parse_wall += bench_now () - w0;
      for (gsize offset = seg; offset < seg_end; offset += READ_SIZE)
        if (!_riv_client_feed_stream_for_testing (client, set->blob->str + offset,
                                                  MIN (READ_SIZE, seg_end - offset)))
          g_error ("bench-ingest: the client has no stream");
      path_cpu += bench_thread_cpu () - c1;
      parse_cpu += c1 - c0;
    }
  cpu = bench_thread_cpu ();
  if (!bench_wait_until (path_published, &run, 30))
    result.verified = FALSE;
  path_cpu += bench_thread_cpu () - cpu;
  result.rate = set->frames->len / path_cpu;
  result.floor_rate = set->frames->len / parse_cpu;
  result.floor_wall_rate = set->frames->len / parse_wall;
  result.wall_rate = set->frames->len / (bench_now () - start - parse_wall);

  if (riv_client_get_n_messages (client) - n_before != set->frames->len)
    result.verified = FALSE;
  for (guint j = 0; j < jobs->len && result.verified; j++)
    result.verified = check_text (set, j, g_ptr_array_index (jobs, j), "path");

  riv_client_close (client);
  return result;
}

/* Stages of the path, for the breakdown: the reader alone, then + JSON parse
 * (a reused plain parser, as the client has, via riv_json_parse), then +
 * RivMessage. */
typedef enum
{
  STAGE_READER,
  STAGE_JSON,
  STAGE_MESSAGE,
} Stage;

typedef struct
{
  Stage       stage;
  JsonParser *parser;
  guint64     n;
} StageRun;

static void
stage_event_cb (const char *event_type,
                const char *data,
                gsize       len,
                gpointer    user_data)
{
  StageRun *run = user_data;
  g_autoptr(GError) error = NULL;

  run->n++;
  if (run->stage == STAGE_JSON)
    {
      JsonNode *root = riv_json_parse (run->parser, data, len, RIV_MESSAGE_MAX_DEPTH, &error);

      if (root == NULL)
        g_error ("stage: %s", error->message);
      json_node_unref (root);
    }
  else if (run->stage == STAGE_MESSAGE)
    {
      RivMessage *msg = riv_message_parse (run->parser, data, len, &error);

      if (msg == NULL)
        g_error ("stage: %s", error->message);
      riv_message_free (msg);
    }
}

static Result
measure_stage (FrameSet *set,
               Stage     stage)
{
  g_autoptr(RivSseReader) reader = riv_sse_reader_new (RIV_SSE_DEFAULT_MAX_FRAME);
  StageRun run = { stage, json_parser_new (), 0 };
  Result result = { 0, 0, 0, 0, TRUE };
  double start = bench_now ();
  double cpu = bench_thread_cpu ();

  for (gsize offset = 0; offset < set->blob->len; offset += READ_SIZE)
    {
      g_autoptr(GError) error = NULL;

      if (!riv_sse_reader_feed (reader, set->blob->str + offset,
                                MIN (READ_SIZE, set->blob->len - offset), stage_event_cb, &run, &error))
        g_error ("stage: %s", error->message);
    }
  result.rate = set->frames->len / (bench_thread_cpu () - cpu);
  result.wall_rate = set->frames->len / (bench_now () - start);
  result.verified = run.n == set->frames->len;
  g_object_unref (run.parser);
  return result;
}

/* The real client against a server thread -------------------------------------------------
 *
 * The server answers /config, /info and joins (handing out the set's event
 * ids in join order), attaches the session's SSE GET, and once every job has
 * joined writes the whole set at once, then close_stream. */

typedef struct
{
  GThread           *thread;
  GMainContext      *context;
  GMainLoop         *loop;
  SoupServer        *server;
  char              *url;
  FrameSet          *set;          /* borrowed, swapped between runs by the main thread */
  char              *session;
  SoupServerMessage *stream;       /* attached GET, nullable */
  guint              n_joins;
  gboolean           written;
  gint64             start_us;     /* under lock: when the set started going out */
  GMutex             lock;
  GCond              cond;
  gboolean           ready;
} Fake;


static void
reply_json (SoupServerMessage *msg,
            guint              status,
            const char        *json)
{
  soup_server_message_set_status (msg, status, NULL);
  soup_server_message_set_response (msg, "application/json", SOUP_MEMORY_COPY, json, strlen (json));
}

static void
fake_stream_finished_cb (SoupServerMessage *msg,
                         gpointer           user_data)
{
  Fake *fake = user_data;

  if (fake->stream == msg)
    g_clear_object (&fake->stream);
}

static void
fake_maybe_write (Fake *fake)
{
  static const char close_frame[] = "data: {\"msg\":\"close_stream\",\"event_id\":null}\n\n";
  SoupMessageBody *body;
  GString *blob = fake->set->blob;

  if (fake->stream == NULL || fake->written || fake->n_joins < fake->set->ids->len)
    return;

  fake->written = TRUE;
  g_mutex_lock (&fake->lock);
  fake->start_us = g_get_monotonic_time ();
  g_mutex_unlock (&fake->lock);
  body = soup_server_message_get_response_body (fake->stream);
  for (gsize offset = 0; offset < blob->len; offset += READ_SIZE)
    soup_message_body_append (body, SOUP_MEMORY_STATIC, blob->str + offset,
                              MIN (READ_SIZE, blob->len - offset));
  soup_message_body_append (body, SOUP_MEMORY_STATIC, close_frame, strlen (close_frame));
  soup_message_body_complete (body);
  soup_server_message_unpause (fake->stream);
}

static void
fake_handle (SoupServer        *server,
             SoupServerMessage *msg,
             const char        *path,
             GHashTable        *query,
             gpointer           user_data)
{
  Fake *fake = user_data;

  if (strcmp (path, "/config") == 0)
    reply_json (msg, 200, fake_config);
  else if (strcmp (path, "/gradio_api/info") == 0)
    reply_json (msg, 200, "{\"named_endpoints\":{},\"unnamed_endpoints\":{}}");
  else if (strcmp (path, "/gradio_api/queue/join") == 0)
    {
      g_autoptr(GBytes) bytes = soup_message_body_flatten (soup_server_message_get_request_body (msg));
      g_autoptr(JsonNode) root = json_from_string (g_bytes_get_data (bytes, NULL), NULL);
      const char *session = NULL;
      g_autofree char *reply = NULL;

      if (root != NULL && JSON_NODE_HOLDS_OBJECT (root))
        session = json_object_get_string_member_with_default (json_node_get_object (root),
                                                              "session_hash", NULL);
      if (session == NULL)
        {
          reply_json (msg, 400, "{\"detail\":\"Session hash not found.\"}");
          return;
        }
      if (g_strcmp0 (session, fake->session) != 0)
        {
          /* A new run (a new client): start over. */
          g_free (fake->session);
          fake->session = g_strdup (session);
          fake->n_joins = 0;
          fake->written = FALSE;
        }
      if (fake->n_joins >= fake->set->ids->len)
        {
          reply_json (msg, 400, "{\"detail\":\"More joins than the benchmark expects.\"}");
          return;
        }
      reply = g_strdup_printf ("{\"event_id\":\"%s\"}",
                               (char *) g_ptr_array_index (fake->set->ids, fake->n_joins++));
      reply_json (msg, 200, reply);
      fake_maybe_write (fake);
    }
  else if (strcmp (path, "/gradio_api/queue/data") == 0)
    {
      SoupMessageHeaders *headers = soup_server_message_get_response_headers (msg);
      SoupMessageBody *body = soup_server_message_get_response_body (msg);

      soup_server_message_set_status (msg, 200, NULL);
      soup_message_headers_set_content_type (headers, "text/event-stream", NULL);
      soup_message_headers_replace (headers, "Cache-Control", "no-cache");
      soup_message_headers_set_encoding (headers, SOUP_ENCODING_CHUNKED);
      soup_message_body_set_accumulate (body, FALSE);

      if (fake->written || fake->stream != NULL)
        {
          /* Everything went out on an earlier GET: nothing more for this session. */
          static const char close_frame[] = "data: {\"msg\":\"close_stream\",\"event_id\":null}\n\n";

          soup_message_body_append (body, SOUP_MEMORY_STATIC, close_frame, strlen (close_frame));
          soup_message_body_complete (body);
          return;
        }
      fake->stream = g_object_ref (msg);
      g_signal_connect (msg, "finished", G_CALLBACK (fake_stream_finished_cb), fake);
      fake_maybe_write (fake);
    }
  else
    reply_json (msg, 404, "{\"detail\":\"Not Found\"}");
}

static gpointer
fake_thread (gpointer user_data)
{
  Fake *fake = user_data;
  g_autoptr(GError) error = NULL;
  GSList *uris;

  g_main_context_push_thread_default (fake->context);
  fake->server = soup_server_new ("server-header", "bench-ingest", NULL);
  soup_server_add_handler (fake->server, NULL, fake_handle, fake, NULL);
  if (!soup_server_listen_local (fake->server, 0, SOUP_SERVER_LISTEN_IPV4_ONLY, &error))
    g_error ("bench-ingest: cannot listen: %s", error->message);
  uris = soup_server_get_uris (fake->server);
  fake->url = g_strdup_printf ("http://127.0.0.1:%d", g_uri_get_port (uris->data));
  g_slist_free_full (uris, (GDestroyNotify) g_uri_unref);

  g_mutex_lock (&fake->lock);
  fake->ready = TRUE;
  g_cond_signal (&fake->cond);
  g_mutex_unlock (&fake->lock);

  g_main_loop_run (fake->loop);

  g_clear_object (&fake->stream);
  soup_server_disconnect (fake->server);
  g_clear_object (&fake->server);
  g_main_context_pop_thread_default (fake->context);
  return NULL;
}

static Fake *
fake_start (void)
{
  Fake *fake = g_new0 (Fake, 1);

  g_mutex_init (&fake->lock);
  g_cond_init (&fake->cond);
  fake->context = g_main_context_new ();
  fake->loop = g_main_loop_new (fake->context, FALSE);
  fake->thread = g_thread_new ("bench-server", fake_thread, fake);

  g_mutex_lock (&fake->lock);
  while (!fake->ready)
    g_cond_wait (&fake->cond, &fake->lock);
  g_mutex_unlock (&fake->lock);
  return fake;
}

static gboolean
quit_loop_cb (gpointer user_data)
{
  g_main_loop_quit (user_data);
  return G_SOURCE_REMOVE;
}

static void
fake_stop (Fake *fake)
{
  g_main_context_invoke (fake->context, quit_loop_cb, fake->loop);
  g_thread_join (fake->thread);
  g_main_loop_unref (fake->loop);
  g_main_context_unref (fake->context);
  g_mutex_clear (&fake->lock);
  g_cond_clear (&fake->cond);
  g_free (fake->session);
  g_free (fake->url);
  g_free (fake);
}

/* Runs on the server thread: the main thread swaps sets only between runs. */
static gboolean
fake_set_cb (gpointer user_data)
{
  gpointer *args = user_data;
  Fake *fake = args[0];

  fake->set = args[1];
  g_free (fake->session);
  fake->session = NULL;
  fake->n_joins = 0;
  fake->written = FALSE;
  g_clear_object (&fake->stream);

  g_mutex_lock (&fake->lock);
  args[2] = GINT_TO_POINTER (1);
  g_cond_signal (&fake->cond);
  g_mutex_unlock (&fake->lock);
  return G_SOURCE_REMOVE;
}

static void
fake_set (Fake     *fake,
          FrameSet *set)
{
  gpointer args[3] = { fake, set, NULL };

  g_main_context_invoke (fake->context, fake_set_cb, args);
  g_mutex_lock (&fake->lock);
  while (args[2] == NULL)
    g_cond_wait (&fake->cond, &fake->lock);
  g_mutex_unlock (&fake->lock);
}

typedef struct
{
  GAsyncResult *result;
  guint         n_finished;
  guint         n_jobs;
  guint         n_joined;     /* jobs that have their event id */
  double        joined_cpu;   /* thread CPU time when the last job got its event id */
  double        end;
  double        end_cpu;
} RealRun;

static void
connect_cb (GObject      *object,
            GAsyncResult *result,
            gpointer      user_data)
{
  RealRun *run = user_data;

  run->result = g_object_ref (result);
}

static gboolean
connected (gpointer user_data)
{
  return ((RealRun *) user_data)->result != NULL;
}

static gboolean
all_finished (gpointer user_data)
{
  RealRun *run = user_data;

  return run->n_finished >= run->n_jobs;
}

static void
job_finished_cb (RivClient *client,
                 RivJob    *job,
                 gpointer   user_data)
{
  RealRun *run = user_data;

  run->n_finished++;
  run->end = bench_now ();
  run->end_cpu = bench_thread_cpu ();
}

static void
job_event_id_cb (RivJob     *job,
                 GParamSpec *pspec,
                 gpointer    user_data)
{
  RealRun *run = user_data;

  if (riv_job_get_event_id (job) == NULL)
    return;
  g_signal_handlers_disconnect_by_func (job, job_event_id_cb, user_data);
  if (++run->n_joined == run->n_jobs)
    run->joined_cpu = bench_thread_cpu ();
}

static Result
measure_real (Fake     *fake,
              FrameSet *set)
{
  g_autoptr(RivClient) client = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonNode) data = json_from_string ("[\"prompt\"]", NULL);
  g_autoptr(GPtrArray) jobs = g_ptr_array_new_with_free_func (g_object_unref);
  RealRun run = { NULL, 0, set->ids->len, 0, 0, 0, 0 };
  Result result = { 0, 0, 0, 0, TRUE };

  fake_set (fake, set);

  client = riv_client_new (fake->url);
  riv_client_connect_async (client, NULL, connect_cb, &run);
  bench_wait_until (connected, &run, 30);
  if (run.result == NULL || !riv_client_connect_finish (client, run.result, &error))
    g_error ("bench-ingest: connect: %s", error ? error->message : "timed out");
  g_clear_object (&run.result);

  /* Submitted SUBMIT_CHUNK per main-loop turn, as rivulet-cli load and the
   * app's burst do; the CPU time counted starts once every job has its event
   * id (the server starts writing then), so the joins are not counted. */
  g_signal_connect (client, "job-finished", G_CALLBACK (job_finished_cb), &run);
  while (jobs->len < set->ids->len)
    {
      guint target = MIN (set->ids->len, jobs->len + SUBMIT_CHUNK);

      while (jobs->len < target)
        {
          RivJob *job = riv_client_submit (client, "predict", data, &error);

          if (job == NULL)
            g_error ("bench-ingest: submit: %s", error->message);
          g_signal_connect (job, "notify::event-id", G_CALLBACK (job_event_id_cb), &run);
          g_ptr_array_add (jobs, job);
        }
      while (g_main_context_iteration (NULL, FALSE))
        ;
    }

  if (!bench_wait_until (all_finished, &run, 300) || run.n_joined < run.n_jobs)
    {
      g_printerr ("bench-ingest: real: only %u of %u jobs finished\n", run.n_finished, run.n_jobs);
      result.verified = FALSE;
    }
  else
    {
      double start;

      g_mutex_lock (&fake->lock);
      start = fake->start_us / (double) G_USEC_PER_SEC;
      g_mutex_unlock (&fake->lock);
      result.wall_rate = set->frames->len / (run.end - start);
      result.rate = set->frames->len / (run.end_cpu - run.joined_cpu);
    }

  /* The job → expected text mapping goes through the event id the server gave. */
  for (guint i = 0; i < jobs->len && result.verified; i++)
    {
      RivJob *job = g_ptr_array_index (jobs, i);
      guint j = GPOINTER_TO_UINT (g_hash_table_lookup (set->index, riv_job_get_event_id (job)));

      result.verified = j > 0 && check_text (set, j - 1, job, "real");
    }

  riv_client_close (client);
  return result;
}

/* Main ---------------------------------------------------------------------------------- */

/* Per-repetition rates of one measurement. */
typedef struct
{
  const char *name;
  double     *cpu;
  double     *wall;
} Series;

static void
series_print (GString      *out,
              const Series *series,
              guint         reps)
{
  g_autofree char *cpu_json = bench_json_array (series->cpu, reps);
  g_autofree char *wall_json = bench_json_array (series->wall, reps);

  g_string_append_printf (out, ",\"%s_fps\":%.0f,\"%s_wall_fps\":%.0f,\"%s_runs\":%s,"
                          "\"%s_wall_runs\":%s",
                          series->name, bench_median (series->cpu, reps),
                          series->name, bench_median (series->wall, reps),
                          series->name, cpu_json, series->name, wall_json);
}

static void
series_add (Series *series,
            guint   rep,
            Result  result)
{
  series->cpu[rep] = result.rate;
  series->wall[rep] = result.wall_rate;
}

static void
series_init (Series     *series,
             const char *name,
             guint       reps)
{
  series->name = name;
  series->cpu = g_new0 (double, reps);
  series->wall = g_new0 (double, reps);
}

static void
series_clear (Series *series)
{
  g_clear_pointer (&series->cpu, g_free);
  g_clear_pointer (&series->wall, g_free);
}

int
main (int   argc,
      char *argv[])
{
  g_autoptr(GOptionContext) context = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *sets_text = NULL;
  g_auto(GStrv) sets = NULL;
  int reps = 5;
  int jobs = 2000;
  int tokens = 50;
  gboolean no_real = FALSE;
  Fake *fake = NULL;
  const GOptionEntry entries[] = {
    { "reps", 0, 0, G_OPTION_ARG_INT, &reps, "Repetitions (median reported; default 5)", "N" },
    { "jobs", 0, 0, G_OPTION_ARG_INT, &jobs, "Jobs per set (default 2000)", "N" },
    { "tokens", 0, 0, G_OPTION_ARG_INT, &tokens, "Yields per streaming job (default 50)", "N" },
    { "sets", 0, 0, G_OPTION_ARG_STRING, &sets_text,
      "Comma-separated: mix,estimation,append,completed (default all)", "LIST" },
    { "no-real", 0, 0, G_OPTION_ARG_NONE, &no_real, "Skip the real-client run", NULL },
    { NULL }
  };

  context = g_option_context_new ("— client ingest benchmark (issue #7 item 1)");
  g_option_context_add_main_entries (context, entries, NULL);
  if (!g_option_context_parse (context, &argc, &argv, &error))
    {
      g_printerr ("bench-ingest: %s\n", error->message);
      return 2;
    }
  reps = CLAMP (reps, 1, 100);
  jobs = CLAMP (jobs, 1, 1000000);
  tokens = CLAMP (tokens, 2, 100000);
  sets = g_strsplit (sets_text ? sets_text : "mix,estimation,append,completed", ",", -1);

  if (!no_real)
    fake = fake_start ();

  for (guint s = 0; sets[s] != NULL; s++)
    {
      g_autoptr(FrameSet) set = NULL;
      g_autoptr(GString) out = g_string_new (NULL);
      Series parse, parse_solo, parse_imm, path, real, st_reader, st_json, st_message;
      gboolean with_real;
      gboolean verified = TRUE;

      if (strcmp (sets[s], "mix") == 0)
        set = build_mix (jobs, tokens - 1, 8);
      else if (strcmp (sets[s], "estimation") == 0)
        set = build_estimation (jobs, tokens);
      else if (strcmp (sets[s], "append") == 0)
        set = build_append (jobs, tokens);
      else if (strcmp (sets[s], "completed") == 0)
        set = build_completed (jobs * tokens / 4, 40);
      else
        {
          g_printerr ("bench-ingest: unknown set \"%s\"\n", sets[s]);
          return 2;
        }

      /* Only the mix ends every job; the real client needs that to know it is done. */
      with_real = fake != NULL && strcmp (sets[s], "mix") == 0;
      series_init (&parse, "parse", reps);
      series_init (&parse_solo, "parse_solo", reps);
      series_init (&parse_imm, "parse_immutable", reps);
      series_init (&path, "path", reps);
      series_init (&real, "real", reps);
      series_init (&st_reader, "stage_reader", reps);
      series_init (&st_json, "stage_json", reps);
      series_init (&st_message, "stage_message", reps);

      /* Side by side: every repetition runs each measurement once, in turn. */
      for (int r = 0; r < reps; r++)
        {
          Result result;

          series_add (&parse_solo, r, measure_parse (set, FALSE));
          series_add (&parse_imm, r, measure_parse (set, TRUE));
          series_add (&st_reader, r, measure_stage (set, STAGE_READER));
          series_add (&st_json, r, measure_stage (set, STAGE_JSON));
          series_add (&st_message, r, measure_stage (set, STAGE_MESSAGE));
          result = measure_path (set);
          series_add (&path, r, result);
          parse.cpu[r] = result.floor_rate;
          parse.wall[r] = result.floor_wall_rate;
          verified &= result.verified;
          if (with_real)
            {
              result = measure_real (fake, set);
              series_add (&real, r, result);
              verified &= result.verified;
            }
        }

      g_string_append_printf (out, "{\"bench\":\"ingest\",\"set\":\"%s\",\"frames\":%u,"
                              "\"bytes\":%" G_GSIZE_FORMAT ",\"jobs\":%u,\"reps\":%d,"
                              "\"verified\":%s,\"path_cost_ratio\":%.3f",
                              set->name, set->frames->len, set->blob->len, set->ids->len, reps,
                              verified ? "true" : "false",
                              bench_median (parse.cpu, reps) / bench_median (path.cpu, reps));
      {
        g_autofree double *ratios = g_new (double, reps);
        g_autofree char *ratios_json = NULL;

        for (int r = 0; r < reps; r++)
          ratios[r] = parse.cpu[r] / path.cpu[r];
        ratios_json = bench_json_array (ratios, reps);
        g_string_append_printf (out, ",\"path_cost_ratio_runs\":%s", ratios_json);
      }
      if (with_real)
        g_string_append_printf (out, ",\"real_cost_ratio\":%.3f",
                                bench_median (parse.cpu, reps) / bench_median (real.cpu, reps));
      series_print (out, &parse, reps);
      series_print (out, &parse_imm, reps);
      series_print (out, &parse_solo, reps);
      series_print (out, &path, reps);
      series_print (out, &st_reader, reps);
      series_print (out, &st_json, reps);
      series_print (out, &st_message, reps);
      if (with_real)
        series_print (out, &real, reps);
      g_print ("%s}\n", out->str);

      series_clear (&parse);
      series_clear (&parse_imm);
      series_clear (&path);
      series_clear (&parse_solo);
      series_clear (&real);
      series_clear (&st_reader);
      series_clear (&st_json);
      series_clear (&st_message);
    }

  if (fake != NULL)
    fake_stop (fake);
  return 0;
}
