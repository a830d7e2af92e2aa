/* test-acquire.c: taking and releasing a lock, and what it leaves on disk
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include <libfl/fl.h>

#include <errno.h>
#include <string.h>
#include <unistd.h>
#ifdef __linux__
#include <dlfcn.h>
#include <sys/inotify.h>
#include <sys/wait.h>
#include <sys/xattr.h>
#endif

#include "protocol/fl-lock-private.h"
#include "fl-test-util.h"

static char *
self_pid_text (void)
{
  return g_strdup_printf ("%d", (int) getpid ());
}

static void
test_lock_path_for (void)
{
  g_autofree char *a = fl_lock_path_for ("dir/target");
  g_autofree char *b = fl_lock_path_for ("/srv/data.json");
  g_autofree char *c = fl_lock_path_for ("plain");

  g_assert_cmpstr (a, ==, "dir/target.lock");
  g_assert_cmpstr (b, ==, "/srv/data.json.lock");
  g_assert_cmpstr (c, ==, "plain.lock");
}

/* Everything a holder promises while it holds: the name, the exact content, the kernel lock,
 * the identity, and no temp file. */
static void
check_held (FlTestDir *fx,
            FlLock    *lock)
{
  g_autofree char *content = NULL;
  g_autofree char *pid = self_pid_text ();
  g_auto(GStrv) names = fl_test_list_dir (fx->dir);
  gsize len;

  g_assert_true (fl_lock_is_held (lock));
  g_assert_cmpstr (fl_lock_get_target (lock), ==, fx->target);
  g_assert_cmpstr (fl_lock_get_path (lock), ==, fx->lock);

  content = fl_test_read (fx->lock, &len);
  g_assert_cmpmem (content, len, pid, strlen (pid));

  g_assert_cmpuint (g_strv_length (names), ==, 1);
  g_assert_cmpstr (names[0], ==, "target.lock");

  g_assert_true (fl_test_kernel_lock_held (fx->lock));

#ifdef __linux__
  {
    char xattr[256];
    gssize n = lgetxattr (fx->lock, "user.libfl.holder", xattr, sizeof xattr - 1);

    if (n < 0 && (errno == ENOTSUP || errno == EOPNOTSUPP))
      g_test_message ("no user xattrs on %s: identity not checked", fx->dir);
    else
      {
        g_autofree char *prefix = g_strdup_printf ("2 %s ", pid);

        g_assert_cmpint (n, >, 0);
        /* Small enough for ext4 to keep inside the inode (docs/protocol.md, section 1). */
        g_assert_cmpint (n, <=, 60);
        xattr[n] = '\0';
        g_assert_true (g_str_has_prefix (xattr, prefix));
      }
  }
#else
  /* The identity is a user xattr, which only the Linux platform file writes (porting.md). */
  g_test_message ("identity not checked: no user xattrs here");
#endif
}

static void
count_notify_cb (GObject    *object,
                 GParamSpec *pspec,
                 gpointer    data)
{
  (*(guint *) data)++;
}

static void
test_acquire_release (FlTestDir     *fx,
                      gconstpointer  data)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(FlLock) lock = NULL;
  guint held_notified = 0;

  _fl_lock_set_force_named_temp (GPOINTER_TO_INT (data));

  lock = fl_lock_acquire (fx->target, NULL, NULL, &error);
  g_assert_no_error (error);
  g_assert_nonnull (lock);
  check_held (fx, lock);
  g_signal_connect (lock, "notify::held", G_CALLBACK (count_notify_cb), &held_notified);

  g_assert_true (fl_lock_release (lock, &error));
  g_assert_no_error (error);
  g_assert_false (fl_lock_is_held (lock));
  g_assert_false (fl_test_exists (fx->lock));
  g_assert_cmpuint (fl_test_count_protocol_litter (fx->dir), ==, 0);
  g_assert_cmpuint (held_notified, ==, 1);

  /* Releasing twice does nothing the second time, and says nothing changed. */
  g_assert_true (fl_lock_release (lock, &error));
  g_assert_no_error (error);
  g_assert_cmpuint (held_notified, ==, 1);

  _fl_lock_set_force_named_temp (FALSE);
}

