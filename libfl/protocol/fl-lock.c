/* fl-lock.c: acquire and release (docs/protocol.md, sections 3 and 6)
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <errno.h>
#include <string.h>

#include <glib/gi18n-lib.h>

#include "fl-dir-cache-private.h"
#include "fl-error-private.h"
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

/**
 * FlLock:
 *
 * A lock held by this process on a target file (or an etcd lock): made by fl_lock_acquire(),
 * fl_lock_try_acquire() or fl_lock_acquire_async(), given up by fl_lock_release(). The lock
 * file `target.lock` holds this process's PID, as the Node module writes it, and a kernel
 * lock on it makes the holder's liveness exact (docs/protocol.md). Dropping the last
 * reference without a release keeps the lock file, as a crash would; the next acquirer then
 * finds it stale and takes it over.
 */
struct _FlLock
{
  GObject              parent_instance;

  const FlLockBackend *backend;
  gpointer             state;    /* the backend's */
  GMutex               mutex;    /* guards context */
  GMainContext        *context;  /* where ::lost is emitted: the acquirer's */
};

G_DEFINE_FINAL_TYPE (FlLock, fl_lock, G_TYPE_OBJECT)

enum {
  PROP_0,
  PROP_TARGET,
  PROP_PATH,
  PROP_HELD,
  N_PROPS
};

static GParamSpec *properties[N_PROPS];

enum {
  SIGNAL_LOST,
  N_SIGNALS
};

static guint signals[N_SIGNALS];

static const FlLockBackend file_backend;


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

static const FlLockBackend file_backend = {
  .name = "file",
  .acquire = file_acquire,
  .release = file_release,
  .is_held = file_is_held,
  .release_held = file_release_held,
  .get_fencing_token = file_get_fencing_token,
  .get_target = file_get_target,
  .get_path = file_get_path,
  .dup_fd = file_dup_fd,
  .free = file_free,
};


/* The public object: the backend is chosen from the target, once. */

#ifndef FL_HAVE_ETCD
static gpointer
no_etcd_acquire (const char          *target,
                 const FlLockOptions *options,
                 gboolean             wait,
                 GCancellable        *cancellable,
                 GError             **error)
{
  g_set_error (error, FL_ERROR, FL_ERROR_INVALID_TARGET,
               _("“%s” is an etcd lock, but this libfl was built without etcd support (libsoup 3 "
                 "or json-glib missing, or -Detcd=disabled): build it with -Detcd=enabled"),
               target);
  return NULL;
}

static gboolean
no_etcd_is_locked (const char          *target,
                   const FlLockOptions *options,
                   GError             **error)
{
  return no_etcd_acquire (target, options, FALSE, NULL, error) != NULL;
}

static FlSnapshot *
no_etcd_snapshot_new (const char          *target,
                      const FlLockOptions *options,
                      GError             **error)
{
  no_etcd_acquire (target, options, FALSE, NULL, error);
  return NULL;
}

static GPtrArray *
no_etcd_scan (const char          *root,
              const FlLockOptions *options,
              GCancellable        *cancellable,
              GError             **error)
{
  no_etcd_acquire (root, options, FALSE, NULL, error);
  return NULL;
}

static const FlLockBackend no_etcd_backend = {
  .name = "etcd",
  .acquire = no_etcd_acquire,
  .is_locked = no_etcd_is_locked,
  .snapshot_new = no_etcd_snapshot_new,
  .scan = no_etcd_scan,
};
#endif

const FlLockBackend *
_fl_lock_backend_for (const char *target)
{
  if (g_str_has_prefix (target, "etcd://") || g_str_has_prefix (target, "etcds://"))
    {
#ifdef FL_HAVE_ETCD
      return &_fl_lock_backend_etcd;
#else
      return &no_etcd_backend;
#endif
    }
  return &file_backend;
}

static FlLock *
acquire (const char          *target,
         const FlLockOptions *options,
         gboolean             wait,
         GCancellable        *cancellable,
         GError             **error)
{
  const FlLockBackend *backend = _fl_lock_backend_for (target);
  gpointer state = backend->acquire (target, options, wait, cancellable, error);
  FlLock *self;

  if (state == NULL)
    return NULL;

  self = g_object_new (FL_TYPE_LOCK, NULL);
  self->backend = backend;
  self->state = state;
  if (backend->bind != NULL)
    backend->bind (state, self);
  return self;
}

