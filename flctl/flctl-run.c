/* flctl-run.c: `flctl run TARGET -- COMMAND`, hold a lock while a command runs
 *
 * Signals: SIGINT, SIGTERM, SIGHUP and SIGQUIT are blocked and read from a signalfd, so that
 * one main loop sees them with their sender. While flctl waits for the lock, one of them
 * cancels the wait (libfl leaves no lock and no temp file) and flctl dies of it. While COMMAND
 * runs, one sent with kill() is passed on to COMMAND; one from the terminal is not, because
 * the terminal sent it to COMMAND's process group already. Once COMMAND is gone the lock is
 * released and flctl exits with COMMAND's status, or dies of COMMAND's signal, as a shell
 * reports it (128+N). Signals that were ignored when flctl started stay ignored, for COMMAND
 * too (nohup, background jobs): COMMAND is started with posix_spawn(), which, unlike GLib's
 * spawn, leaves an ignored signal ignored, and gets the signal mask flctl started with.
 *
 * As flock(1) does, COMMAND inherits a descriptor of the lock file (fl_lock_dup_fd()), which
 * shares the kernel lock: if flctl is killed, the lock lives exactly as long as COMMAND, and
 * libfl judges it held by a child of flctl's PID. Every other descriptor is passed on too, as
 * a shell would, so `flctl run T -- cmd 3<file` works.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <errno.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <string.h>
#include <sys/signalfd.h>
#include <sys/wait.h>
#include <unistd.h>

#include <glib/gi18n.h>
#include <glib-unix.h>

#include "flctl-private.h"

static const int handled_signals[] = { SIGINT, SIGTERM, SIGHUP, SIGQUIT };

typedef struct
{
  const char    *target;
  char         **command;
  gboolean       verbose;
  GMainLoop     *loop;
  GCancellable  *cancellable;
  FlLock        *lock;
  GError        *error;
  sigset_t       saved_mask;
  int            signal_fd;
  guint          signal_source;
  int            caught_signal;
  GPid           child;
  gboolean       child_running;
  int            wait_status;
} Run;

static void
run_clear (Run *run)
{
  g_clear_handle_id (&run->signal_source, g_source_remove);
  if (run->signal_fd >= 0)
    close (run->signal_fd);
  run->signal_fd = -1;
  g_clear_object (&run->lock);
  g_clear_object (&run->cancellable);
  g_clear_pointer (&run->loop, g_main_loop_unref);
  g_clear_error (&run->error);
}

static void
forward_signal (Run                           *run,
                const struct signalfd_siginfo *info)
{
  if (info->ssi_code == SI_KERNEL || (GPid) info->ssi_pid == run->child)
    return;
  if (run->child > 0)
    kill (run->child, (int) info->ssi_signo);
}

static gboolean
signal_cb (int          fd,
           GIOCondition condition,
           gpointer     user_data)
{
  Run *run = user_data;
  struct signalfd_siginfo info;

  while (read (fd, &info, sizeof info) == (ssize_t) sizeof info)
    {
      if (run->child_running)
        {
          forward_signal (run, &info);
        }
      else if (run->caught_signal == 0)
        {
          run->caught_signal = (int) info.ssi_signo;
          g_cancellable_cancel (run->cancellable);
        }
    }
  return G_SOURCE_CONTINUE;
}

static gboolean
setup_signals (Run *run)
{
  sigset_t block;

  sigemptyset (&block);
  for (gsize i = 0; i < G_N_ELEMENTS (handled_signals); i++)
    {
      struct sigaction old;

      if (sigaction (handled_signals[i], NULL, &old) == 0 && old.sa_handler != SIG_IGN)
        sigaddset (&block, handled_signals[i]);
    }
  /* Before any thread exists, so that libfl's threads inherit the mask. */
  if (sigprocmask (SIG_BLOCK, &block, &run->saved_mask) != 0)
    return FALSE;
  run->signal_fd = signalfd (-1, &block, SFD_CLOEXEC | SFD_NONBLOCK);
  if (run->signal_fd < 0)
    return FALSE;
  run->signal_source = g_unix_fd_add (run->signal_fd, G_IO_IN, signal_cb, run);
  return TRUE;
}

