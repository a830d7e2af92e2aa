/* fl-node-env.c: what one Node.js environment (the main thread, or a worker thread) holds
 *
 * Every lock a JavaScript thread holds is listed in its environment. When the environment
 * goes away (a worker thread exits or is terminated while it holds a lock, or the process
 * exits without releasing) the cleanup hook releases them all, and cancels the waits still
 * running in the thread pool for it: nothing is left behind, and no callback runs into a
 * dead environment.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "fl-node-private.h"

struct _FlNodeEnv
{
  GMutex        mutex;
  GHashTable   *held;        /* FlNodeHeld* (a reference each) */
  GCancellable *closing;     /* cancelled when the environment goes */
};

FlNodeEnv *
fl_node_env_get (napi_env env)
{
  FlNodeEnv *fenv = NULL;

  napi_get_instance_data (env, (void **) &fenv);
  return fenv;
}

void
fl_node_env_add (FlNodeEnv  *fenv,
                 FlNodeHeld *held)
{
  g_mutex_lock (&fenv->mutex);
  if (!g_hash_table_contains (fenv->held, held))
    g_hash_table_add (fenv->held, fl_node_held_ref (held));
  g_mutex_unlock (&fenv->mutex);
}

void
fl_node_env_remove (FlNodeEnv  *fenv,
                    FlNodeHeld *held)
{
  g_mutex_lock (&fenv->mutex);
  g_hash_table_remove (fenv->held, held);
  g_mutex_unlock (&fenv->mutex);
}

gboolean
fl_node_env_closing (FlNodeEnv *fenv)
{
  return g_cancellable_is_cancelled (fenv->closing);
}

GCancellable *
fl_node_env_get_closing (FlNodeEnv *fenv)
{
  return fenv->closing;
}

/* The hook runs before the environment's objects are finalized; the instance data's
 * finalizer runs last, when nothing can reach the table any more. */
static void
release_all (void *data)
{
  FlNodeEnv *fenv = data;
  g_autoptr(GHashTable) held = NULL;
  GHashTableIter iter;
  gpointer key;

  g_cancellable_cancel (fenv->closing);
  g_mutex_lock (&fenv->mutex);
  held = g_steal_pointer (&fenv->held);
  fenv->held = g_hash_table_new_full (g_direct_hash, g_direct_equal,
                                      (GDestroyNotify) fl_node_held_unref, NULL);
  g_mutex_unlock (&fenv->mutex);
  g_hash_table_iter_init (&iter, held);
  while (g_hash_table_iter_next (&iter, &key, NULL))
    fl_node_held_release (key, NULL);
}

static void
env_free (napi_env env,
          void    *data,
          void    *hint)
{
  FlNodeEnv *fenv = data;

  g_clear_pointer (&fenv->held, g_hash_table_unref);
  g_clear_object (&fenv->closing);
  g_mutex_clear (&fenv->mutex);
  g_free (fenv);
}

void
fl_node_env_install (napi_env env)
{
  FlNodeEnv *fenv = g_new0 (FlNodeEnv, 1);

  g_mutex_init (&fenv->mutex);
  fenv->held = g_hash_table_new_full (g_direct_hash, g_direct_equal,
                                      (GDestroyNotify) fl_node_held_unref, NULL);
  fenv->closing = g_cancellable_new ();
  napi_set_instance_data (env, fenv, env_free, NULL);
  napi_add_env_cleanup_hook (env, release_all, fenv);
}
