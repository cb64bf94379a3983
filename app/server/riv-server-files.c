/* riv-server-files.c
 * Copyright 2026 The Rivulet authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The file registry behind /file= (only paths this server wrote are served,
 * oldest first out past "max-files"/"max-file-bytes"), uploads, and the small
 * I/O pool that reads, writes and deletes those files off the main context.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <glib/gstdio.h>

#include "riv-range.h"
#include "riv-server-private.h"
#include "riv-wire.h"

#define FILE_READ_MAX       (256 * 1024 * 1024)
#define OWNER_HASH_MAX      256

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
  char              *range;        /* nullable: the request's Range header */
  guint              max_ranges;
  char              *content_type; /* nullable: a multipart reply's */
  char              *content_range; /* nullable */
  char              *owner;        /* nullable: an upload's (see upload_owner()) */
} IoTask;

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
  g_free (task->range);
  g_free (task->content_type);
  g_free (task->content_range);
  g_free (task->owner);
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

/* An upload's folder (upload_dir/<digest>/) goes with its last file. */
static void
files_delete_later (RivServer  *self,
                    const char *path,
                    gboolean    upload)
{
  IoTask *task = g_new0 (IoTask, 1);

  task->kind = IO_DELETE;
  task->path = g_strdup (path);
  if (upload)
    task->upload_dir = g_strdup (self->upload_dir);
  if (self->io_pool != NULL)
    io_submit (self, task, NULL);
  else
    io_task_free (task);
}

void
_riv_server_files_remove (RivServer  *self,
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
  if (entry->owner != NULL)
    {
      self->n_uploads--;
      self->upload_bytes -= entry->size;
    }
  if (delete)
    files_delete_later (self, entry->path, entry->owner != NULL);
  g_free (entry->path);
  g_free (entry->owner);
  g_free (entry);
  g_list_free_1 (link);
}

/* Takes path; owner (copied) is NULL for a demo's output. FALSE when the
 * path is registered already. */
static gboolean
files_add (RivServer  *self,
           char       *path,
           gsize       size,
           const char *owner)
{
  FileEntry *entry;
  GList *link;

  if (g_hash_table_contains (self->files, path))
    {
      g_free (path);
      return FALSE;
    }

  entry = g_new (FileEntry, 1);
  entry->path = path;
  entry->size = size;
  entry->owner = g_strdup (owner);
  link = g_list_alloc ();
  link->data = entry;
  g_queue_push_tail_link (&self->file_order, link);
  g_hash_table_insert (self->files, entry->path, link);
  self->file_bytes += size;
  if (owner != NULL)
    {
      self->n_uploads++;
      self->upload_bytes += size;
    }
  return TRUE;
}

/* Registers a demo's output (takes path). The oldest outputs go when there
 * are more than "max-files" outputs or more than "max-file-bytes" of them;
 * uploads are counted apart (uploads_admit()) and never go to make room. */
void
_riv_server_files_register (RivServer *self,
                            char      *path,
                            gsize      size)
{
  GList *link;

  if (!files_add (self, path, size, NULL))
    return;

  link = self->file_order.head;
  while (link != self->file_order.tail &&
         (self->file_order.length - self->n_uploads > MAX (self->max_files, 1) ||
          self->file_bytes - self->upload_bytes > self->max_file_bytes))
    {
      FileEntry *entry = link->data;

      link = link->next;
      if (entry->owner == NULL)
        _riv_server_files_remove (self, entry->path, TRUE);
    }
}

/* Who an upload is counted to: the session it names (?session_hash=, which
 * Gradio ignores), else the client's address. */
static char *
upload_owner (SoupServerMessage *msg)
{
  const char *query = g_uri_get_query (soup_server_message_get_uri (msg));
  g_autoptr(GHashTable) params = NULL;
  const char *hash = NULL;
  const char *address = soup_server_message_get_remote_host (msg);

  if (query != NULL)
    params = g_uri_parse_params (query, -1, "&", G_URI_PARAMS_NONE, NULL);
  if (params != NULL)
    hash = g_hash_table_lookup (params, "session_hash");
  if (hash != NULL && hash[0] != '\0' && strlen (hash) <= OWNER_HASH_MAX)
    return g_strconcat ("session ", hash, NULL);
  return g_strconcat ("address ", address != NULL ? address : "", NULL);
}

