/* test-held-by-self.c: a lock this process holds, asked for again: refused at once
 *
 * A lock is not re-entrant (protocol/fl-held.c says why). The same thread or another one, the
 * same spelling of the target or another, waiting or not: FL_ERROR_HELD_BY_SELF, never a wait
 * for itself; a forked child is another process and is told BUSY as any other.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include <string.h>
#include <unistd.h>

#include <libfl/fl.h>

#include "fl-test-util.h"

/* A timeout long enough that a wait for itself would fail the test by the error's code. */
static FlLockOptions *
long_timeout (void)
{
  FlLockOptions *options = fl_lock_options_new ();

  fl_lock_options_set_timeout_ms (options, fl_test_scaled_ms (60000));
  return options;
}

static void
assert_held_by_self (GError     *error,
                     const char *words)
{
  g_autofree char *pid = g_strdup_printf ("PID %d", (int) getpid ());

  g_assert_error (error, FL_ERROR, FL_ERROR_HELD_BY_SELF);
  g_assert_nonnull (strstr (error->message, words));
  g_assert_nonnull (strstr (error->message, pid));
}

static void
test_same_thread (FlTestDir     *fx,
                  gconstpointer  data)
{
  g_autoptr(FlLockOptions) options = long_timeout ();
  g_autoptr(GError) error = NULL;
  g_autoptr(FlLock) lock = fl_lock_acquire (fx->target, options, NULL, &error);
  g_autoptr(FlLock) again = NULL;
  g_autoptr(FlLock) other_spelling = NULL;
  g_autofree char *dotted = g_build_filename (fx->dir, ".", "target", NULL);

  g_assert_no_error (error);
  again = fl_lock_acquire (fx->target, options, NULL, &error);
  g_assert_null (again);
  assert_held_by_self (error, "already held by this process");
  g_assert_nonnull (strstr (error->message, fx->lock));
  g_clear_error (&error);

  other_spelling = fl_lock_try_acquire (dotted, NULL, &error);
  g_assert_null (other_spelling);
  assert_held_by_self (error, "already held by this process");
  g_clear_error (&error);

  /* Refused, not judged: the lock is still held, and still this one's. */
  g_assert_true (fl_lock_is_held (lock));
  g_assert_true (fl_is_locked (fx->target, NULL, NULL));
  g_assert_true (fl_lock_release (lock, &error));
  g_assert_no_error (error);
  g_assert_false (fl_test_exists (fx->lock));
}

static void
test_after_release_and_unref (FlTestDir     *fx,
                              gconstpointer  data)
{
  g_autoptr(GError) error = NULL;
  FlLock *lock = fl_lock_acquire (fx->target, NULL, NULL, &error);

  g_assert_no_error (error);
  g_assert_true (fl_lock_release (lock, &error));
  g_object_unref (lock);

  lock = fl_lock_try_acquire (fx->target, NULL, &error);
  g_assert_no_error (error);
  g_object_unref (lock);  /* releases, and gives up the claim */
  g_assert_false (fl_test_exists (fx->lock));

  lock = fl_lock_try_acquire (fx->target, NULL, &error);
  g_assert_no_error (error);
  g_assert_true (fl_lock_is_held (lock));
  g_object_unref (lock);
}

/* A refusal leaves the holder's claim as it was: the acquire that failed was not the holder. */
static void
test_refusal_keeps_holder (FlTestDir     *fx,
                          gconstpointer  data)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(FlLock) lock = fl_lock_acquire (fx->target, NULL, NULL, &error);
  FlLock *again;

  g_assert_no_error (error);
  again = fl_lock_try_acquire (fx->target, NULL, &error);
  g_assert_null (again);
  g_clear_error (&error);
  again = fl_lock_try_acquire (fx->target, NULL, &error);
  assert_held_by_self (error, "already held");
  g_clear_error (&error);
  g_assert_true (fl_lock_release (lock, &error));
  again = fl_lock_try_acquire (fx->target, NULL, &error);
  g_assert_no_error (error);
  g_object_unref (again);
}

static gpointer
acquire_thread (gpointer data)
{
  g_autoptr(FlLockOptions) options = long_timeout ();
  FlLock *lock;
  GError *error = NULL;

  lock = fl_lock_acquire (data, options, NULL, &error);
  g_assert_null (lock);
  return error;
}

