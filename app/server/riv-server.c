/* riv-server.c
 * Copyright 2026 The Rivulet authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * HTTP side of the embedded server: routes, sessions and their SSE streams,
 * the file registry behind /file=, uploads, limits and CORS.
 *
 * Sessions (protocol.md §3.6, §9). A session is created by its first join
 * and keeps one FIFO of frames across connections, plus the set of its event
 * ids whose process_completed has not been written yet. At most one stream
 * writes a session's frames. A second GET for the same session takes over:
 * the older stream gets close_stream after the frames already handed to it
 * and ends, and every frame still in the FIFO goes to the newer one. A frame
 * is handed to exactly one stream, in FIFO order, never split or duplicated.
 *
 * Frames move from the FIFO into the response body through a small window
 * (STREAM_WINDOW bytes not yet written to the socket), so a slow reader
 * leaves its backlog in the FIFO, where it is counted against
 * "session-buffer-max": above it, the session's generators pause until the
 * reader catches up. A stream whose client goes away detaches; the FIFO keeps
 * buffering until the next GET for that session.
 *
 * close_stream (§8e): when a stream has written everything, and its session
 * has nothing pending, a "close-linger" timer starts; a join for the session
 * drops it. When it runs out with the same conditions, close_stream is
 * written and the response ends. Every response on /queue/data ends with
 * close_stream, including unknown sessions and shutdown.
 *
 * Threads: every function here runs on the server's GMainContext. File reads,
 * writes and deletes go to a small I/O pool, demo runs to the queue's pool;
 * both report back through the inbox.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#ifdef __GLIBC__
# include <malloc.h>
#endif
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include <glib/gstdio.h>
#include <libsoup/soup.h>

#include "riv-demo.h"
#include "riv-inbox.h"
#include "riv-queue.h"
#include "riv-server.h"
#include "riv-util.h"
#include "riv-wire.h"

#define API_PREFIX          "/gradio_api"
#define STREAM_WINDOW       (64 * 1024)
#define JSON_MAX_DEPTH      32
#define SESSION_HASH_MAX    256
#define EVICT_SCAN_MAX      64
#define FILE_READ_MAX       (256 * 1024 * 1024)
#define SHUTDOWN_FLUSH_S    2.0
#define LISTEN_BACKLOG      4096

typedef struct _Session Session;
typedef struct _Stream  Stream;

struct _Session
{
  gint        ref_count;
  RivServer  *server;        /* borrowed */
  char       *hash;
  GQueue      fifo;          /* RivFrame, owned */
  gsize       fifo_bytes;
  GHashTable *pending;       /* event id set (owned keys) */
  Stream     *stream;        /* borrowed, nullable: the attached writer */
  GSource    *linger;        /* owned, nullable */
  GList       lru_link;
  gint64      last_seen;
  gboolean    congested;
  gboolean    in_table;
};

struct _Stream
{
  RivServer         *server;       /* borrowed */
  SoupServerMessage *msg;          /* owned */
  Session           *session;      /* owned, nullable */
  gsize              inflight;
  GSource           *heartbeat;    /* owned, nullable */
  gboolean           ended;
  gboolean           keepalive_only;
  GList              link;         /* in server->streams */
};

typedef enum
{
  IO_DELETE,
  IO_READ,
  IO_UPLOAD,
} IoKind;

typedef struct
{
  char   *filename;
  GBytes *data;
} UploadPart;

typedef struct
{
  IoKind             kind;
  RivServer         *server;       /* borrowed; the pool is joined before it goes */
  SoupServerMessage *msg;          /* owned, nullable */
  gulong             finished_id;
  gboolean           msg_finished;
  char              *path;
  char              *upload_dir;
  GBytes            *bytes;
  guint              status;
  char              *error;
  GPtrArray         *parts;        /* UploadPart */
  GPtrArray         *paths;        /* char * */
} IoTask;

typedef struct
{
  gsize    limit;
  gsize    received;
  gboolean rejected;
} BodyLimit;

struct _RivServer
{
  GObject       parent_instance;

  GMainContext *context;
  SoupServer   *soup;
  RivInbox     *inbox;
  RivQueue     *queue;
  GThreadPool  *io_pool;

  /* Settings */
  guint         concurrency;
  guint         max_queue;
  double        heartbeat_interval;
  double        close_linger;
  guint         max_body;
  guint         max_upload;
  guint         max_sessions;
  guint         session_buffer_max;
  double        session_timeout;
  guint         max_files;
  guint64       max_file_bytes;
  gboolean      verbose;

  /* After listen */
  char         *host;
  guint         port;
  char         *url;
  char         *temp_dir;
  char         *output_dir;
  char         *upload_dir;
  guint         app_id;
  GBytes       *config_json;
  GBytes       *info_json;
  GSource      *sweep_source;

  GHashTable   *sessions;     /* hash → Session (table reference) */
  GQueue        session_lru;  /* Session, least recently used first */
  GQueue        streams;      /* Stream, through their link */

  GHashTable   *files;        /* path → GList link in file_order */
  GQueue        file_order;   /* FileEntry (owned), oldest first */
  guint64       file_bytes;

  guint         n_pending;
  guint64       n_completed;
  GSource      *trim_source;  /* nullable: returns freed heap to the system once idle */
  GHashTable   *sockets;      /* GSocket (ref) → EOF sightings, every client connection */
  GSource      *conn_sweep;
  gboolean      listening;
  gboolean      shut_down;
};

enum {
  PROP_0,
  PROP_CONCURRENCY,
  PROP_MAX_QUEUE,
  PROP_HEARTBEAT_INTERVAL,
  PROP_CLOSE_LINGER,
  PROP_MAX_BODY,
  PROP_MAX_UPLOAD,
  PROP_MAX_SESSIONS,
  PROP_SESSION_BUFFER_MAX,
  PROP_SESSION_TIMEOUT,
  PROP_MAX_FILES,
  PROP_MAX_FILE_BYTES,
  PROP_VERBOSE,
  N_PROPS
};

enum {
  BATCH_DONE,
  N_SIGNALS
};

G_DEFINE_FINAL_TYPE (RivServer, riv_server, G_TYPE_OBJECT)
G_DEFINE_QUARK (riv-server-error-quark, riv_server_error)

static GParamSpec *properties[N_PROPS];
static guint signals[N_SIGNALS];

static void session_pump          (Session *session,
                                   gboolean everything);
static void session_update_linger (Session *session);
static void stream_end            (Stream  *stream);

/* Small helpers */

static GSource *
add_timeout (RivServer   *self,
             double       seconds,
             GSourceFunc  func,
             gpointer     data,
             const char  *name)
{
  GSource *source = g_timeout_source_new ((guint) MAX (0.0, seconds * 1000.0));

  g_source_set_callback (source, func, data, NULL);
  g_source_set_name (source, name);
  g_source_attach (source, self->context);
  return source;
}

static gboolean
trim_timeout_cb (gpointer user_data)
{
  RivServer *self = user_data;

  g_clear_pointer (&self->trim_source, g_source_unref);
#ifdef __GLIBC__
  /* After a burst the allocator keeps the freed heap; an idle server should
   * go back to its size before the burst. */
  if (self->n_pending == 0)
    malloc_trim (0);
#endif
  return G_SOURCE_REMOVE;
}

/* Once nothing is pending for a second, hand freed memory back. */
static void
server_schedule_trim (RivServer *self)
{
  if (self->trim_source != NULL || self->shut_down)
    return;

  self->trim_source = g_timeout_source_new_seconds (1);
  g_source_set_callback (self->trim_source, trim_timeout_cb, self, NULL);
  g_source_set_name (self->trim_source, "[rivulet] trim");
  g_source_attach (self->trim_source, self->context);
}

static void
clear_source (GSource **source)
{
  if (*source != NULL)
    {
      g_source_destroy (*source);
      g_clear_pointer (source, g_source_unref);
    }
}

static void
reply_take (SoupServerMessage *msg,
            guint              status,
            const char        *content_type,
            char              *body,
            gsize              len)
{
  soup_server_message_set_status (msg, status, NULL);
  soup_server_message_set_response (msg, content_type, SOUP_MEMORY_TAKE, body, len);
}

static void
reply_text_json (SoupServerMessage *msg,
                 char              *json)
{
  reply_take (msg, SOUP_STATUS_OK, "application/json", json, strlen (json));
}

static void
reply_node (SoupServerMessage *msg,
            guint              status,
            JsonNode          *node)
{
  gsize len;
  char *json = riv_json_to_string (node, &len);

  reply_take (msg, status, "application/json", json, len);
}

static void
reply_bytes (SoupServerMessage *msg,
             guint              status,
             GBytes            *json)
{
  soup_server_message_set_status (msg, status, NULL);
  soup_server_message_set_response (msg, "application/json", SOUP_MEMORY_COPY,
                                    g_bytes_get_data (json, NULL), g_bytes_get_size (json));
}

static void
reply_detail (SoupServerMessage *msg,
              guint              status,
              const char        *detail)
{
  GString *out = g_string_new ("{\"detail\":");

  riv_wire_append_string (out, detail, -1);
  g_string_append_c (out, '}');
  {
    gsize len = out->len;
    reply_take (msg, status, "application/json", g_string_free (out, FALSE), len);
  }
}

