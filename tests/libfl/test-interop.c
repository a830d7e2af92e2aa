/* test-interop.c: libfl and the original Node module's protocol exclude each other
 *
 * The peer is tests/helpers/original-peer, a faithful C copy of the module's algorithm: no
 * kernel lock, no identity, a poll every 15 ms, a takeover by rename; where node is installed,
 * tests/helpers/original-module.js, the module in Node, too.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include <libfl/fl.h>

#include <signal.h>
#include <string.h>

#include "fl-test-counter.h"
#include "fl-test-util.h"

#define SECTIONS 300

/* Runs `original-peer acquire TARGET MS` and returns its exit code (0 acquired, 2 timeout). */
static int
peer_acquire (FlTestDir *fx,
              int        timeout_ms)
{
  g_autofree char *peer = fl_test_helper_path ("FL_ORIGINAL_PEER", "original-peer");
  g_autofree char *ms = g_strdup_printf ("%d", timeout_ms);
  const char *argv[] = { peer, "acquire", fx->target, ms, NULL };
  g_autoptr(FlTestProc) proc = fl_test_proc_spawn (argv, NULL, FL_TEST_SPAWN_DEFAULT);
  g_autofree char *out = fl_test_proc_read_all (proc, fl_test_deadline_ms (timeout_ms + 10000));

  g_assert_true (fl_test_proc_wait (proc, fl_test_deadline_ms (10000)));
  g_test_message ("original-peer acquire: %s", out);
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
  g_autofree char *peer = fl_test_helper_path ("FL_ORIGINAL_PEER", "original-peer");
  g_autofree char *counter = g_build_filename (fx->dir, "counter", NULL);
  g_autofree char *n = g_strdup_printf ("%d", SECTIONS);
  g_autoptr(GPtrArray) procs = g_ptr_array_new_with_free_func ((GDestroyNotify) fl_test_proc_free);
  gint64 deadline = fl_test_deadline_ms (170000);
  guint total = 8;

  for (guint i = 0; i < total; i++)
    {
      const char *argv[] = { i % 2 ? peer : worker, "count", fx->target, counter, n, NULL };

      g_ptr_array_add (procs, fl_test_proc_spawn (argv, NULL, FL_TEST_SPAWN_DEFAULT));
    }
  for (guint done = 0; done < total; done++)
    {
      int i = fl_test_proc_wait_any (procs, deadline);
      FlTestProc *proc;

      if (i < 0)
        g_error ("workers still running at the deadline; counter at %ld",
                 fl_test_counter_read (counter));
      proc = g_ptr_array_index (procs, i);
      if (fl_test_proc_exit_code (proc) == FL_TEST_EXIT_OVERLAP)
        g_error ("%s %d found another holder inside the critical section",
                 i % 2 ? "original-peer" : "fl-worker", (int) proc->pid);
      g_assert_cmpint (fl_test_proc_exit_code (proc), ==, 0);
    }
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
  g_assert_cmpint (peer_acquire (fx, 300), ==, 2);
  g_assert_true (fl_test_kernel_lock_held (fx->lock));

  fl_test_holder_release (holder);
  g_assert_cmpint (peer_acquire (fx, 10000), ==, 0);
}