/**
 * fl_lock_acquire:
 * @target: the file to lock (its lock is `@target.lock`), or an etcd lock,
 *   `etcd://HOST:PORT[,HOST:PORT...]/PREFIX/NAME` (docs/etcd.md)
 * @options: (nullable): options, or %NULL for the defaults (wait at most 30 s)
 * @cancellable: (nullable): a #GCancellable
 * @error: return location for a #GError
 *
 * Takes the lock of @target, waiting while a live process holds it. A stale lock (its holder
 * died, or its PID was reused) is taken over safely. Waiting wakes on events, not by polling.
 * The lock is on the directory that is at @target's directory path when it is granted: if that
 * directory is replaced meanwhile (`mv d d.old; mkdir d`), the acquire starts over in the new
 * one (docs/protocol.md, section 3a).
 *
 * An etcd target waits in etcd's queue for NAME under PREFIX (NAME may contain `/`; it is one
 * key component, so `a/b` never waits behind `a/b/c`), with a lease of the options' TTL that a
 * background thread keeps alive; the endpoints are tried in turn. If the lease may have
 * expired, the lock emits #FlLock::lost and fl_lock_is_held() turns %FALSE.
 *
 * Thread safety: any thread may call this; two threads of one process contending for one
 * target exclude each other exactly as two processes do.
 *
 * Returns: (transfer full): the held lock, or %NULL with @error set: %FL_ERROR_TIMEOUT,
 *   %G_IO_ERROR_CANCELLED, %FL_ERROR_FOREIGN, or an error naming the path and the cause
 */
