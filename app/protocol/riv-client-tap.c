/* riv-client-tap.c
 * Copyright 2026 The Rivulet authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The client's tap (riv_client_set_tap): each request it sends, each reply,
 * stream frame and stream end, as a tap event (riv-tap.h), for
 * recording and lint. Call sites test RIV_CLIENT_TAPPED() first, so an unset
 * tap costs one pointer test.
 */
#include "config.h"

#include "riv-client-private.h"
#include "riv-compat.h"

/* The request's number on its message, so that the reply can name it. */
static G_DEFINE_QUARK (riv-client-tap-id, tap_id)

void
riv_client_set_tap (RivClient         *self,
                    RivTapFunc         func,
                    gpointer           user_data)
{
  g_return_if_fail (RIV_IS_CLIENT (self));

  self->tap.func = func;
  self->tap.data = func != NULL ? user_data : NULL;
}

static char *
message_path (SoupMessage *msg)
{
  GUri *uri = soup_message_get_uri (msg);
  const char *path = g_uri_get_path (uri);

  if (path == NULL || path[0] == '\0')
    path = "/";
  if (g_uri_get_query (uri) != NULL)
    return g_strconcat (path, "?", g_uri_get_query (uri), NULL);
  return g_strdup (path);
}

void
_riv_client_tap_request (RivClient   *self,
                         SoupMessage *msg,
                         guint        stream,
                         const char  *body,
                         gsize        len)
{
  g_autofree char *path = message_path (msg);
  RivTapEvent event = {
    .kind = RIV_TAP_REQUEST,
    .t = riv_now (),
    .id = ++self->tap.ids,
    .stream = stream,
    .method = soup_message_get_method (msg),
    .path = path,
    .text = body,
    .text_len = body != NULL ? len : 0,
  };

  g_object_set_qdata (G_OBJECT (msg), tap_id_quark (), GSIZE_TO_POINTER ((gsize) event.id));
  self->tap.func (&event, self->tap.data);
}

void
_riv_client_tap_response (RivClient   *self,
                          SoupMessage *msg,
                          guint        stream,
                          GBytes      *body)
{
  _riv_client_tap_reply (self, msg, _riv_client_reply_status (msg), stream, body);
}

/* The reply to msg had this status: for a reply read without libsoup (a
 * direct stream), whose message was never sent. */
void
_riv_client_tap_reply (RivClient   *self,
                       SoupMessage *msg,
                       guint        status,
                       guint        stream,
                       GBytes      *body)
{
  g_autofree char *path = NULL;
  RivTapEvent event = { 0 };
  gsize id = GPOINTER_TO_SIZE (g_object_get_qdata (G_OBJECT (msg), tap_id_quark ()));

  /* A transport error has no reply to record; a request sent before the
   * tap was set has no number. */
  if (id == 0 || status < 100 || status > 599)
    return;

  path = message_path (msg);
  event.kind = RIV_TAP_RESPONSE;
  event.t = riv_now ();
  event.id = id;
  event.stream = stream;
  event.method = soup_message_get_method (msg);
  event.path = path;
  event.status = status;
  if (body != NULL)
    event.text = g_bytes_get_data (body, &event.text_len);
  self->tap.func (&event, self->tap.data);
}

void
_riv_client_tap_frame (RivClient        *self,
                       guint             stream,
                       const char       *data,
                       gsize             len,
                       RivMessage       *message)
{
  RivTapEvent event = {
    .kind = RIV_TAP_SSE,
    .t = riv_now (),
    .stream = stream,
    .text = data,
    .text_len = len,
    .message = message,
  };

  self->tap.func (&event, self->tap.data);
}

void
_riv_client_tap_end (RivClient        *self,
                     guint             stream,
                     RivTapEnd         end)
{
  RivTapEvent event = {
    .kind = RIV_TAP_SSE_END,
    .t = riv_now (),
    .stream = stream,
    .end = end,
  };

  self->tap.func (&event, self->tap.data);
}