static void
test_other_thread (FlTestDir     *fx,
                   gconstpointer  data)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(FlLock) lock = fl_lock_acquire (fx->target, NULL, NULL, &error);
  GError *thread_error;

  g_assert_no_error (error);
  thread_error = g_thread_join (g_thread_new ("second", acquire_thread, fx->target));
  assert_held_by_self (thread_error, "already held by this process");
  g_error_free (thread_error);
  g_assert_true (fl_lock_is_held (lock));
}

typedef struct
{
  const char *target;
  FlLock     *lock;
  GError     *error;
} Waiter;

/* Asks again while refused: the main thread's probes are claims too, for an instant. */
static gpointer
waiting_thread (gpointer data)
{
  Waiter *w = data;
  g_autoptr(FlLockOptions) options = long_timeout ();

  do
    {
      g_clear_error (&w->error);
      w->lock = fl_lock_acquire (w->target, options, NULL, &w->error);
    }
  while (g_error_matches (w->error, FL_ERROR, FL_ERROR_HELD_BY_SELF));
  return NULL;
}

static gboolean
refused_while_acquiring (gpointer data)
{
  Waiter *w = data;
  g_autoptr(GError) error = NULL;
  FlLock *lock = fl_lock_try_acquire (w->target, NULL, &error);

  g_assert_null (lock);  /* another process holds it: BUSY until the thread claims it */
  if (g_error_matches (error, FL_ERROR, FL_ERROR_BUSY))
    return FALSE;
  assert_held_by_self (error, "being acquired by another thread of this process");
  return TRUE;
}

/* One thread waits for another process's lock; a second asker in this process is refused then
 * too, and the waiter still gets the lock once the other process lets go. */
static void
test_thread_acquiring (FlTestDir     *fx,
                       gconstpointer  data)
{
  g_autoptr(FlTestProc) holder = fl_test_spawn_holder (fx->target);
  Waiter w = { fx->target, NULL, NULL };
  GThread *thread = g_thread_new ("waiter", waiting_thread, &w);

  g_assert_true (fl_test_wait_until (refused_while_acquiring, &w, 30000));
  fl_test_holder_release (holder);
  g_thread_join (thread);
  g_assert_no_error (w.error);
  g_assert_true (fl_lock_is_held (w.lock));
  g_object_unref (w.lock);
}

#ifdef __linux__
/* A forked child is another process: BUSY naming its parent, never HELD_BY_SELF. */
static int
child_try_acquire (gpointer data)
{
  FlTestDir *fx = data;
  g_autofree char *parent = g_strdup_printf ("PID %d", (int) getppid ());
  g_autoptr(GError) error = NULL;
  g_autoptr(FlLock) mine = fl_lock_try_acquire (fx->target, NULL, &error);

  /* Everything freed before the child exits: under valgrind a leak is its exit status. */
  return mine == NULL && g_error_matches (error, FL_ERROR, FL_ERROR_BUSY) &&
         strstr (error->message, parent) != NULL ? 0 : 1;
}

static void
test_forked_child (FlTestDir     *fx,
                   gconstpointer  data)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(FlLock) lock = fl_lock_acquire (fx->target, NULL, NULL, &error);

  g_assert_no_error (error);
  fl_test_assert_child_ok (child_try_acquire, fx);
  g_assert_true (fl_lock_release (lock, &error));
}
#endif

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);

  FL_TEST_ADD ("/libfl/held-by-self/same-thread", NULL, test_same_thread);
  FL_TEST_ADD ("/libfl/held-by-self/after-release-and-unref", NULL, test_after_release_and_unref);
  FL_TEST_ADD ("/libfl/held-by-self/refusal-keeps-holder", NULL, test_refusal_keeps_holder);
  FL_TEST_ADD ("/libfl/held-by-self/other-thread", NULL, test_other_thread);
  FL_TEST_ADD ("/libfl/held-by-self/thread-acquiring", NULL, test_thread_acquiring);
  FL_TEST_ADD_LINUX ("/libfl/held-by-self/forked-child", NULL, test_forked_child, "fork()");

  return g_test_run ();
}
