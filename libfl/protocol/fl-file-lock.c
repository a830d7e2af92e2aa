/* fl-file-lock.c: the file backend of FlLock: acquire, waiting for a live holder, and release
 * (docs/protocol.md, sections 3 and 6)
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <errno.h>
#include <string.h>

#include <glib/gi18n-lib.h>

#include "fl-dir-cache-private.h"
#include "fl-error-private.h"
#include "fl-file-backend-private.h"
#include "fl-judge-private.h"
#include "fl-lock-backend-private.h"
#include "fl-lock-private.h"
#include "fl-options-private.h"
#include "fl-other-locks-private.h"
#include "fl-takeover-private.h"
#include "fl-temp-private.h"
#include "fl-waiter-private.h"

/* The file backend's state of a held lock */
typedef struct
{
  FlLockPath lp;
  FlDir     *dir;
  FlHandle   fd;     /* holds the exclusive kernel lock on our lock file; none once released */
  FlFileId   id;
  gboolean   id_known;  /* id is our file's (fstat() succeeded at A3) */
  int        owner;  /* a forked child inherits the object, not the lock */
} FlFileLock;

/* Step A1 */
FlDir *
_fl_open_lock_directory (const char  *directory,
                         gboolean     create_dirs,
                         GError     **error)
{
  FlDir *dir = NULL;
  int saved_errno = _fl_platform_dir_open (directory, create_dirs, &dir);

  if (saved_errno != 0)
    {
      if (saved_errno == ENOENT)
        g_set_error (error, FL_ERROR, FL_ERROR_NOT_DIRECTORY,
                     _("The lock directory “%s” does not exist: create it first"), directory);
      else if (saved_errno == ENOTDIR)
        g_set_error (error, FL_ERROR, FL_ERROR_NOT_DIRECTORY,
                     _("The lock directory “%s” is not a directory: the target's parent must be "
                       "a directory"), directory);
      else
        _fl_set_error_from_errno (error, saved_errno, _("open the lock directory"),
                                  directory);
    }

  return dir;
}

static FlFileLock *
file_lock_new_held (FlLockPath       *lp,
                    FlDir            *dir,
                    FlHandle          fd,
                    const FlFileInfo *info,
                    int               owner)
{
  FlFileLock *self = g_new0 (FlFileLock, 1);

  self->lp = *lp;
  memset (lp, 0, sizeof *lp);
  self->dir = dir;
  self->fd = fd;
  self->owner = owner;  /* the PID in the file: read by this very call (step A2) */
  self->id = info->id;
  self->id_known = info->type == FL_FILE_REGULAR;
  return self;
}

typedef struct
{
  int     pid;
  char   *holder;
  gint64  mtime_us;
  char   *reason;
} LastHolder;

static void
last_holder_clear (LastHolder *last)
{
  g_clear_pointer (&last->holder, g_free);
  g_clear_pointer (&last->reason, g_free);
}

static void
last_holder_remember (LastHolder  *last,
                      FlLockState *state)
{
  last_holder_clear (last);
  last->pid = state->pid;
  last->mtime_us = state->mtime_us;
  last->reason = g_strdup (state->reason);
}

/* For messages only: the contended path does not read /proc for names. */
static const char *
last_holder_describe (LastHolder *last)
{
  if (last->holder == NULL)
    {
      FlProcessInfo info;

      _fl_process_probe (last->pid, FALSE, &info);
      if (last->pid <= 0)
        last->holder = g_strdup (_("an unknown process"));
      else if (info.name != NULL)
        last->holder = g_strdup_printf ("PID %d (%s)", last->pid, info.name);
      else
        last->holder = g_strdup_printf ("PID %d", last->pid);
      _fl_process_info_clear (&info);
    }
  return last->holder;
}

/* Section 3a: a lock is on the directory that is at the path when the lock is granted. After
 * this many replacements in one acquire, someone keeps replacing it. */
#define FL_DIRECTORY_MOVES_MAX 8

