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
                                errno_value == EACCES ? FL_ERROR_PERMISSION : FL_ERROR_FAILED,
                                "Cannot list “%s”: %s", path, g_strerror (errno_value)));
}

static gboolean
scan_one (int                  dirfd,
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
      /* A subdirectory that cannot be read does not hide what the others hold. */
      if (errors != NULL && depth > 0)
        {
          add_unreadable (errors, directory, saved_errno);
          return TRUE;
        }
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
          /* A file that went away meanwhile is simply not there; one that cannot be looked
           * at is reported to a caller that asked. */
          else if (errors != NULL &&
                   !g_error_matches (local_error, G_IO_ERROR, G_IO_ERROR_NOT_FOUND))
            g_ptr_array_add (errors, g_steal_pointer (&local_error));
          continue;
        }

      /* Recurse into real directories only; d_type may be DT_UNKNOWN on some filesystems. */
      if ((flags & FL_SCAN_RECURSIVE) &&
          (de->d_type == DT_DIR || de->d_type == DT_UNKNOWN))
        {
          g_autofree char *subpath = g_build_filename (directory, de->d_name, NULL);
          int subfd;

          subfd = openat (dirfd, de->d_name,
                          O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK);
          if (subfd < 0)
            {
              /* Not a directory, a symlink, or gone: not ours to read. Anything else (no
               * permission, out of descriptors) leaves the listing incomplete. */
              if (errors != NULL && errno != ENOTDIR && errno != ELOOP && errno != ENOENT)
                add_unreadable (errors, subpath, errno);
              continue;
            }
          if (depth >= MAX_DEPTH)
            {
              close (subfd);
              if (errors != NULL)
                g_ptr_array_add (errors,
                                 g_error_new (FL_ERROR, FL_ERROR_FAILED,
                                              "Not listed: “%s” is more than %d directories "
                                              "deep; list it on its own", subpath, MAX_DEPTH));
              continue;
            }

          if (!scan_one (subfd, subpath, flags, options, now_us, depth + 1, out, errors,
                         cancellable, error))
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

static GPtrArray *
scan_directory (const char          *directory,
                FlScanFlags          flags,
                const FlLockOptions *options,
                GCancellable        *cancellable,
                GPtrArray           *errors,
                GError             **error)
{
  g_autoptr(GPtrArray) out = NULL;
  int dirfd;

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
  if (!scan_one (dirfd, directory, flags, options, g_get_real_time (), 0, out, errors,
                 cancellable, error))
    {
      close (dirfd);
      return NULL;
    }
  close (dirfd);

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
