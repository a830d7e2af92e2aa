/* test-soak.c: 16 processes on 4 targets for an hour, under a chaos process
 *
 * P processes (tests/soak/soak-worker) loop acquire / critical section / release on random
 * targets while the chaos, this process, SIGKILLs holders and waiters (and starts
 * replacements), SIGSTOPs and SIGCONTs others, fills the directory with junk temp and graveyard
 * files and hostile entries (symlinks, FIFOs, directories named like locks), now and then puts
 * one where a lock goes, and scans the directory as an inspector would. Its hostile neighbours
 * (soak-hostile.c) race every new temp for LOCK_SH, hold locks through forked children whose
 * parents exited, hold LOCK_SH on stale locks for seconds, and move lock times an hour back.
 * At the end: no two holders ever met in a critical section, no completed critical section
 * lost its update, a last acquire of every target succeeds (no lock is stuck), nothing is left
 * but the junk and the orphans of killed processes, and every process finished or was killed.
 *
 * The module as a peer (issue 29). Every other SOAK_PHASE_S seconds is a mixed phase: four more
 * workers run the real module (@dogfood-lab/findings lib/file-lock.js, through
 * tests/helpers/module-driver.mjs soak) on the same four targets, with the same critical
 * section and its check, beside the sixteen libfl workers. The module cannot survive a stale
 * lock beside another taker: its takeover reads a PID, probes it, renames, and puts back what it
 * renamed by mistake, over whatever was made meanwhile (docs/protocol.md, section 8), so two
 * holders can follow from the module alone, which is no failure of libfl's. So nothing makes a
 * lock stale while the module runs: in a mixed phase nobody is SIGKILLed (the module's workers
 * never are), no fork-and-exit holder runs (to the module its lock is stale at once: its PID
 * has exited), and nothing occupies a lock's name (the module reads a FIFO and renames a
 * directory away). A mixed phase starts only once every fork-and-exit holder has ended and the
 * soak itself has taken and released every target (so that no lock a kill left stale remains);
 * it ends with the module's workers stopped. What stays in it: SIGSTOP and SIGCONT of every
 * worker, the module's too (a stopped holder is alive to both), the LOCK_SH attacker and readers,
 * junk and hostile entries, scans and lock times moved an hour back. So the check in a mixed
 * phase is libfl's guarantee beside a module peer that is never given a stale lock: zero
 * overlaps and zero lost updates, whoever holds.
 *
 * FL_SOAK_SECONDS sets the duration (default 3600; CI uses 120); FL_TEST_SEED replays one.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <glib/gstdio.h>
#include <libfl/fl.h>

#include "protocol/fl-names-private.h"
#include "fl-test-util.h"
#include "soak-private.h"
#include "soak-section.h"

static void
die_with_parent_cb (gpointer user_data)
{
  /* A failed assertion must not leave sixteen workers looping. */
  prctl (PR_SET_PDEATHSIG, SIGKILL);
}

static void
spawn_worker (Soak  *soak,
              guint  slot)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *log = NULL;
  g_autofree char *n_targets = g_strdup_printf ("%d", SOAK_TARGETS);
  g_autofree char *seed = g_strdup_printf ("%u", soak->seed + soak->spawned);
  const char *argv[7];
  g_auto(GStrv) envp = g_get_environ ();
  GPid pid;

  /* Every other worker uses named temps, which the attacker races (step A2). */
  if (soak->spawned % 2 == 1)
    envp = g_environ_setenv (envp, "FL_NAMED_TEMP", "1", TRUE);
  log = g_strdup_printf ("%s/w%05u.log", soak->results_dir, soak->spawned);
  argv[0] = soak->worker;
  argv[1] = soak->lock_dir;
  argv[2] = soak->state_dir;
  argv[3] = log;
  argv[4] = n_targets;
  argv[5] = seed;
  argv[6] = NULL;

  if (!g_spawn_async (NULL, (char **) argv, envp, G_SPAWN_DO_NOT_REAP_CHILD,
                      die_with_parent_cb, NULL, &pid, &error))
    g_error ("cannot start %s: %s", soak->worker, error->message);

  soak->workers[slot].pid = pid;
  soak->workers[slot].stopped_until = 0;
  soak->spawned++;
}