/* Whether the lock at the path is the file @ours just linked: false once the directory at
 * lp->directory is no longer the one the link went into. The look follows the directory's
 * links as the open of step A1 did, never the lock's name; files are compared, never names.
 * One system call: the file's own information is needed anyway. */
static gboolean
lock_at_path (const FlLockPath *lp,
              const FlFileInfo *ours)
{
  FlFileInfo at_path;

  return _fl_platform_stat_path (lp->lock_path, &at_path) == 0 &&
         fl_file_id_equal (&at_path.id, &ours->id);
}

/* R1-R3 on a lock just linked in a directory that is no longer at the path: it is ours (our
 * kernel lock, our file), so nobody else can have replaced it, but check as release does. */
static void
unlink_own (FlDir            *dir,
            const FlLockPath *lp,
            FlHandle          fd)
{
  _fl_platform_unlink_held (dir, lp->lock_name, fd, NULL);
  _fl_platform_close (fd);
}

/* Leaves the directory @dir for the one now at the path: a new temp there, a new watch. */
static gboolean
reopen_directory (FlDir              **dir,
                  FlTemp              *temp,
                  FlWaiter           **waiter,
                  const FlLockPath    *lp,
                  const FlLockOptions *options,
                  gboolean             named,
                  gint64               deadline,
                  GCancellable        *cancellable,
                  GError             **error)
{
  _fl_temp_discard (temp, *dir);
  g_clear_pointer (waiter, _fl_waiter_free);
  g_clear_pointer (dir, _fl_platform_dir_close);

  *dir = _fl_open_lock_directory (lp->directory, options->create_dirs, error);
  return *dir != NULL &&
         _fl_temp_create (temp, *dir, lp, named, deadline, cancellable, error);
}

/* reopen_directory(), counted: section 3a's bound on replacements during one acquire. */
static gboolean
move_to_directory_at_path (FlDir              **dir,
                           FlTemp              *temp,
                           FlWaiter           **waiter,
                           const FlLockPath    *lp,
                           const FlLockOptions *options,
                           gboolean             named,
                           guint               *moves,
                           gint64               deadline,
                           GCancellable        *cancellable,
                           GError             **error)
{
  if (++*moves > FL_DIRECTORY_MOVES_MAX)
    {
      _fl_temp_discard (temp, *dir);
      g_set_error (error, FL_ERROR, FL_ERROR_FAILED,
                   _("Cannot lock “%s”: its directory “%s” was replaced %u times while this "
                     "process was acquiring it. A lock is on the directory that is at the path "
                     "when it is granted: stop whatever keeps moving the directory"),
                   lp->lock_path, lp->directory, *moves);
      return FALSE;
    }
  return reopen_directory (dir, temp, waiter, lp, options, named, deadline, cancellable, error);
}

/* Whether @dir, kept open since an earlier acquire, is the directory at the path now: the
 * path's last component followed (as A1's open does) by looking at "DIR/.". Exact: our open
 * descriptor keeps the inode number from being reused. */
static gboolean
directory_at_path (FlDir            *dir,
                   const FlLockPath *lp)
{
  g_autofree char *dot = g_build_filename (lp->directory, ".", NULL);
  FlFileInfo ours, at_path;

  return _fl_platform_dir_info (dir, &ours) == 0 &&
         _fl_platform_stat_path (dot, &at_path) == 0 &&
         fl_file_id_equal (&ours.id, &at_path.id);
}

/* Absolute, with "." and ".." resolved; symbolic links are not followed (that would be a
 * system call per acquire): a lock reached by two spellings of one directory is waited for. */
static char *
file_dup_held_key (const char *target)
{
  g_auto(FlLockPath) lp = { 0 };

  if (!_fl_lock_path_init (&lp, target, NULL))
    return NULL;
  return g_canonicalize_filename (lp.lock_path, NULL);
}

