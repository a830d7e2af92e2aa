/* test-etcd-inspect.c: snapshots, scans and the guarded reclaim of etcd locks (suite 'etcd')
 *
 * One single-node etcd per run of this program, on free loopback ports, its data in a
 * temporary directory. Without the etcd binary every test skips and says why. Holders and
 * waiters are real child processes (this program with --hold); each test has its own names.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include <libfl/fl.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "etcd-test-util.h"
#include "fl-test-util.h"


/* The metadata keys of PREFIX/NAME: PREFIX/.fl-meta/NAME/... */
static guint
count_meta (const char *prefix,
            const char *name)
{
  g_autofree char *dir = g_strdup_printf ("%s/.fl-meta/%s", prefix, name);
  g_autoptr(GPtrArray) keys = etcd_server_queue (etcd_test_server, dir);

  return keys->len;
}

static FlSnapshot *
snapshot_ok (const char *uri)
{
  g_autoptr(GError) error = NULL;
  FlSnapshot *snapshot = fl_snapshot_new_for_target (uri, NULL, &error);

  g_assert_no_error (error);
  g_assert_nonnull (snapshot);
  return snapshot;
}

typedef struct
{
  const char *uri;
  int         pid;
} HolderIs;

static gboolean
holder_is (gpointer data)
{
  HolderIs *h = data;
  g_autoptr(FlSnapshot) snapshot = fl_snapshot_new_for_target (h->uri, NULL, NULL);

  return snapshot != NULL && fl_snapshot_get_pid (snapshot) == h->pid;
}

/* A holder and two waiters from real processes, in the order they queued; each one's
 * metadata (host, PID, process) and lease; the metadata goes with the release. */
