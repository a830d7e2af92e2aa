/* test-bad-lock.c: hostile things at the lock path, and a full filesystem
 *
 * A lock directory may be shared with anyone: what sits at T.lock is never followed, never
 * opened in a way that blocks, never read past a bound, and never removed unless it is a stale
 * lock.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include <libfl/fl.h>

#include <errno.h>
#include <string.h>
#include <glib/gstdio.h>

#include "protocol/fl-lock-private.h"
#include "fl-test-util.h"

#ifdef __linux__
# include <fcntl.h>
# include <sched.h>
# include <sys/mount.h>
# include <sys/socket.h>
# include <sys/stat.h>
# include <sys/un.h>
# include <unistd.h>
#endif

typedef struct
{
  const char *target;
  GError     *error;
  gboolean    done;
  GMutex      mutex;
  GCond       cond;
} Attempt;

static gpointer
attempt_thread (gpointer user_data)
{
  Attempt *a = user_data;
  g_autoptr(FlLockOptions) options = fl_lock_options_new ();
  FlLock *lock;
  GError *error = NULL;

  fl_lock_options_set_timeout_ms (options, 2000);
  lock = fl_lock_acquire (a->target, options, NULL, &error);
  g_clear_object (&lock);
  g_mutex_lock (&a->mutex);
  a->error = error;
  a->done = TRUE;
  g_cond_signal (&a->cond);
  g_mutex_unlock (&a->mutex);
  return NULL;
}

/* Runs an acquire in a thread and fails, instead of hanging, if it does not return in time:
 * a FIFO opened without O_NONBLOCK would block forever. */
static GError *
acquire_with_deadline (const char *target,
                       const char *fifo)
{
  Attempt a = { .target = target };
  gint64 deadline = fl_test_deadline_ms (10000);
  gboolean done;
  GThread *thread;
  GError *error;

  g_mutex_init (&a.mutex);
  g_cond_init (&a.cond);
  thread = g_thread_new ("acquire", attempt_thread, &a);
  g_mutex_lock (&a.mutex);
  while (!a.done)
    if (!g_cond_wait_until (&a.cond, &a.mutex, deadline))
      break;
  done = a.done;
  g_mutex_unlock (&a.mutex);
#ifdef __linux__
  if (!done && fifo != NULL)
    {
      /* Unblock the stuck open() so that the process can end, then fail. */
      int fd = open (fifo, O_WRONLY | O_NONBLOCK | O_CLOEXEC);
      if (fd >= 0)
        close (fd);
    }
#endif
  g_assert_true (done);
  g_thread_join (thread);
  error = a.error;
  g_mutex_clear (&a.mutex);
  g_cond_clear (&a.cond);
  return error;
}

static void
assert_foreign_refused (FlTestDir  *fx,
                        const char *fifo)
{
  g_autoptr(GError) error = acquire_with_deadline (fx->target, fifo);
  g_autoptr(GError) try_error = NULL;
  g_autoptr(FlLock) lock = NULL;

  g_test_message ("%s", error ? error->message : "(no error)");
  fl_test_assert_error_names (error, FL_ERROR, FL_ERROR_FOREIGN, fx->lock);

  lock = fl_lock_try_acquire (fx->target, NULL, &try_error);
  g_assert_null (lock);
  fl_test_assert_error_names (try_error, FL_ERROR, FL_ERROR_FOREIGN, fx->lock);
  g_assert_cmpuint (fl_test_count_protocol_litter (fx->dir), ==, 0);
}

static void
test_directory (FlTestDir     *fx,
                gconstpointer  data)
{
  g_autofree char *inside = g_build_filename (fx->lock, "pid", NULL);

  /* Another library's lock format: a directory with the holder's data inside. */
  g_assert_cmpint (g_mkdir (fx->lock, 0755), ==, 0);
  fl_test_write (inside, "1", -1);
  assert_foreign_refused (fx, NULL);
  g_assert_true (g_file_test (fx->lock, G_FILE_TEST_IS_DIR));
  g_assert_true (fl_test_exists (inside));
}

#ifdef __linux__
static void
test_symlink_dev_zero (FlTestDir     *fx,
                       gconstpointer  data)
{
  g_autofree char *link_target = NULL;

  g_assert_cmpint (symlink ("/dev/zero", fx->lock), ==, 0);
  assert_foreign_refused (fx, NULL);
  link_target = g_file_read_link (fx->lock, NULL);
  g_assert_cmpstr (link_target, ==, "/dev/zero");
}

