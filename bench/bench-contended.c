/* bench-contended.c: section 2, P processes incrementing one counter under the lock
 *
 * Each of P processes does K plain read-increment-write critical sections on a counter file
 * (pread, add one, pwrite: no atomicity of its own, so only the lock keeps updates from being
 * lost). The final count must be exactly P * K; anything else aborts the benchmark, because a
 * lock that loses updates has no throughput worth printing.
 *
 * Fairness: inside its critical section each worker notes in shared memory whether the
 * previous section was another worker's. Handoffs per critical section is 1 when the lock
 * passes to another process every time (as a fair queue would at P = 2), and near 0 when a
 * releaser that loops straight back keeps winning it.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <unistd.h>

#include "bench.h"

#define COUNTER_NAME "counter"
#define COUNTER_WIDTH 20

static const guint process_counts[] = { 2, 8, 32 };
#define N_CONFIGS G_N_ELEMENTS (process_counts)

static guint64
read_counter (int fd)
{
  char buf[COUNTER_WIDTH + 1];
  gssize n = pread (fd, buf, COUNTER_WIDTH, 0);

  if (n != COUNTER_WIDTH)
    bench_die ("counter: short read (%" G_GSSIZE_FORMAT " bytes)", n);
  buf[n] = '\0';
  return g_ascii_strtoull (buf, NULL, 10);
}

static void
write_counter (int     fd,
               guint64 value)
{
  char buf[COUNTER_WIDTH + 1];

  /* Fixed width: a write never needs a truncate, so a critical section is one pread + pwrite. */
  g_snprintf (buf, sizeof buf, "%0*" G_GUINT64_FORMAT, COUNTER_WIDTH, value);
  if (pwrite (fd, buf, COUNTER_WIDTH, 0) != COUNTER_WIDTH)
    bench_die ("counter: write: %s", g_strerror (errno));
}

/* Written only inside the critical section, under the lock being measured. */
typedef struct
{
  gint    last;      /* the worker that ran the previous critical section, 1-based */
  guint64 handoffs;  /* critical sections that followed another worker's */
} Fairness;

static G_GNUC_NORETURN void
worker (const BenchMethod *method,
        const char        *dir,
        int                start_fd,
        guint              k,
        gint               me,
        Fairness          *fairness)
{
  g_autofree char *path = g_build_filename (dir, COUNTER_NAME, NULL);
  BenchLocker *locker = bench_locker_open_or_die (method, dir, "contended");
  int fd = open (path, O_RDWR | O_CLOEXEC);
  char c;
  if (fd < 0)
    bench_die ("%s: %s", path, g_strerror (errno));

  /* Everybody starts at once: the parent closes the pipe's write end. */
  while (read (start_fd, &c, 1) < 0 && errno == EINTR)
    ;

  for (guint i = 0; i < k; i++)
    {
      bench_locker_acquire_or_die (locker);
      write_counter (fd, read_counter (fd) + 1);
      if (g_atomic_int_get (&fairness->last) != me)
        {
          fairness->handoffs++;
          g_atomic_int_set (&fairness->last, me);
        }
      bench_locker_release_or_die (locker);
    }

  close (fd);
  method->close (locker);
  _exit (0);
}

/* Nanoseconds per critical section, from the start signal to the last worker's exit; the
 * handoffs per critical section in @fair. */
static double
run_once (const BenchMethod *method,
          const char        *dir,
          guint              p,
          guint              k,
          double            *fair)
{
  Fairness *fairness = bench_shared_alloc (sizeof (Fairness));
  g_autofree char *path = g_build_filename (dir, COUNTER_NAME, NULL);
  g_autofree pid_t *pids = g_new0 (pid_t, p);
  int start[2];
  int fd;
  guint64 begin, count;
  double elapsed;

  fd = open (path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0)
    bench_die ("%s: %s", path, g_strerror (errno));
  write_counter (fd, 0);

  bench_pipe (start);
  for (guint i = 0; i < p; i++)
    {
      pids[i] = bench_fork ();
      if (pids[i] == 0)
        {
          close (start[1]);
          worker (method, dir, start[0], k, (gint) i + 1, fairness);
        }
    }
  close (start[0]);

  begin = bench_now_ns ();
  close (start[1]);
  bench_wait_children (pids, p, 600 * 1000, method->name);
  elapsed = (double) (bench_now_ns () - begin);

  count = read_counter (fd);
  close (fd);
  if (count != (guint64) p * k)
    bench_die ("%s, P = %u: LOST UPDATES: the counter reads %" G_GUINT64_FORMAT
               " after %u x %u critical sections", method->name, p, count, p, k);
  bench_scratch_clean (dir);
  *fair = (double) fairness->handoffs / ((double) p * k);
  bench_shared_free (fairness, sizeof (Fairness));
  return elapsed / ((double) p * k);
}

