/* riv-window-load.c
 * Copyright 2026 The Rivulet authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The window's Load mode, beside Burst: its settings (RivLoadSettings) take
 * the Burst settings' place, its page (RivLoadPage: the run, the live charts,
 * "Save Report") the output view's, and "Start Load" the Burst button's. The
 * window gives the page its client and, on Start, the selected endpoint and
 * the form's inputs; the page's "toast" messages become the window's toasts.
 */
#include "config.h"

#include <glib/gi18n.h>
#include <string.h>

#include "riv-a11y.h"
#include "riv-form.h"
#include "riv-json.h"
#include "riv-window-private.h"

/* The command line's load test, ended: its summary printed, the window closed. */
static void
quit_after_load (RivWindow *self)
{
  RivLoadRun *run = riv_load_page_get_run (self->load_page);

  if (self->startup == NULL || !self->startup->load || !self->startup->quit_after_burst ||
      run == NULL || riv_load_page_get_running (self->load_page))
    return;
  g_print ("rivulet: load test: %s\n", riv_load_page_get_summary (self->load_page));
  /* As rivulet-cli load: 0 only when every job completed. */
  if (riv_load_run_get_completed (run) != riv_load_run_get_submitted (run) ||
      riv_load_run_get_submitted (run) == 0)
    self->startup->exit_status = 1;
  gtk_window_close (GTK_WINDOW (self));
}

static void
running_changed_cb (RivWindow   *self,
                    GParamSpec  *pspec,
                    RivLoadPage *page)
{
  if (!riv_load_page_get_running (page) && riv_load_page_get_run (page) != NULL)
    {
      /* Translators: told to a screen reader; %s is the run's summary line */
      g_autofree char *text = g_strdup_printf (_("Load test finished: %s"),
                                               riv_load_page_get_summary (page));

      riv_a11y_announce (GTK_WIDGET (self), text);
    }
  riv_submit_bar_set_load_running (self->submit_bar, riv_load_page_get_running (page));
  _riv_window_update_actions (self);
  quit_after_load (self);
}

static void
page_toast_cb (RivWindow   *self,
               const char  *message,
               RivLoadPage *page)
{
  _riv_window_toast (self, message);
}

static gboolean
can_start (RivWindow *self)
{
  return riv_window_get_client (self) != NULL && riv_form_get_endpoint (self->form) != NULL &&
         !riv_form_get_busy (self->form) && !riv_load_page_get_running (self->load_page);
}

gboolean
riv_window_start_load (RivWindow *self)
{
  g_autoptr(JsonNode) data = NULL;
  g_autofree char *endpoint = NULL;

  g_return_val_if_fail (RIV_IS_WINDOW (self), FALSE);

  if (!can_start (self))
    return FALSE;

  endpoint = _riv_window_dup_endpoint_name (self);
  data = riv_form_dup_data (self->form);
  {
    g_autoptr(GPtrArray) examples = riv_form_dup_examples (self->form);

    riv_load_page_set_examples (self->load_page, examples);
  }
  if (!riv_load_page_start (self->load_page, endpoint, data))
    return FALSE;

  if (self->stall_monitor != NULL)
    {
      g_autofree char *label = g_strdup_printf ("load test on /%s", endpoint);

      riv_stall_monitor_mark (self->stall_monitor, label);
    }
  gtk_stack_set_visible_child_name (self->view_stack, "charts");
  /* As Submit and Burst do: a narrow window turns to the charts. */
  _riv_window_show_jobs (self);
  return TRUE;
}

void
riv_window_stop_load (RivWindow *self)
{
  g_return_if_fail (RIV_IS_WINDOW (self));

  riv_load_page_stop (self->load_page);
}

void
_riv_window_set_startup_load (RivWindow *self)
{
  RivLoadSettings *settings = riv_load_page_get_settings (self->load_page);
  RivWindowStartup *startup = self->startup;
  g_autofree char *stages = riv_load_settings_dup_stages_text (settings);

  riv_window_set_load_mode (self, TRUE);
  riv_load_settings_set (settings,
                         startup->users > 0 ? startup->users : riv_load_settings_get_users (settings),
                         startup->duration > 0 ? startup->duration
                                               : riv_load_settings_get_duration (settings),
                         startup->think >= 0 ? startup->think
                                             : riv_load_settings_get_think (settings),
                         startup->stages != NULL ? startup->stages
                                                 : startup->users > 0 ? "" : stages);
}

