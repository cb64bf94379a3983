/* test-message.c
 * Copyright 2026 The Rivulet authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "config.h"

#include <string.h>

#include "riv-json.h"
#include "riv-message.h"
#include "riv-test-util.h"

static char *
node_text (JsonNode *node)
{
  return node != NULL ? riv_json_to_string (node, NULL) : g_strdup ("(none)");
}

/* What the client reads from its stream (riv_message_parse_lean) is the
 * message the full reader gives, but for the output kept whole. */
static void
assert_same_message (RivMessage *full,
                     RivMessage *lean)
{
  g_autofree char *full_data = node_text (full->data);
  g_autofree char *lean_data = node_text (riv_message_get_data (lean));

  g_assert_null (lean->output);
  g_assert_cmpint (full->kind, ==, lean->kind);
  g_assert_cmpstr (full->msg, ==, lean->msg);
  g_assert_cmpstr (full->event_id, ==, lean->event_id);
  g_assert_cmpint (full->has_rank, ==, lean->has_rank);
  g_assert_cmpint (full->rank, ==, lean->rank);
  g_assert_cmpint (full->has_queue_size, ==, lean->has_queue_size);
  g_assert_cmpint (full->queue_size, ==, lean->queue_size);
  g_assert_cmpint (full->has_rank_eta, ==, lean->has_rank_eta);
  g_assert_cmpfloat (full->rank_eta, ==, lean->rank_eta);
  g_assert_cmpint (full->has_eta, ==, lean->has_eta);
  g_assert_cmpfloat (full->eta, ==, lean->eta);
  g_assert_cmpint (full->progress != NULL, ==, lean->progress != NULL);
  if (full->progress != NULL)
    g_assert_cmpuint (full->progress->len, ==, lean->progress->len);
  g_assert_cmpstr (full->log, ==, lean->log);
  g_assert_cmpstr (full->level, ==, lean->level);
  g_assert_cmpstr (full->title, ==, lean->title);
  g_assert_cmpint (full->success, ==, lean->success);
  g_assert_cmpstr (full_data, ==, lean_data);
  g_assert_cmpint (full->has_error, ==, lean->has_error);
  g_assert_cmpstr (full->error, ==, lean->error);
  g_assert_cmpint (full->is_generating, ==, lean->is_generating);
  g_assert_cmpint (full->output_used_cache, ==, lean->output_used_cache);
  g_assert_cmpint (full->cancelled, ==, lean->cancelled);
  g_assert_cmpint (full->has_duration, ==, lean->has_duration);
  g_assert_cmpfloat (full->duration, ==, lean->duration);
  g_assert_cmpint (full->has_average_duration, ==, lean->has_average_duration);
  g_assert_cmpfloat (full->average_duration, ==, lean->average_duration);
  g_assert_cmpstr (full->used_cache, ==, lean->used_cache);
  g_assert_cmpfloat (full->cache_duration, ==, lean->cache_duration);
  g_assert_cmpint (full->has_batch, ==, lean->has_batch);
  g_assert_cmpstr (full->batch_id, ==, lean->batch_id);
  g_assert_cmpint (full->batch_size, ==, lean->batch_size);
  g_assert_cmpint (full->batch_index, ==, lean->batch_index);
  g_assert_cmpstr (full->message, ==, lean->message);
  g_assert_cmpint (full->session_not_found, ==, lean->session_not_found);
}

static RivMessage *
parse_ok (const char *text)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(RivMessage) lean = NULL;
  RivMessage *message = riv_message_parse (NULL, text, -1, &error);

  g_assert_no_error (error);
  g_assert_nonnull (message);
  lean = riv_message_parse_lean (text, -1, &error);
  g_assert_no_error (error);
  assert_same_message (message, lean);
  return message;
}

static void
assert_invalid (const char *text,
                gssize      len)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GError) lean_error = NULL;
  g_autoptr(RivMessage) message = riv_message_parse (NULL, text, len, &error);
  g_autoptr(RivMessage) lean = riv_message_parse_lean (text, len, &lean_error);

  g_assert_null (message);
  g_assert_error (error, RIV_MESSAGE_ERROR, RIV_MESSAGE_ERROR_INVALID);
  g_assert_nonnull (error->message);
  g_assert_null (lean);
  g_assert_error (lean_error, RIV_MESSAGE_ERROR, RIV_MESSAGE_ERROR_INVALID);
  g_assert_cmpstr (lean_error->message, ==, error->message);
}

static void
test_kind_names (void)
{
  for (RivMessageKind kind = RIV_MESSAGE_ESTIMATION; kind <= RIV_MESSAGE_QUEUE_FULL; kind++)
    {
      const char *name = riv_message_kind_to_string (kind);

      g_assert_cmpstr (name, !=, "unknown");
      g_assert_cmpint (riv_message_kind_from_string (name), ==, kind);
    }

  g_assert_cmpstr (riv_message_kind_to_string (RIV_MESSAGE_PROCESS_COMPLETED), ==, "process_completed");
  g_assert_cmpint (riv_message_kind_from_string ("process_"), ==, RIV_MESSAGE_UNKNOWN);
  g_assert_cmpint (riv_message_kind_from_string ("process_completedX"), ==, RIV_MESSAGE_UNKNOWN);
  g_assert_cmpint (riv_message_kind_from_string ("Estimation"), ==, RIV_MESSAGE_UNKNOWN);
  g_assert_cmpint (riv_message_kind_from_string (""), ==, RIV_MESSAGE_UNKNOWN);
  g_assert_cmpint (riv_message_kind_from_string (NULL), ==, RIV_MESSAGE_UNKNOWN);
  g_assert_cmpstr (riv_message_kind_to_string ((RivMessageKind) 999), ==, "unknown");
}

