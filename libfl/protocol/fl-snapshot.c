/* fl-snapshot.c: an immutable picture of one file, and the guarded reclaim from it
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <errno.h>
#include <string.h>

#include <glib/gi18n-lib.h>

#include "fl-error-private.h"
#include "fl-enum-types.h"
#include "fl-error.h"
#include "fl-format.h"
#include "fl-judge-private.h"
#include "fl-lock-backend-private.h"
#include "fl-lock-private.h"
#include "fl-names-private.h"
#include "fl-other-locks-private.h"
#include "fl-snapshot-private.h"
#include "fl-takeover-private.h"

/**
 * FlSnapshot:
 *
 * An immutable picture of one lock, temp or graveyard file (or of an etcd lock), taken at one
 * instant: its holder or creator, whether that process is alive, whether a process holds the
 * file's kernel lock, and the verdict with its reason (docs/protocol.md, section 2). Made by
 * fl_snapshot_new(), fl_snapshot_new_for_target(), fl_scan_directory() and the entries of
 * #FlDirectoryModel; fl_snapshot_reclaim() removes the file only if it is still the very one
 * the snapshot saw. Every property is read-only and never changes.
 */
struct _FlSnapshot
{
  GObject       parent_instance;

  char         *path;
  char         *name;
  char         *directory;
  char         *target;
  FlEntryKind   kind;
  int           pid;
  char         *process_name;
  char         *process_cmdline;
  gint64        process_uid;
  gint64        process_start_time;
  gint64        file_uid;
  FlLiveness    liveness;
  FlKernelLock  kernel_lock;
  gboolean      stale;
  FlReclaimable reclaimable;
  char         *reason;
  char         *content;      /* printable: other bytes as \xNN */
  char         *content_raw;  /* byte for byte, for the reclaim's comparison */
  gsize         content_len;
  gint64        mtime;
  gint64        captured_at;
  gint64        stale_at;     /* when the age rule makes it stale; 0 if no age rule applies */

  /* What a reclaim compares: the very file the snapshot saw. */
  guint64       dev;
  guint64       ino;
  gint64        mtime_ns;
  guint         mode;

  /* An etcd lock (docs/etcd.md, "Inspection"); 0, -1 or NULL for a file. */
  char         *host;
  gint64        lease;
  gint64        lease_ttl;    /* seconds left, 0 expired, -1 not known */
  guint64       token;        /* the key's create_revision */
  gint64        revision;     /* etcd's revision when it was read */
  gboolean      waiting;
  GPtrArray    *waiters;      /* of FlSnapshot, oldest first; NULL for a file */

  /* Another program's lock file (docs/other-lock-files.md); its host is in host. */
  FlLockFormat  format;
  FlEntryState  other_state;
  char         *owner_user;
  char         *owner_name;
  gint64        owner_since;
};

G_DEFINE_FINAL_TYPE (FlSnapshot, fl_snapshot, G_TYPE_OBJECT)

enum {
  PROP_0,
  PROP_PATH,
  PROP_NAME,
  PROP_TARGET,
  PROP_KIND,
  PROP_PID,
  PROP_PROCESS_NAME,
  PROP_PROCESS_CMDLINE,
  PROP_PROCESS_UID,
  PROP_PROCESS_START_TIME,
  PROP_FILE_UID,
  PROP_LIVENESS,
  PROP_KERNEL_LOCK,
  PROP_STALE,
  PROP_REASON,
  PROP_CONTENT,
  PROP_MTIME,
  PROP_CAPTURED_AT,
  PROP_AGE,
  PROP_RECLAIMABLE,
  PROP_STATE,
  PROP_HOST,
  PROP_LEASE_ID,
  PROP_LEASE_TTL,
  PROP_FENCING_TOKEN,
  PROP_REVISION,
  PROP_WAITING,
  PROP_WAITERS,
  PROP_LOCK_FORMAT,
  PROP_OWNER_USER,
  PROP_OWNER_NAME,
  PROP_OWNER_SINCE,
  N_PROPS
};

