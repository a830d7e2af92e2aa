/* inspector-kernel-view.c: the kernel's own locks (flock, POSIX, OFD, leases), live
 *
 * What lslocks shows, from fl_list_kernel_locks(). Nothing notifies a change of the kernel's
 * lock table, so it is read again once a second, and only while the view is shown (mapped),
 * in a worker thread: finding holders' paths reads /proc of many processes (of every process
 * while an OFD lock's holder is unknown), which must not stall the window.
 * Each reading is merged into the rows in place, in the library's order: a lock that stays
 * keeps its row, so selection and focus survive; only what came or went changes.
 *
 * A libfl holder's kernel lock is on the file it created under a name that is gone by now; the
 * library matches it to its lock file, which is the path shown: a holder appears once, as its
 * lock file, never as an anonymous removed inode.
 *
 * On a busy desktop the kernel holds dozens of other programs' locks: the view shows those in
 * the watched folders (the window's "roots") unless the person asks for all, and a search by
 * path, PID or process narrows them further, with "N of M" said beside it. A waiting process
 * says whom it waits for, as lslocks' BLOCKER does: the holders of a granted lock on the same
 * file whose range overlaps the waiter's and whose mode conflicts with it, which is what the
 * kernel makes it wait for. A row's menu copies its path or shows its lock file in the Lock
 * Files view (the "show-lock-file" signal, which the window answers).
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <string.h>

#include <glib/gi18n.h>

#include "inspector-a11y.h"

#include "inspector-kernel-view.h"

#define REFRESH_INTERVAL_S 1

struct _InspectorKernelView
{
  GtkWidget           parent_instance;

  /* template children */
  GtkWidget          *content;
  GtkStack           *stack;
  GtkColumnView      *column_view;
  GtkSingleSelection *selection;
  GListStore         *store;
  GtkFilterListModel *filter_model;
  GtkLabel           *error_label;
  GtkSearchEntry     *search_entry;
  GtkToggleButton    *watched_button;
  GtkLabel           *count_label;
  GMenuModel         *row_menu_model;
  GtkWidget          *row_menu;

  char               *search_text;  /* casefolded; NULL: no search */
  char              **roots;        /* the watched folders */

  guint               refresh_id;
  GCancellable       *cancellable;  /* the reading in the worker thread, if one runs */
};

G_DEFINE_FINAL_TYPE (InspectorKernelView, inspector_kernel_view, GTK_TYPE_WIDGET)

enum
{
  SHOW_LOCK_FILE,
  N_SIGNALS
};

static guint signals[N_SIGNALS];

/* Why a waiter waits: set on each waiting lock of a reading before it is merged, so that a
 * change of blocker alone also changes the row. */
#define BLOCKER_KEY "inspector-blocker"

static gboolean
ranges_overlap (FlKernelLockInfo *a,
                FlKernelLockInfo *b)
{
  gint64 a_end = fl_kernel_lock_info_get_end (a), b_end = fl_kernel_lock_info_get_end (b);

  return (a_end < 0 || fl_kernel_lock_info_get_start (b) <= a_end)
         && (b_end < 0 || fl_kernel_lock_info_get_start (a) <= b_end);
}

/* The granted locks a waiter conflicts with: "1234 (flctl)", several joined by commas. */
static void
note_blockers (GPtrArray *locks)
{
  for (guint i = 0; i < locks->len; i++)
    {
      FlKernelLockInfo *waiter = locks->pdata[i];
      GString *blockers;

      if (!fl_kernel_lock_info_get_blocked (waiter))
        continue;
      blockers = g_string_new (NULL);
      for (guint j = 0; j < locks->len; j++)
        {
          FlKernelLockInfo *held = locks->pdata[j];
          const char *process = fl_kernel_lock_info_get_process_name (held);

          if (fl_kernel_lock_info_get_blocked (held)
              || fl_kernel_lock_info_get_device (held) != fl_kernel_lock_info_get_device (waiter)
              || fl_kernel_lock_info_get_inode (held) != fl_kernel_lock_info_get_inode (waiter)
              || !ranges_overlap (held, waiter)
              || (fl_kernel_lock_info_get_mode (held) != FL_KERNEL_LOCK_MODE_WRITE
                  && fl_kernel_lock_info_get_mode (waiter) != FL_KERNEL_LOCK_MODE_WRITE))
            continue;
          if (blockers->len > 0)
            g_string_append (blockers, ", ");
          if (fl_kernel_lock_info_get_pid (held) <= 0)
            g_string_append (blockers, _("Unknown"));
          else if (process != NULL)
            g_string_append_printf (blockers, "%d (%s)", fl_kernel_lock_info_get_pid (held),
                                    process);
          else
            g_string_append_printf (blockers, "%d", fl_kernel_lock_info_get_pid (held));
        }
      g_object_set_data_full (G_OBJECT (waiter), BLOCKER_KEY, g_string_free (blockers, FALSE),
                              g_free);
    }
}

