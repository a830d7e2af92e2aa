/* test-other-locks.c: other programs' lock files, recognised, explained and never reclaimed
 * (docs/other-lock-files.md)
 *
 * The kernel locks are held by forked children, as the real programs hold them: record locks
 * with F_SETLK (dpkg, Firefox's .parentlock) and flock(LOCK_EX) (flock(1)).
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <errno.h>
#include <locale.h>
#include <string.h>
#include <unistd.h>
#include <glib/gstdio.h>

#include "fl.h"
#include "protocol/fl-other-locks-private.h"
#include "fl-test-util.h"

#ifdef __linux__
# include <fcntl.h>
# include <signal.h>
# include <sys/file.h>
# include <sys/prctl.h>
# include <sys/stat.h>
# include <sys/wait.h>
#endif

#ifdef __linux__
typedef enum { HOLD_NOTHING, HOLD_RECORD, HOLD_FLOCK } HoldHow;

typedef struct
{
  pid_t pid;
  int   ready;  /* readable once the child holds its lock */
} Child;

/* A child that holds @how on @path (or nothing, just lives) until it is killed. */
static Child
child_hold (const char *path,
            HoldHow     how)
{
  int fds[2];
  Child child;

  g_assert_no_errno (pipe (fds));
  child.pid = fork ();
  g_assert_cmpint (child.pid, >=, 0);
  if (child.pid == 0)
    {
      struct flock fl = { .l_type = F_WRLCK, .l_whence = SEEK_SET };
      int fd = how == HOLD_NOTHING ? -1 : open (path, O_RDWR | O_CLOEXEC);

      /* A failed assertion in the parent must not leave it behind, holding the test's output. */
      prctl (PR_SET_PDEATHSIG, SIGKILL);
      if (how != HOLD_NOTHING && fd < 0)
        _exit (2);
      if (how == HOLD_RECORD && fcntl (fd, F_SETLK, &fl) < 0)
        _exit (3);
      if (how == HOLD_FLOCK && flock (fd, LOCK_EX | LOCK_NB) < 0)
        _exit (4);
      if (write (fds[1], "x", 1) != 1)
        _exit (5);
      for (;;)
        pause ();
    }
  close (fds[1]);
  child.ready = fds[0];
  g_assert_true (fl_test_wait_readable (child.ready, fl_test_deadline_ms (10000)));
  return child;
}

static void
child_end (Child *child)
{
  int status;

  kill (child->pid, SIGKILL);
  g_assert_cmpint (waitpid (child->pid, &status, 0), ==, child->pid);
  close (child->ready);
}
#endif

static char *
path_in (FlTestDir  *fx,
         const char *name)
{
  return g_build_filename (fx->dir, name, NULL);
}

static FlSnapshot *
find (GPtrArray  *snapshots,
      const char *name)
{
  for (guint i = 0; i < snapshots->len; i++)
    if (g_strcmp0 (fl_snapshot_get_name (snapshots->pdata[i]), name) == 0)
      return snapshots->pdata[i];
  return NULL;
}

#ifdef __linux__
static FlSnapshot *
find_path (GPtrArray  *snapshots,
           const char *suffix)
{
  for (guint i = 0; i < snapshots->len; i++)
    if (g_str_has_suffix (fl_snapshot_get_path (snapshots->pdata[i]), suffix))
      return snapshots->pdata[i];
  g_assert_not_reached ();
}
#endif

/* Every other program's lock: never reclaimable, reclaim refused (forced too), file intact. */
static void
assert_never_reclaimed (FlSnapshot *snap)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GError) forced_error = NULL;
  const char *path = fl_snapshot_get_path (snap);
  guint64 id = fl_test_file_id (path);
#ifdef __linux__
  struct stat before, after;

  g_assert_no_errno (lstat (path, &before));
