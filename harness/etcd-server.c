/* etcd-server.c: a real etcd (one node, or a 3-member cluster) on free loopback ports, for the
 * tests and the bench
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "etcd-server.h"

#include <glib/gstdio.h>
#include <libsoup/soup.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>

#include "etcd/fl-etcd-private.h"
#include "fl-lock.h"

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

/* A response body is not NUL-terminated: searched by its length. */
static gboolean
healthy (EtcdServer *server)
{
  g_autoptr(SoupSession) session = soup_session_new_with_options ("timeout", 1, NULL);
  g_autofree char *url = g_strconcat (server->endpoint, "/health", NULL);
  g_autoptr(SoupMessage) msg = soup_message_new ("GET", url);
  g_autoptr(GBytes) body = soup_session_send_and_read (session, msg, NULL, NULL);
  gsize size = 0;
  const char *data = body != NULL ? g_bytes_get_data (body, &size) : NULL;

  return data != NULL && soup_message_get_status (msg) == 200 &&
         g_strstr_len (data, (gssize) size, "\"true\"") != NULL;
}

static gboolean
wait_healthy (EtcdServer *server,
              guint       timeout_s)
{
  gint64 deadline = g_get_monotonic_time () + (gint64) timeout_s * G_USEC_PER_SEC;

  while (!healthy (server))
    {
      if (g_get_monotonic_time () > deadline)
        return FALSE;
      /* etcd has no readiness notification we can wait on: poll the condition. */
      g_usleep (20 * 1000);
    }
  return TRUE;
}

/* A build chroot or a fresh network namespace may have no loopback up: nothing to run etcd
 * on, which is a reason to skip, not a failure. With lo down a bind to 127.0.0.1 still
 * succeeds; a connect to it does not (ENETUNREACH). */
static gboolean
loopback_usable (char **skip_reason)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GInetAddress) loopback = g_inet_address_new_loopback (G_SOCKET_FAMILY_IPV4);
  g_autoptr(GSocketAddress) any = g_inet_socket_address_new (loopback, 0);
  g_autoptr(GSocketAddress) bound = NULL;
  g_autoptr(GSocket) server = g_socket_new (G_SOCKET_FAMILY_IPV4, G_SOCKET_TYPE_STREAM,
                                            G_SOCKET_PROTOCOL_TCP, &error);
  g_autoptr(GSocket) client = NULL;

  if (server != NULL && g_socket_bind (server, any, FALSE, &error) &&
      g_socket_listen (server, &error) &&
      (bound = g_socket_get_local_address (server, &error)) != NULL &&
      (client = g_socket_new (G_SOCKET_FAMILY_IPV4, G_SOCKET_TYPE_STREAM,
                              G_SOCKET_PROTOCOL_TCP, &error)) != NULL &&
      g_socket_connect (client, bound, NULL, &error))
    return TRUE;
  *skip_reason = g_strdup_printf ("the loopback interface cannot be used here (%s): bring up "
                                  "lo (ip link set lo up) to run the etcd tests",
                                  error->message);
  return FALSE;
}

static char *
find_etcd (char **skip_reason)
{
  char *binary = g_find_program_in_path ("etcd");

  if (binary == NULL)
    *skip_reason = g_strdup ("no etcd binary in PATH: install Debian's etcd-server "
                             "(build-aux/install-deps)");
  else if (!loopback_usable (skip_reason))
    g_clear_pointer (&binary, g_free);
  return binary;
}

EtcdServer *
etcd_server_new_unstarted (const char *name)
{
  EtcdServer *server = g_new0 (EtcdServer, 1);
  /* /dev/shm when there: etcd preallocates 128 MB of WAL at once. */
  g_autofree char *base = g_file_test ("/dev/shm", G_FILE_TEST_IS_DIR)
                          ? g_strdup ("/dev/shm/fl-etcd-XXXXXX")
                          : g_build_filename (g_get_tmp_dir (), "fl-etcd-XXXXXX", NULL);

  server->data_dir = g_mkdtemp (g_steal_pointer (&base));
  g_assert_nonnull (server->data_dir);
  server->name = g_strdup (name);
  return server;
}