static void
reply_detail_list (SoupServerMessage *msg,
                   guint              status,
                   JsonNode          *list)
{
  g_autoptr(JsonBuilder) b = json_builder_new_immutable ();
  g_autoptr(JsonNode) root = NULL;

  json_builder_begin_object (b);
  json_builder_set_member_name (b, "detail");
  json_builder_add_value (b, json_node_ref (list));
  json_builder_end_object (b);
  root = json_builder_get_root (b);
  reply_node (msg, status, root);
}

static void
reply_problem (SoupServerMessage *msg,
               guint              status,
               const char        *parameter,
               const char        *message)
{
  g_autoptr(JsonNode) list = json_node_new (JSON_NODE_ARRAY);
  JsonArray *array = json_array_new ();
  JsonObject *problem = json_object_new ();

  json_object_set_boolean_member (problem, "is_valid", FALSE);
  json_object_set_string_member (problem, "message", message);
  if (parameter != NULL)
    json_object_set_string_member (problem, "parameter_name", parameter);
  else
    json_object_set_null_member (problem, "parameter_name");
  json_array_add_object_element (array, problem);
  json_node_take_array (list, array);
  reply_detail_list (msg, status, list);
}

static void
add_cors_headers (SoupServerMessage *msg)
{
  SoupMessageHeaders *request = soup_server_message_get_request_headers (msg);
  SoupMessageHeaders *response = soup_server_message_get_response_headers (msg);
  const char *origin = soup_message_headers_get_one (request, "Origin");

  if (origin == NULL)
    return;
  soup_message_headers_replace (response, "Access-Control-Allow-Origin", origin);
  soup_message_headers_replace (response, "Access-Control-Allow-Credentials", "true");
  soup_message_headers_append (response, "Vary", "Origin");
}

static GBytes *
request_body (SoupServerMessage *msg)
{
  SoupMessageBody *body = soup_server_message_get_request_body (msg);

  return soup_message_body_flatten (body);
}

/* Parses a request body as a JSON object. On failure, replies and returns NULL. */
static JsonObject *
parse_object_body (SoupServerMessage  *msg,
                   JsonNode          **root_out)
{
  g_autoptr(GBytes) body = request_body (msg);
  g_autoptr(GError) error = NULL;
  JsonNode *root;

  root = riv_json_parse (NULL, g_bytes_get_data (body, NULL), g_bytes_get_size (body),
                         JSON_MAX_DEPTH, &error);
  if (root == NULL)
    {
      g_autofree char *detail = g_strdup_printf ("Invalid JSON body: %s", error->message);
      reply_detail (msg, SOUP_STATUS_BAD_REQUEST, detail);
      return NULL;
    }
  if (!JSON_NODE_HOLDS_OBJECT (root))
    {
      json_node_unref (root);
      reply_detail (msg, SOUP_STATUS_BAD_REQUEST, "The request body must be a JSON object.");
      return NULL;
    }
  *root_out = root;
  return json_node_get_object (root);
}

/* Files */

static void
io_task_free (IoTask *task)
{
  if (task->msg != NULL)
    {
      if (task->finished_id != 0)
        g_signal_handler_disconnect (task->msg, task->finished_id);
      g_object_unref (task->msg);
    }
  g_free (task->path);
  g_free (task->upload_dir);
  g_clear_pointer (&task->bytes, g_bytes_unref);
  g_free (task->error);
  g_clear_pointer (&task->parts, g_ptr_array_unref);
  g_clear_pointer (&task->paths, g_ptr_array_unref);
  g_free (task);
}

static void
upload_part_free (gpointer data)
{
  UploadPart *part = data;

  g_free (part->filename);
  g_bytes_unref (part->data);
  g_free (part);
}

static void
io_msg_finished_cb (SoupServerMessage *msg,
                    gpointer           user_data)
{
  IoTask *task = user_data;

  task->msg_finished = TRUE;
}

static void
io_submit (RivServer         *self,
           IoTask            *task,
           SoupServerMessage *msg)
{
  task->server = self;
  if (msg != NULL)
    {
      task->msg = g_object_ref (msg);
      task->finished_id = g_signal_connect (msg, "finished", G_CALLBACK (io_msg_finished_cb), task);
      soup_server_message_pause (msg);
    }
  g_thread_pool_push (self->io_pool, task, NULL);
}

static void
files_delete_later (RivServer  *self,
                    const char *path)
{
  IoTask *task = g_new0 (IoTask, 1);

  task->kind = IO_DELETE;
  task->path = g_strdup (path);
  if (self->io_pool != NULL)
    io_submit (self, task, NULL);
  else
    io_task_free (task);
}

typedef struct
{
  char  *path;
  gsize  size;
} FileEntry;

static void
files_remove (RivServer  *self,
              const char *path,
              gboolean    delete)
{
  GList *link = g_hash_table_lookup (self->files, path);
  FileEntry *entry;

  if (link == NULL)
    return;
  entry = link->data;
  g_hash_table_remove (self->files, path);
  g_queue_unlink (&self->file_order, link);
  self->file_bytes -= entry->size;
  if (delete)
    files_delete_later (self, entry->path);
  g_free (entry->path);
  g_free (entry);
  g_list_free_1 (link);
}

/* Registers a path this server wrote (takes it). The oldest files go when
 * there are more than "max-files" or more than "max-file-bytes" in all. */
static void
files_register (RivServer *self,
                char      *path,
                gsize      size)
{
  FileEntry *entry;
  GList *link;

  if (g_hash_table_contains (self->files, path))
    {
      g_free (path);
      return;
    }

  entry = g_new (FileEntry, 1);
  entry->path = path;
  entry->size = size;
  link = g_list_alloc ();
  link->data = entry;
  g_queue_push_tail_link (&self->file_order, link);
  g_hash_table_insert (self->files, entry->path, link);
  self->file_bytes += size;

  while (self->file_order.length > 1 &&
         (self->file_order.length > MAX (self->max_files, 1) ||
          self->file_bytes > self->max_file_bytes))
    files_remove (self, ((FileEntry *) self->file_order.head->data)->path, TRUE);
}

static const char *
content_type_for (const char *path,
                  gboolean   *inline_ok)
{
  static const struct { const char *ext, *type; } types[] = {
    { ".png", "image/png" },
    { ".jpg", "image/jpeg" },
    { ".jpeg", "image/jpeg" },
    { ".webp", "image/webp" },
    { ".gif", "image/gif" },
    { ".wav", "audio/wav" },
    { ".mp3", "audio/mpeg" },
    { ".mp4", "video/mp4" },
  };

  for (guint i = 0; i < G_N_ELEMENTS (types); i++)
    if (g_str_has_suffix (path, types[i].ext))
      {
        *inline_ok = TRUE;
        return types[i].type;
      }
  *inline_ok = FALSE;
  return "application/octet-stream";
}

static char *
sanitize_filename (const char *name)
{
  g_autofree char *valid = NULL;
  const char *base;
  GString *out;

  if (name == NULL)
    name = "";
  base = strrchr (name, '/');
  base = base != NULL ? base + 1 : name;
  if (strrchr (base, '\\') != NULL)
    base = strrchr (base, '\\') + 1;
  while (*base == '.')
    base++;

  valid = g_utf8_make_valid (base, -1);
  out = g_string_new (NULL);
  for (const char *p = valid; *p != '\0' && out->len < 200; p = g_utf8_next_char (p))
    {
      gunichar c = g_utf8_get_char (p);

      if (c < 0x20 || c == 0x7f || c == '"' || c == '<' || c == '>' || c == '|' ||
          c == ':' || c == '*' || c == '?')
        g_string_append_c (out, '_');
      else
        g_string_append_unichar (out, c);
    }
  if (out->len == 0)
    g_string_append (out, "file");
  return g_string_free (out, FALSE);
}

/* I/O pool (worker threads) */

static void io_done_cb (gpointer data,
                        gboolean discard);

static void
io_read (IoTask *task)
{
  struct stat st;
  int fd;
  guint8 *buf;
  gsize done = 0;

  /* Never follow a link, even one planted where a registered file was. */
  fd = g_open (task->path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC, 0);
  if (fd < 0)
    {
      task->status = errno == ENOENT ? SOUP_STATUS_NOT_FOUND : SOUP_STATUS_FORBIDDEN;
      task->error = g_strdup_printf ("File not available: %s", task->path);
      return;
    }
  if (fstat (fd, &st) != 0 || !S_ISREG (st.st_mode) || st.st_size > FILE_READ_MAX)
    {
      close (fd);
      task->status = SOUP_STATUS_FORBIDDEN;
      task->error = g_strdup_printf ("File not allowed: %s", task->path);
      return;
    }

  buf = g_malloc (MAX (st.st_size, 1));
  while (done < (gsize) st.st_size)
    {
      gssize n = read (fd, buf + done, st.st_size - done);

      if (n < 0 && errno == EINTR)
        continue;
      if (n <= 0)
        break;
      done += n;
    }
  close (fd);
  task->status = SOUP_STATUS_OK;
  task->bytes = g_bytes_new_take (buf, done);
}

