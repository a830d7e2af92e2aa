/* test-wait.c: waiting for a lock: timeout, cancellation, wake-up, the async API
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include <libfl/fl.h>

#include <string.h>
#include <unistd.h>
#ifdef __linux__
#include <signal.h>
#include <sys/wait.h>
#endif

#include "fl-format-private.h"
#include "protocol/fl-judge-private.h"
#include "protocol/fl-lock-private.h"
#include "fl-test-util.h"
#include "support/fl-waiter-private.h"

static FlLockOptions *
options_with_timeout (gint64 timeout_ms)
{
  FlLockOptions *options = fl_lock_options_new ();

  fl_lock_options_set_timeout_ms (options, timeout_ms);
  return options;
}

/* The waiter gave up and left the holder's lock as it was: its file, its PID, its kernel lock. */
static void
assert_held_by (FlTestDir  *fx,
                FlTestProc *holder)
{
  g_autofree char *content = NULL;
  g_autofree char *pid = g_strdup_printf ("%d", (int) holder->pid);

  content = fl_test_read (fx->lock, NULL);
  g_assert_cmpstr (content, ==, pid);
  g_assert_true (fl_test_kernel_lock_held (fx->lock));
}

/* The timeout error is the Node module's ELOCKTIMEOUT: it names the holder's PID and how old the
 * lock is, and it comes after the timeout, not long after. */
static void
test_timeout (FlTestDir     *fx,
              gconstpointer  data)
{
  g_autoptr(FlTestProc) holder = fl_test_spawn_holder (fx->target);
  g_autoptr(FlLockOptions) options = options_with_timeout (300);
  g_autoptr(GError) error = NULL;
  g_autoptr(FlLock) lock = NULL;
  g_autoptr(FlSnapshot) snapshot = NULL;
  g_autofree char *pid = g_strdup_printf ("PID %d", (int) holder->pid);
  g_autofree char *age = NULL;
  gint64 start, elapsed_ms;

  /* Two hours and a bit: "2 h" stays "2 h" for the whole test. The holder is alive by its
   * kernel lock, so the age changes nothing about the verdict. */
  fl_test_set_mtime_ago (fx->lock, 2 * 3600 + 600);
  snapshot = fl_snapshot_new_for_target (fx->target, NULL, &error);
  g_assert_no_error (error);
  age = _fl_format_age (fl_snapshot_get_age (snapshot));
  g_assert_cmpstr (age, ==, "2 h");

  start = g_get_monotonic_time ();
  lock = fl_lock_acquire (fx->target, options, NULL, &error);
  elapsed_ms = (g_get_monotonic_time () - start) / 1000;
  g_assert_null (lock);
  fl_test_assert_error_names (error, FL_ERROR, FL_ERROR_TIMEOUT, fx->lock);
  g_test_message ("%s (after %" G_GINT64_FORMAT " ms)", error->message, elapsed_ms);
  g_assert_nonnull (strstr (error->message, pid));
  g_assert_nonnull (strstr (error->message, age));
  g_assert_null (strstr (error->message, "after 0 s"));  /* a short wait is said in ms */
  g_assert_nonnull (strstr (error->message, " ms waiting for"));
  g_assert_cmpint (elapsed_ms, >=, 290);
  g_assert_cmpint (elapsed_ms, <, 10000);

  /* The holder still holds, untouched. */
  assert_held_by (fx, holder);
}

/* A timeout of 0 means one attempt: the same as try-acquire. */
static void
test_timeout_zero (FlTestDir     *fx,
                   gconstpointer  data)
{
  g_autoptr(FlTestProc) holder = fl_test_spawn_holder (fx->target);
  g_autoptr(FlLockOptions) options = options_with_timeout (0);
  g_autoptr(GError) error = NULL;
  g_autoptr(FlLock) lock = fl_lock_acquire (fx->target, options, NULL, &error);

  g_assert_null (lock);
  g_assert_true (g_error_matches (error, FL_ERROR, FL_ERROR_BUSY) ||
                 g_error_matches (error, FL_ERROR, FL_ERROR_TIMEOUT));
  g_assert_nonnull (strstr (error->message, fx->lock));
  assert_held_by (fx, holder);
}

