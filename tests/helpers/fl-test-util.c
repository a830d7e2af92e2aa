/* fl-test-util.c: fixtures, files and child processes for the libfl tests
 *
 * Every wait here has a deadline and waits on the event itself (a pipe, a pidfd), never on a
 * sleep.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "fl-test-util.h"
#include "fl-test-counter.h"

#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <grp.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/file.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <linux/sched.h>  /* struct clone_args */
#include <sys/wait.h>
#include <unistd.h>

void
fl_test_dir_setup (FlTestDir     *fx,
                   gconstpointer  data)
{
  g_autoptr(GError) error = NULL;

  fx->dir = g_dir_make_tmp ("libfl-test-XXXXXX", &error);
  g_assert_no_error (error);
  fx->target = g_build_filename (fx->dir, "target", NULL);
  fx->lock = g_strconcat (fx->target, ".lock", NULL);
}

void
fl_test_dir_teardown (FlTestDir     *fx,
                      gconstpointer  data)
{
  fl_test_rm_rf (fx->dir);
  g_clear_pointer (&fx->dir, g_free);
  g_clear_pointer (&fx->target, g_free);
  g_clear_pointer (&fx->lock, g_free);
}

char *
fl_test_helper_path (const char *env_var,
                     const char *name)
{
  const char *from_env = g_getenv (env_var);

  if (from_env != NULL && *from_env != '\0')
    return g_strdup (from_env);
  /* meson sets G_TEST_BUILDDIR to tests/; run by hand, the base is the program's own
   * directory, tests/libfl/. */
  if (g_getenv ("G_TEST_BUILDDIR") != NULL)
    return g_test_build_filename (G_TEST_BUILT, "helpers", name, NULL);
  return g_test_build_filename (G_TEST_BUILT, "..", "helpers", name, NULL);
}

/* FL_TEST_SEED replays a run; the seed is always printed so that a failure can be replayed. */
guint32
fl_test_seed (void)
{
  const char *from_env = g_getenv ("FL_TEST_SEED");
  guint32 seed;

  if (from_env != NULL && *from_env != '\0')
    seed = (guint32) g_ascii_strtoull (from_env, NULL, 10);
  else
    seed = g_random_int ();
  g_test_message ("seed %u (replay with FL_TEST_SEED=%u)", seed, seed);
  return seed;
}

double
fl_test_time_scale (void)
{
  const char *from_env = g_getenv ("FL_TEST_TIME_SCALE");
  double scale = from_env != NULL ? g_ascii_strtod (from_env, NULL) : 1.0;

  /* Never shorter than written, and never absurd. */
  return scale >= 1.0 && scale <= 1000.0 ? scale : 1.0;
}

gint64
fl_test_scaled_ms (gint64 ms)
{
  return (gint64) (ms * fl_test_time_scale ());
}

gint64
fl_test_deadline_ms (gint64 ms_from_now)
{
  return g_get_monotonic_time () + fl_test_scaled_ms (ms_from_now) * G_TIME_SPAN_MILLISECOND;
}

static int
remove_cb (const char        *path,
           const struct stat *st,
           int                type,
           struct FTW        *ftw)
{
  if (remove (path) < 0 && errno != ENOENT)
    g_printerr ("# cannot remove %s: %s\n", path, g_strerror (errno));
  return 0;
}

void
fl_test_rm_rf (const char *path)
{
  if (path != NULL)
    nftw (path, remove_cb, 16, FTW_DEPTH | FTW_PHYS | FTW_MOUNT);
}

void
fl_test_write (const char *path,
               const char *data,
               gssize      len)
{
  int fd;

  if (len < 0)
    len = strlen (data);
  fd = open (path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0644);
  if (fd < 0)
    g_error ("cannot create %s: %s", path, g_strerror (errno));
  g_assert_cmpint (write (fd, data, len), ==, len);
  g_assert_cmpint (close (fd), ==, 0);
}

char *
fl_test_read (const char *path,
              gsize      *len)
{
  g_autoptr(GError) error = NULL;
  char *contents = NULL;

  g_file_get_contents (path, &contents, len, &error);
  g_assert_no_error (error);
  return contents;
}

