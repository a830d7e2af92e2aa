/* test-rows.c: reaching the list's rows: the keyboard cursor on the selected row, the context
 * menu, row activation, the details pane below the list on a narrow window; the user guide
 * (under Xvfb)
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <string.h>
#include <unistd.h>

#include <glib/gstdio.h>

#include "ui-test-util.h"

typedef struct
{
  InspectorWindow *window;
  guint            position;
} Want;

static gboolean
cursor_on_selection (gpointer data)
{
  InspectorWindow *window = data;
  guint selected = gtk_single_selection_get_selected (window->selection);

  return selected != GTK_INVALID_LIST_POSITION
         && _inspector_window_get_focused_position (window) == selected;
}

static void
assert_cursor_on_selection (InspectorWindow *window)
{
  g_assert_true (fl_test_wait_until (cursor_on_selection, window, 5000));
}

/* At start, after selecting another row, after a search and after a refresh, the row the arrow
 * keys start from is the selected one. */
static void
test_cursor_follows_selection (void)
{
  InspectorWindow *window = ui_window_with_demo ();
  g_autofree char *stale = ui_demo_path (window, "report.csv.lock");
  guint n = g_list_model_get_n_items (_inspector_window_get_rows (window));

  /* At start: the focus goes into the list, onto the selected row. */
  g_assert_true (gtk_widget_grab_focus (GTK_WIDGET (window->column_view)));
  assert_cursor_on_selection (window);

  /* Selected by the program, far from the cursor. */
  gtk_single_selection_set_selected (window->selection, n - 1);
  assert_cursor_on_selection (window);
  g_assert_true (_inspector_window_select_path (window, stale));
  assert_cursor_on_selection (window);

  /* A search leaves other rows; the cursor is where the selection is when the list is
   * reached again. */
  gtk_search_entry_set_search_delay (window->search_entry, 0);
  gtk_widget_grab_focus (GTK_WIDGET (window->search_entry));
  gtk_editable_set_text (GTK_EDITABLE (window->search_entry), "csv");
  g_assert_true (gtk_widget_grab_focus (GTK_WIDGET (window->column_view)));
  assert_cursor_on_selection (window);
  gtk_editable_set_text (GTK_EDITABLE (window->search_entry), "");
  g_assert_true (gtk_widget_grab_focus (GTK_WIDGET (window->column_view)));
  assert_cursor_on_selection (window);

  /* A refresh. */
  gtk_widget_activate_action (GTK_WIDGET (window), "win.refresh", NULL);
  assert_cursor_on_selection (window);

  ui_window_close (window);
}

static gboolean
popover_shown (gpointer data)
{
  return gtk_widget_get_visible (INSPECTOR_WINDOW (data)->row_menu);
}

static gboolean
row_laid_out (gpointer data)
{
  Want *want = data;
  graphene_rect_t bounds;

  return _inspector_window_get_row_bounds (want->window, want->position, &bounds)
         && bounds.size.height > 1;
}

/* The label of the menu's item for @action. */
static char *
item_label (GMenuModel *model,
            const char *action)
{
  for (int i = 0; i < g_menu_model_get_n_items (model); i++)
    {
      g_autoptr(GMenuModel) section = g_menu_model_get_item_link (model, i, G_MENU_LINK_SECTION);
      g_autofree char *item_action = NULL;
      char *label = NULL;

      if (section != NULL && (label = item_label (section, action)) != NULL)
        return label;
      if (g_menu_model_get_item_attribute (model, i, G_MENU_ATTRIBUTE_ACTION, "s", &item_action)
          && g_strcmp0 (item_action, action) == 0
          && g_menu_model_get_item_attribute (model, i, G_MENU_ATTRIBUTE_LABEL, "s", &label))
        return label;
    }
  return NULL;
}

/* The menu's button showing @label: a GtkModelButton, private, with no readable action. */
static GtkWidget *
find_item (GtkWidget  *root,
           const char *label)
{
  for (GtkWidget *child = gtk_widget_get_first_child (root); child != NULL;
       child = gtk_widget_get_next_sibling (child))
    {
      g_autofree char *text = NULL;
      GtkWidget *found;

      if (g_strcmp0 (G_OBJECT_TYPE_NAME (child), "GtkModelButton") == 0)
        {
          g_object_get (child, "text", &text, NULL);
          if (g_strcmp0 (text, label) == 0)
            return child;
        }
      if ((found = find_item (child, label)) != NULL)
        return found;
    }
  return NULL;
}