/* A waiter wakes when the holder releases: long before its own timeout. */
static void
test_wake_on_release (FlTestDir     *fx,
                      gconstpointer  data)
{
  g_autoptr(FlTestProc) holder = fl_test_spawn_holder (fx->target);
  g_autoptr(FlLockOptions) options = options_with_timeout (60000);
  g_autoptr(GError) error = NULL;
  g_autoptr(FlLock) lock = NULL;
  gint64 start;

  /* Nothing waits on this: the holder lets go whenever its stdin closes, before or during our
   * wait, and either way the lock must come to us. */
  fl_test_proc_close_stdin (holder);
  start = g_get_monotonic_time ();
  lock = fl_lock_acquire (fx->target, options, NULL, &error);
  g_assert_no_error (error);
  g_assert_true (fl_lock_is_held (lock));
  g_test_message ("acquired %" G_GINT64_FORMAT " ms after the release was asked for",
                  (g_get_monotonic_time () - start) / 1000);
  g_assert_cmpint (g_get_monotonic_time () - start, <, 30 * G_USEC_PER_SEC);
  g_assert_true (fl_test_proc_wait (holder, fl_test_deadline_ms (10000)));
  g_assert_cmpint (fl_test_proc_exit_code (holder), ==, 0);
}

/* The wake-up is the release's own event, not a re-check that happened to come after it: with
 * re-checks a minute apart, the waiter that was asleep when the holder let go got the lock by
 * an event, and re-checked never. A waiter that polls (as the original module does, every
 * 15 ms) fails here however fast it is. */
typedef struct
{
  const char    *target;
  FlLockOptions *options;
  FlLock        *lock;
  GError        *error;
  int            deferred;  /* what its wait left for the thread's next one */
  gint           done;
} Acquirer;

static gpointer
acquirer_thread (gpointer user_data)
{
  Acquirer *a = user_data;

  a->lock = fl_lock_acquire (a->target, a->options, NULL, &a->error);
  a->deferred = _fl_platform_watch_deferred ();
  g_atomic_int_set (&a->done, 1);
  return NULL;
}

static guint waits_before;

#ifdef __linux__
static int
pidfds_work (void)
{
  FlHandle h;

  if (_fl_platform_process_watch (_fl_platform_self_pid (), &h) != 0)
    return 0;
  _fl_platform_close (h);
  return 1;
}
#endif

static gboolean
waiting_cb (gpointer user_data)
{
  FlWaiterCounts counts;

  _fl_waiter_get_counts (&counts);
  return counts.waits > waits_before;
}

static gboolean
acquired_cb_done (gpointer user_data)
{
  Acquirer *a = user_data;

  return g_atomic_int_get (&a->done) == 1;
}