#endif
  g_assert_cmpint (fl_snapshot_get_kind (snap), ==, FL_ENTRY_OTHER_PROGRAM);
  g_assert_cmpint (fl_snapshot_get_reclaimable (snap), ==, FL_RECLAIMABLE_NONE);
  g_assert_false (fl_snapshot_get_stale (snap));
  g_assert_false (fl_snapshot_reclaim (snap, NULL, &error));
  g_assert_error (error, FL_ERROR, FL_ERROR_FOREIGN);
  g_assert_nonnull (strstr (error->message, "not libfl's"));
  g_assert_false (fl_snapshot_reclaim_unproven (snap, NULL, &forced_error));
  g_assert_error (forced_error, FL_ERROR, FL_ERROR_FOREIGN);
  g_assert_cmpuint (fl_test_file_id (path), ==, id);
#ifdef __linux__
  g_assert_no_errno (lstat (path, &after));
  g_assert_cmpint (before.st_mtim.tv_nsec, ==, after.st_mtim.tv_nsec);
#endif
}

static GPtrArray *
scan (FlTestDir *fx)
{
  g_autoptr(GError) error = NULL;
  GPtrArray *snapshots = fl_scan_directory (fx->dir, FL_SCAN_RECURSIVE, NULL, NULL, &error);

  g_assert_no_error (error);
  return snapshots;
}

#ifdef __linux__
static void
test_emacs (FlTestDir     *fx,
            gconstpointer  data)
{
  g_autofree char *live = path_in (fx, ".#notes.txt");
  g_autofree char *dead = path_in (fx, ".#old.txt");
  g_autofree char *elsewhere = path_in (fx, ".#far.txt");
  g_autofree char *live_target = NULL;
  g_autofree char *dead_target = NULL;
  g_autofree char *owner = NULL;
  g_autofree char *summary = NULL;
  g_autoptr(GPtrArray) snapshots = NULL;
  Child child = child_hold (NULL, HOLD_NOTHING);
  FlSnapshot *snap;

  /* Emacs' own form, with the boot time left out (older Emacs) and with it. */
  live_target = g_strdup_printf ("alice@%s.%d", g_get_host_name (), child.pid);
  dead_target = g_strdup_printf ("bob@%s.%d", g_get_host_name (), fl_test_dead_pid ());
  g_assert_no_errno (symlink (live_target, live));
  g_assert_no_errno (symlink (dead_target, dead));
  g_assert_no_errno (symlink ("carol@faraway.example.4242:1700000000", elsewhere));

  snapshots = scan (fx);
  g_assert_cmpuint (snapshots->len, ==, 3);

  snap = find (snapshots, ".#notes.txt");
  g_assert_nonnull (snap);
  g_assert_cmpint (fl_snapshot_get_lock_format (snap), ==, FL_LOCK_FORMAT_EMACS);
  g_assert_cmpstr (fl_snapshot_get_owner_user (snap), ==, "alice");
  g_assert_cmpstr (fl_snapshot_get_host (snap), ==, g_get_host_name ());
  g_assert_cmpint (fl_snapshot_get_pid (snap), ==, child.pid);
  g_assert_cmpint (fl_snapshot_get_liveness (snap), ==, FL_LIVENESS_ALIVE);
  g_assert_cmpint (fl_snapshot_get_state (snap), ==, FL_ENTRY_STATE_HELD);
  g_assert_true (g_str_has_suffix (fl_snapshot_get_target (snap), "/notes.txt"));
  owner = fl_snapshot_dup_owner_summary (snap);
  g_assert_true (g_str_has_prefix (owner, "Emacs: alice@"));
  assert_never_reclaimed (snap);

  snap = find (snapshots, ".#old.txt");
  g_assert_nonnull (snap);
  summary = fl_snapshot_dup_state_summary (snap);
  g_assert_cmpstr (summary, ==, "Stale: owner exited");
  g_assert_cmpint (fl_snapshot_get_liveness (snap), ==, FL_LIVENESS_DEAD);
  g_assert_cmpint (fl_snapshot_get_state (snap), ==, FL_ENTRY_STATE_STALE);
  assert_never_reclaimed (snap);

  /* Another host: its PID is not probed here. */
  snap = find (snapshots, ".#far.txt");
  g_assert_nonnull (snap);
  g_assert_cmpstr (fl_snapshot_get_host (snap), ==, "faraway.example");
  g_assert_cmpint (fl_snapshot_get_pid (snap), ==, 4242);
  g_assert_cmpint (fl_snapshot_get_liveness (snap), ==, FL_LIVENESS_UNKNOWN);
  g_assert_cmpint (fl_snapshot_get_state (snap), ==, FL_ENTRY_STATE_UNKNOWN);
  assert_never_reclaimed (snap);

  child_end (&child);
}

