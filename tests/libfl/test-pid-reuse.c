/* test-pid-reuse.c: PIDs that lie: reused, zombie, from another PID namespace
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include <libfl/fl.h>

#include <string.h>

#include "fl-test-util.h"

#ifdef __linux__
# include <errno.h>
# include <signal.h>
# include <stdlib.h>
# include <sys/wait.h>
# include <unistd.h>
#endif

/* A lock in the original format (no identity, no kernel lock) naming a process that started
 * an hour after the lock's mtime. That is no proof of reuse (anyone who can write the file, and
 * every restore, can set an mtime back), and the original module would call the process
 * alive: so does libfl, and it never takes the lock. Reuse with an identity is caught exactly:
 * test-verdict.c's /libfl/verdict/reused-by-identity. */
static void
test_reused (FlTestDir     *fx,
             gconstpointer  data)
{
  g_autoptr(FlTestProc) child = fl_test_spawn_waiting ();
  g_autofree char *pid = g_strdup_printf ("%d", (int) child->pid);
  g_autofree char *content = NULL;
  g_autoptr(FlSnapshot) snapshot = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(FlLock) lock = NULL;
  gsize len;

  fl_test_write (fx->lock, pid, -1);
  fl_test_set_mtime_ago (fx->lock, 3600);

  snapshot = fl_snapshot_new (fx->lock, NULL, &error);
  g_assert_no_error (error);
  g_test_message ("%s", fl_snapshot_get_reason (snapshot));
  g_assert_cmpint (fl_snapshot_get_pid (snapshot), ==, child->pid);
  g_assert_cmpint (fl_snapshot_get_liveness (snapshot), ==, FL_LIVENESS_ALIVE);
  g_assert_false (fl_snapshot_get_stale (snapshot));

  lock = fl_lock_try_acquire (fx->target, NULL, &error);
  g_assert_null (lock);
  fl_test_assert_error_names (error, FL_ERROR, FL_ERROR_BUSY, fx->lock);
  content = fl_test_read (fx->lock, &len);
  g_assert_cmpmem (content, len, pid, strlen (pid));
  g_assert_false (fl_test_proc_wait (child, g_get_monotonic_time ()));
}

