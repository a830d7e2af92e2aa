/* bench-syscalls.c: syscalls per uncontended cycle
 *
 * Counted by strace, not estimated: fl-bench runs itself as a probe that only opens a locker and
 * cycles, under `strace -f -c`, once with a few cycles and once with many more. Everything the
 * two runs share (exec, dynamic loading, first-use setup) cancels out in the difference, which
 * is divided by the extra cycles. Where strace is missing or cannot trace, the row says n/a.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bench.h"

#define PROBE_BASE_CYCLES 100

int
bench_syscall_probe_main (const char *method_name,
                          const char *dir,
                          guint       cycles)
{
  const BenchMethod *method = bench_method_lookup (method_name);
  g_autoptr(GError) error = NULL;
  BenchLocker *locker;

  if (method == NULL)
    bench_die ("no such method: %s", method_name);
  locker = method->open (dir, "probe", &error);
  if (locker == NULL)
    bench_die ("%s: %s", method->name, error->message);
  for (guint i = 0; i < cycles; i++)
    bench_locker_cycle (locker);
  method->close (locker);
  return 0;
}

/* name -> calls, from strace's `-U name,calls` summary; NULL if strace failed. */
static GHashTable *
run_strace (const BenchConfig *config,
            const char        *strace,
            const BenchMethod *method,
            guint              cycles)
{
  g_autofree char *out = g_build_filename (config->tmpfs_dir, "strace.out", NULL);
  g_autofree char *cycles_str = g_strdup_printf ("%u", cycles);
  g_autofree char *node = method->external ? bench_node_program () : NULL;
  g_autofree char *target = g_build_filename (config->tmpfs_dir, "probe", NULL);
  g_auto(GStrv) node_argv = node != NULL ? bench_node_cycle_argv (node, target, cycles) : NULL;
  const char *argv[16] = {
    strace, "-f", "-c", "-U", "name,calls", "-o", out,
    config->self_exe, "--probe", method->name, config->tmpfs_dir, cycles_str, NULL,
  };
  g_autoptr(GError) error = NULL;
  g_autofree char *text = NULL;
  g_auto(GStrv) lines = NULL;
  GHashTable *counts;
  int status;

  if (method->external && node == NULL)
    return NULL;
  if (node_argv != NULL)
    for (guint i = 0; i <= g_strv_length (node_argv); i++)
      argv[7 + i] = node_argv[i];  /* the command after strace's options, NULL included */

  if (!g_spawn_sync (NULL, (char **) argv, NULL,
                     G_SPAWN_STDOUT_TO_DEV_NULL | G_SPAWN_STDERR_TO_DEV_NULL, NULL, NULL,
                     NULL, NULL, &status, &error)
      || !g_spawn_check_wait_status (status, &error)
      || !g_file_get_contents (out, &text, NULL, &error))
    {
      g_printerr ("fl-bench: strace: %s\n", error->message);
      unlink (out);
      return NULL;
    }
  unlink (out);

  counts = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  lines = g_strsplit (text, "\n", -1);
  for (guint i = 0; lines[i] != NULL; i++)
    {
      char name[64];
      unsigned long calls;

      if (sscanf (lines[i], "%63s %lu", name, &calls) == 2 && strcmp (name, "total") != 0)
        g_hash_table_insert (counts, g_strdup (name), GUINT_TO_POINTER ((guint) calls));
    }
  return counts;
}

typedef struct
{
  const char *name;
  double      per_cycle;
} Share;

static int
compare_shares (gconstpointer a,
                gconstpointer b)
{
  const Share *x = a;
  const Share *y = b;

  if (x->per_cycle != y->per_cycle)
    return x->per_cycle < y->per_cycle ? 1 : -1;
  return strcmp (x->name, y->name);
}

void
bench_count_syscalls (const BenchConfig *config,
                      BenchReport       *report,
                      BenchCell         *row)
{
  g_autofree char *strace = g_find_program_in_path ("strace");
  guint extra = config->syscall_cycles;

  if (strace == NULL)
    {
      bench_report_note (report, "syscalls per cycle: n/a, strace is not installed");
      return;
    }

  for (guint m = 0; m < BENCH_N_METHODS; m++)
    {
      const BenchMethod *method = bench_method_get ((BenchMethodId) m);
      g_autoptr(GHashTable) base = NULL;
      g_autoptr(GHashTable) more = NULL;
      g_autoptr(GArray) shares = g_array_new (FALSE, FALSE, sizeof (Share));
      g_autoptr(GString) line = g_string_new (NULL);
      GHashTableIter iter;
      gpointer key, value;
      double total = 0;

      bench_progress ("syscalls: %s under strace", method->name);
      base = run_strace (config, strace, method, PROBE_BASE_CYCLES);
      more = run_strace (config, strace, method, PROBE_BASE_CYCLES + extra);
      bench_scratch_clean (config->tmpfs_dir);
      if (base == NULL || more == NULL)
        {
          bench_cell_text (&row[m], "n/a");
          continue;
        }

      g_hash_table_iter_init (&iter, more);
      while (g_hash_table_iter_next (&iter, &key, &value))
        {
          double diff = (double) GPOINTER_TO_UINT (value)
                        - (double) GPOINTER_TO_UINT (g_hash_table_lookup (base, key));
          Share share = { key, diff / extra };

          /* Rounded to a tenth: a syscall made once in a while (a rare retry) still shows. */
          if (share.per_cycle >= 0.05)
            g_array_append_val (shares, share);
          total += diff;
        }
      g_array_sort (shares, compare_shares);

      row[m].valid = TRUE;
      row[m].median = row[m].lo = row[m].hi = round (total / extra * 10) / 10;

      g_string_printf (line, "  %s:", method->title);
      for (guint i = 0; i < shares->len; i++)
        {
          const Share *share = &g_array_index (shares, Share, i);

          g_string_append_printf (line, (share->per_cycle == round (share->per_cycle))
                                        ? " %s %.0f" : " %s %.1f",
                                  share->name, share->per_cycle);
        }
      bench_report_line (report, "%s", line->str);
    }
}