/* Gradio 6.12's @gr.cache answers: "full"/"partial" kept, anything else is no cache. */
static void
test_used_cache (void)
{
  g_autoptr(RivMessage) full =
    parse_ok ("{\"msg\":\"process_completed\",\"event_id\":\"E\",\"success\":true,"
              "\"output\":{\"data\":[4]},\"used_cache\":\"full\",\"cache_duration\":0.012}");
  g_autoptr(RivMessage) partial =
    parse_ok ("{\"msg\":\"process_completed\",\"event_id\":\"E\",\"success\":true,"
              "\"output\":{\"data\":[4]},\"used_cache\":\"partial\",\"cache_duration\":-3}");
  g_autoptr(RivMessage) none =
    parse_ok ("{\"msg\":\"process_completed\",\"event_id\":\"E\",\"success\":true,"
              "\"output\":{\"data\":[4]},\"used_cache\":null,\"cache_duration\":null}");
  g_autoptr(RivMessage) odd =
    parse_ok ("{\"msg\":\"process_completed\",\"event_id\":\"E\",\"success\":true,"
              "\"output\":{\"data\":[4]},\"used_cache\":[\"full\"],\"cache_duration\":\"x\"}");

  /* output.used_cache (what lint reads): only a JSON true, by either reader. */
  g_autoptr(RivMessage) out_true =
    parse_ok ("{\"msg\":\"process_generating\",\"event_id\":\"E\",\"success\":true,"
              "\"output\":{\"data\":[4],\"used_cache\":false,\"used_cache\":true}}");
  g_autoptr(RivMessage) out_last =
    parse_ok ("{\"msg\":\"process_completed\",\"event_id\":\"E\",\"success\":true,"
              "\"output\":{\"used_cache\":true,\"data\":[4],\"used_cache\":null}}");
  g_autoptr(RivMessage) out_odd =
    parse_ok ("{\"msg\":\"process_completed\",\"event_id\":\"E\",\"success\":true,"
              "\"output\":{\"data\":[4],\"used_cache\":[true]},\"used_cache\":\"full\"}");
  g_autoptr(RivMessage) out_log =
    parse_ok ("{\"msg\":\"log\",\"event_id\":\"E\",\"output\":{\"used_cache\":true}}");

  g_assert_true (out_true->output_used_cache);
  g_assert_false (out_last->output_used_cache);
  g_assert_false (out_odd->output_used_cache);
  g_assert_false (out_log->output_used_cache);
  g_assert_false (full->output_used_cache);

  g_assert_cmpstr (full->used_cache, ==, "full");
  g_assert_cmpfloat_with_epsilon (full->cache_duration, 0.012, 1e-9);
  g_assert_cmpstr (partial->used_cache, ==, "partial");
  g_assert_cmpfloat (partial->cache_duration, <, 0);
  g_assert_null (none->used_cache);
  g_assert_null (odd->used_cache);
  g_assert_cmpfloat (odd->cache_duration, <, 0);
}

static void
test_estimation (void)
{
  g_autoptr(RivMessage) m =
    parse_ok ("{\"msg\":\"estimation\",\"event_id\":\"E\",\"rank\":2,\"queue_size\":5,\"rank_eta\":12.4}");
  g_autoptr(RivMessage) n =
    parse_ok ("{\"msg\":\"estimation\",\"event_id\":\"E\",\"rank\":null,\"queue_size\":0,\"rank_eta\":null}");

  g_assert_cmpint (m->kind, ==, RIV_MESSAGE_ESTIMATION);
  g_assert_cmpstr (m->msg, ==, "estimation");
  g_assert_cmpstr (m->event_id, ==, "E");
  g_assert_true (m->has_rank && m->has_queue_size && m->has_rank_eta);
  g_assert_cmpint (m->rank, ==, 2);
  g_assert_cmpint (m->queue_size, ==, 5);
  g_assert_cmpfloat_with_epsilon (m->rank_eta, 12.4, 1e-9);
  g_assert_false (m->has_batch);

  g_assert_false (n->has_rank);
  g_assert_true (n->has_queue_size);
  g_assert_cmpint (n->queue_size, ==, 0);
  g_assert_false (n->has_rank_eta);
}

static void
test_process_starts (void)
{
  g_autoptr(RivMessage) m = parse_ok ("{\"msg\":\"process_starts\",\"event_id\":\"E\",\"eta\":3.1}");
  g_autoptr(RivMessage) n = parse_ok ("{\"msg\":\"process_starts\",\"event_id\":\"E\",\"eta\":null}");

  g_assert_cmpint (m->kind, ==, RIV_MESSAGE_PROCESS_STARTS);
  g_assert_true (m->has_eta);
  g_assert_cmpfloat_with_epsilon (m->eta, 3.1, 1e-9);
  g_assert_false (n->has_eta);
}

