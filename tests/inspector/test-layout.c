/* test-layout.c: the list's columns, pages and counts as a person sees them (issue 34, items
 * 1-3): Lock, State, Holder and Age inside the window at the default and the narrow size with
 * their headers drawn, the header menu and the sort remembered, Folder relative to the watched
 * folder, "N of M shown" and the No Results page, the list at its top after a load, temp and
 * graveyard names shown whole (under Xvfb)
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
  const char      *text;
} Want;

/* The header's title of @column: the header is the column view's first child, its titles the
 * visible columns in order. */
static GtkWidget *
header_title (InspectorWindow     *window,
              GtkColumnViewColumn *column)
{
  GtkWidget *header = gtk_widget_get_first_child (GTK_WIDGET (window->column_view));
  GtkWidget *title = gtk_widget_get_first_child (header);
  GListModel *columns = gtk_column_view_get_columns (window->column_view);

  for (guint i = 0; i < g_list_model_get_n_items (columns) && title != NULL; i++)
    {
      g_autoptr(GtkColumnViewColumn) c = g_list_model_get_item (columns, i);

      if (!gtk_column_view_column_get_visible (c))
        continue;
      if (c == column)
        return title;
      title = gtk_widget_get_next_sibling (title);
    }
  return NULL;
}

/* Whether @column's header is drawn whole inside the list's visible area (the scrolled
 * window), which is inside the window. */
static gboolean
column_in_view (InspectorWindow     *window,
                GtkColumnViewColumn *column)
{
  GtkWidget *scroller = gtk_widget_get_parent (GTK_WIDGET (window->column_view));
  GtkWidget *title = header_title (window, column);
  graphene_rect_t bounds, area;

  if (title == NULL || !gtk_widget_get_mapped (title)
      || !gtk_widget_compute_bounds (title, scroller, &bounds)
      || !gtk_widget_compute_bounds (scroller, GTK_WIDGET (window), &area))
    return FALSE;
  return bounds.size.height > 0 && bounds.size.width >= 40
         && bounds.origin.x >= 0
         && bounds.origin.x + bounds.size.width <= gtk_widget_get_width (scroller) + 0.5
         && area.origin.x + area.size.width <= gtk_widget_get_width (GTK_WIDGET (window)) + 0.5;
}

static gboolean
essential_columns_in_view (gpointer data)
{
  InspectorWindow *window = data;

  return g_strcmp0 (gtk_stack_get_visible_child_name (window->stack), "list") == 0
         && column_in_view (window, window->name_column)
         && column_in_view (window, window->state_column)
         && column_in_view (window, window->holder_column)
         && column_in_view (window, window->age_column);
}

static gboolean
layout_settled (gpointer data)
{
  Want *want = data;

  return _inspector_window_is_narrow (want->window) == (want->text != NULL)
         && essential_columns_in_view (want->window);
}

/* At the default size (1200x680, 1228x709 with its shadows) and the narrow one (800 px, the
 * details below the list): Lock, State, Holder and Age are in view with their headers
 * drawn; at the default size Kernel Lock too. */
static void
test_essential_columns (void)
{
  g_autoptr(GSettings) settings = g_settings_new ("org.libfl.Inspector");
  InspectorWindow *window;
  Want want;

  g_settings_reset (settings, "window-width");
  g_settings_reset (settings, "window-height");
  window = ui_window_with_demo ();
  want = (Want) { window, NULL };
  g_assert_true (fl_test_wait_until (layout_settled, &want, 10000));
  g_assert_true (column_in_view (window, window->kernel_column));
  ui_window_close (window);

  g_settings_set_int (settings, "window-width", 800);
  g_settings_set_int (settings, "window-height", 600);
  window = ui_window_with_demo ();
  want = (Want) { window, "narrow" };
  g_assert_true (fl_test_wait_until (layout_settled, &want, 10000));
  g_assert_cmpint (gtk_widget_get_width (GTK_WIDGET (window)), <=, 800);
  ui_window_close (window);

  g_settings_reset (settings, "window-width");
  g_settings_reset (settings, "window-height");
}

static gboolean
sort_remembered (gpointer data)
{
  GSettings *settings = data;
  g_autofree char *column = g_settings_get_string (settings, "sort-column");

  return g_str_equal (column, "age") && g_settings_get_boolean (settings, "sort-descending");
}

static gboolean
sort_shown (gpointer data)
{
  gboolean descending = FALSE;
  const char *key = _inspector_window_get_sort (data, &descending);

  return g_strcmp0 (key, "age") == 0 && descending;
}