void
_riv_window_start_startup_load (RivWindow *self)
{
  if (riv_window_start_load (self))
    return;
  g_printerr ("rivulet: %s\n", _("Could not start the load test"));
  self->startup->exit_status = 2;
  if (self->startup->quit_after_burst)
    gtk_window_close (GTK_WINDOW (self));
}

/* One word for a POSIX shell: as it is when plain, else in single quotes. */
static void
append_word (GString    *line,
             const char *word)
{
  gboolean plain = *word != '\0';

  for (const char *p = word; *p != '\0' && plain; p++)
    plain = g_ascii_isalnum (*p) || strchr ("@%+=:,./_-", *p) != NULL;
  if (line->len > 0)
    g_string_append_c (line, ' ');
  if (plain)
    g_string_append (line, word);
  else
    {
      g_autofree char *quoted = g_shell_quote (word);

      g_string_append (line, quoted);
    }
}

static void
append_number (GString    *line,
               const char *option,
               double      value)
{
  char number[G_ASCII_DTOSTR_BUF_SIZE];

  append_word (line, option);
  append_word (line, g_ascii_formatd (number, sizeof number, "%g", value));
}

/* The server's address without a password in it. */
static char *
dup_url_to_share (const char *url)
{
  g_autoptr(GUri) uri = g_uri_parse (url, G_URI_FLAGS_NONE, NULL);

  if (uri == NULL || g_uri_get_userinfo (uri) == NULL)
    return g_strdup (url);
  return g_uri_join (G_URI_FLAGS_NONE, g_uri_get_scheme (uri), NULL, g_uri_get_host (uri),
                     g_uri_get_port (uri), g_uri_get_path (uri), g_uri_get_query (uri),
                     g_uri_get_fragment (uri));
}

char *
riv_window_dup_load_command (RivWindow *self)
{
  RivLoadSettings *settings;
  g_autoptr(JsonNode) data = NULL;
  g_autofree char *endpoint = NULL;
  g_autofree char *url = NULL;
  g_autofree char *json = NULL;
  g_autofree char *stages = NULL;
  GString *line;

  g_return_val_if_fail (RIV_IS_WINDOW (self), NULL);

  if (riv_window_get_client (self) == NULL || riv_form_get_endpoint (self->form) == NULL)
    return NULL;
  settings = riv_load_page_get_settings (self->load_page);
  endpoint = _riv_window_dup_endpoint_name (self);
  data = riv_form_dup_data (self->form);
  json = riv_json_to_string (data, NULL);
  /* A Space by its name: the CLI asks the Hub again, as the window did. */
  url = riv_connection_get_space_id (self->connection) != NULL
          ? g_strdup (riv_connection_get_space_id (self->connection))
                               : dup_url_to_share (riv_client_get_url (riv_window_get_client (self)));
  stages = riv_load_settings_dup_stages_text (settings);

  line = g_string_new (NULL);
  append_word (line, "rivulet-cli");
  append_word (line, "load");
  append_word (line, "--url");
  append_word (line, url);
  append_word (line, "--endpoint");
  append_word (line, endpoint);
  append_word (line, "--data");
  append_word (line, json);
  if (*stages != '\0')
    {
      append_word (line, "--stages");
      append_word (line, stages);
    }
  else
    {
      append_number (line, "--users", riv_load_settings_get_users (settings));
      append_number (line, "--duration", riv_load_settings_get_duration (settings));
    }
  if (riv_load_settings_get_think (settings) > 0)
    append_number (line, "--think", riv_load_settings_get_think (settings));
  if (riv_client_get_tls_insecure (riv_window_get_client (self)))
    append_word (line, "--insecure");
  return g_string_free (line, FALSE);
}

static void
copy_command_action (GtkWidget  *widget,
                     const char *action_name,
                     GVariant   *param)
{
  RivWindow *self = RIV_WINDOW (widget);
  g_autofree char *command = riv_window_dup_load_command (self);
  const char *token = riv_connection_get_token (self->connection);

  if (command == NULL)
    return;
  gdk_clipboard_set_text (gtk_widget_get_clipboard (widget), command);
  /* The token stays out of the clipboard: rivulet-cli reads $RIVULET_TOKEN. */
  _riv_window_toast (self, token != NULL && *token != '\0'
                           ? _("Command copied; it reads the token from RIVULET_TOKEN")
                           : _("Command copied"));
}

static void
load_action (GtkWidget  *widget,
             const char *action_name,
             GVariant   *param)
{
  riv_window_start_load (RIV_WINDOW (widget));
}

