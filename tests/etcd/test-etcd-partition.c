/* test-etcd-partition.c: etcd:// locks through a 3-member cluster whose members are cut from
 * their peers, from the clients, or paused (suite 'etcd', issue 30)
 *
 * The cluster lives in network namespaces this program makes (tests/etcd/etcd-netns.h); one
 * cluster per test, so that a partition never outlives its test. Waiters are child processes
 * (this program with --hold URI) that say on stdout when they hold. Nothing waits by
 * sleeping: each wait is for a condition, with a deadline scaled by FL_TEST_TIME_SCALE.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include <libfl/fl.h>

#include <stdio.h>
#include <string.h>

#include "etcd-netns.h"
#include "etcd-test-util.h"
#include "fl-test-util.h"
#include "model/fl-directory-model-private.h"

static char *skip_reason;   /* set when this process has no network namespace of its own */
static const char *self_path;

#define TTL_S etcd_test_ttl_s (5)

static EtcdNetCluster *
start_cluster (void)
{
  g_autofree char *reason = NULL;
  EtcdNetCluster *net;

  if (skip_reason != NULL)
    {
      g_test_skip (skip_reason);
      return NULL;
    }
  net = etcd_net_cluster_start (&reason);
  if (net == NULL)
    g_test_skip (reason);
  return net;
}

/* A child that holds: acquires @uri (waiting for ever), prints "held TOKEN", holds until its
 * stdin closes, releases. */
static int
hold (const char *uri)
{
  g_autoptr(FlLockOptions) options = etcd_test_options (-1, TTL_S);
  g_autoptr(GError) error = NULL;
  g_autoptr(FlLock) lock = fl_lock_acquire (uri, options, NULL, &error);
  char buf[16];

  if (lock == NULL)
    g_error ("hold: %s", error->message);
  printf ("held %" G_GUINT64_FORMAT "\n", fl_lock_get_fencing_token (lock));
  fflush (stdout);
  while (fread (buf, 1, sizeof buf, stdin) > 0)
    ;
  if (!fl_lock_release (lock, &error))
    g_error ("hold: release: %s", error->message);
  return 0;
}

typedef struct
{
  GSubprocess      *process;
  GDataInputStream *out;
  char             *line;   /* the first line it printed, once read */
  gboolean          ended;  /* its stdout closed without a line */
} Child;

static void
line_cb (GObject      *source,
         GAsyncResult *result,
         gpointer      data)
{
  Child *child = data;

  child->line = g_data_input_stream_read_line_finish (G_DATA_INPUT_STREAM (source), result,
                                                      NULL, NULL);
  child->ended = child->line == NULL;
}

static Child *
spawn_holder (const char *uri)
{
  Child *child = g_new0 (Child, 1);
  g_autoptr(GError) error = NULL;

  child->process = g_subprocess_new (G_SUBPROCESS_FLAGS_STDIN_PIPE |
                                     G_SUBPROCESS_FLAGS_STDOUT_PIPE, &error,
                                     self_path, "--hold", uri, NULL);
  g_assert_no_error (error);
  child->out = g_data_input_stream_new (g_subprocess_get_stdout_pipe (child->process));
  g_data_input_stream_read_line_async (child->out, G_PRIORITY_DEFAULT, NULL, line_cb, child);
  return child;
}

static gboolean
child_spoke (gpointer data)
{
  Child *child = data;

  return child->line != NULL || child->ended;
}

/* Its stdin closed: it releases and must exit 0. */
static void
child_finish (Child *child)
{
  g_autoptr(GError) error = NULL;

  g_output_stream_close (g_subprocess_get_stdin_pipe (child->process), NULL, NULL);
  g_assert_true (etcd_wait_for (child_spoke, child, (guint) fl_test_scaled_ms (30000)));
  g_assert_true (g_subprocess_wait_check (child->process, NULL, &error));
  g_assert_no_error (error);
  g_object_unref (child->out);
  g_object_unref (child->process);
  g_free (child->line);
  g_free (child);
}

