/* test-window.c: the Lock Inspector's window on the demo folder, under Xvfb
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <glib/gstdio.h>

#include "inspector-state.h"
#include "ui-test-util.h"

typedef struct
{
  const char     *name;
  FlEntryState  state;
} Expected;

/* What flctl demo makes, and the state each must show. */
static const Expected demo_states[] = {
  { "database.sqlite.lock", FL_ENTRY_STATE_HELD },
  { "backup.tar.lock", FL_ENTRY_STATE_HELD },
  { "projects/site/index.html.lock", FL_ENTRY_STATE_HELD },
  { "report.csv.lock", FL_ENTRY_STATE_STALE },
  { "session.db.lock", FL_ENTRY_STATE_STALE },
  { "upload.part.lock", FL_ENTRY_STATE_UNKNOWN },  /* empty, younger than stale_after */
  { "legacy.lock", FL_ENTRY_STATE_FOREIGN },
};

static gboolean
all_rendered (gpointer data)
{
  InspectorWindow *window = data;
  g_autoptr(GHashTable) states = ui_rendered_states (GTK_WIDGET (window->column_view));

  return g_hash_table_size (states) >= g_list_model_get_n_items (G_LIST_MODEL (window->model));
}

static guint
count_rows_in_state (GListModel   *rows,
                     FlEntryState  state)
{
  guint n = 0;

  for (guint i = 0; i < g_list_model_get_n_items (rows); i++)
    {
      g_autoptr(FlEntry) entry = g_list_model_get_item (rows, i);

      n += fl_snapshot_get_state (fl_entry_get_snapshot (entry)) == state;
    }
  return n;
}

static void
test_demo_states (void)
{
  InspectorWindow *window = ui_window_with_demo ();
  g_autoptr(GHashTable) rendered = NULL;
  GListModel *rows = _inspector_window_get_rows (window);
  guint orphans = 0;
  guint held, stale, n_orphans;

  g_assert_cmpuint (g_list_model_get_n_items (rows), ==, 9);
  for (gsize i = 0; i < G_N_ELEMENTS (demo_states); i++)
    {
      FlEntry *entry = ui_lookup (window, demo_states[i].name);

      g_assert_nonnull (entry);
      g_test_message ("%s: %s", demo_states[i].name,
                      fl_snapshot_get_reason (fl_entry_get_snapshot (entry)));
      g_assert_cmpint (fl_snapshot_get_state (fl_entry_get_snapshot (entry)), ==,
                       demo_states[i].state);
    }
  for (guint i = 0; i < g_list_model_get_n_items (rows); i++)
    {
      g_autoptr(FlEntry) entry = g_list_model_get_item (rows, i);

      orphans += fl_snapshot_get_state (fl_entry_get_snapshot (entry)) == FL_ENTRY_STATE_ORPHAN;
    }
  g_assert_cmpuint (orphans, ==, 2);

  /* What the rows show: every row, with the words of its state. */
  g_assert_true (fl_test_wait_until (all_rendered, window, 10000));
  rendered = ui_rendered_states (GTK_WIDGET (window->column_view));
  for (guint i = 0; i < g_list_model_get_n_items (rows); i++)
    {
      g_autoptr(FlEntry) entry = g_list_model_get_item (rows, i);
      g_autofree char *expected = fl_snapshot_dup_state_summary (fl_entry_get_snapshot (entry));

      g_assert_cmpstr (g_hash_table_lookup (rendered, fl_entry_get_path (entry)), ==, expected);
    }

  g_object_get (window->model, "n-held", &held, "n-stale", &stale, "n-orphans", &n_orphans, NULL);
  /* The counts match the rows: the empty lock is unknown, not held (it used to be counted with
   * the held ones while its row said "Unknown: no PID yet"). */
  g_assert_cmpuint (held, ==, 3);
  g_assert_cmpuint (held, ==, count_rows_in_state (rows, FL_ENTRY_STATE_HELD));
  g_assert_cmpuint (stale, ==, 2);
  g_assert_cmpuint (stale, ==, count_rows_in_state (rows, FL_ENTRY_STATE_STALE));
  g_assert_cmpuint (n_orphans, ==, 2);
  g_assert_cmpuint (n_orphans, ==, count_rows_in_state (rows, FL_ENTRY_STATE_ORPHAN));
  g_assert_nonnull (strstr (gtk_label_get_text (window->counts_label), "3"));

  ui_window_close (window);
}

