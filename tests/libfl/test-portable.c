/* test-portable.c: the library's behaviour on every platform, through the public API
 *
 * What the Linux tests check with Linux tools (fork, /proc, xattrs), checked here with libfl and
 * GLib alone, so that it runs on Windows under wine too: acquire and release, try, timeout,
 * cancellation, a holder killed and its lock taken over at once, a release that finds its lock
 * replaced, content that names no process, a directory where the lock belongs, snapshots and
 * reclaim. Holders are this program itself, run as the worker "hold" (fl-test-worker.h): it
 * prints "held" once the lock is its own and releases when its stdin closes.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include <libfl/fl.h>

#include <glib/gstdio.h>
#include <stdio.h>
#include <string.h>

#include "support/fl-waiter-private.h"
#include "fl-test-dir.h"
#include "fl-test-worker.h"


/* The holder */

static int
hold_main (char **args)
{
  const char *target = args[0];
  g_autoptr(GError) error = NULL;
  g_autoptr(FlLock) lock = fl_lock_acquire (target, NULL, NULL, &error);
  char buf[64];

  if (lock == NULL)
    {
      fprintf (stderr, "hold: %s\n", error->message);
      return 1;
    }
  printf ("held\n");
  fflush (stdout);
  while (fgets (buf, sizeof buf, stdin) != NULL)
    ;
  if (!fl_lock_release (lock, &error))
    {
      fprintf (stderr, "hold: %s\n", error->message);
      return 1;
    }
  printf ("released\n");
  fflush (stdout);
  return 0;
}

/* The tests */

typedef struct
{
  GSubprocess      *proc;
  GDataInputStream *out;
  char             *pid;
} Holder;

static char *
holder_read_line (Holder *h)
{
  g_autoptr(GError) error = NULL;
  char *line = g_data_input_stream_read_line (h->out, NULL, NULL, &error);

  g_assert_no_error (error);
  return line;
}

static Holder *
holder_start (FlTestDir *fx)
{
  g_autofree char *line = NULL;
  Holder *h = g_new0 (Holder, 1);

  h->proc = fl_test_worker_spawn (G_SUBPROCESS_FLAGS_STDIN_PIPE | G_SUBPROCESS_FLAGS_STDOUT_PIPE,
                                  "hold", fx->target, NULL);
  h->out = g_data_input_stream_new (g_subprocess_get_stdout_pipe (h->proc));
  h->pid = g_strdup (g_subprocess_get_identifier (h->proc));
  /* Blocks until the holder has it; meson's timeout bounds a holder that never does. */
  line = holder_read_line (h);
  g_assert_cmpstr (line, ==, "held");
  return h;
}

static void
holder_release (Holder *h)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *line = NULL;

  g_output_stream_close (g_subprocess_get_stdin_pipe (h->proc), NULL, &error);
  g_assert_no_error (error);
  line = holder_read_line (h);
  g_assert_cmpstr (line, ==, "released");
  g_assert_true (g_subprocess_wait_check (h->proc, NULL, &error));
  g_assert_no_error (error);
}

static void
holder_kill (Holder *h)
{
  g_autoptr(GError) error = NULL;

  g_subprocess_force_exit (h->proc);
  g_assert_true (g_subprocess_wait (h->proc, NULL, &error));
  g_assert_no_error (error);
}

static void
holder_free (Holder *h)
{
  if (!g_subprocess_get_if_exited (h->proc) && !g_subprocess_get_if_signaled (h->proc))
    g_subprocess_force_exit (h->proc);
  g_object_unref (h->out);
  g_object_unref (h->proc);
  g_free (h->pid);
  g_free (h);
}

G_DEFINE_AUTOPTR_CLEANUP_FUNC (Holder, holder_free)

/* Through the platform layer, as libfl reads: GLib's own open lacks FILE_SHARE_DELETE on
 * Windows, and a file a holder has open for deletion refuses such readers there. */