typedef struct
{
  EtcdServer *member;
  const char *name;
  guint       length;
} QueueWait;

static gboolean
queue_has_length (gpointer data)
{
  QueueWait *q = data;
  g_autoptr(GPtrArray) queue = etcd_server_queue (q->member, q->name);

  return queue->len == q->length;
}

static gboolean
wait_queue (EtcdServer *member,
            const char *name,
            guint       length)
{
  QueueWait q = { member, name, length };

  return etcd_wait_for (queue_has_length, &q, (guint) fl_test_scaled_ms (20000));
}

/* Issue 30, item 1: the waiter (timeout infinite, m0 first) watches through m0; m0 is cut
 * from its peers while clients still reach it; the holder releases through m1. The waiter
 * must hold within a bound, not when the partition heals. Before the fix it waited until the
 * heal: its watch on m0 stayed open and silent, and nothing looked at the queue again. */
static void
test_waiter_behind_cut_member (void)
{
  g_autoptr(EtcdNetCluster) net = start_cluster ();
  EtcdCluster *cluster;
  g_autofree char *via_m0 = NULL;
  g_autofree char *via_m1 = NULL;
  g_autoptr(FlLockOptions) options = etcd_test_options (fl_test_scaled_ms (10000), TTL_S);
  g_autoptr(FlLock) holder = NULL;
  g_autoptr(GError) error = NULL;
  Child *waiter;
  gint64 released;

  if (net == NULL)
    return;
  cluster = etcd_net_cluster (net);
  via_m0 = etcd_cluster_uri (cluster, 0, "cut-waiter");
  via_m1 = etcd_cluster_uri (cluster, 1, "cut-waiter");
  holder = fl_lock_acquire (via_m1, options, NULL, &error);
  g_assert_no_error (error);

  waiter = spawn_holder (via_m0);
  g_assert_true (wait_queue (cluster->members[1], "fl-test/cut-waiter", 2));
  g_assert_false (child_spoke (waiter));

  etcd_net_cut_from_peers (net, 0, TRUE);
  g_assert_true (fl_lock_release (holder, &error));
  g_assert_no_error (error);
  released = g_get_monotonic_time ();

  /* m0 loses its leader after an election timeout (1 s), etcd ends the watches that
   * require one 3 election timeouts later; the queue is then read through a member with a
   * leader. 20 s is far beyond that and far below "never". */
  g_assert_true (etcd_wait_for (child_spoke, waiter, (guint) fl_test_scaled_ms (20000)));
  g_assert_nonnull (waiter->line);
  g_assert_true (g_str_has_prefix (waiter->line, "held "));
  g_test_message ("the waiter behind the cut member held %.1f s after the release",
                  (g_get_monotonic_time () - released) / 1e6);

  etcd_net_cut_from_peers (net, 0, FALSE);
  child_finish (waiter);
}

static double
seconds_since (gint64 start)
{
  return (g_get_monotonic_time () - start) / 1e6;
}

/* Issue 30, item 2: a first endpoint that accepts and never answers (m0 paused: the kernel
 * still completes its connections) is passed over by every call, within the caller's
 * deadline: acquire, try_acquire, status, list, and a waiter that waits for ever. Before,
 * each of them waited on m0 until its deadline, and the waiter for ever.
 *
 * The first call pays m0's 1 s and then needs a healthy member's answer: it is an acquire with
 * a deadline scaled like every test deadline, not try_acquire, whose 3 s is the library's own
 * (under ASan on a busy machine a lease grant took longer than the second second: the CI's
 * ASan stage failed so once). try_acquire is then asked past the black hole too, starting at
 * the member that answered, as every new client of the process does. */
