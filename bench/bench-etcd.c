/* bench-etcd.c: etcd:// locks (1 node, 3 members) against the file lock, in one run
 *
 * Starts a single-node etcd and a 3-member cluster (harness/etcd-server.c: free
 * loopback ports, data under /dev/shm when there), then times, on each setup:
 * - N uncontended fl_lock_acquire() + fl_lock_release();
 * - handoff: from the holder's release until a waiter's acquire returns, the waiter having
 *   queued just before the release or 200 ms before it.
 * It prints medians, p90, p99 and each etcd figure over the file lock's, measured in the same
 * run (the baseline). Run: build-bench/bench/fl-bench-etcd [N]
 *
 * A waiter that had just queued used to get the lock ~80 ms late (docs/performance.md,
 * "etcd"): etcd's lock service watches the key ahead from a revision already in the past, and
 * etcd serves such a watch from a loop that runs every 100 ms. libfl now runs the recipe
 * itself and watches from a future revision; the "queued just before" column shows it.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include <libfl/fl.h>

#include <gio/gio.h>
#include <glib/gstdio.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "etcd-server.h"

typedef struct
{
  const char *label;
  char       *uri;
  EtcdServer *server;  /* where to see the queue; NULL for the file lock */
  gint64      cycle[3];    /* acquire+release: median, p90, p99 (us) */
  gint64      fresh[2];    /* handoff to a waiter queued just before: median, p90 */
  gint64      old[2];      /* ... queued 200 ms before */
} Setup;

static int
compare (gconstpointer a,
         gconstpointer b)
{
  gint64 x = *(const gint64 *) a, y = *(const gint64 *) b;

  return x < y ? -1 : x > y;
}

static void
measure (Setup *s,
         guint  n)
{
  g_autofree gint64 *samples = g_new (gint64, n);

  for (guint i = 0; i < n; i++)
    {
      g_autoptr(GError) error = NULL;
      gint64 start = g_get_monotonic_time ();
      g_autoptr(FlLock) lock = fl_lock_acquire (s->uri, NULL, NULL, &error);

      if (lock == NULL || !fl_lock_release (lock, &error))
        g_error ("%s: %s", s->uri, error->message);
      samples[i] = g_get_monotonic_time () - start;
    }
  qsort (samples, n, sizeof *samples, compare);
  s->cycle[0] = samples[n / 2];
  s->cycle[1] = samples[n * 9 / 10];
  s->cycle[2] = samples[n * 99 / 100];
}

/* The waiter, another process (this program run with --take URI): a lock this process holds is
 * refused at once to its other threads (README, "Threads"). It says "waiting" just before it
 * asks, then the CLOCK_MONOTONIC time, shared by all processes, at which the lock was its. */
static int
take (const char *uri)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(FlLock) lock = NULL;

  g_print ("waiting\n");
  fflush (stdout);
  lock = fl_lock_acquire (uri, NULL, NULL, &error);
  if (lock == NULL)
    g_error ("%s: %s", uri, error->message);
  g_print ("%" G_GINT64_FORMAT "\n", g_get_monotonic_time ());
  return fl_lock_release (lock, &error) ? 0 : 1;
}

static char *
read_line (GDataInputStream *out)
{
  g_autoptr(GError) error = NULL;
  char *line = g_data_input_stream_read_line (out, NULL, NULL, &error);

  if (line == NULL)
    g_error ("the waiter said nothing: %s", error != NULL ? error->message : "end of output");
  return line;
}

static const char *self_path;

/* Until the waiter's key is in etcd. The file lock has no queue to look at: its waiter is
 * only measured after 200 ms. */
static void
wait_queued (Setup *s)
{
  const char *name = strstr (s->uri, "/fl-test/") + 1;

  for (;;)
    {
      g_autoptr(GPtrArray) queue = etcd_server_queue (s->server, name);

      if (queue->len == 2)
        return;
    }
}

/* @median_p90 gets the handoff, the waiter having queued @queued_ms before the release. */
static void
handoff (Setup  *s,
         guint   queued_ms,
         guint   n,
         gint64 *median_p90)
{
  g_autofree gint64 *samples = g_new (gint64, n);

  for (guint i = 0; i < n; i++)
    {
      g_autoptr(FlLock) holder = fl_lock_acquire (s->uri, NULL, NULL, NULL);
      g_autoptr(GSubprocess) taker = NULL;
      g_autoptr(GDataInputStream) out = NULL;
      g_autofree char *waiting = NULL;
      g_autofree char *acquired = NULL;
      gint64 released;

      g_assert (holder != NULL);
      taker = g_subprocess_new (G_SUBPROCESS_FLAGS_STDOUT_PIPE, NULL, self_path, "--take",
                                s->uri, NULL);
      if (taker == NULL)
        g_error ("cannot run %s --take", self_path);
      out = g_data_input_stream_new (g_subprocess_get_stdout_pipe (taker));
      waiting = read_line (out);
      if (s->server != NULL)
        wait_queued (s);
      if (queued_ms > 0)
        g_usleep (queued_ms * 1000);  /* the scenario measured, not a synchronisation */
      released = g_get_monotonic_time ();
      fl_lock_release (holder, NULL);
      acquired = read_line (out);
      samples[i] = g_ascii_strtoll (acquired, NULL, 10) - released;
      if (!g_subprocess_wait_check (taker, NULL, NULL))
        g_error ("%s: the waiter failed", s->uri);
    }
  qsort (samples, n, sizeof *samples, compare);
  median_p90[0] = samples[n / 2];
  median_p90[1] = samples[n * 9 / 10];
}

