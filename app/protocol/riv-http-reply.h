/* riv-http-reply.h
 * Copyright 2026 The Rivulet authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* How far an HTTP/1 reply has been read. */
typedef enum
{
  RIV_HTTP_REPLY_HEAD,   /* the status line and the headers */
  RIV_HTTP_REPLY_BODY,
  RIV_HTTP_REPLY_END,    /* the body's end came (its last chunk, or its length) */
} RivHttpReplyState;

typedef struct _RivHttpReply RivHttpReply;

RivHttpReply     *riv_http_reply_new         (void);
void              riv_http_reply_free        (RivHttpReply *self);
gssize            riv_http_reply_feed        (RivHttpReply *self,
                                              char         *buf,
                                              gsize         n,
                                              GError      **error);
RivHttpReplyState riv_http_reply_get_state   (RivHttpReply *self);
guint             riv_http_reply_get_status  (RivHttpReply *self);
const char       *riv_http_reply_get_reason  (RivHttpReply *self);
gboolean          riv_http_reply_ends_at_eof (RivHttpReply *self);
gint64            riv_http_reply_get_length  (RivHttpReply *self);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (RivHttpReply, riv_http_reply_free)

G_END_DECLS
