/* riv-window.c
 * Copyright 2026 The Rivulet authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "config.h"

#include <glib/gi18n.h>

#include "riv-a11y.h"
#include "riv-compat.h"
#include "riv-format.h"
#include "riv-settings.h"
#include "riv-space.h"
#include "riv-window-private.h"

#define MAX_RECENT_URLS 8

G_DEFINE_FINAL_TYPE (RivWindow, riv_window, ADW_TYPE_APPLICATION_WINDOW)

/* Header: where we are connected and how the stream is. */

/* The state in the title's pill; TRUE when the connection is lost. */
static gboolean
riv_window_update_state (RivWindow *self,
                         RivClient *client)
{
  if (client == NULL)
    {
      if (riv_connection_get_state (self->connection) != RIV_CONNECTION_STATE_IDLE)
        riv_status_title_set_state (self->status_title, _("Connecting…"), "warning");
      else
        riv_status_title_set_state (self->status_title, _("Not connected"), "dim-label");
      return FALSE;
    }

  switch (riv_client_get_stream_state (client))
    {
    case RIV_STREAM_STATE_IDLE:
      riv_status_title_set_state (self->status_title, _("Connected"), "success");
      break;
    case RIV_STREAM_STATE_CONNECTING:
      riv_status_title_set_state (self->status_title, _("Connected · opening stream"), "success");
      break;
    case RIV_STREAM_STATE_CONNECTED:
      riv_status_title_set_state (self->status_title, _("Connected · streaming"), "success");
      break;
    case RIV_STREAM_STATE_RECONNECTING:
      riv_status_title_set_state (self->status_title, _("Reconnecting…"), "warning");
      break;
    case RIV_STREAM_STATE_DISCONNECTED:
    default:
      riv_status_title_set_state (self->status_title, _("Disconnected"), "error");
      return TRUE;
    }
  return FALSE;
}

static void
riv_window_update_header (RivWindow *self)
{
  RivClient *client = riv_connection_get_client (self->connection);
  const char *host = riv_connection_get_url (self->connection);
  g_autofree char *subtitle = NULL;
  gboolean lost = riv_window_update_state (self, client);

  if (client == NULL && riv_connection_get_pending_url (self->connection) != NULL)
    host = riv_connection_get_pending_url (self->connection);

  if (host == NULL)
    subtitle = g_strdup (_("No server"));
  else if (client != NULL ? riv_connection_get_embedded (self->connection)
                          : riv_connection_get_pending_embedded (self->connection))
    subtitle = g_strdup_printf (_("Embedded demo server · %s"), host);
  else if (riv_recorder_is_replay_url (self->recorder, host))
    subtitle = g_strdup_printf (_("Replay of %s · %s"), riv_recorder_get_replay_name (self->recorder),
                                host);
  else if (client != NULL && riv_client_get_tls_insecure (client))
    subtitle = g_strdup_printf (_("%s · certificate not checked"), host);
  else
    subtitle = g_strdup (host);
  riv_status_title_set_server (self->status_title, subtitle);

  /* The connection's details: the server's root, when Rivulet corrected it. */
  if (client != NULL && riv_client_get_config (client) != NULL &&
      riv_config_get_reported_root (riv_client_get_config (client)) != NULL)
    {
      RivConfig *config = riv_client_get_config (client);
      g_autofree char *details =
        g_strdup_printf (_("%s\nServer root corrected: the server said %s; Rivulet uses %s, the "
                           "address connected to (as Gradio's own page does)"),
                         riv_status_title_get_text (self->status_title),
                         riv_config_get_reported_root (config), riv_config_get_root (config));

      riv_status_title_set_details (self->status_title, details);
    }

  if (lost)
    riv_lost_strip_show (self->lost_strip, host);
  else
    riv_lost_strip_hide (self->lost_strip);
}

/* Once-per-frame updates */

static void
riv_window_show_job (RivWindow *self,
                     RivJob    *job)
{
  riv_output_view_set_job (self->output_view, job, riv_connection_get_config (self->connection));
  _riv_window_update_actions (self);
}

void
_riv_window_follow_job (RivWindow *self,
                        RivJob    *job)
{
  riv_output_view_follow_job (self->output_view, job);
}

/* Client signals */

static void
riv_window_stream_state_cb (RivWindow  *self,
                            GParamSpec *pspec,
                            RivClient  *client)
{
  riv_window_update_header (self);
}

/* Notifications */

static gboolean
riv_window_is_active (RivWindow *self)
{
  return riv_notifier_is_active (self->notifier, gtk_window_is_active (GTK_WINDOW (self)));
}

static void
riv_window_send_notice (RivWindow *self,
                        RivNotice *notice)
{
  GtkApplication *application = gtk_window_get_application (GTK_WINDOW (self));

  riv_notifier_send (self->notifier, application != NULL ? G_APPLICATION (application) : NULL,
                     notice);
}