static gpointer
file_acquire (const char          *target,
              const FlLockOptions *options,
              gboolean             wait,
              GCancellable        *cancellable,
              GError             **error)
{
  g_auto(FlLockPath) lp = { 0 };
  g_autoptr(FlWaiter) waiter = NULL;
  LastHolder last = { 0 };
  FlTemp temp = { FL_HANDLE_NONE, NULL, 0 };
  gboolean named = _fl_temp_use_named ();
  gboolean claimed = FALSE;  /* went the claim way (docs/protocol.md, section 4) */
  /* dir was kept open since an earlier acquire (fl-dir-cache.c) and is not yet known to be the
   * directory at the path: every result in it is checked, or it is reopened, before anything
   * is decided (a lock granted, a holder judged, a wait) */
  gboolean dir_unchecked;
  gint64 start = g_get_monotonic_time ();
  gint64 deadline;
  guint moves = 0;
  FlFileInfo info;
  FlDir *dir = NULL;
  FlFileLock *ret = NULL;

  options = _fl_lock_options_or_default (options);
  if (!wait || options->timeout_ms == 0)
    {
      wait = FALSE;
      deadline = start;
    }
  else
    deadline = _fl_lock_options_deadline_us (options, start);

  if (!_fl_lock_path_init (&lp, target, error))
    return NULL;

  dir = _fl_dir_cache_take (lp.directory);
  dir_unchecked = dir != NULL;
  if (dir == NULL)
    dir = _fl_open_lock_directory (lp.directory, options->create_dirs, error);
  if (dir == NULL)
    return NULL;

  if (!_fl_temp_create (&temp, dir, &lp, named, deadline, cancellable,
                        dir_unchecked ? NULL : error))
    {
      /* A kept directory may have been removed: the one at the path decides. */
      if (!dir_unchecked ||
          !reopen_directory (&dir, &temp, &waiter, &lp, options, named, deadline, cancellable,
                             error))
        goto out;
      dir_unchecked = FALSE;
    }

  for (;;)
    {
      g_auto(FlLockState) state = { .fd = FL_HANDLE_NONE };
      g_autoptr(GError) local_error = NULL;
      FlLinkResult result;
      gint64 until;
      FlWake wake;

      if (g_cancellable_set_error_if_cancelled (cancellable, error))
        goto out;

      result = _fl_temp_link (&temp, dir, &lp, dir_unchecked ? NULL : error);
      switch (result)
        {
        case FL_LINK_HELD:
          if (_fl_platform_file_info (temp.fd, &info) != 0)
            memset (&info, 0, sizeof info);  /* type 0 is no regular file: id_known FALSE */
          else if (!lock_at_path (&lp, &info))
            {
              /* Section 3a: granted in a directory moved away from the path (or a kept
               * directory that was moved since: that is no replacement during this acquire). */
              unlink_own (dir, &lp, temp.fd);
              temp.fd = FL_HANDLE_NONE;
              claimed = FALSE;  /* any claims we left are in the old directory */
              if (dir_unchecked
                  ? !reopen_directory (&dir, &temp, &waiter, &lp, options, named, deadline,
                                       cancellable, error)
                  : !move_to_directory_at_path (&dir, &temp, &waiter, &lp, options, named,
                                                &moves, deadline, cancellable, error))
                goto out;
              dir_unchecked = FALSE;
              continue;
            }
          if (claimed)
            _fl_takeover_clear_claims (dir, lp.lock_name);  /* safe only while we hold it */
          ret = file_lock_new_held (&lp, dir, temp.fd, &info, temp.pid);
          dir = NULL;
          temp.fd = FL_HANDLE_NONE;
          goto out;

        case FL_LINK_FAILED:
        case FL_LINK_RETRY:
          if (dir_unchecked)
            {
              /* Perhaps a kept directory that was removed: ask the one at the path. */
              if (!reopen_directory (&dir, &temp, &waiter, &lp, options, named, deadline,
                                     cancellable, error))
                goto out;
              dir_unchecked = FALSE;
              continue;
            }
          if (result == FL_LINK_FAILED)
            goto out;
          _fl_temp_discard (&temp, dir);
          named = TRUE;
          if (!_fl_temp_create (&temp, dir, &lp, named, deadline, cancellable, error))
            goto out;
          continue;

        case FL_LINK_EXISTS:
        default:
          break;
        }

      /* Held by someone: in the directory at the path, or in one moved away since it was
       * kept? Nothing is judged or waited for in the latter. */
      if (dir_unchecked)
        {
          if (!directory_at_path (dir, &lp) &&
              !reopen_directory (&dir, &temp, &waiter, &lp, options, named, deadline,
                                 cancellable, error))
            goto out;
          dir_unchecked = FALSE;
          continue;
        }

      /* Arm the watch before the link that may fail again, so no release is missed. */
      if (wait && waiter == NULL)
        {
          gint64 backoff_min_us, backoff_max_us;

          _fl_lock_options_backoff_us (options, &backoff_min_us, &backoff_max_us);
          waiter = _fl_waiter_new (dir, lp.lock_name, backoff_min_us, backoff_max_us);
          continue;
        }

      /* Step A4 */
      if (!_fl_lock_state_open (&state, dir, lp.directory, lp.lock_name, &local_error))
        {
          if (g_error_matches (local_error, G_IO_ERROR, G_IO_ERROR_NOT_FOUND))
            continue;  /* released meanwhile */
          g_propagate_error (error, g_steal_pointer (&local_error));
          goto out;
        }

      if (state.kind == FL_ENTRY_FOREIGN)
        {
          g_autofree char *foreign = _fl_describe_foreign (lp.lock_path, state.info.type);

          g_set_error_literal (error, FL_ERROR, FL_ERROR_FOREIGN, foreign);
          goto out;
        }

      /* Named like ours, but git's: never taken over (docs/other-lock-files.md). */
      if (_fl_other_lock_is_gits (&state, lp.directory))
        {
          g_set_error (error, FL_ERROR, FL_ERROR_FOREIGN,
                       _("“%s” is git's lock file (a git command is changing the repository): "
                         "libfl never takes it over. Wait for git to finish, or remove the file by "
                         "hand if no git process runs in that repository"), lp.lock_path);
          goto out;
        }

      _fl_lock_state_judge (&state, FL_PROBE_EXCLUSIVE, options, g_get_real_time (), FALSE);

      if (state.stale && (state.holds_exclusive || state.no_kernel_locks || state.only_probers))
        {
          FlTakeoverResult taken;

          claimed = claimed || state.only_probers;
          taken = _fl_takeover (dir, lp.lock_name, &state, error);

          if (taken == FL_TAKEOVER_FAILED)
            goto out;
          if (taken != FL_TAKEOVER_CLAIMED)
            continue;  /* step T6 (the fd closes with the state), then A3 */
          /* another taker owns the claim: wait for it as for a holder (A5) */
        }
      else
        _fl_takeover_note_shared (&state);

      last_holder_remember (&last, &state);

      if (!wait)
        {
          g_autofree char *age = _fl_format_age (g_get_real_time () - state.mtime_us);
          g_set_error (error, FL_ERROR, FL_ERROR_BUSY,
                       _("“%s” is locked by %s since %s ago (%s)"),
                       lp.lock_path, last_holder_describe (&last), age, state.reason);
          goto out;
        }

      /* Step A5 */
      until = deadline;
      if (state.stale_at_us > 0 && state.stale_at_us < G_MAXINT64 && !state.stale)
        {
          /* Saturated: a file time far in the future must not wrap the wait into the past. */
          gint64 left = state.stale_at_us - MIN (g_get_real_time (), state.stale_at_us);

          until = left < G_MAXINT64 / 4 ? g_get_monotonic_time () + left + 1000 : -1;
        }
      if (deadline >= 0)
        until = until < 0 ? deadline : MIN (until, deadline);

      if (state.stale)
        _fl_waiter_watch_pid (waiter, 0);  /* another taker's claim: re-check with backoff */
      else if (state.kernel_lock == FL_KERNEL_LOCK_HELD || state.liveness == FL_LIVENESS_ALIVE)
        _fl_waiter_watch_pid (waiter, state.pid);
      /* A holder's kernel lock goes when its descriptor closes: the event that tells a waiter
       * when a child that inherited it exits, where the PID in the file is gone (section 5).
       * Only a libfl holder's: the original module's has no descriptor open. */
      _fl_waiter_watch_file (waiter, state.kernel_lock == FL_KERNEL_LOCK_HELD
                                     ? state.fd : FL_HANDLE_NONE);

      _fl_lock_state_clear (&state);  /* never wait holding anything on the holder's file */

      wake = _fl_waiter_wait (waiter, until, cancellable);
      if (wake == FL_WAKE_CANCELLED)
        {
          g_cancellable_set_error_if_cancelled (cancellable, error);
          goto out;
        }
      if (wake == FL_WAKE_DEADLINE && deadline >= 0 && g_get_monotonic_time () >= deadline)
        {
          gint64 waited_us = g_get_monotonic_time () - start;
          /* A wait is often shorter than a second: say it in milliseconds then, not "0 s". */
          g_autofree char *waited = waited_us < G_USEC_PER_SEC
                                    ? g_strdup_printf ("%d ms", (int) (waited_us / 1000))
                                    : _fl_format_age (waited_us);
          g_autofree char *age = _fl_format_age (g_get_real_time () - last.mtime_us);
          g_set_error (error, FL_ERROR, FL_ERROR_TIMEOUT,
                       _("Timed out (ELOCKTIMEOUT) after %s waiting for “%s”: held by %s for %s "
                         "(%s)"), waited, lp.lock_path, last_holder_describe (&last), age,
                       last.reason);
          goto out;
        }
    }

out:
  if (dir != NULL)
    _fl_temp_discard (&temp, dir);  /* empty when the lock is held: it became the lock */
  g_clear_pointer (&waiter, _fl_waiter_free);  /* before the directory is anyone else's */
  if (dir != NULL)
    _fl_dir_cache_put (lp.directory, dir);
  last_holder_clear (&last);
  return ret;
}

