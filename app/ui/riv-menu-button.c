/* riv-menu-button.c
 * Copyright 2026 The Rivulet authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * RivMenuButton (template ui/riv-menu-button.ui): the main menu's button. On
 * libadwaita 1.8 and later its Keyboard Shortcuts item opens AdwApplication's
 * AdwShortcutsDialog (app.shortcuts, from ui/shortcuts-dialog.ui) instead of
 * the GtkShortcutsWindow of older ones (win.show-help-overlay), the template's.
 */
#include "config.h"

#include "riv-menu-button.h"

struct _RivMenuButton
{
  AdwBin parent_instance;
};

G_DEFINE_FINAL_TYPE (RivMenuButton, riv_menu_button, ADW_TYPE_BIN)

#if ADW_CHECK_VERSION (1, 8, 0)
/* The item of menu (or of one of its sections) whose action is from, made to
 * activate to instead; TRUE once found. */
static gboolean
menu_retarget (GMenuModel *menu,
               const char *from,
               const char *to)
{
  for (int i = 0; i < g_menu_model_get_n_items (menu); i++)
    {
      g_autofree char *action = NULL;
      g_autoptr(GMenuModel) section = g_menu_model_get_item_link (menu, i, G_MENU_LINK_SECTION);

      if (section != NULL && menu_retarget (section, from, to))
        return TRUE;
      if (g_menu_model_get_item_attribute (menu, i, G_MENU_ATTRIBUTE_ACTION, "s", &action) &&
          g_str_equal (action, from) && G_IS_MENU (menu))
        {
          g_autoptr(GMenuItem) item = g_menu_item_new_from_model (menu, i);

          g_menu_item_set_action_and_target_value (item, to, NULL);
          g_menu_remove (G_MENU (menu), i);
          g_menu_insert_item (G_MENU (menu), i, item);
          return TRUE;
        }
    }
  return FALSE;
}
#endif

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
#if ADW_CHECK_VERSION (1, 8, 0)
  menu_retarget (gtk_menu_button_get_menu_model (GTK_MENU_BUTTON (adw_bin_get_child (ADW_BIN (self)))),
                 "win.show-help-overlay", "app.shortcuts");
#endif
}
