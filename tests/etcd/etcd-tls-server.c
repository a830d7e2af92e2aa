/* etcd-tls-server.c: a real single-node etcd serving HTTPS, with certificates made at run time
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "etcd-tls-server.h"

#include <glib/gstdio.h>
#include <libsoup/soup.h>
#include <string.h>

#include "etcd-test-util.h"
#include "etcd/fl-etcd-private.h"

static void
openssl (const char *dir,
         ...)
{
  g_autoptr(GPtrArray) argv = g_ptr_array_new ();
  g_autoptr(GError) error = NULL;
  g_autofree char *err = NULL;
  int status = 0;
  va_list args;
  const char *arg;

  g_ptr_array_add (argv, (char *) "/usr/bin/openssl");
  va_start (args, dir);
  while ((arg = va_arg (args, const char *)) != NULL)
    g_ptr_array_add (argv, (char *) arg);
  va_end (args);
  g_ptr_array_add (argv, NULL);
  g_spawn_sync (dir, (char **) argv->pdata, NULL, G_SPAWN_STDOUT_TO_DEV_NULL, NULL, NULL, NULL,
                &err, &status, &error);
  g_assert_no_error (error);
  if (!g_spawn_check_wait_status (status, NULL))
    g_error ("openssl %s failed: %s", (char *) argv->pdata[1], err);
}

/* A self-signed CA: NAME.pem, NAME.key. EC keys: generated in milliseconds. */
static void
make_ca (const char *dir,
         const char *name,
         const char *cn)
{
  g_autofree char *key = g_strconcat (name, ".key", NULL);
  g_autofree char *pem = g_strconcat (name, ".pem", NULL);
  g_autofree char *subject = g_strconcat ("/CN=", cn, NULL);

  openssl (dir, "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1",
           "-nodes", "-keyout", key, "-out", pem, "-days", "2", "-subj", subject, NULL);
}

/* NAME.pem signed by ca.pem, with the extensions in NAME.ext. */
static void
make_signed (const char *dir,
             const char *name,
             const char *cn,
             const char *extensions)
{
  g_autofree char *key = g_strconcat (name, ".key", NULL);
  g_autofree char *csr = g_strconcat (name, ".csr", NULL);
  g_autofree char *pem = g_strconcat (name, ".pem", NULL);
  g_autofree char *ext = g_strconcat (name, ".ext", NULL);
  g_autofree char *ext_path = g_build_filename (dir, ext, NULL);
  g_autofree char *subject = g_strconcat ("/CN=", cn, NULL);

  g_assert_true (g_file_set_contents (ext_path, extensions, -1, NULL));
  openssl (dir, "req", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes",
           "-keyout", key, "-out", csr, "-subj", subject, NULL);
  openssl (dir, "x509", "-req", "-in", csr, "-CA", "ca.pem", "-CAkey", "ca.key",
           "-CAcreateserial", "-out", pem, "-days", "2", "-extfile", ext, NULL);
}

EtcdTlsCerts *
etcd_tls_certs_new (char **skip_reason)
{
  g_autoptr(GError) error = NULL;
  EtcdTlsCerts *certs;

  if (!g_file_test ("/usr/bin/openssl", G_FILE_TEST_IS_EXECUTABLE))
    {
      *skip_reason = g_strdup ("no /usr/bin/openssl to make the test certificates: install "
                               "Debian's openssl");
      return NULL;
    }
  certs = g_new0 (EtcdTlsCerts, 1);
  certs->dir = g_dir_make_tmp ("fl-etcd-tls-XXXXXX", &error);
  g_assert_no_error (error);
  make_ca (certs->dir, "ca", "fl test CA");
  make_ca (certs->dir, "other-ca", "fl test other CA");
  make_signed (certs->dir, "server", "fl test etcd",
               "subjectAltName=IP:127.0.0.1\n"
               /* clientAuth too: with --client-cert-auth, etcd's gateway shows the server's
                * certificate to etcd itself; without it every call gets HTTP 503 "connection
                * closed" (measured) */
               "extendedKeyUsage=serverAuth,clientAuth\n");
  make_signed (certs->dir, "client", "root", "extendedKeyUsage=clientAuth\n");
  certs->ca_file = g_build_filename (certs->dir, "ca.pem", NULL);
  certs->other_ca_file = g_build_filename (certs->dir, "other-ca.pem", NULL);
  certs->server_cert = g_build_filename (certs->dir, "server.pem", NULL);
  certs->server_key = g_build_filename (certs->dir, "server.key", NULL);
  certs->client_cert = g_build_filename (certs->dir, "client.pem", NULL);
  certs->client_key = g_build_filename (certs->dir, "client.key", NULL);
  return certs;
}

