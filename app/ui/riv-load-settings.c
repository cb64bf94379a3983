/* riv-load-settings.c
 * Copyright 2026 The Rivulet authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "config.h"

#include <glib/gi18n.h>

#include "riv-a11y.h"
#include "riv-load-run.h"
#include "riv-load-settings.h"

struct _RivLoadSettings
{
  AdwPreferencesGroup  parent_instance;

  /* Template widgets */
  AdwActionRow        *users_row;
  AdwActionRow        *duration_row;
  AdwActionRow        *think_row;
  GtkSpinButton       *users;
  GtkSpinButton       *duration;
  GtkSpinButton       *think;
  AdwEntryRow         *stages;
};

G_DEFINE_FINAL_TYPE (RivLoadSettings, riv_load_settings, ADW_TYPE_PREFERENCES_GROUP)

/* Stages replace Users and Duration: those rows say so by greying out. */
static void
stages_changed_cb (RivLoadSettings *self,
                   GtkEditable     *editable)
{
  g_autofree char *text = g_strstrip (g_strdup (gtk_editable_get_text (editable)));
  gboolean staged = *text != '\0';

  gtk_widget_set_sensitive (GTK_WIDGET (self->users_row), !staged);
  gtk_widget_set_sensitive (GTK_WIDGET (self->duration_row), !staged);
  gtk_widget_remove_css_class (GTK_WIDGET (editable), "error");
}

static void
riv_load_settings_dispose (GObject *object)
{
  gtk_widget_dispose_template (GTK_WIDGET (object), RIV_TYPE_LOAD_SETTINGS);

  G_OBJECT_CLASS (riv_load_settings_parent_class)->dispose (object);
}

static void
riv_load_settings_class_init (RivLoadSettingsClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->dispose = riv_load_settings_dispose;

  gtk_widget_class_set_template_from_resource (widget_class,
                                               RIV_RESOURCE_PATH "/ui/riv-load-settings.ui");
  gtk_widget_class_bind_template_child (widget_class, RivLoadSettings, users_row);
  gtk_widget_class_bind_template_child (widget_class, RivLoadSettings, duration_row);
  gtk_widget_class_bind_template_child (widget_class, RivLoadSettings, think_row);
  gtk_widget_class_bind_template_child (widget_class, RivLoadSettings, users);
  gtk_widget_class_bind_template_child (widget_class, RivLoadSettings, duration);
  gtk_widget_class_bind_template_child (widget_class, RivLoadSettings, think);
  gtk_widget_class_bind_template_child (widget_class, RivLoadSettings, stages);
  gtk_widget_class_bind_template_callback (widget_class, stages_changed_cb);
}

static void
riv_load_settings_init (RivLoadSettings *self)
{
  gtk_widget_init_template (GTK_WIDGET (self));

  /* One spoken name each (riv-a11y.h): a spin button is its row's title. */
  riv_a11y_set_name (GTK_WIDGET (self->users),
                     adw_preferences_row_get_title (ADW_PREFERENCES_ROW (self->users_row)));
  riv_a11y_set_name (GTK_WIDGET (self->duration),
                     adw_preferences_row_get_title (ADW_PREFERENCES_ROW (self->duration_row)));
  riv_a11y_set_name (GTK_WIDGET (self->think),
                     adw_preferences_row_get_title (ADW_PREFERENCES_ROW (self->think_row)));
  riv_a11y_set_name (GTK_WIDGET (self->stages), _("Stages"));
}

GtkWidget *
riv_load_settings_new (void)
{
  return g_object_new (RIV_TYPE_LOAD_SETTINGS, NULL);
}

void
riv_load_settings_set (RivLoadSettings *self,
                       guint            users,
                       double           duration,
                       double           think,
                       const char      *stages)
{
  g_return_if_fail (RIV_IS_LOAD_SETTINGS (self));

  gtk_spin_button_set_value (self->users, users);
  gtk_spin_button_set_value (self->duration, duration);
  gtk_spin_button_set_value (self->think, think);
  gtk_editable_set_text (GTK_EDITABLE (self->stages), stages != NULL ? stages : "");
}

guint
riv_load_settings_get_users (RivLoadSettings *self)
{
  g_return_val_if_fail (RIV_IS_LOAD_SETTINGS (self), 0);

  return (guint) gtk_spin_button_get_value_as_int (self->users);
}

double
riv_load_settings_get_duration (RivLoadSettings *self)
{
  g_return_val_if_fail (RIV_IS_LOAD_SETTINGS (self), 0);

  return gtk_spin_button_get_value (self->duration);
}

double
riv_load_settings_get_think (RivLoadSettings *self)
{
  g_return_val_if_fail (RIV_IS_LOAD_SETTINGS (self), 0);

  return gtk_spin_button_get_value (self->think);
}

char *
riv_load_settings_dup_stages_text (RivLoadSettings *self)
{
  g_return_val_if_fail (RIV_IS_LOAD_SETTINGS (self), NULL);

  return g_strstrip (g_strdup (gtk_editable_get_text (GTK_EDITABLE (self->stages))));
}

gboolean
riv_load_settings_get_stages (RivLoadSettings  *self,
                              GArray          **stages,
                              GError          **error)
{
  g_autofree char *text = NULL;

  g_return_val_if_fail (RIV_IS_LOAD_SETTINGS (self), FALSE);
  g_return_val_if_fail (stages != NULL && *stages == NULL, FALSE);

  text = riv_load_settings_dup_stages_text (self);
  if (*text == '\0' || riv_load_parse_stages (text, stages, error))
    return TRUE;
  gtk_widget_add_css_class (GTK_WIDGET (self->stages), "error");
  return FALSE;
}