/* Step R1-R3 */
static gboolean
file_release_held (gpointer   state,
                   gboolean  *was_held,
                   GError   **error)
{
  FlFileLock *self = state;
  FlHandle fd = self->fd;
  int err;

  *was_held = FALSE;
  if (fd == FL_HANDLE_NONE)
    return TRUE;

  self->fd = FL_HANDLE_NONE;

  /* A forked child shares the descriptor, and so the kernel lock, with the holder: it only
   * drops its own copy, and the lock stays held by the process that took it. */
  if (_fl_platform_self_pid () != self->owner)
    {
      _fl_platform_close (fd);
      return TRUE;
    }
  *was_held = TRUE;  /* what file_is_held() says until now */

  /* Steps R1 and R2: only a holder of our kernel lock could replace our file; we hold it. */
  err = _fl_platform_unlink_held (self->dir, self->lp.lock_name, fd,
                                  self->id_known ? &self->id : NULL);

  if (err == ESTALE || err == ENOENT)
    {
      g_auto(FlLockState) now = { .fd = FL_HANDLE_NONE };
      g_autofree char *holder = NULL;

      if (_fl_lock_state_open (&now, self->dir, self->lp.directory, self->lp.lock_name, NULL))
        {
          _fl_lock_state_judge (&now, FL_PROBE_SHARED, NULL, g_get_real_time (), FALSE);
          holder = _fl_lock_state_describe_holder (&now);
        }
      _fl_platform_close (fd);
      if (holder != NULL)
        g_set_error (error, FL_ERROR, FL_ERROR_LOST,
                     _("The lock “%s” was taken away from this process while it held it; it is "
                       "now held by %s. Nothing was removed. Whatever it protected may have been "
                       "changed meanwhile"), self->lp.lock_path, holder);
      else
        g_set_error (error, FL_ERROR, FL_ERROR_LOST,
                     _("The lock “%s” was taken away from this process while it held it; it no "
                       "longer exists. Nothing was removed. Whatever it protected may have been "
                       "changed meanwhile"), self->lp.lock_path);
      return FALSE;
    }

  if (err != 0)
    {
      _fl_platform_close (fd);
      _fl_set_error_from_errno (error, err, _("remove the lock"), self->lp.lock_path);
      return FALSE;
    }

  _fl_test_crash_point ("R2");

  /* Step R3: only now may the kernel lock go. */
  _fl_platform_close (fd);
  /* For the next acquire in this directory, which checks it is still at the path. */
  _fl_dir_cache_put (self->lp.directory, g_steal_pointer (&self->dir));
  return TRUE;
}

