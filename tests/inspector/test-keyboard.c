/* test-keyboard.c: the window by keyboard and by screen reader (issue 34, items 10-12): Tab
 * leaves the list and the details, Escape returns to the row, Help closes with Escape and
 * Ctrl+W, the cursor and the selection never part, and buttons, rows and cells have the names
 * a screen reader reads (under Xvfb)
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <string.h>

#include "inspector-cell.h"
#include "ui-test-util.h"

static gboolean
cursor_on_selection (gpointer data)
{
  InspectorWindow *window = data;
  guint selected = gtk_single_selection_get_selected (window->selection);

  return selected != GTK_INVALID_LIST_POSITION
         && _inspector_window_get_focused_position (window) == selected;
}

static gboolean
focus_within (InspectorWindow *window,
              GtkWidget       *ancestor)
{
  GtkWidget *focus = gtk_root_get_focus (GTK_ROOT (window));

  return focus != NULL && (focus == ancestor || gtk_widget_is_ancestor (focus, ancestor));
}

/* Tab leaves the list at once, for the details; Tab goes on out of the details to the search;
 * Shift+Tab from the list goes back to the bar above it; Escape in the details returns to the
 * selected row. */
static void
test_tab_leaves (void)
{
  InspectorWindow *window = ui_window_with_demo ();
  g_autofree char *stale = ui_demo_path (window, "report.csv.lock");
  int presses = 0;

  g_assert_true (_inspector_window_select_path (window, stale));
  _inspector_window_focus_selected_row (window);
  g_assert_true (fl_test_wait_until (cursor_on_selection, window, 5000));

  while (focus_within (window, GTK_WIDGET (window->column_view)) && presses < 2)
    {
      ui_send_key (GTK_WINDOW (window), GDK_KEY_Tab, 0);
      presses++;
    }
  g_assert_false (focus_within (window, GTK_WIDGET (window->column_view)));
  g_assert_true (focus_within (window, GTK_WIDGET (window->details)));

  /* Out of the details, however many controls they have. */
  for (presses = 0; focus_within (window, GTK_WIDGET (window->details)) && presses < 20;
       presses++)
    ui_send_key (GTK_WINDOW (window), GDK_KEY_Tab, 0);
  g_assert_false (focus_within (window, GTK_WIDGET (window->details)));
  g_assert_true (focus_within (window, GTK_WIDGET (window->search_entry)));

  /* Escape from the details: back on the row, still the same. */
  gtk_widget_activate_action (GTK_WIDGET (window), "win.show-details", NULL);
  g_assert_true (focus_within (window, GTK_WIDGET (window->details)));
  ui_send_key (GTK_WINDOW (window), GDK_KEY_Escape, 0);
  g_assert_true (fl_test_wait_until (cursor_on_selection, window, 5000));
  g_assert_cmpstr (fl_entry_get_path (_inspector_window_get_selected (window)), ==, stale);

  /* Shift+Tab from the list: the bar above it. */
  ui_send_key (GTK_WINDOW (window), GDK_KEY_ISO_Left_Tab, GDK_SHIFT_MASK);
  g_assert_false (focus_within (window, GTK_WIDGET (window->column_view)));
  g_assert_true (focus_within (window, GTK_WIDGET (window->problems_button)));

  ui_window_close (window);
}

static gboolean
is_destroyed (gpointer data)
{
  return *(gpointer *) data == NULL;
}

/* The help window's shortcut for @accel ("Escape", "<Control>w"), run; FALSE if none. */
static gboolean
activate_help_shortcut (GtkWindow  *help,
                        const char *accel)
{
  g_autoptr(GListModel) controllers = gtk_widget_observe_controllers (GTK_WIDGET (help));

  for (guint i = 0; i < g_list_model_get_n_items (controllers); i++)
    {
      g_autoptr(GObject) controller = g_list_model_get_item (controllers, i);

      if (!GTK_IS_SHORTCUT_CONTROLLER (controller))
        continue;
      for (guint j = 0; j < g_list_model_get_n_items (G_LIST_MODEL (controller)); j++)
        {
          g_autoptr(GtkShortcut) shortcut = g_list_model_get_item (G_LIST_MODEL (controller), j);
          g_autofree char *triggers = gtk_shortcut_trigger_to_string (
                                        gtk_shortcut_get_trigger (shortcut));
          g_auto(GStrv) each = g_strsplit (triggers, "|", -1);

          if (g_strv_contains ((const char * const *) each, accel))
            return gtk_shortcut_action_activate (gtk_shortcut_get_action (shortcut), 0,
                                                 GTK_WIDGET (help), NULL);
        }
    }
  return FALSE;
}

/* Escape and Ctrl+W close the user guide, as they close Yelp. */
static void
test_help_closes (void)
{
  InspectorWindow *window = ui_window_with_demo ();
  const char *accels[] = { "Escape", "<Control>w" };

  for (guint i = 0; i < G_N_ELEMENTS (accels); i++)
    {
      g_assert_true (gtk_widget_activate_action (GTK_WIDGET (window), "win.help", NULL));
      g_assert_nonnull (window->help);
      g_assert_true (activate_help_shortcut (window->help, accels[i]));
      g_assert_true (fl_test_wait_until (is_destroyed, &window->help, 5000));
    }
  ui_window_close (window);
}

/* Down from the search with nothing selected: the row the focus lands on is selected, so the
 * details show it and Delete has something to act on. */