static char *
read_file (const char *path)
{
  g_autofree char *dirname = g_path_get_dirname (path);
  g_autofree char *basename = g_path_get_basename (path);
  FlDir *dir = NULL;
  FlHandle file = FL_HANDLE_NONE;
  char buf[65];
  size_t n = 0;
  int err;

  if (_fl_platform_dir_open (dirname, FALSE, &dir) != 0)
    return NULL;
  err = _fl_platform_open_read (dir, basename, &file);
  if (err == 0)
    err = _fl_platform_read_head (file, buf, sizeof buf - 1, &n);
  _fl_platform_close (file);
  _fl_platform_dir_close (dir);
  if (err != 0)
    return NULL;
  buf[n] = '\0';
  return g_strdup (buf);
}

static char *
self_pid (void)
{
  /* The PID libfl writes is the one the system gives this process: GSubprocess says the same
   * of its children, so compare with what a snapshot of our own lock reports. */
  g_autofree char *dir = g_dir_make_tmp ("fl-portable-self-XXXXXX", NULL);
  g_autofree char *target = g_build_filename (dir, "me", NULL);
  g_autofree char *lock_path = g_strconcat (target, ".lock", NULL);
  g_autoptr(FlLock) lock = fl_lock_try_acquire (target, NULL, NULL);
  char *pid = read_file (lock_path);

  fl_lock_release (lock, NULL);
  g_rmdir (dir);
  return pid;
}

/* The entries of @dir. A removed temp's name that stays delete-pending while the lock (its other
 * name) is open, as under wine, is not listed (fl_test_list_dir(), fl-test-dir-win32.c). */
static guint
count_entries (const char *dir)
{
  g_auto(GStrv) names = fl_test_list_dir (dir);

  return g_strv_length (names);
}

/* The lock file holds our PID in decimal and nothing else, and release removes it. */
static void
test_acquire_release (FlTestDir     *fx,
                      gconstpointer  data)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(FlLock) lock = fl_lock_acquire (fx->target, NULL, NULL, &error);
  g_autofree char *content = NULL;
  g_autofree char *me = self_pid ();

  g_assert_no_error (error);
  g_assert_true (fl_lock_is_held (lock));
  content = read_file (fx->lock);
  g_assert_cmpstr (content, ==, me);
  g_assert_cmpuint (count_entries (fx->dir), ==, 1);  /* no temp left beside it */
  g_assert_true (fl_lock_release (lock, &error));
  g_assert_no_error (error);
  g_assert_false (g_file_test (fx->lock, G_FILE_TEST_EXISTS));
  g_assert_true (fl_lock_release (lock, &error));  /* twice: nothing the second time */
  g_assert_no_error (error);
}

/* A live holder in another process: try says BUSY and names it; once it lets go, try wins. */
static void
test_try_busy (FlTestDir     *fx,
               gconstpointer  data)
{
  g_autoptr(Holder) h = holder_start (fx);
  g_autoptr(GError) error = NULL;
  g_autoptr(FlLock) lock = fl_lock_try_acquire (fx->target, NULL, &error);
  g_autofree char *content = read_file (fx->lock);

  g_assert_null (lock);
  g_assert_error (error, FL_ERROR, FL_ERROR_BUSY);
  g_assert_cmpstr (content, ==, h->pid);
  g_assert_nonnull (strstr (error->message, h->pid));
  g_clear_error (&error);

  holder_release (h);
  lock = fl_lock_try_acquire (fx->target, NULL, &error);
  g_assert_no_error (error);
  g_assert_true (fl_lock_is_held (lock));
}

