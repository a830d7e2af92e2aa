/* fl-directory-model-events.c: file events and monitors: one path read again, coalesced
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

/* Reading one path */

void
_fl_model_dir_cache_clear (DirCache *cache)
{
  g_clear_pointer (&cache->path, g_free);
  g_clear_pointer (&cache->dir, _fl_platform_dir_close);
}

/* NULL when @path cannot be opened (gone, or not a directory). */
static FlDir *
dir_cache_open (DirCache   *cache,
                const char *path)
{
  if (cache->path != NULL && g_str_equal (cache->path, path))
    return cache->dir;

  _fl_model_dir_cache_clear (cache);
  cache->path = g_strdup (path);
  _fl_platform_dir_open (path, FALSE, &cache->dir);
  return cache->dir;
}

static FlSnapshot *
read_path (FlDirectoryModel *self,
           DirCache         *cache,
           const char       *path,
           gint64            now_us)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *dir = g_path_get_dirname (path);
  const char *base = _fl_path_last_component (path);
  const char *name = base != path ? base - 1 : NULL;  /* at the separator, as before */
  FlSnapshot *snap;
  FlDir *dirp;

  if (name == NULL || !_fl_model_looks_like_entry (name + 1))
    return NULL;

  dirp = dir_cache_open (cache, dir);
  if (dirp == NULL)
    return NULL;

  snap = _fl_snapshot_new_at (dirp, dir, name + 1, self->options, now_us, &error);
  if (snap == NULL && !g_error_matches (error, G_IO_ERROR, G_IO_ERROR_NOT_FOUND))
    g_debug ("%s: %s", path, error->message);
  return snap;
}

/* In a recursive root, a new directory gets a monitor and a scan. */
static void
check_new_directory (FlDirectoryModel *self,
                     const char       *path)
{
  FlFileInfo info;

  for (guint i = 0; i < self->roots->len; i++)
    {
      Root *root = g_ptr_array_index (self->roots, i);

      if (!root->recursive || !_fl_model_root_covers (root, path)
          || g_hash_table_contains (root->monitors, path))
        continue;
      if (_fl_platform_stat_path (path, &info) != 0 || info.type != FL_FILE_DIRECTORY)
        return;
      /* Watched first, then read: a file made in it after the read still has its event. */
      _fl_model_ensure_monitor (self, root, path);
      _fl_model_schedule_rescan (self, COALESCE_MS);
      return;
    }
}

void
_fl_model_refresh_path (FlDirectoryModel *self,
                        DirCache         *cache,
                        const char       *path,
                        guint             flags,
                        gint64            now_us)
{
  g_autoptr(FlSnapshot) snap = NULL;

  if (self->monitoring)
    check_new_directory (self, path);

  if (_fl_model_covering_root (self, path) == NULL)
    return;

  snap = read_path (self, cache, path, now_us);
  _fl_model_apply_path (self, path, snap, flags);
}

/* Events */

static gboolean
flush_cb (gpointer user_data)
{
  FlDirectoryModel *self = user_data;

  self->flush_id = 0;
  _fl_directory_model_flush (self);
  return G_SOURCE_REMOVE;
}

void
_fl_model_queue_path (FlDirectoryModel *self,
                      const char       *path,
                      guint             flags)
{
  gpointer old = NULL;

  if (g_hash_table_lookup_extended (self->pending, path, NULL, &old))
    flags |= GPOINTER_TO_UINT (old);
  g_hash_table_replace (self->pending, g_strdup (path), GUINT_TO_POINTER (flags));

  if (self->flush_id == 0)
    {
      /* The first event after a quiet spell is read at once; those that follow within
       * COALESCE_MS of a read wait for the next one, so a burst costs one read per path. */
      gint64 since_ms = (g_get_monotonic_time () - self->last_flush_us) / 1000;
      guint delay_ms = since_ms >= COALESCE_MS ? 0 : (guint) (COALESCE_MS - since_ms);

      self->flush_id = g_timeout_add (delay_ms, flush_cb, self);
    }
}

/* T2 renames T.lock to T.lock.gy.<pid>.<hex>: seen as one rename, it tells a takeover from a
 * release. Without the rename (coalesced away, or a rescan) it is reported as a release. */
static gboolean
is_graveyard_of (const char *lock_path,
                 const char *other_path)
{
  size_t len = strlen (lock_path);

  return g_str_has_suffix (lock_path, ".lock")
         && strncmp (other_path, lock_path, len) == 0
         && g_str_has_prefix (other_path + len, ".gy.");
}

