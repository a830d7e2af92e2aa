/* fl-snapshot-getters.c: what a snapshot saw, one accessor per fact, each with its doc
 *
 * Written out one by one (no generating macro), so that grep and ctags find each of them
 * beside the sentence that says what it returns.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include "protocol/fl-snapshot-private.h"

/**
 * fl_snapshot_dup_content_bytes:
 * @self: a snapshot
 *
 * The file's content byte for byte, as read: at most 64 bytes (a longer file is not a lock
 * anyone wrote); for another program's lock file at most 512 bytes, or a link's target. fl_snapshot_get_content() is the same, printable, with other bytes as `\xNN`.
 *
 * Returns: (transfer full): the bytes
 *
 * Since: 0.1
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
 *
 * Since: 0.1
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
 *
 * Since: 0.1
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

const char *
_fl_snapshot_get_key (FlSnapshot *self)
{
  return _fl_snapshot_has_traits (self, FL_SNAPSHOT_KEYED_BY_TARGET) ? self->target
                                                                     : self->path;
}

/**
 * fl_snapshot_get_path:
 * @self: a snapshot
 *
 * The file's path, as given or found by a scan; for an etcd lock its `etcd://` target.
 *
 * Returns: (type filename): the path
 *
 * Since: 0.1
 */
const char *
fl_snapshot_get_path (FlSnapshot *self)
{
  g_return_val_if_fail (FL_IS_SNAPSHOT (self), NULL);
  return self->path;
}

/**
 * fl_snapshot_get_name:
 * @self: a snapshot
 *
 * The file's name, the last component of its path.
 *
 * Returns: (type filename): the name
 *
 * Since: 0.1
 */
const char *
fl_snapshot_get_name (FlSnapshot *self)
{
  g_return_val_if_fail (FL_IS_SNAPSHOT (self), NULL);
  return self->name;
}

/**
 * fl_snapshot_get_target:
 * @self: a snapshot
 *
 * The file the lock protects: `T` for `T.lock` and for its temp and graveyard files.
 *
 * Returns: (type filename): the target
 *
 * Since: 0.1
 */
const char *
fl_snapshot_get_target (FlSnapshot *self)
{
  g_return_val_if_fail (FL_IS_SNAPSHOT (self), NULL);
  return self->target;
}

/**
 * fl_snapshot_get_kind:
 * @self: a snapshot
 *
 * What the file is, from its name and type.
 *
 * Returns: the kind: lock, temp, graveyard or foreign
 *
 * Since: 0.1
 */
FlEntryKind
fl_snapshot_get_kind (FlSnapshot *self)
{
  g_return_val_if_fail (FL_IS_SNAPSHOT (self), 0);
  return self->kind;
}

/**
 * fl_snapshot_get_pid:
 * @self: a snapshot
 *
 * The PID the file names: a lock's holder, or the creator named in a temp or graveyard
 * file's name.
 *
 * Returns: the PID, or 0 if the file names none (empty, or content that is not a PID)
 *
 * Since: 0.1
 */
int
fl_snapshot_get_pid (FlSnapshot *self)
{
  g_return_val_if_fail (FL_IS_SNAPSHOT (self), 0);
  return self->pid;
}

/**
 * fl_snapshot_get_process_name:
 * @self: a snapshot
 *
 * The name of the process with that PID (its `comm`), if it was running and could be read.
 *
 * Returns: (nullable): the process name, or %NULL
 *
 * Since: 0.1
 */
const char *
fl_snapshot_get_process_name (FlSnapshot *self)
{
  g_return_val_if_fail (FL_IS_SNAPSHOT (self), NULL);
  return self->process_name;
}

/**
 * fl_snapshot_get_process_cmdline:
 * @self: a snapshot
 *
 * The command line of the process with that PID, its arguments separated by spaces, if it
 * could be read.
 *
 * Returns: (nullable): the command line, or %NULL
 *
 * Since: 0.1
 */
const char *
fl_snapshot_get_process_cmdline (FlSnapshot *self)
{
  g_return_val_if_fail (FL_IS_SNAPSHOT (self), NULL);
  return self->process_cmdline;
}

/**
 * fl_snapshot_get_process_uid:
 * @self: a snapshot
 *
 * The user the process with that PID runs as.
 *
 * Returns: the user ID, or -1 if not known
 *
 * Since: 0.1
 */
