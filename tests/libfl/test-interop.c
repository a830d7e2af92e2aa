/* test-interop.c: libfl and the original Node module exclude each other
 *
 * The peer is the module itself (@dogfood-lab/findings' lib/file-lock.js, installed by
 * build-aux/install-deps: tests/node-reference), run by tests/helpers/module-driver.mjs: no
 * kernel lock, no identity, a poll every 15 ms, a takeover by rename.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include <libfl/fl.h>

#include <string.h>

#include "fl-test-counter.h"
#include "fl-test-util.h"

#define SECTIONS 300

/* Runs the module's `acquire TARGET MS` and returns its exit code (0 acquired, 2 timeout). */
static int
module_acquire (FlTestDir *fx,
                int        timeout_ms)
{
  g_auto(GStrv) module = fl_test_module_argv ();
  g_autofree char *ms = g_strdup_printf ("%d", timeout_ms);
  const char *argv[] = { module[0], module[1], "acquire", fx->target, ms, NULL };
  g_autoptr(FlTestProc) proc = fl_test_proc_spawn (argv, NULL, FL_TEST_SPAWN_DEFAULT);
  g_autofree char *out = fl_test_proc_read_all (proc, fl_test_deadline_ms (timeout_ms + 30000));

  g_assert_true (fl_test_proc_wait (proc, fl_test_deadline_ms (10000)));
  g_test_message ("the module's acquire: %s", out);
  if (fl_test_proc_exit_code (proc) == 0)
    g_assert_cmpstr (out, ==, "acquired\n");
  else if (fl_test_proc_exit_code (proc) == 2)
    g_assert_cmpstr (out, ==, "timeout\n");
  return fl_test_proc_exit_code (proc);
}

static void
test_count (FlTestDir     *fx,
            gconstpointer  data)
{
  g_autofree char *worker = fl_test_helper_path ("FL_WORKER", "fl-worker");
  g_auto(GStrv) module = fl_test_module_argv ();
  g_autofree char *counter = g_build_filename (fx->dir, "counter", NULL);
  g_autofree char *n = g_strdup_printf ("%d", SECTIONS);
  g_autoptr(GPtrArray) procs = g_ptr_array_new_with_free_func ((GDestroyNotify) fl_test_proc_free);
  gint64 deadline = fl_test_deadline_ms (170000);
  guint total = 8;

  for (guint i = 0; i < total; i++)
    {
      const char *module_argv[] = { module[0], module[1], "count", fx->target, counter, n, NULL };
      const char *worker_argv[] = { worker, "count", fx->target, counter, n, NULL };

      g_ptr_array_add (procs, fl_test_proc_spawn (i % 2 ? module_argv : worker_argv, NULL,
                                                  FL_TEST_SPAWN_DEFAULT));
    }
  /* Odd workers are the module, even ones fl-worker. */
  fl_test_counters_wait (procs, counter, deadline);
  g_assert_cmpint (fl_test_counter_read (counter), ==, (long) total * SECTIONS);
  g_assert_false (fl_test_exists (fx->lock));
  g_assert_cmpuint (fl_test_count_protocol_litter (fx->dir), ==, 0);
}

static void
test_libfl_holds (FlTestDir     *fx,
                  gconstpointer  data)
{
  g_autoptr(FlTestProc) holder = fl_test_spawn_holder (fx->target);

  /* The peer polls for 300 ms and gives up: it never took the lock. */
  g_assert_cmpint (module_acquire (fx, 300), ==, 2);
  g_assert_true (fl_test_kernel_lock_held (fx->lock));

  fl_test_holder_release (holder);
  g_assert_cmpint (module_acquire (fx, 10000), ==, 0);
}

