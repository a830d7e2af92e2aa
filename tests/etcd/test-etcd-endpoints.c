/* test-etcd-endpoints.c: a member that answers but has no leader is passed over (suite 'etcd')
 *
 * A member cut from its peers still answers clients, each request with "etcdserver: no
 * leader" or "request timed out" after a while. Such an answer speaks for that member alone:
 * the client asks the next one (issue 30, item 2). Here the first endpoint is a stand-in that
 * answers every request as such a member does (HTTP 503 and the gateway's error body), the
 * second the real etcd: acquire, inspection and release work through the second. Before, the
 * first answer was final and every call failed.
 *
 * The keepalive does the same (item 8): a member that granted the lease and then lost its
 * leader (here the stand-in forwards to etcd until it is told to fail) is passed over, and the
 * lease is renewed through another; before, the keeper asked the same member again every
 * 250 ms until the lock was lost. And a waiter that waits for ever rides out an election that
 * took its lease (item 7).
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
  gint          forward;   /* atomic: pass requests on to the real etcd instead */
  gint          lose_txn;  /* atomic: answer that many /v3/kv/txn "lease not found" first */
  gint          late_txn;  /* atomic: answer that many forwarded /v3/kv/txn after LATE_MS */
  gint          late_sent; /* atomic: how many such answers went */
  SoupSession  *session;   /* the stand-in thread's, for forwarding */
  GMutex        mutex;
  GCond         cond;
} Leaderless;

/* Past the client's 1 s per member (FL_ETCD_ATTEMPT_US), whatever the machine's load: the
 * client has asked the next member long before. */
#define LATE_MS 3000

typedef struct
{
  Leaderless        *l;
  SoupServerMessage *msg;
} Late;

static gboolean
unpause_cb (gpointer data)
{
  Late *late = data;

  soup_server_message_unpause (late->msg);
  g_object_unref (late->msg);
  g_atomic_int_inc (&late->l->late_sent);
  g_free (late);
  return G_SOURCE_REMOVE;
}

static gboolean
late_answer_sent (gpointer data)
{
  return g_atomic_int_get (&((Leaderless *) data)->late_sent) > 0;
}

/* @msg carried out, its answer held back: a member that answers after the client's bound. */
static void
answer_late (Leaderless        *l,
             SoupServerMessage *msg)
{
  GSource *source = g_timeout_source_new (LATE_MS);
  Late *late = g_new (Late, 1);

  *late = (Late) { l, g_object_ref (msg) };
  soup_server_message_pause (msg);
  g_source_set_callback (source, unpause_cb, late, NULL);
  g_source_attach (source, l->context);
  g_source_unref (source);
}

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
  if (g_str_equal (path, "/v3/kv/txn") && g_atomic_int_get (&l->lose_txn) > 0)
    {
      static const char lost[] = "{\"error\":\"etcdserver: requested lease not found\","
                                 "\"message\":\"etcdserver: requested lease not found\","
                                 "\"code\":5}";

      g_atomic_int_add (&l->lose_txn, -1);
      soup_server_message_set_status (msg, SOUP_STATUS_NOT_FOUND, NULL);
      soup_server_message_set_response (msg, "application/json", SOUP_MEMORY_STATIC, lost,
                                        sizeof lost - 1);
      return;
    }
  if (g_atomic_int_get (&l->forward))
    {
      g_autofree char *url = g_strdup_printf ("%s%s", etcd_test_server->endpoint, path);
      g_autoptr(SoupMessage) forwarded = soup_message_new ("POST", url);
      g_autoptr(GBytes) request = soup_message_body_flatten (
        soup_server_message_get_request_body (msg));
      g_autoptr(GBytes) answer = NULL;
      g_autoptr(GError) error = NULL;

      soup_message_set_request_body_from_bytes (forwarded, "application/json", request);
      answer = soup_session_send_and_read (l->session, forwarded, NULL, &error);
      g_assert_no_error (error);
      soup_server_message_set_status (msg, soup_message_get_status (forwarded), NULL);
      soup_server_message_set_response (msg, "application/json", SOUP_MEMORY_COPY,
                                        g_bytes_get_data (answer, NULL),
                                        g_bytes_get_size (answer));
      if (g_str_equal (path, "/v3/kv/txn") && g_atomic_int_get (&l->late_txn) > 0)
        {
          g_atomic_int_add (&l->late_txn, -1);
          answer_late (l, msg);
        }
      return;
    }
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
  l->session = soup_session_new ();
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
  g_clear_object (&l->session);
  g_main_context_pop_thread_default (l->context);
  return NULL;
}