static gboolean
same_row (FlKernelLockInfo *old,
          FlKernelLockInfo *fresh)
{
  return fl_kernel_lock_info_equal (old, fresh)
         && g_strcmp0 (g_object_get_data (G_OBJECT (old), BLOCKER_KEY),
                       g_object_get_data (G_OBJECT (fresh), BLOCKER_KEY)) == 0;
}

static gboolean
under_root (const char         *path,
            const char * const *roots)
{
  for (guint i = 0; path != NULL && roots != NULL && roots[i] != NULL; i++)
    {
      size_t len = strlen (roots[i]);

      if (strncmp (path, roots[i], len) == 0 && (path[len] == '/' || path[len] == '\0'))
        return TRUE;
    }
  return FALSE;
}

static gboolean
contains_folded (const char *text,
                 const char *needle)
{
  g_autofree char *folded = text != NULL ? g_utf8_casefold (text, -1) : NULL;

  return folded != NULL && strstr (folded, needle) != NULL;
}

static gboolean
match_cb (gpointer item,
          gpointer user_data)
{
  InspectorKernelView *self = user_data;
  FlKernelLockInfo *info = item;
  const char *path = fl_kernel_lock_info_get_path (info);
  const char *lock_file = fl_kernel_lock_info_get_lock_file (info);
  char pid[16];

  /* With no folder watched there is nothing to keep the rows to. */
  if (gtk_toggle_button_get_active (self->watched_button)
      && self->roots != NULL && self->roots[0] != NULL
      && !under_root (path, (const char * const *) self->roots)
      && !under_root (lock_file, (const char * const *) self->roots))
    return FALSE;
  if (self->search_text == NULL)
    return TRUE;
  g_snprintf (pid, sizeof pid, "%d", fl_kernel_lock_info_get_pid (info));
  return g_str_equal (pid, self->search_text)
         || contains_folded (fl_kernel_lock_info_get_display_path (info), self->search_text)
         || contains_folded (lock_file, self->search_text)
         || contains_folded (fl_kernel_lock_info_get_process_name (info), self->search_text);
}

/* "3 of 57 locks" while rows are hidden, else "57 locks". */
static void
update_count (InspectorKernelView *self)
{
  guint shown = g_list_model_get_n_items (G_LIST_MODEL (self->filter_model));
  guint total = g_list_model_get_n_items (G_LIST_MODEL (self->store));
  g_autofree char *text = NULL;

  if (shown == total)
    text = g_strdup_printf (g_dngettext (GETTEXT_PACKAGE, "%u lock", "%u locks", total), total);
  else
    /* Translators: kernel locks shown of all the kernel's, while a filter hides some. */
    text = g_strdup_printf (g_dngettext (GETTEXT_PACKAGE, "%u of %u lock", "%u of %u locks",
                                         total), shown, total);
  gtk_label_set_text (self->count_label, text);
}

static void
criteria_changed_cb (InspectorKernelView *self)
{
  GtkFilter *filter = gtk_filter_list_model_get_filter (self->filter_model);

  gtk_filter_changed (filter, GTK_FILTER_CHANGE_DIFFERENT);
}

static void
search_changed_cb (GtkSearchEntry      *entry,
                   InspectorKernelView *self)
{
  const char *text = gtk_editable_get_text (GTK_EDITABLE (entry));

  g_clear_pointer (&self->search_text, g_free);
  if (text[0] != '\0')
    self->search_text = g_utf8_casefold (text, -1);
  criteria_changed_cb (self);
}

void
inspector_kernel_view_set_roots (InspectorKernelView *self,
                                 const char * const  *roots)
{
  g_return_if_fail (INSPECTOR_IS_KERNEL_VIEW (self));

  g_strfreev (self->roots);
  self->roots = g_strdupv ((char **) roots);
  gtk_widget_set_sensitive (GTK_WIDGET (self->watched_button),
                            self->roots != NULL && self->roots[0] != NULL);
  criteria_changed_cb (self);
}