/* Target is hidden by default (it is empty for every T.lock); the header menu shows it,
 * remembered; the sort is remembered too. */
static void
test_columns_remembered (void)
{
  g_autoptr(GSettings) settings = g_settings_new ("org.libfl.Inspector");
  InspectorWindow *window = ui_window_with_demo ();

  g_assert_nonnull (gtk_column_view_column_get_header_menu (window->state_column));
  g_assert_false (gtk_column_view_column_get_visible (window->target_column));
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (window), "columns.column-target",
                                             NULL));
  g_assert_true (gtk_column_view_column_get_visible (window->target_column));
  g_assert_true (g_settings_get_boolean (settings, "column-target"));

  gtk_column_view_sort_by_column (window->column_view, window->age_column, GTK_SORT_DESCENDING);
  g_assert_true (fl_test_wait_until (sort_remembered, settings, 5000));
  ui_window_close (window);

  window = ui_window_with_demo ();
  g_assert_true (gtk_column_view_column_get_visible (window->target_column));
  g_assert_true (fl_test_wait_until (sort_shown, window, 5000));
  ui_window_close (window);

  g_settings_reset (settings, "column-target");
  g_settings_reset (settings, "sort-column");
  g_settings_reset (settings, "sort-descending");
}

static gboolean
label_shown (gpointer data)
{
  Want *want = data;
  g_autoptr(GPtrArray) labels = g_ptr_array_new ();

  ui_collect_texts (GTK_WIDGET (want->window->column_view), labels);
  for (guint i = 0; i < labels->len; i++)
    if (gtk_widget_get_mapped (labels->pdata[i])
        && g_strcmp0 (ui_text_of (labels->pdata[i]), want->text) == 0)
      return TRUE;
  return FALSE;
}

/* A folder watched with its subfolders: the Folder column names a subfolder's file's folder
 * relative to the watched folder, never the whole path (whose start is the same each time). */
static void
test_folder_relative (void)
{
  g_autoptr(GSettings) settings = g_settings_new ("org.libfl.Inspector");
  g_autofree char *dir = g_dir_make_tmp ("layout-XXXXXX", NULL);
  g_autofree char *sub = g_build_filename (dir, "jobs", "nightly", NULL);
  g_autofree char *lock = g_build_filename (sub, "build.lock", NULL);
  const char *expected = "jobs/nightly";
  InspectorWindow *window;
  Want want;

  g_settings_reset (settings, "directories");
  g_assert_cmpint (g_mkdir_with_parents (sub, 0700), ==, 0);
  g_assert_true (g_file_set_contents (lock, "1\n", -1, NULL));
  window = inspector_window_new (NULL);
  gtk_window_present (GTK_WINDOW (window));
  inspector_window_add_directory (window, dir, TRUE, FALSE);
  want = (Want) { window, expected };
  g_assert_true (gtk_column_view_column_get_visible (window->folder_column));
  g_assert_true (fl_test_wait_until (label_shown, &want, 10000));

  ui_window_close (window);
  fl_test_rm_rf (dir);
  g_settings_reset (settings, "directories");
}

static gboolean
page_is (gpointer data)
{
  Want *want = data;

  return g_strcmp0 (gtk_stack_get_visible_child_name (want->window->stack), want->text) == 0;
}

/* A search says how many rows it shows of how many; one that matches nothing shows a page
 * that says so, not a bare list. */
static void
test_search_count_and_no_results (void)
{
  InspectorWindow *window = ui_window_with_demo ();
  guint total = g_list_model_get_n_items (G_LIST_MODEL (window->model));
  g_autofree char *expected = NULL;
  Want want = { window, "no-results" };

  gtk_search_entry_set_search_delay (window->search_entry, 0);
  g_assert_false (gtk_widget_get_visible (GTK_WIDGET (window->shown_label)));
  gtk_editable_set_text (GTK_EDITABLE (window->search_entry), "csv");
  g_assert_true (fl_test_wait_until ((gboolean (*) (gpointer)) gtk_widget_get_visible,
                                     window->shown_label, 5000));
  expected = g_strdup_printf ("%u of %u shown",
                              g_list_model_get_n_items (_inspector_window_get_rows (window)),
                              total);
  g_assert_cmpuint (g_list_model_get_n_items (_inspector_window_get_rows (window)), <, total);
  g_assert_cmpstr (gtk_label_get_text (window->shown_label), ==, expected);

  gtk_editable_set_text (GTK_EDITABLE (window->search_entry), "no-such-lock-anywhere");
  g_assert_true (fl_test_wait_until (page_is, &want, 5000));
  g_assert_true (g_str_has_prefix (gtk_label_get_text (window->shown_label), "0 of "));

  gtk_editable_set_text (GTK_EDITABLE (window->search_entry), "");
  want.text = "list";
  g_assert_true (fl_test_wait_until (page_is, &want, 5000));
  g_assert_false (gtk_widget_get_visible (GTK_WIDGET (window->shown_label)));

  ui_window_close (window);
}

