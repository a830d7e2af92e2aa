/* flctl-os.h: what flctl does differently on each operating system
 *
 * One file per OS implements it: flctl-os-unix.c (signals, posix_spawn, the lock's descriptor
 * handed to COMMAND) and flctl-os-win32.c (console control events, the lock held by flctl while
 * COMMAND runs). Everything that touches a lock file goes through libfl, never through here.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include <libfl/fl.h>

G_BEGIN_DECLS

gboolean     flctl_os_isatty               (int              fd);
/* Columns of the terminal on FD, or 0 when unknown. */
int          flctl_os_terminal_width       (int              fd);
/* PATH is a directory itself, not a link to one. Opens nothing (lstat(); GetFileAttributesW()
 * on Windows, rather than GLib's stat emulation, which opens the file). */
gboolean     flctl_os_is_real_directory    (const char      *path);
/* The name status, list and the inspector show for this process, where the OS lets it change. */
void         flctl_os_set_process_name     (const char      *name);

/* Calls FUNC in the main loop when flctl is asked to stop (SIGINT, SIGTERM, SIGHUP on Unix;
 * Ctrl+C, Ctrl+Break, closing the console on Windows). Returns an id for
 * flctl_os_remove_stop_handler(). */
guint        flctl_os_add_stop_handler     (GSourceFunc      func,
                                            gpointer         user_data);
void         flctl_os_remove_stop_handler  (guint            id);

/* Ends flctl as SIGNO would (Unix: dies of it; Windows: exits with 128 + SIGNO). */
void         flctl_os_die_by_signal        (int              signo) G_GNUC_NORETURN;

/* `flctl run`: stop requests, and COMMAND with the lock. */
typedef struct _FlctlOsRun FlctlOsRun;

/* A stop request (SIGNO) that came while COMMAND was not running: called once. */
typedef void (*FlctlOsStopFunc) (int      signo,
                                 gpointer user_data);
/* COMMAND has ended. */
typedef void (*FlctlOsExitFunc) (gpointer user_data);

/* What both platforms keep of COMMAND once it is spawned (flctl-os-child.c). */
typedef struct
{
  FlctlOsExitFunc exit_func;
  gpointer        exit_data;
  gboolean        running;
  int             wait_status;  /* as GLib's child watch gives it */
} FlctlOsChild;

/* Watches @pid: when it ends, @child records how and calls @exit_func. */
void         flctl_os_child_watch          (FlctlOsChild    *child,
                                            GPid             pid,
                                            FlctlOsExitFunc  exit_func,
                                            gpointer         user_data);

/* Before any thread exists. NULL with errno set when stop requests cannot be caught. */
FlctlOsRun  *flctl_os_run_new              (FlctlOsStopFunc  stop_func,
                                            gpointer         user_data);
/* @envp: COMMAND's environment, NULL for flctl's own. */
gboolean     flctl_os_run_spawn            (FlctlOsRun      *run,
                                            char           **argv,
                                            char           **envp,
                                            FlLock          *lock,
                                            FlctlOsExitFunc  exit_func,
                                            gpointer         user_data,
                                            GError         **error);
/* Sends @signo to COMMAND while it runs (Windows has no signals: COMMAND is ended, as if
 * killed by @signo). */
void         flctl_os_run_signal           (FlctlOsRun      *run,
                                            int              signo);
/* After COMMAND ended: the signal that killed it (0 if none), else its exit status. */
int          flctl_os_run_child_signal     (FlctlOsRun      *run);
int          flctl_os_run_child_status     (FlctlOsRun      *run);
void         flctl_os_run_free             (FlctlOsRun      *run);

G_END_DECLS
