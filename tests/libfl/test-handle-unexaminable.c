/* test-handle-unexaminable.c: a lock file whose open handle cannot be examined is not "foreign"
 *
 * Linked with `-Wl,--wrap=fstat64`: the wrapper fails fstat() on a handle open on the lock file
 * with the errno a test chooses, once, as a FUSE filesystem that answers fstat() by path does
 * when the lock was renamed or removed between libfl's open and its fstat (bindfs, in CI: an
 * acquire failed with "... is a device or special file, not a lock file"). A foreign entry is
 * refused for good, so only a file that is really not a regular file may be called one. Or it
 * puts another file at the name first and answers by the name, as such a daemon does when the
 * lock is replaced between libfl's open and its fstat.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include <libfl/fl.h>

#include "fl-test-util.h"

/* The cases need Linux: the wrapped libc call (see above). Elsewhere they are registered
 * and skip, saying so, so that every platform lists the same cases (docs/porting.md). */
#define NEEDS "link-time wrapping of fstat() (-Wl,--wrap); " \
  "Windows' platform layer calls kernel32, where a wrap has nothing to catch"

#ifdef __linux__
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int __real_fstat64 (int fd, struct stat64 *st);
int __wrap_fstat64 (int fd, struct stat64 *st);

static int fail_errno;     /* the errno of the next fstat() on the lock file, or 0 */
static guint failed;       /* how many fstat() calls were failed */
/* The next fstat() on the lock file first puts this file over the lock's name, then answers
 * by that name, as a high-level FUSE daemon does (bindfs, sshfs). */
static const char *replace_from, *replace_at;

static gboolean
is_lock_file (int fd)
{
  char proc_path[64];
  char target[4096];
  ssize_t n;

  g_snprintf (proc_path, sizeof proc_path, "/proc/self/fd/%d", fd);
  n = readlink (proc_path, target, sizeof target - 1);
  if (n <= 0)
    return FALSE;
  target[n] = '\0';
  return g_str_has_suffix (target, "/target.lock");
}

int
__wrap_fstat64 (int            fd,
                struct stat64 *st)
{
  if (fail_errno != 0 && is_lock_file (fd))
    {
      errno = fail_errno;
      fail_errno = 0;
      failed++;
      return -1;
    }
  if (replace_from != NULL && is_lock_file (fd))
    {
      const char *at = replace_at;

      g_assert_no_errno (rename (replace_from, at));
      replace_from = replace_at = NULL;
      failed++;
      return fstatat64 (AT_FDCWD, at, st, AT_SYMLINK_NOFOLLOW);
    }
  return __real_fstat64 (fd, st);
}

/* ENOENT: the lock went away between the open and the look at its handle. The acquire looks
 * again, finds the same stale lock and takes it over. */
static void
test_gone_between_open_and_look (FlTestDir     *fx,
                                 gconstpointer  data)
{
  g_autofree char *dead = g_strdup_printf ("%d", fl_test_dead_pid ());
  g_autoptr(GError) error = NULL;
  g_autoptr(FlLock) lock = NULL;

  fl_test_write (fx->lock, dead, -1);
  failed = 0;
  fail_errno = GPOINTER_TO_INT (data);
  lock = fl_lock_try_acquire (fx->target, NULL, &error);
  g_assert_no_error (error);
  g_assert_nonnull (lock);
  g_assert_cmpuint (failed, ==, 1);
  g_assert_true (fl_lock_release (lock, &error));
  g_assert_no_error (error);
}

/* Another failure (EIO) is evidence missing: the lock is neither foreign nor stale, and the
 * reason names the file and the error. */
static void
test_unexaminable_is_not_foreign (FlTestDir     *fx,
                                  gconstpointer  data)
{
  g_autofree char *dead = g_strdup_printf ("%d", fl_test_dead_pid ());
  g_autoptr(GError) error = NULL;
  g_autoptr(FlSnapshot) snapshot = NULL;
  g_autofree char *content = NULL;
  FlLock *lock;

  fl_test_write (fx->lock, dead, -1);
  failed = 0;
  fail_errno = EIO;
  snapshot = fl_snapshot_new_for_target (fx->target, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (failed, ==, 1);
  g_assert_cmpint (fl_snapshot_get_kind (snapshot), !=, FL_ENTRY_FOREIGN);
  g_assert_false (fl_snapshot_get_stale (snapshot));
  g_assert_nonnull (strstr (fl_snapshot_get_reason (snapshot), fx->lock));
  g_assert_nonnull (strstr (fl_snapshot_get_reason (snapshot), g_strerror (EIO)));

  /* An acquire that cannot examine the lock does not take it over, nor call it foreign. */
  fail_errno = EIO;
  lock = fl_lock_try_acquire (fx->target, NULL, &error);
  g_assert_null (lock);
  g_assert_error (error, FL_ERROR, FL_ERROR_BUSY);
  g_assert_cmpuint (failed, ==, 2);
  content = fl_test_read (fx->lock, NULL);
  g_assert_cmpstr (content, ==, dead);
}

/* A dead holder's lock is opened, and before the look at the handle a live peer's lock (the
 * module's format, a running PID) replaces it: a daemon that answers fstat() by path gives the
 * new file's identity, while the content read through the handle is the dead holder's. Taken
 * together they made a stale verdict that T1-T4 carried out on the live lock (T1 and T3
 * compare the name with that identity): it was removed. The look before the open (J1) and
 * the handle must name one file, or the lock is looked at again. */
static void
test_replaced_between_look_and_handle (FlTestDir     *fx,
                                       gconstpointer  data)
{
  g_autoptr(FlTestProc) peer = fl_test_spawn_waiting ();
  g_autofree char *dead = g_strdup_printf ("%d", fl_test_dead_pid ());
  g_autofree char *live = g_strdup_printf ("%d", peer->pid);
  g_autofree char *newer = g_build_filename (fx->dir, "newer", NULL);
  g_autofree char *content = NULL;
  g_autoptr(GError) error = NULL;
  FlLock *lock;

  fl_test_write (fx->lock, dead, -1);
  fl_test_write (newer, live, -1);
  failed = 0;
  replace_from = newer;
  replace_at = fx->lock;
  lock = fl_lock_try_acquire (fx->target, NULL, &error);
  g_assert_cmpuint (failed, ==, 1);
  g_assert_null (lock);
  g_assert_error (error, FL_ERROR, FL_ERROR_BUSY);
  content = fl_test_read (fx->lock, NULL);
  g_assert_cmpstr (content, ==, live);
}

#endif /* __linux__ */

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);

  FL_TEST_ADD_LINUX ("/libfl/handle-unexaminable/gone/enoent", GINT_TO_POINTER (ENOENT),
                     test_gone_between_open_and_look, NEEDS);
  FL_TEST_ADD_LINUX ("/libfl/handle-unexaminable/gone/estale", GINT_TO_POINTER (ESTALE),
                     test_gone_between_open_and_look, NEEDS);
  FL_TEST_ADD_LINUX ("/libfl/handle-unexaminable/eio", NULL,
                     test_unexaminable_is_not_foreign, NEEDS);
  FL_TEST_ADD_LINUX ("/libfl/handle-unexaminable/replaced-by-path", NULL,
                     test_replaced_between_look_and_handle, NEEDS);

  return g_test_run ();
}
