/* inspector-help.c: the user guide's window (Help, F1)
 *
 * The guide is a few short sections of translatable text in inspector-help.ui: it works
 * offline, installed or from the build tree, and in every language the window speaks, which a
 * link to a web page or an uninstalled Yelp page would not.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include "inspector-help.h"

GtkWindow *
inspector_help_new (GtkWindow *parent)
{
  g_autoptr(GtkBuilder) builder = gtk_builder_new_from_resource (
                                    "/org/libfl/Inspector/inspector-help.ui");
  GtkWindow *window = GTK_WINDOW (gtk_builder_get_object (builder, "help_window"));

  gtk_window_set_transient_for (window, parent);
  gtk_window_set_destroy_with_parent (window, TRUE);
  return window;
}
