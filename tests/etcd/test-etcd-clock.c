/* test-etcd-clock.c: an etcd lock's local deadline: across a suspend, and at the release
 * (suite 'etcd')
 *
 * A holder's lease deadline is kept on the boot clock, which counts a system suspend as etcd's
 * clock does; the monotonic clock stops during one (docs/etcd.md, "The clock of that
 * deadline"). A suspend is simulated by wrapping the boot clock (-Wl,--wrap, as
 * tests/helpers/fl-crash-shim.c wraps system calls): it jumps ahead while the monotonic clock
 * and etcd's own clock do not. On the monotonic clock, the holder went on saying it held
 * (issue 30, item 6): here it says so only until the jump, reports the loss, and a keepalive
 * that etcd still answers does not bring the lock back.
 *
 * A lock past its deadline is lost: releasing it says FL_ERROR_LOST at once, whether etcd
 * answers or not (it took 18 s and said FL_ERROR_FAILED with etcd unreachable).
 *
 * ::lost comes on time while libfl's etcd thread is stalled: the wrapped clock parks every
 * thread but the test's own when asked, as a blocked call or a starved thread would; the
 * lock's own context still says the loss when fl_lock_is_held() turns FALSE (issue 30,
 * item 9: the signal came from a timer on the etcd thread only, delayed by the whole stall).
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <libfl/fl.h>

#include "etcd-test-util.h"
#include "fl-test-util.h"

/* How far the boot clock is ahead of the real one: the time "spent suspended". */
static gint suspended_s;

/* While set, any thread but the test's own that reads the clock waits until it is cleared. */
static GMutex stall_mutex;
static GCond stall_cond;
static gboolean stall;
static guint stalled;   /* threads waiting in the clock now */
static GThread *test_thread;

int64_t __real__fl_platform_boottime_now (void);
int64_t __wrap__fl_platform_boottime_now (void);

int64_t
__wrap__fl_platform_boottime_now (void)
{
  if (g_thread_self () != test_thread)
    {
      g_mutex_lock (&stall_mutex);
      stalled++;
      while (stall)
        g_cond_wait (&stall_cond, &stall_mutex);
      stalled--;
      g_mutex_unlock (&stall_mutex);
    }
  return __real__fl_platform_boottime_now () + g_atomic_int_get (&suspended_s) * G_USEC_PER_SEC;
}

static gboolean
some_thread_stalled_cb (gpointer data)
{
  gboolean any;

  g_mutex_lock (&stall_mutex);
  any = stalled > 0;
  g_mutex_unlock (&stall_mutex);
  return any;
}

static void
stall_set (gboolean on)
{
  g_mutex_lock (&stall_mutex);
  stall = on;
  g_cond_broadcast (&stall_cond);
  g_mutex_unlock (&stall_mutex);
}

static void
count_cb (FlLock   *lock,
          gpointer  data)
{
  guint *count = data;

  (*count)++;
}

static gboolean
lost_while_held_cb (gpointer data)
{
  guint *count = data;

  return *count > 0;
}

/* A suspend longer than the lease: not held from the moment of the resume, the loss reported,
 * the release FL_ERROR_LOST, and nothing of the lock left in etcd. */
static void
test_suspend_past_lease (void)
{
  const guint ttl_s = 6;
  g_autofree char *uri = NULL;
  g_autoptr(FlLockOptions) options = NULL;
  g_autoptr(FlLock) lock = NULL;
  g_autoptr(GError) error = NULL;
  gboolean lost = FALSE;

  ETCD_TEST_NEED ();
  uri = etcd_server_uri (etcd_test_server, "suspend");
  options = etcd_test_options (fl_test_scaled_ms (10000), ttl_s);
  lock = etcd_test_acquire_watched (uri, options, &lost);

  g_atomic_int_set (&suspended_s, 5 * ttl_s);
  g_assert_false (fl_lock_is_held (lock));

  /* The report comes from the etcd thread's deadline or its next keepalive (under TTL/3 on the
   * monotonic clock), which etcd still answers: the lease lives there, no real time passed. */
  g_assert_true (etcd_wait_for (etcd_test_is_true, &lost,
                                fl_test_scaled_ms ((ttl_s / 3 + 5) * 1000)));
  g_assert_false (fl_lock_is_held (lock));

  g_assert_false (fl_lock_release (lock, &error));
  g_assert_error (error, FL_ERROR, FL_ERROR_LOST);
  g_assert_true (etcd_test_wait_queue ("fl-test/suspend", 0, fl_test_scaled_ms (10000)));
  g_atomic_int_set (&suspended_s, 0);
}

