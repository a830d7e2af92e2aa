/* inspector-window.c: the Lock Inspector's main window
 *
 * The list is FlDirectoryModel → InspectorFilterModel (search, problems only) → GtkSortListModel
 * (the column view's sorter) → GtkSingleSelection, declared in inspector-window.ui with the
 * columns; the model is this window's "model" property. The model inserts and removes rows with
 * exact items-changed and updates a changed lock in place, so selection and focus survive.
 *
 * Window size, maximized state and the details pane's width are bound to GSettings: they are
 * remembered as they change, and a new window starts with them.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <string.h>

#include <glib/gi18n.h>

#include "inspector-a11y.h"
#include "inspector-state.h"
#include "inspector-cell.h"
#include "inspector-window-private.h"

G_DEFINE_FINAL_TYPE (InspectorWindow, inspector_window, GTK_TYPE_APPLICATION_WINDOW)

enum
{
  PROP_0,
  PROP_PROBLEMS_ONLY,
  PROP_MODEL,
  PROP_NOW,
  PROP_WORKING,
  PROP_ROOTS,
  N_PROPS
};

static GParamSpec *properties[N_PROPS];

static void append_count (GString    *text,
                          const char *format,
                          ...) G_GNUC_PRINTF (2, 3);

static void
append_count (GString    *text,
              const char *format,
              ...)
{
  va_list args;

  if (text->len > 0)
    g_string_append (text, "   ");
  va_start (args, format);
  g_string_append_vprintf (text, format, args);
  va_end (args);
}

/* The counts label binds to the model's counts (inspector-window.ui): each is the number of
 * rows showing that state, every state counted once; the rarer ones only when there are some.
 * Stale is libfl's own reclaimable locks; other programs' leftovers have a count of their
 * own, as libfl never reclaims them. */
static char *
format_counts_cb (gpointer unused,
                  guint    held,
                  guint    stale,
                  guint    orphans,
                  guint    unknown,
                  guint    foreign,
                  guint    active,
                  guint    free,
                  guint    leftovers)
{
  GString *text = g_string_new (NULL);

  append_count (text, _("Held: %u"), held);
  append_count (text, _("Stale: %u"), stale);
  append_count (text, _("Orphans: %u"), orphans);
  if (active > 0)
    append_count (text, _("In use: %u"), active);
  if (unknown > 0)
    append_count (text, _("Unknown: %u"), unknown);
  if (free > 0)
    append_count (text, _("Free: %u"), free);
  if (leftovers > 0)
    /* TRANSLATORS: other programs' lock files whose owner is gone (Emacs, Firefox...) */
    append_count (text, _("Others' leftovers: %u"), leftovers);
  if (foreign > 0)
    append_count (text, _("Foreign: %u"), foreign);
  return g_string_free (text, FALSE);
}

static void
loading_notify_cb (FlDirectoryModel *model,
                   GParamSpec       *pspec,
                   InspectorWindow  *self)
{
  _inspector_window_update_page (self);
}

/* The entries change in place (a lock turning stale under "problems only"): the filter model
 * judges that one entry again, never every row. Rows that come or go it judges itself. */
static void
entry_changed_cb (FlDirectoryModel *model,
                  FlEntry          *entry,
                  FlChange          change,
                  InspectorWindow  *self)
{
  /* A release is gone from the rows already; a takeover is followed by its CREATED. */
  if (change == FL_CHANGE_RELEASED || change == FL_CHANGE_TAKEN_OVER)
    return;
  /* The selected lock's file replaced (taken over, released and taken again): the selection
   * stays on the lock's path, where the person was, rather than on no row. */
  if (change == FL_CHANGE_CREATED && self->selected_path != NULL &&
      gtk_single_selection_get_selected_item (self->selection) == NULL &&
      g_strcmp0 (fl_entry_get_path (entry), self->selected_path) == 0)
    _inspector_window_select_path (self, self->selected_path);
  if (self->problems_only || self->search_text != NULL)
    inspector_filter_model_update (self->filter_model, entry);
}

static gboolean
match_cb (FlEntry  *entry,
          gpointer  user_data)
{
  return _inspector_window_matches (user_data, entry);
}

