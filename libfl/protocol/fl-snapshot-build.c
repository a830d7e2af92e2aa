/* fl-snapshot-build.c: making a snapshot: of a judged lock, temp or graveyard file, of another
 * program's lock file, or of an etcd lock as fl-etcd-inspect.c read it
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <string.h>

#include <glib/gi18n-lib.h>

#include "fl-error-private.h"
#include "fl-error.h"
#include "protocol/fl-judge-private.h"
#include "protocol/fl-file-backend-private.h"
#include "protocol/fl-lock-backend-private.h"
#include "fl-lock.h"
#include "protocol/fl-other-locks-private.h"
#include "protocol/fl-snapshot-private.h"

/* Lock files may hold anything; properties must be valid UTF-8 for every consumer. */
static char *
escape_content (const char *bytes,
                gsize       len)
{
  GString *out = g_string_sized_new (len);

  for (gsize i = 0; i < len; i++)
    {
      guchar c = (guchar) bytes[i];

      if (c == '\\')
        g_string_append (out, "\\\\");
      else if (c >= 0x20 && c < 0x7f)
        g_string_append_c (out, (char) c);
      else
        g_string_append_printf (out, "\\x%02x", c);
    }
  return g_string_free (out, FALSE);
}

static FlSnapshot *
snapshot_from_state (FlEvidence *state,
                     const char  *directory,
                     gint64       now_us)
{
  FlSnapshot *self = g_object_new (FL_TYPE_SNAPSHOT, NULL);
  gsize lock_len = state->name_info.lock_name_len;
  g_autofree char *target_name = NULL;

  self->path = g_strdup (state->path);
  self->name = g_strdup (state->name);
  self->directory = g_strdup (directory);
  if (lock_len >= 5 && lock_len <= strlen (state->name))
    target_name = g_strndup (state->name, lock_len - 5);
  else
    target_name = g_strdup (state->name);
  self->target = g_build_filename (directory, target_name, NULL);
  self->kind = state->kind;
  self->pid = state->pid;
  self->process_name = g_strdup (state->process.name);
  self->process_cmdline = g_strdup (state->process.cmdline);
  self->process_uid = state->process.uid;
  self->process_start_time = state->process.start_real_us;
  self->holder_exited = state->holder_exited;
  self->holder_stopped = state->process.stopped && state->kind == FL_ENTRY_LOCK;
  self->keeper_pid = state->keeper_pid;
  self->keeper_name = g_strdup (state->keeper_name);
  self->file_uid = state->info.uid;
  self->liveness = state->liveness;
  self->kernel_lock = state->kernel_lock;
  self->stale = state->stale;
  if (state->kind == FL_ENTRY_FOREIGN || state->kernel_lock == FL_KERNEL_LOCK_HELD)
    self->reclaimable = FL_RECLAIMABLE_NONE;
  else
    self->reclaimable = state->stale ? FL_RECLAIMABLE_STALE : FL_RECLAIMABLE_UNPROVEN;
  self->reason = g_strdup (state->reason);
  /* Byte for byte, NULs included: a reclaim compares all of it. */
  self->content_raw = g_malloc (state->content_len + 1);
  memcpy (self->content_raw, state->content, state->content_len);
  self->content_raw[state->content_len] = '\0';
  self->content = escape_content (state->content, state->content_len);
  self->content_len = state->content_len;
  self->mtime = state->mtime_us;
  self->captured_at = now_us;
  self->stale_at = state->stale ? 0 : state->stale_at_us;
  self->dev = state->info.id.dev;
  self->ino = state->info.id.ino;
  self->mtime_ns = state->info.mtime_ns;
  self->mode = state->info.mode;

  return self;
}

FlSnapshot *
_fl_snapshot_new_unseen (const char *path,
                         gint64      now_us)
{
  FlSnapshot *self = g_object_new (FL_TYPE_SNAPSHOT, NULL);
  const char *name = _fl_path_last_component (path);
  FlNameInfo info;

  self->path = g_strdup (path);
  self->name = g_strdup (name);
  self->directory = g_path_get_dirname (path);
  self->kind = FL_ENTRY_LOCK;
  if (_fl_classify_name (name, strlen (name), &info))
    self->kind = info.kind;
  if (self->kind == FL_ENTRY_LOCK && g_str_has_suffix (path, ".lock"))
    self->target = g_strndup (path, strlen (path) - strlen (".lock"));
  else
    self->target = g_strdup (path);
  self->process_uid = -1;
  self->file_uid = -1;
  self->liveness = FL_LIVENESS_UNKNOWN;
  self->kernel_lock = FL_KERNEL_LOCK_UNKNOWN;
  self->reclaimable = FL_RECLAIMABLE_NONE;
  self->reason = g_strdup (_("created and removed before it could be read: its holder is not "
                             "known"));
  self->content = g_strdup ("");
  self->content_raw = g_strdup ("");
  self->mtime = now_us;
  self->captured_at = now_us;
  self->format = FL_LOCK_FORMAT_LIBFL;
  return self;
}

