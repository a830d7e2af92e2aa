/* fl-takeover.c: takeover of a stale lock through a graveyard (docs/protocol.md, section 4)
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "fl-error.h"
#include "fl-takeover-private.h"

static const char *crash_at;

static void
read_crash_at (void)
{
  crash_at = g_getenv ("FL_TEST_CRASH_AT");
}

void
_fl_test_crash_point (const char *step)
{
  static pthread_once_t once = PTHREAD_ONCE_INIT;

  pthread_once (&once, read_crash_at);

  if (G_UNLIKELY (crash_at != NULL) && strcmp (crash_at, step) == 0)
    kill (getpid (), SIGKILL);
}

static gboolean
same_inode_at (int          dirfd,
               const char  *name,
               FlLockState *state)
{
  return _fl_lock_state_still_at (state, dirfd, name);
}

static int
rename_noreplace (int         dirfd,
                  const char *from,
                  const char *to)
{
  int r = renameat2 (dirfd, from, dirfd, to, RENAME_NOREPLACE);

  /* Some filesystems lack the flag; the graveyard name is ours and random, so a plain
   * rename cannot replace anything that matters. */
  if (r < 0 && (errno == EINVAL || errno == ENOSYS))
    r = renameat (dirfd, from, dirfd, to);
  return r;
}

FlTakeoverResult
_fl_takeover (int           dirfd,
              const char   *lock_name,
              FlLockState  *stale,
              GError      **error)
{
  g_autofree char *graveyard = NULL;
  int saved_errno;

  g_assert (stale->holds_exclusive || stale->no_kernel_locks);
  g_assert (stale->stale);

  /* Step T1: we hold LOCK_EX on the inode we judged; is it still the one at T.lock? Only a
   * holder of that LOCK_EX can move it away (docs/protocol.md, section 4), so from here to
   * T2 it stays, unless a peer without kernel locks acts. */
  if (!same_inode_at (dirfd, lock_name, stale))
    return FL_TAKEOVER_CHANGED;

  _fl_test_crash_point ("T1");

  /* Step T2 */
  graveyard = g_strdup_printf ("%s.gy.%d.%08x", lock_name, _fl_process_self_pid (),
                               g_random_int ());
  if (rename_noreplace (dirfd, lock_name, graveyard) < 0)
    {
      saved_errno = errno;
      if (saved_errno == ENOENT)
        return FL_TAKEOVER_CHANGED;
      g_set_error (error, G_IO_ERROR, g_io_error_from_errno (saved_errno),
                   "Cannot move the stale lock “%s” aside: %s", stale->path,
                   g_strerror (saved_errno));
      return FL_TAKEOVER_FAILED;
    }

  _fl_test_crash_point ("T2");

  /* Step T3 */
  if (same_inode_at (dirfd, graveyard, stale))
    {
      /* Step T4 */
      if (unlinkat (dirfd, graveyard, 0) < 0 && errno != ENOENT)
        {
          saved_errno = errno;
          g_set_error (error, G_IO_ERROR, g_io_error_from_errno (saved_errno),
                       "Cannot remove the graveyard of “%s”: %s", stale->path,
                       g_strerror (saved_errno));
          return FL_TAKEOVER_FAILED;
        }
      _fl_test_crash_point ("T4");
      /* Step T6 is the caller's: clearing the state closes the fd and drops LOCK_EX. */
      return FL_TAKEOVER_DONE;
    }

  /* Step T5: we moved someone else's lock. Put it back with link(), which cannot replace a
   * lock created meanwhile; rename() could, and that is how the original module makes two
   * holders. */
  if (linkat (dirfd, graveyard, dirfd, lock_name, 0) == 0)
    unlinkat (dirfd, graveyard, 0);
  else if (errno == EEXIST)
    g_message ("A peer without kernel locks replaced “%s” during a takeover; the lock it held "
               "was left in “%s” because a newer lock exists", stale->path, graveyard);
  /* ENOENT: a cleaner removed the graveyard; there is nothing to restore. */

  return FL_TAKEOVER_RACED;
}
