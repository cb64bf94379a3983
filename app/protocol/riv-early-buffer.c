/* riv-early-buffer.c
 * Copyright 2026 The Rivulet authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "config.h"

#include "riv-compat.h"
#include "riv-early-buffer.h"

/* Ids whose early messages were dropped are remembered until no join reply
 * can still name them (join timeout + margin); the cap only bounds memory
 * under a flood, and overflowing it makes older joins fail safe (see
 * riv_early_buffer_lost). */
#define POISONED_MAX          65536
#define EARLY_EXPIRY_MARGIN_S 5.0

struct _RivEarlyBuffer
{
  GHashTable *entries;            /* event id → EarlyEntry (owned) */
  GQueue      order;              /* EarlyEntry links, oldest first */
  GHashTable *poisoned;           /* ids whose early messages were dropped */
  GQueue      poisoned_order;     /* Poisoned (owned), oldest first */
  double      poison_overflow_at; /* last time a poisoned id was forgotten early; 0 never */
  double      join_timeout;       /* as of the last add */
  gsize       bytes;
  guint64     dropped;
  guint       count;
};

/* A message buffered for an event id not known yet. */
typedef struct
{
  GList     link;       /* in order; data points to this entry */
  char     *event_id;
  GQueue    messages;   /* RivMessage* */
  gsize     bytes;
  double    created_at;
} EarlyEntry;

static void
early_entry_free (EarlyEntry *entry)
{
  g_queue_clear_full (&entry->messages, (GDestroyNotify) riv_message_free);
  g_free (entry->event_id);
  g_free (entry);
}

typedef struct
{
  const char *event_id;   /* borrowed: the key in self->poisoned */
  double      time;
} Poisoned;

static void
poison (RivEarlyBuffer *self,
        const char     *event_id)
{
  double now = riv_now ();
  double expiry = MAX (self->join_timeout, 1.0) + EARLY_EXPIRY_MARGIN_S;
  Poisoned *entry;
  char *copy;

  /* Forget ids no join reply can name any more; past the cap, forget the
   * oldest anyway and remember that it happened. */
  while (self->poisoned_order.length > 0)
    {
      Poisoned *head = g_queue_peek_head (&self->poisoned_order);

      if (now - head->time <= expiry && self->poisoned_order.length < POISONED_MAX)
        break;
      if (now - head->time <= expiry)
        self->poison_overflow_at = now;
      g_queue_pop_head (&self->poisoned_order);
      g_hash_table_remove (self->poisoned, head->event_id);
      g_free (head);
    }

  if (g_hash_table_contains (self->poisoned, event_id))
    return;

  copy = g_strdup (event_id);
  g_hash_table_add (self->poisoned, copy);
  entry = g_new (Poisoned, 1);
  entry->event_id = copy;
  entry->time = now;
  g_queue_push_tail (&self->poisoned_order, entry);
}

/* Removes an entry from every index; returns it for the caller to free. */
static EarlyEntry *
early_unlink (RivEarlyBuffer *self,
              EarlyEntry     *entry)
{
  g_queue_unlink (&self->order, &entry->link);
  g_hash_table_steal (self->entries, entry->event_id);
  self->count -= entry->messages.length;
  self->bytes -= entry->bytes;
  return entry;
}

static void
early_drop (RivEarlyBuffer *self,
            EarlyEntry     *entry,
            const char     *why)
{
  guint n = entry->messages.length;

  self->dropped += n;
  if (self->dropped == n || self->dropped / 1000 != (self->dropped - n) / 1000)
    g_message ("Dropped %u buffered message(s) for unknown event id %s (%s); %" G_GUINT64_FORMAT
               " dropped so far", n, entry->event_id, why, self->dropped);
  else if (self->dropped <= 100)
    g_debug ("Dropped %u buffered message(s) for unknown event id %s (%s)",
             n, entry->event_id, why);

  poison (self, entry->event_id);
  early_entry_free (early_unlink (self, entry));
}