/* The rows shown changed: "N of M shown" while a criterion hides some, and the page (No
 * Results when it hides them all). */
static void
shown_changed_cb (InspectorWindow *self)
{
  guint shown = g_list_model_get_n_items (G_LIST_MODEL (self->sort_model));
  guint total = g_list_model_get_n_items (G_LIST_MODEL (self->model));
  gboolean filtered = self->problems_only || self->search_text != NULL;

  if (filtered)
    {
      /* Translators: rows shown of all the locks, while a search or Problems Only hides some. */
      g_autofree char *text = g_strdup_printf (_("%u of %u shown"), shown, total);

      gtk_label_set_text (self->shown_label, text);
    }
  gtk_widget_set_visible (GTK_WIDGET (self->shown_label), filtered);
  _inspector_window_update_page (self);
}

/* One pass over the rows for a new criterion; without one, every row passes unjudged. */
static void
apply_filter (InspectorWindow *self)
{
  gboolean active = self->problems_only || self->search_text != NULL;

  inspector_filter_model_set_match_func (self->filter_model, active ? match_cb : NULL, self);
  shown_changed_cb (self);
}

static void
search_changed_cb (GtkSearchEntry  *entry,
                   InspectorWindow *self)
{
  const char *text = gtk_editable_get_text (GTK_EDITABLE (entry));

  g_clear_pointer (&self->search_text, g_free);
  if (text[0] != '\0')
    self->search_text = g_utf8_casefold (text, -1);
  apply_filter (self);
  /* A search's results from their first row, as a new list. */
  _inspector_window_keep_top (self, TRUE);
}

static void
stop_search_cb (GtkSearchEntry  *entry,
                InspectorWindow *self)
{
  gtk_editable_set_text (GTK_EDITABLE (entry), "");
  _inspector_window_focus_selected_row (self);
}

static void
selected_notify_snapshot_cb (InspectorWindow *self)
{
  _inspector_window_update_actions (self);
}

/* The details pane and the actions follow the selected entry's snapshot (the pane through its
 * own signal group, the actions through selected_signals). GTK 4.8's GtkSingleSelection also
 * notifies "selected-item" when only its position moved (a row came or went above it): the
 * same entry is not shown again, as rebuilding the pane for each lock of a burst cost a
 * relayout of the window each time. */
static void
selection_changed_cb (GtkSingleSelection *selection,
                      GParamSpec         *pspec,
                      InspectorWindow    *self)
{
  FlEntry *entry = gtk_single_selection_get_selected_item (selection);
  g_autoptr(GObject) shown = g_signal_group_dup_target (self->selected_signals);

  /* Kept while no row is selected: where a replaced file's lock comes back. */
  if (entry != NULL && g_strcmp0 (self->selected_path, fl_entry_get_path (entry)) != 0)
    {
      g_free (self->selected_path);
      self->selected_path = g_strdup (fl_entry_get_path (entry));
    }
  if (shown != (GObject *) entry)
    {
      g_signal_group_set_target (self->selected_signals, entry);
      inspector_details_set_entry (self->details, self->model, entry);
      _inspector_window_update_actions (self);
    }
  _inspector_window_cursor_follow_selection (self);
}

/* Whether the Lock Files view lists @path once it has read it: a file in a watched folder
 * (or below one watched with its subfolders). */
static gboolean
is_watched_path (InspectorWindow *self,
                 const char      *path)
{
  g_autofree char *dir = g_path_get_dirname (path);

  for (guint i = 0; self->roots != NULL && self->roots[i] != NULL; i++)
    {
      const char *root = self->roots[i];
      gsize len = strlen (root);

      if (g_str_equal (dir, root))
        return TRUE;
      if (strncmp (dir, root, len) == 0 && dir[len] == G_DIR_SEPARATOR
          && GPOINTER_TO_INT (g_hash_table_lookup (self->recursive_dirs, root)))
        return TRUE;
    }
  return FALSE;
}

static void
end_pending_show (InspectorWindow *self)
{
  g_clear_handle_id (&self->pending_show_id, g_source_remove);
  g_clear_pointer (&self->pending_show_path, g_free);
}