static void
test_holder_and_waiters (void)
{
  g_autofree char *uri = NULL;
  g_autoptr(FlSnapshot) snapshot = NULL;
  GSubprocess *a, *b, *c;
  GPtrArray *waiters;
  FlSnapshot *w1, *w2;
  HolderIs next;

  ETCD_TEST_NEED ();
  uri = etcd_server_uri (etcd_test_server, "queue");
  a = etcd_test_spawn_holder (etcd_test_self_path, uri);
  g_assert_true (etcd_test_wait_queue ("fl-test/queue", 1, fl_test_scaled_ms (20000)));
  b = etcd_test_spawn_holder (etcd_test_self_path, uri);
  g_assert_true (etcd_test_wait_queue ("fl-test/queue", 2, fl_test_scaled_ms (20000)));
  c = etcd_test_spawn_holder (etcd_test_self_path, uri);
  g_assert_true (etcd_test_wait_queue ("fl-test/queue", 3, fl_test_scaled_ms (20000)));

  snapshot = snapshot_ok (uri);
  g_assert_cmpstr (fl_snapshot_get_target (snapshot), ==, uri);
  g_assert_cmpstr (fl_snapshot_get_path (snapshot), ==, "fl-test/queue");
  g_assert_cmpint (fl_snapshot_get_kind (snapshot), ==, FL_ENTRY_LOCK);
  g_assert_cmpint (fl_snapshot_get_state (snapshot), ==, FL_ENTRY_STATE_HELD);
  g_assert_false (fl_snapshot_get_stale (snapshot));
  g_assert_cmpint (fl_snapshot_get_reclaimable (snapshot), ==, FL_RECLAIMABLE_UNPROVEN);
  g_assert_false (fl_snapshot_get_waiting (snapshot));
  g_assert_cmpint (fl_snapshot_get_pid (snapshot), ==, etcd_test_child_pid (a));
  g_assert_cmpstr (fl_snapshot_get_host (snapshot), ==, g_get_host_name ());
  g_assert_cmpstr (fl_snapshot_get_process_name (snapshot), ==, "test-etcd-inspe");
  g_assert_cmpint (fl_snapshot_get_lease_id (snapshot), !=, 0);
  g_assert_cmpint (fl_snapshot_get_lease_ttl (snapshot), >, 0);
  g_assert_cmpint (fl_snapshot_get_lease_ttl (snapshot), <=, etcd_test_ttl_s (10));
  g_assert_cmpuint (fl_snapshot_get_fencing_token (snapshot), >, 0);
  g_assert_cmpint (fl_snapshot_get_revision (snapshot), >=,
                   (gint64) fl_snapshot_get_fencing_token (snapshot));
  g_assert_cmpint (fl_snapshot_get_age (snapshot), >=, 0);
  g_assert_cmpint (fl_snapshot_get_age (snapshot), <, 60 * G_USEC_PER_SEC);

  waiters = fl_snapshot_get_waiters (snapshot);
  g_assert_nonnull (waiters);
  g_assert_cmpuint (waiters->len, ==, 2);
  w1 = waiters->pdata[0];
  w2 = waiters->pdata[1];
  g_assert_cmpint (fl_snapshot_get_pid (w1), ==, etcd_test_child_pid (b));
  g_assert_cmpint (fl_snapshot_get_pid (w2), ==, etcd_test_child_pid (c));
  g_assert_true (fl_snapshot_get_waiting (w1));
  g_assert_cmpint (fl_snapshot_get_state (w1), ==, FL_ENTRY_STATE_ACTIVE);
  g_assert_null (fl_snapshot_get_waiters (w1));
  g_assert_cmpstr (fl_snapshot_get_host (w2), ==, g_get_host_name ());
  g_assert_cmpuint (fl_snapshot_get_fencing_token (w1), >,
                    fl_snapshot_get_fencing_token (snapshot));
  g_assert_cmpuint (fl_snapshot_get_fencing_token (w2), >, fl_snapshot_get_fencing_token (w1));
  g_assert_cmpint (fl_snapshot_get_lease_id (w1), !=, fl_snapshot_get_lease_id (snapshot));
  g_assert_cmpuint (count_meta ("fl-test", "queue"), ==, 3);
  {
    g_autofree char *host = NULL;
    guint64 token = 0;

    g_object_get (snapshot, "host", &host, "fencing-token", &token, NULL);
    g_assert_cmpstr (host, ==, g_get_host_name ());
    g_assert_cmpuint (token, ==, fl_snapshot_get_fencing_token (snapshot));
    g_assert_true (fl_snapshot_same_file (snapshot, snapshot));
    g_assert_false (fl_snapshot_same_file (snapshot, w1));
  }

  /* The holder leaves: the first waiter holds, the holder's metadata is gone. */
  etcd_test_finish_holder (a);
  next = (HolderIs) { uri, etcd_test_child_pid (b) };
  g_assert_true (etcd_wait_for (holder_is, &next, fl_test_scaled_ms (20000)));
  g_assert_cmpuint (count_meta ("fl-test", "queue"), ==, 2);
  etcd_test_finish_holder (b);
  next = (HolderIs) { uri, etcd_test_child_pid (c) };
  g_assert_true (etcd_wait_for (holder_is, &next, fl_test_scaled_ms (20000)));
  etcd_test_finish_holder (c);
  g_assert_true (etcd_test_wait_queue ("fl-test/queue", 0, fl_test_scaled_ms (20000)));
  g_assert_cmpuint (count_meta ("fl-test", "queue"), ==, 0);
}

static void
test_not_locked (void)
{
  g_autofree char *uri = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(FlSnapshot) snapshot = NULL;

  ETCD_TEST_NEED ();
  uri = etcd_server_uri (etcd_test_server, "nobody");
  snapshot = fl_snapshot_new_for_target (uri, NULL, &error);
  g_assert_null (snapshot);
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_NOT_FOUND);
  g_assert_nonnull (strstr (error->message, "fl-test/nobody"));
}

/* ".fl-meta" would queue among the metadata keys: refused, with the reason. */
static void
test_reserved_name (void)
{
  g_autofree char *uri = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(FlLock) lock = NULL;
  g_autoptr(FlSnapshot) snapshot = NULL;

  ETCD_TEST_NEED ();
  uri = etcd_server_uri (etcd_test_server, ".fl-meta");
  lock = fl_lock_acquire (uri, NULL, NULL, &error);
  g_assert_null (lock);
  g_assert_error (error, FL_ERROR, FL_ERROR_INVALID_TARGET);
  g_assert_nonnull (strstr (error->message, "reserved"));
  g_clear_error (&error);
  snapshot = fl_snapshot_new_for_target (uri, NULL, &error);
  g_assert_null (snapshot);
  g_assert_error (error, FL_ERROR, FL_ERROR_INVALID_TARGET);
}