/* One of the module's workers in slot SOAK_WORKERS + i, for the current mixed phase. */
static void
spawn_node_worker (Soak  *soak,
                   guint  i)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *log = g_strdup_printf ("%s/n%05u.log", soak->results_dir, soak->node_spawned);
  g_autofree char *n_targets = g_strdup_printf ("%d", SOAK_TARGETS);
  g_autofree char *seed = g_strdup_printf ("%u", soak->seed + soak->node_spawned);
  const char *argv[] = { soak->module_argv[0], soak->module_argv[1], "soak", soak->lock_dir,
                         soak->state_dir, log, n_targets, seed, NULL };
  SoakWorker *w = &soak->workers[SOAK_WORKERS + i];
  GPid pid;

  if (!g_spawn_async (NULL, (char **) argv, NULL, G_SPAWN_DO_NOT_REAP_CHILD,
                      die_with_parent_cb, NULL, &pid, &error))
    g_error ("cannot start the module's worker: %s", error->message);
  w->pid = pid;
  w->stopped_until = 0;
  w->node = TRUE;
  soak->node_spawned++;
}

static int
slot_of (Soak  *soak,
         pid_t  pid)
{
  for (guint i = 0; i < SOAK_SLOTS; i++)
    if (soak->workers[i].pid == pid)
      return (int) i;
  return -1;
}

static void
kill_worker (Soak  *soak,
             guint  slot)
{
  pid_t pid = soak->workers[slot].pid;

  g_assert_cmpint (pid, >, 0);
  g_hash_table_add (soak->killed, GINT_TO_POINTER (pid));
  g_hash_table_add (soak->unreaped_kills, GINT_TO_POINTER (pid));
  kill (pid, SIGKILL);
  soak->kills++;
}

/* Reaps every worker that ended; a killed one is replaced while the run goes on. */
static void
reap (Soak     *soak,
      gboolean  replace)
{
  int status;
  pid_t pid;

  /* At most one round of the slots: replacements that die at once wait for the next call. */
  for (guint n = 0; n < SOAK_SLOTS && (pid = waitpid (-1, &status, WNOHANG)) > 0; n++)
    {
      int slot = slot_of (soak, pid);

      if (slot < 0)
        {
          g_hash_table_remove (soak->daemon_parents, GINT_TO_POINTER (pid));
          continue;
        }
      soak->workers[slot].pid = 0;

      /* The module's worker stops only when told, and is never killed or replaced. */
      if (soak->workers[slot].node)
        {
          if (WIFEXITED (status) && WEXITSTATUS (status) == 0 &&
              (soak->node_stopping || soak->stopping))
            continue;
          g_test_message ("the module's worker %d ended with status 0x%x (exit %d)", (int) pid,
                          status, WIFEXITED (status) ? WEXITSTATUS (status) : -1);
          soak->failed_workers++;
          continue;
        }

      /* PIDs wrap around: only a kill not yet reaped says how this one ended. */
      if (g_hash_table_remove (soak->unreaped_kills, GINT_TO_POINTER (pid)))
        {
          if (replace)
            spawn_worker (soak, (guint) slot);
          continue;
        }
      if (WIFEXITED (status) && WEXITSTATUS (status) == 0 && soak->stopping)
        {
          soak->finished++;
          continue;
        }

      /* Anything else is a failure: an overlap (3), an error (4), a crash or an early exit. */
      g_test_message ("worker %d ended with status 0x%x (exit %d)", (int) pid, status,
                      WIFEXITED (status) ? WEXITSTATUS (status) : -1);
      soak->failed_workers++;
      if (replace)
        spawn_worker (soak, (guint) slot);
    }
}

