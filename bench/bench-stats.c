/* bench-stats.c: clocks, medians and percentiles, shared memory, dying loudly
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "bench.h"

guint64
bench_now_ns (void)
{
  struct timespec ts;

  /* CLOCK_MONOTONIC is one clock for every process of the machine, so a release stamped by one
   * process and a wake-up stamped by another can be subtracted. */
  clock_gettime (CLOCK_MONOTONIC, &ts);
  return (guint64) ts.tv_sec * G_GUINT64_CONSTANT (1000000000) + (guint64) ts.tv_nsec;
}

void
bench_sleep_ns (guint64 ns)
{
  struct timespec ts = {
    .tv_sec = (time_t) (ns / G_GUINT64_CONSTANT (1000000000)),
    .tv_nsec = (long) (ns % G_GUINT64_CONSTANT (1000000000)),
  };

  while (nanosleep (&ts, &ts) < 0 && errno == EINTR)
    ;
}

guint64
bench_random_delay_ns (GRand *rand)
{
  return BENCH_RANDOM_MIN_NS + (guint64) g_rand_double_range (rand, 0, BENCH_RANDOM_SPAN_NS);
}

static int
compare_doubles (gconstpointer a,
                 gconstpointer b)
{
  double x = *(const double *) a;
  double y = *(const double *) b;

  return (x > y) - (x < y);
}

/* Linear interpolation between closest ranks; p in [0, 100]. */
double
bench_percentile (const double *values,
                  gsize         n,
                  double        p)
{
  g_autofree double *sorted = NULL;
  double rank;
  gsize below;

  if (n == 0)
    return NAN;

  sorted = g_memdup2 (values, n * sizeof (double));
  qsort (sorted, n, sizeof (double), compare_doubles);
  rank = p / 100.0 * (double) (n - 1);
  below = (gsize) floor (rank);
  if (below + 1 >= n)
    return sorted[n - 1];
  return sorted[below] + (rank - (double) below) * (sorted[below + 1] - sorted[below]);
}

/* Median, with the spread between the @lo_pct and @hi_pct percentiles. */
static void
cell_from_values (BenchCell    *cell,
                  const double *values,
                  gsize         n,
                  double        lo_pct,
                  double        hi_pct)
{
  memset (cell, 0, sizeof *cell);
  if (n == 0)
    return;
  cell->valid = TRUE;
  cell->median = bench_percentile (values, n, 50);
  cell->lo = bench_percentile (values, n, lo_pct);
  cell->hi = bench_percentile (values, n, hi_pct);
}

/* A few rounds: the spread is their whole range. */
void
bench_cell_from_rounds (BenchCell    *cell,
                        const double *values,
                        gsize         n)
{
  cell_from_values (cell, values, n, 0, 100);
}

/* Many samples: the spread is the interquartile range. */
void
bench_cell_from_samples (BenchCell    *cell,
                         const double *values,
                         gsize         n)
{
  cell_from_values (cell, values, n, 25, 75);
}

void
bench_cell_text (BenchCell  *cell,
                 const char *text)
{
  memset (cell, 0, sizeof *cell);
  cell->text = text;
}

/* Anonymous shared memory survives fork() as one mapping: children write their samples into it
 * and the parent reads them after waitpid(). */
gpointer
bench_shared_alloc (gsize size)
{
  void *mem = mmap (NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);

  if (mem == MAP_FAILED)
    bench_die ("mmap(%" G_GSIZE_FORMAT " bytes): %s", size, g_strerror (errno));
  return mem;
}

void
bench_shared_free (gpointer mem,
                   gsize    size)
{
  munmap (mem, size);
}

void
bench_die (const char *format,
           ...)
{
  va_list args;

  fflush (stdout);
  fprintf (stderr, "fl-bench[%d]: ", (int) getpid ());
  va_start (args, format);
  vfprintf (stderr, format, args);
  va_end (args);
  fputc ('\n', stderr);
  /* _exit: a child must not run the parent's atexit handlers or flush its stdio twice. */
  _exit (1);
}

void
bench_progress (const char *format,
                ...)
{
  va_list args;

  fputs ("  ... ", stderr);
  va_start (args, format);
  vfprintf (stderr, format, args);
  va_end (args);
  fputc ('\n', stderr);
}

/* Round r runs the methods starting from a different one each time, so no method always runs
 * first (cold caches) or right after the same neighbour. */
void
bench_rotate_order (BenchMethodId *order,
                    guint          round)
{
  for (guint i = 0; i < BENCH_N_METHODS; i++)
    order[i] = (BenchMethodId) ((i + round) % BENCH_N_METHODS);
}
