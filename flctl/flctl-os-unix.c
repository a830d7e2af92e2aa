/* flctl-os-unix.c: flctl-os.h on Linux (and any Unix GLib runs on)
 *
 * `flctl run`: SIGINT, SIGTERM, SIGHUP and SIGQUIT are blocked and read from a signalfd, so that
 * one main loop sees them with their sender. While COMMAND runs, one sent with kill() is passed
 * on to COMMAND; one from the terminal is not, because the terminal sent it to COMMAND's process
 * group already. Signals that were ignored when flctl started stay ignored, for COMMAND too
 * (nohup, background jobs): COMMAND is started with posix_spawn(), which, unlike GLib's spawn,
 * leaves an ignored signal ignored, and gets the signal mask flctl started with.
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
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/signalfd.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <glib/gi18n.h>
#include <glib-unix.h>

#include "flctl-os.h"

gboolean
flctl_os_isatty (int fd)
{
  return isatty (fd) == 1;
}

int
flctl_os_terminal_width (int fd)
{
  struct winsize size;

  if (ioctl (fd, TIOCGWINSZ, &size) == 0 && size.ws_col > 0)
    return size.ws_col;
  return 0;
}

gboolean
flctl_os_is_real_directory (const char *path)
{
  struct stat st;

  return lstat (path, &st) == 0 && S_ISDIR (st.st_mode);
}

void
flctl_os_set_process_name (const char *name)
{
  prctl (PR_SET_NAME, name, 0, 0, 0);
}

/* Each id names the three sources of one flctl_os_add_stop_handler() call. */
static GArray *stop_sources;

guint
flctl_os_add_stop_handler (GSourceFunc func,
                           gpointer    user_data)
{
  guint ids[3];

  if (stop_sources == NULL)
    stop_sources = g_array_new (FALSE, FALSE, sizeof (guint));
  ids[0] = g_unix_signal_add (SIGINT, func, user_data);
  ids[1] = g_unix_signal_add (SIGTERM, func, user_data);
  ids[2] = g_unix_signal_add (SIGHUP, func, user_data);
  g_array_append_vals (stop_sources, ids, G_N_ELEMENTS (ids));
  return stop_sources->len / 3;
}

void
flctl_os_remove_stop_handler (guint id)
{
  g_return_if_fail (stop_sources != NULL && id >= 1 && id * 3 <= stop_sources->len);

  for (guint i = (id - 1) * 3; i < id * 3; i++)
    g_clear_handle_id (&g_array_index (stop_sources, guint, i), g_source_remove);
}

/* After cleaning up, flctl dies of the signal that stopped it, as shells and timeout(1) do, so
 * that a calling shell sees 128+N and stops a script on SIGINT. No core file: the fault was
 * the command's, not flctl's. */
void
flctl_os_die_by_signal (int signo)
{
  struct rlimit no_core = { 0, 0 };
  sigset_t set;

  fflush (stdout);
  fflush (stderr);
  setrlimit (RLIMIT_CORE, &no_core);
  signal (signo, SIG_DFL);
  sigemptyset (&set);
  sigaddset (&set, signo);
  sigprocmask (SIG_UNBLOCK, &set, NULL);
  raise (signo);
  /* Reached for signals whose default action is not to terminate. */
  _exit (128 + signo);
}

static const int handled_signals[] = { SIGINT, SIGTERM, SIGHUP, SIGQUIT };

struct _FlctlOsRun
{
  FlctlOsStopFunc stop_func;
  gpointer        user_data;
  sigset_t        saved_mask;
  int             signal_fd;
  guint           signal_source;
  gboolean        stopped;
  GPid            child;
  FlctlOsChild    command;  /* COMMAND once spawned (flctl-os-child.c) */
};

static void
forward_signal (FlctlOsRun                    *run,
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
  FlctlOsRun *run = user_data;
  struct signalfd_siginfo info;

  while (read (fd, &info, sizeof info) == (ssize_t) sizeof info)
    {
      if (run->command.running)
        {
          forward_signal (run, &info);
        }
      else if (!run->stopped)
        {
          run->stopped = TRUE;
          run->stop_func ((int) info.ssi_signo, run->user_data);
        }
    }
  return G_SOURCE_CONTINUE;
}

