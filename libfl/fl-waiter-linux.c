/* fl-waiter-linux.c: waiting on inotify and pidfds (docs/protocol.md, section 5)
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <errno.h>
#include <poll.h>
#include <string.h>
#include <sys/inotify.h>
#include <unistd.h>

#include "fl-process-private.h"
#include "fl-waiter-private.h"

struct _FlWaiter
{
  int     inotify_fd;     /* -1: no events, back off instead */
  int     wd;
  int     pidfd;          /* -1: none armed */
  int     watched_pid;
  int     fired_pid;      /* the last PID whose exit woke us: never armed again */
  char   *lock_name;
  gint64  backoff_min_us;
  gint64  backoff_max_us;
  gint64  backoff_us;     /* the next backoff interval, without events */
  /* The kernel lock is held, but not by a process we can watch: the PID in the file is gone
   * (a taker holds the stale lock's inode between T1 and T2, or a child inherited the
   * descriptor). If that holder dies, no event tells us: re-check with backoff instead. */
  gboolean holder_unwatched;
  gint64  unwatched_us;   /* the next re-check interval while that lasts */
};

/* Closing an inotify instance that had a watch costs milliseconds (the kernel waits for an SRCU
 * grace period), and an acquirer that waited would pay it while holding the lock. So each
 * thread keeps one instance and only adds and removes watches on it. */
typedef struct
{
  int fd;
  int pid;  /* a forked child must not share its parent's instance */
} CachedInotify;

static void
cached_inotify_free (gpointer data)
{
  CachedInotify *c = data;

  if (c->fd >= 0 && c->pid == getpid ())
    close (c->fd);
  g_free (c);
}

static GPrivate cached_inotify = G_PRIVATE_INIT (cached_inotify_free);

static int
take_inotify (void)
{
  CachedInotify *c = g_private_get (&cached_inotify);
  int fd;

  if (c != NULL && c->fd >= 0)
    {
      fd = c->fd;
      c->fd = -1;
      if (c->pid == getpid ())
        return fd;
      close (fd);  /* the parent's, inherited through fork(): only our reference goes */
    }
  return inotify_init1 (IN_NONBLOCK | IN_CLOEXEC);
}

static void
give_back_inotify (int fd)
{
  CachedInotify *c = g_private_get (&cached_inotify);

  if (c == NULL)
    {
      c = g_new0 (CachedInotify, 1);
      c->fd = -1;
      g_private_set (&cached_inotify, c);
    }
  if (c->fd >= 0)
    close (c->fd);
  c->fd = fd;
  c->pid = getpid ();
}

FlWaiter *
_fl_waiter_new (int         dirfd,
                const char *lock_name,
                gint64      backoff_min_us,
                gint64      backoff_max_us)
{
  FlWaiter *self = g_new0 (FlWaiter, 1);
  char path[64];

  self->pidfd = -1;
  self->lock_name = g_strdup (lock_name);
  self->backoff_min_us = MAX (backoff_min_us, 100);
  self->backoff_max_us = MAX (backoff_max_us, self->backoff_min_us);
  self->backoff_us = self->backoff_min_us;
  self->unwatched_us = self->backoff_min_us;

  self->inotify_fd = take_inotify ();
  if (self->inotify_fd >= 0)
    {
      /* Through /proc/self/fd: the very directory we hold open, even if it was renamed. */
      g_snprintf (path, sizeof path, "/proc/self/fd/%d", dirfd);
      if ((self->wd = inotify_add_watch (self->inotify_fd, path,
                             IN_DELETE | IN_MOVED_FROM | IN_DELETE_SELF | IN_MOVE_SELF |
                             IN_ONLYDIR | IN_EXCL_UNLINK)) < 0)
        {
          /* No instances or watches left, or no /proc: back off instead. */
          close (self->inotify_fd);
          self->inotify_fd = -1;
        }
    }

  return self;
}

