/* fl-directory-model-problems.c: what a model could not read, said (FlDirectoryModel:problems),
 * and a watched directory that is gone, looked for until it comes back
 *
 * A listing is never silently incomplete (README): a subfolder that cannot be listed, a root
 * that became unreadable or was deleted are problems of the model until a scan reads them.
 * A deleted root makes no event when it is made again (its monitor watched the inode that is
 * gone, and GLib looks for a missing path only every 4 s), so the model looks for it itself,
 * one stat() per missing root every MISSING_POLL_MS, and only while one is missing.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include "model/fl-directory-model-object-private.h"
#include "model/fl-directory-model-private.h"
#include "platform/fl-platform.h"

#define MISSING_POLL_MS 250

static gboolean
missing_poll_cb (gpointer user_data)
{
  FlDirectoryModel *self = user_data;
  gboolean any = FALSE;

  for (guint i = 0; i < self->roots->len; i++)
    {
      FlModelRoot *root = self->roots->pdata[i];
      FlFileInfo info;

      if (!root->missing || root->removed)
        continue;
      any = TRUE;
      /* Back: read it (once: a scan in flight is not started again). */
      if (root->serial == root->applied && _fl_platform_stat_path (root->path, &info) == 0 &&
          info.type == FL_FILE_DIRECTORY)
        _fl_model_scanner_start (&self->scanner, root, FL_MODEL_SCAN_RESCAN, NULL);
    }
  if (any)
    return G_SOURCE_CONTINUE;
  self->missing_poll_id = 0;
  return G_SOURCE_REMOVE;
}

gboolean
_fl_directory_model_problems_update (FlDirectoryModel *self)
{
  g_auto(GStrv) problems = fl_directory_model_dup_problems (self, NULL);
  g_autofree char *said = g_strjoinv ("\n", problems);
  gboolean missing = FALSE;

  for (guint i = 0; i < self->roots->len; i++)
    missing |= ((FlModelRoot *) self->roots->pdata[i])->missing;
  if (missing && self->missing_poll_id == 0)
    self->missing_poll_id = g_timeout_add (MISSING_POLL_MS, missing_poll_cb, self);

  if (g_strcmp0 (said, self->problems_said) == 0)
    return FALSE;
  g_free (self->problems_said);
  self->problems_said = g_steal_pointer (&said);
  return TRUE;
}

/**
 * fl_directory_model_dup_problems:
 * @self: a model
 * @directory: (nullable): a directory (or etcd prefix) the model watches, or %NULL for all
 *
 * What the model could not read at its last scan of @directory, in words for a person
 * (translated): a subfolder that cannot be listed ("Cannot list “…”: Permission denied"), a
 * watched directory that became unreadable, or that is gone ("“…” is gone: watching for it to
 * come back": the model reads it again within a second of its return). The model's entries
 * are complete exactly when this is empty. #FlDirectoryModel:problems is notified when it
 * changes.
 *
 * Returns: (transfer full) (array zero-terminated=1): the problems, empty when there are none
 *
 * Since: 0.1
 */
char **
fl_directory_model_dup_problems (FlDirectoryModel *self,
                                 const char       *directory)
{
  GPtrArray *out;
  g_autofree char *path = NULL;

  g_return_val_if_fail (FL_IS_DIRECTORY_MODEL (self), NULL);

  out = g_ptr_array_new ();
  if (directory != NULL)
    path = _fl_model_root_path_for (directory);
  for (guint i = 0; i < self->roots->len; i++)
    {
      FlModelRoot *root = self->roots->pdata[i];

      if (path != NULL && g_strcmp0 (root->path, path) != 0)
        continue;
      if (root->unread != NULL)
        g_ptr_array_add (out, g_strdup (root->unread));
      for (guint k = 0; k < root->problems->len; k++)
        g_ptr_array_add (out, g_strdup (root->problems->pdata[k]));
    }
  g_ptr_array_add (out, NULL);
  return (char **) g_ptr_array_free (out, FALSE);
}
