/* inspector-a11y.c: accessible names the way a screen reader should read them
 *
 * GTK 4.8 names a button with a mnemonic label after the label's text with its underscore,
 * and its label child repeats it (the button is "labelled by" it too): Orca read "_Copy Path
 * Copy Path". GTK 4.10 strips the mnemonic itself; on 4.8 the name is set here, from the label
 * the person sees (so it is translated with it and never a second string to keep in step), and
 * the relation that repeats it is dropped.
 *
 * A column view's header row and its titles, and the list inside it, are GTK's own widgets
 * that 4.8 leaves unnamed: AT-SPI reads them by their type names ("GtkListItemWidget",
 * "GtkColumnViewTitle", "GtkColumnListView"). Their roles (row, a generic filler for a title,
 * list) cannot be changed: a widget's accessible-role is construct-only and GTK builds these.
 * Their names can: the header row is "Column headers", each title its column's title, the list
 * the column view's name.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <glib/gi18n.h>

#include "inspector-a11y.h"

char *
inspector_a11y_strip_mnemonic (const char *text)
{
  GString *out = g_string_new (NULL);

  for (const char *p = text; *p != '\0'; p++)
    {
      if (*p == '_')
        {
          if (p[1] != '_')
            continue;
          p++;
        }
      g_string_append_c (out, *p);
    }
  return g_string_free (out, FALSE);
}

static void
update_name (GtkButton *button)
{
  const char *label = gtk_button_get_label (button);
  g_autofree char *name = NULL;

  if (label == NULL || !gtk_button_get_use_underline (button))
    return;
  name = inspector_a11y_strip_mnemonic (label);
  gtk_accessible_update_property (GTK_ACCESSIBLE (button), GTK_ACCESSIBLE_PROPERTY_LABEL, name,
                                  -1);
  /* AT-SPI's name is the label followed by what the button is labelled by: its own label. */
  gtk_accessible_reset_relation (GTK_ACCESSIBLE (button), GTK_ACCESSIBLE_RELATION_LABELLED_BY);
}

void
inspector_a11y_name_buttons (GtkWidget *root)
{
  if (GTK_IS_BUTTON (root) && !GTK_IS_MENU_BUTTON (root)
      && g_object_get_data (G_OBJECT (root), "inspector-a11y-named") == NULL)
    {
      g_object_set_data (G_OBJECT (root), "inspector-a11y-named", GINT_TO_POINTER (1));
      update_name (GTK_BUTTON (root));
      g_signal_connect (root, "notify::label", G_CALLBACK (update_name), NULL);
    }
  for (GtkWidget *child = gtk_widget_get_first_child (root); child != NULL;
       child = gtk_widget_get_next_sibling (child))
    inspector_a11y_name_buttons (child);
}

static GtkWidget *
first_of_type (GtkWidget *widget,
               GType      type)
{
  if (g_type_is_a (G_OBJECT_TYPE (widget), type))
    return widget;
  for (GtkWidget *child = gtk_widget_get_first_child (widget); child != NULL;
       child = gtk_widget_get_next_sibling (child))
    {
      GtkWidget *found = first_of_type (child, type);

      if (found != NULL)
        return found;
    }
  return NULL;
}

GtkLabel *
inspector_a11y_first_label (GtkWidget *widget)
{
  return (GtkLabel *) first_of_type (widget, GTK_TYPE_LABEL);
}

/* The list's cells show their text in a GtkInscription, whose size does not depend on the
 * text (docs/performance.md, "Cells"); a few cells and the titles use a GtkLabel. */
GtkWidget *
inspector_a11y_first_text (GtkWidget *widget)
{
  GtkWidget *inscription = first_of_type (widget, GTK_TYPE_INSCRIPTION);

  return inscription != NULL ? inscription : first_of_type (widget, GTK_TYPE_LABEL);
}

const char *
inspector_a11y_text (GtkWidget *text)
{
  if (GTK_IS_INSCRIPTION (text))
    return gtk_inscription_get_text (GTK_INSCRIPTION (text));
  if (GTK_IS_LABEL (text))
    return gtk_label_get_text (GTK_LABEL (text));
  return NULL;
}

/* The header is the column view's first child and holds one title per visible column (a title
 * is made when its column is first shown); the list is the next child. */
static void
name_column_view (GtkColumnView *view)
{
  GtkWidget *header = gtk_widget_get_first_child (GTK_WIDGET (view));
  GtkWidget *list = header != NULL ? gtk_widget_get_next_sibling (header) : NULL;
  const char *name = g_object_get_data (G_OBJECT (view), "inspector-a11y-list-name");

  if (header == NULL)
    return;
  gtk_accessible_update_property (GTK_ACCESSIBLE (header), GTK_ACCESSIBLE_PROPERTY_LABEL,
                                  _("Column headers"), -1);
  for (GtkWidget *title = gtk_widget_get_first_child (header); title != NULL;
       title = gtk_widget_get_next_sibling (title))
    {
      GtkLabel *label = inspector_a11y_first_label (title);

      if (label != NULL)
        gtk_accessible_update_property (GTK_ACCESSIBLE (title), GTK_ACCESSIBLE_PROPERTY_LABEL,
                                        gtk_label_get_text (label), -1);
    }
  if (list != NULL && name != NULL)
    gtk_accessible_update_property (GTK_ACCESSIBLE (list), GTK_ACCESSIBLE_PROPERTY_LABEL, name,
                                    -1);
}

void
inspector_a11y_name_column_view (GtkColumnView *view,
                                 const char    *name)
{
  GListModel *columns = gtk_column_view_get_columns (view);

  g_object_set_data_full (G_OBJECT (view), "inspector-a11y-list-name", g_strdup (name), g_free);
  name_column_view (view);
  /* A column shown for the first time brings a new title. */
  for (guint i = 0; i < g_list_model_get_n_items (columns); i++)
    {
      g_autoptr(GtkColumnViewColumn) column = g_list_model_get_item (columns, i);

      g_signal_connect_object (column, "notify::visible", G_CALLBACK (name_column_view), view,
                               G_CONNECT_SWAPPED);
    }
}
