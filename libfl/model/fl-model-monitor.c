/* fl-model-monitor.c: file events: a GFileMonitor per directory, the paths they name queued
 * and coalesced until the model reads them again; a root read whole, rescanned on its watch
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <string.h>

#include "protocol/fl-lock-backend-private.h"
#include "model/fl-model-follower-private.h"
#include "model/fl-model-monitor-private.h"
#include "model/fl-model-owner-private.h"
#include "model/fl-model-store-private.h"
#include "platform/fl-platform.h"

/* An event only names a path; the model reads the path again before it reports anything, so
 * duplicated, reordered or stale events cannot make it wrong. The first event after a quiet
 * spell is read at once; a burst is read at most every FL_MODEL_COALESCE_MS, each path once;
 * past BURST_LIMIT paths a rescan is cheaper. */
#define BURST_LIMIT 2000
/* etcd events come in bursts too: a lock handed over deletes one key and its metadata. */
#define REMOTE_COALESCE_MS 20

static void
pending_clear (gpointer data)
{
  g_free (((FlModelPending *) data)->path);
}

void
_fl_model_monitor_init (FlModelMonitor            *monitor,
                        GPtrArray                 *roots,
                        FlDirectoryModel          *model)
{
  monitor->roots = roots;
  monitor->enabled = TRUE;
  monitor->pending = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  monitor->model = model;
}

void
_fl_model_monitor_dispose (FlModelMonitor *monitor)
{
  g_clear_handle_id (&monitor->flush_id, g_source_remove);
}

void
_fl_model_monitor_finalize (FlModelMonitor *monitor)
{
  g_clear_pointer (&monitor->pending, g_hash_table_unref);
}

static gboolean
flush_cb (gpointer user_data)
{
  FlModelMonitor *monitor = user_data;

  monitor->flush_id = 0;
  _fl_directory_model_flush_slice (monitor->model);
  return G_SOURCE_REMOVE;
}

void
_fl_model_monitor_queue (FlModelMonitor *monitor,
                         const char     *path,
                         guint           flags)
{
  gpointer old = NULL;

  if (g_hash_table_lookup_extended (monitor->pending, path, NULL, &old))
    {
      guint before = GPOINTER_TO_UINT (old);
      guint births = MIN (FL_MODEL_BIRTHS (before) + FL_MODEL_BIRTHS (flags),
                          FL_MODEL_BIRTHS (G_MAXUINT));

      /* The flags add up; the births are counted. */
      flags = ((before | flags) & (FL_MODEL_BORN - 1)) | births * FL_MODEL_BORN;
    }
  g_hash_table_replace (monitor->pending, g_strdup (path), GUINT_TO_POINTER (flags));

  if (monitor->flush_id == 0)
    {
      /* The first event after a quiet spell is read at once; those that follow within
       * COALESCE_MS of a read wait for the next one, so a burst costs one read per path. */
      gint64 since_ms = (g_get_monotonic_time () - monitor->last_flush_us) / 1000;
      guint delay_ms = since_ms >= FL_MODEL_COALESCE_MS
                       ? 0 : (guint) (FL_MODEL_COALESCE_MS - since_ms);

      monitor->flush_id = g_timeout_add (delay_ms, flush_cb, monitor);
    }
}

void
_fl_model_monitor_continue (FlModelMonitor *monitor)
{
  g_clear_handle_id (&monitor->flush_id, g_source_remove);
  monitor->flush_id = g_idle_add_full (G_PRIORITY_DEFAULT_IDLE, flush_cb, monitor, NULL);
}

gboolean
_fl_model_monitor_has_pending (FlModelMonitor *monitor)
{
  return g_hash_table_size (monitor->pending) > 0;
}

static int
compare_pending (gconstpointer a,
                 gconstpointer b)
{
  return strcmp (((const FlModelPending *) a)->path, ((const FlModelPending *) b)->path);
}

