/* test-namespaces.c: holders in other time and UTS namespaces are judged by what their
 * identity can prove here (issue 29, point 4; docs/protocol.md, section 2)
 *
 * /proc/PID/stat's start time is counted in the reader's time namespace, so a holder started
 * under `unshare --time --boottime 86400` recorded ticks that a judge on the host never reads
 * back: they prove nothing, and a live holder is alive, never reused. A host name proves
 * nothing either: a holder that ran with another one (`unshare --uts`) on this machine and
 * died leaves a stale lock; but over a network or FUSE filesystem another boot id may be
 * another machine (bindfs stands in for one). Real processes, started by unshare(1); root only.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include <libfl/fl.h>

#include <string.h>

#include "fl-test-util.h"

#ifdef __linux__
# include <sched.h>
# include <stdlib.h>
# include <sys/mount.h>
# include <sys/stat.h>
# include <sys/vfs.h>
# include <sys/xattr.h>
# include <unistd.h>
# include "protocol/fl-content-private.h"
# include "support/fl-process-private.h"
# include "fl-test-counter.h"
# include "platform/fl-platform-linux.h"


#define BOOTTIME_OFFSET_S 86400

/* Skips the test unless unshare(1) can make the namespace @flag asks for. */
static gboolean
can_unshare (const char *flag)
{
  const char *argv[] = { "unshare", flag, "--fork", "true", NULL };
  int status = -1;

  if (!fl_test_is_root ())
    {
      g_test_skip ("needs root, to make namespaces with unshare(1)");
      return FALSE;
    }
  if (!g_spawn_sync (NULL, (char **) argv, NULL, G_SPAWN_SEARCH_PATH | G_SPAWN_STDERR_TO_DEV_NULL,
                     NULL, NULL, NULL, NULL, &status, NULL) ||
      !g_spawn_check_wait_status (status, NULL))
    {
      g_test_skip_printf ("unshare %s does not work here", flag);
      return FALSE;
    }
  return TRUE;
}

/* `fl-worker VERB [TARGET]` in a new time namespace whose boot clock is a day ahead; its first
 * line ("held PID", "ready PID") names the worker, unshare's child. */
static FlTestProc *
spawn_in_time_ns (const char *verb,
                  const char *target,
                  int        *pid)
{
  g_autofree char *worker = fl_test_helper_path ("FL_WORKER", "fl-worker");
  const char *argv[] = { "/usr/bin/env", "unshare", "--time", "--boottime",
                         G_STRINGIFY (BOOTTIME_OFFSET_S), "--fork", "--kill-child", worker, verb,
                         target, NULL };
  FlTestProc *proc = fl_test_proc_spawn (argv, NULL, FL_TEST_SPAWN_DEFAULT);
  g_autofree char *line = fl_test_proc_read_line (proc, fl_test_deadline_ms (10000));
  g_autofree char *prefix = g_strdup_printf ("%s ", strcmp (verb, "hold") == 0 ? "held" : "ready");

  g_assert_nonnull (line);
  g_assert_true (g_str_has_prefix (line, prefix));
  *pid = atoi (line + strlen (prefix));
  g_assert_cmpint (*pid, >, 0);
  g_assert_cmpint (*pid, !=, proc->pid);
  return proc;
}

static FlSnapshot *
snapshot_of (const char *path)
{
  g_autoptr(GError) error = NULL;
  FlSnapshot *snapshot = fl_snapshot_new (path, NULL, &error);

  g_assert_no_error (error);
  g_test_message ("%s: %s", path, fl_snapshot_get_reason (snapshot));
  return snapshot;
}

/* Neither reuse nor an exit is claimed for a process that runs. */
static void
assert_not_called_gone (FlSnapshot *snapshot)
{
  const char *reason = fl_snapshot_get_reason (snapshot);

  g_assert_cmpint (fl_snapshot_get_liveness (snapshot), ==, FL_LIVENESS_ALIVE);
  g_assert_false (fl_snapshot_get_stale (snapshot));
  g_assert_null (strstr (reason, "reused"));
  g_assert_null (strstr (reason, "exited"));
  g_assert_null (strstr (reason, "inherited"));
}

