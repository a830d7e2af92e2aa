/* inspector-window-folders.c: the watched folders: added, removed, remembered, dropped, demo
 *
 * Folders are read in a worker thread (fl_directory_model_add_directory_async()), so a folder
 * of 100,000 locks does not freeze the window; file events are followed from the start.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <glib/gi18n.h>
#include <string.h>

#include "inspector-state.h"
#include "inspector-window-private.h"

/* Watched directories: the popover's list, and GSettings */

/* An etcd prefix (etcd://HOSTS/PREFIX) is watched beside folders: it is kept as typed, less a
 * trailing slash, as libfl's model keeps it. */
static gboolean
is_etcd_prefix (const char *directory)
{
  return g_str_has_prefix (directory, "etcd://") || g_str_has_prefix (directory, "etcds://");
}

static char *
root_path_for (const char *directory)
{
  gsize len = strlen (directory);

  if (!is_etcd_prefix (directory))
    return g_canonicalize_filename (directory, NULL);
  return len > 0 && directory[len - 1] == '/' ? g_strndup (directory, len - 1)
                                               : g_strdup (directory);
}


/* The remembered list changes one folder at a time: a folder added by hand is appended, one
 * removed by hand is dropped. A window opened on a one-off folder (`fl-inspector DIR`,
 * --demo) watches it without touching what was remembered before. */
static void
remember (InspectorWindow *self,
          const char      *directory,
          gboolean         add)
{
  g_autoptr(GVariant) old = g_settings_get_value (self->settings, "directories");
  gboolean recursive_now = GPOINTER_TO_INT (g_hash_table_lookup (self->recursive_dirs,
                                                                 directory));
  GVariantBuilder builder;
  GVariantIter iter;
  const char *path;
  gboolean recursive;
  gboolean present = FALSE;

  g_variant_builder_init (&builder, G_VARIANT_TYPE ("a(sb)"));
  g_variant_iter_init (&iter, old);
  while (g_variant_iter_next (&iter, "(&sb)", &path, &recursive))
    {
      if (!g_str_equal (path, directory))
        g_variant_builder_add (&builder, "(sb)", path, recursive);
      else if (add)
        {
          g_variant_builder_add (&builder, "(sb)", path, recursive_now);
          present = TRUE;
        }
    }
  if (add && !present)
    g_variant_builder_add (&builder, "(sb)", directory, recursive_now);
  g_settings_set_value (self->settings, "directories", g_variant_builder_end (&builder));
}

/* Under a folder's row in the popover: what of it could not be read. */
static void
append_problems (InspectorWindow *self,
                 const char      *directory)
{
  g_auto(GStrv) problems = fl_directory_model_dup_problems (self->model, directory);

  for (guint i = 0; problems[i] != NULL; i++)
    {
      GtkWidget *label = gtk_label_new (problems[i]);

      gtk_label_set_xalign (GTK_LABEL (label), 0);
      gtk_label_set_wrap (GTK_LABEL (label), TRUE);
      gtk_label_set_max_width_chars (GTK_LABEL (label), 40);
      gtk_widget_set_margin_start (label, 18);
      gtk_widget_add_css_class (label, "error");
      gtk_list_box_append (self->directories_list, label);
    }
}

/* What the model could not read (a subfolder it may not list, a watched folder that is gone),
 * in the banner for as long as it is true: a listing is never silently incomplete. */
void
_inspector_window_show_problems (InspectorWindow *self)
{
  g_auto(GStrv) problems = fl_directory_model_dup_problems (self->model, NULL);
  g_autofree char *joined = NULL;
  g_autofree char *text = NULL;

  _inspector_window_rebuild_directories (self);
  if (problems[0] == NULL)
    {
      /* Its cause is gone: so is the banner, if it still says it. */
      if (self->problems_text != NULL &&
          g_strcmp0 (gtk_label_get_text (self->banner_label), self->problems_text) == 0)
        gtk_revealer_set_reveal_child (self->banner, FALSE);
      g_clear_pointer (&self->problems_text, g_free);
      return;
    }
  /* One paragraph: GTK 4.8 measures a wrapping label with a line break in it wrongly. */
  joined = g_strjoinv ("; ", problems);
  /* TRANSLATORS: %s is what could not be read, such as "Cannot list “/srv/locks/private”:
   * Permission denied" */
  text = g_strdup_printf (_("The list is incomplete: %s."), joined);
  g_free (self->problems_text);
  self->problems_text = g_strdup (text);
  _inspector_window_show_banner (self, FALSE, text);
}

