/* riv-burst-settings.c
 * Copyright 2026 The Rivulet authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * RivBurstSettings (template ui/riv-burst-settings.ui): the Burst mode's two
 * spin buttons in a preferences group.
 */
#include "config.h"

#include <glib/gi18n.h>

#include "riv-a11y.h"
#include "riv-burst-settings.h"

struct _RivBurstSettings
{
  AdwPreferencesGroup  parent_instance;

  /* Template widgets */
  GtkSpinButton       *count;
  GtkSpinButton       *rate;
};

G_DEFINE_FINAL_TYPE (RivBurstSettings, riv_burst_settings, ADW_TYPE_PREFERENCES_GROUP)

void
riv_burst_settings_set (RivBurstSettings *self,
                        guint             count,
                        double            rate)
{
  g_return_if_fail (RIV_IS_BURST_SETTINGS (self));

  gtk_spin_button_set_value (self->count, CLAMP (count, 1, 10000));
  gtk_spin_button_set_value (self->rate, MAX (rate, 0));
}

guint
riv_burst_settings_get_count (RivBurstSettings *self)
{
  g_return_val_if_fail (RIV_IS_BURST_SETTINGS (self), 1);

  return (guint) gtk_spin_button_get_value_as_int (self->count);
}

double
riv_burst_settings_get_rate (RivBurstSettings *self)
{
  g_return_val_if_fail (RIV_IS_BURST_SETTINGS (self), 0);

  return gtk_spin_button_get_value (self->rate);
}

void
riv_burst_settings_bind (RivBurstSettings *self,
                         GSettings        *settings)
{
  g_return_if_fail (RIV_IS_BURST_SETTINGS (self));
  g_return_if_fail (G_IS_SETTINGS (settings));

  g_settings_bind (settings, "burst-count", gtk_spin_button_get_adjustment (self->count), "value",
                   G_SETTINGS_BIND_DEFAULT);
  g_settings_bind (settings, "burst-rate", gtk_spin_button_get_adjustment (self->rate), "value",
                   G_SETTINGS_BIND_DEFAULT);
}

static void
riv_burst_settings_dispose (GObject *object)
{
  gtk_widget_dispose_template (GTK_WIDGET (object), RIV_TYPE_BURST_SETTINGS);

  G_OBJECT_CLASS (riv_burst_settings_parent_class)->dispose (object);
}

static void
riv_burst_settings_class_init (RivBurstSettingsClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->dispose = riv_burst_settings_dispose;

  gtk_widget_class_set_template_from_resource (widget_class,
                                               RIV_RESOURCE_PATH "/ui/riv-burst-settings.ui");
  gtk_widget_class_bind_template_child (widget_class, RivBurstSettings, count);
  gtk_widget_class_bind_template_child (widget_class, RivBurstSettings, rate);
}

static void
riv_burst_settings_init (RivBurstSettings *self)
{
  gtk_widget_init_template (GTK_WIDGET (self));

  /* One spoken name per control (see riv-a11y.h). */
  riv_a11y_set_name (GTK_WIDGET (self->count), _("Number of jobs in a burst"));
  riv_a11y_set_name (GTK_WIDGET (self->rate), _("Burst rate in jobs per second"));
}