static void
say_not_watched (InspectorWindow *self,
                 const char      *path)
{
  g_autofree char *text = g_strdup_printf (_("“%s” is not in the watched folders: open its "
                                             "folder to see it."), path);

  _inspector_window_show_banner (self, FALSE, text);
}

/* A lock in a watched folder whose row never came: most often it went away meanwhile (a
 * short-lived lock); if it is still there, the listing missed it, and F5 reads it again. */
static gboolean
pending_show_expired_cb (gpointer data)
{
  InspectorWindow *self = data;
  g_autofree char *path = g_steal_pointer (&self->pending_show_path);
  g_autofree char *text = NULL;

  self->pending_show_id = 0;
  if (g_file_test (path, G_FILE_TEST_EXISTS | G_FILE_TEST_IS_SYMLINK))
    text = g_strdup_printf (_("“%s” is in a watched folder but not listed: press F5 to read "
                              "the folders again."), path);
  else
    text = g_strdup_printf (_("“%s” went away before it was listed."), path);
  _inspector_window_show_banner (self, FALSE, text);
  return G_SOURCE_REMOVE;
}

/* Rows joined the list while a lock to show was not yet in it. */
static void
pending_show_rows_cb (InspectorWindow *self,
                      guint            position,
                      guint            removed,
                      guint            added)
{
  if (self->pending_show_path == NULL || added == 0)
    return;
  if (_inspector_window_select_path (self, self->pending_show_path))
    {
      end_pending_show (self);
      _inspector_window_focus_selected_row (self);
    }
}

/* "Show Lock File" in the Kernel Locks view: the lock in the Lock Files view, selected and
 * focused; if no row shows it (a search hides it, or it is not watched), the search is
 * cleared and the banner says so when it is still not found. The Kernel Locks view reads
 * /proc/locks, which can be ahead of the folder's listing (a lock made a moment ago, a first
 * read still running): a lock in a watched folder is then selected when its row comes, and
 * only said to be missing if it has not come within PENDING_SHOW_SECONDS. */
#define PENDING_SHOW_SECONDS 15

static void
show_lock_file_cb (InspectorKernelView *view,
                   const char          *path,
                   InspectorWindow     *self)
{
  end_pending_show (self);
  gtk_stack_set_visible_child_name (self->views, "files");
  if (!_inspector_window_select_path (self, path))
    {
      gtk_editable_set_text (GTK_EDITABLE (self->search_entry), "");
      g_object_set (self, "problems-only", FALSE, NULL);
      apply_filter (self);
    }
  if (_inspector_window_select_path (self, path))
    _inspector_window_focus_selected_row (self);
  else if (is_watched_path (self, path))
    {
      self->pending_show_path = g_strdup (path);
      self->pending_show_id = g_timeout_add_seconds (PENDING_SHOW_SECONDS,
                                                     pending_show_expired_cb, self);
    }
  else
    say_not_watched (self, path);
}

/* Called once a second while the window is visible: the bound age cells watch "now". */
void
_inspector_window_tick (InspectorWindow *self)
{
  self->now = fl_directory_model_get_now (self->model);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_NOW]);
  inspector_details_tick (self->details);
}

static gboolean
tick_cb (gpointer user_data)
{
  _inspector_window_tick (user_data);
  return G_SOURCE_CONTINUE;
}

/* The layout: the details pane beside the list on a wide window, below it on a narrow one.
 *
 * Widths are logical pixels, so a HiDPI screen at scale 2 counts as half as wide: the same
 * rule covers both. The pane's position beside the list is remembered (details-position);
 * below the list it is not, since it depends on the height. */

/* Below this, the list and the details (300 px at least) would not both be readable. */
#define NARROW_BELOW_PX 840

