/* fl-lock.c: acquire and release (docs/protocol.md, sections 3 and 6)
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/xattr.h>
#include <unistd.h>

#include "fl-error-private.h"
#include "fl-judge-private.h"
#include "fl-lock-private.h"
#include "fl-options-private.h"
#include "fl-takeover-private.h"
#include "fl-temp-private.h"
#include "fl-waiter-private.h"

struct _FlLock
{
  GObject    parent_instance;

  FlLockPath lp;
  int        dirfd;
  int        fd;     /* holds LOCK_EX on our lock file; -1 once released */
  dev_t      dev;
  ino_t      ino;
  pid_t      owner;  /* a forked child inherits the object, not the lock */
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


/* Step A1 */
int
_fl_open_lock_directory (const char  *directory,
                         gboolean     create_dirs,
                         GError     **error)
{
  int dirfd = open (directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC);

  if (dirfd < 0 && errno == ENOENT && create_dirs)
    {
      if (g_mkdir_with_parents (directory, 0777) < 0 && errno != EEXIST)
        {
          _fl_set_error_from_errno (error, errno, "create the lock directory", directory);
          return -1;
        }
      dirfd = open (directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    }

  if (dirfd < 0)
    {
      int saved_errno = errno;

      if (saved_errno == ENOENT)
        g_set_error (error, FL_ERROR, FL_ERROR_NOT_DIRECTORY,
                     "The lock directory “%s” does not exist: create it first", directory);
      else if (saved_errno == ENOTDIR)
        g_set_error (error, FL_ERROR, FL_ERROR_NOT_DIRECTORY,
                     "The lock directory “%s” is not a directory: the target's parent must be "
                     "a directory", directory);
      else
        _fl_set_error_from_errno (error, saved_errno, "open the lock directory", directory);
    }

  return dirfd;
}


static FlLock *
fl_lock_new_held (FlLockPath        *lp,
                  int                dirfd,
                  int                fd,
                  const struct stat *st)
{
  FlLock *self = g_object_new (FL_TYPE_LOCK, NULL);

  self->lp = *lp;
  memset (lp, 0, sizeof *lp);
  self->dirfd = dirfd;
  self->fd = fd;
  self->owner = _fl_process_self_pid ();
  self->dev = st->st_dev;
  self->ino = st->st_ino;
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
        last->holder = g_strdup ("an unknown process");
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

/* Whether the lock at the path is the inode @ours just linked: false once the directory at
 * lp->directory is no longer the one the link went into. stat() follows the directory's
 * symlinks as the open() of step A1 did, never the lock's name; inodes are compared, never
 * names. One system call: the inode's own fstat() is needed anyway. */
static gboolean
lock_at_path (const FlLockPath  *lp,
              const struct stat *ours)
{
  struct stat at_path;

  return fstatat (AT_FDCWD, lp->lock_path, &at_path, AT_SYMLINK_NOFOLLOW) == 0 &&
         at_path.st_dev == ours->st_dev && at_path.st_ino == ours->st_ino;
}

/* R1-R3 on a lock just linked in a directory that is no longer at the path: it is ours (our
 * kernel lock, our inode), so nobody else can have replaced it, but check as release does. */
static void
unlink_own (int               dirfd,
            const FlLockPath *lp,
            int               fd)
{
  struct stat ours, named;

  if (fstat (fd, &ours) == 0 &&
      fstatat (dirfd, lp->lock_name, &named, AT_SYMLINK_NOFOLLOW) == 0 &&
      named.st_dev == ours.st_dev && named.st_ino == ours.st_ino)
    unlinkat (dirfd, lp->lock_name, 0);
  close (fd);
}

/* Leaves the directory @dirfd for the one now at the path: a new temp there, a new watch. */
static gboolean
move_to_directory_at_path (int                 *dirfd,
                           FlTemp              *temp,
                           FlWaiter           **waiter,
                           const FlLockPath    *lp,
                           const FlLockOptions *options,
                           gboolean             named,
                           guint               *moves,
                           GError             **error)
{
  _fl_temp_discard (temp, *dirfd);
  g_clear_pointer (waiter, _fl_waiter_free);
  close (*dirfd);
  *dirfd = -1;

  if (++*moves > FL_DIRECTORY_MOVES_MAX)
    {
      g_set_error (error, FL_ERROR, FL_ERROR_FAILED,
                   "Cannot lock “%s”: its directory “%s” was replaced %u times while this "
                   "process was acquiring it. A lock is on the directory that is at the path "
                   "when it is granted: stop whatever keeps moving the directory",
                   lp->lock_path, lp->directory, *moves);
      return FALSE;
    }

  *dirfd = _fl_open_lock_directory (lp->directory, options->create_dirs, error);
  return *dirfd >= 0 && _fl_temp_create (temp, *dirfd, lp, named, error);
}

static FlLock *
acquire (const char          *target,
         const FlLockOptions *options,
         gboolean             wait,
         GCancellable        *cancellable,
         GError             **error)
{
  g_auto(FlLockPath) lp = { 0 };
  g_autoptr(FlWaiter) waiter = NULL;
  LastHolder last = { 0 };
  FlTemp temp = { -1, NULL };
  gboolean named = _fl_temp_use_named ();
  gboolean claimed = FALSE;  /* went the claim way (docs/protocol.md, section 4) */
  gint64 start = g_get_monotonic_time ();
  gint64 deadline;
  guint moves = 0;
  struct stat st;
  int dirfd = -1;
  FlLock *ret = NULL;

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

  dirfd = _fl_open_lock_directory (lp.directory, options->create_dirs, error);
  if (dirfd < 0)
    return NULL;

  if (!_fl_temp_create (&temp, dirfd, &lp, named, error))
    goto out;

  for (;;)
    {
      g_auto(FlLockState) state = { .fd = -1 };
      g_autoptr(GError) local_error = NULL;
      gint64 until;
      FlWake wake;

      if (g_cancellable_set_error_if_cancelled (cancellable, error))
        goto out;

      switch (_fl_temp_link (&temp, dirfd, &lp, error))
        {
        case FL_LINK_HELD:
          if (fstat (temp.fd, &st) < 0)
            memset (&st, 0, sizeof st);
          else if (!lock_at_path (&lp, &st))
            {
              /* Section 3a: granted in a directory moved away from the path. */
              unlink_own (dirfd, &lp, temp.fd);
              temp.fd = -1;
              claimed = FALSE;  /* any claims we left are in the old directory */
              if (!move_to_directory_at_path (&dirfd, &temp, &waiter, &lp, options, named,
                                              &moves, error))
                goto out;
              continue;
            }
          if (claimed)
            _fl_takeover_clear_claims (dirfd, lp.lock_name);  /* safe only while we hold it */
          ret = fl_lock_new_held (&lp, dirfd, temp.fd, &st);
          dirfd = -1;
          temp.fd = -1;
          goto out;

        case FL_LINK_FAILED:
          goto out;

        case FL_LINK_RETRY:
          _fl_temp_discard (&temp, dirfd);
          named = TRUE;
          if (!_fl_temp_create (&temp, dirfd, &lp, named, error))
            goto out;
          continue;

        case FL_LINK_EXISTS:
        default:
          break;
        }

      /* Arm the watch before the link() that may fail again, so no release is missed. */
      if (wait && waiter == NULL)
        {
          gint64 backoff_min_us, backoff_max_us;

          _fl_lock_options_backoff_us (options, &backoff_min_us, &backoff_max_us);
          waiter = _fl_waiter_new (dirfd, lp.lock_name, backoff_min_us, backoff_max_us);
          continue;
        }

      /* Step A4 */
      if (!_fl_lock_state_open (&state, dirfd, lp.directory, lp.lock_name, &local_error))
        {
          if (g_error_matches (local_error, G_IO_ERROR, G_IO_ERROR_NOT_FOUND))
            continue;  /* released meanwhile */
          g_propagate_error (error, g_steal_pointer (&local_error));
          goto out;
        }

      if (state.kind == FL_ENTRY_FOREIGN)
        {
          g_autofree char *foreign = _fl_describe_foreign (lp.lock_path, &state.st);

          g_set_error_literal (error, FL_ERROR, FL_ERROR_FOREIGN, foreign);
          goto out;
        }

      _fl_lock_state_judge (&state, FL_PROBE_EXCLUSIVE, options, g_get_real_time (), FALSE);

      if (state.stale && (state.holds_exclusive || state.no_kernel_locks || state.only_probers))
        {
          FlTakeoverResult taken;

          claimed = claimed || state.only_probers;
          taken = _fl_takeover (dirfd, lp.lock_name, &state, error);

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
                       "“%s” is locked by %s since %s ago (%s)",
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
                       "Timed out (ELOCKTIMEOUT) after %s waiting for “%s”: held by %s for %s "
                       "(%s)", waited, lp.lock_path, last_holder_describe (&last), age,
                       last.reason);
          goto out;
        }
    }

out:
  _fl_temp_discard (&temp, dirfd);  /* empty when the lock is held: it became the lock */
  if (dirfd >= 0)
    close (dirfd);
  last_holder_clear (&last);
  return ret;
}

/**
 * fl_lock_acquire:
 * @target: the file to lock; its lock is `@target.lock`
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
 * @target: the file to lock
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

/* Step R1-R3 */
static gboolean
release (FlLock  *self,
         GError **error)
{
  struct stat st;
  gboolean ours;
  int dirfd = self->dirfd;
  int fd = self->fd;

  if (fd < 0)
    return TRUE;

  self->fd = -1;

  /* A forked child shares the descriptor, and so the kernel lock, with the holder: it only
   * drops its own copy, and the lock stays held by the process that took it. */
  if (_fl_process_self_pid () != self->owner)
    {
      close (fd);
      return TRUE;
    }

  /* Step R1: only a holder of our kernel lock could replace our file; we hold it. */
  ours = fstatat (dirfd, self->lp.lock_name, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
         st.st_dev == self->dev && st.st_ino == self->ino;

  if (!ours)
    {
      g_auto(FlLockState) now = { .fd = -1 };
      g_autofree char *holder = NULL;

      if (_fl_lock_state_open (&now, dirfd, self->lp.directory, self->lp.lock_name, NULL))
        {
          _fl_lock_state_judge (&now, FL_PROBE_SHARED, NULL, g_get_real_time (), FALSE);
          holder = _fl_lock_state_describe_holder (&now);
        }
      close (fd);
      g_set_error (error, FL_ERROR, FL_ERROR_LOST,
                   "The lock “%s” was taken away from this process while it held it; %s%s. "
                   "Nothing was removed. Whatever it protected may have been changed meanwhile",
                   self->lp.lock_path,
                   holder != NULL ? "it is now held by " : "it no longer exists",
                   holder != NULL ? holder : "");
      return FALSE;
    }

  /* Step R2 */
  if (unlinkat (dirfd, self->lp.lock_name, 0) < 0)
    {
      int saved_errno = errno;
      close (fd);
      _fl_set_error_from_errno (error, saved_errno, "remove the lock", self->lp.lock_path);
      return FALSE;
    }

  _fl_test_crash_point ("R2");

  /* Step R3: only now may the kernel lock go. */
  close (fd);
  return TRUE;
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
 * Returns: %TRUE if the lock was released, %FALSE with @error set
 */
gboolean
fl_lock_release (FlLock  *self,
                 GError **error)
{
  g_return_val_if_fail (FL_IS_LOCK (self), FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

  if (self->fd < 0)
    return TRUE;

  if (!release (self, error))
    {
      g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_HELD]);
      return FALSE;
    }
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_HELD]);
  return TRUE;
}