/* A timeout is the module's ELOCKTIMEOUT, and the holder's lock is left as it was. */
static void
test_timeout (FlTestDir     *fx,
              gconstpointer  data)
{
  g_autoptr(Holder) h = holder_start (fx);
  g_autoptr(FlLockOptions) options = fl_lock_options_new ();
  g_autoptr(GError) error = NULL;
  g_autoptr(FlLock) lock = NULL;
  g_autofree char *content = NULL;

  fl_lock_options_set_timeout_ms (options, 200);
  lock = fl_lock_acquire (fx->target, options, NULL, &error);
  g_assert_null (lock);
  g_assert_error (error, FL_ERROR, FL_ERROR_TIMEOUT);
  g_assert_nonnull (strstr (error->message, "ELOCKTIMEOUT"));
  content = read_file (fx->lock);
  g_assert_cmpstr (content, ==, h->pid);
  holder_release (h);
}

typedef struct
{
  const char    *target;
  FlLockOptions *options;
  FlLock        *lock;
  GError        *error;
} Acquirer;

static gpointer
acquire_thread (gpointer user_data)
{
  Acquirer *a = user_data;

  a->lock = fl_lock_acquire (a->target, a->options, NULL, &a->error);
  return NULL;
}

/* Whether some wait began after @waits_before, within @deadline_us. */
static gboolean
wait_for_a_wait (guint  waits_before,
                 gint64 deadline_us)
{
  while (g_get_monotonic_time () < deadline_us)
    {
      FlWaiterCounts counts;

      _fl_waiter_get_counts (&counts);
      if (counts.waits > waits_before)
        return TRUE;
      g_usleep (1000);  /* polling a condition, with a deadline */
    }
  return FALSE;
}

typedef struct
{
  GCancellable *cancellable;
  guint         waits_before;
} Canceller;

static gpointer
cancel_when_waiting (gpointer user_data)
{
  Canceller *c = user_data;

  wait_for_a_wait (c->waits_before, g_get_monotonic_time () + 60 * G_USEC_PER_SEC);
  g_cancellable_cancel (c->cancellable);
  return NULL;
}

/* Cancelled while asleep in the wait: G_IO_ERROR_CANCELLED, the holder untouched. */
static void
test_cancel (FlTestDir     *fx,
             gconstpointer  data)
{
  g_autoptr(Holder) h = holder_start (fx);
  g_autoptr(GCancellable) cancellable = g_cancellable_new ();
  g_autoptr(FlLockOptions) options = fl_lock_options_new ();
  g_autoptr(GError) error = NULL;
  g_autoptr(FlLock) lock = NULL;
  g_autofree char *content = NULL;
  FlWaiterCounts counts;
  Canceller c;
  GThread *thread;

  fl_lock_options_set_timeout_ms (options, 120000);
  _fl_waiter_get_counts (&counts);
  c = (Canceller) { cancellable, counts.waits };
  thread = g_thread_new ("canceller", cancel_when_waiting, &c);
  lock = fl_lock_acquire (fx->target, options, cancellable, &error);
  g_thread_join (thread);
  g_assert_null (lock);
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_CANCELLED);
  content = read_file (fx->lock);
  g_assert_cmpstr (content, ==, h->pid);
  holder_release (h);
}

/* The waiter asleep when the holder lets go wakes by that event (the name's removal, or the
 * holder's exit), never by a re-check: those are a minute apart here. A waiter that polls
 * fails. */
static void
test_wake_by_event (FlTestDir     *fx,
                    gconstpointer  data)
{
  g_autoptr(Holder) h = holder_start (fx);
  g_autoptr(FlLockOptions) options = fl_lock_options_new ();
  FlWaiterCounts before, after;
  Acquirer a = { fx->target, options, NULL, NULL };
  GThread *thread;

  fl_lock_options_set_timeout_ms (options, 120000);
  fl_lock_options_set_backoff_ms (options, 60000, 60000);
  _fl_waiter_get_counts (&before);
  thread = g_thread_new ("acquirer", acquire_thread, &a);
  g_assert_true (wait_for_a_wait (before.waits, g_get_monotonic_time () + 60 * G_USEC_PER_SEC));
  holder_release (h);
  g_thread_join (thread);

  g_assert_no_error (a.error);
  g_assert_true (fl_lock_is_held (a.lock));
  _fl_waiter_get_counts (&after);
  g_test_message ("waits %u, events %u, re-checks %u", after.waits - before.waits,
                  after.events - before.events, after.rechecks - before.rechecks);
  g_assert_cmpuint (after.unwatched, ==, before.unwatched);
  g_assert_cmpuint (after.rechecks, ==, before.rechecks);
  g_assert_cmpuint (after.events, >, before.events);
  g_object_unref (a.lock);
}