static void
apply_layout_cb (gpointer user_data)
{
  InspectorWindow *self = user_data;
  GtkOrientation want = self->narrow ? GTK_ORIENTATION_VERTICAL : GTK_ORIENTATION_HORIZONTAL;

  self->layout_id = 0;
  if (gtk_orientable_get_orientation (GTK_ORIENTABLE (self->paned)) == want)
    return;
  /* GTK 4.8's paned keeps its measurements across a change of orientation (a CRITICAL
   * "reports a minimum height ... Expect overlapping widgets"): measured again below. */
  gtk_widget_queue_resize (GTK_WIDGET (self->paned));

  if (self->narrow)
    {
      g_settings_unbind (self->paned, "position");
      gtk_orientable_set_orientation (GTK_ORIENTABLE (self->paned), want);
      gtk_paned_set_position (self->paned,
                              MAX (gtk_widget_get_height (GTK_WIDGET (self->paned)), 400) * 3 / 5);
    }
  else
    {
      gtk_orientable_set_orientation (GTK_ORIENTABLE (self->paned), want);
      g_settings_bind (self->settings, "details-position", self->paned, "position",
                       G_SETTINGS_BIND_DEFAULT);
    }
  gtk_widget_queue_resize (GTK_WIDGET (self->paned));
}

/* From size_allocate and constructed: the change waits for an idle, since a layout must not change while it
 * is being allocated. */
static void
update_layout (InspectorWindow *self,
               int              width)
{
  gboolean narrow = width < NARROW_BELOW_PX;

  if (narrow == self->narrow && self->layout_id == 0
      && gtk_orientable_get_orientation (GTK_ORIENTABLE (self->paned))
         == (narrow ? GTK_ORIENTATION_VERTICAL : GTK_ORIENTATION_HORIZONTAL))
    return;
  self->narrow = narrow;
  if (!gtk_widget_get_realized (GTK_WIDGET (self)))
    {
      /* Before the first frame (from the remembered width): at once, so the window is never
       * measured with the wrong layout. */
      g_clear_handle_id (&self->layout_id, g_source_remove);
      apply_layout_cb (self);
    }
  else if (self->layout_id == 0)
    self->layout_id = g_idle_add_once (apply_layout_cb, self);
}

gboolean
_inspector_window_is_narrow (InspectorWindow *self)
{
  return gtk_orientable_get_orientation (GTK_ORIENTABLE (self->paned))
         == GTK_ORIENTATION_VERTICAL;
}

/* The banner, which every part of the window reports to. */

/* A success is news for a while; a failure stays until dismissed (or replaced), since it
 * says what to do. */
#define SUCCESS_SHOWN_S 10

static void
hide_banner_cb (gpointer user_data)
{
  InspectorWindow *self = user_data;

  self->banner_id = 0;
  /* The news is over; what the model cannot read is still true, and said again. */
  if (self->problems_text != NULL)
    _inspector_window_show_banner (self, FALSE, self->problems_text);
  else
    gtk_revealer_set_reveal_child (self->banner, FALSE);
}

void
_inspector_window_show_banner (InspectorWindow *self,
                               gboolean         success,
                               const char      *text)
{
  g_clear_handle_id (&self->banner_id, g_source_remove);
  if (success)
    self->banner_id = g_timeout_add_once (SUCCESS_SHOWN_S * 1000, hide_banner_cb, self);

  gtk_image_set_from_icon_name (self->banner_icon,
                                success ? "emblem-ok-symbolic" : "dialog-error-symbolic");
  gtk_label_set_text (self->banner_label, text);
  gtk_widget_remove_css_class (GTK_WIDGET (self->banner), success ? "error" : "success");
  gtk_widget_add_css_class (GTK_WIDGET (self->banner), success ? "success" : "error");
  gtk_revealer_set_reveal_child (self->banner, TRUE);
}

static void
inspector_window_map (GtkWidget *widget)
{
  InspectorWindow *self = INSPECTOR_WINDOW (widget);

  GTK_WIDGET_CLASS (inspector_window_parent_class)->map (widget);
  if (self->tick_id == 0)
    self->tick_id = g_timeout_add_seconds (1, tick_cb, self);
}

static void
inspector_window_unmap (GtkWidget *widget)
{
  InspectorWindow *self = INSPECTOR_WINDOW (widget);

  g_clear_handle_id (&self->tick_id, g_source_remove);
  GTK_WIDGET_CLASS (inspector_window_parent_class)->unmap (widget);
}