static gboolean
action_enabled (InspectorWindow *window,
                const char      *name)
{
  g_autofree char *action = g_strconcat ("win.", name, NULL);
  g_autofree char *label = item_label (window->row_menu_model, action);
  g_auto(GStrv) parts = NULL;
  g_autofree char *shown = NULL;
  GtkWidget *item;

  g_assert_nonnull (label);
  /* The button shows the label without its mnemonic's underscore. */
  parts = g_strsplit (label, "_", -1);
  shown = g_strjoinv ("", parts);
  item = find_item (window->row_menu, shown);
  g_assert_nonnull (item);
  return gtk_widget_is_sensitive (item);
}

/* A right click picks the row under the pointer; the menu (also from the keyboard) offers
 * what fits that row. */
static void
test_context_menu (void)
{
  InspectorWindow *window = ui_window_with_demo ();
  g_autofree char *held = ui_demo_path (window, "database.sqlite.lock");
  g_autofree char *stale = ui_demo_path (window, "report.csv.lock");
  graphene_rect_t bounds;
  guint position;
  Want want;

  g_assert_true (_inspector_window_select_path (window, stale));
  position = gtk_single_selection_get_selected (window->selection);
  want = (Want) { window, position };
  g_assert_true (fl_test_wait_until (row_laid_out, &want, 5000));
  g_assert_true (_inspector_window_get_row_bounds (window, position, &bounds));
  g_assert_cmpuint (_inspector_window_get_position_at (window, bounds.origin.x + 40,
                                                       bounds.origin.y + bounds.size.height / 2),
                    ==, position);
  /* Below the last row: no row, no menu. */
  g_assert_cmpuint (_inspector_window_get_position_at (window, 5, 5), ==,
                    GTK_INVALID_LIST_POSITION);

  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (window), "win.row-menu", NULL));
  g_assert_true (fl_test_wait_until (popover_shown, window, 5000));
  g_assert_true (action_enabled (window, "reclaim"));
  g_assert_false (action_enabled (window, "remove-orphan"));
  g_assert_true (action_enabled (window, "copy-path"));
  g_assert_true (action_enabled (window, "open-folder"));
  g_assert_true (action_enabled (window, "show-details"));
  gtk_popover_popdown (GTK_POPOVER (window->row_menu));

  g_assert_true (_inspector_window_select_path (window, held));
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (window), "win.row-menu", NULL));
  g_assert_true (fl_test_wait_until (popover_shown, window, 5000));
  g_assert_false (action_enabled (window, "reclaim"));
  g_assert_true (action_enabled (window, "copy-path"));
  gtk_popover_popdown (GTK_POPOVER (window->row_menu));

  ui_window_close (window);
}

static gboolean
focus_in_details (gpointer data)
{
  InspectorWindow *window = data;
  GtkWidget *focus = gtk_root_get_focus (GTK_ROOT (window));

  return focus != NULL && gtk_widget_is_ancestor (focus, GTK_WIDGET (window->details));
}

/* Enter or a double click on a stale lock: its details, with the Reclaim button in reach. */
static void
test_row_activation (void)
{
  InspectorWindow *window = ui_window_with_demo ();
  g_autofree char *stale = ui_demo_path (window, "report.csv.lock");
  guint position;

  g_assert_true (_inspector_window_select_path (window, stale));
  position = gtk_single_selection_get_selected (window->selection);
  gtk_single_selection_set_selected (window->selection, 0);
  g_signal_emit_by_name (window->column_view, "activate", position);
  g_assert_cmpuint (gtk_single_selection_get_selected (window->selection), ==, position);
  g_assert_true (fl_test_wait_until (focus_in_details, window, 5000));
  g_assert_cmpstr (gtk_actionable_get_action_name (
                     GTK_ACTIONABLE (gtk_root_get_focus (GTK_ROOT (window)))), ==, "win.reclaim");

  ui_window_close (window);
}

static gboolean
layout_is (gpointer data)
{
  Want *want = data;

  return _inspector_window_is_narrow (want->window) == (gboolean) want->position;
}

/* Narrow (or HiDPI, whose logical width is half): the details go below the list; wide: beside
 * it, where the remembered position applies. */