/* The stand-in, serving on a thread of its own (the client's calls block the test's). */
static GThread *
leaderless_start (Leaderless *l)
{
  GThread *thread;

  g_mutex_init (&l->mutex);
  g_cond_init (&l->cond);
  l->context = g_main_context_new ();
  l->loop = g_main_loop_new (l->context, FALSE);
  thread = g_thread_new ("leaderless", leaderless_thread, l);
  g_mutex_lock (&l->mutex);
  while (l->port == 0)
    g_cond_wait (&l->cond, &l->mutex);
  g_mutex_unlock (&l->mutex);
  return thread;
}

static void
leaderless_stop (Leaderless *l,
                 GThread    *thread)
{
  g_main_loop_quit (l->loop);
  g_thread_join (thread);
  g_main_loop_unref (l->loop);
  g_main_context_unref (l->context);
  g_mutex_clear (&l->mutex);
  g_cond_clear (&l->cond);
}

/* Granted through the stand-in, which then loses its leader: the lease is renewed through
 * the real member for three TTLs, and the release is clean. */
static void
test_keepalive_passes_leaderless (void)
{
  /* Renewed every (TTL - margin)/3, trusted TTL - margin (max (1 s, TTL/5)) past each
   * renewal; longer on a slow machine (FL_TEST_TIME_SCALE), where a renewal may be late. */
  const guint ttl_s = etcd_test_ttl_s (3);
  Leaderless l = { .forward = TRUE };
  g_autoptr(GError) error = NULL;
  g_autoptr(FlLockOptions) options = NULL;
  g_autoptr(FlLock) lock = NULL;
  g_autofree char *uri = NULL;
  gboolean lost = FALSE;
  GThread *thread;

  ETCD_TEST_NEED ();
  thread = leaderless_start (&l);
  uri = g_strdup_printf ("etcd://127.0.0.1:%u,%s/fl-test/keepalive-leaderless", l.port,
                         etcd_test_server->hostport);
  options = etcd_test_options (fl_test_scaled_ms (10000), ttl_s);
  lock = etcd_test_acquire_watched (uri, options, &lost);
  g_atomic_int_set (&l.forward, FALSE);

  /* Not lost for three TTLs (a waited-for event that must not come). */
  g_assert_false (etcd_wait_for (etcd_test_is_true, &lost, 3 * ttl_s * 1000));
  g_assert_true (fl_lock_is_held (lock));
  g_assert_true (fl_lock_release (lock, &error));
  g_assert_no_error (error);

  leaderless_stop (&l, thread);
}

/* A lease lost in an election ("requested lease not found" when the waiter queues): an
 * acquire that waits for ever starts again with a new lease instead of failing (item 7). */
static void
test_lease_lost_in_election (void)
{
  Leaderless l = { .forward = TRUE, .lose_txn = 1 };
  g_autoptr(GError) error = NULL;
  g_autoptr(FlLockOptions) options = NULL;
  g_autoptr(FlLock) lock = NULL;
  g_autofree char *uri = NULL;
  GThread *thread;

  ETCD_TEST_NEED ();
  thread = leaderless_start (&l);
  uri = g_strdup_printf ("etcd://127.0.0.1:%u/fl-test/election-lease", l.port);
  options = etcd_test_options (FL_TIMEOUT_INFINITE, etcd_test_ttl_s (10));
  lock = fl_lock_acquire (uri, options, NULL, &error);
  g_assert_no_error (error);
  g_assert_true (fl_lock_is_held (lock));
  g_assert_cmpint (g_atomic_int_get (&l.lose_txn), ==, 0);
  g_assert_true (fl_lock_release (lock, &error));
  g_assert_no_error (error);

  leaderless_stop (&l, thread);
}