/* The live process in the critical section of target k, from its marker, or 0. */
static pid_t
holder_of (Soak *soak,
           int   k)
{
  g_autofree char *counter = g_strdup_printf ("%s/t%d.count", soak->state_dir, k);
  SoakHolder holder;

  if (!soak_holder_read (counter, &holder) || !soak_holder_is_alive (&holder))
    return 0;
  return holder.pid;
}

static void
chaos_kill (Soak *soak)
{
  int slot = -1;

  /* Half the kills aim at a holder inside its critical section. */
  if (g_rand_boolean (soak->rand))
    {
      pid_t holder = holder_of (soak, g_rand_int_range (soak->rand, 0, SOAK_TARGETS));

      if (holder > 0)
        slot = slot_of (soak, holder);
      if (slot >= 0 && soak->workers[slot].node)
        slot = -1;
      if (slot >= 0)
        soak->holder_kills++;
    }
  if (slot < 0)
    slot = g_rand_int_range (soak->rand, 0, SOAK_WORKERS);
  if (soak->workers[slot].pid > 0)
    kill_worker (soak, (guint) slot);
}

/* A reader queues LOCK_SH on a target's lock; half the time its holder is then SIGKILLed, so
 * that the reader's grant comes the instant the lock turns stale (issue 18, part 2). */
static void
chaos_reader (Soak *soak)
{
  int k = g_rand_int_range (soak->rand, 0, SOAK_TARGETS);
  pid_t holder = g_rand_boolean (soak->rand) ? holder_of (soak, k) : 0;
  int slot = holder > 0 ? slot_of (soak, holder) : -1;

  soak_chaos_shared_hold (soak, k);
  if (slot >= 0 && !soak->mixed && !soak->workers[slot].node &&
      soak->workers[slot].stopped_until == 0)
    {
      kill_worker (soak, (guint) slot);
      soak->holder_kills++;
    }
}

static void
chaos_stop (Soak   *soak,
            gint64  now)
{
  guint slot = (guint) g_rand_int_range (soak->rand, 0, SOAK_SLOTS);
  SoakWorker *w = &soak->workers[slot];

  if (w->pid <= 0 || w->stopped_until != 0)
    return;
  kill (w->pid, SIGSTOP);
  w->stopped_until = now + g_rand_int_range (soak->rand, 20, 300) * 1000;
  soak->stops++;
}

static void
chaos_continue (Soak     *soak,
                gint64    now,
                gboolean  all)
{
  for (guint i = 0; i < SOAK_SLOTS; i++)
    {
      SoakWorker *w = &soak->workers[i];

      if (w->pid > 0 && w->stopped_until != 0 && (all || now >= w->stopped_until))
        {
          kill (w->pid, SIGCONT);
          w->stopped_until = 0;
        }
    }
}

/* Waits, reaping, until no fork-and-exit holder's parent or (with @node) no module worker runs. */
static gboolean
wait_for (Soak     *soak,
          gboolean  node,
          gint64    timeout_s)
{
  gint64 deadline = g_get_monotonic_time () + fl_test_scaled_ms (timeout_s * 1000) * 1000;

  for (;;)
    {
      guint running = g_hash_table_size (soak->daemon_parents);

      reap (soak, TRUE);
      for (guint i = 0; node && i < SOAK_NODE_WORKERS; i++)
        running += soak->workers[SOAK_WORKERS + i].pid > 0;
      if (running == 0)
        return TRUE;
      if (g_get_monotonic_time () >= deadline)
        return FALSE;
      g_usleep (10000);  /* a poll of waitpid() with a deadline */
    }
}

