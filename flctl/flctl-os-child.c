/* flctl-os-child.c: the end of `flctl run`'s COMMAND, the same on every platform
 *
 * GLib's child watch reaps the child (waitpid, or the process handle on Windows); each
 * platform file then reads the status its own way (flctl_os_run_child_status()).
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include "flctl-os.h"

static void
child_exited_cb (GPid     pid,
                 int      wait_status,
                 gpointer user_data)
{
  FlctlOsChild *child = user_data;

  child->wait_status = wait_status;
  child->running = FALSE;
  g_spawn_close_pid (pid);
  child->exit_func (child->exit_data);
}

void
flctl_os_child_watch (FlctlOsChild    *child,
                      GPid             pid,
                      FlctlOsExitFunc  exit_func,
                      gpointer         user_data)
{
  child->exit_func = exit_func;
  child->exit_data = user_data;
  child->running = TRUE;
  g_child_watch_add (pid, child_exited_cb, child);
}
