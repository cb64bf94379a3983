/* riv-menu-button.h
 * Copyright 2026 The Rivulet authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The window's main menu: its button (the primary one, F10) and the menu
 * (connect, export, clear, recordings, preferences, shortcuts, about), in
 * whichever header bar the window's layout puts it.
 */
#pragma once

#include <adwaita.h>

G_BEGIN_DECLS

#define RIV_TYPE_MENU_BUTTON (riv_menu_button_get_type ())
G_DECLARE_FINAL_TYPE (RivMenuButton, riv_menu_button, RIV, MENU_BUTTON, AdwBin)

G_END_DECLS
