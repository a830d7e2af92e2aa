/* bench-handoff.c: section 3, from the holder's release to the blocked waiter running
 *
 * Two processes pass the lock back and forth. The waiter says it is about to block (a byte on a
 * pipe) and blocks; the holder keeps the lock for a random 2-17 ms more, so the waiter is surely
 * asleep inside acquire and a 15 ms poll loop cannot phase-lock with the release, stamps the
 * time and releases. The waiter stamps the time its acquire returned. Then the two swap roles,
 * but only after the handoff is complete: a polling releaser that called acquire at once would
 * take the lock straight back.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <string.h>
#include <unistd.h>

#include "bench.h"

#define BYTE_TIMEOUT_MS 30000

typedef struct
{
  guint64 released_at;
  double  samples[];
} Shared;

static G_GNUC_NORETURN void
player (const BenchMethod *method,
        const char        *dir,
        guint              me,
        guint              n,
        int                to_other,
        int                from_other,
        Shared            *shared,
        guint32            seed)
{
  g_autoptr(GRand) rand = g_rand_new_with_seed (seed + me);
  BenchLocker *locker = bench_locker_open_or_die (method, dir, "handoff");

  /* Player 0 holds first; player 1 may only start waiting once it does. */
  if (me == 0)
    {
      bench_locker_acquire_or_die (locker);
      bench_send_byte (to_other);
    }
  else
    bench_wait_byte (from_other, BYTE_TIMEOUT_MS, "handoff: first hold");

  for (guint i = 0; i < n; i++)
    {
      if (i % 2 == me)
        {
          bench_wait_byte (from_other, BYTE_TIMEOUT_MS, "handoff: waiter ready");
          bench_sleep_ns (bench_random_delay_ns (rand));
          shared->released_at = bench_now_ns ();
          bench_locker_release_or_die (locker);
          bench_wait_byte (from_other, BYTE_TIMEOUT_MS, "handoff: waiter running");
        }
      else
        {
          bench_send_byte (to_other);
          bench_locker_acquire_or_die (locker);
          shared->samples[i] = (double) (bench_now_ns () - shared->released_at);
          bench_send_byte (to_other);
        }
    }

  /* The last waiter holds it now. */
  if ((n - 1) % 2 != me)
    bench_locker_release_or_die (locker);
  method->close (locker);
  _exit (0);
}

static void
run_round (const BenchMethod *method,
           const char        *dir,
           guint              n,
           guint32            seed,
           double            *out)
{
  gsize size = sizeof (Shared) + n * sizeof (double);
  Shared *shared = bench_shared_alloc (size);
  int a_to_b[2], b_to_a[2];
  pid_t pids[2];

  bench_pipe (a_to_b);
  bench_pipe (b_to_a);
  pids[0] = bench_fork ();
  if (pids[0] == 0)
    player (method, dir, 0, n, a_to_b[1], b_to_a[0], shared, seed);
  pids[1] = bench_fork ();
  if (pids[1] == 0)
    player (method, dir, 1, n, b_to_a[1], a_to_b[0], shared, seed);
  for (guint i = 0; i < 2; i++)
    {
      close (a_to_b[i]);
      close (b_to_a[i]);
    }

  bench_wait_children (pids, 2, BYTE_TIMEOUT_MS + n * 100, method->name);
  memcpy (out, shared->samples, n * sizeof (double));
  bench_shared_free (shared, size);
  bench_scratch_clean (dir);
}

void
bench_run_handoff (const BenchConfig *config,
                   BenchReport       *report)
{
  guint rounds = config->handoff_rounds;
  guint n = config->handoff_samples;
  g_autofree double *samples = g_new0 (double, BENCH_N_METHODS * rounds * n);
  g_autofree double *round_p50 = g_new0 (double, rounds);
  g_autofree char *legend = NULL;
  BenchCell *rows[3];
  static const double percentiles[3] = { 50, 90, 99 };
  static const char *const labels[3] = { "handoff p50", "handoff p90", "handoff p99" };

  for (guint r = 0; r < rounds; r++)
    {
      BenchMethodId order[BENCH_N_METHODS];

      bench_progress ("handoff: round %u of %u, %u handoffs per method", r + 1, rounds, n);
      bench_rotate_order (order, r);
      for (guint i = 0; i < BENCH_N_METHODS; i++)
        if (!bench_method_get (order[i])->external)
          run_round (bench_method_get (order[i]), config->tmpfs_dir, n, config->seed + r * 7,
                     &samples[(order[i] * rounds + r) * n]);
    }

  legend = g_strdup_printf ("tmpfs; release -> blocked waiter's acquire returns, hold times "
                            "random in [2, 17) ms; %u x %u handoffs per method; p50's ± is "
                            "half the min-max range of the rounds' p50s",
                            rounds, n);
  bench_report_section (report, "3. Handoff latency", legend);
  for (guint p = 0; p < 3; p++)
    rows[p] = bench_report_row (report, labels[p], BENCH_UNIT_TIME, TRUE);
  for (guint m = 0; m < BENCH_N_METHODS; m++)
    {
      const double *all = &samples[m * rounds * n];

      if (bench_method_get ((BenchMethodId) m)->external)
        continue;
      for (guint p = 0; p < 3; p++)
        {
          rows[p][m].valid = TRUE;
          rows[p][m].median = rows[p][m].lo = rows[p][m].hi =
            bench_percentile (all, rounds * n, percentiles[p]);
        }
      for (guint r = 0; r < rounds; r++)
        round_p50[r] = bench_percentile (&all[r * n], n, 50);
      rows[0][m].lo = bench_percentile (round_p50, rounds, 0);
      rows[0][m].hi = bench_percentile (round_p50, rounds, 100);
    }
  bench_report_note (report, "bare O_EXCL's handoff is its 15 ms poll: it has no way to "
                     "wake a waiter");
  /* What the wake costs by itself: the name's removal reaching a sleeping poll(), then one
   * create. Nothing a protocol woken that way does after the wake can win that back. */
  bench_report_note (report, "O_EXCL + inotify: a waiter woken by the name's removal, then one "
                     "O_EXCL create; its handoff p50 is %.2f× flock(2)'s in this run, the floor "
                     "under libfl's (libfl / O_EXCL + inotify: %.2f×)",
                     rows[0][BENCH_EXCL_WAKE].median / rows[0][BENCH_FLOCK].median,
                     rows[0][BENCH_LIBFL].median / rows[0][BENCH_EXCL_WAKE].median);

  bench_report_target (report, "handoff p50: libfl / flock(2)",
                       rows[0][BENCH_LIBFL].median / rows[0][BENCH_FLOCK].median, 2,
                       BENCH_UNIT_RATIO);
  bench_report_target (report, "handoff p99 of libfl", rows[2][BENCH_LIBFL].median, 1e6,
                       BENCH_UNIT_TIME);
}