static void
test_progress (void)
{
  g_autoptr(RivMessage) m =
    parse_ok ("{\"msg\":\"progress\",\"event_id\":\"E\",\"progress_data\":["
              "{\"index\":3,\"length\":10,\"unit\":\"steps\",\"progress\":null,\"desc\":\"denoise\"},"
              "{\"index\":null,\"length\":null,\"unit\":null,\"progress\":0.25,\"desc\":null},"
              "\"junk\","
              "{\"progress\":7}]}");
  g_autoptr(RivMessage) n = parse_ok ("{\"msg\":\"progress\",\"event_id\":\"E\",\"progress_data\":null}");
  RivProgressUnit *u;

  g_assert_cmpint (m->kind, ==, RIV_MESSAGE_PROGRESS);
  g_assert_nonnull (m->progress);
  /* The non-object entry is skipped. */
  g_assert_cmpuint (m->progress->len, ==, 3);

  u = &g_array_index (m->progress, RivProgressUnit, 0);
  g_assert_true (u->has_index && u->has_length);
  g_assert_false (u->has_progress);
  g_assert_cmpint (u->index, ==, 3);
  g_assert_cmpint (u->length, ==, 10);
  g_assert_cmpstr (u->unit, ==, "steps");
  g_assert_cmpstr (u->desc, ==, "denoise");

  u = &g_array_index (m->progress, RivProgressUnit, 1);
  g_assert_false (u->has_index || u->has_length);
  g_assert_true (u->has_progress);
  g_assert_cmpfloat_with_epsilon (u->progress, 0.25, 1e-9);
  g_assert_null (u->unit);
  g_assert_null (u->desc);

  /* Out-of-range fractions are clamped to 0..1. */
  u = &g_array_index (m->progress, RivProgressUnit, 2);
  g_assert_cmpfloat (u->progress, ==, 1.0);

  g_assert_null (n->progress);
}

static void
test_log (void)
{
  g_autoptr(RivMessage) m =
    parse_ok ("{\"msg\":\"log\",\"event_id\":\"E\",\"log\":\"loaded weights\",\"level\":\"info\","
              "\"duration\":10.0,\"visible\":true,\"title\":\"Info\"}");

  g_assert_cmpint (m->kind, ==, RIV_MESSAGE_LOG);
  g_assert_cmpstr (m->log, ==, "loaded weights");
  g_assert_cmpstr (m->level, ==, "info");
  g_assert_cmpstr (m->title, ==, "Info");
  g_assert_true (m->has_duration);
  g_assert_cmpfloat (m->duration, ==, 10.0);
}

static void
test_generating (void)
{
  g_autoptr(RivMessage) m =
    parse_ok ("{\"msg\":\"process_generating\",\"event_id\":\"E\",\"output\":{\"data\":[\"Hel\"],"
              "\"is_generating\":true,\"duration\":0.02,\"average_duration\":0.02,\"render_config\":null,"
              "\"changed_state_ids\":[],\"used_cache\":null},\"success\":true,\"time_limit\":null}");
  g_autofree char *data = NULL;

  g_assert_cmpint (m->kind, ==, RIV_MESSAGE_PROCESS_GENERATING);
  g_assert_true (m->success);
  g_assert_true (m->is_generating);
  g_assert_nonnull (m->output);
  g_assert_nonnull (m->data);
  /* data is borrowed from output, not a copy. */
  g_assert_true (m->data == json_object_get_member (json_node_get_object (m->output), "data"));
  data = node_text (m->data);
  g_assert_cmpstr (data, ==, "[\"Hel\"]");
  g_assert_false (m->has_error);
  g_assert_null (m->error);
  g_assert_false (m->cancelled);
  g_assert_true (m->has_duration);
  g_assert_cmpfloat_with_epsilon (m->duration, 0.02, 1e-9);
}

static void
test_streaming (void)
{
  g_autoptr(RivMessage) m =
    parse_ok ("{\"msg\":\"process_streaming\",\"event_id\":\"E\",\"output\":{\"data\":[1,2]},"
              "\"success\":true,\"time_limit\":5}");
  g_autofree char *data = node_text (m->data);

  g_assert_cmpint (m->kind, ==, RIV_MESSAGE_PROCESS_STREAMING);
  g_assert_cmpstr (data, ==, "[1,2]");
  g_assert_false (m->is_generating);
}

static void
test_completed_success (void)
{
  g_autoptr(RivMessage) m =
    parse_ok ("{\"msg\":\"process_completed\",\"event_id\":\"E\",\"output\":{\"data\":[\"Hello\"],"
              "\"is_generating\":false,\"duration\":1.2,\"average_duration\":1.1,\"render_config\":null,"
              "\"changed_state_ids\":[],\"used_cache\":null},\"success\":true,\"title\":null,"
              "\"used_cache\":null,\"cache_duration\":null,\"avg_time\":1.1}");
  g_autofree char *data = node_text (m->data);

  g_assert_cmpint (m->kind, ==, RIV_MESSAGE_PROCESS_COMPLETED);
  g_assert_true (m->success);
  g_assert_cmpstr (data, ==, "[\"Hello\"]");
  g_assert_false (m->has_error);
  g_assert_false (m->cancelled);
  g_assert_null (m->title);
  g_assert_true (m->has_duration);
  g_assert_cmpfloat (m->duration, ==, 1.2);
}

