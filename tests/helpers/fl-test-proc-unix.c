/* fl-test-proc-unix.c: FlTestProc on Unix: fork/exec through GLib, a pidfd to wait on
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "fl-test-util.h"

#include <errno.h>
#include <grp.h>
#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

/* Runs in the child before exec. A helper dies with the test that spawned it, so that a failed
 * assertion does not leave workers counting on (prctl is async-signal-safe: a system call). */
static void
child_setup_cb (gpointer user_data)
{
  FlTestSpawnFlags flags = GPOINTER_TO_UINT (user_data);

  prctl (PR_SET_PDEATHSIG, SIGKILL);
  if ((flags & FL_TEST_SPAWN_AS_NOBODY) &&
      (setgroups (0, NULL) < 0 || setgid (65534) < 0 || setuid (65534) < 0))
    _exit (99);
}

FlTestProc *
fl_test_proc_spawn (const char * const *argv,
                    const char * const *envp,
                    FlTestSpawnFlags    flags)
{
  g_autoptr(GError) error = NULL;
  FlTestProc *proc = g_new0 (FlTestProc, 1);

  /* CLOEXEC pipes: a later child must not inherit this one's stdin, or closing it would never
   * reach this child as end-of-file. */
  g_spawn_async_with_pipes (NULL, (char **) argv, (char **) envp,
                            G_SPAWN_DO_NOT_REAP_CHILD | G_SPAWN_CLOEXEC_PIPES,
                            child_setup_cb, GUINT_TO_POINTER (flags),
                            &proc->handle, &proc->stdin_fd, &proc->stdout_fd, NULL, &error);
  g_assert_no_error (error);
  proc->pid = proc->handle;
  proc->out = g_string_new (NULL);
  proc->pidfd = (int) syscall (SYS_pidfd_open, proc->pid, 0);
  return proc;
}

/* Reads what is available into proc->out; FALSE at end-of-file or deadline. */
gboolean
_fl_test_proc_fill (FlTestProc *proc,
                    gint64      deadline_us)
{
  struct pollfd pfd = { .fd = proc->stdout_fd, .events = POLLIN };
  char buf[4096];
  gint64 remaining;
  ssize_t n;

  if (proc->stdout_fd < 0)
    return FALSE;
  remaining = deadline_us - g_get_monotonic_time ();
  if (remaining <= 0)
    return FALSE;
  if (poll (&pfd, 1, (int) MAX (1, remaining / 1000)) <= 0)
    return FALSE;
  n = read (proc->stdout_fd, buf, sizeof buf);
  if (n <= 0)
    {
      close (proc->stdout_fd);
      proc->stdout_fd = -1;
      return FALSE;
    }
  g_string_append_len (proc->out, buf, n);
  return TRUE;
}

static gboolean
reap (FlTestProc *proc)
{
  pid_t ret;

  if (proc->exited)
    return TRUE;
  ret = waitpid (proc->pid, &proc->wait_status, WNOHANG);
  g_assert_cmpint (ret, >=, 0);
  if (ret == 0)
    return FALSE;
  proc->exited = TRUE;
  if (proc->pidfd >= 0)
    {
      close (proc->pidfd);
      proc->pidfd = -1;
    }
  return TRUE;
}

/* Reaps one child of @procs that has exited (index), or returns -1 at the deadline. */
int
fl_test_proc_wait_any (GPtrArray *procs,
                       gint64     deadline_us)
{
  for (;;)
    {
      g_autofree struct pollfd *pfds = g_new0 (struct pollfd, MAX (procs->len, 1));
      gint64 remaining;
      guint n = 0;
      gboolean have_pidfds = TRUE;

      for (guint i = 0; i < procs->len; i++)
        {
          FlTestProc *proc = g_ptr_array_index (procs, i);

          if (proc->exited)
            continue;
          if (reap (proc))
            return (int) i;
          if (proc->pidfd < 0)
            have_pidfds = FALSE;
          pfds[n].fd = proc->pidfd;
          pfds[n].events = POLLIN;
          n++;
        }
      if (n == 0)
        return -1;
      remaining = deadline_us - g_get_monotonic_time ();
      if (remaining <= 0)
        return -1;
      /* Without pidfds (old kernels) this degrades to a short poll of waitpid(). */
      poll (pfds, n, have_pidfds ? (int) MAX (1, remaining / 1000) : 5);
    }
}

void
fl_test_proc_kill (FlTestProc *proc)
{
  if (proc->exited)
    return;
  kill (proc->pid, SIGKILL);
  g_assert_cmpint (waitpid (proc->pid, &proc->wait_status, 0), ==, proc->pid);
  proc->exited = TRUE;
  if (proc->pidfd >= 0)
    {
      close (proc->pidfd);
      proc->pidfd = -1;
    }
}

/* The exit status, 128 + signal for a killed child, -1 while it runs. */
int
fl_test_proc_exit_code (FlTestProc *proc)
{
  if (!proc->exited)
    return -1;
  if (WIFEXITED (proc->wait_status))
    return WEXITSTATUS (proc->wait_status);
  if (WIFSIGNALED (proc->wait_status))
    return 128 + WTERMSIG (proc->wait_status);
  return -1;
}
