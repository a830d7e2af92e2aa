/* fl-entry.c: one row of FlDirectoryModel, the current snapshot of one file
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include "model/fl-entry-private.h"

/**
 * FlEntry:
 *
 * One row of #FlDirectoryModel: the current #FlSnapshot of one lock, temp or graveyard file.
 * When the file changes the entry stays and its #FlEntry:snapshot is replaced, so a list row
 * bound to it refreshes in place. What the file holds is read from the snapshot: bind
 * `snapshot` and look its properties up (a GtkExpression `snapshot` then `pid`).
 *
 * Since: 0.1
 */

/* An entry is mutable on purpose: when its file changes, the model swaps the snapshot, so a
 * list row bound to the entry refreshes itself and keeps its place, its selection and its
 * focus. It carries no copies of the snapshot's properties: a row binds the snapshot, and one
 * notification a change is what the inspector, the only list of them, needs (issue 31). An
 * entry costs one pointer beyond its GObject header, which matters at 100,000 rows. */
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

  switch (prop_id)
    {
    case PROP_PATH:
      g_value_set_string (value, fl_snapshot_get_path (self->snapshot));
      break;
    case PROP_SNAPSHOT:
      g_value_set_object (value, self->snapshot);
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
   *
   * Since: 0.1
   */
  properties[PROP_PATH] = g_param_spec_string ("path", NULL, NULL, NULL, flags);
  /**
   * FlEntry:snapshot:
   *
   * The current immutable snapshot of the file. It is replaced, never modified, when the file
   * changes, and notifies then; hold a reference (fl_entry_dup_snapshot()) to keep the one a
   * person has seen, for example to pass it to a reclaim.
   *
   * Since: 0.1
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

/* Swaps in @snapshot (of the same path) and notifies "snapshot". */
void
_fl_entry_set_snapshot (FlEntry    *self,
                        FlSnapshot *snapshot)
{
  g_assert (FL_IS_ENTRY (self));
  g_assert (FL_IS_SNAPSHOT (snapshot));

  if (snapshot == self->snapshot)
    return;

  g_set_object (&self->snapshot, snapshot);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_SNAPSHOT]);
}

/**
 * fl_entry_get_path:
 * @self: an entry
 *
 * The path of the file the entry shows; it never changes for one entry.
 *
 * Returns: (transfer none): the path of the entry's file
 *
 * Since: 0.1
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
 *
 * Since: 0.1
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
 *
 * Since: 0.1
 */
FlSnapshot *
fl_entry_dup_snapshot (FlEntry *self)
{
  g_return_val_if_fail (FL_IS_ENTRY (self), NULL);

  return g_object_ref (self->snapshot);
}