static void
test_narrow_layout (void)
{
  g_autoptr(GSettings) settings = g_settings_new ("org.libfl.Inspector");
  InspectorWindow *window;
  Want want;

  g_settings_set_int (settings, "window-width", 620);
  g_settings_set_int (settings, "window-height", 760);
  window = ui_window_with_demo ();
  want = (Want) { window, TRUE };
  g_assert_true (fl_test_wait_until (layout_is, &want, 5000));
  g_assert_cmpint (gtk_orientable_get_orientation (GTK_ORIENTABLE (window->paned)), ==,
                   GTK_ORIENTATION_VERTICAL);
  ui_window_close (window);

  g_settings_set_int (settings, "window-width", 1200);
  window = ui_window_with_demo ();
  want = (Want) { window, FALSE };
  g_assert_true (fl_test_wait_until (layout_is, &want, 5000));
  g_assert_cmpint (gtk_orientable_get_orientation (GTK_ORIENTABLE (window->paned)), ==,
                   GTK_ORIENTATION_HORIZONTAL);
  ui_window_close (window);

  g_settings_reset (settings, "window-width");
  g_settings_reset (settings, "window-height");
}

static gboolean
help_open (gpointer data)
{
  InspectorWindow *window = data;

  return window->help != NULL && gtk_widget_get_mapped (GTK_WIDGET (window->help));
}

static gboolean
has_label_containing (GtkWidget  *root,
                      const char *text)
{
  for (GtkWidget *child = gtk_widget_get_first_child (root); child != NULL;
       child = gtk_widget_get_next_sibling (child))
    if ((GTK_IS_LABEL (child) && strstr (gtk_label_get_text (GTK_LABEL (child)), text) != NULL)
        || has_label_containing (child, text))
      return TRUE;
  return FALSE;
}

/* F1 (or Help in the menu) opens the user guide, once, in front of the window. */
static void
test_help (void)
{
  InspectorWindow *window = ui_window_with_demo ();
  GtkWindow *help;

  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (window), "win.help", NULL));
  g_assert_true (fl_test_wait_until (help_open, window, 5000));
  help = window->help;
  g_assert_true (gtk_window_get_transient_for (help) == GTK_WINDOW (window));
  g_assert_true (has_label_containing (GTK_WIDGET (help), "Reclaiming a stale lock"));
  g_assert_true (has_label_containing (GTK_WIDGET (help), "flctl reclaim"));
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (window), "win.help", NULL));
  g_assert_true (window->help == help);

  ui_window_close (window);
}

static guint
rows_in_state (InspectorWindow *window,
               FlEntryState     state)
{
  GListModel *rows = G_LIST_MODEL (window->model);
  guint n = 0;

  for (guint i = 0; i < g_list_model_get_n_items (rows); i++)
    {
      g_autoptr(FlEntry) entry = g_list_model_get_item (rows, i);

      n += fl_snapshot_get_state (fl_entry_get_snapshot (entry)) == state;
    }
  return n;
}

static gboolean
young_listed (gpointer data)
{
  return ui_lookup (data, "just-made.lock") != NULL;
}

/* Each count is the number of rows that say that word, an entry that cannot be judged (an
 * empty lock file: no PID yet) included. */
static void
test_counts_match_rows (void)
{
  InspectorWindow *window = ui_window_with_demo ();
  g_autofree char *young = ui_demo_path (window, "just-made.lock");
  const char *text;
  guint held, stale, orphans, foreign, unknown, unknown_before;
  g_autofree char *expected = NULL;

  g_object_get (window->model, "n-unknown", &unknown_before, NULL);
  fl_test_write (young, "", 0);
  g_assert_true (fl_test_wait_until (young_listed, window, 10000));
  g_object_get (window->model, "n-held", &held, "n-stale", &stale, "n-orphans", &orphans,
                "n-foreign", &foreign, "n-unknown", &unknown, NULL);
  g_assert_cmpuint (held, ==, rows_in_state (window, FL_ENTRY_STATE_HELD));
  g_assert_cmpuint (stale, ==, rows_in_state (window, FL_ENTRY_STATE_STALE));
  g_assert_cmpuint (orphans, ==, rows_in_state (window, FL_ENTRY_STATE_ORPHAN));
  g_assert_cmpuint (foreign, ==, rows_in_state (window, FL_ENTRY_STATE_FOREIGN));
  g_assert_cmpuint (unknown, ==, rows_in_state (window, FL_ENTRY_STATE_UNKNOWN));
  g_assert_cmpuint (unknown, ==, unknown_before + 1);
  g_assert_cmpint (fl_snapshot_get_state (fl_entry_get_snapshot (ui_lookup (window,
                                                                            "just-made.lock"))),
                   ==, FL_ENTRY_STATE_UNKNOWN);
  text = gtk_label_get_text (window->counts_label);
  expected = g_strdup_printf ("Unknown: %u", unknown);
  g_assert_nonnull (strstr (text, expected));

  ui_window_close (window);
}

static gboolean
rows_at_least (gpointer data)
{
  Want *want = data;

  return g_list_model_get_n_items (G_LIST_MODEL (want->window->model)) >= want->position;
}