/* The identity @pid's libfl would write if it ran in this process's namespaces: its start
 * ticks as read here, no kernel lock. */
static void
identity_of (int         pid,
             FlIdentity *identity)
{
  unsigned long long start = 0;
  unsigned long flags;
  char state;

  g_assert_cmpint (fl_test_read_proc_stat (pid, &state, &flags, &start), !=, 0);
  _fl_identity_self (identity);
  identity->pid = pid;
  identity->start_ticks = start;
  identity->kernel_lock = FALSE;
}

/* FALSE, the test skipped, where the filesystem has no user xattrs. */
static gboolean
set_identity (const char       *path,
              const FlIdentity *identity)
{
  char record[FL_IDENTITY_MAX];
  gsize len = _fl_identity_format (identity, record, sizeof record);

  g_assert_cmpuint (len, >, 0);
  if (setxattr (path, FL_IDENTITY_XATTR, record, len, 0) == 0)
    return TRUE;
  g_test_skip ("no user xattrs here");
  return FALSE;
}

/* A libfl holder in another time namespace, with its kernel lock: held, and named. */
static void
test_time_held (FlTestDir     *fx,
                gconstpointer  data)
{
  g_autoptr(FlTestProc) holder = NULL;
  g_autoptr(FlSnapshot) snapshot = NULL;
  g_autofree char *named = NULL;
  int pid;

  if (!can_unshare ("--time"))
    return;
  holder = spawn_in_time_ns ("hold", fx->target, &pid);

  snapshot = snapshot_of (fx->lock);
  assert_not_called_gone (snapshot);
  g_assert_cmpint (fl_snapshot_get_pid (snapshot), ==, pid);
  g_assert_cmpint (fl_snapshot_get_kernel_lock (snapshot), ==, FL_KERNEL_LOCK_HELD);
  named = g_strdup_printf ("held: PID %d (", pid);
  g_assert_true (g_str_has_prefix (fl_snapshot_get_reason (snapshot), named));
  g_assert_cmpstr (fl_snapshot_get_process_name (snapshot), ==, "fl-worker");

  fl_test_holder_release (holder);
}

/* Where there is no kernel lock to go by (an identity that says none was taken, as where flock
 * fails): the start ticks of a live process in another time namespace prove no reuse, so it
 * is alive and its lock is not taken over. The identity is the one that process's libfl would
 * write: its own boot-clock ticks and its time namespace. */
static void
test_time_no_kernel_lock (FlTestDir     *fx,
                          gconstpointer  data)
{
  g_autoptr(FlTestProc) proc = NULL;
  g_autoptr(FlSnapshot) snapshot = NULL;
  g_autoptr(FlLock) lock = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *content = NULL;
  g_autofree char *after = NULL;
  g_autofree char *ns = NULL;
  FlIdentity identity;
  struct stat st;
  int pid;

  if (!can_unshare ("--time"))
    return;
  proc = spawn_in_time_ns ("wait", NULL, &pid);

  content = g_strdup_printf ("%d", pid);
  fl_test_write (fx->lock, content, -1);
  ns = g_strdup_printf ("/proc/%d/ns/time", pid);
  g_assert_cmpint (stat (ns, &st), ==, 0);
  identity_of (pid, &identity);
  g_assert_cmpuint (identity.timens, !=, st.st_ino);
  /* What it reads in its own namespace, whose boot clock is a day ahead. */
  identity.start_ticks += (guint64) BOOTTIME_OFFSET_S * (guint64) sysconf (_SC_CLK_TCK);
  identity.timens = st.st_ino;
  if (!set_identity (fx->lock, &identity))
    return;

  snapshot = snapshot_of (fx->lock);
  assert_not_called_gone (snapshot);
  g_assert_cmpint (fl_snapshot_get_pid (snapshot), ==, pid);
  g_assert_cmpint (fl_snapshot_get_kernel_lock (snapshot), ==, FL_KERNEL_LOCK_FREE);
  g_assert_nonnull (strstr (fl_snapshot_get_reason (snapshot), "another time namespace"));

  lock = fl_lock_try_acquire (fx->target, NULL, &error);
  g_assert_null (lock);
  g_assert_error (error, FL_ERROR, FL_ERROR_BUSY);
  after = fl_test_read (fx->lock, NULL);
  g_assert_cmpstr (after, ==, content);
}