void
_fl_waiter_free (FlWaiter *self)
{
  if (self == NULL)
    return;
  if (self->inotify_fd >= 0)
    {
      char buf[4096] __attribute__ ((aligned (__alignof__ (struct inotify_event))));

      inotify_rm_watch (self->inotify_fd, self->wd);
      /* Events of this wait (and the IN_IGNORED) must not wake the next one. */
      while (read (self->inotify_fd, buf, sizeof buf) > 0)
        ;
      give_back_inotify (self->inotify_fd);
    }
  if (self->pidfd >= 0)
    close (self->pidfd);
  g_free (self->lock_name);
  g_free (self);
}

gboolean
_fl_waiter_has_events (FlWaiter *self)
{
  return self->inotify_fd >= 0;
}

void
_fl_waiter_watch_pid (FlWaiter *self,
                      int       pid)
{
  if (pid != self->watched_pid && pid != self->fired_pid)
    {
      if (self->pidfd >= 0)
        close (self->pidfd);
      self->pidfd = pid > 0 ? _fl_process_open_pidfd (pid) : -1;
      self->watched_pid = pid;
      self->unwatched_us = self->backoff_min_us;  /* another holder: its own backoff */
    }

  /* Gone already, or already woke us: whoever keeps the kernel lock is not this PID. */
  self->holder_unwatched = pid != self->watched_pid || self->pidfd < 0;
}

/* Drains the queue; TRUE if any event concerns our lock name or the directory itself. */
static gboolean
drain_inotify (FlWaiter *self)
{
  char buf[4096] __attribute__ ((aligned (__alignof__ (struct inotify_event))));
  gboolean relevant = FALSE;

  for (;;)
    {
      gssize len = read (self->inotify_fd, buf, sizeof buf);

      if (len < 0 && errno == EINTR)
        continue;
      if (len <= 0)
        break;

      for (char *p = buf; p < buf + len;)
        {
          const struct inotify_event *ev = (const struct inotify_event *) p;

          if (ev->mask & (IN_Q_OVERFLOW | IN_DELETE_SELF | IN_MOVE_SELF | IN_IGNORED))
            relevant = TRUE;
          else if (ev->len > 0 && strcmp (ev->name, self->lock_name) == 0)
            relevant = TRUE;

          p += sizeof (struct inotify_event) + ev->len;
        }
    }

  return relevant;
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

  if (self->inotify_fd < 0)
    {
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

  have_cancel_fd = g_cancellable_make_pollfd (cancellable, &cancel_fd);

  for (;;)
    {
      struct pollfd fds[3];
      nfds_t nfds = 0;
      int inotify_slot = -1, pid_slot = -1, cancel_slot = -1;
      gint64 now = g_get_monotonic_time ();
      gint64 wake_at = recheck_at;
      int timeout_ms, r;

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

      if (self->inotify_fd >= 0)
        {
          inotify_slot = nfds;
          fds[nfds++] = (struct pollfd) { self->inotify_fd, POLLIN, 0 };
        }
      if (self->pidfd >= 0)
        {
          pid_slot = nfds;
          fds[nfds++] = (struct pollfd) { self->pidfd, POLLIN, 0 };
        }
      if (have_cancel_fd)
        {
          cancel_slot = nfds;
          fds[nfds++] = (struct pollfd) { cancel_fd.fd, POLLIN, 0 };
        }

      r = poll (fds, nfds, timeout_ms);
      if (r < 0 && errno != EINTR)
        {
          wake = FL_WAKE_RECHECK;
          break;
        }
      if (r <= 0)
        continue;

      if (cancel_slot >= 0 && fds[cancel_slot].revents)
        continue;  /* seen as cancelled at the top of the loop */

      if (pid_slot >= 0 && fds[pid_slot].revents)
        {
          self->fired_pid = self->watched_pid;
          close (self->pidfd);
          self->pidfd = -1;
          self->watched_pid = 0;
          wake = FL_WAKE_EVENT;
          break;
        }

      if (inotify_slot >= 0 && fds[inotify_slot].revents && drain_inotify (self))
        {
          wake = FL_WAKE_EVENT;
          break;
        }
    }

  if (have_cancel_fd)
    g_cancellable_release_fd (cancellable);

  return wake;
}