GArray *
_fl_model_monitor_take_pending (FlModelMonitor *monitor)
{
  g_autoptr(GHashTable) pending = NULL;
  GHashTableIter iter;
  gpointer key, value;
  GArray *out;

  g_clear_handle_id (&monitor->flush_id, g_source_remove);
  monitor->last_flush_us = g_get_monotonic_time ();
  if (g_hash_table_size (monitor->pending) == 0)
    return NULL;

  pending = g_steal_pointer (&monitor->pending);
  monitor->pending = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);

  /* Without monitoring (tests) there is no periodic rescan to hand a burst to. */
  if (g_hash_table_size (pending) > BURST_LIMIT && monitor->enabled)
    {
      _fl_directory_model_schedule_rescan (monitor->model, 0);
      return NULL;
    }

  out = g_array_sized_new (FALSE, FALSE, sizeof (FlModelPending), g_hash_table_size (pending));
  g_array_set_clear_func (out, pending_clear);
  g_hash_table_iter_init (&iter, pending);
  while (g_hash_table_iter_next (&iter, &key, &value))
    {
      FlModelPending p = { key, GPOINTER_TO_UINT (value) };

      g_hash_table_iter_steal (&iter);
      g_array_append_val (out, p);
    }
  g_array_sort (out, compare_pending);
  return out;
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
_fl_model_monitor_apply_event (FlModelMonitor    *monitor,
                               GFileMonitorEvent  event,
                               const char        *path,
                               const char        *other_path)
{
  switch (event)
    {
    case G_FILE_MONITOR_EVENT_RENAMED:
      _fl_model_monitor_queue (monitor, path,
                               FL_MODEL_GONE
                               | (other_path != NULL && is_graveyard_of (path, other_path)
                                  ? FL_MODEL_TAKEN_OVER : 0));
      if (other_path != NULL)
        _fl_model_monitor_queue (monitor, other_path, FL_MODEL_BORN);
      break;

    case G_FILE_MONITOR_EVENT_CREATED:
    case G_FILE_MONITOR_EVENT_MOVED_IN:
      _fl_model_monitor_queue (monitor, path, FL_MODEL_BORN);
      break;

    case G_FILE_MONITOR_EVENT_DELETED:
    case G_FILE_MONITOR_EVENT_MOVED_OUT:
      _fl_model_monitor_queue (monitor, path, FL_MODEL_GONE);
      break;

    case G_FILE_MONITOR_EVENT_PRE_UNMOUNT:
    case G_FILE_MONITOR_EVENT_UNMOUNTED:
      _fl_directory_model_schedule_rescan (monitor->model, FL_MODEL_COALESCE_MS);
      break;

    case G_FILE_MONITOR_EVENT_CHANGES_DONE_HINT:  /* a writer closed it: now it is complete */
    case G_FILE_MONITOR_EVENT_CHANGED:
    case G_FILE_MONITOR_EVENT_ATTRIBUTE_CHANGED:
    case G_FILE_MONITOR_EVENT_MOVED:
    default:
      _fl_model_monitor_queue (monitor, path, 0);
      break;
    }
}

static void
monitor_changed_cb (GFileMonitor      *file_monitor,
                    GFile             *file,
                    GFile             *other_file,
                    GFileMonitorEvent  event,
                    gpointer           user_data)
{
  FlModelMonitor *monitor = user_data;
  const char *path = g_file_peek_path (file);
  const char *other = other_file != NULL ? g_file_peek_path (other_file) : NULL;

  if (path == NULL)
    return;

  /* Renames of the monitored directory itself, or of subdirectories, need a rescan. */
  if (event == G_FILE_MONITOR_EVENT_DELETED || event == G_FILE_MONITOR_EVENT_MOVED_OUT
      || event == G_FILE_MONITOR_EVENT_RENAMED)
    {
      for (guint i = 0; i < monitor->roots->len; i++)
        if (g_hash_table_contains (((FlModelRoot *) monitor->roots->pdata[i])->monitors, path))
          _fl_directory_model_schedule_rescan (monitor->model, FL_MODEL_COALESCE_MS);
    }

  _fl_model_monitor_apply_event (monitor, event, path, other);
}

