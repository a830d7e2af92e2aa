/* bench-etcd.c: etcd:// locks (1 node, 3 members) against the file lock, in one run
 *
 * Starts a single-node etcd and a 3-member cluster (harness/etcd-server.c: free
 * loopback ports, data under /dev/shm when there), then times, on each setup:
 * - N uncontended fl_lock_acquire() + fl_lock_release();
 * - handoff: from the holder's release until a waiter's acquire returns, the waiter having
 *   queued just before the release or 200 ms before it.
 * and the same two on each etcd setup with etcd's own lock (bench-etcd-v3lock.c: what
 * `etcdctl lock` does, through the v3lock service). It prints medians, p90, p99, each etcd
 * figure over the file lock's and libfl's etcd lock over etcd's own on the same members, all
 * measured in the same run (the baselines). Run: build-bench/bench/fl-bench-etcd [N]
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

#include "bench-etcd-v3lock.h"
#include "etcd-server.h"

typedef struct
{
  gint64 cycle[3];    /* acquire+release: median, p90, p99 (us) */
  gint64 fresh[2];    /* handoff to a waiter queued just before: median, p90 */
  gint64 old[2];      /* ... queued 200 ms before */
} Figures;

typedef struct
{
  const char *label;
  char       *uri;
  EtcdServer *server;  /* where to see the queue; NULL for the file lock */
  Figures     libfl;
  Figures     own;     /* etcd's own lock on the same member (not for the file lock) */
} Setup;

/* Which lock a measurement takes: libfl's at the setup's URI, or etcd's own on its member. */
typedef enum
{
  LIBFL,
  ETCD_OWN,
} Kind;

#define OWN_NAME "fl-test/bench-v3lock"

typedef struct
{
  FlLock *lock;
  V3Lock *own;
} Held;

static void
hold (Setup *s,
      Kind   kind,
      Held  *held)
{
  g_autoptr(GError) error = NULL;

  if (kind == LIBFL)
    held->lock = fl_lock_acquire (s->uri, NULL, NULL, &error);
  else if (!v3lock_acquire (held->own, OWN_NAME, &error))
    g_clear_pointer (&held->own, v3lock_free);
  if (error != NULL)
    g_error ("%s: %s", s->uri, error->message);
}

static void
let_go (Setup *s,
        Held  *held)
{
  g_autoptr(GError) error = NULL;

  if (held->lock != NULL && !fl_lock_release (held->lock, &error))
    g_error ("%s: %s", s->uri, error->message);
  g_clear_object (&held->lock);
  if (held->own != NULL && !v3lock_release (held->own, &error))
    g_error ("%s (etcd's own lock): %s", s->uri, error->message);
}

static int
compare (gconstpointer a,
         gconstpointer b)
{
  gint64 x = *(const gint64 *) a, y = *(const gint64 *) b;

  return x < y ? -1 : x > y;
}

static void
measure (Setup    *s,
         Kind      kind,
         guint     n,
         Figures  *figures)
{
  g_autofree gint64 *samples = g_new (gint64, n);
  Held held = { NULL, kind == ETCD_OWN ? v3lock_new (s->server->endpoint) : NULL };

  for (guint i = 0; i < n; i++)
    {
      gint64 start = g_get_monotonic_time ();

      hold (s, kind, &held);
      let_go (s, &held);
      samples[i] = g_get_monotonic_time () - start;
    }
  v3lock_free (held.own);
  qsort (samples, n, sizeof *samples, compare);
  figures->cycle[0] = samples[n / 2];
  figures->cycle[1] = samples[n * 9 / 10];
  figures->cycle[2] = samples[n * 99 / 100];
}

/* The waiter, another process (this program run with --take URI, or --take-own ENDPOINT for
 * etcd's own lock): a lock this process holds is refused at once to its other threads
 * (README, "Threads"). It says "waiting" just before it asks, then the CLOCK_MONOTONIC time,
 * shared by all processes, at which the lock was its. */
static int
take (const char *how,
      const char *where)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(FlLock) lock = NULL;
  g_autoptr(V3Lock) own = NULL;
  gboolean ok;

  if (strcmp (how, "--take-own") == 0)
    own = v3lock_new (where);
  g_print ("waiting\n");
  fflush (stdout);
  ok = own != NULL ? v3lock_acquire (own, OWN_NAME, &error)
                   : (lock = fl_lock_acquire (where, NULL, NULL, &error)) != NULL;
  if (!ok)
    g_error ("%s: %s", where, error->message);
  g_print ("%" G_GINT64_FORMAT "\n", g_get_monotonic_time ());
  return (own != NULL ? v3lock_release (own, &error) : fl_lock_release (lock, &error)) ? 0 : 1;
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
wait_queued (Setup *s,
             Kind   kind)
{
  const char *name = kind == ETCD_OWN ? OWN_NAME : strstr (s->uri, "/fl-test/") + 1;

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
         Kind    kind,
         guint   queued_ms,
         guint   n,
         gint64 *median_p90)
{
  g_autofree gint64 *samples = g_new (gint64, n);
  Held held = { NULL, kind == ETCD_OWN ? v3lock_new (s->server->endpoint) : NULL };

  for (guint i = 0; i < n; i++)
    {
      g_autoptr(GSubprocess) taker = NULL;
      g_autoptr(GDataInputStream) out = NULL;
      g_autofree char *waiting = NULL;
      g_autofree char *acquired = NULL;
      gint64 released;

      hold (s, kind, &held);
      taker = g_subprocess_new (G_SUBPROCESS_FLAGS_STDOUT_PIPE, NULL, self_path,
                                kind == ETCD_OWN ? "--take-own" : "--take",
                                kind == ETCD_OWN ? s->server->endpoint : s->uri, NULL);
      if (taker == NULL)
        g_error ("cannot run %s --take", self_path);
      out = g_data_input_stream_new (g_subprocess_get_stdout_pipe (taker));
      waiting = read_line (out);
      if (s->server != NULL)
        wait_queued (s, kind);
      if (queued_ms > 0)
        g_usleep (queued_ms * 1000);  /* the scenario measured, not a synchronisation */
      released = g_get_monotonic_time ();
      let_go (s, &held);
      acquired = read_line (out);
      samples[i] = g_ascii_strtoll (acquired, NULL, 10) - released;
      if (!g_subprocess_wait_check (taker, NULL, NULL))
        g_error ("%s: the waiter failed", s->uri);
    }
  v3lock_free (held.own);
  qsort (samples, n, sizeof *samples, compare);
  median_p90[0] = samples[n / 2];
  median_p90[1] = samples[n * 9 / 10];
}