static guint
n_rows (InspectorWindow *window)
{
  return g_list_model_get_n_items (_inspector_window_get_rows (window));
}

static void
test_search_and_problems (void)
{
  InspectorWindow *window = ui_window_with_demo ();
  FlEntry *db = ui_lookup (window, "database.sqlite.lock");
  g_autofree char *pid = g_strdup_printf ("%d", fl_snapshot_get_pid (fl_entry_get_snapshot (db)));

  gtk_search_entry_set_search_delay (window->search_entry, 0);

  /* By process: the live db-writer, and the lock whose PID it reused. */
  gtk_editable_set_text (GTK_EDITABLE (window->search_entry), "db-writer");
  g_signal_emit_by_name (window->search_entry, "search-changed");
  g_assert_cmpuint (n_rows (window), ==, 2);

  gtk_editable_set_text (GTK_EDITABLE (window->search_entry), pid);
  g_signal_emit_by_name (window->search_entry, "search-changed");
  g_assert_cmpuint (n_rows (window), ==, 2);

  gtk_editable_set_text (GTK_EDITABLE (window->search_entry), "REPORT");
  g_signal_emit_by_name (window->search_entry, "search-changed");
  g_assert_cmpuint (n_rows (window), ==, 2);  /* report.csv.lock and its temp */

  gtk_editable_set_text (GTK_EDITABLE (window->search_entry), "");
  g_signal_emit_by_name (window->search_entry, "search-changed");
  g_assert_cmpuint (n_rows (window), ==, 9);

  /* Problems only: 3 stale, 2 orphans, 1 foreign. */
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (window), "win.problems-only", NULL));
  g_assert_true (window->problems_only);
  g_assert_true (gtk_toggle_button_get_active (window->problems_button));
  g_assert_cmpuint (n_rows (window), ==, 6);
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (window), "win.problems-only", NULL));
  g_assert_cmpuint (n_rows (window), ==, 9);

  ui_window_close (window);
}

/* The lock's name gets the room, and its state comes right after it: however many columns
 * the list grows (Host and Lease for etcd), the State column is never pushed out of sight. */
static void
test_layout (void)
{
  InspectorWindow *window = inspector_window_new (NULL);
  GListModel *columns = gtk_column_view_get_columns (window->column_view);

  gtk_window_present (GTK_WINDOW (window));
  for (guint i = 0; i < g_list_model_get_n_items (columns); i++)
    {
      GtkColumnViewColumn *column = g_list_model_get_item (columns, i);

      if (i == 0)
        g_assert_cmpstr (gtk_column_view_column_get_title (column), ==, "Lock");
      if (i == 1)
        g_assert_true (column == window->state_column);
      g_assert_true (gtk_column_view_column_get_expand (column) == (i == 0));
      g_object_unref (column);
    }
  ui_window_close (window);
}

/* Sorting by a column reorders the rows. */
static void
test_sort (void)
{
  InspectorWindow *window = ui_window_with_demo ();
  GListModel *columns = gtk_column_view_get_columns (window->column_view);
  GListModel *rows = _inspector_window_get_rows (window);
  g_autoptr(FlEntry) first = NULL;

  gtk_column_view_sort_by_column (window->column_view, window->state_column,
                                  GTK_SORT_DESCENDING);
  first = g_list_model_get_item (rows, 0);
  g_assert_cmpint (fl_snapshot_get_state (fl_entry_get_snapshot (first)), ==, FL_ENTRY_STATE_STALE);
  g_clear_object (&first);

  gtk_column_view_sort_by_column (window->column_view,
                                  g_list_model_get_item (columns, 0) /* Lock */,
                                  GTK_SORT_ASCENDING);
  g_object_unref (g_list_model_get_item (columns, 0));
  first = g_list_model_get_item (rows, 0);
  g_assert_cmpstr (fl_snapshot_get_name (fl_entry_get_snapshot (first)), ==, "backup.tar.lock");

  ui_window_close (window);
}

