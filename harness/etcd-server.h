/* etcd-server.h: a real etcd (one node, or a 3-member cluster) on free loopback ports, for the
 * tests (tests/etcd, tests/flctl) and the bench (bench/bench-etcd.c)
 *
 * Not a test header: no g_test in it. What cannot fail short of a broken machine is asserted
 * (g_assert aborts the test or the bench alike); a missing etcd binary is a reason, returned,
 * which a test reports as a skip and the bench as its message.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include <gio/gio.h>
#include <json-glib/json-glib.h>

G_BEGIN_DECLS

typedef struct
{
  GSubprocess *process;    /* NULL while the member is down */
  char        *data_dir;
  char        *endpoint;   /* http://127.0.0.1:PORT */
  char        *hostport;   /* 127.0.0.1:PORT */
  guint16      client_port;
  /* What it was started with, so that a member can be restarted on its data. */
  char        *name;
  char        *peer_url;
  char        *metrics_url;
  char        *initial_cluster;
} EtcdServer;

/* Starts etcd and waits for /health (deadline 20 s). Without the binary returns NULL and sets
 * *skip_reason; a server that does not come up is a test failure. */
EtcdServer *etcd_server_start (char **skip_reason);
void        etcd_server_stop  (EtcdServer *server);
/* SIGSTOP / SIGCONT the server. */
void        etcd_server_pause  (EtcdServer *server,
                                gboolean    paused);

/* etcd://127.0.0.1:PORT/fl-test/NAME */
char       *etcd_server_uri   (EtcdServer *server,
                               const char *name);
/* A POST to the server's JSON gateway; asserts it answers 200. */
JsonObject *etcd_server_call  (EtcdServer *server,
                               const char *path,
                               const char *body);
/* The same, but NULL (and *status, when not NULL, the HTTP status or 0) when it cannot
 * answer 200 within @timeout_s: for a member that may be down or without quorum. */
JsonObject *etcd_server_try_call (EtcdServer *server,
                                  const char *path,
                                  const char *body,
                                  guint       timeout_s,
                                  guint      *status);
/* The keys queued for the lock name in etcd (PREFIX/ESCAPED), oldest first; each element is
 * the kv object (key, lease, create_revision). */
GPtrArray  *etcd_server_queue (EtcdServer *server,
                               const char *lock_name);

/* A 3-member cluster: each member on its own free client, peer and metrics ports, with its
 * own data directory, all started with one --initial-cluster. */
#define ETCD_CLUSTER_SIZE 3

typedef struct
{
  EtcdServer *members[ETCD_CLUSTER_SIZE];
} EtcdCluster;

/* Starts the three and waits until every member reports /health (deadline 30 s). NULL and
 * *skip_reason without the binary. */
EtcdCluster *etcd_cluster_start   (char       **skip_reason);
void         etcd_cluster_stop    (EtcdCluster *cluster);
/* SIGKILL member @i, or SIGTERM it and wait until it exited; its data stays. */
void         etcd_cluster_kill    (EtcdCluster *cluster,
                                   guint        i);
void         etcd_cluster_term    (EtcdCluster *cluster,
                                   guint        i);
/* Starts member @i again on its data and waits for its /health (deadline 30 s): a member
 * is healthy only with a quorum behind it. */
void         etcd_cluster_restart (EtcdCluster *cluster,
                                   guint        i);
/* Waits (at most @timeout_ms) until every running member reports /health. */
gboolean     etcd_cluster_wait_healthy (EtcdCluster *cluster,
                                        guint        timeout_ms);
/* The index of the member every running member names as leader (/v3/maintenance/status),
 * waiting at most @timeout_ms for them to agree; -1 if they did not. */
int          etcd_cluster_leader  (EtcdCluster *cluster,
                                   guint        timeout_ms);
/* A running member, for ranges and calls: the first one up. */
EtcdServer  *etcd_cluster_any     (EtcdCluster *cluster);
/* etcd://M_first,M_first+1,M_first+2/fl-test/NAME: all three endpoints, @first first. */
char        *etcd_cluster_uri     (EtcdCluster *cluster,
                                   guint        first,
                                   const char  *name);

/* A loopback TCP port nobody listens on right now. */
guint16     etcd_free_port    (void);

/* Waits until @func returns TRUE, iterating the default main context, at most @timeout_ms. */
gboolean    etcd_wait_for     (gboolean  (*func) (gpointer data),
                               gpointer    data,
                               guint       timeout_ms);

/* A member whose fields the caller fills (ports, URLs, initial_cluster), with its data
 * directory made; and starting it with @child_setup run in the child before exec, in place
 * of the one that kills it with the test process (which @child_setup must then do). For a
 * member in a network namespace of its own (tests/etcd/etcd-netns.c). */
EtcdServer *etcd_server_new_unstarted (const char          *name);
void        etcd_server_spawn_with    (EtcdServer          *server,
                                       GSpawnChildSetupFunc child_setup,
                                       gpointer             setup_data);

/* Spawns etcd with stderr to @log_path and killed when the test process dies. */
GSubprocessLauncher *etcd_server_launcher_new (const char *log_path);

G_END_DECLS
