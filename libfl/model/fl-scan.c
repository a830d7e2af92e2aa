/* fl-scan.c: every lock, temp and graveyard file in a directory tree, once
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <errno.h>
#include <string.h>

#include "fl-error-private.h"
#include "fl-error.h"
#include "fl-names-private.h"
#include "fl-scan.h"
#include "fl-snapshot-private.h"

static int
compare_paths (gconstpointer a,
               gconstpointer b)
{
  FlSnapshot *sa = *(FlSnapshot * const *) a;
  FlSnapshot *sb = *(FlSnapshot * const *) b;

  return strcmp (fl_snapshot_get_path (sa), fl_snapshot_get_path (sb));
}

/* The deepest directory a recursive scan reads: the root is at depth 0. */
#define MAX_DEPTH 64

/* A subdirectory that could not be read, for a caller that asked to know (@errors). */
static void
add_unreadable (GPtrArray  *errors,
                const char *path,
                int         errno_value)
{
  g_ptr_array_add (errors,
                   g_error_new (FL_ERROR,
                                _fl_error_code_from_errno (errno_value),
                                "Cannot list “%s”: %s", path, g_strerror (errno_value)));
}

static gboolean
scan_one (FlDir               *dir,
          const char          *directory,
          FlScanFlags          flags,
          const FlLockOptions *options,
          gint64               now_us,
          guint                depth,
          GPtrArray           *out,
          GPtrArray           *errors,
          GCancellable        *cancellable,
          GError             **error)
{
  FlDirList *list;
  const char *name;
  FlFileType type;
  int err;

  err = _fl_platform_dir_list_open (dir, &list);
  if (err != 0)
    {
      /* A subdirectory that cannot be read does not hide what the others hold. */
      if (errors != NULL && depth > 0)
        {
          add_unreadable (errors, directory, err);
          return TRUE;
        }
      g_set_error (error, FL_ERROR, FL_ERROR_FAILED, "Cannot list “%s”: %s",
                   directory, g_strerror (err));
      return FALSE;
    }

  while ((name = _fl_platform_dir_list_next (list, &type)) != NULL)
    {
      FlNameInfo info;
      gsize len;

      if (g_cancellable_set_error_if_cancelled (cancellable, error))
        {
          _fl_platform_dir_list_close (list);
          return FALSE;
        }

      len = strlen (name);

      if (_fl_classify_name (name, len, &info))
        {
          g_autoptr(GError) local_error = NULL;
          /* With the holder's command line, as fl_snapshot_new() gives it: flctl's list and
           * status must agree. The directory model, which judges far more often, does not. */
          FlSnapshot *snapshot = _fl_snapshot_new_full (dir, directory, name, options,
                                                        now_us, TRUE, &local_error);
          if (snapshot != NULL)
            g_ptr_array_add (out, snapshot);
          /* A file that went away meanwhile is simply not there; one that cannot be looked
           * at is reported to a caller that asked. */
          else if (errors != NULL &&
                   !g_error_matches (local_error, G_IO_ERROR, G_IO_ERROR_NOT_FOUND))
            g_ptr_array_add (errors, g_steal_pointer (&local_error));
          continue;
        }

      /* Recurse into real directories only; the listing may not know (FL_FILE_UNKNOWN). */
      if ((flags & FL_SCAN_RECURSIVE) &&
          (type == FL_FILE_DIRECTORY || type == FL_FILE_UNKNOWN))
        {
          g_autofree char *subpath = g_build_filename (directory, name, NULL);
          FlDir *sub;

          err = _fl_platform_dir_open_at (dir, name, &sub);
          if (err != 0)
            {
              /* Not a directory, a symlink, or gone: not ours to read. Anything else (no
               * permission, out of descriptors) leaves the listing incomplete. */
              if (errors != NULL && err != ENOTDIR && err != ELOOP && err != ENOENT)
                add_unreadable (errors, subpath, err);
              continue;
            }
          if (depth >= MAX_DEPTH)
            {
              _fl_platform_dir_close (sub);
              if (errors != NULL)
                g_ptr_array_add (errors,
                                 g_error_new (FL_ERROR, FL_ERROR_FAILED,
                                              "Not listed: “%s” is more than %d directories "
                                              "deep; list it on its own", subpath, MAX_DEPTH));
              continue;
            }

          if (!scan_one (sub, subpath, flags, options, now_us, depth + 1, out, errors,
                         cancellable, error))
            {
              _fl_platform_dir_close (sub);
              _fl_platform_dir_list_close (list);
              return FALSE;
            }
          _fl_platform_dir_close (sub);
        }
    }

  _fl_platform_dir_list_close (list);
  return TRUE;
}