typedef struct
{
  const char *trigger;
  const char *action;
} Binding;

static gboolean
has_shortcut (GtkWidget  *widget,
              const char *trigger,
              const char *action)
{
  g_autoptr(GListModel) controllers = gtk_widget_observe_controllers (widget);

  for (guint i = 0; i < g_list_model_get_n_items (controllers); i++)
    {
      g_autoptr(GObject) controller = g_list_model_get_item (controllers, i);

      if (!GTK_IS_SHORTCUT_CONTROLLER (controller))
        continue;
      for (guint k = 0; k < g_list_model_get_n_items (G_LIST_MODEL (controller)); k++)
        {
          g_autoptr(GtkShortcut) shortcut = g_list_model_get_item (G_LIST_MODEL (controller), k);
          GtkShortcutTrigger *shortcut_trigger = gtk_shortcut_get_trigger (shortcut);
          g_autofree char *text = gtk_shortcut_trigger_to_string (shortcut_trigger);
          GtkShortcutAction *named = gtk_shortcut_get_action (shortcut);

          if (GTK_IS_NAMED_ACTION (named) && g_str_equal (text, trigger)
              && g_str_equal (gtk_named_action_get_action_name (GTK_NAMED_ACTION (named)), action))
            return TRUE;
        }
    }
  return FALSE;
}

/* The whole workflow has keys: open a folder, find, filter, reclaim; the confirmation's
 * buttons have mnemonics. */
static void
test_keyboard (void)
{
  InspectorWindow *window = inspector_window_new (NULL);
  static const Binding window_keys[] = {
    { "<Control>o", "win.open" },
    { "<Control>f", "win.focus-search" },
    { "<Control>p", "win.problems-only" },
    { "F5", "win.refresh" },
    { "<Shift><Control>c", "win.copy-path" },
    { "<Shift><Control>Delete", "win.clean-orphans" },
  };
  static const Binding list_keys[] = {
    { "Delete", "win.reclaim" },
    { "<Shift>Delete", "win.remove-orphan" },
  };

  for (gsize i = 0; i < G_N_ELEMENTS (window_keys); i++)
    g_assert_true (has_shortcut (GTK_WIDGET (window), window_keys[i].trigger,
                                 window_keys[i].action));
  for (gsize i = 0; i < G_N_ELEMENTS (list_keys); i++)
    g_assert_true (has_shortcut (GTK_WIDGET (window->column_view), list_keys[i].trigger,
                                 list_keys[i].action));

  /* Ctrl+F's action puts the focus in the search entry. */
  gtk_window_present (GTK_WINDOW (window));
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (window), "win.focus-search", NULL));
  {
    GtkWidget *focus = gtk_window_get_focus (GTK_WINDOW (window));

    g_assert_nonnull (focus);
    g_assert_true (focus == GTK_WIDGET (window->search_entry)
                   || gtk_widget_is_ancestor (focus, GTK_WIDGET (window->search_entry)));
  }

  ui_window_close (window);
}

static gboolean
has_label (GtkWidget *widget)
{
  if (gtk_test_accessible_has_property (GTK_ACCESSIBLE (widget), GTK_ACCESSIBLE_PROPERTY_LABEL))
    return TRUE;
  if (GTK_IS_BUTTON (widget) && gtk_button_get_label (GTK_BUTTON (widget)) != NULL
      && gtk_button_get_icon_name (GTK_BUTTON (widget)) == NULL)
    return TRUE;
  if (GTK_IS_MENU_BUTTON (widget) && gtk_menu_button_get_label (GTK_MENU_BUTTON (widget)) != NULL)
    return TRUE;
  return FALSE;
}