gint64
fl_snapshot_get_process_uid (FlSnapshot *self)
{
  g_return_val_if_fail (FL_IS_SNAPSHOT (self), 0);
  return self->process_uid;
}

/**
 * fl_snapshot_get_process_start_time:
 * @self: a snapshot
 *
 * When the process with that PID started: how a reused PID is told from the holder (a
 * process that started after the file was written is not its writer).
 *
 * Returns: the start time in microseconds since the epoch, or 0 if not known
 *
 * Since: 0.1
 */
gint64
fl_snapshot_get_process_start_time (FlSnapshot *self)
{
  g_return_val_if_fail (FL_IS_SNAPSHOT (self), 0);
  return self->process_start_time;
}

/**
 * fl_snapshot_get_file_uid:
 * @self: a snapshot
 *
 * The owner of the file; in a sticky directory only its owner (or root) may remove it.
 *
 * Returns: the user ID, or -1 if not known (an etcd lock)
 *
 * Since: 0.1
 */
gint64
fl_snapshot_get_file_uid (FlSnapshot *self)
{
  g_return_val_if_fail (FL_IS_SNAPSHOT (self), 0);
  return self->file_uid;
}

/**
 * fl_snapshot_get_liveness:
 * @self: a snapshot
 *
 * Whether the process the file names runs, as judged when the snapshot was taken.
 *
 * Returns: the liveness
 *
 * Since: 0.1
 */
FlLiveness
fl_snapshot_get_liveness (FlSnapshot *self)
{
  g_return_val_if_fail (FL_IS_SNAPSHOT (self), 0);
  return self->liveness;
}

/**
 * fl_snapshot_get_kernel_lock:
 * @self: a snapshot
 *
 * Whether a process held the file's kernel lock when the snapshot was taken (a live libfl
 * holder always does).
 *
 * Returns: the probe's result
 *
 * Since: 0.1
 */
FlKernelLock
fl_snapshot_get_kernel_lock (FlSnapshot *self)
{
  g_return_val_if_fail (FL_IS_SNAPSHOT (self), 0);
  return self->kernel_lock;
}

/**
 * fl_snapshot_get_stale:
 * @self: a snapshot
 *
 * Whether the verdict is stale: no live process holds the lock, so a takeover or
 * fl_snapshot_reclaim() may remove it.
 *
 * Returns: %TRUE if the file is stale
 *
 * Since: 0.1
 */
gboolean
fl_snapshot_get_stale (FlSnapshot *self)
{
  g_return_val_if_fail (FL_IS_SNAPSHOT (self), FALSE);
  return self->stale;
}

/**
 * fl_snapshot_get_reason:
 * @self: a snapshot
 *
 * Why the verdict is what it is: the evidence in one sentence, for logs and details views, such
 * as "the holder PID 4242 is gone (no such process)". Like libfl's error messages it is in the
 * user's language (the gettext domain 'libfl-1'): for people to read, not for programs to
 * compare; fl_snapshot_get_state() and fl_snapshot_get_liveness() are the verdict.
 *
 * Returns: the reason
 *
 * Since: 0.1
 */
const char *
fl_snapshot_get_reason (FlSnapshot *self)
{
  g_return_val_if_fail (FL_IS_SNAPSHOT (self), NULL);
  return self->reason;
}

/**
 * fl_snapshot_get_content:
 * @self: a snapshot
 *
 * The file's content, printable: bytes that are not printable ASCII appear as `\xNN`.
 * fl_snapshot_dup_content_bytes() has them as they are.
 *
 * Returns: the content, at most 64 bytes of the file
 *
 * Since: 0.1
 */
const char *
fl_snapshot_get_content (FlSnapshot *self)
{
  g_return_val_if_fail (FL_IS_SNAPSHOT (self), NULL);
  return self->content;
}

/**
 * fl_snapshot_get_mtime:
 * @self: a snapshot
 *
 * The file's modification time (an etcd waiter's: when it queued); the age is counted from
 * it.
 *
 * Returns: the time in microseconds since the epoch
 *
 * Since: 0.1
 */
gint64
fl_snapshot_get_mtime (FlSnapshot *self)
{
  g_return_val_if_fail (FL_IS_SNAPSHOT (self), 0);
  return self->mtime;
}

/**
 * fl_snapshot_get_captured_at:
 * @self: a snapshot
 *
 * When the snapshot was taken.
 *
 * Returns: the real time in microseconds since the epoch
 *
 * Since: 0.1
 */