/* The symlink points at a stale-looking lock elsewhere: following it would "take over" (rename
 * or remove) a file outside the lock directory. */
static void
test_symlink_elsewhere (FlTestDir     *fx,
                        gconstpointer  data)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *other = g_dir_make_tmp ("libfl-test-other-XXXXXX", &error);
  g_autofree char *victim = g_build_filename (other, "victim", NULL);
  g_autofree char *dead = g_strdup_printf ("%d", (int) fl_test_dead_pid ());
  g_autofree char *content = NULL;
  g_autoptr(FlSnapshot) snapshot = NULL;
  struct stat before, after;
  gsize len;

  g_assert_no_error (error);
  fl_test_write (victim, dead, -1);
  fl_test_set_mtime_ago (victim, 3600);
  g_assert_cmpint (stat (victim, &before), ==, 0);
  g_assert_cmpint (symlink (victim, fx->lock), ==, 0);

  assert_foreign_refused (fx, NULL);

  snapshot = fl_snapshot_new (fx->lock, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpint (fl_snapshot_get_kind (snapshot), ==, FL_ENTRY_FOREIGN);
  g_assert_false (fl_snapshot_reclaim (snapshot, NULL, &error));
  g_assert_nonnull (error);
  g_clear_error (&error);

  g_assert_cmpint (stat (victim, &after), ==, 0);
  g_assert_cmpuint (after.st_ino, ==, before.st_ino);
  g_assert_cmpint (after.st_mtim.tv_sec, ==, before.st_mtim.tv_sec);
  g_assert_cmpint (after.st_mtim.tv_nsec, ==, before.st_mtim.tv_nsec);
  content = fl_test_read (victim, &len);
  g_assert_cmpmem (content, len, dead, strlen (dead));
  g_assert_true (g_file_test (fx->lock, G_FILE_TEST_IS_SYMLINK));
  fl_test_rm_rf (other);
}

static void
test_fifo (FlTestDir     *fx,
           gconstpointer  data)
{
  g_assert_cmpint (mkfifo (fx->lock, 0644), ==, 0);
  assert_foreign_refused (fx, fx->lock);
  g_assert_true (fl_test_exists (fx->lock));
}

static void
test_socket (FlTestDir     *fx,
             gconstpointer  data)
{
  struct sockaddr_un addr = { .sun_family = AF_UNIX };
  int fd = socket (AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);

  g_assert_cmpint (fd, >=, 0);
  g_assert_cmpuint (strlen (fx->lock), <, sizeof addr.sun_path);
  strcpy (addr.sun_path, fx->lock);
  g_assert_cmpint (bind (fd, (struct sockaddr *) &addr, sizeof addr), ==, 0);
  assert_foreign_refused (fx, NULL);
  g_assert_true (fl_test_exists (fx->lock));
  close (fd);
}

/* 16 GiB, sparse, starting with a live PID: a bounded read sees a PID followed by NUL bytes
 * (not a PID), and returns at once; an unbounded one would take seconds or run out of memory. */
static void
test_huge (FlTestDir     *fx,
           gconstpointer  data)
{
  g_autoptr(FlLockOptions) options = fl_lock_options_new ();
  g_autoptr(FlSnapshot) snapshot = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(FlLock) lock = NULL;
  g_autofree char *pid = g_strdup_printf ("%d", (int) getpid ());
  gint64 start;
  int fd;

  fl_test_write (fx->lock, pid, -1);
  fd = open (fx->lock, O_WRONLY | O_CLOEXEC);
  g_assert_cmpint (fd, >=, 0);
  if (ftruncate (fd, (off_t) 16 << 30) < 0)
    {
      g_test_skip_printf ("cannot make a 16 GiB sparse file: %s", g_strerror (errno));
      close (fd);
      return;
    }
  close (fd);
  fl_lock_options_set_stale_after_ms (options, 60000);

  start = g_get_monotonic_time ();
  snapshot = fl_snapshot_new (fx->lock, options, &error);
  g_assert_no_error (error);
  g_assert_cmpint (fl_snapshot_get_liveness (snapshot), ==, FL_LIVENESS_UNKNOWN);
  g_assert_false (fl_snapshot_get_stale (snapshot));
  {
    g_autoptr(GBytes) content = fl_snapshot_dup_content_bytes (snapshot);
    g_assert_cmpuint (g_bytes_get_size (content), <=, 64);
  }

  lock = fl_lock_try_acquire (fx->target, options, &error);
  g_assert_null (lock);
  fl_test_assert_error_names (error, FL_ERROR, FL_ERROR_BUSY, fx->lock);
  g_clear_error (&error);

  /* stale_after counts from the last change (ctime), which no touch moves back: let 2 ms
   * pass after it, and judge with a stale_after of 1 ms. */
  {
    struct stat st;

    g_assert_cmpint (stat (fx->lock, &st), ==, 0);
    while (g_get_real_time () < (gint64) st.st_ctim.tv_sec * G_USEC_PER_SEC +
                                st.st_ctim.tv_nsec / 1000 + 2000)
      g_usleep (500);
  }
  fl_lock_options_set_stale_after_ms (options, 1);
  lock = fl_lock_try_acquire (fx->target, options, &error);
  g_assert_no_error (error);
  g_assert_cmpint (g_get_monotonic_time () - start, <, 5 * G_USEC_PER_SEC);
  g_assert_cmpuint (fl_test_count_protocol_litter (fx->dir), ==, 0);
}

