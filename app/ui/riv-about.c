/* riv-about.c
 * Copyright 2026 The Rivulet authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "config.h"

#include <glib/gi18n.h>
#include <json-glib/json-glib.h>
#include <libsoup/soup.h>

#include "riv-about.h"

char *
riv_about_dup_debug_info (RivClient *client)
{
  GString *text = g_string_new (NULL);
  g_autofree char *os = g_get_os_info (G_OS_INFO_KEY_PRETTY_NAME);
  GdkDisplay *display = gdk_display_get_default ();
  RivConfig *config = NULL;

  g_return_val_if_fail (client == NULL || RIV_IS_CLIENT (client), NULL);

  g_string_append_printf (text, "Rivulet %s (%s)\n", PACKAGE_VERSION, APP_ID);
  g_string_append_printf (text, "OS: %s\n", os != NULL ? os : "unknown");
  if (display != NULL)
    g_string_append_printf (text, "Display: %s\n", G_OBJECT_TYPE_NAME (display));
  if (g_file_test ("/.flatpak-info", G_FILE_TEST_EXISTS))
    g_string_append (text, "Sandbox: Flatpak\n");

  g_string_append (text, "\nLibraries (running):\n");
  g_string_append_printf (text, "- GLib %u.%u.%u\n",
                          glib_major_version, glib_minor_version, glib_micro_version);
  g_string_append_printf (text, "- GTK %u.%u.%u\n",
                          gtk_get_major_version (), gtk_get_minor_version (),
                          gtk_get_micro_version ());
  g_string_append_printf (text, "- libadwaita %u.%u.%u\n",
                          adw_get_major_version (), adw_get_minor_version (),
                          adw_get_micro_version ());
  g_string_append_printf (text, "- libsoup %u.%u.%u\n",
                          soup_get_major_version (), soup_get_minor_version (),
                          soup_get_micro_version ());
  /* json-glib has no run-time version call: this is the one built against. */
  g_string_append_printf (text, "- json-glib %s (built against)\n", JSON_VERSION_S);

  g_string_append (text, "\nServer:\n");
  if (client != NULL)
    config = riv_client_get_config (client);
  if (client == NULL || config == NULL)
    g_string_append (text, "- not connected\n");
  else
    {
      const char *version = riv_config_get_version (config);
      const char *protocol = riv_config_get_protocol (config);

      g_string_append_printf (text, "- URL: %s\n", riv_client_get_url (client));
      g_string_append_printf (text, "- Gradio version: %s\n",
                              version != NULL && *version != '\0' ? version : "unknown");
      g_string_append_printf (text, "- Protocol: %s\n",
                              protocol != NULL && *protocol != '\0' ? protocol : "unknown");
    }

  return g_string_free (text, FALSE);
}

GtkWidget *
riv_about_window_new (GtkWindow *parent,
                      RivClient *client)
{
  static const char *developers[] = { "The Rivulet authors", NULL };
  g_autofree char *debug_info = NULL;
  AdwAboutWindow *about;

  g_return_val_if_fail (parent == NULL || GTK_IS_WINDOW (parent), NULL);
  g_return_val_if_fail (client == NULL || RIV_IS_CLIENT (client), NULL);

  debug_info = riv_about_dup_debug_info (client);
  about = ADW_ABOUT_WINDOW (adw_about_window_new ());
  if (parent != NULL)
    gtk_window_set_transient_for (GTK_WINDOW (about), parent);
  gtk_window_set_modal (GTK_WINDOW (about), parent != NULL);

  adw_about_window_set_application_icon (about, APP_ID);
  adw_about_window_set_application_name (about, _("Rivulet"));
  adw_about_window_set_developer_name (about, _("The Rivulet authors"));
  adw_about_window_set_version (about, PACKAGE_VERSION);
  adw_about_window_set_comments (about, _("Demo and load-test servers that stream generator "
                                          "output through a Gradio job queue."));
  adw_about_window_set_website (about, RIV_WEBSITE);
  adw_about_window_set_issue_url (about, RIV_ISSUE_URL);
  adw_about_window_set_copyright (about, "© 2026 The Rivulet authors");
  adw_about_window_set_license_type (about, GTK_LICENSE_GPL_3_0);
  adw_about_window_set_developers (about, developers);
  /* Translators: put your name (and e-mail) here, one translator per line */
  adw_about_window_set_translator_credits (about, _("translator-credits"));
  adw_about_window_set_debug_info (about, debug_info);
  adw_about_window_set_debug_info_filename (about, "rivulet-debug-info.txt");

  return GTK_WIDGET (about);
}
