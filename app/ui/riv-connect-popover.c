/* riv-connect-popover.c
 * Copyright 2026 The Rivulet authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "config.h"

#include <adwaita.h>
#include <glib/gi18n.h>

#include "riv-client.h"
#include "riv-connect-popover.h"

struct _RivConnectPopover
{
  GtkPopover           parent_instance;

  /* Template widgets */
  AdwEntryRow         *url_row;
  AdwEntryRow         *token_row;
  AdwEntryRow         *ca_row;
  GtkSwitch           *insecure_switch;
  GtkRevealer         *error_revealer;
  GtkLabel            *error_label;
  GtkSpinner          *spinner;
  GtkWidget           *busy_spinner;  /* an AdwSpinner on libadwaita 1.6+, else spinner */
  GtkLabel            *busy_label;
  GtkButton           *connect_button;
  GtkListBox          *recent_list;

  RivConnectErrorKind  error_kind;
  GTlsDatabase        *tls_database;    /* owned, nullable: of tls_path */
  char                *tls_path;        /* owned, nullable */
  GCancellable        *tls_cancel;      /* owned, nullable: a CA file being read */
};

enum {
  CONNECT,
  N_SIGNALS
};

G_DEFINE_FINAL_TYPE (RivConnectPopover, riv_connect_popover, GTK_TYPE_POPOVER)

static guint signals[N_SIGNALS];

static void
riv_connect_popover_activate_cb (RivConnectPopover *self)
{
  riv_connect_popover_activate (self);
}

static void
riv_connect_popover_edited_cb (RivConnectPopover *self)
{
  /* A stale error next to a new URL would mislead. */
  if (self->error_kind != RIV_CONNECT_ERROR_NONE)
    riv_connect_popover_set_error (self, RIV_CONNECT_ERROR_NONE, NULL);
}

static void
riv_connect_popover_recent_activated_cb (RivConnectPopover *self,
                                         GtkListBoxRow     *row)
{
  const char *url = g_object_get_data (G_OBJECT (row), "riv-url");

  if (url == NULL)
    {
      g_signal_emit (self, signals[CONNECT], 0, NULL, NULL);
      return;
    }

  gtk_editable_set_text (GTK_EDITABLE (self->url_row), url);
  riv_connect_popover_activate (self);
}

static void
riv_connect_popover_dispose (GObject *object)
{
  RivConnectPopover *self = RIV_CONNECT_POPOVER (object);

  if (self->tls_cancel != NULL)
    g_cancellable_cancel (self->tls_cancel);
  g_clear_object (&self->tls_cancel);
  g_clear_object (&self->tls_database);
  g_clear_pointer (&self->tls_path, g_free);
  gtk_widget_dispose_template (GTK_WIDGET (self), RIV_TYPE_CONNECT_POPOVER);
  G_OBJECT_CLASS (riv_connect_popover_parent_class)->dispose (object);
}

static void
riv_connect_popover_class_init (RivConnectPopoverClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->dispose = riv_connect_popover_dispose;

  signals[CONNECT] =
    g_signal_new ("connect", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST,
                  0, NULL, NULL, NULL, G_TYPE_NONE, 2, G_TYPE_STRING, G_TYPE_STRING);

  gtk_widget_class_set_template_from_resource (widget_class,
                                               RIV_RESOURCE_PATH "/ui/riv-connect-popover.ui");
  gtk_widget_class_bind_template_child (widget_class, RivConnectPopover, url_row);
  gtk_widget_class_bind_template_child (widget_class, RivConnectPopover, token_row);
  gtk_widget_class_bind_template_child (widget_class, RivConnectPopover, ca_row);
  gtk_widget_class_bind_template_child (widget_class, RivConnectPopover, insecure_switch);
  gtk_widget_class_bind_template_child (widget_class, RivConnectPopover, error_revealer);
  gtk_widget_class_bind_template_child (widget_class, RivConnectPopover, error_label);
  gtk_widget_class_bind_template_child (widget_class, RivConnectPopover, spinner);
  gtk_widget_class_bind_template_child (widget_class, RivConnectPopover, busy_label);
  gtk_widget_class_bind_template_child (widget_class, RivConnectPopover, connect_button);
  gtk_widget_class_bind_template_child (widget_class, RivConnectPopover, recent_list);
  gtk_widget_class_bind_template_callback (widget_class, riv_connect_popover_activate_cb);
  gtk_widget_class_bind_template_callback (widget_class, riv_connect_popover_edited_cb);
  gtk_widget_class_bind_template_callback (widget_class, riv_connect_popover_recent_activated_cb);
}

