/* riv-transcript-tap.c
 * Copyright 2026 The Rivulet authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "config.h"

#include "riv-transcript-tap.h"

/* Request ids and stream numbers of the n-th client tapped are moved up by
 * n times these, so that the clients' numbers never meet in one transcript. */
#define ID_STRIDE     ((guint64) 1 << 40)
#define STREAM_STRIDE 100000

typedef struct
{
  RivTranscriptTap *tap;
  RivClient        *client;   /* owned */
  RivLint          *lint;     /* borrowed, nullable */
  guint             n;        /* position among the clients ever added */
} Entry;

struct _RivTranscriptTap
{
  GHashTable          *entries;   /* RivClient* -> Entry*, owned */
  RivTranscriptWriter *writer;    /* owned, nullable */
  RivClient           *only;      /* nullable: the one client the writer hears */
  gboolean             filtered;  /* the writer hears only `only` (none once it went) */
  RivTapFunc           after;
  gpointer             after_data;
  guint                n_added;
};

static void
entry_free (gpointer data)
{
  Entry *entry = data;

  riv_client_set_tap (entry->client, NULL, NULL);
  g_object_unref (entry->client);
  g_free (entry);
}

RivTranscriptTap *
riv_transcript_tap_new (void)
{
  RivTranscriptTap *self = g_new0 (RivTranscriptTap, 1);

  self->entries = g_hash_table_new_full (NULL, NULL, NULL, entry_free);
  return self;
}

void
riv_transcript_tap_free (RivTranscriptTap *self)
{
  if (self == NULL)
    return;
  g_hash_table_unref (self->entries);
  if (self->writer != NULL)
    riv_transcript_writer_close (g_steal_pointer (&self->writer), NULL);
  g_free (self);
}

void
riv_transcript_tap_set_writer (RivTranscriptTap    *self,
                               RivTranscriptWriter *writer)
{
  g_return_if_fail (self != NULL);
  g_return_if_fail (self->writer == NULL);

  self->writer = writer;
}

RivTranscriptWriter *
riv_transcript_tap_get_writer (RivTranscriptTap *self)
{
  g_return_val_if_fail (self != NULL, NULL);

  return self->writer;
}

RivTranscriptWriter *
riv_transcript_tap_steal_writer (RivTranscriptTap *self)
{
  g_return_val_if_fail (self != NULL, NULL);

  self->only = NULL;
  self->filtered = FALSE;
  return g_steal_pointer (&self->writer);
}

static void
tap_cb (const RivTapEvent *event,
        gpointer                  user_data)
{
  Entry *entry = user_data;
  RivTranscriptTap *self = entry->tap;
  RivTapEvent moved = *event;

  if (entry->n > 0)
    {
      if (moved.kind == RIV_TAP_REQUEST || moved.kind == RIV_TAP_RESPONSE)
        moved.id += entry->n * ID_STRIDE;
      if (moved.stream > 0)
        moved.stream += entry->n * STREAM_STRIDE;
    }
  if (self->writer != NULL && (!self->filtered || self->only == entry->client))
    riv_transcript_writer_add (self->writer, &moved);
  if (entry->lint != NULL)
    riv_lint_feed (entry->lint, &moved);
  if (self->after != NULL)
    self->after (&moved, self->after_data);
}

void
riv_transcript_tap_add_client (RivTranscriptTap *self,
                               RivClient        *client,
                               RivLint          *lint)
{
  Entry *entry;

  g_return_if_fail (self != NULL);
  g_return_if_fail (RIV_IS_CLIENT (client));

  /* Looked up, not searched: a load run adds every one of its users. */
  if ((entry = g_hash_table_lookup (self->entries, client)) != NULL)
    {
      entry->lint = lint;
      return;
    }
  entry = g_new0 (Entry, 1);
  entry->tap = self;
  entry->client = g_object_ref (client);
  entry->lint = lint;
  entry->n = self->n_added++;
  g_hash_table_insert (self->entries, client, entry);
  riv_client_set_tap (client, tap_cb, entry);
}

void
riv_transcript_tap_remove_client (RivTranscriptTap *self,
                                  RivClient        *client)
{
  g_return_if_fail (self != NULL);

  if (client == NULL)
    return;
  if (client == self->only)
    self->only = NULL;
  g_hash_table_remove (self->entries, client);
}

void
riv_transcript_tap_remove_clients (RivTranscriptTap *self)
{
  g_return_if_fail (self != NULL);

  self->only = NULL;   /* still filtered: the writer hears nobody */
  g_hash_table_remove_all (self->entries);
}

void
riv_transcript_tap_write_only (RivTranscriptTap *self,
                               RivClient        *client)
{
  g_return_if_fail (self != NULL);

  self->only = client;
  self->filtered = client != NULL;
}

void
riv_transcript_tap_set_after (RivTranscriptTap  *self,
                              RivTapFunc         func,
                              gpointer           user_data)
{
  g_return_if_fail (self != NULL);

  self->after = func;
  self->after_data = func != NULL ? user_data : NULL;
}