static void
test_black_hole_first_endpoint (void)
{
  g_autoptr(EtcdNetCluster) net = start_cluster ();
  EtcdCluster *cluster;
  g_autofree char *via_m0 = NULL;
  g_autofree char *via_m1 = NULL;
  g_autofree char *prefix = NULL;
  g_autoptr(FlLockOptions) options = etcd_test_options (fl_test_scaled_ms (10000), TTL_S);
  g_autoptr(FlLock) lock = NULL;
  g_autoptr(FlLock) holder = NULL;
  g_autoptr(FlSnapshot) snapshot = NULL;
  g_autoptr(GPtrArray) listed = NULL;
  g_autoptr(GError) error = NULL;
  Child *waiter;
  gint64 start;

  if (net == NULL)
    return;
  cluster = etcd_net_cluster (net);
  via_m0 = etcd_cluster_uri (cluster, 0, "black-hole");
  via_m1 = etcd_cluster_uri (cluster, 1, "black-hole");
  prefix = g_strdup_printf ("etcd://%s,%s,%s/fl-test", cluster->members[0]->hostport,
                            cluster->members[1]->hostport, cluster->members[2]->hostport);
  etcd_server_pause (cluster->members[0], TRUE);

  start = g_get_monotonic_time ();
  lock = fl_lock_acquire (via_m0, options, NULL, &error);
  g_assert_no_error (error);
  g_test_message ("acquire past the black hole: %.1f s", seconds_since (start));
  g_assert_true (fl_lock_release (lock, &error));
  g_assert_no_error (error);
  g_clear_object (&lock);

  /* A new client of this process starts at the member that answered last, not at m0. */
  start = g_get_monotonic_time ();
  lock = fl_lock_try_acquire (via_m0, options, &error);
  g_assert_no_error (error);
  g_test_message ("try_acquire past the black hole: %.1f s", seconds_since (start));
  g_assert_cmpfloat (seconds_since (start), <, fl_test_scaled_ms (900) / 1000.0);

  snapshot = fl_snapshot_new_for_target (via_m0, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpint (fl_snapshot_get_state (snapshot), ==, FL_ENTRY_STATE_HELD);
  listed = fl_scan_directory (prefix, FL_SCAN_NONE, NULL, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (listed->len, ==, 1);
  g_assert_true (fl_lock_release (lock, &error));
  g_assert_no_error (error);

  /* A waiter for ever, in a process of its own (a new client starts at m0 again). */
  holder = fl_lock_acquire (via_m1, options, NULL, &error);
  g_assert_no_error (error);
  waiter = spawn_holder (via_m0);
  g_assert_true (wait_queue (cluster->members[1], "fl-test/black-hole", 2));
  g_assert_true (fl_lock_release (holder, &error));
  g_assert_no_error (error);
  start = g_get_monotonic_time ();
  g_assert_true (etcd_wait_for (child_spoke, waiter, (guint) fl_test_scaled_ms (20000)));
  g_assert_nonnull (waiter->line);
  g_test_message ("the waiter past the black hole held %.1f s after the release",
                  seconds_since (start));
  child_finish (waiter);
  etcd_server_pause (cluster->members[0], FALSE);
}

/* Issue 30, item 3: status and list through a member cut from its peers ask a member with a
 * leader, and say the lock is held, without a caveat; with every member cut from the others
 * (no quorum anywhere) the read of the member's own copy says so, "not locked" included. */
static void
test_status_through_cut_member (void)
{
  g_autoptr(EtcdNetCluster) net = start_cluster ();
  EtcdCluster *cluster;
  g_autofree char *via_m0 = NULL;
  g_autofree char *via_m1 = NULL;
  g_autofree char *free_via_m0 = NULL;
  /* The holder's lease outlives every wait below (up to 70 s x FL_TEST_TIME_SCALE without a
   * quorum, in which no keepalive is answered): its release at the end is a check too. */
  g_autoptr(FlLockOptions) options = etcd_test_options (fl_test_scaled_ms (10000), etcd_test_ttl_s (90));
  g_autoptr(FlLock) holder = NULL;
  g_autoptr(FlSnapshot) snapshot = NULL;
  g_autoptr(FlSnapshot) stale = NULL;
  g_autoptr(FlSnapshot) none = NULL;
  g_autoptr(GError) error = NULL;
  gint64 start;

  if (net == NULL)
    return;
  cluster = etcd_net_cluster (net);
  via_m0 = etcd_cluster_uri (cluster, 0, "status-cut");
  via_m1 = etcd_cluster_uri (cluster, 1, "status-cut");
  free_via_m0 = etcd_cluster_uri (cluster, 0, "never-locked");
  holder = fl_lock_acquire (via_m1, options, NULL, &error);
  g_assert_no_error (error);

  etcd_net_cut_from_peers (net, 0, TRUE);
  g_assert_true (etcd_net_wait_leader (net, 0, FALSE, (guint) fl_test_scaled_ms (20000)));
  start = g_get_monotonic_time ();
  snapshot = fl_snapshot_new_for_target (via_m0, NULL, &error);
  g_assert_no_error (error);
  g_test_message ("status through the cut member: %.1f s: %s", seconds_since (start),
                  fl_snapshot_get_reason (snapshot));
  g_assert_cmpint (fl_snapshot_get_state (snapshot), ==, FL_ENTRY_STATE_HELD);
  g_assert_null (strstr (fl_snapshot_get_reason (snapshot), "without a quorum"));
  /* Not after etcd's own 7 s wait on the cut member: it says "no leader" at once. */
  g_assert_cmpfloat (seconds_since (start), <, fl_test_scaled_ms (5000) / 1000.0);

  /* No quorum anywhere: each member reads its own copy, and says so. */
  etcd_net_cut_from_peers (net, 1, TRUE);
  etcd_net_cut_from_peers (net, 2, TRUE);
  g_assert_true (etcd_net_wait_leader (net, 1, FALSE, (guint) fl_test_scaled_ms (20000)));
  g_assert_true (etcd_net_wait_leader (net, 2, FALSE, (guint) fl_test_scaled_ms (20000)));
  stale = fl_snapshot_new_for_target (via_m0, NULL, &error);
  g_assert_no_error (error);
  g_assert_nonnull (strstr (fl_snapshot_get_reason (stale), "without a quorum"));
  none = fl_snapshot_new_for_target (free_via_m0, NULL, &error);
  g_assert_null (none);
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_NOT_FOUND);
  g_test_message ("an unlocked name without a quorum: %s", error->message);
  g_assert_nonnull (strstr (error->message, "without a quorum"));
  g_clear_error (&error);

  for (guint i = 0; i < ETCD_CLUSTER_SIZE; i++)
    etcd_net_cut_from_peers (net, i, FALSE);
  g_assert_true (etcd_net_wait_leader (net, 1, TRUE, (guint) fl_test_scaled_ms (30000)));
  g_assert_true (fl_lock_release (holder, &error));
  g_assert_no_error (error);
}

static void
test_watch_through_cut_member (void)
{
  g_autoptr(EtcdNetCluster) net = start_cluster ();
  g_autoptr(FlDirectoryModel) model = NULL;
  g_autoptr(FlLockOptions) options = etcd_test_options (fl_test_scaled_ms (10000), etcd_test_ttl_s (10));
  g_autoptr(FlLock) lock = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *root = NULL;
  g_autofree char *target = NULL;
  g_autofree char *via_m1 = NULL;
  EtcdCluster *cluster;

  if (net == NULL)
    return;
  cluster = etcd_net_cluster (net);
  root = g_strdup_printf ("etcd://%s,%s,%s/fl-watch", cluster->members[0]->hostport,
                          cluster->members[1]->hostport, cluster->members[2]->hostport);
  target = g_strdup_printf ("%s/while-cut", root);
  via_m1 = g_strdup_printf ("etcd://%s/fl-watch/while-cut", cluster->members[1]->hostport);
  model = fl_directory_model_new (NULL);
  _fl_directory_model_set_periodic (model, FALSE);
  g_assert_true (fl_directory_model_add_directory (model, root, FALSE, &error));
  g_assert_no_error (error);

  etcd_net_cut_from_peers (net, 0, TRUE);
  lock = fl_lock_acquire (via_m1, options, NULL, &error);
  g_assert_no_error (error);
  g_assert_true (etcd_test_wait_in_model (model, target, TRUE, (guint) fl_test_scaled_ms (20000)));
  g_assert_true (fl_lock_release (lock, &error));
  g_assert_no_error (error);
  g_assert_true (etcd_test_wait_in_model (model, target, FALSE, (guint) fl_test_scaled_ms (20000)));
  etcd_net_cut_from_peers (net, 0, FALSE);
}

/* Member @target made the leader (etcd's transfer-leadership, asked of the current leader). */
static void
make_leader (EtcdCluster *cluster,
             guint        target)
{
  int leader = etcd_cluster_leader (cluster, fl_test_scaled_ms (30000));
  g_autoptr(JsonObject) status = NULL;
  g_autoptr(JsonObject) moved = NULL;
  g_autofree char *body = NULL;

  g_assert_cmpint (leader, >=, 0);
  if ((guint) leader == target)
    return;
  status = etcd_server_call (cluster->members[target], "/v3/maintenance/status", "{}");
  body = g_strdup_printf ("{\"targetID\":\"%s\"}",
                          json_object_get_string_member (
                            json_object_get_object_member (status, "header"), "member_id"));
  moved = etcd_server_call (cluster->members[leader], "/v3/maintenance/transfer-leadership",
                            body);
  g_assert_cmpint (etcd_cluster_leader (cluster, fl_test_scaled_ms (30000)), ==, (int) target);
}

/* The black hole is the leader: the others answer "no leader" until they have elected
 * another, while the paused one answers nothing. The acquire must ride out the election
 * within its deadline. Once, in a fresh-clone CI, black-hole-first-endpoint's m0 happened to
 * lead: m1 said "no leader", m2 was slow (still forwarding to m0), and the second pass gave
 * the paused m0 the caller's whole deadline (fl-etcd-client.c, call_round(): now the round is
 * asked again instead). That interleaving cannot be forced from here: this case passes on the
 * code before too, and guards the election path past a paused leader. */
static void
test_black_hole_leader (void)
{
  g_autoptr(EtcdNetCluster) net = start_cluster ();
  EtcdCluster *cluster;
  g_autofree char *via_m0 = NULL;
  g_autoptr(FlLockOptions) options = etcd_test_options (fl_test_scaled_ms (10000), TTL_S);
  g_autoptr(FlLock) lock = NULL;
  g_autoptr(GError) error = NULL;
  gint64 start;

  if (net == NULL)
    return;
  cluster = etcd_net_cluster (net);
  make_leader (cluster, 0);
  via_m0 = etcd_cluster_uri (cluster, 0, "black-hole-leader");
  etcd_server_pause (cluster->members[0], TRUE);

  start = g_get_monotonic_time ();
  lock = fl_lock_acquire (via_m0, options, NULL, &error);
  g_assert_no_error (error);
  g_test_message ("acquire past the paused leader: %.1f s", seconds_since (start));
  g_assert_true (fl_lock_release (lock, &error));
  g_assert_no_error (error);
  etcd_server_pause (cluster->members[0], FALSE);
}

int
main (int argc, char **argv)
{
  if (argc == 3 && strcmp (argv[1], "--hold") == 0)
    return hold (argv[2]);

  /* Before any thread: a namespace is entered by the whole process only while it has one. */
  etcd_netns_enter (&skip_reason);
  g_test_init (&argc, &argv, NULL);
  self_path = argv[0];

  g_test_add_func ("/etcd/partition/waiter-behind-cut-member", test_waiter_behind_cut_member);
  g_test_add_func ("/etcd/partition/black-hole-first-endpoint",
                   test_black_hole_first_endpoint);
  g_test_add_func ("/etcd/partition/black-hole-leader", test_black_hole_leader);
  g_test_add_func ("/etcd/partition/status-through-cut-member",
                   test_status_through_cut_member);
  g_test_add_func ("/etcd/partition/watch-through-cut-member", test_watch_through_cut_member);

  return g_test_run ();
}