gint64
fl_snapshot_get_captured_at (FlSnapshot *self)
{
  g_return_val_if_fail (FL_IS_SNAPSHOT (self), 0);
  return self->captured_at;
}


/**
 * fl_snapshot_get_lock_format:
 * @self: a snapshot
 *
 * Which program's lock file the snapshot saw.
 *
 * Returns: whose lock file it is: %FL_LOCK_FORMAT_LIBFL for libfl's own (and etcd's), another
 *   program's for an entry of kind %FL_ENTRY_OTHER_PROGRAM (docs/other-lock-files.md)
 *
 * Since: 0.1
 */
FlLockFormat
fl_snapshot_get_lock_format (FlSnapshot *self)
{
  g_return_val_if_fail (FL_IS_SNAPSHOT (self), 0);
  return self->format;
}

/**
 * fl_snapshot_get_owner_user:
 * @self: a snapshot
 *
 * The user another program's lock file names as its owner.
 *
 * Returns: (nullable): the login name another program's lock file records (LibreOffice,
 *   Emacs); %NULL when it records none. Its host is fl_snapshot_get_host(), its PID
 *   fl_snapshot_get_pid()
 *
 * Since: 0.1
 */
const char *
fl_snapshot_get_owner_user (FlSnapshot *self)
{
  g_return_val_if_fail (FL_IS_SNAPSHOT (self), NULL);
  return self->owner_user;
}

/**
 * fl_snapshot_get_owner_name:
 * @self: a snapshot
 *
 * The full name another program's lock file gives its owner.
 *
 * Returns: (nullable): the person's full name a LibreOffice lock file records; %NULL otherwise
 *
 * Since: 0.1
 */
const char *
fl_snapshot_get_owner_name (FlSnapshot *self)
{
  g_return_val_if_fail (FL_IS_SNAPSHOT (self), NULL);
  return self->owner_name;
}

/**
 * fl_snapshot_get_owner_since:
 * @self: a snapshot
 *
 * When another program's lock file says it was taken.
 *
 * Returns: since when another program's lock file says it has been held, in microseconds since
 *   the epoch (LibreOffice records it, to the minute, in local time); 0 when not recorded
 *
 * Since: 0.1
 */
gint64
fl_snapshot_get_owner_since (FlSnapshot *self)
{
  g_return_val_if_fail (FL_IS_SNAPSHOT (self), 0);
  return self->owner_since;
}

/**
 * fl_snapshot_get_holder_exited:
 * @self: a snapshot
 *
 * Whether the lock is held although the process it names has exited: a process it passed the
 * descriptor to (a child, the command of `flctl run`) keeps its kernel lock, and the lock is
 * held until that one exits too. Evidence for people: the verdict stays
 * %FL_ENTRY_STATE_HELD, and fl_snapshot_get_keeper_pid() names the keeper when it can.
 *
 * An etcd lock's holder on this machine (its metadata's identity names this boot and PID
 * namespace) that has exited keeps the lock until its lease expires: %TRUE too, with no
 * keeper, and the reason says when the lease expires (docs/etcd.md, "Inspection").
 *
 * Returns: %TRUE when an inherited descriptor (or an etcd lease) keeps an exited holder's lock
 *
 * Since: 0.1
 */
gboolean
fl_snapshot_get_holder_exited (FlSnapshot *self)
{
  g_return_val_if_fail (FL_IS_SNAPSHOT (self), FALSE);
  return self->holder_exited;
}

/**
 * fl_snapshot_get_holder_stopped:
 * @self: a snapshot
 *
 * Whether the holder is stopped by a signal (SIGSTOP, SIGTSTP): alive, holding its lock, but
 * running no code until it is continued (SIGCONT) or killed; the classic stuck lock.
 *
 * Returns: %TRUE when the holder is stopped
 *
 * Since: 0.1
 */
gboolean
fl_snapshot_get_holder_stopped (FlSnapshot *self)
{
  g_return_val_if_fail (FL_IS_SNAPSHOT (self), FALSE);
  return self->holder_stopped;
}

/**
 * fl_snapshot_get_keeper_pid:
 * @self: a snapshot
 *
 * For a lock whose holder has exited (fl_snapshot_get_holder_exited()), a process that has the
 * lock file open and so keeps its kernel lock, found among the open files of the processes
 * this user may look into.
 *
 * Returns: its PID, or 0 when none could be named
 *
 * Since: 0.1
 */