/* fl-test/@name, taken through the stand-in first, then the real etcd (10 s lease). */
static FlLock *
acquire_through_stand_in (Leaderless *l,
                          const char *name)
{
  g_autofree char *uri = g_strdup_printf ("etcd://127.0.0.1:%u,%s/fl-test/%s", l->port,
                                          etcd_test_server->hostport, name);
  g_autoptr(FlLockOptions) options = etcd_test_options (fl_test_scaled_ms (10000),
                                                        etcd_test_ttl_s (10));
  g_autoptr(GError) error = NULL;
  FlLock *lock = fl_lock_acquire (uri, options, NULL, &error);

  g_assert_no_error (error);
  g_assert_true (fl_lock_is_held (lock));
  return lock;
}

/* The release's guarded delete carried out by the first member, whose answer comes after the
 * client asked the next one, which finds the key gone: the lock was released (our lease still
 * lives, so the delete was ours), not lost. Before, FL_ERROR_LOST. */
static void
test_release_answered_late (void)
{
  Leaderless l = { .forward = TRUE };
  g_autoptr(GError) error = NULL;
  g_autoptr(FlLock) lock = NULL;
  GThread *thread;

  ETCD_TEST_NEED ();
  thread = leaderless_start (&l);
  lock = acquire_through_stand_in (&l, "release-late");

  g_atomic_int_set (&l.late_txn, 1);
  g_assert_true (fl_lock_release (lock, &error));
  g_assert_no_error (error);
  g_assert_cmpint (g_atomic_int_get (&l.late_txn), ==, 0);  /* the delete went there first */
  g_assert_true (etcd_test_wait_queue ("fl-test/release-late", 0, fl_test_scaled_ms (10000)));
  g_assert_true (etcd_wait_for (late_answer_sent, &l, fl_test_scaled_ms (LATE_MS + 5000)));

  leaderless_stop (&l, thread);
}

static void
test_leaderless_first (void)
{
  Leaderless l = { 0 };
  g_autoptr(GError) error = NULL;
  g_autoptr(FlLock) lock = NULL;
  g_autoptr(FlSnapshot) snapshot = NULL;
  g_autofree char *uri = NULL;
  GThread *thread;

  ETCD_TEST_NEED ();
  thread = leaderless_start (&l);

  uri = g_strdup_printf ("etcd://127.0.0.1:%u,%s/fl-test/leaderless", l.port,
                         etcd_test_server->hostport);
  lock = acquire_through_stand_in (&l, "leaderless");
  g_assert_cmpint (g_atomic_int_get (&l.requests), >, 0);

  snapshot = fl_snapshot_new_for_target (uri, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpint (fl_snapshot_get_state (snapshot), ==, FL_ENTRY_STATE_HELD);

  g_assert_true (fl_lock_release (lock, &error));
  g_assert_no_error (error);
  g_assert_true (etcd_test_wait_queue ("fl-test/leaderless", 0, fl_test_scaled_ms (10000)));

  leaderless_stop (&l, thread);
}

int
main (int    argc,
      char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/etcd-endpoints/leaderless-first", test_leaderless_first);
  g_test_add_func ("/etcd-endpoints/lease-lost-in-election", test_lease_lost_in_election);
  g_test_add_func ("/etcd-endpoints/release-answered-late", test_release_answered_late);
  g_test_add_func ("/etcd-endpoints/keepalive-passes-leaderless",
                   test_keepalive_passes_leaderless);
  return etcd_test_run_with_server (argv[0]);
}