typedef struct
{
  InspectorWindow *window;
  guint            n;
} Loaded;

static gboolean
loaded_at_top (gpointer data)
{
  Loaded *l = data;
  GtkAdjustment *adjustment = gtk_scrollable_get_vadjustment (
                                GTK_SCROLLABLE (l->window->column_view));
  graphene_rect_t bounds;
  gboolean loading = TRUE;

  g_object_get (l->window->model, "loading", &loading, NULL);
  return !loading && g_list_model_get_n_items (_inspector_window_get_rows (l->window)) == l->n
         && gtk_adjustment_get_upper (adjustment) > gtk_adjustment_get_page_size (adjustment)
         && gtk_adjustment_get_value (adjustment) == 0
         && _inspector_window_get_row_bounds (l->window, 0, &bounds)
         && bounds.origin.y >= 0;
}

/* A folder of many locks read with the list sorted (the sort remembered, as a person's would
 * be): the rows that sort in above the first ones read do not push the view down; the list
 * is shown from its first row. */
static void
test_top_after_load (void)
{
  g_autoptr(GSettings) settings = g_settings_new ("org.libfl.Inspector");
  g_autofree char *dir = g_dir_make_tmp ("layout-XXXXXX", NULL);
  Loaded loaded = { NULL, 3000 };

  for (guint i = 0; i < loaded.n; i++)
    {
      g_autofree char *path = g_strdup_printf ("%s/lock-%05u.lock", dir, i);

      g_assert_true (g_file_set_contents (path, "1\n", -1, NULL));
    }
  g_settings_reset (settings, "directories");
  g_settings_set_string (settings, "sort-column", "lock");
  g_settings_set_boolean (settings, "sort-descending", TRUE);
  loaded.window = inspector_window_new (NULL);
  gtk_window_present (GTK_WINDOW (loaded.window));
  inspector_window_add_directory (loaded.window, dir, FALSE, FALSE);
  g_assert_true (fl_test_wait_until (loaded_at_top, &loaded, 30000));

  ui_window_close (loaded.window);
  fl_test_rm_rf (dir);
  g_settings_reset (settings, "sort-column");
  g_settings_reset (settings, "sort-descending");
  g_settings_reset (settings, "directories");
}

typedef struct
{
  InspectorWindow *window;
  const char      *path;
  GtkWidget       *label;   /* out: the mapped name cell showing @path */
} NameCell;

static gboolean
name_cell_shown (gpointer data)
{
  NameCell *cell = data;
  g_autoptr(GPtrArray) labels = g_ptr_array_new ();

  cell->label = NULL;
  ui_collect_texts (GTK_WIDGET (cell->window->column_view), labels);
  for (guint i = 0; i < labels->len; i++)
    if (gtk_widget_get_mapped (labels->pdata[i]) && gtk_widget_get_width (labels->pdata[i]) > 0
        && g_str_equal (gtk_widget_get_name (labels->pdata[i]), "name-cell")
        && g_strcmp0 (gtk_widget_get_tooltip_text (labels->pdata[i]), cell->path) == 0)
      cell->label = labels->pdata[i];
  return cell->label != NULL;
}

static gboolean
text_shown (InspectorWindow *window,
            const char      *text)
{
  Want want = { window, text };

  return label_shown (&want);
}

/* Temp and graveyard names, T.lock.<pid>.<8 hex>.tmp and T.lock.gy.<pid>.<8 hex>: the Lock
 * column shows their lock's name, whole, and what they are beside it ("temp"), the
 * tooltip and the accessible name the whole name; Target does not repeat T where the row
 * says it already, and names another program's target (issue 34, item 1). */