/* Makes room for n_files files of bytes in all from owner: past its quota
 * ("max-session-uploads", "max-session-upload-bytes") its own oldest uploads
 * go; another owner's never do, so a full store ("max-files",
 * "max-file-bytes" of uploads) refuses the upload instead. FALSE (answered)
 * when it cannot be kept. */
static gboolean
uploads_admit (RivServer         *self,
               SoupServerMessage *msg,
               const char        *owner,
               guint              n_files,
               guint64            bytes)
{
  g_autoptr(GPtrArray) evict = g_ptr_array_new ();
  guint own_files = 0, all_files = self->n_uploads;
  guint64 own_bytes = 0, all_bytes = self->upload_bytes;

  if (n_files > self->max_session_uploads || bytes > self->max_session_upload_bytes)
    {
      g_autofree char *detail =
        g_strdup_printf ("Upload too large: a session keeps at most %u files and %" G_GUINT64_FORMAT
                         " bytes.", self->max_session_uploads, self->max_session_upload_bytes);
      _riv_server_reply_detail (msg, SOUP_STATUS_REQUEST_ENTITY_TOO_LARGE, detail);
      return FALSE;
    }

  for (GList *l = self->file_order.head; l != NULL; l = l->next)
    {
      FileEntry *entry = l->data;

      if (g_strcmp0 (entry->owner, owner) == 0)
        {
          own_files++;
          own_bytes += entry->size;
        }
    }
  for (GList *l = self->file_order.head;
       l != NULL && (own_files + n_files > self->max_session_uploads ||
                     own_bytes + bytes > self->max_session_upload_bytes);
       l = l->next)
    {
      FileEntry *entry = l->data;

      if (g_strcmp0 (entry->owner, owner) != 0)
        continue;
      g_ptr_array_add (evict, entry->path);
      own_files--;
      own_bytes -= entry->size;
      all_files--;
      all_bytes -= entry->size;
    }

  if (all_files + n_files > self->max_files || all_bytes + bytes > self->max_file_bytes)
    {
      _riv_server_reply_detail (msg, SOUP_STATUS_INSUFFICIENT_STORAGE,
                                "The server keeps no more uploads for now; files are "
                                "never deleted to make room for another client's.");
      return FALSE;
    }
  for (guint i = 0; i < evict->len; i++)
    _riv_server_files_remove (self, g_ptr_array_index (evict, i), TRUE);
  return TRUE;
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

/* length bytes at offset into buf; FALSE on a read error or a file that
 * got shorter. */
static gboolean
read_at (int      fd,
         guint8  *buf,
         gsize    length,
         guint64  offset)
{
  gsize done = 0;

  while (done < length)
    {
      gssize n = pread (fd, buf + done, length - done, offset + done);

      if (n < 0 && errno == EINTR)
        continue;
      if (n <= 0)
        return FALSE;
      done += n;
    }
  return TRUE;
}

/* The ranges riv_range_parse() accepted, as a 206 body: one range as it is,
 * several as multipart/byteranges (RFC 9110 §14.6). Their total is at most
 * the file, so this holds no more than a whole-file reply would. */
static GBytes *
read_ranges (IoTask         *task,
             int             fd,
             guint64         size,
             const RivRange *ranges,
             guint           n_ranges)
{
  g_autofree char *boundary = NULL;
  GByteArray *out = g_byte_array_new ();
  gboolean inline_ok;
  const char *type = content_type_for (task->path, &inline_ok);

  if (n_ranges == 1)
    task->content_range = g_strdup_printf ("bytes %" G_GUINT64_FORMAT "-%" G_GUINT64_FORMAT
                                           "/%" G_GUINT64_FORMAT,
                                           ranges[0].start, ranges[0].end, size);
  else
    {
      boundary = g_uuid_string_random ();
      task->content_type = g_strdup_printf ("multipart/byteranges; boundary=%s", boundary);
    }

  for (guint i = 0; i < n_ranges; i++)
    {
      gsize length = ranges[i].end - ranges[i].start + 1;
      gsize at;

      if (boundary != NULL)
        {
          g_autofree char *head =
            g_strdup_printf ("--%s\r\nContent-Type: %s\r\nContent-Range: bytes %" G_GUINT64_FORMAT
                             "-%" G_GUINT64_FORMAT "/%" G_GUINT64_FORMAT "\r\n\r\n",
                             boundary, type, ranges[i].start, ranges[i].end, size);
          g_byte_array_append (out, (const guint8 *) head, strlen (head));
        }
      at = out->len;
      g_byte_array_set_size (out, at + length);
      if (!read_at (fd, out->data + at, length, ranges[i].start))
        {
          g_byte_array_unref (out);
          return NULL;
        }
      if (boundary != NULL)
        g_byte_array_append (out, (const guint8 *) "\r\n", 2);
    }
  if (boundary != NULL)
    {
      g_autofree char *tail = g_strdup_printf ("--%s--\r\n", boundary);
      g_byte_array_append (out, (const guint8 *) tail, strlen (tail));
    }
  return g_byte_array_free_to_bytes (out);
}

static void
io_read (IoTask *task)
{
  struct stat st;
  int fd;
  RivRange ranges[RIV_RANGE_MAX];
  guint n_ranges = 0;
  RivRangeResult result;

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

  result = riv_range_parse (task->range, st.st_size, task->max_ranges, ranges, &n_ranges);
  if (result == RIV_RANGE_UNSATISFIABLE)
    {
      close (fd);
      task->status = SOUP_STATUS_REQUESTED_RANGE_NOT_SATISFIABLE;
      task->error = g_strdup_printf ("Range not satisfiable: %s", task->range);
      task->content_range = g_strdup_printf ("bytes */%" G_GUINT64_FORMAT, (guint64) st.st_size);
      return;
    }
  if (result == RIV_RANGE_PARTIAL)
    task->bytes = read_ranges (task, fd, st.st_size, ranges, n_ranges);
  else
    {
      guint8 *buf = g_malloc (MAX (st.st_size, 1));
      gsize done = 0;

      /* A file that shrank meanwhile is served as far as it goes. */
      while (done < (gsize) st.st_size)
        {
          gssize n = read (fd, buf + done, st.st_size - done);

          if (n < 0 && errno == EINTR)
            continue;
          if (n <= 0)
            break;
          done += n;
        }
      task->bytes = g_bytes_new_take (buf, done);
    }
  close (fd);
  if (task->bytes == NULL)
    {
      task->status = SOUP_STATUS_INTERNAL_SERVER_ERROR;
      task->error = g_strdup_printf ("Could not read %s", task->path);
      return;
    }
  task->status = result == RIV_RANGE_PARTIAL ? SOUP_STATUS_PARTIAL_CONTENT : SOUP_STATUS_OK;
}

static void
io_upload (IoTask *task)
{
  task->paths = g_ptr_array_new_with_free_func (g_free);

  for (guint i = 0; i < task->parts->len; i++)
    {
      UploadPart *part = g_ptr_array_index (task->parts, i);
      g_autoptr(GError) error = NULL;
      g_autofree char *digest = NULL;
      g_autofree char *dir = NULL;
      g_autofree char *path = NULL;
      GChecksum *checksum = g_checksum_new (G_CHECKSUM_SHA256);

      /* By owner and content: one owner's files are never another's, so
       * that none goes when another owner's does. */
      g_checksum_update (checksum, (const guchar *) task->owner, strlen (task->owner) + 1);
      g_checksum_update (checksum, g_bytes_get_data (part->data, NULL),
                         g_bytes_get_size (part->data));
      digest = g_strdup (g_checksum_get_string (checksum));
      g_checksum_free (checksum);
      dir = g_build_filename (task->upload_dir, digest, NULL);
      path = g_build_filename (dir, part->filename, NULL);

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

void
_riv_server_io_func (gpointer data,
                     gpointer user_data)
{
  IoTask *task = data;

  switch (task->kind)
    {
    case IO_DELETE:
      g_unlink (task->path);
      if (task->upload_dir != NULL)
        {
          g_autofree char *dir = g_path_get_dirname (task->path);
          g_autofree char *parent = g_path_get_dirname (dir);

          /* Fails, as it should, while another file is in it. */
          if (g_str_equal (parent, task->upload_dir))
            g_rmdir (dir);
        }
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

          soup_server_message_set_status (msg, task->status, NULL);
          soup_message_headers_replace (headers, "Accept-Ranges", "bytes");
          soup_message_headers_replace (headers, "X-Content-Type-Options", "nosniff");
          if (!inline_ok)
            soup_message_headers_replace (headers, "Content-Disposition", "attachment");
          if (task->content_range != NULL)
            soup_message_headers_replace (headers, "Content-Range", task->content_range);
          if (task->content_type != NULL)
            type = task->content_type;
          soup_server_message_set_response (msg, type, SOUP_MEMORY_COPY,
                                            g_bytes_get_data (task->bytes, NULL),
                                            g_bytes_get_size (task->bytes));
        }
      else
        {
          if (task->content_range != NULL)
            soup_message_headers_replace (soup_server_message_get_response_headers (msg),
                                          "Content-Range", task->content_range);
          _riv_server_reply_detail (msg, task->status, task->error);
        }
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
                files_add (self, g_strdup (path), g_bytes_get_size (part->data), task->owner);
            }
          g_string_append_c (out, ']');
          {
            gsize len = out->len;
            _riv_server_reply_take (msg, SOUP_STATUS_OK, "application/json",
                                    g_string_free (out, FALSE), len);
          }
        }
      else
        _riv_server_reply_detail (msg, task->status, task->error);
    }
  soup_server_message_unpause (msg);

out:
  io_task_free (task);
}