void
bench_run_contended (const BenchConfig *config,
                     BenchReport       *report)
{
  guint rounds = config->contended_rounds;
  g_autofree double *values = g_new0 (double, N_CONFIGS * BENCH_N_METHODS * rounds);
  g_autofree double *fair = g_new0 (double, N_CONFIGS * BENCH_N_METHODS * rounds);
  g_autofree char *legend = NULL;

#define VALUE(c, m, r) values[((c) * BENCH_N_METHODS + (m)) * rounds + (r)]
#define FAIR(c, m, r) fair[((c) * BENCH_N_METHODS + (m)) * rounds + (r)]

  for (guint r = 0; r < rounds; r++)
    for (guint c = 0; c < N_CONFIGS; c++)
      {
        guint p = process_counts[c];
        guint k = MAX (config->contended_total / p, 1);
        BenchMethodId order[BENCH_N_METHODS];

        bench_progress ("contended: round %u of %u, P = %u, K = %u", r + 1, rounds, p, k);
        bench_rotate_order (order, r + c);
        for (guint i = 0; i < BENCH_N_METHODS; i++)
          if (!bench_method_get (order[i])->external)
            VALUE (c, order[i], r) = run_once (bench_method_get (order[i]), config->tmpfs_dir,
                                               p, k, &FAIR (c, order[i], r));
      }

  legend = g_strdup_printf ("tmpfs; P processes x K read-increment-write critical sections, "
                            "K = %u / P, final count checked exactly; median of %u rounds, "
                            "± half their min-max range",
                            config->contended_total, rounds);
  bench_report_section (report, "2. Contended: P processes, one counter", legend);
  for (guint c = 0; c < N_CONFIGS; c++)
    {
      g_autofree char *label = g_strdup_printf ("P = %u, per critical section", process_counts[c]);
      g_autofree char *rate_label = g_strdup_printf ("P = %u, critical sections/s",
                                                     process_counts[c]);
      g_autofree char *fair_label = g_strdup_printf ("P = %u, handoffs per section",
                                                     process_counts[c]);
      BenchCell *row = bench_report_row (report, label, BENCH_UNIT_TIME, TRUE);
      BenchCell *rate = bench_report_row (report, rate_label, BENCH_UNIT_RATE, FALSE);
      BenchCell *fair_row = bench_report_row (report, fair_label, BENCH_UNIT_RATIO, FALSE);
      g_autofree char *what = NULL;
      g_autofree char *fair_what = NULL;

      for (guint m = 0; m < BENCH_N_METHODS; m++)
        {
          g_autofree double *per_s = g_new0 (double, rounds);

          if (bench_method_get ((BenchMethodId) m)->external)
            continue;
          bench_cell_from_rounds (&fair_row[m], &FAIR (c, m, 0), rounds);

          bench_cell_from_rounds (&row[m], &VALUE (c, m, 0), rounds);
          for (guint r = 0; r < rounds; r++)
            per_s[r] = 1e9 / VALUE (c, m, r);
          bench_cell_from_rounds (&rate[m], per_s, rounds);
        }

      /* Issue 16: within 1.2x of the bare O_EXCL floor, and fair. */
      what = g_strdup_printf ("contended P = %u: libfl / bare O_EXCL, time per critical section",
                              process_counts[c]);
      bench_report_target (report, what, row[BENCH_LIBFL].median / row[BENCH_EXCL].median, 1.2,
                           BENCH_UNIT_RATIO);
      fair_what = g_strdup_printf ("contended P = %u: libfl critical sections per handoff "
                                   "(1 when it always passes on)", process_counts[c]);
      bench_report_target (report, fair_what, 1.0 / fair_row[BENCH_LIBFL].median, 1.25,
                           BENCH_UNIT_RATIO);
    }
  bench_report_target (report, "contended: lost updates (every run checked exactly)", 0, 0,
                       BENCH_UNIT_COUNT);
  bench_report_note (report, "handoffs per section: the share of critical sections that "
                     "followed another process's (1: the lock always passed on; near 0: the "
                     "releaser kept winning it)");
  bench_report_note (report, "bare O_EXCL and original waiters retry every 15 ms, as the "
                     "original module does; a releaser that loops straight back usually wins "
                     "the lock again, so their contended figures favour throughput over "
                     "fairness");
#undef VALUE
#undef FAIR
}
