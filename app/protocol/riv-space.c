/* riv-space.c
 * Copyright 2026 The Rivulet authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * A Hugging Face Space by name resolved to its app's URL, as gradio_client and
 * @gradio/client do: the Space's info from the Hub gives its host (or its
 * subdomain on hf.space) and stage; a Space that builds or starts is waited
 * for, polling its runtime; one asleep or stopped is woken by a request to its
 * host (what any visitor's request does), then waited for; paused, an error
 * stage or no app file ends it with the stage in plain words. Everything runs
 * on the caller's thread-default main context; nothing blocks it.
 */
#include "config.h"

#include <string.h>

#include <libsoup/soup.h>

#include "riv-compat.h"
#include "riv-json.h"
#include "riv-space.h"
#include "riv-text.h"

#define POLL_INTERVAL_MS  1000               /* @gradio/client polls the Hub every second */
#define HUB_TIMEOUT_S     30
#define HUB_REPLY_MAX     (1024 * 1024)
#define TOKEN_FILE_MAX    (64 * 1024)
#define HUB_MAX_DEPTH     64
#define ERROR_TEXT_MAX    300

G_DEFINE_QUARK (riv-space-error-quark, riv_space_error)

/* Spelling ----------------------------------------------------------------------------- */

/* The Hub's repository names: letters, digits, "-", "_" and "." (owners
 * without "."), at most 96, not starting or ending with "-" or ".", no
 * "--" or "..". */
static gboolean
valid_name (const char *name,
            gsize       length,
            gboolean    owner)
{
  if (length == 0 || length > 96)
    return FALSE;
  if (name[0] == '-' || name[0] == '.' || name[length - 1] == '-' || name[length - 1] == '.')
    return FALSE;
  for (gsize i = 0; i < length; i++)
    {
      char c = name[i];

      if (!(g_ascii_isalnum (c) || c == '-' || c == '_' || (c == '.' && !owner)))
        return FALSE;
      if (i > 0 && (c == '-' || c == '.') && name[i - 1] == c)
        return FALSE;
    }
  return TRUE;
}

/* The path after {hub}/spaces/ when text is a URL of the Hub's Space pages;
 * NULL otherwise. */
static char *
hub_page_path (const char *text,
               const char *hub)
{
  g_autoptr(GUri) uri = g_uri_parse (text, G_URI_FLAGS_NONE, NULL);
  g_autoptr(GUri) base = g_uri_parse (hub != NULL ? hub : RIV_SPACE_DEFAULT_HUB,
                                      G_URI_FLAGS_NONE, NULL);
  const char *path;

  if (uri == NULL || base == NULL || g_uri_get_host (uri) == NULL ||
      g_uri_get_host (base) == NULL ||
      g_ascii_strcasecmp (g_uri_get_host (uri), g_uri_get_host (base)) != 0 ||
      g_uri_get_port (uri) != g_uri_get_port (base))
    return NULL;
  path = g_uri_get_path (uri);
  if (!g_str_has_prefix (path, "/spaces/"))
    return NULL;
  return g_strdup (path + strlen ("/spaces/"));
}

gboolean
riv_space_is_spelled (const char *text,
                      const char *hub)
{
  g_autofree char *page = NULL;
  const char *slash;

  if (text == NULL)
    return FALSE;
  while (g_ascii_isspace (*text))
    text++;
  if (strstr (text, "://") != NULL)
    {
      page = hub_page_path (text, hub);
      return page != NULL;
    }
  slash = strchr (text, '/');
  if (slash == NULL || slash == text || strchr (text, ':') != NULL)
    return FALSE;
  if (memchr (text, '.', slash - text) != NULL)
    return FALSE;
  return !((gsize) (slash - text) == strlen ("localhost") &&
           g_ascii_strncasecmp (text, "localhost", slash - text) == 0);
}