static gboolean
file_release (gpointer  state,
              GError  **error)
{
  gboolean was_held;

  return file_release_held (state, &was_held, error);
}

/* A forked child has the object and a copy of the descriptor, but is not the holder. */
static gboolean
file_is_held (gpointer state)
{
  FlFileLock *self = state;

  return self->fd != FL_HANDLE_NONE && self->owner == _fl_platform_self_pid ();
}

/* A file lock has no honest token (docs/etcd.md, "Fencing"). */
static guint64
file_get_fencing_token (gpointer state)
{
  return 0;
}

static const char *
file_get_target (gpointer state)
{
  return ((FlFileLock *) state)->lp.target;
}

static const char *
file_get_path (gpointer state)
{
  return ((FlFileLock *) state)->lp.lock_path;
}

static int
file_dup_fd (gpointer  state,
             GError  **error)
{
  FlFileLock *self = state;
  FlHandle fd;
  int err;

  if (!file_is_held (self))
    {
      g_set_error (error, FL_ERROR, FL_ERROR_FAILED,
                   _("The lock “%s” is not held by this process: acquire it first"),
                   self->lp.lock_path);
      return -1;
    }
  err = _fl_platform_dup (self->fd, &fd);
  if (err != 0)
    {
      _fl_set_error_from_errno (error, err, _("duplicate the descriptor of the lock"),
                                self->lp.lock_path);
      return -1;
    }
  return (int) fd;
}

