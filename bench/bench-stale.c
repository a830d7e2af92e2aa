/* bench-stale.c: section 4, a holder SIGKILLed while a waiter waits
 *
 * The holder takes the lock and stays; the waiter announces itself and blocks; 2-17 ms later the
 * parent stamps the time and SIGKILLs the holder. Either the parent reaps it at once, or it
 * leaves it a zombie for 500 ms, as a busy or careless parent would: a zombie's PID still
 * answers kill(pid, 0), so recovery that trusts the PID waits for the reap, while a kernel lock
 * is gone at exit. The sample is the waiter's acquire returning, minus the kill.
 *
 * The waiter is a new process: before it waits it takes and releases a lock of another name
 * once, so that what a process pays once (libfl: GLib's type system, its random generator)
 * is not counted as recovery. Whether fl-bench's own process had used libfl before the fork
 * (`--only=stale` or the whole table) made up to a millisecond of difference otherwise.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include "bench.h"

#define STEP_TIMEOUT_MS 30000

static G_GNUC_NORETURN void
holder (const BenchMethod *method,
        const char        *dir,
        int                ready_fd,
        int                never_fd)
{
  BenchLocker *locker = bench_locker_open_or_die (method, dir, "stale");
  char c;

  bench_locker_acquire_or_die (locker);
  bench_send_byte (ready_fd);
  /* Hold until killed: nobody ever writes to this pipe. */
  while (read (never_fd, &c, 1) != 0)
    ;
  _exit (1);
}

static G_GNUC_NORETURN void
waiter (const BenchMethod *method,
        const char        *dir,
        int                ready_fd,
        guint64           *acquired_at)
{
  BenchLocker *warm = bench_locker_open_or_die (method, dir, "stale-warm-up");
  BenchLocker *locker = bench_locker_open_or_die (method, dir, "stale");

  bench_locker_cycle (warm);
  method->close (warm);
  bench_send_byte (ready_fd);
  bench_locker_acquire_or_die (locker);
  *acquired_at = bench_now_ns ();
  bench_locker_release_or_die (locker);
  method->close (locker);
  _exit (0);
}

static double
run_once (const BenchMethod *method,
          const char        *dir,
          guint              zombie_ms,
          GRand             *rand)
{
  guint64 *acquired_at = bench_shared_alloc (sizeof (guint64));
  int ready[2], never[2];
  pid_t holder_pid, waiter_pid;
  guint64 killed_at;
  double sample;
  int status;

  bench_pipe (ready);
  bench_pipe (never);
  holder_pid = bench_fork ();
  if (holder_pid == 0)
    holder (method, dir, ready[1], never[0]);
  bench_wait_byte (ready[0], STEP_TIMEOUT_MS, "stale: holder holds");

  waiter_pid = bench_fork ();
  if (waiter_pid == 0)
    waiter (method, dir, ready[1], acquired_at);
  bench_wait_byte (ready[0], STEP_TIMEOUT_MS, "stale: waiter waits");

  bench_sleep_ns (bench_random_delay_ns (rand));
  killed_at = bench_now_ns ();
  kill (holder_pid, SIGKILL);
  if (zombie_ms > 0)
    bench_sleep_ns ((guint64) zombie_ms * 1000000);
  waitpid (holder_pid, &status, 0);

  bench_wait_child (waiter_pid, STEP_TIMEOUT_MS, "stale: waiter recovers");
  sample = (double) (*acquired_at - killed_at);

  close (ready[0]);
  close (ready[1]);
  close (never[0]);
  close (never[1]);
  bench_shared_free (acquired_at, sizeof (guint64));
  bench_scratch_clean (dir);
  return sample;
}

void
bench_run_stale (const BenchConfig *config,
                 BenchReport       *report)
{
  guint n = config->stale_samples;
  g_autoptr(GRand) rand = g_rand_new_with_seed (config->seed ^ 0x5a1e);
  g_autofree double *samples = g_new0 (double, 2 * BENCH_N_METHODS * n);
  g_autofree char *zombie_label = g_strdup_printf ("...unreaped for %u ms", config->zombie_ms);
  g_autofree char *legend = NULL;
  BenchCell *rows[2];

#define SAMPLE(z, m, i) samples[((z) * BENCH_N_METHODS + (m)) * n + (i)]

  for (guint i = 0; i < n; i++)
    {
      BenchMethodId order[BENCH_N_METHODS];

      bench_progress ("stale recovery: sample %u of %u", i + 1, n);
      bench_rotate_order (order, i);
      for (guint z = 0; z < 2; z++)
        for (guint j = 0; j < BENCH_N_METHODS; j++)
          {
            const BenchMethod *method = bench_method_get (order[j]);

            if (method->recovers && !method->external)
              SAMPLE (z, order[j], i) = run_once (method, config->tmpfs_dir,
                                                  z ? config->zombie_ms : 0, rand);
          }
    }

  legend = g_strdup_printf ("tmpfs; SIGKILL of the holder -> waiter's acquire returns (a "
                            "waiter that has taken a lock before); median of %u samples, ± "
                            "half the p25-p75 range", n);
  bench_report_section (report, "4. Stale recovery: holder SIGKILLed, waiter already waiting",
                        legend);
  rows[0] = bench_report_row (report, "holder killed, reaped at once", BENCH_UNIT_TIME, TRUE);
  rows[1] = bench_report_row (report, zombie_label, BENCH_UNIT_TIME, TRUE);
  for (guint z = 0; z < 2; z++)
    for (guint m = 0; m < BENCH_N_METHODS; m++)
      {
        if (bench_method_get ((BenchMethodId) m)->external)
          continue;
        if (bench_method_get ((BenchMethodId) m)->recovers)
          bench_cell_from_samples (&rows[z][m], &SAMPLE (z, m, 0), n);
        else
          bench_cell_text (&rows[z][m], "never");
      }

  bench_report_target (report, "stale recovery: libfl / flock(2)",
                       rows[0][BENCH_LIBFL].median / rows[0][BENCH_FLOCK].median, 1.3,
                       BENCH_UNIT_RATIO);
  bench_report_target (report, "stale recovery, zombie: libfl / flock(2)",
                       rows[1][BENCH_LIBFL].median / rows[1][BENCH_FLOCK].median, 1.3,
                       BENCH_UNIT_RATIO);
  bench_report_note (report, "bare O_EXCL, polled or woken by inotify, cannot tell a dead "
                     "holder from a live one: its waiter never recovers (not run)");
#undef SAMPLE
}