/* Every control can be named by a screen reader. */
static void
test_accessible_labels (void)
{
  InspectorWindow *window = ui_window_with_demo ();
  g_autoptr(GPtrArray) controls = g_ptr_array_new ();
  GtkWidget *titlebar = gtk_window_get_titlebar (GTK_WINDOW (window));
  FlEntry *stale = ui_lookup (window, "report.csv.lock");

  g_assert_true (_inspector_window_select_path (window, fl_entry_get_path (stale)));
  ui_collect_widgets (GTK_WIDGET (window), GTK_TYPE_BUTTON, controls);
  ui_collect_widgets (titlebar, GTK_TYPE_MENU_BUTTON, controls);
  ui_collect_widgets (GTK_WIDGET (window), GTK_TYPE_SEARCH_ENTRY, controls);
  ui_collect_widgets (GTK_WIDGET (window), GTK_TYPE_COLUMN_VIEW, controls);
  g_assert_cmpuint (controls->len, >=, 10);

  for (guint i = 0; i < controls->len; i++)
    {
      GtkWidget *control = controls->pdata[i];

      /* The buttons inside GtkMenuButton and the column headers are labelled by their owner. */
      if (GTK_IS_MENU_BUTTON (gtk_widget_get_parent (control)))
        continue;
      if (!has_label (control))
        g_error ("%s (%s) has no accessible label", G_OBJECT_TYPE_NAME (control),
                 gtk_widget_get_name (control));
    }

  ui_window_close (window);
}

typedef struct
{
  InspectorWindow *window;
  guint            n;
} RowCount;

static gboolean
model_has_n (gpointer data)
{
  RowCount *rc = data;
  gboolean loading;

  g_object_get (rc->window->model, "loading", &loading, NULL);
  return !loading && g_list_model_get_n_items (G_LIST_MODEL (rc->window->model)) == rc->n;
}

static char *
make_dir_with_lock (const char *name,
                    int         pid)
{
  g_autoptr(GError) error = NULL;
  char *dir = g_dir_make_tmp ("fl-ui-XXXXXX", &error);
  g_autofree char *path = g_build_filename (dir, name, NULL);
  g_autofree char *content = g_strdup_printf ("%d", pid);

  g_assert_no_error (error);
  g_assert_true (g_file_set_contents (path, content, -1, NULL));
  return dir;
}

static void
remove_dir (const char *dir)
{
  g_autoptr(GDir) d = g_dir_open (dir, 0, NULL);
  const char *name;

  while (d != NULL && (name = g_dir_read_name (d)) != NULL)
    {
      g_autofree char *path = g_build_filename (dir, name, NULL);

      g_unlink (path);
    }
  g_rmdir (dir);
}

static gboolean
settings_has (GSettings  *settings,
              const char *dir)
{
  g_autoptr(GVariant) dirs = g_settings_get_value (settings, "directories");
  GVariantIter iter;
  const char *path;
  gboolean recursive;

  g_variant_iter_init (&iter, dirs);
  while (g_variant_iter_next (&iter, "(&sb)", &path, &recursive))
    if (g_str_equal (path, dir))
      return TRUE;
  return FALSE;
}

static gboolean
banner_shown (gpointer data)
{
  return _inspector_window_get_banner_text (data) != NULL;
}

/* Several folders at once, remembered in GSettings, one removed again. */
static gboolean
has_label_text (GtkWidget  *root,
           const char *text)
{
  g_autoptr(GPtrArray) labels = g_ptr_array_new ();

  ui_collect_widgets (root, GTK_TYPE_LABEL, labels);
  for (guint i = 0; i < labels->len; i++)
    if (g_strcmp0 (gtk_label_get_text (labels->pdata[i]), text) == 0)
      return TRUE;
  return FALSE;
}

