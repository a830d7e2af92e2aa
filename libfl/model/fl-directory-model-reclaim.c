/* fl-directory-model-reclaim.c: the model's reclaim of confirmed snapshots, one on the main
 * loop or many in a worker thread, its own removals not reported as foreign changes
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <glib/gi18n-lib.h>

#include "model/fl-directory-model-object-private.h"
#include "model/fl-model-follower-private.h"
#include "model/fl-model-reclaimer-private.h"
#include "protocol/fl-snapshot-private.h"

/* The root whose follower updates @snapshot's row after a reclaim; NULL when no root covers
 * it any more (its row went with its root). */
static FlModelRoot *
root_of (FlDirectoryModel *self,
         FlSnapshot       *snapshot)
{
  return _fl_model_roots_covering (self->roots, NULL, _fl_snapshot_get_key (snapshot));
}

/* The followers' reclaimed and removed slots (fl-model-followers.c). A directory's row is
 * updated by the model itself; a root read whole is read again as a whole, as for any change
 * its watch reports. */

void
_fl_directory_model_reclaimed_path (FlDirectoryModel *self,
                                    FlModelRoot      *root,
                                    const char       *path,
                                    gboolean          ok)
{
  FlModelReader reader = FL_MODEL_READER_INIT;

  if (ok)
    self->store.quiet++;
  g_object_freeze_notify (G_OBJECT (self));
  _fl_directory_model_refresh_path (self, &reader, path, 0, _fl_directory_model_now (self));
  _fl_directory_model_notify_counts (self);
  g_object_thaw_notify (G_OBJECT (self));
  if (ok)
    self->store.quiet--;
  _fl_model_reader_clear (&reader);
  _fl_model_watch_schedule (&self->watch);
}

void
_fl_directory_model_reclaimed_whole (FlDirectoryModel *self,
                                     FlModelRoot      *root,
                                     const char       *path,
                                     gboolean          ok)
{
  _fl_directory_model_rescan_root (self, root);
}

/* The model knows the file is gone: its row leaves without a read (see forget_removed()). */
gboolean
_fl_directory_model_removed_path (FlDirectoryModel *self,
                                  FlModelRoot      *root,
                                  FlSnapshot       *snapshot)
{
  _fl_model_scanner_touch (&self->scanner, _fl_snapshot_get_key (snapshot));
  if (_fl_model_store_forget (&self->store, snapshot))
    return FALSE;
  /* another file took the path meanwhile: read it as any */
  _fl_model_monitor_queue (&self->monitor, fl_snapshot_get_path (snapshot), 0);
  return TRUE;
}

gboolean
_fl_directory_model_removed_whole (FlDirectoryModel *self,
                                   FlModelRoot      *root,
                                   FlSnapshot       *snapshot)
{
  _fl_directory_model_rescan_root (self, root);
  return FALSE;
}

/**
 * fl_directory_model_reclaim:
 * @self: a model
 * @snapshot: the snapshot a person confirmed, from an entry of @self
 * @error: where to report a refusal
 *
 * Runs fl_snapshot_reclaim() with the model's options on exactly @snapshot, so nothing is
 * touched if the file changed since (%FL_ERROR_CHANGED) or its holder lives (%FL_ERROR_NOT_STALE).
 * Then the model reads the path again at once, so the row updates before this returns, and a
 * successful reclaim is not reported by #FlDirectoryModel::entry-changed: it is the caller's
 * own doing, not a foreign change.
 *
 * Returns: %TRUE if the file was removed
 *
 * Since: 0.1
 */