static char *
folder_with_lock (const char *name)
{
  g_autoptr(GError) error = NULL;
  char *dir = g_dir_make_tmp ("fl-ui-folder-XXXXXX", &error);
  g_autofree char *path = NULL;
  g_autofree char *pid = g_strdup_printf ("%d", (int) getpid ());

  g_assert_no_error (error);
  path = g_build_filename (dir, name, NULL);
  fl_test_write (path, pid, -1);
  return dir;
}

/* With one folder the Folder column is hidden; with two (or one with its subfolders, as the
 * demo's) it tells equal names apart. */
static void
test_folder_column (void)
{
  g_autoptr(GSettings) settings = g_settings_new ("org.libfl.Inspector");
  g_autofree char *a = folder_with_lock ("report.csv.lock");
  g_autofree char *b = folder_with_lock ("report.csv.lock");
  InspectorWindow *window;
  Want want;

  g_settings_reset (settings, "directories");
  window = inspector_window_new (NULL);
  want = (Want) { window, 1 };
  gtk_window_present (GTK_WINDOW (window));
  inspector_window_add_directory (window, a, FALSE, FALSE);
  g_assert_true (fl_test_wait_until (rows_at_least, &want, 10000));
  g_assert_false (gtk_column_view_column_get_visible (window->folder_column));

  inspector_window_add_directory (window, b, FALSE, FALSE);
  want.position = 2;
  g_assert_true (fl_test_wait_until (rows_at_least, &want, 10000));
  g_assert_true (gtk_column_view_column_get_visible (window->folder_column));

  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (window), "win.remove-directory", "s",
                                             b));
  g_assert_false (gtk_column_view_column_get_visible (window->folder_column));

  ui_window_close (window);
  fl_test_rm_rf (a);
  fl_test_rm_rf (b);
  g_settings_reset (settings, "directories");
}

/* The view shown when the window closed is the one it opens with. */
static void
test_view_remembered (void)
{
  g_autoptr(GSettings) settings = g_settings_new ("org.libfl.Inspector");
  InspectorWindow *window = inspector_window_new (NULL);

  g_assert_cmpstr (gtk_stack_get_visible_child_name (window->views), ==, "files");
  _inspector_window_show_view (window, "kernel");
  gtk_window_destroy (GTK_WINDOW (window));

  window = inspector_window_new (NULL);
  g_assert_cmpstr (gtk_stack_get_visible_child_name (window->views), ==, "kernel");
  gtk_window_destroy (GTK_WINDOW (window));
  g_settings_reset (settings, "view");
}

static gboolean
n_rows_is (gpointer data)
{
  Want *want = data;

  return g_list_model_get_n_items (_inspector_window_get_rows (want->window)) == want->position;
}

/* With a search active, locks that come and go are filtered as they arrive: no pass over every
 * row (which costs a frame and more at 100,000) unless a change turns an entry's verdict. */
static void
test_filter_without_passes (void)
{
  InspectorWindow *window = ui_window_with_demo ();
  Want want = { window, 0 };
  guint passes;

  gtk_search_entry_set_search_delay (window->search_entry, 0);
  gtk_editable_set_text (GTK_EDITABLE (window->search_entry), "burst");
  want.position = 0;
  g_assert_true (fl_test_wait_until (n_rows_is, &want, 5000));
  passes = inspector_filter_model_get_n_passes (window->filter_model);

  for (guint i = 0; i < 20; i++)
    {
      g_autofree char *name = g_strdup_printf ("burst-%02u.lock", i);
      g_autofree char *path = ui_demo_path (window, name);
      g_autofree char *pid = g_strdup_printf ("%d", (int) getpid ());

      fl_test_write (path, pid, -1);
    }
  want.position = 20;
  g_assert_true (fl_test_wait_until (n_rows_is, &want, 10000));
  for (guint i = 0; i < 20; i++)
    {
      g_autofree char *name = g_strdup_printf ("burst-%02u.lock", i);
      g_autofree char *path = ui_demo_path (window, name);

      g_assert_cmpint (g_unlink (path), ==, 0);
    }
  want.position = 0;
  g_assert_true (fl_test_wait_until (n_rows_is, &want, 10000));
  g_assert_cmpuint (inspector_filter_model_get_n_passes (window->filter_model), ==, passes);

  ui_window_close (window);
}

static gboolean
has_entry (gpointer data)
{
  Want *want = data;
  g_autofree char *path = ui_demo_path (want->window, "flip.lock");

  return fl_directory_model_lookup (want->window->model, path) != NULL;
}

