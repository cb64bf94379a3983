/* riv-endpoint-row.c
 * Copyright 2026 The Rivulet authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * RivEndpointRow: the endpoint chooser, an AdwComboRow over the names of the
 * endpoints it was given; its list factory draws each name with its badges.
 */
#include "config.h"

#include <glib/gi18n.h>

#include "riv-endpoint-row.h"

struct _RivEndpointRow
{
  AdwComboRow    parent_instance;

  GtkStringList *names;       /* the endpoints' display names, in order */
  GPtrArray     *endpoints;   /* RivEndpoint*, borrowed */
};

enum {
  PROP_0,
  PROP_ENDPOINT,
  N_PROPS
};

G_DEFINE_FINAL_TYPE (RivEndpointRow, riv_endpoint_row, ADW_TYPE_COMBO_ROW)

static GParamSpec *properties[N_PROPS];

static void
list_setup_cb (GtkSignalListItemFactory *factory,
               GtkListItem              *item,
               RivEndpointRow           *self)
{
  GtkWidget *box = gtk_box_new (GTK_ORIENTATION_HORIZONTAL, 6);
  GtkWidget *label = gtk_label_new (NULL);
  GtkWidget *badges = gtk_box_new (GTK_ORIENTATION_HORIZONTAL, 4);

  gtk_label_set_xalign (GTK_LABEL (label), 0);
  gtk_widget_set_hexpand (label, TRUE);
  gtk_box_append (GTK_BOX (box), label);
  gtk_box_append (GTK_BOX (box), badges);
  gtk_list_item_set_child (item, box);
}

static void
add_badge (GtkWidget  *box,
           const char *text,
           const char *css_class)
{
  GtkWidget *badge = gtk_label_new (text);

  gtk_widget_add_css_class (badge, "riv-badge");
  if (css_class != NULL)
    gtk_widget_add_css_class (badge, css_class);
  gtk_box_append (GTK_BOX (box), badge);
}

static void
list_bind_cb (GtkSignalListItemFactory *factory,
              GtkListItem              *item,
              RivEndpointRow           *self)
{
  GtkWidget *box = gtk_list_item_get_child (item);
  GtkWidget *label = gtk_widget_get_first_child (box);
  GtkWidget *badges = gtk_widget_get_next_sibling (label);
  GtkStringObject *name = gtk_list_item_get_item (item);
  guint position = gtk_list_item_get_position (item);
  GtkWidget *child;

  gtk_label_set_text (GTK_LABEL (label), gtk_string_object_get_string (name));

  while ((child = gtk_widget_get_first_child (badges)) != NULL)
    gtk_box_remove (GTK_BOX (badges), child);

  if (position < self->endpoints->len)
    {
      RivEndpoint *endpoint = g_ptr_array_index (self->endpoints, position);

      if (endpoint->renders)
        /* TRANSLATORS: a badge of a gr.render endpoint: its output is new components */
        add_badge (badges, _("renders"), "accent");
      if (endpoint->generator)
        add_badge (badges, _("generator"), "accent");
      if (endpoint->batch)
        {
          g_autofree char *text = g_strdup_printf (_("batch ×%lld"),
                                                   (long long) endpoint->max_batch_size);

          add_badge (badges, text, "warning");
        }
      if (endpoint->queue)
        add_badge (badges, _("queued"), NULL);
    }
}

static char *
badges_text (RivEndpoint *endpoint)
{
  GString *text = g_string_new (NULL);

  if (endpoint->renders)
    g_string_append (text, _("renders"));
  if (endpoint->generator)
    g_string_append_printf (text, "%s%s", text->len > 0 ? " · " : "", _("generator"));
  if (endpoint->batch)
    {
      if (text->len > 0)
        g_string_append (text, " · ");
      g_string_append_printf (text, _("batch ×%lld"), (long long) endpoint->max_batch_size);
    }
  if (endpoint->queue)
    {
      if (text->len > 0)
        g_string_append (text, " · ");
      g_string_append (text, _("queued"));
    }
  return g_string_free (text, FALSE);
}

RivEndpoint *
riv_endpoint_row_get_endpoint (RivEndpointRow *self)
{
  guint position;

  g_return_val_if_fail (RIV_IS_ENDPOINT_ROW (self), NULL);

  position = adw_combo_row_get_selected (ADW_COMBO_ROW (self));
  return position < self->endpoints->len ? g_ptr_array_index (self->endpoints, position) : NULL;
}

/* The chosen endpoint's badges under its name; the window hears of it. */
static void
chosen_cb (RivEndpointRow *self)
{
  RivEndpoint *endpoint = riv_endpoint_row_get_endpoint (self);

  if (endpoint != NULL)
    {
      g_autofree char *badges = badges_text (endpoint);

      adw_action_row_set_subtitle (ADW_ACTION_ROW (self), badges);
    }
  else
    adw_action_row_set_subtitle (ADW_ACTION_ROW (self), "");

  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_ENDPOINT]);
}

