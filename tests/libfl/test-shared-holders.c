/* test-shared-holders.c: shared locks (anyone's flock(LOCK_SH)) never block a takeover
 *
 * Issue 18, part 2: anyone who can read a stale lock can hold flock(LOCK_SH) on it, and a
 * taker needs LOCK_EX. docs/protocol.md, section 4 (steps C1-C3) says how a taker goes around
 * them without giving up the exclusion between takers. The readers here are real processes of
 * another user (nobody) without write access to the directory, as in the issue.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include <libfl/fl.h>

#include <string.h>

#include "fl-test-util.h"

#ifdef __linux__
# include <errno.h>
# include <fcntl.h>
# include <grp.h>
# include <poll.h>
# include <signal.h>
# include <sys/file.h>
# include <sys/prctl.h>
# include <sys/stat.h>
# include <sys/wait.h>
# include <unistd.h>
# include "protocol/fl-lock-private.h"
# include "fl-test-counter.h"

#define KILLED (128 + SIGKILL)

/* Generous: the takeover itself takes well under a millisecond, but the machine is shared. */
#define ACQUIRE_BOUND_US (5 * G_USEC_PER_SEC)

typedef struct
{
  pid_t pid;
  int   ready_fd;  /* one byte once the shared lock is granted */
} Reader;

/* A process of uid nobody opens @path read-only and takes a blocking flock(LOCK_SH), which it
 * keeps until it is killed. It writes one byte to its pipe once the lock is granted. With
 * @report_open it writes a byte after open() too, before flock(): the queued-grant case. */