void
_riv_server_handle_upload (RivServer         *self,
                           SoupServerMessage *msg)
{
  g_autoptr(GBytes) body = _riv_server_request_body (msg);
  g_autoptr(SoupMultipart) multipart = NULL;
  IoTask *task;

  multipart = soup_multipart_new_from_message (soup_server_message_get_request_headers (msg), body);
  if (multipart == NULL)
    {
      _riv_server_reply_detail (msg, SOUP_STATUS_BAD_REQUEST,
                                "Expected multipart/form-data with \"files\" parts.");
      return;
    }

  if (soup_multipart_get_length (multipart) > (int) MIN (self->max_upload_parts, G_MAXINT))
    {
      g_autofree char *detail = g_strdup_printf ("Too many parts in one upload (limit %u).",
                                                 self->max_upload_parts);
      _riv_server_reply_detail (msg, SOUP_STATUS_REQUEST_ENTITY_TOO_LARGE, detail);
      return;
    }

  if (self->io_pool == NULL)
    {
      _riv_server_reply_detail (msg, SOUP_STATUS_SERVICE_UNAVAILABLE, "Server stopped.");
      return;
    }

  task = g_new0 (IoTask, 1);
  task->kind = IO_UPLOAD;
  task->owner = upload_owner (msg);
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
          _riv_server_reply_detail (msg, SOUP_STATUS_BAD_REQUEST, "Malformed multipart body.");
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
      _riv_server_reply_detail (msg, SOUP_STATUS_BAD_REQUEST, "No \"files\" parts in the upload.");
      return;
    }
  {
    guint64 bytes = 0;

    for (guint i = 0; i < task->parts->len; i++)
      bytes += g_bytes_get_size (((UploadPart *) g_ptr_array_index (task->parts, i))->data);
    if (!uploads_admit (self, msg, task->owner, task->parts->len, bytes))
      {
        io_task_free (task);
        return;
      }
  }

  io_submit (self, task, msg);
}

void
_riv_server_handle_file (RivServer         *self,
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
      _riv_server_reply_detail (msg, SOUP_STATUS_FORBIDDEN, detail);
      return;
    }

  if (self->io_pool == NULL)
    {
      _riv_server_reply_detail (msg, SOUP_STATUS_SERVICE_UNAVAILABLE, "Server stopped.");
      return;
    }

  task = g_new0 (IoTask, 1);
  task->kind = IO_READ;
  task->path = g_steal_pointer (&path);
  if (soup_server_message_get_method (msg) == SOUP_METHOD_GET)
    task->range = g_strdup (g_object_get_data (G_OBJECT (msg), "riv-range"));
  task->max_ranges = self->max_ranges;
  io_submit (self, task, msg);
}
