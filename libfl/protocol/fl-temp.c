/* fl-temp.c: the file that becomes the lock (docs/protocol.md, steps A2 and A3)
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <errno.h>
#include <string.h>

#include <glib/gi18n-lib.h>

#include "protocol/fl-content-private.h"
#include "fl-error-private.h"
#include "protocol/fl-lock-private.h"
#include "support/fl-process-private.h"
#include "protocol/fl-temp-private.h"

static gint force_named_temp = -1;  /* -1: not decided yet; read FL_NAMED_TEMP once */

void
_fl_lock_set_force_named_temp (gboolean force)
{
  g_atomic_int_set (&force_named_temp, force ? 1 : 0);
}

gboolean
_fl_temp_use_named (void)
{
  gint value = g_atomic_int_get (&force_named_temp);

  if (value < 0)
    {
      value = g_strcmp0 (g_getenv ("FL_NAMED_TEMP"), "1") == 0 ? 1 : 0;
      g_atomic_int_compare_and_exchange (&force_named_temp, -1, value);
    }
  return value == 1;
}


void
_fl_temp_discard (FlTemp *temp,
                  FlDir  *dir)
{
  if (temp->name != NULL)
    _fl_platform_unlink (dir, temp->name);
  g_clear_pointer (&temp->name, g_free);
  _fl_platform_close (temp->fd);
  temp->fd = FL_HANDLE_NONE;
}

/* A temp whose kernel lock someone else got first is asked again a few times, briefly (a
 * prober's LOCK_SH lasts microseconds), then thrown away for a new one; after this many temps
 * in a row, someone is doing it on purpose (docs/protocol.md, step A2). */
#define FL_TEMP_TRIES      8
#define FL_TEMP_LOCK_ASKS  5   /* about 3 ms in all on one temp: 100 us, doubling, jittered */

static gboolean
open_temp (FlTemp           *temp,
           FlDir            *dir,
           const FlLockPath *lp,
           gboolean          named,
           GError          **error)
{
  int err = EOPNOTSUPP;

  temp->fd = FL_HANDLE_NONE;
  temp->name = NULL;

  if (!named)
    err = _fl_platform_create_unnamed (dir, &temp->fd);

  if (err != 0)
    {
      if (!named && err != EOPNOTSUPP)
        {
          _fl_set_error_from_errno (error, err, _("create a lock in"), lp->directory);
          return FALSE;
        }

      temp->name = _fl_temp_name (lp->lock_name, _fl_platform_self_pid (), g_random_int ());
      err = _fl_platform_create_excl (dir, temp->name, &temp->fd);
      if (err != 0)
        {
          g_autofree char *path = g_build_filename (lp->directory, temp->name, NULL);
          _fl_set_error_from_errno (error, err, _("create the temp file"), path);
          g_clear_pointer (&temp->name, g_free);
          temp->fd = FL_HANDLE_NONE;
          return FALSE;
        }
    }
  return TRUE;
}

/* 0 if the exclusive kernel lock could be had on @fd within a few short waits, else why not. */
static int
lock_temp (FlHandle fd)
{
  for (guint asks = 1;; asks++)
    {
      int err = _fl_platform_kernel_lock (fd, FL_KERNEL_EXCLUSIVE);

      if (err == 0)
        return 0;
      if ((err != EWOULDBLOCK && err != EINTR) || asks == FL_TEMP_LOCK_ASKS)
        return err;
      /* Randomised, so that a prober in step with us cannot stay in step. */
      g_usleep ((gulong) g_random_int_range (75, 125) << (asks - 1));
    }
}

/* Step A2's kernel lock. Between the create and the lock any process that can read the directory
 * can open a named temp and take LOCK_SH on it (root can reach an O_TMPFILE too, through
 * /proc/<pid>/fd). Such a temp is never linked: a holder without its kernel lock is judged by
 * its PID alone, and a holder whose PID exits while a forked child holds on (daemon()) would
 * lose its lock. So it is asked again briefly, then discarded and a new one, with a new random
 * name, is made. Only a filesystem without kernel locks at all may link without one (identity
 * flag 0): that holder has exactly the original module's guarantees, no fewer.
 *
 * After FL_TEMP_TRIES temps in a row someone is doing it on purpose: a try-acquire says so; an
 * acquire that may wait goes on, with backoff, until its deadline, as it would wait for a
 * holder (the soak's attacker holds its shared locks until a quiet millisecond, which a busy
 * directory may not have for a while). */
#define FL_TEMP_BACKOFF_MAX_US (50 * 1000)

