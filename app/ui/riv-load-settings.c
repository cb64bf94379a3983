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

  GtkSpinButton       *users;
  GtkSpinButton       *duration;
  GtkSpinButton       *think;
  AdwEntryRow         *stages;
};

G_DEFINE_FINAL_TYPE (RivLoadSettings, riv_load_settings, ADW_TYPE_PREFERENCES_GROUP)

static GtkSpinButton *
add_spin_row (AdwPreferencesGroup *group,
              const char          *title,
              const char          *subtitle,
              double               lower,
              double               upper,
              double               value,
              guint                digits)
{
  GtkWidget *row = adw_action_row_new ();
  GtkWidget *spin = gtk_spin_button_new_with_range (lower, upper, digits > 0 ? 0.5 : 1);

  gtk_spin_button_set_digits (GTK_SPIN_BUTTON (spin), digits);
  gtk_spin_button_set_value (GTK_SPIN_BUTTON (spin), value);
  gtk_spin_button_set_numeric (GTK_SPIN_BUTTON (spin), TRUE);
  gtk_widget_set_valign (spin, GTK_ALIGN_CENTER);
  adw_preferences_row_set_title (ADW_PREFERENCES_ROW (row), title);
  adw_preferences_row_set_use_underline (ADW_PREFERENCES_ROW (row), TRUE);
  if (subtitle != NULL)
    adw_action_row_set_subtitle (ADW_ACTION_ROW (row), subtitle);
  adw_action_row_add_suffix (ADW_ACTION_ROW (row), spin);
  adw_action_row_set_activatable_widget (ADW_ACTION_ROW (row), spin);
  riv_a11y_set_name (spin, title);
  adw_preferences_group_add (group, row);
  return GTK_SPIN_BUTTON (spin);
}

/* Stages replace Users and Duration: those rows say so by greying out. */
static void
stages_changed_cb (RivLoadSettings *self,
                   GtkEditable     *editable)
{
  g_autofree char *text = g_strstrip (g_strdup (gtk_editable_get_text (editable)));
  gboolean staged = *text != '\0';

  gtk_widget_set_sensitive (gtk_widget_get_ancestor (GTK_WIDGET (self->users), ADW_TYPE_ACTION_ROW),
                            !staged);
  gtk_widget_set_sensitive (gtk_widget_get_ancestor (GTK_WIDGET (self->duration),
                                                     ADW_TYPE_ACTION_ROW), !staged);
  gtk_widget_remove_css_class (GTK_WIDGET (editable), "error");
}

static void
riv_load_settings_class_init (RivLoadSettingsClass *klass)
{
}

static void
riv_load_settings_init (RivLoadSettings *self)
{
  AdwPreferencesGroup *group = ADW_PREFERENCES_GROUP (self);

  adw_preferences_group_set_title (group, _("Load Test"));
  adw_preferences_group_set_description (group,
    _("Virtual users, each with its own session: submit, wait for the result, think, repeat. "
      "“{u}” in a text input becomes the user’s number, “{i}” the job’s."));
  self->users = add_spin_row (group, _("_Users"), NULL, 1, 10000, 20, 0);
  self->duration = add_spin_row (group, _("_Duration"), _("Seconds"), 1, 86400, 30, 0);
  self->think = add_spin_row (group, _("_Think Time"),
                              _("Seconds between a result and the user’s next job"),
                              0, 3600, 0, 1);
  self->stages = ADW_ENTRY_ROW (adw_entry_row_new ());
  adw_preferences_row_set_title (ADW_PREFERENCES_ROW (self->stages),
                                 _("Sta_ges, e.g. 10s:50, 30s:50, 10s:0"));
  adw_preferences_row_set_use_underline (ADW_PREFERENCES_ROW (self->stages), TRUE);
  gtk_widget_set_tooltip_text (GTK_WIDGET (self->stages),
                               _("Ramps the number of users (duration:users, linear); "
                                 "replaces Users and Duration"));
  riv_a11y_set_name (GTK_WIDGET (self->stages), _("Stages"));
  adw_preferences_group_add (group, GTK_WIDGET (self->stages));
  g_signal_connect_object (self->stages, "changed", G_CALLBACK (stages_changed_cb), self,
                           G_CONNECT_SWAPPED);
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

gboolean
riv_load_settings_get_stages (RivLoadSettings  *self,
                              GArray          **stages,
                              GError          **error)
{
  g_autofree char *text = NULL;

  g_return_val_if_fail (RIV_IS_LOAD_SETTINGS (self), FALSE);
  g_return_val_if_fail (stages != NULL && *stages == NULL, FALSE);

  text = g_strstrip (g_strdup (gtk_editable_get_text (GTK_EDITABLE (self->stages))));
  if (*text == '\0' || riv_load_parse_stages (text, stages, error))
    return TRUE;
  gtk_widget_add_css_class (GTK_WIDGET (self->stages), "error");
  return FALSE;
}