void
riv_endpoint_row_set_endpoints (RivEndpointRow *self,
                                GPtrArray      *endpoints,
                                gboolean        connected)
{
  g_autoptr(GPtrArray) names = g_ptr_array_new_with_free_func (g_free);
  guint n;

  g_return_if_fail (RIV_IS_ENDPOINT_ROW (self));

  g_ptr_array_unref (self->endpoints);
  self->endpoints = endpoints != NULL ? g_ptr_array_ref (endpoints) : g_ptr_array_new ();

  for (guint i = 0; i < self->endpoints->len; i++)
    g_ptr_array_add (names, riv_endpoint_dup_display_name (g_ptr_array_index (self->endpoints, i)));
  g_ptr_array_add (names, NULL);
  n = g_list_model_get_n_items (G_LIST_MODEL (self->names));
  gtk_string_list_splice (self->names, 0, n, (const char * const *) names->pdata);

  gtk_widget_set_sensitive (GTK_WIDGET (self), self->endpoints->len > 0);
  if (self->endpoints->len > 0)
    {
      adw_combo_row_set_selected (ADW_COMBO_ROW (self), 0);
      chosen_cb (self);
    }
  else
    adw_action_row_set_subtitle (ADW_ACTION_ROW (self),
                                 connected ? _("This server has no public endpoints")
                                           : _("Connect to a server first"));
}

gboolean
riv_endpoint_row_select (RivEndpointRow *self,
                         const char     *name)
{
  g_return_val_if_fail (RIV_IS_ENDPOINT_ROW (self), FALSE);
  g_return_val_if_fail (name != NULL, FALSE);

  if (*name == '/')
    name++;

  for (guint i = 0; i < self->endpoints->len; i++)
    {
      RivEndpoint *endpoint = g_ptr_array_index (self->endpoints, i);
      char index_text[32];

      g_snprintf (index_text, sizeof index_text, "%" G_GINT64_FORMAT, endpoint->fn_index);
      if (g_strcmp0 (endpoint->api_name, name) == 0 ||
          (endpoint->api_name == NULL && g_str_equal (index_text, name)))
        {
          adw_combo_row_set_selected (ADW_COMBO_ROW (self), i);
          chosen_cb (self);
          return TRUE;
        }
    }
  return FALSE;
}

static void
riv_endpoint_row_get_property (GObject    *object,
                               guint       prop_id,
                               GValue     *value,
                               GParamSpec *pspec)
{
  RivEndpointRow *self = RIV_ENDPOINT_ROW (object);

  switch (prop_id)
    {
    case PROP_ENDPOINT:
      g_value_set_pointer (value, riv_endpoint_row_get_endpoint (self));
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
riv_endpoint_row_dispose (GObject *object)
{
  RivEndpointRow *self = RIV_ENDPOINT_ROW (object);

  g_clear_object (&self->names);

  G_OBJECT_CLASS (riv_endpoint_row_parent_class)->dispose (object);
}

static void
riv_endpoint_row_finalize (GObject *object)
{
  RivEndpointRow *self = RIV_ENDPOINT_ROW (object);

  g_ptr_array_unref (self->endpoints);

  G_OBJECT_CLASS (riv_endpoint_row_parent_class)->finalize (object);
}

static void
riv_endpoint_row_class_init (RivEndpointRowClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->get_property = riv_endpoint_row_get_property;
  object_class->dispose = riv_endpoint_row_dispose;
  object_class->finalize = riv_endpoint_row_finalize;

  properties[PROP_ENDPOINT] =
    g_param_spec_pointer ("endpoint", NULL, NULL,
                          G_PARAM_READABLE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  g_object_class_install_properties (object_class, N_PROPS, properties);
}

static void
riv_endpoint_row_init (RivEndpointRow *self)
{
  g_autoptr(GtkListItemFactory) factory = gtk_signal_list_item_factory_new ();

  self->endpoints = g_ptr_array_new ();
  self->names = gtk_string_list_new (NULL);
  adw_combo_row_set_model (ADW_COMBO_ROW (self), G_LIST_MODEL (self->names));
  g_signal_connect_object (factory, "setup", G_CALLBACK (list_setup_cb), self, 0);
  g_signal_connect_object (factory, "bind", G_CALLBACK (list_bind_cb), self, 0);
  adw_combo_row_set_list_factory (ADW_COMBO_ROW (self), factory);
  g_signal_connect (self, "notify::selected", G_CALLBACK (chosen_cb), NULL);
  adw_action_row_set_subtitle (ADW_ACTION_ROW (self), _("Connect to a server first"));
}
