/* riv-menu-button.c
 * Copyright 2026 The Rivulet authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * RivMenuButton (template ui/riv-menu-button.ui): the main menu's button.
 */
#include "config.h"

#include "riv-menu-button.h"

struct _RivMenuButton
{
  AdwBin parent_instance;
};

G_DEFINE_FINAL_TYPE (RivMenuButton, riv_menu_button, ADW_TYPE_BIN)

static void
riv_menu_button_dispose (GObject *object)
{
  /* AdwBin unparents its child itself; let it go before the template does. */
  adw_bin_set_child (ADW_BIN (object), NULL);
  gtk_widget_dispose_template (GTK_WIDGET (object), RIV_TYPE_MENU_BUTTON);

  G_OBJECT_CLASS (riv_menu_button_parent_class)->dispose (object);
}

static void
riv_menu_button_class_init (RivMenuButtonClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->dispose = riv_menu_button_dispose;

  gtk_widget_class_set_template_from_resource (widget_class,
                                               RIV_RESOURCE_PATH "/ui/riv-menu-button.ui");
}

static void
riv_menu_button_init (RivMenuButton *self)
{
  gtk_widget_init_template (GTK_WIDGET (self));
}