/* A running process that started after the link was written did not write it: the PID was
 * reused, which is unknown (a clock step could fake it), never held and never stale. The
 * link's time is moved back in the evidence, as no real file's ctime can be. */
static void
test_emacs_reused (FlTestDir     *fx,
                   gconstpointer  data)
{
  g_autofree char *link = path_in (fx, ".#notes.txt");
  g_autofree char *target = NULL;
  g_auto(FlEvidence) state = { .fd = FL_HANDLE_NONE };
  g_auto(FlOtherLock) other = { 0 };
  g_autoptr(GError) error = NULL;
  Child child = child_hold (NULL, HOLD_NOTHING);
  FlDir *dir;

  target = g_strdup_printf ("alice@%s.%d", g_get_host_name (), child.pid);
  g_assert_no_errno (symlink (target, link));
  g_assert_cmpint (_fl_platform_dir_open (fx->dir, FALSE, &dir), ==, 0);
  g_assert_true (_fl_evidence_open (&state, dir, fx->dir, ".#notes.txt", &error));
  g_assert_no_error (error);

  state.changed_us -= (gint64) 3600 * G_USEC_PER_SEC;
  g_assert_cmpint (_fl_other_lock_examine (&other, &state, dir, fx->dir, g_get_real_time ()),
                   ==, FL_OTHER_KNOWN);
  g_assert_cmpint (other.format, ==, FL_LOCK_FORMAT_EMACS);
  g_assert_cmpint (other.liveness, ==, FL_LIVENESS_REUSED);
  g_assert_cmpint (other.state, ==, FL_ENTRY_STATE_UNKNOWN);

  _fl_platform_dir_close (dir);
  child_end (&child);
}

/* A record lock (dpkg, Firefox's .parentlock) and a flock (flock(1)), each held by a child,
 * then free. */