static void
io_upload (IoTask *task)
{
  task->paths = g_ptr_array_new_with_free_func (g_free);

  for (guint i = 0; i < task->parts->len; i++)
    {
      UploadPart *part = g_ptr_array_index (task->parts, i);
      g_autoptr(GError) error = NULL;
      g_autofree char *digest = g_compute_checksum_for_bytes (G_CHECKSUM_SHA256, part->data);
      g_autofree char *dir = g_build_filename (task->upload_dir, digest, NULL);
      g_autofree char *path = g_build_filename (dir, part->filename, NULL);

      if (g_mkdir (dir, 0700) != 0 && errno != EEXIST)
        {
          task->status = SOUP_STATUS_INTERNAL_SERVER_ERROR;
          task->error = g_strdup_printf ("Could not store the upload: %s", g_strerror (errno));
          return;
        }
      if (!g_file_set_contents (path, g_bytes_get_data (part->data, NULL),
                                g_bytes_get_size (part->data), &error))
        {
          task->status = SOUP_STATUS_INTERNAL_SERVER_ERROR;
          task->error = g_strdup_printf ("Could not store the upload: %s",
                                         error != NULL ? error->message : "write failed");
          return;
        }
      g_ptr_array_add (task->paths, g_steal_pointer (&path));
    }
  task->status = SOUP_STATUS_OK;
}

static void
io_func (gpointer data,
         gpointer user_data)
{
  IoTask *task = data;

  switch (task->kind)
    {
    case IO_DELETE:
      g_unlink (task->path);
      break;
    case IO_READ:
      io_read (task);
      break;
    case IO_UPLOAD:
      io_upload (task);
      break;
    default:
      g_assert_not_reached ();
    }
  riv_inbox_post (task->server->inbox, io_done_cb, task);
}

static void
io_done_cb (gpointer data,
            gboolean discard)
{
  IoTask *task = data;
  RivServer *self = task->server;
  SoupServerMessage *msg = task->msg;

  if (discard || msg == NULL || task->msg_finished)
    goto out;

  if (task->kind == IO_READ)
    {
      if (task->bytes != NULL)
        {
          SoupMessageHeaders *headers = soup_server_message_get_response_headers (msg);
          gboolean inline_ok;
          const char *type = content_type_for (task->path, &inline_ok);

          soup_server_message_set_status (msg, SOUP_STATUS_OK, NULL);
          soup_message_headers_replace (headers, "Accept-Ranges", "bytes");
          soup_message_headers_replace (headers, "X-Content-Type-Options", "nosniff");
          if (!inline_ok)
            soup_message_headers_replace (headers, "Content-Disposition", "attachment");
          soup_server_message_set_response (msg, type, SOUP_MEMORY_COPY,
                                            g_bytes_get_data (task->bytes, NULL),
                                            g_bytes_get_size (task->bytes));
        }
      else
        reply_detail (msg, task->status, task->error);
    }
  else if (task->kind == IO_UPLOAD)
    {
      if (task->status == SOUP_STATUS_OK)
        {
          GString *out = g_string_new ("[");

          for (guint i = 0; i < task->paths->len; i++)
            {
              const char *path = g_ptr_array_index (task->paths, i);

              if (i > 0)
                g_string_append_c (out, ',');
              riv_wire_append_string (out, path, -1);
              UploadPart *part = g_ptr_array_index (task->parts, i);

              if (!self->shut_down)
                files_register (self, g_strdup (path), g_bytes_get_size (part->data));
            }
          g_string_append_c (out, ']');
          {
            gsize len = out->len;
            reply_take (msg, SOUP_STATUS_OK, "application/json", g_string_free (out, FALSE), len);
          }
        }
      else
        reply_detail (msg, task->status, task->error);
    }
  soup_server_message_unpause (msg);

out:
  io_task_free (task);
}

/* Sessions */

static Session *
session_ref (Session *session)
{
  session->ref_count++;
  return session;
}

static void
session_unref (Session *session)
{
  if (--session->ref_count > 0)
    return;

  g_assert (session->stream == NULL);
  g_queue_clear_full (&session->fifo, (GDestroyNotify) riv_frame_free);
  clear_source (&session->linger);
  g_hash_table_unref (session->pending);
  g_free (session->hash);
  g_free (session);
}

static Session *
session_lookup (RivServer  *self,
                const char *hash)
{
  return g_hash_table_lookup (self->sessions, hash);
}

static void
session_touch (Session *session)
{
  RivServer *self = session->server;

  session->last_seen = g_get_monotonic_time ();
  if (session->in_table)
    {
      g_queue_unlink (&self->session_lru, &session->lru_link);
      g_queue_push_tail_link (&self->session_lru, &session->lru_link);
    }
}

/* Removes a session from the server: its waiting and running events are
 * dropped without frames (nobody is there to read them) and its buffer is
 * freed. Only sessions without an attached stream are dropped. */
static void
session_drop (Session *session)
{
  RivServer *self = session->server;
  GHashTableIter iter;
  gpointer key;

  g_return_if_fail (session->stream == NULL);
  if (!session->in_table)
    return;

  session_ref (session);
  session->in_table = FALSE;
  g_queue_unlink (&self->session_lru, &session->lru_link);
  g_hash_table_remove (self->sessions, session->hash);

  riv_queue_drop_session (self->queue, session);

  g_hash_table_iter_init (&iter, session->pending);
  while (g_hash_table_iter_next (&iter, &key, NULL))
    self->n_pending--;
  g_hash_table_remove_all (session->pending);
  g_queue_clear_full (&session->fifo, (GDestroyNotify) riv_frame_free);
  session->fifo_bytes = 0;
  clear_source (&session->linger);
  session_unref (session);
}

static gboolean
session_is_idle (Session *session)
{
  return session->stream == NULL && g_hash_table_size (session->pending) == 0;
}

/* Evicts least recently used idle sessions until at most limit remain
 * (sessions with pending events or an attached stream are never evicted). */
static void
sessions_evict (RivServer *self,
                guint      limit)
{
  GList *l = self->session_lru.head;
  guint scanned = 0;

  while (l != NULL && g_hash_table_size (self->sessions) > limit && scanned++ < EVICT_SCAN_MAX)
    {
      Session *session = l->data;

      l = l->next;
      if (session_is_idle (session))
        session_drop (session);
    }
}

static Session *
session_get_or_create (RivServer  *self,
                       const char *hash)
{
  Session *session = session_lookup (self, hash);

  if (session != NULL)
    {
      session_touch (session);
      return session;
    }

  if (self->max_sessions > 0 && g_hash_table_size (self->sessions) >= self->max_sessions)
    sessions_evict (self, self->max_sessions - 1);

  session = g_new0 (Session, 1);
  session->ref_count = 1;
  session->server = self;
  session->hash = g_strdup (hash);
  g_queue_init (&session->fifo);
  session->pending = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  session->lru_link.data = session;
  session->in_table = TRUE;
  session->last_seen = g_get_monotonic_time ();
  g_hash_table_insert (self->sessions, session->hash, session);
  g_queue_push_tail_link (&self->session_lru, &session->lru_link);
  return session;
}

static gboolean
session_linger_cb (gpointer user_data)
{
  Session *session = user_data;

  g_clear_pointer (&session->linger, g_source_unref);
  if (session->stream != NULL && !session->stream->ended &&
      session->fifo.length == 0 && g_hash_table_size (session->pending) == 0)
    stream_end (session->stream);
  return G_SOURCE_REMOVE;
}

static void
session_update_linger (Session *session)
{
  RivServer *self = session->server;
  gboolean idle = session->stream != NULL && !session->stream->ended &&
                  session->fifo.length == 0 && g_hash_table_size (session->pending) == 0;

  if (idle && session->linger == NULL && !self->shut_down)
    session->linger = add_timeout (self, self->close_linger, session_linger_cb, session,
                                   "[rivulet] close-stream linger");
  else if (!idle)
    clear_source (&session->linger);
}

static void
session_push (Session  *session,
              RivFrame *frame)
{
  session->fifo_bytes += riv_frame_get_size (frame);
  g_queue_push_tail (&session->fifo, frame);
  session_pump (session, FALSE);
}

static void
append_chunk (SoupMessageBody  *body,
              GString         **batch)
{
  gsize len;

  if (*batch == NULL || (*batch)->len == 0)
    return;
  len = (*batch)->len;
  soup_message_body_append (body, SOUP_MEMORY_TAKE,
                            g_string_free (g_steal_pointer (batch), FALSE), len);
}

/* Moves frames from the FIFO to the attached stream, as few chunks as
 * possible: small frames are joined into one chunk. */
