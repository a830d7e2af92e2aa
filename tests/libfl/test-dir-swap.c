/* test-dir-swap.c: a lock is on the directory at the path when it is granted (issue 19, part 4)
 *
 * `mv d d.old; mkdir d` while a waiter waits: the waiter's directory descriptor still names
 * d.old. Before the fix it acquired there when d.old's holder released, while another process
 * held the lock in the new d: two holders of d/target, neither told.
 *
 * Linked with `-Wl,--wrap=linkat`: the in-process tests swap the directory right after
 * libfl's link() succeeds, the exact instant the re-check of docs/protocol.md 3a is for.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include <libfl/fl.h>

#include "fl-test-util.h"

/* The cases need Linux: the wrapped libc call (see above). Elsewhere they are registered
 * and skip, saying so, so that every platform lists the same cases (docs/porting.md). */
#define NEEDS "link-time wrapping of linkat() (-Wl,--wrap); " \
  "Windows' platform layer calls kernel32, where a wrap has nothing to catch"

#ifdef __linux__
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int __real_linkat (int olddirfd, const char *oldpath, int newdirfd, const char *newpath,
                   int flags);
int __wrap_linkat (int olddirfd, const char *oldpath, int newdirfd, const char *newpath,
                   int flags);

static const char *swap_dir;  /* the directory to replace after each link to a lock */
static guint swaps_left;
static guint swaps;

int
__wrap_linkat (int         olddirfd,
               const char *oldpath,
               int         newdirfd,
               const char *newpath,
               int         flags)
{
  int r = __real_linkat (olddirfd, oldpath, newdirfd, newpath, flags);

  if (r == 0 && swaps_left > 0 && g_str_has_suffix (newpath, ".lock"))
    {
      g_autofree char *aside = g_strdup_printf ("%s.old%u", swap_dir, swaps);

      g_assert_cmpint (rename (swap_dir, aside), ==, 0);
      g_assert_cmpint (mkdir (swap_dir, 0755), ==, 0);
      swaps_left--;
      swaps++;
    }
  return r;
}

/* Whether @pid has an inotify watch on the directory with inode @ino: the waiter watches the
 * directory it is about to link in (docs/protocol.md, section 5). */
static gboolean
watches_inode (pid_t   pid,
               guint64 ino)
{
  g_autofree char *fd_dir = g_strdup_printf ("/proc/%d/fd", (int) pid);
  g_autofree char *wanted = g_strdup_printf (" ino:%" G_GINT64_MODIFIER "x ", ino);
  g_autoptr(GDir) dir = g_dir_open (fd_dir, 0, NULL);
  const char *name;

  if (dir == NULL)
    return FALSE;
  while ((name = g_dir_read_name (dir)) != NULL)
    {
      g_autofree char *path = g_build_filename (fd_dir, name, NULL);
      g_autofree char *target = g_file_read_link (path, NULL);
      g_autofree char *info_path = NULL;
      g_autofree char *info = NULL;

      if (target == NULL || strstr (target, "inotify") == NULL)
        continue;
      info_path = g_strdup_printf ("/proc/%d/fdinfo/%s", (int) pid, name);
      if (g_file_get_contents (info_path, &info, NULL, NULL) && strstr (info, wanted) != NULL)
        return TRUE;
    }
  return FALSE;
}

static guint64
inode_of (const char *path)
{
  struct stat st;

  g_assert_cmpint (stat (path, &st), ==, 0);
  return st.st_ino;
}

static FlTestProc *
spawn_hold (const char *target)
{
  g_autofree char *worker = fl_test_helper_path ("FL_WORKER", "fl-worker");
  const char *argv[] = { worker, "hold", target, NULL };

  return fl_test_proc_spawn (argv, NULL, FL_TEST_SPAWN_DEFAULT);
}

/* Waits until @proc watches the directory @ino, or prints a line (returned). */
static char *
wait_watch_or_line (FlTestProc *proc,
                    guint64     ino,
                    gboolean   *watching)
{
  gint64 deadline = fl_test_deadline_ms (60000);

  *watching = FALSE;
  while (g_get_monotonic_time () < deadline)
    {
      char *line = fl_test_proc_read_line (proc, g_get_monotonic_time () + 1000);

      if (line != NULL)
        return line;
      if (watches_inode (proc->pid, ino))
        {
          *watching = TRUE;
          return NULL;
        }
    }
  return NULL;
}

/* The first of @p and @q to say it holds; the other is returned in @other. */
static FlTestProc *
first_holder (FlTestProc  *p,
              FlTestProc  *q,
              FlTestProc **other)
{
  gint64 deadline = fl_test_deadline_ms (60000);

  while (g_get_monotonic_time () < deadline)
    {
      FlTestProc *procs[2] = { p, q };

      for (guint i = 0; i < 2; i++)
        {
          g_autofree char *line = fl_test_proc_read_line (procs[i],
                                                          g_get_monotonic_time () + 1000);
          g_autofree char *expected = g_strdup_printf ("held %d", (int) procs[i]->pid);

          if (line != NULL)
            {
              g_assert_cmpstr (line, ==, expected);
              *other = procs[1 - i];
              return procs[i];
            }
        }
    }
  g_error ("neither process acquired the lock in the new directory");
  return NULL;
}