static Reader
fork_reader (const char *path,
             gboolean    report_open)
{
  Reader reader;
  pid_t parent = getpid ();
  int fds[2];
  pid_t pid;

  g_assert_no_errno (pipe2 (fds, O_CLOEXEC));
  pid = fork ();
  g_assert_cmpint (pid, >=, 0);
  if (pid == 0)
    {
      int fd;

      /* Only async-signal-safe calls after fork(). The parent-death signal goes with the
       * change of user, so it is set after it. */
      if (setgroups (0, NULL) != 0 || setgid (65534) != 0 || setuid (65534) != 0)
        _exit (1);
      prctl (PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0);
      if (getppid () != parent)
        _exit (1);
      fd = open (path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
      if (fd < 0)
        _exit (1);
      if (report_open && write (fds[1], "o", 1) != 1)
        _exit (1);
      if (flock (fd, LOCK_SH) != 0 || write (fds[1], "g", 1) != 1)
        _exit (1);
      for (;;)
        pause ();
    }
  close (fds[1]);
  reader.pid = pid;
  reader.ready_fd = fds[0];
  return reader;
}

static void
reader_expect (Reader     *reader,
               char        what)
{
  char c = 0;

  g_assert_true (fl_test_wait_readable (reader->ready_fd, fl_test_deadline_ms (20000)));
  g_assert_cmpint (read (reader->ready_fd, &c, 1), ==, 1);
  g_assert_cmpint (c, ==, what);
}

static void
reader_kill (Reader *reader)
{
  int status;

  if (reader->pid <= 0)
    return;
  kill (reader->pid, SIGKILL);
  waitpid (reader->pid, &status, 0);
  close (reader->ready_fd);
  reader->pid = 0;
}

/* Whether /proc/locks shows @pid blocked on a flock (a "->" line). */
static gboolean
reader_queued_cb (gpointer data)
{
  pid_t pid = GPOINTER_TO_INT (data);
  g_autofree char *locks = NULL;
  g_auto(GStrv) lines = NULL;
  g_autofree char *want = g_strdup_printf (" %d ", (int) pid);

  if (!g_file_get_contents ("/proc/locks", &locks, NULL, NULL))
    return FALSE;
  lines = g_strsplit (locks, "\n", -1);
  for (guint i = 0; lines[i] != NULL; i++)
    if (strstr (lines[i], "->") != NULL && strstr (lines[i], "FLOCK") != NULL &&
        strstr (lines[i], want) != NULL)
      return TRUE;
  return FALSE;
}

static gboolean
skip_unless_root (void)
{
  if (fl_test_is_root ())
    return FALSE;
  g_test_skip ("needs root: the reader runs as another user (nobody)");
  return TRUE;
}

/* A 0755 directory, as in the issue: the reader cannot write there. */
static void
make_dir_0755 (FlTestDir *fx)
{
  g_assert_no_errno (chmod (fx->dir, 0755));
}

/* The holder (root) is SIGKILLed: a stale lock, 0644, that nobody can read. */
static void
make_stale_lock (FlTestDir *fx)
{
  g_autoptr(FlTestProc) holder = fl_test_spawn_holder (fx->target);

  fl_test_proc_kill (holder);
  g_assert_false (fl_test_kernel_lock_held (fx->lock));
  g_assert_no_errno (chmod (fx->lock, 0644));
}

/* The lock is ours and sound: T.lock is our inode, its kernel lock is held, and another
 * process cannot take it. */
static void
assert_sound (FlTestDir *fx,
              FlLock    *lock)
{
  g_autofree char *worker = fl_test_helper_path ("FL_WORKER", "fl-worker");
  const char *argv[] = { worker, "try", fx->target, NULL };
  g_autoptr(FlTestProc) other = NULL;
  g_autofree char *out = NULL;
  guint64 dev, ino;
  struct stat st;

  g_assert_true (fl_lock_is_held (lock));
  g_assert_true (_fl_lock_get_inode (lock, &dev, &ino));
  g_assert_no_errno (lstat (fx->lock, &st));
  g_assert_cmpuint (st.st_dev, ==, dev);
  g_assert_cmpuint (st.st_ino, ==, ino);
  g_assert_true (fl_test_kernel_lock_held (fx->lock));

  other = fl_test_proc_spawn (argv, NULL, FL_TEST_SPAWN_DEFAULT);
  out = fl_test_proc_read_all (other, fl_test_deadline_ms (20000));
  g_assert_true (fl_test_proc_wait (other, fl_test_deadline_ms (10000)));
  g_assert_cmpint (fl_test_proc_exit_code (other), ==, 2);
  g_assert_nonnull (strstr (out, "error fl-error-quark 1 "));  /* FL_ERROR_BUSY */
}

/* (a) A foreign reader holds LOCK_SH on a stale lock for the whole test: an acquirer takes it
 * over within the bound, and its lock is sound. */
static void
test_reader_holds (FlTestDir     *fx,
                   gconstpointer  data)
{
  g_autoptr(FlLockOptions) options = fl_lock_options_new ();
  g_autoptr(GError) error = NULL;
  g_autoptr(FlLock) lock = NULL;
  g_autofree char *claim = g_strconcat (fx->lock, ".claim.0", NULL);
  g_autofree char *gap_claim = g_strconcat (fx->lock, ".claim.3", NULL);
  Reader reader;
  gint64 start, took;

  if (skip_unless_root ())
    return;
  make_dir_0755 (fx);
  make_stale_lock (fx);
  reader = fork_reader (fx->lock, FALSE);
  reader_expect (&reader, 'g');
  /* A dead claim past a gap, as a slow taker leaves one after a holder removed the lower
   * generations: the next holder that goes the claim way removes it too (step CL). */
  fl_test_write (gap_claim, "", 0);

  fl_lock_options_set_timeout_ms (options, 20000);
  start = g_get_monotonic_time ();
  lock = fl_lock_acquire (fx->target, options, NULL, &error);
  took = g_get_monotonic_time () - start;
  g_assert_no_error (error);
  g_test_message ("acquired past a shared holder in %" G_GINT64_FORMAT " us", took);
  g_assert_cmpint (took, <, ACQUIRE_BOUND_US);
  assert_sound (fx, lock);

  g_assert_true (fl_lock_release (lock, &error));
  g_assert_no_error (error);
  reader_kill (&reader);
  g_assert_cmpuint (fl_test_count_protocol_litter (fx->dir), ==, 0);
  g_assert_false (fl_test_exists (claim));  /* the holder removed it */
  g_assert_false (fl_test_exists (gap_claim));
}

/* (a) Reclaim of such a lock succeeds, and try-acquire too. */
static void
test_reader_reclaim (FlTestDir     *fx,
                     gconstpointer  data)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(FlSnapshot) snapshot = NULL;
  g_autoptr(FlLock) lock = NULL;
  Reader reader;

  if (skip_unless_root ())
    return;
  make_dir_0755 (fx);
  make_stale_lock (fx);
  reader = fork_reader (fx->lock, FALSE);
  reader_expect (&reader, 'g');

  snapshot = fl_snapshot_new (fx->lock, NULL, &error);
  g_assert_no_error (error);
  g_assert_true (fl_snapshot_get_stale (snapshot));
  {
    /* What status shows: the reader, by PID, and that it changes nothing. */
    g_autofree char *named = g_strdup_printf ("a process with PID %d", (int) reader.pid);

    g_test_message ("%s", fl_snapshot_get_reason (snapshot));
    g_assert_nonnull (strstr (fl_snapshot_get_reason (snapshot), named));
    g_assert_nonnull (strstr (fl_snapshot_get_reason (snapshot), "holds a shared lock"));
    g_assert_nonnull (strstr (fl_snapshot_get_reason (snapshot), "does not keep it from"));
  }
  g_assert_true (fl_snapshot_reclaim (snapshot, NULL, &error));
  g_assert_no_error (error);
  g_assert_false (fl_test_exists (fx->lock));
  reader_kill (&reader);

  /* The same with try-acquire, which never waits. */
  make_stale_lock (fx);
  reader = fork_reader (fx->lock, FALSE);
  reader_expect (&reader, 'g');
  lock = fl_lock_try_acquire (fx->target, NULL, &error);
  g_assert_no_error (error);
  assert_sound (fx, lock);
  g_clear_object (&lock);
  reader_kill (&reader);
  g_assert_cmpuint (fl_test_count_protocol_litter (fx->dir), ==, 0);
}

