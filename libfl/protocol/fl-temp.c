/* fl-temp.c: the file that becomes the lock (docs/protocol.md, steps A2 and A3)
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <errno.h>

#include <glib/gi18n-lib.h>

#include "fl-content-private.h"
#include "fl-error-private.h"
#include "fl-lock-private.h"
#include "fl-process-private.h"
#include "fl-takeover-private.h"
#include "fl-temp-private.h"

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

  /* One getpid() for the content, the identity and the owner (temp->pid): a fork in another
   * thread does not change this process's PID, and the child does not run this thread. */
  if (kernel_lock)
    record_len = _fl_process_self_identity_record (&identity, record, sizeof record);
  else
    {
      _fl_process_self_identity (&identity);
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
      _fl_test_crash_point ("A3");
      if (temp->name != NULL)
        _fl_platform_unlink (dir, temp->name);
      g_clear_pointer (&temp->name, g_free);
      return FL_LINK_HELD;
    }

  if (saved_errno == EEXIST)
    return FL_LINK_EXISTS;
  if (saved_errno == ENOENT)
    return FL_LINK_RETRY;

  if (saved_errno == EPERM || saved_errno == EOPNOTSUPP || saved_errno == EMLINK)
    g_set_error (error, FL_ERROR, FL_ERROR_FAILED,
                 _("Cannot create the lock “%s”: %s. The lock protocol needs a filesystem with "
                   "hard links"), lp->lock_path, g_strerror (saved_errno));
  else
    _fl_set_error_from_errno (error, saved_errno, _("create the lock"), lp->lock_path);
  return FL_LINK_FAILED;
}