static void
session_pump (Session  *session,
              gboolean  everything)
{
  RivServer *self = session->server;
  Stream *stream = session->stream;
  gboolean appended = FALSE;

  if (stream != NULL && !stream->ended)
    {
      SoupMessageBody *body = soup_server_message_get_response_body (stream->msg);
      GString *batch = NULL;

      while (session->fifo.length > 0 && (everything || stream->inflight < STREAM_WINDOW))
        {
          RivFrame *frame = g_queue_pop_head (&session->fifo);

          session->fifo_bytes -= riv_frame_get_size (frame);
          riv_frame_render (frame);
          stream->inflight += frame->len;
          appended = TRUE;

          if (frame->len >= STREAM_WINDOW / 4)
            {
              append_chunk (body, &batch);
              soup_message_body_append (body, SOUP_MEMORY_TAKE,
                                        g_steal_pointer (&frame->data), frame->len);
            }
          else
            {
              if (batch == NULL)
                batch = g_string_new (NULL);
              g_string_append_len (batch, frame->data, frame->len);
            }

          if (frame->completes != NULL &&
              g_hash_table_remove (session->pending, frame->completes))
            {
              self->n_pending--;
              self->n_completed++;
            }
          riv_frame_free (frame);
        }
      append_chunk (body, &batch);

      if (appended)
        soup_server_message_unpause (stream->msg);
    }

  if (self->n_pending == 0)
    server_schedule_trim (self);

  if (session->congested && session->fifo_bytes <= self->session_buffer_max / 2)
    {
      session->congested = FALSE;
      riv_queue_session_drained (self->queue, session);
    }

  session_update_linger (session);
}

/* Streams */

static void
stream_disconnect_signals (Stream *stream)
{
  g_signal_handlers_disconnect_by_data (stream->msg, stream);
}

static void
stream_free (Stream *stream)
{
  RivServer *self = stream->server;

  g_queue_unlink (&self->streams, &stream->link);
  clear_source (&stream->heartbeat);
  stream_disconnect_signals (stream);
  g_clear_object (&stream->msg);
  g_assert (stream->session == NULL);
  g_free (stream);
}

static void
stream_detach (Stream *stream)
{
  Session *session = stream->session;

  if (session == NULL)
    return;
  stream->session = NULL;
  if (session->stream == stream)
    {
      session->stream = NULL;
      session->last_seen = g_get_monotonic_time ();
      session_update_linger (session);
    }
  session_unref (session);
}

/* Writes close_stream after whatever this stream already has, and ends it. */
static void
stream_end (Stream *stream)
{
  SoupMessageBody *body;
  gsize len;
  char *frame;

  if (stream->ended)
    return;

  /* At shutdown the stream first writes everything its session has; when a
   * newer stream takes over, the FIFO is left for that one. */
  if (stream->server->shut_down && stream->session != NULL && stream->session->stream == stream)
    session_pump (stream->session, TRUE);

  stream->ended = TRUE;
  clear_source (&stream->heartbeat);
  body = soup_server_message_get_response_body (stream->msg);
  frame = riv_wire_close_stream (&len);
  soup_message_body_append (body, SOUP_MEMORY_TAKE, frame, len);
  soup_message_body_complete (body);
  soup_server_message_unpause (stream->msg);
  stream_detach (stream);
}

static void
stream_finished_cb (SoupServerMessage *msg,
                    gpointer           user_data)
{
  Stream *stream = user_data;

  /* The client went away (or the response is done): the session keeps
   * its FIFO for the next GET. */
  stream->ended = TRUE;
  stream_detach (stream);
  stream_free (stream);
}

static void
stream_wrote_cb (SoupServerMessage *msg,
                 guint              size,
                 gpointer           user_data)
{
  Stream *stream = user_data;

  stream->inflight -= MIN (stream->inflight, size);
  if (stream->session != NULL && !stream->ended && stream->inflight < STREAM_WINDOW / 2)
    session_pump (stream->session, FALSE);
}

static gboolean
stream_heartbeat_cb (gpointer user_data)
{
  Stream *stream = user_data;
  gsize len;
  char *frame = riv_wire_heartbeat (&len);

  if (stream->session != NULL)
    session_push (stream->session, riv_frame_new_take (frame, len));
  else
    {
      soup_message_body_append (soup_server_message_get_response_body (stream->msg),
                                SOUP_MEMORY_TAKE, frame, len);
      soup_server_message_unpause (stream->msg);
    }
  return G_SOURCE_CONTINUE;
}

static void
start_event_stream (SoupServerMessage *msg)
{
  SoupMessageHeaders *headers = soup_server_message_get_response_headers (msg);

  soup_server_message_set_status (msg, SOUP_STATUS_OK, NULL);
  soup_message_headers_set_content_type (headers, "text/event-stream", NULL);
  soup_message_headers_replace (headers, "Cache-Control", "no-cache");
  soup_message_headers_replace (headers, "X-Accel-Buffering", "no");
  soup_message_headers_set_encoding (headers, SOUP_ENCODING_CHUNKED);
  soup_message_body_set_accumulate (soup_server_message_get_response_body (msg), FALSE);
}

static Stream *
stream_new (RivServer         *self,
            SoupServerMessage *msg)
{
  Stream *stream = g_new0 (Stream, 1);

  stream->server = self;
  stream->msg = g_object_ref (msg);
  stream->link.data = stream;
  g_queue_push_tail_link (&self->streams, &stream->link);
  g_signal_connect (msg, "finished", G_CALLBACK (stream_finished_cb), stream);
  g_signal_connect (msg, "wrote-body-data", G_CALLBACK (stream_wrote_cb), stream);
  if (self->heartbeat_interval > 0)
    stream->heartbeat = add_timeout (self, self->heartbeat_interval, stream_heartbeat_cb, stream,
                                     "[rivulet] heartbeat");
  return stream;
}

/* Queue callbacks */

static void
queue_emit_cb (gpointer  session_ptr,
               RivFrame *frame,
               gpointer  user_data)
{
  Session *session = session_ptr;

  if (!session->in_table)
    {
      riv_frame_free (frame);
      return;
    }
  session_push (session, frame);
}

static gboolean
queue_congested_cb (gpointer session_ptr,
                    gpointer user_data)
{
  Session *session = session_ptr;
  RivServer *self = user_data;

  if (session->fifo_bytes > self->session_buffer_max)
    session->congested = TRUE;
  return session->congested;
}

static gpointer
queue_session_ref_cb (gpointer session)
{
  return session_ref (session);
}

static void
queue_session_unref_cb (gpointer session)
{
  session_unref (session);
}

static void
queue_file_created_cb (char     *path,
                       gsize     size,
                       gpointer  user_data)
{
  RivServer *self = user_data;

  if (self->shut_down)
    {
      g_free (path);
      return;
    }
  files_register (self, path, size);
}

static void
queue_file_expired_cb (const char *path,
                       gpointer    user_data)
{
  files_remove (user_data, path, TRUE);
}

static void
queue_batch_done_cb (const char *api_name,
                     guint       size,
                     guint64     total_items,
                     gpointer    user_data)
{
  g_signal_emit (user_data, signals[BATCH_DONE], 0, api_name, size, total_items);
}

static const RivQueueCallbacks queue_callbacks = {
  queue_emit_cb,
  queue_congested_cb,
  queue_session_ref_cb,
  queue_session_unref_cb,
  queue_file_created_cb,
  queue_file_expired_cb,
  queue_batch_done_cb,
};

/* Routes */

static void
handle_join (RivServer         *self,
             SoupServerMessage *msg)
{
  g_autoptr(JsonNode) root = NULL;
  g_autoptr(JsonNode) detail = NULL;
  g_autoptr(RivDemoParams) params = NULL;
  JsonObject *body;
  JsonNode *fn_node;
  const char *hash;
  const RivDemo *demo;
  gint64 fn_index;
  Session *session;
  char event_id[RIV_EVENT_ID_LEN + 1];
  guint max_size = 0, size = 0;
  RivQueueStatus status;
  GString *out;

  if (!(body = parse_object_body (msg, &root)))
    return;

  fn_node = json_object_get_member (body, "fn_index");
  if (fn_node == NULL || JSON_NODE_HOLDS_NULL (fn_node))
    {
      reply_detail (msg, SOUP_STATUS_BAD_REQUEST, "No function index provided.");
      return;
    }
  if (!JSON_NODE_HOLDS_VALUE (fn_node) || json_node_get_value_type (fn_node) != G_TYPE_INT64)
    {
      reply_problem (msg, SOUP_STATUS_UNPROCESSABLE_ENTITY, "fn_index",
                     "fn_index must be an integer");
      return;
    }
  fn_index = json_node_get_int (fn_node);
  if (fn_index < 0 || (demo = riv_demo_get ((guint) MIN (fn_index, G_MAXUINT))) == NULL)
    {
      g_autofree char *text = g_strdup_printf ("Function index %" G_GINT64_FORMAT " not found.",
                                               fn_index);
      reply_detail (msg, SOUP_STATUS_NOT_FOUND, text);
      return;
    }

  hash = riv_json_get_string (body, "session_hash");
  if (hash == NULL || hash[0] == '\0')
    {
      reply_detail (msg, SOUP_STATUS_BAD_REQUEST, "Session hash not found.");
      return;
    }
  if (strlen (hash) > SESSION_HASH_MAX)
    {
      reply_detail (msg, SOUP_STATUS_BAD_REQUEST, "Session hash too long.");
      return;
    }

  params = riv_demo_parse_params (demo, json_object_get_member (body, "data"), &detail);
  if (params == NULL)
    {
      reply_detail_list (msg, SOUP_STATUS_UNPROCESSABLE_ENTITY, detail);
      return;
    }

  if (self->shut_down)
    {
      reply_detail (msg, SOUP_STATUS_SERVICE_UNAVAILABLE, "Queue is stopped.");
      return;
    }

  do
    riv_wire_new_event_id (event_id);
  while (riv_queue_has_event (self->queue, event_id));

  session = session_get_or_create (self, hash);
  session_touch (session);

  /* Pending before the reply (and before any frame for it can be written). */
  g_hash_table_add (session->pending, g_strdup (event_id));
  self->n_pending++;
  clear_source (&session->linger);

  status = riv_queue_push (self->queue, (guint) fn_index, event_id, params, session,
                           &max_size, &size);
  if (status != RIV_QUEUE_OK)
    {
      g_hash_table_remove (session->pending, event_id);
      self->n_pending--;
      session_update_linger (session);
      if (status == RIV_QUEUE_FULL)
        {
          g_autofree char *text = g_strdup_printf ("Queue is full. Max size is %u and size is %u.",
                                                   max_size, size);
          reply_detail (msg, SOUP_STATUS_SERVICE_UNAVAILABLE, text);
        }
      else
        reply_detail (msg, SOUP_STATUS_SERVICE_UNAVAILABLE, "Queue is stopped.");
      return;
    }
  params = NULL;  /* taken by the queue */

  out = g_string_new ("{\"event_id\":\"");
  g_string_append (out, event_id);
  g_string_append (out, "\"}");
  {
    gsize len = out->len;
    reply_take (msg, SOUP_STATUS_OK, "application/json", g_string_free (out, FALSE), len);
  }
}

