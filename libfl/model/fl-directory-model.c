/* fl-directory-model.c: a live GListModel of the lock files in some directories
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <errno.h>
#include <string.h>

#include <glib/gi18n-lib.h>

#include "fl-directory-model-private.h"
#include "fl-enum-types.h"
#include "fl-error.h"
#include "fl-names-private.h"
#include "fl-snapshot-private.h"

/* How the model stays right without trusting any one source:
 * - A file event only names a path. The model re-reads that path (a fresh snapshot) before it
 *   reports anything, so duplicated, reordered or stale events cannot make it wrong.
 * - The first event after a quiet spell is read at once; a burst is read at most every
 *   COALESCE_MS, each path once; past BURST_LIMIT paths a rescan is cheaper.
 * - GLib drops inotify's queue overflow silently, so every directory is rescanned periodically,
 *   in a worker thread, at an interval that grows with the cost of a scan.
 * - A holder dying makes no file event: the model watches each live holder's pidfd.
 * The entries are a GPtrArray sorted by path (strcmp): O(log n) lookup, O(1) get_item. */

static void fl_directory_model_list_model_init (GListModelInterface *iface);

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
  N_PROPS
};

enum
{
  ENTRY_CHANGED,
  N_SIGNALS
};

static GParamSpec *properties[N_PROPS];
static guint signals[N_SIGNALS];

void
_fl_model_notify_counts (FlDirectoryModel *self)
{
  static const guint props[] = {
    [COUNT_HELD] = PROP_N_HELD,
    [COUNT_STALE] = PROP_N_STALE,
    [COUNT_ORPHANS] = PROP_N_ORPHANS,
    [COUNT_FOREIGN] = PROP_N_FOREIGN,
  };

  for (guint i = 0; i < COUNT_OTHER; i++)
    if (self->counts[i] != self->notified[i])
      {
        self->notified[i] = self->counts[i];
        g_object_notify_by_pspec (G_OBJECT (self), properties[props[i]]);
      }
}

void
_fl_model_notify_loading (FlDirectoryModel *self)
{
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_LOADING]);
}

void
_fl_model_emit_change (FlDirectoryModel *self,
                       FlEntry          *entry,
                       FlChange          change)
{
  if (self->quiet == 0)
    g_signal_emit (self, signals[ENTRY_CHANGED], 0, entry, change);
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
  return FL_DIRECTORY_MODEL (model)->entries->len;
}

static gpointer
fl_directory_model_get_item (GListModel *model,
                             guint       position)
{
  FlDirectoryModel *self = FL_DIRECTORY_MODEL (model);

  if (position >= self->entries->len)
    return NULL;
  return g_object_ref (self->entries->pdata[position]);
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

  g_cancellable_cancel (self->cancellable);
  g_clear_handle_id (&self->flush_id, g_source_remove);
  g_clear_handle_id (&self->rescan_id, g_source_remove);
  g_clear_handle_id (&self->deadline_id, g_source_remove);
  g_hash_table_remove_all (self->pid_watches);
  g_hash_table_remove_all (self->deadlines);

  while (self->roots->len > 0)
    {
      Root *root = g_ptr_array_steal_index (self->roots, self->roots->len - 1);

      root->removed = TRUE;
      g_hash_table_remove_all (root->monitors);
      _fl_model_root_unref (root);
    }

  for (guint i = 0; i < self->entries->len; i++)
    g_object_unref (self->entries->pdata[i]);
  g_ptr_array_set_size (self->entries, 0);

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

  g_clear_pointer (&self->options, fl_lock_options_free);
  g_clear_pointer (&self->entries, g_ptr_array_unref);
  g_clear_pointer (&self->roots, g_ptr_array_unref);
  g_clear_pointer (&self->pending, g_hash_table_unref);
  g_clear_pointer (&self->touched, g_hash_table_unref);
  g_clear_pointer (&self->pid_watches, g_hash_table_unref);
  g_clear_pointer (&self->deadlines, g_hash_table_unref);
  g_clear_object (&self->cancellable);

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
      g_value_set_boolean (value, self->n_initial_in_flight > 0);
      break;
    case PROP_N_HELD:
      g_value_set_uint (value, self->counts[COUNT_HELD]);
      break;
    case PROP_N_STALE:
      g_value_set_uint (value, self->counts[COUNT_STALE]);
      break;
    case PROP_N_ORPHANS:
      g_value_set_uint (value, self->counts[COUNT_ORPHANS]);
      break;
    case PROP_N_FOREIGN:
      g_value_set_uint (value, self->counts[COUNT_FOREIGN]);
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
   */
  properties[PROP_LOADING] = g_param_spec_boolean ("loading", NULL, NULL, FALSE, flags);
  /**
   * FlDirectoryModel:n-held:
   *
   * The number of lock files that are not stale (alive, or unknown and not yet stale).
   */
  properties[PROP_N_HELD] = g_param_spec_uint ("n-held", NULL, NULL, 0, G_MAXUINT, 0, flags);
  /**
   * FlDirectoryModel:n-stale:
   *
   * The number of stale lock files: a reclaim would succeed on each.
   */
  properties[PROP_N_STALE] = g_param_spec_uint ("n-stale", NULL, NULL, 0, G_MAXUINT, 0, flags);
  /**
   * FlDirectoryModel:n-orphans:
   *
   * The number of temp and graveyard files whose creator is gone.
   */
  properties[PROP_N_ORPHANS] = g_param_spec_uint ("n-orphans", NULL, NULL, 0, G_MAXUINT, 0,
                                                  flags);
  /**
   * FlDirectoryModel:n-foreign:
   *
   * The number of entries named like lock files that are not regular files.
   */
  properties[PROP_N_FOREIGN] = g_param_spec_uint ("n-foreign", NULL, NULL, 0, G_MAXUINT, 0,
                                                  flags);
  g_object_class_install_properties (object_class, N_PROPS, properties);

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
   */
  signals[ENTRY_CHANGED] = g_signal_new ("entry-changed", G_TYPE_FROM_CLASS (klass),
                                         G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL,
                                         G_TYPE_NONE, 2, FL_TYPE_ENTRY, FL_TYPE_CHANGE);
}

