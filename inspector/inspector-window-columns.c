/* inspector-window-columns.c: which of the list's columns are shown, and its sort, remembered
 *
 * Lock, State, Holder and Age always stay, first, at widths that fit the narrowest window the
 * list is shown in (800 px, the details then below it): what a lock is and whether to act on
 * it must never be scrolled to. The others can be hidden from the header's menu (a right click
 * on any column title, as in System Monitor), remembered in GSettings (column-*); Folder, Host
 * and Lease besides only say something while several folders or an etcd prefix are watched.
 *
 * The sort is remembered too (sort-column, sort-descending). GTK 4.8 has no API to read the
 * column view's sort back (GtkColumnViewSorter's getters are 4.10): it is read from the
 * header's sort indicators, whose "ascending" and "descending" style classes are what themes
 * draw them from, and is restored with gtk_column_view_sort_by_column().
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include "inspector-window-private.h"

typedef struct
{
  const char *key;  /* the sort-column value */
  gsize       offset;
} NamedColumn;

#define COLUMN(key, field) { key, G_STRUCT_OFFSET (InspectorWindow, field) }

static const NamedColumn named_columns[] = {
  COLUMN ("lock", name_column),
  COLUMN ("state", state_column),
  COLUMN ("holder", holder_column),
  COLUMN ("age", age_column),
  COLUMN ("kernel-lock", kernel_column),
  COLUMN ("target", target_column),
  COLUMN ("folder", folder_column),
  COLUMN ("host", host_column),
  COLUMN ("lease", lease_column),
};

static GtkColumnViewColumn *
column_at (InspectorWindow *self,
           guint            i)
{
  return G_STRUCT_MEMBER (GtkColumnViewColumn *, self, named_columns[i].offset);
}

void
_inspector_window_update_columns (InspectorWindow *self)
{
  GSettings *s = self->settings;

  gtk_column_view_column_set_visible (self->kernel_column,
                                      g_settings_get_boolean (s, "column-kernel-lock"));
  gtk_column_view_column_set_visible (self->target_column,
                                      g_settings_get_boolean (s, "column-target"));
  gtk_column_view_column_set_visible (self->folder_column, self->several_folders
                                      && g_settings_get_boolean (s, "column-folder"));
  gtk_column_view_column_set_visible (self->host_column, self->watching_etcd
                                      && g_settings_get_boolean (s, "column-etcd"));
  gtk_column_view_column_set_visible (self->lease_column, self->watching_etcd
                                      && g_settings_get_boolean (s, "column-etcd"));
}

/* The header's title buttons, in the order of the visible columns: the first child of the
 * column view is its header. */
static GtkWidget *
find_sort_indicator (GtkWidget *widget)
{
  if (gtk_widget_has_css_class (widget, "ascending")
      || gtk_widget_has_css_class (widget, "descending")
      || gtk_widget_has_css_class (widget, "unsorted"))
    return widget;
  for (GtkWidget *child = gtk_widget_get_first_child (widget); child != NULL;
       child = gtk_widget_get_next_sibling (child))
    {
      GtkWidget *found = find_sort_indicator (child);

      if (found != NULL)
        return found;
    }
  return NULL;
}

/* The sort the header shows: the column's key, and whether it is descending; NULL unsorted. */
const char *
_inspector_window_get_sort (InspectorWindow *self,
                            gboolean        *descending)
{
  GtkWidget *header = gtk_widget_get_first_child (GTK_WIDGET (self->column_view));
  GtkWidget *title = header != NULL ? gtk_widget_get_first_child (header) : NULL;
  GListModel *columns = gtk_column_view_get_columns (self->column_view);

  for (guint c = 0; c < g_list_model_get_n_items (columns) && title != NULL; c++)
    {
      g_autoptr(GtkColumnViewColumn) column = g_list_model_get_item (columns, c);
      GtkWidget *indicator;

      if (!gtk_column_view_column_get_visible (column))
        continue;
      indicator = find_sort_indicator (title);
      if (indicator != NULL && gtk_widget_get_visible (indicator)
          && !gtk_widget_has_css_class (indicator, "unsorted")
          && (gtk_widget_has_css_class (indicator, "ascending")
              || gtk_widget_has_css_class (indicator, "descending")))
        for (guint i = 0; i < G_N_ELEMENTS (named_columns); i++)
          if (column_at (self, i) == column)
            {
              *descending = gtk_widget_has_css_class (indicator, "descending");
              return named_columns[i].key;
            }
      title = gtk_widget_get_next_sibling (title);
    }
  return NULL;
}

/* After the header has drawn the new sort (its indicators change in the same turn). */
static void
remember_sort_cb (gpointer user_data)
{
  InspectorWindow *self = user_data;
  gboolean descending = FALSE;
  const char *key;

  self->sort_id = 0;
  key = _inspector_window_get_sort (self, &descending);
  g_settings_set_string (self->settings, "sort-column", key != NULL ? key : "");
  g_settings_set_boolean (self->settings, "sort-descending", descending);
}

static void
sorter_changed_cb (GtkSorter       *sorter,
                   GtkSorterChange  change,
                   InspectorWindow *self)
{
  if (self->sort_id == 0 && !self->restoring_sort)
    self->sort_id = g_idle_add_once (remember_sort_cb, self);
}

static void
restore_sort (InspectorWindow *self)
{
  g_autofree char *key = g_settings_get_string (self->settings, "sort-column");
  gboolean descending = g_settings_get_boolean (self->settings, "sort-descending");

  for (guint i = 0; i < G_N_ELEMENTS (named_columns); i++)
    if (g_str_equal (named_columns[i].key, key))
      {
        self->restoring_sort = TRUE;
        gtk_column_view_sort_by_column (self->column_view, column_at (self, i),
                                        descending ? GTK_SORT_DESCENDING : GTK_SORT_ASCENDING);
        self->restoring_sort = FALSE;
      }
}

void
_inspector_window_setup_columns (InspectorWindow *self)
{
  /* The actions are named after their keys: columns.column-target and so on. */
  static const char *const keys[] = {
    "column-kernel-lock", "column-target", "column-folder", "column-etcd",
  };
  g_autoptr(GSimpleActionGroup) group = g_simple_action_group_new ();

  for (guint i = 0; i < G_N_ELEMENTS (keys); i++)
    {
      g_autoptr(GAction) action = g_settings_create_action (self->settings, keys[i]);
      g_autofree char *signal = g_strconcat ("changed::", keys[i], NULL);

      g_action_map_add_action (G_ACTION_MAP (group), action);
      g_signal_connect_swapped (self->settings, signal,
                                G_CALLBACK (_inspector_window_update_columns), self);
    }
  gtk_widget_insert_action_group (GTK_WIDGET (self), "columns", G_ACTION_GROUP (group));
  _inspector_window_update_columns (self);

  restore_sort (self);
  g_signal_connect (gtk_column_view_get_sorter (self->column_view), "changed",
                    G_CALLBACK (sorter_changed_cb), self);
}

void
_inspector_window_teardown_columns (InspectorWindow *self)
{
  /* Before the column view goes: its columns leaving change its sorter. */
  if (self->column_view != NULL)
    g_signal_handlers_disconnect_by_func (gtk_column_view_get_sorter (self->column_view),
                                          sorter_changed_cb, self);
  g_clear_handle_id (&self->sort_id, g_source_remove);
  if (self->settings != NULL)
    g_signal_handlers_disconnect_by_data (self->settings, self);
}