static void
test_kernel_locks (FlTestDir     *fx,
                   gconstpointer  data)
{
  g_autofree char *profile = path_in (fx, "profile");
  g_autofree char *parentlock = g_build_filename (profile, ".parentlock", NULL);
  g_autofree char *link = g_build_filename (profile, "lock", NULL);
  g_autofree char *dpkg_dir = path_in (fx, "dpkg");
  g_autofree char *dpkg = g_build_filename (dpkg_dir, "lock", NULL);
  g_autofree char *serial = path_in (fx, "LCK..ttyS0");
  g_autoptr(GPtrArray) held = NULL;
  g_autoptr(GPtrArray) free_now = NULL;
  Child firefox, apt, flocker;
  FlSnapshot *snap;

  g_assert_no_errno (mkdir (profile, 0755));
  g_assert_no_errno (mkdir (dpkg_dir, 0755));
  fl_test_write (parentlock, "", 0);
  fl_test_write (dpkg, "", 0);
  fl_test_write (serial, "", 0);
  g_assert_no_errno (symlink ("127.0.1.1:+31337", link));

  firefox = child_hold (parentlock, HOLD_RECORD);
  apt = child_hold (dpkg, HOLD_RECORD);
  flocker = child_hold (serial, HOLD_FLOCK);
  held = scan (fx);
  g_assert_cmpuint (held->len, ==, 4);

  snap = find (held, ".parentlock");
  g_assert_cmpint (fl_snapshot_get_lock_format (snap), ==, FL_LOCK_FORMAT_MOZILLA);
  g_assert_cmpint (fl_snapshot_get_kernel_lock (snap), ==, FL_KERNEL_LOCK_HELD);
  g_assert_cmpint (fl_snapshot_get_pid (snap), ==, firefox.pid);
  g_assert_cmpint (fl_snapshot_get_state (snap), ==, FL_ENTRY_STATE_HELD);
  assert_never_reclaimed (snap);

  snap = find_path (held, "profile/lock");
  g_assert_cmpint (fl_snapshot_get_lock_format (snap), ==, FL_LOCK_FORMAT_MOZILLA);
  g_assert_cmpstr (fl_snapshot_get_host (snap), ==, "127.0.1.1");
  g_assert_cmpint (fl_snapshot_get_pid (snap), ==, 31337);
  g_assert_cmpint (fl_snapshot_get_state (snap), ==, FL_ENTRY_STATE_HELD);
  g_assert_cmpstr (fl_snapshot_get_content (snap), ==, "127.0.1.1:+31337");
  assert_never_reclaimed (snap);

  snap = find_path (held, "dpkg/lock");
  g_assert_cmpint (fl_snapshot_get_lock_format (snap), ==, FL_LOCK_FORMAT_DPKG);
  g_assert_cmpint (fl_snapshot_get_pid (snap), ==, apt.pid);
  g_assert_cmpint (fl_snapshot_get_state (snap), ==, FL_ENTRY_STATE_HELD);
  assert_never_reclaimed (snap);

  snap = find (held, "LCK..ttyS0");
  g_assert_cmpint (fl_snapshot_get_lock_format (snap), ==, FL_LOCK_FORMAT_FLOCK);
  g_assert_cmpint (fl_snapshot_get_kernel_lock (snap), ==, FL_KERNEL_LOCK_HELD);
  g_assert_cmpint (fl_snapshot_get_state (snap), ==, FL_ENTRY_STATE_HELD);
  assert_never_reclaimed (snap);

  child_end (&firefox);
  child_end (&apt);
  child_end (&flocker);

  /* The children are reaped: the kernel dropped their locks. */
  free_now = scan (fx);
  g_assert_cmpuint (free_now->len, ==, 4);
  for (guint i = 0; i < free_now->len; i++)
    {
      snap = free_now->pdata[i];
      /* Firefox's link is left over once nobody holds .parentlock; the others are just free. */
      if (g_str_has_suffix (fl_snapshot_get_path (snap), "profile/lock"))
        g_assert_cmpint (fl_snapshot_get_state (snap), ==, FL_ENTRY_STATE_STALE);
      else
        {
          g_autofree char *summary = fl_snapshot_dup_state_summary (snap);

          g_assert_cmpint (fl_snapshot_get_state (snap), ==, FL_ENTRY_STATE_FREE);
          g_assert_cmpstr (summary, ==, "Free: nobody holds it");
          g_assert_cmpint (fl_snapshot_get_kernel_lock (snap), ==, FL_KERNEL_LOCK_FREE);
        }
      assert_never_reclaimed (snap);
    }
}

#endif

