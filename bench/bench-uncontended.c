/* bench-uncontended.c: section 1, one process taking and releasing a free lock
 *
 * The cost of a lock nobody else wants, per acquire + release, on tmpfs (the filesystem's work
 * is all in memory: what remains is the protocol's syscalls) and on the disk filesystem (where
 * every name created and removed goes through the journal).
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <math.h>

#include "bench.h"

static double
cycle_ns (const BenchMethod *method,
          const char        *dir,
          guint              cycles)
{
  g_autoptr(GError) error = NULL;
  BenchLocker *locker;
  guint64 start;
  double elapsed;

  if (method->external)
    return bench_node_cycle_ns (dir, cycles);
  locker = method->open (dir, "uncontended", &error);
  if (locker == NULL)
    bench_die ("%s: %s", method->name, error->message);

  /* The first cycles pay for first use (type registration, the identity, dentry allocation). */
  for (guint i = 0; i < MAX (cycles / 10, 10); i++)
    bench_locker_cycle (locker);

  start = bench_now_ns ();
  for (guint i = 0; i < cycles; i++)
    bench_locker_cycle (locker);
  elapsed = (double) (bench_now_ns () - start);

  method->close (locker);
  bench_scratch_clean (dir);
  return elapsed / cycles;
}

void
bench_run_uncontended (const BenchConfig *config,
                       BenchReport       *report)
{
  const char *dirs[2] = { config->tmpfs_dir, config->disk_dir };
  g_autofree char *disk_label = g_strdup_printf ("cycle, disk (%s)", config->disk_fs);
  const char *labels[2] = { "cycle, tmpfs", disk_label };
  g_autofree char *legend = NULL;
  g_autofree double *values = g_new0 (double, 2 * BENCH_N_METHODS * config->uncontended_rounds);
  BenchCell *rows[2];
  BenchCell *syscalls;

#define VALUE(d, m, r) values[((d) * BENCH_N_METHODS + (m)) * config->uncontended_rounds + (r)]

  for (guint r = 0; r < config->uncontended_rounds; r++)
    {
      bench_progress ("uncontended: round %u of %u", r + 1, config->uncontended_rounds);
      for (guint d = 0; d < 2; d++)
        {
          BenchMethodId order[BENCH_N_METHODS];

          bench_rotate_order (order, r + d);
          for (guint i = 0; i < BENCH_N_METHODS; i++)
            VALUE (d, order[i], r) = cycle_ns (bench_method_get (order[i]), dirs[d],
                                               config->uncontended_cycles);
        }
    }

  legend = g_strdup_printf ("time per acquire+release; median of %u rounds of %u cycles, "
                            "± half their min-max range; methods interleaved",
                            config->uncontended_rounds, config->uncontended_cycles);
  bench_report_section (report, "1. Uncontended acquire+release, one process", legend);
  for (guint d = 0; d < 2; d++)
    {
      rows[d] = bench_report_row (report, labels[d], BENCH_UNIT_TIME, TRUE);
      for (guint m = 0; m < BENCH_N_METHODS; m++)
        if (isnan (VALUE (d, m, 0)))
          bench_cell_text (&rows[d][m], "n/a");
        else
          bench_cell_from_rounds (&rows[d][m], &VALUE (d, m, 0), config->uncontended_rounds);
    }
  syscalls = bench_report_row (report, "syscalls per cycle", BENCH_UNIT_COUNT, TRUE);
  bench_count_syscalls (config, report, syscalls);

  /* Issue 16: no slower than the original protocol, with every guarantee kept. */
  for (guint d = 0; d < 2; d++)
    {
      g_autofree char *what = g_strdup_printf ("uncontended %s: libfl / original (C)",
                                               labels[d]);

      bench_report_target (report, what,
                           rows[d][BENCH_LIBFL].median / rows[d][BENCH_ORIG].median, 1.0,
                           BENCH_UNIT_RATIO);
    }
  if (rows[0][BENCH_NODE].valid)
    bench_report_note (report, "original (node): the module itself (tests/helpers/module-driver.mjs), "
                       "timed by its own clock after a warm-up of 200 cycles (node's start-up "
                       "not counted); measured in section 1 only");
  else
    bench_report_note (report, "original (node): n/a, node or the module is not installed "
                       "(build-aux/install-deps)");
#undef VALUE
}