static void
riv_window_active_cb (RivWindow  *self,
                      GParamSpec *pspec,
                      gpointer    user_data)
{
  GtkApplication *application = gtk_window_get_application (GTK_WINDOW (self));

  /* Back at the window: what the notifications said is on screen now. */
  if (application != NULL && riv_notifier_get_last (self->notifier) != NULL &&
      riv_window_is_active (self))
    {
      g_application_withdraw_notification (G_APPLICATION (application), "burst-finished");
      g_application_withdraw_notification (G_APPLICATION (application), "job-finished");
    }
}

static void
riv_window_burst_failed_cb (RivWindow          *self,
                            const GError       *error,
                            RivBurstController *bursts)
{
  RivBurst *burst = riv_burst_controller_get_burst (bursts);
  guint n = burst != NULL ? riv_burst_get_n_submitted (burst) : 0;
  g_autofree char *text =
    g_strdup_printf (g_dngettext (GETTEXT_PACKAGE, "The burst stopped after %u job: %s",
                                  "The burst stopped after %u jobs: %s", n),
                     n, error->message);

  _riv_window_report (self, RIV_REPORT_SUBMIT, text);
}

/* Every job of a burst finished: said once, and notified when wanted. */
static void
riv_window_burst_summarized_cb (RivWindow           *self,
                                const RivBurstTally *tally)
{
  RivNotice *notice;

  {
    g_autoptr(RivNotice) said = riv_notice_describe_burst (tally);
    g_autofree char *sentence = riv_notice_to_sentence (said);

    riv_a11y_announce (GTK_WIDGET (self), sentence);
  }
  notice = riv_notice_for_burst (tally, FALSE,
                                 g_settings_get_boolean (self->settings, "notifications"),
                                 riv_window_is_active (self));
  if (notice != NULL)
    riv_window_send_notice (self, notice);
}

static void
riv_window_job_finished_cb (RivWindow *self,
                            RivJob    *job,
                            RivClient *client)
{
  RivJobStatus status = riv_job_get_status (job);

  if (!riv_burst_controller_job_finished (self->bursts, job))
    {
      RivNotice *notice;

      if (job == riv_output_view_get_job (self->output_view))
        {
          g_autoptr(RivNotice) said =
            riv_notice_describe_job (riv_job_get_number (job), riv_job_get_endpoint (job), status,
                                     riv_job_get_error (job), riv_job_get_total_time (job));
          g_autofree char *sentence = riv_notice_to_sentence (said);

          riv_a11y_announce (GTK_WIDGET (self), sentence);
        }
      notice =
        riv_notice_for_job (riv_job_get_number (job), riv_job_get_endpoint (job), status,
                            riv_job_get_error (job), riv_job_get_total_time (job), FALSE,
                            g_settings_get_boolean (self->settings, "notifications"),
                            riv_window_is_active (self));

      if (notice != NULL)
        riv_window_send_notice (self, notice);
    }

  if (status == RIV_JOB_STATUS_FAILED)
    {
      g_autofree char *text =
        g_strdup_printf (_("Job #%u failed: %s"), riv_job_get_number (job),
                         riv_job_get_error (job) != NULL ? riv_job_get_error (job)
                                                         : _("the server gave no reason"));

      _riv_window_report (self, RIV_REPORT_FAILED, text);
    }
  else if (status == RIV_JOB_STATUS_LOST)
    {
      g_autofree char *text =
        g_strdup_printf (_("Job #%u lost its stream: %s"), riv_job_get_number (job),
                         riv_job_get_error (job) != NULL ? riv_job_get_error (job) : "");

      _riv_window_report (self, RIV_REPORT_LOST, text);
    }

  if (job == riv_output_view_get_job (self->output_view))
    _riv_window_update_actions (self);

  _riv_window_maybe_quit_after_burst (self);
}

/* Log messages (gr.Info, gr.Warning): toasts, grouped by the report timer
 * when a burst logs many; the client puts them in each job's timeline. */

static GQuark
riv_window_logs_shown_quark (void)
{
  static GQuark quark;

  if (quark == 0)
    quark = g_quark_from_static_string ("riv-window-logs-shown");
  return quark;
}

static void
riv_window_job_logs_cb (RivWindow  *self,
                        GParamSpec *pspec,
                        RivJob     *job)
{
  guint shown = GPOINTER_TO_UINT (g_object_get_qdata (G_OBJECT (job),
                                                      riv_window_logs_shown_quark ()));
  guint n = riv_job_get_n_logs (job);

  for (guint i = shown; i < n; i++)
    {
      const RivJobLog *log = riv_job_get_log (job, i);
      gboolean warning = g_strcmp0 (log->level, "warning") == 0 ||
                         g_strcmp0 (log->level, "error") == 0;
      g_autofree char *text = g_strdup_printf (_("Job #%u: %s"), riv_job_get_number (job),
                                               log->message);

      _riv_window_report (self, warning ? RIV_REPORT_WARNING : RIV_REPORT_INFO, text);
    }
  g_object_set_qdata (G_OBJECT (job), riv_window_logs_shown_quark (), GUINT_TO_POINTER (n));
}

static void
riv_window_jobs_changed_cb (RivWindow  *self,
                            guint       position,
                            guint       removed,
                            guint       added,
                            GListModel *jobs)
{
  for (guint i = position; i < position + added; i++)
    {
      g_autoptr(RivJob) job = g_list_model_get_item (jobs, i);

      g_signal_connect_object (job, "notify::n-logs", G_CALLBACK (riv_window_job_logs_cb), self,
                               G_CONNECT_SWAPPED);
    }
}