static void
report (Setup *setups,
        guint  n_setups,
        guint  n,
        guint  h)
{
  Setup *file = &setups[0];

  g_print ("acquire+release, uncontended, n=%u (median / p90 / p99, us; ratio of medians)\n", n);
  for (guint i = 0; i < n_setups; i++)
    {
      Setup *s = &setups[i];

      g_print ("  %-30s %7" G_GINT64_FORMAT " %7" G_GINT64_FORMAT " %7" G_GINT64_FORMAT, s->label,
               s->cycle[0], s->cycle[1], s->cycle[2]);
      if (i > 0)
        g_print ("   x%.0f the file lock", (double) s->cycle[0] / MAX (file->cycle[0], 1));
      g_print ("\n");
    }
  g_print ("  (etcd: lease grant + queue put + range ahead + guarded check + guarded delete "
           "+ revoke: 6 calls)\n");

  g_print ("handoff, release -> the waiter's acquire returns, n=%u (median / p90, us)\n", h);
  g_print ("  %-30s %17s %17s\n", "", "queued just before", "queued 200 ms before");
  for (guint i = 0; i < n_setups; i++)
    {
      Setup *s = &setups[i];

      if (s->server != NULL)
        g_print ("  %-30s %8" G_GINT64_FORMAT " %8" G_GINT64_FORMAT, s->label, s->fresh[0],
                 s->fresh[1]);
      else
        g_print ("  %-30s %17s", s->label, "-");
      g_print ("  %8" G_GINT64_FORMAT " %8" G_GINT64_FORMAT, s->old[0], s->old[1]);
      if (i > 0)
        g_print ("   x%.0f / x%.0f the file lock", (double) s->fresh[0] / MAX (file->old[0], 1),
                 (double) s->old[0] / MAX (file->old[0], 1));
      g_print ("\n");
    }
}

int
main (int    argc,
      char **argv)
{
  guint n = argc > 1 ? (guint) atoi (argv[1]) : 200;
  guint h;
  g_autofree char *skip = NULL;
  g_autofree char *dir = NULL;
  EtcdServer *server;
  EtcdCluster *cluster = NULL;
  Setup setups[4] = { { 0 } };
  int leader;

  if (argc == 3 && strcmp (argv[1], "--take") == 0)
    return take (argv[2]);
  self_path = argv[0];
  dir = g_dir_make_tmp ("fl-bench-etcd-XXXXXX", NULL);
  server = etcd_server_start (&skip);

  if (server == NULL)
    {
      g_printerr ("fl-bench-etcd: %s\n", skip);
      return 77;
    }
  cluster = etcd_cluster_start (&skip);
  leader = etcd_cluster_leader (cluster, 10000);
  g_assert (leader >= 0);
  if (n < 10)
    n = 10;
  h = MAX (n / 10, 10);

  setups[0].label = "file lock (baseline)";
  setups[0].uri = g_build_filename (dir, "target", NULL);
  setups[1].label = "etcd, 1 node";
  setups[1].uri = etcd_server_uri (server, "bench");
  setups[1].server = server;
  setups[2].label = "etcd, 3 members, via leader";
  setups[2].uri = etcd_cluster_uri (cluster, leader, "bench");
  setups[2].server = cluster->members[leader];
  setups[3].label = "etcd, 3 members, via follower";
  setups[3].uri = etcd_cluster_uri (cluster, (leader + 1) % ETCD_CLUSTER_SIZE, "bench");
  setups[3].server = cluster->members[(leader + 1) % ETCD_CLUSTER_SIZE];

  for (guint i = 0; i < G_N_ELEMENTS (setups); i++)
    {
      measure (&setups[i], n / 10);  /* warm: connections, the etcd thread */
      measure (&setups[i], n);
      if (setups[i].server != NULL)
        handoff (&setups[i], 0, h, setups[i].fresh);
      handoff (&setups[i], 200, h, setups[i].old);
    }
  report (setups, G_N_ELEMENTS (setups), n, h);

  for (guint i = 0; i < G_N_ELEMENTS (setups); i++)
    g_free (setups[i].uri);
  etcd_cluster_stop (cluster);
  etcd_server_stop (server);
  g_rmdir (dir);
  return 0;
}
