/* fl-scan.c: every lock, temp and graveyard file in a directory tree, once
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <errno.h>
#include <string.h>

#include <glib/gi18n-lib.h>

#include "fl-error-private.h"
#include "fl-error.h"
#include "protocol/fl-file-backend-private.h"
#include "protocol/fl-lock-backend-private.h"
#include "fl-scan.h"
#include "protocol/fl-snapshot-private.h"
#include "model/fl-walk-private.h"

static int
compare_paths (gconstpointer a,
               gconstpointer b)
{
  FlSnapshot *sa = *(FlSnapshot * const *) a;
  FlSnapshot *sb = *(FlSnapshot * const *) b;

  return strcmp (fl_snapshot_get_path (sa), fl_snapshot_get_path (sb));
}

/* A subdirectory that could not be read, for a caller that asked to know (@errors). */
static void
add_unreadable (GPtrArray  *errors,
                const char *path,
                int         errno_value)
{
  g_ptr_array_add (errors,
                   g_error_new (FL_ERROR,
                                _fl_error_code_from_errno (errno_value),
                                _("Cannot list “%s”: %s"), path, g_strerror (errno_value)));
}

typedef struct
{
  const FlLockOptions *options;
  gint64               now_us;
  GPtrArray           *out;
  GPtrArray           *errors;  /* or NULL: the caller did not ask */
  GCancellable        *cancellable;
} ScanCall;

static gboolean
scan_names_cb (FlDir       *dir,
               const char  *directory,
               GPtrArray   *names,
               gpointer     user_data,
               GError     **error)
{
  ScanCall *call = user_data;

  for (guint i = 0; i < names->len; i++)
    {
      g_autoptr(GError) local_error = NULL;
      FlSnapshot *snapshot;

      if (g_cancellable_set_error_if_cancelled (call->cancellable, error))
        return FALSE;

      /* With the holder's command line, as fl_snapshot_new() gives it: flctl's list and
       * status must agree. The directory model, which judges far more often, does not. */
      snapshot = _fl_snapshot_new_full (dir, directory, names->pdata[i], call->options,
                                        call->now_us, TRUE, &local_error);
      if (snapshot != NULL)
        g_ptr_array_add (call->out, snapshot);
      /* A file that went away meanwhile is simply not there; one that cannot be looked at is
       * reported to a caller that asked. */
      else if (call->errors != NULL &&
               !g_error_matches (local_error, G_IO_ERROR, G_IO_ERROR_NOT_FOUND))
        g_ptr_array_add (call->errors, g_steal_pointer (&local_error));
    }
  return TRUE;
}

/* A subdirectory that could not be read does not hide what the others hold, for a caller that
 * asked to know (@errors); fl_scan_directory() fails on a listing that breaks off. */
static gboolean
scan_problem_cb (const char     *path,
                 guint           depth,
                 FlWalkProblem   problem,
                 int             errno_value,
                 gpointer        user_data,
                 GError        **error)
{
  ScanCall *call = user_data;

  switch (problem)
    {
    case FL_WALK_UNREADABLE:
      if (call->errors == NULL || depth == 0)
        {
          g_set_error (error, FL_ERROR, FL_ERROR_FAILED, _("Cannot list “%s”: %s"),
                       path, g_strerror (errno_value));
          return FALSE;
        }
      add_unreadable (call->errors, path, errno_value);
      break;
    case FL_WALK_UNOPENABLE:
      if (call->errors != NULL)
        add_unreadable (call->errors, path, errno_value);
      break;
    case FL_WALK_TOO_DEEP:
      if (call->errors != NULL)
        g_ptr_array_add (call->errors,
                         g_error_new (FL_ERROR, FL_ERROR_FAILED,
                                      _("Not listed: “%s” is more than %d directories deep; "
                                        "list it on its own"), path, FL_WALK_MAX_DEPTH));
      break;
    }
  return TRUE;
}

static const FlWalkFuncs scan_funcs = { scan_names_cb, scan_problem_cb };

/* The file backend's scan: every entry of the directory walked once. */
GPtrArray *
_fl_file_scan (const char          *directory,
               gboolean             recursive,
               const FlLockOptions *options,
               GCancellable        *cancellable,
               GPtrArray           *errors,
               GError             **error)
{
  g_autoptr(GPtrArray) out = NULL;
  ScanCall call;
  FlDir *dir;
  int err;

  err = _fl_platform_dir_open (directory, FALSE, &dir);
  if (err != 0)
    {
      g_set_error (error, FL_ERROR,
                   _fl_error_code_from_directory_errno (err),
                   _("Cannot read the directory “%s”: %s"), directory, g_strerror (err));
      return NULL;
    }

  out = g_ptr_array_new_with_free_func (g_object_unref);
  call = (ScanCall) { options, g_get_real_time (), out, errors, cancellable };
  if (!_fl_walk (dir, directory, recursive, &scan_funcs, &call, cancellable, error))
    {
      _fl_platform_dir_close (dir);
      return NULL;
    }
  _fl_platform_dir_close (dir);

  g_ptr_array_sort (out, compare_paths);
  return g_steal_pointer (&out);
}

static GPtrArray *
scan_directory (const char          *directory,
                FlScanFlags          flags,
                const FlLockOptions *options,
                GCancellable        *cancellable,
                GPtrArray           *errors,
                GError             **error)
{
  return _fl_lock_backend_for (directory)->scan (directory, (flags & FL_SCAN_RECURSIVE) != 0,
                                                 options, cancellable, errors, error);
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
 * @directory may also be an etcd prefix, `etcd://HOST:PORT[,HOST:PORT...]/PREFIX`: one read
 * of etcd gives one snapshot per lock name queued under PREFIX, each as
 * fl_snapshot_new_for_target() gives it (holder, waiters). @flags do not matter there: a
 * name is one key component.
 *
 * Returns: (transfer container) (element-type FlSnapshot): the snapshots sorted by path, or
 *   %NULL with @error set if @directory cannot be read
 *
 * Since: 0.1
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
 *
 * Since: 0.1
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
