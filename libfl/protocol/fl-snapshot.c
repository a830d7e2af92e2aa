/* fl-snapshot.c: the FlSnapshot object: its getters and read-only properties
 *
 * Made in fl-snapshot-build.c, reclaimed from in fl-snapshot-reclaim.c, and its verdict put
 * in words in fl-snapshot-state.c; the fields are in fl-snapshot-private.h for those files.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include "fl-enum-types.h"
#include "fl-snapshot-private.h"

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
  PROP_HOLDER_EXITED,
  PROP_HOLDER_STOPPED,
  PROP_KEEPER_PID,
  PROP_KEEPER_NAME,
  N_PROPS
};

static GParamSpec *properties[N_PROPS];

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
 * user's language (the gettext domain 'libfl-1'): for people to read, not for programs to
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
 * fl_snapshot_get_holder_exited:
 * @self: a snapshot
 *
 * Whether the lock is held although the process it names has exited: a process it passed the
 * descriptor to (a child, the command of `flctl run`) keeps its kernel lock, and the lock is
 * held until that one exits too. Evidence for people: the verdict stays
 * %FL_ENTRY_STATE_HELD, and fl_snapshot_get_keeper_pid() names the keeper when it can.
 *
 * Returns: %TRUE when an inherited descriptor keeps an exited holder's lock
 */
GETTER (gboolean, holder_exited, holder_exited)

/**
 * fl_snapshot_get_holder_stopped:
 * @self: a snapshot
 *
 * Whether the holder is stopped by a signal (SIGSTOP, SIGTSTP): alive, holding its lock, but
 * running no code until it is continued (SIGCONT) or killed; the classic stuck lock.
 *
 * Returns: %TRUE when the holder is stopped
 */
GETTER (gboolean, holder_stopped, holder_stopped)

/**
 * fl_snapshot_get_keeper_pid:
 * @self: a snapshot
 *
 * For a lock whose holder has exited (fl_snapshot_get_holder_exited()), a process that has the
 * lock file open and so keeps its kernel lock, found among the open files of the processes
 * this user may look into.
 *
 * Returns: its PID, or 0 when none could be named
 */
GETTER (int, keeper_pid, keeper_pid)

/**
 * fl_snapshot_get_keeper_name:
 * @self: a snapshot
 *
 * The name of the process fl_snapshot_get_keeper_pid() gives.
 *
 * Returns: (nullable): its name, safe to print, or %NULL
 */
GETTER (const char *, keeper_name, keeper_name)

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

static void
fl_snapshot_finalize (GObject *object)
{
  FlSnapshot *self = (FlSnapshot *) object;

  g_free (self->path);
  g_free (self->name);
  g_free (self->directory);
  g_free (self->target);
  g_free (self->process_name);
  g_free (self->keeper_name);
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
    case PROP_HOLDER_EXITED: g_value_set_boolean (value, self->holder_exited); break;
    case PROP_HOLDER_STOPPED: g_value_set_boolean (value, self->holder_stopped); break;
    case PROP_KEEPER_PID: g_value_set_int (value, self->keeper_pid); break;
    case PROP_KEEPER_NAME: g_value_set_string (value, self->keeper_name); break;
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
  /**
   * FlSnapshot:holder-exited:
   *
   * Whether the lock is held although its holder has exited (fl_snapshot_get_holder_exited()).
   */
  properties[PROP_HOLDER_EXITED] = g_param_spec_boolean ("holder-exited", NULL, NULL, FALSE,
                                                         flags);
  /**
   * FlSnapshot:holder-stopped:
   *
   * Whether the holder is stopped by a signal (fl_snapshot_get_holder_stopped()).
   */
  properties[PROP_HOLDER_STOPPED] = g_param_spec_boolean ("holder-stopped", NULL, NULL, FALSE,
                                                          flags);
  /**
   * FlSnapshot:keeper-pid:
   *
   * The process that keeps an exited holder's kernel lock, or 0 (fl_snapshot_get_keeper_pid()).
   */
  properties[PROP_KEEPER_PID] = g_param_spec_int ("keeper-pid", NULL, NULL, 0, G_MAXINT, 0,
                                                  flags);
  /**
   * FlSnapshot:keeper-name:
   *
   * That process's name, or %NULL (fl_snapshot_get_keeper_name()).
   */
  properties[PROP_KEEPER_NAME] = g_param_spec_string ("keeper-name", NULL, NULL, NULL, flags);

  g_object_class_install_properties (object_class, N_PROPS, properties);
}

static void
fl_snapshot_init (FlSnapshot *self)
{
  self->process_uid = -1;
  self->file_uid = -1;
  self->lease_ttl = -1;
}