static void
test_wake_by_event (FlTestDir     *fx,
                    gconstpointer  data)
{
  g_autoptr(FlTestProc) holder = fl_test_spawn_holder (fx->target);
  g_autoptr(FlLockOptions) options = options_with_timeout (120000);
  FlWaiterCounts before, after;
  Acquirer a = { fx->target, options, NULL, NULL, 0, 0 };
  GThread *thread;

  fl_lock_options_set_backoff_ms (options, 60000, 60000);
  _fl_waiter_get_counts (&before);
  waits_before = before.waits;

  thread = g_thread_new ("acquirer", acquirer_thread, &a);
  /* Asleep in its wait: from here only an event or a re-check a minute away can wake it. */
  g_assert_true (fl_test_wait_until (waiting_cb, NULL, 30000));
  fl_test_holder_release (holder);
  g_assert_true (fl_test_wait_until (acquired_cb_done, &a, 30000));
  g_thread_join (thread);

  g_assert_no_error (a.error);
  g_assert_true (fl_lock_is_held (a.lock));
  _fl_waiter_get_counts (&after);
  g_test_message ("waits %u, events %u, re-checks %u", after.waits - before.waits,
                  after.events - before.events, after.rechecks - before.rechecks);
  g_assert_cmpuint (after.unwatched, ==, before.unwatched);
  g_assert_cmpuint (after.rechecks, ==, before.rechecks);
  g_assert_cmpuint (after.events, >, before.events);
  /* Woken, it returned without reading the queue empty or closing the holder's pidfd (where
   * there is one: not under valgrind, which lacks pidfd_open): the thread's next wait does
   * that (docs/performance.md, "Handoff"). The Win32 platform file defers nothing. */
#ifdef __linux__
  g_assert_cmpint (a.deferred, ==, 1 + pidfds_work ());
#else
  g_assert_cmpint (a.deferred, ==, 0);
#endif
  g_object_unref (a.lock);
}

/* The waiter has directory events here (inotify on Linux): it never falls back to backoff. */
static void
test_waiter_has_events (FlTestDir     *fx,
                        gconstpointer  data)
{
  FlDir *dir = NULL;
  FlWaiter *waiter;

  g_assert_cmpint (_fl_platform_dir_open (fx->dir, FALSE, &dir), ==, 0);
  waiter = _fl_waiter_new (dir, "x.lock", 1000, 1000000);
  g_assert_true (_fl_waiter_has_events (waiter));
  _fl_waiter_free (waiter);
  _fl_platform_dir_close (dir);
}

/* A waiter wakes when the holder dies (its pidfd, or the kernel lock gone): long before its own
 * timeout. */
static void
test_wake_on_death (FlTestDir     *fx,
                    gconstpointer  data)
{
  g_autoptr(FlTestProc) holder = fl_test_spawn_holder (fx->target);
  g_autoptr(FlLockOptions) options = options_with_timeout (60000);
  g_autoptr(GError) error = NULL;
  g_autoptr(FlLock) lock = NULL;

  fl_test_proc_kill (holder);
  lock = fl_lock_acquire (fx->target, options, NULL, &error);
  g_assert_no_error (error);
  g_assert_true (fl_lock_is_held (lock));
  g_assert_cmpuint (fl_test_count_protocol_litter (fx->dir), ==, 0);
}

#ifdef __linux__
/* Starts an acquirer of @target in a thread, with a deadline of 20 s and re-checks a minute
 * apart, and returns once it is asleep in its wait; finish_acquirer() checks that events
 * alone got it the lock. */
static GThread *
start_acquirer (Acquirer       *a,
                const char     *target,
                FlWaiterCounts *before)
{
  GThread *thread;

  a->target = target;
  a->options = options_with_timeout (20000);
  fl_lock_options_set_backoff_ms (a->options, 60000, 60000);
  _fl_waiter_get_counts (before);
  waits_before = before->waits;
  thread = g_thread_new ("acquirer", acquirer_thread, a);
  g_assert_true (fl_test_wait_until (waiting_cb, NULL, 30000));
  return thread;
}

static void
finish_acquirer (Acquirer             *a,
                 GThread              *thread,
                 const FlWaiterCounts *before)
{
  FlWaiterCounts after;

  g_assert_true (fl_test_wait_until (acquired_cb_done, a, 30000));
  g_thread_join (thread);
  g_assert_no_error (a->error);
  g_assert_true (fl_lock_is_held (a->lock));
  _fl_waiter_get_counts (&after);
  g_test_message ("waits %u, events %u, re-checks %u", after.waits - before->waits,
                  after.events - before->events, after.rechecks - before->rechecks);
  g_assert_cmpuint (after.rechecks, ==, before->rechecks);
  fl_lock_options_free (a->options);
}
/* A holder that forked and exited, leaving its lock's descriptor (and so its kernel lock) to
 * a child: no PID that a waiter can watch is left, only the kernel lock. The waiter wakes when
 * that child closes it, not at a re-check: with re-checks a minute apart and a deadline of
 * 20 s, only the close's own event can get it the lock in time. */
