/* bench-node.c: the original Node.js module itself, as a column beside its C copy
 *
 * tests/helpers/module-driver.mjs runs the module itself (@dogfood-lab/findings'
 * lib/file-lock.js, installed by build-aux/install-deps: tests/node-reference). Its
 * `cycle TARGET N` command takes and releases a free lock N times after a fixed warm-up (the JIT's) and prints
 * the nanoseconds per cycle by its own clock, so node's start-up is not counted. Only section
 * 1 runs it: its contended, handoff and recovery figures would be the 15 ms poll of the C copy
 * plus node's start-up per process, which says nothing new.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <math.h>
#include <stdlib.h>

#include "bench.h"

char *
bench_node_program (void)
{
  if (!g_file_test (BENCH_NODE_REFERENCE, G_FILE_TEST_IS_REGULAR))
    return NULL;
  /* The driver finds the module here; strace's children inherit it. */
  g_setenv ("FL_NODE_REFERENCE", BENCH_NODE_REFERENCE, FALSE);
  return g_find_program_in_path ("node");
}

char **
bench_node_cycle_argv (const char *node,
                       const char *target,
                       guint       cycles)
{
  char **argv = g_new0 (char *, 6);

  argv[0] = g_strdup (node);
  argv[1] = g_strdup (BENCH_NODE_DRIVER);
  argv[2] = g_strdup ("cycle");
  argv[3] = g_strdup (target);
  argv[4] = g_strdup_printf ("%u", cycles);
  return argv;
}

double
bench_node_cycle_ns (const char *dir,
                     guint       cycles)
{
  g_autofree char *node = bench_node_program ();
  g_autofree char *target = g_build_filename (dir, "uncontended", NULL);
  g_auto(GStrv) argv = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *out = NULL;
  int status;
  double ns;

  if (node == NULL)
    return NAN;
  argv = bench_node_cycle_argv (node, target, cycles);
  if (!g_spawn_sync (NULL, argv, NULL, G_SPAWN_STDERR_TO_DEV_NULL, NULL, NULL, &out, NULL,
                     &status, &error)
      || !g_spawn_check_wait_status (status, &error))
    bench_die ("node %s: %s", BENCH_NODE_DRIVER, error->message);
  ns = g_ascii_strtod (out, NULL);
  if (!(ns > 0))
    bench_die ("node %s: no time printed (%s)", BENCH_NODE_DRIVER, out);
  bench_scratch_clean (dir);
  return ns;
}

static BenchLocker *
node_open (const char  *dir,
           const char  *target_name,
           GError     **error)
{
  g_set_error_literal (error, G_IO_ERROR, G_IO_ERROR_NOT_SUPPORTED,
                       "the original module runs under node, in section 1 only");
  return NULL;
}

const BenchMethod bench_method_node = {
  BENCH_NODE, "node", "original (node)", TRUE,
  node_open, NULL, NULL, NULL, TRUE,
};
