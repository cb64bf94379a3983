/* riv-lost-strip.c
 * Copyright 2026 The Rivulet authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * RivLostStrip (template ui/riv-lost-strip.ui): the lost connection's strip,
 * a revealer in a bin.
 */
#include "config.h"

#include <glib/gi18n.h>

#include "riv-a11y.h"
#include "riv-lost-strip.h"

struct _RivLostStrip
{
  AdwBin       parent_instance;

  /* Template widgets */
  GtkRevealer *revealer;
  GtkLabel    *label;
  GtkWidget   *reconnect_button;
};

G_DEFINE_FINAL_TYPE (RivLostStrip, riv_lost_strip, ADW_TYPE_BIN)

void
riv_lost_strip_show (RivLostStrip *self,
                     const char   *host)
{
  g_autofree char *text = NULL;

  g_return_if_fail (RIV_IS_LOST_STRIP (self));

  text = g_strdup_printf (_("The connection to %s was lost. Jobs that were in flight are marked "
                            "lost; new submissions reconnect, or reconnect now."),
                          host != NULL ? host : "");
  gtk_label_set_text (self->label, text);
  gtk_revealer_set_reveal_child (self->revealer, TRUE);
}

void
riv_lost_strip_hide (RivLostStrip *self)
{
  g_return_if_fail (RIV_IS_LOST_STRIP (self));

  gtk_revealer_set_reveal_child (self->revealer, FALSE);
}

gboolean
riv_lost_strip_get_shown (RivLostStrip *self)
{
  g_return_val_if_fail (RIV_IS_LOST_STRIP (self), FALSE);

  return gtk_revealer_get_reveal_child (self->revealer);
}

static void
riv_lost_strip_dispose (GObject *object)
{
  /* AdwBin unparents its child itself; let it go before the template does. */
  adw_bin_set_child (ADW_BIN (object), NULL);
  gtk_widget_dispose_template (GTK_WIDGET (object), RIV_TYPE_LOST_STRIP);

  G_OBJECT_CLASS (riv_lost_strip_parent_class)->dispose (object);
}

static void
riv_lost_strip_class_init (RivLostStripClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->dispose = riv_lost_strip_dispose;

  gtk_widget_class_set_template_from_resource (widget_class,
                                               RIV_RESOURCE_PATH "/ui/riv-lost-strip.ui");
  gtk_widget_class_bind_template_child (widget_class, RivLostStrip, revealer);
  gtk_widget_class_bind_template_child (widget_class, RivLostStrip, label);
  gtk_widget_class_bind_template_child (widget_class, RivLostStrip, reconnect_button);
}

static void
riv_lost_strip_init (RivLostStrip *self)
{
  gtk_widget_init_template (GTK_WIDGET (self));

  /* One spoken name per control (see riv-a11y.h). */
  riv_a11y_set_name (self->reconnect_button, _("_Reconnect"));
}