#ifdef __linux__
/* Watches the directory while acquiring: the O_TMPFILE path never gives the temp a name, the
 * named path creates `target.lock.<pid>.<8 hex>.tmp` and removes it. */
static void
test_temp_path (FlTestDir     *fx,
                gconstpointer  data)
{
  gboolean named = GPOINTER_TO_INT (data);
  g_autoptr(GError) error = NULL;
  g_autoptr(FlLock) lock = NULL;
  g_autoptr(GRegex) temp_re = NULL;
  char buf[8192] __attribute__ ((aligned (__alignof__ (struct inotify_event))));
  gboolean saw_temp = FALSE, saw_lock = FALSE;
  ssize_t n;
  int ifd;

  temp_re = g_regex_new ("^target\\.lock\\.[0-9]+\\.[0-9a-f]{8}\\.tmp$", 0, 0, &error);
  g_assert_no_error (error);
  ifd = inotify_init1 (IN_NONBLOCK | IN_CLOEXEC);
  g_assert_cmpint (ifd, >=, 0);
  g_assert_cmpint (inotify_add_watch (ifd, fx->dir, IN_CREATE), >=, 0);

  _fl_lock_set_force_named_temp (named);
  lock = fl_lock_acquire (fx->target, NULL, NULL, &error);
  _fl_lock_set_force_named_temp (FALSE);
  g_assert_no_error (error);

  n = read (ifd, buf, sizeof buf);
  g_assert_cmpint (n, >, 0);
  for (char *p = buf; p < buf + n;)
    {
      struct inotify_event *ev = (struct inotify_event *) p;

      if (ev->len > 0)
        {
          g_test_message ("created: %s", ev->name);
          if (g_regex_match (temp_re, ev->name, 0, NULL))
            saw_temp = TRUE;
          else if (g_str_equal (ev->name, "target.lock"))
            saw_lock = TRUE;
          else
            g_error ("unexpected file created while acquiring: %s", ev->name);
        }
      p += sizeof *ev + ev->len;
    }
  close (ifd);

  g_assert_true (saw_lock);
  g_assert_cmpint (saw_temp, ==, named);
  check_held (fx, lock);
  g_assert_true (fl_lock_release (lock, &error));
  g_assert_no_error (error);
}
#endif

static void
test_try_busy (FlTestDir     *fx,
               gconstpointer  data)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(FlLock) first = NULL;
  g_autoptr(FlLock) second = NULL;
  g_autofree char *pid = self_pid_text ();

  first = fl_lock_try_acquire (fx->target, NULL, &error);
  g_assert_no_error (error);

  /* This process is the holder: refused at once (test-held-by-self.c), never judged BUSY. */
  second = fl_lock_try_acquire (fx->target, NULL, &error);
  g_assert_null (second);
  fl_test_assert_error_names (error, FL_ERROR, FL_ERROR_HELD_BY_SELF, fx->lock);
  g_assert_nonnull (strstr (error->message, pid));
  g_clear_error (&error);

  /* The failed attempt left the holder's lock alone, and nothing of its own. */
  check_held (fx, first);
  g_assert_true (fl_lock_release (first, &error));

  second = fl_lock_try_acquire (fx->target, NULL, &error);
  g_assert_no_error (error);
  g_assert_true (fl_lock_release (second, &error));
  g_assert_no_error (error);
}

/* Another process holds the lock: busy while it lives, ours once it released. */
static void
test_other_process (FlTestDir     *fx,
                    gconstpointer  data)
{
  g_autoptr(FlTestProc) holder = fl_test_spawn_holder (fx->target);
  g_autoptr(GError) error = NULL;
  g_autoptr(FlLock) lock = NULL;

  g_assert_true (fl_test_kernel_lock_held (fx->lock));

  lock = fl_lock_try_acquire (fx->target, NULL, &error);
  g_assert_null (lock);
  fl_test_assert_error_names (error, FL_ERROR, FL_ERROR_BUSY, fx->lock);
  g_clear_error (&error);
  g_assert_true (fl_is_locked (fx->target, NULL, &error));
  g_assert_no_error (error);

  fl_test_holder_release (holder);

  lock = fl_lock_try_acquire (fx->target, NULL, &error);
  g_assert_no_error (error);
  check_held (fx, lock);
}

