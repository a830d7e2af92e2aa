/* fl-snapshot-reclaim.c: the guarded reclaim, removing a file only if it is still the very one
 * a snapshot saw (docs/protocol.md, section 7)
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <string.h>

#include <glib/gi18n-lib.h>

#include "fl-format-private.h"
#include "fl-error-private.h"
#include "fl-error.h"
#include "fl-format.h"
#include "protocol/fl-judge-private.h"
#include "protocol/fl-file-backend-private.h"
#include "protocol/fl-lock-backend-private.h"
#include "protocol/fl-lock-private.h"
#include "protocol/fl-snapshot-private.h"
#include "protocol/fl-takeover-private.h"

static gboolean
still_the_same (FlSnapshot  *self,
                FlEvidence *now)
{
  return now->kind == self->kind &&
         now->info.id.dev == self->dev &&
         now->info.id.ino == self->ino &&
         now->info.mtime_ns == self->mtime_ns &&
         now->content_len == self->content_len &&
         memcmp (now->content, self->content_raw, self->content_len) == 0;
}

static gboolean
reclaim_at (FlSnapshot          *self,
            FlDir               *dir,
            const FlLockOptions *options,
            gboolean             unproven,
            GCancellable        *cancellable,
            GError             **error)
{
  g_autoptr(GError) local_error = NULL;
  g_autofree char *busy_reason = NULL;

  /* Shared holders never stop a reclaim (the claim, docs/protocol.md section 4), but another
   * taker may own the claim for a moment: give it a few tries before refusing. */
  for (guint attempt = 0; attempt < 50; attempt++)
    {
      g_auto(FlEvidence) now = { .fd = FL_HANDLE_NONE };
      gboolean no_exclusive;
      int saved_errno;

      if (g_cancellable_set_error_if_cancelled (cancellable, error))
        return FALSE;

      if (!_fl_evidence_open (&now, dir, self->directory, self->name, &local_error))
        {
          if (g_error_matches (local_error, G_IO_ERROR, G_IO_ERROR_NOT_FOUND))
            g_set_error (error, FL_ERROR, FL_ERROR_CHANGED,
                         _("“%s” no longer exists: nothing was reclaimed"), self->path);
          else
            g_propagate_error (error, g_steal_pointer (&local_error));
          return FALSE;
        }

      if (!still_the_same (self, &now))
        {
          g_set_error (error, FL_ERROR, FL_ERROR_CHANGED,
                       _("“%s” changed since it was inspected (another holder, content or file): "
                         "nothing was touched. Look at it again before reclaiming"), self->path);
          return FALSE;
        }

      _fl_evidence_judge (&now, FL_PROBE_EXCLUSIVE, options, g_get_real_time (), FALSE);
      /* Nobody holds LOCK_EX on it; a temp's is never asked (its creator decides, J3). */
      no_exclusive = now.holds_exclusive || now.no_kernel_locks || now.only_probers ||
                     now.kind == FL_ENTRY_TEMP;

      if (unproven && !no_exclusive)
        {
          /* A held kernel lock is a live libfl holder: no operator overrules that. */
          g_set_error (error, FL_ERROR, FL_ERROR_NOT_STALE,
                       _("“%s” is held, so it was left alone even though forced: %s"),
                       self->path, now.reason);
          return FALSE;
        }
      if (!now.stale && unproven)
        now.stale = TRUE;  /* the operator's decision: docs/protocol.md, section 7 */
      if (!now.stale || !no_exclusive)
        {
          _fl_takeover_note_shared (&now);
          g_set_error (error, FL_ERROR, FL_ERROR_NOT_STALE,
                       _("“%s” is not stale, so it was left alone: %s"), self->path, now.reason);
          return FALSE;
        }

      if (self->kind == FL_ENTRY_LOCK)
        {
          switch (_fl_takeover (dir, self->name, &now, error))
            {
            case FL_TAKEOVER_DONE:
              return TRUE;
            case FL_TAKEOVER_FAILED:
              return FALSE;
            case FL_TAKEOVER_CLAIMED:
              g_clear_pointer (&busy_reason, g_free);
              busy_reason = g_steal_pointer (&now.reason);
              _fl_evidence_clear (&now);
              g_usleep (1000);
              continue;
            case FL_TAKEOVER_CHANGED:
            case FL_TAKEOVER_RACED:
            default:
              g_set_error (error, FL_ERROR, FL_ERROR_CHANGED,
                           _("“%s” changed while it was being reclaimed: nothing of another "
                             "holder's was removed. Look at it again"), self->path);
              return FALSE;
            }
        }

      /* An orphaned temp or graveyard: its name carries its creator, who is gone. */
      if (!_fl_evidence_still_at (&now, dir, self->name))
        {
          g_set_error (error, FL_ERROR, FL_ERROR_CHANGED,
                       _("“%s” changed while it was being removed: nothing was touched"),
                       self->path);
          return FALSE;
        }
      saved_errno = _fl_platform_unlink (dir, self->name);
      if (saved_errno != 0)
        {
          g_set_error (error, FL_ERROR,
                       _fl_error_code_from_errno (saved_errno),
                       _("Cannot remove “%s”: %s"), self->path, g_strerror (saved_errno));
          return FALSE;
        }
      return TRUE;
    }

  g_set_error (error, FL_ERROR, FL_ERROR_BUSY,
               _("“%s” is being taken over by another process, which has not finished (%s): look "
                 "at it again"), self->path, busy_reason != NULL ? busy_reason : "");
  return FALSE;
}

/* The file backend's reclaim: refuse a foreign entry, open the directory, run the guarded
 * steps. */