static void
test_completed_error (void)
{
  g_autoptr(RivMessage) m =
    parse_ok ("{\"msg\":\"process_completed\",\"event_id\":\"E\",\"output\":{\"error\":\"CUDA OOM\","
              "\"duration\":null,\"visible\":true,\"title\":\"Error\"},\"success\":false,\"title\":\"Error\","
              "\"used_cache\":null,\"cache_duration\":null,\"avg_time\":null}");
  g_autoptr(RivMessage) hidden =
    parse_ok ("{\"msg\":\"process_completed\",\"event_id\":\"E\",\"output\":{\"error\":null},\"success\":false}");
  g_autoptr(RivMessage) silent =
    parse_ok ("{\"msg\":\"process_completed\",\"event_id\":\"E\",\"output\":{\"data\":[]},\"success\":false}");
  g_autoptr(RivMessage) odd =
    parse_ok ("{\"msg\":\"process_completed\",\"event_id\":\"E\",\"output\":{\"error\":{\"code\":7},"
              "\"title\":\"Custom\"},\"success\":false}");

  g_assert_false (m->success);
  g_assert_true (m->has_error);
  g_assert_cmpstr (m->error, ==, "CUDA OOM");
  g_assert_cmpstr (m->title, ==, "Error");
  g_assert_false (m->has_duration);
  g_assert_null (m->data);
  g_assert_false (m->cancelled);

  /* show_error=False: the key is there, the text is not. */
  g_assert_false (hidden->success);
  g_assert_true (hidden->has_error);
  g_assert_null (hidden->error);
  g_assert_false (hidden->cancelled);

  /* success:false without "error". */
  g_assert_false (silent->success);
  g_assert_false (silent->has_error);

  /* A non-string error is kept as JSON text; the output title stands in. */
  g_assert_true (odd->has_error);
  g_assert_cmpstr (odd->error, ==, "{\"code\":7}");
  g_assert_cmpstr (odd->title, ==, "Custom");
}

static void
test_completed_cancelled (void)
{
  g_autoptr(RivMessage) gradio =
    parse_ok ("{\"msg\":\"process_completed\",\"event_id\":\"E\",\"output\":{},\"success\":true}");
  g_autoptr(RivMessage) rivulet =
    parse_ok ("{\"msg\":\"process_completed\",\"event_id\":\"E\",\"output\":{\"data\":[null,null],"
              "\"cancelled\":true},\"success\":true}");
  g_autoptr(RivMessage) top =
    parse_ok ("{\"msg\":\"process_completed\",\"event_id\":\"E\",\"output\":{\"data\":[null]},"
              "\"success\":true,\"cancelled\":true}");
  g_autoptr(RivMessage) not_cancelled =
    parse_ok ("{\"msg\":\"process_completed\",\"event_id\":\"E\",\"output\":{\"data\":[]},"
              "\"success\":true,\"cancelled\":false}");
  g_autoptr(RivMessage) generating =
    parse_ok ("{\"msg\":\"process_generating\",\"event_id\":\"E\",\"output\":{},\"success\":true}");
  g_autofree char *data = NULL;

  g_assert_true (gradio->cancelled);
  g_assert_null (gradio->data);
  g_assert_false (gradio->has_error);

  g_assert_true (rivulet->cancelled);
  data = node_text (rivulet->data);
  g_assert_cmpstr (data, ==, "[null,null]");

  g_assert_true (top->cancelled);
  g_assert_false (not_cancelled->cancelled);
  /* Only a completion can be a cancellation. */
  g_assert_false (generating->cancelled);
}

static void
test_control_messages (void)
{
  g_autoptr(RivMessage) hb = parse_ok ("{\"msg\":\"heartbeat\",\"event_id\":null}");
  g_autoptr(RivMessage) cs = parse_ok ("{\"msg\":\"close_stream\",\"event_id\":null}");
  g_autoptr(RivMessage) ue =
    parse_ok ("{\"msg\":\"unexpected_error\",\"event_id\":null,\"message\":\"404: Not Found\","
              "\"session_not_found\":true,\"success\":false}");
  /* Gradio 4.44's unknown session: the 404 only in the text. */
  g_autoptr(RivMessage) ue4 =
    parse_ok ("{\"msg\":\"unexpected_error\",\"message\":\"404: Session not found.\","
              "\"success\":false}");
  g_autoptr(RivMessage) other =
    parse_ok ("{\"msg\":\"unexpected_error\",\"message\":\"404: Session not found. Or not\","
              "\"success\":false}");
  g_autoptr(RivMessage) legacy = parse_ok ("{\"msg\":\"send_data\",\"event_id\":\"E\"}");
  g_autoptr(RivMessage) full = parse_ok ("{\"msg\":\"queue_full\"}");
  g_autoptr(RivMessage) hash = parse_ok ("{\"msg\":\"send_hash\"}");

  g_assert_cmpint (hb->kind, ==, RIV_MESSAGE_HEARTBEAT);
  g_assert_null (hb->event_id);
  g_assert_cmpint (cs->kind, ==, RIV_MESSAGE_CLOSE_STREAM);
  g_assert_null (cs->event_id);

  g_assert_cmpint (ue->kind, ==, RIV_MESSAGE_UNEXPECTED_ERROR);
  g_assert_cmpstr (ue->message, ==, "404: Not Found");
  g_assert_true (ue->session_not_found);
  g_assert_false (ue->success);
  g_assert_true (ue4->session_not_found);
  g_assert_false (other->session_not_found);

  g_assert_cmpint (legacy->kind, ==, RIV_MESSAGE_SEND_DATA);
  g_assert_cmpstr (legacy->event_id, ==, "E");
  g_assert_cmpint (full->kind, ==, RIV_MESSAGE_QUEUE_FULL);
  g_assert_null (full->event_id);
  g_assert_cmpint (hash->kind, ==, RIV_MESSAGE_SEND_HASH);
}

