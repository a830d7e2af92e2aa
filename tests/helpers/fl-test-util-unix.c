/* fl-test-util-unix.c: what only Unix gives a test: fork(), every kind of kernel lock, times
 * set by hand, other users
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "fl-test-util.h"
#include "fl-test-counter.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <string.h>
#include <sys/file.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>
#include <linux/sched.h>  /* struct clone_args */

void
fl_test_set_mtime_us (const char *path,
                      gint64      mtime_us)
{
  struct timespec times[2] = {
    { mtime_us / G_USEC_PER_SEC, (mtime_us % G_USEC_PER_SEC) * 1000 },
    { mtime_us / G_USEC_PER_SEC, (mtime_us % G_USEC_PER_SEC) * 1000 },
  };

  g_assert_cmpint (utimensat (AT_FDCWD, path, times, AT_SYMLINK_NOFOLLOW), ==, 0);
}

gint64
fl_test_changed_us (const char *path)
{
  struct stat st;

  g_assert_cmpint (stat (path, &st), ==, 0);
  return MAX ((gint64) st.st_ctim.tv_sec * G_USEC_PER_SEC + st.st_ctim.tv_nsec / 1000,
              (gint64) st.st_mtim.tv_sec * G_USEC_PER_SEC + st.st_mtim.tv_nsec / 1000);
}

guint64
fl_test_file_id (const char *path)
{
  struct stat st;

  g_assert_cmpint (lstat (path, &st), ==, 0);
  return st.st_ino;
}

/* A shared probe from a descriptor of our own fails while anyone (this process included) holds
 * LOCK_EX on the inode through another open file description. */
gboolean
fl_test_kernel_lock_held (const char *path)
{
  gboolean held;
  int fd;

  fd = open (path, O_RDONLY | O_NONBLOCK | O_NOFOLLOW | O_CLOEXEC);
  g_assert_cmpint (fd, >=, 0);
  if (flock (fd, LOCK_SH | LOCK_NB) == 0)
    held = FALSE;
  else
    {
      g_assert_cmpint (errno, ==, EWOULDBLOCK);
      held = TRUE;
    }
  close (fd);
  return held;
}

/* The PID of a child that has exited and been reaped: nothing runs under it now. pid_max may
 * be small (32768), but PIDs are handed out in increasing order, so it is not reused within a
 * test. */
int
fl_test_dead_pid (void)
{
  pid_t pid = fork ();
  int status;

  g_assert_cmpint (pid, >=, 0);
  if (pid == 0)
    _exit (0);
  g_assert_cmpint (waitpid (pid, &status, 0), ==, pid);
  g_assert_true (kill (pid, 0) < 0 && errno == ESRCH);
  return pid;
}

/* A real PID reuse, on demand: a child forked with exactly @pid (clone3's set_tid, which needs
 * CAP_SYS_ADMIN, so root, and Linux 5.5), which waits until it is killed. Returns 0, with
 * errno set, where that cannot be done (another user, an older kernel, @pid in use). */
pid_t
fl_test_fork_with_pid (pid_t pid)
{
  pid_t tids[1] = { pid };
  struct clone_args args;
  long child;

  memset (&args, 0, sizeof args);
  args.exit_signal = SIGCHLD;
  args.set_tid = (guint64) (guintptr) tids;
  args.set_tid_size = 1;
  child = syscall (SYS_clone3, &args, sizeof args);
  if (child == 0)
    {
      /* Raw system calls only: this is a fork of a threaded process. */
      prctl (PR_SET_PDEATHSIG, SIGKILL);
      for (;;)
        pause ();
    }
  return child > 0 ? (pid_t) child : 0;
}

gboolean
fl_test_is_root (void)
{
  return geteuid () == 0;
}

/* Waits until @pid has exited: its pidfd polls readable once the kernel closed its files (and
 * dropped its kernel locks). Without pidfds (old kernels, valgrind) it checks every
 * millisecond whether the process is gone or a zombie, which also comes after its files closed. */