static GPtrArray *
scan_directory (const char          *directory,
                FlScanFlags          flags,
                const FlLockOptions *options,
                GCancellable        *cancellable,
                GPtrArray           *errors,
                GError             **error)
{
  g_autoptr(GPtrArray) out = NULL;
  FlDir *dir;
  int err;

  err = _fl_platform_dir_open (directory, FALSE, &dir);
  if (err != 0)
    {
      g_set_error (error, FL_ERROR,
                   _fl_error_code_from_directory_errno (err),
                   "Cannot read the directory “%s”: %s", directory, g_strerror (err));
      return NULL;
    }

  out = g_ptr_array_new_with_free_func (g_object_unref);
  if (!scan_one (dir, directory, flags, options, g_get_real_time (), 0, out, errors,
                 cancellable, error))
    {
      _fl_platform_dir_close (dir);
      return NULL;
    }
  _fl_platform_dir_close (dir);

  g_ptr_array_sort (out, compare_paths);
  return g_steal_pointer (&out);
}

/**
 * fl_scan_directory:
 * @directory: the directory to look in
 * @flags: %FL_SCAN_RECURSIVE to descend (never through symlinks)
 * @options: (nullable): options (stale_after matters)
 * @cancellable: (nullable): a #GCancellable
 * @error: return location for a #GError
 *
 * Judges every lock, temp, graveyard and foreign entry under @directory once. The holder's
 * command line is included when it can be read, as with fl_snapshot_new().
 *
 * Returns: (transfer container) (element-type FlSnapshot): the snapshots sorted by path, or
 *   %NULL with @error set if @directory cannot be read
 */
GPtrArray *
fl_scan_directory (const char          *directory,
                   FlScanFlags          flags,
                   const FlLockOptions *options,
                   GCancellable        *cancellable,
                   GError             **error)
{
  g_return_val_if_fail (directory != NULL, NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  return scan_directory (directory, flags, options, cancellable, NULL, error);
}

/**
 * fl_scan_directory_full:
 * @directory: the directory to look in
 * @flags: %FL_SCAN_RECURSIVE to descend (never through symlinks)
 * @options: (nullable): options (stale_after matters)
 * @cancellable: (nullable): a #GCancellable
 * @errors: (out) (transfer container) (element-type GError): what could not be read below
 *   @directory, one error per directory or file, each naming its path: a subdirectory that
 *   cannot be opened (no permission, too many open files), one more than 64 levels deep, a
 *   file that cannot be looked at. Empty when the listing is complete
 * @error: return location for a #GError
 *
 * Like fl_scan_directory(), for a caller that must say when the listing is incomplete: a part
 * of the tree that cannot be read does not hide the rest, and is reported in @errors. A
 * program that lists locks should show each of them and fail, so that "nothing found" always
 * means nothing is there.
 *
 * Returns: (transfer container) (element-type FlSnapshot): the snapshots sorted by path, or
 *   %NULL with @error set (and @errors untouched) if @directory itself cannot be read
 */
GPtrArray *
fl_scan_directory_full (const char          *directory,
                        FlScanFlags          flags,
                        const FlLockOptions *options,
                        GCancellable        *cancellable,
                        GPtrArray          **errors,
                        GError             **error)
{
  g_autoptr(GPtrArray) found = g_ptr_array_new_with_free_func ((GDestroyNotify) g_error_free);
  GPtrArray *ret;

  g_return_val_if_fail (directory != NULL, NULL);
  g_return_val_if_fail (errors != NULL, NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  ret = scan_directory (directory, flags, options, cancellable, found, error);
  if (ret != NULL)
    *errors = g_steal_pointer (&found);
  return ret;
}
