/* fl-etcd-thread.c: the process's etcd thread, its main context and its sessions
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * One thread per process runs a main context of its own with its own SoupSession, so a lock
 * call that blocks for minutes on the caller's session never starves a keepalive (pitfall 7).
 */
#include "config.h"

#include <libsoup/soup.h>

#include "etcd/fl-etcd-private.h"

static GMainContext *etcd_context;
static SoupSession  *default_session;  /* the etcd thread's only */
static GHashTable   *ca_sessions;      /* CA file -> its session; the etcd thread's only */

/* Created before any source runs on the context: only this thread's callbacks use it. A
 * request that hangs is given up by the keepalive's next tick, so the session needs no
 * timeout; the connection limits are raised so that many leases of one process never queue. */
static gpointer
etcd_thread (gpointer data)
{
  g_main_context_push_thread_default (etcd_context);
  default_session = soup_session_new_with_options ("timeout", 0, "max-conns-per-host", 64,
                                                   "max-conns", 256, NULL);
  ca_sessions = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_object_unref);
  for (;;)
    g_main_context_iteration (etcd_context, TRUE);
  return NULL;
}

GMainContext *
_fl_etcd_context (void)
{
  static gsize once = 0;

  if (g_once_init_enter (&once))
    {
      etcd_context = g_main_context_new ();
      g_thread_unref (g_thread_new ("fl-etcd", etcd_thread, NULL));
      g_once_init_leave (&once, 1);
    }
  return etcd_context;
}

/* The TLS database is a session's, so the leases with the same CA share one (and its
 * connections), and plain ones share the default. */
SoupSession *
_fl_etcd_thread_session (const char   *ca_file,
                         GTlsDatabase *database)
{
  SoupSession *session;

  g_assert (g_main_context_is_owner (etcd_context));

  if (ca_file == NULL)
    return default_session;
  session = g_hash_table_lookup (ca_sessions, ca_file);
  if (session == NULL)
    {
      session = soup_session_new_with_options ("timeout", 0, "max-conns-per-host", 64,
                                               "max-conns", 256, "tls-database", database,
                                               NULL);
      g_hash_table_insert (ca_sessions, g_strdup (ca_file), session);
    }
  return session;
}