/* A stale T.lock: not locked, and a single try takes it over. */
static void
check_taken_over (FlTestDir *fx)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(FlLock) lock = NULL;

  g_assert_false (fl_is_locked (fx->target, NULL, &error));
  g_assert_no_error (error);

  lock = fl_lock_try_acquire (fx->target, NULL, &error);
  g_assert_no_error (error);
  check_held (fx, lock);
}

/* A holder killed with SIGKILL leaves T.lock whose kernel lock the kernel dropped: stale at
 * once, taken over without waiting. */
static void
test_killed_holder (FlTestDir     *fx,
                    gconstpointer  data)
{
  g_autoptr(FlTestProc) holder = fl_test_spawn_holder (fx->target);

  fl_test_proc_kill (holder);
  g_assert_true (fl_test_exists (fx->lock));
  g_assert_false (fl_test_kernel_lock_held (fx->lock));
  check_taken_over (fx);
}

/* A lock in the original format whose PID is gone (no kernel lock, no identity). */
static void
test_dead_pid (FlTestDir     *fx,
               gconstpointer  data)
{
  g_autofree char *dead = g_strdup_printf ("%d", (int) fl_test_dead_pid ());

  fl_test_write (fx->lock, dead, -1);
  check_taken_over (fx);
}

static void
test_is_locked (FlTestDir     *fx,
                gconstpointer  data)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(FlLock) lock = NULL;

  g_assert_false (fl_is_locked (fx->target, NULL, &error));
  g_assert_no_error (error);

  lock = fl_lock_acquire (fx->target, NULL, NULL, &error);
  g_assert_no_error (error);
  g_assert_true (fl_is_locked (fx->target, NULL, &error));
  g_assert_no_error (error);
  /* Asking leaves the lock as it was. */
  check_held (fx, lock);

  g_assert_true (fl_lock_release (lock, &error));
  g_assert_false (fl_is_locked (fx->target, NULL, &error));
  g_assert_no_error (error);
}

typedef struct
{
  FlTestDir *fx;
  gboolean   fail;
  guint      calls;
} WithLockData;

static gboolean
critical_cb (gpointer   user_data,
             GError   **error)
{
  WithLockData *data = user_data;
  g_autofree char *content = NULL;
  g_autofree char *pid = self_pid_text ();
  gsize len;

  data->calls++;
  content = fl_test_read (data->fx->lock, &len);
  g_assert_cmpmem (content, len, pid, strlen (pid));
  g_assert_true (fl_test_kernel_lock_held (data->fx->lock));
  if (data->fail)
    {
      g_set_error_literal (error, G_IO_ERROR, G_IO_ERROR_PARTIAL_INPUT, "the section failed");
      return FALSE;
    }
  return TRUE;
}

static void
test_with_lock (FlTestDir     *fx,
                gconstpointer  user_data)
{
  g_autoptr(GError) error = NULL;
  WithLockData data = { fx, FALSE, 0 };

  g_assert_true (fl_with_lock (fx->target, critical_cb, &data, NULL, NULL, &error));
  g_assert_no_error (error);
  g_assert_cmpuint (data.calls, ==, 1);
  g_assert_false (fl_test_exists (fx->lock));

  /* The function's own error comes back as it was, and the lock is released anyway. */
  data.fail = TRUE;
  g_assert_false (fl_with_lock (fx->target, critical_cb, &data, NULL, NULL, &error));
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_PARTIAL_INPUT);
  g_assert_cmpuint (data.calls, ==, 2);
  g_assert_false (fl_test_exists (fx->lock));
}

