/* flctl-os-win32.c: flctl-os.h on Windows
 *
 * Stop requests are console control events (SetConsoleCtrlHandler): Ctrl+C stands for SIGINT,
 * Ctrl+Break for SIGBREAK, closing the console, logoff and shutdown for SIGTERM. The handler
 * runs in a thread of its own, so it only queues the request for the main loop. Windows has no
 * death by signal: flctl "dies" of one by exiting with 128 + N, the status a shell would show.
 *
 * `flctl run`: Windows has no descriptor that COMMAND could inherit with the lock's kernel
 * lock (LockFileEx locks belong to the handle flctl opened and end with flctl), so flctl holds
 * the lock itself while COMMAND runs and releases it when COMMAND ends. If flctl is killed,
 * the lock is judged stale at once although COMMAND may still run (unlike Linux, where the lock
 * lives as long as COMMAND; docs/flctl.1 and `flctl run --help` say so). A Ctrl+C while COMMAND runs
 * reaches COMMAND through the console it shares with flctl, so flctl ignores it and waits for
 * COMMAND. COMMAND is started with GLib's spawn (CreateProcess, the PATH searched), stdin,
 * stdout and stderr inherited; other descriptors are not passed on.
 *
 * Closing the console, logoff and shutdown end the process soon after the handler returns, so
 * the release queued for the main loop may not run: the lock is then left stale, which the
 * next taker recovers at once (the kernel lock died with flctl).
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <errno.h>
#include <io.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <windows.h>

#include <glib/gi18n.h>

#include "flctl-os.h"

#ifndef SIGBREAK
#define SIGBREAK 21
#endif

gboolean
flctl_os_isatty (int fd)
{
  return _isatty (fd) != 0;
}

int
flctl_os_terminal_width (int fd)
{
  HANDLE handle = (HANDLE) _get_osfhandle (fd);
  CONSOLE_SCREEN_BUFFER_INFO info;

  if (handle == INVALID_HANDLE_VALUE || !GetConsoleScreenBufferInfo (handle, &info))
    return 0;
  return info.srWindow.Right - info.srWindow.Left + 1;
}

/* GetFileAttributesW opens nothing, so it cannot get in the way of a lock file's handles. */
gboolean
flctl_os_is_real_directory (const char *path)
{
  g_autofree gunichar2 *wide = g_utf8_to_utf16 (path, -1, NULL, NULL, NULL);
  DWORD attributes;

  if (wide == NULL)
    return FALSE;
  attributes = GetFileAttributesW (wide);
  return attributes != INVALID_FILE_ATTRIBUTES
         && (attributes & FILE_ATTRIBUTE_DIRECTORY) != 0
         && (attributes & FILE_ATTRIBUTE_REPARSE_POINT) == 0;
}

/* A process's name is its executable's on Windows. */
void
flctl_os_set_process_name (const char *name)
{
}

/* --- console control events ----------------------------------------------------------- */

typedef struct
{
  guint       id;
  GSourceFunc func;        /* stop handlers */
  void      (*run_func) (int signo, gpointer user_data);  /* flctl run */
  gpointer    user_data;
} StopHandler;

typedef struct
{
  StopHandler handler;
  int         signo;
} StopRequest;

static GMutex stop_lock;
static GArray *stop_handlers;   /* of StopHandler, under stop_lock */
static guint next_stop_id = 1;

static gboolean
dispatch_cb (gpointer user_data)
{
  StopRequest *request = user_data;

  if (request->handler.func != NULL)
    request->handler.func (request->handler.user_data);
  else
    request->handler.run_func (request->signo, request->handler.user_data);
  return G_SOURCE_REMOVE;
}

static int
signo_for_event (DWORD event)
{
  switch (event)
    {
    case CTRL_C_EVENT:
      return SIGINT;
    case CTRL_BREAK_EVENT:
      return SIGBREAK;
    default:
      return SIGTERM;
    }
}

/* Runs in a thread Windows starts for the event: g_idle_add_full() is safe from any thread and
 * wakes the main loop. */
static BOOL WINAPI
console_ctrl_handler (DWORD event)
{
  gboolean handled = FALSE;

  g_mutex_lock (&stop_lock);
  for (guint i = 0; stop_handlers != NULL && i < stop_handlers->len; i++)
    {
      StopRequest *request = g_new0 (StopRequest, 1);

      request->handler = g_array_index (stop_handlers, StopHandler, i);
      request->signo = signo_for_event (event);
      g_idle_add_full (G_PRIORITY_HIGH, dispatch_cb, request, g_free);
      handled = TRUE;
    }
  g_mutex_unlock (&stop_lock);
  return handled;
}

