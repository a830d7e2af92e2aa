/* etcd-netns.c: a 3-member etcd cluster, a network namespace per member, links to cut
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "etcd-netns.h"

#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <string.h>
#include <sys/prctl.h>
#include <unistd.h>

#include "etcd/fl-etcd-private.h"
#include "fl-test-dir.h"

struct _EtcdNetCluster
{
  EtcdCluster  cluster;
  /* Each member's namespace is held by a process that only sleeps (killed with us), so that
   * a member killed and restarted finds its namespace and links again. */
  GSubprocess *holders[ETCD_CLUSTER_SIZE];
  char        *ns_paths[ETCD_CLUSTER_SIZE];  /* /proc/PID/ns/net of the holder */
};

gboolean
etcd_netns_enter (char **skip_reason)
{
  g_autofree char *ip = g_find_program_in_path ("ip");
  int status = 0;
  g_autoptr(GError) error = NULL;

  if (ip == NULL)
    {
      *skip_reason = g_strdup ("no `ip` in PATH to make the test's network: install iproute2 "
                               "(build-aux/install-deps)");
      return FALSE;
    }
  if (unshare (CLONE_NEWNET) != 0)
    {
      *skip_reason = g_strdup_printf ("cannot make a network namespace (%s): the partition "
                                      "tests need root (CAP_SYS_ADMIN and CAP_NET_ADMIN), "
                                      "outside a container that forbids namespaces",
                                      g_strerror (errno));
      return FALSE;
    }
  if (!g_spawn_sync (NULL, (char *[]) { ip, "link", "set", "lo", "up", NULL }, NULL,
                     G_SPAWN_DEFAULT, NULL, NULL, NULL, NULL, &status, &error) ||
      !g_spawn_check_wait_status (status, &error))
    {
      *skip_reason = g_strdup_printf ("cannot bring up lo in the test's network namespace: %s",
                                      error->message);
      return FALSE;
    }
  return TRUE;
}

/* In the child between fork and exec: what the child of a test does (die with it), and
 * entering the namespace at @data (a /proc/PID/ns/net path), or making a new one (NULL). */
static void
enter_namespace (gpointer data)
{
  const char *ns_path = data;
  int fd;

  prctl (PR_SET_PDEATHSIG, SIGKILL);
  if (ns_path == NULL)
    {
      if (unshare (CLONE_NEWNET) != 0)
        _exit (125);
      return;
    }
  fd = open (ns_path, O_RDONLY | O_CLOEXEC);
  if (fd < 0 || setns (fd, CLONE_NEWNET) != 0)
    _exit (125);
  close (fd);
}

/* `ip ARGS` in the namespace at @ns_path (NULL: the test's); a failure fails the test, with
 * what ip said. */
static void
ip_run (const char *ns_path,
        const char *format,
        ...) G_GNUC_PRINTF (2, 3);

static void
ip_run (const char *ns_path,
        const char *format,
        ...)
{
  g_autofree char *ip = g_find_program_in_path ("ip");
  g_autofree char *args = NULL;
  g_autofree char *command = NULL;
  g_autofree char *err = NULL;
  g_auto(GStrv) argv = NULL;
  g_autoptr(GError) error = NULL;
  int status = 0;
  va_list ap;

  va_start (ap, format);
  args = g_strdup_vprintf (format, ap);
  va_end (ap);
  command = g_strconcat (ip, " ", args, NULL);
  g_assert_true (g_shell_parse_argv (command, NULL, &argv, NULL));
  /* NULL: no child setup at all, since enter_namespace (NULL) would make a new namespace */
  if (!g_spawn_sync (NULL, argv, NULL, G_SPAWN_DEFAULT,
                     ns_path != NULL ? enter_namespace : NULL, (gpointer) ns_path,
                     NULL, &err, &status, &error) ||
      !g_spawn_check_wait_status (status, &error))
    g_error ("ip %s (in %s): %s %s", args, ns_path != NULL ? ns_path : "the test's namespace",
             error->message, err != NULL ? err : "");
}

static GSubprocess *
spawn_holder (void)
{
  g_autoptr(GSubprocessLauncher) launcher =
    g_subprocess_launcher_new (G_SUBPROCESS_FLAGS_STDIN_PIPE);
  g_autoptr(GError) error = NULL;
  GSubprocess *holder;

  g_subprocess_launcher_set_child_setup (launcher, enter_namespace, NULL, NULL);
  holder = g_subprocess_launcher_spawn (launcher, &error, "sleep", "infinity", NULL);
  g_assert_no_error (error);
  return holder;
}

/* Member @i's namespace: its two ends of the links, lo for its metrics. */
static void
wire_member (EtcdNetCluster *net,
             guint           i)
{
  const char *ns = net->ns_paths[i];
  const char *pid = g_subprocess_get_identifier (net->holders[i]);

  ip_run (NULL, "link add fl-c%u type veth peer name eth-c netns %s", i, pid);
  ip_run (NULL, "link set fl-c%u master fl-clients up", i);
  ip_run (NULL, "link add fl-p%u type veth peer name eth-p netns %s", i, pid);
  ip_run (NULL, "link set fl-p%u master fl-peers up", i);
  ip_run (ns, "link set lo up");
  ip_run (ns, "addr add 10.77.1.%u/24 dev eth-c", i + 1);
  ip_run (ns, "link set eth-c up");
  ip_run (ns, "addr add 10.77.2.%u/24 dev eth-p", i + 1);
  ip_run (ns, "link set eth-p up");
}