static void
test_peer_holds (FlTestDir     *fx,
                 gconstpointer  data)
{
  g_autoptr(FlTestProc) holder = fl_test_spawn_holder_of ("FL_ORIGINAL_PEER", "original-peer",
                                                          fx->target);
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
test_peer_takes_dead_libfl (FlTestDir     *fx,
                            gconstpointer  data)
{
  g_autoptr(FlTestProc) holder = fl_test_spawn_holder (fx->target);

  fl_test_proc_kill (holder);
  g_assert_cmpint (peer_acquire (fx, 10000), ==, 0);
  g_assert_false (fl_test_exists (fx->lock));
  g_assert_cmpuint (fl_test_count_protocol_litter (fx->dir), ==, 0);
}

/* ...and libfl's on a dead peer's. */
static void
test_libfl_takes_dead_peer (FlTestDir     *fx,
                            gconstpointer  data)
{
  g_autoptr(FlTestProc) holder = fl_test_spawn_holder_of ("FL_ORIGINAL_PEER", "original-peer",
                                                          fx->target);
  g_autoptr(GError) error = NULL;
  g_autoptr(FlLock) lock = NULL;

  fl_test_proc_kill (holder);
  lock = fl_lock_try_acquire (fx->target, NULL, &error);
  g_assert_no_error (error);
  g_assert_true (fl_test_kernel_lock_held (fx->lock));
  g_assert_cmpuint (fl_test_count_protocol_litter (fx->dir), ==, 0);
}

/* The Node module itself as a holder (`node original-module.js hold TARGET`), or NULL with
 * the test skipped where node is not installed. */
static FlTestProc *
spawn_node_holder (const char *target)
{
  g_autofree char *node = g_find_program_in_path ("node");
  const char *module = g_getenv ("FL_ORIGINAL_MODULE");
  const char *argv[] = { node, module, "hold", target, NULL };
  g_autoptr(FlTestProc) holder = NULL;
  g_autofree char *line = NULL;
  g_autofree char *expected = NULL;

  if (node == NULL || module == NULL)
    {
      g_test_skip ("needs node (build-aux/install-deps installs it) and FL_ORIGINAL_MODULE");
      return NULL;
    }
  holder = fl_test_proc_spawn (argv, NULL, FL_TEST_SPAWN_DEFAULT);
  line = fl_test_proc_read_line (holder, fl_test_deadline_ms (30000));
  expected = g_strdup_printf ("held %d", (int) holder->pid);
  g_assert_cmpstr (line, ==, expected);
  return g_steal_pointer (&holder);
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
test_node_mtime_moved_back (FlTestDir     *fx,
                            gconstpointer  data)
{
  g_autoptr(FlTestProc) holder = spawn_node_holder (fx->target);

  if (holder != NULL)
    check_mtime_moved_back (fx, holder);
}

static void
test_peer_mtime_moved_back (FlTestDir     *fx,
                            gconstpointer  data)
{
  g_autoptr(FlTestProc) holder = fl_test_spawn_holder_of ("FL_ORIGINAL_PEER", "original-peer",
                                                          fx->target);

  check_mtime_moved_back (fx, holder);
}

/* The Node module and libfl exclude each other, counted. */
static void
test_node_count (FlTestDir     *fx,
                 gconstpointer  data)
{
  g_autofree char *node = g_find_program_in_path ("node");
  const char *module = g_getenv ("FL_ORIGINAL_MODULE");
  g_autofree char *worker = fl_test_helper_path ("FL_WORKER", "fl-worker");
  g_autofree char *counter = g_build_filename (fx->dir, "counter", NULL);
  g_autoptr(GPtrArray) procs = g_ptr_array_new_with_free_func ((GDestroyNotify) fl_test_proc_free);
  gint64 deadline = fl_test_deadline_ms (170000);
  const char *n = "100";
  guint total = 4;

  if (node == NULL || module == NULL)
    {
      g_test_skip ("needs node (build-aux/install-deps installs it) and FL_ORIGINAL_MODULE");
      return;
    }
  for (guint i = 0; i < total; i++)
    {
      const char *node_argv[] = { node, module, "count", fx->target, counter, n, NULL };
      const char *worker_argv[] = { worker, "count", fx->target, counter, n, NULL };

      g_ptr_array_add (procs, fl_test_proc_spawn (i % 2 ? node_argv : worker_argv, NULL,
                                                  FL_TEST_SPAWN_DEFAULT));
    }
  for (guint done = 0; done < total; done++)
    {
      int i = fl_test_proc_wait_any (procs, deadline);

      if (i < 0)
        g_error ("still running at the deadline; counter at %ld", fl_test_counter_read (counter));
      g_assert_cmpint (fl_test_proc_exit_code (g_ptr_array_index (procs, i)), ==, 0);
    }
  g_assert_cmpint (fl_test_counter_read (counter), ==, 100L * total);
  g_assert_false (fl_test_exists (fx->lock));
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);

  FL_TEST_ADD ("/libfl/interop/count", NULL, test_count);
  FL_TEST_ADD ("/libfl/interop/libfl-holds", NULL, test_libfl_holds);
  FL_TEST_ADD ("/libfl/interop/peer-holds", NULL, test_peer_holds);
  FL_TEST_ADD ("/libfl/interop/peer-takes-dead-libfl", NULL, test_peer_takes_dead_libfl);
  FL_TEST_ADD ("/libfl/interop/libfl-takes-dead-peer", NULL, test_libfl_takes_dead_peer);
  FL_TEST_ADD ("/libfl/interop/peer-mtime-moved-back", NULL, test_peer_mtime_moved_back);
  FL_TEST_ADD ("/libfl/interop/node-mtime-moved-back", NULL, test_node_mtime_moved_back);
  FL_TEST_ADD ("/libfl/interop/node-count", NULL, test_node_count);

  return g_test_run ();
}