static void
test_git_and_libreoffice (FlTestDir     *fx,
                          gconstpointer  data)
{
  g_autofree char *git_dir = path_in (fx, ".git");
  g_autofree char *index_lock = g_build_filename (git_dir, "index.lock", NULL);
  g_autofree char *office = path_in (fx, ".~lock.report.odt#");
  g_autofree char *empty_ours = path_in (fx, "empty.lock");
  g_autofree char *ours_in_git = NULL;
  g_autofree char *pid_text = NULL;
  g_autofree char *owner = NULL;
  g_autofree char *about = NULL;
  g_autoptr(GPtrArray) snapshots = NULL;
  g_autoptr(GDateTime) since = NULL;
  static const char line[] = "Alice Smith,alice,alice-pc,05.12.2026 21:36,"
                             "file:///home/alice/.config/libreoffice/4;";
  FlSnapshot *snap;

  g_assert_no_errno (g_mkdir (git_dir, 0755));
  /* An index being written: its content is no PID, and must never be judged as one. */
  fl_test_write (index_lock, "DIRC\0\0\0\2", 8);
  fl_test_write (office, line, strlen (line));
  fl_test_write (empty_ours, "", 0);
  /* A libfl lock under .git names its PID: still ours. */
  ours_in_git = g_build_filename (git_dir, "config.lock", NULL);
  pid_text = g_strdup_printf ("%d", (int) getpid ());
  fl_test_write (ours_in_git, pid_text, -1);

  snapshots = scan (fx);
  g_assert_cmpuint (snapshots->len, ==, 4);

  snap = find (snapshots, "config.lock");
  g_assert_cmpint (fl_snapshot_get_kind (snap), ==, FL_ENTRY_LOCK);
  g_assert_cmpint (fl_snapshot_get_lock_format (snap), ==, FL_LOCK_FORMAT_LIBFL);

  snap = find (snapshots, "index.lock");
  g_assert_cmpint (fl_snapshot_get_lock_format (snap), ==, FL_LOCK_FORMAT_GIT);
  g_assert_cmpint (fl_snapshot_get_state (snap), ==, FL_ENTRY_STATE_UNKNOWN);
  g_assert_cmpint (fl_snapshot_get_pid (snap), ==, 0);
  owner = fl_snapshot_dup_owner_summary (snap);
  g_assert_true (g_str_has_prefix (owner, "git: "));
  about = fl_snapshot_dup_other_explanation (snap);
  g_assert_nonnull (strstr (about, "git"));
  assert_never_reclaimed (snap);

  snap = find (snapshots, ".~lock.report.odt#");
  g_assert_cmpint (fl_snapshot_get_lock_format (snap), ==, FL_LOCK_FORMAT_LIBREOFFICE);
  g_assert_cmpstr (fl_snapshot_get_owner_name (snap), ==, "Alice Smith");
  g_assert_cmpstr (fl_snapshot_get_owner_user (snap), ==, "alice");
  g_assert_cmpstr (fl_snapshot_get_host (snap), ==, "alice-pc");
  g_assert_cmpstr (fl_snapshot_get_content (snap), ==, line);
  g_assert_true (g_str_has_suffix (fl_snapshot_get_target (snap),
                                   G_DIR_SEPARATOR_S "report.odt"));
  since = g_date_time_new_from_unix_local (fl_snapshot_get_owner_since (snap) / G_USEC_PER_SEC);
  g_assert_cmpint (g_date_time_get_day_of_month (since), ==, 5);
  g_assert_cmpint (g_date_time_get_hour (since), ==, 21);
  g_assert_cmpint (g_date_time_get_minute (since), ==, 36);
  g_assert_cmpint (fl_snapshot_get_state (snap), ==, FL_ENTRY_STATE_UNKNOWN);
  assert_never_reclaimed (snap);

  /* An empty T.lock outside .git stays libfl's, judged as before (docs/other-lock-files.md). */
  snap = find (snapshots, "empty.lock");
  g_assert_cmpint (fl_snapshot_get_kind (snap), ==, FL_ENTRY_LOCK);
  g_assert_cmpint (fl_snapshot_get_lock_format (snap), ==, FL_LOCK_FORMAT_LIBFL);
  g_assert_null (fl_snapshot_dup_owner_summary (snap));
}

static gboolean
time_passed (gpointer data)
{
  return g_get_real_time () > *(gint64 *) data;
}

/* An acquirer never takes git's lock over, however old its content that is no PID: a git
 * command may be writing the index behind it. */