static void
test_unknown_tolerated (void)
{
  g_autoptr(RivMessage) m =
    parse_ok ("{\"msg\":\"render_update\",\"event_id\":\"E\",\"whatever\":[1,{\"a\":2}],\"rank\":4}");
  g_autoptr(RivMessage) extra =
    parse_ok ("{\"future\":true,\"msg\":\"estimation\",\"event_id\":\"E\",\"rank\":\"two\","
              "\"queue_size\":[],\"rank_eta\":{},\"nested\":{\"x\":[[[]]]}}");

  g_assert_cmpint (m->kind, ==, RIV_MESSAGE_UNKNOWN);
  g_assert_cmpstr (m->msg, ==, "render_update");
  g_assert_cmpstr (m->event_id, ==, "E");
  /* Fields of other kinds are not read for an unknown kind. */
  g_assert_false (m->has_rank);

  /* Wrong-typed fields are "absent", not errors. */
  g_assert_cmpint (extra->kind, ==, RIV_MESSAGE_ESTIMATION);
  g_assert_false (extra->has_rank || extra->has_queue_size || extra->has_rank_eta);
}

static void
test_event_id_forms (void)
{
  g_autoptr(RivMessage) num = parse_ok ("{\"msg\":\"heartbeat\",\"event_id\":42}");
  g_autoptr(RivMessage) missing = parse_ok ("{\"msg\":\"heartbeat\"}");
  g_autoptr(RivMessage) weird = parse_ok ("{\"msg\":\"heartbeat\",\"event_id\":[\"E\"]}");

  g_assert_cmpstr (num->event_id, ==, "42");
  g_assert_null (missing->event_id);
  g_assert_null (weird->event_id);
}

static void
test_batch (void)
{
  g_autoptr(RivMessage) a =
    parse_ok ("{\"msg\":\"process_starts\",\"event_id\":\"E\",\"eta\":null,"
              "\"batch\":{\"id\":17,\"size\":4,\"index\":2}}");
  g_autoptr(RivMessage) b =
    parse_ok ("{\"msg\":\"process_completed\",\"event_id\":\"E\",\"success\":true,"
              "\"output\":{\"data\":[\"x\"]},\"batch\":{\"id\":\"b-9\",\"size\":16,\"index\":15}}");
  g_autoptr(RivMessage) none = parse_ok ("{\"msg\":\"process_starts\",\"event_id\":\"E\",\"batch\":null}");
  g_autoptr(RivMessage) bad = parse_ok ("{\"msg\":\"process_starts\",\"event_id\":\"E\",\"batch\":[1,2]}");
  g_autoptr(RivMessage) partial = parse_ok ("{\"msg\":\"process_starts\",\"event_id\":\"E\",\"batch\":{}}");

  g_assert_true (a->has_batch);
  g_assert_cmpstr (a->batch_id, ==, "17");
  g_assert_cmpint (a->batch_size, ==, 4);
  g_assert_cmpint (a->batch_index, ==, 2);

  g_assert_true (b->has_batch);
  g_assert_cmpstr (b->batch_id, ==, "b-9");
  g_assert_cmpint (b->batch_size, ==, 16);
  g_assert_cmpint (b->batch_index, ==, 15);

  g_assert_false (none->has_batch);
  g_assert_false (bad->has_batch);
  g_assert_true (partial->has_batch);
  g_assert_null (partial->batch_id);
  g_assert_cmpint (partial->batch_size, ==, 0);
}

