/* fl-directory-model.c: a live GListModel of the lock files in some directories
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <string.h>

#include "model/fl-directory-model-object-private.h"
#include "model/fl-directory-model-private.h"
#include "fl-enum-types.h"
#include "model/fl-model-follower-private.h"
#include "model/fl-model-monitor-private.h"
#include "model/fl-model-reader-private.h"
#include "model/fl-model-roots-private.h"
#include "model/fl-model-scanner-private.h"
#include "model/fl-model-store-private.h"
#include "model/fl-model-tally-private.h"
#include "model/fl-model-watch-private.h"
#include "protocol/fl-lock-backend-private.h"
#include "protocol/fl-snapshot-private.h"

/* How long one slice of queued events may hold the main loop: a frame at 60 Hz is 16 ms. */
#define FLUSH_SLICE_US 8000

/* How the model stays right without trusting any one source:
 * - A file event only names a path. The model re-reads that path (a fresh snapshot) before it
 *   reports anything, so duplicated, reordered or stale events cannot make it wrong.
 * - Events are coalesced (fl-model-monitor.c); GLib drops inotify's queue overflow silently, so
 *   every directory is also rescanned periodically in a worker thread (fl-model-scanner.c).
 * - A holder dying makes no file event: the model watches each live holder's pidfd, and the
 *   deadline of each unparsable lock (fl-model-watch.c).
 *
 * The parts, and who calls whom: an arrow is an #include and calls, always downwards. A part
 * serves one model and calls it back by name, through fl-model-owner-private.h (the model's
 * functions a part may call, under "What the parts tell the model" below), which needs only
 * the public type: no table of hooks, and no circle of headers. The one table, a root's
 * FlRootFollower, is an interface with two implementations that the root's backend picks.
 *
 *   fl-directory-model.c    the GObject: owns the parts, what they tell it, the public API
 *   fl-directory-model-reclaim.c  the same object's reclaim, one or many (its fields and
 *                             shared helpers: fl-directory-model-object-private.h)
 *   fl-model-followers.c    how a root is followed: a directory file by file, or a root read
 *                             whole. Each root's backend picks one (root_follower); the
 *                             scanner, the monitor and the reclaim call its slots
 *                             (fl-model-follower-private.h), never asking which it is
 *     -> fl-model-scanner.c   whole roots read off the main thread, merged on the main context
 *          -> fl-walk.c         the one directory walker (fl-scan.c's too), for a directory
 *          -> a backend's scan() for a root read whole
 *          -> fl-model-store.c
 *          -> fl-model-roots.c
 *     -> fl-model-monitor.c   a GFileMonitor per directory, the queue of paths, coalescing;
 *                             a backend's watch for a root read whole
 *          -> fl-model-store-private.h  (FL_MODEL_TAKEN_OVER only)
 *          -> fl-model-roots.c
 *     -> fl-model-store.c     the sorted entries, lookup, in-place updates, exact items-changed
 *          -> fl-entry.c        (fl-entry-private.h)
 *     -> fl-model-reader.c    one path judged again
 *     -> fl-model-reclaimer.c many confirmed snapshots reclaimed off the main thread
 *     -> fl-model-watch.c     what makes no file event: pidfds, deadlines of unparsable locks
 *     -> fl-model-tally.c     the counts behind n-held, n-stale, n-orphans, n-foreign,
 *                             n-unknown, n-active, n-free, n-leftovers
 *     -> fl-model-roots.c     the watched directories, which paths each covers
 *
 * Each part's header is its whole interface; only the object's files include them all. */

static void fl_directory_model_list_model_init (GListModelInterface *iface);

/**
 * FlDirectoryModel:
 *
 * A live #GListModel of #FlEntry: every lock, temp and graveyard file in the watched
 * directories (fl_directory_model_add_directory()), sorted by path, kept current by file
 * monitors, the holders' exits and periodic rescans. An entry whose file changes is updated
 * in place. It belongs to the thread-default main context it was created in; its signals and
 * notifications are emitted there.
 *
 * Since: 0.1
 */
G_DEFINE_FINAL_TYPE_WITH_CODE (FlDirectoryModel, fl_directory_model, G_TYPE_OBJECT,
                               G_IMPLEMENT_INTERFACE (G_TYPE_LIST_MODEL,
                                                      fl_directory_model_list_model_init))

enum
{
  PROP_0,
  PROP_LOADING,
  PROP_N_HELD,
  PROP_N_STALE,
  PROP_N_ORPHANS,
  PROP_N_FOREIGN,
  PROP_N_UNKNOWN,
  PROP_N_ACTIVE,
  PROP_N_FREE,
  PROP_N_LEFTOVERS,
  PROP_PROBLEMS,
  N_PROPS
};

