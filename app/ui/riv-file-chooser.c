/* riv-file-chooser.c
 * Copyright 2026 The Rivulet authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "config.h"

#include "riv-file-chooser.h"

typedef struct
{
  RivFileChosenFunc chosen;
  gpointer          user_data;
  GDestroyNotify    destroy;
} Request;

static void
request_free (Request *request)
{
  if (request->destroy != NULL)
    request->destroy (request->user_data);
  g_free (request);
}

G_DEFINE_AUTOPTR_CLEANUP_FUNC (Request, request_free)

static Request *
request_new (RivFileChosenFunc chosen,
             gpointer          user_data,
             GDestroyNotify    destroy)
{
  Request *request = g_new0 (Request, 1);

  request->chosen = chosen;
  request->user_data = user_data;
  request->destroy = destroy;
  return request;
}

GtkFileFilter *
riv_file_filter_new (const char *name,
                     const char *suffix,
                     const char *mime_type)
{
  GtkFileFilter *filter = gtk_file_filter_new ();

  gtk_file_filter_set_name (filter, name);
  if (suffix != NULL)
    gtk_file_filter_add_suffix (filter, suffix);
  if (mime_type != NULL)
    gtk_file_filter_add_mime_type (filter, mime_type);
  if (suffix == NULL && mime_type == NULL)
    gtk_file_filter_add_pattern (filter, "*");
  return filter;
}

static GtkWindow *
parent_window (GtkWidget *parent)
{
  GtkRoot *root = parent != NULL ? gtk_widget_get_root (parent) : NULL;

  return GTK_IS_WINDOW (root) ? GTK_WINDOW (root) : NULL;
}

#if GTK_CHECK_VERSION (4, 10, 0)

static void
dialog_done_cb (GObject      *object,
                GAsyncResult *result,
                gpointer      user_data)
{
  GtkFileDialog *dialog = GTK_FILE_DIALOG (object);
  g_autoptr(Request) request = user_data;
  RivFileChooserMode mode = GPOINTER_TO_INT (g_object_get_data (object, "riv-mode"));
  g_autoptr(GError) error = NULL;

  if (mode == RIV_FILE_CHOOSER_OPEN_MULTIPLE)
    {
      g_autoptr(GListModel) files = gtk_file_dialog_open_multiple_finish (dialog, result, &error);

      for (guint i = 0; files != NULL && i < g_list_model_get_n_items (files); i++)
        {
          g_autoptr(GFile) file = g_list_model_get_item (files, i);

          request->chosen (file, NULL, request->user_data);
        }
    }
  else
    {
      g_autoptr(GFile) file = mode == RIV_FILE_CHOOSER_SAVE
                                ? gtk_file_dialog_save_finish (dialog, result, &error)
                                : gtk_file_dialog_open_finish (dialog, result, &error);

      if (file != NULL)
        request->chosen (file, NULL, request->user_data);
    }
  /* Dismissed by the user is no error to report; anything else is worth a line. */
  if (error != NULL && !g_error_matches (error, GTK_DIALOG_ERROR, GTK_DIALOG_ERROR_DISMISSED) &&
      !g_error_matches (error, GTK_DIALOG_ERROR, GTK_DIALOG_ERROR_CANCELLED))
    g_warning ("The file chooser failed: %s", error->message);
}

static void
show_dialog (GtkWidget                *parent,
             const RivFileChooserSpec *spec,
             GtkFileFilter           **filters,
             Request                  *request)
{
  g_autoptr(GtkFileDialog) dialog = gtk_file_dialog_new ();

  gtk_file_dialog_set_title (dialog, spec->title);
  gtk_file_dialog_set_modal (dialog, TRUE);
  if (spec->accept_label != NULL)
    gtk_file_dialog_set_accept_label (dialog, spec->accept_label);
  if (filters != NULL && filters[0] != NULL)
    {
      g_autoptr(GListStore) store = g_list_store_new (GTK_TYPE_FILE_FILTER);

      for (guint i = 0; filters[i] != NULL; i++)
        g_list_store_append (store, filters[i]);
      gtk_file_dialog_set_filters (dialog, G_LIST_MODEL (store));
      gtk_file_dialog_set_default_filter (dialog, filters[0]);
    }
  g_object_set_data (G_OBJECT (dialog), "riv-mode", GINT_TO_POINTER (spec->mode));

  switch (spec->mode)
    {
    case RIV_FILE_CHOOSER_SAVE:
      if (spec->current_name != NULL)
        gtk_file_dialog_set_initial_name (dialog, spec->current_name);
      gtk_file_dialog_save (dialog, parent_window (parent), NULL, dialog_done_cb, request);
      break;
    case RIV_FILE_CHOOSER_OPEN_MULTIPLE:
      gtk_file_dialog_open_multiple (dialog, parent_window (parent), NULL, dialog_done_cb, request);
      break;
    case RIV_FILE_CHOOSER_OPEN:
    default:
      gtk_file_dialog_open (dialog, parent_window (parent), NULL, dialog_done_cb, request);
      break;
    }
}

#else /* GTK < 4.10: GtkFileChooserNative */

static void
native_response_cb (GtkNativeDialog *dialog,
                    int              response,
                    gpointer         user_data)
{
  g_autoptr(Request) request = user_data;
  GtkFileChooser *chooser = GTK_FILE_CHOOSER (dialog);

  if (response == GTK_RESPONSE_ACCEPT)
    {
      g_autoptr(GListModel) files = gtk_file_chooser_get_files (chooser);

      for (guint i = 0; i < g_list_model_get_n_items (files); i++)
        {
          g_autoptr(GFile) file = g_list_model_get_item (files, i);

          request->chosen (file, gtk_file_chooser_get_filter (chooser), request->user_data);
        }
    }
  gtk_native_dialog_destroy (dialog);
  g_object_unref (dialog);
}

static void
show_dialog (GtkWidget                *parent,
             const RivFileChooserSpec *spec,
             GtkFileFilter           **filters,
             Request                  *request)
{
  gboolean save = spec->mode == RIV_FILE_CHOOSER_SAVE;
  GtkFileChooserNative *chooser;

  chooser = gtk_file_chooser_native_new (spec->title, parent_window (parent),
                                         save ? GTK_FILE_CHOOSER_ACTION_SAVE
                                              : GTK_FILE_CHOOSER_ACTION_OPEN,
                                         spec->accept_label, NULL);
  gtk_native_dialog_set_modal (GTK_NATIVE_DIALOG (chooser), TRUE);
  gtk_file_chooser_set_select_multiple (GTK_FILE_CHOOSER (chooser),
                                        spec->mode == RIV_FILE_CHOOSER_OPEN_MULTIPLE);
  for (guint i = 0; filters != NULL && filters[i] != NULL; i++)
    gtk_file_chooser_add_filter (GTK_FILE_CHOOSER (chooser), filters[i]);
  if (save && spec->current_name != NULL)
    gtk_file_chooser_set_current_name (GTK_FILE_CHOOSER (chooser), spec->current_name);
  g_signal_connect (chooser, "response", G_CALLBACK (native_response_cb), request);
  gtk_native_dialog_show (GTK_NATIVE_DIALOG (chooser));
}

#endif

void
riv_file_chooser_show (GtkWidget                *parent,
                       const RivFileChooserSpec *spec,
                       GtkFileFilter           **filters,
                       RivFileChosenFunc         chosen,
                       gpointer                  user_data,
                       GDestroyNotify            destroy)
{
  g_return_if_fail (spec != NULL && chosen != NULL);

  show_dialog (parent, spec, filters, request_new (chosen, user_data, destroy));
}