void
inspector_kernel_view_set_watched_only (InspectorKernelView *self,
                                        gboolean             watched_only)
{
  g_return_if_fail (INSPECTOR_IS_KERNEL_VIEW (self));
  gtk_toggle_button_set_active (self->watched_button, watched_only);
}

const char *
inspector_kernel_view_get_count_text (InspectorKernelView *self)
{
  g_return_val_if_fail (INSPECTOR_IS_KERNEL_VIEW (self), NULL);
  return gtk_label_get_text (self->count_label);
}

GtkSearchEntry *
inspector_kernel_view_get_search_entry (InspectorKernelView *self)
{
  g_return_val_if_fail (INSPECTOR_IS_KERNEL_VIEW (self), NULL);
  return self->search_entry;
}

GtkWidget *
inspector_kernel_view_get_row_menu (InspectorKernelView *self)
{
  g_return_val_if_fail (INSPECTOR_IS_KERNEL_VIEW (self), NULL);
  return self->row_menu;
}

/* Merges @locks (in fl_kernel_lock_info_compare() order, as the store is) into the store. */
static void
merge_rows (InspectorKernelView *self,
            GPtrArray           *locks)
{
  guint pos = 0, k = 0;

  while (pos < g_list_model_get_n_items (G_LIST_MODEL (self->store)) || k < locks->len)
    {
      g_autoptr(FlKernelLockInfo) old = g_list_model_get_item (G_LIST_MODEL (self->store), pos);
      FlKernelLockInfo *fresh = k < locks->len ? g_ptr_array_index (locks, k) : NULL;
      int cmp = old == NULL ? 1 : fresh == NULL ? -1 : fl_kernel_lock_info_compare (old, fresh);

      if (cmp < 0)
        {
          g_list_store_remove (self->store, pos);
          continue;
        }
      if (cmp > 0)
        g_list_store_insert (self->store, pos, fresh);
      else if (!same_row (old, fresh))
        g_list_store_splice (self->store, pos, 1, (gpointer *) &fresh, 1);
      pos++;
      k++;
    }
}

static void
show_locks (InspectorKernelView *self,
            GPtrArray           *locks,
            const GError        *error)
{
  if (locks == NULL)
    {
      g_list_store_remove_all (self->store);
      if (g_error_matches (error, FL_ERROR, FL_ERROR_NOT_SUPPORTED))
        {
          gtk_stack_set_visible_child_name (self->stack, "unsupported");
          return;
        }
      gtk_label_set_text (self->error_label, error->message);
      gtk_stack_set_visible_child_name (self->stack, "error");
      return;
    }
  note_blockers (locks);
  merge_rows (self, locks);
  gtk_stack_set_visible_child_name (self->stack, locks->len > 0 ? "list" : "empty");
}

/* Now, in this thread: F5, and the tests. A reading under way in the worker is dropped. */
void
inspector_kernel_view_refresh (InspectorKernelView *self)
{
  g_autoptr(GPtrArray) locks = NULL;
  g_autoptr(GError) error = NULL;

  g_return_if_fail (INSPECTOR_IS_KERNEL_VIEW (self));

  g_cancellable_cancel (self->cancellable);
  g_clear_object (&self->cancellable);
  locks = fl_list_kernel_locks (&error);
  show_locks (self, locks, error);
}

static void
list_thread (GTask        *task,
             gpointer      source,
             gpointer      data,
             GCancellable *cancellable)
{
  GError *error = NULL;
  GPtrArray *locks = fl_list_kernel_locks (&error);

  if (locks != NULL)
    g_task_return_pointer (task, locks, (GDestroyNotify) g_ptr_array_unref);
  else
    g_task_return_error (task, error);
}

static void
listed_cb (GObject      *source,
           GAsyncResult *result,
           gpointer      user_data)
{
  InspectorKernelView *self = INSPECTOR_KERNEL_VIEW (source);
  GCancellable *cancellable = g_task_get_cancellable (G_TASK (result));
  g_autoptr(GPtrArray) locks = NULL;
  g_autoptr(GError) error = NULL;

  locks = g_task_propagate_pointer (G_TASK (result), &error);
  /* Dropped: the view was disposed, or a reading of its own came first. */
  if (g_cancellable_is_cancelled (cancellable))
    return;
  g_clear_object (&self->cancellable);
  show_locks (self, locks, error);
}