/* (b) The reader queues a blocking LOCK_SH while the holder lives, so the kernel grants it the
 * instant the holder dies; a waiter that was waiting all along still acquires. */
static void
test_queued_grant (FlTestDir     *fx,
                   gconstpointer  data)
{
  g_autofree char *worker = fl_test_helper_path ("FL_WORKER", "fl-worker");
  const char *argv[] = { worker, "--timeout-ms=30000", "acquire", fx->target, NULL };
  g_autoptr(FlTestProc) holder = NULL;
  g_autoptr(FlTestProc) waiter = NULL;
  g_autofree char *line = NULL;
  Reader reader;
  gint64 start, took;

  if (skip_unless_root ())
    return;
  make_dir_0755 (fx);
  holder = fl_test_spawn_holder (fx->target);
  g_assert_no_errno (chmod (fx->lock, 0644));
  reader = fork_reader (fx->lock, TRUE);
  reader_expect (&reader, 'o');
  g_assert_true (fl_test_wait_until (reader_queued_cb, GINT_TO_POINTER (reader.pid), 20000));

  waiter = fl_test_proc_spawn (argv, NULL, FL_TEST_SPAWN_DEFAULT);

  start = g_get_monotonic_time ();
  fl_test_proc_kill (holder);
  reader_expect (&reader, 'g');  /* granted at the holder's death */

  line = fl_test_proc_read_line (waiter, fl_test_deadline_ms (40000));
  took = g_get_monotonic_time () - start;
  g_test_message ("waiter: \"%s\" %" G_GINT64_FORMAT " us after the holder's death", line, took);
  g_assert_cmpstr (line, ==, "acquired");
  g_assert_cmpint (took, <, ACQUIRE_BOUND_US);
  g_assert_true (fl_test_proc_wait (waiter, fl_test_deadline_ms (10000)));
  g_assert_cmpint (fl_test_proc_exit_code (waiter), ==, 0);
  reader_kill (&reader);
  g_assert_cmpuint (fl_test_count_protocol_litter (fx->dir), ==, 0);
}

/* (c) Takers racing for a stale lock that a reader holds LOCK_SH on: they go the claim way
 * (C1-C3), and the counter shows that never two of them hold at once. */
static void
test_racing_takers (FlTestDir     *fx,
                    gconstpointer  data)
{
  g_autofree char *worker = fl_test_helper_path ("FL_WORKER", "fl-worker");
  g_autofree char *counter = g_build_filename (fx->dir, "counter", NULL);
  g_autofree char *claim = g_strconcat (fx->lock, ".claim.0", NULL);
  const guint rounds = 6, takers = 4, sections = 20;

  if (skip_unless_root ())
    return;
  make_dir_0755 (fx);

  for (guint round = 0; round < rounds; round++)
    {
      g_autoptr(GPtrArray) procs =
        g_ptr_array_new_with_free_func ((GDestroyNotify) fl_test_proc_free);
      gint64 deadline = fl_test_deadline_ms (120000);
      Reader reader;

      make_stale_lock (fx);
      reader = fork_reader (fx->lock, FALSE);
      reader_expect (&reader, 'g');

      for (guint i = 0; i < takers; i++)
        {
          g_autofree char *n = g_strdup_printf ("%u", sections);
          const char *argv[] = { worker, "count", fx->target, counter, n, NULL };

          g_ptr_array_add (procs, fl_test_proc_spawn (argv, NULL, FL_TEST_SPAWN_DEFAULT));
        }
      for (guint finished = 0; finished < takers; finished++)
        {
          int i = fl_test_proc_wait_any (procs, deadline);
          FlTestProc *proc;

          if (i < 0)
            g_error ("takers still running at the deadline; counter at %ld",
                     fl_test_counter_read (counter));
          proc = g_ptr_array_index (procs, i);
          if (fl_test_proc_exit_code (proc) == FL_TEST_EXIT_OVERLAP)
            g_error ("taker %d found another holder inside the critical section",
                     (int) proc->pid);
          g_assert_cmpint (fl_test_proc_exit_code (proc), ==, 0);
        }
      reader_kill (&reader);
      g_assert_cmpint (fl_test_counter_read (counter), ==, (long) (round + 1) * takers * sections);
      g_assert_false (fl_test_exists (fx->lock));
    }
  g_assert_cmpuint (fl_test_count_protocol_litter (fx->dir), ==, 0);
  g_assert_false (fl_test_exists (claim));  /* the holder removed it */
}