static void
test_invalid (void)
{
  g_autofree char *deep = NULL;
  GString *s = g_string_new ("{\"msg\":\"process_completed\",\"output\":");

  assert_invalid ("", 0);
  assert_invalid ("   ", -1);
  assert_invalid ("{", -1);
  assert_invalid ("{\"msg\":", -1);
  assert_invalid ("not json", -1);
  assert_invalid ("ALIVE", -1);
  assert_invalid ("[]", -1);
  assert_invalid ("[{\"msg\":\"heartbeat\"}]", -1);
  assert_invalid ("\"heartbeat\"", -1);
  assert_invalid ("42", -1);
  assert_invalid ("null", -1);
  assert_invalid ("{}", -1);
  assert_invalid ("{\"event_id\":\"E\"}", -1);
  assert_invalid ("{\"msg\":null}", -1);
  assert_invalid ("{\"msg\":7}", -1);
  assert_invalid ("{\"msg\":[\"log\"]}", -1);
  assert_invalid ("{\"msg\":\"log\"} trailing", -1);

  /* A lone UTF-16 surrogate escape would become bytes that are not UTF-8. */
  assert_invalid ("{\"msg\":\"log\",\"event_id\":\"E\",\"log\":\"a\\udc00b\"}", -1);
  assert_invalid ("{\"msg\":\"log\",\"event_id\":\"E\",\"log\":\"a\\ud800b\"}", -1);
  assert_invalid ("{\"msg\":\"log\",\"event_id\":\"E\",\"log\":\"\\ud800\\u0041\"}", -1);

  /* Hostile nesting is refused before the parser recurses into it. */
  for (guint i = 0; i < 100000; i++)
    g_string_append_c (s, '[');
  deep = g_string_free (s, FALSE);
  assert_invalid (deep, -1);

  {
    g_autoptr(GError) error = NULL;

    g_assert_null (riv_message_parse (NULL, NULL, 0, &error));
    g_assert_error (error, RIV_MESSAGE_ERROR, RIV_MESSAGE_ERROR_INVALID);
    g_clear_error (&error);
    g_assert_null (riv_message_new_from_node (NULL, &error));
    g_assert_error (error, RIV_MESSAGE_ERROR, RIV_MESSAGE_ERROR_INVALID);
  }
}

/* A surrogate pair and other escapes are fine, and decode to valid UTF-8. */
static void
test_unicode_escapes (void)
{
  g_autoptr(RivMessage) m = parse_ok ("{\"msg\":\"log\",\"event_id\":\"E\","
                                      "\"log\":\"smile \\ud83d\\ude00 \\u00e9\\\\u \\\"q\\\"\"}");

  g_assert_cmpstr (m->log, ==, "smile \xf0\x9f\x98\x80 \xc3\xa9\\u \"q\"");
  g_assert_true (g_utf8_validate (m->log, -1, NULL));
}

static void
test_nesting_within_limit (void)
{
  GString *s = g_string_new ("{\"msg\":\"process_generating\",\"event_id\":\"E\",\"output\":{\"data\":[");
  g_autofree char *text = NULL;
  g_autoptr(RivMessage) m = NULL;

  /* A deep but legitimate value (well under the limit) is accepted. */
  for (guint i = 0; i < 100; i++)
    g_string_append_c (s, '[');
  for (guint i = 0; i < 100; i++)
    g_string_append_c (s, ']');
  g_string_append (s, "]}}");
  text = g_string_free (s, FALSE);
  m = parse_ok (text);
  g_assert_nonnull (m->data);
}

/* The scan before json-glib reads 32 bytes at a time when it can: every
 * check must hold wherever a block boundary falls, with brackets, quotes,
 * slashes and escapes inside strings, and a second value or deep nesting
 * after them. */
static void
test_checks_at_every_offset (void)
{
  for (guint pad = 0; pad < 70; pad++)
    {
      g_autofree char *fill = g_strnfill (pad, 'x');
      g_autofree char *inside = g_strdup_printf ("{\"msg\":\"log\",\"event_id\":\"E\",\"log\":\"%s}{[{]}'/\"}",
                                                 fill);
      g_autofree char *escaped = g_strdup_printf ("{\"msg\":\"log\",\"event_id\":\"E\",\"log\":\"%s\\\"}{\\\"\"}",
                                                  fill);
      g_autofree char *second = g_strdup_printf ("{\"msg\":\"log\",\"log\":\"%s\"} {\"msg\":\"heartbeat\"}",
                                                 fill);
      g_autofree char *second_array = g_strdup_printf ("{\"msg\":\"log\",\"log\":\"%s\"}\n[]", fill);
      g_autofree char *lone = g_strdup_printf ("{\"msg\":\"log\",\"log\":\"%s\\udc00\"}", fill);
      g_autofree char *expected = g_strdup_printf ("%s}{[{]}'/", fill);
      g_autofree char *expected_escaped = g_strdup_printf ("%s\"}{\"", fill);
      g_autoptr(RivMessage) a = parse_ok (inside);
      g_autoptr(RivMessage) b = parse_ok (escaped);
      GString *deep = g_string_new (NULL);

      g_assert_cmpstr (a->log, ==, expected);
      g_assert_cmpstr (b->log, ==, expected_escaped);
      assert_invalid (second, -1);
      assert_invalid (second_array, -1);
      assert_invalid (lone, -1);

      /* The limit counts the outer object: 511 more levels are fine, 512 are not. */
      for (guint extra = 511; extra <= 512; extra++)
        {
          g_autofree char *text = NULL;

          g_string_printf (deep, "{\"msg\":\"log\",\"log\":\"%s\",\"x\":", fill);
          for (guint i = 0; i < extra; i++)
            g_string_append_c (deep, '[');
          for (guint i = 0; i < extra; i++)
            g_string_append_c (deep, ']');
          g_string_append_c (deep, '}');
          text = g_strdup (deep->str);
          if (extra == 511)
            {
              g_autoptr(RivMessage) m = parse_ok (text);

              g_assert_cmpstr (m->log, ==, fill);
            }
          else
            assert_invalid (text, -1);
        }
      g_string_free (deep, TRUE);
    }
}