/* A holder killed outright (SIGKILL, TerminateProcess): the kernel lock died with it, so the
 * next acquire takes the lock over at once, without waiting for stale_after, and leaves no
 * graveyard or temp behind. */
static void
test_killed_holder (FlTestDir     *fx,
                    gconstpointer  data)
{
  g_autoptr(Holder) h = holder_start (fx);
  g_autoptr(GError) error = NULL;
  g_autoptr(FlLock) lock = NULL;
  g_autofree char *content = NULL;
  g_autofree char *me = self_pid ();

  holder_kill (h);
  lock = fl_lock_try_acquire (fx->target, NULL, &error);
  g_assert_no_error (error);
  g_assert_true (fl_lock_is_held (lock));
  content = read_file (fx->lock);
  g_assert_cmpstr (content, ==, me);
  g_assert_cmpuint (count_entries (fx->dir), ==, 1);
}

/* The lock replaced under its holder: release removes nothing and says FL_ERROR_LOST. */
static void
test_release_lost (FlTestDir     *fx,
                   gconstpointer  data)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(FlLock) lock = fl_lock_acquire (fx->target, NULL, NULL, &error);
  g_autofree char *moved = g_build_filename (fx->dir, "moved-away", NULL);
  g_autofree char *content = NULL;

  g_assert_no_error (error);
  /* Moved away (an open file may be renamed on Windows too: libfl shares delete), and a new
   * file in its place, as a careless peer or an operator would do. */
  g_assert_cmpint (g_rename (fx->lock, moved), ==, 0);
  g_assert_true (g_file_set_contents (fx->lock, "4242", -1, NULL));
  g_assert_false (fl_lock_release (lock, &error));
  g_assert_error (error, FL_ERROR, FL_ERROR_LOST);
  content = read_file (fx->lock);
  g_assert_cmpstr (content, ==, "4242");
}

/* Content naming no process (above the PID range) is stale at once: taken over. Content that
 * is not a number waits for stale_after. */
static void
test_bad_content (FlTestDir     *fx,
                  gconstpointer  data)
{
  g_autoptr(FlLockOptions) options = fl_lock_options_new ();
  g_autoptr(GError) error = NULL;
  g_autoptr(FlLock) lock = NULL;

  g_assert_true (g_file_set_contents (fx->lock, "99999999", -1, NULL));
  lock = fl_lock_try_acquire (fx->target, NULL, &error);
  g_assert_no_error (error);
  g_assert_true (fl_lock_release (lock, &error));
  g_clear_object (&lock);

  g_assert_true (g_file_set_contents (fx->lock, "not a pid", -1, NULL));
  lock = fl_lock_try_acquire (fx->target, NULL, &error);
  g_assert_null (lock);
  g_assert_error (error, FL_ERROR, FL_ERROR_BUSY);
  g_clear_error (&error);

  fl_lock_options_set_stale_after_ms (options, 1);
  g_assert_true (g_file_set_contents (fx->lock, "not a pid either", -1, NULL));
  {
    /* The file's time must be older than stale_after: wait for the clock to pass it. */
    gint64 written = g_get_real_time ();

    while (g_get_real_time () < written + 20 * 1000)
      g_usleep (1000);  /* waiting for a clock to pass a value, not for another process */
  }
  lock = fl_lock_try_acquire (fx->target, options, &error);
  g_assert_no_error (error);
  g_assert_true (fl_lock_is_held (lock));
}