char *
riv_space_parse_id (const char  *text,
                    const char  *hub,
                    GError     **error)
{
  g_autofree char *trimmed = g_strstrip (g_strdup (text != NULL ? text : ""));
  g_autofree char *page = NULL;
  const char *id = trimmed;
  const char *slash;
  gsize length;

  if (strstr (trimmed, "://") != NULL)
    {
      page = hub_page_path (trimmed, hub);
      if (page == NULL)
        {
          g_set_error (error, RIV_SPACE_ERROR, RIV_SPACE_ERROR_BAD_ID,
                       "\"%s\" is not the address of a Space on the Hub", trimmed);
          return NULL;
        }
      id = page;
    }
  length = strlen (id);
  if (page != NULL && length > 0 && id[length - 1] == '/')
    length--;   /* the Hub's page with a trailing slash */
  slash = memchr (id, '/', length);
  if (slash == NULL || slash == id || slash + 1 == id + length ||
      memchr (slash + 1, '/', id + length - slash - 1) != NULL)
    {
      g_set_error (error, RIV_SPACE_ERROR, RIV_SPACE_ERROR_BAD_ID,
                   "\"%s\" is not a Space's name: a Space is OWNER/NAME, e.g. "
                   "gradio/hello_world (a server's address needs http:// or a port)", trimmed);
      return NULL;
    }
  if (!valid_name (id, slash - id, TRUE) ||
      !valid_name (slash + 1, id + length - slash - 1, FALSE))
    {
      g_set_error (error, RIV_SPACE_ERROR, RIV_SPACE_ERROR_BAD_ID,
                   "\"%s\" is not a Space's name: an owner and a name hold letters, digits, "
                   "\"-\" and \"_\" (a name also \".\"), at most 96 each", trimmed);
      return NULL;
    }
  return g_strndup (id, length);
}

char *
riv_space_hub_from_env (GError **error)
{
  const char *endpoint = g_getenv ("HF_ENDPOINT");
  g_autofree char *trimmed = NULL;
  g_autoptr(GUri) uri = NULL;
  const char *scheme;
  gsize length;

  if (endpoint == NULL || *endpoint == '\0')
    return g_strdup (RIV_SPACE_DEFAULT_HUB);
  trimmed = g_strstrip (g_strdup (endpoint));
  uri = g_uri_parse (trimmed, G_URI_FLAGS_NONE, NULL);
  scheme = uri != NULL ? g_uri_get_scheme (uri) : NULL;
  if (uri == NULL || (g_ascii_strcasecmp (scheme, "http") != 0 &&
                      g_ascii_strcasecmp (scheme, "https") != 0) ||
      g_uri_get_host (uri) == NULL || *g_uri_get_host (uri) == '\0' ||
      g_uri_get_query (uri) != NULL || g_uri_get_userinfo (uri) != NULL)
    {
      g_set_error (error, RIV_SPACE_ERROR, RIV_SPACE_ERROR_BAD_HUB,
                   "HF_ENDPOINT \"%s\" is not the Hub's address (an http or https URL, "
                   "e.g. %s)", trimmed, RIV_SPACE_DEFAULT_HUB);
      return NULL;
    }
  length = strlen (trimmed);
  while (length > 0 && trimmed[length - 1] == '/')
    trimmed[--length] = '\0';
  return g_steal_pointer (&trimmed);
}

char *
riv_space_token_path (void)
{
  const char *path = g_getenv ("HF_TOKEN_PATH");
  const char *home = g_getenv ("HF_HOME");

  if (path != NULL && *path != '\0')
    return g_strdup (path);
  if (home != NULL && *home != '\0')
    return g_build_filename (home, "token", NULL);
  /* g_get_user_cache_dir () is $XDG_CACHE_HOME, else ~/.cache. */
  return g_build_filename (g_get_user_cache_dir (), "huggingface", "token", NULL);
}

/* The Hub's replies --------------------------------------------------------------------- */

