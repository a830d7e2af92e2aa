/* etcd-tls-server.h: a real single-node etcd serving HTTPS, with certificates made at run time
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include <gio/gio.h>
#include <json-glib/json-glib.h>

G_BEGIN_DECLS

/* Made by /usr/bin/openssl in a temporary directory: a CA, a server certificate it signed
 * for IP:127.0.0.1 only, a client certificate it signed, and another CA that signed nothing
 * of these. */
typedef struct
{
  char *dir;
  char *ca_file;
  char *other_ca_file;
  char *server_cert;
  char *server_key;
  char *client_cert;
  char *client_key;
} EtcdTlsCerts;

/* NULL with *skip_reason set when openssl is not installed. */
EtcdTlsCerts *etcd_tls_certs_new  (char        **skip_reason);
void          etcd_tls_certs_free (EtcdTlsCerts *certs);

typedef struct
{
  GSubprocess  *process;
  EtcdTlsCerts *certs;            /* borrowed */
  gboolean      client_cert_auth;
  char         *data_dir;
  char         *hostport;         /* 127.0.0.1:PORT */
  char         *endpoint;         /* https://127.0.0.1:PORT */
  char         *root_token;       /* once etcd_tls_server_enable_auth() ran */
} EtcdTlsServer;

/* Starts etcd with --cert-file/--key-file (and --client-cert-auth with the CA as its
 * --trusted-ca-file) and waits for /health, at most 20 s. NULL with *skip_reason without the
 * etcd binary. */
EtcdTlsServer *etcd_tls_server_start (EtcdTlsCerts *certs,
                                      gboolean      client_cert_auth,
                                      char        **skip_reason);
void           etcd_tls_server_stop  (EtcdTlsServer *server);

/* etcds://127.0.0.1:PORT/fl-test/NAME */
char          *etcd_tls_server_uri   (EtcdTlsServer *server,
                                      const char    *name);
/* A POST trusting the CA (and showing the client certificate), with the root token once auth
 * is enabled. Returns the HTTP status; *response is the object answered. */
guint          etcd_tls_server_post  (EtcdTlsServer *server,
                                      const char    *path,
                                      const char    *body,
                                      JsonObject   **response);
/* user add root with @password, role root, grant, auth enable; keeps the root token. */
void           etcd_tls_server_enable_auth (EtcdTlsServer *server,
                                            const char    *password);
/* auth disable + auth enable: etcd forgets every token it issued. */
void           etcd_tls_server_reset_tokens (EtcdTlsServer *server,
                                             const char    *password);

G_END_DECLS