static void
test_wake_on_inherited_close (FlTestDir     *fx,
                              gconstpointer  data)
{
  Acquirer a = { 0 };
  FlWaiterCounts before;
  int ready[2], hold[2];
  GThread *thread;
  gint64 closed_at;
  pid_t holder;
  char c;

  g_assert_cmpint (pipe (ready), ==, 0);
  g_assert_cmpint (pipe (hold), ==, 0);
  holder = fork ();
  g_assert_cmpint (holder, >=, 0);
  if (holder == 0)
    {
      FlLock *lock = fl_lock_acquire (fx->target, NULL, NULL, NULL);

      close (hold[1]);
      if (lock == NULL)
        _exit (1);
      if (fork () == 0)
        {
          /* The child keeps the descriptor until the test closes the pipe. */
          close (ready[1]);
          while (read (hold[0], &c, 1) > 0)
            ;
          _exit (0);
        }
      if (write (ready[1], "r", 1) != 1)
        _exit (1);
      _exit (0);  /* without releasing */
    }
  close (ready[1]);
  close (hold[0]);
  g_assert_cmpint (read (ready[0], &c, 1), ==, 1);
  g_assert_cmpint (waitpid (holder, NULL, 0), ==, holder);
  close (ready[0]);
  g_assert_true (fl_test_kernel_lock_held (fx->lock));

  thread = start_acquirer (&a, fx->target, &before);
  closed_at = g_get_monotonic_time ();
  close (hold[1]);
  finish_acquirer (&a, thread, &before);
  g_test_message ("acquired %" G_GINT64_FORMAT " us after the close",
                  g_get_monotonic_time () - closed_at);
  g_object_unref (a.lock);
}

/* A holder SIGKILLed and left unreaped by its parent: a zombie, whose PID still answers
 * kill(pid, 0). It can release nothing (its descriptors, and so its kernel lock, went at
 * exit), so the waiter takes the lock over while it is still a zombie, woken by events. */
static void
test_zombie_holder (FlTestDir     *fx,
                    gconstpointer  data)
{
  Acquirer a = { 0 };
  FlWaiterCounts before;
  siginfo_t info = { 0 };
  int ready[2];
  GThread *thread;
  pid_t holder;
  char c;

  g_assert_cmpint (pipe (ready), ==, 0);
  holder = fork ();
  g_assert_cmpint (holder, >=, 0);
  if (holder == 0)
    {
      FlLock *lock = fl_lock_acquire (fx->target, NULL, NULL, NULL);

      if (lock == NULL || write (ready[1], "r", 1) != 1)
        _exit (1);
      for (;;)
        pause ();
    }
  close (ready[1]);
  g_assert_cmpint (read (ready[0], &c, 1), ==, 1);
  close (ready[0]);

  thread = start_acquirer (&a, fx->target, &before);
  g_assert_cmpint (kill (holder, SIGKILL), ==, 0);
  finish_acquirer (&a, thread, &before);

  /* Still a zombie: exited, not reaped. */
  g_assert_cmpint (waitid (P_PID, holder, &info, WEXITED | WNOWAIT), ==, 0);
  g_assert_cmpint (kill (holder, 0), ==, 0);
  g_assert_cmpint (waitpid (holder, NULL, 0), ==, holder);
  g_object_unref (a.lock);
}
#endif

typedef struct
{
  GMutex        mutex;
  GCond         cond;
  gboolean      done;
  GCancellable *cancellable;
  gint64        after_us;
} Canceller;

/* Cancels after a while unless told to stop. The delay is not synchronisation: whether the
 * cancel lands before or during the wait, the acquire must fail with CANCELLED. */
