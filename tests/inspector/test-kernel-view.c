/* test-kernel-view.c: the Lock Inspector's Kernel Locks view, live, under Xvfb (issues 15, 34)
 *
 * Real processes hold a flock, a POSIX lock and a libfl lock in a temp folder; the view must
 * show each, the libfl holder once and as its lock file, and follow a release within its
 * once-a-second refresh, keeping the selected row. With a folder watched, the view keeps to
 * it, counts what it shows of all, searches, names a waiter's blocker and shows a holder's
 * lock file in the Lock Files view.
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

typedef struct
{
  InspectorKernelView *view;
  guint                n;
} CountWait;

static gboolean
rows_are (gpointer data)
{
  CountWait *wait = data;

  return g_list_model_get_n_items (inspector_kernel_view_get_rows (wait->view)) == wait->n;
}

static gboolean
waiter_shown (gpointer data)
{
  RowWait *wait = data;
  GListModel *rows = inspector_kernel_view_get_rows (wait->view);

  for (guint i = 0; i < g_list_model_get_n_items (rows); i++)
    {
      g_autoptr(FlKernelLockInfo) info = g_list_model_get_item (rows, i);

      if (g_strcmp0 (fl_kernel_lock_info_get_display_path (info), wait->path) == 0
          && fl_kernel_lock_info_get_blocked (info))
        return TRUE;
    }
  return FALSE;
}

static gboolean
view_is_files (gpointer data)
{
  InspectorWindow *window = data;
  FlEntry *selected = _inspector_window_get_selected (window);

  return g_strcmp0 (gtk_stack_get_visible_child_name (window->views), "files") == 0
         && selected != NULL;
}

/* A watched folder and another: the view keeps to the watched one (all on request), says how
 * many it shows of how many, finds a row by PID, says whom a waiter waits for, and shows a
 * libfl holder's lock file in the Lock Files view. */
static void
test_filter_count_blocker (void)
{
  g_autoptr(GSettings) settings = g_settings_new ("org.libfl.Inspector");
  g_autofree char *watched = g_dir_make_tmp ("kernel-view-XXXXXX", NULL);
  g_autofree char *other = g_dir_make_tmp ("kernel-view-XXXXXX", NULL);
  g_autofree char *watched_dir = g_canonicalize_filename (watched, NULL);
  g_autofree char *held = g_build_filename (watched_dir, "held", NULL);
  g_autofree char *outside = g_build_filename (other, "outside", NULL);
  g_autofree char *target = g_build_filename (watched_dir, "job", NULL);
  g_autofree char *lock = g_build_filename (watched_dir, "job.lock", NULL);
  FlTestLocker holder = fl_test_fork_locker (held, "flock", FALSE);
  FlTestLocker waiter = fl_test_fork_locker (held, "flock", TRUE);
  FlTestLocker stranger = fl_test_fork_locker (outside, "flock", FALSE);
  g_autoptr(FlTestProc) libfl_holder = fl_test_spawn_holder (target);
  InspectorWindow *window;
  InspectorKernelView *view;
  RowWait for_waiter, for_outside, outside_gone, for_lock;
  CountWait one;
  GListModel *rows;
  g_autoptr(FlKernelLockInfo) waiting = NULL;
  g_autofree char *waits_for = NULL;
  g_autofree char *holder_pid = g_strdup_printf ("%d", (int) holder.pid);
  g_autofree char *waiter_pid = g_strdup_printf ("%d", (int) waiter.pid);
  g_autofree char *count = NULL;

  g_settings_reset (settings, "directories");
  window = inspector_window_new (NULL);
  view = _inspector_window_get_kernel_view (window);
  rows = inspector_kernel_view_get_rows (view);
  for_waiter = (RowWait) { view, held, TRUE };
  for_outside = (RowWait) { view, outside, TRUE };
  outside_gone = (RowWait) { view, outside, FALSE };
  for_lock = (RowWait) { view, lock, TRUE };
  gtk_window_present (GTK_WINDOW (window));
  inspector_window_add_directory (window, watched_dir, FALSE, FALSE);
  _inspector_window_show_view (window, "kernel");

  /* Kept to the watched folder; all of them on request. */
  g_assert_true (fl_test_wait_until (waiter_shown, &for_waiter, 10000));
  g_assert_true (fl_test_wait_until (row_as_expected, &for_lock, 10000));
  g_assert_null (find_row (view, outside));
  inspector_kernel_view_set_watched_only (view, FALSE);
  g_assert_true (fl_test_wait_until (row_as_expected, &for_outside, 10000));
  inspector_kernel_view_set_watched_only (view, TRUE);
  g_assert_true (row_as_expected (&outside_gone));
  for (guint i = 0; i < g_list_model_get_n_items (rows); i++)
    {
      g_autoptr(FlKernelLockInfo) info = g_list_model_get_item (rows, i);

      g_assert_true (g_str_has_prefix (fl_kernel_lock_info_get_path (info), watched_dir));
    }

  /* "N of M locks": N the rows shown, M more (the other folder's lock at least). */
  count = g_strdup_printf ("%u of ", g_list_model_get_n_items (rows));
  g_assert_true (g_str_has_prefix (inspector_kernel_view_get_count_text (view), count));
  g_assert_true (g_str_has_suffix (inspector_kernel_view_get_count_text (view), " locks"));
  g_assert_cmpuint (g_ascii_strtoull (strstr (inspector_kernel_view_get_count_text (view), " of ")
                                      + 4, NULL, 10), >, g_list_model_get_n_items (rows));

  /* The waiter: whom it waits for, lslocks' BLOCKER. */
  for (guint i = 0; i < g_list_model_get_n_items (rows) && waiting == NULL; i++)
    {
      g_autoptr(FlKernelLockInfo) info = g_list_model_get_item (rows, i);

      if (fl_kernel_lock_info_get_blocked (info))
        waiting = g_steal_pointer (&info);
    }
  g_assert_nonnull (waiting);
  g_assert_cmpint (fl_kernel_lock_info_get_pid (waiting), ==, waiter.pid);
  waits_for = inspector_kernel_view_dup_waiting_for (waiting);
  g_assert_true (g_str_has_prefix (waits_for, holder_pid));

  /* A search by PID: that process's rows only. */
  gtk_search_entry_set_search_delay (inspector_kernel_view_get_search_entry (view), 0);
  gtk_editable_set_text (GTK_EDITABLE (inspector_kernel_view_get_search_entry (view)),
                         waiter_pid);
  one = (CountWait) { view, 1 };
  g_assert_true (fl_test_wait_until (rows_are, &one, 5000));
  gtk_editable_set_text (GTK_EDITABLE (inspector_kernel_view_get_search_entry (view)), "");

  /* Show Lock File: the libfl holder's lock, selected in the Lock Files view. */
  gtk_single_selection_set_selected (inspector_kernel_view_get_selection (view),
                                     position_of (view, find_row (view, lock)));
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (view), "kernel.show-lock-file", NULL));
  g_assert_true (fl_test_wait_until (view_is_files, window, 10000));
  g_assert_cmpstr (fl_entry_get_path (_inspector_window_get_selected (window)), ==, lock);

  ui_window_close (window);
  fl_test_holder_release (libfl_holder);
  fl_test_locker_release (&holder);
  fl_test_locker_release (&waiter);
  fl_test_locker_release (&stranger);
  fl_test_rm_rf (watched);
  fl_test_rm_rf (other);
  g_settings_reset (settings, "directories");
}

