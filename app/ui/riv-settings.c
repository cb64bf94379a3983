/* riv-settings.c
 * Copyright 2026 The Rivulet authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "config.h"

#define G_SETTINGS_ENABLE_BACKEND
#include <gio/gsettingsbackend.h>
#include <glib/gstdio.h>
#include <string.h>

#include "riv-settings.h"

typedef struct
{
  GSettingsSchema  *schema;
  GSettingsBackend *backend;   /* NULL: the default (saved) backend */
} RivSettingsSource;

/* The build tree's compiled schema, when this binary runs from the build tree
 * (`_build/app/ui/rivulet`, no environment needed). */
static GSettingsSchema *
lookup_build_tree (void)
{
  g_autofree char *exe = g_file_read_link ("/proc/self/exe", NULL);
  g_autofree char *build_root = g_path_get_dirname (RIV_BUILD_SCHEMADIR);
  g_autofree char *compiled = g_build_filename (RIV_BUILD_SCHEMADIR, "gschemas.compiled", NULL);
  g_autoptr(GSettingsSchemaSource) source = NULL;
  g_autoptr(GError) error = NULL;

  if (exe == NULL || !g_str_has_prefix (exe, build_root) || exe[strlen (build_root)] != '/' ||
      !g_file_test (compiled, G_FILE_TEST_IS_REGULAR))
    return NULL;

  source = g_settings_schema_source_new_from_directory (RIV_BUILD_SCHEMADIR,
                                                        g_settings_schema_source_get_default (),
                                                        FALSE, &error);
  if (source == NULL)
    {
      g_debug ("Build tree schema not usable: %s", error->message);
      return NULL;
    }
  return g_settings_schema_source_lookup (source, APP_ID, FALSE);
}

static GSettingsSchema *
lookup_installed (void)
{
  GSettingsSchemaSource *source = g_settings_schema_source_get_default ();

  return source != NULL ? g_settings_schema_source_lookup (source, APP_ID, TRUE) : NULL;
}

/* The schema compiled into the resources. GSettingsSchemaSource reads only
 * directories: the compiled file goes into a private temporary directory,
 * which is removed once the source has mapped it. */
static GSettingsSchema *
lookup_builtin (void)
{
  g_autoptr(GBytes) bytes = NULL;
  g_autoptr(GSettingsSchemaSource) source = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *dir = NULL;
  g_autofree char *path = NULL;
  GSettingsSchema *schema = NULL;

  bytes = g_resources_lookup_data (RIV_RESOURCE_PATH "/gschemas.compiled",
                                   G_RESOURCE_LOOKUP_FLAGS_NONE, &error);
  if (bytes == NULL || (dir = g_dir_make_tmp ("rivulet-schema-XXXXXX", &error)) == NULL)
    goto out;

  path = g_build_filename (dir, "gschemas.compiled", NULL);
  if (g_file_set_contents (path, g_bytes_get_data (bytes, NULL),
                           (gssize) g_bytes_get_size (bytes), &error))
    {
      source = g_settings_schema_source_new_from_directory (dir, NULL, TRUE, &error);
      if (source != NULL)
        schema = g_settings_schema_source_lookup (source, APP_ID, FALSE);
    }
  g_unlink (path);
  g_rmdir (dir);

out:
  if (error != NULL)
    g_warning ("No settings schema could be loaded: %s", error->message);
  return schema;
}

static gpointer
riv_settings_source_init (gpointer data)
{
  RivSettingsSource *source = g_new0 (RivSettingsSource, 1);

  if ((source->schema = lookup_build_tree ()) != NULL ||
      (source->schema = lookup_installed ()) != NULL)
    return source;

  source->schema = lookup_builtin ();
  source->backend = g_memory_settings_backend_new ();
  g_message ("The settings schema %s is not installed: settings will not be saved", APP_ID);
  return source;
}

static RivSettingsSource *
riv_settings_get_source (void)
{
  static GOnce once = G_ONCE_INIT;

  return g_once (&once, riv_settings_source_init, NULL);
}

GSettings *
riv_settings_new (void)
{
  RivSettingsSource *source = riv_settings_get_source ();

  /* The built-in copy is compiled in: it is always there. */
  g_assert (source->schema != NULL);
  return g_settings_new_full (source->schema, source->backend, NULL);
}

gboolean
riv_settings_are_persistent (void)
{
  return riv_settings_get_source ()->backend == NULL;
}