/* The details pane's values can be selected with the mouse but are not Tab stops. */
static void
test_details_not_tab_stops (void)
{
  g_autofree char *dir = make_dir_with_lock ("tab.lock", getpid ());
  g_autofree char *lock = g_build_filename (dir, "tab.lock", NULL);
  g_autoptr(GPtrArray) labels = g_ptr_array_new ();
  InspectorWindow *window = inspector_window_new (NULL);
  RowCount rc = { window, 1 };
  guint selectable = 0;

  gtk_window_present (GTK_WINDOW (window));
  inspector_window_add_directory (window, dir, FALSE, FALSE);
  g_assert_true (fl_test_wait_until (model_has_n, &rc, 10000));
  g_assert_true (_inspector_window_select_path (window, lock));
  ui_collect_widgets (GTK_WIDGET (window->details), GTK_TYPE_LABEL, labels);
  for (guint i = 0; i < labels->len; i++)
    {
      selectable += gtk_label_get_selectable (labels->pdata[i]);
      g_assert_false (gtk_widget_get_focusable (labels->pdata[i]));
    }
  g_assert_cmpuint (selectable, >=, 5);

  ui_window_close (window);
  remove_dir (dir);
}

typedef struct
{
  InspectorWindow *window;
  const char      *page;
} PageIs;

static gboolean
page_is (gpointer data)
{
  PageIs *p = data;

  return g_strcmp0 (gtk_stack_get_visible_child_name (p->window->stack), p->page) == 0;
}

/* A watched folder without lock files says so, and the list comes back with the first lock. */
static void
test_empty_folder_page (void)
{
  g_autofree char *dir = g_dir_make_tmp ("fl-ui-empty-XXXXXX", NULL);
  g_autofree char *target = g_build_filename (dir, "t", NULL);
  g_autoptr(GError) error = NULL;
  g_autoptr(FlLock) lock = NULL;
  InspectorWindow *window = inspector_window_new (NULL);
  PageIs p = { window, "no-locks" };

  gtk_window_present (GTK_WINDOW (window));
  inspector_window_add_directory (window, dir, FALSE, FALSE);
  g_assert_true (fl_test_wait_until (page_is, &p, 10000));

  lock = fl_lock_acquire (target, NULL, NULL, &error);
  g_assert_no_error (error);
  p.page = "list";
  g_assert_true (fl_test_wait_until (page_is, &p, 10000));
  g_assert_true (fl_lock_release (lock, &error));
  g_assert_no_error (error);
  p.page = "no-locks";
  g_assert_true (fl_test_wait_until (page_is, &p, 10000));

  /* A success banner goes away by itself; a failure stays, since it says what to do. */
  _inspector_window_show_banner (window, TRUE, "done");
  g_assert_cmpuint (window->banner_id, !=, 0);
  _inspector_window_show_banner (window, FALSE, "refused");
  g_assert_cmpuint (window->banner_id, ==, 0);
  g_assert_true (gtk_revealer_get_reveal_child (window->banner));

  ui_window_close (window);
  remove_dir (dir);
}

static void
test_directories_remembered (void)
{
  g_autoptr(GSettings) settings = g_settings_new ("org.libfl.Inspector");
  g_autofree char *a = make_dir_with_lock ("a.lock", getpid ());
  g_autofree char *b = make_dir_with_lock ("b.lock", getpid ());
  InspectorWindow *window = inspector_window_new (NULL);
  RowCount rc = { window, 2 };

  g_settings_reset (settings, "directories");
  gtk_window_present (GTK_WINDOW (window));
  inspector_window_add_directory (window, a, FALSE, TRUE);
  inspector_window_add_directory (window, b, TRUE, TRUE);
  g_assert_true (fl_test_wait_until (model_has_n, &rc, 10000));
  g_assert_true (settings_has (settings, a));
  g_assert_true (settings_has (settings, b));
  g_assert_cmpstr (gtk_stack_get_visible_child_name (window->stack), ==, "list");

  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (window), "win.remove-directory", "s", a));
  g_assert_false (settings_has (settings, a));
  g_assert_true (settings_has (settings, b));
  g_assert_cmpuint (g_list_model_get_n_items (_inspector_window_get_rows (window)), ==, 1);

  /* The list says which folders include their subfolders. */
  {
    g_autofree char *recursive = g_strdup_printf ("%s (with subfolders)", b);

    g_assert_true (has_label_text (GTK_WIDGET (window->directories_list), recursive));
    g_assert_false (has_label_text (GTK_WIDGET (window->directories_list), b));
  }

  /* A folder that cannot be read: said in the window, naming it; nothing remembered. */
  inspector_window_add_directory (window, "/nonexistent/fl-ui", FALSE, TRUE);
  g_assert_true (fl_test_wait_until (banner_shown, window, 10000));
  g_assert_nonnull (strstr (_inspector_window_get_banner_text (window), "/nonexistent/fl-ui"));
  g_assert_false (settings_has (settings, "/nonexistent/fl-ui"));

  ui_window_close (window);
  g_settings_reset (settings, "directories");
  remove_dir (a);
  remove_dir (b);
}

