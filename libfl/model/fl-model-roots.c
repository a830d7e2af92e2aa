/* fl-model-roots.c: the roots a model follows (directories, another backend's
 * prefixes) and the paths each covers
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <errno.h>
#include <string.h>

#include <glib/gi18n-lib.h>

#include "fl-error-private.h"
#include "protocol/fl-file-backend-private.h"
#include "protocol/fl-lock-backend-private.h"
#include "model/fl-model-roots-private.h"
#include "protocol/fl-names-private.h"
#include "platform/fl-platform.h"
#include "support/fl-tsan-private.h"

static void
monitor_free (gpointer data)
{
  GFileMonitor *monitor = data;

  /* Its handler points into the model: gone with it, whoever else holds the monitor. */
  g_signal_handlers_disconnect_matched (monitor, G_SIGNAL_MATCH_ID,
                                        g_signal_lookup ("changed", G_TYPE_FILE_MONITOR),
                                        0, NULL, NULL, NULL);
  g_file_monitor_cancel (monitor);
  g_object_unref (monitor);
}

FlModelRoot *
_fl_model_root_new (char                *path,
                    gboolean             recursive,
                    const FlLockBackend *backend)
{
  FlModelRoot *root = g_atomic_rc_box_new0 (FlModelRoot);

  root->backend = backend;
  root->follower = backend->root_follower ();

  root->prefix = path[0] != '\0' && G_IS_DIR_SEPARATOR (path[strlen (path) - 1])
                 ? g_strdup (path) : g_strconcat (path, G_DIR_SEPARATOR_S, NULL);
  root->path = path;
  root->recursive = recursive;
  root->monitors = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, monitor_free);
  root->problems = g_ptr_array_new_with_free_func (g_free);
  return root;
}

FlModelRoot *
_fl_model_root_ref (FlModelRoot *root)
{
  return g_atomic_rc_box_acquire (root);
}

static void
root_clear (FlModelRoot *root)
{
  _fl_tsan_acquire (root);
  g_free (root->path);
  g_free (root->prefix);
  g_clear_pointer (&root->monitors, g_hash_table_unref);
  g_clear_pointer (&root->problems, g_ptr_array_unref);
  g_free (root->unread);
}

void
_fl_model_root_unref (FlModelRoot *root)
{
  /* A scan's worker thread may drop the last reference */
  _fl_tsan_release (root);
  g_atomic_rc_box_release_full (root, (GDestroyNotify) root_clear);
}

void
_fl_model_root_stop (FlModelRoot *root)
{
  root->removed = TRUE;
  g_hash_table_remove_all (root->monitors);
  g_clear_handle_id (&root->remote_rescan_id, g_source_remove);
  if (root->remote_watch != NULL)
    root->backend->watch_stop (g_steal_pointer (&root->remote_watch));
}

char *
_fl_model_root_path_for (const char *directory)
{
  return _fl_lock_backend_for (directory)->root_path (directory);
}

/* The file backend's roots (fl-file-backend-private.h) */

char *
_fl_file_root_path (const char *target)
{
  return g_canonicalize_filename (target, NULL);
}

gboolean
_fl_file_root_check (const char          *path,
                     const FlLockOptions *options,
                     GError             **error)
{
  FlDir *dir;
  int err = _fl_platform_dir_open (path, FALSE, &dir);

  if (err != 0)
    {
      _fl_model_root_set_error (error, path, err);
      return FALSE;
    }
  _fl_platform_dir_close (dir);
  return TRUE;
}

gboolean
_fl_model_root_covers (FlModelRoot *root,
                       const char  *path)
{
  if (!g_str_has_prefix (path, root->prefix))
    return FALSE;
  return root->recursive ||
         !_fl_has_dir_separator (path + strlen (root->prefix),
                                 strlen (path + strlen (root->prefix)));
}

FlModelRoot *
_fl_model_roots_find (GPtrArray  *roots,
                      const char *path)
{
  for (guint i = 0; i < roots->len; i++)
    {
      FlModelRoot *root = g_ptr_array_index (roots, i);

      if (g_str_equal (root->path, path))
        return root;
    }
  return NULL;
}

/* The first root other than @except (or NULL) that covers @path. */
FlModelRoot *
_fl_model_roots_covering (GPtrArray   *roots,
                          FlModelRoot *except,
                          const char  *path)
{
  for (guint i = 0; i < roots->len; i++)
    {
      FlModelRoot *root = g_ptr_array_index (roots, i);

      if (root != except && _fl_model_root_covers (root, path))
        return root;
    }
  return NULL;
}

void
_fl_model_root_set_error (GError    **error,
                          const char *path,
                          int         errno_value)
{
  switch (errno_value)
    {
    case ENOENT:
      g_set_error (error, FL_ERROR, FL_ERROR_NOT_DIRECTORY,
                   _("Cannot watch “%s”: there is no such directory. Check the path."), path);
      break;
    case ENOTDIR:
      g_set_error (error, FL_ERROR, FL_ERROR_NOT_DIRECTORY,
                   _("Cannot watch “%s”: it is not a directory. Give the directory that holds "
                     "the lock files."), path);
      break;
    case EACCES:
    case EPERM:
      g_set_error (error, FL_ERROR, FL_ERROR_PERMISSION,
                   _("Cannot watch “%s”: permission denied. Ask for read access to the "
                     "directory."), path);
      break;
    default:
      g_set_error (error, FL_ERROR, _fl_error_code_from_directory_errno (errno_value),
                   _("Cannot watch “%s”: %s"), path, g_strerror (errno_value));
    }
}
