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
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <glib/gi18n.h>

#include "inspector-kernel-view.h"

#define REFRESH_INTERVAL_S 1

struct _InspectorKernelView
{
  GtkWidget           parent_instance;

  /* template children */
  GtkStack           *stack;
  GtkColumnView      *column_view;
  GtkSingleSelection *selection;
  GListStore         *store;
  GtkLabel           *error_label;

  guint               refresh_id;
  GCancellable       *cancellable;  /* the reading in the worker thread, if one runs */
};

G_DEFINE_FINAL_TYPE (InspectorKernelView, inspector_kernel_view, GTK_TYPE_WIDGET)

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
      else if (!fl_kernel_lock_info_equal (old, fresh))
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

static void
inspector_kernel_view_dispose (GObject *object)
{
  InspectorKernelView *self = INSPECTOR_KERNEL_VIEW (object);

  g_clear_handle_id (&self->refresh_id, g_source_remove);
  g_cancellable_cancel (self->cancellable);
  g_clear_object (&self->cancellable);
  gtk_widget_dispose_template (GTK_WIDGET (self), INSPECTOR_TYPE_KERNEL_VIEW);
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
  gtk_widget_class_bind_template_child (widget_class, InspectorKernelView, stack);
  gtk_widget_class_bind_template_child (widget_class, InspectorKernelView, column_view);
  gtk_widget_class_bind_template_child (widget_class, InspectorKernelView, selection);
  gtk_widget_class_bind_template_child (widget_class, InspectorKernelView, store);
  gtk_widget_class_bind_template_child (widget_class, InspectorKernelView, error_label);
  gtk_widget_class_bind_template_callback (widget_class, type_label_cb);
  gtk_widget_class_bind_template_callback (widget_class, mode_label_cb);
  gtk_widget_class_bind_template_callback (widget_class, holder_label_cb);
  gtk_widget_class_bind_template_callback (widget_class, path_label_cb);
  gtk_widget_class_bind_template_callback (widget_class, lock_file_label_cb);
}

static void
inspector_kernel_view_init (InspectorKernelView *self)
{
  gtk_widget_init_template (GTK_WIDGET (self));
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