/* `fl-inspector DIR` and --demo are one-off: the folders remembered before stay remembered,
 * also when the person adds and removes folders in that window. */
static void
test_one_off_keeps_remembered (void)
{
  g_autoptr(GSettings) settings = g_settings_new ("org.libfl.Inspector");
  g_autofree char *kept = make_dir_with_lock ("kept.lock", getpid ());
  g_autofree char *once = make_dir_with_lock ("once.lock", getpid ());
  g_autofree char *added = make_dir_with_lock ("added.lock", getpid ());
  InspectorWindow *window = NULL;
  RowCount rc;

  g_settings_set_value (settings, "directories",
                        g_variant_new_parsed ("[(%s, true)]", kept));
  window = inspector_window_new (NULL);
  gtk_window_present (GTK_WINDOW (window));
  inspector_window_add_directory (window, once, FALSE, FALSE);
  inspector_window_add_directory (window, added, FALSE, TRUE);
  rc = (RowCount) { window, 2 };
  g_assert_true (fl_test_wait_until (model_has_n, &rc, 10000));
  g_assert_true (settings_has (settings, kept));
  g_assert_false (settings_has (settings, once));
  g_assert_true (settings_has (settings, added));

  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (window), "win.remove-directory", "s",
                                             added));
  g_assert_true (settings_has (settings, kept));
  g_assert_false (settings_has (settings, added));
  /* Its recursion as it was remembered. */
  {
    g_autoptr(GVariant) dirs = g_settings_get_value (settings, "directories");
    g_autofree char *printed = g_variant_print (dirs, FALSE);
    g_autoptr(GVariant) only_kept = g_variant_ref_sink (g_variant_new_parsed ("[(%s, true)]",
                                                                              kept));
    g_autofree char *expected = g_variant_print (only_kept, FALSE);

    g_assert_cmpstr (printed, ==, expected);
  }

  ui_window_close (window);
  g_settings_reset (settings, "directories");
  remove_dir (kept);
  remove_dir (once);
  remove_dir (added);
}

static gboolean
row_is_stale (gpointer data)
{
  InspectorWindow *window = data;
  GListModel *rows = _inspector_window_get_rows (window);
  g_autoptr(FlEntry) entry = NULL;

  if (g_list_model_get_n_items (rows) != 1)
    return FALSE;
  entry = g_list_model_get_item (rows, 0);
  return fl_snapshot_get_stale (fl_entry_get_snapshot (entry));
}

static gboolean
rendered_stale (gpointer data)
{
  InspectorWindow *window = data;
  g_autoptr(GHashTable) states = ui_rendered_states (GTK_WIDGET (window->column_view));
  GHashTableIter iter;
  gpointer value;

  g_hash_table_iter_init (&iter, states);
  while (g_hash_table_iter_next (&iter, NULL, &value))
    if (g_str_has_prefix (value, "Stale"))
      return TRUE;
  return FALSE;
}