static JsonObject *
parse_object (const char  *body,
              gssize       length,
              const char  *what,
              JsonNode   **node,
              GError     **error)
{
  g_autoptr(GError) local_error = NULL;

  *node = riv_json_parse (NULL, body, length, HUB_MAX_DEPTH, &local_error);
  if (*node == NULL || !JSON_NODE_HOLDS_OBJECT (*node))
    {
      g_set_error (error, RIV_SPACE_ERROR, RIV_SPACE_ERROR_BAD_REPLY,
                   "The Hub's reply about the Space's %s is not a JSON object%s%s", what,
                   local_error != NULL ? ": " : "",
                   local_error != NULL ? local_error->message : "");
      return NULL;
    }
  return json_node_get_object (*node);
}

gboolean
riv_space_parse_info (const char  *body,
                      gssize       length,
                      char       **host,
                      char       **stage,
                      GError     **error)
{
  g_autoptr(JsonNode) node = NULL;
  JsonObject *object = parse_object (body, length, "info", &node, error);
  JsonNode *runtime;
  const char *value;
  g_autoptr(GUri) uri = NULL;

  *host = NULL;
  *stage = NULL;
  if (object == NULL)
    return FALSE;

  value = riv_json_get_string (object, "host");
  if (value != NULL && *value != '\0')
    *host = g_strdup (value);
  else if ((value = riv_json_get_string (object, "subdomain")) != NULL && *value != '\0' &&
           valid_name (value, strlen (value), TRUE))
    *host = g_strdup_printf ("https://%s.hf.space", value);
  uri = *host != NULL ? g_uri_parse (*host, G_URI_FLAGS_NONE, NULL) : NULL;
  if (uri == NULL || g_uri_get_host (uri) == NULL || *g_uri_get_host (uri) == '\0' ||
      (g_ascii_strcasecmp (g_uri_get_scheme (uri), "http") != 0 &&
       g_ascii_strcasecmp (g_uri_get_scheme (uri), "https") != 0))
    {
      g_set_error_literal (error, RIV_SPACE_ERROR, RIV_SPACE_ERROR_BAD_REPLY,
                           *host == NULL
                           ? "The Hub's info names no host for the Space (is it a Gradio Space?)"
                           : "The Hub's info names a host for the Space that is not an "
                             "http(s) URL");
      g_clear_pointer (host, g_free);
      return FALSE;
    }

  runtime = json_object_get_member (object, "runtime");
  if (runtime != NULL && JSON_NODE_HOLDS_OBJECT (runtime) &&
      (value = riv_json_get_string (json_node_get_object (runtime), "stage")) != NULL &&
      *value != '\0')
    *stage = g_strdup (value);
  return TRUE;
}

gboolean
riv_space_parse_runtime (const char  *body,
                         gssize       length,
                         char       **stage,
                         char       **message,
                         GError     **error)
{
  g_autoptr(JsonNode) node = NULL;
  JsonObject *object = parse_object (body, length, "runtime", &node, error);
  const char *value;

  *stage = NULL;
  *message = NULL;
  if (object == NULL)
    return FALSE;
  value = riv_json_get_string (object, "stage");
  if (value == NULL || *value == '\0')
    {
      g_set_error_literal (error, RIV_SPACE_ERROR, RIV_SPACE_ERROR_BAD_REPLY,
                           "The Hub's reply about the Space's runtime names no stage");
      return FALSE;
    }
  *stage = g_strdup (value);
  value = riv_json_get_string (object, "errorMessage");
  if (value != NULL && *value != '\0')
    *message = g_strdup (value);
  return TRUE;
}

/* Stages --------------------------------------------------------------------------------- */

static const struct
{
  const char    *stage;
  RivSpaceState  state;
  const char    *words;
} stages[] = {
  { "RUNNING", RIV_SPACE_RUNNING, "is running" },
  { "RUNNING_BUILDING", RIV_SPACE_RUNNING, "is running (a new version is building)" },
  { "RUNNING_APP_STARTING", RIV_SPACE_RUNNING, "is running (a new version is starting)" },
  { "BUILDING", RIV_SPACE_WAIT, "is building" },
  { "APP_STARTING", RIV_SPACE_WAIT, "is starting" },
  { "SLEEPING", RIV_SPACE_WAKE, "is asleep; waking it" },
  { "STOPPED", RIV_SPACE_WAKE, "is stopped; waking it" },
  { "PAUSED", RIV_SPACE_FAILED, "has been paused by its owner" },
  { "BUILD_ERROR", RIV_SPACE_FAILED, "failed to build (build error)" },
  { "RUNTIME_ERROR", RIV_SPACE_FAILED, "has crashed (runtime error)" },
  { "CONFIG_ERROR", RIV_SPACE_FAILED, "has a configuration error" },
  { "NO_APP_FILE", RIV_SPACE_FAILED, "has no app file" },
  { "DELETING", RIV_SPACE_FAILED, "is being deleted" },
};