void
riv_early_buffer_add (RivEarlyBuffer *self,
                      RivMessage     *msg,
                      gsize           frame_len,
                      double          join_timeout)
{
  double now = riv_now ();
  double expiry;
  gsize cost;
  EarlyEntry *entry;

  self->join_timeout = join_timeout;
  expiry = MAX (self->join_timeout, 1.0) + EARLY_EXPIRY_MARGIN_S;
  cost = frame_len + sizeof (RivMessage) + 64;

  /* Expire entries no join reply can claim any more (joins time out). */
  while (self->order.head != NULL)
    {
      EarlyEntry *oldest = self->order.head->data;

      if (now - oldest->created_at < expiry)
        break;
      early_drop (self, oldest, "expired");
    }

  entry = g_hash_table_lookup (self->entries, msg->event_id);
  if (entry == NULL)
    {
      entry = g_new0 (EarlyEntry, 1);
      entry->event_id = g_strdup (msg->event_id);
      entry->link.data = entry;
      entry->created_at = now;
      g_queue_init (&entry->messages);
      g_hash_table_insert (self->entries, entry->event_id, entry);
      g_queue_push_tail_link (&self->order, &entry->link);
    }

  g_queue_push_tail (&entry->messages, msg);
  entry->bytes += cost;
  self->count++;
  self->bytes += cost;

  /* Over a bound: drop whole ids, oldest first (a partial diff stream would be
   * useless). The newest entry goes last, and only if it alone is too big. */
  while ((self->count > RIV_EARLY_BUFFER_MAX_MESSAGES ||
          self->bytes > RIV_EARLY_BUFFER_MAX_BYTES ||
          g_hash_table_size (self->entries) > RIV_EARLY_BUFFER_MAX_IDS) &&
         self->order.head != NULL)
    early_drop (self, self->order.head->data, "early buffer full");
}


RivEarlyBuffer *
riv_early_buffer_new (void)
{
  RivEarlyBuffer *self = g_new0 (RivEarlyBuffer, 1);

  self->entries = g_hash_table_new_full (g_str_hash, g_str_equal, NULL,
                                         (GDestroyNotify) early_entry_free);
  self->poisoned = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  g_queue_init (&self->order);
  g_queue_init (&self->poisoned_order);
  return self;
}

void
riv_early_buffer_free (RivEarlyBuffer *self)
{
  if (self == NULL)
    return;

  /* The queue links live in the entries. */
  g_clear_pointer (&self->entries, g_hash_table_unref);
  g_queue_clear_full (&self->poisoned_order, g_free);
  g_clear_pointer (&self->poisoned, g_hash_table_unref);
  g_free (self);
}

void
riv_early_buffer_take (RivEarlyBuffer *self,
                       const char     *event_id,
                       GQueue         *messages)
{
  EarlyEntry *entry = g_hash_table_lookup (self->entries, event_id);
  RivMessage *msg;

  if (entry == NULL)
    return;

  early_unlink (self, entry);
  while ((msg = g_queue_pop_head (&entry->messages)) != NULL)
    g_queue_push_tail (messages, msg);
  early_entry_free (entry);
}

gboolean
riv_early_buffer_lost (RivEarlyBuffer *self,
                       const char     *event_id,
                       gboolean        nothing_taken,
                       double          submitted_at)
{
  /* When a flood made the buffer forget dropped ids, a job that was already
   * joining then and has nothing buffered may be one of them. */
  return g_hash_table_contains (self->poisoned, event_id) ||
         (nothing_taken && self->poison_overflow_at > 0 &&
          submitted_at <= self->poison_overflow_at);
}

void
riv_early_buffer_clear (RivEarlyBuffer *self)
{
  g_hash_table_remove_all (self->entries);
  g_queue_init (&self->order);
  self->count = 0;
  self->bytes = 0;
}

guint
riv_early_buffer_get_n_messages (RivEarlyBuffer *self)
{
  return self->count;
}

gsize
riv_early_buffer_get_bytes (RivEarlyBuffer *self)
{
  return self->bytes;
}

guint64
riv_early_buffer_get_n_dropped (RivEarlyBuffer *self)
{
  return self->dropped;
}