void
fl_test_set_mtime_ago (const char *path,
                       gint64      seconds)
{
  struct timespec times[2];

  clock_gettime (CLOCK_REALTIME, &times[0]);
  times[0].tv_sec -= seconds;
  times[1] = times[0];
  g_assert_cmpint (utimensat (AT_FDCWD, path, times, AT_SYMLINK_NOFOLLOW), ==, 0);
}

/* A shared probe from a descriptor of our own fails while anyone (this process included) holds
 * LOCK_EX on the inode through another open file description. */
gboolean
fl_test_kernel_lock_held (const char *path)
{
  gboolean held;
  int fd;

  fd = open (path, O_RDONLY | O_NONBLOCK | O_NOFOLLOW | O_CLOEXEC);
  g_assert_cmpint (fd, >=, 0);
  if (flock (fd, LOCK_SH | LOCK_NB) == 0)
    held = FALSE;
  else
    {
      g_assert_cmpint (errno, ==, EWOULDBLOCK);
      held = TRUE;
    }
  close (fd);
  return held;
}

gboolean
fl_test_exists (const char *path)
{
  struct stat st;

  return lstat (path, &st) == 0;
}

static int
compare_names (gconstpointer a,
               gconstpointer b)
{
  return g_strcmp0 (*(char * const *) a, *(char * const *) b);
}

char **
fl_test_list_dir (const char *dir)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GDir) handle = NULL;
  GPtrArray *names = g_ptr_array_new ();
  const char *name;

  handle = g_dir_open (dir, 0, &error);
  g_assert_no_error (error);
  while ((name = g_dir_read_name (handle)) != NULL)
    g_ptr_array_add (names, g_strdup (name));
  g_ptr_array_sort (names, compare_names);
  g_ptr_array_add (names, NULL);
  return (char **) g_ptr_array_free (names, FALSE);
}

/* Temp and graveyard files of any target in @dir. */
guint
fl_test_count_protocol_litter (const char *dir)
{
  g_auto(GStrv) names = fl_test_list_dir (dir);
  guint count = 0;

  for (guint i = 0; names[i] != NULL; i++)
    if (g_str_has_suffix (names[i], ".tmp") || strstr (names[i], ".lock.gy.") != NULL)
      {
        g_test_message ("litter: %s", names[i]);
        count++;
      }
  return count;
}

/* The PID of a child that has exited and been reaped: nothing runs under it now. pid_max may
 * be small (32768), but PIDs are handed out in increasing order, so it is not reused within a
 * test. */
pid_t
fl_test_dead_pid (void)
{
  pid_t pid = fork ();
  int status;

  g_assert_cmpint (pid, >=, 0);
  if (pid == 0)
    _exit (0);
  g_assert_cmpint (waitpid (pid, &status, 0), ==, pid);
  g_assert_true (kill (pid, 0) < 0 && errno == ESRCH);
  return pid;
}

/* A real PID reuse, on demand: a child forked with exactly @pid (clone3's set_tid, which needs
 * CAP_SYS_ADMIN, so root, and Linux 5.5), which waits until it is killed. Returns 0, with
 * errno set, where that cannot be done (another user, an older kernel, @pid in use). */
pid_t
fl_test_fork_with_pid (pid_t pid)
{
  pid_t tids[1] = { pid };
  struct clone_args args;
  long child;

  memset (&args, 0, sizeof args);
  args.exit_signal = SIGCHLD;
  args.set_tid = (guint64) (guintptr) tids;
  args.set_tid_size = 1;
  child = syscall (SYS_clone3, &args, sizeof args);
  if (child == 0)
    {
      /* Raw system calls only: this is a fork of a threaded process. */
      prctl (PR_SET_PDEATHSIG, SIGKILL);
      for (;;)
        pause ();
    }
  return child > 0 ? (pid_t) child : 0;
}

gboolean
fl_test_is_root (void)
{
  return geteuid () == 0;
}

/* Waits until @pid has exited: its pidfd polls readable once the kernel closed its files (and
 * dropped its kernel locks). Without pidfds (old kernels, valgrind) it checks every
 * millisecond whether the process is gone or a zombie, which also comes after its files closed. */