void
_fl_directory_model_apply_event (FlDirectoryModel  *self,
                                 GFileMonitorEvent  event,
                                 const char        *path,
                                 const char        *other_path)
{
  g_return_if_fail (FL_IS_DIRECTORY_MODEL (self));
  g_return_if_fail (path != NULL);

  switch (event)
    {

    case G_FILE_MONITOR_EVENT_RENAMED:
      _fl_model_queue_path (self, path,
                            other_path != NULL && is_graveyard_of (path, other_path)
                            ? PENDING_TAKEN_OVER : 0);
      if (other_path != NULL)
        _fl_model_queue_path (self, other_path, 0);
      break;

    case G_FILE_MONITOR_EVENT_PRE_UNMOUNT:
    case G_FILE_MONITOR_EVENT_UNMOUNTED:
      _fl_model_schedule_rescan (self, COALESCE_MS);
      break;

    case G_FILE_MONITOR_EVENT_CHANGES_DONE_HINT:  /* a writer closed it: now it is complete */
    case G_FILE_MONITOR_EVENT_CREATED:
    case G_FILE_MONITOR_EVENT_DELETED:
    case G_FILE_MONITOR_EVENT_CHANGED:
    case G_FILE_MONITOR_EVENT_ATTRIBUTE_CHANGED:
    case G_FILE_MONITOR_EVENT_MOVED_IN:
    case G_FILE_MONITOR_EVENT_MOVED_OUT:
    case G_FILE_MONITOR_EVENT_MOVED:
    default:
      _fl_model_queue_path (self, path, 0);
      break;
    }
}

static void
monitor_changed_cb (GFileMonitor      *monitor,
                    GFile             *file,
                    GFile             *other_file,
                    GFileMonitorEvent  event,
                    gpointer           user_data)
{
  FlDirectoryModel *self = user_data;
  const char *path = g_file_peek_path (file);
  const char *other = other_file != NULL ? g_file_peek_path (other_file) : NULL;

  if (path == NULL)
    return;

  /* Renames of the monitored directory itself, or of subdirectories, need a rescan. */
  if (event == G_FILE_MONITOR_EVENT_DELETED || event == G_FILE_MONITOR_EVENT_MOVED_OUT
      || event == G_FILE_MONITOR_EVENT_RENAMED)
    {
      for (guint i = 0; i < self->roots->len; i++)
        if (g_hash_table_contains (((Root *) self->roots->pdata[i])->monitors, path))
          _fl_model_schedule_rescan (self, COALESCE_MS);
    }

  _fl_directory_model_apply_event (self, event, path, other);
}

void
_fl_directory_model_flush (FlDirectoryModel *self)
{
  g_autoptr(GHashTable) pending = NULL;
  g_autofree gpointer *paths = NULL;
  DirCache cache = { NULL, NULL };
  guint n_paths;
  gint64 now_us;

  g_return_if_fail (FL_IS_DIRECTORY_MODEL (self));

  g_clear_handle_id (&self->flush_id, g_source_remove);
  self->last_flush_us = g_get_monotonic_time ();
  if (g_hash_table_size (self->pending) == 0)
    return;

  pending = g_steal_pointer (&self->pending);
  self->pending = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);

  /* Without monitoring (tests) there is no periodic rescan to hand a burst to. */
  if (g_hash_table_size (pending) > BURST_LIMIT && self->monitoring)
    {
      _fl_model_schedule_rescan (self, 0);
      return;
    }

  /* Sorted, so that consecutive paths share the directory descriptor. */
  paths = g_hash_table_get_keys_as_array (pending, &n_paths);
  qsort (paths, n_paths, sizeof (gpointer), _fl_model_compare_strings);
  now_us = _fl_model_model_now (self);

  g_object_freeze_notify (G_OBJECT (self));
  for (guint i = 0; i < n_paths; i++)
    _fl_model_refresh_path (self, &cache, paths[i],
                            GPOINTER_TO_UINT (g_hash_table_lookup (pending, paths[i])), now_us);
  _fl_model_notify_counts (self);
  g_object_thaw_notify (G_OBJECT (self));

  _fl_model_dir_cache_clear (&cache);
  _fl_model_schedule_deadline (self);
}

/* Monitors */

void
_fl_model_monitor_free (gpointer data)
{
  GFileMonitor *monitor = data;

  g_file_monitor_cancel (monitor);
  g_object_unref (monitor);
}

void
_fl_model_ensure_monitor (FlDirectoryModel *self,
                          Root             *root,
                          const char       *dir_path)
{
  g_autoptr(GFile) file = NULL;
  g_autoptr(GError) error = NULL;
  GFileMonitor *monitor;

  if (g_hash_table_contains (root->monitors, dir_path))
    return;

  file = g_file_new_for_path (dir_path);
  monitor = g_file_monitor_directory (file, G_FILE_MONITOR_WATCH_MOVES, NULL, &error);
  if (monitor == NULL)
    {
      /* No inotify watch left, for example: the periodic rescan still repairs the model. */
      g_debug ("Cannot monitor %s: %s", dir_path, error->message);
      return;
    }
  g_signal_connect_object (monitor, "changed", G_CALLBACK (monitor_changed_cb), self, 0);
  g_hash_table_insert (root->monitors, g_strdup (dir_path), monitor);
}

void
_fl_model_sync_monitors (FlDirectoryModel *self,
                         Root             *root,
                         GPtrArray        *dirs)
{
  g_autoptr(GHashTable) present = g_hash_table_new (g_str_hash, g_str_equal);
  GHashTableIter iter;
  gpointer key;

  for (guint i = 0; i < dirs->len; i++)
    {
      g_hash_table_add (present, dirs->pdata[i]);
      _fl_model_ensure_monitor (self, root, dirs->pdata[i]);
    }

  g_hash_table_iter_init (&iter, root->monitors);
  while (g_hash_table_iter_next (&iter, &key, NULL))
    if (!g_hash_table_contains (present, key) && !g_str_equal (key, root->path))
      g_hash_table_iter_remove (&iter);
}
