/* etcd-test-util.c: a real single-node etcd for the tests, on free loopback ports
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "etcd-test-util.h"

#include <glib/gstdio.h>
#include <libsoup/soup.h>
#include <signal.h>
#include <string.h>

guint16
etcd_free_port (void)
{
  g_autoptr(GSocket) socket = g_socket_new (G_SOCKET_FAMILY_IPV4, G_SOCKET_TYPE_STREAM,
                                            G_SOCKET_PROTOCOL_TCP, NULL);
  g_autoptr(GInetAddress) loopback = g_inet_address_new_loopback (G_SOCKET_FAMILY_IPV4);
  g_autoptr(GSocketAddress) any = g_inet_socket_address_new (loopback, 0);
  g_autoptr(GSocketAddress) bound = NULL;

  g_assert_nonnull (socket);
  g_assert_true (g_socket_bind (socket, any, FALSE, NULL));
  bound = g_socket_get_local_address (socket, NULL);
  return g_inet_socket_address_get_port (G_INET_SOCKET_ADDRESS (bound));
}

static gboolean
healthy (EtcdServer *server)
{
  g_autoptr(SoupSession) session = soup_session_new_with_options ("timeout", 1, NULL);
  g_autofree char *url = g_strconcat (server->endpoint, "/health", NULL);
  g_autoptr(SoupMessage) msg = soup_message_new ("GET", url);
  g_autoptr(GBytes) body = soup_session_send_and_read (session, msg, NULL, NULL);

  return body != NULL && soup_message_get_status (msg) == 200 &&
         strstr (g_bytes_get_data (body, NULL), "\"true\"") != NULL;
}

EtcdServer *
etcd_server_start (char **skip_reason)
{
  g_autofree char *binary = g_find_program_in_path ("etcd");
  g_autoptr(GError) error = NULL;
  g_autofree char *base = NULL;
  g_autofree char *peer = NULL;
  g_autofree char *metrics = NULL;
  g_autofree char *log = NULL;
  g_autofree char *client_url = NULL;
  g_autofree char *data = NULL;
  g_autofree char *cluster = NULL;
  g_autoptr(GSubprocessLauncher) launcher = NULL;
  EtcdServer *server;
  gint64 deadline;

  if (binary == NULL)
    {
      *skip_reason = g_strdup ("no etcd binary in PATH: install Debian's etcd-server "
                               "(build-aux/install-deps)");
      return NULL;
    }

  server = g_new0 (EtcdServer, 1);
  /* /dev/shm when there: etcd preallocates 128 MB of WAL at once. */
  base = g_file_test ("/dev/shm", G_FILE_TEST_IS_DIR)
         ? g_strdup ("/dev/shm/fl-etcd-XXXXXX")
         : g_build_filename (g_get_tmp_dir (), "fl-etcd-XXXXXX", NULL);
  server->data_dir = g_mkdtemp (g_steal_pointer (&base));
  g_assert_nonnull (server->data_dir);

  server->client_port = etcd_free_port ();
  server->hostport = g_strdup_printf ("127.0.0.1:%u", server->client_port);
  server->endpoint = g_strdup_printf ("http://%s", server->hostport);
  client_url = g_strdup (server->endpoint);
  peer = g_strdup_printf ("http://127.0.0.1:%u", etcd_free_port ());
  metrics = g_strdup_printf ("http://127.0.0.1:%u", etcd_free_port ());
  log = g_build_filename (server->data_dir, "etcd.log", NULL);
  data = g_build_filename (server->data_dir, "data", NULL);
  cluster = g_strconcat ("s1=", peer, NULL);

  launcher = g_subprocess_launcher_new (G_SUBPROCESS_FLAGS_STDOUT_SILENCE);
  g_subprocess_launcher_set_stderr_file_path (launcher, log);
  server->process = g_subprocess_launcher_spawn (
    launcher, &error, binary, "--name", "s1",
    "--data-dir", data,
    "--listen-client-urls", client_url, "--advertise-client-urls", client_url,
    "--listen-peer-urls", peer, "--initial-advertise-peer-urls", peer,
    "--initial-cluster", cluster, "--initial-cluster-state", "new",
    "--listen-metrics-urls", metrics, NULL);
  g_assert_no_error (error);

  deadline = g_get_monotonic_time () + 20 * G_USEC_PER_SEC;
  while (!healthy (server))
    {
      if (g_get_monotonic_time () > deadline)
        g_error ("etcd did not answer /health within 20 s (log: %s)", log);
      /* etcd has no readiness notification we can wait on: poll the condition. */
      g_usleep (20 * 1000);
    }
  return server;
}