gboolean
fl_test_wait_pid_gone (pid_t  pid,
                       gint64 deadline_us)
{
  int pidfd = (int) syscall (SYS_pidfd_open, pid, 0);
  gboolean gone;

  if (pidfd >= 0)
    {
      struct pollfd pfd = { .fd = pidfd, .events = POLLIN };
      gint64 remaining = deadline_us - g_get_monotonic_time ();

      gone = remaining > 0 && poll (&pfd, 1, (int) MAX (1, remaining / 1000)) == 1;
      close (pidfd);
      return gone;
    }
  if (errno == ESRCH)
    return TRUE;
  while (!(gone = fl_test_pid_is_gone (pid)) && g_get_monotonic_time () < deadline_us)
    g_usleep (1000);
  return gone;
}

static gboolean
deadline_cb (gpointer user_data)
{
  *(gboolean *) user_data = TRUE;
  return G_SOURCE_REMOVE;
}

static gboolean
recheck_cb (gpointer user_data)
{
  return G_SOURCE_CONTINUE;  /* only wakes the loop, so that the condition is asked again */
}

/* Iterates the default main context until @cond holds or @timeout_ms passes. The condition is
 * asked after every event and at least every 5 ms: some (a line in /proc/locks, a process's
 * state) change without any event of this main context, and would otherwise be seen only at
 * the deadline. Returns whether @cond holds. */
gboolean
fl_test_wait_until (gboolean (*cond) (gpointer),
                    gpointer   data,
                    guint      timeout_ms)
{
  gboolean expired = FALSE;
  guint id = g_timeout_add ((guint) MIN (fl_test_scaled_ms (timeout_ms), G_MAXUINT),
                            deadline_cb, &expired);
  guint recheck = g_timeout_add (5, recheck_cb, NULL);

  while (!cond (data) && !expired)
    g_main_context_iteration (NULL, TRUE);
  if (!expired)
    g_source_remove (id);
  g_source_remove (recheck);
  return cond (data);
}

/* Runs in the child before exec. A helper dies with the test that spawned it, so that a failed
 * assertion does not leave workers counting on (prctl is async-signal-safe: a system call). */
static void
child_setup_cb (gpointer user_data)
{
  FlTestSpawnFlags flags = GPOINTER_TO_UINT (user_data);

  prctl (PR_SET_PDEATHSIG, SIGKILL);
  if ((flags & FL_TEST_SPAWN_AS_NOBODY) &&
      (setgroups (0, NULL) < 0 || setgid (65534) < 0 || setuid (65534) < 0))
    _exit (99);
}

FlTestProc *
fl_test_proc_spawn (const char * const *argv,
                    const char * const *envp,
                    FlTestSpawnFlags    flags)
{
  g_autoptr(GError) error = NULL;
  FlTestProc *proc = g_new0 (FlTestProc, 1);

  /* CLOEXEC pipes: a later child must not inherit this one's stdin, or closing it would never
   * reach this child as end-of-file. */
  g_spawn_async_with_pipes (NULL, (char **) argv, (char **) envp,
                            G_SPAWN_DO_NOT_REAP_CHILD | G_SPAWN_CLOEXEC_PIPES,
                            child_setup_cb, GUINT_TO_POINTER (flags),
                            &proc->pid, &proc->stdin_fd, &proc->stdout_fd, NULL, &error);
  g_assert_no_error (error);
  proc->out = g_string_new (NULL);
  proc->pidfd = (int) syscall (SYS_pidfd_open, proc->pid, 0);
  return proc;
}

/* Reads what is available into proc->out; FALSE at end-of-file or deadline. */
static gboolean
fill (FlTestProc *proc,
      gint64      deadline_us)
{
  struct pollfd pfd = { .fd = proc->stdout_fd, .events = POLLIN };
  char buf[4096];
  gint64 remaining;
  ssize_t n;

  if (proc->stdout_fd < 0)
    return FALSE;
  remaining = deadline_us - g_get_monotonic_time ();
  if (remaining <= 0)
    return FALSE;
  if (poll (&pfd, 1, (int) MAX (1, remaining / 1000)) <= 0)
    return FALSE;
  n = read (proc->stdout_fd, buf, sizeof buf);
  if (n <= 0)
    {
      close (proc->stdout_fd);
      proc->stdout_fd = -1;
      return FALSE;
    }
  g_string_append_len (proc->out, buf, n);
  return TRUE;
}

