/* fl-lock-convenience.c: with_lock, is_locked and the asynchronous acquire, over FlLock and
 * the backends
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <glib/gi18n-lib.h>

#include "fl-error.h"
#include "protocol/fl-lock-backend-private.h"
#include "protocol/fl-lock-private.h"
#include "fl-options-private.h"
#include "support/fl-tsan-private.h"

/**
 * fl_with_lock:
 * @target: the file to lock
 * @func: (scope call): the critical section
 * @user_data: data for @func
 * @options: (nullable): options, as for fl_lock_acquire()
 * @cancellable: (nullable): cancels the wait for the lock, not @func
 * @error: return location for a #GError
 *
 * Runs @func while holding @target's lock, as the Node module's `withFileLock` does. The lock
 * is released whatever @func returns. If @func fails, its error is returned; if it succeeded
 * but the lock was taken away meanwhile, %FL_ERROR_LOST is returned, because what @func did
 * was not protected.
 *
 * Returns: %TRUE if the lock was taken, @func succeeded and the lock was released cleanly
 *
 * Since: 0.1
 */
gboolean
fl_with_lock (const char          *target,
              FlLockFunc           func,
              gpointer             user_data,
              const FlLockOptions *options,
              GCancellable        *cancellable,
              GError             **error)
{
  g_autoptr(FlLock) lock = NULL;
  g_autoptr(GError) func_error = NULL;
  gboolean ok;

  g_return_val_if_fail (target != NULL, FALSE);
  g_return_val_if_fail (func != NULL, FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

  lock = fl_lock_acquire (target, options, cancellable, error);
  if (lock == NULL)
    return FALSE;

  ok = func (user_data, &func_error);
  if (!ok && func_error == NULL)
    g_set_error (&func_error, FL_ERROR, FL_ERROR_FAILED,
                 _("The critical section under “%s” failed without saying why"),
                 fl_lock_get_path (lock));

  if (!fl_lock_release (lock, ok ? error : NULL) && ok)
    return FALSE;

  if (!ok)
    {
      g_propagate_error (error, g_steal_pointer (&func_error));
      return FALSE;
    }
  return TRUE;
}

/**
 * fl_is_locked:
 * @target: the file whose lock to look at
 * @options: (nullable): options (stale_after matters)
 * @error: return location for a #GError
 *
 * Whether @target's lock is held by a live holder right now. A stale lock counts as not
 * locked (the next acquire takes it over); a foreign entry (a directory, a symlink...) at the
 * lock path counts as locked, since no acquire can succeed.
 *
 * Returns: %TRUE if held; %FALSE if free or stale, or with @error set on an I/O error
 *
 * Since: 0.1
 */
gboolean
fl_is_locked (const char          *target,
              const FlLockOptions *options,
              GError             **error)
{
  g_return_val_if_fail (target != NULL, FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

  return _fl_lock_backend_for (target)->is_locked (target, options, error);
}

typedef struct
{
  char          *target;
  FlLockOptions *options;
} AcquireData;

static void
acquire_data_free (gpointer data)
{
  AcquireData *ad = data;

  _fl_tsan_acquire (ad);
  g_free (ad->target);
  fl_lock_options_free (ad->options);
  g_free (ad);
}

/* The result of a task whose caller never collected it */
static void
acquired_lock_free (gpointer data)
{
  FlLock *lock = data;

  _fl_tsan_acquire (lock);
  g_object_unref (lock);
}

static void
acquire_thread_cb (GTask        *task,
                   gpointer      source_object,
                   gpointer      task_data,
                   GCancellable *cancellable)
{
  AcquireData *ad = task_data;
  GError *error = NULL;
  FlLock *lock;

  _fl_tsan_acquire (ad);
  lock = fl_lock_acquire (ad->target, ad->options, cancellable, &error);
  /* What this thread wrote, for the thread that collects the result or frees the task */
  _fl_tsan_release (ad);
  if (lock != NULL)
    {
      _fl_tsan_release (lock);
      g_task_return_pointer (task, lock, acquired_lock_free);
    }
  else
    g_task_return_error (task, error);
}

/**
 * fl_lock_acquire_async:
 * @target: the file to lock
 * @options: (nullable): options, copied
 * @cancellable: (nullable): a #GCancellable
 * @callback: called in the caller's thread-default main context once done
 * @user_data: data for @callback
 *
 * Acquires in a worker thread, for main-loop programs. If the result is never collected with
 * fl_lock_acquire_finish(), the lock is released when the task is freed.
 *
 * Since: 0.1
 */
void
fl_lock_acquire_async (const char          *target,
                       const FlLockOptions *options,
                       GCancellable        *cancellable,
                       GAsyncReadyCallback  callback,
                       gpointer             user_data)
{
  g_autoptr(GTask) task = NULL;
  AcquireData *ad;

  g_return_if_fail (target != NULL);

  ad = g_new0 (AcquireData, 1);
  ad->target = g_strdup (target);
  ad->options = fl_lock_options_copy (_fl_lock_options_or_default (options));

  task = g_task_new (NULL, cancellable, callback, user_data);
  g_task_set_source_tag (task, fl_lock_acquire_async);
  g_task_set_task_data (task, ad, acquire_data_free);
  _fl_tsan_release (ad);
  g_task_run_in_thread (task, acquire_thread_cb);
}

/**
 * fl_lock_acquire_finish:
 * @result: the #GAsyncResult given to the callback
 * @error: return location for a #GError
 *
 * Finishes fl_lock_acquire_async(): the lock, or why it could not be taken, as
 * fl_lock_acquire() reports it.
 *
 * Returns: (transfer full): the held lock, or %NULL with @error set
 *
 * Since: 0.1
 */
FlLock *
fl_lock_acquire_finish (GAsyncResult  *result,
                        GError       **error)
{
  FlLock *lock;

  g_return_val_if_fail (g_task_is_valid (result, NULL), NULL);
  g_return_val_if_fail (g_task_get_source_tag (G_TASK (result)) == fl_lock_acquire_async, NULL);

  _fl_tsan_acquire (g_task_get_task_data (G_TASK (result)));
  lock = g_task_propagate_pointer (G_TASK (result), error);
  /* The worker thread acquired it: ::lost belongs to the caller's context. */
  if (lock != NULL)
    {
      g_autoptr(GMainContext) context = g_main_context_ref_thread_default ();
      _fl_lock_set_context (lock, context);
    }
  return lock;
}