RivSpaceState
riv_space_stage_state (const char *stage)
{
  for (guint i = 0; stage != NULL && i < G_N_ELEMENTS (stages); i++)
    if (strcmp (stages[i].stage, stage) == 0)
      return stages[i].state;
  return RIV_SPACE_FAILED;
}

char *
riv_space_stage_describe (const char *stage)
{
  for (guint i = 0; stage != NULL && i < G_N_ELEMENTS (stages); i++)
    if (strcmp (stages[i].stage, stage) == 0)
      return g_strdup (stages[i].words);
  return g_strdup_printf ("is in stage %s", stage != NULL ? stage : "(none)");
}

/* Resolving ------------------------------------------------------------------------------ */

typedef struct
{
  char                 *id;
  char                 *hub;
  char                 *token;          /* nullable */
  double                wait_s;
  double                deadline;
  SoupSession          *session;
  char                 *host;
  char                 *stage;          /* the last one told */
  gboolean              woken;
  gboolean              asked_runtime;  /* the info came: the replies are the runtime's */
  GSource              *timer;
  RivSpaceProgressFunc  progress;
  gpointer              progress_data;
  GDestroyNotify        progress_destroy;
} Resolve;

static void
resolve_free (Resolve *r)
{
  if (r->timer != NULL)
    {
      g_source_destroy (r->timer);
      g_source_unref (r->timer);
    }
  if (r->session != NULL)
    soup_session_abort (r->session);
  g_clear_object (&r->session);
  if (r->progress_destroy != NULL)
    r->progress_destroy (r->progress_data);
  g_free (r->id);
  g_free (r->hub);
  g_free (r->token);
  g_free (r->host);
  g_free (r->stage);
  g_free (r);
}

/* Text from the Hub, shortened to one line. */
static char *
one_line (const char *text)
{
  g_autofree char *valid = g_utf8_make_valid (text, -1);
  char *line = g_strstrip (g_strndup (valid, strcspn (valid, "\r\n")));

  if (g_utf8_strlen (line, -1) > ERROR_TEXT_MAX)
    {
      g_autofree char *cut = g_utf8_substring (line, 0, ERROR_TEXT_MAX);

      g_free (line);
      line = g_strconcat (cut, "…", NULL);
    }
  return line;
}

static SoupMessage *
hub_message (Resolve    *r,
             const char *suffix)
{
  g_autofree char *url = g_strdup_printf ("%s/api/spaces/%s%s", r->hub, r->id, suffix);
  SoupMessage *msg = soup_message_new ("GET", url);
  SoupMessageHeaders *headers;

  if (msg == NULL)
    return NULL;
  headers = soup_message_get_request_headers (msg);
  soup_message_headers_replace (headers, "Accept", "application/json");
  if (r->token != NULL)
    {
      g_autofree char *value = g_strconcat ("Bearer ", r->token, NULL);

      soup_message_headers_replace (headers, "Authorization", value);
    }
  return msg;
}

/* A reply other than 200: the Hub's reason (X-Error-Message, else the
 * body's "error", else the status line), and what to do about it. */
