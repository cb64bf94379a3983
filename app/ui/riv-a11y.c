/* riv-a11y.c
 * Copyright 2026 The Rivulet authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Spoken names (riv_a11y_set_name ()) and announcements (riv_a11y_announce ()).
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

typedef struct
{
  char  *last;
  guint  n;
} Announcements;

static void
announcements_free (gpointer data)
{
  Announcements *said = data;

  g_free (said->last);
  g_free (said);
}

static Announcements *
get_announcements (GtkWidget *widget,
                   gboolean   create)
{
  static GQuark quark;
  Announcements *said;

  if (quark == 0)
    quark = g_quark_from_static_string ("riv-a11y-announcements");
  said = g_object_get_qdata (G_OBJECT (widget), quark);
  if (said == NULL && create)
    {
      said = g_new0 (Announcements, 1);
      g_object_set_qdata_full (G_OBJECT (widget), quark, said, announcements_free);
    }
  return said;
}

void
riv_a11y_announce (GtkWidget  *widget,
                   const char *text)
{
  Announcements *said;

  g_return_if_fail (GTK_IS_WIDGET (widget));
  g_return_if_fail (text != NULL);

  said = get_announcements (widget, TRUE);
  g_free (said->last);
  said->last = g_strdup (text);
  said->n++;
#if GTK_CHECK_VERSION (4, 14, 0)
  gtk_accessible_announce (GTK_ACCESSIBLE (widget), text,
                           GTK_ACCESSIBLE_ANNOUNCEMENT_PRIORITY_MEDIUM);
#endif
}

const char *
riv_a11y_get_last_announcement (GtkWidget *widget)
{
  Announcements *said;

  g_return_val_if_fail (GTK_IS_WIDGET (widget), NULL);

  said = get_announcements (widget, FALSE);
  return said != NULL ? said->last : NULL;
}

guint
riv_a11y_get_n_announcements (GtkWidget *widget)
{
  Announcements *said;

  g_return_val_if_fail (GTK_IS_WIDGET (widget), 0);

  said = get_announcements (widget, FALSE);
  return said != NULL ? said->n : 0;
}