/* fl_with_lock on a lock held elsewhere (another process; this one's is test-held-by-self.c)
 * never runs the function. */
static void
test_with_lock_timeout (FlTestDir     *fx,
                        gconstpointer  user_data)
{
  g_autoptr(FlLockOptions) options = fl_lock_options_new ();
  g_autoptr(GError) error = NULL;
  g_autoptr(FlTestProc) holder = fl_test_spawn_holder (fx->target);
  WithLockData data = { fx, FALSE, 0 };

  fl_lock_options_set_timeout_ms (options, 50);
  g_assert_false (fl_with_lock (fx->target, critical_cb, &data, options, NULL, &error));
  fl_test_assert_error_names (error, FL_ERROR, FL_ERROR_TIMEOUT, fx->lock);
  g_assert_cmpuint (data.calls, ==, 0);
  g_assert_true (fl_test_kernel_lock_held (fx->lock));
  fl_test_holder_release (holder);
}

static void
test_reacquire_many (FlTestDir     *fx,
                     gconstpointer  data)
{
  for (guint i = 0; i < 500; i++)
    {
      g_autoptr(GError) error = NULL;
      g_autoptr(FlLock) lock = fl_lock_try_acquire (fx->target, NULL, &error);

      g_assert_no_error (error);
      g_assert_true (fl_lock_release (lock, &error));
      g_assert_no_error (error);
    }
  g_assert_false (fl_test_exists (fx->lock));
  g_assert_cmpuint (fl_test_count_protocol_litter (fx->dir), ==, 0);
}

/* Dropping the last reference releases. */
static void
test_unref_releases (FlTestDir     *fx,
                     gconstpointer  data)
{
  g_autoptr(GError) error = NULL;
  FlLock *lock = fl_lock_acquire (fx->target, NULL, NULL, &error);

  g_assert_no_error (error);
  g_assert_true (fl_test_exists (fx->lock));
  g_assert_finalize_object (lock);
  g_assert_false (fl_test_exists (fx->lock));
}

#ifdef __linux__
typedef struct
{
  FlTestDir *fx;
  FlLock    *lock;
} ForkChild;

static int
child_releases (gpointer data)
{
  ForkChild *c = data;
  gboolean released = fl_lock_release (c->lock, NULL);
  gboolean still_there = access (c->fx->lock, F_OK) == 0;

  g_object_unref (c->lock);
  return released && still_there && access (c->fx->lock, F_OK) == 0 ? 0 : 1;
}

/* A forked child that does not exec inherits the object and a copy of the descriptor: its
 * release (or unref) drops only its copy, never the parent's lock. */
static void
test_fork_child (FlTestDir     *fx,
                 gconstpointer  data)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(FlLock) lock = fl_lock_acquire (fx->target, NULL, NULL, &error);
  ForkChild child = { fx, lock };

  g_assert_no_error (error);
  fl_test_assert_child_ok (child_releases, &child);

  check_held (fx, lock);
  g_assert_true (fl_lock_release (lock, &error));
  g_assert_no_error (error);
  g_assert_false (fl_test_exists (fx->lock));
}

/* What a raw-forked child checks; returns its exit status. Frees what it made, so that valgrind
 * finds nothing lost at its _exit(). */
static int
raw_fork_child_checks (FlTestDir  *fx,
                       FlLock     *lock,
                       const char *other,
                       const char *other_lock)
{
  g_autofree char *expected = g_strdup_printf ("%d", (int) getpid ());
  g_autofree char *content = NULL;
  g_autoptr(FlLock) mine = NULL;

  if (fl_lock_is_held (lock))
    return 1;
  if (!fl_lock_release (lock, NULL))
    return 2;
  g_object_unref (lock);
  if (access (fx->lock, F_OK) != 0)
    return 3;

  /* The child's own lock, through a named temp: content and temp name carry its PID. */
  _fl_lock_set_force_named_temp (TRUE);
  mine = fl_lock_acquire (other, NULL, NULL, NULL);
  if (mine == NULL)
    return 4;
  if (!g_file_get_contents (other_lock, &content, NULL, NULL) ||
      g_strcmp0 (content, expected) != 0)
    return 5;
  if (!fl_lock_is_held (mine) || !fl_lock_release (mine, NULL) ||
      access (other_lock, F_OK) == 0)
    return 6;
  return 0;
}