/* A suspend shorter than the margin loses nothing: the next keepalive moves the deadline on. */
static void
test_short_suspend_keeps (void)
{
  const guint ttl_s = 10;
  g_autofree char *uri = NULL;
  g_autoptr(FlLockOptions) options = NULL;
  g_autoptr(FlLock) lock = NULL;
  g_autoptr(GError) error = NULL;
  gboolean lost = FALSE;

  ETCD_TEST_NEED ();
  uri = etcd_server_uri (etcd_test_server, "short-suspend");
  options = etcd_test_options (fl_test_scaled_ms (10000), ttl_s);
  lock = etcd_test_acquire_watched (uri, options, &lost);

  g_atomic_int_set (&suspended_s, 1);
  g_assert_true (fl_lock_is_held (lock));
  g_assert_true (fl_lock_release (lock, &error));
  g_assert_no_error (error);
  g_assert_false (lost);
  g_atomic_int_set (&suspended_s, 0);
}

/* etcd paused (SIGSTOP) until the holder's deadline passed: the release is FL_ERROR_LOST at
 * once; once etcd answers again, the key is cleaned up behind it. */
static void
test_release_lost_unreachable (void)
{
  const guint ttl_s = 2;  /* trusted for TTL - max (1 s, TTL/5) = 1 s after each keepalive */
  g_autofree char *uri = NULL;
  g_autoptr(FlLockOptions) options = NULL;
  g_autoptr(FlLock) lock = NULL;
  g_autoptr(GError) error = NULL;
  gboolean lost = FALSE;
  gint64 start;

  ETCD_TEST_NEED ();
  uri = etcd_server_uri (etcd_test_server, "release-lost");
  options = etcd_test_options (fl_test_scaled_ms (10000), ttl_s);
  lock = etcd_test_acquire_watched (uri, options, &lost);

  etcd_server_pause (etcd_test_server, TRUE);
  g_assert_true (etcd_wait_for (etcd_test_is_true, &lost, fl_test_scaled_ms (10000)));
  g_assert_false (fl_lock_is_held (lock));

  start = g_get_monotonic_time ();
  g_assert_false (fl_lock_release (lock, &error));
  g_assert_error (error, FL_ERROR, FL_ERROR_LOST);
  g_assert_cmpint (g_get_monotonic_time () - start, <, fl_test_scaled_ms (1000) * 1000);

  etcd_server_pause (etcd_test_server, FALSE);
  g_assert_true (etcd_test_wait_queue ("fl-test/release-lost", 0, fl_test_scaled_ms (15000)));
}

/* The etcd thread parked in the clock past the lease's local deadline: ::lost still comes, on
 * the lock's own context, once fl_lock_is_held() says FALSE, and only once when the etcd
 * thread runs again and reports the same loss. */
static void
test_lost_while_etcd_thread_stalled (void)
{
  const guint ttl_s = 2;  /* trusted for TTL - max (1 s, TTL/5) = 1 s after each keepalive */
  g_autofree char *uri = NULL;
  g_autoptr(FlLockOptions) options = NULL;
  g_autoptr(FlLock) lock = NULL;
  g_autoptr(GError) error = NULL;
  gboolean lost = FALSE;
  guint count = 0;
  gint64 start;

  ETCD_TEST_NEED ();
  uri = etcd_server_uri (etcd_test_server, "stalled-thread");
  options = etcd_test_options (fl_test_scaled_ms (10000), ttl_s);
  lock = etcd_test_acquire_watched (uri, options, &lost);
  g_signal_connect (lock, "lost", G_CALLBACK (count_cb), &count);

  start = g_get_monotonic_time ();
  stall_set (TRUE);
  /* The etcd thread reads the clock at each keepalive (under every TTL/3). */
  g_assert_true (etcd_wait_for (some_thread_stalled_cb, NULL, fl_test_scaled_ms (5000)));
  g_assert_true (etcd_wait_for (lost_while_held_cb, &count,
                                fl_test_scaled_ms ((ttl_s + 2) * 1000)));
  g_assert_false (fl_lock_is_held (lock));
  g_assert_cmpint (g_get_monotonic_time () - start, <, fl_test_scaled_ms ((ttl_s + 2) * 1000) * 1000);
  g_assert_true (some_thread_stalled_cb (NULL));  /* the signal did not wait for the thread */

  stall_set (FALSE);
  g_assert_false (fl_lock_release (lock, &error));
  g_assert_error (error, FL_ERROR, FL_ERROR_LOST);
  g_assert_true (etcd_test_wait_queue ("fl-test/stalled-thread", 0, fl_test_scaled_ms (15000)));
  /* Whatever the etcd thread reported after it ran again: one signal in all. */
  while (g_main_context_iteration (NULL, FALSE))
    ;
  g_assert_cmpuint (count, ==, 1);
}

int
main (int    argc,
      char **argv)
{
  g_test_init (&argc, &argv, NULL);
  test_thread = g_thread_self ();
  g_test_add_func ("/etcd-clock/suspend-past-lease", test_suspend_past_lease);
  g_test_add_func ("/etcd-clock/short-suspend-keeps", test_short_suspend_keeps);
  g_test_add_func ("/etcd-clock/release-lost-unreachable", test_release_lost_unreachable);
  g_test_add_func ("/etcd-clock/lost-while-etcd-thread-stalled",
                   test_lost_while_etcd_thread_stalled);
  return etcd_test_run_with_server (argv[0]);
}
