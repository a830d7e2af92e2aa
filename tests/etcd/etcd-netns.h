/* etcd-netns.h: a 3-member etcd cluster whose members each live in a network namespace of
 * their own, for tests that make partitions (issue 30)
 *
 * The test process first moves into a network namespace of its own (etcd_netns_enter(), in
 * main() before any thread starts), so that everything made here lives in namespaces the test
 * made and dies with it, even when the test aborts: nothing outside is configured, nothing
 * else is a target. In it, two bridges: the client network 10.77.1.0/24 (the test process is
 * 10.77.1.254) and the peer network 10.77.2.0/24 (no address of the test's). Member i
 * (0..2) is 10.77.1.(i+1):2379 for clients and 10.77.2.(i+1):2380 for its peers, each link a
 * veth pair whose bridge end the test takes down to cut it: packets are then dropped
 * silently, as in a real partition (no RST, no ICMP).
 *
 * Needs root (CAP_NET_ADMIN and CAP_SYS_ADMIN), `ip` (iproute2) and the etcd binary; without
 * them each test skips with the reason.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include "etcd-server.h"

G_BEGIN_DECLS

/* Moves this process into a new network namespace with lo up. Call it in main() before
 * g_test_init() (while single-threaded). FALSE with *@skip_reason when it cannot. */
gboolean     etcd_netns_enter        (char **skip_reason);

typedef struct _EtcdNetCluster EtcdNetCluster;

/* Makes the networks, starts the members and waits for a leader (deadline 30 s, scaled).
 * NULL with *@skip_reason without the etcd binary or `ip`. */
EtcdNetCluster *etcd_net_cluster_start (char **skip_reason);
/* Kills the members and their namespaces; their data is removed. */
void         etcd_net_cluster_stop    (EtcdNetCluster *net);
/* The members as an EtcdCluster, for etcd_cluster_leader(), _uri(), _kill() and the like
 * (not _restart(): use etcd_net_restart()). */
EtcdCluster *etcd_net_cluster         (EtcdNetCluster *net);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (EtcdNetCluster, etcd_net_cluster_stop)

/* Cuts member @i from its peers (its peer link down), or heals that. Clients still reach it. */
void         etcd_net_cut_from_peers   (EtcdNetCluster *net,
                                        guint           i,
                                        gboolean        cut);
/* Cuts member @i from the clients (its client link down), or heals that. */
void         etcd_net_cut_from_clients (EtcdNetCluster *net,
                                        guint           i,
                                        gboolean        cut);
/* Starts a killed member @i again, in its namespace, on its data. */
void         etcd_net_restart          (EtcdNetCluster *net,
                                        guint           i);

/* Whether member @i names a leader in /v3/maintenance/status right now (FALSE when it does
 * not answer within 1 s); and waiting (at most @timeout_ms) until it does, or does not. */
gboolean     etcd_net_has_leader       (EtcdNetCluster *net,
                                        guint           i);
gboolean     etcd_net_wait_leader      (EtcdNetCluster *net,
                                        guint           i,
                                        gboolean        has_leader,
                                        guint           timeout_ms);

G_END_DECLS