char *
fl_test_proc_read_line (FlTestProc *proc,
                        gint64      deadline_us)
{
  for (;;)
    {
      const char *nl = memchr (proc->out->str, '\n', proc->out->len);

      if (nl != NULL)
        {
          gsize len = nl - proc->out->str;
          char *line = g_strndup (proc->out->str, len);

          g_string_erase (proc->out, 0, len + 1);
          return line;
        }
      if (!fill (proc, deadline_us))
        return NULL;
    }
}

char *
fl_test_proc_read_all (FlTestProc *proc,
                       gint64      deadline_us)
{
  char *all;

  while (fill (proc, deadline_us))
    ;
  all = g_strndup (proc->out->str, proc->out->len);
  g_string_truncate (proc->out, 0);
  return all;
}

void
fl_test_proc_close_stdin (FlTestProc *proc)
{
  if (proc->stdin_fd >= 0)
    {
      close (proc->stdin_fd);
      proc->stdin_fd = -1;
    }
}

static gboolean
reap (FlTestProc *proc)
{
  pid_t ret;

  if (proc->exited)
    return TRUE;
  ret = waitpid (proc->pid, &proc->wait_status, WNOHANG);
  g_assert_cmpint (ret, >=, 0);
  if (ret == 0)
    return FALSE;
  proc->exited = TRUE;
  if (proc->pidfd >= 0)
    {
      close (proc->pidfd);
      proc->pidfd = -1;
    }
  return TRUE;
}

gboolean
fl_test_proc_wait (FlTestProc *proc,
                   gint64      deadline_us)
{
  g_autoptr(GPtrArray) one = g_ptr_array_new ();

  g_ptr_array_add (one, proc);
  return fl_test_proc_wait_any (one, deadline_us) == 0;
}

/* Reaps one child of @procs that has exited (index), or returns -1 at the deadline. */
int
fl_test_proc_wait_any (GPtrArray *procs,
                       gint64     deadline_us)
{
  for (;;)
    {
      g_autofree struct pollfd *pfds = g_new0 (struct pollfd, MAX (procs->len, 1));
      gint64 remaining;
      guint n = 0;
      gboolean have_pidfds = TRUE;

      for (guint i = 0; i < procs->len; i++)
        {
          FlTestProc *proc = g_ptr_array_index (procs, i);

          if (proc->exited)
            continue;
          if (reap (proc))
            return (int) i;
          if (proc->pidfd < 0)
            have_pidfds = FALSE;
          pfds[n].fd = proc->pidfd;
          pfds[n].events = POLLIN;
          n++;
        }
      if (n == 0)
        return -1;
      remaining = deadline_us - g_get_monotonic_time ();
      if (remaining <= 0)
        return -1;
      /* Without pidfds (old kernels) this degrades to a short poll of waitpid(). */
      poll (pfds, n, have_pidfds ? (int) MAX (1, remaining / 1000) : 5);
    }
}

void
fl_test_counters_wait (GPtrArray  *procs,
                       const char *counter,
                       gint64      deadline_us)
{
  for (guint finished = 0; finished < procs->len; finished++)
    {
      int i = fl_test_proc_wait_any (procs, deadline_us);
      FlTestProc *proc;

      if (i < 0)
        g_error ("%u of %u workers still running at the deadline; counter at %ld",
                 procs->len - finished, procs->len, fl_test_counter_read (counter));
      proc = g_ptr_array_index (procs, i);
      if (fl_test_proc_exit_code (proc) == FL_TEST_EXIT_OVERLAP)
        g_error ("worker %d (spawned as number %d) found another holder inside the critical "
                 "section", (int) proc->pid, i);
      /* Exit 4 is also a release that found its lock taken (FL_ERROR_LOST). */
      g_assert_cmpint (fl_test_proc_exit_code (proc), ==, 0);
    }
}

void
fl_test_proc_kill (FlTestProc *proc)
{
  if (proc->exited)
    return;
  kill (proc->pid, SIGKILL);
  g_assert_cmpint (waitpid (proc->pid, &proc->wait_status, 0), ==, proc->pid);
  proc->exited = TRUE;
  if (proc->pidfd >= 0)
    {
      close (proc->pidfd);
      proc->pidfd = -1;
    }
}

