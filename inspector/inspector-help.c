/* inspector-help.c: the user guide's window (Help, F1)
 *
 * The guide is a few short sections of translatable text in inspector-help.ui: it works
 * offline, installed or from the build tree, and in every language the window speaks, which a
 * link to a web page or an uninstalled Yelp page would not. Escape and Ctrl+W close it, as they
 * close Yelp and every GNOME dialog.
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
  GtkEventController *keys = gtk_shortcut_controller_new ();

  gtk_shortcut_controller_set_scope (GTK_SHORTCUT_CONTROLLER (keys), GTK_SHORTCUT_SCOPE_GLOBAL);
  gtk_shortcut_controller_add_shortcut (GTK_SHORTCUT_CONTROLLER (keys),
    gtk_shortcut_new (gtk_alternative_trigger_new (gtk_keyval_trigger_new (GDK_KEY_Escape, 0),
                                                   gtk_keyval_trigger_new (GDK_KEY_w,
                                                                           GDK_CONTROL_MASK)),
                      gtk_named_action_new ("window.close")));
  gtk_widget_add_controller (GTK_WIDGET (window), keys);

  gtk_window_set_transient_for (window, parent);
  gtk_window_set_destroy_with_parent (window, TRUE);
  return window;
}
