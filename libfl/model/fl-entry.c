/* fl-entry.c: one row of FlDirectoryModel, the current snapshot of one file
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <string.h>

#include "fl-entry-private.h"
#include "fl-enum-types.h"

/**
 * FlEntry:
 *
 * One row of #FlDirectoryModel: the current #FlSnapshot of one lock, temp or graveyard file.
 * When the file changes the entry stays and its snapshot is replaced, notifying only the
 * properties whose values changed, so a list row bound to them refreshes in place. Its
 * properties are those of its snapshot.
 */

/* An entry is mutable on purpose: when its file changes, the model swaps the snapshot and
 * notifies only the properties that changed, so a list row bound to the entry refreshes itself
 * and keeps its place, its selection and its focus. Every property is read from the snapshot:
 * an entry costs one pointer beyond its GObject header, which matters at 100,000 rows. */
struct _FlEntry
{
  GObject     parent_instance;
  FlSnapshot *snapshot;
};

G_DEFINE_FINAL_TYPE (FlEntry, fl_entry, G_TYPE_OBJECT)

enum
{
  PROP_0,
  PROP_PATH,
  PROP_NAME,
  PROP_TARGET,
  PROP_KIND,
  PROP_PID,
  PROP_PROCESS_NAME,
  PROP_LIVENESS,
  PROP_KERNEL_LOCK,
  PROP_STALE,
  PROP_REASON,
  PROP_MTIME,
  PROP_SNAPSHOT,
  N_PROPS
};

static GParamSpec *properties[N_PROPS];

static void
fl_entry_finalize (GObject *object)
{
  FlEntry *self = (FlEntry *) object;

  g_clear_object (&self->snapshot);

  G_OBJECT_CLASS (fl_entry_parent_class)->finalize (object);
}

