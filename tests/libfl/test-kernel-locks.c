/* test-kernel-locks.c: fl_list_kernel_locks(), every kernel lock of the system (issue 15)
 *
 * Real processes take flock, POSIX and OFD locks and a libfl lock; the listing must find each
 * with its type, mode, holder and path, the libfl one as its lock file although the name its
 * holder created the file under is gone, and forget each once it is let go.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include <libfl/fl.h>

#include <string.h>
#include <glib/gstdio.h>

#include "fl-test-util.h"

#ifdef __linux__
# include <fcntl.h>
# include <signal.h>
# include <sys/file.h>
# include <sys/prctl.h>
# include <sys/wait.h>

# include <unistd.h>

/* The one lock on @path's file held (or waited for, @blocked) by @pid, asserting it is only
 * one; NULL when there is none. */
static FlKernelLockInfo *
find_lock (GPtrArray  *locks,
           const char *path,
           int         pid,
           gboolean    blocked)
{
  FlKernelLockInfo *found = NULL;

  for (guint i = 0; i < locks->len; i++)
    {
      FlKernelLockInfo *info = g_ptr_array_index (locks, i);

      if (g_strcmp0 (fl_kernel_lock_info_get_display_path (info), path) != 0
          || fl_kernel_lock_info_get_pid (info) != pid
          || fl_kernel_lock_info_get_blocked (info) != blocked)
        continue;
      g_assert_null (found);
      found = info;
    }
  return found;
}

static GPtrArray *
list_locks (void)
{
  g_autoptr(GError) error = NULL;
  GPtrArray *locks = fl_list_kernel_locks (&error);

  g_assert_no_error (error);
  g_assert_nonnull (locks);
  return locks;
}

typedef struct
{
  const char *path;
  int         pid;
  gboolean    blocked;
  gboolean    listed;
} Expect;

/* Whether the lock is listed, or not, as @data expects. */
static gboolean
listed_as_expected_cb (gpointer data)
{
  Expect *expect = data;
  g_autoptr(GPtrArray) locks = list_locks ();

  return (find_lock (locks, expect->path, expect->pid, expect->blocked) != NULL) == expect->listed;
}

static void
assert_lock (GPtrArray        *locks,
             const char       *path,
             int               pid,
             FlKernelLockType  type,
             FlKernelLockMode  mode,
             gint64            end)
{
  FlKernelLockInfo *info = find_lock (locks, path, pid, FALSE);

  if (info == NULL)
    g_error ("no %s lock of PID %d on %s listed", fl_kernel_lock_type_to_string (type), pid, path);
  g_assert_cmpstr (fl_kernel_lock_info_get_path (info), ==, path);
  g_assert_cmpint (fl_kernel_lock_info_get_lock_type (info), ==, type);
  g_assert_cmpint (fl_kernel_lock_info_get_mode (info), ==, mode);
  g_assert_cmpint (fl_kernel_lock_info_get_start (info), ==, 0);
  g_assert_cmpint (fl_kernel_lock_info_get_end (info), ==, end);
  g_assert_null (fl_kernel_lock_info_get_lock_file (info));
  g_assert_nonnull (fl_kernel_lock_info_get_process_name (info));
}