static guint
add_handler (const StopHandler *handler)
{
  StopHandler copy = *handler;

  g_mutex_lock (&stop_lock);
  if (stop_handlers == NULL)
    {
      stop_handlers = g_array_new (FALSE, FALSE, sizeof (StopHandler));
      SetConsoleCtrlHandler (console_ctrl_handler, TRUE);
    }
  copy.id = next_stop_id++;
  g_array_append_val (stop_handlers, copy);
  g_mutex_unlock (&stop_lock);
  return copy.id;
}

guint
flctl_os_add_stop_handler (GSourceFunc func,
                           gpointer    user_data)
{
  StopHandler handler = { 0, func, NULL, user_data };

  return add_handler (&handler);
}

void
flctl_os_remove_stop_handler (guint id)
{
  g_mutex_lock (&stop_lock);
  for (guint i = 0; stop_handlers != NULL && i < stop_handlers->len; i++)
    if (g_array_index (stop_handlers, StopHandler, i).id == id)
      {
        g_array_remove_index (stop_handlers, i);
        break;
      }
  g_mutex_unlock (&stop_lock);
}

void
flctl_os_die_by_signal (int signo)
{
  fflush (stdout);
  fflush (stderr);
  _exit (128 + signo);
}

/* --- flctl run -------------------------------------------------------------------------- */

struct _FlctlOsRun
{
  FlctlOsStopFunc stop_func;
  gpointer        user_data;
  guint           stop_id;
  gboolean        stopped;
  FlctlOsChild    command;  /* COMMAND once spawned (flctl-os-child.c) */
  GPid            pid;      /* its process handle, closed by the child watch */
};

static void
run_stop_cb (int      signo,
             gpointer user_data)
{
  FlctlOsRun *run = user_data;

  /* COMMAND shares flctl's console and had the event too: its end ends flctl. */
  if (run->command.running || run->stopped)
    return;
  run->stopped = TRUE;
  run->stop_func (signo, run->user_data);
}

FlctlOsRun *
flctl_os_run_new (FlctlOsStopFunc stop_func,
                  gpointer        user_data)
{
  FlctlOsRun *run = g_new0 (FlctlOsRun, 1);
  StopHandler handler = { 0, NULL, run_stop_cb, run };

  run->stop_func = stop_func;
  run->user_data = user_data;
  run->stop_id = add_handler (&handler);
  return run;
}

/* These flags let GLib call CreateProcess itself, without its gspawn helper program. */
gboolean
flctl_os_run_spawn (FlctlOsRun      *run,
                    char           **argv,
                    char           **envp,
                    FlLock          *lock,
                    FlctlOsExitFunc  exit_func,
                    gpointer         user_data,
                    GError         **error)
{
  g_autoptr(GError) local_error = NULL;
  g_autofree char *program = g_find_program_in_path (argv[0]);
  GPid pid;

  /* GLib's direct spawn reports every failure as G_SPAWN_ERROR_FAILED: not found is 127. */
  if (program == NULL)
    {
      g_set_error (error, G_SPAWN_ERROR, G_SPAWN_ERROR_NOENT, _("cannot run “%s”: %s"),
                   argv[0], g_strerror (ENOENT));
      return FALSE;
    }
  if (!g_spawn_async (NULL, argv, envp,
                      G_SPAWN_SEARCH_PATH | G_SPAWN_DO_NOT_REAP_CHILD
                      | G_SPAWN_CHILD_INHERITS_STDIN | G_SPAWN_LEAVE_DESCRIPTORS_OPEN,
                      NULL, NULL, &pid, &local_error))
    {
      g_set_error (error, G_SPAWN_ERROR, local_error->code, _("cannot run “%s”: %s"),
                   argv[0], local_error->message);
      return FALSE;
    }
  run->pid = pid;
  flctl_os_child_watch (&run->command, pid, exit_func, user_data);
  return TRUE;
}

/* No signals: COMMAND ends with the status a shell shows for death by @signo. */
void
flctl_os_run_signal (FlctlOsRun *run,
                     int         signo)
{
  if (run->command.running && run->pid != NULL)
    TerminateProcess (run->pid, 128 + (UINT) signo);
}

int
flctl_os_run_child_signal (FlctlOsRun *run)
{
  return 0;
}

/* GetExitCodeProcess's code, as GLib's child watch gives it. */
int
flctl_os_run_child_status (FlctlOsRun *run)
{
  return run->command.wait_status;
}

void
flctl_os_run_free (FlctlOsRun *run)
{
  if (run == NULL)
    return;
  flctl_os_remove_stop_handler (run->stop_id);
  g_free (run);
}
