/* riv-file-chooser.h
 * Copyright 2026 The Rivulet authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The one way the app asks the user for a file: GtkFileDialog where GTK has
 * it (4.10 and later), GtkFileChooserNative before. Both go through the file
 * chooser portal in a sandbox. Always modal to the window of the widget given.
 */
#pragma once

#include <gtk/gtk.h>

G_BEGIN_DECLS

typedef enum
{
  RIV_FILE_CHOOSER_OPEN,
  RIV_FILE_CHOOSER_OPEN_MULTIPLE,
  RIV_FILE_CHOOSER_SAVE,
} RivFileChooserMode;

/* Called once per chosen file (never when the user cancels). filter is the
 * filter the user picked, or NULL where the platform does not tell. */
typedef void (*RivFileChosenFunc) (GFile         *file,
                                   GtkFileFilter *filter,
                                   gpointer       user_data);

typedef struct
{
  const char         *title;
  const char         *accept_label;  /* nullable: the platform's own */
  RivFileChooserMode  mode;
  const char         *current_name;  /* nullable; the suggested name when saving */
} RivFileChooserSpec;

/* A filter by suffix and MIME type (either nullable); with neither, every file. */
GtkFileFilter *riv_file_filter_new (const char *name,
                                    const char *suffix,
                                    const char *mime_type);

/* filters: NULL-terminated, borrowed (nullable). destroy frees user_data once
 * the chooser is gone, chosen or not. */
void riv_file_chooser_show (GtkWidget                *parent,
                            const RivFileChooserSpec *spec,
                            GtkFileFilter           **filters,
                            RivFileChosenFunc         chosen,
                            gpointer                  user_data,
                            GDestroyNotify            destroy);

G_END_DECLS
