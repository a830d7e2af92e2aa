/* fl-temp.c: the file that becomes the lock (docs/protocol.md, steps A2 and A3)
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/xattr.h>
#include <unistd.h>

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
                  int     dirfd)
{
  if (temp->name != NULL)
    unlinkat (dirfd, temp->name, 0);
  g_clear_pointer (&temp->name, g_free);
  if (temp->fd >= 0)
    close (temp->fd);
  temp->fd = -1;
}

static gboolean
write_all (int         fd,
           const char *buf,
           gsize       len)
{
  while (len > 0)
    {
      gssize n = write (fd, buf, len);

      if (n < 0 && errno == EINTR)
        continue;
      if (n <= 0)
        {
          if (n == 0)
            errno = ENOSPC;
          return FALSE;
        }
      buf += n;
      len -= (gsize) n;
    }
  return TRUE;
}

/* A temp whose kernel lock someone else got first is asked again a few times, briefly (a
 * prober's LOCK_SH lasts microseconds), then thrown away for a new one; after this many temps
 * in a row, someone is doing it on purpose (docs/protocol.md, step A2). */
#define FL_TEMP_TRIES      8
#define FL_TEMP_LOCK_ASKS  5   /* about 3 ms in all on one temp: 100 us, doubling, jittered */

static gboolean
open_temp (FlTemp           *temp,
           int               dirfd,
           const FlLockPath *lp,
           gboolean          named,
           GError          **error)
{
  temp->fd = -1;
  temp->name = NULL;

  if (!named)
    temp->fd = openat (dirfd, ".", O_TMPFILE | O_RDWR | O_CLOEXEC, 0644);

  if (temp->fd < 0)
    {
      if (!named && errno != EOPNOTSUPP && errno != EISDIR && errno != EINVAL &&
          errno != ENOENT)
        {
          _fl_set_error_from_errno (error, errno, "create a lock in", lp->directory);
          return FALSE;
        }

      temp->name = g_strdup_printf ("%s.%d.%08x.tmp", lp->lock_name, _fl_process_self_pid (),
                                    g_random_int ());
      temp->fd = openat (dirfd, temp->name,
                         O_CREAT | O_EXCL | O_RDWR | O_NOFOLLOW | O_CLOEXEC | O_NOCTTY, 0644);
      if (temp->fd < 0)
        {
          g_autofree char *path = g_build_filename (lp->directory, temp->name, NULL);
          _fl_set_error_from_errno (error, errno, "create the temp file", path);
          g_clear_pointer (&temp->name, g_free);
          return FALSE;
        }
    }
  return TRUE;
}

/* Whether LOCK_EX could be had on @fd within a few short waits; errno says why not. */
static gboolean
lock_temp (int fd)
{
  for (guint asks = 1;; asks++)
    {
      if (flock (fd, LOCK_EX | LOCK_NB) == 0)
        return TRUE;
      if ((errno != EWOULDBLOCK && errno != EINTR) || asks == FL_TEMP_LOCK_ASKS)
        return FALSE;
      /* Randomised, so that a prober in step with us cannot stay in step. */
      g_usleep ((gulong) g_random_int_range (75, 125) << (asks - 1));
    }
}

/* Step A2's kernel lock. Between openat() and flock() any process that can read the directory
 * can open a named temp and take LOCK_SH on it (root can reach an O_TMPFILE too, through
 * /proc/<pid>/fd). Such a temp is never linked: a holder without its kernel lock is judged by
 * its PID alone, and a holder whose PID exits while a forked child holds on (daemon()) would
 * lose its lock. So it is asked again briefly, then discarded and a new one, with a new random
 * name, is made. Only a filesystem without kernel locks at all may link without one (identity
 * flag 0): that holder has exactly the original module's guarantees, no fewer. */
gboolean
_fl_temp_create (FlTemp           *temp,
                 int               dirfd,
                 const FlLockPath *lp,
                 gboolean          named,
                 GError          **error)
{
  FlIdentity identity;
  gboolean kernel_lock;
  char pid_text[16];
  char xattr[FL_IDENTITY_MAX];
  gsize len;

  for (guint tries = 1;; tries++)
    {
      int saved_errno;

      if (!open_temp (temp, dirfd, lp, named, error))
        return FALSE;
      if (lock_temp (temp->fd))
        {
          kernel_lock = TRUE;
          break;
        }
      saved_errno = errno;
      if (saved_errno == ENOLCK || saved_errno == EOPNOTSUPP || saved_errno == EINVAL)
        {
          kernel_lock = FALSE;
          break;
        }

      _fl_temp_discard (temp, dirfd);
      if (saved_errno != EWOULDBLOCK && saved_errno != EINTR)
        {
          _fl_set_error_from_errno (error, saved_errno, "lock the new lock file in",
                                    lp->directory);
          return FALSE;
        }
      if (tries == FL_TEMP_TRIES)
        {
          g_set_error (error, FL_ERROR, FL_ERROR_FAILED,
                       "Cannot create the lock “%s”: another process keeps taking shared locks "
                       "on new files in “%s” (%u new lock files in a row). Find it (fuser or "
                       "lsof on the directory's files) and stop it",
                       lp->lock_path, lp->directory, tries);
          return FALSE;
        }
    }

  _fl_process_self_identity (&identity);
  identity.kernel_lock = kernel_lock;

  len = (gsize) g_snprintf (pid_text, sizeof pid_text, "%d", identity.pid);
  if (!write_all (temp->fd, pid_text, len))
    {
      int saved_errno = errno;
      _fl_temp_discard (temp, dirfd);
      _fl_set_error_from_errno (error, saved_errno, "write the lock for", lp->lock_path);
      return FALSE;
    }

  /* Without user xattrs (some filesystems) the lock still works: the kernel lock decides. */
  len = identity.kernel_lock ? _fl_process_self_identity_xattr (xattr, sizeof xattr)
                             : _fl_identity_format (&identity, xattr, sizeof xattr);
  if (len > 0)
    fsetxattr (temp->fd, FL_IDENTITY_XATTR, xattr, len, 0);

  return TRUE;
}


/* Step A3 */
FlLinkResult
_fl_temp_link (FlTemp           *temp,
               int               dirfd,
               const FlLockPath *lp,
               GError          **error)
{
  int r, saved_errno;

  if (temp->name == NULL)
    {
      char proc_path[64];

      g_snprintf (proc_path, sizeof proc_path, "/proc/self/fd/%d", temp->fd);
      r = linkat (AT_FDCWD, proc_path, dirfd, lp->lock_name, AT_SYMLINK_FOLLOW);
    }
  else
    r = linkat (dirfd, temp->name, dirfd, lp->lock_name, 0);

  if (r == 0)
    {
      _fl_test_crash_point ("A3");
      if (temp->name != NULL)
        unlinkat (dirfd, temp->name, 0);
      g_clear_pointer (&temp->name, g_free);
      return FL_LINK_HELD;
    }

  saved_errno = errno;
  if (saved_errno == EEXIST)
    return FL_LINK_EXISTS;
  if (saved_errno == ENOENT)
    return FL_LINK_RETRY;

  if (saved_errno == EPERM || saved_errno == EOPNOTSUPP || saved_errno == EMLINK)
    g_set_error (error, FL_ERROR, FL_ERROR_FAILED,
                 "Cannot create the lock “%s”: %s. The lock protocol needs a filesystem with "
                 "hard links", lp->lock_path, g_strerror (saved_errno));
  else
    _fl_set_error_from_errno (error, saved_errno, "create the lock", lp->lock_path);
  return FL_LINK_FAILED;
}
