/* riv-form-column.c
 * Copyright 2026 The Rivulet authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * RivFormColumn (template ui/riv-form-column.ui): the endpoint, its form and
 * the mode's settings.
 */
#include "config.h"

#include "riv-form-column.h"

struct _RivFormColumn
{
  AdwBin            parent_instance;

  /* Template widgets */
  RivEndpointRow   *endpoint_row;
  RivForm          *form;
  GtkStack         *mode_stack;
  RivBurstSettings *burst_settings;
  RivLoadSettings  *load_settings;
};

G_DEFINE_FINAL_TYPE (RivFormColumn, riv_form_column, ADW_TYPE_BIN)

RivEndpointRow *
riv_form_column_get_endpoint_row (RivFormColumn *self)
{
  g_return_val_if_fail (RIV_IS_FORM_COLUMN (self), NULL);
  return self->endpoint_row;
}

RivForm *
riv_form_column_get_form (RivFormColumn *self)
{
  g_return_val_if_fail (RIV_IS_FORM_COLUMN (self), NULL);
  return self->form;
}

GtkStack *
riv_form_column_get_mode_stack (RivFormColumn *self)
{
  g_return_val_if_fail (RIV_IS_FORM_COLUMN (self), NULL);
  return self->mode_stack;
}

RivBurstSettings *
riv_form_column_get_burst_settings (RivFormColumn *self)
{
  g_return_val_if_fail (RIV_IS_FORM_COLUMN (self), NULL);
  return self->burst_settings;
}

RivLoadSettings *
riv_form_column_get_load_settings (RivFormColumn *self)
{
  g_return_val_if_fail (RIV_IS_FORM_COLUMN (self), NULL);
  return self->load_settings;
}

static void
riv_form_column_dispose (GObject *object)
{
  /* AdwBin unparents its child itself; let it go before the template does. */
  adw_bin_set_child (ADW_BIN (object), NULL);
  gtk_widget_dispose_template (GTK_WIDGET (object), RIV_TYPE_FORM_COLUMN);

  G_OBJECT_CLASS (riv_form_column_parent_class)->dispose (object);
}

static void
riv_form_column_class_init (RivFormColumnClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->dispose = riv_form_column_dispose;

  g_type_ensure (RIV_TYPE_ENDPOINT_ROW);
  g_type_ensure (RIV_TYPE_FORM);
  g_type_ensure (RIV_TYPE_BURST_SETTINGS);
  g_type_ensure (RIV_TYPE_LOAD_SETTINGS);
  gtk_widget_class_set_template_from_resource (widget_class,
                                               RIV_RESOURCE_PATH "/ui/riv-form-column.ui");
  gtk_widget_class_bind_template_child (widget_class, RivFormColumn, endpoint_row);
  gtk_widget_class_bind_template_child (widget_class, RivFormColumn, form);
  gtk_widget_class_bind_template_child (widget_class, RivFormColumn, mode_stack);
  gtk_widget_class_bind_template_child (widget_class, RivFormColumn, burst_settings);
  gtk_widget_class_bind_template_child (widget_class, RivFormColumn, load_settings);
}

static void
riv_form_column_init (RivFormColumn *self)
{
  gtk_widget_init_template (GTK_WIDGET (self));
}
