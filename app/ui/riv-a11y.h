/* riv-a11y.h
 * Copyright 2026 The Rivulet authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * One spoken name per control. GTK 4.8 speaks a control's label property
 * followed by every label it is "labelled by": a button with a mnemonic is
 * heard as "_Submit Submit", a row's input as "steps steps", and a control
 * with neither by its class name ("GtkToggleButton"). And what a screen
 * reader is told without a focus change: a job, a burst, a load test ended.
 */
#pragma once

#include <gtk/gtk.h>

G_BEGIN_DECLS

/* Makes name (mnemonic underscores dropped) the widget's only spoken name.
 * Call it again after anything that relabels the widget (gtk_button_set_label,
 * adw_action_row_set_activatable_widget). */
void riv_a11y_set_name (GtkWidget  *widget,
                        const char *name);

/* Gives the button inside a GtkDropDown or GtkMenuButton the name of the
 * widget around it, when it has none of its own. */
void riv_a11y_name_inner_button (GtkWidget  *widget,
                                 const char *name);

/* Tells assistive technologies text (politely: after what they are saying)
 * on behalf of widget: gtk_accessible_announce () on GTK 4.14 and later;
 * before it GTK has no way to, and the text is only kept. */
void        riv_a11y_announce               (GtkWidget  *widget,
                                             const char *text);
/* The last text announced for widget (nullable), and how many were. */
const char *riv_a11y_get_last_announcement  (GtkWidget  *widget);
guint       riv_a11y_get_n_announcements    (GtkWidget  *widget);

G_END_DECLS