/* (d) Takers killed in the middle of the claim steps leave dead claims (and orphans); a
 * reader holds LOCK_SH on the stale lock and on the first dead claim. The next takeover goes
 * past them to the next generation (C3) and succeeds, and as the holder removes them. @data
 * lists the steps, one killed taker each: "C1" is killed before its claim has a name, "C2"
 * owning the generation it linked (the second one finds the first dead and links the next). */
static void
test_dead_claim (FlTestDir     *fx,
                 gconstpointer  data)
{
  const char * const *steps = data;
  /* Its shim kills it at the end of the step FL_TEST_CRASH_AT names (fl-crash-shim.c). */
  g_autofree char *worker = fl_test_helper_path ("FL_WORKER_CRASH", "fl-worker-crash");
  g_autofree char *claim = g_strconcat (fx->lock, ".claim.0", NULL);
  const char *argv[] = { worker, "--timeout-ms=20000", "acquire", fx->target, NULL };
  g_autoptr(FlLockOptions) options = fl_lock_options_new ();
  g_autoptr(GError) error = NULL;
  g_autoptr(FlLock) lock = NULL;
  Reader on_lock, on_claim = { 0, -1 };
  gint64 start, took;

  if (skip_unless_root ())
    return;
  make_dir_0755 (fx);
  make_stale_lock (fx);
  on_lock = fork_reader (fx->lock, FALSE);
  reader_expect (&on_lock, 'g');

  for (guint i = 0; steps[i] != NULL; i++)
    {
      g_auto(GStrv) envp = g_environ_setenv (g_get_environ (), "FL_TEST_CRASH_AT", steps[i],
                                             TRUE);
      g_autoptr(FlTestProc) proc = NULL;
      g_autofree char *out = NULL;

      proc = fl_test_proc_spawn (argv, (const char * const *) envp, FL_TEST_SPAWN_DEFAULT);
      out = fl_test_proc_read_all (proc, fl_test_deadline_ms (20000));
      g_assert_true (fl_test_proc_wait (proc, fl_test_deadline_ms (10000)));
      g_test_message ("taker killed at %s, output: \"%s\"", steps[i], out);
      g_assert_cmpint (fl_test_proc_exit_code (proc), ==, KILLED);
      g_assert_true (fl_test_exists (fx->lock));
      if (g_str_equal (steps[i], "C1"))
        g_assert_false (fl_test_exists (claim));  /* killed before the claim had its name */
      else
        {
          g_autofree char *name = g_strdup_printf ("%s.claim.%u", fx->lock, i);

          g_assert_true (fl_test_exists (name));
          g_assert_false (fl_test_kernel_lock_held (name));
        }
    }

  if (fl_test_exists (claim))
    {
      g_assert_no_errno (chmod (claim, 0644));
      on_claim = fork_reader (claim, FALSE);
      reader_expect (&on_claim, 'g');
    }

  fl_lock_options_set_timeout_ms (options, 20000);
  start = g_get_monotonic_time ();
  lock = fl_lock_acquire (fx->target, options, NULL, &error);
  took = g_get_monotonic_time () - start;
  g_assert_no_error (error);
  g_assert_cmpint (took, <, ACQUIRE_BOUND_US);
  assert_sound (fx, lock);
  for (guint i = 0; i <= g_strv_length ((char **) steps); i++)
    {
      g_autofree char *name = g_strdup_printf ("%s.claim.%u", fx->lock, i);
      g_assert_false (fl_test_exists (name));  /* the holder removed the dead claims */
    }
  g_clear_object (&lock);
  reader_kill (&on_lock);
  reader_kill (&on_claim);
}

static const char * const crash_c1[] = { "C1", NULL };
static const char * const crash_c2[] = { "C2", NULL };
static const char * const crash_c2_c2[] = { "C2", "C2", NULL };

