/* riv-fetch.c
 * Copyright 2026 The Rivulet authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "config.h"

#include <glib/gi18n.h>
#include <libsoup/soup.h>

#include "riv-fetch.h"

static SoupSession *
riv_fetch_get_session (void)
{
  static SoupSession *session;

  /* Main thread only, like every caller. */
  if (session == NULL)
    session = soup_session_new_with_options ("timeout", 60, NULL);
  return session;
}

static void
riv_fetch_read_cb (GObject      *object,
                   GAsyncResult *result,
                   gpointer      user_data)
{
  g_autoptr(GTask) task = user_data;
  SoupMessage *message = g_task_get_task_data (task);
  g_autoptr(GError) error = NULL;
  g_autoptr(GBytes) bytes = NULL;
  guint status;

  bytes = soup_session_send_and_read_finish (SOUP_SESSION (object), result, &error);
  if (bytes == NULL)
    {
      g_task_return_error (task, g_steal_pointer (&error));
      return;
    }
  status = soup_message_get_status (message);
  if (!SOUP_STATUS_IS_SUCCESSFUL (status))
    g_task_return_new_error (task, G_IO_ERROR, G_IO_ERROR_FAILED, _("HTTP error %u (%s)"),
                             status, soup_status_get_phrase (status));
  else if (g_bytes_get_size (bytes) > RIV_FETCH_MAX_BYTES)
    g_task_return_new_error (task, G_IO_ERROR, G_IO_ERROR_MESSAGE_TOO_LARGE,
                             _("The file is larger than %u MiB"), RIV_FETCH_MAX_BYTES >> 20);
  else
    g_task_return_pointer (task, g_steal_pointer (&bytes), (GDestroyNotify) g_bytes_unref);
}

void
riv_fetch_bytes_async (RivClient           *client,
                       const char          *url,
                       GCancellable        *cancellable,
                       GAsyncReadyCallback  callback,
                       gpointer             user_data)
{
  g_autoptr(GTask) task = g_task_new (NULL, cancellable, callback, user_data);
  SoupMessage *message = url != NULL ? soup_message_new (SOUP_METHOD_GET, url) : NULL;

  g_task_set_source_tag (task, riv_fetch_bytes_async);
  if (message == NULL)
    {
      g_task_return_new_error (task, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT,
                               _("Not a valid file address: %s"), url != NULL ? url : "");
      return;
    }
  if (client != NULL)
    riv_client_authorize_request (client, message);
  g_task_set_task_data (task, message, g_object_unref);
  soup_session_send_and_read_async (riv_fetch_get_session (), message, G_PRIORITY_DEFAULT,
                                    cancellable, riv_fetch_read_cb, g_steal_pointer (&task));
}

GBytes *
riv_fetch_bytes_finish (GAsyncResult  *result,
                        GError       **error)
{
  g_return_val_if_fail (g_task_is_valid (result, NULL), NULL);
  return g_task_propagate_pointer (G_TASK (result), error);
}