/* One row: @f's figures, with the ratio of medians over @base's (none for NULL). */
static void
report_cycle (const char    *label,
              const Figures *f,
              const Figures *base,
              const char    *base_name)
{
  g_print ("  %-44s %7" G_GINT64_FORMAT " %7" G_GINT64_FORMAT " %7" G_GINT64_FORMAT, label,
           f->cycle[0], f->cycle[1], f->cycle[2]);
  if (base != NULL)
    g_print ("   x%.2f %s", (double) f->cycle[0] / MAX (base->cycle[0], 1), base_name);
  g_print ("\n");
}

static void
report_handoff (const char    *label,
                const Figures *f,
                gboolean       queued,
                const Figures *base,
                const char    *base_name)
{
  if (queued)
    g_print ("  %-44s %8" G_GINT64_FORMAT " %8" G_GINT64_FORMAT, label, f->fresh[0], f->fresh[1]);
  else
    g_print ("  %-44s %17s", label, "-");
  g_print ("  %8" G_GINT64_FORMAT " %8" G_GINT64_FORMAT, f->old[0], f->old[1]);
  if (base != NULL)
    g_print ("   x%.2f / x%.2f %s", (double) f->fresh[0] / MAX (base->fresh[0], 1),
             (double) f->old[0] / MAX (base->old[0], 1), base_name);
  g_print ("\n");
}

static void
report (Setup *setups,
        guint  n_setups,
        guint  n,
        guint  h)
{
  const Figures *file = &setups[0].libfl;

  g_print ("acquire+release, uncontended, n=%u (median / p90 / p99, us; ratio of medians)\n", n);
  for (guint i = 0; i < n_setups; i++)
    {
      Setup *s = &setups[i];
      g_autofree char *own = g_strdup_printf ("  etcd's own lock, %s", s->label + 6);

      report_cycle (s->label, &s->libfl, i > 0 ? file : NULL, "the file lock");
      if (s->server != NULL)
        {
          report_cycle (own, &s->own, file, "the file lock");
          g_print ("  %-44s %23s   x%.2f etcd's own lock\n", "  libfl over etcd's own", "",
                   (double) s->libfl.cycle[0] / MAX (s->own.cycle[0], 1));
        }
    }
  g_print ("  (libfl on etcd: lease grant + queue put + range ahead + guarded check + guarded "
           "delete + revoke: 6 calls;\n   etcd's own lock, as etcdctl lock: lease grant + "
           "lock + unlock + revoke: 4 calls)\n");

  g_print ("handoff, release -> the waiter's acquire returns, n=%u (median / p90, us)\n", h);
  g_print ("  %-44s %17s %17s\n", "", "queued just before", "queued 200 ms before");
  for (guint i = 0; i < n_setups; i++)
    {
      Setup *s = &setups[i];
      g_autofree char *own = g_strdup_printf ("  etcd's own lock, %s", s->label + 6);

      report_handoff (s->label, &s->libfl, s->server != NULL, NULL, NULL);
      if (s->server != NULL)
        {
          report_handoff (own, &s->own, TRUE, NULL, NULL);
          g_print ("  %-44s   x%.2f / x%.2f etcd's own lock\n", "  libfl over etcd's own",
                   (double) s->libfl.fresh[0] / MAX (s->own.fresh[0], 1),
                   (double) s->libfl.old[0] / MAX (s->own.old[0], 1));
        }
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

  if (argc == 3 && g_str_has_prefix (argv[1], "--take"))
    return take (argv[1], argv[2]);
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
      Setup *s = &setups[i];

      /* libfl's lock and etcd's own, turn about, so that neither gets a quieter machine. */
      for (Kind kind = LIBFL; kind <= (s->server != NULL ? ETCD_OWN : LIBFL); kind++)
        {
          Figures *f = kind == LIBFL ? &s->libfl : &s->own;

          measure (s, kind, n / 10, f);  /* warm: connections, the etcd thread */
          measure (s, kind, n, f);
          if (s->server != NULL)
            handoff (s, kind, 0, h, f->fresh);
          handoff (s, kind, 200, h, f->old);
        }
    }
  report (setups, G_N_ELEMENTS (setups), n, h);

  for (guint i = 0; i < G_N_ELEMENTS (setups); i++)
    g_free (setups[i].uri);
  etcd_cluster_stop (cluster);
  etcd_server_stop (server);
  g_rmdir (dir);
  return 0;
}