static gboolean
refresh_cb (gpointer user_data)
{
  InspectorKernelView *self = user_data;
  g_autoptr(GTask) task = NULL;

  /* A slow reading is not piled up behind: the next tick asks again. */
  if (self->cancellable != NULL)
    return G_SOURCE_CONTINUE;
  self->cancellable = g_cancellable_new ();
  task = g_task_new (self, self->cancellable, listed_cb, NULL);
  g_task_set_source_tag (task, refresh_cb);
  g_task_run_in_thread (task, list_thread);
  return G_SOURCE_CONTINUE;
}

static void
inspector_kernel_view_map (GtkWidget *widget)
{
  InspectorKernelView *self = INSPECTOR_KERNEL_VIEW (widget);

  GTK_WIDGET_CLASS (inspector_kernel_view_parent_class)->map (widget);
  refresh_cb (self);
  if (self->refresh_id == 0)
    self->refresh_id = g_timeout_add_seconds (REFRESH_INTERVAL_S, refresh_cb, self);
}

static void
inspector_kernel_view_unmap (GtkWidget *widget)
{
  InspectorKernelView *self = INSPECTOR_KERNEL_VIEW (widget);

  g_clear_handle_id (&self->refresh_id, g_source_remove);
  g_cancellable_cancel (self->cancellable);
  g_clear_object (&self->cancellable);
  GTK_WIDGET_CLASS (inspector_kernel_view_parent_class)->unmap (widget);
}

/* The cells' words (the templates in inspector-kernel-view.ui name these). */

static char *
type_label_cb (gpointer         unused,
               FlKernelLockType type)
{
  return g_ascii_strup (fl_kernel_lock_type_to_string (type), -1);
}

static char *
mode_label_cb (gpointer         unused,
               FlKernelLockMode mode,
               gboolean         blocked)
{
  const char *label = fl_kernel_lock_mode_get_label (mode);

  /* Translators: a process waits for a kernel lock it asked for; %s is its mode. */
  return blocked ? g_strdup_printf (_("%s, waiting"), label) : g_strdup (label);
}

static char *
holder_label_cb (gpointer    unused,
                 int         pid,
                 const char *process)
{
  if (pid <= 0)
    return g_strdup (_("Unknown"));
  if (process == NULL)
    return g_strdup_printf ("%d", pid);
  return g_strdup_printf ("%d (%s)", pid, process);
}

static char *
path_label_cb (gpointer    unused,
               const char *path)
{
  /* Translators: the holder's open files do not show which file it locked. */
  return g_strdup (path != NULL ? path : _("Unknown file"));
}

static char *
lock_file_label_cb (gpointer    unused,
                    const char *lock_file)
{
  return lock_file != NULL ? g_path_get_basename (lock_file) : g_strdup ("—");
}

static char *
blocker_label_cb (gpointer          unused,
                  FlKernelLockInfo *info)
{
  return inspector_kernel_view_dup_waiting_for (info);
}

char *
inspector_kernel_view_dup_waiting_for (FlKernelLockInfo *info)
{
  const char *blockers = info != NULL ? g_object_get_data (G_OBJECT (info), BLOCKER_KEY) : NULL;

  if (info == NULL)
    return NULL;
  if (!fl_kernel_lock_info_get_blocked (info))
    return g_strdup ("—");
  /* Translators: a waiting process whose blocker is no longer in the kernel's table. */
  return g_strdup (blockers != NULL && blockers[0] != '\0' ? blockers : _("Unknown"));
}

/* The row menu's actions */

static FlKernelLockInfo *
selected_info (InspectorKernelView *self)
{
  return gtk_single_selection_get_selected_item (self->selection);
}

static void
copy_path_action (GtkWidget  *widget,
                  const char *action_name,
                  GVariant   *parameter)
{
  FlKernelLockInfo *info = selected_info (INSPECTOR_KERNEL_VIEW (widget));
  const char *path = info != NULL ? fl_kernel_lock_info_get_display_path (info) : NULL;

  if (path != NULL)
    gdk_clipboard_set_text (gtk_widget_get_clipboard (widget), path);
}

static void
show_lock_file_action (GtkWidget  *widget,
                       const char *action_name,
                       GVariant   *parameter)
{
  FlKernelLockInfo *info = selected_info (INSPECTOR_KERNEL_VIEW (widget));
  const char *lock_file = info != NULL ? fl_kernel_lock_info_get_lock_file (info) : NULL;

  if (lock_file != NULL)
    g_signal_emit (widget, signals[SHOW_LOCK_FILE], 0, lock_file);
}