gboolean
_fl_file_reclaim (FlSnapshot          *self,
                  const FlLockOptions *options,
                  gboolean             unproven,
                  GCancellable        *cancellable,
                  GError             **error)
{
  gboolean ret;
  FlDir *dir;

  if (self->kind == FL_ENTRY_OTHER_PROGRAM)
    {
      const char *explained = _fl_lock_format_get_explanation (self->format);

      g_set_error (error, FL_ERROR, FL_ERROR_FOREIGN,
                   _("“%s” is %s's lock file, not libfl's: libfl never removes it. %s"),
                   self->path, fl_lock_format_get_label (self->format), explained);
      return FALSE;
    }

  if (self->kind == FL_ENTRY_FOREIGN)
    {
      g_set_error (error, FL_ERROR, FL_ERROR_FOREIGN,
                   _("“%s” is not a regular file: libfl never removes it. Remove it by hand if it "
                     "does not belong there"), self->path);
      return FALSE;
    }

  dir = _fl_open_lock_directory (self->directory, FALSE, error);
  if (dir == NULL)
    return FALSE;

  ret = reclaim_at (self, dir, options, unproven, cancellable, error);
  _fl_platform_dir_close (dir);

  return ret;
}

/* What fl_snapshot_reclaim() and fl_snapshot_reclaim_unproven() share: the backend that made
 * the snapshot removes what it saw (an etcd backend revokes the very lease it saw). A temp or
 * graveyard file has no target: its path is a file's. */
static gboolean
reclaim (FlSnapshot          *self,
         const FlLockOptions *options,
         gboolean             unproven,
         GCancellable        *cancellable,
         GError             **error)
{
  const FlLockBackend *backend =
    _fl_lock_backend_for (self->target != NULL ? self->target : self->path);

  return backend->reclaim (self, options, unproven, cancellable, error);
}

/**
 * fl_snapshot_reclaim:
 * @self: a snapshot of a stale lock, or of an orphaned temp or graveyard file
 * @options: (nullable): options (stale_after matters)
 * @error: return location for a #GError
 *
 * Removes the file @self saw, through the same takeover path an acquirer uses
 * (docs/protocol.md, section 7), but only if it is still that very file (same inode, content
 * and mtime) and still stale now. An operator who confirmed one lock can never reclaim
 * another. Refusals: %FL_ERROR_NOT_STALE (the holder is alive, the lock is untouched),
 * %FL_ERROR_CHANGED (not the file the snapshot saw), %FL_ERROR_FOREIGN.
 *
 * Returns: %TRUE if the file was removed
 *
 * Since: 0.1
 */
gboolean
fl_snapshot_reclaim (FlSnapshot          *self,
                     const FlLockOptions *options,
                     GError             **error)
{
  g_return_val_if_fail (FL_IS_SNAPSHOT (self), FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

  return reclaim (self, options, FALSE, NULL, error);
}

/**
 * fl_snapshot_reclaim_unproven:
 * @self: a snapshot of a lock, temp or graveyard file that is not proven stale
 * @cancellable: (nullable): a #GCancellable
 * @error: return location for a #GError
 *
 * The operator's override, for a file libfl never calls stale by itself (see
 * %FL_RECLAIMABLE_UNPROVEN): content the original module calls alive for ever (a positive
 * number that is no int32, such as `12.5`) or that is too long to tell, empty or unparsable
 * content not yet older than stale_after, a PID that exists without an identity to tell reuse, a holder
 * /proc cannot show, another PID namespace or host. Recovery is never blocked by missing
 * evidence; the caller takes responsibility for the holder really being gone.
 *
 * The same guarded path as fl_snapshot_reclaim(): the file must still be the one @self saw
 * (same inode, content and mtime), and its kernel lock must be free: a held kernel lock is a
 * live libfl holder, and is always refused (%FL_ERROR_NOT_STALE). A stale file is reclaimed
 * as by fl_snapshot_reclaim().
 *
 * Returns: %TRUE if the file was removed
 *
 * Since: 0.1
 */
gboolean
fl_snapshot_reclaim_unproven (FlSnapshot    *self,
                              GCancellable  *cancellable,
                              GError       **error)
{
  g_return_val_if_fail (FL_IS_SNAPSHOT (self), FALSE);
  g_return_val_if_fail (cancellable == NULL || G_IS_CANCELLABLE (cancellable), FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

  return reclaim (self, NULL, TRUE, cancellable, error);
}

/**
 * fl_snapshot_same_file:
 * @self: a snapshot
 * @other: another snapshot
 *
 * Whether two snapshots saw the very same file: the same inode with the same modification
 * time, kind and content, at the same path (for an etcd lock, the same lease and fencing
 * token). A reclaim makes the same comparison before it removes anything.
 *
 * Returns: %TRUE if @self and @other saw the same file
 *
 * Since: 0.1
 */
gboolean
fl_snapshot_same_file (FlSnapshot *self,
                       FlSnapshot *other)
{
  g_return_val_if_fail (FL_IS_SNAPSHOT (self), FALSE);
  g_return_val_if_fail (FL_IS_SNAPSHOT (other), FALSE);

  /* An etcd key is the same acquisition only with the same lease and token. */
  return self->dev == other->dev && self->ino == other->ino &&
         self->lease == other->lease && self->token == other->token &&
         self->mtime_ns == other->mtime_ns && self->kind == other->kind &&
         self->content_len == other->content_len &&
         memcmp (self->content_raw, other->content_raw, self->content_len) == 0 &&
         g_strcmp0 (self->path, other->path) == 0;
}
