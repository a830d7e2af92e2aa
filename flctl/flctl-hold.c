/* flctl-hold.c: the hidden `flctl hold TARGET`, a process that holds one lock until signalled
 *
 * `flctl demo` runs its live holders this way, and tests use it as a holder they can kill.
 * It prints "held PID" once the lock is its own, and releases it on SIGTERM, SIGINT or SIGHUP.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <stdio.h>
#include <unistd.h>

#include <glib/gi18n.h>

#include "flctl-os.h"
#include "flctl-private.h"

static gboolean
quit_cb (gpointer user_data)
{
  g_main_loop_quit (user_data);
  return G_SOURCE_CONTINUE;
}

int
flctl_hold_main (const FlctlArgs *args)
{
  g_autoptr(GMainLoop) loop = NULL;
  g_autoptr(FlLock) lock = NULL;
  g_autoptr(GError) error = NULL;
  guint stop_handler;

  /* Shown as the holder's process name by status, list and the inspector. */
  if (args->process_name != NULL)
    flctl_os_set_process_name (args->process_name);

  loop = g_main_loop_new (NULL, FALSE);
  stop_handler = flctl_os_add_stop_handler (quit_cb, loop);

  lock = fl_lock_try_acquire (args->operands[0], NULL, &error);
  if (lock == NULL)
    return flctl_report_error ("hold", error);

  g_print ("held %d\n", (int) getpid ());
  fflush (stdout);
  g_main_loop_run (loop);

  flctl_os_remove_stop_handler (stop_handler);
  if (!fl_lock_release (lock, &error))
    return flctl_report_error ("hold", error);
  return FLCTL_EXIT_OK;
}