/* Into a mixed phase: no lock may be stale once the module runs (the header says why). */
static void
enter_mixed (Soak *soak)
{
  g_autoptr(FlLockOptions) options = fl_lock_options_new ();
  FlLock *locks[SOAK_TARGETS];

  soak->mixed = TRUE;  /* from here on: no kill, no fork-and-exit holder, no occupation */
  chaos_continue (soak, 0, TRUE);
  soak_chaos_release_occupied (soak, 0, TRUE);
  /* A fork-and-exit holder's child ends within its critical section of its parent's exit; the
   * parent acquires within its 3 s timeout. Holding every target below outlasts the child. */
  if (!wait_for (soak, FALSE, 30))
    {
      g_test_message ("a fork-and-exit holder did not end within 30 s");
      soak->failed_workers++;
      return;
    }

  /* Every lock a kill left stale is taken over here, by libfl alone, and released. */
  fl_lock_options_set_timeout_ms (options, fl_test_scaled_ms (10000));
  for (int k = 0; k < SOAK_TARGETS; k++)
    {
      g_autofree char *target = g_strdup_printf ("%s/t%d", soak->lock_dir, k);
      g_autoptr(GError) error = NULL;

      locks[k] = fl_lock_acquire (target, options, NULL, &error);
      g_assert_no_error (error);
    }
  for (int k = 0; k < SOAK_TARGETS; k++)
    {
      g_autoptr(GError) error = NULL;

      g_assert_true (fl_lock_release (locks[k], &error));
      g_assert_no_error (error);
      g_object_unref (locks[k]);
    }

  for (guint i = 0; i < SOAK_NODE_WORKERS; i++)
    spawn_node_worker (soak, i);
  soak->mixed_phases++;
}

static void
leave_mixed (Soak *soak)
{
  g_autofree char *stop_path = g_build_filename (soak->state_dir, "STOP-NODE", NULL);

  soak->node_stopping = TRUE;
  chaos_continue (soak, 0, TRUE);
  fl_test_write (stop_path, "", 0);
  if (!wait_for (soak, TRUE, 60))
    {
      g_test_message ("a worker of the module did not finish within 60 s of STOP-NODE");
      soak->failed_workers++;
    }
  g_assert_cmpint (g_unlink (stop_path), ==, 0);
  soak->node_stopping = FALSE;
  soak->mixed = FALSE;
}

static void
run (Soak *soak)
{
  gint64 start = g_get_monotonic_time ();
  gint64 deadline = start + soak->seconds * G_USEC_PER_SEC;
  gint64 next_scan = start;
  gint64 next_report = start + 60 * G_USEC_PER_SEC;

  soak_attacker_start (soak);
  for (guint i = 0; i < SOAK_WORKERS; i++)
    spawn_worker (soak, i);

  for (gint64 now = start; now < deadline; now = g_get_monotonic_time ())
    {
      int r = g_rand_int_range (soak->rand, 0, 1000);
      gboolean mixed = (now - start) / (SOAK_PHASE_S * G_USEC_PER_SEC) % 2 == 1;

      reap (soak, TRUE);
      soak->elapsed_s = (now - start) / G_USEC_PER_SEC;
      if (soak->failed_workers > 0)
        {
          g_test_message ("a worker failed after %" G_GINT64_FORMAT " s: stopping early",
                          (now - start) / G_USEC_PER_SEC);
          break;
        }
      if (mixed != soak->mixed)
        {
          if (mixed)
            enter_mixed (soak);
          else
            leave_mixed (soak);
          continue;
        }
      chaos_continue (soak, now, FALSE);
      soak_chaos_release_occupied (soak, now, FALSE);

      /* In a mixed phase, nothing that makes a lock stale (the header says why). */
      if (r < 10)
        {
          if (!soak->mixed)
            chaos_kill (soak);
        }
      else if (r < 20)
        chaos_stop (soak, now);
      else if (r < 40)
        soak_chaos_junk (soak);
      else if (r < 45)
        soak_chaos_hostile (soak);
      else if (r < 55)
        {
          if (!soak->mixed)
            soak_chaos_occupy (soak, now);
        }
      else if (r < 60)
        {
          if (!soak->mixed)
            soak_chaos_daemon (soak);
        }
      else if (r < 65)
        chaos_reader (soak);
      else if (r < 75)
        soak_chaos_mtime_back (soak);

      if (now >= next_scan)
        {
          soak_chaos_scan (soak);
          next_scan = now + 200 * 1000;
        }
      if (now >= next_report)
        {
          g_test_message ("%" G_GINT64_FORMAT " s: %u processes started, %u killed, %u stopped",
                          (now - start) / G_USEC_PER_SEC, soak->spawned, soak->kills,
                          soak->stops);
          next_report = now + 60 * G_USEC_PER_SEC;
        }

      /* Paces the chaos at about 200 actions a second; nothing waits on this. */
      g_usleep (5000);
    }
}

