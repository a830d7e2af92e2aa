/* fl-test-worker-unix.c: workers die with their runner (Linux: the parent-death signal)
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "fl-test-worker.h"

#include <signal.h>
#ifdef __linux__
# include <sys/prctl.h>
#endif

void
_fl_test_worker_platform_init (void)
{
}

/* Runs in the child before exec: a system call, async-signal-safe. Elsewhere a worker whose
 * runner died reads end-of-file on its stdin, or finishes its sections. */
static void
child_setup_cb (gpointer user_data)
{
#ifdef __linux__
  prctl (PR_SET_PDEATHSIG, SIGKILL);
#endif
}

GSubprocessLauncher *
_fl_test_worker_launcher (GSubprocessFlags flags)
{
  GSubprocessLauncher *launcher = g_subprocess_launcher_new (flags);

  g_subprocess_launcher_set_child_setup (launcher, child_setup_cb, NULL, NULL);
  return launcher;
}
