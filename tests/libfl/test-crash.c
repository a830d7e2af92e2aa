/* test-crash.c: holders killed at every step of the protocol
 *
 * Two kinds of injection, both by fl-worker-crash, whose shim (tests/helpers/fl-crash-shim.c)
 * is wrapped around libfl at link time. FL_TEST_CRASH_AT=A3|T1|T2|T4|R2 kills the worker at
 * the end of a named step (the library's _fl_platform_step_done(), which does nothing unless
 * wrapped), once, so that the state it leaves can be checked exactly. The stress test sets
 * FL_CRASH_AT, which kills at the Nth link/rename/unlink of a step, and the test kills workers
 * at random moments too.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include <libfl/fl.h>

#include <string.h>

#include "fl-test-util.h"

#ifdef __linux__
# include <fcntl.h>
# include <poll.h>
# include <signal.h>
# include <sys/file.h>
# include <sys/inotify.h>
# include <sys/prctl.h>
# include <sys/wait.h>
# include <unistd.h>
# include "protocol/fl-lock-private.h"
# include "fl-test-counter.h"
#endif

/* The crash shim (tests/helpers/fl-crash-shim.c) wraps the protocol's system calls at link
 * time (-Wl,--wrap), which only the Linux build of fl-worker-crash has. */
#define NEEDS_SHIM "the crash shim (fl-worker-crash, link-time wrapping of the system calls)"

typedef struct
{
  const char *step;
  gboolean    named_temp;
  gboolean    stale_first;  /* make a stale lock for the worker to take over */
  const char *mode;         /* the worker's command */
} HookCase;

#ifdef __linux__
#define KILLED (128 + SIGKILL)

static void
make_stale_lock (FlTestDir *fx)
{
  g_autoptr(FlTestProc) holder = fl_test_spawn_holder (fx->target);

  fl_test_proc_kill (holder);
  g_assert_false (fl_test_kernel_lock_held (fx->lock));
}

/* Every file the crash left is judged stale (its maker is dead) and reclaimed; then the lock
 * can be taken at once. */
static guint
reclaim_leftovers (FlTestDir *fx)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GPtrArray) entries = fl_scan_directory (fx->dir, FL_SCAN_NONE, NULL, NULL, &error);
  guint reclaimed = 0;

  g_assert_no_error (error);
  for (guint i = 0; i < entries->len; i++)
    {
      FlSnapshot *snapshot = g_ptr_array_index (entries, i);

      if (fl_snapshot_get_kind (snapshot) == FL_ENTRY_LOCK)
        continue;
      g_test_message ("left by a crash: %s (%s)", fl_snapshot_get_name (snapshot),
                      fl_snapshot_get_reason (snapshot));
      g_assert_cmpint (fl_snapshot_get_kind (snapshot), !=, FL_ENTRY_FOREIGN);
      g_assert_true (fl_snapshot_get_stale (snapshot));
      g_assert_cmpint (fl_snapshot_get_liveness (snapshot), ==, FL_LIVENESS_DEAD);
      g_assert_true (fl_snapshot_reclaim (snapshot, NULL, &error));
      g_assert_no_error (error);
      reclaimed++;
    }
  g_assert_cmpuint (fl_test_count_protocol_litter (fx->dir), ==, 0);
  return reclaimed;
}