/* A lock changed in place so that it now matches the search (its file now names this PID)
 * comes into the rows alone: the filter judges that one entry again, with no pass over every
 * row (with GtkFilterListModel it took one: 100,000 rows, a frame and more). */
static void
test_filter_judges_one_entry (void)
{
  InspectorWindow *window = ui_window_with_demo ();
  g_autofree char *pid = g_strdup_printf ("%d", (int) getpid ());
  g_autofree char *path = ui_demo_path (window, "flip.lock");
  Want want = { window, 0 };
  guint passes;
  guint before;

  gtk_search_entry_set_search_delay (window->search_entry, 0);
  gtk_editable_set_text (GTK_EDITABLE (window->search_entry), pid);
  fl_test_write (path, "not a pid", -1);
  g_assert_true (fl_test_wait_until (has_entry, &want, 10000));
  before = g_list_model_get_n_items (_inspector_window_get_rows (window));
  passes = inspector_filter_model_get_n_passes (window->filter_model);

  fl_test_write (path, pid, -1);
  want.position = before + 1;
  g_assert_true (fl_test_wait_until (n_rows_is, &want, 10000));
  g_assert_true (_inspector_window_select_path (window, fl_entry_get_path (ui_lookup (window,
                                                                             "flip.lock"))));
  g_assert_cmpuint (inspector_filter_model_get_n_passes (window->filter_model), ==, passes);

  ui_window_close (window);
}

static GtkWidget *
first_grid_child (GtkWidget *widget)
{
  if (GTK_IS_GRID (widget))
    return gtk_widget_get_first_child (widget);
  for (GtkWidget *child = gtk_widget_get_first_child (widget); child != NULL;
       child = gtk_widget_get_next_sibling (child))
    {
      GtkWidget *found = first_grid_child (child);

      if (found != NULL)
        return found;
    }
  return NULL;
}

/* Locks that come above the selected row move its position, and GTK 4.8's GtkSingleSelection
 * then notifies "selected-item" although the item is the same: the details pane must not be
 * built again for each (at 100,000 rows that was a relayout of the window per lock). */
static void
test_details_kept_while_rows_move (void)
{
  InspectorWindow *window = ui_window_with_demo ();
  GListModel *rows = _inspector_window_get_rows (window);
  guint n = g_list_model_get_n_items (rows);
  g_autoptr(FlEntry) selected = g_list_model_get_item (rows, n - 1);
  GtkWidget *label;
  Want want = { window, n + 20 };

  gtk_single_selection_set_selected (window->selection, n - 1);
  label = first_grid_child (GTK_WIDGET (window->details));
  g_assert_nonnull (label);
  g_object_add_weak_pointer (G_OBJECT (label), (gpointer *) &label);

  /* Names that sort before every demo file: each lands above the selected row. */
  for (guint i = 0; i < 20; i++)
    {
      g_autofree char *name = g_strdup_printf ("0-above-%02u.lock", i);
      g_autofree char *path = ui_demo_path (window, name);
      g_autofree char *pid = g_strdup_printf ("%d", (int) getpid ());

      fl_test_write (path, pid, -1);
    }
  g_assert_true (fl_test_wait_until (n_rows_is, &want, 10000));
  g_assert_true (gtk_single_selection_get_selected_item (window->selection) == selected);
  g_assert_cmpuint (gtk_single_selection_get_selected (window->selection), ==, n + 19);
  g_assert_nonnull (label);
  g_object_remove_weak_pointer (G_OBJECT (label), (gpointer *) &label);

  ui_window_close (window);
}

int
main (int   argc,
      char *argv[])
{
  if (!ui_test_init (&argc, &argv))
    return 0;

  g_test_add_func ("/ui/rows/cursor-follows-selection", test_cursor_follows_selection);
  g_test_add_func ("/ui/rows/context-menu", test_context_menu);
  g_test_add_func ("/ui/rows/activation", test_row_activation);
  g_test_add_func ("/ui/rows/narrow-layout", test_narrow_layout);
  g_test_add_func ("/ui/help/user-guide", test_help);
  g_test_add_func ("/ui/rows/counts-match-rows", test_counts_match_rows);
  g_test_add_func ("/ui/rows/folder-column", test_folder_column);
  g_test_add_func ("/ui/rows/view-remembered", test_view_remembered);
  g_test_add_func ("/ui/rows/filter-without-passes", test_filter_without_passes);
  g_test_add_func ("/ui/rows/filter-judges-one-entry", test_filter_judges_one_entry);
  g_test_add_func ("/ui/rows/details-kept-while-rows-move", test_details_kept_while_rows_move);

  return g_test_run ();
}