/* Reclaim revokes exactly the lease seen: not without force, and never another one. */
static void
test_reclaim (void)
{
  g_autofree char *uri = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(FlLock) lock = NULL;
  g_autoptr(FlSnapshot) snapshot = NULL;
  g_autoptr(FlSnapshot) gone = NULL;

  ETCD_TEST_NEED ();
  uri = etcd_server_uri (etcd_test_server, "reclaim");
  lock = fl_lock_acquire (uri, NULL, NULL, &error);
  g_assert_no_error (error);
  snapshot = snapshot_ok (uri);
  g_assert_cmpuint (fl_snapshot_get_fencing_token (snapshot), ==,
                    fl_lock_get_fencing_token (lock));

  /* etcd says it is alive: only the forced reclaim ends it. */
  g_assert_false (fl_snapshot_reclaim (snapshot, NULL, &error));
  g_assert_error (error, FL_ERROR, FL_ERROR_NOT_STALE);
  g_assert_nonnull (strstr (error->message, "--force"));
  g_clear_error (&error);
  g_assert_true (fl_lock_is_held (lock));

  g_assert_true (fl_snapshot_reclaim_unproven (snapshot, NULL, &error));
  g_assert_no_error (error);
  g_assert_true (etcd_test_wait_queue ("fl-test/reclaim", 0, fl_test_scaled_ms (20000)));
  g_assert_cmpuint (count_meta ("fl-test", "reclaim"), ==, 0);
  gone = fl_snapshot_new_for_target (uri, NULL, &error);
  g_assert_null (gone);
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_NOT_FOUND);
  g_clear_error (&error);
  g_assert_false (fl_lock_release (lock, &error));
  g_assert_error (error, FL_ERROR, FL_ERROR_LOST);
}

/* A snapshot of an acquisition that has ended never reclaims the next one. */
static void
test_reclaim_changed (void)
{
  g_autofree char *uri = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(FlLock) first = NULL;
  g_autoptr(FlLock) second = NULL;
  g_autoptr(FlSnapshot) seen = NULL;
  g_autoptr(FlSnapshot) now = NULL;

  ETCD_TEST_NEED ();
  uri = etcd_server_uri (etcd_test_server, "changed");
  first = fl_lock_acquire (uri, NULL, NULL, &error);
  g_assert_no_error (error);
  seen = snapshot_ok (uri);
  g_assert_true (fl_lock_release (first, &error));
  second = fl_lock_acquire (uri, NULL, NULL, &error);
  g_assert_no_error (error);

  g_assert_false (fl_snapshot_reclaim_unproven (seen, NULL, &error));
  g_assert_error (error, FL_ERROR, FL_ERROR_CHANGED);
  g_assert_nonnull (strstr (error->message, "fl-test/changed"));
  g_clear_error (&error);

  g_assert_true (fl_lock_is_held (second));
  now = snapshot_ok (uri);
  g_assert_cmpuint (fl_snapshot_get_fencing_token (now), ==, fl_lock_get_fencing_token (second));

  /* Its key deleted while its lease lives on: the guard refuses, the lease is not revoked
   * (without the guard, the revoke would succeed on a lease that no longer holds anything). */
  {
    g_autofree char *key = g_strdup_printf ("fl-test/changed/%" G_GINT64_MODIFIER "x",
                                            fl_snapshot_get_lease_id (now));
    g_autofree char *key64 = g_base64_encode ((const guchar *) key, strlen (key));
    g_autofree char *body = g_strdup_printf ("{\"key\":\"%s\"}", key64);
    g_autofree char *ttl = g_strdup_printf ("{\"ID\":\"%" G_GINT64_FORMAT "\"}",
                                            fl_snapshot_get_lease_id (now));
    g_autoptr(JsonObject) deleted = etcd_server_call (etcd_test_server, "/v3/kv/deleterange", body);
    g_autoptr(JsonObject) alive = NULL;

    g_assert_cmpstr (json_object_get_string_member_with_default (deleted, "deleted", "0"), ==, "1");
    g_assert_false (fl_snapshot_reclaim_unproven (now, NULL, &error));
    g_assert_error (error, FL_ERROR, FL_ERROR_CHANGED);
    g_clear_error (&error);
    alive = etcd_server_call (etcd_test_server, "/v3/lease/timetolive", ttl);
    g_assert_cmpint (g_ascii_strtoll (json_object_get_string_member (alive, "TTL"), NULL, 10),
                     >, 0);
  }
  g_assert_false (fl_lock_release (second, &error));
  g_assert_error (error, FL_ERROR, FL_ERROR_LOST);
}

