/* riv-application.c
 * Copyright 2026 The Rivulet authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "config.h"

#include <glib/gi18n.h>

#include "riv-about.h"
#include "riv-application-test.h"
#include "riv-json.h"
#include "riv-load-run.h"
#include "riv-preferences-window.h"
#include "riv-settings.h"
#include "riv-window.h"

struct _RivApplication
{
  AdwApplication     parent_instance;

  /* Owned references */
  RivEmbeddedServer *embedded;   /* nullable until first needed */
  GtkCssProvider    *high_contrast; /* nullable before startup */
  gboolean           high_contrast_on; /* high_contrast is on the display */
  int                exit_status;
};

G_DEFINE_FINAL_TYPE (RivApplication, riv_application, ADW_TYPE_APPLICATION)

static const GOptionEntry option_entries[] = {
  { "server", 's', 0, G_OPTION_ARG_STRING, NULL,
    N_("Connect to the Gradio app at URL instead of the embedded demo server"), N_("URL") },
  { "token", 0, 0, G_OPTION_ARG_STRING, NULL,
    N_("Access token sent as a bearer header"), N_("TOKEN") },
  { "endpoint", 'e', 0, G_OPTION_ARG_STRING, NULL,
    N_("Open straight onto this endpoint"), N_("NAME") },
  { "burst", 'n', 0, G_OPTION_ARG_INT, NULL,
    N_("Submit N jobs at start (1–10000)"), N_("N") },
  { "rate", 'r', 0, G_OPTION_ARG_DOUBLE, NULL,
    N_("Burst rate in jobs per second (0 = as fast as possible)"), N_("RATE") },
  /* Strings, read by read_number (): GApplication cannot tell a 0 given from
   * none given. */
  { "users", 'U', 0, G_OPTION_ARG_STRING, NULL,
    N_("Start a load test of N virtual users at start (1–10000), in the Load mode"), N_("N") },
  { "duration", 0, 0, G_OPTION_ARG_STRING, NULL,
    N_("Load test: its length in seconds (1–86400)"), N_("SECONDS") },
  { "think", 0, 0, G_OPTION_ARG_STRING, NULL,
    N_("Load test: each user's pause between a job's end and the next (0–3600 s)"),
    N_("SECONDS") },
  { "stages", 0, 0, G_OPTION_ARG_STRING, NULL,
    N_("Start a load test whose users ramp in stages, e.g. 10s:50,30s:50,10s:0"),
    N_("STAGES") },
  { "data", 'd', 0, G_OPTION_ARG_STRING, NULL,
    N_("Input values as a JSON array, one per endpoint input"), N_("JSON_ARRAY") },
  { "no-embedded", 0, 0, G_OPTION_ARG_NONE, NULL,
    N_("Do not start the embedded demo server"), NULL },
  { "quit-after-burst", 0, 0, G_OPTION_ARG_NONE, NULL,
    N_("Close once the burst or the load test has finished (for benchmarks and scripts)"),
    NULL },
  { "version", 0, 0, G_OPTION_ARG_NONE, NULL, N_("Print the version and exit"), NULL },
  { NULL }
};

static JsonNode *
parse_data_option (const char  *text,
                   GError     **error)
{
  g_autoptr(JsonNode) node = NULL;

  node = riv_json_parse (NULL, text, -1, 64, error);
  if (node == NULL)
    return NULL;
  if (!JSON_NODE_HOLDS_ARRAY (node))
    {
      g_set_error_literal (error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
                           _("it is not a JSON array"));
      return NULL;
    }
  return g_steal_pointer (&node);
}

static gboolean
wants_load (GVariantDict *options)
{
  return g_variant_dict_contains (options, "users") ||
         g_variant_dict_contains (options, "stages") ||
         g_variant_dict_contains (options, "duration") ||
         g_variant_dict_contains (options, "think");
}

/* Option name as a number within [min, max]: TRUE (and *value) when it
 * is, or when it is not given (*value untouched); FALSE after saying why. */
static gboolean
read_number (GVariantDict *options,
             const char   *name,
             double        min,
             double        max,
             gboolean      whole,
             double       *value)
{
  const char *text = NULL;
  char *end = NULL;
  double number;

  if (!g_variant_dict_lookup (options, name, "&s", &text))
    return TRUE;
  number = g_ascii_strtod (text, &end);
  if (end != text && *end == '\0' && number >= min && number <= max &&
      (!whole || number == (double) (gint64) number))
    {
      *value = number;
      return TRUE;
    }
  if (whole)
    g_printerr (_("rivulet: --%s must be a whole number between %g and %g\n"), name, min, max);
  else
    g_printerr (_("rivulet: --%s must be a number of seconds between %g and %g\n"), name, min,
                max);
  return FALSE;
}

