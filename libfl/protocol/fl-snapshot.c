/* fl-snapshot.c: the FlSnapshot object: its class and read-only properties
 *
 * Made in fl-snapshot-build.c, read through fl-snapshot-getters.c, reclaimed from in
 * fl-snapshot-reclaim.c, and its verdict put in words in fl-snapshot-state.c; the fields are
 * in fl-snapshot-private.h for those files.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include "fl-enum-types.h"
#include "protocol/fl-snapshot-private.h"

/**
 * FlSnapshot:
 *
 * An immutable picture of one lock, temp or graveyard file (or of an etcd lock), taken at one
 * instant: its holder or creator, whether that process is alive, whether a process holds the
 * file's kernel lock, and the verdict with its reason (docs/protocol.md, section 2). Made by
 * fl_snapshot_new(), fl_snapshot_new_for_target(), fl_scan_directory() and the entries of
 * #FlDirectoryModel; fl_snapshot_reclaim() removes the file only if it is still the very one
 * the snapshot saw. Every property is read-only and never changes.
 *
 * Since: 0.1
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
   *
   * Since: 0.1
   */
  properties[PROP_PATH] = g_param_spec_string ("path", NULL, NULL, NULL, flags);
  /**
   * FlSnapshot:name:
   *
   * The file's name (fl_snapshot_get_name()).
   *
   * Since: 0.1
   */
  properties[PROP_NAME] = g_param_spec_string ("name", NULL, NULL, NULL, flags);
  /**
   * FlSnapshot:target:
   *
   * The file the lock protects (fl_snapshot_get_target()).
   *
   * Since: 0.1
   */
  properties[PROP_TARGET] = g_param_spec_string ("target", NULL, NULL, NULL, flags);
  /**
   * FlSnapshot:kind:
   *
   * What the file is (fl_snapshot_get_kind()).
   *
   * Since: 0.1
   */
  properties[PROP_KIND] = g_param_spec_enum ("kind", NULL, NULL, FL_TYPE_ENTRY_KIND,
                                             FL_ENTRY_LOCK, flags);
  /**
   * FlSnapshot:pid:
   *
   * The PID the file names, or 0 (fl_snapshot_get_pid()).
   *
   * Since: 0.1
   */
  properties[PROP_PID] = g_param_spec_int ("pid", NULL, NULL, 0, G_MAXINT, 0, flags);
  /**
   * FlSnapshot:process-name:
   *
   * The name of the process with that PID, or %NULL (fl_snapshot_get_process_name()).
   *
   * Since: 0.1
   */
  properties[PROP_PROCESS_NAME] = g_param_spec_string ("process-name", NULL, NULL, NULL, flags);
  /**
   * FlSnapshot:process-cmdline:
   *
   * The command line of that process, or %NULL (fl_snapshot_get_process_cmdline()).
   *
   * Since: 0.1
   */
  properties[PROP_PROCESS_CMDLINE] = g_param_spec_string ("process-cmdline", NULL, NULL, NULL,
                                                          flags);
  /**
   * FlSnapshot:process-uid:
   *
   * The user that process runs as, or -1 (fl_snapshot_get_process_uid()).
   *
   * Since: 0.1
   */
  properties[PROP_PROCESS_UID] = g_param_spec_int64 ("process-uid", NULL, NULL,
                                                     -1, G_MAXINT64, -1, flags);
  /**
   * FlSnapshot:process-start-time:
   *
   * When that process started, in microseconds since the epoch, or 0
   * (fl_snapshot_get_process_start_time()).
   *
   * Since: 0.1
   */
  properties[PROP_PROCESS_START_TIME] = g_param_spec_int64 ("process-start-time", NULL, NULL,
                                                            0, G_MAXINT64, 0, flags);
  /**
   * FlSnapshot:file-uid:
   *
   * The owner of the file, or -1 (fl_snapshot_get_file_uid()).
   *
   * Since: 0.1
   */
  properties[PROP_FILE_UID] = g_param_spec_int64 ("file-uid", NULL, NULL,
                                                  -1, G_MAXINT64, -1, flags);
  /**
   * FlSnapshot:liveness:
   *
   * Whether the process the file names runs (fl_snapshot_get_liveness()).
   *
   * Since: 0.1
   */
  properties[PROP_LIVENESS] = g_param_spec_enum ("liveness", NULL, NULL, FL_TYPE_LIVENESS,
                                                 FL_LIVENESS_UNKNOWN, flags);
  /**
   * FlSnapshot:kernel-lock:
   *
   * Whether a process held the file's kernel lock (fl_snapshot_get_kernel_lock()).
   *
   * Since: 0.1
   */
  properties[PROP_KERNEL_LOCK] = g_param_spec_enum ("kernel-lock", NULL, NULL,
                                                    FL_TYPE_KERNEL_LOCK,
                                                    FL_KERNEL_LOCK_UNKNOWN, flags);
  /**
   * FlSnapshot:stale:
   *
   * Whether the file is stale (fl_snapshot_get_stale()).
   *
   * Since: 0.1
   */
  properties[PROP_STALE] = g_param_spec_boolean ("stale", NULL, NULL, FALSE, flags);
  /**
   * FlSnapshot:reason:
   *
   * Why the verdict is what it is (fl_snapshot_get_reason()).
   *
   * Since: 0.1
   */
  properties[PROP_REASON] = g_param_spec_string ("reason", NULL, NULL, NULL, flags);
  /**
   * FlSnapshot:content:
   *
   * The file's content, printable (fl_snapshot_get_content()).
   *
   * Since: 0.1
   */
  properties[PROP_CONTENT] = g_param_spec_string ("content", NULL, NULL, NULL, flags);
  /**
   * FlSnapshot:mtime:
   *
   * The file's modification time in microseconds since the epoch (fl_snapshot_get_mtime()).
   *
   * Since: 0.1
   */
  properties[PROP_MTIME] = g_param_spec_int64 ("mtime", NULL, NULL,
                                               G_MININT64, G_MAXINT64, 0, flags);
  /**
   * FlSnapshot:captured-at:
   *
   * When the snapshot was taken, in microseconds since the epoch
   * (fl_snapshot_get_captured_at()).
   *
   * Since: 0.1
   */
  properties[PROP_CAPTURED_AT] = g_param_spec_int64 ("captured-at", NULL, NULL,
                                                     G_MININT64, G_MAXINT64, 0, flags);
  /**
   * FlSnapshot:age:
   *
   * The file's age in microseconds when the snapshot was taken (fl_snapshot_get_age()).
   *
   * Since: 0.1
   */
  properties[PROP_AGE] = g_param_spec_int64 ("age", NULL, NULL, 0, G_MAXINT64, 0, flags);
  /**
   * FlSnapshot:reclaimable:
   *
   * What an operator may do with the file (fl_snapshot_get_reclaimable()).
   *
   * Since: 0.1
   */
  properties[PROP_RECLAIMABLE] = g_param_spec_enum ("reclaimable", NULL, NULL,
                                                    FL_TYPE_RECLAIMABLE, FL_RECLAIMABLE_NONE,
                                                    flags);
  /**
   * FlSnapshot:state:
   *
   * The one verdict every view shows (fl_snapshot_get_state()).
   *
   * Since: 0.1
   */
  properties[PROP_STATE] = g_param_spec_enum ("state", NULL, NULL,
                                              FL_TYPE_ENTRY_STATE, FL_ENTRY_STATE_UNKNOWN, flags);

  /* An etcd lock's (docs/etcd.md, "Inspection"); see their getters. */
  /**
   * FlSnapshot:host:
   *
   * The host an etcd lock's holder runs on, or %NULL (fl_snapshot_get_host()).
   *
   * Since: 0.1
   */
  properties[PROP_HOST] = g_param_spec_string ("host", NULL, NULL, NULL, flags);
  /**
   * FlSnapshot:lease-id:
   *
   * An etcd lock's lease, or 0 for a file (fl_snapshot_get_lease_id()).
   *
   * Since: 0.1
   */
  properties[PROP_LEASE_ID] = g_param_spec_int64 ("lease-id", NULL, NULL,
                                                  G_MININT64, G_MAXINT64, 0, flags);
  /**
   * FlSnapshot:lease-ttl:
   *
   * The seconds left on an etcd holder's lease, or -1 (fl_snapshot_get_lease_ttl()).
   *
   * Since: 0.1
   */
  properties[PROP_LEASE_TTL] = g_param_spec_int64 ("lease-ttl", NULL, NULL,
                                                   -1, G_MAXINT64, -1, flags);
  /**
   * FlSnapshot:fencing-token:
   *
   * An etcd lock's fencing token, or 0 for a file (fl_snapshot_get_fencing_token()).
   *
   * Since: 0.1
   */
  properties[PROP_FENCING_TOKEN] = g_param_spec_uint64 ("fencing-token", NULL, NULL,
                                                        0, G_MAXUINT64, 0, flags);
  /**
   * FlSnapshot:revision:
   *
   * etcd's revision when the snapshot was read, or 0 for a file
   * (fl_snapshot_get_revision()).
   *
   * Since: 0.1
   */
  properties[PROP_REVISION] = g_param_spec_int64 ("revision", NULL, NULL,
                                                  0, G_MAXINT64, 0, flags);
  /**
   * FlSnapshot:waiting:
   *
   * Whether this is a waiter of an etcd lock (fl_snapshot_get_waiting()).
   *
   * Since: 0.1
   */
  properties[PROP_WAITING] = g_param_spec_boolean ("waiting", NULL, NULL, FALSE, flags);
  /**
   * FlSnapshot:waiters:
   *
   * The waiters of an etcd lock, oldest first, or %NULL (fl_snapshot_get_waiters()).
   *
   * Since: 0.1
   */
  properties[PROP_WAITERS] = g_param_spec_boxed ("waiters", NULL, NULL, G_TYPE_PTR_ARRAY,
                                                 flags);

  /**
   * FlSnapshot:lock-format:
   *
   * Whose lock file it is (fl_snapshot_get_lock_format()): libfl's own, or another program's
   * (docs/other-lock-files.md).
   *
   * Since: 0.1
   */
  properties[PROP_LOCK_FORMAT] = g_param_spec_enum ("lock-format", NULL, NULL,
                                                    FL_TYPE_LOCK_FORMAT, FL_LOCK_FORMAT_LIBFL,
                                                    flags);
  /**
   * FlSnapshot:owner-user:
   *
   * The login name another program's lock file records, or %NULL
   * (fl_snapshot_get_owner_user()).
   *
   * Since: 0.1
   */
  properties[PROP_OWNER_USER] = g_param_spec_string ("owner-user", NULL, NULL, NULL, flags);
  /**
   * FlSnapshot:owner-name:
   *
   * The full name a LibreOffice lock file records, or %NULL (fl_snapshot_get_owner_name()).
   *
   * Since: 0.1
   */
  properties[PROP_OWNER_NAME] = g_param_spec_string ("owner-name", NULL, NULL, NULL, flags);
  /**
   * FlSnapshot:owner-since:
   *
   * Since when another program's lock file says it is held, in microseconds since the epoch;
   * 0 when not recorded (fl_snapshot_get_owner_since()).
   *
   * Since: 0.1
   */
  properties[PROP_OWNER_SINCE] = g_param_spec_int64 ("owner-since", NULL, NULL,
                                                     G_MININT64, G_MAXINT64, 0, flags);
  /**
   * FlSnapshot:holder-exited:
   *
   * Whether the lock is held although its holder has exited (fl_snapshot_get_holder_exited()).
   *
   * Since: 0.1
   */
  properties[PROP_HOLDER_EXITED] = g_param_spec_boolean ("holder-exited", NULL, NULL, FALSE,
                                                         flags);
  /**
   * FlSnapshot:holder-stopped:
   *
   * Whether the holder is stopped by a signal (fl_snapshot_get_holder_stopped()).
   *
   * Since: 0.1
   */
  properties[PROP_HOLDER_STOPPED] = g_param_spec_boolean ("holder-stopped", NULL, NULL, FALSE,
                                                          flags);
  /**
   * FlSnapshot:keeper-pid:
   *
   * The process that keeps an exited holder's kernel lock, or 0 (fl_snapshot_get_keeper_pid()).
   *
   * Since: 0.1
   */
  properties[PROP_KEEPER_PID] = g_param_spec_int ("keeper-pid", NULL, NULL, 0, G_MAXINT, 0,
                                                  flags);
  /**
   * FlSnapshot:keeper-name:
   *
   * That process's name, or %NULL (fl_snapshot_get_keeper_name()).
   *
   * Since: 0.1
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