static gboolean
has_path (GPtrArray  *snapshots,
          const char *path)
{
  for (guint i = 0; i < snapshots->len; i++)
    if (g_strcmp0 (fl_snapshot_get_path (snapshots->pdata[i]), path) == 0)
      return TRUE;
  return FALSE;
}

/* A key of another program under the prefix: never a lock, never a crash. */
static void
put_raw (const char *key,
         const char *value,
         gint64      lease)
{
  g_autofree char *key64 = g_base64_encode ((const guchar *) key, strlen (key));
  g_autofree char *value64 = g_base64_encode ((const guchar *) value, strlen (value));
  g_autofree char *lease_part = lease != 0 ? g_strdup_printf (",\"lease\":\"%" G_GINT64_FORMAT
                                                              "\"", lease)
                                           : g_strdup ("");
  g_autofree char *body = g_strdup_printf ("{\"key\":\"%s\",\"value\":\"%s\"%s}", key64,
                                           value64, lease_part);
  g_autoptr(JsonObject) res = etcd_server_call (etcd_test_server, "/v3/kv/put", body);

  g_assert_nonnull (res);
}

/* One snapshot per name under the prefix: `a` and `a/b` kept apart, metadata and foreign
 * keys left out. */
static void
test_scan (void)
{
  g_autofree char *prefix = NULL;
  g_autofree char *uri_a = NULL;
  g_autofree char *uri_ab = NULL;
  g_autofree char *root = NULL;
  g_autofree char *root_slash = NULL;
  g_autofree char *path_ab = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(FlLock) a = NULL;
  g_autoptr(FlLock) ab = NULL;
  g_autoptr(GPtrArray) found = NULL;
  g_autoptr(GPtrArray) again = NULL;
  g_autoptr(GPtrArray) empty = NULL;
  g_autofree char *foreign1 = NULL;
  g_autofree char *foreign2 = NULL;
  g_autofree char *foreign3 = NULL;
  GSubprocess *waiter;
  FlSnapshot *s_a = NULL, *s_ab = NULL;

  ETCD_TEST_NEED ();
  prefix = g_strdup_printf ("scan%d", (int) getpid ());
  uri_a = g_strdup_printf ("etcd://%s/%s/a", etcd_test_server->hostport, prefix);
  uri_ab = g_strdup_printf ("etcd://%s/%s/a/b", etcd_test_server->hostport, prefix);
  root = g_strdup_printf ("etcd://%s/%s", etcd_test_server->hostport, prefix);
  root_slash = g_strconcat (root, "/", NULL);
  path_ab = g_strdup_printf ("%s/a%%2Fb", prefix);

  empty = fl_scan_directory (root, FL_SCAN_NONE, NULL, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (empty->len, ==, 0);

  a = fl_lock_acquire (uri_a, NULL, NULL, &error);
  g_assert_no_error (error);
  ab = fl_lock_acquire (uri_ab, NULL, NULL, &error);
  g_assert_no_error (error);
  waiter = etcd_test_spawn_holder (etcd_test_self_path, uri_ab);
  g_assert_true (etcd_test_wait_queue (path_ab, 2, fl_test_scaled_ms (20000)));
  foreign1 = g_strdup_printf ("%s/not-a-lock", prefix);
  foreign2 = g_strdup_printf ("%s/.fl-meta/zz", prefix);
  foreign3 = g_strdup_printf ("%s/x/y/z", prefix);
  put_raw (foreign1, "x", 0);
  put_raw (foreign2, "x", 0);
  put_raw (foreign3, "x", 0);

  found = fl_scan_directory (root, FL_SCAN_RECURSIVE, NULL, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (found->len, ==, 2);
  s_a = found->pdata[0];
  s_ab = found->pdata[1];
  g_assert_cmpstr (fl_snapshot_get_target (s_a), ==, uri_a);
  g_assert_cmpstr (fl_snapshot_get_target (s_ab), ==, uri_ab);
  g_assert_cmpstr (fl_snapshot_get_path (s_ab), ==, path_ab);
  g_assert_cmpuint (fl_snapshot_get_fencing_token (s_a), ==, fl_lock_get_fencing_token (a));
  g_assert_cmpuint (fl_snapshot_get_fencing_token (s_ab), ==, fl_lock_get_fencing_token (ab));
  g_assert_cmpuint (fl_snapshot_get_waiters (s_a)->len, ==, 0);
  g_assert_cmpuint (fl_snapshot_get_waiters (s_ab)->len, ==, 1);
  g_assert_cmpint (fl_snapshot_get_pid (fl_snapshot_get_waiters (s_ab)->pdata[0]), ==,
                   etcd_test_child_pid (waiter));
  g_assert_cmpint (fl_snapshot_get_pid (s_a), ==, getpid ());
  g_assert_cmpint (fl_snapshot_get_lease_ttl (s_ab), >, 0);
  g_assert_false (has_path (found, foreign1));

  again = fl_scan_directory (root_slash, FL_SCAN_NONE, NULL, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (again->len, ==, 2);

  g_assert_true (fl_lock_release (ab, &error));
  etcd_test_finish_holder (waiter);
  g_assert_true (fl_lock_release (a, &error));
  g_assert_no_error (error);
}

static void
test_scan_bad_root (void)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *root = NULL;
  g_autoptr(GPtrArray) found = NULL;

  ETCD_TEST_NEED ();
  root = g_strdup_printf ("etcd://%s", etcd_test_server->hostport);
  found = fl_scan_directory (root, FL_SCAN_NONE, NULL, NULL, &error);
  g_assert_null (found);
  g_assert_error (error, FL_ERROR, FL_ERROR_INVALID_TARGET);
  g_assert_nonnull (strstr (error->message, "PREFIX"));
}

/* Whatever a metadata key holds, the snapshot says "unknown" for what it cannot believe; the
 * lock stays held, nothing crashes. */
static void
test_hostile_metadata (void)
{
  static const char *values[] = {
    "not json",
    "[1,2,3]",
    "{\"host\":5,\"pid\":\"12\",\"process\":[1],\"since\":\"x\"}",
    "{\"host\":\"a\\u0001b\",\"pid\":-3,\"process\":\"\",\"since\":-1}",
    "{\"host\":\"h\",\"pid\":99999999999,\"since\":1.5}",
    "{\"host\":\"h\",\"pid\":12.5}",
    "\xff\xfe{",
    "",
  };
  g_autofree char *uri = NULL;
  g_autofree char *meta_key = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(FlLock) lock = NULL;
  g_autoptr(FlSnapshot) first = NULL;
  g_autofree char *huge = NULL;
  gint64 lease;

  ETCD_TEST_NEED ();
  uri = etcd_server_uri (etcd_test_server, "hostile");
  lock = fl_lock_acquire (uri, NULL, NULL, &error);
  g_assert_no_error (error);
  first = snapshot_ok (uri);
  lease = fl_snapshot_get_lease_id (first);
  meta_key = g_strdup_printf ("fl-test/.fl-meta/hostile/%" G_GINT64_MODIFIER "x", lease);

  huge = g_strnfill (100 * 1024, 'x');
  memcpy (huge, "{\"host\":\"", 9);
  for (guint i = 0; i <= G_N_ELEMENTS (values); i++)
    {
      g_autoptr(FlSnapshot) snapshot = NULL;
      g_autofree char *summary = NULL;

      put_raw (meta_key, i < G_N_ELEMENTS (values) ? values[i] : huge, lease);
      snapshot = snapshot_ok (uri);
      g_test_message ("metadata %u: %s", i, fl_snapshot_get_reason (snapshot));
      g_assert_cmpint (fl_snapshot_get_state (snapshot), ==, FL_ENTRY_STATE_HELD);
      g_assert_cmpint (fl_snapshot_get_pid (snapshot), ==, 0);
      g_assert_null (fl_snapshot_get_host (snapshot));
      g_assert_nonnull (strstr (fl_snapshot_get_reason (snapshot), "unknown"));
      g_assert_true (g_utf8_validate (fl_snapshot_get_content (snapshot), -1, NULL));
      g_assert_cmpuint (strlen (fl_snapshot_get_content (snapshot)), <=, 4 * 256);
      summary = fl_snapshot_dup_state_summary (snapshot);
      g_assert_nonnull (summary);
    }

  /* No metadata key at all. */
  {
    g_autofree char *key64 = g_base64_encode ((const guchar *) meta_key, strlen (meta_key));
    g_autofree char *body = g_strdup_printf ("{\"key\":\"%s\"}", key64);
    g_autoptr(JsonObject) res = etcd_server_call (etcd_test_server, "/v3/kv/deleterange", body);
    g_autoptr(FlSnapshot) snapshot = snapshot_ok (uri);

    g_assert_nonnull (res);
    g_assert_cmpint (fl_snapshot_get_pid (snapshot), ==, 0);
    g_assert_nonnull (strstr (fl_snapshot_get_reason (snapshot), "no metadata key"));
  }

  g_assert_true (fl_lock_is_held (lock));
  g_assert_true (fl_lock_release (lock, &error));
  g_assert_no_error (error);
}

typedef struct
{
  const char *uri;
  gint64      ttl;
  FlSnapshot *later;
} Countdown;

/* A read with less than @ttl left, or none at all (the lease ended). */
static gboolean
ttl_below (gpointer data)
{
  Countdown *c = data;

  g_clear_object (&c->later);
  c->later = fl_snapshot_new_for_target (c->uri, NULL, NULL);
  return c->later == NULL || fl_snapshot_get_lease_ttl (c->later) < c->ttl;
}

/* A holder on this machine SIGKILLed: its lease runs on (nothing revokes it), and the snapshot
 * says the holder exited and when the lease expires, counting down, until etcd deletes the
 * key. A record naming another boot is never probed, though its PID is gone here too. */
static void
test_holder_killed (void)
{
  g_autofree char *uri = NULL;
  g_autofree char *expect = NULL;
  g_autofree char *summary = NULL;
  g_autoptr(FlSnapshot) before = NULL;
  g_autoptr(FlSnapshot) after = NULL;
  g_autoptr(GError) error = NULL;
  GSubprocess *holder;
  Countdown countdown;
  int pid;
  gint64 ttl;

  ETCD_TEST_NEED ();
  uri = etcd_server_uri (etcd_test_server, "killed");
  holder = etcd_test_spawn_holder (etcd_test_self_path, uri);
  g_assert_true (etcd_test_wait_queue ("fl-test/killed", 1, fl_test_scaled_ms (20000)));
  pid = etcd_test_child_pid (holder);
  before = snapshot_ok (uri);
  g_assert_cmpint (fl_snapshot_get_pid (before), ==, pid);
  g_assert_false (fl_snapshot_get_holder_exited (before));
  g_assert_nonnull (strstr (fl_snapshot_get_reason (before), "which etcd judges alive"));

  g_subprocess_force_exit (holder);
  g_assert_true (g_subprocess_wait (holder, NULL, &error));
  g_assert_no_error (error);
  g_object_unref (holder);

  after = snapshot_ok (uri);
  g_test_message ("after SIGKILL: %s", fl_snapshot_get_reason (after));
  ttl = fl_snapshot_get_lease_ttl (after);
  g_assert_cmpint (ttl, >, 0);
  g_assert_cmpint (ttl, <=, etcd_test_ttl_s (FL_DEFAULT_LEASE_TTL_S));
  g_assert_cmpint (fl_snapshot_get_state (after), ==, FL_ENTRY_STATE_HELD);
  g_assert_true (fl_snapshot_get_holder_exited (after));
  g_assert_cmpint (fl_snapshot_get_lease_id (after), ==, fl_snapshot_get_lease_id (before));
  expect = g_strdup_printf ("holder exited: PID %d on %s is gone; its lease %llx expires in "
                            "%lld s", pid, g_get_host_name (),
                            (unsigned long long) fl_snapshot_get_lease_id (after),
                            (long long) ttl);
  g_assert_true (g_str_has_prefix (fl_snapshot_get_reason (after), expect));
  summary = fl_snapshot_dup_state_summary (after);
  g_assert_cmpstr (summary, ==, "Held: holder exited");

  /* The countdown: a later read says less time is left (or the key is gone already). */
  countdown = (Countdown) { uri, ttl, NULL };
  g_assert_true (etcd_wait_for (ttl_below, &countdown, (guint) fl_test_scaled_ms (20000)));
  if (countdown.later != NULL)
    g_assert_true (fl_snapshot_get_holder_exited (countdown.later));
  g_clear_object (&countdown.later);
  g_assert_true (etcd_test_wait_queue ("fl-test/killed", 0,
                                       (etcd_test_ttl_s (FL_DEFAULT_LEASE_TTL_S) + 20) * 1000));
  g_assert_cmpuint (count_meta ("fl-test", "killed"), ==, 0);
}

/* The identity record decides, never the host name: one of another boot (or PID namespace)
 * is not probed, whatever its PID is here; one of this machine whose PID runs is alive. */
static void
test_identity_elsewhere (void)
{
  g_autofree char *uri = NULL;
  g_autofree char *meta_key = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(FlLock) lock = NULL;
  g_autoptr(FlSnapshot) first = NULL;
  gint64 lease;
  char *values[3];
  g_autoptr(GSubprocess) gone = NULL;
  int gone_pid;

  ETCD_TEST_NEED ();
  uri = etcd_server_uri (etcd_test_server, "elsewhere");
  lock = fl_lock_acquire (uri, NULL, NULL, &error);
  g_assert_no_error (error);
  first = snapshot_ok (uri);
  g_assert_false (fl_snapshot_get_holder_exited (first));
  gone = g_subprocess_new (G_SUBPROCESS_FLAGS_NONE, &error, "true", NULL);
  g_assert_no_error (error);
  gone_pid = atoi (g_subprocess_get_identifier (gone));
  g_assert_true (g_subprocess_wait_check (gone, NULL, &error));
  g_assert_no_error (error);
  /* A PID that has exited here, with this host's name: the boot id another's, then unknown. */
  values[0] = g_strdup_printf ("{\"host\":\"%s\",\"pid\":%d,\"identity\":\"2 %d 1 "
                               "0123456789abcdef 1 0 1\"}", g_get_host_name (), gone_pid,
                               gone_pid);
  values[1] = g_strdup_printf ("{\"host\":\"%s\",\"pid\":%d,\"identity\":\"2 %d 1 - 1 0 "
                               "1\"}", g_get_host_name (), gone_pid, gone_pid);
  values[2] = g_strdup_printf ("{\"host\":\"%s\",\"pid\":%d,\"identity\":\"not a "
                               "record\"}", g_get_host_name (), gone_pid);
  g_assert_nonnull (strstr (fl_snapshot_get_content (first), "\"identity\":\"2 "));
  lease = fl_snapshot_get_lease_id (first);
  meta_key = g_strdup_printf ("fl-test/.fl-meta/elsewhere/%" G_GINT64_MODIFIER "x", lease);
  for (guint i = 0; i < G_N_ELEMENTS (values); i++)
    {
      g_autofree char *value = values[i];
      g_autoptr(FlSnapshot) snapshot = NULL;

      put_raw (meta_key, value, lease);
      snapshot = snapshot_ok (uri);
      g_test_message ("identity %u: %s", i, fl_snapshot_get_reason (snapshot));
      g_assert_cmpint (fl_snapshot_get_pid (snapshot), ==, gone_pid);
      g_assert_false (fl_snapshot_get_holder_exited (snapshot));
      g_assert_nonnull (strstr (fl_snapshot_get_reason (snapshot), "which etcd judges alive"));
    }
  g_assert_true (fl_lock_release (lock, &error));
  g_assert_no_error (error);
}

int
main (int    argc,
      char **argv)
{
  if (argc == 3 && strcmp (argv[1], "--hold") == 0)
    return etcd_test_hold (argv[2]);

  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/etcd-inspect/holder-and-waiters", test_holder_and_waiters);
  g_test_add_func ("/etcd-inspect/not-locked", test_not_locked);
  g_test_add_func ("/etcd-inspect/reserved-name", test_reserved_name);
  g_test_add_func ("/etcd-inspect/reclaim", test_reclaim);
  g_test_add_func ("/etcd-inspect/reclaim-changed", test_reclaim_changed);
  g_test_add_func ("/etcd-inspect/scan", test_scan);
  g_test_add_func ("/etcd-inspect/scan-bad-root", test_scan_bad_root);
  g_test_add_func ("/etcd-inspect/hostile-metadata", test_hostile_metadata);
  g_test_add_func ("/etcd-inspect/holder-killed", test_holder_killed);
  g_test_add_func ("/etcd-inspect/identity-elsewhere", test_identity_elsewhere);

  return etcd_test_run_with_server (argv[0]);
}