static void
update_actions (InspectorKernelView *self)
{
  FlKernelLockInfo *info = selected_info (self);

  gtk_widget_action_set_enabled (GTK_WIDGET (self), "kernel.copy-path",
                                 info != NULL
                                 && fl_kernel_lock_info_get_display_path (info) != NULL);
  gtk_widget_action_set_enabled (GTK_WIDGET (self), "kernel.show-lock-file",
                                 info != NULL && fl_kernel_lock_info_get_lock_file (info) != NULL);
}

static void
popup_row_menu (InspectorKernelView *self,
                double               x,
                double               y)
{
  GdkRectangle at = { (int) x, (int) y, 1, 1 };

  update_actions (self);
  gtk_popover_set_pointing_to (GTK_POPOVER (self->row_menu), &at);
  gtk_popover_popup (GTK_POPOVER (self->row_menu));
}

/* A right click selects the row under the pointer, as in the Lock Files view. */
static void
secondary_pressed_cb (GtkGestureClick     *gesture,
                      int                  n_press,
                      double               x,
                      double               y,
                      InspectorKernelView *self)
{
  GtkWidget *picked = gtk_widget_pick (GTK_WIDGET (self->column_view), x, y, GTK_PICK_DEFAULT);
  GListModel *rows = G_LIST_MODEL (self->selection);

  /* The picked row's item is found by its label's text being the row's: rows hold no
   * position in 4.8; the path cell's tooltip is the row's full path. */
  for (; picked != NULL && picked != GTK_WIDGET (self->column_view);
       picked = gtk_widget_get_parent (picked))
    {
      const char *tip = gtk_widget_get_tooltip_text (picked);

      for (guint i = 0; tip != NULL && i < g_list_model_get_n_items (rows); i++)
        {
          g_autoptr(FlKernelLockInfo) info = g_list_model_get_item (rows, i);

          if (g_strcmp0 (fl_kernel_lock_info_get_path (info), tip) == 0)
            {
              gtk_single_selection_set_selected (self->selection, i);
              break;
            }
        }
    }
  if (selected_info (self) == NULL)
    return;
  gtk_gesture_set_state (GTK_GESTURE (gesture), GTK_EVENT_SEQUENCE_CLAIMED);
  popup_row_menu (self, x, y);
}

/* The Menu key or Shift+F10. */
static void
row_menu_action (GtkWidget  *widget,
                 const char *action_name,
                 GVariant   *parameter)
{
  InspectorKernelView *self = INSPECTOR_KERNEL_VIEW (widget);

  if (selected_info (self) != NULL)
    popup_row_menu (self, 24, 24);
}

static void
inspector_kernel_view_dispose (GObject *object)
{
  InspectorKernelView *self = INSPECTOR_KERNEL_VIEW (object);

  g_clear_pointer (&self->row_menu, gtk_widget_unparent);
  g_clear_pointer (&self->search_text, g_free);
  g_clear_pointer (&self->roots, g_strfreev);

  g_clear_handle_id (&self->refresh_id, g_source_remove);
  g_cancellable_cancel (self->cancellable);
  g_clear_object (&self->cancellable);
  gtk_widget_dispose_template (GTK_WIDGET (self), INSPECTOR_TYPE_KERNEL_VIEW);
  /* The box around the search bar and the stack, which has no name in the template. */
  g_clear_pointer (&self->content, gtk_widget_unparent);
  G_OBJECT_CLASS (inspector_kernel_view_parent_class)->dispose (object);
}

