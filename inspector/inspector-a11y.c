/* inspector-a11y.c: accessible names the way a screen reader should read them
 *
 * GTK 4.8 names a button with a mnemonic label after the label's text with its underscore,
 * and its label child repeats it: Orca read "_Copy Path Copy Path". GTK 4.10 strips the
 * mnemonic itself; on 4.8 the name is set here, from the label the person sees (so it is
 * translated with it and never a second string to keep in step).
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

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
