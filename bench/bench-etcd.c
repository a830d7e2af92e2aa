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

typedef struct
{
  const char *uri;
  gint64      acquired_us;
  FlLock     *lock;
} Taker;

static gpointer
taker_thread (gpointer data)
{
  Taker *t = data;
  g_autoptr(GError) error = NULL;

  t->lock = fl_lock_acquire (t->uri, NULL, NULL, &error);
  if (t->lock == NULL)
    g_error ("%s: %s", t->uri, error->message);
  t->acquired_us = g_get_monotonic_time ();
  return NULL;
}

/* From the holder's release until the waiter's acquire returns, the waiter having queued
 * @queued_ms before the release (etcd serves a watcher younger than its 100 ms sync loop
 * late: docs/etcd.md). */
static void
handoff (EtcdServer *server,
         const char *uri,
         guint       queued_ms,
         guint       n,
         gint64     *samples)
{
  g_autofree char *name = g_strdup (strstr (uri, "/fl-test/") + 1);

  for (guint i = 0; i < n; i++)
    {
      g_autoptr(FlLock) holder = fl_lock_acquire (uri, NULL, NULL, NULL);
      Taker t = { uri, 0, NULL };
      GThread *thread;
      gint64 released;

      g_assert (holder != NULL);
      thread = g_thread_new ("taker", taker_thread, &t);
      for (;;)  /* until the waiter is queued in etcd */
        {
          g_autoptr(GPtrArray) queue = etcd_server_queue (server, name);
          if (queue->len == 2)
            break;
        }
      if (queued_ms > 0)
        g_usleep (queued_ms * 1000);  /* the scenario measured, not a synchronisation */
      released = g_get_monotonic_time ();
      fl_lock_release (holder, NULL);
      g_thread_join (thread);
      samples[i] = t.acquired_us - released;
      fl_lock_release (t.lock, NULL);
      g_object_unref (t.lock);
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

  {
    guint h = MAX (n / 10, 10);
    g_autofree gint64 *fresh = g_new (gint64, h);
    g_autofree gint64 *old = g_new (gint64, h);

    handoff (server, uri, 0, h, fresh);
    handoff (server, uri, 200, h, old);
    g_print ("handoff, release -> waiter's acquire returns, n=%u (median / p90, us)\n", h);
    g_print ("  waiter queued just before  %7" G_GINT64_FORMAT " %7" G_GINT64_FORMAT "\n",
             fresh[h / 2], fresh[h * 9 / 10]);
    g_print ("  waiter queued 200 ms before%7" G_GINT64_FORMAT " %7" G_GINT64_FORMAT "\n",
             old[h / 2], old[h * 9 / 10]);
  }

  etcd_server_stop (server);
  g_rmdir (dir);
  return 0;
}