static void
return_hub_error (GTask       *task,
                  SoupMessage *msg,
                  GBytes      *body)
{
  Resolve *r = g_task_get_task_data (task);
  SoupMessageHeaders *headers = soup_message_get_response_headers (msg);
  guint status = soup_message_get_status (msg);
  const char *reason = soup_message_headers_get_one (headers, "X-Error-Message");
  const char *code = soup_message_headers_get_one (headers, "X-Error-Code");
  g_autofree char *from_body = NULL;
  g_autofree char *shown = NULL;
  g_autofree char *code_shown = NULL;
  const char *hint = "";

  if ((reason == NULL || *reason == '\0') && body != NULL)
    {
      gsize length = 0;
      const char *data = g_bytes_get_data (body, &length);
      g_autoptr(JsonNode) node = riv_json_parse (NULL, data, length, HUB_MAX_DEPTH, NULL);

      if (node != NULL && JSON_NODE_HOLDS_OBJECT (node) &&
          riv_json_get_string (json_node_get_object (node), "error") != NULL)
        from_body = g_strdup (riv_json_get_string (json_node_get_object (node), "error"));
      reason = from_body;
    }
  if (reason == NULL || *reason == '\0')
    reason = soup_message_get_reason_phrase (msg);
  shown = one_line (reason != NULL && *reason != '\0' ? reason : "no reason given");
  if (code != NULL && *code != '\0')
    {
      g_autofree char *line = one_line (code);

      code_shown = g_strdup_printf (", %s", line);
    }

  if ((status == 401 || status == 403 || status == 404) && r->token == NULL)
    hint = "; if it is private, give a Hugging Face token (HF_TOKEN, or the Hub's token file)";
  else if (status == 401 || status == 403)
    hint = "; the Hub refused the token given";
  g_task_return_new_error (task, RIV_SPACE_ERROR, RIV_SPACE_ERROR_HUB,
                           "Space %s: the Hub at %s answered HTTP %u%s: %s%s", r->id, r->hub,
                           status, code_shown != NULL ? code_shown : "", shown, hint);
}

static void request_runtime (GTask *task);
static void hub_reply_cb    (GObject      *object,
                             GAsyncResult *result,
                             gpointer      user_data);

static gboolean
poll_cb (gpointer user_data)
{
  GTask *task = user_data;
  Resolve *r = g_task_get_task_data (task);

  g_clear_pointer (&r->timer, g_source_unref);
  request_runtime (task);
  return G_SOURCE_REMOVE;
}

static void
wake_done_cb (GObject      *object,
              GAsyncResult *result,
              gpointer      user_data)
{
  /* Only the request matters: whatever the host answers while it wakes. */
  GBytes *body = soup_session_send_and_read_finish (SOUP_SESSION (object), result, NULL);

  g_clear_pointer (&body, g_bytes_unref);
}

/* The host's root, asked for once: a visit is what wakes a Space. */
static void
wake (Resolve *r)
{
  g_autoptr(SoupMessage) msg = NULL;

  if (r->woken)
    return;
  r->woken = TRUE;
  msg = soup_message_new ("GET", r->host);
  if (msg == NULL)
    return;
  if (r->token != NULL)
    {
      g_autofree char *value = g_strconcat ("Bearer ", r->token, NULL);

      soup_message_headers_replace (soup_message_get_request_headers (msg),
                                    "x-hf-authorization", value);
    }
  soup_session_send_and_read_async (r->session, msg, G_PRIORITY_DEFAULT, NULL,
                                    wake_done_cb, NULL);
}

