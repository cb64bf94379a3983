/* riv-util.c
 * Copyright 2026 The Rivulet authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "config.h"

#include <errno.h>
#include <math.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "riv-json-read.h"
#include "riv-util.h"

gboolean
riv_set_str (char       **str_pointer,
             const char  *new_str)
{
  char *copy;

  g_return_val_if_fail (str_pointer != NULL, FALSE);

  if (*str_pointer == new_str || g_strcmp0 (*str_pointer, new_str) == 0)
    return FALSE;

  copy = g_strdup (new_str);
  g_free (*str_pointer);
  *str_pointer = copy;

  return TRUE;
}

/* glibc's malloc tunable (2.35 and later; older ones ignore it) that backs the
 * heap with transparent huge pages where the kernel allows them (madvise). */
#define HUGE_PAGES_TUNABLE "glibc.malloc.hugetlb=1"

void
riv_prefer_system_malloc (char     **argv,
                          gboolean   huge_pages)
{
  const char *tunables = g_getenv ("GLIBC_TUNABLES");
  gboolean want_slice = glib_check_version (2, 76, 0) != NULL && g_getenv ("G_SLICE") == NULL;
  const char *preload = g_getenv ("LD_PRELOAD");
  /* A hugetlb setting already there is the user's, or ours after the
   * re-execution. Under valgrind (its preload library) malloc is valgrind's,
   * and valgrind refuses to follow the re-execution. */
  gboolean want_huge = huge_pages &&
                       (tunables == NULL || strstr (tunables, "glibc.malloc.hugetlb") == NULL) &&
                       (preload == NULL || strstr (preload, "vgpreload") == NULL);

  /* Only getenv/setenv/execv: GLib's slice allocator is already running
   * (its constructors allocate), so it cannot be reconfigured in place, and
   * glibc reads its tunables once, at start. */
  if (!(want_slice || want_huge) || argv == NULL || argv[0] == NULL)
    return;

  if (want_slice)
    g_setenv ("G_SLICE", "always-malloc", TRUE);
  if (want_huge)
    {
      g_autofree char *value = tunables != NULL && *tunables != '\0'
        ? g_strconcat (tunables, ":", HUGE_PAGES_TUNABLE, NULL)
        : g_strdup (HUGE_PAGES_TUNABLE);

      g_setenv ("GLIBC_TUNABLES", value, TRUE);
    }
  execv ("/proc/self/exe", argv);
}

double
riv_now (void)
{
  return g_get_monotonic_time () / (double) G_USEC_PER_SEC;
}

char *
riv_json_to_string (JsonNode *node,
                    gsize    *length)
{
  g_autoptr(JsonGenerator) gen = json_generator_new ();

  json_generator_set_root (gen, node);
  return json_generator_to_data (gen, length);
}

guint
riv_int64_hash (gconstpointer v)
{
  guint64 x = *(const guint64 *) v;

  /* The finalizer of MurmurHash3: every input bit moves every output bit. */
  x ^= x >> 33;
  x *= G_GUINT64_CONSTANT (0xff51afd7ed558ccd);
  x ^= x >> 33;
  x *= G_GUINT64_CONSTANT (0xc4ceb9fe1a85ec53);
  x ^= x >> 33;
  return (guint) x;
}

const char *
riv_json_get_string (JsonObject *object,
                     const char *member)
{
  JsonNode *node;

  if (object == NULL || !(node = json_object_get_member (object, member)))
    return NULL;
  if (JSON_NODE_HOLDS_VALUE (node) && json_node_get_value_type (node) == G_TYPE_STRING)
    return json_node_get_string (node);
  return NULL;
}

gboolean
riv_json_get_double (JsonObject *object,
                     const char *member,
                     double     *out)
{
  JsonNode *node;
  GType type;

  if (object == NULL || !(node = json_object_get_member (object, member)) ||
      !JSON_NODE_HOLDS_VALUE (node))
    return FALSE;

  type = json_node_get_value_type (node);
  if (type == G_TYPE_DOUBLE)
    *out = json_node_get_double (node);
  else if (type == G_TYPE_INT64)
    *out = (double) json_node_get_int (node);
  else
    return FALSE;
  return TRUE;
}

gboolean
riv_json_get_int (JsonObject *object,
                  const char *member,
                  gint64     *out)
{
  JsonNode *node;
  GType type;

  if (object == NULL || !(node = json_object_get_member (object, member)) ||
      !JSON_NODE_HOLDS_VALUE (node))
    return FALSE;

  type = json_node_get_value_type (node);
  if (type == G_TYPE_INT64)
    *out = json_node_get_int (node);
  else if (type == G_TYPE_DOUBLE)
    {
      double d = json_node_get_double (node);

      /* Converting an out-of-range double to an integer is undefined. */
      if (!(d >= -9.2e18 && d <= 9.2e18))
        return FALSE;
      *out = (gint64) d;
    }
  else
    return FALSE;
  return TRUE;
}

gboolean
riv_json_get_bool (JsonObject *object,
                   const char *member,
                   gboolean    default_value)
{
  JsonNode *node;

  if (object == NULL || !(node = json_object_get_member (object, member)) ||
      !JSON_NODE_HOLDS_VALUE (node) || json_node_get_value_type (node) != G_TYPE_BOOLEAN)
    return default_value;
  return json_node_get_boolean (node);
}

#define RIV_PLACEHOLDER "{i}"
#define RIV_USER_PLACEHOLDER "{u}"