static void
riv_window_stream_error_cb (RivWindow  *self,
                            const char *message,
                            RivClient  *client)
{
  g_autofree char *text = g_strdup_printf (_("Stream error: %s"), message);

  _riv_window_report (self, RIV_REPORT_STREAM, text);
}

/* Endpoints */

static void
riv_window_endpoint_cb (RivWindow *self)
{
  RivEndpoint *endpoint = riv_endpoint_row_get_endpoint (self->endpoint_row);

  riv_form_set_endpoint (self->form,
                         endpoint != NULL ? riv_connection_get_config (self->connection) : NULL,
                         endpoint);
  _riv_window_update_actions (self);
}

/* The connection's endpoints in the chooser, the first chosen. */
static void
riv_window_set_endpoints (RivWindow *self)
{
  /* The form and combo row borrow endpoints from the old config: detach first. */
  riv_form_set_endpoint (self->form, NULL, NULL);
  riv_endpoint_row_set_endpoints (self->endpoint_row, riv_connection_get_endpoints (self->connection),
                                  riv_connection_get_config (self->connection) != NULL);
}

gboolean
riv_window_select_endpoint (RivWindow  *self,
                            const char *name)
{
  g_return_val_if_fail (RIV_IS_WINDOW (self), FALSE);
  g_return_val_if_fail (name != NULL, FALSE);

  return riv_endpoint_row_select (self->endpoint_row, name);
}

char *
_riv_window_dup_endpoint_name (RivWindow *self)
{
  RivEndpoint *endpoint = riv_form_get_endpoint (self->form);

  if (endpoint == NULL)
    return NULL;
  if (endpoint->api_name != NULL)
    return g_strdup (endpoint->api_name);
  return g_strdup_printf ("%" G_GINT64_FORMAT, endpoint->fn_index);
}

/* Connecting */

static void
riv_window_remember_url (RivWindow  *self,
                         const char *url)
{
  g_auto(GStrv) old = g_settings_get_strv (self->settings, "recent-urls");
  g_autoptr(GStrvBuilder) builder = g_strv_builder_new ();
  g_auto(GStrv) urls = NULL;
  guint n = 1;

  g_strv_builder_add (builder, url);
  for (guint i = 0; old[i] != NULL && n < MAX_RECENT_URLS; i++)
    if (!g_str_equal (old[i], url))
      {
        g_strv_builder_add (builder, old[i]);
        n++;
      }
  urls = g_strv_builder_end (builder);

  g_settings_set_strv (self->settings, "recent-urls", (const char * const *) urls);
  g_settings_set_string (self->settings, "last-server-url", url);
  riv_connect_popover_set_recent (self->connect_popover, (const char * const *) urls);
}

static void
riv_window_recent_changed_cb (RivWindow *self)
{
  g_auto(GStrv) urls = g_settings_get_strv (self->settings, "recent-urls");

  /* Also when the preferences cleared them. */
  riv_connect_popover_set_recent (self->connect_popover, (const char * const *) urls);
}

static void
riv_window_set_client (RivWindow *self,
                       RivClient *client)
{
  GListModel *jobs = client != NULL ? riv_client_get_jobs (client) : NULL;

  riv_burst_controller_clear (self->bursts);

  /* The connection closes the old client once this is done. */
  g_signal_group_set_target (self->client_signals, client);
  riv_window_show_job (self, NULL);

  riv_output_view_set_client (self->output_view, client);
  riv_job_panel_set_jobs (self->job_panel, jobs);
  g_signal_group_set_target (self->jobs_signals, jobs);
  riv_form_set_client (self->form, client);
  riv_load_page_set_client (self->load_page, client);
  riv_window_set_endpoints (self);

  riv_window_update_header (self);
  _riv_window_update_actions (self);
  riv_recorder_set_client (self->recorder, client, riv_connection_get_url (self->connection),
                           riv_connection_get_token (self->connection));
}

void
_riv_window_show_connect_error (RivWindow    *self,
                                const GError *error)
{
  g_autofree char *message = NULL;
  RivConnectErrorKind kind;

  kind = riv_format_connect_error (error, riv_connection_get_pending_url (self->connection),
                                   &message);
  riv_connect_popover_set_busy (self->connect_popover, NULL);
  riv_connect_popover_set_error (self->connect_popover, kind, message);
  if (gtk_widget_get_mapped (GTK_WIDGET (self)))
    gtk_menu_button_popup (self->connect_button);
  riv_window_update_header (self);

  if (self->startup != NULL && self->startup->quit_after_burst)
    {
      g_printerr ("rivulet: %s\n", message);
      self->startup->exit_status = 2;
      gtk_window_close (GTK_WINDOW (self));
    }
}

/* The window's side of its RivConnection: each new client gets the
 * popover's HTTPS settings, the recorder's tap and a kept login. */
