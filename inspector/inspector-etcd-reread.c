/* inspector-etcd-reread.c: one etcd lock read again by libfl, off the main thread
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * The directory model reads an etcd prefix again when etcd reports a change or a holder of this
 * machine exits (its row then says "Held: holder exited"); nothing in etcd moves while the
 * lease of a SIGKILLed holder runs out. The details pane asks libfl again, once a second,
 * about the one lock it shows, for what does move: how long the lease has left (docs/etcd.md,
 * "Inspection"); the window never judges by itself. A read takes
 * a round trip or two to etcd: never on the main thread.
 */
#include "config.h"

#include "inspector-etcd-reread.h"

static void
reread_thread (GTask        *task,
               gpointer      source,
               gpointer      task_data,
               GCancellable *cancellable)
{
  GError *error = NULL;
  FlSnapshot *snapshot = fl_snapshot_new_for_target (task_data, NULL, &error);

  if (snapshot != NULL)
    g_task_return_pointer (task, snapshot, g_object_unref);
  else
    g_task_return_error (task, error);
}

void
inspector_etcd_reread (const char          *target,
                       GCancellable        *cancellable,
                       GAsyncReadyCallback  callback,
                       gpointer             user_data)
{
  g_autoptr(GTask) task = g_task_new (NULL, cancellable, callback, user_data);

  g_task_set_source_tag (task, inspector_etcd_reread);
  /* A cancelled read is answered as such, whatever libfl returned. */
  g_task_set_return_on_cancel (task, TRUE);
  g_task_set_task_data (task, g_strdup (target), g_free);
  g_task_run_in_thread (task, reread_thread);
}

FlSnapshot *
inspector_etcd_reread_finish (GAsyncResult  *result,
                              GError       **error)
{
  g_return_val_if_fail (g_task_is_valid (result, NULL), NULL);

  return g_task_propagate_pointer (G_TASK (result), error);
}