static void
test_hook (FlTestDir     *fx,
           gconstpointer  data)
{
  const HookCase *c = data;
  g_autofree char *worker = fl_test_helper_path ("FL_WORKER_CRASH", "fl-worker-crash");
  const char *argv[] = { worker, c->mode, fx->target, NULL };
  g_auto(GStrv) envp = g_get_environ ();
  g_autoptr(FlTestProc) proc = NULL;
  g_autoptr(FlLockOptions) options = fl_lock_options_new ();
  g_autoptr(GError) error = NULL;
  g_autoptr(FlLock) lock = NULL;
  g_autofree char *out = NULL;
  guint leftovers;

  if (c->stale_first)
    make_stale_lock (fx);

  envp = g_environ_setenv (envp, "FL_TEST_CRASH_AT", c->step, TRUE);
  envp = g_environ_setenv (envp, "FL_NAMED_TEMP", c->named_temp ? "1" : "0", TRUE);
  proc = fl_test_proc_spawn (argv, (const char * const *) envp, FL_TEST_SPAWN_DEFAULT);
  out = fl_test_proc_read_all (proc, fl_test_deadline_ms (20000));
  g_assert_true (fl_test_proc_wait (proc, fl_test_deadline_ms (10000)));
  g_test_message ("worker output: \"%s\"", out);
  /* It really died at the step. */
  g_assert_cmpint (fl_test_proc_exit_code (proc), ==, KILLED);

  if (g_str_equal (c->step, "A3") || g_str_equal (c->step, "T1"))
    {
      g_autoptr(FlSnapshot) snapshot = fl_snapshot_new (fx->lock, NULL, &error);

      g_assert_no_error (error);
      g_assert_cmpint (fl_snapshot_get_kernel_lock (snapshot), ==, FL_KERNEL_LOCK_FREE);
      g_assert_cmpint (fl_snapshot_get_liveness (snapshot), ==, FL_LIVENESS_DEAD);
      g_assert_true (fl_snapshot_get_stale (snapshot));
    }
  else
    g_assert_false (fl_test_exists (fx->lock));

  /* The next acquirer does not wait for anything. */
  fl_lock_options_set_timeout_ms (options, 2000);
  lock = fl_lock_acquire (fx->target, options, NULL, &error);
  g_assert_no_error (error);

  /* A named temp lives from A2 until just after A3, through any takeover in between; the
   * graveyard lives from T2 to T4. O_TMPFILE leaves nothing. */
  leftovers = reclaim_leftovers (fx);
  g_assert_cmpuint (leftovers, ==, (c->named_temp && !g_str_equal (c->step, "R2") ? 1 : 0) +
                                   (g_str_equal (c->step, "T2") ? 1 : 0));
}

#endif

static const HookCase hook_cases[] = {
  { "A3", FALSE, FALSE, "acquire" },
  { "A3", TRUE, FALSE, "acquire" },
  { "T1", FALSE, TRUE, "acquire" },
  { "T1", TRUE, TRUE, "acquire" },
  { "T2", FALSE, TRUE, "acquire" },
  { "T2", TRUE, TRUE, "acquire" },
  { "T4", FALSE, TRUE, "acquire" },
  { "R2", FALSE, FALSE, "acquire" },
  { "R2", TRUE, FALSE, "acquire" },
};

#ifdef __linux__
/* A taker in the middle of its takeover (between T1 and T2) holds the stale lock's inode
 * with LOCK_EX; the PID in the file is long gone. Here a forked child plays it: it opens the
 * lock file and takes LOCK_EX, as T1 does, and signals through @ready. */