static void
handle_stage (GTask      *task,
              const char *stage,
              const char *message)
{
  Resolve *r = g_task_get_task_data (task);
  RivSpaceState state = riv_space_stage_state (stage);
  g_autofree char *words = riv_space_stage_describe (stage);

  if (state == RIV_SPACE_RUNNING)
    {
      g_task_return_pointer (task, g_strdup (r->host), g_free);
      return;
    }
  if (state == RIV_SPACE_FAILED)
    {
      g_autofree char *detail = message != NULL ? one_line (message) : NULL;

      g_task_return_new_error (task, RIV_SPACE_ERROR, RIV_SPACE_ERROR_STAGE,
                               "Space %s %s (stage %s)%s%s", r->id, words, stage,
                               detail != NULL ? ": " : "", detail != NULL ? detail : "");
      return;
    }
  if (riv_now () + POLL_INTERVAL_MS / 1000.0 > r->deadline)
    {
      g_task_return_new_error (task, RIV_SPACE_ERROR, RIV_SPACE_ERROR_TIMEOUT,
                               "Space %s still %s after %.0f s of waiting (stage %s)", r->id,
                               state == RIV_SPACE_WAKE ? "asleep" :
                               g_str_equal (stage, "BUILDING") ? "building" : "starting",
                               r->wait_s, stage);
      return;
    }
  if (g_strcmp0 (r->stage, stage) != 0)
    {
      g_autofree char *line = g_strdup_printf ("Space %s %s (stage %s); waiting up to %.0f s",
                                               r->id, words, stage, r->wait_s);

      riv_set_str (&r->stage, stage);
      if (r->progress != NULL)
        r->progress (stage, line, r->progress_data);
    }
  if (state == RIV_SPACE_WAKE)
    wake (r);
  /* The timer holds a reference that poll_cb () hands to the next request. */
  r->timer = g_timeout_source_new (POLL_INTERVAL_MS);
  g_source_set_callback (r->timer, poll_cb, g_object_ref (task), NULL);
  g_source_attach (r->timer, g_task_get_context (task));
}

