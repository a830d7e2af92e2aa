/* fl-waiter-private.h: sleeping until a lock may have become free
 *
 * docs/protocol.md, section 5: on the platform's events (platform/fl-platform.h, "Waiting");
 * where those are missing, with jittered backoff.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include <gio/gio.h>

#include "platform/fl-platform.h"

G_BEGIN_DECLS

typedef struct _FlWaiter FlWaiter;

typedef enum
{
  FL_WAKE_EVENT,      /* the lock name went away, or the watched holder exited */
  FL_WAKE_RECHECK,    /* the safety or backoff interval passed */
  FL_WAKE_DEADLINE,   /* @until passed */
  FL_WAKE_CANCELLED,
} FlWake;

/* Arms the watch on @dir for @lock_name; call it before the link() that may fail. */
FlWaiter *_fl_waiter_new       (FlDir         *dir,
                                const char    *lock_name,
                                gint64         backoff_min_us,
                                gint64         backoff_max_us);
void      _fl_waiter_free      (FlWaiter      *self);

/* Also wake when @pid, the PID in a lock whose kernel lock is held, exits; a PID that already
 * woke us is not armed again. When @pid cannot be watched (it is gone: someone else keeps the
 * kernel lock), the next wait re-checks with backoff, from backoff_min up. */
void      _fl_waiter_watch_pid (FlWaiter      *self,
                                int            pid);

/* Call after _fl_waiter_watch_pid(): when that PID cannot be watched (it is gone, and someone
 * else keeps the kernel lock), also wake when the holder's descriptor of @file (the lock file
 * judged, open for reading) is closed, the moment its kernel lock goes: a child that
 * inherited it exiting. FL_HANDLE_NONE for none (docs/protocol.md, section 5). */
void      _fl_waiter_watch_file (FlWaiter     *self,
                                 FlHandle      file);

/* Blocks until an event, a re-check, @until (monotonic µs; -1 = none) or cancellation. */
FlWake    _fl_waiter_wait      (FlWaiter      *self,
                                gint64         until,
                                GCancellable  *cancellable);

/* Whether events drive the waiting (for tests and the benchmark). */
gboolean  _fl_waiter_has_events (FlWaiter     *self);

/* How this process's waits ended so far, for tests: a waiter that polls shows re-checks where
 * an event-driven one shows events. Counts every FlWaiter of the process, never reset. */
typedef struct
{
  guint waits;      /* _fl_waiter_wait() calls */
  guint events;     /* ended by FL_WAKE_EVENT */
  guint rechecks;   /* ended by FL_WAKE_RECHECK */
  guint unwatched;  /* waits that had no event source at all (no directory events) */
} FlWaiterCounts;

void      _fl_waiter_get_counts (FlWaiterCounts *counts);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (FlWaiter, _fl_waiter_free)

G_END_DECLS