static void
inspector_window_size_allocate (GtkWidget *widget,
                                int        width,
                                int        height,
                                int        baseline)
{
  GTK_WIDGET_CLASS (inspector_window_parent_class)->size_allocate (widget, width, height,
                                                                   baseline);
  update_layout (INSPECTOR_WINDOW (widget), width);
}

/* In constructed, not init: GtkWindow's "maximized" is a construct property, whose default
 * would undo a value set in init (a window that was closed maximized opened unmaximized). */
static void
inspector_window_constructed (GObject *object)
{
  InspectorWindow *self = INSPECTOR_WINDOW (object);

  G_OBJECT_CLASS (inspector_window_parent_class)->constructed (object);

  g_settings_bind (self->settings, "window-width", self, "default-width",
                   G_SETTINGS_BIND_DEFAULT);
  g_settings_bind (self->settings, "window-height", self, "default-height",
                   G_SETTINGS_BIND_DEFAULT);
  g_settings_bind (self->settings, "window-maximized", self, "maximized",
                   G_SETTINGS_BIND_DEFAULT);
  g_settings_bind (self->settings, "details-position", self->paned, "position",
                   G_SETTINGS_BIND_DEFAULT);
  g_settings_bind (self->settings, "view", self->views, "visible-child-name",
                   G_SETTINGS_BIND_DEFAULT);
  /* The layout the remembered size asks for from the start, not after a first frame. */
  update_layout (self, g_settings_get_int (self->settings, "window-width"));
}

static void
inspector_window_dispose (GObject *object)
{
  InspectorWindow *self = INSPECTOR_WINDOW (object);

  g_cancellable_cancel (self->cancellable);
  _inspector_window_stop_work (self);
  /* Unbinds every row while the window can still answer its cells. */
  if (self->column_view != NULL)
    gtk_column_view_set_model (self->column_view, NULL);
  g_clear_handle_id (&self->tick_id, g_source_remove);
  g_clear_handle_id (&self->banner_id, g_source_remove);
  g_clear_handle_id (&self->layout_id, g_source_remove);
  _inspector_window_teardown_rows (self);
  _inspector_window_teardown_columns (self);
  _inspector_window_teardown_top (self);
  _inspector_window_teardown_notify (self);
  end_pending_show (self);
  if (self->dialog != NULL)
    gtk_window_destroy (self->dialog);
  g_clear_object (&self->selected_signals);
  g_clear_object (&self->model_signals);
  gtk_widget_dispose_template (GTK_WIDGET (self), INSPECTOR_TYPE_WINDOW);
  /* Ends the demo's holders and removes its directory, after the list let go of it. */
  g_clear_object (&self->demo);
  g_clear_object (&self->model);
  g_clear_object (&self->settings);
  g_clear_object (&self->cancellable);
  g_clear_pointer (&self->recursive_dirs, g_hash_table_unref);
  g_clear_pointer (&self->search_text, g_free);
  g_clear_pointer (&self->selected_path, g_free);
  g_clear_pointer (&self->problems_text, g_free);
  g_clear_pointer (&self->roots, g_strfreev);

  G_OBJECT_CLASS (inspector_window_parent_class)->dispose (object);
}