static void
test_types (FlTestDir    *fx,
            gconstpointer data)
{
  g_autofree char *flock_path = g_build_filename (fx->dir, "flocked", NULL);
  g_autofree char *posix_path = g_build_filename (fx->dir, "posix", NULL);
  g_autofree char *ofd_path = g_build_filename (fx->dir, "ofd", NULL);
  FlTestLocker flocker = fl_test_fork_locker (flock_path, "flock", FALSE);
  FlTestLocker posix = fl_test_fork_locker (posix_path, "posix", FALSE);
  FlTestLocker ofd = fl_test_fork_locker (ofd_path, "ofd", FALSE);
  FlTestLocker waiter = fl_test_fork_locker (flock_path, "flock", TRUE);
  g_autoptr(GPtrArray) locks = NULL;
  Expect waiting = { flock_path, waiter.pid, TRUE, TRUE };
  Expect released = { flock_path, flocker.pid, FALSE, FALSE };

  locks = list_locks ();
  assert_lock (locks, flock_path, flocker.pid, FL_KERNEL_LOCK_TYPE_FLOCK,
               FL_KERNEL_LOCK_MODE_WRITE, -1);
  assert_lock (locks, posix_path, posix.pid, FL_KERNEL_LOCK_TYPE_POSIX,
               FL_KERNEL_LOCK_MODE_READ, 9);
  /* The kernel shows no PID for an OFD lock (or the opener's, on newer ones): the holder is
   * found among the processes' open files. */
  assert_lock (locks, ofd_path, ofd.pid, FL_KERNEL_LOCK_TYPE_OFD, FL_KERNEL_LOCK_MODE_WRITE, -1);
  g_clear_pointer (&locks, g_ptr_array_unref);

  /* Nothing tells when the waiter is queued: ask until it is. */
  g_assert_true (fl_test_wait_until (listed_as_expected_cb, &waiting, 10000));

  fl_test_locker_release (&posix);
  locks = list_locks ();
  g_assert_null (find_lock (locks, posix_path, posix.pid, FALSE));
  assert_lock (locks, ofd_path, ofd.pid, FL_KERNEL_LOCK_TYPE_OFD, FL_KERNEL_LOCK_MODE_WRITE, -1);
  g_clear_pointer (&locks, g_ptr_array_unref);

  /* The waiter gets the lock then. */
  fl_test_locker_release (&flocker);
  g_assert_true (fl_test_wait_until (listed_as_expected_cb, &released, 10000));
  waiting.blocked = FALSE;
  g_assert_true (fl_test_wait_until (listed_as_expected_cb, &waiting, 10000));
  fl_test_locker_release (&ofd);
  fl_test_locker_release (&waiter);
}

/* A lock on a file removed with its directory: listed by the name it had, matched to no lock
 * file (its directory cannot be searched), and no listing fails over it. */
static void
test_directory_gone (FlTestDir    *fx,
                     gconstpointer data)
{
  g_autofree char *sub = g_build_filename (fx->dir, "sub", NULL);
  g_autofree char *path = g_build_filename (sub, "x.lock", NULL);
  g_autofree char *shown = g_strconcat (path, " (deleted)", NULL);
  g_autoptr(GPtrArray) locks = NULL;
  FlTestLocker locker;
  FlKernelLockInfo *info;

  g_assert_no_errno (g_mkdir (sub, 0755));
  locker = fl_test_fork_locker (path, "flock", FALSE);
  g_assert_no_errno (g_unlink (path));
  g_assert_no_errno (g_rmdir (sub));

  locks = list_locks ();
  info = find_lock (locks, shown, locker.pid, FALSE);
  g_assert_nonnull (info);
  g_assert_null (fl_kernel_lock_info_get_lock_file (info));
  fl_test_locker_release (&locker);
}

/* A libfl holder's kernel lock is on the file it created under a name that is gone now (an
 * O_TMPFILE or a temp name): listed once, as its lock file. */
static void
test_libfl_holder (FlTestDir    *fx,
                   gconstpointer data)
{
  g_autoptr(FlTestProc) holder = fl_test_spawn_holder (fx->target);
  g_autoptr(GPtrArray) locks = list_locks ();
  FlKernelLockInfo *info = find_lock (locks, fx->lock, holder->pid, FALSE);
  Expect released = { fx->lock, holder->pid, FALSE, FALSE };
  guint on_inode = 0;

  g_assert_nonnull (info);
  g_assert_cmpstr (fl_kernel_lock_info_get_lock_file (info), ==, fx->lock);
  g_assert_cmpint (fl_kernel_lock_info_get_lock_type (info), ==, FL_KERNEL_LOCK_TYPE_FLOCK);
  g_assert_cmpint (fl_kernel_lock_info_get_mode (info), ==, FL_KERNEL_LOCK_MODE_WRITE);
  /* What lslocks shows: the first name, removed. */
  g_assert_nonnull (fl_kernel_lock_info_get_path (info));
  g_assert_cmpstr (fl_kernel_lock_info_get_path (info), !=, fx->lock);
  g_assert_true (g_str_has_suffix (fl_kernel_lock_info_get_path (info), " (deleted)"));
  g_assert_cmpstr (fl_kernel_lock_info_get_process_name (info), ==, "fl-worker");
  for (guint i = 0; i < locks->len; i++)
    {
      FlKernelLockInfo *other = g_ptr_array_index (locks, i);

      on_inode += fl_kernel_lock_info_get_inode (other) == fl_kernel_lock_info_get_inode (info)
                  && fl_kernel_lock_info_get_device (other) == fl_kernel_lock_info_get_device (info);
    }
  g_assert_cmpuint (on_inode, ==, 1);

  fl_test_holder_release (holder);
  g_assert_true (fl_test_wait_until (listed_as_expected_cb, &released, 10000));
}