/* A holder dies while "problems only" hides its lock: the row appears, showing why. */
static void
test_live_update (void)
{
  int fds[2];
  pid_t holder;
  g_autofree char *dir = NULL;
  InspectorWindow *window;
  RowCount rc;
  int status;
  char c;

  g_assert_cmpint (pipe (fds), ==, 0);
  holder = fork ();
  if (holder == 0)
    {
      close (fds[1]);
      while (read (fds[0], &c, 1) < 0)
        ;
      _exit (0);
    }
  close (fds[0]);
  dir = make_dir_with_lock ("job.lock", holder);

  window = inspector_window_new (NULL);
  rc = (RowCount) { window, 1 };
  gtk_window_present (GTK_WINDOW (window));
  inspector_window_add_directory (window, dir, FALSE, FALSE);
  g_assert_true (fl_test_wait_until (model_has_n, &rc, 10000));
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (window), "win.problems-only", NULL));
  g_assert_cmpuint (g_list_model_get_n_items (_inspector_window_get_rows (window)), ==, 0);

  close (fds[1]);
  g_assert_cmpint (waitpid (holder, &status, 0), ==, holder);
  g_assert_true (fl_test_wait_until (row_is_stale, window, 10000));
  g_assert_true (fl_test_wait_until (rendered_stale, window, 10000));
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (window), "win.problems-only", NULL));

  ui_window_close (window);
  remove_dir (dir);
}

/* Size, maximized state and the details pane's width outlive the window (g_settings_bind). */
static void
test_state_remembered (void)
{
  g_autoptr(GSettings) settings = g_settings_new ("org.libfl.Inspector");
  InspectorWindow *window;
  int width, height;

  g_settings_reset (settings, "window-width");
  g_settings_reset (settings, "window-height");
  g_settings_reset (settings, "window-maximized");
  g_settings_reset (settings, "details-position");

  window = inspector_window_new (NULL);
  gtk_window_present (GTK_WINDOW (window));
  gtk_window_set_default_size (GTK_WINDOW (window), 900, 600);
  gtk_paned_set_position (window->paned, 500);
  g_assert_cmpint (g_settings_get_int (settings, "window-width"), ==, 900);
  g_assert_cmpint (g_settings_get_int (settings, "window-height"), ==, 600);
  g_assert_cmpint (g_settings_get_int (settings, "details-position"), ==, 500);
  ui_window_close (window);

  window = inspector_window_new (NULL);
  gtk_window_get_default_size (GTK_WINDOW (window), &width, &height);
  g_assert_cmpint (width, ==, 900);
  g_assert_cmpint (height, ==, 600);
  g_assert_cmpint (gtk_paned_get_position (window->paned), ==, 500);
  g_assert_false (gtk_window_is_maximized (GTK_WINDOW (window)));
  /* Xvfb has no window manager to maximize a shown window: asked before it is shown. */
  gtk_window_maximize (GTK_WINDOW (window));
  g_assert_true (g_settings_get_boolean (settings, "window-maximized"));
  ui_window_close (window);

  window = inspector_window_new (NULL);
  g_assert_true (gtk_window_is_maximized (GTK_WINDOW (window)));
  ui_window_close (window);

  g_settings_reset (settings, "window-width");
  g_settings_reset (settings, "window-height");
  g_settings_reset (settings, "window-maximized");
  g_settings_reset (settings, "details-position");
}

static GtkWidget *
find_age_cell (GtkWidget *root)
{
  for (GtkWidget *child = gtk_widget_get_first_child (root); child != NULL;
       child = gtk_widget_get_next_sibling (child))
    {
      GtkWidget *found;

      if (g_str_equal (gtk_widget_get_name (child), "age-cell")
          && gtk_widget_get_visible (gtk_widget_get_parent (gtk_widget_get_parent (child))))
        return child;
      found = find_age_cell (child);
      if (found != NULL)
        return found;
    }
  return NULL;
}

typedef struct
{
  InspectorWindow *window;
  char            *first;   /* the age shown first */
} AgeWatch;