/* glibc's _Fork() (2.34) runs no atfork handlers, so nothing a library registered there tells it
 * that it is now a child. Ownership must still follow the real PID: the child's copy of the
 * FlLock is not held, its release removes nothing, and what it creates names its own PID. */
static void
test_raw_fork_child (FlTestDir     *fx,
                     gconstpointer  data)
{
  pid_t (*raw_fork) (void) = (pid_t (*) (void)) dlsym (RTLD_DEFAULT, "_Fork");
  g_autoptr(GError) error = NULL;
  g_autoptr(FlLock) lock = NULL;
  g_autofree char *other = g_build_filename (fx->dir, "other", NULL);
  g_autofree char *other_lock = g_build_filename (fx->dir, "other.lock", NULL);
  int status;
  pid_t child;

  if (raw_fork == NULL)
    {
      g_test_skip ("this C library has no _Fork() (glibc >= 2.34)");
      return;
    }

  lock = fl_lock_acquire (fx->target, NULL, NULL, &error);
  g_assert_no_error (error);
  child = raw_fork ();
  g_assert_cmpint (child, >=, 0);
  if (child == 0)
    {
      /* No assertions here: each failed check is its own exit status. */
      _exit (raw_fork_child_checks (fx, lock, other, other_lock));
    }
  g_assert_cmpint (waitpid (child, &status, 0), ==, child);
  g_assert_true (WIFEXITED (status));
  g_assert_cmpint (WEXITSTATUS (status), ==, 0);

  /* The parent's lock is still there, still its own, and another process cannot have it. */
  check_held (fx, lock);
  {
    g_autoptr(FlTestProc) proc = NULL;
    g_autofree char *line = NULL;
    g_autofree char *worker = fl_test_helper_path ("FL_WORKER", "fl-worker");
    const char *argv[] = { worker, "try", fx->target, NULL };

    proc = fl_test_proc_spawn (argv, NULL, FL_TEST_SPAWN_DEFAULT);
    line = fl_test_proc_read_line (proc, fl_test_deadline_ms (30000));
    g_assert_nonnull (line);
    g_assert_true (g_str_has_prefix (line, "error "));
  }
  g_assert_true (fl_lock_release (lock, &error));
  g_assert_no_error (error);
  g_assert_false (fl_test_exists (fx->lock));
}

/* Every descriptor libfl keeps is close-on-exec: a program the holder runs inherits neither the
 * lock file nor its directory (and cannot keep the kernel lock alive after the holder died). */
static void
test_cloexec (FlTestDir     *fx,
              gconstpointer  data)
{
  const char *argv[] = { "/bin/ls", "-l", "/proc/self/fd/", NULL };
  g_autoptr(GError) error = NULL;
  g_autoptr(FlLock) lock = NULL;
  g_autofree char *out = NULL;
  int status;

  _fl_lock_set_force_named_temp (GPOINTER_TO_INT (data));
  lock = fl_lock_acquire (fx->target, NULL, NULL, &error);
  _fl_lock_set_force_named_temp (FALSE);
  g_assert_no_error (error);

  g_spawn_sync (NULL, (char **) argv, NULL, G_SPAWN_LEAVE_DESCRIPTORS_OPEN, NULL, NULL, &out,
                NULL, &status, &error);
  g_assert_no_error (error);
  g_test_message ("%s", out);
  g_assert_nonnull (strstr (out, "/proc/"));   /* ls's own view of the directory */
  g_assert_null (strstr (out, fx->dir));
}
#endif

