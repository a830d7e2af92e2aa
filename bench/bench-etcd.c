/* bench-etcd.c: acquire+release of an etcd:// lock against the file lock, in one run
 *
 * Starts a single-node etcd (tests/etcd/etcd-test-util.c: free loopback ports, data under
 * /dev/shm when there), then times N uncontended fl_lock_acquire() + fl_lock_release() on
 * each backend and prints the medians, p90 and the etcd/file ratio (the file lock, measured
 * in the same run, is the baseline). Run: build-bench/bench/fl-bench-etcd [N]
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include <libfl/fl.h>

#include <glib/gstdio.h>
#include <stdlib.h>

#include "etcd-test-util.h"

static int
compare (gconstpointer a,
         gconstpointer b)
{
  gint64 x = *(const gint64 *) a, y = *(const gint64 *) b;

  return x < y ? -1 : x > y;
}

static void
measure (const char *target,
         guint       n,
         gint64     *samples)
{
  for (guint i = 0; i < n; i++)
    {
      g_autoptr(GError) error = NULL;
      gint64 start = g_get_monotonic_time ();
      g_autoptr(FlLock) lock = fl_lock_acquire (target, NULL, NULL, &error);

      if (lock == NULL || !fl_lock_release (lock, &error))
        g_error ("%s: %s", target, error->message);
      samples[i] = g_get_monotonic_time () - start;
    }
  qsort (samples, n, sizeof *samples, compare);
}

int
main (int    argc,
      char **argv)
{
  guint n = argc > 1 ? (guint) atoi (argv[1]) : 200;
  g_autofree char *skip = NULL;
  g_autofree char *dir = g_dir_make_tmp ("fl-bench-etcd-XXXXXX", NULL);
  g_autofree char *file = g_build_filename (dir, "target", NULL);
  g_autofree char *uri = NULL;
  g_autofree gint64 *f = g_new (gint64, MAX (n, 1));
  g_autofree gint64 *e = g_new (gint64, MAX (n, 1));
  EtcdServer *server = etcd_server_start (&skip);

  if (server == NULL)
    {
      g_printerr ("fl-bench-etcd: %s\n", skip);
      return 77;
    }
  if (n < 10)
    n = 10;
  uri = etcd_server_uri (server, "bench");

  measure (uri, n / 10, e);  /* warm: connections, the etcd thread */
  measure (file, n, f);
  measure (uri, n, e);

  g_print ("acquire+release, uncontended, n=%u (median / p90 / p99, us)\n", n);
  g_print ("  file lock (baseline)  %7" G_GINT64_FORMAT " %7" G_GINT64_FORMAT " %7"
           G_GINT64_FORMAT "\n", f[n / 2], f[n * 9 / 10], f[n * 99 / 100]);
  g_print ("  etcd, 1 node          %7" G_GINT64_FORMAT " %7" G_GINT64_FORMAT " %7"
           G_GINT64_FORMAT "   x%.1f the file lock\n", e[n / 2], e[n * 9 / 10],
           e[n * 99 / 100], (double) e[n / 2] / MAX (f[n / 2], 1));
  g_print ("  (etcd: lease grant + lock + guarded check + guarded delete + revoke: 5 calls)\n");

  etcd_server_stop (server);
  g_rmdir (dir);
  return 0;
}