/* Messages name the shared holder: a lock of the original module whose PID lives (so it is
 * held by PID rules), with a reader's LOCK_SH on it. */
static void
test_messages_name_reader (FlTestDir     *fx,
                           gconstpointer  data)
{
  g_autofree char *worker = fl_test_helper_path ("FL_WORKER", "fl-worker");
  const char *wait_argv[] = { worker, "wait", NULL };
  g_autoptr(FlTestProc) peer = NULL;
  g_autoptr(FlLockOptions) options = fl_lock_options_new ();
  g_autoptr(FlSnapshot) snapshot = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(FlLock) lock = NULL;
  g_autofree char *ready = NULL;
  g_autofree char *content = NULL;
  g_autofree char *named = NULL;
  Reader reader;

  if (skip_unless_root ())
    return;
  make_dir_0755 (fx);
  /* A live process whose PID is in the file: the original module's lock, no kernel lock. */
  peer = fl_test_proc_spawn (wait_argv, NULL, FL_TEST_SPAWN_DEFAULT);
  ready = fl_test_proc_read_line (peer, fl_test_deadline_ms (20000));
  g_assert_nonnull (ready);
  content = g_strdup_printf ("%d", (int) peer->pid);
  fl_test_write (fx->lock, content, -1);
  g_assert_no_errno (chmod (fx->lock, 0644));
  reader = fork_reader (fx->lock, FALSE);
  reader_expect (&reader, 'g');
  named = g_strdup_printf ("a process with PID %d", (int) reader.pid);

  lock = fl_lock_try_acquire (fx->target, NULL, &error);
  g_assert_null (lock);
  fl_test_assert_error_names (error, FL_ERROR, FL_ERROR_BUSY, fx->lock);
  g_test_message ("busy: %s", error->message);
  g_assert_nonnull (strstr (error->message, named));
  g_assert_nonnull (strstr (error->message, "holds a shared lock on the file"));
  g_clear_error (&error);

  fl_lock_options_set_timeout_ms (options, 200);
  lock = fl_lock_acquire (fx->target, options, NULL, &error);
  g_assert_null (lock);
  fl_test_assert_error_names (error, FL_ERROR, FL_ERROR_TIMEOUT, fx->lock);
  g_test_message ("timeout: %s", error->message);
  g_assert_nonnull (strstr (error->message, named));
  g_clear_error (&error);

  snapshot = fl_snapshot_new (fx->lock, NULL, &error);
  g_assert_no_error (error);
  g_assert_false (fl_snapshot_reclaim (snapshot, NULL, &error));
  g_assert_error (error, FL_ERROR, FL_ERROR_NOT_STALE);
  g_test_message ("reclaim: %s", error->message);
  g_assert_nonnull (strstr (error->message, named));
  g_assert_true (fl_test_exists (fx->lock));

  reader_kill (&reader);
}

#endif

int
main (int    argc,
      char **argv)
{
  g_test_init (&argc, &argv, NULL);

  FL_TEST_ADD_LINUX ("/libfl/shared-holders/reader-holds", NULL, test_reader_holds,
                     "flock(LOCK_SH) of readers run as another user (root)");
  FL_TEST_ADD_LINUX ("/libfl/shared-holders/reclaim", NULL, test_reader_reclaim,
                     "flock(LOCK_SH) of readers run as another user (root)");
  FL_TEST_ADD_LINUX ("/libfl/shared-holders/queued-grant", NULL, test_queued_grant,
                     "flock(LOCK_SH) of readers run as another user (root)");
  FL_TEST_ADD_LINUX ("/libfl/shared-holders/racing-takers", NULL, test_racing_takers,
                     "flock(LOCK_SH) of readers run as another user (root)");
  FL_TEST_ADD_LINUX ("/libfl/shared-holders/dead-claim-C1", crash_c1, test_dead_claim,
                     "the crash shim (fl-worker-crash, link-time wrapping)");
  FL_TEST_ADD_LINUX ("/libfl/shared-holders/dead-claim-C2", crash_c2, test_dead_claim,
                     "the crash shim (fl-worker-crash, link-time wrapping)");
  FL_TEST_ADD_LINUX ("/libfl/shared-holders/dead-claim-C2-C2", crash_c2_c2, test_dead_claim,
                     "the crash shim (fl-worker-crash, link-time wrapping)");
  FL_TEST_ADD_LINUX ("/libfl/shared-holders/messages", NULL, test_messages_name_reader,
                     "flock(LOCK_SH) of a reader and /proc/locks to name it");

  return g_test_run ();
}