static void
stop_load_action (GtkWidget  *widget,
                  const char *action_name,
                  GVariant   *param)
{
  riv_window_stop_load (RIV_WINDOW (widget));
}

void
riv_window_save_load_report_async (RivWindow           *self,
                                   GFile               *file,
                                   GAsyncReadyCallback  callback,
                                   gpointer             user_data)
{
  g_return_if_fail (RIV_IS_WINDOW (self));

  riv_load_page_save_report_async (self->load_page, file, callback, user_data);
}

gboolean
riv_window_save_load_report_finish (RivWindow     *self,
                                    GAsyncResult  *result,
                                    GError       **error)
{
  g_return_val_if_fail (RIV_IS_WINDOW (self), FALSE);

  return riv_load_page_save_report_finish (self->load_page, result, error);
}

static void
mode_changed_cb (RivWindow  *self,
                 GParamSpec *pspec,
                 GtkStack   *stack)
{
  gboolean loading = g_strcmp0 (gtk_stack_get_visible_child_name (stack), "load") == 0;

  riv_submit_bar_set_load_mode (self->submit_bar, loading);
  gtk_stack_set_visible_child_name (self->view_stack, loading ? "charts" : "output");
  /* The users' jobs are not the window's: the charts take the job panel's room. */
  gtk_widget_set_visible (GTK_WIDGET (self->job_panel), !loading);
}

void
riv_window_set_load_mode (RivWindow *self,
                          gboolean   loading)
{
  g_return_if_fail (RIV_IS_WINDOW (self));

  gtk_stack_set_visible_child_name (self->mode_stack, loading ? "load" : "burst");
}

void
riv_window_set_load (RivWindow  *self,
                     guint       users,
                     double      duration,
                     double      think,
                     const char *stages)
{
  g_return_if_fail (RIV_IS_WINDOW (self));

  riv_load_settings_set (riv_load_page_get_settings (self->load_page), users, duration, think,
                         stages);
}

RivLoadPage *
riv_window_get_load_page (RivWindow *self)
{
  g_return_val_if_fail (RIV_IS_WINDOW (self), NULL);

  return self->load_page;
}

RivLoadRun *
riv_window_get_load_run (RivWindow *self)
{
  g_return_val_if_fail (RIV_IS_WINDOW (self), NULL);

  return riv_load_page_get_run (self->load_page);
}

RivMetrics *
riv_window_get_load_metrics (RivWindow *self)
{
  g_return_val_if_fail (RIV_IS_WINDOW (self), NULL);

  return riv_load_page_get_metrics (self->load_page);
}

RivChart *
riv_window_get_load_chart (RivWindow    *self,
                           RivLoadChart  chart)
{
  g_return_val_if_fail (RIV_IS_WINDOW (self), NULL);

  return riv_load_page_get_chart (self->load_page, chart);
}

void
_riv_window_load_update_actions (RivWindow *self)
{
  if (self->load_page == NULL)
    return;
  gtk_widget_action_set_enabled (GTK_WIDGET (self), "win.load", can_start (self));
  gtk_widget_action_set_enabled (GTK_WIDGET (self), "win.stop-load",
                                 riv_load_page_get_running (self->load_page));
  gtk_widget_action_set_enabled (GTK_WIDGET (self), "win.copy-load-command",
                                 riv_window_get_client (self) != NULL &&
                                 riv_form_get_endpoint (self->form) != NULL);
}

void
_riv_window_class_load_init (GtkWidgetClass *widget_class)
{
  gtk_widget_class_install_action (widget_class, "win.load", NULL, load_action);
  gtk_widget_class_install_action (widget_class, "win.stop-load", NULL, stop_load_action);
  gtk_widget_class_install_action (widget_class, "win.copy-load-command", NULL,
                                   copy_command_action);
}

/* After the template (riv-window.ui) is built. */
void
_riv_window_load_init (RivWindow *self)
{
  g_signal_connect_object (self->load_page, "notify::running",
                           G_CALLBACK (running_changed_cb), self, G_CONNECT_SWAPPED);
  g_signal_connect_object (self->load_page, "toast", G_CALLBACK (page_toast_cb), self,
                           G_CONNECT_SWAPPED);
  g_signal_connect_object (self->mode_stack, "notify::visible-child-name",
                           G_CALLBACK (mode_changed_cb), self, G_CONNECT_SWAPPED);
  mode_changed_cb (self, NULL, self->mode_stack);
}