gboolean
_fl_temp_create (FlTemp           *temp,
                 FlDir            *dir,
                 const FlLockPath *lp,
                 gboolean          named,
                 gint64            deadline_us,
                 GCancellable     *cancellable,
                 GError          **error)
{
  gint64 backoff_us = 1000;
  FlIdentity identity;
  gboolean kernel_lock;
  char pid_text[16];
  char record[FL_IDENTITY_MAX];
  gsize len, record_len;
  int err;

  for (guint tries = 1;; tries++)
    {
      int saved_errno;

      if (!open_temp (temp, dir, lp, named, error))
        return FALSE;
      saved_errno = lock_temp (temp->fd);
      if (saved_errno == 0)
        {
          kernel_lock = TRUE;
          break;
        }
      if (saved_errno == ENOLCK || saved_errno == EOPNOTSUPP || saved_errno == EINVAL)
        {
          kernel_lock = FALSE;
          break;
        }

      _fl_temp_discard (temp, dir);
      if (saved_errno != EWOULDBLOCK && saved_errno != EINTR)
        {
          _fl_set_error_from_errno (error, saved_errno, _("lock the new lock file in"),
                                    lp->directory);
          return FALSE;
        }
      if (tries < FL_TEMP_TRIES)
        continue;

      if (deadline_us >= 0 && g_get_monotonic_time () >= deadline_us)
        {
          /* A try-acquire's deadline is its start: it says so after FL_TEMP_TRIES temps. */
          gboolean waited = tries > FL_TEMP_TRIES;

          g_set_error (error, FL_ERROR, waited ? FL_ERROR_TIMEOUT : FL_ERROR_FAILED,
                       _("Cannot create the lock “%s”: another process keeps taking shared locks "
                         "on new files in “%s” (%u new lock files in a row%s). Find it (fuser or "
                         "lsof on the directory's files) and stop it"),
                       lp->lock_path, lp->directory, tries,
                       waited ? _(", until the timeout") : "");
          return FALSE;
        }
      if (g_cancellable_set_error_if_cancelled (cancellable, error))
        return FALSE;
      {
        gint64 pause = backoff_us - backoff_us / 4 +
                       g_random_int_range (0, (gint32) MAX (1, backoff_us / 2));

        if (deadline_us >= 0)
          pause = MIN (pause, MAX (0, deadline_us - g_get_monotonic_time ()));
        g_usleep ((gulong) pause);
        backoff_us = MIN (backoff_us * 2, FL_TEMP_BACKOFF_MAX_US);
      }
    }

  /* The identity says "kernel lock" only where a free one will prove the holder gone: on a
   * filesystem that carries it to every name and opener. Elsewhere it says 0 from the start,
   * so that no judge trusts a free kernel lock in the moment between the link and step A3b
   * (docs/protocol.md, section 2, "Filesystems"). */
  temp->fs_locks = FL_FS_LOCKS_UNTRUSTED;
  if (kernel_lock)
    {
      bool remote;

      _fl_platform_file_fs (temp->fd, &temp->fs_locks, &remote);  /* failed: untrusted */
    }
  temp->check_name = kernel_lock && temp->fs_locks != FL_FS_LOCKS_CARRIED;
  temp->marked = temp->check_name && _fl_platform_inode_mark (temp->fd, TRUE) == 0;

  /* One getpid() for the content, the identity and the owner (temp->pid): a fork in another
   * thread does not change this process's PID, and the child does not run this thread. */
  if (kernel_lock && temp->fs_locks == FL_FS_LOCKS_CARRIED)
    record_len = _fl_identity_self_record (&identity, record, sizeof record);
  else
    {
      _fl_identity_self (&identity);
      record_len = _fl_identity_format (&identity, record, sizeof record);
    }
  temp->pid = identity.pid;

  len = (gsize) g_snprintf (pid_text, sizeof pid_text, "%d", identity.pid);
  err = _fl_platform_write_all (temp->fd, pid_text, len);
  if (err != 0)
    {
      _fl_temp_discard (temp, dir);
      _fl_set_error_from_errno (error, err, _("write the lock for"), lp->lock_path);
      return FALSE;
    }

  /* Without an identity record (some filesystems keep no user xattrs) the lock still works:
   * the kernel lock decides. */
  if (record_len > 0)
    _fl_platform_identity_set (temp->fd, record, record_len);

  return TRUE;
}


/* Whether @file holds @pid's content: the lock just linked, not someone else's. */
static gboolean
holds_pid (FlHandle file,
           int      pid)
{
  char want[16], got[16];
  gsize len = (gsize) g_snprintf (want, sizeof want, "%d", pid);
  size_t n;

  return _fl_platform_read_head (file, got, sizeof got, &n) == 0 && n == len &&
         memcmp (got, want, len) == 0;
}

/* Whether the file opened through the lock's name is the very inode we lock: asked of the
 * kernel through the mark where there is one; else by file identity alone, which a FUSE hard
 * link may share with another kernel inode (so "the same" is then only probably so). */
