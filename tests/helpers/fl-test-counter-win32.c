/* fl-test-counter-win32.c: the processes and links of fl-test-counter.c on Windows
 *
 * A process is gone when its handle is signalled (or no process has its id); Windows has no
 * zombie and no "exiting" a test could see apart from that, so gone and exiting are one.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "fl-test-counter.h"

#include <errno.h>
#include <windows.h>

int
_fl_test_counter_thread_id (void)
{
  return (int) GetCurrentThreadId ();
}

/* link()'s contract: 0, or -1 with EEXIST when @to exists. A marker being deleted while
 * another process still has it open is "delete pending": its name stays, and a link over it
 * fails with ERROR_ACCESS_DENIED. That is a marker still there, its holder inside a moment ago:
 * EEXIST too. */
int
_fl_test_counter_link (const char *from,
                       const char *to)
{
  DWORD code;

  if (CreateHardLinkA (to, from, NULL))
    return 0;
  code = GetLastError ();
  errno = code == ERROR_ALREADY_EXISTS || code == ERROR_FILE_EXISTS ||
          code == ERROR_ACCESS_DENIED ? EEXIST : EIO;
  return -1;
}

void
_fl_test_counter_yield (void)
{
  SwitchToThread ();
}

int
fl_test_pid_is_gone (pid_t pid)
{
  HANDLE process;
  DWORD wait;

  if (pid <= 0)
    return 0;
  process = OpenProcess (SYNCHRONIZE, FALSE, (DWORD) pid);
  if (process == NULL)
    return GetLastError () == ERROR_INVALID_PARAMETER;  /* no such process */
  wait = WaitForSingleObject (process, 0);
  CloseHandle (process);
  return wait == WAIT_OBJECT_0;
}

int
fl_test_pid_is_exiting (pid_t pid)
{
  return fl_test_pid_is_gone (pid);
}
