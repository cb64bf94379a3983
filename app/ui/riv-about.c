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

/* AdwAboutDialog on libadwaita 1.5 and later, AdwAboutWindow before: the same calls. */
#if ADW_CHECK_VERSION (1, 5, 0)
typedef AdwAboutDialog RivAboutWidget;
#define RIV_ABOUT(w)        ADW_ABOUT_DIALOG (w)
#define RIV_ABOUT_CALL(f)   adw_about_dialog_##f
#else
typedef AdwAboutWindow RivAboutWidget;
#define RIV_ABOUT(w)        ADW_ABOUT_WINDOW (w)
#define RIV_ABOUT_CALL(f)   adw_about_window_##f
#endif

GtkWidget *
riv_about_window_new (GtkWindow *parent,
                      RivClient *client)
{
  static const char *developers[] = { "The Rivulet authors", NULL };
  g_autofree char *debug_info = NULL;
  RivAboutWidget *about;

  g_return_val_if_fail (parent == NULL || GTK_IS_WINDOW (parent), NULL);
  g_return_val_if_fail (client == NULL || RIV_IS_CLIENT (client), NULL);

  debug_info = riv_about_dup_debug_info (client);
  about = RIV_ABOUT (RIV_ABOUT_CALL (new) ());
#if !ADW_CHECK_VERSION (1, 5, 0)
  if (parent != NULL)
    gtk_window_set_transient_for (GTK_WINDOW (about), parent);
  gtk_window_set_modal (GTK_WINDOW (about), parent != NULL);
#endif

  RIV_ABOUT_CALL (set_application_icon) (about, APP_ID);
  RIV_ABOUT_CALL (set_application_name) (about, _("Rivulet"));
  RIV_ABOUT_CALL (set_developer_name) (about, _("The Rivulet authors"));
  RIV_ABOUT_CALL (set_version) (about, PACKAGE_VERSION);
  RIV_ABOUT_CALL (set_comments) (about, _("Demo and load-test servers that stream generator "
                                          "output through a Gradio job queue."));
  RIV_ABOUT_CALL (set_website) (about, RIV_WEBSITE);
  RIV_ABOUT_CALL (set_issue_url) (about, RIV_ISSUE_URL);
  RIV_ABOUT_CALL (set_copyright) (about, "© 2026 The Rivulet authors");
  RIV_ABOUT_CALL (set_license_type) (about, GTK_LICENSE_GPL_3_0);
  RIV_ABOUT_CALL (set_developers) (about, developers);
  /* Translators: put your name (and e-mail) here, one translator per line */
  RIV_ABOUT_CALL (set_translator_credits) (about, _("translator-credits"));
  RIV_ABOUT_CALL (set_debug_info) (about, debug_info);
  RIV_ABOUT_CALL (set_debug_info_filename) (about, "rivulet-debug-info.txt");

  return GTK_WIDGET (about);
}

void
riv_dialog_present (GtkWidget *dialog,
                    GtkWindow *parent)
{
#if ADW_CHECK_VERSION (1, 5, 0)
  if (ADW_IS_DIALOG (dialog))
    {
      adw_dialog_present (ADW_DIALOG (dialog), parent != NULL ? GTK_WIDGET (parent) : NULL);
      return;
    }
#endif
  gtk_window_present (GTK_WINDOW (dialog));
}
