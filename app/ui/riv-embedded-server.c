/* riv-embedded-server.c
 * Copyright 2026 The Rivulet authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "config.h"

#include "riv-embedded-server.h"
#include "riv-replay.h"
#include "riv-server.h"

struct _RivEmbeddedServer
{
  GObject       parent_instance;

  /* Owned references */
  GThread      *thread;         /* nullable: not started or joined */
  GMainContext *context;        /* the server thread's context, nullable */
  GMainLoop    *loop;           /* runs on context, nullable */
  GMainContext *ui_context;     /* where start was called */
  GPtrArray    *waiting;        /* GTask*, start calls not yet answered */
  char         *url;            /* nullable until listening */
  GError       *start_error;    /* nullable */
  guint         concurrency;    /* 0: the server's default */
  GPtrArray    *replay_events;  /* nullable: serves this recording instead */

  guint         starting : 1;
};

G_DEFINE_FINAL_TYPE (RivEmbeddedServer, riv_embedded_server, G_TYPE_OBJECT)

typedef struct
{
  RivEmbeddedServer *self;      /* owned */
  char              *url;       /* owned, nullable */
  GError            *error;     /* owned, nullable */
} Report;

static gboolean
report_cb (gpointer user_data)
{
  Report *report = user_data;
  RivEmbeddedServer *self = report->self;
  g_autoptr(GPtrArray) waiting = NULL;

  /* Runs on the UI context: answers every start call that waited. */
  if (!self->starting)
    {
      /* Stopped before the server came up. */
      g_clear_pointer (&report->url, g_free);
      if (report->error == NULL)
        report->error = g_error_new_literal (G_IO_ERROR, G_IO_ERROR_CANCELLED,
                                             "The embedded server was stopped");
    }
  self->starting = FALSE;
  g_free (self->url);
  self->url = g_steal_pointer (&report->url);
  g_clear_error (&self->start_error);
  self->start_error = g_steal_pointer (&report->error);

  waiting = g_steal_pointer (&self->waiting);
  self->waiting = g_ptr_array_new_with_free_func (g_object_unref);

  for (guint i = 0; i < waiting->len; i++)
    {
      GTask *task = g_ptr_array_index (waiting, i);

      if (self->url != NULL)
        g_task_return_pointer (task, g_strdup (self->url), g_free);
      else
        g_task_return_error (task, g_error_copy (self->start_error));
    }

  return G_SOURCE_REMOVE;
}

static void
report_free (gpointer user_data)
{
  Report *report = user_data;

  g_clear_object (&report->self);
  g_free (report->url);
  g_clear_error (&report->error);
  g_free (report);
}

typedef struct
{
  RivEmbeddedServer *self;      /* owned */
  GMainContext      *context;   /* owned */
  GMainLoop         *loop;      /* owned */
  GMainContext      *ui_context;/* owned */
  guint              concurrency;
  GPtrArray         *replay_events; /* owned, nullable */
} ThreadData;

static gpointer
server_thread (gpointer user_data)
{
  ThreadData *data = user_data;
  g_autoptr(RivServer) server = NULL;
  g_autoptr(RivReplay) replay = NULL;
  g_autoptr(GError) error = NULL;
  Report *report = g_new0 (Report, 1);
  gboolean listening;

  g_main_context_push_thread_default (data->context);

  /* The thread gives up its reference with the report, so that dropping the
   * last outside reference still disposes (and so stops) the server. */
  report->self = g_steal_pointer (&data->self);
  if (data->replay_events != NULL)
    {
      if ((replay = riv_replay_new (data->replay_events, &error)) != NULL &&
          riv_replay_listen (replay, NULL, 0, &error))
        report->url = riv_replay_dup_url (replay);
      else
        report->error = g_steal_pointer (&error);
    }
  else
    {
      server = riv_server_new ();
      if (data->concurrency > 0)
        g_object_set (server, "concurrency", data->concurrency, NULL);
      if (riv_server_listen (server, NULL, 0, &error))
        report->url = riv_server_dup_url (server);
      else
        report->error = g_steal_pointer (&error);
    }

  /* The report belongs to the UI thread once it is handed over (it may be
   * freed before the next line runs): read what this thread needs first. */
  listening = report->error == NULL;
  g_main_context_invoke_full (data->ui_context, G_PRIORITY_DEFAULT,
                              report_cb, report, report_free);

  if (listening)
    g_main_loop_run (data->loop);

  if (server != NULL)
    riv_server_shutdown (server);
  g_clear_object (&server);
  if (replay != NULL)
    riv_replay_shutdown (replay);
  g_clear_object (&replay);

  /* Let whatever the shutdown queued (closing connections) run once. */
  while (g_main_context_iteration (data->context, FALSE))
    ;

  g_main_context_pop_thread_default (data->context);

  g_main_loop_unref (data->loop);
  g_main_context_unref (data->context);
  g_main_context_unref (data->ui_context);
  g_clear_pointer (&data->replay_events, g_ptr_array_unref);
  g_free (data);

  return NULL;
}

static gboolean
quit_loop_cb (gpointer user_data)
{
  g_main_loop_quit (user_data);
  return G_SOURCE_REMOVE;
}

