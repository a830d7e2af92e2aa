/* test-kernel-view.c: the Lock Inspector's Kernel Locks view, live, under Xvfb (issue 15)
 *
 * Real processes hold a flock, a POSIX lock and a libfl lock in a temp folder; the view must
 * show each, the libfl holder once and as its lock file, and follow a release within its
 * once-a-second refresh, keeping the selected row.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <string.h>

#include "ui-test-util.h"

typedef struct
{
  InspectorKernelView *view;
  const char          *path;   /* the path a row shows */
  gboolean             shown;  /* wait until it is (or is not) */
} RowWait;

/* The row showing @path, borrowed from the view's model (which holds it); NULL if none. */
static FlKernelLockInfo *
find_row (InspectorKernelView *view,
          const char          *path)
{
  GListModel *rows = inspector_kernel_view_get_rows (view);

  for (guint i = 0; i < g_list_model_get_n_items (rows); i++)
    {
      g_autoptr(FlKernelLockInfo) info = g_list_model_get_item (rows, i);

      if (g_strcmp0 (fl_kernel_lock_info_get_display_path (info), path) == 0)
        return info;
    }
  return NULL;
}

static gboolean
row_as_expected (gpointer data)
{
  RowWait *wait = data;

  return (find_row (wait->view, wait->path) != NULL) == wait->shown;
}

static gboolean
label_shown (gpointer data)
{
  RowWait *wait = data;
  g_autoptr(GPtrArray) labels = g_ptr_array_new ();

  ui_collect_widgets (GTK_WIDGET (wait->view), GTK_TYPE_LABEL, labels);
  for (guint i = 0; i < labels->len; i++)
    if (gtk_widget_get_mapped (labels->pdata[i])
        && g_strcmp0 (gtk_label_get_text (labels->pdata[i]), wait->path) == 0)
      return TRUE;
  return FALSE;
}

static guint
position_of (InspectorKernelView *view,
             FlKernelLockInfo    *row)
{
  GListModel *rows = inspector_kernel_view_get_rows (view);

  for (guint i = 0; i < g_list_model_get_n_items (rows); i++)
    {
      g_autoptr(FlKernelLockInfo) info = g_list_model_get_item (rows, i);

      if (info == row)
        return i;
    }
  g_assert_not_reached ();
}

static void
test_live (void)
{
  g_autofree char *dir = g_dir_make_tmp ("kernel-view-XXXXXX", NULL);
  g_autofree char *plain = g_build_filename (dir, "plain", NULL);
  g_autofree char *posix = g_build_filename (dir, "posix", NULL);
  g_autofree char *target = g_build_filename (dir, "job", NULL);
  g_autofree char *lock = g_build_filename (dir, "job.lock", NULL);
  FlTestLocker flocker = fl_test_fork_locker (plain, "flock", FALSE);
  FlTestLocker posixer = fl_test_fork_locker (posix, "posix", FALSE);
  g_autoptr(FlTestProc) holder = fl_test_spawn_holder (target);
  InspectorWindow *window = inspector_window_new (NULL);
  InspectorKernelView *view = _inspector_window_get_kernel_view (window);
  RowWait for_lock = { view, lock, TRUE };
  RowWait for_posix = { view, posix, TRUE };
  RowWait plain_gone = { view, plain, FALSE };
  RowWait for_plain = { view, plain, TRUE };
  GListModel *rows = inspector_kernel_view_get_rows (view);
  FlKernelLockInfo *libfl_row, *posix_row;
  guint on_inode = 0;

  g_assert_nonnull (dir);
  gtk_window_present (GTK_WINDOW (window));
  _inspector_window_show_view (window, "kernel");

  g_assert_true (fl_test_wait_until (row_as_expected, &for_lock, 10000));
  g_assert_true (fl_test_wait_until (row_as_expected, &for_posix, 10000));
  g_assert_true (fl_test_wait_until (row_as_expected, &for_plain, 10000));
  g_assert_cmpstr (inspector_kernel_view_get_page (view), ==, "list");

  /* The libfl holder: once, as its lock file, not as the removed name it locked it under. */
  libfl_row = find_row (view, lock);
  g_assert_cmpstr (fl_kernel_lock_info_get_lock_file (libfl_row), ==, lock);
  g_assert_cmpint (fl_kernel_lock_info_get_pid (libfl_row), ==, holder->pid);
  for (guint i = 0; i < g_list_model_get_n_items (rows); i++)
    {
      g_autoptr(FlKernelLockInfo) info = g_list_model_get_item (rows, i);

      on_inode += fl_kernel_lock_info_get_inode (info) == fl_kernel_lock_info_get_inode (libfl_row)
                  && fl_kernel_lock_info_get_device (info) == fl_kernel_lock_info_get_device (libfl_row);
    }
  g_assert_cmpuint (on_inode, ==, 1);
  g_assert_true (fl_test_wait_until (label_shown, &for_lock, 10000));

  posix_row = find_row (view, posix);
  g_assert_cmpint (fl_kernel_lock_info_get_lock_type (posix_row), ==, FL_KERNEL_LOCK_TYPE_POSIX);
  g_assert_cmpint (fl_kernel_lock_info_get_pid (posix_row), ==, posixer.pid);
  gtk_single_selection_set_selected (inspector_kernel_view_get_selection (view),
                                     position_of (view, posix_row));

  /* Released: the row goes at the next refresh, the others keep theirs, selection included. */
  fl_test_locker_release (&flocker);
  g_assert_true (fl_test_wait_until (row_as_expected, &plain_gone, 10000));
  g_assert_true (find_row (view, posix) == posix_row);
  g_assert_true (gtk_single_selection_get_selected_item (inspector_kernel_view_get_selection (view))
                 == (gpointer) posix_row);

  /* F5 reads the table at once: no main loop iteration (so no timer) in between. */
  flocker = fl_test_fork_locker (plain, "flock", FALSE);
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (window), "win.refresh", NULL));
  g_assert_nonnull (find_row (view, plain));

  ui_window_close (window);
  fl_test_holder_release (holder);
  fl_test_locker_release (&flocker);
  fl_test_locker_release (&posixer);
  fl_test_rm_rf (dir);
}

int
main (int   argc,
      char *argv[])
{
  if (!ui_test_init (&argc, &argv))
    return 0;

  g_test_add_func ("/ui/kernel-view/live", test_live);
  return g_test_run ();
}