static void
test_down_from_search_selects (void)
{
  InspectorWindow *window = ui_window_with_demo ();

  gtk_search_entry_set_search_delay (window->search_entry, 0);
  gtk_single_selection_set_selected (window->selection, GTK_INVALID_LIST_POSITION);
  g_assert_true (gtk_widget_grab_focus (GTK_WIDGET (window->search_entry)));
  gtk_editable_set_text (GTK_EDITABLE (window->search_entry), "lock");
  g_assert_null (_inspector_window_get_selected (window));

  ui_send_key (GTK_WINDOW (window), GDK_KEY_Down, 0);
  g_assert_true (fl_test_wait_until (cursor_on_selection, window, 5000));
  g_assert_nonnull (_inspector_window_get_selected (window));

  ui_window_close (window);
}

/* Escape in a confirmation opened from the details: the ring goes back where the selection
 * is, never to another row. */
static void
test_cursor_after_dialog (void)
{
  InspectorWindow *window = ui_window_with_demo ();
  g_autofree char *stale = ui_demo_path (window, "report.csv.lock");
  GtkWindow *dialog;

  g_assert_true (_inspector_window_select_path (window, stale));
  gtk_widget_activate_action (GTK_WIDGET (window), "win.show-details", NULL);
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (window), "win.reclaim", NULL));
  dialog = _inspector_window_get_dialog (window);
  g_assert_nonnull (dialog);
  /* Its buttons read as they show, without the mnemonic's underscore. */
  gtk_test_accessible_assert_property (
    gtk_dialog_get_widget_for_response (GTK_DIALOG (dialog), GTK_RESPONSE_CANCEL),
    GTK_ACCESSIBLE_PROPERTY_LABEL, "Cancel");
  gtk_dialog_response (GTK_DIALOG (dialog), GTK_RESPONSE_CANCEL);
  g_assert_null (_inspector_window_get_dialog (window));
  g_assert_cmpstr (fl_entry_get_path (_inspector_window_get_selected (window)), ==, stale);
  if (focus_within (window, GTK_WIDGET (window->column_view)))
    g_assert_true (fl_test_wait_until (cursor_on_selection, window, 5000));

  ui_window_close (window);
}

/* The InspectorCell of the Lock column showing @entry. */
static GtkWidget *
name_cell_of (InspectorWindow *window,
              FlEntry         *entry)
{
  g_autoptr(GPtrArray) cells = g_ptr_array_new ();

  ui_collect_widgets (GTK_WIDGET (window->column_view), INSPECTOR_TYPE_CELL, cells);
  for (guint i = 0; i < cells->len; i++)
    {
      GtkListItem *item = inspector_cell_get_list_item (cells->pdata[i]);

      if (item != NULL && gtk_list_item_get_item (item) == (gpointer) entry
          && gtk_widget_get_mapped (cells->pdata[i]))
        return cells->pdata[i];
    }
  return NULL;
}

static gboolean
row_shown (gpointer data)
{
  InspectorWindow *window = data;

  return name_cell_of (window, _inspector_window_get_selected (window)) != NULL;
}

/* What AT-SPI reads as names: the label property GTK's accessibility backend exports. Buttons
 * read their label without the mnemonic's underscore (and only once); a row reads its lock's
 * name and state, a cell its text, never a GTK type name. */
static void
test_accessible_names (void)
{
  InspectorWindow *window = ui_window_with_demo ();
  g_autofree char *stale = ui_demo_path (window, "report.csv.lock");
  GtkWidget *copy = ui_find_actionable (GTK_WIDGET (window->details), "win.copy-path");
  GtkWidget *reclaim = ui_find_actionable (GTK_WIDGET (window->details), "win.reclaim");
  GtkWidget *cell, *column_cell, *row;
  g_autofree char *state = NULL;
  g_autofree char *row_name = NULL;

  g_assert_true (GTK_IS_BUTTON (copy) && GTK_IS_BUTTON (reclaim));
  gtk_test_accessible_assert_property (copy, GTK_ACCESSIBLE_PROPERTY_LABEL, "Copy Path");
  gtk_test_accessible_assert_property (reclaim, GTK_ACCESSIBLE_PROPERTY_LABEL, "Reclaim…");
  gtk_test_accessible_assert_property (window->problems_button, GTK_ACCESSIBLE_PROPERTY_LABEL,
                                       "Problems Only");

  g_assert_true (_inspector_window_select_path (window, stale));
  _inspector_window_focus_selected_row (window);
  g_assert_true (fl_test_wait_until (row_shown, window, 5000));
  cell = name_cell_of (window, _inspector_window_get_selected (window));
  column_cell = gtk_widget_get_parent (cell);
  row = gtk_widget_get_parent (column_cell);
  state = fl_snapshot_dup_state_summary (
            fl_entry_get_snapshot (_inspector_window_get_selected (window)));
  row_name = g_strdup_printf ("report.csv.lock, %s", state);
  gtk_test_accessible_assert_property (row, GTK_ACCESSIBLE_PROPERTY_LABEL, row_name);
  gtk_test_accessible_assert_property (column_cell, GTK_ACCESSIBLE_PROPERTY_LABEL,
                                       "report.csv.lock");
  /* The State column's cell, next in the row. */
  gtk_test_accessible_assert_property (gtk_widget_get_next_sibling (column_cell),
                                       GTK_ACCESSIBLE_PROPERTY_LABEL, state);

  ui_window_close (window);
}

int
main (int   argc,
      char *argv[])
{
  if (!ui_test_init (&argc, &argv))
    return 0;

  g_test_add_func ("/ui/keyboard/tab-leaves", test_tab_leaves);
  g_test_add_func ("/ui/keyboard/help-closes", test_help_closes);
  g_test_add_func ("/ui/keyboard/down-from-search-selects", test_down_from_search_selects);
  g_test_add_func ("/ui/keyboard/cursor-after-dialog", test_cursor_after_dialog);
  g_test_add_func ("/ui/keyboard/accessible-names", test_accessible_names);

  return g_test_run ();
}