static GParamSpec *properties[N_PROPS];

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
snapshot_from_state (FlLockState *state,
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

/* Never reclaimable: libfl explains another program's lock, and that program decides. */
static FlSnapshot *
snapshot_from_other (FlLockState *state,
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
  g_auto(FlLockState) state = { .fd = -1 };

  g_auto(FlOtherLock) other = { 0 };

  if (!_fl_lock_state_open (&state, dir, directory, name, error))
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

  _fl_lock_state_judge (&state, FL_PROBE_SHARED, options, now_us, details);

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
  if (!e->waiting)
    self->waiters = g_ptr_array_new_with_free_func (g_object_unref);
  return self;
}

gboolean
_fl_snapshot_is_etcd (FlSnapshot *self)
{
  return self->revision > 0;
}

const char *
_fl_snapshot_get_key (FlSnapshot *self)
{
  return _fl_snapshot_is_etcd (self) ? self->target : self->path;
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
 */
FlSnapshot *
fl_snapshot_new_for_target (const char          *target,
                            const FlLockOptions *options,
                            GError             **error)
{
  g_autofree char *path = NULL;
  const FlLockBackend *backend;

  g_return_val_if_fail (target != NULL, NULL);

  backend = _fl_lock_backend_for (target);
  if (backend->snapshot_new != NULL)
    return backend->snapshot_new (target, options, error);

  path = fl_lock_path_for (target);
  if (path == NULL)
    {
      g_set_error (error, FL_ERROR, FL_ERROR_INVALID_TARGET,
                   _("“%s” cannot name a lock target: give the path of a file"), target);
      return NULL;
    }

  return fl_snapshot_new (path, options, error);
}

static gboolean
still_the_same (FlSnapshot  *self,
                FlLockState *now)
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
      g_auto(FlLockState) now = { .fd = FL_HANDLE_NONE };
      gboolean no_exclusive;
      int saved_errno;

      if (g_cancellable_set_error_if_cancelled (cancellable, error))
        return FALSE;

      if (!_fl_lock_state_open (&now, dir, self->directory, self->name, &local_error))
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

      _fl_lock_state_judge (&now, FL_PROBE_EXCLUSIVE, options, g_get_real_time (), FALSE);
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
              _fl_lock_state_clear (&now);
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
      if (!_fl_lock_state_still_at (&now, dir, self->name))
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

/* What fl_snapshot_reclaim() and fl_snapshot_reclaim_unproven() share: refuse a foreign
 * entry, open the directory, run the guarded steps. */
static gboolean
reclaim (FlSnapshot          *self,
         const FlLockOptions *options,
         gboolean             unproven,
         GCancellable        *cancellable,
         GError             **error)
{
  gboolean ret;
  FlDir *dir;

  /* An etcd lock: its backend revokes the very lease the snapshot saw. */
  if (self->lease != 0)
    return _fl_lock_backend_for (self->target)->reclaim (self, unproven, error);

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
 * %FL_RECLAIMABLE_UNPROVEN): content that names no single process (empty, `0`, a negative
 * number, more than 64 bytes), a PID that exists without an identity to tell reuse, a holder
 * /proc cannot show, another PID namespace or host. Recovery is never blocked by missing
 * evidence; the caller takes responsibility for the holder really being gone.
 *
 * The same guarded path as fl_snapshot_reclaim(): the file must still be the one @self saw
 * (same inode, content and mtime), and its kernel lock must be free: a held kernel lock is a
 * live libfl holder, and is always refused (%FL_ERROR_NOT_STALE). A stale file is reclaimed
 * as by fl_snapshot_reclaim().
 *
 * Returns: %TRUE if the file was removed
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

/**
 * fl_snapshot_dup_content_bytes:
 * @self: a snapshot
 *
 * The file's content byte for byte, as read: at most 64 bytes (a longer file is not a lock
 * anyone wrote); for another program's lock file at most 512 bytes, or a link's target. fl_snapshot_get_content() is the same, printable, with other bytes as `\xNN`.
 *
 * Returns: (transfer full): the bytes
 */
GBytes *
fl_snapshot_dup_content_bytes (FlSnapshot *self)
{
  g_return_val_if_fail (FL_IS_SNAPSHOT (self), NULL);
  return g_bytes_new (self->content_raw, self->content_len);
}

/**
 * fl_snapshot_get_age_at:
 * @self: a snapshot
 * @now_us: a real time in microseconds, as g_get_real_time() gives it
 *
 * The file's age at @now_us, from its modification time (an etcd waiter's: since it queued).
 * A view that shows many snapshots passes one "now" to all of them.
 *
 * Returns: the age in microseconds; 0 if the modification time is later than @now_us (a
 *   clock step)
 */
gint64
fl_snapshot_get_age_at (FlSnapshot *self,
                        gint64      now_us)
{
  g_return_val_if_fail (FL_IS_SNAPSHOT (self), 0);
  return MAX (now_us - self->mtime, 0);
}

/**
 * fl_snapshot_get_age:
 * @self: a snapshot
 *
 * The file's age when the snapshot was taken: fl_snapshot_get_age_at() at
 * fl_snapshot_get_captured_at().
 *
 * Returns: the age in microseconds, 0 or more
 */
gint64
fl_snapshot_get_age (FlSnapshot *self)
{
  g_return_val_if_fail (FL_IS_SNAPSHOT (self), 0);
  return fl_snapshot_get_age_at (self, self->captured_at);
}

guint
_fl_snapshot_get_mode (FlSnapshot *self)
{
  return self->mode;
}

gint64
_fl_snapshot_get_stale_at (FlSnapshot *self)
{
  return self->stale_at;
}

/* The plain getters, generated below. */
/**
 * fl_snapshot_get_path:
 * @self: a snapshot
 *
 * The file's path, as given or found by a scan; for an etcd lock its `etcd://` target.
 *
 * Returns: (type filename): the path
 */
/**
 * fl_snapshot_get_name:
 * @self: a snapshot
 *
 * The file's name, the last component of its path.
 *
 * Returns: (type filename): the name
 */
/**
 * fl_snapshot_get_target:
 * @self: a snapshot
 *
 * The file the lock protects: `T` for `T.lock` and for its temp and graveyard files.
 *
 * Returns: (type filename): the target
 */
/**
 * fl_snapshot_get_kind:
 * @self: a snapshot
 *
 * What the file is, from its name and type.
 *
 * Returns: the kind: lock, temp, graveyard or foreign
 */
/**
 * fl_snapshot_get_pid:
 * @self: a snapshot
 *
 * The PID the file names: a lock's holder, or the creator named in a temp or graveyard
 * file's name.
 *
 * Returns: the PID, or 0 if the file names none (empty, or content that is not a PID)
 */
/**
 * fl_snapshot_get_process_name:
 * @self: a snapshot
 *
 * The name of the process with that PID (its `comm`), if it was running and could be read.
 *
 * Returns: (nullable): the process name, or %NULL
 */
/**
 * fl_snapshot_get_process_cmdline:
 * @self: a snapshot
 *
 * The command line of the process with that PID, its arguments separated by spaces, if it
 * could be read.
 *
 * Returns: (nullable): the command line, or %NULL
 */
/**
 * fl_snapshot_get_process_uid:
 * @self: a snapshot
 *
 * The user the process with that PID runs as.
 *
 * Returns: the user ID, or -1 if not known
 */
/**
 * fl_snapshot_get_process_start_time:
 * @self: a snapshot
 *
 * When the process with that PID started: how a reused PID is told from the holder (a
 * process that started after the file was written is not its writer).
 *
 * Returns: the start time in microseconds since the epoch, or 0 if not known
 */
/**
 * fl_snapshot_get_file_uid:
 * @self: a snapshot
 *
 * The owner of the file; in a sticky directory only its owner (or root) may remove it.
 *
 * Returns: the user ID, or -1 if not known (an etcd lock)
 */
/**
 * fl_snapshot_get_liveness:
 * @self: a snapshot
 *
 * Whether the process the file names runs, as judged when the snapshot was taken.
 *
 * Returns: the liveness
 */
/**
 * fl_snapshot_get_kernel_lock:
 * @self: a snapshot
 *
 * Whether a process held the file's kernel lock when the snapshot was taken (a live libfl
 * holder always does).
 *
 * Returns: the probe's result
 */
/**
 * fl_snapshot_get_stale:
 * @self: a snapshot
 *
 * Whether the verdict is stale: no live process holds the lock, so a takeover or
 * fl_snapshot_reclaim() may remove it.
 *
 * Returns: %TRUE if the file is stale
 */
/**
 * fl_snapshot_get_reason:
 * @self: a snapshot
 *
 * Why the verdict is what it is: the evidence in one sentence, for logs and details views, such
 * as "the holder PID 4242 is gone (no such process)". Like libfl's error messages it is in the
 * user's language (the gettext domain 'libfl'): for people to read, not for programs to
 * compare; fl_snapshot_get_state() and fl_snapshot_get_liveness() are the verdict.
 *
 * Returns: the reason
 */
/**
 * fl_snapshot_get_content:
 * @self: a snapshot
 *
 * The file's content, printable: bytes that are not printable ASCII appear as `\xNN`.
 * fl_snapshot_dup_content_bytes() has them as they are.
 *
 * Returns: the content, at most 64 bytes of the file
 */
/**
 * fl_snapshot_get_mtime:
 * @self: a snapshot
 *
 * The file's modification time (an etcd waiter's: when it queued); the age is counted from
 * it.
 *
 * Returns: the time in microseconds since the epoch
 */
/**
 * fl_snapshot_get_captured_at:
 * @self: a snapshot
 *
 * When the snapshot was taken.
 *
 * Returns: the real time in microseconds since the epoch
 */
#define GETTER(type, field, fname) \
  type fl_snapshot_get_##fname (FlSnapshot *self) \
  { \
    g_return_val_if_fail (FL_IS_SNAPSHOT (self), (type) 0); \
    return self->field; \
  }

GETTER (const char *, path, path)
GETTER (const char *, name, name)
GETTER (const char *, target, target)
GETTER (FlEntryKind, kind, kind)
GETTER (int, pid, pid)
GETTER (const char *, process_name, process_name)
GETTER (const char *, process_cmdline, process_cmdline)
GETTER (gint64, process_uid, process_uid)
GETTER (gint64, process_start_time, process_start_time)
GETTER (gint64, file_uid, file_uid)
GETTER (FlLiveness, liveness, liveness)
GETTER (FlKernelLock, kernel_lock, kernel_lock)
GETTER (gboolean, stale, stale)
GETTER (const char *, reason, reason)
GETTER (const char *, content, content)
GETTER (gint64, mtime, mtime)
GETTER (gint64, captured_at, captured_at)

/**
 * fl_snapshot_get_lock_format:
 * @self: a snapshot
 *
 * Which program's lock file the snapshot saw.
 *
 * Returns: whose lock file it is: %FL_LOCK_FORMAT_LIBFL for libfl's own (and etcd's), another
 *   program's for an entry of kind %FL_ENTRY_OTHER_PROGRAM (docs/other-lock-files.md)
 */
GETTER (FlLockFormat, format, lock_format)

/**
 * fl_snapshot_get_owner_user:
 * @self: a snapshot
 *
 * The user another program's lock file names as its owner.
 *
 * Returns: (nullable): the login name another program's lock file records (LibreOffice,
 *   Emacs); %NULL when it records none. Its host is fl_snapshot_get_host(), its PID
 *   fl_snapshot_get_pid()
 */
GETTER (const char *, owner_user, owner_user)

/**
 * fl_snapshot_get_owner_name:
 * @self: a snapshot
 *
 * The full name another program's lock file gives its owner.
 *
 * Returns: (nullable): the person's full name a LibreOffice lock file records; %NULL otherwise
 */
GETTER (const char *, owner_name, owner_name)

/**
 * fl_snapshot_get_owner_since:
 * @self: a snapshot
 *
 * When another program's lock file says it was taken.
 *
 * Returns: since when another program's lock file says it has been held, in microseconds since
 *   the epoch (LibreOffice records it, to the minute, in local time); 0 when not recorded
 */
GETTER (gint64, owner_since, owner_since)

/**
 * fl_snapshot_get_host:
 * @self: a snapshot
 *
 * The host an etcd lock's holder (or waiter) runs on, as it wrote in its metadata key.
 *
 * Returns: (nullable): the host an etcd lock's holder (or waiter) runs on, from its metadata
 *   key, or the host another program's lock file records (Firefox records an IP address);
 *   %NULL for libfl's own file, or when the metadata key is missing or unreadable
 */
GETTER (const char *, host, host)

/**
 * fl_snapshot_get_lease_id:
 * @self: a snapshot
 *
 * The etcd lease behind an etcd lock's key.
 *
 * Returns: the etcd lease of the key the snapshot saw (never reused by etcd: what
 *   fl_snapshot_reclaim_unproven() revokes); 0 for a file
 */
GETTER (gint64, lease, lease_id)

/**
 * fl_snapshot_get_lease_ttl:
 * @self: a snapshot
 *
 * How long an etcd holder's lease had left when the snapshot was read.
 *
 * Returns: the seconds left on an etcd holder's lease, as etcd said when the snapshot was
 *   taken; 0 when it had just expired; -1 for a file, and for a waiter (not asked)
 */
GETTER (gint64, lease_ttl, lease_ttl)

/**
 * fl_snapshot_get_fencing_token:
 * @self: a snapshot
 *
 * The fencing token of the acquisition the snapshot saw (docs/etcd.md).
 *
 * Returns: an etcd key's create_revision: the token fl_lock_get_fencing_token() gives its
 *   holder; 0 for a file (no token, docs/etcd.md "Fencing")
 */
GETTER (guint64, token, fencing_token)

/**
 * fl_snapshot_get_revision:
 * @self: a snapshot
 *
 * Which state of etcd the snapshot saw.
 *
 * Returns: etcd's revision when the snapshot was read; 0 for a file
 */
GETTER (gint64, revision, revision)

/**
 * fl_snapshot_get_waiting:
 * @self: a snapshot
 *
 * Whether the snapshot is of a waiter rather than of the holder.
 *
 * Returns: %TRUE for a waiter of an etcd lock (an element of fl_snapshot_get_waiters()):
 *   queued, not holding; %FALSE for a holder and for a file
 */
GETTER (gboolean, waiting, waiting)

/**
 * fl_snapshot_get_waiters:
 * @self: a snapshot
 *
 * The keys queued behind an etcd lock's holder, each a snapshot of its own (host, PID,
 * lease, token; fl_snapshot_get_waiting() %TRUE), in the order etcd will grant them (by
 * create_revision).
 *
 * Returns: (transfer none) (nullable) (element-type FlSnapshot): the waiters, empty when
 *   nobody waits; %NULL for a file and for a waiter
 */
GETTER (GPtrArray *, waiters, waiters)

/**
 * fl_snapshot_get_reclaimable:
 * @self: a snapshot
 *
 * What an operator may do with the file: reclaim it as stale, reclaim it forced, or
 * nothing.
 *
 * Returns: whether fl_snapshot_reclaim() (%FL_RECLAIMABLE_STALE), only
 *   fl_snapshot_reclaim_unproven() (%FL_RECLAIMABLE_UNPROVEN), or nothing
 *   (%FL_RECLAIMABLE_NONE) would remove the file, as judged when the snapshot was taken
 */
GETTER (FlReclaimable, reclaimable, reclaimable)

#undef GETTER

/**
 * fl_snapshot_get_state:
 * @self: a snapshot
 *
 * The one verdict for the entry, as every view shows it (see #FlEntryState). A kernel lock that
 * is held makes a lock held even when its PID cannot be seen from here: the kernel lock is
 * exact. Missing evidence gives %FL_ENTRY_STATE_UNKNOWN, never stale.
 *
 * Returns: the state, as judged when the snapshot was taken
 */
FlEntryState
fl_snapshot_get_state (FlSnapshot *self)
{
  gboolean is_lock;

  g_return_val_if_fail (FL_IS_SNAPSHOT (self), FL_ENTRY_STATE_UNKNOWN);

  if (self->kind == FL_ENTRY_FOREIGN)
    return FL_ENTRY_STATE_FOREIGN;
  if (self->kind == FL_ENTRY_OTHER_PROGRAM)
    return self->other_state;
  is_lock = self->kind == FL_ENTRY_LOCK;
  if (self->stale)
    return is_lock ? FL_ENTRY_STATE_STALE : FL_ENTRY_STATE_ORPHAN;
  /* An etcd waiter is a live participant that does not hold the lock. */
  if (self->waiting && self->liveness == FL_LIVENESS_ALIVE)
    return FL_ENTRY_STATE_ACTIVE;
  if (self->liveness == FL_LIVENESS_ALIVE || self->kernel_lock == FL_KERNEL_LOCK_HELD)
    return is_lock ? FL_ENTRY_STATE_HELD : FL_ENTRY_STATE_ACTIVE;
  return FL_ENTRY_STATE_UNKNOWN;
}

/**
 * fl_snapshot_dup_state_summary:
 * @self: a snapshot
 *
 * The state with its short reason, translated, as the inspector's State column and flctl's
 * text output show it: "Stale: holder exited", "Unknown: no PID yet". Each reason is true of
 * the snapshot's evidence: "no PID yet" only for an empty file, "PID reused" only when a
 * process with that PID runs and started after the file was written.
 *
 * Returns: (transfer full): the text; free it with g_free()
 */
char *
fl_snapshot_dup_state_summary (FlSnapshot *self)
{
  FlLiveness liveness;
  const char *content;
  gboolean other;

  g_return_val_if_fail (FL_IS_SNAPSHOT (self), NULL);

  liveness = fl_snapshot_get_liveness (self);
  content = fl_snapshot_get_content (self);

  if (self->lease != 0)
    {
      if (fl_snapshot_get_state (self) == FL_ENTRY_STATE_UNKNOWN)
        return g_strdup (_("Unknown: lease expired"));
      return g_strdup (self->waiting ? _("Waiting") : _("Held"));
    }

  /* Another program's lock file has reasons of its own: its format's evidence (docs/
   * other-lock-files.md); its states are only held, stale, free and unknown. */
  other = self->kind == FL_ENTRY_OTHER_PROGRAM;

  switch (fl_snapshot_get_state (self))
    {
    case FL_ENTRY_STATE_HELD:
      return g_strdup (_("Held"));
    case FL_ENTRY_STATE_ACTIVE:
      return g_strdup (_("Being written"));
    case FL_ENTRY_STATE_FOREIGN:
      return g_strdup (_("Foreign: not a file"));
    case FL_ENTRY_STATE_ORPHAN:
      return g_strdup (liveness == FL_LIVENESS_REUSED ? _("Orphan: PID reused")
                                                      : _("Orphan: creator exited"));
    case FL_ENTRY_STATE_STALE:
      if (other)
        return g_strdup (_("Stale: owner exited"));
      if (liveness == FL_LIVENESS_DEAD)
        return g_strdup (_("Stale: holder exited"));
      if (liveness == FL_LIVENESS_REUSED)
        return g_strdup (_("Stale: PID reused"));
      if (liveness == FL_LIVENESS_ALIVE)
        return g_strdup (_("Stale: kernel lock dropped"));
      return g_strdup (_("Stale: not a PID"));
    case FL_ENTRY_STATE_FREE:
      if (other)
        return g_strdup (_("Free: nobody holds it"));
      G_GNUC_FALLTHROUGH;
    case FL_ENTRY_STATE_UNKNOWN:
    default:
      if (fl_snapshot_get_pid (self) > 0)
        return g_strdup (liveness == FL_LIVENESS_REUSED ? _("Unknown: PID now another process")
                                                        : _("Unknown: PID not visible here"));
      if (other && fl_snapshot_get_lock_format (self) == FL_LOCK_FORMAT_GIT)
        return g_strdup (_("Unknown: no owner recorded"));
      if (other)
        return g_strdup (_("Unknown: no PID recorded"));
      if (content == NULL || content[0] == '\0')
        return g_strdup (_("Unknown: no PID yet"));
      return g_strdup (_("Unknown: not a PID"));
    }
}

/**
 * fl_entry_kind_for_name:
 * @name: a file name (the last component of a path; a path is reduced to it)
 * @kind: (out) (optional): what libfl would have written under that name
 *
 * Tells a lock `T.lock`, a temp `T.lock.<pid>.<8 hex>.tmp` and a graveyard
 * `T.lock.gy.<pid>.<8 hex>` apart by name alone, exactly as scans and the directory model do.
 * A name only other programs give their lock files (`.#NAME`, `.~lock.NAME#`, `lock`,
 * `lock-frontend`, `.parentlock`, `LCK..NAME`) is %FL_ENTRY_OTHER_PROGRAM; git's `*.lock` is
 * named like ours, and only a snapshot tells it apart (by its `.git` directory).
 *
 * Returns: %TRUE if @name is one of these
 */
gboolean
fl_entry_kind_for_name (const char  *name,
                        FlEntryKind *kind)
{
  const char *base;
  FlNameInfo info;

  g_return_val_if_fail (name != NULL, FALSE);

  base = _fl_path_last_component (name);

  if (!_fl_classify_name (base, strlen (base), &info))
    {
      if (!_fl_other_lock_name (base, strlen (base)))
        return FALSE;
      info.kind = FL_ENTRY_OTHER_PROGRAM;
    }
  if (kind != NULL)
    *kind = info.kind;
  return TRUE;
}

static void
fl_snapshot_finalize (GObject *object)
{
  FlSnapshot *self = (FlSnapshot *) object;

  g_free (self->path);
  g_free (self->name);
  g_free (self->directory);
  g_free (self->target);
  g_free (self->process_name);
  g_free (self->process_cmdline);
  g_free (self->reason);
  g_free (self->content);
  g_free (self->content_raw);
  g_free (self->host);
  g_free (self->owner_user);
  g_free (self->owner_name);
  g_clear_pointer (&self->waiters, g_ptr_array_unref);

  G_OBJECT_CLASS (fl_snapshot_parent_class)->finalize (object);
}

static void
fl_snapshot_get_property (GObject    *object,
                          guint       prop_id,
                          GValue     *value,
                          GParamSpec *pspec)
{
  FlSnapshot *self = FL_SNAPSHOT (object);

  switch (prop_id)
    {
    case PROP_PATH: g_value_set_string (value, self->path); break;
    case PROP_NAME: g_value_set_string (value, self->name); break;
    case PROP_TARGET: g_value_set_string (value, self->target); break;
    case PROP_KIND: g_value_set_enum (value, self->kind); break;
    case PROP_PID: g_value_set_int (value, self->pid); break;
    case PROP_PROCESS_NAME: g_value_set_string (value, self->process_name); break;
    case PROP_PROCESS_CMDLINE: g_value_set_string (value, self->process_cmdline); break;
    case PROP_PROCESS_UID: g_value_set_int64 (value, self->process_uid); break;
    case PROP_PROCESS_START_TIME: g_value_set_int64 (value, self->process_start_time); break;
    case PROP_FILE_UID: g_value_set_int64 (value, self->file_uid); break;
    case PROP_LIVENESS: g_value_set_enum (value, self->liveness); break;
    case PROP_KERNEL_LOCK: g_value_set_enum (value, self->kernel_lock); break;
    case PROP_STALE: g_value_set_boolean (value, self->stale); break;
    case PROP_REASON: g_value_set_string (value, self->reason); break;
    case PROP_CONTENT: g_value_set_string (value, self->content); break;
    case PROP_MTIME: g_value_set_int64 (value, self->mtime); break;
    case PROP_CAPTURED_AT: g_value_set_int64 (value, self->captured_at); break;
    case PROP_AGE: g_value_set_int64 (value, fl_snapshot_get_age (self)); break;
    case PROP_RECLAIMABLE: g_value_set_enum (value, self->reclaimable); break;
    case PROP_STATE: g_value_set_enum (value, fl_snapshot_get_state (self)); break;
    case PROP_HOST: g_value_set_string (value, self->host); break;
    case PROP_LEASE_ID: g_value_set_int64 (value, self->lease); break;
    case PROP_LEASE_TTL: g_value_set_int64 (value, self->lease_ttl); break;
    case PROP_FENCING_TOKEN: g_value_set_uint64 (value, self->token); break;
    case PROP_REVISION: g_value_set_int64 (value, self->revision); break;
    case PROP_WAITING: g_value_set_boolean (value, self->waiting); break;
    case PROP_WAITERS: g_value_set_boxed (value, self->waiters); break;
    case PROP_LOCK_FORMAT: g_value_set_enum (value, self->format); break;
    case PROP_OWNER_USER: g_value_set_string (value, self->owner_user); break;
    case PROP_OWNER_NAME: g_value_set_string (value, self->owner_name); break;
    case PROP_OWNER_SINCE: g_value_set_int64 (value, self->owner_since); break;
    default: G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
fl_snapshot_class_init (FlSnapshotClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  const GParamFlags flags = G_PARAM_READABLE | G_PARAM_STATIC_STRINGS;

  object_class->finalize = fl_snapshot_finalize;
  object_class->get_property = fl_snapshot_get_property;

  /**
   * FlSnapshot:path:
   *
   * The file's path (fl_snapshot_get_path()).
   */
  properties[PROP_PATH] = g_param_spec_string ("path", NULL, NULL, NULL, flags);
  /**
   * FlSnapshot:name:
   *
   * The file's name (fl_snapshot_get_name()).
   */
  properties[PROP_NAME] = g_param_spec_string ("name", NULL, NULL, NULL, flags);
  /**
   * FlSnapshot:target:
   *
   * The file the lock protects (fl_snapshot_get_target()).
   */
  properties[PROP_TARGET] = g_param_spec_string ("target", NULL, NULL, NULL, flags);
  /**
   * FlSnapshot:kind:
   *
   * What the file is (fl_snapshot_get_kind()).
   */
  properties[PROP_KIND] = g_param_spec_enum ("kind", NULL, NULL, FL_TYPE_ENTRY_KIND,
                                             FL_ENTRY_LOCK, flags);
  /**
   * FlSnapshot:pid:
   *
   * The PID the file names, or 0 (fl_snapshot_get_pid()).
   */
  properties[PROP_PID] = g_param_spec_int ("pid", NULL, NULL, 0, G_MAXINT, 0, flags);
  /**
   * FlSnapshot:process-name:
   *
   * The name of the process with that PID, or %NULL (fl_snapshot_get_process_name()).
   */
  properties[PROP_PROCESS_NAME] = g_param_spec_string ("process-name", NULL, NULL, NULL, flags);
  /**
   * FlSnapshot:process-cmdline:
   *
   * The command line of that process, or %NULL (fl_snapshot_get_process_cmdline()).
   */
  properties[PROP_PROCESS_CMDLINE] = g_param_spec_string ("process-cmdline", NULL, NULL, NULL,
                                                          flags);
  /**
   * FlSnapshot:process-uid:
   *
   * The user that process runs as, or -1 (fl_snapshot_get_process_uid()).
   */
  properties[PROP_PROCESS_UID] = g_param_spec_int64 ("process-uid", NULL, NULL,
                                                     -1, G_MAXINT64, -1, flags);
  /**
   * FlSnapshot:process-start-time:
   *
   * When that process started, in microseconds since the epoch, or 0
   * (fl_snapshot_get_process_start_time()).
   */
  properties[PROP_PROCESS_START_TIME] = g_param_spec_int64 ("process-start-time", NULL, NULL,
                                                            0, G_MAXINT64, 0, flags);
  /**
   * FlSnapshot:file-uid:
   *
   * The owner of the file, or -1 (fl_snapshot_get_file_uid()).
   */
  properties[PROP_FILE_UID] = g_param_spec_int64 ("file-uid", NULL, NULL,
                                                  -1, G_MAXINT64, -1, flags);
  /**
   * FlSnapshot:liveness:
   *
   * Whether the process the file names runs (fl_snapshot_get_liveness()).
   */
  properties[PROP_LIVENESS] = g_param_spec_enum ("liveness", NULL, NULL, FL_TYPE_LIVENESS,
                                                 FL_LIVENESS_UNKNOWN, flags);
  /**
   * FlSnapshot:kernel-lock:
   *
   * Whether a process held the file's kernel lock (fl_snapshot_get_kernel_lock()).
   */
  properties[PROP_KERNEL_LOCK] = g_param_spec_enum ("kernel-lock", NULL, NULL,
                                                    FL_TYPE_KERNEL_LOCK,
                                                    FL_KERNEL_LOCK_UNKNOWN, flags);
  /**
   * FlSnapshot:stale:
   *
   * Whether the file is stale (fl_snapshot_get_stale()).
   */
  properties[PROP_STALE] = g_param_spec_boolean ("stale", NULL, NULL, FALSE, flags);
  /**
   * FlSnapshot:reason:
   *
   * Why the verdict is what it is (fl_snapshot_get_reason()).
   */
  properties[PROP_REASON] = g_param_spec_string ("reason", NULL, NULL, NULL, flags);
  /**
   * FlSnapshot:content:
   *
   * The file's content, printable (fl_snapshot_get_content()).
   */
  properties[PROP_CONTENT] = g_param_spec_string ("content", NULL, NULL, NULL, flags);
  /**
   * FlSnapshot:mtime:
   *
   * The file's modification time in microseconds since the epoch (fl_snapshot_get_mtime()).
   */
  properties[PROP_MTIME] = g_param_spec_int64 ("mtime", NULL, NULL,
                                               G_MININT64, G_MAXINT64, 0, flags);
  /**
   * FlSnapshot:captured-at:
   *
   * When the snapshot was taken, in microseconds since the epoch
   * (fl_snapshot_get_captured_at()).
   */
  properties[PROP_CAPTURED_AT] = g_param_spec_int64 ("captured-at", NULL, NULL,
                                                     G_MININT64, G_MAXINT64, 0, flags);
  /**
   * FlSnapshot:age:
   *
   * The file's age in microseconds when the snapshot was taken (fl_snapshot_get_age()).
   */
  properties[PROP_AGE] = g_param_spec_int64 ("age", NULL, NULL, 0, G_MAXINT64, 0, flags);
  /**
   * FlSnapshot:reclaimable:
   *
   * What an operator may do with the file (fl_snapshot_get_reclaimable()).
   */
  properties[PROP_RECLAIMABLE] = g_param_spec_enum ("reclaimable", NULL, NULL,
                                                    FL_TYPE_RECLAIMABLE, FL_RECLAIMABLE_NONE,
                                                    flags);
  /**
   * FlSnapshot:state:
   *
   * The one verdict every view shows (fl_snapshot_get_state()).
   */
  properties[PROP_STATE] = g_param_spec_enum ("state", NULL, NULL,
                                              FL_TYPE_ENTRY_STATE, FL_ENTRY_STATE_UNKNOWN, flags);

  /* An etcd lock's (docs/etcd.md, "Inspection"); see their getters. */
  /**
   * FlSnapshot:host:
   *
   * The host an etcd lock's holder runs on, or %NULL (fl_snapshot_get_host()).
   */
  properties[PROP_HOST] = g_param_spec_string ("host", NULL, NULL, NULL, flags);
  /**
   * FlSnapshot:lease-id:
   *
   * An etcd lock's lease, or 0 for a file (fl_snapshot_get_lease_id()).
   */
  properties[PROP_LEASE_ID] = g_param_spec_int64 ("lease-id", NULL, NULL,
                                                  G_MININT64, G_MAXINT64, 0, flags);
  /**
   * FlSnapshot:lease-ttl:
   *
   * The seconds left on an etcd holder's lease, or -1 (fl_snapshot_get_lease_ttl()).
   */
  properties[PROP_LEASE_TTL] = g_param_spec_int64 ("lease-ttl", NULL, NULL,
                                                   -1, G_MAXINT64, -1, flags);
  /**
   * FlSnapshot:fencing-token:
   *
   * An etcd lock's fencing token, or 0 for a file (fl_snapshot_get_fencing_token()).
   */
  properties[PROP_FENCING_TOKEN] = g_param_spec_uint64 ("fencing-token", NULL, NULL,
                                                        0, G_MAXUINT64, 0, flags);
  /**
   * FlSnapshot:revision:
   *
   * etcd's revision when the snapshot was read, or 0 for a file
   * (fl_snapshot_get_revision()).
   */
  properties[PROP_REVISION] = g_param_spec_int64 ("revision", NULL, NULL,
                                                  0, G_MAXINT64, 0, flags);
  /**
   * FlSnapshot:waiting:
   *
   * Whether this is a waiter of an etcd lock (fl_snapshot_get_waiting()).
   */
  properties[PROP_WAITING] = g_param_spec_boolean ("waiting", NULL, NULL, FALSE, flags);
  /**
   * FlSnapshot:waiters:
   *
   * The waiters of an etcd lock, oldest first, or %NULL (fl_snapshot_get_waiters()).
   */
  properties[PROP_WAITERS] = g_param_spec_boxed ("waiters", NULL, NULL, G_TYPE_PTR_ARRAY,
                                                 flags);

  /**
   * FlSnapshot:lock-format:
   *
   * Whose lock file it is (fl_snapshot_get_lock_format()): libfl's own, or another program's
   * (docs/other-lock-files.md).
   */
  properties[PROP_LOCK_FORMAT] = g_param_spec_enum ("lock-format", NULL, NULL,
                                                    FL_TYPE_LOCK_FORMAT, FL_LOCK_FORMAT_LIBFL,
                                                    flags);
  /**
   * FlSnapshot:owner-user:
   *
   * The login name another program's lock file records, or %NULL
   * (fl_snapshot_get_owner_user()).
   */
  properties[PROP_OWNER_USER] = g_param_spec_string ("owner-user", NULL, NULL, NULL, flags);
  /**
   * FlSnapshot:owner-name:
   *
   * The full name a LibreOffice lock file records, or %NULL (fl_snapshot_get_owner_name()).
   */
  properties[PROP_OWNER_NAME] = g_param_spec_string ("owner-name", NULL, NULL, NULL, flags);
  /**
   * FlSnapshot:owner-since:
   *
   * Since when another program's lock file says it is held, in microseconds since the epoch;
   * 0 when not recorded (fl_snapshot_get_owner_since()).
   */
  properties[PROP_OWNER_SINCE] = g_param_spec_int64 ("owner-since", NULL, NULL,
                                                     G_MININT64, G_MAXINT64, 0, flags);

  g_object_class_install_properties (object_class, N_PROPS, properties);
}

static void
fl_snapshot_init (FlSnapshot *self)
{
  self->process_uid = -1;
  self->file_uid = -1;
  self->lease_ttl = -1;
}
