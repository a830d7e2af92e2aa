/* bench-waiter-cpu.c: section 5, the CPU a waiter burns while the lock stays held
 *
 * One holder and one waiter per method, all methods at once, so they share the same seconds of
 * the same machine. Each method has its own subdirectory: a waiter that watches its directory
 * (libfl's inotify) wakes for every change in it, and the polling baselines change theirs every
 * 15 ms. That cost is real, so one more libfl waiter sits in the original's directory and gets
 * its own row. The waiter measures its own CPU time (user + system, all threads) around its
 * acquire; the holder releases when the parent says so, after the configured seconds.
 *
 * The waiter is a new process: it takes and releases a lock of another name first, so that
 * what a process pays once for its first lock (libfl: GLib's type system and the like, a few
 * milliseconds of CPU) is not counted as waiting.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <errno.h>
#include <sys/resource.h>
#include <unistd.h>

#include <glib/gstdio.h>

#include "bench.h"

#define STEP_TIMEOUT_MS 30000

/* The pairs: one per method, then libfl next to the original's 15 ms poller. */
#define N_PAIRS (BENCH_N_METHODS + 1)
#define BUSY_PAIR BENCH_N_METHODS

typedef struct
{
  double cpu_ns[N_PAIRS];
  double waited_ns[N_PAIRS];
} Shared;

static double
cpu_now_ns (void)
{
  struct rusage ru;

  getrusage (RUSAGE_SELF, &ru);
  return ((double) ru.ru_utime.tv_sec + (double) ru.ru_stime.tv_sec) * 1e9
         + ((double) ru.ru_utime.tv_usec + (double) ru.ru_stime.tv_usec) * 1e3;
}

static const BenchMethod *
pair_method (guint pair)
{
  return bench_method_get (pair == BUSY_PAIR ? BENCH_LIBFL : (BenchMethodId) pair);
}

/* The busy pair shares the original's subdirectory, under another target. */
static char *
pair_dir (const BenchConfig *config,
          guint              pair)
{
  const BenchMethod *method = bench_method_get (pair == BUSY_PAIR ? BENCH_ORIG
                                                                  : (BenchMethodId) pair);

  return g_strdup_printf ("%s/cpu-%s", config->tmpfs_dir, method->name);
}

static const char *
pair_target (guint pair)
{
  return pair == BUSY_PAIR ? "busy" : "quiet";
}

static G_GNUC_NORETURN void
holder (const BenchMethod *method,
        const char        *dir,
        const char        *name,
        int                ready_fd,
        int                release_fd)
{
  BenchLocker *locker;

  if (method->external)
    {
      bench_send_byte (ready_fd);  /* section 1 only: nothing to hold */
      _exit (0);
    }
  locker = bench_locker_open_or_die (method, dir, name);
  bench_locker_acquire_or_die (locker);
  bench_send_byte (ready_fd);
  bench_wait_byte (release_fd, STEP_TIMEOUT_MS * 4, "waiter cpu: release");
  bench_locker_release_or_die (locker);
  method->close (locker);
  _exit (0);
}

static G_GNUC_NORETURN void
waiter (const BenchMethod *method,
        const char        *dir,
        const char        *name,
        guint              pair,
        int                ready_fd,
        Shared            *shared)
{
  BenchLocker *locker, *warm;
  double cpu_before;
  guint64 before;

  if (method->external)
    {
      bench_send_byte (ready_fd);
      _exit (0);
    }
  warm = bench_locker_open_or_die (method, dir, "warm-up");
  bench_locker_cycle (warm);
  method->close (warm);
  locker = bench_locker_open_or_die (method, dir, name);
  bench_send_byte (ready_fd);
  before = bench_now_ns ();
  cpu_before = cpu_now_ns ();
  bench_locker_acquire_or_die (locker);
  shared->cpu_ns[pair] = cpu_now_ns () - cpu_before;
  shared->waited_ns[pair] = (double) (bench_now_ns () - before);
  bench_locker_release_or_die (locker);
  method->close (locker);
  _exit (0);
}