static gboolean
name_reaches_our_inode (FlTemp   *temp,
                        FlHandle  named,
                        gboolean *proven)
{
  FlFileInfo ours, theirs;
  bool seen;

  *proven = FALSE;
  if (_fl_platform_file_info (temp->fd, &ours) != 0 ||
      _fl_platform_file_info (named, &theirs) != 0)
    return TRUE;  /* cannot tell: leave everything as it is */
  if (!fl_file_id_equal (&ours.id, &theirs.id))
    return FALSE;
  if (temp->marked && _fl_platform_inode_marked (named, &seen) == 0)
    {
      *proven = seen;
      return seen;
    }
  return TRUE;
}

/* Step A3b (docs/protocol.md, section 2, "Filesystems"): where the filesystem is not known to
 * keep one kernel inode for every name of a file, does the lock's name reach the inode whose
 * kernel lock we hold? If it does not (a FUSE hard link: bindfs, sshfs), our lock is seen by
 * nobody: the file opened through the name becomes the lock's handle, with a kernel lock of its
 * own that others opening T.lock through this mount meet, and an inode that stays the name's
 * while it is open (sshfs numbers a file by its name's lookup: section 3a and the release
 * compare against it). The identity keeps saying 0 on such a filesystem. Only where the name
 * was proven to reach our very inode on a filesystem of unknown type does it say 1. */
static void
lock_through_name (FlTemp           *temp,
                   FlDir            *dir,
                   const FlLockPath *lp)
{
  FlHandle named;
  gboolean proven = FALSE;

  if (_fl_platform_open_read (dir, lp->lock_name, &named) != 0)
    goto out;  /* gone already: section 3a's look finds out */
  if (!holds_pid (named, temp->pid) || name_reaches_our_inode (temp, named, &proven))
    {
      _fl_platform_close (named);
      if (proven && temp->fs_locks == FL_FS_LOCKS_UNPROVEN)
        {
          FlIdentity identity;
          char record[FL_IDENTITY_MAX];
          gsize len = _fl_identity_self_record (&identity, record, sizeof record);

          if (len > 0 && identity.pid == temp->pid)
            _fl_platform_identity_set (temp->fd, record, len);
        }
      goto out;
    }

  /* Another kernel inode. A prober of the name may hold LOCK_SH or LOCK_EX on it for a moment
   * (step A2's brief asks); one that never lets go leaves the name without our kernel lock,
   * which costs nothing a judge trusts here: it goes by the PID on such a filesystem. */
  lock_temp (named);
  _fl_platform_close (temp->fd);
  temp->fd = named;
  temp->marked = FALSE;  /* the mark went with the temp's handle */

out:
  if (temp->marked)
    _fl_platform_inode_mark (temp->fd, FALSE);
  temp->marked = FALSE;
}

/* Step A3 */
FlLinkResult
_fl_temp_link (FlTemp           *temp,
               FlDir            *dir,
               const FlLockPath *lp,
               GError          **error)
{
  int saved_errno;

  if (temp->name == NULL)
    saved_errno = _fl_platform_link_unnamed (dir, temp->fd, lp->lock_name);
  else
    saved_errno = _fl_platform_link_noreplace (dir, temp->name, lp->lock_name);

  if (saved_errno == 0)
    {
      _fl_platform_step_done ("A3");
      if (temp->name != NULL)
        _fl_platform_unlink (dir, temp->name);
      g_clear_pointer (&temp->name, g_free);
      if (temp->check_name)
        lock_through_name (temp, dir, lp);
      return FL_LINK_HELD;
    }

  if (saved_errno == EEXIST)
    return FL_LINK_EXISTS;
  if (saved_errno == ENOENT)
    return FL_LINK_RETRY;

  if (saved_errno == ESTALE)
    g_set_error (error, FL_ERROR, FL_ERROR_FAILED,
                 _("Cannot create the lock “%s”: %s. The filesystem's view of the directory is "
                   "out of date (on overlayfs: its upper directory was changed underneath the "
                   "mount). Every process sharing this lock must go through the same view of "
                   "the directory"), lp->lock_path, g_strerror (saved_errno));
  else if (saved_errno == EPERM || saved_errno == EOPNOTSUPP || saved_errno == EMLINK)
    g_set_error (error, FL_ERROR, FL_ERROR_FAILED,
                 _("Cannot create the lock “%s”: %s. The lock protocol needs a filesystem with "
                   "hard links"), lp->lock_path, g_strerror (saved_errno));
  else
    _fl_set_error_from_errno (error, saved_errno, _("create the lock"), lp->lock_path);
  return FL_LINK_FAILED;
}
