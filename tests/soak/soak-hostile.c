/* soak-hostile.c: the soak's hostile neighbours (issues 13 and 18)
 *
 * - The attacker, a process of its own: it watches the lock directory with inotify and takes
 *   LOCK_SH on every new temp file as fast as it can, holding it a little. A temp whose kernel
 *   lock it got first must never be linked (docs/protocol.md, step A2).
 * - A fork-and-exit holder, as daemon() does: soak-worker --daemon acquires, forks, and exits;
 *   the child runs the critical section and exits without a release. Only the kernel lock,
 *   which the child shares, says that lock is alive.
 * - Readers of lock files that queue a blocking LOCK_SH and hold it for 2 to 20 s once
 *   granted, longer than most critical sections and than the final acquires' 10 s. They get
 *   it on a stale lock only (a live holder keeps LOCK_EX: the grant comes the instant it
 *   dies), which is exactly what once blocked that lock's takeover for as long as they liked
 *   (issue 18, part 2): now the takeover goes the claim way (docs/protocol.md, section 4).
 * - An mtime mover: sets lock files' times an hour into the past (issue 18, part 1). Such a
 *   time never makes a live lock stale.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <string.h>
#include <sys/file.h>
#include <sys/inotify.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <libfl/fl.h>

#include "fl-test-attacker.h"
#include "soak-private.h"

void
soak_attacker_start (Soak *soak)
{
  fl_test_attacker_start (&soak->attacker, soak->lock_dir);
}

/* The soak's reaper may already have reaped the attacker: its report is what counts. */
void
soak_attacker_stop (Soak *soak)
{
  soak->attacker_wins = (guint) fl_test_attacker_stop (&soak->attacker, TRUE);
}

/* soak-worker --daemon: one critical section in a child whose parent exited. */
void
soak_chaos_daemon (Soak *soak)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *log = g_strdup_printf ("%s/d%05u.log", soak->results_dir, soak->daemons);
  g_autofree char *n_targets = g_strdup_printf ("%d", SOAK_TARGETS);
  g_autofree char *seed = g_strdup_printf ("%u", soak->seed + soak->daemons);
  g_auto(GStrv) envp = g_environ_setenv (g_get_environ (), "FL_NAMED_TEMP", "1", TRUE);
  const char *argv[] = { soak->worker, "--daemon", soak->lock_dir, soak->state_dir, log,
                         n_targets, seed, NULL };
  GPid pid;

  /* Reaped by the soak's reaper, which counts it out of daemon_parents: a mixed phase starts
   * only once none is left (test-soak.c, enter_mixed()). */
  if (!g_spawn_async (NULL, (char **) argv, envp, G_SPAWN_DO_NOT_REAP_CHILD, NULL, NULL, &pid,
                      &error))
    g_error ("cannot start %s --daemon: %s", soak->worker, error->message);
  g_hash_table_add (soak->daemon_parents, GINT_TO_POINTER (pid));
  soak->daemons++;
}

/* A reader process: it queues a blocking LOCK_SH on a lock file (granted the moment the holder
 * dies or releases, at most 3 s later, or SIGALRM ends it), holds it 2 to 20 s, and logs
 * "shared K" when it got one. Only a stale lock can be held this way: a live holder keeps
 * LOCK_EX. */
void
soak_chaos_shared_hold (Soak *soak,
                        int   k)
{
  g_autofree char *path = g_strdup_printf ("%s/t%d.lock", soak->lock_dir, k);
  g_autofree char *log = g_strdup_printf ("%s/s%05u.log", soak->results_dir, soak->readers);
  g_autofree char *line = g_strdup_printf ("shared %d\n", k);
  gulong hold_us = (gulong) g_rand_int_range (soak->rand, 2000, 20000) * 1000;
  struct stat st;
  pid_t pid;
  int fd;

  soak->readers++;
  pid = fork ();
  g_assert_cmpint (pid, >=, 0);
  if (pid > 0)
    return;  /* reaped by the soak's reaper, which ignores processes outside worker slots */

  prctl (PR_SET_PDEATHSIG, SIGKILL);
  signal (SIGALRM, SIG_DFL);
  fd = open (path, O_RDONLY | O_NONBLOCK | O_NOFOLLOW | O_NOCTTY | O_CLOEXEC);
  /* Regular files only: an occupation's FIFO or directory stays untouched. */
  if (fd < 0 || fstat (fd, &st) < 0 || !S_ISREG (st.st_mode))
    _exit (0);
  alarm (3);
  if (flock (fd, LOCK_SH) < 0)
    _exit (0);
  alarm (0);
  /* Only a lock file still in place counts: not one its holder released meanwhile. */
  if (fstat (fd, &st) == 0 && st.st_nlink > 0)
    {
      int log_fd = open (log, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);

      if (log_fd >= 0 && write (log_fd, line, strlen (line)) < 0)
        _exit (1);
    }
  g_usleep (hold_us);  /* the hold itself: chaos, not synchronisation */
  _exit (0);
}

void
soak_chaos_mtime_back (Soak *soak)
{
  g_autofree char *path = g_strdup_printf ("%s/t%d.lock", soak->lock_dir,
                                           g_rand_int_range (soak->rand, 0, SOAK_TARGETS));
  struct timespec times[2];
  struct stat st;
  int fd;

  /* Regular files only: an occupation's FIFO or directory must be found untouched. */
  fd = open (path, O_RDONLY | O_NONBLOCK | O_NOFOLLOW | O_NOCTTY | O_CLOEXEC);
  if (fd < 0)
    return;
  if (fstat (fd, &st) == 0 && S_ISREG (st.st_mode))
    {
      clock_gettime (CLOCK_REALTIME, &times[0]);
      times[0].tv_sec -= 3600;
      times[1] = times[0];
      if (futimens (fd, times) == 0)
        soak->mtimes_moved++;
    }
  close (fd);
}