static void
run_round (const BenchConfig *config,
           double             cpu[N_PAIRS],
           double             waited[N_PAIRS])
{
  Shared *shared = bench_shared_alloc (sizeof (Shared));
  pid_t pids[2 * N_PAIRS];
  int release[N_PAIRS][2];
  char *dirs[N_PAIRS];
  int ready[2];

  for (guint p = 0; p < BENCH_N_METHODS; p++)
    {
      dirs[p] = pair_dir (config, p);
      if (g_mkdir (dirs[p], 0700) < 0)
        bench_die ("%s: %s", dirs[p], g_strerror (errno));
    }
  dirs[BUSY_PAIR] = pair_dir (config, BUSY_PAIR);

  bench_pipe (ready);
  for (guint p = 0; p < N_PAIRS; p++)
    {
      bench_pipe (release[p]);
      pids[p] = bench_fork ();
      if (pids[p] == 0)
        holder (pair_method (p), dirs[p], pair_target (p), ready[1], release[p][0]);
      bench_wait_byte (ready[0], STEP_TIMEOUT_MS, "waiter cpu: holder holds");
    }
  for (guint p = 0; p < N_PAIRS; p++)
    {
      pids[N_PAIRS + p] = bench_fork ();
      if (pids[N_PAIRS + p] == 0)
        waiter (pair_method (p), dirs[p], pair_target (p), p, ready[1], shared);
      bench_wait_byte (ready[0], STEP_TIMEOUT_MS, "waiter cpu: waiter waits");
    }

  bench_sleep_ns ((guint64) config->cpu_seconds * 1000000000);
  for (guint p = 0; p < N_PAIRS; p++)
    bench_send_byte (release[p][1]);
  bench_wait_children (pids, 2 * N_PAIRS, STEP_TIMEOUT_MS, "waiter cpu");

  for (guint p = 0; p < N_PAIRS; p++)
    {
      cpu[p] = shared->cpu_ns[p];
      waited[p] = shared->waited_ns[p];
      close (release[p][0]);
      close (release[p][1]);
    }
  close (ready[0]);
  close (ready[1]);
  bench_shared_free (shared, sizeof (Shared));
  for (guint p = 0; p < N_PAIRS; p++)
    {
      if (p < BENCH_N_METHODS)
        {
          bench_scratch_clean (dirs[p]);
          if (rmdir (dirs[p]) < 0)
            bench_die ("%s: %s", dirs[p], g_strerror (errno));
        }
      g_free (dirs[p]);
    }
}

void
bench_run_waiter_cpu (const BenchConfig *config,
                      BenchReport       *report)
{
  guint rounds = config->cpu_rounds;
  g_autofree double *cpu = g_new0 (double, N_PAIRS * rounds);
  g_autofree double *waited = g_new0 (double, N_PAIRS * rounds);
  g_autofree char *legend = NULL;
  g_autofree char *label = g_strdup_printf ("waiter CPU over %u s", config->cpu_seconds);
  BenchCell *row, *busy_row, *wait_row;

  for (guint r = 0; r < rounds; r++)
    {
      double c[N_PAIRS], w[N_PAIRS];

      bench_progress ("waiter cpu: round %u of %u, %u s", r + 1, rounds, config->cpu_seconds);
      run_round (config, c, w);
      for (guint p = 0; p < N_PAIRS; p++)
        {
          cpu[p * rounds + r] = c[p];
          waited[p * rounds + r] = w[p];
        }
    }

  legend = g_strdup_printf ("tmpfs; user + system time of the waiting process (getrusage) "
                            "from the call to acquire until it returns (a waiter that has "
                            "taken a lock before); all methods at once, "
                            "each in its own directory; median of %u rounds, ± half their "
                            "min-max range", rounds);
  bench_report_section (report, "5. CPU used by a blocked waiter", legend);
  row = bench_report_row (report, label, BENCH_UNIT_TIME, TRUE);
  busy_row = bench_report_row (report, "...next to a 15 ms poller", BENCH_UNIT_TIME, FALSE);
  wait_row = bench_report_row (report, "(time actually blocked)", BENCH_UNIT_TIME, FALSE);
  for (guint m = 0; m < BENCH_N_METHODS; m++)
    {
      if (bench_method_get ((BenchMethodId) m)->external)
        continue;
      bench_cell_from_rounds (&row[m], &cpu[m * rounds], rounds);
      bench_cell_from_rounds (&wait_row[m], &waited[m * rounds], rounds);
    }
  bench_cell_from_rounds (&busy_row[BENCH_LIBFL], &cpu[BUSY_PAIR * rounds], rounds);
  bench_report_note (report, "\"next to a 15 ms poller\": a libfl waiter in the same directory "
                     "as the original's waiter, whose every attempt creates and removes a temp "
                     "file: each removal wakes the inotify watch once");

  /* The target is per 5 s; a shorter run is scaled up to compare. */
  bench_report_target (report, "waiter CPU per 5 s blocked, libfl",
                       row[BENCH_LIBFL].median * 5.0 / config->cpu_seconds, 5e6,
                       BENCH_UNIT_TIME);
}