static void
inspector_window_get_property (GObject    *object,
                               guint       prop_id,
                               GValue     *value,
                               GParamSpec *pspec)
{
  InspectorWindow *self = INSPECTOR_WINDOW (object);

  switch (prop_id)
    {
    case PROP_PROBLEMS_ONLY:
      g_value_set_boolean (value, self->problems_only);
      break;
    case PROP_MODEL:
      g_value_set_object (value, self->model);
      break;
    case PROP_NOW:
      g_value_set_int64 (value, self->now);
      break;
    case PROP_WORKING:
      g_value_set_boolean (value, self->work != NULL);
      break;
    case PROP_ROOTS:
      g_value_set_boxed (value, self->roots);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
inspector_window_set_property (GObject      *object,
                               guint         prop_id,
                               const GValue *value,
                               GParamSpec   *pspec)
{
  InspectorWindow *self = INSPECTOR_WINDOW (object);

  switch (prop_id)
    {
    case PROP_PROBLEMS_ONLY:
      if (self->problems_only != g_value_get_boolean (value))
        {
          self->problems_only = g_value_get_boolean (value);
          if (self->filter_model != NULL)
            apply_filter (self);
          g_object_notify_by_pspec (object, pspec);
        }
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
inspector_window_class_init (InspectorWindowClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->constructed = inspector_window_constructed;
  object_class->dispose = inspector_window_dispose;
  object_class->get_property = inspector_window_get_property;
  object_class->set_property = inspector_window_set_property;
  widget_class->map = inspector_window_map;
  widget_class->size_allocate = inspector_window_size_allocate;
  widget_class->unmap = inspector_window_unmap;

  properties[PROP_PROBLEMS_ONLY] =
    g_param_spec_boolean ("problems-only", NULL, NULL, FALSE,
                          G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  properties[PROP_MODEL] =
    g_param_spec_object ("model", NULL, NULL, FL_TYPE_DIRECTORY_MODEL,
                         G_PARAM_READABLE | G_PARAM_STATIC_STRINGS);
  /* The model's clock as of the last tick, for the age cells (cell-age.ui). */
  properties[PROP_NOW] =
    g_param_spec_int64 ("now", NULL, NULL, 0, G_MAXINT64, 0,
                        G_PARAM_READABLE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  /* Whether Remove All Orphans runs (inspector-window-work.c), which the actions follow. */
  properties[PROP_WORKING] =
    g_param_spec_boolean ("working", NULL, NULL, FALSE,
                          G_PARAM_READABLE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  /* The watched folders, which the Folder column's cells are relative to (cell-folder.ui). */
  properties[PROP_ROOTS] =
    g_param_spec_boxed ("roots", NULL, NULL, G_TYPE_STRV,
                        G_PARAM_READABLE | G_PARAM_STATIC_STRINGS);
  g_object_class_install_properties (object_class, N_PROPS, properties);

  /* The templates name these types; GtkBuilder finds only registered ones. */
  g_type_ensure (FL_TYPE_ENTRY);
  g_type_ensure (FL_TYPE_SNAPSHOT);
  g_type_ensure (FL_TYPE_DIRECTORY_MODEL);
  g_type_ensure (INSPECTOR_TYPE_DETAILS);
  g_type_ensure (INSPECTOR_TYPE_FILTER_MODEL);
  g_type_ensure (INSPECTOR_TYPE_CELL);
  g_type_ensure (INSPECTOR_TYPE_KERNEL_VIEW);

  gtk_widget_class_set_template_from_resource (widget_class,
                                               "/org/libfl/Inspector/inspector-window.ui");
  gtk_widget_class_bind_template_child (widget_class, InspectorWindow, banner);
  gtk_widget_class_bind_template_child (widget_class, InspectorWindow, banner_icon);
  gtk_widget_class_bind_template_child (widget_class, InspectorWindow, banner_label);
  gtk_widget_class_bind_template_child (widget_class, InspectorWindow, work_bar);
  gtk_widget_class_bind_template_child (widget_class, InspectorWindow, work_label);
  gtk_widget_class_bind_template_child (widget_class, InspectorWindow, work_progress);
  gtk_widget_class_bind_template_child (widget_class, InspectorWindow, search_entry);
  gtk_widget_class_bind_template_child (widget_class, InspectorWindow, problems_button);
  gtk_widget_class_bind_template_child (widget_class, InspectorWindow, counts_label);
  gtk_widget_class_bind_template_child (widget_class, InspectorWindow, shown_label);
  gtk_widget_class_bind_template_child (widget_class, InspectorWindow, views);
  gtk_widget_class_bind_template_child (widget_class, InspectorWindow, kernel_view);
  gtk_widget_class_bind_template_child (widget_class, InspectorWindow, paned);
  gtk_widget_class_bind_template_child (widget_class, InspectorWindow, stack);
  gtk_widget_class_bind_template_child (widget_class, InspectorWindow, loading_spinner);
  gtk_widget_class_bind_template_child (widget_class, InspectorWindow, column_view);
  gtk_widget_class_bind_template_child (widget_class, InspectorWindow, selection);
  gtk_widget_class_bind_template_child (widget_class, InspectorWindow, sort_model);
  gtk_widget_class_bind_template_child (widget_class, InspectorWindow, filter_model);
  gtk_widget_class_bind_template_child (widget_class, InspectorWindow, name_column);
  gtk_widget_class_bind_template_child (widget_class, InspectorWindow, state_column);
  gtk_widget_class_bind_template_child (widget_class, InspectorWindow, holder_column);
  gtk_widget_class_bind_template_child (widget_class, InspectorWindow, age_column);
  gtk_widget_class_bind_template_child (widget_class, InspectorWindow, kernel_column);
  gtk_widget_class_bind_template_child (widget_class, InspectorWindow, target_column);
  gtk_widget_class_bind_template_child (widget_class, InspectorWindow, folder_column);
  gtk_widget_class_bind_template_child (widget_class, InspectorWindow, host_column);
  gtk_widget_class_bind_template_child (widget_class, InspectorWindow, lease_column);
  gtk_widget_class_bind_template_child (widget_class, InspectorWindow, etcd_entry);
  gtk_widget_class_bind_template_callback (widget_class, _inspector_window_etcd_entry_activate_cb);
  gtk_widget_class_bind_template_child (widget_class, InspectorWindow, directories_list);
  gtk_widget_class_bind_template_child (widget_class, InspectorWindow, details);
  gtk_widget_class_bind_template_child (widget_class, InspectorWindow, row_menu_model);
  gtk_widget_class_bind_template_callback (widget_class, search_changed_cb);
  gtk_widget_class_bind_template_callback (widget_class, stop_search_cb);
  gtk_widget_class_bind_template_callback (widget_class, selection_changed_cb);
  gtk_widget_class_bind_template_callback (widget_class, format_counts_cb);
  _inspector_window_bind_cell_callbacks (widget_class);
  _inspector_window_install_actions (widget_class);
  _inspector_window_install_row_actions (widget_class);
}

static void
inspector_window_init (InspectorWindow *self)
{
  GtkDropTarget *drop;
  GtkEventController *keys;

  self->recursive_dirs = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  self->cancellable = g_cancellable_new ();
  self->settings = g_settings_new ("org.libfl.Inspector");
  self->model = fl_directory_model_new (NULL);
  self->now = fl_directory_model_get_now (self->model);

  gtk_widget_init_template (GTK_WIDGET (self));

  self->selected_signals = g_signal_group_new (FL_TYPE_ENTRY);
  g_signal_group_connect_swapped (self->selected_signals, "notify::snapshot",
                                  G_CALLBACK (selected_notify_snapshot_cb), self);
  self->model_signals = g_signal_group_new (FL_TYPE_DIRECTORY_MODEL);
  g_signal_group_connect (self->model_signals, "notify::loading",
                          G_CALLBACK (loading_notify_cb), self);
  g_signal_group_connect (self->model_signals, "entry-changed",
                          G_CALLBACK (entry_changed_cb), self);
  g_signal_group_connect_swapped (self->model_signals, "items-changed",
                                  G_CALLBACK (_inspector_window_update_page), self);
  /* The actions follow what they depend on: the selected entry (selection_changed_cb,
   * selected_signals), the orphans to clean and whether a work runs. */
  g_signal_group_connect_swapped (self->model_signals, "notify::n-orphans",
                                  G_CALLBACK (_inspector_window_update_actions), self);
  g_signal_connect (self, "notify::working", G_CALLBACK (_inspector_window_update_actions),
                    NULL);
  /* What the model could not read: a banner that stays while it is true, and the popover. */
  g_signal_group_connect_swapped (self->model_signals, "notify::problems",
                                  G_CALLBACK (_inspector_window_show_problems), self);
  g_signal_group_set_target (self->model_signals, self->model);
  g_signal_connect_swapped (self->sort_model, "items-changed", G_CALLBACK (shown_changed_cb),
                            self);
  g_signal_connect_swapped (self->sort_model, "items-changed",
                            G_CALLBACK (pending_show_rows_cb), self);

  gtk_search_entry_set_key_capture_widget (self->search_entry, GTK_WIDGET (self->column_view));

  /* Single keys act on the list only, never while typing in the search entry. */
  keys = gtk_shortcut_controller_new ();
  gtk_shortcut_controller_add_shortcut (GTK_SHORTCUT_CONTROLLER (keys),
    gtk_shortcut_new (gtk_keyval_trigger_new (GDK_KEY_Delete, 0),
                      gtk_named_action_new ("win.reclaim")));
  gtk_shortcut_controller_add_shortcut (GTK_SHORTCUT_CONTROLLER (keys),
    gtk_shortcut_new (gtk_keyval_trigger_new (GDK_KEY_Delete, GDK_SHIFT_MASK),
                      gtk_named_action_new ("win.remove-orphan")));
  /* Ctrl+C on a row copies its path, as in Files; in the details' text it copies the text. */
  gtk_shortcut_controller_add_shortcut (GTK_SHORTCUT_CONTROLLER (keys),
    gtk_shortcut_new (gtk_keyval_trigger_new (GDK_KEY_c, GDK_CONTROL_MASK),
                      gtk_named_action_new ("win.copy-path")));
  gtk_shortcut_controller_add_shortcut (GTK_SHORTCUT_CONTROLLER (keys),
    gtk_shortcut_new (gtk_alternative_trigger_new (gtk_keyval_trigger_new (GDK_KEY_Menu, 0),
                                                   gtk_keyval_trigger_new (GDK_KEY_F10,
                                                                           GDK_SHIFT_MASK)),
                      gtk_named_action_new ("win.row-menu")));
  gtk_widget_add_controller (GTK_WIDGET (self->column_view), keys);
  _inspector_window_setup_rows (self);
  _inspector_window_setup_top (self);
  g_signal_connect (self->kernel_view, "show-lock-file", G_CALLBACK (show_lock_file_cb), self);

  drop = gtk_drop_target_new (GDK_TYPE_FILE_LIST, GDK_ACTION_COPY);
  g_signal_connect (drop, "drop", G_CALLBACK (_inspector_window_drop_cb), self);
  gtk_widget_add_controller (GTK_WIDGET (self), GTK_EVENT_CONTROLLER (drop));

  g_settings_bind (self->settings, "problems-only", self, "problems-only", G_SETTINGS_BIND_DEFAULT);

  _inspector_window_setup_columns (self);
  _inspector_window_setup_notify (self);
  inspector_a11y_name_buttons (GTK_WIDGET (self));
  inspector_a11y_name_column_view (self->column_view, _("Lock files"));
  _inspector_window_rebuild_directories (self);
  _inspector_window_update_page (self);
  _inspector_window_update_actions (self);
}

InspectorWindow *
inspector_window_new (GtkApplication *application)
{
  return g_object_new (INSPECTOR_TYPE_WINDOW, "application", application, NULL);
}

FlDirectoryModel *
inspector_window_get_model (InspectorWindow *self)
{
  g_return_val_if_fail (INSPECTOR_IS_WINDOW (self), NULL);

  return self->model;
}

/* Test hooks */

gboolean
_inspector_window_select_path (InspectorWindow *self,
                               const char      *path)
{
  GListModel *rows = G_LIST_MODEL (self->sort_model);

  for (guint i = 0; i < g_list_model_get_n_items (rows); i++)
    {
      g_autoptr(FlEntry) entry = g_list_model_get_item (rows, i);

      if (g_str_equal (fl_entry_get_path (entry), path))
        {
          gtk_single_selection_set_selected (self->selection, i);
          return TRUE;
        }
    }
  return FALSE;
}

GtkWindow *
_inspector_window_get_dialog (InspectorWindow *self)
{
  return self->dialog;
}

const char *
_inspector_window_get_banner_text (InspectorWindow *self)
{
  if (!gtk_revealer_get_reveal_child (self->banner))
    return NULL;
  return gtk_label_get_text (self->banner_label);
}

GListModel *
_inspector_window_get_rows (InspectorWindow *self)
{
  return G_LIST_MODEL (self->sort_model);
}

void
_inspector_window_show_view (InspectorWindow *self,
                             const char      *view)
{
  gtk_stack_set_visible_child_name (self->views, view);
}

InspectorKernelView *
_inspector_window_get_kernel_view (InspectorWindow *self)
{
  return self->kernel_view;
}