enum
{
  ENTRY_CHANGED,
  N_SIGNALS
};

static GParamSpec *properties[N_PROPS];
static GParamSpec *count_properties[FL_MODEL_N_COUNTS];  /* by FlModelCount */
static guint signals[N_SIGNALS];

gint64
_fl_directory_model_now (FlDirectoryModel *self)
{
  return self->clock != NULL ? self->clock (self->clock_data) : g_get_real_time ();
}

void
_fl_directory_model_notify_counts (FlDirectoryModel *self)
{
  _fl_model_tally_notify (&self->tally, G_OBJECT (self), count_properties);
}

/* Reading one path again */

void
_fl_directory_model_refresh_path (FlDirectoryModel *self,
                                  FlModelReader    *reader,
                                  const char       *path,
                                  guint             flags,
                                  gint64            now_us)
{
  g_autoptr(FlSnapshot) snap = NULL;

  _fl_model_monitor_check_new_directory (&self->monitor, path);

  if (_fl_model_roots_covering (self->roots, NULL, path) == NULL)
    return;

  snap = _fl_model_reader_read (reader, path, self->options, now_us);
  _fl_model_scanner_touch (&self->scanner, path);
  _fl_model_store_apply (&self->store, path, snap, flags);
}

/* Reads the queued paths again and applies them. With @budget_us >= 0 it stops once that much
 * time is spent and queues the rest again, to be read when the main loop has drawn and answered
 * input (an idle of low priority). */
static void
flush_paths (FlDirectoryModel *self,
             gint64            budget_us)
{
  g_autoptr(GArray) pending = NULL;
  FlModelReader reader = FL_MODEL_READER_INIT;
  gint64 start = g_get_monotonic_time ();
  gint64 now_us;

  pending = _fl_model_monitor_take_pending (&self->monitor);
  if (pending == NULL)
    return;

  now_us = _fl_directory_model_now (self);
  g_object_freeze_notify (G_OBJECT (self));
  for (guint i = 0; i < pending->len; i++)
    {
      FlModelPending *p = &g_array_index (pending, FlModelPending, i);

      if (budget_us >= 0 && i > 0 && g_get_monotonic_time () - start > budget_us)
        {
          for (guint j = i; j < pending->len; j++)
            {
              FlModelPending *rest = &g_array_index (pending, FlModelPending, j);

              _fl_model_monitor_queue (&self->monitor, rest->path, rest->flags);
            }
          _fl_model_monitor_continue (&self->monitor);
          break;
        }
      _fl_directory_model_refresh_path (self, &reader, p->path, p->flags, now_us);
    }
  _fl_directory_model_notify_counts (self);
  g_object_thaw_notify (G_OBJECT (self));

  _fl_model_reader_clear (&reader);
  _fl_model_watch_schedule (&self->watch);
}

/* What the parts tell the model (fl-model-owner-private.h) */

void
_fl_directory_model_entry_accounted (FlDirectoryModel *self,
                                     FlEntry          *entry,
                                     FlSnapshot       *snap,
                                     int               sign)
{
  _fl_model_tally_add (&self->tally, snap, sign);
  _fl_model_watch_account (&self->watch, entry, snap, sign);
}

void
_fl_directory_model_entry_changed (FlDirectoryModel *self,
                                   FlEntry          *entry,
                                   FlChange          change)
{
  g_signal_emit (self, signals[ENTRY_CHANGED], 0, entry, change);
}

void
_fl_directory_model_queue_path (FlDirectoryModel *self,
                                const char       *path)
{
  _fl_model_monitor_queue (&self->monitor, path, 0);
}

void
_fl_directory_model_queue_pid (FlDirectoryModel *self,
                               int               pid)
{
  for (guint i = 0; i < _fl_model_store_get_n_entries (&self->store); i++)
    {
      FlSnapshot *snap = fl_entry_get_snapshot (_fl_model_store_get_entry (&self->store, i));

      if (fl_snapshot_get_pid (snap) != pid)
        continue;
      if (!_fl_snapshot_has_traits (snap, FL_SNAPSHOT_JUDGED_BY_BACKEND))
        _fl_model_monitor_queue (&self->monitor, fl_snapshot_get_path (snap), 0);
      /* An etcd holder of this machine exited: etcd says nothing until its lease ends, but
       * libfl can say now that the holder is gone (fl_snapshot_get_holder_exited()). Its
       * root is read again as a whole, as for a change its watch reports. */
      else if (_fl_snapshot_has_traits (snap, FL_SNAPSHOT_HOLDER_HERE))
        _fl_directory_model_rescan_root (self, _fl_model_roots_covering (self->roots, NULL,
                                                                         _fl_snapshot_get_key (snap)));
    }
}