static void
test_module_holds (FlTestDir     *fx,
                 gconstpointer  data)
{
  g_autoptr(FlTestProc) holder = fl_test_spawn_module_holder (fx->target);
  g_autoptr(FlLockOptions) options = fl_lock_options_new ();
  g_autoptr(FlSnapshot) snapshot = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(FlLock) lock = NULL;
  g_autofree char *pid = g_strdup_printf ("%d", (int) holder->pid);

  snapshot = fl_snapshot_new (fx->lock, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpint (fl_snapshot_get_pid (snapshot), ==, holder->pid);
  g_assert_cmpint (fl_snapshot_get_liveness (snapshot), ==, FL_LIVENESS_ALIVE);
  g_assert_cmpint (fl_snapshot_get_kernel_lock (snapshot), ==, FL_KERNEL_LOCK_FREE);
  g_assert_false (fl_snapshot_get_stale (snapshot));

  lock = fl_lock_try_acquire (fx->target, NULL, &error);
  g_assert_null (lock);
  fl_test_assert_error_names (error, FL_ERROR, FL_ERROR_BUSY, fx->lock);
  g_assert_nonnull (strstr (error->message, pid));
  g_clear_error (&error);

  fl_lock_options_set_timeout_ms (options, 300);
  lock = fl_lock_acquire (fx->target, options, NULL, &error);
  g_assert_null (lock);
  fl_test_assert_error_names (error, FL_ERROR, FL_ERROR_TIMEOUT, fx->lock);
  g_assert_nonnull (strstr (error->message, pid));
  g_clear_error (&error);

  /* The peer releases while we wait: the wait ends with the lock. */
  fl_lock_options_set_timeout_ms (options, 30000);
  fl_test_proc_close_stdin (holder);
  lock = fl_lock_acquire (fx->target, options, NULL, &error);
  g_assert_no_error (error);
  g_assert_true (fl_test_proc_wait (holder, fl_test_deadline_ms (10000)));
  g_assert_cmpint (fl_test_proc_exit_code (holder), ==, 0);
  /* The peer's blind unlink happened before we took it: our lock is intact. */
  g_assert_true (fl_test_kernel_lock_held (fx->lock));
  g_assert_true (fl_lock_release (lock, &error));
  g_assert_no_error (error);
}

/* The module's own recovery works on a dead libfl holder's lock... */
static void
test_module_takes_dead_libfl (FlTestDir     *fx,
                            gconstpointer  data)
{
  g_autoptr(FlTestProc) holder = fl_test_spawn_holder (fx->target);

  fl_test_proc_kill (holder);
  g_assert_cmpint (module_acquire (fx, 10000), ==, 0);
  g_assert_false (fl_test_exists (fx->lock));
  g_assert_cmpuint (fl_test_count_protocol_litter (fx->dir), ==, 0);
}

/* ...and libfl's on a dead peer's. */
static void
test_libfl_takes_dead_module (FlTestDir     *fx,
                            gconstpointer  data)
{
  g_autoptr(FlTestProc) holder = fl_test_spawn_module_holder (fx->target);
  g_autoptr(GError) error = NULL;
  g_autoptr(FlLock) lock = NULL;

  fl_test_proc_kill (holder);
  lock = fl_lock_try_acquire (fx->target, NULL, &error);
  g_assert_no_error (error);
  g_assert_true (fl_test_kernel_lock_held (fx->lock));
  g_assert_cmpuint (fl_test_count_protocol_litter (fx->dir), ==, 0);
}

/* Issue 18, part 1: a live holder of the original module, its lock's mtime moved an hour back
 * (`touch -c -d '1 hour ago'`): held, never taken, while it is in its critical section. */
static void
check_mtime_moved_back (FlTestDir  *fx,
                        FlTestProc *holder)
{
  g_autofree char *pid = g_strdup_printf ("%d", (int) holder->pid);
  g_autoptr(FlSnapshot) snapshot = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(FlLock) lock = NULL;
  g_autofree char *content = NULL;

  fl_test_set_mtime_ago (fx->lock, 3600);

  snapshot = fl_snapshot_new (fx->lock, NULL, &error);
  g_assert_no_error (error);
  g_test_message ("%s", fl_snapshot_get_reason (snapshot));
  g_assert_cmpint (fl_snapshot_get_pid (snapshot), ==, holder->pid);
  g_assert_cmpint (fl_snapshot_get_liveness (snapshot), ==, FL_LIVENESS_ALIVE);
  g_assert_false (fl_snapshot_get_stale (snapshot));

  lock = fl_lock_try_acquire (fx->target, NULL, &error);
  g_assert_null (lock);
  fl_test_assert_error_names (error, FL_ERROR, FL_ERROR_BUSY, fx->lock);
  content = fl_test_read (fx->lock, NULL);
  g_assert_cmpstr (content, ==, pid);

  fl_test_proc_close_stdin (holder);
  g_assert_true (fl_test_proc_wait (holder, fl_test_deadline_ms (30000)));
  g_assert_cmpint (fl_test_proc_exit_code (holder), ==, 0);
  g_assert_false (fl_test_exists (fx->lock));
}

static void
test_module_mtime_moved_back (FlTestDir     *fx,
                            gconstpointer  data)
{
  g_autoptr(FlTestProc) holder = fl_test_spawn_module_holder (fx->target);

  check_mtime_moved_back (fx, holder);
}

/* The wine stage has no node: test-interop-portable runs the module's C copy (original-peer)
 * there. */
#ifdef G_OS_WIN32
# define ADD(path, func) \
  G_STMT_START { \
    (void) (func); \
    fl_test_add_skipped ((path), "needs node and the module (tests/node-reference); " \
                                 "test-interop-portable runs its C copy instead"); \
  } G_STMT_END
#else
# define ADD(path, func) FL_TEST_ADD ((path), NULL, (func))
#endif

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);

  ADD ("/libfl/interop/count", test_count);
  ADD ("/libfl/interop/libfl-holds", test_libfl_holds);
  ADD ("/libfl/interop/module-holds", test_module_holds);
  ADD ("/libfl/interop/module-takes-dead-libfl", test_module_takes_dead_libfl);
  ADD ("/libfl/interop/libfl-takes-dead-module", test_libfl_takes_dead_module);
  ADD ("/libfl/interop/module-mtime-moved-back", test_module_mtime_moved_back);

  return g_test_run ();
}
