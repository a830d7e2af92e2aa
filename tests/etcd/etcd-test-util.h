/* etcd-test-util.h: a real single-node etcd for the tests, on free loopback ports
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include <gio/gio.h>
#include <json-glib/json-glib.h>

G_BEGIN_DECLS

typedef struct
{
  GSubprocess *process;
  char        *data_dir;
  char        *endpoint;   /* http://127.0.0.1:PORT */
  char        *hostport;   /* 127.0.0.1:PORT */
  guint16      client_port;
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
/* The keys queued for the lock name in etcd (PREFIX/ESCAPED), oldest first; each element is
 * the kv object (key, lease, create_revision). */
GPtrArray  *etcd_server_queue (EtcdServer *server,
                               const char *lock_name);

/* A loopback TCP port nobody listens on right now. */
guint16     etcd_free_port    (void);

/* Waits until @func returns TRUE, iterating the default main context, at most @timeout_ms. */
gboolean    etcd_wait_for     (gboolean  (*func) (gpointer data),
                               gpointer    data,
                               guint       timeout_ms);

G_END_DECLS