/* Everything stops: the chaos, then the workers, at the end of their current round. */
static void
stop (Soak *soak)
{
  g_autofree char *stop_path = g_build_filename (soak->state_dir, "STOP", NULL);
  gint64 deadline;
  guint running;

  soak->stopping = TRUE;
  chaos_continue (soak, 0, TRUE);
  soak_chaos_release_occupied (soak, 0, TRUE);
  fl_test_write (stop_path, "", 0);

  /* A worker may be waiting out its 3 s timeout and then finishing a critical section. */
  deadline = g_get_monotonic_time () + 60 * G_USEC_PER_SEC;
  do
    {
      reap (soak, FALSE);
      running = 0;
      for (guint i = 0; i < SOAK_SLOTS; i++)
        running += soak->workers[i].pid > 0;
      if (running > 0)
        g_usleep (10000);
    }
  while (running > 0 && g_get_monotonic_time () < deadline);
  soak_attacker_stop (soak);

  for (guint i = 0; i < SOAK_SLOTS; i++)
    if (soak->workers[i].pid > 0)
      {
        g_test_message ("worker %d did not finish within 60 s of STOP",
                        (int) soak->workers[i].pid);
        soak->failed_workers++;
        kill (soak->workers[i].pid, SIGKILL);
        waitpid (soak->workers[i].pid, NULL, 0);
        soak->workers[i].pid = 0;
      }
}

static void
test_soak (void)
{
  g_autoptr(SoakTally) tally = NULL;
  Soak soak = { 0 };
  guint leftovers;

  soak_init (&soak);
  g_test_message ("%d processes on %d targets for %" G_GINT64_FORMAT " s in %s; %d of the "
                  "module's beside them every other %d s", SOAK_WORKERS, SOAK_TARGETS,
                  soak.seconds, soak.lock_dir, SOAK_NODE_WORKERS, SOAK_PHASE_S);

  run (&soak);
  stop (&soak);

  tally = soak_tally (&soak);
  soak_report (&soak, tally);

  /* Every process finished or was killed by the chaos. */
  g_assert_cmpuint (soak.failed_workers, ==, 0);
  /* Zero double holders: no critical section met another live holder, no release was lost. */
  g_assert_cmpuint (tally->overlaps, ==, 0);
  g_assert_cmpuint (tally->lost, ==, 0);
  g_assert_cmpuint (tally->errors, ==, 0);
  g_assert_cmpuint (soak.scan_errors, ==, 0);
  for (int k = 0; k < SOAK_TARGETS; k++)
    {
      /* Zero lost updates among completed critical sections; at most one extra per kill. */
      g_assert_cmpint (tally->counter[k], >=, (gint64) tally->completed[k]);
      g_assert_cmpint (tally->counter[k], <=, (gint64) (tally->completed[k] + soak.kills));
      /* Every target made progress. */
      g_assert_cmpuint (tally->completed[k], >, 0);
    }
  /* The module took part in every mixed phase there was. */
  if (soak.mixed_phases > 0)
    g_assert_cmpuint (tally->node_completed, >, 0);

  /* No lock is stuck: each is had within 10 s, stale ones taken over, then released. */
  soak_final_round (&soak);

  /* No leftovers but the junk and the orphans of killed processes. */
  leftovers = soak_check_leftovers (&soak);
  g_assert_cmpuint (leftovers, ==, 0);

  soak_clear (&soak);
}

int
main (int    argc,
      char **argv)
{
  g_test_init (&argc, &argv, NULL);

  if (argc > 1)
    soak_worker_path = argv[1];

  g_test_add_func ("/soak/chaos", test_soak);
  return g_test_run ();
}
