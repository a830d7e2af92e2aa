/* fl-node-gate.c: the turns the JavaScript threads of one process take on a lock
 *
 * libfl's locks are per process: a second acquire of a lock this process holds, or is
 * acquiring, fails at once with FL_ERROR_HELD_BY_SELF instead of waiting for itself (README,
 * "Threads"). The module's users run worker_threads that all share one PID and, with the
 * module, waited for each other. So before libfl is asked, a thread passes this gate, one per
 * lock and process: the others wait here, on a condition, until the holder leaves (released,
 * failed or timed out), their deadline passes or their wait is cancelled.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "fl-node-private.h"

static GMutex gate_mutex;
static GCond gate_cond;
static GHashTable *gate_owners;   /* key -> the owner (an FlNodeEnv) inside */

/* The key libfl's own table uses: the target made absolute (an etcd target as it is). */
char *
fl_node_gate_key (const char *target)
{
  if (g_str_has_prefix (target, "etcd://") || g_str_has_prefix (target, "etcds://"))
    return g_strdup (target);
  return g_canonicalize_filename (target, NULL);
}

/* A cancel wakes every waiter; each then looks at its own cancellable. */
static void
wake_all (GCancellable *cancellable,
          gpointer      data)
{
  g_mutex_lock (&gate_mutex);
  g_cond_broadcast (&gate_cond);
  g_mutex_unlock (&gate_mutex);
}

/* @fail_if_owner: a synchronous acquire on the thread that is inside already would wait for
 * itself for ever (that thread cannot leave while it waits): it fails at once instead. */
FlNodeGateResult
fl_node_gate_enter (const char   *key,
                    gconstpointer owner,
                    gboolean      fail_if_owner,
                    gint64        deadline_us,
                    GCancellable *cancellable)
{
  FlNodeGateResult result = FL_NODE_GATE_ENTERED;
  gulong handler = 0;

  /* Connected before the mutex is taken: connecting a cancelled one calls wake_all at once. */
  if (cancellable != NULL)
    handler = g_cancellable_connect (cancellable, G_CALLBACK (wake_all), NULL, NULL);

  g_mutex_lock (&gate_mutex);
  if (gate_owners == NULL)
    gate_owners = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  for (;;)
    {
      gpointer inside;

      if (g_cancellable_is_cancelled (cancellable))
        {
          result = FL_NODE_GATE_CANCELLED;
          break;
        }
      if (!g_hash_table_lookup_extended (gate_owners, key, NULL, &inside))
        {
          g_hash_table_insert (gate_owners, g_strdup (key), (gpointer) owner);
          break;
        }
      if (fail_if_owner && inside == owner)
        {
          result = FL_NODE_GATE_SELF;
          break;
        }
      if (deadline_us < 0)
        g_cond_wait (&gate_cond, &gate_mutex);
      else if (!g_cond_wait_until (&gate_cond, &gate_mutex, deadline_us)
               && g_get_monotonic_time () >= deadline_us)
        {
          result = FL_NODE_GATE_TIMEOUT;
          break;
        }
    }
  g_mutex_unlock (&gate_mutex);

  if (handler != 0)
    g_cancellable_disconnect (cancellable, handler);
  return result;
}

void
fl_node_gate_leave (const char *key)
{
  g_mutex_lock (&gate_mutex);
  g_hash_table_remove (gate_owners, key);
  g_cond_broadcast (&gate_cond);
  g_mutex_unlock (&gate_mutex);
}