gboolean
riv_json_has_placeholder (JsonNode *node)
{
  if (node == NULL)
    return FALSE;

  switch (json_node_get_node_type (node))
    {
    case JSON_NODE_VALUE:
      return json_node_get_value_type (node) == G_TYPE_STRING &&
             strstr (json_node_get_string (node), RIV_PLACEHOLDER) != NULL;

    case JSON_NODE_ARRAY:
      {
        JsonArray *array = json_node_get_array (node);

        for (guint i = 0; i < json_array_get_length (array); i++)
          if (riv_json_has_placeholder (json_array_get_element (array, i)))
            return TRUE;
        return FALSE;
      }

    case JSON_NODE_OBJECT:
      {
        JsonObjectIter iter;
        JsonNode *value;

        json_object_iter_init (&iter, json_node_get_object (node));
        while (json_object_iter_next (&iter, NULL, &value))
          if (riv_json_has_placeholder (value))
            return TRUE;
        return FALSE;
      }

    case JSON_NODE_NULL:
    default:
      return FALSE;
    }
}

/* user_text NULL leaves "{u}" alone. */
static JsonNode *
substitute (JsonNode   *node,
            const char *index_text,
            const char *user_text)
{
  switch (json_node_get_node_type (node))
    {
    case JSON_NODE_VALUE:
      if (json_node_get_value_type (node) == G_TYPE_STRING &&
          (strstr (json_node_get_string (node), RIV_PLACEHOLDER) != NULL ||
           (user_text != NULL && strstr (json_node_get_string (node), RIV_USER_PLACEHOLDER) != NULL)))
        {
          g_autoptr(GString) text = g_string_new (json_node_get_string (node));

          g_string_replace (text, RIV_PLACEHOLDER, index_text, 0);
          if (user_text != NULL)
            g_string_replace (text, RIV_USER_PLACEHOLDER, user_text, 0);
          return json_node_init_string (json_node_alloc (), text->str);
        }
      return json_node_copy (node);

    case JSON_NODE_ARRAY:
      {
        JsonArray *array = json_node_get_array (node);
        g_autoptr(JsonArray) copy = json_array_sized_new (json_array_get_length (array));

        for (guint i = 0; i < json_array_get_length (array); i++)
          json_array_add_element (copy, substitute (json_array_get_element (array, i),
                                                    index_text, user_text));
        return json_node_init_array (json_node_alloc (), copy);
      }

    case JSON_NODE_OBJECT:
      {
        g_autoptr(JsonObject) copy = json_object_new ();
        JsonObjectIter iter;
        const char *member;
        JsonNode *value;

        json_object_iter_init (&iter, json_node_get_object (node));
        while (json_object_iter_next (&iter, &member, &value))
          json_object_set_member (copy, member, substitute (value, index_text, user_text));
        return json_node_init_object (json_node_alloc (), copy);
      }

    case JSON_NODE_NULL:
    default:
      return json_node_copy (node);
    }
}

JsonNode *
riv_json_substitute_index (JsonNode *node,
                           guint64   index)
{
  char index_text[24];

  g_return_val_if_fail (node != NULL, NULL);

  g_snprintf (index_text, sizeof index_text, "%" G_GUINT64_FORMAT, index);
  return substitute (node, index_text, NULL);
}

JsonNode *
riv_json_substitute_index_user (JsonNode *node,
                                guint64   index,
                                guint     user)
{
  char index_text[24];
  char user_text[16];

  g_return_val_if_fail (node != NULL, NULL);

  g_snprintf (index_text, sizeof index_text, "%" G_GUINT64_FORMAT, index);
  g_snprintf (user_text, sizeof user_text, "%u", user);
  return substitute (node, index_text, user_text);
}

GSocket *
riv_listen_socket (GSocketAddress  *address,
                   int              backlog,
                   guint           *port,
                   GError         **error)
{
  g_autoptr(GSocket) socket = NULL;
  g_autoptr(GSocketAddress) local = NULL;

  socket = g_socket_new (g_socket_address_get_family (address), G_SOCKET_TYPE_STREAM,
                         G_SOCKET_PROTOCOL_DEFAULT, error);
  if (socket == NULL)
    return NULL;
  if (backlog > 0)
    g_socket_set_listen_backlog (socket, backlog);
  if (!g_socket_bind (socket, address, TRUE, error) || !g_socket_listen (socket, error))
    return NULL;
  local = g_socket_get_local_address (socket, error);
  if (local == NULL)
    return NULL;
  *port = g_inet_socket_address_get_port (G_INET_SOCKET_ADDRESS (local));
  return g_steal_pointer (&socket);
}

void
riv_raise_fd_limit (void)
{
  struct rlimit limit;

  if (getrlimit (RLIMIT_NOFILE, &limit) == 0 && limit.rlim_cur < limit.rlim_max)
    {
      limit.rlim_cur = limit.rlim_max;
      if (setrlimit (RLIMIT_NOFILE, &limit) != 0)
        g_debug ("Could not raise the open-file limit: %s", g_strerror (errno));
    }
}

double
riv_nice_ceiling (double value)
{
  double power, fraction;

  if (!(value > 0))
    return 1;
  power = pow (10, floor (log10 (value)));
  fraction = value / power;
  if (fraction <= 1)
    return power;
  if (fraction <= 2)
    return 2 * power;
  if (fraction <= 5)
    return 5 * power;
  return 10 * power;
}
