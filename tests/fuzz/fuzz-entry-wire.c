/* fuzz-entry-wire.c
 * Copyright 2026 The Rivulet authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The server writes frames as text (riv-wire.c); the client reads them with
 * RivSseReader and riv_message_parse(). This target checks that what one
 * writes the other reads back unchanged.
 *
 * Input: byte 0 holds flags, bytes 1-24 three 64-bit numbers (as integers
 * and as doubles), the rest is text.
 *
 * Oracles:
 *  - an unexpected_error frame with the text as message is one SSE event
 *    that parses to that message (for UTF-8 text), session_not_found and
 *    success false;
 *  - riv_wire_append_string() of UTF-8 text (NULs included, given a length)
 *    is a JSON string that parses back to the text up to its first NUL;
 *  - riv_wire_append_double/_eta(): null exactly for non-finite (and, for
 *    an ETA, negative) values, else a number within %.6g of the value;
 *  - an estimation frame rendered from the numbers reads back with the same
 *    rank, queue size and ETA; a batch member reads back with the same id,
 *    size and index, and is absent for a batch id <= 0.
 */
#include "config.h"

#include <math.h>
#include <string.h>

#include "fuzz-entry.h"
#include "riv-json.h"
#include "riv-message.h"
#include "riv-sse-reader.h"
#include "riv-wire.h"

typedef struct
{
  guint       n_events;
  RivMessage *message;
} ReadBack;

static JsonParser *parser;

static void
read_back_cb (const char *event_type,
              const char *data,
              gsize       len,
              gpointer    user_data)
{
  ReadBack *rb = user_data;
  g_autoptr(GError) error = NULL;

  rb->n_events++;
  RIV_FUZZ_CHECK (event_type == NULL, "frame with an event type");
  g_clear_pointer (&rb->message, riv_message_free);
  rb->message = riv_message_parse (parser, data, len, &error);
  RIV_FUZZ_CHECK (rb->message != NULL, "the client cannot parse the server's frame %.300s: %s",
                  data, error->message);
}

/* The message in a frame, read as RivClient reads it. */
static RivMessage *
read_frame (const char *frame,
            gsize       len)
{
  g_autoptr(RivSseReader) reader = riv_sse_reader_new (0);
  g_autoptr(GError) error = NULL;
  ReadBack rb = { 0 };

  RIV_FUZZ_CHECK (riv_sse_reader_feed (reader, frame, len, read_back_cb, &rb, &error),
                  "the client's SSE reader rejects a server frame: %s", error->message);
  RIV_FUZZ_CHECK (rb.n_events == 1, "one frame gives %u events: %.300s", rb.n_events, frame);
  RIV_FUZZ_CHECK (riv_sse_reader_get_pending (reader) == 0, "a frame leaves bytes pending");
  return rb.message;
}

static void
check_number (double      value,
              gboolean    eta,
              const char *text)
{
  g_autoptr(JsonNode) node = NULL;
  g_autoptr(GError) error = NULL;
  gboolean null_expected = !isfinite (value) || (eta && value < 0);
  double got;

  node = riv_json_parse (NULL, text, -1, 0, &error);
  RIV_FUZZ_CHECK (node != NULL, "%a is written as %s, which is not JSON", value, text);
  if (null_expected)
    {
      RIV_FUZZ_CHECK (JSON_NODE_HOLDS_NULL (node), "%a is written as %s", value, text);
      return;
    }
  RIV_FUZZ_CHECK (JSON_NODE_HOLDS_VALUE (node), "%a is written as %s", value, text);
  got = json_node_get_value_type (node) == G_TYPE_INT64 ? (double) json_node_get_int (node)
                                                         : json_node_get_double (node);
  RIV_FUZZ_CHECK (fabs (got - value) <= fabs (value) * 1e-5, "%a is written as %s", value, text);
}