static void
test_length_argument (void)
{
  const char *text = "{\"msg\":\"heartbeat\",\"event_id\":null}GARBAGE";
  g_autoptr(GError) error = NULL;
  g_autoptr(RivMessage) m = riv_message_parse (NULL, text, strlen (text) - 7, &error);

  /* Only len bytes are read: the data need not be NUL-terminated there. */
  g_assert_no_error (error);
  g_assert_cmpint (m->kind, ==, RIV_MESSAGE_HEARTBEAT);
}

static void
test_reused_parser (void)
{
  g_autoptr(JsonParser) parser = json_parser_new_immutable ();
  g_autoptr(GPtrArray) messages = g_ptr_array_new_with_free_func ((GDestroyNotify) riv_message_free);

  /* Outputs stay valid after the parser moves on to later frames. */
  for (guint i = 0; i < 200; i++)
    {
      g_autoptr(GError) error = NULL;
      g_autofree char *text =
        g_strdup_printf ("{\"msg\":\"process_generating\",\"event_id\":\"E%u\","
                         "\"output\":{\"data\":[\"v%u\",{\"n\":%u}]},\"success\":true}", i, i, i);
      RivMessage *m = riv_message_parse (parser, text, -1, &error);

      g_assert_no_error (error);
      g_ptr_array_add (messages, m);

      /* An invalid frame in between does not disturb anything. */
      g_assert_null (riv_message_parse (parser, "{oops", -1, &error));
      g_assert_error (error, RIV_MESSAGE_ERROR, RIV_MESSAGE_ERROR_INVALID);
    }

  for (guint i = 0; i < messages->len; i++)
    {
      RivMessage *m = g_ptr_array_index (messages, i);
      g_autofree char *expected = g_strdup_printf ("[\"v%u\",{\"n\":%u}]", i, i);
      g_autofree char *got = node_text (m->data);
      g_autofree char *id = g_strdup_printf ("E%u", i);

      g_assert_cmpstr (got, ==, expected);
      g_assert_cmpstr (m->event_id, ==, id);
    }
}

static void
test_new_from_node (void)
{
  g_autoptr(JsonNode) node = json_from_string ("{\"msg\":\"log\",\"event_id\":\"E\",\"log\":\"hi\"}", NULL);
  g_autoptr(JsonNode) array = json_from_string ("[1]", NULL);
  g_autoptr(GError) error = NULL;
  g_autoptr(RivMessage) m = riv_message_new_from_node (node, &error);

  g_assert_no_error (error);
  g_assert_cmpint (m->kind, ==, RIV_MESSAGE_LOG);
  g_assert_cmpstr (m->log, ==, "hi");

  g_assert_null (riv_message_new_from_node (array, &error));
  g_assert_error (error, RIV_MESSAGE_ERROR, RIV_MESSAGE_ERROR_INVALID);
}

static void
test_hostile_numbers (void)
{
  g_autoptr(RivMessage) m =
    parse_ok ("{\"msg\":\"estimation\",\"event_id\":\"E\",\"rank\":1e300,\"queue_size\":-1e300,"
              "\"rank_eta\":1e308}");
  g_autoptr(RivMessage) inf =
    parse_ok ("{\"msg\":\"process_starts\",\"event_id\":\"E\",\"eta\":1e999}");
  g_autoptr(RivMessage) inf_duration =
    parse_ok ("{\"msg\":\"process_completed\",\"event_id\":\"E\",\"output\":{\"duration\":-1e999}}");
  g_autoptr(RivMessage) p =
    parse_ok ("{\"msg\":\"progress\",\"event_id\":\"E\",\"progress_data\":[{\"index\":9.5e18,"
              "\"length\":99999999999999999999999,\"progress\":-3}]}");
  RivProgressUnit *u;

  /* Out of gint64 range: absent, without an undefined conversion (UBSan). */
  g_assert_false (m->has_rank);
  g_assert_false (m->has_queue_size);
  g_assert_true (m->has_rank_eta);
  /* json-glib reads 1e999 as infinity: not a usable number either. */
  g_assert_false (inf->has_eta);
  g_assert_false (inf_duration->has_duration);

  u = &g_array_index (p->progress, RivProgressUnit, 0);
  g_assert_false (u->has_index);
  g_assert_cmpfloat (u->progress, ==, 0.0);
}

static const char *samples[] = {
  "{\"msg\":\"estimation\",\"event_id\":\"E\",\"rank\":2,\"queue_size\":5,\"rank_eta\":12.4}",
  "{\"msg\":\"progress\",\"event_id\":\"E\",\"progress_data\":[{\"index\":3,\"length\":10,\"unit\":\"steps\",\"progress\":null,\"desc\":\"d\"}]}",
  "{\"msg\":\"log\",\"event_id\":\"E\",\"log\":\"l\",\"level\":\"info\",\"duration\":10.0,\"visible\":true,\"title\":\"Info\"}",
  "{\"msg\":\"process_completed\",\"event_id\":\"E\",\"output\":{\"error\":\"x\",\"title\":\"Error\"},\"success\":false,\"batch\":{\"id\":1,\"size\":2,\"index\":0}}",
  "{\"msg\":\"process_generating\",\"event_id\":\"E\",\"output\":{\"data\":[[[\"append\",[1,\"content\"],\"Hel\"]]],\"is_generating\":true},\"success\":true}",
  "{\"msg\":\"unexpected_error\",\"event_id\":null,\"message\":\"m\",\"session_not_found\":true}",
};