/* A lock file that belongs to another user is judged like any other: by its content. */
static void
test_other_owner (FlTestDir     *fx,
                  gconstpointer  data)
{
  g_autofree char *worker = fl_test_helper_path ("FL_WORKER", "fl-worker");
  const char *argv[] = { worker, "wait", NULL };
  g_autoptr(FlTestProc) live = NULL;
  g_autoptr(FlSnapshot) snapshot = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(FlLock) lock = NULL;
  g_autofree char *line = NULL;
  g_autofree char *live_pid = NULL;
  g_autofree char *dead_pid = g_strdup_printf ("%d", (int) fl_test_dead_pid ());

  if (!fl_test_is_root ())
    {
      g_test_skip ("chown to another user needs root");
      return;
    }

  live = fl_test_proc_spawn (argv, NULL, FL_TEST_SPAWN_DEFAULT);
  line = fl_test_proc_read_line (live, fl_test_deadline_ms (10000));
  g_assert_nonnull (line);
  live_pid = g_strdup_printf ("%d", (int) live->pid);

  fl_test_write (fx->lock, live_pid, -1);
  g_assert_cmpint (chown (fx->lock, 65534, 65534), ==, 0);
  g_assert_cmpint (chmod (fx->lock, 0600), ==, 0);
  snapshot = fl_snapshot_new (fx->lock, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpint (fl_snapshot_get_file_uid (snapshot), ==, 65534);
  g_assert_cmpint (fl_snapshot_get_pid (snapshot), ==, live->pid);
  g_assert_cmpint (fl_snapshot_get_liveness (snapshot), ==, FL_LIVENESS_ALIVE);
  lock = fl_lock_try_acquire (fx->target, NULL, &error);
  g_assert_null (lock);
  fl_test_assert_error_names (error, FL_ERROR, FL_ERROR_BUSY, fx->lock);
  g_clear_error (&error);

  g_assert_cmpint (unlink (fx->lock), ==, 0);
  fl_test_write (fx->lock, dead_pid, -1);
  g_assert_cmpint (chown (fx->lock, 65534, 65534), ==, 0);
  lock = fl_lock_try_acquire (fx->target, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (fl_test_count_protocol_litter (fx->dir), ==, 0);
}

/* A lock file nobody may read (mode 0600, root's) is not judged stale by a process that
 * cannot read it, whatever it contains, even with its mtime an hour back, where the module
 * would take it over (issue 29: without a descriptor libfl can neither see its kernel lock nor
 * prove what it moves aside; docs/protocol.md, J4). The reason says who can reclaim it. */
static void
test_unreadable (FlTestDir     *fx,
                 gconstpointer  data)
{
  g_autofree char *worker = fl_test_helper_path ("FL_WORKER", "fl-worker");
  const char *argv[] = { worker, "try", fx->target, NULL };
  g_autofree char *dead_pid = g_strdup_printf ("%d", (int) fl_test_dead_pid ());
  g_autoptr(FlTestProc) proc = NULL;
  g_autofree char *out = NULL;
  g_autofree char *busy = NULL;
  g_autofree char *denied = NULL;
  g_autofree char *content = NULL;
  gsize len;

  if (!fl_test_is_root ())
    {
      g_test_skip ("needs root to run a worker as another user");
      return;
    }
  fl_test_write (fx->lock, dead_pid, -1);
  fl_test_set_mtime_ago (fx->lock, 3600);
  g_assert_cmpint (chmod (fx->lock, 0600), ==, 0);
  g_assert_cmpint (chmod (fx->dir, 0777), ==, 0);

  proc = fl_test_proc_spawn (argv, NULL, FL_TEST_SPAWN_AS_NOBODY);
  out = fl_test_proc_read_all (proc, fl_test_deadline_ms (10000));
  g_assert_true (fl_test_proc_wait (proc, fl_test_deadline_ms (10000)));
  g_test_message ("worker as nobody: %s", out);
  if (fl_test_proc_exit_code (proc) == 99)
    {
      g_test_skip ("cannot switch to uid 65534");
      return;
    }
  busy = g_strdup_printf ("error %s %d ", g_quark_to_string (FL_ERROR), FL_ERROR_BUSY);
  denied = g_strdup_printf ("error %s %d ", g_quark_to_string (FL_ERROR), FL_ERROR_PERMISSION);
  g_assert_true (g_str_has_prefix (out, busy) || g_str_has_prefix (out, denied));
  g_assert_nonnull (strstr (out, fx->lock));
  if (g_str_has_prefix (out, busy))
    g_assert_nonnull (strstr (out, "reclaim --force"));
  content = fl_test_read (fx->lock, &len);
  g_assert_cmpmem (content, len, dead_pid, strlen (dead_pid));
}

/* Issue 19: taking over another user's stale lock in a sticky directory (as /tmp) is refused by
 * the kernel; the error is FL_ERROR_PERMISSION, names the path and says who may remove it, and
 * the lock is left as it was. */
static void
test_sticky_other_owner (FlTestDir     *fx,
                         gconstpointer  data)
{
  g_autofree char *worker = fl_test_helper_path ("FL_WORKER", "fl-worker");
  const char *argv[] = { worker, "try", fx->target, NULL };
  g_autofree char *dead_pid = g_strdup_printf ("%d", (int) fl_test_dead_pid ());
  g_autoptr(FlTestProc) proc = NULL;
  g_autofree char *out = NULL;
  g_autofree char *denied = NULL;
  g_autofree char *content = NULL;
  gsize len;

  if (!fl_test_is_root ())
    {
      g_test_skip ("needs root to run a worker as another user");
      return;
    }
  fl_test_write (fx->lock, dead_pid, -1);
  g_assert_cmpint (chown (fx->lock, 1, 1), ==, 0);  /* daemon's, neither root's nor nobody's */
  g_assert_cmpint (chmod (fx->dir, 01777), ==, 0);

  proc = fl_test_proc_spawn (argv, NULL, FL_TEST_SPAWN_AS_NOBODY);
  out = fl_test_proc_read_all (proc, fl_test_deadline_ms (10000));
  g_assert_true (fl_test_proc_wait (proc, fl_test_deadline_ms (10000)));
  g_test_message ("worker as nobody: %s", out);
  if (fl_test_proc_exit_code (proc) == 99)
    {
      g_test_skip ("cannot switch to uid 65534");
      return;
    }
  denied = g_strdup_printf ("error %s %d ", g_quark_to_string (FL_ERROR), FL_ERROR_PERMISSION);
  g_assert_true (g_str_has_prefix (out, denied));
  g_assert_nonnull (strstr (out, fx->lock));
  g_assert_nonnull (strstr (out, "sticky"));
  content = fl_test_read (fx->lock, &len);
  g_assert_cmpmem (content, len, dead_pid, strlen (dead_pid));
  g_assert_cmpuint (fl_test_count_protocol_litter (fx->dir), ==, 0);
}

/* A full filesystem while the temp is written: FL_ERROR_NO_SPACE, and no temp left behind.
 * It runs in a subprocess with a mount namespace of its own, so that the small tmpfs goes
 * away with it even if an assertion fails. */
static void
no_space_child (const char *dir)
{
  g_autofree char *mnt = g_build_filename (dir, "full", NULL);
  g_autofree char *filler = g_build_filename (mnt, "filler", NULL);
  g_autofree char *target = g_build_filename (mnt, "target", NULL);
  g_autofree char *skip_file = g_build_filename (dir, "skip", NULL);
  static const char block[4096];
  int fd;

  g_assert_cmpint (mkdir (mnt, 0755), ==, 0);
  if (unshare (CLONE_NEWNS) < 0 ||
      mount (NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) < 0 ||
      mount ("libfl-test", mnt, "tmpfs", MS_NOSUID | MS_NODEV, "size=64k,mode=0755") < 0)
    {
      g_autofree char *reason = g_strdup_printf ("cannot mount a small tmpfs: %s",
                                                 g_strerror (errno));
      fl_test_write (skip_file, reason, -1);
      return;
    }

  fd = open (filler, O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
  g_assert_cmpint (fd, >=, 0);
  while (write (fd, block, sizeof block) > 0)
    ;
  g_assert_cmpint (errno, ==, ENOSPC);
  close (fd);

  for (int named = 0; named <= 1; named++)
    {
      g_autoptr(GError) error = NULL;
      g_autoptr(FlLock) lock = NULL;
      g_auto(GStrv) names = NULL;
      g_autofree char *lock_path = g_strconcat (target, ".lock", NULL);

      _fl_lock_set_force_named_temp (named);
      lock = fl_lock_acquire (target, NULL, NULL, &error);
      g_assert_null (lock);
      g_printerr ("# %s temp: %s\n", named ? "named" : "O_TMPFILE", error->message);
      g_assert_error (error, FL_ERROR, FL_ERROR_NO_SPACE);
      g_assert_nonnull (strstr (error->message, mnt));
      names = fl_test_list_dir (mnt);
      g_assert_cmpuint (g_strv_length (names), ==, 1);
      g_assert_cmpstr (names[0], ==, "filler");
      g_assert_false (fl_test_exists (lock_path));
    }
}

static void
test_no_space (FlTestDir     *fx,
               gconstpointer  data)
{
  g_autofree char *skip_file = g_build_filename (fx->dir, "skip", NULL);

  if (g_test_subprocess ())
    {
      no_space_child (g_getenv ("FL_TEST_NO_SPACE_DIR"));
      return;
    }
  if (!fl_test_is_root ())
    {
      g_test_skip ("mounting a small tmpfs needs root");
      return;
    }

  g_setenv ("FL_TEST_NO_SPACE_DIR", fx->dir, TRUE);
  g_test_trap_subprocess (NULL, 60 * G_USEC_PER_SEC, G_TEST_SUBPROCESS_INHERIT_STDERR);
  if (fl_test_exists (skip_file))
    {
      g_autofree char *reason = fl_test_read (skip_file, NULL);

      g_test_skip (reason);
      return;
    }
  g_test_trap_assert_passed ();
}

#endif

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);

  FL_TEST_ADD ("/libfl/bad-input/lock/directory", NULL, test_directory);
  FL_TEST_ADD_LINUX ("/libfl/bad-input/lock/symlink-dev-zero", NULL, test_symlink_dev_zero,
                     "symbolic links (CreateSymbolicLinkW is a stub under wine), /dev/zero");
  FL_TEST_ADD_LINUX ("/libfl/bad-input/lock/symlink-elsewhere", NULL, test_symlink_elsewhere,
                     "symbolic links (CreateSymbolicLinkW is a stub under wine)");
  FL_TEST_ADD_LINUX ("/libfl/bad-input/lock/fifo", NULL, test_fifo, "FIFOs");
  FL_TEST_ADD_LINUX ("/libfl/bad-input/lock/socket", NULL, test_socket,
                     "Unix sockets in the file system");
  FL_TEST_ADD_LINUX ("/libfl/bad-input/lock/huge", NULL, test_huge,
                     "a 16 GiB sparse file made by ftruncate()");
  FL_TEST_ADD_LINUX ("/libfl/bad-input/lock/other-owner", NULL, test_other_owner,
                     "root and another user's files");
  FL_TEST_ADD_LINUX ("/libfl/bad-input/lock/unreadable", NULL, test_unreadable,
                     "root and Unix permissions");
  FL_TEST_ADD_LINUX ("/libfl/bad-input/lock/sticky-other-owner", NULL, test_sticky_other_owner,
                     "root and a sticky directory");
  FL_TEST_ADD_LINUX ("/libfl/bad-input/no-space", NULL, test_no_space,
                     "root and a small tmpfs in a mount namespace");

  return g_test_run ();
}