/* The control: the same process, named by a lock written after it started, is alive. */
static void
test_not_reused (FlTestDir     *fx,
                 gconstpointer  data)
{
  g_autoptr(FlTestProc) child = fl_test_spawn_waiting ();
  g_autofree char *pid = g_strdup_printf ("%d", (int) child->pid);
  g_autoptr(FlSnapshot) snapshot = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(FlLock) lock = NULL;

  fl_test_write (fx->lock, pid, -1);
  snapshot = fl_snapshot_new (fx->lock, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpint (fl_snapshot_get_liveness (snapshot), ==, FL_LIVENESS_ALIVE);
  g_assert_false (fl_snapshot_get_stale (snapshot));

  lock = fl_lock_try_acquire (fx->target, NULL, &error);
  g_assert_null (lock);
  fl_test_assert_error_names (error, FL_ERROR, FL_ERROR_BUSY, fx->lock);
}

#ifdef __linux__
/* An exited, unreaped child: its PID exists but the process can release nothing. */
static void
test_zombie (FlTestDir     *fx,
             gconstpointer  data)
{
  g_autoptr(FlTestProc) child = fl_test_spawn_waiting ();
  g_autofree char *pid = g_strdup_printf ("%d", (int) child->pid);
  g_autoptr(FlSnapshot) snapshot = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(FlLock) lock = NULL;
  siginfo_t info = { 0 };

  fl_test_write (fx->lock, pid, -1);
  /* Let it exit, and wait for that without reaping it. */
  fl_test_proc_close_stdin (child);
  g_assert_cmpint (waitid (P_PID, child->pid, &info, WEXITED | WNOWAIT), ==, 0);
  g_assert_cmpint (kill (child->pid, 0), ==, 0);

  snapshot = fl_snapshot_new (fx->lock, NULL, &error);
  g_assert_no_error (error);
  g_test_message ("%s", fl_snapshot_get_reason (snapshot));
  g_assert_cmpint (fl_snapshot_get_liveness (snapshot), ==, FL_LIVENESS_DEAD);
  g_assert_true (fl_snapshot_get_stale (snapshot));

  lock = fl_lock_try_acquire (fx->target, NULL, &error);
  g_assert_no_error (error);
}

/* A PID that is free in this namespace, so that a judge trusting the PID would say "dead". */
static int
free_pid (void)
{
  int pid_max = 32768;
  g_autofree char *text = NULL;

  if (g_file_get_contents ("/proc/sys/kernel/pid_max", &text, NULL, NULL))
    pid_max = atoi (text);
  for (int pid = pid_max - 100; pid > 300; pid--)
    if (kill (pid, 0) < 0 && errno == ESRCH)
      return pid;
  return 0;
}

/* Spawns @argv, an unshare(1) command line (argv[0] NULL where unshare is not installed) that
 * runs a holder in a new PID namespace, and returns it with its "held PID" line in @line. A
 * namespace needs root, and may still be refused (in a container, say): then the test is
 * skipped and this returns NULL. */
static FlTestProc *
spawn_namespaced_holder (const char * const  *argv,
                         char               **line)
{
  g_autoptr(FlTestProc) holder = NULL;

  if (argv[0] == NULL || !fl_test_is_root ())
    {
      g_test_skip ("needs root and unshare(1) for a PID namespace");
      return NULL;
    }
  holder = fl_test_proc_spawn (argv, NULL, FL_TEST_SPAWN_DEFAULT);
  *line = fl_test_proc_read_line (holder, fl_test_deadline_ms (10000));
  if (*line == NULL || !g_str_has_prefix (*line, "held "))
    {
      g_autofree char *rest = fl_test_proc_read_all (holder, fl_test_deadline_ms (2000));

      g_test_skip_printf ("unshare --pid did not give a holder: %s%s",
                          *line ? *line : "", rest);
      return NULL;
    }
  return g_steal_pointer (&holder);
}

/* A libfl holder in another PID namespace writes a PID that means nothing here (we make sure
 * it names no process here at all). Its kernel lock says it is alive: never taken. */
static void
test_other_namespace (FlTestDir     *fx,
                      gconstpointer  data)
{
  g_autofree char *worker = fl_test_helper_path ("FL_WORKER", "fl-worker");
  g_autofree char *unshare = g_find_program_in_path ("unshare");
  int wanted = free_pid ();
  g_autofree char *last = g_strdup_printf ("%d", wanted - 1);
  const char *script = "echo \"$1\" > /proc/sys/kernel/ns_last_pid 2>/dev/null; "
                       "\"$2\" hold \"$3\"; exit $?";
  const char *argv[] = { unshare, "--pid", "--fork", "--kill-child", "sh", "-c", script,
                         "sh", last, worker, fx->target, NULL };
  g_autoptr(FlTestProc) holder = NULL;
  g_autoptr(FlSnapshot) snapshot = NULL;
  g_autoptr(FlLockOptions) options = fl_lock_options_new ();
  g_autoptr(GError) error = NULL;
  g_autoptr(FlLock) lock = NULL;
  g_autofree char *line = NULL;
  g_autofree char *content = NULL;
  int ns_pid;

  holder = spawn_namespaced_holder (argv, &line);
  if (holder == NULL)
    return;
  ns_pid = atoi (line + 5);
  content = fl_test_read (fx->lock, NULL);
  g_assert_cmpint (atoi (content), ==, ns_pid);
  if (ns_pid == wanted)
    g_assert_true (kill (ns_pid, 0) < 0 && errno == ESRCH);
  g_test_message ("holder is PID %d in its namespace (%s here)", ns_pid,
                  kill (ns_pid, 0) < 0 ? "no such process" : "another process");

  snapshot = fl_snapshot_new (fx->lock, NULL, &error);
  g_assert_no_error (error);
  g_test_message ("%s", fl_snapshot_get_reason (snapshot));
  g_assert_cmpint (fl_snapshot_get_kernel_lock (snapshot), ==, FL_KERNEL_LOCK_HELD);
  g_assert_cmpint (fl_snapshot_get_liveness (snapshot), ==, FL_LIVENESS_ALIVE);
  g_assert_false (fl_snapshot_get_stale (snapshot));
  /* Its PID is the namespace's: whatever runs under it here is not named (issue 19). */
  g_assert_nonnull (strstr (fl_snapshot_get_reason (snapshot), "another PID namespace"));
  g_assert_null (fl_snapshot_get_process_name (snapshot));

  lock = fl_lock_try_acquire (fx->target, NULL, &error);
  g_assert_null (lock);
  fl_test_assert_error_names (error, FL_ERROR, FL_ERROR_BUSY, fx->lock);
  g_clear_error (&error);

  fl_lock_options_set_timeout_ms (options, 200);
  lock = fl_lock_acquire (fx->target, options, NULL, &error);
  g_assert_null (lock);
  fl_test_assert_error_names (error, FL_ERROR, FL_ERROR_TIMEOUT, fx->lock);
  g_clear_error (&error);

  /* Its release still works: nothing touched its lock. */
  fl_test_holder_release (holder);
  g_assert_false (fl_test_exists (fx->lock));
}

/* The same holder killed: the kernel lock goes with it, and the lock is stale although its PID
 * could not be probed. */
static void
test_other_namespace_dead (FlTestDir     *fx,
                           gconstpointer  data)
{
  g_autofree char *worker = fl_test_helper_path ("FL_WORKER", "fl-worker");
  g_autofree char *unshare = g_find_program_in_path ("unshare");
  const char *argv[] = { unshare, "--pid", "--fork", "--kill-child", worker, "hold",
                         fx->target, NULL };
  g_autoptr(FlTestProc) holder = NULL;
  g_autoptr(FlSnapshot) snapshot = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(FlLock) lock = NULL;
  g_autofree char *line = NULL;
  g_autofree char *children = NULL;
  g_autofree char *text = NULL;
  pid_t ns_init;

  holder = spawn_namespaced_holder (argv, &line);
  if (holder == NULL)
    return;
  /* --kill-child: the namespace's processes die with unshare. Its child is the worker: wait
   * on that process's own exit, after which its descriptors, and its kernel lock, are gone. */
  children = g_strdup_printf ("/proc/%d/task/%d/children", (int) holder->pid, (int) holder->pid);
  if (!g_file_get_contents (children, &text, NULL, NULL) || atoi (text) <= 0)
    {
      g_test_skip ("cannot find the namespace's process (no /proc/PID/task/TID/children)");
      return;
    }
  ns_init = atoi (text);
  fl_test_proc_kill (holder);
  g_assert_true (fl_test_wait_pid_gone (ns_init, fl_test_deadline_ms (10000)));
  g_assert_false (fl_test_kernel_lock_held (fx->lock));

  snapshot = fl_snapshot_new (fx->lock, NULL, &error);
  g_assert_no_error (error);
  g_test_message ("%s", fl_snapshot_get_reason (snapshot));
  g_assert_true (fl_snapshot_get_stale (snapshot));
  lock = fl_lock_try_acquire (fx->target, NULL, &error);
  g_assert_no_error (error);
}

#endif

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);

  FL_TEST_ADD ("/libfl/pid/started-after-mtime", NULL, test_reused);
  FL_TEST_ADD ("/libfl/pid/not-reused", NULL, test_not_reused);
  FL_TEST_ADD_LINUX ("/libfl/pid/zombie", NULL, test_zombie, "waitid(WNOWAIT): an unreaped child");
  FL_TEST_ADD_LINUX ("/libfl/pid/other-namespace", NULL, test_other_namespace,
                     "PID namespaces (unshare(1))");
  FL_TEST_ADD_LINUX ("/libfl/pid/other-namespace-dead", NULL, test_other_namespace_dead,
                     "PID namespaces (unshare(1))");

  return g_test_run ();
}
