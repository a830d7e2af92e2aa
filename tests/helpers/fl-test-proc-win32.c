/* fl-test-proc-win32.c: FlTestProc on Windows: GLib's spawn, the process HANDLE to wait on
 *
 * Anonymous pipes cannot be waited on with a timeout (no overlapped I/O on them), so reading
 * with a deadline asks PeekNamedPipe() whether bytes wait, each millisecond until the deadline:
 * a condition re-asked, never a sleep that stands for an event.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "fl-test-util.h"

#include <io.h>
#include <windows.h>

/* What a kill looks like to fl_test_proc_exit_code(): 128 + SIGKILL, as on Unix. */
#define KILLED_EXIT_CODE 137

/* Under wine on a loaded machine, GLib's start of its spawn helper now and then fails with
 * "Failed to execute helper program (Invalid argument)": CreateProcessW failed, and wine's
 * msvcrt reports that as EINVAL (seen in test-directory-model-live's fl_test_dead_pid(), tests
 * run one at a time; build-aux/test saw it with parallel ones). Nothing of libfl's is involved,
 * and the same call again starts the process: only that error is tried again, a few times,
 * each said in the log; any other fails the test at once. */
#define SPAWN_TRIES 5

void
_fl_test_spawn_win32 (const char * const *argv,
                      const char * const *envp,
                      GSpawnFlags         flags,
                      GPid               *handle,
                      int                *stdin_fd,
                      int                *stdout_fd)
{
  for (guint i = 1; ; i++)
    {
      g_autoptr(GError) error = NULL;

      if (g_spawn_async_with_pipes (NULL, (char **) argv, (char **) envp,
                                    flags | G_SPAWN_DO_NOT_REAP_CHILD, NULL, NULL, handle,
                                    stdin_fd, stdout_fd, NULL, &error))
        return;
      if (i == SPAWN_TRIES || !g_error_matches (error, G_SPAWN_ERROR, G_SPAWN_ERROR_FAILED))
        g_assert_no_error (error);
      g_test_message ("spawning %s, try %u: %s; again", argv[0], i, error->message);
    }
}

FlTestProc *
fl_test_proc_spawn (const char * const *argv,
                    const char * const *envp,
                    FlTestSpawnFlags    flags)
{
  FlTestProc *proc = g_new0 (FlTestProc, 1);

  g_assert_true (flags == FL_TEST_SPAWN_DEFAULT);  /* AS_NOBODY is Unix only */
  _fl_test_spawn_win32 (argv, envp, 0, &proc->handle, &proc->stdin_fd, &proc->stdout_fd);
  proc->pid = (int) GetProcessId (proc->handle);
  proc->pidfd = -1;
  proc->out = g_string_new (NULL);
  return proc;
}

gboolean
_fl_test_proc_fill (FlTestProc *proc,
                    gint64      deadline_us)
{
  HANDLE pipe;
  char buf[4096];

  if (proc->stdout_fd < 0)
    return FALSE;
  pipe = (HANDLE) _get_osfhandle (proc->stdout_fd);
  for (;;)
    {
      DWORD available = 0;
      int n;

      /* Fails with ERROR_BROKEN_PIPE once the child closed its end and all was read. */
      if (!PeekNamedPipe (pipe, NULL, 0, NULL, &available, NULL))
        break;
      if (available > 0)
        {
          n = read (proc->stdout_fd, buf, (unsigned int) MIN (available, sizeof buf));
          if (n <= 0)
            break;
          g_string_append_len (proc->out, buf, n);
          return TRUE;
        }
      if (g_get_monotonic_time () >= deadline_us)
        return FALSE;
      Sleep (1);
    }
  close (proc->stdout_fd);
  proc->stdout_fd = -1;
  return FALSE;
}

static void
reaped (FlTestProc *proc)
{
  DWORD code = 0;

  g_assert_true (GetExitCodeProcess (proc->handle, &code));
  proc->wait_status = (int) code;
  proc->exited = TRUE;
  g_spawn_close_pid (proc->handle);
}

/* Reaps one child of @procs that has exited (index), or returns -1 at the deadline. */
int
fl_test_proc_wait_any (GPtrArray *procs,
                       gint64     deadline_us)
{
  HANDLE handles[MAXIMUM_WAIT_OBJECTS];
  guint index[MAXIMUM_WAIT_OBJECTS];
  gint64 remaining;
  DWORD n = 0, ret;

  for (guint i = 0; i < procs->len; i++)
    {
      FlTestProc *proc = g_ptr_array_index (procs, i);

      if (proc->exited)
        continue;
      g_assert_cmpuint (n, <, MAXIMUM_WAIT_OBJECTS);
      handles[n] = proc->handle;
      index[n++] = i;
    }
  if (n == 0)
    return -1;
  remaining = deadline_us - g_get_monotonic_time ();
  ret = WaitForMultipleObjects (n, handles, FALSE,
                                remaining <= 0 ? 0 : (DWORD) MIN (remaining / 1000 + 1, G_MAXINT));
  if (ret == WAIT_TIMEOUT)
    return -1;
  g_assert_cmpuint (ret, <, WAIT_OBJECT_0 + n);
  reaped (g_ptr_array_index (procs, index[ret - WAIT_OBJECT_0]));
  return (int) index[ret - WAIT_OBJECT_0];
}

void
fl_test_proc_kill (FlTestProc *proc)
{
  if (proc->exited)
    return;
  /* Fails only when it has exited already: the wait below then returns at once. */
  TerminateProcess (proc->handle, KILLED_EXIT_CODE);
  g_assert_cmpuint (WaitForSingleObject (proc->handle, INFINITE), ==, WAIT_OBJECT_0);
  reaped (proc);
}

int
fl_test_proc_exit_code (FlTestProc *proc)
{
  return proc->exited ? proc->wait_status : -1;
}
