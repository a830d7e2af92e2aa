/* fl-scan.c: every lock, temp and graveyard file in a directory tree, once
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

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

static gboolean
scan_one (int                  dirfd,
          const char          *directory,
          FlScanFlags          flags,
          const FlLockOptions *options,
          gint64               now_us,
          guint                depth,
          GPtrArray           *out,
          GCancellable        *cancellable,
          GError             **error)
{
  DIR *dir;
  struct dirent *de;
  int listfd;

  /* fdopendir() takes ownership; keep dirfd for the *at() calls. */
  listfd = dup (dirfd);
  if (listfd < 0 || (dir = fdopendir (listfd)) == NULL)
    {
      int saved_errno = errno;
      if (listfd >= 0)
        close (listfd);
      g_set_error (error, FL_ERROR, FL_ERROR_FAILED, "Cannot list “%s”: %s",
                   directory, g_strerror (saved_errno));
      return FALSE;
    }

  while ((de = readdir (dir)) != NULL)
    {
      FlNameInfo info;
      gsize len;

      if (g_cancellable_set_error_if_cancelled (cancellable, error))
        {
          closedir (dir);
          return FALSE;
        }

      if (strcmp (de->d_name, ".") == 0 || strcmp (de->d_name, "..") == 0)
        continue;

      len = strlen (de->d_name);

      if (_fl_classify_name (de->d_name, len, &info))
        {
          g_autoptr(GError) local_error = NULL;
          /* With the holder's command line, as fl_snapshot_new() gives it: flctl's list and
           * status must agree. The directory model, which judges far more often, does not. */
          FlSnapshot *snapshot = _fl_snapshot_new_full (dirfd, directory, de->d_name, options,
                                                        now_us, TRUE, &local_error);
          if (snapshot != NULL)
            g_ptr_array_add (out, snapshot);
          /* A file that went away meanwhile is simply not there. */
          continue;
        }

      /* Recurse into real directories only; d_type may be DT_UNKNOWN on some filesystems. */
      if ((flags & FL_SCAN_RECURSIVE) && depth < 64 &&
          (de->d_type == DT_DIR || de->d_type == DT_UNKNOWN))
        {
          g_autofree char *subpath = NULL;
          int subfd;

          subfd = openat (dirfd, de->d_name,
                          O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK);
          if (subfd < 0)
            continue;  /* not a directory, a symlink, or unreadable: skipped */

          subpath = g_build_filename (directory, de->d_name, NULL);
          if (!scan_one (subfd, subpath, flags, options, now_us, depth + 1, out, cancellable,
                         error))
            {
              close (subfd);
              closedir (dir);
              return FALSE;
            }
          close (subfd);
        }
    }

  closedir (dir);
  return TRUE;
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
  g_autoptr(GPtrArray) out = NULL;
  int dirfd;

  g_return_val_if_fail (directory != NULL, NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  dirfd = open (directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC | O_NONBLOCK);
  if (dirfd < 0)
    {
      int saved_errno = errno;
      g_set_error (error, FL_ERROR,
                   saved_errno == ENOENT || saved_errno == ENOTDIR ? FL_ERROR_NOT_DIRECTORY :
                   saved_errno == EACCES ? FL_ERROR_PERMISSION : FL_ERROR_FAILED,
                   "Cannot read the directory “%s”: %s", directory, g_strerror (saved_errno));
      return NULL;
    }

  out = g_ptr_array_new_with_free_func (g_object_unref);
  if (!scan_one (dirfd, directory, flags, options, g_get_real_time (), 0, out, cancellable,
                 error))
    {
      close (dirfd);
      return NULL;
    }
  close (dirfd);

  g_ptr_array_sort (out, compare_paths);
  return g_steal_pointer (&out);
}