static void
riv_window_prepare_client_cb (RivWindow     *self,
                              RivClient     *client,
                              RivConnection *connection)
{
  riv_client_set_tls (client, riv_connect_popover_get_tls_database (self->connect_popover),
                      riv_connect_popover_get_insecure (self->connect_popover));
  riv_recorder_set_pending_client (self->recorder, client);
  riv_login_flow_apply (self->login, client, riv_connection_get_pending_url (connection));
}

static void
riv_window_connection_state_cb (RivWindow     *self,
                                GParamSpec    *pspec,
                                RivConnection *connection)
{
  switch (riv_connection_get_state (connection))
    {
    case RIV_CONNECTION_STATE_RESOLVING:
      {
        g_autofree char *busy =
          g_strdup_printf (_("Asking the Hub about the Space %s…"),
                           riv_connection_get_pending_space_id (connection));

        riv_connect_popover_set_error (self->connect_popover, RIV_CONNECT_ERROR_NONE, NULL);
        riv_connect_popover_set_busy_text (self->connect_popover, busy);
      }
      break;
    case RIV_CONNECTION_STATE_CONNECTING:
      riv_connect_popover_set_error (self->connect_popover, RIV_CONNECT_ERROR_NONE, NULL);
      riv_connect_popover_set_busy (self->connect_popover,
                                    riv_connection_get_pending_url (connection));
      break;
    case RIV_CONNECTION_STATE_IDLE:
    default:
      break;
    }
  riv_window_update_header (self);
}

static void
riv_window_space_progress_cb (RivWindow     *self,
                              const char    *stage,
                              const char    *message,
                              RivConnection *connection)
{
  g_autofree char *text = g_strdup_printf (_("Waiting for the Space: %s"), message);

  riv_connect_popover_set_busy_text (self->connect_popover, text);
}

static void
riv_window_connect_failed_cb (RivWindow     *self,
                              const GError  *error,
                              RivConnection *connection)
{
  /* A login asked for (or refused): the keyring, then the dialog, try again. */
  if (!(self->startup != NULL && self->startup->quit_after_burst) &&
      riv_login_flow_handle_error (self->login, GTK_WINDOW (self),
                                   riv_connection_get_pending_url (connection),
                                   riv_connection_get_pending_embedded (connection), error))
    {
      riv_connect_popover_set_busy (self->connect_popover, NULL);
      riv_window_update_header (self);
      return;
    }
  _riv_window_show_connect_error (self, error);
}

static void
riv_window_connected_cb (RivWindow     *self,
                         RivClient     *client,
                         RivConnection *connection)
{
  const char *url = riv_connection_get_url (connection);

  riv_connect_popover_set_busy (self->connect_popover, NULL);
  riv_connect_popover_set_error (self->connect_popover, RIV_CONNECT_ERROR_NONE, NULL);
  gtk_popover_popdown (GTK_POPOVER (self->connect_popover));
  riv_login_flow_connected (self->login, url);

  if (riv_connection_get_embedded (connection))
    g_settings_set_string (self->settings, "last-server-url", "");
  else if (!riv_recorder_is_replay_url (self->recorder, url))
    {
      /* A Space is remembered by name: its host may change, and its token
       * goes with the name. */
      const char *space_id = riv_connection_get_space_id (connection);
      const char *typed = space_id != NULL ? space_id : url;

      riv_window_remember_url (self, typed);
      riv_connect_popover_set_url (self->connect_popover, typed);
    }

  riv_window_set_client (self, client);
  _riv_window_apply_startup (self);
}

/* The same server again (after a login was given). */
void
_riv_window_reconnect (RivWindow  *self,
                       const char *url,
                       gboolean    embedded)
{
  g_autofree char *again = g_strdup (url);

  /* The popover shows what is being tried (and, on failure, what to fix);
   * a Space's name stays in it while its app is connected to. */
  if (!embedded && riv_connection_get_pending_space_id (self->connection) == NULL &&
      g_strcmp0 (riv_connect_popover_get_url (self->connect_popover), again) != 0)
    riv_connect_popover_set_url (self->connect_popover, again);
  riv_connection_retry (self->connection, again, embedded);
}

void
riv_window_connect_to_url (RivWindow  *self,
                           const char *url,
                           const char *token)
{
  gboolean embedded;

  g_return_if_fail (RIV_IS_WINDOW (self));

  if (self->embedded != NULL)
    riv_connection_set_embedded_url (self->connection, riv_embedded_server_get_url (self->embedded));
  embedded = self->embedded != NULL && riv_embedded_server_is_url (self->embedded, url);
  /* The popover shows what is being tried, a Space's name too. */
  if (!embedded && g_strcmp0 (riv_connect_popover_get_url (self->connect_popover), url) != 0)
    riv_connect_popover_set_url (self->connect_popover, url);
  riv_connection_connect (self->connection, url, token);
}

