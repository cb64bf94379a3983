/* riv-inbox.c
 * Copyright 2026 The Rivulet authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "config.h"

#include "riv-inbox.h"

typedef struct
{
  RivInboxFunc func;
  gpointer     data;
} InboxItem;

typedef struct
{
  GSource   source;
  RivInbox *inbox;
} InboxSource;

struct _RivInbox
{
  GMutex   lock;
  GArray  *posted;       /* InboxItem, guarded by lock */
  GArray  *running;      /* InboxItem, context thread only */
  gboolean wake_pending; /* guarded by lock */
  GSource *source;       /* owned */
};

static gboolean
inbox_dispatch (GSource     *source,
                GSourceFunc  callback,
                gpointer     user_data)
{
  InboxSource *self = (InboxSource *) source;

  /* Disarm before taking the items: a post that lands after the swap
   * re-arms the source, so no wake-up is lost. */
  g_source_set_ready_time (source, -1);
  riv_inbox_flush (self->inbox, FALSE);
  return G_SOURCE_CONTINUE;
}

static GSourceFuncs inbox_source_funcs = {
  NULL, NULL, inbox_dispatch, NULL, NULL, NULL,
};

RivInbox *
riv_inbox_new (GMainContext *context)
{
  RivInbox *self = g_new0 (RivInbox, 1);
  InboxSource *source;

  g_mutex_init (&self->lock);
  self->posted = g_array_new (FALSE, FALSE, sizeof (InboxItem));
  self->running = g_array_new (FALSE, FALSE, sizeof (InboxItem));

  source = (InboxSource *) g_source_new (&inbox_source_funcs, sizeof (InboxSource));
  source->inbox = self;
  g_source_set_name ((GSource *) source, "[rivulet] worker inbox");
  g_source_set_ready_time ((GSource *) source, -1);
  g_source_attach ((GSource *) source, context);
  self->source = (GSource *) source;

  return self;
}

void
riv_inbox_post (RivInbox     *self,
                RivInboxFunc  func,
                gpointer      data)
{
  InboxItem item = { func, data };
  gboolean wake;

  g_mutex_lock (&self->lock);
  g_array_append_val (self->posted, item);
  wake = !self->wake_pending;
  self->wake_pending = TRUE;
  g_mutex_unlock (&self->lock);

  if (wake && self->source != NULL)
    g_source_set_ready_time (self->source, 0);
}

void
riv_inbox_flush (RivInbox *self,
                 gboolean  discard)
{
  GArray *items;

  /* Called again from inside one of its own functions: the outer call (or
   * the next dispatch) takes care of what was posted meanwhile. */
  if (self->running == NULL)
    return;

  g_mutex_lock (&self->lock);
  items = self->posted;
  self->posted = self->running;
  self->running = NULL;
  self->wake_pending = FALSE;
  g_mutex_unlock (&self->lock);

  /* A function may post again (it then lands in the other array). */
  for (guint i = 0; i < items->len; i++)
    {
      InboxItem *item = &g_array_index (items, InboxItem, i);

      item->func (item->data, discard);
    }
  /* Drop a large array after a burst instead of keeping its memory. */
  if (items->len > 4096)
    {
      g_array_unref (items);
      items = g_array_new (FALSE, FALSE, sizeof (InboxItem));
    }
  else
    g_array_set_size (items, 0);
  self->running = items;
}

void
riv_inbox_free (RivInbox *self)
{
  if (self == NULL)
    return;

  g_source_destroy (self->source);
  g_clear_pointer (&self->source, g_source_unref);
  /* Discarding may post more (freeing a run can post nothing, but be safe). */
  while (TRUE)
    {
      gboolean empty;

      g_mutex_lock (&self->lock);
      empty = self->posted->len == 0;
      g_mutex_unlock (&self->lock);
      if (empty)
        break;
      riv_inbox_flush (self, TRUE);
    }
  g_array_unref (self->posted);
  g_array_unref (self->running);
  g_mutex_clear (&self->lock);
  g_free (self);
}