gboolean
fl_directory_model_reclaim (FlDirectoryModel  *self,
                            FlSnapshot        *snapshot,
                            GError           **error)
{
  g_autofree char *path = NULL;
  FlModelRoot *root;
  gboolean ok;

  g_return_val_if_fail (FL_IS_DIRECTORY_MODEL (self), FALSE);
  g_return_val_if_fail (FL_IS_SNAPSHOT (snapshot), FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

  path = g_strdup (fl_snapshot_get_path (snapshot));
  ok = fl_snapshot_reclaim (snapshot, self->options, error);
  root = root_of (self, snapshot);
  if (root != NULL)
    root->follower->reclaimed (self, root, path, ok);
  return ok;
}

/* Reclaiming many */

typedef struct
{
  FlProgressFunc progress;
  gpointer       progress_data;
  GDestroyNotify progress_destroy;
  guint          n_removed;
  guint          n_refused;
} ReclaimOp;

static void
reclaim_op_free (ReclaimOp *op)
{
  if (op->progress_destroy != NULL)
    op->progress_destroy (op->progress_data);
  g_free (op);
}

/* On the model's context: what the worker did since its last batch. The model knows which
 * files it removed, so their rows leave here, without a read: the counts and the rows follow
 * the disk batch by batch (at most 2 x FL_MODEL_RECLAIM_BATCH behind it, fl-model-reclaimer.c),
 * not the file events, which come after and past 2,000 at once turn into a rescan (issue 34,
 * item 5). Those events then find nothing to remove; a scan in flight, which may have read a
 * file before it went, is told the path was read since. Their going is not news. A refused or
 * untried one is news again if it goes. */
static void
forget_removed (FlDirectoryModel *self,
                GPtrArray        *removed)
{
  gboolean queued = FALSE;

  g_object_freeze_notify (G_OBJECT (self));
  for (guint i = 0; i < removed->len; i++)
    {
      FlSnapshot *snap = removed->pdata[i];
      FlModelRoot *root = root_of (self, snap);

      if (root != NULL && root->follower->removed (self, root, snap))
        queued = TRUE;
    }
  _fl_directory_model_notify_counts (self);
  g_object_thaw_notify (G_OBJECT (self));
  if (queued)
    _fl_model_monitor_continue (&self->monitor);
  _fl_model_watch_schedule (&self->watch);
}

static void
reclaim_report_cb (const FlModelReclaimBatch *batch,
                   gpointer                   user_data)
{
  GTask *task = user_data;
  FlDirectoryModel *self = g_task_get_source_object (task);
  ReclaimOp *op = g_task_get_task_data (task);

  if (batch->removed->len > 0)
    forget_removed (self, batch->removed);
  for (guint i = 0; i < batch->refused->len; i++)
    _fl_model_store_expect_gone (&self->store, _fl_snapshot_get_key (batch->refused->pdata[i]),
                                 FALSE);
  for (guint i = 0; i < batch->untried->len; i++)
    _fl_model_store_expect_gone (&self->store, _fl_snapshot_get_key (batch->untried->pdata[i]),
                                 FALSE);
  op->n_removed += batch->removed->len;
  op->n_refused += batch->refused->len;

  if (op->progress != NULL)
    op->progress (batch->done, batch->total, op->progress_data);
  if (!batch->last)
    return;
  if (batch->untried->len > 0)
    g_task_return_new_error (task, G_IO_ERROR, G_IO_ERROR_CANCELLED,
                             _("Stopped after %u of %u files: cancelled"), batch->done,
                             batch->total);
  else
    g_task_return_boolean (task, TRUE);
}

/**
 * fl_directory_model_reclaim_async:
 * @self: a model
 * @snapshots: (element-type FlSnapshot): the snapshots a person confirmed, from entries of @self
 * @cancellable: (nullable): stops the work before the next file
 * @progress: (nullable) (scope notified) (closure progress_data): told how far the work has
 *   come, at most every 50 ms and once at the end
 * @progress_data: data for @progress
 * @progress_destroy: (nullable): frees @progress_data once the work is over
 * @callback: called when all are handled or the work was cancelled
 * @user_data: data for @callback
 *
 * Runs fl_snapshot_reclaim() on each of @snapshots, as fl_directory_model_reclaim() does for
 * one, in a worker thread: the main loop stays free however many there are. A file that
 * changed since its snapshot, or whose holder lives, is left alone and counted as refused.
 * The rows of removed files leave the model as the work goes, batch by batch, before any file
 * event about them (the model's counts are never more than a few hundred files behind the
 * disk), and their going is not reported by #FlDirectoryModel::entry-changed. @progress and @callback run on the
 * thread-default main context of this call, which must be the model's.
 *
 * Since: 0.1
 */
void
fl_directory_model_reclaim_async (FlDirectoryModel    *self,
                                  GPtrArray           *snapshots,
                                  GCancellable        *cancellable,
                                  FlProgressFunc       progress,
                                  gpointer             progress_data,
                                  GDestroyNotify       progress_destroy,
                                  GAsyncReadyCallback  callback,
                                  gpointer             user_data)
{
  g_autoptr(GTask) task = NULL;
  ReclaimOp *op;

  g_return_if_fail (FL_IS_DIRECTORY_MODEL (self));
  g_return_if_fail (snapshots != NULL);
  g_return_if_fail (cancellable == NULL || G_IS_CANCELLABLE (cancellable));
  for (guint i = 0; i < snapshots->len; i++)
    g_return_if_fail (FL_IS_SNAPSHOT (snapshots->pdata[i]));

  task = g_task_new (self, cancellable, callback, user_data);
  g_task_set_source_tag (task, fl_directory_model_reclaim_async);
  op = g_new0 (ReclaimOp, 1);
  op->progress = progress;
  op->progress_data = progress_data;
  op->progress_destroy = progress_destroy;
  g_task_set_task_data (task, op, (GDestroyNotify) reclaim_op_free);

  for (guint i = 0; i < snapshots->len; i++)
    _fl_model_store_expect_gone (&self->store, _fl_snapshot_get_key (snapshots->pdata[i]), TRUE);
  _fl_model_reclaimer_start (snapshots, self->options, cancellable,
                             g_task_get_context (task), reclaim_report_cb,
                             g_object_ref (task), g_object_unref);
}

/**
 * fl_directory_model_reclaim_finish:
 * @self: a model
 * @result: the result given to the callback
 * @n_removed: (out) (optional): how many files were removed, also when cancelled
 * @n_refused: (out) (optional): how many were left alone because they changed or their holder
 *   lives, also when cancelled
 * @error: %G_IO_ERROR_CANCELLED when the work stopped before the last file
 *
 * Finishes fl_directory_model_reclaim_async(): how many files were removed and how many
 * refused.
 *
 * Returns: %TRUE if every snapshot was handled (removed or refused)
 *
 * Since: 0.1
 */
gboolean
fl_directory_model_reclaim_finish (FlDirectoryModel  *self,
                                   GAsyncResult      *result,
                                   guint             *n_removed,
                                   guint             *n_refused,
                                   GError           **error)
{
  ReclaimOp *op;

  g_return_val_if_fail (FL_IS_DIRECTORY_MODEL (self), FALSE);
  g_return_val_if_fail (g_task_is_valid (result, self), FALSE);

  op = g_task_get_task_data (G_TASK (result));
  if (n_removed != NULL)
    *n_removed = op->n_removed;
  if (n_refused != NULL)
    *n_refused = op->n_refused;
  return g_task_propagate_boolean (G_TASK (result), error);
}