static void
riv_window_embedded_started_cb (GObject      *object,
                                GAsyncResult *result,
                                gpointer      user_data)
{
  g_autoptr(RivWindow) self = user_data;
  g_autoptr(GError) error = NULL;
  g_autofree char *url = NULL;

  url = riv_embedded_server_start_finish (RIV_EMBEDDED_SERVER (object), result, &error);
  if (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
    return;

  if (url == NULL)
    {
      g_autofree char *text = g_strdup_printf (_("The embedded demo server did not start: %s"),
                                               error->message);

      riv_connect_popover_set_busy (self->connect_popover, NULL);
      riv_connect_popover_set_error (self->connect_popover, RIV_CONNECT_ERROR_OTHER, text);
      _riv_window_toast (self, text);
      return;
    }

  riv_connection_set_embedded_url (self->connection, url);
  riv_connection_connect (self->connection, url, NULL);
}

void
riv_window_connect_embedded (RivWindow *self)
{
  g_return_if_fail (RIV_IS_WINDOW (self));

  if (self->embedded == NULL)
    {
      riv_connect_popover_set_error (self->connect_popover, RIV_CONNECT_ERROR_OTHER,
                                     _("This window has no embedded demo server."));
      return;
    }

  riv_connect_popover_set_busy (self->connect_popover, _("the embedded demo server"));
  riv_embedded_server_start_async (self->embedded, self->cancellable,
                                   riv_window_embedded_started_cb, g_object_ref (self));
}

static void
riv_window_popover_connect_cb (RivWindow         *self,
                               const char        *url,
                               const char        *token,
                               RivConnectPopover *popover)
{
  if (url == NULL)
    riv_window_connect_embedded (self);
  else
    riv_window_connect_to_url (self, url, token);
}

/* Toasts */

void
_riv_window_report (RivWindow     *self,
                    RivReportKind  kind,
                    const char    *message)
{
  g_assert (RIV_IS_WINDOW (self));
  riv_reports_add (self->reports, kind, message);
}

void
_riv_window_toast (RivWindow  *self,
                   const char *message)
{
  AdwToast *toast = adw_toast_new (message);

  adw_toast_set_timeout (toast, 4);
  adw_toast_overlay_add_toast (self->toast_overlay, toast);
}

/* Selection */

static void
riv_window_selected_job_cb (RivWindow   *self,
                            GParamSpec  *pspec,
                            RivJobPanel *panel)
{
  RivJob *job = riv_job_panel_get_selected_job (panel);

  if (job == NULL)
    return;

  /* The user picked a job: the output view stops following the newest one. */
  riv_window_show_job (self, job);
}

static void
riv_window_form_error_cb (RivWindow  *self,
                          const char *message,
                          RivForm    *form)
{
  _riv_window_toast (self, message);
}

static void
riv_window_form_busy_cb (RivWindow *self)
{
  _riv_window_update_actions (self);
}

static void
riv_window_form_activate_cb (RivWindow *self)
{
  gtk_widget_activate_action (GTK_WIDGET (self), "win.submit", NULL);
}

/* GObject / GtkWindow */

static void
stop_scroll_animations (GtkWidget *widget)
{
  if (GTK_IS_SCROLLED_WINDOW (widget))
    {
      GtkScrolledWindow *scrolled = GTK_SCROLLED_WINDOW (widget);
      GtkAdjustment *adjustments[] = { gtk_scrolled_window_get_hadjustment (scrolled),
                                       gtk_scrolled_window_get_vadjustment (scrolled) };

      /* Setting the value without animation ends a running animation. */
      for (guint i = 0; i < G_N_ELEMENTS (adjustments); i++)
        if (adjustments[i] != NULL)
          gtk_adjustment_set_value (adjustments[i], gtk_adjustment_get_value (adjustments[i]));
    }

  for (GtkWidget *child = gtk_widget_get_first_child (widget); child != NULL;
       child = gtk_widget_get_next_sibling (child))
    stop_scroll_animations (child);
}

static gboolean
riv_window_close_request (GtkWindow *window)
{
  RivWindow *self = RIV_WINDOW (window);
  int width, height;

  self->closing = TRUE;

  /* GTK 4.8 emits a critical when a scrolled window is unmapped while its
   * adjustment still animates (a viewport scrolling to the newly focused
   * input, the text view following the output): end those first. */
  stop_scroll_animations (GTK_WIDGET (window));

  gtk_window_get_default_size (window, &width, &height);
  g_settings_set_int (self->settings, "window-width", width);
  g_settings_set_int (self->settings, "window-height", height);
  g_settings_set_boolean (self->settings, "window-maximized", gtk_window_is_maximized (window));

  /* Cancel all network work before the widgets go. */
  g_cancellable_cancel (self->cancellable);
  riv_connection_cancel (self->connection);
  riv_burst_controller_stop (self->bursts);

  if (self->stall_monitor != NULL)
    {
      g_autofree char *report = riv_stall_monitor_dup_report (self->stall_monitor);

      g_printerr ("%s", report);
      g_clear_pointer (&self->stall_monitor, riv_stall_monitor_free);
    }

  return GTK_WINDOW_CLASS (riv_window_parent_class)->close_request (window);
}

static void
riv_window_dispose (GObject *object)
{
  RivWindow *self = (RivWindow *) object;

  g_cancellable_cancel (self->cancellable);
  if (self->connection != NULL)
    g_signal_handlers_disconnect_by_data (self->connection, self);

  g_clear_pointer (&self->reports, riv_reports_free);
  g_clear_pointer (&self->stall_monitor, riv_stall_monitor_free);
  if (self->recorder != NULL)
    riv_recorder_close (self->recorder);
  if (self->login != NULL)
    riv_login_flow_close (self->login);

  /* Kept till finalize: the parts' last signals ask whether a burst runs. */
  riv_burst_controller_stop (self->bursts);

  if (self->client_signals != NULL)
    g_signal_group_set_target (self->client_signals, NULL);
  if (self->jobs_signals != NULL)
    g_signal_group_set_target (self->jobs_signals, NULL);
  g_clear_object (&self->jobs_signals);
  if (self->connection != NULL)
    riv_connection_close (self->connection);

  if (self->job_panel != NULL)
    riv_job_panel_set_jobs (self->job_panel, NULL);
  if (self->output_view != NULL)
    riv_output_view_set_job (self->output_view, NULL, NULL);
  if (self->form != NULL)
    {
      riv_form_set_endpoint (self->form, NULL, NULL);
      riv_form_set_client (self->form, NULL);
    }

  gtk_widget_dispose_template (GTK_WIDGET (self), RIV_TYPE_WINDOW);
  /* The parts went with the form column and the job view. */
  self->endpoint_row = NULL;
  self->form = NULL;
  self->burst_settings = NULL;
  self->mode_stack = NULL;
  self->output_view = NULL;
  self->job_panel = NULL;
  self->view_stack = NULL;
  self->load_page = NULL;
  self->jobs_page = NULL;

  g_clear_object (&self->connection);
  g_clear_object (&self->client_signals);
  g_clear_object (&self->embedded);
  g_clear_object (&self->settings);

  G_OBJECT_CLASS (riv_window_parent_class)->dispose (object);
}

static void
riv_window_finalize (GObject *object)
{
  RivWindow *self = (RivWindow *) object;

  g_clear_object (&self->cancellable);
  g_clear_object (&self->bursts);
  g_clear_pointer (&self->notifier, riv_notifier_free);
  g_clear_pointer (&self->startup, riv_window_startup_free);

  G_OBJECT_CLASS (riv_window_parent_class)->finalize (object);
}

static void
riv_window_class_init (RivWindowClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);
  GtkWindowClass *window_class = GTK_WINDOW_CLASS (klass);

  object_class->dispose = riv_window_dispose;
  object_class->finalize = riv_window_finalize;
  window_class->close_request = riv_window_close_request;

  g_type_ensure (RIV_TYPE_CONNECT_POPOVER);
  g_type_ensure (RIV_TYPE_STATUS_TITLE);
  g_type_ensure (RIV_TYPE_MENU_BUTTON);
  g_type_ensure (RIV_TYPE_LOST_STRIP);
  g_type_ensure (RIV_TYPE_FORM_COLUMN);
  g_type_ensure (RIV_TYPE_SUBMIT_BAR);
  g_type_ensure (RIV_TYPE_JOB_VIEW);
  g_type_ensure (RIV_TYPE_LOGIN_FLOW);

  /* The template of this libadwaita's layout (riv-window-adaptive.c); the same parts in each. */
  _riv_window_class_adaptive_init (widget_class);
  gtk_widget_class_bind_template_child (widget_class, RivWindow, toast_overlay);
  gtk_widget_class_bind_template_child (widget_class, RivWindow, connect_button);
  gtk_widget_class_bind_template_child (widget_class, RivWindow, connect_popover);
  gtk_widget_class_bind_template_child (widget_class, RivWindow, status_title);
  gtk_widget_class_bind_template_child (widget_class, RivWindow, lost_strip);
  gtk_widget_class_bind_template_child (widget_class, RivWindow, form_column);
  gtk_widget_class_bind_template_child (widget_class, RivWindow, submit_bar);
  gtk_widget_class_bind_template_child (widget_class, RivWindow, job_view);
  gtk_widget_class_bind_template_callback (widget_class, _riv_window_toast);

  _riv_window_class_actions_init (widget_class);
  _riv_window_class_load_init (widget_class);
  _riv_window_class_record_init (widget_class);
  /* The login flow in the template answers through these. */
  gtk_widget_class_bind_template_child (widget_class, RivWindow, login);
  gtk_widget_class_bind_template_callback (widget_class, _riv_window_reconnect);
  gtk_widget_class_bind_template_callback (widget_class, _riv_window_show_connect_error);
}