/* The load test's options, read as rivulet-cli load reads them; FALSE after
 * saying what is wrong. */
static gboolean
read_load_options (GVariantDict     *options,
                   RivWindowStartup *startup)
{
  const char *stages = NULL;
  double users = 0;

  startup->think = -1;
  if (!wants_load (options))
    return TRUE;
  startup->load = TRUE;
  if (g_variant_dict_contains (options, "burst"))
    {
      g_printerr (_("rivulet: --burst and a load test (--users, --stages) are one or the other\n"));
      return FALSE;
    }
  if (!read_number (options, "users", 1, 10000, TRUE, &users) ||
      !read_number (options, "duration", 1, 86400, FALSE, &startup->duration) ||
      !read_number (options, "think", 0, 3600, FALSE, &startup->think))
    return FALSE;
  startup->users = (guint) users;
  if (g_variant_dict_lookup (options, "stages", "&s", &stages))
    {
      g_autoptr(GArray) parsed = NULL;
      g_autoptr(GError) error = NULL;

      if (g_variant_dict_contains (options, "users") || g_variant_dict_contains (options, "duration"))
        {
          g_printerr (_("rivulet: --stages sets the users and the length: "
                        "give it without --users and --duration\n"));
          return FALSE;
        }
      if (!riv_load_parse_stages (stages, &parsed, &error))
        {
          g_printerr ("rivulet: %s\n", error->message);
          return FALSE;
        }
      startup->stages = g_strdup (stages);
    }
  return TRUE;
}

static int
riv_application_handle_local_options (GApplication *application,
                                      GVariantDict *options)
{
  const char *data = NULL;
  gint32 burst = 0;
  double rate = 0;

  if (g_variant_dict_contains (options, "version"))
    {
      g_print ("rivulet %s\n", PACKAGE_VERSION);
      return 0;
    }

  /* Bad input is reported here, in the calling process, with exit status 2. */
  if (g_variant_dict_lookup (options, "data", "&s", &data))
    {
      g_autoptr(GError) error = NULL;
      g_autoptr(JsonNode) node = parse_data_option (data, &error);

      if (node == NULL)
        {
          g_printerr (_("rivulet: --data is not a valid JSON array: %s\n"), error->message);
          return 2;
        }
    }

  if (g_variant_dict_lookup (options, "burst", "i", &burst) && (burst < 1 || burst > 10000))
    {
      g_printerr (_("rivulet: --burst must be between 1 and 10000\n"));
      return 2;
    }

  if (g_variant_dict_lookup (options, "rate", "d", &rate) && rate < 0)
    {
      g_printerr (_("rivulet: --rate must not be negative\n"));
      return 2;
    }

  {
    g_autoptr(RivWindowStartup) startup = g_new0 (RivWindowStartup, 1);

    if (!read_load_options (options, startup))
      return 2;
  }
  return -1;
}

static RivEmbeddedServer *
riv_application_ensure_embedded (RivApplication *self)
{
  if (self->embedded == NULL)
    self->embedded = riv_embedded_server_new ();
  return self->embedded;
}

static void
riv_application_window_destroy_cb (RivApplication *self,
                                   RivWindow      *window)
{
  int status = riv_window_get_exit_status (window);

  if (status != 0)
    self->exit_status = status;
}

static RivWindow *
riv_application_new_window (RivApplication *self,
                            gboolean        embedded)
{
  RivWindow *window;

  window = riv_window_new (GTK_APPLICATION (self),
                           embedded ? riv_application_ensure_embedded (self) : NULL);
  g_signal_connect_object (window, "destroy",
                           G_CALLBACK (riv_application_window_destroy_cb), self,
                           G_CONNECT_SWAPPED);
  return window;
}