static void
test_swap_while_waiting (FlTestDir     *fx,
                         gconstpointer  data)
{
  g_autofree char *d = g_build_filename (fx->dir, "d", NULL);
  g_autofree char *d_old = g_build_filename (fx->dir, "d.old", NULL);
  g_autofree char *target = g_build_filename (d, "target", NULL);
  g_autofree char *lock = g_build_filename (d, "target.lock", NULL);
  g_autofree char *old_lock = g_build_filename (d_old, "target.lock", NULL);
  g_autoptr(FlTestProc) a = NULL;
  g_autoptr(FlTestProc) b = NULL;
  g_autoptr(FlTestProc) c = NULL;
  g_autofree char *line = NULL;
  g_autofree char *y_held = NULL;
  g_autofree char *content = NULL;
  FlTestProc *x, *y;
  gboolean watching;

  g_assert_cmpint (mkdir (d, 0755), ==, 0);
  a = fl_test_spawn_holder (target);
  b = spawn_hold (target);
  line = wait_watch_or_line (b, inode_of (d), &watching);
  g_assert_null (line);
  g_assert_true (watching);  /* B waits in d, which is about to become d.old */

  g_assert_cmpint (rename (d, d_old), ==, 0);
  g_assert_cmpint (mkdir (d, 0755), ==, 0);

  /* The new d is free: C holds d/target (X). B (Y) waits in d.old until A releases there;
   * should a later libfl move B to the new d on the move's own event, B is X and C waits. */
  c = spawn_hold (target);
  x = first_holder (b, c, &y);
  g_test_message ("%s holds in the new directory", x == b ? "B" : "C");

  /* A releases in d.old. Y must not hold d/target while X does: B leaves d.old and waits in
   * the directory now at the path. */
  fl_test_holder_release (a);
  line = wait_watch_or_line (y, inode_of (d), &watching);
  if (line != NULL)
    g_error ("two holders of %s: %s, and %s, which said “%s”", target, x == b ? "B" : "C",
             y == b ? "B" : "C", line);
  g_assert_true (watching);
  g_assert_false (fl_test_exists (old_lock));

  fl_test_holder_release (x);
  line = fl_test_proc_read_line (y, fl_test_deadline_ms (30000));
  y_held = g_strdup_printf ("held %d", (int) y->pid);
  g_assert_cmpstr (line, ==, y_held);
  content = fl_test_read (lock, NULL);
  g_assert_cmpint (atoi (content), ==, y->pid);
  g_assert_false (fl_test_exists (old_lock));
  fl_test_holder_release (y);
  g_assert_false (fl_test_exists (lock));
}

/* Replaced once, right after the link: the lock is taken again in the new directory, and the
 * one linked in the old directory is gone. */
static void
test_swap_after_link (FlTestDir     *fx,
                      gconstpointer  data)
{
  g_autofree char *d = g_build_filename (fx->dir, "d", NULL);
  g_autofree char *target = g_build_filename (d, "target", NULL);
  g_autofree char *lock_path = g_build_filename (d, "target.lock", NULL);
  g_autofree char *old_lock = g_build_filename (fx->dir, "d.old0", "target.lock", NULL);
  g_autofree char *pid = g_strdup_printf ("%d", (int) getpid ());
  g_autofree char *content = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(FlLock) lock = NULL;

  g_assert_cmpint (mkdir (d, 0755), ==, 0);
  swap_dir = d;
  swaps = 0;
  swaps_left = 1;
  lock = fl_lock_acquire (target, NULL, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (swaps, ==, 1);
  g_assert_true (fl_lock_is_held (lock));
  content = fl_test_read (lock_path, NULL);
  g_assert_cmpstr (content, ==, pid);
  g_assert_true (fl_test_kernel_lock_held (lock_path));
  g_assert_false (fl_test_exists (old_lock));
  g_assert_true (fl_lock_release (lock, &error));
  g_assert_no_error (error);
  g_assert_false (fl_test_exists (lock_path));
}

/* Replaced after every link: a bounded number of tries, then an error naming the path; no
 * lock is left in any of the directories. */
static void
test_swap_forever (FlTestDir     *fx,
                   gconstpointer  data)
{
  g_autofree char *d = g_build_filename (fx->dir, "d", NULL);
  g_autofree char *target = g_build_filename (d, "target", NULL);
  g_autofree char *lock_path = g_build_filename (d, "target.lock", NULL);
  g_autoptr(GError) error = NULL;
  g_autoptr(FlLock) lock = NULL;

  g_assert_cmpint (mkdir (d, 0755), ==, 0);
  swap_dir = d;
  swaps = 0;
  swaps_left = G_MAXUINT;
  lock = fl_lock_try_acquire (target, NULL, &error);
  swaps_left = 0;
  g_assert_null (lock);
  fl_test_assert_error_names (error, FL_ERROR, FL_ERROR_FAILED, lock_path);
  g_test_message ("after %u replacements: %s", swaps, error->message);
  g_assert_cmpuint (swaps, ==, 9);
  for (guint i = 0; i < swaps; i++)
    {
      g_autofree char *old_dir = g_strdup_printf ("%s.old%u", d, i);
      g_auto(GStrv) names = fl_test_list_dir (old_dir);

      g_assert_cmpuint (g_strv_length (names), ==, 0);
    }
  g_assert_false (fl_test_exists (lock_path));
}

/* Takes @target at once and releases it; the kernel lock was held on @lock_path. */
static void
acquire_release (const char          *target,
                 const FlLockOptions *options,
                 const char          *lock_path)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(FlLock) lock = fl_lock_try_acquire (target, options, &error);

  g_assert_no_error (error);
  g_assert_true (fl_test_kernel_lock_held (lock_path));
  g_assert_true (fl_lock_release (lock, &error));
  g_assert_no_error (error);
}