/* What the window hears from its connection. */
static void
riv_window_init_connection (RivWindow *self)
{
  self->connection = riv_connection_new ();
  g_signal_connect_swapped (self->connection, "prepare-client",
                            G_CALLBACK (riv_window_prepare_client_cb), self);
  g_signal_connect_swapped (self->connection, "notify::state",
                            G_CALLBACK (riv_window_connection_state_cb), self);
  g_signal_connect_swapped (self->connection, "notify::pending-url",
                            G_CALLBACK (riv_window_update_header), self);
  g_signal_connect_swapped (self->connection, "space-progress",
                            G_CALLBACK (riv_window_space_progress_cb), self);
  g_signal_connect_swapped (self->connection, "failed",
                            G_CALLBACK (riv_window_connect_failed_cb), self);
  g_signal_connect_swapped (self->connection, "connected",
                            G_CALLBACK (riv_window_connected_cb), self);
}

/* The window's size, the burst's settings and the servers used before. */
static void
riv_window_init_settings (RivWindow *self)
{
  g_auto(GStrv) recent = NULL;
  g_autofree char *last_url = NULL;

  self->settings = riv_settings_new ();
  gtk_window_set_default_size (GTK_WINDOW (self),
                               g_settings_get_int (self->settings, "window-width"),
                               g_settings_get_int (self->settings, "window-height"));
  if (g_settings_get_boolean (self->settings, "window-maximized"))
    gtk_window_maximize (GTK_WINDOW (self));

  riv_burst_settings_bind (self->burst_settings, self->settings);

  /* Connected before the key is read, so every change is signalled. */
  g_signal_connect_object (self->settings, "changed::recent-urls",
                           G_CALLBACK (riv_window_recent_changed_cb), self, G_CONNECT_SWAPPED);
  recent = g_settings_get_strv (self->settings, "recent-urls");
  riv_connect_popover_set_recent (self->connect_popover, (const char * const *) recent);
  last_url = g_settings_get_string (self->settings, "last-server-url");
  riv_connect_popover_set_url (self->connect_popover, last_url);
}