void
etcd_tls_certs_free (EtcdTlsCerts *certs)
{
  g_autoptr(GDir) dir = NULL;
  const char *name;

  if (certs == NULL)
    return;
  dir = g_dir_open (certs->dir, 0, NULL);
  while (dir != NULL && (name = g_dir_read_name (dir)) != NULL)
    {
      g_autofree char *path = g_build_filename (certs->dir, name, NULL);

      g_unlink (path);
    }
  g_rmdir (certs->dir);
  g_free (certs->dir);
  g_free (certs->ca_file);
  g_free (certs->other_ca_file);
  g_free (certs->server_cert);
  g_free (certs->server_key);
  g_free (certs->client_cert);
  g_free (certs->client_key);
  g_free (certs);
}

static SoupSession *
trusting_session (EtcdTlsServer *server)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GTlsDatabase) database = g_tls_file_database_new (server->certs->ca_file, &error);

  g_assert_no_error (error);
  return soup_session_new_with_options ("timeout", 10, "tls-database", database, NULL);
}

static guint
post (EtcdTlsServer *server,
      const char    *path,
      const char    *body,
      const char    *token,
      JsonObject   **response)
{
  g_autoptr(SoupSession) session = trusting_session (server);
  g_autofree char *url = g_strconcat (server->endpoint, path, NULL);
  g_autoptr(SoupMessage) msg = soup_message_new ("POST", url);
  g_autoptr(GBytes) request = g_bytes_new (body, strlen (body));
  g_autoptr(GBytes) bytes = NULL;
  g_autoptr(GTlsCertificate) certificate = NULL;
  g_autoptr(GError) error = NULL;

  if (server->client_cert_auth)
    {
      certificate = g_tls_certificate_new_from_files (server->certs->client_cert,
                                                      server->certs->client_key, &error);
      g_assert_no_error (error);
      soup_message_set_tls_client_certificate (msg, certificate);
    }
  if (token != NULL)
    soup_message_headers_replace (soup_message_get_request_headers (msg), "Authorization",
                                  token);
  soup_message_set_request_body_from_bytes (msg, "application/json", request);
  bytes = soup_session_send_and_read (session, msg, NULL, &error);
  if (bytes == NULL)
    return 0;
  if (response != NULL)
    *response = _fl_etcd_json_parse (bytes);
  return soup_message_get_status (msg);
}

guint
etcd_tls_server_post (EtcdTlsServer *server,
                      const char    *path,
                      const char    *body,
                      JsonObject   **response)
{
  return post (server, path, body, server->root_token, response);
}

static gboolean
healthy_cb (gpointer data)
{
  EtcdTlsServer *server = data;
  g_autoptr(SoupSession) session = trusting_session (server);
  g_autofree char *url = g_strconcat (server->endpoint, "/health", NULL);
  g_autoptr(SoupMessage) msg = soup_message_new ("GET", url);
  g_autoptr(GBytes) bytes = NULL;
  g_autoptr(JsonObject) object = NULL;
  g_autoptr(GTlsCertificate) certificate = NULL;

  if (server->client_cert_auth)
    {
      certificate = g_tls_certificate_new_from_files (server->certs->client_cert,
                                                      server->certs->client_key, NULL);
      soup_message_set_tls_client_certificate (msg, certificate);
    }
  bytes = soup_session_send_and_read (session, msg, NULL, NULL);
  object = _fl_etcd_json_parse (bytes);
  return object != NULL &&
         g_strcmp0 (json_object_get_string_member_with_default (object, "health", ""),
                    "true") == 0;
}

