/* fl-waiter.c: sleeping until a lock may have become free (docs/protocol.md, section 5)
 *
 * The platform watches the lock's name and one holder process; this decides how long to sleep
 * between re-checks when no event can come: with jittered exponential backoff where the
 * platform has no directory events, and while the kernel lock is held by a process nobody can
 * watch.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include "support/fl-waiter-private.h"

struct _FlWaiter
{
  FlWatch *watch;
  int      watched_pid;
  int      fired_pid;      /* the last PID whose exit woke us: never armed again */
  gboolean pid_armed;      /* the platform watches watched_pid */
  gint64   backoff_min_us;
  gint64   backoff_max_us;
  gint64   backoff_us;     /* the next backoff interval, without events */
  /* The kernel lock is held, but not by a process we can watch: the PID in the file is gone
   * (a taker holds the stale lock's inode between T1 and T2, or a child inherited the
   * descriptor). If that holder dies, no event tells us: re-check with backoff instead. */
  gboolean holder_unwatched;
  gint64   unwatched_us;   /* the next re-check interval while that lasts */
};

FlWaiter *
_fl_waiter_new (FlDir      *dir,
                const char *lock_name,
                gint64      backoff_min_us,
                gint64      backoff_max_us)
{
  FlWaiter *self = g_new0 (FlWaiter, 1);

  self->backoff_min_us = MAX (backoff_min_us, 100);
  self->backoff_max_us = MAX (backoff_max_us, self->backoff_min_us);
  self->backoff_us = self->backoff_min_us;
  self->unwatched_us = self->backoff_min_us;
  self->watch = _fl_platform_watch_new (dir, lock_name);
  return self;
}

void
_fl_waiter_free (FlWaiter *self)
{
  if (self == NULL)
    return;
  _fl_platform_watch_free (self->watch);
  g_free (self);
}

gboolean
_fl_waiter_has_events (FlWaiter *self)
{
  return _fl_platform_watch_has_events (self->watch);
}

void
_fl_waiter_watch_pid (FlWaiter *self,
                      int       pid)
{
  if (pid != self->watched_pid && pid != self->fired_pid)
    {
      self->pid_armed = _fl_platform_watch_process (self->watch, pid);
      self->watched_pid = pid;
      self->unwatched_us = self->backoff_min_us;  /* another holder: its own backoff */
    }

  /* Gone already, or already woke us: whoever keeps the kernel lock is not this PID. */
  self->holder_unwatched = pid != self->watched_pid || !self->pid_armed;
}

void
_fl_waiter_watch_file (FlWaiter *self,
                       FlHandle  file)
{
  /* Only while no PID can be watched: with a PID the pidfd wakes about as soon, and a holder
   * that releases closes its file after removing the name, which would wake every waiter a
   * second time for nothing (measured: contended critical sections 20-90 % longer). */
  _fl_platform_watch_file (self->watch, self->holder_unwatched ? file : FL_HANDLE_NONE);
}

static gint counts_waits, counts_events, counts_rechecks, counts_unwatched;

void
_fl_waiter_get_counts (FlWaiterCounts *counts)
{
  counts->waits = (guint) g_atomic_int_get (&counts_waits);
  counts->events = (guint) g_atomic_int_get (&counts_events);
  counts->rechecks = (guint) g_atomic_int_get (&counts_rechecks);
  counts->unwatched = (guint) g_atomic_int_get (&counts_unwatched);
}

static gint64
jittered (gint64 us)
{
  /* ±25 %, so that waiters started together do not retry in lockstep. */
  return us - us / 4 + g_random_int_range (0, (gint32) MAX (1, MIN (us / 2, G_MAXINT32)));
}

FlWake
_fl_waiter_wait (FlWaiter     *self,
                 gint64        until,
                 GCancellable *cancellable)
{
  GPollFD cancel_fd = { -1, 0, 0 };
  gboolean have_cancel_fd;
  gint64 recheck_at;
  FlWake wake;

  g_atomic_int_inc (&counts_waits);
  if (!_fl_platform_watch_has_events (self->watch))
    {
      g_atomic_int_inc (&counts_unwatched);
      recheck_at = g_get_monotonic_time () + jittered (self->backoff_us);
      self->backoff_us = MIN (self->backoff_us * 2, self->backoff_max_us);
    }
  else if (self->holder_unwatched)
    {
      recheck_at = g_get_monotonic_time () + jittered (self->unwatched_us);
      self->unwatched_us = MIN (self->unwatched_us * 2, self->backoff_max_us);
    }
  else
    recheck_at = g_get_monotonic_time () + self->backoff_max_us;
  self->holder_unwatched = FALSE;  /* each judgement says anew */

  /* GPollFD.fd is a descriptor on POSIX and a HANDLE on Windows: what FlHandle holds. */
  have_cancel_fd = g_cancellable_make_pollfd (cancellable, &cancel_fd);

  for (;;)
    {
      gint64 now = g_get_monotonic_time ();
      gint64 wake_at = recheck_at;
      int timeout_ms;

      if (g_cancellable_is_cancelled (cancellable))
        {
          wake = FL_WAKE_CANCELLED;
          break;
        }
      if (until >= 0 && now >= until)
        {
          wake = FL_WAKE_DEADLINE;
          break;
        }
      if (now >= recheck_at)
        {
          wake = FL_WAKE_RECHECK;
          break;
        }

      if (until >= 0)
        wake_at = MIN (wake_at, until);
      /* Round up: waking a little late is harmless, waking early spins. */
      timeout_ms = (int) MIN ((wake_at - now + 999) / 1000, G_MAXINT);

      switch (_fl_platform_watch_wait (self->watch, timeout_ms,
                                       have_cancel_fd ? (FlHandle) cancel_fd.fd
                                                      : FL_HANDLE_NONE))
        {
        case FL_WATCH_NAME:
          wake = FL_WAKE_EVENT;
          goto out;
        case FL_WATCH_PROCESS:
          self->fired_pid = self->watched_pid;
          self->watched_pid = 0;
          self->pid_armed = FALSE;
          wake = FL_WAKE_EVENT;
          goto out;
        case FL_WATCH_ERROR:
          wake = FL_WAKE_RECHECK;
          goto out;
        case FL_WATCH_CANCELLED:  /* seen as cancelled at the top of the loop */
        case FL_WATCH_TIMEOUT:
        default:
          continue;
        }
    }

out:
  if (have_cancel_fd)
    g_cancellable_release_fd (cancellable);
  if (wake == FL_WAKE_EVENT)
    g_atomic_int_inc (&counts_events);
  else if (wake == FL_WAKE_RECHECK)
    g_atomic_int_inc (&counts_rechecks);

  return wake;
}