FlctlOsRun *
flctl_os_run_new (FlctlOsStopFunc stop_func,
                  gpointer        user_data)
{
  FlctlOsRun *run = g_new0 (FlctlOsRun, 1);
  sigset_t block;

  run->stop_func = stop_func;
  run->user_data = user_data;
  run->signal_fd = -1;
  sigemptyset (&block);
  for (gsize i = 0; i < G_N_ELEMENTS (handled_signals); i++)
    {
      struct sigaction old;

      if (sigaction (handled_signals[i], NULL, &old) == 0 && old.sa_handler != SIG_IGN)
        sigaddset (&block, handled_signals[i]);
    }
  /* Before any thread exists, so that libfl's threads inherit the mask. */
  if (sigprocmask (SIG_BLOCK, &block, &run->saved_mask) != 0)
    goto failed;
  run->signal_fd = signalfd (-1, &block, SFD_CLOEXEC | SFD_NONBLOCK);
  if (run->signal_fd < 0)
    goto failed;
  run->signal_source = g_unix_fd_add (run->signal_fd, G_IO_IN, signal_cb, run);
  return run;

failed:
  {
    int saved_errno = errno;

    flctl_os_run_free (run);
    errno = saved_errno;
    return NULL;
  }
}

/* posix_spawnp() sets no signal to its default action (POSIX_SPAWN_SETSIGDEF is not asked for):
 * flctl installs no handler, so what COMMAND inherits is what flctl started with. The lock's
 * descriptor is dup2()ed onto itself, which clears close-on-exec in the child only. */
static gboolean
spawn_with_lock (FlctlOsRun *run,
                 char      **argv,
                 char      **envp,
                 int         lock_fd,
                 GError    **error)
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
  if (lock_fd >= 0)
    ret = posix_spawn_file_actions_adddup2 (&actions, lock_fd, lock_fd);
  if (ret == 0)
    ret = posix_spawnattr_setsigmask (&attr, &run->saved_mask);
  if (ret == 0)
    ret = posix_spawnattr_setflags (&attr, POSIX_SPAWN_SETSIGMASK);
  if (ret == 0)
    ret = posix_spawnp (&pid, argv[0], &actions, &attr, argv, envp != NULL ? envp : environ);
  posix_spawnattr_destroy (&attr);
  posix_spawn_file_actions_destroy (&actions);
  if (ret == 0)
    {
      run->child = pid;
      return TRUE;
    }

failed:
  g_set_error (error, G_SPAWN_ERROR, ret == ENOENT ? G_SPAWN_ERROR_NOENT : G_SPAWN_ERROR_FAILED,
               _("cannot run “%s”: %s"), argv[0], g_strerror (ret));
  return FALSE;
}

gboolean
flctl_os_run_spawn (FlctlOsRun      *run,
                    char           **argv,
                    char           **envp,
                    FlLock          *lock,
                    FlctlOsExitFunc  exit_func,
                    gpointer         user_data,
                    GError         **error)
{
  /* An etcd lock has no descriptor: flctl itself holds it, its lease kept alive, while
   * COMMAND runs (a lease lost meanwhile: flctl-run.c). */
  const char *target = fl_lock_get_target (lock);
  gboolean etcd = g_str_has_prefix (target, "etcd://") || g_str_has_prefix (target, "etcds://");
  int lock_fd = etcd ? -1 : fl_lock_dup_fd (lock, error);
  gboolean spawned = (etcd || lock_fd >= 0) && spawn_with_lock (run, argv, envp, lock_fd, error);

  if (lock_fd >= 0)
    close (lock_fd);
  if (!spawned)
    return FALSE;
  flctl_os_child_watch (&run->command, run->child, exit_func, user_data);
  return TRUE;
}

void
flctl_os_run_signal (FlctlOsRun *run,
                     int         signo)
{
  /* The child is not reaped before the watch says it ended, so its PID is still its own. */
  if (run->command.running && run->child > 0)
    kill (run->child, signo);
}

int
flctl_os_run_child_signal (FlctlOsRun *run)
{
  return WIFSIGNALED (run->command.wait_status) ? WTERMSIG (run->command.wait_status) : 0;
}

int
flctl_os_run_child_status (FlctlOsRun *run)
{
  return WEXITSTATUS (run->command.wait_status);
}

void
flctl_os_run_free (FlctlOsRun *run)
{
  if (run == NULL)
    return;
  g_clear_handle_id (&run->signal_source, g_source_remove);
  if (run->signal_fd >= 0)
    close (run->signal_fd);
  g_free (run);
}
