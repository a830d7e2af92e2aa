/* fl-test-worker-win32.c: workers die with their runner (a job object that kills on close)
 *
 * The runner puts itself in a job whose last handle, its own, kills every process in it when
 * closed: at the runner's exit, however it ends. Workers are in the job from birth, since a
 * child inherits its parent's job, so none is ever outside it.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "fl-test-worker.h"

#include <stdio.h>
#include <windows.h>

void
_fl_test_worker_platform_init (void)
{
  JOBOBJECT_EXTENDED_LIMIT_INFORMATION limits = { 0 };
  HANDLE job = CreateJobObjectW (NULL, NULL);

  limits.BasicLimitInformation.LimitFlags = JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE;
  /* Never closed: it closes with the process. Not fatal when refused (a runner already in a
   * job that forbids nesting): the workers then end when their stdin or their work ends. */
  if (job == NULL ||
      !SetInformationJobObject (job, JobObjectExtendedLimitInformation, &limits, sizeof limits) ||
      !AssignProcessToJobObject (job, GetCurrentProcess ()))
    fprintf (stderr, "# workers are not tied to this runner (Win32 error %lu)\n",
             GetLastError ());
}

GSubprocessLauncher *
_fl_test_worker_launcher (GSubprocessFlags flags)
{
  return g_subprocess_launcher_new (flags);
}
