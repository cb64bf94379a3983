/* riv-client-tls.c
 * Copyright 2026 The Rivulet authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Which HTTPS servers a client trusts: the system's authorities, or those of
 * a CA file (a server behind a proxy with its own certificate), or, when the
 * user says so, any certificate at all. And what to say when a certificate
 * is refused.
 */
#include "config.h"

#include <string.h>

#include "riv-client-private.h"

#define PEM_CERTIFICATE "-----BEGIN CERTIFICATE-----"

GTlsDatabase *
riv_tls_database_new_from_file (const char  *path,
                                GError     **error)
{
  g_autofree char *contents = NULL;
  g_autoptr(GError) local_error = NULL;
  GTlsDatabase *database;
  gsize len = 0;

  if (path == NULL || *path == '\0')
    {
      g_set_error_literal (error, RIV_CLIENT_ERROR, RIV_CLIENT_ERROR_BAD_URL,
                           "No CA file was given");
      return NULL;
    }
  if (!g_file_get_contents (path, &contents, &len, &local_error))
    {
      g_set_error (error, RIV_CLIENT_ERROR, RIV_CLIENT_ERROR_BAD_URL,
                   "Cannot read the CA file: %s", local_error->message);
      return NULL;
    }
  if (memchr (contents, '\0', len) != NULL || strstr (contents, PEM_CERTIFICATE) == NULL)
    {
      g_set_error (error, RIV_CLIENT_ERROR, RIV_CLIENT_ERROR_BAD_URL,
                   "The CA file %s is not a PEM certificate (no \"%s\" line)",
                   path, PEM_CERTIFICATE);
      return NULL;
    }
  database = g_tls_file_database_new (path, &local_error);
  if (database == NULL)
    {
      g_set_error (error, RIV_CLIENT_ERROR, RIV_CLIENT_ERROR_BAD_URL,
                   "The CA file %s holds no usable certificate: %s", path,
                   local_error->message);
      return NULL;
    }
  return database;
}

void
riv_client_set_tls (RivClient    *self,
                    GTlsDatabase *database,
                    gboolean      insecure)
{
  g_return_if_fail (RIV_IS_CLIENT (self));
  g_return_if_fail (database == NULL || G_IS_TLS_DATABASE (database));

  g_set_object (&self->access.tls_database, database);
  self->access.tls_insecure = insecure;
  if (database != NULL)
    soup_session_set_tls_database (self->session, database);
  else
    {
      g_autoptr(GTlsDatabase) system = g_tls_backend_get_default_database (g_tls_backend_get_default ());

      soup_session_set_tls_database (self->session, system);
    }
}

gboolean
riv_client_get_tls_insecure (RivClient *self)
{
  g_return_val_if_fail (RIV_IS_CLIENT (self), FALSE);
  return self->access.tls_insecure;
}

GTlsDatabase *
riv_client_get_tls_database (RivClient *self)
{
  g_return_val_if_fail (RIV_IS_CLIENT (self), NULL);
  return self->access.tls_database;
}

/* Called when the handshake refused the certificate: on the client's own
 * session only with --insecure; on another session (the window's image
 * fetcher) also for a certificate the CA file vouches for. */
static gboolean
accept_certificate_cb (SoupMessage          *msg,
                       GTlsCertificate      *certificate,
                       GTlsCertificateFlags  errors,
                       gpointer              user_data)
{
  RivClient *self = user_data;
  g_autoptr(GSocketConnectable) identity = NULL;
  GUri *uri = soup_message_get_uri (msg);

  if (self->access.tls_insecure)
    return TRUE;
  if (self->access.tls_database == NULL || uri == NULL || g_uri_get_host (uri) == NULL)
    return FALSE;
  identity = g_network_address_new (g_uri_get_host (uri), (guint16) MAX (g_uri_get_port (uri), 0));
  return g_tls_database_verify_chain (self->access.tls_database, certificate,
                                      G_TLS_DATABASE_PURPOSE_AUTHENTICATE_SERVER, identity,
                                      NULL, G_TLS_DATABASE_VERIFY_NONE, NULL, NULL) == 0;
}

void
_riv_client_tls_prepare_message (RivClient   *self,
                                 SoupMessage *msg)
{
  if (self->access.tls_insecure || self->access.tls_database != NULL)
    g_signal_connect_object (msg, "accept-certificate", G_CALLBACK (accept_certificate_cb),
                             self, 0);
}

static const struct
{
  GTlsCertificateFlags  flag;
  const char           *text;
} certificate_problems[] = {
  { G_TLS_CERTIFICATE_UNKNOWN_CA, "it is signed by an authority this client does not trust" },
  { G_TLS_CERTIFICATE_BAD_IDENTITY, "it is for another host name or address" },
  { G_TLS_CERTIFICATE_NOT_ACTIVATED, "it is not valid yet" },
  { G_TLS_CERTIFICATE_EXPIRED, "it has expired" },
  { G_TLS_CERTIFICATE_REVOKED, "it was revoked" },
  { G_TLS_CERTIFICATE_INSECURE, "it uses an insecure algorithm" },
};

void
_riv_client_tls_explain_error (RivClient    *self,
                               SoupMessage  *msg,
                               GError      **error)
{
  g_autoptr(GString) text = NULL;
  GTlsCertificateFlags flags;

  if (error == NULL || *error == NULL ||
      !g_error_matches (*error, G_TLS_ERROR, G_TLS_ERROR_BAD_CERTIFICATE))
    return;

  flags = msg != NULL ? soup_message_get_tls_peer_certificate_errors (msg) : 0;
  text = g_string_new ("The server's TLS certificate is not trusted");
  for (guint i = 0, n = 0; i < G_N_ELEMENTS (certificate_problems); i++)
    if (flags & certificate_problems[i].flag)
      g_string_append_printf (text, "%s%s", n++ == 0 ? ": " : "; ", certificate_problems[i].text);
  if (flags == G_TLS_CERTIFICATE_BAD_IDENTITY)
    g_string_append (text, ". Connect with the name or address it was made for, or skip the "
                     "check with --insecure");
  else if (self->access.tls_database != NULL)
    g_string_append (text, " (nor by the CA file given). Check the CA file, or skip the check "
                     "with --insecure");
  else
    g_string_append (text, ". Trust its authority with --ca-file PEM, or skip the check with "
                     "--insecure");
  g_clear_error (error);
  g_set_error_literal (error, G_TLS_ERROR, G_TLS_ERROR_BAD_CERTIFICATE, text->str);
}