/* A Hub reply's body; NULL after returning the task's error. */
static GBytes *
finish_hub_reply (GTask        *task,
                  SoupSession  *session,
                  GAsyncResult *result)
{
  Resolve *r = g_task_get_task_data (task);
  SoupMessage *msg = soup_session_get_async_result_message (session, result);
  g_autoptr(GError) error = NULL;
  g_autoptr(GBytes) body = soup_session_send_and_read_finish (session, result, &error);

  if (body == NULL)
    {
      if (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
        g_task_return_error (task, g_steal_pointer (&error));
      else
        g_task_return_new_error (task, RIV_SPACE_ERROR, RIV_SPACE_ERROR_HUB,
                                 "Space %s: the Hub at %s could not be reached: %s", r->id,
                                 r->hub, error->message);
      return NULL;
    }
  if (soup_message_get_status (msg) != SOUP_STATUS_OK)
    {
      return_hub_error (task, msg, body);
      return NULL;
    }
  if (g_bytes_get_size (body) > HUB_REPLY_MAX)
    {
      g_task_return_new_error (task, RIV_SPACE_ERROR, RIV_SPACE_ERROR_BAD_REPLY,
                               "Space %s: the Hub's reply is larger than %d KiB", r->id,
                               HUB_REPLY_MAX / 1024);
      return NULL;
    }
  return g_steal_pointer (&body);
}

static void
request_runtime (GTask *task)
{
  Resolve *r = g_task_get_task_data (task);
  g_autoptr(SoupMessage) msg = hub_message (r, "/runtime");

  if (g_task_return_error_if_cancelled (task))
    {
      g_object_unref (task);
      return;
    }
  r->asked_runtime = TRUE;
  soup_session_send_and_read_async (r->session, msg, G_PRIORITY_DEFAULT,
                                    g_task_get_cancellable (task), hub_reply_cb, task);
}

/* The Space's info (its host, maybe its stage) or its runtime (its stage). */
static void
hub_reply_cb (GObject      *object,
              GAsyncResult *result,
              gpointer      user_data)
{
  g_autoptr(GTask) task = user_data;
  Resolve *r = g_task_get_task_data (task);
  g_autoptr(GBytes) body = finish_hub_reply (task, SOUP_SESSION (object), result);
  g_autofree char *stage = NULL;
  g_autofree char *message = NULL;
  g_autoptr(GError) error = NULL;
  gsize length = 0;
  const char *data;

  if (body == NULL)
    return;
  data = g_bytes_get_data (body, &length);
  if (r->asked_runtime ? !riv_space_parse_runtime (data, length, &stage, &message, &error)
                       : !riv_space_parse_info (data, length, &r->host, &stage, &error))
    {
      g_prefix_error (&error, "Space %s: ", r->id);
      g_task_return_error (task, g_steal_pointer (&error));
      return;
    }
  /* The runtime is the stage's own source (the info's may lag); ask it
   * unless the info says the Space is running already. */
  if (!r->asked_runtime && (stage == NULL || riv_space_stage_state (stage) != RIV_SPACE_RUNNING))
    request_runtime (g_steal_pointer (&task));
  else
    handle_stage (task, stage, message);
}

static void
request_info (GTask *task)
{
  Resolve *r = g_task_get_task_data (task);
  g_autoptr(SoupMessage) msg = hub_message (r, "");

  if (msg == NULL)
    {
      g_task_return_new_error (task, RIV_SPACE_ERROR, RIV_SPACE_ERROR_BAD_HUB,
                               "The Hub's address %s does not make a URL with the Space's "
                               "name", r->hub);
      g_object_unref (task);
      return;
    }
  r->deadline = riv_now () + r->wait_s;
  soup_session_send_and_read_async (r->session, msg, G_PRIORITY_DEFAULT,
                                    g_task_get_cancellable (task), hub_reply_cb, task);
}

static void
token_file_cb (GObject      *object,
               GAsyncResult *result,
               gpointer      user_data)
{
  GTask *task = user_data;
  Resolve *r = g_task_get_task_data (task);
  g_autofree char *contents = NULL;
  gsize length = 0;

  /* No file, or one that cannot be read: no token, as huggingface_hub does. */
  if (g_file_load_contents_finish (G_FILE (object), result, &contents, &length, NULL, NULL))
    r->token = length <= TOKEN_FILE_MAX ? riv_text_token_line (contents, length) : NULL;
  request_info (task);
}

void
riv_space_resolve_async (const char           *id,
                         const char           *hub,
                         const char           *token,
                         double                wait_s,
                         RivSpaceProgressFunc  progress,
                         gpointer              progress_data,
                         GDestroyNotify        progress_destroy,
                         GCancellable         *cancellable,
                         GAsyncReadyCallback   callback,
                         gpointer              user_data)
{
  GTask *task = g_task_new (NULL, cancellable, callback, user_data);
  Resolve *r = g_new0 (Resolve, 1);
  g_autoptr(GError) error = NULL;
  const char *env_token = NULL;

  g_task_set_source_tag (task, riv_space_resolve_async);
  r->id = g_strdup (id);
  r->wait_s = MAX (wait_s, 0);
  r->progress = progress;
  r->progress_data = progress_data;
  r->progress_destroy = progress_destroy;
  r->session = soup_session_new_with_options ("timeout", HUB_TIMEOUT_S,
                                              "user-agent", "rivulet/" PACKAGE_VERSION, NULL);
  g_task_set_task_data (task, r, (GDestroyNotify) resolve_free);

  r->hub = hub != NULL ? g_strdup (hub) : riv_space_hub_from_env (&error);
  if (r->hub == NULL)
    {
      g_task_return_error (task, g_steal_pointer (&error));
      g_object_unref (task);
      return;
    }
  if (token != NULL)
    {
      r->token = *token != '\0' ? g_strdup (token) : NULL;
      request_info (task);
      return;
    }
  if ((env_token = g_getenv ("HF_TOKEN")) == NULL || *env_token == '\0')
    env_token = g_getenv ("HUGGING_FACE_HUB_TOKEN");   /* huggingface_hub's older name */
  if (env_token != NULL && *env_token != '\0')
    {
      r->token = g_strstrip (g_strdup (env_token));
      request_info (task);
      return;
    }
  {
    g_autofree char *path = riv_space_token_path ();
    g_autoptr(GFile) file = g_file_new_for_path (path);

    g_file_load_contents_async (file, cancellable, token_file_cb, task);
  }
}

char *
riv_space_resolve_finish (GAsyncResult  *result,
                          char         **token,
                          GError       **error)
{
  GTask *task = G_TASK (result);
  char *url;

  g_return_val_if_fail (g_task_is_valid (result, NULL), NULL);
  url = g_task_propagate_pointer (task, error);
  if (token != NULL)
    {
      Resolve *r = g_task_get_task_data (task);

      *token = url != NULL && r->token != NULL ? g_strdup (r->token) : NULL;
    }
  return url;
}
