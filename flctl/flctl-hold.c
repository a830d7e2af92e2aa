/* flctl-hold.c: the hidden `flctl hold TARGET`, a process that holds one lock until signalled
 *
 * `flctl demo` runs its live holders this way, and tests use it as a holder they can kill.
 * It prints "held PID" once the lock is its own, and releases it on SIGTERM, SIGINT or SIGHUP.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <stdio.h>
#include <sys/prctl.h>
#include <unistd.h>

#include <glib/gi18n.h>
#include <glib-unix.h>

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
  guint sources[3];

  /* Shown as the holder's process name by status, list and the inspector. */
  if (args->process_name != NULL)
    prctl (PR_SET_NAME, args->process_name, 0, 0, 0);

  loop = g_main_loop_new (NULL, FALSE);
  sources[0] = g_unix_signal_add (SIGTERM, quit_cb, loop);
  sources[1] = g_unix_signal_add (SIGINT, quit_cb, loop);
  sources[2] = g_unix_signal_add (SIGHUP, quit_cb, loop);

  lock = fl_lock_try_acquire (args->operands[0], NULL, &error);
  if (lock == NULL)
    return flctl_report_error ("hold", error);

  g_print ("held %d\n", (int) getpid ());
  fflush (stdout);
  g_main_loop_run (loop);

  for (gsize i = 0; i < G_N_ELEMENTS (sources); i++)
    g_source_remove (sources[i]);
  if (!fl_lock_release (lock, &error))
    return flctl_report_error ("hold", error);
  return FLCTL_EXIT_OK;
}