static void
handle_queue_data (RivServer         *self,
                   SoupServerMessage *msg,
                   GHashTable        *query)
{
  const char *hash = query != NULL ? g_hash_table_lookup (query, "session_hash") : NULL;
  Session *session = hash != NULL ? session_lookup (self, hash) : NULL;
  Stream *stream;

  start_event_stream (msg);

  if (session == NULL || self->shut_down)
    {
      SoupMessageBody *body = soup_server_message_get_response_body (msg);
      gsize len;
      char *frame;

      frame = riv_wire_unexpected_error (self->shut_down ? "Server stopped." :
                                         hash == NULL ? "Session hash not found." :
                                         "Session not found.",
                                         !self->shut_down, &len);
      soup_message_body_append (body, SOUP_MEMORY_TAKE, frame, len);
      frame = riv_wire_close_stream (&len);
      soup_message_body_append (body, SOUP_MEMORY_TAKE, frame, len);
      soup_message_body_complete (body);
      return;
    }

  /* The newest reader takes over; the older one is closed cleanly. */
  if (session->stream != NULL)
    stream_end (session->stream);

  stream = stream_new (self, msg);
  stream->session = session_ref (session);
  session->stream = stream;
  session_touch (session);
  session_pump (session, FALSE);
}

static void
handle_keepalive (RivServer         *self,
                  SoupServerMessage *msg)
{
  Stream *stream;
  gsize len;
  char *frame;

  start_event_stream (msg);
  if (self->shut_down)
    {
      SoupMessageBody *body = soup_server_message_get_response_body (msg);

      frame = riv_wire_close_stream (&len);
      soup_message_body_append (body, SOUP_MEMORY_TAKE, frame, len);
      soup_message_body_complete (body);
      return;
    }

  stream = stream_new (self, msg);
  stream->keepalive_only = TRUE;
  frame = riv_wire_heartbeat (&len);
  soup_message_body_append (soup_server_message_get_response_body (msg),
                            SOUP_MEMORY_TAKE, frame, len);
}

static void
handle_cancel (RivServer         *self,
               SoupServerMessage *msg)
{
  g_autoptr(JsonNode) root = NULL;
  JsonObject *body;
  const char *event_id, *hash;
  gint64 fn_index;
  Session *session;

  if (!(body = parse_object_body (msg, &root)))
    return;

  event_id = riv_json_get_string (body, "event_id");
  hash = riv_json_get_string (body, "session_hash");
  if (event_id == NULL)
    {
      reply_problem (msg, SOUP_STATUS_UNPROCESSABLE_ENTITY, "event_id", "Field required: event_id");
      return;
    }
  if (hash == NULL)
    {
      reply_problem (msg, SOUP_STATUS_UNPROCESSABLE_ENTITY, "session_hash",
                     "Field required: session_hash");
      return;
    }
  if (!riv_json_get_int (body, "fn_index", &fn_index))
    {
      reply_problem (msg, SOUP_STATUS_UNPROCESSABLE_ENTITY, "fn_index", "Field required: fn_index");
      return;
    }

  session = session_lookup (self, hash);
  if (session != NULL)
    riv_queue_cancel (self->queue, event_id, session);

  reply_text_json (msg, g_strdup ("{\"success\":true}"));
}

static void
handle_upload (RivServer         *self,
               SoupServerMessage *msg)
{
  g_autoptr(GBytes) body = request_body (msg);
  g_autoptr(SoupMultipart) multipart = NULL;
  IoTask *task;

  multipart = soup_multipart_new_from_message (soup_server_message_get_request_headers (msg), body);
  if (multipart == NULL)
    {
      reply_detail (msg, SOUP_STATUS_BAD_REQUEST,
                    "Expected multipart/form-data with \"files\" parts.");
      return;
    }

  if (self->io_pool == NULL)
    {
      reply_detail (msg, SOUP_STATUS_SERVICE_UNAVAILABLE, "Server stopped.");
      return;
    }

  task = g_new0 (IoTask, 1);
  task->kind = IO_UPLOAD;
  task->upload_dir = g_strdup (self->upload_dir);
  task->parts = g_ptr_array_new_with_free_func (upload_part_free);

  for (int i = 0; i < soup_multipart_get_length (multipart); i++)
    {
      SoupMessageHeaders *part_headers;
      GBytes *part_body;
      g_autoptr(GHashTable) params = NULL;
      UploadPart *part;
      const char *name;

      if (!soup_multipart_get_part (multipart, i, &part_headers, &part_body))
        continue;
      /* libsoup 3.2.3 can hand back a part "longer" than the whole body (its
       * size wraps to (gsize) -2 for an empty part right before the closing
       * boundary); such a body is malformed, and its part must not be read. */
      if (g_bytes_get_size (part_body) > g_bytes_get_size (body))
        {
          io_task_free (task);
          reply_detail (msg, SOUP_STATUS_BAD_REQUEST, "Malformed multipart body.");
          return;
        }
      if (!soup_message_headers_get_content_disposition (part_headers, NULL, &params))
        continue;
      name = g_hash_table_lookup (params, "name");
      if (g_strcmp0 (name, "files") != 0)
        continue;

      part = g_new0 (UploadPart, 1);
      part->filename = sanitize_filename (g_hash_table_lookup (params, "filename"));
      part->data = g_bytes_ref (part_body);
      g_ptr_array_add (task->parts, part);
    }

  if (task->parts->len == 0)
    {
      io_task_free (task);
      reply_detail (msg, SOUP_STATUS_BAD_REQUEST, "No \"files\" parts in the upload.");
      return;
    }

  io_submit (self, task, msg);
}

static void
handle_file (RivServer         *self,
             SoupServerMessage *msg,
             const char        *raw_path)
{
  g_autofree char *path = g_uri_unescape_string (raw_path, NULL);
  IoTask *task;

  /* Only exact paths this server wrote are served: no prefix matching, so
   * "..", symlinks and absolute paths elsewhere never resolve to a file. */
  if (path == NULL || !g_hash_table_contains (self->files, path))
    {
      g_autofree char *detail = g_strdup_printf ("File not allowed: %s",
                                                 path != NULL ? path : raw_path);
      reply_detail (msg, SOUP_STATUS_FORBIDDEN, detail);
      return;
    }

  if (self->io_pool == NULL)
    {
      reply_detail (msg, SOUP_STATUS_SERVICE_UNAVAILABLE, "Server stopped.");
      return;
    }

  task = g_new0 (IoTask, 1);
  task->kind = IO_READ;
  task->path = g_steal_pointer (&path);
  io_submit (self, task, msg);
}

typedef enum
{
  ROUTE_NONE,
  ROUTE_CONFIG,
  ROUTE_INFO,
  ROUTE_APP_ID,
  ROUTE_JOIN,
  ROUTE_DATA,
  ROUTE_CANCEL,
  ROUTE_RESET,
  ROUTE_UPLOAD,
  ROUTE_FILE,
  ROUTE_HEARTBEAT,
} Route;

static Route
route_for (const char *path,
           gboolean   *wants_post)
{
  static const struct { const char *path; Route route; gboolean post; } exact[] = {
    { "/config", ROUTE_CONFIG, FALSE },
    { "/config/", ROUTE_CONFIG, FALSE },
    { API_PREFIX "/info", ROUTE_INFO, FALSE },
    { API_PREFIX "/info/", ROUTE_INFO, FALSE },
    { API_PREFIX "/app_id", ROUTE_APP_ID, FALSE },
    { API_PREFIX "/queue/join", ROUTE_JOIN, TRUE },
    { API_PREFIX "/queue/data", ROUTE_DATA, FALSE },
    { API_PREFIX "/cancel", ROUTE_CANCEL, TRUE },
    { API_PREFIX "/reset", ROUTE_RESET, TRUE },
    { API_PREFIX "/upload", ROUTE_UPLOAD, TRUE },
  };

  for (guint i = 0; i < G_N_ELEMENTS (exact); i++)
    if (g_str_equal (path, exact[i].path))
      {
        *wants_post = exact[i].post;
        return exact[i].route;
      }

  *wants_post = FALSE;
  if (g_str_has_prefix (path, API_PREFIX "/file="))
    return ROUTE_FILE;
  if (g_str_has_prefix (path, API_PREFIX "/heartbeat/"))
    return ROUTE_HEARTBEAT;
  return ROUTE_NONE;
}

