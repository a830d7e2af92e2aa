/* flctl-run.c: `flctl run TARGET -- COMMAND`, hold a lock while a command runs
 *
 * While flctl waits for the lock, a stop request (a signal on Unix, a console control event
 * on Windows) cancels the wait (libfl leaves no lock and no temp file) and flctl dies of it.
 * While COMMAND runs, how the lock reaches COMMAND and what a stop request does is per OS
 * (flctl-os-unix.c, flctl-os-win32.c). Once COMMAND is gone the lock is released and flctl
 * exits with COMMAND's status, or dies of COMMAND's signal, as a shell reports it (128+N).
 *
 * A lock with a fencing token (etcd) gives it to COMMAND as FL_FENCING_TOKEN, so that COMMAND
 * can fence what it writes (docs/fencing.md). Such a lock can be lost while COMMAND runs (its
 * lease expired or was revoked): flctl says so at once and sends COMMAND --lost-signal, since
 * another holder may already be inside, and exits 74 once COMMAND is gone, whatever COMMAND's
 * status: its work was not all protected. A file lock is never lost while held (its kernel
 * lock is COMMAND's too); one removed by a forced reclaim is told at the release.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <glib/gi18n.h>

#include "flctl-os.h"
#include "flctl-private.h"

typedef struct
{
  const char    *target;
  char         **command;
  gboolean       verbose;
  GMainLoop     *loop;
  GCancellable  *cancellable;
  FlLock        *lock;
  GError        *error;
  FlctlOsRun    *os;
  int            caught_signal;
  gboolean       child_running;
  int            lost_signal;
  gboolean       lost;
} Run;

static void
run_clear (Run *run)
{
  g_clear_pointer (&run->os, flctl_os_run_free);
  g_clear_object (&run->lock);
  g_clear_object (&run->cancellable);
  g_clear_pointer (&run->loop, g_main_loop_unref);
  g_clear_error (&run->error);
}

static void
stop_cb (int      signo,
         gpointer user_data)
{
  Run *run = user_data;

  run->caught_signal = signo;
  g_cancellable_cancel (run->cancellable);
}

static void
child_exited_cb (gpointer user_data)
{
  Run *run = user_data;

  run->child_running = FALSE;
  g_main_loop_quit (run->loop);
}

/* At once, not after COMMAND: another holder may be inside already. */
static void
lost_cb (FlLock   *lock,
         gpointer  user_data)
{
  Run *run = user_data;
  g_autofree char *target = flctl_printable (run->target);

  run->lost = TRUE;
  if (!run->child_running)
    g_printerr (_("flctl run: lost the lock of %s (its lease expired or was revoked)\n"),
                target);
  else if (run->lost_signal != 0)
    {
      g_printerr (_("flctl run: lost the lock of %s while COMMAND runs (its lease expired or "
                    "was revoked): sending it signal %d\n"), target, run->lost_signal);
      flctl_os_run_signal (run->os, run->lost_signal);
    }
  else
    {
      g_printerr (_("flctl run: lost the lock of %s while COMMAND runs (its lease expired or "
                    "was revoked); COMMAND goes on unprotected (--lost-signal none)\n"), target);
    }
}

/* COMMAND's environment: flctl's, and the lock's fencing token where it has one. */
static char **
command_environment (FlLock *lock)
{
  guint64 token = fl_lock_get_fencing_token (lock);
  g_autofree char *text = NULL;

  if (token == 0)
    return NULL;
  text = g_strdup_printf ("%" G_GUINT64_FORMAT, token);
  return g_environ_setenv (g_get_environ (), "FL_FENCING_TOKEN", text, TRUE);
}

static void
spawn_command (Run *run)
{
  g_autoptr(GError) error = NULL;
  g_auto(GStrv) envp = command_environment (run->lock);

  g_signal_connect (run->lock, "lost", G_CALLBACK (lost_cb), run);
  if (!flctl_os_run_spawn (run->os, run->command, envp, run->lock, child_exited_cb, run,
                           &error))
    {
      g_propagate_error (&run->error, g_steal_pointer (&error));
      g_main_loop_quit (run->loop);
      return;
    }
  run->child_running = TRUE;
}
static void
acquired_cb (GObject      *source,
             GAsyncResult *result,
             gpointer      user_data)
{
  Run *run = user_data;

  run->lock = fl_lock_acquire_finish (result, &run->error);
  if (run->lock != NULL && run->caught_signal == 0)
    spawn_command (run);
  else
    g_main_loop_quit (run->loop);
}

static void
print_busy (Run          *run,
            const GError *error,
            double        wait_s)
{
  g_autoptr(FlSnapshot) snapshot = fl_snapshot_new_for_target (run->target, NULL, NULL);
  g_autofree char *target = flctl_printable (run->target);
  g_autofree char *holder = NULL;

  if (snapshot == NULL)
    {
      flctl_print_error ("run", "%s", error->message);
      return;
    }
  holder = flctl_describe_holder (snapshot, g_get_real_time ());
  if (g_error_matches (error, FL_ERROR, FL_ERROR_TIMEOUT))
    g_printerr (_("flctl run: gave up after %g s: %s is locked by %s\n"), wait_s, target, holder);
  else
    g_printerr (_("flctl run: %s is locked by %s\n"), target, holder);
}