static gboolean
model_loaded (gpointer data)
{
  InspectorWindow *window = data;
  gboolean loading = TRUE;

  g_object_get (window->model, "loading", &loading, NULL);
  return window->roots != NULL && window->roots[0] != NULL && !loading;
}

static gboolean
banner_said (gpointer data)
{
  return _inspector_window_get_banner_text (data) != NULL;
}

/* "Show Lock File" for a lock whose row is not listed yet (/proc/locks can be ahead of the
 * folder's listing on a busy machine): the Lock Files view selects it when its row comes,
 * and the banner says nothing false in between; one that never comes is said to have gone
 * after a while; a lock outside the watched folders is said to be so at once. */
static void
test_show_before_row (void)
{
  g_autoptr(GSettings) settings = g_settings_new ("org.libfl.Inspector");
  g_autofree char *watched = g_dir_make_tmp ("kernel-view-XXXXXX", NULL);
  g_autofree char *watched_dir = g_canonicalize_filename (watched, NULL);
  g_autofree char *target = g_build_filename (watched_dir, "late", NULL);
  g_autofree char *lock = g_build_filename (watched_dir, "late.lock", NULL);
  g_autofree char *never = g_build_filename (watched_dir, "never.lock", NULL);
  g_autofree char *elsewhere = g_build_filename (g_get_tmp_dir (), "not-watched.lock", NULL);
  g_autoptr(FlTestProc) holder = NULL;
  InspectorWindow *window;
  InspectorKernelView *view;

  g_settings_reset (settings, "directories");
  window = inspector_window_new (NULL);
  view = _inspector_window_get_kernel_view (window);
  gtk_window_present (GTK_WINDOW (window));
  inspector_window_add_directory (window, watched_dir, FALSE, FALSE);
  g_assert_true (fl_test_wait_until (model_loaded, window, 10000));

  _inspector_window_show_view (window, "kernel");
  g_signal_emit_by_name (view, "show-lock-file", lock);
  g_assert_cmpstr (gtk_stack_get_visible_child_name (window->views), ==, "files");
  g_assert_null (_inspector_window_get_banner_text (window));
  g_assert_null (_inspector_window_get_selected (window));

  holder = fl_test_spawn_holder (target);
  g_assert_true (fl_test_wait_until (view_is_files, window, 10000));
  g_assert_cmpstr (fl_entry_get_path (_inspector_window_get_selected (window)), ==, lock);
  g_assert_null (_inspector_window_get_banner_text (window));

  /* A lock that never comes (it went away before the folder was read): said so once the
   * window has waited for it long enough, in words that do not say it is outside. */
  _inspector_window_show_view (window, "kernel");
  g_signal_emit_by_name (view, "show-lock-file", never);
  g_assert_null (_inspector_window_get_banner_text (window));
  g_assert_true (fl_test_wait_until (banner_said, window, 25000));
  g_assert_nonnull (strstr (_inspector_window_get_banner_text (window), "went away"));
  g_assert_cmpstr (fl_entry_get_path (_inspector_window_get_selected (window)), ==, lock);

  _inspector_window_show_view (window, "kernel");
  g_signal_emit_by_name (view, "show-lock-file", elsewhere);
  g_assert_nonnull (_inspector_window_get_banner_text (window));
  g_assert_nonnull (strstr (_inspector_window_get_banner_text (window), elsewhere));

  ui_window_close (window);
  fl_test_holder_release (holder);
  fl_test_rm_rf (watched);
  g_settings_reset (settings, "directories");
}

int
main (int   argc,
      char *argv[])
{
  if (!ui_test_init (&argc, &argv))
    return 0;

  g_test_add_func ("/ui/kernel-view/live", test_live);
  g_test_add_func ("/ui/kernel-view/filter-count-blocker", test_filter_count_blocker);
  g_test_add_func ("/ui/kernel-view/show-before-row", test_show_before_row);
  return g_test_run ();
}