static void
fl_directory_model_init (FlDirectoryModel *self)
{
  size_t max_handles = _fl_platform_max_handles ();

  self->entries = g_ptr_array_new ();
  self->roots = g_ptr_array_new ();
  self->pending = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  self->pid_watches = g_hash_table_new_full (NULL, NULL, NULL, _fl_model_pid_watch_free);
  self->deadlines = g_hash_table_new (NULL, NULL);
  self->cancellable = g_cancellable_new ();
  self->rescan_interval_ms = RESCAN_MIN_MS;
  self->monitoring = TRUE;

  /* Each watched holder costs a descriptor: leave most of them to the program. */
  if (max_handles > 0)
    self->max_pid_watches = (guint) CLAMP (max_handles / 4, 16, MAX_PID_WATCHES);
  else
    self->max_pid_watches = MAX_PID_WATCHES;
}

/* Public API */

/**
 * fl_directory_model_new:
 * @options: (nullable): how to judge the files (stale_after), %NULL for the defaults
 *
 * Creates an empty model. Add directories with fl_directory_model_add_directory(). The model
 * lives in the thread-default main context of the thread that creates it: file events, pidfd
 * wake-ups and the periodic rescan are dispatched there.
 *
 * Returns: (transfer full): a new model
 */
FlDirectoryModel *
fl_directory_model_new (const FlLockOptions *options)
{
  FlDirectoryModel *self = g_object_new (FL_TYPE_DIRECTORY_MODEL, NULL);

  self->options = options != NULL ? fl_lock_options_copy (options) : fl_lock_options_new ();
  return self;
}

/* Registers the root and its monitor before any scan, so no event after the scan can be lost.
 * Returns NULL with @error set, or the root (already present: *@existing is set). */
static Root *
register_root (FlDirectoryModel *self,
               const char       *directory,
               gboolean          recursive,
               gboolean         *existing,
               GError          **error)
{
  g_autofree char *path = g_canonicalize_filename (directory, NULL);
  Root *root = _fl_model_find_root (self, path);
  FlDir *dir;
  int err;

  *existing = FALSE;
  if (root != NULL && root->recursive == recursive)
    {
      *existing = TRUE;
      return root;
    }

  err = _fl_platform_dir_open (path, FALSE, &dir);
  if (err != 0)
    {
      _fl_model_set_directory_error (error, path, err);
      return NULL;
    }
  _fl_platform_dir_close (dir);

  if (root != NULL)
    fl_directory_model_remove_directory (self, path);

  root = g_atomic_rc_box_new0 (Root);
  root->prefix = path[0] != '\0' && G_IS_DIR_SEPARATOR (path[strlen (path) - 1])
                 ? g_strdup (path) : g_strconcat (path, G_DIR_SEPARATOR_S, NULL);
  root->path = g_steal_pointer (&path);
  root->recursive = recursive;
  root->monitors = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, _fl_model_monitor_free);
  g_ptr_array_add (self->roots, root);

  if (self->monitoring)
    _fl_model_ensure_monitor (self, root, root->path);
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
 */