static void
test_options (void)
{
  g_autoptr(FlLockOptions) options = fl_lock_options_new ();
  g_autoptr(FlLockOptions) copy = NULL;
  gint64 min_ms, max_ms;

  g_assert_cmpint (fl_lock_options_get_timeout_ms (options), ==, FL_DEFAULT_TIMEOUT_MS);
  g_assert_cmpint (fl_lock_options_get_stale_after_ms (options), ==, FL_DEFAULT_STALE_AFTER_MS);
  g_assert_false (fl_lock_options_get_create_dirs (options));
  fl_lock_options_get_backoff_ms (options, &min_ms, &max_ms);
  g_assert_cmpint (min_ms, ==, FL_DEFAULT_BACKOFF_MIN_MS);
  g_assert_cmpint (max_ms, ==, FL_DEFAULT_BACKOFF_MAX_MS);

  fl_lock_options_set_timeout_ms (options, 1234);
  fl_lock_options_set_stale_after_ms (options, 5678);
  fl_lock_options_set_create_dirs (options, TRUE);
  fl_lock_options_set_backoff_ms (options, 2, 20);
  copy = fl_lock_options_copy (options);
  fl_lock_options_set_timeout_ms (options, 1);
  g_assert_cmpint (fl_lock_options_get_timeout_ms (copy), ==, 1234);
  g_assert_cmpint (fl_lock_options_get_stale_after_ms (copy), ==, 5678);
  g_assert_true (fl_lock_options_get_create_dirs (copy));
  fl_lock_options_get_backoff_ms (copy, &min_ms, &max_ms);
  g_assert_cmpint (min_ms, ==, 2);
  g_assert_cmpint (max_ms, ==, 20);
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/libfl/names/lock-path-for", test_lock_path_for);
  g_test_add_func ("/libfl/options", test_options);
  FL_TEST_ADD ("/libfl/acquire/release", GINT_TO_POINTER (FALSE), test_acquire_release);
  FL_TEST_ADD ("/libfl/acquire/release-named-temp", GINT_TO_POINTER (TRUE),
               test_acquire_release);
  FL_TEST_ADD_LINUX ("/libfl/acquire/temp/o-tmpfile", GINT_TO_POINTER (FALSE), test_temp_path,
                     "inotify, to see every name made while acquiring; O_TMPFILE");
  FL_TEST_ADD_LINUX ("/libfl/acquire/temp/named", GINT_TO_POINTER (TRUE), test_temp_path,
                     "inotify, to see every name made while acquiring");
  FL_TEST_ADD ("/libfl/acquire/try-busy", NULL, test_try_busy);
  FL_TEST_ADD ("/libfl/acquire/other-process", NULL, test_other_process);
  FL_TEST_ADD ("/libfl/acquire/killed-holder", NULL, test_killed_holder);
  FL_TEST_ADD ("/libfl/acquire/dead-pid", NULL, test_dead_pid);
  FL_TEST_ADD ("/libfl/acquire/reacquire-many", NULL, test_reacquire_many);
  FL_TEST_ADD ("/libfl/acquire/unref-releases", NULL, test_unref_releases);
  FL_TEST_ADD_LINUX ("/libfl/acquire/fork-child", NULL, test_fork_child, "fork()");
  FL_TEST_ADD_LINUX ("/libfl/acquire/raw-fork-child", NULL, test_raw_fork_child,
                     "fork() without atfork handlers (glibc's _Fork())");
  FL_TEST_ADD_LINUX ("/libfl/acquire/cloexec", GINT_TO_POINTER (FALSE), test_cloexec,
                     "/proc/self/fd, to list what an exec'd child inherited");
  FL_TEST_ADD_LINUX ("/libfl/acquire/cloexec-named-temp", GINT_TO_POINTER (TRUE), test_cloexec,
                     "/proc/self/fd, to list what an exec'd child inherited");
  FL_TEST_ADD ("/libfl/is-locked", NULL, test_is_locked);
  FL_TEST_ADD ("/libfl/with-lock/basic", NULL, test_with_lock);
  FL_TEST_ADD ("/libfl/with-lock/timeout", NULL, test_with_lock_timeout);

  return g_test_run ();
}