void
_inspector_window_rebuild_directories (InspectorWindow *self)
{
  g_auto(GStrv) dirs = fl_directory_model_dup_directories (self->model);
  gboolean has_etcd = FALSE;
  gboolean several = FALSE;
  GtkWidget *child;

  while ((child = gtk_widget_get_first_child (GTK_WIDGET (self->directories_list))) != NULL)
    gtk_list_box_remove (self->directories_list, child);

  for (guint i = 0; dirs[i] != NULL; i++)
    {
      GtkWidget *box = gtk_box_new (GTK_ORIENTATION_HORIZONTAL, 6);
      gboolean recursive = GPOINTER_TO_INT (g_hash_table_lookup (self->recursive_dirs, dirs[i]));
      g_autofree char *text = recursive ? g_strdup_printf (_("%s (with subfolders)"), dirs[i])
                                        : g_strdup (dirs[i]);
      GtkWidget *label = gtk_label_new (text);
      GtkWidget *button = gtk_button_new_from_icon_name ("list-remove-symbolic");
      g_autofree char *a11y = g_strdup_printf (_("Stop watching %s"), dirs[i]);

      gtk_widget_set_margin_start (box, 6);
      gtk_widget_set_margin_end (box, 6);
      gtk_label_set_xalign (GTK_LABEL (label), 0);
      gtk_label_set_ellipsize (GTK_LABEL (label), PANGO_ELLIPSIZE_START);
      gtk_label_set_width_chars (GTK_LABEL (label), 32);
      gtk_widget_set_hexpand (label, TRUE);
      gtk_widget_set_tooltip_text (button, a11y);
      gtk_accessible_update_property (GTK_ACCESSIBLE (button), GTK_ACCESSIBLE_PROPERTY_LABEL,
                                      a11y, -1);
      gtk_actionable_set_action_name (GTK_ACTIONABLE (button), "win.remove-directory");
      gtk_actionable_set_action_target (GTK_ACTIONABLE (button), "s", dirs[i]);
      gtk_widget_add_css_class (button, "flat");
      gtk_box_append (GTK_BOX (box), label);
      gtk_box_append (GTK_BOX (box), button);
      gtk_list_box_append (self->directories_list, box);
      append_problems (self, dirs[i]);
    }
  /* Host and Lease say something only of etcd locks; Folder only where files of several
   * folders meet in the list (equal names are then told apart). */
  for (guint i = 0; dirs[i] != NULL; i++)
    {
      has_etcd |= is_etcd_prefix (dirs[i]);
      several |= i > 0 || GPOINTER_TO_INT (g_hash_table_lookup (self->recursive_dirs, dirs[i]));
    }
  self->several_folders = several;
  self->watching_etcd = has_etcd;
  _inspector_window_update_columns (self);
  g_strfreev (self->roots);
  self->roots = g_strdupv (dirs);
  g_object_notify (G_OBJECT (self), "roots");
  inspector_kernel_view_set_roots (self->kernel_view, (const char * const *) dirs);

  if (dirs[0] == NULL)
    {
      GtkWidget *none = gtk_label_new (_("None yet: open a folder."));

      gtk_widget_add_css_class (none, "dim-label");
      gtk_list_box_append (self->directories_list, none);
    }
}

typedef struct
{
  InspectorWindow *self;
  char            *directory;
  gboolean         remember;
} AddCall;

/* The demo opens on its first stale lock, so that the details pane shows a verdict's evidence
 * and the reclaim button is one key away. */
static void
select_first_stale (InspectorWindow *self)
{
  GListModel *rows = G_LIST_MODEL (self->sort_model);

  for (guint i = 0; i < g_list_model_get_n_items (rows); i++)
    {
      g_autoptr(FlEntry) entry = g_list_model_get_item (rows, i);

      if (fl_snapshot_get_state (fl_entry_get_snapshot (entry)) == FL_ENTRY_STATE_STALE)
        {
          gtk_single_selection_set_selected (self->selection, i);
          _inspector_window_focus_selected_row (self);
          return;
        }
    }
}