FlLock *
fl_lock_acquire (const char          *target,
                 const FlLockOptions *options,
                 GCancellable        *cancellable,
                 GError             **error)
{
  g_return_val_if_fail (target != NULL, NULL);
  g_return_val_if_fail (!cancellable || G_IS_CANCELLABLE (cancellable), NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  return acquire (target, options, TRUE, cancellable, error);
}

/**
 * fl_lock_try_acquire:
 * @target: the file to lock, or an etcd lock as for fl_lock_acquire()
 * @options: (nullable): options (the timeout is ignored)
 * @error: return location for a #GError
 *
 * Like fl_lock_acquire() but never waits for a live holder: fails with %FL_ERROR_BUSY, whose
 * message names the holder. A stale lock is still taken over.
 *
 * Returns: (transfer full): the held lock, or %NULL with @error set
 */
FlLock *
fl_lock_try_acquire (const char          *target,
                     const FlLockOptions *options,
                     GError             **error)
{
  g_return_val_if_fail (target != NULL, NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  return acquire (target, options, FALSE, NULL, error);
}

/**
 * fl_lock_release:
 * @self: a held #FlLock
 * @error: return location for a #GError
 *
 * Releases the lock: removes `T.lock` if, and only if, it is still the file this holder
 * created. If it was taken away, nothing is removed and %FL_ERROR_LOST names the path and
 * the process that holds it now. Releasing twice does nothing the second time. Dropping the
 * last reference releases too, ignoring errors.
 *
 * An etcd lock is released by a delete guarded on its fencing token, then its lease is
 * revoked; %FL_ERROR_LOST if the key was no longer ours or the lock was reported lost.
 *
 * Returns: %TRUE if the lock was released, %FALSE with @error set
 */
gboolean
fl_lock_release (FlLock  *self,
                 GError **error)
{
  gboolean was_held;
  gboolean ok;

  g_return_val_if_fail (FL_IS_LOCK (self), FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

  if (self->backend->release_held != NULL)
    ok = self->backend->release_held (self->state, &was_held, error);
  else
    {
      was_held = self->backend->is_held (self->state);
      ok = self->backend->release (self->state, error);
    }
  if (was_held || !ok)
    g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_HELD]);
  return ok;
}

/**
 * fl_lock_get_target:
 * @self: a #FlLock
 *
 * The file this lock protects, as given to the acquire.
 *
 * Returns: (type filename): the target
 */
const char *
fl_lock_get_target (FlLock *self)
{
  g_return_val_if_fail (FL_IS_LOCK (self), NULL);
  return self->backend->get_target (self->state);
}

/* For an etcd lock: the key prefix of its queue in etcd, PREFIX/ESCAPED-NAME. */
/**
 * fl_lock_get_path:
 * @self: a #FlLock
 *
 * The lock file, `target.lock`; for an etcd lock the key prefix of its queue in etcd,
 * `PREFIX/ESCAPED-NAME`.
 *
 * Returns: (type filename): the lock's path
 */
const char *
fl_lock_get_path (FlLock *self)
{
  g_return_val_if_fail (FL_IS_LOCK (self), NULL);
  return self->backend->get_path (self->state);
}

/**
 * fl_lock_is_held:
 * @self: a #FlLock
 *
 * Whether this process holds the lock. In a forked child (however it was forked, `_Fork()`
 * included) this is %FALSE: the child shares the descriptor, and so keeps the kernel lock
 * alive, but it is not the holder, and its release removes nothing.
 *
 * An etcd lock is %FALSE in a forked child too, and its release there does nothing. It turns
 * %FALSE at the moment its lease may have expired (the send time of the
 * last successful keepalive + TTL - margin), whether or not etcd has noticed.
 *
 * Returns: %TRUE while the lock is held by this process
 */
gboolean
fl_lock_is_held (FlLock *self)
{
  g_return_val_if_fail (FL_IS_LOCK (self), FALSE);
  return self->backend->is_held (self->state);
}

/**
 * fl_lock_get_fencing_token:
 * @self: a #FlLock
 *
 * A number that grows strictly from one holder of the lock to the next, for a resource that
 * must refuse a holder that lost the lock without knowing it: the resource remembers the
 * highest token it has seen and rejects writes carrying a lower one (docs/etcd.md).
 *
 * On etcd this is the `create_revision` of the lock's key. A file lock has no honest
 * equivalent (inodes are reused, times can be set by anyone): it returns 0, "no token"; a
 * resource that needs fencing must use an etcd lock.
 *
 * Returns: the token, or 0 if the backend has none
 */
guint64
fl_lock_get_fencing_token (FlLock *self)
{
  g_return_val_if_fail (FL_IS_LOCK (self), 0);
  return self->backend->get_fencing_token (self->state);
}

gboolean
_fl_lock_get_inode (FlLock  *self,
                    guint64 *dev,
                    guint64 *ino)
{
  FlFileLock *file;

  if (self->backend != &file_backend)
    return FALSE;
  file = self->state;
  *dev = file->id.dev;
  *ino = file->id.ino;
  return file_is_held (file);
}

static gboolean
emit_lost_cb (gpointer data)
{
  FlLock *self = data;

  g_signal_emit (self, signals[SIGNAL_LOST], 0);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_HELD]);
  return G_SOURCE_REMOVE;
}

void
_fl_lock_report_lost (FlLock *lock)
{
  g_autoptr(GMainContext) context = NULL;
  GSource *source;

  g_mutex_lock (&lock->mutex);
  context = g_main_context_ref (lock->context);
  g_mutex_unlock (&lock->mutex);

  /* Always through a source, so ::lost is emitted where the holder runs its main context:
   * g_main_context_invoke() would emit it in the reporting thread whenever nobody owns that
   * context at that instant. */
  source = g_idle_source_new ();
  g_source_set_priority (source, G_PRIORITY_DEFAULT);
  g_source_set_callback (source, emit_lost_cb, g_object_ref (lock), g_object_unref);
  g_source_attach (source, context);
  g_source_unref (source);
}

void
_fl_lock_set_context (FlLock       *self,
                      GMainContext *context)
{
  g_mutex_lock (&self->mutex);
  g_main_context_unref (self->context);
  self->context = g_main_context_ref (context);
  g_mutex_unlock (&self->mutex);
}