static void
print_waiting (Run *run)
{
  g_autoptr(FlSnapshot) snapshot = fl_snapshot_new_for_target (run->target, NULL, NULL);
  g_autofree char *target = flctl_printable (run->target);
  g_autofree char *holder = NULL;

  if (snapshot == NULL)
    return;
  holder = flctl_describe_holder (snapshot, g_get_real_time ());
  g_printerr (_("flctl run: waiting for %s, locked by %s\n"), target, holder);
}

static int
run_locked (Run                 *run,
            const FlLockOptions *options,
            gboolean             no_wait,
            double               wait_s,
            int                  busy_status)
{
  g_autoptr(GError) error = NULL;

  run->loop = g_main_loop_new (NULL, FALSE);
  run->cancellable = g_cancellable_new ();
  run->os = flctl_os_run_new (stop_cb, run);
  if (run->os == NULL)
    {
      g_printerr ("flctl run: cannot set up signal handling: %s\n", g_strerror (errno));
      return FLCTL_EXIT_IO;
    }

  run->lock = fl_lock_try_acquire (run->target, options, &error);
  if (run->lock == NULL)
    {
      if (!g_error_matches (error, FL_ERROR, FL_ERROR_BUSY) || no_wait || wait_s == 0)
        {
          if (g_error_matches (error, FL_ERROR, FL_ERROR_BUSY))
            {
              print_busy (run, error, wait_s);
              return busy_status;
            }
          return flctl_report_error ("run", error);
        }
      g_clear_error (&error);
      if (run->verbose || flctl_os_isatty (STDERR_FILENO))
        print_waiting (run);
      fl_lock_acquire_async (run->target, options, run->cancellable, acquired_cb, run);
    }
  else
    {
      spawn_command (run);
    }
  if (run->child_running || run->lock == NULL)
    g_main_loop_run (run->loop);

  if (run->lock == NULL)
    {
      if (run->caught_signal != 0)
        flctl_die_by_signal (run->caught_signal);
      if (g_error_matches (run->error, FL_ERROR, FL_ERROR_TIMEOUT)
          || g_error_matches (run->error, FL_ERROR, FL_ERROR_BUSY))
        {
          print_busy (run, run->error, wait_s);
          return busy_status;
        }
      return flctl_report_error ("run", run->error);
    }

  /* COMMAND has ended, or never started (it could not be run, or a signal came with the
   * lock): release first, then report. A loss was told when it came. */
  if (!fl_lock_release (run->lock, &error) && !(run->lost && g_error_matches (error, FL_ERROR,
                                                                                FL_ERROR_LOST)))
    {
      flctl_report_error ("run", error);
      if (run->error == NULL && run->caught_signal == 0 && flctl_os_run_child_signal (run->os) == 0)
        return FLCTL_EXIT_IO;
    }
  if (run->caught_signal != 0)
    flctl_die_by_signal (run->caught_signal);
  if (run->lost)
    return FLCTL_EXIT_IO;
  if (run->error != NULL)
    {
      /* The shell's statuses for a command it cannot find or cannot run. */
      flctl_print_error ("run", "%s", run->error->message);
      return g_error_matches (run->error, G_SPAWN_ERROR, G_SPAWN_ERROR_NOENT) ? 127 : 126;
    }
  if (flctl_os_run_child_signal (run->os) != 0)
    flctl_die_by_signal (flctl_os_run_child_signal (run->os));
  return flctl_os_run_child_status (run->os);
}

/* `flctl run T.lock` locks T.lock.lock, which excludes nobody who locks T: almost always a
 * mistake, but a legal target, so a warning and not a refusal. */
static void
warn_if_lock_file (const char *target)
{
  g_autofree char *meant = NULL;

  if (flctl_is_etcd (target) || !g_str_has_suffix (target, ".lock")
      || !flctl_looks_like_lock_file (target))
    return;
  meant = g_strndup (target, strlen (target) - strlen (".lock"));
  flctl_print_error ("run", _("warning: '%s' is a lock file; its own lock is '%s.lock', which "
                              "does not exclude the holders of '%s'. To lock what it protects, "
                              "give '%s'."), target, target, target, meant);
}

int
flctl_run_main (const FlctlArgs *args)
{
  g_autoptr(FlLockOptions) options = fl_lock_options_new ();
  Run run = { 0 };
  int status;

  run.target = args->operands[0];
  run.command = args->command_argv;
  run.verbose = args->verbose;
  run.lost_signal = args->lost_signal;
  warn_if_lock_file (run.target);
  fl_lock_options_set_timeout_ms (options, args->wait_s == FLCTL_WAIT_FOREVER
                                           ? FL_TIMEOUT_INFINITE
                                           : (gint64) (args->wait_s * 1000));

  status = run_locked (&run, options, args->no_wait, args->wait_s, args->conflict_exit_code);
  run_clear (&run);
  return status;
}