static void
added_cb (GObject      *source,
          GAsyncResult *result,
          gpointer      user_data)
{
  AddCall *call = user_data;
  g_autoptr(InspectorWindow) self = call->self;
  g_autofree char *directory = call->directory;
  g_autoptr(GError) error = NULL;

  /* libfl's message names the folder and says what to do. */
  if (!fl_directory_model_add_directory_finish (FL_DIRECTORY_MODEL (source), result, &error))
    _inspector_window_show_banner (self, FALSE, error->message);
  else if (call->remember)
    remember (self, directory, TRUE);
  else if (self->demo != NULL
           && g_strcmp0 (directory, inspector_demo_get_directory (self->demo)) == 0)
    select_first_stale (self);

  g_free (call);
  _inspector_window_rebuild_directories (self);
  _inspector_window_update_page (self);
}

void
inspector_window_add_directory (InspectorWindow *self,
                                const char      *directory,
                                gboolean         recursive,
                                gboolean         remember)
{
  g_autofree char *canonical = NULL;
  AddCall *call;

  g_return_if_fail (INSPECTOR_IS_WINDOW (self));

  canonical = root_path_for (directory);
  g_hash_table_insert (self->recursive_dirs, g_strdup (canonical), GINT_TO_POINTER (recursive));
  call = g_new0 (AddCall, 1);
  call->self = g_object_ref (self);
  call->directory = g_strdup (canonical);
  call->remember = remember;
  fl_directory_model_add_directory_async (self->model, canonical, recursive, self->cancellable,
                                          added_cb, call);
  _inspector_window_rebuild_directories (self);
  _inspector_window_update_page (self);
}

void
_inspector_window_remove_directory (InspectorWindow *self,
                                    const char      *directory)
{
  fl_directory_model_remove_directory (self->model, directory);
  remember (self, directory, FALSE);
  _inspector_window_rebuild_directories (self);
  _inspector_window_update_page (self);
}