const char *
fl_lock_get_target (FlLock *self)
{
  g_return_val_if_fail (FL_IS_LOCK (self), NULL);
  return self->lp.target;
}

const char *
fl_lock_get_path (FlLock *self)
{
  g_return_val_if_fail (FL_IS_LOCK (self), NULL);
  return self->lp.lock_path;
}

/* A forked child has the object and a copy of the descriptor, but is not the holder. */
static gboolean
held_here (FlLock *self)
{
  return self->fd >= 0 && self->owner == _fl_process_self_pid ();
}

/**
 * fl_lock_is_held:
 * @self: a #FlLock
 *
 * Whether this process holds the lock. In a forked child (however it was forked, `_Fork()`
 * included) this is %FALSE: the child shares the descriptor, and so keeps the kernel lock
 * alive, but it is not the holder, and its release removes nothing.
 *
 * Returns: %TRUE while the lock is held by this process
 */
gboolean
fl_lock_is_held (FlLock *self)
{
  g_return_val_if_fail (FL_IS_LOCK (self), FALSE);
  return held_here (self);
}

gboolean
_fl_lock_get_inode (FlLock  *self,
                    guint64 *dev,
                    guint64 *ino)
{
  *dev = self->dev;
  *ino = self->ino;
  return held_here (self);
}

