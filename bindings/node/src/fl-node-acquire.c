/* fl-node-acquire.c: one acquire for JavaScript, from any thread, and the lock it gives
 *
 * The request's deadline covers the whole wait: the in-process gate first (fl-node-gate.c),
 * then libfl with what is left of the timeout. An etcd lock reports a lost lease through
 * FlLock::lost in the thread-default main context of the thread that acquired it; JavaScript
 * threads run no GLib main loop, so each etcd lock gets a context of its own and a small
 * thread that runs it, from which the loss is relayed to JavaScript (fl-node-lock.c).
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "fl-node-private.h"

#include <unistd.h>

struct _FlNodeHeld
{
  gatomicrefcount ref;
  GMutex          mutex;
  FlLock         *lock;       /* NULL once released */
  char           *gate_key;   /* NULL once the gate was left */

  /* etcd only: the context FlLock::lost is emitted in, and the thread that runs it */
  GMainContext   *context;
  GMainLoop      *loop;
  GThread        *thread;
  gulong          lost_handler;
  gboolean        lost;
  void          (*lost_func) (gpointer data);
  gpointer        lost_data;
};

static gboolean
is_etcd (const char *target)
{
  return g_str_has_prefix (target, "etcd://") || g_str_has_prefix (target, "etcds://");
}

void
fl_node_request_clear (FlNodeRequest *request)
{
  g_clear_pointer (&request->target, g_free);
  g_clear_pointer (&request->options, fl_lock_options_free);
  g_clear_object (&request->cancellable);
}

static void
on_lost (FlLock   *lock,
         gpointer  data)
{
  FlNodeHeld *held = data;
  void (*func) (gpointer) = NULL;
  gpointer func_data = NULL;

  /* Called under the mutex: fl_node_held_stop_relay() then never returns while a call
   * into a relay it is about to free is running. */
  g_mutex_lock (&held->mutex);
  held->lost = TRUE;
  func = held->lost_func;
  func_data = held->lost_data;
  if (func != NULL)
    func (func_data);
  g_mutex_unlock (&held->mutex);
}

static gpointer
run_lost_relay (gpointer data)
{
  FlNodeHeld *held = data;

  g_main_context_push_thread_default (held->context);
  g_main_loop_run (held->loop);
  g_main_context_pop_thread_default (held->context);
  return NULL;
}

/* Called once, right after the JavaScript object for @held exists; a loss that came first is
 * relayed at once. @func runs on the relay thread, under the held lock's mutex. */
void
fl_node_held_relay_lost (FlNodeHeld     *held,
                         void          (*func) (gpointer data),
                         gpointer        data)
{
  g_mutex_lock (&held->mutex);
  held->lost_func = func;
  held->lost_data = data;
  if (held->lost)
    func (data);
  g_mutex_unlock (&held->mutex);
}

/* After this, the relay's function is never called again: its data may be freed. */
void
fl_node_held_stop_relay (FlNodeHeld *held)
{
  g_mutex_lock (&held->mutex);
  held->lost_func = NULL;
  held->lost_data = NULL;
  g_mutex_unlock (&held->mutex);
}

gboolean
fl_node_held_can_be_lost (FlNodeHeld *held)
{
  return held->context != NULL;
}

static void
set_gate_error (GError     **error,
                FlNodeGateResult result,
                const char  *target,
                gint64       timeout_ms)
{
  g_autofree char *lock_path = fl_lock_path_for (target);

  if (result == FL_NODE_GATE_CANCELLED)
    g_set_error (error, G_IO_ERROR, G_IO_ERROR_CANCELLED,
                 "The wait for the lock %s was cancelled", lock_path);
  else if (result == FL_NODE_GATE_SELF)
    g_set_error (error, FL_ERROR, FL_ERROR_HELD_BY_SELF,
                 "The lock %s is held by this thread already (PID %d): a lock is not "
                 "re-entrant; take it once around the whole section",
                 lock_path, (int) getpid ());
  else
    g_set_error (error, FL_ERROR, FL_ERROR_TIMEOUT,
                 "Timed out after %" G_GINT64_FORMAT " ms waiting for the lock %s: it is "
                 "held by another thread of this process (PID %d, a worker thread or an "
                 "unfinished async section); wait longer, or find the section that keeps it",
                 timeout_ms, lock_path, (int) getpid ());
}