/* The form column's and the job view's parts, which the window drives. */
static void
riv_window_init_parts (RivWindow *self)
{
  self->endpoint_row = riv_form_column_get_endpoint_row (self->form_column);
  self->form = riv_form_column_get_form (self->form_column);
  self->burst_settings = riv_form_column_get_burst_settings (self->form_column);
  self->mode_stack = riv_form_column_get_mode_stack (self->form_column);
  self->output_view = riv_job_view_get_output_view (self->job_view);
  self->job_panel = riv_job_view_get_job_panel (self->job_view);
  self->view_stack = riv_job_view_get_view_stack (self->job_view);
  self->load_page = riv_job_view_get_load_page (self->job_view);
  riv_load_page_set_settings (self->load_page,
                              riv_form_column_get_load_settings (self->form_column));
}

/* The bursts: their jobs followed, their ends said. */
static void
riv_window_init_bursts (RivWindow *self)
{
  self->bursts = riv_burst_controller_new (riv_submit_bar_get_burst_button (self->submit_bar));
  g_signal_connect_object (self->bursts, "job-submitted", G_CALLBACK (_riv_window_follow_job),
                           self, G_CONNECT_SWAPPED);
  g_signal_connect_object (self->bursts, "finished", G_CALLBACK (_riv_window_update_actions),
                           self, G_CONNECT_SWAPPED);
  g_signal_connect_object (self->bursts, "failed", G_CALLBACK (riv_window_burst_failed_cb),
                           self, G_CONNECT_SWAPPED);
  g_signal_connect_object (self->bursts, "summarized",
                           G_CALLBACK (riv_window_burst_summarized_cb), self, G_CONNECT_SWAPPED);
}

/* The parts' signals, and the connected client's and its jobs'. */
static void
riv_window_init_signals (RivWindow *self)
{
  g_signal_connect (self, "notify::is-active", G_CALLBACK (riv_window_active_cb), NULL);
  g_signal_connect_object (self->connect_popover, "connect",
                           G_CALLBACK (riv_window_popover_connect_cb), self, G_CONNECT_SWAPPED);
  g_signal_connect_object (self->endpoint_row, "notify::endpoint",
                           G_CALLBACK (riv_window_endpoint_cb), self, G_CONNECT_SWAPPED);
  g_signal_connect_object (self->form, "error", G_CALLBACK (riv_window_form_error_cb), self,
                           G_CONNECT_SWAPPED);
  g_signal_connect_object (self->form, "notify::busy", G_CALLBACK (riv_window_form_busy_cb), self,
                           G_CONNECT_SWAPPED);
  g_signal_connect_object (self->form, "activate", G_CALLBACK (riv_window_form_activate_cb), self,
                           G_CONNECT_SWAPPED);
  g_signal_connect_object (self->job_panel, "notify::selected-job",
                           G_CALLBACK (riv_window_selected_job_cb), self, G_CONNECT_SWAPPED);
  g_signal_connect_object (self->output_view, "notify::job",
                           G_CALLBACK (_riv_window_update_actions), self, G_CONNECT_SWAPPED);
  g_signal_connect_object (self->output_view, "notify::has-image",
                           G_CALLBACK (_riv_window_update_actions), self, G_CONNECT_SWAPPED);
  g_signal_connect_object (self->output_view, "notify::has-text",
                           G_CALLBACK (_riv_window_update_actions), self, G_CONNECT_SWAPPED);

  self->client_signals = g_signal_group_new (RIV_TYPE_CLIENT);
  g_signal_group_connect_object (self->client_signals, "notify::stream-state",
                                 G_CALLBACK (riv_window_stream_state_cb), self, G_CONNECT_SWAPPED);
  self->jobs_signals = g_signal_group_new (G_TYPE_LIST_MODEL);
  g_signal_group_connect_object (self->jobs_signals, "items-changed",
                                 G_CALLBACK (riv_window_jobs_changed_cb), self, G_CONNECT_SWAPPED);
  g_signal_group_connect_object (self->client_signals, "job-finished",
                                 G_CALLBACK (riv_window_job_finished_cb), self, G_CONNECT_SWAPPED);
  g_signal_group_connect_object (self->client_signals, "stream-error",
                                 G_CALLBACK (riv_window_stream_error_cb), self, G_CONNECT_SWAPPED);
}

