/* test-etcd-endpoints.c: a member that answers but has no leader is passed over (suite 'etcd')
 *
 * A member cut from its peers still answers clients, each request with "etcdserver: no
 * leader" or "request timed out" after a while. Such an answer speaks for that member alone:
 * the client asks the next one (issue 30, item 2). Here the first endpoint is a stand-in that
 * answers every request as such a member does (HTTP 503 and the gateway's error body), the
 * second the real etcd: acquire, inspection and release work through the second. Before, the
 * first answer was final and every call failed.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <libfl/fl.h>
#include <libsoup/soup.h>

#include "etcd-test-util.h"
#include "fl-test-util.h"

typedef struct
{
  GMainContext *context;
  GMainLoop    *loop;
  SoupServer   *server;
  guint         port;
  gint          requests;  /* atomic */
  GMutex        mutex;
  GCond         cond;
} Leaderless;

static void
leaderless_cb (SoupServer        *server,
               SoupServerMessage *msg,
               const char        *path,
               GHashTable        *query,
               gpointer           user_data)
{
  static const char body[] =
    "{\"error\":\"etcdserver: no leader\",\"message\":\"etcdserver: no leader\",\"code\":14}";
  Leaderless *l = user_data;

  g_atomic_int_inc (&l->requests);
  soup_server_message_set_status (msg, SOUP_STATUS_SERVICE_UNAVAILABLE, NULL);
  soup_server_message_set_response (msg, "application/json", SOUP_MEMORY_STATIC, body,
                                    sizeof body - 1);
}

static gpointer
leaderless_thread (gpointer data)
{
  Leaderless *l = data;
  g_autoptr(GError) error = NULL;
  GSList *uris;

  g_main_context_push_thread_default (l->context);
  l->server = soup_server_new (NULL, NULL);
  soup_server_add_handler (l->server, NULL, leaderless_cb, l, NULL);
  g_assert_true (soup_server_listen_local (l->server, 0, SOUP_SERVER_LISTEN_IPV4_ONLY, &error));
  g_assert_no_error (error);
  uris = soup_server_get_uris (l->server);
  g_mutex_lock (&l->mutex);
  l->port = (guint) g_uri_get_port (uris->data);
  g_cond_signal (&l->cond);
  g_mutex_unlock (&l->mutex);
  g_slist_free_full (uris, (GDestroyNotify) g_uri_unref);

  g_main_loop_run (l->loop);
  g_clear_object (&l->server);
  g_main_context_pop_thread_default (l->context);
  return NULL;
}

static void
test_leaderless_first (void)
{
  Leaderless l = { 0 };
  g_autoptr(GError) error = NULL;
  g_autoptr(FlLockOptions) options = NULL;
  g_autoptr(FlLock) lock = NULL;
  g_autoptr(FlSnapshot) snapshot = NULL;
  g_autofree char *uri = NULL;
  GThread *thread;

  ETCD_TEST_NEED ();
  g_mutex_init (&l.mutex);
  g_cond_init (&l.cond);
  l.context = g_main_context_new ();
  l.loop = g_main_loop_new (l.context, FALSE);
  thread = g_thread_new ("leaderless", leaderless_thread, &l);
  g_mutex_lock (&l.mutex);
  while (l.port == 0)
    g_cond_wait (&l.cond, &l.mutex);
  g_mutex_unlock (&l.mutex);

  uri = g_strdup_printf ("etcd://127.0.0.1:%u,%s/fl-test/leaderless", l.port,
                         etcd_test_server->hostport);
  options = etcd_test_options (fl_test_scaled_ms (10000), 10);
  lock = fl_lock_acquire (uri, options, NULL, &error);
  g_assert_no_error (error);
  g_assert_true (fl_lock_is_held (lock));
  g_assert_cmpint (g_atomic_int_get (&l.requests), >, 0);

  snapshot = fl_snapshot_new_for_target (uri, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpint (fl_snapshot_get_state (snapshot), ==, FL_ENTRY_STATE_HELD);

  g_assert_true (fl_lock_release (lock, &error));
  g_assert_no_error (error);
  g_assert_true (etcd_test_wait_queue ("fl-test/leaderless", 0, fl_test_scaled_ms (10000)));

  g_main_loop_quit (l.loop);
  g_thread_join (thread);
  g_main_loop_unref (l.loop);
  g_main_context_unref (l.context);
  g_mutex_clear (&l.mutex);
  g_cond_clear (&l.cond);
}

int
main (int    argc,
      char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/etcd-endpoints/leaderless-first", test_leaderless_first);
  return etcd_test_run_with_server (argv[0]);
}