FlNodeHeld *
fl_node_acquire (const FlNodeRequest *request,
                 GError             **error)
{
  g_autofree char *key = fl_node_gate_key (request->target);
  g_autoptr(FlLockOptions) options = fl_lock_options_copy (request->options);
  g_autoptr(GMainContext) context = NULL;
  FlNodeGateResult entered;
  FlNodeHeld *held;
  gint64 deadline = -1;
  FlLock *lock;

  if (request->timeout_ms >= 0)
    deadline = g_get_monotonic_time ()
               + MIN (request->timeout_ms, G_MAXINT64 / 1000 / 4) * 1000;
  entered = fl_node_gate_enter (key, request->owner, !request->wait_for_self, deadline,
                                request->cancellable);
  if (entered != FL_NODE_GATE_ENTERED)
    {
      set_gate_error (error, entered, request->target, request->timeout_ms);
      return NULL;
    }
  if (deadline >= 0)
    fl_lock_options_set_timeout_ms (options,
                                    MAX (deadline - g_get_monotonic_time (), 0) / 1000);

  if (is_etcd (request->target))
    {
      context = g_main_context_new ();
      g_main_context_push_thread_default (context);
    }
  lock = fl_lock_acquire (request->target, options, request->cancellable, error);
  if (context != NULL)
    g_main_context_pop_thread_default (context);
  if (lock == NULL)
    {
      fl_node_gate_leave (key);
      return NULL;
    }

  held = g_new0 (FlNodeHeld, 1);
  g_atomic_ref_count_init (&held->ref);
  g_mutex_init (&held->mutex);
  held->lock = lock;
  held->gate_key = g_steal_pointer (&key);
  if (context != NULL)
    {
      held->context = g_steal_pointer (&context);
      held->loop = g_main_loop_new (held->context, FALSE);
      held->lost_handler = g_signal_connect (lock, "lost", G_CALLBACK (on_lost), held);
      held->thread = g_thread_new ("fl-node-lost", run_lost_relay, held);
    }
  return held;
}

FlLock *
fl_node_held_get_lock (FlNodeHeld *held)
{
  return held->lock;
}

gboolean
fl_node_held_is_released (FlNodeHeld *held)
{
  gboolean released;

  g_mutex_lock (&held->mutex);
  released = held->lock == NULL;
  g_mutex_unlock (&held->mutex);
  return released;
}

static gboolean
quit_relay (gpointer data)
{
  g_main_loop_quit (data);
  return G_SOURCE_REMOVE;
}

/* Releasing twice does nothing the second time, as fl_lock_release() does. */
gboolean
fl_node_held_release (FlNodeHeld  *held,
                      GError     **error)
{
  g_autoptr(FlLock) lock = NULL;
  g_autofree char *key = NULL;
  gboolean ok = TRUE;

  g_mutex_lock (&held->mutex);
  lock = g_steal_pointer (&held->lock);
  key = g_steal_pointer (&held->gate_key);
  g_mutex_unlock (&held->mutex);
  if (lock == NULL)
    return TRUE;

  ok = fl_lock_release (lock, error);
  if (held->thread != NULL)
    {
      /* Quit from inside the loop: a quit before the thread entered it would be lost. */
      GSource *quit = g_idle_source_new ();

      g_source_set_callback (quit, quit_relay, held->loop, NULL);
      g_source_attach (quit, held->context);
      g_source_unref (quit);
      g_thread_join (g_steal_pointer (&held->thread));
      g_signal_handler_disconnect (lock, held->lost_handler);
    }
  /* The gate is left only once libfl let go: the next thread of this process then finds the
   * lock free instead of FL_ERROR_HELD_BY_SELF. */
  g_clear_object (&lock);
  fl_node_gate_leave (key);
  return ok;
}

FlNodeHeld *
fl_node_held_ref (FlNodeHeld *held)
{
  g_atomic_ref_count_inc (&held->ref);
  return held;
}

void
fl_node_held_unref (FlNodeHeld *held)
{
  if (!g_atomic_ref_count_dec (&held->ref))
    return;
  fl_node_held_release (held, NULL);
  g_clear_pointer (&held->loop, g_main_loop_unref);
  g_clear_pointer (&held->context, g_main_context_unref);
  g_mutex_clear (&held->mutex);
  g_free (held);
}