static void
riv_window_init (RivWindow *self)
{
  gtk_widget_init_template (GTK_WIDGET (self));
  riv_window_init_parts (self);
  riv_window_init_bursts (self);
  _riv_window_load_init (self);
  riv_recorder_add_actions (self->recorder, G_ACTION_MAP (self));
  _riv_window_adaptive_init (self);

  /* One spoken name per control (see riv-a11y.h). */
  riv_a11y_set_name (GTK_WIDGET (self->connect_button), _("_Server"));

  self->cancellable = g_cancellable_new ();
  self->reports = riv_reports_new (self->toast_overlay);
  self->notifier = riv_notifier_new ();
  riv_window_init_connection (self);
  riv_window_init_settings (self);
  riv_window_init_signals (self);

  if (g_strcmp0 (g_getenv ("RIVULET_STALL_REPORT"), "1") == 0)
    self->stall_monitor = riv_stall_monitor_new (GTK_WIDGET (self));

  riv_window_set_endpoints (self);
  riv_window_update_header (self);
  _riv_window_update_actions (self);
}

RivWindow *
riv_window_new (GtkApplication    *application,
                RivEmbeddedServer *embedded)
{
  RivWindow *self;

  g_return_val_if_fail (application == NULL || GTK_IS_APPLICATION (application), NULL);
  g_return_val_if_fail (embedded == NULL || RIV_IS_EMBEDDED_SERVER (embedded), NULL);

  self = g_object_new (RIV_TYPE_WINDOW, "application", application, NULL);
  if (embedded != NULL)
    self->embedded = g_object_ref (embedded);

  return self;
}

void
riv_window_start (RivWindow        *self,
                  RivWindowStartup *startup)
{
  g_return_if_fail (RIV_IS_WINDOW (self));
  g_return_if_fail (startup != NULL);

  g_clear_pointer (&self->startup, riv_window_startup_free);
  self->startup = startup;

  if (startup->server_url != NULL)
    riv_window_connect_to_url (self, startup->server_url, startup->token);
  else if (self->embedded != NULL)
    riv_window_connect_embedded (self);
  else
    {
      /* No server to start with: let the user choose one. */
      riv_window_update_header (self);
    }
}

RivClient *
riv_window_get_client (RivWindow *self)
{
  g_return_val_if_fail (RIV_IS_WINDOW (self), NULL);
  return riv_connection_get_client (self->connection);
}

void
riv_window_set_burst (RivWindow *self,
                      guint      count,
                      double     rate)
{
  g_return_if_fail (RIV_IS_WINDOW (self));

  riv_burst_settings_set (self->burst_settings, count, rate);
}

gboolean
riv_window_is_bursting (RivWindow *self)
{
  g_return_val_if_fail (RIV_IS_WINDOW (self), FALSE);
  return riv_burst_controller_is_running (self->bursts);
}

const char *
riv_window_get_status_text (RivWindow *self)
{
  g_return_val_if_fail (RIV_IS_WINDOW (self), NULL);
  return riv_status_title_get_text (self->status_title);
}

gboolean
riv_window_is_lost_strip_shown (RivWindow *self)
{
  g_return_val_if_fail (RIV_IS_WINDOW (self), FALSE);
  return riv_lost_strip_get_shown (self->lost_strip);
}

int
riv_window_get_exit_status (RivWindow *self)
{
  g_return_val_if_fail (RIV_IS_WINDOW (self), 1);
  return self->startup != NULL ? self->startup->exit_status : 0;
}

RivForm *
riv_window_get_form (RivWindow *self)
{
  g_return_val_if_fail (RIV_IS_WINDOW (self), NULL);
  return self->form;
}

RivOutputView *
riv_window_get_output_view (RivWindow *self)
{
  g_return_val_if_fail (RIV_IS_WINDOW (self), NULL);
  return self->output_view;
}

RivJobPanel *
riv_window_get_job_panel (RivWindow *self)
{
  g_return_val_if_fail (RIV_IS_WINDOW (self), NULL);
  return self->job_panel;
}

RivConnectPopover *
riv_window_get_connect_popover (RivWindow *self)
{
  g_return_val_if_fail (RIV_IS_WINDOW (self), NULL);
  return self->connect_popover;
}

guint
riv_window_get_n_notices (RivWindow *self)
{
  g_return_val_if_fail (RIV_IS_WINDOW (self), 0);
  return riv_notifier_get_n_sent (self->notifier);
}

const RivNotice *
riv_window_get_last_notice (RivWindow *self)
{
  g_return_val_if_fail (RIV_IS_WINDOW (self), NULL);
  return riv_notifier_get_last (self->notifier);
}

void
riv_window_set_active_override (RivWindow *self,
                                int        active)
{
  g_return_if_fail (RIV_IS_WINDOW (self));
  riv_notifier_set_active_override (self->notifier, active);
}