static void
test_git_never_taken_over (FlTestDir     *fx,
                           gconstpointer  data)
{
  g_autofree char *git_dir = path_in (fx, ".git");
  g_autofree char *index = g_build_filename (git_dir, "index", NULL);
  g_autofree char *index_lock = g_build_filename (git_dir, "index.lock", NULL);
  g_autofree char *content = NULL;
  g_autoptr(FlLockOptions) options = fl_lock_options_new ();
  g_autoptr(GError) error = NULL;
  g_autoptr(FlLock) lock = NULL;
  gint64 old_enough;

  g_assert_no_errno (g_mkdir (git_dir, 0755));
  fl_test_write (index_lock, "DIRC", 4);
  fl_lock_options_set_stale_after_ms (options, 1);
  old_enough = g_get_real_time () + 20 * 1000;
  g_assert_true (fl_test_wait_until (time_passed, &old_enough, 5000));

  lock = fl_lock_try_acquire (index, options, &error);
  g_assert_null (lock);
  g_assert_error (error, FL_ERROR, FL_ERROR_FOREIGN);
  g_assert_nonnull (strstr (error->message, "git"));
  content = fl_test_read (index_lock, NULL);
  g_assert_cmpstr (content, ==, "DIRC");
  g_assert_true (fl_is_locked (index, options, NULL));
}

#ifdef __linux__
/* A link is read, never followed: not into a FIFO (which would block), not to a file
 * elsewhere whose content would pass for a lock. */
static void
test_never_follows (FlTestDir     *fx,
                    gconstpointer  data)
{
  g_autofree char *fifo = path_in (fx, "fifo");
  g_autofree char *outside = path_in (fx, "outside");
  g_autofree char *to_fifo = path_in (fx, ".#fifo");
  g_autofree char *to_outside = path_in (fx, ".#outside");
  g_autofree char *fifo_named_lock = path_in (fx, "lock");
  g_autoptr(GPtrArray) snapshots = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(FlSnapshot) direct = NULL;
  struct stat st;

  g_assert_no_errno (mkfifo (fifo, 0644));
  g_assert_no_errno (mkfifo (fifo_named_lock, 0644));
  fl_test_write (outside, "eve@host.1", 10);
  g_assert_no_errno (symlink (fifo, to_fifo));
  g_assert_no_errno (symlink (outside, to_outside));

  snapshots = scan (fx);
  g_assert_cmpuint (snapshots->len, ==, 0);

  direct = fl_snapshot_new (to_outside, NULL, &error);
  g_assert_null (direct);
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_NOT_FOUND);

  g_assert_no_errno (stat (fifo, &st));
  g_assert_true (S_ISFIFO (st.st_mode));
  g_assert_true (fl_test_exists (outside));
}

/* A serial port's UUCP lock (`printf '%10d\n' PID`, as minicom and pppd write it; 4 binary
 * bytes in older UUCP): listed, its PID judged as the format means, with its process; an
 * empty LCK.. stays flock's, and one whose content is no PID is not listed. */