/* A release keeps its directory open for the next acquire there (fl-dir-cache.c). That
 * directory may be moved away before the next acquire: then nothing in it decides. Here d.old
 * has a lock named by a live PID, and d is free: the acquire takes d/target, never reports d.old's
 * holder. */
static void
test_kept_directory_replaced (FlTestDir     *fx,
                              gconstpointer  data)
{
  g_autofree char *d = g_build_filename (fx->dir, "d", NULL);
  g_autofree char *d_old = g_build_filename (fx->dir, "d.old", NULL);
  g_autofree char *target = g_build_filename (d, "target", NULL);
  g_autofree char *lock_path = g_build_filename (d, "target.lock", NULL);
  g_autofree char *old_lock = g_build_filename (d_old, "target.lock", NULL);
  g_autofree char *pid = g_strdup_printf ("%d", (int) getpid ());

  g_assert_cmpint (mkdir (d, 0755), ==, 0);
  acquire_release (target, NULL, lock_path);

  g_assert_cmpint (rename (d, d_old), ==, 0);
  g_assert_cmpint (mkdir (d, 0755), ==, 0);
  g_assert_true (g_file_set_contents (old_lock, pid, -1, NULL));  /* alive: our PID */

  acquire_release (target, NULL, lock_path);
  g_assert_true (fl_test_exists (old_lock));  /* untouched */
  g_assert_cmpint (unlink (old_lock), ==, 0);

  /* Moved away and free: the lock is taken in the directory at the path, and the file
   * linked in the kept one is gone again. */
  g_assert_cmpint (rename (d, d_old), ==, 0);  /* over the empty d.old */
  g_assert_cmpint (mkdir (d, 0755), ==, 0);
  acquire_release (target, NULL, lock_path);
  g_assert_false (fl_test_exists (old_lock));
}

/* The kept directory was removed: the acquire goes by the path, creating it when asked to and
 * saying it does not exist otherwise. */
static void
test_kept_directory_removed (FlTestDir     *fx,
                             gconstpointer  data)
{
  g_autofree char *d = g_build_filename (fx->dir, "d", NULL);
  g_autofree char *target = g_build_filename (d, "target", NULL);
  g_autofree char *lock_path = g_build_filename (d, "target.lock", NULL);
  g_autoptr(FlLockOptions) options = fl_lock_options_new ();
  g_autoptr(GError) error = NULL;
  g_autoptr(FlLock) lock = NULL;

  g_assert_cmpint (mkdir (d, 0755), ==, 0);
  acquire_release (target, NULL, lock_path);
  g_assert_cmpint (rmdir (d), ==, 0);

  lock = fl_lock_try_acquire (target, NULL, &error);
  g_assert_null (lock);
  g_assert_error (error, FL_ERROR, FL_ERROR_NOT_DIRECTORY);
  g_clear_error (&error);

  fl_lock_options_set_create_dirs (options, TRUE);
  acquire_release (target, options, lock_path);
}

#endif /* __linux__ */

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);

  FL_TEST_ADD_LINUX ("/libfl/dir-swap/while-waiting", NULL, test_swap_while_waiting, NEEDS);
  FL_TEST_ADD_LINUX ("/libfl/dir-swap/after-link", NULL, test_swap_after_link, NEEDS);
  FL_TEST_ADD_LINUX ("/libfl/dir-swap/forever", NULL, test_swap_forever, NEEDS);
  FL_TEST_ADD_LINUX ("/libfl/dir-swap/kept-directory-replaced", NULL,
                     test_kept_directory_replaced, NEEDS);
  FL_TEST_ADD_LINUX ("/libfl/dir-swap/kept-directory-removed", NULL,
                     test_kept_directory_removed, NEEDS);

  return g_test_run ();
}