/* A directory where the lock belongs is another program's: refused, never removed. */
static void
test_hostile_directory (FlTestDir     *fx,
                        gconstpointer  data)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(FlLock) lock = NULL;
  g_autoptr(FlSnapshot) snap = NULL;

  g_assert_cmpint (g_mkdir (fx->lock, 0755), ==, 0);
  lock = fl_lock_try_acquire (fx->target, NULL, &error);
  g_assert_null (lock);
  g_assert_error (error, FL_ERROR, FL_ERROR_FOREIGN);
  g_assert_nonnull (strstr (error->message, fx->lock));
  g_clear_error (&error);

  snap = fl_snapshot_new (fx->lock, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpint (fl_snapshot_get_kind (snap), ==, FL_ENTRY_FOREIGN);
  g_assert_false (fl_snapshot_reclaim (snap, NULL, &error));
  g_assert_error (error, FL_ERROR, FL_ERROR_FOREIGN);
  g_assert_true (g_file_test (fx->lock, G_FILE_TEST_IS_DIR));
}

/* A snapshot of a live holder says so and a reclaim is refused; once the holder is killed the
 * snapshot is stale and the reclaim removes exactly that file. */
static void
test_snapshot_reclaim (FlTestDir     *fx,
                       gconstpointer  data)
{
  g_autoptr(Holder) h = holder_start (fx);
  g_autoptr(GError) error = NULL;
  g_autoptr(FlSnapshot) live = fl_snapshot_new (fx->lock, NULL, &error);
  g_autoptr(FlSnapshot) dead = NULL;
  g_autofree char *pid = NULL;

  g_assert_no_error (error);
  g_assert_cmpint (fl_snapshot_get_kind (live), ==, FL_ENTRY_LOCK);
  g_assert_false (fl_snapshot_get_stale (live));
  pid = g_strdup_printf ("%d", fl_snapshot_get_pid (live));
  g_assert_cmpstr (pid, ==, h->pid);
  g_assert_false (fl_snapshot_reclaim (live, NULL, &error));
  g_assert_error (error, FL_ERROR, FL_ERROR_NOT_STALE);
  g_clear_error (&error);
  g_assert_true (g_file_test (fx->lock, G_FILE_TEST_EXISTS));

  holder_kill (h);
  dead = fl_snapshot_new (fx->lock, NULL, &error);
  g_assert_no_error (error);
  g_assert_true (fl_snapshot_get_stale (dead));
  g_assert_true (fl_snapshot_reclaim (dead, NULL, &error));
  g_assert_no_error (error);
  g_assert_false (g_file_test (fx->lock, G_FILE_TEST_EXISTS));
  g_assert_cmpuint (count_entries (fx->dir), ==, 0);
}

int
main (int    argc,
      char **argv)
{
  static const FlTestWorkerRole roles[] = { { "hold", 1, hold_main }, { NULL } };
  int status;

  if (fl_test_worker_main (argc, argv, roles, &status))
    return status;
  g_test_init (&argc, &argv, NULL);

#define ADD(path, func) FL_TEST_ADD (path, NULL, func)
  ADD ("/libfl/portable/acquire-release", test_acquire_release);
  ADD ("/libfl/portable/try-busy", test_try_busy);
  ADD ("/libfl/portable/timeout", test_timeout);
  ADD ("/libfl/portable/cancel", test_cancel);
  ADD ("/libfl/portable/wake-by-event", test_wake_by_event);
  ADD ("/libfl/portable/killed-holder", test_killed_holder);
  ADD ("/libfl/portable/release-lost", test_release_lost);
  ADD ("/libfl/portable/bad-content", test_bad_content);
  ADD ("/libfl/portable/hostile-directory", test_hostile_directory);
  ADD ("/libfl/portable/snapshot-reclaim", test_snapshot_reclaim);
#undef ADD

  return g_test_run ();
}