EtcdTlsServer *
etcd_tls_server_start (EtcdTlsCerts *certs,
                       gboolean      client_cert_auth,
                       char        **skip_reason)
{
  g_autofree char *binary = g_find_program_in_path ("etcd");
  g_autoptr(GError) error = NULL;
  g_autoptr(GSubprocessLauncher) launcher = NULL;
  g_autoptr(GPtrArray) argv = NULL;
  g_autofree char *base = NULL;
  g_autofree char *peer = NULL;
  g_autofree char *metrics = NULL;
  g_autofree char *log = NULL;
  g_autofree char *data = NULL;
  g_autofree char *cluster = NULL;
  EtcdTlsServer *server;

  if (binary == NULL)
    {
      *skip_reason = g_strdup ("no etcd binary in PATH: install Debian's etcd-server "
                               "(build-aux/install-deps)");
      return NULL;
    }

  server = g_new0 (EtcdTlsServer, 1);
  server->certs = certs;
  server->client_cert_auth = client_cert_auth;
  /* /dev/shm when there: etcd preallocates 128 MB of WAL at once. */
  base = g_file_test ("/dev/shm", G_FILE_TEST_IS_DIR)
         ? g_strdup ("/dev/shm/fl-etcd-tls-XXXXXX")
         : g_build_filename (g_get_tmp_dir (), "fl-etcd-tls-XXXXXX", NULL);
  server->data_dir = g_mkdtemp (g_steal_pointer (&base));
  g_assert_nonnull (server->data_dir);
  server->hostport = g_strdup_printf ("127.0.0.1:%u", etcd_free_port ());
  server->endpoint = g_strdup_printf ("https://%s", server->hostport);
  peer = g_strdup_printf ("http://127.0.0.1:%u", etcd_free_port ());
  metrics = g_strdup_printf ("http://127.0.0.1:%u", etcd_free_port ());
  log = g_build_filename (server->data_dir, "etcd.log", NULL);
  data = g_build_filename (server->data_dir, "data", NULL);
  cluster = g_strconcat ("s1=", peer, NULL);

  argv = g_ptr_array_new ();
  for (const char *const *a = (const char *const[]) {
         binary, "--name", "s1", "--data-dir", data,
         "--listen-client-urls", server->endpoint, "--advertise-client-urls", server->endpoint,
         "--listen-peer-urls", peer, "--initial-advertise-peer-urls", peer,
         "--initial-cluster", cluster, "--initial-cluster-state", "new",
         "--listen-metrics-urls", metrics,
         "--cert-file", certs->server_cert, "--key-file", certs->server_key, NULL };
       *a != NULL; a++)
    g_ptr_array_add (argv, (char *) *a);
  if (client_cert_auth)
    {
      g_ptr_array_add (argv, (char *) "--client-cert-auth");
      g_ptr_array_add (argv, (char *) "--trusted-ca-file");
      g_ptr_array_add (argv, certs->ca_file);
    }
  g_ptr_array_add (argv, NULL);

  launcher = etcd_server_launcher_new (log);
  server->process = g_subprocess_launcher_spawnv (launcher, (const char *const *) argv->pdata,
                                                  &error);
  g_assert_no_error (error);
  if (!etcd_wait_for (healthy_cb, server, 20000))
    g_error ("etcd did not answer /health over TLS within 20 s (log: %s)", log);
  return server;
}

static void
remove_tree (const char *path)
{
  g_autoptr(GDir) dir = g_dir_open (path, 0, NULL);
  const char *name;

  while (dir != NULL && (name = g_dir_read_name (dir)) != NULL)
    {
      g_autofree char *child = g_build_filename (path, name, NULL);

      if (g_file_test (child, G_FILE_TEST_IS_DIR) && !g_file_test (child, G_FILE_TEST_IS_SYMLINK))
        remove_tree (child);
      else
        g_unlink (child);
    }
  g_rmdir (path);
}

void
etcd_tls_server_stop (EtcdTlsServer *server)
{
  if (server == NULL)
    return;
  /* The data is thrown away: no need for a clean stop. */
  g_subprocess_force_exit (server->process);
  g_subprocess_wait (server->process, NULL, NULL);
  g_object_unref (server->process);
  remove_tree (server->data_dir);
  g_free (server->data_dir);
  g_free (server->hostport);
  g_free (server->endpoint);
  g_free (server->root_token);
  g_free (server);
}

char *
etcd_tls_server_uri (EtcdTlsServer *server,
                     const char    *name)
{
  return g_strdup_printf ("etcds://%s/fl-test/%s", server->hostport, name);
}

/* {"name":"root","password":...}, escaped by json-glib. */
static char *
root_body (const char *password)
{
  g_autoptr(JsonObject) object = json_object_new ();
  g_autoptr(JsonNode) node = json_node_new (JSON_NODE_OBJECT);

  json_object_set_string_member (object, "name", "root");
  json_object_set_string_member (object, "password", password);
  json_node_set_object (node, object);
  return json_to_string (node, FALSE);
}

static char *
root_token (EtcdTlsServer *server,
            const char    *password)
{
  g_autofree char *body = root_body (password);
  g_autoptr(JsonObject) res = NULL;

  g_assert_cmpuint (post (server, "/v3/auth/authenticate", body, NULL, &res), ==, 200);
  return g_strdup (json_object_get_string_member (res, "token"));
}

void
etcd_tls_server_enable_auth (EtcdTlsServer *server,
                             const char    *password)
{
  g_autofree char *user = root_body (password);

  g_assert_cmpuint (post (server, "/v3/auth/user/add", user, NULL, NULL), ==, 200);
  g_assert_cmpuint (post (server, "/v3/auth/role/add", "{\"name\":\"root\"}", NULL, NULL), ==,
                    200);
  g_assert_cmpuint (post (server, "/v3/auth/user/grant", "{\"user\":\"root\",\"role\":\"root\"}",
                          NULL, NULL), ==, 200);
  g_assert_cmpuint (post (server, "/v3/auth/enable", "{}", NULL, NULL), ==, 200);
  server->root_token = root_token (server, password);
}

void
etcd_tls_server_reset_tokens (EtcdTlsServer *server,
                              const char    *password)
{
  g_assert_cmpuint (post (server, "/v3/auth/disable", "{}", server->root_token, NULL), ==, 200);
  g_assert_cmpuint (post (server, "/v3/auth/enable", "{}", NULL, NULL), ==, 200);
  g_free (server->root_token);
  server->root_token = root_token (server, password);
}
