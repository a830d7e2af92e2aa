/* fl-test-attacker.c: a hostile neighbour that takes LOCK_SH on every new temp file
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/file.h>
#include <sys/inotify.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "fl-test-attacker.h"

#define ATTACKER_HOLD_MAX 8  /* shared locks held at once before the attacker lets go */

static void
attacker_run (const char *dir,
              int         control_fd,
              int         report_fd)
{
  int held[ATTACKER_HOLD_MAX];
  guint n_held = 0;
  guint64 wins = 0;
  char buf[4096] __attribute__ ((aligned (__alignof__ (struct inotify_event))));
  int in = inotify_init1 (IN_CLOEXEC | IN_NONBLOCK);
  int dirfd = open (dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);

  prctl (PR_SET_PDEATHSIG, SIGKILL);
  if (in < 0 || dirfd < 0 || inotify_add_watch (in, dir, IN_CREATE) < 0)
    _exit (1);
  /* Ready: the watch exists, so no temp created from now on escapes it. */
  if (write (report_fd, "r", 1) != 1)
    _exit (1);

  for (;;)
    {
      struct pollfd fds[2] = { { in, POLLIN, 0 }, { control_fd, POLLIN, 0 } };
      gssize len;

      /* "Holds it a little": until the next quiet millisecond, or a few files later. */
      if (poll (fds, 2, 1) == 0 || n_held == ATTACKER_HOLD_MAX)
        while (n_held > 0)
          close (held[--n_held]);
      if (fds[1].revents != 0)
        break;

      len = read (in, buf, sizeof buf);
      for (char *p = buf; len > 0 && p < buf + len;)
        {
          const struct inotify_event *ev = (const struct inotify_event *) p;
          int fd;

          p += sizeof *ev + ev->len;
          if (ev->len == 0 || !g_str_has_suffix (ev->name, ".tmp"))
            continue;
          fd = openat (dirfd, ev->name, O_RDONLY | O_NONBLOCK | O_NOFOLLOW | O_CLOEXEC);
          if (fd < 0)
            continue;
          if (flock (fd, LOCK_SH | LOCK_NB) == 0)
            wins++;
          if (n_held < ATTACKER_HOLD_MAX)
            held[n_held++] = fd;
          else
            close (fd);
        }
    }

  if (write (report_fd, &wins, sizeof wins) != sizeof wins)
    _exit (1);
  _exit (0);
}

void
fl_test_attacker_start (FlTestAttacker *self,
                        const char     *dir)
{
  int control[2], report[2];
  char ready;

  g_assert_cmpint (pipe2 (control, O_CLOEXEC), ==, 0);
  g_assert_cmpint (pipe2 (report, O_CLOEXEC), ==, 0);
  self->pid = fork ();
  g_assert_cmpint (self->pid, >=, 0);
  if (self->pid == 0)
    {
      close (control[1]);
      close (report[0]);
      attacker_run (dir, control[0], report[1]);
    }
  close (control[0]);
  close (report[1]);
  self->control_fd = control[1];
  self->report_fd = report[0];
  g_assert_cmpint (read (self->report_fd, &ready, 1), ==, 1);
}

guint64
fl_test_attacker_stop (FlTestAttacker *self,
                       gboolean        reaped_elsewhere)
{
  guint64 wins = 0;
  int status = 0;
  pid_t reaped;

  if (self->pid <= 0)
    return 0;
  close (self->control_fd);
  g_assert_cmpint (read (self->report_fd, &wins, sizeof wins), ==, sizeof wins);
  close (self->report_fd);
  reaped = waitpid (self->pid, &status, 0);
  if (!reaped_elsewhere)
    {
      g_assert_cmpint (reaped, ==, self->pid);
      g_assert_true (WIFEXITED (status) && WEXITSTATUS (status) == 0);
    }
  self->pid = 0;
  return wins;
}