/* The exit status, 128 + signal for a killed child, -1 while it runs. */
int
fl_test_proc_exit_code (FlTestProc *proc)
{
  if (!proc->exited)
    return -1;
  if (WIFEXITED (proc->wait_status))
    return WEXITSTATUS (proc->wait_status);
  if (WIFSIGNALED (proc->wait_status))
    return 128 + WTERMSIG (proc->wait_status);
  return -1;
}

void
fl_test_proc_free (FlTestProc *proc)
{
  if (proc == NULL)
    return;
  fl_test_proc_close_stdin (proc);
  fl_test_proc_kill (proc);
  if (proc->stdout_fd >= 0)
    close (proc->stdout_fd);
  g_string_free (proc->out, TRUE);
  g_free (proc);
}

FlTestProc *
fl_test_spawn_holder_argv (const char * const *argv)
{
  FlTestProc *holder = fl_test_proc_spawn (argv, NULL, FL_TEST_SPAWN_DEFAULT);
  g_autofree char *line = fl_test_proc_read_line (holder, fl_test_deadline_ms (10000));
  g_autofree char *expected = g_strdup_printf ("held %d", (int) holder->pid);

  g_assert_cmpstr (line, ==, expected);
  return holder;
}

FlTestProc *
fl_test_spawn_holder_of (const char *env_var,
                         const char *helper,
                         const char *target)
{
  g_autofree char *path = fl_test_helper_path (env_var, helper);
  const char *argv[] = { path, "hold", target, NULL };

  return fl_test_spawn_holder_argv (argv);
}

char **
fl_test_module_argv (void)
{
  g_autofree char *node = g_find_program_in_path ("node");
  const char *driver = g_getenv ("FL_MODULE_DRIVER");
  const char *module = g_getenv ("FL_NODE_REFERENCE");

  /* Not a skip: a run without the reference would pass without checking what it claims. */
  if (node == NULL || driver == NULL || module == NULL ||
      !g_file_test (module, G_FILE_TEST_IS_REGULAR))
    g_error ("the Node.js module these tests compare libfl with is missing (node: %s; "
             "FL_NODE_REFERENCE: %s): run build-aux/install-deps",
             node != NULL ? node : "not found", module != NULL ? module : "unset");
  return g_strdupv ((char *[]) { node, (char *) driver, NULL });
}

FlTestProc *
fl_test_spawn_module_holder (const char *target)
{
  g_auto(GStrv) module = fl_test_module_argv ();
  const char *argv[] = { module[0], module[1], "hold", target, NULL };
  FlTestProc *holder = fl_test_proc_spawn (argv, NULL, FL_TEST_SPAWN_DEFAULT);
  /* node's start-up, on a busy machine, is most of this. */
  g_autofree char *line = fl_test_proc_read_line (holder, fl_test_deadline_ms (30000));
  g_autofree char *expected = g_strdup_printf ("held %d", (int) holder->pid);

  g_assert_cmpstr (line, ==, expected);
  return holder;
}

/* The usual holder: fl-worker, which takes the lock with libfl. */
FlTestProc *
fl_test_spawn_holder (const char *target)
{
  return fl_test_spawn_holder_of ("FL_WORKER", "fl-worker", target);
}

/* Closes the holder's stdin and waits until it has let go and exited cleanly. */
void
fl_test_holder_release (FlTestProc *holder)
{
  g_autofree char *line = NULL;

  fl_test_proc_close_stdin (holder);
  line = fl_test_proc_read_line (holder, fl_test_deadline_ms (10000));
  g_assert_cmpstr (line, ==, "released");
  g_assert_true (fl_test_proc_wait (holder, fl_test_deadline_ms (10000)));
  g_assert_cmpint (fl_test_proc_exit_code (holder), ==, 0);
}

gboolean
fl_test_wait_readable (int    fd,
                       gint64 deadline_us)
{
  for (;;)
    {
      struct pollfd pfd = { fd, POLLIN, 0 };
      gint64 left_ms = (deadline_us - g_get_monotonic_time () + 999) / 1000;
      int r;

      if (left_ms <= 0)
        return FALSE;
      r = poll (&pfd, 1, (int) MIN (left_ms, G_MAXINT));
      if (r > 0)
        return TRUE;
      g_assert_true (r == 0 || errno == EINTR);
    }
}