gboolean
fl_test_wait_pid_gone (pid_t  pid,
                       gint64 deadline_us)
{
  int pidfd = (int) syscall (SYS_pidfd_open, pid, 0);
  gboolean gone;

  if (pidfd >= 0)
    {
      struct pollfd pfd = { .fd = pidfd, .events = POLLIN };
      gint64 remaining = deadline_us - g_get_monotonic_time ();

      gone = remaining > 0 && poll (&pfd, 1, (int) MAX (1, remaining / 1000)) == 1;
      close (pidfd);
      return gone;
    }
  if (errno == ESRCH)
    return TRUE;
  while (!(gone = fl_test_pid_is_gone (pid)) && g_get_monotonic_time () < deadline_us)
    g_usleep (1000);
  return gone;
}

gboolean
fl_test_wait_readable (int    fd,
                       gint64 deadline_us)
{
  for (;;)
    {
      struct pollfd pfd = { fd, POLLIN, 0 };
      gint64 left_ms = (deadline_us - g_get_monotonic_time () + 999) / 1000;
      int r;

      if (left_ms <= 0)
        return FALSE;
      r = poll (&pfd, 1, (int) MIN (left_ms, G_MAXINT));
      if (r > 0)
        return TRUE;
      g_assert_true (r == 0 || errno == EINTR);
    }
}

/* Only async-signal-safe calls in the child. */
static gboolean
locker_take (int         fd,
             const char *kind,
             gboolean    blocking)
{
  struct flock range = { .l_type = F_RDLCK, .l_whence = SEEK_SET, .l_start = 0, .l_len = 10 };
  struct flock whole = { .l_type = F_WRLCK, .l_whence = SEEK_SET };

  if (strcmp (kind, "flock") == 0)
    return flock (fd, LOCK_EX | (blocking ? 0 : LOCK_NB)) == 0;
  if (strcmp (kind, "posix") == 0)
    return fcntl (fd, blocking ? F_SETLKW : F_SETLK, &range) == 0;
  return fcntl (fd, blocking ? F_OFD_SETLKW : F_OFD_SETLK, &whole) == 0;
}

FlTestLocker
fl_test_fork_locker (const char *path,
                     const char *kind,
                     gboolean    blocking)
{
  FlTestLocker locker;
  int ready[2], release[2];
  /* Asked before fork(); under valgrind the limit stops below the descriptors it keeps. */
  long max_fd = MIN (sysconf (_SC_OPEN_MAX), 65536);
  char byte = 0;

  g_assert_no_errno (pipe2 (ready, O_CLOEXEC));
  g_assert_no_errno (pipe2 (release, O_CLOEXEC));
  locker.pid = fork ();
  g_assert_cmpint (locker.pid, >=, 0);
  if (locker.pid == 0)
    {
      int fd;
      gboolean ok;

      prctl (PR_SET_PDEATHSIG, SIGKILL);
      /* The ends of other lockers' pipes, inherited, would keep them holding. */
      for (int other = 3; other < max_fd; other++)
        if (other != ready[1] && other != release[0])
          close (other);
      fd = open (path, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
      ok = fd >= 0 && locker_take (fd, kind, blocking);
      byte = ok ? 'y' : 'n';
      /* A blocking one's pipe has no reader any more: nothing to say. */
      if (!ok || (!blocking && write (ready[1], &byte, 1) != 1))
        _exit (1);
      /* Holds until the parent closes its end (or dies). */
      while (read (release[0], &byte, 1) < 0 && errno == EINTR)
        ;
      _exit (0);
    }
  close (ready[1]);
  close (release[0]);
  locker.release_fd = release[1];
  if (!blocking)
    {
      g_assert_true (fl_test_wait_readable (ready[0], fl_test_deadline_ms (10000)));
      g_assert_cmpint (read (ready[0], &byte, 1), ==, 1);
      g_assert_cmpint (byte, ==, 'y');
    }
  close (ready[0]);
  return locker;
}

void
fl_test_locker_release (FlTestLocker *locker)
{
  int status = 0;

  if (locker->pid <= 0)
    return;
  close (locker->release_fd);
  g_assert_cmpint (waitpid (locker->pid, &status, 0), ==, locker->pid);
  locker->pid = 0;
}

void
fl_test_assert_child_ok (int    (*child_cb) (gpointer),
                         gpointer data)
{
  int status;
  pid_t child = fork ();

  g_assert_cmpint (child, >=, 0);
  if (child == 0)
    _exit (child_cb (data));
  g_assert_cmpint (waitpid (child, &status, 0), ==, child);
  g_assert_true (WIFEXITED (status));
  g_assert_cmpint (WEXITSTATUS (status), ==, 0);
}
