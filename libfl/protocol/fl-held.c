/* fl-held.c: one process, one claim per lock (README, "Threads")
 *
 * Without it, a second acquire of a lock this process already holds would wait its whole
 * timeout on itself and then name its own PID. A lock is not re-entrant, by choice: a nested
 * acquire is almost always a bug (the outer section believes it is alone), and the Node module
 * is not re-entrant either. So a claim is taken before a backend is asked, and the second
 * asker fails at once, whichever thread it runs in; a claim is given up when the acquire
 * fails, at release, on the last unref and when the lock is lost.
 *
 * A forked child copies the table but is not the holder (ownership follows the real PID, as
 * in fl-file-lock.c): claims of another PID count as free.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <pthread.h>

#include <glib/gi18n-lib.h>

#include "fl-format-private.h"
#include "fl-error.h"
#include "protocol/fl-held-private.h"
#include "protocol/fl-judge-private.h"
#include "platform/fl-platform.h"

typedef struct
{
  int      pid;
  guint64  serial;
  gint64   since_us;  /* real time the lock was granted; 0 while it is being acquired */
  gint64   asked_us;  /* real time the claim was made */
} Claim;

/* A pthread mutex rather than a GMutex: GLib's is built on futexes, which ThreadSanitizer
 * cannot see (as in fl-process.c). */
static pthread_mutex_t mutex = PTHREAD_MUTEX_INITIALIZER;
static GHashTable *claims;  /* key → Claim */
static guint64 next_serial = 1;

gboolean
_fl_held_claim (const char  *key,
                guint64     *serial,
                GError     **error)
{
  int pid = _fl_platform_self_pid ();
  gint64 now = g_get_real_time ();
  Claim *claim;
  Claim old = { 0 };

  pthread_mutex_lock (&mutex);
  if (claims == NULL)
    claims = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
  claim = g_hash_table_lookup (claims, key);
  if (claim != NULL && claim->pid == pid)
    old = *claim;
  else
    {
      if (claim == NULL)
        {
          claim = g_new0 (Claim, 1);
          g_hash_table_insert (claims, g_strdup (key), claim);
        }
      claim->pid = pid;
      claim->serial = *serial = next_serial++;
      claim->since_us = 0;
      claim->asked_us = now;
    }
  pthread_mutex_unlock (&mutex);

  if (old.serial == 0)
    return TRUE;

  if (old.since_us != 0)
    {
      g_autofree char *age = _fl_format_age (now - MIN (now, old.since_us));

      g_set_error (error, FL_ERROR, FL_ERROR_HELD_BY_SELF,
                   _("“%s” is already held by this process (PID %d), since %s ago: a lock is not "
                     "re-entrant; use the lock this process holds, or release it first"),
                   key, pid, age);
    }
  else
    {
      g_autofree char *age = _fl_format_age (now - MIN (now, old.asked_us));

      g_set_error (error, FL_ERROR, FL_ERROR_HELD_BY_SELF,
                   _("“%s” is being acquired by another thread of this process (PID %d), for %s "
                     "now: a lock is not re-entrant; one thread of a process holds it at a time"),
                   key, pid, age);
    }
  return FALSE;
}

void
_fl_held_granted (const char *key,
                  guint64     serial)
{
  Claim *claim;

  pthread_mutex_lock (&mutex);
  claim = g_hash_table_lookup (claims, key);
  if (claim != NULL && claim->serial == serial)
    claim->since_us = g_get_real_time ();
  pthread_mutex_unlock (&mutex);
}

void
_fl_held_drop (const char *key,
               guint64     serial)
{
  Claim *claim;

  pthread_mutex_lock (&mutex);
  claim = claims != NULL ? g_hash_table_lookup (claims, key) : NULL;
  if (claim != NULL && claim->serial == serial)
    g_hash_table_remove (claims, key);
  pthread_mutex_unlock (&mutex);
}