static void
remove_tree (const char *path)
{
  g_autoptr(GFile) file = g_file_new_for_path (path);
  g_autoptr(GFileEnumerator) children =
    g_file_enumerate_children (file, G_FILE_ATTRIBUTE_STANDARD_NAME,
                               G_FILE_QUERY_INFO_NOFOLLOW_SYMLINKS, NULL, NULL);
  GFileInfo *info;

  while (children != NULL && (info = g_file_enumerator_next_file (children, NULL, NULL)))
    {
      g_autofree char *child = g_build_filename (path, g_file_info_get_name (info), NULL);

      if (g_file_info_get_file_type (info) == G_FILE_TYPE_DIRECTORY)
        remove_tree (child);
      else
        g_unlink (child);
      g_object_unref (info);
    }
  g_rmdir (path);
}

void
etcd_server_stop (EtcdServer *server)
{
  if (server == NULL)
    return;
  /* The data is thrown away: no need for the 1.7 s of a clean stop. */
  g_subprocess_send_signal (server->process, SIGCONT);
  g_subprocess_force_exit (server->process);
  g_subprocess_wait (server->process, NULL, NULL);
  g_object_unref (server->process);
  remove_tree (server->data_dir);
  g_free (server->data_dir);
  g_free (server->endpoint);
  g_free (server->hostport);
  g_free (server);
}

void
etcd_server_pause (EtcdServer *server,
                   gboolean    paused)
{
  g_subprocess_send_signal (server->process, paused ? SIGSTOP : SIGCONT);
}

char *
etcd_server_uri (EtcdServer *server,
                 const char *name)
{
  return g_strdup_printf ("etcd://%s/fl-test/%s", server->hostport, name);
}

JsonObject *
etcd_server_call (EtcdServer *server,
                  const char *path,
                  const char *body)
{
  g_autoptr(SoupSession) session = soup_session_new_with_options ("timeout", 10, NULL);
  g_autofree char *url = g_strconcat (server->endpoint, path, NULL);
  g_autoptr(SoupMessage) msg = soup_message_new ("POST", url);
  g_autoptr(GBytes) request = g_bytes_new (body, strlen (body));
  g_autoptr(GBytes) response = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonNode) root = NULL;

  soup_message_set_request_body_from_bytes (msg, "application/json", request);
  response = soup_session_send_and_read (session, msg, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (soup_message_get_status (msg), ==, 200);
  root = json_from_string (g_bytes_get_data (response, NULL), &error);
  g_assert_no_error (error);
  return json_object_ref (json_node_get_object (root));
}

GPtrArray *
etcd_server_queue (EtcdServer *server,
                   const char *lock_name)
{
  g_autofree char *start = g_strconcat (lock_name, "/", NULL);
  g_autofree char *end = g_strconcat (lock_name, "0", NULL);
  g_autofree char *start64 = g_base64_encode ((const guchar *) start, strlen (start));
  g_autofree char *end64 = g_base64_encode ((const guchar *) end, strlen (end));
  g_autofree char *body = g_strdup_printf ("{\"key\":\"%s\",\"range_end\":\"%s\","
                                           "\"sort_target\":\"CREATE\",\"sort_order\":"
                                           "\"ASCEND\"}", start64, end64);
  g_autoptr(JsonObject) res = etcd_server_call (server, "/v3/kv/range", body);
  GPtrArray *queue = g_ptr_array_new_with_free_func ((GDestroyNotify) json_object_unref);
  JsonArray *kvs = json_object_has_member (res, "kvs")
                   ? json_object_get_array_member (res, "kvs") : NULL;

  for (guint i = 0; kvs != NULL && i < json_array_get_length (kvs); i++)
    g_ptr_array_add (queue, json_object_ref (json_array_get_object_element (kvs, i)));
  return queue;
}

gboolean
etcd_wait_for (gboolean  (*func) (gpointer data),
               gpointer    data,
               guint       timeout_ms)
{
  gint64 deadline = g_get_monotonic_time () + (gint64) timeout_ms * 1000;

  while (!func (data))
    {
      if (g_get_monotonic_time () > deadline)
        return FALSE;
      if (!g_main_context_iteration (NULL, FALSE))
        g_usleep (5 * 1000);  /* a condition in another process or thread: poll it */
    }
  return TRUE;
}