static void
test_leftover_names (void)
{
  g_autoptr(GSettings) settings = g_settings_new ("org.libfl.Inspector");
  g_autofree char *dir = g_dir_make_tmp ("layout-XXXXXX", NULL);
  g_autofree char *lock = g_build_filename (dir, "orders.db.lock", NULL);
  g_autofree char *pid = g_strdup_printf ("%d", (int) getpid ());
  g_autofree char *content = g_strdup_printf ("%s\n", pid);
  g_autofree char *temp_name = g_strdup_printf ("orders.db.lock.%s.5f3a9c1e.tmp",
                                                pid);
  g_autofree char *gy_name = g_strdup_printf ("orders.db.lock.gy.%s.0b7d2e44",
                                              pid);
  g_autofree char *temp = g_build_filename (dir, temp_name, NULL);
  g_autofree char *gy = g_build_filename (dir, gy_name, NULL);
  g_autofree char *office = g_build_filename (dir, ".~lock.budget.ods#", NULL);
  struct { const char *path, *kind, *name; } rows[] = {
    { lock, NULL, "orders.db.lock" },
    { temp, "temp", temp_name },
    { gy, "graveyard", gy_name },
  };
  FlEntry *lock_entry;
  InspectorWindow *window;

  g_settings_reset (settings, "directories");
  /* Target is hidden by default; shown here to check what it says. */
  g_settings_set_boolean (settings, "column-target", TRUE);
  g_assert_true (g_file_set_contents (lock, content, -1, NULL));
  g_assert_true (g_file_set_contents (temp, content, -1, NULL));
  g_assert_true (g_file_set_contents (gy, content, -1, NULL));
  g_assert_true (g_file_set_contents (office, "Jane Doe,vm,jane,06.12.2026 10:00,"
                                      "file:///home/jane/.config/libreoffice/4;\n", -1, NULL));
  window = inspector_window_new (NULL);
  gtk_window_present (GTK_WINDOW (window));
  inspector_window_add_directory (window, dir, FALSE, FALSE);

  for (guint i = 0; i < G_N_ELEMENTS (rows); i++)
    {
      NameCell cell = { window, rows[i].path, NULL };
      GtkWidget *kind, *column_cell;

      g_assert_true (fl_test_wait_until (name_cell_shown, &cell, 10000));
      /* The lock's name, whole, at the default width. */
      g_assert_cmpstr (ui_text_of (cell.label), ==, "orders.db.lock");
      g_assert_true (ui_text_is_whole (cell.label));
      kind = gtk_widget_get_next_sibling (cell.label);
      if (rows[i].kind != NULL)
        {
          g_assert_true (gtk_widget_get_mapped (kind));
          g_assert_cmpstr (ui_text_of (kind), ==, rows[i].kind);
          g_assert_true (ui_text_is_whole (kind));
        }
      else
        g_assert_false (gtk_widget_get_visible (kind));
      /* The whole name for a screen reader: the column view's cell around InspectorCell. */
      column_cell = gtk_widget_get_parent (gtk_widget_get_parent (gtk_widget_get_parent (
                                             GTK_WIDGET (cell.label))));
      gtk_test_accessible_assert_property (GTK_ACCESSIBLE (column_cell),
                                           GTK_ACCESSIBLE_PROPERTY_LABEL, rows[i].name);
    }
  /* Target repeats nothing the Lock column says; another program's target is named. */
  g_assert_false (text_shown (window, "orders.db"));
  {
    FlEntry *entry = fl_directory_model_lookup (window->model, office);
    const char *target;
    g_autofree char *base = NULL;

    g_assert_nonnull (entry);
    target = fl_snapshot_get_target (fl_entry_get_snapshot (entry));
    g_assert_nonnull (target);
    base = g_path_get_basename (target);
    g_assert_cmpstr (base, ==, "budget.ods");
    g_assert_true (text_shown (window, base));
  }
  /* The details name the whole file. */
  lock_entry = fl_directory_model_lookup (window->model, lock);
  g_assert_true (_inspector_window_select_path (window, temp));
  g_assert_cmpstr (ui_detail (window, "Path"), ==, temp);
  g_assert_cmpstr (ui_detail (window, "Target"), ==,
                   fl_snapshot_get_target (fl_entry_get_snapshot (lock_entry)));

  ui_window_close (window);
  g_settings_reset (settings, "column-target");
  fl_test_rm_rf (dir);
}

int
main (int   argc,
      char *argv[])
{
  if (!ui_test_init (&argc, &argv))
    return 0;

  g_test_add_func ("/ui/layout/essential-columns", test_essential_columns);
  g_test_add_func ("/ui/layout/columns-remembered", test_columns_remembered);
  g_test_add_func ("/ui/layout/folder-relative", test_folder_relative);
  g_test_add_func ("/ui/layout/leftover-names", test_leftover_names);
  g_test_add_func ("/ui/layout/search-count-and-no-results", test_search_count_and_no_results);
  g_test_add_func ("/ui/layout/top-after-load", test_top_after_load);

  return g_test_run ();
}