/* A member's ports and data directory; not started. */
static EtcdServer *
server_new (const char *name)
{
  EtcdServer *server = etcd_server_new_unstarted (name);

  server->client_port = etcd_free_port ();
  server->hostport = g_strdup_printf ("127.0.0.1:%u", server->client_port);
  server->endpoint = g_strdup_printf ("http://%s", server->hostport);
  server->peer_url = g_strdup_printf ("http://127.0.0.1:%u", etcd_free_port ());
  server->metrics_url = g_strdup_printf ("http://127.0.0.1:%u", etcd_free_port ());
  return server;
}

/* In the child, before exec: a test that aborts (an assertion, a sanitizer) takes its etcd
 * servers with it, instead of leaving them running and loading the machine. */
static void
die_with_parent (gpointer unused)
{
  prctl (PR_SET_PDEATHSIG, SIGKILL);
}

GSubprocessLauncher *
etcd_server_launcher_new (const char *log_path)
{
  GSubprocessLauncher *launcher = g_subprocess_launcher_new (G_SUBPROCESS_FLAGS_STDOUT_SILENCE);

  g_subprocess_launcher_set_stderr_file_path (launcher, log_path);
  g_subprocess_launcher_set_child_setup (launcher, die_with_parent, NULL, NULL);
  return launcher;
}

/* On a restart etcd finds its data and ignores the --initial-* flags. */
void
etcd_server_spawn_with (EtcdServer          *server,
                        GSpawnChildSetupFunc child_setup,
                        gpointer             setup_data)
{
  g_autofree char *binary = g_find_program_in_path ("etcd");
  g_autofree char *log = g_build_filename (server->data_dir, "etcd.log", NULL);
  g_autofree char *data = g_build_filename (server->data_dir, "data", NULL);
  g_autoptr(GSubprocessLauncher) launcher = NULL;
  g_autoptr(GError) error = NULL;

  g_assert_nonnull (binary);
  g_assert_null (server->process);
  launcher = etcd_server_launcher_new (log);
  if (child_setup != NULL)
    g_subprocess_launcher_set_child_setup (launcher, child_setup, setup_data, NULL);
  server->process = g_subprocess_launcher_spawn (
    launcher, &error, binary, "--name", server->name,
    "--data-dir", data,
    "--listen-client-urls", server->endpoint, "--advertise-client-urls", server->endpoint,
    "--listen-peer-urls", server->peer_url,
    "--initial-advertise-peer-urls", server->peer_url,
    "--initial-cluster", server->initial_cluster, "--initial-cluster-state", "new",
    "--listen-metrics-urls", server->metrics_url, NULL);
  g_assert_no_error (error);
}

static void
server_spawn (EtcdServer *server)
{
  etcd_server_spawn_with (server, NULL, NULL);
}

static void
server_wait_healthy (EtcdServer *server,
                     guint       timeout_s)
{
  if (!wait_healthy (server, timeout_s))
    g_error ("etcd %s at %s did not answer /health within %u s (log: %s/etcd.log)",
             server->name, server->endpoint, timeout_s, server->data_dir);
}

