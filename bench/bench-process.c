/* bench-process.c: children, the pipes that order them, and waiting with deadlines
 *
 * Every wait here has a deadline: a benchmark that hangs on a lost wake-up says which step hung
 * instead of running forever.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "bench.h"

pid_t
bench_fork (void)
{
  pid_t pid;

  fflush (stdout);
  fflush (stderr);
  pid = fork ();
  if (pid < 0)
    bench_die ("fork: %s", g_strerror (errno));
  return pid;
}

void
bench_pipe (int fds[2])
{
  if (pipe2 (fds, O_CLOEXEC) < 0)
    bench_die ("pipe2: %s", g_strerror (errno));
}

void
bench_send_byte (int fd)
{
  char c = 'x';

  while (write (fd, &c, 1) < 0)
    if (errno != EINTR)
      bench_die ("write to pipe: %s", g_strerror (errno));
}

void
bench_wait_byte (int         fd,
                 int         timeout_ms,
                 const char *what)
{
  struct pollfd pfd = { .fd = fd, .events = POLLIN };
  gint64 deadline = g_get_monotonic_time () + (gint64) timeout_ms * 1000;
  char c;
  gssize n;

  for (;;)
    {
      gint64 left_ms = (deadline - g_get_monotonic_time ()) / 1000;
      int r;

      if (left_ms < 0)
        bench_die ("%s: nothing after %d ms", what, timeout_ms);
      r = poll (&pfd, 1, (int) left_ms);
      if (r < 0 && errno == EINTR)
        continue;
      if (r < 0)
        bench_die ("%s: poll: %s", what, g_strerror (errno));
      if (r > 0)
        break;
    }

  do
    n = read (fd, &c, 1);
  while (n < 0 && errno == EINTR);
  if (n <= 0)
    bench_die ("%s: the other process went away", what);
}

static void
check_status (pid_t       pid,
              int         status,
              const char *what)
{
  if (WIFEXITED (status) && WEXITSTATUS (status) == 0)
    return;
  if (WIFEXITED (status))
    bench_die ("%s: process %d exited with status %d", what, (int) pid, WEXITSTATUS (status));
  bench_die ("%s: process %d killed by signal %d", what, (int) pid, WTERMSIG (status));
}

/* Waits on a pidfd where there is one, so the deadline costs no polling. */
void
bench_wait_child (pid_t       pid,
                  int         timeout_ms,
                  const char *what)
{
  int pidfd = (int) syscall (SYS_pidfd_open, pid, 0);
  gint64 deadline = g_get_monotonic_time () + (gint64) timeout_ms * 1000;
  int status;

  for (;;)
    {
      pid_t r = waitpid (pid, &status, WNOHANG);
      gint64 left_ms;

      if (r == pid)
        break;
      if (r < 0 && errno != EINTR)
        bench_die ("%s: waitpid(%d): %s", what, (int) pid, g_strerror (errno));

      left_ms = (deadline - g_get_monotonic_time ()) / 1000;
      if (left_ms < 0)
        {
          kill (pid, SIGKILL);
          waitpid (pid, &status, 0);
          bench_die ("%s: process %d still running after %d ms (killed)", what, (int) pid,
                     timeout_ms);
        }
      if (pidfd >= 0)
        {
          struct pollfd pfd = { .fd = pidfd, .events = POLLIN };

          poll (&pfd, 1, (int) MIN (left_ms + 1, G_MAXINT));
        }
      else
        bench_sleep_ns (1000000);
    }

  if (pidfd >= 0)
    close (pidfd);
  check_status (pid, status, what);
}

void
bench_wait_children (const pid_t *pids,
                     guint        n,
                     int          timeout_ms,
                     const char  *what)
{
  gint64 deadline = g_get_monotonic_time () + (gint64) timeout_ms * 1000;

  for (guint i = 0; i < n; i++)
    {
      gint64 left_ms = MAX ((deadline - g_get_monotonic_time ()) / 1000, 0);

      bench_wait_child (pids[i], (int) MIN (left_ms, G_MAXINT), what);
    }
}

/* Removes every file a run left in a scratch directory, so the next method starts clean. */
void
bench_scratch_clean (const char *dir)
{
  DIR *d = opendir (dir);
  struct dirent *ent;

  if (d == NULL)
    bench_die ("%s: %s", dir, g_strerror (errno));
  while ((ent = readdir (d)) != NULL)
    {
      if (strcmp (ent->d_name, ".") == 0 || strcmp (ent->d_name, "..") == 0)
        continue;
      if (unlinkat (dirfd (d), ent->d_name, 0) < 0 && errno != ENOENT)
        bench_die ("%s/%s: %s", dir, ent->d_name, g_strerror (errno));
    }
  closedir (d);
}
