/* inspector-application.c: the Lock Inspector application
 *
 * `fl-inspector [--recursive] [DIR...]` watches the folders given (one-off: the remembered
 * list is left as it is), else those remembered; DIR may be an etcd prefix (etcd://H:P/PREFIX);
 * `fl-inspector --demo` watches a fresh folder filled by `flctl demo`.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <signal.h>

#include <glib/gi18n.h>
#ifdef G_OS_UNIX   /* from glib, hence after it */
#include <glib-unix.h>   /* g_unix_signal_add(): Unix only */
#endif

#include "inspector-application.h"
#include "inspector-window.h"

struct _InspectorApplication
{
  GtkApplication parent_instance;

  gboolean       demo;
  gboolean       recursive;
};

G_DEFINE_FINAL_TYPE (InspectorApplication, inspector_application, GTK_TYPE_APPLICATION)

static InspectorWindow *
new_window (InspectorApplication *self)
{
  InspectorWindow *window = inspector_window_new (GTK_APPLICATION (self));

  if (self->demo)
    inspector_window_start_demo (window);
  return window;
}

static void
inspector_application_activate (GApplication *application)
{
  InspectorApplication *self = INSPECTOR_APPLICATION (application);
  InspectorWindow *window = new_window (self);

  if (!self->demo)
    {
      g_autoptr(GSettings) settings = g_settings_new ("org.libfl.Inspector");
      g_autoptr(GVariant) dirs = g_settings_get_value (settings, "directories");
      GVariantIter iter;
      const char *path;
      gboolean recursive;

      g_variant_iter_init (&iter, dirs);
      while (g_variant_iter_next (&iter, "(&sb)", &path, &recursive))
        inspector_window_add_directory (window, path, recursive, FALSE);
    }
  gtk_window_present (GTK_WINDOW (window));
}

static void
inspector_application_open (GApplication  *application,
                            GFile        **files,
                            int            n_files,
                            const char    *hint)
{
  InspectorApplication *self = INSPECTOR_APPLICATION (application);
  InspectorWindow *window = new_window (self);

  for (int i = 0; i < n_files; i++)
    {
      g_autofree char *path = g_file_get_path (files[i]);

      /* fl-inspector etcd://HOST:PORT/PREFIX: an etcd prefix beside the folders */
      if (path == NULL && (g_file_has_uri_scheme (files[i], "etcd") ||
                           g_file_has_uri_scheme (files[i], "etcds")))
        path = g_file_get_uri (files[i]);
      /* One-off: watched in this window, the remembered folders left as they are. */
      if (path != NULL)
        inspector_window_add_directory (window, path, self->recursive, FALSE);
    }
  gtk_window_present (GTK_WINDOW (window));
}

static int
inspector_application_handle_local_options (GApplication *application,
                                            GVariantDict *options)
{
  InspectorApplication *self = INSPECTOR_APPLICATION (application);

  if (g_variant_dict_contains (options, "version"))
    {
      g_print ("fl-inspector %s\n", PACKAGE_VERSION);
      return 0;
    }
  self->demo = g_variant_dict_contains (options, "demo");
  self->recursive = g_variant_dict_contains (options, "recursive");
  return -1;
}

static void
quit_activated (GSimpleAction *action,
                GVariant      *parameter,
                gpointer       user_data)
{
  GtkApplication *self = user_data;
  GList *windows;

  /* Closing each window ends its demo (holders released) and saves its state. */
  while ((windows = gtk_application_get_windows (self)) != NULL)
    gtk_window_close (windows->data);
}

static void
about_activated (GSimpleAction *action,
                 GVariant      *parameter,
                 gpointer       user_data)
{
  GtkApplication *self = user_data;

  gtk_show_about_dialog (gtk_application_get_active_window (self),
                         "program-name", _("Lock Inspector"),
                         "logo-icon-name", "org.libfl.Inspector",
                         "version", PACKAGE_VERSION,
                         "comments", _("See who holds which lock file, why a lock is stale, and "
                                       "reclaim it safely."),
                         "license-type", GTK_LICENSE_LGPL_2_1,
                         /* TRANSLATORS: your name, shown in the About window */
                         "translator-credits", _("translator-credits"),
                         NULL);
}

#ifdef G_OS_UNIX   /* its only caller, below, is */
static gboolean
quit_signal_cb (gpointer user_data)
{
  quit_activated (NULL, NULL, user_data);
  return G_SOURCE_CONTINUE;
}
#endif

static void
inspector_application_startup (GApplication *application)
{
  static const GActionEntry entries[] = {
    { "quit", quit_activated, NULL, NULL, NULL, { 0 } },
    { "about", about_activated, NULL, NULL, NULL, { 0 } },
  };
  static const char *quit_accels[] = { "<Control>q", NULL };
  static const char *close_accels[] = { "<Control>w", NULL };

  G_APPLICATION_CLASS (inspector_application_parent_class)->startup (application);

  g_action_map_add_action_entries (G_ACTION_MAP (application), entries, G_N_ELEMENTS (entries),
                                   application);
  gtk_application_set_accels_for_action (GTK_APPLICATION (application), "app.quit", quit_accels);
  gtk_application_set_accels_for_action (GTK_APPLICATION (application), "window.close",
                                         close_accels);
#ifdef G_OS_UNIX
  /* A demo's holders must not outlive a terminal's Ctrl+C or a kill. */
  g_unix_signal_add (SIGINT, quit_signal_cb, application);
  g_unix_signal_add (SIGTERM, quit_signal_cb, application);
  g_unix_signal_add (SIGHUP, quit_signal_cb, application);
#endif
  /* Windows: no signals to catch; --demo, the only reason for them, is Linux only there
   * (flctl demo is, flctl/flctl-demo-none.c). */
  g_set_application_name (_("Lock Inspector"));
  gtk_window_set_default_icon_name ("org.libfl.Inspector");
}

static void
inspector_application_class_init (InspectorApplicationClass *klass)
{
  GApplicationClass *app_class = G_APPLICATION_CLASS (klass);

  app_class->activate = inspector_application_activate;
  app_class->open = inspector_application_open;
  app_class->startup = inspector_application_startup;
  app_class->handle_local_options = inspector_application_handle_local_options;
}

static void
inspector_application_init (InspectorApplication *self)
{
  static const GOptionEntry options[] = {
    { "demo", 'd', 0, G_OPTION_ARG_NONE, NULL,
      N_("Watch a fresh folder filled with every kind of lock by “flctl demo”"), NULL },
    { "recursive", 'r', 0, G_OPTION_ARG_NONE, NULL,
      N_("Also watch the subfolders of the folders given"), NULL },
    { "version", 0, 0, G_OPTION_ARG_NONE, NULL, N_("Print the version and exit"), NULL },
    { NULL }
  };

  g_application_add_main_option_entries (G_APPLICATION (self), options);
  g_application_set_option_context_parameter_string (G_APPLICATION (self), _("[FOLDER…]"));
  g_application_set_option_context_summary (G_APPLICATION (self),
                                            _("See who holds which lock file, why a lock is "
                                              "stale, and reclaim it safely."));
}

InspectorApplication *
inspector_application_new (void)
{
  return g_object_new (INSPECTOR_TYPE_APPLICATION,
                       "application-id", "org.libfl.Inspector",
                       "flags", G_APPLICATION_HANDLES_OPEN | G_APPLICATION_NON_UNIQUE,
                       "resource-base-path", "/org/libfl/Inspector",
                       NULL);
}