gboolean
fl_directory_model_add_directory (FlDirectoryModel  *self,
                                  const char        *directory,
                                  gboolean           recursive,
                                  GError           **error)
{
  ScanJob *job;
  Root *root;
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

  job = _fl_model_scan_job_new (self, root, MERGE_INITIAL);
  _fl_model_run_scan (job);
  ok = _fl_model_finish_job (self, job, error);
  _fl_model_scan_job_free (job);

  if (ok)
    _fl_model_schedule_rescan (self, self->rescan_interval_ms);
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
  Root *root;

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
    _fl_model_start_scan (self, root, MERGE_INITIAL, task);
}

/**
 * fl_directory_model_add_directory_finish:
 * @self: a model
 * @result: the result given to the callback
 * @error: where to report a directory that cannot be read
 *
 * Returns: %TRUE when the directory's entries are in the model
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
 */
gboolean
fl_directory_model_remove_directory (FlDirectoryModel *self,
                                     const char       *directory)
{
  g_autofree char *path = NULL;
  Root *root;

  g_return_val_if_fail (FL_IS_DIRECTORY_MODEL (self), FALSE);
  g_return_val_if_fail (directory != NULL, FALSE);

  path = g_canonicalize_filename (directory, NULL);
  root = _fl_model_find_root (self, path);
  if (root == NULL)
    return FALSE;

  g_ptr_array_remove (self->roots, root);
  root->removed = TRUE;
  g_hash_table_remove_all (root->monitors);
  _fl_model_merge (self, root, NULL, MERGE_REMOVE);
  _fl_model_root_unref (root);
  return TRUE;
}

/**
 * fl_directory_model_dup_directories:
 * @self: a model
 *
 * Returns: (transfer full) (array zero-terminated=1): the watched directories, canonical
 */
char **
fl_directory_model_dup_directories (FlDirectoryModel *self)
{
  GStrvBuilder *builder;
  char **result;

  g_return_val_if_fail (FL_IS_DIRECTORY_MODEL (self), NULL);

  builder = g_strv_builder_new ();
  for (guint i = 0; i < self->roots->len; i++)
    g_strv_builder_add (builder, ((Root *) self->roots->pdata[i])->path);
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
  _fl_model_schedule_deadline (self);
}

/**
 * fl_directory_model_get_now:
 * @self: a model
 *
 * An entry's age is `fl_snapshot_get_age_at (fl_entry_get_snapshot (entry),
 * fl_directory_model_get_now (model))`.
 *
 * Returns: the model's clock, in microseconds of real time
 */
gint64
fl_directory_model_get_now (FlDirectoryModel *self)
{
  g_return_val_if_fail (FL_IS_DIRECTORY_MODEL (self), 0);

  return _fl_model_model_now (self);
}

/**
 * fl_directory_model_rescan:
 * @self: a model
 *
 * Applies the pending file events, then reads every watched directory again and applies the
 * differences, blocking until done. The model does this by itself periodically, in a worker
 * thread; this is for callers who know something changed that no event reports.
 */
void
fl_directory_model_rescan (FlDirectoryModel *self)
{
  g_autoptr(GPtrArray) roots = NULL;

  g_return_if_fail (FL_IS_DIRECTORY_MODEL (self));

  _fl_directory_model_flush (self);

  roots = g_ptr_array_new_with_free_func ((GDestroyNotify) _fl_model_root_unref);
  for (guint i = 0; i < self->roots->len; i++)
    g_ptr_array_add (roots, g_atomic_rc_box_acquire (self->roots->pdata[i]));

  for (guint i = 0; i < roots->len; i++)
    {
      ScanJob *job = _fl_model_scan_job_new (self, roots->pdata[i], MERGE_RESCAN);

      _fl_model_run_scan (job);
      _fl_model_finish_job (self, job, NULL);
      _fl_model_scan_job_free (job);
    }
}