static void
test_uucp (FlTestDir     *fx,
           gconstpointer  data)
{
  g_autofree char *live = path_in (fx, "LCK..ttyUSB0");
  g_autofree char *dead = path_in (fx, "LCK..ttyS1");
  g_autofree char *binary = path_in (fx, "LCK..ttyACM0");
  g_autofree char *empty = path_in (fx, "LCK..ttyS2");
  g_autofree char *junk = path_in (fx, "LCK..ttyS3");
  g_autofree char *live_text = NULL;
  g_autofree char *dead_text = NULL;
  g_autofree char *summary = NULL;
  g_autofree char *owner = NULL;
  g_autofree char *expected_owner = NULL;
  g_autoptr(GPtrArray) snapshots = NULL;
  Child child = child_hold (NULL, HOLD_NOTHING);
  gint32 pid32 = child.pid;
  FlSnapshot *snap;

  live_text = g_strdup_printf ("%10d\n", (int) child.pid);
  dead_text = g_strdup_printf ("%10d\n", (int) fl_test_dead_pid ());
  fl_test_write (live, live_text, strlen (live_text));
  fl_test_write (dead, dead_text, strlen (dead_text));
  fl_test_write (binary, (const char *) &pid32, sizeof pid32);
  fl_test_write (empty, "", 0);
  fl_test_write (junk, "not a pid\n", 10);

  snapshots = scan (fx);
  g_assert_cmpuint (snapshots->len, ==, 4);
  g_assert_null (find (snapshots, "LCK..ttyS3"));

  snap = find (snapshots, "LCK..ttyUSB0");
  g_assert_nonnull (snap);
  g_assert_cmpint (fl_snapshot_get_lock_format (snap), ==, FL_LOCK_FORMAT_UUCP);
  g_assert_cmpstr (fl_lock_format_to_string (FL_LOCK_FORMAT_UUCP), ==, "uucp");
  g_assert_cmpint (fl_snapshot_get_pid (snap), ==, child.pid);
  g_assert_cmpint (fl_snapshot_get_liveness (snap), ==, FL_LIVENESS_ALIVE);
  g_assert_cmpint (fl_snapshot_get_state (snap), ==, FL_ENTRY_STATE_HELD);
  /* The owner's process, as a running libfl holder's is shown. */
  g_assert_nonnull (fl_snapshot_get_process_name (snap));
  g_assert_cmpint (fl_snapshot_get_process_uid (snap), ==, (gint64) getuid ());
  g_assert_cmpint (fl_snapshot_get_process_start_time (snap), >, 0);
  owner = fl_snapshot_dup_owner_summary (snap);
  expected_owner = g_strdup_printf ("UUCP: PID %d", (int) child.pid);
  g_assert_true (g_str_has_prefix (owner, expected_owner));
  assert_never_reclaimed (snap);

  snap = find (snapshots, "LCK..ttyACM0");
  g_assert_nonnull (snap);
  g_assert_cmpint (fl_snapshot_get_lock_format (snap), ==, FL_LOCK_FORMAT_UUCP);
  g_assert_cmpint (fl_snapshot_get_pid (snap), ==, child.pid);
  g_assert_cmpint (fl_snapshot_get_state (snap), ==, FL_ENTRY_STATE_HELD);

  snap = find (snapshots, "LCK..ttyS1");
  g_assert_nonnull (snap);
  summary = fl_snapshot_dup_state_summary (snap);
  g_assert_cmpstr (summary, ==, "Stale: owner exited");
  g_assert_cmpint (fl_snapshot_get_liveness (snap), ==, FL_LIVENESS_DEAD);
  g_assert_nonnull (strstr (fl_snapshot_get_reason (snap), "has exited"));
  assert_never_reclaimed (snap);

  snap = find (snapshots, "LCK..ttyS2");
  g_assert_nonnull (snap);
  g_assert_cmpint (fl_snapshot_get_lock_format (snap), ==, FL_LOCK_FORMAT_FLOCK);

  child_end (&child);
}

/* A `*.lock` that is no regular file: its verdict says what it is, and where a link points. */
static void
test_foreign_kinds (FlTestDir     *fx,
                    gconstpointer  data)
{
  g_autofree char *link = path_in (fx, "link.lock");
  g_autofree char *fifo = path_in (fx, "fifo.lock");
  g_autofree char *dir = path_in (fx, "dir.lock");
  g_autoptr(GPtrArray) snapshots = NULL;
  FlSnapshot *snap;

  g_assert_no_errno (symlink ("/elsewhere/target", link));
  g_assert_no_errno (mkfifo (fifo, 0644));
  g_assert_no_errno (mkdir (dir, 0755));

  snapshots = scan (fx);
  snap = find (snapshots, "link.lock");
  g_assert_nonnull (snap);
  g_assert_cmpint (fl_snapshot_get_state (snap), ==, FL_ENTRY_STATE_FOREIGN);
  g_assert_nonnull (strstr (fl_snapshot_get_reason (snap),
                            "a symbolic link to “/elsewhere/target”"));
  g_assert_cmpstr (fl_snapshot_get_content (snap), ==, "/elsewhere/target");
  snap = find (snapshots, "fifo.lock");
  g_assert_nonnull (snap);
  g_assert_true (g_str_has_prefix (fl_snapshot_get_reason (snap), "a FIFO"));
  snap = find (snapshots, "dir.lock");
  g_assert_nonnull (snap);
  g_assert_true (g_str_has_prefix (fl_snapshot_get_reason (snap), "a directory"));
}

