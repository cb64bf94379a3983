/* riv-status-title.c
 * Copyright 2026 The Rivulet authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * RivStatusTitle (template ui/riv-status-title.ui): the window's title and
 * the connection's state pill.
 */
#include "config.h"

#include "riv-status-title.h"

struct _RivStatusTitle
{
  GtkBox          parent_instance;

  /* Template widgets */
  AdwWindowTitle *window_title;
  GtkWidget      *status_pill;
  GtkLabel       *status_dot;
  GtkLabel       *status_label;
};

enum {
  PROP_0,
  PROP_SHOW_SERVER,
  N_PROPS
};

G_DEFINE_FINAL_TYPE (RivStatusTitle, riv_status_title, GTK_TYPE_BOX)

static GParamSpec *properties[N_PROPS];

void
riv_status_title_set_state (RivStatusTitle *self,
                            const char     *text,
                            const char     *tone)
{
  static const char *tones[] = { "success", "warning", "error", "accent", "dim-label" };

  g_return_if_fail (RIV_IS_STATUS_TITLE (self));
  g_return_if_fail (text != NULL && tone != NULL);

  gtk_label_set_text (self->status_label, text);
  for (guint i = 0; i < G_N_ELEMENTS (tones); i++)
    gtk_widget_remove_css_class (GTK_WIDGET (self->status_dot), tones[i]);
  gtk_widget_add_css_class (GTK_WIDGET (self->status_dot), tone);
  gtk_widget_set_tooltip_text (self->status_pill, text);
}

const char *
riv_status_title_get_text (RivStatusTitle *self)
{
  g_return_val_if_fail (RIV_IS_STATUS_TITLE (self), NULL);

  return gtk_label_get_text (self->status_label);
}

void
riv_status_title_set_details (RivStatusTitle *self,
                              const char     *details)
{
  g_return_if_fail (RIV_IS_STATUS_TITLE (self));

  gtk_widget_set_tooltip_text (self->status_pill,
                               details != NULL ? details : gtk_label_get_text (self->status_label));
}

void
riv_status_title_set_server (RivStatusTitle *self,
                             const char     *server)
{
  g_return_if_fail (RIV_IS_STATUS_TITLE (self));

  adw_window_title_set_subtitle (self->window_title, server);
}

const char *
riv_status_title_get_server (RivStatusTitle *self)
{
  g_return_val_if_fail (RIV_IS_STATUS_TITLE (self), NULL);

  return adw_window_title_get_subtitle (self->window_title);
}

static void
riv_status_title_get_property (GObject    *object,
                               guint       prop_id,
                               GValue     *value,
                               GParamSpec *pspec)
{
  RivStatusTitle *self = RIV_STATUS_TITLE (object);

  switch (prop_id)
    {
    case PROP_SHOW_SERVER:
      g_value_set_boolean (value, gtk_widget_get_visible (GTK_WIDGET (self->window_title)));
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
riv_status_title_set_property (GObject      *object,
                               guint         prop_id,
                               const GValue *value,
                               GParamSpec   *pspec)
{
  RivStatusTitle *self = RIV_STATUS_TITLE (object);

  switch (prop_id)
    {
    case PROP_SHOW_SERVER:
      gtk_widget_set_visible (GTK_WIDGET (self->window_title), g_value_get_boolean (value));
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
riv_status_title_dispose (GObject *object)
{
  gtk_widget_dispose_template (GTK_WIDGET (object), RIV_TYPE_STATUS_TITLE);

  G_OBJECT_CLASS (riv_status_title_parent_class)->dispose (object);
}

static void
riv_status_title_class_init (RivStatusTitleClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->get_property = riv_status_title_get_property;
  object_class->set_property = riv_status_title_set_property;
  object_class->dispose = riv_status_title_dispose;

  properties[PROP_SHOW_SERVER] =
    g_param_spec_boolean ("show-server", NULL, NULL, TRUE,
                          G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  g_object_class_install_properties (object_class, N_PROPS, properties);

  gtk_widget_class_set_template_from_resource (widget_class,
                                               RIV_RESOURCE_PATH "/ui/riv-status-title.ui");
  gtk_widget_class_bind_template_child (widget_class, RivStatusTitle, window_title);
  gtk_widget_class_bind_template_child (widget_class, RivStatusTitle, status_pill);
  gtk_widget_class_bind_template_child (widget_class, RivStatusTitle, status_dot);
  gtk_widget_class_bind_template_child (widget_class, RivStatusTitle, status_label);
}

static void
riv_status_title_init (RivStatusTitle *self)
{
  gtk_widget_init_template (GTK_WIDGET (self));
}
