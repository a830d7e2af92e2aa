/* fl-test-worker.h: a test program is its own worker, on every platform
 *
 * libuv's way: one runner, which spawns its own binary as the helper. main() first hands its
 * arguments to fl_test_worker_main(): run as `PROGRAM --worker ROLE ARGS...` it runs that role
 * and the process exits with what the role returns; otherwise it is the runner, and its
 * fl_test_worker_spawn() starts workers of its own binary. No helper to find on a foreign path
 * (a wine path included), and a worker dies with the runner that spawned it (fl-test-worker-unix.c,
 * fl-test-worker-win32.c), so a failed assertion leaves none behind.
 *
 * GLib and GIO only.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include <gio/gio.h>

G_BEGIN_DECLS

typedef struct
{
  const char *name;
  int         n_args;                        /* what follows ROLE on the command line */
  int       (*run) (char **args);            /* the exit status of the worker */
} FlTestWorkerRole;

/* Returns TRUE and sets *@status when @argv is a worker's; FALSE for the runner (which must
 * call this before g_test_init()). @roles ends with a { NULL } entry. A worker command line
 * that names no role of @roles, or the wrong number of arguments, is status 2. */
gboolean     fl_test_worker_main  (int                      argc,
                                   char                   **argv,
                                   const FlTestWorkerRole  *roles,
                                   int                     *status);

/* `SELF --worker ROLE ARGS...`, NULL-terminated; asserts it started. */
GSubprocess *fl_test_worker_spawn (GSubprocessFlags         flags,
                                   const char              *role,
                                   ...) G_GNUC_NULL_TERMINATED;
GSubprocess *fl_test_worker_spawnv (GSubprocessFlags        flags,
                                    const char * const     *role_and_args);

/* The platform's half (fl-test-worker-unix.c, fl-test-worker-win32.c). */
void         _fl_test_worker_platform_init    (void);
GSubprocessLauncher *_fl_test_worker_launcher (GSubprocessFlags flags);

G_END_DECLS