/* Never reclaimable: libfl explains another program's lock, and that program decides. */
static FlSnapshot *
snapshot_from_other (FlEvidence *state,
                     FlOtherLock *other,
                     const char  *directory,
                     gint64       now_us)
{
  FlSnapshot *self;

  state->kind = FL_ENTRY_OTHER_PROGRAM;
  state->pid = other->pid;
  state->liveness = other->liveness;
  state->kernel_lock = other->kernel_lock;
  state->stale = FALSE;
  state->name_info.lock_name_len = 0;
  g_free (state->reason);
  state->reason = g_steal_pointer (&other->reason);
  memcpy (state->content, other->content, MIN (other->content_len, FL_CONTENT_MAX));
  state->content_len = MIN (other->content_len, FL_CONTENT_MAX);

  self = snapshot_from_state (state, directory, now_us);
  /* The whole head or link target, which a LibreOffice line needs. */
  g_free (self->content_raw);
  g_free (self->content);
  self->content_raw = g_memdup2 (other->content, other->content_len + 1);
  self->content_len = other->content_len;
  self->content = escape_content (self->content_raw, self->content_len);
  self->reclaimable = FL_RECLAIMABLE_NONE;
  self->stale_at = 0;
  self->format = other->format;
  g_free (self->target);
  self->target = g_steal_pointer (&other->target);
  self->other_state = other->state;
  self->host = g_steal_pointer (&other->host);
  self->owner_user = g_steal_pointer (&other->user);
  self->owner_name = g_steal_pointer (&other->full_name);
  self->owner_since = other->since_us;
  return self;
}

FlSnapshot *
_fl_snapshot_new_full (FlDir               *dir,
                       const char          *directory,
                       const char          *name,
                       const FlLockOptions *options,
                       gint64               now_us,
                       gboolean             details,
                       GError             **error)
{
  g_auto(FlEvidence) state = { .fd = -1 };

  g_auto(FlOtherLock) other = { 0 };

  if (!_fl_evidence_open (&state, dir, directory, name, error))
    return NULL;

  switch (_fl_other_lock_examine (&other, &state, dir, directory, now_us))
    {
    case FL_OTHER_KNOWN:
      return snapshot_from_other (&state, &other, directory, now_us);
    case FL_OTHER_NOT_A_LOCK:
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_NOT_FOUND,
                   _("“%s” is named like another program's lock file, but its type or content "
                     "is no format libfl knows: it is not listed, and libfl leaves it alone"),
                   state.path);
      return NULL;
    case FL_OTHER_OURS:
    default:
      break;
    }

  _fl_evidence_judge (&state, FL_PROBE_SHARED, options, now_us, details);

  return snapshot_from_state (&state, directory, now_us);
}

FlSnapshot *
_fl_snapshot_new_at (FlDir               *dir,
                     const char          *directory,
                     const char          *name,
                     const FlLockOptions *options,
                     gint64               now_us,
                     GError             **error)
{
  return _fl_snapshot_new_full (dir, directory, name, options, now_us, FALSE, error);
}

FlSnapshot *
_fl_snapshot_new_etcd (const FlSnapshotEtcd *e)
{
  FlSnapshot *self = g_object_new (FL_TYPE_SNAPSHOT, NULL);

  self->path = g_strdup (e->path);
  self->name = g_strdup (e->name);
  self->target = g_strdup (e->target);
  self->kind = FL_ENTRY_LOCK;
  self->pid = e->pid;
  self->process_name = g_strdup (e->process_name);
  self->host = g_strdup (e->host);
  /* etcd is the judge (docs/etcd.md): a key exists only while its lease lives; libfl never
   * calls it stale by itself, so ending it is always the operator's forced reclaim. */
  self->liveness = e->lease_ttl == 0 ? FL_LIVENESS_UNKNOWN : FL_LIVENESS_ALIVE;
  self->kernel_lock = FL_KERNEL_LOCK_UNKNOWN;
  self->stale = FALSE;
  self->reclaimable = FL_RECLAIMABLE_UNPROVEN;
  self->reason = g_strdup (e->reason);
  self->content_raw = g_malloc (e->metadata_len + 1);
  if (e->metadata_len > 0)
    memcpy (self->content_raw, e->metadata, e->metadata_len);
  self->content_raw[e->metadata_len] = '\0';
  self->content_len = e->metadata_len;
  self->content = escape_content (self->content_raw, self->content_len);
  self->mtime = e->since_us > 0 ? e->since_us : e->captured_at;
  self->captured_at = e->captured_at;
  self->lease = e->lease;
  self->lease_ttl = e->lease_ttl;
  self->token = e->token;
  self->revision = e->revision;
  self->waiting = e->waiting;
  self->traits = FL_SNAPSHOT_KEYED_BY_TARGET | FL_SNAPSHOT_JUDGED_BY_BACKEND
                 | FL_SNAPSHOT_WAITERS_INSIDE;
  /* etcd's lease IDs are positive; a key without one (put by another program under the
   * prefix) is judged by its evidence, as before. */
  if (e->lease > 0)
    self->traits |= FL_SNAPSHOT_LEASED;
  if (e->holder_here)
    self->traits |= FL_SNAPSHOT_HOLDER_HERE;
  self->holder_exited = e->holder_exited;
  if (!e->waiting)
    self->waiters = g_ptr_array_new_with_free_func (g_object_unref);
  return self;
}

