/* test-verdict.c: verdicts that used to be wrong (issues 13, 18, 19)
 *
 * Reuse is decided by the identity alone, never by a file time; a kernel lock kept by a child
 * of an exited holder is reported as such; an open() that fails for this process's own reasons
 * is not blamed on the file's owner; a graveyard whose creator lives is no orphan.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include <libfl/fl.h>

#include <string.h>

#include "fl-test-util.h"

#ifdef __linux__
# include <errno.h>
# include <fcntl.h>
# include <pthread.h>
# include <signal.h>
# include <stdlib.h>
# include <sys/resource.h>
# include <sys/wait.h>
# include <sys/xattr.h>
# include <unistd.h>

# include "protocol/fl-content-private.h"
# include "support/fl-process-private.h"
# include "fl-test-counter.h"
# include "platform/fl-platform-linux.h"
#endif

#ifdef __linux__
/* Writes @path as a lock of @pid in the original format plus the identity a libfl holder of
 * that PID would have written, with its start ticks off by @ticks_off and no kernel lock. */
static gboolean
write_lock_with_identity (const char *path,
                          pid_t       pid,
                          int         ticks_off)
{
  g_autofree char *text = g_strdup_printf ("%d", (int) pid);
  unsigned long long start = 0;
  unsigned long flags;
  FlIdentity identity;
  char xattr[FL_IDENTITY_MAX];
  gsize len;
  char state;

  fl_test_write (path, text, -1);
  g_assert_cmpint (fl_test_read_proc_stat (pid, &state, &flags, &start), !=, 0);
  _fl_identity_self (&identity);
  identity.pid = (int) pid;
  identity.start_ticks = start + ticks_off;
  identity.kernel_lock = FALSE;
  len = _fl_identity_format (&identity, xattr, sizeof xattr);
  g_assert_cmpuint (len, >, 0);
  if (setxattr (path, FL_IDENTITY_XATTR, xattr, len, 0) < 0)
    {
      g_test_skip_printf ("no user xattrs here (%s)", g_strerror (errno));
      return FALSE;
    }
  return TRUE;
}

#endif

/* Issue 18, part 1: a live original-format lock whose mtime was moved an hour back (touch -d,
 * cp -p, tar, rsync -t) names a process that "started after the file was written". That is no
 * proof of reuse: the module calls it alive, and so must libfl. */
static void
test_mtime_moved_back (FlTestDir     *fx,
                       gconstpointer  data)
{
  g_autoptr(FlTestProc) child = fl_test_spawn_waiting ();
  g_autofree char *pid = g_strdup_printf ("%d", (int) child->pid);
  g_autoptr(FlSnapshot) snapshot = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(FlLock) lock = NULL;
  g_autofree char *content = NULL;

  fl_test_write (fx->lock, pid, -1);
  fl_test_set_mtime_ago (fx->lock, 3600);

  snapshot = fl_snapshot_new (fx->lock, NULL, &error);
  g_assert_no_error (error);
  g_test_message ("%s", fl_snapshot_get_reason (snapshot));
  g_assert_cmpint (fl_snapshot_get_liveness (snapshot), ==, FL_LIVENESS_ALIVE);
  g_assert_false (fl_snapshot_get_stale (snapshot));
  g_assert_nonnull (strstr (fl_snapshot_get_reason (snapshot), "may have been reused"));

  lock = fl_lock_try_acquire (fx->target, NULL, &error);
  g_assert_null (lock);
  fl_test_assert_error_names (error, FL_ERROR, FL_ERROR_BUSY, fx->lock);
  content = fl_test_read (fx->lock, NULL);
  g_assert_cmpstr (content, ==, pid);
}