FlTestProc *
fl_test_spawn_waiting (void)
{
  g_autofree char *worker = fl_test_helper_path ("FL_WORKER", "fl-worker");
  const char *argv[] = { worker, "wait", NULL };
  FlTestProc *proc = fl_test_proc_spawn (argv, NULL, FL_TEST_SPAWN_DEFAULT);
  g_autofree char *line = fl_test_proc_read_line (proc, fl_test_deadline_ms (10000));
  g_autofree char *expected = g_strdup_printf ("ready %d", (int) proc->pid);

  g_assert_cmpstr (line, ==, expected);
  return proc;
}

/* Only async-signal-safe calls in the child. */
static gboolean
locker_take (int         fd,
             const char *kind,
             gboolean    blocking)
{
  struct flock range = { .l_type = F_RDLCK, .l_whence = SEEK_SET, .l_start = 0, .l_len = 10 };
  struct flock whole = { .l_type = F_WRLCK, .l_whence = SEEK_SET };

  if (strcmp (kind, "flock") == 0)
    return flock (fd, LOCK_EX | (blocking ? 0 : LOCK_NB)) == 0;
  if (strcmp (kind, "posix") == 0)
    return fcntl (fd, blocking ? F_SETLKW : F_SETLK, &range) == 0;
  return fcntl (fd, blocking ? F_OFD_SETLKW : F_OFD_SETLK, &whole) == 0;
}

FlTestLocker
fl_test_fork_locker (const char *path,
                     const char *kind,
                     gboolean    blocking)
{
  FlTestLocker locker;
  int ready[2], release[2];
  /* Asked before fork(); under valgrind the limit stops below the descriptors it keeps. */
  long max_fd = MIN (sysconf (_SC_OPEN_MAX), 65536);
  char byte = 0;

  g_assert_no_errno (pipe2 (ready, O_CLOEXEC));
  g_assert_no_errno (pipe2 (release, O_CLOEXEC));
  locker.pid = fork ();
  g_assert_cmpint (locker.pid, >=, 0);
  if (locker.pid == 0)
    {
      int fd;
      gboolean ok;

      prctl (PR_SET_PDEATHSIG, SIGKILL);
      /* The ends of other lockers' pipes, inherited, would keep them holding. */
      for (int other = 3; other < max_fd; other++)
        if (other != ready[1] && other != release[0])
          close (other);
      fd = open (path, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
      ok = fd >= 0 && locker_take (fd, kind, blocking);
      byte = ok ? 'y' : 'n';
      /* A blocking one's pipe has no reader any more: nothing to say. */
      if (!ok || (!blocking && write (ready[1], &byte, 1) != 1))
        _exit (1);
      /* Holds until the parent closes its end (or dies). */
      while (read (release[0], &byte, 1) < 0 && errno == EINTR)
        ;
      _exit (0);
    }
  close (ready[1]);
  close (release[0]);
  locker.release_fd = release[1];
  if (!blocking)
    {
      g_assert_true (fl_test_wait_readable (ready[0], fl_test_deadline_ms (10000)));
      g_assert_cmpint (read (ready[0], &byte, 1), ==, 1);
      g_assert_cmpint (byte, ==, 'y');
    }
  close (ready[0]);
  return locker;
}

void
fl_test_locker_release (FlTestLocker *locker)
{
  int status = 0;

  if (locker->pid <= 0)
    return;
  close (locker->release_fd);
  g_assert_cmpint (waitpid (locker->pid, &status, 0), ==, locker->pid);
  locker->pid = 0;
}

void
fl_test_assert_child_ok (int    (*child_cb) (gpointer),
                         gpointer data)
{
  int status;
  pid_t child = fork ();

  g_assert_cmpint (child, >=, 0);
  if (child == 0)
    _exit (child_cb (data));
  g_assert_cmpint (waitpid (child, &status, 0), ==, child);
  g_assert_true (WIFEXITED (status));
  g_assert_cmpint (WEXITSTATUS (status), ==, 0);
}
