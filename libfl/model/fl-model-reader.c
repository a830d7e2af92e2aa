/* fl-model-reader.c: one path judged again, sharing the directory with the last one
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include "model/fl-model-reader-private.h"
#include "protocol/fl-names-private.h"
#include "protocol/fl-snapshot-private.h"

void
_fl_model_reader_clear (FlModelReader *reader)
{
  g_clear_pointer (&reader->path, g_free);
  g_clear_pointer (&reader->dir, _fl_platform_dir_close);
}

/* NULL when @path cannot be opened (gone, or not a directory). */
static FlDir *
reader_open (FlModelReader *reader,
             const char    *path)
{
  if (reader->path != NULL && g_str_equal (reader->path, path))
    return reader->dir;

  _fl_model_reader_clear (reader);
  reader->path = g_strdup (path);
  _fl_platform_dir_open (path, FALSE, &reader->dir);
  return reader->dir;
}

FlSnapshot *
_fl_model_reader_read (FlModelReader       *reader,
                       const char          *path,
                       const FlLockOptions *options,
                       gint64               now_us)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *dir = g_path_get_dirname (path);
  const char *base = _fl_path_last_component (path);
  FlSnapshot *snap;
  FlDir *dirp;

  /* The protocol's names only, before any system call, as the walker decides. */
  if (base == path || !fl_entry_kind_for_name (base, NULL))
    return NULL;

  dirp = reader_open (reader, dir);
  if (dirp == NULL)
    return NULL;

  snap = _fl_snapshot_new_at (dirp, dir, base, options, now_us, &error);
  if (snap == NULL && !g_error_matches (error, G_IO_ERROR, G_IO_ERROR_NOT_FOUND))
    g_debug ("%s: %s", path, error->message);
  return snap;
}