static pid_t
fork_mid_takeover (const char *lock,
                   int        *ready_fd)
{
  int fds[2];
  pid_t pid;

  g_assert_no_errno (pipe2 (fds, O_CLOEXEC));
  pid = fork ();
  g_assert_cmpint (pid, >=, 0);
  if (pid == 0)
    {
      int fd;

      /* Only async-signal-safe calls after fork(). */
      prctl (PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0);
      fd = open (lock, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
      if (fd < 0 || flock (fd, LOCK_EX) != 0 || write (fds[1], "x", 1) != 1)
        _exit (1);
      for (;;)
        pause ();
    }
  close (fds[1]);
  *ready_fd = fds[0];
  return pid;
}

/* The second crash of protocol.md section 10: the holder died, then a taker died between T1
 * and T2, while a waiter was waiting. No event comes (the file stays, the PID in it was gone
 * already), so the waiter must find out by re-checking, with backoff from backoff_min, not
 * only after backoff_max: here backoff_max is 10 minutes and the waiter gives up after one,
 * so only that re-check lets it acquire. */
static void
test_taker_dies_while_waited (FlTestDir     *fx,
                              gconstpointer  data)
{
  g_autofree char *worker = fl_test_helper_path ("FL_WORKER", "fl-worker");
  const char *argv[] = { worker, "--backoff-max-ms=600000", "--timeout-ms=60000", "acquire",
                         fx->target, NULL };
  g_autofree char *dead = g_strdup_printf ("%d", (int) fl_test_dead_pid ());
  g_autoptr(FlTestProc) waiter = NULL;
  g_autofree char *line = NULL;
  char byte;
  int ready_fd, inotify_fd, status;
  pid_t taker;

  fl_test_write (fx->lock, dead, -1);
  taker = fork_mid_takeover (fx->lock, &ready_fd);
  g_assert_true (fl_test_wait_readable (ready_fd, fl_test_deadline_ms (10000)));
  g_assert_cmpint (read (ready_fd, &byte, 1), ==, 1);
  close (ready_fd);
  g_assert_true (fl_test_kernel_lock_held (fx->lock));

  /* The waiter closes the lock file once it has judged it (held) and before it sleeps: the
   * first close seen on the file is that one. */
  inotify_fd = inotify_init1 (IN_CLOEXEC | IN_NONBLOCK);
  g_assert_no_errno (inotify_fd >= 0 ? 0 : -1);
  g_assert_no_errno (inotify_add_watch (inotify_fd, fx->lock, IN_CLOSE) >= 0 ? 0 : -1);
  waiter = fl_test_proc_spawn (argv, NULL, FL_TEST_SPAWN_DEFAULT);
  g_assert_true (fl_test_wait_readable (inotify_fd, fl_test_deadline_ms (20000)));
  close (inotify_fd);

  g_assert_no_errno (kill (taker, SIGKILL));
  g_assert_cmpint (waitpid (taker, &status, 0), ==, taker);

  line = fl_test_proc_read_line (waiter, fl_test_deadline_ms (50000));
  g_assert_cmpstr (line, ==, "acquired");
  g_assert_true (fl_test_proc_wait (waiter, fl_test_deadline_ms (10000)));
  g_assert_cmpint (fl_test_proc_exit_code (waiter), ==, 0);
}

/* Stress: SLOTS workers counting under the lock, killed by the shim at a random step and
 * occurrence, or by the test at random moments; every worker that ends is replaced until SPAWNS
 * have run. Survivors must finish, no two may ever be inside at once, and nothing may stay stuck. */
#define SLOTS 6
#define SPAWNS 48
#define SECTIONS 150

static const char *const shim_steps[] = {
  "before-link", "after-link", "after-gy-rename", "after-lock-unlink",
};

static FlTestProc *
spawn_stress_worker (FlTestDir  *fx,
                     GRand      *rand,
                     const char *counter,
                     const char *log)
{
  g_autofree char *worker = fl_test_helper_path ("FL_WORKER_CRASH", "fl-worker-crash");
  g_autofree char *n = g_strdup_printf ("%d", SECTIONS);
  const char *argv[] = { worker, "--tolerate-dead", "count", fx->target, counter, n, NULL };
  g_auto(GStrv) envp = g_get_environ ();

  envp = g_environ_setenv (envp, "FL_CRASH_LOG", log, TRUE);
  envp = g_environ_setenv (envp, "FL_NAMED_TEMP", g_rand_boolean (rand) ? "1" : "0", TRUE);
  if (g_rand_int_range (rand, 0, 3) != 0)
    {
      const char *step = shim_steps[g_rand_int_range (rand, 0, G_N_ELEMENTS (shim_steps))];
      /* A worker takes over only after someone died holding the lock: that step comes rarely,
       * so it is armed for one of the first takeovers. */
      int last = g_str_equal (step, "after-gy-rename") ? 3 : SECTIONS;
      g_autofree char *nth = g_strdup_printf ("%d", g_rand_int_range (rand, 1, last));

      envp = g_environ_setenv (envp, "FL_CRASH_AT", step, TRUE);
      envp = g_environ_setenv (envp, "FL_CRASH_NTH", nth, TRUE);
    }
  return fl_test_proc_spawn (argv, (const char * const *) envp, FL_TEST_SPAWN_DEFAULT);
}

static void
test_stress (FlTestDir     *fx,
             gconstpointer  data)
{
  g_autoptr(GRand) rand = g_rand_new_with_seed (fl_test_seed ());
  g_autofree char *counter = g_build_filename (fx->dir, "counter", NULL);
  g_autofree char *log = g_build_filename (fx->dir, "crash.log", NULL);
  g_autoptr(GPtrArray) running = g_ptr_array_new_with_free_func ((GDestroyNotify) fl_test_proc_free);
  g_autoptr(FlLockOptions) options = fl_lock_options_new ();
  g_autoptr(GError) error = NULL;
  g_autoptr(FlLock) lock = NULL;
  g_autofree char *crashes = NULL;
  gint64 deadline = fl_test_deadline_ms (250000);
  guint spawned = 0, finished = 0, killed_by_test = 0, killed = 0;
  guint injected;
  long count;

  for (; spawned < SLOTS; spawned++)
    g_ptr_array_add (running, spawn_stress_worker (fx, rand, counter, log));

  while (running->len > 0)
    {
      /* A random pause, then maybe a random kill: the moment, not the order, is random. */
      int i = fl_test_proc_wait_any (running, MIN (deadline, fl_test_deadline_ms (
                                                     g_rand_int_range (rand, 1, 40))));
      FlTestProc *proc;
      int code;

      if (i < 0)
        {
          g_assert_cmpint (g_get_monotonic_time (), <, deadline);
          if (spawned < SPAWNS && g_rand_int_range (rand, 0, 16) == 0)
            {
              proc = g_ptr_array_index (running, g_rand_int_range (rand, 0, running->len));
              kill (proc->pid, SIGKILL);
              killed_by_test++;
            }
          continue;
        }

      proc = g_ptr_array_index (running, i);
      code = fl_test_proc_exit_code (proc);
      if (code == FL_TEST_EXIT_OVERLAP)
        g_error ("worker %d found another live holder inside the critical section",
                 (int) proc->pid);
      if (code != 0 && code != KILLED)
        g_error ("worker %d failed with exit status %d", (int) proc->pid, code);
      if (code == 0)
        finished++;
      else
        killed++;
      g_ptr_array_remove_index_fast (running, i);
      if (spawned < SPAWNS)
        {
          g_ptr_array_add (running, spawn_stress_worker (fx, rand, counter, log));
          spawned++;
        }
    }

  g_file_get_contents (log, &crashes, NULL, NULL);
  injected = 0;
  for (guint k = 0; k < G_N_ELEMENTS (shim_steps); k++)
    {
      g_autofree char *needle = g_strdup_printf ("crash %s ", shim_steps[k]);
      guint hits = 0;

      for (const char *p = crashes; p != NULL && (p = strstr (p, needle)) != NULL; p++)
        hits++;
      g_test_message ("killed at %s: %u", shim_steps[k], hits);
      injected += hits;
    }
  count = fl_test_counter_read (counter);
  g_test_message ("%u workers: %u finished, %u killed (%u by the shim at a protocol step, "
                  "%u by the test at random), counter %ld", spawned, finished, killed,
                  injected, killed_by_test, count);
  g_assert_cmpuint (injected, >, 0);
  g_assert_cmpuint (finished, >, 0);
  g_assert_cmpint (count, >=, (long) finished * SECTIONS);
  g_assert_cmpint (count, <=, (long) spawned * SECTIONS);

  /* Nothing stuck: whatever the last crash left, the lock is ours within a short deadline,
   * and every leftover is a reclaimable orphan. */
  fl_lock_options_set_timeout_ms (options, 2000);
  lock = fl_lock_acquire (fx->target, options, NULL, &error);
  g_assert_no_error (error);
  reclaim_leftovers (fx);
  g_assert_true (fl_lock_release (lock, &error));
  g_assert_no_error (error);
}

#endif

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);

  for (guint i = 0; i < G_N_ELEMENTS (hook_cases); i++)
    {
      g_autofree char *path = g_strdup_printf ("/libfl/crash/at-%s%s", hook_cases[i].step,
                                               hook_cases[i].named_temp ? "-named-temp" : "");

      FL_TEST_ADD_LINUX (path, &hook_cases[i], test_hook, NEEDS_SHIM);
    }
  FL_TEST_ADD_LINUX ("/libfl/crash/taker-dies-while-waited", NULL, test_taker_dies_while_waited,
                     "fork(), a taker that holds LOCK_EX mid-takeover");
  FL_TEST_ADD_LINUX ("/libfl/crash/stress", NULL, test_stress, NEEDS_SHIM);

  return g_test_run ();
}