static void
demo_started_cb (GObject      *source,
                 GAsyncResult *result,
                 gpointer      user_data)
{
  g_autoptr(InspectorWindow) self = user_data;
  g_autoptr(GError) error = NULL;

  if (!inspector_demo_start_finish (INSPECTOR_DEMO (source), result, &error))
    {
      if (!g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
        _inspector_window_show_banner (self, FALSE, error->message);
      g_clear_object (&self->demo);
      _inspector_window_update_page (self);
      return;
    }
  inspector_window_add_directory (self, inspector_demo_get_directory (self->demo), TRUE, FALSE);
}

void
inspector_window_start_demo (InspectorWindow *self)
{
  g_return_if_fail (INSPECTOR_IS_WINDOW (self));
  g_return_if_fail (self->demo == NULL);

  self->demo = inspector_demo_new ();
  gtk_stack_set_visible_child_name (self->stack, "loading");
  inspector_demo_start_async (self->demo, self->cancellable, demo_started_cb, g_object_ref (self));
}

/* Drag and drop: a folder is watched; a file's folder is. */
gboolean
_inspector_window_drop_cb (GtkDropTarget   *target,
                           const GValue    *value,
                           double           x,
                           double           y,
                           InspectorWindow *self)
{
  GSList *files;

  if (!G_VALUE_HOLDS (value, GDK_TYPE_FILE_LIST))
    return FALSE;
  files = g_value_get_boxed (value);
  for (GSList *l = files; l != NULL; l = l->next)
    {
      g_autofree char *path = g_file_get_path (l->data);

      if (path == NULL)
        continue;
      if (g_file_test (path, G_FILE_TEST_IS_DIR))
        inspector_window_add_directory (self, path, FALSE, TRUE);
      else
        {
          g_autofree char *parent = g_path_get_dirname (path);

          inspector_window_add_directory (self, parent, FALSE, TRUE);
        }
    }
  return TRUE;
}

/* The page the window shows: the empty state without folders, a spinner while the first scan
 * runs, a page that says the watched folders hold no lock files (rather than an empty table),
 * one that says the search or Problems Only leaves none, else the list. */
void
_inspector_window_update_page (InspectorWindow *self)
{
  g_auto(GStrv) dirs = fl_directory_model_dup_directories (self->model);
  gboolean loading;

  g_object_get (self->model, "loading", &loading, NULL);
  if (dirs[0] == NULL && self->demo == NULL)
    gtk_stack_set_visible_child_name (self->stack, "empty");
  else if (loading && g_list_model_get_n_items (G_LIST_MODEL (self->model)) == 0)
    gtk_stack_set_visible_child_name (self->stack, "loading");
  else if (g_list_model_get_n_items (G_LIST_MODEL (self->model)) == 0)
    gtk_stack_set_visible_child_name (self->stack, "no-locks");
  else if (g_list_model_get_n_items (G_LIST_MODEL (self->sort_model)) == 0)
    gtk_stack_set_visible_child_name (self->stack, "no-results");
  else
    gtk_stack_set_visible_child_name (self->stack, "list");
  /* A spinning spinner keeps its CSS animation, and with it a frame of the whole window
   * every vsync, even on a page the stack hides: at 100,000 rows under a software renderer
   * that was the main loop's worst stall with nothing happening. */
  gtk_spinner_set_spinning (self->loading_spinner,
                            g_strcmp0 (gtk_stack_get_visible_child_name (self->stack),
                                       "loading") == 0);
}

/* The folder actions */

static void
chooser_response_cb (GtkNativeDialog *native,
                     int              response,
                     InspectorWindow *self)
{
  if (response == GTK_RESPONSE_ACCEPT)
    {
      g_autoptr(GFile) file = gtk_file_chooser_get_file (GTK_FILE_CHOOSER (native));
      const char *choice = gtk_file_chooser_get_choice (GTK_FILE_CHOOSER (native), "recursive");
      g_autofree char *path = file != NULL ? g_file_get_path (file) : NULL;

      if (path != NULL)
        inspector_window_add_directory (self, path, g_strcmp0 (choice, "true") == 0, TRUE);
    }
  g_object_unref (native);
}

static void
open_action (GtkWidget  *widget,
             const char *action_name,
             GVariant   *parameter)
{
  InspectorWindow *self = INSPECTOR_WINDOW (widget);
  GtkFileChooserNative *native;

  native = gtk_file_chooser_native_new (_("Watch a Folder"), GTK_WINDOW (self),
                                        GTK_FILE_CHOOSER_ACTION_SELECT_FOLDER, _("_Watch"),
                                        _("_Cancel"));
  gtk_file_chooser_add_choice (GTK_FILE_CHOOSER (native), "recursive",
                               _("Include subfolders"), NULL, NULL);
  gtk_native_dialog_set_modal (GTK_NATIVE_DIALOG (native), TRUE);
  g_signal_connect (native, "response", G_CALLBACK (chooser_response_cb), self);
  gtk_native_dialog_show (GTK_NATIVE_DIALOG (native));
}

/* The popover's entry: an etcd prefix, watched beside the folders and remembered with them. A
 * prefix that cannot be read is reported in the banner, in libfl's words. */
static void
add_etcd_prefix_action (GtkWidget  *widget,
                        const char *action_name,
                        GVariant   *parameter)
{
  InspectorWindow *self = INSPECTOR_WINDOW (widget);
  g_autofree char *text = g_strstrip (g_strdup (gtk_editable_get_text (
                                                  GTK_EDITABLE (self->etcd_entry))));

  if (text[0] == '\0')
    return;
  if (!g_str_has_prefix (text, "etcd://") && !g_str_has_prefix (text, "etcds://"))
    {
      _inspector_window_show_banner (self, FALSE,
                                     _("Write an etcd prefix as etcd://HOST:PORT/PREFIX (or "
                                       "etcds:// for TLS); open folders with the Open button."));
      return;
    }
  inspector_window_add_directory (self, text, FALSE, TRUE);
  gtk_editable_set_text (GTK_EDITABLE (self->etcd_entry), "");
}

/* Enter in the entry does what the Watch button beside it does. */
void
_inspector_window_etcd_entry_activate_cb (GtkEntry        *entry,
                                          InspectorWindow *self)
{
  gtk_widget_activate_action (GTK_WIDGET (self), "win.add-etcd-prefix", NULL);
}

static void
remove_directory_action (GtkWidget  *widget,
                         const char *action_name,
                         GVariant   *parameter)
{
  _inspector_window_remove_directory (INSPECTOR_WINDOW (widget),
                                      g_variant_get_string (parameter, NULL));
}

void
_inspector_window_install_folder_actions (GtkWidgetClass *widget_class)
{
  gtk_widget_class_install_action (widget_class, "win.open", NULL, open_action);
  gtk_widget_class_install_action (widget_class, "win.add-etcd-prefix", NULL,
                                   add_etcd_prefix_action);
  gtk_widget_class_install_action (widget_class, "win.remove-directory", "s",
                                   remove_directory_action);
}