static gpointer
canceller_thread (gpointer user_data)
{
  Canceller *c = user_data;
  gint64 until = g_get_monotonic_time () + c->after_us;

  g_mutex_lock (&c->mutex);
  while (!c->done)
    if (!g_cond_wait_until (&c->cond, &c->mutex, until))
      break;
  g_mutex_unlock (&c->mutex);
  g_cancellable_cancel (c->cancellable);
  return NULL;
}

static void
test_cancel_from_thread (FlTestDir     *fx,
                         gconstpointer  data)
{
  g_autoptr(FlTestProc) holder = fl_test_spawn_holder (fx->target);
  g_autoptr(FlLockOptions) options = options_with_timeout (60000);
  g_autoptr(GCancellable) cancellable = g_cancellable_new ();
  g_autoptr(GError) error = NULL;
  g_autoptr(FlLock) lock = NULL;
  Canceller c = { .cancellable = cancellable, .after_us = 100 * 1000 };
  GThread *thread;
  gint64 start = g_get_monotonic_time ();

  g_mutex_init (&c.mutex);
  g_cond_init (&c.cond);
  thread = g_thread_new ("canceller", canceller_thread, &c);
  lock = fl_lock_acquire (fx->target, options, cancellable, &error);
  g_assert_null (lock);
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_CANCELLED);
  g_assert_cmpint (g_get_monotonic_time () - start, <, 30 * G_USEC_PER_SEC);
  g_thread_join (thread);
  g_mutex_clear (&c.mutex);
  g_cond_clear (&c.cond);
  assert_held_by (fx, holder);
}

static void
test_cancel_before (FlTestDir     *fx,
                    gconstpointer  data)
{
  g_autoptr(FlTestProc) holder = fl_test_spawn_holder (fx->target);
  g_autoptr(GCancellable) cancellable = g_cancellable_new ();
  g_autoptr(GError) error = NULL;
  g_autoptr(FlLock) lock = NULL;

  g_cancellable_cancel (cancellable);
  lock = fl_lock_acquire (fx->target, NULL, cancellable, &error);
  g_assert_null (lock);
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_CANCELLED);
  g_assert_cmpuint (fl_test_count_protocol_litter (fx->dir), ==, 0);
  assert_held_by (fx, holder);
}

typedef struct
{
  FlLock  *lock;
  GError  *error;
  gboolean done;
  guint    ticks;
  guint    ticks_at_release;
  FlTestProc *holder;
} AsyncData;

static void
acquired_cb (GObject      *source,
             GAsyncResult *result,
             gpointer      user_data)
{
  AsyncData *data = user_data;

  g_assert_null (source);
  data->lock = fl_lock_acquire_finish (result, &data->error);
  data->done = TRUE;
}

/* Counts main loop iterations while the acquire waits: the wait must not block the loop. After
 * a few ticks, the holder is told to let go. */
static gboolean
tick_cb (gpointer user_data)
{
  AsyncData *data = user_data;

  data->ticks++;
  if (data->ticks == 3 && data->holder != NULL)
    {
      data->ticks_at_release = data->ticks;
      fl_test_proc_close_stdin (data->holder);
    }
  return G_SOURCE_CONTINUE;
}

static void
iterate_until_done (AsyncData *data,
                    gint64     timeout_ms)
{
  gint64 deadline = fl_test_deadline_ms (timeout_ms);

  while (!data->done && g_get_monotonic_time () < deadline)
    g_main_context_iteration (NULL, TRUE);
  g_assert_true (data->done);
}