static void
handle_request_cb (SoupServer        *server,
                   SoupServerMessage *msg,
                   const char        *path,
                   GHashTable        *query,
                   gpointer           user_data)
{
  RivServer *self = user_data;
  const char *method = soup_server_message_get_method (msg);
  gboolean wants_post;
  Route route;

  add_cors_headers (msg);

  if (method == SOUP_METHOD_OPTIONS)
    {
      SoupMessageHeaders *response = soup_server_message_get_response_headers (msg);

      soup_message_headers_replace (response, "Access-Control-Allow-Methods",
                                    "GET, POST, HEAD, OPTIONS");
      soup_message_headers_replace (response, "Access-Control-Allow-Headers",
                                    "content-type, x-gradio-user, authorization");
      soup_message_headers_replace (response, "Access-Control-Max-Age", "600");
      reply_take (msg, SOUP_STATUS_OK, "text/plain", g_strdup ("OK"), 2);
      return;
    }

  route = route_for (path, &wants_post);
  if (route == ROUTE_NONE)
    {
      reply_detail (msg, SOUP_STATUS_NOT_FOUND, "Not Found");
      return;
    }
  if (wants_post ? method != SOUP_METHOD_POST
                 : (method != SOUP_METHOD_GET && method != SOUP_METHOD_HEAD))
    {
      reply_detail (msg, SOUP_STATUS_METHOD_NOT_ALLOWED, "Method Not Allowed");
      return;
    }

  switch (route)
    {
    case ROUTE_CONFIG:
      reply_bytes (msg, SOUP_STATUS_OK, self->config_json);
      break;
    case ROUTE_INFO:
      reply_bytes (msg, SOUP_STATUS_OK, self->info_json);
      break;
    case ROUTE_APP_ID:
      reply_text_json (msg, g_strdup_printf ("{\"app_id\":%u}", self->app_id));
      break;
    case ROUTE_JOIN:
      handle_join (self, msg);
      break;
    case ROUTE_DATA:
      handle_queue_data (self, msg, query);
      break;
    case ROUTE_CANCEL:
      handle_cancel (self, msg);
      break;
    case ROUTE_RESET:
      reply_text_json (msg, g_strdup ("{\"success\":true}"));
      break;
    case ROUTE_UPLOAD:
      handle_upload (self, msg);
      break;
    case ROUTE_FILE:
      handle_file (self, msg, path + strlen (API_PREFIX "/file="));
      break;
    case ROUTE_HEARTBEAT:
      handle_keepalive (self, msg);
      break;
    case ROUTE_NONE:
    default:
      g_assert_not_reached ();
    }
}

/* Request body limits: checked as the body arrives, so an oversized request
 * is answered 413 without being kept in memory. */

static void
reject_body (SoupServerMessage *msg,
             BodyLimit         *limit)
{
  SoupMessageBody *body = soup_server_message_get_request_body (msg);
  g_autofree char *detail = g_strdup_printf ("Request body too large (limit %" G_GSIZE_FORMAT
                                             " bytes).", limit->limit);

  limit->rejected = TRUE;
  soup_message_body_set_accumulate (body, FALSE);
  soup_message_body_truncate (body);
  add_cors_headers (msg);
  soup_message_headers_replace (soup_server_message_get_response_headers (msg),
                                "Connection", "close");
  reply_detail (msg, SOUP_STATUS_REQUEST_ENTITY_TOO_LARGE, detail);
}

static void
got_headers_cb (SoupServerMessage *msg,
                gpointer           user_data)
{
  RivServer *self = user_data;
  SoupMessageHeaders *headers = soup_server_message_get_request_headers (msg);
  const char *path = g_uri_get_path (soup_server_message_get_uri (msg));
  BodyLimit *limit = g_new0 (BodyLimit, 1);

  limit->limit = g_strcmp0 (path, API_PREFIX "/upload") == 0 ? self->max_upload : self->max_body;
  g_object_set_data_full (G_OBJECT (msg), "riv-body-limit", limit, g_free);

  if (soup_server_message_get_status (msg) != 0)
    return;
  if (soup_message_headers_get_encoding (headers) == SOUP_ENCODING_CONTENT_LENGTH &&
      soup_message_headers_get_content_length (headers) > (goffset) limit->limit)
    reject_body (msg, limit);
}

static void
got_chunk_cb (SoupServerMessage *msg,
              GBytes            *chunk,
              gpointer           user_data)
{
  BodyLimit *limit = g_object_get_data (G_OBJECT (msg), "riv-body-limit");

  if (limit == NULL || limit->rejected)
    return;
  limit->received += g_bytes_get_size (chunk);
  if (limit->received > limit->limit)
    reject_body (msg, limit);
}

/* Connections the client closed. libsoup 3.2 never disconnects a kept-alive
 * connection whose client closes it while it waits for the next request
 * (fixed in libsoup 3.3): the socket stays open in CLOSE-WAIT for good. A
 * client that opens a connection per request (@gradio/client's fetch does,
 * for a burst of joins) then leaves one descriptor behind per job, 10,000
 * after a 10,000-job burst, until the server cannot accept any more. So the
 * server remembers every client socket and, once a second, closes those at
 * end of file on two sweeps in a row: libsoup reads a readable socket within
 * one main-loop iteration, so by then it has nothing left to do with it (a
 * connection it still serves, e.g. a stream, fails its next write and ends
 * as a dropped client would). */
#define CONN_SWEEP_S 1.0

static gboolean
socket_at_eof (GSocket *socket)
{
  g_autoptr(GError) error = NULL;
  char byte;
  GInputVector vector = { &byte, 1 };
  int flags = G_SOCKET_MSG_PEEK;
  gssize n;

  if (!(g_socket_condition_check (socket, G_IO_IN | G_IO_HUP | G_IO_ERR) &
        (G_IO_IN | G_IO_HUP | G_IO_ERR)))
    return FALSE;
  n = g_socket_receive_message (socket, NULL, &vector, 1, NULL, NULL, &flags, NULL, &error);
  return n == 0 ||
         (n < 0 && !g_error_matches (error, G_IO_ERROR, G_IO_ERROR_WOULD_BLOCK));
}

static gboolean
conn_sweep_cb (gpointer user_data)
{
  RivServer *self = user_data;
  GHashTableIter iter;
  gpointer key, value;

  g_hash_table_iter_init (&iter, self->sockets);
  while (g_hash_table_iter_next (&iter, &key, &value))
    {
      GSocket *socket = key;

      if (g_socket_is_closed (socket))
        g_hash_table_iter_remove (&iter);
      else if (!socket_at_eof (socket))
        g_hash_table_iter_replace (&iter, GUINT_TO_POINTER (0));
      else if (GPOINTER_TO_UINT (value) == 0)
        g_hash_table_iter_replace (&iter, GUINT_TO_POINTER (1));
      else
        {
          g_socket_close (socket, NULL);
          g_hash_table_iter_remove (&iter);
        }
    }
  return G_SOURCE_CONTINUE;
}

static void
request_started_cb (SoupServer        *server,
                    SoupServerMessage *msg,
                    gpointer           user_data)
{
  RivServer *self = user_data;
  GSocket *socket = soup_server_message_get_socket (msg);

  g_signal_connect (msg, "got-headers", G_CALLBACK (got_headers_cb), user_data);
  g_signal_connect (msg, "got-chunk", G_CALLBACK (got_chunk_cb), user_data);

  if (socket != NULL && !self->shut_down)
    g_hash_table_insert (self->sockets, g_object_ref (socket), GUINT_TO_POINTER (0));
}

/* Idle sessions */

static gboolean
sweep_cb (gpointer user_data)
{
  RivServer *self = user_data;
  gint64 now = g_get_monotonic_time ();
  gint64 timeout = (gint64) (self->session_timeout * G_USEC_PER_SEC);
  g_autoptr(GPtrArray) doomed = g_ptr_array_new ();

  for (GList *l = self->session_lru.head; l != NULL; l = l->next)
    {
      Session *session = l->data;

      if (session->stream == NULL && now - session->last_seen >= timeout)
        g_ptr_array_add (doomed, session);
    }
  for (guint i = 0; i < doomed->len; i++)
    session_drop (g_ptr_array_index (doomed, i));

  if (self->max_sessions > 0 && g_hash_table_size (self->sessions) > self->max_sessions)
    sessions_evict (self, self->max_sessions);
  return G_SOURCE_CONTINUE;
}

/* GObject */

