/* riv-burst-controller.c
 * Copyright 2026 The Rivulet authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * RivBurstController: the window's bursts, their tallies and the Burst
 * button's label.
 */
#include "config.h"

#include <glib/gi18n.h>

#include "riv-a11y.h"
#include "riv-burst-controller.h"
#include "riv-compat.h"

/* What became of one burst's jobs. Each job of the burst holds a reference
 * (as qdata), so a burst that is still finishing while the next one runs is
 * still summed up — once. */
typedef struct
{
  RivBurstTally tally;
  gboolean      submitting;   /* the burst still submits */
  gboolean      summarized;   /* every job finished; said */
} BurstState;

struct _RivBurstController
{
  GObject     parent_instance;

  GtkButton  *button;       /* owned */
  RivBurst   *burst;        /* nullable: the newest */
  BurstState *state;        /* nullable, g_rc_box: of the newest burst */
  double      started_at;
  guint       tick_id;      /* on the button: its label refreshed */
};

enum {
  SIGNAL_JOB_SUBMITTED,
  SIGNAL_FINISHED,
  SIGNAL_FAILED,
  SIGNAL_SUMMARIZED,
  N_SIGNALS
};

G_DEFINE_FINAL_TYPE (RivBurstController, riv_burst_controller, G_TYPE_OBJECT)

static guint signals[N_SIGNALS];

static GQuark
burst_state_quark (void)
{
  static GQuark quark;

  if (quark == 0)
    quark = g_quark_from_static_string ("riv-burst-controller-state");
  return quark;
}

/* The Burst button: "Stop (n/m)" while a burst runs. */
static void
update_label (RivBurstController *self)
{
  GtkWidget *button = GTK_WIDGET (self->button);

  if (riv_burst_controller_is_running (self))
    {
      g_autofree char *label =
        g_strdup_printf (_("Stop (%u/%u)"), riv_burst_get_n_submitted (self->burst),
                         riv_burst_get_count (self->burst));

      gtk_button_set_label (self->button, label);
      riv_a11y_set_name (button, label);
      gtk_actionable_set_action_name (GTK_ACTIONABLE (button), "win.stop-burst");
      gtk_widget_set_tooltip_text (button, _("Stop submitting the burst"));
      gtk_widget_add_css_class (button, "destructive-action");
    }
  else
    {
      gtk_button_set_label (self->button, _("_Burst"));
      riv_a11y_set_name (button, _("_Burst"));
      gtk_actionable_set_action_name (GTK_ACTIONABLE (button), "win.burst");
      gtk_widget_set_tooltip_text (button, _("Submit a burst of jobs (Ctrl+Shift+Enter)"));
      gtk_widget_remove_css_class (button, "destructive-action");
    }
}

static gboolean
tick_cb (GtkWidget     *widget,
         GdkFrameClock *frame_clock,
         gpointer       user_data)
{
  RivBurstController *self = user_data;

  self->tick_id = 0;
  update_label (self);
  return G_SOURCE_REMOVE;
}

/* Many jobs a frame: the label changes once. */
static void
queue_label (RivBurstController *self)
{
  if (self->tick_id == 0)
    self->tick_id = gtk_widget_add_tick_callback (GTK_WIDGET (self->button), tick_cb, self, NULL);
}

static void
maybe_summarize (RivBurstController *self,
                 BurstState         *state)
{
  if (state->summarized || state->submitting ||
      riv_outcomes_finished (&state->tally.outcomes) < state->tally.n_submitted)
    return;

  state->summarized = TRUE;
  g_signal_emit (self, signals[SIGNAL_SUMMARIZED], 0, &state->tally);
}

static void
count_finished (RivBurstController *self,
                BurstState         *state,
                RivJob             *job)
{
  /* Counted once: the job lets go of its burst here. */
  g_rc_box_acquire (state);
  g_object_set_qdata (G_OBJECT (job), burst_state_quark (), NULL);

  riv_outcomes_add (&state->tally.outcomes, riv_job_get_status (job));
  maybe_summarize (self, state);

  g_rc_box_release (state);
}

gboolean
riv_burst_controller_job_finished (RivBurstController *self,
                                   RivJob             *job)
{
  BurstState *state;

  g_return_val_if_fail (RIV_IS_BURST_CONTROLLER (self), FALSE);
  g_return_val_if_fail (RIV_IS_JOB (job), FALSE);

  state = g_object_get_qdata (G_OBJECT (job), burst_state_quark ());
  if (state == NULL)
    return FALSE;
  count_finished (self, state, job);
  return TRUE;
}

static void
job_submitted_cb (RivBurstController *self,
                  RivJob             *job,
                  RivBurst           *burst)
{
  BurstState *state = self->state;

  /* The job carries its burst's tally, so its completion is summed up even
   * after the next burst has started. */
  g_assert (state != NULL);
  state->tally.n_submitted++;
  g_object_set_qdata_full (G_OBJECT (job), burst_state_quark (),
                           g_rc_box_acquire (state), (GDestroyNotify) g_rc_box_release);
  if (riv_job_is_finished (job))
    count_finished (self, state, job);

  g_signal_emit (self, signals[SIGNAL_JOB_SUBMITTED], 0, job);
  queue_label (self);
}