#ifdef __linux__
/* Reuse with an identity is still caught exactly: start ticks that differ. */
static void
test_reused_by_identity (FlTestDir     *fx,
                         gconstpointer  data)
{
  g_autoptr(FlTestProc) child = fl_test_spawn_waiting ();
  g_autoptr(FlSnapshot) snapshot = NULL;
  g_autoptr(FlSnapshot) control = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(FlLock) lock = NULL;
  g_autofree char *expected = NULL;

  /* The same process, exactly: alive, even with the mtime an hour back. */
  if (!write_lock_with_identity (fx->lock, child->pid, 0))
    return;
  fl_test_set_mtime_ago (fx->lock, 3600);
  control = fl_snapshot_new (fx->lock, NULL, &error);
  g_assert_no_error (error);
  g_test_message ("%s", fl_snapshot_get_reason (control));
  g_assert_cmpint (fl_snapshot_get_liveness (control), ==, FL_LIVENESS_ALIVE);
  g_assert_false (fl_snapshot_get_stale (control));

  /* Another process under that PID. */
  g_assert_cmpint (unlink (fx->lock), ==, 0);
  if (!write_lock_with_identity (fx->lock, child->pid, -1))
    return;
  snapshot = fl_snapshot_new (fx->lock, NULL, &error);
  g_assert_no_error (error);
  g_test_message ("%s", fl_snapshot_get_reason (snapshot));
  g_assert_cmpint (fl_snapshot_get_liveness (snapshot), ==, FL_LIVENESS_REUSED);
  g_assert_true (fl_snapshot_get_stale (snapshot));
  /* Issue 13: never "PID N now belongs to PID N". */
  expected = g_strdup_printf ("PID %d is now another process", (int) child->pid);
  g_assert_nonnull (strstr (fl_snapshot_get_reason (snapshot), expected));

  lock = fl_lock_try_acquire (fx->target, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpint (kill (child->pid, 0), ==, 0);
}

#endif

/* Issue 19, part 5: `flctl clean` removed graveyards whose creator is alive. */
static void
test_graveyard_creator_alive (FlTestDir     *fx,
                              gconstpointer  data)
{
  g_autoptr(FlTestProc) child = fl_test_spawn_waiting ();
  g_autofree char *name = g_strdup_printf ("target.lock.gy.%d.0badf00d", (int) child->pid);
  g_autofree char *path = g_build_filename (fx->dir, name, NULL);
  g_autoptr(FlSnapshot) snapshot = NULL;
  g_autoptr(GError) error = NULL;

  fl_test_write (path, "4242", -1);
  fl_test_set_mtime_ago (path, 3600);

  snapshot = fl_snapshot_new (path, NULL, &error);
  g_assert_no_error (error);
  g_test_message ("%s", fl_snapshot_get_reason (snapshot));
  g_assert_cmpint (fl_snapshot_get_kind (snapshot), ==, FL_ENTRY_GRAVEYARD);
  g_assert_cmpint (fl_snapshot_get_liveness (snapshot), ==, FL_LIVENESS_ALIVE);
  g_assert_false (fl_snapshot_get_stale (snapshot));
  g_assert_false (fl_snapshot_reclaim (snapshot, NULL, &error));
  fl_test_assert_error_names (error, FL_ERROR, FL_ERROR_NOT_STALE, path);
  g_assert_true (fl_test_exists (path));
}

#ifdef __linux__
/* Issue 19, part 5: the holder exited, its child keeps the kernel lock. Status must not call
 * the dead PID "alive" by name, nor name whatever runs under it now. */
static void
test_held_by_child (FlTestDir     *fx,
                    gconstpointer  data)
{
  g_autoptr(FlSnapshot) snapshot = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *expected = NULL;
  int ready[2], hold[2];
  pid_t holder, child = 0;
  int status;
  char byte;

  g_assert_cmpint (pipe2 (ready, O_CLOEXEC), ==, 0);
  g_assert_cmpint (pipe2 (hold, O_CLOEXEC), ==, 0);

  holder = fork ();
  g_assert_cmpint (holder, >=, 0);
  if (holder == 0)
    {
      FlLock *lock = fl_lock_acquire (fx->target, NULL, NULL, NULL);
      pid_t grandchild;

      if (lock == NULL)
        _exit (1);
      grandchild = fork ();
      if (grandchild == 0)
        {
          pid_t me = getpid ();

          /* Its own copy of the write end would keep it from ever seeing EOF. */
          close (hold[1]);
          /* Keeps the inherited descriptor, and with it the kernel lock, until told. */
          if (write (ready[1], &me, sizeof me) != sizeof me)
            _exit (1);
          while (read (hold[0], &byte, 1) < 0 && errno == EINTR)
            ;
          _exit (0);
        }
      if (grandchild < 0)
        _exit (1);
      _exit (0);  /* without releasing: the lock lives on in the grandchild */
    }
  close (ready[1]);
  close (hold[0]);
  g_assert_cmpint (read (ready[0], &child, sizeof child), ==, sizeof child);
  g_assert_cmpint (waitpid (holder, &status, 0), ==, holder);
  g_assert_true (WIFEXITED (status) && WEXITSTATUS (status) == 0);
  g_assert_true (fl_test_kernel_lock_held (fx->lock));

  snapshot = fl_snapshot_new (fx->lock, NULL, &error);
  g_assert_no_error (error);
  g_test_message ("%s", fl_snapshot_get_reason (snapshot));
  g_assert_cmpint (fl_snapshot_get_pid (snapshot), ==, holder);
  g_assert_cmpint (fl_snapshot_get_kernel_lock (snapshot), ==, FL_KERNEL_LOCK_HELD);
  g_assert_cmpint (fl_snapshot_get_liveness (snapshot), ==, FL_LIVENESS_ALIVE);
  g_assert_false (fl_snapshot_get_stale (snapshot));
  /* The process that keeps the lock is named (issue 32): this test runs as its user. */
  expected = g_strdup_printf ("kept by PID %d (", (int) child);
  g_assert_nonnull (strstr (fl_snapshot_get_reason (snapshot), expected));
  g_assert_nonnull (strstr (fl_snapshot_get_reason (snapshot), "has exited"));
  g_assert_null (fl_snapshot_get_process_name (snapshot));
  g_assert_true (fl_snapshot_get_holder_exited (snapshot));
  g_assert_false (fl_snapshot_get_holder_stopped (snapshot));
  g_assert_cmpint (fl_snapshot_get_keeper_pid (snapshot), ==, child);
  g_assert_nonnull (fl_snapshot_get_keeper_name (snapshot));

  /* The child lets go: now it is stale. */
  close (hold[1]);
  g_assert_true (fl_test_wait_pid_gone (child, fl_test_deadline_ms (10000)));
  g_clear_object (&snapshot);
  snapshot = fl_snapshot_new (fx->lock, NULL, &error);
  g_assert_no_error (error);
  g_assert_true (fl_snapshot_get_stale (snapshot));
  close (ready[0]);
}

/* Issue 19, part 5: with too many open files a lock is not "ask its owner". */
static void
test_too_many_open_files (FlTestDir     *fx,
                          gconstpointer  data)
{
  g_autoptr(GArray) fds = g_array_new (FALSE, FALSE, sizeof (int));
  g_autoptr(FlSnapshot) snapshot = NULL;
  g_autoptr(GError) error = NULL;
  struct rlimit saved, low;
  const char *reason;
  int fd;

  fl_test_write (fx->lock, "1", -1);
  g_assert_cmpint (getrlimit (RLIMIT_NOFILE, &saved), ==, 0);
  low = saved;
  low.rlim_cur = MIN (saved.rlim_cur, 256);
  g_assert_cmpint (setrlimit (RLIMIT_NOFILE, &low), ==, 0);

  while ((fd = open ("/dev/null", O_RDONLY | O_CLOEXEC)) >= 0)
    g_array_append_val (fds, fd);
  g_assert_cmpint (errno, ==, EMFILE);
  /* One for the directory, none for the file. */
  close (g_array_index (fds, int, fds->len - 1));
  g_array_set_size (fds, fds->len - 1);

  snapshot = fl_snapshot_new (fx->lock, NULL, &error);

  for (guint i = 0; i < fds->len; i++)
    close (g_array_index (fds, int, i));
  g_assert_cmpint (setrlimit (RLIMIT_NOFILE, &saved), ==, 0);

  g_assert_no_error (error);
  reason = fl_snapshot_get_reason (snapshot);
  g_test_message ("%s", reason);
  g_assert_false (fl_snapshot_get_stale (snapshot));
  g_assert_null (strstr (reason, "owner"));
  g_assert_nonnull (strstr (reason, "too many open files"));
}

static void *
linger_cb (void *data)
{
  int fd = GPOINTER_TO_INT (data);
  char byte;

  while (read (fd, &byte, 1) < 0 && errno == EINTR)
    ;
  _exit (0);
  return NULL;
}

/* A thread-group leader that called pthread_exit() shows state Z while its other threads run:
 * alive, as the original module would say. */
static void
test_zombie_leader_alive (FlTestDir     *fx,
                          gconstpointer  data)
{
  g_autoptr(FlLock) lock = NULL;
  g_autoptr(FlSnapshot) snapshot = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *text = NULL;
  int hold[2];
  pid_t child;
  char state = 0;
  unsigned long flags;
  unsigned long long start;
  gint64 deadline = fl_test_deadline_ms (10000);
  int status;

  g_assert_cmpint (pipe2 (hold, O_CLOEXEC), ==, 0);
  child = fork ();
  g_assert_cmpint (child, >=, 0);
  if (child == 0)
    {
      pthread_t thread;

      close (hold[1]);
      if (pthread_create (&thread, NULL, linger_cb, GINT_TO_POINTER (hold[0])) != 0)
        _exit (1);
      pthread_exit (NULL);
    }
  close (hold[0]);

  /* Wait until the leader shows as a zombie. */
  while (fl_test_read_proc_stat (child, &state, &flags, &start) && state != 'Z')
    {
      g_assert_cmpint (g_get_monotonic_time (), <, deadline);
      g_usleep (1000);
    }
  g_assert_cmpint (state, ==, 'Z');

  text = g_strdup_printf ("%d", (int) child);
  fl_test_write (fx->lock, text, -1);
  snapshot = fl_snapshot_new (fx->lock, NULL, &error);
  g_assert_no_error (error);
  g_test_message ("%s", fl_snapshot_get_reason (snapshot));
  g_assert_cmpint (fl_snapshot_get_liveness (snapshot), ==, FL_LIVENESS_ALIVE);
  g_assert_false (fl_snapshot_get_stale (snapshot));

  /* The last thread ends: now it has exited, and an acquirer (which judges afresh, without
   * an inspector's cache of a moment) takes the lock. */
  close (hold[1]);
  g_assert_cmpint (waitid (P_PID, child, &(siginfo_t) { 0 }, WEXITED | WNOWAIT), ==, 0);
  lock = fl_lock_try_acquire (fx->target, NULL, &error);
  g_assert_no_error (error);
  g_assert_nonnull (lock);
  g_assert_cmpint (waitpid (child, &status, 0), ==, child);
}

#endif

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);

  FL_TEST_ADD ("/libfl/verdict/mtime-moved-back", NULL, test_mtime_moved_back);
  FL_TEST_ADD_LINUX ("/libfl/verdict/reused-by-identity", NULL, test_reused_by_identity,
                     "/proc/PID/stat's start ticks in a written identity (user xattrs)");
  FL_TEST_ADD ("/libfl/verdict/graveyard-creator-alive", NULL, test_graveyard_creator_alive);
  FL_TEST_ADD_LINUX ("/libfl/verdict/held-by-child", NULL, test_held_by_child,
                     "fork(), a child that keeps the exited holder's flock");
  FL_TEST_ADD_LINUX ("/libfl/verdict/too-many-open-files", NULL, test_too_many_open_files,
                     "setrlimit(RLIMIT_NOFILE)");
  FL_TEST_ADD_LINUX ("/libfl/verdict/zombie-leader-alive", NULL, test_zombie_leader_alive,
                     "fork(), a thread-group leader in state Z (/proc/PID/stat)");

  return g_test_run ();
}
