/* fl-file-backend.c: the file protocol's fl_is_locked() and its live watch of a directory,
 * two slots of the file backend's FlLockBackend (fl-file-lock.c)
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include "fl-error.h"
#include "protocol/fl-file-backend-private.h"
#include "protocol/fl-judge-private.h"
#include "protocol/fl-lock-private.h"
#include "protocol/fl-other-locks-private.h"

/* Whether a live holder holds @target's lock: a stale lock is free (the next acquire takes it
 * over), a foreign entry is held (no acquire can succeed). */
gboolean
_fl_file_is_locked (const char          *target,
                    const FlLockOptions *options,
                    GError             **error)
{
  g_auto(FlLockPath) lp = { 0 };
  g_auto(FlEvidence) state = { .fd = FL_HANDLE_NONE };
  g_autoptr(GError) local_error = NULL;
  FlDir *dir;
  gboolean ret;

  if (!_fl_lock_path_init (&lp, target, error))
    return FALSE;

  dir = _fl_open_lock_directory (lp.directory, FALSE, &local_error);
  if (dir == NULL)
    {
      if (g_error_matches (local_error, FL_ERROR, FL_ERROR_NOT_DIRECTORY))
        return FALSE;
      g_propagate_error (error, g_steal_pointer (&local_error));
      return FALSE;
    }

  if (!_fl_evidence_open (&state, dir, lp.directory, lp.lock_name, &local_error))
    {
      _fl_platform_dir_close (dir);
      if (g_error_matches (local_error, G_IO_ERROR, G_IO_ERROR_NOT_FOUND))
        return FALSE;
      g_propagate_error (error, g_steal_pointer (&local_error));
      return FALSE;
    }

  _fl_evidence_judge (&state, FL_PROBE_SHARED, options, g_get_real_time (), FALSE);
  ret = state.kind == FL_ENTRY_FOREIGN || !state.stale ||
        _fl_other_lock_is_gits (&state, lp.directory);
  _fl_platform_dir_close (dir);

  return ret;
}

/* A directory followed live: @changed on every event in it, on the caller's thread-default
 * main context (where GFileMonitor emits). FlDirectoryModel follows a directory root file by
 * file itself (model/fl-model-monitor.c); this is the backend's whole-root form. */
typedef struct
{
  GFileMonitor   *monitor;
  void          (*changed) (gpointer data);
  gpointer        data;
  GDestroyNotify  destroy;
} FileWatch;

static void
file_changed_cb (GFileMonitor      *monitor,
                 GFile             *file,
                 GFile             *other,
                 GFileMonitorEvent  event,
                 gpointer           user_data)
{
  FileWatch *watch = user_data;

  watch->changed (watch->data);
}

gpointer
_fl_file_watch_start (const char          *root,
                      const FlLockOptions *options,
                      void               (*changed) (gpointer data),
                      gpointer             data,
                      GDestroyNotify       destroy,
                      GError             **error)
{
  g_autoptr(GFile) file = g_file_new_for_path (root);
  GFileMonitor *monitor;
  FileWatch *watch;

  monitor = g_file_monitor_directory (file, G_FILE_MONITOR_WATCH_MOVES, NULL, error);
  if (monitor == NULL)
    return NULL;
  watch = g_new0 (FileWatch, 1);
  *watch = (FileWatch) { monitor, changed, data, destroy };
  g_signal_connect (monitor, "changed", G_CALLBACK (file_changed_cb), watch);
  return watch;
}

void
_fl_file_watch_stop (gpointer data)
{
  FileWatch *watch = data;

  g_signal_handlers_disconnect_by_data (watch->monitor, watch);
  g_file_monitor_cancel (watch->monitor);
  g_object_unref (watch->monitor);
  if (watch->destroy != NULL)
    watch->destroy (watch->data);
  g_free (watch);
}