static void
test_async (FlTestDir     *fx,
            gconstpointer  user_data)
{
  g_autoptr(FlTestProc) holder = fl_test_spawn_holder (fx->target);
  g_autoptr(FlLockOptions) options = options_with_timeout (60000);
  AsyncData data = { .holder = holder };
  g_autofree char *content = NULL;
  g_autofree char *pid = g_strdup_printf ("%d", (int) getpid ());
  guint tick;
  gsize len;

  tick = g_timeout_add (10, tick_cb, &data);
  fl_lock_acquire_async (fx->target, options, NULL, acquired_cb, &data);
  g_assert_false (data.done);
  iterate_until_done (&data, 30000);
  g_source_remove (tick);

  g_assert_no_error (data.error);
  g_assert_nonnull (data.lock);
  g_assert_cmpuint (data.ticks_at_release, ==, 3);
  g_assert_cmpuint (data.ticks, >=, 3);
  content = fl_test_read (fx->lock, &len);
  g_assert_cmpmem (content, len, pid, strlen (pid));
  g_assert_true (fl_test_kernel_lock_held (fx->lock));
  g_assert_true (fl_lock_release (data.lock, &data.error));
  g_assert_no_error (data.error);
  g_object_unref (data.lock);
}

static gboolean
cancel_cb (gpointer user_data)
{
  g_cancellable_cancel (user_data);
  return G_SOURCE_REMOVE;
}

static void
test_async_cancel (FlTestDir     *fx,
                   gconstpointer  user_data)
{
  g_autoptr(FlTestProc) holder = fl_test_spawn_holder (fx->target);
  g_autoptr(FlLockOptions) options = options_with_timeout (60000);
  g_autoptr(GCancellable) cancellable = g_cancellable_new ();
  AsyncData data = { 0 };

  g_timeout_add (50, cancel_cb, cancellable);
  fl_lock_acquire_async (fx->target, options, cancellable, acquired_cb, &data);
  iterate_until_done (&data, 30000);
  g_assert_null (data.lock);
  g_assert_error (data.error, G_IO_ERROR, G_IO_ERROR_CANCELLED);
  g_clear_error (&data.error);
  assert_held_by (fx, holder);
}

static void
test_async_timeout (FlTestDir     *fx,
                    gconstpointer  user_data)
{
  g_autoptr(FlTestProc) holder = fl_test_spawn_holder (fx->target);
  g_autoptr(FlLockOptions) options = options_with_timeout (100);
  AsyncData data = { 0 };

  fl_lock_acquire_async (fx->target, options, NULL, acquired_cb, &data);
  iterate_until_done (&data, 30000);
  g_assert_null (data.lock);
  fl_test_assert_error_names (data.error, FL_ERROR, FL_ERROR_TIMEOUT, fx->lock);
  g_clear_error (&data.error);
  assert_held_by (fx, holder);
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);

  FL_TEST_ADD ("/libfl/wait/timeout", NULL, test_timeout);
  FL_TEST_ADD ("/libfl/wait/timeout-zero", NULL, test_timeout_zero);
  FL_TEST_ADD ("/libfl/wait/wake-on-release", NULL, test_wake_on_release);
  FL_TEST_ADD ("/libfl/wait/wake-by-event", NULL, test_wake_by_event);
  FL_TEST_ADD ("/libfl/wait/waiter-has-events", NULL, test_waiter_has_events);
  FL_TEST_ADD ("/libfl/wait/wake-on-death", NULL, test_wake_on_death);
  FL_TEST_ADD_LINUX ("/libfl/wait/wake-on-inherited-close", NULL, test_wake_on_inherited_close,
                     "fork(): a holder whose child keeps its descriptor");
  FL_TEST_ADD_LINUX ("/libfl/wait/zombie-holder", NULL, test_zombie_holder,
                     "fork() and a zombie left unreaped");
  FL_TEST_ADD ("/libfl/wait/cancel-from-thread", NULL, test_cancel_from_thread);
  FL_TEST_ADD ("/libfl/wait/cancel-before", NULL, test_cancel_before);
  FL_TEST_ADD ("/libfl/wait/async", NULL, test_async);
  FL_TEST_ADD ("/libfl/wait/async-cancel", NULL, test_async_cancel);
  FL_TEST_ADD ("/libfl/wait/async-timeout", NULL, test_async_timeout);

  return g_test_run ();
}
