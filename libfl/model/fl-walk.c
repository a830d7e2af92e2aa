/* fl-walk.c: the one directory walker, for fl_scan_directory() and the model's scans
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <errno.h>

#include "fl-snapshot.h"
#include "model/fl-walk-private.h"

/* What every listing of libfl agrees on:
 * - an entry is a name that fl_entry_kind_for_name() knows, decided before any system call;
 * - a subdirectory is walked into only if it is a real directory: a listing that cannot tell
 *   (FL_FILE_UNKNOWN) is answered by the platform's stat_at(), which never follows a link, and
 *   the directory is then opened by dir_open_at(), which refuses a link (ELOOP) or anything
 *   that is no directory (ENOTDIR) by itself, so a swap in between is no way out either;
 * - a directory named like an entry is both: judged as an entry (foreign), and walked into,
 *   as the model's monitors do with any new directory;
 * - FL_WALK_MAX_DEPTH levels, the root at 0.
 * The listing is closed before the caller judges the names and before descending, so a walk
 * holds one descriptor per level. */

static gboolean
report (const FlWalkFuncs  *funcs,
        gpointer            user_data,
        const char         *path,
        guint               depth,
        FlWalkProblem       problem,
        int                 errno_value,
        GError            **error)
{
  if (funcs->problem == NULL)
    return TRUE;
  return funcs->problem (path, depth, problem, errno_value, user_data, error);
}

static gboolean
is_directory (FlDir      *dir,
              const char *name,
              FlFileType  type)
{
  FlFileInfo info;

  if (type != FL_FILE_UNKNOWN)
    return type == FL_FILE_DIRECTORY;
  return _fl_platform_stat_at (dir, name, &info) == 0 && info.type == FL_FILE_DIRECTORY;
}

static gboolean
walk_one (FlDir             *dir,
          const char        *path,
          guint              depth,
          gboolean           recursive,
          const FlWalkFuncs *funcs,
          gpointer           user_data,
          GCancellable      *cancellable,
          GError           **error)
{
  g_autoptr(GPtrArray) names = g_ptr_array_new_with_free_func (g_free);
  g_autoptr(GPtrArray) subdirs = NULL;
  FlDirList *list;
  const char *name;
  FlFileType type;
  int err;

  if (g_cancellable_set_error_if_cancelled (cancellable, error))
    return FALSE;

  err = _fl_platform_dir_list_open (dir, &list);
  if (err != 0)
    return report (funcs, user_data, path, depth, FL_WALK_UNREADABLE, err, error);

  while ((name = _fl_platform_dir_list_next (list, &type)) != NULL)
    {
      if (fl_entry_kind_for_name (name, NULL))
        g_ptr_array_add (names, g_strdup (name));

      if (recursive && is_directory (dir, name, type))
        {
          if (subdirs == NULL)
            subdirs = g_ptr_array_new_with_free_func (g_free);
          g_ptr_array_add (subdirs, g_strdup (name));
        }
    }
  _fl_platform_dir_list_close (list);

  if (!funcs->directory (dir, path, names, user_data, error))
    return FALSE;

  for (guint i = 0; subdirs != NULL && i < subdirs->len; i++)
    {
      g_autofree char *sub_path = g_build_filename (path, subdirs->pdata[i], NULL);
      FlDir *sub;
      gboolean ok;

      err = _fl_platform_dir_open_at (dir, subdirs->pdata[i], &sub);
      if (err != 0)
        {
          /* A link or no directory now (swapped since the listing), or gone: not ours to
           * read. Anything else (no permission, out of descriptors) leaves a hole. */
          if (err == ENOTDIR || err == ELOOP || err == ENOENT)
            continue;
          if (!report (funcs, user_data, sub_path, depth + 1, FL_WALK_UNOPENABLE, err, error))
            return FALSE;
          continue;
        }
      if (depth >= FL_WALK_MAX_DEPTH)
        {
          _fl_platform_dir_close (sub);
          if (!report (funcs, user_data, sub_path, depth + 1, FL_WALK_TOO_DEEP, 0, error))
            return FALSE;
          continue;
        }

      ok = walk_one (sub, sub_path, depth + 1, recursive, funcs, user_data, cancellable, error);
      _fl_platform_dir_close (sub);
      if (!ok)
        return FALSE;
    }

  return TRUE;
}

/* Walks @dir (open, and still the caller's afterwards) at @path. FALSE with @error set when a
 * callback stopped it or @cancellable was cancelled. */
gboolean
_fl_walk (FlDir             *dir,
          const char        *path,
          gboolean           recursive,
          const FlWalkFuncs *funcs,
          gpointer           user_data,
          GCancellable      *cancellable,
          GError           **error)
{
  g_assert (funcs != NULL && funcs->directory != NULL);

  return walk_one (dir, path, 0, recursive, funcs, user_data, cancellable, error);
}