static void
inspector_kernel_view_class_init (InspectorKernelViewClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->dispose = inspector_kernel_view_dispose;
  widget_class->map = inspector_kernel_view_map;
  widget_class->unmap = inspector_kernel_view_unmap;

  g_type_ensure (FL_TYPE_KERNEL_LOCK_INFO);
  gtk_widget_class_set_template_from_resource (widget_class,
                                               "/org/libfl/Inspector/inspector-kernel-view.ui");
  gtk_widget_class_set_layout_manager_type (widget_class, GTK_TYPE_BIN_LAYOUT);
  gtk_widget_class_bind_template_child (widget_class, InspectorKernelView, content);
  gtk_widget_class_bind_template_child (widget_class, InspectorKernelView, stack);
  gtk_widget_class_bind_template_child (widget_class, InspectorKernelView, column_view);
  gtk_widget_class_bind_template_child (widget_class, InspectorKernelView, selection);
  gtk_widget_class_bind_template_child (widget_class, InspectorKernelView, store);
  gtk_widget_class_bind_template_child (widget_class, InspectorKernelView, error_label);
  gtk_widget_class_bind_template_child (widget_class, InspectorKernelView, filter_model);
  gtk_widget_class_bind_template_child (widget_class, InspectorKernelView, search_entry);
  gtk_widget_class_bind_template_child (widget_class, InspectorKernelView, watched_button);
  gtk_widget_class_bind_template_child (widget_class, InspectorKernelView, count_label);
  gtk_widget_class_bind_template_child (widget_class, InspectorKernelView, row_menu_model);
  gtk_widget_class_bind_template_callback (widget_class, search_changed_cb);
  gtk_widget_class_bind_template_callback (widget_class, criteria_changed_cb);
  gtk_widget_class_bind_template_callback (widget_class, blocker_label_cb);

  gtk_widget_class_install_action (widget_class, "kernel.copy-path", NULL, copy_path_action);
  gtk_widget_class_install_action (widget_class, "kernel.show-lock-file", NULL,
                                   show_lock_file_action);
  gtk_widget_class_install_action (widget_class, "kernel.row-menu", NULL, row_menu_action);
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_Menu, 0, "kernel.row-menu", NULL);
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_F10, GDK_SHIFT_MASK,
                                       "kernel.row-menu", NULL);
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_c, GDK_CONTROL_MASK,
                                       "kernel.copy-path", NULL);

  /* The lock file of the selected row, which the window shows in the Lock Files view. */
  signals[SHOW_LOCK_FILE] =
    g_signal_new ("show-lock-file", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0, NULL, NULL,
                  NULL, G_TYPE_NONE, 1, G_TYPE_STRING);
  gtk_widget_class_bind_template_callback (widget_class, type_label_cb);
  gtk_widget_class_bind_template_callback (widget_class, mode_label_cb);
  gtk_widget_class_bind_template_callback (widget_class, holder_label_cb);
  gtk_widget_class_bind_template_callback (widget_class, path_label_cb);
  gtk_widget_class_bind_template_callback (widget_class, lock_file_label_cb);
}

static void
inspector_kernel_view_init (InspectorKernelView *self)
{
  GtkGesture *click = gtk_gesture_click_new ();
  g_autoptr(GtkCustomFilter) filter = gtk_custom_filter_new (match_cb, self, NULL);

  gtk_widget_init_template (GTK_WIDGET (self));
  gtk_filter_list_model_set_filter (self->filter_model, GTK_FILTER (filter));
  g_signal_connect_swapped (self->filter_model, "items-changed", G_CALLBACK (update_count), self);
  g_signal_connect_swapped (self->selection, "notify::selected-item", G_CALLBACK (update_actions),
                            self);
  update_count (self);
  update_actions (self);
  gtk_widget_set_sensitive (GTK_WIDGET (self->watched_button), FALSE);

  gtk_gesture_single_set_button (GTK_GESTURE_SINGLE (click), GDK_BUTTON_SECONDARY);
  g_signal_connect (click, "pressed", G_CALLBACK (secondary_pressed_cb), self);
  gtk_widget_add_controller (GTK_WIDGET (self->column_view), GTK_EVENT_CONTROLLER (click));
  self->row_menu = gtk_popover_menu_new_from_model (self->row_menu_model);
  gtk_popover_set_has_arrow (GTK_POPOVER (self->row_menu), FALSE);
  gtk_widget_set_halign (self->row_menu, GTK_ALIGN_START);
  gtk_widget_set_parent (self->row_menu, GTK_WIDGET (self->column_view));
  inspector_a11y_name_column_view (self->column_view, _("Kernel locks"));
}

GListModel *
inspector_kernel_view_get_rows (InspectorKernelView *self)
{
  g_return_val_if_fail (INSPECTOR_IS_KERNEL_VIEW (self), NULL);
  return G_LIST_MODEL (self->selection);
}

const char *
inspector_kernel_view_get_page (InspectorKernelView *self)
{
  g_return_val_if_fail (INSPECTOR_IS_KERNEL_VIEW (self), NULL);
  return gtk_stack_get_visible_child_name (self->stack);
}

GtkSingleSelection *
inspector_kernel_view_get_selection (InspectorKernelView *self)
{
  g_return_val_if_fail (INSPECTOR_IS_KERNEL_VIEW (self), NULL);
  return self->selection;
}
