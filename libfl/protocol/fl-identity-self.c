/* fl-identity-self.c: this process's own identity, as the protocol records it on every temp
 *
 * Computed once per process (a forked child computes its own) and formatted once, since every
 * acquire writes it (docs/protocol.md, "identity").
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <pthread.h>
#include <string.h>

#include "platform/fl-platform.h"
#include "protocol/fl-content-private.h"

/* A pthread mutex rather than a GMutex: GLib's is built on futexes, which ThreadSanitizer
 * cannot see, and the multi-threaded tests run under it. */
static pthread_mutex_t self_lock = PTHREAD_MUTEX_INITIALIZER;
static FlIdentity self_identity;
static char self_record[FL_IDENTITY_MAX];  /* formatted once per process, kernel lock taken */
static gsize self_record_len;

void
_fl_identity_self (FlIdentity *identity)
{
  int pid = _fl_platform_self_pid ();

  pthread_mutex_lock (&self_lock);

  /* Cached per PID: a forked child computes its own. */
  if (self_identity.pid != pid)
    {
      FlPlatformSelf self;

      _fl_platform_self (&self);
      memset (&self_identity, 0, sizeof self_identity);
      self_identity.pid = pid;
      self_identity.start_ticks = self.start_ticks;
      /* 64 bits of a random per-boot value tell boots apart; see _fl_identity_format(). */
      g_strlcpy (self_identity.boot_id, self.boot_id, MIN (sizeof self_identity.boot_id, 17));
      self_identity.pidns = self.pidns;
      self_identity.timens = self.timens;

      self_identity.kernel_lock = TRUE;
      self_record_len = _fl_identity_format (&self_identity, self_record, sizeof self_record);
      self_identity.kernel_lock = FALSE;
    }

  *identity = self_identity;

  pthread_mutex_unlock (&self_lock);
}

gsize
_fl_identity_self_record (FlIdentity *identity,
                                  char       *buf,
                                  gsize       size)
{
  gsize len;

  _fl_identity_self (identity);  /* fills the cache for this PID */

  /* The record of the identity just read: a fork in another thread meanwhile changes
   * nothing here, the child does not run this thread, and its own call fills its own cache. */
  pthread_mutex_lock (&self_lock);
  len = self_identity.pid == identity->pid && self_record_len < size ? self_record_len : 0;
  memcpy (buf, self_record, len);
  pthread_mutex_unlock (&self_lock);

  return len;
}

gsize
_fl_identity_self_record_without_kernel_lock (char  *buf,
                                              gsize  size)
{
  FlIdentity me;

  _fl_identity_self (&me);
  me.kernel_lock = FALSE;
  return _fl_identity_format (&me, buf, size);
}