/* What the coalescing timer, pidfds and deadlines call: a slice of the queue at a time, so a
 * burst of thousands of events never holds the main loop for more than about a frame. */
void
_fl_directory_model_flush_slice (FlDirectoryModel *self)
{
  flush_paths (self, FLUSH_SLICE_US);
}

void
_fl_directory_model_schedule_rescan (FlDirectoryModel *self,
                                     gint64            delay_ms)
{
  _fl_model_scanner_schedule (&self->scanner, delay_ms);
}

void
_fl_directory_model_rescan_root (FlDirectoryModel *self,
                                 FlModelRoot      *root)
{
  if (root != NULL && !root->removed)
    _fl_model_scanner_start (&self->scanner, root, FL_MODEL_SCAN_RESCAN, NULL);
}

void
_fl_directory_model_root_scanned (FlDirectoryModel *self,
                                  FlModelRoot      *root,
                                  GPtrArray        *dirs)
{
  _fl_model_monitor_sync (&self->monitor, root, dirs);
}

void
_fl_directory_model_merged (FlDirectoryModel *self)
{
  _fl_directory_model_notify_counts (self);
  _fl_model_watch_schedule (&self->watch);
}

void
_fl_directory_model_loading_changed (FlDirectoryModel *self)
{
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_LOADING]);
}

void
_fl_directory_model_initial_scan_failed (FlDirectoryModel *self,
                                         FlModelRoot      *root)
{
  g_autofree char *path = g_strdup (root->path);

  fl_directory_model_remove_directory (self, path);
}

void
_fl_directory_model_problems_changed (FlDirectoryModel *self)
{
  if (_fl_directory_model_problems_update (self))
    g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_PROBLEMS]);
}

/* GListModel */

static GType
fl_directory_model_get_item_type (GListModel *model)
{
  return FL_TYPE_ENTRY;
}

static guint
fl_directory_model_get_n_items (GListModel *model)
{
  return _fl_model_store_get_n_entries (&FL_DIRECTORY_MODEL (model)->store);
}

static gpointer
fl_directory_model_get_item (GListModel *model,
                             guint       position)
{
  FlDirectoryModel *self = FL_DIRECTORY_MODEL (model);

  if (position >= _fl_model_store_get_n_entries (&self->store))
    return NULL;
  return g_object_ref (_fl_model_store_get_entry (&self->store, position));
}

static void
fl_directory_model_list_model_init (GListModelInterface *iface)
{
  iface->get_item_type = fl_directory_model_get_item_type;
  iface->get_n_items = fl_directory_model_get_n_items;
  iface->get_item = fl_directory_model_get_item;
}

/* GObject */

static void
fl_directory_model_dispose (GObject *object)
{
  FlDirectoryModel *self = FL_DIRECTORY_MODEL (object);

  _fl_model_scanner_dispose (&self->scanner);
  g_clear_handle_id (&self->missing_poll_id, g_source_remove);
  _fl_model_monitor_dispose (&self->monitor);
  _fl_model_watch_dispose (&self->watch);

  while (self->roots->len > 0)
    {
      FlModelRoot *root = g_ptr_array_steal_index (self->roots, self->roots->len - 1);

      _fl_model_root_stop (root);
      _fl_model_root_unref (root);
    }

  _fl_model_store_clear (&self->store);

  if (self->clock_destroy != NULL)
    self->clock_destroy (self->clock_data);
  self->clock = NULL;
  self->clock_data = NULL;
  self->clock_destroy = NULL;

  G_OBJECT_CLASS (fl_directory_model_parent_class)->dispose (object);
}

static void
fl_directory_model_finalize (GObject *object)
{
  FlDirectoryModel *self = FL_DIRECTORY_MODEL (object);

  _fl_model_scanner_finalize (&self->scanner);
  g_free (self->problems_said);
  _fl_model_monitor_finalize (&self->monitor);
  _fl_model_watch_finalize (&self->watch);
  _fl_model_store_finalize (&self->store);
  g_clear_pointer (&self->roots, g_ptr_array_unref);
  g_clear_pointer (&self->options, fl_lock_options_free);

  G_OBJECT_CLASS (fl_directory_model_parent_class)->finalize (object);
}