void
riv_embedded_server_stop (RivEmbeddedServer *self)
{
  g_return_if_fail (RIV_IS_EMBEDDED_SERVER (self));

  if (self->thread == NULL)
    return;

  g_main_context_invoke_full (self->context, G_PRIORITY_HIGH, quit_loop_cb,
                              g_main_loop_ref (self->loop),
                              (GDestroyNotify) g_main_loop_unref);
  g_thread_join (g_steal_pointer (&self->thread));

  g_clear_pointer (&self->loop, g_main_loop_unref);
  g_clear_pointer (&self->context, g_main_context_unref);
  g_clear_pointer (&self->url, g_free);
  self->starting = FALSE;

  for (guint i = 0; i < self->waiting->len; i++)
    g_task_return_new_error (g_ptr_array_index (self->waiting, i),
                             G_IO_ERROR, G_IO_ERROR_CANCELLED,
                             "The embedded server was stopped");
  g_ptr_array_set_size (self->waiting, 0);
}

static void
riv_embedded_server_dispose (GObject *object)
{
  RivEmbeddedServer *self = (RivEmbeddedServer *) object;

  riv_embedded_server_stop (self);

  G_OBJECT_CLASS (riv_embedded_server_parent_class)->dispose (object);
}

static void
riv_embedded_server_finalize (GObject *object)
{
  RivEmbeddedServer *self = (RivEmbeddedServer *) object;

  g_clear_pointer (&self->waiting, g_ptr_array_unref);
  g_clear_pointer (&self->url, g_free);
  g_clear_pointer (&self->ui_context, g_main_context_unref);
  g_clear_error (&self->start_error);
  g_clear_pointer (&self->replay_events, g_ptr_array_unref);

  G_OBJECT_CLASS (riv_embedded_server_parent_class)->finalize (object);
}

static void
riv_embedded_server_class_init (RivEmbeddedServerClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->dispose = riv_embedded_server_dispose;
  object_class->finalize = riv_embedded_server_finalize;
}

static void
riv_embedded_server_init (RivEmbeddedServer *self)
{
  self->waiting = g_ptr_array_new_with_free_func (g_object_unref);
}

RivEmbeddedServer *
riv_embedded_server_new (void)
{
  return g_object_new (RIV_TYPE_EMBEDDED_SERVER, NULL);
}

void
riv_embedded_server_start_async (RivEmbeddedServer   *self,
                                 GCancellable        *cancellable,
                                 GAsyncReadyCallback  callback,
                                 gpointer             user_data)
{
  g_autoptr(GTask) task = NULL;
  ThreadData *data;

  g_return_if_fail (RIV_IS_EMBEDDED_SERVER (self));

  task = g_task_new (self, cancellable, callback, user_data);
  g_task_set_source_tag (task, riv_embedded_server_start_async);

  if (self->url != NULL)
    {
      g_task_return_pointer (task, g_strdup (self->url), g_free);
      return;
    }

  g_ptr_array_add (self->waiting, g_steal_pointer (&task));

  if (self->starting)
    return;

  if (self->thread != NULL)
    {
      /* A previous start failed: the thread has ended; reap it and retry. */
      g_thread_join (g_steal_pointer (&self->thread));
      g_clear_pointer (&self->loop, g_main_loop_unref);
      g_clear_pointer (&self->context, g_main_context_unref);
    }

  self->starting = TRUE;
  g_clear_pointer (&self->ui_context, g_main_context_unref);
  self->ui_context = g_main_context_ref_thread_default ();
  self->context = g_main_context_new ();
  self->loop = g_main_loop_new (self->context, FALSE);

  data = g_new0 (ThreadData, 1);
  data->self = g_object_ref (self);
  data->context = g_main_context_ref (self->context);
  data->loop = g_main_loop_ref (self->loop);
  data->ui_context = g_main_context_ref (self->ui_context);
  data->concurrency = self->concurrency;
  data->replay_events = self->replay_events != NULL ? g_ptr_array_ref (self->replay_events) : NULL;

  self->thread = g_thread_new ("riv-server", server_thread, data);
}

char *
riv_embedded_server_start_finish (RivEmbeddedServer  *self,
                                  GAsyncResult       *result,
                                  GError            **error)
{
  g_return_val_if_fail (g_task_is_valid (result, self), NULL);

  return g_task_propagate_pointer (G_TASK (result), error);
}

RivEmbeddedServer *
riv_embedded_server_new_replay (GPtrArray *events)
{
  RivEmbeddedServer *self;

  g_return_val_if_fail (events != NULL, NULL);

  self = riv_embedded_server_new ();
  self->replay_events = g_ptr_array_ref (events);
  return self;
}

void
riv_embedded_server_set_concurrency (RivEmbeddedServer *self,
                                     guint              concurrency)
{
  g_return_if_fail (RIV_IS_EMBEDDED_SERVER (self));

  self->concurrency = concurrency;
}

const char *
riv_embedded_server_get_url (RivEmbeddedServer *self)
{
  g_return_val_if_fail (RIV_IS_EMBEDDED_SERVER (self), NULL);

  return self->url;
}

gboolean
riv_embedded_server_is_url (RivEmbeddedServer *self,
                            const char        *url)
{
  g_return_val_if_fail (RIV_IS_EMBEDDED_SERVER (self), FALSE);

  return self->url != NULL && url != NULL && g_str_equal (self->url, url);
}