/* Rewrites the identity of @path with kernel lock 0, as a holder that could not take one
 * would have written it. */
static void
drop_kernel_lock_field (const char *path)
{
  char buf[FL_IDENTITY_MAX];
  ssize_t n = getxattr (path, FL_IDENTITY_XATTR, buf, sizeof buf - 1);
  g_auto(GStrv) fields = NULL;
  g_autofree char *value = NULL;

  g_assert_cmpint (n, >, 0);
  buf[n] = '\0';
  fields = g_strsplit (buf, " ", 8);
  g_assert_cmpuint (g_strv_length (fields), ==, 7);
  g_assert_cmpstr (fields[5], ==, "1");
  g_free (fields[5]);
  fields[5] = g_strdup ("0");
  value = g_strjoinv (" ", fields);
  g_assert_cmpint (setxattr (path, FL_IDENTITY_XATTR, value, strlen (value), 0), ==, 0);
}

/* A holder with another host name, on this machine (same boot, same PID namespace), killed:
 * its lock is stale, with or without a kernel lock to go by. */
static void
test_uts_dead (FlTestDir     *fx,
               gconstpointer  data)
{
  g_autofree char *worker = fl_test_helper_path ("FL_WORKER", "fl-worker");
  const char *argv[] = { "/usr/bin/env", "unshare", "--uts", "/bin/sh", "-c",
                         "hostname libfl-test-other-host && exec \"$0\" hold \"$1\"", worker,
                         fx->target, NULL };
  g_autoptr(FlTestProc) holder = NULL;
  int pid;

  if (!can_unshare ("--uts"))
    return;
  /* unshare without --fork execs: one process all along, which says "held" with its PID. */
  holder = fl_test_spawn_holder_argv (argv);
  pid = holder->pid;
  fl_test_proc_kill (holder);

  for (guint i = 0; i < 2; i++)
    {
      g_autoptr(FlSnapshot) snapshot = NULL;

      if (i == 1)
        drop_kernel_lock_field (fx->lock);
      snapshot = snapshot_of (fx->lock);
      g_assert_cmpint (fl_snapshot_get_pid (snapshot), ==, pid);
      g_assert_cmpint (fl_snapshot_get_liveness (snapshot), ==, FL_LIVENESS_DEAD);
      g_assert_true (fl_snapshot_get_stale (snapshot));
    }
}

#define FUSE_SUPER_MAGIC 0x65735546

static gboolean
is_fuse_cb (gpointer data)
{
  struct statfs st;

  return statfs (data, &st) == 0 && st.f_type == FUSE_SUPER_MAGIC;
}

/* @fx's directory seen through bindfs at DIR/mirror, in a mount namespace of this process's own,
 * so that nothing stays mounted whatever happens; NULL (skipped) where that cannot be. */
static FlTestProc *
mount_mirror (FlTestDir  *fx,
              char      **mirror)
{
  g_autofree char *bindfs = g_find_program_in_path ("bindfs");
  g_autofree char *real = g_build_filename (fx->dir, "real", NULL);
  FlTestProc *proc;

  *mirror = g_build_filename (fx->dir, "mirror", NULL);
  if (!fl_test_is_root () || bindfs == NULL || !g_file_test ("/dev/fuse", G_FILE_TEST_EXISTS) ||
      unshare (CLONE_NEWNS) < 0 || mount (NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) < 0)
    {
      g_test_skip ("needs root, bindfs, /dev/fuse and a mount namespace");
      return NULL;
    }
  g_assert_cmpint (mkdir (real, 0755), ==, 0);
  g_assert_cmpint (mkdir (*mirror, 0755), ==, 0);
  {
    const char *argv[] = { bindfs, "-f", real, *mirror, NULL };

    proc = fl_test_proc_spawn (argv, NULL, FL_TEST_SPAWN_DEFAULT);
  }
  g_assert_true (fl_test_wait_until (is_fuse_cb, *mirror, 10000));
  return proc;
}