static void
fl_directory_model_get_property (GObject    *object,
                                 guint       prop_id,
                                 GValue     *value,
                                 GParamSpec *pspec)
{
  FlDirectoryModel *self = FL_DIRECTORY_MODEL (object);

  switch (prop_id)
    {
    case PROP_LOADING:
      g_value_set_boolean (value, _fl_model_scanner_is_loading (&self->scanner));
      break;
    case PROP_N_HELD:
      g_value_set_uint (value, _fl_model_tally_get (&self->tally, FL_MODEL_COUNT_HELD));
      break;
    case PROP_N_STALE:
      g_value_set_uint (value, _fl_model_tally_get (&self->tally, FL_MODEL_COUNT_STALE));
      break;
    case PROP_N_ORPHANS:
      g_value_set_uint (value, _fl_model_tally_get (&self->tally, FL_MODEL_COUNT_ORPHANS));
      break;
    case PROP_N_FOREIGN:
      g_value_set_uint (value, _fl_model_tally_get (&self->tally, FL_MODEL_COUNT_FOREIGN));
      break;
    case PROP_N_UNKNOWN:
      g_value_set_uint (value, _fl_model_tally_get (&self->tally, FL_MODEL_COUNT_UNKNOWN));
      break;
    case PROP_N_ACTIVE:
      g_value_set_uint (value, _fl_model_tally_get (&self->tally, FL_MODEL_COUNT_ACTIVE));
      break;
    case PROP_N_FREE:
      g_value_set_uint (value, _fl_model_tally_get (&self->tally, FL_MODEL_COUNT_FREE));
      break;
    case PROP_N_LEFTOVERS:
      g_value_set_uint (value, _fl_model_tally_get (&self->tally, FL_MODEL_COUNT_LEFTOVERS));
      break;
    case PROP_PROBLEMS:
      g_value_take_boxed (value, fl_directory_model_dup_problems (self, NULL));
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
fl_directory_model_class_init (FlDirectoryModelClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  const GParamFlags flags = G_PARAM_READABLE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS;

  /* Scan threads make snapshots: the class is initialised here, once, not raced for by them.
   * A static type's class is never finalised, so the reference is not kept. */
  g_type_class_unref (g_type_class_ref (FL_TYPE_SNAPSHOT));

  object_class->dispose = fl_directory_model_dispose;
  object_class->finalize = fl_directory_model_finalize;
  object_class->get_property = fl_directory_model_get_property;

  /**
   * FlDirectoryModel:loading:
   *
   * %TRUE while a directory added with fl_directory_model_add_directory_async() is being read
   * for the first time.
   *
   * Since: 0.1
   */
  properties[PROP_LOADING] = g_param_spec_boolean ("loading", NULL, NULL, FALSE, flags);
  /**
   * FlDirectoryModel:n-held:
   *
   * The number of lock files whose state is %FL_ENTRY_STATE_HELD (fl_snapshot_get_state()):
   * a lock of unknown state is neither held nor stale, and in none of the counts.
   *
   * Since: 0.1
   */
  properties[PROP_N_HELD] = g_param_spec_uint ("n-held", NULL, NULL, 0, G_MAXUINT, 0, flags);
  /**
   * FlDirectoryModel:n-stale:
   *
   * The number of stale libfl lock files: a reclaim would succeed on each. Other programs'
   * stale lock files are #FlDirectoryModel:n-leftovers.
   *
   * Since: 0.1
   */
  properties[PROP_N_STALE] = g_param_spec_uint ("n-stale", NULL, NULL, 0, G_MAXUINT, 0, flags);
  /**
   * FlDirectoryModel:n-orphans:
   *
   * The number of temp and graveyard files whose creator is gone.
   *
   * Since: 0.1
   */
  properties[PROP_N_ORPHANS] = g_param_spec_uint ("n-orphans", NULL, NULL, 0, G_MAXUINT, 0,
                                                  flags);
  /**
   * FlDirectoryModel:n-foreign:
   *
   * The number of entries named like lock files that are not regular files.
   *
   * Since: 0.1
   */
  properties[PROP_N_FOREIGN] = g_param_spec_uint ("n-foreign", NULL, NULL, 0, G_MAXUINT, 0,
                                                  flags);
  /**
   * FlDirectoryModel:n-unknown:
   *
   * The number of entries libfl cannot judge either way (%FL_ENTRY_STATE_UNKNOWN: no PID yet,
   * a holder this host cannot see): neither held nor stale.
   *
   * Since: 0.1
   */
  properties[PROP_N_UNKNOWN] = g_param_spec_uint ("n-unknown", NULL, NULL, 0, G_MAXUINT, 0,
                                                  flags);
  /**
   * FlDirectoryModel:n-active:
   *
   * The number of entries in use that are not held locks (%FL_ENTRY_STATE_ACTIVE): temp and
   * graveyard files whose creator runs, etcd waiters.
   *
   * Since: 0.1
   */
  properties[PROP_N_ACTIVE] = g_param_spec_uint ("n-active", NULL, NULL, 0, G_MAXUINT, 0,
                                                 flags);
  /**
   * FlDirectoryModel:n-free:
   *
   * The number of other programs' lock files that nobody holds (%FL_ENTRY_STATE_FREE).
   *
   * Since: 0.1
   */
  properties[PROP_N_FREE] = g_param_spec_uint ("n-free", NULL, NULL, 0, G_MAXUINT, 0, flags);
  /**
   * FlDirectoryModel:n-leftovers:
   *
   * The number of other programs' lock files whose owner is gone (stale, but never libfl's
   * to reclaim: docs/other-lock-files.md). They are not in #FlDirectoryModel:n-stale. With
   * it, the counts cover every entry, each in one.
   *
   * Since: 0.1
   */
  properties[PROP_N_LEFTOVERS] = g_param_spec_uint ("n-leftovers", NULL, NULL, 0, G_MAXUINT, 0,
                                                    flags);
  /**
   * FlDirectoryModel:problems:
   *
   * What the model could not read (fl_directory_model_dup_problems() for all directories):
   * empty when its entries are complete.
   *
   * Since: 0.1
   */
  properties[PROP_PROBLEMS] = g_param_spec_boxed ("problems", NULL, NULL, G_TYPE_STRV, flags);
  g_object_class_install_properties (object_class, N_PROPS, properties);
  count_properties[FL_MODEL_COUNT_HELD] = properties[PROP_N_HELD];
  count_properties[FL_MODEL_COUNT_STALE] = properties[PROP_N_STALE];
  count_properties[FL_MODEL_COUNT_ORPHANS] = properties[PROP_N_ORPHANS];
  count_properties[FL_MODEL_COUNT_FOREIGN] = properties[PROP_N_FOREIGN];
  count_properties[FL_MODEL_COUNT_UNKNOWN] = properties[PROP_N_UNKNOWN];
  count_properties[FL_MODEL_COUNT_ACTIVE] = properties[PROP_N_ACTIVE];
  count_properties[FL_MODEL_COUNT_FREE] = properties[PROP_N_FREE];
  count_properties[FL_MODEL_COUNT_LEFTOVERS] = properties[PROP_N_LEFTOVERS];

  /**
   * FlDirectoryModel::entry-changed:
   * @self: the model
   * @entry: the entry; for %FL_CHANGE_RELEASED and %FL_CHANGE_TAKEN_OVER it holds the last
   *   snapshot seen and may already be out of the model
   * @change: what happened
   *
   * Emitted after the model reflects the change (items-changed came first). Not emitted for the
   * entries found by a directory's first scan (they are not news), nor for what the caller did
   * itself through fl_directory_model_reclaim(). When another file replaces an entry's file,
   * the entry is updated in place and the signal is emitted twice: %FL_CHANGE_RELEASED (or
   * %FL_CHANGE_TAKEN_OVER) while the entry still holds the old snapshot, then
   * %FL_CHANGE_CREATED.
   *
   * A lock file the system says was made and removed before the model could read it (a lock
   * held for a few milliseconds) is reported all the same, %FL_CHANGE_CREATED then
   * %FL_CHANGE_RELEASED, once for each time it was made, with an entry that is never in the
   * model: its snapshot knows only the name (liveness and kernel lock unknown).
   *
   * Since: 0.1
   */
  signals[ENTRY_CHANGED] = g_signal_new ("entry-changed", G_TYPE_FROM_CLASS (klass),
                                         G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL,
                                         G_TYPE_NONE, 2, FL_TYPE_ENTRY, FL_TYPE_CHANGE);
}

static void
fl_directory_model_init (FlDirectoryModel *self)
{
  self->roots = g_ptr_array_new ();
  _fl_model_store_init (&self->store, self);
  _fl_model_watch_init (&self->watch, self);
  _fl_model_monitor_init (&self->monitor, self->roots, self);
  _fl_model_scanner_init (&self->scanner, &self->store, self->roots, self);
}

/* Public API */

/**
 * fl_directory_model_new:
 * @options: (nullable): how to judge the files (stale_after), %NULL for the defaults
 *
 * Creates an empty model. Add directories with fl_directory_model_add_directory(). The model
 * lives in the global default main context: its file events, pidfd wake-ups, coalescing and
 * periodic rescans are dispatched there, so create and use it in the thread that runs that
 * context (normally the main thread), with no other context pushed as thread-default.
 *
 * Returns: (transfer full): a new model
 *
 * Since: 0.1
 */
FlDirectoryModel *
fl_directory_model_new (const FlLockOptions *options)
{
  FlDirectoryModel *self = g_object_new (FL_TYPE_DIRECTORY_MODEL, NULL);

  self->options = options != NULL ? fl_lock_options_copy (options) : fl_lock_options_new ();
  self->scanner.options = self->options;
  self->monitor.options = self->options;
  return self;
}

/* Registers the root and its monitor before any scan, so no event after the scan can be lost.
 * Returns NULL with @error set, or the root (already present: *@existing is set). */
static FlModelRoot *
register_root (FlDirectoryModel *self,
               const char       *directory,
               gboolean          recursive,
               gboolean         *existing,
               GError          **error)
{
  const FlLockBackend *backend = _fl_lock_backend_for (directory);
  g_autofree char *path = backend->root_path (directory);
  FlModelRoot *root = _fl_model_roots_find (self->roots, path);

  /* As the root's follower has it: a root read whole is whole however it is asked for. */
  recursive = backend->root_follower ()->recursive (recursive);
  *existing = FALSE;
  if (root != NULL && root->recursive == recursive)
    {
      *existing = TRUE;
      return root;
    }

  if (!backend->root_check (path, self->options, error))
    return NULL;

  if (root != NULL)
    fl_directory_model_remove_directory (self, path);

  root = _fl_model_root_new (g_steal_pointer (&path), recursive, backend);
  g_ptr_array_add (self->roots, root);
  _fl_model_monitor_watch (&self->monitor, root, root->path);
  return root;
}

/**
 * fl_directory_model_add_directory:
 * @self: a model
 * @directory: the directory to watch
 * @recursive: also watch every directory below it (symbolic links are not followed)
 * @error: where to report a directory that cannot be read
 *
 * Reads the directory and keeps watching it. Blocks while it reads: with very large directories
 * in an interactive program, use fl_directory_model_add_directory_async(). Adding a directory
 * that is already watched does nothing.
 *
 * Returns: %TRUE when the directory's entries are in the model
 *
 * Since: 0.1
 */
gboolean
fl_directory_model_add_directory (FlDirectoryModel  *self,
                                  const char        *directory,
                                  gboolean           recursive,
                                  GError           **error)
{
  FlModelRoot *root;
  gboolean existing;
  gboolean ok;

  g_return_val_if_fail (FL_IS_DIRECTORY_MODEL (self), FALSE);
  g_return_val_if_fail (directory != NULL, FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

  root = register_root (self, directory, !!recursive, &existing, error);
  if (root == NULL)
    return FALSE;
  if (existing)
    return TRUE;

  ok = _fl_model_scanner_run (&self->scanner, root, FL_MODEL_SCAN_INITIAL, error);
  if (ok)
    _fl_model_scanner_schedule (&self->scanner, self->scanner.interval_ms);
  return ok;
}

/**
 * fl_directory_model_add_directory_async:
 * @self: a model
 * @directory: the directory to watch
 * @recursive: also watch every directory below it
 * @cancellable: (nullable): a #GCancellable
 * @callback: called when the directory's entries are in the model
 * @user_data: data for @callback
 *
 * Like fl_directory_model_add_directory(), but reads the directory in a worker thread:
 * #FlDirectoryModel:loading is %TRUE meanwhile. File events are followed from the start.
 *
 * Since: 0.1
 */
void
fl_directory_model_add_directory_async (FlDirectoryModel    *self,
                                        const char          *directory,
                                        gboolean             recursive,
                                        GCancellable        *cancellable,
                                        GAsyncReadyCallback  callback,
                                        gpointer             user_data)
{
  g_autoptr(GTask) task = NULL;
  g_autoptr(GError) error = NULL;
  gboolean existing;
  FlModelRoot *root;

  g_return_if_fail (FL_IS_DIRECTORY_MODEL (self));
  g_return_if_fail (directory != NULL);

  task = g_task_new (self, cancellable, callback, user_data);
  g_task_set_source_tag (task, fl_directory_model_add_directory_async);

  root = register_root (self, directory, !!recursive, &existing, &error);
  if (root == NULL)
    g_task_return_error (task, g_steal_pointer (&error));
  else if (existing)
    g_task_return_boolean (task, TRUE);
  else
    _fl_model_scanner_start (&self->scanner, root, FL_MODEL_SCAN_INITIAL, task);
}

/**
 * fl_directory_model_add_directory_finish:
 * @self: a model
 * @result: the result given to the callback
 * @error: where to report a directory that cannot be read
 *
 * Finishes fl_directory_model_add_directory_async().
 *
 * Returns: %TRUE when the directory's entries are in the model
 *
 * Since: 0.1
 */
gboolean
fl_directory_model_add_directory_finish (FlDirectoryModel  *self,
                                         GAsyncResult      *result,
                                         GError           **error)
{
  g_return_val_if_fail (FL_IS_DIRECTORY_MODEL (self), FALSE);
  g_return_val_if_fail (g_task_is_valid (result, self), FALSE);

  return g_task_propagate_boolean (G_TASK (result), error);
}

/**
 * fl_directory_model_remove_directory:
 * @self: a model
 * @directory: a directory given to fl_directory_model_add_directory()
 *
 * Stops watching @directory and removes its entries (those that no other watched directory
 * covers). No #FlDirectoryModel::entry-changed is emitted for them.
 *
 * Returns: %TRUE if the directory was watched
 *
 * Since: 0.1
 */
gboolean
fl_directory_model_remove_directory (FlDirectoryModel *self,
                                     const char       *directory)
{
  g_autofree char *path = NULL;
  FlModelRoot *root;

  g_return_val_if_fail (FL_IS_DIRECTORY_MODEL (self), FALSE);
  g_return_val_if_fail (directory != NULL, FALSE);

  path = _fl_model_root_path_for (directory);
  root = _fl_model_roots_find (self->roots, path);
  if (root == NULL)
    return FALSE;

  g_ptr_array_remove (self->roots, root);
  _fl_model_root_stop (root);
  _fl_model_scanner_forget (&self->scanner, root);
  _fl_model_root_unref (root);
  _fl_directory_model_problems_changed (self);
  return TRUE;
}

/**
 * fl_directory_model_dup_directories:
 * @self: a model
 *
 * The directories the model watches, in the order they were added.
 *
 * Returns: (transfer full) (array zero-terminated=1): the watched directories, canonical
 *
 * Since: 0.1
 */
char **
fl_directory_model_dup_directories (FlDirectoryModel *self)
{
  GStrvBuilder *builder;
  char **result;

  g_return_val_if_fail (FL_IS_DIRECTORY_MODEL (self), NULL);

  builder = g_strv_builder_new ();
  for (guint i = 0; i < self->roots->len; i++)
    g_strv_builder_add (builder, ((FlModelRoot *) self->roots->pdata[i])->path);
  result = g_strv_builder_end (builder);
  g_strv_builder_unref (builder);
  return result;
}

/**
 * fl_directory_model_set_clock:
 * @self: a model
 * @clock: (nullable): the clock, %NULL for g_get_real_time()
 * @user_data: data for @clock
 * @destroy: (nullable): frees @user_data
 *
 * Replaces the clock that the model uses for ages and for the moment an unparsable lock becomes
 * stale. Tests set a fixed clock to make ages exact.
 *
 * Since: 0.1
 */
void
fl_directory_model_set_clock (FlDirectoryModel *self,
                              FlClockFunc       clock,
                              gpointer          user_data,
                              GDestroyNotify    destroy)
{
  g_return_if_fail (FL_IS_DIRECTORY_MODEL (self));

  if (self->clock_destroy != NULL)
    self->clock_destroy (self->clock_data);
  self->clock = clock;
  self->clock_data = user_data;
  self->clock_destroy = destroy;
  _fl_model_watch_schedule (&self->watch);
}

/**
 * fl_directory_model_get_now:
 * @self: a model
 *
 * An entry's age is `fl_snapshot_get_age_at (fl_entry_get_snapshot (entry),
 * fl_directory_model_get_now (model))`.
 *
 * Returns: the model's clock, in microseconds of real time
 *
 * Since: 0.1
 */
gint64
fl_directory_model_get_now (FlDirectoryModel *self)
{
  g_return_val_if_fail (FL_IS_DIRECTORY_MODEL (self), 0);

  return _fl_directory_model_now (self);
}

/**
 * fl_directory_model_rescan:
 * @self: a model
 *
 * Applies the pending file events, then reads every watched directory again and applies the
 * differences, blocking until done. The model does this by itself periodically, in a worker
 * thread; this is for callers who know something changed that no event reports.
 *
 * Since: 0.1
 */
void
fl_directory_model_rescan (FlDirectoryModel *self)
{
  g_autoptr(GPtrArray) roots = NULL;

  g_return_if_fail (FL_IS_DIRECTORY_MODEL (self));

  _fl_directory_model_flush (self);

  roots = g_ptr_array_new_with_free_func ((GDestroyNotify) _fl_model_root_unref);
  for (guint i = 0; i < self->roots->len; i++)
    g_ptr_array_add (roots, _fl_model_root_ref (self->roots->pdata[i]));

  for (guint i = 0; i < roots->len; i++)
    _fl_model_scanner_run (&self->scanner, roots->pdata[i], FL_MODEL_SCAN_RESCAN, NULL);
}

/**
 * fl_directory_model_lookup:
 * @self: a model
 * @path: the path of a file
 *
 * The entry of one file, found without a walk over the list.
 *
 * Returns: (transfer none) (nullable): the entry for @path, or %NULL
 *
 * Since: 0.1
 */
FlEntry *
fl_directory_model_lookup (FlDirectoryModel *self,
                           const char       *path)
{
  g_autofree char *canonical = NULL;
  guint pos;

  g_return_val_if_fail (FL_IS_DIRECTORY_MODEL (self), NULL);
  g_return_val_if_fail (path != NULL, NULL);

  canonical = _fl_model_root_path_for (path);
  return _fl_model_store_find (&self->store, canonical, &pos)
         ? _fl_model_store_get_entry (&self->store, pos) : NULL;
}

/**
 * fl_directory_model_dup_related:
 * @self: a model
 * @entry: an entry of @self
 *
 * The lock, temp and graveyard files of the same target as @entry, @entry excepted, in path
 * order. They are neighbours in the model, so this costs O(log n + related).
 *
 * Returns: (transfer full) (element-type FlEntry): the related entries
 *
 * Since: 0.1
 */
GPtrArray *
fl_directory_model_dup_related (FlDirectoryModel *self,
                                FlEntry          *entry)
{
  GPtrArray *related;
  FlSnapshot *snap;
  g_autofree char *dir = NULL;
  g_autofree char *base = NULL;
  g_autofree char *lock_path = NULL;
  guint pos;

  g_return_val_if_fail (FL_IS_DIRECTORY_MODEL (self), NULL);
  g_return_val_if_fail (FL_IS_ENTRY (entry), NULL);

  related = g_ptr_array_new_with_free_func (g_object_unref);
  snap = fl_entry_get_snapshot (entry);
  /* A lock whose waiters are in its snapshot (etcd's) has no temp or graveyard files. */
  if (fl_snapshot_get_target (snap) == NULL
      || _fl_snapshot_has_traits (snap, FL_SNAPSHOT_WAITERS_INSIDE))
    return related;

  dir = g_path_get_dirname (fl_snapshot_get_path (snap));
  base = g_path_get_basename (fl_snapshot_get_target (snap));
  lock_path = g_strconcat (dir, G_DIR_SEPARATOR_S, base, ".lock", NULL);

  _fl_model_store_find (&self->store, lock_path, &pos);
  for (guint i = pos; i < _fl_model_store_get_n_entries (&self->store); i++)
    {
      FlEntry *other = _fl_model_store_get_entry (&self->store, i);
      FlSnapshot *other_snap = fl_entry_get_snapshot (other);
      g_autofree char *other_base = NULL;

      if (!g_str_has_prefix (fl_entry_get_path (other), lock_path))
        break;
      if (other == entry || fl_snapshot_get_target (other_snap) == NULL)
        continue;
      other_base = g_path_get_basename (fl_snapshot_get_target (other_snap));
      if (g_str_equal (other_base, base))
        g_ptr_array_add (related, g_object_ref (other));
    }
  return related;
}

/* Test entry points */

void
_fl_directory_model_set_monitoring (FlDirectoryModel *self,
                                    gboolean          monitoring)
{
  g_return_if_fail (FL_IS_DIRECTORY_MODEL (self));
  g_return_if_fail (self->roots->len == 0);

  self->monitor.enabled = !!monitoring;
  self->scanner.periodic = !!monitoring;
}

void
_fl_directory_model_set_periodic (FlDirectoryModel *self,
                                  gboolean          periodic)
{
  g_return_if_fail (FL_IS_DIRECTORY_MODEL (self));
  g_return_if_fail (self->roots->len == 0);

  self->scanner.periodic = !!periodic;
}

void
_fl_directory_model_apply_event (FlDirectoryModel  *self,
                                 GFileMonitorEvent  event,
                                 const char        *path,
                                 const char        *other_path)
{
  g_return_if_fail (FL_IS_DIRECTORY_MODEL (self));
  g_return_if_fail (path != NULL);

  _fl_model_monitor_apply_event (&self->monitor, event, path, other_path);
}

void
_fl_directory_model_flush (FlDirectoryModel *self)
{
  g_return_if_fail (FL_IS_DIRECTORY_MODEL (self));

  flush_paths (self, -1);
}

gint64
_fl_directory_model_get_next_deadline (FlDirectoryModel *self)
{
  g_return_val_if_fail (FL_IS_DIRECTORY_MODEL (self), G_MAXINT64);

  return _fl_model_watch_get_next_deadline (&self->watch);
}

guint
_fl_directory_model_get_n_pid_watches (FlDirectoryModel *self)
{
  g_return_val_if_fail (FL_IS_DIRECTORY_MODEL (self), 0);

  return _fl_model_watch_get_n_pid_watches (&self->watch);
}

gboolean
_fl_directory_model_has_pending (FlDirectoryModel *self)
{
  g_return_val_if_fail (FL_IS_DIRECTORY_MODEL (self), FALSE);

  return _fl_model_monitor_has_pending (&self->monitor);
}