static EtcdServer *
member_new (guint i)
{
  g_autofree char *name = g_strdup_printf ("m%u", i);
  EtcdServer *server = etcd_server_new_unstarted (name);

  server->client_port = 2379;
  server->hostport = g_strdup_printf ("10.77.1.%u:2379", i + 1);
  server->endpoint = g_strdup_printf ("http://%s", server->hostport);
  server->peer_url = g_strdup_printf ("http://10.77.2.%u:2380", i + 1);
  server->metrics_url = g_strdup ("http://127.0.0.1:2381");
  return server;
}

static void
member_spawn (EtcdNetCluster *net,
              guint           i)
{
  etcd_server_spawn_with (net->cluster.members[i], enter_namespace, net->ns_paths[i]);
}

EtcdNetCluster *
etcd_net_cluster_start (char **skip_reason)
{
  g_autofree char *binary = g_find_program_in_path ("etcd");
  g_autoptr(GString) initial = g_string_new (NULL);
  EtcdNetCluster *net;

  if (binary == NULL)
    {
      *skip_reason = g_strdup ("no etcd binary in PATH: install Debian's etcd-server "
                               "(build-aux/install-deps)");
      return NULL;
    }
  net = g_new0 (EtcdNetCluster, 1);
  ip_run (NULL, "link add fl-clients type bridge");
  ip_run (NULL, "link set fl-clients up");
  ip_run (NULL, "addr add 10.77.1.254/24 dev fl-clients");
  ip_run (NULL, "link add fl-peers type bridge");
  ip_run (NULL, "link set fl-peers up");
  for (guint i = 0; i < ETCD_CLUSTER_SIZE; i++)
    {
      net->holders[i] = spawn_holder ();
      net->ns_paths[i] = g_strdup_printf ("/proc/%s/ns/net",
                                          g_subprocess_get_identifier (net->holders[i]));
      wire_member (net, i);
      net->cluster.members[i] = member_new (i);
      g_string_append_printf (initial, "%s%s=%s", i > 0 ? "," : "",
                              net->cluster.members[i]->name,
                              net->cluster.members[i]->peer_url);
    }
  for (guint i = 0; i < ETCD_CLUSTER_SIZE; i++)
    {
      net->cluster.members[i]->initial_cluster = g_strdup (initial->str);
      member_spawn (net, i);
    }
  if (etcd_cluster_leader (&net->cluster, (guint) fl_test_scaled_ms (30000)) < 0)
    g_error ("the etcd members in their namespaces agreed on no leader within 30 s (logs: "
             "%s/etcd.log and the others)", net->cluster.members[0]->data_dir);
  return net;
}

void
etcd_net_cluster_stop (EtcdNetCluster *net)
{
  if (net == NULL)
    return;
  for (guint i = 0; i < ETCD_CLUSTER_SIZE; i++)
    {
      etcd_server_stop (net->cluster.members[i]);
      /* Deleted here, both ends at once: the kernel tears a namespace down later, in the
       * background, and the next test's links have the same names. */
      ip_run (NULL, "link del fl-c%u", i);
      ip_run (NULL, "link del fl-p%u", i);
      g_subprocess_force_exit (net->holders[i]);
      g_subprocess_wait (net->holders[i], NULL, NULL);
      g_object_unref (net->holders[i]);
      g_free (net->ns_paths[i]);
    }
  ip_run (NULL, "link del fl-clients");
  ip_run (NULL, "link del fl-peers");
  g_free (net);
}

EtcdCluster *
etcd_net_cluster (EtcdNetCluster *net)
{
  return &net->cluster;
}

void
etcd_net_cut_from_peers (EtcdNetCluster *net,
                         guint           i,
                         gboolean        cut)
{
  ip_run (NULL, "link set fl-p%u %s", i, cut ? "down" : "up");
}

void
etcd_net_cut_from_clients (EtcdNetCluster *net,
                           guint           i,
                           gboolean        cut)
{
  ip_run (NULL, "link set fl-c%u %s", i, cut ? "down" : "up");
}

void
etcd_net_restart (EtcdNetCluster *net,
                  guint           i)
{
  member_spawn (net, i);
}

gboolean
etcd_net_has_leader (EtcdNetCluster *net,
                     guint           i)
{
  g_autoptr(JsonObject) status = etcd_server_try_call (net->cluster.members[i],
                                                       "/v3/maintenance/status", "{}", 1,
                                                       NULL);

  /* proto3 leaves a leader of 0 (none) out */
  return status != NULL && json_object_has_member (status, "leader");
}

typedef struct
{
  EtcdNetCluster *net;
  guint           i;
  gboolean        has_leader;
} LeaderWait;

static gboolean
leader_is (gpointer data)
{
  LeaderWait *w = data;

  return etcd_net_has_leader (w->net, w->i) == w->has_leader;
}

gboolean
etcd_net_wait_leader (EtcdNetCluster *net,
                      guint           i,
                      gboolean        has_leader,
                      guint           timeout_ms)
{
  LeaderWait w = { net, i, has_leader };

  return etcd_wait_for (leader_is, &w, timeout_ms);
}