static void
fl_entry_get_property (GObject    *object,
                       guint       prop_id,
                       GValue     *value,
                       GParamSpec *pspec)
{
  FlEntry *self = FL_ENTRY (object);
  FlSnapshot *snap = self->snapshot;

  switch (prop_id)
    {
    case PROP_PATH:
      g_value_set_string (value, fl_snapshot_get_path (snap));
      break;
    case PROP_NAME:
      g_value_set_string (value, fl_snapshot_get_name (snap));
      break;
    case PROP_TARGET:
      g_value_set_string (value, fl_snapshot_get_target (snap));
      break;
    case PROP_KIND:
      g_value_set_enum (value, fl_snapshot_get_kind (snap));
      break;
    case PROP_PID:
      g_value_set_int (value, fl_snapshot_get_pid (snap));
      break;
    case PROP_PROCESS_NAME:
      g_value_set_string (value, fl_snapshot_get_process_name (snap));
      break;
    case PROP_LIVENESS:
      g_value_set_enum (value, fl_snapshot_get_liveness (snap));
      break;
    case PROP_KERNEL_LOCK:
      g_value_set_enum (value, fl_snapshot_get_kernel_lock (snap));
      break;
    case PROP_STALE:
      g_value_set_boolean (value, fl_snapshot_get_stale (snap));
      break;
    case PROP_REASON:
      g_value_set_string (value, fl_snapshot_get_reason (snap));
      break;
    case PROP_MTIME:
      g_value_set_int64 (value, fl_snapshot_get_mtime (snap));
      break;
    case PROP_SNAPSHOT:
      g_value_set_object (value, snap);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
fl_entry_class_init (FlEntryClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  const GParamFlags flags = G_PARAM_READABLE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS;

  object_class->finalize = fl_entry_finalize;
  object_class->get_property = fl_entry_get_property;

  /**
   * FlEntry:path:
   *
   * The file's full path. It never changes for one entry: a file at another path is another
   * entry.
   */
  properties[PROP_PATH] = g_param_spec_string ("path", NULL, NULL, NULL, flags);
  /**
   * FlEntry:name:
   *
   * The file's name (#FlSnapshot:name).
   */
  properties[PROP_NAME] = g_param_spec_string ("name", NULL, NULL, NULL, flags);
  /**
   * FlEntry:target:
   *
   * The file the lock protects (#FlSnapshot:target).
   */
  properties[PROP_TARGET] = g_param_spec_string ("target", NULL, NULL, NULL, flags);
  /**
   * FlEntry:kind:
   *
   * What the file is (#FlSnapshot:kind).
   */
  properties[PROP_KIND] = g_param_spec_enum ("kind", NULL, NULL, FL_TYPE_ENTRY_KIND,
                                             FL_ENTRY_LOCK, flags);
  /**
   * FlEntry:pid:
   *
   * The PID the file names, or 0 (#FlSnapshot:pid).
   */
  properties[PROP_PID] = g_param_spec_int ("pid", NULL, NULL, G_MININT, G_MAXINT, 0, flags);
  /**
   * FlEntry:process-name:
   *
   * The name of the process with that PID, or %NULL (#FlSnapshot:process-name).
   */
  properties[PROP_PROCESS_NAME] = g_param_spec_string ("process-name", NULL, NULL, NULL, flags);
  /**
   * FlEntry:liveness:
   *
   * Whether the process the file names runs (#FlSnapshot:liveness).
   */
  properties[PROP_LIVENESS] = g_param_spec_enum ("liveness", NULL, NULL, FL_TYPE_LIVENESS,
                                                 FL_LIVENESS_UNKNOWN, flags);
  /**
   * FlEntry:kernel-lock:
   *
   * Whether a process holds the file's kernel lock (#FlSnapshot:kernel-lock).
   */
  properties[PROP_KERNEL_LOCK] = g_param_spec_enum ("kernel-lock", NULL, NULL,
                                                    FL_TYPE_KERNEL_LOCK,
                                                    FL_KERNEL_LOCK_UNKNOWN, flags);
  /**
   * FlEntry:stale:
   *
   * Whether the file is stale (#FlSnapshot:stale).
   */
  properties[PROP_STALE] = g_param_spec_boolean ("stale", NULL, NULL, FALSE, flags);
  /**
   * FlEntry:reason:
   *
   * Why the verdict is what it is (#FlSnapshot:reason).
   */
  properties[PROP_REASON] = g_param_spec_string ("reason", NULL, NULL, NULL, flags);
  /**
   * FlEntry:mtime:
   *
   * The file's modification time in microseconds since the epoch (#FlSnapshot:mtime).
   */
  properties[PROP_MTIME] = g_param_spec_int64 ("mtime", NULL, NULL, G_MININT64, G_MAXINT64, 0,
                                               flags);
  /**
   * FlEntry:snapshot:
   *
   * The current immutable snapshot of the file. It is replaced, never modified, when the file
   * changes; hold a reference (fl_entry_dup_snapshot()) to keep the one a person has seen, for
   * example to pass it to a reclaim.
   */
  properties[PROP_SNAPSHOT] = g_param_spec_object ("snapshot", NULL, NULL, FL_TYPE_SNAPSHOT,
                                                   flags);

  g_object_class_install_properties (object_class, N_PROPS, properties);
}

static void
fl_entry_init (FlEntry *self)
{
}

FlEntry *
_fl_entry_new (FlSnapshot *snapshot)
{
  FlEntry *self;

  g_assert (FL_IS_SNAPSHOT (snapshot));

  self = g_object_new (FL_TYPE_ENTRY, NULL);
  self->snapshot = g_object_ref (snapshot);

  return self;
}

static gboolean
str_differ (const char *a,
            const char *b)
{
  return g_strcmp0 (a, b) != 0;
}

/* Swaps in @snapshot and notifies each property whose value differs, "snapshot" always. */
void
_fl_entry_set_snapshot (FlEntry    *self,
                        FlSnapshot *snapshot)
{
  g_autoptr(FlSnapshot) old = NULL;

  g_assert (FL_IS_ENTRY (self));
  g_assert (FL_IS_SNAPSHOT (snapshot));

  if (snapshot == self->snapshot)
    return;

  old = g_steal_pointer (&self->snapshot);
  self->snapshot = g_object_ref (snapshot);

  g_object_freeze_notify (G_OBJECT (self));

  if (str_differ (fl_snapshot_get_target (old), fl_snapshot_get_target (snapshot)))
    g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_TARGET]);
  if (fl_snapshot_get_kind (old) != fl_snapshot_get_kind (snapshot))
    g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_KIND]);
  if (fl_snapshot_get_pid (old) != fl_snapshot_get_pid (snapshot))
    g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_PID]);
  if (str_differ (fl_snapshot_get_process_name (old), fl_snapshot_get_process_name (snapshot)))
    g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_PROCESS_NAME]);
  if (fl_snapshot_get_liveness (old) != fl_snapshot_get_liveness (snapshot))
    g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_LIVENESS]);
  if (fl_snapshot_get_kernel_lock (old) != fl_snapshot_get_kernel_lock (snapshot))
    g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_KERNEL_LOCK]);
  if (fl_snapshot_get_stale (old) != fl_snapshot_get_stale (snapshot))
    g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_STALE]);
  if (str_differ (fl_snapshot_get_reason (old), fl_snapshot_get_reason (snapshot)))
    g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_REASON]);
  if (fl_snapshot_get_mtime (old) != fl_snapshot_get_mtime (snapshot))
    g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_MTIME]);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_SNAPSHOT]);

  g_object_thaw_notify (G_OBJECT (self));
}

/**
 * fl_entry_get_path:
 * @self: an entry
 *
 * The path of the file the entry shows; it never changes for one entry.
 *
 * Returns: (transfer none): the path of the entry's file
 */
const char *
fl_entry_get_path (FlEntry *self)
{
  g_return_val_if_fail (FL_IS_ENTRY (self), NULL);

  return fl_snapshot_get_path (self->snapshot);
}

/**
 * fl_entry_get_snapshot:
 * @self: an entry
 *
 * The snapshot is replaced when the file changes, which drops this reference: a caller that
 * keeps it past the next return to the main loop uses fl_entry_dup_snapshot().
 *
 * Returns: (transfer none): the entry's current snapshot
 */
FlSnapshot *
fl_entry_get_snapshot (FlEntry *self)
{
  g_return_val_if_fail (FL_IS_ENTRY (self), NULL);

  return self->snapshot;
}

/**
 * fl_entry_dup_snapshot:
 * @self: an entry
 *
 * The entry's current snapshot, kept: a later change of the file does not drop it.
 *
 * Returns: (transfer full): a new reference to the entry's current snapshot
 */
FlSnapshot *
fl_entry_dup_snapshot (FlEntry *self)
{
  g_return_val_if_fail (FL_IS_ENTRY (self), NULL);

  return g_object_ref (self->snapshot);
}