void
_fl_snapshot_add_waiter (FlSnapshot *self,
                         FlSnapshot *waiter)
{
  g_return_if_fail (self->waiters != NULL);
  g_ptr_array_add (self->waiters, waiter);
}

/**
 * fl_snapshot_new:
 * @path: a lock, temp or graveyard file (any other name is judged as a lock file)
 * @options: (nullable): options (stale_after matters)
 * @error: return location for a #GError
 *
 * Looks at @path once, without following a symlink, opening a FIFO or blocking, and judges
 * it as an acquirer would. The holder's command line is included when it can be read.
 *
 * Returns: (transfer full): the snapshot, or %NULL with @error set (%G_IO_ERROR_NOT_FOUND if
 *   there is no such file)
 *
 * Since: 0.1
 */
FlSnapshot *
fl_snapshot_new (const char          *path,
                 const FlLockOptions *options,
                 GError             **error)
{
  g_autofree char *directory = NULL;
  g_autofree char *name = NULL;
  FlSnapshot *ret;
  FlDir *dir;
  int saved_errno;

  g_return_val_if_fail (path != NULL, NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  if (path[0] == '\0' || G_IS_DIR_SEPARATOR (path[strlen (path) - 1]))
    {
      g_set_error (error, FL_ERROR, FL_ERROR_INVALID_TARGET,
                   _("“%s” does not name a file: give the path of a lock file"), path);
      return NULL;
    }

  directory = g_path_get_dirname (path);
  name = g_path_get_basename (path);

  saved_errno = _fl_platform_dir_open (directory, FALSE, &dir);
  if (saved_errno != 0)
    {
      g_set_error (error, FL_ERROR,
                   _fl_error_code_from_directory_errno (saved_errno),
                   _("Cannot look at “%s”: its directory “%s” cannot be opened: %s"),
                   path, directory, g_strerror (saved_errno));
      return NULL;
    }

  ret = _fl_snapshot_new_full (dir, directory, name, options, g_get_real_time (), TRUE, error);
  _fl_platform_dir_close (dir);

  return ret;
}

/**
 * fl_snapshot_new_for_target:
 * @target: the locked file; its lock `@target.lock` is looked at. Or an etcd lock,
 *   `etcd://HOST:PORT[,HOST:PORT...]/PREFIX/NAME`, as fl_lock_acquire() takes it
 * @options: (nullable): options
 * @error: return location for a #GError
 *
 * For an etcd lock the snapshot is one read of etcd (docs/etcd.md, "Inspection"): its holder
 * (the oldest key queued for NAME, with the host, PID and process of its metadata key, its
 * lease and the lease's TTL left) and, in fl_snapshot_get_waiters(), the keys queued behind
 * it in order. etcd judges liveness: the holder is %FL_ENTRY_STATE_HELD while its lease lives,
 * and never stale (see fl_snapshot_reclaim_unproven()).
 *
 * Returns: (transfer full): the snapshot of @target's lock, or %NULL with @error set
 *   (%G_IO_ERROR_NOT_FOUND when it is not locked)
 *
 * Since: 0.1
 */
FlSnapshot *
fl_snapshot_new_for_target (const char          *target,
                            const FlLockOptions *options,
                            GError             **error)
{
  g_return_val_if_fail (target != NULL, NULL);

  return _fl_lock_backend_for (target)->snapshot_new (target, options, error);
}

/* The file backend's: the snapshot of `@target.lock`. */
FlSnapshot *
_fl_file_snapshot_new (const char          *target,
                       const FlLockOptions *options,
                       GError             **error)
{
  g_autofree char *path = fl_lock_path_for (target);

  if (path == NULL)
    {
      g_set_error (error, FL_ERROR, FL_ERROR_INVALID_TARGET,
                   _("“%s” cannot name a lock target: give the path of a file"), target);
      return NULL;
    }

  return fl_snapshot_new (path, options, error);
}