static void
riv_server_finalize (GObject *object)
{
  RivServer *self = (RivServer *) object;

  riv_server_shutdown (self);

  g_clear_pointer (&self->queue, riv_queue_free);
  g_hash_table_unref (self->sessions);
  riv_inbox_free (self->inbox);
  g_hash_table_unref (self->files);
  g_hash_table_unref (self->sockets);
  while (self->file_order.head != NULL)
    files_remove (self, ((FileEntry *) self->file_order.head->data)->path, FALSE);
  g_clear_object (&self->soup);
  g_clear_pointer (&self->config_json, g_bytes_unref);
  g_clear_pointer (&self->info_json, g_bytes_unref);
  g_free (self->host);
  g_free (self->url);
  g_free (self->temp_dir);
  g_free (self->output_dir);
  g_free (self->upload_dir);
  g_main_context_unref (self->context);

  G_OBJECT_CLASS (riv_server_parent_class)->finalize (object);
}

static void
riv_server_get_property (GObject    *object,
                         guint       prop_id,
                         GValue     *value,
                         GParamSpec *pspec)
{
  RivServer *self = RIV_SERVER (object);

  switch (prop_id)
    {
    case PROP_CONCURRENCY:
      g_value_set_uint (value, self->concurrency);
      break;
    case PROP_MAX_QUEUE:
      g_value_set_uint (value, self->max_queue);
      break;
    case PROP_HEARTBEAT_INTERVAL:
      g_value_set_double (value, self->heartbeat_interval);
      break;
    case PROP_CLOSE_LINGER:
      g_value_set_double (value, self->close_linger);
      break;
    case PROP_MAX_BODY:
      g_value_set_uint (value, self->max_body);
      break;
    case PROP_MAX_UPLOAD:
      g_value_set_uint (value, self->max_upload);
      break;
    case PROP_MAX_SESSIONS:
      g_value_set_uint (value, self->max_sessions);
      break;
    case PROP_SESSION_BUFFER_MAX:
      g_value_set_uint (value, self->session_buffer_max);
      break;
    case PROP_SESSION_TIMEOUT:
      g_value_set_double (value, self->session_timeout);
      break;
    case PROP_MAX_FILES:
      g_value_set_uint (value, self->max_files);
      break;
    case PROP_MAX_FILE_BYTES:
      g_value_set_uint64 (value, self->max_file_bytes);
      break;
    case PROP_VERBOSE:
      g_value_set_boolean (value, self->verbose);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
riv_server_set_property (GObject      *object,
                         guint         prop_id,
                         const GValue *value,
                         GParamSpec   *pspec)
{
  RivServer *self = RIV_SERVER (object);

  switch (prop_id)
    {
    case PROP_CONCURRENCY:
      self->concurrency = g_value_get_uint (value);
      riv_queue_set_concurrency (self->queue, self->concurrency);
      break;
    case PROP_MAX_QUEUE:
      self->max_queue = g_value_get_uint (value);
      riv_queue_set_max_waiting (self->queue, self->max_queue);
      break;
    case PROP_HEARTBEAT_INTERVAL:
      self->heartbeat_interval = g_value_get_double (value);
      break;
    case PROP_CLOSE_LINGER:
      self->close_linger = g_value_get_double (value);
      break;
    case PROP_MAX_BODY:
      self->max_body = g_value_get_uint (value);
      break;
    case PROP_MAX_UPLOAD:
      self->max_upload = g_value_get_uint (value);
      break;
    case PROP_MAX_SESSIONS:
      self->max_sessions = g_value_get_uint (value);
      break;
    case PROP_SESSION_BUFFER_MAX:
      self->session_buffer_max = g_value_get_uint (value);
      break;
    case PROP_SESSION_TIMEOUT:
      self->session_timeout = g_value_get_double (value);
      break;
    case PROP_MAX_FILES:
      self->max_files = g_value_get_uint (value);
      break;
    case PROP_MAX_FILE_BYTES:
      self->max_file_bytes = g_value_get_uint64 (value);
      break;
    case PROP_VERBOSE:
      self->verbose = g_value_get_boolean (value);
      riv_queue_set_verbose (self->queue, self->verbose);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
riv_server_class_init (RivServerClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GParamFlags flags = G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS;

  object_class->finalize = riv_server_finalize;
  object_class->get_property = riv_server_get_property;
  object_class->set_property = riv_server_set_property;

  properties[PROP_CONCURRENCY] =
    g_param_spec_uint ("concurrency", NULL, NULL, 1, 1024, 8, flags);
  properties[PROP_MAX_QUEUE] =
    g_param_spec_uint ("max-queue", NULL, NULL, 0, G_MAXUINT, 10000, flags);
  properties[PROP_HEARTBEAT_INTERVAL] =
    g_param_spec_double ("heartbeat-interval", NULL, NULL, 0, 3600, 15, flags);
  properties[PROP_CLOSE_LINGER] =
    g_param_spec_double ("close-linger", NULL, NULL, 0, 60, 0.5, flags);
  properties[PROP_MAX_BODY] =
    g_param_spec_uint ("max-body", NULL, NULL, 64, G_MAXUINT, 4 * 1024 * 1024, flags);
  properties[PROP_MAX_UPLOAD] =
    g_param_spec_uint ("max-upload", NULL, NULL, 64, G_MAXUINT, 32 * 1024 * 1024, flags);
  properties[PROP_MAX_SESSIONS] =
    g_param_spec_uint ("max-sessions", NULL, NULL, 1, G_MAXUINT, 4096, flags);
  properties[PROP_SESSION_BUFFER_MAX] =
    g_param_spec_uint ("session-buffer-max", NULL, NULL, 1024, G_MAXUINT, 64 * 1024 * 1024, flags);
  properties[PROP_SESSION_TIMEOUT] =
    g_param_spec_double ("session-timeout", NULL, NULL, 0.01, 1e7, 300, flags);
  properties[PROP_MAX_FILES] =
    g_param_spec_uint ("max-files", NULL, NULL, 1, G_MAXUINT, 1000, flags);
  properties[PROP_MAX_FILE_BYTES] =
    g_param_spec_uint64 ("max-file-bytes", NULL, NULL, 1024, G_MAXUINT64, 512 * 1024 * 1024, flags);
  properties[PROP_VERBOSE] =
    g_param_spec_boolean ("verbose", NULL, NULL, FALSE, flags);
  g_object_class_install_properties (object_class, N_PROPS, properties);

  signals[BATCH_DONE] =
    g_signal_new ("batch-done", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0,
                  NULL, NULL, NULL, G_TYPE_NONE, 3,
                  G_TYPE_STRING, G_TYPE_UINT, G_TYPE_UINT64);
}

static void
riv_server_init (RivServer *self)
{
  self->context = g_main_context_ref_thread_default ();
  self->concurrency = 8;
  self->max_queue = 10000;
  self->heartbeat_interval = 15;
  self->close_linger = 0.5;
  self->max_body = 4 * 1024 * 1024;
  self->max_upload = 32 * 1024 * 1024;
  self->max_sessions = 4096;
  self->session_buffer_max = 64 * 1024 * 1024;
  self->session_timeout = 300;
  self->max_files = 1000;
  self->max_file_bytes = 512 * 1024 * 1024;

  self->sessions = g_hash_table_new_full (g_str_hash, g_str_equal, NULL,
                                          (GDestroyNotify) session_unref);
  self->files = g_hash_table_new (g_str_hash, g_str_equal);
  self->sockets = g_hash_table_new_full (NULL, NULL, g_object_unref, NULL);
  self->inbox = riv_inbox_new (self->context);
  self->queue = riv_queue_new (self->context, self->inbox, &queue_callbacks, self);
  self->io_pool = g_thread_pool_new (io_func, self, 2, FALSE, NULL);
  self->app_id = g_random_int_range (1, G_MAXINT32);

  self->soup = soup_server_new ("server-header", "rivulet/" PACKAGE_VERSION " ",
                                "raw-paths", TRUE,
                                NULL);
  soup_server_add_handler (self->soup, NULL, handle_request_cb, self, NULL);
  g_signal_connect (self->soup, "request-started", G_CALLBACK (request_started_cb), self);
}

/* Public API */

RivServer *
riv_server_new (void)
{
  return g_object_new (RIV_TYPE_SERVER, NULL);
}

static gboolean
make_dirs (RivServer  *self,
           GError    **error)
{
  self->temp_dir = g_dir_make_tmp ("rivulet-XXXXXX", error);
  if (self->temp_dir == NULL)
    return FALSE;
  self->output_dir = g_build_filename (self->temp_dir, "outputs", NULL);
  self->upload_dir = g_build_filename (self->temp_dir, "uploads", NULL);
  if (g_mkdir (self->output_dir, 0700) != 0 || g_mkdir (self->upload_dir, 0700) != 0)
    {
      int saved = errno;

      g_set_error (error, G_IO_ERROR, g_io_error_from_errno (saved),
                   "Could not create %s: %s", self->output_dir, g_strerror (saved));
      return FALSE;
    }
  return TRUE;
}

/* A load-test server holds a descriptor per client connection, and clients
 * such as @gradio/client open one per request in a burst: the soft limit
 * (often 1,024) goes up to the hard one. */
static void
raise_fd_limit (void)
{
  struct rlimit limit;

  if (getrlimit (RLIMIT_NOFILE, &limit) == 0 && limit.rlim_cur < limit.rlim_max)
    {
      limit.rlim_cur = limit.rlim_max;
      if (setrlimit (RLIMIT_NOFILE, &limit) != 0)
        g_debug ("Could not raise the open-file limit: %s", g_strerror (errno));
    }
}

/* soup_server_listen() leaves GSocket's default backlog of 10, and a burst of
 * a few hundred joins on fresh connections then gets connections reset. */
static gboolean
listen_with_backlog (RivServer       *self,
                     GSocketAddress  *address,
                     guint           *port,
                     GError         **error)
{
  g_autoptr(GSocket) socket = NULL;
  g_autoptr(GSocketAddress) local = NULL;

  socket = g_socket_new (g_socket_address_get_family (address), G_SOCKET_TYPE_STREAM,
                         G_SOCKET_PROTOCOL_DEFAULT, error);
  if (socket == NULL)
    return FALSE;
  g_socket_set_listen_backlog (socket, LISTEN_BACKLOG);
  if (!g_socket_bind (socket, address, TRUE, error) ||
      !g_socket_listen (socket, error))
    return FALSE;
  /* The port from our own socket: soup_server_get_uris() leaks the
   * listener's address in libsoup 3.2. */
  local = g_socket_get_local_address (socket, error);
  if (local == NULL)
    return FALSE;
  *port = g_inet_socket_address_get_port (G_INET_SOCKET_ADDRESS (local));
  return soup_server_listen_socket (self->soup, socket, 0, error);
}

gboolean
riv_server_listen (RivServer   *self,
                   const char  *host,
                   guint        port,
                   GError     **error)
{
  g_autoptr(GInetAddress) address = NULL;
  g_autoptr(GSocketAddress) socket_address = NULL;
  g_autoptr(GError) local_error = NULL;
  gboolean pushed = FALSE;
  gboolean ok;

  g_return_val_if_fail (RIV_IS_SERVER (self), FALSE);

  if (self->listening || self->shut_down)
    {
      g_set_error_literal (error, RIV_SERVER_ERROR, RIV_SERVER_ERROR_LISTEN,
                           self->shut_down ? "The server was shut down" : "Already listening");
      return FALSE;
    }
  if (port > 65535)
    {
      g_set_error (error, RIV_SERVER_ERROR, RIV_SERVER_ERROR_LISTEN, "Invalid port %u", port);
      return FALSE;
    }

  if (host == NULL || g_str_equal (host, "localhost"))
    host = "127.0.0.1";
  address = g_inet_address_new_from_string (host);
  if (address == NULL)
    {
      g_set_error (error, RIV_SERVER_ERROR, RIV_SERVER_ERROR_LISTEN,
                   "Invalid host \"%s\": give an IP address", host);
      return FALSE;
    }
  socket_address = g_inet_socket_address_new (address, port);

  if (g_main_context_get_thread_default () != self->context &&
      !(self->context == g_main_context_default () && g_main_context_get_thread_default () == NULL))
    {
      g_main_context_push_thread_default (self->context);
      pushed = TRUE;
    }
  raise_fd_limit ();
  ok = listen_with_backlog (self, socket_address, &self->port, &local_error);
  if (pushed)
    g_main_context_pop_thread_default (self->context);
  if (!ok)
    {
      g_set_error (error, RIV_SERVER_ERROR, RIV_SERVER_ERROR_LISTEN,
                   "Could not listen on %s:%u: %s", host, port, local_error->message);
      return FALSE;
    }

  self->host = g_strdup (host);
  if (g_inet_address_get_family (address) == G_SOCKET_FAMILY_IPV6)
    self->url = g_strdup_printf ("http://[%s]:%u", host, self->port);
  else
    self->url = g_strdup_printf ("http://%s:%u", host, self->port);

  if (!make_dirs (self, error))
    {
      soup_server_disconnect (self->soup);
      return FALSE;
    }
  riv_queue_set_output (self->queue, self->output_dir, self->url);

  {
    g_autoptr(JsonNode) config = riv_demo_build_config (self->app_id, self->max_upload);
    g_autoptr(JsonNode) info = riv_demo_build_info ();
    gsize len;
    char *json;

    json = riv_json_to_string (config, &len);
    self->config_json = g_bytes_new_take (json, len);
    json = riv_json_to_string (info, &len);
    self->info_json = g_bytes_new_take (json, len);
  }

  self->sweep_source = add_timeout (self, CLAMP (self->session_timeout / 4, 0.05, 5.0),
                                    sweep_cb, self, "[rivulet] session sweep");
  self->conn_sweep = add_timeout (self, CONN_SWEEP_S, conn_sweep_cb, self,
                                  "[rivulet] connection sweep");
  self->listening = TRUE;
  return TRUE;
}

guint
riv_server_get_port (RivServer *self)
{
  g_return_val_if_fail (RIV_IS_SERVER (self), 0);
  return self->port;
}

char *
riv_server_dup_url (RivServer *self)
{
  g_return_val_if_fail (RIV_IS_SERVER (self), NULL);
  return g_strdup (self->url);
}

static void
remove_tree (const char *path)
{
  g_autoptr(GDir) dir = NULL;
  const char *name;

  dir = g_dir_open (path, 0, NULL);
  if (dir != NULL)
    while ((name = g_dir_read_name (dir)) != NULL)
      {
        g_autofree char *child = g_build_filename (path, name, NULL);
        GStatBuf st;

        /* lstat: never descend through a symlink. */
        if (g_lstat (child, &st) == 0 && S_ISDIR (st.st_mode))
          remove_tree (child);
        else
          g_unlink (child);
      }
  g_rmdir (path);
}

static gboolean
flag_timeout_cb (gpointer user_data)
{
  *(gboolean *) user_data = TRUE;
  return G_SOURCE_CONTINUE;
}

void
riv_server_shutdown (RivServer *self)
{
  g_autoptr(GPtrArray) sessions = NULL;

  g_return_if_fail (RIV_IS_SERVER (self));

  if (self->shut_down)
    return;
  self->shut_down = TRUE;

  clear_source (&self->sweep_source);
  clear_source (&self->trim_source);
  clear_source (&self->conn_sweep);

  /* 1. Every live event gets a failure completion in its session FIFO;
   *    the workers stop at their next step and are joined. */
  riv_queue_shutdown (self->queue);

  /* 2. Attached streams write everything they have, then close_stream. */
  sessions = g_ptr_array_new ();
  for (GList *l = self->session_lru.head; l != NULL; l = l->next)
    g_ptr_array_add (sessions, l->data);
  for (guint i = 0; i < sessions->len; i++)
    {
      Session *session = g_ptr_array_index (sessions, i);

      clear_source (&session->linger);
      if (session->stream != NULL)
        stream_end (session->stream);
    }
  for (GList *l = self->streams.head; l != NULL; l = l->next)
    stream_end (l->data);

  /* 3. Finish the file work in flight, answering its requests. */
  if (self->io_pool != NULL)
    {
      g_thread_pool_free (self->io_pool, FALSE, TRUE);
      self->io_pool = NULL;
    }
  riv_inbox_flush (self->inbox, FALSE);

  /* 4. Give the streams a moment to reach their clients: this runs the
   *    server's context (bounded), so call it where that is allowed. */
  if (self->listening && self->streams.length > 0 && g_main_context_acquire (self->context))
    {
      gboolean timed_out = FALSE;
      GSource *timer = add_timeout (self, SHUTDOWN_FLUSH_S, flag_timeout_cb, &timed_out,
                                    "[rivulet] shutdown flush");

      while (self->streams.length > 0 && !timed_out)
        g_main_context_iteration (self->context, TRUE);
      clear_source (&timer);
      g_main_context_release (self->context);
    }

  /* 5. Stop listening and drop the connections that are left. */
  while (self->streams.head != NULL)
    {
      Stream *stream = self->streams.head->data;

      stream->ended = TRUE;
      stream_detach (stream);
      stream_free (stream);
    }
  soup_server_disconnect (self->soup);

  for (guint i = 0; i < sessions->len; i++)
    session_drop (g_ptr_array_index (sessions, i));

  /* 6. Remove the files. */
  while (self->file_order.head != NULL)
    files_remove (self, ((FileEntry *) self->file_order.head->data)->path, FALSE);
  if (self->temp_dir != NULL)
    remove_tree (self->temp_dir);
}

guint
riv_server_get_n_sessions (RivServer *self)
{
  g_return_val_if_fail (RIV_IS_SERVER (self), 0);
  return g_hash_table_size (self->sessions);
}

guint
riv_server_get_n_pending (RivServer *self)
{
  g_return_val_if_fail (RIV_IS_SERVER (self), 0);
  return self->n_pending;
}

guint64
riv_server_get_n_completed (RivServer *self)
{
  g_return_val_if_fail (RIV_IS_SERVER (self), 0);
  return self->n_completed;
}

const char *
riv_server_get_temp_dir (RivServer *self)
{
  g_return_val_if_fail (RIV_IS_SERVER (self), NULL);
  return self->temp_dir;
}

guint
riv_server_get_n_files (RivServer *self)
{
  g_return_val_if_fail (RIV_IS_SERVER (self), 0);
  return g_hash_table_size (self->files);
}