static void
fl_lock_finalize (GObject *object)
{
  FlLock *self = (FlLock *) object;

  if (self->state != NULL)
    self->backend->free (self->state);
  g_main_context_unref (self->context);
  g_mutex_clear (&self->mutex);

  G_OBJECT_CLASS (fl_lock_parent_class)->finalize (object);
}

static void
fl_lock_get_property (GObject    *object,
                      guint       prop_id,
                      GValue     *value,
                      GParamSpec *pspec)
{
  FlLock *self = FL_LOCK (object);

  switch (prop_id)
    {
    case PROP_TARGET:
      g_value_set_string (value, fl_lock_get_target (self));
      break;
    case PROP_PATH:
      g_value_set_string (value, fl_lock_get_path (self));
      break;
    case PROP_HELD:
      g_value_set_boolean (value, fl_lock_is_held (self));
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
fl_lock_class_init (FlLockClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->finalize = fl_lock_finalize;
  object_class->get_property = fl_lock_get_property;

  /**
   * FlLock:target:
   *
   * The file this lock protects (fl_lock_get_target()).
   */
  properties[PROP_TARGET] =
    g_param_spec_string ("target", NULL, NULL, NULL,
                         G_PARAM_READABLE | G_PARAM_STATIC_STRINGS);
  /**
   * FlLock:path:
   *
   * The lock file, or an etcd lock's key prefix (fl_lock_get_path()).
   */
  properties[PROP_PATH] =
    g_param_spec_string ("path", NULL, NULL, NULL,
                         G_PARAM_READABLE | G_PARAM_STATIC_STRINGS);
  /**
   * FlLock:held:
   *
   * Whether this process holds the lock (fl_lock_is_held()); notified when it is released
   * or lost.
   */
  properties[PROP_HELD] =
    g_param_spec_boolean ("held", NULL, NULL, FALSE,
                          G_PARAM_READABLE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);

  g_object_class_install_properties (object_class, N_PROPS, properties);

  /**
   * FlLock::lost:
   * @self: the #FlLock
   *
   * The lock may no longer be held: an etcd lock's lease may have expired (its keepalives
   * did not reach etcd in time) or was revoked. Emitted once, in the thread-default main
   * context of the thread that acquired the lock (for fl_lock_acquire_async(), the one that
   * called fl_lock_acquire_finish()); fl_lock_is_held() is %FALSE from then on. Stop touching
   * what the lock protects. File locks never emit it.
   */
  signals[SIGNAL_LOST] =
    g_signal_new ("lost", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL,
                  G_TYPE_NONE, 0);
}

static void
fl_lock_init (FlLock *self)
{
  g_mutex_init (&self->mutex);
  self->context = g_main_context_ref_thread_default ();
}

/**
 * fl_lock_dup_fd:
 * @self: a held #FlLock
 * @error: return location for a #GError
 *
 * Returns a new descriptor of the lock file, close-on-exec, that shares the kernel lock
 * of @self: the lock is held for as long as any copy of it is open. A process that gives it to a
 * command (clearing close-on-exec in the child only, as flock(1) does) makes the lock live
 * exactly as long as the command, even if the process itself is killed: libfl then judges the
 * lock held by a child of the PID in the file (docs/protocol.md, "Handing the lock to a
 * command"). The lock file still names this process, and fl_lock_release() still removes it;
 * release only once the command has ended. The caller closes the descriptor. An etcd lock has
 * no descriptor: -1 with %FL_ERROR_FAILED.
 *
 * Returns: a descriptor (3 or above), or -1 with @error set if the lock is not held by this
 *   process
 */
int
fl_lock_dup_fd (FlLock  *self,
                GError **error)
{
  g_return_val_if_fail (FL_IS_LOCK (self), -1);
  g_return_val_if_fail (error == NULL || *error == NULL, -1);

  if (self->backend->dup_fd == NULL)
    {
      g_set_error (error, FL_ERROR, FL_ERROR_FAILED,
                   _("The lock “%s” is a %s lock: it has no descriptor to hand to a command"),
                   fl_lock_get_path (self), self->backend->name);
      return -1;
    }
  return self->backend->dup_fd (self->state, error);
}