/* The age cell shows the entry's age at the window's clock, and has moved on since @first. */
static gboolean
age_ticked (gpointer data)
{
  AgeWatch *watch = data;
  GtkWidget *cell = find_age_cell (GTK_WIDGET (watch->window->column_view));
  g_autoptr(FlEntry) entry = g_list_model_get_item (_inspector_window_get_rows (watch->window), 0);
  g_autofree char *expected = NULL;
  const char *shown;

  if (cell == NULL || entry == NULL)
    return FALSE;
  shown = ui_text_of (cell);
  expected = fl_format_age (fl_snapshot_get_age_at (fl_entry_get_snapshot (entry),
                                                    watch->window->now));
  if (watch->first == NULL)
    watch->first = g_strdup (shown);
  return g_str_equal (shown, expected) && !g_str_equal (shown, watch->first);
}

/* Ages move on by themselves, once a second, while the window is shown. */
static void
test_ages_tick (void)
{
  g_autofree char *dir = make_dir_with_lock ("tick.lock", getpid ());
  InspectorWindow *window = inspector_window_new (NULL);
  RowCount rc = { window, 1 };
  AgeWatch watch = { window, NULL };

  gtk_window_present (GTK_WINDOW (window));
  inspector_window_add_directory (window, dir, FALSE, FALSE);
  g_assert_true (fl_test_wait_until (model_has_n, &rc, 10000));
  /* "0 s" at the latest after a few ticks becomes "1 s", "2 s"... */
  g_assert_true (fl_test_wait_until (age_ticked, &watch, 10000));
  g_assert_nonnull (strstr (watch.first, "s"));

  g_free (watch.first);
  ui_window_close (window);
  remove_dir (dir);
}

/* A reused PID: the Holder column and the details name the PID as another process's now,
 * never that process as the holder. */
static void
test_reused_pid_holder (void)
{
  InspectorWindow *window = ui_window_with_demo ();
  FlEntry *reused = ui_lookup (window, "session.db.lock");
  FlSnapshot *snap = fl_entry_get_snapshot (reused);
  g_autofree char *holder = inspector_format_holder (snap);
  g_autofree char *expected = g_strdup_printf ("%d, now another process: %s",
                                               fl_snapshot_get_pid (snap),
                                               fl_snapshot_get_process_name (snap));

  g_assert_cmpint (fl_snapshot_get_liveness (snap), ==, FL_LIVENESS_REUSED);
  g_assert_cmpstr (holder, ==, expected);
  g_assert_true (_inspector_window_select_path (window, fl_entry_get_path (reused)));
  g_assert_true (has_label_text (GTK_WIDGET (window->details), "Now used by"));
  g_assert_false (has_label_text (GTK_WIDGET (window->details), "Process"));

  ui_window_close (window);
}

int
main (int   argc,
      char *argv[])
{
  if (!ui_test_init (&argc, &argv))
    return 0;

  g_test_add_func ("/ui/window/demo-states", test_demo_states);
  g_test_add_func ("/ui/window/reused-pid-holder", test_reused_pid_holder);
  g_test_add_func ("/ui/window/search-and-problems", test_search_and_problems);
  g_test_add_func ("/ui/window/sort", test_sort);
  g_test_add_func ("/ui/window/keyboard", test_keyboard);
  g_test_add_func ("/ui/window/layout", test_layout);
  g_test_add_func ("/ui/window/details-not-tab-stops", test_details_not_tab_stops);
  g_test_add_func ("/ui/window/accessible-labels", test_accessible_labels);
  g_test_add_func ("/ui/window/directories-remembered", test_directories_remembered);
  g_test_add_func ("/ui/window/one-off-keeps-remembered", test_one_off_keeps_remembered);
  g_test_add_func ("/ui/window/empty-folder-page", test_empty_folder_page);
  g_test_add_func ("/ui/window/live-update", test_live_update);
  g_test_add_func ("/ui/window/state-remembered", test_state_remembered);
  g_test_add_func ("/ui/window/ages-tick", test_ages_tick);

  return g_test_run ();
}