static int
riv_application_command_line (GApplication            *application,
                              GApplicationCommandLine *command_line)
{
  RivApplication *self = RIV_APPLICATION (application);
  GVariantDict *options = g_application_command_line_get_options_dict (command_line);
  g_autoptr(RivWindowStartup) startup = g_new0 (RivWindowStartup, 1);
  g_autoptr(GSettings) settings = riv_settings_new ();
  const char *data = NULL;
  gint32 burst = 0;
  gboolean no_embedded;
  RivWindow *window;

  g_variant_dict_lookup (options, "server", "s", &startup->server_url);
  g_variant_dict_lookup (options, "token", "s", &startup->token);
  g_variant_dict_lookup (options, "endpoint", "s", &startup->endpoint);
  g_variant_dict_lookup (options, "rate", "d", &startup->rate);
  if (g_variant_dict_lookup (options, "burst", "i", &burst))
    startup->burst = (guint) CLAMP (burst, 1, 10000);
  startup->quit_after_burst = g_variant_dict_contains (options, "quit-after-burst");
  /* Checked in the calling process (handle_local_options). */
  if (!read_load_options (options, startup))
    return 2;
  no_embedded = g_variant_dict_contains (options, "no-embedded") ||
                !g_settings_get_boolean (settings, "start-embedded-server");

  if (g_variant_dict_lookup (options, "data", "&s", &data))
    {
      g_autoptr(GError) error = NULL;

      if (!(startup->data = parse_data_option (data, &error)))
        {
          g_application_command_line_printerr (command_line,
                                               _("rivulet: --data is not a valid JSON array: %s\n"),
                                               error->message);
          return 2;
        }
    }

  if (startup->server_url == NULL && no_embedded)
    {
      g_autofree char *last = g_settings_get_string (settings, "last-server-url");

      if (*last != '\0')
        startup->server_url = g_steal_pointer (&last);
    }

  window = riv_application_new_window (self, startup->server_url == NULL && !no_embedded);
  gtk_window_present (GTK_WINDOW (window));

  if (startup->server_url != NULL || !no_embedded)
    riv_window_start (window, g_steal_pointer (&startup));
  else
    gtk_widget_activate_action (GTK_WIDGET (window), "win.connect", NULL);

  return 0;
}

static void
riv_application_activate (GApplication *application)
{
  RivApplication *self = RIV_APPLICATION (application);
  GtkWindow *window = gtk_application_get_active_window (GTK_APPLICATION (self));

  if (window == NULL)
    {
      RivWindow *new_window = riv_application_new_window (self, TRUE);

      gtk_window_present (GTK_WINDOW (new_window));
      riv_window_start (new_window, g_new0 (RivWindowStartup, 1));
      return;
    }
  gtk_window_present (window);
}

static void
riv_application_shutdown (GApplication *application)
{
  RivApplication *self = RIV_APPLICATION (application);

  G_APPLICATION_CLASS (riv_application_parent_class)->shutdown (application);

  /* The windows (and their clients) are gone: now stop serving. */
  if (self->embedded != NULL)
    riv_embedded_server_stop (self->embedded);
}

static GtkWindow *
riv_application_get_main_window (RivApplication *self)
{
  GtkWindow *window = gtk_application_get_active_window (GTK_APPLICATION (self));

  /* The active window may be a dialog; its parent is the main window. */
  while (window != NULL && !RIV_IS_WINDOW (window) &&
         gtk_window_get_transient_for (window) != NULL)
    window = gtk_window_get_transient_for (window);

  return window;
}

static void
riv_application_about_action (GSimpleAction *action,
                              GVariant      *parameter,
                              gpointer       user_data)
{
  RivApplication *self = user_data;
  GtkWindow *parent = riv_application_get_main_window (self);
  RivClient *client = NULL;
  GtkWidget *about;

  if (parent != NULL && RIV_IS_WINDOW (parent))
    client = riv_window_get_client (RIV_WINDOW (parent));

  about = riv_about_window_new (parent, client);
  riv_dialog_present (about, parent);
}

static void
riv_application_preferences_action (GSimpleAction *action,
                                    GVariant      *parameter,
                                    gpointer       user_data)
{
  RivApplication *self = user_data;
  GtkWindow *parent = riv_application_get_main_window (self);
  GtkWidget *preferences = riv_preferences_window_new (parent);

  if (GTK_IS_WINDOW (preferences))
    gtk_window_set_application (GTK_WINDOW (preferences), GTK_APPLICATION (self));
  riv_dialog_present (preferences, parent);
}

static void
riv_application_quit_action (GSimpleAction *action,
                             GVariant      *parameter,
                             gpointer       user_data)
{
  RivApplication *self = user_data;
  g_autoptr(GList) windows = g_list_copy (gtk_application_get_windows (GTK_APPLICATION (self)));

  /* Closing each window cancels its work cleanly (close-request). */
  for (GList *l = windows; l != NULL; l = l->next)
    gtk_window_close (l->data);
}

static const GActionEntry app_actions[] = {
  { "about", riv_application_about_action },
  { "preferences", riv_application_preferences_action },
  { "quit", riv_application_quit_action },
};