/* A lock of a live PID whose identity names another boot id: through the mirror (remote) the
 * PID may be another machine's, so unknown, never stale, with or without a kernel lock field;
 * on the local filesystem below, an earlier boot of this machine, so reused. Dropping the host
 * name from the identity must not make "another machine" "reused". */
static void
test_remote_other_boot (FlTestDir     *fx,
                        gconstpointer  data)
{
  g_autoptr(FlTestProc) waiting = fl_test_spawn_waiting ();
  g_autoptr(FlTestProc) bindfs = NULL;
  g_autofree char *mirror = NULL;
  g_autofree char *real_lock = NULL;
  g_autofree char *content = g_strdup_printf ("%d", (int) waiting->pid);
  FlIdentity identity;

  bindfs = mount_mirror (fx, &mirror);
  if (bindfs == NULL)
    return;
  real_lock = g_build_filename (fx->dir, "real", "target.lock", NULL);
  fl_test_write (real_lock, content, -1);
  identity_of (waiting->pid, &identity);
  g_assert_cmpstr (identity.boot_id, !=, "");
  identity.boot_id[0] = identity.boot_id[0] == '0' ? '1' : '0';

  for (int kernel_lock = 0; kernel_lock <= 1; kernel_lock++)
    {
      g_autofree char *mirror_lock = g_build_filename (mirror, "target.lock", NULL);
      g_autoptr(FlSnapshot) remote = NULL;
      g_autoptr(FlSnapshot) local = NULL;

      identity.kernel_lock = kernel_lock;
      if (!set_identity (real_lock, &identity))
        break;

      remote = snapshot_of (mirror_lock);
      g_assert_cmpint (fl_snapshot_get_pid (remote), ==, waiting->pid);
      g_assert_cmpint (fl_snapshot_get_liveness (remote), ==, FL_LIVENESS_UNKNOWN);
      g_assert_false (fl_snapshot_get_stale (remote));
      g_assert_nonnull (strstr (fl_snapshot_get_reason (remote), "another boot or machine"));

      local = snapshot_of (real_lock);
      g_assert_cmpint (fl_snapshot_get_liveness (local), ==, FL_LIVENESS_REUSED);
      g_assert_true (fl_snapshot_get_stale (local));
    }

  {
    const char *argv[] = { "fusermount", "-u", mirror, NULL };

    g_assert_true (g_spawn_sync (NULL, (char **) argv, NULL, G_SPAWN_SEARCH_PATH, NULL, NULL,
                                 NULL, NULL, NULL, NULL));
  }
  g_assert_true (fl_test_proc_wait (bindfs, fl_test_deadline_ms (10000)));
}

#endif

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);
  FL_TEST_ADD_LINUX ("/libfl/namespaces/time-held", NULL, test_time_held,
                     "time namespaces (unshare, root)");
  FL_TEST_ADD_LINUX ("/libfl/namespaces/time-no-kernel-lock", NULL, test_time_no_kernel_lock,
                     "time namespaces (unshare, root)");
  FL_TEST_ADD_LINUX ("/libfl/namespaces/uts-dead", NULL, test_uts_dead,
                     "UTS namespaces (unshare, root)");
  /* Last: it moves this process into a mount namespace of its own. */
  FL_TEST_ADD_LINUX ("/libfl/namespaces/remote-other-boot", NULL, test_remote_other_boot,
                     "mount namespaces and a FUSE file system (root)");
  return g_test_run ();
}