static void
fl_lock_finalize (GObject *object)
{
  FlLock *self = (FlLock *) object;

  release (self, NULL);
  if (self->dirfd >= 0)
    close (self->dirfd);
  _fl_lock_path_clear (&self->lp);

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
      g_value_set_string (value, self->lp.target);
      break;
    case PROP_PATH:
      g_value_set_string (value, self->lp.lock_path);
      break;
    case PROP_HELD:
      g_value_set_boolean (value, held_here (self));
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

  properties[PROP_TARGET] =
    g_param_spec_string ("target", NULL, NULL, NULL,
                         G_PARAM_READABLE | G_PARAM_STATIC_STRINGS);
  properties[PROP_PATH] =
    g_param_spec_string ("path", NULL, NULL, NULL,
                         G_PARAM_READABLE | G_PARAM_STATIC_STRINGS);
  properties[PROP_HELD] =
    g_param_spec_boolean ("held", NULL, NULL, FALSE,
                          G_PARAM_READABLE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);

  g_object_class_install_properties (object_class, N_PROPS, properties);
}

static void
fl_lock_init (FlLock *self)
{
  self->dirfd = -1;
  self->fd = -1;
}

/**
 * fl_lock_dup_fd:
 * @self: a held #FlLock
 * @error: return location for a #GError
 *
 * Returns a new descriptor of the lock file, close-on-exec, that shares the kernel lock of
 * @self: the lock is held for as long as any copy of it is open. A process that gives it to a
 * command (clearing close-on-exec in the child only, as flock(1) does) makes the lock live
 * exactly as long as the command, even if the process itself is killed: libfl then judges the
 * lock held by a child of the PID in the file (docs/protocol.md, "Handing the lock to a
 * command"). The lock file still names this process, and fl_lock_release() still removes it;
 * release only once the command has ended. The caller closes the descriptor.
 *
 * Returns: a descriptor (3 or above), or -1 with @error set if the lock is not held by this
 *   process
 */
int
fl_lock_dup_fd (FlLock  *self,
                GError **error)
{
  int fd;

  g_return_val_if_fail (FL_IS_LOCK (self), -1);
  g_return_val_if_fail (error == NULL || *error == NULL, -1);

  if (self->fd < 0 || _fl_process_self_pid () != self->owner)
    {
      g_set_error (error, FL_ERROR, FL_ERROR_FAILED,
                   "The lock “%s” is not held by this process: acquire it first",
                   self->lp.lock_path);
      return -1;
    }
  fd = fcntl (self->fd, F_DUPFD_CLOEXEC, 3);
  if (fd < 0)
    _fl_set_error_from_errno (error, errno, "duplicate the descriptor of the lock",
                              self->lp.lock_path);
  return fd;
}