int
fl_snapshot_get_keeper_pid (FlSnapshot *self)
{
  g_return_val_if_fail (FL_IS_SNAPSHOT (self), 0);
  return self->keeper_pid;
}

/**
 * fl_snapshot_get_keeper_name:
 * @self: a snapshot
 *
 * The name of the process fl_snapshot_get_keeper_pid() gives.
 *
 * Returns: (nullable): its name, safe to print, or %NULL
 *
 * Since: 0.1
 */
const char *
fl_snapshot_get_keeper_name (FlSnapshot *self)
{
  g_return_val_if_fail (FL_IS_SNAPSHOT (self), NULL);
  return self->keeper_name;
}

/**
 * fl_snapshot_get_host:
 * @self: a snapshot
 *
 * The host an etcd lock's holder (or waiter) runs on, as it wrote in its metadata key.
 *
 * Returns: (nullable): the host an etcd lock's holder (or waiter) runs on, from its metadata
 *   key, or the host another program's lock file records (Firefox records an IP address);
 *   %NULL for libfl's own file, or when the metadata key is missing or unreadable
 *
 * Since: 0.1
 */
const char *
fl_snapshot_get_host (FlSnapshot *self)
{
  g_return_val_if_fail (FL_IS_SNAPSHOT (self), NULL);
  return self->host;
}

/**
 * fl_snapshot_get_lease_id:
 * @self: a snapshot
 *
 * The etcd lease behind an etcd lock's key.
 *
 * Returns: the etcd lease of the key the snapshot saw (never reused by etcd: what
 *   fl_snapshot_reclaim_unproven() revokes); 0 for a file
 *
 * Since: 0.1
 */
gint64
fl_snapshot_get_lease_id (FlSnapshot *self)
{
  g_return_val_if_fail (FL_IS_SNAPSHOT (self), 0);
  return self->lease;
}

/**
 * fl_snapshot_get_lease_ttl:
 * @self: a snapshot
 *
 * How long an etcd holder's lease had left when the snapshot was read.
 *
 * Returns: the seconds left on an etcd holder's lease, as etcd said when the snapshot was
 *   taken; 0 when it had just expired; -1 for a file, and for a waiter (not asked)
 *
 * Since: 0.1
 */
gint64
fl_snapshot_get_lease_ttl (FlSnapshot *self)
{
  g_return_val_if_fail (FL_IS_SNAPSHOT (self), 0);
  return self->lease_ttl;
}

/**
 * fl_snapshot_get_fencing_token:
 * @self: a snapshot
 *
 * The fencing token of the acquisition the snapshot saw (docs/etcd.md).
 *
 * Returns: an etcd key's create_revision: the token fl_lock_get_fencing_token() gives its
 *   holder; 0 for a file (no token, docs/etcd.md "Fencing")
 *
 * Since: 0.1
 */
guint64
fl_snapshot_get_fencing_token (FlSnapshot *self)
{
  g_return_val_if_fail (FL_IS_SNAPSHOT (self), 0);
  return self->token;
}

/**
 * fl_snapshot_get_revision:
 * @self: a snapshot
 *
 * Which state of etcd the snapshot saw.
 *
 * Returns: etcd's revision when the snapshot was read; 0 for a file
 *
 * Since: 0.1
 */
gint64
fl_snapshot_get_revision (FlSnapshot *self)
{
  g_return_val_if_fail (FL_IS_SNAPSHOT (self), 0);
  return self->revision;
}

/**
 * fl_snapshot_get_waiting:
 * @self: a snapshot
 *
 * Whether the snapshot is of a waiter rather than of the holder.
 *
 * Returns: %TRUE for a waiter of an etcd lock (an element of fl_snapshot_get_waiters()):
 *   queued, not holding; %FALSE for a holder and for a file
 *
 * Since: 0.1
 */
gboolean
fl_snapshot_get_waiting (FlSnapshot *self)
{
  g_return_val_if_fail (FL_IS_SNAPSHOT (self), FALSE);
  return self->waiting;
}

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
 *
 * Since: 0.1
 */
GPtrArray *
fl_snapshot_get_waiters (FlSnapshot *self)
{
  g_return_val_if_fail (FL_IS_SNAPSHOT (self), NULL);
  return self->waiters;
}

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
 *
 * Since: 0.1
 */
FlReclaimable
fl_snapshot_get_reclaimable (FlSnapshot *self)
{
  g_return_val_if_fail (FL_IS_SNAPSHOT (self), 0);
  return self->reclaimable;
}