EtcdServer *
etcd_server_start (char **skip_reason)
{
  g_autofree char *binary = find_etcd (skip_reason);
  EtcdServer *server;

  if (binary == NULL)
    return NULL;
  server = server_new ("s1");
  server->initial_cluster = g_strconcat ("s1=", server->peer_url, NULL);
  server_spawn (server);
  server_wait_healthy (server, 20);
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

static void
server_kill (EtcdServer *server)
{
  if (server->process == NULL)
    return;
  g_subprocess_send_signal (server->process, SIGCONT);
  g_subprocess_force_exit (server->process);
  g_subprocess_wait (server->process, NULL, NULL);
  g_clear_object (&server->process);
}

void
etcd_server_stop (EtcdServer *server)
{
  if (server == NULL)
    return;
  /* The data is thrown away: no need for the 1.7 s of a clean stop. */
  server_kill (server);
  remove_tree (server->data_dir);
  g_free (server->data_dir);
  g_free (server->endpoint);
  g_free (server->hostport);
  g_free (server->name);
  g_free (server->peer_url);
  g_free (server->metrics_url);
  g_free (server->initial_cluster);
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
etcd_server_try_call (EtcdServer *server,
                      const char *path,
                      const char *body,
                      guint       timeout_s,
                      guint      *status)
{
  g_autoptr(SoupSession) session = soup_session_new_with_options ("timeout", timeout_s, NULL);
  g_autofree char *url = g_strconcat (server->endpoint, path, NULL);
  g_autoptr(SoupMessage) msg = soup_message_new ("POST", url);
  g_autoptr(GBytes) request = g_bytes_new (body, strlen (body));
  g_autoptr(GBytes) response = NULL;

  soup_message_set_request_body_from_bytes (msg, "application/json", request);
  response = soup_session_send_and_read (session, msg, NULL, NULL);
  if (status != NULL)
    *status = response != NULL ? soup_message_get_status (msg) : 0;
  if (response == NULL || soup_message_get_status (msg) != 200)
    return NULL;
  return _fl_etcd_json_parse (response);
}

JsonObject *
etcd_server_call (EtcdServer *server,
                  const char *path,
                  const char *body)
{
  guint status = 0;
  JsonObject *res = etcd_server_try_call (server, path, body, 10, &status);

  if (res == NULL)
    g_error ("etcd at %s answered %s with HTTP %u (0: no answer), or not with JSON",
             server->endpoint, path, status);
  return res;
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

/* The cluster */

EtcdCluster *
etcd_cluster_start (char **skip_reason)
{
  g_autofree char *binary = find_etcd (skip_reason);
  g_autoptr(GString) initial = g_string_new (NULL);
  EtcdCluster *cluster;

  if (binary == NULL)
    return NULL;
  cluster = g_new0 (EtcdCluster, 1);
  for (guint i = 0; i < ETCD_CLUSTER_SIZE; i++)
    {
      g_autofree char *name = g_strdup_printf ("m%u", i);

      cluster->members[i] = server_new (name);
      g_string_append_printf (initial, "%s%s=%s", i > 0 ? "," : "", name,
                              cluster->members[i]->peer_url);
    }
  for (guint i = 0; i < ETCD_CLUSTER_SIZE; i++)
    {
      cluster->members[i]->initial_cluster = g_strdup (initial->str);
      server_spawn (cluster->members[i]);
    }
  for (guint i = 0; i < ETCD_CLUSTER_SIZE; i++)
    server_wait_healthy (cluster->members[i], 30);
  return cluster;
}

void
etcd_cluster_stop (EtcdCluster *cluster)
{
  if (cluster == NULL)
    return;
  for (guint i = 0; i < ETCD_CLUSTER_SIZE; i++)
    etcd_server_stop (cluster->members[i]);
  g_free (cluster);
}

void
etcd_cluster_kill (EtcdCluster *cluster,
                   guint        i)
{
  g_assert_cmpuint (i, <, ETCD_CLUSTER_SIZE);
  server_kill (cluster->members[i]);
}

void
etcd_cluster_term (EtcdCluster *cluster,
                   guint        i)
{
  EtcdServer *member = cluster->members[i];

  g_assert_cmpuint (i, <, ETCD_CLUSTER_SIZE);
  if (member->process == NULL)
    return;
  g_subprocess_send_signal (member->process, SIGCONT);
  g_subprocess_send_signal (member->process, SIGTERM);
  g_subprocess_wait (member->process, NULL, NULL);
  g_clear_object (&member->process);
}

void
etcd_cluster_restart (EtcdCluster *cluster,
                      guint        i)
{
  g_assert_cmpuint (i, <, ETCD_CLUSTER_SIZE);
  server_spawn (cluster->members[i]);
  server_wait_healthy (cluster->members[i], 30);
}

gboolean
etcd_cluster_wait_healthy (EtcdCluster *cluster,
                           guint        timeout_ms)
{
  gint64 deadline = g_get_monotonic_time () + (gint64) timeout_ms * 1000;

  for (guint i = 0; i < ETCD_CLUSTER_SIZE; i++)
    {
      EtcdServer *member = cluster->members[i];

      while (member->process != NULL && !healthy (member))
        {
          if (g_get_monotonic_time () > deadline)
            return FALSE;
          g_usleep (20 * 1000);  /* a condition in another process: poll it */
        }
    }
  return TRUE;
}

/* The leader every running member names, or -1 while they do not agree. */
static int
agreed_leader (EtcdCluster *cluster)
{
  char *ids[ETCD_CLUSTER_SIZE] = { NULL };
  char *leaders[ETCD_CLUSTER_SIZE] = { NULL };
  const char *leader = NULL;
  int found = -1;
  gboolean agree = TRUE;

  for (guint i = 0; i < ETCD_CLUSTER_SIZE; i++)
    {
      g_autoptr(JsonObject) status = NULL;
      JsonObject *header;

      if (cluster->members[i]->process == NULL)
        continue;
      status = etcd_server_try_call (cluster->members[i], "/v3/maintenance/status", "{}", 2,
                                     NULL);
      header = _fl_etcd_json_object (status, "header");
      if (header == NULL || !json_object_has_member (header, "member_id") ||
          !json_object_has_member (status, "leader"))
        {
          agree = FALSE;  /* down, or no leader yet (proto3 leaves a 0 leader out) */
          continue;
        }
      ids[i] = g_strdup (json_object_get_string_member (header, "member_id"));
      leaders[i] = g_strdup (json_object_get_string_member (status, "leader"));
      if (leader == NULL)
        leader = leaders[i];
      else if (strcmp (leader, leaders[i]) != 0)
        agree = FALSE;
    }
  for (guint i = 0; agree && leader != NULL && i < ETCD_CLUSTER_SIZE; i++)
    if (g_strcmp0 (ids[i], leader) == 0)
      found = (int) i;
  for (guint i = 0; i < ETCD_CLUSTER_SIZE; i++)
    {
      g_free (ids[i]);
      g_free (leaders[i]);
    }
  return found;
}

int
etcd_cluster_leader (EtcdCluster *cluster,
                     guint        timeout_ms)
{
  gint64 deadline = g_get_monotonic_time () + (gint64) timeout_ms * 1000;
  int leader;

  while ((leader = agreed_leader (cluster)) < 0)
    {
      if (g_get_monotonic_time () > deadline)
        return -1;
      g_usleep (20 * 1000);  /* an election in other processes: poll it */
    }
  return leader;
}

EtcdServer *
etcd_cluster_any (EtcdCluster *cluster)
{
  for (guint i = 0; i < ETCD_CLUSTER_SIZE; i++)
    if (cluster->members[i]->process != NULL)
      return cluster->members[i];
  g_assert_not_reached ();
}

char *
etcd_cluster_uri (EtcdCluster *cluster,
                  guint        first,
                  const char  *name)
{
  g_autoptr(GString) uri = g_string_new ("etcd://");

  for (guint i = 0; i < ETCD_CLUSTER_SIZE; i++)
    g_string_append_printf (uri, "%s%s", i > 0 ? "," : "",
                            cluster->members[(first + i) % ETCD_CLUSTER_SIZE]->hostport);
  g_string_append_printf (uri, "/fl-test/%s", name);
  return g_string_free (g_steal_pointer (&uri), FALSE);
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