/* A literal and its length. */
#endif

#define P(s) (s), strlen (s)

static void
test_parsers (void)
{
  FlOtherLock o = { 0 };
  gint64 boot = 0;

  g_assert_true (_fl_other_parse_emacs (P ("a@b@host.example.org.12:1700000000"), &o, &boot));
  g_assert_cmpstr (o.user, ==, "a@b");
  g_assert_cmpstr (o.host, ==, "host.example.org");
  g_assert_cmpint (o.pid, ==, 12);
  g_assert_cmpint (boot, ==, 1700000000);
  _fl_other_lock_clear (&o);

  g_assert_false (_fl_other_parse_emacs (P ("host.12"), &o, &boot));
  g_assert_false (_fl_other_parse_emacs (P ("u@host.0"), &o, &boot));
  g_assert_false (_fl_other_parse_emacs (P ("u@host.12:x"), &o, &boot));
  g_assert_false (_fl_other_parse_emacs (P ("u@host.-1"), &o, &boot));
  g_assert_false (_fl_other_parse_mozilla (P ("127.0.0.1:12"), &o));
  g_assert_true (_fl_other_parse_mozilla (P ("127.0.0.1:+12"), &o));
  g_assert_cmpint (o.pid, ==, 12);
  _fl_other_lock_clear (&o);
  {
    int pid = 0;
    gint32 raw = 4321;

    g_assert_true (_fl_other_parse_uucp (P ("      4242\n"), &pid));
    g_assert_cmpint (pid, ==, 4242);
    /* Four bytes are also the old binary format; four digits are text on every system
     * (as binary, 0x32343234 is within the range of a Windows PID). */
    g_assert_true (_fl_other_parse_uucp (P ("4242"), &pid) && pid == 4242);
    g_assert_true (_fl_other_parse_uucp (P ("  42"), &pid) && pid == 42);
    g_assert_true (_fl_other_parse_uucp ((const char *) &raw, sizeof raw, &pid));
    g_assert_cmpint (pid, ==, 4321);
    g_assert_false (_fl_other_parse_uucp (P ("      \n"), &pid));
    g_assert_false (_fl_other_parse_uucp (P ("   -1\n"), &pid));
    g_assert_false (_fl_other_parse_uucp (P ("12 34\n"), &pid));
  }
  g_assert_false (_fl_other_parse_libreoffice (P ("just,two"), &o));
  _fl_other_lock_clear (&o);
}

int
main (int    argc,
      char **argv)
{
  /* The summaries are compared in English. */
  setlocale (LC_ALL, "C");
  g_setenv ("LANGUAGE", "C", TRUE);
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/libfl/other-locks/parsers", test_parsers);
  FL_TEST_ADD_LINUX ("/libfl/other-locks/emacs", NULL, test_emacs,
                     "symbolic links (Emacs' lock is one; a stub under wine)");
  FL_TEST_ADD_LINUX ("/libfl/other-locks/emacs-reused", NULL, test_emacs_reused,
                     "symbolic links (Emacs' lock), a forked child");
  FL_TEST_ADD_LINUX ("/libfl/other-locks/kernel-locks", NULL, test_kernel_locks,
                     "fcntl and flock locks held by a forked child (record_lock_holder: ENOSYS)");
  FL_TEST_ADD ("/libfl/other-locks/git-and-libreoffice", NULL, test_git_and_libreoffice);
  FL_TEST_ADD_LINUX ("/libfl/other-locks/never-follows", NULL, test_never_follows,
                     "FIFOs and symbolic links");
  FL_TEST_ADD ("/libfl/other-locks/git-never-taken-over", NULL, test_git_never_taken_over);
  FL_TEST_ADD_LINUX ("/libfl/other-locks/uucp", NULL, test_uucp,
                     "a forked child, flock(2) on a free port's lock, getuid()");
  FL_TEST_ADD_LINUX ("/libfl/other-locks/foreign-kinds", NULL, test_foreign_kinds,
                     "FIFOs and symbolic links");

  return g_test_run ();
}