/**
 * fl_directory_model_lookup:
 * @self: a model
 * @path: the path of a file
 *
 * Returns: (transfer none) (nullable): the entry for @path, or %NULL
 */
FlEntry *
fl_directory_model_lookup (FlDirectoryModel *self,
                           const char       *path)
{
  g_autofree char *canonical = NULL;
  guint pos;

  g_return_val_if_fail (FL_IS_DIRECTORY_MODEL (self), NULL);
  g_return_val_if_fail (path != NULL, NULL);

  canonical = g_canonicalize_filename (path, NULL);
  return _fl_model_find_path (self, canonical, &pos) ? self->entries->pdata[pos] : NULL;
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
  if (fl_snapshot_get_target (snap) == NULL)
    return related;

  dir = g_path_get_dirname (fl_snapshot_get_path (snap));
  base = g_path_get_basename (fl_snapshot_get_target (snap));
  lock_path = g_strconcat (dir, G_DIR_SEPARATOR_S, base, ".lock", NULL);

  _fl_model_find_path (self, lock_path, &pos);
  for (guint i = pos; i < self->entries->len; i++)
    {
      FlEntry *other = self->entries->pdata[i];
      FlSnapshot *other_snap = fl_entry_get_snapshot (other);
      g_autofree char *other_base = NULL;

      if (!g_str_has_prefix (_fl_model_entry_path (other), lock_path))
        break;
      if (other == entry || fl_snapshot_get_target (other_snap) == NULL)
        continue;
      other_base = g_path_get_basename (fl_snapshot_get_target (other_snap));
      if (g_str_equal (other_base, base))
        g_ptr_array_add (related, g_object_ref (other));
    }
  return related;
}

/**
 * fl_directory_model_reclaim:
 * @self: a model
 * @snapshot: the snapshot a person confirmed, from an entry of @self
 * @error: where to report a refusal
 *
 * Runs fl_snapshot_reclaim() with the model's options on exactly @snapshot, so nothing is
 * touched if the file changed since (%FL_ERROR_CHANGED) or its holder lives (%FL_ERROR_NOT_STALE).
 * Then the model reads the path again at once, so the row updates before this returns, and a
 * successful reclaim is not reported by #FlDirectoryModel::entry-changed: it is the caller's
 * own doing, not a foreign change.
 *
 * Returns: %TRUE if the file was removed
 */
gboolean
fl_directory_model_reclaim (FlDirectoryModel  *self,
                            FlSnapshot        *snapshot,
                            GError           **error)
{
  g_autofree char *path = NULL;
  DirCache cache = { NULL, NULL };
  gboolean ok;

  g_return_val_if_fail (FL_IS_DIRECTORY_MODEL (self), FALSE);
  g_return_val_if_fail (FL_IS_SNAPSHOT (snapshot), FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

  path = g_strdup (fl_snapshot_get_path (snapshot));
  ok = fl_snapshot_reclaim (snapshot, self->options, error);

  if (ok)
    self->quiet++;
  g_object_freeze_notify (G_OBJECT (self));
  _fl_model_refresh_path (self, &cache, path, 0, _fl_model_model_now (self));
  _fl_model_notify_counts (self);
  g_object_thaw_notify (G_OBJECT (self));
  if (ok)
    self->quiet--;
  _fl_model_dir_cache_clear (&cache);
  _fl_model_schedule_deadline (self);

  return ok;
}

/* Test entry points */

void
_fl_directory_model_set_monitoring (FlDirectoryModel *self,
                                    gboolean          monitoring)
{
  g_return_if_fail (FL_IS_DIRECTORY_MODEL (self));
  g_return_if_fail (self->roots->len == 0);

  self->monitoring = !!monitoring;
}

guint
_fl_directory_model_get_n_pid_watches (FlDirectoryModel *self)
{
  GHashTableIter iter;
  gpointer value;
  guint n = 0;

  g_return_val_if_fail (FL_IS_DIRECTORY_MODEL (self), 0);

  g_hash_table_iter_init (&iter, self->pid_watches);
  while (g_hash_table_iter_next (&iter, NULL, &value))
    n += ((PidWatch *) value)->fd != FL_HANDLE_NONE;
  return n;
}

gboolean
_fl_directory_model_has_pending (FlDirectoryModel *self)
{
  g_return_val_if_fail (FL_IS_DIRECTORY_MODEL (self), FALSE);

  return g_hash_table_size (self->pending) > 0;
}