static void
riv_connect_popover_init (RivConnectPopover *self)
{
  gtk_widget_init_template (GTK_WIDGET (self));
#if ADW_CHECK_VERSION (1, 6, 0)
  /* libadwaita's spinner where it has one, in the template's GtkSpinner's place. */
  self->busy_spinner = adw_spinner_new ();
  gtk_widget_set_visible (self->busy_spinner, FALSE);
  gtk_box_insert_child_after (GTK_BOX (gtk_widget_get_parent (GTK_WIDGET (self->spinner))),
                              self->busy_spinner, GTK_WIDGET (self->spinner));
#else
  self->busy_spinner = GTK_WIDGET (self->spinner);
#endif
  riv_connect_popover_set_recent (self, NULL);
}

GtkWidget *
riv_connect_popover_new (void)
{
  return g_object_new (RIV_TYPE_CONNECT_POPOVER, NULL);
}

static GtkWidget *
recent_row_new (const char *title,
                const char *subtitle,
                const char *icon_name,
                const char *url)
{
  GtkWidget *row = adw_action_row_new ();
  GtkWidget *icon = gtk_image_new_from_icon_name (icon_name);
  GtkWidget *arrow = gtk_image_new_from_icon_name ("go-next-symbolic");

  adw_preferences_row_set_title (ADW_PREFERENCES_ROW (row), title);
  adw_preferences_row_set_use_underline (ADW_PREFERENCES_ROW (row), FALSE);
  if (subtitle != NULL)
    adw_action_row_set_subtitle (ADW_ACTION_ROW (row), subtitle);
  adw_action_row_add_prefix (ADW_ACTION_ROW (row), icon);
  adw_action_row_add_suffix (ADW_ACTION_ROW (row), arrow);
  gtk_list_box_row_set_activatable (GTK_LIST_BOX_ROW (row), TRUE);
  g_object_set_data_full (G_OBJECT (row), "riv-url", g_strdup (url), g_free);

  return row;
}

void
riv_connect_popover_set_recent (RivConnectPopover  *self,
                                const char * const *urls)
{
  GtkWidget *child;

  g_return_if_fail (RIV_IS_CONNECT_POPOVER (self));

  while ((child = gtk_widget_get_first_child (GTK_WIDGET (self->recent_list))) != NULL)
    gtk_list_box_remove (self->recent_list, child);

  gtk_list_box_append (self->recent_list,
                       recent_row_new (_("Embedded Demo Server"),
                                       _("Built-in demos on this computer"),
                                       "application-x-executable-symbolic", NULL));

  for (guint i = 0; urls != NULL && urls[i] != NULL; i++)
    gtk_list_box_append (self->recent_list,
                         recent_row_new (urls[i], NULL, "network-server-symbolic", urls[i]));
}

void
riv_connect_popover_set_url (RivConnectPopover *self,
                             const char        *url)
{
  g_return_if_fail (RIV_IS_CONNECT_POPOVER (self));

  gtk_editable_set_text (GTK_EDITABLE (self->url_row), url != NULL ? url : "");
}

const char *
riv_connect_popover_get_url (RivConnectPopover *self)
{
  g_return_val_if_fail (RIV_IS_CONNECT_POPOVER (self), NULL);

  return gtk_editable_get_text (GTK_EDITABLE (self->url_row));
}

void
riv_connect_popover_set_busy (RivConnectPopover *self,
                              const char        *url)
{
  g_return_if_fail (RIV_IS_CONNECT_POPOVER (self));

  gtk_widget_set_visible (self->busy_spinner, url != NULL);
#if !ADW_CHECK_VERSION (1, 6, 0)
  gtk_spinner_set_spinning (self->spinner, url != NULL);
#endif
  if (url != NULL)
    {
      g_autofree char *text = g_strdup_printf (_("Connecting to %s…"), url);

      gtk_label_set_text (self->busy_label, text);
    }
  else
    gtk_label_set_text (self->busy_label, "");
}

void
riv_connect_popover_set_busy_text (RivConnectPopover *self,
                                   const char        *text)
{
  g_return_if_fail (RIV_IS_CONNECT_POPOVER (self));
  g_return_if_fail (text != NULL);

  riv_connect_popover_set_busy (self, "");
  gtk_label_set_text (self->busy_label, text);
}

const char *
riv_connect_popover_get_busy_text (RivConnectPopover *self)
{
  g_return_val_if_fail (RIV_IS_CONNECT_POPOVER (self), NULL);
  return gtk_label_get_text (self->busy_label);
}