#define N_CHURNED 300

/* A child holding N_CHURNED flocks in @dir, dropping and taking again every third, forever. */
static pid_t
fork_churner (const char *dir)
{
  pid_t parent = getpid ();
  pid_t pid = fork ();
  int fds[N_CHURNED];

  g_assert_cmpint (pid, >=, 0);
  if (pid > 0)
    return pid;
  /* It never stops by itself: it goes with the test, however that ends. */
  if (prctl (PR_SET_PDEATHSIG, SIGKILL) < 0 || getppid () != parent)
    _exit (1);
  for (guint i = 0; i < N_CHURNED; i++)
    {
      g_autofree char *path = g_strdup_printf ("%s/churn-%u", dir, i);

      fds[i] = open (path, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
      if (fds[i] < 0 || flock (fds[i], LOCK_EX) < 0)
        _exit (1);
    }
  for (;;)
    for (guint i = 0; i < N_CHURNED; i += 3)
      if (flock (fds[i], LOCK_UN) < 0 || flock (fds[i], LOCK_EX) < 0)
        _exit (1);
}

static gboolean
churner_listed_cb (gpointer data)
{
  int pid = GPOINTER_TO_INT (data);
  g_autoptr(GPtrArray) locks = list_locks ();
  guint n = 0;

  for (guint i = 0; i < locks->len; i++)
    n += fl_kernel_lock_info_get_pid (g_ptr_array_index (locks, i)) == pid;
  return n >= N_CHURNED / 2;
}

/* /proc/locks is read a page at a time while other processes take locks: a lock taken between
 * two reads moves every line by one and the line at a page's edge comes twice. The listing
 * still shows each lock once. */
static void
test_no_repeats_under_churn (FlTestDir    *fx,
                             gconstpointer data)
{
  pid_t churner = fork_churner (fx->dir);
  int status;

  g_assert_true (fl_test_wait_until (churner_listed_cb, GINT_TO_POINTER (churner), 10000));
  for (guint round = 0; round < 40; round++)
    {
      g_autoptr(GPtrArray) locks = list_locks ();
      g_autoptr(GHashTable) seen = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);

      for (guint i = 0; i < locks->len; i++)
        {
          FlKernelLockInfo *info = g_ptr_array_index (locks, i);
          char *key;

          if (fl_kernel_lock_info_get_pid (info) != churner)
            continue;
          key = g_strdup_printf ("%s %d %d %d", fl_kernel_lock_info_get_display_path (info),
                                 fl_kernel_lock_info_get_lock_type (info),
                                 fl_kernel_lock_info_get_mode (info),
                                 fl_kernel_lock_info_get_blocked (info));
          if (!g_hash_table_add (seen, key))
            g_error ("listed twice in round %u: %s", round, key);
        }
    }
  g_assert_cmpint (kill (churner, SIGKILL), ==, 0);
  g_assert_cmpint (waitpid (churner, &status, 0), ==, churner);
}

#endif

int
main (int    argc,
      char **argv)
{
  g_test_init (&argc, &argv, NULL);

  FL_TEST_ADD_LINUX ("/libfl/kernel-locks/types", NULL, test_types,
                     "/proc/locks (fl_list_kernel_locks() is ENOSYS elsewhere)");
  FL_TEST_ADD_LINUX ("/libfl/kernel-locks/libfl-holder", NULL, test_libfl_holder,
                     "/proc/locks (fl_list_kernel_locks() is ENOSYS elsewhere)");
  FL_TEST_ADD_LINUX ("/libfl/kernel-locks/directory-gone", NULL, test_directory_gone,
                     "/proc/locks (fl_list_kernel_locks() is ENOSYS elsewhere)");
  FL_TEST_ADD_LINUX ("/libfl/kernel-locks/no-repeats-under-churn", NULL,
                     test_no_repeats_under_churn, "/proc/locks (fl_list_kernel_locks() is ENOSYS elsewhere)");
  return g_test_run ();
}