void
riv_fuzz_wire (const guint8 *data,
               gsize         size)
{
  g_autofree char *text = NULL;
  gint64 numbers[3];
  double doubles[3];
  const char *tail;
  gsize tail_len;
  guint8 flags;
  gboolean utf8;

  if (size < 25)
    return;
  if (parser == NULL)
    parser = json_parser_new_immutable ();

  flags = data[0];
  memcpy (numbers, data + 1, sizeof numbers);
  memcpy (doubles, data + 1, sizeof doubles);
  tail = (const char *) data + 25;
  tail_len = size - 25;
  text = g_strndup (tail, tail_len);   /* up to the first NUL */
  utf8 = g_utf8_validate (tail, tail_len, NULL);

  /* unexpected_error */
  {
    g_autoptr(RivMessage) m = NULL;
    g_autofree char *frame = NULL;
    gsize len;

    frame = riv_wire_unexpected_error (text, flags & 1, &len);
    if (utf8)
      {
        m = read_frame (frame, len);
        RIV_FUZZ_CHECK (m->kind == RIV_MESSAGE_UNEXPECTED_ERROR, "kind %d", m->kind);
        RIV_FUZZ_CHECK (g_strcmp0 (m->message, text) == 0, "message \"%s\" read back as \"%s\"",
                        text, m->message);
        RIV_FUZZ_CHECK (m->session_not_found ==
                        ((flags & 1) != 0 || strcmp (text, RIV_MESSAGE_GRADIO4_NO_SESSION) == 0),
                        "session_not_found");
        RIV_FUZZ_CHECK (!m->success, "success");
      }
  }

  /* A string with an explicit length, NULs included. */
  if (utf8)
    {
      g_autoptr(GString) out = g_string_new ("[");
      g_autoptr(JsonNode) node = NULL;
      g_autoptr(GError) error = NULL;
      const char *got;

      riv_wire_append_string (out, tail, tail_len);
      g_string_append_c (out, ']');
      node = riv_json_parse (NULL, out->str, out->len, 0, &error);
      RIV_FUZZ_CHECK (node != NULL, "string written as %.300s is not JSON: %s", out->str,
                      error->message);
      got = json_array_get_string_element (json_node_get_array (node), 0);
      RIV_FUZZ_CHECK (got != NULL && strcmp (got, text) == 0, "string \"%s\" read back as \"%s\"",
                      text, got);
    }

  /* Numbers. */
  for (guint i = 0; i < G_N_ELEMENTS (doubles); i++)
    {
      g_autoptr(GString) out = g_string_new (NULL);

      riv_wire_append_double (out, doubles[i]);
      check_number (doubles[i], FALSE, out->str);
      g_string_truncate (out, 0);
      riv_wire_append_eta (out, doubles[i]);
      check_number (doubles[i], TRUE, out->str);
    }

  /* A lazily rendered estimation. */
  {
    g_autoptr(RivMessage) m = NULL;
    char event_id[RIV_EVENT_ID_LEN + 1];
    RivFrame *frame;
    double eta = doubles[2];

    riv_wire_new_event_id (event_id);
    RIV_FUZZ_CHECK (strlen (event_id) == RIV_EVENT_ID_LEN, "event id length");
    frame = riv_frame_new_estimation (event_id, numbers[0], numbers[1], eta);
    riv_frame_render (frame);
    RIV_FUZZ_CHECK (frame->data != NULL && frame->len == strlen (frame->data), "rendered frame");
    m = read_frame (frame->data, frame->len);
    RIV_FUZZ_CHECK (m->kind == RIV_MESSAGE_ESTIMATION && g_strcmp0 (m->event_id, event_id) == 0,
                    "estimation frame %s", frame->data);
    RIV_FUZZ_CHECK (m->has_rank && m->rank == numbers[0], "rank %" G_GINT64_FORMAT " in %s",
                    numbers[0], frame->data);
    RIV_FUZZ_CHECK (m->has_queue_size && m->queue_size == numbers[1],
                    "queue_size %" G_GINT64_FORMAT " in %s", numbers[1], frame->data);
    RIV_FUZZ_CHECK (m->has_rank_eta == (isfinite (eta) && eta >= 0), "rank_eta %a in %s", eta,
                    frame->data);
    if (m->has_rank_eta)
      RIV_FUZZ_CHECK (fabs (m->rank_eta - eta) <= eta * 1e-5, "rank_eta %a read back as %a",
                      eta, m->rank_eta);
    riv_frame_free (frame);
  }

  /* A batch member. */
  {
    g_autoptr(GString) out = g_string_new (NULL);
    g_autoptr(RivMessage) m = NULL;
    guint batch_size = (guint) numbers[1], batch_index = (guint) numbers[2];

    riv_wire_begin_frame (out, "process_completed", (flags & 2) ? NULL : "0123abcd");
    riv_wire_append_batch (out, numbers[0], batch_size, batch_index);
    riv_wire_end_frame (out);
    m = read_frame (out->str, out->len);
    RIV_FUZZ_CHECK (m->has_batch == (numbers[0] > 0), "batch id %" G_GINT64_FORMAT " in %s",
                    numbers[0], out->str);
    if (m->has_batch)
      {
        g_autofree char *id = g_strdup_printf ("%" G_GINT64_FORMAT, numbers[0]);

        RIV_FUZZ_CHECK (g_strcmp0 (m->batch_id, id) == 0, "batch id %s read back as %s", id,
                        m->batch_id);
        RIV_FUZZ_CHECK (m->batch_size == batch_size && m->batch_index == batch_index,
                        "batch size/index in %s", out->str);
      }
  }
}
