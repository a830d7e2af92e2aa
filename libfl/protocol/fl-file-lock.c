/* fl-file-lock.c: the file backend of FlLock: a held lock file and its release (docs/protocol.md,
 * section 6); acquiring it is fl-acquire.c
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <errno.h>
#include <string.h>

#include <glib/gi18n-lib.h>

#include "protocol/fl-acquire-private.h"
#include "protocol/fl-dir-cache-private.h"
#include "fl-error-private.h"
#include "protocol/fl-file-backend-private.h"
#include "protocol/fl-judge-private.h"
#include "protocol/fl-lock-backend-private.h"
#include "protocol/fl-takeover-private.h"

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

static FlFileLock *
file_lock_new_held (FlAcquired *held)
{
  FlFileLock *self = g_new0 (FlFileLock, 1);

  self->lp = held->lp;
  self->dir = held->dir;
  self->fd = held->fd;
  self->owner = held->pid;  /* the PID in the file: read by this very call (step A2) */
  self->id = held->info.id;
  self->id_known = held->info.type == FL_FILE_REGULAR;
  return self;
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

/* Steps A1-A5: fl-acquire.c */
static gpointer
file_acquire (const char          *target,
              const FlLockOptions *options,
              gboolean             wait,
              GCancellable        *cancellable,
              GError             **error)
{
  FlAcquired held;

  if (!_fl_acquire (target, options, wait, cancellable, &held, error))
    return NULL;
  return file_lock_new_held (&held);
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
      g_auto(FlEvidence) now = { .fd = FL_HANDLE_NONE };
      g_autofree char *holder = NULL;

      if (_fl_evidence_open (&now, self->dir, self->lp.directory, self->lp.lock_name, NULL))
        {
          _fl_evidence_judge (&now, FL_PROBE_SHARED, NULL, g_get_real_time (), FALSE);
          holder = _fl_evidence_describe_holder (&now);
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

  _fl_platform_step_done ("R2");

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

/* A file lock lasts while its descriptor is open: no deadline. */
static gint64
file_held_until (gpointer state)
{
  return G_MAXINT64;
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
  .held_until = file_held_until,
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
  .root_path = _fl_file_root_path,
  .root_check = _fl_file_root_check,
  .watch_start = _fl_file_watch_start,
  .watch_stop = _fl_file_watch_stop,
};
