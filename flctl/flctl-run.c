/* flctl-run.c: `flctl run TARGET -- COMMAND`, hold a lock while a command runs
 *
 * Signals: SIGINT, SIGTERM, SIGHUP and SIGQUIT are blocked and read from a signalfd, so that
 * one main loop sees them with their sender. While flctl waits for the lock, one of them
 * cancels the wait (libfl leaves no lock and no temp file) and flctl dies of it. While COMMAND
 * runs, one sent with kill() is passed on to COMMAND; one from the terminal is not, because
 * the terminal sent it to COMMAND's process group already. Once COMMAND is gone the lock is
 * released and flctl exits with COMMAND's status, or dies of COMMAND's signal, as a shell
 * reports it (128+N). Signals that were ignored when flctl started stay ignored, for COMMAND
 * too (nohup, background jobs).
 *
 * The lock's descriptor is O_CLOEXEC (libfl), so COMMAND does not inherit it; every other
 * descriptor is passed on, as a shell would, so `flctl run T -- cmd 3<file` works.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <errno.h>
#include <math.h>
#include <signal.h>
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

/* Runs in the child between fork() and exec(): only async-signal-safe calls. */
static void
child_setup_cb (gpointer user_data)
{
  const sigset_t *mask = user_data;

  sigprocmask (SIG_SETMASK, mask, NULL);
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

static void
spawn_command (Run *run)
{
  g_autoptr(GError) error = NULL;
  GSpawnFlags flags = G_SPAWN_SEARCH_PATH | G_SPAWN_DO_NOT_REAP_CHILD |
                      G_SPAWN_CHILD_INHERITS_STDIN | G_SPAWN_LEAVE_DESCRIPTORS_OPEN;

  if (!g_spawn_async (NULL, run->command, NULL, flags, child_setup_cb, &run->saved_mask,
                      &run->child, &error))
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
  g_autofree char *target = flctl_format_path (run->target);
  g_autofree char *holder = NULL;

  if (snapshot == NULL)
    {
      g_printerr ("flctl run: %s\n", error->message);
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
  g_autofree char *target = flctl_format_path (run->target);
  g_autofree char *holder = NULL;

  if (snapshot == NULL)
    return;
  holder = flctl_describe_holder (snapshot, g_get_real_time ());
  g_printerr (_("flctl run: waiting for %s, locked by %s\n"), target, holder);
}

static gboolean
parse_wait (const char *text,
            double     *wait_s)
{
  char *end = NULL;
  double value;

  errno = 0;
  value = g_ascii_strtod (text, &end);
  if (errno != 0 || end == text || *end != '\0' || !isfinite (value) || value < 0
      || value > 1e9)
    return FALSE;
  *wait_s = value;
  return TRUE;
}

/* Returns the index of the "--" that ends flctl's own arguments, or 0. */
static int
find_separator (int    argc,
                char **argv)
{
  for (int i = 1; i < argc; i++)
    if (g_str_equal (argv[i], "--"))
      return i;
  return 0;
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
      g_printerr ("flctl run: %s\n", run->error->message);
      return g_error_matches (run->error, G_SPAWN_ERROR, G_SPAWN_ERROR_NOENT) ? 127 : 126;
    }
  if (WIFSIGNALED (run->wait_status))
    flctl_die_by_signal (WTERMSIG (run->wait_status));
  return WEXITSTATUS (run->wait_status);
}

int
flctl_run_main (int    argc,
                char **argv)
{
  g_autoptr(GOptionContext) context = NULL;
  g_autoptr(FlLockOptions) options = fl_lock_options_new ();
  g_autofree char *wait_text = NULL;
  Run run = { .signal_fd = -1 };
  gboolean no_wait = FALSE;
  int busy_status = FLCTL_EXIT_BUSY;
  double wait_s = FL_DEFAULT_TIMEOUT_MS / 1000.0;
  char **all_argv = argv;
  int separator;
  int own_argc;
  int status;
  const GOptionEntry entries[] = {
    { "wait", 'w', 0, G_OPTION_ARG_STRING, &wait_text,
      N_("Wait at most SECONDS for the lock (default 30; decimals allowed)"), N_("SECONDS") },
    { "no-wait", 'n', 0, G_OPTION_ARG_NONE, &no_wait,
      N_("Fail at once when the lock is held"), NULL },
    { "conflict-exit-code", 'E', 0, G_OPTION_ARG_INT, &busy_status,
      N_("Exit with CODE instead of 75 when the lock cannot be had"), N_("CODE") },
    { "verbose", 'v', 0, G_OPTION_ARG_NONE, &run.verbose,
      N_("Say so when waiting, even when standard error is not a terminal"), NULL },
    { NULL }
  };

  context = flctl_option_context_new (
    "run", _("TARGET -- COMMAND [ARG…]"),
    _("Hold the lock of TARGET (the file TARGET.lock) while COMMAND runs, and exit with\n"
      "COMMAND's status."),
    _("When the lock cannot be had, flctl prints who holds it (PID, process, age) and exits\n"
      "with 75 (or CODE). If COMMAND is killed by signal N, flctl releases the lock and dies\n"
      "of the same signal: the shell shows 128+N. SIGINT, SIGTERM, SIGHUP and SIGQUIT sent to\n"
      "flctl are passed on to COMMAND; while waiting, they end the wait and leave nothing\n"
      "behind. COMMAND does not inherit the lock's file descriptor."),
    entries);

  separator = find_separator (argc, argv);
  own_argc = separator > 0 ? separator : argc;
  if (!flctl_parse_options (context, "run", &own_argc, &argv))
    return FLCTL_EXIT_USAGE;
  if (separator == 0)
    return flctl_usage_error ("run", _("missing '--' before COMMAND"));
  if (own_argc != 2)
    return flctl_usage_error ("run", own_argc < 2 ? _("no TARGET given")
                                                  : _("give exactly one TARGET before '--'"));
  if (separator + 1 >= argc)
    return flctl_usage_error ("run", _("no COMMAND given after '--'"));
  if (no_wait && wait_text != NULL)
    return flctl_usage_error ("run", _("-w and -n cannot be used together"));
  if (wait_text != NULL && !parse_wait (wait_text, &wait_s))
    return flctl_usage_error ("run", _("-w expects a number of seconds, not '%s'"), wait_text);
  if (busy_status < 0 || busy_status > 255)
    return flctl_usage_error ("run", _("-E expects a code from 0 to 255"));

  /* The parser compacted what precedes the separator; what follows it is untouched. */
  run.target = argv[1];
  run.command = all_argv + separator + 1;
  fl_lock_options_set_timeout_ms (options, (gint64) (wait_s * 1000));

  status = run_locked (&run, options, no_wait, wait_s, busy_status);
  run_clear (&run);
  return status;
}