static void
child_exited_cb (GPid     pid,
                 int      wait_status,
                 gpointer user_data)
{
  Run *run = user_data;

  run->wait_status = wait_status;
  run->child_running = FALSE;
  g_spawn_close_pid (pid);
  g_main_loop_quit (run->loop);
}

/* posix_spawnp() sets no signal to its default action (POSIX_SPAWN_SETSIGDEF is not asked for):
 * flctl installs no handler, so what COMMAND inherits is what flctl started with. The lock's
 * descriptor is dup2()ed onto itself, which clears close-on-exec in the child only. */
static gboolean
spawn_with_lock (Run     *run,
                 int      lock_fd,
                 GError **error)
{
  posix_spawn_file_actions_t actions;
  posix_spawnattr_t attr;
  extern char **environ;
  pid_t pid = -1;
  int ret;

  ret = posix_spawn_file_actions_init (&actions);
  if (ret != 0)
    goto failed;
  ret = posix_spawnattr_init (&attr);
  if (ret != 0)
    {
      posix_spawn_file_actions_destroy (&actions);
      goto failed;
    }
  ret = posix_spawn_file_actions_adddup2 (&actions, lock_fd, lock_fd);
  if (ret == 0)
    ret = posix_spawnattr_setsigmask (&attr, &run->saved_mask);
  if (ret == 0)
    ret = posix_spawnattr_setflags (&attr, POSIX_SPAWN_SETSIGMASK);
  if (ret == 0)
    ret = posix_spawnp (&pid, run->command[0], &actions, &attr, run->command, environ);
  posix_spawnattr_destroy (&attr);
  posix_spawn_file_actions_destroy (&actions);
  if (ret == 0)
    {
      run->child = pid;
      return TRUE;
    }

failed:
  g_set_error (error, G_SPAWN_ERROR, ret == ENOENT ? G_SPAWN_ERROR_NOENT : G_SPAWN_ERROR_FAILED,
               _("cannot run “%s”: %s"), run->command[0], g_strerror (ret));
  return FALSE;
}

static void
spawn_command (Run *run)
{
  g_autoptr(GError) error = NULL;
  int lock_fd = fl_lock_dup_fd (run->lock, &error);
  gboolean spawned = lock_fd >= 0 && spawn_with_lock (run, lock_fd, &error);

  if (lock_fd >= 0)
    close (lock_fd);
  if (!spawned)
    {
      g_propagate_error (&run->error, g_steal_pointer (&error));
      g_main_loop_quit (run->loop);
      return;
    }
  run->child_running = TRUE;
  g_child_watch_add (run->child, child_exited_cb, run);
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
  if (!setup_signals (run))
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
      if (run->verbose || isatty (STDERR_FILENO) == 1)
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
   * lock): release first, then report. */
  if (!fl_lock_release (run->lock, &error))
    {
      flctl_report_error ("run", error);
      if (run->error == NULL && run->caught_signal == 0 && !WIFSIGNALED (run->wait_status))
        return FLCTL_EXIT_IO;
    }
  if (run->caught_signal != 0)
    flctl_die_by_signal (run->caught_signal);
  if (run->error != NULL)
    {
      /* The shell's statuses for a command it cannot find or cannot run. */
      flctl_print_error ("run", "%s", run->error->message);
      return g_error_matches (run->error, G_SPAWN_ERROR, G_SPAWN_ERROR_NOENT) ? 127 : 126;
    }
  if (WIFSIGNALED (run->wait_status))
    flctl_die_by_signal (WTERMSIG (run->wait_status));
  return WEXITSTATUS (run->wait_status);
}

int
flctl_run_main (const FlctlArgs *args)
{
  g_autoptr(FlLockOptions) options = fl_lock_options_new ();
  Run run = { .signal_fd = -1 };
  int status;

  run.target = args->operands[0];
  run.command = args->command_argv;
  run.verbose = args->verbose;
  fl_lock_options_set_timeout_ms (options, (gint64) (args->wait_s * 1000));

  status = run_locked (&run, options, args->no_wait, args->wait_s, args->conflict_exit_code);
  run_clear (&run);
  return status;
}