static void
file_free (gpointer state)
{
  FlFileLock *self = state;

  file_release (self, NULL);
  g_clear_pointer (&self->dir, _fl_platform_dir_close);
  _fl_lock_path_clear (&self->lp);
  g_free (self);
}

/* A file lock is never lost behind its holder's back: nothing to report to. */
static void
file_bind (gpointer  state,
           FlLock   *lock)
{
}

static gboolean
file_get_inode (gpointer  state,
                guint64  *dev,
                guint64  *ino)
{
  FlFileLock *file = state;

  *dev = file->id.dev;
  *ino = file->id.ino;
  return file_is_held (file);
}

const FlLockBackend _fl_lock_backend_file = {
  .name = "file",
  .dup_held_key = file_dup_held_key,
  .acquire = file_acquire,
  .bind = file_bind,
  .release = file_release,
  .is_held = file_is_held,
  .release_held = file_release_held,
  .get_fencing_token = file_get_fencing_token,
  .get_target = file_get_target,
  .get_path = file_get_path,
  .dup_fd = file_dup_fd,
  .free = file_free,
  .get_inode = file_get_inode,
  /* Inspection (fl-file-backend-private.h) */
  .is_locked = _fl_file_is_locked,
  .snapshot_new = _fl_file_snapshot_new,
  .scan = _fl_file_scan,
  .reclaim = _fl_file_reclaim,
  .watch_start = _fl_file_watch_start,
  .watch_stop = _fl_file_watch_stop,
};