void
riv_connect_popover_set_error (RivConnectPopover   *self,
                               RivConnectErrorKind  kind,
                               const char          *message)
{
  g_return_if_fail (RIV_IS_CONNECT_POPOVER (self));

  self->error_kind = kind;
  gtk_label_set_text (self->error_label, message != NULL ? message : "");
  gtk_revealer_set_reveal_child (self->error_revealer, kind != RIV_CONNECT_ERROR_NONE);
  if (kind != RIV_CONNECT_ERROR_NONE)
    gtk_widget_add_css_class (GTK_WIDGET (self->url_row), "error");
  else
    gtk_widget_remove_css_class (GTK_WIDGET (self->url_row), "error");
}

RivConnectErrorKind
riv_connect_popover_get_error_kind (RivConnectPopover *self)
{
  g_return_val_if_fail (RIV_IS_CONNECT_POPOVER (self), RIV_CONNECT_ERROR_NONE);

  return self->error_kind;
}

const char *
riv_connect_popover_get_error_text (RivConnectPopover *self)
{
  g_return_val_if_fail (RIV_IS_CONNECT_POPOVER (self), NULL);

  return gtk_label_get_text (self->error_label);
}

static void
emit_connect (RivConnectPopover *self)
{
  const char *url = gtk_editable_get_text (GTK_EDITABLE (self->url_row));
  const char *token = gtk_editable_get_text (GTK_EDITABLE (self->token_row));

  g_signal_emit (self, signals[CONNECT], 0, url, *token != '\0' ? token : NULL);
}

static void
load_ca_thread (GTask        *task,
                gpointer      source_object,
                gpointer      task_data,
                GCancellable *cancellable)
{
  GError *error = NULL;
  GTlsDatabase *database = riv_tls_database_new_from_file (task_data, &error);

  if (database != NULL)
    g_task_return_pointer (task, database, g_object_unref);
  else
    g_task_return_error (task, error);
}

static void
load_ca_cb (GObject      *object,
            GAsyncResult *result,
            gpointer      user_data)
{
  RivConnectPopover *self = RIV_CONNECT_POPOVER (object);
  g_autoptr(GError) error = NULL;
  GTlsDatabase *database = g_task_propagate_pointer (G_TASK (result), &error);

  if (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
    return;
  g_clear_object (&self->tls_cancel);
  if (database == NULL)
    {
      riv_connect_popover_set_error (self, RIV_CONNECT_ERROR_OTHER, error->message);
      return;
    }
  g_set_object (&self->tls_database, database);
  g_object_unref (database);
  g_free (self->tls_path);
  self->tls_path = g_strdup (g_task_get_task_data (G_TASK (result)));
  emit_connect (self);
}

void
riv_connect_popover_activate (RivConnectPopover *self)
{
  g_autofree char *ca = NULL;
  g_autoptr(GTask) task = NULL;

  g_return_if_fail (RIV_IS_CONNECT_POPOVER (self));

  /* A CA file is read (off the main loop) before the connect that needs it. */
  ca = g_strstrip (g_strdup (gtk_editable_get_text (GTK_EDITABLE (self->ca_row))));
  if (*ca == '\0' || g_strcmp0 (ca, self->tls_path) == 0)
    {
      if (*ca == '\0')
        {
          g_clear_object (&self->tls_database);
          g_clear_pointer (&self->tls_path, g_free);
        }
      emit_connect (self);
      return;
    }
  if (self->tls_cancel != NULL)
    g_cancellable_cancel (self->tls_cancel);
  g_set_object (&self->tls_cancel, g_cancellable_new ());
  task = g_task_new (self, self->tls_cancel, load_ca_cb, NULL);
  g_task_set_return_on_cancel (task, TRUE);
  g_task_set_task_data (task, g_steal_pointer (&ca), g_free);
  g_task_run_in_thread (task, load_ca_thread);
}

void
riv_connect_popover_set_ca_file (RivConnectPopover *self,
                                 const char        *path)
{
  g_return_if_fail (RIV_IS_CONNECT_POPOVER (self));

  gtk_editable_set_text (GTK_EDITABLE (self->ca_row), path != NULL ? path : "");
}

GTlsDatabase *
riv_connect_popover_get_tls_database (RivConnectPopover *self)
{
  g_return_val_if_fail (RIV_IS_CONNECT_POPOVER (self), NULL);

  return self->tls_database;
}

gboolean
riv_connect_popover_get_insecure (RivConnectPopover *self)
{
  g_return_val_if_fail (RIV_IS_CONNECT_POPOVER (self), FALSE);

  return gtk_switch_get_active (self->insecure_switch);
}