static void
finished_cb (RivBurstController *self,
             RivBurst           *burst)
{
  if (self->state != NULL)
    {
      self->state->submitting = FALSE;
      maybe_summarize (self, self->state);
    }

  queue_label (self);
  g_signal_emit (self, signals[SIGNAL_FINISHED], 0);
}

static void
failed_cb (RivBurstController *self,
           const GError       *error,
           RivBurst           *burst)
{
  g_signal_emit (self, signals[SIGNAL_FAILED], 0, error);
}

void
riv_burst_controller_start (RivBurstController *self,
                            RivClient          *client,
                            const char         *endpoint,
                            JsonNode           *data,
                            GPtrArray          *examples,
                            guint               count,
                            double              rate)
{
  g_return_if_fail (RIV_IS_BURST_CONTROLLER (self));
  g_return_if_fail (RIV_IS_CLIENT (client));
  g_return_if_fail (!riv_burst_controller_is_running (self));

  g_clear_object (&self->burst);
  g_clear_pointer (&self->state, g_rc_box_release);
  self->state = g_rc_box_new0 (BurstState);
  self->state->submitting = TRUE;
  self->burst = riv_burst_new (client, endpoint, data, count, rate);
  riv_burst_set_examples (self->burst, examples);
  g_signal_connect_object (self->burst, "job-submitted", G_CALLBACK (job_submitted_cb), self,
                           G_CONNECT_SWAPPED);
  g_signal_connect_object (self->burst, "finished", G_CALLBACK (finished_cb), self,
                           G_CONNECT_SWAPPED);
  g_signal_connect_object (self->burst, "failed", G_CALLBACK (failed_cb), self,
                           G_CONNECT_SWAPPED);
  self->started_at = riv_now ();
  riv_burst_start (self->burst);
  queue_label (self);
}

void
riv_burst_controller_stop (RivBurstController *self)
{
  g_return_if_fail (RIV_IS_BURST_CONTROLLER (self));

  if (self->burst != NULL)
    riv_burst_stop (self->burst);
}

void
riv_burst_controller_clear (RivBurstController *self)
{
  g_return_if_fail (RIV_IS_BURST_CONTROLLER (self));

  riv_burst_controller_stop (self);
  g_clear_object (&self->burst);
  update_label (self);
}

gboolean
riv_burst_controller_is_running (RivBurstController *self)
{
  g_return_val_if_fail (RIV_IS_BURST_CONTROLLER (self), FALSE);

  return self->burst != NULL && riv_burst_is_running (self->burst);
}

RivBurst *
riv_burst_controller_get_burst (RivBurstController *self)
{
  g_return_val_if_fail (RIV_IS_BURST_CONTROLLER (self), NULL);

  return self->burst;
}

double
riv_burst_controller_get_started_at (RivBurstController *self)
{
  g_return_val_if_fail (RIV_IS_BURST_CONTROLLER (self), 0);

  return self->started_at;
}

static void
riv_burst_controller_dispose (GObject *object)
{
  RivBurstController *self = RIV_BURST_CONTROLLER (object);

  if (self->burst != NULL)
    riv_burst_stop (self->burst);
  g_clear_object (&self->burst);
  if (self->tick_id != 0)
    {
      gtk_widget_remove_tick_callback (GTK_WIDGET (self->button), self->tick_id);
      self->tick_id = 0;
    }
  g_clear_object (&self->button);

  G_OBJECT_CLASS (riv_burst_controller_parent_class)->dispose (object);
}

static void
riv_burst_controller_finalize (GObject *object)
{
  RivBurstController *self = RIV_BURST_CONTROLLER (object);

  g_clear_pointer (&self->state, g_rc_box_release);

  G_OBJECT_CLASS (riv_burst_controller_parent_class)->finalize (object);
}

static void
riv_burst_controller_class_init (RivBurstControllerClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->dispose = riv_burst_controller_dispose;
  object_class->finalize = riv_burst_controller_finalize;

  signals[SIGNAL_JOB_SUBMITTED] =
    g_signal_new ("job-submitted", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0, NULL, NULL,
                  NULL, G_TYPE_NONE, 1, RIV_TYPE_JOB);
  signals[SIGNAL_FINISHED] =
    g_signal_new ("finished", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0, NULL, NULL,
                  NULL, G_TYPE_NONE, 0);
  signals[SIGNAL_FAILED] =
    g_signal_new ("failed", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0, NULL, NULL,
                  NULL, G_TYPE_NONE, 1, G_TYPE_ERROR);
  signals[SIGNAL_SUMMARIZED] =
    g_signal_new ("summarized", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0, NULL, NULL,
                  NULL, G_TYPE_NONE, 1, G_TYPE_POINTER);
}

static void
riv_burst_controller_init (RivBurstController *self)
{
}

RivBurstController *
riv_burst_controller_new (GtkButton *button)
{
  RivBurstController *self;

  g_return_val_if_fail (GTK_IS_BUTTON (button), NULL);

  self = g_object_new (RIV_TYPE_BURST_CONTROLLER, NULL);
  self->button = g_object_ref (button);
  update_label (self);
  return self;
}