/* riv-high-contrast.css on top of the app's style while high contrast is on. */
static void
high_contrast_cb (RivApplication *self)
{
  GdkDisplay *display = gdk_display_get_default ();
  GtkStyleProvider *provider = GTK_STYLE_PROVIDER (self->high_contrast);

  gboolean on = adw_style_manager_get_high_contrast (adw_style_manager_get_default ());

  if (display == NULL || on == self->high_contrast_on)
    return;
  if (on)
    gtk_style_context_add_provider_for_display (display, provider,
                                                GTK_STYLE_PROVIDER_PRIORITY_APPLICATION + 1);
  else
    gtk_style_context_remove_provider_for_display (display, provider);
  self->high_contrast_on = on;
}

gboolean
riv_application_is_high_contrast_styled (RivApplication *self)
{
  g_return_val_if_fail (RIV_IS_APPLICATION (self), FALSE);

  return self->high_contrast_on;
}

static void
riv_application_startup (GApplication *application)
{
  RivApplication *self = RIV_APPLICATION (application);
  GtkApplication *gtk_app = GTK_APPLICATION (application);
  struct { const char *action; const char *accels[3]; } accels[] = {
    { "app.quit", { "<Control>q", NULL } },
    { "app.preferences", { "<Control>comma", NULL } },
    { "win.copy-text", { "<Control><Shift>c", NULL } },
    { "win.copy-image", { "<Control><Alt>c", NULL } },
    { "win.save-image", { "<Control>s", NULL } },
    { "win.submit", { "<Control>Return", "<Control>KP_Enter", NULL } },
    { "win.burst", { "<Control><Shift>Return", NULL } },
    { "win.connect", { "<Control>l", NULL } },
    { "win.export", { "<Control>e", NULL } },
    { "win.focus-search", { "<Control>f", NULL } },
    { "win.cancel-all", { "<Control><Shift>Delete", NULL } },
    { "window.close", { "<Control>w", NULL } },
  };

  G_APPLICATION_CLASS (riv_application_parent_class)->startup (application);

  g_action_map_add_action_entries (G_ACTION_MAP (self), app_actions,
                                   G_N_ELEMENTS (app_actions), self);
  for (guint i = 0; i < G_N_ELEMENTS (accels); i++)
    gtk_application_set_accels_for_action (gtk_app, accels[i].action, accels[i].accels);

  self->high_contrast = gtk_css_provider_new ();
  gtk_css_provider_load_from_resource (self->high_contrast,
                                       "/io/github/rivulet/Rivulet/riv-high-contrast.css");
  g_signal_connect_object (adw_style_manager_get_default (), "notify::high-contrast",
                           G_CALLBACK (high_contrast_cb), self, G_CONNECT_SWAPPED);
  high_contrast_cb (self);
}

static void
riv_application_dispose (GObject *object)
{
  RivApplication *self = (RivApplication *) object;

  if (self->embedded != NULL)
    riv_embedded_server_stop (self->embedded);
  g_clear_object (&self->embedded);
  if (self->high_contrast_on)
    gtk_style_context_remove_provider_for_display (gdk_display_get_default (),
                                                   GTK_STYLE_PROVIDER (self->high_contrast));
  self->high_contrast_on = FALSE;
  g_clear_object (&self->high_contrast);

  G_OBJECT_CLASS (riv_application_parent_class)->dispose (object);
}

static void
riv_application_class_init (RivApplicationClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GApplicationClass *app_class = G_APPLICATION_CLASS (klass);

  object_class->dispose = riv_application_dispose;
  app_class->handle_local_options = riv_application_handle_local_options;
  app_class->command_line = riv_application_command_line;
  app_class->activate = riv_application_activate;
  app_class->startup = riv_application_startup;
  app_class->shutdown = riv_application_shutdown;
}

static void
riv_application_init (RivApplication *self)
{
  g_application_add_main_option_entries (G_APPLICATION (self), option_entries);
  g_application_set_option_context_parameter_string (G_APPLICATION (self), NULL);
  g_application_set_option_context_summary (G_APPLICATION (self),
                                            _("Demo and load-test Gradio job queues."));
}

RivApplication *
riv_application_new (void)
{
  return g_object_new (RIV_TYPE_APPLICATION,
                       "application-id", APP_ID,
                       "flags", G_APPLICATION_HANDLES_COMMAND_LINE,
                       "resource-base-path", RIV_RESOURCE_PATH,
                       NULL);
}

RivEmbeddedServer *
riv_application_get_embedded_server (RivApplication *self)
{
  g_return_val_if_fail (RIV_IS_APPLICATION (self), NULL);

  return riv_application_ensure_embedded (self);
}

int
riv_application_get_exit_status (RivApplication *self)
{
  g_return_val_if_fail (RIV_IS_APPLICATION (self), 1);

  return self->exit_status;
}