static void
test_mutations_never_crash (void)
{
  g_autoptr(GRand) rand = g_rand_new_with_seed (4242);
  g_autoptr(JsonParser) parser = json_parser_new_immutable ();
  guint parsed = 0, rejected = 0;

  for (guint round = 0; round < 4000; round++)
    {
      const char *sample = samples[round % G_N_ELEMENTS (samples)];
      g_autofree char *text = g_strdup (sample);
      gsize len = strlen (text);
      g_autoptr(GError) error = NULL;
      g_autoptr(RivMessage) m = NULL;
      guint flips = g_rand_int_range (rand, 1, 4);

      for (guint f = 0; f < flips; f++)
        text[g_rand_int_range (rand, 0, len)] = "{}[]\":,0a\\ -e."[g_rand_int_range (rand, 0, 15)];
      if (g_rand_boolean (rand))
        len = g_rand_int_range (rand, 0, len + 1);

      m = riv_message_parse (round % 2 ? parser : NULL, text, len, &error);
      if (m != NULL)
        {
          g_assert_no_error (error);
          g_assert_nonnull (m->msg);
          parsed++;
        }
      else
        {
          g_assert_error (error, RIV_MESSAGE_ERROR, RIV_MESSAGE_ERROR_INVALID);
          rejected++;
        }
    }

  /* Both outcomes were exercised. */
  g_assert_cmpuint (parsed, >, 0);
  g_assert_cmpuint (rejected, >, 0);
}

/* A streamed text's frames, read lean, say what each output gains; any
 * other edit list leaves that to the edit list. */
static void
test_lean_appends (void)
{
  static const struct { const char *data; const char *appends; } cases[] = {
    { "[[[\"append\",[],\"\\n2\"]]]", "\n2|" },
    { "[ [ [ \"append\" , [ ] , \"a\\u00e9\" ] , [\"append\",[],\"b\"] ] ,[[\"append\",[],\"\"]]]", "a\xc3\xa9" "b||" },
    { "[[[\"append\",[0],\"x\"]]]", NULL },
    { "[[[\"replace\",[],\"x\"]]]", NULL },
    { "[[[\"append\",[],\"x\"]],\"full\"]", NULL },
    { "[[]]", NULL },
    { "[]", NULL },
    { "[[[\"append\",[],5]]]", NULL },
  };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autofree char *frame = g_strdup_printf ("{\"msg\":\"process_generating\",\"event_id\":\"e\","
                                                "\"output\":{\"data\":%s,\"is_generating\":true}}",
                                                cases[i].data);
      g_autoptr(RivMessage) full = parse_ok (frame);
      g_autoptr(RivMessage) lean = riv_message_parse_lean (frame, -1, NULL);
      g_autoptr(GString) got = g_string_new (NULL);

      g_assert_nonnull (lean);
      g_assert_nonnull (full->data);
      for (guint k = 0; lean->appends != NULL && lean->appends[k] != NULL; k++)
        g_string_append_printf (got, "%s|", lean->appends[k]);
      if (cases[i].appends == NULL)
        g_assert_null (lean->appends);
      else
        g_assert_cmpstr (got->str, ==, cases[i].appends);
    }
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/message/kind-names", test_kind_names);
  g_test_add_func ("/message/estimation", test_estimation);
  g_test_add_func ("/message/process-starts", test_process_starts);
  g_test_add_func ("/message/progress", test_progress);
  g_test_add_func ("/message/log", test_log);
  g_test_add_func ("/message/generating", test_generating);
  g_test_add_func ("/message/streaming", test_streaming);
  g_test_add_func ("/message/completed-success", test_completed_success);
  g_test_add_func ("/message/completed-error", test_completed_error);
  g_test_add_func ("/message/completed-cancelled", test_completed_cancelled);
  g_test_add_func ("/message/control", test_control_messages);
  g_test_add_func ("/message/unknown-tolerated", test_unknown_tolerated);
  g_test_add_func ("/message/event-id-forms", test_event_id_forms);
  g_test_add_func ("/message/batch", test_batch);
  g_test_add_func ("/message/invalid", test_invalid);
  g_test_add_func ("/message/nesting-within-limit", test_nesting_within_limit);
  g_test_add_func ("/message/unicode-escapes", test_unicode_escapes);
  g_test_add_func ("/message/checks-at-every-offset", test_checks_at_every_offset);
  g_test_add_func ("/message/length-argument", test_length_argument);
  g_test_add_func ("/message/reused-parser", test_reused_parser);
  g_test_add_func ("/message/new-from-node", test_new_from_node);
  g_test_add_func ("/message/hostile-numbers", test_hostile_numbers);
  g_test_add_func ("/message/used-cache", test_used_cache);
  g_test_add_func ("/message/mutations", test_mutations_never_crash);

  g_test_add_func ("/message/lean-appends", test_lean_appends);
  return g_test_run ();
}
