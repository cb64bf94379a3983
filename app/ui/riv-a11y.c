/* riv-a11y.c
 * Copyright 2026 The Rivulet authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "config.h"

#include <string.h>

#include "riv-a11y.h"

static char *
strip_mnemonic (const char *text)
{
  GString *plain = g_string_sized_new (strlen (text));

  for (const char *p = text; *p != '\0'; p++)
    {
      if (*p == '_' && p[1] != '\0')
        p++;   /* "_S" speaks "S", "__" speaks "_" */
      g_string_append_c (plain, *p);
    }
  return g_string_free (plain, FALSE);
}

void
riv_a11y_set_name (GtkWidget  *widget,
                   const char *name)
{
  g_autofree char *plain = NULL;

  g_return_if_fail (GTK_IS_WIDGET (widget));
  g_return_if_fail (name != NULL);

  plain = strip_mnemonic (name);
  gtk_accessible_reset_relation (GTK_ACCESSIBLE (widget), GTK_ACCESSIBLE_RELATION_LABELLED_BY);
  gtk_accessible_update_property (GTK_ACCESSIBLE (widget), GTK_ACCESSIBLE_PROPERTY_LABEL,
                                  plain, -1);
}

void
riv_a11y_name_inner_button (GtkWidget  *widget,
                            const char *name)
{
  g_return_if_fail (GTK_IS_WIDGET (widget));

  riv_a11y_set_name (widget, name);
  for (GtkWidget *child = gtk_widget_get_first_child (widget); child != NULL;
       child = gtk_widget_get_next_sibling (child))
    if (GTK_IS_BUTTON (child))
      riv_a11y_set_name (child, name);
}