void
_fl_model_monitor_check_new_directory (FlModelMonitor *monitor,
                                       const char     *path)
{
  FlFileInfo info;

  if (!monitor->enabled)
    return;

  for (guint i = 0; i < monitor->roots->len; i++)
    {
      FlModelRoot *root = g_ptr_array_index (monitor->roots, i);

      if (!root->recursive || !_fl_model_root_covers (root, path)
          || g_hash_table_contains (root->monitors, path))
        continue;
      if (_fl_platform_stat_path (path, &info) != 0 || info.type != FL_FILE_DIRECTORY)
        return;
      /* Watched first, then read: a file made in it after the read still has its event. */
      _fl_model_monitor_watch (monitor, root, path);
      _fl_directory_model_schedule_rescan (monitor->model, FL_MODEL_COALESCE_MS);
      return;
    }
}

/* A root read whole (etcd's prefix): its backend's watch, a rescan of the root when it fires */

typedef struct
{
  FlModelMonitor *monitor;
  FlModelRoot    *root;
} RemoteCall;

static gboolean
remote_rescan_cb (gpointer user_data)
{
  RemoteCall *call = user_data;

  call->root->remote_rescan_id = 0;
  _fl_directory_model_rescan_root (call->monitor->model, call->root);
  return G_SOURCE_REMOVE;
}

/* A burst of etcd events (a queue moving, its metadata keys with it) costs one read of the
 * prefix. The watch is stopped, and this timeout removed, before the root goes. */
static void
remote_changed_cb (gpointer user_data)
{
  RemoteCall *call = user_data;

  if (call->root->remote_rescan_id == 0)
    call->root->remote_rescan_id = g_timeout_add (REMOTE_COALESCE_MS, remote_rescan_cb, call);
}

void
_fl_model_monitor_watch_whole (FlModelMonitor *monitor,
                               FlModelRoot    *root,
                               const char     *dir_path)
{
  g_autoptr(GError) error = NULL;
  RemoteCall *call;

  if (root->remote_watch != NULL)
    return;
  call = g_new0 (RemoteCall, 1);
  *call = (RemoteCall) { monitor, root };
  root->remote_watch = root->backend->watch_start (root->path, monitor->options,
                                                   remote_changed_cb, call, g_free, &error);
  /* Without a watch the periodic rescan still repairs the model. */
  if (root->remote_watch == NULL)
    g_debug ("Cannot watch %s: %s", root->path, error->message);
}

/* A directory followed file by file */

void
_fl_model_monitor_watch_directory (FlModelMonitor *monitor,
                                   FlModelRoot    *root,
                                   const char     *dir_path)
{
  g_autoptr(GFile) file = NULL;
  g_autoptr(GError) error = NULL;
  GFileMonitor *file_monitor;

  if (g_hash_table_contains (root->monitors, dir_path))
    return;

  file = g_file_new_for_path (dir_path);
  file_monitor = g_file_monitor_directory (file, G_FILE_MONITOR_WATCH_MOVES, NULL, &error);
  if (file_monitor == NULL)
    {
      /* No inotify watch left, for example: the periodic rescan still repairs the model. */
      g_debug ("Cannot monitor %s: %s", dir_path, error->message);
      return;
    }
  /* The monitor is cancelled (and its handler gone) before @monitor is freed. */
  g_signal_connect (file_monitor, "changed", G_CALLBACK (monitor_changed_cb), monitor);
  g_hash_table_insert (root->monitors, g_strdup (dir_path), file_monitor);
}

void
_fl_model_monitor_watch (FlModelMonitor *monitor,
                         FlModelRoot    *root,
                         const char     *dir_path)
{
  if (monitor->enabled)
    root->follower->watch (monitor, root, dir_path);
}

void
_fl_model_monitor_sync (FlModelMonitor *monitor,
                        FlModelRoot    *root,
                        GPtrArray      *dirs)
{
  g_autoptr(GHashTable) present = g_hash_table_new (g_str_hash, g_str_equal);
  GHashTableIter iter;
  gpointer key;

  if (!monitor->enabled)
    return;

  for (guint i = 0; i < dirs->len; i++)
    {
      g_hash_table_add (present, dirs->pdata[i]);
      _fl_model_monitor_watch (monitor, root, dirs->pdata[i]);
    }

  g_hash_table_iter_init (&iter, root->monitors);
  while (g_hash_table_iter_next (&iter, &key, NULL))
    if (!g_hash_table_contains (present, key) && !g_str_equal (key, root->path))
      g_hash_table_iter_remove (&iter);
}
